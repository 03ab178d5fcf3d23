/* test_dnnl_conv.c — float32 2-d convolutions whose weight is a declared
 * constant, on oneDNN's convolution primitive (kernels/dnnl_conv.c).
 *
 * Shapes of ResNet-18 and the MobileNets' stems and odd ones (odd channel
 * counts, padding, strides, dilation, rectangular kernels, two images), with
 * and without bias, through aten.convolution (the bias inside the primitive)
 * and eir_cpu::conv2d with each activation (bias and activation in the
 * epilogue): against a float64 reference, against the same call with the
 * weight not declared (im2col and the GEMM), and on 2 and 3 threads (the
 * same bits as on one). A cached weight is keyed by its owner: when the
 * owner drops its constants and another declares the same address with
 * other values (a runtime freed, another created where it was), the new
 * values are used; one weight met in many shapes stops adding copies after
 * 8. The whole test runs twice: as started, and again in a
 * child process with EIR_GEMM=openblas, where the primitive is never used
 * (unless it was off already: no oneDNN, the sanitizer builds). */
#include <math.h>

#include "base/pool.h"
#include "kernels/dnnl_conv.h"
#include "kernels/gemm.h"
#include "kernels/fast.h"
#include "ktest.h"
#include "rerun.h"

typedef struct cshape {
    int64_t N, C, H, W, O, kh, kw, s, p, d;
} cshape;

static int run_fused(const eir_karg *a, eir_tview *out) {
    eir_kctx ctx = {.err = errbuf, .errlen = sizeof errbuf, .nthreads = 1};
    errbuf[0] = 0;
    for (const eir_kernel_entry *e = eir_kernels_fused; e->op; e++)
        if (!strcmp(e->op, "eir_cpu.conv2d.default")) return e->fn(a, 10, out, 1, &ctx);
    return -2;
}

static double act_of(const char *act, double v) {
    if (!strcmp(act, "relu")) return v < 0 ? 0 : v;
    if (!strcmp(act, "hardtanh")) return v < 0 ? 0 : v > 6 ? 6 : v;
    if (!strcmp(act, "hardswish")) return v * fmin(fmax(v + 3, 0), 6) / 6;
    return v;
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

/* conv(x, w) + b, then the activation, in float64 */
static double *reference(const cshape *c, const float *x, const float *w, const float *b, const char *act) {
    int64_t OH = out_size(c->H, c->kh, c->s, c->p, c->d), OW = out_size(c->W, c->kw, c->s, c->p, c->d);
    double *y = malloc((size_t)(c->N * c->O * OH * OW) * sizeof *y);
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t o = 0; o < c->O; o++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    double s = b ? b[o] : 0;
                    for (int64_t ci = 0; ci < c->C; ci++)
                        for (int64_t i = 0; i < c->kh; i++)
                            for (int64_t j = 0; j < c->kw; j++) {
                                int64_t ih = oh * c->s - c->p + i * c->d, iw = ow * c->s - c->p + j * c->d;
                                if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W) continue;
                                s += (double)x[((n * c->C + ci) * c->H + ih) * c->W + iw] *
                                     (double)w[((o * c->C + ci) * c->kh + i) * c->kw + j];
                            }
                    y[((n * c->O + o) * OH + oh) * OW + ow] = act_of(act, s);
                }
    return y;
}

static bool dnnl_on;
static int owner_a, owner_b;

/* one call: eir_cpu::conv2d with act (fused), or aten.convolution (act NULL) */
static int conv(const cshape *c, tt *X, tt *Wt, tt *B, bool bias, const char *act, eir_tview *Y) {
    int64_t sv[2] = {c->s, c->s}, pv[2] = {c->p, c->p}, dv[2] = {c->d, c->d}, op[2] = {0, 0};
    if (!act) {
        eir_karg a[9] = {KT(&X->v), KT(&Wt->v), bias ? KT(&B->v) : KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv), KB(false),
                         KIS(2, op), KI(1)};
        return run("aten.convolution.default", a, 9, Y, 1);
    }
    bool ht = !strcmp(act, "hardtanh");
    eir_karg a[10] = {KT(&X->v), KT(&Wt->v), bias ? KT(&B->v) : KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv), KI(1),
                      KSTR(act), ht ? KF(0) : KN(), ht ? KF(6) : KN()};
    return run_fused(a, Y);
}

static void one_case(const cshape *c, const char *act, bool bias) {
    char what[200];
    int64_t OH = out_size(c->H, c->kh, c->s, c->p, c->d), OW = out_size(c->W, c->kw, c->s, c->p, c->d);
    snprintf(what, sizeof what, "conv N%lld C%lld %lldx%lld -> %lld k%lldx%lld s%lld p%lld d%lld %s%s", (long long)c->N,
             (long long)c->C, (long long)c->H, (long long)c->W, (long long)c->O, (long long)c->kh, (long long)c->kw,
             (long long)c->s, (long long)c->p, (long long)c->d, act ? act : "aten.convolution", bias ? " bias" : "");
    int64_t xs[4] = {c->N, c->C, c->H, c->W}, ws[4] = {c->O, c->C, c->kh, c->kw}, ys[4] = {c->N, c->O, OH, OW};
    tt X = tnew(EIR_F32, 4, xs, 0), Wt = tnew(EIR_F32, 4, ws, 0), B = tnew(EIR_F32, 1, &c->O, 0);
    tt R = tnew(EIR_F32, 4, ys, 0), G = tnew(EIR_F32, 4, ys, 0), P = tnew(EIR_F32, 4, ys, 0);
    fill_rand(&X.v); fill_rand(&Wt.v); fill_rand(&B.v);
    size_t wbytes = (size_t)numel(&Wt.v) * sizeof(float), n = (size_t)numel(&R.v) * sizeof(float);
    /* float sums of C * kh * kw products of values up to 2 in size: the error grows with the count */
    double tol = 1e-5 + 1.2e-7 * (double)(c->C * c->kh * c->kw);
    double *want = reference(c, X.buf, Wt.buf, bias ? B.buf : NULL, act ? act : "none");

    /* the plain path: the weight not declared */
    fill_poison(&P.v);
    uint64_t calls = eir_dnnl_conv_calls();
    CHECK(conv(c, &X, &Wt, &B, bias, act, &P.v) == 0);
    CHECK(eir_dnnl_conv_calls() == calls);
    CHECK(close_to(&P.v, want, tol, what));

    /* declared constant: the primitive when oneDNN is on (kernels of more than one tap) */
    CHECK(eir_dnnl_conv_const_add(&owner_a, Wt.buf, wbytes, false) == 0);
    fill_poison(&R.v);
    CHECK(conv(c, &X, &Wt, &B, bias, act, &R.v) == 0);
    bool want_dnnl = dnnl_on && c->kh * c->kw > 1;
    if ((eir_dnnl_conv_calls() == calls + 1) != want_dnnl) fprintf(stderr, "%s: primitive %s\n", what, want_dnnl ? "not used" : "used");
    CHECK((eir_dnnl_conv_calls() == calls + 1) == want_dnnl);
    CHECK(close_to(&R.v, want, tol, what));
    /* against the plain path: both within the reference's bound of each other */
    double *plain = malloc((size_t)numel(&P.v) * sizeof *plain);
    for (int64_t k = 0; k < numel(&P.v); k++) plain[k] = ((float *)P.buf)[k];
    CHECK(close_to(&R.v, plain, 2 * tol, what));
    free(plain);
    if (want_dnnl) CHECK(eir_dnnl_conv_weight_bytes() >= wbytes);
    /* the cached weight again, then 2 and 3 threads: the same bits */
    fill_poison(&G.v);
    CHECK(conv(c, &X, &Wt, &B, bias, act, &G.v) == 0);
    CHECK(memcmp(R.buf, G.buf, n) == 0);
    for (int t = 2; t <= 3; t++) {
        eir_pool *pool = eir_pool_create(t);
        fill_poison(&G.v);
        eir_pool *prev = eir_pool_enter(pool);
        CHECK(conv(c, &X, &Wt, &B, bias, act, &G.v) == 0);
        eir_pool_leave(prev);
        eir_pool_free(pool);
        bool same = memcmp(R.buf, G.buf, n) == 0;
        if (!same) fprintf(stderr, "%s: %d threads differ from one\n", what, t);
        CHECK(same);
    }

    /* runtimes on one program declare the same weight and share its entry: it outlives the owner
     * that made it while another still declares the weight (a convolution may be running from it
     * on that runtime's thread) */
    size_t held = eir_dnnl_conv_weight_bytes();
    CHECK(eir_dnnl_conv_const_add(&owner_b, Wt.buf, wbytes, false) == 0);
    eir_dnnl_conv_const_drop(&owner_a);
    CHECK(eir_dnnl_conv_weight_bytes() == held);
    fill_poison(&G.v);
    CHECK(conv(c, &X, &Wt, &B, bias, act, &G.v) == 0);
    CHECK(memcmp(R.buf, G.buf, n) == 0);
    CHECK(eir_dnnl_conv_weight_bytes() == held);

    /* the last owner drops its constants; another declares the same address holding other values */
    eir_dnnl_conv_const_drop(&owner_b);
    CHECK(eir_dnnl_conv_weight_bytes() == 0);
    for (int64_t k = 0; k < numel(&Wt.v); k++) ((float *)Wt.buf)[k] = -((float *)Wt.buf)[k] * 0.5f;
    double *want2 = reference(c, X.buf, Wt.buf, bias ? B.buf : NULL, act ? act : "none");
    CHECK(eir_dnnl_conv_const_add(&owner_b, Wt.buf, wbytes, false) == 0);
    fill_poison(&G.v);
    calls = eir_dnnl_conv_calls();
    CHECK(conv(c, &X, &Wt, &B, bias, act, &G.v) == 0);
    CHECK((eir_dnnl_conv_calls() == calls + 1) == want_dnnl);
    CHECK(close_to(&G.v, want2, tol, what));
    eir_dnnl_conv_const_drop(&owner_b);
    CHECK(eir_dnnl_conv_weight_bytes() == 0);
    free(want);
    free(want2);
    tfree(&X); tfree(&Wt); tfree(&B); tfree(&R); tfree(&G); tfree(&P);
}

static void test_shapes(void) {
    static const cshape shapes[] = {
        /* ResNet-18: stem, a layer of each width, the stride-2 entries and their 1 x 1 downsamples */
        {1, 3, 224, 224, 64, 7, 7, 2, 3, 1},
        {1, 64, 56, 56, 64, 3, 3, 1, 1, 1},
        {1, 64, 56, 56, 128, 3, 3, 2, 1, 1},
        {1, 64, 56, 56, 128, 1, 1, 2, 0, 1},
        {1, 128, 28, 28, 128, 3, 3, 1, 1, 1},
        {1, 256, 14, 14, 512, 3, 3, 2, 1, 1},
        {1, 512, 7, 7, 512, 3, 3, 1, 1, 1},
        /* the MobileNets' stem */
        {1, 3, 224, 224, 16, 3, 3, 2, 1, 1},
        /* odd ones: odd channels (a last block short of 32), no padding, more padding than
         * the kernel's half, stride 3, dilation, rectangular kernels, two images */
        {1, 5, 17, 13, 7, 3, 3, 1, 1, 1},
        {2, 13, 19, 23, 45, 3, 3, 2, 0, 1},
        {1, 7, 12, 12, 33, 5, 5, 1, 3, 1},
        {1, 9, 21, 20, 40, 3, 3, 3, 1, 1},
        {1, 6, 20, 18, 35, 3, 3, 1, 2, 2},
        {2, 4, 16, 15, 70, 1, 3, 1, 1, 1},
        {1, 3, 11, 9, 19, 5, 2, 2, 1, 1},
        {1, 16, 9, 9, 24, 1, 1, 1, 0, 1},
        /* squeeze-and-excitation on pooled images: the matrix-vector kernel for up to 4 images */
        {1, 240, 1, 1, 960, 1, 1, 1, 0, 1},
        {3, 72, 1, 1, 24, 1, 1, 1, 0, 1},
        {5, 16, 1, 1, 12, 1, 1, 1, 0, 1},
    };
    static const char *acts[] = {"none", "relu", "hardtanh", "hardswish"};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        one_case(&shapes[i], NULL, i % 2 == 0);
        one_case(&shapes[i], acts[i % 4], i % 2 != 0);
        if (i >= 8) one_case(&shapes[i], acts[(i + 1) % 4], true);
    }
}

/* a weight not wholly inside a declared range, and a declared range dropped: the plain path */
static void test_not_constant(void) {
    cshape c = {1, 8, 10, 10, 16, 3, 3, 1, 1, 1};
    int64_t xs[4] = {1, 8, 10, 10}, ws[4] = {16, 8, 3, 3}, ys[4] = {1, 16, 10, 10};
    tt X = tnew(EIR_F32, 4, xs, 0), Wt = tnew(EIR_F32, 4, ws, 0), B = tnew(EIR_F32, 1, &c.O, 0), Y = tnew(EIR_F32, 4, ys, 0);
    fill_rand(&X.v); fill_rand(&Wt.v);
    CHECK(eir_dnnl_conv_const_add(&owner_a, Wt.buf, (size_t)numel(&Wt.v) * sizeof(float) - 4, false) == 0);
    uint64_t calls = eir_dnnl_conv_calls();
    CHECK(conv(&c, &X, &Wt, &B, false, "relu", &Y.v) == 0);
    CHECK(eir_dnnl_conv_calls() == calls);
    double *want = reference(&c, X.buf, Wt.buf, NULL, "relu");
    CHECK(close_to(&Y.v, want, 1e-5, "weight past a declared range"));
    eir_dnnl_conv_const_drop(&owner_a);
    free(want);
    tfree(&X); tfree(&Wt); tfree(&B); tfree(&Y);
}

/* one weight in many input sizes (dynamic shapes): the first 8 shapes get a primitive (and a
 * reordered copy) each, later shapes take the plain path; every answer is right */
static void test_many_shapes(void) {
    int64_t ws[4] = {16, 4, 3, 3};
    tt Wt = tnew(EIR_F32, 4, ws, 0), B = tnew(EIR_F32, 1, &ws[0], 0);
    fill_rand(&Wt.v);
    CHECK(eir_dnnl_conv_const_add(&owner_a, Wt.buf, (size_t)numel(&Wt.v) * sizeof(float), false) == 0);
    for (int64_t i = 0; i < 11; i++) {
        cshape c = {1, 4, 6 + i, 7, 16, 3, 3, 1, 1, 1};
        int64_t xs[4] = {1, 4, c.H, c.W}, ys[4] = {1, 16, c.H, c.W};
        tt X = tnew(EIR_F32, 4, xs, 0), Y = tnew(EIR_F32, 4, ys, 0);
        fill_rand(&X.v);
        uint64_t calls = eir_dnnl_conv_calls();
        CHECK(conv(&c, &X, &Wt, &B, false, "relu", &Y.v) == 0);
        CHECK((eir_dnnl_conv_calls() == calls + 1) == (dnnl_on && i < 8));
        double *want = reference(&c, X.buf, Wt.buf, NULL, "relu");
        CHECK(close_to(&Y.v, want, 1e-5, "one weight, many shapes"));
        free(want);
        tfree(&X); tfree(&Y);
    }
    eir_dnnl_conv_const_drop(&owner_a);
    CHECK(eir_dnnl_conv_weight_bytes() == 0);
    tfree(&Wt); tfree(&B);
}

static int run_all(const char *name) {
    eir_blas_single_thread(); /* as a runtime would */
    dnnl_on = eir_dnnl_conv_enabled();
    printf("%s: oneDNN convolution primitive %s (products: %s)\n", name, dnnl_on ? "on" : "off", eir_sgemm_library());
    test_shapes();
    test_not_constant();
    test_many_shapes();
    print_worst(name);
    return check_summary(name);
}

int main(int argc, char **argv) {
    if (getenv("EIR_TEST_DNNL_CONV_CHILD")) return run_all("test_dnnl_conv (EIR_GEMM=openblas)");
    int rc = run_all("test_dnnl_conv");
    /* again with OpenBLAS: the primitive off, the same results within the bounds (unless it was
     * off already: no oneDNN, or a sanitizer build, which keeps to OpenBLAS by default) */
    if (!eir_dnnl_conv_enabled()) {
        printf("test_dnnl_conv: oneDNN's primitive is off here; the EIR_GEMM=openblas run would repeat this one\n");
        return rc;
    }
    if (!rerun_with_env(argv, "EIR_GEMM", "openblas", "EIR_TEST_DNNL_CONV_CHILD")) return 1;
    return rc;
}
