/* decomp_loss.c — to-core rules for loss functions and distances, as
 * torch's run_decompositions() writes them: binary_cross_entropy (with
 * logits), kl_div, margin_ranking_loss, soft_margin_loss, poisson_nll_loss,
 * hinge_embedding_loss, pairwise_distance, triplet_margin_loss,
 * cosine_similarity, nll_loss_nd and cross_entropy_loss of a 2-d input.
 * Each ends in the reduction torch's decomposition applies (none: nothing,
 * mean: mean.default, sum: sum.dim_IntList over []). The chains use the
 * builder of decomp_pointwise.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"

#define T(v) a_tensor(v)

enum { RED_NONE = 0, RED_MEAN = 1, RED_SUM = 2 };

static bool is_fp(eir_dtype d) { return d == EIR_F16 || d == EIR_F32 || d == EIR_F64 || d == EIR_BF16; }

static eir_status reduction_of(dc *c, int64_t *r) {
    const eir_arg *a = dc_arg_named(c, "reduction");
    *r = RED_MEAN;
    if (!is_none(a) && (!int_of(a, r) || *r < 0 || *r > 2))
        return dc_refuse(c, "argument 'reduction': expected 0 (none), 1 (mean) or 2 (sum)");
    return EIR_OK;
}

/* the reduction torch's decompositions apply to the loss v */
static uint32_t reduce(pb *b, uint32_t v, int64_t red) {
    if (b->st || red == RED_NONE) return v;
    dc *c = b->c;
    eir_dtype dt = meta_of(c, v)->dtype;
    tm t;
    dc_tm_new(&t, meta_of(c, v), dt, NULL, 0);
    if (red == RED_MEAN) {
        eir_named_arg mi[1] = {pos_arg("self", T(v))};
        return dc_pb_emit_m(b, "mean.default", dt, 1, mi, &t.m);
    }
    eir_named_arg si_[2] = {pos_arg("self", T(v)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
    return dc_pb_emit_m(b, "sum.dim_IntList", dt, 2, si_, &t.m);
}

/* The tensors named[0..n) (NULL names skipped), floating, of the dtype of
 * the first; optional ones may be absent (EIR_NO_VALUE). */
static eir_status tensors(dc *c, uint32_t n, const char *const *names, const bool *optional, uint32_t *v) {
    eir_dtype dt = EIR_DTYPE_UNKNOWN;
    for (uint32_t i = 0; i < n; i++) {
        v[i] = dc_tensor_of(c, names[i]);
        if (v[i] == EIR_NO_VALUE) {
            if (optional && optional[i] && is_none(dc_arg_named(c, names[i]))) continue;
            return dc_refuse(c, "argument '%s': expected a tensor", names[i]);
        }
        eir_dtype d = meta_of(c, v[i])->dtype;
        if (!is_fp(d)) return dc_refuse(c, "argument '%s': dtype %s (only floating inputs are decomposed)", names[i],
                                        eir_dtype_name(d));
        if (dt == EIR_DTYPE_UNKNOWN) dt = d;
        else if (d != dt)
            return dc_refuse(c, "argument '%s': dtype %s, expected %s (type promotion is not decomposed)", names[i],
                             eir_dtype_name(d), eir_dtype_name(dt));
    }
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (meta_of(c, out)->dtype != dt) return dc_refuse(c, "a result of another dtype than the inputs'");
    return dc_pw_check_concrete(c);
}

/* full([], v) of dtype dt */
static uint32_t full0(pb *b, eir_arg v, eir_dtype dt) {
    eir_named_arg ins[6] = {pos_arg("size", dc_a_ints(b->c, NULL, 0)), pos_arg("fill_value", v),
                            kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                            kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                            kw_arg("device", dc_a_device(b->like)), kw_arg("pin_memory", a_bool(false))};
    return dc_pb_emit(b, "full.default", dt, 6, ins);
}

/* log_sigmoid(x) as torch writes it: minimum(0, x) - log1p(exp(-|x|)) */
static uint32_t log_sigmoid(pb *b, uint32_t x, eir_dtype dt) {
    uint32_t z = full0(b, a_int(0), dt);
    uint32_t mn = dc_pb_b(b, "minimum.default", dt, T(z), T(x));
    uint32_t a = dc_pb_u(b, "abs.default", dt, x);
    uint32_t ng = dc_pb_u(b, "neg.default", dt, a);
    uint32_t e = dc_pb_u(b, "exp.default", dt, ng);
    uint32_t l = dc_pb_u(b, "log1p.default", dt, e);
    return dc_pb_b(b, "sub.Tensor", dt, T(mn), T(l));
}

/* A Scalar argument kept as written, or def. */
static bool scalar_arg(const dc *c, const char *name, eir_arg def, eir_arg *out) {
    const eir_arg *a = dc_arg_named(c, name);
    if (is_none(a)) { *out = def; return true; }
    if (a->kind != EIR_ARG_INT && a->kind != EIR_ARG_FLOAT) return false;
    *out = *a;
    out->name = NULL;
    return true;
}

/* ---- elementwise losses ---- */

eir_status decomp_loss_pointwise(dc *c) {
    const char *op = c->op + 5;
    static const char *const bce[] = {"self", "target", "weight", "pos_weight"};
    static const bool bce_opt[] = {false, false, true, true};
    static const char *const mr[] = {"input1", "input2", "target"};
    static const char *const pn[] = {"input", "target"};
    uint32_t v[4] = {EIR_NO_VALUE, EIR_NO_VALUE, EIR_NO_VALUE, EIR_NO_VALUE};
    eir_status st;
    int64_t red;
    if ((st = reduction_of(c, &red))) return st;
    bool logits = !strncmp(op, "binary_cross_entropy_with_logits.", 33);
    eir_arg s1 = {0};
    bool f1 = false, f2 = false;
    if (!strncmp(op, "binary_cross_entropy", 20))
        st = tensors(c, logits ? 4 : 3, bce, bce_opt, v);
    else if (!strncmp(op, "margin_ranking_loss.", 20)) {
        st = tensors(c, 3, mr, NULL, v);
        if (!st && !scalar_arg(c, "margin", a_float(0.0), &s1)) st = dc_refuse(c, "argument 'margin': expected a number");
    } else if (!strncmp(op, "poisson_nll_loss.", 17)) {
        st = tensors(c, 2, pn, NULL, v);
        double eps = 1e-8;
        if (!st && (!dc_bool_arg(c, "log_input", true, &f1) || !dc_bool_arg(c, "full", false, &f2) ||
                    !dc_float_arg(c, "eps", 1e-8, &eps)))
            st = dc_refuse(c, "arguments 'log_input', 'full', 'eps': expected bools and a float");
        s1 = a_float(eps);
    } else if (!strncmp(op, "hinge_embedding_loss.", 21)) {
        st = tensors(c, 2, bce, NULL, v);
        if (!st && !scalar_arg(c, "margin", a_float(1.0), &s1)) st = dc_refuse(c, "argument 'margin': expected a number");
    } else if (!strncmp(op, "kl_div.", 7)) {
        st = tensors(c, 2, bce, NULL, v);
        if (!st && !dc_bool_arg(c, "log_target", false, &f1)) st = dc_refuse(c, "argument 'log_target': expected a bool");
    } else /* soft_margin_loss */
        st = tensors(c, 2, bce, NULL, v);
    if (st) return st;
    uint32_t out = out_value(c);
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, v[0]);
    eir_dtype dt = meta_of(c, v[0])->dtype;
    uint32_t x = v[0], y = v[1], r;
    if (!strncmp(op, "binary_cross_entropy.", 21)) {
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(y), a_int(1));
        uint32_t ng = dc_pb_u(&b, "neg.default", dt, x);
        uint32_t l1 = dc_pb_u(&b, "log1p.default", dt, ng);
        uint32_t f = full0(&b, a_int(-100), dt);
        uint32_t mx = dc_pb_b(&b, "maximum.default", dt, T(l1), T(f));
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(sb), T(mx));
        uint32_t lg = dc_pb_u(&b, "log.default", dt, x);
        uint32_t f1_ = full0(&b, a_int(-100), dt);
        uint32_t mx1 = dc_pb_b(&b, "maximum.default", dt, T(lg), T(f1_));
        uint32_t m1 = dc_pb_b(&b, "mul.Tensor", dt, T(y), T(mx1));
        r = dc_pb_b(&b, "sub.Tensor", dt, T(m), T(m1));
        if (v[2] != EIR_NO_VALUE) r = dc_pb_b(&b, "mul.Tensor", dt, T(r), T(v[2]));
    } else if (logits) {
        uint32_t lw = EIR_NO_VALUE;
        if (v[3] != EIR_NO_VALUE) {
            uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(v[3]), a_int(1));
            uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(sb), T(y));
            lw = dc_pb_b(&b, "add.Tensor", dt, T(m), a_int(1));
        }
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, a_int(1), T(y));
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(sb), T(x));
        uint32_t ls = log_sigmoid(&b, x, dt);
        if (lw != EIR_NO_VALUE) ls = dc_pb_b(&b, "mul.Tensor", dt, T(lw), T(ls));
        r = dc_pb_b(&b, "sub.Tensor", dt, T(m), T(ls));
        if (v[2] != EIR_NO_VALUE) r = dc_pb_b(&b, "mul.Tensor", dt, T(r), T(v[2]));
    } else if (!strncmp(op, "margin_ranking_loss.", 20)) {
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(v[0]), T(v[1]));
        uint32_t ng = dc_pb_u(&b, "neg.default", dt, v[2]);
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(ng), T(sb));
        uint32_t a = dc_pb_b(&b, "add.Scalar", dt, T(m), s1);
        eir_named_arg ci[2] = {pos_arg("self", T(a)), pos_arg("min", a_int(0))};
        r = dc_pb_emit(&b, "clamp.default", dt, 2, ci);
    } else if (!strncmp(op, "soft_margin_loss.", 17)) {
        uint32_t ng = dc_pb_u(&b, "neg.default", dt, x);
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(ng), T(y));
        uint32_t e = dc_pb_u(&b, "exp.default", dt, m);
        r = dc_pb_u(&b, "log1p.default", dt, e);
    } else if (!strncmp(op, "kl_div.", 7)) {
        if (f1) {
            uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(y), T(x));
            uint32_t e = dc_pb_u(&b, "exp.default", dt, y);
            r = dc_pb_b(&b, "mul.Tensor", dt, T(e), T(sb));
        } else {
            uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(y), T(x));
            /* xlogy(target, target) */
            uint32_t eq = dc_pb_b(&b, "eq.Scalar", EIR_BOOL, T(y), a_int(0));
            uint32_t lg = dc_pb_u(&b, "log.default", dt, y);
            uint32_t m1 = dc_pb_b(&b, "mul.Tensor", dt, T(y), T(lg));
            uint32_t z = dc_pb_scalar(&b, a_int(0), dt);
            uint32_t w = dc_pb_where(&b, dt, eq, z, m1);
            uint32_t nn = dc_pb_u(&b, "isnan.default", EIR_BOOL, y);
            uint32_t nv = dc_pb_scalar(&b, a_float(NAN), dt);
            uint32_t w1 = dc_pb_where(&b, dt, nn, nv, w);
            r = dc_pb_b(&b, "sub.Tensor", dt, T(w1), T(m));
        }
    } else if (!strncmp(op, "poisson_nll_loss.", 17)) {
        if (f1) {
            uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(y), T(x));
            uint32_t e = dc_pb_u(&b, "exp.default", dt, x);
            r = dc_pb_b(&b, "sub.Tensor", dt, T(e), T(m));
        } else {
            uint32_t a = dc_pb_b(&b, "add.Scalar", dt, T(x), s1);
            uint32_t lg = dc_pb_u(&b, "log.default", dt, a);
            uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(y), T(lg));
            r = dc_pb_b(&b, "sub.Tensor", dt, T(x), T(m));
        }
        if (f2) {
            /* Stirling's term where target > 1 */
            uint32_t m1 = dc_pb_b(&b, "mul.Scalar", dt, T(y), a_float(2.0 * M_PI));
            uint32_t l1 = dc_pb_u(&b, "log.default", dt, m1);
            uint32_t m2 = dc_pb_b(&b, "mul.Scalar", dt, T(l1), a_float(0.5));
            uint32_t l2 = dc_pb_u(&b, "log.default", dt, y);
            uint32_t m3 = dc_pb_b(&b, "mul.Tensor", dt, T(y), T(l2));
            uint32_t s = dc_pb_b(&b, "sub.Tensor", dt, T(m3), T(y));
            uint32_t a = dc_pb_b(&b, "add.Tensor", dt, T(s), T(m2));
            uint32_t le = dc_pb_b(&b, "le.Scalar", EIR_BOOL, T(y), a_int(1));
            uint32_t z = dc_pb_scalar(&b, a_float(0.0), dt);
            uint32_t w = dc_pb_where(&b, dt, le, z, a);
            r = dc_pb_b(&b, "add.Tensor", dt, T(r), T(w));
        }
    } else { /* hinge_embedding_loss */
        const eir_tensor_meta *xm = meta_of(c, x);
        eir_named_arg z0[4] = {pos_arg("self", T(x)), pos_arg("fill_value", a_int(0)), kw_arg("pin_memory", a_bool(false)),
                               kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
        uint32_t zero = dc_pb_emit(&b, "full_like.default", dt, 4, z0);
        int64_t sz[MAXR], perm[MAXR];
        /* empty_permuted in the input's dimension order (outermost first) */
        tm pm;
        dc_tm_pointwise(&pm, xm);
        for (uint32_t i = 0; i < xm->rank; i++) {
            sz[i] = xm->sizes[i].value;
            perm[i] = i;
        }
        for (uint32_t i = 1; i < xm->rank; i++)
            for (uint32_t j = i; j > 0 && pm.st[perm[j]].value > pm.st[perm[j - 1]].value; j--) {
                int64_t t = perm[j];
                perm[j] = perm[j - 1];
                perm[j - 1] = t;
            }
        eir_arg size = dc_a_ints(c, sz, xm->rank);
        eir_arg pa = dc_a_ints(c, perm, xm->rank);
        eir_named_arg ei[6] = {pos_arg("size", size), pos_arg("physical_layout", pa),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
        uint32_t emp = dc_pb_emit_m(&b, "empty_permuted.default", dt, 6, ei, &pm.m);
        eir_named_arg mi[3] = {pos_arg("self", T(emp)), pos_arg("fill_value", s1), kw_arg("pin_memory", a_bool(false))};
        uint32_t mg = dc_pb_emit(&b, "full_like.default", dt, 3, mi);
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(mg), T(x));
        eir_named_arg ci[2] = {pos_arg("self", T(sb)), pos_arg("min", a_int(0))};
        uint32_t cl = dc_pb_emit(&b, "clamp.default", dt, 2, ci);
        uint32_t ne = dc_pb_b(&b, "ne.Scalar", EIR_BOOL, T(y), a_int(1));
        uint32_t w = dc_pb_where(&b, dt, ne, cl, zero);
        uint32_t ne1 = dc_pb_b(&b, "ne.Scalar", EIR_BOOL, T(y), a_int(-1));
        uint32_t w1 = dc_pb_where(&b, dt, ne1, x, zero);
        r = dc_pb_b(&b, "add.Tensor", dt, T(w), T(w1));
    }
    r = reduce(&b, r, red);
    return dc_pb_finish(&b, out, r);
}

/* ---- distances ---- */

/* linalg_vector_norm(x1 - x2 + eps, p, [last dim] (, True)) */
static uint32_t pdist(pb *b, uint32_t x1, uint32_t x2, eir_arg eps, eir_arg p, bool keep, eir_dtype dt) {
    dc *c = b->c;
    uint32_t sb = dc_pb_b(b, "sub.Tensor", dt, T(x1), T(x2));
    uint32_t a = dc_pb_b(b, "add.Scalar", dt, T(sb), eps);
    if (b->st) return EIR_NO_VALUE;
    const eir_tensor_meta *am = meta_of(c, a);
    int64_t d = am->rank ? am->rank - 1 : 0;
    int64_t sz[MAXR];
    uint32_t n = 0;
    for (uint32_t i = 0; i < am->rank; i++)
        if ((int64_t)i != d) sz[n++] = am->sizes[i].value;
        else if (keep) sz[n++] = 1;
    tm t;
    dc_tm_new(&t, am, dt, sz, n);
    eir_named_arg ni[4] = {pos_arg("self", T(a)), pos_arg("ord", p), pos_arg("dim", dc_a_ints(c, &d, 1)),
                           pos_arg("keepdim", a_bool(true))};
    return dc_pb_emit_m(b, "linalg_vector_norm.default", dt, keep ? 4 : 3, ni, &t.m);
}

/* pairwise_distance / triplet_margin_loss */
eir_status decomp_distance(dc *c) {
    bool trip = !strncmp(c->op, "aten.triplet_margin_loss.", 25);
    static const char *const pd[] = {"x1", "x2"};
    static const char *const tl[] = {"anchor", "positive", "negative"};
    uint32_t v[3];
    eir_status st = tensors(c, trip ? 3 : 2, trip ? tl : pd, NULL, v);
    if (st) return st;
    double p = 2.0, eps = 1e-6;
    bool keep = false, swap = false;
    int64_t red = RED_NONE;
    eir_arg margin = a_float(1.0);
    if (!dc_float_arg(c, "p", 2.0, &p) || !dc_float_arg(c, "eps", 1e-6, &eps))
        return dc_refuse(c, "arguments 'p', 'eps': expected floats");
    if (trip) {
        if ((st = reduction_of(c, &red))) return st;
        if (!dc_bool_arg(c, "swap", false, &swap)) return dc_refuse(c, "argument 'swap': expected a bool");
        if (!dc_float_arg(c, "margin", 1.0, &margin.u.f)) return dc_refuse(c, "argument 'margin': expected a float");
    } else if (!dc_bool_arg(c, "keepdim", false, &keep))
        return dc_refuse(c, "argument 'keepdim': expected a bool");
    for (uint32_t i = 0; i < (trip ? 3u : 2u); i++)
        if (!meta_of(c, v[i])->rank) return dc_refuse(c, "a 0-dim input");
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, v[0]);
    eir_dtype dt = meta_of(c, v[0])->dtype;
    uint32_t out = out_value(c), r;
    if (!trip) {
        r = pdist(&b, v[0], v[1], a_float(eps), a_float(p), keep, dt);
    } else {
        uint32_t dp = pdist(&b, v[0], v[1], a_float(eps), a_float(p), false, dt);
        uint32_t dn = pdist(&b, v[0], v[2], a_float(eps), a_float(p), false, dt);
        if (swap) {
            uint32_t ds = pdist(&b, v[1], v[2], a_float(eps), a_float(p), false, dt);
            dn = dc_pb_b(&b, "minimum.default", dt, T(dn), T(ds));
        }
        uint32_t a = dc_pb_b(&b, "add.Scalar", dt, T(dp), margin);
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(a), T(dn));
        eir_named_arg ci[2] = {pos_arg("self", T(sb)), pos_arg("min", a_int(0))};
        r = dc_pb_emit(&b, "clamp.default", dt, 2, ci);
        r = reduce(&b, r, red);
    }
    return dc_pb_finish(&b, out, r);
}

/* cosine_similarity of two inputs of one shape -> norms, clamp, div, mul, sum */
eir_status decomp_cosine_similarity(dc *c) {
    static const char *const nm[] = {"x1", "x2"};
    uint32_t v[2];
    eir_status st = tensors(c, 2, nm, NULL, v);
    if (st) return st;
    const eir_tensor_meta *am = meta_of(c, v[0]), *bm = meta_of(c, v[1]);
    if (!am->rank != !bm->rank) return dc_refuse(c, "a 0-dim input with a tensor of rank %u", am->rank + bm->rank);
    /* inputs of different shapes are both expanded to the broadcast one */
    uint32_t rank = am->rank > bm->rank ? am->rank : bm->rank;
    int64_t shape[MAXR];
    bool differ = am->rank != bm->rank;
    for (uint32_t d = 0; d < rank; d++) {
        int64_t o0 = (int64_t)d - (int64_t)(rank - am->rank), o1 = (int64_t)d - (int64_t)(rank - bm->rank);
        int64_t s0 = o0 < 0 ? 1 : am->sizes[o0].value, s1 = o1 < 0 ? 1 : bm->sizes[o1].value;
        if (s0 != s1 && s0 != 1 && s1 != 1) return dc_refuse(c, "sizes %lld and %lld do not broadcast", (long long)s0, (long long)s1);
        differ = differ || s0 != s1;
        shape[d] = s0 == 1 ? s1 : s0;
    }
    int64_t dim = 1;
    double eps = 1e-8;
    if (!is_none(dc_arg_named(c, "dim")) && !int_of(dc_arg_named(c, "dim"), &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (!dc_float_arg(c, "eps", 1e-8, &eps)) return dc_refuse(c, "argument 'eps': expected a float");
    dim = wrap_dim(dim, rank);
    if (dim < 0 || dim >= (int64_t)(rank ? rank : 1)) return dc_refuse(c, "argument 'dim': out of range");
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, v[0]);
    eir_dtype dt = am->dtype;
    uint32_t out = out_value(c), cl[2];
    if (differ) {
        for (int k = 1; k >= 0; k--) {
            const eir_tensor_meta *m = meta_of(c, v[k]);
            tm em;
            dc_tm_new(&em, m, dt, shape, rank);
            for (uint32_t d = 0; d < rank; d++) {
                int64_t o = (int64_t)d - (int64_t)(rank - m->rank);
                em.st[d] = o >= 0 && m->sizes[o].value == shape[d] ? m->strides[o] : si(0);
            }
            em.m.storage_offset = m->storage_offset;
            eir_named_arg ei[2] = {pos_arg("self", T(v[k])), pos_arg("size", dc_a_ints(c, shape, rank))};
            v[k] = dc_pb_emit_m(&b, "expand.default", dt, 2, ei, &em.m);
        }
        if (b.st) return b.st;
        am = meta_of(c, v[0]);
    }
    int64_t sz[MAXR];
    for (uint32_t i = 0; i < rank; i++) sz[i] = (int64_t)i == dim ? 1 : shape[i];
    tm km;
    dc_tm_new(&km, am, dt, sz, rank);
    for (int k = 0; k < 2; k++) {
        eir_named_arg ni[4] = {pos_arg("self", T(v[k])), pos_arg("ord", a_int(2)), pos_arg("dim", dc_a_ints(c, &dim, 1)),
                               pos_arg("keepdim", a_bool(true))};
        uint32_t n = dc_pb_emit_m(&b, "linalg_vector_norm.default", dt, 4, ni, &km.m);
        eir_named_arg ci[1] = {pos_arg("self", T(n))};
        cl[k] = dc_pb_emit_m(&b, "clone.default", dt, 1, ci, &km.m);
    }
    eir_named_arg si_[3] = {pos_arg("s", a_float(eps)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                            kw_arg("device", dc_a_device(am))};
    uint32_t e = dc_pb_emit(&b, "scalar_tensor.default", dt, 3, si_);
    uint32_t cc[2];
    for (int k = 0; k < 2; k++) {
        eir_named_arg ci[2] = {pos_arg("self", T(cl[k])), pos_arg("min", T(e))};
        cc[k] = dc_pb_emit(&b, "clamp.Tensor", dt, 2, ci);
    }
    uint32_t c0 = cc[0], c1 = cc[1];
    uint32_t d1 = dc_pb_b(&b, "div.Tensor", dt, T(v[1]), T(c1));
    uint32_t d0 = dc_pb_b(&b, "div.Tensor", dt, T(v[0]), T(c0));
    uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(d0), T(d1));
    eir_named_arg su[2] = {pos_arg("self", T(m)), pos_arg("dim", dc_a_ints(c, &dim, 1))};
    uint32_t r = dc_pb_emit_m(&b, "sum.dim_IntList", dt, 2, su, meta_of(c, out));
    return dc_pb_finish(&b, out, r);
}

/* ---- nll_loss_nd / cross_entropy_loss of a 2-d input [N, C] ---- */

/* contiguous metadata of concrete sizes sz[0..n) */
static void meta_sizes(tm *t, const eir_tensor_meta *like, eir_dtype dt, const int64_t *sz, uint32_t n) {
    dc_tm_new(t, like, dt, sz, n);
}

/* view(x, sizes) with the sizes written as given (-1 included), x contiguous */
static uint32_t view_as_torch(pb *b, uint32_t x, const int64_t *written, const int64_t *sz, uint32_t n) {
    tm t;
    meta_sizes(&t, meta_of(b->c, x), meta_of(b->c, x)->dtype, sz, n);
    t.m.storage_offset = meta_of(b->c, x)->storage_offset;
    eir_named_arg vi[2] = {pos_arg("self", T(x)), pos_arg("size", dc_a_ints(b->c, written, n))};
    return dc_pb_emit_m(b, "view.default", t.m.dtype, 2, vi, &t.m);
}

/* nll of log-probabilities lp ([C], [N, C] or [N, C, d...]) and class
 * indices t ([], [N] or [N, d...]), as torch's nll_loss_nd decomposition */
static uint32_t nll_nd(pb *b, uint32_t lp, uint32_t t, uint32_t w, eir_arg ign, int64_t red, const eir_tensor_meta *om) {
    dc *c = b->c;
    const eir_tensor_meta *lm = meta_of(c, lp), *tmeta = meta_of(c, t);
    eir_dtype dt = lm->dtype, it = tmeta->dtype;
    uint32_t rank = lm->rank;
    int64_t cd = rank == 1 ? 0 : 1, one = 1;
    int64_t tsz[MAXR + 1];
    uint32_t tr = tmeta->rank;
    for (uint32_t i = 0; i < tr; i++) tsz[i] = tmeta->sizes[i].value;
    uint32_t src = lp, tv = t, wv = EIR_NO_VALUE;
    if (rank >= 3) {
        int64_t n = lm->sizes[0].value, k = lm->sizes[1].value, rest = 1;
        for (uint32_t i = 2; i < rank; i++) rest *= lm->sizes[i].value;
        int64_t lw[4] = {n, k, 1, -1}, ls[4] = {n, k, 1, rest}, tw[3] = {n, 1, -1}, ts[3] = {n, 1, rest};
        src = view_as_torch(b, lp, lw, ls, 4);
        tv = view_as_torch(b, t, tw, ts, 3);
        tr = 3;
        memcpy(tsz, ts, sizeof ts);
    }
    if (w != EIR_NO_VALUE) {
        if (rank == 2) {
            tm vm;
            int64_t vs[2] = {1, lm->sizes[1].value};
            dc_tm_new(&vm, meta_of(c, w), dt, vs, 2);
            if (!b->st) b->st = dc_emit_reshape(c, w, &vm.m, "view", &wv);
        } else
            wv = w;
        src = dc_pb_b(b, "mul.Tensor", dt, T(src), T(wv));
    }
    uint32_t ne = dc_pb_b(b, "ne.Scalar", EIR_BOOL, T(tv), ign);
    uint32_t z = dc_pb_scalar(b, a_int(0), it);
    uint32_t tt = dc_pb_where(b, it, ne, tv, z);
    int64_t us[MAXR + 1];
    for (uint32_t i = 0, k = 0; i <= tr; i++) us[i] = (int64_t)i == cd ? 1 : tsz[k++];
    tm um, gm, sm;
    meta_sizes(&um, tmeta, it, us, tr + 1);
    meta_sizes(&gm, lm, dt, us, tr + 1);
    meta_sizes(&sm, lm, dt, tsz, tr);
    eir_named_arg ui[2] = {pos_arg("self", T(tt)), pos_arg("dim", a_int(cd))};
    uint32_t u = dc_pb_emit_m(b, "unsqueeze.default", it, 2, ui, &um.m);
    eir_named_arg gi[3] = {pos_arg("self", T(src)), pos_arg("dim", a_int(cd)), pos_arg("index", T(u))};
    uint32_t g = dc_pb_emit_m(b, "gather.default", dt, 3, gi, &gm.m);
    eir_named_arg qi[2] = {pos_arg("self", T(g)), pos_arg("dim", dc_a_ints(c, &cd, 1))};
    uint32_t q = dc_pb_emit_m(b, "squeeze.dims", dt, 2, qi, &sm.m);
    uint32_t ng = dc_pb_u(b, "neg.default", dt, q);
    uint32_t ne1 = dc_pb_b(b, "ne.Scalar", EIR_BOOL, T(tv), ign);
    uint32_t z1 = dc_pb_scalar(b, a_int(0), dt);
    uint32_t loss = dc_pb_where(b, dt, ne1, ng, z1);
    if (red == RED_NONE) {
        if (rank < 3) return loss;
        int64_t os[MAXR];
        for (uint32_t i = 0; i < om->rank; i++) os[i] = om->sizes[i].value;
        return view_as_torch(b, loss, os, os, om->rank);
    }
    tm s0;
    dc_tm_new(&s0, lm, dt, NULL, 0);
    if (red == RED_SUM) {
        eir_named_arg si_[2] = {pos_arg("self", T(loss)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
        return dc_pb_emit_m(b, "sum.dim_IntList", dt, 2, si_, &s0.m);
    }
    uint32_t den;
    if (w != EIR_NO_VALUE) {
        int64_t n = lm->sizes[0].value, k = lm->sizes[1].value;
        int64_t es[2] = {n, k};
        tm em;
        dc_tm_new(&em, lm, dt, es, 2);
        em.st[0] = si(0);
        eir_named_arg ei[2] = {pos_arg("self", T(wv)), pos_arg("size", dc_a_ints(c, es, 2))};
        uint32_t ex = dc_pb_emit_m(b, "expand.default", dt, 2, ei, &em.m);
        eir_named_arg g1[3] = {pos_arg("self", T(ex)), pos_arg("dim", a_int(1)), pos_arg("index", T(u))};
        uint32_t gw = dc_pb_emit_m(b, "gather.default", dt, 3, g1, &gm.m);
        eir_named_arg q1[2] = {pos_arg("self", T(gw)), pos_arg("dim", dc_a_ints(c, &one, 1))};
        uint32_t qw = dc_pb_emit_m(b, "squeeze.dims", dt, 2, q1, &sm.m);
        uint32_t ne2 = dc_pb_b(b, "ne.Scalar", EIR_BOOL, T(tv), ign);
        uint32_t z2 = dc_pb_scalar(b, a_int(0), dt);
        uint32_t ww = dc_pb_where(b, dt, ne2, qw, z2);
        eir_named_arg si_[2] = {pos_arg("self", T(ww)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
        den = dc_pb_emit_m(b, "sum.dim_IntList", dt, 2, si_, &s0.m);
    } else {
        uint32_t ne2 = dc_pb_b(b, "ne.Scalar", EIR_BOOL, T(tv), ign);
        tm s64;
        dc_tm_new(&s64, lm, EIR_I64, NULL, 0);
        eir_named_arg si_[2] = {pos_arg("self", T(ne2)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
        uint32_t cnt = dc_pb_emit_m(b, "sum.dim_IntList", EIR_I64, 2, si_, &s64.m);
        eir_named_arg ti[3] = {pos_arg("self", T(cnt)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                               kw_arg("device", dc_a_device(lm))};
        den = dc_pb_emit_m(b, "_to_copy.default", dt, 3, ti, &s0.m);
    }
    eir_named_arg s2[2] = {pos_arg("self", T(loss)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
    uint32_t num = dc_pb_emit_m(b, "sum.dim_IntList", dt, 2, s2, &s0.m);
    eir_named_arg di[2] = {pos_arg("self", T(num)), pos_arg("other", T(den))};
    return dc_pb_emit_m(b, "div.Tensor", dt, 2, di, &s0.m);
}

eir_status decomp_nll_ce(dc *c) {
    bool ce = !strncmp(c->op, "aten.cross_entropy_loss.", 24);
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t t = dc_tensor_of(c, "target"), w = dc_tensor_of(c, "weight");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (t == EIR_NO_VALUE) return dc_refuse(c, "argument 'target': expected a tensor");
    if (w == EIR_NO_VALUE && !is_none(dc_arg_named(c, "weight"))) return dc_refuse(c, "argument 'weight': expected a tensor");
    if (!is_fp(xm->dtype) || meta_of(c, out)->dtype != xm->dtype) return dc_refuse(c, "argument 'self': expected a floating tensor");
    if (w != EIR_NO_VALUE && (meta_of(c, w)->dtype != xm->dtype || meta_of(c, w)->rank != 1))
        return dc_refuse(c, "argument 'weight': expected a 1-d tensor of the input's dtype");
    if ((st = dc_pw_check_concrete(c))) return st;
    int64_t red;
    if ((st = reduction_of(c, &red))) return st;
    double ls = 0;
    if (ce && !dc_float_arg(c, "label_smoothing", 0.0, &ls)) return dc_refuse(c, "argument 'label_smoothing': expected a float");
    if (ls != 0 && (xm->rank != 2 || w != EIR_NO_VALUE))
        return dc_refuse(c, "label_smoothing with a class weight or an input of rank %u (only [N, C]) is not decomposed", xm->rank);
    eir_arg ign = a_int(-100);
    const eir_arg *ia = dc_arg_named(c, "ignore_index");
    if (!is_none(ia)) {
        if (!int_of(ia, &ign.u.i)) return dc_refuse(c, "argument 'ignore_index': expected an int");
    }
    const eir_tensor_meta *tmeta = meta_of(c, t);
    bool probs = is_fp(tmeta->dtype);
    if (!xm->rank || xm->rank > MAXR - 1) return dc_refuse(c, "an input of rank %u", xm->rank);
    int64_t cd = xm->rank == 1 ? 0 : 1;
    if (probs) {
        bool same = tmeta->rank == xm->rank;
        for (uint32_t i = 0; same && i < xm->rank; i++) same = tmeta->sizes[i].value == xm->sizes[i].value;
        if (!ce || w != EIR_NO_VALUE || !same || tmeta->dtype != xm->dtype || xm->rank < 2)
            return dc_refuse(c, "class probabilities with a weight, of another shape or of a 1-d input are not decomposed");
    } else {
        bool ok = tmeta->dtype == EIR_I64 && tmeta->rank + 1 == xm->rank;
        for (uint32_t i = 0, k = 0; ok && i < xm->rank; i++)
            if ((int64_t)i != cd) ok = tmeta->sizes[k++].value == xm->sizes[i].value;
        if (!ok) return dc_refuse(c, "argument 'target': expected int64 class indices of the input's shape without its class dimension");
        if (w != EIR_NO_VALUE && (meta_of(c, w)->sizes[0].value != xm->sizes[cd].value || (xm->rank != 2 && (xm->rank > 2 || red == RED_MEAN))))
            return dc_refuse(c, "a class weight with an input of rank %u (and this reduction) is not decomposed", xm->rank);
        if (xm->rank >= 3 && ((!ce && !dc_meta_contiguous(xm)) || !dc_meta_contiguous(tmeta)))
            return dc_refuse(c, "non-contiguous inputs of rank %u", xm->rank);
    }
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    eir_dtype dt = xm->dtype;
    uint32_t lp = x, r;
    if (ce) {
        eir_named_arg li[3] = {pos_arg("self", T(x)), pos_arg("dim", a_int(cd)), pos_arg("half_to_float", a_bool(false))};
        lp = dc_pb_emit_m(&b, "_log_softmax.default", dt, 3, li, NULL);
    }
    int64_t nc = xm->sizes[cd].value;
    if (probs) {
        uint32_t tp = t;
        if (ls != 0) {
            /* the target mixed with the uniform distribution */
            uint32_t m0 = dc_pb_b(&b, "mul.Scalar", dt, T(t), a_float(1 - ls));
            tp = dc_pb_b(&b, "add.Scalar", dt, T(m0), a_float(ls / (double)nc));
        }
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(lp), T(tp));
        if (red == RED_NONE) {
            tm nm;
            dc_tm_from(&nm, meta_of(c, out));
            eir_named_arg si_[2] = {pos_arg("self", T(m)), pos_arg("dim", dc_a_ints(c, &cd, 1))};
            uint32_t s = dc_pb_emit_m(&b, "sum.dim_IntList", dt, 2, si_, &nm.m);
            r = dc_pb_u(&b, "neg.default", dt, s);
        } else {
            tm s0;
            dc_tm_new(&s0, xm, dt, NULL, 0);
            eir_named_arg si_[2] = {pos_arg("self", T(m)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
            uint32_t s = dc_pb_emit_m(&b, "sum.dim_IntList", dt, 2, si_, &s0.m);
            r = dc_pb_u(&b, "neg.default", dt, s);
            int64_t cnt = 1;
            for (uint32_t i = 0; i < xm->rank; i++)
                if ((int64_t)i != cd) cnt *= xm->sizes[i].value;
            if (red == RED_MEAN) r = dc_pb_b(&b, "div.Scalar", dt, T(r), a_int(cnt));
        }
    } else {
        r = nll_nd(&b, lp, t, w, ign, red, meta_of(c, out));
        if (ls != 0) {
            /* the mean of -log p over the classes, for the targets not ignored */
            int64_t n = xm->sizes[0].value;
            tm rm, s0, s64;
            dc_tm_new(&rm, xm, dt, &n, 1);
            dc_tm_new(&s0, xm, dt, NULL, 0);
            dc_tm_new(&s64, xm, EIR_I64, NULL, 0);
            eir_named_arg si_[2] = {pos_arg("self", T(lp)), pos_arg("dim", dc_a_ints(c, &cd, 1))};
            uint32_t s = dc_pb_emit_m(&b, "sum.dim_IntList", dt, 2, si_, &rm.m);
            uint32_t ng = dc_pb_u(&b, "neg.default", dt, s);
            uint32_t eq = dc_pb_b(&b, "eq.Scalar", EIR_BOOL, T(t), ign);
            uint32_t z = dc_pb_scalar(&b, a_float(0.0), dt);
            uint32_t sm = dc_pb_where(&b, dt, eq, z, ng);
            if (red == RED_MEAN) {
                uint32_t nt = dc_pb_u(&b, "bitwise_not.default", EIR_BOOL, eq);
                eir_named_arg ci[2] = {pos_arg("self", T(nt)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
                uint32_t cnt = dc_pb_emit_m(&b, "sum.dim_IntList", EIR_I64, 2, ci, &s64.m);
                eir_named_arg ti[2] = {pos_arg("self", T(sm)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
                uint32_t tot = dc_pb_emit_m(&b, "sum.dim_IntList", dt, 2, ti, &s0.m);
                eir_named_arg di[2] = {pos_arg("self", T(tot)), pos_arg("other", T(cnt))};
                sm = dc_pb_emit_m(&b, "div.Tensor", dt, 2, di, &s0.m);
            } else if (red == RED_SUM) {
                eir_named_arg ti[2] = {pos_arg("self", T(sm)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
                sm = dc_pb_emit_m(&b, "sum.dim_IntList", dt, 2, ti, &s0.m);
            }
            uint32_t a = dc_pb_b(&b, "mul.Scalar", dt, T(sm), a_float(ls / (double)nc));
            uint32_t m1 = dc_pb_b(&b, "mul.Scalar", dt, T(r), a_float(1 - ls));
            r = dc_pb_b(&b, "add.Tensor", dt, T(m1), T(a));
        }
    }
    return dc_pb_finish(&b, out, r);
}

/* cosine_embedding_loss of [N, D] inputs and a target [N] */
eir_status decomp_cosine_embedding(dc *c) {
    static const char *const nm[] = {"input1", "input2", "target"};
    uint32_t v[3];
    eir_status st = tensors(c, 3, nm, NULL, v);
    if (st) return st;
    const eir_tensor_meta *am = meta_of(c, v[0]), *bm = meta_of(c, v[1]), *tmeta = meta_of(c, v[2]);
    if (am->rank < 1 || am->rank > 2 || bm->rank != am->rank || tmeta->rank + 1 != am->rank ||
        am->sizes[0].value != bm->sizes[0].value || am->sizes[am->rank - 1].value != bm->sizes[am->rank - 1].value ||
        (am->rank == 2 && tmeta->sizes[0].value != am->sizes[0].value))
        return dc_refuse(c, "only [N, D] or [D] inputs of one shape and a target [N] or [] are decomposed");
    int64_t red;
    if ((st = reduction_of(c, &red))) return st;
    eir_arg margin;
    if (!scalar_arg(c, "margin", a_float(0.0), &margin)) return dc_refuse(c, "argument 'margin': expected a number");
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, v[0]);
    eir_dtype dt = am->dtype;
    uint32_t out = out_value(c);
    /* reduced over the last dimension: [N] or [] */
    uint32_t rr = am->rank - 1;
    int64_t one = (int64_t)rr, n = am->sizes[0].value, zero = 0;
    tm rm;
    dc_tm_new(&rm, am, dt, &n, rr);
    /* torch's EPSILON is the float 1e-12 */
    const double epsf = (double)1e-12f;
    uint32_t pr[3][2] = {{v[0], v[1]}, {v[0], v[0]}, {v[1], v[1]}}, sums[3];
    for (int k = 0; k < 3; k++) {
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(pr[k][0]), T(pr[k][1]));
        eir_named_arg si_[2] = {pos_arg("self", T(m)), pos_arg("dim", dc_a_ints(c, &one, 1))};
        sums[k] = dc_pb_emit_m(&b, "sum.dim_IntList", dt, 2, si_, &rm.m);
        if (k) sums[k] = dc_pb_b(&b, "add.Scalar", dt, T(sums[k]), a_float(epsf));
    }
    uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(sums[1]), T(sums[2]));
    uint32_t sq = dc_pb_u(&b, "sqrt.default", dt, m);
    uint32_t cs = dc_pb_b(&b, "div.Tensor", dt, T(sums[0]), T(sq));
    eir_named_arg z0[4] = {pos_arg("self", T(cs)), pos_arg("fill_value", a_int(0)), kw_arg("pin_memory", a_bool(false)),
                           kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    uint32_t zeros = dc_pb_emit(&b, "full_like.default", dt, 4, z0);
    eir_named_arg ei[6] = {pos_arg("size", dc_a_ints(c, &n, rr)), pos_arg("physical_layout", dc_a_ints(c, &zero, rr)),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                           kw_arg("device", dc_a_device(am)), kw_arg("pin_memory", a_bool(false))};
    uint32_t emp = dc_pb_emit_m(&b, "empty_permuted.default", dt, 6, ei, &rm.m);
    eir_named_arg oi[3] = {pos_arg("self", T(emp)), pos_arg("fill_value", a_int(1)), kw_arg("pin_memory", a_bool(false))};
    uint32_t ones = dc_pb_emit(&b, "full_like.default", dt, 3, oi);
    uint32_t pos = dc_pb_b(&b, "sub.Tensor", dt, T(ones), T(cs));
    uint32_t sb = dc_pb_b(&b, "sub.Scalar", dt, T(cs), margin);
    eir_named_arg ci[2] = {pos_arg("self", T(sb)), pos_arg("min", a_int(0))};
    uint32_t neg = dc_pb_emit(&b, "clamp.default", dt, 2, ci);
    uint32_t eq = dc_pb_b(&b, "eq.Scalar", EIR_BOOL, T(v[2]), a_int(1));
    uint32_t w = dc_pb_where(&b, dt, eq, pos, zeros);
    uint32_t eq1 = dc_pb_b(&b, "eq.Scalar", EIR_BOOL, T(v[2]), a_int(-1));
    uint32_t w1 = dc_pb_where(&b, dt, eq1, neg, zeros);
    uint32_t r = dc_pb_b(&b, "add.Tensor", dt, T(w), T(w1));
    r = reduce(&b, r, red);
    return dc_pb_finish(&b, out, r);
}

/* multi_margin_loss(x [C] / [N, C] (or 0-dim), target, p, margin, weight,
 * reduction) -> gather of the target's scores, sub, add, clamp, (mul:
 * p = 2), (index + mul: weight), arange + ne + where, then mean / sum + div
 * by C / mean.dim over the classes */
eir_status decomp_multi_margin(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t t = dc_tensor_of(c, "target"), w = dc_tensor_of(c, "weight");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (t == EIR_NO_VALUE) return dc_refuse(c, "argument 'target': expected a tensor");
    if (w == EIR_NO_VALUE && !is_none(dc_arg_named(c, "weight"))) return dc_refuse(c, "argument 'weight': expected a tensor");
    if (!is_fp(xm->dtype) || meta_of(c, out)->dtype != xm->dtype) return dc_refuse(c, "argument 'self': expected a floating tensor");
    if (w != EIR_NO_VALUE && (meta_of(c, w)->dtype != xm->dtype || meta_of(c, w)->rank != 1))
        return dc_refuse(c, "argument 'weight': expected a 1-d tensor of the input's dtype");
    if ((st = dc_pw_check_concrete(c))) return st;
    int64_t red, p = 1;
    if ((st = reduction_of(c, &red))) return st;
    if (!is_none(dc_arg_named(c, "p")) && (!int_of(dc_arg_named(c, "p"), &p) || (p != 1 && p != 2)))
        return dc_refuse(c, "argument 'p': expected 1 or 2");
    eir_arg margin;
    if (!scalar_arg(c, "margin", a_float(1.0), &margin)) return dc_refuse(c, "argument 'margin': expected a number");
    const eir_tensor_meta *tmeta = meta_of(c, t);
    if (xm->rank > 2 || tmeta->dtype != EIR_I64 || tmeta->rank > 1) return dc_refuse(c, "an input of rank above 2 or a target not int64 of rank <= 1");
    int64_t n = xm->rank == 2 ? xm->sizes[0].value : 1, k = xm->rank ? xm->sizes[xm->rank - 1].value : 1;
    if ((tmeta->rank ? tmeta->sizes[0].value : 1) != n) return dc_refuse(c, "argument 'target': expected %lld class indices", (long long)n);
    if (red == RED_NONE && xm->rank < 2) return dc_refuse(c, "reduction='none' of an input of rank %u", xm->rank);
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    eir_dtype dt = xm->dtype;
    int64_t nk[2] = {n, k}, n1[2] = {n, 1};
    uint32_t x2 = x, t2 = t;
    tm m2, t1;
    dc_tm_new(&m2, xm, dt, nk, 2);
    dc_tm_new(&t1, tmeta, EIR_I64, &n, 1);
    if (xm->rank == 0) {
        m2.m.storage_offset = xm->storage_offset;
        eir_named_arg vi[2] = {pos_arg("self", T(x)), pos_arg("size", dc_a_ints(c, nk, 2))};
        x2 = dc_pb_emit_m(&b, "view.default", dt, 2, vi, &m2.m);
    } else if (xm->rank == 1) {
        m2.st[1] = xm->strides[0];
        m2.st[0] = si(k * xm->strides[0].value);
        m2.m.storage_offset = xm->storage_offset;
        eir_named_arg ui[2] = {pos_arg("self", T(x)), pos_arg("dim", a_int(0))};
        x2 = dc_pb_emit_m(&b, "unsqueeze.default", dt, 2, ui, &m2.m);
    }
    if (xm->rank < 2 && tmeta->rank == 0) {
        t1.m.storage_offset = tmeta->storage_offset;
        eir_named_arg vi[2] = {pos_arg("self", T(t)), pos_arg("size", dc_a_ints(c, &n, 1))};
        t2 = dc_pb_emit_m(&b, "view.default", EIR_I64, 2, vi, &t1.m);
    }
    tm um, gm;
    dc_tm_new(&um, tmeta, EIR_I64, n1, 2);
    if (t2 == t && tmeta->rank == 1) {
        /* unsqueeze keeps the target's stride and offset */
        um.st[0] = tmeta->strides[0];
        um.m.storage_offset = tmeta->storage_offset;
    }
    dc_tm_new(&gm, xm, dt, n1, 2);
    eir_named_arg ui[2] = {pos_arg("self", T(t2)), pos_arg("dim", a_int(1))};
    uint32_t u = dc_pb_emit_m(&b, "unsqueeze.default", EIR_I64, 2, ui, &um.m);
    eir_named_arg gi[3] = {pos_arg("self", T(x2)), pos_arg("dim", a_int(1)), pos_arg("index", T(u))};
    uint32_t g = dc_pb_emit_m(&b, "gather.default", dt, 3, gi, &gm.m);
    uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, margin, T(g));
    uint32_t ad = dc_pb_b(&b, "add.Tensor", dt, T(sb), T(x2));
    eir_named_arg ci[2] = {pos_arg("self", T(ad)), pos_arg("min", a_int(0))};
    uint32_t z = dc_pb_emit(&b, "clamp.default", dt, 2, ci);
    if (p == 2) z = dc_pb_b(&b, "mul.Tensor", dt, T(z), T(z));
    if (w != EIR_NO_VALUE) {
        eir_arg items[1], il = {0};
        memset(items, 0, sizeof items);
        items[0].kind = EIR_ARG_OPTIONAL_TENSOR;
        items[0].value = u;
        il.kind = EIR_ARG_OPTIONAL_TENSORS;
        il.u.list.n = 1;
        il.u.list.items = items;
        eir_named_arg ii[2] = {pos_arg("self", T(w)), pos_arg("indices", il)};
        uint32_t iw = dc_pb_emit_m(&b, "index.Tensor", dt, 2, ii, &gm.m);
        z = dc_pb_b(&b, "mul.Tensor", dt, T(z), T(iw));
    }
    tm am;
    dc_tm_new(&am, xm, EIR_I64, &k, 1);
    eir_named_arg ai[5] = {pos_arg("start", a_int(0)), pos_arg("end", a_int(k)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm)),
                           kw_arg("pin_memory", a_bool(false))};
    uint32_t ar = dc_pb_emit_m(&b, "arange.start_step", EIR_I64, 5, ai, &am.m);
    uint32_t ne = dc_pb_b(&b, "ne.Tensor", EIR_BOOL, T(ar), T(u));
    uint32_t zero = dc_pb_scalar(&b, a_int(0), dt);
    uint32_t r = dc_pb_where(&b, dt, ne, z, zero);
    if (red == RED_NONE) {
        int64_t one = 1;
        eir_named_arg mi[2] = {pos_arg("self", T(r)), pos_arg("dim", dc_a_ints(c, &one, 1))};
        r = dc_pb_emit_m(&b, "mean.dim", dt, 2, mi, meta_of(c, out));
    } else if (red == RED_MEAN) {
        r = reduce(&b, r, RED_MEAN);
    } else {
        r = reduce(&b, r, RED_SUM);
        r = dc_pb_b(&b, "div.Tensor", dt, T(r), a_int(k));
    }
    return dc_pb_finish(&b, out, r);
}
