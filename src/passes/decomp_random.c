/* decomp_random.c — to-core rules for random ops, as torch 2.13's
 * run_decompositions() writes them:
 *   dropout(x, p, train=True)        p != 0: native_dropout(x, p, True)[0]
 *                                    (p == 0: clone, decomp_dropout)
 *   feature_dropout, alpha_dropout,  p == 0 or no element: x itself;
 *   feature_alpha_dropout (train)    p == 1: x * full([], 0);
 *                                    else a noise tensor (empty of
 *                                    [N, C, 1, ...] for the feature forms,
 *                                    empty_permuted in x's memory order
 *                                    otherwise) drawn by bernoulli.p(1 - p),
 *                                    then x * noise / (1 - p), or for the
 *                                    alpha forms torch's affine correction
 *                                    (add / mul by scalars, add.Tensor)
 *   bernoulli(x)                     rand(float32) < x, converted to x's dtype
 * The runtime draws these with its own generator: a converted program
 * computes values with the same distribution, not torch's numbers. */
#include <math.h>
#include <string.h>

#include "decomp_int.h"

/* The dims of m outermost first, as torch's
 * compute_elementwise_output_logical_to_physical_perm gives them for one
 * tensor (concrete strides). */
static void memory_perm(const eir_tensor_meta *m, int64_t *out) {
    uint32_t r = m->rank;
    bool contig = dc_meta_contiguous(m), cl = false;
    if (r == 4) {
        /* channels_last: strides C=1, W=C, H=W*C, N=H*W*C (size-1 dims free) */
        int64_t e = 1;
        static const uint32_t order[4] = {1, 3, 2, 0};
        cl = true;
        for (uint32_t i = 0; i < 4 && cl; i++) {
            uint32_t d = order[i];
            int64_t s = m->sizes[d].value;
            if (s != 1 && m->strides[d].value != e) cl = false;
            e *= s;
        }
    }
    for (uint32_t i = 0; i < r; i++) out[i] = i;
    if (contig && !cl) return;
    if (cl && !contig) {
        out[1] = 2, out[2] = 3, out[3] = 1;
        return;
    }
    /* insertion sort of the reversed dims (innermost first), as torch */
    int64_t perm[MAXR];
    for (uint32_t i = 0; i < r; i++) perm[i] = r - 1 - i;
    for (uint32_t i = 1; i < r; i++) {
        uint32_t d1 = i;
        for (uint32_t d0 = i; d0-- > 0;) {
            int64_t a = perm[d0], b = perm[d1];
            int64_t sa = m->strides[a].value, sb = m->strides[b].value;
            int cmp = 0;
            if (sa != 0 && sb != 0) {
                if (sa < sb) cmp = -1;
                else if (sa > sb) cmp = 1;
                else if (m->sizes[a].value > m->sizes[b].value) cmp = 1;
            }
            if (cmp > 0) {
                perm[d0] = b;
                perm[d1] = a;
                d1 = d0;
            } else if (cmp < 0)
                break;
        }
    }
    for (uint32_t i = 0; i < r; i++) out[i] = perm[r - 1 - i];
}

static eir_status rd_full0(dc *c, const eir_tensor_meta *xm, uint32_t *res) {
    eir_named_arg fi[6] = {pos_arg("size", dc_a_ints(c, NULL, 0)), pos_arg("fill_value", a_int(0)),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                           kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
    return sh_emit(c, "full.default", 6, fi, NULL, res);
}

static eir_status rd_binary(dc *c, const char *target, uint32_t a, eir_arg b, uint32_t *res) {
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(a)), pos_arg("other", b)};
    return sh_emit(c, target, 2, bi, NULL, res);
}

/* dropout and its variants in training mode (x the input, out the result,
 * p the probability of a zero) */
eir_status decomp_dropout_train(dc *c, uint32_t x, uint32_t out, double p) {
    bool feature = strstr(c->op, "feature_") != NULL, alpha = strstr(c->op, "alpha_dropout") != NULL;
    const eir_tensor_meta *xm = meta_of(c, x);
    eir_status st;
    if (xm->dtype != EIR_F32 && xm->dtype != EIR_F64 && xm->dtype != EIR_F16 && xm->dtype != EIR_BF16)
        return dc_refuse(c, "dropout in training mode of a non-float input");
    if (p < 0.0 || p > 1.0) return dc_refuse(c, "dropout probability %g outside [0, 1]", p);
    if (!strcmp(c->op, "aten.dropout.default")) {
        /* native_dropout keeps the input's sizes, symbolic ones too */
        if (c->dry) return EIR_OK;
        eir_named_arg ni[3] = {pos_arg("input", a_tensor(x)), pos_arg("p", a_float(p)), pos_arg("train", a_bool(true))};
        uint32_t v[2];
        if ((st = sh_emit_n(c, "native_dropout.default", 3, ni, 2, false, NULL, v))) return st;
        return finish(c, out, v[0]);
    }
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "dropout in training mode of an input of symbolic size");
    for (uint32_t i = 0; i < xm->rank; i++)
        if (xm->strides[i].is_expr) return dc_refuse(c, "dropout in training mode of an input of symbolic strides");
    int64_t numel = 1, sz[MAXR];
    for (uint32_t i = 0; i < xm->rank; i++) numel *= (sz[i] = xm->sizes[i].value);
    if (feature && xm->rank < 2) return dc_refuse(c, "feature dropout of an input of rank %u (torch needs 2 or more)", xm->rank);
    if (c->dry) return EIR_OK;
    if (p == 0.0 || numel == 0) return finish(c, out, x);
    uint32_t z, res;
    if (p == 1.0) {
        if ((st = rd_full0(c, xm, &z))) return st;
        if ((st = rd_binary(c, "mul.Tensor", x, a_tensor(z), &res))) return st;
        return finish(c, out, res);
    }
    /* the noise */
    uint32_t noise, bern;
    if (feature) {
        for (uint32_t i = 2; i < xm->rank; i++) sz[i] = 1;
        eir_named_arg ei[5] = {pos_arg("size", dc_a_ints(c, sz, xm->rank)),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
        if ((st = sh_emit(c, "empty.memory_format", 5, ei, NULL, &noise))) return st;
    } else {
        int64_t perm[MAXR];
        memory_perm(xm, perm);
        eir_named_arg ei[6] = {pos_arg("size", dc_a_ints(c, sz, xm->rank)),
                               pos_arg("physical_layout", dc_a_ints(c, perm, xm->rank)),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
        if ((st = sh_emit(c, "empty_permuted.default", 6, ei, NULL, &noise))) return st;
    }
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(noise)), pos_arg("p", a_float(1.0 - p))};
    if ((st = sh_emit(c, "bernoulli.p", 2, bi, NULL, &bern))) return st;
    if (!alpha) {
        uint32_t dv;
        if ((st = rd_binary(c, "div.Scalar", bern, a_float(1.0 - p), &dv))) return st;
        if ((st = rd_binary(c, "mul.Tensor", x, a_tensor(dv), &res))) return st;
        return finish(c, out, res);
    }
    /* b = (noise - 1) * alpha * a + alpha * a * p; x * (noise * a) + b */
    const double al = 1.7580993408473766;
    double a = 1.0 / sqrt((al * al * p + 1) * (1 - p));
    uint32_t t1, t2, b, na, xn;
    if ((st = rd_binary(c, "add.Scalar", bern, a_int(-1), &t1))) return st;
    if ((st = rd_binary(c, "mul.Scalar", t1, a_float(al * a), &t2))) return st;
    if ((st = rd_binary(c, "add.Scalar", t2, a_float(al * a * p), &b))) return st;
    if ((st = rd_binary(c, "mul.Scalar", bern, a_float(a), &na))) return st;
    if ((st = rd_binary(c, "mul.Tensor", x, a_tensor(na), &xn))) return st;
    if ((st = rd_binary(c, "add.Tensor", xn, a_tensor(b), &res))) return st;
    return finish(c, out, res);
}

/* bernoulli(x) -> _to_copy(rand(x's sizes, float32) < x, x's dtype) */
eir_status decomp_bernoulli(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (!is_none(dc_arg_named(c, "generator"))) return dc_refuse(c, "argument 'generator' is not decomposed");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "an input of symbolic size");
    if (c->dry) return EIR_OK;
    int64_t sz[MAXR];
    for (uint32_t i = 0; i < xm->rank; i++) sz[i] = xm->sizes[i].value;
    eir_named_arg ri[4] = {pos_arg("size", dc_a_ints(c, sz, xm->rank)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_F32)),
                           kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
    uint32_t r, lt, res;
    if ((st = sh_emit(c, "rand.default", 4, ri, NULL, &r))) return st;
    if ((st = rd_binary(c, "lt.Tensor", r, a_tensor(x), &lt))) return st;
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(lt)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype))};
    if ((st = sh_emit(c, "_to_copy.default", 2, ti, NULL, &res))) return st;
    return finish(c, out, res);
}
