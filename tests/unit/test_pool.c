/* test_pool.c — the thread pool (src/base/pool.c) and runs on several
 * threads: the pool's static chunks (every index once, chunk 0 on the
 * caller, at most T chunks, inline below the grain, nested loops inline,
 * workers asleep and woken), eir_runtime_set_threads, the threaded kernels
 * (convolution, matrix products, attention, pooling, batch and layer norm,
 * softmax, pointwise rows)
 * against the same kernels on one thread (bit for bit, on shapes above their
 * grains), and the committed fixtures and examples/mlp.pt2 run at 1, 2 and 3
 * threads with every loop split (eir_pool_split_all): the same bits. */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "base/pool.h"
#include "check.h"
#include "fixture.h"
#include "ktest.h"
#include "../../examples/custom_ops.c" /* eir_ops_init: kernels for the mylib fixtures */

static eir_library *ops_lib;

/* ---------------------------------------------------------------------- */
/* the pool                                                                 */

#define MAXN 5000

typedef struct visit {
    int count[MAXN];            /* times index i was visited */
    int64_t begin[64], end[64]; /* the chunks, in the order they finish (under mu) */
    pthread_t who[64];
    int nchunks;
    pthread_mutex_t mu;
} visit;

static void visit_fn(void *ctx, int64_t b, int64_t e) {
    visit *v = ctx;
    for (int64_t i = b; i < e; i++) v->count[i]++; /* chunks are disjoint: no two threads share an index */
    pthread_mutex_lock(&v->mu);
    if (v->nchunks < 64) {
        v->begin[v->nchunks] = b;
        v->end[v->nchunks] = e;
        v->who[v->nchunks] = pthread_self();
        v->nchunks++;
    }
    pthread_mutex_unlock(&v->mu);
}

/* grain < 0: eir_parallel_items (grain 1, each item its own chunk up to 4 items a thread) */
static void loop_once(eir_pool *pool, int64_t n, int64_t grain, int threads) {
    visit *v = calloc(1, sizeof *v);
    pthread_mutex_init(&v->mu, NULL);
    bool items = grain < 0;
    int most = threads > 1 ? 4 * threads : 1; /* up to 4 chunks a thread */
    int want = eir_pool_chunks(pool, n, items ? 1 : grain);
    if (items && pool && want == most && n > most && n <= 4 * most) want = (int)n;
    if (items) eir_parallel_items(pool, n, visit_fn, v);
    else eir_parallel_for(pool, n, grain, visit_fn, v);
    bool once = true;
    for (int64_t i = 0; i < n; i++) once &= v->count[i] == 1;
    CHECK(once);
    if (n == 0) {
        CHECK(v->nchunks == 0);
    } else {
        int64_t c = (n + (grain > 0 ? grain : 1) - 1) / (grain > 0 ? grain : 1);
        if (items && pool) CHECK(want == (c <= 4 * most ? (int)c : c < most ? (int)c : most));
        else CHECK(want == (c < most ? (int)c : most));
        CHECK(v->nchunks == want);
        /* static chunks: chunk k is [n k / c, n (k + 1) / c); chunk 0 runs on the caller */
        for (int k = 0; k < v->nchunks; k++) {
            int64_t b = v->begin[k], e = v->end[k];
            bool found = false;
            for (int q = 0; q < want; q++)
                if (b == n * q / want && e == n * (q + 1) / want) found = true;
            CHECK(found);
            if (b == 0) CHECK(pthread_equal(v->who[k], pthread_self()));
        }
    }
    pthread_mutex_destroy(&v->mu);
    free(v);
}

typedef struct nest {
    eir_pool *pool;
    atomic_int inner_chunks, inner_calls, wrong_pool; /* CHECK is not for workers: counters */
} nest;

static void inner_fn(void *ctx, int64_t b, int64_t e) {
    nest *n = ctx;
    (void)b; (void)e;
    atomic_fetch_add(&n->inner_calls, 1);
}

static void outer_fn(void *ctx, int64_t b, int64_t e) {
    nest *n = ctx;
    for (int64_t i = b; i < e; i++) {
        /* a loop inside a loop runs inline: one chunk, on this thread */
        atomic_fetch_add(&n->inner_chunks, eir_pool_chunks(n->pool, 1000, 1));
        if (eir_pool_current() != NULL) atomic_fetch_add(&n->wrong_pool, 1);
        eir_parallel_for(n->pool, 1000, 1, inner_fn, n);
    }
}

static void test_pool_basics(void) {
    CHECK(eir_pool_create(1) == NULL);
    CHECK(eir_pool_create(0) == NULL);
    CHECK(eir_pool_threads(NULL) == 1);
    CHECK(eir_pool_chunks(NULL, 1000, 1) == 1);
    /* no pool: inline */
    loop_once(NULL, 100, 1, 1);
    loop_once(NULL, 0, 1, 1);
    loop_once(NULL, 3, -1, 1);
    loop_once(NULL, 12, -1, 1);
    CHECK(eir_cpu_count() >= 1);
    for (int t = 2; t <= 4; t++) {
        eir_pool *pool = eir_pool_create(t);
        CHECK(pool != NULL);
        CHECK(eir_pool_threads(pool) == t);
        static const int64_t ns[] = {0, 1, 2, 3, 4, 5, 7, 100, 1001, MAXN};
        static const int64_t grains[] = {0, 1, 2, 7, 1000, 100000};
        for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
            for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) loop_once(pool, ns[i], grains[g], t);
        /* coarse items: one chunk each up to 4 a thread (12 of them at 2 threads: 12 chunks, not 8
         * of 1 and 2 items), then 4 chunks a thread again */
        static const int64_t items[] = {0, 1, 7, 8, 9, 12, 31, 32, 33, 40, 64, 65, 100};
        for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) loop_once(pool, items[i], -1, t);
        /* nested loops run inline */
        nest n = {pool, 0, 0, 0};
        eir_parallel_for(pool, 8, 1, outer_fn, &n);
        CHECK(atomic_load(&n.inner_chunks) == 8);
        CHECK(atomic_load(&n.inner_calls) == 8);
        CHECK(atomic_load(&n.wrong_pool) == 0);
        /* many loops in a row, then again after the workers have gone to sleep */
        for (int r = 0; r < 2000; r++) loop_once(pool, 1 + r % 50, 1, t);
        struct timespec ts = {0, 30 * 1000 * 1000};
        nanosleep(&ts, NULL);
        loop_once(pool, 100, 1, t);
        nanosleep(&ts, NULL);
        loop_once(pool, MAXN, 3, t);
        eir_pool_free(pool);
    }
    /* the pool installed on a thread, nested and restored */
    eir_pool *a = eir_pool_create(2), *b = eir_pool_create(3);
    CHECK(eir_pool_current() == NULL);
    eir_pool *p0 = eir_pool_enter(a);
    CHECK(p0 == NULL && eir_pool_current() == a);
    eir_pool *p1 = eir_pool_enter(b);
    CHECK(p1 == a && eir_pool_current() == b);
    eir_pool_leave(p1);
    CHECK(eir_pool_current() == a);
    eir_pool_leave(p0);
    CHECK(eir_pool_current() == NULL);
    eir_pool_free(a);
    eir_pool_free(b);
    eir_pool_free(NULL);
}

/* A worker that holds up its chunk does not hold up the others: the caller
 * claims them. Chunks run on other threads sleep 200 ms; the caller's take
 * no time, so it runs all but the one or two chunks a worker took. Then the
 * pool backs off after two such loops in a row: the loops that follow run
 * inline for a while (64 loops, 128 when the next try starves too); a loop
 * that had to wake its worker counts neither way. */
typedef struct stall {
    pthread_t caller;
    bool wait_worker;     /* the caller's chunk 0 waits (up to 2 s) for a worker to start one */
    atomic_int by_caller, by_others, visits[16];
} stall;

static void stall_fn(void *ctx, int64_t b, int64_t e) {
    stall *s = ctx;
    for (int64_t i = b; i < e; i++) atomic_fetch_add(&s->visits[i], 1);
    if (pthread_equal(pthread_self(), s->caller)) {
        atomic_fetch_add(&s->by_caller, 1);
        struct timespec ts = {0, 1000 * 1000};
        for (int k = 0; b == 0 && s->wait_worker && k < 2000 && atomic_load(&s->by_others) == 0; k++) nanosleep(&ts, NULL);
    } else {
        atomic_fetch_add(&s->by_others, 1);
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* a loop whose caller's chunk 0 waits (up to 2 s) for a worker to take one of the others: the
 * workers are awake when it returns (and, the pool entered, spin ~2 ms for the next loop) */
static void wake_fn(void *ctx, int64_t b, int64_t e) {
    atomic_int *woke = ctx;
    if (b > 0) {
        atomic_store(woke, 1);
        return;
    }
    struct timespec ts = {0, 100 * 1000};
    for (int k = 0; k < 20000 && !atomic_load(woke); k++) nanosleep(&ts, NULL);
}

static void wake_workers(eir_pool *pool) {
    atomic_int woke = 0;
    eir_parallel_for(pool, 8, 1, wake_fn, &woke);
}

/* Stalled loops of stall_fn, each started while the worker is awake, until the pool backs off
 * (two starved loops in a row; up to 24 loops, since the caller may be held up long enough for
 * the worker to fall asleep before one). *s is the last loop's. */
static void stall_awake(eir_pool *pool, stall *s) {
    wake_workers(pool);
    for (int k = 0; k < 24 && eir_pool_chunks(pool, 8, 1) == 8; k++) {
        memset(s, 0, sizeof *s);
        s->caller = pthread_self();
        s->wait_worker = true;
        eir_parallel_for(pool, 8, 1, stall_fn, s);
    }
    s->wait_worker = false;
}

static void test_pool_claims(void) {
    eir_pool_no_backoff = 0;
    eir_pool *pool = eir_pool_create(2);
    CHECK(pool != NULL);
    eir_pool *prev = eir_pool_enter(pool); /* as in a run: workers spin longer between loops */
    CHECK(eir_pool_chunks(pool, 8, 1) == 8);
    /* a loop that had to wake its worker does not count as starved, however long the wait (the
     * wake-up of an idle CPU can take milliseconds) */
    struct timespec ts = {0, 1000 * 1000};
    for (int k = 0; k < 2000 && eir_pool_sleeping(pool) < 1; k++) nanosleep(&ts, NULL);
    CHECK(eir_pool_sleeping(pool) == 1);
    stall *s = calloc(1, sizeof *s);
    s->caller = pthread_self();
    s->wait_worker = true;
    eir_parallel_for(pool, 8, 1, stall_fn, s);
    CHECK(atomic_load(&s->by_others) >= 1);
    CHECK(eir_pool_chunks(pool, 8, 1) == 8);
    /* the same with the worker awake (spinning) when the loop starts */
    stall_awake(pool, s);
    bool once = true;
    for (int i = 0; i < 8; i++) once &= atomic_load(&s->visits[i]) == 1;
    CHECK(once);
    CHECK(atomic_load(&s->by_caller) + atomic_load(&s->by_others) == 8);
    CHECK(atomic_load(&s->by_caller) >= 6 && atomic_load(&s->by_others) >= 1);
    /* the caller waited ~200 ms for a chunk after working ~0: the worker had no
     * core, as far as the pool can tell, so the next 64 loops run inline */
    CHECK(eir_pool_chunks(pool, 8, 1) == 1);
    memset(s, 0, sizeof *s);
    s->caller = pthread_self();
    eir_parallel_for(pool, 8, 1, stall_fn, s);
    CHECK(atomic_load(&s->by_caller) == 1 && atomic_load(&s->by_others) == 0);
    for (int i = 1; i < 64; i++) eir_parallel_for(pool, 8, 1, stall_fn, s);
    CHECK(atomic_load(&s->by_others) == 0);
    CHECK(eir_pool_chunks(pool, 8, 1) == 8); /* and then it tries again */
    /* starved again: inline again, for 64 loops or, when nothing but loops that woke the worker
     * (which count neither way) came between, twice as many */
    stall_awake(pool, s);
    CHECK(atomic_load(&s->by_others) >= 1);
    CHECK(eir_pool_chunks(pool, 8, 1) == 1);
    int inline_loops = 0;
    for (; inline_loops < 1000 && eir_pool_chunks(pool, 8, 1) == 1; inline_loops++)
        eir_parallel_for(pool, 8, 1, stall_fn, s);
    CHECK(inline_loops == 64 || inline_loops == 128);
    eir_pool_leave(prev);
    eir_pool_no_backoff = 1;                 /* as the rest of this file: every loop split */
    free(s);
    eir_pool_free(pool);
}

/* ---------------------------------------------------------------------- */
/* kernels: on a pool of 2 and 3 threads, the bits of one thread            */

static bool bits_equal(const eir_tview *a, const eir_tview *b, const char *what) {
    int64_t n = numel(a);
    size_t es = eir_elsize(a->dtype);
    for (int64_t k = 0; k < n; k++) {
        int64_t ia[EIR_MAX_RANK], ib[EIR_MAX_RANK];
        unravel(a, k, ia);
        unravel(b, k, ib);
        if (memcmp(eir_tview_at(a, ia), eir_tview_at(b, ib), es)) {
            fprintf(stderr, "  %s: element %lld differs\n", what, (long long)k);
            return false;
        }
    }
    return true;
}

/* op on one thread into ref[], then on pools of 2 and 3 threads into got[]: the same bits */
static void threads_same(const char *op, const eir_karg *a, uint32_t na, eir_tview *ref, eir_tview *got, uint32_t no) {
    CHECK(run(op, a, na, ref, no) == 0);
    for (int t = 2; t <= 3; t++) {
        eir_pool *pool = eir_pool_create(t);
        for (uint32_t k = 0; k < no; k++) fill_poison(&got[k]);
        eir_pool *prev = eir_pool_enter(pool);
        CHECK(run(op, a, na, got, no) == 0);
        eir_pool_leave(prev);
        for (uint32_t k = 0; k < no; k++) CHECK(bits_equal(&ref[k], &got[k], op));
        eir_pool_free(pool);
    }
}

static void test_kernels(void) {
    eir_blas_single_thread(); /* as a runtime would: OpenBLAS's own threads would change the bits */
    /* convolutions: im2col + blocked GEMM (ResNet-like), depthwise (MobileNet-like), with and without bias */
    static const int64_t shapes[][8] = {
        /* N, C, H, W, Cout, k, stride, groups */
        {1, 16, 28, 28, 32, 3, 1, 1},
        {2, 8, 30, 30, 16, 3, 2, 1},
        {1, 32, 20, 20, 32, 3, 1, 32},
        {2, 24, 17, 17, 24, 5, 2, 24},
        {1, 64, 7, 7, 128, 1, 1, 1},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const int64_t *s = shapes[i];
        int64_t k = s[5], st = s[6], g = s[7], pad = k / 2;
        int64_t oh = (s[2] + 2 * pad - k) / st + 1, ow = (s[3] + 2 * pad - k) / st + 1;
        int64_t xs[4] = {s[0], s[1], s[2], s[3]}, ws[4] = {s[4], s[1] / g, k, k}, ys[4] = {s[0], s[4], oh, ow};
        tt X = tnew(EIR_F32, 4, xs, 0), W = tnew(EIR_F32, 4, ws, 0), B = tnew(EIR_F32, 1, &s[4], 0);
        tt R = tnew(EIR_F32, 4, ys, 0), G = tnew(EIR_F32, 4, ys, 0);
        fill_rand(&X.v); fill_rand(&W.v); fill_rand(&B.v);
        int64_t sv[2] = {st, st}, pv[2] = {pad, pad}, dv[2] = {1, 1}, op0[2] = {0, 0};
        eir_karg a[9] = {KT(&X.v), KT(&W.v), i % 2 ? KN() : KT(&B.v), KIS(2, sv), KIS(2, pv), KIS(2, dv), KB(false),
                         KIS(2, op0), KI(g)};
        threads_same("aten.convolution.default", a, 9, &R.v, &G.v, 1);
        tfree(&X); tfree(&W); tfree(&B); tfree(&R); tfree(&G);
    }
    /* matrix products above the block threshold: by columns (wide) and by rows (tall) */
    static const int64_t mm[][3] = {{128, 768, 256}, {512, 49, 1024}, {64, 300, 640}};
    for (size_t i = 0; i < sizeof mm / sizeof mm[0]; i++) {
        int64_t as[2] = {mm[i][0], mm[i][2]}, bs[2] = {mm[i][2], mm[i][1]}, cs[2] = {mm[i][0], mm[i][1]};
        tt A = tnew(EIR_F32, 2, as, 0), B = tnew(EIR_F32, 2, bs, i == 2 ? 1 : 0), Bias = tnew(EIR_F32, 1, &mm[i][1], 0);
        tt R = tnew(EIR_F32, 2, cs, 0), G = tnew(EIR_F32, 2, cs, 0);
        fill_rand(&A.v); fill_rand(&B.v); fill_rand(&Bias.v);
        eir_karg a[2] = {KT(&A.v), KT(&B.v)};
        threads_same("aten.mm.default", a, 2, &R.v, &G.v, 1);
        eir_karg am[5] = {KT(&Bias.v), KT(&A.v), KT(&B.v), KI(1), KI(1)};
        threads_same("aten.addmm.default", am, 5, &R.v, &G.v, 1);
        tfree(&A); tfree(&B); tfree(&Bias); tfree(&R); tfree(&G);
    }
    /* attention: heads split over the threads */
    {
        int64_t qs[4] = {2, 6, 64, 32};
        tt Q = tnew(EIR_F32, 4, qs, 0), K = tnew(EIR_F32, 4, qs, 0), V = tnew(EIR_F32, 4, qs, 0);
        tt R = tnew(EIR_F32, 4, qs, 0), G = tnew(EIR_F32, 4, qs, 0);
        fill_rand(&Q.v); fill_rand(&K.v); fill_rand(&V.v);
        for (int causal = 0; causal < 2; causal++) {
            eir_karg a[8] = {KT(&Q.v), KT(&K.v), KT(&V.v), KN(), KF(0.0), KB(causal), KN(), KB(false)};
            threads_same("aten.scaled_dot_product_attention.default", a, 8, &R.v, &G.v, 1);
        }
        tfree(&Q); tfree(&K); tfree(&V); tfree(&R); tfree(&G);
    }
    /* float64 too */
    {
        int64_t as[2] = {96, 400}, bs[2] = {400, 256}, cs[2] = {96, 256};
        tt A = tnew(EIR_F64, 2, as, 0), B = tnew(EIR_F64, 2, bs, 0), R = tnew(EIR_F64, 2, cs, 0), G = tnew(EIR_F64, 2, cs, 0);
        fill_rand(&A.v); fill_rand(&B.v);
        eir_karg a[2] = {KT(&A.v), KT(&B.v)};
        threads_same("aten.mm.default", a, 2, &R.v, &G.v, 1);
        tfree(&A); tfree(&B); tfree(&R); tfree(&G);
    }
    /* pooling and batch norm over many planes */
    {
        int64_t xs[4] = {2, 32, 40, 40}, ys[4] = {2, 32, 20, 20}, ks[2] = {3, 3}, s2[2] = {2, 2}, p1[2] = {1, 1},
                d1[2] = {1, 1}, as[4] = {2, 32, 3, 3}, o3[2] = {3, 3}, C = 32;
        tt X = tnew(EIR_F32, 4, xs, 0), R = tnew(EIR_F32, 4, ys, 0), G = tnew(EIR_F32, 4, ys, 0);
        tt RI = tnew(EIR_I64, 4, ys, 0), GI = tnew(EIR_I64, 4, ys, 0);
        fill_rand(&X.v);
        eir_karg mp[6] = {KT(&X.v), KIS(2, ks), KIS(2, s2), KIS(2, p1), KIS(2, d1), KB(false)};
        eir_tview ro[2] = {R.v, RI.v}, go[2] = {G.v, GI.v};
        threads_same("aten.max_pool2d_with_indices.default", mp, 6, ro, go, 2);
        eir_karg ap[7] = {KT(&X.v), KIS(2, ks), KIS(2, s2), KIS(2, p1), KB(false), KB(true), KN()};
        threads_same("aten.avg_pool2d.default", ap, 7, &R.v, &G.v, 1);
        tt RA = tnew(EIR_F32, 4, as, 0), GA = tnew(EIR_F32, 4, as, 0);
        eir_karg aa[2] = {KT(&X.v), KIS(2, o3)};
        threads_same("aten._adaptive_avg_pool2d.default", aa, 2, &RA.v, &GA.v, 1);
        tt Y = tnew(EIR_F32, 4, xs, 0), Z = tnew(EIR_F32, 4, xs, 0);
        tt Wt = tnew(EIR_F32, 1, &C, 0), B = tnew(EIR_F32, 1, &C, 0), M = tnew(EIR_F32, 1, &C, 0), V = tnew(EIR_F32, 1, &C, 0);
        fill_rand(&Wt.v); fill_rand(&B.v); fill_rand(&M.v);
        for (int64_t c = 0; c < C; c++) setk(&V.v, c, 0.1 + fabs(urand()));
        int64_t zero = 0;
        tt S1 = tnew(EIR_F32, 1, &zero, 0), S2 = tnew(EIR_F32, 1, &zero, 0);
        eir_karg bn[7] = {KT(&X.v), KT(&Wt.v), KT(&B.v), KT(&M.v), KT(&V.v), KF(0.1), KF(1e-5)};
        eir_tview bro[3] = {Y.v, S1.v, S2.v}, bgo[3] = {Z.v, S1.v, S2.v};
        threads_same("aten._native_batch_norm_legit_no_training.default", bn, 7, bro, bgo, 3);
        /* pointwise rows: cheap and libm ones, a tensor and a scalar operand, in place */
        eir_karg u[1] = {KT(&X.v)};
        threads_same("aten.relu.default", u, 1, &Y.v, &Z.v, 1);
        threads_same("aten.sigmoid.default", u, 1, &Y.v, &Z.v, 1);
        eir_karg ge[2] = {KT(&X.v), KSTR("tanh")};
        threads_same("aten.gelu.default", ge, 2, &Y.v, &Z.v, 1);
        eir_karg ad[3] = {KT(&X.v), KT(&X.v), KF(0.5)};
        threads_same("aten.add.Tensor", ad, 3, &Y.v, &Z.v, 1);
        eir_karg ms[2] = {KT(&X.v), KF(3.0)};
        threads_same("aten.mul.Tensor", ms, 2, &Y.v, &Z.v, 1);
        /* softmax and layer norm over the last dim */
        eir_karg sm[3] = {KT(&X.v), KI(-1), KB(false)};
        threads_same("aten._softmax.default", sm, 3, &Y.v, &Z.v, 1);
        threads_same("aten._log_softmax.default", sm, 3, &Y.v, &Z.v, 1);
        int64_t last = xs[3], st4[4] = {xs[0], xs[1], xs[2], 1};
        tt LW = tnew(EIR_F32, 1, &last, 0), LB = tnew(EIR_F32, 1, &last, 0);
        tt M1 = tnew(EIR_F32, 4, st4, 0), R1 = tnew(EIR_F32, 4, st4, 0), M2 = tnew(EIR_F32, 4, st4, 0), R2 = tnew(EIR_F32, 4, st4, 0);
        fill_rand(&LW.v); fill_rand(&LB.v);
        eir_karg ln[5] = {KT(&X.v), KIS(1, &last), KT(&LW.v), KT(&LB.v), KF(1e-5)};
        eir_tview lro[3] = {Y.v, M1.v, R1.v}, lgo[3] = {Z.v, M2.v, R2.v};
        threads_same("aten.native_layer_norm.default", ln, 5, lro, lgo, 3);
        tfree(&LW); tfree(&LB); tfree(&M1); tfree(&R1); tfree(&M2); tfree(&R2);
        tfree(&X); tfree(&R); tfree(&G); tfree(&RI); tfree(&GI); tfree(&RA); tfree(&GA); tfree(&Y); tfree(&Z);
        tfree(&Wt); tfree(&B); tfree(&M); tfree(&V); tfree(&S1); tfree(&S2);
    }
}

/* ---------------------------------------------------------------------- */
/* runtimes                                                                 */

static void test_set_threads(void) {
    eir_program *p = NULL;
    CHECK(eir_program_load("examples/mlp.pt2", &p) == EIR_OK);
    eir_runtime *rt = NULL;
    CHECK(eir_runtime_create(p, &rt) == EIR_OK);
    CHECK(eir_runtime_threads(rt) == 1);
    CHECK(eir_runtime_set_threads(rt, -1) == EIR_ERR_ARG);
    CHECK(strstr(eir_runtime_errmsg(rt), "threads: -1 is not a thread count") != NULL);
    CHECK(eir_runtime_set_threads(rt, EIR_MAX_THREADS + 1) == EIR_ERR_ARG);
    CHECK(eir_runtime_threads(rt) == 1);
    CHECK(eir_runtime_set_threads(rt, 3) == EIR_OK);
    CHECK(eir_runtime_threads(rt) == 3);
    CHECK(eir_runtime_set_threads(rt, 0) == EIR_OK);
    int cores = eir_cpu_count();
    CHECK(eir_runtime_threads(rt) == (cores < EIR_MAX_THREADS ? cores : EIR_MAX_THREADS));
    CHECK(eir_runtime_set_threads(rt, 1) == EIR_OK);
    CHECK(eir_runtime_threads(rt) == 1);
    CHECK(eir_runtime_set_threads(NULL, 2) == EIR_ERR_ARG);
    CHECK(eir_runtime_threads(NULL) == 1);
    eir_runtime_free(rt);
    eir_program_free(p);
}

#define NRUNS 2
#define MAXIO 8

typedef struct outs {
    bool ok;
    uint32_t nout;
    size_t bytes[NRUNS][MAXIO];
    unsigned char *data[NRUNS][MAXIO];
} outs;

static void outs_free(outs *o) {
    for (int r = 0; r < NRUNS; r++)
        for (int i = 0; i < MAXIO; i++) free(o->data[r][i]);
}

/* NRUNS runs of rt on `threads` threads */
static void run_on(eir_runtime *rt, int threads, outs *o) {
    memset(o, 0, sizeof *o);
    o->ok = eir_runtime_set_threads(rt, threads) == EIR_OK;
    o->nout = eir_runtime_num_outputs(rt);
    if (o->nout > MAXIO) o->nout = MAXIO;
    for (int r = 0; r < NRUNS && o->ok; r++) {
        if (eir_runtime_run(rt) != EIR_OK) { o->ok = false; break; }
        for (uint32_t i = 0; i < o->nout; i++) {
            eir_tensor_view y;
            if (eir_runtime_output(rt, i, &y) != EIR_OK || !(o->data[r][i] = view_bytes(&y, &o->bytes[r][i]))) o->ok = false;
        }
    }
}

static bool outs_same(const outs *a, const outs *b) {
    if (!a->ok || !b->ok || a->nout != b->nout) return false;
    for (int r = 0; r < NRUNS; r++)
        for (uint32_t i = 0; i < a->nout; i++)
            if (a->bytes[r][i] != b->bytes[r][i] || memcmp(a->data[r][i], b->data[r][i], a->bytes[r][i])) return false;
    return true;
}

/* float32 inputs of static shapes, the same values every time (in[i].data holds them) */
static bool random_inputs(eir_runtime *rt, npy_array *in) {
    uint64_t seed = 12345;
    for (uint32_t i = 0; i < eir_runtime_num_inputs(rt) && i < MAXIO; i++) {
        eir_io_info info;
        if (eir_runtime_input_info(rt, i, &info) != EIR_OK || !info.is_tensor || info.dtype != EIR_F32 || info.rank > 8)
            return false;
        int64_t n = 1;
        in[i].rank = info.rank;
        for (uint32_t d = 0; d < info.rank; d++) {
            if (info.sizes[d] < 0) return false;
            in[i].sizes[d] = info.sizes[d];
            n *= info.sizes[d];
        }
        float *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
        if (!x) return false;
        in[i].data = x;
        for (int64_t k = 0; k < n; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            x[k] = (float)((double)(seed >> 40) / (double)(1ull << 24) * 2 - 1);
        }
        eir_tensor_view v = {x, EIR_F32, info.rank, in[i].sizes, NULL};
        if (eir_runtime_set_input(rt, i, &v) != EIR_OK) return false;
    }
    return true;
}

/* a fresh runtime per thread count (state the program mutates starts over) */
static int check_program(eir_program *p, const char *name, bool with_inputs) {
    outs ref;
    memset(&ref, 0, sizeof ref);
    int checked = 0;
    for (int t = 1; t <= 3; t++) {
        npy_array in[MAXIO];
        memset(in, 0, sizeof in);
        eir_runtime *rt = NULL;
        if (with_inputs) rt = fixture_runtime(p, ops_lib, name, in, MAXIO);
        else if (eir_runtime_create(p, &rt) != EIR_OK || !random_inputs(rt, in)) { eir_runtime_free(rt); rt = NULL; }
        if (!rt) {               /* fixture_runtime freed the inputs it read */
            if (!with_inputs)
                for (int k = 0; k < MAXIO; k++) free(in[k].data);
            break;
        }
        outs o;
        run_on(rt, t, &o);
        if (t == 1) {
            ref = o;
            if (!ref.ok) { eir_runtime_free(rt); for (int k = 0; k < MAXIO; k++) free(in[k].data); break; }
        } else {
            bool same = outs_same(&ref, &o);
            CHECK(same);
            if (!same) fprintf(stderr, "  %s: %d threads differ from one\n", name, t);
            outs_free(&o);
            checked = 1;
        }
        eir_runtime_free(rt);
        for (int k = 0; k < MAXIO; k++) free(in[k].data);
    }
    outs_free(&ref);
    return checked;
}

static void test_programs(void) {
    eir_pool_split_all = 1;
    int checked = 0;
    DIR *d = opendir(fixture_dir);
    CHECK(d != NULL);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".pt2")) continue;
        char name[256], first[512];
        snprintf(name, sizeof name, "%.*s", (int)(n - 4), e->d_name);
        snprintf(first, sizeof first, "%s/%s.in_0.npy", fixture_dir, name);
        FILE *f = fopen(first, "rb");
        if (!f) continue;
        fclose(f);
        eir_program *p = load_fixture(name);
        if (!p) continue;
        checked += check_program(p, name, true);
        eir_program_free(p);
    }
    if (d) closedir(d);
    eir_program *p = NULL;
    CHECK(eir_program_load("examples/mlp.pt2", &p) == EIR_OK);
    if (p) CHECK(check_program(p, "mlp", false) == 1);
    eir_program_free(p);
    eir_pool_split_all = 0;
    CHECK(checked >= 30);
    printf("  %d fixtures at 1, 2 and 3 threads\n", checked);
}

/* A worker woken on its waker's CPU moves to another CPU its mask allows, and its mask stays what
 * it was; with one CPU allowed it stays where it is. */
static void test_leave_cpu(void) {
    cpu_set_t all;
    if (sched_getaffinity(0, sizeof all, &all) != 0 || CPU_COUNT(&all) < 2) return; /* nowhere to go */
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &all)) first = c;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    for (int round = 0; round < 3; round++) {
        CHECK(sched_setaffinity(0, sizeof one, &one) == 0 && sched_getcpu() == first);
        eir_pool_leave_cpu(first); /* only one CPU allowed: stays */
        CHECK(sched_getcpu() == first);
        CHECK(sched_setaffinity(0, sizeof all, &all) == 0);
        if (sched_getcpu() != first) continue; /* moved by the scheduler already */
        eir_pool_leave_cpu(first);
        CHECK(sched_getcpu() != first);
        cpu_set_t now;
        CHECK(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_EQUAL(&now, &all));
    }
}

int main(void) {
    const char *dir = getenv("EIR_FIXTURES");
    if (dir) fixture_dir = dir;
    eir_pool_no_backoff = 1; /* the checks below count chunks, whatever else runs on the machine */
    test_pool_basics();
    test_pool_claims();
    test_kernels();
    test_set_threads();
    test_leave_cpu();
    CHECK(eir_library_create(&ops_lib) == EIR_OK && eir_ops_init(ops_lib) == EIR_OK);
    test_programs();
    eir_library_free(ops_lib);
    return check_summary("test_pool");
}
