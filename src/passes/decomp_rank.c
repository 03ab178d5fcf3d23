/* decomp_rank.c — to-core rules for gradient (below) and linalg_matrix_rank (atol_rtol_float and
 * atol_rtol_tensor), as torch's composite: the tolerances as 0-d float64
 * tensors (full), the singular values (_linalg_svd; the absolute
 * eigenvalues of _linalg_eigh when hermitian), and the count of those above
 * max(atol, rtol * the largest). An empty input gives zeros of the batch's
 * shape (empty, full_like). */
#include <string.h>

#include "decomp_int.h"

static bool rk_number(const eir_arg *a, double *v) {
    if (!a) return false;
    if (a->kind == EIR_ARG_FLOAT) { *v = a->u.f; return true; }
    if (a->kind == EIR_ARG_INT) { *v = (double)a->u.i; return true; }
    return false;
}

/* full([], v, dtype=float64, layout, device[, pin_memory=False]); an int
 * fill value when `as_int` (torch's zeros) */
static eir_status rk_full(dc *c, const eir_tensor_meta *like, double v, bool as_int, bool pin, uint32_t *res) {
    eir_named_arg fi[6] = {pos_arg("size", dc_a_ints(c, NULL, 0)), pos_arg("fill_value", as_int ? a_int((int64_t)v) : a_float(v)),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_F64)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                           kw_arg("device", dc_a_device(like)), kw_arg("pin_memory", a_bool(false))};
    return sh_emit(c, "full.default", pin ? 6 : 5, fi, NULL, res);
}

eir_status decomp_matrix_rank(dc *c) {
    bool tensor_form = !strcmp(c->op, "aten.linalg_matrix_rank.atol_rtol_tensor");
    uint32_t a, out;
    eir_status st = dc_need_io(c, tensor_form ? "input" : "self", &a, &out);
    if (st) return st;
    const eir_tensor_meta *am = meta_of(c, a);
    if (am->dtype != EIR_F32 && am->dtype != EIR_F64) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (am->rank < 2 || !dc_meta_concrete_sizes(am)) return dc_refuse(c, "a batch of matrices of concrete size expected");
    bool herm = false;
    if (!dc_bool_arg(c, "hermitian", false, &herm)) return dc_refuse(c, "argument 'hermitian': expected a bool");
    int64_t m = am->sizes[am->rank - 2].value, n = am->sizes[am->rank - 1].value, numel = 1;
    for (uint32_t i = 0; i < am->rank; i++) numel *= am->sizes[i].value;
    double eps = am->dtype == EIR_F32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
    double dflt = eps * (double)(m > n ? m : n);
    const eir_arg *aa = dc_arg_named(c, "atol"), *ra = dc_arg_named(c, "rtol");
    double atol = 0.0, rtol = dflt;
    if (tensor_form) {
        if (!is_none(aa) || !is_none(ra))
            return dc_refuse(c, "tolerance tensors (only their absence, the default tolerances, is decomposed)");
    } else {
        if ((!is_none(aa) && !rk_number(aa, &atol)) || (!is_none(ra) && !rk_number(ra, &rtol)))
            return dc_refuse(c, "arguments 'atol', 'rtol': expected numbers or None");
        if (is_none(ra)) rtol = atol > 0 ? 0.0 : dflt;
    }
    if (c->dry) return EIR_OK;
    uint32_t res;
    if (numel == 0) {
        /* empty(batch sizes, int64).fill_(0) */
        int64_t bs[MAXR];
        for (uint32_t i = 0; i + 2 < am->rank; i++) bs[i] = am->sizes[i].value;
        uint32_t e;
        eir_named_arg ei[4] = {pos_arg("size", dc_a_ints(c, bs, am->rank - 2)),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_I64)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", dc_a_device(am))};
        if ((st = sh_emit(c, "empty.memory_format", 4, ei, meta_of(c, out), &e))) return st;
        eir_named_arg fi[3] = {pos_arg("self", a_tensor(e)), pos_arg("fill_value", a_int(0)),
                               kw_arg("pin_memory", a_bool(false))};
        if ((st = sh_emit(c, "full_like.default", 3, fi, meta_of(c, out), &res))) return st;
        return finish(c, out, res);
    }
    eir_tensor_meta like = *am;
    uint32_t at, rt, s, smax, ur, mul, ua, mx, gt;
    if ((st = rk_full(c, &like, atol, tensor_form, tensor_form, &at))) return st;
    if ((st = rk_full(c, &like, rtol, false, false, &rt))) return st;
    eir_named_arg si_[1] = {pos_arg("A", a_tensor(a))};
    if (!herm) {
        uint32_t sv[3];
        if ((st = sh_emit_n(c, "_linalg_svd.default", 1, si_, 3, false, NULL, sv))) return st;
        s = sv[1];
        if ((st = sh_slice(c, s, -1, 0, 1, &smax))) return st;
    } else {
        uint32_t ev[2], w;
        if ((st = sh_emit_n(c, "_linalg_eigh.default", 1, si_, 2, false, NULL, ev))) return st;
        eir_named_arg bi[1] = {pos_arg("self", a_tensor(ev[0]))};
        if ((st = sh_emit(c, "abs.default", 1, bi, NULL, &w))) return st;
        s = w;
        int64_t last = -1;
        eir_named_arg mi[3] = {pos_arg("self", a_tensor(s)), pos_arg("dim", dc_a_ints(c, &last, 1)),
                               pos_arg("keepdim", a_bool(true))};
        if ((st = sh_emit(c, "amax.default", 3, mi, NULL, &smax))) return st;
    }
    if ((st = sh_unsqueeze(c, rt, -1, NULL, &ur))) return st;
    if ((st = sh_binary(c, "mul.Tensor", ur, a_tensor(smax), NULL, &mul))) return st;
    if ((st = sh_unsqueeze(c, at, -1, NULL, &ua))) return st;
    if ((st = sh_binary(c, "maximum.default", ua, a_tensor(mul), NULL, &mx))) return st;
    if ((st = sh_binary(c, "gt.Tensor", s, a_tensor(mx), NULL, &gt))) return st;
    int64_t last = -1;
    if ((st = sh_sum(c, gt, &last, 1, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ---- gradient ---- */

/* slice.Tensor(x, d, start[, end]) (end left out when has_end is false, as
 * torch writes x[start:]) */
static eir_status gr_slice(dc *c, uint32_t x, int64_t d, int64_t s, bool has_end, int64_t e, uint32_t *res) {
    eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(d)), pos_arg("start", a_int(s)),
                            pos_arg("end", a_int(e))};
    return sh_emit(c, "slice.Tensor", has_end ? 4 : 3, si_, NULL, res);
}

static eir_status gr_bin(dc *c, const char *op, uint32_t a, eir_arg b, uint32_t *res) {
    return sh_binary(c, op, a, b, NULL, res);
}

/* (x[hi] - x[lo]) with the slices as torch writes them */
static eir_status gr_diff(dc *c, uint32_t x, int64_t d, int64_t s1, bool e1, int64_t t1, int64_t s2, bool e2, int64_t t2,
                          uint32_t *res) {
    uint32_t a, b;
    eir_status st;
    if ((st = gr_slice(c, x, d, s1, e1, t1, &a)) || (st = gr_slice(c, x, d, s2, e2, t2, &b))) return st;
    return gr_bin(c, "sub.Tensor", b, a_tensor(a), res);
}

/* one dim of a gradient with a scalar spacing h: torch's
 * gradient_helper_float (center differences / h / 2, edges of order 1 or 2) */
static eir_status gr_scalar(dc *c, uint32_t x, int64_t d, eir_arg h, int64_t order, uint32_t *res) {
    uint32_t ct, cd, pre, app, half, parts[3];
    eir_status st;
    if ((st = gr_diff(c, x, d, 0, true, -2, 2, false, 0, &ct)) || (st = gr_bin(c, "div.Scalar", ct, h, &cd))) return st;
    if (order == 1) {
        uint32_t t;
        if ((st = gr_diff(c, x, d, 0, true, 1, 1, true, 2, &t)) || (st = gr_bin(c, "div.Scalar", t, h, &pre))) return st;
        if ((st = gr_diff(c, x, d, -2, true, -1, -1, false, 0, &t)) || (st = gr_bin(c, "div.Scalar", t, h, &app)))
            return st;
    } else {
        uint32_t s0, s1, s2, m0, m1, m2, ad, sb;
        if ((st = gr_slice(c, x, d, 2, true, 3, &s2)) || (st = gr_bin(c, "mul.Scalar", s2, a_float(0.5), &m2)) ||
            (st = gr_slice(c, x, d, 1, true, 2, &s1)) || (st = gr_bin(c, "mul.Scalar", s1, a_int(2), &m1)) ||
            (st = gr_slice(c, x, d, 0, true, 1, &s0)) || (st = gr_bin(c, "mul.Scalar", s0, a_float(-1.5), &m0)) ||
            (st = gr_bin(c, "add.Tensor", m0, a_tensor(m1), &ad)) || (st = gr_bin(c, "sub.Tensor", ad, a_tensor(m2), &sb)) ||
            (st = gr_bin(c, "div.Scalar", sb, h, &pre)))
            return st;
        if ((st = gr_slice(c, x, d, -1, false, 0, &s2)) || (st = gr_bin(c, "mul.Scalar", s2, a_float(1.5), &m2)) ||
            (st = gr_slice(c, x, d, -2, true, -1, &s1)) || (st = gr_bin(c, "mul.Scalar", s1, a_int(2), &m1)) ||
            (st = gr_slice(c, x, d, -3, true, -2, &s0)) || (st = gr_bin(c, "mul.Scalar", s0, a_float(0.5), &m0)) ||
            (st = gr_bin(c, "sub.Tensor", m0, a_tensor(m1), &sb)) || (st = gr_bin(c, "add.Tensor", sb, a_tensor(m2), &ad)) ||
            (st = gr_bin(c, "div.Scalar", ad, h, &app)))
            return st;
    }
    if ((st = gr_bin(c, "div.Scalar", cd, a_int(2), &half))) return st;
    parts[0] = pre, parts[1] = half, parts[2] = app;
    eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, parts, 3)), pos_arg("dim", a_int(d))};
    return sh_emit(c, "cat.default", d ? 2 : 1, ci, NULL, res);
}

/* one dim of a gradient along coordinates co (1-d, edge order 1): torch's
 * gradient_helper (non-uniform center differences, the edges divided by
 * the first and last steps) */
static eir_status gr_coords(dc *c, uint32_t x, int64_t d, uint32_t co, uint32_t rank, int64_t len, uint32_t *res) {
    uint32_t dx, a, b, k[3], cv[3], t1, t2, t3, parts[3];
    eir_status st;
    if ((st = gr_diff(c, co, 0, 0, true, len - 1, 1, true, len, &dx))) return st;
    if ((st = gr_slice(c, dx, 0, 0, true, -1, &a)) || (st = gr_slice(c, dx, 0, 1, false, 0, &b))) return st;
    int64_t shape[MAXR];
    for (uint32_t i = 0; i < rank; i++) shape[i] = (int64_t)i == d ? -1 : 1;
    /* -b / (a * (a + b)), (b - a) / (a * b), a / (b * (a + b)) */
    uint32_t s, m, n;
    if ((st = gr_bin(c, "add.Tensor", a, a_tensor(b), &s)) || (st = gr_bin(c, "mul.Tensor", a, a_tensor(s), &m))) return st;
    eir_named_arg ni[1] = {pos_arg("self", a_tensor(b))};
    if ((st = sh_emit(c, "neg.default", 1, ni, NULL, &n)) || (st = gr_bin(c, "div.Tensor", n, a_tensor(m), &k[0]))) return st;
    if ((st = sh_view(c, k[0], shape, rank, NULL, &cv[0]))) return st;
    if ((st = gr_bin(c, "mul.Tensor", a, a_tensor(b), &m)) || (st = gr_bin(c, "sub.Tensor", b, a_tensor(a), &n)) ||
        (st = gr_bin(c, "div.Tensor", n, a_tensor(m), &k[1])) || (st = sh_view(c, k[1], shape, rank, NULL, &cv[1])))
        return st;
    if ((st = gr_bin(c, "add.Tensor", a, a_tensor(b), &s)) || (st = gr_bin(c, "mul.Tensor", b, a_tensor(s), &m)) ||
        (st = gr_bin(c, "div.Tensor", a, a_tensor(m), &k[2])) || (st = sh_view(c, k[2], shape, rank, NULL, &cv[2])))
        return st;
    uint32_t x2, x1, x0, m2, m1, m0, ad;
    if ((st = gr_slice(c, x, d, 2, false, 0, &x2)) || (st = gr_bin(c, "mul.Tensor", cv[2], a_tensor(x2), &m2)) ||
        (st = gr_slice(c, x, d, 1, true, -1, &x1)) || (st = gr_bin(c, "mul.Tensor", cv[1], a_tensor(x1), &m1)) ||
        (st = gr_slice(c, x, d, 0, true, -2, &x0)) || (st = gr_bin(c, "mul.Tensor", cv[0], a_tensor(x0), &m0)) ||
        (st = gr_bin(c, "add.Tensor", m0, a_tensor(m1), &ad)) || (st = gr_bin(c, "add.Tensor", ad, a_tensor(m2), &parts[1])))
        return st;
    eir_named_arg s0[3] = {pos_arg("self", a_tensor(dx)), pos_arg("dim", a_int(0)), pos_arg("index", a_int(0))};
    if ((st = sh_emit(c, "select.int", 3, s0, NULL, &t1)) || (st = gr_diff(c, x, d, 0, true, 1, 1, true, 2, &t2)) ||
        (st = gr_bin(c, "div.Tensor", t2, a_tensor(t1), &parts[0])))
        return st;
    s0[2] = pos_arg("index", a_int(-1));
    if ((st = sh_emit(c, "select.int", 3, s0, NULL, &t1)) || (st = gr_diff(c, x, d, -2, true, -1, -1, false, 0, &t3)) ||
        (st = gr_bin(c, "div.Tensor", t3, a_tensor(t1), &parts[2])))
        return st;
    eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, parts, 3)), pos_arg("dim", a_int(d))};
    return sh_emit(c, "cat.default", d ? 2 : 1, ci, NULL, res);
}

/* gradient (scalarint, scalararray, scalarrayint, scalarrayarray, array,
 * tensorarray, tensorarrayint): per dim, torch's finite differences */
eir_status decomp_gradient(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (xm->dtype != EIR_F32 && xm->dtype != EIR_F64) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (!dc_meta_concrete_sizes(xm) || xm->rank == 0 || xm->rank > MAXR) return dc_refuse(c, "an input of symbolic size or rank 0");
    uint32_t rank = xm->rank;
    int64_t sz[MAXR];
    for (uint32_t i = 0; i < rank; i++) sz[i] = xm->sizes[i].value;
    /* outputs: one per dim */
    uint32_t outs[MAXR], no = 0;
    for (uint32_t i = 0; i < c->src.num_outputs; i++) {
        const eir_arg *o = &c->src.outputs[i];
        if (o->kind == EIR_ARG_TENSORS && o->u.list.n <= MAXR - no)
            for (uint32_t j = 0; j < o->u.list.n; j++) outs[no++] = o->u.list.items[j].value;
        else if (o->kind == EIR_ARG_TENSOR && no < MAXR)
            outs[no++] = o->value;
        else
            return dc_refuse(c, "expected tensor outputs");
    }
    int64_t dims[MAXR], order = 1;
    uint32_t nd = 0;
    const eir_arg *da = dc_arg_named(c, "dim");
    if (is_none(da)) {
        for (uint32_t i = 0; i < rank; i++) dims[nd++] = i;
    } else if (!dc_ints_of(da, dims, MAXR, &nd))
        return dc_refuse(c, "argument 'dim': expected ints");
    for (uint32_t i = 0; i < nd; i++) {
        dims[i] = wrap_dim(dims[i], rank);
        if (dims[i] < 0 || dims[i] >= (int64_t)rank) return dc_refuse(c, "argument 'dim': out of range");
    }
    const eir_arg *ea = dc_arg_named(c, "edge_order");
    if (!is_none(ea) && !int_of(ea, &order)) return dc_refuse(c, "argument 'edge_order': expected an int");
    if (order != 1 && order != 2) return dc_refuse(c, "edge_order %lld", (long long)order);
    if (no != nd) return dc_refuse(c, "%u outputs for %u dims", no, nd);
    for (uint32_t i = 0; i < nd; i++)
        if (sz[dims[i]] < order + 1) return dc_refuse(c, "dim %lld of size %lld for edge_order %lld", (long long)dims[i],
                                                     (long long)sz[dims[i]], (long long)order);
    /* spacing: None (1.0), a number, numbers per dim, or coordinates per dim */
    eir_arg h[MAXR];
    uint32_t co[MAXR], nco = 0;
    const eir_arg *sa = dc_arg_named(c, "spacing");
    bool coords = sa && sa->kind == EIR_ARG_TENSORS;
    if (coords) {
        if (!sh_tensor_list(c, "spacing", co, &nco) || nco != nd) return dc_refuse(c, "argument 'spacing': one tensor per dim expected");
        if (order != 1) return dc_refuse(c, "coordinates with edge_order 2");
        for (uint32_t i = 0; i < nd; i++) {
            const eir_tensor_meta *cm = meta_of(c, co[i]);
            if (cm->rank != 1 || cm->sizes[0].is_expr || cm->sizes[0].value != sz[dims[i]] || cm->dtype != xm->dtype)
                return dc_refuse(c, "argument 'spacing': coordinates of the dim's size and the input's dtype expected");
        }
    } else if (is_none(sa)) {
        for (uint32_t i = 0; i < nd; i++) h[i] = a_float(1.0);
    } else if (sa->kind == EIR_ARG_INT || sa->kind == EIR_ARG_FLOAT) {
        for (uint32_t i = 0; i < nd; i++) h[i] = *sa;
    } else if ((sa->kind == EIR_ARG_FLOATS || sa->kind == EIR_ARG_INTS) && sa->u.list.n == nd) {
        for (uint32_t i = 0; i < nd; i++) {
            h[i] = sa->u.list.items[i];
            if (h[i].kind != EIR_ARG_INT && h[i].kind != EIR_ARG_FLOAT) return dc_refuse(c, "argument 'spacing': numbers expected");
        }
    } else
        return dc_refuse(c, "argument 'spacing': None, a number, one number or one tensor per dim expected");
    if (c->dry) return EIR_OK;
    eir_status st;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t r;
        st = coords ? gr_coords(c, x, dims[i], co[i], rank, sz[dims[i]], &r) : gr_scalar(c, x, dims[i], h[i], order, &r);
        if (st || (st = finish(c, outs[i], r))) return st;
    }
    return EIR_OK;
}
