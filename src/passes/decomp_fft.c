/* decomp_fft.c — to-core rules for the torch.fft front ends: fft / ifft /
 * rfft / irfft / hfft / ihfft and their 2-d and n-d forms become the
 * primitives torch 2.13's ep.run_decompositions() keeps (_fft_r2c,
 * _fft_c2c, _fft_c2r), with ATen's SpectralOps.cpp steps around them: the
 * promotion of the input (_to_copy to a floating or complex dtype), the
 * signal sizes `n` / `s` by slice (shorter) and constant_pad_nd (longer),
 * the norm string as ATen's code (0 none, 1 by sqrt(n), 2 by n), and the
 * conjugations of the inverse real and Hermitian transforms (_conj, with a
 * clone where a conjugate view feeds _fft_c2r, or _conj_physical). */
#include <stdio.h>
#include <string.h>

#include "decomp_int.h"

enum { FFT_C2C_OR_R2C, FFT_R2C, FFT_C2R, FFT_N_C2C, FFT_N_R2C, FFT_N_C2R, FFT_N_HFFT, FFT_N_IHFFT };

typedef struct fft_kind {
    const char *op;
    int kind;
    bool forward;
    bool onesided;   /* R2C */
    bool two;        /* the 2-d form: dim defaults to (-2, -1) */
} fft_kind;

static const fft_kind FFTS[] = {
    {"aten.fft_fft.default", FFT_C2C_OR_R2C, true, false, false},
    {"aten.fft_ifft.default", FFT_C2C_OR_R2C, false, false, false},
    {"aten.fft_rfft.default", FFT_R2C, true, true, false},
    {"aten.fft_ihfft.default", FFT_R2C, false, true, false},
    {"aten.fft_irfft.default", FFT_C2R, false, false, false},
    {"aten.fft_hfft.default", FFT_C2R, true, false, false},
    {"aten.fft_fft2.default", FFT_N_C2C, true, false, true},
    {"aten.fft_fftn.default", FFT_N_C2C, true, false, false},
    {"aten.fft_ifft2.default", FFT_N_C2C, false, false, true},
    {"aten.fft_ifftn.default", FFT_N_C2C, false, false, false},
    {"aten.fft_rfft2.default", FFT_N_R2C, true, true, true},
    {"aten.fft_rfftn.default", FFT_N_R2C, true, true, false},
    {"aten.fft_irfft2.default", FFT_N_C2R, false, false, true},
    {"aten.fft_irfftn.default", FFT_N_C2R, false, false, false},
    {"aten.fft_hfft2.default", FFT_N_HFFT, true, false, true},
    {"aten.fft_hfftn.default", FFT_N_HFFT, true, false, false},
    {"aten.fft_ihfft2.default", FFT_N_IHFFT, false, true, true},
    {"aten.fft_ihfftn.default", FFT_N_IHFFT, false, true, false},
};

static bool is_cplx(eir_dtype dt) { return dt == EIR_C32 || dt == EIR_C64 || dt == EIR_C128; }

static bool is_intlike(eir_dtype dt) {
    return dt == EIR_BOOL || dt == EIR_U8 || dt == EIR_I8 || dt == EIR_I16 || dt == EIR_I32 || dt == EIR_I64 ||
           dt == EIR_U16 || dt == EIR_U32 || dt == EIR_U64;
}

/* ATen's promote_type_fft on the CPU: integers to the default float,
 * complex when required; half precision is not supported there. */
static bool fft_promote(eir_dtype dt, bool require_complex, eir_dtype *out) {
    if (is_cplx(dt)) {
        *out = dt;
        return dt != EIR_C32;
    }
    if (is_intlike(dt)) dt = EIR_F32;
    if (dt != EIR_F32 && dt != EIR_F64) return false;
    *out = require_complex ? (dt == EIR_F32 ? EIR_C64 : EIR_C128) : dt;
    return true;
}

/* norm_from_string: 0 none, 1 by_root_n, 2 by_n */
static bool fft_norm(const eir_arg *a, bool forward, int64_t *code) {
    const char *s = is_none(a) ? NULL : a->kind == EIR_ARG_STRING ? a->u.s : "";
    if (!s || !strcmp(s, "backward")) *code = forward ? 0 : 2;
    else if (!strcmp(s, "forward")) *code = forward ? 2 : 0;
    else if (!strcmp(s, "ortho")) *code = 1;
    else return false;
    return true;
}

typedef struct fft_plan {
    int64_t dims[MAXR], shape[MAXR];
    uint32_t nd;
    int64_t last_dim_size;   /* C2R */
} fft_plan;

/* The transformed dims and signal sizes (canonicalize_fft_shape_and_dim_args
 * for the n-d forms; one dim and `n` for the 1-d ones). */
static eir_status fft_plan_of(dc *c, const fft_kind *k, const eir_tensor_meta *xm, fft_plan *pl) {
    uint32_t rank = xm->rank;
    if (rank == 0) return dc_refuse(c, "a 0-dim input (torch expects a dimension to transform)");
    for (uint32_t d = 0; d < rank; d++)
        if (xm->sizes[d].is_expr) return dc_refuse(c, "input of symbolic size (not decomposed)");
    bool nd = k->kind >= FFT_N_C2C;
    bool c2r = k->kind == FFT_C2R || k->kind == FFT_N_C2R || k->kind == FFT_N_HFFT;
    if (!nd) {
        int64_t d = -1, n = -1;
        const eir_arg *da = dc_arg_named(c, "dim"), *na = dc_arg_named(c, "n");
        if (!is_none(da) && !int_of(da, &d)) return dc_refuse(c, "argument 'dim': expected an int");
        if (!is_none(na) && !int_of(na, &n)) return dc_refuse(c, "argument 'n': expected a concrete int");
        if (d < -(int64_t)rank || d >= (int64_t)rank) return dc_refuse(c, "argument 'dim': %lld is out of range for rank %u", (long long)d, rank);
        pl->nd = 1;
        pl->dims[0] = d < 0 ? d + rank : d;
        int64_t len = xm->sizes[pl->dims[0]].value;
        if (c2r) {
            pl->last_dim_size = is_none(na) ? 2 * (len - 1) : n;
            if (pl->last_dim_size < 1) return dc_refuse(c, "invalid number of data points (%lld)", (long long)pl->last_dim_size);
            pl->shape[0] = is_none(na) ? -1 : pl->last_dim_size / 2 + 1;
        } else {
            if (!is_none(na) && n < 1) return dc_refuse(c, "invalid number of data points (%lld)", (long long)n);
            pl->shape[0] = is_none(na) ? -1 : n;
        }
        return EIR_OK;
    }
    int64_t s[MAXR], dm[MAXR];
    uint32_t ns = 0, ndm = 0;
    const eir_arg *sa = dc_arg_named(c, "s"), *da = dc_arg_named(c, "dim");
    bool has_s = !is_none(sa), has_dim = !is_none(da) || k->two;
    if (has_s && !dc_ints_of(sa, s, MAXR, &ns)) return dc_refuse(c, "argument 's': expected concrete ints");
    if (!is_none(da)) {
        if (!dc_ints_of(da, dm, MAXR, &ndm)) return dc_refuse(c, "argument 'dim': expected ints");
    } else if (k->two) {
        dm[0] = -2, dm[1] = -1, ndm = 2;
    }
    for (uint32_t i = 0; i < ndm; i++) {
        if (dm[i] < -(int64_t)rank || dm[i] >= (int64_t)rank)
            return dc_refuse(c, "argument 'dim': %lld is out of range for rank %u", (long long)dm[i], rank);
        if (dm[i] < 0) dm[i] += rank;
        for (uint32_t j = 0; j < i; j++)
            if (dm[j] == dm[i]) return dc_refuse(c, "argument 'dim': FFT dims must be unique");
    }
    if (has_s) {
        if (has_dim && ndm != ns) return dc_refuse(c, "arguments 'dim' and 's' differ in length");
        if (ns > rank) return dc_refuse(c, "argument 's' has %u values for an input of rank %u", ns, rank);
        if (!has_dim)
            for (uint32_t i = 0; i < ns; i++) dm[i] = rank - ns + i;
        pl->nd = ns;
    } else if (!has_dim) {
        pl->nd = rank;
        for (uint32_t i = 0; i < rank; i++) dm[i] = i;
    } else
        pl->nd = ndm;
    if (pl->nd == 0) return dc_refuse(c, "no dimension to transform (not decomposed)");
    for (uint32_t i = 0; i < pl->nd; i++) {
        pl->dims[i] = dm[i];
        pl->shape[i] = has_s && s[i] != -1 ? s[i] : xm->sizes[dm[i]].value;
        if (pl->shape[i] < 1) return dc_refuse(c, "invalid number of data points (%lld)", (long long)pl->shape[i]);
    }
    if (c2r) {
        uint32_t l = pl->nd - 1;
        pl->last_dim_size = !has_s || s[l] == -1 ? 2 * (xm->sizes[pl->dims[l]].value - 1) : pl->shape[l];
        if (pl->last_dim_size < 1) return dc_refuse(c, "invalid number of data points (%lld)", (long long)pl->last_dim_size);
        pl->shape[l] = pl->last_dim_size / 2 + 1;
    }
    return EIR_OK;
}

/* resize_fft_input: slices in dim order, then one constant_pad_nd */
static eir_status fft_resize(dc *c, uint32_t x, const fft_plan *pl, uint32_t *res) {
    uint32_t rank = meta_of(c, x)->rank;
    int64_t pad[2 * MAXR] = {0};
    bool must_pad = false;
    eir_status st;
    for (uint32_t i = 0; i < pl->nd; i++) {
        if (pl->shape[i] == -1) continue;
        int64_t d = pl->dims[i], have = meta_of(c, x)->sizes[d].value;
        if (have < pl->shape[i]) {
            must_pad = true;
            pad[2 * rank - 2 * d - 1] = pl->shape[i] - have;
        }
        if (have > pl->shape[i] && (st = sh_slice(c, x, d, 0, pl->shape[i], &x))) return st;
    }
    if (must_pad) {
        eir_named_arg pi[2] = {pos_arg("self", a_tensor(x)), pos_arg("pad", dc_a_ints(c, pad, 2 * rank))};
        if ((st = sh_emit(c, "constant_pad_nd.default", 2, pi, NULL, &x))) return st;
    }
    *res = x;
    return EIR_OK;
}

static eir_status fft_to(dc *c, uint32_t x, eir_dtype dt, uint32_t *res) {
    if (meta_of(c, x)->dtype == dt) { *res = x; return EIR_OK; }
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt))};
    return sh_emit(c, "_to_copy.default", 2, ti, NULL, res);
}

static eir_status fft_prim(dc *c, const char *target, uint32_t x, const int64_t *dims, uint32_t nd, int64_t norm,
                           const char *last_name, eir_arg last, const eir_tensor_meta *m, uint32_t *res) {
    eir_named_arg fi[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, dims, nd)),
                           pos_arg("normalization", a_int(norm)), pos_arg(last_name, last)};
    return sh_emit(c, target, 4, fi, m, res);
}

static eir_status fft_unary(dc *c, const char *target, uint32_t x, const eir_tensor_meta *m, uint32_t *res) {
    eir_named_arg ui[1] = {pos_arg("self", a_tensor(x))};
    return sh_emit(c, target, 1, ui, m, res);
}

eir_status decomp_fft(dc *c) {
    const fft_kind *k = NULL;
    for (uint32_t i = 0; i < sizeof FFTS / sizeof *FFTS; i++)
        if (!strcmp(FFTS[i].op, c->op)) k = &FFTS[i];
    if (!k) return dc_refuse(c, "internal: not an FFT front end");
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    bool cin = is_cplx(xm->dtype);
    int kind = k->kind;
    if (kind == FFT_C2C_OR_R2C) kind = cin ? FFT_N_C2C : FFT_R2C;
    bool r2c = kind == FFT_R2C || kind == FFT_N_R2C || kind == FFT_N_IHFFT;
    if (r2c && cin) return dc_refuse(c, "a complex input (torch expects a real one)");
    bool need_complex = !r2c;
    eir_dtype dt;
    if (!fft_promote(xm->dtype, need_complex, &dt))
        return dc_refuse(c, "input of dtype %s (the CPU FFT takes float, double and their complex types)",
                         eir_dtype_name(xm->dtype));
    fft_plan pl;
    if ((st = fft_plan_of(c, k, xm, &pl))) return st;
    int64_t norm;
    if (!fft_norm(dc_arg_named(c, "norm"), k->forward, &norm)) return dc_refuse(c, "argument 'norm': expected None, \"forward\", \"backward\" or \"ortho\"");
    if (c->dry) return EIR_OK;

    uint32_t v, y;
    if ((st = fft_to(c, x, dt, &v))) return st;
    if ((st = fft_resize(c, v, &pl, &v))) return st;
    const int64_t *last_dim = &pl.dims[pl.nd - 1];
    switch (kind) {
    case FFT_N_C2C:
        /* the 1-d complex form too: fft_c2c with one dim */
        if ((st = fft_prim(c, "_fft_c2c.default", v, pl.dims, pl.nd, norm, "forward", a_bool(k->forward), om, &y))) return st;
        break;
    case FFT_R2C:
    case FFT_N_R2C:
        if (k->forward)
            return (st = fft_prim(c, "_fft_r2c.default", v, pl.dims, pl.nd, norm, "onesided", a_bool(k->onesided), om, &y))
                       ? st : finish(c, out, y);
        if ((st = fft_prim(c, "_fft_r2c.default", v, pl.dims, pl.nd, norm, "onesided", a_bool(k->onesided), NULL, &y))) return st;
        if ((st = fft_unary(c, "_conj.default", y, om, &y))) return st;
        break;
    case FFT_C2R:
    case FFT_N_C2R:
        if (k->forward) {
            if ((st = fft_unary(c, "_conj.default", v, NULL, &v))) return st;
            if ((st = fft_unary(c, "clone.default", v, NULL, &v))) return st;
        }
        if ((st = fft_prim(c, "_fft_c2r.default", v, pl.dims, pl.nd, norm, "last_dim_size", a_int(pl.last_dim_size), om, &y)))
            return st;
        break;
    case FFT_N_HFFT:
        if (pl.nd > 1 && (st = fft_prim(c, "_fft_c2c.default", v, pl.dims, pl.nd - 1, norm, "forward", a_bool(true), NULL, &v)))
            return st;
        if ((st = fft_unary(c, "_conj.default", v, NULL, &v))) return st;
        if ((st = fft_unary(c, "clone.default", v, NULL, &v))) return st;
        if ((st = fft_prim(c, "_fft_c2r.default", v, last_dim, 1, norm, "last_dim_size", a_int(pl.last_dim_size), om, &y)))
            return st;
        break;
    case FFT_N_IHFFT:
        if (pl.nd == 1) {
            if ((st = fft_prim(c, "_fft_r2c.default", v, last_dim, 1, norm, "onesided", a_bool(true), NULL, &y))) return st;
            if ((st = fft_unary(c, "_conj.default", y, om, &y))) return st;
            break;
        }
        if ((st = fft_prim(c, "_fft_r2c.default", v, last_dim, 1, norm, "onesided", a_bool(true), NULL, &v))) return st;
        if ((st = fft_unary(c, "_conj_physical.default", v, NULL, &v))) return st;
        if ((st = fft_prim(c, "_fft_c2c.default", v, pl.dims, pl.nd - 1, norm, "forward", a_bool(false), om, &y))) return st;
        break;
    default:
        return dc_refuse(c, "internal: FFT kind %d", kind);
    }
    return finish(c, out, y);
}
