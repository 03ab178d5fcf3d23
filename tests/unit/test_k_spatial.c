/* test_k_spatial.c — the spatial kernel family (src/kernels/spatial.c)
 * against naive reference twins written differently from the kernels:
 * pooling walks kernel offsets in padded coordinates, upsampling computes
 * each output from a per-dim source coordinate in double, grid sampling
 * evaluates the textbook formulas, col2im gathers per image pixel (the
 * kernel scatters per column) and im2col is checked as col2im's adjoint.
 * Random shapes, the four memory layouts of ktest.h, empty batches, every
 * dtype torch accepts, and the errors torch raises. Exact agreement with
 * torch itself is checked live by python/tests/test_newops.py. */
#include "ktest.h"

static const eir_dtype FLOATS[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};

/* ---------------------------------------------------------------- pooling */

typedef struct pool_cfg { int nsp; int64_t k[3], s[3], p[3], d[3]; bool ceil, cip; int64_t divov; } pool_cfg;

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil && (o - 1) * s >= in + p) o--;
    return o;
}

/* positions as (d, h, w) with unused leading dims of size 1 */
static void ref_pool(const eir_tview *x, const pool_cfg *c, bool is_max, const int64_t *osz, double *y, int64_t *ind) {
    int nsp = c->nsp, lead = x->rank - nsp;
    int64_t N = lead == 2 ? x->sizes[0] : 1, C = x->sizes[lead - 1];
    int64_t I[3] = {1, 1, 1}, O[3] = {1, 1, 1}, K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, P[3] = {0, 0, 0}, D[3] = {1, 1, 1};
    for (int i = 0; i < nsp; i++) {
        I[3 - nsp + i] = x->sizes[lead + i]; O[3 - nsp + i] = osz[i]; K[3 - nsp + i] = c->k[i];
        S[3 - nsp + i] = c->s[i]; P[3 - nsp + i] = c->p[i]; D[3 - nsp + i] = is_max ? c->d[i] : 1;
    }
    int64_t q = 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t ch = 0; ch < C; ch++)
            for (int64_t o0 = 0; o0 < O[0]; o0++)
                for (int64_t o1 = 0; o1 < O[1]; o1++)
                    for (int64_t o2 = 0; o2 < O[2]; o2++, q++) {
                        double best = -INFINITY, sum = 0;
                        int64_t bi = -1, valid = 0, padded = 1;
                        int64_t st[3] = {o0 * S[0] - P[0], o1 * S[1] - P[1], o2 * S[2] - P[2]};
                        for (int i = 0; i < 3; i++) {
                            int64_t e = st[i] + K[i];
                            if (e > I[i] + P[i]) e = I[i] + P[i];
                            padded *= e - st[i];
                        }
                        for (int64_t a = 0; a < K[0]; a++)
                            for (int64_t b = 0; b < K[1]; b++)
                                for (int64_t e = 0; e < K[2]; e++) {
                                    int64_t p0 = st[0] + a * D[0], p1 = st[1] + b * D[1], p2 = st[2] + e * D[2];
                                    if (p0 < 0 || p0 >= I[0] || p1 < 0 || p1 >= I[1] || p2 < 0 || p2 >= I[2]) continue;
                                    int64_t idx[EIR_MAX_RANK] = {0};
                                    if (lead == 2) idx[0] = n;
                                    idx[lead - 1] = ch;
                                    int64_t pos[3] = {p0, p1, p2};
                                    for (int i = 0; i < nsp; i++) idx[lead + i] = pos[3 - nsp + i];
                                    double v = eir_load_f64(eir_tview_at(x, idx), x->dtype);
                                    valid++;
                                    sum += v;
                                    if (bi < 0 || v > best || isnan(v)) { best = v; bi = (p0 * I[1] + p1) * I[2] + p2; }
                                }
                        if (is_max) { y[q] = best; ind[q] = bi; }
                        else {
                            int64_t div = c->divov ? c->divov : c->cip ? padded : valid;
                            y[q] = valid ? (x->dtype == EIR_I64 ? (double)((int64_t)sum / div) : sum / (double)div) : 0;
                        }
                    }
}

static void test_pooling(void) {
    for (int iter = 0; iter < 60; iter++) {
        int nsp = iter % 2 ? 3 : 1;
        bool is_max = iter % 4 < 2;
        pool_cfg c = {nsp, {0}, {0}, {0}, {0}, irand(0, 1) != 0, irand(0, 1) != 0, 0};
        int64_t xs[5], osz[3];
        bool batched = iter % 3 != 0;
        int lead = batched ? 2 : 1;
        if (batched) xs[0] = iter % 7 == 0 ? 0 : irand(1, 2);
        xs[lead - 1] = irand(1, 3);
        bool ok = true;
        for (int i = 0; i < nsp; i++) {
            c.k[i] = irand(1, 3); c.s[i] = irand(1, 2); c.p[i] = irand(0, c.k[i] / 2); c.d[i] = is_max ? irand(1, 2) : 1;
            xs[lead + i] = irand(c.d[i] * (c.k[i] - 1) + 1, 7);
            osz[i] = pool_out(xs[lead + i], c.k[i], c.s[i], c.p[i], c.d[i], c.ceil);
            if (osz[i] < 1) ok = false;
        }
        if (!ok) continue;
        if (!is_max && nsp == 3 && iter % 5 == 0) c.divov = irand(1, 5); /* avg_pool1d has no divisor_override */
        int32_t rank = lead + nsp;
        eir_dtype dts[6] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, is_max ? EIR_I8 : EIR_I64, is_max ? EIR_U8 : EIR_I64};
        for (int di = 0; di < 6; di++) {
            eir_dtype dt = dts[di];
            if (!is_max && nsp == 3 && (dt == EIR_F16 || dt == EIR_BF16)) continue; /* torch: avg_pool3d has no half kernels */
            tt x = tnew(dt, rank, xs, iter % 4);
            fill_rand(&x.v);
            int64_t ys[5];
            for (int i = 0; i < lead; i++) ys[i] = xs[i];
            for (int i = 0; i < nsp; i++) ys[lead + i] = osz[i];
            tt y = tnew(dt, rank, ys, (iter + 1) % 4), ind = tnew(EIR_I64, rank, ys, 0);
            fill_poison(&y.v);
            int64_t n = numel(&y.v);
            double *want = calloc((size_t)n + 1, sizeof *want);
            int64_t *wind = calloc((size_t)n + 1, sizeof *wind);
            ref_pool(&x.v, &c, is_max, osz, want, wind);
            eir_karg a[7] = {KT(&x.v), KIS((uint32_t)nsp, c.k), KIS((uint32_t)nsp, c.s), KIS((uint32_t)nsp, c.p),
                             is_max ? KIS((uint32_t)nsp, c.d) : KB(c.ceil), is_max ? KB(c.ceil) : KB(c.cip),
                             c.divov ? KI(c.divov) : KN()};
            eir_tview outs[2] = {y.v, ind.v};
            const char *op = is_max ? (nsp == 3 ? "aten.max_pool3d_with_indices.default" : "aten.max_pool1d_with_indices.default")
                                    : (nsp == 3 ? "aten.avg_pool3d.default" : "aten.avg_pool1d.default");
            int rc = run(op, a, is_max ? 6 : (nsp == 3 ? 7 : 6), outs, is_max ? 2 : 1);
            CHECK(rc == 0);
            if (rc) fprintf(stderr, "%s: %s\n", op, errbuf);
            double *wr = rounded(&y.v, want);
            CHECK(close_to(&y.v, wr, eir_is_integral(dt, false) ? 0 : tol_of(dt), op));
            if (is_max) {
                bool same = true;
                for (int64_t k = 0; k < n; k++) same &= (int64_t)getk(&ind.v, k) == wind[k];
                CHECK(same);
            }
            free(wr); free(want); free(wind);
            tfree(&x); tfree(&y); tfree(&ind);
        }
    }
    /* NaN: the last NaN in a window wins, as in torch */
    int64_t xs[3] = {1, 1, 4}, ys[3] = {1, 1, 1}, k1[1] = {4};
    tt x = tnew(EIR_F32, 3, xs, 0), y = tnew(EIR_F32, 3, ys, 0), ind = tnew(EIR_I64, 3, ys, 0);
    float vals[4] = {1, NAN, 3, NAN};
    memcpy(x.v.data, vals, sizeof vals);
    eir_karg a[6] = {KT(&x.v), KIS(1, k1), KIS(1, k1), KIS(0, NULL), KIS(0, NULL), KB(false)};
    eir_tview outs[2] = {y.v, ind.v};
    CHECK(run("aten.max_pool1d_with_indices.default", a, 6, outs, 2) == 0);
    CHECK(isnan(*(float *)y.v.data) && *(int64_t *)ind.v.data == 3);
    /* errors torch raises */
    int64_t k3[3] = {3, 3, 3}, p2[3] = {2, 2, 2}, xs5[5] = {1, 1, 4, 4, 4}, ys5[5] = {1, 1, 2, 2, 2};
    tt x5 = tnew(EIR_F32, 5, xs5, 0), y5 = tnew(EIR_F32, 5, ys5, 0), x8 = tnew(EIR_I8, 5, xs5, 0), y8 = tnew(EIR_I8, 5, ys5, 0);
    eir_karg bad[7] = {KT(&x5.v), KIS(3, k3), KIS(0, NULL), KIS(3, p2), KB(false), KB(true), KN()};
    CHECK_FAILS(run("aten.avg_pool3d.default", bad, 7, &y5.v, 1), "pad should be at most half");
    eir_karg badt[7] = {KT(&x8.v), KIS(3, k3), KIS(0, NULL), KIS(0, NULL), KB(false), KB(true), KN()};
    CHECK_FAILS(run("aten.avg_pool3d.default", badt, 7, &y8.v, 1), "not implemented for 'Char'");
    eir_karg divz[7] = {KT(&x5.v), KIS(3, k3), KIS(0, NULL), KIS(0, NULL), KB(false), KB(true), KI(0)};
    CHECK_FAILS(run("aten.avg_pool3d.default", divz, 7, &y5.v, 1), "divisor must be not zero");
    tfree(&x); tfree(&y); tfree(&ind); tfree(&x5); tfree(&y5); tfree(&x8); tfree(&y8);
}

static void test_adaptive(void) {
    for (int iter = 0; iter < 30; iter++) {
        int nsp = iter % 2 ? 3 : 1;
        bool is_max = iter % 4 >= 2;
        int64_t xs[5] = {irand(0, 2), irand(1, 3)}, ys[5], osz[3];
        ys[0] = xs[0]; ys[1] = xs[1];
        for (int i = 0; i < nsp; i++) { xs[2 + i] = irand(1, 9); osz[i] = ys[2 + i] = irand(1, 6); }
        for (size_t di = 0; di < 4; di++) {
            eir_dtype dt = FLOATS[di];
            tt x = tnew(dt, 2 + nsp, xs, iter % 4), y = tnew(dt, 2 + nsp, ys, (iter + 2) % 4), ind = tnew(EIR_I64, 2 + nsp, ys, 0);
            fill_rand(&x.v);
            fill_poison(&y.v);
            int64_t n = numel(&y.v);
            double *want = calloc((size_t)n + 1, sizeof *want);
            int64_t *wind = calloc((size_t)n + 1, sizeof *wind), I[3] = {1, 1, 1}, O[3] = {1, 1, 1};
            for (int i = 0; i < nsp; i++) { I[3 - nsp + i] = xs[2 + i]; O[3 - nsp + i] = osz[i]; }
            for (int64_t q = 0; q < n; q++) {
                int64_t idx[EIR_MAX_RANK];
                unravel(&y.v, q, idx);
                int64_t o[3] = {0, 0, 0}, lo[3], hi[3];
                for (int i = 0; i < nsp; i++) o[3 - nsp + i] = idx[2 + i];
                for (int i = 0; i < 3; i++) {
                    lo[i] = (int64_t)floor((double)o[i] * (double)I[i] / (double)O[i]);
                    hi[i] = (int64_t)ceil((double)(o[i] + 1) * (double)I[i] / (double)O[i]);
                }
                double s = 0, best = -INFINITY;
                int64_t bi = -1, cnt = 0;
                for (int64_t a = lo[0]; a < hi[0]; a++)
                    for (int64_t b = lo[1]; b < hi[1]; b++)
                        for (int64_t e = lo[2]; e < hi[2]; e++) {
                            int64_t xi[EIR_MAX_RANK] = {idx[0], idx[1]};
                            int64_t pos[3] = {a, b, e};
                            for (int i = 0; i < nsp; i++) xi[2 + i] = pos[3 - nsp + i];
                            double v = eir_load_f64(eir_tview_at(&x.v, xi), dt);
                            s += v; cnt++;
                            if (bi < 0 || v > best) { best = v; bi = (a * I[1] + b) * I[2] + e; }
                        }
                want[q] = is_max ? best : s / (double)cnt;
                wind[q] = bi;
            }
            eir_karg a[2] = {KT(&x.v), KIS((uint32_t)nsp, osz)};
            eir_tview outs[2] = {y.v, ind.v};
            const char *op = is_max ? (nsp == 3 ? "aten.adaptive_max_pool3d.default" : "aten.adaptive_max_pool1d.default")
                                    : (nsp == 3 ? "aten._adaptive_avg_pool3d.default" : "aten.adaptive_avg_pool1d.default");
            CHECK(run(op, a, 2, outs, is_max ? 2 : 1) == 0);
            double *wr = rounded(&y.v, want);
            CHECK(close_to(&y.v, wr, tol_of(dt), op));
            if (is_max) {
                bool same = true;
                for (int64_t k = 0; k < n; k++) same &= (int64_t)getk(&ind.v, k) == wind[k];
                CHECK(same);
            }
            free(wr); free(want); free(wind);
            tfree(&x); tfree(&y); tfree(&ind);
        }
    }
}

/* ------------------------------------------------------------- upsampling */

enum { M_NEAREST, M_EXACT, M_LINEAR, M_CUBIC };

/* the source taps and weights of output position o along one dim, in double */
static int ref_taps(int mode, int64_t in, int64_t out, bool ac, double scale, int64_t o, int64_t *ix, double *w) {
    if (mode == M_NEAREST || mode == M_EXACT) {
        double s = scale > 0 ? 1.0 / scale : (double)in / (double)out;
        double src = mode == M_NEAREST ? (double)o * s : ((double)o + 0.5) * s;
        int64_t i = (int64_t)floor(src);
        if (mode == M_NEAREST && out == in) i = o;
        if (mode == M_NEAREST && out == 2 * in) i = o / 2;
        ix[0] = i < in - 1 ? i : in - 1;
        w[0] = 1;
        return 1;
    }
    double s = ac ? (out > 1 ? (double)(in - 1) / (double)(out - 1) : 0) : scale > 0 ? 1.0 / scale : (double)in / (double)out;
    double src = ac ? s * (double)o : s * ((double)o + 0.5) - 0.5;
    if (mode == M_LINEAR) {
        if (in == out) { ix[0] = o; w[0] = 1; return 1; }
        if (src < 0) src = 0;
        int64_t i0 = (int64_t)src < in - 1 ? (int64_t)src : in - 1;
        double l = src - (double)i0;
        ix[0] = i0; w[0] = 1 - l;
        ix[1] = i0 + 1 < in ? i0 + 1 : in - 1; w[1] = l;
        return 2;
    }
    int64_t i0 = (int64_t)floor(src);
    double t = src - (double)i0, A = -0.75;
    /* Keys' cubic convolution kernel evaluated at the four tap distances */
    double dist[4] = {t + 1, t, 1 - t, 2 - t};
    for (int j = 0; j < 4; j++) {
        double x = dist[j];
        w[j] = x <= 1 ? ((A + 2) * x - (A + 3)) * x * x + 1 : ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
        int64_t q = i0 - 1 + j;
        ix[j] = q < 0 ? 0 : q >= in ? in - 1 : q;
    }
    return 4;
}

static void test_upsample(void) {
    static const char *const ops[4][3] = {
        {"aten.upsample_nearest1d.vec", "aten.upsample_nearest2d.vec", "aten.upsample_nearest3d.vec"},
        {"aten._upsample_nearest_exact1d.vec", "aten._upsample_nearest_exact2d.vec", "aten._upsample_nearest_exact3d.vec"},
        {"aten.upsample_linear1d.vec", "aten.upsample_bilinear2d.vec", "aten.upsample_trilinear3d.vec"},
        {NULL, "aten.upsample_bicubic2d.vec", NULL}};
    for (int iter = 0; iter < 80; iter++) {
        int mode = iter % 4, nsp = 1 + (iter / 4) % 3;
        if (mode == M_CUBIC) nsp = 2;
        bool ac = mode >= M_LINEAR && irand(0, 1);
        bool by_scale = irand(0, 1);
        int64_t xs[5] = {iter % 9 == 0 ? 0 : irand(1, 2), irand(1, 3)}, ys[5] = {xs[0], xs[1]};
        double sc[3];
        static const double scales[] = {0.5, 0.6, 1.0, 1.7, 2.0, 2.5, 3.0};
        for (int i = 0; i < nsp; i++) {
            xs[2 + i] = irand(1, 6);
            sc[i] = scales[irand(0, 6)];
            ys[2 + i] = by_scale ? (int64_t)((double)xs[2 + i] * sc[i]) : irand(1, 9);
            if (ys[2 + i] < 1) { ys[2 + i] = 1; by_scale = false; }
        }
        for (size_t di = 0; di < 5; di++) {
            eir_dtype dt = di < 4 ? FLOATS[di] : EIR_U8;
            if (dt == EIR_U8 && mode >= M_LINEAR) continue; /* uint8 interpolation: torch's integer path, checked live */
            tt x = tnew(dt, 2 + nsp, xs, iter % 4), y = tnew(dt, 2 + nsp, ys, (iter + 3) % 4);
            fill_rand(&x.v);
            fill_poison(&y.v);
            int64_t n = numel(&y.v);
            double *want = calloc((size_t)n + 1, sizeof *want);
            for (int64_t q = 0; q < n; q++) {
                int64_t idx[EIR_MAX_RANK], ix[3][4];
                double w[3][4];
                int nt[3];
                unravel(&y.v, q, idx);
                for (int i = 0; i < nsp; i++)
                    nt[i] = ref_taps(mode, xs[2 + i], ys[2 + i], ac, by_scale ? sc[i] : -1, idx[2 + i], ix[i], w[i]);
                double acc = 0;
                int64_t t[3] = {0, 0, 0};
                for (t[0] = 0; t[0] < nt[0]; t[0]++)
                    for (t[1] = 0; t[1] < (nsp > 1 ? nt[1] : 1); t[1]++)
                        for (t[2] = 0; t[2] < (nsp > 2 ? nt[2] : 1); t[2]++) {
                            int64_t xi[EIR_MAX_RANK] = {idx[0], idx[1]};
                            double ww = 1;
                            for (int i = 0; i < nsp; i++) { xi[2 + i] = ix[i][t[i]]; ww *= w[i][t[i]]; }
                            acc += ww * eir_load_f64(eir_tview_at(&x.v, xi), dt);
                        }
                want[q] = acc;
            }
            eir_karg a[4];
            a[0] = KT(&x.v);
            a[1] = by_scale ? KN() : KIS((uint32_t)nsp, ys + 2);
            uint32_t na = 3;
            if (mode >= M_LINEAR) { a[2] = KB(ac); a[3] = by_scale ? KFS((uint32_t)nsp, sc) : KN(); na = 4; }
            else a[2] = by_scale ? KFS((uint32_t)nsp, sc) : KN();
            const char *op = ops[mode][nsp - 1];
            int rc = run(op, a, na, &y.v, 1);
            CHECK(rc == 0);
            if (rc) fprintf(stderr, "%s: %s\n", op, errbuf);
            double *wr = rounded(&y.v, want);
            /* f32: torch's float index arithmetic may tie-break a tap differently from double only at exact ties */
            CHECK(close_to(&y.v, wr, dt == EIR_U8 ? 0 : dt == EIR_F32 ? 2e-5 : tol_of(dt) * 2, op));
            free(wr); free(want);
            tfree(&x); tfree(&y);
        }
    }
    /* the .default overloads take explicit sizes and per-dim scales */
    int64_t xs[4] = {1, 2, 3, 4}, ys[4] = {1, 2, 6, 8}, osz[2] = {6, 8};
    tt x = tnew(EIR_F64, 4, xs, 0), y1 = tnew(EIR_F64, 4, ys, 0), y2 = tnew(EIR_F64, 4, ys, 2);
    fill_rand(&x.v);
    double sf[2] = {2.0, 2.0};
    eir_karg av[4] = {KT(&x.v), KN(), KB(false), KFS(2, sf)};
    eir_karg ad[5] = {KT(&x.v), KIS(2, osz), KB(false), KF(2.0), KF(2.0)};
    CHECK(run("aten.upsample_bilinear2d.vec", av, 4, &y1.v, 1) == 0);
    CHECK(run("aten.upsample_bilinear2d.default", ad, 5, &y2.v, 1) == 0);
    bool same = true;
    for (int64_t k = 0; k < numel(&y1.v); k++) same &= getk(&y1.v, k) == getk(&y2.v, k);
    CHECK(same);
    /* antialiasing changes nothing when enlarging: the triangle filter is bilinear interpolation */
    tt y3 = tnew(EIR_F64, 4, ys, 0);
    CHECK(run("aten._upsample_bilinear2d_aa.vec", av, 4, &y3.v, 1) == 0);
    double *w1 = malloc((size_t)numel(&y1.v) * sizeof *w1);
    for (int64_t k = 0; k < numel(&y1.v); k++) w1[k] = getk(&y1.v, k);
    CHECK(close_to(&y3.v, w1, 1e-12, "aa vs bilinear"));
    free(w1);
    /* uint8: a constant image stays constant through the integer path */
    int64_t us[4] = {1, 3, 5, 7}, uo[4] = {1, 3, 3, 11};
    tt ux = tnew(EIR_U8, 4, us, 3), uy = tnew(EIR_U8, 4, uo, 0);
    memset(ux.buf, 0, 1);
    for (int64_t k = 0; k < numel(&ux.v); k++) setk(&ux.v, k, 173);
    int64_t uosz[2] = {3, 11};
    eir_karg au[4] = {KT(&ux.v), KIS(2, uosz), KB(false), KN()};
    static const char *const u8ops[] = {"aten.upsample_bilinear2d.vec", "aten.upsample_bicubic2d.vec", "aten._upsample_bilinear2d_aa.vec",
                                        "aten._upsample_bicubic2d_aa.vec"};
    for (int i = 0; i < 4; i++) {
        CHECK(run(u8ops[i], au, 4, &uy.v, 1) == 0);
        bool flat = true;
        for (int64_t k = 0; k < numel(&uy.v); k++) flat &= getk(&uy.v, k) == 173;
        CHECK(flat);
    }
    /* errors */
    tt xi = tnew(EIR_I32, 4, xs, 0), yi = tnew(EIR_I32, 4, ys, 0);
    eir_karg ai[4] = {KT(&xi.v), KIS(2, osz), KB(false), KN()};
    CHECK_FAILS(run("aten.upsample_bilinear2d.vec", ai, 4, &yi.v, 1), "not implemented for 'Int'");
    int64_t zs[4] = {1, 2, 0, 4};
    tt xz = tnew(EIR_F32, 4, zs, 0), yz = tnew(EIR_F32, 4, ys, 0);
    eir_karg az[3] = {KT(&xz.v), KIS(2, osz), KN()};
    CHECK_FAILS(run("aten.upsample_nearest2d.vec", az, 3, &yz.v, 1), "Input and output sizes should be greater than 0");
    tfree(&x); tfree(&y1); tfree(&y2); tfree(&y3); tfree(&ux); tfree(&uy); tfree(&xi); tfree(&yi); tfree(&xz); tfree(&yz);
}

/* ----------------------------------------------------------- grid_sampler */

static double ref_unnorm(double c, int64_t size, bool ac) { return ac ? (c + 1) / 2 * (double)(size - 1) : ((c + 1) * (double)size - 1) / 2; }
static double ref_pad(double c, int64_t size, int pad, bool ac) {
    if (pad == 1) return fmin(fmax(c, 0), (double)(size - 1));
    if (pad == 2) {
        /* reflect about the borders (the pixel centres with align_corners, else the edges) until inside */
        double lo = ac ? 0 : -0.5, hi = ac ? (double)(size - 1) : (double)size - 0.5;
        if (hi <= lo) return 0;
        for (int guard = 0; guard < 64 && (c < lo || c > hi); guard++) c = c < lo ? 2 * lo - c : 2 * hi - c;
        return fmin(fmax(c, 0), (double)(size - 1));
    }
    return c;
}
static double ref_pix(const eir_tview *x, int64_t n, int64_t ch, int64_t z, int64_t yy, int64_t xx, int nsp) {
    int64_t D = nsp == 3 ? x->sizes[2] : 1, H = x->sizes[nsp], W = x->sizes[nsp + 1];
    if (z < 0 || z >= D || yy < 0 || yy >= H || xx < 0 || xx >= W) return 0;
    int64_t idx[5] = {n, ch};
    if (nsp == 3) { idx[2] = z; idx[3] = yy; idx[4] = xx; } else { idx[2] = yy; idx[3] = xx; }
    return eir_load_f64(eir_tview_at(x, idx), x->dtype);
}

static void test_grid_sampler(void) {
    for (int iter = 0; iter < 72; iter++) {
        int interp = iter % 3, pad = (iter / 3) % 3, nsp = (iter / 9) % 2 ? 3 : 2;
        bool ac = (iter / 18) % 2;
        if (nsp == 3 && interp == 2) continue;
        int64_t N = iter % 11 == 0 ? 0 : irand(1, 2), C = irand(1, 3);
        int64_t xs[5] = {N, C}, gs[5] = {N}, ys[5] = {N, C};
        for (int i = 0; i < nsp; i++) { xs[2 + i] = irand(1, 5); gs[1 + i] = ys[2 + i] = irand(1, 4); }
        gs[nsp + 1] = nsp;
        eir_dtype dt = iter % 2 ? EIR_F64 : EIR_F32;
        tt x = tnew(dt, nsp + 2, xs, iter % 4), g = tnew(dt, nsp + 2, gs, (iter / 4) % 3), y = tnew(dt, nsp + 2, ys, (iter + 1) % 4);
        fill_rand(&x.v);
        for (int64_t k = 0; k < numel(&g.v); k++) setk(&g.v, k, urand() * 1.4); /* some points outside [-1, 1] */
        fill_poison(&y.v);
        int64_t n = numel(&y.v);
        double *want = calloc((size_t)n + 1, sizeof *want);
        int64_t D = nsp == 3 ? xs[2] : 1, H = xs[nsp], W = xs[nsp + 1];
        for (int64_t q = 0; q < n; q++) {
            int64_t idx[EIR_MAX_RANK] = {0}, gi[EIR_MAX_RANK] = {0};
            unravel(&y.v, q, idx);
            gi[0] = idx[0];
            for (int i = 0; i < nsp; i++) gi[1 + i] = idx[2 + i];
            double c[3];
            for (int i = 0; i < nsp; i++) { gi[nsp + 1] = i; c[i] = eir_load_f64(eir_tview_at(&g.v, gi), dt); }
            double fx = ref_unnorm(c[0], W, ac), fy = ref_unnorm(c[1], H, ac), fz = nsp == 3 ? ref_unnorm(c[2], D, ac) : 0;
            double v = 0;
            if (interp == 2) {
                int64_t x0 = (int64_t)floor(fx), y0 = (int64_t)floor(fy);
                double tx = fx - (double)x0, ty = fy - (double)y0, A = -0.75, wx[4], wy[4];
                double dx[4] = {tx + 1, tx, 1 - tx, 2 - tx}, dy[4] = {ty + 1, ty, 1 - ty, 2 - ty};
                for (int j = 0; j < 4; j++) {
                    wx[j] = dx[j] <= 1 ? ((A + 2) * dx[j] - (A + 3)) * dx[j] * dx[j] + 1 : ((A * dx[j] - 5 * A) * dx[j] + 8 * A) * dx[j] - 4 * A;
                    wy[j] = dy[j] <= 1 ? ((A + 2) * dy[j] - (A + 3)) * dy[j] * dy[j] + 1 : ((A * dy[j] - 5 * A) * dy[j] + 8 * A) * dy[j] - 4 * A;
                }
                for (int j = 0; j < 4; j++)
                    for (int i = 0; i < 4; i++) {
                        double px = ref_pad((double)(x0 - 1 + i), W, pad, ac), py = ref_pad((double)(y0 - 1 + j), H, pad, ac);
                        v += wx[i] * wy[j] * ref_pix(&x.v, idx[0], idx[1], 0, (int64_t)py, (int64_t)px, nsp);
                    }
            } else {
                fx = ref_pad(fx, W, pad, ac); fy = ref_pad(fy, H, pad, ac);
                if (nsp == 3) fz = ref_pad(fz, D, pad, ac);
                if (interp == 1) {
                    v = ref_pix(&x.v, idx[0], idx[1], (int64_t)nearbyint(fz), (int64_t)nearbyint(fy), (int64_t)nearbyint(fx), nsp);
                } else {
                    double x0 = floor(fx), y0 = floor(fy), z0 = floor(fz);
                    for (int a = 0; a < (nsp == 3 ? 2 : 1); a++)
                        for (int b = 0; b < 2; b++)
                            for (int e = 0; e < 2; e++) {
                                double w = (e ? fx - x0 : 1 - (fx - x0)) * (b ? fy - y0 : 1 - (fy - y0));
                                if (nsp == 3) w *= a ? fz - z0 : 1 - (fz - z0);
                                v += w * ref_pix(&x.v, idx[0], idx[1], (int64_t)z0 + a, (int64_t)y0 + b, (int64_t)x0 + e, nsp);
                            }
                }
            }
            want[q] = v;
        }
        eir_karg a[5] = {KT(&x.v), KT(&g.v), KI(interp), KI(pad), KB(ac)};
        const char *op = nsp == 3 ? "aten.grid_sampler_3d.default" : "aten.grid_sampler_2d.default";
        int rc = run(op, a, 5, &y.v, 1);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "%s: %s\n", op, errbuf);
        CHECK(close_to(&y.v, want, dt == EIR_F64 ? 1e-11 : 2e-5, op));
        /* the dispatching overload picks the same kernel */
        if (iter % 5 == 0) {
            tt y2 = tnew(dt, nsp + 2, ys, 0);
            CHECK(run("aten.grid_sampler.default", a, 5, &y2.v, 1) == 0);
            CHECK(close_to(&y2.v, want, dt == EIR_F64 ? 1e-11 : 2e-5, "grid_sampler"));
            tfree(&y2);
        }
        free(want);
        tfree(&x); tfree(&g); tfree(&y);
    }
    /* float16/bfloat16: torch's vector kernel rounds every intermediate to the
     * reduced type, which moves coordinates across pixel boundaries and
     * changes weights well beyond the output's rounding. Input 1x1x5x6 holding
     * 0.25 * k - 3 (exact in both types), one grid point (gx, gy); want: torch
     * 2.13's output, bit for bit. Found by comparing torch's reduced-type
     * results with its float64 ones on random grids. */
    static const struct { eir_dtype dt; int interp, pad, ac; double gx, gy, want; } HALF[] = {
    {EIR_F16, 0, 0, 0, 0.1668701171875, -0.14697265625, 0.19921875}, /* exact arithmetic: 0.199005126953125 */
    {EIR_F16, 0, 0, 1, 0.332763671875, 0.0592041015625, 1.01171875}, /* exact arithmetic: 1.010589599609375 */
    {EIR_F16, 0, 1, 0, 0.1668701171875, -0.14697265625, 0.19921875}, /* exact arithmetic: 0.199005126953125 */
    {EIR_F16, 0, 1, 1, 0.332763671875, 0.0592041015625, 1.01171875}, /* exact arithmetic: 1.010589599609375 */
    {EIR_F16, 0, 2, 0, 0.1668701171875, -0.14697265625, 0.19921875}, /* exact arithmetic: 0.199005126953125 */
    {EIR_F16, 0, 2, 1, 0.332763671875, 0.0592041015625, 1.01171875}, /* exact arithmetic: 1.010589599609375 */
    {EIR_F16, 1, 0, 0, 0.332763671875, 0.0592041015625, 1.0}, /* exact arithmetic: 0.75 */
    {EIR_F16, 1, 0, 1, 0.80126953125, -0.91552734375, -2.0}, /* exact arithmetic: -1.75 */
    {EIR_F16, 1, 1, 0, 0.332763671875, 0.0592041015625, 1.0}, /* exact arithmetic: 0.75 */
    {EIR_F16, 1, 1, 1, 0.80126953125, -0.91552734375, -2.0}, /* exact arithmetic: -1.75 */
    {EIR_F16, 1, 2, 0, 0.332763671875, 0.0592041015625, 1.0}, /* exact arithmetic: 0.75 */
    {EIR_F16, 1, 2, 1, 0.80126953125, -0.91552734375, -2.0}, /* exact arithmetic: -1.75 */
    {EIR_F16, 2, 0, 0, 0.6181640625, -0.52978515625, -1.173828125}, /* exact arithmetic: -1.1718297712130694 */
    {EIR_F16, 2, 0, 1, 0.6181640625, -0.52978515625, -0.62060546875}, /* exact arithmetic: -0.6190040807671486 */
    {EIR_F16, 2, 1, 0, 0.6181640625, -0.52978515625, -1.00390625}, /* exact arithmetic: -1.0122585097906267 */
    {EIR_F16, 2, 1, 1, 0.6181640625, -0.52978515625, -0.6171875}, /* exact arithmetic: -0.6134722547940328 */
    {EIR_F16, 2, 2, 0, 0.6181640625, -0.52978515625, -1.00390625}, /* exact arithmetic: -1.0122585097906267 */
    {EIR_F16, 2, 2, 1, 0.6181640625, -0.52978515625, -0.62060546875}, /* exact arithmetic: -0.6168575550691457 */
    {EIR_BF16, 0, 0, 0, -0.5234375, 1.078125, 1.0078125}, /* exact arithmetic: 0.9848785400390625 */
    {EIR_BF16, 0, 0, 1, 0.5546875, -0.056640625, 0.80859375}, /* exact arithmetic: 0.8017578125 */
    {EIR_BF16, 0, 1, 0, -0.13671875, -0.76171875, -2.3125}, /* exact arithmetic: -2.333984375 */
    {EIR_BF16, 0, 1, 1, 0.5546875, -0.056640625, 0.80859375}, /* exact arithmetic: 0.8017578125 */
    {EIR_BF16, 0, 2, 0, -0.13671875, -0.76171875, -2.3125}, /* exact arithmetic: -2.333984375 */
    {EIR_BF16, 0, 2, 1, 0.5546875, -0.056640625, 0.80859375}, /* exact arithmetic: 0.8017578125 */
    {EIR_BF16, 1, 0, 0, -0.828125, 1.0078125, 3.0}, /* exact arithmetic: 0.0 */
    {EIR_BF16, 1, 0, 1, -0.28125, 0.74609375, 3.5}, /* exact arithmetic: 2.0 */
    {EIR_BF16, 1, 1, 0, -0.30078125, 0.2021484375, 0.5}, /* exact arithmetic: 2.0 */
    {EIR_BF16, 1, 1, 1, -0.28125, 0.74609375, 3.5}, /* exact arithmetic: 2.0 */
    {EIR_BF16, 1, 2, 0, -0.30078125, 0.2021484375, 0.5}, /* exact arithmetic: 2.0 */
    {EIR_BF16, 1, 2, 1, -0.28125, 0.74609375, 3.5}, /* exact arithmetic: 2.0 */
    {EIR_BF16, 2, 0, 0, -1.0859375, -0.5859375, -0.61328125}, /* exact arithmetic: -0.5773759756689985 */
    {EIR_BF16, 2, 0, 1, 0.875, 0.55078125, 3.203125}, /* exact arithmetic: 3.2679089577213745 */
    {EIR_BF16, 2, 1, 0, 0.875, 0.55078125, 3.609375}, /* exact arithmetic: 3.4763194946572185 */
    {EIR_BF16, 2, 1, 1, 0.875, 0.55078125, 2.71875}, /* exact arithmetic: 2.906803071498871 */
    {EIR_BF16, 2, 2, 0, 0.875, 0.55078125, 3.609375}, /* exact arithmetic: 3.4788829712197185 */
    {EIR_BF16, 2, 2, 1, 0.875, 0.55078125, 2.796875}, /* exact arithmetic: 2.944923520088196 */
    };
    for (size_t k = 0; k < sizeof HALF / sizeof HALF[0]; k++) {
        int64_t hx[4] = {1, 1, 5, 6}, hg[4] = {1, 1, 1, 2}, hy[4] = {1, 1, 1, 1};
        tt x = tnew(HALF[k].dt, 4, hx, k % 4), g = tnew(HALF[k].dt, 4, hg, 0), y = tnew(HALF[k].dt, 4, hy, 0);
        for (int64_t i = 0; i < 30; i++) setk(&x.v, i, 0.25 * (double)i - 3);
        setk(&g.v, 0, HALF[k].gx);
        setk(&g.v, 1, HALF[k].gy);
        eir_karg a[5] = {KT(&x.v), KT(&g.v), KI(HALF[k].interp), KI(HALF[k].pad), KB(HALF[k].ac)};
        CHECK(run("aten.grid_sampler_2d.default", a, 5, &y.v, 1) == 0);
        double got = getk(&y.v, 0);
        if (got != HALF[k].want)
            fprintf(stderr, "grid_sampler_2d %s interp %d pad %d ac %d at (%g, %g): got %.17g, torch %.17g\n",
                    eir_torch_dtype_name(HALF[k].dt), HALF[k].interp, HALF[k].pad, HALF[k].ac, HALF[k].gx, HALF[k].gy, got, HALF[k].want);
        CHECK(got == HALF[k].want);
        tfree(&x); tfree(&g); tfree(&y);
    }
    int64_t xs[4] = {1, 2, 4, 4}, gs[4] = {1, 3, 3, 2}, ys[4] = {1, 2, 3, 3};
    /* errors */
    tt x = tnew(EIR_F32, 4, xs, 0), g = tnew(EIR_F64, 4, gs, 0), y = tnew(EIR_F32, 4, ys, 0);
    eir_karg a[5] = {KT(&x.v), KT(&g.v), KI(0), KI(0), KB(false)};
    CHECK_FAILS(run("aten.grid_sampler_2d.default", a, 5, &y.v, 1), "same dtype");
    int64_t xs5[5] = {1, 1, 2, 2, 2}, gs5[5] = {1, 1, 1, 1, 3}, ys5[5] = {1, 1, 1, 1, 1};
    tt x5 = tnew(EIR_F32, 5, xs5, 0), g5 = tnew(EIR_F32, 5, gs5, 0), y5 = tnew(EIR_F32, 5, ys5, 0);
    eir_karg a5[5] = {KT(&x5.v), KT(&g5.v), KI(2), KI(0), KB(false)};
    CHECK_FAILS(run("aten.grid_sampler_3d.default", a5, 5, &y5.v, 1), "bicubic interpolation only supports 4D input");
    tfree(&x); tfree(&g); tfree(&y); tfree(&x5); tfree(&g5); tfree(&y5);
}

/* ---------------------------------------------------------- col2im/im2col */

static void test_fold(void) {
    for (int iter = 0; iter < 40; iter++) {
        int64_t kh = irand(1, 3), kw = irand(1, 3), dh = irand(1, 2), dw = irand(1, 2), ph = irand(0, 2), pw = irand(0, 2);
        int64_t sh = irand(1, 2), sw = irand(1, 2), H = irand(dh * (kh - 1) + 1, 7), W = irand(dw * (kw - 1) + 1, 7);
        int64_t bh = (H + 2 * ph - dh * (kh - 1) - 1) / sh + 1, bw = (W + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
        int64_t N = iter % 7 == 0 ? 0 : irand(1, 2), C = irand(1, 3);
        bool batched = iter % 3 != 0;
        static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_C64, EIR_C128, EIR_BOOL};
        eir_dtype dt = dts[iter % 7];
        int64_t cs[3] = {N, C * kh * kw, bh * bw}, is[4] = {N, C, H, W};
        int r0 = batched ? 0 : 1;
        if (!batched && N == 0) continue;
        tt col = tnew(dt, 3 - r0, cs + r0, iter % 4), img = tnew(dt, 4 - r0, is + r0, (iter + 1) % 4);
        if (dt == EIR_BOOL) for (int64_t k = 0; k < numel(&col.v); k++) setk(&col.v, k, urand() > 0.6);
        else fill_rand(&col.v);
        int64_t ksz[2] = {kh, kw}, dil[2] = {dh, dw}, pad[2] = {ph, pw}, str[2] = {sh, sw}, osz[2] = {H, W};
        eir_karg a[6] = {KT(&col.v), KIS(2, osz), KIS(2, ksz), KIS(2, dil), KIS(2, pad), KIS(2, str)};
        CHECK(run("aten.col2im.default", a, 6, &img.v, 1) == 0);
        /* reference: each image pixel gathers the column entries whose kernel tap lands on it */
        int64_t n = numel(&img.v);
        bool ok = true;
        for (int64_t q = 0; q < n && ok; q++) {
            int64_t idx[4];
            unravel(&img.v, q, idx);
            int64_t nn = batched ? idx[0] : 0, c = idx[1 - r0], h = idx[2 - r0], w = idx[3 - r0];
            double re = 0, im = 0;
            bool any = false;
            for (int64_t i = 0; i < kh; i++)
                for (int64_t j = 0; j < kw; j++) {
                    int64_t th = h + ph - i * dh, tw = w + pw - j * dw;
                    if (th < 0 || tw < 0 || th % sh || tw % sw || th / sh >= bh || tw / sw >= bw) continue;
                    int64_t ci[3] = {nn, (c * kh + i) * kw + j, (th / sh) * bw + tw / sw};
                    double r, m;
                    eir_load_c128(eir_tview_at(&col.v, ci + r0), dt, &r, &m);
                    re += r; im += m;
                    any |= r != 0;
                }
            double gr, gm;
            getck(&img.v, q, &gr, &gm);
            if (dt == EIR_BOOL) ok = (gr != 0) == any;
            else ok = fabs(gr - re) <= tol_of(dt) * 4 * (1 + fabs(re)) && fabs(gm - im) <= tol_of(dt) * 4 * (1 + fabs(im));
        }
        CHECK(ok);
        /* im2col is col2im's adjoint: <col2im(c), x> == <c, im2col(x)> */
        if (dt == EIR_F64) {
            tt x = tnew(EIR_F64, 4 - r0, is + r0, 0), cx = tnew(EIR_F64, 3 - r0, cs + r0, (iter + 2) % 4);
            fill_rand(&x.v);
            eir_karg b[5] = {KT(&x.v), KIS(2, ksz), KIS(2, dil), KIS(2, pad), KIS(2, str)};
            CHECK(run("aten.im2col.default", b, 5, &cx.v, 1) == 0);
            double l = 0, r = 0;
            for (int64_t k = 0; k < numel(&img.v); k++) l += getk(&img.v, k) * getk(&x.v, k);
            for (int64_t k = 0; k < numel(&col.v); k++) r += getk(&col.v, k) * getk(&cx.v, k);
            CHECK(fabs(l - r) < 1e-9 * (1 + fabs(l)));
            tfree(&x); tfree(&cx);
        }
        tfree(&col); tfree(&img);
    }
    /* a block count that does not match gives torch's message */
    int64_t cs[3] = {1, 4, 5}, is[4] = {1, 1, 3, 3}, k2[2] = {2, 2}, one[2] = {1, 1}, zero[2] = {0, 0}, osz[2] = {3, 3};
    tt col = tnew(EIR_F32, 3, cs, 0), img = tnew(EIR_F32, 4, is, 0);
    eir_karg a[6] = {KT(&col.v), KIS(2, osz), KIS(2, k2), KIS(2, one), KIS(2, zero), KIS(2, one)};
    CHECK_FAILS(run("aten.col2im.default", a, 6, &img.v, 1), "expected size of input's dimension 2 to match the calculated number of sliding blocks 2 * 2 = 4, but got input.size(2)=5");
    tfree(&col); tfree(&img);
}

int main(void) {
    test_pooling();
    test_adaptive();
    test_upsample();
    test_grid_sampler();
    test_fold();
    print_worst("spatial");
    return check_summary("test_k_spatial");
}
