/* pointwise.c — elementwise kernels: unary and binary arithmetic,
 * comparisons, activations, clamp/where/masked_fill, casts and fills.
 *
 * One engine (pw_run) drives every op: the inputs are broadcast to the
 * output's shape and walked with eir_iter; each element is loaded into the
 * op's computation domain, computed, and stored into the output's dtype.
 * The domain follows the computation dtype `ct` as torch's opmath does:
 *   F: float32, float16, bfloat16 (computed in float, rounded on store)
 *   D: float64
 *   I: integers and bool (exact int64 arithmetic, wrapped on store)
 *   C: complex64/complex128 (computed in double complex)
 * An op is a set of per-domain element functions (NULL where torch does not
 * support that domain). Typed fast loops cover the common case where every
 * operand already has dtype ct (f32, f64, i64, i32). */
#include "base/cmplx.h" /* complex.h, and CMPLX for clang */
#include <float.h>
#include <stdio.h>

#include "../base/pool.h"
#include "fast.h"
#include "kutil.h"
#include "pw.h"
#include "tables.h"

typedef pw_cplx cplx;

enum { DOM_F, DOM_D, DOM_I, DOM_C, DOM_NONE };

static int domain_of(eir_dtype d) {
    switch (d) {
    case EIR_F32: case EIR_F16: case EIR_BF16: return DOM_F;
    case EIR_F64: return DOM_D;
    case EIR_C64: case EIR_C128: return DOM_C;
    default: return eir_is_integral(d, true) ? DOM_I : DOM_NONE;
    }
}

/* c10's ScalarType names, as torch prints them in errors. */
static const char *c10_name(eir_dtype d) { return eir_torch_dtype_name(d); }

/* ---- element conversion ---- */

static inline float round_to(float v, eir_dtype ct) { return eir_pw_round(v, ct); }

/* float -> integer as torch does on x86: int64 directly; narrower types
 * through int32 (out of range and NaN give INT_MIN, then truncate). */
static inline int64_t float_to_int(double v, eir_dtype d) {
    if (d == EIR_I64 || d == EIR_U64 || d == EIR_U32) {
        if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) return INT64_MIN;
        return (int64_t)v;
    }
    if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
    return (int64_t)v;
}

static inline void store_f64(void *p, eir_dtype d, double v) {
    switch (d) {
    case EIR_F64: *(double *)p = v; return;
    case EIR_F32: *(float *)p = (float)v; return;
    case EIR_BOOL: *(uint8_t *)p = v != 0; return;
    default:
        if (eir_is_integral(d, false)) eir_store_i64(p, d, float_to_int(v, d));
        else eir_store_f64(p, d, v);
        return;
    }
}

static inline float ld_f(const char *p, eir_dtype d) {
    switch (d) {
    case EIR_F32: return *(const float *)p;
    case EIR_F16: return eir_f16_to_f32(*(const uint16_t *)p);
    case EIR_BF16: return eir_bf16_to_f32(*(const uint16_t *)p);
    case EIR_F64: return (float)*(const double *)p;
    case EIR_I64: return (float)*(const int64_t *)p;
    case EIR_I32: return (float)*(const int32_t *)p;
    case EIR_BOOL: return *(const uint8_t *)p ? 1.0f : 0.0f;
    default: return (float)eir_load_f64(p, d);
    }
}

static inline void st_f(char *p, eir_dtype d, float v) {
    switch (d) {
    case EIR_F32: *(float *)p = v; return;
    case EIR_F16: *(uint16_t *)p = eir_f32_to_f16(v); return;
    case EIR_BF16: *(uint16_t *)p = eir_f32_to_bf16(v); return;
    case EIR_BOOL: *(uint8_t *)p = v != 0; return;
    default: store_f64(p, d, v); return;
    }
}

static inline double ld_d(const char *p, eir_dtype d) {
    return d == EIR_F64 ? *(const double *)p : eir_load_f64(p, d);
}

static inline int64_t ld_i(const char *p, eir_dtype d) {
    switch (d) {
    case EIR_I64: return *(const int64_t *)p;
    case EIR_I32: return *(const int32_t *)p;
    case EIR_BOOL: return *(const uint8_t *)p != 0;
    default:
        if (eir_is_integral(d, false)) return eir_load_i64(p, d);
        return float_to_int(eir_load_f64(p, d), EIR_I64);
    }
}

static inline void st_i(char *p, eir_dtype d, int64_t v) {
    switch (d) {
    case EIR_I64: *(int64_t *)p = v; return;
    case EIR_I32: *(int32_t *)p = (int32_t)(uint32_t)(uint64_t)v; return;
    case EIR_BOOL: *(uint8_t *)p = v != 0; return;
    default: eir_store_i64(p, d, v); return;
    }
}

/* An integer operand converted to the integer computation dtype ct, as
 * torch's TensorIterator casts every operand to the common dtype first
 * (a Python -2 compared with a uint8 tensor is 254). */
static inline int64_t wrap_to(int64_t v, eir_dtype ct) {
    switch (ct) {
    case EIR_I8: return (int8_t)v;
    case EIR_U8: return (uint8_t)v;
    case EIR_I16: return (int16_t)v;
    case EIR_U16: return (uint16_t)v;
    case EIR_I32: return (int32_t)v;
    case EIR_U32: return (uint32_t)v;
    case EIR_BOOL: return v != 0;
    default: return v;
    }
}

static inline cplx ld_c(const char *p, eir_dtype d) {
    double re, im;
    eir_load_c128(p, d, &re, &im);
    return CMPLX(re, im);
}

static inline void st_c(char *p, eir_dtype d, cplx v) {
    if (eir_is_complex(d) || eir_is_floating(d) || d == EIR_BOOL) eir_store_c128(p, d, creal(v), cimag(v));
    else st_i(p, d, float_to_int(creal(v), d));
}

/* ---- scalars as 0-d views ---- */

typedef pw_scalar_buf scalar_buf;

static const eir_tview *scalar_view(const eir_scalar *s, scalar_buf *b) {
    memset(b, 0, sizeof *b);
    b->t.data = b->v;
    b->t.rank = 0;
    switch (s->kind) {
    case EIR_SC_INT: b->t.dtype = EIR_I64; memcpy(b->v, &s->i, 8); break;
    case EIR_SC_BOOL: b->t.dtype = EIR_BOOL; *(uint8_t *)b->v = s->i != 0; break;
    case EIR_SC_FLOAT: b->t.dtype = EIR_F64; b->v[0] = s->f; break;
    case EIR_SC_COMPLEX: b->t.dtype = EIR_C128; b->v[0] = s->f; b->v[1] = s->im; break;
    }
    return &b->t;
}

static bool is_scalar_arg(const eir_karg *a) {
    return a->kind == EIR_KA_SCALAR || a->kind == EIR_KA_INT || a->kind == EIR_KA_FLOAT || a->kind == EIR_KA_BOOL;
}

/* A tensor argument, or a scalar argument as a 0-d view in b. NULL if neither. */
static const eir_tview *arg_view(const eir_karg *a, scalar_buf *b) {
    if (a->kind == EIR_KA_TENSOR) return a->t;
    if (is_scalar_arg(a)) return scalar_view(&a->s, b);
    return NULL;
}

static double scalar_f(const eir_karg *a) {
    if (a->kind == EIR_KA_FLOAT) return a->f;
    if (a->kind == EIR_KA_INT || a->kind == EIR_KA_BOOL) return (double)a->i;
    if (a->s.kind == EIR_SC_INT || a->s.kind == EIR_SC_BOOL) return (double)a->s.i;
    return a->s.f;
}

static int64_t scalar_i(const eir_karg *a) {
    if (a->kind == EIR_KA_INT || a->kind == EIR_KA_BOOL) return a->i;
    if (a->kind == EIR_KA_FLOAT) return float_to_int(a->f, EIR_I64);
    if (a->s.kind == EIR_SC_INT || a->s.kind == EIR_SC_BOOL) return a->s.i;
    return float_to_int(a->s.f, EIR_I64);
}

/* ---- the engine ---- */

static inline bool reduced(eir_dtype d) { return d == EIR_F16 || d == EIR_BF16; }

static void set_int_info(pw_params *p, eir_dtype ct) {
    p->ct = ct;
    p->bits = ct == EIR_BOOL ? 1 : (int)eir_elsize(ct) * 8;
    p->is_signed = !(ct == EIR_U8 || ct == EIR_U16 || ct == EIR_U32 || ct == EIR_U64 || ct == EIR_BOOL);
}

/* Whether each input of the iteration (but those with skip[k]) is the output itself, element for
 * element (an in-place op), or touches none of the output's bytes: comparing the address ranges
 * the whole operation touches, elements of es bytes. An input overlapping the output otherwise
 * goes to the element loop, which reads each element before writing it. */
static bool inputs_apart(const eir_iter *it, int nin, const bool *skip, int64_t es) {
    for (int k = 0; k < nin; k++) {
        if (skip && skip[k]) continue;
        const char *b = it->base[k + 1], *o = it->base[0];
        if (b == o) {
            for (int32_t d = 0; d < it->rank; d++)
                if (it->bstrides[k + 1][d] != it->bstrides[0][d]) return false;
            continue;
        }
        int64_t lo_k = 0, hi_k = 0, lo_o = 0, hi_o = 0;
        for (int32_t d = 0; d < it->rank; d++) {
            int64_t ek = (it->sizes[d] - 1) * it->bstrides[k + 1][d], eo = (it->sizes[d] - 1) * it->bstrides[0][d];
            if (ek < 0) lo_k += ek; else hi_k += ek;
            if (eo < 0) lo_o += eo; else hi_o += eo;
        }
        if (b + lo_k < o + hi_o + es && o + lo_o < b + hi_k + es) return false;
    }
    return true;
}

/* The row loops of fast.c, when every operand has dtype ct (f32 or f64),
 * the output's rows are unit-stride and each input's are unit-stride or a
 * broadcast scalar. An input that is the output itself (in-place ops) is
 * fine; one that overlaps it otherwise is left to the element loop. A row
 * the kernel declines runs element by element here. Returns false, having
 * written nothing, when the layout does not fit. */
static bool fast_rows(const pw_op *op, const pw_params *p, eir_dtype ct, int nin, eir_iter *it) {
    int64_t es = (int64_t)eir_elsize(ct);
    const int64_t *is = it->inner_stride;
    if (it->rank == 0 || is[0] != es) return false;
    /* an input whose rows are strided (a transposed operand) is gathered row by row into a
     * buffer first */
    bool gather[4] = {false};
    int ngather = 0;
    for (int k = 0; k < nin; k++)
        if (is[k + 1] != es && is[k + 1] != 0) {
            if (is[k + 1] % es) return false;
            gather[k] = true;
            ngather++;
        }
    char *ptr[5];
    int64_t len, s[4] = {0};
    for (int k = 0; k < nin; k++) s[k] = is[k + 1] ? 1 : 0;
    if (!inputs_apart(it, nin, NULL, es)) return false;
    int64_t row = it->sizes[it->rank - 1];
    char *gbuf = ngather ? eir_kalloc((size_t)(ngather * row) * (size_t)es) : NULL;
    if (ngather && !gbuf) return false;
    while (eir_iter_next(it, ptr, &len)) {
        bool done;
        for (int k = 0, g = 0; k < nin; k++) {
            if (!gather[k]) continue;
            char *dst = gbuf + g++ * row * es;
            int64_t st = is[k + 1] / es;
            if (ct == EIR_F32)
                for (int64_t j = 0; j < len; j++) ((float *)dst)[j] = ((const float *)ptr[k + 1])[j * st];
            else
                for (int64_t j = 0; j < len; j++) ((double *)dst)[j] = ((const double *)ptr[k + 1])[j * st];
            ptr[k + 1] = dst;
        }
        if (ct == EIR_F32) {
            const float *x[4] = {0};
            for (int k = 0; k < nin; k++) x[k] = (const float *)ptr[k + 1];
            done = op->rf((float *)ptr[0], x, s, len, p);
            if (!done)
                for (int64_t j = 0; j < len; j++) {
                    float v[4] = {0};
                    for (int k = 0; k < nin; k++) v[k] = x[k][j * s[k]];
                    ((float *)ptr[0])[j] = op->f(v, p);
                }
        } else {
            const double *x[4] = {0};
            for (int k = 0; k < nin; k++) x[k] = (const double *)ptr[k + 1];
            done = op->rd((double *)ptr[0], x, s, len, p);
            if (!done)
                for (int64_t j = 0; j < len; j++) {
                    double v[4] = {0};
                    for (int k = 0; k < nin; k++) v[k] = x[k][j * s[k]];
                    ((double *)ptr[0])[j] = op->d(v, p);
                }
        }
    }
    eir_kfree(gbuf);
    return true;
}

/* float16 / bfloat16 rows on the float32 row loops (ops with reduced_rows): the output's rows
 * unit-stride in ct, each input's unit-stride in ct or broadcast, or a one-element operand of any
 * real dtype (a Python scalar: *one holds its float value, rounded to ct unless the op keeps it in
 * float as torch's opmath does). Chunks of a row are converted to float32, computed by op->rf (op->f
 * where it declines) and rounded to ct once: the values torch's reduced-float kernels compute.
 * false, having written nothing, when the layout does not fit. */
enum { RED_CHUNK = 512 };


static bool reduced_rows(const pw_op *op, const pw_params *p, eir_dtype ct, int nin, eir_iter *it, const bool *one,
                         const float *onev) {
    const int64_t *is = it->inner_stride;
    if (it->rank == 0 || is[0] != 2) return false;
    for (int k = 0; k < nin; k++)
        if (!one[k] && is[k + 1] != 2 && is[k + 1] != 0) return false;
    if (!inputs_apart(it, nin, one, 2)) return false;
    float buf[5][RED_CHUNK];
    char *ptr[5];
    int64_t len, s[4] = {0};
    const float *x[4] = {0};
    while (eir_iter_next(it, ptr, &len))
        for (int64_t j0 = 0; j0 < len; j0 += RED_CHUNK) {
            int64_t n = len - j0 < RED_CHUNK ? len - j0 : RED_CHUNK;
            for (int k = 0; k < nin; k++) {
                if (one[k]) { x[k] = &onev[k]; s[k] = 0; continue; }
                if (is[k + 1] == 0) { buf[k + 1][0] = ct == EIR_BF16 ? eir_bf16_to_f32(*(const uint16_t *)ptr[k + 1]) : eir_f16_to_f32(*(const uint16_t *)ptr[k + 1]); s[k] = 0; }
                else {
                    (ct == EIR_BF16 ? eir_bf16_to_f32_row : eir_f16_to_f32_row)(buf[k + 1], (const uint16_t *)ptr[k + 1] + j0, n);
                    s[k] = 1;
                }
                x[k] = buf[k + 1];
            }
            float *o = buf[0];
            if (!op->rf(o, x, s, n, p))
                for (int64_t j = 0; j < n; j++) {
                    float v[4] = {0};
                    for (int k = 0; k < nin; k++) v[k] = x[k][j * s[k]];
                    o[j] = op->f(v, p);
                }
            (ct == EIR_BF16 ? eir_f32_to_bf16_row : eir_f32_to_f16_row)((uint16_t *)ptr[0] + j0, o, n);
        }
    return true;
}

static int pw_run(const pw_op *op, pw_params *p, eir_dtype ct, const eir_tview *const *ins, eir_tview *out,
                  eir_kctx *ctx) {
    int nin = op->nin;
    eir_tview bv[4];
    const eir_tview *ops[5];
    ops[0] = out;
    for (int k = 0; k < nin; k++) {
        if (!eir_tview_broadcast(ins[k], out->rank, out->sizes, &bv[k]))
            return eir_kerr(ctx, "%s: input %d of rank %d does not broadcast to the output shape", op->name, k,
                            (int)ins[k]->rank);
        ops[k + 1] = &bv[k];
    }
    set_int_info(p, ct);
    int dom = domain_of(ct);
    if ((dom == DOM_F && !op->f) || (dom == DOM_D && !op->d) || (dom == DOM_I && !op->i) ||
        (dom == DOM_C && !op->c) || dom == DOM_NONE || (dom == DOM_F && op->f32_only && ct != EIR_F32))
        return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op->name, c10_name(ct));
    eir_dtype od = out->dtype, dt[4];
    bool rnd[4], wrap[4];
    for (int k = 0; k < nin; k++) {
        dt[k] = ins[k]->dtype;
        wrap[k] = dom == DOM_I && dt[k] != ct && ct != EIR_I64;
        rnd[k] = dt[k] != ct && ((dom == DOM_F && reduced(ct)) || (dom == DOM_C && ct == EIR_C64)) &&
                 !(((op->keep_opmath >> k) & 1) && eir_tview_numel(ins[k]) == 1);
    }
    /* one-element operands of another dtype (Python scalars, 0-d tensors) converted to a float32 /
     * float64 ct once, as the loops below would convert them at every element */
    float sf[4];
    double sd[4];
    eir_tview sv[4];
    if (ct == EIR_F32 || ct == EIR_F64)
        for (int k = 0; k < nin; k++) {
            if (dt[k] == ct || domain_of(dt[k]) == DOM_C || eir_tview_numel(ins[k]) != 1) continue;
            sv[k] = bv[k];
            if (ct == EIR_F32) { sf[k] = ld_f(ins[k]->data, dt[k]); sv[k].data = &sf[k]; }
            else { sd[k] = ld_d(ins[k]->data, dt[k]); sv[k].data = &sd[k]; }
            sv[k].dtype = ct;
            dt[k] = ct;
            ops[k + 1] = &sv[k];
        }
    /* visit the elements in the output's memory order (innermost: its smallest stride), so that
     * a channels-last output (and inputs laid out like it) runs in unit-stride rows; every
     * element is computed the same way in any order */
    eir_tview pv[5];
    int32_t rank = out->rank;
    int64_t psizes[EIR_MAX_RANK];
    memcpy(psizes, out->sizes, sizeof psizes);
    bool reorder = false, plain = true; /* plain: no negative or repeated (0) output strides */
    for (int32_t d = 0, prev = -1; d < rank; d++) {
        if (out->sizes[d] == 1) continue;
        if (out->strides[d] <= 0) plain = false;
        if (prev >= 0 && out->strides[prev] < out->strides[d]) reorder = true;
        prev = d;
    }
    if (reorder && plain) {
        int32_t perm[EIR_MAX_RANK], np = 0;
        for (int32_t d = 0; d < rank; d++) perm[np++] = d;
        /* stable insertion sort, strides descending; size-1 dims (any stride) first, where the
         * iterator drops them */
        for (int32_t i = 1; i < np; i++)
            for (int32_t j = i; j > 0; j--) {
                int32_t a = perm[j - 1], b = perm[j];
                if (out->sizes[a] == 1 || (out->sizes[b] != 1 && out->strides[a] >= out->strides[b])) break;
                perm[j - 1] = b;
                perm[j] = a;
            }
        for (int k = 0; k <= nin; k++) {
            pv[k] = *ops[k];
            for (int32_t d = 0; d < rank; d++) {
                pv[k].sizes[d] = ops[k]->sizes[perm[d]];
                pv[k].strides[d] = ops[k]->strides[perm[d]];
            }
            ops[k] = &pv[k];
        }
        for (int32_t d = 0; d < rank; d++) psizes[d] = out->sizes[perm[d]];
    }
    eir_iter it;
    eir_iter_init(&it, rank, psizes, nin + 1, ops);
    char *ptr[5];
    int64_t len;
    int err = 0;
    bool same = od == ct;
    for (int k = 0; k < nin; k++) same = same && dt[k] == ct;
    const int64_t *is = it.inner_stride;
    if (same && eir_kernels_fast && ((ct == EIR_F32 && op->rf) || (ct == EIR_F64 && op->rd)) &&
        fast_rows(op, p, ct, nin, &it))
        return 0;
    if (reduced(ct) && od == ct && eir_kernels_fast && op->rf && op->reduced_rows) {
        bool one[4] = {false}, fits = true;
        float onev[4] = {0};
        for (int k = 0; k < nin && fits; k++) {
            if (dt[k] == ct) continue;
            if (eir_tview_numel(ins[k]) != 1 || domain_of(dt[k]) == DOM_C) fits = false;
            else {
                one[k] = true;
                onev[k] = ld_f(ins[k]->data, dt[k]);
                if (rnd[k]) onev[k] = round_to(onev[k], ct);
            }
        }
        if (fits && reduced_rows(op, p, ct, nin, &it, one, onev)) return 0;
    }
    switch (dom) {
    case DOM_F:
        if (same && ct == EIR_F32) {
            while (eir_iter_next(&it, ptr, &len))
                for (int64_t j = 0; j < len; j++) {
                    float x[4] = {0};
                    for (int k = 0; k < nin; k++) x[k] = *(const float *)(ptr[k + 1] + j * is[k + 1]);
                    *(float *)(ptr[0] + j * is[0]) = op->f(x, p);
                }
            break;
        }
        while (eir_iter_next(&it, ptr, &len))
            for (int64_t j = 0; j < len; j++) {
                float x[4] = {0};
                for (int k = 0; k < nin; k++) {
                    x[k] = ld_f(ptr[k + 1] + j * is[k + 1], dt[k]);
                    if (rnd[k]) x[k] = round_to(x[k], ct);
                }
                st_f(ptr[0] + j * is[0], od, op->f(x, p));
            }
        break;
    case DOM_D:
        if (same) {
            while (eir_iter_next(&it, ptr, &len))
                for (int64_t j = 0; j < len; j++) {
                    double x[4] = {0};
                    for (int k = 0; k < nin; k++) x[k] = *(const double *)(ptr[k + 1] + j * is[k + 1]);
                    *(double *)(ptr[0] + j * is[0]) = op->d(x, p);
                }
            break;
        }
        while (eir_iter_next(&it, ptr, &len))
            for (int64_t j = 0; j < len; j++) {
                double x[4] = {0};
                for (int k = 0; k < nin; k++) x[k] = ld_d(ptr[k + 1] + j * is[k + 1], dt[k]);
                store_f64(ptr[0] + j * is[0], od, op->d(x, p));
            }
        break;
    case DOM_I:
        if (same && ct == EIR_I64) {
            while (eir_iter_next(&it, ptr, &len))
                for (int64_t j = 0; j < len; j++) {
                    int64_t x[4] = {0};
                    for (int k = 0; k < nin; k++) x[k] = *(const int64_t *)(ptr[k + 1] + j * is[k + 1]);
                    *(int64_t *)(ptr[0] + j * is[0]) = op->i(x, p, &err);
                }
            break;
        }
        if (same && ct == EIR_I32) {
            while (eir_iter_next(&it, ptr, &len))
                for (int64_t j = 0; j < len; j++) {
                    int64_t x[4] = {0};
                    for (int k = 0; k < nin; k++) x[k] = *(const int32_t *)(ptr[k + 1] + j * is[k + 1]);
                    *(int32_t *)(ptr[0] + j * is[0]) = (int32_t)(uint32_t)(uint64_t)op->i(x, p, &err);
                }
            break;
        }
        while (eir_iter_next(&it, ptr, &len))
            for (int64_t j = 0; j < len; j++) {
                int64_t x[4] = {0};
                for (int k = 0; k < nin; k++) {
                    x[k] = ld_i(ptr[k + 1] + j * is[k + 1], dt[k]);
                    if (wrap[k]) x[k] = wrap_to(x[k], ct);
                }
                st_i(ptr[0] + j * is[0], od, op->i(x, p, &err));
            }
        break;
    case DOM_C:
        while (eir_iter_next(&it, ptr, &len))
            for (int64_t j = 0; j < len; j++) {
                cplx x[4] = {0};
                for (int k = 0; k < nin; k++) {
                    x[k] = ld_c(ptr[k + 1] + j * is[k + 1], dt[k]);
                    if (rnd[k]) x[k] = CMPLX((float)creal(x[k]), (float)cimag(x[k]));
                }
                st_c(ptr[0] + j * is[0], od, op->c(x, p));
            }
        break;
    }
    if (err) return eir_kerr(ctx, "ZeroDivisionError");
    return 0;
}

/* the engine for other kernel files (pw.h) */
int eir_pw_run(const pw_op *op, pw_params *p, eir_dtype ct, const eir_tview *const *ins, eir_tview *out,
               eir_kctx *ctx) {
    return pw_run(op, p, ct, ins, out, ctx);
}
const eir_tview *eir_pw_arg_view(const eir_karg *a, pw_scalar_buf *b) { return arg_view(a, b); }
double eir_pw_scalar_f(const eir_karg *a) { return scalar_f(a); }
int64_t eir_pw_scalar_i(const eir_karg *a) { return scalar_i(a); }

/* ---- integer helpers (wrapping) ---- */

static inline int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t wmul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static inline int64_t wneg(int64_t a) { return (int64_t)(0 - (uint64_t)a); }
static inline int64_t idiv_trunc(int64_t a, int64_t b) { return b == -1 ? wneg(a) : a / b; }
static inline int64_t imod_trunc(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }

/* ---- float helpers: torch's semantics ---- */

static inline float maxf_(float a, float b) { return a != a ? a : b != b ? b : (a < b ? b : a); }
static inline float minf_(float a, float b) { return a != a ? a : b != b ? b : (b < a ? b : a); }
static inline double maxd_(double a, double b) { return a != a ? a : b != b ? b : (a < b ? b : a); }
static inline double mind_(double a, double b) { return a != a ? a : b != b ? b : (b < a ? b : a); }

#define DEF_FLOORDIV(NAME, T, FMOD, FLOOR, COPYSIGN)              \
    static inline T NAME(T a, T b) {                              \
        if (b == 0) return a / b;                                 \
        T mod = FMOD(a, b);                                       \
        T div = (a - mod) / b;                                    \
        if (mod != 0 && (b < 0) != (mod < 0)) div -= (T)1;        \
        T fd;                                                     \
        if (div != 0) {                                           \
            fd = FLOOR(div);                                      \
            if (div - fd > (T)0.5) fd += (T)1;                    \
        } else fd = COPYSIGN((T)0, a / b);                        \
        return fd;                                                \
    }
DEF_FLOORDIV(floordiv_f, float, fmodf, floorf, copysignf)
DEF_FLOORDIV(floordiv_d, double, fmod, floor, copysign)

static inline float remf_(float a, float b) {
    float m = fmodf(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}
static inline double remd_(double a, double b) {
    double m = fmod(a, b);
    if (m != 0 && ((b < 0) != (m < 0))) m += b;
    return m;
}

/* ---- op definitions ----
 * Element functions see x[0..nin) and the params; `a`, `b`, `c` name x[0..2]. */

#define FN_F(name) static float name##_f(const float *x, const pw_params *p)
#define FN_D(name) static double name##_d(const double *x, const pw_params *p)
#define FN_I(name) static int64_t name##_i(const int64_t *x, const pw_params *p, int *err)
#define FN_C(name) static cplx name##_c(const cplx *x, const pw_params *p)

/* float + double versions from one expression in a, b, c (T is the type) */
#define FD(name, expr_f, expr_d)                                                               \
    FN_F(name) { float a = x[0], b = x[1], c = x[2]; (void)a; (void)b; (void)c; (void)p; return expr_f; } \
    FN_D(name) { double a = x[0], b = x[1], c = x[2]; (void)a; (void)b; (void)c; (void)p; return expr_d; }
#define FI(name, expr)                                                                          \
    FN_I(name) { int64_t a = x[0], b = x[1], c = x[2]; (void)a; (void)b; (void)c; (void)p; (void)err; return expr; }
#define FC(name, expr)                                                                          \
    FN_C(name) { cplx a = x[0], b = x[1], c = x[2]; (void)a; (void)b; (void)c; (void)p; return expr; }

/* Complex products by the schoolbook formula, as c10::complex and its
 * vectorized kernels compute them: C's operator (Annex G) recovers infinities
 * from NaN results, torch does not ((inf+2i) * (1+0i) is inf+nan*i). */
static inline cplx cmul(cplx a, cplx b) {
    double ar = creal(a), ai = cimag(a), br = creal(b), bi = cimag(b);
    return CMPLX(ar * br - ai * bi, ar * bi + ai * br);
}

/* c10::complex division (numpy's algorithm, c10/util/complex.h): scale by
 * the larger part of the divisor; 0 / 0 parts give inf / nan as IEEE does.
 * C's operator differs for infinities (Annex G), and so would torch. */
static inline cplx cdiv(cplx x, cplx y) {
    double a = creal(x), b = cimag(x), c = creal(y), d = cimag(y);
    double ac = fabs(c), ad = fabs(d);
    if (ac >= ad) {
        if (ac == 0 && ad == 0) return CMPLX(a / ac, b / ad);
        double rat = d / c, scl = 1.0 / (c + d * rat);
        return CMPLX((a + b * rat) * scl, (b - a * rat) * scl);
    }
    double rat = c / d, scl = 1.0 / (d + c * rat);
    return CMPLX((a * rat + b) * scl, (b * rat - a) * scl);
}
static inline cplx crecip(cplx z) { return cdiv(CMPLX(1.0, 0.0), z); }

/* The same products and quotients in float, as torch computes complex64
 * (the parts rounded to float after each operation; the result widened). */
static inline cplx cmulf_(cplx a, cplx b) {
    float ar = (float)creal(a), ai = (float)cimag(a), br = (float)creal(b), bi = (float)cimag(b);
    float p1 = ar * br, p2 = ai * bi, p3 = ar * bi, p4 = ai * br;
    return CMPLX((float)(p1 - p2), (float)(p3 + p4));
}
/* c10's complex division as torch's AVX2/AVX512 builds compile it, with
 * the multiply-adds fused */
static inline cplx cdiv_fma(cplx x, cplx y) {
    double a = creal(x), b = cimag(x), c = creal(y), d = cimag(y);
    double ac = fabs(c), ad = fabs(d);
    if (ac >= ad) {
        if (ac == 0 && ad == 0) return CMPLX(a / ac, b / ad);
        double rat = d / c, scl = 1.0 / fma(d, rat, c);
        return CMPLX(fma(b, rat, a) * scl, fma(-a, rat, b) * scl);
    }
    double rat = c / d, scl = 1.0 / fma(c, rat, d);
    return CMPLX(fma(a, rat, b) * scl, fma(b, rat, -a) * scl);
}
static inline cplx cdivf_fma(cplx x, cplx y) {
    float a = (float)creal(x), b = (float)cimag(x), c = (float)creal(y), d = (float)cimag(y);
    float ac = fabsf(c), ad = fabsf(d);
    if (ac >= ad) {
        if (ac == 0 && ad == 0) return CMPLX(a / ac, b / ad);
        float rat = d / c, scl = 1.0f / fmaf(d, rat, c);
        return CMPLX(fmaf(b, rat, a) * scl, fmaf(-a, rat, b) * scl);
    }
    float rat = c / d, scl = 1.0f / fmaf(c, rat, d);
    return CMPLX(fmaf(a, rat, b) * scl, fmaf(b, rat, -a) * scl);
}
static inline cplx caddf_(cplx a, cplx b) {
    return CMPLX((float)creal(a) + (float)creal(b), (float)cimag(a) + (float)cimag(b));
}

/* x[] always has 4 slots so reading x[1], x[2] of a unary op reads
 * unused (uninitialized but never used) slots: give them values. */

/* arithmetic */
FD(add, fmaf(b, p->af, a), fma(b, p->a, a))
FI(add, wadd(a, wmul(b, p->ai)))
FC(add, a + cmul(b, CMPLX(p->a, 0)))
FD(mul, a * b, a * b)
FI(mul, wmul(a, b))
FC(mul, a * b)
FD(div, a / b, a / b)
FC(div, cdiv(a, b))
/* float16/bfloat16 round the quotient to their dtype before truncating, as
 * torch's vectorized kernel does (its scalar tail does not; large tensors
 * take the vectorized path) */
FD(divtrunc, truncf(round_to(a / b, p->ct)), trunc(a / b))
FD(divfloor, floordiv_f(a, b), floordiv_d(a, b))
FN_I(divtrunc) {
    (void)p;
    if (x[1] == 0) { *err = 1; return 0; }
    return idiv_trunc(x[0], x[1]);
}
FN_I(divfloor) {
    (void)p;
    int64_t a = x[0], b = x[1];
    if (b == 0) { *err = 1; return 0; }
    if ((a < 0) != (b < 0)) {
        int64_t q = idiv_trunc(a, b), r = imod_trunc(a, b);
        return r ? q - 1 : q;
    }
    return idiv_trunc(a, b);
}
FD(rem, remf_(a, b), remd_(a, b))
FN_I(rem) {
    (void)p;
    int64_t a = x[0], b = x[1];
    if (b == 0) { *err = 1; return 0; }
    int64_t r = imod_trunc(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
FD(fmod, fmodf(a, b), fmod(a, b))
FN_I(fmod) {
    (void)p;
    if (x[1] == 0) { *err = 1; return 0; }
    return imod_trunc(x[0], x[1]);
}
static int64_t ipow(int64_t a, int64_t b) {
    if (b < 0) {
        if (a == 1) return 1;
        if (a == -1) return (b & 1) ? -1 : 1;
        return 0;
    }
    int64_t r = 1;
    while (b) {
        if (b & 1) r = wmul(r, a);
        b >>= 1;
        a = wmul(a, a);
    }
    return r;
}
FD(pow, powf(a, b), pow(a, b))
FI(pow, ipow(a, b))
FC(pow, cpow(a, b))
/* pow with a scalar exponent (p->a / p->af), torch's pow_tensor_scalar_kernel:
 * float32/float64/bfloat16/complex take sqrt, rsqrt and reciprocal for 0.5,
 * -0.5 and -1, and products for 2, 3 and -2 (bfloat16's in bfloat16
 * arithmetic); float16 is plain pow with the exponent rounded to float16. */
FN_F(pows) {
    float a = x[0], e = p->af;
    if (p->ct == EIR_F16) return powf(a, e);
    if (e == 0.5f) return sqrtf(a);
    if (e == -0.5f) return 1.0f / sqrtf(a);
    if (e == -1) return 1.0f / a;
    if (p->ct == EIR_BF16) {
        if (e == 2) return a * a;
        if (e == 3) return round_to(round_to(a * a, EIR_BF16) * a, EIR_BF16);
        if (e == -2) return 1.0f / round_to(a * a, EIR_BF16);
        return powf(a, e);
    }
    if (e == 2) return a * a;
    if (e == 3) return a * a * a;
    if (e == -2) return 1.0f / (a * a);
    return powf(a, e);
}
FN_D(pows) {
    double a = x[0], e = p->a;
    if (e == 2) return a * a;
    if (e == 3) return a * a * a;
    if (e == 0.5) return sqrt(a);
    if (e == -0.5) return 1.0 / sqrt(a);
    if (e == -1) return 1.0 / a;
    if (e == -2) return 1.0 / (a * a);
    return pow(a, e);
}
FN_C(pows) {
    cplx a = x[0];
    double e = p->a, ei = p->b;
    if (ei == 0) {
        if (e == 0.5) return csqrt(a);
        if (e == -0.5) return crecip(csqrt(a));
        if (e == -1) return crecip(a);
        if (e == 2) return cmul(a, a);
        if (e == 3) return cmul(cmul(a, a), a);
        if (e == -2) return crecip(cmul(a, a));
    }
    return cpow(a, CMPLX(e, ei));
}
FD(max, maxf_(a, b), maxd_(a, b))
FI(max, a < b ? b : a)
FD(min, minf_(a, b), mind_(a, b))
FI(min, b < a ? b : a)
FD(atan2, atan2f(a, b), atan2(a, b))
static int64_t ishl(int64_t a, int64_t b, const pw_params *p) {
    if (b < 0 || b >= p->bits) return 0;
    return (int64_t)((uint64_t)a << b);
}
static int64_t ishr(int64_t a, int64_t b, const pw_params *p) {
    int maxs = p->bits - (p->is_signed ? 1 : 0);
    if (b < 0 || b >= maxs) b = maxs;
    if (b >= 64) return a < 0 ? -1 : 0;
    return a >> b; /* arithmetic on gcc/clang */
}
FI(shl, ishl(a, b, p))
FI(shr, ishr(a, b, p))
FI(band, a & b)
FI(bor, a | b)
FI(bxor, a ^ b)
/* logical (inputs are truthiness; results 0/1 stored to bool) */
FD(land, (a != 0 && b != 0), (a != 0 && b != 0))
FI(land, (a != 0 && b != 0))
FC(land, (a != 0 && b != 0))
FD(lor, (a != 0 || b != 0), (a != 0 || b != 0))
FI(lor, (a != 0 || b != 0))
FC(lor, (a != 0 || b != 0))
FD(lxor, ((a != 0) != (b != 0)), ((a != 0) != (b != 0)))
FI(lxor, ((a != 0) != (b != 0)))
FC(lxor, ((a != 0) != (b != 0)))
FD(lnot, a == 0, a == 0)
FI(lnot, a == 0)
FC(lnot, a == 0)
/* comparisons */
FD(eq, a == b, a == b)
FI(eq, a == b)
FC(eq, a == b)
FD(ne, a != b, a != b)
FI(ne, a != b)
FC(ne, a != b)
FD(lt, a < b, a < b)
FI(lt, a < b)
FD(le, a <= b, a <= b)
FI(le, a <= b)
FD(gt, a > b, a > b)
FI(gt, a > b)
FD(ge, a >= b, a >= b)
FI(ge, a >= b)

/* unary math */
FD(neg, -a, -a)
FI(neg, wneg(a))
FC(neg, -a)
FD(abs, fabsf(a), fabs(a))
FI(abs, a < 0 ? wneg(a) : a)
FC(abs, cabs(a))
FD(sign, (float)((0 < a) - (a < 0)), (double)((0 < a) - (a < 0)))
FI(sign, (0 < a) - (a < 0))
/* c10's complex log1p and expm1 (c10/util/complex_math.h), accurate near 0 */
static cplx clog1p_(cplx z) {
    double x = creal(z), y = cimag(z), zabs = cabs(z), theta = atan2(y, x + 1);
    if (zabs < 0.5) {
        double r = x * (2 + x) + y * y;
        if (r == 0) return CMPLX(x, theta);
        return CMPLX(0.5 * log1p(r), theta);
    }
    return CMPLX(log(hypot(x + 1, y)), theta);
}
static cplx cexpm1_(cplx z) {
    double x = creal(z), y = cimag(z), a = sin(y / 2);
    return CMPLX(expm1(x) * cos(y) - 2 * a * a, exp(x) * sin(y));
}
FD(exp, expf(a), exp(a))
FC(exp, cexp(a))
FD(exp2, exp2f(a), exp2(a))
/* complex: torch's identity 2^z = exp(z * ln 2), ln 2 a real scale (inf+0i gives inf+0i) */
FC(exp2, cexp(CMPLX(creal(a) * M_LN2, cimag(a) * M_LN2)))
FD(expm1, expm1f(a), expm1(a))
FC(expm1, cexpm1_(a))
FD(log, logf(a), log(a))
FC(log, clog(a))
FD(log2, log2f(a), log2(a))
FC(log2, clog(a) / M_LN2)
FD(log10, log10f(a), log10(a))
FC(log10, clog(a) / M_LN10)
FD(log1p, log1pf(a), log1p(a))
FC(log1p, clog1p_(a))
FD(sqrt, sqrtf(a), sqrt(a))
FC(sqrt, csqrt(a))
FD(rsqrt, 1.0f / sqrtf(a), 1.0 / sqrt(a))
FC(rsqrt, crecip(csqrt(a)))
FD(recip, 1.0f / a, 1.0 / a)
FC(recip, crecip(a))
FD(sin, sinf(a), sin(a))
FC(sin, csin(a))
FD(cos, cosf(a), cos(a))
FC(cos, ccos(a))
FD(tan, tanf(a), tan(a))
FC(tan, ctan(a))
FD(asin, asinf(a), asin(a))
FC(asin, casin(a))
FD(acos, acosf(a), acos(a))
FC(acos, cacos(a))
FD(atan, atanf(a), atan(a))
FC(atan, catan(a))
FD(sinh, sinhf(a), sinh(a))
FC(sinh, csinh(a))
FD(cosh, coshf(a), cosh(a))
FC(cosh, ccosh(a))
FD(tanh, tanhf(a), tanh(a))
FC(tanh, ctanh(a))
FD(asinh, asinhf(a), asinh(a))
FC(asinh, casinh(a))
FD(acosh, acoshf(a), acosh(a))
FC(acosh, cacosh(a))
FD(atanh, atanhf(a), atanh(a))
FC(atanh, catanh(a))
FD(sigmoid, 1.0f / (1.0f + expf(-a)), 1.0 / (1.0 + exp(-a)))
FC(sigmoid, crecip(1.0 + cexp(-a)))
FD(erf, erff(a), erf(a))
FD(erfc, erfcf(a), erfc(a))
FD(floor, floorf(a), floor(a))
FD(ceil, ceilf(a), ceil(a))
FD(round, nearbyintf(a), nearbyint(a))
FD(trunc, truncf(a), trunc(a))
FD(frac, a - truncf(a), a - trunc(a))
FI(ident, a)


/* round.decimals: p->mode = decimals */
FN_F(roundd) {
    int d = p->mode;
    bool neg = d < 0;
    float ten = (float)pow(10.0, neg ? -d : d);
    return neg ? nearbyintf(x[0] / ten) * ten : nearbyintf(x[0] * ten) / ten;
}
FN_D(roundd) {
    int d = p->mode;
    bool neg = d < 0;
    double ten = pow(10.0, neg ? -d : d);
    return neg ? nearbyint(x[0] / ten) * ten : nearbyint(x[0] * ten) / ten;
}
FD(relu, maxf_(a, 0.0f), maxd_(a, 0.0))
FI(relu, a < 0 ? 0 : a)
/* clamp: x = (self, lo, hi) with flags */
FN_F(clamp) {
    float r = x[0];
    if (p->has_lo) r = maxf_(r, x[1]);
    if (p->has_hi) r = minf_(r, x[2]);
    return r;
}
FN_D(clamp) {
    double r = x[0];
    if (p->has_lo) r = maxd_(r, x[1]);
    if (p->has_hi) r = mind_(r, x[2]);
    return r;
}
FN_I(clamp) {
    (void)err;
    int64_t r = x[0];
    if (p->has_lo && r < x[1]) r = x[1];
    if (p->has_hi && r > x[2]) r = x[2];
    return r;
}
/* gelu: p->mode 0 none, 1 tanh */
FN_F(gelu) {
    float a = x[0];
    if (p->mode == 1) {
        const float k = (float)(M_SQRT2 * M_2_SQRTPI * 0.5), c = 0.044715f;
        float inner = k * (a + c * a * a * a);
        return 0.5f * a * (1.0f + tanhf(inner));
    }
    return a * 0.5f * (1.0f + erff(a * (float)M_SQRT1_2));
}
FN_D(gelu) {
    double a = x[0];
    if (p->mode == 1) {
        const double k = M_SQRT2 * M_2_SQRTPI * 0.5, c = 0.044715;
        double inner = k * (a + c * a * a * a);
        return 0.5 * a * (1.0 + tanh(inner));
    }
    return a * 0.5 * (1.0 + erf(a * M_SQRT1_2));
}
FD(silu, a / (1.0f + expf(-a)), a / (1.0 + exp(-a)))
/* complex: x / (1 + exp(-x)), in complex<float> for complex64 (exp(100) overflows there, as in torch) */
FN_C(silu) {
    if (p->ct == EIR_C64) {
        float complex e = cexpf(CMPLXF(-(float)creal(x[0]), -(float)cimag(x[0])));
        return cdivf_fma(x[0], CMPLX(1.0f + crealf(e), cimagf(e)));
    }
    return cdiv(x[0], 1.0 + cexp(-x[0]));
}
FD(mish, a * tanhf(log1pf(expf(a))), a * tanh(log1p(exp(a))))
FD(hardswish, a * fminf(fmaxf(a + 3.0f, 0.0f), 6.0f) / 6.0f, a * fmin(fmax(a + 3.0, 0.0), 6.0) / 6.0)
FD(hardsigmoid, fminf(fmaxf(a + 3.0f, 0.0f), 6.0f) / 6.0f, fmin(fmax(a + 3.0, 0.0), 6.0) / 6.0)
/* elu: a = alpha, b = scale, c = input_scale */
FD(elu, a <= 0 ? expm1f(a * p->cf) * (p->af * p->bf) : a * p->bf,
   a <= 0 ? expm1(a * p->c) * (p->a * p->b) : a * p->b)
FD(leaky, a > 0 ? a : a * p->af, a > 0 ? a : a * p->a)
/* softplus: a = beta, b = threshold */
FD(softplus, a * p->af > p->bf ? a : log1pf(expf(a * p->af)) / p->af,
   a * p->a > p->b ? a : log1p(exp(a * p->a)) / p->a)
/* threshold: a <= threshold ? value : a (p->af / p->a threshold, p->bf / p->b value) */
FD(threshold, a <= p->af ? p->bf : a, a <= p->a ? p->b : a)
FI(threshold, a <= p->ai ? p->bi : a)
/* hardshrink / softshrink: p->af / p->a is lambd */
FD(hardshrink, (a >= -p->af && a <= p->af) ? 0.0f : a, (a >= -p->a && a <= p->a) ? 0.0 : a)
FD(softshrink, a > p->af ? a - p->af : (a < -p->af ? a + p->af : a * 0.0f),
   a > p->a ? a - p->a : (a < -p->a ? a + p->a : a * 0.0))
/* log_sigmoid = min(a, 0) - log1p(exp(-|a|)); its forward's buffer is exp(-|a|) */
FD(logsigmoid, minf_(a, 0.0f) - log1pf(expf(-fabsf(a))), mind_(a, 0.0) - log1p(exp(-fabs(a))))
FD(logsigbuf, expf(-fabsf(a)), exp(-fabs(a)))
/* logit: p->mode 1 clamps to [p->af, p->bf] first */
FN_F(logit) {
    float a = x[0];
    if (p->mode) a = a < p->af ? p->af : (a > p->bf ? p->bf : a);
    return a == 1.0f ? INFINITY : logf(a / (1.0f - a));
}
FN_D(logit) {
    double a = x[0];
    if (p->mode) a = a < p->a ? p->a : (a > p->b ? p->b : a);
    return a == 1.0 ? INFINITY : log(a / (1.0 - a));
}
/* prelu(self, weight): weight broadcast over the channel dim */
FD(prelu, a > 0 ? a : b * a, a > 0 ? a : b * a)
/* glu's second half: a * sigmoid(b), as torch writes it */
FD(glu, a * (1.0f / (1.0f + expf(-b))), a * (1.0 / (1.0 + exp(-b))))
FD(isnan, a != a, a != a)
FI(zero, 0)
FC(isnan, creal(a) != creal(a) || cimag(a) != cimag(a))
FD(isinf, isinf(a) != 0, isinf(a) != 0)
FC(isinf, isinf(creal(a)) || isinf(cimag(a)))
FD(isfinite, isfinite(a) != 0, isfinite(a) != 0)
FI(one, 1)
FC(isfinite, isfinite(creal(a)) && isfinite(cimag(a)))
FI(bnot, p->ct == EIR_BOOL ? !a : ~a)
/* nan_to_num: a = nan, b = posinf, c = neginf */
FD(nan2num, a != a ? p->af : a == INFINITY ? p->bf : a == -INFINITY ? p->cf : a,
   a != a ? p->a : a == INFINITY ? p->b : a == -INFINITY ? p->c : a)
/* where(cond, a, b) / masked_fill(self, mask, value): x = (cond, a, b) */
FD(where, a != 0 ? b : c, a != 0 ? b : c)
FI(where, a != 0 ? b : c)
FC(where, a != 0 ? b : c)
/* lerp(self, end, weight): torch's lerp formula */
FN_F(lerp) {
    float s = x[0], e = x[1], w = x[2];
    return fabsf(w) < 0.5f ? s + w * (e - s) : e - (e - s) * (1.0f - w);
}
FN_D(lerp) {
    double s = x[0], e = x[1], w = x[2];
    return fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1.0 - w);
}

/* ---- torch's other pointwise ops (exported programs keep them) ---- */

/* addcmul / addcdiv: self + value * t1 * t2 (/ t2); x = (self, t1, t2),
 * value in p->a / af / ai. torch's vectorized loops compute value * t1
 * first, and its compiler fuses the multiply and the add. */
FD(addcmul, fmaf(p->af * b, c, a), fma(p->a * b, c, a))
FI(addcmul, wadd(a, wmul(wmul(p->ai, b), c)))
FN_C(addcmul) {
    cplx v = CMPLX(p->a, p->b);
    if (p->ct == EIR_C64) return caddf_(x[0], cmulf_(cmulf_(v, x[1]), x[2]));
    return x[0] + cmul(cmul(v, x[1]), x[2]);
}
FD(addcdiv, a + p->af * b / c, a + p->a * b / c)
FN_C(addcdiv) {
    cplx v = CMPLX(p->a, p->b);
    if (p->ct == EIR_C64) return caddf_(x[0], cdivf_fma(cmulf_(v, x[1]), x[2]));
    return x[0] + cdiv_fma(cmul(v, x[1]), x[2]);
}
FD(copysign, copysignf(a, b), copysign(a, b))
FD(fmax, fmaxf(a, b), fmax(a, b))
FD(fmin, fminf(a, b), fmin(a, b))
FD(hypot, hypotf(a, b), hypot(a, b))
/* logaddexp: torch's formula, exact for equal infinities */
FD(logaddexp, isinf(a) && a == b ? a : maxf_(a, b) + log1pf(expf(-fabsf(a - b))),
   isinf(a) && a == b ? a : maxd_(a, b) + log1p(exp(-fabs(a - b))))
FD(logaddexp2, isinf(a) && a == b ? a : fmaf(log1pf(exp2f(-fabsf(a - b))), (float)(1.0 / M_LN2), maxf_(a, b)),
   isinf(a) && a == b ? a : fma(log1p(exp2(-fabs(a - b))), 1.0 / M_LN2, maxd_(a, b)))
/* complex logaddexp: torch's _log_add_exp_helper (LogAddExp.h); complex64
 * in float (c10's log1p of a complex number, glibc's cexpf) */
static inline bool cisnan_(cplx z) { return isnan(creal(z)) || isnan(cimag(z)); }
static cplx clog1pf_(float x, float y) {
    float zabs = hypotf(x, y), theta = atan2f(y, x + 1.0f);
    if (zabs < 0.5f) {
        float r = x * (2.0f + x) + y * y;
        if (r == 0) return CMPLX(x, theta);
        return CMPLX(0.5f * log1pf(r), theta);
    }
    return CMPLX(logf(hypotf(x + 1.0f, y)), theta);
}
FN_C(logaddexp) {
    cplx a = x[0], b = x[1], mn, mx;
    if (cisnan_(b)) mn = mx = b;
    else if (cisnan_(a)) mn = mx = a;
    else if (creal(a) < creal(b)) mn = a, mx = b;
    else mn = b, mx = a;
    if (cisnan_(mn)) return CMPLX(NAN, NAN);
    bool f = p->ct == EIR_C64;
    if (!isfinite(creal(mn)) && creal(mn) == creal(mx)) {
        if (creal(mn) < 0) return mn;
        if (f) {
            float _Complex s = cexpf((float _Complex)mn) + cexpf((float _Complex)mx);
            return clogf(s);
        }
        return clog(cexp(mn) + cexp(mx));
    }
    if (f) {
        float _Complex e = cexpf(CMPLXF((float)creal(mn) - (float)creal(mx), (float)cimag(mn) - (float)cimag(mx)));
        return caddf_(clog1pf_(crealf(e), cimagf(e)), mx);
    }
    return clog1p_(cexp(mn - mx)) + mx;
}
/* xlogy / xlog1py: NaN y gives NaN, x = 0 gives 0. float16/bfloat16: torch's
 * log of a reduced float is rounded to it before the product */
FN_F(xlogy) {
    float a = x[0], b = x[1];
    if (b != b) return NAN;
    if (a == 0) return 0;
    return a * round_to(logf(b), p->ct);
}
FN_D(xlogy) {
    (void)p;
    double a = x[0], b = x[1];
    if (b != b) return NAN;
    if (a == 0) return 0;
    return a * log(b);
}
FN_F(xlog1py) {
    float a = x[0], b = x[1];
    if (b != b) return NAN;
    if (a == 0) return 0;
    return a * round_to(log1pf(b), p->ct);
}
FN_D(xlog1py) {
    (void)p;
    double a = x[0], b = x[1];
    if (b != b) return NAN;
    if (a == 0) return 0;
    return a * log1p(b);
}
/* nextafter of float16/bfloat16: one step of the 16-bit pattern (c10's
 * nextafter for reduced floats, after musl) */
static float nextafter16(float from, float to, eir_dtype ct) {
    if (from != from || to != to) return from + to;
    uint16_t uf = ct == EIR_F16 ? eir_f32_to_f16(from) : eir_f32_to_bf16(from);
    uint16_t ut = ct == EIR_F16 ? eir_f32_to_f16(to) : eir_f32_to_bf16(to);
    if (uf == ut) return from;
    uint16_t af = uf & 0x7fffu, at = ut & 0x7fffu;
    if (af == 0) {
        if (at == 0) return to;
        uf = (uint16_t)((ut & 0x8000u) | 1u);
    } else if (af > at || ((uf ^ ut) & 0x8000u)) {
        uf--;
    } else {
        uf++;
    }
    return ct == EIR_F16 ? eir_f16_to_f32(uf) : eir_bf16_to_f32(uf);
}
FN_F(nextafter) { return p->ct == EIR_F32 ? nextafterf(x[0], x[1]) : nextafter16(x[0], x[1], p->ct); }
FN_D(nextafter) { (void)p; return nextafter(x[0], x[1]); }
/* heaviside: values where the input is 0, else (input > 0) */
FD(heaviside, a == 0 ? b : (float)(a > 0), a == 0 ? b : (double)(a > 0))
FI(heaviside, a == 0 ? b : a > 0)
/* gcd / lcm (torch's calc_gcd: Euclid on absolute values in the integer
 * type; x % -1 is 0, where C would trap on INT64_MIN % -1) */
static int64_t igcd(int64_t a, int64_t b, eir_dtype ct) {
    a = wrap_to(a < 0 ? wneg(a) : a, ct);
    b = wrap_to(b < 0 ? wneg(b) : b, ct);
    while (a != 0) {
        int64_t c = a;
        a = a == -1 ? 0 : wrap_to(b % a, ct);
        b = c;
    }
    return b;
}
FI(gcd, igcd(a, b, p->ct))
/* |a / g * b|: C++ computes int8/int16 products in int, int32 and int64
 * ones in their own width */
FN_I(lcm) {
    (void)err;
    int64_t a = x[0], b = x[1], g = igcd(a, b, p->ct);
    if (g == 0) return 0;
    int64_t r = wmul(idiv_trunc(a, g), b);
    if (p->ct == EIR_I32) r = (int32_t)(uint32_t)(uint64_t)r;
    return r < 0 ? wneg(r) : r;
}
/* ldexp's product path: self * pow(2, other), the power computed in the
 * dtype torch's _pow2 gives it (p->bi) */
FN_F(ldexp) { return x[0] * round_to(powf(2.0f, x[1]), (eir_dtype)p->bi); }
FN_D(ldexp) {
    eir_dtype pd = (eir_dtype)p->bi;
    return x[0] * (pd == EIR_F64 ? pow(2.0, x[1]) : (double)round_to(powf(2.0f, (float)x[1]), pd));
}
FN_C(ldexp) {
    cplx pw = cpow(CMPLX(2.0, 0.0), x[1]);
    if (p->ct == EIR_C64 || (eir_dtype)p->bi == EIR_C64) return cmulf_(x[0], CMPLX((float)creal(pw), (float)cimag(pw)));
    return cmul(x[0], pw);
}
/* sgn of a complex number: z / |z| (0 at 0), each part divided by the
 * hypotenuse as torch's vectorized kernel does; complex64 in float */
FN_C(sgn) {
    double re = creal(x[0]), im = cimag(x[0]);
    if (p->ct == EIR_C64) {
        float h = hypotf((float)re, (float)im);
        return h == 0 ? 0 : CMPLX((float)re / h, (float)im / h);
    }
    double h = hypot(re, im);
    return h == 0 ? 0 : CMPLX(re / h, im / h);
}
FD(signbit, signbit(a) != 0, signbit(a) != 0)
FI(signbit, p->is_signed && a < 0)
/* sinc: sin(pi x) / (pi x), 1 at 0 */
FD(sinc, a == 0 ? 1.0f : sinf((float)M_PI * a) / ((float)M_PI * a), a == 0 ? 1.0 : sin(M_PI * a) / (M_PI * a))
FN_C(sinc) {
    cplx a = x[0];
    if (a == 0) return 1;
    if (p->ct == EIR_C64) {
        float pi = (float)M_PI;
        float _Complex prod = CMPLXF(pi * (float)creal(a), pi * (float)cimag(a));
        return cdivf_fma(csinf(prod), prod);
    }
    cplx prod = cmul(CMPLX(M_PI, 0), a);
    return cdiv_fma(csin(prod), prod);
}
/* deg2rad / rad2deg: a product with torch's constant (p->a / af) */
FD(scale, a * p->af, a * p->a)
/* angle: 0 or pi for reals (NaN stays), the argument of complex numbers */
FD(angle, a != a ? a : a < 0 ? (float)M_PI : 0.0f, a != a ? a : a < 0 ? M_PI : 0.0)
FN_C(angle) {
    double re = creal(x[0]), im = cimag(x[0]);
    return p->ct == EIR_C64 ? atan2f((float)im, (float)re) : atan2(im, re);
}
FC(conj, conj(a))
FD(isposinf, a == INFINITY, a == INFINITY)
FD(isneginf, a == -INFINITY, a == -INFINITY)
FC(isreal, cimag(a) == 0)
FD(ident, a, a)
FD(one, 1.0f, 1.0)

#define OP(var, nm, n, fF, fD, fI, fC, keep) static const pw_op var = {nm, n, fF, fD, fI, fC, keep, false, NULL, NULL, false};
#define OPFD(var, nm, n, base, fI, fC) OP(var, nm, n, base##_f, base##_d, fI, fC, 0)
/* ops with float32/float64 rows in fast.c, which also run float16 / bfloat16 rows converted to
 * float32 (pw_op.reduced_rows): each row function declines (returns false) where the reduced
 * type computes otherwise than float32, and the element function runs that chunk */
#define OPR(var, nm, n, fF, fD, fI, fC, keep, row) \
    static const pw_op var = {nm, n, fF, fD, fI, fC, keep, false, eir_pw_row_##row##_f32, eir_pw_row_##row##_f64, true};
#define OPFDR(var, nm, n, base, fI, fC) OPR(var, nm, n, base##_f, base##_d, fI, fC, 0, base)

OPR(op_add, "add", 2, add_f, add_d, add_i, add_c, 0, add)
OPR(op_mul, "mul", 2, mul_f, mul_d, mul_i, mul_c, 2, mul)
OPR(op_div, "div_true", 2, div_f, div_d, NULL, div_c, 2, div)
OPFD(op_divtrunc, "div_trunc", 2, divtrunc, divtrunc_i, NULL)
OPFD(op_divfloor, "div_floor", 2, divfloor, divfloor_i, NULL)
OPFD(op_rem, "remainder", 2, rem, rem_i, NULL)
OPFD(op_fmod, "fmod", 2, fmod, fmod_i, NULL)
OPFD(op_pow, "pow", 2, pow, pow_i, pow_c)
OPFDR(op_pows, "pow", 1, pows, NULL, pows_c) /* its rows decline the reduced-type steps (fast.c) */
OPFDR(op_max, "maximum", 2, max, max_i, NULL)
OPFDR(op_min, "minimum", 2, min, min_i, NULL)
OPFD(op_atan2, "atan2", 2, atan2, NULL, NULL)
OP(op_shl, "lshift", 2, NULL, NULL, shl_i, NULL, 0)
OP(op_shr, "rshift", 2, NULL, NULL, shr_i, NULL, 0)
OP(op_band, "bitwise_and_cpu", 2, NULL, NULL, band_i, NULL, 0)
OP(op_bor, "bitwise_or_cpu", 2, NULL, NULL, bor_i, NULL, 0)
OP(op_bxor, "bitwise_xor_cpu", 2, NULL, NULL, bxor_i, NULL, 0)
OPFD(op_land, "logical_and", 2, land, land_i, land_c)
OPFD(op_lor, "logical_or", 2, lor, lor_i, lor_c)
OPFD(op_lxor, "logical_xor", 2, lxor, lxor_i, lxor_c)
OPFD(op_lnot, "logical_not", 1, lnot, lnot_i, lnot_c)
OPFD(op_eq, "eq", 2, eq, eq_i, eq_c)
OPFD(op_ne, "ne", 2, ne, ne_i, ne_c)
OPFD(op_lt, "lt", 2, lt, lt_i, NULL)
OPFD(op_le, "le", 2, le, le_i, NULL)
OPFD(op_gt, "gt", 2, gt, gt_i, NULL)
OPFD(op_ge, "ge", 2, ge, ge_i, NULL)
OPFDR(op_neg, "neg", 1, neg, neg_i, neg_c)
OPFDR(op_abs, "abs", 1, abs, abs_i, abs_c)
OPFD(op_sign, "sign", 1, sign, sign_i, NULL)
OPFDR(op_exp, "exp", 1, exp, NULL, exp_c)
OPFD(op_exp2, "exp2", 1, exp2, NULL, exp2_c)
OPFD(op_expm1, "expm1", 1, expm1, NULL, expm1_c)
OPFD(op_log, "log", 1, log, NULL, log_c)
OPFD(op_log2, "log2", 1, log2, NULL, log2_c)
OPFD(op_log10, "log10", 1, log10, NULL, log10_c)
OPFD(op_log1p, "log1p", 1, log1p, NULL, log1p_c)
OPFDR(op_sqrt, "sqrt", 1, sqrt, NULL, sqrt_c)
OPFDR(op_rsqrt, "rsqrt", 1, rsqrt, NULL, rsqrt_c)
OPFDR(op_recip, "reciprocal", 1, recip, NULL, recip_c)
OPFD(op_sin, "sin", 1, sin, NULL, sin_c)
OPFD(op_cos, "cos", 1, cos, NULL, cos_c)
OPFD(op_tan, "tan", 1, tan, NULL, tan_c)
OPFD(op_asin, "asin", 1, asin, NULL, asin_c)
OPFD(op_acos, "acos", 1, acos, NULL, acos_c)
OPFD(op_atan, "atan", 1, atan, NULL, atan_c)
OPFD(op_sinh, "sinh", 1, sinh, NULL, sinh_c)
OPFD(op_cosh, "cosh", 1, cosh, NULL, cosh_c)
OPFDR(op_tanh, "tanh", 1, tanh, NULL, tanh_c)
OPFD(op_asinh, "asinh", 1, asinh, NULL, asinh_c)
OPFD(op_acosh, "acosh", 1, acosh, NULL, acosh_c)
OPFD(op_atanh, "atanh", 1, atanh, NULL, atanh_c)
OPFDR(op_sigmoid, "sigmoid", 1, sigmoid, NULL, sigmoid_c)
OPFD(op_erf, "erf", 1, erf, NULL, NULL)
OPFD(op_erfc, "erfc", 1, erfc, NULL, NULL)
OPFD(op_floor, "floor", 1, floor, ident_i, NULL)
OPFD(op_ceil, "ceil", 1, ceil, ident_i, NULL)
OPFD(op_round, "round", 1, round, ident_i, NULL)
OPFD(op_roundd, "round", 1, roundd, NULL, NULL)
OPFD(op_trunc, "trunc", 1, trunc, ident_i, NULL)
OPFD(op_frac, "frac", 1, frac, NULL, NULL)
OPFDR(op_relu, "clamp_min", 1, relu, relu_i, NULL)
OPFDR(op_clamp, "clamp", 3, clamp, clamp_i, NULL)
OPFDR(op_gelu, "GeluKernelImpl", 1, gelu, NULL, NULL)
OPFDR(op_silu, "silu", 1, silu, NULL, silu_c)
OPFD(op_mish, "mish", 1, mish, NULL, NULL)
OPFDR(op_hardswish, "hardswish", 1, hardswish, NULL, NULL)
OPFDR(op_hardsigmoid, "hardsigmoid", 1, hardsigmoid, NULL, NULL)
OPFD(op_elu, "elu", 1, elu, NULL, NULL)
OPFD(op_leaky, "leaky_relu", 1, leaky, NULL, NULL)
OPFD(op_softplus, "softplus", 1, softplus, NULL, NULL)
OPFD(op_threshold, "threshold_cpu", 1, threshold, threshold_i, NULL)
OPFD(op_hardshrink, "hardshrink_cpu", 1, hardshrink, NULL, NULL)
OPFD(op_softshrink, "softshrink_cpu", 1, softshrink, NULL, NULL)
OPFD(op_logsigmoid, "log_sigmoid_cpu", 1, logsigmoid, NULL, NULL)
OPFD(op_logsigbuf, "log_sigmoid_cpu", 1, logsigbuf, NULL, NULL)
OPFD(op_logit, "logit_cpu", 1, logit, NULL, NULL)
OPFD(op_prelu, "prelu_cpu", 2, prelu, NULL, NULL)
OPFD(op_glu, "glu_cpu", 2, glu, NULL, NULL)
OPFD(op_isnan, "isnan", 1, isnan, zero_i, isnan_c)
OPFD(op_isinf, "isinf", 1, isinf, zero_i, isinf_c)
OPFD(op_isfinite, "isfinite", 1, isfinite, one_i, isfinite_c)
OP(op_bnot, "bitwise_not_cpu", 1, NULL, NULL, bnot_i, NULL, 0)
OPFD(op_nan2num, "nan_to_num", 1, nan2num, ident_i, NULL)
OPFD(op_where, "where_cpu", 3, where, where_i, where_c)
OPFD(op_lerp, "lerp_kernel_scalar", 3, lerp, NULL, NULL)
OP(op_addcmul, "addcmul_cpu_out", 3, addcmul_f, addcmul_d, addcmul_i, addcmul_c, 0)
OP(op_addcdiv, "addcdiv_cpu_out", 3, addcdiv_f, addcdiv_d, NULL, addcdiv_c, 0)
OPFD(op_copysign, "copysign_cpu", 2, copysign, NULL, NULL)
OPFD(op_fmax, "fmax_cpu", 2, fmax, max_i, NULL)
OPFD(op_fmin, "fmin_cpu", 2, fmin, min_i, NULL)
OPFD(op_hypot, "hypot_cpu", 2, hypot, NULL, NULL)
OPFD(op_logaddexp, "logaddexp_cpu", 2, logaddexp, NULL, logaddexp_c)
OPFD(op_logaddexp2, "logaddexp2_cpu", 2, logaddexp2, NULL, NULL)
OPFD(op_xlogy, "xlogy_cpu", 2, xlogy, NULL, NULL)
OPFD(op_xlog1py, "xlog1py_cpu", 2, xlog1py, NULL, NULL)
OPFD(op_nextafter, "nextafter_cpu", 2, nextafter, NULL, NULL)
OPFD(op_heaviside, "heaviside_cpu", 2, heaviside, heaviside_i, NULL)
OP(op_gcd, "gcd_cpu", 2, NULL, NULL, gcd_i, NULL, 0)
OP(op_lcm, "lcm_cpu", 2, NULL, NULL, lcm_i, NULL, 0)
OPFD(op_ldexp, "ldexp", 2, ldexp, NULL, ldexp_c)
OPFD(op_sgn, "sgn_cpu", 1, sign, sign_i, sgn_c)
OPFD(op_signbit, "signbit_cpu", 1, signbit, signbit_i, NULL)
OPFD(op_sinc, "sinc_cpu", 1, sinc, NULL, sinc_c)
OPFD(op_scale, "mul", 1, scale, NULL, NULL)
OPFD(op_angle, "angle_cpu", 1, angle, NULL, angle_c)
OPFD(op_conj, "conj_cpu", 1, ident, ident_i, conj_c)
OPFD(op_isposinf, "isposinf", 1, isposinf, zero_i, NULL)
OPFD(op_isneginf, "isneginf", 1, isneginf, zero_i, NULL)
OPFD(op_isreal, "isreal", 1, one, one_i, isreal_c)

/* ---- dtype helpers for kernels ---- */

static eir_dtype rtype2(const eir_karg *a, const eir_karg *b) {
    const eir_karg *v[2] = {a, b};
    return eir_result_type(v, b ? 2 : 1);
}
eir_dtype eir_pw_result_type2(const eir_karg *a, const eir_karg *b) { return rtype2(a, b); }

/* ints/bool promote to the default float (the output's dtype when floating) */
static eir_dtype to_float_ct(eir_dtype ct, const eir_tview *out) { return eir_pw_float_ct(ct, out); }

/* ---- generic kernels ---- */

static int run2(const pw_op *op, pw_params *p, eir_dtype ct, const eir_karg *a, const eir_karg *b, eir_tview *out,
                eir_kctx *ctx) {
    scalar_buf sa, sb;
    const eir_tview *in[2] = {arg_view(a, &sa), arg_view(b, &sb)};
    if (!in[0] || !in[1]) return eir_kerr(ctx, "%s: expected tensor or scalar arguments", op->name);
    return pw_run(op, p, ct, in, out, ctx);
}

static int run1(const pw_op *op, pw_params *p, eir_dtype ct, const eir_karg *a, eir_tview *out, eir_kctx *ctx) {
    scalar_buf sa;
    const eir_tview *in[1] = {arg_view(a, &sa)};
    if (!in[0]) return eir_kerr(ctx, "%s: expected a tensor argument", op->name);
    return pw_run(op, p, ct, in, out, ctx);
}

#define NEED(n)                                                                         \
    do {                                                                                \
        if (nargs < (n) || nout < 1) return eir_kerr(ctx, "%s: expected %d arguments", __func__, (n)); \
    } while (0)

/* params from a Scalar argument at ct: af rounded to a reduced ct (torch's
 * scalar.to<scalar_t>() then opmath) */
static void param_a(pw_params *p, const eir_karg *s, eir_dtype ct) {
    p->a = scalar_f(s);
    p->af = round_to((float)p->a, ct);
    p->ai = scalar_i(s);
}

/* add/sub: self + alpha * other (sign -1 for sub, rsub swaps) */
static int addsub(const eir_karg *self, const eir_karg *other, const eir_karg *alpha, double sign, eir_tview *out,
                  eir_kctx *ctx) {
    pw_params p = {0};
    eir_dtype ct = rtype2(self, other);
    if (ct == EIR_BOOL && sign < 0)
        return eir_kerr(ctx, "Subtraction, the `-` operator, with two bool tensors is not supported. "
                             "Use the `^` or `logical_xor()` operator instead.");
    if (alpha && alpha->kind != EIR_KA_NONE) {
        if (eir_scalar_arg_fits(alpha, ct, ctx)) return -1;
        param_a(&p, alpha, ct);
    }
    else { p.a = 1; p.af = 1; p.ai = 1; }
    p.a *= sign;
    p.af *= (float)sign;
    p.ai = sign < 0 ? wneg(p.ai) : p.ai;
    return run2(&op_add, &p, ct, self, other, out, ctx);
}

static int k_add(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return addsub(&args[0], &args[1], nargs > 2 ? &args[2] : NULL, 1, out, ctx);
}
static int k_sub(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return addsub(&args[0], &args[1], nargs > 2 ? &args[2] : NULL, -1, out, ctx);
}
static int k_rsub(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return addsub(&args[1], &args[0], nargs > 2 ? &args[2] : NULL, -1, out, ctx);
}

#define BINK(kname, opvar, ctexpr)                                                                      \
    static int kname(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) { \
        NEED(2);                                                                                        \
        pw_params p = {0};                                                                              \
        eir_dtype ct = rtype2(&args[0], &args[1]);                                                      \
        ct = (ctexpr);                                                                                  \
        return run2(&opvar, &p, ct, &args[0], &args[1], out, ctx);                                      \
    }

BINK(k_mul, op_mul, ct)
BINK(k_div, op_div, to_float_ct(ct, out))
BINK(k_floordiv, op_divfloor, ct)
BINK(k_rem, op_rem, ct)
BINK(k_fmod, op_fmod, ct)
BINK(k_pow, op_pow, ct)
BINK(k_max, op_max, ct)
BINK(k_min, op_min, ct)
BINK(k_atan2, op_atan2, to_float_ct(ct, out))
BINK(k_shl, op_shl, ct)
BINK(k_shr, op_shr, ct)
BINK(k_band, op_band, ct)
BINK(k_bor, op_bor, ct)
BINK(k_bxor, op_bxor, ct)
BINK(k_land, op_land, ct)
BINK(k_lor, op_lor, ct)
BINK(k_lxor, op_lxor, ct)
BINK(k_eq, op_eq, ct)
BINK(k_ne, op_ne, ct)
BINK(k_lt, op_lt, ct)
BINK(k_le, op_le, ct)
BINK(k_gt, op_gt, ct)
BINK(k_ge, op_ge, ct)

static int k_div_mode(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    const char *mode = nargs > 2 && args[2].kind == EIR_KA_STRING ? args[2].str : NULL;
    pw_params p = {0};
    eir_dtype ct = rtype2(&args[0], &args[1]);
    if (!mode) return run2(&op_div, &p, to_float_ct(ct, out), &args[0], &args[1], out, ctx);
    if (!strcmp(mode, "trunc")) return run2(&op_divtrunc, &p, ct, &args[0], &args[1], out, ctx);
    if (!strcmp(mode, "floor")) return run2(&op_divfloor, &p, ct, &args[0], &args[1], out, ctx);
    return eir_kerr(ctx, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", mode);
}

static int k_pow_scalar_exp(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    eir_dtype ct = rtype2(&args[0], &args[1]);
    pw_params p = {0};
    /* the exponent converts checked to the tensor's type, but for float32 / float64 (read as double) */
    if (ct != EIR_F32 && ct != EIR_F64 && eir_scalar_arg_fits(&args[1], ct, ctx)) return -1;
    if (domain_of(ct) == DOM_F || domain_of(ct) == DOM_D || domain_of(ct) == DOM_C) {
        /* the exponent as torch's kernels read it: float16/bfloat16 round it
         * to the tensor's dtype (exp_scalar.to<scalar_t>()), float32 keeps
         * the double */
        p.a = scalar_f(&args[1]);
        p.b = args[1].s.kind == EIR_SC_COMPLEX ? args[1].s.im : 0;
        p.af = round_to((float)p.a, ct);
        if (ct == EIR_F32) p.af = (float)p.a;
        return run1(&op_pows, &p, ct, &args[0], out, ctx);
    }
    if (domain_of(ct) == DOM_I && scalar_i(&args[1]) < 0 && args[1].s.kind != EIR_SC_FLOAT)
        return eir_kerr(ctx, "Integers to negative integer powers are not allowed.");
    return run2(&op_pow, &p, ct, &args[0], &args[1], out, ctx);
}

/* ---- unary ---- */

#define UNK(kname, opvar, ctexpr)                                                                       \
    static int kname(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) { \
        NEED(1);                                                                                        \
        pw_params p = {0};                                                                              \
        eir_dtype ct = args[0].kind == EIR_KA_TENSOR ? args[0].t->dtype : out->dtype;                   \
        ct = (ctexpr);                                                                                  \
        return run1(&opvar, &p, ct, &args[0], out, ctx);                                                \
    }
/* float ops: integer inputs compute in the output's float dtype */
#define UNKF(kname, opvar) UNK(kname, opvar, to_float_ct(ct, out))
/* same-dtype ops */
#define UNKS(kname, opvar) UNK(kname, opvar, ct)

UNKS(k_neg, op_neg)
UNKS(k_abs, op_abs)
UNKS(k_sign, op_sign)
UNKF(k_exp, op_exp)
UNKF(k_exp2, op_exp2)
UNKF(k_expm1, op_expm1)
UNKF(k_log, op_log)
UNKF(k_log2, op_log2)
UNKF(k_log10, op_log10)
UNKF(k_log1p, op_log1p)
UNKF(k_sqrt, op_sqrt)
UNKF(k_rsqrt, op_rsqrt)
UNKF(k_recip, op_recip)
UNKF(k_sin, op_sin)
UNKF(k_cos, op_cos)
UNKF(k_tan, op_tan)
UNKF(k_asin, op_asin)
UNKF(k_acos, op_acos)
UNKF(k_atan, op_atan)
UNKF(k_sinh, op_sinh)
UNKF(k_cosh, op_cosh)
UNKF(k_tanh, op_tanh)
UNKF(k_asinh, op_asinh)
UNKF(k_acosh, op_acosh)
UNKF(k_atanh, op_atanh)
UNKF(k_sigmoid, op_sigmoid)
UNKF(k_erf, op_erf)
UNKF(k_erfc, op_erfc)
UNKS(k_floor, op_floor)
UNKS(k_ceil, op_ceil)
UNKS(k_round, op_round)
UNKS(k_trunc, op_trunc)
UNKS(k_frac, op_frac)
UNKS(k_relu, op_relu)
UNKS(k_silu, op_silu)
UNKS(k_mish, op_mish)
UNKS(k_hardswish, op_hardswish)
UNKS(k_hardsigmoid, op_hardsigmoid)
UNKS(k_lnot, op_lnot)
UNKS(k_bnot, op_bnot)
UNKS(k_isnan, op_isnan)
UNKS(k_isinf, op_isinf)
UNKS(k_isfinite, op_isfinite)

static int k_round_dec(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    pw_params p = {0};
    p.mode = (int)args[1].i;
    return run1(&op_roundd, &p, args[0].t->dtype, &args[0], out, ctx);
}

static int k_gelu(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    if (nargs > 1 && args[1].kind == EIR_KA_STRING && args[1].str) {
        if (!strcmp(args[1].str, "tanh")) p.mode = 1;
        else if (strcmp(args[1].str, "none")) return eir_kerr(ctx, "approximate argument must be either none or tanh.");
    }
    return run1(&op_gelu, &p, out->dtype, &args[0], out, ctx);
}

/* clamp(self, min?, max?) with Scalars or Tensors */
static int clamp3(const eir_karg *self, const eir_karg *lo, const eir_karg *hi, eir_dtype ct, eir_tview *out,
                  eir_kctx *ctx) {
    pw_params p = {0};
    scalar_buf s0, s1, s2;
    static const eir_scalar zero = {EIR_SC_INT, 0, 0, 0};
    const eir_tview *in[3];
    in[0] = arg_view(self, &s0);
    p.has_lo = lo && lo->kind != EIR_KA_NONE;
    p.has_hi = hi && hi->kind != EIR_KA_NONE;
    in[1] = p.has_lo ? arg_view(lo, &s1) : scalar_view(&zero, &s1);
    in[2] = p.has_hi ? arg_view(hi, &s2) : scalar_view(&zero, &s2);
    if (!in[0] || !in[1] || !in[2]) return eir_kerr(ctx, "clamp: bad arguments");
    if (!p.has_lo && !p.has_hi) return eir_kerr(ctx, "torch.clamp: At least one of 'min' or 'max' must not be None");
    if ((p.has_lo && eir_scalar_arg_fits(lo, ct, ctx)) || (p.has_hi && eir_scalar_arg_fits(hi, ct, ctx))) return -1;
    return pw_run(&op_clamp, &p, ct, in, out, ctx);
}

static int k_clamp(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    return clamp3(&args[0], nargs > 1 ? &args[1] : NULL, nargs > 2 ? &args[2] : NULL, out->dtype, out, ctx);
}
static int k_clamp_min(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return clamp3(&args[0], &args[1], NULL, out->dtype, out, ctx);
}
static int k_clamp_max(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return clamp3(&args[0], NULL, &args[1], out->dtype, out, ctx);
}
static int k_hardtanh(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    eir_karg lo = {0}, hi = {0};
    lo.kind = hi.kind = EIR_KA_SCALAR;
    lo.s.kind = hi.s.kind = EIR_SC_INT;
    lo.s.i = -1; lo.s.f = -1;
    hi.s.i = 1; hi.s.f = 1;
    const eir_karg *l = nargs > 1 ? &args[1] : &lo, *h = nargs > 2 ? &args[2] : &hi;
    eir_dtype od = out->dtype;
    if ((od == EIR_U8 || od == EIR_U16 || od == EIR_U32 || od == EIR_U64) && (scalar_f(l) < 0 || scalar_f(h) < 0))
        return eir_kerr(ctx, "cannot do hardtanh on an unsigned type with negative limits");
    return clamp3(&args[0], l, h, od, out, ctx);
}

/* The type torch's kernels read a Scalar parameter in (opmath: float for float16 / bfloat16), and
 * the checked conversion into it (c10::checked_convert): 0, or -1 with torch's overflow error */
static eir_dtype opmath_dt(eir_dtype dt) {
    return dt == EIR_F16 || dt == EIR_BF16 ? EIR_F32 : dt;
}
static int scalars_fit(const eir_karg *args, uint32_t from, uint32_t to, uint32_t nargs, eir_dtype dt, eir_kctx *ctx) {
    for (uint32_t k = from; k < to && k < nargs; k++)
        if (eir_scalar_arg_fits(&args[k], dt, ctx)) return -1;
    return 0;
}

static int k_elu(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4);
    pw_params p = {0};
    eir_dtype ct = out->dtype;
    if (scalars_fit(args, 1, 4, nargs, opmath_dt(ct), ctx)) return -1;
    p.a = scalar_f(&args[1]); p.b = scalar_f(&args[2]); p.c = scalar_f(&args[3]);
    p.af = (float)p.a; p.bf = (float)p.b; p.cf = (float)p.c;
    return run1(&op_elu, &p, ct, &args[0], out, ctx);
}
static int k_leaky(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    if (scalars_fit(args, 1, 2, nargs, opmath_dt(out->dtype), ctx)) return -1;
    p.a = nargs > 1 ? scalar_f(&args[1]) : 0.01;
    p.af = (float)p.a;
    return run1(&op_leaky, &p, out->dtype, &args[0], out, ctx);
}
static int k_softplus(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    if (scalars_fit(args, 1, 3, nargs, opmath_dt(out->dtype), ctx)) return -1;
    p.a = nargs > 1 ? scalar_f(&args[1]) : 1;
    p.b = nargs > 2 ? scalar_f(&args[2]) : 20;
    p.af = (float)p.a; p.bf = (float)p.b;
    return run1(&op_softplus, &p, out->dtype, &args[0], out, ctx);
}

/* ---- activations torch exports as their own ops ---- */

/* selu / celu: elu with fixed coefficients (torch's get_elu_params) */
static int elu_with(const eir_karg *self, double alpha, double scale, double input_scale, eir_tview *out, eir_kctx *ctx) {
    pw_params p = {0};
    p.a = alpha; p.b = scale; p.c = input_scale;
    p.af = (float)alpha; p.bf = (float)scale; p.cf = (float)input_scale;
    return run1(&op_elu, &p, out->dtype, self, out, ctx);
}
static int k_selu(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    return elu_with(&args[0], 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1.0, out, ctx);
}
/* celu(self, alpha=1.0) = elu(self, alpha, 1, 1 / alpha) */
static int k_celu(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    double alpha = nargs > 1 && args[1].kind != EIR_KA_NONE ? scalar_f(&args[1]) : 1.0;
    if (alpha == 0) return eir_kerr(ctx, "ZeroDivisionError");
    return elu_with(&args[0], alpha, 1.0, 1.0 / alpha, out, ctx);
}
/* relu6 = hardtanh(self, 0, 6) */
static int k_relu6(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    eir_karg a[3] = {args[0]};
    for (int k = 1; k < 3; k++) {
        a[k].kind = EIR_KA_SCALAR;
        a[k].s.kind = EIR_SC_INT;
        a[k].s.i = k == 1 ? 0 : 6;
        a[k].s.f = (double)a[k].s.i;
    }
    return k_hardtanh(a, 3, out, nout, ctx);
}
/* threshold(self, threshold, value): reduced floats compare in float and
 * store value rounded to their dtype, as torch's threshold_kernel */
static int k_threshold(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    pw_params p = {0};
    eir_dtype ct = out->dtype;
    if (ct == EIR_BOOL) return eir_kerr(ctx, "\"threshold_cpu\" not implemented for 'Bool'");
    /* the threshold compared in opmath, the value stored in the tensor's dtype */
    if (eir_scalar_arg_fits(&args[1], opmath_dt(ct), ctx) || eir_scalar_arg_fits(&args[2], ct, ctx)) return -1;
    p.a = scalar_f(&args[1]); p.b = scalar_f(&args[2]);
    p.af = (float)p.a; p.bf = round_to((float)p.b, ct);
    p.ai = scalar_i(&args[1]); p.bi = scalar_i(&args[2]);
    return run1(&op_threshold, &p, ct, &args[0], out, ctx);
}
/* hardshrink(self, lambd=0.5): lambd in the tensor's dtype */
static int k_hardshrink(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    if (scalars_fit(args, 1, 2, nargs, out->dtype, ctx)) return -1;
    p.a = nargs > 1 ? scalar_f(&args[1]) : 0.5;
    p.af = round_to((float)p.a, out->dtype);
    return run1(&op_hardshrink, &p, out->dtype, &args[0], out, ctx);
}
/* softshrink(self, lambd=0.5): lambd in float for reduced floats */
static int k_softshrink(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    p.a = nargs > 1 ? scalar_f(&args[1]) : 0.5;
    if (!(p.a >= 0)) return eir_kerr(ctx, "lambda must be greater or equal to 0, but found to be %g.", p.a);
    p.af = (float)p.a;
    return run1(&op_softshrink, &p, out->dtype, &args[0], out, ctx);
}
static int k_log_sigmoid(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    return run1(&op_logsigmoid, &p, out->dtype, &args[0], out, ctx);
}
/* log_sigmoid_forward(self) -> (output, buffer) */
static int k_log_sigmoid_fwd(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    if (run1(&op_logsigmoid, &p, out->dtype, &args[0], out, ctx)) return -1;
    if (nout > 1 && eir_tview_numel(&out[1]) == eir_tview_numel(out)) return run1(&op_logsigbuf, &p, out[1].dtype, &args[0], &out[1], ctx);
    return 0;
}
/* logit(self, eps=None): with eps, self is clamped to [eps, 1 - eps] (in
 * float for reduced floats, in the dtype otherwise) */
static int k_logit(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    eir_dtype ct = to_float_ct(args[0].kind == EIR_KA_TENSOR ? args[0].t->dtype : out->dtype, out);
    if (nargs > 1 && args[1].kind != EIR_KA_NONE) {
        if (eir_scalar_arg_fits(&args[1], out->dtype, ctx)) return -1; /* eps, in the tensor's type */
        p.mode = 1;
        p.a = scalar_f(&args[1]);
        p.b = 1.0 - p.a;
        p.af = (float)p.a;
        p.bf = 1.0f - p.af;
    }
    return run1(&op_logit, &p, ct, &args[0], out, ctx);
}
/* _prelu_kernel(self, weight): weight already broadcastable */
static int k_prelu_kernel(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    pw_params p = {0};
    return run2(&op_prelu, &p, out->dtype, &args[0], &args[1], out, ctx);
}
/* prelu(self, weight): a scalar weight, or one per channel (dim 1) */
static int k_prelu(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    if (args[0].kind != EIR_KA_TENSOR || args[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "prelu: expected tensors");
    const eir_tview *x = args[0].t, *w = args[1].t;
    if (x->dtype != w->dtype)
        return eir_kerr(ctx, "prelu: Type promoting not supported. Got %s and %s", c10_name(x->dtype), c10_name(w->dtype));
    int64_t nw = eir_tview_numel(w);
    if (nw != 1) {
        if (x->rank == 0) return eir_kerr(ctx, "Not allow zero-dim input tensor.");
        int64_t ch = x->rank > 1 ? x->sizes[1] : 1;
        if (ch != nw)
            return eir_kerr(ctx, "Mismatch of parameter numbers and input channel size. Found parameter numbers = %lld and channel size = %lld.",
                            (long long)nw, (long long)ch);
    }
    if (w->rank > 1) return eir_kerr(ctx, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = %d", w->rank);
    eir_tview wv = *w;
    if (x->rank != w->rank) {
        /* weight viewed as [1, C, 1, ...] */
        wv.rank = x->rank;
        for (int32_t d = 0; d < x->rank; d++) { wv.sizes[d] = 1; wv.strides[d] = 0; }
        if (x->rank > 1) { wv.sizes[1] = nw; wv.strides[1] = w->rank == 1 ? w->strides[0] : 0; }
    }
    pw_params p = {0};
    const eir_tview *in[2] = {x, &wv};
    return pw_run(&op_prelu, &p, out->dtype, in, out, ctx);
}
/* glu(self, dim=-1): first half * sigmoid(second half) along dim */
static int k_glu(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    if (args[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "glu: expected a tensor");
    const eir_tview *x = args[0].t;
    if (x->rank == 0) return eir_kerr(ctx, "glu does not support scalars because halving size must be even");
    int64_t d64 = nargs > 1 ? args[1].i : -1;
    int32_t dim = eir_wrap_dim(d64, x->rank);
    if (dim < 0)
        return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -x->rank, x->rank - 1, (long long)d64);
    if (x->sizes[dim] % 2)
        return eir_kerr(ctx, "Halving dimension must be even, but dimension %d is size %lld", dim, (long long)x->sizes[dim]);
    eir_tview a = *x, b = *x;
    a.sizes[dim] = b.sizes[dim] = x->sizes[dim] / 2;
    b.data = (char *)x->data + a.sizes[dim] * x->strides[dim] * (int64_t)eir_elsize(x->dtype);
    pw_params p = {0};
    const eir_tview *in[2] = {&a, &b};
    return pw_run(&op_glu, &p, out->dtype, in, out, ctx);
}

/* isclose(self, other, rtol, atol, equal_nan), as torch composes it:
 * self == other, or |self - other| finite and <= atol + |rtol * other|,
 * each step in self's dtype (bool as float32; integers take the difference
 * in their own wrapping dtype and the tolerance in float32). */
static int k_isclose(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    if (args[0].kind != EIR_KA_TENSOR || args[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "isclose: expected tensors");
    const eir_tview *x = args[0].t, *y = args[1].t;
    double rtol = nargs > 2 ? scalar_f(&args[2]) : 1e-5, atol = nargs > 3 ? scalar_f(&args[3]) : 1e-8;
    bool eqnan = nargs > 4 && args[4].i;
    eir_dtype dt = x->dtype;
    if (dt != y->dtype) return eir_kerr(ctx, "%s did not match %s", c10_name(dt), c10_name(y->dtype));
    if (!(rtol >= 0)) return eir_kerr(ctx, "rtol must be greater than or equal to zero, but got %g", rtol);
    if (!(atol >= 0)) return eir_kerr(ctx, "atol must be greater than or equal to zero, but got %g", atol);
    eir_tview bx, by;
    if (!eir_tview_broadcast(x, out->rank, out->sizes, &bx) || !eir_tview_broadcast(y, out->rank, out->sizes, &by))
        return eir_kerr(ctx, "isclose: the inputs do not broadcast to the output shape");
    const eir_tview *ops[3] = {out, &bx, &by};
    eir_iter it;
    eir_iter_init(&it, out->rank, out->sizes, 3, ops);
    char *ptr[3];
    int64_t len;
    bool tol = !(rtol == 0 && atol == 0);
    int dom = dt == EIR_BOOL ? DOM_F : domain_of(dt);
    eir_dtype ct = dt == EIR_BOOL ? EIR_F32 : dt;
    float rf = (float)rtol, af = (float)atol;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t j = 0; j < len; j++) {
            const char *pa = ptr[1] + j * it.inner_stride[1], *pb = ptr[2] + j * it.inner_stride[2];
            bool close;
            if (dom == DOM_C) {
                cplx a = ld_c(pa, dt), b = ld_c(pb, dt);
                close = creal(a) == creal(b) && cimag(a) == cimag(b);
                /* equal_nan: both NaN (a NaN part makes a complex NaN, as isnan says) */
                if (eqnan && (isnan(creal(a)) || isnan(cimag(a))) && (isnan(creal(b)) || isnan(cimag(b)))) close = true;
                if (tol && !close) {
                    double actual = cabs(a - b), allowed = atol + cabs(rtol * b);
                    if (dt == EIR_C64) {
                        actual = (float)cabs(CMPLX((float)(creal(a) - creal(b)), (float)(cimag(a) - cimag(b))));
                        allowed = (float)(af + (float)cabs(CMPLX((float)(rf * creal(b)), (float)(rf * cimag(b)))));
                    }
                    close = isfinite(actual) && actual <= allowed;
                }
            } else if (dom == DOM_D) {
                double a = *(const double *)pa, b = *(const double *)pb;
                close = a == b || (eqnan && a != a && b != b);
                if (tol && !close) {
                    double actual = fabs(a - b);
                    close = isfinite(actual) && actual <= atol + fabs(rtol * b);
                }
            } else if (dom == DOM_F) {
                float a = ld_f(pa, dt), b = ld_f(pb, dt);
                close = a == b || (eqnan && a != a && b != b);
                if (tol && !close) {
                    float actual = round_to(fabsf(round_to(a - b, ct)), ct);
                    float allowed = round_to(af + fabsf(round_to(rf * b, ct)), ct);
                    close = isfinite(actual) && actual <= allowed;
                }
            } else {
                int64_t a = ld_i(pa, dt), b = ld_i(pb, dt);
                close = a == b;
                if (tol && !close) {
                    int64_t d = wrap_to(wsub(a, b), dt);
                    d = wrap_to(d < 0 ? wneg(d) : d, dt);
                    close = (float)d <= af + fabsf(rf * (float)b);
                }
            }
            st_i(ptr[0] + j * it.inner_stride[0], out->dtype, close);
        }
    return 0;
}

static int k_nan2num(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    eir_dtype ct = out->dtype;
    double big = ct == EIR_F16 ? 65504.0 : ct == EIR_BF16 ? 3.3895313892515355e+38 : ct == EIR_F32 ? FLT_MAX : DBL_MAX;
    p.a = nargs > 1 && args[1].kind == EIR_KA_FLOAT ? args[1].f : 0.0;
    p.b = nargs > 2 && args[2].kind == EIR_KA_FLOAT ? args[2].f : big;
    p.c = nargs > 3 && args[3].kind == EIR_KA_FLOAT ? args[3].f : -big;
    p.af = (float)p.a; p.bf = (float)p.b; p.cf = (float)p.c;
    return run1(&op_nan2num, &p, ct, &args[0], out, ctx);
}

/* where(cond, self, other): Tensor or Scalar self/other */
static bool masked_fill_f32(const eir_tview *x, const eir_tview *mask, const eir_karg *val, eir_tview *y);

static int k_where(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    /* where(mask, a 0-d float32 value, x), as torch decomposes masked_fill: masked_fill's rows */
    if (eir_kernels_fast && out->dtype == EIR_F32 && args[0].kind == EIR_KA_TENSOR && args[0].t->dtype == EIR_BOOL &&
        args[1].kind == EIR_KA_TENSOR && args[1].t->rank == 0 && args[1].t->dtype == EIR_F32 &&
        args[2].kind == EIR_KA_TENSOR && args[2].t->dtype == EIR_F32) {
        eir_karg v;
        memset(&v, 0, sizeof v);
        v.kind = EIR_KA_FLOAT;
        v.f = *(const float *)args[1].t->data;
        if (masked_fill_f32(args[2].t, args[0].t, &v, out)) return 0;
    }
    pw_params p = {0};
    scalar_buf s1, s2;
    const eir_tview *in[3] = {args[0].t, arg_view(&args[1], &s1), arg_view(&args[2], &s2)};
    if (args[0].kind != EIR_KA_TENSOR || !in[1] || !in[2]) return eir_kerr(ctx, "where: bad arguments");
    /* a number converts checked to an integer or float32 result; to float16 / bfloat16 it rounds
     * (to inf) unchecked, as in torch */
    if (out->dtype != EIR_F16 && out->dtype != EIR_BF16 && scalars_fit(args, 1, 3, nargs, out->dtype, ctx)) return -1;
    return pw_run(&op_where, &p, out->dtype, in, out, ctx);
}

/* masked_fill(self, mask, value) = where(mask, value, self) */
/* masked_fill of a float32 tensor by a number, result and self contiguous and alike, a bool
 * mask broadcast to them (attention's causal mask): rows of the last dim, the mask read with its
 * broadcast strides, the value stored where it is true */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define MF_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("tree-vectorize")))
#else
#define MF_CLONES
#endif

typedef struct mf_job {
    const void *x;
    void *y;
    const uint8_t *m;
    int64_t mst[EIR_MAX_RANK], sizes[EIR_MAX_RANK];
    int32_t r;
    int64_t len;                /* the last dim */
    float v;                    /* float32 */
    uint16_t vh;                /* float16 / bfloat16: the value's bits */
    bool half;
} mf_job;

#define MF_ROW(T, x, y, m, ms, len, v)                                                                      \
    do {                                                                                                    \
        const T *restrict xr = (x);                                                                         \
        T *restrict yr = (y);                                                                               \
        if (ms == 1)                                                                                        \
            for (int64_t i = 0; i < len; i++) yr[i] = m[i] ? v : xr[i];                                     \
        else if (ms == 0 && m[0])                                                                           \
            for (int64_t i = 0; i < len; i++) yr[i] = v;                                                    \
        else if (ms == 0)                                                                                   \
            for (int64_t i = 0; i < len; i++) yr[i] = xr[i];                                                \
        else                                                                                                \
            for (int64_t i = 0; i < len; i++) yr[i] = m[i * ms] ? v : xr[i];                                \
    } while (0)

MF_CLONES static void mf_rows(void *ctx, int64_t r0, int64_t r1) {
    const mf_job *j = ctx;
    const int64_t len = j->len, ms = j->mst[j->r - 1];
    for (int64_t row = r0; row < r1; row++) {
        int64_t mo = 0, t = row;
        for (int32_t d = j->r - 2; d >= 0; d--) {
            mo += (t % j->sizes[d]) * j->mst[d];
            t /= j->sizes[d];
        }
        const uint8_t *restrict m = j->m + mo;
        if (j->half) MF_ROW(uint16_t, (const uint16_t *)j->x + row * len, (uint16_t *)j->y + row * len, m, ms, len, j->vh);
        else MF_ROW(float, (const float *)j->x + row * len, (float *)j->y + row * len, m, ms, len, j->v);
    }
}

/* float32, float16 or bfloat16 (the value rounded to the tensor's type, as torch converts it) */
static bool masked_fill_f32(const eir_tview *x, const eir_tview *mask, const eir_karg *val, eir_tview *y) {
    bool half = x->dtype == EIR_BF16 || x->dtype == EIR_F16;
    if ((x->dtype != EIR_F32 && !half) || y->dtype != x->dtype || mask->dtype != EIR_BOOL || val->kind == EIR_KA_TENSOR ||
        x->rank != y->rank || y->rank < 1 || mask->rank > y->rank || !eir_tview_is_contiguous(x) ||
        !eir_tview_is_contiguous(y) || x->data == y->data)
        return false;
    double vd = scalar_f(val);
    mf_job j = {x->data, y->data, mask->data, {0}, {0}, y->rank, y->sizes[y->rank - 1], (float)vd, 0, half};
    if (half) {
        /* the value as torch's c10::BFloat16 / c10::Half constructors round it: from float */
        j.vh = x->dtype == EIR_BF16 ? eir_f32_to_bf16((float)vd) : eir_f32_to_f16((float)vd);
        if (val->kind == EIR_KA_SCALAR && val->s.kind != EIR_SC_FLOAT && val->s.kind != EIR_SC_INT &&
            val->s.kind != EIR_SC_BOOL)
            return false;
        /* a finite value the type cannot hold: torch's overflow error, from the general path */
        if (isfinite(vd) && (fabs(vd) > (x->dtype == EIR_F16 ? 65504.0 : 3.3895313892515355e+38))) return false;
    }
    for (int32_t d = 0; d < y->rank; d++) {
        if (x->sizes[d] != y->sizes[d]) return false;
        j.sizes[d] = y->sizes[d];
        int32_t md = d - (y->rank - mask->rank);
        if (md < 0 || mask->sizes[md] == 1) j.mst[d] = 0;
        else if (mask->sizes[md] == y->sizes[d]) j.mst[d] = mask->strides[md];
        else return false;
    }
    int64_t n = eir_tview_numel(y);
    if (n == 0) return true;
    int64_t rows = n / j.len;
    eir_parallel_for(eir_pool_current(), rows, j.len >= (1 << 14) ? 1 : (1 << 14) / j.len, mf_rows, &j);
    return true;
}

static int k_masked_fill(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    if (eir_scalar_arg_fits(&args[2], out->dtype, ctx)) return -1;
    if (args[2].kind == EIR_KA_TENSOR && args[2].t->rank == 0 && eir_item_fits(args[2].t, out->dtype, ctx)) return -1;
    if (eir_kernels_fast && args[0].kind == EIR_KA_TENSOR && args[1].kind == EIR_KA_TENSOR &&
        masked_fill_f32(args[0].t, args[1].t, &args[2], out))
        return 0;
    pw_params p = {0};
    scalar_buf sv;
    const eir_tview *v = arg_view(&args[2], &sv);
    if (args[0].kind != EIR_KA_TENSOR || args[1].kind != EIR_KA_TENSOR || !v)
        return eir_kerr(ctx, "masked_fill: bad arguments");
    if (args[2].kind == EIR_KA_TENSOR && v->rank != 0)
        return eir_kerr(ctx, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                             "dimension(s).", (int)v->rank);
    const eir_tview *in[3] = {args[1].t, v, args[0].t};
    return pw_run(&op_where, &p, out->dtype, in, out, ctx);
}

static int k_lerp(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    pw_params p = {0};
    scalar_buf s0, s1, s2;
    const eir_tview *in[3] = {arg_view(&args[0], &s0), arg_view(&args[1], &s1), arg_view(&args[2], &s2)};
    if (!in[0] || !in[1] || !in[2]) return eir_kerr(ctx, "lerp: bad arguments");
    if (scalars_fit(args, 2, 3, nargs, opmath_dt(out->dtype), ctx)) return -1;
    return pw_run(&op_lerp, &p, out->dtype, in, out, ctx);
}

/* ---- torch's other pointwise ops: kernels ---- */

static bool is_complex_arg(const eir_karg *a) {
    return (a->kind == EIR_KA_TENSOR && eir_is_complex(a->t->dtype)) ||
           (is_scalar_arg(a) && a->s.kind == EIR_SC_COMPLEX);
}

/* addcmul / addcdiv(self, tensor1, tensor2, *, value=1) */
static int addc(const pw_op *op, const eir_karg *args, uint32_t nargs, eir_tview *out, eir_kctx *ctx) {
    const eir_karg *v[3] = {&args[0], &args[1], &args[2]};
    eir_dtype ct = eir_result_type(v, 3);
    pw_params p = {0};
    if (nargs > 3 && args[3].kind != EIR_KA_NONE) {
        if (eir_scalar_arg_fits(&args[3], opmath_dt(ct), ctx)) return -1;
        p.a = scalar_f(&args[3]);
        p.b = args[3].s.kind == EIR_SC_COMPLEX ? args[3].s.im : 0;
        p.ai = scalar_i(&args[3]);
    } else {
        p.a = 1;
        p.ai = 1;
    }
    p.af = (float)p.a; /* value.to<float>() for float and the reduced floats alike */
    if (ct == EIR_BOOL) return eir_kerr(ctx, "\"%s\" not implemented for 'Bool'", op->name);
    scalar_buf s[3];
    const eir_tview *in[3] = {arg_view(&args[0], &s[0]), arg_view(&args[1], &s[1]), arg_view(&args[2], &s[2])};
    if (!in[0] || !in[1] || !in[2]) return eir_kerr(ctx, "%s: expected tensor arguments", op->name);
    return pw_run(op, &p, ct, in, out, ctx);
}
static int k_addcmul(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    return addc(&op_addcmul, args, nargs, out, ctx);
}
static int k_addcdiv(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    if (args[1].kind == EIR_KA_TENSOR && args[2].kind == EIR_KA_TENSOR && eir_is_integral(args[1].t->dtype, true) &&
        eir_is_integral(args[2].t->dtype, true))
        return eir_kerr(ctx, "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                             "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                             "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for "
                             "integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future "
                             "addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), "
                             "for all dtypes.");
    return addc(&op_addcdiv, args, nargs, out, ctx);
}

BINK(k_copysign, op_copysign, to_float_ct(ct, out))
BINK(k_hypot, op_hypot, ct)
BINK(k_logaddexp, op_logaddexp, ct)
BINK(k_logaddexp2, op_logaddexp2, ct)
BINK(k_xlogy, op_xlogy, to_float_ct(ct, out))
BINK(k_xlog1py, op_xlog1py, to_float_ct(ct, out))
BINK(k_nextafter, op_nextafter, ct)
/* ldexp(self, other): std::ldexp in self's dtype when self is floating and
 * other integral; otherwise self * _pow2(self, other) as in torch */
static int dtype_category(eir_dtype d) { return eir_is_complex(d) ? 2 : eir_is_floating(d) ? 1 : 0; }
static int k_ldexp(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    if (args[0].kind != EIR_KA_TENSOR || args[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "ldexp: expected tensors");
    const eir_tview *s = args[0].t, *o = args[1].t;
    eir_dtype sd = s->dtype, od = o->dtype;
    if (eir_is_floating(sd) && eir_is_integral(od, true) && eir_is_floating(out->dtype)) {
        eir_tview bs, bo;
        if (!eir_tview_broadcast(s, out->rank, out->sizes, &bs) || !eir_tview_broadcast(o, out->rank, out->sizes, &bo))
            return eir_kerr(ctx, "ldexp: inputs do not broadcast to the output");
        const eir_tview *ops[3] = {out, &bs, &bo};
        eir_iter it;
        eir_iter_init(&it, out->rank, out->sizes, 3, ops);
        char *ptr[3];
        int64_t len;
        while (eir_iter_next(&it, ptr, &len))
            for (int64_t j = 0; j < len; j++) {
                double v = eir_load_f64(ptr[1] + j * it.inner_stride[1], sd);
                int n = (int)(int32_t)(uint32_t)(uint64_t)eir_load_i64(ptr[2] + j * it.inner_stride[2], od); /* int exponent */
                double r = out->dtype == EIR_F64 ? ldexp(v, n) : (double)ldexpf((float)v, n);
                store_f64(ptr[0] + j * it.inner_stride[0], out->dtype, r);
            }
        return 0;
    }
    eir_dtype pd;
    if (eir_is_integral(sd, true) || sd == EIR_F32) pd = eir_is_integral(od, true) ? EIR_F32 : od;
    else pd = dtype_category(sd) > dtype_category(od) ? sd : od;
    pw_params p = {0};
    p.bi = pd;
    return run2(&op_ldexp, &p, out->dtype, &args[0], &args[1], out, ctx);
}

/* fmax / fmin: fmax of floats, maximum / minimum of integers */
static int fmaxmin(const pw_op *op, const char *name, const eir_karg *args, eir_tview *out, eir_kctx *ctx) {
    if (is_complex_arg(&args[0]) || is_complex_arg(&args[1]))
        return eir_kerr(ctx, "%s not implemented for complex tensors.", name);
    pw_params p = {0};
    return run2(op, &p, rtype2(&args[0], &args[1]), &args[0], &args[1], out, ctx);
}
static int k_fmax(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return fmaxmin(&op_fmax, "fmax", args, out, ctx);
}
static int k_fmin(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return fmaxmin(&op_fmin, "fmin", args, out, ctx);
}

static int k_heaviside(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    if (args[0].kind != EIR_KA_TENSOR || args[1].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "heaviside: expected tensor arguments");
    if (eir_is_complex(args[0].t->dtype) || eir_is_complex(args[1].t->dtype))
        return eir_kerr(ctx, "heaviside is not yet implemented for complex tensors.");
    if (args[0].t->dtype != args[1].t->dtype)
        return eir_kerr(ctx, "heaviside is not yet implemented for tensors with different dtypes.");
    pw_params p = {0};
    return run2(&op_heaviside, &p, args[0].t->dtype, &args[0], &args[1], out, ctx);
}

/* gcd / lcm: torch's integer kernels (int8, uint8, int16, int32, int64) */
static int gcdlcm(const pw_op *op, const eir_karg *args, eir_tview *out, eir_kctx *ctx) {
    eir_dtype ct = rtype2(&args[0], &args[1]);
    if (!eir_is_integral(ct, false) || ct == EIR_U16 || ct == EIR_U32 || ct == EIR_U64)
        return eir_kerr(ctx, "\"%s\" not implemented for '%s'", op->name, c10_name(ct));
    pw_params p = {0};
    return run2(op, &p, ct, &args[0], &args[1], out, ctx);
}
static int k_gcd(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return gcdlcm(&op_gcd, args, out, ctx);
}
static int k_lcm(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return gcdlcm(&op_lcm, args, out, ctx);
}

/* float_power: pow in float64 (complex128 when either side is complex) */
static int float_power(const eir_karg *base, const eir_karg *ex, bool in_place, eir_tview *out, eir_kctx *ctx) {
    eir_dtype ct = is_complex_arg(base) || is_complex_arg(ex) ? EIR_C128 : EIR_F64;
    if (in_place && base->kind == EIR_KA_TENSOR && base->t->dtype != ct)
        return eir_kerr(ctx, "the base given to float_power_ has dtype %s but the operation's result requires dtype %s",
                        c10_name(base->t->dtype), c10_name(ct));
    pw_params p = {0};
    if (is_scalar_arg(ex) && base->kind == EIR_KA_TENSOR) {
        /* pow(self.to(double), exponent): torch's Tensor_Scalar kernel */
        p.a = scalar_f(ex);
        p.b = ex->s.kind == EIR_SC_COMPLEX ? ex->s.im : 0;
        p.af = (float)p.a;
        return run1(&op_pows, &p, ct, base, out, ctx);
    }
    return run2(&op_pow, &p, ct, base, ex, out, ctx);
}
static int k_float_power(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return float_power(&args[0], &args[1], false, out, ctx);
}
static int k_float_power_(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return float_power(&args[0], &args[1], true, out, ctx);
}

/* frexp(self) -> (mantissa, exponent): mantissa in self's dtype, int32 exponent */
static int k_frexp(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    if (nout < 2 || args[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "frexp: expected a tensor and two outputs");
    const eir_tview *x = args[0].t;
    if (!(x->dtype == EIR_F32 || x->dtype == EIR_F64 || reduced(x->dtype)))
        return eir_kerr(ctx, "torch.frexp() only supports floating-point dtypes");
    eir_tview bx;
    if (!eir_tview_broadcast(x, out[0].rank, out[0].sizes, &bx)) return eir_kerr(ctx, "frexp: bad input shape");
    const eir_tview *ops[3] = {&out[0], &out[1], &bx};
    eir_iter it;
    eir_iter_init(&it, out[0].rank, out[0].sizes, 3, ops);
    char *ptr[3];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t j = 0; j < len; j++) {
            int e = 0;
            double m = frexp(eir_load_f64(ptr[2] + j * it.inner_stride[2], x->dtype), &e);
            eir_store_f64(ptr[0] + j * it.inner_stride[0], out[0].dtype, m);
            eir_store_i64(ptr[1] + j * it.inner_stride[1], out[1].dtype, e);
        }
    return 0;
}

UNKS(k_sgn, op_sgn)
UNKS(k_conj_physical, op_conj)
UNKS(k_isreal, op_isreal)
UNKF(k_sinc, op_sinc)

#define UNK_REAL(kname, opvar, msg, ctexpr)                                                              \
    static int kname(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) { \
        NEED(1);                                                                                         \
        pw_params p = {0};                                                                               \
        eir_dtype ct = args[0].kind == EIR_KA_TENSOR ? args[0].t->dtype : out->dtype;                    \
        if (eir_is_complex(ct)) return eir_kerr(ctx, msg);                                               \
        ct = (ctexpr);                                                                                   \
        return run1(&opvar, &p, ct, &args[0], out, ctx);                                                 \
    }
UNK_REAL(k_signbit, op_signbit, "signbit is not implemented for complex tensors.", ct)
UNK_REAL(k_isposinf, op_isposinf, "isposinf does not support complex inputs.", ct)
UNK_REAL(k_isneginf, op_isneginf, "isneginf does not support complex inputs.", ct)

/* angle: floats and complex; integers compute in the default float */
static int k_angle(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    eir_dtype ct = args[0].kind == EIR_KA_TENSOR ? args[0].t->dtype : out->dtype;
    return run1(&op_angle, &p, to_float_ct(ct, out), &args[0], out, ctx);
}

/* deg2rad / rad2deg: self * pi / 180 (180 / pi), torch's mul by a Scalar:
 * float16/bfloat16 multiply by the float constant, unrounded */
static int scale_by(double c, const char *name, const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout,
                    eir_kctx *ctx) {
    NEED(1);
    pw_params p = {0};
    eir_dtype ct = args[0].kind == EIR_KA_TENSOR ? args[0].t->dtype : out->dtype;
    if (eir_is_complex(ct)) return eir_kerr(ctx, "%s is not supported for complex tensors.", name);
    p.a = c;
    p.af = (float)c;
    return run1(&op_scale, &p, to_float_ct(ct, out), &args[0], out, ctx);
}
static int k_deg2rad(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    return scale_by(M_PI / 180.0, "deg2rad", args, nargs, out, nout, ctx);
}
static int k_rad2deg(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    return scale_by(180.0 / M_PI, "rad2deg", args, nargs, out, nout, ctx);
}

/* complex(real, imag) and polar(abs, angle): two real tensors of one
 * floating dtype make a complex one (float16 -> complex32 for complex) */
static int make_complex(const eir_karg *args, eir_tview *out, eir_kctx *ctx, bool polar) {
    if (args[0].kind != EIR_KA_TENSOR || args[1].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "%s: expected tensor arguments", polar ? "polar" : "complex");
    eir_dtype a = args[0].t->dtype, b = args[1].t->dtype;
    bool ok = a == b && (a == EIR_F16 || a == EIR_F32 || a == EIR_F64);
    if (!ok)
        return eir_kerr(ctx, "Expected both inputs to be Half, Float or Double tensors but got %s and %s", c10_name(a),
                        c10_name(b));
    if (polar && a == EIR_F16) return eir_kerr(ctx, "\"polar_cpu\" not implemented for 'Half'");
    eir_tview ba, bb;
    if (!eir_tview_broadcast(args[0].t, out->rank, out->sizes, &ba) ||
        !eir_tview_broadcast(args[1].t, out->rank, out->sizes, &bb))
        return eir_kerr(ctx, "%s: inputs do not broadcast to the output", polar ? "polar" : "complex");
    const eir_tview *ops[3] = {out, &ba, &bb};
    eir_iter it;
    eir_iter_init(&it, out->rank, out->sizes, 3, ops);
    char *ptr[3];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t j = 0; j < len; j++) {
            double x = eir_load_f64(ptr[1] + j * it.inner_stride[1], a);
            double y = eir_load_f64(ptr[2] + j * it.inner_stride[2], a);
            double re = x, im = y;
            if (polar && a == EIR_F32) re = (float)x * cosf((float)y), im = (float)x * sinf((float)y);
            else if (polar) re = x * cos(y), im = x * sin(y);
            eir_store_c128(ptr[0] + j * it.inner_stride[0], out->dtype, re, im);
        }
    return 0;
}
static int k_complex(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return make_complex(args, out, ctx, false);
}
static int k_polar(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return make_complex(args, out, ctx, true);
}

/* ---- casts, copies, fills ---- */

/* out = src converted to out's dtype, broadcast to out's shape. */
static int copy_into(const eir_tview *src, eir_tview *out, eir_kctx *ctx) {
    eir_tview b;
    if (!eir_tview_broadcast(src, out->rank, out->sizes, &b))
        return eir_kerr(ctx, "copy: source of rank %d does not broadcast to the destination", (int)src->rank);
    if (src->dtype == out->dtype && eir_tview_is_contiguous(out) && eir_copy_to_contig(out->data, &b)) return 0;
    const eir_tview *ops[2] = {out, &b};
    eir_iter it;
    eir_iter_init(&it, out->rank, out->sizes, 2, ops);
    char *p[2];
    int64_t len;
    eir_dtype sd = src->dtype, od = out->dtype;
    const int64_t *is = it.inner_stride;
    if (sd == od) {
        size_t es = eir_elsize(od);
        while (eir_iter_next(&it, p, &len)) {
            if (is[0] == (int64_t)es && is[1] == (int64_t)es) memcpy(p[0], p[1], (size_t)len * es);
            else
                for (int64_t j = 0; j < len; j++) memcpy(p[0] + j * is[0], p[1] + j * is[1], es);
        }
        return 0;
    }
    bool sc = eir_is_complex(sd), oc = eir_is_complex(od);
    bool sf = eir_is_floating(sd), si = eir_is_integral(sd, true);
    if (!(sc || sf || si) || !(oc || eir_is_floating(od) || eir_is_integral(od, true)))
        return eir_kerr(ctx, "copy_ not implemented for '%s' -> '%s'", c10_name(sd), c10_name(od));
    while (eir_iter_next(&it, p, &len))
        for (int64_t j = 0; j < len; j++) {
            const char *s = p[1] + j * is[1];
            char *d = p[0] + j * is[0];
            if (oc || sc) {
                double re, im;
                eir_load_c128(s, sd, &re, &im);
                if (oc) eir_store_c128(d, od, re, im);
                else if (od == EIR_BOOL) *(uint8_t *)d = re != 0 || im != 0;
                else store_f64(d, od, re);
            } else if (si && eir_is_integral(od, true)) {
                st_i(d, od, ld_i(s, sd));
            } else if (sd == EIR_F32 && reduced(od)) {
                st_f(d, od, *(const float *)s);
            } else if (si && (od == EIR_F32 || reduced(od)) && sd == EIR_I64) {
                st_f(d, od, (float)*(const int64_t *)s);
            } else {
                store_f64(d, od, eir_load_f64(s, sd));
            }
        }
    return 0;
}

static int k_copy_self(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    if (args[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "expected a tensor argument");
    return copy_into(args[0].t, out, ctx);
}

/* aten.copy(self, src): src broadcast into self's shape and dtype */
static int k_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    if (args[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "copy: expected a tensor src");
    return copy_into(args[1].t, out, ctx);
}

static int k_dropout(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    double prob = args[1].kind == EIR_KA_FLOAT ? args[1].f : scalar_f(&args[1]);
    if (args[2].i && prob != 0 && eir_tview_numel(args[0].t) > 0) return eir_dropout_train(args, nargs, out, ctx);
    if (!(prob >= 0 && prob <= 1)) return eir_kerr(ctx, "dropout probability has to be between 0 and 1, but got %g", prob);
    return copy_into(args[0].t, out, ctx);
}

static int fill_scalar(const eir_scalar *s, eir_tview *out, eir_kctx *ctx) {
    scalar_buf b;
    return copy_into(scalar_view(s, &b), out, ctx);
}

static int k_fill_arg(const eir_karg *a, eir_tview *out, eir_kctx *ctx) {
    if (a->kind == EIR_KA_TENSOR) {
        if (a->t->rank != 0)
            return eir_kerr(ctx, "fill_ only supports 0-dimension value tensor but got tensor with %d dimensions.",
                            (int)a->t->rank);
        return copy_into(a->t, out, ctx);
    }
    if (!is_scalar_arg(a)) return eir_kerr(ctx, "fill: expected a scalar value");
    if (eir_scalar_arg_fits(a, out->dtype, ctx)) return -1;
    return fill_scalar(&a->s, out, ctx);
}

/* fill.Scalar / fill.Tensor / full_like: value is args[1]; full: args[1] too (size is args[0]) */
static int k_fill1(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return k_fill_arg(&args[1], out, ctx);
}
/* new_full(self, size, fill_value): the value is args[2] */
static int k_fill2(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    return k_fill_arg(&args[2], out, ctx);
}
static int k_scalar_tensor(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    /* as torch: checked for integer and float32 tensors, rounded (to inf) for float16 / bfloat16 */
    if ((out->dtype == EIR_F16 || out->dtype == EIR_BF16) && is_scalar_arg(&args[0])) return fill_scalar(&args[0].s, out, ctx);
    return k_fill_arg(&args[0], out, ctx);
}
static int k_zeros(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    (void)args; (void)nargs;
    if (nout < 1) return eir_kerr(ctx, "zeros: no output");
    eir_scalar z = {EIR_SC_INT, 0, 0, 0};
    return fill_scalar(&z, out, ctx);
}
static int k_ones(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    (void)args; (void)nargs;
    if (nout < 1) return eir_kerr(ctx, "ones: no output");
    eir_scalar o = {EIR_SC_INT, 1, 1, 0};
    return fill_scalar(&o, out, ctx);
}

/* arange: value i = start + i * step in the accumulate type of out's dtype
 * (double for float32/float64, float for f16/bf16, int64 for integers). */
static int arange3(const eir_karg *start, const eir_karg *end, const eir_karg *step, eir_tview *out, eir_kctx *ctx) {
    if (out->rank != 1) return eir_kerr(ctx, "arange: expected a 1-d output");
    eir_dtype od = out->dtype;
    double fs = start ? scalar_f(start) : 0, fe = scalar_f(end), fst = step ? scalar_f(step) : 1;
    if (fst == 0) return eir_kerr(ctx, "step must be nonzero");
    if (!(isfinite(fs) && isfinite(fe))) return eir_kerr(ctx, "unsupported range: %g -> %g", fs, fe);
    if ((fst > 0 && fe < fs) || (fst < 0 && fe > fs))
        return eir_kerr(ctx, "upper bound and larger bound inconsistent with step sign");
    int64_t n = out->sizes[0];
    char *d = out->data;
    int64_t st = out->strides[0] * (int64_t)eir_elsize(od);
    if (eir_is_integral(od, true)) {
        int64_t s0 = start ? scalar_i(start) : 0, s1 = step ? scalar_i(step) : 1;
        for (int64_t i = 0; i < n; i++) st_i(d + i * st, od, wadd(s0, wmul(s1, i)));
    } else if (reduced(od)) {
        float s0 = (float)fs, s1 = (float)fst;
        for (int64_t i = 0; i < n; i++) st_f(d + i * st, od, s0 + s1 * (float)i);
    } else if (od == EIR_F32 || od == EIR_F64) {
        for (int64_t i = 0; i < n; i++) store_f64(d + i * st, od, fs + fst * (double)i);
    } else {
        return eir_kerr(ctx, "\"arange_cpu\" not implemented for '%s'", c10_name(od));
    }
    return 0;
}
static int k_arange(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1);
    return arange3(NULL, &args[0], NULL, out, ctx);
}
static int k_arange_start(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2);
    return arange3(&args[0], &args[1], NULL, out, ctx);
}
static int k_arange_step(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3);
    return arange3(&args[0], &args[1], &args[2], out, ctx);
}

const eir_kernel_entry eir_kernels_pointwise[] = {
    /* binary arithmetic */
    {"aten.add.Tensor", k_add},
    {"aten.add.Scalar", k_add},
    {"aten.add_.Tensor", k_add},
    {"aten.sub.Tensor", k_sub},
    {"aten.sub.Scalar", k_sub},
    {"aten.sub_.Tensor", k_sub},
    {"aten.rsub.Scalar", k_rsub},
    {"aten.rsub.Tensor", k_rsub},
    {"aten.mul.Tensor", k_mul},
    {"aten.mul.Scalar", k_mul},
    {"aten.mul_.Tensor", k_mul},
    {"aten.div.Tensor", k_div},
    {"aten.div.Scalar", k_div},
    {"aten.div_.Tensor", k_div},
    {"aten.div.Tensor_mode", k_div_mode},
    {"aten.div.Scalar_mode", k_div_mode},
    {"aten.floor_divide.default", k_floordiv},
    {"aten.remainder.Tensor", k_rem},
    {"aten.remainder.Scalar", k_rem},
    {"aten.fmod.Tensor", k_fmod},
    {"aten.fmod.Scalar", k_fmod},
    {"aten.pow.Tensor_Tensor", k_pow},
    {"aten.pow.Tensor_Scalar", k_pow_scalar_exp},
    {"aten.pow.Scalar", k_pow},
    {"aten.maximum.default", k_max},
    {"aten.minimum.default", k_min},
    {"aten.atan2.default", k_atan2},
    {"aten.__lshift__.Scalar", k_shl},
    {"aten.__lshift__.Tensor", k_shl},
    {"aten.__rshift__.Scalar", k_shr},
    {"aten.__rshift__.Tensor", k_shr},
    {"aten.bitwise_left_shift.Tensor", k_shl},
    {"aten.bitwise_right_shift.Tensor", k_shr},
    {"aten.bitwise_and.Tensor", k_band},
    {"aten.bitwise_or.Tensor", k_bor},
    {"aten.bitwise_xor.Tensor", k_bxor},
    {"aten.bitwise_and.Scalar", k_band},
    {"aten.bitwise_or.Scalar", k_bor},
    {"aten.bitwise_xor.Scalar", k_bxor},
    {"aten.__and__.Tensor", k_band},
    {"aten.__or__.Tensor", k_bor},
    {"aten.__xor__.Tensor", k_bxor},
    {"aten.logical_and.default", k_land},
    {"aten.logical_or.default", k_lor},
    {"aten.logical_xor.default", k_lxor},
    /* comparisons */
    {"aten.eq.Tensor", k_eq},
    {"aten.eq.Scalar", k_eq},
    {"aten.ne.Tensor", k_ne},
    {"aten.ne.Scalar", k_ne},
    {"aten.lt.Tensor", k_lt},
    {"aten.lt.Scalar", k_lt},
    {"aten.le.Tensor", k_le},
    {"aten.le.Scalar", k_le},
    {"aten.gt.Tensor", k_gt},
    {"aten.gt.Scalar", k_gt},
    {"aten.ge.Tensor", k_ge},
    {"aten.ge.Scalar", k_ge},
    /* unary */
    {"aten.neg.default", k_neg},
    {"aten.abs.default", k_abs},
    {"aten.sign.default", k_sign},
    {"aten.exp.default", k_exp},
    {"aten.exp2.default", k_exp2},
    {"aten.expm1.default", k_expm1},
    {"aten.log.default", k_log},
    {"aten.log2.default", k_log2},
    {"aten.log10.default", k_log10},
    {"aten.log1p.default", k_log1p},
    {"aten.sqrt.default", k_sqrt},
    {"aten.rsqrt.default", k_rsqrt},
    {"aten.reciprocal.default", k_recip},
    {"aten.sin.default", k_sin},
    {"aten.cos.default", k_cos},
    {"aten.tan.default", k_tan},
    {"aten.asin.default", k_asin},
    {"aten.acos.default", k_acos},
    {"aten.atan.default", k_atan},
    {"aten.sinh.default", k_sinh},
    {"aten.cosh.default", k_cosh},
    {"aten.tanh.default", k_tanh},
    {"aten.asinh.default", k_asinh},
    {"aten.acosh.default", k_acosh},
    {"aten.atanh.default", k_atanh},
    {"aten.sigmoid.default", k_sigmoid},
    {"aten.erf.default", k_erf},
    {"aten.erfc.default", k_erfc},
    {"aten.floor.default", k_floor},
    {"aten.ceil.default", k_ceil},
    {"aten.round.default", k_round},
    {"aten.round.decimals", k_round_dec},
    {"aten.trunc.default", k_trunc},
    {"aten.frac.default", k_frac},
    {"aten.relu.default", k_relu},
    {"aten.relu_.default", k_relu},
    {"aten.gelu.default", k_gelu},
    {"aten.silu.default", k_silu},
    {"aten.mish.default", k_mish},
    {"aten.hardtanh.default", k_hardtanh},
    {"aten.hardtanh_.default", k_hardtanh},
    {"aten.hardswish.default", k_hardswish},
    {"aten.hardsigmoid.default", k_hardsigmoid},
    {"aten.elu.default", k_elu},
    {"aten.leaky_relu.default", k_leaky},
    {"aten.softplus.default", k_softplus},
    {"aten.threshold.default", k_threshold},
    {"aten.threshold_.default", k_threshold},
    {"aten.hardshrink.default", k_hardshrink},
    {"aten.softshrink.default", k_softshrink},
    {"aten.relu6.default", k_relu6},
    {"aten.relu6_.default", k_relu6},
    {"aten.selu.default", k_selu},
    {"aten.selu_.default", k_selu},
    {"aten.celu.default", k_celu},
    {"aten.celu_.default", k_celu},
    {"aten.log_sigmoid.default", k_log_sigmoid},
    {"aten.log_sigmoid_forward.default", k_log_sigmoid_fwd},
    {"aten.logit.default", k_logit},
    {"aten.logit_.default", k_logit},
    {"aten.prelu.default", k_prelu},
    {"aten._prelu_kernel.default", k_prelu_kernel},
    {"aten.glu.default", k_glu},
    {"aten.isclose.default", k_isclose},
    {"aten.logical_not.default", k_lnot},
    {"aten.bitwise_not.default", k_bnot},
    {"aten.isnan.default", k_isnan},
    {"aten.isinf.default", k_isinf},
    {"aten.isfinite.default", k_isfinite},
    {"aten.nan_to_num.default", k_nan2num},
    {"aten.clamp.default", k_clamp},
    {"aten.clamp.Tensor", k_clamp},
    {"aten.clamp_min.default", k_clamp_min},
    {"aten.clamp_max.default", k_clamp_max},
    {"aten.clamp_min.Tensor", k_clamp_min},
    {"aten.clamp_max.Tensor", k_clamp_max},
    {"aten.where.self", k_where},
    {"aten.where.ScalarSelf", k_where},
    {"aten.where.ScalarOther", k_where},
    {"aten.where.Scalar", k_where},
    {"aten.masked_fill.Scalar", k_masked_fill},
    {"aten.masked_fill.Tensor", k_masked_fill},
    {"aten.lerp.Scalar", k_lerp},
    {"aten.lerp.Tensor", k_lerp},
    /* torch's other pointwise ops and their in-place forms */
    {"aten.addcmul.default", k_addcmul},
    {"aten.addcmul_.default", k_addcmul},
    {"aten.addcdiv.default", k_addcdiv},
    {"aten.addcdiv_.default", k_addcdiv},
    {"aten.copysign.Tensor", k_copysign},
    {"aten.copysign.Scalar", k_copysign},
    {"aten.copysign_.Tensor", k_copysign},
    {"aten.copysign_.Scalar", k_copysign},
    {"aten.fmax.default", k_fmax},
    {"aten.fmin.default", k_fmin},
    {"aten.hypot.default", k_hypot},
    {"aten.hypot_.default", k_hypot},
    {"aten.logaddexp.default", k_logaddexp},
    {"aten.logaddexp2.default", k_logaddexp2},
    {"aten.xlogy.Tensor", k_xlogy},
    {"aten.xlogy.Scalar_Self", k_xlogy},
    {"aten.xlogy.Scalar_Other", k_xlogy},
    {"aten.xlogy_.Tensor", k_xlogy},
    {"aten.xlogy_.Scalar_Other", k_xlogy},
    {"aten.special_xlogy.default", k_xlogy},
    {"aten.special_xlogy.self_scalar", k_xlogy},
    {"aten.special_xlogy.other_scalar", k_xlogy},
    {"aten.special_xlog1py.default", k_xlog1py},
    {"aten.special_xlog1py.self_scalar", k_xlog1py},
    {"aten.special_xlog1py.other_scalar", k_xlog1py},
    {"aten.nextafter.default", k_nextafter},
    {"aten.nextafter_.default", k_nextafter},
    {"aten.heaviside.default", k_heaviside},
    {"aten.heaviside_.default", k_heaviside},
    {"aten.gcd.default", k_gcd},
    {"aten.gcd_.default", k_gcd},
    {"aten.lcm.default", k_lcm},
    {"aten.lcm_.default", k_lcm},
    {"aten.ldexp.Tensor", k_ldexp},
    {"aten.ldexp_.default", k_ldexp},
    {"aten.float_power.Tensor_Tensor", k_float_power},
    {"aten.float_power.Tensor_Scalar", k_float_power},
    {"aten.float_power.Scalar", k_float_power},
    {"aten.float_power_.Tensor", k_float_power_},
    {"aten.float_power_.Scalar", k_float_power_},
    {"aten.frexp.Tensor", k_frexp},
    {"aten.sgn.default", k_sgn},
    {"aten.sgn_.default", k_sgn},
    {"aten.signbit.default", k_signbit},
    {"aten.sinc.default", k_sinc},
    {"aten.sinc_.default", k_sinc},
    {"aten.special_sinc.default", k_sinc},
    {"aten.deg2rad.default", k_deg2rad},
    {"aten.deg2rad_.default", k_deg2rad},
    {"aten.rad2deg.default", k_rad2deg},
    {"aten.rad2deg_.default", k_rad2deg},
    {"aten.angle.default", k_angle},
    {"aten.complex.default", k_complex},
    {"aten.polar.default", k_polar},
    {"aten.conj_physical.default", k_conj_physical},
    {"aten.conj_physical_.default", k_conj_physical},
    {"aten._conj_physical.default", k_conj_physical},
    {"aten.isposinf.default", k_isposinf},
    {"aten.isneginf.default", k_isneginf},
    {"aten.isreal.default", k_isreal},
    /* torch.special aliases of core ops */
    {"aten.special_expit.default", k_sigmoid},
    {"aten.special_erf.default", k_erf},
    {"aten.special_erfc.default", k_erfc},
    {"aten.special_exp2.default", k_exp2},
    {"aten.special_expm1.default", k_expm1},
    {"aten.special_log1p.default", k_log1p},
    {"aten.special_round.default", k_round_dec},
    /* casts and copies */
    {"aten._to_copy.default", k_copy_self},
    {"aten.to.dtype", k_copy_self},
    {"aten.to.dtype_layout", k_copy_self},
    {"aten.clone.default", k_copy_self},
    {"aten.contiguous.default", k_copy_self},
    {"aten.lift_fresh_copy.default", k_copy_self},
    {"aten.chalf.default", k_copy_self},
    {"aten.copy.default", k_copy},
    {"aten.copy_.default", k_copy},  /* in place: the runtime gives out[0] self's storage */
    {"aten.dropout.default", k_dropout},
    /* fills */
    {"aten.fill.Scalar", k_fill1},
    {"aten.fill.Tensor", k_fill1},
    {"aten.full.default", k_fill1},
    {"aten.full_like.default", k_fill1},
    {"aten.zeros.default", k_zeros},
    {"aten.zeros_like.default", k_zeros},
    {"aten.ones.default", k_ones},
    {"aten.ones_like.default", k_ones},
    {"aten.new_zeros.default", k_zeros},
    {"aten.new_ones.default", k_ones},
    {"aten.new_full.default", k_fill2},
    {"aten.new_empty.default", k_zeros},
    {"aten.scalar_tensor.default", k_scalar_tensor},
    {"aten.empty.memory_format", k_zeros},
    {"aten.empty_like.default", k_zeros},
    {"aten.arange.default", k_arange},
    {"aten.arange.start", k_arange_start},
    {"aten.arange.start_step", k_arange_step},
    {NULL, NULL},
};
