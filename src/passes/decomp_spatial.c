/* decomp_spatial.c — to-core rules for resampling, unpooling, distances
 * and indexing helpers, each emitting the nodes torch 2.13's
 * ep.run_decompositions() writes for the operator: upsample_linear1d /
 * upsample_trilinear3d, max_unpool2d / 3d, cdist, pdist,
 * _softmax_backward_data, linalg_vander, bilinear, isin, cross /
 * linalg_cross, diag_embed, im2col, _unsafe_masked_index, argsort,
 * argwhere, conj_physical of real tensors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "decomp_int.h"

static bool sp_float_dtype(eir_dtype dt) { return dt == EIR_F32 || dt == EIR_F64; }

static bool sp_concrete(const eir_tensor_meta *m, int64_t *sz) {
    if (!dc_meta_concrete_sizes(m) || m->rank > MAXR) return false;
    for (uint32_t i = 0; i < m->rank; i++) sz[i] = m->sizes[i].value;
    return true;
}

/* torch._prims_common.are_strides_like_channels_last (ranks 4 and 5) */
static bool sp_channels_last_like(const eir_tensor_meta *m) {
    static const int O4[] = {1, 3, 2, 0}, O5[] = {1, 4, 3, 2, 0};
    if (m->rank != 4 && m->rank != 5) return false;
    const int *o = m->rank == 4 ? O4 : O5;
    if (m->strides[1].value == 0) return false;
    int64_t min = 0;
    for (uint32_t i = 0; i < m->rank; i++) {
        int d = o[i];
        int64_t sz = m->sizes[d].value, st = m->strides[d].value;
        if (sz == 0 || st < min) return false;
        if (d == 0 && min == m->strides[1].value) return false;
        min = st;
        min *= sz;
    }
    return true;
}

static bool sp_ge(int64_t a, int64_t b) { return b == 0 ? true : a == 0 ? false : a >= b || a % b == 0; }

/* The strides torch's meta function of index.Tensor gives a result of
 * sizes sz[0..r) when the indices cover the dims of x from `first` on
 * (their broadcast shape replacing them): TensorIterator's order of x restrided with zeros at
 * the indexed dims (compute_elementwise_output_logical_to_physical_perm),
 * as contiguous strides in that order. */
static void sp_index_strides(const eir_tensor_meta *xm, uint32_t first, const int64_t *sz, uint32_t r, int64_t *out) {
    int64_t st[MAXR];
    for (uint32_t d = 0; d < r; d++) st[d] = d >= first ? 0 : xm->strides[d].value;
    int64_t perm[MAXR];
    bool contig = true, cl = r == 4;
    int64_t e = 1;
    for (uint32_t d = r; d-- > 0;) {
        if (sz[d] == 1) continue;
        if (st[d] != e) contig = false;
        e *= sz[d];
    }
    if (cl) {
        static const int O[] = {1, 3, 2, 0};
        e = 1;
        for (uint32_t i = 0; i < 4; i++) {
            if (sz[O[i]] == 1) continue;
            if (st[O[i]] != e) cl = false;
            e *= sz[O[i]];
        }
    }
    for (uint32_t d = 0; d < r; d++) perm[d] = d;
    if (r >= 2 && !(contig && !cl)) {
        if (cl && !contig) {
            perm[0] = 0, perm[1] = 2, perm[2] = 3, perm[3] = 1;
        } else {
            /* back-to-front insertion sort with ambiguous comparisons */
            int64_t p[MAXR];
            for (uint32_t i = 0; i < r; i++) p[i] = r - 1 - i;
            for (uint32_t i = 1; i < r; i++) {
                uint32_t d1 = i;
                for (uint32_t d0 = i; d0-- > 0;) {
                    int64_t a = p[d0], b = p[d1], sa = st[a], sb = st[b];
                    int cmp = 0;
                    if (sa != 0 && sb != 0) {
                        if (sa == sb) cmp = sp_ge(sz[b], sz[a]) ? 0 : 1;
                        else cmp = sp_ge(sb, sa) ? -1 : sp_ge(sa, sb) ? 1 : 0;
                    }
                    if (cmp > 0) {
                        p[d0] = b, p[d1] = a;
                        d1 = d0;
                    } else if (cmp < 0)
                        break;
                }
            }
            for (uint32_t i = 0; i < r; i++) perm[i] = p[r - 1 - i];
        }
    }
    /* contiguous strides of the permuted sizes, put back in logical order */
    int64_t m = 1;
    for (uint32_t i = r; i-- > 0;) {
        out[perm[i]] = m;
        m *= sz[perm[i]] > 1 ? sz[perm[i]] : 1;
    }
}

static eir_status sp_clamp(dc *c, uint32_t x, eir_arg lo, eir_arg hi, bool with_hi, uint32_t *res) {
    eir_named_arg ci[3] = {pos_arg("self", a_tensor(x)), pos_arg("min", lo), pos_arg("max", hi)};
    return sh_emit(c, "clamp.default", with_hi ? 3 : 2, ci, NULL, res);
}

static eir_status sp_to(dc *c, uint32_t x, eir_dtype dt, uint32_t *res) {
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt))};
    return sh_emit(c, "_to_copy.default", 2, ti, NULL, res);
}

/* upsample_linear1d.vec / upsample_trilinear3d.vec -> torch's
 * _upsample_linear: per spatial dim, the source coordinate
 * clamp(scale * (arange(out) + 0.5) - 0.5, min=0) (align_corners:
 * scale * arange(out)) viewed to broadcast, its floor x and
 * min(x + 1, in - 1); index.Tensor at each of the 2^k corners, then
 * v1 + (v2 - v1) * clamp(frac, 0, 1) along the dims from the last to the
 * first. */
eir_status decomp_upsample_linear(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    uint32_t k = strstr(c->op, "trilinear3d") ? 3 : strstr(c->op, "bilinear2d") ? 2 : 1;
    int64_t xs[MAXR], os[MAXR];
    if (xm->rank != k + 2 || om->rank != k + 2) return dc_refuse(c, "an input of rank %u (expected %u)", xm->rank, k + 2);
    if (!sp_concrete(xm, xs) || !sp_concrete(om, os)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    if (!sp_float_dtype(xm->dtype)) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (sp_channels_last_like(xm)) return dc_refuse(c, "a channels-last input (not decomposed)");
    bool align = false;
    if (!dc_bool_arg(c, "align_corners", false, &align)) return dc_refuse(c, "argument 'align_corners': expected a bool");
    const eir_arg *sf = dc_arg_named(c, "scale_factors"), *osz = dc_arg_named(c, "output_size");
    bool have_sf = !is_none(sf);
    if (have_sf && (sf->kind != EIR_ARG_FLOATS || sf->u.list.n != k))
        return dc_refuse(c, "argument 'scale_factors': expected %u floats", k);
    if (have_sf == !is_none(osz)) return dc_refuse(c, "expected exactly one of 'output_size' and 'scale_factors'");
    /* the scale of each dim: a float, or the int 0 (align_corners, one output) */
    eir_arg scale[3];
    for (uint32_t d = 0; d < k; d++) {
        int64_t in = xs[2 + d], o = os[2 + d];
        if (o < 1 || in < 1) return dc_refuse(c, "an empty input or result");
        double f = 0;
        if (have_sf) {
            const eir_arg *fa = &sf->u.list.items[d];
            f = fa->kind == EIR_ARG_FLOAT ? fa->u.f : (double)fa->u.i;
            int64_t want = f == (double)(int64_t)f ? in * (int64_t)f : (int64_t)(in * f);
            if (want != o) return dc_refuse(c, "output size %lld of dim %u, expected %lld from the scale factor",
                                            (long long)o, 2 + d, (long long)want);
        }
        if (align) scale[d] = o > 1 ? a_float((in - 1.0) / (o - 1.0)) : a_int(0);
        else scale[d] = a_float(have_sf && f > 0 ? 1.0 / f : (double)in / (double)o);
    }
    if (c->dry) return EIR_OK;
    uint32_t xf[3], xi[3], xp[3];
    for (uint32_t d = 0; d < k; d++) {
        uint32_t v;
        if ((st = sh_arange(c, 0, os[2 + d], EIR_DTYPE_UNKNOWN, xm, &v))) return st;
        if ((st = sp_to(c, v, xm->dtype, &v))) return st;
        if (!align) {
            if ((st = sh_binary(c, "add.Tensor", v, a_float(0.5), NULL, &v))) return st;
            if ((st = sh_binary(c, "mul.Tensor", v, scale[d], NULL, &v))) return st;
            if ((st = sh_binary(c, "sub.Tensor", v, a_float(0.5), NULL, &v))) return st;
        } else if ((st = sh_binary(c, "mul.Tensor", v, scale[d], NULL, &v))) return st;
        if ((st = sp_clamp(c, v, a_float(0.0), a_none(), false, &v))) return st;
        int64_t vs[3] = {os[2 + d], 1, 1};
        if ((st = sh_view(c, v, vs, k - d, NULL, &xf[d]))) return st;
        if ((st = sp_to(c, xf[d], EIR_I64, &xi[d]))) return st;
        if ((st = sh_binary(c, "add.Tensor", xi[d], a_int(1), NULL, &v))) return st;
        if ((st = sp_clamp(c, v, a_none(), a_int(xs[2 + d] - 1), true, &xp[d]))) return st;
    }
    uint32_t vals[8], n = 1u << k;
    int64_t ist[MAXR];
    sp_index_strides(xm, 2, os, k + 2, ist);
    tm im;
    dc_tm_new(&im, xm, xm->dtype, os, k + 2);
    for (uint32_t d = 0; d < k + 2; d++) im.st[d] = si(ist[d]);
    for (uint32_t a = 0; a < n; a++) {
        eir_arg l = {0};
        l.kind = EIR_ARG_OPTIONAL_TENSORS;
        l.u.list.n = k + 2;
        l.u.list.items = &c->pool[c->npool];
        c->pool[c->npool++] = a_none();
        c->pool[c->npool++] = a_none();
        /* corners in itertools.product order: the first dim varies slowest */
        for (uint32_t d = 0; d < k; d++) c->pool[c->npool++] = a_tensor((a >> (k - 1 - d)) & 1 ? xp[d] : xi[d]);
        eir_named_arg ii[2] = {pos_arg("self", a_tensor(x)), pos_arg("indices", l)};
        if ((st = sh_emit(c, "index.Tensor", 2, ii, &im.m, &vals[a]))) return st;
    }
    for (uint32_t d = k; d-- > 0;) {
        uint32_t w;
        if ((st = sh_binary(c, "sub.Tensor", xf[d], a_tensor(xi[d]), NULL, &w))) return st;
        if ((st = sp_clamp(c, w, a_float(0.0), a_float(1.0), true, &w))) return st;
        for (uint32_t i = 0; i < n / 2; i++) {
            uint32_t df, m;
            if ((st = sh_binary(c, "sub.Tensor", vals[2 * i + 1], a_tensor(vals[2 * i]), NULL, &df))) return st;
            if ((st = sh_binary(c, "mul.Tensor", df, a_tensor(w), NULL, &m))) return st;
            if ((st = sh_binary(c, "add.Tensor", vals[2 * i], a_tensor(m), NULL, &vals[i]))) return st;
        }
        n /= 2;
    }
    /* result.contiguous(): a clone when the corners came out permuted */
    uint32_t res = vals[0];
    if (!dc_meta_contiguous(meta_of(c, res)) && (st = sh_clone(c, res, om, &res))) return st;
    return finish(c, out, res);
}

/* scalar first: sub.Tensor(s, t) / add with a float, as torch records
 * `1.0 - t` (result metadata: t's, contiguous) */
static eir_status sp_rsub(dc *c, double s, uint32_t t, uint32_t *res) {
    tm m;
    dc_tm_from(&m, meta_of(c, t));
    dc_tm_contig(&m);
    eir_named_arg si_[2] = {pos_arg("self", a_float(s)), pos_arg("other", a_tensor(t))};
    return dc_emit(c, "sub.Tensor", 2, si_, &m.m, "sub", res);
}

/* torch.stack([a, b]) of two tensors of sizes sz[0..n): cat + view */
static eir_status sp_stack2(dc *c, uint32_t a, uint32_t b, const int64_t *sz, uint32_t n, uint32_t *res) {
    uint32_t v[2] = {a, b}, cat;
    eir_named_arg ci[1] = {pos_arg("tensors", sh_a_tensors(c, v, 2))};
    eir_status st = sh_emit(c, "cat.default", 1, ci, NULL, &cat);
    if (st) return st;
    int64_t vs[MAXR];
    vs[0] = 2;
    for (uint32_t i = 0; i < n; i++) vs[1 + i] = sz[i];
    return sh_view(c, cat, vs, n + 1, NULL, res);
}

/* unbind(x, 0) of a [2, ...] tensor: two slices, then two squeezes */
static eir_status sp_unbind2(dc *c, uint32_t x, uint32_t *a, uint32_t *b) {
    uint32_t s0, s1;
    eir_status st;
    if ((st = sh_slice(c, x, 0, 0, 1, &s0)) || (st = sh_slice(c, x, 0, 1, 2, &s1))) return st;
    int64_t d0 = 0;
    eir_named_arg q0[2] = {pos_arg("self", a_tensor(s0)), pos_arg("dim", dc_a_ints(c, &d0, 1))};
    if ((st = sh_emit(c, "squeeze.dims", 2, q0, NULL, a))) return st;
    eir_named_arg q1[2] = {pos_arg("self", a_tensor(s1)), pos_arg("dim", dc_a_ints(c, &d0, 1))};
    return sh_emit(c, "squeeze.dims", 2, q1, NULL, b);
}

/* torch's _upsample_get_cubic_coefficients on the CPU (A = -0.75): t of
 * sizes sz[0..n) -> w[0..4) */
static eir_status sp_cubic_weights(dc *c, uint32_t t, const int64_t *sz, uint32_t n, uint32_t *w) {
    const double A = -0.75;
    eir_status st;
    uint32_t r1, tt1, p1, r2, tt2, v;
    if ((st = sp_rsub(c, 1.0, t, &r1)) || (st = sp_stack2(c, t, r1, sz, n, &tt1))) return st;
    if ((st = sh_binary(c, "add.Tensor", t, a_float(1.0), NULL, &p1)) || (st = sp_rsub(c, 2.0, t, &r2)) ||
        (st = sp_stack2(c, p1, r2, sz, n, &tt2)))
        return st;
    /* w03 = ((A x - 5A) x + 8A) x - 4A on tt2 */
    uint32_t w03, w12;
    if ((st = sh_binary(c, "mul.Tensor", tt2, a_float(A), NULL, &v)) ||
        (st = sh_binary(c, "sub.Tensor", v, a_float(5 * A), NULL, &v)) ||
        (st = sh_binary(c, "mul.Tensor", v, a_tensor(tt2), NULL, &v)) ||
        (st = sh_binary(c, "add.Tensor", v, a_float(8 * A), NULL, &v)) ||
        (st = sh_binary(c, "mul.Tensor", v, a_tensor(tt2), NULL, &v)) ||
        (st = sh_binary(c, "sub.Tensor", v, a_float(4 * A), NULL, &w03)))
        return st;
    /* w12 = ((A + 2) x - (A + 3)) x x + 1 on tt1 */
    if ((st = sh_binary(c, "mul.Tensor", tt1, a_float(A + 2), NULL, &v)) ||
        (st = sh_binary(c, "sub.Tensor", v, a_float(A + 3), NULL, &v)) ||
        (st = sh_binary(c, "mul.Tensor", v, a_tensor(tt1), NULL, &v)) ||
        (st = sh_binary(c, "mul.Tensor", v, a_tensor(tt1), NULL, &v)) ||
        (st = sh_binary(c, "add.Tensor", v, a_int(1), NULL, &w12)))
        return st;
    if ((st = sp_unbind2(c, w03, &w[0], &w[3])) || (st = sp_unbind2(c, w12, &w[1], &w[2]))) return st;
    return EIR_OK;
}

/* upsample_bicubic2d.vec -> torch's upsample_bicubic2d decomposition: the
 * source coordinates of rows and columns (as _upsample_linear's), their
 * floors and clamped fractions, cubic weights of both, then per row offset
 * (-1..2) the four columns read by index.Tensor at clamped indices and
 * summed with the column weights, and those four summed with the row
 * weights. */
eir_status decomp_upsample_bicubic(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    int64_t xs[MAXR], os[MAXR];
    if (xm->rank != 4 || om->rank != 4) return dc_refuse(c, "an input of rank %u (expected 4)", xm->rank);
    if (!sp_concrete(xm, xs) || !sp_concrete(om, os)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    if (!sp_float_dtype(xm->dtype)) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (sp_channels_last_like(xm)) return dc_refuse(c, "a channels-last input (not decomposed)");
    bool align = false;
    if (!dc_bool_arg(c, "align_corners", false, &align)) return dc_refuse(c, "argument 'align_corners': expected a bool");
    const eir_arg *sf = dc_arg_named(c, "scale_factors"), *osz = dc_arg_named(c, "output_size");
    bool have_sf = !is_none(sf);
    if (have_sf && (sf->kind != EIR_ARG_FLOATS || sf->u.list.n != 2)) return dc_refuse(c, "argument 'scale_factors': expected 2 floats");
    if (have_sf == !is_none(osz)) return dc_refuse(c, "expected exactly one of 'output_size' and 'scale_factors'");
    eir_arg scale[2];
    for (uint32_t d = 0; d < 2; d++) {
        int64_t in = xs[2 + d], o = os[2 + d];
        if (o < 1 || in < 1) return dc_refuse(c, "an empty input or result");
        double f = 0;
        if (have_sf) {
            const eir_arg *fa = &sf->u.list.items[d];
            f = fa->kind == EIR_ARG_FLOAT ? fa->u.f : (double)fa->u.i;
            if ((int64_t)((double)in * f) != o)
                return dc_refuse(c, "output size %lld of dim %u, expected %lld from the scale factor", (long long)o, 2 + d,
                                 (long long)(int64_t)((double)in * f));
        }
        if (align) scale[d] = o > 1 ? a_float((in - 1.0) / (o - 1.0)) : a_int(0);
        else scale[d] = a_float(have_sf && f > 0 ? 1.0 / f : (double)in / (double)o);
    }
    if (c->dry) return EIR_OK;
    /* i (rows) and j (columns) as floats */
    uint32_t ij[2], src[2];
    for (uint32_t d = 0; d < 2; d++) {
        if ((st = sh_arange(c, 0, os[2 + d], EIR_DTYPE_UNKNOWN, xm, &ij[d])) || (st = sp_to(c, ij[d], xm->dtype, &ij[d])))
            return st;
    }
    /* x_float from j (scale_w), then y_float from i (scale_h) */
    for (int d = 1; d >= 0; d--) {
        uint32_t v = ij[d];
        if (!align) {
            if ((st = sh_binary(c, "add.Tensor", v, a_float(0.5), NULL, &v))) return st;
            if ((st = sh_binary(c, "mul.Tensor", v, scale[d], NULL, &v))) return st;
            if ((st = sh_binary(c, "sub.Tensor", v, a_float(0.5), NULL, &v))) return st;
        } else if ((st = sh_binary(c, "mul.Tensor", v, scale[d], NULL, &v))) return st;
        src[d] = v;
    }
    uint32_t yf, fx, fy, ys, xsc, xi, yi;
    if ((st = sh_unsqueeze(c, src[0], -1, NULL, &yf))) return st;
    eir_named_arg f1[1] = {pos_arg("self", a_tensor(src[1]))};
    if ((st = sh_emit(c, "floor.default", 1, f1, NULL, &fx))) return st;
    eir_named_arg f2[1] = {pos_arg("self", a_tensor(yf))};
    if ((st = sh_emit(c, "floor.default", 1, f2, NULL, &fy))) return st;
    uint32_t v;
    if ((st = sh_binary(c, "sub.Tensor", yf, a_tensor(fy), NULL, &v)) ||
        (st = sp_clamp(c, v, a_float(0.0), a_float(1.0), true, &ys)))
        return st;
    if ((st = sh_binary(c, "sub.Tensor", src[1], a_tensor(fx), NULL, &v)) ||
        (st = sp_clamp(c, v, a_float(0.0), a_float(1.0), true, &xsc)))
        return st;
    if ((st = sp_to(c, fx, EIR_I64, &xi)) || (st = sp_to(c, fy, EIR_I64, &yi))) return st;
    uint32_t yo[4], xo[4];
    yo[1] = yi, xo[1] = xi;
    if ((st = sh_binary(c, "sub.Tensor", yi, a_int(1), NULL, &yo[0])) ||
        (st = sh_binary(c, "add.Tensor", yi, a_int(1), NULL, &yo[2])) ||
        (st = sh_binary(c, "add.Tensor", yi, a_int(2), NULL, &yo[3])) ||
        (st = sh_binary(c, "sub.Tensor", xi, a_int(1), NULL, &xo[0])) ||
        (st = sh_binary(c, "add.Tensor", xi, a_int(1), NULL, &xo[2])) ||
        (st = sh_binary(c, "add.Tensor", xi, a_int(2), NULL, &xo[3])))
        return st;
    uint32_t wx[4], wy[4];
    int64_t xsz[1] = {os[3]}, ysz[2] = {os[2], 1};
    if ((st = sp_cubic_weights(c, xsc, xsz, 1, wx)) || (st = sp_cubic_weights(c, ys, ysz, 2, wy))) return st;
    /* index.Tensor's result metadata */
    int64_t ist[MAXR];
    sp_index_strides(xm, 2, os, 4, ist);
    tm im;
    dc_tm_new(&im, xm, xm->dtype, os, 4);
    for (uint32_t d = 0; d < 4; d++) im.st[d] = si(ist[d]);
    uint32_t rows[4];
    for (uint32_t a = 0; a < 4; a++) {
        uint32_t vals[4];
        for (uint32_t b = 0; b < 4; b++) {
            uint32_t cy, cx;
            if ((st = sp_clamp(c, yo[a], a_int(0), a_int(xs[2] - 1), true, &cy)) ||
                (st = sp_clamp(c, xo[b], a_int(0), a_int(xs[3] - 1), true, &cx)))
                return st;
            eir_arg l = {0};
            l.kind = EIR_ARG_OPTIONAL_TENSORS;
            l.u.list.n = 4;
            l.u.list.items = &c->pool[c->npool];
            c->pool[c->npool++] = a_none();
            c->pool[c->npool++] = a_none();
            c->pool[c->npool++] = a_tensor(cy);
            c->pool[c->npool++] = a_tensor(cx);
            eir_named_arg ii[2] = {pos_arg("self", a_tensor(x)), pos_arg("indices", l)};
            if ((st = sh_emit(c, "index.Tensor", 2, ii, &im.m, &vals[b]))) return st;
        }
        uint32_t acc, m;
        for (uint32_t b = 0; b < 4; b++) {
            if ((st = sh_binary(c, "mul.Tensor", vals[b], a_tensor(wx[b]), NULL, &m))) return st;
            if (b == 0) acc = m;
            else if ((st = sh_binary(c, "add.Tensor", acc, a_tensor(m), NULL, &acc))) return st;
        }
        rows[a] = acc;
    }
    uint32_t res = EIR_NO_VALUE, m;
    for (uint32_t a = 0; a < 4; a++) {
        if ((st = sh_binary(c, "mul.Tensor", rows[a], a_tensor(wy[a]), NULL, &m))) return st;
        if (a == 0) res = m;
        else if ((st = sh_binary(c, "add.Tensor", res, a_tensor(m), NULL, &res))) return st;
    }
    return finish(c, out, res);
}

/* argsort.default / argsort.stable -> sort.default / sort.stable with the
 * same arguments, then its indices */
eir_status decomp_argsort(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->src.num_inputs > 8) return dc_refuse(c, "too many arguments");
    if (c->dry) return EIR_OK;
    eir_named_arg ins[8];
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->src.num_inputs; i++)
        if (c->src.inputs[i].kind) ins[n++] = c->src.inputs[i];
    tm vm;
    dc_tm_from(&vm, meta_of(c, out));
    vm.m.dtype = meta_of(c, x)->dtype;
    const eir_tensor_meta *ms[2] = {&vm.m, meta_of(c, out)};
    uint32_t vals[2];
    const char *t = strstr(c->op, ".stable") ? "sort.stable" : "sort.default";
    if ((st = dc_emit_n(c, t, n, ins, 2, ms, NULL, false, vals))) return st;
    return finish(c, out, vals[1]);
}

/* conj_physical of a real tensor is the tensor itself */
eir_status decomp_conj_physical(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    eir_dtype dt = meta_of(c, x)->dtype;
    if (dt == EIR_C32 || dt == EIR_C64 || dt == EIR_C128) return dc_refuse(c, "a complex input (not decomposed)");
    if (c->dry) return EIR_OK;
    return finish(c, out, x);
}

/* x viewable as one dimension: every dim of size above 1 steps over the
 * next such dim whole */
static bool sp_flat_viewable(const eir_tensor_meta *m) {
    int64_t next_st = -1, next_sz = 1;
    for (uint32_t d = m->rank; d-- > 0;) {
        if (m->sizes[d].is_expr || m->strides[d].is_expr) return false;
        if (m->sizes[d].value == 1) continue;
        if (next_st >= 0 && m->strides[d].value != next_st * next_sz) return false;
        next_st = m->strides[d].value;
        next_sz = m->sizes[d].value;
    }
    return true;
}

/* torch's reshape(-1): view(x, [-1]) of a contiguous x, view(x, [numel])
 * of another viewable one, else a contiguous clone viewed to [numel] */
static eir_status sp_flatten(dc *c, uint32_t x, uint32_t *res) {
    const eir_tensor_meta *m = meta_of(c, x);
    eir_status st;
    int64_t n = 1;
    for (uint32_t d = 0; d < m->rank; d++) n *= m->sizes[d].value;
    if (dc_meta_contiguous(m)) {
        int64_t minus1 = -1;
        return sh_view(c, x, &minus1, 1, NULL, res);
    }
    if (!sp_flat_viewable(m) && (st = sh_clone(c, x, NULL, &x))) return st;
    return sh_view(c, x, &n, 1, NULL, res);
}

/* max_unpool2d / max_unpool3d -> torch's _max_unpoolnd: the indices
 * offset by arange(N * C) * prod(output_size), flattened; a zero tensor of
 * the result's shape, flattened; index_put of the flattened input at them;
 * viewed back */
eir_status decomp_max_unpool(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t idx = dc_tensor_of(c, "indices");
    if (idx == EIR_NO_VALUE) return dc_refuse(c, "argument 'indices': expected a tensor");
    uint32_t k = strstr(c->op, "unpool3d") ? 3 : 2;
    const eir_tensor_meta *xm = meta_of(c, x), *im = meta_of(c, idx), *om = meta_of(c, out);
    int64_t xs[MAXR], os[MAXR];
    if (xm->rank != k + 1 && xm->rank != k + 2) return dc_refuse(c, "an input of rank %u", xm->rank);
    if (!sp_concrete(xm, xs) || !sp_concrete(om, os) || !dc_meta_concrete_sizes(im))
        return dc_refuse(c, "input of symbolic size (not decomposed)");
    if (im->rank != xm->rank || im->dtype != EIR_I64) return dc_refuse(c, "argument 'indices': expected int64 of the input's shape");
    for (uint32_t d = 0; d < xm->rank; d++)
        if (im->sizes[d].value != xs[d]) return dc_refuse(c, "argument 'indices': expected int64 of the input's shape");
    if (om->rank != xm->rank) return dc_refuse(c, "a result of rank %u", om->rank);
    int64_t nc = 1, hw = 1, tot = 1;
    uint32_t lead = xm->rank - k;
    for (uint32_t d = 0; d < lead; d++) nc *= xs[d];
    for (uint32_t d = lead; d < om->rank; d++) hw *= os[d];
    for (uint32_t d = 0; d < om->rank; d++) tot *= os[d];
    if (tot == 0) return dc_refuse(c, "an empty result (not decomposed)");
    if (c->dry) return EIR_OK;
    uint32_t v, fi, z, fz, fx, res;
    if ((st = sh_arange(c, 0, nc, EIR_DTYPE_UNKNOWN, xm, &v))) return st;
    int64_t vs[MAXR];
    for (uint32_t d = 0; d < xm->rank; d++) vs[d] = d < lead ? xs[d] : 1;
    if ((st = sh_view(c, v, vs, xm->rank, NULL, &v))) return st;
    if ((st = sh_binary(c, "mul.Tensor", v, a_int(hw), NULL, &v))) return st;
    if ((st = sh_binary(c, "add.Tensor", idx, a_tensor(v), NULL, &v))) return st;
    if ((st = sp_flatten(c, v, &fi))) return st;
    eir_named_arg fa[6] = {pos_arg("size", dc_a_ints(c, os, om->rank)), pos_arg("fill_value", a_int(0)),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm)),
                           kw_arg("pin_memory", a_bool(false))};
    if ((st = sh_emit(c, "full.default", 6, fa, NULL, &z))) return st;
    if ((st = sp_flatten(c, z, &fz))) return st;
    if ((st = sp_flatten(c, x, &fx))) return st;
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = 1;
    l.u.list.items = &c->pool[c->npool];
    c->pool[c->npool++] = a_tensor(fi);
    eir_named_arg pi[3] = {pos_arg("self", a_tensor(fz)), pos_arg("indices", l), pos_arg("values", a_tensor(fx))};
    if ((st = sh_emit(c, "index_put.default", 3, pi, NULL, &v))) return st;
    if ((st = sh_view(c, v, os, om->rank, om, &res))) return st;
    return finish(c, out, res);
}

/* full(size, fill, dtype, layout, device, pin_memory) */
static eir_status sp_full(dc *c, const int64_t *sz, uint32_t n, eir_arg fill, eir_dtype dt, const eir_tensor_meta *like,
                          uint32_t *res) {
    eir_named_arg fa[6] = {pos_arg("size", dc_a_ints(c, sz, n)), pos_arg("fill_value", fill),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(like)),
                           kw_arg("pin_memory", a_bool(false))};
    return sh_emit(c, "full.default", 6, fa, NULL, res);
}

/* cdist -> _cdist_forward(x1, x2, p, compute_mode), where ATen's cdist
 * takes that path (not the matrix-product Euclidean one) */
eir_status decomp_cdist(dc *c) {
    uint32_t x1, out;
    eir_status st = dc_need_io(c, "x1", &x1, &out);
    if (st) return st;
    uint32_t x2 = dc_tensor_of(c, "x2");
    if (x2 == EIR_NO_VALUE) return dc_refuse(c, "argument 'x2': expected a tensor");
    const eir_tensor_meta *am = meta_of(c, x1), *bm = meta_of(c, x2);
    if (am->rank < 2 || bm->rank < 2) return dc_refuse(c, "operands of rank below 2");
    if (!dc_meta_concrete_sizes(am) || !dc_meta_concrete_sizes(bm)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    double p = 2;
    if (!dc_float_arg(c, "p", 2.0, &p)) return dc_refuse(c, "argument 'p': expected a float");
    const eir_arg *cm = dc_arg_named(c, "compute_mode");
    int64_t mode = 0;
    if (!is_none(cm) && !int_of(cm, &mode)) return dc_refuse(c, "argument 'compute_mode': expected an int");
    int64_t r1 = am->sizes[am->rank - 2].value, r2 = bm->sizes[bm->rank - 2].value, n1 = 1, n2 = 1;
    for (uint32_t d = 0; d < am->rank; d++) n1 *= am->sizes[d].value;
    for (uint32_t d = 0; d < bm->rank; d++) n2 *= bm->sizes[d].value;
    if (n1 && n2 && p == 2 && (mode == 1 || (mode == 0 && (r1 > 25 || r2 > 25))))
        return dc_refuse(c, "the matrix-product Euclidean path (p = 2 with compute_mode 1, or rows above 25) is not decomposed");
    if (c->dry) return EIR_OK;
    eir_named_arg ci[4] = {pos_arg("x1", a_tensor(x1)), pos_arg("x2", a_tensor(x2)), pos_arg("p", a_float(p)),
                           pos_arg("compute_mode", is_none(cm) ? a_none() : a_int(mode))};
    uint32_t res;
    if ((st = sh_emit(c, "_cdist_forward.default", 4, ci, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* pdist -> _pdist_forward(self.contiguous(), p) */
eir_status decomp_pdist(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    if (xm->rank != 2) return dc_refuse(c, "an input of rank %u (expected 2)", xm->rank);
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    double p = 2;
    if (!dc_float_arg(c, "p", 2.0, &p)) return dc_refuse(c, "argument 'p': expected a float");
    if (c->dry) return EIR_OK;
    if (!dc_meta_contiguous(xm) && (st = sh_clone(c, x, NULL, &x))) return st;
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(x)), pos_arg("p", a_float(p))};
    uint32_t res;
    if ((st = sh_emit(c, "_pdist_forward.default", p == 2 ? 1 : 2, pi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* _softmax_backward_data -> g * y - y * sum(g * y, dim, keepdim), made
 * contiguous */
eir_status decomp_softmax_backward(dc *c) {
    uint32_t g, out;
    eir_status st = dc_need_io(c, "grad_output", &g, &out);
    if (st) return st;
    uint32_t y = dc_tensor_of(c, "output");
    if (y == EIR_NO_VALUE) return dc_refuse(c, "argument 'output': expected a tensor");
    const eir_tensor_meta *gm = meta_of(c, g), *ym = meta_of(c, y), *om = meta_of(c, out);
    if (!sp_float_dtype(gm->dtype) || ym->dtype != gm->dtype) return dc_refuse(c, "operands of dtype other than float32 or float64");
    const eir_arg *ia = dc_arg_named(c, "input_dtype");
    if (!ia || ia->kind != EIR_ARG_SCALAR_TYPE || ia->u.i != gm->dtype) return dc_refuse(c, "argument 'input_dtype': expected the gradient's dtype");
    int64_t dim;
    if (!int_of(dc_arg_named(c, "dim"), &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (c->dry) return EIR_OK;
    uint32_t m, s, m1, res;
    if ((st = sh_binary(c, "mul.Tensor", g, a_tensor(y), NULL, &m))) return st;
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(m)), pos_arg("dim", dc_a_ints(c, &dim, 1)), pos_arg("keepdim", a_bool(true))};
    if ((st = sh_emit(c, "sum.dim_IntList", 3, si_, NULL, &s))) return st;
    if ((st = sh_binary(c, "mul.Tensor", y, a_tensor(s), NULL, &m1))) return st;
    if ((st = sh_binary(c, "sub.Tensor", m, a_tensor(m1), NULL, &res))) return st;
    /* grad_input.contiguous() */
    if (!dc_meta_contiguous(meta_of(c, res)) && (st = sh_clone(c, res, om, &res))) return st;
    return finish(c, out, res);
}

/* linalg_vander -> cat([ones, cumprod(x[..., None].expand(..., N - 1), -1)], -1) */
eir_status decomp_vander(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "x", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (!sp_float_dtype(xm->dtype)) return dc_refuse(c, "an input of dtype other than float32 or float64");
    int64_t xs[MAXR];
    if (!sp_concrete(xm, xs) || xm->rank + 1 >= MAXR) return dc_refuse(c, "input of symbolic size (not decomposed)");
    uint32_t r = xm->rank;
    if (r == 0) xs[r++] = 1;
    int64_t n = xs[r - 1];
    const eir_arg *na = dc_arg_named(c, "N");
    if (!is_none(na) && !int_of(na, &n)) return dc_refuse(c, "argument 'N': expected a concrete int");
    if (n <= 1) return dc_refuse(c, "argument 'N': must be greater than 1");
    if (c->dry) return EIR_OK;
    uint32_t v = x, ones, res;
    if (xm->rank == 0 && (st = sh_unsqueeze(c, v, -1, NULL, &v))) return st;
    if ((st = sh_unsqueeze(c, v, -1, NULL, &v))) return st;
    xs[r] = n - 1;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(v)), pos_arg("size", dc_a_ints(c, xs, r + 1))};
    if ((st = sh_emit(c, "expand.default", 2, ei, NULL, &v))) return st;
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(v)), pos_arg("dim", a_int(-1))};
    if ((st = sh_emit(c, "cumprod.default", 2, ci, NULL, &v))) return st;
    xs[r] = 1;
    if ((st = sp_full(c, xs, r + 1, a_int(1), xm->dtype, xm, &ones))) return st;
    uint32_t parts[2] = {ones, v};
    eir_named_arg ki[2] = {pos_arg("tensors", sh_a_tensors(c, parts, 2)), pos_arg("dim", a_int(-1))};
    if ((st = sh_emit(c, "cat.default", 2, ki, om, &res))) return st;
    return finish(c, out, res);
}

/* torch's reshape(x, [-1, last]): view(x, [-1, last]) of a contiguous x,
 * a view to concrete sizes of another viewable one, else a contiguous
 * clone viewed to them */
static eir_status sp_fold(dc *c, uint32_t x, uint32_t *res) {
    const eir_tensor_meta *m = meta_of(c, x);
    eir_status st;
    int64_t last = m->rank ? m->sizes[m->rank - 1].value : 1, n = 1;
    for (uint32_t d = 0; d < m->rank; d++) n *= m->sizes[d].value;
    if (dc_meta_contiguous(m)) {
        int64_t sz[2] = {-1, last};
        return sh_view(c, x, sz, 2, NULL, res);
    }
    int64_t sz[2] = {last ? n / last : 0, last};
    if (!dc_can_view(c, m) && (st = sh_clone(c, x, NULL, &x))) return st;
    return sh_view(c, x, sz, 2, NULL, res);
}

/* bilinear -> _trilinear(x1 as [-1, in1], weight, x2 as [-1, in2], [1, 3],
 * [0], [1, 2], [2, 3]) viewed to the result's shape, + bias */
eir_status decomp_bilinear(dc *c) {
    uint32_t a, out;
    eir_status st = dc_need_io(c, "input1", &a, &out);
    if (st) return st;
    uint32_t b = dc_tensor_of(c, "input2"), w = dc_tensor_of(c, "weight"), bias = dc_tensor_of(c, "bias");
    if (b == EIR_NO_VALUE || w == EIR_NO_VALUE) return dc_refuse(c, "arguments 'input2' and 'weight': expected tensors");
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b), *wm = meta_of(c, w), *om = meta_of(c, out);
    if (am->rank < 1 || bm->rank != am->rank || wm->rank != 3) return dc_refuse(c, "operands of ranks %u, %u, %u", am->rank, bm->rank, wm->rank);
    if (!dc_meta_concrete_sizes(am) || !dc_meta_concrete_sizes(bm) || !dc_meta_concrete_sizes(om))
        return dc_refuse(c, "input of symbolic size (not decomposed)");
    if (c->dry) return EIR_OK;
    uint32_t fa, fb, t, res;
    if ((st = sp_fold(c, a, &fa))) return st;
    if ((st = sp_fold(c, b, &fb))) return st;
    int64_t e1[2] = {1, 3}, e2[1] = {0}, e3[2] = {1, 2}, sd[2] = {2, 3};
    eir_named_arg ti[7] = {pos_arg("i1", a_tensor(fa)), pos_arg("i2", a_tensor(w)), pos_arg("i3", a_tensor(fb)),
                           pos_arg("expand1", dc_a_ints(c, e1, 2)), pos_arg("expand2", dc_a_ints(c, e2, 1)),
                           pos_arg("expand3", dc_a_ints(c, e3, 2)), pos_arg("sumdim", dc_a_ints(c, sd, 2))};
    if ((st = sh_emit(c, "_trilinear.default", 7, ti, NULL, &t))) return st;
    int64_t os[MAXR];
    for (uint32_t d = 0; d < om->rank; d++) os[d] = om->sizes[d].value;
    if ((st = sh_view(c, t, os, om->rank, bias == EIR_NO_VALUE ? om : NULL, &res))) return st;
    if (bias != EIR_NO_VALUE && (st = sh_binary(c, "add.Tensor", res, a_tensor(bias), om, &res))) return st;
    return finish(c, out, res);
}

/* isin.Tensor_Tensor -> torch's isin: few test elements (fewer than
 * 10 * numel ** 0.145): elements viewed with a trailing 1 per test dim,
 * eq, any over those dims; else (1-d operands, assume_unique false):
 * sort the test elements, searchsorted, index at the found place (0 past
 * the end), eq; invert by bitwise_not / logical_not */
eir_status decomp_isin(dc *c) {
    uint32_t e, out;
    eir_status st = dc_need_io(c, "elements", &e, &out);
    if (st) return st;
    uint32_t t = dc_tensor_of(c, "test_elements");
    if (t == EIR_NO_VALUE) return dc_refuse(c, "argument 'test_elements': expected a tensor");
    const eir_tensor_meta *em = meta_of(c, e), *tmm = meta_of(c, t), *om = meta_of(c, out);
    int64_t es[MAXR], ts[MAXR];
    if (!sp_concrete(em, es) || !sp_concrete(tmm, ts)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    if (em->dtype != tmm->dtype || em->dtype == EIR_BOOL || em->dtype == EIR_C64 || em->dtype == EIR_C128)
        return dc_refuse(c, "operands of different, bool or complex dtypes (not decomposed)");
    bool invert = false, uniq = false;
    if (!dc_bool_arg(c, "invert", false, &invert) || !dc_bool_arg(c, "assume_unique", false, &uniq))
        return dc_refuse(c, "arguments 'invert' and 'assume_unique': expected bools");
    int64_t ne = 1, nt = 1;
    for (uint32_t d = 0; d < em->rank; d++) ne *= es[d];
    for (uint32_t d = 0; d < tmm->rank; d++) nt *= ts[d];
    if (ne == 0) return dc_refuse(c, "empty elements (not decomposed)");
    bool few = (double)nt < 10.0 * pow((double)ne, 0.145);
    if (few && em->rank + tmm->rank > MAXR) return dc_refuse(c, "rank above %d", MAXR);
    if (!few && (uniq || em->rank != 1 || tmm->rank != 1 || !dc_meta_contiguous(em)))
        return dc_refuse(c, "the sorting path of isin for other than contiguous 1-d operands without assume_unique (not decomposed)");
    if (c->dry) return EIR_OK;
    uint32_t v, res;
    if (few) {
        if (tmm->rank == 0) {
            if ((st = sh_binary(c, "eq.Tensor", e, a_tensor(t), invert ? NULL : om, &v))) return st;
        } else {
            int64_t vs[MAXR], dims[MAXR];
            for (uint32_t d = 0; d < em->rank; d++) vs[d] = es[d];
            for (uint32_t d = 0; d < tmm->rank; d++) vs[em->rank + d] = 1, dims[d] = -1 - (int64_t)d;
            if ((st = sh_view(c, e, vs, em->rank + tmm->rank, NULL, &v))) return st;
            if ((st = sh_binary(c, "eq.Tensor", v, a_tensor(t), NULL, &v))) return st;
            eir_named_arg ai[2] = {pos_arg("self", a_tensor(v)), pos_arg("dim", dc_a_ints(c, dims, tmm->rank))};
            if ((st = sh_emit(c, "any.dims", 2, ai, invert ? NULL : om, &v))) return st;
        }
        if (invert) {
            eir_named_arg ni[1] = {pos_arg("self", a_tensor(v))};
            if ((st = sh_emit(c, "bitwise_not.default", 1, ni, om, &v))) return st;
        }
        return finish(c, out, v);
    }
    uint32_t sv[2], ss, lt, z, w, ix;
    tm vm, im;
    dc_tm_from(&vm, tmm);
    dc_tm_contig(&vm);
    dc_tm_from(&im, &vm.m);
    im.m.dtype = EIR_I64;
    const eir_tensor_meta *ms[2] = {&vm.m, &im.m};
    eir_named_arg si_[1] = {pos_arg("self", a_tensor(t))};
    if ((st = dc_emit_n(c, "sort.default", 1, si_, 2, ms, NULL, false, sv))) return st;
    eir_named_arg qi[2] = {pos_arg("sorted_sequence", a_tensor(sv[0])), pos_arg("self", a_tensor(e))};
    if ((st = sh_emit(c, "searchsorted.Tensor", 2, qi, NULL, &ss))) return st;
    if ((st = sh_binary(c, "lt.Scalar", ss, a_int(nt), NULL, &lt))) return st;
    eir_named_arg zi[4] = {pos_arg("s", a_int(0)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_I64)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(em))};
    if ((st = sh_emit(c, "scalar_tensor.default", 4, zi, NULL, &z))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(lt)), pos_arg("self", a_tensor(ss)), pos_arg("other", a_tensor(z))};
    if ((st = sh_emit(c, "where.self", 3, wi, NULL, &w))) return st;
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = 1;
    l.u.list.items = &c->pool[c->npool];
    c->pool[c->npool++] = a_tensor(w);
    eir_named_arg ii[2] = {pos_arg("self", a_tensor(sv[0])), pos_arg("indices", l)};
    if ((st = sh_emit(c, "index.Tensor", 2, ii, NULL, &ix))) return st;
    if ((st = sh_binary(c, "eq.Tensor", ix, a_tensor(e), NULL, &v))) return st;
    if (invert) {
        eir_named_arg ni[1] = {pos_arg("self", a_tensor(v))};
        if ((st = sh_emit(c, "logical_not.default", 1, ni, NULL, &v))) return st;
    }
    if ((st = sh_view(c, v, es, 1, om, &res))) return st;
    return finish(c, out, res);
}

/* cross / linalg_cross -> torch's linalg.cross: both operands expanded to
 * their broadcast shape, idx = arange(3), then
 * a[(idx + 1) % 3] * b[(idx + 2) % 3] - a[(idx + 2) % 3] * b[(idx + 1) % 3]
 * by index_select along dim (cross without dim: the first dim of size 3) */
eir_status decomp_cross(dc *c) {
    uint32_t a, out;
    eir_status st = dc_need_io(c, "self", &a, &out);
    if (st) return st;
    uint32_t b = dc_tensor_of(c, "other");
    if (b == EIR_NO_VALUE) return dc_refuse(c, "argument 'other': expected a tensor");
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b), *om = meta_of(c, out);
    int64_t as[MAXR], bs[MAXR], os[MAXR];
    if (!sp_concrete(am, as) || !sp_concrete(bm, bs) || !sp_concrete(om, os)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    uint32_t r = am->rank;
    if (bm->rank != r || om->rank != r || r == 0) return dc_refuse(c, "operands of ranks %u and %u (equal ranks expected)", r, bm->rank);
    if (am->dtype != bm->dtype || am->dtype == EIR_BOOL) return dc_refuse(c, "operands of different or bool dtypes (not decomposed)");
    const eir_arg *da = dc_arg_named(c, "dim");
    int64_t dim = -1;
    if (is_none(da)) {
        if (strstr(c->op, "linalg_cross")) dim = -1;
        else {
            for (dim = 0; dim < (int64_t)r && as[dim] != 3; dim++) {}
            if (dim == (int64_t)r) return dc_refuse(c, "no dimension of size 3");
        }
    } else if (!int_of(da, &dim))
        return dc_refuse(c, "argument 'dim': expected an int");
    if (dim < -(int64_t)r || dim >= (int64_t)r) return dc_refuse(c, "argument 'dim': %lld is out of range for rank %u", (long long)dim, r);
    if (dim < 0) dim += r;
    if (os[dim] != 3) return dc_refuse(c, "dimension %lld of size %lld (3 expected)", (long long)dim, (long long)os[dim]);
    if (c->dry) return EIR_OK;
    uint32_t x[2] = {a, b};
    const int64_t *xs[2] = {as, bs};
    for (uint32_t i = 0; i < 2; i++) {
        if (!memcmp(xs[i], os, r * sizeof *os)) continue;
        eir_named_arg ei[2] = {pos_arg("self", a_tensor(x[i])), pos_arg("size", dc_a_ints(c, os, r))};
        if ((st = sh_emit(c, "expand.default", 2, ei, NULL, &x[i]))) return st;
    }
    uint32_t idx, sel[4], m[2], res;
    if ((st = sh_arange(c, 0, 3, EIR_DTYPE_UNKNOWN, am, &idx))) return st;
    static const int SH[4] = {1, 2, 2, 1};
    for (uint32_t i = 0; i < 4; i++) {
        uint32_t v;
        if ((st = sh_binary(c, "add.Tensor", idx, a_int(SH[i]), NULL, &v))) return st;
        if ((st = sh_binary(c, "remainder.Scalar", v, a_int(3), NULL, &v))) return st;
        eir_named_arg si_[3] = {pos_arg("self", a_tensor(x[i & 1])), pos_arg("dim", a_int(dim)), pos_arg("index", a_tensor(v))};
        if ((st = sh_emit(c, "index_select.default", 3, si_, NULL, &sel[i]))) return st;
        if (i & 1 && (st = sh_binary(c, "mul.Tensor", sel[i - 1], a_tensor(sel[i]), NULL, &m[i / 2]))) return st;
    }
    if ((st = sh_binary(c, "sub.Tensor", m[0], a_tensor(m[1]), om, &res))) return st;
    return finish(c, out, res);
}

/* diag_embed -> torch's reference: zeros of |offset| columns concatenated
 * on the side the offset points to, unsqueeze(dim1) and the last dim moved
 * to dim2 (a permute), then where(arange(n) == arange(offset, n + offset)
 * [:, None] viewed onto dim1 and dim2, t, 0), made contiguous */
eir_status decomp_diag_embed(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    int64_t xs[MAXR];
    if (!sp_concrete(xm, xs) || !dc_meta_concrete_sizes(om)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    if (xm->rank == 0 || xm->rank + 1 > MAXR) return dc_refuse(c, "an input of rank %u", xm->rank);
    if (xm->dtype == EIR_BOOL) return dc_refuse(c, "a bool input (not decomposed)");
    int64_t off = 0, d1 = -2, d2 = -1;
    const eir_arg *oa = dc_arg_named(c, "offset"), *a1 = dc_arg_named(c, "dim1"), *a2 = dc_arg_named(c, "dim2");
    if ((!is_none(oa) && !int_of(oa, &off)) || (!is_none(a1) && !int_of(a1, &d1)) || (!is_none(a2) && !int_of(a2, &d2)))
        return dc_refuse(c, "arguments 'offset', 'dim1', 'dim2': expected ints");
    int64_t R = xm->rank + 1;
    if (d1 < -R || d1 >= R || d2 < -R || d2 >= R) return dc_refuse(c, "arguments 'dim1', 'dim2': out of range for rank %lld", (long long)R);
    if (d1 < 0) d1 += R;
    if (d2 < 0) d2 += R;
    if (d1 > d2) {
        int64_t tmp = d1;
        d1 = d2, d2 = tmp, off = -off;
    }
    if (d1 == d2) return dc_refuse(c, "diagonal dimensions cannot be identical %lld, %lld", (long long)d1, (long long)d2);
    if (c->dry) return EIR_OK;
    uint32_t t = x, ar, br, cond, z, res;
    int64_t last = xs[xm->rank - 1];
    if (off != 0) {
        int64_t zs[MAXR];
        memcpy(zs, xs, xm->rank * sizeof *zs);
        zs[xm->rank - 1] = off > 0 ? off : -off;
        if ((st = sp_full(c, zs, xm->rank, a_int(0), xm->dtype, xm, &z))) return st;
        uint32_t parts[2] = {off > 0 ? z : x, off > 0 ? x : z};
        eir_named_arg ki[2] = {pos_arg("tensors", sh_a_tensors(c, parts, 2)), pos_arg("dim", a_int(-1))};
        if ((st = sh_emit(c, "cat.default", 2, ki, NULL, &t))) return st;
        last += off > 0 ? off : -off;
    }
    if ((st = sh_unsqueeze(c, t, d1, NULL, &t))) return st;
    /* movedim(-1, d2) */
    int64_t perm[MAXR];
    for (int64_t i = 0, k = 0; i < R; i++) perm[i] = i == d2 ? R - 1 : k++;
    if ((st = sh_permute(c, t, perm, (uint32_t)R, NULL, &t))) return st;
    eir_named_arg ai[6] = {pos_arg("start", a_int(0)), pos_arg("end", a_int(last)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_I64)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm)),
                           kw_arg("pin_memory", a_bool(false))};
    if ((st = sh_emit(c, "arange.start_step", 6, ai, NULL, &ar))) return st;
    eir_named_arg bi[6] = {pos_arg("start", a_int(off)), pos_arg("end", a_int(last + off)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_I64)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm)),
                           kw_arg("pin_memory", a_bool(false))};
    if ((st = sh_emit(c, "arange.start_step", 6, bi, NULL, &br))) return st;
    if ((st = sh_unsqueeze(c, br, -1, NULL, &br))) return st;
    if ((st = sh_binary(c, "eq.Tensor", ar, a_tensor(br), NULL, &cond))) return st;
    int64_t cs[MAXR];
    for (int64_t i = 0; i < R; i++) cs[i] = i == d1 || i == d2 ? last : 1;
    if ((st = sh_view(c, cond, cs, (uint32_t)R, NULL, &cond))) return st;
    if ((st = sh_zero_scalar(c, xm, &z))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(cond)), pos_arg("self", a_tensor(t)), pos_arg("other", a_tensor(z))};
    if ((st = sh_emit(c, "where.self", 3, wi, NULL, &res))) return st;
    if (!dc_meta_contiguous(meta_of(c, res)) && (st = sh_clone(c, res, om, &res))) return st;
    return finish(c, out, res);
}

/* argwhere -> nonzero (its result, of data-dependent size, unchanged) */
eir_status decomp_argwhere(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    eir_named_arg ni[1] = {pos_arg("self", a_tensor(x))};
    uint32_t res;
    if ((st = dc_emit(c, "nonzero.default", 1, ni, meta_of(c, out), "nonzero", &res))) return st;
    return finish(c, out, res);
}

/* im2col -> torch's decomposition: per spatial dim, block starts
 * arange(0, blocks, stride)[None] + kernel offsets arange(0, k * dil,
 * dil)[:, None]; constant_pad_nd; index.Tensor at [rows[..., None, None],
 * cols]; permute to (N, C, kh, kw, rows, cols); reshape to (N, C * kh * kw,
 * blocks); an unbatched input unsqueezed first and squeezed last */
eir_status decomp_im2col(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    int64_t xs[MAXR], ks[2], dl[2], pd[2], sd[2];
    uint32_t n;
    if (!sp_concrete(xm, xs) || !dc_meta_concrete_sizes(om)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    if (xm->rank != 3 && xm->rank != 4) return dc_refuse(c, "an input of rank %u (3 or 4 expected)", xm->rank);
    const char *names[4] = {"kernel_size", "dilation", "padding", "stride"};
    int64_t *vals[4] = {ks, dl, pd, sd};
    for (uint32_t i = 0; i < 4; i++)
        if (!dc_ints_of(dc_arg_named(c, names[i]), vals[i], 2, &n) || n != 2)
            return dc_refuse(c, "argument '%s': expected 2 ints", names[i]);
    bool batched = xm->rank == 4;
    int64_t B = batched ? xs[0] : 1, C = xs[xm->rank - 3], in[2] = {xs[xm->rank - 2], xs[xm->rank - 1]}, nb[2];
    for (uint32_t d = 0; d < 2; d++) {
        if (ks[d] <= 0 || dl[d] <= 0 || sd[d] <= 0 || pd[d] < 0) return dc_refuse(c, "non-positive kernel, dilation or stride");
        nb[d] = 1 + (in[d] + 2 * pd[d] - dl[d] * (ks[d] - 1) - 1) / sd[d];
        if (nb[d] <= 0) return dc_refuse(c, "no sliding block fits");
    }
    if (c->dry) return EIR_OK;
    uint32_t v = x, ix[2], pv, res;
    if (!batched && (st = sh_unsqueeze(c, v, 0, NULL, &v))) return st;
    for (uint32_t d = 0; d < 2; d++) {
        uint32_t bl, kg;
        int64_t blocks = in[d] + 2 * pd[d] - dl[d] * (ks[d] - 1);
        for (uint32_t j = 0; j < 2; j++) {
            int64_t end = j == 0 ? blocks : ks[d] * dl[d], step = j == 0 ? sd[d] : dl[d];
            eir_named_arg ai[6];
            uint32_t na = 0;
            ai[na++] = pos_arg("start", a_int(0));
            ai[na++] = pos_arg("end", a_int(end));
            if (step != 1) ai[na++] = pos_arg("step", a_int(step));
            ai[na++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_I64));
            ai[na++] = kw_arg("device", dc_a_device(xm));
            ai[na++] = kw_arg("pin_memory", a_bool(false));
            uint32_t *dst = j == 0 ? &bl : &kg;
            if ((st = sh_emit(c, "arange.start_step", na, ai, NULL, dst))) return st;
            if ((st = sh_unsqueeze(c, *dst, j == 0 ? 0 : -1, NULL, dst))) return st;
        }
        if ((st = sh_binary(c, "add.Tensor", bl, a_tensor(kg), NULL, &ix[d]))) return st;
    }
    int64_t pads[4] = {pd[1], pd[1], pd[0], pd[0]};
    eir_named_arg pi[3] = {pos_arg("self", a_tensor(v)), pos_arg("pad", dc_a_ints(c, pads, 4)), pos_arg("value", a_float(0.0))};
    if ((st = sh_emit(c, "constant_pad_nd.default", 3, pi, NULL, &pv))) return st;
    if ((st = sh_unsqueeze(c, ix[0], -1, NULL, &ix[0]))) return st;
    if ((st = sh_unsqueeze(c, ix[0], -1, NULL, &ix[0]))) return st;
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = 4;
    l.u.list.items = &c->pool[c->npool];
    c->pool[c->npool++] = a_none();
    c->pool[c->npool++] = a_none();
    c->pool[c->npool++] = a_tensor(ix[0]);
    c->pool[c->npool++] = a_tensor(ix[1]);
    int64_t isz[6] = {B, C, ks[0], nb[0], ks[1], nb[1]}, ist[6];
    sp_index_strides(meta_of(c, pv), 2, isz, 6, ist);
    tm im;
    dc_tm_new(&im, xm, xm->dtype, isz, 6);
    for (uint32_t d = 0; d < 6; d++) im.st[d] = si(ist[d]);
    eir_named_arg ii[2] = {pos_arg("self", a_tensor(pv)), pos_arg("indices", l)};
    if ((st = sh_emit(c, "index.Tensor", 2, ii, &im.m, &v))) return st;
    int64_t perm[6] = {0, 1, 2, 4, 3, 5};
    if ((st = sh_permute(c, v, perm, 6, NULL, &v))) return st;
    int64_t vs[3] = {B, C * ks[0] * ks[1], nb[0] * nb[1]};
    tm rm;
    if (batched) dc_tm_from(&rm, om);
    else dc_tm_new(&rm, xm, xm->dtype, vs, 3);
    if ((st = dc_emit_reshape(c, v, &rm.m, "view", &res))) return st;
    if (!batched) {
        int64_t zero = 0;
        eir_named_arg qi[2] = {pos_arg("self", a_tensor(res)), pos_arg("dim", dc_a_ints(c, &zero, 1))};
        if ((st = sh_emit(c, "squeeze.dims", 2, qi, om, &res))) return st;
    }
    return finish(c, out, res);
}

/* _unsafe_masked_index -> each index clamped to [0, size - 1],
 * index.Tensor, then masked_fill(~mask, fill) as where(bitwise_not(mask),
 * scalar_tensor(fill), .) */
eir_status decomp_masked_index(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t mask = dc_tensor_of(c, "mask");
    const eir_arg *il = dc_arg_named(c, "indices"), *fill = dc_arg_named(c, "fill");
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    int64_t xs[MAXR];
    if (mask == EIR_NO_VALUE || meta_of(c, mask)->dtype != EIR_BOOL) return dc_refuse(c, "argument 'mask': expected a bool tensor");
    if (!il || (il->kind != EIR_ARG_OPTIONAL_TENSORS && il->kind != EIR_ARG_TENSORS) || il->u.list.n > xm->rank ||
        il->u.list.n > 8)
        return dc_refuse(c, "argument 'indices': expected at most one optional tensor per dim");
    if (!fill || (fill->kind != EIR_ARG_FLOAT && fill->kind != EIR_ARG_INT && fill->kind != EIR_ARG_BOOL))
        return dc_refuse(c, "argument 'fill': expected a number");
    if (!sp_concrete(xm, xs)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    int64_t numel = 1;
    for (uint32_t d = 0; d < xm->rank; d++) numel *= xs[d];
    if (numel == 0) return dc_refuse(c, "an empty input (not decomposed)");
    uint32_t n = il->u.list.n, idx[8];
    for (uint32_t i = 0; i < n; i++) {
        const eir_arg *a = &il->u.list.items[i];
        idx[i] = is_none(a) ? EIR_NO_VALUE : a->value;
        if (idx[i] != EIR_NO_VALUE && (idx[i] >= c->g->num_values || (meta_of(c, idx[i])->dtype != EIR_I64 && meta_of(c, idx[i])->dtype != EIR_I32)))
            return dc_refuse(c, "argument 'indices': item %u is not an int64 or int32 tensor", i);
    }
    if (c->dry) return EIR_OK;
    for (uint32_t i = 0; i < n; i++)
        if (idx[i] != EIR_NO_VALUE && (st = sp_clamp(c, idx[i], a_int(0), a_int(xs[i] - 1), true, &idx[i]))) return st;
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = n;
    l.u.list.items = &c->pool[c->npool];
    for (uint32_t i = 0; i < n; i++) c->pool[c->npool++] = idx[i] == EIR_NO_VALUE ? a_none() : a_tensor(idx[i]);
    eir_named_arg ii[2] = {pos_arg("self", a_tensor(x)), pos_arg("indices", l)};
    uint32_t v, nm, z, res;
    if ((st = sh_emit(c, "index.Tensor", 2, ii, NULL, &v))) return st;
    eir_named_arg ni[1] = {pos_arg("self", a_tensor(mask))};
    if ((st = sh_emit(c, "bitwise_not.default", 1, ni, NULL, &nm))) return st;
    eir_named_arg zi[4] = {pos_arg("s", *fill), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm))};
    if ((st = sh_emit(c, "scalar_tensor.default", 4, zi, NULL, &z))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(nm)), pos_arg("self", a_tensor(z)), pos_arg("other", a_tensor(v))};
    if ((st = sh_emit(c, "where.self", 3, wi, om, &res))) return st;
    return finish(c, out, res);
}
