/* spatial.c — kernel family: spatial ops over (N, C, *spatial) tensors that
 * nn.c's 2-d pooling does not cover.
 *
 *   pooling     avg_pool1d/3d, max_pool1d/3d (+ _with_indices),
 *               adaptive avg/max pooling 1d/3d (_adaptive_avg_pool3d, ...)
 *   upsampling  nearest / nearest-exact 1-3d, linear1d, bilinear2d,
 *               trilinear3d, bicubic2d, anti-aliased bilinear/bicubic 2d
 *               (.vec and .default overloads)
 *   sampling    grid_sampler (2d, 3d): bilinear / nearest / bicubic,
 *               zeros / border / reflection padding; 2-d follows torch's
 *               vectorized kernel operation by operation, 3-d its scalar one
 *   folding     col2im (F.fold) and im2col (F.unfold)
 *
 * Inputs may be batched (N, C, ...) or unbatched (C, ...); every kernel views
 * them as rank-5 (N, C, D, H, W) with missing spatial dims of size 1, so one
 * loop nest serves 1-3 spatial dims. Values are read and accumulated in
 * double and rounded once into the output dtype. Index computations that
 * decide *which* input element is used (upsampling source indices and
 * weights) follow torch's arithmetic exactly, in float for f32/f16/bf16 and
 * in double for f64 (torch's opmath type), because a different rounding
 * there picks a different pixel. */
#include <float.h>
#include <limits.h>
#include <stdlib.h>

#include "kutil.h"
#include "tables.h"

static const char *dname(eir_dtype d) { return eir_torch_dtype_name(d); }

/* ---- rank-5 views ---- */

typedef struct v5 {
    char *data;
    eir_dtype dt;
    int64_t es;
    int64_t n[5], s[5]; /* sizes and strides in elements: N, C, D, H, W */
} v5;

/* View t, which has nsp spatial dims and is (N, C, *sp) or (C, *sp), as rank 5. */
static bool to_v5(const eir_tview *t, int nsp, v5 *o) {
    int lead = t->rank - nsp;
    if (nsp < 1 || nsp > 3 || (lead != 1 && lead != 2)) return false;
    o->data = (char *)t->data;
    o->dt = t->dtype;
    o->es = (int64_t)eir_elsize(t->dtype);
    for (int i = 0; i < 5; i++) { o->n[i] = 1; o->s[i] = 0; }
    if (lead == 2) { o->n[0] = t->sizes[0]; o->s[0] = t->strides[0]; }
    o->n[1] = t->sizes[lead - 1];
    o->s[1] = t->strides[lead - 1];
    for (int i = 0; i < nsp; i++) {
        o->n[5 - nsp + i] = t->sizes[lead + i];
        o->s[5 - nsp + i] = t->strides[lead + i];
    }
    return true;
}

static inline char *at5(const v5 *v, int64_t n, int64_t c, int64_t d, int64_t h, int64_t w) {
    return v->data + (n * v->s[0] + c * v->s[1] + d * v->s[2] + h * v->s[3] + w * v->s[4]) * v->es;
}

static inline double ld(const char *p, eir_dtype dt) {
    switch (dt) {
    case EIR_F32: return *(const float *)p;
    case EIR_F64: return *(const double *)p;
    case EIR_F16: return eir_f16_to_f32(*(const uint16_t *)p);
    case EIR_BF16: return eir_bf16_to_f32(*(const uint16_t *)p);
    default: return eir_load_f64(p, dt);
    }
}

static inline void st(char *p, eir_dtype dt, double v) {
    switch (dt) {
    case EIR_F32: *(float *)p = (float)v; return;
    case EIR_F64: *(double *)p = v; return;
    default: eir_store_f64(p, dt, v); return;
    }
}

/* Round-to-nearest-even conversion for uint8 results of interpolation, as
 * torch's uint8 upsampling does (it rounds, where a plain cast truncates). */
static inline void st_interp(char *p, eir_dtype dt, double v) {
    if (dt == EIR_U8) {
        double r = nearbyint(v);
        *(uint8_t *)p = (uint8_t)(r < 0 ? 0 : r > 255 ? 255 : r);
        return;
    }
    st(p, dt, v);
}

/* An int list argument for nsp dims: one value broadcasts; empty gives dflt
 * (or, when dflt < 0, a copy of fallback). false if the length is wrong. */
static bool ints_arg(const eir_karg *a, int nsp, int64_t *dst, int64_t dflt, const int64_t *fallback) {
    if (a->kind != EIR_KA_INTS || a->n == 0) {
        for (int i = 0; i < nsp; i++) dst[i] = dflt >= 0 || !fallback ? dflt : fallback[i];
        return true;
    }
    if (a->n != 1 && a->n != (uint32_t)nsp) return false;
    for (int i = 0; i < nsp; i++) dst[i] = a->ints[a->n == 1 ? 0 : i];
    return true;
}

static bool is_float_dt(eir_dtype d) { return d == EIR_F32 || d == EIR_F64 || d == EIR_F16 || d == EIR_BF16; }

/* ======================================================================
 * pooling
 * ====================================================================== */

/* Views of input and outputs for a pooling op over nsp dims; checks the
 * batch/channel dims agree. */
static int pool_setup(eir_kctx *ctx, const char *op, const eir_tview *x, int nsp, eir_tview *out, uint32_t nout, v5 *X,
                      v5 *Y, v5 *I) {
    if (!x || !to_v5(x, nsp, X))
        return eir_kerr(ctx, "%s: expected %dD or %dD input, got %dD", op, nsp + 1, nsp + 2, x ? x->rank : 0);
    if (!to_v5(&out[0], nsp, Y) || out[0].rank != x->rank || Y->n[0] != X->n[0] || Y->n[1] != X->n[1])
        return eir_kerr(ctx, "%s: output shape does not fit the input", op);
    if (nout > 1) {
        if (out[1].dtype != EIR_I64 || !to_v5(&out[1], nsp, I) || out[1].rank != out[0].rank)
            return eir_kerr(ctx, "%s: expected an int64 indices output shaped like the result", op);
        for (int i = 0; i < 5; i++)
            if (I->n[i] != Y->n[i]) return eir_kerr(ctx, "%s: indices shape differs from the result's", op);
    }
    for (int i = 2; i < 5; i++)
        if (X->n[i] == 0 && Y->n[0] * Y->n[1] != 0)
            return eir_kerr(ctx, "%s: Expected input's non-batch dimensions to have positive length", op);
    return 0;
}

/* max_pool{1,3}d[_with_indices](self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False) */
static int max_pool_nd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t nout, eir_kctx *ctx, int nsp,
                       const char *op, bool want_ind, bool ints_ok) {
    if (na < 5) return eir_kerr(ctx, "%s: expected 6 arguments", op);
    if (want_ind && nout < 2) return eir_kerr(ctx, "%s: expected two outputs", op);
    int64_t k[3], s[3], p[3], d[3];
    if (!ints_arg(&a[1], nsp, k, 1, NULL) || a[1].n == 0 || !ints_arg(&a[2], nsp, s, -1, k) ||
        !ints_arg(&a[3], nsp, p, 0, NULL) || !ints_arg(&a[4], nsp, d, 1, NULL))
        return eir_kerr(ctx, "%s: kernel_size, stride, padding and dilation must have 1 or %d values", op, nsp);
    for (int i = 0; i < nsp; i++) {
        if (k[i] <= 0) return eir_kerr(ctx, "%s: kernel_size should be greater than zero", op);
        if (s[i] <= 0) return eir_kerr(ctx, "%s: stride should be greater than zero", op);
        if (d[i] <= 0) return eir_kerr(ctx, "%s: dilation should be greater than zero", op);
        if (p[i] < 0 || p[i] > k[i] / 2) return eir_kerr(ctx, "%s: pad should be at most half of effective kernel size", op);
    }
    v5 X, Y, I;
    if (pool_setup(ctx, op, a[0].t, nsp, out, want_ind ? 2 : 1, &X, &Y, &I)) return -1;
    eir_dtype dt = X.dt;
    bool isint = eir_is_integral(dt, false);
    if (!is_float_dt(dt) && !(isint && ints_ok)) return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op, dname(dt));
    /* spatial params as D, H, W (missing dims: kernel 1, stride 1, no pad) */
    int64_t K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, P[3] = {0, 0, 0}, Dl[3] = {1, 1, 1};
    for (int i = 0; i < nsp; i++) { K[3 - nsp + i] = k[i]; S[3 - nsp + i] = s[i]; P[3 - nsp + i] = p[i]; Dl[3 - nsp + i] = d[i]; }
    int64_t ID = X.n[2], IH = X.n[3], IW = X.n[4];
    for (int64_t n = 0; n < Y.n[0]; n++)
        for (int64_t c = 0; c < Y.n[1]; c++)
            for (int64_t od = 0; od < Y.n[2]; od++)
                for (int64_t oh = 0; oh < Y.n[3]; oh++)
                    for (int64_t ow = 0; ow < Y.n[4]; ow++) {
                        int64_t d0 = od * S[0] - P[0], h0 = oh * S[1] - P[1], w0 = ow * S[2] - P[2];
                        int64_t d1 = d0 + (K[0] - 1) * Dl[0] + 1, h1 = h0 + (K[1] - 1) * Dl[1] + 1, w1 = w0 + (K[2] - 1) * Dl[2] + 1;
                        if (d1 > ID) d1 = ID;
                        if (h1 > IH) h1 = IH;
                        if (w1 > IW) w1 = IW;
                        while (d0 < 0) d0 += Dl[0];
                        while (h0 < 0) h0 += Dl[1];
                        while (w0 < 0) w0 += Dl[2];
                        /* torch: first in-window position, then "val > max || isnan(val)" (so the last NaN wins) */
                        int64_t mi = d0 * IH * IW + h0 * IW + w0;
                        double mv = -INFINITY;
                        int64_t miv = INT64_MIN;
                        bool first = true;
                        for (int64_t zd = d0; zd < d1; zd += Dl[0])
                            for (int64_t zh = h0; zh < h1; zh += Dl[1])
                                for (int64_t zw = w0; zw < w1; zw += Dl[2]) {
                                    const char *q = at5(&X, n, c, zd, zh, zw);
                                    if (isint) {
                                        int64_t v = eir_load_i64(q, dt);
                                        if (first || v > miv) { miv = v; mi = zd * IH * IW + zh * IW + zw; }
                                        first = false;
                                    } else {
                                        double v = ld(q, dt);
                                        if (v > mv || isnan(v)) { mv = v; mi = zd * IH * IW + zh * IW + zw; }
                                    }
                                }
                        char *yp = at5(&Y, n, c, od, oh, ow);
                        if (isint) eir_store_i64(yp, Y.dt, first ? 0 : miv);
                        else st(yp, Y.dt, mv);
                        if (want_ind) *(int64_t *)at5(&I, n, c, od, oh, ow) = mi;
                    }
    return 0;
}

static int k_max_pool3d_with_indices(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return max_pool_nd(a, na, o, no, c, 3, "max_pool3d_with_indices", true, true);
}
static int k_max_pool3d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return max_pool_nd(a, na, o, no, c, 3, "max_pool3d", false, true);
}
static int k_max_pool1d_with_indices(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return max_pool_nd(a, na, o, no, c, 1, "max_pool1d_with_indices", true, true);
}
static int k_max_pool1d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    /* torch's max_pool1d (no indices) has a kernel of its own, for floating types only */
    return max_pool_nd(a, na, o, no, c, 1, "max_pool1d", false, false);
}

/* avg_pool{1,3}d(self, kernel_size, stride=[], padding=0, ceil_mode=False,
 * count_include_pad=True[, divisor_override=None]) */
static int avg_pool_nd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t nout, eir_kctx *ctx, int nsp,
                       const char *op, bool half_ok) {
    if (na < 6) return eir_kerr(ctx, "%s: expected at least 6 arguments", op);
    int64_t k[3], s[3], p[3];
    if (!ints_arg(&a[1], nsp, k, 1, NULL) || a[1].n == 0 || !ints_arg(&a[2], nsp, s, -1, k) ||
        !ints_arg(&a[3], nsp, p, 0, NULL))
        return eir_kerr(ctx, "%s: kernel_size, stride and padding must have 1 or %d values", op, nsp);
    for (int i = 0; i < nsp; i++) {
        if (k[i] <= 0) return eir_kerr(ctx, "%s: kernel_size should be greater than zero", op);
        if (s[i] <= 0) return eir_kerr(ctx, "%s: stride should be greater than zero", op);
        if (p[i] < 0 || p[i] > k[i] / 2) return eir_kerr(ctx, "%s: pad should be at most half of effective kernel size", op);
    }
    bool cip = a[5].i != 0;
    int64_t divov = 0;
    if (na > 6 && a[6].kind == EIR_KA_INT) {
        divov = a[6].i;
        if (divov == 0) return eir_kerr(ctx, "divisor must be not zero");
    }
    v5 X, Y, I;
    if (pool_setup(ctx, op, a[0].t, nsp, out, 1, &X, &Y, &I)) return -1;
    eir_dtype dt = X.dt;
    bool isint = dt == EIR_I64;
    if (!(dt == EIR_F32 || dt == EIR_F64 || isint || (half_ok && (dt == EIR_F16 || dt == EIR_BF16))))
        return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op, dname(dt));
    int64_t K[3] = {1, 1, 1}, S[3] = {1, 1, 1}, P[3] = {0, 0, 0};
    for (int i = 0; i < nsp; i++) { K[3 - nsp + i] = k[i]; S[3 - nsp + i] = s[i]; P[3 - nsp + i] = p[i]; }
    int64_t ID = X.n[2], IH = X.n[3], IW = X.n[4];
    for (int64_t n = 0; n < Y.n[0]; n++)
        for (int64_t c = 0; c < Y.n[1]; c++)
            for (int64_t od = 0; od < Y.n[2]; od++)
                for (int64_t oh = 0; oh < Y.n[3]; oh++)
                    for (int64_t ow = 0; ow < Y.n[4]; ow++) {
                        int64_t d0 = od * S[0] - P[0], h0 = oh * S[1] - P[1], w0 = ow * S[2] - P[2];
                        int64_t d1 = d0 + K[0], h1 = h0 + K[1], w1 = w0 + K[2];
                        if (d1 > ID + P[0]) d1 = ID + P[0];
                        if (h1 > IH + P[1]) h1 = IH + P[1];
                        if (w1 > IW + P[2]) w1 = IW + P[2];
                        int64_t pool = (d1 - d0) * (h1 - h0) * (w1 - w0);
                        if (d0 < 0) d0 = 0;
                        if (h0 < 0) h0 = 0;
                        if (w0 < 0) w0 = 0;
                        if (d1 > ID) d1 = ID;
                        if (h1 > IH) h1 = IH;
                        if (w1 > IW) w1 = IW;
                        char *yp = at5(&Y, n, c, od, oh, ow);
                        if (d0 >= d1 || h0 >= h1 || w0 >= w1) { st(yp, Y.dt, 0); continue; }
                        int64_t div = divov ? divov : cip ? pool : (d1 - d0) * (h1 - h0) * (w1 - w0);
                        if (isint) {
                            int64_t sum = 0;
                            for (int64_t zd = d0; zd < d1; zd++)
                                for (int64_t zh = h0; zh < h1; zh++)
                                    for (int64_t zw = w0; zw < w1; zw++) sum += *(const int64_t *)at5(&X, n, c, zd, zh, zw);
                            *(int64_t *)yp = sum / div;
                        } else {
                            double sum = 0;
                            for (int64_t zd = d0; zd < d1; zd++)
                                for (int64_t zh = h0; zh < h1; zh++)
                                    for (int64_t zw = w0; zw < w1; zw++) sum += ld(at5(&X, n, c, zd, zh, zw), dt);
                            st(yp, Y.dt, sum / (double)div);
                        }
                    }
    return 0;
}

static int k_avg_pool3d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return avg_pool_nd(a, na, o, no, c, 3, "avg_pool3d", false);
}
static int k_avg_pool1d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return avg_pool_nd(a, na, o, no, c, 1, "avg_pool1d", true);
}

/* adaptive pooling: output cell o of a dim covers [floor(o*I/O), ceil((o+1)*I/O)) */
static int adaptive_nd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t nout, eir_kctx *ctx, int nsp,
                       const char *op, bool is_max) {
    if (na < 2) return eir_kerr(ctx, "%s: expected 2 arguments", op);
    if (a[1].kind == EIR_KA_INTS && a[1].n != (uint32_t)nsp && a[1].n != 1)
        return eir_kerr(ctx, "%s: output_size must have %d values", op, nsp);
    if (is_max && nout < 2) return eir_kerr(ctx, "%s: expected two outputs", op);
    v5 X, Y, I;
    if (pool_setup(ctx, op, a[0].t, nsp, out, is_max ? 2 : 1, &X, &Y, &I)) return -1;
    eir_dtype dt = X.dt;
    if (!is_float_dt(dt)) return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op, dname(dt));
    int64_t ID = X.n[2], IH = X.n[3], IW = X.n[4], OD = Y.n[2], OH = Y.n[3], OW = Y.n[4];
    for (int64_t n = 0; n < Y.n[0]; n++)
        for (int64_t c = 0; c < Y.n[1]; c++)
            for (int64_t od = 0; od < OD; od++) {
                int64_t d0 = od * ID / OD, d1 = ((od + 1) * ID + OD - 1) / OD;
                for (int64_t oh = 0; oh < OH; oh++) {
                    int64_t h0 = oh * IH / OH, h1 = ((oh + 1) * IH + OH - 1) / OH;
                    for (int64_t ow = 0; ow < OW; ow++) {
                        int64_t w0 = ow * IW / OW, w1 = ((ow + 1) * IW + OW - 1) / OW;
                        char *yp = at5(&Y, n, c, od, oh, ow);
                        if (is_max) {
                            double mv = -INFINITY;
                            int64_t mi = d0 * IH * IW + h0 * IW + w0;
                            for (int64_t zd = d0; zd < d1; zd++)
                                for (int64_t zh = h0; zh < h1; zh++)
                                    for (int64_t zw = w0; zw < w1; zw++) {
                                        double v = ld(at5(&X, n, c, zd, zh, zw), dt);
                                        if (v > mv || isnan(v)) { mv = v; mi = zd * IH * IW + zh * IW + zw; }
                                    }
                            st(yp, Y.dt, mv);
                            *(int64_t *)at5(&I, n, c, od, oh, ow) = mi;
                        } else {
                            double sum = 0;
                            for (int64_t zd = d0; zd < d1; zd++)
                                for (int64_t zh = h0; zh < h1; zh++)
                                    for (int64_t zw = w0; zw < w1; zw++) sum += ld(at5(&X, n, c, zd, zh, zw), dt);
                            st(yp, Y.dt, sum / (double)((d1 - d0) * (h1 - h0) * (w1 - w0)));
                        }
                    }
                }
            }
    return 0;
}

static int k_adaptive_avg_pool3d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return adaptive_nd(a, na, o, no, c, 3, "adaptive_avg_pool3d", false);
}
static int k_adaptive_max_pool3d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return adaptive_nd(a, na, o, no, c, 3, "adaptive_max_pool3d", true);
}
static int k_adaptive_avg_pool1d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return adaptive_nd(a, na, o, no, c, 1, "adaptive_avg_pool1d", false);
}
static int k_adaptive_max_pool1d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return adaptive_nd(a, na, o, no, c, 1, "adaptive_max_pool1d", true);
}

/* ======================================================================
 * upsampling
 * ====================================================================== */

enum { UP_NEAREST, UP_NEAREST_EXACT, UP_LINEAR, UP_CUBIC, UP_LINEAR_AA, UP_CUBIC_AA };

/* Per output position of one dim: up to `taps` source indices and weights. */
typedef struct up_axis {
    int64_t taps;
    int64_t *idx;   /* [out][taps] */
    double *w;      /* [out][taps] */
} up_axis;

/* torch's compute_scales_value / area_pixel_compute_scale, in float (opmath
 * of f32/f16/bf16) or double (f64). scale <= 0 means "not given". */
static double area_scale(bool dbl, int64_t in, int64_t out, bool align_corners, double scale, bool aa) {
    if (align_corners) {
        if (out > 1) return dbl ? (double)(in - 1) / (double)(out - 1) : (double)((float)(in - 1) / (float)(out - 1));
        return 0;
    }
    (void)aa;
    if (scale > 0) return dbl ? 1.0 / scale : (double)(float)(1.0 / scale);
    return dbl ? (double)in / (double)out : (double)((float)in / (float)out);
}

/* area_pixel_compute_source_index */
static double src_index(bool dbl, double scale, int64_t o, bool align_corners, bool cubic) {
    double r;
    if (dbl) r = align_corners ? scale * (double)o : scale * ((double)o + 0.5) - 0.5;
    else {
        float s = (float)scale;
        r = align_corners ? (double)(s * (float)o) : (double)(s * ((float)o + 0.5f) - 0.5f);
    }
    if (!align_corners && !cubic && r < 0) r = 0;
    return r;
}

static double cubic1(double x, double A) { return ((A + 2) * x - (A + 3)) * x * x + 1; }
static double cubic2(double x, double A) { return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A; }

/* the cubic weights of get_cubic_upsample_coefficients (A = -0.75), in the opmath type */
static void cubic_coeffs(bool dbl, double t, double *c) {
    if (dbl) {
        double A = -0.75, x2 = 1.0 - t;
        c[0] = cubic2(t + 1.0, A); c[1] = cubic1(t, A); c[2] = cubic1(x2, A); c[3] = cubic2(x2 + 1.0, A);
    } else {
        float A = -0.75f, t1 = (float)t, x2 = 1.0f - t1, x;
        x = t1 + 1.0f; c[0] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
        x = t1; c[1] = ((A + 2) * x - (A + 3)) * x * x + 1;
        x = x2; c[2] = ((A + 2) * x - (A + 3)) * x * x + 1;
        x = x2 + 1.0f; c[3] = ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
    }
}

/* the anti-aliasing filters of torch's _upsample_*_aa (PIL's): triangle and Keys cubic with a = -0.5 */
static double aa_filter(int mode, double x) {
    if (x < 0) x = -x;
    if (mode == UP_LINEAR_AA) return x < 1.0 ? 1.0 - x : 0.0;
    const double a = -0.5;
    if (x < 1.0) return ((a + 2.0) * x - (a + 3.0)) * x * x + 1;
    if (x < 2.0) return (((x - 5) * x + 8) * x - 4) * a;
    return 0.0;
}

static int up_axis_build(up_axis *ax, int mode, bool dbl, int64_t in, int64_t out, bool align_corners, double scale) {
    ax->taps = mode == UP_NEAREST || mode == UP_NEAREST_EXACT ? 1 : mode == UP_LINEAR ? 2 : mode == UP_CUBIC ? 4 : 0;
    double s = 0, support = 0;
    if (mode == UP_LINEAR_AA || mode == UP_CUBIC_AA) {
        int interp = mode == UP_LINEAR_AA ? 2 : 4;
        s = area_scale(dbl, in, out, align_corners, scale, true);
        support = s >= 1.0 ? (interp * 0.5) * s : interp * 0.5;
        if (!dbl) support = (float)support;
        ax->taps = (int64_t)ceil(support) * 2 + 1;
    }
    ax->idx = malloc((size_t)(out ? out : 1) * (size_t)ax->taps * sizeof *ax->idx);
    ax->w = malloc((size_t)(out ? out : 1) * (size_t)ax->taps * sizeof *ax->w);
    if (!ax->idx || !ax->w) return -1;
    if (mode == UP_NEAREST || mode == UP_NEAREST_EXACT) {
        /* compute_scales_value<float>, then nearest_neighbor[_exact]_compute_source_index in float */
        float fs = scale > 0 ? (float)(1.0 / scale) : (float)in / (float)out;
        for (int64_t o = 0; o < out; o++) {
            int64_t i;
            if (mode == UP_NEAREST && out == in) i = o;
            else if (mode == UP_NEAREST && out == 2 * in) i = o >> 1;
            else if (mode == UP_NEAREST) i = (int64_t)floorf((float)o * fs);
            else i = (int64_t)floorf((float)(((double)o + 0.5) * fs));
            if (i > in - 1) i = in - 1;
            if (i < 0) i = 0;
            ax->idx[o] = i;
            ax->w[o] = 1;
        }
        return 0;
    }
    if (mode == UP_LINEAR || mode == UP_CUBIC) s = area_scale(dbl, in, out, align_corners, scale, false);
    for (int64_t o = 0; o < out; o++) {
        int64_t *ix = ax->idx + o * ax->taps;
        double *w = ax->w + o * ax->taps;
        if (mode == UP_LINEAR) {
            if (out == in) { ix[0] = ix[1] = o; w[0] = 1; w[1] = 0; continue; }
            double r = src_index(dbl, s, o, align_corners, false);
            int64_t i0 = (int64_t)r;
            if (i0 > in - 1) i0 = in - 1;
            double l1 = r - (double)i0;
            if (!dbl) l1 = (float)l1;
            l1 = l1 < 0 ? 0 : l1 > 1 ? 1 : l1;
            ix[0] = i0;
            ix[1] = i0 + (i0 < in - 1 ? 1 : 0);
            w[1] = l1;
            w[0] = dbl ? 1.0 - l1 : (double)(1.0f - (float)l1);
        } else if (mode == UP_CUBIC) {
            double r = src_index(dbl, s, o, align_corners, true);
            int64_t i0 = (int64_t)floorf((float)r); /* guard_index_and_lambda: floorf even for double */
            if (i0 > in - 1) i0 = in - 1;
            double t = r - (double)i0;
            if (!dbl) t = (float)t;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            cubic_coeffs(dbl, t, w);
            for (int j = 0; j < 4; j++) {
                int64_t q = i0 - 1 + j;
                ix[j] = q < 0 ? 0 : q > in - 1 ? in - 1 : q;
            }
        } else {
            /* anti-aliased: a filter of width 2*support (in input pixels) centred on the output pixel, normalized */
            double center = s * ((double)o + 0.5);
            double invscale = s >= 1.0 ? 1.0 / s : 1.0;
            if (!dbl) { center = (float)center; invscale = (float)invscale; }
            int64_t xmin = (int64_t)(center - support + 0.5);
            if (xmin < 0) xmin = 0;
            int64_t xmax = (int64_t)(center + support + 0.5);
            if (xmax > in) xmax = in;
            int64_t xsize = xmax - xmin;
            if (xsize > ax->taps) xsize = ax->taps;
            if (xsize < 0) xsize = 0;
            double total = 0;
            for (int64_t j = 0; j < ax->taps; j++) {
                ix[j] = xmin < in ? xmin : in - 1;
                w[j] = 0;
            }
            for (int64_t j = 0; j < xsize; j++) {
                ix[j] = xmin + j;
                w[j] = aa_filter(mode, ((double)(j + xmin) - center + 0.5) * invscale);
                total += w[j];
            }
            if (total != 0)
                for (int64_t j = 0; j < xsize; j++) w[j] /= total;
        }
    }
    return 0;
}

/* uint8 bilinear / bicubic (with or without antialiasing): torch runs PIL-SIMD's
 * separable integer algorithm — weights computed in double (antialiased:
 * normalized PIL filters; otherwise the float path's taps with out-of-range
 * weights folded onto the border), scaled to int16 with the largest precision that keeps them below 2^15; each pass
 * (width first, then height; a dim whose size does not change is skipped)
 * rounds to uint8 as (2^(p-1) + sum w*x) >> p, clamped to 0..255. */
typedef struct u8_axis { int64_t taps, prec; int64_t *xmin, *xsize; int32_t *w; } u8_axis;

static int u8_axis_build(u8_axis *ax, bool cubic, bool aa, int64_t in, int64_t out, bool ac, double scale_opt) {
    int interp = cubic ? 4 : 2;
    double scale = area_scale(true, in, out, ac, scale_opt, aa);
    double support = (aa && scale >= 1.0) ? interp * 0.5 * scale : interp * 0.5;
    ax->taps = aa ? (int64_t)ceil(support) * 2 + 1 : interp;
    double invscale = (aa && scale >= 1.0) ? 1.0 / scale : 1.0;
    size_t no = (size_t)(out ? out : 1);
    double *wf = calloc(no * (size_t)ax->taps, sizeof *wf);
    ax->xmin = calloc(no, sizeof *ax->xmin);
    ax->xsize = calloc(no, sizeof *ax->xsize);
    ax->w = calloc(no * (size_t)ax->taps, sizeof *ax->w);
    if (!wf || !ax->xmin || !ax->xsize || !ax->w) { free(wf); return -1; }
    double wmax = 0;
    for (int64_t o = 0; o < out; o++) {
        double *w = wf + o * ax->taps;
        if (!aa) {
            /* torch's _compute_indices_min_size_weights: the float path's taps around
             * floor(src), with the weights of out-of-range taps folded onto the border taps */
            double r = src_index(true, scale, o, ac, cubic);
            int64_t i0 = (int64_t)floorf((float)r); /* guard_index_and_lambda uses floorf */
            if (i0 > in - 1) i0 = in - 1;
            double lam = r - (double)i0;
            lam = lam < 0 ? 0 : lam > 1 ? 1 : lam;
            int64_t sup = ax->taps / 2, umin = i0 - sup + 1, umax = i0 + sup + 1;
            int64_t xmin = umin > 0 ? umin : 0, xs = (umax < in ? umax : in) - xmin;
            xs = xs < 0 ? 0 : xs > ax->taps ? ax->taps : xs;
            int64_t wi = 0;
            for (int64_t j = 0; j < ax->taps; j++) {
                double x = fabs((double)(j + 1 - sup) - lam), a = -0.75;
                double f = !cubic ? (x < 1 ? 1 - x : 0)
                         : x < 1 ? ((a + 2) * x - (a + 3)) * x * x + 1 : x < 2 ? (((x - 5) * x + 8) * x - 4) * a : 0;
                if (umin + j <= 0) wi = 0;
                else if (umin + j >= in - 1) wi = xs - 1;
                if (wi >= 0 && wi < ax->taps) {
                    w[wi] += f;
                    if (w[wi] > wmax) wmax = w[wi];
                }
                wi++;
            }
            ax->xmin[o] = xmin;
            ax->xsize[o] = xs;
            continue;
        }
        double center = scale * ((double)o + 0.5);
        int64_t xmin = (int64_t)(center - support + 0.5);
        if (xmin < 0) xmin = 0;
        int64_t xmax = (int64_t)(center + support + 0.5);
        if (xmax > in) xmax = in;
        int64_t xs = xmax - xmin;
        xs = xs < 0 ? 0 : xs > ax->taps ? ax->taps : xs;
        double total = 0;
        for (int64_t j = 0; j < xs; j++) {
            /* PIL's filters: triangle, and Keys' cubic with a = -0.5 */
            double x = fabs(((double)(j + xmin) - center + 0.5) * invscale), a = -0.5;
            w[j] = !cubic ? (x < 1 ? 1 - x : 0)
                 : x < 1 ? ((a + 2) * x - (a + 3)) * x * x + 1 : x < 2 ? (((x - 5) * x + 8) * x - 4) * a : 0;
            total += w[j];
        }
        if (total != 0)
            for (int64_t j = 0; j < xs; j++) { w[j] /= total; if (w[j] > wmax) wmax = w[j]; }
        ax->xmin[o] = xmin;
        ax->xsize[o] = xs;
    }
    int64_t p = 0;
    for (p = 0; p < 22; p++)
        if ((int64_t)(0.5 + wmax * (double)(1 << (p + 1))) >= (1 << 15)) break;
    ax->prec = p;
    for (size_t k = 0; k < no * (size_t)ax->taps; k++) {
        double v = wf[k] * (double)(1 << p);
        ax->w[k] = (int32_t)(v < 0 ? (int)(-0.5 + v) : (int)(0.5 + v));
    }
    free(wf);
    return 0;
}

static inline uint8_t u8_round(int64_t acc, int64_t prec) {
    int64_t v = acc >> prec;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static int upsample_u8(eir_kctx *ctx, const char *op, const v5 *X, const v5 *Y, bool cubic, bool aa, bool ac, const double *scales) {
    int64_t N = X->n[0], C = X->n[1], IH = X->n[3], IW = X->n[4], OH = Y->n[3], OW = Y->n[4];
    bool needw = OW != IW, needh = OH != IH;
    u8_axis ah = {0}, aw = {0};
    uint8_t *tmp = NULL;
    int rc = 0;
    if ((needw && u8_axis_build(&aw, cubic, aa, IW, OW, ac, scales[1])) ||
        (needh && u8_axis_build(&ah, cubic, aa, IH, OH, ac, scales[0])) ||
        !(tmp = malloc((size_t)(IH * OW > 0 ? IH * OW : 1)))) {
        rc = eir_kerr(ctx, "%s: out of memory", op);
        goto done;
    }
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++) {
            /* width pass into tmp (IH x OW) */
            for (int64_t h = 0; h < IH; h++)
                for (int64_t o = 0; o < OW; o++) {
                    if (!needw) { tmp[h * OW + o] = *(const uint8_t *)at5(X, n, c, 0, h, o); continue; }
                    int64_t acc = (int64_t)1 << (aw.prec - 1);
                    for (int64_t j = 0; j < aw.xsize[o]; j++)
                        acc += (int64_t)aw.w[o * aw.taps + j] * *(const uint8_t *)at5(X, n, c, 0, h, aw.xmin[o] + j);
                    tmp[h * OW + o] = u8_round(acc, aw.prec);
                }
            /* height pass into the output */
            for (int64_t o = 0; o < OH; o++)
                for (int64_t w = 0; w < OW; w++) {
                    uint8_t *yp = (uint8_t *)at5(Y, n, c, 0, o, w);
                    if (!needh) { *yp = tmp[o * OW + w]; continue; }
                    int64_t acc = (int64_t)1 << (ah.prec - 1);
                    for (int64_t j = 0; j < ah.xsize[o]; j++) acc += (int64_t)ah.w[o * ah.taps + j] * tmp[(ah.xmin[o] + j) * OW + w];
                    *yp = u8_round(acc, ah.prec);
                }
        }
done:
    free(tmp);
    free(aw.xmin); free(aw.xsize); free(aw.w);
    free(ah.xmin); free(ah.xsize); free(ah.w);
    return rc;
}

/* The scale of spatial dim i: scale_factors[i] (.vec) or scales_* (.default); -1 when not given. */
typedef struct up_args {
    int mode, nsp;
    bool align_corners;
    double scales[3];
} up_args;

static int upsample_run(eir_kctx *ctx, const char *op, const eir_tview *x, eir_tview *out, const up_args *u) {
    v5 X, Y;
    if (!x || !to_v5(x, u->nsp, &X) || x->rank != u->nsp + 2)
        return eir_kerr(ctx, "%s: expected a %dD input (N, C, %s), got %dD", op, u->nsp + 2,
                        u->nsp == 1 ? "W" : u->nsp == 2 ? "H, W" : "D, H, W", x ? x->rank : 0);
    if (!to_v5(out, u->nsp, &Y) || out->rank != x->rank || Y.n[0] != X.n[0] || Y.n[1] != X.n[1])
        return eir_kerr(ctx, "%s: output shape does not fit the input", op);
    eir_dtype dt = X.dt;
    bool u8ok = u->mode != UP_LINEAR || u->nsp == 2;
    if (!is_float_dt(dt) && !(dt == EIR_U8 && u8ok)) return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op, dname(dt));
    if ((u->mode == UP_LINEAR_AA || u->mode == UP_CUBIC_AA) && (dt == EIR_F16 || dt == EIR_BF16))
        return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op, dname(dt));
    for (int i = 2; i < 5; i++)
        if (X.n[i] <= 0 || Y.n[i] <= 0) return eir_kerr(ctx, "%s: Input and output sizes should be greater than 0", op);
    if (Y.dt != dt) return eir_kerr(ctx, "%s: expected dtype %s for `output` but got dtype %s", op, dname(dt), dname(Y.dt));
    if (X.n[1] == 0 && X.n[0] != 0)
        return eir_kerr(ctx, "%s: Non-empty %dD data tensor expected but got a tensor with 0 channels", op, u->nsp + 2);
    if (dt == EIR_U8 && u->mode != UP_NEAREST && u->mode != UP_NEAREST_EXACT)
        return upsample_u8(ctx, op, &X, &Y, u->mode == UP_CUBIC || u->mode == UP_CUBIC_AA,
                           u->mode == UP_LINEAR_AA || u->mode == UP_CUBIC_AA, u->align_corners, u->scales);
    bool dbl = dt == EIR_F64;
    up_axis ax[3] = {{0}};
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++) {
        int sp = i - (3 - u->nsp); /* index among the op's spatial dims, < 0 for padding dims */
        if (sp < 0) {
            ax[i].taps = 1;
            ax[i].idx = calloc(1, sizeof *ax[i].idx);
            ax[i].w = malloc(sizeof *ax[i].w);
            if (!ax[i].idx || !ax[i].w) rc = -1;
            else ax[i].w[0] = 1;
        } else {
            rc = up_axis_build(&ax[i], u->mode, dbl, X.n[2 + i], Y.n[2 + i], u->align_corners, u->scales[sp]);
        }
    }
    if (rc) {
        for (int i = 0; i < 3; i++) { free(ax[i].idx); free(ax[i].w); }
        return eir_kerr(ctx, "%s: out of memory", op);
    }
    for (int64_t n = 0; n < Y.n[0]; n++)
        for (int64_t c = 0; c < Y.n[1]; c++)
            for (int64_t od = 0; od < Y.n[2]; od++)
                for (int64_t oh = 0; oh < Y.n[3]; oh++)
                    for (int64_t ow = 0; ow < Y.n[4]; ow++) {
                        const int64_t *id = ax[0].idx + od * ax[0].taps, *ih = ax[1].idx + oh * ax[1].taps,
                                      *iw = ax[2].idx + ow * ax[2].taps;
                        const double *wd = ax[0].w + od * ax[0].taps, *wh = ax[1].w + oh * ax[1].taps,
                                     *ww = ax[2].w + ow * ax[2].taps;
                        double acc = 0;
                        for (int64_t a0 = 0; a0 < ax[0].taps; a0++) {
                            if (wd[a0] == 0 && ax[0].taps > 1) continue;
                            double s1 = 0;
                            for (int64_t a1 = 0; a1 < ax[1].taps; a1++) {
                                if (wh[a1] == 0 && ax[1].taps > 1) continue;
                                double s2 = 0;
                                for (int64_t a2 = 0; a2 < ax[2].taps; a2++) {
                                    if (ww[a2] == 0 && ax[2].taps > 1) continue;
                                    s2 += ww[a2] * ld(at5(&X, n, c, id[a0], ih[a1], iw[a2]), dt);
                                }
                                s1 += wh[a1] * s2;
                            }
                            acc += wd[a0] * s1;
                        }
                        char *yp = at5(&Y, n, c, od, oh, ow);
                        if (u->mode == UP_NEAREST || u->mode == UP_NEAREST_EXACT)
                            /* a copy: keep the bits (NaN payloads, -0) and integer values exactly */
                            memcpy(yp, at5(&X, n, c, id[0], ih[0], iw[0]), (size_t)X.es);
                        else
                            st_interp(yp, Y.dt, acc);
                    }
    for (int i = 0; i < 3; i++) { free(ax[i].idx); free(ax[i].w); }
    return 0;
}

static double opt_float(const eir_karg *a) {
    if (a->kind == EIR_KA_FLOAT || a->kind == EIR_KA_SCALAR || a->kind == EIR_KA_INT) return a->kind == EIR_KA_FLOAT ? a->f : a->s.f;
    return -1;
}

/* .vec(input, SymInt[]? output_size, [bool align_corners,] float[]? scale_factors) */
static int upsample_vec(const eir_karg *a, uint32_t na, eir_tview *out, eir_kctx *ctx, const char *op, int nsp, int mode,
                        bool has_ac) {
    uint32_t want = has_ac ? 4 : 3;
    if (na < want) return eir_kerr(ctx, "%s: expected %u arguments", op, want);
    up_args u = {mode, nsp, has_ac && a[2].i != 0, {-1, -1, -1}};
    const eir_karg *sf = &a[has_ac ? 3 : 2];
    if (sf->kind == EIR_KA_FLOATS) {
        if (sf->n != (uint32_t)nsp) return eir_kerr(ctx, "%s: expected %d scale factors, got %u", op, nsp, sf->n);
        if (a[1].kind == EIR_KA_INTS) return eir_kerr(ctx, "%s: Must specify exactly one of output_size and scale_factors", op);
        for (int i = 0; i < nsp; i++) u.scales[i] = sf->floats[i];
    }
    return upsample_run(ctx, op, a[0].t, out, &u);
}

/* .default(self, SymInt[] output_size, [bool align_corners,] float? scales_d/h/w...) */
static int upsample_def(const eir_karg *a, uint32_t na, eir_tview *out, eir_kctx *ctx, const char *op, int nsp, int mode,
                        bool has_ac) {
    uint32_t first = has_ac ? 3 : 2;
    if (na < first + (uint32_t)nsp) return eir_kerr(ctx, "%s: expected %u arguments", op, first + (uint32_t)nsp);
    up_args u = {mode, nsp, has_ac && a[2].i != 0, {-1, -1, -1}};
    for (int i = 0; i < nsp; i++) u.scales[i] = opt_float(&a[first + (uint32_t)i]);
    return upsample_run(ctx, op, a[0].t, out, &u);
}

#define UP_PAIR(fname, opname, nsp, mode, ac)                                                                     \
    static int k_##fname##_vec(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {        \
        return upsample_vec(a, na, o, c, opname, nsp, mode, ac);                                               \
    }                                                                                                           \
    static int k_##fname(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {              \
        return upsample_def(a, na, o, c, opname, nsp, mode, ac);                                               \
    }
UP_PAIR(up_nearest1d, "upsample_nearest1d", 1, UP_NEAREST, false)
UP_PAIR(up_nearest2d, "upsample_nearest2d", 2, UP_NEAREST, false)
UP_PAIR(up_nearest3d, "upsample_nearest3d", 3, UP_NEAREST, false)
UP_PAIR(up_nearest_exact1d, "_upsample_nearest_exact1d", 1, UP_NEAREST_EXACT, false)
UP_PAIR(up_nearest_exact2d, "_upsample_nearest_exact2d", 2, UP_NEAREST_EXACT, false)
UP_PAIR(up_nearest_exact3d, "_upsample_nearest_exact3d", 3, UP_NEAREST_EXACT, false)
UP_PAIR(up_linear1d, "upsample_linear1d", 1, UP_LINEAR, true)
UP_PAIR(up_bilinear2d, "upsample_bilinear2d", 2, UP_LINEAR, true)
UP_PAIR(up_trilinear3d, "upsample_trilinear3d", 3, UP_LINEAR, true)
UP_PAIR(up_bicubic2d, "upsample_bicubic2d", 2, UP_CUBIC, true)
UP_PAIR(up_bilinear2d_aa, "_upsample_bilinear2d_aa", 2, UP_LINEAR_AA, true)
UP_PAIR(up_bicubic2d_aa, "_upsample_bicubic2d_aa", 2, UP_CUBIC_AA, true)

/* ======================================================================
 * grid_sampler (2d and 3d)
 * ====================================================================== */

enum { GS_BILINEAR, GS_NEAREST, GS_BICUBIC };
enum { GS_ZEROS, GS_BORDER, GS_REFLECTION };

/* torch's CPU grid sampler does its coordinate and weight arithmetic in the
 * input's own dtype, each operation rounded (c10::Half and BFloat16 operators
 * compute in float and round back): rnd() rounds every step the same way, so
 * the same pixels get picked. */
typedef struct gs_cfg { int interp, pad; bool ac, dbl; eir_dtype dt; } gs_cfg;

static double rnd(const gs_cfg *g, double v) {
    switch (g->dt) {
    case EIR_F64: return v;
    case EIR_F16: return eir_f16_to_f32(eir_f32_to_f16((float)v));
    case EIR_BF16: return eir_bf16_to_f32(eir_f32_to_bf16((float)v));
    default: return (double)(float)v;
    }
}

static double gs_unnormalize(const gs_cfg *g, double c, int64_t size) {
    if (g->ac) return rnd(g, rnd(g, (c + 1) / 2) * (double)(size - 1));
    return rnd(g, rnd(g, rnd(g, (c + 1) * (double)size) - 1) / 2);
}

/* min(size - 1, max(c, 0)) */
static double gs_clip(double c, int64_t size) {
    double hi = (double)(size - 1), m = c < 0 ? 0 : c;
    return m < hi ? m : hi;
}

static double gs_reflect(const gs_cfg *g, double c, int64_t twice_low, int64_t twice_high) {
    if (twice_low == twice_high) return 0;
    double mn = (double)twice_low / 2, span = (double)(twice_high - twice_low) / 2;
    c = fabs(rnd(g, c - mn));
    double extra = rnd(g, fmod(c, span));
    int64_t flips = (int64_t)floor(rnd(g, c / span));
    return flips % 2 == 0 ? rnd(g, extra + mn) : rnd(g, rnd(g, span - extra) + mn);
}

static double gs_compute(const gs_cfg *g, double c, int64_t size) {
    if (g->pad == GS_BORDER) return gs_clip(c, size);
    if (g->pad == GS_REFLECTION) {
        c = g->ac ? gs_reflect(g, c, 0, 2 * (size - 1)) : gs_reflect(g, c, -1, 2 * size - 1);
        return gs_clip(c, size);
    }
    return c;
}

/* ---- 2-d: one lane of torch's vectorized CPU kernel ----
 *
 * torch runs grid_sampler_2d on the CPU through cpu/GridSamplerKernel.cpp for
 * every floating dtype: Vectorized<scalar_t> arithmetic with formulas of its
 * own (unnormalize is (c + 1) * (size / 2) - 0.5, reflection goes through
 * trunc(|c| / twice_span)), not the scalar ones of GridSampler.h that the 3-d
 * kernel uses. Each vector operation on float16/bfloat16 converts to float,
 * computes and rounds back, so every intermediate is rounded to the reduced
 * type in the order the source writes it; for float and double GCC contracts
 * a multiply feeding an add into one fused multiply-add (measured: bilinear
 * float32 is then bit-exact). Coordinates become integers with
 * convert_to_int_of_same_size: int32 for float, int64 for double and int16
 * for float16/bfloat16, where a NaN or infinite coordinate becomes 0 (the
 * int32 conversion gives INT_MIN, whose low 16 bits are 0) instead of
 * falling outside the input. */

typedef struct gs_loc { double max_val, sf, low, ts; bool empty; } gs_loc; /* torch's ComputeLocationBase */

static gs_loc gs_loc_make(const gs_cfg *g, int64_t size) {
    gs_loc L;
    L.max_val = rnd(g, (double)(size - 1));
    double base = rnd(g, (double)(g->ac ? size - 1 : size));
    L.sf = rnd(g, base / 2);
    L.ts = rnd(g, base * 2);
    L.low = g->ac ? 0 : -0.5;
    L.empty = g->ac ? size <= 1 : size <= 0;
    return L;
}

/* a * b + c as the compiled vector code computes it (see above) */
static double gs_fma(const gs_cfg *g, double a, double b, double c) {
    if (g->dt == EIR_F64) return fma(a, b, c);
    if (g->dt == EIR_F32) return fmaf((float)a, (float)b, (float)c);
    return rnd(g, rnd(g, a * b) + c);
}

static double gs_min(double a, double b) { return isnan(a) || isnan(b) ? NAN : a < b ? a : b; }

static int64_t gs_int(const gs_cfg *g, double v) {
    if (g->dt == EIR_F64) return v >= -9.2e18 && v <= 9.2e18 ? (int64_t)v : INT64_MIN;
    int32_t i = v > -2147483649.0 && v < 2147483648.0 ? (int32_t)v : INT32_MIN;
    return g->dt == EIR_F32 ? i : (int16_t)(uint16_t)(uint32_t)i;
}

static double gs_unnormalize_vec(const gs_cfg *g, const gs_loc *L, double c) {
    return g->ac ? rnd(g, rnd(g, c + 1) * L->sf) : gs_fma(g, rnd(g, c + 1), L->sf, -0.5);
}

/* clamp_max(max_val, clamp_min(0, c)): a NaN becomes 0 */
static double gs_clip_vec(const gs_loc *L, double c) {
    double m = c > 0 ? c : 0;
    return m < L->max_val ? m : L->max_val;
}

static double gs_reflect_vec(const gs_cfg *g, const gs_loc *L, double c) {
    if (g->ac && L->empty) return 0;
    double in = g->ac ? fabs(c) : fabs(rnd(g, c - L->low));
    double flips = trunc(rnd(g, in / L->ts));
    double extra = gs_fma(g, -flips, L->ts, in);
    double r = gs_min(extra, rnd(g, L->ts - extra));
    return g->ac ? r : rnd(g, r + L->low);
}

/* ComputeLocation::compute_coordinates: padding applied to an unnormalized coordinate */
static double gs_coords_vec(const gs_cfg *g, const gs_loc *L, double c) {
    if (g->pad == GS_BORDER) return gs_clip_vec(L, c);
    if (g->pad == GS_REFLECTION) return gs_clip_vec(L, gs_reflect_vec(g, L, c));
    return c;
}

/* get_cubic_coefficients with A = -0.75, each operation rounded */
static void gs_cubic_vec(const gs_cfg *g, double t, double *c) {
    const double A = -0.75;
    double x[4] = {rnd(g, t + 1), t, rnd(g, 1 - t), rnd(g, 2 - t)};
    for (int k = 0; k < 4; k++) {
        double v = x[k];
        if (k == 0 || k == 3)
            c[k] = rnd(g, rnd(g, rnd(g, rnd(g, rnd(g, rnd(g, A * v) - 5 * A) * v) + 8 * A) * v) - 4 * A);
        else
            c[k] = rnd(g, rnd(g, rnd(g, rnd(g, rnd(g, (A + 2) * v) - (A + 3)) * v) * v) + 1);
    }
}

/* the input at integer coordinates (qx, qy) of channel plane p, or 0 outside (zeros padding's mask) */
static double gs_at(const v5 *X, const char *p, int64_t qx, int64_t qy) {
    if (qx < 0 || qx >= X->n[4] || qy < 0 || qy >= X->n[3]) return 0;
    return ld(p + (qy * X->s[3] + qx * X->s[4]) * X->es, X->dt);
}

static void gs2d_run(const gs_cfg *g, const v5 *X, const v5 *Y, const eir_tview *grid) {
    int64_t IH = X->n[3], IW = X->n[4], ges = (int64_t)eir_elsize(grid->dtype), gl = grid->strides[3] * ges;
    gs_loc LW = gs_loc_make(g, IW), LH = gs_loc_make(g, IH);
    for (int64_t n = 0; n < Y->n[0]; n++)
        for (int64_t oh = 0; oh < Y->n[3]; oh++)
            for (int64_t ow = 0; ow < Y->n[4]; ow++) {
                const char *gp = (const char *)grid->data + (n * grid->strides[0] + oh * grid->strides[1] + ow * grid->strides[2]) * ges;
                double x = gs_unnormalize_vec(g, &LW, ld(gp, grid->dtype)), y = gs_unnormalize_vec(g, &LH, ld(gp + gl, grid->dtype));
                for (int64_t c = 0; c < Y->n[1]; c++) {
                    const char *p = at5(X, n, c, 0, 0, 0);
                    char *yp = at5(Y, n, c, 0, oh, ow);
                    if (g->interp == GS_NEAREST) {
                        int64_t qx = gs_int(g, nearbyint(gs_coords_vec(g, &LW, x))), qy = gs_int(g, nearbyint(gs_coords_vec(g, &LH, y)));
                        st(yp, Y->dt, gs_at(X, p, qx, qy));
                    } else if (g->interp == GS_BILINEAR) {
                        double cx = gs_coords_vec(g, &LW, x), cy = gs_coords_vec(g, &LH, y);
                        double fx = floor(cx), fy = floor(cy);
                        double w = rnd(g, cx - fx), e = rnd(g, 1 - w), nn = rnd(g, cy - fy), s = rnd(g, 1 - nn);
                        int64_t qx = gs_int(g, fx), qy = gs_int(g, fy);
                        /* (nw_val * nw) + (ne_val * ne) + (sw_val * sw) + (se_val * se), masked corners read as 0 */
                        double acc = rnd(g, gs_at(X, p, qx, qy) * rnd(g, s * e));
                        acc = gs_fma(g, gs_at(X, p, qx + 1, qy), rnd(g, s * w), acc);
                        acc = gs_fma(g, gs_at(X, p, qx, qy + 1), rnd(g, nn * e), acc);
                        acc = gs_fma(g, gs_at(X, p, qx + 1, qy + 1), rnd(g, nn * w), acc);
                        st(yp, Y->dt, acc);
                    } else {
                        double fx = floor(x), fy = floor(y), kx[4], ky[4], row[4];
                        gs_cubic_vec(g, rnd(g, x - fx), kx);
                        gs_cubic_vec(g, rnd(g, y - fy), ky);
                        for (int i = 0; i < 4; i++) {
                            /* get_value_bounded: the coordinate (ix - 1 + j, iy - 1 + i) padded, truncated, masked */
                            int64_t qy = gs_int(g, gs_coords_vec(g, &LH, rnd(g, fy - 1 + i)));
                            for (int j = 0; j < 4; j++) {
                                int64_t qx = gs_int(g, gs_coords_vec(g, &LW, rnd(g, fx - 1 + j)));
                                double v = gs_at(X, p, qx, qy);
                                row[i] = j == 0 ? rnd(g, kx[0] * v) : gs_fma(g, kx[j], v, row[i]);
                            }
                        }
                        double acc = rnd(g, ky[0] * row[0]);
                        for (int i = 1; i < 4; i++) acc = gs_fma(g, ky[i], row[i], acc);
                        st(yp, Y->dt, acc);
                    }
                }
            }
}

static int k_grid_sampler_nd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx, int nsp_req) {
    const char *op = nsp_req == 3 ? "grid_sampler_3d" : nsp_req == 2 ? "grid_sampler_2d" : "grid_sampler";
    if (na < 5 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected 5 arguments", op);
    const eir_tview *x = a[0].t, *grid = a[1].t;
    int nsp = nsp_req ? nsp_req : x->rank - 2;
    if ((nsp != 2 && nsp != 3) || x->rank != nsp + 2)
        return eir_kerr(ctx, "%s: expected %s input, got %dD", op, nsp_req == 3 ? "5D" : nsp_req == 2 ? "4D" : "4D or 5D", x->rank);
    if (grid->rank != nsp + 2 || grid->sizes[nsp + 1] != nsp || grid->sizes[0] != x->sizes[0])
        return eir_kerr(ctx, "grid_sampler(): expected grid to have size %d in last dimension and the batch size of input", nsp);
    gs_cfg g = {(int)a[2].i, (int)a[3].i, a[4].i != 0, x->dtype == EIR_F64, x->dtype};
    if (g.interp < 0 || g.interp > 2) return eir_kerr(ctx, "grid_sampler(): unknown interpolation mode %d", g.interp);
    if (g.pad < 0 || g.pad > 2) return eir_kerr(ctx, "grid_sampler(): unknown padding mode %d", g.pad);
    if (nsp == 3 && g.interp == GS_BICUBIC) return eir_kerr(ctx, "grid_sampler(): bicubic interpolation only supports 4D input");
    if (!is_float_dt(x->dtype)) return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op, dname(x->dtype));
    if (grid->dtype != x->dtype)
        return eir_kerr(ctx, "grid_sampler(): expected input and grid to have the same dtype, but input has %s and grid has %s",
                        dname(x->dtype), dname(grid->dtype));
    for (int i = 2; i < x->rank; i++)
        if (x->sizes[i] <= 0) return eir_kerr(ctx, "grid_sampler(): expected input to have non-empty spatial dimensions");
    v5 X, Y;
    to_v5(x, nsp, &X);
    if (!to_v5(&out[0], nsp, &Y) || out[0].rank != x->rank || Y.n[0] != X.n[0] || Y.n[1] != X.n[1])
        return eir_kerr(ctx, "%s: output shape does not fit the input", op);
    if (nsp == 2) {
        gs2d_run(&g, &X, &Y, grid);
        return 0;
    }
    /* 3-d: torch's scalar kernel (GridSampler.cpp, grid_sampler_3d_cpu_impl) */
    int64_t ID = X.n[2], IH = X.n[3], IW = X.n[4];
    int64_t ges = (int64_t)eir_elsize(grid->dtype);
    for (int64_t n = 0; n < Y.n[0]; n++)
        for (int64_t od = 0; od < Y.n[2]; od++)
            for (int64_t oh = 0; oh < Y.n[3]; oh++)
                for (int64_t ow = 0; ow < Y.n[4]; ow++) {
                    /* grid[n, (od,) oh, ow, :] = (x, y[, z]) */
                    const char *gp = (const char *)grid->data + (n * grid->strides[0] + oh * grid->strides[nsp - 1] +
                                                                 ow * grid->strides[nsp]) * ges;
                    if (nsp == 3) gp += od * grid->strides[1] * ges;
                    int64_t gl = grid->strides[nsp + 1] * ges;
                    double gx = ld(gp, grid->dtype), gy = ld(gp + gl, grid->dtype), gz = nsp == 3 ? ld(gp + 2 * gl, grid->dtype) : 0;
                    double ix, iy, iz = 0;
                    if (g.interp == GS_BICUBIC) {
                        ix = gs_unnormalize(&g, gx, IW);
                        iy = gs_unnormalize(&g, gy, IH);
                    } else {
                        ix = gs_compute(&g, gs_unnormalize(&g, gx, IW), IW);
                        iy = gs_compute(&g, gs_unnormalize(&g, gy, IH), IH);
                        if (nsp == 3) iz = gs_compute(&g, gs_unnormalize(&g, gz, ID), ID);
                    }
                    for (int64_t c = 0; c < Y.n[1]; c++) {
                        char *yp = at5(&Y, n, c, od, oh, ow);
                        double acc = 0;
                        if (g.interp == GS_NEAREST) {
                            double rx = nearbyint(ix), ry = nearbyint(iy), rz = nearbyint(iz);
                            if (rx >= 0 && rx < (double)IW && ry >= 0 && ry < (double)IH && rz >= 0 && rz < (double)ID)
                                acc = ld(at5(&X, n, c, (int64_t)rz, (int64_t)ry, (int64_t)rx), X.dt);
                        } else if (g.interp == GS_BILINEAR) {
                            double fx = floor(ix), fy = floor(iy), fz = nsp == 3 ? floor(iz) : 0;
                            double tx = rnd(&g, ix - fx), ty = rnd(&g, iy - fy), tz = rnd(&g, iz - fz);
                            for (int dz = 0; dz < (nsp == 3 ? 2 : 1); dz++)
                                for (int dy = 0; dy < 2; dy++)
                                    for (int dx = 0; dx < 2; dx++) {
                                        double qx = fx + dx, qy = fy + dy, qz = fz + dz;
                                        if (!(qx >= 0 && qx < (double)IW && qy >= 0 && qy < (double)IH && qz >= 0 && qz < (double)ID))
                                            continue;
                                        double w = rnd(&g, (dy ? ty : rnd(&g, 1 - ty)) * (dx ? tx : rnd(&g, 1 - tx)));
                                        if (nsp == 3) w = rnd(&g, (dz ? tz : rnd(&g, 1 - tz)) * w);
                                        acc += w * ld(at5(&X, n, c, (int64_t)qz, (int64_t)qy, (int64_t)qx), X.dt);
                                    }
                        } else {
                            double fx = floor(ix), fy = floor(iy);
                            double cx[4], cy[4];
                            cubic_coeffs(g.dbl, rnd(&g, ix - fx), cx);
                            cubic_coeffs(g.dbl, rnd(&g, iy - fy), cy);
                            for (int j = 0; j < 4; j++) {
                                double row = 0;
                                for (int i = 0; i < 4; i++) {
                                    /* get_value_bounded: pad the integer coordinate, then zero outside */
                                    double qx = gs_compute(&g, fx - 1 + i, IW), qy = gs_compute(&g, fy - 1 + j, IH);
                                    if (qx >= 0 && qx < (double)IW && qy >= 0 && qy < (double)IH)
                                        row += cx[i] * ld(at5(&X, n, c, 0, (int64_t)qy, (int64_t)qx), X.dt);
                                }
                                acc += cy[j] * row;
                            }
                        }
                        st(yp, Y.dt, acc);
                    }
                }
    return 0;
}

static int k_grid_sampler_2d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return k_grid_sampler_nd(a, na, o, no, c, 2);
}
static int k_grid_sampler_3d(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return k_grid_sampler_nd(a, na, o, no, c, 3);
}
static int k_grid_sampler(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    return k_grid_sampler_nd(a, na, o, no, c, 0);
}

/* ======================================================================
 * col2im / im2col: columns (N, C*kh*kw, L) <-> image (N, C, H, W)
 * ====================================================================== */

typedef struct fold_geo { int64_t kh, kw, dh, dw, ph, pw, sh, sw, H, W, oh, ow; } fold_geo;

static int fold_params(eir_kctx *ctx, const char *op, const eir_karg *ks, const eir_karg *dil, const eir_karg *pad,
                       const eir_karg *str, fold_geo *g) {
    int64_t k[2], d[2], p[2], s[2];
    if (!ints_arg(ks, 2, k, 1, NULL) || !ints_arg(dil, 2, d, 1, NULL) || !ints_arg(pad, 2, p, 0, NULL) ||
        !ints_arg(str, 2, s, 1, NULL))
        return eir_kerr(ctx, "%s: kernel_size, dilation, padding and stride must have 2 values", op);
    if (k[0] <= 0 || k[1] <= 0) return eir_kerr(ctx, "%s: kernel size should be greater than zero, but got kernel_height: %lld kernel_width: %lld", op, (long long)k[0], (long long)k[1]);
    if (d[0] <= 0 || d[1] <= 0) return eir_kerr(ctx, "%s: dilation should be greater than zero, but got dilation_height: %lld dilation_width: %lld", op, (long long)d[0], (long long)d[1]);
    if (p[0] < 0 || p[1] < 0) return eir_kerr(ctx, "%s: padding should be non-negative, but got pad_height: %lld pad_width: %lld", op, (long long)p[0], (long long)p[1]);
    if (s[0] <= 0 || s[1] <= 0) return eir_kerr(ctx, "%s: stride should be greater than zero, but got stride_height: %lld stride_width: %lld", op, (long long)s[0], (long long)s[1]);
    g->kh = k[0]; g->kw = k[1]; g->dh = d[0]; g->dw = d[1]; g->ph = p[0]; g->pw = p[1]; g->sh = s[0]; g->sw = s[1];
    return 0;
}

static void fold_blocks(fold_geo *g) {
    g->oh = (g->H + 2 * g->ph - (g->dh * (g->kh - 1) + 1)) / g->sh + 1;
    g->ow = (g->W + 2 * g->pw - (g->dw * (g->kw - 1) + 1)) / g->sw + 1;
}

/* the per-dtype accumulation for col2im: complex in pairs, bool as "any" */
static void acc_elem(char *dst, const char *src, eir_dtype dt) {
    if (eir_is_complex(dt)) {
        double ar, ai, br, bi;
        eir_load_c128(dst, dt, &ar, &ai);
        eir_load_c128(src, dt, &br, &bi);
        eir_store_c128(dst, dt, ar + br, ai + bi);
    } else if (dt == EIR_BOOL) {
        *(uint8_t *)dst = *(const uint8_t *)dst || *(const uint8_t *)src;
    } else {
        st(dst, dt, ld(dst, dt) + ld(src, dt));
    }
}

static void zero_elem(char *dst, eir_dtype dt) { memset(dst, 0, eir_elsize(dt)); }

/* col2im(self, output_size, kernel_size, dilation, padding, stride) */
static int k_col2im(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 6 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "col2im: expected 6 arguments");
    const eir_tview *x = a[0].t;
    fold_geo g;
    if (fold_params(ctx, "col2im", &a[2], &a[3], &a[4], &a[5], &g)) return -1;
    int64_t osz[2];
    if (!ints_arg(&a[1], 2, osz, 1, NULL) || a[1].n == 0) return eir_kerr(ctx, "col2im: output_size must have 2 values");
    if (osz[0] <= 0 || osz[1] <= 0) return eir_kerr(ctx, "col2im: output_size should be greater than zero");
    g.H = osz[0]; g.W = osz[1];
    fold_blocks(&g);
    if (x->rank != 2 && x->rank != 3)
        return eir_kerr(ctx, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: %dD", x->rank);
    bool batched = x->rank == 3;
    int64_t N = batched ? x->sizes[0] : 1, CK = x->sizes[batched], L = x->sizes[batched + 1];
    if (CK % (g.kh * g.kw) != 0)
        return eir_kerr(ctx, "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)=%lld and kernel_size=(%lld, %lld)", (long long)CK, (long long)g.kh, (long long)g.kw);
    if (g.oh < 1 || g.ow < 1 || L != g.oh * g.ow)
        return eir_kerr(ctx, "Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, %lld), stride=(%lld, %lld), expected size of input's dimension 2 to match the calculated number of sliding blocks %lld * %lld = %lld, but got input.size(2)=%lld.",
                        (long long)g.H, (long long)g.W, (long long)g.kh, (long long)g.kw, (long long)g.dh, (long long)g.dw,
                        (long long)g.ph, (long long)g.pw, (long long)g.sh, (long long)g.sw, (long long)g.oh, (long long)g.ow,
                        (long long)(g.oh * g.ow), (long long)L);
    int64_t C = CK / (g.kh * g.kw);
    eir_tview *y = &out[0];
    if (y->rank != x->rank + 1 || y->sizes[batched] != C || y->sizes[batched + 1] != g.H || y->sizes[batched + 2] != g.W)
        return eir_kerr(ctx, "col2im: output shape does not fit the input");
    if (y->dtype != x->dtype) return eir_kerr(ctx, "col2im: output dtype differs from the input's");
    int64_t es = (int64_t)eir_elsize(x->dtype);
    int64_t ys0 = batched ? y->strides[0] : 0, xs0 = batched ? x->strides[0] : 0;
    int64_t ysc = y->strides[batched], ysh = y->strides[batched + 1], ysw = y->strides[batched + 2];
    int64_t xsk = x->strides[batched], xsl = x->strides[batched + 1];
    for (int64_t n = 0; n < N; n++) {
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < g.H; h++)
                for (int64_t w = 0; w < g.W; w++) zero_elem((char *)y->data + (n * ys0 + c * ysc + h * ysh + w * ysw) * es, y->dtype);
        for (int64_t ck = 0; ck < CK; ck++) {
            int64_t wo = ck % g.kw, ho = (ck / g.kw) % g.kh, c = ck / g.kh / g.kw;
            for (int64_t hc = 0; hc < g.oh; hc++) {
                int64_t hi = hc * g.sh - g.ph + ho * g.dh;
                if (hi < 0 || hi >= g.H) continue;
                for (int64_t wc = 0; wc < g.ow; wc++) {
                    int64_t wi = wc * g.sw - g.pw + wo * g.dw;
                    if (wi < 0 || wi >= g.W) continue;
                    acc_elem((char *)y->data + (n * ys0 + c * ysc + hi * ysh + wi * ysw) * es,
                             (const char *)x->data + (n * xs0 + ck * xsk + (hc * g.ow + wc) * xsl) * es, x->dtype);
                }
            }
        }
    }
    return 0;
}

/* im2col(self, kernel_size, dilation, padding, stride) */
static int k_im2col(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 5 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "im2col: expected 5 arguments");
    const eir_tview *x = a[0].t;
    fold_geo g;
    if (fold_params(ctx, "im2col", &a[1], &a[2], &a[3], &a[4], &g)) return -1;
    if (x->rank != 3 && x->rank != 4)
        return eir_kerr(ctx, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: %dD", x->rank);
    bool batched = x->rank == 4;
    int64_t N = batched ? x->sizes[0] : 1, C = x->sizes[batched];
    g.H = x->sizes[batched + 1];
    g.W = x->sizes[batched + 2];
    fold_blocks(&g);
    if (g.oh < 1 || g.ow < 1)
        return eir_kerr(ctx, "Given input with spatial size (%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), padding=(%lld, %lld), calculated shape of the array of sliding blocks as (%lld, %lld), but its components must be at least one.",
                        (long long)g.H, (long long)g.W, (long long)g.kh, (long long)g.kw, (long long)g.dh, (long long)g.dw,
                        (long long)g.ph, (long long)g.pw, (long long)g.oh, (long long)g.ow);
    eir_tview *y = &out[0];
    int64_t CK = C * g.kh * g.kw, L = g.oh * g.ow;
    if (y->rank != x->rank - 1 || y->sizes[batched] != CK || y->sizes[batched + 1] != L)
        return eir_kerr(ctx, "im2col: output shape does not fit the input");
    if (y->dtype != x->dtype) return eir_kerr(ctx, "im2col: output dtype differs from the input's");
    int64_t es = (int64_t)eir_elsize(x->dtype);
    int64_t xs0 = batched ? x->strides[0] : 0, ys0 = batched ? y->strides[0] : 0;
    for (int64_t n = 0; n < N; n++)
        for (int64_t ck = 0; ck < CK; ck++) {
            int64_t wo = ck % g.kw, ho = (ck / g.kw) % g.kh, c = ck / g.kh / g.kw;
            for (int64_t hc = 0; hc < g.oh; hc++)
                for (int64_t wc = 0; wc < g.ow; wc++) {
                    int64_t hi = hc * g.sh - g.ph + ho * g.dh, wi = wc * g.sw - g.pw + wo * g.dw;
                    char *yp = (char *)y->data + (n * ys0 + ck * y->strides[batched] + (hc * g.ow + wc) * y->strides[batched + 1]) * es;
                    if (hi < 0 || hi >= g.H || wi < 0 || wi >= g.W) zero_elem(yp, y->dtype);
                    else memcpy(yp, (const char *)x->data + (n * xs0 + c * x->strides[batched] + hi * x->strides[batched + 1] +
                                                             wi * x->strides[batched + 2]) * es, (size_t)es);
                }
        }
    return 0;
}

const eir_kernel_entry eir_kernels_spatial[] = {
    {"aten.max_pool3d_with_indices.default", k_max_pool3d_with_indices},
    {"aten.max_pool3d.default", k_max_pool3d},
    {"aten.max_pool1d_with_indices.default", k_max_pool1d_with_indices},
    {"aten.max_pool1d.default", k_max_pool1d},
    {"aten.avg_pool3d.default", k_avg_pool3d},
    {"aten.avg_pool1d.default", k_avg_pool1d},
    {"aten._adaptive_avg_pool3d.default", k_adaptive_avg_pool3d},
    {"aten.adaptive_avg_pool3d.default", k_adaptive_avg_pool3d},
    {"aten.adaptive_max_pool3d.default", k_adaptive_max_pool3d},
    {"aten.adaptive_avg_pool1d.default", k_adaptive_avg_pool1d},
    {"aten.adaptive_max_pool1d.default", k_adaptive_max_pool1d},
    {"aten.upsample_nearest1d.vec", k_up_nearest1d_vec},
    {"aten.upsample_nearest1d.default", k_up_nearest1d},
    {"aten.upsample_nearest2d.vec", k_up_nearest2d_vec},
    {"aten.upsample_nearest2d.default", k_up_nearest2d},
    {"aten.upsample_nearest3d.vec", k_up_nearest3d_vec},
    {"aten.upsample_nearest3d.default", k_up_nearest3d},
    {"aten._upsample_nearest_exact1d.vec", k_up_nearest_exact1d_vec},
    {"aten._upsample_nearest_exact1d.default", k_up_nearest_exact1d},
    {"aten._upsample_nearest_exact2d.vec", k_up_nearest_exact2d_vec},
    {"aten._upsample_nearest_exact2d.default", k_up_nearest_exact2d},
    {"aten._upsample_nearest_exact3d.vec", k_up_nearest_exact3d_vec},
    {"aten._upsample_nearest_exact3d.default", k_up_nearest_exact3d},
    {"aten.upsample_linear1d.vec", k_up_linear1d_vec},
    {"aten.upsample_linear1d.default", k_up_linear1d},
    {"aten.upsample_bilinear2d.vec", k_up_bilinear2d_vec},
    {"aten.upsample_bilinear2d.default", k_up_bilinear2d},
    {"aten.upsample_trilinear3d.vec", k_up_trilinear3d_vec},
    {"aten.upsample_trilinear3d.default", k_up_trilinear3d},
    {"aten.upsample_bicubic2d.vec", k_up_bicubic2d_vec},
    {"aten.upsample_bicubic2d.default", k_up_bicubic2d},
    {"aten._upsample_bilinear2d_aa.vec", k_up_bilinear2d_aa_vec},
    {"aten._upsample_bilinear2d_aa.default", k_up_bilinear2d_aa},
    {"aten._upsample_bicubic2d_aa.vec", k_up_bicubic2d_aa_vec},
    {"aten._upsample_bicubic2d_aa.default", k_up_bicubic2d_aa},
    {"aten.grid_sampler_2d.default", k_grid_sampler_2d},
    {"aten.grid_sampler_3d.default", k_grid_sampler_3d},
    {"aten.grid_sampler.default", k_grid_sampler},
    {"aten.col2im.default", k_col2im},
    {"aten.im2col.default", k_im2col},
    {NULL, NULL},
};
