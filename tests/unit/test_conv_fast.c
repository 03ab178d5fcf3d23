/* test_conv_fast.c — the float32 convolution paths of nn.c and fast.c that
 * eir_cpu::conv2d (fused.c) runs: the depthwise kernels over phase planes
 * (3 x 3, 5 x 5 and 7 x 7, strides 1 and 2, narrow planes in one flat loop, wide
 * ones row by row), the im2col GEMM cut into column blocks with each block's
 * columns built right before its product, and the bias + activation
 * epilogue applied inside both. Each is checked against a naive float64
 * convolution (bias, then relu / hardtanh / hardswish / silu) on shapes that
 * take every path, and run on 1, 2 and 3 threads (with the default cuts and
 * with every loop split): the same bits. The column blocks of im2col are
 * checked against the whole matrix, bit for bit. */
#include <math.h>

#include "base/pool.h"
#include "kernels/fast.h"
#include "ktest.h"

static int run_fused(const eir_karg *a, uint32_t na, eir_tview *out) {
    eir_kctx ctx = {.err = errbuf, .errlen = sizeof errbuf, .nthreads = 1};
    errbuf[0] = 0;
    for (const eir_kernel_entry *e = eir_kernels_fused; e->op; e++)
        if (!strcmp(e->op, "eir_cpu.conv2d.default")) return e->fn(a, na, out, 1, &ctx);
    return -2;
}

static double act_of(const char *act, double v) {
    if (!strcmp(act, "relu")) return v < 0 ? 0 : v;
    if (!strcmp(act, "hardtanh")) return v < 0 ? 0 : v > 6 ? 6 : v;
    if (!strcmp(act, "hardswish")) return v * fmin(fmax(v + 3, 0), 6) / 6;
    if (!strcmp(act, "silu")) return v / (1 + exp(-v));
    return v;
}

typedef struct cshape {
    int64_t N, C, H, W, Cout, k, s, p, g;
} cshape;

/* conv(x, w) + b, then the activation, in float64 */
static double *reference(const cshape *c, const float *x, const float *w, const float *b, const char *act, int64_t OH,
                         int64_t OW) {
    int64_t Cig = c->C / c->g, Cog = c->Cout / c->g;
    double *y = malloc((size_t)(c->N * c->Cout * OH * OW) * sizeof *y);
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t o = 0; o < c->Cout; o++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    double s = b ? b[o] : 0;
                    for (int64_t ci = 0; ci < Cig; ci++)
                        for (int64_t kh = 0; kh < c->k; kh++)
                            for (int64_t kw = 0; kw < c->k; kw++) {
                                int64_t ih = oh * c->s - c->p + kh, iw = ow * c->s - c->p + kw;
                                if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W) continue;
                                int64_t cin = o / Cog * Cig + ci;
                                s += (double)x[((n * c->C + cin) * c->H + ih) * c->W + iw] *
                                     (double)w[((o * Cig + ci) * c->k + kh) * c->k + kw];
                            }
                    y[((n * c->Cout + o) * OH + oh) * OW + ow] = act_of(act, s);
                }
    return y;
}

static void one_case(const cshape *c, const char *act, bool bias) {
    char what[160];
    int64_t OH = (c->H + 2 * c->p - c->k) / c->s + 1, OW = (c->W + 2 * c->p - c->k) / c->s + 1;
    snprintf(what, sizeof what, "conv N%lld C%lld %lldx%lld -> %lld k%lld s%lld p%lld g%lld %s%s", (long long)c->N,
             (long long)c->C, (long long)c->H, (long long)c->W, (long long)c->Cout, (long long)c->k, (long long)c->s,
             (long long)c->p, (long long)c->g, act, bias ? " bias" : "");
    int64_t xs[4] = {c->N, c->C, c->H, c->W}, ws[4] = {c->Cout, c->C / c->g, c->k, c->k}, ys[4] = {c->N, c->Cout, OH, OW};
    tt X = tnew(EIR_F32, 4, xs, 0), W = tnew(EIR_F32, 4, ws, 0), B = tnew(EIR_F32, 1, &c->Cout, 0);
    tt R = tnew(EIR_F32, 4, ys, 0), G = tnew(EIR_F32, 4, ys, 0);
    fill_rand(&X.v); fill_rand(&W.v); fill_rand(&B.v);
    int64_t sv[2] = {c->s, c->s}, pv[2] = {c->p, c->p}, dv[2] = {1, 1};
    bool ht = !strcmp(act, "hardtanh");
    eir_karg a[10] = {KT(&X.v), KT(&W.v), bias ? KT(&B.v) : KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv), KI(c->g),
                      KSTR(act), ht ? KF(0) : KN(), ht ? KF(6) : KN()};
    CHECK(run_fused(a, 10, &R.v) == 0);
    double *want = reference(c, X.buf, W.buf, bias ? B.buf : NULL, act, OH, OW);
    /* float sums of Cin/groups * k * k products (values up to 2 in size): the error grows with the count */
    CHECK(close_to(&R.v, want, 4e-6 + 5e-8 * (double)(c->C / c->g * c->k * c->k), what));
    free(want);
    /* the same bits on 2 and 3 threads, with the default cuts and with every loop split */
    for (int split = 0; split < 2; split++) {
        eir_pool_split_all = split;
        if (split) CHECK(run_fused(a, 10, &R.v) == 0);
        for (int t = 2; t <= 3; t++) {
            eir_pool *pool = eir_pool_create(t);
            fill_poison(&G.v);
            eir_pool *prev = eir_pool_enter(pool);
            CHECK(run_fused(a, 10, &G.v) == 0);
            eir_pool_leave(prev);
            eir_pool_free(pool);
            bool same = memcmp(R.buf, G.buf, (size_t)numel(&R.v) * sizeof(float)) == 0;
            if (!same) fprintf(stderr, "%s: %d threads (split %d) differ from one\n", what, t, split);
            CHECK(same);
        }
    }
    eir_pool_split_all = 0;
    tfree(&X); tfree(&W); tfree(&B); tfree(&R); tfree(&G);
}

static void test_depthwise(void) {
    static const char *acts[] = {"none", "relu", "hardtanh", "hardswish", "silu"};
    int i = 0;
    for (int64_t k = 3; k <= 7; k += 2) /* 3 x 3, 5 x 5, 7 x 7 (ConvNeXt's; dw_flat49) */
        for (int64_t s = 1; s <= 2; s++)
            for (int64_t p = 0; p < k; p++) {
                /* narrow planes (one flat loop), wide ones (row by row: output rows of 64 and more), odd sizes */
                static const int64_t sides[][2] = {{7, 7}, {14, 13}, {57, 50}, {5, 31}, {6, 131}, {9, 67}};
                for (size_t q = 0; q < sizeof sides / sizeof sides[0]; q++, i++) {
                    int64_t H = sides[q][0], W = sides[q][1];
                    if (H + 2 * p < k || W + 2 * p < k) continue;
                    cshape c = {1 + i % 2, 3 + i % 4, H, W, 0, k, s, p, 0};
                    c.Cout = c.g = c.C;
                    one_case(&c, acts[i % 5], i % 3 != 0);
                }
            }
}

static void test_blocked(void) {
    /* large enough for the GEMM to be cut by columns (im2col per block), by rows, or not at all */
    static const cshape shapes[] = {
        {1, 16, 28, 28, 32, 3, 1, 1, 1},  /* by columns */
        {2, 8, 40, 30, 16, 3, 2, 1, 1},   /* by columns, stride 2, two images */
        {1, 32, 24, 24, 32, 3, 1, 1, 2},  /* two groups */
        {1, 3, 64, 64, 16, 7, 2, 3, 1},   /* a stem: 7 x 7 stride 2 */
        {1, 64, 7, 7, 128, 3, 1, 1, 1},   /* tall: cut by rows, whole im2col */
        {1, 16, 20, 20, 24, 1, 1, 0, 1},  /* 1 x 1: no im2col */
        {1, 16, 20, 20, 24, 1, 2, 0, 1},  /* 1 x 1 stride 2 */
        {1, 4, 9, 9, 4, 3, 1, 1, 1},      /* small: one product */
    };
    static const char *acts[] = {"relu", "hardtanh", "none", "hardswish", "silu", "relu", "none", "relu"};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        one_case(&shapes[i], acts[i], true);
        one_case(&shapes[i], acts[(i + 1) % 8], false);
    }
}

static void test_im2col_range(void) {
    for (int it = 0; it < 40; it++) {
        int64_t C = irand(1, 4), H = irand(3, 30), W = irand(3, 30), k = irand(1, 3) * 2 - 1, s = irand(1, 2),
                p = irand(0, k - 1), d = it % 5 == 4 ? 2 : 1;
        if (H + 2 * p < d * (k - 1) + 1 || W + 2 * p < d * (k - 1) + 1) continue;
        int64_t OH = (H + 2 * p - d * (k - 1) - 1) / s + 1, OW = (W + 2 * p - d * (k - 1) - 1) / s + 1, P = OH * OW;
        int64_t K = C * k * k, st[2] = {s, s}, pd[2] = {p, p}, dl[2] = {d, d};
        float *x = malloc((size_t)(C * H * W) * sizeof(float)), *full = malloc((size_t)(K * P) * sizeof(float));
        float *part = malloc((size_t)(K * P) * sizeof(float));
        for (int64_t i = 0; i < C * H * W; i++) x[i] = (float)urand();
        eir_im2col2d_f32(x, full, C, H, W, OH, OW, k, k, st, pd, dl);
        int64_t p0 = irand(0, P - 1), p1 = irand(p0 + 1, P);
        for (int64_t i = 0; i < K * (p1 - p0); i++) part[i] = NAN;
        eir_im2col2d_range_f32(x, part, C, H, W, OH, OW, k, k, st, pd, dl, p0, p1);
        bool same = true;
        for (int64_t r = 0; r < K; r++)
            same &= memcmp(part + r * (p1 - p0), full + r * P + p0, (size_t)(p1 - p0) * sizeof(float)) == 0;
        if (!same)
            fprintf(stderr, "im2col columns [%lld, %lld) of C%lld %lldx%lld k%lld s%lld p%lld d%lld differ\n", (long long)p0,
                    (long long)p1, (long long)C, (long long)H, (long long)W, (long long)k, (long long)s, (long long)p,
                    (long long)d);
        CHECK(same);
        free(x), free(full), free(part);
    }
}

int main(void) {
    eir_blas_single_thread(); /* as a runtime would */
    test_im2col_range();
    test_depthwise();
    test_blocked();
    print_worst("test_conv_fast");
    return check_summary("test_conv_fast");
}
