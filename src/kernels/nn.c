/* nn.c — kernel family: matrix products (mm, bmm, addmm, addmv, mv, dot,
 * matmul, linear, baddbmm), convolution (1-3 d, groups, transposed),
 * pooling, embedding, attention, and the recurrent layers and cells (lstm,
 * gru, rnn_tanh, rnn_relu).
 *
 * Floating dtypes compute in a "compute type": f64 in f64, f32/f16/bf16 in
 * f32 (operands converted into f32 scratch, result rounded once; bf16
 * products take oneDNN's bf16 GEMM when there is one, eir_gemm_bf16: the
 * same float32 sums of the same exact products, rounded once). Products go
 * to a BLAS (f32: eir_sgemm, gemm.h; f64 and complex: OpenBLAS) when an
 * operand's strides fit a leading dimension and a transpose flag, else
 * through a contiguous scratch copy. Integer
 * dtypes use exact loops with wrap-around (as torch's int mm). */
#include <cblas.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../base/pool.h"
#include "dnnl_conv.h"
#include "fast.h"
#include "gemm.h"
#include "fused.h"
#include "kutil.h"
#include "recurrent.h"
#include "tables.h"
#include "nngemm.h"
#include "wgemm.h"

/* ======================================================================
 * helpers
 * ====================================================================== */

static eir_dtype ctype_of(eir_dtype d) {
    if (d == EIR_F64) return EIR_F64;
    if (d == EIR_F32 || d == EIR_F16 || d == EIR_BF16) return EIR_F32;
    if (eir_is_integral(d, false)) return EIR_I64;
    if (d == EIR_C64 || d == EIR_C128) return d;
    return EIR_DTYPE_UNKNOWN;
}

static const char *dname(eir_dtype d) { return eir_torch_dtype_name(d); }

/* Convert a run of n elements (byte strides ds / ss). */
static void run_convert(char *d, eir_dtype dd, int64_t ds, const char *s, eir_dtype sd, int64_t ss, int64_t n) {
    if (dd == sd) {
        size_t es = eir_elsize(dd);
        if (ds == (int64_t)es && ss == (int64_t)es) { memcpy(d, s, (size_t)n * es); return; }
        for (int64_t k = 0; k < n; k++) memcpy(d + k * ds, s + k * ss, es);
        return;
    }
    if (eir_kernels_fast && ds == 4 && ss == 2 && dd == EIR_F32 && (sd == EIR_BF16 || sd == EIR_F16)) {
        (sd == EIR_BF16 ? eir_bf16_to_f32_row : eir_f16_to_f32_row)((float *)d, (const uint16_t *)s, n);
        return;
    }
    if (eir_kernels_fast && ds == 2 && ss == 4 && sd == EIR_F32 && (dd == EIR_BF16 || dd == EIR_F16)) {
        (dd == EIR_BF16 ? eir_f32_to_bf16_row : eir_f32_to_f16_row)((uint16_t *)d, (const float *)s, n);
        return;
    }
    if (dd == EIR_F32) {
        if (sd == EIR_F16) { for (int64_t k = 0; k < n; k++) *(float *)(d + k * ds) = eir_f16_to_f32(*(const uint16_t *)(s + k * ss)); return; }
        if (sd == EIR_BF16) { for (int64_t k = 0; k < n; k++) *(float *)(d + k * ds) = eir_bf16_to_f32(*(const uint16_t *)(s + k * ss)); return; }
        if (sd == EIR_F64) { for (int64_t k = 0; k < n; k++) *(float *)(d + k * ds) = (float)*(const double *)(s + k * ss); return; }
    }
    if (sd == EIR_F32) {
        if (dd == EIR_F16) { for (int64_t k = 0; k < n; k++) *(uint16_t *)(d + k * ds) = eir_f32_to_f16(*(const float *)(s + k * ss)); return; }
        if (dd == EIR_BF16) { for (int64_t k = 0; k < n; k++) *(uint16_t *)(d + k * ds) = eir_f32_to_bf16(*(const float *)(s + k * ss)); return; }
        if (dd == EIR_F64) { for (int64_t k = 0; k < n; k++) *(double *)(d + k * ds) = *(const float *)(s + k * ss); return; }
    }
    if (eir_is_complex(dd) || eir_is_complex(sd)) {
        for (int64_t k = 0; k < n; k++) {
            double re, im;
            eir_load_c128(s + k * ss, sd, &re, &im);
            eir_store_c128(d + k * ds, dd, re, im);
        }
        return;
    }
    if (eir_is_integral(dd, true) && eir_is_integral(sd, true)) {
        for (int64_t k = 0; k < n; k++) eir_store_i64(d + k * ds, dd, eir_load_i64(s + k * ss, sd));
        return;
    }
    for (int64_t k = 0; k < n; k++) eir_store_f64(d + k * ds, dd, eir_load_f64(s + k * ss, sd));
}

/* dst[...] = src[...] (same sizes; src may be a broadcast view). */
static void copy_view(const eir_tview *dst, const eir_tview *src) {
    eir_iter it;
    const eir_tview *ops[2] = {dst, src};
    eir_iter_init(&it, dst->rank, dst->sizes, 2, ops);
    char *p[2];
    int64_t len;
    while (eir_iter_next(&it, p, &len)) run_convert(p[0], dst->dtype, it.inner_stride[0], p[1], src->dtype, it.inner_stride[1], len);
}

static eir_tview contig_view(void *buf, eir_dtype dt, int32_t rank, const int64_t *sizes) {
    eir_tview v;
    memset(&v, 0, sizeof v);
    v.data = buf;
    v.dtype = dt;
    v.rank = rank;
    int64_t st = 1;
    for (int32_t i = rank - 1; i >= 0; i--) { v.sizes[i] = sizes[i]; v.strides[i] = st; st *= sizes[i]; }
    return v;
}

/* Contiguous copy of t in dtype dt (or t's own data when already so: *owned = NULL). */
static void *as_contig(const eir_tview *t, eir_dtype dt, void **owned) {
    *owned = NULL;
    if (t->dtype == dt && eir_tview_is_contiguous(t)) return t->data;
    int64_t n = eir_tview_numel(t);
    void *buf = eir_kalloc((size_t)(n > 0 ? n : 1) * eir_elsize(dt));
    if (!buf) return NULL;
    eir_tview v = contig_view(buf, dt, t->rank, t->sizes);
    if (n > 0) copy_view(&v, t);
    *owned = buf;
    return buf;
}

static eir_tview slice0(const eir_tview *t, int64_t i) { /* t[i] */
    eir_tview v = *t;
    v.data = (char *)t->data + i * t->strides[0] * (int64_t)eir_elsize(t->dtype);
    v.rank = t->rank - 1;
    for (int32_t d = 0; d < v.rank; d++) { v.sizes[d] = t->sizes[d + 1]; v.strides[d] = t->strides[d + 1]; }
    return v;
}

static eir_tview transpose_last2(const eir_tview *t) {
    eir_tview v = *t;
    int32_t r = t->rank;
    v.sizes[r - 1] = t->sizes[r - 2]; v.sizes[r - 2] = t->sizes[r - 1];
    v.strides[r - 1] = t->strides[r - 2]; v.strides[r - 2] = t->strides[r - 1];
    return v;
}

/* Insert a size-1 dim at position dim. */
static eir_tview unsqueeze(const eir_tview *t, int32_t dim) {
    eir_tview v = *t;
    v.rank = t->rank + 1;
    for (int32_t d = 0, s = 0; d < v.rank; d++) {
        if (d == dim) { v.sizes[d] = 1; v.strides[d] = 1; continue; }
        v.sizes[d] = t->sizes[s]; v.strides[d] = t->strides[s]; s++;
    }
    return v;
}

static double scalar_f(const eir_karg *a) { return a->kind == EIR_KA_FLOAT ? a->f : a->s.kind == EIR_SC_FLOAT ? a->s.f : (double)a->s.i; }
static int64_t scalar_i(const eir_karg *a) { return a->kind == EIR_KA_FLOAT ? (int64_t)a->f : a->s.kind == EIR_SC_FLOAT ? (int64_t)a->s.f : a->s.i; }

/* ======================================================================
 * GEMM core
 * ====================================================================== */

/* Can a rows x cols matrix with element strides (rs, cs) go to BLAS as a
 * row-major operand? *tr: transposed (column-major) storage. */
static bool blas_lay(int64_t rows, int64_t cols, int64_t rs, int64_t cs, bool *tr, int64_t *ld) {
    int64_t mc = cols > 1 ? cols : 1, mr = rows > 1 ? rows : 1;
    if ((cols <= 1 || cs == 1) && (rows <= 1 || rs >= mc)) {
        *tr = false; *ld = rows <= 1 ? mc : rs;
    } else if ((rows <= 1 || rs == 1) && (cols <= 1 || cs >= mr)) {
        *tr = true; *ld = cols <= 1 ? mr : cs;
    } else return false;
    return *ld <= INT_MAX;
}

/* ---- large real products, cut into blocks ----
 * A product of at least GEMM_SPLIT_FLOPS is cut into blocks of C's columns
 * (or of its rows, when C is taller than wide), each one sgemm/dgemm call,
 * and the blocks run on the pool of the run in progress. The cut depends on
 * M, N and K only, never on the thread count, and every block is the same
 * call at any thread count: results are bit-identical at 1 and N threads.
 * (OpenBLAS's result for an element does depend on where its block starts,
 * so the product of one whole call would differ in the last bits.) Cutting
 * rows packs B once per block, cutting columns packs A once per block: rows
 * are cut into fewer, larger blocks. A block does at least GEMM_SPLIT_FLOPS
 * (2 MFLOP, some 30 us here; MobileNetV2's 1x1 convolutions are 5-20 MFLOP
 * each): on one thread, blocks of 2 MFLOP took the same CPU time as blocks
 * of 8 (MobileNetV2, 60 runs each, within 5%). */
enum { GEMM_SPLIT_FLOPS = 1 << 21, GEMM_MAX_BLOCKS = 12, GEMM_MAX_ROW_BLOCKS = 4, GEMM_MIN_COLS = 128, GEMM_MIN_ROWS = 64 };

typedef struct gemm_job {
    CBLAS_ORDER ord;
    CBLAS_TRANSPOSE TA, TB;
    int64_t M, N, K, lda, ldb, ldc, nb;
    bool bycol;
    double alpha, beta;
    const char *A, *B;
    char *C;
    size_t es;
    const eir_conv_epi *epi; /* float32 row-major C only: applied to each block once computed, row r as channel c0 + r */
    int64_t c0;
    bool bf16;               /* A and B bfloat16 (row-major, es is C's float32), eir_gemm_bf16 */
    _Atomic bool failed;     /* bf16: a block the library declined (the caller recomputes in float32) */
} gemm_job;

/* Start of block b of nb over a dimension of n, on a multiple of 16 (the last ends at n). */
static int64_t block_start(int64_t n, int64_t nb, int64_t b) { return b >= nb ? n : (n * b / nb) & ~(int64_t)15; }

static void gemm_blocks(void *ctx, int64_t b0, int64_t b1) {
    gemm_job *j = ctx; /* written: failed */
    bool row = j->ord == CblasRowMajor, ta = j->TA == CblasTrans, tb = j->TB == CblasTrans;
    for (int64_t b = b0; b < b1; b++) {
        int64_t dim = j->bycol ? j->N : j->M, lo = block_start(dim, j->nb, b), hi = block_start(dim, j->nb, b + 1);
        if (hi <= lo) continue;
        const char *A = j->A, *B = j->B;
        char *C = j->C;
        int64_t M = j->M, N = j->N;
        size_t eab = j->bf16 ? sizeof(uint16_t) : j->es;
        if (j->bycol) {
            B += (size_t)(row == tb ? lo * j->ldb : lo) * eab;
            C += (size_t)(row ? lo : lo * j->ldc) * j->es;
            N = hi - lo;
        } else {
            A += (size_t)(row != ta ? lo * j->lda : lo) * eab;
            C += (size_t)(row ? lo * j->ldc : lo) * j->es;
            M = hi - lo;
        }
        if (j->bf16) {
            if (!eir_gemm_bf16(ta, tb, M, N, j->K, (float)j->alpha, (const uint16_t *)A, j->lda, (const uint16_t *)B,
                               j->ldb, (float)j->beta, (float *)C, j->ldc))
                j->failed = true;
        } else if (j->es == sizeof(float))
            eir_sgemm(j->ord, j->TA, j->TB, (int)M, (int)N, (int)j->K, (float)j->alpha, (const float *)A, (int)j->lda,
                      (const float *)B, (int)j->ldb, (float)j->beta, (float *)C, (int)j->ldc);
        else
            cblas_dgemm(j->ord, j->TA, j->TB, (int)M, (int)N, (int)j->K, j->alpha, (const double *)A, (int)j->lda,
                        (const double *)B, (int)j->ldb, j->beta, (double *)C, (int)j->ldc);
        if (j->epi)
            for (int64_t r = 0; r < M; r++)
                j->epi->fn(j->epi->ctx, j->c0 + (j->bycol ? 0 : lo) + r, (float *)C + r * j->ldc, N);
    }
}

/* How many blocks a product is cut into (< 2: none), and whether by columns. */
static int64_t gemm_nblocks(int64_t M, int64_t N, int64_t K, bool *bycol_out) {
    double flops = 2.0 * (double)M * (double)N * (double)K, least = eir_pool_split_all ? 1 : GEMM_SPLIT_FLOPS;
    if (flops < least) return 0;
    bool bycol = *bycol_out = N >= M;
    int64_t nb = eir_pool_split_all ? (bycol ? N : M) / 16
                                    : bycol ? N / GEMM_MIN_COLS : M / GEMM_MIN_ROWS,
            most = bycol ? GEMM_MAX_BLOCKS : GEMM_MAX_ROW_BLOCKS;
    if (nb > most) nb = most;
    if ((double)nb > flops / least) nb = (int64_t)(flops / least);
    return nb;
}

int64_t eir_nn_gemm_panel_width(int64_t M, int64_t N, int64_t K) {
    bool bycol = false;
    int64_t nb = gemm_nblocks(M, N, K, &bycol);
    if (nb < 2 || !bycol) return 0;
    return ((N + nb - 1) / nb + 15) / 16 * 16;
}

/* The product in blocks when it is large enough; false: do it in one call. */
static bool gemm_split(CBLAS_ORDER ord, CBLAS_TRANSPOSE TA, CBLAS_TRANSPOSE TB, int64_t M, int64_t N, int64_t K,
                       double alpha, const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C,
                       int64_t ldc, eir_dtype ct, const eir_conv_epi *epi, int64_t c0) {
    bool bycol = false;
    int64_t nb = gemm_nblocks(M, N, K, &bycol);
    if (nb < 2) return false;
    gemm_job j = {ord, TA, TB, M, N, K, lda, ldb, ldc, nb, bycol, alpha, beta, A, B, C, eir_elsize(ct), epi, c0, false, false};
    eir_parallel_items(eir_pool_current(), nb, gemm_blocks, &j);
    return true;
}

/* C (M x N float32, row-major ldc) = alpha op(A) op(B) + beta C for bfloat16 A and B in BLAS
 * layouts, in the same blocks as a float32 product of its shape (gemm_split), so the bits do not
 * depend on the thread count. false when the library declined (C then unspecified). */
static bool gemm_bf16_blocks(bool ta, bool tb, int64_t M, int64_t N, int64_t K, float alpha, const uint16_t *A,
                             int64_t lda, const uint16_t *B, int64_t ldb, float beta, float *C, int64_t ldc) {
    bool bycol = false;
    int64_t nb = gemm_nblocks(M, N, K, &bycol);
    if (nb < 2) return eir_gemm_bf16(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    gemm_job j = {CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, lda, ldb, ldc, nb,
                  bycol, alpha, beta, (const char *)A, (const char *)B, (char *)C, sizeof(float), NULL, 0, true, false};
    eir_parallel_items(eir_pool_current(), nb, gemm_blocks, &j);
    return !j.failed;
}

/* One bfloat16 matrix of gemm_views as torch's CPU addmm computes it: products of bfloat16 values
 * summed in float32 (with alpha, and beta times the bias when there is one), rounded to bfloat16
 * once. a and b must be in BLAS layouts; sc holds M x N floats. false, having written nothing to
 * c, when they are not or the library declines: the caller's float32 path. */
static bool gemm_bf16_mat(const eir_tview *a, const eir_tview *b, const eir_tview *bias, eir_tview *c, int64_t M,
                          int64_t N, int64_t K, double alpha, double beta, float *sc) {
    bool ta, tb;
    int64_t lda, ldb;
    if (K <= 0 || !eir_gemm_bf16_available() || !blas_lay(M, K, a->strides[0], a->strides[1], &ta, &lda) ||
        !blas_lay(K, N, b->strides[0], b->strides[1], &tb, &ldb))
        return false;
    if (bias) {
        const uint16_t *bd = bias->data;
        int64_t rs = bias->strides[0], cs = bias->strides[1];
        for (int64_t i = 0; i < M; i++) {
            float *row = sc + i * N;
            if (i > 0 && rs == 0) memcpy(row, sc, (size_t)N * sizeof(float));
            else if (cs == 1 || N == 1) eir_bf16_to_f32_row(row, bd + i * rs, N);
            else
                for (int64_t k = 0; k < N; k++) row[k] = eir_bf16_to_f32(bd[i * rs + k * cs]);
        }
    }
    if (!gemm_bf16_blocks(ta, tb, M, N, K, (float)alpha, a->data, lda, b->data, ldb, bias ? (float)beta : 0.f, sc, N))
        return false;
    uint16_t *cd = c->data;
    int64_t rs = c->strides[0], cs = c->strides[1];
    for (int64_t i = 0; i < M; i++)
        if (cs == 1 || N == 1) eir_f32_to_bf16_row(cd + i * rs, sc + i * N, N);
        else
            for (int64_t k = 0; k < N; k++) cd[i * rs + k * cs] = eir_f32_to_bf16(sc[i * N + k]);
    return true;
}

static void blas_one_thread(void) {
    if (openblas_get_num_threads() != 1) openblas_set_num_threads(1);
}
void eir_blas_single_thread(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, blas_one_thread);
}

/* C (M x N, row-major ldc, or column-major when ccol) = alpha A B + beta C,
 * f32 / f64 / c64 / c128 (real alpha and beta). */
static void blas_gemm(eir_dtype ct, bool ccol, bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha,
                      const void *A, int64_t lda, const void *B, int64_t ldb, double beta, void *C, int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    CBLAS_ORDER ord = ccol ? CblasColMajor : CblasRowMajor;
    if (ccol) { ta = !ta; tb = !tb; }
    CBLAS_TRANSPOSE TA = ta ? CblasTrans : CblasNoTrans, TB = tb ? CblasTrans : CblasNoTrans;
    if (K <= 0) { /* C = beta C */
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) {
                int64_t o = ccol ? i + j * ldc : i * ldc + j;
                if (ct == EIR_F32) ((float *)C)[o] = beta == 0 ? 0.f : (float)(beta * ((float *)C)[o]);
                else if (ct == EIR_F64) ((double *)C)[o] = beta == 0 ? 0. : beta * ((double *)C)[o];
                else if (ct == EIR_C64)
                    for (int q = 0; q < 2; q++) ((float *)C)[2 * o + q] = beta == 0 ? 0.f : (float)(beta * ((float *)C)[2 * o + q]);
                else
                    for (int q = 0; q < 2; q++) ((double *)C)[2 * o + q] = beta == 0 ? 0. : beta * ((double *)C)[2 * o + q];
            }
        return;
    }
    if ((ct == EIR_F32 || ct == EIR_F64) && gemm_split(ord, TA, TB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, ct, NULL, 0))
        return;
    if (ct == EIR_C64) {
        float al[2] = {(float)alpha, 0}, be[2] = {(float)beta, 0};
        cblas_cgemm(ord, TA, TB, (int)M, (int)N, (int)K, al, A, (int)lda, B, (int)ldb, be, C, (int)ldc);
    } else if (ct == EIR_C128) {
        double al[2] = {alpha, 0}, be[2] = {beta, 0};
        cblas_zgemm(ord, TA, TB, (int)M, (int)N, (int)K, al, A, (int)lda, B, (int)ldb, be, C, (int)ldc);
    } else if (ct == EIR_F32)
        eir_sgemm(ord, TA, TB, (int)M, (int)N, (int)K, (float)alpha, (const float *)A, (int)lda, (const float *)B, (int)ldb,
                  (float)beta, (float *)C, (int)ldc);
    else
        cblas_dgemm(ord, TA, TB, (int)M, (int)N, (int)K, alpha, (const double *)A, (int)lda, (const double *)B, (int)ldb,
                    beta, (double *)C, (int)ldc);
}

/* Merge dims [0, r-1) of t (the batch dims and the row dim) into one row dim. */
static bool merge_rows(const eir_tview *t, int64_t *stride) {
    int32_t r = t->rank;
    int64_t cs = t->strides[r - 2], cz = t->sizes[r - 2];
    for (int32_t d = r - 3; d >= 0; d--) {
        if (t->sizes[d] == 1) continue;
        if (cz == 1) { cs = t->strides[d]; cz = t->sizes[d]; continue; }
        if (t->strides[d] != cs * cz) return false;
        cz *= t->sizes[d];
    }
    *stride = cs;
    return true;
}

static eir_tview as_rank2(const eir_tview *t, int64_t rs) {
    eir_tview v = *t;
    int32_t r = t->rank;
    int64_t rows = 1;
    for (int32_t d = 0; d < r - 1; d++) rows *= t->sizes[d];
    v.rank = 2;
    v.sizes[0] = rows; v.sizes[1] = t->sizes[r - 1];
    v.strides[0] = rs; v.strides[1] = t->strides[r - 1];
    return v;
}

static eir_tview mat_at(const eir_tview *t, const int64_t *bidx) { /* the 2-d matrix at batch index */
    eir_tview v = *t;
    int32_t r = t->rank;
    int64_t off = 0;
    for (int32_t d = 0; d < r - 2; d++) off += bidx[d] * t->strides[d];
    v.data = (char *)t->data + off * (int64_t)eir_elsize(t->dtype);
    v.rank = 2;
    v.sizes[0] = t->sizes[r - 2]; v.sizes[1] = t->sizes[r - 1];
    v.strides[0] = t->strides[r - 2]; v.strides[1] = t->strides[r - 1];
    return v;
}

/* ---- a batch of real matrices in BLAS layouts, on the pool ----
 * Attention written out as matmuls (a Llama block's 32 heads of 64 x 64 by 64 x 64) is many
 * small products, each too small for gemm_split: on two threads they ran on one. When every
 * matrix of the batch can go to BLAS as it lies (the same strides for all: checked on the
 * first), the matrices are the pool's items, each the same call it is on one thread (a large
 * one still cut into gemm_split's blocks, run inline inside the item), so the bits do not
 * depend on the thread count. At least BATCH_PAR_FLOPS in all, and C's matrices apart from each
 * other (batch_apart). */
enum { BATCH_PAR_FLOPS = 1 << 20 };

typedef struct batch_job {
    const eir_tview *A, *B, *C, *bias; /* bias NULL: none */
    int32_t r;
    int64_t M, N, K, lda, ldb, ldc;
    bool ta, tb, tc;
    eir_dtype ct;
    double alpha, beta;
} batch_job;

static void batch_matrices(void *vctx, int64_t b0, int64_t b1) {
    const batch_job *j = vctx;
    for (int64_t b = b0; b < b1; b++) {
        int64_t bidx[EIR_MAX_RANK] = {0}, rest = b;
        for (int32_t d = j->r - 3; d >= 0; d--) {
            bidx[d] = rest % j->C->sizes[d];
            rest /= j->C->sizes[d];
        }
        eir_tview a = mat_at(j->A, bidx), bm = mat_at(j->B, bidx), c = mat_at(j->C, bidx);
        double bb = 0;
        if (j->bias) {
            eir_tview bi = mat_at(j->bias, bidx);
            copy_view(&c, &bi);
            bb = j->beta;
        }
        blas_gemm(j->ct, j->tc, j->ta, j->tb, j->M, j->N, j->K, j->alpha, a.data, j->lda, bm.data, j->ldb, bb, c.data,
                  j->ldc);
    }
}

/* No two batch indices of C (rank r, matrices M x N) reach the same element: its batch dims,
 * innermost stride first, each step past everything inside it. */
static bool batch_apart(const eir_tview *C, int32_t r, int64_t M, int64_t N) {
    int64_t inner = (M - 1) * llabs(C->strides[r - 2]) + (N - 1) * llabs(C->strides[r - 1]) + 1;
    bool used[EIR_MAX_RANK] = {false};
    for (int32_t k = 0; k < r - 2; k++) {
        int32_t pick = -1;
        for (int32_t d = 0; d < r - 2; d++)
            if (!used[d] && (pick < 0 || llabs(C->strides[d]) < llabs(C->strides[pick]))) pick = d;
        used[pick] = true;
        if (C->sizes[pick] <= 1) continue;
        int64_t s = llabs(C->strides[pick]);
        if (s < inner) return false;
        inner += s * (C->sizes[pick] - 1);
    }
    return true;
}

/* C = alpha A B + beta bias over batch dims. A (.., M, K), B (.., K, N),
 * bias (NULL or broadcast to C's shape) and C all have C's rank, batch dims
 * already broadcast to C's. beta == 0 ignores bias (as torch). */
static int gemm_views(eir_kctx *ctx, const eir_tview *A0, const eir_tview *B0, const eir_tview *bias0, const eir_tview *C0,
                      double alpha, double beta, int64_t ialpha, int64_t ibeta) {
    eir_dtype dt = C0->dtype, ct = ctype_of(dt);
    if (A0->dtype != B0->dtype)
        return eir_kerr(ctx, "expected m1 and m2 to have the same dtype, but got: %s != %s", dname(A0->dtype), dname(B0->dtype));
    if (ct == EIR_DTYPE_UNKNOWN || A0->dtype != dt)
        return eir_kerr(ctx, "\"addmm_impl_cpu_\" not implemented for '%s'", dname(A0->dtype));
    if (beta == 0 && ibeta == 0) bias0 = NULL;
    eir_tview A = *A0, B = *B0, C = *C0, bias;
    if (bias0) bias = *bias0;
    int32_t r = C.rank;
    if (r > 2) { /* fold batch into rows when B is shared across the batch */
        bool bshared = true;
        for (int32_t d = 0; d < r - 2; d++)
            if (B.sizes[d] != 1 && B.strides[d] != 0) bshared = false;
        int64_t sa, sc, sb = 0;
        if (bshared && merge_rows(&A, &sa) && merge_rows(&C, &sc) && (!bias0 || merge_rows(&bias, &sb))) {
            A = as_rank2(&A, sa); C = as_rank2(&C, sc);
            if (bias0) bias = as_rank2(&bias, sb);
            eir_tview b2 = B;
            b2.rank = 2;
            b2.sizes[0] = B.sizes[r - 2]; b2.sizes[1] = B.sizes[r - 1];
            b2.strides[0] = B.strides[r - 2]; b2.strides[1] = B.strides[r - 1];
            B = b2;
            r = 2;
        }
    }
    int64_t M = C.sizes[r - 2], N = C.sizes[r - 1], K = A.sizes[r - 1];
    int64_t nb = 1;
    for (int32_t d = 0; d < r - 2; d++) nb *= C.sizes[d];
    if (nb == 0 || M == 0 || N == 0) return 0;
    size_t es = eir_elsize(ct);
    void *sa = NULL, *sb = NULL, *sc = NULL;
    int rc = 0;
    int64_t bidx[EIR_MAX_RANK] = {0};
    eir_pool *pool = eir_pool_current();
    if (nb > 1 && pool && dt == ct && (ct == EIR_F32 || ct == EIR_F64) && K > 0 &&
        2.0 * (double)nb * (double)M * (double)N * (double)K >= BATCH_PAR_FLOPS) {
        eir_tview a = mat_at(&A, bidx), bm = mat_at(&B, bidx), c = mat_at(&C, bidx);
        batch_job j = {&A, &B, &C, bias0 ? &bias : NULL, r, M, N, K, 0, 0, 0, false, false, false, ct, alpha, beta};
        if (blas_lay(M, K, a.strides[0], a.strides[1], &j.ta, &j.lda) &&
            blas_lay(K, N, bm.strides[0], bm.strides[1], &j.tb, &j.ldb) &&
            blas_lay(M, N, c.strides[0], c.strides[1], &j.tc, &j.ldc) && batch_apart(&C, r, M, N)) {
            eir_parallel_items(pool, nb, batch_matrices, &j);
            return 0;
        }
    }
    for (int64_t b = 0; b < nb; b++) {
        eir_tview a = mat_at(&A, bidx), bm = mat_at(&B, bidx), c = mat_at(&C, bidx), bi;
        if (bias0) bi = mat_at(&bias, bidx);
        if (ct == EIR_I64) {
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    uint64_t acc = 0;
                    for (int64_t k = 0; k < K; k++) {
                        int64_t x = eir_load_i64((char *)a.data + (i * a.strides[0] + k * a.strides[1]) * (int64_t)eir_elsize(dt), dt);
                        int64_t y = eir_load_i64((char *)bm.data + (k * bm.strides[0] + j * bm.strides[1]) * (int64_t)eir_elsize(dt), dt);
                        acc += (uint64_t)x * (uint64_t)y;
                    }
                    acc *= (uint64_t)ialpha;
                    if (bias0) acc += (uint64_t)ibeta * (uint64_t)eir_load_i64((char *)bi.data + (i * bi.strides[0] + j * bi.strides[1]) * (int64_t)eir_elsize(bi.dtype), bi.dtype);
                    eir_store_i64((char *)c.data + (i * c.strides[0] + j * c.strides[1]) * (int64_t)eir_elsize(dt), dt, (int64_t)acc);
                }
        } else {
            if (dt == EIR_BF16 && eir_kernels_fast && eir_gemm_bf16_available()) {
                if (!sc && !(sc = eir_kalloc((size_t)(M * N) * sizeof(float)))) { rc = eir_kerr(ctx, "out of memory"); break; }
                if (gemm_bf16_mat(&a, &bm, bias0 ? &bi : NULL, &c, M, N, K, alpha, beta, sc)) goto next_matrix;
            }
            bool ta, tb, tc;
            int64_t lda, ldb, ldc;
            const void *pa = a.data, *pb = bm.data;
            void *pc = c.data;
            if (dt != ct || !blas_lay(M, K, a.strides[0], a.strides[1], &ta, &lda)) {
                if (!sa && !(sa = eir_kalloc((size_t)(M * K > 0 ? M * K : 1) * es))) { rc = eir_kerr(ctx, "out of memory"); break; }
                eir_tview v = contig_view(sa, ct, 2, a.sizes);
                if (K > 0) copy_view(&v, &a);
                pa = sa; ta = false; lda = K > 1 ? K : 1;
            }
            if (dt != ct || !blas_lay(K, N, bm.strides[0], bm.strides[1], &tb, &ldb)) {
                if (!sb && !(sb = eir_kalloc((size_t)(K * N > 0 ? K * N : 1) * es))) { rc = eir_kerr(ctx, "out of memory"); break; }
                eir_tview v = contig_view(sb, ct, 2, bm.sizes);
                if (K > 0) copy_view(&v, &bm);
                pb = sb; tb = false; ldb = N;
            }
            bool direct = dt == ct && blas_lay(M, N, c.strides[0], c.strides[1], &tc, &ldc);
            eir_tview cv = c;
            if (!direct) {
                if (!sc && !(sc = eir_kalloc((size_t)(M * N) * es))) { rc = eir_kerr(ctx, "out of memory"); break; }
                cv = contig_view(sc, ct, 2, c.sizes);
                pc = sc; tc = false; ldc = N;
            }
            double bb = 0;
            if (bias0) {
                copy_view(&cv, &bi);
                bb = beta;
            }
            /* X W^T with W a row-major weight (a linear layer without bias, as run_decompositions()
             * writes it: mm(x, permute(w))): where nngemm.c runs and W is constant, from its packed
             * copy (as stored at its first use and on more threads, in the same bits); else where
             * wgemm.c runs, from the weight as stored */
            if (ct == EIR_F32 && eir_kernels_fast && !bias0 && alpha == 1 && !tc && !ta && tb &&
                eir_nngemm_linear_takes(M, K) &&
                eir_nngemm_linear_f32(M, N, K, pa, lda, pb, ldb, NULL, pc, ldc) == 1) {
                if (!direct) copy_view(&c, &cv);
                goto next_matrix;
            }
            if (ct == EIR_F32 && eir_kernels_fast && !bias0 && alpha == 1 && !tc && !ta && tb &&
                eir_wgemm_takes(M, K) &&
                eir_wgemm_f32(M, N, K, pa, lda, pb, ldb, NULL, 0, pc, ldc) == 0) {
                if (!direct) copy_view(&c, &cv);
                goto next_matrix;
            }
            blas_gemm(ct, tc, ta, tb, M, N, K, alpha, pa, lda, pb, ldb, bb, pc, ldc);
            if (!direct) copy_view(&c, &cv);
        }
    next_matrix:
        for (int32_t d = r - 3; d >= 0; d--) {
            if (++bidx[d] < C.sizes[d]) break;
            bidx[d] = 0;
        }
    }
    eir_kfree(sa); eir_kfree(sb); eir_kfree(sc);
    return rc;
}

/* ======================================================================
 * matrix-product ops
 * ====================================================================== */

static int k_mm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return gemm_views(ctx, a[0].t, a[1].t, NULL, &out[0], 1, 0, 1, 0);
}

static int k_bmm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return gemm_views(ctx, a[0].t, a[1].t, NULL, &out[0], 1, 0, 1, 0);
}

static int with_bias(eir_kctx *ctx, const eir_tview *self, const eir_tview *m1, const eir_tview *m2, const eir_tview *C,
                     const eir_karg *beta, const eir_karg *alpha, bool opmath) {
    eir_tview bias;
    if (!eir_tview_broadcast(self, C->rank, C->sizes, &bias)) return eir_kerr(ctx, "bias does not broadcast to the output");
    if (self->dtype != m1->dtype)
        return eir_kerr(ctx, "self and mat2 must have the same dtype, but got %s and %s", dname(self->dtype), dname(m2->dtype));
    /* beta and alpha convert checked: to opmath (float for float16 / bfloat16) for addmm and
     * baddbmm, to the tensor's type for addmv, as torch */
    eir_dtype om = opmath && (C->dtype == EIR_F16 || C->dtype == EIR_BF16) ? EIR_F32 : C->dtype;
    if (eir_scalar_arg_fits(beta, om, ctx) || eir_scalar_arg_fits(alpha, om, ctx)) return -1;
    bool cplx = (alpha->kind == EIR_KA_SCALAR && alpha->s.kind == EIR_SC_COMPLEX) ||
                (beta->kind == EIR_KA_SCALAR && beta->s.kind == EIR_SC_COMPLEX);
    if (!cplx) return gemm_views(ctx, m1, m2, &bias, C, scalar_f(alpha), scalar_f(beta), scalar_i(alpha), scalar_i(beta));
    /* complex alpha / beta: C = alpha * (m1 @ m2) + beta * self, with beta = 0 ignoring self (NaN included) */
    if (!eir_is_complex(C->dtype)) return eir_kerr(ctx, "addmm: a complex alpha or beta needs a complex result, got %s", dname(C->dtype));
    double ar = alpha->kind == EIR_KA_SCALAR ? alpha->s.f : scalar_f(alpha), ai = alpha->kind == EIR_KA_SCALAR ? alpha->s.im : 0;
    double br = beta->kind == EIR_KA_SCALAR ? beta->s.f : scalar_f(beta), bi = beta->kind == EIR_KA_SCALAR ? beta->s.im : 0;
    bool use_self = br != 0 || bi != 0;
    int64_t idx[EIR_MAX_RANK] = {0}, n = eir_tview_numel(C);
    /* self's values first: an in-place call (addmm_) has self and C sharing storage */
    double *sv = use_self ? eir_kalloc((size_t)(2 * n + 1) * sizeof(double)) : NULL;
    if (use_self && !sv) return eir_kerr(ctx, "out of memory");
    for (int64_t k = 0; use_self && k < n; k++) {
        eir_load_c128(eir_tview_at(&bias, idx), bias.dtype, &sv[2 * k], &sv[2 * k + 1]);
        for (int32_t d = C->rank - 1; d >= 0; d--) {
            if (++idx[d] < C->sizes[d]) break;
            idx[d] = 0;
        }
    }
    int rc = gemm_views(ctx, m1, m2, NULL, C, 1, 0, 1, 0);
    memset(idx, 0, sizeof idx);
    for (int64_t k = 0; !rc && k < n; k++) {
        double pr, pi;
        eir_load_c128(eir_tview_at(C, idx), C->dtype, &pr, &pi);
        double re = ar * pr - ai * pi, im = ar * pi + ai * pr;
        if (use_self) { re += br * sv[2 * k] - bi * sv[2 * k + 1]; im += br * sv[2 * k + 1] + bi * sv[2 * k]; }
        eir_store_c128(eir_tview_at(C, idx), C->dtype, re, im);
        for (int32_t d = C->rank - 1; d >= 0; d--) {
            if (++idx[d] < C->sizes[d]) break;
            idx[d] = 0;
        }
    }
    eir_kfree(sv);
    return rc;
}

static int k_addmm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return with_bias(ctx, a[0].t, a[1].t, a[2].t, &out[0], &a[3], &a[4], true);
}

static int k_baddbmm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return with_bias(ctx, a[0].t, a[1].t, a[2].t, &out[0], &a[3], &a[4], true);
}

static int k_addmv(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    eir_tview v = unsqueeze(a[2].t, 1), c = unsqueeze(&out[0], 1), self = *a[0].t;
    if (self.rank == 1) self = unsqueeze(&self, 1);
    return with_bias(ctx, &self, a[1].t, &v, &c, &a[3], &a[4], false);
}

/* torch.matmul: 1-d operands get a dim that is dropped from the result;
 * batch dims broadcast. bias (linear) is broadcast to out. */
static int matmul_views(eir_kctx *ctx, const eir_tview *x, const eir_tview *y, const eir_tview *bias0, eir_tview *out) {
    if (x->rank < 1 || y->rank < 1)
        return eir_kerr(ctx, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", x->rank, y->rank);
    eir_tview X = x->rank == 1 ? unsqueeze(x, 0) : *x, Y = y->rank == 1 ? unsqueeze(y, 1) : *y;
    int32_t bx = X.rank - 2, by = Y.rank - 2, br = bx > by ? bx : by;
    if (br + 2 > EIR_MAX_RANK) return eir_kerr(ctx, "matmul: rank too large");
    int64_t sizes[EIR_MAX_RANK];
    for (int32_t d = 0; d < br; d++) {
        int64_t sx = d - (br - bx) >= 0 ? X.sizes[d - (br - bx)] : 1, sy = d - (br - by) >= 0 ? Y.sizes[d - (br - by)] : 1;
        if (sx != sy && sx != 1 && sy != 1) return eir_kerr(ctx, "matmul: batch dims do not broadcast");
        sizes[d] = sx == 1 ? sy : sx;
    }
    int64_t M = X.sizes[X.rank - 2], K = X.sizes[X.rank - 1], N = Y.sizes[Y.rank - 1];
    if (Y.sizes[Y.rank - 2] != K)
        return eir_kerr(ctx, "mat1 and mat2 shapes cannot be multiplied (%lldx%lld and %lldx%lld)", (long long)M, (long long)K,
                        (long long)Y.sizes[Y.rank - 2], (long long)N);
    eir_tview A, B, C = *out;
    sizes[br] = M; sizes[br + 1] = K;
    if (!eir_tview_broadcast(&X, br + 2, sizes, &A)) return eir_kerr(ctx, "matmul: bad shapes");
    sizes[br] = K; sizes[br + 1] = N;
    if (!eir_tview_broadcast(&Y, br + 2, sizes, &B)) return eir_kerr(ctx, "matmul: bad shapes");
    eir_tview bias;
    if (bias0 && !eir_tview_broadcast(bias0, out->rank, out->sizes, &bias)) return eir_kerr(ctx, "bias does not broadcast");
    if (x->rank == 1) { C = unsqueeze(&C, C.rank - (y->rank == 1 ? 0 : 1)); if (bias0) bias = unsqueeze(&bias, bias.rank - (y->rank == 1 ? 0 : 1)); }
    if (y->rank == 1) { C = unsqueeze(&C, C.rank); if (bias0) bias = unsqueeze(&bias, bias.rank); }
    if (C.rank != br + 2) return eir_kerr(ctx, "matmul: output rank mismatch");
    return gemm_views(ctx, &A, &B, bias0 ? &bias : NULL, &C, 1, 1, 1, 1);
}

static int k_matmul(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return matmul_views(ctx, a[0].t, a[1].t, NULL, &out[0]);
}

static int k_dot(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (a[0].t->rank != 1 || a[1].t->rank != 1)
        return eir_kerr(ctx, "1D tensors expected, but got %dD and %dD tensors", a[0].t->rank, a[1].t->rank);
    if (a[0].t->sizes[0] != a[1].t->sizes[0])
        return eir_kerr(ctx, "inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the same number of elements, but got %lld and %lld elements respectively",
                        (long long)a[0].t->sizes[0], (long long)a[1].t->sizes[0], (long long)a[0].t->sizes[0], (long long)a[1].t->sizes[0]);
    if (a[0].t->dtype != a[1].t->dtype)
        return eir_kerr(ctx, "dot : expected both vectors to have same dtype, but found %s and %s", dname(a[0].t->dtype), dname(a[1].t->dtype));
    return matmul_views(ctx, a[0].t, a[1].t, NULL, &out[0]);
}

static int k_mv(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return matmul_views(ctx, a[0].t, a[1].t, NULL, &out[0]);
}

static int k_linear(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const eir_tview *w = a[1].t;
    eir_tview wt = w->rank == 2 ? transpose_last2(w) : *w;
    const eir_tview *bias = na > 2 && a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    return matmul_views(ctx, a[0].t, &wt, bias, &out[0]);
}

/* ======================================================================
 * convolution (1-3 spatial dims) via im2col / col2im and GEMM
 * ====================================================================== */

typedef struct conv_geo {
    int64_t C, K[3], S[3], P[3], D[3], Ii[3], Oo[3]; /* channels of one group, kernel, stride, pad, dilation, in, out */
} conv_geo;

static inline float round_f16(float v) { return eir_f16_to_f32(eir_f32_to_f16(v)); }

/* col (C*K0*K1*K2, O0*O1*O2) from x (C, I0, I1, I2). */
#define DEF_IM2COL(T)                                                                                            \
    static void im2col_##T(const T *x, T *col, const conv_geo *g) {                                             \
        int64_t ncol = g->Oo[0] * g->Oo[1] * g->Oo[2], plane = g->Ii[0] * g->Ii[1] * g->Ii[2];                        \
        T *q = col;                                                                                              \
        for (int64_t c = 0; c < g->C; c++)                                                                       \
            for (int64_t k0 = 0; k0 < g->K[0]; k0++)                                                             \
                for (int64_t k1 = 0; k1 < g->K[1]; k1++)                                                         \
                    for (int64_t k2 = 0; k2 < g->K[2]; k2++) {                                                   \
                        for (int64_t o0 = 0; o0 < g->Oo[0]; o0++) {                                               \
                            int64_t i0 = o0 * g->S[0] - g->P[0] + k0 * g->D[0];                                  \
                            for (int64_t o1 = 0; o1 < g->Oo[1]; o1++) {                                           \
                                int64_t i1 = o1 * g->S[1] - g->P[1] + k1 * g->D[1];                              \
                                bool ok01 = i0 >= 0 && i0 < g->Ii[0] && i1 >= 0 && i1 < g->Ii[1];                  \
                                const T *row = x + c * plane + (i0 * g->Ii[1] + i1) * g->Ii[2];                    \
                                for (int64_t o2 = 0; o2 < g->Oo[2]; o2++) {                                       \
                                    int64_t i2 = o2 * g->S[2] - g->P[2] + k2 * g->D[2];                          \
                                    *q++ = ok01 && i2 >= 0 && i2 < g->Ii[2] ? row[i2] : (T)0;                     \
                                }                                                                                \
                            }                                                                                    \
                        }                                                                                        \
                    }                                                                                            \
        (void)ncol;                                                                                              \
    }                                                                                                            \
    /* y (C, O0, O1, O2) += col (C*K, I0*I1*I2): the adjoint, for transposed convolution (I/O swapped);        \
     * rnd: round every partial sum to float16 (torch's float16 col2im accumulates in float16) */                \
    static void col2im_##T(const T *col, T *y, const conv_geo *g, bool rnd) {                                   \
        int64_t plane = g->Oo[0] * g->Oo[1] * g->Oo[2];                                                             \
        const T *q = col;                                                                                        \
        for (int64_t c = 0; c < g->C; c++)                                                                       \
            for (int64_t k0 = 0; k0 < g->K[0]; k0++)                                                             \
                for (int64_t k1 = 0; k1 < g->K[1]; k1++)                                                         \
                    for (int64_t k2 = 0; k2 < g->K[2]; k2++)                                                     \
                        for (int64_t i0 = 0; i0 < g->Ii[0]; i0++) {                                               \
                            int64_t o0 = i0 * g->S[0] - g->P[0] + k0 * g->D[0];                                  \
                            for (int64_t i1 = 0; i1 < g->Ii[1]; i1++) {                                           \
                                int64_t o1 = i1 * g->S[1] - g->P[1] + k1 * g->D[1];                              \
                                bool ok01 = o0 >= 0 && o0 < g->Oo[0] && o1 >= 0 && o1 < g->Oo[1];                  \
                                T *row = y + c * plane + (o0 * g->Oo[1] + o1) * g->Oo[2];                          \
                                for (int64_t i2 = 0; i2 < g->Ii[2]; i2++, q++) {                                  \
                                    int64_t o2 = i2 * g->S[2] - g->P[2] + k2 * g->D[2];                          \
                                    if (!(ok01 && o2 >= 0 && o2 < g->Oo[2])) continue;                           \
                                    row[o2] += *q;                                                               \
                                    if (rnd) row[o2] = (T)round_f16((float)row[o2]);                             \
                                }                                                                                \
                            }                                                                                    \
                        }                                                                                        \
    }
DEF_IM2COL(float)
DEF_IM2COL(double)
DEF_IM2COL(int64_t)

/* C (M x N) = op(A) (M x K) op(B) (K x N) [+ C when acc]; contiguous row-major. */
static void cgemm(eir_dtype ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A, const void *B, bool acc, void *C) {
    if (ct != EIR_I64) {
        blas_gemm(ct, false, ta, tb, M, N, K, 1.0, A, ta ? (M > 1 ? M : 1) : (K > 1 ? K : 1), B, tb ? (K > 1 ? K : 1) : (N > 1 ? N : 1),
                  acc ? 1.0 : 0.0, C, N > 1 ? N : 1);
        return;
    }
    const int64_t *a = A, *b = B;
    int64_t *c = C;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            uint64_t s = acc ? (uint64_t)c[i * N + j] : 0;
            for (int64_t k = 0; k < K; k++)
                s += (uint64_t)(ta ? a[k * M + i] : a[i * K + k]) * (uint64_t)(tb ? b[j * K + k] : b[k * N + j]);
            c[i * N + j] = (int64_t)s;
        }
}

/* Y (M x N) = W (M x K) col (K x N), float32, contiguous; epi (NULL: none)
 * applied to each block of Y as soon as the block is computed (row r is
 * output channel c0 + r), while it is still in cache. The blocks are
 * gemm_split's, so the bits do not depend on the thread count. */
static void conv_gemm_f32(int64_t M, int64_t N, int64_t K, const float *A, const float *B, float *C,
                          const eir_conv_epi *epi, int64_t c0) {
    int64_t lda = K > 1 ? K : 1, ldb = N > 1 ? N : 1;
    if (M <= 0 || N <= 0) return;
    if (K > 0 && gemm_split(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0, A, lda, B, ldb, 0.0, C, ldb, EIR_F32,
                            epi, c0))
        return;
    blas_gemm(EIR_F32, false, false, false, M, N, K, 1.0, A, lda, B, ldb, 0.0, C, ldb);
    if (epi)
        for (int64_t r = 0; r < M; r++) epi->fn(epi->ctx, c0 + r, C + r * N, N);
}

/* A 2-d float32 convolution's im2col GEMM cut by output pixels into
 * gemm_split's column blocks, each block's columns built right before its
 * product (col holds block b's K x (hi - lo) columns at col + K lo), so they
 * are still in cache when the GEMM reads them, and its output when the
 * epilogue runs. The cut depends on the shape only: the same bits at any
 * thread count. */
typedef struct conv_blk_job {
    const float *x, *w;
    float *y, *col;
    int64_t M, N, K, nb;
    const conv_geo *g;
    const eir_conv_epi *epi;
    int64_t c0;
} conv_blk_job;

static void conv_blocks(void *ctx, int64_t b0, int64_t b1) {
    const conv_blk_job *j = ctx;
    const conv_geo *g = j->g;
    for (int64_t b = b0; b < b1; b++) {
        int64_t lo = block_start(j->N, j->nb, b), hi = block_start(j->N, j->nb, b + 1), n = hi - lo;
        if (n <= 0) continue;
        float *col = j->col + j->K * lo;
        eir_im2col2d_range_f32(j->x, col, g->C, g->Ii[1], g->Ii[2], g->Oo[1], g->Oo[2], g->K[1], g->K[2], &g->S[1],
                               &g->P[1], &g->D[1], lo, hi);
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)j->M, (int)n, (int)j->K, 1.f, j->w, (int)j->K, col,
                  (int)n, 0.f, j->y + lo, (int)j->N);
        if (j->epi)
            for (int64_t r = 0; r < j->M; r++) j->epi->fn(j->epi->ctx, j->c0 + r, j->y + r * j->N + lo, n);
    }
}

/* true when done; false: the shape is not cut by columns (the caller goes the whole-im2col way) */
static bool conv_gemm_blocked_f32(const float *x, const float *w, float *y, float *col, int64_t M, int64_t N, int64_t K,
                                  const conv_geo *g, const eir_conv_epi *epi, int64_t c0) {
    bool bycol = false;
    int64_t nb = gemm_nblocks(M, N, K, &bycol);
    if (nb < 2 || !bycol || g->K[0] != 1 || g->Ii[0] != 1 || g->Oo[0] != 1 || K > INT_MAX || N > INT_MAX) return false;
    conv_blk_job j = {x, w, y, col, M, N, K, nb, g, epi, c0};
    eir_parallel_for(eir_pool_current(), nb, 1, conv_blocks, &j);
    return true;
}

static void im2col_any(eir_dtype ct, const void *x, void *col, const conv_geo *g) {
    if (ct == EIR_F32 && eir_kernels_fast && g->K[0] == 1 && g->Ii[0] == 1 && g->Oo[0] == 1)
        eir_im2col2d_f32(x, col, g->C, g->Ii[1], g->Ii[2], g->Oo[1], g->Oo[2], g->K[1], g->K[2], &g->S[1], &g->P[1], &g->D[1]);
    else if (ct == EIR_F32) im2col_float(x, col, g);
    else if (ct == EIR_F64) im2col_double(x, col, g);
    else im2col_int64_t(x, col, g);
}
static void col2im_any(eir_dtype ct, const void *col, void *y, const conv_geo *g, bool rnd) {
    if (ct == EIR_F32) col2im_float(col, y, g, rnd);
    else if (ct == EIR_F64) col2im_double(col, y, g, false);
    else col2im_int64_t(col, y, g, false);
}

static int get_ints(const eir_karg *a, int nsp, int64_t *dst, int64_t dflt) {
    for (int i = 0; i < nsp; i++) dst[i] = dflt;
    if (a->kind != EIR_KA_INTS || a->n == 0) return 0;
    for (int i = 0; i < nsp; i++) dst[i] = a->ints[a->n == 1 ? 0 : (i < (int)a->n ? i : (int)a->n - 1)];
    return 0;
}

/* A complex tensor's real or imaginary part as a real view (same storage) */
static eir_tview part_view(const eir_tview *z, int part) {
    eir_tview v = *z;
    v.dtype = z->dtype == EIR_C128 ? EIR_F64 : EIR_F32;
    for (int32_t d = 0; d < v.rank; d++) v.strides[d] *= 2;
    v.data = (char *)z->data + part * (int64_t)eir_elsize(v.dtype);
    return v;
}

/* real + imaginary parts of z into a contiguous real buffer (Gauss's trick's x_r + x_i) */
static void *part_sum(const eir_tview *z, eir_tview *sum) {
    eir_tview r = part_view(z, 0), i = part_view(z, 1);
    int64_t n = eir_tview_numel(z);
    void *buf = eir_kalloc((size_t)(n > 0 ? n : 1) * eir_elsize(r.dtype));
    if (!buf) return NULL;
    *sum = contig_view(buf, r.dtype, z->rank, z->sizes);
    int64_t idx[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        double a = eir_load_f64(eir_tview_at(&r, idx), r.dtype), b = eir_load_f64(eir_tview_at(&i, idx), r.dtype);
        eir_store_f64(eir_tview_at(sum, idx), r.dtype, r.dtype == EIR_F32 ? (double)((float)a + (float)b) : a + b);
        for (int32_t d = z->rank - 1; d >= 0; d--) {
            if (++idx[d] < z->sizes[d]) break;
            idx[d] = 0;
        }
    }
    return buf;
}

static int conv_impl(eir_kctx *ctx, const eir_tview *x0, const eir_tview *w, const eir_tview *bias, const int64_t *stride,
                     const int64_t *pad, const int64_t *dil, bool transposed, int64_t groups, eir_tview *out0,
                     const eir_conv_epi *epi);

/* Complex convolution as torch's complex_convolution does it, with Gauss's
 * trick on real convolutions: a = conv(xr, wr, br), b = conv(xi, wi),
 * c = conv(xr + xi, wr + wi, br + bi); out = (a - b) + i (c - a - b). */
static int conv_complex(eir_kctx *ctx, const eir_tview *x, const eir_tview *w, const eir_tview *bias, const int64_t *stride,
                        const int64_t *pad, const int64_t *dil, bool transposed, int64_t groups, eir_tview *out) {
    if (x->dtype != w->dtype || (bias && bias->dtype != x->dtype))
        return eir_kerr(ctx, "Input type (%s) and weight type (%s) should be the same", dname(x->dtype), dname(w->dtype));
    eir_dtype rt = out->dtype == EIR_C128 ? EIR_F64 : EIR_F32;
    int64_t n = eir_tview_numel(out);
    size_t es = eir_elsize(rt);
    eir_tview xr = part_view(x, 0), xi = part_view(x, 1), wr = part_view(w, 0), wi = part_view(w, 1), xs, ws, bs, br, bi;
    void *A = eir_kalloc((size_t)(n > 0 ? n : 1) * es), *B = eir_kalloc((size_t)(n > 0 ? n : 1) * es),
         *C = eir_kalloc((size_t)(n > 0 ? n : 1) * es), *xsb = part_sum(x, &xs), *wsb = part_sum(w, &ws), *bsb = NULL;
    if (bias) { br = part_view(bias, 0); bi = part_view(bias, 1); bsb = part_sum(bias, &bs); }
    int rc = 0;
    if (!A || !B || !C || !xsb || !wsb || (bias && !bsb)) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    eir_tview a = contig_view(A, rt, out->rank, out->sizes), b = contig_view(B, rt, out->rank, out->sizes),
              c = contig_view(C, rt, out->rank, out->sizes);
    if ((rc = conv_impl(ctx, &xr, &wr, bias ? &br : NULL, stride, pad, dil, transposed, groups, &a, NULL)) ||
        (rc = conv_impl(ctx, &xi, &wi, NULL, stride, pad, dil, transposed, groups, &b, NULL)) ||
        (rc = conv_impl(ctx, &xs, &ws, bias ? &bs : NULL, stride, pad, dil, transposed, groups, &c, NULL)))
        goto done;
    (void)bi;
    int64_t idx[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        double av = eir_load_f64(eir_tview_at(&a, idx), rt), bv = eir_load_f64(eir_tview_at(&b, idx), rt),
               cv = eir_load_f64(eir_tview_at(&c, idx), rt), re, im;
        if (rt == EIR_F32) { re = (float)av - (float)bv; im = ((float)cv - (float)av) - (float)bv; }
        else { re = av - bv; im = (cv - av) - bv; }
        eir_store_c128(eir_tview_at(out, idx), out->dtype, re, im);
        for (int32_t d = out->rank - 1; d >= 0; d--) {
            if (++idx[d] < out->sizes[d]) break;
            idx[d] = 0;
        }
    }
done:
    eir_kfree(A); eir_kfree(B); eir_kfree(C); eir_kfree(xsb); eir_kfree(wsb); eir_kfree(bsb);
    return rc;
}

/* a 4-d tensor laid out channels last: (N, C, H, W) with strides (H W C, 1, W C, C) */
static bool nhwc_dense(const eir_tview *t) {
    if (t->rank != 4) return false;
    int64_t C = t->sizes[1], H = t->sizes[2], W = t->sizes[3];
    return t->strides[1] == 1 && (W == 1 || t->strides[3] == C) && (H == 1 || t->strides[2] == W * C) &&
           (t->sizes[0] == 1 || t->strides[0] == H * W * C);
}

/* the bias of a channels-last depthwise convolution on the primitive (eir_blk_epi), when the
 * primitive does not take it in */
static void nhwc_bias_epi(const void *ctx, int64_t n, int64_t c0, int64_t nc, int64_t nz, int64_t P, const float *src,
                          int64_t sp, int64_t sj, float *dst, int64_t dp) {
    (void)n;
    const float *b = ctx;
    for (int64_t p = 0; p < P; p++) {
        for (int64_t j = 0; j < nc; j++) dst[p * dp + j] = src[p * sp + j * sj] + (b ? b[c0 + j] : 0.0f);
        for (int64_t j = nc; j < nz; j++) dst[p * dp + j] = 0.0f;
    }
}

/* pad < 0 entries: "same" padding (left = total / 2). */
/* epi (float32 only, NULL: none): applied to every output element after the bias. */
static int conv_impl(eir_kctx *ctx, const eir_tview *x0, const eir_tview *w, const eir_tview *bias, const int64_t *stride,
                     const int64_t *pad, const int64_t *dil, bool transposed, int64_t groups, eir_tview *out0,
                     const eir_conv_epi *epi) {
    int32_t nsp = w->rank - 2;
    if (nsp < 1 || nsp > 3) return eir_kerr(ctx, "convolution: %d spatial dims are not supported", nsp);
    eir_dtype dt = out0->dtype, ct = ctype_of(dt);
    if (ct == EIR_DTYPE_UNKNOWN) return eir_kerr(ctx, "\"slow_conv2d_cpu\" not implemented for '%s'", dname(dt));
    if (eir_is_complex(dt)) return conv_complex(ctx, x0, w, bias, stride, pad, dil, transposed, groups, out0);
    if (epi && ct != EIR_F32) return eir_kerr(ctx, "convolution: a fused epilogue needs float32, got %s", dname(dt));
    if (x0->dtype != w->dtype)
        return eir_kerr(ctx, "Input type (%s) and weight type (%s) should be the same", dname(x0->dtype), dname(w->dtype));
    eir_tview x = *x0, out = *out0;
    if (x.rank == nsp + 1) { x = unsqueeze(&x, 0); out = unsqueeze(&out, 0); }
    if (x.rank != nsp + 2 || out.rank != nsp + 2) return eir_kerr(ctx, "convolution: bad input rank %d", x0->rank);
    if (groups < 1) return eir_kerr(ctx, "non-positive groups is not supported");
    int64_t Nb = x.sizes[0], Cin = x.sizes[1], Cout = out.sizes[1];
    if (Cin % groups || Cout % groups) return eir_kerr(ctx, "convolution: channels not divisible by groups");
    int64_t Cig = Cin / groups, Cog = Cout / groups;
    if (transposed ? (w->sizes[0] != Cin || w->sizes[1] != Cog) : (w->sizes[0] != Cout || w->sizes[1] != Cig))
        return eir_kerr(ctx, "convolution: weight of size [%lld, %lld, ...] does not fit input with %lld channels",
                        (long long)w->sizes[0], (long long)w->sizes[1], (long long)Cin);
    conv_geo g;
    int64_t Kp = 1, Pin = 1, Pout = 1;
    for (int i = 0; i < 3; i++) {
        int s = i - (3 - nsp);
        if (s < 0) { g.K[i] = g.S[i] = g.D[i] = g.Ii[i] = g.Oo[i] = 1; g.P[i] = 0; continue; }
        g.K[i] = w->sizes[2 + s]; g.S[i] = stride[s]; g.D[i] = dil[s];
        g.Ii[i] = x.sizes[2 + s]; g.Oo[i] = out.sizes[2 + s];
        g.P[i] = pad[s] >= 0 ? pad[s] : (dil[s] * (g.K[i] - 1)) / 2;
        Kp *= g.K[i]; Pin *= g.Ii[i]; Pout *= g.Oo[i];
    }
    if (eir_tview_numel(&out) == 0) return 0;
    size_t es = eir_elsize(ct);
    void *xo = NULL, *wo = NULL, *col = NULL, *yb = NULL;
    int rc = 0;
    /* a depthwise 2-d float32 convolution from channels last to channels last (as torch lays out
     * the result of a channels-last input; ConvNeXt's 7 x 7 after its permuted blocks): oneDNN's
     * depthwise primitive on the tensors where they lie, no copy to NCHW and back */
    if (eir_kernels_fast && !transposed && !epi && dt == EIR_F32 && x.dtype == EIR_F32 && nsp == 2 &&
        groups == Cin && Cout == Cin && Cig == 1 && nhwc_dense(&x) && nhwc_dense(&out) &&
        eir_tview_is_contiguous(w) && (!bias || (bias->dtype == EIR_F32 && bias->rank == 1 && bias->strides[0] == 1))) {
        const float *bv = bias ? (const float *)bias->data : NULL;
        eir_blk_epi be = {nhwc_bias_epi, bv, EIR_BLK_NONE, 0.f, 0.f, bv, NULL};
        if (eir_dnnl_conv2d_blk_f32((const float *)x.data, Cin, (const float *)w->data, (float *)out.data, Cout, Nb, Cin,
                                    g.Ii[1], g.Ii[2], Cout, g.Oo[1], g.Oo[2], g.K[1], g.K[2], &g.S[1], &g.P[1], &g.D[1],
                                    groups, &be))
            return 0;
    }
    const char *X = as_contig(&x, ct, &xo);
    bool ydirect = dt == ct && eir_tview_is_contiguous(&out);
    char *Y = ydirect ? out.data : (yb = eir_kalloc((size_t)eir_tview_numel(&out) * es));
    /* 2-d, groups 1, bfloat16, weight a constant of the runtime: oneDNN's float32 primitive on the
     * input converted to float32 and the weight converted once, by its reorder (no float32 copy
     * of the weight per call); the output rounded once at copy_out */
    if (eir_kernels_fast && X && Y && !transposed && !epi && dt == EIR_BF16 && w->dtype == EIR_BF16 && nsp == 2 &&
        groups == 1 && eir_tview_is_contiguous(w) && (!bias || bias->dtype == EIR_BF16)) {
        void *bo = NULL;
        const float *Bv = bias ? (const float *)as_contig(bias, ct, &bo) : NULL;
        bool done = (!bias || Bv) &&
                    eir_dnnl_conv2d_wbf16((const float *)X, (const uint16_t *)w->data, Bv, (float *)Y, Nb, Cin, g.Ii[1],
                                          g.Ii[2], Cout, g.Oo[1], g.Oo[2], g.K[1], g.K[2], &g.S[1], &g.P[1], &g.D[1]);
        eir_kfree(bo);
        if (done) goto copy_out;
    }
    const char *W = as_contig(w, ct, &wo);
    bool trivial = !transposed && Kp == 1 && g.S[0] == 1 && g.S[1] == 1 && g.S[2] == 1 && g.P[0] == 0 && g.P[1] == 0 &&
                   g.P[2] == 0 && Pin == Pout;
    if (!X || !W || !Y) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    /* a 1 x 1 kernel on a 1 x 1 image (squeeze-and-excitation after pooling), a few images: a
     * matrix-vector product over the weight's rows, split over the pool, the same bits at any
     * thread count */
    if (eir_kernels_fast && !transposed && dt == EIR_F32 && groups == 1 && Kp == 1 && Pin == 1 && Pout == 1 &&
        Nb <= EIR_GEMV_MAX_M && Cin >= 8 && (!bias || bias->dtype == EIR_F32)) {
        void *bo = NULL;
        const float *Bv = bias ? (const float *)as_contig(bias, ct, &bo) : NULL;
        if (bias && !Bv) { rc = eir_kerr(ctx, "out of memory"); goto done; }
        eir_gemv_f32((const float *)W, Cout, Cin, (const float *)X, Cin, Nb, Bv, (float *)Y, Cout);
        eir_kfree(bo);
        if (epi)
            for (int64_t i = 0; i < Nb * Cout; i++) epi->fn(epi->ctx, i % Cout, (float *)Y + i, 1);
        epi = NULL;
        goto copy_out;
    }
    /* 2-d, groups 1, float32, weight a constant of the runtime as given (not a copy): oneDNN's
     * convolution primitive on the weight reordered once (dnnl_conv.c) */
    if (eir_kernels_fast && !transposed && dt == EIR_F32 && nsp == 2 && groups == 1 && !wo &&
        (!bias || (bias->dtype == EIR_F32 && bias->rank == 1 && bias->strides[0] == 1))) {
        if (eir_dnnl_conv2d_f32((const float *)X, (const float *)W, bias ? (const float *)bias->data : NULL, (float *)Y,
                                Nb, Cin, g.Ii[1], g.Ii[2], Cout, g.Oo[1], g.Oo[2], g.K[1], g.K[2], &g.S[1], &g.P[1],
                                &g.D[1], epi)) {
            epi = NULL;
            goto copy_out;
        }
    }
    int64_t colsz = transposed ? Cog * Kp * Pin : Cig * Kp * Pout;
    if (!trivial) col = eir_kalloc((size_t)(colsz > 0 ? colsz : 1) * es);
    if (!trivial && !col) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    /* depthwise 2-d, float32: a direct kernel instead of one small GEMM per channel; bfloat16 too,
     * on its float32 copies, the output rounded once at copy_out (torch's bfloat16 convolution
     * sums in float32 and rounds once) */
    if (eir_kernels_fast && !transposed && (dt == EIR_F32 || (dt == EIR_BF16 && ct == EIR_F32 && !epi)) && nsp == 2 &&
        groups == Cin && Cout == Cin && Cig == 1 && (!bias || bias->dtype == dt)) {
        void *bo = NULL;
        const float *Bv = bias ? (const float *)as_contig(bias, ct, &bo) : NULL;
        if (bias && !Bv) { rc = eir_kerr(ctx, "out of memory"); goto done; }
        eir_conv2d_depthwise_epi_f32((const float *)X, (const float *)W, Bv, (float *)Y, Nb, Cin, g.Ii[1], g.Ii[2],
                                     g.Oo[1], g.Oo[2], g.K[1], g.K[2], &g.S[1], &g.P[1], &g.D[1], epi);
        epi = NULL;
        eir_kfree(bo);
        goto copy_out;
    }
    if (transposed) memset(Y, 0, (size_t)eir_tview_numel(&out) * es);
    for (int64_t n = 0; n < Nb; n++)
        for (int64_t gi = 0; gi < groups; gi++) {
            const char *xg = X + (size_t)((n * Cin + gi * Cig) * Pin) * es;
            char *yg = Y + (size_t)((n * Cout + gi * Cog) * Pout) * es;
            if (!transposed) {
                const char *wg = W + (size_t)(gi * Cog * Cig * Kp) * es;
                g.C = Cig;
                const void *cm = xg;
                if (!trivial && ct == EIR_F32 && eir_kernels_fast &&
                    conv_gemm_blocked_f32((const float *)xg, (const float *)wg, (float *)yg, col, Cog, Pout, Cig * Kp,
                                          &g, bias ? NULL : epi, gi * Cog))
                    continue;
                if (!trivial) { im2col_any(ct, xg, col, &g); cm = col; }
                if (ct == EIR_F32)   /* the epilogue in the GEMM's blocks when no bias comes between */
                    conv_gemm_f32(Cog, Pout, Cig * Kp, (const float *)wg, (const float *)cm, (float *)yg,
                                  bias ? NULL : epi, gi * Cog);
                else cgemm(ct, false, false, Cog, Pout, Cig * Kp, wg, cm, false, yg);
            } else {
                const char *wg = W + (size_t)(gi * Cig * Cog * Kp) * es; /* (Cig, Cog*Kp) */
                cgemm(ct, true, false, Cog * Kp, Pin, Cig, wg, xg, false, col);
                /* float16 as torch's slow_conv_transpose: the column buffer and every sum of
                 * overlapping contributions are float16 (bfloat16 goes through oneDNN in float) */
                bool h = dt == EIR_F16;
                if (h)
                    for (int64_t i = 0; i < colsz; i++) ((float *)col)[i] = round_f16(((float *)col)[i]);
                conv_geo gt = g; /* col2im with in/out roles: I = input spatial, O = output spatial */
                gt.C = Cog;
                col2im_any(ct, col, yg, &gt, h);
            }
        }
    if (bias) {
        void *bo = NULL;
        const char *Bv = as_contig(bias, ct, &bo);
        if (!Bv) { rc = eir_kerr(ctx, "out of memory"); goto done; }
        for (int64_t n = 0; n < Nb; n++)
            for (int64_t c = 0; c < Cout; c++) {
                char *p = Y + (size_t)((n * Cout + c) * Pout) * es;
                if (ct == EIR_F32) { float b = ((const float *)Bv)[c]; for (int64_t i = 0; i < Pout; i++) ((float *)p)[i] += b; }
                else if (ct == EIR_F64) { double b = ((const double *)Bv)[c]; for (int64_t i = 0; i < Pout; i++) ((double *)p)[i] += b; }
                else { int64_t b = ((const int64_t *)Bv)[c]; for (int64_t i = 0; i < Pout; i++) ((int64_t *)p)[i] = (int64_t)((uint64_t)((int64_t *)p)[i] + (uint64_t)b); }
            }
        eir_kfree(bo);
    }
    if (epi && (bias || transposed))   /* not fused into the product: one pass at the end */
        for (int64_t n = 0; n < Nb; n++)
            for (int64_t c = 0; c < Cout; c++) epi->fn(epi->ctx, c, (float *)Y + (n * Cout + c) * Pout, Pout);
copy_out:
    if (!ydirect) {
        eir_tview yv = contig_view(Y, ct, out.rank, out.sizes);
        copy_view(&out, &yv);
    }
done:
    eir_kfree(xo); eir_kfree(wo); eir_kfree(col); eir_kfree(yb);
    return rc;
}

static int k_convolution(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    int nsp = a[1].t->rank - 2;
    if (nsp < 1 || nsp > 3) return eir_kerr(ctx, "convolution: %d spatial dims are not supported", nsp);
    int64_t st[3], pd[3], dl[3], op[3];
    get_ints(&a[3], nsp, st, 1); get_ints(&a[4], nsp, pd, 0); get_ints(&a[5], nsp, dl, 1); get_ints(&a[7], nsp, op, 0);
    bool transposed = a[6].i != 0;
    const eir_tview *bias = a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    return conv_impl(ctx, a[0].t, a[1].t, bias, st, pd, dl, transposed, a[8].i, &out[0], NULL);
}

/* conv1d / conv2d / conv3d (.default and .padding with "valid" / "same"). */
static int k_convNd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    int nsp = a[1].t->rank - 2;
    if (nsp < 1 || nsp > 3) return eir_kerr(ctx, "convolution: %d spatial dims are not supported", nsp);
    int64_t st[3], pd[3], dl[3];
    get_ints(&a[3], nsp, st, 1); get_ints(&a[5], nsp, dl, 1);
    if (a[4].kind == EIR_KA_STRING) {
        bool same = strcmp(a[4].str, "same") == 0;
        if (!same && strcmp(a[4].str, "valid") != 0)
            return eir_kerr(ctx, "Invalid padding string: '%s'", a[4].str);
        for (int i = 0; i < nsp; i++) pd[i] = same ? -1 : 0;
    } else get_ints(&a[4], nsp, pd, 0);
    const eir_tview *bias = a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    return conv_impl(ctx, a[0].t, a[1].t, bias, st, pd, dl, false, a[6].i, &out[0], NULL);
}

/* conv_transpose{1,2,3}d.input(input, weight, bias, stride, padding, output_padding, groups, dilation) */
static int k_conv_transpose(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    int nsp = a[1].t->rank - 2;
    if (nsp < 1 || nsp > 3) return eir_kerr(ctx, "convolution: %d spatial dims are not supported", nsp);
    int64_t st[3], pd[3], dl[3];
    get_ints(&a[3], nsp, st, 1); get_ints(&a[4], nsp, pd, 0); get_ints(&a[7], nsp, dl, 1);
    const eir_tview *bias = a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    return conv_impl(ctx, a[0].t, a[1].t, bias, st, pd, dl, true, a[6].i, &out[0], NULL);
}

/* ======================================================================
 * pooling (2-d; input (N, C, H, W) or (C, H, W), output sizes from out)
 * ====================================================================== */

typedef struct pool_in {
    eir_tview x, y, ind;    /* rank 4 */
    bool has_ind;
} pool_in;

static int pool_views(eir_kctx *ctx, const eir_tview *x, eir_tview *y, eir_tview *ind, pool_in *p) {
    if (x->rank != 3 && x->rank != 4) return eir_kerr(ctx, "pooling: expected 3D or 4D input, got %dD", x->rank);
    p->x = x->rank == 3 ? unsqueeze(x, 0) : *x;
    p->y = y->rank == 3 ? unsqueeze(y, 0) : *y;
    p->has_ind = ind != NULL;
    if (ind) p->ind = ind->rank == 3 ? unsqueeze(ind, 0) : *ind;
    if (p->y.rank != 4 || p->y.sizes[0] != p->x.sizes[0] || p->y.sizes[1] != p->x.sizes[1])
        return eir_kerr(ctx, "pooling: output shape does not fit the input");
    return 0;
}

/* float32 input and output, (and int64 indices), all contiguous: the loops of fast.c */
static bool pool_fast(const pool_in *p) {
    return eir_kernels_fast && p->x.dtype == EIR_F32 && p->y.dtype == EIR_F32 && eir_tview_is_contiguous(&p->x) &&
           eir_tview_is_contiguous(&p->y) && (!p->has_ind || (p->ind.dtype == EIR_I64 && eir_tview_is_contiguous(&p->ind)));
}

static inline char *at4(const eir_tview *t, int64_t n, int64_t c, int64_t h, int64_t w) {
    return (char *)t->data + (n * t->strides[0] + c * t->strides[1] + h * t->strides[2] + w * t->strides[3]) * (int64_t)eir_elsize(t->dtype);
}

static int k_max_pool2d_common(const eir_karg *a, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    int64_t ks[2], st[2], pd[2], dl[2];
    get_ints(&a[1], 2, ks, 1);
    if (a[2].kind == EIR_KA_INTS && a[2].n > 0) get_ints(&a[2], 2, st, 1);
    else { st[0] = ks[0]; st[1] = ks[1]; }
    get_ints(&a[3], 2, pd, 0); get_ints(&a[4], 2, dl, 1);
    pool_in p;
    if (pool_views(ctx, a[0].t, &out[0], no > 1 ? &out[1] : NULL, &p)) return -1;
    eir_dtype dt = p.x.dtype;
    bool isint = eir_is_integral(dt, true);
    if (!isint && !eir_is_floating(dt)) return eir_kerr(ctx, "\"max_pool2d\" not implemented for '%s'", dname(dt));
    int64_t H = p.x.sizes[2], W = p.x.sizes[3], OH = p.y.sizes[2], OW = p.y.sizes[3];
    if (pool_fast(&p)) {
        eir_max_pool2d_f32(p.x.data, p.y.data, p.has_ind ? p.ind.data : NULL, p.x.sizes[0] * p.x.sizes[1], H, W, OH, OW,
                           ks, st, pd, dl);
        return 0;
    }
    /* float16 / bfloat16: the maximum is one of the values, exact in float32: the float32 loops on
     * a converted copy, each result converted back exactly (bfloat16 by its upper half, so a NaN
     * keeps its bits) */
    if (eir_kernels_fast && (dt == EIR_BF16 || dt == EIR_F16) && p.y.dtype == dt && eir_tview_is_contiguous(&p.x) &&
        eir_tview_is_contiguous(&p.y) && (!p.has_ind || (p.ind.dtype == EIR_I64 && eir_tview_is_contiguous(&p.ind)))) {
        int64_t nx = eir_tview_numel(&p.x), ny = eir_tview_numel(&p.y);
        float *xf = eir_kalloc((size_t)(nx + ny > 0 ? nx + ny : 1) * sizeof(float));
        if (xf) {
            float *yf = xf + nx;
            const uint16_t *xs = p.x.data;
            uint16_t *ys = p.y.data;
            (dt == EIR_BF16 ? eir_bf16_to_f32_row : eir_f16_to_f32_row)(xf, xs, nx);
            eir_max_pool2d_f32(xf, yf, p.has_ind ? p.ind.data : NULL, p.x.sizes[0] * p.x.sizes[1], H, W, OH, OW, ks, st,
                               pd, dl);
            for (int64_t i = 0; i < ny; i++) {
                uint32_t u;
                memcpy(&u, &yf[i], 4);
                ys[i] = dt == EIR_BF16 ? (uint16_t)(u >> 16) : eir_f32_to_f16(yf[i]);
            }
            eir_kfree(xf);
            return 0;
        }
    }
    for (int64_t n = 0; n < p.x.sizes[0]; n++)
        for (int64_t c = 0; c < p.x.sizes[1]; c++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t hs = oh * st[0] - pd[0], ws = ow * st[1] - pd[1];
                    int64_t he = hs + (ks[0] - 1) * dl[0] + 1, we = ws + (ks[1] - 1) * dl[1] + 1;
                    if (he > H) he = H;
                    if (we > W) we = W;
                    while (hs < 0) hs += dl[0];
                    while (ws < 0) ws += dl[1];
                    int64_t mi = hs * W + ws;
                    double mv = -INFINITY;
                    int64_t miv = INT64_MIN;
                    bool first = true;
                    for (int64_t h = hs; h < he; h += dl[0])
                        for (int64_t w = ws; w < we; w += dl[1]) {
                            const char *q = at4(&p.x, n, c, h, w);
                            if (isint) {
                                int64_t v = eir_load_i64(q, dt);
                                if (first || v > miv) { miv = v; mi = h * W + w; }
                            } else {
                                double v = eir_load_f64(q, dt);
                                /* torch's test, no early exit: with several NaNs the last one's index wins */
                                if (v > mv || isnan(v)) { mv = v; mi = h * W + w; }
                            }
                            first = false;
                        }
                    if (isint) eir_store_i64(at4(&p.y, n, c, oh, ow), p.y.dtype, miv);
                    else eir_store_f64(at4(&p.y, n, c, oh, ow), p.y.dtype, mv);
                    if (p.has_ind) *(int64_t *)at4(&p.ind, n, c, oh, ow) = mi;
                }
    return 0;
}

static int k_max_pool2d(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return k_max_pool2d_common(a, out, 1, ctx);
}
static int k_max_pool2d_with_indices(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (no < 2 || out[1].dtype != EIR_I64) return eir_kerr(ctx, "max_pool2d_with_indices: expected an int64 indices output");
    return k_max_pool2d_common(a, out, 2, ctx);
}

static int k_avg_pool2d(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    int64_t ks[2], st[2], pd[2];
    get_ints(&a[1], 2, ks, 1);
    if (a[2].kind == EIR_KA_INTS && a[2].n > 0) get_ints(&a[2], 2, st, 1);
    else { st[0] = ks[0]; st[1] = ks[1]; }
    get_ints(&a[3], 2, pd, 0);
    bool cip = a[5].i != 0;
    int64_t divov = na > 6 && a[6].kind == EIR_KA_INT ? a[6].i : 0;
    if (na > 6 && a[6].kind == EIR_KA_INT && divov == 0) return eir_kerr(ctx, "divisor must be not zero");
    pool_in p;
    if (pool_views(ctx, a[0].t, &out[0], NULL, &p)) return -1;
    eir_dtype dt = p.x.dtype;
    bool isint = eir_is_integral(dt, false);
    if (!isint && !eir_is_floating(dt)) return eir_kerr(ctx, "\"avg_pool2d\" not implemented for '%s'", dname(dt));
    int64_t H = p.x.sizes[2], W = p.x.sizes[3], OH = p.y.sizes[2], OW = p.y.sizes[3];
    if (pool_fast(&p)) {
        eir_avg_pool2d_f32(p.x.data, p.y.data, p.x.sizes[0] * p.x.sizes[1], H, W, OH, OW, ks, st, pd, cip, divov);
        return 0;
    }
    for (int64_t n = 0; n < p.x.sizes[0]; n++)
        for (int64_t c = 0; c < p.x.sizes[1]; c++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t hs = oh * st[0] - pd[0], ws = ow * st[1] - pd[1];
                    int64_t he = hs + ks[0], we = ws + ks[1];
                    if (he > H + pd[0]) he = H + pd[0];
                    if (we > W + pd[1]) we = W + pd[1];
                    int64_t pool = (he - hs) * (we - ws);
                    if (hs < 0) hs = 0;
                    if (ws < 0) ws = 0;
                    if (he > H) he = H;
                    if (we > W) we = W;
                    char *yp = at4(&p.y, n, c, oh, ow);
                    if (hs >= he || ws >= we) { eir_store_f64(yp, p.y.dtype, 0); continue; }
                    int64_t div = divov ? divov : cip ? pool : (he - hs) * (we - ws);
                    if (isint) {
                        int64_t s = 0;
                        for (int64_t h = hs; h < he; h++)
                            for (int64_t w = ws; w < we; w++) s += eir_load_i64(at4(&p.x, n, c, h, w), dt);
                        eir_store_i64(yp, p.y.dtype, s / div);
                    } else {
                        double s = 0;
                        for (int64_t h = hs; h < he; h++)
                            for (int64_t w = ws; w < we; w++) s += eir_load_f64(at4(&p.x, n, c, h, w), dt);
                        eir_store_f64(yp, p.y.dtype, s / (double)div);
                    }
                }
    return 0;
}

static int adaptive_common(const eir_karg *a, eir_tview *out, uint32_t no, eir_kctx *ctx, bool is_max) {
    pool_in p;
    if (pool_views(ctx, a[0].t, &out[0], no > 1 ? &out[1] : NULL, &p)) return -1;
    eir_dtype dt = p.x.dtype;
    if (!eir_is_floating(dt))
        return eir_kerr(ctx, "\"%s\" not implemented for '%s'", is_max ? "adaptive_max_pool2d" : "adaptive_avg_pool2d", dname(dt));
    int64_t H = p.x.sizes[2], W = p.x.sizes[3], OH = p.y.sizes[2], OW = p.y.sizes[3];
    if (!is_max && pool_fast(&p)) {
        eir_adaptive_avg_pool2d_f32(p.x.data, p.y.data, p.x.sizes[0] * p.x.sizes[1], H, W, OH, OW);
        return 0;
    }
    for (int64_t n = 0; n < p.x.sizes[0]; n++)
        for (int64_t c = 0; c < p.x.sizes[1]; c++)
            for (int64_t oh = 0; oh < OH; oh++) {
                int64_t hs = (oh * H) / OH, he = ((oh + 1) * H + OH - 1) / OH;
                for (int64_t ow = 0; ow < OW; ow++) {
                    int64_t ws = (ow * W) / OW, we = ((ow + 1) * W + OW - 1) / OW;
                    char *yp = at4(&p.y, n, c, oh, ow);
                    if (is_max) {
                        double mv = -INFINITY;
                        int64_t mi = hs * W + ws;
                        for (int64_t h = hs; h < he; h++)
                            for (int64_t w = ws; w < we; w++) {
                                double v = eir_load_f64(at4(&p.x, n, c, h, w), dt);
                                if (v > mv || isnan(v)) { mv = v; mi = h * W + w; } /* the last NaN wins, as in torch */
                            }
                        eir_store_f64(yp, p.y.dtype, mv);
                        if (p.has_ind) *(int64_t *)at4(&p.ind, n, c, oh, ow) = mi;
                    } else {
                        double s = 0;
                        for (int64_t h = hs; h < he; h++)
                            for (int64_t w = ws; w < we; w++) s += eir_load_f64(at4(&p.x, n, c, h, w), dt);
                        eir_store_f64(yp, p.y.dtype, s / (double)((he - hs) * (we - ws)));
                    }
                }
            }
    return 0;
}

static int k_adaptive_avg_pool2d(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return adaptive_common(a, out, 1, ctx, false);
}
static int k_adaptive_max_pool2d(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (no < 2 || out[1].dtype != EIR_I64) return eir_kerr(ctx, "adaptive_max_pool2d: expected an int64 indices output");
    return adaptive_common(a, out, 2, ctx, true);
}

/* ======================================================================
 * embedding
 * ====================================================================== */

static int k_embedding(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const eir_tview *w = a[0].t, *ix = a[1].t;
    if (w->rank != 2) return eir_kerr(ctx, "'weight' must be 2-D");
    if (ix->dtype != EIR_I64 && ix->dtype != EIR_I32)
        return eir_kerr(ctx, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead", dname(ix->dtype));
    int64_t V = w->sizes[0], D = w->sizes[1], n = eir_tview_numel(ix);
    if (out->rank != ix->rank + 1) return eir_kerr(ctx, "embedding: output rank mismatch");
    int64_t idx[EIR_MAX_RANK] = {0};
    size_t es = eir_elsize(w->dtype), eo = eir_elsize(out->dtype);
    for (int64_t k = 0; k < n; k++) {
        int64_t io = 0, oo = 0;
        for (int32_t d = 0; d < ix->rank; d++) { io += idx[d] * ix->strides[d]; oo += idx[d] * out->strides[d]; }
        int64_t i = ix->dtype == EIR_I64 ? ((const int64_t *)ix->data)[io] : ((const int32_t *)ix->data)[io];
        if (i < 0 || i >= V) return eir_kerr(ctx, "index out of range in self");
        run_convert((char *)out->data + oo * (int64_t)eo, out->dtype, out->strides[ix->rank] * (int64_t)eo,
                    (const char *)w->data + i * w->strides[0] * (int64_t)es, w->dtype, w->strides[1] * (int64_t)es, D);
        for (int32_t d = ix->rank - 1; d >= 0; d--) {
            if (++idx[d] < ix->sizes[d]) break;
            idx[d] = 0;
        }
    }
    return 0;
}

/* ======================================================================
 * attention (math: softmax(q k^T * scale + mask) v, rows fully masked give 0; dropout on the weights)
 * ====================================================================== */

/* Attention heads [b0, b1) (flat batch indices of out): each on its own
 * scratch, so heads can be split over the run's threads (the same bits);
 * with dropout they run in order on one thread (the generator's draws). */
typedef struct sdpa_job {
    eir_kctx *ctx;
    const eir_tview *q, *k, *v, *mask;
    eir_tview *out, *lse;
    eir_dtype ct;
    int32_t r;
    int64_t L, E, S, Ev;
    double scale, dropout;
    bool causal, has_mask;
    _Atomic int oom;
} sdpa_job;

/* a 2-d view the GEMM reads or writes in place: dtype ct, unit-stride rows
 * at least as far apart as they are long */
static bool gemm_rows_ok(const eir_tview *m, eir_dtype ct) {
    return m->dtype == ct && m->sizes[1] > 0 && m->strides[1] == 1 && m->strides[0] >= m->sizes[1];
}

/* Query rows per block of the float32 path: the block's scores (rows x S floats) within 256 KiB,
 * so that they stay in L2 from the first product through the softmax to the second; at least 16
 * rows (a function of the shape only: the same bits at any thread count). */
static int64_t sdpa_rows(int64_t L, int64_t S) {
    int64_t rows = (256 << 10) / (4 * (S > 1 ? S : 1));
    if (rows < 16) rows = 16;
    return rows < L ? rows : (L > 0 ? L : 1);
}

static void sdpa_heads(void *jp, int64_t b0, int64_t b1) {
    sdpa_job *h = jp;
    eir_kctx *ctx = h->ctx;
    const eir_tview *q = h->q, *k = h->k, *v = h->v;
    eir_tview *out = h->out, *lse = h->lse, mask;
    if (h->has_mask) mask = *h->mask;
    eir_dtype ct = h->ct;
    int32_t r = h->r;
    int64_t L = h->L, E = h->E, S = h->S, Ev = h->Ev;
    double scale = h->scale, dropout = h->dropout;
    bool causal = h->causal, has_mask = h->has_mask;
    size_t es = eir_elsize(ct);
    void *Q = eir_kalloc((size_t)(L * E + 1) * es), *Kb = eir_kalloc((size_t)(S * E + 1) * es), *Vb = eir_kalloc((size_t)(S * Ev + 1) * es);
    void *P = eir_kalloc((size_t)(L * S + 1) * es), *O = eir_kalloc((size_t)(L * Ev + 1) * es);
    double *row = eir_kalloc((size_t)(S + 1) * sizeof(double));
    if (!Q || !Kb || !Vb || !P || !O || !row) { h->oom = 1; goto done; }
    for (int64_t b = b0; b < b1; b++) {
        int64_t bidx[EIR_MAX_RANK] = {0};
        int64_t rest = b;
        for (int32_t d = r - 3; d >= 0; d--) {
            bidx[d] = rest % out->sizes[d];
            rest /= out->sizes[d];
        }
        int64_t kidx[EIR_MAX_RANK], vidx[EIR_MAX_RANK];
        for (int t = 0; t < 2; t++) {
            const eir_tview *kv = t ? v : k;
            int64_t *ix = t ? vidx : kidx;
            for (int32_t d = 0; d < r - 2; d++) {
                ix[d] = bidx[d];
                if (kv->sizes[d] == 1) ix[d] = 0;
                else if (kv->sizes[d] != out->sizes[d]) {
                    ix[d] = bidx[d] / (out->sizes[d] / kv->sizes[d]);
                }
            }
        }
        int64_t qidx[EIR_MAX_RANK];
        for (int32_t d = 0; d < r - 2; d++) qidx[d] = q->sizes[d] == 1 ? 0 : bidx[d];
        eir_tview qa = mat_at(q, qidx), ka = mat_at(k, kidx), va = mat_at(v, vidx), oa = mat_at(out, bidx);
        eir_tview qv = contig_view(Q, ct, 2, qa.sizes), kv = contig_view(Kb, ct, 2, ka.sizes), vv = contig_view(Vb, ct, 2, va.sizes);
        /* matrices with unit-stride rows in the computation dtype go to the GEMM in place */
        const void *Qp = Q, *Kp = Kb, *Vp = Vb;
        int64_t lq = E > 1 ? E : 1, lk = lq, lv = Ev > 1 ? Ev : 1;
        if (eir_kernels_fast && gemm_rows_ok(&qa, ct)) { Qp = qa.data; lq = qa.strides[0]; }
        else if (E > 0) copy_view(&qv, &qa);
        if (eir_kernels_fast && gemm_rows_ok(&ka, ct)) { Kp = ka.data; lk = ka.strides[0]; }
        else if (E > 0) copy_view(&kv, &ka);
        if (eir_kernels_fast && gemm_rows_ok(&va, ct)) { Vp = va.data; lv = va.strides[0]; }
        else if (Ev > 0 && S > 0) copy_view(&vv, &va);
        eir_tview ma;
        memset(&ma, 0, sizeof ma);
        if (has_mask) ma = mat_at(&mask, bidx);
        if (eir_kernels_fast && ct == EIR_F32 && dropout == 0 &&
            (!has_mask || ((ma.dtype == EIR_F32 || ma.dtype == EIR_BOOL) && !causal))) {
            /* blocks of query rows, each block's scores (rows x S) kept in cache from its product
             * through its softmax to its product with v; vectorised rows (fast.c); a float mask
             * added to each row first, in float as torch adds it; a bool mask's false positions
             * -inf, as torch's math attention makes them */
            int64_t LB = sdpa_rows(L, S);
            for (int64_t i0 = 0; i0 < L; i0 += LB) {
                int64_t nr = L - i0 < LB ? L - i0 : LB;
                blas_gemm(ct, false, false, true, nr, S, E, scale, (const char *)Qp + i0 * lq * (int64_t)es, lq, Kp, lk, 0,
                          P, S > 1 ? S : 1);
                for (int64_t i = i0; i < i0 + nr; i++) {
                    float mxf;
                    double sum;
                    float *pr = (float *)P + (i - i0) * S;
                    if (has_mask && ma.dtype == EIR_BOOL) {
                        const uint8_t *mr = (const uint8_t *)ma.data + i * ma.strides[0];
                        int64_t ms = ma.strides[1];
                        for (int64_t j = 0; j < S; j++)
                            if (!mr[j * ms]) pr[j] = -INFINITY;
                    } else if (has_mask) {
                        const float *mr = (const float *)ma.data + i * ma.strides[0];
                        int64_t ms = ma.strides[1];
                        if (ms == 1)
                            for (int64_t j = 0; j < S; j++) pr[j] += mr[j];
                        else
                            for (int64_t j = 0; j < S; j++) pr[j] += mr[j * ms];
                    }
                    eir_softmax_row_f32(pr, causal ? (i + 1 < S ? i + 1 : S) : S, S, &mxf, &sum);
                    if (lse) {
                        int64_t li[EIR_MAX_RANK];
                        for (int32_t d = 0; d < r - 2; d++) li[d] = bidx[d];
                        li[r - 2] = i;
                        eir_store_f64(eir_tview_at(lse, li), lse->dtype, mxf == -INFINITY ? 0.0 : (double)mxf + log(sum));
                    }
                }
                if (gemm_rows_ok(&oa, ct))
                    blas_gemm(ct, false, false, false, nr, Ev, S, 1.0, P, S > 1 ? S : 1, Vp, lv, 0,
                              (char *)oa.data + i0 * oa.strides[0] * (int64_t)es, oa.strides[0]);
                else {
                    blas_gemm(ct, false, false, false, nr, Ev, S, 1.0, P, S > 1 ? S : 1, Vp, lv, 0,
                              (char *)O + i0 * Ev * (int64_t)es, Ev > 1 ? Ev : 1);
                }
            }
            if (!gemm_rows_ok(&oa, ct) && Ev > 0) {
                eir_tview ov = contig_view(O, ct, 2, oa.sizes);
                copy_view(&oa, &ov);
            }
            continue;
        }
        blas_gemm(ct, false, false, true, L, S, E, scale, Qp, lq, Kp, lk, 0, P, S > 1 ? S : 1);
        for (int64_t i = 0; i < L; i++) {
            double mx = -INFINITY;
            if (ct == EIR_F32 && !causal && !has_mask) { /* plain float scores: the loop below without its branches */
                const float *pr = (const float *)P + i * S;
                for (int64_t j = 0; j < S; j++) {
                    double s = pr[j];
                    row[j] = s;
                    if (s > mx) mx = s;
                }
            } else {
                for (int64_t j = 0; j < S; j++) {
                    double s = ct == EIR_F32 ? ((float *)P)[i * S + j] : ((double *)P)[i * S + j];
                    if (causal && j > i) s = -INFINITY;
                    if (has_mask) {
                        const char *mp = (const char *)ma.data + (i * ma.strides[0] + j * ma.strides[1]) * (int64_t)eir_elsize(ma.dtype);
                        if (ma.dtype == EIR_BOOL) { if (!*(const uint8_t *)mp) s = -INFINITY; }
                        else s += eir_load_f64(mp, ma.dtype);
                    }
                    row[j] = s;
                    if (s > mx) mx = s;
                }
            }
            double sum = 0;
            if (mx == -INFINITY) {
                for (int64_t j = 0; j < S; j++) row[j] = 0;
            } else {
                if (ct == EIR_F32) /* float scores: their exponentials in float, as torch's float softmax */
                    for (int64_t j = 0; j < S; j++) { row[j] = expf((float)row[j] - (float)mx); sum += row[j]; }
                else
                    for (int64_t j = 0; j < S; j++) { row[j] = exp(row[j] - mx); sum += row[j]; }
                for (int64_t j = 0; j < S; j++) row[j] /= sum;
            }
            if (dropout > 0) {
                /* torch's math attention: attn = dropout(attn, p, train=True), attn * (bernoulli(1 - p) / (1 - p)) */
                double keep = dropout < 1 ? (ct == EIR_F32 ? (double)(1.0f / (float)(1 - dropout)) : 1.0 / (1 - dropout)) : 0;
                for (int64_t j = 0; j < S; j++) {
                    bool drop = dropout >= 1 || eir_rand_unit(ctx) < dropout;
                    double w = ct == EIR_F32 ? (double)(float)row[j] : row[j];
                    row[j] = drop ? 0 : ct == EIR_F32 ? (double)(float)(w * keep) : w * keep;
                }
            }
            if (lse) {
                int64_t li[EIR_MAX_RANK];
                for (int32_t d = 0; d < r - 2; d++) li[d] = bidx[d];
                li[r - 2] = i;
                eir_store_f64(eir_tview_at(lse, li), lse->dtype, mx == -INFINITY ? 0.0 : mx + log(sum));
            }
            for (int64_t j = 0; j < S; j++) {
                if (ct == EIR_F32) ((float *)P)[i * S + j] = (float)row[j];
                else ((double *)P)[i * S + j] = row[j];
            }
        }
        if (eir_kernels_fast && gemm_rows_ok(&oa, ct))
            blas_gemm(ct, false, false, false, L, Ev, S, 1.0, P, S > 1 ? S : 1, Vp, lv, 0, oa.data, oa.strides[0]);
        else {
            blas_gemm(ct, false, false, false, L, Ev, S, 1.0, P, S > 1 ? S : 1, Vp, lv, 0, O, Ev > 1 ? Ev : 1);
            eir_tview ov = contig_view(O, ct, 2, oa.sizes);
            if (Ev > 0) copy_view(&oa, &ov);
        }
    }
done:
    eir_kfree(Q); eir_kfree(Kb); eir_kfree(Vb); eir_kfree(P); eir_kfree(O); eir_kfree(row);
}

static int sdpa_impl(eir_kctx *ctx, const eir_tview *q, const eir_tview *k, const eir_tview *v, const eir_karg *maskarg,
                     double dropout, bool causal, const eir_karg *scalearg, bool gqa, eir_tview *out, eir_tview *lse) {
    if (!(dropout >= 0 && dropout <= 1))
        return eir_kerr(ctx, "dropout probability has to be between 0 and 1, but got %g", dropout);
    if (dropout > 0 && !ctx->rng) return eir_kerr(ctx, "scaled_dot_product_attention: dropout needs the runtime's generator");
    /* batch dims broadcast as in torch's math attention (matmuls): lower-rank q, k, v get leading 1s */
    int32_t r = out->rank;
    if (r < 2 || q->rank < 2 || k->rank < 2 || v->rank < 2 || q->rank > r || k->rank > r || v->rank > r)
        return eir_kerr(ctx, "scaled_dot_product_attention: query, key and value must have at least 2 dims");
    eir_tview qp, kp, vp;
    const eir_tview *src[3] = {q, k, v};
    eir_tview *dst[3] = {&qp, &kp, &vp};
    for (int t = 0; t < 3; t++) {
        int32_t sh = r - src[t]->rank;
        *dst[t] = *src[t];
        dst[t]->rank = r;
        for (int32_t d = r - 1; d >= 0; d--) {
            dst[t]->sizes[d] = d >= sh ? src[t]->sizes[d - sh] : 1;
            dst[t]->strides[d] = d >= sh ? src[t]->strides[d - sh] : 0;
        }
    }
    q = &qp; k = &kp; v = &vp;
    eir_dtype dt = q->dtype, ct = ctype_of(dt);
    if (ct != EIR_F32 && ct != EIR_F64) return eir_kerr(ctx, "scaled_dot_product_attention: unsupported dtype %s", dname(dt));
    if (k->dtype != dt || v->dtype != dt)
        return eir_kerr(ctx, "Expected query, key, and value to have the same dtype, but got query.dtype: %s key.dtype: %s and value.dtype: %s instead.",
                        dname(dt), dname(k->dtype), dname(v->dtype));
    int64_t L = q->sizes[r - 2], E = q->sizes[r - 1], S = k->sizes[r - 2], Ev = v->sizes[r - 1];
    double scale = scalearg && scalearg->kind == EIR_KA_FLOAT ? scalearg->f : 1.0 / sqrt((double)E);
    /* batch index maps: q/out use out's batch dims; k/v broadcast, with GQA head grouping on dim r-3 */
    int64_t nb = 1;
    for (int32_t d = 0; d < r - 2; d++) nb *= out->sizes[d];
    eir_tview mask;
    bool has_mask = maskarg && maskarg->kind == EIR_KA_TENSOR;
    if (has_mask) {
        int64_t ms[EIR_MAX_RANK];
        for (int32_t d = 0; d < r - 2; d++) ms[d] = out->sizes[d];
        ms[r - 2] = L; ms[r - 1] = S;
        if (!eir_tview_broadcast(maskarg->t, r, ms, &mask)) return eir_kerr(ctx, "scaled_dot_product_attention: attn_mask does not broadcast");
    }
    if (nb == 0 || L == 0) return 0;
    /* batch dims of k and v against out's (GQA: heads in groups on dim r-3) */
    for (int t = 0; t < 2; t++) {
        const eir_tview *kv = t ? v : k;
        for (int32_t d = 0; d < r - 2; d++)
            if (kv->sizes[d] != 1 && kv->sizes[d] != out->sizes[d] &&
                !(gqa && d == r - 3 && kv->sizes[d] > 0 && out->sizes[d] % kv->sizes[d] == 0))
                return eir_kerr(ctx, "scaled_dot_product_attention: key and value batch dims do not match query");
    }
    sdpa_job j = {ctx, q, k, v, has_mask ? &mask : NULL, out, lse, ct, r, L, E, S, Ev, scale, dropout, causal, has_mask, 0};
    if (dropout > 0) sdpa_heads(&j, 0, nb);
    else {
        double per = 2.0 * (double)L * (double)S * (double)(E + Ev) + 20.0 * (double)L * (double)S;
        if (per >= (1 << 16)) eir_parallel_items(eir_pool_current(), nb, sdpa_heads, &j); /* a head an item */
        else eir_parallel_for(eir_pool_current(), nb, (int64_t)((1 << 16) / (per + 1)), sdpa_heads, &j);
    }
    if (j.oom) return eir_kerr(ctx, "out of memory");
    return 0;
}

/* scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal, *, scale, enable_gqa) */
static int k_sdpa(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    bool gqa = na > 7 && a[7].i != 0;
    return sdpa_impl(ctx, a[0].t, a[1].t, a[2].t, &a[3], a[4].f, a[5].i != 0, na > 6 ? &a[6] : NULL, gqa, &out[0], NULL);
}

/* _scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p, is_causal, *, attn_mask, scale) -> (output, logsumexp) */
static int k_sdpa_flash_cpu(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    return sdpa_impl(ctx, a[0].t, a[1].t, a[2].t, na > 5 ? &a[5] : NULL, a[3].f, a[4].i != 0, na > 6 ? &a[6] : NULL, false, &out[0],
                     no > 1 ? &out[1] : NULL);
}

/* ======================================================================
 * recurrent layers (lstm.input, gru.input, rnn_tanh.input, rnn_relu.input);
 * inference semantics. RNN.cpp's CPU path: the input projection of every
 * step at once (x W_ih^T + b_ih), then per step h W_hh^T + b_hh and the
 * cell: LSTM gates i, f, g, o; GRU r, z, n (b_hn inside r * (...)); the
 * simple cells tanh / relu of the sum.
 * ====================================================================== */

static inline double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

enum { RNN_LSTM = EIR_RNN_LSTM, RNN_GRU = EIR_RNN_GRU, RNN_TANH = EIR_RNN_TANH, RNN_RELU = EIR_RNN_RELU };
static const char *const rnn_names[] = {"lstm", "gru", "rnn_tanh", "rnn_relu"};

typedef struct rnn_cfg {
    int mode;                                 /* RNN_LSTM ... */
    bool lstm, has_biases, bidir, batch_first;
    int64_t layers, T, B, In, H, Hout, per;   /* per: params per (layer, direction) */
} rnn_cfg;

/* rnn_dir for float32 (eir_kernels_fast): the input projection here, the
 * steps in float32 in recurrent.c. Wi ... Wr contiguous float32. */
static int rnn_dir_f32(eir_kctx *ctx, const rnn_cfg *c, const float *Wi, const float *Wh, const float *bi, const float *bh,
                       const float *Wr, const void *X, int64_t In, void *Y, int64_t ycols, int64_t dcol, bool reverse,
                       const eir_tview *h0, const eir_tview *c0, const eir_tview *hn, const eir_tview *cn) {
    int64_t G = (c->lstm ? 4 : c->mode == RNN_GRU ? 3 : 1) * c->H, T = c->T, B = c->B, H = c->H, Hout = c->Hout;
    float *gx = eir_kalloc((size_t)(T * B * G + 1) * sizeof(float)), *hb = eir_kalloc((size_t)(B * Hout + 1) * sizeof(float));
    float *cb = c->lstm ? eir_kalloc((size_t)(B * H + 1) * sizeof(float)) : NULL;
    int rc = 0;
    if (!gx || !hb || (c->lstm && !cb)) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    cgemm(EIR_F32, false, true, T * B, G, In, X, Wi, false, gx);
    eir_tview hv = contig_view(hb, EIR_F32, 2, (int64_t[]){B, Hout}), cv;
    copy_view(&hv, h0);
    if (c->lstm) { cv = contig_view(cb, EIR_F32, 2, (int64_t[]){B, H}); copy_view(&cv, c0); }
    eir_rnn_f32 r = {c->mode, T, B, H, Hout, gx, Wh, bi, bh, Wr, hb, cb, Y, ycols, dcol, reverse};
    if (eir_rnn_run_f32(ctx, &r)) { rc = -1; goto done; }
    if (T > 0) { /* the last step's h: its row of Y */
        hv.data = (float *)Y + (reverse ? 0 : T - 1) * B * ycols + dcol;
        hv.strides[0] = ycols;
    }
    copy_view(hn, &hv);
    if (c->lstm) copy_view(cn, &cv);
done:
    eir_kfree(gx); eir_kfree(hb); eir_kfree(cb);
    return rc;
}

/* One layer and direction. X (T, B, In) contiguous ct; Y (T, B, D*Hout) gets columns [dcol, dcol+Hout). */
static int rnn_dir(eir_kctx *ctx, const rnn_cfg *c, eir_dtype ct, const eir_tview *const *prm, const void *X, int64_t In,
                   void *Y, int64_t ycols, int64_t dcol, bool reverse, const eir_tview *h0, const eir_tview *c0,
                   const eir_tview *hn, const eir_tview *cn) {
    int64_t G = (c->lstm ? 4 : c->mode == RNN_GRU ? 3 : 1) * c->H, T = c->T, B = c->B, H = c->H, Hout = c->Hout;
    size_t es = eir_elsize(ct);
    void *owi = NULL, *owh = NULL, *obi = NULL, *obh = NULL, *owr = NULL;
    const void *Wi = as_contig(prm[0], ct, &owi), *Wh = as_contig(prm[1], ct, &owh);
    const void *bi = c->has_biases ? as_contig(prm[2], ct, &obi) : NULL, *bh = c->has_biases ? as_contig(prm[3], ct, &obh) : NULL;
    const void *Wr = c->per == (c->has_biases ? 5 : 3) ? as_contig(prm[c->per - 1], ct, &owr) : NULL;
    if (ct == EIR_F32 && eir_kernels_fast) {
        int rc = 0;
        if (!Wi || !Wh || (c->has_biases && (!bi || !bh)) || (c->per == (c->has_biases ? 5 : 3) && !Wr)) rc = eir_kerr(ctx, "out of memory");
        else rc = rnn_dir_f32(ctx, c, Wi, Wh, bi, bh, Wr, X, In, Y, ycols, dcol, reverse, h0, c0, hn, cn);
        eir_kfree(owi); eir_kfree(owh); eir_kfree(obi); eir_kfree(obh); eir_kfree(owr);
        return rc;
    }
    double *gx = eir_kalloc((size_t)(T * B * G + 1) * sizeof(double));
    void *gxc = eir_kalloc((size_t)(T * B * G + 1) * es), *gh = eir_kalloc((size_t)(B * G + 1) * es);
    void *h = eir_kalloc((size_t)(B * Hout + 1) * es), *hfull = eir_kalloc((size_t)(B * H + 1) * es);
    double *cc = eir_kalloc((size_t)(B * H + 1) * sizeof(double));
    int rc = 0;
    if (!Wi || !Wh || (c->has_biases && (!bi || !bh)) || !gx || !gxc || !gh || !h || !hfull || !cc) { rc = eir_kerr(ctx, "out of memory"); goto done; }
#define LD(p, i) (ct == EIR_F32 ? (double)((const float *)(p))[i] : ((const double *)(p))[i])
#define ST(p, i, v) do { if (ct == EIR_F32) ((float *)(p))[i] = (float)(v); else ((double *)(p))[i] = (v); } while (0)
    /* input projection for every step: (T*B, In) @ Wi^T */
    cgemm(ct, false, true, T * B, G, In, X, Wi, false, gxc);
    for (int64_t i = 0; i < T * B; i++)
        for (int64_t j = 0; j < G; j++) gx[i * G + j] = LD(gxc, i * G + j) + (bi ? LD(bi, j) : 0) + (bh && c->mode != RNN_GRU ? LD(bh, j) : 0);
    {
        eir_tview hv = contig_view(h, ct, 2, (int64_t[]){B, Hout});
        copy_view(&hv, h0);
        if (c->lstm) {
            for (int64_t b = 0; b < B; b++)
                for (int64_t j = 0; j < H; j++) {
                    int64_t idx[2] = {b, j};
                    cc[b * H + j] = eir_load_f64(eir_tview_at(c0, idx), c0->dtype);
                }
        }
    }
    for (int64_t s = 0; s < T; s++) {
        int64_t t = reverse ? T - 1 - s : s;
        cgemm(ct, false, true, B, G, Hout, h, Wh, false, gh);
        for (int64_t b = 0; b < B; b++) {
            const double *g = gx + (t * B + b) * G;
            for (int64_t j = 0; j < H; j++) {
                if (c->lstm) {
                    double gi = sigm(g[j] + LD(gh, b * G + j)), gf = sigm(g[H + j] + LD(gh, b * G + H + j));
                    double gg = tanh(g[2 * H + j] + LD(gh, b * G + 2 * H + j)), go = sigm(g[3 * H + j] + LD(gh, b * G + 3 * H + j));
                    double cv = gf * cc[b * H + j] + gi * gg;
                    cc[b * H + j] = cv;
                    ST(hfull, b * H + j, go * tanh(cv));
                } else if (c->mode == RNN_TANH) {
                    ST(hfull, b * H + j, tanh(g[j] + LD(gh, b * G + j)));
                } else if (c->mode == RNN_RELU) {
                    double v = g[j] + LD(gh, b * G + j);
                    ST(hfull, b * H + j, v > 0 ? v : isnan(v) ? v : 0.0);
                } else {
                    double bhr = bh ? LD(bh, j) : 0, bhz = bh ? LD(bh, H + j) : 0, bhn = bh ? LD(bh, 2 * H + j) : 0;
                    double rr = sigm(g[j] + LD(gh, b * G + j) + bhr), zz = sigm(g[H + j] + LD(gh, b * G + H + j) + bhz);
                    double nn = tanh(g[2 * H + j] + rr * (LD(gh, b * G + 2 * H + j) + bhn));
                    ST(hfull, b * H + j, (1 - zz) * nn + zz * LD(h, b * H + j));
                }
            }
        }
        if (Wr) cgemm(ct, false, true, B, Hout, H, hfull, Wr, false, h);
        else memcpy(h, hfull, (size_t)(B * H) * es);
        for (int64_t b = 0; b < B; b++)
            memcpy((char *)Y + (size_t)((t * B + b) * ycols + dcol) * es, (char *)h + (size_t)(b * Hout) * es, (size_t)Hout * es);
    }
    {
        eir_tview hv = contig_view(h, ct, 2, (int64_t[]){B, Hout});
        copy_view(hn, &hv);
        if (c->lstm)
            for (int64_t b = 0; b < B; b++)
                for (int64_t j = 0; j < H; j++) {
                    int64_t idx[2] = {b, j};
                    eir_store_f64(eir_tview_at(cn, idx), cn->dtype, cc[b * H + j]);
                }
    }
#undef LD
#undef ST
done:
    eir_kfree(owi); eir_kfree(owh); eir_kfree(obi); eir_kfree(obh); eir_kfree(owr);
    eir_kfree(gx); eir_kfree(gxc); eir_kfree(gh); eir_kfree(h); eir_kfree(hfull); eir_kfree(cc);
    return rc;
}

/* args from `first`: params, has_biases, num_layers, dropout, train, bidirectional, batch_first */
static int rnn_common(eir_kctx *ctx, int mode, const eir_tview *input, const eir_tview *h0all, const eir_tview *c0all,
                      const eir_karg *a, eir_tview *out, uint32_t no) {
    rnn_cfg c;
    bool lstm = mode == RNN_LSTM;
    const char *nm = rnn_names[mode];
    c.mode = mode;
    c.lstm = lstm;
    const eir_karg *params = &a[0];
    c.has_biases = a[1].i != 0;
    c.layers = a[2].i;
    c.bidir = a[5].i != 0;
    c.batch_first = a[6].i != 0;
    if (a[4].i && a[3].f != 0) return eir_kerr(ctx, "%s: dropout in training mode is not supported", nm);
    int64_t D = c.bidir ? 2 : 1;
    if (params->kind != EIR_KA_TENSORS || c.layers < 1 || params->n % (uint32_t)(c.layers * D))
        return eir_kerr(ctx, "%s: bad parameter list", nm);
    c.per = params->n / (c.layers * D);
    if (c.per != (c.has_biases ? 4 : 2) && !(lstm && c.per == (c.has_biases ? 5 : 3)))
        return eir_kerr(ctx, "%s: bad parameter list", nm);
    eir_tview x = *input, y = out[0], hn = out[1], cn, h0v = *h0all, c0v;
    if (lstm) { cn = out[2]; c0v = *c0all; }
    bool unbatched = x.rank == 2;
    if (unbatched) {
        x = unsqueeze(&x, 1); y = unsqueeze(&y, 1); hn = unsqueeze(&hn, 1); h0v = unsqueeze(&h0v, 1);
        if (lstm) { cn = unsqueeze(&cn, 1); c0v = unsqueeze(&c0v, 1); }
    } else if (c.batch_first) {
        eir_tview t = x; x.sizes[0] = t.sizes[1]; x.sizes[1] = t.sizes[0]; x.strides[0] = t.strides[1]; x.strides[1] = t.strides[0];
        t = y; y.sizes[0] = t.sizes[1]; y.sizes[1] = t.sizes[0]; y.strides[0] = t.strides[1]; y.strides[1] = t.strides[0];
    }
    if (x.rank != 3) return eir_kerr(ctx, "%s: input must have 2 or 3 dimensions, got %d", nm, input->rank);
    c.T = x.sizes[0]; c.B = x.sizes[1]; c.In = x.sizes[2];
    c.Hout = hn.sizes[2];
    c.H = lstm ? cn.sizes[2] : hn.sizes[2];
    eir_dtype ct = ctype_of(x.dtype);
    if (ct != EIR_F32 && ct != EIR_F64) return eir_kerr(ctx, "%s: unsupported dtype %s", nm, dname(x.dtype));
    size_t es = eir_elsize(ct);
    int64_t F = D * c.Hout;
    void *xo = NULL;
    const void *X = as_contig(&x, ct, &xo);
    void *Ya = eir_kalloc((size_t)(c.T * c.B * F + 1) * es), *Yb = eir_kalloc((size_t)(c.T * c.B * F + 1) * es);
    int rc = 0;
    if (!X || !Ya || !Yb) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    const void *Lin = X;
    int64_t In = c.In;
    void *Yl = Ya;
    for (int64_t l = 0; l < c.layers; l++) {
        for (int64_t d = 0; d < D; d++) {
            int64_t li = l * D + d;
            eir_tview h0 = slice0(&h0v, li), hnl = slice0(&hn, li), c0, cnl;
            if (lstm) { c0 = slice0(&c0v, li); cnl = slice0(&cn, li); }
            if (rnn_dir(ctx, &c, ct, params->ts + li * c.per, Lin, In, Yl, F, d * c.Hout, d == 1, &h0, lstm ? &c0 : NULL, &hnl,
                        lstm ? &cnl : NULL)) { rc = -1; goto done; }
        }
        Lin = Yl;
        In = F;
        Yl = Yl == Ya ? Yb : Ya;
    }
    {
        eir_tview yv = contig_view((void *)Lin, ct, 3, (int64_t[]){c.T, c.B, F});
        if (c.T * c.B * F > 0) copy_view(&y, &yv);
    }
done:
    eir_kfree(xo); eir_kfree(Ya); eir_kfree(Yb);
    return rc;
}

/* lstm.input(input, hx[h0, c0], params, has_biases, num_layers, dropout, train, bidirectional, batch_first) */
static int k_lstm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (a[1].kind != EIR_KA_TENSORS || a[1].n != 2 || no < 3) return eir_kerr(ctx, "lstm: expected hx = [h0, c0]");
    return rnn_common(ctx, RNN_LSTM, a[0].t, a[1].ts[0], a[1].ts[1], &a[2], out, no);
}

/* gru.input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) */
static int k_gru(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (no < 2) return eir_kerr(ctx, "gru: expected two outputs");
    return rnn_common(ctx, RNN_GRU, a[0].t, a[1].t, NULL, &a[2], out, no);
}

/* rnn_tanh.input / rnn_relu.input(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first) */
static int k_rnn_tanh(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (no < 2) return eir_kerr(ctx, "rnn_tanh: expected two outputs");
    return rnn_common(ctx, RNN_TANH, a[0].t, a[1].t, NULL, &a[2], out, no);
}
static int k_rnn_relu(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (no < 2) return eir_kerr(ctx, "rnn_relu: expected two outputs");
    return rnn_common(ctx, RNN_RELU, a[0].t, a[1].t, NULL, &a[2], out, no);
}

/* One step of a cell: rnn_tanh_cell / rnn_relu_cell / gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)
 * and lstm_cell(input, [hx, cx], ...) -> (hy, cy): the layer loop above with one step, one
 * direction. input (B, In) or unbatched (In); a missing bias counts as zeros. */
static int rnn_cell(eir_kctx *ctx, int mode, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no) {
    const char *nm = mode == RNN_LSTM ? "lstm_cell" : mode == RNN_GRU ? "gru_cell" : mode == RNN_TANH ? "rnn_tanh_cell" : "rnn_relu_cell";
    bool lstm = mode == RNN_LSTM;
    if (na < 4 || a[0].kind != EIR_KA_TENSOR || a[2].kind != EIR_KA_TENSOR || a[3].kind != EIR_KA_TENSOR || no < (lstm ? 2u : 1u))
        return eir_kerr(ctx, "%s: bad arguments", nm);
    if (lstm ? (a[1].kind != EIR_KA_TENSORS || a[1].n != 2 || !a[1].ts[0] || !a[1].ts[1]) : a[1].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "%s: bad hidden state", nm);
    const eir_tview *x = a[0].t, *hx = lstm ? a[1].ts[0] : a[1].t, *cx = lstm ? a[1].ts[1] : NULL, *wi = a[2].t, *wh = a[3].t;
    const eir_tview *bi = na > 4 && a[4].kind == EIR_KA_TENSOR ? a[4].t : NULL, *bh = na > 5 && a[5].kind == EIR_KA_TENSOR ? a[5].t : NULL;
    int64_t G = (lstm ? 4 : mode == RNN_GRU ? 3 : 1);
    if (x->rank != 1 && x->rank != 2) return eir_kerr(ctx, "%s: Expected input to be 1D or 2D, got %dD instead", nm, x->rank);
    if (wi->rank != 2 || wh->rank != 2 || wh->sizes[0] % G || wh->sizes[1] * G != wh->sizes[0] || wi->sizes[0] != wh->sizes[0] ||
        wi->sizes[1] != x->sizes[x->rank - 1])
        return eir_kerr(ctx, "%s: the weights do not fit the input", nm);
    rnn_cfg c;
    memset(&c, 0, sizeof c);
    c.mode = mode;
    c.lstm = lstm;
    c.has_biases = bi || bh;
    c.per = c.has_biases ? 4 : 2;
    c.layers = 1;
    c.T = 1;
    c.B = x->rank == 2 ? x->sizes[0] : 1;
    c.In = x->sizes[x->rank - 1];
    c.H = c.Hout = wh->sizes[1];
    eir_tview xv; /* (T = 1, B, In) */
    if (x->rank == 2) xv = unsqueeze(x, 0);
    else { eir_tview t = unsqueeze(x, 0); xv = unsqueeze(&t, 0); }
    eir_tview h0 = hx->rank == 1 ? unsqueeze(hx, 0) : *hx, hn = out[0].rank == 1 ? unsqueeze(&out[0], 0) : out[0], c0, cn;
    if (h0.rank != 2 || h0.sizes[0] != c.B || h0.sizes[1] != c.H || hn.rank != 2 || hn.sizes[0] != c.B || hn.sizes[1] != c.H)
        return eir_kerr(ctx, "%s: the hidden state does not fit (batch %lld, hidden size %lld)", nm, (long long)c.B, (long long)c.H);
    if (lstm) {
        c0 = cx->rank == 1 ? unsqueeze(cx, 0) : *cx;
        cn = out[1].rank == 1 ? unsqueeze(&out[1], 0) : out[1];
        if (c0.rank != 2 || c0.sizes[0] != c.B || c0.sizes[1] != c.H || cn.rank != 2 || cn.sizes[0] != c.B || cn.sizes[1] != c.H)
            return eir_kerr(ctx, "%s: the cell state does not fit", nm);
    }
    eir_dtype ct = ctype_of(x->dtype);
    if (ct != EIR_F32 && ct != EIR_F64) return eir_kerr(ctx, "%s: unsupported dtype %s", nm, dname(x->dtype));
    size_t es = eir_elsize(ct);
    int64_t GH = G * c.H;
    void *xo = NULL, *zb = NULL, *Y = eir_kalloc((size_t)(c.B * c.H + 1) * es);
    const void *X = as_contig(&xv, ct, &xo);
    int rc = 0;
    eir_tview zv;
    if (c.has_biases && (!bi || !bh)) { /* the missing one as zeros */
        zb = eir_kalloc((size_t)(GH + 1) * es);
        if (zb) { memset(zb, 0, (size_t)(GH + 1) * es); zv = contig_view(zb, ct, 1, &GH); }
    }
    if (!X || !Y || (c.has_biases && (!bi || !bh) && !zb)) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    {
        const eir_tview *prm[4] = {wi, wh, bi ? bi : &zv, bh ? bh : &zv};
        rc = rnn_dir(ctx, &c, ct, prm, X, c.In, Y, c.H, 0, false, &h0, lstm ? &c0 : NULL, &hn, lstm ? &cn : NULL);
    }
done:
    eir_kfree(xo); eir_kfree(zb); eir_kfree(Y);
    return rc;
}
static int k_lstm_cell(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) { return rnn_cell(ctx, RNN_LSTM, a, na, out, no); }
static int k_gru_cell(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) { return rnn_cell(ctx, RNN_GRU, a, na, out, no); }
static int k_rnn_tanh_cell(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) { return rnn_cell(ctx, RNN_TANH, a, na, out, no); }
static int k_rnn_relu_cell(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) { return rnn_cell(ctx, RNN_RELU, a, na, out, no); }

const eir_kernel_entry eir_kernels_nn[] = {
    {"aten.mm.default", k_mm},
    {"aten.bmm.default", k_bmm},
    {"aten.addmm.default", k_addmm},
    {"aten.addmv.default", k_addmv},
    {"aten.mv.default", k_mv},
    {"aten.dot.default", k_dot},
    {"aten.matmul.default", k_matmul},
    {"aten.linear.default", k_linear},
    {"aten.baddbmm.default", k_baddbmm},
    {"aten.convolution.default", k_convolution},
    {"aten.conv1d.default", k_convNd},
    {"aten.conv2d.default", k_convNd},
    {"aten.conv3d.default", k_convNd},
    {"aten.conv1d.padding", k_convNd},
    {"aten.conv2d.padding", k_convNd},
    {"aten.conv3d.padding", k_convNd},
    {"aten.conv_transpose1d.default", k_conv_transpose},
    {"aten.conv_transpose2d.input", k_conv_transpose},
    {"aten.conv_transpose3d.input", k_conv_transpose},
    {"aten.max_pool2d.default", k_max_pool2d},
    {"aten.max_pool2d_with_indices.default", k_max_pool2d_with_indices},
    {"eir_cpu.max_pool2d.default", k_max_pool2d},      /* the Backend dialect's: values only */
    {"aten.avg_pool2d.default", k_avg_pool2d},
    {"aten.adaptive_avg_pool2d.default", k_adaptive_avg_pool2d},
    {"aten._adaptive_avg_pool2d.default", k_adaptive_avg_pool2d},
    {"aten.adaptive_max_pool2d.default", k_adaptive_max_pool2d},
    {"aten.embedding.default", k_embedding},
    {"aten.scaled_dot_product_attention.default", k_sdpa},
    {"aten._scaled_dot_product_flash_attention_for_cpu.default", k_sdpa_flash_cpu},
    {"aten.lstm.input", k_lstm},
    {"eir_cpu.lstm.default", k_lstm},      /* the Backend dialect's aten.lstm, kept whole */
    {"aten.gru.input", k_gru},
    {"aten.rnn_tanh.input", k_rnn_tanh},
    {"aten.rnn_relu.input", k_rnn_relu},
    {"aten.lstm_cell.default", k_lstm_cell},
    {"aten.gru_cell.default", k_gru_cell},
    {"aten.rnn_tanh_cell.default", k_rnn_tanh_cell},
    {"aten.rnn_relu_cell.default", k_rnn_relu_cell},
    {NULL, NULL},
};

/* ======================================================================
 * entry points of the fused kernels (fused.c)
 * ====================================================================== */

int eir_nn_conv(eir_kctx *ctx, const eir_tview *x, const eir_tview *w, const eir_tview *bias, const int64_t *stride,
                const int64_t *pad, const int64_t *dil, int64_t groups, eir_tview *out) {
    return conv_impl(ctx, x, w, bias, stride, pad, dil, false, groups, out, NULL);
}

int eir_nn_conv_epi(eir_kctx *ctx, const eir_tview *x, const eir_tview *w, const eir_tview *bias, const int64_t *stride,
                    const int64_t *pad, const int64_t *dil, int64_t groups, eir_tview *out, const eir_conv_epi *epi) {
    return conv_impl(ctx, x, w, bias, stride, pad, dil, false, groups, out, epi);
}

int eir_nn_gemm(eir_kctx *ctx, const eir_tview *A, const eir_tview *B, const eir_tview *bias, const eir_tview *C) {
    return gemm_views(ctx, A, B, bias, C, 1, bias ? 1 : 0, 1, bias ? 1 : 0);
}

int eir_nn_sdpa(eir_kctx *ctx, const eir_tview *q, const eir_tview *k, const eir_tview *v, const eir_tview *mask,
                double scale, eir_tview *out) {
    eir_karg m, s;
    memset(&m, 0, sizeof m);
    memset(&s, 0, sizeof s);
    m.kind = mask ? EIR_KA_TENSOR : EIR_KA_NONE;
    m.t = mask;
    s.kind = EIR_KA_FLOAT;
    s.f = scale;
    return sdpa_impl(ctx, q, k, v, &m, 0.0, false, &s, false, out, NULL);
}
