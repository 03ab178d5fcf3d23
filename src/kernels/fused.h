/* fused.h — what the fused kernels (fused.c) take from nn.c: its
 * convolution and GEMM, run as the ATen kernels run them. Internal to
 * src/kernels/. */
#ifndef EIR_KERNELS_FUSED_H
#define EIR_KERNELS_FUSED_H

#include "fast.h"
#include "kernel.h"

/* A 1-3 d convolution, not transposed: out = conv(x, w) + bias (bias may be
 * NULL); stride, pad and dil have one entry per spatial dim. */
int eir_nn_conv(eir_kctx *ctx, const eir_tview *x, const eir_tview *w, const eir_tview *bias, const int64_t *stride,
                const int64_t *pad, const int64_t *dil, int64_t groups, eir_tview *out);

/* eir_nn_conv, float32, with epi applied to every output element after the
 * bias: fused into the computation where the path allows (the depthwise
 * kernel's planes, the GEMM's blocks), one pass at the end otherwise. */
int eir_nn_conv_epi(eir_kctx *ctx, const eir_tview *x, const eir_tview *w, const eir_tview *bias, const int64_t *stride,
                    const int64_t *pad, const int64_t *dil, int64_t groups, eir_tview *out, const eir_conv_epi *epi);

/* C = A B + bias: A (.., M, K), B (.., K, N), C (.., M, N) of one rank with
 * broadcast batch dims; bias (NULL, or broadcast to C's shape) is copied into
 * C first and accumulated into, as addmm does. */
int eir_nn_gemm(eir_kctx *ctx, const eir_tview *A, const eir_tview *B, const eir_tview *bias, const eir_tview *C);

/* The width (a multiple of 16) of the column blocks a float32 product of
 * M x K by K x N rows is cut into, so that each block of a weight stored
 * ahead of time can lie contiguous (eir_cpu::linear's panels); 0 when the
 * product runs as one call or is cut by rows. A function of the shape. */
int64_t eir_nn_gemm_panel_width(int64_t M, int64_t N, int64_t K);

/* Attention as aten.scaled_dot_product_attention computes it without
 * dropout, causal masking or GQA: out = softmax(q k^T * scale + mask) v, rows
 * whose scores are all -inf give 0; mask NULL or broadcast to the scores. */
int eir_nn_sdpa(eir_kctx *ctx, const eir_tview *q, const eir_tview *k, const eir_tview *v, const eir_tview *mask,
                double scale, eir_tview *out);

#endif
