/* test_k_fft.c — the FFT kernels (src/kernels/fft.c) against a naive O(n^2)
 * DFT in long double: lengths with every kind of factorization (powers of 2
 * and 4, 3, 5, other small primes, primes over 64 that go through
 * Bluestein), r2c / c2r / c2c over one and several dims, the three
 * normalization modes, onesided and full r2c, c2r's last_dim_size, the
 * torch.fft-level ops (padding / trimming to n, norm strings, hfft / ihfft),
 * non-contiguous inputs and outputs, empty batches, f32 / f64 / complex, and
 * the errors torch raises. */
#include "ktest.h"

/* out[k] = sum_j in[j] e^{sign 2 pi i jk/n} along dim d of a row-major complex array of shape (rank, sz) */
static void ref_dft_dim(long double *re, long double *im, int32_t rank, const int64_t *sz, int32_t d, int sign) {
    int64_t len = sz[d], inner = 1, outer = 1;
    for (int32_t i = d + 1; i < rank; i++) inner *= sz[i];
    for (int32_t i = 0; i < d; i++) outer *= sz[i];
    long double *tr = malloc((size_t)(len + 1) * sizeof *tr), *ti = malloc((size_t)(len + 1) * sizeof *ti);
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            for (int64_t k = 0; k < len; k++) {
                long double sr = 0, si = 0;
                for (int64_t j = 0; j < len; j++) {
                    long double a = sign * 2.0L * 3.14159265358979323846264338327950288L * (long double)((j * k) % len) / (long double)len;
                    long double xr = re[(o * len + j) * inner + i], xi = im[(o * len + j) * inner + i];
                    sr += xr * cosl(a) - xi * sinl(a);
                    si += xr * sinl(a) + xi * cosl(a);
                }
                tr[k] = sr; ti[k] = si;
            }
            for (int64_t k = 0; k < len; k++) { re[(o * len + k) * inner + i] = tr[k]; im[(o * len + k) * inner + i] = ti[k]; }
        }
    free(tr); free(ti);
}

static double norm_scale(int norm, double total) { return norm == 0 ? 1 : norm == 1 ? 1 / sqrt(total) : 1 / total; }

/* compare a complex output with reference arrays shaped like it */
static bool cclose(const eir_tview *got, const long double *re, const long double *im, double tol, const char *what) {
    int64_t n = numel(got);
    double scale = 1;
    for (int64_t k = 0; k < n; k++) scale = fmax(scale, fabs((double)re[k]) + fabs((double)im[k]));
    double e = 0;
    for (int64_t k = 0; k < n; k++) {
        double gr, gi;
        getck(got, k, &gr, &gi);
        e = fmax(e, fmax(fabs(gr - (double)re[k]), fabs(gi - (double)im[k])) / scale);
    }
    int s = dslot(got->dtype);
    if (s >= 0 && e > worst[s]) worst[s] = e;
    if (e <= tol) return true;
    fprintf(stderr, "%s: max error %g > %g\n", what, e, tol);
    return false;
}

static const int64_t LENS[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 25, 30, 32, 49, 64, 67, 97, 100, 127, 128, 131, 210, 256, 257};

static void test_1d(void) {
    for (size_t li = 0; li < sizeof LENS / sizeof LENS[0]; li++) {
        int64_t n = LENS[li];
        for (int prec = 0; prec < 2; prec++) {
            eir_dtype rt = prec ? EIR_F64 : EIR_F32, ct = prec ? EIR_C128 : EIR_C64;
            double tol = prec ? 1e-13 : 2e-6;
            int norm = (int)(li % 3);
            int64_t xs[2] = {2, n}, hs[2] = {2, n / 2 + 1};
            /* c2c forward and backward */
            tt z = tnew(ct, 2, xs, (int)li % 4), y = tnew(ct, 2, xs, (int)(li + 1) % 4);
            fill_rand(&z.v);
            long double *re = calloc((size_t)(2 * n), sizeof *re), *im = calloc((size_t)(2 * n), sizeof *im);
            for (int dir = 0; dir < 2; dir++) {
                for (int64_t k = 0; k < 2 * n; k++) { double a, b; getck(&z.v, k, &a, &b); re[k] = a; im[k] = b; }
                ref_dft_dim(re, im, 2, xs, 1, dir ? 1 : -1);
                double sc = norm_scale(norm, (double)n);
                for (int64_t k = 0; k < 2 * n; k++) { re[k] *= sc; im[k] *= sc; }
                int64_t dims[1] = {1};
                eir_karg a[4] = {KT(&z.v), KIS(1, dims), KI(norm), KB(dir == 0)};
                CHECK(run("aten._fft_c2c.default", a, 4, &y.v, 1) == 0);
                CHECK(cclose(&y.v, re, im, tol, "_fft_c2c"));
            }
            /* r2c onesided and full */
            tt x = tnew(rt, 2, xs, (int)li % 3);
            fill_rand(&x.v);
            for (int onesided = 0; onesided < 2; onesided++) {
                for (int64_t k = 0; k < 2 * n; k++) { re[k] = getk(&x.v, k); im[k] = 0; }
                ref_dft_dim(re, im, 2, xs, 1, -1);
                int64_t os[2] = {2, onesided ? n / 2 + 1 : n};
                tt r = tnew(ct, 2, os, (int)(li + 2) % 4);
                long double *rr = calloc((size_t)(2 * os[1]), sizeof *rr), *ri = calloc((size_t)(2 * os[1]), sizeof *ri);
                double sc = norm_scale(norm, (double)n);
                for (int64_t b = 0; b < 2; b++)
                    for (int64_t k = 0; k < os[1]; k++) { rr[b * os[1] + k] = re[b * n + k] * sc; ri[b * os[1] + k] = im[b * n + k] * sc; }
                int64_t dims[1] = {-1};
                eir_karg a[4] = {KT(&x.v), KIS(1, dims), KI(norm), KB(onesided)};
                CHECK(run("aten._fft_r2c.default", a, 4, &r.v, 1) == 0);
                CHECK(cclose(&r.v, rr, ri, tol, "_fft_r2c"));
                free(rr); free(ri);
                tfree(&r);
            }
            /* c2r: the half spectrum of a real signal goes back to it (inverse of an unnormalized r2c, scaled by n) */
            if (n > 1) {
                tt h = tnew(ct, 2, hs, (int)li % 4), back = tnew(rt, 2, xs, (int)(li + 3) % 4);
                int64_t dims[1] = {1};
                eir_karg a[4] = {KT(&x.v), KIS(1, dims), KI(0), KB(true)};
                CHECK(run("aten._fft_r2c.default", a, 4, &h.v, 1) == 0);
                eir_karg b[4] = {KT(&h.v), KIS(1, dims), KI(2), KI(n)};
                CHECK(run("aten._fft_c2r.default", b, 4, &back.v, 1) == 0);
                double *want = malloc((size_t)(2 * n) * sizeof *want);
                for (int64_t k = 0; k < 2 * n; k++) want[k] = getk(&x.v, k);
                CHECK(close_to(&back.v, want, prec ? 1e-12 : 1e-5, "c2r(r2c(x))"));
                /* imaginary parts of the DC and Nyquist bins are ignored, as pocketfft does */
                for (int64_t bi = 0; bi < 2; bi++) {
                    int64_t i0[2] = {bi, 0}, iN[2] = {bi, n / 2};
                    double r0, q0;
                    eir_load_c128(eir_tview_at(&h.v, i0), ct, &r0, &q0);
                    eir_store_c128(eir_tview_at(&h.v, i0), ct, r0, 123.0);
                    if (n % 2 == 0) { eir_load_c128(eir_tview_at(&h.v, iN), ct, &r0, &q0); eir_store_c128(eir_tview_at(&h.v, iN), ct, r0, -7.0); }
                }
                CHECK(run("aten._fft_c2r.default", b, 4, &back.v, 1) == 0);
                CHECK(close_to(&back.v, want, prec ? 1e-12 : 1e-5, "c2r ignores DC/Nyquist imaginary parts"));
                free(want);
                tfree(&h); tfree(&back);
            }
            free(re); free(im);
            tfree(&z); tfree(&y); tfree(&x);
        }
    }
}

static void test_nd(void) {
    for (int iter = 0; iter < 24; iter++) {
        int64_t xs[3] = {irand(1, 5), irand(1, 7), irand(2, 9)};
        if (iter % 8 == 0) xs[0] = 0;
        eir_dtype ct = iter % 2 ? EIR_C128 : EIR_C64, rt = iter % 2 ? EIR_F64 : EIR_F32;
        double tol = iter % 2 ? 1e-12 : 3e-6;
        int norm = iter % 3;
        /* an empty batch dim is never transformed (torch: "Invalid number of data points (0)") */
        int64_t dims[2] = {iter % 3 == 0 && xs[0] > 0 ? 0 : 1, 2};
        int32_t d0 = (int32_t)dims[0];
        /* c2c over two dims */
        tt z = tnew(ct, 3, xs, iter % 4), y = tnew(ct, 3, xs, (iter + 1) % 4);
        fill_rand(&z.v);
        int64_t n = numel(&z.v);
        long double *re = calloc((size_t)n + 1, sizeof *re), *im = calloc((size_t)n + 1, sizeof *im);
        for (int64_t k = 0; k < n; k++) { double a, b; getck(&z.v, k, &a, &b); re[k] = a; im[k] = b; }
        ref_dft_dim(re, im, 3, xs, d0, -1);
        ref_dft_dim(re, im, 3, xs, 2, -1);
        double sc = norm_scale(norm, (double)(xs[d0] * xs[2]));
        for (int64_t k = 0; k < n; k++) { re[k] *= sc; im[k] *= sc; }
        eir_karg a[4] = {KT(&z.v), KIS(2, dims), KI(norm), KB(true)};
        CHECK(run("aten._fft_c2c.default", a, 4, &y.v, 1) == 0);
        CHECK(cclose(&y.v, re, im, tol, "_fft_c2c 2-d"));
        /* rfftn then irfftn (torch.fft-level ops with s and norm strings) restores the input */
        tt x = tnew(rt, 3, xs, (iter + 2) % 4);
        fill_rand(&x.v);
        int64_t hs[3] = {xs[0], xs[1], xs[2] / 2 + 1};
        tt h = tnew(ct, 3, hs, (iter + 3) % 4), back = tnew(rt, 3, xs, iter % 4);
        static const char *const norms[] = {"backward", "ortho", "forward"};
        int64_t s2[2] = {xs[d0], xs[2]};
        eir_karg f[4] = {KT(&x.v), KN(), KIS(2, dims), KSTR(norms[norm])};
        CHECK(run("aten.fft_rfftn.default", f, 4, &h.v, 1) == 0);
        eir_karg g[4] = {KT(&h.v), KIS(2, s2), KIS(2, dims), KSTR(norms[norm])};
        CHECK(run("aten.fft_irfftn.default", g, 4, &back.v, 1) == 0);
        double *want = malloc((size_t)(numel(&x.v) + 1) * sizeof *want);
        for (int64_t k = 0; k < numel(&x.v); k++) want[k] = getk(&x.v, k);
        CHECK(close_to(&back.v, want, iter % 2 ? 1e-12 : 2e-5, "irfftn(rfftn(x))"));
        free(want); free(re); free(im);
        tfree(&z); tfree(&y); tfree(&x); tfree(&h); tfree(&back);
    }
}

static void test_user_ops(void) {
    /* fft with n pads with zeros / trims; ifft with default norm scales by 1/n */
    int64_t xs[1] = {6}, ys[1] = {10}, ts[1] = {4};
    tt x = tnew(EIR_F64, 1, xs, 2), y = tnew(EIR_C128, 1, ys, 0), t = tnew(EIR_C128, 1, ts, 0);
    fill_rand(&x.v);
    eir_karg a[4] = {KT(&x.v), KI(10), KI(0), KN()};
    CHECK(run("aten.fft_fft.default", a, 4, &y.v, 1) == 0);
    long double re[10] = {0}, im[10] = {0};
    for (int k = 0; k < 6; k++) re[k] = getk(&x.v, k);
    int64_t n10[1] = {10};
    ref_dft_dim(re, im, 1, n10, 0, -1);
    CHECK(cclose(&y.v, re, im, 1e-13, "fft_fft n=10"));
    eir_karg b[4] = {KT(&x.v), KI(4), KI(-1), KSTR("ortho")};
    CHECK(run("aten.fft_fft.default", b, 4, &t.v, 1) == 0);
    long double r4[4] = {0}, i4[4] = {0};
    for (int k = 0; k < 4; k++) r4[k] = getk(&x.v, k);
    int64_t n4[1] = {4};
    ref_dft_dim(r4, i4, 1, n4, 0, -1);
    for (int k = 0; k < 4; k++) { r4[k] /= 2; i4[k] /= 2; }
    CHECK(cclose(&t.v, r4, i4, 1e-13, "fft_fft n=4 ortho"));
    /* hfft(x, n) = irfft(conj(x), n) * n ; ihfft(x) = conj(rfft(x)) / n */
    int64_t hs[1] = {4}, rs[1] = {6};
    tt h = tnew(EIR_C128, 1, hs, 0), r1 = tnew(EIR_F64, 1, rs, 0), r2 = tnew(EIR_F64, 1, rs, 0), cj = tnew(EIR_C128, 1, hs, 0);
    fill_rand(&h.v);
    for (int64_t k = 0; k < 4; k++) { double p, q; getck(&h.v, k, &p, &q); setck(&cj.v, k, p, -q); }
    eir_karg hf[4] = {KT(&h.v), KI(6), KI(0), KN()};
    CHECK(run("aten.fft_hfft.default", hf, 4, &r1.v, 1) == 0);
    eir_karg ir[4] = {KT(&cj.v), KI(6), KI(0), KSTR("forward")};
    CHECK(run("aten.fft_irfft.default", ir, 4, &r2.v, 1) == 0);
    double w[6];
    for (int k = 0; k < 6; k++) w[k] = getk(&r2.v, k);
    CHECK(close_to(&r1.v, w, 1e-12, "hfft"));
    tt ih = tnew(EIR_C128, 1, hs, 0), rf = tnew(EIR_C128, 1, hs, 0);
    eir_karg ia[4] = {KT(&x.v), KN(), KI(0), KN()};
    CHECK(run("aten.fft_ihfft.default", ia, 4, &ih.v, 1) == 0);
    CHECK(run("aten.fft_rfft.default", ia, 4, &rf.v, 1) == 0);
    long double er[4], ei[4];
    for (int k = 0; k < 4; k++) { double p, q; getck(&rf.v, k, &p, &q); er[k] = p / 6; ei[k] = -q / 6; }
    CHECK(cclose(&ih.v, er, ei, 1e-13, "ihfft"));
    /* errors torch raises */
    eir_karg bad[4] = {KT(&h.v), KN(), KI(0), KN()};
    CHECK_FAILS(run("aten.fft_rfft.default", bad, 4, &t.v, 1), "rfft expects a real input tensor");
    eir_karg badn[4] = {KT(&x.v), KN(), KI(0), KSTR("sideways")};
    CHECK_FAILS(run("aten.fft_fft.default", badn, 4, &y.v, 1), "Invalid normalization mode: \"sideways\"");
    eir_karg bad0[4] = {KT(&x.v), KI(0), KI(0), KN()};
    CHECK_FAILS(run("aten.fft_fft.default", bad0, 4, &y.v, 1), "Invalid number of data points (0) specified");
    int64_t dup[2] = {0, 0};
    eir_karg badd[4] = {KT(&h.v), KIS(2, dup), KI(0), KB(true)};
    CHECK_FAILS(run("aten._fft_c2c.default", badd, 4, &t.v, 1), "FFT dims must be unique");
    tt hx = tnew(EIR_F16, 1, xs, 0);
    int64_t d1[1] = {0};
    eir_karg bh[4] = {KT(&hx.v), KIS(1, d1), KI(0), KB(true)};
    CHECK_FAILS(run("aten._fft_r2c.default", bh, 4, &t.v, 1), "unsupported dtype Half");
    tfree(&x); tfree(&y); tfree(&t); tfree(&h); tfree(&r1); tfree(&r2); tfree(&cj); tfree(&ih); tfree(&rf); tfree(&hx);
}

int main(void) {
    test_1d();
    test_nd();
    test_user_ops();
    printf("fft: worst error relative to the largest magnitude: c64/f32 %.3g, c128/f64 %.3g\n", worst[0], worst[1]);
    return check_summary("test_k_fft");
}
