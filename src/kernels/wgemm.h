/* wgemm.h — a linear layer's product read from its weight as stored (wgemm.c). Internal to
 * src/kernels/.
 *
 * eir_wgemm_f32 computes C = X W^T (+ bias) in float32 for X (M x K, rows ldx apart), W (N x K,
 * rows ldw apart, elements contiguous) and C (M x N, rows ldc apart), on the pool of the run in
 * progress. Every element of C is one chain of fused multiply-adds over k = 0 .. K-1 in order,
 * then the bias added: the result does not depend on the thread count, on how the work is cut,
 * or on whether the program ran before. It reads W where it lies, with no copy (a mapped archive's
 * pages included), so a first run costs what a later one does.
 *
 * It needs AVX-512F. eir_wgemm_enabled() says whether kernels should call it: by default on an
 * Intel CPU with AVX-512F, where it was measured faster than oneDNN's sgemm on the benchmark
 * models' linear layers (docs/GEMM.md, "Linear layers of few rows from the weight as stored"); off
 * elsewhere. EIR_WGEMM=1 turns it on wherever AVX-512F is there, EIR_WGEMM=0 off; read once. */
#ifndef EIR_KERNELS_WGEMM_H
#define EIR_KERNELS_WGEMM_H

#include <stdbool.h>
#include <stdint.h>

bool eir_wgemm_enabled(void);

/* Whether a kernel should hand it a product of M rows over K: where it is on, for 48 to 64 rows
 * (one chunk of 3 or 4 vectors; fewer rows keep too few accumulators busy, and with more oneDNN's
 * packed sgemm was faster: the BERT encoder's 128) and K of at least 256 (below, its per-tile work
 * outweighs the products). Measurements: docs/GEMM.md. */
enum { EIR_WGEMM_MIN_M = 48, EIR_WGEMM_MAX_M = 64, EIR_WGEMM_MIN_K = 256 };
static inline bool eir_wgemm_takes(int64_t M, int64_t K) {
    return M >= EIR_WGEMM_MIN_M && M <= EIR_WGEMM_MAX_M && K >= EIR_WGEMM_MIN_K && eir_wgemm_enabled();
}

/* Tests: 1 on (where the CPU has AVX-512F), 0 off, -1 back to the default (the environment, the
 * CPU). Not thread-safe against products running. */
void eir_wgemm_set(int mode);

/* bias: N values bstride apart, or NULL. Returns 0, or -1 when out of memory or the CPU lacks
 * AVX-512F (C untouched then: the caller takes another path). */
int eir_wgemm_f32(int64_t M, int64_t N, int64_t K, const float *X, int64_t ldx, const float *W, int64_t ldw,
                  const float *bias, int64_t bstride, float *C, int64_t ldc);

#endif
