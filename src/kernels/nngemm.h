/* nngemm.h — C = A B in float32 for tens to hundreds of rows of A against a B packed once (nngemm.c).
 * Internal to src/kernels/.
 *
 * eir_nngemm_f32 computes C (M x N, rows ldc apart) = A (M x K, rows lda apart) times B (K x N),
 * B packed once by eir_nngemm_pack, on the calling thread, every matrix row-major with
 * contiguous rows. Every element of C is one chain of fused multiply-adds over k = 0 .. K-1 in
 * order, starting from 0, then the epilogue: the bits depend on the values only, not on M, N or
 * how the caller cuts its work. Made for the products of the Winograd convolution and of 1 x 1
 * convolutions on channels-last pixel bands (dnnl_conv.c), and linear layers on a constant weight
 * (eir_nngemm_linear_f32 below): tens to a few hundred rows against a weight packed once.
 *
 * It needs AVX-512F: eir_nngemm_f32 returns -1 (C untouched) without it, and
 * eir_nngemm_enabled() says whether callers should use it: by default on an Intel CPU with
 * AVX-512F, where it was measured (docs/GEMM.md); off elsewhere (on the AMD EPYC, where its
 * 512-bit operations run as two halves, it was not measured). EIR_NNGEMM=1 turns it on wherever
 * AVX-512F is there, EIR_NNGEMM=0 off; read once. */
#ifndef EIR_KERNELS_NNGEMM_H
#define EIR_KERNELS_NNGEMM_H

#include <stdbool.h>
#include <stdint.h>

bool eir_nngemm_enabled(void);

/* Tests: 1 on (where the CPU has AVX-512F), 0 off, -1 back to the default. Not thread-safe
 * against products running. */
void eir_nngemm_set(int mode);

/* B (K x N, rows ldb apart) packed for the kernel into P, eir_nngemm_packed_floats(K, N) floats:
 * strips of 64 columns, each K rows of 64 floats (the last strip's columns past N zero). */
int64_t eir_nngemm_packed_floats(int64_t K, int64_t N);
void eir_nngemm_pack(int64_t K, int64_t N, const float *B, int64_t ldb, float *P);

/* What eir_nngemm_f32 does to each sum before it stores it (a convolution's epilogue): y =
 * act(sum + bias[j] + res[i][j]), each step a float32 operation as dnnl_conv.h's epilogues
 * compute it (the bias, then the residual, then the activation; NaN kept by relu and clip,
 * hardswish v * clamp(v + 3, 0, 6) / 6). */
enum { EIR_NNGEMM_NONE, EIR_NNGEMM_RELU, EIR_NNGEMM_CLIP, EIR_NNGEMM_HARDSWISH };
typedef struct eir_nngemm_epi {
    const float *bias; /* N values, or NULL */
    const float *res;  /* M x N, rows ldr apart, or NULL */
    int64_t ldr;
    int act;           /* EIR_NNGEMM_* */
    float lo, hi;      /* EIR_NNGEMM_CLIP's bounds */
} eir_nngemm_epi;

/* C = A P, P packed by eir_nngemm_pack from a K x N matrix, then epi (NULL: none). Returns 0, or
 * -1 when the CPU lacks AVX-512F (C untouched then). */
int eir_nngemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *P, float *C,
                   int64_t ldc, const eir_nngemm_epi *epi);

/* A linear layer's C = X W^T (+ bias, N values, or NULL) for a constant W (N x K, rows ldw apart;
 * contiguous rows everywhere), on the pool of the run in progress: from W's copy packed for this
 * kernel (gemm.c, eir_sgemm_const_packed, kept from W's second use), in blocks of whole strips;
 * at W's first use, and on a pool of more than one thread, from W as stored with eir_wgemm_f32,
 * whose bits are the same (each element the chain of FMAs over k in order, then the bias), so a
 * first run reads no copy and every run, at any thread count, gives the same result. Returns 1 done; 0 not taken (the kernel off, W not a declared constant, copies
 * off or the copy not possible) or -1 (out of memory): C untouched, the caller takes its own path.
 * eir_nngemm_linear_takes says for which shapes kernels should call it. */
/* 16 to 64 rows, K of at least 64: where it ran faster than dnnl_sgemm on the transposed copy
 * (docs/GEMM.md, "Linear layers on eir's kernel"); with fewer rows too few accumulators are busy,
 * with a shorter K the product is too small for a copy of the weight to pay. Up to 256 rows it was
 * faster too on one thread, but on two wgemm (which must take them there, for the same bits) was
 * slower than oneDNN on 128 rows. */
static inline bool eir_nngemm_linear_takes(int64_t M, int64_t K) {
    return M >= 16 && M <= 64 && K >= 64 && eir_nngemm_enabled();
}
int eir_nngemm_linear_f32(int64_t M, int64_t N, int64_t K, const float *X, int64_t ldx, const float *W, int64_t ldw,
                          const float *bias, float *C, int64_t ldc);

#endif
