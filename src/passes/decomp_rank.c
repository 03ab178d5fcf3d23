/* decomp_rank.c — to-core rule for linalg_matrix_rank (atol_rtol_float and
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
