/* decomp_misc.c — to-core rules for ranges with tensor bounds,
 * single-element contractions, dropout backward, masked accumulation and
 * quantiles, each emitting the nodes torch
 * 2.13's ep.run_decompositions() writes for the operator: the Tensor
 * overloads of linspace / logspace, tensordot to a single element,
 * native_dropout_backward, _unsafe_masked_index_put_accumulate,
 * quantile.scalar. Intermediate nodes get the metadata
 * eir's shape inference gives them; the last node of a decomposition takes
 * the replaced node's recorded metadata. */
#include <math.h>
#include <string.h>

#include "decomp_int.h"

static bool mi_float(eir_dtype dt) { return dt == EIR_F32 || dt == EIR_F64 || dt == EIR_F16 || dt == EIR_BF16; }

static bool mi_int(eir_dtype dt) {
    return dt == EIR_I64 || dt == EIR_I32 || dt == EIR_I16 || dt == EIR_I8 || dt == EIR_U8;
}

static bool mi_number(const eir_arg *a) { return a && (a->kind == EIR_ARG_INT || a->kind == EIR_ARG_FLOAT); }

static double mi_num(const eir_arg *a) { return a->kind == EIR_ARG_FLOAT ? a->u.f : (double)a->u.i; }

static eir_status mi_to(dc *c, uint32_t x, eir_dtype dt, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt))};
    return sh_emit(c, "_to_copy.default", 2, ti, last, res);
}

/* size, then dtype / layout / device / pin_memory, of a factory node */
static eir_status mi_factory(dc *c, const char *target, int64_t n, const eir_arg *fill, eir_dtype dt,
                             const eir_tensor_meta *like, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg fi[6];
    uint32_t k = 0;
    fi[k++] = pos_arg("size", dc_a_ints(c, &n, 1));
    if (fill) fi[k++] = pos_arg("fill_value", *fill);
    fi[k++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt));
    fi[k++] = kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED));
    fi[k++] = kw_arg("device", dc_a_device(like));
    fi[k++] = kw_arg("pin_memory", a_bool(false));
    return sh_emit(c, target, k, fi, last, res);
}

/* ---- linspace / logspace with tensor bounds ---- */

/* linspace.Tensor_Tensor / Tensor_Scalar / Scalar_Tensor and the logspace
 * forms -> torch._refs.linspace: tensor bounds (0-d) in float64, then
 * where(arange < steps / 2, start + step * arange, end - step * (steps - 1
 * - arange)) with step = (end - start) / (steps - 1), the arange cast to
 * the computation dtype (int64 for integer results); logspace: that in
 * float64, pow(base, .) and the result's dtype (integer results take
 * tensor bounds in their dtype first). steps 0 and 1: full, or empty +
 * copy of a tensor start. Integer results of more than one step are
 * refused: torch's decomposition rounds its float64 lerp where linspace
 * computes in integers, and the values differ. */
eir_status decomp_linspace_tensor(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    const eir_tensor_meta *om = meta_of(c, out);
    bool logsp = !strncmp(c->op, "aten.logspace", 13);
    const eir_arg *sa = dc_arg_named(c, "start"), *ea = dc_arg_named(c, "end"), *ba = dc_arg_named(c, "base");
    int64_t steps;
    if (!int_of(dc_arg_named(c, "steps"), &steps) || steps < 0)
        return dc_refuse(c, "argument 'steps': expected a non-negative int");
    const eir_arg *be[2] = {sa, ea};
    static const char *const NAMES[2] = {"start", "end"};
    for (int i = 0; i < 2; i++) {
        const eir_arg *a = be[i];
        if (a && a->kind == EIR_ARG_TENSOR && a->value < c->g->num_values) {
            const eir_tensor_meta *m = meta_of(c, a->value);
            if (m->rank != 0) return dc_refuse(c, "argument '%s': expected a 0-d tensor", NAMES[i]);
            if (!mi_float(m->dtype) && !mi_int(m->dtype) && m->dtype != EIR_BOOL)
                return dc_refuse(c, "argument '%s': a tensor of dtype other than a real number's", NAMES[i]);
        } else if (!mi_number(a))
            return dc_refuse(c, "argument '%s': expected a number or a 0-d tensor", NAMES[i]);
    }
    if (logsp && !is_none(ba) && !mi_number(ba)) return dc_refuse(c, "argument 'base': expected a number");
    if (logsp && !is_none(ba) && mi_num(ba) < 0) return dc_refuse(c, "a negative base (torch's decomposition refuses it)");
    if (!mi_float(om->dtype) && !(mi_int(om->dtype) && steps < 2))
        return dc_refuse(c, "a result of dtype other than a float's (torch's decomposition computes other values "
                            "than linspace for integer results)");
    if (om->rank != 1 || !dc_meta_concrete_sizes(om)) return dc_refuse(c, "expected a 1-d result of concrete size");
    if (c->dry) return EIR_OK;
    eir_status st;
    /* the bounds: tensors converted, numbers as they are */
    eir_dtype ldt = logsp ? EIR_F64 : om->dtype;
    eir_arg b[2];
    bool is_t[2];
    for (int i = 0; i < 2; i++) {
        is_t[i] = be[i]->kind == EIR_ARG_TENSOR;
        b[i] = *be[i];
        if (logsp && mi_int(om->dtype)) {
            if (is_t[i] && meta_of(c, b[i].value)->dtype != om->dtype) {
                uint32_t v;
                if ((st = mi_to(c, b[i].value, om->dtype, NULL, &v))) return st;
                b[i] = a_tensor(v);
            } else if (!is_t[i] && b[i].kind == EIR_ARG_FLOAT)
                b[i] = a_int((int64_t)b[i].u.f);
        }
        if (is_t[i] && meta_of(c, b[i].value)->dtype != EIR_F64) {
            uint32_t v;
            if ((st = mi_to(c, b[i].value, EIR_F64, NULL, &v))) return st;
            b[i] = a_tensor(v);
        }
    }
    const eir_tensor_meta *lin_last = logsp ? NULL : om;
    uint32_t w;
    if (steps == 0) {
        eir_arg z = a_int(0);
        if ((st = mi_factory(c, "full.default", 0, &z, ldt, om, lin_last, &w))) return st;
    } else if (steps == 1 && is_t[0]) {
        uint32_t e;
        if ((st = mi_factory(c, "empty.memory_format", 1, NULL, ldt, om, NULL, &e))) return st;
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(e)), pos_arg("src", b[0])};
        if ((st = sh_emit(c, "copy.default", 2, ci, lin_last, &w))) return st;
    } else if (steps == 1) {
        if ((st = mi_factory(c, "full.default", 1, &b[0], ldt, om, lin_last, &w))) return st;
    } else {
        /* the computation dtype of the arange: int64 for integer results,
         * float32 for 16-bit floats */
        eir_dtype cdt = mi_int(ldt) ? EIR_I64 : (ldt == EIR_F16 || ldt == EIR_BF16) ? EIR_F32 : ldt;
        uint32_t ar, sub, div, lt, m0, add, r, m1, s1;
        if ((st = sh_arange(c, 0, steps, EIR_DTYPE_UNKNOWN, om, &ar))) return st;
        eir_named_arg si_[2] = {pos_arg("self", b[1]), pos_arg("other", b[0])};
        if ((st = sh_emit(c, "sub.Tensor", 2, si_, NULL, &sub))) return st;
        if ((st = sh_binary(c, "div.Tensor", sub, a_int(steps - 1), NULL, &div))) return st;
        if ((st = sh_binary(c, "lt.Scalar", ar, a_float((double)steps / 2), NULL, &lt))) return st;
        uint32_t cr = ar;
        if (cdt != EIR_I64 && (st = mi_to(c, ar, cdt, NULL, &cr))) return st;
        if ((st = sh_binary(c, "mul.Tensor", div, a_tensor(cr), NULL, &m0))) return st;
        if (is_t[0]) {
            eir_named_arg ai[2] = {pos_arg("self", b[0]), pos_arg("other", a_tensor(m0))};
            if ((st = sh_emit(c, "add.Tensor", 2, ai, NULL, &add))) return st;
        } else if ((st = sh_binary(c, "add.Tensor", m0, b[0], NULL, &add)))
            return st;
        eir_named_arg ri[2] = {pos_arg("self", a_int(steps - 1)), pos_arg("other", a_tensor(ar))};
        if ((st = sh_emit(c, "sub.Tensor", 2, ri, NULL, &r))) return st;
        if (cdt != EIR_I64 && (st = mi_to(c, r, cdt, NULL, &r))) return st;
        if ((st = sh_binary(c, "mul.Tensor", div, a_tensor(r), NULL, &m1))) return st;
        eir_named_arg ei[2] = {pos_arg("self", b[1]), pos_arg("other", a_tensor(m1))};
        if ((st = sh_emit(c, "sub.Tensor", 2, ei, NULL, &s1))) return st;
        eir_named_arg wi[3] = {pos_arg("condition", a_tensor(lt)), pos_arg("self", a_tensor(add)),
                               pos_arg("other", a_tensor(s1))};
        if ((st = sh_emit(c, "where.self", 3, wi, NULL, &w))) return st;
        if (meta_of(c, w)->dtype != ldt && (st = mi_to(c, w, ldt, lin_last, &w))) return st;
    }
    if (logsp) {
        eir_named_arg pi[2] = {pos_arg("self", is_none(ba) ? a_int(10) : *ba), pos_arg("exponent", a_tensor(w))};
        if ((st = sh_emit(c, "pow.Scalar", 2, pi, NULL, &w))) return st;
        if (meta_of(c, w)->dtype != om->dtype && (st = mi_to(c, w, om->dtype, om, &w))) return st;
    }
    return finish(c, out, w);
}

/* ---- tensordot to a single element ---- */

/* tensordot whose free dims all have size 1: both operands permuted (free
 * dims of a first, then the contracted ones; b's contracted dims first);
 * one contracted dim: b and a reshaped to 1-d, a * b, sum, view; several:
 * b and a squeezed (squeeze.dims over every dim), a * b, sum in the
 * result's dtype, view. As torch's run_decompositions() writes it. */
eir_status decomp_tensordot_single(dc *c, uint32_t a, uint32_t b, uint32_t out, const int64_t *d1, const int64_t *d2,
                                   uint32_t n) {
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b), *om = meta_of(c, out);
    if (am->rank > MAXR || bm->rank > MAXR || om->rank > MAXR || n == 0)
        return dc_refuse(c, "operands and result of rank up to %d expected", MAXR);
    if (c->dry) return EIR_OK;
    bool c1[MAXR] = {0}, c2[MAXR] = {0};
    int64_t csize = 1;
    for (uint32_t i = 0; i < n; i++) {
        c1[wrap_dim(d1[i], am->rank)] = c2[wrap_dim(d2[i], bm->rank)] = true;
        csize *= am->sizes[wrap_dim(d1[i], am->rank)].value;
    }
    int64_t p1[MAXR], p2[MAXR];
    uint32_t k1 = 0, k2 = 0;
    for (uint32_t j = 0; j < am->rank; j++)
        if (!c1[j]) p1[k1++] = j;
    for (uint32_t i = 0; i < n; i++) p1[k1++] = d1[i];
    for (uint32_t i = 0; i < n; i++) p2[k2++] = d2[i];
    for (uint32_t j = 0; j < bm->rank; j++)
        if (!c2[j]) p2[k2++] = j;
    eir_status st;
    uint32_t pa, pbv, va, vb, m, s, res;
    if ((st = sh_permute(c, a, p1, k1, NULL, &pa))) return st;
    if ((st = sh_permute(c, b, p2, k2, NULL, &pbv))) return st;
    if (n == 1) {
        vb = pbv, va = pa;
        if (bm->rank != 1 && (st = sh_reshape(c, pbv, &csize, 1, NULL, &vb))) return st;
        if (am->rank != 1 && (st = sh_reshape(c, pa, &csize, 1, NULL, &va))) return st;
        if ((st = sh_binary(c, "mul.Tensor", va, a_tensor(vb), NULL, &m))) return st;
        if ((st = sh_sum(c, m, NULL, 0, NULL, &s))) return st;
    } else {
        int64_t all[MAXR];
        for (uint32_t j = 0; j < MAXR; j++) all[j] = j;
        eir_named_arg qb[2] = {pos_arg("self", a_tensor(pbv)), pos_arg("dim", dc_a_ints(c, all, bm->rank))};
        if ((st = sh_emit(c, "squeeze.dims", 2, qb, NULL, &vb))) return st;
        eir_named_arg qa[2] = {pos_arg("self", a_tensor(pa)), pos_arg("dim", dc_a_ints(c, all, am->rank))};
        if ((st = sh_emit(c, "squeeze.dims", 2, qa, NULL, &va))) return st;
        if ((st = sh_binary(c, "mul.Tensor", va, a_tensor(vb), NULL, &m))) return st;
        eir_named_arg si_[3] = {pos_arg("self", a_tensor(m)), pos_arg("dim", dc_a_ints(c, NULL, 0)),
                                kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype))};
        if ((st = sh_emit(c, "sum.dim_IntList", 3, si_, NULL, &s))) return st;
    }
    int64_t osz[MAXR];
    for (uint32_t j = 0; j < om->rank; j++) osz[j] = om->sizes[j].value;
    if ((st = sh_view(c, s, osz, om->rank, om, &res))) return st;
    return finish(c, out, res);
}

/* ---- dropout backward, masked accumulation ---- */

/* native_dropout_backward(grad, mask, scale) -> grad * (mask converted to
 * grad's dtype * scale), cloned contiguous */
eir_status decomp_dropout_backward(dc *c) {
    uint32_t g, out, mask = dc_tensor_of(c, "mask");
    eir_status st = dc_need_io(c, "grad_output", &g, &out);
    if (st) return st;
    const eir_arg *sa = dc_arg_named(c, "scale");
    if (mask == EIR_NO_VALUE) return dc_refuse(c, "argument 'mask': expected a tensor");
    if (!mi_number(sa)) return dc_refuse(c, "argument 'scale': expected a number");
    const eir_tensor_meta *gm = meta_of(c, g);
    if (!mi_float(gm->dtype)) return dc_refuse(c, "argument 'grad_output': expected a floating-point tensor");
    if (c->dry) return EIR_OK;
    uint32_t t, m0, m1, res;
    eir_named_arg ti[4] = {pos_arg("self", a_tensor(mask)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, gm->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(gm))};
    if ((st = sh_emit(c, "_to_copy.default", 4, ti, NULL, &t))) return st;
    if ((st = sh_binary(c, "mul.Tensor", t, *sa, NULL, &m0))) return st;
    if ((st = sh_binary(c, "mul.Tensor", g, a_tensor(m0), NULL, &m1))) return st;
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(m1)), kw_arg("memory_format", sh_a_mf_contig())};
    if ((st = sh_emit(c, "clone.default", 2, ci, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* _unsafe_masked_index_put_accumulate(x, mask, indices, values) -> each
 * index clamped to [-size, size - 1] of its dim, where(~mask, 0, values),
 * index_put(x, indices, ., accumulate=True) */
eir_status decomp_masked_index_put(dc *c) {
    uint32_t x, out, mask = dc_tensor_of(c, "mask"), vals = dc_tensor_of(c, "values");
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_arg *il = dc_arg_named(c, "indices");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (mask == EIR_NO_VALUE || meta_of(c, mask)->dtype != EIR_BOOL) return dc_refuse(c, "argument 'mask': expected a bool tensor");
    if (vals == EIR_NO_VALUE) return dc_refuse(c, "argument 'values': expected a tensor");
    if (!il || (il->kind != EIR_ARG_OPTIONAL_TENSORS && il->kind != EIR_ARG_TENSORS) || il->u.list.n > xm->rank ||
        il->u.list.n > MAXR)
        return dc_refuse(c, "argument 'indices': expected at most one optional tensor per dim");
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "input of symbolic size (not decomposed)");
    uint32_t n = il->u.list.n, idx[MAXR];
    for (uint32_t i = 0; i < n; i++) {
        const eir_arg *a = &il->u.list.items[i];
        idx[i] = is_none(a) ? EIR_NO_VALUE : a->value;
        if (idx[i] != EIR_NO_VALUE && (idx[i] >= c->g->num_values ||
                                       (meta_of(c, idx[i])->dtype != EIR_I64 && meta_of(c, idx[i])->dtype != EIR_I32)))
            return dc_refuse(c, "argument 'indices': item %u is not an int64 or int32 tensor", i);
    }
    if (c->dry) return EIR_OK;
    for (uint32_t i = 0; i < n; i++) {
        if (idx[i] == EIR_NO_VALUE) continue;
        int64_t s = xm->sizes[i].value;
        eir_named_arg ci[3] = {pos_arg("self", a_tensor(idx[i])), pos_arg("min", a_int(-s)), pos_arg("max", a_int(s - 1))};
        if ((st = sh_emit(c, "clamp.default", 3, ci, NULL, &idx[i]))) return st;
    }
    uint32_t nm, z, w, res;
    eir_named_arg ni[1] = {pos_arg("self", a_tensor(mask))};
    if ((st = sh_emit(c, "bitwise_not.default", 1, ni, NULL, &nm))) return st;
    const eir_tensor_meta *vm = meta_of(c, vals);
    eir_named_arg zi[4] = {pos_arg("s", a_float(0.0)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, vm->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(vm))};
    if ((st = sh_emit(c, "scalar_tensor.default", 4, zi, NULL, &z))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(nm)), pos_arg("self", a_tensor(z)), pos_arg("other", a_tensor(vals))};
    if ((st = sh_emit(c, "where.self", 3, wi, NULL, &w))) return st;
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = n;
    l.u.list.items = &c->pool[c->npool];
    for (uint32_t i = 0; i < n; i++) c->pool[c->npool++] = idx[i] == EIR_NO_VALUE ? a_none() : a_tensor(idx[i]);
    eir_named_arg pi[4] = {pos_arg("self", a_tensor(x)), pos_arg("indices", l), pos_arg("values", a_tensor(w)),
                           pos_arg("accumulate", a_bool(true))};
    if ((st = sh_emit(c, "index_put.default", 4, pi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ---- quantile ---- */

static eir_status mi_scalar_tensor(dc *c, eir_arg v, const eir_tensor_meta *like, uint32_t *res) {
    eir_named_arg si_[4] = {pos_arg("s", v), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, like->dtype)),
                            kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(like))};
    return sh_emit(c, "scalar_tensor.default", 4, si_, NULL, res);
}

static eir_status mi_to_long(dc *c, uint32_t x, const eir_tensor_meta *like, uint32_t *res) {
    eir_named_arg ti[4] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_I64)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(like))};
    return sh_emit(c, "_to_copy.default", 4, ti, NULL, res);
}

static eir_status mi_gather(dc *c, uint32_t x, uint32_t idx, uint32_t *res) {
    eir_named_arg gi[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(-1)), pos_arg("index", a_tensor(idx))};
    return sh_emit(c, "gather.default", 3, gi, NULL, res);
}

/* quantile.scalar / nanquantile.scalar(x, q, dim, keepdim, interpolation 'linear' or
 * 'midpoint') -> ATen's quantile_impl as torch's run_decompositions()
 * writes it: x flattened (no dim), as it is (dim the last), or unsqueezed
 * and the dim swapped with the new last one; sort; viewed to (*other dims,
 * n); ranks q * (n - 1), n - 1 where a row holds a NaN (nanquantile:
 * q * (count of non-NaN - 1), 0 where negative); the values at
 * the ranks' floor and ceil gathered and lerped (weights: the fraction, or
 * 0.5 for midpoint; torch's lerp decomposition); the last dim squeezed. */
eir_status decomp_quantile(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    bool nanq = !strncmp(c->op, "aten.nanquantile", 16);
    const eir_arg *qa = dc_arg_named(c, "q"), *da = dc_arg_named(c, "dim"), *ia = dc_arg_named(c, "interpolation");
    if (!mi_number(qa)) return dc_refuse(c, "argument 'q': expected a number");
    double q = mi_num(qa);
    if (!(q >= 0 && q <= 1)) return dc_refuse(c, "argument 'q': %g is not in [0, 1]", q);
    bool keep = false, have_dim = !is_none(da);
    int64_t dim = 0;
    if (have_dim && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int or None");
    if (!dc_bool_arg(c, "keepdim", false, &keep)) return dc_refuse(c, "argument 'keepdim': expected a bool");
    const char *interp = is_none(ia) ? "linear" : ia->kind == EIR_ARG_STRING ? ia->u.s : NULL;
    if (!interp) return dc_refuse(c, "argument 'interpolation': expected a string");
    bool midpoint = !strcmp(interp, "midpoint");
    if (!midpoint && strcmp(interp, "linear"))
        return dc_refuse(c, "interpolation '%s' (only 'linear' and 'midpoint' are decomposed)", interp);
    if (xm->dtype != EIR_F32 && xm->dtype != EIR_F64) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (!dc_meta_concrete_sizes(xm) || xm->rank + 1 > MAXR) return dc_refuse(c, "an input of symbolic size (not decomposed)");
    int64_t numel = 1;
    for (uint32_t d = 0; d < xm->rank; d++) numel *= xm->sizes[d].value;
    if (numel == 0) return dc_refuse(c, "an empty input");
    uint32_t r = xm->rank;
    int64_t wd = 0;
    if (have_dim) {
        wd = dim < 0 ? dim + (r ? r : 1) : dim;
        if (wd < 0 || wd >= (r ? r : 1)) return dc_refuse(c, "argument 'dim': %lld out of range", (long long)dim);
    }
    if (c->dry) return EIR_OK;
    /* the output shape with q's dim in front, then the sorted view's */
    int64_t osh[MAXR], ish[MAXR];
    uint32_t on = 0;
    osh[on++] = 1;
    if (have_dim)
        for (uint32_t d = 0; d < r; d++) {
            if ((int64_t)d == wd && !keep) continue;
            osh[on++] = (int64_t)d == wd ? 1 : xm->sizes[d].value;
        }
    else if (keep)
        for (uint32_t d = 0; d < r; d++) osh[on++] = 1;
    uint32_t qs, srt, sv[2], v;
    if ((st = mi_scalar_tensor(c, *qa, xm, &qs))) return st;
    srt = x;
    if (!have_dim) {
        if (r != 1 && (st = sh_reshape(c, x, &numel, 1, NULL, &srt))) return st;
    } else if (r == 0 || wd != (int64_t)r - 1) {
        if ((st = sh_unsqueeze(c, x, -1, NULL, &srt))) return st;
        if (r == 0) {
            eir_named_arg ai[1] = {pos_arg("self", a_tensor(srt))};
            if ((st = sh_emit(c, "alias.default", 1, ai, NULL, &srt))) return st;
        } else {
            int64_t perm[MAXR];
            for (uint32_t d = 0; d <= r; d++) perm[d] = d;
            perm[wd] = r, perm[r] = wd;
            if ((st = sh_permute(c, srt, perm, r + 1, NULL, &srt))) return st;
        }
    }
    eir_named_arg si_[1] = {pos_arg("self", a_tensor(srt))};
    if ((st = sh_emit_n(c, "sort.default", 1, si_, 2, false, NULL, sv))) return st;
    const eir_tensor_meta *sm = meta_of(c, sv[0]);
    int64_t n = sm->rank ? sm->sizes[sm->rank - 1].value : 1;
    for (uint32_t i = 1; i < on; i++) ish[i - 1] = osh[i];
    ish[on - 1] = n;
    if ((st = sh_view(c, sv[0], ish, on, NULL, &v))) return st;
    uint32_t rk, nan, any, ex, lastv, w, lo, glo, wt, ce, hi, ghi;
    if (nanq) {
        /* ranks q * (count of non-NaN - 1), negative ones (all NaN) 0 */
        uint32_t nn, cnt, cm1, neg, zero;
        eir_named_arg ni[1] = {pos_arg("self", a_tensor(v))};
        if ((st = sh_emit(c, "isnan.default", 1, ni, NULL, &nan))) return st;
        eir_named_arg li[1] = {pos_arg("self", a_tensor(nan))};
        if ((st = sh_emit(c, "logical_not.default", 1, li, NULL, &nn))) return st;
        int64_t last = -1;
        eir_named_arg si2[3] = {pos_arg("self", a_tensor(nn)), pos_arg("dim", dc_a_ints(c, &last, 1)),
                                pos_arg("keepdim", a_bool(true))};
        if ((st = sh_emit(c, "sum.dim_IntList", 3, si2, NULL, &cnt))) return st;
        if ((st = sh_binary(c, "sub.Scalar", cnt, a_int(1), NULL, &cm1))) return st;
        if ((st = sh_binary(c, "mul.Tensor", qs, a_tensor(cm1), NULL, &rk))) return st;
        if ((st = sh_binary(c, "lt.Scalar", rk, a_int(0), NULL, &neg))) return st;
        if ((st = mi_scalar_tensor(c, a_float(0.0), xm, &zero))) return st;
        eir_named_arg wi[3] = {pos_arg("condition", a_tensor(neg)), pos_arg("self", a_tensor(zero)), pos_arg("other", a_tensor(rk))};
        if ((st = sh_emit(c, "where.self", 3, wi, NULL, &w))) return st;
    } else {
        if ((st = sh_binary(c, "mul.Scalar", qs, a_int(n - 1), NULL, &rk))) return st;
        eir_named_arg ni[1] = {pos_arg("self", a_tensor(v))};
        if ((st = sh_emit(c, "isnan.default", 1, ni, NULL, &nan))) return st;
        eir_named_arg ai[3] = {pos_arg("self", a_tensor(nan)), pos_arg("dim", a_int(-1)), pos_arg("keepdim", a_bool(true))};
        if ((st = sh_emit(c, "any.dim", 3, ai, NULL, &any))) return st;
        int64_t esh[MAXR];
        memcpy(esh, ish, on * sizeof *esh);
        esh[on - 1] = 1;
        eir_named_arg ei[2] = {pos_arg("self", a_tensor(rk)), pos_arg("size", dc_a_ints(c, esh, on))};
        if ((st = sh_emit(c, "expand.default", 2, ei, NULL, &ex))) return st;
        if ((st = mi_scalar_tensor(c, a_float((double)(n - 1)), xm, &lastv))) return st;
        eir_named_arg wi[3] = {pos_arg("condition", a_tensor(any)), pos_arg("self", a_tensor(lastv)), pos_arg("other", a_tensor(ex))};
        if ((st = sh_emit(c, "where.self", 3, wi, NULL, &w))) return st;
    }
    if ((st = mi_to_long(c, w, xm, &lo))) return st;
    if ((st = mi_gather(c, v, lo, &glo))) return st;
    if (midpoint) {
        eir_named_arg fi[2] = {pos_arg("self", a_tensor(w)), pos_arg("fill_value", a_float(0.5))};
        if ((st = sh_emit(c, "full_like.default", 2, fi, NULL, &wt))) return st;
    } else if ((st = sh_binary(c, "sub.Tensor", w, a_tensor(lo), NULL, &wt)))
        return st;
    eir_named_arg ci[1] = {pos_arg("self", a_tensor(w))};
    if ((st = sh_emit(c, "ceil.default", 1, ci, NULL, &ce))) return st;
    if ((st = mi_to_long(c, ce, xm, &hi))) return st;
    if ((st = mi_gather(c, v, hi, &ghi))) return st;
    /* lerp(below, above, weight) */
    uint32_t ab, ge, wm1, wsel, base, df, m, add, res;
    eir_named_arg bi[1] = {pos_arg("self", a_tensor(wt))};
    if ((st = sh_emit(c, "abs.default", 1, bi, NULL, &ab))) return st;
    if ((st = sh_binary(c, "ge.Scalar", ab, a_float(0.5), NULL, &ge))) return st;
    if ((st = sh_binary(c, "sub.Tensor", wt, a_int(1), NULL, &wm1))) return st;
    eir_named_arg w1[3] = {pos_arg("condition", a_tensor(ge)), pos_arg("self", a_tensor(wm1)), pos_arg("other", a_tensor(wt))};
    if ((st = sh_emit(c, "where.self", 3, w1, NULL, &wsel))) return st;
    eir_named_arg w2[3] = {pos_arg("condition", a_tensor(ge)), pos_arg("self", a_tensor(ghi)), pos_arg("other", a_tensor(glo))};
    if ((st = sh_emit(c, "where.self", 3, w2, NULL, &base))) return st;
    if ((st = sh_binary(c, "sub.Tensor", ghi, a_tensor(glo), NULL, &df))) return st;
    if ((st = sh_binary(c, "mul.Tensor", wsel, a_tensor(df), NULL, &m))) return st;
    if ((st = sh_binary(c, "add.Tensor", m, a_tensor(base), NULL, &add))) return st;
    int64_t last = -1;
    eir_named_arg qi[2] = {pos_arg("self", a_tensor(add)), pos_arg("dim", dc_a_ints(c, &last, 1))};
    if ((st = sh_emit(c, "squeeze.dims", 2, qi, om, &res))) return st;
    return finish(c, out, res);
}

/* ---- linear algebra front ends, resize_as ---- */

static bool mi_complex(eir_dtype dt) { return dt == EIR_C32 || dt == EIR_C64 || dt == EIR_C128; }

/* The node's tensor outputs, in order (at most max). */
static bool mi_outputs(const dc *c, uint32_t *outs, uint32_t max, uint32_t *n) {
    *n = 0;
    for (uint32_t i = 0; i < c->src.num_outputs; i++) {
        const eir_arg *o = &c->src.outputs[i];
        if (o->kind == EIR_ARG_TENSOR && *n < max) outs[(*n)++] = o->value;
        else if (o->kind == EIR_ARG_TENSORS)
            for (uint32_t j = 0; j < o->u.list.n; j++) {
                if (*n >= max) return false;
                outs[(*n)++] = o->u.list.items[j].value;
            }
        else
            return false;
    }
    for (uint32_t i = 0; i < *n; i++)
        if (outs[i] >= c->g->num_values) return false;
    return true;
}

/* svd(A, some, compute_uv=True) of a real matrix -> _linalg_svd(A,
 * full_matrices=not some): U, S, and Vh with its last two dims swapped */
eir_status decomp_svd(dc *c) {
    uint32_t a = dc_tensor_of(c, "self"), outs[3], no;
    if (a == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *am = meta_of(c, a);
    if (!mi_outputs(c, outs, 3, &no) || no != 3) return dc_refuse(c, "expected three tensor outputs");
    bool some = true, uv = true;
    if (!dc_bool_arg(c, "some", true, &some) || !dc_bool_arg(c, "compute_uv", true, &uv))
        return dc_refuse(c, "arguments 'some', 'compute_uv': expected bools");
    if (!uv) return dc_refuse(c, "compute_uv=False (zero-filled U and V: not decomposed)");
    if (mi_complex(am->dtype)) return dc_refuse(c, "a complex input (V is the conjugate transpose: not decomposed)");
    if (am->rank < 2 || am->rank > MAXR) return dc_refuse(c, "an input of rank %u (expected 2 to %d)", am->rank, MAXR);
    if (c->dry) return EIR_OK;
    eir_named_arg ins[2] = {pos_arg("A", a_tensor(a)), pos_arg("full_matrices", a_bool(true))};
    uint32_t v[3], vt;
    eir_status st = sh_emit_n(c, "_linalg_svd.default", some ? 1 : 2, ins, 3, false, NULL, v);
    if (st) return st;
    int64_t perm[MAXR];
    for (uint32_t d = 0; d < am->rank; d++) perm[d] = d;
    perm[am->rank - 2] = am->rank - 1, perm[am->rank - 1] = am->rank - 2;
    if ((st = sh_permute(c, v[2], perm, am->rank, NULL, &vt))) return st;
    if ((st = finish(c, outs[0], v[0])) || (st = finish(c, outs[1], v[1]))) return st;
    return finish(c, outs[2], vt);
}

/* matrix_exp -> linalg_matrix_exp (kept by torch) */
eir_status decomp_matrix_exp(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    uint32_t res;
    eir_named_arg ei[1] = {pos_arg("self", a_tensor(x))};
    if ((st = sh_emit(c, "linalg_matrix_exp.default", 1, ei, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* resize_as(self, the_template) -> resize(self, the template's sizes,
 * memory_format=contiguous_format) (kept by torch) */
eir_status decomp_resize_as(dc *c) {
    uint32_t x, out, t = dc_tensor_of(c, "the_template");
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_arg *mf = dc_arg_named(c, "memory_format");
    if (t == EIR_NO_VALUE) return dc_refuse(c, "argument 'the_template': expected a tensor");
    if (!is_none(mf) && !(mf->kind == EIR_ARG_MEMORY_FORMAT && mf->u.i == EIR_MF_CONTIGUOUS))
        return dc_refuse(c, "argument 'memory_format': only contiguous_format is decomposed");
    const eir_tensor_meta *tm_ = meta_of(c, t);
    if (!dc_meta_concrete_sizes(tm_) || tm_->rank > MAXR) return dc_refuse(c, "a template of symbolic size");
    if (c->dry) return EIR_OK;
    int64_t sz[MAXR];
    for (uint32_t d = 0; d < tm_->rank; d++) sz[d] = tm_->sizes[d].value;
    uint32_t res;
    eir_named_arg ri[3] = {pos_arg("self", a_tensor(x)), pos_arg("size", dc_a_ints(c, sz, tm_->rank)),
                           kw_arg("memory_format", sh_a_mf_contig())};
    if ((st = sh_emit(c, "resize.default", 3, ri, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ---- matrix and vector norms ---- */

/* linalg_matrix_norm (.default, .str_ord) and linalg_norm -> torch._refs.
 * linalg: linalg_norm is linalg_vector_norm of its ord (2.0 when None) over
 * its dims, unless an ord comes with two dims (or with none, of a matrix):
 * then a matrix norm. 'fro': linalg_vector_norm(2) over the two dims; ord +-1 / +-inf:
 * vector_norm(1.0) over one dim, then amax / amin over the other; ord +-2 /
 * 'nuc': the two dims moved last (permute), _linalg_svd's singular values
 * reduced by amax / amin / sum over the last dim (keepdim: unsqueezed and
 * moved back). */
eir_status decomp_matrix_norm(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    bool keep = false, vec = !strcmp(c->op, "aten.linalg_norm.default");
    if (!dc_bool_arg(c, "keepdim", false, &keep)) return dc_refuse(c, "argument 'keepdim': expected a bool");
    if (!is_none(dc_arg_named(c, "dtype"))) return dc_refuse(c, "argument 'dtype' (not decomposed)");
    if (xm->dtype != EIR_F32 && xm->dtype != EIR_F64) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (xm->rank > MAXR) return dc_refuse(c, "an input of rank above %d", MAXR);
    uint32_t res;
    if (vec) {
        /* vector norms unless an order is given with two dims (or none, of
         * a matrix) */
        const eir_arg *oa = dc_arg_named(c, "ord"), *da = dc_arg_named(c, "dim");
        int64_t dd[2];
        uint32_t nd = 0;
        if (!is_none(da) && (!dc_ints_of(da, dd, 2, &nd) || nd < 1)) return dc_refuse(c, "argument 'dim': expected one or two ints");
        if (!is_none(oa) && !mi_number(oa)) return dc_refuse(c, "argument 'ord': expected a number");
        bool matrix = !is_none(oa) && (nd == 2 || (is_none(da) && xm->rank == 2));
        if (!matrix) {
            if (c->dry) return EIR_OK;
            eir_named_arg vi[4] = {pos_arg("self", a_tensor(x)), pos_arg("ord", is_none(oa) ? a_float(2.0) : *oa),
                                   pos_arg("dim", nd ? dc_a_ints(c, dd, nd) : a_none()), pos_arg("keepdim", a_bool(true))};
            if ((st = sh_emit(c, "linalg_vector_norm.default", keep ? 4 : nd ? 3 : 2, vi, om, &res))) return st;
            return finish(c, out, res);
        }
    }
    /* the order: a string ('fro', 'nuc') or a number */
    const eir_arg *oa = dc_arg_named(c, "ord");
    enum { FRO, NUC, ONE, INF, TWO } kind;
    bool neg = false;
    if (oa && oa->kind == EIR_ARG_STRING) {
        if (!strcmp(oa->u.s, "fro")) kind = FRO;
        else if (!strcmp(oa->u.s, "nuc")) kind = NUC;
        else return dc_refuse(c, "argument 'ord': '%s' (expected 'fro' or 'nuc')", oa->u.s);
    } else if (is_none(oa) && !strcmp(c->op, "aten.linalg_matrix_norm.str_ord")) {
        kind = FRO;
    } else if (mi_number(oa)) {
        double o = mi_num(oa);
        neg = o < 0;
        if (fabs(o) == 1) kind = ONE;
        else if (isinf(o)) kind = INF;
        else if (fabs(o) == 2) kind = TWO;
        else return dc_refuse(c, "argument 'ord': %g (expected +-1, +-2, +-inf, 'fro' or 'nuc')", o);
    } else
        return dc_refuse(c, "argument 'ord': expected a number or a string");
    int64_t dims[2] = {-2, -1};
    uint32_t nd = 2;
    const eir_arg *da = dc_arg_named(c, "dim");
    if (!is_none(da) && (!dc_ints_of(da, dims, 2, &nd) || nd != 2)) return dc_refuse(c, "argument 'dim': expected two ints");
    uint32_t r = xm->rank;
    if (r < 2) return dc_refuse(c, "an input of rank %u (expected at least 2)", r);
    int64_t d0 = wrap_dim(dims[0], r), d1 = wrap_dim(dims[1], r);
    if (d0 < 0 || d1 < 0 || d0 >= r || d1 >= r || d0 == d1) return dc_refuse(c, "argument 'dim': two distinct dims expected");
    if (c->dry) return EIR_OK;
    if (kind == FRO) {
        int64_t dd[2] = {d0, d1};
        eir_named_arg vi[4] = {pos_arg("self", a_tensor(x)), pos_arg("ord", a_int(2)), pos_arg("dim", dc_a_ints(c, dd, 2)),
                               pos_arg("keepdim", a_bool(true))};
        if ((st = sh_emit(c, "linalg_vector_norm.default", keep ? 4 : 3, vi, om, &res))) return st;
        return finish(c, out, res);
    }
    const char *red = kind == NUC ? "sum.dim_IntList" : neg ? "amin.default" : "amax.default";
    if (kind == ONE || kind == INF) {
        if (kind == INF) {
            int64_t t = d0;
            d0 = d1, d1 = t;
        }
        if (!keep && d0 < d1) d1--;
        uint32_t v;
        eir_named_arg vi[4] = {pos_arg("self", a_tensor(x)), pos_arg("ord", a_float(1.0)), pos_arg("dim", dc_a_ints(c, &d0, 1)),
                               pos_arg("keepdim", a_bool(true))};
        if ((st = sh_emit(c, "linalg_vector_norm.default", keep ? 4 : 3, vi, NULL, &v))) return st;
        eir_named_arg ai[3] = {pos_arg("self", a_tensor(v)), pos_arg("dim", dc_a_ints(c, &d1, 1)), pos_arg("keepdim", a_bool(true))};
        if ((st = sh_emit(c, red, keep ? 3 : 2, ai, om, &res))) return st;
        return finish(c, out, res);
    }
    /* singular values of the matrices the two dims span */
    int64_t perm[MAXR], back[MAXR];
    uint32_t k = 0;
    for (uint32_t d = 0; d < r; d++)
        if (d != d0 && d != d1) perm[k++] = d;
    perm[k++] = d0, perm[k++] = d1;
    uint32_t p, sv[3], s, u;
    if ((st = sh_permute(c, x, perm, r, NULL, &p))) return st;
    eir_named_arg si_[1] = {pos_arg("A", a_tensor(p))};
    if ((st = sh_emit_n(c, "_linalg_svd.default", 1, si_, 3, false, NULL, sv))) return st;
    int64_t last = -1;
    eir_named_arg ai[3] = {pos_arg("self", a_tensor(sv[1])), pos_arg("dim", dc_a_ints(c, &last, 1)), pos_arg("keepdim", a_bool(true))};
    if ((st = sh_emit(c, red, keep ? 3 : 2, ai, keep ? NULL : om, &s))) return st;
    if (!keep) return finish(c, out, s);
    if ((st = sh_unsqueeze(c, s, -1, NULL, &u))) return st;
    /* movedim(u, (r - 2, r - 1), (d0, d1)) */
    k = 0;
    for (uint32_t d = 0; d < r; d++) back[d] = -1;
    back[d0] = r - 2, back[d1] = r - 1;
    for (uint32_t d = 0; d < r; d++)
        if (back[d] < 0) back[d] = k++;
    if ((st = sh_permute(c, u, back, r, om, &res))) return st;
    return finish(c, out, res);
}

/* linalg_cond(A, p=None) -> _linalg_svd(A)'s singular values S: S[..., :1]
 * / S[..., -1:], the last dim squeezed */
eir_status decomp_cond(dc *c) {
    uint32_t a, out;
    eir_status st = dc_need_io(c, "self", &a, &out);
    if (st) return st;
    const eir_tensor_meta *am = meta_of(c, a);
    if (!is_none(dc_arg_named(c, "p"))) return dc_refuse(c, "argument 'p': only None is decomposed");
    if (am->dtype != EIR_F32 && am->dtype != EIR_F64) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (am->rank < 2 || !dc_meta_concrete_sizes(am)) return dc_refuse(c, "a batch of matrices of concrete size expected");
    int64_t m = am->sizes[am->rank - 2].value, n = am->sizes[am->rank - 1].value, k = m < n ? m : n;
    if (k == 0) return dc_refuse(c, "an empty matrix");
    if (c->dry) return EIR_OK;
    uint32_t sv[3], hi, lo, d, res;
    eir_named_arg si_[1] = {pos_arg("A", a_tensor(a))};
    if ((st = sh_emit_n(c, "_linalg_svd.default", 1, si_, 3, false, NULL, sv))) return st;
    if ((st = sh_slice(c, sv[1], -1, 0, 1, &hi)) || (st = sh_slice(c, sv[1], -1, k - 1, k, &lo))) return st;
    if ((st = sh_binary(c, "div.Tensor", hi, a_tensor(lo), NULL, &d))) return st;
    int64_t last = -1;
    eir_named_arg qi[2] = {pos_arg("self", a_tensor(d)), pos_arg("dim", dc_a_ints(c, &last, 1))};
    if ((st = sh_emit(c, "squeeze.dims", 2, qi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* linalg_pinv.atol_rtol_float(A, atol, rtol, hermitian) and pinverse(A,
 * rcond) (atol 0, rtol rcond) -> the tolerances as 0-d float64 tensors
 * (full; atol 0.0 when None) and linalg_pinv.atol_rtol_tensor (kept by
 * torch) */
eir_status decomp_pinv_float(dc *c) {
    uint32_t a, out;
    eir_status st = dc_need_io(c, "self", &a, &out);
    if (st) return st;
    bool pinverse = !strcmp(c->op, "aten.pinverse.default");
    eir_arg rcond = a_float(1e-15);
    const eir_arg *aa = dc_arg_named(c, "atol"), *ra = dc_arg_named(c, pinverse ? "rcond" : "rtol");
    if (pinverse && is_none(ra)) ra = &rcond;
    bool herm = false;
    if (!dc_bool_arg(c, "hermitian", false, &herm)) return dc_refuse(c, "argument 'hermitian': expected a bool");
    if ((!is_none(aa) && !mi_number(aa)) || (!is_none(ra) && !mi_number(ra)))
        return dc_refuse(c, "arguments 'atol', 'rtol': expected numbers or None");
    double atol = is_none(aa) ? 0.0 : mi_num(aa), rtol;
    if (!is_none(ra)) rtol = mi_num(ra);
    else if (atol > 0) rtol = 0.0;
    else return dc_refuse(c, "rtol None with atol None or 0 (the default tolerance from the dtype's epsilon is not decomposed)");
    if (c->dry) return EIR_OK;
    uint32_t ft[2], res;
    double tv[2] = {atol, rtol};
    for (int i = 0; i < 2; i++) {
        eir_named_arg fi[5] = {pos_arg("size", dc_a_ints(c, NULL, 0)), pos_arg("fill_value", a_float(tv[i])),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_F64)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", dc_a_device(meta_of(c, a)))};
        if ((st = sh_emit(c, "full.default", 5, fi, NULL, &ft[i]))) return st;
    }
    eir_named_arg pi[4] = {pos_arg("self", a_tensor(a)), kw_arg("atol", a_tensor(ft[0])), kw_arg("rtol", a_tensor(ft[1])),
                           kw_arg("hermitian", a_bool(true))};
    if ((st = sh_emit(c, "linalg_pinv.atol_rtol_tensor", herm ? 4 : 3, pi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ---- front ends to operators torch keeps ---- */

/* linalg_solve_ex(A, B, left, check_errors) -> _linalg_solve_ex (its
 * result and info); qr(A, some) -> linalg_qr(A, 'complete' unless some);
 * _lu_with_info(A, pivot) -> linalg_lu_factor_ex(A, pivot) (errors not
 * checked, as torch's decomposition);
 * linalg_eigvals -> linalg_eig's eigenvalues; grid_sampler -> grid_sampler_2d
 * (4-d input) / grid_sampler_3d (5-d); _upsample_bilinear2d_aa.vec ->
 * _upsample_bilinear2d_aa.default with the output size (and the scales
 * when given) */
eir_status decomp_keep_front(dc *c) {
    uint32_t outs[4], no;
    if (!mi_outputs(c, outs, 4, &no) || no == 0) return dc_refuse(c, "expected tensor outputs");
    const char *op = c->op;
    eir_named_arg ins[6];
    uint32_t n = 0, nout = 1, map[4] = {0, 1, 2, 3};
    const char *to;
    eir_status st;
    if (!strcmp(op, "aten.linalg_solve_ex.default")) {
        uint32_t a = dc_tensor_of(c, "A"), b = dc_tensor_of(c, "B");
        bool left = true, chk = false;
        if (a == EIR_NO_VALUE || b == EIR_NO_VALUE) return dc_refuse(c, "arguments 'A', 'B': expected tensors");
        if (!dc_bool_arg(c, "left", true, &left) || !dc_bool_arg(c, "check_errors", false, &chk))
            return dc_refuse(c, "arguments 'left', 'check_errors': expected bools");
        if (no != 2) return dc_refuse(c, "expected two outputs");
        ins[n++] = pos_arg("A", a_tensor(a));
        ins[n++] = pos_arg("B", a_tensor(b));
        if (!left) ins[n++] = kw_arg("left", a_bool(false));
        if (chk) ins[n++] = kw_arg("check_errors", a_bool(true));
        to = "_linalg_solve_ex.default", nout = 4, map[1] = 3;
    } else if (!strcmp(op, "aten.qr.default")) {
        uint32_t a = dc_tensor_of(c, "self");
        bool some = true;
        if (a == EIR_NO_VALUE || !dc_bool_arg(c, "some", true, &some)) return dc_refuse(c, "arguments 'self', 'some' expected");
        if (no != 2) return dc_refuse(c, "expected two outputs");
        ins[n++] = pos_arg("A", a_tensor(a));
        if (!some) {
            eir_arg m = {0};
            m.kind = EIR_ARG_STRING;
            m.u.s = "complete";
            ins[n++] = pos_arg("mode", m);
        }
        to = "linalg_qr.default", nout = 2;
    } else if (!strcmp(op, "aten._lu_with_info.default")) {
        uint32_t a = dc_tensor_of(c, "self");
        bool pivot = true;
        if (a == EIR_NO_VALUE || !dc_bool_arg(c, "pivot", true, &pivot)) return dc_refuse(c, "arguments 'self', 'pivot' expected");
        if (no != 3) return dc_refuse(c, "expected three outputs");
        ins[n++] = pos_arg("A", a_tensor(a));
        if (!pivot) ins[n++] = kw_arg("pivot", a_bool(false));
        to = "linalg_lu_factor_ex.default", nout = 3;
    } else if (!strcmp(op, "aten.linalg_eigvals.default")) {
        uint32_t a = dc_tensor_of(c, "self");
        if (a == EIR_NO_VALUE || no != 1) return dc_refuse(c, "argument 'self': expected a tensor");
        ins[n++] = pos_arg("self", a_tensor(a));
        to = "linalg_eig.default", nout = 2;
    } else if (!strcmp(op, "aten.grid_sampler.default")) {
        uint32_t x = dc_tensor_of(c, "input"), g = dc_tensor_of(c, "grid");
        int64_t im, pm;
        bool al;
        if (x == EIR_NO_VALUE || g == EIR_NO_VALUE || no != 1) return dc_refuse(c, "arguments 'input', 'grid': expected tensors");
        uint32_t xr = meta_of(c, x)->rank;
        if (xr != 4 && xr != 5) return dc_refuse(c, "an input of rank %u (expected 4 or 5)", xr);
        if (!int_of(dc_arg_named(c, "interpolation_mode"), &im) || !int_of(dc_arg_named(c, "padding_mode"), &pm) ||
            !dc_bool_arg(c, "align_corners", false, &al))
            return dc_refuse(c, "arguments 'interpolation_mode', 'padding_mode', 'align_corners' expected");
        ins[n++] = pos_arg("input", a_tensor(x));
        ins[n++] = pos_arg("grid", a_tensor(g));
        ins[n++] = pos_arg("interpolation_mode", a_int(im));
        ins[n++] = pos_arg("padding_mode", a_int(pm));
        ins[n++] = pos_arg("align_corners", a_bool(al));
        to = xr == 4 ? "grid_sampler_2d.default" : "grid_sampler_3d.default";
    } else if (!strcmp(op, "aten._upsample_bilinear2d_aa.vec")) {
        uint32_t x = dc_tensor_of(c, "input");
        bool al;
        const eir_arg *sf = dc_arg_named(c, "scale_factors");
        if (x == EIR_NO_VALUE || no != 1) return dc_refuse(c, "argument 'input': expected a tensor");
        const eir_tensor_meta *om = meta_of(c, outs[0]);
        if (om->rank != 4 || !dc_meta_concrete_sizes(om)) return dc_refuse(c, "a 4-d result of concrete size expected");
        if (!dc_bool_arg(c, "align_corners", false, &al)) return dc_refuse(c, "argument 'align_corners': expected a bool");
        if (!is_none(sf) && (sf->kind != EIR_ARG_FLOATS || sf->u.list.n != 2))
            return dc_refuse(c, "argument 'scale_factors': expected two floats");
        int64_t os[2] = {om->sizes[2].value, om->sizes[3].value};
        ins[n++] = pos_arg("self", a_tensor(x));
        ins[n++] = pos_arg("output_size", dc_a_ints(c, os, 2));
        ins[n++] = pos_arg("align_corners", a_bool(al));
        if (!is_none(sf)) {
            ins[n++] = pos_arg("scales_h", sf->u.list.items[0]);
            ins[n++] = pos_arg("scales_w", sf->u.list.items[1]);
        }
        to = "_upsample_bilinear2d_aa.default";
    } else
        return dc_refuse(c, "no front end for %s", op);
    if (c->dry) return EIR_OK;
    uint32_t v[4];
    if ((st = sh_emit_n(c, to, n, ins, nout, false, nout == 1 ? meta_of(c, outs[0]) : NULL, v))) return st;
    for (uint32_t i = 0; i < no; i++)
        if ((st = finish(c, outs[i], v[map[i]]))) return st;
    return EIR_OK;
}

/* ---- pooling layouts ---- */

/* Whether unsqueeze(x, -2) of a rank-3 input x of concrete strides has
 * strides torch takes for channels-last (c10's is_channels_last_strides_2d),
 * so that _adaptive_avg_pool2d of it would come out channels-last. */
bool decomp_unsqueezed_channels_last(const eir_tensor_meta *xm) {
    if (xm->rank != 3) return false;
    int64_t sz[4] = {xm->sizes[0].value, xm->sizes[1].value, 1, xm->sizes[2].value};
    int64_t st[4] = {xm->strides[0].value, xm->strides[1].value, xm->sizes[2].value * xm->strides[2].value,
                     xm->strides[2].value};
    static const int ORDER[4] = {1, 3, 2, 0};
    if (st[1] == 0) return false;
    int64_t min = 0;
    for (int i = 0; i < 4; i++) {
        int d = ORDER[i];
        if (sz[d] == 0 || st[d] < min) return false;
        if (d == 0 && min == st[1]) return false;
        min = st[d];
        if (sz[d] > 1) min *= sz[d];
    }
    return true;
}
