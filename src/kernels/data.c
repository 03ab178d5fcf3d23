/* data.c — kernels that copy or gather data: cat/stack, advanced indexing,
 * gather/scatter, index_select/index_add/index_put, slice/select/diagonal
 * scatter, padding, repeat, flip, roll, tril/triu, functional resize, and the
 * Edge dialect's *_copy ops (each copies a view of its input into the
 * preallocated out).
 *
 * Every kernel works for any dtype (bytes are copied by element size; a
 * conversion happens only where torch promotes, e.g. cat of mixed dtypes).
 * Views built from arguments are checked against out's recorded shape and
 * the input's bounds before any element is touched, and every index read
 * from a tensor is validated before it is used. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "kutil.h"
#include "tables.h"

typedef eir_tview tv;

/* ------------------------------------------------------------------ */
/* small helpers                                                        */

static const char *dtype_name(eir_dtype d) { return eir_torch_dtype_name(d); }

/* "[2, 3]" into buf */
static const char *fmt_sizes(char *buf, size_t n, int32_t rank, const int64_t *sizes) {
    size_t k = 0;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (int32_t i = 0; i < rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, i ? ", %" PRId64 : "%" PRId64, sizes[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

static bool same_shape(const tv *a, int32_t rank, const int64_t *sizes) {
    if (a->rank != rank) return false;
    for (int32_t i = 0; i < rank; i++)
        if (a->sizes[i] != sizes[i]) return false;
    return true;
}

static int shape_err(eir_kctx *ctx, const char *op, const tv *got, const tv *want) {
    char a[160], b[160];
    return eir_kerr(ctx, "%s: output of shape %s does not match the expected shape %s", op,
                    fmt_sizes(a, sizeof a, got->rank, got->sizes), fmt_sizes(b, sizeof b, want->rank, want->sizes));
}

static inline char *at_off(const tv *t, int64_t elems) {
    return (char *)t->data + elems * (int64_t)eir_elsize(t->dtype);
}

/* sub-views (no checks: callers validate) */
static void v_narrow(tv *v, int32_t d, int64_t start, int64_t len) {
    if (len > 0) v->data = at_off(v, start * v->strides[d]);
    v->sizes[d] = len;
}
static void v_select(tv *v, int32_t d, int64_t i) {
    v->data = at_off(v, i * v->strides[d]);
    for (int32_t k = d; k + 1 < v->rank; k++) {
        v->sizes[k] = v->sizes[k + 1];
        v->strides[k] = v->strides[k + 1];
    }
    v->rank--;
}

static bool odo_next(int64_t *idx, const int64_t *sizes, int32_t r) {
    for (int32_t d = r - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static int64_t prod(const int64_t *s, int32_t r) {
    int64_t n = 1;
    for (int32_t i = 0; i < r; i++) n *= s[i];
    return n;
}

/* ------------------------------------------------------------------ */
/* element conversion and copies                                        */

static void conv1(void *d, eir_dtype dd, const void *s, eir_dtype sd) {
    if (dd == sd) { memcpy(d, s, eir_elsize(dd)); return; }
    if (eir_is_complex(dd) || eir_is_complex(sd)) {
        double re, im;
        eir_load_c128(s, sd, &re, &im);
        eir_store_c128(d, dd, re, im);
        return;
    }
    if (eir_is_integral(sd, true)) {
        int64_t v = eir_load_i64(s, sd);
        if (dd == EIR_F32 || dd == EIR_F16 || dd == EIR_BF16) eir_store_f64(d, dd, (double)(float)v);
        else eir_store_i64(d, dd, v);
        return;
    }
    eir_store_f64(d, dd, eir_load_f64(s, sd));
}

static void store_scalar(void *p, eir_dtype d, const eir_scalar *s) {
    switch (s->kind) {
    case EIR_SC_INT:
    case EIR_SC_BOOL: {
        int64_t v = s->i;
        conv1(p, d, &v, EIR_I64);
        return;
    }
    case EIR_SC_FLOAT: eir_store_f64(p, d, s->f); return;
    case EIR_SC_COMPLEX: eir_store_c128(p, d, s->f, s->im); return;
    }
}

/* dst[...] = src[...] over dst's shape (src has the same shape; broadcast
 * views with stride 0 allowed); converts when dtypes differ. */
static void copy_view(const tv *src, const tv *dst) {
    const eir_tview *ops[2] = {dst, src};
    eir_iter it;
    eir_iter_init(&it, dst->rank, dst->sizes, 2, ops);
    char *p[2];
    int64_t len;
    size_t es = eir_elsize(dst->dtype);
    bool same = dst->dtype == src->dtype;
    while (eir_iter_next(&it, p, &len)) {
        int64_t s0 = it.inner_stride[0], s1 = it.inner_stride[1];
        char *d = p[0];
        const char *s = p[1];
        if (!same) {
            for (int64_t k = 0; k < len; k++) conv1(d + k * s0, dst->dtype, s + k * s1, src->dtype);
        } else if (s0 == (int64_t)es && s1 == (int64_t)es) {
            memmove(d, s, (size_t)len * es);
        } else {
            switch (es) {
            case 1: for (int64_t k = 0; k < len; k++) d[k * s0] = s[k * s1]; break;
            case 2: for (int64_t k = 0; k < len; k++) memcpy(d + k * s0, s + k * s1, 2); break;
            case 4: for (int64_t k = 0; k < len; k++) memcpy(d + k * s0, s + k * s1, 4); break;
            case 8: for (int64_t k = 0; k < len; k++) memcpy(d + k * s0, s + k * s1, 8); break;
            case 16: for (int64_t k = 0; k < len; k++) memcpy(d + k * s0, s + k * s1, 16); break;
            default: for (int64_t k = 0; k < len; k++) memcpy(d + k * s0, s + k * s1, es); break;
            }
        }
    }
}

/* fill every element of v with one element's bytes */
static void fill_bytes(const tv *v, const void *elem) {
    const eir_tview *ops[1] = {v};
    eir_iter it;
    eir_iter_init(&it, v->rank, v->sizes, 1, ops);
    char *p[1];
    int64_t len;
    size_t es = eir_elsize(v->dtype);
    while (eir_iter_next(&it, p, &len))
        for (int64_t k = 0; k < len; k++) memcpy(p[0] + k * it.inner_stride[0], elem, es);
}

static void fill_scalar(const tv *v, const eir_scalar *s) {
    unsigned char e[16] = {0};
    store_scalar(e, v->dtype, s);
    fill_bytes(v, e);
}

static void set_contig(tv *v) {
    int64_t st = 1;
    for (int32_t i = v->rank - 1; i >= 0; i--) {
        v->strides[i] = st;
        st *= v->sizes[i] > 1 ? v->sizes[i] : 1;
    }
}

/* Copy n elements in row-major (flat) order: src flat [s0, s0+n) to dst
 * flat [d0, d0+n). Shapes may differ (reshape semantics). */
static void flat_copy(const tv *src, int64_t s0, const tv *dst, int64_t d0, int64_t n) {
    if (n <= 0) return;
    if (s0 == 0 && d0 == 0 && n == eir_tview_numel(dst) && n == eir_tview_numel(src)) {
        if (same_shape(src, dst->rank, dst->sizes)) { copy_view(src, dst); return; }
        if (eir_tview_is_contiguous(src)) {
            tv s = *src;
            s.rank = dst->rank;
            memcpy(s.sizes, dst->sizes, sizeof s.sizes);
            set_contig(&s);
            copy_view(&s, dst);
            return;
        }
        if (eir_tview_is_contiguous(dst)) {
            tv d = *dst;
            d.rank = src->rank;
            memcpy(d.sizes, src->sizes, sizeof d.sizes);
            set_contig(&d);
            copy_view(src, &d);
            return;
        }
    }
    int64_t si[EIR_MAX_RANK] = {0}, di[EIR_MAX_RANK] = {0};
    int64_t q = s0;
    for (int32_t i = src->rank - 1; i >= 0; i--) { si[i] = q % src->sizes[i]; q /= src->sizes[i]; }
    q = d0;
    for (int32_t i = dst->rank - 1; i >= 0; i--) { di[i] = q % dst->sizes[i]; q /= dst->sizes[i]; }
    for (int64_t k = 0; k < n; k++) {
        conv1(eir_tview_at(dst, di), dst->dtype, eir_tview_at(src, si), src->dtype);
        odo_next(si, src->sizes, src->rank);
        odo_next(di, dst->sizes, dst->rank);
    }
}

/* ------------------------------------------------------------------ */
/* arithmetic for accumulating ops                                      */

enum { OP_SET, OP_ADD, OP_MUL, OP_MAX, OP_MIN };

static inline float ld_h(const char *p, eir_dtype d) {
    uint16_t h;
    memcpy(&h, p, 2);
    return d == EIR_F16 ? eir_f16_to_f32(h) : eir_bf16_to_f32(h);
}
static inline void st_h(char *p, eir_dtype d, float f) {
    uint16_t h = d == EIR_F16 ? eir_f32_to_f16(f) : eir_f32_to_bf16(f);
    memcpy(p, &h, 2);
}

#define FOP(T, a, b, op, alpha)                                                          \
    ((op) == OP_ADD ? (T)((a) + (T)(alpha) * (b))                                        \
     : (op) == OP_MUL ? (T)((a) * (b))                                                   \
     : (op) == OP_MAX ? (isnan(b) ? (b) : ((a) < (b) ? (b) : (a)))                       \
                      : (isnan(b) ? (b) : ((b) < (a) ? (b) : (a))))

/* *d = *d (op) *s, in the dtype's own arithmetic (alpha scales s for ADD) */
static void elem_op(char *d, const char *s, eir_dtype dt, int op, double alpha, int64_t ialpha) {
    switch (dt) {
    case EIR_F32: {
        float a, b;
        memcpy(&a, d, 4);
        memcpy(&b, s, 4);
        float r = op == OP_ADD && alpha == 1 ? a + b : FOP(float, a, b, op, (float)alpha);
        memcpy(d, &r, 4);
        return;
    }
    case EIR_F64: {
        double a, b;
        memcpy(&a, d, 8);
        memcpy(&b, s, 8);
        double r = op == OP_ADD && alpha == 1 ? a + b : FOP(double, a, b, op, alpha);
        memcpy(d, &r, 8);
        return;
    }
    case EIR_F16:
    case EIR_BF16: {
        float a = ld_h(d, dt), b = ld_h(s, dt);
        float r = op == OP_ADD && alpha == 1 ? a + b : FOP(float, a, b, op, (float)alpha);
        st_h(d, dt, r);
        return;
    }
    case EIR_BOOL: {
        bool a = *(const uint8_t *)d != 0, b = *(const uint8_t *)s != 0;
        bool r = op == OP_ADD ? (a || (b && ialpha != 0)) : op == OP_MUL || op == OP_MIN ? (a && b) : (a || b);
        *(uint8_t *)d = r;
        return;
    }
    case EIR_C64:
    case EIR_C128:
    case EIR_C32: {
        double ar, ai, br, bi;
        eir_load_c128(d, dt, &ar, &ai);
        eir_load_c128(s, dt, &br, &bi);
        if (op == OP_MUL) {
            double rr = ar * br - ai * bi, ri = ar * bi + ai * br;
            eir_store_c128(d, dt, rr, ri);
        } else {
            eir_store_c128(d, dt, ar + alpha * br, ai + alpha * bi);
        }
        return;
    }
    default: {
        if (eir_is_floating(dt)) { /* fp8: through float */
            double a = eir_load_f64(d, dt), b = eir_load_f64(s, dt);
            eir_store_f64(d, dt, (float)FOP(double, a, b, op, alpha));
            return;
        }
        bool uns = dt == EIR_U8 || dt == EIR_U16 || dt == EIR_U32 || dt == EIR_U64;
        int64_t a = eir_load_i64(d, dt), b = eir_load_i64(s, dt), r;
        if (op == OP_ADD) r = (int64_t)((uint64_t)a + (uint64_t)ialpha * (uint64_t)b);
        else if (op == OP_MUL) r = (int64_t)((uint64_t)a * (uint64_t)b);
        else if (uns && dt == EIR_U64) {
            uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
            r = (int64_t)(op == OP_MAX ? (ua < ub ? ub : ua) : (ub < ua ? ub : ua));
        } else r = op == OP_MAX ? (a < b ? b : a) : (b < a ? b : a);
        eir_store_i64(d, dt, r);
        return;
    }
    }
}

/* dst (op)= src elementwise over dst's shape; same dtype unless OP_SET */
static void view_op(const tv *dst, const tv *src, int op, double alpha, int64_t ialpha) {
    if (op == OP_SET) { copy_view(src, dst); return; }
    const eir_tview *ops[2] = {dst, src};
    eir_iter it;
    eir_iter_init(&it, dst->rank, dst->sizes, 2, ops);
    char *p[2];
    int64_t len;
    while (eir_iter_next(&it, p, &len))
        for (int64_t k = 0; k < len; k++)
            elem_op(p[0] + k * it.inner_stride[0], p[1] + k * it.inner_stride[1], dst->dtype, op, alpha, ialpha);
}

static void alpha_of(const eir_karg *a, eir_dtype dt, double *alpha, int64_t *ialpha) {
    *alpha = 1;
    *ialpha = 1;
    if (!a || a->kind == EIR_KA_NONE) return;
    *alpha = a->s.f;
    *ialpha = a->s.kind == EIR_SC_FLOAT ? (int64_t)a->s.f : a->s.i;
    (void)dt;
}

/* ------------------------------------------------------------------ */
/* argument helpers                                                     */

static bool outs_ok(const eir_tview *out, uint32_t nout) {
    for (uint32_t j = 0; j < nout; j++)
        if (out[j].rank < 0 || out[j].rank > EIR_MAX_RANK || (!out[j].data && eir_tview_numel(&out[j]) != 0)) return false;
    return true;
}

static bool counts_ok(uint32_t nargs, uint32_t nout, uint32_t nin, uint32_t nres) { return nargs >= nin && nout >= nres; }

#define NEED(nin, nres, name)                                                               \
    do {                                                                                    \
        if (!counts_ok(nargs, nout, nin, nres))                             \
            return eir_kerr(ctx, "%s: expected %d arguments and %d outputs", name, nin, nres); \
        if (!outs_ok(out, nout)) return eir_kerr(ctx, "%s: invalid output", name);          \
    } while (0)

static bool is_tensor(const eir_karg *a) { return a->kind == EIR_KA_TENSOR && a->t; }

#define NEED_T(i, name)                                                                     \
    do {                                                                                    \
        if (!is_tensor(&args[i])) return eir_kerr(ctx, "%s: argument %d must be a tensor", name, i); \
    } while (0)

static int wrap_or_err(eir_kctx *ctx, int64_t dim, int32_t rank, int32_t *d) {
    *d = eir_wrap_dim(dim, rank);
    if (*d < 0) {
        int64_t r = rank > 0 ? rank : 1;
        return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%" PRId64 ", %" PRId64 "], but got %" PRId64 ")", -r, r - 1, dim);
    }
    return 0;
}

/* treat a 0-d view as [1] */
static tv as1d(const tv *t) {
    tv v = *t;
    if (v.rank == 0) { v.rank = 1; v.sizes[0] = 1; v.strides[0] = 1; }
    return v;
}

static bool index_dtype_ok(eir_dtype d) { return d == EIR_I64 || d == EIR_I32; }
static inline int64_t ld_idx(const char *p, eir_dtype d) {
    if (d == EIR_I64) { int64_t v; memcpy(&v, p, 8); return v; }
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* copy a view into out after checking shapes */
static int copy_checked(eir_kctx *ctx, const char *op, const tv *v, tv *o) {
    if (!same_shape(o, v->rank, v->sizes)) return shape_err(ctx, op, o, v);
    copy_view(v, o);
    return 0;
}

/* slice normalization as torch's slice(): returns the length */
static int64_t slice_norm(int64_t size, const eir_karg *a_start, const eir_karg *a_end, int64_t step, int64_t *start_out) {
    int64_t start = a_start && a_start->kind != EIR_KA_NONE ? a_start->i : 0;
    int64_t end = a_end && a_end->kind != EIR_KA_NONE ? a_end->i : INT64_MAX;
    if (start < 0) start += size;
    if (end < 0) end += size;
    if (start < 0) start = 0;
    else if (start >= size) start = size;
    if (end < start) end = start;
    else if (end >= size) end = size;
    *start_out = start;
    return (end - start + step - 1) / step;
}

static int make_slice(eir_kctx *ctx, tv *v, const eir_karg *a_dim, const eir_karg *a_start, const eir_karg *a_end,
                      const eir_karg *a_step) {
    int32_t d;
    if (v->rank == 0) return eir_kerr(ctx, "slice() cannot be applied to a 0-dim tensor.");
    if (wrap_or_err(ctx, a_dim ? a_dim->i : 0, v->rank, &d)) return -1;
    int64_t step = a_step && a_step->kind != EIR_KA_NONE ? a_step->i : 1;
    if (step <= 0) return eir_kerr(ctx, "slice step must be positive");
    int64_t start, len = slice_norm(v->sizes[d], a_start, a_end, step, &start);
    v_narrow(v, d, start, len);
    v->strides[d] *= step;
    return 0;
}

static int make_select(eir_kctx *ctx, tv *v, int64_t dim, int64_t index) {
    char b[160];
    if (v->rank == 0) return eir_kerr(ctx, "select() cannot be applied to a 0-dim tensor.");
    int32_t d;
    if (wrap_or_err(ctx, dim, v->rank, &d)) return -1;
    int64_t n = v->sizes[d];
    if (index < -n || index >= n)
        return eir_kerr(ctx, "select(): index %" PRId64 " out of range for tensor of size %s at dimension %" PRId64, index,
                        fmt_sizes(b, sizeof b, v->rank, v->sizes), dim);
    v_select(v, d, index < 0 ? index + n : index);
    return 0;
}

static int make_narrow(eir_kctx *ctx, tv *v, int64_t dim, int64_t start, int64_t length) {
    if (v->rank == 0) return eir_kerr(ctx, "narrow() cannot be applied to a 0-dim tensor.");
    int32_t d;
    if (wrap_or_err(ctx, dim, v->rank, &d)) return -1;
    int64_t n = v->sizes[d];
    if (start < -n || start > n)
        return eir_kerr(ctx, "start out of range (expected to be in range of [%" PRId64 ", %" PRId64 "], but got %" PRId64 ")", -n, n, start);
    if (start < 0) start += n;
    if (length < 0) return eir_kerr(ctx, "narrow(): length must be non-negative.");
    if (start > n - length)
        return eir_kerr(ctx, "start (%" PRId64 ") + length (%" PRId64 ") exceeds dimension size (%" PRId64 ").", start, length, n);
    v_narrow(v, d, start, length);
    return 0;
}

static int make_diagonal(eir_kctx *ctx, tv *v, int64_t offset, int64_t dim1, int64_t dim2) {
    int32_t d1, d2;
    if (wrap_or_err(ctx, dim1, v->rank, &d1) || wrap_or_err(ctx, dim2, v->rank, &d2)) return -1;
    if (v->rank < 2) return eir_kerr(ctx, "diagonal dimensions requested: tensor must have at least 2 dimensions");
    if (d1 == d2) return eir_kerr(ctx, "diagonal dimensions cannot be identical %" PRId64 ", %" PRId64, dim1, dim2);
    int64_t s1 = v->sizes[d1], s2 = v->sizes[d2], st1 = v->strides[d1], st2 = v->strides[d2], len, off = 0;
    if (offset >= 0) {
        len = s1 < s2 - offset ? s1 : s2 - offset;
        off = offset * st2;
    } else {
        len = s1 + offset < s2 ? s1 + offset : s2;
        off = -offset * st1;
    }
    if (len < 0) len = 0;
    tv r = *v;
    if (len > 0) r.data = at_off(v, off);
    int32_t k = 0;
    for (int32_t i = 0; i < v->rank; i++) {
        if (i == d1 || i == d2) continue;
        r.sizes[k] = v->sizes[i];
        r.strides[k] = v->strides[i];
        k++;
    }
    r.sizes[k] = len;
    r.strides[k] = st1 + st2;
    r.rank = k + 1;
    *v = r;
    return 0;
}

/* ------------------------------------------------------------------ */
/* *_copy ops                                                           */

/* view_copy, _unsafe_view, squeeze/unsqueeze, alias, detach: same elements
 * in the same flat order */
static int reshape_copy(eir_kctx *ctx, const char *op, const tv *x, tv *o) {
    if (eir_tview_numel(x) != eir_tview_numel(o))
        return eir_kerr(ctx, "%s: shape of output (%" PRId64 " elements) is invalid for input of size %" PRId64, op,
                        eir_tview_numel(o), eir_tview_numel(x));
    flat_copy(x, 0, o, 0, eir_tview_numel(o));
    return 0;
}

static int k_view_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1, 1, "view_copy");
    NEED_T(0, "view_copy");
    return reshape_copy(ctx, "view_copy", args[0].t, &out[0]);
}

static int k_clone_like(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1, 1, "alias_copy");
    NEED_T(0, "alias_copy");
    return copy_checked(ctx, "alias_copy", args[0].t, &out[0]);
}

/* dims of t from outermost to innermost in memory (by stride, stable), and
 * whether t is non-overlapping and dense in that order (size-1 dims aside) */
static bool memory_order(const tv *t, int32_t *perm) {
    for (int32_t i = 0; i < t->rank; i++) perm[i] = i;
    for (int32_t i = 1; i < t->rank; i++)
        for (int32_t j = i; j > 0 && t->strides[perm[j]] > t->strides[perm[j - 1]]; j--) {
            int32_t x = perm[j]; perm[j] = perm[j - 1]; perm[j - 1] = x;
        }
    int64_t expect = 1;
    for (int32_t i = t->rank - 1; i >= 0; i--) {
        int64_t n = t->sizes[perm[i]];
        if (n == 1) continue;
        if (t->strides[perm[i]] != expect) return false;
        expect *= n;
    }
    return true;
}

/* the address of the k-th element of t when its dims are walked in perm's order */
static char *nth_in_order(const tv *t, const int32_t *perm, int64_t k) {
    int64_t off = 0;
    for (int32_t i = t->rank - 1; i >= 0; i--) {
        int64_t n = t->sizes[perm[i]];
        off += (k % n) * t->strides[perm[i]];
        k /= n;
    }
    return at_off(t, off);
}

/* resize(self, size, *, memory_format=None), the functional form of resize_
 * that run_decompositions writes: torch clones self (a dense self keeps its
 * layout, any other becomes contiguous) and resizes the clone in place, so
 * the result holds the clone's storage in memory order. Elements past
 * self's are uninitialized in torch; here they are zero, so runs repeat. */
static int k_resize(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "resize");
    NEED_T(0, "resize");
    const tv *x = args[0].t;
    tv *y = &out[0];
    if (x->dtype != y->dtype) return eir_kerr(ctx, "resize: output dtype differs from the input's");
    int32_t px[EIR_MAX_RANK], py[EIR_MAX_RANK];
    if (!memory_order(x, px))
        for (int32_t i = 0; i < x->rank; i++) px[i] = i; /* the clone is contiguous */
    if (!memory_order(y, py)) return eir_kerr(ctx, "resize: the output's recorded layout is not dense");
    int64_t nx = eir_tview_numel(x), ny = eir_tview_numel(y);
    size_t es = eir_elsize(y->dtype);
    for (int64_t k = 0; k < ny; k++) {
        char *d = nth_in_order(y, py, k);
        if (k < nx) memcpy(d, nth_in_order(x, px, k), es);
        else memset(d, 0, es);
    }
    return 0;
}

static int k_expand_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "expand_copy");
    NEED_T(0, "expand_copy");
    const tv *x = args[0].t;
    uint32_t n = args[1].n;
    if (n < (uint32_t)x->rank || n > EIR_MAX_RANK)
        return eir_kerr(ctx, "expand: the number of sizes provided (%u) must be greater or equal to the number of dimensions in the tensor (%d)", n, x->rank);
    tv v = *x;
    v.rank = (int32_t)n;
    int32_t lead = (int32_t)n - x->rank;
    for (int32_t i = 0; i < (int32_t)n; i++) {
        int64_t want = args[1].ints[i];
        if (i < lead) {
            if (want < 0) return eir_kerr(ctx, "The expanded size of the tensor (%" PRId64 ") isn't allowed in a leading, non-existing dimension %d", want, i);
            v.sizes[i] = want;
            v.strides[i] = 0;
            continue;
        }
        int64_t s = x->sizes[i - lead], st = x->strides[i - lead];
        if (want == -1) want = s;
        if (s == want) { v.sizes[i] = s; v.strides[i] = st; }
        else if (s == 1) { v.sizes[i] = want; v.strides[i] = 0; }
        else
            return eir_kerr(ctx, "The expanded size of the tensor (%" PRId64 ") must match the existing size (%" PRId64 ") at non-singleton dimension %d.", want, s, i);
    }
    return copy_checked(ctx, "expand_copy", &v, &out[0]);
}

static int k_permute_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "permute_copy");
    NEED_T(0, "permute_copy");
    const tv *x = args[0].t;
    if (args[1].n != (uint32_t)x->rank)
        return eir_kerr(ctx, "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %u", x->rank, args[1].n);
    tv v = *x;
    bool seen[EIR_MAX_RANK] = {0};
    for (int32_t i = 0; i < x->rank; i++) {
        int32_t d;
        if (wrap_or_err(ctx, args[1].ints[i], x->rank, &d)) return -1;
        if (seen[d]) return eir_kerr(ctx, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        v.sizes[i] = x->sizes[d];
        v.strides[i] = x->strides[d];
    }
    return copy_checked(ctx, "permute_copy", &v, &out[0]);
}

static int transpose_to(eir_kctx *ctx, const tv *x, int64_t d0, int64_t d1, tv *o) {
    tv v = *x;
    if (x->rank > 0) {
        int32_t a, b;
        if (wrap_or_err(ctx, d0, x->rank, &a) || wrap_or_err(ctx, d1, x->rank, &b)) return -1;
        v.sizes[a] = x->sizes[b]; v.strides[a] = x->strides[b];
        v.sizes[b] = x->sizes[a]; v.strides[b] = x->strides[a];
    } else {
        int32_t a;
        if (wrap_or_err(ctx, d0, 0, &a) || wrap_or_err(ctx, d1, 0, &a)) return -1;
    }
    return copy_checked(ctx, "transpose_copy", &v, o);
}

static int k_transpose_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 1, "transpose_copy");
    NEED_T(0, "transpose_copy");
    return transpose_to(ctx, args[0].t, args[1].i, args[2].i, &out[0]);
}

static int k_t_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(1, 1, "t_copy");
    NEED_T(0, "t_copy");
    const tv *x = args[0].t;
    if (x->rank > 2) return eir_kerr(ctx, "t() expects a tensor with <= 2 dimensions, but self is %dD", x->rank);
    if (x->rank < 2) return copy_checked(ctx, "t_copy", x, &out[0]);
    return transpose_to(ctx, x, 0, 1, &out[0]);
}

static int k_narrow_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "narrow_copy");
    NEED_T(0, "narrow_copy");
    tv v = *args[0].t;
    if (make_narrow(ctx, &v, args[1].i, args[2].i, args[3].i)) return -1;
    return copy_checked(ctx, "narrow_copy", &v, &out[0]);
}

static int k_slice_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(5, 1, "slice_copy");
    NEED_T(0, "slice_copy");
    tv v = *args[0].t;
    if (make_slice(ctx, &v, &args[1], &args[2], &args[3], &args[4])) return -1;
    return copy_checked(ctx, "slice_copy", &v, &out[0]);
}

static int k_select_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 1, "select_copy");
    NEED_T(0, "select_copy");
    tv v = *args[0].t;
    if (make_select(ctx, &v, args[1].i, args[2].i)) return -1;
    return copy_checked(ctx, "select_copy", &v, &out[0]);
}

static int k_diagonal_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "diagonal_copy");
    NEED_T(0, "diagonal_copy");
    tv v = *args[0].t;
    if (make_diagonal(ctx, &v, args[1].i, args[2].i, args[3].i)) return -1;
    return copy_checked(ctx, "diagonal_copy", &v, &out[0]);
}

static int k_unfold_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "unfold_copy");
    NEED_T(0, "unfold_copy");
    tv v = as1d(args[0].t);
    if (v.rank >= EIR_MAX_RANK) return eir_kerr(ctx, "unfold_copy: rank too large");
    int32_t d;
    if (wrap_or_err(ctx, args[1].i, args[0].t->rank, &d)) return -1;
    int64_t size = args[2].i, step = args[3].i, n = v.sizes[d];
    if (size > n) return eir_kerr(ctx, "maximum size for tensor at dimension %d is %" PRId64 " but size is %" PRId64, d, n, size);
    if (size < 0) return eir_kerr(ctx, "size is %" PRId64 " but must be >= 0", size);
    if (step <= 0) return eir_kerr(ctx, "step is %" PRId64 " but must be > 0", step);
    int64_t st = v.strides[d];
    if (args[0].t->rank == 0) v.rank = 0;
    else { v.sizes[d] = (n - size) / step + 1; v.strides[d] = st * step; }
    v.sizes[v.rank] = size;
    v.strides[v.rank] = st;
    v.rank++;
    return copy_checked(ctx, "unfold_copy", &v, &out[0]);
}

/* split_copy.Tensor / split_with_sizes_copy / unbind_copy.int: several outputs */
static int k_split_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 0, "split_copy");
    NEED_T(0, "split_copy");
    const tv *x = args[0].t;
    int64_t split = args[1].i;
    int32_t d;
    if (x->rank == 0) return eir_kerr(ctx, "split expects at least a 1-dimensional tensor");
    if (wrap_or_err(ctx, args[2].i, x->rank, &d)) return -1;
    if (split < 0) return eir_kerr(ctx, "split expects split_size be non-negative, but got split_size=%" PRId64, split);
    int64_t n = x->sizes[d], chunks;
    if (split == 0) {
        if (n != 0) return eir_kerr(ctx, "split_size can only be 0 if dimension size is 0, but got dimension size of %" PRId64, n);
        chunks = 1;
    } else chunks = n == 0 ? 1 : (n + split - 1) / split;
    if ((int64_t)nout != chunks) return eir_kerr(ctx, "split_copy: %u outputs for %" PRId64 " chunks", nout, chunks);
    for (uint32_t j = 0; j < nout; j++) {
        tv v = *x;
        int64_t st = (int64_t)j * split, len = n - st < split ? n - st : split;
        if (n == 0) st = 0, len = 0;
        v_narrow(&v, d, st, len);
        if (copy_checked(ctx, "split_copy", &v, &out[j])) return -1;
    }
    return 0;
}

static int k_split_with_sizes_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 0, "split_with_sizes_copy");
    NEED_T(0, "split_with_sizes_copy");
    const tv *x = args[0].t;
    int32_t d;
    if (x->rank == 0) return eir_kerr(ctx, "split expects at least a 1-dimensional tensor");
    if (wrap_or_err(ctx, args[2].i, x->rank, &d)) return -1;
    if (args[1].n != nout) return eir_kerr(ctx, "split_with_sizes_copy: %u outputs for %u sizes", nout, args[1].n);
    int64_t st = 0, n = x->sizes[d];
    for (uint32_t j = 0; j < args[1].n; j++) {
        int64_t len = args[1].ints[j];
        if (len < 0 || len > n - st)
            return eir_kerr(ctx, "split_with_sizes expects split_sizes to sum exactly to %" PRId64 " (input tensor's size at dimension %d)", n, d);
        tv v = *x;
        v_narrow(&v, d, st, len);
        if (copy_checked(ctx, "split_with_sizes_copy", &v, &out[j])) return -1;
        st += len;
    }
    if (st != n) return eir_kerr(ctx, "split_with_sizes expects split_sizes to sum exactly to %" PRId64 " (input tensor's size at dimension %d)", n, d);
    return 0;
}

static int k_unbind_copy(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 0, "unbind_copy");
    NEED_T(0, "unbind_copy");
    const tv *x = args[0].t;
    int32_t d;
    if (x->rank == 0) return eir_kerr(ctx, "Dimension specified as 0 but tensor has no dimensions");
    if (wrap_or_err(ctx, args[1].i, x->rank, &d)) return -1;
    if ((int64_t)nout != x->sizes[d]) return eir_kerr(ctx, "unbind_copy: %u outputs for size %" PRId64, nout, x->sizes[d]);
    for (uint32_t j = 0; j < nout; j++) {
        tv v = *x;
        v_select(&v, d, j);
        if (copy_checked(ctx, "unbind_copy", &v, &out[j])) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* cat / stack                                                          */

static int k_cat(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "cat");
    if (args[0].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "cat: expected a list of tensors");
    const eir_karg *a = &args[0];
    tv *o = &out[0];
    if (a->n == 0) return eir_kerr(ctx, "torch.cat(): expected a non-empty list of Tensors");
    int32_t ref = -1;
    for (uint32_t i = 0; i < a->n; i++) {
        const tv *t = a->ts[i];
        if (!t) return eir_kerr(ctx, "cat: missing tensor %u", i);
        if (t->rank == 0) return eir_kerr(ctx, "zero-dimensional tensor (at position %u) cannot be concatenated", i);
        if (ref < 0 && !(t->rank == 1 && t->sizes[0] == 0)) ref = (int32_t)i;
    }
    if (ref < 0) return 0; /* all legacy-empty: out is [0] */
    int32_t rank = a->ts[ref]->rank, d;
    if (wrap_or_err(ctx, args[1].i, rank, &d)) return -1;
    if (o->rank != rank) return shape_err(ctx, "cat", o, a->ts[ref]);
    int64_t off = 0;
    for (uint32_t i = 0; i < a->n; i++) {
        const tv *t = a->ts[i];
        if (t->rank == 1 && t->sizes[0] == 0) continue;
        if (t->rank != rank)
            return eir_kerr(ctx, "Tensors must have same number of dimensions: got %d and %d", rank, t->rank);
        for (int32_t k = 0; k < rank; k++)
            if (k != d && t->sizes[k] != o->sizes[k])
                return eir_kerr(ctx, "Sizes of tensors must match except in dimension %d. Expected size %" PRId64 " but got size %" PRId64 " for tensor number %u in the list.", d, o->sizes[k], t->sizes[k], i);
        if (t->sizes[d] > o->sizes[d] - off) return shape_err(ctx, "cat", o, t);
        tv sub = *o;
        v_narrow(&sub, d, off, t->sizes[d]);
        copy_view(t, &sub);
        off += t->sizes[d];
    }
    if (off != o->sizes[d]) return eir_kerr(ctx, "cat: output size %" PRId64 " at dimension %d, inputs sum to %" PRId64, o->sizes[d], d, off);
    return 0;
}

static int k_stack(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "stack");
    if (args[0].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "stack: expected a list of tensors");
    const eir_karg *a = &args[0];
    tv *o = &out[0];
    if (a->n == 0) return eir_kerr(ctx, "stack expects a non-empty TensorList");
    for (uint32_t i = 0; i < a->n; i++)
        if (!a->ts[i]) return eir_kerr(ctx, "stack: missing tensor %u", i);
    int32_t rank = a->ts[0]->rank, d;
    if (wrap_or_err(ctx, args[1].i, rank + 1, &d)) return -1;
    if (o->rank != rank + 1 || o->sizes[d] != (int64_t)a->n) return eir_kerr(ctx, "stack: output shape does not match");
    for (uint32_t i = 0; i < a->n; i++) {
        const tv *t = a->ts[i];
        char b1[160], b2[160];
        if (!same_shape(t, a->ts[0]->rank, a->ts[0]->sizes))
            return eir_kerr(ctx, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %u",
                            fmt_sizes(b1, sizeof b1, a->ts[0]->rank, a->ts[0]->sizes), fmt_sizes(b2, sizeof b2, t->rank, t->sizes), i);
        tv sub = *o;
        v_select(&sub, d, i);
        if (copy_checked(ctx, "stack", t, &sub)) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* index_select / index_add                                             */

static int k_index_select(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 1, "index_select");
    NEED_T(0, "index_select");
    NEED_T(2, "index_select");
    const tv *x = args[0].t, *ix = args[2].t;
    tv *o = &out[0];
    if (ix->rank > 1) return eir_kerr(ctx, "index_select(): Index is supposed to be a vector");
    if (!index_dtype_ok(ix->dtype)) return eir_kerr(ctx, "index_select(): Expected dtype int32 or int64 for index");
    int32_t d;
    if (wrap_or_err(ctx, args[1].i, x->rank, &d)) return -1;
    tv xv = as1d(x), ov = as1d(o), iv = as1d(ix);
    int64_t n = iv.sizes[0], size = xv.sizes[d];
    if (x->rank == 0 && n != 1) return eir_kerr(ctx, "index_select(): Index to scalar can have only 1 value, got %" PRId64 " value(s)", n);
    tv want = xv;
    want.sizes[d] = n;
    if (!same_shape(&ov, want.rank, want.sizes)) return shape_err(ctx, "index_select", o, &want);
    size_t ies = eir_elsize(ix->dtype);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ld_idx((const char *)ix->data + i * iv.strides[0] * (int64_t)ies, ix->dtype);
        if (v < 0 || v >= size) {
            /* torch 2.13's index_select says this for every layout and dtype (older versions had
             * "INDICES element is out of DATA bounds" on their contiguous path) */
            return eir_kerr(ctx, "index out of range in self");
        }
        tv s = xv, t = ov;
        v_select(&s, d, v);
        v_select(&t, d, i);
        copy_view(&s, &t);
    }
    return 0;
}

static int k_index_add(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(5, 1, "index_add");
    NEED_T(0, "index_add");
    NEED_T(2, "index_add");
    NEED_T(3, "index_add");
    const tv *x = args[0].t, *ix = args[2].t, *src = args[3].t;
    tv *o = &out[0];
    if (ix->rank > 1) return eir_kerr(ctx, "index_add_(): Index is supposed to be a vector");
    if (!index_dtype_ok(ix->dtype)) return eir_kerr(ctx, "index_add_(): Expected dtype int32/int64 for index");
    if (src->dtype != x->dtype)
        return eir_kerr(ctx, "index_add_(): self (%s) and source (%s) must have the same scalar type", dtype_name(x->dtype), dtype_name(src->dtype));
    if (nargs > 4 && eir_scalar_arg_fits(&args[4], x->dtype, ctx)) return -1; /* alpha, in self's type */
    int32_t d;
    if (wrap_or_err(ctx, args[1].i, x->rank, &d)) return -1;
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, "index_add", o, x);
    tv xv = as1d(x), ov = as1d(o), iv = as1d(ix), sv = as1d(src);
    int64_t n = iv.sizes[0], size = xv.sizes[d];
    tv want = xv;
    want.sizes[d] = n;
    if (!same_shape(&sv, want.rank, want.sizes)) {
        char b1[160], b2[160];
        return eir_kerr(ctx, "index_add_(): source of shape %s does not match the expected shape %s",
                        fmt_sizes(b1, sizeof b1, src->rank, src->sizes), fmt_sizes(b2, sizeof b2, want.rank, want.sizes));
    }
    double alpha;
    int64_t ialpha;
    alpha_of(&args[4], x->dtype, &alpha, &ialpha);
    copy_view(x, o);
    size_t ies = eir_elsize(ix->dtype);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ld_idx((const char *)ix->data + i * iv.strides[0] * (int64_t)ies, ix->dtype);
        if (v < 0 || v >= size)
            return eir_kerr(ctx, "index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, v, d, size);
        tv s = sv, t = ov;
        v_select(&s, d, i);
        v_select(&t, d, v);
        view_op(&t, &s, OP_ADD, alpha, ialpha);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* gather / scatter                                                     */

enum { SC_SET, SC_ADD, SC_MUL, SC_MEAN, SC_MAX, SC_MIN };

/* Check index against self/src shapes as torch's scatter_gather_dtype_check
 * and shape checks, on views promoted to >= 1-d. */
static int gs_check(eir_kctx *ctx, const char *op, const tv *self, const tv *ix, const tv *src, int32_t d) {
    /* torch checks nothing when there are no indices (an empty uint8 index of any rank is fine) */
    if (eir_tview_numel(ix) == 0) return 0;
    if (!index_dtype_ok(ix->dtype)) return eir_kerr(ctx, "%s(): Expected dtype int32/int64 for index", op);
    if (self->rank != ix->rank) return eir_kerr(ctx, "Index tensor must have the same number of dimensions as %s tensor", strcmp(op, "gather") ? "self" : "input");
    if (src && src->rank != ix->rank) return eir_kerr(ctx, "Index tensor must have the same number of dimensions as src tensor");
    for (int32_t k = 0; k < ix->rank; k++) {
        if (k != d && ix->sizes[k] > self->sizes[k])
            return eir_kerr(ctx, "Size does not match at dimension %d expected index to be no larger than self apart from dimension %d", k, d);
        if (src && ix->sizes[k] > src->sizes[k])
            return eir_kerr(ctx, "Size does not match at dimension %d expected index to be no larger than src", k);
    }
    return 0;
}

static int k_gather(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 1, "gather");
    NEED_T(0, "gather");
    NEED_T(2, "gather");
    const tv *x = args[0].t, *ix = args[2].t;
    int32_t d;
    if (wrap_or_err(ctx, args[1].i, x->rank, &d)) return -1;
    tv xv = as1d(x), iv = as1d(ix), ov = as1d(&out[0]);
    if (gs_check(ctx, "gather", &xv, &iv, NULL, d)) return -1;
    if (!same_shape(&out[0], ix->rank, ix->sizes)) return shape_err(ctx, "gather", &out[0], ix);
    if (eir_tview_numel(ix) == 0) return 0;
    int64_t size = xv.sizes[d], xst = xv.strides[d] * (int64_t)eir_elsize(x->dtype);
    tv sv = xv; /* self at (p with dim -> 0) */
    memcpy(sv.sizes, iv.sizes, sizeof sv.sizes);
    sv.strides[d] = 0;
    const eir_tview *ops[3] = {&ov, &iv, &sv};
    eir_iter it;
    eir_iter_init(&it, iv.rank, iv.sizes, 3, ops);
    char *p[3];
    int64_t len;
    size_t es = eir_elsize(x->dtype);
    while (eir_iter_next(&it, p, &len))
        for (int64_t k = 0; k < len; k++) {
            int64_t v = ld_idx(p[1] + k * it.inner_stride[1], ix->dtype);
            if (v < 0 || v >= size)
                return eir_kerr(ctx, "index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, v, d, size);
            memcpy(p[0] + k * it.inner_stride[0], p[2] + k * it.inner_stride[2] + v * xst, es);
        }
    return 0;
}

/* out = self; then scatter src (or value) along dim at index with a reduction */
static int scatter_impl(eir_kctx *ctx, const char *op, const eir_karg *args, eir_tview *out, const tv *src,
                        const eir_scalar *value, int red, bool include_self) {
    const tv *x = args[0].t, *ix = args[2].t;
    tv *o = &out[0];
    int32_t d;
    if (wrap_or_err(ctx, args[1].i, x->rank, &d)) return -1;
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, op, o, x);
    if (src && src->dtype != x->dtype) return eir_kerr(ctx, "%s(): Expected self.dtype to be equal to src.dtype", op);
    tv xv = as1d(x), iv = as1d(ix), ov = as1d(o), srcv;
    if (src) srcv = as1d(src);
    if (gs_check(ctx, op, &xv, &iv, src ? &srcv : NULL, d)) return -1;
    copy_view(x, o);
    if (eir_tview_numel(ix) == 0) return 0;
    eir_dtype dt = x->dtype;
    size_t es = eir_elsize(dt);
    int64_t size = ov.sizes[d], ost = ov.strides[d] * (int64_t)es;
    unsigned char vbuf[16] = {0};
    tv vv; /* the scalar value as a broadcast view */
    if (!src) {
        store_scalar(vbuf, dt, value);
        memset(&vv, 0, sizeof vv);
        vv.data = vbuf;
        vv.dtype = dt;
        vv.rank = iv.rank;
        srcv = vv;
    }
    memcpy(srcv.sizes, iv.sizes, sizeof srcv.sizes);
    /* float16/bfloat16 sums and products accumulate in float32 (torch's
     * opmath buffer) and are rounded once at the end, not at every step */
    tv acc = ov, srcf = srcv;
    float *accbuf = NULL, *srcbuf = NULL;
    if ((dt == EIR_F16 || dt == EIR_BF16) && src && (red == SC_ADD || red == SC_MUL || red == SC_MEAN)) {
        int64_t na = eir_tview_numel(&ov), ns = eir_tview_numel(&srcv);
        accbuf = malloc((size_t)(na ? na : 1) * sizeof *accbuf);
        srcbuf = malloc((size_t)(ns ? ns : 1) * sizeof *srcbuf);
        if (!accbuf || !srcbuf) { free(accbuf); free(srcbuf); return eir_kerr(ctx, "%s: out of memory", op); }
        acc.dtype = srcf.dtype = EIR_F32;
        acc.data = accbuf;
        srcf.data = srcbuf;
        set_contig(&acc);
        set_contig(&srcf);
        copy_view(&ov, &acc);
        copy_view(&srcv, &srcf);
        srcv = srcf;
        dt = EIR_F32;
        es = sizeof(float);
        ost = acc.strides[d] * (int64_t)es;
    }
    tv tv_ = acc;
    memcpy(tv_.sizes, iv.sizes, sizeof tv_.sizes);
    tv_.strides[d] = 0;
    /* validate every index first so nothing is half-reduced on error */
    {
        const eir_tview *ops[1] = {&iv};
        eir_iter it;
        eir_iter_init(&it, iv.rank, iv.sizes, 1, ops);
        char *p[1];
        int64_t len;
        while (eir_iter_next(&it, p, &len))
            for (int64_t k = 0; k < len; k++) {
                int64_t v = ld_idx(p[0] + k * it.inner_stride[0], ix->dtype);
                if (v < 0 || v >= size)
                    return eir_kerr(ctx, "index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, v, d, size);
            }
    }
    /* mean and include_self=false need a per-element count (same layout as out, contiguous) */
    int64_t *cnt = NULL;
    tv cv;
    bool need_cnt = red == SC_MEAN || (!include_self && red != SC_SET);
    if (need_cnt) {
        int64_t n = eir_tview_numel(&ov);
        cnt = eir_kcalloc((size_t)(n ? n : 1), sizeof *cnt);
        if (!cnt) return eir_kerr(ctx, "%s: out of memory", op);
        cv = ov;
        cv.dtype = EIR_I64;
        cv.data = cnt;
        set_contig(&cv);
    }
    tv cvi;
    if (cnt) {
        cvi = cv;
        memcpy(cvi.sizes, iv.sizes, sizeof cvi.sizes);
        cvi.strides[d] = 0;
    }
    int32_t nops = cnt ? 4 : 3;
    const eir_tview *ops[4] = {&tv_, &iv, &srcv, cnt ? &cvi : &iv};
    int64_t cst = cnt ? cv.strides[d] * 8 : 0;
    int opc = red == SC_ADD || red == SC_MEAN ? OP_ADD : red == SC_MUL ? OP_MUL : red == SC_MAX ? OP_MAX : red == SC_MIN ? OP_MIN : OP_SET;
    eir_iter it;
    eir_iter_init(&it, iv.rank, iv.sizes, nops, ops);
    char *p[4];
    int64_t len;
    while (eir_iter_next(&it, p, &len))
        for (int64_t k = 0; k < len; k++) {
            int64_t v = ld_idx(p[1] + k * it.inner_stride[1], ix->dtype);
            char *dst = p[0] + k * it.inner_stride[0] + v * ost;
            const char *s = p[2] + k * it.inner_stride[2];
            if (opc == OP_SET) { memcpy(dst, s, es); continue; }
            int64_t *c = cnt ? (int64_t *)(void *)(p[3] + k * it.inner_stride[3] + v * cst) : NULL;
            if (c && !include_self && *c == 0) memcpy(dst, s, es); /* first contribution replaces self */
            else elem_op(dst, s, dt, opc, 1, 1);
            if (c) ++*c;
        }
    if (accbuf) { /* round the float32 accumulators into out */
        copy_view(&acc, &ov);
        dt = ov.dtype;
        free(accbuf);
        free(srcbuf);
    }
    if (red == SC_MEAN) {
        const eir_tview *ops2[2] = {&ov, &cv};
        eir_iter it2;
        eir_iter_init(&it2, ov.rank, ov.sizes, 2, ops2);
        while (eir_iter_next(&it2, p, &len))
            for (int64_t k = 0; k < len; k++) {
                int64_t c;
                memcpy(&c, p[1] + k * it2.inner_stride[1], 8);
                c += include_self ? 1 : 0;
                if (c <= 1) continue;
                char *e = p[0] + k * it2.inner_stride[0];
                if (eir_is_complex(dt)) {
                    double re, im;
                    eir_load_c128(e, dt, &re, &im);
                    eir_store_c128(e, dt, re / (double)c, im / (double)c);
                } else if (eir_is_floating(dt)) {
                    if (dt == EIR_F64) eir_store_f64(e, dt, eir_load_f64(e, dt) / (double)c);
                    else eir_store_f64(e, dt, (float)eir_load_f64(e, dt) / (float)c);
                } else if (dt == EIR_BOOL) {
                    /* bool / count floors to 0 unless ... torch: true / c >= 1 -> false; keep torch's floor */
                    *(uint8_t *)e = 0;
                } else {
                    int64_t a = eir_load_i64(e, dt), q = a / c;
                    if ((a % c != 0) && ((a < 0) != (c < 0))) q--;
                    eir_store_i64(e, dt, q);
                }
            }
    }
    eir_kfree(cnt);
    return 0;
}

static int k_scatter_src(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "scatter");
    NEED_T(0, "scatter"); NEED_T(2, "scatter"); NEED_T(3, "scatter");
    return scatter_impl(ctx, "scatter", args, out, args[3].t, NULL, SC_SET, true);
}

static int k_scatter_value(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "scatter");
    NEED_T(0, "scatter"); NEED_T(2, "scatter");
    if (eir_scalar_arg_fits(&args[3], args[0].t->dtype, ctx)) return -1;
    return scatter_impl(ctx, "scatter", args, out, NULL, &args[3].s, SC_SET, true);
}

static int k_scatter_add(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "scatter_add");
    NEED_T(0, "scatter_add"); NEED_T(2, "scatter_add"); NEED_T(3, "scatter_add");
    return scatter_impl(ctx, "scatter_add", args, out, args[3].t, NULL, SC_ADD, true);
}

static int old_reduce(eir_kctx *ctx, const char *s, int *red) {
    if (s && strcmp(s, "add") == 0) *red = SC_ADD;
    else if (s && strcmp(s, "multiply") == 0) *red = SC_MUL;
    else return eir_kerr(ctx, "reduce argument must be either add or multiply.");
    return 0;
}

static int k_scatter_reduce(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(5, 1, "scatter");
    NEED_T(0, "scatter"); NEED_T(2, "scatter"); NEED_T(3, "scatter");
    int red = SC_ADD;
    if (old_reduce(ctx, args[4].str, &red)) return -1;
    return scatter_impl(ctx, "scatter", args, out, args[3].t, NULL, red, true);
}

static int k_scatter_value_reduce(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(5, 1, "scatter");
    NEED_T(0, "scatter"); NEED_T(2, "scatter");
    int red = SC_ADD;
    if (old_reduce(ctx, args[4].str, &red)) return -1;
    if (eir_scalar_arg_fits(&args[3], args[0].t->dtype, ctx)) return -1;
    return scatter_impl(ctx, "scatter", args, out, NULL, &args[3].s, red, true);
}

static int k_scatter_reduce_two(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(6, 1, "scatter_reduce");
    NEED_T(0, "scatter_reduce"); NEED_T(2, "scatter_reduce"); NEED_T(3, "scatter_reduce");
    const char *s = args[4].str ? args[4].str : "";
    int red;
    if (!strcmp(s, "sum")) red = SC_ADD;
    else if (!strcmp(s, "prod")) red = SC_MUL;
    else if (!strcmp(s, "mean")) red = SC_MEAN;
    else if (!strcmp(s, "amax")) red = SC_MAX;
    else if (!strcmp(s, "amin")) red = SC_MIN;
    else return eir_kerr(ctx, "reduce argument must be either sum, prod, mean, amax or amin, got %s", s);
    if ((red == SC_MAX || red == SC_MIN) && eir_is_complex(args[0].t->dtype))
        return eir_kerr(ctx, "scatter_reduce(): amax and amin are not supported for complex tensors");
    return scatter_impl(ctx, "scatter_reduce", args, out, args[3].t, NULL, red, args[5].i != 0);
}

/* ------------------------------------------------------------------ */
/* advanced indexing: index.Tensor, index_put                           */

typedef struct adv_plan {
    int32_t nidx;                 /* defined index tensors (bool masks expanded) */
    int32_t dims[EIR_MAX_RANK];   /* the target dim each indexes */
    tv iv[EIR_MAX_RANK];          /* index views broadcast to B */
    int32_t rb;
    int64_t bs[EIR_MAX_RANK];
    int32_t np, nq;
    int32_t pd[EIR_MAX_RANK], qd[EIR_MAX_RANK];
    int64_t *tmp[EIR_MAX_RANK];   /* nonzero() of bool masks */
    int32_t ntmp;
} adv_plan;

static void adv_free(adv_plan *pl) {
    for (int32_t i = 0; i < pl->ntmp; i++) eir_kfree(pl->tmp[i]);
    pl->ntmp = 0;
}

/* Build the plan for indexing target t (only its sizes matter) with list a. */
static int adv_build(eir_kctx *ctx, adv_plan *pl, const tv *t, const eir_karg *a) {
    memset(pl, 0, sizeof *pl);
    char b1[160], b2[160];
    if (a->kind != EIR_KA_TENSORS) return eir_kerr(ctx, "index: expected a list of optional tensors");
    int32_t sd = 0, used = 0;
    tv raw[EIR_MAX_RANK];
    for (uint32_t e = 0; e < a->n; e++) {
        const tv *x = a->ts[e];
        if (!x) { sd++; used++; continue; }
        if (x->dtype == EIR_BOOL || x->dtype == EIR_U8) {
            int32_t k = x->rank;
            if (sd + k > t->rank || k == 0) {
                if (k == 0) return eir_kerr(ctx, "index: 0-dim boolean indices are not supported");
                return eir_kerr(ctx, "too many indices for tensor of dimension %d (got %d)", t->rank, sd + k);
            }
            for (int32_t j = 0; j < k; j++)
                if (x->sizes[j] != t->sizes[sd + j])
                    return eir_kerr(ctx, "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d",
                                    fmt_sizes(b1, sizeof b1, x->rank, x->sizes), j, fmt_sizes(b2, sizeof b2, t->rank, t->sizes), sd + j);
            /* nonzero */
            int64_t cnt = 0, idx[EIR_MAX_RANK] = {0}, n = eir_tview_numel(x);
            for (int64_t q = 0; q < n; q++, odo_next(idx, x->sizes, k))
                cnt += *(const uint8_t *)eir_tview_at(x, idx) != 0;
            int64_t *buf = eir_kalloc((size_t)(cnt * k > 0 ? cnt * k : 1) * sizeof *buf);
            if (!buf) return eir_kerr(ctx, "index: out of memory");
            pl->tmp[pl->ntmp++] = buf;
            memset(idx, 0, sizeof idx);
            int64_t w = 0;
            for (int64_t q = 0; q < n; q++, odo_next(idx, x->sizes, k))
                if (*(const uint8_t *)eir_tview_at(x, idx) != 0) {
                    for (int32_t j = 0; j < k; j++) buf[j * cnt + w] = idx[j];
                    w++;
                }
            for (int32_t j = 0; j < k; j++) {
                tv *r = &raw[pl->nidx];
                memset(r, 0, sizeof *r);
                r->data = buf + j * cnt;
                r->dtype = EIR_I64;
                r->rank = 1;
                r->sizes[0] = cnt;
                r->strides[0] = 1;
                pl->dims[pl->nidx++] = sd + j;
            }
            sd += k;
            used += k;
            continue;
        }
        if (!index_dtype_ok(x->dtype)) return eir_kerr(ctx, "tensors used as indices must be long, int, byte or bool tensors");
        if (sd >= t->rank) return eir_kerr(ctx, "too many indices for tensor of dimension %d (got %d)", t->rank, used + 1);
        raw[pl->nidx] = *x;
        pl->dims[pl->nidx++] = sd;
        sd++;
        used++;
    }
    if (sd > t->rank) return eir_kerr(ctx, "too many indices for tensor of dimension %d (got %d)", t->rank, sd);
    /* broadcast the index shapes */
    pl->rb = 0;
    for (int32_t j = 0; j < pl->nidx; j++)
        if (raw[j].rank > pl->rb) pl->rb = raw[j].rank;
    for (int32_t i = 0; i < pl->rb; i++) pl->bs[i] = 1;
    for (int32_t j = 0; j < pl->nidx; j++) {
        int32_t off = pl->rb - raw[j].rank;
        for (int32_t i = 0; i < raw[j].rank; i++) {
            int64_t s = raw[j].sizes[i];
            if (s == pl->bs[off + i] || s == 1) continue;
            if (pl->bs[off + i] == 1) { pl->bs[off + i] = s; continue; }
            return eir_kerr(ctx, "shape mismatch: indexing tensors could not be broadcast together with shapes %s, %s",
                            fmt_sizes(b1, sizeof b1, raw[0].rank, raw[0].sizes), fmt_sizes(b2, sizeof b2, raw[j].rank, raw[j].sizes));
        }
    }
    for (int32_t j = 0; j < pl->nidx; j++)
        if (!eir_tview_broadcast(&raw[j], pl->rb, pl->bs, &pl->iv[j])) return eir_kerr(ctx, "index: broadcast failed");
    /* result layout */
    bool adjacent = pl->nidx == 0 || pl->dims[pl->nidx - 1] - pl->dims[0] + 1 == pl->nidx;
    int32_t first = pl->nidx ? pl->dims[0] : t->rank, last = pl->nidx ? pl->dims[pl->nidx - 1] : t->rank;
    bool indexed[EIR_MAX_RANK] = {0};
    for (int32_t j = 0; j < pl->nidx; j++) indexed[pl->dims[j]] = true;
    for (int32_t dd = 0; dd < t->rank; dd++) {
        if (indexed[dd]) continue;
        if (adjacent && dd < first) pl->pd[pl->np++] = dd;
        else if (!adjacent || dd > last) pl->qd[pl->nq++] = dd;
    }
    if (pl->np + pl->rb + pl->nq > EIR_MAX_RANK) return eir_kerr(ctx, "index: result has too many dimensions");
    return 0;
}

static void adv_result_shape(const adv_plan *pl, const tv *t, int32_t *rank, int64_t *sizes) {
    int32_t r = 0;
    for (int32_t i = 0; i < pl->np; i++) sizes[r++] = t->sizes[pl->pd[i]];
    for (int32_t i = 0; i < pl->rb; i++) sizes[r++] = pl->bs[i];
    for (int32_t i = 0; i < pl->nq; i++) sizes[r++] = t->sizes[pl->qd[i]];
    *rank = r;
}

/* For every (P, B) position: the target's Q-subview and the result's
 * Q-subview; gather (index) copies target -> result, index_put applies
 * result -> target. r is result-shaped. */
static int adv_run(eir_kctx *ctx, const adv_plan *pl, const tv *t, const tv *r, bool put, int op) {
    int64_t nb = prod(pl->bs, pl->rb), np = 1;
    for (int32_t i = 0; i < pl->np; i++) np *= t->sizes[pl->pd[i]];
    for (int32_t i = 0; i < pl->nq; i++)
        if (t->sizes[pl->qd[i]] == 0) np = 0;
    if (nb == 0 || np == 0) return 0;
    int64_t *off = eir_kalloc((size_t)nb * sizeof *off);
    if (!off) return eir_kerr(ctx, "index: out of memory");
    int64_t bi[EIR_MAX_RANK] = {0};
    for (int64_t b = 0; b < nb; b++, odo_next(bi, pl->bs, pl->rb)) {
        int64_t o = 0;
        for (int32_t j = 0; j < pl->nidx; j++) {
            int64_t v = ld_idx(eir_tview_at(&pl->iv[j], bi), pl->iv[j].dtype), n = t->sizes[pl->dims[j]];
            if (v < -n || v >= n) {
                eir_kfree(off);
                return eir_kerr(ctx, "index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, v, j, n);
            }
            if (v < 0) v += n;
            o += v * t->strides[pl->dims[j]];
        }
        off[b] = o;
    }
    tv tq = *t, rq = *r;
    tq.rank = rq.rank = pl->nq;
    for (int32_t i = 0; i < pl->nq; i++) {
        tq.sizes[i] = rq.sizes[i] = t->sizes[pl->qd[i]];
        tq.strides[i] = t->strides[pl->qd[i]];
        rq.strides[i] = r->strides[pl->np + pl->rb + i];
    }
    int32_t no = pl->np + pl->rb;
    int64_t osz[EIR_MAX_RANK], oi[EIR_MAX_RANK] = {0};
    for (int32_t i = 0; i < pl->np; i++) osz[i] = t->sizes[pl->pd[i]];
    for (int32_t i = 0; i < pl->rb; i++) osz[pl->np + i] = pl->bs[i];
    size_t es = eir_elsize(t->dtype);
    int64_t total = np * nb;
    for (int64_t k = 0; k < total; k++, odo_next(oi, osz, no)) {
        int64_t toff = off[k % nb], roff = 0;
        for (int32_t i = 0; i < pl->np; i++) toff += oi[i] * t->strides[pl->pd[i]];
        for (int32_t i = 0; i < no; i++) roff += oi[i] * r->strides[i];
        char *tp = at_off(t, toff), *rp = at_off(r, roff);
        if (pl->nq == 0) {
            if (!put) conv1(rp, r->dtype, tp, t->dtype);
            else if (op == OP_SET) memcpy(tp, rp, es);
            else elem_op(tp, rp, t->dtype, op, 1, 1);
            continue;
        }
        tq.data = tp;
        rq.data = rp;
        if (!put) copy_view(&tq, &rq);
        else view_op(&tq, &rq, op, 1, 1);
    }
    eir_kfree(off);
    return 0;
}

static int k_index(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "index");
    NEED_T(0, "index");
    const tv *x = args[0].t;
    adv_plan pl;
    if (args[1].kind == EIR_KA_TENSORS && args[1].n == 0) return eir_kerr(ctx, "at least one index must be provided");
    if (adv_build(ctx, &pl, x, &args[1])) { adv_free(&pl); return -1; }
    tv want = *x;
    adv_result_shape(&pl, x, &want.rank, want.sizes);
    int rc;
    if (!same_shape(&out[0], want.rank, want.sizes)) rc = shape_err(ctx, "index", &out[0], &want);
    else rc = adv_run(ctx, &pl, x, &out[0], false, OP_SET);
    adv_free(&pl);
    return rc;
}

static int k_index_put(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "index_put");
    NEED_T(0, "index_put");
    NEED_T(2, "index_put");
    const tv *x = args[0].t, *vals = args[2].t;
    tv *o = &out[0];
    char b1[160], b2[160];
    if (vals->dtype != x->dtype)
        return eir_kerr(ctx, "Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
                        dtype_name(x->dtype), dtype_name(vals->dtype));
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, "index_put", o, x);
    adv_plan pl;
    if (adv_build(ctx, &pl, o, &args[1])) { adv_free(&pl); return -1; }
    tv want = *vals;
    adv_result_shape(&pl, o, &want.rank, want.sizes);
    tv vb;
    if (!eir_tview_broadcast(vals, want.rank, want.sizes, &vb)) {
        adv_free(&pl);
        return eir_kerr(ctx, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
                        fmt_sizes(b1, sizeof b1, vals->rank, vals->sizes), fmt_sizes(b2, sizeof b2, want.rank, want.sizes));
    }
    copy_view(x, o);
    int rc = adv_run(ctx, &pl, o, &vb, true, args[3].i ? OP_ADD : OP_SET);
    adv_free(&pl);
    return rc;
}

/* ------------------------------------------------------------------ */
/* slice_scatter / select_scatter / diagonal_scatter                    */

static int scatter_view_into(eir_kctx *ctx, const char *op, const tv *x, const tv *src, tv *o, const tv *region) {
    if (!same_shape(region, src->rank, src->sizes)) {
        char b1[160], b2[160];
        return eir_kerr(ctx, "%s: expected src to have a size equal to the slice of self. src size = %s, slice size = %s", op,
                        fmt_sizes(b1, sizeof b1, src->rank, src->sizes), fmt_sizes(b2, sizeof b2, region->rank, region->sizes));
    }
    copy_view(x, o);
    copy_view(src, region);
    return 0;
}

static int k_slice_scatter(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(6, 1, "slice_scatter");
    NEED_T(0, "slice_scatter"); NEED_T(1, "slice_scatter");
    const tv *x = args[0].t;
    tv *o = &out[0];
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, "slice_scatter", o, x);
    tv reg = *o;
    if (make_slice(ctx, &reg, &args[2], &args[3], &args[4], &args[5])) return -1;
    return scatter_view_into(ctx, "slice_scatter", x, args[1].t, o, &reg);
}

static int k_select_scatter(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(4, 1, "select_scatter");
    NEED_T(0, "select_scatter"); NEED_T(1, "select_scatter");
    const tv *x = args[0].t;
    tv *o = &out[0];
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, "select_scatter", o, x);
    tv reg = *o;
    if (make_select(ctx, &reg, args[2].i, args[3].i)) return -1;
    return scatter_view_into(ctx, "select_scatter", x, args[1].t, o, &reg);
}

static int k_diagonal_scatter(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(5, 1, "diagonal_scatter");
    NEED_T(0, "diagonal_scatter"); NEED_T(1, "diagonal_scatter");
    const tv *x = args[0].t;
    tv *o = &out[0];
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, "diagonal_scatter", o, x);
    tv reg = *o;
    if (make_diagonal(ctx, &reg, args[2].i, args[3].i, args[4].i)) return -1;
    return scatter_view_into(ctx, "diagonal_scatter", x, args[1].t, o, &reg);
}

/* ------------------------------------------------------------------ */
/* padding, repeat, flip, roll, tril/triu                               */

static int k_constant_pad_nd(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 1, "constant_pad_nd");
    NEED_T(0, "constant_pad_nd");
    const tv *x = args[0].t;
    tv *o = &out[0];
    uint32_t n = args[1].n;
    if (n % 2) return eir_kerr(ctx, "Length of pad must be even but instead it equals %u", n);
    if (nargs > 2 && eir_scalar_arg_fits(&args[2], x->dtype, ctx)) return -1;
    if ((int32_t)(n / 2) > x->rank)
        return eir_kerr(ctx, "Length of pad should be no more than twice the number of dimensions of the input. Pad length is %u while the input has %d dimensions.", n, x->rank);
    tv want = *x, src = *x, dst = *o;
    bool empty = false;
    for (uint32_t k = 0; k < n / 2; k++) {
        int32_t d = x->rank - 1 - (int32_t)k;
        int64_t pl = args[1].ints[2 * k], pr = args[1].ints[2 * k + 1], s = x->sizes[d];
        want.sizes[d] = s + pl + pr;
        if (want.sizes[d] < 0)
            return eir_kerr(ctx, "The input size %" PRId64 ", plus negative padding %" PRId64 " and %" PRId64 " resulted in a negative output size, which is invalid. Check dimension %d of your input.", s, pl, pr, d);
        int64_t lo = pl < 0 ? -pl : 0, hi = s - (pr < 0 ? -pr : 0), len = hi - lo;
        if (len <= 0) { empty = true; continue; }
        v_narrow(&src, d, lo, len);
        v_narrow(&dst, d, pl > 0 ? pl : 0, len);
    }
    if (!same_shape(o, want.rank, want.sizes)) return shape_err(ctx, "constant_pad_nd", o, &want);
    fill_scalar(o, &args[2].s);
    if (!empty && eir_tview_numel(x) > 0) copy_view(&src, &dst);
    return 0;
}

static int k_repeat(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "repeat");
    NEED_T(0, "repeat");
    const tv *x = args[0].t;
    tv *o = &out[0];
    int32_t r = (int32_t)args[1].n;
    if (r < x->rank)
        return eir_kerr(ctx, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    if (r > EIR_MAX_RANK) return eir_kerr(ctx, "repeat: too many dimensions");
    tv xp = *x; /* x padded with leading 1s */
    xp.rank = r;
    int32_t lead = r - x->rank;
    tv want = xp;
    for (int32_t i = 0; i < r; i++) {
        xp.sizes[i] = i < lead ? 1 : x->sizes[i - lead];
        xp.strides[i] = i < lead ? 0 : x->strides[i - lead];
        if (args[1].ints[i] < 0) return eir_kerr(ctx, "Trying to create tensor with negative dimension %" PRId64, args[1].ints[i]);
        want.sizes[i] = xp.sizes[i] * args[1].ints[i];
    }
    if (!same_shape(o, r, want.sizes)) return shape_err(ctx, "repeat", o, &want);
    if (eir_tview_numel(o) == 0) return 0;
    /* o viewed as tiles: for each tile index, copy xp into that block. Merge
     * the leading repeat dims where xp has size 1: those are broadcasts. */
    int64_t reps[EIR_MAX_RANK], ti[EIR_MAX_RANK] = {0};
    for (int32_t i = 0; i < r; i++) reps[i] = args[1].ints[i];
    /* dims where x has size 1 are plain broadcasts: fold them into the copy */
    tv xb = xp;
    for (int32_t i = 0; i < r; i++)
        if (xp.sizes[i] == 1) { xb.sizes[i] = o->sizes[i]; xb.strides[i] = 0; reps[i] = 1; }
    int64_t ntiles = prod(reps, r);
    for (int64_t k = 0; k < ntiles; k++, odo_next(ti, reps, r)) {
        tv sub = *o;
        for (int32_t i = 0; i < r; i++)
            if (reps[i] != 1 || xp.sizes[i] != 1) v_narrow(&sub, i, ti[i] * xb.sizes[i], xb.sizes[i]);
        copy_view(&xb, &sub);
    }
    return 0;
}

static int k_flip(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(2, 1, "flip");
    NEED_T(0, "flip");
    const tv *x = args[0].t;
    tv v = *x;
    bool seen[EIR_MAX_RANK] = {0};
    for (uint32_t k = 0; k < args[1].n; k++) {
        int32_t d;
        if (wrap_or_err(ctx, args[1].ints[k], x->rank, &d)) return -1;
        if (x->rank == 0) continue;
        if (seen[d]) return eir_kerr(ctx, "dim %d appears multiple times in the list of dims", d);
        seen[d] = true;
        if (v.sizes[d] > 0) v.data = at_off(&v, (v.sizes[d] - 1) * v.strides[d]);
        v.strides[d] = -v.strides[d];
    }
    return copy_checked(ctx, "flip", &v, &out[0]);
}

static int k_roll(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    NEED(3, 1, "roll");
    NEED_T(0, "roll");
    const tv *x = args[0].t;
    tv *o = &out[0];
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, "roll", o, x);
    uint32_t ns = args[1].n, nd = args[2].kind == EIR_KA_INTS ? args[2].n : 0;
    if (ns == 0) return eir_kerr(ctx, "`shifts` required");
    if (nd == 0) {
        if (ns != 1) return eir_kerr(ctx, "shifts and dimensions must align. shifts: %u, dims:0", ns);
        int64_t n = eir_tview_numel(x);
        if (n == 0) return 0;
        int64_t s = ((args[1].ints[0] % n) + n) % n;
        flat_copy(x, 0, o, s, n - s);
        flat_copy(x, n - s, o, 0, s);
        return 0;
    }
    if (nd != ns) return eir_kerr(ctx, "shifts and dimensions must align. shifts: %u, dims:%u", ns, nd);
    int64_t shift[EIR_MAX_RANK] = {0};
    for (uint32_t k = 0; k < nd; k++) {
        int32_t d;
        if (wrap_or_err(ctx, args[2].ints[k], x->rank, &d)) return -1;
        if (x->rank == 0) continue;
        shift[d] += args[1].ints[k];
    }
    if (eir_tview_numel(x) == 0) return 0;
    int32_t r = x->rank;
    for (int32_t d = 0; d < r; d++) shift[d] = ((shift[d] % x->sizes[d]) + x->sizes[d]) % x->sizes[d];
    /* 2^r blocks: along each dim, in[0, n-s) -> out[s, n) and in[n-s, n) -> out[0, s) */
    for (uint32_t mask = 0; mask < (1u << r); mask++) {
        tv s = *x, dd = *o;
        bool skip = false;
        for (int32_t d = 0; d < r && !skip; d++) {
            int64_t n = x->sizes[d], sh = shift[d];
            if (mask & (1u << d)) {
                if (sh == 0) skip = true;
                v_narrow(&s, d, n - sh, sh);
                v_narrow(&dd, d, 0, sh);
            } else {
                v_narrow(&s, d, 0, n - sh);
                v_narrow(&dd, d, sh, n - sh);
            }
        }
        if (!skip) copy_view(&s, &dd);
    }
    return 0;
}

static int tri(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx, bool lower) {
    const char *name = lower ? "tril" : "triu";
    NEED(2, 1, name);
    NEED_T(0, name);
    const tv *x = args[0].t;
    tv *o = &out[0];
    if (x->rank < 2) return eir_kerr(ctx, "%s: input tensor must have at least 2 dimensions", name);
    if (!same_shape(o, x->rank, x->sizes)) return shape_err(ctx, name, o, x);
    copy_view(x, o);
    int64_t diag = args[1].i, rows = o->sizes[o->rank - 2], cols = o->sizes[o->rank - 1];
    int32_t nb = o->rank - 2;
    int64_t nbatch = prod(o->sizes, nb), bi[EIR_MAX_RANK] = {0};
    if (nbatch == 0 || rows == 0 || cols == 0) return 0;
    unsigned char zero[16] = {0};
    for (int64_t b = 0; b < nbatch; b++, odo_next(bi, o->sizes, nb)) {
        int64_t base = 0;
        for (int32_t i = 0; i < nb; i++) base += bi[i] * o->strides[i];
        for (int64_t i = 0; i < rows; i++) {
            int64_t j0, j1; /* zero columns [j0, j1) */
            if (lower) {
                j0 = i + diag + 1;
                j1 = cols;
            } else {
                j0 = 0;
                j1 = i + diag;
            }
            if (j0 < 0) j0 = 0;
            if (j1 > cols) j1 = cols;
            if (j0 >= j1) continue;
            tv row = *o;
            row.rank = 1;
            row.data = at_off(o, base + i * o->strides[o->rank - 2] + j0 * o->strides[o->rank - 1]);
            row.sizes[0] = j1 - j0;
            row.strides[0] = o->strides[o->rank - 1];
            fill_bytes(&row, zero);
        }
    }
    return 0;
}

static int k_tril(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    return tri(args, nargs, out, nout, ctx, true);
}
static int k_triu(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) {
    return tri(args, nargs, out, nout, ctx, false);
}

/* reflection / replication padding: out[i] = x[map(i)] per padded dim */
static int pad_map(eir_kctx *ctx, const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, int nd, bool reflect) {
    const char *name = reflect ? "reflection_pad" : "replication_pad";
    NEED(2, 1, name);
    NEED_T(0, name);
    const tv *x = args[0].t;
    tv *o = &out[0];
    if (args[1].n != (uint32_t)(2 * nd)) return eir_kerr(ctx, "%s: padding size should be %d", name, 2 * nd);
    if (x->rank != nd + 1 && x->rank != nd + 2)
        return eir_kerr(ctx, "%s: expected %dD or %dD input", name, nd + 1, nd + 2);
    tv want = *x;
    int64_t plo[EIR_MAX_RANK] = {0};
    for (int k = 0; k < nd; k++) {
        int32_t d = x->rank - 1 - k;
        int64_t pl = args[1].ints[2 * k], pr = args[1].ints[2 * k + 1], s = x->sizes[d];
        if (reflect && (pl >= s || pr >= s)) { /* negative pads crop, as in torch */
            char shape[160];
            int at = snprintf(shape, sizeof shape, "[");
            for (int32_t q = 0; q < x->rank && at < (int)sizeof shape - 24; q++)
                at += snprintf(shape + at, sizeof shape - (size_t)at, q ? ", %" PRId64 : "%" PRId64, x->sizes[q]);
            snprintf(shape + at, sizeof shape - (size_t)at, "]");
            return eir_kerr(ctx, "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (%" PRId64 ", %" PRId64 ") at dimension %d of input %s", pl, pr, d, shape);
        }
        if (!reflect && s == 0) return eir_kerr(ctx, "%s: input has a zero-size padded dimension", name);
        want.sizes[d] = s + pl + pr;
        plo[d] = pl;
    }
    if (!same_shape(o, want.rank, want.sizes)) return shape_err(ctx, name, o, &want);
    int64_t n = eir_tview_numel(o), oi[EIR_MAX_RANK] = {0};
    if (n == 0) return 0;
    int32_t first = x->rank - nd;
    size_t es = eir_elsize(x->dtype);
    for (int64_t k = 0; k < n; k++, odo_next(oi, o->sizes, o->rank)) {
        int64_t xi[EIR_MAX_RANK];
        for (int32_t d = 0; d < x->rank; d++) {
            int64_t i = oi[d];
            if (d >= first) {
                int64_t s = x->sizes[d];
                i -= plo[d];
                if (reflect) {
                    if (i < 0) i = -i;
                    if (i >= s) i = 2 * (s - 1) - i;
                } else {
                    if (i < 0) i = 0;
                    if (i >= s) i = s - 1;
                }
                if (i < 0 || i >= s) return eir_kerr(ctx, "%s: internal index error", name);
            }
            xi[d] = i;
        }
        memcpy(eir_tview_at(o, oi), eir_tview_at(x, xi), es);
    }
    return 0;
}

#define PADK(fn, nd, refl)                                                                                 \
    static int fn(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx) { \
        return pad_map(ctx, args, nargs, out, nout, nd, refl);                                         \
    }
PADK(k_reflection_pad1d, 1, true)
PADK(k_reflection_pad2d, 2, true)
PADK(k_reflection_pad3d, 3, true)
PADK(k_replication_pad1d, 1, false)
PADK(k_replication_pad2d, 2, false)
PADK(k_replication_pad3d, 3, false)

/* ------------------------------------------------------------------ */

/* aten._print(str s): torch writes the string and a newline to stdout (an
 * effectful op: after run_decompositions it runs inside with_effects) */
static int k_print(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)out;
    (void)no;
    if (na < 1 || a[0].kind != EIR_KA_STRING || !a[0].str) return eir_kerr(ctx, "_print: expected a string argument");
    fputs(a[0].str, stdout);
    fputc('\n', stdout);
    return 0;
}

const eir_kernel_entry eir_kernels_data[] = {
    {"aten._print.default", k_print},
    {"aten.cat.default", k_cat},
    {"aten.stack.default", k_stack},
    {"aten.index.Tensor", k_index},
    {"aten.index_put.default", k_index_put},
    {"aten.index_select.default", k_index_select},
    {"aten.index_add.default", k_index_add},
    {"aten.gather.default", k_gather},
    {"aten.scatter.src", k_scatter_src},
    {"aten.scatter.value", k_scatter_value},
    {"aten.scatter.reduce", k_scatter_reduce},
    {"aten.scatter.value_reduce", k_scatter_value_reduce},
    {"aten.scatter_add.default", k_scatter_add},
    {"aten.scatter_reduce.two", k_scatter_reduce_two},
    {"aten.slice_scatter.default", k_slice_scatter},
    {"aten.select_scatter.default", k_select_scatter},
    {"aten.diagonal_scatter.default", k_diagonal_scatter},
    {"aten.constant_pad_nd.default", k_constant_pad_nd},
    {"aten.reflection_pad1d.default", k_reflection_pad1d},
    {"aten.reflection_pad2d.default", k_reflection_pad2d},
    {"aten.reflection_pad3d.default", k_reflection_pad3d},
    {"aten.replication_pad1d.default", k_replication_pad1d},
    {"aten.replication_pad2d.default", k_replication_pad2d},
    {"aten.replication_pad3d.default", k_replication_pad3d},
    {"aten.repeat.default", k_repeat},
    {"aten.flip.default", k_flip},
    {"aten.roll.default", k_roll},
    {"aten.tril.default", k_tril},
    {"aten.triu.default", k_triu},
    {"aten.expand_copy.default", k_expand_copy},
    {"aten.permute_copy.default", k_permute_copy},
    {"aten.view_copy.default", k_view_copy},
    {"aten._unsafe_view.default", k_view_copy},
    {"aten.squeeze_copy.default", k_view_copy},
    {"aten.squeeze_copy.dim", k_view_copy},
    {"aten.squeeze_copy.dims", k_view_copy},
    {"aten.unsqueeze_copy.default", k_view_copy},
    {"aten.alias_copy.default", k_clone_like},
    {"aten.resize.default", k_resize},
    {"aten.detach_copy.default", k_clone_like},
    {"aten.t_copy.default", k_t_copy},
    {"aten.transpose_copy.int", k_transpose_copy},
    {"aten.narrow_copy.default", k_narrow_copy},
    {"aten.slice_copy.Tensor", k_slice_copy},
    {"aten.select_copy.int", k_select_copy},
    {"aten.diagonal_copy.default", k_diagonal_copy},
    {"aten.unfold_copy.default", k_unfold_copy},
    {"aten.split_copy.Tensor", k_split_copy},
    {"aten.split_with_sizes_copy.default", k_split_with_sizes_copy},
    {"aten.unbind_copy.int", k_unbind_copy},
    {NULL, NULL},
};
