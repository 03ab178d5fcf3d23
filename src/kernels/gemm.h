/* gemm.h — the float32 matrix product every kernel calls (gemm.c). Internal
 * to src/kernels/.
 *
 * eir_sgemm takes cblas_sgemm's arguments and computes what it computes:
 * C = alpha op(A) op(B) + beta C in row- or column-major storage. It runs
 * oneDNN's dnnl_sgemm when libdnnl.so.2 can be loaded (measured faster on
 * this project's shapes, docs/GEMM.md) on as many threads as OpenBLAS is
 * set to use, and OpenBLAS's cblas_sgemm otherwise. The environment variable
 * EIR_GEMM=openblas or EIR_GEMM=dnnl picks one (dnnl when it cannot be
 * loaded: OpenBLAS); it is read once, at the first product. Builds with
 * AddressSanitizer or ThreadSanitizer use OpenBLAS unless EIR_GEMM=dnnl.
 * Linear layers of at most 64 rows do not come here where wgemm.h's kernel
 * runs (an Intel CPU with AVX-512): it reads their weights as stored. */
#ifndef EIR_KERNELS_GEMM_H
#define EIR_KERNELS_GEMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cblas.h>

void eir_sgemm(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int M, int N, int K, float alpha, const float *A,
               int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* C (float32, row-major) = alpha op(A) op(B) + beta C with A and B bfloat16
 * (their bits, row-major; ta / tb: stored transposed), products of bfloat16
 * values summed in float32: oneDNN's dnnl_gemm_bf16bf16f32 (AVX512-BF16 dot
 * products where the CPU has them). false, having written nothing, where it
 * is not available (eir_gemm_bf16_available: no libdnnl, EIR_GEMM=openblas,
 * sanitizer builds) or declines the call (a CPU without AVX-512): the caller
 * then converts to float32 and calls eir_sgemm. */
bool eir_gemm_bf16_available(void);
bool eir_gemm_bf16(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A, int64_t lda,
                   const uint16_t *B, int64_t ldb, float beta, float *C, int64_t ldc);

/* The library eir_sgemm uses: "oneDNN 2.6.3" or "OpenBLAS". */
const char *eir_sgemm_library(void);

/* Constant operands copied once (gemm.c). eir_sgemm_const_add declares
 * [p, p + nbytes) constant on behalf of owner (a runtime): float32 products
 * whose right-hand operand (B of a row-major product, A of a column-major
 * one) is transposed and lies inside it read that operand transposed: from a
 * scratch transpose at its first use, from a copy made at its second and kept
 * after (the same bits). The bytes must not change until
 * eir_sgemm_const_drop(owner), which forgets owner's ranges. A copy is
 * shared by every owner that declared its source (runtimes on one program)
 * and freed with the last of them. mapped: the range lies in a read-only private file mapping (an
 * archive eir mapped): once an operand in it is copied, the pages wholly
 * inside that operand are given back to the kernel (madvise MADV_DONTNEED),
 * so the copy takes their place in memory instead of adding to it; a later
 * read of them maps the file's bytes again. Returns 0, or -1 when out of
 * memory (nothing declared). Both do nothing where copies are off
 * (EIR_GEMM_PACK=0, or neither oneDNN loaded nor nngemm.c enabled);
 * eir_sgemm_const_copies() says whether oneDNN's transposed copies are on. */
int eir_sgemm_const_add(const void *owner, const void *p, size_t nbytes, bool mapped);
void eir_sgemm_const_drop(const void *owner);
bool eir_sgemm_const_copies(void);
/* The copy of a constant W (n x k, rows ld apart; a linear layer's weight) packed for nngemm as
 * W^T (eir_nngemm_pack's layout, K = k, N = n), where W lies in a declared range and copies are on
 * (EIR_GEMM_PACK not 0; oneDNN loaded or nngemm enabled): EIR_CONST_FIRST at W's first use, when
 * nothing is kept (the caller reads W as stored, wgemm.c, which gives the same bits as nngemm on
 * the copy); EIR_CONST_PACKED from the second, *P the copy (made then, kept as the transposed
 * copies are, released with them); EIR_CONST_NONE when W is not constant, copies are off, or the
 * copy could not be made. */
typedef enum { EIR_CONST_NONE, EIR_CONST_FIRST, EIR_CONST_PACKED } eir_const_use;
eir_const_use eir_sgemm_const_packed(const float *W, int64_t n, int64_t k, int64_t ld, const float **P);
/* Whether W lies in a declared range (where eir_sgemm_const_packed could copy it); no copy made */
bool eir_sgemm_is_const(const float *W, int64_t n, int64_t k, int64_t ld);
/* Bytes of the copies held now, all owners. */
size_t eir_sgemm_const_bytes(void);
/* Copies made from now on use the portable transpose instead of the AVX2 one
 * (tests compare the two); not thread-safe against products running. */
void eir_sgemm_transpose_portable(bool on);

#endif
