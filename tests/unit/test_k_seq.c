/* test_k_seq.c — the sequence and grid kernels exported programs call
 * (compose.c: where(condition), pad_sequence, affine_grid_generator; nn.c:
 * rnn_tanh.input, rnn_relu.input and the four cells) against naive references written from
 * torch's definitions, in several dtypes and memory layouts, plus torch's
 * errors. */
#include "ktest.h"

static inline eir_karg KTS(uint32_t n, const eir_tview *const *ts) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSORS; a.n = n; a.ts = ts; return a; }

/* ---- where(condition): nonzero's columns, sized by eir_compose_presize ---- */
static void test_where(void) {
    const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_BF16, EIR_I64, EIR_U8, EIR_BOOL, EIR_C64};
    for (int it = 0; it < 28; it++) {
        eir_dtype dt = dts[it % 7];
        int32_t rank = it % 4; /* 0-d counts as 1-d */
        int64_t sz[3] = {irand(0, 4), irand(1, 3), irand(1, 4)};
        if (it % 5 == 4) sz[0] = 0;
        tt X = tnew(dt, rank, sz, it % 3);
        fill_rand(&X.v);
        int64_t n = numel(&X.v), cnt = 0;
        for (int64_t k = 0; k < n; k++) {
            if (urand() < -0.3) setk(&X.v, k, 0); /* some zeros */
            double re, im;
            getck(&X.v, k, &re, &im);
            cnt += re != 0 || im != 0;
        }
        uint32_t nd = rank ? (uint32_t)rank : 1;
        eir_karg a[1] = {KT(&X.v)};
        eir_kctx ctx = {errbuf, sizeof errbuf, 1, NULL};
        tt O[3];
        eir_tview ov[3];
        for (uint32_t d = 0; d < nd; d++) {
            int64_t ps[EIR_MAX_RANK];
            int32_t pr = -1;
            CHECK(eir_compose_presize("aten.where.default", a, 1, d, ps, &pr, &ctx) == 1 && pr == 1 && ps[0] == cnt);
            O[d] = tnew(EIR_I64, 1, &cnt, d == 1 ? 2 : 0);
            ov[d] = O[d].v;
            fill_poison(&ov[d]);
        }
        CHECK(run("aten.where.default", a, 1, ov, nd) == 0);
        bool ok = true;
        for (int64_t k = 0, row = 0; k < n; k++) {
            double re, im;
            getck(&X.v, k, &re, &im);
            if (re == 0 && im == 0) continue;
            int64_t idx[EIR_MAX_RANK] = {0};
            unravel(&X.v, k, idx);
            for (uint32_t d = 0; d < nd; d++) ok &= getk(&ov[d], row) == (double)(rank ? idx[d] : 0);
            row++;
        }
        CHECK(ok);
        /* outputs of the wrong count or size are refused */
        if (nd > 1) CHECK(run("aten.where.default", a, 1, ov, nd - 1) == -1);
        for (uint32_t d = 0; d < nd; d++) tfree(&O[d]);
        tfree(&X);
    }
}

/* ---- pad_sequence(sequences, batch_first, padding_value, padding_side) ---- */
static void test_pad_sequence(void) {
    const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_BF16, EIR_F16, EIR_I64, EIR_I32, EIR_BOOL};
    for (int it = 0; it < 42; it++) {
        eir_dtype dt = dts[it % 7];
        bool bf = it % 2, left = (it / 2) % 2;
        uint32_t n = (uint32_t)irand(1, 4);
        int32_t trank = (int32_t)irand(0, 2);
        int64_t trail[2] = {irand(1, 3), irand(0, 2)}, maxlen = 0;
        tt S[4];
        eir_tview sv[4];
        const eir_tview *sp[4];
        for (uint32_t i = 0; i < n; i++) {
            int64_t sz[3] = {irand(0, 5), trail[0], trail[1]};
            if (sz[0] > maxlen) maxlen = sz[0];
            S[i] = tnew(dt, trank + 1, sz, (int)(i + it) % 3);
            fill_rand(&S[i].v);
            sv[i] = S[i].v;
            sp[i] = &sv[i];
        }
        int64_t os[4] = {bf ? n : maxlen, bf ? maxlen : n, trail[0], trail[1]};
        tt O = tnew(dt, trank + 2, os, it % 4);
        fill_poison(&O.v);
        double pv = it % 3 == 0 ? 0.0 : it % 3 == 1 ? -2.5 : 7.0;
        eir_karg a[4] = {KTS(n, sp), KB(bf), KF(pv), KSTR(left ? "left" : "right")};
        CHECK(run("aten.pad_sequence.default", a, 4, &O.v, 1) == 0);
        unsigned char tmp[16];
        eir_store_f64(tmp, dt, pv);
        double pad = eir_load_f64(tmp, dt);
        int64_t on = numel(&O.v);
        double *want = malloc((size_t)(on + 1) * sizeof *want);
        for (int64_t k = 0; k < on; k++) {
            int64_t oi[EIR_MAX_RANK] = {0};
            unravel(&O.v, k, oi);
            int64_t b = bf ? oi[0] : oi[1], t = bf ? oi[1] : oi[0];
            const eir_tview *q = sp[b];
            int64_t len = q->sizes[0], start = left ? maxlen - len : 0;
            if (t < start || t >= start + len) { want[k] = pad; continue; }
            int64_t qi[EIR_MAX_RANK] = {t - start, oi[2], oi[3]};
            want[k] = eir_load_f64(eir_tview_at(q, qi), q->dtype);
        }
        CHECK(close_to(&O.v, want, 0, "pad_sequence"));
        free(want);
        tfree(&O);
        for (uint32_t i = 0; i < n; i++) tfree(&S[i]);
    }
    /* torch's errors */
    int64_t s1[2] = {2, 3}, s2[2] = {3, 2}, so[3] = {3, 2, 3};
    tt A = tnew(EIR_F32, 2, s1, 0), B = tnew(EIR_F32, 2, s2, 0), O = tnew(EIR_F32, 3, so, 0);
    const eir_tview *ab[2] = {&A.v, &B.v};
    eir_karg e0[4] = {KTS(0, ab), KB(false), KF(0), KSTR("right")};
    eir_karg e1[4] = {KTS(1, ab), KB(false), KF(0), KSTR("middle")};
    eir_karg e2[4] = {KTS(2, ab), KB(false), KF(0), KSTR("right")};
    CHECK_FAILS(run("aten.pad_sequence.default", e0, 4, &O.v, 1), "received an empty list of sequences");
    CHECK_FAILS(run("aten.pad_sequence.default", e1, 4, &O.v, 1), "Expected padding_side to be one of left or right, but got middle.");
    CHECK(run("aten.pad_sequence.default", e2, 4, &O.v, 1) == -1);
    tfree(&A); tfree(&B); tfree(&O);
}

/* ---- affine_grid_generator(theta, size, align_corners) ---- */
static double ag_lin(int64_t k, int64_t steps, bool align) {
    if (steps <= 1) return 0;
    double v = -1 + 2.0 * (double)k / (double)(steps - 1);
    return align ? v : v * (double)(steps - 1) / (double)steps;
}
static void test_affine_grid(void) {
    const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_BF16, EIR_F16};
    for (int it = 0; it < 32; it++) {
        eir_dtype dt = dts[it % 4];
        bool align = it % 2, three = (it / 2) % 2;
        int32_t sd = three ? 3 : 2;
        int64_t N = irand(1, 3), sz[5] = {N, irand(1, 3), irand(1, 5), irand(1, 6), irand(1, 4)};
        int64_t ts[3] = {N, sd, sd + 1};
        tt T = tnew(dt, 3, ts, it % 3);
        fill_rand(&T.v);
        int64_t os[5] = {N, sz[2], sz[3], three ? sz[4] : sd, sd};
        tt O = tnew(dt, sd + 2, os, 0);
        fill_poison(&O.v);
        eir_karg a[3] = {KT(&T.v), KIS((uint32_t)sd + 2, sz), KB(align)};
        CHECK(run("aten.affine_grid_generator.default", a, 3, &O.v, 1) == 0);
        int64_t on = numel(&O.v);
        double *want = malloc((size_t)(on + 1) * sizeof *want);
        for (int64_t k = 0; k < on; k++) {
            int64_t oi[EIR_MAX_RANK] = {0};
            unravel(&O.v, k, oi);
            double base[4];
            if (three) { /* (n, d, h, w, c): x from w, y from h, z from d */
                base[0] = ag_lin(oi[3], sz[4], align); base[1] = ag_lin(oi[2], sz[3], align); base[2] = ag_lin(oi[1], sz[2], align);
            } else {
                base[0] = ag_lin(oi[2], sz[3], align); base[1] = ag_lin(oi[1], sz[2], align);
            }
            base[sd] = 1;
            int64_t c = oi[sd + 1];
            double s = 0;
            for (int32_t j = 0; j <= sd; j++) {
                int64_t ti[3] = {oi[0], c, j};
                s += eir_load_f64(eir_tview_at(&T.v, ti), dt) * base[j];
            }
            want[k] = s;
        }
        /* the base grid is rounded to the dtype before the product */
        CHECK(close_to(&O.v, want, dt == EIR_F64 ? 1e-12 : dt == EIR_F32 ? 2e-6 : 6e-2, "affine_grid_generator"));
        free(want);
        tfree(&T); tfree(&O);
    }
    int64_t ts[3] = {2, 2, 3}, bad[3] = {2, 3, 4}, os[4] = {2, 3, 4, 2};
    tt T = tnew(EIR_F32, 3, ts, 0), O = tnew(EIR_F32, 4, os, 0);
    eir_karg e0[3] = {KT(&T.v), KIS(3, bad), KB(false)};
    CHECK_FAILS(run("aten.affine_grid_generator.default", e0, 3, &O.v, 1), "needs 4d (spatial) or 5d (volumetric) inputs");
    int64_t s5[5] = {2, 1, 3, 4, 2};
    eir_karg e1[3] = {KT(&T.v), KIS(5, s5), KB(false)};
    CHECK(run("aten.affine_grid_generator.default", e1, 3, &O.v, 1) == -1);
    tfree(&T); tfree(&O);
}

/* ---- rnn_tanh / rnn_relu: h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh), layer by layer ---- */
static void test_rnn_simple(void) {
    const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_BF16};
    for (int it = 0; it < 36; it++) {
        eir_dtype dt = dts[it % 3];
        bool relu = (it / 3) % 2, bias = (it / 6) % 2, bidir = (it / 12) % 2, bfirst = it % 4 == 1, unbatched = it % 7 == 3;
        int64_t L = irand(1, 3), D = bidir ? 2 : 1, T = irand(1, 5), B = irand(1, 3), In = irand(1, 4), H = irand(1, 4);
        if (unbatched) bfirst = false;
        uint32_t per = bias ? 4 : 2, np = (uint32_t)(L * D) * per;
        tt P[48];
        eir_tview pv[48];
        const eir_tview *pp[48];
        for (int64_t l = 0; l < L; l++)
            for (int64_t d = 0; d < D; d++) {
                int64_t in_l = l ? D * H : In, base = (l * D + d) * per;
                int64_t s0[2] = {H, in_l}, s1[2] = {H, H}, s2[1] = {H};
                P[base] = tnew(dt, 2, s0, (int)(l + d) % 2);
                P[base + 1] = tnew(dt, 2, s1, (int)d % 3);
                if (bias) { P[base + 2] = tnew(dt, 1, s2, 0); P[base + 3] = tnew(dt, 1, s2, 2); }
            }
        for (uint32_t k = 0; k < np; k++) { fill_rand(&P[k].v); pv[k] = P[k].v; pp[k] = &pv[k]; }
        int64_t xs[3], ys[3], hs[3];
        if (unbatched) { xs[0] = T; xs[1] = In; ys[0] = T; ys[1] = D * H; hs[0] = L * D; hs[1] = H; }
        else {
            xs[0] = bfirst ? B : T; xs[1] = bfirst ? T : B; xs[2] = In;
            ys[0] = xs[0]; ys[1] = xs[1]; ys[2] = D * H;
            hs[0] = L * D; hs[1] = B; hs[2] = H;
        }
        int32_t r = unbatched ? 2 : 3;
        tt X = tnew(dt, r, xs, it % 3), H0 = tnew(dt, r, hs, (it + 1) % 3), Y = tnew(dt, r, ys, (it + 2) % 3), HN = tnew(dt, r, hs, it % 2);
        fill_rand(&X.v); fill_rand(&H0.v); fill_poison(&Y.v); fill_poison(&HN.v);
        eir_tview outs[2] = {Y.v, HN.v};
        eir_karg a[9] = {KT(&X.v), KT(&H0.v), KTS(np, pp), KB(bias), KI(L), KF(0.0), KB(false), KB(bidir), KB(bfirst)};
        CHECK(run(relu ? "aten.rnn_relu.input" : "aten.rnn_tanh.input", a, 9, outs, 2) == 0);
        /* the reference, in double; batch index b, step t */
        int64_t Bn = unbatched ? 1 : B;
        double *in = malloc((size_t)(T * Bn * (In > D * H ? In : D * H) + 1) * sizeof(double));
        double *outl = malloc((size_t)(T * Bn * D * H + 1) * sizeof(double)), *hn = malloc((size_t)(L * D * Bn * H + 1) * sizeof(double));
        int64_t F = In;
        for (int64_t t = 0; t < T; t++)
            for (int64_t b = 0; b < Bn; b++)
                for (int64_t i = 0; i < In; i++) {
                    int64_t xi[3];
                    if (unbatched) { xi[0] = t; xi[1] = i; } else if (bfirst) { xi[0] = b; xi[1] = t; xi[2] = i; } else { xi[0] = t; xi[1] = b; xi[2] = i; }
                    in[(t * Bn + b) * F + i] = eir_load_f64(eir_tview_at(&X.v, xi), dt);
                }
        for (int64_t l = 0; l < L; l++) {
            for (int64_t d = 0; d < D; d++) {
                const eir_tview *const *w = pp + (l * D + d) * per;
                for (int64_t b = 0; b < Bn; b++) {
                    double h[8];
                    for (int64_t j = 0; j < H; j++) {
                        int64_t hi[3];
                        if (unbatched) { hi[0] = l * D + d; hi[1] = j; } else { hi[0] = l * D + d; hi[1] = b; hi[2] = j; }
                        h[j] = eir_load_f64(eir_tview_at(&H0.v, hi), dt);
                    }
                    for (int64_t s = 0; s < T; s++) {
                        int64_t t = d ? T - 1 - s : s;
                        double hnew[8];
                        for (int64_t j = 0; j < H; j++) {
                            double g = 0;
                            for (int64_t i = 0; i < F; i++) { int64_t wi[2] = {j, i}; g += eir_load_f64(eir_tview_at(w[0], wi), dt) * in[(t * Bn + b) * F + i]; }
                            for (int64_t i = 0; i < H; i++) { int64_t wi[2] = {j, i}; g += eir_load_f64(eir_tview_at(w[1], wi), dt) * h[i]; }
                            if (bias) { int64_t bi[1] = {j}; g += eir_load_f64(eir_tview_at(w[2], bi), dt) + eir_load_f64(eir_tview_at(w[3], bi), dt); }
                            hnew[j] = relu ? (g > 0 ? g : 0) : tanh(g);
                        }
                        memcpy(h, hnew, (size_t)H * sizeof(double));
                        for (int64_t j = 0; j < H; j++) outl[(t * Bn + b) * D * H + d * H + j] = h[j];
                    }
                    for (int64_t j = 0; j < H; j++) hn[((l * D + d) * Bn + b) * H + j] = h[j];
                }
            }
            F = D * H;
            memcpy(in, outl, (size_t)(T * Bn * F) * sizeof(double));
        }
        int64_t yn = numel(&Y.v), hnn = numel(&HN.v);
        double *wy = malloc((size_t)(yn + 1) * sizeof(double)), *wh = malloc((size_t)(hnn + 1) * sizeof(double));
        for (int64_t k = 0; k < yn; k++) {
            int64_t yi[3] = {0};
            unravel(&Y.v, k, yi);
            int64_t t = unbatched ? yi[0] : bfirst ? yi[1] : yi[0], b = unbatched ? 0 : bfirst ? yi[0] : yi[1], f = yi[r - 1];
            wy[k] = outl[(t * Bn + b) * F + f];
        }
        for (int64_t k = 0; k < hnn; k++) {
            int64_t hi[3] = {0};
            unravel(&HN.v, k, hi);
            wh[k] = unbatched ? hn[hi[0] * H + hi[1]] : hn[(hi[0] * Bn + hi[1]) * H + hi[2]];
        }
        double tol = dt == EIR_F64 ? 1e-11 : dt == EIR_F32 ? 2e-5 : 1.6e-2;
        CHECK(close_to(&Y.v, wy, tol, relu ? "rnn_relu output" : "rnn_tanh output"));
        CHECK(close_to(&HN.v, wh, tol, relu ? "rnn_relu h_n" : "rnn_tanh h_n"));
        free(in); free(outl); free(hn); free(wy); free(wh);
        tfree(&X); tfree(&H0); tfree(&Y); tfree(&HN);
        for (uint32_t k = 0; k < np; k++) tfree(&P[k]);
    }
    /* a parameter list that does not fit the layers, and dropout in training mode */
    int64_t xs[3] = {3, 2, 4}, hs[3] = {1, 2, 3}, ys[3] = {3, 2, 3}, w0[2] = {3, 4}, w1[2] = {3, 3};
    tt X = tnew(EIR_F32, 3, xs, 0), H0 = tnew(EIR_F32, 3, hs, 0), Y = tnew(EIR_F32, 3, ys, 0), HN = tnew(EIR_F32, 3, hs, 0);
    tt W0 = tnew(EIR_F32, 2, w0, 0), W1 = tnew(EIR_F32, 2, w1, 0);
    const eir_tview *ps[3] = {&W0.v, &W1.v, &W1.v};
    eir_tview outs[2] = {Y.v, HN.v};
    eir_karg e0[9] = {KT(&X.v), KT(&H0.v), KTS(3, ps), KB(false), KI(1), KF(0.0), KB(false), KB(false), KB(false)};
    CHECK_FAILS(run("aten.rnn_tanh.input", e0, 9, outs, 2), "rnn_tanh: bad parameter list");
    eir_karg e1[9] = {KT(&X.v), KT(&H0.v), KTS(2, ps), KB(false), KI(1), KF(0.5), KB(true), KB(false), KB(false)};
    CHECK_FAILS(run("aten.rnn_relu.input", e1, 9, outs, 2), "rnn_relu: dropout in training mode is not supported");
    tfree(&X); tfree(&H0); tfree(&Y); tfree(&HN); tfree(&W0); tfree(&W1);
}

/* ---- the cells: one step, torch's gate formulas written out (LSTM i, f, g, o; GRU r, z, n) ---- */
static double sg(double v) { return 1 / (1 + exp(-v)); }
static void test_cells(void) {
    const char *ops[4] = {"aten.rnn_tanh_cell.default", "aten.rnn_relu_cell.default", "aten.lstm_cell.default", "aten.gru_cell.default"};
    const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_BF16};
    for (int it = 0; it < 48; it++) {
        int mode = it % 4; /* 0 tanh, 1 relu, 2 lstm, 3 gru */
        eir_dtype dt = dts[(it / 4) % 3];
        int bmode = (it / 12) % 4; /* 0 both biases, 1 none, 2 only b_ih, 3 only b_hh */
        bool unb = it % 5 == 2;
        int64_t G = mode == 2 ? 4 : mode == 3 ? 3 : 1, B = irand(1, 3), In = irand(1, 5), H = irand(1, 4);
        int64_t xs[2] = {B, In}, hs[2] = {B, H}, wis[2] = {G * H, In}, whs[2] = {G * H, H}, bs[1] = {G * H};
        int32_t r = unb ? 1 : 2;
        const int64_t *xsz = unb ? xs + 1 : xs, *hsz = unb ? hs + 1 : hs;
        if (unb) B = 1;
        tt X = tnew(dt, r, xsz, it % 3), H0 = tnew(dt, r, hsz, (it + 1) % 3), C0 = tnew(dt, r, hsz, 0);
        tt WI = tnew(dt, 2, wis, it % 2), WH = tnew(dt, 2, whs, (it + 1) % 2), BI = tnew(dt, 1, bs, 0), BH = tnew(dt, 1, bs, 2);
        tt HN = tnew(dt, r, hsz, (it + 2) % 3), CN = tnew(dt, r, hsz, 0);
        fill_rand(&X.v); fill_rand(&H0.v); fill_rand(&C0.v); fill_rand(&WI.v); fill_rand(&WH.v); fill_rand(&BI.v); fill_rand(&BH.v);
        fill_poison(&HN.v); fill_poison(&CN.v);
        bool hbi = bmode == 0 || bmode == 2, hbh = bmode == 0 || bmode == 3;
        const eir_tview *hc[2] = {&H0.v, &C0.v};
        eir_karg a[6] = {KT(&X.v), mode == 2 ? KTS(2, hc) : KT(&H0.v), KT(&WI.v), KT(&WH.v), hbi ? KT(&BI.v) : KN(), hbh ? KT(&BH.v) : KN()};
        eir_tview outs[2] = {HN.v, CN.v};
        CHECK(run(ops[mode], a, 6, outs, mode == 2 ? 2 : 1) == 0);
        int64_t n = B * H;
        double *wh = malloc((size_t)(n + 1) * sizeof(double)), *wc = malloc((size_t)(n + 1) * sizeof(double));
        for (int64_t b = 0; b < B; b++)
            for (int64_t j = 0; j < H; j++) {
                double gi[4] = {0}, gh[4] = {0};
                for (int64_t q = 0; q < G; q++) {
                    int64_t row = q * H + j;
                    for (int64_t i = 0; i < In; i++) gi[q] += getk(&WI.v, row * In + i) * getk(&X.v, b * In + i);
                    for (int64_t i = 0; i < H; i++) gh[q] += getk(&WH.v, row * H + i) * getk(&H0.v, b * H + i);
                    if (hbi) gi[q] += getk(&BI.v, row);
                    if (hbh) gh[q] += getk(&BH.v, row);
                }
                double h0 = getk(&H0.v, b * H + j), v;
                if (mode == 0) v = tanh(gi[0] + gh[0]);
                else if (mode == 1) v = gi[0] + gh[0] > 0 ? gi[0] + gh[0] : 0;
                else if (mode == 2) {
                    double c = sg(gi[1] + gh[1]) * getk(&C0.v, b * H + j) + sg(gi[0] + gh[0]) * tanh(gi[2] + gh[2]);
                    wc[b * H + j] = c;
                    v = sg(gi[3] + gh[3]) * tanh(c);
                } else {
                    double rr = sg(gi[0] + gh[0]), z = sg(gi[1] + gh[1]), nn = tanh(gi[2] + rr * gh[2]);
                    v = (1 - z) * nn + z * h0;
                }
                wh[b * H + j] = v;
            }
        double tol = dt == EIR_F64 ? 1e-11 : dt == EIR_F32 ? 2e-5 : 1.6e-2;
        CHECK(close_to(&HN.v, wh, tol, ops[mode]));
        if (mode == 2) CHECK(close_to(&CN.v, wc, tol, "lstm_cell c"));
        free(wh); free(wc);
        tfree(&X); tfree(&H0); tfree(&C0); tfree(&WI); tfree(&WH); tfree(&BI); tfree(&BH); tfree(&HN); tfree(&CN);
    }
    /* weights that do not fit the input */
    int64_t xs[2] = {2, 4}, hs[2] = {2, 3}, w0[2] = {3, 5}, w1[2] = {3, 3};
    tt X = tnew(EIR_F32, 2, xs, 0), H0 = tnew(EIR_F32, 2, hs, 0), W0 = tnew(EIR_F32, 2, w0, 0), W1 = tnew(EIR_F32, 2, w1, 0), HN = tnew(EIR_F32, 2, hs, 0);
    eir_karg e0[6] = {KT(&X.v), KT(&H0.v), KT(&W0.v), KT(&W1.v), KN(), KN()};
    CHECK_FAILS(run("aten.rnn_tanh_cell.default", e0, 6, &HN.v, 1), "rnn_tanh_cell: the weights do not fit the input");
    tfree(&X); tfree(&H0); tfree(&W0); tfree(&W1); tfree(&HN);
}

int main(void) {
    test_where();
    test_pad_sequence();
    test_affine_grid();
    test_rnn_simple();
    test_cells();
    print_worst("test_k_seq");
    return check_summary("test_k_seq");
}
