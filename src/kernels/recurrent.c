/* recurrent.c — the float32 time loop of the recurrent layers (recurrent.h):
 * per step the product of the previous h with W_hh, the gate math on
 * contiguous float rows, and the LSTM projection, without allocating.
 *
 * torch's CPU LSTM / GRU / RNN compute float32 inputs in float32, cell state
 * included; so does this loop. The gate math calls vmath.h's exp and tanh
 * (within 1.5 and 2 ulp of the exact functions) in loops the compiler
 * vectorises; sigmoid is 1 / (1 + exp(-x)) as torch's vectorised sigmoid.
 * The biases b_ih + b_hh are summed once per call (GRU: b_hn stays inside
 * r * (h W_hn^T + b_hn), as torch has it).
 *
 * The product h W_hh^T has M = batch rows, usually 1: a matrix-vector
 * product bound by reading W_hh (1 MiB for an LSTM of 256 units, more than
 * this CPU's L2) at every step. Up to RNN_GEMV_MAX_B rows it runs in
 * gemv_rows below, eight weight rows at a time with the next eight
 * prefetched, every other step from the last row to the first (measured on
 * this machine for 1024 x 256: 12.7 us a product, 13.5 us in one direction
 * only, against 17-19 us for dnnl_sgemm and cblas_sgemv); larger batches go
 * to eir_sgemm in one call per step.
 *
 * Threads: a step's units are cut into blocks of RNN_UB, and the blocks
 * (their rows of every gate, their gate math) are split over the pool of
 * the run in progress when a chunk gets at least RNN_CHUNK_MACS
 * multiply-adds; the projection likewise by its rows. A unit's value never
 * depends on the block it is computed in, so results are bit-identical at
 * any thread count.
 *
 * Built like fast.c: loop vectorisation on, and on x86-64 with gcc each loop
 * cloned for AVX-512, AVX2 and the portable SSE2 baseline, picked at load
 * time; contraction stays off (-std=c11), so every clone computes the same
 * bits. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "no-trapping-math")
#endif

#include <math.h>
#include <string.h>

#include "../base/pool.h"
#include "gemm.h"
#include "kutil.h"
#include "recurrent.h"
#include "vmath.h"

/* not under ThreadSanitizer (fast.c says why) */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define RNN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define RNN_CLONES
#endif

/* units per block; batch rows up to which gemv_rows does the product (at
 * batch 2 it took half the time of eir_sgemm, which repacks W_hh at every
 * call; at 4 about the same); the least work of a chunk when a step is split
 * over threads: 2^17 multiply-adds, some 8 us, splits the benchmark's LSTM
 * (256 units, 2^18 a step) in two halves, one a thread at 2 threads, each
 * half read by the same core step after step. Smaller chunks were slower at
 * 2 threads than at one; smaller layers stay on one thread. */
enum { RNN_UB = 8, RNN_GEMV_MAX_B = 4, RNN_CHUNK_MACS = 1 << 17 };

/* ======================================================================
 * y = h W^T for a few rows of h
 * ====================================================================== */

#if defined(__GNUC__) && !defined(__clang__)
#define RNN_VEC8 1
typedef float rnn_v8 __attribute__((vector_size(32)));
typedef int rnn_v8i __attribute__((vector_size(32)));

/* The eight row sums of eight accumulators into one vector, each sum
 * ((a0 + a4) + (a2 + a6)) + ((a1 + a5) + (a3 + a7)) as the one-row loop
 * below adds them. A macro: vector arguments of functions change the ABI
 * between the clones. */
#define RNN_HALVES(x, y) (__builtin_shuffle(x, y, (rnn_v8i){0, 1, 2, 3, 8, 9, 10, 11}) + \
                          __builtin_shuffle(x, y, (rnn_v8i){4, 5, 6, 7, 12, 13, 14, 15}))
#define RNN_PAIRS(x, y) (__builtin_shuffle(x, y, (rnn_v8i){0, 1, 8, 9, 4, 5, 12, 13}) + \
                         __builtin_shuffle(x, y, (rnn_v8i){2, 3, 10, 11, 6, 7, 14, 15}))
#define RNN_SUM8(out, a0, a1, a2, a3, a4, a5, a6, a7)                                                          \
    do {                                                                                                        \
        rnn_v8 c0_ = RNN_PAIRS(RNN_HALVES(a0, a1), RNN_HALVES(a2, a3));                                         \
        rnn_v8 c1_ = RNN_PAIRS(RNN_HALVES(a4, a5), RNN_HALVES(a6, a7));                                         \
        rnn_v8 d_ = __builtin_shuffle(c0_, c1_, (rnn_v8i){0, 2, 8, 10, 4, 6, 12, 14}) +                         \
                    __builtin_shuffle(c0_, c1_, (rnn_v8i){1, 3, 9, 11, 5, 7, 13, 15});                          \
        (out) = __builtin_shuffle(d_, (rnn_v8i){0, 4, 1, 5, 2, 6, 3, 7});                                       \
    } while (0)
#endif

/* y[b * ldy + i] = sum_k W[i * K + k] h[b * ldh + k] for one row i, b < B:
 * eight partial sums (lane l takes the k = l mod 8 below K8 = K - K mod 8),
 * added as ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7)), then
 * k = K8 .. K - 1 in order. */
RNN_CLONES static void gemv_row(const float *w, int64_t K, const float *h, int64_t ldh, int64_t B, float *y, int64_t ldy) {
    int64_t K8 = K & ~(int64_t)7;
    for (int64_t b = 0; b < B; b++) {
        const float *x = h + b * ldh;
        float a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int64_t k = 0; k < K8; k += 8)
            for (int l = 0; l < 8; l++) a[l] += w[k + l] * x[k + l];
        float t = ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
        for (int64_t k = K8; k < K; k++) t += w[k] * x[k];
        y[b * ldy] = t;
    }
}

/* The same for rows i < n, eight at a time where it can: each row's bits
 * are gemv_row's, whatever block it is summed in. rev: the rows from the
 * last to the first. The steps alternate the direction, so that a step
 * starts on the rows the step before read last, which are still in L2
 * (W_hh of 256 LSTM units is 1 MiB, twice this core's L2). */
RNN_CLONES static void gemv_rows(const float *W, int64_t n, int64_t K, const float *h, int64_t ldh, int64_t B, float *y,
                                 int64_t ldy, bool rev) {
    int64_t n8 = 0;
#ifdef RNN_VEC8
    n8 = n & ~(int64_t)7;
#endif
    if (rev)
        for (int64_t i = n - 1; i >= n8; i--) gemv_row(W + i * K, K, h, ldh, B, y + i, ldy);
#ifdef RNN_VEC8
    int64_t K8 = K & ~(int64_t)7, nb = n8 / 8;
    for (int64_t bi = 0; bi < nb; bi++) {
        int64_t i = (rev ? nb - 1 - bi : bi) * 8;
        const float *w = W + i * K;
        /* the next block's 8 K floats (in the direction of travel), 256 bytes a
         * k-step, fetched while this one is summed */
        const char *pf = (const char *)(bi + 1 < nb ? (rev ? w - 8 * K : w + 8 * K) : w);
        for (int64_t b = 0; b < B; b++) {
            const float *x = h + b * ldh;
            rnn_v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0}, xv, v;
            for (int64_t k = 0; k < K8; k += 8) {
                const char *p = pf + k * 32;
                __builtin_prefetch(p);
                __builtin_prefetch(p + 64);
                __builtin_prefetch(p + 128);
                __builtin_prefetch(p + 192);
                memcpy(&xv, x + k, sizeof xv);
#define RNN_ROW(r, acc) (memcpy(&v, w + (r) * K + k, sizeof v), acc += v * xv)
                RNN_ROW(0, a0); RNN_ROW(1, a1); RNN_ROW(2, a2); RNN_ROW(3, a3);
                RNN_ROW(4, a4); RNN_ROW(5, a5); RNN_ROW(6, a6); RNN_ROW(7, a7);
#undef RNN_ROW
            }
            rnn_v8 s;
            RNN_SUM8(s, a0, a1, a2, a3, a4, a5, a6, a7);
            if (K8 == K) { /* no tail to add: the eight sums as they are */
                memcpy(y + b * ldy + i, &s, sizeof s);
                continue;
            }
            float o[8];
            memcpy(o, &s, sizeof o);
            for (int r = 0; r < 8; r++) {
                float t = o[r];
                for (int64_t k = K8; k < K; k++) t += w[r * K + k] * x[k];
                y[b * ldy + i + r] = t;
            }
        }
    }
#endif
    if (!rev)
        for (int64_t i = n8; i < n; i++) gemv_row(W + i * K, K, h, ldh, B, y + i, ldy);
}

/* ======================================================================
 * the cells, on n units of one batch row: gx, gh, bs start at the first
 * unit; gate q of unit u is at [q H + u]
 * ====================================================================== */

static inline float sigmoidf_(float a) { return 1.0f / (1.0f + vm_expf(-a)); }

RNN_CLONES static void cell_lstm(int64_t n, int64_t H, const float *restrict gx, const float *restrict bs,
                                 const float *restrict gh, float *restrict c, float *restrict h) {
    for (int64_t u = 0; u < n; u++) {
        float gi = sigmoidf_((gx[u] + bs[u]) + gh[u]);
        float gf = sigmoidf_((gx[H + u] + bs[H + u]) + gh[H + u]);
        float gg = vm_tanhf((gx[2 * H + u] + bs[2 * H + u]) + gh[2 * H + u]);
        float go = sigmoidf_((gx[3 * H + u] + bs[3 * H + u]) + gh[3 * H + u]);
        float cv = gf * c[u] + gi * gg;
        c[u] = cv;
        h[u] = go * vm_tanhf(cv);
    }
}

/* h = (hp - n) z + n, as torch's GRU cell */
RNN_CLONES static void cell_gru(int64_t n, int64_t H, const float *restrict gx, const float *restrict bs,
                                const float *restrict bhn, const float *restrict gh, const float *restrict hp,
                                float *restrict h) {
    for (int64_t u = 0; u < n; u++) {
        float r = sigmoidf_((gx[u] + bs[u]) + gh[u]);
        float z = sigmoidf_((gx[H + u] + bs[H + u]) + gh[H + u]);
        float nn = vm_tanhf((gx[2 * H + u] + bs[2 * H + u]) + (gh[2 * H + u] + bhn[u]) * r);
        h[u] = (hp[u] - nn) * z + nn;
    }
}

RNN_CLONES static void cell_tanh(int64_t n, const float *restrict gx, const float *restrict bs, const float *restrict gh,
                                 float *restrict h) {
    for (int64_t u = 0; u < n; u++) h[u] = vm_tanhf((gx[u] + bs[u]) + gh[u]);
}

RNN_CLONES static void cell_relu(int64_t n, const float *restrict gx, const float *restrict bs, const float *restrict gh,
                                 float *restrict h) {
    for (int64_t u = 0; u < n; u++) {
        float v = (gx[u] + bs[u]) + gh[u];
        h[u] = v > 0.0f ? v : v != v ? v : 0.0f;
    }
}

/* ======================================================================
 * the steps
 * ====================================================================== */

typedef struct rnn_step {
    const eir_rnn_f32 *r;
    int64_t nq, G, t;
    const float *hp;    /* the previous h, (B, Hout), rows ldh apart */
    int64_t ldh;
    float *gh;          /* (B, G) */
    bool gh_done;       /* gh already holds h W_hh^T (one GEMM for the step) */
    bool rev;           /* W_hh's rows from the last (every other step) */
    const float *bs;    /* (G): b_ih + b_hh (GRU n rows: b_in); then b_hn (H) */
    float *ho;          /* this step's h (before the projection), (B, H), rows ldo apart */
    int64_t ldo;
} rnn_step;

static void step_units(void *vj, int64_t b0, int64_t b1) {
    const rnn_step *j = vj;
    const eir_rnn_f32 *r = j->r;
    int64_t H = r->H, B = r->B, G = j->G, u0 = b0 * RNN_UB, u1 = b1 * RNN_UB < H ? b1 * RNN_UB : H, n = u1 - u0;
    if (!j->gh_done)
        for (int64_t qi = 0; qi < j->nq; qi++) {
            int64_t q = j->rev ? j->nq - 1 - qi : qi;
            gemv_rows(r->Wh + (q * H + u0) * r->Hout, n, r->Hout, j->hp, j->ldh, B, j->gh + q * H + u0, G, j->rev);
        }
    for (int64_t b = 0; b < B; b++) {
        const float *gx = r->gx + (j->t * B + b) * G + u0, *gh = j->gh + b * G + u0, *bs = j->bs + u0;
        float *ho = j->ho + b * j->ldo + u0;
        switch (r->mode) {
        case EIR_RNN_LSTM: cell_lstm(n, H, gx, bs, gh, r->c + b * H + u0, ho); break;
        case EIR_RNN_GRU: cell_gru(n, H, gx, bs, j->bs + G + u0, gh, j->hp + b * j->ldh + u0, ho); break;
        case EIR_RNN_TANH: cell_tanh(n, gx, bs, gh, ho); break;
        default: cell_relu(n, gx, bs, gh, ho); break;
        }
    }
}

typedef struct rnn_proj {
    const eir_rnn_f32 *r;
    const float *hf;    /* (B, H) */
    float *y;           /* (B, Hout), rows ycols apart */
} rnn_proj;

static void step_proj(void *vj, int64_t b0, int64_t b1) {
    const rnn_proj *j = vj;
    const eir_rnn_f32 *r = j->r;
    int64_t o0 = b0 * RNN_UB, o1 = b1 * RNN_UB < r->Hout ? b1 * RNN_UB : r->Hout;
    gemv_rows(r->Wr + o0 * r->H, o1 - o0, r->H, j->hf, r->H, r->B, j->y + o0, r->ycols, false);
}

static int64_t grain_for(int64_t macs_per_block) {
    if (macs_per_block <= 0) return 1; /* an empty batch or row: the blocks do nothing */
    return macs_per_block >= RNN_CHUNK_MACS ? 1 : (RNN_CHUNK_MACS + macs_per_block - 1) / macs_per_block;
}

int eir_rnn_run_f32(eir_kctx *ctx, const eir_rnn_f32 *r) {
    int64_t nq = r->mode == EIR_RNN_LSTM ? 4 : r->mode == EIR_RNN_GRU ? 3 : 1, H = r->H, B = r->B, Hout = r->Hout;
    int64_t G = nq * H;
    bool blas = B > RNN_GEMV_MAX_B && G > 0 && Hout > 0;
    float *bs = eir_kalloc((size_t)(G + H + 1) * sizeof(float)), *gh = eir_kalloc((size_t)(B * G + 1) * sizeof(float));
    float *hf = r->Wr ? eir_kalloc((size_t)(B * H + 1) * sizeof(float)) : NULL;
    if (!bs || !gh || (r->Wr && !hf)) {
        eir_kfree(bs); eir_kfree(gh); eir_kfree(hf);
        return eir_kerr(ctx, "out of memory");
    }
    for (int64_t k = 0; k < G + H; k++) bs[k] = 0.0f;
    if (r->bi) {
        for (int64_t k = 0; k < G; k++) bs[k] = r->mode == EIR_RNN_GRU && k >= 2 * H ? r->bi[k] : r->bi[k] + r->bh[k];
        if (r->mode == EIR_RNN_GRU) memcpy(bs + G, r->bh + 2 * H, (size_t)H * sizeof(float));
    }
    eir_pool *pool = eir_pool_current();
    int64_t nub = (H + RNN_UB - 1) / RNN_UB, nob = (Hout + RNN_UB - 1) / RNN_UB;
    int64_t ugrain = grain_for(B * nq * RNN_UB * Hout), ograin = grain_for(B * RNN_UB * H);
    rnn_step j = {r, nq, G, 0, r->h0, Hout, gh, blas, false, bs, NULL, 0};
    for (int64_t s = 0; s < r->T; s++) {
        int64_t t = r->reverse ? r->T - 1 - s : s;
        float *yrow = r->Y + t * B * r->ycols + r->dcol;
        j.t = t;
        j.rev = s & 1;
        j.ho = r->Wr ? hf : yrow;
        j.ldo = r->Wr ? H : r->ycols;
        if (blas)
            eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)B, (int)G, (int)Hout, 1.0f, j.hp, (int)j.ldh, r->Wh,
                      (int)Hout, 0.0f, gh, (int)G);
        eir_parallel_for(pool, nub, ugrain, step_units, &j);
        if (r->Wr) {
            if (blas)
                eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)B, (int)Hout, (int)H, 1.0f, hf, (int)H, r->Wr, (int)H,
                          0.0f, yrow, (int)r->ycols);
            else {
                rnn_proj pj = {r, hf, yrow};
                eir_parallel_for(pool, nob, ograin, step_proj, &pj);
            }
        }
        j.hp = yrow;
        j.ldh = r->ycols;
    }
    eir_kfree(bs); eir_kfree(gh); eir_kfree(hf);
    return 0;
}

/* ======================================================================
 * y = x W^T + bias for a few rows of x (eir_gemv_f32, recurrent.h)
 * ====================================================================== */

typedef struct gemv_job {
    const float *W, *x, *bias;
    int64_t N, K, ldx, M;
    float *y;
    int64_t ldy;
} gemv_job;

/* y[m * ldy + i] = sum_k W[i * K + k] x[m * ldx + k] for rows i < n, m < M, for a weight that comes
 * from memory at every call (a classifier or a squeeze-and-excitation layer, read once per image):
 * the rows cut into eight equal runs and summed eight at a time, one row of each run, so that the
 * weight is read as eight sequential streams at once. One core's reads from memory go faster with
 * more streams in flight: on the Intel Xeon of docs/BENCHMARKS.md a 1280 x 960 weight read from
 * memory takes 320 us this way, 405 us with gemv_rows' eight adjacent rows and 430 us as one
 * stream (a row after the other); from L3 all three are within 5%. From L1 or L2 it is up to 1.3x
 * slower than gemv_rows when K is short (960 x 240: 11 against 9 us), hence GEMV_SPREAD_BYTES.
 * Each row's bits are gemv_row's, as in gemv_rows. */
#ifdef RNN_VEC8
RNN_CLONES static void gemv_spread(const float *W, int64_t n, int64_t K, const float *x, int64_t ldx, int64_t M,
                                   float *y, int64_t ldy) {
    int64_t R = n / 8, K8 = K & ~(int64_t)7;
    for (int64_t g = 0; g < R; g++) {
        const float *w[8];
        for (int r = 0; r < 8; r++) w[r] = W + (g + r * R) * K;
        for (int64_t m = 0; m < M; m++) {
            const float *xm = x + m * ldx;
            rnn_v8 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0}, a5 = {0}, a6 = {0}, a7 = {0}, xv, v;
            for (int64_t k = 0; k < K8; k += 8) {
                memcpy(&xv, xm + k, sizeof xv);
#define RNN_RUN(r, acc) (memcpy(&v, w[r] + k, sizeof v), acc += v * xv)
                RNN_RUN(0, a0); RNN_RUN(1, a1); RNN_RUN(2, a2); RNN_RUN(3, a3);
                RNN_RUN(4, a4); RNN_RUN(5, a5); RNN_RUN(6, a6); RNN_RUN(7, a7);
#undef RNN_RUN
            }
            rnn_v8 s;
            float o[8];
            RNN_SUM8(s, a0, a1, a2, a3, a4, a5, a6, a7);
            memcpy(o, &s, sizeof o);
            for (int r = 0; r < 8; r++) {
                float t = o[r];
                for (int64_t k = K8; k < K; k++) t += w[r][k] * xm[k];
                y[m * ldy + g + r * R] = t;
            }
        }
    }
    for (int64_t i = 8 * R; i < n; i++) gemv_row(W + i * K, K, x, ldx, M, y + i, ldy);
}
#else
/* without GCC's vector shuffles: gemv_rows, the same bits */
static void gemv_spread(const float *W, int64_t n, int64_t K, const float *x, int64_t ldx, int64_t M, float *y,
                        int64_t ldy) {
    gemv_rows(W, n, K, x, ldx, M, y, ldy, false);
}
#endif

enum { GEMV_SPREAD_BYTES = 256 << 10 };

static void gemv_blocks(void *vj, int64_t b0, int64_t b1) {
    const gemv_job *j = vj;
    int64_t o0 = b0 * RNN_UB, o1 = b1 * RNN_UB < j->N ? b1 * RNN_UB : j->N;
    /* the kernel chosen by the whole weight's size: the same for every block */
    if ((double)j->N * (double)j->K * sizeof(float) >= GEMV_SPREAD_BYTES)
        gemv_spread(j->W + o0 * j->K, o1 - o0, j->K, j->x, j->ldx, j->M, j->y + o0, j->ldy);
    else
        gemv_rows(j->W + o0 * j->K, o1 - o0, j->K, j->x, j->ldx, j->M, j->y + o0, j->ldy, false);
    if (j->bias)
        for (int64_t m = 0; m < j->M; m++)
            for (int64_t o = o0; o < o1; o++) j->y[m * j->ldy + o] += j->bias[o];
}

void eir_gemv_f32(const float *W, int64_t N, int64_t K, const float *x, int64_t ldx, int64_t M, const float *bias, float *y,
                  int64_t ldy) {
    if (M <= 0 || N <= 0) return; /* y is empty */
    gemv_job j = {W, x, bias, N, K, ldx, M, y, ldy};
    eir_parallel_for(eir_pool_current(), (N + RNN_UB - 1) / RNN_UB, grain_for(M * RNN_UB * K), gemv_blocks, &j);
}
