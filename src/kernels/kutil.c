/* kutil.c — shared kernel helpers: dtype conversion, element access,
 * broadcasting, N-d iteration, type promotion, kernel errors. */
#include "kutil.h"

#include <pthread.h>

#include "base/base.h" /* eir_vsnprintf: messages in the C locale */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int eir_kerr(eir_kctx *ctx, const char *fmt, ...) {
    if (ctx && ctx->err && ctx->errlen) {
        va_list ap;
        va_start(ap, fmt);
        eir_vsnprintf(ctx->err, ctx->errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

const char *eir_torch_dtype_name(eir_dtype d) {
    switch (d) {
    case EIR_U8: return "Byte"; case EIR_I8: return "Char"; case EIR_I16: return "Short";
    case EIR_I32: return "Int"; case EIR_I64: return "Long"; case EIR_F16: return "Half";
    case EIR_F32: return "Float"; case EIR_F64: return "Double"; case EIR_C32: return "ComplexHalf";
    case EIR_C64: return "ComplexFloat"; case EIR_C128: return "ComplexDouble"; case EIR_BOOL: return "Bool";
    case EIR_BF16: return "BFloat16"; case EIR_U16: return "UInt16"; case EIR_U32: return "UInt32";
    case EIR_U64: return "UInt64";
    case EIR_F8E4M3FN: return "Float8_e4m3fn"; case EIR_F8E5M2: return "Float8_e5m2";
    case EIR_F8E4M3FNUZ: return "Float8_e4m3fnuz"; case EIR_F8E5M2FNUZ: return "Float8_e5m2fnuz";
    case EIR_F8E8M0FNU: return "Float8_e8m0fnu";
    default: return "Undefined";
    }
}

/* ---- half precision ---- */

float eir_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    uint32_t u;
    if (exp == 0) {
        if (man == 0) u = sign;
        else { /* subnormal: normalize */
            int e = -1;
            do { e++; man <<= 1; } while (!(man & 0x400));
            u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else if (exp == 31) {
        u = sign | 0x7f800000u | (man << 13);
    } else {
        u = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &u, 4);
    return f;
}

uint16_t eir_f32_to_f16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    uint32_t sign = (u >> 16) & 0x8000;
    uint32_t abs = u & 0x7fffffffu;
    if (abs > 0x7f800000u) return (uint16_t)(sign | 0x7e00);          /* NaN */
    if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00);          /* overflow to inf (after rounding) */
    if (abs < 0x38800000u) {                                             /* subnormal or zero in f16 */
        if (abs < 0x33000000u) return (uint16_t)sign;                    /* rounds to 0 */
        uint32_t e = abs >> 23, man = (abs & 0x7fffff) | 0x800000;
        uint32_t shift = 126 - e;                                        /* 14 + (113 - e) - 1 */
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t r = abs - 0x38000000u;                                      /* rebias exponent 127 -> 15 */
    r += 0xfffu + ((r >> 13) & 1u);                                      /* round to nearest even */
    return (uint16_t)(sign | (r >> 13));
}

/* ---- element access ---- */

double eir_load_f64(const void *p, eir_dtype d) {
    switch (d) {
    case EIR_F32: return *(const float *)p;
    case EIR_F64: return *(const double *)p;
    case EIR_F16: return eir_f16_to_f32(*(const uint16_t *)p);
    case EIR_BF16: return eir_bf16_to_f32(*(const uint16_t *)p);
    case EIR_I64: return (double)*(const int64_t *)p;
    case EIR_I32: return *(const int32_t *)p;
    case EIR_I16: return *(const int16_t *)p;
    case EIR_I8: return *(const int8_t *)p;
    case EIR_U8: return *(const uint8_t *)p;
    case EIR_U16: return *(const uint16_t *)p;
    case EIR_U32: return *(const uint32_t *)p;
    case EIR_U64: return (double)*(const uint64_t *)p;
    case EIR_BOOL: return *(const uint8_t *)p != 0;
    case EIR_C64: return *(const float *)p;
    case EIR_C128: return *(const double *)p;
    case EIR_C32: return eir_f16_to_f32(*(const uint16_t *)p);
    default: return NAN;
    }
}

int64_t eir_load_i64(const void *p, eir_dtype d) {
    switch (d) {
    case EIR_I64: return *(const int64_t *)p;
    case EIR_I32: return *(const int32_t *)p;
    case EIR_I16: return *(const int16_t *)p;
    case EIR_I8: return *(const int8_t *)p;
    case EIR_U8: return *(const uint8_t *)p;
    case EIR_U16: return *(const uint16_t *)p;
    case EIR_U32: return *(const uint32_t *)p;
    case EIR_U64: return (int64_t)*(const uint64_t *)p;
    case EIR_BOOL: return *(const uint8_t *)p != 0;
    default: {
        double v = eir_load_f64(p, d);
        if (!(v > -9.3e18 && v < 9.3e18)) return INT64_MIN; /* what x86 gives for NaN/out of range */
        return (int64_t)v;
    }
    }
}

void eir_load_c128(const void *p, eir_dtype d, double *re, double *im) {
    switch (d) {
    case EIR_C64: *re = ((const float *)p)[0]; *im = ((const float *)p)[1]; return;
    case EIR_C128: *re = ((const double *)p)[0]; *im = ((const double *)p)[1]; return;
    case EIR_C32:
        *re = eir_f16_to_f32(((const uint16_t *)p)[0]);
        *im = eir_f16_to_f32(((const uint16_t *)p)[1]);
        return;
    default: *re = eir_load_f64(p, d); *im = 0; return;
    }
}

static int64_t f2i(double v) {
    if (!(v > -9.3e18 && v < 9.3e18)) return INT64_MIN;
    return (int64_t)v;
}

/* float -> int32 as x86 cvttsd2si does (what torch's casts produce):
 * NaN and out-of-range give INT32_MIN */
static int32_t f2i32(double v) {
    if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
    return (int32_t)v;
}

void eir_store_f64(void *p, eir_dtype d, double v) {
    switch (d) {
    /* narrow integers go through int32 and truncate, as torch's casts do */
    case EIR_I32: *(int32_t *)p = f2i32(v); return;
    case EIR_I16: *(int16_t *)p = (int16_t)f2i32(v); return;
    case EIR_I8: *(int8_t *)p = (int8_t)f2i32(v); return;
    case EIR_U8: *(uint8_t *)p = (uint8_t)f2i32(v); return;
    case EIR_U16: *(uint16_t *)p = (uint16_t)f2i32(v); return;
    case EIR_F32: *(float *)p = (float)v; return;
    case EIR_F64: *(double *)p = v; return;
    case EIR_F16: *(uint16_t *)p = eir_f32_to_f16((float)v); return;
    case EIR_BF16: *(uint16_t *)p = eir_f32_to_bf16((float)v); return;
    case EIR_BOOL: *(uint8_t *)p = v != 0; return;
    case EIR_C64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0; return;
    case EIR_C128: ((double *)p)[0] = v; ((double *)p)[1] = 0; return;
    case EIR_C32: ((uint16_t *)p)[0] = eir_f32_to_f16((float)v); ((uint16_t *)p)[1] = 0; return;
    default: eir_store_i64(p, d, f2i(v)); return;
    }
}

void eir_store_i64(void *p, eir_dtype d, int64_t v) {
    switch (d) {
    case EIR_I64: *(int64_t *)p = v; return;
    case EIR_I32: *(int32_t *)p = (int32_t)v; return;
    case EIR_I16: *(int16_t *)p = (int16_t)v; return;
    case EIR_I8: *(int8_t *)p = (int8_t)v; return;
    case EIR_U8: *(uint8_t *)p = (uint8_t)v; return;
    case EIR_U16: *(uint16_t *)p = (uint16_t)v; return;
    case EIR_U32: *(uint32_t *)p = (uint32_t)v; return;
    case EIR_U64: *(uint64_t *)p = (uint64_t)v; return;
    case EIR_BOOL: *(uint8_t *)p = v != 0; return;
    default: eir_store_f64(p, d, (double)v); return;
    }
}

void eir_store_c128(void *p, eir_dtype d, double re, double im) {
    switch (d) {
    case EIR_C64: ((float *)p)[0] = (float)re; ((float *)p)[1] = (float)im; return;
    case EIR_C128: ((double *)p)[0] = re; ((double *)p)[1] = im; return;
    case EIR_C32: ((uint16_t *)p)[0] = eir_f32_to_f16((float)re); ((uint16_t *)p)[1] = eir_f32_to_f16((float)im); return;
    case EIR_BOOL: *(uint8_t *)p = re != 0 || im != 0; return;
    default: eir_store_f64(p, d, re); return;
    }
}

/* ---- views ---- */

int64_t eir_tview_numel(const eir_tview *t) {
    int64_t n = 1;
    for (int32_t i = 0; i < t->rank; i++) n *= t->sizes[i];
    return n;
}

bool eir_tview_is_contiguous(const eir_tview *t) {
    int64_t expect = 1;
    for (int32_t i = t->rank - 1; i >= 0; i--) {
        if (t->sizes[i] == 1) continue;
        if (t->sizes[i] == 0) return true;
        if (t->strides[i] != expect) return false;
        expect *= t->sizes[i];
    }
    return true;
}

bool eir_tview_broadcast(const eir_tview *t, int32_t rank, const int64_t *sizes, eir_tview *out) {
    if (t->rank > rank || rank > EIR_MAX_RANK) return false;
    *out = *t;
    out->rank = rank;
    int32_t off = rank - t->rank;
    for (int32_t i = 0; i < rank; i++) {
        if (i < off) { out->sizes[i] = sizes[i]; out->strides[i] = 0; continue; }
        int64_t s = t->sizes[i - off], st = t->strides[i - off];
        if (s == sizes[i]) { out->sizes[i] = s; out->strides[i] = st; }
        else if (s == 1) { out->sizes[i] = sizes[i]; out->strides[i] = 0; }
        else return false;
    }
    return true;
}

/* ---- iteration ---- */

void eir_iter_init(eir_iter *it, int32_t rank, const int64_t *sizes, int32_t nops, const eir_tview *const *ops) {
    memset(it, 0, sizeof *it);
    it->nops = nops;
    /* drop size-1 dims, then merge dims that are contiguous for every operand */
    int32_t r = 0;
    int64_t sz[EIR_MAX_RANK], st[EIR_ITER_MAX_OPS][EIR_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) {
        if (sizes[d] == 0) { it->done = true; }
        if (sizes[d] == 1) continue;
        sz[r] = sizes[d];
        for (int32_t k = 0; k < nops; k++) st[k][r] = ops[k]->strides[d] * (int64_t)eir_elsize(ops[k]->dtype);
        r++;
    }
    int32_t m = 0;
    for (int32_t d = 0; d < r; d++) {
        if (m > 0) {
            bool merge = true;
            for (int32_t k = 0; k < nops && merge; k++)
                if (it->bstrides[k][m - 1] != st[k][d] * sz[d]) merge = false;
            if (merge) {
                it->sizes[m - 1] *= sz[d];
                for (int32_t k = 0; k < nops; k++) it->bstrides[k][m - 1] = st[k][d];
                continue;
            }
        }
        it->sizes[m] = sz[d];
        for (int32_t k = 0; k < nops; k++) it->bstrides[k][m] = st[k][d];
        m++;
    }
    it->rank = m;
    for (int32_t k = 0; k < nops; k++) {
        it->base[k] = (char *)ops[k]->data;
        it->inner_stride[k] = m ? it->bstrides[k][m - 1] : 0;
    }
}

bool eir_iter_next(eir_iter *it, char **ptrs, int64_t *len) {
    if (it->done) return false;
    int32_t r = it->rank;
    for (int32_t k = 0; k < it->nops; k++) {
        int64_t off = 0;
        for (int32_t d = 0; d + 1 < r; d++) off += it->idx[d] * it->bstrides[k][d];
        ptrs[k] = it->base[k] + off;
    }
    *len = r ? it->sizes[r - 1] : 1;
    /* advance the outer index */
    int32_t d = r - 2;
    for (; d >= 0; d--) {
        if (++it->idx[d] < it->sizes[d]) break;
        it->idx[d] = 0;
    }
    if (d < 0) it->done = true;
    return true;
}

/* ---- type promotion ---- */

/* torch's promoteTypes for the dtypes that take part in arithmetic. */
static int dtype_index(eir_dtype d) {
    switch (d) {
    case EIR_U8: return 0; case EIR_I8: return 1; case EIR_I16: return 2; case EIR_I32: return 3;
    case EIR_I64: return 4; case EIR_F16: return 5; case EIR_F32: return 6; case EIR_F64: return 7;
    case EIR_C32: return 8; case EIR_C64: return 9; case EIR_C128: return 10; case EIR_BOOL: return 11;
    case EIR_BF16: return 12;
    default: return -1;
    }
}

eir_dtype eir_promote_types(eir_dtype a, eir_dtype b) {
    static const eir_dtype T[13] = {EIR_U8, EIR_I8, EIR_I16, EIR_I32, EIR_I64, EIR_F16, EIR_F32, EIR_F64,
                                    EIR_C32, EIR_C64, EIR_C128, EIR_BOOL, EIR_BF16};
    /* c10/core/ScalarType.cpp, index order u1 i1 i2 i4 i8 f2 f4 f8 c2 c4 c8 b1 bf */
    static const uint8_t P[13][13] = {
        /* u1 */ {0, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 12},
        /* i1 */ {2, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 12},
        /* i2 */ {2, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 2, 12},
        /* i4 */ {3, 3, 3, 3, 4, 5, 6, 7, 8, 9, 10, 3, 12},
        /* i8 */ {4, 4, 4, 4, 4, 5, 6, 7, 8, 9, 10, 4, 12},
        /* f2 */ {5, 5, 5, 5, 5, 5, 6, 7, 8, 9, 10, 5, 6},
        /* f4 */ {6, 6, 6, 6, 6, 6, 6, 7, 9, 9, 10, 6, 6},
        /* f8 */ {7, 7, 7, 7, 7, 7, 7, 7, 10, 10, 10, 7, 7},
        /* c2 */ {8, 8, 8, 8, 8, 8, 9, 10, 8, 9, 10, 8, 9},
        /* c4 */ {9, 9, 9, 9, 9, 9, 9, 10, 9, 9, 10, 9, 9},
        /* c8 */ {10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10},
        /* b1 */ {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
        /* bf */ {12, 12, 12, 12, 12, 6, 6, 7, 9, 9, 10, 12, 12},
    };
    if (a == b) return a;
    int ia = dtype_index(a), ib = dtype_index(b);
    if (ia < 0 || ib < 0) {
        /* unsigned 16/32/64 only promote with themselves, bool or each other upward */
        if (a == EIR_BOOL) return b;
        if (b == EIR_BOOL) return a;
        return EIR_DTYPE_UNKNOWN;
    }
    return T[P[ia][ib]];
}

static eir_dtype promote_skip_undefined(eir_dtype a, eir_dtype b) {
    if (a == EIR_DTYPE_UNKNOWN) return b;
    if (b == EIR_DTYPE_UNKNOWN) return a;
    return eir_promote_types(a, b);
}

static eir_dtype to_complex(eir_dtype d) { return d == EIR_F64 ? EIR_C128 : d == EIR_F16 ? EIR_C32 : EIR_C64; }

/* c10 combine_categories: a lower-priority tier only wins by category */
static eir_dtype combine_categories(eir_dtype higher, eir_dtype lower) {
    if (eir_is_complex(higher)) return higher;
    if (eir_is_complex(lower)) return eir_is_floating(higher) ? to_complex(higher) : lower;
    if (eir_is_floating(higher)) return higher;
    if (higher == EIR_BOOL || eir_is_floating(lower)) return promote_skip_undefined(higher, lower);
    if (higher != EIR_DTYPE_UNKNOWN) return higher;
    return lower;
}

eir_dtype eir_result_type(const eir_karg *const *args, int n) {
    /* three tiers as in torch: dim>0 tensors, 0-dim tensors, wrapped scalars
     * (int -> int64, float -> the default float32, complex -> complex64) */
    eir_dtype dim = EIR_DTYPE_UNKNOWN, zero = EIR_DTYPE_UNKNOWN, wrapped = EIR_DTYPE_UNKNOWN;
    for (int k = 0; k < n; k++) {
        const eir_karg *a = args[k];
        if (a->kind == EIR_KA_TENSOR && a->t) {
            if (a->t->rank > 0) dim = promote_skip_undefined(dim, a->t->dtype);
            else zero = promote_skip_undefined(zero, a->t->dtype);
        } else if (a->kind == EIR_KA_SCALAR || a->kind == EIR_KA_INT || a->kind == EIR_KA_FLOAT ||
                   a->kind == EIR_KA_BOOL) {
            eir_dtype d = a->s.kind == EIR_SC_BOOL ? EIR_BOOL : a->s.kind == EIR_SC_INT ? EIR_I64
                        : a->s.kind == EIR_SC_FLOAT ? EIR_F32 : EIR_C64;
            wrapped = promote_skip_undefined(wrapped, d);
        }
    }
    return combine_categories(dim, combine_categories(zero, wrapped));
}

int32_t eir_wrap_dim(int64_t dim, int32_t rank) {
    int64_t r = rank > 0 ? rank : 1;
    if (dim < -r || dim >= r) return -1;
    return (int32_t)(dim < 0 ? dim + r : dim);
}

/* ---- kernel scratch: a per-thread cache of freed blocks ---- */

/* Each block carries its capacity in a header aligned like malloc's memory. */
typedef union kblock { size_t cap; max_align_t align; } kblock;

#define KCACHE 16
static _Thread_local kblock *kcache[KCACHE];

/* A thread's cache is freed when the thread exits (a key destructor), so
 * hosts that run eir on short-lived threads do not leak it. */
static pthread_key_t kcache_key;
static pthread_once_t kcache_once = PTHREAD_ONCE_INIT;
static bool kcache_keyed;                  /* written once, under kcache_once */
static _Thread_local bool kcache_armed;
static void kcache_at_exit(void *unused) { (void)unused; eir_kscratch_release(); }
static void kcache_key_create(void) { kcache_keyed = pthread_key_create(&kcache_key, kcache_at_exit) == 0; }

void *eir_kalloc(size_t bytes) {
    if (bytes == 0) bytes = 1;
    int best = -1;
    for (int i = 0; i < KCACHE; i++)
        if (kcache[i] && kcache[i]->cap >= bytes && (best < 0 || kcache[i]->cap < kcache[best]->cap)) best = i;
    if (best >= 0) {
        kblock *b = kcache[best];
        kcache[best] = NULL;
        return b + 1;
    }
    if (bytes > SIZE_MAX - sizeof(kblock)) return NULL;
    kblock *b = malloc(sizeof *b + bytes);
    if (!b) return NULL;
    b->cap = bytes;
    return b + 1;
}

void *eir_kcalloc(size_t n, size_t elem) {
    if (elem && n > SIZE_MAX / elem) return NULL;
    size_t bytes = n * elem;
    void *p = eir_kalloc(bytes);
    if (p && bytes) memset(p, 0, bytes);
    return p;
}

void eir_kfree(void *p) {
    if (!p) return;
    kblock *b = (kblock *)p - 1;
    /* keep it in a free slot, or in place of the smallest cached block if larger */
    int slot = -1;
    for (int i = 0; i < KCACHE && slot < 0; i++)
        if (!kcache[i]) slot = i;
    if (slot < 0) {
        int small = 0;
        for (int i = 1; i < KCACHE; i++)
            if (kcache[i]->cap < kcache[small]->cap) small = i;
        if (kcache[small]->cap >= b->cap) { free(b); return; }
        free(kcache[small]);
        slot = small;
    }
    kcache[slot] = b;
    if (!kcache_armed) {
        pthread_once(&kcache_once, kcache_key_create);
        if (kcache_keyed) pthread_setspecific(kcache_key, kcache);   /* non-NULL: the destructor runs */
        kcache_armed = true;
    }
}

void eir_kscratch_release(void) {
    for (int i = 0; i < KCACHE; i++) {
        free(kcache[i]);
        kcache[i] = NULL;
    }
}

eir_kernel_fn eir_kernel_in(const eir_kernel_entry *table, const char *op) {
    for (const eir_kernel_entry *e = table; e->op; e++)
        if (!strcmp(e->op, op)) return e->fn;
    return NULL;
}

int64_t *eir_tview_offsets(const eir_tview *t, const bool *mask, int64_t *n) {
    int64_t cnt = 1;
    int32_t r = 0;
    int64_t sz[EIR_MAX_RANK], st[EIR_MAX_RANK];
    for (int32_t d = 0; d < t->rank; d++)
        if (mask[d]) { sz[r] = t->sizes[d]; st[r] = t->strides[d]; cnt *= sz[r]; r++; }
    *n = cnt;
    int64_t *off = eir_kalloc((size_t)(cnt > 0 ? cnt : 1) * sizeof *off);
    if (!off) return NULL;
    if (cnt == 0) return off;
    int64_t idx[EIR_MAX_RANK] = {0}, o = 0;
    for (int64_t k = 0; k < cnt; k++) {
        off[k] = o;
        for (int32_t d = r - 1; d >= 0; d--) {
            o += st[d];
            if (++idx[d] < sz[d]) break;
            o -= st[d] * sz[d];
            idx[d] = 0;
        }
    }
    return off;
}

const char *eir_sizes_str(const eir_tview *t, char *buf, size_t n) {
    size_t k = 0;
    if (n < 3) return n ? (*buf = 0, buf) : buf;
    buf[k++] = '[';
    for (int32_t d = 0; d < t->rank && k + 24 < n; d++) k += (size_t)snprintf(buf + k, n - k, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
    snprintf(buf + k, n - k, "]");
    return buf;
}

int eir_scalar_fits(const eir_scalar *s, eir_dtype dt, eir_kctx *ctx) {
    static const struct { eir_dtype d; const char *name; double lo, hi; } lim[] = {
        {EIR_U8, "uint8_t", 0, 255}, {EIR_I8, "int8_t", -128, 127}, {EIR_I16, "int16_t", -32768, 32767},
        {EIR_I32, "int", -2147483648.0, 2147483647.0}, {EIR_I64, "int64_t", -9223372036854775808.0, 9223372036854775807.0},
        {EIR_F16, "c10::Half", -65504.0, 65504.0}, {EIR_BF16, "c10::BFloat16", -3.3895313892515355e38, 3.3895313892515355e38},
        {EIR_F32, "float", -3.4028234663852886e38, 3.4028234663852886e38}};
    bool fl = s->kind == EIR_SC_FLOAT || s->kind == EIR_SC_COMPLEX;
    double v = fl ? s->f : (double)s->i;
    for (size_t k = 0; k < sizeof lim / sizeof lim[0]; k++) {
        if (lim[k].d != dt) continue;
        bool over;
        if (fl) {
            if (eir_is_floating(dt) && (isinf(v) || isnan(v))) over = false;
            else over = isnan(v) || v < lim[k].lo || v > lim[k].hi || (dt == EIR_I64 && v >= 9223372036854775807.0);
        } else if (dt == EIR_U8) {
            over = s->i > 255 || (s->i < 0 && -(uint64_t)s->i > 255);
        } else {
            over = (double)s->i < lim[k].lo || (double)s->i > lim[k].hi;
        }
        return over ? eir_kerr(ctx, "value cannot be converted to type %s without overflow", lim[k].name) : 0;
    }
    return 0;
}

int eir_item_fits(const eir_tview *t, eir_dtype dt, eir_kctx *ctx) {
    if (!t || eir_tview_numel(t) != 1 || eir_is_complex(t->dtype)) return 0;
    eir_scalar s = {EIR_SC_INT, 0, 0, 0};
    if (eir_is_floating(t->dtype)) {
        s.kind = EIR_SC_FLOAT;
        s.f = eir_load_f64(t->data, t->dtype);
    } else {
        s.i = eir_load_i64(t->data, t->dtype);
        s.f = (double)s.i;
    }
    return eir_scalar_fits(&s, dt, ctx);
}

int eir_scalar_arg_fits(const eir_karg *a, eir_dtype dt, eir_kctx *ctx) {
    eir_scalar s = {EIR_SC_INT, 0, 0, 0};
    switch (a->kind) {
    case EIR_KA_SCALAR: s = a->s; break;
    case EIR_KA_INT: s.i = a->i; s.f = (double)a->i; break;
    case EIR_KA_FLOAT: s.kind = EIR_SC_FLOAT; s.f = a->f; break;
    default: return 0; /* tensors, bools, None */
    }
    return eir_scalar_fits(&s, dt, ctx);
}

bool eir_avx512_kernel_default(const char *env, bool *cpu_ok) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    *cpu_ok = __builtin_cpu_supports("avx512f");
    const char *e = getenv(env);
    if (e && e[0] == '0' && !e[1]) return false;
    if (e && e[0] == '1' && !e[1]) return true;
    return __builtin_cpu_is("intel");
#else
    (void)env;
    *cpu_ok = false;
    return false;
#endif
}
