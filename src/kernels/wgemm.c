/* wgemm.c — C = X W^T (+ bias) for a linear layer of few rows, reading the weight W (N x K) as it
 * is stored.
 *
 * The weight is the large operand (GPT-2's LM head: 50257 x 768, 154 MB) and X the small one (the
 * tokens: 64 x 768 in the benchmarks). X is packed once per product, transposed into chunks of 64
 * rows (xt[k][0..63], the rows past M zero), and the kernel walks W six rows at a time: for each
 * k it broadcasts W[n][k] of its six rows and multiplies them into the chunk's 64 values of column
 * k, 24 AVX-512 accumulators (6 rows x 4 vectors of 16). W is read once, row by row, where it lies
 * (a mapped archive's pages included): no transposed copy, no packing of the weight, so a first run
 * reads nothing a later run does not. Each row is prefetched 1 KiB ahead, and near a tile's end the
 * next tile's rows (without it the LM head read its weight at 3.3 GB/s from memory, against the
 * 11 GB/s one core reads). Past K = 512 a group of 8 tiles runs k-block by k-block, the accumulators
 * kept between blocks. Each element of C is the chain of FMAs over k in order, then the bias: the
 * bits do not depend on how the tiles are shared among threads, or on how M and K are cut.
 * A weight packed ahead in panels (eir_cpu::linear_packed) stays with oneDNN: read six columns side
 * by side, K pages apart, the panels ran the GPT-2 decoder 2.3x slower.
 *
 * Measured on an Intel Xeon with AVX-512 (228 GFLOP/s float32 FMA a core): docs/GEMM.md, "Linear
 * layers of few rows from the weight as stored". */
#include "wgemm.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../base/pool.h"
#include "kutil.h"

enum {
    WG_R = 6,          /* rows of W (columns of C) a tile */
    WG_MC = 64,        /* rows of X a chunk: 4 vectors of 16 */
    WG_BLOCK = 1 << 19, /* bytes of packed X a tile's rows are run against before the next tile */
    WG_AHEAD = 256,     /* prefetch distance in k: 1 KiB of each row in flight */
    WG_KB = 512,        /* k-block when K is larger (the packed X of a chunk's k-block: 128 KiB) */
    WG_GROUP = 8        /* tiles run against one k-block before the next */
};

static pthread_once_t wg_once = PTHREAD_ONCE_INIT;
static bool wg_default; /* the environment's choice, or the CPU's */
static bool wg_cpu_ok;  /* AVX-512F */
static int wg_mode = -1; /* eir_wgemm_set: -1 the default, 0 off, 1 on */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "transpose8.h"

static void wg_read(void) { wg_default = eir_avx512_kernel_default("EIR_WGEMM", &wg_cpu_ok); }

/* The tile: a<r><j> = sum over k of w[r][k] * xt[k][16 j .. 16 j + 15] for the J vectors of the
 * chunk; out[r] gets row r's sums (those past 16 J unset). pf: the next tile's rows, prefetched a
 * line a row every 16 k, or NULL. Spelled out accumulator by accumulator (J a constant in each
 * instance) so that all 24 stay in registers. */
#define WG_ROW(r)                                                                                                   \
    do {                                                                                                            \
        __m512 b = _mm512_set1_ps(w##r[k]);                                                                         \
        a##r##0 = _mm512_fmadd_ps(x0, b, a##r##0);                                                                  \
        if (J > 1) a##r##1 = _mm512_fmadd_ps(x1, b, a##r##1);                                                       \
        if (J > 2) a##r##2 = _mm512_fmadd_ps(x2, b, a##r##2);                                                       \
        if (J > 3) a##r##3 = _mm512_fmadd_ps(x3, b, a##r##3);                                                       \
    } while (0)
#define WG_OUT(r)                                                                                                   \
    do {                                                                                                            \
        _mm512_storeu_ps(&out[r][0], a##r##0);                                                                      \
        if (J > 1) _mm512_storeu_ps(&out[r][16], a##r##1);                                                          \
        if (J > 2) _mm512_storeu_ps(&out[r][32], a##r##2);                                                          \
        if (J > 3) _mm512_storeu_ps(&out[r][48], a##r##3);                                                          \
    } while (0)
#define WG_ACC(r)                                                                                                   \
    __m512 a##r##0 = in ? _mm512_loadu_ps(&in[r][0]) : z, a##r##1 = in && J > 1 ? _mm512_loadu_ps(&in[r][16]) : z,  \
           a##r##2 = in && J > 2 ? _mm512_loadu_ps(&in[r][32]) : z, a##r##3 = in && J > 3 ? _mm512_loadu_ps(&in[r][48]) : z
#define WG_TILE(JJ, NAME)                                                                                           \
    __attribute__((target("avx512f"))) static void NAME(const float *xt, int64_t K, const float *const *w,            \
                                                        const float *const *pf, const float (*in)[WG_MC],          \
                                                        float out[WG_R][WG_MC]) {                                   \
        enum { J = JJ };                                                                                            \
        const __m512 z = _mm512_setzero_ps();                                                                       \
        WG_ACC(0); WG_ACC(1); WG_ACC(2); WG_ACC(3); WG_ACC(4); WG_ACC(5);                                           \
        const float *w0 = w[0], *w1 = w[1], *w2 = w[2], *w3 = w[3], *w4 = w[4], *w5 = w[5];                         \
        for (int64_t k = 0; k < K; k++) {                                                                           \
            if ((k & 15) == 0) { /* a line of each row every 16 k, WG_AHEAD k ahead */                              \
                int64_t kk = k + WG_AHEAD;                                                                          \
                if (kk < K)                                                                                         \
                    for (int r = 0; r < WG_R; r++) _mm_prefetch((const char *)(w[r] + kk), _MM_HINT_T0);           \
                else if (pf && kk - K < K)                                                                          \
                    for (int r = 0; r < WG_R; r++) _mm_prefetch((const char *)(pf[r] + (kk - K)), _MM_HINT_T0);    \
            }                                                                                                       \
            const float *xk = xt + k * WG_MC;                                                                       \
            __m512 x0 = _mm512_loadu_ps(xk), x1 = J > 1 ? _mm512_loadu_ps(xk + 16) : z,                             \
                   x2 = J > 2 ? _mm512_loadu_ps(xk + 32) : z, x3 = J > 3 ? _mm512_loadu_ps(xk + 48) : z;            \
            WG_ROW(0); WG_ROW(1); WG_ROW(2); WG_ROW(3); WG_ROW(4); WG_ROW(5);                                       \
        }                                                                                                           \
        WG_OUT(0); WG_OUT(1); WG_OUT(2); WG_OUT(3); WG_OUT(4); WG_OUT(5);                                           \
    }
WG_TILE(1, wg_tile1)
WG_TILE(2, wg_tile2)
WG_TILE(3, wg_tile3)
WG_TILE(4, wg_tile4)
#undef WG_TILE
#undef WG_ACC
#undef WG_OUT
#undef WG_ROW

typedef struct wg_job {
    int64_t M, N, K, ldw, ldc, bstride, tiles, items, chunks_per_block;
    const float *xt, *W, *bias;
    float *C;
} wg_job;

/* The columns of C tile t covers: [*n0, *n0 + return value). */
static int64_t wg_cols(const wg_job *j, int64_t t, int64_t *n0) {
    *n0 = t * WG_R;
    return j->N - *n0 < WG_R ? j->N - *n0 : WG_R;
}

/* The weight rows of tile t (past N: the last row again) from column k0. */
static void wg_rows(const wg_job *j, int64_t t, int64_t k0, const float **w) {
    int64_t n0, nr = wg_cols(j, t, &n0);
    for (int r = 0; r < WG_R; r++) w[r] = j->W + (n0 + (r < nr ? r : nr - 1)) * j->ldw + k0;
}

static void wg_run(const float *xt, int64_t K, const float *const *w, const float *const *pf, int64_t mc,
                   const float (*in)[WG_MC], float out[WG_R][WG_MC]) {
    switch ((mc + 15) / 16) {
    case 1: wg_tile1(xt, K, w, pf, in, out); break;
    case 2: wg_tile2(xt, K, w, pf, in, out); break;
    case 3: wg_tile3(xt, K, w, pf, in, out); break;
    default: wg_tile4(xt, K, w, pf, in, out); break;
    }
}

/* Tile t's sums for chunk c (out[r][m]: C's row m0 + m, column n0 + r; rows 6 and 7 of out are
 * padding) into C, the bias added: 8 x 8 blocks of out transposed, then each row of C receives its
 * nr values with one masked store. */
__attribute__((target("avx512f,avx512vl"))) static void wg_store(const wg_job *j, int64_t t, int64_t c,
                                                                  const float (*out)[WG_MC]) {
    int64_t n0, nr = wg_cols(j, t, &n0);
    int64_t m0 = c * WG_MC, mc = j->M - m0 < WG_MC ? j->M - m0 : WG_MC;
    __mmask8 k = (__mmask8)((1u << nr) - 1);
    float bv[8] = {0};
    if (j->bias)
        for (int64_t r = 0; r < nr; r++) bv[r] = j->bias[(n0 + r) * j->bstride];
    __m256 b = _mm256_loadu_ps(bv);
    float tb[8][8] __attribute__((aligned(32)));
    for (int64_t m = 0; m < mc; m += 8) {
        eir_transpose8(&tb[0][0], 8, &out[0][m], WG_MC);
        int64_t e = mc - m < 8 ? mc - m : 8;
        for (int64_t q = 0; q < e; q++) {
            __m256 v = _mm256_loadu_ps(tb[q]);
            if (j->bias) v = _mm256_add_ps(v, b);
            _mm256_mask_storeu_ps(j->C + (m0 + m + q) * j->ldc + n0, k, v);
        }
    }
}

/* Tiles [t0, t1) of the item range. Per block of X chunks, per group of WG_GROUP tiles, per block of
 * WG_KB columns of k: each chunk's k-block of packed X (128 KiB, in L2) against the group's tiles,
 * their accumulators kept in acc between k-blocks (exact floats: the chain of FMAs goes on). Up to
 * K = WG_KB, each tile's rows against the block's chunks in turn. */
static void wg_items(void *ctx, int64_t i0, int64_t i1) {
    const wg_job *j = ctx;
    int64_t t0 = j->tiles * i0 / j->items, t1 = j->tiles * i1 / j->items;
    int64_t nchunks = (j->M + WG_MC - 1) / WG_MC, cpb = j->chunks_per_block;
    float out[8][WG_MC] __attribute__((aligned(64))); /* rows 6 and 7: wg_store's padding */
    memset(out[WG_R], 0, sizeof out - sizeof out[0] * WG_R);
    float (*acc)[WG_R][WG_MC] = NULL;
    bool kblocks = j->K > WG_KB;
    void *abuf = NULL;
    if (kblocks && !(abuf = eir_kalloc(sizeof *acc * (size_t)(WG_GROUP * cpb) + 64))) kblocks = false;
    if (abuf) acc = (float(*)[WG_R][WG_MC])(((uintptr_t)abuf + 63) & ~(uintptr_t)63);
    const float *w[WG_R], *pf[WG_R];
    for (int64_t c0 = 0; c0 < nchunks; c0 += cpb) {
        int64_t c1 = c0 + cpb < nchunks ? c0 + cpb : nchunks;
        if (!kblocks) {
            for (int64_t t = t0; t < t1; t++) {
                wg_rows(j, t, 0, w);
                if (t + 1 < t1) wg_rows(j, t + 1, 0, pf);
                for (int64_t c = c0; c < c1; c++) {
                    wg_run(j->xt + c * j->K * WG_MC, j->K, w, t + 1 < t1 && c == c0 ? pf : NULL, j->M - c * WG_MC, NULL,
                           out);
                    wg_store(j, t, c, (const float(*)[WG_MC])out);
                }
            }
            continue;
        }
        for (int64_t g0 = t0; g0 < t1; g0 += WG_GROUP) {
            int64_t g1 = g0 + WG_GROUP < t1 ? g0 + WG_GROUP : t1;
            for (int64_t k0 = 0; k0 < j->K; k0 += WG_KB) {
                int64_t kn = j->K - k0 < WG_KB ? j->K - k0 : WG_KB;
                bool first = k0 == 0, last = k0 + kn == j->K;
                for (int64_t c = c0; c < c1; c++) {
                    const float *xt = j->xt + (c * j->K + k0) * WG_MC;
                    for (int64_t t = g0; t < g1; t++) {
                        wg_rows(j, t, k0, w);
                        /* the next tile's segment of these columns; past the group's last tile, the
                         * next group's first (its first k-block is at least as long as this one) */
                        bool next = c == c0 && (t + 1 < g1 || (last && t + 1 < t1));
                        if (next) wg_rows(j, t + 1, t + 1 < g1 ? k0 : 0, pf);
                        float(*a)[WG_MC] = acc[(t - g0) * cpb + (c - c0)];
                        wg_run(xt, kn, w, next ? pf : NULL, j->M - c * WG_MC, first ? NULL : (const float(*)[WG_MC])a,
                               last ? out : a);
                        if (last) wg_store(j, t, c, (const float(*)[WG_MC])out);
                    }
                }
            }
        }
    }
    eir_kfree(abuf);
}

typedef struct wg_pack_job {
    const float *X;
    int64_t ldx, M, K;
    float *xt;
} wg_pack_job;

/* X^T by chunks of 64 rows (the rows past M zero), columns [64 b0, 64 b1) of k, in 64 x 64 tiles:
 * row-contiguous reads, writes within 16 KiB */
static void wg_pack(void *ctx, int64_t b0, int64_t b1) {
    const wg_pack_job *p = ctx;
    int64_t nchunks = (p->M + WG_MC - 1) / WG_MC;
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t m0 = c * WG_MC, mc = p->M - m0 < WG_MC ? p->M - m0 : WG_MC;
        float *dst = p->xt + c * p->K * WG_MC;
        for (int64_t k0 = 64 * b0; k0 < 64 * b1 && k0 < p->K; k0 += 64) {
            int64_t k1 = k0 + 64 < p->K ? k0 + 64 : p->K;
            for (int64_t m = 0; m < mc; m++) {
                const float *src = p->X + (m0 + m) * p->ldx;
                for (int64_t k = k0; k < k1; k++) dst[k * WG_MC + m] = src[k];
            }
            for (int64_t m = mc; m < WG_MC; m++)
                for (int64_t k = k0; k < k1; k++) dst[k * WG_MC + m] = 0.0f;
        }
    }
}

int eir_wgemm_f32(int64_t M, int64_t N, int64_t K, const float *X, int64_t ldx, const float *W, int64_t ldw,
                  const float *bias, int64_t bstride, float *C, int64_t ldc) {
    pthread_once(&wg_once, wg_read);
    if (!wg_cpu_ok) return -1;
    if (M <= 0 || N <= 0) return 0;
    if (K <= 0) {
        for (int64_t m = 0; m < M; m++)
            for (int64_t n = 0; n < N; n++) C[m * ldc + n] = bias ? bias[n * bstride] : 0.0f;
        return 0;
    }
    int64_t nchunks = (M + WG_MC - 1) / WG_MC;
    size_t bytes = (size_t)nchunks * (size_t)K * WG_MC * sizeof(float);
    /* eir_kalloc: the thread's cached scratch, so a run like the last takes nothing from the heap */
    void *xbuf = eir_kalloc(bytes + 64);
    if (!xbuf) return -1;
    float *xt = (float *)(((uintptr_t)xbuf + 63) & ~(uintptr_t)63);
    eir_pool *pool = eir_pool_current();
    wg_pack_job pk = {X, ldx, M, K, xt};
    eir_parallel_for(pool, (K + 63) / 64, 4, wg_pack, &pk);
    int64_t tiles = (N + WG_R - 1) / WG_R, items = 8 * (int64_t)eir_pool_threads(pool);
    if (items > tiles) items = tiles;
    int64_t per_block = (int64_t)(WG_BLOCK / ((size_t)(K < WG_KB ? K : WG_KB) * WG_MC * sizeof(float)));
    wg_job j = {M, N, K, ldw, ldc, bstride, tiles, items, per_block > 0 ? per_block : 1, xt, W, bias, C};
    eir_parallel_items(pool, items, wg_items, &j);
    eir_kfree(xbuf);
    return 0;
}

#else /* no AVX-512 intrinsics: never on */

static void wg_read(void) {}

int eir_wgemm_f32(int64_t M, int64_t N, int64_t K, const float *X, int64_t ldx, const float *W, int64_t ldw,
                  const float *bias, int64_t bstride, float *C, int64_t ldc) {
    return -1;
}
#endif

bool eir_wgemm_enabled(void) {
    pthread_once(&wg_once, wg_read);
    return wg_cpu_ok && (wg_mode < 0 ? wg_default : wg_mode == 1);
}

void eir_wgemm_set(int mode) { wg_mode = mode < 0 ? -1 : mode ? 1 : 0; }
