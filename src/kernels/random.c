/* random.c — random ops: rand, randn, randint, randperm, bernoulli, uniform,
 * normal, exponential, native_dropout. The generator is the runtime's
 * (ctx->rng, splitmix64): reproducible for a seed, not torch's stream, so
 * results are checked by shape, dtype and distribution, not by value. */
#include <math.h>

#include "kutil.h"
#include "tables.h"

static uint64_t next_u64(eir_kctx *ctx) {
    uint64_t z = (*ctx->rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* uniform in [0, 1) with 53 random bits */
static double next_unit(eir_kctx *ctx) { return (double)(next_u64(ctx) >> 11) * (1.0 / 9007199254740992.0); }

static double next_normal(eir_kctx *ctx) {
    double u1 = next_unit(ctx), u2 = next_unit(ctx);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

static double arg_float(const eir_karg *a, double dflt) {
    if (a->kind == EIR_KA_FLOAT) return a->f;
    if (a->kind == EIR_KA_INT || a->kind == EIR_KA_BOOL) return (double)a->i;
    if (a->kind == EIR_KA_SCALAR) return a->s.kind == EIR_SC_INT ? (double)a->s.i : a->s.f;
    return dflt;
}

typedef enum { D_UNIFORM, D_NORMAL, D_INT, D_EXPONENTIAL } dist;

/* fill every element of out from a distribution */
static int fill(eir_tview *out, eir_kctx *ctx, dist d, double a, double b) {
    if (!ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    eir_iter it;
    const eir_tview *ops[1] = {out};
    eir_iter_init(&it, out->rank, out->sizes, 1, ops);
    char *p[1];
    int64_t len;
    size_t es = eir_dtype_size(out->dtype);
    (void)es;
    while (eir_iter_next(&it, p, &len)) {
        for (int64_t k = 0; k < len; k++) {
            char *e = p[0] + k * it.inner_stride[0];
            switch (d) {
            case D_UNIFORM: eir_store_f64(e, out->dtype, a + (b - a) * next_unit(ctx)); break;
            case D_NORMAL: eir_store_f64(e, out->dtype, a + b * next_normal(ctx)); break;
            case D_EXPONENTIAL: eir_store_f64(e, out->dtype, -log(1.0 - next_unit(ctx)) / a); break;
            case D_INT: {
                uint64_t range = (uint64_t)((int64_t)b - (int64_t)a);
                int64_t v = (int64_t)a + (int64_t)(range ? next_u64(ctx) % range : 0);
                if (eir_is_floating(out->dtype)) eir_store_f64(e, out->dtype, (double)v);
                else eir_store_i64(e, out->dtype, v);
                break;
            }
            }
        }
    }
    return 0;
}

static int k_rand(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)a; (void)n; (void)no;
    return fill(&out[0], ctx, D_UNIFORM, 0, 1);
}

static int k_randn(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)a; (void)n; (void)no;
    return fill(&out[0], ctx, D_NORMAL, 0, 1);
}

/* randint(high, size) / randint.low(low, high, size) / randint_like(self, high) / .low_dtype(self, low, high) */
static int randint_common(double lo, double hi, eir_tview *out, eir_kctx *ctx) {
    if (!(hi > lo)) return eir_kerr(ctx, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                                    (long long)lo, (long long)hi);
    return fill(&out[0], ctx, D_INT, lo, hi);
}
static int k_randint(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    return randint_common(0, (double)a[0].i, out, ctx);
}
static int k_randint_low(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    return randint_common((double)a[0].i, (double)a[1].i, out, ctx);
}
static int k_randint_like(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    return randint_common(0, (double)a[1].i, out, ctx);
}
static int k_randint_like_low(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    return randint_common((double)a[1].i, (double)a[2].i, out, ctx);
}

static int k_randperm(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    int64_t len = a[0].i;
    if (out->rank != 1 || out->sizes[0] != len) return eir_kerr(ctx, "randperm: output does not have %lld elements", (long long)len);
    size_t es = eir_dtype_size(out->dtype);
    char *base = out->data;
    for (int64_t i = 0; i < len; i++) eir_store_i64(base + i * out->strides[0] * (int64_t)es, out->dtype, i);
    for (int64_t i = len - 1; i > 0; i--) { /* Fisher-Yates */
        int64_t j = (int64_t)(next_u64(ctx) % (uint64_t)(i + 1));
        char *pi = base + i * out->strides[0] * (int64_t)es, *pj = base + j * out->strides[0] * (int64_t)es;
        int64_t vi = eir_load_i64(pi, out->dtype), vj = eir_load_i64(pj, out->dtype);
        eir_store_i64(pi, out->dtype, vj);
        eir_store_i64(pj, out->dtype, vi);
    }
    return 0;
}

/* bernoulli.p(self, p): 1 with probability p, in self's dtype */
static int k_bernoulli_p(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    double p = arg_float(&a[1], 0.5);
    if (!(p >= 0 && p <= 1)) return eir_kerr(ctx, "bernoulli_ expects p to be in [0, 1], but got p=%g", p);
    eir_iter it;
    const eir_tview *ops[1] = {&out[0]};
    eir_iter_init(&it, out[0].rank, out[0].sizes, 1, ops);
    char *ptr[1];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) eir_store_f64(ptr[0] + k * it.inner_stride[0], out[0].dtype, next_unit(ctx) < p);
    return 0;
}

/* bernoulli(self): probabilities taken from self */
static int k_bernoulli(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    const eir_tview *pr = a[0].t;
    eir_iter it;
    const eir_tview *ops[2] = {&out[0], pr};
    eir_iter_init(&it, out[0].rank, out[0].sizes, 2, ops);
    char *ptr[2];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) {
            double p = eir_load_f64(ptr[1] + k * it.inner_stride[1], pr->dtype);
            if (!(p >= 0 && p <= 1)) return eir_kerr(ctx, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
            eir_store_f64(ptr[0] + k * it.inner_stride[0], out[0].dtype, next_unit(ctx) < p);
        }
    return 0;
}

static int k_uniform(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    return fill(&out[0], ctx, D_UNIFORM, n > 1 ? arg_float(&a[1], 0) : 0, n > 2 ? arg_float(&a[2], 1) : 1);
}

static int k_normal_functional(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    double std = n > 2 ? arg_float(&a[2], 1) : 1;
    if (std < 0) return eir_kerr(ctx, "normal expects std >= 0.0, but found std %g", std);
    return fill(&out[0], ctx, D_NORMAL, n > 1 ? arg_float(&a[1], 0) : 0, std);
}

static int k_normal_float_float(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    double std = arg_float(&a[1], 1);
    if (std < 0) return eir_kerr(ctx, "normal expects std >= 0.0, but found std %g", std);
    return fill(&out[0], ctx, D_NORMAL, arg_float(&a[0], 0), std);
}

static int k_exponential(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    double l = n > 1 ? arg_float(&a[1], 1) : 1;
    if (!(l > 0)) return eir_kerr(ctx, "exponential_ expects lambda > 0.0, but found lambda=%g", l);
    return fill(&out[0], ctx, D_EXPONENTIAL, l, 0);
}

/* native_dropout(input, p, train) -> (output, mask): in training mode each
 * element is kept with probability 1 - p and scaled by 1 / (1 - p) */
static int k_native_dropout(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n;
    const eir_tview *x = a[0].t;
    double p = arg_float(&a[1], 0.5);
    bool train = a[2].kind != EIR_KA_BOOL || a[2].i;
    if (!(p >= 0 && p <= 1)) return eir_kerr(ctx, "dropout probability has to be between 0 and 1, but got %g", p);
    double scale = p < 1 ? 1.0 / (1.0 - p) : 0.0;
    eir_iter it;
    const eir_tview *ops[3] = {&out[0], no > 1 ? &out[1] : &out[0], x};
    eir_iter_init(&it, out[0].rank, out[0].sizes, 3, ops);
    char *ptr[3];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) {
            bool keep = !train || next_unit(ctx) >= p;
            double re, im, f = keep ? (train ? scale : 1.0) : 0.0;
            eir_load_c128(ptr[2] + k * it.inner_stride[2], x->dtype, &re, &im);  /* complex inputs keep their imaginary part */
            eir_store_c128(ptr[0] + k * it.inner_stride[0], out[0].dtype, re * f, im * f);
            if (no > 1) *(uint8_t *)(ptr[1] + k * it.inner_stride[1]) = keep;
        }
    return 0;
}

const eir_kernel_entry eir_kernels_random[] = {
    {"aten.rand.default", k_rand},
    {"aten.rand_like.default", k_rand},
    {"aten.randn.default", k_randn},
    {"aten.randn_like.default", k_randn},
    {"aten.randint.default", k_randint},
    {"aten.randint.low", k_randint_low},
    {"aten.randint_like.default", k_randint_like},
    {"aten.randint_like.low_dtype", k_randint_like_low},
    {"aten.randperm.default", k_randperm},
    {"aten.bernoulli.p", k_bernoulli_p},
    {"aten.bernoulli.default", k_bernoulli},
    {"aten.uniform.default", k_uniform},
    {"aten.normal_functional.default", k_normal_functional},
    {"aten.normal.float_float", k_normal_float_float},
    {"aten.exponential.default", k_exponential},
    {"aten.native_dropout.default", k_native_dropout},
    {NULL, NULL},
};
