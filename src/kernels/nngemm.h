/* nngemm.h — C = A B in float32 for a few rows of A against a B read as stored (nngemm.c).
 * Internal to src/kernels/.
 *
 * eir_nngemm_f32 computes C (M x N, rows ldc apart) = A (M x K, rows lda apart) times B (K x N,
 * rows ldb apart), every matrix row-major with contiguous rows, on the calling thread. Every
 * element of C is one chain of fused multiply-adds over k = 0 .. K-1 in order, starting from 0:
 * the bits depend on the values only, not on M, N or how the caller cuts its work. B is read
 * where it lies, unpacked: the kernel broadcasts A's values against 32 columns of B at a time.
 * Made for the products of the Winograd convolution (dnnl_conv.c): tens to a few hundred rows
 * against a transformed weight that stays the same from call to call.
 *
 * It needs AVX-512F: eir_nngemm_f32 returns -1 (C untouched) without it, and
 * eir_nngemm_enabled() says whether callers should use it: where the CPU has AVX-512F, unless
 * EIR_NNGEMM=0 (read once). */
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

/* C = A P, P packed by eir_nngemm_pack from a K x N matrix. Returns 0, or -1 when the CPU lacks
 * AVX-512F (C untouched then). */
int eir_nngemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *P, float *C,
                   int64_t ldc);

#endif
