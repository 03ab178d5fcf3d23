/* test_k_misc.c — the kernels of src/kernels/misc.c against naive reference
 * twins: cdist / pdist for p in {0, 1, 2, 3.5, inf} (direct and matrix-
 * product paths) with batch broadcasting, embedding bags written as explicit
 * per-bag lists, masked_scatter as a sequential fill, batch norm from the
 * textbook formulas (batch statistics, running-stat updates in place and as
 * outputs, evaluation mode), empty_strided's zeros; random shapes,
 * non-contiguous layouts, empty tensors, every dtype torch accepts, and the
 * errors torch raises. */
#include "ktest.h"

static void test_cdist(void) {
    static const double PS[] = {0, 1, 2, 3.5, INFINITY, 0.5};
    for (int iter = 0; iter < 80; iter++) {
        double p = PS[iter % 6];
        eir_dtype dt = iter % 2 ? EIR_F64 : EIR_F32;
        int64_t B = irand(1, 3), P = iter % 13 == 0 ? 0 : irand(1, 30), R = irand(1, 30), M = iter % 11 == 0 ? 0 : irand(1, 5);
        int64_t s1[3] = {B, P, M}, s2[3] = {1, R, M}, so[3] = {B, P, R};
        tt x1 = tnew(dt, 3, s1, iter % 4), x2 = tnew(dt, 3, s2, (iter + 1) % 4), y = tnew(dt, 3, so, (iter + 2) % 4);
        fill_rand(&x1.v);
        fill_rand(&x2.v);
        if (P > 1 && M > 0) for (int64_t k = 0; k < M; k++) { int64_t a[3] = {0, 1, k}, b[3] = {0, 0, k}; eir_store_f64(eir_tview_at(&x1.v, a), dt, eir_load_f64(eir_tview_at(&x1.v, b), dt)); }
        int64_t n = numel(&y.v);
        double *want = calloc((size_t)n + 1, sizeof *want);
        for (int64_t q = 0; q < n; q++) {
            int64_t idx[3];
            unravel(&y.v, q, idx);
            double acc = 0;
            for (int64_t k = 0; k < M; k++) {
                int64_t i1[3] = {idx[0], idx[1], k}, i2[3] = {0, idx[2], k};
                double d = fabs(eir_load_f64(eir_tview_at(&x1.v, i1), dt) - eir_load_f64(eir_tview_at(&x2.v, i2), dt));
                if (p == 0) acc += d != 0;
                else if (isinf(p)) acc = fmax(acc, d);
                else acc += pow(d, p);
            }
            want[q] = p == 0 || isinf(p) ? acc : pow(acc, 1 / p);
        }
        for (int mode = 0; mode < 3; mode++) {
            fill_poison(&y.v);
            eir_karg a[4] = {KT(&x1.v), KT(&x2.v), KF(p), mode ? KI(mode) : KN()};
            CHECK(run(iter % 3 ? "aten._cdist_forward.default" : "aten.cdist.default", a, 4, &y.v, 1) == 0);
            /* the |x|^2 + |y|^2 - 2xy route (p = 2, many rows or mode 1) cancels: absolute error only */
            bool mm = p == 2 && (mode == 1 || (mode == 0 && (P > 25 || R > 25)));
            double *wr = rounded(&y.v, want);
            CHECK(close_to(&y.v, wr, mm ? (dt == EIR_F64 ? 1e-7 : 1e-5) : dt == EIR_F64 ? 1e-12 : 1e-5, "cdist"));
            free(wr);
        }
        /* pdist of x1[0]'s rows */
        if (P >= 0) {
            int64_t np = P > 1 ? P * (P - 1) / 2 : 0, ps[1] = {np};
            eir_tview row = x1.v;
            row.rank = 2;
            row.sizes[0] = P; row.sizes[1] = M; row.strides[0] = x1.v.strides[1]; row.strides[1] = x1.v.strides[2];
            tt d = tnew(dt, 1, ps, iter % 3 == 0 ? 2 : 0);
            double *pw = calloc((size_t)np + 1, sizeof *pw);
            int64_t k = 0;
            for (int64_t i = 0; i < P; i++)
                for (int64_t j = i + 1; j < P; j++, k++) {
                    double acc = 0;
                    for (int64_t c = 0; c < M; c++) {
                        int64_t a1[2] = {i, c}, a2[2] = {j, c};
                        double dd = fabs(eir_load_f64(eir_tview_at(&row, a1), dt) - eir_load_f64(eir_tview_at(&row, a2), dt));
                        if (p == 0) acc += dd != 0; else if (isinf(p)) acc = fmax(acc, dd); else acc += pow(dd, p);
                    }
                    pw[k] = p == 0 || isinf(p) ? acc : pow(acc, 1 / p);
                }
            eir_karg a[2] = {KT(&row), KF(p)};
            CHECK(run("aten._pdist_forward.default", a, 2, &d.v, 1) == 0);
            double *wr = rounded(&d.v, pw);
            CHECK(close_to(&d.v, wr, dt == EIR_F64 ? 1e-12 : 1e-5, "pdist"));
            free(wr); free(pw);
            tfree(&d);
        }
        free(want);
        tfree(&x1); tfree(&x2); tfree(&y);
    }
    int64_t s1[2] = {2, 3}, s2[2] = {2, 4}, so[2] = {2, 2};
    tt a1 = tnew(EIR_F32, 2, s1, 0), a2 = tnew(EIR_F32, 2, s2, 0), y = tnew(EIR_F32, 2, so, 0), i1 = tnew(EIR_I64, 2, s1, 0);
    eir_karg bad[4] = {KT(&a1.v), KT(&a2.v), KF(2), KN()};
    CHECK_FAILS(run("aten._cdist_forward.default", bad, 4, &y.v, 1), "X1 and X2 must have the same number of columns. X1: 3 X2: 4");
    eir_karg badp[4] = {KT(&a1.v), KT(&a1.v), KF(-1), KN()};
    CHECK_FAILS(run("aten._cdist_forward.default", badp, 4, &y.v, 1), "cdist only supports non-negative p values");
    eir_karg badt[4] = {KT(&i1.v), KT(&i1.v), KF(2), KN()};
    CHECK_FAILS(run("aten._cdist_forward.default", badt, 4, &y.v, 1), "cdist only supports floating-point dtypes");
    tfree(&a1); tfree(&a2); tfree(&y); tfree(&i1);
}

/* ------------------------------------------------------------ embedding bag */

static void test_embedding_bag(void) {
    static const eir_dtype WD[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
    for (int iter = 0; iter < 96; iter++) {
        eir_dtype wd = WD[iter % 4], id = iter % 5 == 0 ? EIR_I32 : EIR_I64;
        int mode = (iter / 4) % 3;
        bool ilo = (iter / 12) % 2, use_psw = mode == 0 && iter % 7 == 3;
        int64_t V = irand(1, 9), D = irand(1, 5), L = iter % 17 == 0 ? 0 : irand(1, 12), NB = irand(1, 5);
        int64_t pad = iter % 3 == 0 ? irand(0, V - 1) : -1;
        /* non-decreasing offsets starting at 0; with include_last_offset the last one is L */
        int64_t NO = ilo ? NB + 1 : NB, offv[8];
        offv[0] = 0;
        for (int64_t b = 1; b < NO; b++) offv[b] = offv[b - 1] + irand(0, (L - offv[b - 1]) / 2 + 1);
        for (int64_t b = 1; b < NO; b++) if (offv[b] > L) offv[b] = L;
        if (ilo) offv[NO - 1] = L;
        int64_t ws[2] = {V, D}, is[1] = {L}, os[1] = {NO}, ys[2] = {NB, D}, bs[1] = {NB}, ms[2] = {NB, D}, ps[1] = {use_psw ? 0 : L};
        tt w = tnew(wd, 2, ws, iter % 4), ix = tnew(id, 1, is, iter % 3 == 1 ? 2 : 0), off = tnew(id, 1, os, 0);
        tt psw = tnew(wd, 1, is, 2), y = tnew(wd, 2, ys, (iter + 1) % 4), o2b = tnew(id, 1, ps, 0), bsz = tnew(id, 1, bs, 0);
        tt mxi = mode == 2 ? tnew(id, 2, ms, 0) : tnew(id, 1, bs, 0);
        fill_rand(&w.v);
        fill_rand(&psw.v);
        for (int64_t k = 0; k < L; k++) setk(&ix.v, k, (double)irand(0, V - 1));
        for (int64_t b = 0; b < NO; b++) setk(&off.v, b, (double)offv[b]);
        fill_poison(&y.v);
        /* reference: explicit bag lists */
        double *want = calloc((size_t)(NB * D) + 1, sizeof *want);
        int64_t *wmax = calloc((size_t)(NB * D) + 1, sizeof *wmax), *wcnt = calloc((size_t)NB + 1, sizeof *wcnt);
        for (int64_t b = 0; b < NB; b++) {
            int64_t s = offv[b], e = b + 1 < NO ? offv[b + 1] : L, cnt = 0;
            bool first = true;
            for (int64_t i = s; i < e; i++) {
                int64_t v = (int64_t)getk(&ix.v, i);
                if (v == pad) continue;
                cnt++;
                for (int64_t d = 0; d < D; d++) {
                    int64_t wi[2] = {v, d};
                    double x = eir_load_f64(eir_tview_at(&w.v, wi), wd) * (use_psw ? getk(&psw.v, i) : 1);
                    if (mode == 2) { if (first || x > want[b * D + d]) { want[b * D + d] = x; wmax[b * D + d] = v; } }
                    else want[b * D + d] += x;
                }
                first = false;
            }
            if (mode == 1 && cnt) for (int64_t d = 0; d < D; d++) want[b * D + d] /= (double)cnt;
            wcnt[b] = cnt;
        }
        eir_karg a[9] = {KT(&w.v), KT(&ix.v), KT(&off.v), KB(false), KI(mode), KB(false), use_psw ? KT(&psw.v) : KN(), KB(ilo), KI(pad)};
        eir_tview outs[4] = {y.v, o2b.v, bsz.v, mxi.v};
        const char *op = iter % 2 ? "aten._embedding_bag.default" : "aten._embedding_bag_forward_only.default";
        int rc = run(op, a, 9, outs, 4);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "%s: %s\n", op, errbuf);
        double *wr = rounded(&y.v, want);
        CHECK(close_to(&y.v, wr, tol_of(wd) * 4, "embedding_bag"));
        bool ok = true;
        for (int64_t b = 0; b < NB; b++) {
            ok &= (int64_t)getk(&bsz.v, b) == (mode == 0 ? 0 : wcnt[b]);
            if (mode == 1) ok &= (int64_t)getk(&mxi.v, b) == wcnt[b];
            if (mode == 2) for (int64_t d = 0; d < D; d++) ok &= (int64_t)getk(&mxi.v, b * D + d) == (wcnt[b] ? wmax[b * D + d] : 0);
        }
        for (int64_t i = 0; i < numel(&o2b.v); i++) {
            int64_t bag = 0;
            for (int64_t b = 0; b < NB; b++) if (offv[b] <= i) bag = b;
            ok &= (int64_t)getk(&o2b.v, i) == bag;
        }
        CHECK(ok);
        free(wr); free(want); free(wmax); free(wcnt);
        tfree(&w); tfree(&ix); tfree(&off); tfree(&psw); tfree(&y); tfree(&o2b); tfree(&bsz); tfree(&mxi);
    }
    /* errors torch raises at run time */
    int64_t ws[2] = {4, 2}, is[1] = {3}, os[1] = {2}, ys[2] = {2, 2}, bs[1] = {2};
    tt w = tnew(EIR_F32, 2, ws, 0), ix = tnew(EIR_I64, 1, is, 0), off = tnew(EIR_I64, 1, os, 0), y = tnew(EIR_F32, 2, ys, 0);
    tt o2b = tnew(EIR_I64, 1, is, 0), bsz = tnew(EIR_I64, 1, bs, 0), mxi = tnew(EIR_I64, 1, bs, 0), mx2 = tnew(EIR_I64, 2, ys, 0);
    int64_t iv[3] = {1, 9, 0}, ov[2] = {0, 1};
    memcpy(ix.v.data, iv, sizeof iv);
    memcpy(off.v.data, ov, sizeof ov);
    eir_karg a[9] = {KT(&w.v), KT(&ix.v), KT(&off.v), KB(false), KI(0), KB(false), KN(), KB(false), KI(-1)};
    eir_tview outs[4] = {y.v, o2b.v, bsz.v, mxi.v};
    CHECK_FAILS(run("aten._embedding_bag.default", a, 9, outs, 4), "Index 1 of input takes value 9 which is not in the valid range [0, 4)");
    a[4] = KI(2);
    eir_tview outs2[4] = {y.v, o2b.v, bsz.v, mx2.v};
    CHECK_FAILS(run("aten._embedding_bag.default", a, 9, outs2, 4), "Expected idx >= 0 && idx < num_embeddings but found idx to be 9");
    iv[1] = 2;
    memcpy(ix.v.data, iv, sizeof iv);
    ov[0] = 1;
    memcpy(off.v.data, ov, sizeof ov);
    a[4] = KI(0);
    CHECK_FAILS(run("aten._embedding_bag.default", a, 9, outs, 4), "offsets[0] has to be 0");
    ov[0] = 0; ov[1] = 5;
    memcpy(off.v.data, ov, sizeof ov);
    CHECK_FAILS(run("aten._embedding_bag.default", a, 9, outs, 4), "offsets[-1] can not be greater than input's length 3 but got offsets[-1] of 5");
    ov[1] = 1;
    memcpy(off.v.data, ov, sizeof ov);
    a[4] = KI(1);
    a[6] = KT(&w.v);
    CHECK_FAILS(run("aten._embedding_bag.default", a, 9, outs, 4), "per_sample_weights is only supported for mode='sum'");
    tfree(&w); tfree(&ix); tfree(&off); tfree(&y); tfree(&o2b); tfree(&bsz); tfree(&mxi); tfree(&mx2);
}

/* -------------------------------------------------------- masked_scatter */

static void test_masked_scatter(void) {
    static const eir_dtype DT[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I8, EIR_U8, EIR_I32, EIR_I64, EIR_BOOL, EIR_C64};
    for (int iter = 0; iter < 40; iter++) {
        eir_dtype dt = DT[iter % 10];
        int64_t xs[3] = {irand(1, 3), iter % 9 == 0 ? 0 : irand(1, 4), irand(1, 4)}, ms[3] = {xs[0], xs[1], xs[2]};
        if (iter % 4 == 1) xs[2] = 1; /* self broadcasts against the mask */
        if (iter % 4 == 2) ms[0] = 1; /* the mask broadcasts against self */
        int64_t os[3] = {xs[0] > ms[0] ? xs[0] : ms[0], xs[1], xs[2] > ms[2] ? xs[2] : ms[2]}, ss[2] = {irand(os[0] * os[1] * os[2], 40), 1};
        tt x = tnew(dt, 3, xs, iter % 4), m = tnew(EIR_BOOL, 3, ms, (iter + 1) % 4), s = tnew(dt, 2, ss, iter % 2 ? 2 : 1), y = tnew(dt, 3, os, (iter + 2) % 4);
        fill_rand(&x.v);
        fill_rand(&s.v);
        for (int64_t k = 0; k < numel(&m.v); k++) setk(&m.v, k, urand() > 0);
        eir_karg a[3] = {KT(&x.v), KT(&m.v), KT(&s.v)};
        CHECK(run("aten.masked_scatter.default", a, 3, &y.v, 1) == 0);
        int64_t next = 0;
        bool ok = true;
        for (int64_t q = 0; q < numel(&y.v); q++) {
            int64_t idx[3], mi[3], xi[3];
            unravel(&y.v, q, idx);
            for (int i = 0; i < 3; i++) { mi[i] = ms[i] == 1 ? 0 : idx[i]; xi[i] = xs[i] == 1 ? 0 : idx[i]; }
            double gr, gi, wr, wi;
            getck(&y.v, q, &gr, &gi);
            if (eir_load_f64(eir_tview_at(&m.v, mi), EIR_BOOL) != 0) getck(&s.v, next++, &wr, &wi);
            else eir_load_c128(eir_tview_at(&x.v, xi), dt, &wr, &wi);
            ok &= gr == wr && gi == wi;
        }
        CHECK(ok);
        tfree(&x); tfree(&m); tfree(&s); tfree(&y);
    }
    int64_t xs[1] = {3}, ss[1] = {2};
    tt x = tnew(EIR_F32, 1, xs, 0), m = tnew(EIR_BOOL, 1, xs, 0), s = tnew(EIR_F32, 1, ss, 0), y = tnew(EIR_F32, 1, xs, 0), sd = tnew(EIR_F64, 1, xs, 0), mu = tnew(EIR_U8, 1, xs, 0);
    for (int k = 0; k < 3; k++) setk(&m.v, k, 1);
    eir_karg a[3] = {KT(&x.v), KT(&m.v), KT(&s.v)};
    CHECK_FAILS(run("aten.masked_scatter.default", a, 3, &y.v, 1), "Number of elements of source < number of ones in mask");
    a[2] = KT(&sd.v);
    CHECK_FAILS(run("aten.masked_scatter.default", a, 3, &y.v, 1), "expected self and source to have same dtypes");
    a[1] = KT(&mu.v);
    a[2] = KT(&s.v);
    CHECK_FAILS(run("aten.masked_scatter.default", a, 3, &y.v, 1), "only supports boolean masks, but got mask with dtype Byte");
    tfree(&x); tfree(&m); tfree(&s); tfree(&y); tfree(&sd); tfree(&mu);
}

/* ------------------------------------------------------------ batch norm */

static void test_batch_norm(void) {
    static const eir_dtype DT[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
    for (int iter = 0; iter < 48; iter++) {
        eir_dtype dt = DT[iter % 4], pt = dt == EIR_F64 ? EIR_F64 : EIR_F32; /* reduced inputs take f32 parameters, as in torch */
        /* 0 _native_batch_norm_legit (in place), 1 .no_stats, 2 _functional; 3 native_batch_norm and
         * 4 batch_norm (reduce.c's, whose training mode writes the running stats in place too) */
        int variant = (iter / 4) % 5;
        bool in_place = variant == 0 || variant == 3 || variant == 4;
        bool training = variant == 1 || iter % 5 != 0, affine = iter % 3 != 0;
        int32_t rank = 2 + (int32_t)irand(0, 2);
        int64_t xs[4] = {irand(1, 4), irand(1, 4), irand(1, 3), irand(1, 3)}, cs[1];
        cs[0] = xs[1];
        tt x = tnew(dt, rank, xs, iter % 4), y = tnew(dt, rank, xs, (iter + 1) % 4);
        tt w = tnew(pt, 1, cs, 0), b = tnew(pt, 1, cs, 2), rm = tnew(pt, 1, cs, 0), rv = tnew(pt, 1, cs, 0);
        tt sm = tnew(pt, 1, cs, 0), si = tnew(pt, 1, cs, 0), rmo = tnew(pt, 1, cs, 0), rvo = tnew(pt, 1, cs, 0);
        fill_rand(&x.v); fill_rand(&w.v); fill_rand(&b.v); fill_rand(&rm.v);
        for (int64_t c = 0; c < cs[0]; c++) setk(&rv.v, c, 0.5 + fabs(urand()));
        double *rm0 = malloc((size_t)cs[0] * sizeof *rm0), *rv0 = malloc((size_t)cs[0] * sizeof *rv0);
        for (int64_t c = 0; c < cs[0]; c++) { rm0[c] = getk(&rm.v, c); rv0[c] = getk(&rv.v, c); }
        double mom = 0.3, eps = 1e-5;
        int64_t n = numel(&x.v), per = n / cs[0];
        double *want = calloc((size_t)n + 1, sizeof *want), *wm = calloc((size_t)cs[0], sizeof *wm), *wi = calloc((size_t)cs[0], sizeof *wi);
        double *wrm = calloc((size_t)cs[0], sizeof *wrm), *wrv = calloc((size_t)cs[0], sizeof *wrv);
        for (int64_t c = 0; c < cs[0]; c++) {
            double s = 0, ss = 0;
            for (int64_t q = 0; q < n; q++) { int64_t idx[4] = {0}; unravel(&x.v, q, idx); if (idx[1] == c) s += getk(&x.v, q); }
            double mean = s / (double)per;
            for (int64_t q = 0; q < n; q++) { int64_t idx[4] = {0}; unravel(&x.v, q, idx); if (idx[1] == c) ss += (getk(&x.v, q) - mean) * (getk(&x.v, q) - mean); }
            double m = training ? mean : rm0[c], is = 1 / sqrt((training ? ss / (double)per : rv0[c]) + eps);
            wm[c] = mean; wi[c] = is;
            wrm[c] = training ? mom * mean + (1 - mom) * rm0[c] : rm0[c];
            wrv[c] = training ? mom * ss / (double)(per - 1) + (1 - mom) * rv0[c] : rv0[c];
            for (int64_t q = 0; q < n; q++) {
                int64_t idx[4] = {0};
                unravel(&x.v, q, idx);
                if (idx[1] == c) want[q] = (getk(&x.v, q) - m) * is * (affine ? getk(&w.v, c) : 1) + (affine ? getk(&b.v, c) : 0);
            }
        }
        int rc;
        if (variant == 1) {
            eir_karg a[6] = {KT(&x.v), affine ? KT(&w.v) : KN(), affine ? KT(&b.v) : KN(), KB(true), KF(mom), KF(eps)};
            eir_tview outs[3] = {y.v, sm.v, si.v};
            rc = run("aten._native_batch_norm_legit.no_stats", a, 6, outs, 3);
        } else {
            eir_karg a[9] = {KT(&x.v), affine ? KT(&w.v) : KN(), affine ? KT(&b.v) : KN(), KT(&rm.v), KT(&rv.v), KB(training), KF(mom), KF(eps),
                             KB(false)};
            eir_tview outs[5] = {y.v, sm.v, si.v, rmo.v, rvo.v};
            static const char *const OPS[5] = {"aten._native_batch_norm_legit.default", NULL, "aten._native_batch_norm_legit_functional.default",
                                               "aten.native_batch_norm.default", "aten.batch_norm.default"};
            static const uint32_t NA[5] = {8, 0, 8, 8, 9}, NO[5] = {3, 0, 5, 3, 1};
            rc = run(OPS[variant], a, NA[variant], outs, NO[variant]);
        }
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "batch norm: %s\n", errbuf);
        double *wr = rounded(&y.v, want);
        CHECK(close_to(&y.v, wr, tol_of(dt) * 4, "batch norm output"));
        if (training && variant != 4) {
            CHECK(close_to(&sm.v, wm, 1e-5, "save_mean"));
            CHECK(close_to(&si.v, wi, 1e-4, "save_invstd"));
        }
        if (in_place && per > 1) { /* running stats updated in place; untouched in evaluation mode */
            CHECK(close_to(&rm.v, wrm, 1e-5, "running_mean in place"));
            CHECK(close_to(&rv.v, wrv, 1e-5, "running_var in place"));
        }
        if (variant == 2 && per > 1) { /* functional: new stats as outputs, inputs unchanged */
            CHECK(close_to(&rmo.v, wrm, 1e-5, "running_mean out"));
            CHECK(close_to(&rvo.v, wrv, 1e-5, "running_var out"));
            CHECK(close_to(&rm.v, rm0, 0, "running_mean input unchanged"));
        }
        free(wr); free(want); free(wm); free(wi); free(wrm); free(wrv); free(rm0); free(rv0);
        tfree(&x); tfree(&y); tfree(&w); tfree(&b); tfree(&rm); tfree(&rv); tfree(&sm); tfree(&si); tfree(&rmo); tfree(&rvo);
    }
    int64_t es[3] = {0, 3, 2}, cs[1] = {3};
    tt x = tnew(EIR_F32, 3, es, 0), y = tnew(EIR_F32, 3, es, 0), s1 = tnew(EIR_F32, 1, cs, 0), s2 = tnew(EIR_F32, 1, cs, 0);
    eir_karg a[6] = {KT(&x.v), KN(), KN(), KB(true), KF(0.1), KF(1e-5)};
    eir_tview outs[3] = {y.v, s1.v, s2.v};
    CHECK_FAILS(run("aten._native_batch_norm_legit.no_stats", a, 6, outs, 3), "input tensor must have at least one element, but got input_sizes = [0, 3, 2]");
    a[3] = KB(false); /* torch crashes here; eir refuses */
    CHECK_FAILS(run("aten._native_batch_norm_legit.no_stats", a, 6, outs, 3), "running_mean and running_var must be defined in evaluation mode");
    tfree(&x); tfree(&y); tfree(&s1); tfree(&s2);
}

static void test_empty_strided(void) {
    int64_t s[2] = {3, 4};
    tt y = tnew(EIR_F32, 2, s, 2);
    fill_poison(&y.v);
    int64_t sz[2] = {3, 4}, st[2] = {1, 3};
    eir_karg a[6] = {KIS(2, sz), KIS(2, st), KN(), KN(), KN(), KN()};
    CHECK(run("aten.empty_strided.default", a, 6, &y.v, 1) == 0);
    bool zero = true;
    for (int64_t k = 0; k < 12; k++) zero &= getk(&y.v, k) == 0;
    CHECK(zero);
    tfree(&y);
}

int main(void) {
    test_cdist();
    test_embedding_bag();
    test_masked_scatter();
    test_batch_norm();
    test_empty_strided();
    print_worst("misc");
    return check_summary("test_k_misc");
}
