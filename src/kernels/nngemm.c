/* nngemm.c — C = A B (then an epilogue) for tens to hundreds of rows of A against a B packed once,
 * AVX-512 (nngemm.h).
 *
 * B (K x N) is packed in strips of 64 columns, each strip K rows of 64 floats, contiguous: read
 * as stored, a strip's rows would be N floats apart and fall in a few of L1's sets (for N = 256 the
 * Winograd products ran at half the speed). The columns of C go strip by strip and K by blocks of
 * 128 within a strip, so that B is read once, in order, as one stream, a strip's block (32 KiB)
 * staying in L1 while every tile of rows runs against it, the strip's columns of C in L1 / L2; the
 * rows go by tiles of at most 6, their sizes evened out (49 rows: 9 tiles of 5 or 6). For each k
 * a tile broadcasts its rows' A values against the strip's 4 vectors: up to 24 accumulators, 4
 * loads of B and 6 broadcasts per 24 FMAs. Between k-blocks the sums go through C, stored and
 * loaded exactly. Each element is one chain of FMAs over k in order from 0, so the tiles' sizes,
 * the k-blocks and the masked last vector do not change its bits; the epilogue is float32 steps
 * in a fixed order, applied once, after the last k-block. Measurements: docs/GEMM.md, "The
 * Winograd convolution's products". */
#include "nngemm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/pool.h"
#include "gemm.h"
#include "kutil.h"
#include "wgemm.h"

enum {
    NN_ROWS = 6,   /* rows of A a tile, at most */
    NN_STRIP = 64, /* columns of a packed strip: 4 vectors of 16 */
    NN_KB = 128    /* k-block: a strip's rows of it, 32 KiB, stay in L1 from tile to tile */
};

/* eir_nngemm_linear_f32's blocks of strips for the pool: at least this many FLOPs each */
#define NN_LIN_FLOPS 4e6

static pthread_once_t nn_once = PTHREAD_ONCE_INIT;
static bool nn_default; /* the environment's choice, or the CPU's */
static bool nn_cpu_ok;  /* AVX-512F */
static int nn_mode = -1; /* eir_nngemm_set: -1 the default, 0 off, 1 on */

int64_t eir_nngemm_packed_floats(int64_t K, int64_t N) { return (N + NN_STRIP - 1) / NN_STRIP * NN_STRIP * K; }

void eir_nngemm_pack(int64_t K, int64_t N, const float *B, int64_t ldb, float *P) {
    for (int64_t j0 = 0; j0 < N; j0 += NN_STRIP) {
        float *s = P + j0 * K;
        int64_t w = N - j0 < NN_STRIP ? N - j0 : NN_STRIP;
        for (int64_t k = 0; k < K; k++) {
            memcpy(s + k * NN_STRIP, B + k * ldb + j0, (size_t)w * sizeof *s);
            memset(s + k * NN_STRIP + w, 0, (size_t)(NN_STRIP - w) * sizeof *s);
        }
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

static void nn_read(void) { nn_default = eir_avx512_kernel_default("EIR_NNGEMM", &nn_cpu_ok); }

/* The epilogue of the vector of sums v of row i, columns j .. j + 15 (those of m) */
__attribute__((target("avx512f"), always_inline)) static inline __m512 nn_epi(__m512 v, const eir_nngemm_epi *ep,
                                                                              int64_t i, int64_t j, __mmask16 m) {
    if (ep->bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, ep->bias + j));
    if (ep->res) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, ep->res + i * ep->ldr + j));
    __m512 z = _mm512_setzero_ps();
    switch (ep->act) {
    case EIR_NNGEMM_RELU: /* v < 0 ? 0 : v */
        return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, z, _CMP_LT_OQ), z);
    case EIR_NNGEMM_CLIP: {
        __m512 lo = _mm512_set1_ps(ep->lo), hi = _mm512_set1_ps(ep->hi);
        v = _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, lo, _CMP_LT_OQ), lo);
        return _mm512_mask_mov_ps(v, _mm512_cmp_ps_mask(v, hi, _CMP_GT_OQ), hi);
    }
    case EIR_NNGEMM_HARDSWISH: {
        __m512 six = _mm512_set1_ps(6.0f), t = _mm512_add_ps(v, _mm512_set1_ps(3.0f));
        t = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(t, z, _CMP_GT_OQ), t);   /* t > 0 ? t : 0 */
        t = _mm512_mask_mov_ps(six, _mm512_cmp_ps_mask(t, six, _CMP_LT_OQ), t); /* t < 6 ? t : 6 */
        return _mm512_div_ps(_mm512_mul_ps(v, t), six);
    }
    default: return v;
    }
}

/* One tile: R rows (a constant in each instance) by J vectors of 16 columns (1 to 4; a constant
 * too), over kc values of k from p (a strip's k-block: rows of 64 floats); the last vector's
 * columns those of mask m. first: the sums start from 0, else from C (the previous k-block's,
 * stored exactly: the same chain of FMAs as in one block). Spelled out accumulator by
 * accumulator, so that all 24 stay in registers (an array of them was written back to the stack
 * at every k). */
#define NN_ROW(r)                                                                                                    \
    if (R > r) {                                                                                                     \
        __m512 x = _mm512_set1_ps(A[r * lda + k]);                                                                   \
        c##r = _mm512_fmadd_ps(x, b0, c##r);                                                                         \
        if (J > 1) d##r = _mm512_fmadd_ps(x, b1, d##r);                                                              \
        if (J > 2) e##r = _mm512_fmadd_ps(x, b2, e##r);                                                              \
        if (J > 3) f##r = _mm512_fmadd_ps(x, b3, f##r);                                                              \
    }
#define NN_VEC(j) (j + 1 == J ? m : (__mmask16)0xffff)
#define NN_IN(r)                                                                                                     \
    if (R > r) {                                                                                                     \
        c##r = _mm512_maskz_loadu_ps(NN_VEC(0), C + r * ldc);                                                        \
        if (J > 1) d##r = _mm512_maskz_loadu_ps(NN_VEC(1), C + r * ldc + 16);                                        \
        if (J > 2) e##r = _mm512_maskz_loadu_ps(NN_VEC(2), C + r * ldc + 32);                                        \
        if (J > 3) f##r = _mm512_maskz_loadu_ps(NN_VEC(3), C + r * ldc + 48);                                        \
    }
#define NN_FIN(v, r, jv) (ep ? nn_epi(v, ep, i0 + r, j0 + 16 * jv, NN_VEC(jv)) : v)
#define NN_OUT(r)                                                                                                    \
    if (R > r) {                                                                                                     \
        _mm512_mask_storeu_ps(C + r * ldc, NN_VEC(0), NN_FIN(c##r, r, 0));                                           \
        if (J > 1) _mm512_mask_storeu_ps(C + r * ldc + 16, NN_VEC(1), NN_FIN(d##r, r, 1));                           \
        if (J > 2) _mm512_mask_storeu_ps(C + r * ldc + 32, NN_VEC(2), NN_FIN(e##r, r, 2));                           \
        if (J > 3) _mm512_mask_storeu_ps(C + r * ldc + 48, NN_VEC(3), NN_FIN(f##r, r, 3));                           \
    }
#define NN_TILE(RR, JJ)                                                                                              \
    __attribute__((target("avx512f"))) static void nn_tile_##RR##_##JJ(                                             \
        bool first, int64_t kc, const float *A, int64_t lda, const float *p, float *C, int64_t ldc, __mmask16 m,     \
        const eir_nngemm_epi *ep, int64_t i0, int64_t j0, const char *pf, int64_t npf) {                             \
        enum { R = RR, J = JJ };                                                                                     \
        __m512 c0, c1, c2, c3, c4, c5, d0, d1, d2, d3, d4, d5, e0, e1, e2, e3, e4, e5, f0, f1, f2, f3, f4, f5;       \
        c0 = c1 = c2 = c3 = c4 = c5 = _mm512_setzero_ps();                                                           \
        d0 = d1 = d2 = d3 = d4 = d5 = e0 = e1 = e2 = e3 = e4 = e5 = f0 = f1 = f2 = f3 = f4 = f5 = c0;                \
        if (!first) {                                                                                                \
            NN_IN(0) NN_IN(1) NN_IN(2) NN_IN(3) NN_IN(4) NN_IN(5)                                                    \
        }                                                                                                            \
        for (int64_t k = 0; k < kc; k++) {                                                                           \
            const float *b = p + k * NN_STRIP;                                                                       \
            if (npf > 0 && !(k & 1)) {                                                                               \
                _mm_prefetch(pf, _MM_HINT_T1);                                                                       \
                pf += 64;                                                                                            \
                npf--;                                                                                               \
            }                                                                                                        \
            __m512 b0 = _mm512_loadu_ps(b), b1 = b0, b2 = b0, b3 = b0;                                               \
            if (J > 1) b1 = _mm512_loadu_ps(b + 16);                                                                 \
            if (J > 2) b2 = _mm512_loadu_ps(b + 32);                                                                 \
            if (J > 3) b3 = _mm512_loadu_ps(b + 48);                                                                 \
            NN_ROW(0) NN_ROW(1) NN_ROW(2) NN_ROW(3) NN_ROW(4) NN_ROW(5)                                              \
        }                                                                                                            \
        NN_OUT(0) NN_OUT(1) NN_OUT(2) NN_OUT(3) NN_OUT(4) NN_OUT(5)                                                  \
    }
#define NN_TILES(J) NN_TILE(1, J) NN_TILE(2, J) NN_TILE(3, J) NN_TILE(4, J) NN_TILE(5, J) NN_TILE(6, J)
NN_TILES(1)
NN_TILES(2)
NN_TILES(3)
NN_TILES(4)

typedef void (*nn_tile_fn)(bool, int64_t, const float *, int64_t, const float *, float *, int64_t, __mmask16,
                           const eir_nngemm_epi *, int64_t, int64_t, const char *, int64_t);
#define NN_ROWFNS(J) {nn_tile_1_##J, nn_tile_2_##J, nn_tile_3_##J, nn_tile_4_##J, nn_tile_5_##J, nn_tile_6_##J}
static const nn_tile_fn nn_tiles[4][NN_ROWS] = {NN_ROWFNS(1), NN_ROWFNS(2), NN_ROWFNS(3), NN_ROWFNS(4)};

int eir_nngemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *P, float *C,
                   int64_t ldc, const eir_nngemm_epi *epi) {
    pthread_once(&nn_once, nn_read);
    if (!nn_cpu_ok) return -1;
    if (M <= 0 || N <= 0) return 0;
    if (K <= 0) { /* the sums are 0: the epilogue of zeros */
        static const float zeros[NN_STRIP];
        for (int64_t i = 0; i < M; i++)
            for (int64_t j0 = 0; j0 < N; j0 += NN_STRIP) {
                int64_t w = N - j0 < NN_STRIP ? N - j0 : NN_STRIP;
                int J = (int)((w + 15) / 16);
                __mmask16 m = (__mmask16)(w % 16 ? (1u << (w % 16)) - 1 : 0xffffu);
                nn_tiles[J - 1][0](true, 0, zeros, 0, zeros, C + i * ldc + j0, ldc, m, epi, i, j0, NULL, 0);
            }
        return 0;
    }
    int64_t tiles = (M + NN_ROWS - 1) / NN_ROWS;
    for (int64_t j0 = 0; j0 < N; j0 += NN_STRIP) {
        int64_t w = N - j0 < NN_STRIP ? N - j0 : NN_STRIP;
        int J = (int)((w + 15) / 16);
        __mmask16 m = (__mmask16)(w % 16 ? (1u << (w % 16)) - 1 : 0xffffu);
        for (int64_t k0 = 0; k0 < K; k0 += NN_KB) {
            int64_t kc = K - k0 < NN_KB ? K - k0 : NN_KB;
            const float *p = P + j0 * K + k0 * NN_STRIP;
            /* the next block of B, right after this one in P (the strip's next k-block, or the next
             * strip's first), fetched into L2 while this one runs from L1: each tile its share of
             * the lines, one every other k spread over its loop (all at the tile's start, the
             * prefetches waited for L1's fill buffers and held the FMAs up: 150-160 GFLOP/s on
             * 64 x 2304 x 768 against 180-190) */
            int64_t qn = k0 + kc < K ? (K - k0 - kc < NN_KB ? K - k0 - kc : NN_KB)
                       : j0 + NN_STRIP < N ? (K < NN_KB ? K : NN_KB) : 0;
            int64_t lines = qn * NN_STRIP / 16;
            const char *q = (const char *)(p + kc * NN_STRIP);
            for (int64_t t = 0; t < tiles; t++) {
                int64_t r0 = M * t / tiles, r1 = M * (t + 1) / tiles;
                int64_t l0 = lines * t / tiles, l1 = lines * (t + 1) / tiles;
                nn_tiles[J - 1][r1 - r0 - 1](k0 == 0, kc, A + r0 * lda + k0, lda, p, C + r0 * ldc + j0, ldc, m,
                                             k0 + kc == K ? epi : NULL, r0, j0, q + l0 * 64, l1 - l0);
            }
        }
    }
    return 0;
}

#else

static void nn_read(void) {}

int eir_nngemm_f32(int64_t M, int64_t N, int64_t K, const float *A, int64_t lda, const float *P, float *C,
                   int64_t ldc, const eir_nngemm_epi *epi) {
    (void)M, (void)N, (void)K, (void)A, (void)lda, (void)P, (void)C, (void)ldc, (void)epi;
    return -1;
}

#endif

/* ---- linear layers on a constant weight (nngemm.h) ---- */

typedef struct nn_lin_job {
    int64_t M, N, K, ldx, ldc, per; /* per: strips a block */
    const float *X, *P, *bias;
    float *C;
    _Atomic int failed;
} nn_lin_job;

static void nn_lin_blocks(void *ctx, int64_t b0, int64_t b1) {
    nn_lin_job *j = ctx;
    int64_t j0 = b0 * j->per * NN_STRIP, j1 = b1 * j->per * NN_STRIP < j->N ? b1 * j->per * NN_STRIP : j->N;
    if (j1 <= j0) return;
    eir_nngemm_epi ep = {j->bias ? j->bias + j0 : NULL, NULL, 0, EIR_NNGEMM_NONE, 0, 0};
    if (eir_nngemm_f32(j->M, j1 - j0, j->K, j->X, j->ldx, j->P + j0 * j->K, j->C + j0, j->ldc, j->bias ? &ep : NULL))
        j->failed = 1;
}

int eir_nngemm_linear_f32(int64_t M, int64_t N, int64_t K, const float *X, int64_t ldx, const float *W, int64_t ldw,
                          const float *bias, float *C, int64_t ldc) {
    if (!eir_nngemm_enabled() || M <= 0 || N <= 0 || K <= 0) return 0;
    const float *P = NULL;
    /* on more than one thread, wgemm from the weight as stored, in the same bits (docs/GEMM.md, "Linear
     * layers on eir's kernel": on two threads the products from the packed copies ran slower when
     * other processes ran between the runs) */
    eir_const_use use = eir_pool_threads(eir_pool_current()) <= 1 ? eir_sgemm_const_packed(W, N, K, ldw, &P)
                        : eir_sgemm_is_const(W, N, K, ldw)         ? EIR_CONST_FIRST
                                                                  : EIR_CONST_NONE;
    switch (use) {
    case EIR_CONST_NONE: return 0;
    case EIR_CONST_FIRST:
        return eir_wgemm_f32(M, N, K, X, ldx, W, ldw, bias, 1, C, ldc) ? -1 : 1;
    case EIR_CONST_PACKED: break;
    }
    /* blocks of whole strips over the pool, at least NN_LIN_FLOPS each: the same bits at any count */
    int64_t strips = (N + NN_STRIP - 1) / NN_STRIP;
    double strip_flops = 2.0 * (double)M * NN_STRIP * (double)K;
    int64_t per = strip_flops >= NN_LIN_FLOPS ? 1 : (int64_t)(NN_LIN_FLOPS / strip_flops) + 1;
    nn_lin_job j = {M, N, K, ldx, ldc, per, X, P, bias, C, 0};
    eir_parallel_for(eir_pool_current(), (strips + per - 1) / per, 1, nn_lin_blocks, &j);
    return j.failed ? -1 : 1;
}

bool eir_nngemm_enabled(void) {
    pthread_once(&nn_once, nn_read);
    return nn_cpu_ok && (nn_mode < 0 ? nn_default : nn_mode == 1);
}

void eir_nngemm_set(int mode) { nn_mode = mode < 0 ? -1 : mode ? 1 : 0; }
