/* test_k_act.c — the activations pointwise.c gained for exported programs
 * (selu, celu, relu6, threshold, hardshrink, softshrink, log_sigmoid and its
 * forward, logit, prelu, glu, isclose) and random.c's dropout variants and
 * rrelu, against reference twins from their definitions: random shapes,
 * non-contiguous inputs and outputs, every float dtype (integers where torch
 * accepts them), NaN and signed zeros; random ops by the values they may
 * take and their frequencies. */
#include "ktest.h"

static const eir_dtype FDT[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};

enum { SELU, CELU, RELU6, THRESH, HARDS, SOFTS, LOGSIG, LOGIT, LOGITE, NACT };
static const char *const ACT_OP[NACT] = {"aten.selu.default", "aten.celu.default", "aten.relu6.default", "aten.threshold.default",
                                         "aten.hardshrink.default", "aten.softshrink.default", "aten.log_sigmoid.default",
                                         "aten.logit.default", "aten.logit.default"};

static double act_ref(int op, double x, eir_dtype dt) {
    switch (op) {
    case SELU: return x <= 0 ? 1.6732632423543772 * 1.0507009873554805 * expm1(x) : 1.0507009873554805 * x;
    case CELU: return x <= 0 ? 0.7 * expm1(x / 0.7) : x;
    case RELU6: return isnan(x) ? x : fmin(fmax(x, 0), 6);
    case THRESH: return x <= 0.25 ? eir_round_f64(-3.3, dt) : x;
    case HARDS: { double l = eir_round_f64(0.6, dt); return x >= -l && x <= l ? 0 : x; }
    case SOFTS: return x > 0.3 ? x - 0.3 : x < -0.3 ? x + 0.3 : x * 0;
    case LOGSIG: return fmin(x, 0) - log1p(exp(-fabs(x)));
    case LOGIT: return log(x / (1 - x));
    case LOGITE: { double c = x < 0.2 ? 0.2 : x > 0.8 ? 0.8 : x; return log(c / (1 - c)); }  /* NaN stays NaN */
    }
    return NAN;
}

static void test_unary(void) {
    for (int iter = 0; iter < NACT * 12; iter++) {
        int op = iter % NACT;
        eir_dtype dt = FDT[(iter / NACT) % 4];
        int64_t s[3] = {irand(1, 4), irand(0, 5), irand(1, 6)};
        tt x = tnew(dt, 3, s, iter % 4), y = tnew(dt, 3, s, (iter + 1) % 4);
        int64_t n = numel(&x.v);
        for (int64_t k = 0; k < n; k++) {
            double v = urand() * 4;
            if (op == LOGIT || op == LOGITE) v = (urand() + 1) / 2;
            if (k == 1) v = NAN;
            if (k == 2) v = -0.0;
            setk(&x.v, k, v);
        }
        double *want = calloc((size_t)n + 1, sizeof *want);
        for (int64_t k = 0; k < n; k++) want[k] = act_ref(op, getk(&x.v, k), dt);
        int rc;
        if (op == CELU) { eir_karg a[2] = {KT(&x.v), KF(0.7)}; rc = run(ACT_OP[op], a, 2, &y.v, 1); }
        else if (op == THRESH) { eir_karg a[3] = {KT(&x.v), KF(0.25), KF(-3.3)}; rc = run(ACT_OP[op], a, 3, &y.v, 1); }
        else if (op == HARDS) { eir_karg a[2] = {KT(&x.v), KF(0.6)}; rc = run(ACT_OP[op], a, 2, &y.v, 1); }
        else if (op == SOFTS) { eir_karg a[2] = {KT(&x.v), KF(0.3)}; rc = run(ACT_OP[op], a, 2, &y.v, 1); }
        else if (op == LOGITE) { eir_karg a[2] = {KT(&x.v), KF(0.2)}; rc = run(ACT_OP[op], a, 2, &y.v, 1); }
        else if (op == LOGIT) { eir_karg a[2] = {KT(&x.v), KN()}; rc = run(ACT_OP[op], a, 2, &y.v, 1); }
        else { eir_karg a[1] = {KT(&x.v)}; rc = run(ACT_OP[op], a, 1, &y.v, 1); }
        CHECK(rc == 0);
        double *wr = rounded(&y.v, want);
        double tol = dt == EIR_F64 ? 1e-12 : dt == EIR_F32 ? 2e-6 : tol_of(dt) * 2;
        CHECK(close_to(&y.v, wr, tol, ACT_OP[op]));
        /* signed zeros: softshrink keeps the sign, hardshrink gives +0 */
        if (n > 2 && (op == SOFTS || op == HARDS)) CHECK(signbit(getk(&y.v, 2)) == (op == SOFTS));
        free(wr); free(want);
        tfree(&x); tfree(&y);
    }
    /* threshold on integers; log_sigmoid_forward's buffer */
    int64_t s[1] = {6};
    tt xi = tnew(EIR_I64, 1, s, 0), yi = tnew(EIR_I64, 1, s, 0), x = tnew(EIR_F32, 1, s, 0), y = tnew(EIR_F32, 1, s, 0), b = tnew(EIR_F32, 1, s, 2);
    for (int k = 0; k < 6; k++) { setk(&xi.v, k, k - 3); setk(&x.v, k, (k - 3) * 1.5); }
    eir_karg a[3] = {KT(&xi.v), KF(0.5), KI(9)};
    CHECK(run("aten.threshold.default", a, 3, &yi.v, 1) == 0);
    double wi[6] = {9, 9, 9, 9, 1, 2};
    CHECK(close_to(&yi.v, wi, 0, "threshold int"));
    eir_karg l[1] = {KT(&x.v)};
    eir_tview two[2] = {y.v, b.v};
    CHECK(run("aten.log_sigmoid_forward.default", l, 1, two, 2) == 0);
    double wb[6];
    for (int k = 0; k < 6; k++) wb[k] = exp(-fabs((k - 3) * 1.5));
    CHECK(close_to(&b.v, wb, 1e-6, "log_sigmoid buffer"));
    eir_karg sh[2] = {KT(&x.v), KF(-1)};
    CHECK_FAILS(run("aten.softshrink.default", sh, 2, &y.v, 1), "lambda must be greater or equal to 0, but found to be -1.");
    tfree(&xi); tfree(&yi); tfree(&x); tfree(&y); tfree(&b);
}

static void test_prelu_glu(void) {
    for (int iter = 0; iter < 40; iter++) {
        eir_dtype dt = FDT[iter % 4];
        int32_t rank = (int32_t)irand(1, 3);
        int64_t s[3] = {irand(1, 4), irand(1, 5), irand(1, 4)};
        bool scalar_w = iter % 3 == 0 || rank == 1;
        int64_t C = rank > 1 ? s[1] : 1, ws[1] = {scalar_w ? 1 : C};
        tt x = tnew(dt, rank, s, iter % 4), y = tnew(dt, rank, s, (iter + 2) % 4), w = tnew(dt, 1, ws, 0);
        fill_rand(&x.v);
        fill_rand(&w.v);
        int64_t n = numel(&x.v), inner = 1;
        for (int32_t d = 2; d < rank; d++) inner *= s[d];
        double *want = calloc((size_t)n + 1, sizeof *want);
        for (int64_t k = 0; k < n; k++) {
            double v = getk(&x.v, k), a = getk(&w.v, scalar_w ? 0 : (k / inner) % C);
            want[k] = v > 0 ? v : eir_round_f64(a * v, dt);
        }
        eir_karg a[2] = {KT(&x.v), KT(&w.v)};
        CHECK(run("aten.prelu.default", a, 2, &y.v, 1) == 0);
        CHECK(close_to(&y.v, want, 0, "prelu"));
        free(want);
        /* glu along a random dim of an even size */
        int32_t dim = (int32_t)irand(0, rank - 1);
        int64_t gs[3] = {s[0], s[1], s[2]}, hs[3];
        gs[dim] *= 2;
        memcpy(hs, gs, sizeof hs);
        hs[dim] /= 2;
        tt g = tnew(dt, rank, gs, iter % 3), h = tnew(dt, rank, hs, (iter + 1) % 3);
        fill_rand(&g.v);
        int64_t hn = numel(&h.v);
        double *gw = calloc((size_t)hn + 1, sizeof *gw);
        for (int64_t k = 0; k < hn; k++) {
            int64_t idx[3], ia[3], ib[3];
            unravel(&h.v, k, idx);
            memcpy(ia, idx, sizeof ia);
            memcpy(ib, idx, sizeof ib);
            ib[dim] += hs[dim];
            double av = eir_load_f64(eir_tview_at(&g.v, ia), dt), bv = eir_load_f64(eir_tview_at(&g.v, ib), dt);
            gw[k] = av / (1 + exp(-bv));
        }
        eir_karg ga[2] = {KT(&g.v), KI(dim - (iter % 2 ? rank : 0))};
        CHECK(run("aten.glu.default", ga, 2, &h.v, 1) == 0);
        double *wr = rounded(&h.v, gw);
        CHECK(close_to(&h.v, wr, dt == EIR_F64 ? 1e-12 : dt == EIR_F32 ? 2e-6 : tol_of(dt), "glu"));
        free(wr); free(gw);
        tfree(&x); tfree(&y); tfree(&w); tfree(&g); tfree(&h);
    }
    int64_t s[2] = {2, 3}, ws[1] = {4}, hs[2] = {2, 1};
    tt x = tnew(EIR_F32, 2, s, 0), w = tnew(EIR_F32, 1, ws, 0), y = tnew(EIR_F32, 2, s, 0), h = tnew(EIR_F32, 2, hs, 0);
    eir_karg a[2] = {KT(&x.v), KT(&w.v)};
    CHECK_FAILS(run("aten.prelu.default", a, 2, &y.v, 1), "Mismatch of parameter numbers and input channel size. Found parameter numbers = 4 and channel size = 3.");
    eir_karg g[2] = {KT(&x.v), KI(1)};
    CHECK_FAILS(run("aten.glu.default", g, 2, &h.v, 1), "Halving dimension must be even, but dimension 1 is size 3");
    tfree(&x); tfree(&w); tfree(&y); tfree(&h);
}

static void test_isclose(void) {
    static const eir_dtype DT[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I64, EIR_I8};
    for (int iter = 0; iter < 36; iter++) {
        eir_dtype dt = DT[iter % 6];
        int64_t s[2] = {irand(1, 4), irand(1, 6)};
        tt x = tnew(dt, 2, s, iter % 3), y = tnew(dt, 2, s, (iter + 1) % 3), o = tnew(EIR_BOOL, 2, s, 2);
        int64_t n = numel(&x.v);
        bool eqnan = iter % 2 && eir_is_floating(dt);
        double rtol = iter % 3 ? 0.01 : 0, atol = iter % 4 ? 0.5 : 0;
        double *want = calloc((size_t)n + 1, sizeof *want);
        for (int64_t k = 0; k < n; k++) {
            double a = (double)irand(-20, 20), b = a + (double)irand(-2, 2) * (eir_is_floating(dt) ? 0.25 : 1);
            if (eir_is_floating(dt) && k % 7 == 3) a = NAN;
            if (eir_is_floating(dt) && k % 7 == 3 && k % 2) b = NAN;
            setk(&x.v, k, a);
            setk(&y.v, k, b);
            a = getk(&x.v, k);
            b = getk(&y.v, k);
            bool c = a == b || (eqnan && isnan(a) && isnan(b));
            if (!c && (rtol || atol)) c = fabs(a - b) <= atol + rtol * fabs(b);
            want[k] = c;
        }
        eir_karg a[5] = {KT(&x.v), KT(&y.v), KF(rtol), KF(atol), KB(eqnan)};
        CHECK(run("aten.isclose.default", a, 5, &o.v, 1) == 0);
        CHECK(close_to(&o.v, want, 0, "isclose"));
        free(want);
        tfree(&x); tfree(&y); tfree(&o);
    }
    int64_t s[1] = {2};
    tt x = tnew(EIR_F32, 1, s, 0), y = tnew(EIR_F64, 1, s, 0), o = tnew(EIR_BOOL, 1, s, 0);
    eir_karg a[5] = {KT(&x.v), KT(&y.v), KF(1e-5), KF(1e-8), KB(false)};
    CHECK_FAILS(run("aten.isclose.default", a, 5, &o.v, 1), "Float did not match Double");
    tfree(&x); tfree(&y); tfree(&o);
}

/* dropout variants and rrelu: the values each element may take, and how often */
static void test_random(void) {
    uint64_t rng = 12345;
    char eb[256];
    eir_kctx ctx = {eb, sizeof eb, 1, &rng};
    for (int iter = 0; iter < 12; iter++) {
        eir_dtype dt = iter % 3 == 2 ? EIR_F64 : EIR_F32;
        bool feature = iter % 2, alpha = iter % 4 >= 2;
        int64_t s[3] = {6, 40, 25};
        tt x = tnew(dt, 3, s, iter % 3), y = tnew(dt, 3, s, (iter + 1) % 3);
        for (int64_t k = 0; k < numel(&x.v); k++) setk(&x.v, k, 0.5 + (urand() + 1) / 2);
        double p = 0.3;
        eir_karg a[3] = {KT(&x.v), KF(p), KB(true)};
        const char *op = feature ? (alpha ? "aten.feature_alpha_dropout.default" : "aten.feature_dropout.default") : "aten.alpha_dropout.default";
        if (!feature && !alpha) op = "aten.alpha_dropout.default";
        bool is_alpha = alpha || !feature;
        eir_kernel_fn f = find_op(op);
        CHECK(f && f(a, 3, &y.v, 1, &ctx) == 0);
        double A = 1.7580993408473766, ca = 1 / sqrt((A * A * p + 1) * (1 - p));
        int64_t kept = 0, n = numel(&x.v);
        bool ok = true, whole = true;
        for (int64_t k = 0; k < n; k++) {
            double xv = getk(&x.v, k), yv = getk(&y.v, k);
            double keep_v = is_alpha ? xv * ca + A * ca * p : xv / (1 - p), drop_v = is_alpha ? -A * ca + A * ca * p : 0;
            bool kk = fabs(yv - keep_v) <= 1e-5 * fabs(keep_v), dd = fabs(yv - drop_v) <= 1e-5;
            ok = ok && (kk || dd);
            kept += kk;
            if (feature && k % 25) {  /* a channel is kept or dropped whole */
                double pv = getk(&y.v, k - 1), px = getk(&x.v, k - 1);
                bool pk = fabs(pv - (is_alpha ? px * ca + A * ca * p : px / (1 - p))) <= 1e-5 * fabs(pv);
                whole = whole && pk == kk;
            }
        }
        CHECK(ok);
        CHECK(whole);
        CHECK(fabs((double)kept / (double)n - (1 - p)) < (feature ? 0.08 : 0.02));
        /* evaluation mode copies */
        a[2] = KB(false);
        CHECK(f(a, 3, &y.v, 1, &ctx) == 0);
        bool same = true;
        for (int64_t k = 0; k < n; k++) same = same && getk(&y.v, k) == getk(&x.v, k);
        CHECK(same);
        tfree(&x); tfree(&y);
    }
    /* rrelu: training slopes uniform in [lower, upper] with noise recorded; evaluation slope (lower + upper) / 2 */
    int64_t s[1] = {4000};
    tt x = tnew(EIR_F32, 1, s, 0), y = tnew(EIR_F32, 1, s, 0), nz = tnew(EIR_F32, 1, s, 2);
    for (int64_t k = 0; k < 4000; k++) setk(&x.v, k, k % 2 ? 1.5 : -2.0);
    eir_karg a[5] = {KT(&x.v), KT(&nz.v), KF(0.1), KF(0.3), KB(true)};
    eir_tview two[2] = {y.v, nz.v};
    eir_kernel_fn f = find_op("aten.rrelu_with_noise_functional.default");
    CHECK(f && f(a, 5, two, 2, &ctx) == 0);
    double sum = 0, mn = 1, mx = 0;
    bool ok = true;
    for (int64_t k = 0; k < 4000; k++) {
        double r = getk(&nz.v, k), yv = getk(&y.v, k);
        if (k % 2) { ok = ok && r == 1 && yv == 1.5; continue; }
        ok = ok && fabs(yv - -2.0 * r) < 1e-6;
        sum += r; mn = fmin(mn, r); mx = fmax(mx, r);
    }
    CHECK(ok && mn >= 0.1 && mx <= 0.3 && fabs(sum / 2000 - 0.2) < 0.005 && mx - mn > 0.18);
    eir_karg e[5] = {KT(&x.v), KF(0.1), KF(0.3), KB(false), KN()};
    CHECK(run("aten.rrelu.default", e, 5, &y.v, 1) == 0);
    CHECK(fabs(getk(&y.v, 0) - -0.4) < 1e-6 && getk(&y.v, 1) == 1.5);
    e[1] = KF(0.5);
    CHECK_FAILS(run("aten.rrelu.default", e, 5, &y.v, 1), "Lower bound should be less than or equal to the upper bound");
    tfree(&x); tfree(&y); tfree(&nz);
}

int main(void) {
    test_unary();
    test_prelu_glu();
    test_isclose();
    test_random();
    print_worst("activations");
    return check_summary("test_k_act");
}
