/* decomp_pointwise.c — to-core rules for pointwise operators, activations
 * and reductions that torch's run_decompositions() rewrites into chains of
 * Core ATen pointwise ops (where / scalar_tensor / comparisons): square,
 * frac, sinc, logit, xlogy, special functions, the shrink / softplus / celu /
 * mish / log_sigmoid / glu / prelu activations, logaddexp, lerp, addcmul,
 * isfinite / isclose / nan_to_num, masked_fill, clamp_min / clamp_max,
 * logsumexp, nansum / nanmean, std / var and their _mean forms,
 * count_nonzero, all, aminmax, mvlgamma, renorm. Each emits the nodes
 * torch's decomposition writes, with the same scalar arguments (an int stays
 * an int), in the same order.
 *
 * The chains are built through a small builder (pb_*) whose intermediate
 * metadata comes from TensorIterator's rules over concrete sizes; the last
 * node takes the replaced node's recorded metadata. Inputs of symbolic size
 * are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"

/* ---- the builder ---- */

static bool is_fp(eir_dtype d) { return d == EIR_F16 || d == EIR_F32 || d == EIR_F64 || d == EIR_BF16; }

static bool is_cplx(eir_dtype d) { return d == EIR_C32 || d == EIR_C64 || d == EIR_C128; }

static void tm_copy(tm *dst, const tm *src) {
    *dst = *src;
    dst->m.sizes = dst->sz;
    dst->m.strides = dst->st;
}

/* Whether m has concrete sizes and strides within MAXR. */
static bool concrete(const eir_tensor_meta *m) {
    if (m->rank > MAXR || m->storage_offset.is_expr) return false;
    for (uint32_t i = 0; i < m->rank; i++)
        if (m->sizes[i].is_expr || m->strides[i].is_expr) return false;
    return true;
}

/* Every tensor argument and output of the node being decomposed is
 * concrete (the builder computes intermediate metadata from sizes). */
eir_status dc_pw_check_concrete(dc *c) {
    for (uint32_t i = 0; i < c->src.num_inputs; i++) {
        const eir_arg *a = &c->src.inputs[i].arg;
        if (!c->src.inputs[i].kind) continue;
        if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && a->value < c->g->num_values &&
            !concrete(meta_of(c, a->value)))
            return dc_refuse(c, "argument '%s': symbolic sizes or strides", c->src.inputs[i].name);
    }
    for (uint32_t o = 0; o < c->src.num_outputs; o++) {
        const eir_arg *a = &c->src.outputs[o];
        if (a->kind == EIR_ARG_TENSOR && a->value < c->g->num_values && !concrete(meta_of(c, a->value)))
            return dc_refuse(c, "output %u: symbolic sizes or strides", o);
    }
    return EIR_OK;
}

void dc_pb_init(pb *b, dc *c, uint32_t like) {
    b->c = c;
    b->st = EIR_OK;
    b->nv0 = c->g->num_values;
    b->like = meta_of(c, like);
}

/* A node of target `target` over ins[0..n); its result has dtype dt and the
 * broadcast shape of its tensor arguments, with TensorIterator's strides
 * (m, when given, overrides that). EIR_NO_VALUE once anything failed. */
uint32_t dc_pb_emit_m(pb *b, const char *target, eir_dtype dt, uint32_t n, const eir_named_arg *ins,
                      const eir_tensor_meta *m) {
    if (b->st) return EIR_NO_VALUE;
    dc *c = b->c;
    tm t, u;
    bool any = false;
    for (uint32_t i = 0; i < n && !m; i++) {
        const eir_arg *a = &ins[i].arg;
        if (a->kind != EIR_ARG_TENSOR || a->value >= c->g->num_values) continue;
        const eir_tensor_meta *am = meta_of(c, a->value);
        if (!any) {
            dc_tm_pointwise(&t, am);
            any = true;
        } else {
            dc_tm_binary(&u, &t.m, am);
            tm_copy(&t, &u);
        }
    }
    if (!m) {
        if (!any) dc_tm_new(&t, b->like, dt, NULL, 0);
        t.m.dtype = dt;
        m = &t.m;
    }
    char hint[48];
    const char *dot = strchr(target, '.');
    snprintf(hint, sizeof hint, "%.*s", dot ? (int)(dot - target) : (int)strlen(target), target);
    uint32_t v = EIR_NO_VALUE;
    b->st = dc_emit(b->c, target, n, ins, m, hint, &v);
    return b->st ? EIR_NO_VALUE : v;
}

uint32_t dc_pb_emit(pb *b, const char *target, eir_dtype dt, uint32_t n, const eir_named_arg *ins) {
    return dc_pb_emit_m(b, target, dt, n, ins, NULL);
}

uint32_t dc_pb_u(pb *b, const char *target, eir_dtype dt, uint32_t x) {
    eir_named_arg ins[1] = {pos_arg("self", a_tensor(x))};
    return dc_pb_emit(b, target, dt, 1, ins);
}

uint32_t dc_pb_b(pb *b, const char *target, eir_dtype dt, eir_arg self, eir_arg other) {
    eir_named_arg ins[2] = {pos_arg("self", self), pos_arg("other", other)};
    return dc_pb_emit(b, target, dt, 2, ins);
}

uint32_t dc_pb_where(pb *b, eir_dtype dt, uint32_t cond, uint32_t x, uint32_t y) {
    eir_named_arg ins[3] = {pos_arg("condition", a_tensor(cond)), pos_arg("self", a_tensor(x)),
                            pos_arg("other", a_tensor(y))};
    return dc_pb_emit(b, "where.self", dt, 3, ins);
}

/* scalar_tensor(v, dtype=dt, layout=strided, device=...) */
uint32_t dc_pb_scalar(pb *b, eir_arg v, eir_dtype dt) {
    eir_named_arg ins[4] = {pos_arg("s", v), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                            kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                            kw_arg("device", dc_a_device(b->like))};
    return dc_pb_emit(b, "scalar_tensor.default", dt, 4, ins);
}

/* full([], v, dtype=dt, layout=strided, device=..., pin_memory=False) */
static uint32_t pb_full0(pb *b, eir_arg v, eir_dtype dt) {
    eir_named_arg ins[6] = {pos_arg("size", dc_a_ints(b->c, NULL, 0)), pos_arg("fill_value", v),
                            kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                            kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                            kw_arg("device", dc_a_device(b->like)), kw_arg("pin_memory", a_bool(false))};
    return dc_pb_emit(b, "full.default", dt, 6, ins);
}

/* The last node of a chain takes the replaced output's recorded metadata;
 * its uses move to it. */
eir_status dc_pb_finish(pb *b, uint32_t out, uint32_t res) {
    if (b->st) return b->st;
    dc *c = b->c;
    if (res >= b->nv0 && res < c->g->num_values) ((eir_value *)&c->g->values[res])->meta = c->g->values[out].meta;
    return finish(c, out, res);
}

/* A Scalar argument (int, float or bool), or def when absent. */
static bool scalar_arg(const dc *c, const char *name, eir_arg def, eir_arg *out) {
    const eir_arg *a = dc_arg_named(c, name);
    if (is_none(a)) { *out = def; return true; }
    if (a->kind == EIR_ARG_INT || a->kind == EIR_ARG_FLOAT || a->kind == EIR_ARG_BOOL ||
        ((a->kind == EIR_ARG_SYM_INT || a->kind == EIR_ARG_SYM_FLOAT || a->kind == EIR_ARG_SYM_BOOL) && a->literal)) {
        *out = *a;
        out->name = NULL;
        if (out->kind == EIR_ARG_SYM_INT) out->kind = EIR_ARG_INT;
        if (out->kind == EIR_ARG_SYM_FLOAT) out->kind = EIR_ARG_FLOAT;
        if (out->kind == EIR_ARG_SYM_BOOL) out->kind = EIR_ARG_BOOL;
        return true;
    }
    return false;
}

static double scalar_value(const eir_arg *a) {
    if (a->kind == EIR_ARG_FLOAT) return a->u.f;
    if (a->kind == EIR_ARG_BOOL) return a->u.b;
    return (double)a->u.i;
}

#define T(v) a_tensor(v)

/* The start of every rule here: one tensor output, a tensor `self`
 * (or `name`) of a floating dtype when fp, concrete metadata. */
static eir_status begin(dc *c, const char *name, bool fp, uint32_t *x, uint32_t *out) {
    eir_status st = dc_need_io(c, name, x, out);
    if (st) return st;
    if (fp && !is_fp(meta_of(c, *x)->dtype))
        return dc_refuse(c, "argument '%s': dtype %s (only floating inputs are decomposed)", name,
                         eir_dtype_name(meta_of(c, *x)->dtype));
    if (fp && meta_of(c, *out)->dtype != meta_of(c, *x)->dtype && meta_of(c, *out)->dtype != EIR_BOOL)
        return dc_refuse(c, "a result of dtype %s from an input of dtype %s", eir_dtype_name(meta_of(c, *out)->dtype),
                         eir_dtype_name(meta_of(c, *x)->dtype));
    return dc_pw_check_concrete(c);
}

/* A second tensor argument of the same dtype as x. */
static eir_status same_dtype_tensor(dc *c, const char *name, uint32_t x, uint32_t *y) {
    *y = dc_tensor_of(c, name);
    if (*y == EIR_NO_VALUE) return dc_refuse(c, "argument '%s': expected a tensor", name);
    if (meta_of(c, *y)->dtype != meta_of(c, x)->dtype)
        return dc_refuse(c, "argument '%s': dtype %s, expected %s as the input's (type promotion is not decomposed)",
                         name, eir_dtype_name(meta_of(c, *y)->dtype), eir_dtype_name(meta_of(c, x)->dtype));
    return EIR_OK;
}

/* ---- single-node rewrites ---- */

/* square -> pow(x, 2); frac -> x - trunc(x); deg2rad / rad2deg -> mul;
 * sgn (real) -> sign; positive -> x; selu -> elu; special_polygamma ->
 * polygamma; isposinf / isneginf -> eq; isreal -> full_like(True) */
eir_status decomp_pw_unary(dc *c) {
    const char *op = c->op + 5;
    bool fp = strncmp(op, "square.", 7) && strncmp(op, "sgn.", 4) && strncmp(op, "positive.", 9) &&
              strncmp(op, "special_polygamma.", 18);
    uint32_t x, out;
    eir_status st = begin(c, "self", fp, &x, &out);
    if (st) return st;
    eir_dtype dt = meta_of(c, x)->dtype, odt = meta_of(c, out)->dtype;
    /* the square of a bool is an int64 */
    bool sqb = dt == EIR_BOOL && !strncmp(op, "square.", 7) && odt == EIR_I64;
    if (!fp && !sqb && (dt == EIR_BOOL || is_cplx(dt)))
        return dc_refuse(c, "argument 'self': dtype %s (bool and complex inputs are not decomposed)", eir_dtype_name(dt));
    if (!fp && !sqb && odt != dt) return dc_refuse(c, "a result of dtype %s from an input of dtype %s", eir_dtype_name(odt),
                                           eir_dtype_name(dt));
    int64_t n = 0;
    if (!strncmp(op, "special_polygamma.", 18) && !int_of(dc_arg_named(c, "n"), &n))
        return dc_refuse(c, "argument 'n': expected an int");
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    uint32_t r;
    if (!strncmp(op, "positive.", 9)) return finish(c, out, x);
    if (!strncmp(op, "square.", 7)) {
        eir_named_arg ins[2] = {pos_arg("self", T(x)), pos_arg("exponent", a_int(2))};
        r = dc_pb_emit(&b, "pow.Tensor_Scalar", odt, 2, ins);
    } else if (!strncmp(op, "frac.", 5)) {
        uint32_t t = dc_pb_u(&b, "trunc.default", dt, x);
        r = dc_pb_b(&b, "sub.Tensor", dt, T(x), T(t));
    } else if (!strncmp(op, "deg2rad.", 8)) {
        r = dc_pb_b(&b, "mul.Tensor", dt, T(x), a_float(M_PI / 180.0));
    } else if (!strncmp(op, "rad2deg.", 8)) {
        r = dc_pb_b(&b, "mul.Tensor", dt, T(x), a_float(180.0 / M_PI));
    } else if (!strncmp(op, "sgn.", 4)) {
        r = dc_pb_u(&b, "sign.default", dt, x);
    } else if (!strncmp(op, "selu.", 5)) {
        eir_named_arg ins[3] = {pos_arg("self", T(x)), pos_arg("alpha", a_float(1.6732632423543772848170429916717)),
                                pos_arg("scale", a_float(1.0507009873554804934193349852946))};
        r = dc_pb_emit(&b, "elu.default", dt, 3, ins);
    } else if (!strncmp(op, "special_polygamma.", 18)) {
        eir_named_arg ins[2] = {pos_arg("n", a_int(n)), pos_arg("self", T(x))};
        r = dc_pb_emit(&b, "polygamma.default", dt, 2, ins);
    } else if (!strncmp(op, "isposinf.", 9) || !strncmp(op, "isneginf.", 9)) {
        r = dc_pb_b(&b, "eq.Scalar", EIR_BOOL, T(x), a_float(op[2] == 'p' ? INFINITY : -INFINITY));
    } else { /* isreal */
        eir_named_arg ins[5] = {pos_arg("self", T(x)), pos_arg("fill_value", a_bool(true)),
                                kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_BOOL)), kw_arg("pin_memory", a_bool(false)),
                                kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE))};
        r = dc_pb_emit(&b, "full_like.default", EIR_BOOL, 5, ins);
    }
    return dc_pb_finish(&b, out, r);
}

/* max.other / min.other -> maximum / minimum; true_divide.Tensor -> div;
 * floor_divide -> div(rounding_mode='floor'); clamp_min / clamp_max
 * (.default, .Tensor) -> clamp; masked_fill -> where */
eir_status decomp_pw_binary(dc *c) {
    const char *op = c->op + 5;
    uint32_t x, out;
    eir_status st = begin(c, "self", false, &x, &out);
    if (st) return st;
    eir_dtype odt = meta_of(c, out)->dtype;
    const char *oname = !strncmp(op, "clamp_min.", 10) ? "min" : !strncmp(op, "clamp_max.", 10) ? "max"
                        : !strncmp(op, "masked_fill.", 12) ? "value" : "other";
    const eir_arg *o = dc_arg_named(c, oname);
    if (!o) return dc_refuse(c, "argument '%s' missing", oname);
    uint32_t mask = EIR_NO_VALUE;
    if (!strncmp(op, "masked_fill.", 12)) {
        mask = dc_tensor_of(c, "mask");
        if (mask == EIR_NO_VALUE || meta_of(c, mask)->dtype != EIR_BOOL)
            return dc_refuse(c, "argument 'mask': expected a bool tensor");
        if (o->kind == EIR_ARG_TENSOR && (meta_of(c, o->value)->dtype != odt || meta_of(c, o->value)->rank))
            return dc_refuse(c, "argument 'value': expected a 0-dim tensor of dtype %s", eir_dtype_name(odt));
        if (meta_of(c, x)->dtype != odt) return dc_refuse(c, "a result of another dtype than the input's");
    }
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    eir_arg oa = *o;
    oa.name = NULL;
    uint32_t r;
    if (!strncmp(op, "max.", 4) || !strncmp(op, "min.", 4)) {
        r = dc_pb_b(&b, op[1] == 'a' ? "maximum.default" : "minimum.default", odt, T(x), oa);
    } else if (!strncmp(op, "true_divide.", 12)) {
        r = dc_pb_b(&b, "div.Tensor", odt, T(x), oa);
    } else if (!strncmp(op, "floor_divide.", 13)) {
        eir_named_arg ins[3] = {pos_arg("self", T(x)), pos_arg("other", oa), kw_arg("rounding_mode", (eir_arg){0})};
        ins[2].arg.kind = EIR_ARG_STRING;
        ins[2].arg.u.s = "floor";
        r = dc_pb_emit(&b, "div.Tensor_mode", odt, 3, ins);
    } else if (!strncmp(op, "clamp_", 6)) {
        bool tensor = !strcmp(op, "clamp_min.Tensor") || !strcmp(op, "clamp_max.Tensor");
        eir_named_arg ins[3] = {pos_arg("self", T(x)), pos_arg("min", oa), pos_arg("max", a_none())};
        uint32_t n = 2;
        if (!strncmp(op, "clamp_max.", 10)) {
            ins[1] = pos_arg("min", a_none());
            ins[2] = pos_arg("max", oa);
            n = 3;
        }
        r = dc_pb_emit(&b, tensor ? "clamp.Tensor" : "clamp.default", odt, n, ins);
    } else { /* masked_fill */
        /* the fill value is converted to the input's dtype */
        if (oa.kind == EIR_ARG_INT && is_fp(odt)) oa = a_float((double)oa.u.i);
        uint32_t v = oa.kind == EIR_ARG_TENSOR ? oa.value : dc_pb_scalar(&b, oa, odt);
        r = dc_pb_where(&b, odt, mask, v, x);
    }
    return dc_pb_finish(&b, out, r);
}

/* float_power -> _to_copy(float64) of the operands not already float64, pow */
eir_status decomp_float_power(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", false, &x, &out);
    if (st) return st;
    bool tt = !strcmp(c->op, "aten.float_power.Tensor_Tensor");
    uint32_t e = tt ? dc_tensor_of(c, "exponent") : EIR_NO_VALUE;
    const eir_arg *ea = dc_arg_named(c, "exponent");
    if (tt && e == EIR_NO_VALUE) return dc_refuse(c, "argument 'exponent': expected a tensor");
    if (!tt && (!ea || (ea->kind != EIR_ARG_INT && ea->kind != EIR_ARG_FLOAT)))
        return dc_refuse(c, "argument 'exponent': expected a real number");
    if (meta_of(c, out)->dtype != EIR_F64) return dc_refuse(c, "a complex result");
    if (is_cplx(meta_of(c, x)->dtype)) return dc_refuse(c, "a complex input");
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    uint32_t r;
    if (tt) {
        /* torch converts the exponent first */
        uint32_t e2 = e, x2 = x;
        if (meta_of(c, e)->dtype != EIR_F64) {
            eir_named_arg ti[2] = {pos_arg("self", T(e)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_F64))};
            e2 = dc_pb_emit(&b, "_to_copy.default", EIR_F64, 2, ti);
        }
        if (meta_of(c, x)->dtype != EIR_F64) {
            eir_named_arg ti[2] = {pos_arg("self", T(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_F64))};
            x2 = dc_pb_emit(&b, "_to_copy.default", EIR_F64, 2, ti);
        }
        eir_named_arg pi[2] = {pos_arg("self", T(x2)), pos_arg("exponent", T(e2))};
        r = dc_pb_emit(&b, "pow.Tensor_Tensor", EIR_F64, 2, pi);
    } else {
        uint32_t x2 = x;
        if (meta_of(c, x)->dtype != EIR_F64) {
            eir_named_arg ti[2] = {pos_arg("self", T(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_F64))};
            x2 = dc_pb_emit(&b, "_to_copy.default", EIR_F64, 2, ti);
        }
        eir_named_arg pi[2] = {pos_arg("self", T(x2)), pos_arg("exponent", a_float(scalar_value(ea)))};
        r = dc_pb_emit(&b, "pow.Tensor_Scalar", EIR_F64, 2, pi);
    }
    return dc_pb_finish(&b, out, r);
}

/* ---- chains over one floating input ---- */

eir_status decomp_pw_chain(dc *c) {
    const char *op = c->op + 5;
    uint32_t x, out;
    eir_status st = begin(c, "self", true, &x, &out);
    if (st) return st;
    eir_dtype dt = meta_of(c, x)->dtype;
    eir_arg s1 = {0}, s2 = {0}, s3 = {0};
    bool plain = true;
    if (!strncmp(op, "hardshrink.", 11) || !strncmp(op, "softshrink.", 11)) {
        if (!scalar_arg(c, "lambd", a_float(0.5), &s1)) return dc_refuse(c, "argument 'lambd': expected a number");
    } else if (!strncmp(op, "threshold.", 10)) {
        if (!scalar_arg(c, "threshold", a_none(), &s1) || s1.kind == EIR_ARG_NONE ||
            !scalar_arg(c, "value", a_none(), &s2) || s2.kind == EIR_ARG_NONE)
            return dc_refuse(c, "arguments 'threshold', 'value': expected numbers");
    } else if (!strncmp(op, "softplus.", 9)) {
        if (!scalar_arg(c, "beta", a_int(1), &s1) || !scalar_arg(c, "threshold", a_int(20), &s2))
            return dc_refuse(c, "arguments 'beta', 'threshold': expected numbers");
        /* torch's decomposition scales by an explicit beta other than the int 1 */
        plain = s1.kind == EIR_ARG_INT && s1.u.i == 1;
    } else if (!strncmp(op, "celu.", 5)) {
        if (!scalar_arg(c, "alpha", a_float(1.0), &s1)) return dc_refuse(c, "argument 'alpha': expected a number");
        plain = s1.kind == EIR_ARG_FLOAT && s1.u.f == 1.0;
    } else if (!strncmp(op, "logit.", 6)) {
        double eps;
        if (!dc_float_arg(c, "eps", -1.0, &eps)) return dc_refuse(c, "argument 'eps': expected a float");
        s1 = a_float(eps);
        s2 = a_float(1.0 - eps);
        if (is_none(dc_arg_named(c, "eps"))) s2 = a_float(2.0);
    } else if (!strncmp(op, "nan_to_num.", 11)) {
        double nan = 0, pinf, ninf;
        switch (dt) {
        case EIR_F64: pinf = 1.7976931348623157e+308; break;
        case EIR_F16: pinf = 65504.0; break;
        case EIR_BF16: pinf = 3.3895313892515355e+38; break;
        default: pinf = 3.4028234663852886e+38; break;
        }
        ninf = -pinf;
        if (!dc_float_arg(c, "nan", 0.0, &nan) || !dc_float_arg(c, "posinf", pinf, &pinf) ||
            !dc_float_arg(c, "neginf", ninf, &ninf))
            return dc_refuse(c, "arguments 'nan', 'posinf', 'neginf': expected floats");
        s1 = a_float(nan);
        s2 = a_float(pinf);
        plain = false;
        s3 = a_float(ninf);
    }
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    const eir_dtype B = EIR_BOOL;
    uint32_t r;
    if (!strncmp(op, "sinc.", 5)) {
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(x), a_float(M_PI));
        uint32_t e = dc_pb_b(&b, "eq.Scalar", B, T(m), a_int(0));
        uint32_t s = dc_pb_u(&b, "sin.default", dt, m);
        uint32_t d = dc_pb_b(&b, "div.Tensor", dt, T(s), T(m));
        uint32_t one = dc_pb_scalar(&b, a_int(1), dt);
        r = dc_pb_where(&b, dt, e, one, d);
    } else if (!strncmp(op, "logit.", 6)) {
        uint32_t lt = dc_pb_b(&b, "lt.Scalar", B, T(x), s1);
        uint32_t gt = dc_pb_b(&b, "gt.Scalar", B, T(x), s2);
        uint32_t hi = dc_pb_scalar(&b, s2, dt);
        uint32_t w = dc_pb_where(&b, dt, gt, hi, x);
        uint32_t lo = dc_pb_scalar(&b, s1, dt);
        uint32_t w1 = dc_pb_where(&b, dt, lt, lo, w);
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, a_int(1), T(w1));
        uint32_t d = dc_pb_b(&b, "div.Tensor", dt, T(w1), T(sb));
        r = dc_pb_u(&b, "log.default", dt, d);
    } else if (!strncmp(op, "special_entr.", 13)) {
        uint32_t nn = dc_pb_u(&b, "isnan.default", B, x);
        uint32_t gt = dc_pb_b(&b, "gt.Scalar", B, T(x), a_int(0));
        uint32_t ng = dc_pb_u(&b, "neg.default", dt, x);
        uint32_t lg = dc_pb_u(&b, "log.default", dt, x);
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(ng), T(lg));
        uint32_t eq = dc_pb_b(&b, "eq.Scalar", B, T(x), a_int(0));
        uint32_t ninf = dc_pb_scalar(&b, a_float(-INFINITY), dt);
        uint32_t zero = dc_pb_scalar(&b, a_int(0), dt);
        uint32_t w = dc_pb_where(&b, dt, eq, zero, ninf);
        uint32_t w1 = dc_pb_where(&b, dt, gt, m, w);
        r = dc_pb_where(&b, dt, nn, x, w1);
    } else if (!strncmp(op, "special_ndtr.", 13)) {
        uint32_t m = dc_pb_b(&b, "mul.Scalar", dt, T(x), a_float(M_SQRT1_2));
        uint32_t e = dc_pb_u(&b, "erf.default", dt, m);
        uint32_t a = dc_pb_b(&b, "add.Scalar", dt, T(e), a_int(1));
        r = dc_pb_b(&b, "mul.Scalar", dt, T(a), a_float(0.5));
    } else if (!strncmp(op, "special_log_ndtr.", 17)) {
        uint32_t t = dc_pb_b(&b, "mul.Tensor", dt, T(x), a_float(M_SQRT1_2));
        uint32_t lt = dc_pb_b(&b, "lt.Scalar", B, T(x), a_float(1.0));
        uint32_t ng = dc_pb_u(&b, "neg.default", dt, t);
        uint32_t ex = dc_pb_u(&b, "special_erfcx.default", dt, ng);
        uint32_t d = dc_pb_b(&b, "div.Tensor", dt, T(ex), a_int(2));
        uint32_t lg = dc_pb_u(&b, "log.default", dt, d);
        uint32_t sq = dc_pb_b(&b, "mul.Tensor", dt, T(t), T(t));
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(lg), T(sq));
        uint32_t ec = dc_pb_u(&b, "erfc.default", dt, t);
        uint32_t ng1 = dc_pb_u(&b, "neg.default", dt, ec);
        uint32_t d1 = dc_pb_b(&b, "div.Tensor", dt, T(ng1), a_int(2));
        uint32_t l1 = dc_pb_u(&b, "log1p.default", dt, d1);
        r = dc_pb_where(&b, dt, lt, sb, l1);
    } else if (!strncmp(op, "hardshrink.", 11)) {
        uint32_t a = dc_pb_u(&b, "abs.default", dt, x);
        uint32_t le = dc_pb_b(&b, "le.Scalar", B, T(a), s1);
        uint32_t z = dc_pb_scalar(&b, a_int(0), dt);
        r = dc_pb_where(&b, dt, le, z, x);
    } else if (!strncmp(op, "softshrink.", 11)) {
        uint32_t a = dc_pb_u(&b, "abs.default", dt, x);
        uint32_t gt = dc_pb_b(&b, "gt.Scalar", B, T(a), s1);
        uint32_t sg = dc_pb_u(&b, "sign.default", dt, x);
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(sg), s1);
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(x), T(m));
        uint32_t z = dc_pb_b(&b, "mul.Tensor", dt, T(x), a_int(0));
        r = dc_pb_where(&b, dt, gt, sb, z);
    } else if (!strncmp(op, "threshold.", 10)) {
        uint32_t le = dc_pb_b(&b, "le.Scalar", B, T(x), s1);
        uint32_t v = dc_pb_scalar(&b, s2, dt);
        r = dc_pb_where(&b, dt, le, v, x);
    } else if (!strncmp(op, "softplus.", 9) || !strncmp(op, "mish.", 5)) {
        bool mish = op[0] == 'm';
        if (mish) s2 = a_int(20);
        uint32_t bx = plain || mish ? x : dc_pb_b(&b, "mul.Tensor", dt, T(x), s1);
        uint32_t e = dc_pb_u(&b, "exp.default", dt, bx);
        uint32_t l = dc_pb_u(&b, "log1p.default", dt, e);
        if (!plain && !mish) l = dc_pb_b(&b, "div.Tensor", dt, T(l), s1);
        uint32_t gt = dc_pb_b(&b, "gt.Scalar", B, T(bx), s2);
        r = dc_pb_where(&b, dt, gt, x, l);
        if (mish) {
            uint32_t th = dc_pb_u(&b, "tanh.default", dt, r);
            r = dc_pb_b(&b, "mul.Tensor", dt, T(x), T(th));
        }
    } else if (!strncmp(op, "celu.", 5)) {
        uint32_t in = plain ? x : dc_pb_b(&b, "div.Tensor", dt, T(x), s1);
        uint32_t e = dc_pb_u(&b, "expm1.default", dt, in);
        if (!plain) e = dc_pb_b(&b, "mul.Tensor", dt, T(e), s1);
        uint32_t gt = dc_pb_b(&b, "gt.Scalar", B, T(x), a_int(0));
        r = dc_pb_where(&b, dt, gt, x, e);
    } else if (!strncmp(op, "log_sigmoid.", 12)) {
        uint32_t z = pb_full0(&b, a_int(0), dt);
        uint32_t mn = dc_pb_b(&b, "minimum.default", dt, T(z), T(x));
        uint32_t a = dc_pb_u(&b, "abs.default", dt, x);
        uint32_t ng = dc_pb_u(&b, "neg.default", dt, a);
        uint32_t e = dc_pb_u(&b, "exp.default", dt, ng);
        uint32_t l = dc_pb_u(&b, "log1p.default", dt, e);
        r = dc_pb_b(&b, "sub.Tensor", dt, T(mn), T(l));
    } else if (!strncmp(op, "isfinite.", 9)) {
        uint32_t a = dc_pb_u(&b, "abs.default", dt, x);
        uint32_t ne = dc_pb_b(&b, "ne.Scalar", B, T(a), a_float(INFINITY));
        uint32_t eq = dc_pb_b(&b, "eq.Tensor", B, T(x), T(x));
        r = dc_pb_b(&b, "mul.Tensor", B, T(eq), T(ne));
    } else { /* nan_to_num */
        uint32_t nn = dc_pb_u(&b, "isnan.default", B, x);
        uint32_t v0 = dc_pb_scalar(&b, s1, dt);
        uint32_t w = dc_pb_where(&b, dt, nn, v0, x);
        uint32_t eq = dc_pb_b(&b, "eq.Scalar", B, T(x), a_float(-INFINITY));
        uint32_t v1 = dc_pb_scalar(&b, s3, dt);
        uint32_t w1 = dc_pb_where(&b, dt, eq, v1, w);
        uint32_t eq1 = dc_pb_b(&b, "eq.Scalar", B, T(x), a_float(INFINITY));
        uint32_t v2 = dc_pb_scalar(&b, s2, dt);
        r = dc_pb_where(&b, dt, eq1, v2, w1);
    }
    return dc_pb_finish(&b, out, r);
}

/* ---- chains over two or three floating inputs of one dtype ---- */

eir_status decomp_pw_chain2(dc *c) {
    const char *op = c->op + 5;
    uint32_t x, out, y = EIR_NO_VALUE, z = EIR_NO_VALUE;
    bool addc = !strncmp(op, "addcdiv.", 8) || !strncmp(op, "addcmul.", 8);
    eir_status st = begin(c, "self", !addc || strncmp(op, "addcmul.", 8), &x, &out);
    if (st) return st;
    eir_dtype dt = meta_of(c, x)->dtype;
    if (meta_of(c, out)->dtype != dt && meta_of(c, out)->dtype != EIR_BOOL)
        return dc_refuse(c, "a result of another dtype than the input's");
    const char *yname = !strncmp(op, "heaviside.", 10) ? "values" : !strncmp(op, "lerp.", 5) ? "end"
                        : addc ? "tensor1" : "other";
    if ((st = same_dtype_tensor(c, yname, x, &y))) return st;
    eir_arg s1 = {0};
    if (!strcmp(op, "lerp.Tensor") && (st = same_dtype_tensor(c, "weight", x, &z))) return st;
    if (!strcmp(op, "lerp.Scalar") && !scalar_arg(c, "weight", a_none(), &s1))
        return dc_refuse(c, "argument 'weight': expected a number");
    if (addc) {
        if ((st = same_dtype_tensor(c, "tensor2", x, &z))) return st;
        if (!scalar_arg(c, "value", a_int(1), &s1)) return dc_refuse(c, "argument 'value': expected a number");
    }
    double rtol = 1e-5, atol = 1e-8;
    if (!strncmp(op, "isclose.", 8)) {
        bool en = false;
        if (!dc_float_arg(c, "rtol", 1e-5, &rtol) || !dc_float_arg(c, "atol", 1e-8, &atol) ||
            !dc_bool_arg(c, "equal_nan", false, &en))
            return dc_refuse(c, "arguments 'rtol', 'atol', 'equal_nan': expected floats and a bool");
        s1 = a_bool(en);
    }
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    const eir_dtype B = EIR_BOOL;
    uint32_t r;
    if (!strncmp(op, "xlogy.", 6) || !strncmp(op, "special_xlog1py.", 16)) {
        uint32_t eq = dc_pb_b(&b, "eq.Scalar", B, T(x), a_int(0));
        uint32_t lg = dc_pb_u(&b, op[1] == 'l' ? "log.default" : "log1p.default", dt, y);
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(x), T(lg));
        uint32_t z0 = dc_pb_scalar(&b, a_int(0), dt);
        uint32_t w = dc_pb_where(&b, dt, eq, z0, m);
        uint32_t nn = dc_pb_u(&b, "isnan.default", B, y);
        uint32_t nv = dc_pb_scalar(&b, a_float(NAN), dt);
        r = dc_pb_where(&b, dt, nn, nv, w);
    } else if (!strncmp(op, "heaviside.", 10)) {
        uint32_t eq = dc_pb_b(&b, "eq.Scalar", B, T(x), a_int(0));
        uint32_t lt = dc_pb_b(&b, "lt.Scalar", B, T(x), a_int(0));
        uint32_t nn = dc_pb_u(&b, "isnan.default", B, x);
        uint32_t lo = dc_pb_b(&b, "logical_or.default", B, T(lt), T(nn));
        uint32_t one = dc_pb_scalar(&b, a_int(1), EIR_I64);
        uint32_t zero = dc_pb_scalar(&b, a_int(0), EIR_I64);
        uint32_t w = dc_pb_where(&b, EIR_I64, lo, zero, one);
        r = dc_pb_where(&b, dt, eq, y, w);
    } else if (!strncmp(op, "logaddexp.", 10) || !strncmp(op, "logaddexp2.", 11)) {
        bool two = op[9] == '2';
        uint32_t ge = dc_pb_b(&b, "ge.Tensor", B, T(x), T(y));
        uint32_t mx = dc_pb_where(&b, dt, ge, x, y);
        uint32_t mn = dc_pb_where(&b, dt, ge, y, x);
        uint32_t same;
        if (!two) {
            uint32_t a = dc_pb_u(&b, "abs.default", dt, x);
            uint32_t ne = dc_pb_b(&b, "ne.Scalar", B, T(a), a_float(INFINITY));
            uint32_t eq = dc_pb_b(&b, "eq.Tensor", B, T(x), T(x));
            uint32_t fin = dc_pb_b(&b, "mul.Tensor", B, T(eq), T(ne));
            uint32_t inf = dc_pb_u(&b, "logical_not.default", B, fin);
            uint32_t eq1 = dc_pb_b(&b, "eq.Tensor", B, T(x), T(y));
            same = dc_pb_b(&b, "logical_and.default", B, T(inf), T(eq1));
        } else {
            uint32_t inf = dc_pb_u(&b, "isinf.default", B, x);
            uint32_t eq = dc_pb_b(&b, "eq.Tensor", B, T(x), T(y));
            same = dc_pb_b(&b, "logical_and.default", B, T(inf), T(eq));
        }
        uint32_t d = dc_pb_b(&b, "sub.Tensor", dt, T(mn), T(mx));
        uint32_t e = dc_pb_u(&b, two ? "exp2.default" : "exp.default", dt, d);
        uint32_t l = dc_pb_u(&b, "log1p.default", dt, e);
        if (two) l = dc_pb_b(&b, "mul.Tensor", dt, T(l), a_float(1.0 / M_LN2));
        uint32_t a = dc_pb_b(&b, "add.Tensor", dt, T(mx), T(l));
        r = dc_pb_where(&b, dt, same, x, a);
    } else if (!strncmp(op, "lerp.", 5)) {
        uint32_t w = z;
        if (w == EIR_NO_VALUE) w = pb_full0(&b, s1, dt);
        uint32_t a = dc_pb_u(&b, "abs.default", dt, w);
        uint32_t ge = dc_pb_b(&b, "ge.Scalar", B, T(a), a_float(0.5));
        uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(w), a_int(1));
        uint32_t wt = dc_pb_where(&b, dt, ge, sb, w);
        uint32_t base = dc_pb_where(&b, dt, ge, y, x);
        uint32_t d = dc_pb_b(&b, "sub.Tensor", dt, T(y), T(x));
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(wt), T(d));
        r = dc_pb_b(&b, "add.Tensor", dt, T(m), T(base));
    } else if (addc) {
        uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(y), s1);
        uint32_t q = dc_pb_b(&b, op[4] == 'd' ? "div.Tensor" : "mul.Tensor", dt, T(m), T(z));
        r = dc_pb_b(&b, "add.Tensor", dt, T(x), T(q));
    } else { /* isclose */
        uint32_t eq = dc_pb_b(&b, "eq.Tensor", B, T(x), T(y));
        if (s1.u.b) {
            uint32_t n0 = dc_pb_u(&b, "isnan.default", B, x);
            uint32_t n1 = dc_pb_u(&b, "isnan.default", B, y);
            uint32_t nb = dc_pb_b(&b, "bitwise_and.Tensor", B, T(n0), T(n1));
            eq = dc_pb_b(&b, "bitwise_or.Tensor", B, T(eq), T(nb));
        }
        uint32_t m = dc_pb_b(&b, "mul.Scalar", dt, T(y), a_float(rtol));
        uint32_t a = dc_pb_u(&b, "abs.default", dt, m);
        uint32_t tol = dc_pb_b(&b, "add.Scalar", dt, T(a), a_float(atol));
        uint32_t d = dc_pb_b(&b, "sub.Tensor", dt, T(x), T(y));
        uint32_t ad = dc_pb_u(&b, "abs.default", dt, d);
        uint32_t ad2 = dc_pb_u(&b, "abs.default", dt, ad);
        uint32_t ne = dc_pb_b(&b, "ne.Scalar", B, T(ad2), a_float(INFINITY));
        uint32_t eq1 = dc_pb_b(&b, "eq.Tensor", B, T(ad), T(ad));
        uint32_t fin = dc_pb_b(&b, "mul.Tensor", B, T(eq1), T(ne));
        uint32_t le = dc_pb_b(&b, "le.Tensor", B, T(ad), T(tol));
        uint32_t an = dc_pb_b(&b, "bitwise_and.Tensor", B, T(fin), T(le));
        r = dc_pb_b(&b, "bitwise_or.Tensor", B, T(eq), T(an));
    }
    return dc_pb_finish(&b, out, r);
}

/* ---- activations that slice or view ---- */

/* glu(x, dim) -> slice, slice, sigmoid, mul */
eir_status decomp_glu(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", true, &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dim = -1;
    if (!is_none(dc_arg_named(c, "dim")) && !int_of(dc_arg_named(c, "dim"), &dim))
        return dc_refuse(c, "argument 'dim': expected an int");
    dim = wrap_dim(dim, xm->rank);
    if (dim < 0 || dim >= (int64_t)xm->rank || xm->sizes[dim].value % 2)
        return dc_refuse(c, "argument 'dim': %lld is out of range or halves an odd size", (long long)dim);
    if (c->dry) return EIR_OK;
    int64_t h = xm->sizes[dim].value / 2;
    pb b;
    dc_pb_init(&b, c, x);
    uint32_t half[2];
    for (int k = 0; k < 2; k++) {
        tm t;
        dc_tm_from(&t, xm);
        t.sz[dim] = si(h);
        t.m.storage_offset = si(xm->storage_offset.value + k * h * xm->strides[dim].value);
        eir_named_arg si_[4] = {pos_arg("self", T(x)), pos_arg("dim", a_int(dim)), pos_arg("start", a_int(k * h)),
                                pos_arg("end", a_int((k + 1) * h))};
        half[k] = dc_pb_emit_m(&b, "slice.Tensor", xm->dtype, 4, si_, &t.m);
    }
    uint32_t s = dc_pb_u(&b, "sigmoid.default", xm->dtype, half[1]);
    uint32_t r = dc_pb_b(&b, "mul.Tensor", xm->dtype, T(half[0]), T(s));
    return dc_pb_finish(&b, out, r);
}

/* prelu(x, w) -> view(w, [1, C, 1, ...]), gt, mul, where */
eir_status decomp_prelu(dc *c) {
    uint32_t x, out, w;
    eir_status st = begin(c, "self", true, &x, &out);
    if (st) return st;
    if ((st = same_dtype_tensor(c, "weight", x, &w))) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *wm = meta_of(c, w);
    int64_t wn = 1;
    for (uint32_t i = 0; i < wm->rank; i++) wn *= wm->sizes[i].value;
    if (wm->rank > 1 || (xm->rank >= 2 ? wn != 1 && wn != xm->sizes[1].value : wn != 1))
        return dc_refuse(c, "a weight of %lld elements for an input of rank %u (a 1-d weight of 1 or C elements is "
                         "decomposed)", (long long)wn, xm->rank);
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    /* the weight viewed as [1, C, 1, ...] ([C] for a 1-d input), unless it
     * has that shape */
    int64_t sz[MAXR];
    for (uint32_t i = 0; i < xm->rank; i++) sz[i] = i == 1 || xm->rank == 1 ? wn : 1;
    bool same = wm->rank == xm->rank;
    for (uint32_t i = 0; same && i < xm->rank; i++) same = wm->sizes[i].value == sz[i];
    tm vm;
    dc_tm_new(&vm, wm, wm->dtype, sz, xm->rank);
    vm.m.storage_offset = wm->storage_offset;
    uint32_t v = w;
    if (!same && (b.st = dc_emit_reshape(c, w, &vm.m, "view", &v))) return b.st;
    uint32_t gt = dc_pb_b(&b, "gt.Scalar", EIR_BOOL, T(x), a_int(0));
    uint32_t m = dc_pb_b(&b, "mul.Tensor", xm->dtype, T(v), T(x));
    uint32_t r = dc_pb_where(&b, xm->dtype, gt, x, m);
    return dc_pb_finish(&b, out, r);
}

/* ---- reductions ---- */

/* dims of a reduction: the int list argument `name` (absent or empty: all),
 * wrapped; *all set when it was absent or None */
static bool red_dims(dc *c, const char *name, uint32_t rank, int64_t *dims, uint32_t *n, bool *all) {
    const eir_arg *a = dc_arg_named(c, name);
    *all = is_none(a);
    if (*all) {
        *n = 0;
        return true;
    }
    if (!dc_ints_of(a, dims, MAXR, n)) return false;
    for (uint32_t i = 0; i < *n; i++) {
        dims[i] = wrap_dim(dims[i], rank);
        if (dims[i] < 0 || (rank && dims[i] >= (int64_t)rank) || (!rank && dims[i] > 0)) return false;
    }
    return true;
}

/* the metadata of reducing m over dims (all when n == 0), keepdim or not,
 * contiguous, of dtype dt */
static void red_meta(tm *t, const eir_tensor_meta *m, const int64_t *dims, uint32_t n, bool keep, eir_dtype dt) {
    int64_t sz[MAXR];
    uint32_t r = 0;
    for (uint32_t d = 0; d < m->rank; d++) {
        bool red = n == 0;
        for (uint32_t i = 0; i < n; i++) red = red || dims[i] == (int64_t)d;
        if (!red) sz[r++] = m->sizes[d].value;
        else if (keep) sz[r++] = 1;
    }
    dc_tm_new(t, m, dt, sz, r);
}

/* The dims argument as the node wrote it (None, or the list). */
static eir_arg dims_as_given(dc *c, const char *name) {
    const eir_arg *a = dc_arg_named(c, name);
    if (is_none(a)) return a_none();
    eir_arg o = *a;
    o.name = NULL;
    return o;
}

/* sum.dim_IntList(x, dims[, True][, dtype]) */
static uint32_t pb_sum(pb *b, uint32_t x, eir_arg dims, const int64_t *dv, uint32_t n, bool keep, eir_dtype dt) {
    eir_named_arg ins[3] = {pos_arg("self", T(x)), pos_arg("dim", dims), pos_arg("keepdim", a_bool(true))};
    tm t;
    red_meta(&t, meta_of(b->c, x), dv, n, keep, dt);
    return dc_pb_emit_m(b, "sum.dim_IntList", dt, keep ? 3 : 2, ins, &t.m);
}

/* logsumexp(x, dim, keepdim) -> amax, abs, eq, scalar_tensor, where,
 * [squeeze], sub, exp, sum, log, add */
eir_status decomp_logsumexp(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", false, &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    eir_dtype dt = meta_of(c, out)->dtype;
    /* integer inputs are converted to the (float) result dtype first */
    if (!is_fp(dt) || (xm->dtype != dt && (is_fp(xm->dtype) || is_cplx(xm->dtype))))
        return dc_refuse(c, "a result of dtype %s from an input of dtype %s", eir_dtype_name(dt),
                         eir_dtype_name(xm->dtype));
    int64_t dims[MAXR];
    uint32_t n;
    bool all, keep = false;
    if (!red_dims(c, "dim", xm->rank, dims, &n, &all) || all) return dc_refuse(c, "argument 'dim': expected dims in range");
    if (!dc_bool_arg(c, "keepdim", false, &keep)) return dc_refuse(c, "argument 'keepdim': expected a bool");
    /* over an empty dimension torch skips the max */
    bool empty = false;
    for (uint32_t i = 0; i < n; i++) empty = empty || (xm->rank && xm->sizes[dims[i]].value == 0);
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    if (xm->dtype != dt) {
        eir_named_arg ti[2] = {pos_arg("self", T(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt))};
        x = dc_pb_emit(&b, "_to_copy.default", dt, 2, ti);
        if (b.st) return b.st;
        xm = meta_of(c, x);
    }
    eir_arg da = dims_as_given(c, "dim");
    if (empty) {
        uint32_t e = dc_pb_u(&b, "exp.default", dt, x);
        uint32_t s = pb_sum(&b, e, da, dims, n, keep, dt);
        return dc_pb_finish(&b, out, dc_pb_u(&b, "log.default", dt, s));
    }
    tm km;
    red_meta(&km, xm, dims, n, true, dt);
    eir_named_arg ai[3] = {pos_arg("self", T(x)), pos_arg("dim", da), pos_arg("keepdim", a_bool(true))};
    uint32_t mx = dc_pb_emit_m(&b, "amax.default", dt, 3, ai, &km.m);
    uint32_t a = dc_pb_u(&b, "abs.default", dt, mx);
    uint32_t eq = dc_pb_b(&b, "eq.Scalar", EIR_BOOL, T(a), a_float(INFINITY));
    uint32_t z = dc_pb_scalar(&b, a_float(0.0), dt);
    uint32_t w = dc_pb_where(&b, dt, eq, z, mx);
    uint32_t sq = w;
    if (!keep) {
        tm qm;
        red_meta(&qm, xm, dims, n, false, dt);
        eir_named_arg qi[2] = {pos_arg("self", T(w)), pos_arg("dim", da)};
        sq = dc_pb_emit_m(&b, "squeeze.dims", dt, 2, qi, &qm.m);
    }
    uint32_t sb = dc_pb_b(&b, "sub.Tensor", dt, T(x), T(w));
    uint32_t e = dc_pb_u(&b, "exp.default", dt, sb);
    uint32_t s = pb_sum(&b, e, da, dims, n, keep, dt);
    uint32_t l = dc_pb_u(&b, "log.default", dt, s);
    uint32_t r = dc_pb_b(&b, "add.Tensor", dt, T(l), T(sq));
    return dc_pb_finish(&b, out, r);
}

/* nansum / nanmean / count_nonzero */
eir_status decomp_nan_reduce(dc *c) {
    const char *op = c->op + 5;
    bool cnz = !strncmp(op, "count_nonzero.", 14), mean = !strncmp(op, "nanmean.", 8);
    uint32_t x, out;
    eir_status st = begin(c, "self", !cnz, &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dims[MAXR];
    uint32_t n;
    bool all, keep = false;
    if (!red_dims(c, "dim", xm->rank, dims, &n, &all)) return dc_refuse(c, "argument 'dim': expected dims in range");
    if (!dc_bool_arg(c, "keepdim", false, &keep)) return dc_refuse(c, "argument 'keepdim': expected a bool");
    if (!is_none(dc_arg_named(c, "dtype"))) return dc_refuse(c, "argument 'dtype' is not decomposed");
    if (cnz && (xm->dtype == EIR_BOOL || is_cplx(xm->dtype)))
        return dc_refuse(c, "argument 'self': dtype %s (bool and complex inputs are not decomposed)",
                         eir_dtype_name(xm->dtype));
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    eir_dtype dt = xm->dtype;
    eir_arg da = dims_as_given(c, "dim");
    /* count_nonzero.default takes one optional int */
    if (da.kind == EIR_ARG_INT) {
        int64_t d = da.u.i;
        da = dc_a_ints(c, &d, 1);
    }
    uint32_t r;
    if (cnz) {
        uint32_t ne = dc_pb_b(&b, "ne.Scalar", EIR_BOOL, T(x), a_int(0));
        r = pb_sum(&b, ne, da, dims, n, keep, EIR_I64);
        return dc_pb_finish(&b, out, r);
    }
    uint32_t cnt = EIR_NO_VALUE;
    if (mean) {
        eir_named_arg ai[1] = {pos_arg("self", T(x))};
        uint32_t al = dc_pb_emit_m(&b, "alias.default", dt, 1, ai, xm);
        uint32_t ne = dc_pb_b(&b, "ne.Tensor", EIR_BOOL, T(al), T(al));
        uint32_t ln = dc_pb_u(&b, "logical_not.default", EIR_BOOL, ne);
        cnt = pb_sum(&b, ln, da, dims, n, keep, EIR_I64);
    }
    uint32_t nn = dc_pb_u(&b, "isnan.default", EIR_BOOL, x);
    uint32_t z = dc_pb_scalar(&b, a_int(0), dt);
    uint32_t w = dc_pb_where(&b, dt, nn, z, x);
    r = pb_sum(&b, w, da, dims, n, keep, dt);
    if (mean) {
        tm dm;
        red_meta(&dm, xm, dims, n, keep, dt);
        eir_named_arg di[2] = {pos_arg("self", T(r)), pos_arg("other", T(cnt))};
        r = dc_pb_emit_m(&b, "div.Tensor", dt, 2, di, &dm.m);
    }
    return dc_pb_finish(&b, out, r);
}

/* std / var / std_mean / var_mean (.default, .dim, .correction) ->
 * var.correction (+ sqrt) or var_mean.correction (+ sqrt of the first) */
eir_status decomp_var_std(dc *c) {
    const char *op = c->op + 5;
    bool sd = op[0] == 's', pair = strstr(op, "_mean.") != NULL;
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    uint32_t outs[2] = {EIR_NO_VALUE, EIR_NO_VALUE};
    uint32_t nout = pair ? 2 : 1;
    if (c->src.num_outputs != nout) return dc_refuse(c, "expected %u tensor outputs", nout);
    for (uint32_t i = 0; i < nout; i++) {
        if (c->src.outputs[i].kind != EIR_ARG_TENSOR || c->src.outputs[i].value >= c->g->num_values)
            return dc_refuse(c, "expected %u tensor outputs", nout);
        outs[i] = c->src.outputs[i].value;
    }
    const eir_tensor_meta *xm = meta_of(c, x);
    if (!is_fp(xm->dtype)) return dc_refuse(c, "argument 'self': dtype %s (only floating inputs are decomposed)",
                                            eir_dtype_name(xm->dtype));
    eir_status st = dc_pw_check_concrete(c);
    if (st) return st;
    int64_t dims[MAXR];
    uint32_t n;
    bool all, keep = false;
    if (!red_dims(c, "dim", xm->rank, dims, &n, &all)) return dc_refuse(c, "argument 'dim': expected dims in range");
    if (!dc_bool_arg(c, "keepdim", false, &keep)) return dc_refuse(c, "argument 'keepdim': expected a bool");
    /* torch writes the correction of std as a float, of var from
     * unbiased as an int */
    eir_arg corr;
    if (strstr(op, ".correction")) {
        const eir_arg *ca = dc_arg_named(c, "correction");
        if (is_none(ca)) corr = sd ? a_float(1.0) : a_none();
        else if (!scalar_arg(c, "correction", a_none(), &corr)) return dc_refuse(c, "argument 'correction': expected a number");
        if (sd && corr.kind == EIR_ARG_INT) corr = a_float((double)corr.u.i);
    } else {
        bool unb = true;
        if (!dc_bool_arg(c, "unbiased", true, &unb)) return dc_refuse(c, "argument 'unbiased': expected a bool");
        corr = sd ? a_float(unb ? 1.0 : 0.0) : a_int(unb ? 1 : 0);
    }
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    eir_named_arg ins[4];
    uint32_t k = 0;
    ins[k++] = pos_arg("self", T(x));
    if (!all) ins[k++] = pos_arg("dim", dims_as_given(c, "dim"));
    if (corr.kind != EIR_ARG_NONE) ins[k++] = kw_arg("correction", corr);
    if (keep) ins[k++] = kw_arg("keepdim", a_bool(true));
    uint32_t r[2];
    if (pair) {
        const eir_tensor_meta *ms[2] = {meta_of(c, outs[0]), meta_of(c, outs[1])};
        if ((st = dc_emit_n(c, "var_mean.correction", k, ins, 2, ms, "var_mean", false, r))) return st;
    } else {
        r[0] = dc_pb_emit_m(&b, "var.correction", xm->dtype, k, ins, meta_of(c, outs[0]));
        if (b.st) return b.st;
    }
    if (sd) {
        r[0] = dc_pb_u(&b, "sqrt.default", xm->dtype, r[0]);
        if ((st = dc_pb_finish(&b, outs[0], r[0]))) return st;
    } else if ((st = finish(c, outs[0], r[0])))
        return st;
    return pair ? finish(c, outs[1], r[1]) : EIR_OK;
}

/* all.default / all.dim / all.dims -> logical_not, any.dims / any.dim, logical_not */
eir_status decomp_all(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", false, &x, &out);
    if (st) return st;
    bool keep = false;
    if (!dc_bool_arg(c, "keepdim", false, &keep)) return dc_refuse(c, "argument 'keepdim': expected a bool");
    if (c->dry) return EIR_OK;
    pb b;
    dc_pb_init(&b, c, x);
    uint32_t ln = dc_pb_u(&b, "logical_not.default", EIR_BOOL, x);
    tm am;
    dc_tm_from(&am, meta_of(c, out));
    am.m.dtype = EIR_BOOL;
    eir_named_arg ins[3] = {pos_arg("self", T(ln)), {0}, pos_arg("keepdim", a_bool(true))};
    uint32_t k = 1;
    const char *tg = "any.dims";
    if (!strcmp(c->op, "aten.all.dim")) {
        ins[k++] = pos_arg("dim", dims_as_given(c, "dim"));
        tg = "any.dim";
    } else if (!strcmp(c->op, "aten.all.dims") && !is_none(dc_arg_named(c, "dim")))
        ins[k++] = pos_arg("dim", dims_as_given(c, "dim"));
    if (keep) {
        if (k == 1) ins[k++] = pos_arg("dim", a_none());
        ins[k++] = pos_arg("keepdim", a_bool(true));
    }
    uint32_t an = dc_pb_emit_m(&b, tg, EIR_BOOL, k, ins, &am.m);
    uint32_t r = dc_pb_u(&b, "logical_not.default", EIR_BOOL, an);
    return dc_pb_finish(&b, out, r);
}

/* aminmax -> amin, amax */
eir_status decomp_aminmax(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    if (c->src.num_outputs != 2 || c->src.outputs[0].kind != EIR_ARG_TENSOR || c->src.outputs[1].kind != EIR_ARG_TENSOR)
        return dc_refuse(c, "expected two tensor outputs");
    const eir_arg *da = dc_arg_named(c, "dim");
    int64_t d = 0;
    if (!is_none(da) && !int_of(da, &d)) return dc_refuse(c, "argument 'dim': expected an int");
    bool keep = false;
    if (!dc_bool_arg(c, "keepdim", false, &keep)) return dc_refuse(c, "argument 'keepdim': expected a bool");
    if (c->dry) return EIR_OK;
    eir_named_arg ins[3] = {pos_arg("self", T(x)), pos_arg("dim", is_none(da) ? dc_a_ints(c, NULL, 0) : dc_a_ints(c, &d, 1)),
                            pos_arg("keepdim", a_bool(true))};
    uint32_t k = is_none(da) ? 1 : keep ? 3 : 2;
    for (int i = 0; i < 2; i++) {
        uint32_t out = c->src.outputs[i].value, r;
        eir_status st = dc_emit(c, i ? "amax.default" : "amin.default", k, ins, meta_of(c, out), i ? "amax" : "amin", &r);
        if (st) return st;
        if ((st = finish(c, out, r))) return st;
        if (!is_none(da)) ins[1] = pos_arg("dim", dc_a_ints(c, &d, 1));
    }
    return EIR_OK;
}

/* mvlgamma(x, p) -> arange, mul, unsqueeze, add, lgamma, sum, add */
eir_status decomp_mvlgamma(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", true, &x, &out);
    if (st) return st;
    int64_t p;
    if (!int_of(dc_arg_named(c, "p"), &p) || p < 1 || p > 4096) return dc_refuse(c, "argument 'p': expected an int >= 1");
    if (meta_of(c, x)->rank >= MAXR) return dc_refuse(c, "rank above %d", MAXR - 1);
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *xm = meta_of(c, x);
    eir_dtype dt = xm->dtype;
    pb b;
    dc_pb_init(&b, c, x);
    tm am;
    dc_tm_new(&am, xm, dt, &p, 1);
    eir_named_arg ai[5] = {pos_arg("start", a_int(1 - p)), pos_arg("end", a_int(1)),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)), kw_arg("device", dc_a_device(xm)),
                           kw_arg("pin_memory", a_bool(false))};
    uint32_t ar = dc_pb_emit_m(&b, "arange.start_step", dt, 5, ai, &am.m);
    uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(ar), a_float(0.5));
    tm um;
    dc_tm_from(&um, xm);
    um.m.rank = xm->rank + 1;
    um.sz[xm->rank] = si(1);
    um.st[xm->rank] = si(1);
    eir_named_arg ui[2] = {pos_arg("self", T(x)), pos_arg("dim", a_int(-1))};
    uint32_t u = dc_pb_emit_m(&b, "unsqueeze.default", dt, 2, ui, &um.m);
    uint32_t a = dc_pb_b(&b, "add.Tensor", dt, T(u), T(m));
    uint32_t lg = dc_pb_u(&b, "lgamma.default", dt, a);
    int64_t last = xm->rank, m1 = -1;
    uint32_t s = pb_sum(&b, lg, dc_a_ints(c, &m1, 1), &last, 1, false, dt);
    double k = (double)p * (double)(p - 1) / 4.0 * log(M_PI);
    uint32_t r = dc_pb_b(&b, "add.Tensor", dt, T(s), a_float(k));
    return dc_pb_finish(&b, out, r);
}

/* renorm(x, p, dim, maxnorm) -> linalg_vector_norm over the other dims,
 * gt, add, reciprocal, mul, scalar_tensor, where, mul */
eir_status decomp_renorm(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", true, &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dim;
    eir_arg p, mx;
    if (!int_of(dc_arg_named(c, "dim"), &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    dim = wrap_dim(dim, xm->rank);
    if (dim < 0 || dim >= (int64_t)xm->rank) return dc_refuse(c, "argument 'dim': out of range");
    if (!scalar_arg(c, "p", a_none(), &p) || p.kind == EIR_ARG_NONE || !scalar_arg(c, "maxnorm", a_none(), &mx) ||
        mx.kind == EIR_ARG_NONE)
        return dc_refuse(c, "arguments 'p', 'maxnorm': expected numbers");
    if (c->dry) return EIR_OK;
    eir_dtype dt = xm->dtype;
    pb b;
    dc_pb_init(&b, c, x);
    int64_t dims[MAXR];
    uint32_t n = 0;
    for (uint32_t d = 0; d < xm->rank; d++)
        if ((int64_t)d != dim) dims[n++] = d;
    tm nm;
    red_meta(&nm, xm, dims, n, true, dt);
    if (!n) dc_tm_from(&nm, xm);
    eir_named_arg ni[4] = {pos_arg("self", T(x)), pos_arg("ord", p), pos_arg("dim", dc_a_ints(c, dims, n)),
                           pos_arg("keepdim", a_bool(true))};
    uint32_t nv = dc_pb_emit_m(&b, "linalg_vector_norm.default", dt, 4, ni, &nm.m);
    uint32_t gt = dc_pb_b(&b, "gt.Scalar", EIR_BOOL, T(nv), mx);
    uint32_t a = dc_pb_b(&b, "add.Tensor", dt, T(nv), a_float(1e-7));
    uint32_t rc = dc_pb_u(&b, "reciprocal.default", dt, a);
    uint32_t m = dc_pb_b(&b, "mul.Tensor", dt, T(rc), mx);
    uint32_t one = dc_pb_scalar(&b, a_float(1.0), dt);
    uint32_t w = dc_pb_where(&b, dt, gt, m, one);
    uint32_t r = dc_pb_b(&b, "mul.Tensor", dt, T(x), T(w));
    return dc_pb_finish(&b, out, r);
}

/* _safe_softmax(x, dim) -> _softmax, and rows all -inf set to 0 (eq,
 * logical_not, any.dim, logical_not, full_like, where) */
eir_status decomp_safe_softmax(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", true, &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dim;
    if (!int_of(dc_arg_named(c, "dim"), &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (!is_none(dc_arg_named(c, "dtype"))) return dc_refuse(c, "argument 'dtype' is not decomposed");
    int64_t wd = wrap_dim(dim, xm->rank);
    if (wd < 0 || wd >= (int64_t)(xm->rank ? xm->rank : 1)) return dc_refuse(c, "argument 'dim': out of range");
    if (c->dry) return EIR_OK;
    eir_dtype dt = xm->dtype;
    pb b;
    dc_pb_init(&b, c, x);
    eir_named_arg si_[3] = {pos_arg("self", T(x)), pos_arg("dim", a_int(dim)), pos_arg("half_to_float", a_bool(false))};
    uint32_t sm = dc_pb_emit(&b, "_softmax.default", dt, 3, si_);
    uint32_t eq = dc_pb_b(&b, "eq.Scalar", EIR_BOOL, T(x), a_float(-INFINITY));
    uint32_t ln = dc_pb_u(&b, "logical_not.default", EIR_BOOL, eq);
    tm am;
    if (xm->rank) red_meta(&am, xm, &wd, 1, true, EIR_BOOL);
    else dc_tm_new(&am, xm, EIR_BOOL, NULL, 0);
    eir_named_arg ai[3] = {pos_arg("self", T(ln)), pos_arg("dim", a_int(dim)), pos_arg("keepdim", a_bool(true))};
    uint32_t an = dc_pb_emit_m(&b, "any.dim", EIR_BOOL, 3, ai, &am.m);
    uint32_t ln1 = dc_pb_u(&b, "logical_not.default", EIR_BOOL, an);
    eir_named_arg fi[4] = {pos_arg("self", T(sm)), pos_arg("fill_value", a_int(0)), kw_arg("pin_memory", a_bool(false)),
                           kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE))};
    uint32_t z = dc_pb_emit(&b, "full_like.default", dt, 4, fi);
    uint32_t r = dc_pb_where(&b, dt, ln1, z, sm);
    return dc_pb_finish(&b, out, r);
}

/* rrelu(x, lower, upper, training) -> empty(noise) +
 * rrelu_with_noise_functional(x, noise, ...) (non-core, as torch leaves
 * it), the node's own scalars passed on as written */
eir_status decomp_rrelu(dc *c) {
    uint32_t x, out;
    eir_status st = begin(c, "self", true, &x, &out);
    if (st) return st;
    static const char *const names[3] = {"lower", "upper", "training"};
    eir_named_arg ins[5];
    uint32_t n = 2;
    for (uint32_t i = 0; i < 3; i++) {
        const eir_arg *a = dc_arg_named(c, names[i]);
        if (is_none(a)) break;
        if (a->kind != EIR_ARG_FLOAT && a->kind != EIR_ARG_INT && a->kind != EIR_ARG_BOOL)
            return dc_refuse(c, "argument '%s': expected a number", names[i]);
        eir_arg v = *a;
        v.name = NULL;
        ins[n++] = pos_arg(names[i], v);
    }
    if (!is_none(dc_arg_named(c, "generator"))) return dc_refuse(c, "argument 'generator' is not decomposed");
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t sz[MAXR];
    for (uint32_t i = 0; i < xm->rank; i++) sz[i] = xm->sizes[i].value;
    tm em;
    dc_tm_new(&em, xm, xm->dtype, sz, xm->rank);
    eir_named_arg ei[6] = {pos_arg("size", dc_a_ints(c, sz, xm->rank)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm)),
                           kw_arg("pin_memory", a_bool(false)),
                           kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    uint32_t noise;
    if ((st = dc_emit(c, "empty.memory_format", 6, ei, &em.m, "empty", &noise))) return st;
    ins[0] = pos_arg("self", T(x));
    ins[1] = pos_arg("noise", T(noise));
    const eir_tensor_meta *ms[2] = {meta_of(c, out), &em.m};
    uint32_t r[2];
    if ((st = dc_emit_n(c, "rrelu_with_noise_functional.default", n, ins, 2, ms, "rrelu_with_noise_functional", false, r)))
        return st;
    return finish(c, out, r[0]);
}
