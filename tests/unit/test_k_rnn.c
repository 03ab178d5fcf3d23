/* test_k_rnn.c — the float32 time loop of the recurrent layers
 * (src/kernels/recurrent.c) against nn.c's generic loop, which computes in
 * double (eir_kernels_fast = 0), on sizes that reach every part of it:
 * hidden and input sizes that are not multiples of 8 (the one-row GEMV and
 * the k tail), batches of 1 to 4 (its own GEMV) and above (one GEMM a
 * step), several layers, both directions, batch_first, no biases, the LSTM
 * projection, and the one-step cells. Then the same float32 runs on a pool
 * of 2 threads, every parallel loop split as far as it goes
 * (eir_pool_split_all) and not: the same bits as one thread. */
#include "base/pool.h"
#include "kernels/fast.h"
#include "ktest.h"

static eir_karg KTS(uint32_t n, const eir_tview *const *ts) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSORS; a.n = n; a.ts = ts; return a; }

typedef struct cfg {
    const char *op;
    int gates;                 /* 4 LSTM, 3 GRU, 1 RNN */
    int64_t In, H, proj, B, T, layers;
    bool bidir, batch_first, bias;
} cfg;

typedef struct rnn_case {
    cfg c;
    int np;
    tt P[40], X, H0, C0, Y, HN, CN;
    const eir_tview *pv[40];
} rnn_case;

static void fill_scaled(const eir_tview *v, double s) {
    int64_t n = numel(v);
    for (int64_t k = 0; k < n; k++) setk(v, k, urand() * s);
}

static void case_make(rnn_case *k, const cfg *c) {
    memset(k, 0, sizeof *k);
    k->c = *c;
    int64_t D = c->bidir ? 2 : 1, Hout = c->proj ? c->proj : c->H, G = c->gates * c->H;
    for (int64_t l = 0; l < c->layers; l++)
        for (int64_t d = 0; d < D; d++) {
            int64_t in = l ? D * Hout : c->In;
            int64_t shp[5][2] = {{G, in}, {G, Hout}, {G, 0}, {G, 0}, {Hout, c->H}};
            for (int p = 0; p < 5; p++) {
                if ((p == 2 || p == 3) && !c->bias) continue;
                if (p == 4 && !c->proj) continue;
                k->P[k->np] = tnew(EIR_F32, shp[p][1] ? 2 : 1, shp[p], 0);
                fill_scaled(&k->P[k->np].v, 0.4);
                k->pv[k->np] = &k->P[k->np].v;
                k->np++;
            }
        }
    int64_t xs[3] = {c->T, c->B, c->In}, ys[3] = {c->T, c->B, D * Hout}, hs[3] = {c->layers * D, c->B, Hout},
            cs[3] = {c->layers * D, c->B, c->H};
    if (c->batch_first) { xs[0] = ys[0] = c->B; xs[1] = ys[1] = c->T; }
    k->X = tnew(EIR_F32, 3, xs, 0);
    fill_scaled(&k->X.v, 1.0);
    k->H0 = tnew(EIR_F32, 3, hs, 2); /* padded: the kernel copies it in */
    fill_scaled(&k->H0.v, 0.5);
    k->C0 = tnew(EIR_F32, 3, cs, 1);
    fill_scaled(&k->C0.v, 0.5);
    k->Y = tnew(EIR_F32, 3, ys, 0);
    k->HN = tnew(EIR_F32, 3, hs, 0);
    k->CN = tnew(EIR_F32, 3, cs, 0);
}

static void case_free(rnn_case *k) {
    for (int i = 0; i < k->np; i++) tfree(&k->P[i]);
    tfree(&k->X); tfree(&k->H0); tfree(&k->C0); tfree(&k->Y); tfree(&k->HN); tfree(&k->CN);
}

static int case_run(rnn_case *k) {
    const cfg *c = &k->c;
    fill_poison(&k->Y.v); fill_poison(&k->HN.v); fill_poison(&k->CN.v);
    bool lstm = c->gates == 4;
    const eir_tview *hx[2] = {&k->H0.v, &k->C0.v};
    eir_karg a[9] = {KT(&k->X.v), lstm ? KTS(2, hx) : KT(&k->H0.v), KTS((uint32_t)k->np, k->pv), KB(c->bias), KI(c->layers),
                     KF(0.0), KB(false), KB(c->bidir), KB(c->batch_first)};
    eir_tview outs[3] = {k->Y.v, k->HN.v, k->CN.v};
    int rc = run(c->op, a, 9, outs, lstm ? 3 : 2);
    if (rc) fprintf(stderr, "%s: %s\n", c->op, errbuf);
    return rc;
}

static double *snapshot(const eir_tview *v) {
    int64_t n = numel(v);
    double *r = malloc((size_t)(n + 1) * sizeof *r);
    for (int64_t i = 0; i < n; i++) r[i] = getk(v, i);
    return r;
}

static bool same_bits(const tt *a, const float *b) { return memcmp(a->v.data, b, (size_t)numel(&a->v) * sizeof(float)) == 0; }

/* fast against generic; then fast on 2 threads against fast on one */
static void check_case(const cfg *c, eir_pool *pool) {
    rnn_case k;
    case_make(&k, c);
    bool lstm = c->gates == 4;
    char what[160];
    snprintf(what, sizeof what, "%s In %lld H %lld proj %lld B %lld T %lld layers %lld%s%s%s", c->op, (long long)c->In,
             (long long)c->H, (long long)c->proj, (long long)c->B, (long long)c->T, (long long)c->layers,
             c->bidir ? " bidir" : "", c->batch_first ? " batch_first" : "", c->bias ? "" : " no bias");
    eir_kernels_fast = 0;
    CHECK(case_run(&k) == 0);
    double *ry = snapshot(&k.Y.v), *rh = snapshot(&k.HN.v), *rc = snapshot(&k.CN.v);
    eir_kernels_fast = 1;
    CHECK(case_run(&k) == 0);
    char w2[200];
    snprintf(w2, sizeof w2, "%s: y", what);
    CHECK(close_to(&k.Y.v, ry, 2e-5, w2));
    snprintf(w2, sizeof w2, "%s: h_n", what);
    CHECK(close_to(&k.HN.v, rh, 2e-5, w2));
    if (lstm) {
        snprintf(w2, sizeof w2, "%s: c_n", what);
        CHECK(close_to(&k.CN.v, rc, 2e-5, w2));
    }
    size_t ny = (size_t)numel(&k.Y.v), nh = (size_t)numel(&k.HN.v), nc = (size_t)numel(&k.CN.v);
    float *y1 = malloc(ny * sizeof(float) + 1), *h1 = malloc(nh * sizeof(float) + 1), *c1 = malloc(nc * sizeof(float) + 1);
    /* eir_pool_split_all also cuts the input projection's GEMM into other
     * blocks (nn.c), whose sums may round otherwise: one thread with the same
     * setting is the reference */
    for (int split = 0; split < 2; split++) {
        eir_pool_split_all = split;
        CHECK(case_run(&k) == 0);
        memcpy(y1, k.Y.v.data, ny * sizeof(float));
        memcpy(h1, k.HN.v.data, nh * sizeof(float));
        memcpy(c1, k.CN.v.data, nc * sizeof(float));
        eir_pool *prev = eir_pool_enter(pool);
        CHECK(case_run(&k) == 0);
        eir_pool_leave(prev);
        eir_pool_split_all = 0;
        bool same = same_bits(&k.Y, y1) && same_bits(&k.HN, h1) && (!lstm || same_bits(&k.CN, c1));
        if (!same) fprintf(stderr, "%s: 2 threads%s differ from 1\n", what, split ? " (every loop split)" : "");
        CHECK(same);
    }
    free(y1); free(h1); free(c1);
    free(ry); free(rh); free(rc);
    case_free(&k);
}

static void test_layers(eir_pool *pool) {
    const cfg cases[] = {
        /* op, gates, In, H, proj, B, T, layers, bidir, batch_first, bias */
        {"aten.lstm.input", 4, 19, 37, 0, 1, 7, 2, true, true, true},
        {"aten.lstm.input", 4, 8, 64, 0, 3, 5, 1, false, false, true},
        {"aten.lstm.input", 4, 13, 21, 0, 6, 4, 1, true, false, true},   /* batch above the GEMV's: one GEMM a step */
        {"aten.lstm.input", 4, 9, 37, 11, 2, 6, 2, true, false, true},   /* projection, own GEMV */
        {"aten.lstm.input", 4, 9, 20, 7, 5, 5, 1, false, true, false},   /* projection, GEMM; no biases */
        {"aten.gru.input", 3, 19, 37, 0, 1, 7, 2, true, true, true},
        {"aten.gru.input", 3, 5, 24, 0, 7, 4, 1, false, false, false},
        {"aten.rnn_tanh.input", 1, 11, 45, 0, 2, 6, 2, true, false, true},
        {"aten.rnn_relu.input", 1, 11, 33, 0, 9, 5, 1, false, true, true},
        {"aten.lstm.input", 4, 128, 256, 0, 1, 4, 2, false, true, true}, /* the benchmark's shape, fewer steps */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_case(&cases[i], pool);
}

/* lstm_cell / gru_cell / rnn_tanh_cell one step (input (B, In), weights (G, H)): fast against generic */
static void test_cells(void) {
    const char *ops[3] = {"aten.lstm_cell.default", "aten.gru_cell.default", "aten.rnn_tanh_cell.default"};
    const int gates[3] = {4, 3, 1};
    for (int o = 0; o < 3; o++)
        for (int64_t B = 1; B <= 6; B += 5) {
            int64_t In = 15, H = 29, G = gates[o] * H;
            int64_t xs[2] = {B, In}, hs[2] = {B, H}, wi[2] = {G, In}, wh[2] = {G, H}, bs[1] = {G};
            tt X = tnew(EIR_F32, 2, xs, 0), H0 = tnew(EIR_F32, 2, hs, 0), C0 = tnew(EIR_F32, 2, hs, 1);
            tt Wi = tnew(EIR_F32, 2, wi, 0), Wh = tnew(EIR_F32, 2, wh, 1), Bi = tnew(EIR_F32, 1, bs, 0), Bh = tnew(EIR_F32, 1, bs, 0);
            tt HY = tnew(EIR_F32, 2, hs, 0), CY = tnew(EIR_F32, 2, hs, 0);
            fill_scaled(&X.v, 1); fill_scaled(&H0.v, 0.5); fill_scaled(&C0.v, 0.5);
            fill_scaled(&Wi.v, 0.4); fill_scaled(&Wh.v, 0.4); fill_scaled(&Bi.v, 0.4); fill_scaled(&Bh.v, 0.4);
            const eir_tview *hx[2] = {&H0.v, &C0.v};
            eir_karg a[6] = {KT(&X.v), o == 0 ? KTS(2, hx) : KT(&H0.v), KT(&Wi.v), KT(&Wh.v), KT(&Bi.v), KT(&Bh.v)};
            eir_tview outs[2] = {HY.v, CY.v};
            uint32_t no = o == 0 ? 2 : 1;
            eir_kernels_fast = 0;
            CHECK(run(ops[o], a, 6, outs, no) == 0);
            double *rh = snapshot(&HY.v), *rc = snapshot(&CY.v);
            eir_kernels_fast = 1;
            fill_poison(&HY.v); fill_poison(&CY.v);
            CHECK(run(ops[o], a, 6, outs, no) == 0);
            CHECK(close_to(&HY.v, rh, 1e-5, ops[o]));
            if (o == 0) CHECK(close_to(&CY.v, rc, 1e-5, ops[o]));
            free(rh); free(rc);
            tfree(&X); tfree(&H0); tfree(&C0); tfree(&Wi); tfree(&Wh); tfree(&Bi); tfree(&Bh); tfree(&HY); tfree(&CY);
        }
}

int main(void) {
    eir_pool *pool = eir_pool_create(2);
    eir_pool_no_backoff = 1;
    test_layers(pool);
    test_cells();
    eir_pool_free(pool);
    print_worst("test_k_rnn");
    return check_summary("test_k_rnn");
}
