/* test_k_stats.c — the kernels of src/kernels/stats.c (and the reductions
 * reduce.c gained with them: var/std .default and the _mean forms, nansum,
 * nanmean, aminmax, _safe_softmax) against naive reference twins: order
 * statistics from a stable sort, quantiles from the textbook formula,
 * running extremes and logcumsumexp by direct loops, histograms by counting,
 * searchsorted / isin by linear scans, rms_norm in double; random shapes,
 * non-contiguous layouts, NaNs, empty tensors, float and integer dtypes, the
 * tie indices torch returns (values computed with torch 2.13), and the
 * errors torch raises. */
#include "ktest.h"

static const eir_dtype SORT_DT[] = {EIR_F32, EIR_F64, EIR_F16, EIR_I64, EIR_I32, EIR_BF16};

/* small integers (many ties), NaNs sprinkled into float dtypes when nan */
static void fill_ties(const eir_tview *v, bool nan) {
    int64_t n = numel(v);
    for (int64_t k = 0; k < n; k++) {
        double x = (double)irand(-4, 4);
        if (nan && eir_is_floating(v->dtype) && irand(0, 9) == 0) x = NAN;
        setk(v, k, x);
    }
}

/* line l (all dims but dim, row-major) of x: element i's row-major position */
static int64_t line_pos(const eir_tview *x, int32_t dim, int64_t l, int64_t i) {
    int64_t idx[EIR_MAX_RANK], pos = 0;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        if (d == dim) { idx[d] = i; continue; }
        idx[d] = l % x->sizes[d];
        l /= x->sizes[d];
    }
    for (int32_t d = 0; d < x->rank; d++) pos = pos * x->sizes[d] + idx[d];
    return pos;
}

typedef struct pair { double v; int64_t i; } pair;
static int cmp_pair(const void *a, const void *b) { /* value (NaN last), then index: a stable sort */
    const pair *x = a, *y = b;
    bool nx = isnan(x->v), ny = isnan(y->v);
    if (nx != ny) return nx ? 1 : -1;
    if (!nx && x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* median.dim, nanmedian.dim, kthvalue, mode over random shapes */
static void test_order_dim(void) {
    for (int iter = 0; iter < 120; iter++) {
        eir_dtype dt = SORT_DT[iter % 6];
        int32_t rank = (int32_t)irand(1, 3);
        int64_t s[3];
        for (int32_t d = 0; d < rank; d++) s[d] = irand(1, iter % 5 == 0 ? 40 : 7);
        int32_t dim = (int32_t)irand(0, rank - 1);
        int which = iter % 4;
        tt x = tnew(dt, rank, s, iter % 3);
        fill_ties(&x.v, which < 2 && iter % 2);
        int64_t os[3], L = 1, n = s[dim];
        int32_t orank = 0;
        bool keep = iter % 3 == 1;
        for (int32_t d = 0; d < rank; d++) {
            if (d != dim) { os[orank++] = s[d]; L *= s[d]; }
            else if (keep) os[orank++] = 1;
        }
        tt vo = tnew(dt, orank, os, (iter + 1) % 3), io = tnew(EIR_I64, orank, os, 0);
        int64_t k = irand(1, n);
        eir_tview outs[2] = {vo.v, io.v};
        static const char *const ops[4] = {"aten.median.dim", "aten.nanmedian.dim", "aten.kthvalue.default", "aten.mode.default"};
        int rc;
        if (which == 2) {
            eir_karg a[4] = {KT(&x.v), KI(k), KI(dim - (iter % 2 ? rank : 0)), KB(keep)};
            rc = run(ops[which], a, 4, outs, 2);
        } else {
            eir_karg a[3] = {KT(&x.v), KI(dim), KB(keep)};
            rc = run(ops[which], a, 3, outs, 2);
        }
        CHECK(rc == 0);
        pair *line = malloc((size_t)n * sizeof *line);
        for (int64_t l = 0; l < L; l++) {
            for (int64_t i = 0; i < n; i++) line[i] = (pair){getk(&x.v, line_pos(&x.v, dim, l, i)), i};
            double got = getk(&vo.v, l);
            int64_t gi = (int64_t)getk(&io.v, l);
            bool ok = gi >= 0 && gi < n && (line[gi].v == got || (isnan(got) && isnan(line[gi].v)));
            int64_t nnan = 0, first_nan = -1;
            for (int64_t i = 0; i < n; i++)
                if (isnan(line[i].v)) { nnan++; if (first_nan < 0) first_nan = i; }
            qsort(line, (size_t)n, sizeof *line, cmp_pair);
            if (which == 0) {  /* median: a NaN wins (the first); else position (n-1)/2, ties by index */
                if (nnan) ok = ok && isnan(got) && gi == first_nan;
                else ok = ok && got == line[(n - 1) / 2].v && gi == line[(n - 1) / 2].i;
            } else if (which == 1) {  /* nanmedian: the lower median of the non-NaN values */
                if (nnan < n) ok = ok && got == line[(n - nnan - 1) / 2].v && gi == line[(n - nnan - 1) / 2].i;
                else ok = ok && isnan(got);
            } else if (which == 2) {  /* kthvalue: the k-th smallest (NaN largest) */
                double w = line[k - 1].v;
                ok = ok && (got == w || (isnan(w) && isnan(got)));
            } else {  /* mode: the most frequent value, the smallest among equally frequent */
                double best = line[0].v;
                int64_t bf = 0, f = 0;
                for (int64_t i = 0; i < n; i++) {
                    f++;
                    if (i == n - 1 || line[i].v != line[i + 1].v) {
                        if (f > bf) { bf = f; best = line[i].v; }
                        f = 0;
                    }
                }
                ok = ok && got == best;
                /* up to 16 elements std::sort is an insertion sort: the last occurrence */
                if (n <= 16) {
                    int64_t last = -1;
                    for (int64_t i = 0; i < n; i++)
                        if (getk(&x.v, line_pos(&x.v, dim, l, i)) == got) last = i;
                    ok = ok && gi == last;
                }
            }
            if (!ok) { fprintf(stderr, "%s iter %d line %lld: got %g @%lld\n", ops[which], iter, (long long)l, got, (long long)gi); CHECK(false); break; }
        }
        CHECK(true);
        free(line);
        tfree(&x); tfree(&vo); tfree(&io);
    }
    /* tie indices computed with torch 2.13 (quickselect / introsort / introselect) */
    static const double kx[7] = {2, 1, 2, 1, 2, 1, 2};
    static const int64_t kidx[7] = {3, 1, 5, 0, 4, 2, 6};
    int64_t s7[1] = {7}, s0[1] = {0};
    tt x = tnew(EIR_F32, 1, s7, 0), v = tnew(EIR_F32, 0, s0, 0), i = tnew(EIR_I64, 0, s0, 0);
    for (int k = 0; k < 7; k++) setk(&x.v, k, kx[k]);
    for (int k = 1; k <= 7; k++) {
        eir_karg a[4] = {KT(&x.v), KI(k), KI(0), KB(false)};
        eir_tview outs[2] = {v.v, i.v};
        CHECK(run("aten.kthvalue.default", a, 4, outs, 2) == 0);
        CHECK(getk(&i.v, 0) == kidx[k - 1]);
    }
    int64_t s5[1] = {5};
    tt nn = tnew(EIR_F32, 1, s5, 0);
    for (int k = 0; k < 5; k++) setk(&nn.v, k, NAN);
    eir_karg a3[3] = {KT(&nn.v), KI(0), KB(false)};
    eir_tview outs[2] = {v.v, i.v};
    CHECK(run("aten.nanmedian.dim", a3, 3, outs, 2) == 0);
    CHECK(isnan(getk(&v.v, 0)) && getk(&i.v, 0) == 2); /* torch: index 2 of 5 NaNs */
    /* errors */
    eir_karg bad[4] = {KT(&x.v), KI(8), KI(0), KB(false)};
    CHECK_FAILS(run("aten.kthvalue.default", bad, 4, outs, 2), "kthvalue(): selected number k out of range for dimension 0");
    tt e = tnew(EIR_F32, 1, s0, 0);
    eir_karg ea[3] = {KT(&e.v), KI(0), KB(false)};
    CHECK_FAILS(run("aten.mode.default", ea, 3, outs, 2), "mode(): Expected reduction dim 0 to have non-zero size.");
    eir_karg eb[3] = {KT(&x.v), KI(2), KB(false)};
    CHECK_FAILS(run("aten.median.dim", eb, 3, outs, 2), "Dimension out of range (expected to be in range of [-1, 0], but got 2)");
    tfree(&x); tfree(&v); tfree(&i); tfree(&nn); tfree(&e);
}

/* mode's indices over long lines: values and indices computed with torch 2.13 */
static void test_mode_torch(void) {
    /* x[i] = (i * 7) % 5 for i < 40, mode of [i % 3 ... ] patterns */
    int64_t s[1] = {40}, s0[1] = {0};
    tt x = tnew(EIR_I64, 1, s, 0), v = tnew(EIR_I64, 0, s0, 0), i = tnew(EIR_I64, 0, s0, 0);
    for (int64_t k = 0; k < 40; k++) setk(&x.v, k, (double)((k * k + 3 * k) % 7 % 3));
    eir_karg a[3] = {KT(&x.v), KI(0), KB(false)};
    eir_tview outs[2] = {v.v, i.v};
    CHECK(run("aten.mode.default", a, 3, outs, 2) == 0);
    /* torch.mode(torch.tensor([(k*k+3*k)%7%3 for k in range(40)])) -> values=0, indices=0 */
    CHECK(getk(&v.v, 0) == 0);
    CHECK(getk(&i.v, 0) == 0);
    if (getk(&i.v, 0) != 0) fprintf(stderr, "mode index %g\n", getk(&i.v, 0));
    tfree(&x); tfree(&v); tfree(&i);
}

static void test_median_all(void) {
    for (int iter = 0; iter < 40; iter++) {
        eir_dtype dt = SORT_DT[iter % 6];
        int64_t s[2] = {irand(1, 9), irand(1, 9)}, s0[1] = {0};
        tt x = tnew(dt, 2, s, iter % 3), o = tnew(dt, 0, s0, 0);
        fill_ties(&x.v, iter % 3 == 0);
        int64_t n = numel(&x.v), nnan = 0;
        double *v = malloc((size_t)n * sizeof *v);
        for (int64_t k = 0; k < n; k++) { v[k] = getk(&x.v, k); nnan += isnan(v[k]); }
        pair *p = malloc((size_t)n * sizeof *p);
        for (int64_t k = 0; k < n; k++) p[k] = (pair){v[k], k};
        qsort(p, (size_t)n, sizeof *p, cmp_pair);
        eir_karg a[1] = {KT(&x.v)};
        CHECK(run("aten.median.default", a, 1, &o.v, 1) == 0);
        CHECK(nnan ? isnan(getk(&o.v, 0)) : getk(&o.v, 0) == p[(n - 1) / 2].v);
        CHECK(run("aten.nanmedian.default", a, 1, &o.v, 1) == 0);
        CHECK(nnan == n ? isnan(getk(&o.v, 0)) : getk(&o.v, 0) == p[(n - nnan - 1) / 2].v);
        free(v); free(p);
        tfree(&x); tfree(&o);
    }
    int64_t s0[1] = {0};
    tt e = tnew(EIR_F32, 1, s0, 0), o = tnew(EIR_F32, 0, s0, 0);
    eir_karg a[1] = {KT(&e.v)};
    CHECK(run("aten.median.default", a, 1, &o.v, 1) == 0 && isnan(getk(&o.v, 0)));
    tfree(&e); tfree(&o);
}

/* quantile / nanquantile: sorted line, rank q * (n - 1), interpolation */
static double ref_quantile(double *v, int64_t n, double q, bool ignore_nan, const char *interp, eir_dtype dt) {
    int64_t nnan = 0;
    for (int64_t i = 0; i < n; i++) nnan += isnan(v[i]);
    pair *p = malloc((size_t)n * sizeof *p);
    for (int64_t i = 0; i < n; i++) p[i] = (pair){v[i], i};
    qsort(p, (size_t)n, sizeof *p, cmp_pair);
    double r;
    if (!ignore_nan && nnan) r = NAN;
    else if (nnan == n) r = NAN;
    else {
        int64_t m = n - nnan;
        double rank = eir_round_f64(q * (double)(m - 1), dt);
        if (!strcmp(interp, "lower")) rank = floor(rank);
        else if (!strcmp(interp, "higher")) rank = ceil(rank);
        else if (!strcmp(interp, "nearest")) rank = nearbyint(rank);
        double lo = p[(int64_t)floor(rank)].v, hi = p[(int64_t)ceil(rank)].v;
        double w = !strcmp(interp, "midpoint") ? 0.5 : rank - floor(rank);
        r = lo + w * (hi - lo);
    }
    free(p);
    return r;
}

static void test_quantile(void) {
    static const char *const interps[5] = {"linear", "lower", "higher", "midpoint", "nearest"};
    for (int iter = 0; iter < 60; iter++) {
        eir_dtype dt = iter % 2 ? EIR_F64 : EIR_F32;
        const char *interp = interps[iter % 5];
        bool ignore = iter % 3 == 0, qt = iter % 4 == 1, all = iter % 5 == 2;
        int64_t s[2] = {irand(1, 6), irand(1, 9)}, qn = irand(1, 4);
        tt x = tnew(dt, 2, s, iter % 3);
        fill_rand(&x.v);
        if (iter % 2) setk(&x.v, irand(0, numel(&x.v) - 1), NAN);
        double qs[4];
        int64_t qsz[1] = {qn};
        tt q = tnew(dt, 1, qsz, 0);
        for (int64_t k = 0; k < qn; k++) { qs[k] = eir_round_f64((double)irand(0, 20) / 20, dt); setk(&q.v, k, qs[k]); }
        if (!qt) qn = 1;
        /* out: [Q,] + (all dims reduced | dim 1 reduced) */
        int64_t os[3];
        int32_t orank = 0;
        if (qt) os[orank++] = qn;
        if (!all) os[orank++] = s[0];
        tt o = tnew(dt, orank, os, (iter + 1) % 2);
        eir_karg a[5] = {KT(&x.v), qt ? KT(&q.v) : KF(qs[0]), all ? KN() : KI(-1), KB(false), KSTR(interp)};
        const char *op = ignore ? (qt ? "aten.nanquantile.default" : "aten.nanquantile.scalar") : (qt ? "aten.quantile.default" : "aten.quantile.scalar");
        CHECK(run(op, a, 5, &o.v, 1) == 0);
        int64_t lines = all ? 1 : s[0], n = all ? numel(&x.v) : s[1];
        double *want = malloc((size_t)(qn * lines) * sizeof *want), *v = malloc((size_t)n * sizeof *v);
        for (int64_t qi = 0; qi < qn; qi++)
            for (int64_t l = 0; l < lines; l++) {
                for (int64_t i = 0; i < n; i++) v[i] = getk(&x.v, all ? i : l * s[1] + i);
                want[qi * lines + l] = ref_quantile(v, n, qs[qi], ignore, interp, dt);
            }
        double *wr = rounded(&o.v, want);
        CHECK(close_to(&o.v, wr, dt == EIR_F64 ? 1e-12 : 1e-6, "quantile"));
        free(wr); free(want); free(v);
        tfree(&x); tfree(&q); tfree(&o);
    }
    int64_t s[1] = {3}, s0[1] = {0};
    tt x = tnew(EIR_F32, 1, s, 0), o = tnew(EIR_F32, 0, s0, 0), h = tnew(EIR_F16, 1, s, 0), e = tnew(EIR_F32, 1, s0, 0);
    eir_karg a[5] = {KT(&x.v), KF(1.5), KN(), KB(false), KSTR("linear")};
    CHECK_FAILS(run("aten.quantile.scalar", a, 5, &o.v, 1), "quantile() q must be in the range [0, 1] but got 1.5");
    a[1] = KF(0.5);
    a[4] = KSTR("cubic");
    CHECK_FAILS(run("aten.quantile.scalar", a, 5, &o.v, 1), "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got cubic");
    a[4] = KSTR("linear");
    a[0] = KT(&h.v);
    CHECK_FAILS(run("aten.quantile.scalar", a, 5, &o.v, 1), "quantile() input tensor must be either float or double dtype");
    a[0] = KT(&e.v);
    CHECK_FAILS(run("aten.nanquantile.scalar", a, 5, &o.v, 1), "nanquantile() input tensor must be non-empty");
    tfree(&x); tfree(&o); tfree(&h); tfree(&e);
}

/* cummax / cummin / logcumsumexp along a random dim */
static void test_scans(void) {
    for (int iter = 0; iter < 60; iter++) {
        eir_dtype dt = iter % 3 == 2 ? SORT_DT[iter % 6] : iter % 2 ? EIR_F64 : EIR_F32;
        int32_t rank = (int32_t)irand(1, 3);
        int64_t s[3];
        for (int32_t d = 0; d < rank; d++) s[d] = irand(iter % 11 == 0 ? 0 : 1, 6);
        int32_t dim = (int32_t)irand(0, rank - 1);
        tt x = tnew(dt, rank, s, iter % 3), v = tnew(dt, rank, s, (iter + 1) % 3), i = tnew(EIR_I64, rank, s, 2);
        fill_ties(&x.v, iter % 2);
        int64_t n = s[dim], L = n ? numel(&x.v) / n : 0;
        bool mx = iter % 2;
        eir_karg a[2] = {KT(&x.v), KI(dim)};
        eir_tview outs[2] = {v.v, i.v};
        CHECK(run(mx ? "aten.cummax.default" : "aten.cummin.default", a, 2, outs, 2) == 0);
        bool ok = true;
        for (int64_t l = 0; l < L; l++) {
            double best = 0;
            int64_t bi = 0;
            for (int64_t k = 0; k < n; k++) {
                int64_t pos = line_pos(&x.v, dim, l, k);
                double e = getk(&x.v, pos);
                if (k == 0 || isnan(e) || (!isnan(best) && (mx ? e >= best : e <= best))) { best = e; bi = k; }
                double g = getk(&v.v, pos);
                ok = ok && (g == best || (isnan(g) && isnan(best))) && getk(&i.v, pos) == bi;
            }
        }
        CHECK(ok);
        if (eir_is_floating(dt) && dt != EIR_BF16 && dt != EIR_F16) {
            fill_rand(&x.v);
            CHECK(run("aten.logcumsumexp.default", a, 2, &v.v, 1) == 0);
            double *want = calloc((size_t)numel(&x.v) + 1, sizeof *want);
            for (int64_t l = 0; l < L; l++) {
                double acc = 0;
                for (int64_t k = 0; k < n; k++) {
                    int64_t pos = line_pos(&x.v, dim, l, k);
                    acc += exp(getk(&x.v, pos));
                    want[pos] = log(acc);
                }
            }
            double *wr = rounded(&v.v, want);
            CHECK(close_to(&v.v, wr, tol_of(dt), "logcumsumexp"));
            free(wr); free(want);
        }
        tfree(&x); tfree(&v); tfree(&i);
    }
    /* logcumsumexp with infinities: -inf entries add nothing, +inf stays */
    int64_t s[1] = {4};
    tt x = tnew(EIR_F32, 1, s, 0), y = tnew(EIR_F32, 1, s, 0);
    double xv[4] = {-INFINITY, 0, INFINITY, 1};
    for (int k = 0; k < 4; k++) setk(&x.v, k, xv[k]);
    eir_karg a[2] = {KT(&x.v), KI(0)};
    CHECK(run("aten.logcumsumexp.default", a, 2, &y.v, 1) == 0);
    CHECK(getk(&y.v, 0) == -INFINITY && getk(&y.v, 1) == 0 && getk(&y.v, 2) == INFINITY && getk(&y.v, 3) == INFINITY);
    tfree(&x); tfree(&y);
}

/* histc / histogram: values on a grid of bin centres, counted by hand */
static void test_histograms(void) {
    for (int iter = 0; iter < 40; iter++) {
        eir_dtype dt = iter % 2 ? EIR_F64 : EIR_F32;
        int64_t bins = irand(1, 9), n = irand(0, 30), s[1] = {n}, hs[1] = {bins}, es[1] = {bins + 1};
        tt x = tnew(dt, 1, s, iter % 3 == 0 ? 2 : 0), w = tnew(dt, 1, s, 0), h = tnew(dt, 1, hs, iter % 2 ? 2 : 0), e = tnew(dt, 1, es, 0);
        /* range [-2, 6): bin b covers [-2 + 8b/bins, ...); centres, plus out-of-range values and NaN */
        double *want = calloc((size_t)bins, sizeof *want), *wantw = calloc((size_t)bins, sizeof *wantw);
        for (int64_t k = 0; k < n; k++) {
            int64_t b = irand(-1, bins);
            double v = b < 0 ? -5 : b == bins ? (iter % 3 ? 9 : NAN) : -2 + 8.0 * ((double)b + 0.5) / (double)bins;
            double wv = (double)irand(1, 4) / 4;
            setk(&x.v, k, v);
            setk(&w.v, k, wv);
            if (b >= 0 && b < bins) { want[b] += 1; wantw[b] += wv; }
        }
        eir_karg hc[4] = {KT(&x.v), KI(bins), KF(-2), KF(6)};
        CHECK(run("aten.histc.default", hc, 4, &h.v, 1) == 0);
        CHECK(close_to(&h.v, want, 0, "histc"));
        double range[2] = {-2, 6};
        eir_karg hg[5] = {KT(&x.v), KI(bins), KFS(2, range), KT(&w.v), KB(false)};
        eir_tview outs[2] = {h.v, e.v};
        CHECK(run("aten.histogram.bin_ct", hg, 5, outs, 2) == 0);
        CHECK(close_to(&h.v, wantw, 0, "histogram weight"));
        double *we = malloc((size_t)(bins + 1) * sizeof *we);
        for (int64_t b = 0; b <= bins; b++) we[b] = -2 + 8.0 * (double)b / (double)bins;
        double *wr = rounded(&e.v, we);
        CHECK(close_to(&e.v, wr, dt == EIR_F64 ? 1e-15 : 1e-7, "histogram edges"));
        /* the same edges as a tensor, with density */
        eir_karg hb[4] = {KT(&x.v), KT(&e.v), KN(), KB(true)};
        tt e2 = tnew(dt, 1, es, 0);
        eir_tview outs2[2] = {h.v, e2.v};
        CHECK(run("aten.histogram.bins_tensor", hb, 4, outs2, 2) == 0);
        double tot = 0;
        for (int64_t b = 0; b < bins; b++) tot += want[b];
        for (int64_t b = 0; b < bins; b++) want[b] = tot ? want[b] / tot / (8.0 / (double)bins) : NAN;
        CHECK(close_to(&h.v, want, tol_of(dt) * 4, "histogram density"));
        free(want); free(wantw); free(we); free(wr);
        tfree(&x); tfree(&w); tfree(&h); tfree(&e); tfree(&e2);
    }
    /* histogramdd: 2-d samples on bin centres of [0, 4) x [-1, 1), counted by hand */
    for (int iter = 0; iter < 10; iter++) {
        int64_t M = irand(0, 40), xs[2] = {M, 2}, b0 = irand(1, 4), b1 = irand(1, 5), hs[2] = {b0, b1}, e0s[1] = {b0 + 1}, e1s[1] = {b1 + 1};
        tt x = tnew(EIR_F64, 2, xs, iter % 2), h = tnew(EIR_F64, 2, hs, iter % 3), e0 = tnew(EIR_F64, 1, e0s, 0), e1 = tnew(EIR_F64, 1, e1s, 0);
        double *want = calloc((size_t)(b0 * b1), sizeof *want);
        for (int64_t m = 0; m < M; m++) {
            int64_t i = irand(0, b0), j = irand(0, b1 - 1);  /* i == b0: outside, skipped */
            setk(&x.v, 2 * m, 4.0 * ((double)i + 0.5) / (double)b0);
            setk(&x.v, 2 * m + 1, -1 + 2.0 * ((double)j + 0.5) / (double)b1);
            if (i < b0) want[i * b1 + j] += 1;
        }
        int64_t bins[2] = {b0, b1};
        double range[4] = {0, 4, -1, 1};
        eir_karg a[5] = {KT(&x.v), KIS(2, bins), KFS(4, range), KN(), KB(false)};
        eir_tview outs[3] = {h.v, e0.v, e1.v};
        CHECK(run("aten.histogramdd.default", a, 5, outs, 3) == 0);
        CHECK(close_to(&h.v, want, 0, "histogramdd"));
        CHECK(getk(&e0.v, b0) == 4 && getk(&e1.v, 0) == -1);
        free(want);
        tfree(&x); tfree(&h); tfree(&e0); tfree(&e1);
    }
    /* histc takes the data's range when min == max; float16 counts */
    int64_t s[1] = {5}, hs[1] = {4};
    tt x = tnew(EIR_F16, 1, s, 0), h = tnew(EIR_F16, 1, hs, 0);
    double xv[5] = {1, 2, 3, 4, 2.5};
    for (int k = 0; k < 5; k++) setk(&x.v, k, xv[k]);
    eir_karg hc[4] = {KT(&x.v), KI(4), KI(0), KI(0)};
    CHECK(run("aten.histc.default", hc, 4, &h.v, 1) == 0);
    double wh[4] = {1, 1, 2, 1}; /* [1, 1.75) [1.75, 2.5) [2.5, 3.25) [3.25, 4] (torch 2.13) */
    CHECK(close_to(&h.v, wh, 0, "histc data range"));
    setk(&x.v, 0, NAN);
    CHECK_FAILS(run("aten.histc.default", hc, 4, &h.v, 1), "torch.histc: range of [nan, nan] is not finite");
    tfree(&x); tfree(&h);
}

static void test_bincount(void) {
    for (int iter = 0; iter < 20; iter++) {
        int64_t n = irand(0, 25), s[1] = {n}, mx = -1, minlength = iter % 3 ? 0 : irand(0, 12);
        eir_dtype id = iter % 2 ? EIR_I64 : EIR_U8, wd = iter % 4 < 2 ? EIR_F32 : EIR_F64;
        tt x = tnew(id, 1, s, iter % 3 == 1 ? 2 : 0), w = tnew(wd, 1, s, 0);
        for (int64_t k = 0; k < n; k++) {
            int64_t v = irand(0, 9);
            setk(&x.v, k, (double)v);
            setk(&w.v, k, (double)irand(-4, 4) / 4);
            if (v > mx) mx = v;
        }
        int64_t len = mx + 1 > minlength ? mx + 1 : minlength, os[1] = {len};
        tt o = tnew(iter % 2 ? wd : EIR_I64, 1, os, 0);
        double *want = calloc((size_t)len + 1, sizeof *want);
        for (int64_t k = 0; k < n; k++) want[(int64_t)getk(&x.v, k)] += iter % 2 ? getk(&w.v, k) : 1;
        eir_karg a[3] = {KT(&x.v), iter % 2 ? KT(&w.v) : KN(), KI(minlength)};
        CHECK(run("aten.bincount.default", a, 3, &o.v, 1) == 0);
        CHECK(close_to(&o.v, want, 1e-7, "bincount"));
        free(want);
        tfree(&x); tfree(&w); tfree(&o);
    }
    int64_t s[1] = {3}, os[1] = {4};
    tt x = tnew(EIR_I64, 1, s, 0), o = tnew(EIR_I64, 1, os, 0), f = tnew(EIR_F32, 1, s, 0);
    setk(&x.v, 1, -1);
    eir_karg a[3] = {KT(&x.v), KN(), KI(0)};
    CHECK_FAILS(run("aten.bincount.default", a, 3, &o.v, 1), "bincount only supports 1-d non-negative integral inputs.");
    a[0] = KT(&f.v);
    CHECK_FAILS(run("aten.bincount.default", a, 3, &o.v, 1), "\"bincount_cpu\" not implemented for 'Float'");
    tfree(&x); tfree(&o); tfree(&f);
}

/* searchsorted / bucketize / isin against linear scans */
static void test_search(void) {
    for (int iter = 0; iter < 60; iter++) {
        eir_dtype dt = SORT_DT[iter % 6];
        bool nd = iter % 4 == 3, right = iter % 2, use_sorter = iter % 5 == 1, i32 = iter % 7 == 2;
        int64_t B = irand(1, 3), m = irand(1, 8), V = irand(0, 6);
        int64_t bs[2] = {B, m}, vs[2] = {B, V};
        tt bd = nd ? tnew(dt, 2, bs, iter % 2) : tnew(dt, 1, &m, 0), v = tnew(dt, 2, vs, iter % 3), st = nd ? tnew(EIR_I64, 2, bs, 0) : tnew(EIR_I64, 1, &m, 0);
        tt o = tnew(i32 ? EIR_I32 : EIR_I64, 2, vs, (iter + 1) % 3);
        fill_ties(&v.v, false);
        int64_t rows = nd ? B : 1;
        double *sorted = malloc((size_t)(rows * m) * sizeof *sorted);
        for (int64_t r = 0; r < rows; r++) {
            double acc = (double)irand(-5, -2);
            for (int64_t k = 0; k < m; k++) { sorted[r * m + k] = acc; acc += (double)irand(0, 2); }
            /* with a sorter the boundaries are stored reversed and sorter lists them backwards */
            for (int64_t k = 0; k < m; k++) {
                setk(&bd.v, r * m + k, use_sorter ? sorted[r * m + m - 1 - k] : sorted[r * m + k]);
                setk(&st.v, r * m + k, (double)(m - 1 - k));
            }
        }
        eir_karg a[6] = {KT(&bd.v), KT(&v.v), KB(i32), KB(right), KN(), use_sorter ? KT(&st.v) : KN()};
        CHECK(run("aten.searchsorted.Tensor", a, 6, &o.v, 1) == 0);
        double *want = calloc((size_t)(B * V) + 1, sizeof *want);
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < V; j++) {
                double x = getk(&v.v, b * V + j);
                int64_t c = 0;
                for (int64_t k = 0; k < m; k++) c += right ? sorted[(nd ? b : 0) * m + k] <= x : sorted[(nd ? b : 0) * m + k] < x;
                want[b * V + j] = (double)c;
            }
        CHECK(close_to(&o.v, want, 0, "searchsorted"));
        if (!nd && !use_sorter) {
            eir_karg bk[4] = {KT(&v.v), KT(&bd.v), KB(i32), KB(right)};
            CHECK(run("aten.bucketize.Tensor", bk, 4, &o.v, 1) == 0);
            CHECK(close_to(&o.v, want, 0, "bucketize"));
            /* isin against the boundaries */
            tt io = tnew(EIR_BOOL, 2, vs, iter % 2);
            eir_karg in[4] = {KT(&v.v), KT(&bd.v), KB(false), KB(iter % 3 == 0)};
            CHECK(run("aten.isin.Tensor_Tensor", in, 4, &io.v, 1) == 0);
            for (int64_t k = 0; k < B * V; k++) {
                bool f = false;
                for (int64_t q = 0; q < m; q++) f |= sorted[q] == getk(&v.v, k);
                want[k] = f != (iter % 3 == 0);
            }
            CHECK(close_to(&io.v, want, 0, "isin"));
            tfree(&io);
        }
        free(want); free(sorted);
        tfree(&bd); tfree(&v); tfree(&st); tfree(&o);
    }
    /* scalars: bucketize.Scalar, isin with a scalar, float values against integer boundaries */
    int64_t m[1] = {4}, s0[1] = {0}, v3[1] = {3};
    tt bd = tnew(EIR_I64, 1, m, 0), o = tnew(EIR_I64, 0, s0, 0), b = tnew(EIR_BOOL, 0, s0, 0), fv = tnew(EIR_F32, 1, v3, 0), fo = tnew(EIR_I64, 1, v3, 0);
    for (int k = 0; k < 4; k++) setk(&bd.v, k, 2 * k);
    eir_karg a[4] = {KF(2.5), KT(&bd.v), KB(false), KB(false)};
    CHECK(run("aten.bucketize.Scalar", a, 4, &o.v, 1) == 0 && getk(&o.v, 0) == 2);
    eir_karg is[4] = {KI(4), KT(&bd.v), KB(false), KB(false)};
    CHECK(run("aten.isin.Scalar_Tensor", is, 4, &b.v, 1) == 0 && getk(&b.v, 0) == 1);
    is[0] = KF(4.5);
    CHECK(run("aten.isin.Scalar_Tensor", is, 4, &b.v, 1) == 0 && getk(&b.v, 0) == 0);
    double fvv[3] = {1.5, 2.0, 6.5};
    for (int k = 0; k < 3; k++) setk(&fv.v, k, fvv[k]);
    eir_karg ss[6] = {KT(&bd.v), KT(&fv.v), KB(false), KB(false), KSTR("right"), KN()};
    CHECK(run("aten.searchsorted.Tensor", ss, 6, &fo.v, 1) == 0);
    CHECK(getk(&fo.v, 0) == 1 && getk(&fo.v, 1) == 2 && getk(&fo.v, 2) == 4);
    /* errors */
    ss[3] = KB(true);
    ss[4] = KSTR("left");
    CHECK_FAILS(run("aten.searchsorted.Tensor", ss, 6, &fo.v, 1), "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
    tt badst = tnew(EIR_I64, 1, m, 0);
    setk(&badst.v, 2, 9);
    eir_karg sb[6] = {KT(&bd.v), KT(&fv.v), KB(false), KB(false), KN(), KT(&badst.v)};
    CHECK_FAILS(run("aten.searchsorted.Tensor", sb, 6, &fo.v, 1), "torch.searchsorted(): sorter index out of range");
    tfree(&bd); tfree(&o); tfree(&b); tfree(&fv); tfree(&fo); tfree(&badst);
}

/* rms_norm over the trailing dims, in double */
static void test_rms_norm(void) {
    static const eir_dtype DT[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
    for (int iter = 0; iter < 40; iter++) {
        eir_dtype dt = DT[iter % 4];
        int32_t rank = (int32_t)irand(1, 4);
        int64_t s[4];
        for (int32_t d = 0; d < rank; d++) s[d] = irand(1, 5);
        uint32_t nn = (uint32_t)irand(1, rank);
        const int64_t *ns = s + rank - nn;
        bool has_w = iter % 2, has_eps = iter % 3 == 0;
        tt x = tnew(dt, rank, s, iter % 4), y = tnew(dt, rank, s, (iter + 1) % 4), w = tnew(dt, (int32_t)nn, ns, 0);
        fill_rand(&x.v);
        fill_rand(&w.v);
        int64_t N = 1;
        for (uint32_t k = 0; k < nn; k++) N *= ns[k];
        int64_t M = numel(&x.v) / N;
        double eps = has_eps ? 1e-3 : dt == EIR_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
        double *want = calloc((size_t)numel(&x.v) + 1, sizeof *want);
        for (int64_t r = 0; r < M; r++) {
            double ss = 0;
            for (int64_t i = 0; i < N; i++) ss += getk(&x.v, r * N + i) * getk(&x.v, r * N + i);
            double rs = 1 / sqrt(ss / (double)N + eps);
            for (int64_t i = 0; i < N; i++) want[r * N + i] = getk(&x.v, r * N + i) * rs * (has_w ? getk(&w.v, i) : 1);
        }
        eir_karg a[4] = {KT(&x.v), KIS(nn, ns), has_w ? KT(&w.v) : KN(), has_eps ? KF(1e-3) : KN()};
        CHECK(run("aten.rms_norm.default", a, 4, &y.v, 1) == 0);
        double *wr = rounded(&y.v, want);
        CHECK(close_to(&y.v, wr, dt == EIR_F64 ? 1e-12 : dt == EIR_F32 ? 1e-5 : tol_of(dt), "rms_norm"));
        free(wr); free(want);
        tfree(&x); tfree(&y); tfree(&w);
    }
    int64_t s[2] = {4, 6}, ns[1] = {5};
    tt x = tnew(EIR_F32, 2, s, 0), y = tnew(EIR_F32, 2, s, 0);
    eir_karg a[4] = {KT(&x.v), KIS(1, ns), KN(), KN()};
    CHECK_FAILS(run("aten.rms_norm.default", a, 4, &y.v, 1), "Given normalized_shape=[5], expected input with shape [*, 5], but got input of size[4, 6]");
    tfree(&x); tfree(&y);
}

/* instance_norm: per (sample, channel) statistics, by hand */
static void test_instance_norm(void) {
    for (int iter = 0; iter < 16; iter++) {
        eir_dtype dt = iter % 2 ? EIR_F64 : EIR_F32;
        int64_t s[3] = {irand(1, 3), irand(1, 4), irand(2, 6)}, cs[1] = {s[1]};
        bool stats = iter % 4 == 3, affine = iter % 2 == 0, update = iter % 4 == 1;
        tt x = tnew(dt, 3, s, iter % 4), y = tnew(dt, 3, s, (iter + 1) % 4), w = tnew(dt, 1, cs, 0), b = tnew(dt, 1, cs, 0);
        tt rm = tnew(dt, 1, cs, 0), rv = tnew(dt, 1, cs, 0);
        fill_rand(&x.v); fill_rand(&w.v); fill_rand(&b.v); fill_rand(&rm.v);
        for (int64_t c = 0; c < s[1]; c++) setk(&rv.v, c, 0.5 + (double)c);
        double *want = calloc((size_t)numel(&x.v), sizeof *want), *rm_new = calloc((size_t)s[1], sizeof *rm_new), *rv_new = calloc((size_t)s[1], sizeof *rv_new);
        for (int64_t n = 0; n < s[0]; n++)
            for (int64_t c = 0; c < s[1]; c++) {
                double m = 0, v = 0;
                int64_t base = (n * s[1] + c) * s[2];
                for (int64_t i = 0; i < s[2]; i++) m += getk(&x.v, base + i);
                m /= (double)s[2];
                for (int64_t i = 0; i < s[2]; i++) v += (getk(&x.v, base + i) - m) * (getk(&x.v, base + i) - m);
                v /= (double)s[2];
                /* the momentum update of each repeated copy, averaged over the batch */
                rm_new[c] += (0.9 * getk(&rm.v, c) + 0.1 * m) / (double)s[0];
                rv_new[c] += (0.9 * getk(&rv.v, c) + 0.1 * v * (double)s[2] / (double)(s[2] - 1)) / (double)s[0];
                if (stats) { m = getk(&rm.v, c); v = getk(&rv.v, c); }
                for (int64_t i = 0; i < s[2]; i++)
                    want[base + i] = (getk(&x.v, base + i) - m) / sqrt(v + 1e-5) * (affine ? getk(&w.v, c) : 1) + (affine ? getk(&b.v, c) : 0);
            }
        eir_karg a[9] = {KT(&x.v), affine ? KT(&w.v) : KN(), affine ? KT(&b.v) : KN(), stats || update ? KT(&rm.v) : KN(),
                         stats || update ? KT(&rv.v) : KN(), KB(!stats), KF(0.1), KF(1e-5), KB(false)};
        CHECK(run("aten.instance_norm.default", a, 9, &y.v, 1) == 0);
        double *wr = rounded(&y.v, want);
        CHECK(close_to(&y.v, wr, dt == EIR_F64 ? 1e-10 : 1e-5, "instance_norm"));
        if (update) {
            CHECK(close_to(&rm.v, rm_new, dt == EIR_F64 ? 1e-12 : 1e-6, "instance_norm running_mean"));
            CHECK(close_to(&rv.v, rv_new, dt == EIR_F64 ? 1e-12 : 1e-6, "instance_norm running_var"));
        }
        free(wr); free(want); free(rm_new); free(rv_new);
        tfree(&x); tfree(&y); tfree(&w); tfree(&b); tfree(&rm); tfree(&rv);
    }
}

/* the reductions reduce.c gained: var/std .default, std_mean, nansum, nanmean, aminmax, _safe_softmax */
static void test_reductions(void) {
    for (int iter = 0; iter < 30; iter++) {
        eir_dtype dt = iter % 3 == 0 ? EIR_F64 : iter % 3 == 1 ? EIR_F32 : EIR_F16;
        int64_t s[2] = {irand(1, 5), irand(1, 7)}, s0[1] = {0}, r1[1] = {s[0]};
        tt x = tnew(dt, 2, s, iter % 3), o = tnew(dt, 0, s0, 0), o2 = tnew(dt, 0, s0, 0), v1 = tnew(dt, 1, r1, 0), v2 = tnew(dt, 1, r1, 2);
        fill_rand(&x.v);
        int64_t n = numel(&x.v);
        double sum = 0, ss = 0, mn = INFINITY, mxv = -INFINITY;
        for (int64_t k = 0; k < n; k++) { double v = getk(&x.v, k); sum += v; mn = fmin(mn, v); mxv = fmax(mxv, v); }
        double mean = sum / (double)n;
        for (int64_t k = 0; k < n; k++) ss += (getk(&x.v, k) - mean) * (getk(&x.v, k) - mean);
        bool unb = iter % 2;
        double var = ss / ((double)n - (unb ? 1 : 0));
        double tol = dt == EIR_F16 ? 2e-3 : dt == EIR_F32 ? 1e-6 : 1e-12;
        eir_karg a[2] = {KT(&x.v), KB(unb)};
        eir_tview two[2] = {o.v, o2.v};
        double w1[1] = {var}, w2[1] = {sqrt(var)}, wm[1] = {mean};
        CHECK(run("aten.var.default", a, 2, &o.v, 1) == 0 && close_to(&o.v, w1, tol, "var.default"));
        CHECK(run("aten.std.default", a, 2, &o.v, 1) == 0 && close_to(&o.v, w2, tol, "std.default"));
        CHECK(run("aten.std_mean.default", a, 2, two, 2) == 0 && close_to(&o.v, w2, tol, "std_mean") && close_to(&o2.v, wm, tol, "std_mean mean"));
        CHECK(run("aten.var_mean.default", a, 2, two, 2) == 0 && close_to(&o.v, w1, tol, "var_mean") && close_to(&o2.v, wm, tol, "var_mean mean"));
        /* aminmax over everything and per row */
        eir_karg am[3] = {KT(&x.v), KN(), KB(false)};
        double wmn[1] = {mn}, wmx[1] = {mxv};
        CHECK(run("aten.aminmax.default", am, 3, two, 2) == 0 && close_to(&o.v, wmn, 0, "amin") && close_to(&o2.v, wmx, 0, "amax"));
        am[1] = KI(1);
        eir_tview rows[2] = {v1.v, v2.v};
        CHECK(run("aten.aminmax.default", am, 3, rows, 2) == 0);
        bool ok = true;
        for (int64_t r = 0; r < s[0]; r++) {
            double a1 = INFINITY, a2 = -INFINITY;
            for (int64_t c = 0; c < s[1]; c++) { a1 = fmin(a1, getk(&x.v, r * s[1] + c)); a2 = fmax(a2, getk(&x.v, r * s[1] + c)); }
            ok = ok && getk(&v1.v, r) == a1 && getk(&v2.v, r) == a2;
        }
        CHECK(ok);
        /* nansum / nanmean with NaNs in place of some elements */
        double ns = 0;
        int64_t cnt = 0;
        for (int64_t k = 0; k < n; k++) {
            if (irand(0, 3) == 0) setk(&x.v, k, NAN);
            else { ns += getk(&x.v, k); cnt++; }
        }
        eir_karg na[4] = {KT(&x.v), KN(), KB(false), KN()};
        double wns[1] = {ns}, wnm[1] = {cnt ? ns / (double)cnt : NAN};
        CHECK(run("aten.nansum.default", na, 4, &o.v, 1) == 0 && close_to(&o.v, wns, tol * 4, "nansum"));
        CHECK(run("aten.nanmean.default", na, 4, &o.v, 1) == 0 && close_to(&o.v, wnm, tol * 4, "nanmean"));
        tfree(&x); tfree(&o); tfree(&o2); tfree(&v1); tfree(&v2);
    }
    /* nansum of integers is their sum; nanmean refuses them */
    int64_t s[1] = {4}, s0[1] = {0};
    tt x = tnew(EIR_I64, 1, s, 0), o = tnew(EIR_I64, 0, s0, 0);
    for (int k = 0; k < 4; k++) setk(&x.v, k, k - 5);
    eir_karg na[4] = {KT(&x.v), KN(), KB(false), KN()};
    CHECK(run("aten.nansum.default", na, 4, &o.v, 1) == 0 && getk(&o.v, 0) == -14);
    CHECK_FAILS(run("aten.nanmean.default", na, 4, &o.v, 1), "nanmean(): expected input to have floating point or complex dtype but got Long");
    tt e = tnew(EIR_F32, 1, s0, 0), o2 = tnew(EIR_F32, 0, s0, 0);
    eir_karg am[3] = {KT(&e.v), KN(), KB(false)};
    eir_tview two[2] = {o2.v, o2.v};
    CHECK_FAILS(run("aten.aminmax.default", am, 3, two, 2), "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    /* _safe_softmax: a row of -inf gives zeros, not NaN */
    int64_t s2[2] = {2, 3};
    tt sx = tnew(EIR_F32, 2, s2, 0), sy = tnew(EIR_F32, 2, s2, 1);
    double xv[6] = {-INFINITY, -INFINITY, -INFINITY, 0, 1, -INFINITY};
    for (int k = 0; k < 6; k++) setk(&sx.v, k, xv[k]);
    eir_karg sa[3] = {KT(&sx.v), KI(1), KN()};
    CHECK(run("aten._safe_softmax.default", sa, 3, &sy.v, 1) == 0);
    double e1 = exp(0) / (exp(0) + exp(1));
    double ws[6] = {0, 0, 0, e1, 1 - e1, 0};
    CHECK(close_to(&sy.v, ws, 1e-6, "_safe_softmax"));
    tfree(&x); tfree(&o); tfree(&e); tfree(&o2); tfree(&sx); tfree(&sy);
}

int main(void) {
    test_order_dim();
    test_mode_torch();
    test_median_all();
    test_quantile();
    test_scans();
    test_histograms();
    test_bincount();
    test_search();
    test_rms_norm();
    test_instance_norm();
    test_reductions();
    print_worst("stats");
    return check_summary("test_k_stats");
}
