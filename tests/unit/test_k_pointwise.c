/* test_k_pointwise.c — the pointwise kernel family against independent
 * references: double-precision / exact-integer references on random shapes
 * (broadcasting both ways, transposed inputs, strided outputs, empty and 0-d
 * tensors) for every dtype each op supports in torch, plus bit patterns
 * computed with torch 2.13 for float16/bfloat16/float32 rounding cases, and
 * torch's other pointwise ops (hypot, xlogy, gcd, ldexp, frexp, sgn, ...)
 * with the values and messages torch 2.13 gives at their edges. */
#include "base/cmplx.h" /* complex.h, and CMPLX for clang */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "base/pool.h"
#include "kernels/fast.h"
#include "kernels/kutil.h"
#include "kernels/tables.h"

/* ---- values computed with torch 2.13 ----
 * x, y as below; results are the first 8 elements of the op on x, y tiled
 * 8 times, i.e. torch's vectorized path (its scalar tail path rounds some
 * intermediates differently for f16/bf16, e.g. alpha * other in add). */
static const uint16_t h_x[] = {0x3c00, 0x63d0, 0x4200, 0xc100, 0x3554, 0x5418, 0xc7c0, 0x1400};
static const uint16_t h_y[] = {0x2e68, 0xc29a, 0x4166, 0x4980, 0xa11f, 0x4580, 0x5644, 0x3e00};
static const uint16_t h_adds[] = {0x3c66, 0x63d0, 0x4233, 0xc0cd, 0x36ee, 0x541a, 0xc7a6, 0x2e78}; /* x + 0.1001 */
static const uint16_t h_adds_alpha[] = {0x3d56, 0x63d1, 0x42ab, 0xc055, 0x3955, 0x541d, 0xc76b, 0x355b};
static const uint16_t h_muls[] = {0x2e68, 0x5642, 0x34ce, 0xb401, 0x2844, 0x468e, 0xba35, 0x0668}; /* x * 0.1001 */
static const uint16_t h_divs[] = {0x34cd, 0x5cb0, 0x3b33, 0xba00, 0x2e65, 0x4cea, 0xc0a6, 0x0ccd}; /* x / 3.3333 */
static const uint16_t h_rems[] = {0x2e58, 0x2640, 0x2e38, 0x1900, 0x2830, 0x28a0, 0x2b60, 0x1400};
static const uint16_t h_add_alpha[] = {0x3c0a, 0x63cf, 0x428a, 0xbd98, 0x3550, 0x5421, 0x4092, 0x30d6};
static const uint16_t h_mul[] = {0x2e68, 0xea72, 0x480c, 0xcee0, 0x9ad2, 0x5da1, 0xe212, 0x1600};
static const uint16_t h_div[] = {0x48ff, 0xdcbc, 0x3c72, 0xb346, 0xd029, 0x49f4, 0xacf3, 0x1155};
static const uint16_t h_pow3[] = {0x3c00, 0x7c00, 0x4ec0, 0x4bd0, 0x28ba, 0x7c00, 0x5f46, 0x0000};
static const uint16_t h_powm2[] = {0x3c00, 0x0011, 0x2f1c, 0x311f, 0x4882, 0x0ba3, 0x2443, 0x7c00};
static const uint16_t h_powm05[] = {0x3c00, 0x280c, 0x389e, 0x390f, 0x3eee, 0x2fe8, 0x35bf, 0x5000};
static const uint16_t h_sigmoid[] = {0x39d9, 0x3c00, 0x3b9f, 0x2cdb, 0x38a9, 0x3c00, 0x0f0e, 0x3800};
static const uint16_t h_arange[] = {0x0000, 0x34cd, 0x38cd, 0x3b33, 0x3ccd, 0x3e00, 0x3f33};
static const uint16_t h_from_f32[] = {0x2e68, 0x7bff, 0x7c00, 0x0000, 0xfc00, 0x3c00, 0x3c02, 0x7c00};
static const uint16_t b_x[] = {0x3f80, 0x447a, 0x4040, 0xc020, 0x3eaa, 0x4283, 0xc0f8, 0x3a80};
static const uint16_t b_y[] = {0x3dcd, 0xc053, 0x402d, 0x4130, 0xbc24, 0x40b0, 0x42c8, 0x3fc0};
static const uint16_t b_adds[] = {0x3f8d, 0x447a, 0x4046, 0xc01a, 0x3edd, 0x4283, 0xc0f5, 0x3dcf}; /* x + 0.1001 */
static const uint16_t b_adds_alpha[] = {0x3fab, 0x447a, 0x4055, 0xc00b, 0x3f2a, 0x4284, 0xc0ed, 0x3eab};
static const uint16_t b_muls[] = {0x3dcd, 0x42c8, 0x3e9a, 0xbe80, 0x3d08, 0x40d2, 0xbf47, 0x38cd}; /* x * 0.1001 */
static const uint16_t b_divs[] = {0x3e9a, 0x4396, 0x3f66, 0xbf40, 0x3dcc, 0x419d, 0xc015, 0x399a}; /* x / 3.3333 */
static const uint16_t b_rems[] = {0x3dcb, 0x3cc8, 0x3dc7, 0x3b20, 0x3d02, 0x3d14, 0x3d6c, 0x3a80};
static const uint16_t b_add_alpha[] = {0x3f81, 0x447a, 0x4051, 0xbfb3, 0x3ea9, 0x4284, 0x4011, 0x3e1b};
static const uint16_t b_mul[] = {0x3dcd, 0xc54e, 0x4102, 0xc1dc, 0xbb5a, 0x43b4, 0xc442, 0x3ac0};
static const uint16_t b_div[] = {0x4120, 0xc398, 0x3f8e, 0xbe69, 0xc205, 0x413f, 0xbd9f, 0x3a2b};
static const uint16_t b_pow3[] = {0x3f80, 0x4e6e, 0x41d8, 0x417a, 0x3d16, 0x4889, 0x43e8, 0x3080};
static const uint16_t b_powm2[] = {0x3f80, 0x3586, 0x3de4, 0x3e24, 0x4111, 0x3975, 0x3c89, 0x4980};
static const uint16_t b_powm05[] = {0x3f80, 0x3d02, 0x3f14, 0x3f22, 0x3fde, 0x3dfd, 0x3eb8, 0x4200};
static const uint16_t b_sigmoid[] = {0x3f3b, 0x3f80, 0x3f74, 0x3d9b, 0x3f15, 0x3f80, 0x39e2, 0x3f00};
static const uint16_t b_arange[] = {0x0000, 0x3e9a, 0x3f1a, 0x3f66, 0x3f9a, 0x3fc0, 0x3fe6};
static const uint16_t b_from_f32[] = {0x3dcd, 0x4780, 0x4780, 0x322c, 0xff80, 0x3f80, 0x3f80, 0x7f62};
static const float f32_src[] = {0.1001f, 65519.0f, 65520.0f, 1e-8f, -3.4e38f, 1.00048828125f, 1.00146484375f, 3.0e38f};
static const uint32_t f_x[] = {0x3f8ccccd, 0x402ccccd, 0xbe99999a, 0x40b00000};
static const uint32_t f_y[] = {0x40533333, 0xc09ccccd, 0x3f333333, 0x3a83126f};
static const uint32_t f_add_alpha[] = {0x3fb7150e, 0x400d689d, 0xbe6b72c6, 0x40b000d2};
static const uint32_t f_arange[] = {0x00000000, 0x3dcccccd, 0x3e4ccccd, 0x3e99999a, 0x3ecccccd, 0x3f000000, 0x3f19999a, 0x3f333333, 0x3f4ccccd, 0x3f666666};
static const uint32_t f_div_floor[] = {0x00000000, 0xbf800000, 0xbf800000, 0x45abd800};
static const uint32_t f_rem[] = {0x3f8ccccd, 0xc00ccccd, 0x3ecccccc, 0x3a8309ab};
static const uint32_t f_round2[] = {0x3fae147b, 0x40551eb8, 0xbebd70a4, 0x40d947ae};
static const uint32_t f_x2[] = {0x3fadd3b9, 0x4055554c, 0xbebda127, 0x40d948a7};

/* ---- harness ---- */

static eir_kernel_fn K(const char *name) {
    for (const eir_kernel_entry *e = eir_kernels_pointwise; e->op; e++)
        if (!strcmp(e->op, name)) return e->fn;
    fprintf(stderr, "no kernel %s\n", name);
    return NULL;
}

typedef struct T {
    eir_tview v;
    void *buf;
} T;

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double rnd01(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; }

/* layout: 0 contiguous, 1 last two dims transposed, 2 every other element */
static T mk(eir_dtype dt, int rank, const int64_t *sizes, int layout) {
    T t;
    memset(&t, 0, sizeof t);
    t.v.dtype = dt;
    t.v.rank = rank;
    int64_t n = 1;
    for (int i = 0; i < rank; i++) { t.v.sizes[i] = sizes[i]; n *= sizes[i]; }
    if (layout == 1 && rank < 2) layout = 0;
    int64_t st = layout == 2 ? 2 : 1;
    for (int i = rank - 1; i >= 0; i--) { t.v.strides[i] = st; st *= sizes[i] ? sizes[i] : 1; }
    if (layout == 1) {
        int a = rank - 2, b = rank - 1;
        t.v.strides[a] = 1;
        t.v.strides[b] = sizes[a] ? sizes[a] : 1;
        int64_t s2 = sizes[a] * sizes[b];
        for (int i = rank - 3; i >= 0; i--) { t.v.strides[i] = s2 ? s2 : 1; s2 *= sizes[i]; }
    }
    size_t bytes = (size_t)(n * (layout == 2 ? 2 : 1) + 1) * eir_dtype_size(dt);
    t.buf = calloc(1, bytes);
    t.v.data = t.buf;
    return t;
}
static void fr(T *t) { free(t->buf); }

static int64_t numel(const eir_tview *v) {
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++) n *= v->sizes[i];
    return n;
}

/* address of the i-th element in row-major order */
static char *el(const eir_tview *v, int64_t i) {
    int64_t off = 0;
    for (int d = v->rank - 1; d >= 0; d--) {
        int64_t s = v->sizes[d];
        off += (i % s) * v->strides[d];
        i /= s;
    }
    return (char *)v->data + off * (int64_t)eir_dtype_size(v->dtype);
}
/* element of input v broadcast to out's shape at out's row-major index i */
static char *elb(const eir_tview *v, const eir_tview *out, int64_t i) {
    int64_t off = 0;
    for (int d = out->rank - 1; d >= 0; d--) {
        int64_t s = out->sizes[d], k = i % s;
        i /= s;
        int vd = d - (out->rank - v->rank);
        if (vd >= 0 && v->sizes[vd] != 1) off += k * v->strides[vd];
    }
    return (char *)v->data + off * (int64_t)eir_dtype_size(v->dtype);
}

static bool isf(eir_dtype d) { return d == EIR_F16 || d == EIR_BF16 || d == EIR_F32 || d == EIR_F64; }
static bool isc(eir_dtype d) { return d == EIR_C64 || d == EIR_C128; }

/* independent element access (f16/bf16 bit conversions come from kutil and
 * are checked against torch's bit patterns below) */
static double getd(const char *p, eir_dtype d) {
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
    case EIR_BOOL: return *(const uint8_t *)p;
    case EIR_C64: return *(const float *)p;
    case EIR_C128: return *(const double *)p;
    default: return NAN;
    }
}
static double getim(const char *p, eir_dtype d) {
    return d == EIR_C64 ? ((const float *)p)[1] : d == EIR_C128 ? ((const double *)p)[1] : 0;
}
static int64_t geti(const char *p, eir_dtype d) {
    switch (d) {
    case EIR_I64: return *(const int64_t *)p;
    case EIR_I32: return *(const int32_t *)p;
    case EIR_I16: return *(const int16_t *)p;
    case EIR_I8: return *(const int8_t *)p;
    case EIR_U8: return *(const uint8_t *)p;
    case EIR_BOOL: return *(const uint8_t *)p;
    default: return (int64_t)getd(p, d);
    }
}
static void setd(char *p, eir_dtype d, double v) {
    switch (d) {
    case EIR_F32: *(float *)p = (float)v; break;
    case EIR_F64: *(double *)p = v; break;
    case EIR_F16: *(uint16_t *)p = eir_f32_to_f16((float)v); break;
    case EIR_BF16: *(uint16_t *)p = eir_f32_to_bf16((float)v); break;
    case EIR_C64: ((float *)p)[0] = (float)v; ((float *)p)[1] = 0; break;
    case EIR_C128: ((double *)p)[0] = v; ((double *)p)[1] = 0; break;
    default: break;
    }
}
static void setc(char *p, eir_dtype d, double re, double im) {
    if (d == EIR_C64) { ((float *)p)[0] = (float)re; ((float *)p)[1] = (float)im; }
    else { ((double *)p)[0] = re; ((double *)p)[1] = im; }
}
static void seti(char *p, eir_dtype d, int64_t v) {
    switch (d) {
    case EIR_I64: *(int64_t *)p = v; break;
    case EIR_I32: *(int32_t *)p = (int32_t)(uint32_t)(uint64_t)v; break;
    case EIR_I16: *(int16_t *)p = (int16_t)(uint16_t)(uint64_t)v; break;
    case EIR_I8: *(int8_t *)p = (int8_t)(uint8_t)(uint64_t)v; break;
    case EIR_U8: *(uint8_t *)p = (uint8_t)(uint64_t)v; break;
    case EIR_BOOL: *(uint8_t *)p = v != 0; break;
    default: setd(p, d, (double)v); break;
    }
}
/* wrap an exact integer to dtype d */
static int64_t wrapi(int64_t v, eir_dtype d) {
    char b[8];
    seti(b, d, v);
    return geti(b, d);
}
static double roundd(double v, eir_dtype d) {
    char b[16];
    setd(b, d, v);
    return getd(b, d);
}

/* value generators. kind: 0 plain, 1 with specials (nan/inf/-0), 2 positive,
 * 3 nonzero (divisors), 4 in [-1, 1], 5 small shift counts */
static void fill(T *t, int kind) {
    int64_t n = numel(&t->v);
    eir_dtype d = t->v.dtype;
    for (int64_t i = 0; i < n; i++) {
        char *p = el(&t->v, i);
        if (isf(d) || isc(d)) {
            double v = rnd01() * 10 - 5;
            if (kind == 2) v = rnd01() * 5 + 0.01;
            if (kind == 3 && fabs(v) < 0.1) v = 0.5;
            if (kind == 4) v = rnd01() * 1.98 - 0.99;
            if (kind == 1) {
                uint64_t r = rnd64() % 16;
                if (r == 0) v = NAN;
                else if (r == 1) v = INFINITY;
                else if (r == 2) v = -INFINITY;
                else if (r == 3) v = -0.0;
                else if (r == 4) v = 0.0;
                else if (r == 5) v = floor(v);
            }
            if (isc(d)) setc(p, d, v, rnd01() * 4 - 2);
            else setd(p, d, v);
        } else if (d == EIR_BOOL) {
            seti(p, d, kind == 3 ? 1 : (int64_t)(rnd64() & 1));
        } else {
            int64_t v;
            uint64_t r = rnd64();
            if (kind == 5) v = (int64_t)(r % 70) - 3;
            else if (kind == 2) v = (int64_t)(r % 9);
            else if (r % 8 == 0) v = (int64_t)rnd64(); /* extremes: wraps */
            else v = (int64_t)(r % 41) - 20;
            v = wrapi(v, d);
            if (kind == 3 && v == 0) v = -3;
            if (kind == 2 && v < 0) v = -v;
            seti(p, d, wrapi(v, d));
        }
    }
}

static double eps_of(eir_dtype d) {
    switch (d) {
    case EIR_F16: return 9.77e-4;
    case EIR_BF16: return 7.82e-3;
    case EIR_F32: case EIR_C64: return 1.2e-7;
    default: return 2.3e-16;
    }
}

static bool close_to(double got, double want, eir_dtype d, double ulps) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    if (isinf(got) || isnan(got)) {
        /* the reference may overflow one ulp later than the dtype */
        return fabs(want) > (d == EIR_F16 ? 65000 : d == EIR_BF16 ? 3.3e38 : d == EIR_F32 ? 3.4e38 : 1.7e308);
    }
    return fabs(got - want) <= ulps * eps_of(d) * (1 + fabs(want));
}

static int failures_shown;
static void report(const char *op, eir_dtype d, int64_t i, double got, double want) {
    if (failures_shown++ < 30)
        fprintf(stderr, "  %s [%s] element %lld: got %.17g want %.17g\n", op, eir_dtype_name(d), (long long)i, got, want);
}

/* ---- shape cases ---- */

typedef struct shape_case {
    int ra, rb, ro;
    int64_t a[4], b[4], o[4];
    int la, lb, lo;  /* layouts */
} shape_case;

static const shape_case CASES[] = {
    {3, 3, 3, {3, 4, 5}, {3, 4, 5}, {3, 4, 5}, 0, 0, 0},
    {4, 3, 4, {2, 1, 4, 3}, {5, 1, 3}, {2, 5, 4, 3}, 0, 0, 0},          /* both ways */
    {1, 2, 2, {4}, {3, 1}, {3, 4}, 0, 0, 0},
    {2, 2, 2, {5, 6}, {5, 6}, {5, 6}, 1, 0, 0},                         /* transposed a */
    {2, 2, 2, {5, 6}, {1, 6}, {5, 6}, 0, 1, 2},                         /* transposed b, strided out */
    {3, 3, 3, {2, 3, 4}, {2, 3, 4}, {2, 3, 4}, 2, 1, 1},                /* strided a, transposed out */
    {2, 2, 2, {0, 3}, {1, 3}, {0, 3}, 0, 0, 0},                         /* empty */
    {0, 0, 0, {0}, {0}, {0}, 0, 0, 0},                                  /* 0-d */
    {0, 2, 2, {0}, {3, 4}, {3, 4}, 0, 0, 0},                            /* 0-d a */
    {2, 0, 2, {3, 4}, {0}, {3, 4}, 0, 0, 1},                            /* 0-d b */
};
#define NCASES (int)(sizeof CASES / sizeof CASES[0])

/* a random case: rank 1..4, sizes 1..5, random broadcasting and layouts */
static shape_case random_case(void) {
    shape_case c;
    memset(&c, 0, sizeof c);
    c.ro = 1 + (int)(rnd64() % 4);
    for (int i = 0; i < c.ro; i++) c.o[i] = 1 + (int64_t)(rnd64() % 5);
    c.ra = c.ro - (int)(rnd64() % 2);
    c.rb = c.ro - (int)(rnd64() % (unsigned)(c.ro + 1));
    for (int i = 0; i < c.ra; i++) c.a[i] = rnd64() % 4 == 0 ? 1 : c.o[i + c.ro - c.ra];
    for (int i = 0; i < c.rb; i++) c.b[i] = rnd64() % 4 == 0 ? 1 : c.o[i + c.ro - c.rb];
    /* out keeps its sizes: a dim where both inputs are 1 must be 1 in out */
    for (int i = 0; i < c.ro; i++) {
        int ia = i - (c.ro - c.ra), ib = i - (c.ro - c.rb);
        bool one_a = ia < 0 || c.a[ia] == 1, one_b = ib < 0 || c.b[ib] == 1;
        if (one_a && one_b) c.o[i] = 1;
        if (ia >= 0 && c.a[ia] != 1) c.a[ia] = c.o[i];
        if (ib >= 0 && c.b[ib] != 1) c.b[ib] = c.o[i];
    }
    c.la = (int)(rnd64() % 3);
    c.lb = (int)(rnd64() % 3);
    c.lo = (int)(rnd64() % 3);
    return c;
}

static eir_karg targ(const T *t) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_TENSOR;
    a.t = &t->v;
    return a;
}
static eir_karg sarg_f(double f) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_SCALAR;
    a.s.kind = EIR_SC_FLOAT;
    a.s.f = f;
    return a;
}
static eir_karg sarg_i(int64_t i) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_SCALAR;
    a.s.kind = EIR_SC_INT;
    a.s.i = i;
    a.s.f = (double)i;
    return a;
}
static eir_karg karg_none(void) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_NONE;
    return a;
}
static eir_karg karg_str(const char *s) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = s ? EIR_KA_STRING : EIR_KA_NONE;
    a.str = s;
    return a;
}

static char errbuf[256];
static eir_kctx CTX = {.err = errbuf, .errlen = sizeof errbuf, .nthreads = 1};

/* ---- binary driver ----
 * Reference: rd(a, b) in double for float dtypes, ri(a, b) exactly for
 * integers (skip set when torch's result is undefined). */
typedef double (*ref2d)(double a, double b);
typedef int64_t (*ref2i)(int64_t a, int64_t b, eir_dtype d);

typedef struct bin_spec {
    const char *op;
    ref2d rd;
    ref2i ri;
    int kind_a, kind_b;  /* value kinds */
    double ulps;
    bool to_bool;        /* output is bool */
    bool int_to_float;   /* integer inputs give a float32 output */
    const eir_karg *extra; /* extra trailing args (alpha, mode), NULL-terminated by nextra */
    int nextra;
} bin_spec;

static void run_bin_case(const bin_spec *s, eir_dtype dt, const shape_case *c) {
    eir_dtype od = s->to_bool ? EIR_BOOL : (s->int_to_float && !isf(dt) && !isc(dt)) ? EIR_F32 : dt;
    T a = mk(dt, c->ra, c->a, c->la), b = mk(dt, c->rb, c->b, c->lb), o = mk(od, c->ro, c->o, c->lo);
    fill(&a, s->kind_a);
    fill(&b, s->kind_b);
    eir_karg args[5] = {targ(&a), targ(&b)};
    for (int i = 0; i < s->nextra; i++) args[2 + i] = s->extra[i];
    int rc = K(s->op)(args, (uint32_t)(2 + s->nextra), &o.v, 1, &CTX);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  %s [%s]: %s\n", s->op, eir_dtype_name(dt), errbuf);
    int64_t n = numel(&o.v);
    int bad = 0;
    for (int64_t i = 0; i < n && !rc; i++) {
        const char *pa = elb(&a.v, &o.v, i), *pb = elb(&b.v, &o.v, i);
        const char *po = el(&o.v, i);
        if (isf(dt) || (s->int_to_float && od == EIR_F32)) {
            double va = getd(pa, dt), vb = getd(pb, dt);
            if (!isf(dt)) { va = roundd(va, EIR_F32); vb = roundd(vb, EIR_F32); } /* torch computes in float32 */
            double want = s->rd(va, vb);
            double got = getd(po, od);
            if (od == EIR_BOOL) { if (got != (want != 0)) { bad++; report(s->op, dt, i, got, want); } }
            else if (!close_to(got, roundd(want, od), od, s->ulps)) { bad++; report(s->op, dt, i, got, want); }
        } else {
            int64_t want = s->ri(geti(pa, dt), geti(pb, dt), dt);
            int64_t got = geti(po, od);
            want = wrapi(want, od);
            if (got != want) { bad++; report(s->op, dt, i, (double)got, (double)want); }
        }
    }
    CHECK(bad == 0);
    fr(&a); fr(&b); fr(&o);
}

static void run_bin(const bin_spec *s, const eir_dtype *dts, int ndt) {
    for (int k = 0; k < ndt; k++) {
        for (int c = 0; c < NCASES; c++) run_bin_case(s, dts[k], &CASES[c]);
        for (int r = 0; r < 6; r++) {
            shape_case c = random_case();
            run_bin_case(s, dts[k], &c);
        }
    }
}

/* ---- unary driver ---- */
typedef double (*ref1d)(double a);
typedef int64_t (*ref1i)(int64_t a, eir_dtype d);
typedef struct un_spec {
    const char *op;
    ref1d rd;
    ref1i ri;
    int kind;
    double ulps;
    bool to_bool, int_to_float;
    const eir_karg *extra;
    int nextra;
} un_spec;

static void run_un_case(const un_spec *s, eir_dtype dt, const shape_case *c) {
    eir_dtype od = s->to_bool ? EIR_BOOL : (s->int_to_float && !isf(dt)) ? EIR_F32 : dt;
    T a = mk(dt, c->ra, c->a, c->la), o = mk(od, c->ra, c->a, c->lo);
    fill(&a, s->kind);
    eir_karg args[5] = {targ(&a)};
    for (int i = 0; i < s->nextra; i++) args[1 + i] = s->extra[i];
    int rc = K(s->op)(args, (uint32_t)(1 + s->nextra), &o.v, 1, &CTX);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  %s [%s]: %s\n", s->op, eir_dtype_name(dt), errbuf);
    int64_t n = numel(&o.v);
    int bad = 0;
    for (int64_t i = 0; i < n && !rc; i++) {
        const char *pa = el(&a.v, i), *po = el(&o.v, i);
        if (isf(dt) || od == EIR_F32 || !s->ri) {
            double va = getd(pa, dt);
            if (od == EIR_F32 && !isf(dt)) va = roundd(va, EIR_F32); /* torch computes in float32 */
            double want = s->rd(va), got = getd(po, od);
            if (od == EIR_BOOL) { if (got != (want != 0)) { bad++; report(s->op, dt, i, got, want); } }
            else if (!close_to(got, roundd(want, od), od, s->ulps)) { bad++; report(s->op, dt, i, got, want); }
        } else {
            int64_t want = wrapi(s->ri(geti(pa, dt), dt), od), got = geti(po, od);
            if (got != want) { bad++; report(s->op, dt, i, (double)got, (double)want); }
        }
    }
    CHECK(bad == 0);
    fr(&a); fr(&o);
}

static void run_un(const un_spec *s, const eir_dtype *dts, int ndt) {
    for (int k = 0; k < ndt; k++) {
        for (int c = 0; c < NCASES; c++) run_un_case(s, dts[k], &CASES[c]);
        for (int r = 0; r < 4; r++) {
            shape_case c = random_case();
            run_un_case(s, dts[k], &c);
        }
    }
}

/* ---- references ---- */
static int64_t uadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t usub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t umul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int bits_of(eir_dtype d) { return (int)eir_dtype_size(d) * 8; }
static bool signed_of(eir_dtype d) { return d != EIR_U8 && d != EIR_BOOL; }

static double r_add(double a, double b) { return a + b; }
static int64_t ri_add(int64_t a, int64_t b, eir_dtype d) { (void)d; return uadd(a, b); }
static double r_add_alpha(double a, double b) { return a + 2.5 * b; }
static int64_t ri_add_alpha(int64_t a, int64_t b, eir_dtype d) { (void)d; return uadd(a, umul(3, b)); }
static double r_sub(double a, double b) { return a - b; }
static int64_t ri_sub(int64_t a, int64_t b, eir_dtype d) { (void)d; return usub(a, b); }
static double r_rsub(double a, double b) { return b - a; }
static int64_t ri_rsub(int64_t a, int64_t b, eir_dtype d) { (void)d; return usub(b, a); }
static double r_mul(double a, double b) { return a * b; }
static int64_t ri_mul(int64_t a, int64_t b, eir_dtype d) { return d == EIR_BOOL ? (a && b) : umul(a, b); }
static double r_div(double a, double b) { return a / b; }
static double r_divtrunc(double a, double b) { return trunc(a / b); }
static int64_t ri_divtrunc(int64_t a, int64_t b, eir_dtype d) { (void)d; return b == -1 ? usub(0, a) : a / b; }
static double r_divfloor(double a, double b) { return floor(a / b); }
static int64_t ri_divfloor(int64_t a, int64_t b, eir_dtype d) {
    (void)d;
    if (b == -1) return usub(0, a);
    int64_t q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0))) q--;
    return q;
}
static double r_rem(double a, double b) { return a - b * floor(a / b); }
static int64_t ri_rem(int64_t a, int64_t b, eir_dtype d) {
    (void)d;
    if (b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static double r_fmod(double a, double b) { return fmod(a, b); }
static int64_t ri_fmod(int64_t a, int64_t b, eir_dtype d) { (void)d; return b == -1 ? 0 : a % b; }
static double r_pow(double a, double b) { return pow(a, b); }
static int64_t ri_pow(int64_t a, int64_t b, eir_dtype d) {
    (void)d;
    int64_t r = 1;
    for (int64_t i = 0; i < b; i++) r = umul(r, a);
    return r;
}
static double r_max(double a, double b) { return isnan(a) || isnan(b) ? NAN : a > b ? a : b; }
static int64_t ri_max(int64_t a, int64_t b, eir_dtype d) { (void)d; return a > b ? a : b; }
static double r_min(double a, double b) { return isnan(a) || isnan(b) ? NAN : a < b ? a : b; }
static int64_t ri_min(int64_t a, int64_t b, eir_dtype d) { (void)d; return a < b ? a : b; }
static double r_atan2(double a, double b) { return atan2(a, b); }
static int64_t ri_shl(int64_t a, int64_t b, eir_dtype d) {
    if (b < 0 || b >= bits_of(d)) return 0;
    return (int64_t)((uint64_t)a << b);
}
static int64_t ri_shr(int64_t a, int64_t b, eir_dtype d) {
    int m = bits_of(d) - (signed_of(d) ? 1 : 0);
    if (b < 0 || b >= m) b = m;
    if (d == EIR_U8) return b >= 8 ? 0 : (int64_t)((uint64_t)a >> b);
    return a < 0 ? ~((~a) >> b) : a >> b;
}
static int64_t ri_and(int64_t a, int64_t b, eir_dtype d) { (void)d; return a & b; }
static int64_t ri_or(int64_t a, int64_t b, eir_dtype d) { (void)d; return a | b; }
static int64_t ri_xor(int64_t a, int64_t b, eir_dtype d) { (void)d; return a ^ b; }
static double r_land(double a, double b) { return a != 0 && b != 0; }
static int64_t ri_land(int64_t a, int64_t b, eir_dtype d) { (void)d; return a != 0 && b != 0; }
static double r_lor(double a, double b) { return a != 0 || b != 0; }
static int64_t ri_lor(int64_t a, int64_t b, eir_dtype d) { (void)d; return a != 0 || b != 0; }
static double r_lxor(double a, double b) { return (a != 0) != (b != 0); }
static int64_t ri_lxor(int64_t a, int64_t b, eir_dtype d) { (void)d; return (a != 0) != (b != 0); }
static double r_eq(double a, double b) { return a == b; }
static int64_t ri_eq(int64_t a, int64_t b, eir_dtype d) { (void)d; return a == b; }
static double r_ne(double a, double b) { return a != b; }
static int64_t ri_ne(int64_t a, int64_t b, eir_dtype d) { (void)d; return a != b; }
static double r_lt(double a, double b) { return a < b; }
static int64_t ri_lt(int64_t a, int64_t b, eir_dtype d) { (void)d; return a < b; }
static double r_le(double a, double b) { return a <= b; }
static int64_t ri_le(int64_t a, int64_t b, eir_dtype d) { (void)d; return a <= b; }
static double r_gt(double a, double b) { return a > b; }
static int64_t ri_gt(int64_t a, int64_t b, eir_dtype d) { (void)d; return a > b; }
static double r_ge(double a, double b) { return a >= b; }
static int64_t ri_ge(int64_t a, int64_t b, eir_dtype d) { (void)d; return a >= b; }

static double u_neg(double a) { return -a; }
static int64_t ui_neg(int64_t a, eir_dtype d) { (void)d; return usub(0, a); }
static double u_abs(double a) { return fabs(a); }
static int64_t ui_abs(int64_t a, eir_dtype d) { (void)d; return a < 0 ? usub(0, a) : a; }
static double u_sign(double a) { return a > 0 ? 1 : a < 0 ? -1 : 0; }
static int64_t ui_sign(int64_t a, eir_dtype d) { (void)d; return a > 0 ? 1 : a < 0 ? -1 : 0; }
static int64_t ui_id(int64_t a, eir_dtype d) { (void)d; return a; }
static double u_rsqrt(double a) { return 1 / sqrt(a); }
static double u_recip(double a) { return 1 / a; }
static double u_sigmoid(double a) { return 1 / (1 + exp(-a)); }
static double u_frac(double a) { return a - trunc(a); }
static double u_relu(double a) { return isnan(a) ? a : a > 0 ? a : 0; }
static int64_t ui_relu(int64_t a, eir_dtype d) { (void)d; return a > 0 ? a : 0; }
static double u_gelu(double a) { return 0.5 * a * (1 + erf(a / sqrt(2))); }
static double u_gelu_tanh(double a) { return 0.5 * a * (1 + tanh(sqrt(2 / M_PI) * (a + 0.044715 * a * a * a))); }
static double u_silu(double a) { return a / (1 + exp(-a)); }
static double u_mish(double a) { return a * tanh(log(1 + exp(a))); }
static double u_hardswish(double a) { return a * fmin(fmax(a + 3, 0), 6) / 6; }
static double u_hardsigmoid(double a) { return fmin(fmax(a + 3, 0), 6) / 6; }
static double u_hardtanh(double a) { return isnan(a) ? a : a < -1 ? -1 : a > 1 ? 1 : a; }
static int64_t ui_hardtanh(int64_t a, eir_dtype d) { (void)d; return a < -1 ? -1 : a > 1 ? 1 : a; }
static double u_elu(double a) { return a > 0 ? 1.5 * a : 0.7 * 1.5 * (exp(a * 2) - 1); }  /* alpha .7 scale 1.5 input_scale 2 */
static double u_leaky(double a) { return a > 0 ? a : 0.2 * a; }
static double u_softplus(double a) { return a * 2 > 3 ? a : log(1 + exp(2 * a)) / 2; } /* beta 2, threshold 3 */
static double u_lnot(double a) { return a == 0; }
static int64_t ui_lnot(int64_t a, eir_dtype d) { (void)d; return a == 0; }
static int64_t ui_bnot(int64_t a, eir_dtype d) { return d == EIR_BOOL ? !a : ~a; }
static double u_isnan(double a) { return isnan(a); }
static int64_t ui_false(int64_t a, eir_dtype d) { (void)a; (void)d; return 0; }
static double u_isinf(double a) { return isinf(a); }
static double u_isfinite(double a) { return isfinite(a); }
static int64_t ui_true(int64_t a, eir_dtype d) { (void)a; (void)d; return 1; }
static double u_nan2num(double a) { return isnan(a) ? 0 : a == INFINITY ? 7 : a == -INFINITY ? -8 : a; }
static double u_clamp(double a) { return isnan(a) ? a : a < -1.5 ? -1.5 : a > 2.25 ? 2.25 : a; }
/* the bounds are converted to the tensor's dtype first: -2 is 254 for uint8 */
static int64_t ui_clamp(int64_t a, eir_dtype d) {
    int64_t lo = wrapi(-2, d), hi = wrapi(7, d), r = a < lo ? lo : a;
    return r > hi ? hi : r;
}
static double u_clamp_min(double a) { return isnan(a) ? a : a < 0.5 ? 0.5 : a; }
static double u_pow2(double a) { return a * a; }
static double u_pow_17(double a) { return pow(a, 1.7); }
static double u_round2(double a) { return nearbyint(a * 100) / 100; }

static const eir_dtype FLOATS[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
static const eir_dtype INTS[] = {EIR_I64, EIR_I32, EIR_I16, EIR_I8, EIR_U8};
static const eir_dtype ALL[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I64, EIR_I32, EIR_I16, EIR_I8, EIR_U8, EIR_BOOL};
static const eir_dtype NUM[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I64, EIR_I32, EIR_I16, EIR_I8, EIR_U8};
static const eir_dtype SIGNED[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I64, EIR_I32, EIR_I16, EIR_I8};
static const eir_dtype INTB[] = {EIR_I64, EIR_I32, EIR_I16, EIR_I8, EIR_U8, EIR_BOOL};
#define N(a) (int)(sizeof(a) / sizeof((a)[0]))

static void test_binary(void) {
    eir_karg alpha1 = sarg_i(1), alpha25 = sarg_f(2.5), alpha3 = sarg_i(3);
    eir_karg mtrunc = karg_str("trunc"), mfloor = karg_str("floor"), mnone = karg_str(NULL);
    bin_spec specs_all[] = {
        {"aten.add.Tensor", r_add, ri_add, 1, 1, 1, false, false, &alpha1, 1},
        {"aten.mul.Tensor", r_mul, ri_mul, 1, 1, 1, false, false, NULL, 0},
        {"aten.maximum.default", r_max, ri_max, 1, 1, 0, false, false, NULL, 0},
        {"aten.minimum.default", r_min, ri_min, 1, 1, 0, false, false, NULL, 0},
        {"aten.logical_and.default", r_land, ri_land, 1, 0, 0, true, false, NULL, 0},
        {"aten.logical_or.default", r_lor, ri_lor, 1, 0, 0, true, false, NULL, 0},
        {"aten.logical_xor.default", r_lxor, ri_lxor, 1, 0, 0, true, false, NULL, 0},
        {"aten.eq.Tensor", r_eq, ri_eq, 1, 1, 0, true, false, NULL, 0},
        {"aten.ne.Tensor", r_ne, ri_ne, 1, 1, 0, true, false, NULL, 0},
        {"aten.lt.Tensor", r_lt, ri_lt, 1, 1, 0, true, false, NULL, 0},
        {"aten.le.Tensor", r_le, ri_le, 1, 1, 0, true, false, NULL, 0},
        {"aten.gt.Tensor", r_gt, ri_gt, 1, 1, 0, true, false, NULL, 0},
        {"aten.ge.Tensor", r_ge, ri_ge, 1, 1, 0, true, false, NULL, 0},
        {"aten.div.Tensor", r_div, NULL, 1, 3, 1, false, true, NULL, 0},
        {"aten.div.Tensor_mode", r_div, NULL, 1, 3, 1, false, true, &mnone, 1},
    };
    for (int i = 0; i < N(specs_all); i++) run_bin(&specs_all[i], ALL, N(ALL));
    bin_spec specs_num[] = {
        {"aten.sub.Tensor", r_sub, ri_sub, 1, 1, 1, false, false, &alpha1, 1},
        {"aten.rsub.Tensor", r_rsub, ri_rsub, 1, 1, 1, false, false, &alpha1, 1},
        {"aten.div.Tensor_mode", r_divtrunc, ri_divtrunc, 0, 3, 1, false, false, &mtrunc, 1},
        {"aten.div.Tensor_mode", r_divfloor, ri_divfloor, 0, 3, 1, false, false, &mfloor, 1},
        {"aten.floor_divide.default", r_divfloor, ri_divfloor, 0, 3, 1, false, false, NULL, 0},
        {"aten.remainder.Tensor", r_rem, ri_rem, 0, 3, 8, false, false, NULL, 0},
        {"aten.fmod.Tensor", r_fmod, ri_fmod, 0, 3, 1, false, false, NULL, 0},
        {"aten.pow.Tensor_Tensor", r_pow, ri_pow, 2, 2, 4, false, false, NULL, 0},
        {"aten.atan2.default", r_atan2, NULL, 1, 1, 2, false, true, NULL, 0},
    };
    for (int i = 0; i < N(specs_num); i++) run_bin(&specs_num[i], NUM, N(NUM));
    /* alpha: floats 2.5, integers 3 */
    bin_spec add_a = {"aten.add.Tensor", r_add_alpha, NULL, 0, 0, 2, false, false, &alpha25, 1};
    run_bin(&add_a, FLOATS, N(FLOATS));
    bin_spec add_ai = {"aten.add.Tensor", NULL, ri_add_alpha, 0, 0, 0, false, false, &alpha3, 1};
    run_bin(&add_ai, INTS, N(INTS));
    bin_spec specs_int[] = {
        {"aten.__lshift__.Tensor", NULL, ri_shl, 0, 5, 0, false, false, NULL, 0},
        {"aten.bitwise_left_shift.Tensor", NULL, ri_shl, 0, 5, 0, false, false, NULL, 0},
        {"aten.__rshift__.Tensor", NULL, ri_shr, 0, 5, 0, false, false, NULL, 0},
        {"aten.bitwise_right_shift.Tensor", NULL, ri_shr, 0, 5, 0, false, false, NULL, 0},
    };
    for (int i = 0; i < N(specs_int); i++) run_bin(&specs_int[i], INTS, N(INTS));
    bin_spec specs_intb[] = {
        {"aten.bitwise_and.Tensor", NULL, ri_and, 0, 0, 0, false, false, NULL, 0},
        {"aten.bitwise_or.Tensor", NULL, ri_or, 0, 0, 0, false, false, NULL, 0},
        {"aten.bitwise_xor.Tensor", NULL, ri_xor, 0, 0, 0, false, false, NULL, 0},
        {"aten.__and__.Tensor", NULL, ri_and, 0, 0, 0, false, false, NULL, 0},
        {"aten.__or__.Tensor", NULL, ri_or, 0, 0, 0, false, false, NULL, 0},
        {"aten.__xor__.Tensor", NULL, ri_xor, 0, 0, 0, false, false, NULL, 0},
    };
    for (int i = 0; i < N(specs_intb); i++) run_bin(&specs_intb[i], INTB, N(INTB));
}

static void test_unary(void) {
    eir_karg ap_none = karg_str("none"), ap_tanh = karg_str("tanh");
    eir_karg elu_args[3] = {sarg_f(0.7), sarg_f(1.5), sarg_i(2)};
    eir_karg leaky_arg = sarg_f(0.2);
    eir_karg sp_args[2] = {sarg_i(2), sarg_i(3)};
    eir_karg n2n[3];
    memset(n2n, 0, sizeof n2n);
    n2n[0].kind = EIR_KA_NONE;
    n2n[1].kind = EIR_KA_FLOAT; n2n[1].f = 7;
    n2n[2].kind = EIR_KA_FLOAT; n2n[2].f = -8;
    eir_karg cl_f[2] = {sarg_f(-1.5), sarg_f(2.25)}, cl_i[2] = {sarg_i(-2), sarg_i(7)};
    eir_karg cmin = sarg_f(0.5);
    eir_karg e2 = sarg_i(2), e17 = sarg_f(1.7);
    eir_karg dec2;
    memset(&dec2, 0, sizeof dec2);
    dec2.kind = EIR_KA_INT; dec2.i = 2;
    /* same-dtype ops over numbers */
    un_spec same[] = {
        {"aten.neg.default", u_neg, ui_neg, 1, 0, false, false, NULL, 0},
        {"aten.abs.default", u_abs, ui_abs, 1, 0, false, false, NULL, 0},
        {"aten.sign.default", u_sign, ui_sign, 1, 0, false, false, NULL, 0},
        {"aten.floor.default", floor, ui_id, 1, 0, false, false, NULL, 0},
        {"aten.ceil.default", ceil, ui_id, 1, 0, false, false, NULL, 0},
        {"aten.round.default", nearbyint, ui_id, 1, 0, false, false, NULL, 0},
        {"aten.trunc.default", trunc, ui_id, 1, 0, false, false, NULL, 0},
        {"aten.relu.default", u_relu, ui_relu, 1, 0, false, false, NULL, 0},
        {"aten.relu_.default", u_relu, ui_relu, 1, 0, false, false, NULL, 0},
        {"aten.clamp.default", u_clamp, NULL, 1, 0, false, false, cl_f, 2},
        {"aten.clamp_min.default", u_clamp_min, NULL, 1, 0, false, false, &cmin, 1},
    };
    for (int i = 0; i < N(same); i++) run_un(&same[i], same[i].ri ? NUM : FLOATS, same[i].ri ? N(NUM) : N(FLOATS));
    /* hardtanh's default limits are negative: torch refuses unsigned tensors */
    un_spec ht = {"aten.hardtanh.default", u_hardtanh, ui_hardtanh, 1, 0, false, false, NULL, 0};
    run_un(&ht, SIGNED, N(SIGNED));
    int64_t s3[1] = {3};
    T hu = mk(EIR_U8, 1, s3, 0), hou = mk(EIR_U8, 1, s3, 0);
    eir_karg hta[1] = {targ(&hu)};
    CHECK(K("aten.hardtanh.default")(hta, 1, &hou.v, 1, &CTX) == -1);
    CHECK_STR(errbuf, "cannot do hardtanh on an unsigned type with negative limits");
    fr(&hu); fr(&hou);
    un_spec cli = {"aten.clamp.default", NULL, ui_clamp, 0, 0, false, false, cl_i, 2};
    run_un(&cli, INTS, N(INTS));
    /* float functions: integer inputs give float32 */
    un_spec fl[] = {
        {"aten.exp.default", exp, NULL, 1, 4, false, true, NULL, 0},
        {"aten.exp2.default", exp2, NULL, 1, 4, false, true, NULL, 0},
        {"aten.expm1.default", expm1, NULL, 1, 4, false, true, NULL, 0},
        {"aten.log.default", log, NULL, 2, 4, false, true, NULL, 0},
        {"aten.log2.default", log2, NULL, 2, 4, false, true, NULL, 0},
        {"aten.log10.default", log10, NULL, 2, 4, false, true, NULL, 0},
        {"aten.log1p.default", log1p, NULL, 2, 4, false, true, NULL, 0},
        {"aten.sqrt.default", sqrt, NULL, 2, 1, false, true, NULL, 0},
        {"aten.rsqrt.default", u_rsqrt, NULL, 2, 2, false, true, NULL, 0},
        {"aten.reciprocal.default", u_recip, NULL, 3, 1, false, true, NULL, 0},
        {"aten.sin.default", sin, NULL, 1, 4, false, true, NULL, 0},
        {"aten.cos.default", cos, NULL, 1, 4, false, true, NULL, 0},
        {"aten.tan.default", tan, NULL, 4, 4, false, true, NULL, 0},
        {"aten.asin.default", asin, NULL, 4, 4, false, true, NULL, 0},
        {"aten.acos.default", acos, NULL, 4, 4, false, true, NULL, 0},
        {"aten.atan.default", atan, NULL, 1, 4, false, true, NULL, 0},
        {"aten.sinh.default", sinh, NULL, 1, 4, false, true, NULL, 0},
        {"aten.cosh.default", cosh, NULL, 1, 4, false, true, NULL, 0},
        {"aten.tanh.default", tanh, NULL, 1, 4, false, true, NULL, 0},
        {"aten.asinh.default", asinh, NULL, 1, 4, false, true, NULL, 0},
        {"aten.acosh.default", acosh, NULL, 2, 4, false, true, NULL, 0},
        {"aten.atanh.default", atanh, NULL, 4, 4, false, true, NULL, 0},
        {"aten.sigmoid.default", u_sigmoid, NULL, 1, 4, false, true, NULL, 0},
        {"aten.erf.default", erf, NULL, 1, 4, false, true, NULL, 0},
        {"aten.erfc.default", erfc, NULL, 1, 4, false, true, NULL, 0},
    };
    for (int i = 0; i < N(fl); i++) run_un(&fl[i], NUM, N(NUM));
    un_spec fo[] = {
        {"aten.frac.default", u_frac, NULL, 1, 1, false, false, NULL, 0},
        {"aten.gelu.default", u_gelu, NULL, 1, 4, false, false, &ap_none, 1},
        {"aten.gelu.default", u_gelu_tanh, NULL, 1, 4, false, false, &ap_tanh, 1},
        {"aten.silu.default", u_silu, NULL, 1, 4, false, false, NULL, 0},
        {"aten.mish.default", u_mish, NULL, 1, 4, false, false, NULL, 0},
        {"aten.hardswish.default", u_hardswish, NULL, 1, 2, false, false, NULL, 0},
        {"aten.hardsigmoid.default", u_hardsigmoid, NULL, 1, 2, false, false, NULL, 0},
        {"aten.elu.default", u_elu, NULL, 1, 4, false, false, elu_args, 3},
        {"aten.leaky_relu.default", u_leaky, NULL, 1, 1, false, false, &leaky_arg, 1},
        {"aten.softplus.default", u_softplus, NULL, 0, 4, false, false, sp_args, 2},
        {"aten.nan_to_num.default", u_nan2num, NULL, 1, 0, false, false, n2n, 3},
        {"aten.pow.Tensor_Scalar", u_pow2, NULL, 1, 1, false, false, &e2, 1},
        {"aten.pow.Tensor_Scalar", u_pow_17, NULL, 2, 4, false, false, &e17, 1},
        {"aten.round.decimals", u_round2, NULL, 0, 1, false, false, &dec2, 1},
    };
    for (int i = 0; i < N(fo); i++) run_un(&fo[i], FLOATS, N(FLOATS));
    un_spec pr[] = {
        {"aten.logical_not.default", u_lnot, ui_lnot, 1, 0, true, false, NULL, 0},
        {"aten.isnan.default", u_isnan, ui_false, 1, 0, true, false, NULL, 0},
        {"aten.isinf.default", u_isinf, ui_false, 1, 0, true, false, NULL, 0},
        {"aten.isfinite.default", u_isfinite, ui_true, 1, 0, true, false, NULL, 0},
    };
    for (int i = 0; i < N(pr); i++) run_un(&pr[i], ALL, N(ALL));
    un_spec bn = {"aten.bitwise_not.default", NULL, ui_bnot, 0, 0, false, false, NULL, 0};
    run_un(&bn, INTB, N(INTB));
}

/* ---- torch bit patterns ---- */

static T vec16(eir_dtype dt, const uint16_t *bits, int n) {
    int64_t sz[1] = {n};
    T t = mk(dt, 1, sz, 0);
    memcpy(t.buf, bits, (size_t)n * 2);
    return t;
}

static void check_bits16(const char *what, const T *o, const uint16_t *want, int n) {
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (((const uint16_t *)o->buf)[i] != want[i]) {
            if (bad++ < 4) fprintf(stderr, "  %s[%d]: got 0x%04x want 0x%04x\n", what, i, ((const uint16_t *)o->buf)[i], want[i]);
        }
    CHECK(bad == 0);
}

static void torch_half_case(eir_dtype dt, const uint16_t *x, const uint16_t *y, const uint16_t *adds,
                            const uint16_t *adds_alpha, const uint16_t *muls, const uint16_t *divs, const uint16_t *rems,
                            const uint16_t *add_alpha, const uint16_t *mul, const uint16_t *div, const uint16_t *pow3,
                            const uint16_t *powm2, const uint16_t *powm05, const uint16_t *sigm, const uint16_t *ar,
                            const uint16_t *from_f32) {
    T a = vec16(dt, x, 8), b = vec16(dt, y, 8), o = vec16(dt, x, 8);
    eir_karg one = sarg_i(1), s01 = sarg_f(0.1001), s33 = sarg_f(3.3333), al = sarg_f(0.1001);
    eir_karg args[3];
    args[0] = targ(&a); args[1] = s01; args[2] = one;
    CHECK(K("aten.add.Scalar")(args, 3, &o.v, 1, &CTX) == 0); check_bits16("add.Scalar", &o, adds, 8);
    args[1] = s33; args[2] = al;
    CHECK(K("aten.add.Scalar")(args, 3, &o.v, 1, &CTX) == 0); check_bits16("add.Scalar alpha", &o, adds_alpha, 8);
    args[1] = s01;
    CHECK(K("aten.mul.Scalar")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("mul.Scalar", &o, muls, 8);
    args[1] = s33;
    CHECK(K("aten.div.Scalar")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("div.Scalar", &o, divs, 8);
    args[1] = s01;
    CHECK(K("aten.remainder.Scalar")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("remainder.Scalar", &o, rems, 8);
    args[1] = targ(&b); args[2] = al;
    CHECK(K("aten.add.Tensor")(args, 3, &o.v, 1, &CTX) == 0); check_bits16("add alpha", &o, add_alpha, 8);
    CHECK(K("aten.mul.Tensor")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("mul", &o, mul, 8);
    CHECK(K("aten.div.Tensor")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("div", &o, div, 8);
    CHECK(K("aten.sigmoid.default")(args, 1, &o.v, 1, &CTX) == 0); check_bits16("sigmoid", &o, sigm, 8);
    /* pow of |x| */
    T ab = vec16(dt, x, 8);
    args[0] = targ(&a);
    CHECK(K("aten.abs.default")(args, 1, &ab.v, 1, &CTX) == 0);
    args[0] = targ(&ab);
    args[1] = sarg_i(3);
    CHECK(K("aten.pow.Tensor_Scalar")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("pow 3", &o, pow3, 8);
    args[1] = sarg_i(-2);
    CHECK(K("aten.pow.Tensor_Scalar")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("pow -2", &o, powm2, 8);
    args[1] = sarg_f(-0.5);
    CHECK(K("aten.pow.Tensor_Scalar")(args, 2, &o.v, 1, &CTX) == 0); check_bits16("pow -0.5", &o, powm05, 8);
    /* arange(0, 2, 0.3) */
    T r = vec16(dt, x, 7);
    eir_karg aa[3] = {sarg_i(0), sarg_i(2), sarg_f(0.3)};
    CHECK(K("aten.arange.start_step")(aa, 3, &r.v, 1, &CTX) == 0); check_bits16("arange", &r, ar, 7);
    /* float32 -> dt */
    int64_t sz[1] = {8};
    T f = mk(EIR_F32, 1, sz, 0);
    memcpy(f.buf, f32_src, sizeof f32_src);
    args[0] = targ(&f);
    CHECK(K("aten._to_copy.default")(args, 1, &o.v, 1, &CTX) == 0); check_bits16("f32 ->", &o, from_f32, 8);
    fr(&a); fr(&b); fr(&o); fr(&ab); fr(&r); fr(&f);
}

static void check_bits32(const char *what, const T *o, const uint32_t *want, int n) {
    int bad = 0;
    for (int i = 0; i < n; i++)
        if (((const uint32_t *)o->buf)[i] != want[i]) {
            if (bad++ < 4) fprintf(stderr, "  %s[%d]: got 0x%08x want 0x%08x\n", what, i, ((const uint32_t *)o->buf)[i], want[i]);
        }
    CHECK(bad == 0);
}

static void test_torch_bits(void) {
    torch_half_case(EIR_F16, h_x, h_y, h_adds, h_adds_alpha, h_muls, h_divs, h_rems, h_add_alpha, h_mul, h_div, h_pow3,
                    h_powm2, h_powm05, h_sigmoid, h_arange, h_from_f32);
    torch_half_case(EIR_BF16, b_x, b_y, b_adds, b_adds_alpha, b_muls, b_divs, b_rems, b_add_alpha, b_mul, b_div, b_pow3,
                    b_powm2, b_powm05, b_sigmoid, b_arange, b_from_f32);
    int64_t sz[1] = {4}, s10[1] = {10};
    T x = mk(EIR_F32, 1, sz, 0), y = mk(EIR_F32, 1, sz, 0), o = mk(EIR_F32, 1, sz, 0), x2 = mk(EIR_F32, 1, sz, 0);
    memcpy(x.buf, f_x, 16); memcpy(y.buf, f_y, 16); memcpy(x2.buf, f_x2, 16);
    eir_karg args[3] = {targ(&x), targ(&y), sarg_f(0.1001)};
    CHECK(K("aten.add.Tensor")(args, 3, &o.v, 1, &CTX) == 0); check_bits32("f32 add alpha (fma)", &o, f_add_alpha, 4);
    args[2] = karg_str("floor");
    CHECK(K("aten.div.Tensor_mode")(args, 3, &o.v, 1, &CTX) == 0); check_bits32("f32 div floor", &o, f_div_floor, 4);
    CHECK(K("aten.remainder.Tensor")(args, 2, &o.v, 1, &CTX) == 0); check_bits32("f32 remainder", &o, f_rem, 4);
    args[0] = targ(&x2);
    memset(&args[1], 0, sizeof args[1]);
    args[1].kind = EIR_KA_INT; args[1].i = 2;
    CHECK(K("aten.round.decimals")(args, 2, &o.v, 1, &CTX) == 0); check_bits32("f32 round(decimals=2)", &o, f_round2, 4);
    T r = mk(EIR_F32, 1, s10, 0);
    eir_karg aa[3] = {sarg_i(0), sarg_i(1), sarg_f(0.1)};
    CHECK(K("aten.arange.start_step")(aa, 3, &r.v, 1, &CTX) == 0); check_bits32("f32 arange", &r, f_arange, 10);
    fr(&x); fr(&y); fr(&o); fr(&x2); fr(&r);
}

/* ---- casts, fills, selection, errors, complex ---- */

static void test_casts(void) {
    const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I64, EIR_I32, EIR_I16, EIR_I8, EIR_U8, EIR_BOOL};
    const char *ops[] = {"aten._to_copy.default", "aten.clone.default", "aten.contiguous.default"};
    for (int s = 0; s < N(dts); s++)
        for (int d = 0; d < N(dts); d++) {
            shape_case c = CASES[(s + d) % NCASES];
            if (s == d) c = CASES[4];
            T a = mk(dts[s], c.ra, c.a, c.la), o = mk(dts[d], c.ra, c.a, c.lo);
            fill(&a, 0);
            eir_karg args[1] = {targ(&a)};
            CHECK(K(ops[(s * 3 + d) % 3])(args, 1, &o.v, 1, &CTX) == 0);
            int bad = 0;
            for (int64_t i = 0; i < numel(&o.v); i++) {
                const char *pa = el(&a.v, i), *po = el(&o.v, i);
                if (dts[d] == EIR_BOOL) bad += geti(po, EIR_BOOL) != (getd(pa, dts[s]) != 0);
                else if (isf(dts[d])) bad += getd(po, dts[d]) != roundd(getd(pa, dts[s]), dts[d]);
                else if (isf(dts[s])) bad += geti(po, dts[d]) != wrapi((int64_t)trunc(getd(pa, dts[s])), dts[d]);
                else bad += geti(po, dts[d]) != wrapi(geti(pa, dts[s]), dts[d]);
            }
            CHECK(bad == 0);
            if (bad) fprintf(stderr, "  cast %s -> %s: %d bad\n", eir_dtype_name(dts[s]), eir_dtype_name(dts[d]), bad);
            fr(&a); fr(&o);
        }
    /* float -> narrow ints as torch on x86 */
    int64_t sz[1] = {5};
    T f = mk(EIR_F32, 1, sz, 0);
    float fv[5] = {3e9f, 300.5f, -1.5f, NAN, -3e9f};
    memcpy(f.buf, fv, sizeof fv);
    T i32 = mk(EIR_I32, 1, sz, 0), u8 = mk(EIR_U8, 1, sz, 0), i8 = mk(EIR_I8, 1, sz, 0), i64 = mk(EIR_I64, 1, sz, 0);
    eir_karg args[1] = {targ(&f)};
    CHECK(K("aten._to_copy.default")(args, 1, &i32.v, 1, &CTX) == 0);
    CHECK(K("aten._to_copy.default")(args, 1, &u8.v, 1, &CTX) == 0);
    CHECK(K("aten._to_copy.default")(args, 1, &i8.v, 1, &CTX) == 0);
    CHECK(K("aten.to.dtype")(args, 1, &i64.v, 1, &CTX) == 0);
    const int32_t w32[5] = {INT32_MIN, 300, -1, INT32_MIN, INT32_MIN};
    const uint8_t wu8[5] = {0, 44, 255, 0, 0};
    const int8_t wi8[5] = {0, 44, -1, 0, 0};
    const int64_t w64[5] = {3000000000, 300, -1, INT64_MIN, -3000000000};
    CHECK(!memcmp(i32.buf, w32, sizeof w32));
    CHECK(!memcmp(u8.buf, wu8, sizeof wu8));
    CHECK(!memcmp(i8.buf, wi8, sizeof wi8));
    CHECK(!memcmp(i64.buf, w64, sizeof w64));
    fr(&f); fr(&i32); fr(&u8); fr(&i8); fr(&i64);
    /* copy.default: src broadcast into self's shape and dtype */
    int64_t s23[2] = {2, 3}, s3[1] = {3};
    T self = mk(EIR_F32, 2, s23, 0), src = mk(EIR_I64, 1, s3, 0), out = mk(EIR_F32, 2, s23, 1);
    for (int i = 0; i < 3; i++) ((int64_t *)src.buf)[i] = i * 10 - 7;
    eir_karg ca[2] = {targ(&self), targ(&src)};
    CHECK(K("aten.copy.default")(ca, 2, &out.v, 1, &CTX) == 0);
    CHECK(getd(el(&out.v, 4), EIR_F32) == 3 && getd(el(&out.v, 2), EIR_F32) == 13 && getd(el(&out.v, 3), EIR_F32) == -7);
    /* dropout */
    eir_karg da[3] = {targ(&self), karg_none(), karg_none()};
    da[1].kind = EIR_KA_FLOAT; da[1].f = 0.5;
    da[2].kind = EIR_KA_BOOL; da[2].i = 0;
    CHECK(K("aten.dropout.default")(da, 3, &out.v, 1, &CTX) == 0);
    for (int i = 0; i < 6; i++) CHECK(getd(el(&out.v, i), EIR_F32) == getd(el(&self.v, i), EIR_F32));
    /* in training: each element dropped (0) or scaled by 1 / (1 - p), from the runtime's generator */
    da[2].i = 1;
    CHECK(K("aten.dropout.default")(da, 3, &out.v, 1, &CTX) == -1); /* no generator */
    uint64_t gen = 42;
    eir_kctx rctx = CTX;
    rctx.rng = &gen;
    for (int i = 0; i < 6; i++) setd(el(&self.v, i), EIR_F32, 1.5 + i);
    int dropped = 0;
    for (int r = 0; r < 20; r++) {
        CHECK(K("aten.dropout.default")(da, 3, &out.v, 1, &rctx) == 0);
        for (int i = 0; i < 6; i++) {
            double y = getd(el(&out.v, i), EIR_F32);
            CHECK(y == 0 || y == 2 * (1.5 + i));
            dropped += y == 0;
        }
    }
    CHECK(dropped > 30 && dropped < 90); /* 120 draws at p = 0.5 */
    fr(&self); fr(&src); fr(&out);
}

static void test_fills(void) {
    int64_t s23[2] = {2, 3}, s0[1] = {0};
    T o = mk(EIR_F16, 2, s23, 1), oi = mk(EIR_I32, 2, s23, 2), ob = mk(EIR_BOOL, 2, s23, 0), e = mk(EIR_F32, 1, s0, 0);
    eir_karg fa[2] = {karg_none(), sarg_f(2.7)};
    fa[0].kind = EIR_KA_INTS;
    CHECK(K("aten.full.default")(fa, 2, &o.v, 1, &CTX) == 0);
    CHECK(getd(el(&o.v, 5), EIR_F16) == roundd(2.7, EIR_F16));
    CHECK(K("aten.full.default")(fa, 2, &oi.v, 1, &CTX) == 0);
    CHECK(geti(el(&oi.v, 3), EIR_I32) == 2);
    CHECK(K("aten.fill.Scalar")(fa, 2, &ob.v, 1, &CTX) == 0);
    CHECK(geti(el(&ob.v, 1), EIR_BOOL) == 1);
    CHECK(K("aten.full.default")(fa, 2, &e.v, 1, &CTX) == 0);
    CHECK(K("aten.zeros_like.default")(fa, 1, &oi.v, 1, &CTX) == 0);
    CHECK(geti(el(&oi.v, 5), EIR_I32) == 0);
    CHECK(K("aten.ones.default")(fa, 1, &o.v, 1, &CTX) == 0);
    CHECK(getd(el(&o.v, 0), EIR_F16) == 1 && getd(el(&o.v, 5), EIR_F16) == 1);
    CHECK(K("aten.empty.memory_format")(fa, 1, &o.v, 1, &CTX) == 0);
    CHECK(getd(el(&o.v, 3), EIR_F16) == 0);
    /* fill.Tensor with a 0-d value */
    int64_t none[1] = {0};
    T v = mk(EIR_F64, 0, none, 0);
    *(double *)v.buf = -4.5;
    eir_karg ft[2] = {targ(&oi), targ(&v)};
    CHECK(K("aten.fill.Tensor")(ft, 2, &oi.v, 1, &CTX) == 0);
    CHECK(geti(el(&oi.v, 4), EIR_I32) == -4);
    T sc = mk(EIR_I64, 0, none, 0);
    eir_karg st[1] = {sarg_i(-9)};
    CHECK(K("aten.scalar_tensor.default")(st, 1, &sc.v, 1, &CTX) == 0);
    CHECK(*(int64_t *)sc.buf == -9);
    /* arange on integers and float64 */
    int64_t s4[1] = {4}, s5[1] = {5};
    T ai = mk(EIR_I64, 1, s4, 2), ad = mk(EIR_F64, 1, s5, 0);
    eir_karg aa[3] = {sarg_i(-3), sarg_i(10), sarg_i(4)};
    CHECK(K("aten.arange.start_step")(aa, 3, &ai.v, 1, &CTX) == 0);
    CHECK(geti(el(&ai.v, 0), EIR_I64) == -3 && geti(el(&ai.v, 3), EIR_I64) == 9);
    eir_karg a5[1] = {sarg_i(5)};
    CHECK(K("aten.arange.default")(a5, 1, &ad.v, 1, &CTX) == 0);
    CHECK(((double *)ad.buf)[4] == 4.0);
    eir_karg a0[2] = {sarg_i(2), sarg_i(7)};
    CHECK(K("aten.arange.start")(a0, 2, &ad.v, 1, &CTX) == 0);
    CHECK(((double *)ad.buf)[0] == 2.0 && ((double *)ad.buf)[4] == 6.0);
    fr(&o); fr(&oi); fr(&ob); fr(&e); fr(&v); fr(&sc); fr(&ai); fr(&ad);
}

static void test_select(void) {
    /* where(cond [3,1], a [4] f32, b 0-d f64) -> f32 [3,4]... out dtype decides */
    int64_t s31[2] = {3, 1}, s4[1] = {4}, s34[2] = {3, 4}, none[1] = {0};
    T c = mk(EIR_BOOL, 2, s31, 0), a = mk(EIR_F32, 1, s4, 0), b = mk(EIR_F32, 0, none, 0), o = mk(EIR_F32, 2, s34, 1);
    uint8_t cv[3] = {1, 0, 1};
    memcpy(c.buf, cv, 3);
    fill(&a, 1);
    *(float *)b.buf = -7.5f;
    eir_karg wa[3] = {targ(&c), targ(&a), targ(&b)};
    CHECK(K("aten.where.self")(wa, 3, &o.v, 1, &CTX) == 0);
    int bad = 0;
    for (int i = 0; i < 12; i++) {
        double want = cv[i / 4] ? getd(el(&a.v, i % 4), EIR_F32) : -7.5;
        double got = getd(el(&o.v, i), EIR_F32);
        bad += !(got == want || (isnan(got) && isnan(want)));
    }
    CHECK(bad == 0);
    wa[2] = sarg_f(0.25);
    CHECK(K("aten.where.ScalarOther")(wa, 3, &o.v, 1, &CTX) == 0);
    CHECK(getd(el(&o.v, 5), EIR_F32) == 0.25);
    /* masked_fill(self [3,4] i64 transposed, mask [3,1], value) */
    T s = mk(EIR_I64, 2, s34, 1), oi = mk(EIR_I64, 2, s34, 0);
    fill(&s, 0);
    eir_karg ma[3] = {targ(&s), targ(&c), sarg_i(-100)};
    CHECK(K("aten.masked_fill.Scalar")(ma, 3, &oi.v, 1, &CTX) == 0);
    bad = 0;
    for (int i = 0; i < 12; i++) bad += geti(el(&oi.v, i), EIR_I64) != (cv[i / 4] ? -100 : geti(el(&s.v, i), EIR_I64));
    CHECK(bad == 0);
    T val = mk(EIR_I64, 0, none, 0);
    *(int64_t *)val.buf = 42;
    ma[2] = targ(&val);
    CHECK(K("aten.masked_fill.Tensor")(ma, 3, &oi.v, 1, &CTX) == 0);
    CHECK(geti(el(&oi.v, 0), EIR_I64) == 42 && geti(el(&oi.v, 4), EIR_I64) == geti(el(&s.v, 4), EIR_I64));
    /* clamp.Tensor with a NaN bound propagates NaN; min > max gives max */
    T x = mk(EIR_F32, 1, s4, 0), lo = mk(EIR_F32, 0, none, 0), hi = mk(EIR_F32, 1, s4, 0), ox = mk(EIR_F32, 1, s4, 0);
    float xv[4] = {NAN, -2, 0.5f, 3}, hv[4] = {1, 1, NAN, -5};
    memcpy(x.buf, xv, 16); memcpy(hi.buf, hv, 16);
    *(float *)lo.buf = 0;
    eir_karg cl[3] = {targ(&x), targ(&lo), targ(&hi)};
    CHECK(K("aten.clamp.Tensor")(cl, 3, &ox.v, 1, &CTX) == 0);
    float *r = ox.buf;
    CHECK(isnan(r[0]) && r[1] == 0 && isnan(r[2]) && r[3] == -5);
    cl[1] = karg_none();
    CHECK(K("aten.clamp.Tensor")(cl, 3, &ox.v, 1, &CTX) == 0);
    CHECK(isnan(r[0]) && r[1] == -2 && isnan(r[2]) && r[3] == -5);
    eir_karg cm[2] = {targ(&x), sarg_f(NAN)};
    CHECK(K("aten.clamp_max.default")(cm, 2, &ox.v, 1, &CTX) == 0);
    CHECK(isnan(r[1]) && isnan(r[3]));
    /* hardtanh_ and add_ write through a view of self */
    eir_karg ht[3] = {targ(&x), sarg_f(-1), sarg_f(1)};
    CHECK(K("aten.hardtanh_.default")(ht, 3, &x.v, 1, &CTX) == 0);
    CHECK(isnan(r[0]) && ((float *)x.buf)[1] == -1 && ((float *)x.buf)[3] == 1);
    eir_karg ad[3] = {targ(&x), targ(&x), sarg_i(1)};
    CHECK(K("aten.add_.Tensor")(ad, 3, &x.v, 1, &CTX) == 0);
    CHECK(((float *)x.buf)[1] == -2 && ((float *)x.buf)[2] == 1);
    /* lerp */
    eir_karg le[3] = {targ(&hi), targ(&lo), sarg_f(0.25)};
    CHECK(K("aten.lerp.Scalar")(le, 3, &ox.v, 1, &CTX) == 0);
    CHECK(r[0] == 0.75f && r[3] == -3.75f);
    fr(&c); fr(&a); fr(&b); fr(&o); fr(&s); fr(&oi); fr(&val); fr(&x); fr(&lo); fr(&hi); fr(&ox);
}

static void test_scalars_errors(void) {
    int64_t s4[1] = {4};
    T x = mk(EIR_I32, 1, s4, 0), ob = mk(EIR_BOOL, 1, s4, 0), of = mk(EIR_F32, 1, s4, 0), oi = mk(EIR_I32, 1, s4, 0);
    int32_t xv[4] = {2, 3, -7, INT32_MIN};
    memcpy(x.buf, xv, 16);
    /* comparisons promote: int tensor vs 2.5 compares as float */
    eir_karg a[3] = {targ(&x), sarg_f(2.5), sarg_i(1)};
    CHECK(K("aten.lt.Scalar")(a, 2, &ob.v, 1, &CTX) == 0);
    CHECK(((uint8_t *)ob.buf)[0] == 1 && ((uint8_t *)ob.buf)[1] == 0);
    a[1] = sarg_i(2);
    CHECK(K("aten.eq.Scalar")(a, 2, &ob.v, 1, &CTX) == 0);
    CHECK(((uint8_t *)ob.buf)[0] == 1 && ((uint8_t *)ob.buf)[2] == 0);
    /* int tensor + float scalar -> float32 */
    a[1] = sarg_f(0.5);
    CHECK(K("aten.add.Scalar")(a, 3, &of.v, 1, &CTX) == 0);
    CHECK(((float *)of.buf)[2] == -6.5f);
    /* int wraparound, rsub, shifts and bitwise with scalars */
    a[1] = sarg_i(-1);
    CHECK(K("aten.add.Scalar")(a, 3, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[3] == INT32_MAX);
    a[1] = sarg_i(10);
    CHECK(K("aten.rsub.Scalar")(a, 3, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[2] == 17);
    a[1] = sarg_i(1);
    CHECK(K("aten.__lshift__.Scalar")(a, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[2] == -14 && ((int32_t *)oi.buf)[3] == 0);
    CHECK(K("aten.__rshift__.Scalar")(a, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[2] == -4);
    a[1] = sarg_i(6);
    CHECK(K("aten.bitwise_and.Scalar")(a, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[1] == 2);
    CHECK(K("aten.bitwise_xor.Scalar")(a, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[1] == 5);
    CHECK(K("aten.bitwise_or.Scalar")(a, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[1] == 7);
    /* integer floor/trunc/remainder with a negative divisor */
    a[1] = sarg_i(-2);
    CHECK(K("aten.remainder.Scalar")(a, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[1] == -1 && ((int32_t *)oi.buf)[2] == -1);
    CHECK(K("aten.fmod.Scalar")(a, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[1] == 1 && ((int32_t *)oi.buf)[2] == -1);
    eir_karg dm[3] = {targ(&x), sarg_i(-2), karg_str("floor")};
    CHECK(K("aten.div.Scalar_mode")(dm, 3, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[1] == -2 && ((int32_t *)oi.buf)[2] == 3);
    dm[2] = karg_str("trunc");
    CHECK(K("aten.div.Scalar_mode")(dm, 3, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[1] == -1 && ((int32_t *)oi.buf)[2] == 3);
    dm[2] = karg_none();
    CHECK(K("aten.div.Scalar_mode")(dm, 3, &of.v, 1, &CTX) == 0);
    CHECK(((float *)of.buf)[2] == 3.5f);
    /* errors */
    a[1] = sarg_i(0);
    CHECK(K("aten.remainder.Scalar")(a, 2, &oi.v, 1, &CTX) == -1);
    CHECK_STR(errbuf, "ZeroDivisionError");
    CHECK(K("aten.floor_divide.default")(a, 2, &oi.v, 1, &CTX) == -1);
    CHECK_STR(errbuf, "ZeroDivisionError");
    a[1] = sarg_i(-1);
    CHECK(K("aten.pow.Tensor_Scalar")(a, 2, &oi.v, 1, &CTX) == -1);
    CHECK_STR(errbuf, "Integers to negative integer powers are not allowed.");
    T bo = mk(EIR_BOOL, 1, s4, 0);
    eir_karg bs[3] = {targ(&bo), targ(&bo), sarg_i(1)};
    CHECK(K("aten.sub.Tensor")(bs, 3, &ob.v, 1, &CTX) == -1);
    CHECK_STR(errbuf, "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
                      "`logical_xor()` operator instead.");
    T fx = mk(EIR_F32, 1, s4, 0);
    eir_karg fb[2] = {targ(&fx), targ(&fx)};
    CHECK(K("aten.bitwise_and.Tensor")(fb, 2, &of.v, 1, &CTX) == -1);
    CHECK_STR(errbuf, "\"bitwise_and_cpu\" not implemented for 'Float'");
    /* pow.Scalar: 2 ** int tensor */
    eir_karg ps[2] = {sarg_i(2), targ(&x)};
    xv[3] = 30;
    memcpy(x.buf, xv, 16);
    CHECK(K("aten.pow.Scalar")(ps, 2, &oi.v, 1, &CTX) == 0);
    CHECK(((int32_t *)oi.buf)[0] == 4 && ((int32_t *)oi.buf)[2] == 0 && ((int32_t *)oi.buf)[3] == 1 << 30);
    fr(&x); fr(&ob); fr(&of); fr(&oi); fr(&bo); fr(&fx);
}

static void test_complex(void) {
    const eir_dtype cts[2] = {EIR_C64, EIR_C128};
    const char *bops[4] = {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor"};
    const char *uops[3] = {"aten.neg.default", "aten.exp.default", "aten.abs.default"};
    for (int k = 0; k < 2; k++) {
        eir_dtype dt = cts[k];
        const shape_case *c = &CASES[1];
        T a = mk(dt, c->ra, c->a, 1), b = mk(dt, c->rb, c->b, 0), o = mk(dt, c->ro, c->o, 2);
        T ob = mk(EIR_BOOL, c->ro, c->o, 0), oa = mk(dt == EIR_C64 ? EIR_F32 : EIR_F64, c->ra, c->a, 0);
        T ou = mk(dt, c->ra, c->a, 0);
        fill(&a, 0);
        fill(&b, 3);
        eir_karg args[3] = {targ(&a), targ(&b), sarg_i(1)};
        double tol = dt == EIR_C64 ? 1e-5 : 1e-13;
        for (int op = 0; op < 4; op++) {
            CHECK(K(bops[op])(args, op < 2 ? 3 : 2, &o.v, 1, &CTX) == 0);
            int bad = 0;
            for (int64_t i = 0; i < numel(&o.v); i++) {
                const char *pa = elb(&a.v, &o.v, i), *pb = elb(&b.v, &o.v, i), *po = el(&o.v, i);
                double complex x = CMPLX(getd(pa, dt), getim(pa, dt)), y = CMPLX(getd(pb, dt), getim(pb, dt));
                double complex w = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
                double complex g = CMPLX(getd(po, dt), getim(po, dt));
                bad += cabs(g - w) > tol * (1 + cabs(w));
            }
            CHECK(bad == 0);
        }
        CHECK(K("aten.eq.Tensor")(args, 2, &ob.v, 1, &CTX) == 0);
        args[1] = targ(&a);
        CHECK(K("aten.eq.Tensor")(args, 2, &ou.v, 0, &CTX) == -1); /* nout checked */
        for (int op = 0; op < 3; op++) {
            T *out = op == 2 ? &oa : &ou;
            CHECK(K(uops[op])(args, 1, &out->v, 1, &CTX) == 0);
            int bad = 0;
            for (int64_t i = 0; i < numel(&a.v); i++) {
                const char *pa = el(&a.v, i);
                double complex x = CMPLX(getd(pa, dt), getim(pa, dt));
                double complex w = op == 0 ? -x : op == 1 ? cexp(x) : cabs(x);
                const char *po = el(&out->v, i);
                double complex g = CMPLX(getd(po, out->v.dtype), getim(po, out->v.dtype));
                bad += cabs(g - w) > tol * (1 + cabs(w));
            }
            CHECK(bad == 0);
        }
        fr(&a); fr(&b); fr(&o); fr(&ob); fr(&oa); fr(&ou);
    }
}

/* Operands of another integer dtype are first converted to the computation
 * dtype, as torch's TensorIterator casts them: a Python -2 or a 0-d int32
 * tensor meets a uint8 tensor as 254. Reference: the exact operation on the
 * operands wrapped with wrapi(). */
static void test_mixed_int_operands(void) {
    int64_t s6[1] = {6};
    const eir_dtype dts[4] = {EIR_U8, EIR_I8, EIR_I16, EIR_I32};
    const int64_t scal[4] = {-2, 300, -129, -3};
    for (int k = 0; k < 4; k++) {
        eir_dtype dt = dts[k];
        T x = mk(dt, 1, s6, 0), ob = mk(EIR_BOOL, 1, s6, 0), o = mk(dt, 1, s6, 0);
        const int64_t xv[6] = {0, 1, 7, 200, -5, 127};
        for (int i = 0; i < 6; i++) seti(el(&x.v, i), dt, wrapi(xv[i], dt));
        for (int j = 0; j < 4; j++) {
            int64_t sv = scal[j], w = wrapi(sv, dt);
            /* comparisons, minimum, remainder, trunc division and clamp against a Python int */
            eir_karg a[3] = {targ(&x), sarg_i(sv), karg_str("trunc")};
            CHECK(K("aten.gt.Scalar")(a, 2, &ob.v, 1, &CTX) == 0);
            for (int i = 0; i < 6; i++) CHECK(geti(el(&ob.v, i), EIR_BOOL) == (geti(el(&x.v, i), dt) > w));
            if (w != 0) {
                CHECK(K("aten.div.Scalar_mode")(a, 3, &o.v, 1, &CTX) == 0);
                for (int i = 0; i < 6; i++) CHECK(geti(el(&o.v, i), dt) == wrapi(geti(el(&x.v, i), dt) / w, dt));
                CHECK(K("aten.remainder.Scalar")(a, 2, &o.v, 1, &CTX) == 0);
                for (int i = 0; i < 6; i++) {
                    int64_t xi = geti(el(&x.v, i), dt), r = xi % w;
                    if (r != 0 && (r < 0) != (w < 0)) r += w;
                    CHECK(geti(el(&o.v, i), dt) == r);
                }
            }
            /* clamp converts its bounds with torch's checked_convert: a bound the type cannot hold is
             * refused (uint8 takes -255..255, wrapping the negatives) */
            eir_karg cl[3] = {targ(&x), sarg_i(sv), sarg_i(5)};
            bool fits = dt == EIR_U8 ? sv >= -255 && sv <= 255 : sv == w;
            CHECK((K("aten.clamp.default")(cl, 3, &o.v, 1, &CTX) == 0) == fits);
            for (int i = 0; fits && i < 6; i++) {
                int64_t xi = geti(el(&x.v, i), dt), r = xi < w ? w : xi;
                CHECK(geti(el(&o.v, i), dt) == (r > 5 ? 5 : r));
            }
            if (!fits) CHECK(strstr(errbuf, "without overflow") != NULL);
            /* a 0-d int32 tensor does not promote a uint8/int8/int16 tensor: it is wrapped */
            int64_t s0[1] = {1};
            T z = mk(EIR_I32, 0, s0, 0);
            *(int32_t *)z.buf = (int32_t)sv;
            eir_karg m[2] = {targ(&x), targ(&z)};
            CHECK(K("aten.minimum.default")(m, 2, &o.v, 1, &CTX) == 0);
            for (int i = 0; i < 6; i++) {
                int64_t xi = geti(el(&x.v, i), dt), wz = wrapi((int32_t)sv, dt);
                CHECK(geti(el(&o.v, i), dt) == (wz < xi ? wz : xi));
            }
            fr(&z);
        }
        fr(&x); fr(&ob); fr(&o);
    }
}

/* Complex results as torch computes them: products by the schoolbook
 * formula (no C99 Annex G recovery of infinities), pow's special exponents
 * as products and square roots, and every complex function of the Core ATen
 * opset, against the C library in double (c10's formulas for log1p/expm1). */
static void test_complex_torch_semantics(void) {
    int64_t s4[1] = {4}, s1[1] = {1};
    T x = mk(EIR_C128, 1, s4, 0), o = mk(EIR_C128, 1, s4, 0), y = mk(EIR_C128, 1, s4, 0);
    const double xr[4] = {INFINITY, 0.3, -1.5, 2.0}, xi[4] = {2.0, -0.7, 0.25, INFINITY};
    for (int i = 0; i < 4; i++) { setc(el(&x.v, i), EIR_C128, xr[i], xi[i]); setc(el(&y.v, i), EIR_C128, 1.0, 0.0); }
    /* (0 + 0i) + (inf + 2i) * alpha: alpha is the complex 1 + 0i, so inf * 0 makes the imaginary part NaN */
    eir_karg a[3] = {targ(&y), targ(&x), sarg_i(1)};
    CHECK(K("aten.add.Tensor")(a, 3, &o.v, 1, &CTX) == 0);
    CHECK(getd(el(&o.v, 0), EIR_C128) == INFINITY && isnan(getim(el(&o.v, 0), EIR_C128)));
    CHECK(fabs(getd(el(&o.v, 1), EIR_C128) - 1.3) < 1e-15 && getim(el(&o.v, 1), EIR_C128) == -0.7);
    /* pow(z, 2) is z * z: (2 + inf i)^2 = (4 - inf^2) + (inf + inf)i = -inf + inf i, where cpow gives NaN */
    eir_karg p[2] = {targ(&x), sarg_i(2)};
    CHECK(K("aten.pow.Tensor_Scalar")(p, 2, &o.v, 1, &CTX) == 0);
    CHECK(getd(el(&o.v, 3), EIR_C128) == -INFINITY && getim(el(&o.v, 3), EIR_C128) == INFINITY);
    double complex z1 = CMPLX(0.3, -0.7), g1 = CMPLX(getd(el(&o.v, 1), EIR_C128), getim(el(&o.v, 1), EIR_C128));
    CHECK(cabs(g1 - z1 * z1) < 1e-15);
    p[1] = sarg_f(0.5);
    CHECK(K("aten.pow.Tensor_Scalar")(p, 2, &o.v, 1, &CTX) == 0);
    g1 = CMPLX(getd(el(&o.v, 1), EIR_C128), getim(el(&o.v, 1), EIR_C128));
    CHECK(cabs(g1 - csqrt(z1)) < 1e-15);
    p[1] = sarg_f(1.7);
    CHECK(K("aten.pow.Tensor_Scalar")(p, 2, &o.v, 1, &CTX) == 0);
    g1 = CMPLX(getd(el(&o.v, 2), EIR_C128), getim(el(&o.v, 2), EIR_C128));
    CHECK(cabs(g1 - cpow(CMPLX(-1.5, 0.25), 1.7)) < 1e-14);
    /* the unary functions, c64 and c128, on values off the branch cuts */
    const char *names[14] = {"aten.acos.default", "aten.acosh.default", "aten.asin.default", "aten.asinh.default",
                             "aten.atan.default", "aten.atanh.default", "aten.cosh.default", "aten.sinh.default",
                             "aten.tan.default", "aten.expm1.default", "aten.log10.default", "aten.log1p.default",
                             "aten.log2.default", "aten.rsqrt.default"};
    for (int c = 0; c < 2; c++) {
        eir_dtype dt = c ? EIR_C128 : EIR_C64;
        T u = mk(dt, 1, s4, 0), r = mk(dt, 1, s4, 0);
        const double ur[4] = {0.3, -1.2, 2.5, 1e-9}, ui[4] = {0.4, 0.8, -0.6, -2e-9};
        for (int i = 0; i < 4; i++) setc(el(&u.v, i), dt, ur[i], ui[i]);
        eir_karg ua[1] = {targ(&u)};
        for (int f = 0; f < 14; f++) {
            CHECK(K(names[f])(ua, 1, &r.v, 1, &CTX) == 0);
            for (int i = 0; i < 4; i++) {
                double complex z = CMPLX(getd(el(&u.v, i), dt), getim(el(&u.v, i), dt)), w;
                switch (f) {
                case 0: w = cacos(z); break;
                case 1: w = cacosh(z); break;
                case 2: w = casin(z); break;
                case 3: w = casinh(z); break;
                case 4: w = catan(z); break;
                case 5: w = catanh(z); break;
                case 6: w = ccosh(z); break;
                case 7: w = csinh(z); break;
                case 8: w = ctan(z); break;
                case 9: w = cexp(z) - 1; break;
                case 10: w = clog(z) / log(10.0); break;
                case 11: w = clog(1 + z); break;
                case 12: w = clog(z) / log(2.0); break;
                default: w = 1 / csqrt(z); break;
                }
                /* near 0, expm1 and log1p must keep the relative precision exp - 1 and log(1 + z) lose */
                if (i == 3 && f == 9) w = z + z * z / 2;
                if (i == 3 && f == 11) w = z - z * z / 2;
                double complex g = CMPLX(getd(el(&r.v, i), dt), getim(el(&r.v, i), dt));
                double tol = (c ? 1e-13 : 1e-6) * (cabs(w) + (i == 3 ? 0 : 1));
                if (!(cabs(g - w) <= tol)) {
                    fprintf(stderr, "  %s [%s] %d: got %g%+gi want %g%+gi\n", names[f], eir_dtype_name(dt), i, creal(g), cimag(g),
                            creal(w), cimag(w));
                    CHECK(0);
                }
            }
        }
        fr(&u); fr(&r);
    }
    /* float16 pow is plain pow (no sqrt for 0.5): (-inf)^0.5 = inf; bfloat16 and float32 take sqrt: NaN */
    T h = mk(EIR_F16, 1, s1, 0), ho = mk(EIR_F16, 1, s1, 0), b = mk(EIR_BF16, 1, s1, 0), bo = mk(EIR_BF16, 1, s1, 0);
    setd(h.buf, EIR_F16, -INFINITY);
    setd(b.buf, EIR_BF16, -INFINITY);
    eir_karg ph[2] = {targ(&h), sarg_f(0.5)}, pb[2] = {targ(&b), sarg_f(0.5)};
    CHECK(K("aten.pow.Tensor_Scalar")(ph, 2, &ho.v, 1, &CTX) == 0);
    CHECK(getd(ho.buf, EIR_F16) == INFINITY);
    CHECK(K("aten.pow.Tensor_Scalar")(pb, 2, &bo.v, 1, &CTX) == 0);
    CHECK(isnan(getd(bo.buf, EIR_BF16)));
    /* the exponent is rounded to the tensor's half type: 2^1.7 in bfloat16 is 2^1.703125 */
    setd(b.buf, EIR_BF16, 2.0);
    pb[1] = sarg_f(1.7);
    CHECK(K("aten.pow.Tensor_Scalar")(pb, 2, &bo.v, 1, &CTX) == 0);
    CHECK(getd(bo.buf, EIR_BF16) == roundd(pow(2.0, 1.703125), EIR_BF16));
    setd(h.buf, EIR_F16, 3.0);
    ph[1] = sarg_f(1.7);
    CHECK(K("aten.pow.Tensor_Scalar")(ph, 2, &ho.v, 1, &CTX) == 0);
    CHECK(getd(ho.buf, EIR_F16) == roundd(powf(3.0f, (float)roundd(1.7, EIR_F16)), EIR_F16));
    /* bfloat16 trunc division rounds the quotient first: 8 / -0.80078125 = -9.99 is -10 in bfloat16 */
    T bn = mk(EIR_BF16, 1, s1, 0);
    setd(b.buf, EIR_BF16, 8.0);
    setd(bn.buf, EIR_BF16, -0.80078125);
    eir_karg dt3[3] = {targ(&b), targ(&bn), karg_str("trunc")};
    CHECK(K("aten.div.Tensor_mode")(dt3, 3, &bo.v, 1, &CTX) == 0);
    CHECK(getd(bo.buf, EIR_BF16) == -10.0);
    dt3[2] = karg_str("floor");
    CHECK(K("aten.div.Tensor_mode")(dt3, 3, &bo.v, 1, &CTX) == 0);
    CHECK(getd(bo.buf, EIR_BF16) == -10.0);
    /* complex division as c10::complex (torch 2.13: 1/0 = inf + nan i, 1/(inf + 1i) = 0 + 0i,
     * 1/(3 - 4i) = 0.12 + 0.16i, rsqrt(inf i) = 1/(inf + inf i) = nan + nan i) */
    T rz = mk(EIR_C128, 1, s4, 0), ro = mk(EIR_C128, 1, s4, 0);
    const double rr[4] = {0, INFINITY, 3, 0}, ri[4] = {0, 1, -4, INFINITY};
    for (int i = 0; i < 4; i++) setc(el(&rz.v, i), EIR_C128, rr[i], ri[i]);
    eir_karg ra[1] = {targ(&rz)};
    CHECK(K("aten.reciprocal.default")(ra, 1, &ro.v, 1, &CTX) == 0);
    CHECK(getd(el(&ro.v, 0), EIR_C128) == INFINITY && isnan(getim(el(&ro.v, 0), EIR_C128)));
    CHECK(getd(el(&ro.v, 1), EIR_C128) == 0 && getim(el(&ro.v, 1), EIR_C128) == 0);
    CHECK(fabs(getd(el(&ro.v, 2), EIR_C128) - 0.12) < 1e-16 && fabs(getim(el(&ro.v, 2), EIR_C128) - 0.16) < 1e-16);
    CHECK(K("aten.rsqrt.default")(ra, 1, &ro.v, 1, &CTX) == 0);
    CHECK(isnan(getd(el(&ro.v, 3), EIR_C128)) && isnan(getim(el(&ro.v, 3), EIR_C128)));
    fr(&x); fr(&o); fr(&y); fr(&h); fr(&ho); fr(&b); fr(&bo); fr(&bn); fr(&rz); fr(&ro);
}

/* ---- torch's other pointwise ops ---- */

static double r_copysign(double a, double b) { return copysign(a, b); }
static double r_fmax(double a, double b) { return fmax(a, b); }
static double r_fmin(double a, double b) { return fmin(a, b); }
static double r_hypot(double a, double b) { return hypot(a, b); }
static double r_logaddexp(double a, double b) {
    if (isinf(a) && a == b) return a;
    return (isnan(a) || isnan(b)) ? NAN : fmax(a, b) + log1p(exp(-fabs(a - b)));
}
static double r_logaddexp2(double a, double b) {
    if (isinf(a) && a == b) return a;
    return (isnan(a) || isnan(b)) ? NAN : fmax(a, b) + log1p(exp2(-fabs(a - b))) / M_LN2;
}
static double r_xlogy(double a, double b) { return isnan(b) ? NAN : a == 0 ? 0 : a * log(b); }
static double r_xlog1py(double a, double b) { return isnan(b) ? NAN : a == 0 ? 0 : a * log1p(b); }
static double r_heaviside(double a, double b) { return a == 0 ? b : a > 0; }
static int64_t ri_heaviside(int64_t a, int64_t b, eir_dtype d) { (void)d; return a == 0 ? b : a > 0; }
static double r_sgn(double a) { return isnan(a) ? 0 : (a > 0) - (a < 0); }
static int64_t ri_sgn(int64_t a, eir_dtype d) { (void)d; return (a > 0) - (a < 0); }
static double r_signbit(double a) { return signbit(a) != 0; }
static int64_t ri_signbit(int64_t a, eir_dtype d) { (void)d; return a < 0; }
static double r_sinc(double a) { return a == 0 ? 1 : sin(M_PI * a) / (M_PI * a); }
static double r_deg2rad(double a) { return a * (M_PI / 180); }
static double r_rad2deg(double a) { return a * (180 / M_PI); }
static double r_angle(double a) { return isnan(a) ? a : a < 0 ? M_PI : 0; }
static double r_isposinf(double a) { return a == INFINITY; }
static double r_isneginf(double a) { return a == -INFINITY; }
static int64_t ri_false(int64_t a, eir_dtype d) { (void)a; (void)d; return 0; }
static double r_true(double a) { (void)a; return 1; }
static int64_t ri_true(int64_t a, eir_dtype d) { (void)a; (void)d; return 1; }
static int64_t ri_gcd_ref(int64_t a, int64_t b, eir_dtype d) { /* non-negative inputs: binary gcd */
    (void)d;
    uint64_t x = (uint64_t)a, y = (uint64_t)b;
    if (!x) return (int64_t)y;
    if (!y) return (int64_t)x;
    int k = 0;
    while (!((x | y) & 1)) { x >>= 1; y >>= 1; k++; }
    while (x) {
        while (!(x & 1)) x >>= 1;
        while (!(y & 1)) y >>= 1;
        if (x >= y) x -= y; else y -= x;
    }
    return (int64_t)(y << k);
}
static int64_t ri_lcm_ref(int64_t a, int64_t b, eir_dtype d) {
    int64_t g = ri_gcd_ref(a, b, d);
    return g ? a / g * b : 0;
}

/* a tensor holding the given values (double, converted to dt) */
static T vec_of(eir_dtype dt, int n, const double *v) {
    int64_t s[1] = {n};
    T t = mk(dt, 1, s, 0);
    for (int i = 0; i < n; i++) {
        if (isf(dt) || isc(dt)) setd(el(&t.v, i), dt, v[i]);
        else seti(el(&t.v, i), dt, (int64_t)v[i]);
    }
    return t;
}

static void test_more_ops(void) {
    static const eir_dtype FI[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I64, EIR_I32, EIR_I8, EIR_U8};
    bin_spec bins_fi[] = {
        {"aten.copysign.Tensor", r_copysign, NULL, 1, 1, 0, false, true, NULL, 0},
        {"aten.xlogy.Tensor", r_xlogy, NULL, 1, 2, 4, false, true, NULL, 0},
        {"aten.special_xlog1py.default", r_xlog1py, NULL, 1, 2, 4, false, true, NULL, 0},
    };
    for (int i = 0; i < N(bins_fi); i++) run_bin(&bins_fi[i], FI, N(FI));
    bin_spec bins_f[] = {
        {"aten.hypot.default", r_hypot, NULL, 1, 1, 1, false, false, NULL, 0},
        {"aten.logaddexp.default", r_logaddexp, NULL, 1, 1, 4, false, false, NULL, 0},
        {"aten.logaddexp2.default", r_logaddexp2, NULL, 1, 1, 4, false, false, NULL, 0},
    };
    for (int i = 0; i < N(bins_f); i++) run_bin(&bins_f[i], FLOATS, N(FLOATS));
    bin_spec bins_all[] = {
        {"aten.fmax.default", r_fmax, ri_max, 1, 1, 0, false, false, NULL, 0},
        {"aten.fmin.default", r_fmin, ri_min, 1, 1, 0, false, false, NULL, 0},
        {"aten.heaviside.default", r_heaviside, ri_heaviside, 1, 1, 0, false, false, NULL, 0},
    };
    for (int i = 0; i < N(bins_all); i++) run_bin(&bins_all[i], ALL, N(ALL));
    bin_spec gl[] = {
        {"aten.gcd.default", NULL, ri_gcd_ref, 2, 2, 0, false, false, NULL, 0},
        {"aten.lcm.default", NULL, ri_lcm_ref, 2, 2, 0, false, false, NULL, 0},
    };
    for (int i = 0; i < N(gl); i++) run_bin(&gl[i], INTS, N(INTS));
    un_spec uns[] = {
        {"aten.sgn.default", r_sgn, ri_sgn, 1, 0, false, false, NULL, 0},
        {"aten.signbit.default", r_signbit, ri_signbit, 1, 0, true, false, NULL, 0},
        {"aten.isposinf.default", r_isposinf, ri_false, 1, 0, true, false, NULL, 0},
        {"aten.isneginf.default", r_isneginf, ri_false, 1, 0, true, false, NULL, 0},
        {"aten.isreal.default", r_true, ri_true, 1, 0, true, false, NULL, 0},
    };
    for (int i = 0; i < N(uns); i++) run_un(&uns[i], ALL, N(ALL));
    un_spec unf[] = {
        {"aten.sinc.default", r_sinc, NULL, 1, 6, false, true, NULL, 0},
        {"aten.deg2rad.default", r_deg2rad, NULL, 1, 1, false, true, NULL, 0},
        {"aten.rad2deg.default", r_rad2deg, NULL, 1, 1, false, true, NULL, 0},
        {"aten.angle.default", r_angle, NULL, 1, 1, false, true, NULL, 0},
    };
    for (int i = 0; i < N(unf); i++) run_un(&unf[i], FI, N(FI));

    /* nextafter: one step of each dtype's bit pattern (torch 2.13's values for float16/bfloat16) */
    {
        static const double from[] = {1.0, 0.0, -0.0, 65504.0, -1.0}, to[] = {2.0, -1.0, 1.0, INFINITY, -2.0};
        static const uint16_t want_h[] = {0x3c01, 0x8001, 0x0001, 0x7c00, 0xbc01}, want_b[] = {0x3f81, 0x8001, 0x0001, 0x4781, 0xbf81};
        const eir_dtype dts[] = {EIR_F16, EIR_BF16, EIR_F32, EIR_F64};
        for (int k = 0; k < 4; k++) {
            T a = vec_of(dts[k], 5, from), b = vec_of(dts[k], 5, to), o = vec_of(dts[k], 5, from);
            eir_karg args[2] = {targ(&a), targ(&b)};
            CHECK(K("aten.nextafter.default")(args, 2, &o.v, 1, &CTX) == 0);
            for (int i = 0; i < 5; i++) {
                if (k < 2) CHECK(((uint16_t *)o.buf)[i] == (k ? want_b : want_h)[i]);
                else if (k == 2) CHECK(((float *)o.buf)[i] == nextafterf((float)from[i], (float)to[i]));
                else CHECK(((double *)o.buf)[i] == nextafter(from[i], to[i]));
            }
            fr(&a); fr(&b); fr(&o);
        }
    }
    /* gcd / lcm at the edges of their types (torch's values: -128 stays negative in int8) */
    {
        static const double a8[] = {-128, -128, 12, 0}, b8[] = {6, -128, -18, 0};
        T a = vec_of(EIR_I8, 4, a8), b = vec_of(EIR_I8, 4, b8), o = vec_of(EIR_I8, 4, a8);
        eir_karg args[2] = {targ(&a), targ(&b)};
        CHECK(K("aten.gcd.default")(args, 2, &o.v, 1, &CTX) == 0);
        const int8_t *g = o.buf;
        CHECK(g[0] == -2 && g[1] == -128 && g[2] == 6 && g[3] == 0);
        static const double c8[] = {100, -100, 120, 7}, d8[] = {3, 3, 4, -9};
        T c = vec_of(EIR_I8, 4, c8), d = vec_of(EIR_I8, 4, d8);
        eir_karg args2[2] = {targ(&c), targ(&d)};
        CHECK(K("aten.lcm.default")(args2, 2, &o.v, 1, &CTX) == 0);
        CHECK(g[0] == 44 && g[1] == 44 && g[2] == 120 && g[3] == 63);
        static const double c32[] = {100000, -6}, d32[] = {70001, 4};
        T e = vec_of(EIR_I32, 2, c32), f = vec_of(EIR_I32, 2, d32), o32 = vec_of(EIR_I32, 2, c32);
        eir_karg args3[2] = {targ(&e), targ(&f)};
        CHECK(K("aten.lcm.default")(args3, 2, &o32.v, 1, &CTX) == 0);
        CHECK(((int32_t *)o32.buf)[0] == 1589834592 && ((int32_t *)o32.buf)[1] == 12);
        int64_t s2[1] = {2};
        T m = mk(EIR_I64, 1, s2, 0), n7 = mk(EIR_I64, 1, s2, 0), o64 = mk(EIR_I64, 1, s2, 0);
        ((int64_t *)m.buf)[0] = ((int64_t *)m.buf)[1] = INT64_MIN;
        ((int64_t *)n7.buf)[0] = 7;
        eir_karg args4[2] = {targ(&m), targ(&n7)};
        CHECK(K("aten.gcd.default")(args4, 2, &o64.v, 1, &CTX) == 0);
        CHECK(((int64_t *)o64.buf)[0] == -1 && ((int64_t *)o64.buf)[1] == INT64_MIN);
        T h = vec_of(EIR_F32, 4, c8), oh = vec_of(EIR_F32, 4, c8);
        eir_karg args5[2] = {targ(&h), targ(&h)};
        CHECK(K("aten.gcd.default")(args5, 2, &oh.v, 1, &CTX) == -1 && strstr(errbuf, "\"gcd_cpu\" not implemented for 'Float'"));
        fr(&a); fr(&b); fr(&o); fr(&c); fr(&d); fr(&e); fr(&f); fr(&o32); fr(&m); fr(&n7); fr(&o64); fr(&h); fr(&oh);
    }
    /* xlogy: float16 rounds log(y) to float16 before the product (torch: 4.34375, not 4.3408) */
    {
        static const double x[] = {3.0, 0.0, 2.5}, y[] = {4.25, 0.0, NAN};
        T a = vec_of(EIR_F16, 3, x), b = vec_of(EIR_F16, 3, y), o = vec_of(EIR_F16, 3, x);
        eir_karg args[2] = {targ(&a), targ(&b)};
        CHECK(K("aten.xlogy.Tensor")(args, 2, &o.v, 1, &CTX) == 0);
        CHECK(getd(el(&o.v, 0), EIR_F16) == 4.34375 && getd(el(&o.v, 1), EIR_F16) == 0 && isnan(getd(el(&o.v, 2), EIR_F16)));
        /* Scalar overloads: xlogy(self, 2.0), xlogy(2.0, other) */
        eir_karg so[2] = {targ(&a), sarg_f(2.0)}, ss[2] = {sarg_f(2.0), targ(&b)};
        T of = vec_of(EIR_F32, 3, x), af = vec_of(EIR_F32, 3, x), bf = vec_of(EIR_F32, 3, y);
        so[0] = targ(&af);
        ss[1] = targ(&bf);
        CHECK(K("aten.xlogy.Scalar_Other")(so, 2, &of.v, 1, &CTX) == 0);
        CHECK(((float *)of.buf)[0] == 3.0f * logf(2.0f) && ((float *)of.buf)[1] == 0);
        CHECK(K("aten.special_xlogy.self_scalar")(ss, 2, &of.v, 1, &CTX) == 0);
        CHECK(((float *)of.buf)[0] == 2.0f * logf(4.25f) && isnan(((float *)of.buf)[2]));
        fr(&a); fr(&b); fr(&o); fr(&of); fr(&af); fr(&bf);
    }
    /* addcmul / addcdiv: self + value * t1 * t2 (/ t2), the product fused into the add as torch's
     * compiled loop does; integers wrap; integer division is refused with torch's message */
    {
        static const double s[] = {1.0, -2.5}, t1[] = {0.1, 3.0}, t2[] = {0.3, -0.5};
        T a = vec_of(EIR_F32, 2, s), b = vec_of(EIR_F32, 2, t1), c = vec_of(EIR_F32, 2, t2), o = vec_of(EIR_F32, 2, s);
        eir_karg args[4] = {targ(&a), targ(&b), targ(&c), sarg_f(0.7)};
        CHECK(K("aten.addcmul.default")(args, 4, &o.v, 1, &CTX) == 0);
        CHECK(((float *)o.buf)[0] == 1.0210000276565552f && ((float *)o.buf)[1] == fmaf(0.7f * 3.0f, -0.5f, -2.5f));
        CHECK(K("aten.addcdiv.default")(args, 4, &o.v, 1, &CTX) == 0);
        CHECK(((float *)o.buf)[1] == -2.5f + 0.7f * 3.0f / -0.5f);
        static const double i8[] = {100}, j8[] = {20}, k8[] = {3};
        T x = vec_of(EIR_I8, 1, i8), y = vec_of(EIR_I8, 1, j8), z = vec_of(EIR_I8, 1, k8), oi = vec_of(EIR_I8, 1, i8);
        eir_karg ia[4] = {targ(&x), targ(&y), targ(&z), sarg_i(2)};
        CHECK(K("aten.addcmul.default")(ia, 4, &oi.v, 1, &CTX) == 0);
        CHECK(((int8_t *)oi.buf)[0] == -36);
        CHECK(K("aten.addcdiv.default")(ia, 4, &oi.v, 1, &CTX) == -1 && strstr(errbuf, "Integer division with addcdiv is no longer supported"));
        fr(&a); fr(&b); fr(&c); fr(&o); fr(&x); fr(&y); fr(&z); fr(&oi);
    }
    /* ldexp: std::ldexp in self's dtype for an integer exponent (1e-30 * 2^200 stays finite);
     * otherwise self * 2^other with the power in float32 for integer self (0 * inf = NaN) */
    {
        static const double x[] = {1e-30, 3.0}, e[] = {200, -150};
        T a = vec_of(EIR_F32, 2, x), b = vec_of(EIR_I64, 2, e), o = vec_of(EIR_F32, 2, x);
        eir_karg args[2] = {targ(&a), targ(&b)};
        CHECK(K("aten.ldexp.Tensor")(args, 2, &o.v, 1, &CTX) == 0);
        CHECK(((float *)o.buf)[0] == (float)ldexp((double)1e-30f, 200) && ((float *)o.buf)[1] == ldexpf(3.0f, -150));
        static const double z[] = {0, 1};
        T u = vec_of(EIR_U8, 2, z), oz = vec_of(EIR_F32, 2, z);
        eir_karg ua[2] = {targ(&u), targ(&b)};
        CHECK(K("aten.ldexp.Tensor")(ua, 2, &oz.v, 1, &CTX) == 0);
        CHECK(isnan(((float *)oz.buf)[0]) && ((float *)oz.buf)[1] == 0);  /* 2^-150 underflows in float32 */
        static const double h[] = {3.0}, he[] = {2.5};
        T ah = vec_of(EIR_F16, 1, h), bh = vec_of(EIR_F16, 1, he), oh = vec_of(EIR_F16, 1, h);
        eir_karg hargs[2] = {targ(&ah), targ(&bh)};
        CHECK(K("aten.ldexp.Tensor")(hargs, 2, &oh.v, 1, &CTX) == 0);
        CHECK(getd(oh.buf, EIR_F16) == 16.96875);  /* torch: 16.970562 -> float16 */
        fr(&a); fr(&b); fr(&o); fr(&u); fr(&oz); fr(&ah); fr(&bh); fr(&oh);
    }
    /* float_power computes in double; its in-place form needs a double self */
    {
        static const double x[] = {2.0, 9.0}, y[] = {0.5, -1.0};
        T a = vec_of(EIR_F32, 2, x), b = vec_of(EIR_F32, 2, y), o = vec_of(EIR_F64, 2, x);
        eir_karg args[2] = {targ(&a), targ(&b)};
        CHECK(K("aten.float_power.Tensor_Tensor")(args, 2, &o.v, 1, &CTX) == 0);
        CHECK(((double *)o.buf)[0] == sqrt(2.0) && ((double *)o.buf)[1] == 1.0 / 9);
        eir_karg sc[2] = {targ(&a), sarg_f(0.5)};
        CHECK(K("aten.float_power.Tensor_Scalar")(sc, 2, &o.v, 1, &CTX) == 0);
        CHECK(((double *)o.buf)[1] == 3.0);
        CHECK(K("aten.float_power_.Scalar")(sc, 2, &a.v, 1, &CTX) == -1 &&
              strstr(errbuf, "the base given to float_power_ has dtype Float but the operation's result requires dtype Double"));
        fr(&a); fr(&b); fr(&o);
    }
    /* frexp: mantissa in self's dtype, int32 exponent; integers refused */
    {
        static const double x[] = {0.0, 1.0, -3.5, INFINITY, 1e-42};
        T a = vec_of(EIR_F32, 5, x), m = vec_of(EIR_F32, 5, x);
        int64_t s5[1] = {5};
        T e = mk(EIR_I32, 1, s5, 0);
        eir_tview outs[2] = {m.v, e.v};
        eir_karg args[1] = {targ(&a)};
        CHECK(K("aten.frexp.Tensor")(args, 1, outs, 2, &CTX) == 0);
        const float *mv = m.buf;
        const int32_t *ev = e.buf;
        CHECK(mv[0] == 0 && ev[0] == 0 && mv[1] == 0.5f && ev[1] == 1 && mv[2] == -0.875f && ev[2] == 2);
        CHECK(isinf(mv[3]) && ev[3] == 0 && ev[4] == -139 && mv[4] == ldexpf(1e-42f, 139));
        T ai = vec_of(EIR_I64, 5, x);
        eir_karg iargs[1] = {targ(&ai)};
        CHECK(K("aten.frexp.Tensor")(iargs, 1, outs, 2, &CTX) == -1 && strstr(errbuf, "only supports floating-point"));
        fr(&a); fr(&m); fr(&e); fr(&ai);
    }
    /* complex numbers: sgn divides by the hypotenuse, angle, conj_physical, isreal, complex(), polar() */
    {
        int64_t s3[1] = {3};
        T z = mk(EIR_C64, 1, s3, 0), o = mk(EIR_C64, 1, s3, 0), r = mk(EIR_F32, 1, s3, 0), bo = mk(EIR_BOOL, 1, s3, 0);
        setc(el(&z.v, 0), EIR_C64, 3, 4);
        setc(el(&z.v, 1), EIR_C64, 0, 0);
        setc(el(&z.v, 2), EIR_C64, -2, 0);
        eir_karg args[1] = {targ(&z)};
        CHECK(K("aten.sgn.default")(args, 1, &o.v, 1, &CTX) == 0);
        CHECK(getd(el(&o.v, 0), EIR_C64) == 0.6f && getim(el(&o.v, 0), EIR_C64) == 0.8f);
        CHECK(getd(el(&o.v, 1), EIR_C64) == 0 && getim(el(&o.v, 1), EIR_C64) == 0 && getd(el(&o.v, 2), EIR_C64) == -1);
        CHECK(K("aten.angle.default")(args, 1, &r.v, 1, &CTX) == 0);
        CHECK(((float *)r.buf)[0] == atan2f(4, 3) && ((float *)r.buf)[2] == (float)M_PI);
        CHECK(K("aten.conj_physical.default")(args, 1, &o.v, 1, &CTX) == 0);
        CHECK(getim(el(&o.v, 0), EIR_C64) == -4.0f);
        CHECK(K("aten.isreal.default")(args, 1, &bo.v, 1, &CTX) == 0);
        CHECK(((uint8_t *)bo.buf)[0] == 0 && ((uint8_t *)bo.buf)[1] == 1 && ((uint8_t *)bo.buf)[2] == 1);
        CHECK(K("aten.signbit.default")(args, 1, &bo.v, 1, &CTX) == -1 && strstr(errbuf, "signbit is not implemented for complex tensors."));
        CHECK(K("aten.isposinf.default")(args, 1, &bo.v, 1, &CTX) == -1 && strstr(errbuf, "isposinf does not support complex inputs."));
        CHECK(K("aten.deg2rad.default")(args, 1, &o.v, 1, &CTX) == -1 && strstr(errbuf, "deg2rad is not supported for complex tensors."));
        eir_karg fm[2] = {targ(&z), targ(&z)};
        CHECK(K("aten.fmax.default")(fm, 2, &o.v, 1, &CTX) == -1 && strstr(errbuf, "fmax not implemented for complex tensors."));
        CHECK(K("aten.heaviside.default")(fm, 2, &o.v, 1, &CTX) == -1 && strstr(errbuf, "heaviside is not yet implemented for complex tensors."));
        static const double re[] = {1.0, 2.0, -1.0}, im[] = {0.5, -1.0, 0.0};
        T a = vec_of(EIR_F32, 3, re), b = vec_of(EIR_F32, 3, im);
        eir_karg ab[2] = {targ(&a), targ(&b)};
        CHECK(K("aten.complex.default")(ab, 2, &o.v, 1, &CTX) == 0);
        CHECK(getd(el(&o.v, 1), EIR_C64) == 2 && getim(el(&o.v, 1), EIR_C64) == -1);
        CHECK(K("aten.polar.default")(ab, 2, &o.v, 1, &CTX) == 0);
        CHECK(getd(el(&o.v, 0), EIR_C64) == cosf(0.5f) && getim(el(&o.v, 0), EIR_C64) == sinf(0.5f));
        T h = vec_of(EIR_F16, 3, re), hc = mk(EIR_C32, 1, s3, 0);
        eir_karg hh[2] = {targ(&h), targ(&h)};
        CHECK(K("aten.complex.default")(hh, 2, &hc.v, 1, &CTX) == 0); /* float16 -> complex32 */
        CHECK(eir_f16_to_f32(((uint16_t *)hc.buf)[2]) == 2.0f && eir_f16_to_f32(((uint16_t *)hc.buf)[3]) == 2.0f);
        CHECK(K("aten.polar.default")(hh, 2, &hc.v, 1, &CTX) == -1 && strstr(errbuf, "\"polar_cpu\" not implemented for 'Half'"));
        T i = vec_of(EIR_I64, 3, re);
        eir_karg ii[2] = {targ(&i), targ(&i)};
        CHECK(K("aten.complex.default")(ii, 2, &o.v, 1, &CTX) == -1 &&
              strstr(errbuf, "Expected both inputs to be Half, Float or Double tensors but got Long and Long"));
        eir_karg hd[2] = {targ(&a), targ(&h)};
        CHECK(K("aten.heaviside.default")(hd, 2, &r.v, 1, &CTX) == -1 && strstr(errbuf, "tensors with different dtypes"));
        /* chalf: to complex32 */
        eir_karg ch[2] = {targ(&a), karg_none()};
        CHECK(K("aten.chalf.default")(ch, 2, &hc.v, 1, &CTX) == 0);
        CHECK(eir_f16_to_f32(((uint16_t *)hc.buf)[4]) == -1.0f && ((uint16_t *)hc.buf)[5] == 0);
        fr(&z); fr(&o); fr(&r); fr(&bo); fr(&a); fr(&b); fr(&h); fr(&hc); fr(&i);
    }
    /* special_* aliases run their core op's kernel */
    {
        static const double x[] = {-0.75, 0.25, 2.0};
        T a = vec_of(EIR_F64, 3, x), o = vec_of(EIR_F64, 3, x);
        eir_karg args[2] = {targ(&a), sarg_i(1)};
        CHECK(K("aten.special_expit.default")(args, 1, &o.v, 1, &CTX) == 0 && ((double *)o.buf)[2] == 1 / (1 + exp(-2.0)));
        CHECK(K("aten.special_erfc.default")(args, 1, &o.v, 1, &CTX) == 0 && ((double *)o.buf)[0] == erfc(-0.75));
        CHECK(K("aten.special_log1p.default")(args, 1, &o.v, 1, &CTX) == 0 && ((double *)o.buf)[1] == log1p(0.25));
        static const double y[] = {1.25, -2.35, 0.05};
        T b = vec_of(EIR_F64, 3, y);
        args[0] = targ(&b);
        args[1].kind = EIR_KA_INT; /* decimals=1 */
        args[1].i = 1;
        CHECK(K("aten.special_round.default")(args, 2, &o.v, 1, &CTX) == 0);
        CHECK(((double *)o.buf)[0] == 1.2 && ((double *)o.buf)[1] == -2.4 && ((double *)o.buf)[2] == 0.0);
        fr(&a); fr(&o); fr(&b);
    }
}

static void test_table(void) {
    int n = 0;
    for (const eir_kernel_entry *e = eir_kernels_pointwise; e->op; e++, n++) {
        CHECK(e->fn != NULL);
        CHECK(!strncmp(e->op, "aten.", 5));
        for (const eir_kernel_entry *f = e + 1; f->op; f++)
            if (!strcmp(e->op, f->op)) { fprintf(stderr, "  duplicate %s\n", e->op); CHECK(0); }
    }
    CHECK(n > 100);
}

/* masked_fill.Scalar on float32 with a broadcast bool mask (attention's causal mask
 * [L, S] over [B, H, L, S], a [B, 1, 1, S] padding mask, a mask of the full shape, a scalar
 * mask): the float32 rows give exactly what the generic path gives (value -inf, NaN in self
 * kept where the mask is false), on 1 and 2 threads */
static void test_masked_fill_f32(void) {
    static const int64_t full[4] = {2, 3, 5, 37};
    static const int64_t mshapes[4][4] = {{5, 37, 0, 0}, {2, 1, 1, 37}, {2, 3, 5, 37}, {0, 0, 0, 0}};
    static const int mranks[4] = {2, 4, 4, 0};
    for (int k = 0; k < 4; k++) {
        T x = mk(EIR_F32, 4, full, 0), m = mk(EIR_BOOL, mranks[k], mshapes[k], 0);
        T y = mk(EIR_F32, 4, full, 0), g = mk(EIR_F32, 4, full, 0), y2 = mk(EIR_F32, 4, full, 0);
        fill(&x, 0);
        ((float *)x.buf)[7] = NAN;
        int64_t nm = 1;
        for (int d = 0; d < mranks[k]; d++) nm *= mshapes[k][d];
        for (int64_t i = 0; i < nm; i++) ((uint8_t *)m.buf)[i] = (uint8_t)((i * 7 + k) % 3 == 0);
        eir_karg a[3] = {targ(&x), targ(&m), sarg_f(-INFINITY)};
        CHECK(K("aten.masked_fill.Scalar")(a, 3, &y.v, 1, &CTX) == 0);
        eir_kernels_fast = 0;
        CHECK(K("aten.masked_fill.Scalar")(a, 3, &g.v, 1, &CTX) == 0);
        eir_kernels_fast = 1;
        CHECK(memcmp(y.buf, g.buf, 2 * 3 * 5 * 37 * sizeof(float)) == 0);
        eir_pool *pool = eir_pool_create(2);
        eir_pool *prev = eir_pool_enter(pool);
        CHECK(K("aten.masked_fill.Scalar")(a, 3, &y2.v, 1, &CTX) == 0);
        eir_pool_leave(prev);
        eir_pool_free(pool);
        CHECK(memcmp(y.buf, y2.buf, 2 * 3 * 5 * 37 * sizeof(float)) == 0);
        /* the mask decides: -inf where true, self (NaN included) where false */
        int bad = 0;
        for (int64_t i = 0; i < 2 * 3 * 5 * 37; i++) {
            int64_t idx[4] = {i / (3 * 5 * 37), i / (5 * 37) % 3, i / 37 % 5, i % 37}, mo = 0, st = 1;
            for (int d = mranks[k] - 1; d >= 0; d--) {
                int64_t id = idx[4 - mranks[k] + d];
                mo += (mshapes[k][d] == 1 ? 0 : id) * st;
                st *= mshapes[k][d];
            }
            float xv = ((float *)x.buf)[i], yv = ((float *)y.buf)[i];
            bad += ((uint8_t *)m.buf)[mo] ? yv != -INFINITY : !(yv == xv || (isnan(xv) && isnan(yv)));
        }
        CHECK(bad == 0);
        fr(&x); fr(&m); fr(&y); fr(&g); fr(&y2);
    }
}

int main(void) {
    test_masked_fill_f32();
    test_table();
    test_binary();
    test_unary();
    test_torch_bits();
    test_casts();
    test_fills();
    test_select();
    test_scalars_errors();
    test_complex();
    test_mixed_int_operands();
    test_complex_torch_semantics();
    test_more_ops();
    return check_summary("test_k_pointwise");
}
