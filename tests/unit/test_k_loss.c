/* test_k_loss.c — the kernels of src/kernels/loss.c against naive
 * reference twins written from the loss definitions in double: the
 * element-wise losses with every reduction (broadcasting, non-contiguous
 * inputs and outputs, float32/float64/float16/bfloat16), the per-sample
 * margin losses, nll_loss over 1-d, 2-d and spatial inputs with weights and
 * ignore_index, and cross_entropy_loss with label smoothing and class
 * probabilities; torch's errors for bad targets and inputs. */
#include "ktest.h"

static const eir_dtype FDT[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};

/* the tolerance for a loss computed in dtype dt (float16 / bfloat16 round every step) */
static double ltol(eir_dtype dt) { return dt == EIR_F64 ? 1e-12 : dt == EIR_F32 ? 2e-6 : dt == EIR_F16 ? 6e-3 : 4e-2; }

static double reduce_ref(const double *v, int64_t n, int r) {
    double s = 0;
    for (int64_t k = 0; k < n; k++) s += v[k];
    return r == 1 ? s / (double)n : s;
}
static double sigm(double x) { return 1 / (1 + exp(-x)); }

enum { MSE, L1, SMOOTH, HUBER, BCE, BCEL, KL, KLLOG, POIS, POISF, MRANK, HINGE, SOFTM, NLOSS };
static const char *const LOSS_OP[NLOSS] = {
    "aten.mse_loss.default", "aten.l1_loss.default", "aten.smooth_l1_loss.default", "aten.huber_loss.default",
    "aten.binary_cross_entropy.default", "aten.binary_cross_entropy_with_logits.default", "aten.kl_div.default",
    "aten.kl_div.default", "aten.poisson_nll_loss.default", "aten.poisson_nll_loss.default",
    "aten.margin_ranking_loss.default", "aten.hinge_embedding_loss.default", "aten.soft_margin_loss.default"};

/* loss of one element: x, y (target), z (third input / weight) */
static double elem_ref(int op, double x, double y, double z) {
    double d = x - y, a = fabs(d);
    switch (op) {
    case MSE: return d * d;
    case L1: return a;
    case SMOOTH: return a < 0.5 ? 0.5 * a * a / 0.5 : a - 0.25;
    case HUBER: return a < 0.7 ? 0.5 * a * a : 0.7 * (a - 0.35);
    case BCE: return -z * (y * fmax(log(x), -100) + (1 - y) * fmax(log1p(-x), -100));
    case BCEL: return z * ((1 - y) * x - log(sigm(x)));
    case KL: return (y == 0 ? 0 : y * log(y)) - y * x;
    case KLLOG: return exp(y) * (y - x);
    case POIS: return exp(x) - y * x;
    case POISF: return x - y * log(x + 1e-8) + (y > 1 ? y * log(y) - y + 0.5 * log(2 * M_PI * y) : 0);
    case MRANK: return fmax(-z * (x - y) + 0.2, 0);
    case HINGE: return (y != 1 ? fmax(0.5 - x, 0) : 0) + (y != -1 ? x : 0);
    case SOFTM: return log1p(exp(-x * y));
    }
    return NAN;
}

static void test_elementwise(void) {
    for (int iter = 0; iter < 13 * 16; iter++) {
        int op = iter % NLOSS, red = (iter / NLOSS) % 3;
        eir_dtype dt = FDT[(iter / 39) % 4];
        int64_t s[2] = {irand(1, 4), irand(1, 6)}, s1[1] = {s[1]}, s0[1] = {0};
        bool bcast = op == MSE && iter % 2; /* target broadcast along dim 0 */
        tt x = tnew(dt, 2, s, iter % 3), y = bcast ? tnew(dt, 1, s1, 0) : tnew(dt, 2, s, (iter + 1) % 3), z = tnew(dt, 2, s, 2);
        tt o = red ? tnew(dt, 0, s0, 0) : tnew(dt, 2, s, (iter + 2) % 3);
        int64_t n = numel(&x.v);
        /* inputs in each loss's domain */
        for (int64_t k = 0; k < n; k++) {
            double xv = urand() * 2, yv = urand() * 2, zv = urand() + 1.5;
            if (op == BCE) { xv = (urand() + 1) / 2; yv = (urand() + 1) / 2; if (k == 0) xv = 0; }
            if (op == BCEL) yv = (urand() + 1) / 2;
            if (op == KL) { yv = k % 4 == 0 ? 0 : (urand() + 1) / 2; }
            if (op == POISF) { xv = fabs(xv) + 0.1; yv = fabs(yv) * 3; }
            if (op == MRANK || op == HINGE || op == SOFTM) { double sg = urand() < 0 ? -1 : 1; if (op == MRANK) zv = sg; else yv = sg; }
            setk(&x.v, k, xv);
            setk(&z.v, k, zv);
            if (!bcast) setk(&y.v, k, yv);
            else if (k < s[1]) setk(&y.v, k, yv);
        }
        double *l = malloc((size_t)n * sizeof *l);
        for (int64_t k = 0; k < n; k++) {
            double yv = bcast ? getk(&y.v, k % s[1]) : getk(&y.v, k);
            l[k] = elem_ref(op, getk(&x.v, k), yv, op == BCEL || op == BCE || op == MRANK ? getk(&z.v, k) : 0);
        }
        int rc;
        switch (op) {
        case SMOOTH: case HUBER: {
            eir_karg a[4] = {KT(&x.v), KT(&y.v), KI(red), KF(op == SMOOTH ? 0.5 : 0.7)};
            rc = run(LOSS_OP[op], a, 4, &o.v, 1);
            break;
        }
        case BCE: {
            eir_karg a[4] = {KT(&x.v), KT(&y.v), KT(&z.v), KI(red)};
            rc = run(LOSS_OP[op], a, 4, &o.v, 1);
            break;
        }
        case BCEL: {
            eir_karg a[5] = {KT(&x.v), KT(&y.v), KT(&z.v), KN(), KI(red)};
            rc = run(LOSS_OP[op], a, 5, &o.v, 1);
            break;
        }
        case KL: case KLLOG: {
            eir_karg a[4] = {KT(&x.v), KT(&y.v), KI(red), KB(op == KLLOG)};
            rc = run(LOSS_OP[op], a, 4, &o.v, 1);
            break;
        }
        case POIS: case POISF: {
            eir_karg a[6] = {KT(&x.v), KT(&y.v), KB(op == POIS), KB(op == POISF), KF(1e-8), KI(red)};
            rc = run(LOSS_OP[op], a, 6, &o.v, 1);
            break;
        }
        case MRANK: {
            eir_karg a[5] = {KT(&x.v), KT(&y.v), KT(&z.v), KF(0.2), KI(red)};
            rc = run(LOSS_OP[op], a, 5, &o.v, 1);
            break;
        }
        case HINGE: {
            eir_karg a[4] = {KT(&x.v), KT(&y.v), KF(0.5), KI(red)};
            rc = run(LOSS_OP[op], a, 4, &o.v, 1);
            break;
        }
        default: {
            eir_karg a[3] = {KT(&x.v), KT(&y.v), KI(red)};
            rc = run(LOSS_OP[op], a, 3, &o.v, 1);
        }
        }
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "  %s: %s\n", LOSS_OP[op], errbuf);
        double want1[1], *want = red ? want1 : l;
        if (red) want1[0] = reduce_ref(l, n, red);
        double *wr = rounded(&o.v, want);
        char what[64];
        snprintf(what, sizeof what, "%s reduction %d", LOSS_OP[op], red);
        CHECK(close_to(&o.v, wr, ltol(dt) * (op == POISF || op == KLLOG ? 4 : 1), what));
        free(wr); free(l);
        tfree(&x); tfree(&y); tfree(&z); tfree(&o);
    }
    /* errors torch raises */
    int64_t s[1] = {3}, s0[1] = {0};
    tt x = tnew(EIR_F32, 1, s, 0), y = tnew(EIR_F32, 1, s, 0), o = tnew(EIR_F32, 0, s0, 0);
    setk(&x.v, 1, 1.5);
    eir_karg a[4] = {KT(&x.v), KT(&y.v), KN(), KI(1)};
    CHECK_FAILS(run("aten.binary_cross_entropy.default", a, 4, &o.v, 1), "all elements of input should be between 0 and 1");
    eir_karg h[4] = {KT(&x.v), KT(&y.v), KI(1), KF(0)};
    CHECK_FAILS(run("aten.huber_loss.default", h, 4, &o.v, 1), "huber_loss does not support non-positive values for delta.");
    h[3] = KF(-1);
    CHECK_FAILS(run("aten.smooth_l1_loss.default", h, 4, &o.v, 1), "smooth_l1_loss does not support negative values for beta.");
    tfree(&x); tfree(&y); tfree(&o);
}

/* log_softmax over dim 1 (or 0 for 1-d) of x at sample s, class c: x given as [N, C, S] flattened */
static double lsm(const double *x, int64_t C, int64_t S, int64_t n, int64_t c, int64_t sp) {
    double m = -INFINITY, sum = 0;
    for (int64_t k = 0; k < C; k++) m = fmax(m, x[(n * C + k) * S + sp]);
    for (int64_t k = 0; k < C; k++) sum += exp(x[(n * C + k) * S + sp] - m);
    return x[(n * C + c) * S + sp] - m - log(sum);
}

/* nll_loss / nll_loss2d / nll_loss_nd / cross_entropy_loss */
static void test_class_losses(void) {
    for (int iter = 0; iter < 96; iter++) {
        eir_dtype dt = FDT[iter % 4 == 3 ? 0 : iter % 4];
        int form = (iter / 4) % 4; /* 0: [C], 1: [N, C], 2: [N, C, S], 3: [N, C, H, W] */
        int red = (iter / 16) % 3;
        bool weighted = iter % 3 == 0, ce = iter % 2 == 0, smooth = ce && iter % 6 == 2, probs = ce && iter % 10 == 4;
        int64_t N = form == 0 ? 1 : irand(1, 4), C = irand(2, 5), H = form == 3 ? irand(1, 3) : 1, W = form >= 2 ? irand(1, 3) : 1, S = H * W;
        int64_t ignore = iter % 5 == 1 ? 1 : -100;
        int64_t xs[4], ts[4], os[4];
        int32_t xr = 0, tr = 0;
        if (form > 0) xs[xr++] = N;
        xs[xr++] = C;
        if (form == 2) xs[xr++] = W;
        if (form == 3) { xs[xr++] = H; xs[xr++] = W; }
        if (form > 0) ts[tr++] = N;
        if (form == 2) ts[tr++] = W;
        if (form == 3) { ts[tr++] = H; ts[tr++] = W; }
        int32_t orr = tr;
        memcpy(os, ts, sizeof os);
        if (probs) { tr = xr; memcpy(ts, xs, sizeof xs); }
        int64_t cs[1] = {C}, s0[1] = {0};
        tt x = tnew(dt, xr, xs, iter % 3), t = tnew(probs ? dt : EIR_I64, tr, ts, (iter + 1) % 3), w = tnew(dt, 1, cs, 0);
        tt o = red || form == 0 ? tnew(dt, 0, s0, 0) : tnew(dt, orr, os, 2);
        int64_t nx = N * C * S;
        double *xv = malloc((size_t)nx * sizeof *xv), *tp = malloc((size_t)nx * sizeof *tp);
        int64_t *tv = malloc((size_t)(N * S) * sizeof *tv);
        for (int64_t k = 0; k < nx; k++) { setk(&x.v, k, urand() * 2); xv[k] = getk(&x.v, k); }
        for (int64_t k = 0; k < C; k++) setk(&w.v, k, (double)irand(1, 8) / 4);
        if (probs) {
            for (int64_t k = 0; k < nx; k++) { setk(&t.v, k, (urand() + 1) / 2); tp[k] = getk(&t.v, k); }
        } else {
            for (int64_t k = 0; k < N * S; k++) { tv[k] = irand(0, C - 1); setk(&t.v, k, (double)tv[k]); }
        }
        double ls = smooth ? 0.2 : probs && iter % 4 == 0 ? 0.1 : 0;
        /* reference */
        int64_t M = N * S;
        double *per = calloc((size_t)M, sizeof *per), tw = 0, tot = 0, smsum = 0, wsum_kept = 0;
        int64_t kept = 0;
        for (int64_t q = 0; q < M; q++) {
            int64_t n = q / S, sp = q % S;
            if (probs) {
                double acc = 0;
                for (int64_t c = 0; c < C; c++) {
                    double tc = tp[(n * C + c) * S + sp] * (1 - ls) + ls / (double)C;
                    acc += lsm(xv, C, S, n, c, sp) * tc * (weighted ? getk(&w.v, c) : 1);
                }
                per[q] = -acc;
                tot += acc;
                continue;
            }
            int64_t tq = tv[q];
            if (tq == ignore) continue;
            double wv = weighted ? getk(&w.v, tq) : 1;
            double xq = ce ? lsm(xv, C, S, n, tq, sp) : xv[(n * C + tq) * S + sp];
            per[q] = -xq * wv;
            tw += wv;
            tot += per[q];
            if (smooth) {
                double sm = 0;
                for (int64_t c = 0; c < C; c++) sm += lsm(xv, C, S, n, c, sp) * (weighted ? getk(&w.v, c) : 1);
                kept++;
                wsum_kept += wv;
                smsum += -sm;
                per[q] = (1 - ls) * per[q] + ls / (double)C * -sm;
            }
        }
        double *want, w1[1];
        if (red == 0 && form > 0) want = per;
        else {
            want = w1;
            if (probs) w1[0] = red == 1 ? -tot / (double)M : red == 2 ? -tot : per[0];
            else if (smooth) {
                double nll = red == 1 ? tot / tw : tot, ret = red == 1 ? smsum / (weighted ? wsum_kept : (double)kept) : smsum;
                w1[0] = red == 0 ? per[0] : (1 - ls) * nll + ls / (double)C * ret;
            } else {
                w1[0] = red == 1 ? tot / tw : tot;
            }
        }
        const char *op = ce ? "aten.cross_entropy_loss.default" : form == 3 && iter % 4 == 1 ? "aten.nll_loss2d.default" : form <= 1 ? "aten.nll_loss.default" : "aten.nll_loss_nd.default";
        int rc;
        if (!ce) {
            /* nll takes log-probabilities: the raw x here (any values do) */
            eir_karg a[5] = {KT(&x.v), KT(&t.v), weighted ? KT(&w.v) : KN(), KI(red), KI(ignore)};
            rc = run(op, a, 5, &o.v, 1);
        } else {
            eir_karg a[6] = {KT(&x.v), KT(&t.v), weighted ? KT(&w.v) : KN(), KI(red), KI(probs ? -100 : ignore), KF(ls)};
            rc = run(op, a, 6, &o.v, 1);
        }
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "  %s: %s\n", op, errbuf);
        double *wr = rounded(&o.v, want);
        char what[96];
        snprintf(what, sizeof what, "%s form %d reduction %d%s%s", op, form, red, smooth ? " smoothing" : "", probs ? " probs" : "");
        CHECK(close_to(&o.v, wr, ltol(dt) * 4, what));
        free(wr); free(per); free(xv); free(tp); free(tv);
        tfree(&x); tfree(&t); tfree(&w); tfree(&o);
    }
    /* every target ignored: mean is 0 / 0; targets out of range; nll_loss_forward's total weight */
    int64_t xs[2] = {2, 3}, ts[1] = {2}, s0[1] = {0};
    tt x = tnew(EIR_F32, 2, xs, 0), t = tnew(EIR_I64, 1, ts, 0), o = tnew(EIR_F32, 0, s0, 0), tw = tnew(EIR_F32, 0, s0, 0);
    fill_rand(&x.v);
    setk(&t.v, 0, -100); setk(&t.v, 1, -100);
    eir_karg a[5] = {KT(&x.v), KT(&t.v), KN(), KI(1), KI(-100)};
    CHECK(run("aten.nll_loss.default", a, 5, &o.v, 1) == 0 && isnan(getk(&o.v, 0)));
    setk(&t.v, 1, 7);
    CHECK_FAILS(run("aten.nll_loss.default", a, 5, &o.v, 1), "Target 7 is out of bounds.");
    setk(&t.v, 0, 2); setk(&t.v, 1, 0);
    eir_tview two[2] = {o.v, tw.v};
    CHECK(run("aten.nll_loss_forward.default", a, 5, two, 2) == 0 && getk(&tw.v, 0) == 2);
    CHECK(fabs(getk(&o.v, 0) + (getk(&x.v, 2) + getk(&x.v, 3)) / 2) < 1e-6);
    int64_t t3[1] = {3};
    tt tb = tnew(EIR_I64, 1, t3, 0);
    eir_karg b[5] = {KT(&x.v), KT(&tb.v), KN(), KI(1), KI(-100)};
    CHECK_FAILS(run("aten.nll_loss_nd.default", b, 5, &o.v, 1), "Expected input batch_size (2) to match target batch_size (3).");
    tt pt = tnew(EIR_F32, 2, xs, 0);
    eir_karg c[6] = {KT(&x.v), KT(&pt.v), KN(), KI(1), KI(1), KF(0)};
    CHECK_FAILS(run("aten.cross_entropy_loss.default", c, 6, &o.v, 1), "ignore_index is not supported for floating point target");
    tfree(&x); tfree(&t); tfree(&o); tfree(&tw); tfree(&tb); tfree(&pt);
}

/* multi_margin, multilabel_margin, cosine_embedding, triplet_margin per sample */
static void test_margin_losses(void) {
    for (int iter = 0; iter < 40; iter++) {
        eir_dtype dt = iter % 2 ? EIR_F64 : EIR_F32;
        int red = iter % 3;
        int64_t N = irand(1, 5), D = irand(2, 6), xs[2] = {N, D}, ns[1] = {N}, ds[1] = {D}, s0[1] = {0};
        tt x = tnew(dt, 2, xs, iter % 3), y = tnew(dt, 2, xs, (iter + 1) % 3), z = tnew(dt, 2, xs, 0), w = tnew(dt, 1, ds, 0);
        tt t = tnew(EIR_I64, 1, ns, 0), tl = tnew(EIR_I64, 2, xs, iter % 2), sg = tnew(dt, 1, ns, 0);
        tt o = red ? tnew(dt, 0, s0, 0) : tnew(dt, 1, ns, iter % 2 ? 2 : 0);
        fill_rand(&x.v); fill_rand(&y.v); fill_rand(&z.v);
        for (int64_t k = 0; k < D; k++) setk(&w.v, k, (double)irand(1, 8) / 4);
        for (int64_t i = 0; i < N; i++) {
            setk(&t.v, i, (double)irand(0, D - 1));
            setk(&sg.v, i, urand() < 0 ? -1 : 1);
            int64_t nl = irand(0, D - 1);
            for (int64_t k = 0; k < D; k++) setk(&tl.v, i * D + k, k < nl ? (double)((i + 2 * k) % D) : k == nl ? -1 : (double)irand(-1, D - 1));
        }
        double *v = calloc((size_t)N, sizeof *v), wr1[1];
        for (int kind = 0; kind < 4; kind++) {
            for (int64_t i = 0; i < N; i++) {
                double s = 0;
                if (kind == 0) {  /* multi_margin, p = 2, margin 0.7, weight */
                    int64_t ti = (int64_t)getk(&t.v, i);
                    for (int64_t d = 0; d < D; d++) {
                        double m = 0.7 - getk(&x.v, i * D + ti) + getk(&x.v, i * D + d);
                        if (d != ti && m > 0) s += m * m * getk(&w.v, ti);
                    }
                    s /= (double)D;
                } else if (kind == 1) {  /* multilabel_margin */
                    bool is_t[8] = {false};
                    int64_t k = 0;
                    for (; k < D && getk(&tl.v, i * D + k) >= 0; k++) is_t[(int64_t)getk(&tl.v, i * D + k)] = true;
                    for (int64_t j = 0; j < k; j++)
                        for (int64_t d = 0; d < D; d++)
                            if (!is_t[d]) s += fmax(1 - getk(&x.v, i * D + (int64_t)getk(&tl.v, i * D + j)) + getk(&x.v, i * D + d), 0);
                    s /= (double)D;
                } else if (kind == 2) {  /* cosine_embedding, margin 0.1 */
                    double p = 0, m1 = 1e-12, m2 = 1e-12;
                    for (int64_t d = 0; d < D; d++) {
                        p += getk(&x.v, i * D + d) * getk(&y.v, i * D + d);
                        m1 += getk(&x.v, i * D + d) * getk(&x.v, i * D + d);
                        m2 += getk(&y.v, i * D + d) * getk(&y.v, i * D + d);
                    }
                    double c = p / sqrt(m1 * m2);
                    s = getk(&sg.v, i) == 1 ? 1 - c : fmax(c - 0.1, 0);
                } else {  /* triplet_margin, p = 2, eps 1e-6, margin 1, swap */
                    double dp = 0, dn = 0, dsw = 0;
                    for (int64_t d = 0; d < D; d++) {
                        double a = getk(&x.v, i * D + d), p = getk(&y.v, i * D + d), n = getk(&z.v, i * D + d);
                        dp += (a - p + 1e-6) * (a - p + 1e-6);
                        dn += (a - n + 1e-6) * (a - n + 1e-6);
                        dsw += (p - n + 1e-6) * (p - n + 1e-6);
                    }
                    s = fmax(1 + sqrt(dp) - fmin(sqrt(dn), sqrt(dsw)), 0);
                }
                v[i] = s;
            }
            int rc;
            static const char *const ops[4] = {"aten.multi_margin_loss.default", "aten.multilabel_margin_loss.default",
                                               "aten.cosine_embedding_loss.default", "aten.triplet_margin_loss.default"};
            if (kind == 0) {
                eir_karg a[6] = {KT(&x.v), KT(&t.v), KI(2), KF(0.7), KT(&w.v), KI(red)};
                rc = run(ops[kind], a, 6, &o.v, 1);
            } else if (kind == 1) {
                eir_karg a[3] = {KT(&x.v), KT(&tl.v), KI(red)};
                rc = run(ops[kind], a, 3, &o.v, 1);
            } else if (kind == 2) {
                eir_karg a[5] = {KT(&x.v), KT(&y.v), KT(&sg.v), KF(0.1), KI(red)};
                rc = run(ops[kind], a, 5, &o.v, 1);
            } else {
                eir_karg a[8] = {KT(&x.v), KT(&y.v), KT(&z.v), KF(1), KF(2), KF(1e-6), KB(true), KI(red)};
                rc = run(ops[kind], a, 8, &o.v, 1);
            }
            CHECK(rc == 0);
            if (rc) fprintf(stderr, "  %s: %s\n", ops[kind], errbuf);
            if (red) wr1[0] = reduce_ref(v, N, red);
            double *wr = rounded(&o.v, red ? wr1 : v);
            CHECK(close_to(&o.v, wr, dt == EIR_F64 ? 1e-12 : 1e-5, ops[kind]));
            free(wr);
        }
        free(v);
        tfree(&x); tfree(&y); tfree(&z); tfree(&w); tfree(&t); tfree(&tl); tfree(&sg); tfree(&o);
    }
    int64_t xs[2] = {2, 3}, ts[1] = {2}, s0[1] = {0};
    tt x = tnew(EIR_F32, 2, xs, 0), t = tnew(EIR_I64, 1, ts, 0), tl = tnew(EIR_I64, 2, xs, 0), o = tnew(EIR_F32, 0, s0, 0);
    setk(&t.v, 1, 3);
    eir_karg a[6] = {KT(&x.v), KT(&t.v), KI(1), KF(1), KN(), KI(1)};
    CHECK_FAILS(run("aten.multi_margin_loss.default", a, 6, &o.v, 1), "target out of range");
    a[2] = KI(3);
    CHECK_FAILS(run("aten.multi_margin_loss.default", a, 6, &o.v, 1), "only p == 1 and p == 2 supported");
    setk(&tl.v, 4, 5);
    eir_karg b[3] = {KT(&x.v), KT(&tl.v), KI(1)};
    CHECK_FAILS(run("aten.multilabel_margin_loss.default", b, 3, &o.v, 1), "argument #2 'target' is out of range");
    tfree(&x); tfree(&t); tfree(&tl); tfree(&o);
}

int main(void) {
    test_elementwise();
    test_class_losses();
    test_margin_losses();
    print_worst("loss");
    return check_summary("test_k_loss");
}
