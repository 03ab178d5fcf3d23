/* random.c — random ops: rand, randn, randint, randperm, bernoulli,
 * uniform, normal (every overload), exponential, cauchy, geometric,
 * log_normal, random_, poisson, multinomial, native_dropout, each in its
 * in-place (uniform_, ...) and functional (uniform, ...) form; the dropout
 * variants torch exports unlowered (alpha_dropout, feature_dropout,
 * feature_alpha_dropout) and rrelu (a random slope per negative element in
 * training). The generator is the runtime's (ctx->rng, splitmix64):
 * reproducible for a seed, not torch's stream, so results are checked by
 * shape, dtype and distribution, not by value. The arguments torch checks
 * (std >= 0, p in range, from < to, valid probabilities) are checked with
 * torch's messages. */
#include <float.h>
#include <math.h>

#include <stdio.h>

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
double eir_rand_unit(eir_kctx *ctx) { return next_unit(ctx); }

static double next_normal(eir_kctx *ctx) {
    double u1 = next_unit(ctx), u2 = next_unit(ctx);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* significand bits of a floating dtype (std::numeric_limits<T>::digits) */
static int float_digits(eir_dtype d) {
    switch (d) {
    case EIR_F64: return 53;
    case EIR_F16: return 11;
    case EIR_BF16: return 8;
    default: return 24;
    }
}

static double arg_float(const eir_karg *a, double dflt) {
    if (a->kind == EIR_KA_FLOAT) return a->f;
    if (a->kind == EIR_KA_INT || a->kind == EIR_KA_BOOL) return (double)a->i;
    if (a->kind == EIR_KA_SCALAR) return a->s.kind == EIR_SC_INT ? (double)a->s.i : a->s.f;
    return dflt;
}

typedef enum {
    D_UNIFORM,      /* a + (b - a) u, u with the dtype's significand bits (torch's uniform_real) */
    D_NORMAL,       /* a + b z */
    D_INT,          /* integers in [a, b) (randint, random_) */
    D_EXPONENTIAL,  /* rate a */
    D_CAUCHY,       /* median a, scale b */
    D_LOG_NORMAL,   /* exp(a + b z) */
    D_GEOMETRIC,    /* trials to the first success, probability a */
} dist;

static double draw(eir_kctx *ctx, dist d, double a, double b, int digits) {
    switch (d) {
    case D_UNIFORM: {
        double u = (double)(next_u64(ctx) >> (64 - digits)) * ldexp(1.0, -digits);
        return digits <= 24 ? (double)((float)u * (float)(b - a) + (float)a) : u * (b - a) + a;
    }
    case D_NORMAL: return a + b * next_normal(ctx);
    case D_EXPONENTIAL: return -log1p(-next_unit(ctx)) / a;
    case D_CAUCHY: return a + b * tan(M_PI * (next_unit(ctx) - 0.5));
    case D_LOG_NORMAL: return exp(a + b * next_normal(ctx));
    case D_GEOMETRIC: return ceil(log1p(-next_unit(ctx)) / log1p(-a));
    case D_INT: break;
    }
    return 0;
}

/* an integer in [lo, lo + range) (range 0: the whole 64-bit range) */
static int64_t draw_int(eir_kctx *ctx, int64_t lo, uint64_t range) {
    return (int64_t)((uint64_t)lo + (range ? next_u64(ctx) % range : next_u64(ctx)));
}

/* fill every element of out from a distribution */
static int fill(eir_tview *out, eir_kctx *ctx, dist d, double a, double b) {
    if (!ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    eir_iter it;
    const eir_tview *ops[1] = {out};
    eir_iter_init(&it, out->rank, out->sizes, 1, ops);
    char *p[1];
    int64_t len;
    int digits = float_digits(out->dtype);
    while (eir_iter_next(&it, p, &len)) {
        for (int64_t k = 0; k < len; k++) {
            char *e = p[0] + k * it.inner_stride[0];
            if (d == D_INT) {
                int64_t v = draw_int(ctx, (int64_t)a, (uint64_t)((int64_t)b - (int64_t)a));
                if (eir_is_floating(out->dtype)) eir_store_f64(e, out->dtype, (double)v);
                else eir_store_i64(e, out->dtype, v);
            } else {
                eir_store_f64(e, out->dtype, draw(ctx, d, a, b, digits));
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

/* bernoulli.p(self, p) / bernoulli_.float(self, p): 1 with probability p, in self's dtype */
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

/* 1 with the probability the tensor pr holds for each element (broadcast to out) */
static int bernoulli_from(const eir_tview *pr, eir_tview *out, eir_kctx *ctx) {
    eir_tview bp;
    if (!eir_tview_broadcast(pr, out->rank, out->sizes, &bp))
        return eir_kerr(ctx, "bernoulli: the probabilities do not broadcast to self's shape");
    eir_iter it;
    const eir_tview *ops[2] = {out, &bp};
    eir_iter_init(&it, out->rank, out->sizes, 2, ops);
    char *ptr[2];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) {
            double p = eir_load_f64(ptr[1] + k * it.inner_stride[1], pr->dtype);
            if (!(p >= 0 && p <= 1)) return eir_kerr(ctx, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
            eir_store_f64(ptr[0] + k * it.inner_stride[0], out->dtype, next_unit(ctx) < p);
        }
    return 0;
}

/* bernoulli(self): probabilities taken from self */
static int k_bernoulli(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    return bernoulli_from(a[0].t, &out[0], ctx);
}

/* bernoulli.Tensor(self, p) / bernoulli_.Tensor: probabilities from p, in self's shape and dtype */
static int k_bernoulli_tensor(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    if (n < 2 || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "bernoulli: expected a probability tensor");
    return bernoulli_from(a[1].t, &out[0], ctx);
}

/* uniform(self, from, to) / uniform_ */
static int k_uniform(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    double from = n > 1 ? arg_float(&a[1], 0) : 0, to = n > 2 ? arg_float(&a[2], 1) : 1;
    if (!(from <= to))
        return eir_kerr(ctx, "uniform_ expects to return a [from, to) range, but found from=%g > to=%g", from, to);
    return fill(&out[0], ctx, D_UNIFORM, from, to);
}

/* normal_functional(self, mean, std) / normal_ */
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

/* normal.Tensor_Tensor(mean, std) / .Tensor_float(mean, std) / .float_Tensor(mean, std):
 * one draw per output element with the mean and std at that position */
static int k_normal_tensors(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    if (n < 2) return eir_kerr(ctx, "normal: expected mean and std");
    if (!ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    eir_tview bv[2];
    double c[2];
    const eir_tview *ops[3] = {&out[0], NULL, NULL};
    int nops = 1;
    int which[2];
    for (int k = 0; k < 2; k++) {
        if (a[k].kind == EIR_KA_TENSOR) {
            if (!eir_tview_broadcast(a[k].t, out[0].rank, out[0].sizes, &bv[k]))
                return eir_kerr(ctx, "normal: %s does not broadcast to the output", k ? "std" : "mean");
            which[k] = nops;
            ops[nops++] = &bv[k];
        } else {
            which[k] = 0;
            c[k] = arg_float(&a[k], k ? 1 : 0);
        }
    }
    if (a[1].kind != EIR_KA_TENSOR && c[1] < 0) return eir_kerr(ctx, "normal expects std >= 0.0, but found std %g", c[1]);
    eir_iter it;
    eir_iter_init(&it, out[0].rank, out[0].sizes, nops, ops);
    char *ptr[3];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) {
            double v[2];
            for (int q = 0; q < 2; q++)
                v[q] = which[q] ? eir_load_f64(ptr[which[q]] + k * it.inner_stride[which[q]], a[q].t->dtype) : c[q];
            if (v[1] < 0) return eir_kerr(ctx, "normal expects all elements of std >= 0.0");
            eir_store_f64(ptr[0] + k * it.inner_stride[0], out[0].dtype, v[0] + v[1] * next_normal(ctx));
        }
    return 0;
}

/* exponential(self, lambd) / exponential_ */
static int k_exponential(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    double l = n > 1 ? arg_float(&a[1], 1) : 1;
    if (!(l > 0)) return eir_kerr(ctx, "exponential_ expects lambda > 0.0, but found lambda=%g", l);
    return fill(&out[0], ctx, D_EXPONENTIAL, l, 0);
}

/* cauchy(self, median, sigma) / cauchy_ */
static int k_cauchy(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    double median = n > 1 ? arg_float(&a[1], 0) : 0, sigma = n > 2 ? arg_float(&a[2], 1) : 1;
    if (!(sigma > 0)) return eir_kerr(ctx, "cauchy_ expects sigma > 0.0, but found sigma=%g", sigma);
    return fill(&out[0], ctx, D_CAUCHY, median, sigma);
}

/* log_normal(self, mean, std) / log_normal_ */
static int k_log_normal(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    double mean = n > 1 ? arg_float(&a[1], 1) : 1, std = n > 2 ? arg_float(&a[2], 2) : 2;
    if (!(std > 0)) return eir_kerr(ctx, "log_normal_ expects std > 0.0, but found std=%g", std);
    return fill(&out[0], ctx, D_LOG_NORMAL, mean, std);
}

/* geometric(self, p) / geometric_: values 1, 2, ... */
static int k_geometric(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    double p = n > 1 ? arg_float(&a[1], 0.5) : 0.5;
    if (!(p > 0 && p < 1)) return eir_kerr(ctx, "geometric_ expects p to be in (0, 1), but got p=%g", p);
    return fill(&out[0], ctx, D_GEOMETRIC, p, 0);
}

/* random_(self) / random_.to(self, to) / random_.from(self, from, to=None) and
 * their functional forms: integers in [from, to). Without `to`, floats go up
 * to 2^digits inclusive (every value representable) and integers to the
 * type's maximum, as torch's random_ does. */
static bool dtype_int_max(eir_dtype d, int64_t *mx) {
    switch (d) {
    case EIR_BOOL: *mx = 1; return true;
    case EIR_U8: *mx = UINT8_MAX; return true;
    case EIR_I8: *mx = INT8_MAX; return true;
    case EIR_I16: *mx = INT16_MAX; return true;
    case EIR_U16: *mx = UINT16_MAX; return true;
    case EIR_I32: *mx = INT32_MAX; return true;
    case EIR_U32: *mx = UINT32_MAX; return true;
    case EIR_I64: case EIR_U64: *mx = INT64_MAX; return true;
    default:
        if (eir_is_floating(d)) { *mx = (int64_t)1 << float_digits(d); return true; }
        return false;
    }
}
static int random_range(eir_tview *out, bool has_from, int64_t from, bool has_to, int64_t to, eir_kctx *ctx) {
    int64_t mx;
    if (!dtype_int_max(out->dtype, &mx))
        return eir_kerr(ctx, "\"random_from_to_range_calc\" not implemented for '%s'", eir_torch_dtype_name(out->dtype));
    int64_t lo = has_from ? from : 0;
    uint64_t range; /* draw from [lo, lo + range); 0 means all 2^64 values */
    if (has_to) {
        if (!(lo < to))
            return eir_kerr(ctx, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                            (long long)lo, (long long)to);
        range = (uint64_t)to - (uint64_t)lo;
    } else {
        if (lo > mx)
            return eir_kerr(ctx, "random_ expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
                            (long long)lo, (long long)mx);
        range = (uint64_t)mx - (uint64_t)lo + 1; /* to the maximum, inclusive */
    }
    if (!ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    eir_iter it;
    const eir_tview *ops[1] = {out};
    eir_iter_init(&it, out->rank, out->sizes, 1, ops);
    char *p[1];
    int64_t len;
    while (eir_iter_next(&it, p, &len))
        for (int64_t k = 0; k < len; k++) {
            int64_t v = draw_int(ctx, lo, range);
            char *e = p[0] + k * it.inner_stride[0];
            if (eir_is_floating(out->dtype)) eir_store_f64(e, out->dtype, (double)v);
            else eir_store_i64(e, out->dtype, v);
        }
    return 0;
}
static int k_random(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)a; (void)n; (void)no;
    return random_range(&out[0], false, 0, false, 0, ctx);
}
static int k_random_to(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    if (n < 2) return eir_kerr(ctx, "random_: expected 'to'");
    return random_range(&out[0], false, 0, true, a[1].i, ctx);
}
static int k_random_from(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    if (n < 2) return eir_kerr(ctx, "random_: expected 'from'");
    bool has_to = n > 2 && a[2].kind == EIR_KA_INT;
    return random_range(&out[0], true, a[1].i, has_to, has_to ? a[2].i : 0, ctx);
}

/* poisson(rates): Knuth's product of uniforms below rate 10, Hoermann's
 * transformed rejection (PTRS) from 10 on, as torch's sampler switches */
static double poisson_draw(eir_kctx *ctx, double lambda) {
    if (!(lambda > 0)) return 0;
    if (lambda < 10) {
        double limit = exp(-lambda), prod = next_unit(ctx);
        double k = 0;
        while (prod > limit) {
            prod *= next_unit(ctx);
            k += 1;
        }
        return k;
    }
    double slam = sqrt(lambda), loglam = log(lambda);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
        double u = next_unit(ctx) - 0.5, v = next_unit(ctx);
        double us = 0.5 - fabs(u);
        double k = floor((2 * a / us + b) * u + lambda + 0.43);
        if (us >= 0.07 && v <= vr) return k;
        if (k < 0 || (us < 0.013 && v > us)) continue;
        if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -lambda + k * loglam - lgamma(k + 1)) return k;
    }
}
static int k_poisson(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)n; (void)no;
    if (a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "poisson: expected a tensor of rates");
    if (!ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    const eir_tview *r = a[0].t;
    eir_iter it;
    const eir_tview *ops[2] = {&out[0], r};
    eir_iter_init(&it, out[0].rank, out[0].sizes, 2, ops);
    char *ptr[2];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) {
            double lambda = eir_load_f64(ptr[1] + k * it.inner_stride[1], r->dtype);
            if (!(lambda >= 0)) return eir_kerr(ctx, "invalid Poisson rate, expected rate to be non-negative");
            eir_store_f64(ptr[0] + k * it.inner_stride[0], out[0].dtype, poisson_draw(ctx, lambda));
        }
    return 0;
}

/* multinomial(self, num_samples, replacement=False): indices drawn from the
 * categories of each row of self (1-d or 2-d, non-negative weights). Without
 * replacement (or for one sample) torch's method: the num_samples largest
 * of p / q with q ~ Exp(1), in decreasing order; with replacement, inverse
 * transform sampling on the normalized cumulative weights. */
static int k_multinomial(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    if (n < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "multinomial: expected a tensor and num_samples");
    const eir_tview *x = a[0].t;
    int64_t ns = a[1].i;
    bool repl = n > 2 && a[2].kind == EIR_KA_BOOL && a[2].i;
    if (!eir_is_floating(x->dtype))
        return eir_kerr(ctx, "multinomial only supports floating-point dtypes for input, got: %s",
                        eir_torch_dtype_name(x->dtype));
    if (x->rank != 1 && x->rank != 2) return eir_kerr(ctx, "prob_dist must be 1 or 2 dim");
    if (ns <= 0) return eir_kerr(ctx, "cannot sample n_sample <= 0 samples");
    int64_t ncat = x->sizes[x->rank - 1], rows = x->rank == 2 ? x->sizes[0] : 1;
    if (!repl && ns > ncat) return eir_kerr(ctx, "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    if (ncat > ((int64_t)1 << 24)) return eir_kerr(ctx, "number of categories cannot exceed 2^24");
    if (!ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    if (rows == 0 || ns == 0) return 0;
    double *w = eir_kalloc((size_t)ncat * 2 * sizeof(double));
    int64_t *idx = eir_kalloc((size_t)ncat * sizeof(int64_t));
    if (!w || !idx) {
        eir_kfree(w);
        eir_kfree(idx);
        return eir_kerr(ctx, "multinomial: out of memory");
    }
    double *key = w + ncat;
    size_t es = eir_dtype_size(x->dtype), os = eir_dtype_size(out[0].dtype);
    int rc = 0;
    for (int64_t r = 0; r < rows && !rc; r++) {
        double sum = 0;
        for (int64_t c = 0; c < ncat; c++) {
            int64_t off = (x->rank == 2 ? r * x->strides[0] : 0) + c * x->strides[x->rank - 1];
            w[c] = eir_load_f64((const char *)x->data + off * (int64_t)es, x->dtype);
            if (!(w[c] >= 0 && w[c] < INFINITY)) {
                rc = eir_kerr(ctx, "probability tensor contains either `inf`, `nan` or element < 0");
                break;
            }
            sum += w[c];
        }
        if (rc) break;
        if (!(sum > 0)) {
            rc = eir_kerr(ctx, "invalid multinomial distribution (sum of probabilities <= 0)");
            break;
        }
        char *orow = (char *)out[0].data + (out[0].rank == 2 ? r * out[0].strides[0] : 0) * (int64_t)os;
        int64_t ost = out[0].strides[out[0].rank - 1] * (int64_t)os;
        if (!repl || ns == 1) {
            for (int64_t c = 0; c < ncat; c++) {
                key[c] = w[c] / -log1p(-next_unit(ctx));
                idx[c] = c;
            }
            for (int64_t s = 0; s < ns; s++) { /* partial selection: the s-th largest key */
                int64_t best = s;
                for (int64_t c = s + 1; c < ncat; c++)
                    if (key[idx[c]] > key[idx[best]]) best = c;
                int64_t t = idx[s];
                idx[s] = idx[best];
                idx[best] = t;
                eir_store_i64(orow + s * ost, out[0].dtype, idx[s]);
            }
        } else {
            double acc = 0;
            for (int64_t c = 0; c < ncat; c++) key[c] = (acc += w[c] / sum);
            for (int64_t s = 0; s < ns; s++) {
                double u = next_unit(ctx);
                int64_t lo = 0, hi = ncat - 1;
                while (lo < hi) { /* first category whose cumulative weight exceeds u */
                    int64_t mid = lo + (hi - lo) / 2;
                    if (key[mid] > u) hi = mid;
                    else lo = mid + 1;
                }
                while (lo > 0 && w[lo] == 0) lo--; /* never a zero-weight category */
                eir_store_i64(orow + s * ost, out[0].dtype, lo);
            }
        }
    }
    eir_kfree(w);
    eir_kfree(idx);
    return rc;
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

/* ---- dropout variants: alpha_dropout, feature_dropout, feature_alpha_dropout ----
 * torch's _dropout_impl: evaluation mode, p = 0 and empty inputs copy the
 * input; p = 1 multiplies it by zero; otherwise a keep mask (one draw per
 * element, or per (sample, channel) for the feature forms) with probability
 * 1 - p scales the kept values by 1 / (1 - p), or for the alpha forms gives
 * x * noise * a + (noise - 1) * alpha * a + alpha * a * p, the affine map that
 * keeps SELU's mean and variance. Each step rounds to the input's dtype. */

static inline double in_dtype(double v, eir_dtype d) { return eir_round_f64(v, d); }

/* out = x * scale + shift over the views (same shape), each op rounded;
 * with keep_p < 1, each element draws: kept ones take (scale, shift)
 * = (sk[0], sh[0]), dropped ones (sk[1], sh[1]) */
static void affine_into(eir_tview *out, const eir_tview *x, const double *sk, const double *sh, bool add_shift,
                        double keep_p, eir_kctx *ctx) {
    eir_iter it;
    const eir_tview *ops[2] = {out, x};
    eir_iter_init(&it, out->rank, out->sizes, 2, ops);
    char *ptr[2];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) {
            int c = keep_p < 1 && !(next_unit(ctx) < keep_p);
            double v = in_dtype(eir_load_f64(ptr[1] + k * it.inner_stride[1], x->dtype) * sk[c], out->dtype);
            if (add_shift) v = in_dtype(v + sh[c], out->dtype);
            eir_store_f64(ptr[0] + k * it.inner_stride[0], out->dtype, v);
        }
}
static const double ONE[2] = {1, 1}, ZERO[2] = {0, 0};

static int dropout_variant(const char *op, bool feature, bool alpha, const eir_karg *a, uint32_t n, eir_tview *out,
                           eir_kctx *ctx) {
    if (n < 3 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected input, p and train", op);
    const eir_tview *x = a[0].t;
    double p = arg_float(&a[1], 0.5);
    bool train = a[2].i != 0;
    if (!(p >= 0 && p <= 1)) return eir_kerr(ctx, "dropout probability has to be between 0 and 1, but got %g", p);
    if (p == 0 || !train || eir_tview_numel(x) == 0) { /* the input, unchanged (any dtype, exactly) */
        eir_iter it;
        const eir_tview *ops[2] = {out, x};
        eir_iter_init(&it, out->rank, out->sizes, 2, ops);
        char *ptr[2];
        int64_t len;
        size_t es = eir_dtype_size(x->dtype);
        while (eir_iter_next(&it, ptr, &len))
            for (int64_t k = 0; k < len; k++)
                if (out->dtype == x->dtype) memcpy(ptr[0] + k * it.inner_stride[0], ptr[1] + k * it.inner_stride[1], es);
                else {
                    double re, im;
                    eir_load_c128(ptr[1] + k * it.inner_stride[1], x->dtype, &re, &im);
                    eir_store_c128(ptr[0] + k * it.inner_stride[0], out->dtype, re, im);
                }
        return 0;
    }
    if (!eir_is_floating(out->dtype)) return eir_kerr(ctx, "%s: expected a floating point input", op);
    if (p == 1) { affine_into(out, x, ZERO, ZERO, false, 1, ctx); return 0; }
    if (feature && x->rank < 2) return eir_kerr(ctx, "Feature dropout requires at least 2 dimensions in the input");
    if (!ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    const double A = 1.7580993408473766;
    eir_dtype d = out->dtype;
    double ca = 1.0 / sqrt((A * A * p + 1) * (1 - p));
    /* the noise's two values, as torch computes them in the dtype */
    double keep_scale = alpha ? in_dtype(ca, d) : in_dtype(in_dtype(1.0, d) / in_dtype(1 - p, d), d);
    double aa = in_dtype(A * ca, d), aap = in_dtype(A * ca * p, d);
    /* scale and shift for kept [0] and dropped [1] elements */
    double sk[2] = {keep_scale, 0}, sh[2] = {0, 0};
    if (alpha) {
        sh[0] = in_dtype(in_dtype(0.0 * aa, d) + aap, d);
        sh[1] = in_dtype(in_dtype(-1.0 * aa, d) + aap, d);
    }
    if (!feature) {
        affine_into(out, x, sk, sh, alpha, 1 - p, ctx);
        return 0;
    }
    /* one draw per (sample, channel): the [N, C] slices of x and out */
    size_t xes = eir_dtype_size(x->dtype), oes = eir_dtype_size(d);
    for (int64_t i = 0; i < x->sizes[0]; i++)
        for (int64_t c = 0; c < x->sizes[1]; c++) {
            int k = !(next_unit(ctx) < 1 - p);
            eir_tview xs = *x, os = *out;
            xs.data = (char *)x->data + (i * x->strides[0] + c * x->strides[1]) * (int64_t)xes;
            os.data = (char *)out->data + (i * out->strides[0] + c * out->strides[1]) * (int64_t)oes;
            xs.sizes[0] = xs.sizes[1] = os.sizes[0] = os.sizes[1] = 1;
            double s1[2] = {sk[k], sk[k]}, h1[2] = {sh[k], sh[k]};
            affine_into(&os, &xs, s1, h1, alpha, 1, ctx);
        }
    return 0;
}
/* aten.dropout in training mode (pointwise.c runs the other cases): torch's _dropout_impl */
int eir_dropout_train(const eir_karg *a, uint32_t n, eir_tview *out, eir_kctx *ctx) {
    return dropout_variant("dropout", false, false, a, n, out, ctx);
}
static int k_alpha_dropout(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    return dropout_variant("alpha_dropout", false, true, a, n, out, ctx);
}
static int k_feature_dropout(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    return dropout_variant("feature_dropout", true, false, a, n, out, ctx);
}
static int k_feature_alpha_dropout(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    return dropout_variant("feature_alpha_dropout", true, true, a, n, out, ctx);
}

/* ---- rrelu ----
 * Training: each element <= 0 is multiplied by a slope drawn uniformly from
 * [lower, upper] (noise records it; 1 elsewhere). Evaluation: leaky_relu
 * with slope (lower + upper) / 2, noise untouched. */
static int rrelu_run(const eir_tview *x, const eir_karg *lower, const eir_karg *upper, bool train, eir_tview *out,
                     eir_tview *noise, eir_kctx *ctx) {
    double lo = arg_float(lower, 1.0 / 8), hi = arg_float(upper, 1.0 / 3);
    if (!(lo <= hi)) return eir_kerr(ctx, "Lower bound should be less than or equal to the upper bound");
    if (!eir_is_floating(out->dtype)) return eir_kerr(ctx, "\"rrelu_with_noise_out_cpu\" not implemented for '%s'", eir_torch_dtype_name(out->dtype));
    eir_dtype d = out->dtype;
    /* the slopes as torch reads them: in float below float64 (opmath) */
    double eval_slope = d == EIR_F64 ? (lo + hi) / 2 : (double)(float)((lo + hi) / 2);
    if (train && !ctx->rng) return eir_kerr(ctx, "random ops need a generator");
    if (train && noise && (noise->rank != x->rank || eir_tview_numel(noise) != eir_tview_numel(x)))
        return eir_kerr(ctx, "rrelu_with_noise: noise must have the input's shape");
    eir_iter it;
    const eir_tview *ops[3] = {out, x, train && noise ? noise : out};
    eir_iter_init(&it, out->rank, out->sizes, 3, ops);
    char *ptr[3];
    int64_t len;
    while (eir_iter_next(&it, ptr, &len))
        for (int64_t k = 0; k < len; k++) {
            double v = eir_load_f64(ptr[1] + k * it.inner_stride[1], x->dtype), r = 1;
            if (train) {
                if (v <= 0) {
                    r = lo + (hi - lo) * next_unit(ctx);
                    if (d != EIR_F64) r = (float)r;
                    v = v * r;
                }
                if (noise) eir_store_f64(ptr[2] + k * it.inner_stride[2], noise->dtype, r);
            } else if (!(v > 0)) {
                v = v * eval_slope;
            }
            eir_store_f64(ptr[0] + k * it.inner_stride[0], d, in_dtype(v, d));
        }
    return 0;
}
/* rrelu(self, lower, upper, training, generator?) */
static int k_rrelu(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    if (n < 4 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "rrelu: expected self, lower, upper and training");
    return rrelu_run(a[0].t, &a[1], &a[2], a[3].i != 0, out, NULL, ctx);
}
/* rrelu_with_noise(self, Tensor(b!) noise, lower, upper, training, generator?): noise written in place */
static int k_rrelu_with_noise(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    (void)no;
    if (n < 5 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "rrelu_with_noise: expected self, noise, lower, upper and training");
    return rrelu_run(a[0].t, &a[2], &a[3], a[4].i != 0, out, (eir_tview *)a[1].t, ctx);
}
/* rrelu_with_noise_functional(...) -> (out, noise_out): the new noise as an output */
static int k_rrelu_with_noise_functional(const eir_karg *a, uint32_t n, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (n < 5 || no < 2 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "rrelu_with_noise_functional: expected self, noise, lower, upper, training and two outputs");
    bool train = a[4].i != 0;
    if (!train) {
        /* noise_out is noise, unchanged */
        if (eir_tview_numel(&out[1]) != eir_tview_numel(a[1].t)) return eir_kerr(ctx, "rrelu_with_noise_functional: noise shape");
        affine_into(&out[1], a[1].t, ONE, ZERO, false, 1, ctx);
    }
    return rrelu_run(a[0].t, &a[2], &a[3], train, out, &out[1], ctx);
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
    {"aten.bernoulli_.float", k_bernoulli_p},
    {"aten.bernoulli.default", k_bernoulli},
    {"aten.bernoulli.Tensor", k_bernoulli_tensor},
    {"aten.bernoulli_.Tensor", k_bernoulli_tensor},
    {"aten.uniform.default", k_uniform},
    {"aten.uniform_.default", k_uniform},
    {"aten.normal_functional.default", k_normal_functional},
    {"aten.normal_.default", k_normal_functional},
    {"aten.normal.float_float", k_normal_float_float},
    {"aten.normal.Tensor_Tensor", k_normal_tensors},
    {"aten.normal.Tensor_float", k_normal_tensors},
    {"aten.normal.float_Tensor", k_normal_tensors},
    {"aten.exponential.default", k_exponential},
    {"aten.exponential_.default", k_exponential},
    {"aten.cauchy.default", k_cauchy},
    {"aten.cauchy_.default", k_cauchy},
    {"aten.log_normal.default", k_log_normal},
    {"aten.log_normal_.default", k_log_normal},
    {"aten.geometric.default", k_geometric},
    {"aten.geometric_.default", k_geometric},
    {"aten.random.default", k_random},
    {"aten.random_.default", k_random},
    {"aten.random.to", k_random_to},
    {"aten.random_.to", k_random_to},
    {"aten.random.from", k_random_from},
    {"aten.random_.from", k_random_from},
    {"aten.poisson.default", k_poisson},
    {"aten.multinomial.default", k_multinomial},
    {"aten.native_dropout.default", k_native_dropout},
    {"aten.alpha_dropout.default", k_alpha_dropout},
    {"aten.alpha_dropout_.default", k_alpha_dropout},
    {"aten.feature_dropout.default", k_feature_dropout},
    {"aten.feature_dropout_.default", k_feature_dropout},
    {"aten.feature_alpha_dropout.default", k_feature_alpha_dropout},
    {"aten.feature_alpha_dropout_.default", k_feature_alpha_dropout},
    {"aten.rrelu.default", k_rrelu},
    {"aten.rrelu_.default", k_rrelu},
    {"aten.rrelu_with_noise.default", k_rrelu_with_noise},
    {"aten.rrelu_with_noise_.default", k_rrelu_with_noise},
    {"aten.rrelu_with_noise_functional.default", k_rrelu_with_noise_functional},
    {NULL, NULL},
};
