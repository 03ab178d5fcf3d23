/* nngemm.h — C = A B in float32 for tens to hundreds of rows of A against a B packed once (nngemm.c).
 * Internal to src/kernels/.
 *
 * eir_nngemm_f32 computes C (M x N, rows ldc apart) = A (M x K, rows lda apart) times B (K x N),
 * B packed once by eir_nngemm_pack, on the calling thread, every matrix row-major with
 * contiguous rows. Every element of C is one chain of fused multiply-adds over k = 0 .. K-1 in
 * order, starting from 0, then the epilogue: the bits depend on the values only, not on M, N or
 * how the caller cuts its work. Made for the products of the Winograd convolution and of 1 x 1
 * convolutions on channels-last pixel bands (dnnl_conv.c): tens to a few hundred rows against a
 * weight packed once.
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

#endif
