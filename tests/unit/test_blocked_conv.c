/* test_blocked_conv.c — convolutions kept in oneDNN's blocked layout: the kernels of
 * eir_cpu::to_blocked, eir_cpu::from_blocked and eir_cpu::conv2d_blocked (kernels/fused.c,
 * kernels/dnnl_conv.c).
 *
 * In each layout the kernels take (channels last: one block of all channels; nChw16c; nChw8c),
 * for shapes of ResNet-18 (a 3 x 3 layer, a stride-2 entry, its 1 x 1 downsample), the
 * 3-channel stem read from NCHW, odd channel counts (not a multiple of the block, on both
 * sides), two images and a dilated rectangular kernel, with and without bias, with and without
 * a residual, with each activation:
 *  - to_blocked / from_blocked round-trip NCHW exactly, the lanes past C zero;
 *  - conv2d_blocked with the weight declared constant (oneDNN's primitive, when it is on)
 *    against a float64 reference, its padding lanes zero, and read back to NCHW within the
 *    reference's bound of what eir_cpu::conv2d (the NCHW path: on this CPU oneDNN picks
 *    another kernel for it, brgconv on NHWC, so the sums are not the same bits), aten.add
 *    and the activation give;
 *  - the same bits on 2 and 3 threads as on one;
 *  - the weight not declared (a weight the program writes is never declared): the NCHW
 *    convolution, packed, within the reference's bound;
 *  - channels-last 1 x 1 convolutions with stride 1 (pixel bands, the epilogue taken in as
 *    oneDNN post-ops), one band and several, a band across two images;
 *  - 3 x 3, stride 1, padding 1, channels last, 40 tiles or more: Winograd F(2 x 2, 3 x 3)
 *    (dnnl_conv.c), against the reference, the same bits at 2 and 3 threads (blocks of tile
 *    rows and halves of the output channels), not the direct primitive's bits;
 *  - at most 4 input channels into blocks of a multiple of 16 lanes: eir's kernel, the same
 *    bits from the blocked input, from NCHW and from a permuted NCHW view;
 *  - depthwise convolutions (test_depthwise): oneDNN's primitive and eir's kernel;
 *  - max pooling on the blocked layout (test_pool) against a direct NCHW maximum with NaN and
 *    -inf planted: padding, ceil_mode, dilation, stride [], padding lanes zero, 2 threads the
 *    same bits;
 *  - bad arguments: a clear error naming the operator.
 * The whole test runs twice: as started, and in a child with EIR_GEMM=openblas (no primitive),
 * unless the primitive was off already (no oneDNN; the sanitizer builds). */
#include <math.h>

#include "base/pool.h"
#include "kernels/dnnl_conv.h"
#include "kernels/nngemm.h"
#include "kernels/gemm.h"
#include "kernels/fast.h"
#include "ktest.h"
#include "rerun.h"

typedef struct cshape {
    int64_t N, C, H, W, O, kh, kw, s, p, d;
} cshape;

static int L; /* the layout under test: EIR_DNNL_NHWC (a tensor's block is its channel count) or 8 / 16 */
static int owner;

static int run_fused(const char *op, const eir_karg *a, uint32_t na, eir_tview *out) {
    eir_kctx ctx = {.err = errbuf, .errlen = sizeof errbuf, .nthreads = 1};
    errbuf[0] = 0;
    for (const eir_kernel_entry *e = eir_kernels_fused; e->op; e++)
        if (!strcmp(e->op, op)) return e->fn(a, na, out, 1, &ctx);
    return -2;
}

static double act_of(const char *act, double v) {
    if (!strcmp(act, "relu")) return v < 0 ? 0 : v;
    if (!strcmp(act, "hardtanh")) return v < 0 ? 0 : v > 6 ? 6 : v;
    if (!strcmp(act, "hardswish")) return v * fmin(fmax(v + 3, 0), 6) / 6;
    if (!strcmp(act, "silu")) return v / (1 + exp(-v));
    return v;
}

static int64_t out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d) { return (in + 2 * p - d * (k - 1) - 1) / s + 1; }

/* act(conv(x, w) + b + r), in float64, NCHW */
static double *reference(const cshape *c, const float *x, const float *w, const float *b, const float *r, const char *act) {
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
                    int64_t k = ((n * c->O + o) * OH + oh) * OW + ow;
                    y[k] = act_of(act, s + (r ? r[k] : 0));
                }
    return y;
}

static int64_t block_of(int64_t C) { return L == EIR_DNNL_NHWC ? C : L; }

static tt blocked_like(int64_t N, int64_t C, int64_t H, int64_t W) {
    int64_t B = block_of(C), s[5] = {N, (C + B - 1) / B, H, W, B};
    return tnew(EIR_F32, 5, s, 0);
}

static int to_blocked(tt *X, tt *XB) {
    eir_karg a[2] = {KT(&X->v), KI(block_of(X->v.sizes[1]))};
    return run_fused("eir_cpu.to_blocked.default", a, 2, &XB->v);
}

static int from_blocked(tt *XB, int64_t C, tt *X) {
    eir_karg a[2] = {KT(&XB->v), KI(C)};
    return run_fused("eir_cpu.from_blocked.default", a, 2, &X->v);
}

static int conv_blocked(const cshape *c, const eir_tview *x, tt *Wt, tt *Bs, bool bias, const char *act, tt *RB,
                        tt *YB) {
    int64_t sv[2] = {c->s, c->s}, pv[2] = {c->p, c->p}, dv[2] = {c->d, c->d};
    bool ht = !strcmp(act, "hardtanh");
    eir_karg a[12] = {KT(x),        KT(&Wt->v), bias ? KT(&Bs->v) : KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv), KI(1), KI(block_of(c->O)),
                      KSTR(act),    ht ? KF(0) : KN(),    ht ? KF(6) : KN(),   RB ? KT(&RB->v) : KN()};
    return run_fused("eir_cpu.conv2d_blocked.default", a, 12, &YB->v);
}

/* the lanes past C of a blocked tensor are zero */
static bool pad_zero(const tt *XB, int64_t C) {
    const float *p = XB->buf;
    int64_t N = XB->v.sizes[0], CB = XB->v.sizes[1], P = XB->v.sizes[2] * XB->v.sizes[3], B = XB->v.sizes[4];
    for (int64_t n = 0; n < N; n++)
        for (int64_t q = 0; q < P; q++)
            for (int64_t j = C - (CB - 1) * B; j < B; j++)
                if (p[((n * CB + CB - 1) * P + q) * B + j] != 0.f) return false;
    return true;
}

static void one_case(const cshape *c, const char *act, bool bias, bool residual) {
    char what[200];
    int64_t OH = out_size(c->H, c->kh, c->s, c->p, c->d), OW = out_size(c->W, c->kw, c->s, c->p, c->d);
    snprintf(what, sizeof what, "%s conv N%lld C%lld %lldx%lld -> %lld k%lldx%lld s%lld p%lld d%lld %s%s%s",
             L == EIR_DNNL_NHWC ? "nhwc" : L == 8 ? "nChw8c" : "nChw16c", (long long)c->N, (long long)c->C, (long long)c->H, (long long)c->W, (long long)c->O, (long long)c->kh,
             (long long)c->kw, (long long)c->s, (long long)c->p, (long long)c->d, act, bias ? " bias" : "",
             residual ? " residual" : "");
    int64_t xs[4] = {c->N, c->C, c->H, c->W}, ws[4] = {c->O, c->C, c->kh, c->kw}, ys[4] = {c->N, c->O, OH, OW};
    tt X = tnew(EIR_F32, 4, xs, 0), Wt = tnew(EIR_F32, 4, ws, 0), Bs = tnew(EIR_F32, 1, &c->O, 0);
    tt Rn = tnew(EIR_F32, 4, ys, 0), Y = tnew(EIR_F32, 4, ys, 0), Y2 = tnew(EIR_F32, 4, ys, 0);
    tt XB = blocked_like(c->N, c->C, c->H, c->W), RB = blocked_like(c->N, c->O, OH, OW);
    tt YB = blocked_like(c->N, c->O, OH, OW), GB = blocked_like(c->N, c->O, OH, OW);
    fill_rand(&X.v); fill_rand(&Wt.v); fill_rand(&Bs.v); fill_rand(&Rn.v);
    size_t wbytes = (size_t)numel(&Wt.v) * sizeof(float), nb = (size_t)numel(&YB.v) * sizeof(float);
    double tol = 1e-5 + 1.2e-7 * (double)(c->C * c->kh * c->kw);
    double *want = reference(c, X.buf, Wt.buf, bias ? Bs.buf : NULL, residual ? Rn.buf : NULL, act);

    /* the layout round trip */
    fill_poison(&XB.v);
    CHECK(to_blocked(&X, &XB) == 0);
    CHECK(pad_zero(&XB, c->C));
    tt X2 = tnew(EIR_F32, 4, xs, 0);
    fill_poison(&X2.v);
    CHECK(from_blocked(&XB, c->C, &X2) == 0);
    CHECK(memcmp(X.buf, X2.buf, (size_t)numel(&X.v) * sizeof(float)) == 0);
    tfree(&X2);
    CHECK(to_blocked(&Rn, &RB) == 0);

    /* the input blocked, or NCHW for fewer channels than a block (the stem) */
    const eir_tview *xin = L > 0 && c->C < L ? &X.v : &XB.v;
    CHECK(eir_dnnl_conv_const_add(&owner, Wt.buf, wbytes, false) == 0);
    uint64_t calls = eir_dnnl_conv_calls(), wcalls = eir_dnnl_conv_wino_calls(), ncalls = eir_dnnl_conv_wino_nn_calls(),
             pcalls = eir_dnnl_conv_pw_nn_calls();
    fill_poison(&YB.v);
    CHECK(conv_blocked(c, xin, &Wt, &Bs, bias, act, residual ? &RB : NULL, &YB) == 0);
    const char *wg = getenv("EIR_WINOGRAD");
    bool wino = eir_dnnl_conv_enabled() && L == EIR_DNNL_NHWC && c->kh == 3 && c->kw == 3 && c->s == 1 && c->p == 1 &&
                c->d == 1 && c->C % 16 == 0 && c->O % 16 == 0 && ((OH + 1) / 2) * ((OW + 1) / 2) >= 40 &&
                !(wg && !strcmp(wg, "0"));
    CHECK(eir_dnnl_conv_wino_calls() == wcalls + (wino ? 1 : 0));
    /* its products on eir's kernel wherever that is on (else OpenBLAS: the run with EIR_NNGEMM=0) */
    CHECK(eir_dnnl_conv_wino_nn_calls() == ncalls + (wino && eir_nngemm_enabled() ? 1 : 0));
    if (errbuf[0]) fprintf(stderr, "%s: %s\n", what, errbuf);
    bool dnnl = eir_dnnl_conv_calls() == calls + 1;
    /* few input channels into blocks of a multiple of 16 lanes: eir's own kernel (fused.c conv_small_c) */
    const char *sc = getenv("EIR_SMALL_C_CONV");
    bool small = c->C <= 4 && block_of(c->O) % 16 == 0 && !(sc && !strcmp(sc, "0"));
    /* a 1 x 1 kernel on at most 4 channels-last pixels: the matrix-vector kernel (fused.c) */
    bool gemv = L == EIR_DNNL_NHWC && c->kh == 1 && c->kw == 1 && c->s == 1 && c->p == 0 && c->N * OH * OW <= 4 &&
                c->C >= 8;
    /* a 1 x 1 kernel on at most 64 channels-last pixels (one block each side: also 8 channels in
     * nChw8c): matrix products (fused.c conv_1x1_gemm) */
    const char *pg = getenv("EIR_CONV_1X1_GEMM");
    bool pw1 = (L == EIR_DNNL_NHWC || (c->C == L && c->O == L)) && c->kh == 1 && c->kw == 1 && c->s == 1 && c->p == 0 && c->N * OH * OW <= 64 &&
               !gemv && !small && eir_sgemm_const_copies() && eir_kernels_fast && !(pg && !strcmp(pg, "0"));
    if (dnnl != (eir_dnnl_conv_enabled() && !small && !gemv && !pw1)) fprintf(stderr, "%s: primitive %s\n", what, dnnl ? "used" : "not used");
    CHECK(dnnl == (eir_dnnl_conv_enabled() && !small && !gemv && !pw1));
    /* a 1 x 1 kernel, stride 1, one block each side (channels last): pixel bands, on eir's
     * kernel wherever that is on (else oneDNN's primitive: the run with EIR_NNGEMM=0) */
    bool bands = dnnl && (L == EIR_DNNL_NHWC || (c->C == L && c->O == L)) && c->kh == 1 && c->kw == 1 && c->s == 1 &&
                 c->p == 0;
    CHECK(eir_dnnl_conv_pw_nn_calls() == pcalls + (bands && eir_nngemm_enabled() ? 1 : 0));
    CHECK(pad_zero(&YB, c->O));
    fill_poison(&Y.v);
    CHECK(from_blocked(&YB, c->O, &Y) == 0);
    CHECK(close_to(&Y.v, want, tol, what));

    /* eir's kernel for few channels reads NCHW (any strides) as it reads the blocked input: the same bits */
    if (small) {
        fill_poison(&GB.v);
        CHECK(conv_blocked(c, &X.v, &Wt, &Bs, bias, act, residual ? &RB : NULL, &GB) == 0);
        CHECK(memcmp(YB.buf, GB.buf, nb) == 0);
        int64_t ts[4] = {c->N, c->H, c->W, c->C}; /* NCHW as a permuted view of an NHWC buffer */
        tt T = tnew(EIR_F32, 4, ts, 0);
        float *t = T.buf;
        const float *xf = X.buf;
        for (int64_t n = 0; n < c->N; n++)
            for (int64_t ch = 0; ch < c->C; ch++)
                for (int64_t h = 0; h < c->H; h++)
                    for (int64_t w = 0; w < c->W; w++)
                        t[((n * c->H + h) * c->W + w) * c->C + ch] = xf[((n * c->C + ch) * c->H + h) * c->W + w];
        eir_tview tv = {T.buf, EIR_F32, 4, {c->N, c->C, c->H, c->W}, {c->H * c->W * c->C, 1, c->W * c->C, c->C}};
        fill_poison(&GB.v);
        CHECK(conv_blocked(c, &tv, &Wt, &Bs, bias, act, residual ? &RB : NULL, &GB) == 0);
        CHECK(memcmp(YB.buf, GB.buf, nb) == 0);
        tfree(&T);
    }

    /* the NCHW path on the same primitive: eir_cpu::conv2d, then aten.add and the activation */
    {
        int64_t sv[2] = {c->s, c->s}, pv[2] = {c->p, c->p}, dv[2] = {c->d, c->d};
        bool ht = !strcmp(act, "hardtanh");
        const char *a1 = residual ? "none" : act;
        eir_karg a[10] = {KT(&X.v), KT(&Wt.v), bias ? KT(&Bs.v) : KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv), KI(1),
                          KSTR(a1), ht && !residual ? KF(0) : KN(), ht && !residual ? KF(6) : KN()};
        fill_poison(&Y2.v);
        CHECK(run_fused("eir_cpu.conv2d.default", a, 10, &Y2.v) == 0);
        if (residual) {
            float *y = Y2.buf;
            const float *r = Rn.buf;
            for (int64_t k = 0; k < numel(&Y2.v); k++) {
                float v = y[k] + r[k];
                if (!strcmp(act, "relu")) v = v < 0.f ? 0.f : v;
                y[k] = v;
            }
        }
        double *nchw = malloc((size_t)numel(&Y2.v) * sizeof *nchw);
        for (int64_t k = 0; k < numel(&Y2.v); k++) nchw[k] = ((float *)Y2.buf)[k];
        CHECK(close_to(&Y.v, nchw, 2 * tol, what));
        free(nchw);
        /* the layout the NCHW path's primitive picks itself, kernels of more than one tap: the same
         * primitives on the same operands, so the same bits */
        if (dnnl && !wino && L == eir_dnnl_conv_layout() && c->kh * c->kw > 1 && c->N == 1) {
            bool same = memcmp(Y.buf, Y2.buf, (size_t)numel(&Y.v) * sizeof(float)) == 0;
            if (!same) fprintf(stderr, "%s: not the NCHW path's bits\n", what);
            CHECK(same);
        }
    }

    /* 2 and 3 threads: the same bits */
    for (int t = 2; t <= 3; t++) {
        eir_pool *pool = eir_pool_create(t);
        fill_poison(&GB.v);
        eir_pool *prev = eir_pool_enter(pool);
        CHECK(conv_blocked(c, xin, &Wt, &Bs, bias, act, residual ? &RB : NULL, &GB) == 0);
        eir_pool_leave(prev);
        eir_pool_free(pool);
        bool same = memcmp(YB.buf, GB.buf, nb) == 0;
        if (!same) fprintf(stderr, "%s: %d threads differ from one\n", what, t);
        CHECK(same);
    }
    eir_dnnl_conv_const_drop(&owner);

    /* not declared: the other path, within the bound */
    calls = eir_dnnl_conv_calls();
    fill_poison(&GB.v);
    CHECK(conv_blocked(c, xin, &Wt, &Bs, bias, act, residual ? &RB : NULL, &GB) == 0);
    CHECK(eir_dnnl_conv_calls() == calls);
    CHECK(pad_zero(&GB, c->O));
    fill_poison(&Y2.v);
    CHECK(from_blocked(&GB, c->O, &Y2) == 0);
    CHECK(close_to(&Y2.v, want, tol, what));
    free(want);
    tfree(&X); tfree(&Wt); tfree(&Bs); tfree(&Rn); tfree(&Y); tfree(&Y2);
    tfree(&XB); tfree(&RB); tfree(&YB); tfree(&GB);
}

static void test_shapes(void) {
    static const cshape shapes[] = {
        {1, 64, 28, 28, 64, 3, 3, 1, 1, 1},      /* a ResNet-18 layer */
        {1, 64, 28, 28, 128, 3, 3, 2, 1, 1},     /* a stride-2 entry */
        {1, 64, 28, 28, 128, 1, 1, 2, 0, 1},     /* its 1 x 1 downsample */
        {1, 3, 40, 40, 64, 7, 7, 2, 3, 1},       /* the stem (from NCHW with a block of 8 or 16) */
        {1, 24, 13, 11, 37, 3, 3, 1, 1, 1},      /* odd channels both sides */
        {2, 40, 9, 10, 20, 3, 2, 1, 2, 2},       /* two images, a dilated rectangular kernel */
        {2, 24, 23, 17, 40, 1, 1, 1, 0, 1},      /* 1 x 1, stride 1: pixel bands (channels last), across images */
        {1, 96, 14, 14, 24, 1, 1, 1, 0, 1},      /* a MobileNetV2 projection: two bands of 98 */
        {1, 32, 40, 40, 16, 1, 1, 1, 0, 1},      /* 1600 pixels: bands of 512 and a tail */
        {1, 8, 3, 5, 8, 1, 1, 1, 0, 1},          /* 15 pixels: one band (channels last: a matrix product) */
        {1, 160, 7, 7, 960, 1, 1, 1, 0, 1},      /* MobileNetV2's 7 x 7 expansion: products in 2 column blocks */
        {2, 48, 4, 8, 1000, 1, 1, 1, 0, 1},      /* 64 pixels over two images, 4 column blocks, 1000 lanes */
        {1, 320, 9, 9, 64, 1, 1, 1, 0, 1},       /* 81 pixels: the primitive again */
        {2, 4, 19, 23, 128, 5, 3, 2, 2, 1},      /* few channels (channels last: 128 lanes) */
        {1, 1, 21, 30, 64, 3, 3, 1, 1, 2},       /* one channel, dilated */
        {2, 16, 40, 36, 32, 3, 3, 1, 1, 1},      /* Winograd (channels last): one block of tile rows, two halves of O */
        {1, 64, 45, 51, 16, 3, 3, 1, 1, 1},      /* Winograd: three blocks of rows, odd sizes (partial tiles) */
        {1, 160, 14, 14, 128, 3, 3, 1, 1, 1},    /* Winograd: K past a k-block of eir_nngemm_f32, halves of O */
        {1, 32, 12, 20, 80, 3, 3, 1, 1, 1},      /* Winograd: O a strip of 64 and one of 16 */
        {1, 2, 9, 9, 64, 3, 3, 2, 1, 1},         /* rows of 5 pixels, shorter than a tile */
        {1, 240, 1, 1, 64, 1, 1, 1, 0, 1},       /* squeeze-and-excitation on a pooled image (channels
                                                  * last: the matrix-vector kernel) */
        {2, 40, 1, 2, 17, 1, 1, 1, 0, 1},        /* 4 pixels over two images: the same */
        {1, 40, 1, 5, 17, 1, 1, 1, 0, 1},        /* 5 pixels: a product again */
    };
    static const char *acts[] = {"none", "relu", "hardtanh", "silu", "hardswish"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        one_case(&shapes[i], "relu", true, true);
        one_case(&shapes[i], "none", false, true);
        for (size_t a = 0; a < sizeof acts / sizeof *acts; a++) one_case(&shapes[i], acts[a], a % 2 == 0, false);
    }
}

/* act(depthwise(x, w) + b + r), in float64, NCHW: c->C == c->O, w (C, 1, kh, kw) */
static double *reference_dw(const cshape *c, const float *x, const float *w, const float *b, const float *r,
                            const char *act) {
    int64_t OH = out_size(c->H, c->kh, c->s, c->p, c->d), OW = out_size(c->W, c->kw, c->s, c->p, c->d);
    double *y = malloc((size_t)(c->N * c->C * OH * OW) * sizeof *y);
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t o = 0; o < c->C; o++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    double s = b ? b[o] : 0;
                    for (int64_t i = 0; i < c->kh; i++)
                        for (int64_t j = 0; j < c->kw; j++) {
                            int64_t ih = oh * c->s - c->p + i * c->d, iw = ow * c->s - c->p + j * c->d;
                            if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W) continue;
                            s += (double)x[((n * c->C + o) * c->H + ih) * c->W + iw] * (double)w[(o * c->kh + i) * c->kw + j];
                        }
                    int64_t k = ((n * c->C + o) * OH + oh) * OW + ow;
                    y[k] = act_of(act, s + (r ? r[k] : 0));
                }
    return y;
}

static int conv_dw(const cshape *c, const eir_tview *x, tt *Wt, tt *Bs, bool bias, const char *act, tt *RB, tt *YB) {
    int64_t sv[2] = {c->s, c->s}, pv[2] = {c->p, c->p}, dv[2] = {c->d, c->d};
    bool ht = !strcmp(act, "hardtanh");
    eir_karg a[12] = {KT(x),     KT(&Wt->v),        bias ? KT(&Bs->v) : KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv),
                      KI(c->C), KI(block_of(c->C)), KSTR(act), ht ? KF(0) : KN(), ht ? KF(6) : KN(),
                      RB ? KT(&RB->v) : KN()};
    return run_fused("eir_cpu.conv2d_blocked.default", a, 12, &YB->v);
}

/* a depthwise convolution (groups == C == O) on the blocked layout: with the weight declared,
 * oneDNN's depthwise primitive (when it is on); not declared, eir's kernel, from the blocked
 * input and from NCHW (the same bits); each against float64, its padding lanes zero, within
 * the bound of eir_cpu::conv2d's NCHW depthwise; the same bits on 2 and 3 threads */
static void one_dw_case(const cshape *c, const char *act, bool bias, bool residual) {
    char what[200];
    int64_t OH = out_size(c->H, c->kh, c->s, c->p, c->d), OW = out_size(c->W, c->kw, c->s, c->p, c->d);
    snprintf(what, sizeof what, "%s depthwise N%lld C%lld %lldx%lld k%lldx%lld s%lld p%lld d%lld %s%s%s",
             L == EIR_DNNL_NHWC ? "nhwc" : L == 8 ? "nChw8c" : "nChw16c", (long long)c->N, (long long)c->C,
             (long long)c->H, (long long)c->W, (long long)c->kh, (long long)c->kw, (long long)c->s, (long long)c->p,
             (long long)c->d, act, bias ? " bias" : "", residual ? " residual" : "");
    int64_t xs[4] = {c->N, c->C, c->H, c->W}, ws[4] = {c->C, 1, c->kh, c->kw}, ys[4] = {c->N, c->C, OH, OW};
    tt X = tnew(EIR_F32, 4, xs, 0), Wt = tnew(EIR_F32, 4, ws, 0), Bs = tnew(EIR_F32, 1, &c->C, 0);
    tt Rn = tnew(EIR_F32, 4, ys, 0), Y = tnew(EIR_F32, 4, ys, 0), Y2 = tnew(EIR_F32, 4, ys, 0);
    tt XB = blocked_like(c->N, c->C, c->H, c->W), RB = blocked_like(c->N, c->C, OH, OW);
    tt YB = blocked_like(c->N, c->C, OH, OW), GB = blocked_like(c->N, c->C, OH, OW);
    fill_rand(&X.v); fill_rand(&Wt.v); fill_rand(&Bs.v); fill_rand(&Rn.v);
    size_t nb = (size_t)numel(&YB.v) * sizeof(float);
    double tol = 1e-5 + 1.2e-7 * (double)(c->kh * c->kw);
    double *want = reference_dw(c, X.buf, Wt.buf, bias ? Bs.buf : NULL, residual ? Rn.buf : NULL, act);
    CHECK(to_blocked(&X, &XB) == 0);
    CHECK(to_blocked(&Rn, &RB) == 0);
    /* the weight declared constant: oneDNN's depthwise primitive (when it is on) */
    CHECK(eir_dnnl_conv_const_add(&owner, Wt.buf, (size_t)numel(&Wt.v) * sizeof(float), false) == 0);
    uint64_t calls = eir_dnnl_conv_calls();
    fill_poison(&YB.v);
    CHECK(conv_dw(c, &XB.v, &Wt, &Bs, bias, act, residual ? &RB : NULL, &YB) == 0);
    if (errbuf[0]) fprintf(stderr, "%s: %s\n", what, errbuf);
    CHECK((eir_dnnl_conv_calls() == calls + 1) == eir_dnnl_conv_enabled());
    CHECK(pad_zero(&YB, c->C));
    fill_poison(&Y.v);
    CHECK(from_blocked(&YB, c->C, &Y) == 0);
    CHECK(close_to(&Y.v, want, tol, what));
    /* on more threads, channels last (one block) and 64K output values or more: bands of output rows
     * (dnnl_conv.c), the bits of the one primitive run over each image that one thread makes */
    bool bands = eir_dnnl_conv_enabled() && block_of(c->C) == c->C && OH >= 2 && OH * OW * c->C >= 65536 &&
                 !getenv("EIR_DNNL_DW_BAND");
    for (int t = 2; t <= 3; t++) {
        eir_pool *pool = eir_pool_create(t);
        fill_poison(&GB.v);
        uint64_t bcalls = eir_dnnl_conv_dw_band_calls();
        eir_pool *prev = eir_pool_enter(pool);
        CHECK(conv_dw(c, &XB.v, &Wt, &Bs, bias, act, residual ? &RB : NULL, &GB) == 0);
        eir_pool_leave(prev);
        eir_pool_free(pool);
        if (eir_dnnl_conv_dw_band_calls() != bcalls + (bands ? 1 : 0)) fprintf(stderr, "%s: bands %s\n", what, bands ? "not used" : "used");
        CHECK(eir_dnnl_conv_dw_band_calls() == bcalls + (bands ? 1 : 0));
        bool same = memcmp(YB.buf, GB.buf, nb) == 0;
        if (!same) fprintf(stderr, "%s (primitive): %d threads differ from one\n", what, t);
        CHECK(same);
    }
    eir_dnnl_conv_const_drop(&owner);
    /* not declared: eir's kernel */
    calls = eir_dnnl_conv_calls();
    fill_poison(&YB.v);
    CHECK(conv_dw(c, &XB.v, &Wt, &Bs, bias, act, residual ? &RB : NULL, &YB) == 0);
    CHECK(eir_dnnl_conv_calls() == calls);
    CHECK(pad_zero(&YB, c->C));
    fill_poison(&Y.v);
    CHECK(from_blocked(&YB, c->C, &Y) == 0);
    CHECK(close_to(&Y.v, want, tol, what));
    /* from NCHW: packed first, the same bits */
    fill_poison(&GB.v);
    CHECK(conv_dw(c, &X.v, &Wt, &Bs, bias, act, residual ? &RB : NULL, &GB) == 0);
    CHECK(memcmp(YB.buf, GB.buf, nb) == 0);
    /* eir_cpu::conv2d's NCHW depthwise, then aten.add and the activation */
    {
        int64_t sv[2] = {c->s, c->s}, pv[2] = {c->p, c->p}, dv[2] = {c->d, c->d};
        bool ht = !strcmp(act, "hardtanh");
        const char *a1 = residual ? "none" : act;
        eir_karg a[10] = {KT(&X.v), KT(&Wt.v), bias ? KT(&Bs.v) : KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv), KI(c->C),
                          KSTR(a1), ht && !residual ? KF(0) : KN(), ht && !residual ? KF(6) : KN()};
        fill_poison(&Y2.v);
        CHECK(run_fused("eir_cpu.conv2d.default", a, 10, &Y2.v) == 0);
        float *y = Y2.buf;
        const float *r = Rn.buf;
        for (int64_t k = 0; residual && k < numel(&Y2.v); k++) y[k] = (float)act_of(act, (double)(y[k] + r[k]));
        double *nchw = malloc((size_t)numel(&Y2.v) * sizeof *nchw);
        for (int64_t k = 0; k < numel(&Y2.v); k++) nchw[k] = y[k];
        CHECK(close_to(&Y.v, nchw, 2 * tol, what));
        free(nchw);
    }
    for (int t = 2; t <= 3; t++) {
        eir_pool *pool = eir_pool_create(t);
        fill_poison(&GB.v);
        eir_pool *prev = eir_pool_enter(pool);
        CHECK(conv_dw(c, &XB.v, &Wt, &Bs, bias, act, residual ? &RB : NULL, &GB) == 0);
        eir_pool_leave(prev);
        eir_pool_free(pool);
        bool same = memcmp(YB.buf, GB.buf, nb) == 0;
        if (!same) fprintf(stderr, "%s: %d threads differ from one\n", what, t);
        CHECK(same);
    }
    free(want);
    tfree(&X); tfree(&Wt); tfree(&Bs); tfree(&Rn); tfree(&Y); tfree(&Y2);
    tfree(&XB); tfree(&RB); tfree(&YB); tfree(&GB);
}

static void test_depthwise(void) {
    static const cshape shapes[] = {
        {1, 32, 28, 28, 32, 3, 3, 1, 1, 1},      /* MobileNetV2's first (at 112 x 112 there) */
        {1, 96, 27, 27, 96, 3, 3, 2, 1, 1},      /* a stride-2 entry, odd size */
        {1, 72, 14, 14, 72, 5, 5, 2, 2, 1},      /* MobileNetV3's 5 x 5, 72 = 4 x 16 + 8 lanes */
        {2, 37, 9, 10, 37, 3, 3, 1, 1, 1},       /* odd channels, two images */
        {1, 7, 8, 9, 7, 3, 3, 1, 1, 1},          /* fewer channels than a vector */
        {1, 40, 11, 9, 40, 3, 2, 1, 2, 2},       /* a dilated rectangular kernel */
        /* large enough for bands of rows on two threads (channels last; only with the primitive on:
         * without it they would retest eir's kernel, slowly under the sanitizers) */
        {1, 16, 112, 112, 16, 3, 3, 1, 1, 1},    /* MobileNetV3's first: 6 bands */
        {1, 96, 113, 113, 96, 3, 3, 2, 1, 1},    /* stride 2, odd size: 8 bands, the last of one row */
        {1, 120, 28, 28, 120, 5, 5, 1, 2, 1},    /* 5 x 5: two bands */
        {2, 48, 48, 47, 48, 3, 3, 1, 1, 1},      /* two images of 3 bands */
        {1, 40, 61, 45, 40, 3, 3, 1, 2, 2},      /* dilated: a band's rows reach 2 rows further */
    };
    static const char *acts[] = {"none", "relu", "hardtanh", "silu", "hardswish"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        if (i >= 6 && !eir_dnnl_conv_enabled()) break;
        one_dw_case(&shapes[i], "relu", true, true);
        for (size_t a = 0; a < sizeof acts / sizeof *acts; a++) one_dw_case(&shapes[i], acts[a], a % 2 == 0, false);
    }
    /* a grouped convolution that is not depthwise: refused by name */
    cshape c = {1, 16, 8, 8, 16, 3, 3, 1, 1, 1};
    int64_t ws[4] = {16, 2, 3, 3};
    tt X = tnew(EIR_F32, 4, (int64_t[]){1, 16, 8, 8}, 0), Wt = tnew(EIR_F32, 4, ws, 0);
    tt YB = blocked_like(1, 16, 8, 8);
    int64_t sv[2] = {1, 1}, pv[2] = {1, 1}, dv[2] = {1, 1};
    eir_karg a[12] = {KT(&X.v), KT(&Wt.v), KN(), KIS(2, sv), KIS(2, pv), KIS(2, dv), KI(8), KI(block_of(16)),
                      KSTR("none"), KN(), KN(), KN()};
    CHECK_FAILS(run_fused("eir_cpu.conv2d_blocked.default", a, 12, &YB.v), "groups must be 1 or");
    (void)c;
    tfree(&X); tfree(&Wt); tfree(&YB);
}

static void test_errors(void) {
    cshape c = {1, 16, 8, 8, 16, 3, 3, 1, 1, 1};
    int64_t xs[4] = {1, 16, 8, 8}, ws[4] = {16, 16, 3, 3};
    tt X = tnew(EIR_F32, 4, xs, 0), Wt = tnew(EIR_F32, 4, ws, 0), Bs = tnew(EIR_F32, 1, &c.O, 0);
    tt XB = blocked_like(1, 16, 8, 8), YB = blocked_like(1, 16, 8, 8);
    int64_t bad[5] = {1, 1, 8, 7, block_of(16)};
    tt ZB = tnew(EIR_F32, 5, bad, 0);
    CHECK(to_blocked(&X, &XB) == 0);
    CHECK_FAILS(conv_blocked(&c, &XB.v, &Wt, &Bs, true, "relu", NULL, &ZB), "eir_cpu::conv2d_blocked");
    CHECK_FAILS(conv_blocked(&c, &XB.v, &Wt, &Bs, true, "gelu", NULL, &YB), "unknown activation");
    CHECK_FAILS(conv_blocked(&c, &XB.v, &Wt, &Bs, true, "relu", &ZB, &YB), "residual");
    CHECK_FAILS(to_blocked(&X, &ZB), "eir_cpu::to_blocked");
    CHECK_FAILS(from_blocked(&XB, 40, &X), "eir_cpu::from_blocked");
    tfree(&X); tfree(&Wt); tfree(&Bs); tfree(&XB); tfree(&YB); tfree(&ZB);
}

/* ---- eir_cpu::max_pool2d_blocked against a direct NCHW max pool ---- */

typedef struct pshape {
    int64_t N, C, H, W, k, s, p, d;
    bool ceil;
    uint32_t nstride;            /* 0: stride [] (the kernel size) */
} pshape;

static int64_t pool_out(int64_t in, const pshape *c) {
    int64_t st = c->nstride ? c->s : c->k, num = in + 2 * c->p - c->d * (c->k - 1) - 1;
    int64_t o = (c->ceil ? (num + st - 1) / st : num / st) + 1;
    if (c->ceil && (o - 1) * st >= in + c->p) o--;
    return o;
}

static int pool_blocked(const pshape *c, tt *XB, tt *YB) {
    int64_t kv[2] = {c->k, c->k}, sv[2] = {c->s, c->s}, pv[2] = {c->p, c->p}, dv[2] = {c->d, c->d};
    eir_karg a[6] = {KT(&XB->v), KIS(2, kv), KIS(c->nstride, sv), KIS(2, pv), KIS(2, dv), KB(c->ceil)};
    return run_fused("eir_cpu.max_pool2d_blocked.default", a, 6, &YB->v);
}

static void one_pool(const pshape *c) {
    char what[160];
    snprintf(what, sizeof what, "%s max_pool N%lld C%lld %lldx%lld k%lld s%lld p%lld d%lld%s",
             L == EIR_DNNL_NHWC ? "nhwc" : L == 8 ? "nChw8c" : "nChw16c", (long long)c->N, (long long)c->C,
             (long long)c->H, (long long)c->W, (long long)c->k, (long long)(c->nstride ? c->s : c->k), (long long)c->p,
             (long long)c->d, c->ceil ? " ceil" : "");
    int64_t OH = pool_out(c->H, c), OW = pool_out(c->W, c), st = c->nstride ? c->s : c->k;
    int64_t xs[4] = {c->N, c->C, c->H, c->W}, ys[4] = {c->N, c->C, OH, OW};
    tt X = tnew(EIR_F32, 4, xs, 0), Y = tnew(EIR_F32, 4, ys, 0);
    tt XB = blocked_like(c->N, c->C, c->H, c->W), YB = blocked_like(c->N, c->C, OH, OW), GB = blocked_like(c->N, c->C, OH, OW);
    fill_rand(&X.v);
    /* NaN and -inf here and there: NaN wins a window, -inf loses it */
    float *xd = X.buf;
    int64_t nx = numel(&X.v);
    for (int64_t i = 0; i < nx; i += 97) xd[i] = NAN;
    for (int64_t i = 13; i < nx; i += 41) xd[i] = -INFINITY;
    CHECK(to_blocked(&X, &XB) == 0);
    fill_poison(&YB.v);
    CHECK(pool_blocked(c, &XB, &YB) == 0);
    CHECK(pad_zero(&YB, c->C));
    CHECK(from_blocked(&YB, c->C, &Y) == 0);
    int64_t bad = 0;
    for (int64_t n = 0; n < c->N; n++)
        for (int64_t ch = 0; ch < c->C; ch++)
            for (int64_t oh = 0; oh < OH; oh++)
                for (int64_t ow = 0; ow < OW; ow++) {
                    float m = -INFINITY;
                    for (int64_t i = 0; i < c->k; i++)
                        for (int64_t j = 0; j < c->k; j++) {
                            int64_t ih = oh * st - c->p + i * c->d, iw = ow * st - c->p + j * c->d;
                            if (ih < 0 || ih >= c->H || iw < 0 || iw >= c->W) continue;
                            float v = xd[((n * c->C + ch) * c->H + ih) * c->W + iw];
                            if (v > m || isnan(v)) m = v;
                        }
                    float g = ((float *)Y.buf)[((n * c->C + ch) * OH + oh) * OW + ow];
                    if (!(g == m || (isnan(g) && isnan(m)))) bad++;
                }
    if (bad) fprintf(stderr, "%s: %lld outputs differ from the NCHW maximum\n", what, (long long)bad);
    CHECK(bad == 0);
    /* 2 threads: the same bits */
    eir_pool *pool = eir_pool_create(2);
    eir_pool *prev = eir_pool_enter(pool);
    fill_poison(&GB.v);
    CHECK(pool_blocked(c, &XB, &GB) == 0);
    eir_pool_leave(prev);
    eir_pool_free(pool);
    CHECK(memcmp(YB.buf, GB.buf, (size_t)numel(&YB.v) * sizeof(float)) == 0);
    tfree(&X); tfree(&Y); tfree(&XB); tfree(&YB); tfree(&GB);
}

static void test_pool(void) {
    static const pshape shapes[] = {
        {1, 64, 56, 56, 3, 2, 1, 1, false, 2},   /* ResNet-18's */
        {2, 20, 13, 11, 3, 2, 1, 1, false, 2},   /* odd channels (padding lanes), two images */
        {1, 24, 14, 15, 3, 2, 0, 1, true, 2},    /* ceil_mode, the last window clipped */
        {1, 9, 10, 9, 2, 1, 0, 2, false, 2},     /* dilation */
        {1, 16, 8, 8, 2, 2, 0, 1, false, 0},     /* stride [] */
        {1, 40, 7, 7, 3, 1, 1, 1, true, 2},      /* stride 1, ceil_mode with nothing to clip */
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) one_pool(&shapes[i]);
    /* bad arguments: named errors */
    pshape c = {1, 16, 8, 8, 3, 2, 1, 1, false, 2};
    int64_t xs[5] = {1, (16 + block_of(16) - 1) / block_of(16), 8, 8, block_of(16)}, wrong[5] = {1, xs[1], 5, 5, xs[4]};
    tt XB = tnew(EIR_F32, 5, xs, 0), YB = tnew(EIR_F32, 5, wrong, 0);
    CHECK_FAILS(pool_blocked(&c, &XB, &YB), "eir_cpu::max_pool2d_blocked: kernel 3, stride 2, padding 1");
    pshape big = {1, 16, 8, 8, 3, 2, 2, 1, false, 2};
    tfree(&YB);
    int64_t ys[5] = {1, xs[1], 5, 5, xs[4]};
    YB = tnew(EIR_F32, 5, ys, 0);
    CHECK_FAILS(pool_blocked(&big, &XB, &YB), "pad at most half the kernel");
    tfree(&XB); tfree(&YB);
}

static int run_all(const char *name) {
    eir_blas_single_thread();
    printf("%s: chains in layout %d on this CPU (-1: NHWC), primitive %s (products: %s)\n", name,
           eir_dnnl_conv_layout(), eir_dnnl_conv_enabled() ? "on" : "off", eir_sgemm_library());
    static const int layouts[] = {EIR_DNNL_NHWC, 16, 8};
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
        L = layouts[i];
        uint64_t refs = eir_dnnl_conv_ref_prims();
        test_shapes();
        test_depthwise();
        test_pool();
        test_errors();
        /* every shape above on a fast primitive: a convolution whose input and output formats do
         * not fit together gets oneDNN's reference loops (100-1000x slower, the same results) */
        CHECK(eir_dnnl_conv_ref_prims() == refs);
    }
    print_worst(name);
    return check_summary(name);
}

int main(int argc, char **argv) {
    if (getenv("EIR_TEST_BLOCKED_CHILD")) return run_all("test_blocked_conv (EIR_GEMM=openblas)");
    if (getenv("EIR_TEST_BLOCKED_NN_CHILD")) return run_all("test_blocked_conv (EIR_NNGEMM=0)");
    int rc = run_all("test_blocked_conv");
    /* again with the Winograd products on OpenBLAS and the pixel bands on oneDNN's primitive,
     * where eir's kernel took them */
    if (eir_dnnl_conv_enabled() && eir_nngemm_enabled() &&
        !rerun_with_env(argv, "EIR_NNGEMM", "0", "EIR_TEST_BLOCKED_NN_CHILD"))
        return 1;
    /* again with OpenBLAS: the primitive off, the same results within the bounds (unless it was
     * off already: no oneDNN, or a sanitizer build, which keeps to OpenBLAS by default) */
    if (!eir_dnnl_conv_enabled()) {
        printf("test_blocked_conv: oneDNN's primitive is off here; the EIR_GEMM=openblas run would repeat this one\n");
        return rc;
    }
    if (!rerun_with_env(argv, "EIR_GEMM", "openblas", "EIR_TEST_BLOCKED_CHILD")) return 1;
    return rc;
}
