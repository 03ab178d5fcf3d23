/* dnnl_conv.h — float32 2-d convolutions with constant weights on oneDNN's
 * convolution primitive (dnnl_conv.c). Internal to src/kernels/ and the
 * runtime that declares its constants.
 *
 * A runtime declares the storages of the parameters, buffers and constants
 * its program never writes (eir_dnnl_conv_const_add, on behalf of owner); a
 * convolution whose weight lies wholly inside one of them runs on oneDNN's
 * primitive, its weight reordered once into the primitive's layout and kept,
 * with the primitives made for its shape (at most 8 shapes per weight).
 * Runtimes on one program declare the same bytes and share these entries;
 * an entry is freed when eir_dnnl_conv_const_drop has dropped the last
 * range holding its weight, so an address reused after that never meets a
 * cached weight. Nothing of this is on
 * unless eir_sgemm runs oneDNN (EIR_GEMM, gemm.h) and EIR_DNNL_CONV is not
 * 0, and nothing when eir was built without oneDNN's header. */
#ifndef EIR_KERNELS_DNNL_CONV_H
#define EIR_KERNELS_DNNL_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fast.h"

/* Declare [p, p + nbytes) constant for owner until eir_dnnl_conv_const_drop(owner).
 * mapped: it lies in a read-only private file mapping, whose pages under a
 * reordered weight are given back. Returns 0, or -1 when out of memory
 * (nothing declared). */
int eir_dnnl_conv_const_add(const void *owner, const void *p, size_t nbytes, bool mapped);
void eir_dnnl_conv_const_drop(const void *owner);

/* Whether the primitive path is on (oneDNN loaded, EIR_DNNL_CONV not 0). */
bool eir_dnnl_conv_enabled(void);

/* y (N, O, OH, OW) = conv2d(x (N, C, H, W), w (O, C, KH, KW)) + bias (O; NULL:
 * none), groups 1, all contiguous; pad: top and left (bottom and right follow
 * from the output size); then epi (NULL: none) on every output row of each
 * channel. Returns true when computed; false (nothing written) when w is not
 * in a declared constant or oneDNN has no primitive for the shape: the caller
 * takes its own path. The output channels are cut into blocks of a fixed size
 * whatever the thread count, one primitive each, run on the pool's threads
 * with oneDNN single-threaded: the same bits at any thread count. */
bool eir_dnnl_conv2d_f32(const float *x, const float *w, const float *bias, float *y, int64_t N, int64_t C, int64_t H,
                         int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW, const int64_t *stride,
                         const int64_t *pad, const int64_t *dil, const eir_conv_epi *epi);

/* The same for a bfloat16 weight (a bfloat16 program's convolution; x, bias and y float32, no
 * epilogue): the weight converted to float32 by the one reorder into the primitive's layout, kept
 * as the float32 weights are; the products of bfloat16 values exact in float32, summed in
 * float32 as torch's bfloat16 convolution sums them. */
bool eir_dnnl_conv2d_wbf16(const float *x, const uint16_t *w, const float *bias, float *y, int64_t N, int64_t C,
                           int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                           const int64_t *stride, const int64_t *pad, const int64_t *dil);

/* The layout of convolution chains (docs/IR.md, Backend dialect): a tensor (N, C, H, W) kept
 * as (N, ceil(C / B), H, W, B), channel c of pixel (h, w) at [n][c / B][h][w][c % B], the
 * lanes past C zero. eir_dnnl_conv_layout() gives B: 8 or 16 (oneDNN's nChw8c / nChw16c),
 * or EIR_DNNL_NHWC, B the tensor's channel count (one block: channels last, NHWC); 0: no
 * chains (the primitive is off, or EIR_DNNL_BLOCKED=0). The layout is the one the primitive
 * picks on this CPU for a 64-channel 3 x 3 convolution; EIR_DNNL_BLOCKED=8, 16 or nhwc sets
 * it (measurements). */
#define EIR_DNNL_NHWC (-1)
int eir_dnnl_conv_layout(void);

/* eir_cpu::conv2d_blocked with at most this many input channels and groups 1 (a network's stem)
 * runs eir's own kernel when the output's block is a multiple of 16 (fused.c, conv_small_c); it
 * reads an NCHW input as cheaply as a blocked one, so a chain starts there without a to_blocked. */
#define EIR_CONV_SMALL_C 4

/* Applied to each piece of a blocked convolution's output as the primitive completes it:
 * image n, channels [c0, c0 + nc), P pixels; the value of pixel p, channel c0 + j at
 * src[p * sp + j * sj]; writes dst[p * dp + j] for j < nc and zeros for nc <= j < nz (the
 * padding lanes). src and dst may be the same memory (sp == dp, sj == 1). */
typedef struct eir_blk_epi {
    void (*fn)(const void *ctx, int64_t n, int64_t c0, int64_t nc, int64_t nz, int64_t P, const float *src, int64_t sp,
               int64_t sj, float *dst, int64_t dp);
    const void *ctx;
    /* What fn computes, for the primitive to take it in instead (oneDNN post-ops) where it
     * writes a channels-last output in place: y = act(conv + bias + res). act: EIR_BLK_*, or -1
     * (fn only); lo, hi: EIR_BLK_CLIP's bounds; bias (O floats) and res (laid out as y) NULL
     * when there are none. The results then differ from fn's in the last bits (oneDNN's sums
     * and activation), the same at any thread count. */
    int act;
    float lo, hi;
    const float *bias, *res;
} eir_blk_epi;

enum { EIR_BLK_NONE, EIR_BLK_RELU, EIR_BLK_CLIP, EIR_BLK_HARDSWISH, EIR_BLK_SILU };

/* y blocked by yB (N, ceil(O / yB), OH, OW, yB) = epi(conv2d(x, w)), no bias, groups 1 (w (O, C,
 * KH, KW)) or depthwise (groups == C == O, w (C, 1, KH, KW), x blocked by yB); x NCHW (xB 0) or
 * blocked by xB; blocks 8, 16 or the tensor's channel count. Any kernel size. The output
 * written through epi (required). Returns false (nothing written) as eir_dnnl_conv2d_f32 does,
 * or for other blocks and groups (EIR_DNNL_DW=0: for every depthwise one). The same bits at any
 * thread count: a large channels-last depthwise convolution runs on several threads in bands of
 * output rows, each output the same sum as in the one primitive run over the image that one
 * thread makes. */
bool eir_dnnl_conv2d_blk_f32(const float *x, int64_t xB, const float *w, float *y, int64_t yB, int64_t N, int64_t C,
                             int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                             const int64_t *stride, const int64_t *pad, const int64_t *dil, int64_t groups,
                             const eir_blk_epi *epi);

/* y = x in another layout, (N, C, H, W): xB and yB 0 for NCHW, else the block (8, 16 or C,
 * with C a multiple of it), on oneDNN's reorder primitive (kept per shape, at most 64). Returns
 * false (nothing written) when it is off or has no primitive for it. */
bool eir_dnnl_reorder_f32(const float *x, int64_t xB, float *y, int64_t yB, int64_t N, int64_t C, int64_t H,
                          int64_t W);

/* Convolutions run on the primitive, and weight bytes held in its layouts, all owners (tests). */
uint64_t eir_dnnl_conv_calls(void);
/* Of those, the calls that ran as Winograd F(2 x 2, 3 x 3) (tests). */
uint64_t eir_dnnl_conv_wino_calls(void);
/* Of those, the calls whose products ran on eir_nngemm_f32 (nngemm.h; else OpenBLAS) (tests). */
uint64_t eir_dnnl_conv_wino_nn_calls(void);
/* Of those, the 1 x 1 convolutions run in pixel bands on eir_nngemm_f32 (tests). */
uint64_t eir_dnnl_conv_pw_nn_calls(void);
/* Of those, the depthwise calls that ran in bands of output rows on more than one thread (tests). */
uint64_t eir_dnnl_conv_dw_band_calls(void);
/* Convolution primitives refused because oneDNN offered its reference implementation (its slow,
 * portable loops: a sign that a convolution's formats do not fit together); the caller took its
 * own path (tests). */
uint64_t eir_dnnl_conv_ref_prims(void);
size_t eir_dnnl_conv_weight_bytes(void);

#endif
