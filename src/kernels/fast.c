/* fast.c — float32/float64 fast paths of the CPU kernels (see fast.h):
 * pointwise rows for the engine in pointwise.c, direct depthwise
 * convolution, 2-d pooling and eval-mode batch norm on contiguous tensors.
 *
 * The loops are plain C written for the compiler's vectoriser: unit-stride
 * or broadcast operands, no dtype dispatch and no calls per element. The
 * file is compiled with loop vectorisation on (-O2 alone vectorises only
 * loops that need no epilogue) and, on x86-64 with gcc, each function is
 * cloned for AVX2+FMA (x86-64-v3) with the portable SSE2 version as the
 * fallback, picked once at load time from the CPU's features. Floating-point
 * contraction stays off (-std=c11), so a clone computes exactly what the
 * portable code computes. Floating-point operations are taken not to trap
 * (no-trapping-math), so the selects of vmath.h's functions become vector
 * blends (the compiler may then evaluate both sides); eir never reads the
 * IEEE exception flags and the values are the same.
 *
 * Threads: each entry point splits its outer loop (a row's elements, the
 * planes of a convolution or pooling, im2col's channels, batch norm's rows)
 * over the pool of the run in progress (eir_pool_current; base/pool.h). Every
 * output element is computed by the same code in the same order at any
 * thread count, so results are bit-identical to a single thread's. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic", "no-trapping-math")
#endif

#include <math.h>
#include <string.h>

#include "../base/pool.h"
#include "fast.h"
#include "kutil.h"
#include "pw.h"
#include "vmath.h"

/* not under ThreadSanitizer: its runtime is not up yet when the loader runs the
 * clones' IFUNC resolvers, which then crash */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define FAST_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
/* the depthwise kernels' inner loops also get an AVX-512 clone: elementwise
 * multiplies and adds in a fixed order (no contraction), the same bits as the
 * other clones */
#define DW_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define FAST_CLONES
#define DW_CLONES
#endif

int eir_kernels_fast = 1;

/* ---- bfloat16 / float16 rows (fast.h) ---- */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define CVT_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("tree-vectorize")))
#else
#define CVT_CLONES
#endif

/* static: a cloned function's resolver would otherwise be exported from libeir.so */
CVT_CLONES static void bf16_to_f32(float *restrict d, const uint16_t *restrict s, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)s[i] << 16;
        memcpy(&d[i], &u, 4);
    }
}

CVT_CLONES static void f32_to_bf16(uint16_t *restrict d, const float *restrict s, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &s[i], 4);
        uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, q = (u >> 16) | 0x40u;
        d[i] = (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? q : r);
    }
}

void eir_bf16_to_f32_row(float *d, const uint16_t *s, int64_t n) { bf16_to_f32(d, s, n); }
void eir_f32_to_bf16_row(uint16_t *d, const float *s, int64_t n) { f32_to_bf16(d, s, n); }

void eir_f16_to_f32_row(float *d, const uint16_t *s, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = eir_f16_to_f32(s[i]);
}

void eir_f32_to_f16_row(uint16_t *d, const float *s, int64_t n) {
    for (int64_t i = 0; i < n; i++) d[i] = eir_f32_to_f16(s[i]);
}

/* ======================================================================
 * pointwise rows
 * The element expressions are the engine's float / double element
 * functions (pointwise.c), written out for a whole row.
 * ====================================================================== */

#define MAXT(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : ((a) < (b) ? (b) : (a)))
#define MINT(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : ((b) < (a) ? (b) : (a)))

/* A binary row: both operands contiguous, or one of them a scalar. The
 * output may be one of the operands (in-place ops) but never overlaps them
 * otherwise (the engine checks), so restrict holds index by index. */
#define ROW2(name, T, sfx, EXPR)                                                                                \
    FAST_CLONES static bool row_##name##_##sfx(T *o_, const T *const *x, const int64_t *s, int64_t n,            \
                                               const struct pw_params *p) {                                      \
        T *restrict o = o_;                                                                                      \
        const T *restrict xa = x[0], *restrict xb = x[1];                                                        \
        (void)p;                                                                                                 \
        if (s[0] && s[1]) {                                                                                      \
            for (int64_t i = 0; i < n; i++) { T a = xa[i], b = xb[i]; o[i] = (EXPR); }                           \
        } else if (s[0]) {                                                                                       \
            const T b = xb[0];                                                                                   \
            for (int64_t i = 0; i < n; i++) { T a = xa[i]; o[i] = (EXPR); }                                      \
        } else if (s[1]) {                                                                                       \
            const T a = xa[0];                                                                                   \
            for (int64_t i = 0; i < n; i++) { T b = xb[i]; o[i] = (EXPR); }                                      \
        } else                                                                                                   \
            return false;                                                                                        \
        return true;                                                                                             \
    }

/* A unary row over a contiguous operand. */
#define ROW1(name, T, sfx, EXPR)                                                                                \
    FAST_CLONES static bool row_##name##_##sfx(T *o_, const T *const *x, const int64_t *s, int64_t n,            \
                                               const struct pw_params *p) {                                      \
        T *restrict o = o_;                                                                                      \
        const T *restrict xa = x[0];                                                                             \
        (void)p;                                                                                                 \
        if (!s[0]) return false;                                                                                 \
        for (int64_t i = 0; i < n; i++) { T a = xa[i]; o[i] = (EXPR); }                                          \
        return true;                                                                                             \
    }

/* The entry points fast.h declares: plain functions calling the cloned
 * static ones (a cloned function gets an ifunc symbol of default visibility,
 * which would leave the library). A long row is cut into pieces (on
 * multiples of 16 elements) that run on the pool; `grain` is the fewest
 * elements worth a thread, lower for ops that call libm per element (an add
 * over 32k floats took ~7 us here, about what handing it over costs). */
enum { ROW_GRAIN = 1 << 16, ROW_GRAIN_LIBM = 1 << 12 };

#define PAR_ROWS(T, sfx)                                                                                        \
    typedef bool (*row_fn_##sfx)(T *, const T *const *, const int64_t *, int64_t, const struct pw_params *);      \
    typedef struct row_job_##sfx {                                                                              \
        row_fn_##sfx f;                                                                                         \
        T *o;                                                                                                   \
        const T *const *x;                                                                                      \
        const int64_t *s;                                                                                       \
        int64_t n;                                                                                              \
        const struct pw_params *p;                                                                              \
    } row_job_##sfx;                                                                                            \
    static void row_piece_##sfx(void *ctx, int64_t b, int64_t e) {                                              \
        const row_job_##sfx *j = ctx;                                                                           \
        int64_t lo = b * 16, hi = e * 16 < j->n ? e * 16 : j->n;                                                \
        const T *x[4];                                                                                          \
        for (int k = 0; k < 4; k++) x[k] = j->x[k] && j->s[k] ? j->x[k] + lo : j->x[k];                        \
        j->f(j->o + lo, x, j->s, hi - lo, j->p);                                                                \
    }                                                                                                           \
    /* x has 4 entries (pointwise.c's fast_rows), s too; the row handles the                                    \
     * strides or not whatever its length: n = 0 asks it without writing */                                     \
    static bool par_rows_##sfx(row_fn_##sfx f, T *o, const T *const *x, const int64_t *s, int64_t n,            \
                               const struct pw_params *p, int64_t grain) {                                      \
        eir_pool *pool = eir_pool_current();                                                                    \
        if (eir_pool_chunks(pool, n, grain) <= 1 || !f(o, x, s, 0, p)) return f(o, x, s, n, p);                \
        row_job_##sfx j = {f, o, x, s, n, p};                                                                   \
        eir_parallel_for(pool, (n + 15) / 16, grain / 16, row_piece_##sfx, &j);                                 \
        return true;                                                                                            \
    }
PAR_ROWS(float, f32)
PAR_ROWS(double, f64)

#define ENTRY_G(name, grain)                                                                                   \
    bool eir_pw_row_##name##_f32(float *o, const float *const *x, const int64_t *s, int64_t n,                  \
                                 const struct pw_params *p) {                                                  \
        return par_rows_f32(row_##name##_f32, o, x, s, n, p, grain);                                           \
    }                                                                                                          \
    bool eir_pw_row_##name##_f64(double *o, const double *const *x, const int64_t *s, int64_t n,                \
                                 const struct pw_params *p) {                                                  \
        return par_rows_f64(row_##name##_f64, o, x, s, n, p, grain);                                           \
    }
#define ENTRY(name) ENTRY_G(name, ROW_GRAIN)

#define BOTH2(name, EF, ED) ROW2(name, float, f32, EF) ROW2(name, double, f64, ED) ENTRY(name)
#define BOTH1(name, EF, ED) ROW1(name, float, f32, EF) ROW1(name, double, f64, ED) ENTRY(name)

/* add(a, b, alpha) is fma(b, alpha, a): with alpha = 1 that is a + b
 * exactly (b * 1 is exact, one rounding), with alpha = -1 a - b. */
ROW2(add1, float, f32, a + b)
ROW2(add1, double, f64, a + b)
ROW2(sub1, float, f32, a - b)
ROW2(sub1, double, f64, a - b)
ROW2(adda, float, f32, fmaf(b, p->af, a))
ROW2(adda, double, f64, fma(b, p->a, a))
static bool row_add_f32(float *o, const float *const *x, const int64_t *s, int64_t n, const struct pw_params *p) {
    if (p->af == 1.0f) return row_add1_f32(o, x, s, n, p);
    if (p->af == -1.0f) return row_sub1_f32(o, x, s, n, p);
    return row_adda_f32(o, x, s, n, p);
}
static bool row_add_f64(double *o, const double *const *x, const int64_t *s, int64_t n, const struct pw_params *p) {
    if (p->a == 1.0) return row_add1_f64(o, x, s, n, p);
    if (p->a == -1.0) return row_sub1_f64(o, x, s, n, p);
    return row_adda_f64(o, x, s, n, p);
}
ENTRY(add)
BOTH2(mul, a * b, a * b)
BOTH2(div, a / b, a / b)
BOTH2(max, MAXT(a, b), MAXT(a, b))
BOTH2(min, MINT(a, b), MINT(a, b))

BOTH1(relu, MAXT(a, 0.0f), MAXT(a, 0.0))
BOTH1(neg, -a, -a)
BOTH1(abs, fabsf(a), fabs(a))
BOTH1(sqrt, sqrtf(a), sqrt(a))
BOTH1(rsqrt, 1.0f / sqrtf(a), 1.0 / sqrt(a))
BOTH1(recip, 1.0f / a, 1.0 / a)
/* fmax(t, 0) then fmin(., 6): NaN + 3 becomes 0 there, as in the element functions */
static inline float hs_f(float a) {
    float t = a + 3.0f;
    t = t > 0.0f ? t : 0.0f;
    return t < 6.0f ? t : 6.0f;
}
static inline double hs_d(double a) {
    double t = a + 3.0;
    t = t > 0.0 ? t : 0.0;
    return t < 6.0 ? t : 6.0;
}
BOTH1(hardswish, a * hs_f(a) / 6.0f, a * hs_d(a) / 6.0)
BOTH1(hardsigmoid, hs_f(a) / 6.0f, hs_d(a) / 6.0)
/* float32 exp, tanh, sigmoid, silu and gelu through vmath.h's vectorisable
 * exp / tanh / erf (within a few ulp of libm, or torch's erf formula), also
 * cloned for AVX-512; float64 calls libm per element (no vector versions, but
 * no dispatch either). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define VEC_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define VEC_CLONES
#endif

#define VROW1(name, EXPR)                                                                                       \
    VEC_CLONES static bool row_##name##_f32(float *o_, const float *const *x, const int64_t *s, int64_t n,       \
                                            const struct pw_params *p) {                                          \
        float *restrict o = o_;                                                                                  \
        const float *restrict xa = x[0];                                                                         \
        (void)p;                                                                                                 \
        if (!s[0]) return false;                                                                                 \
        for (int64_t i = 0; i < n; i++) { float a = xa[i]; o[i] = (EXPR); }                                      \
        return true;                                                                                             \
    }
#define VBOTH1(name, EF, ED) VROW1(name, EF) ROW1(name, double, f64, ED) ENTRY_G(name, ROW_GRAIN_LIBM)

VBOTH1(exp, vm_expf(a), exp(a))
VBOTH1(tanh, vm_tanhf(a), tanh(a))
VBOTH1(sigmoid, 1.0f / (1.0f + vm_expf(-a)), 1.0 / (1.0 + exp(-a)))
VBOTH1(silu, a / (1.0f + vm_expf(-a)), a / (1.0 + exp(-a)))

/* gelu: p->mode 0 erf ('none'), 1 tanh */
VROW1(gelu_erf, a * 0.5f * (1.0f + vm_erff(a * (float)M_SQRT1_2)))
VROW1(gelu_tanh, 0.5f * a * (1.0f + vm_tanhf((float)(M_SQRT2 * M_2_SQRTPI * 0.5) * (a + 0.044715f * a * a * a))))
static bool row_gelu_f32(float *o, const float *const *x, const int64_t *s, int64_t n, const struct pw_params *p) {
    return p->mode == 1 ? row_gelu_tanh_f32(o, x, s, n, p) : row_gelu_erf_f32(o, x, s, n, p);
}
static bool row_gelu_f64(double *o, const double *const *x, const int64_t *s, int64_t n, const struct pw_params *p) {
    if (!s[0]) return false;
    const double *xa = x[0];
    if (p->mode == 1) {
        const double k = M_SQRT2 * M_2_SQRTPI * 0.5, c = 0.044715;
        for (int64_t i = 0; i < n; i++) {
            double a = xa[i], inner = k * (a + c * a * a * a);
            o[i] = 0.5 * a * (1.0 + tanh(inner));
        }
    } else
        for (int64_t i = 0; i < n; i++) {
            double a = xa[i];
            o[i] = a * 0.5 * (1.0 + erf(a * M_SQRT1_2));
        }
    return true;
}
ENTRY_G(gelu, ROW_GRAIN_LIBM)

/* pow with a scalar exponent (pointwise.c's pows element functions): the
 * exponents torch computes by products, a square root or a reciprocal; any
 * other exponent (pow per element) stays on the element function. bfloat16
 * rows (converted to float, ALT) take the exponents torch computes in float
 * there too (2, 0.5, -0.5, -1), not 3 and -2 (rounded between the products)
 * nor float16's (plain pow). */
#define POWS_ROW(T, sfx, DT, ALT, E, SQRT)                                                                     \
    FAST_CLONES static bool row_pows_##sfx(T *o_, const T *const *x, const int64_t *s, int64_t n,                \
                                           const struct pw_params *p) {                                          \
        T *restrict o = o_;                                                                                      \
        const T *restrict xa = x[0];                                                                             \
        const T e = (E);                                                                                         \
        if (!s[0] || (p->ct != DT && (p->ct != ALT || e == 3 || e == -2))) return false;                         \
        if (e == 2) for (int64_t i = 0; i < n; i++) { T a = xa[i]; o[i] = a * a; }                               \
        else if (e == 3) for (int64_t i = 0; i < n; i++) { T a = xa[i]; o[i] = a * a * a; }                      \
        else if (e == -2) for (int64_t i = 0; i < n; i++) { T a = xa[i]; o[i] = (T)1 / (a * a); }                \
        else if (e == (T)0.5) for (int64_t i = 0; i < n; i++) o[i] = SQRT(xa[i]);                                \
        else if (e == (T)-0.5) for (int64_t i = 0; i < n; i++) o[i] = (T)1 / SQRT(xa[i]);                         \
        else if (e == -1) for (int64_t i = 0; i < n; i++) o[i] = (T)1 / xa[i];                                    \
        else return false;                                                                                       \
        return true;                                                                                             \
    }
POWS_ROW(float, f32, EIR_F32, EIR_BF16, p->af, sqrtf)
POWS_ROW(double, f64, EIR_F64, EIR_F64, p->a, sqrt)
ENTRY(pows)

/* clamp(self, lo, hi): x = (self, lo, hi), lo and hi scalars, either absent */
#define CLAMP_ROW(T, sfx)                                                                                       \
    FAST_CLONES static bool row_clamp_##sfx(T *o_, const T *const *x, const int64_t *s, int64_t n,               \
                                            const struct pw_params *p) {                                         \
        if (!s[0] || s[1] || s[2]) return false;                                                                 \
        T *restrict o = o_;                                                                                      \
        const T *restrict xa = x[0];                                                                             \
        const T lo = x[1][0], hi = x[2][0];                                                                      \
        if (p->has_lo && p->has_hi)                                                                              \
            for (int64_t i = 0; i < n; i++) { T r = MAXT(xa[i], lo); o[i] = MINT(r, hi); }                       \
        else if (p->has_lo)                                                                                      \
            for (int64_t i = 0; i < n; i++) { T a = xa[i]; o[i] = MAXT(a, lo); }                                 \
        else if (p->has_hi)                                                                                      \
            for (int64_t i = 0; i < n; i++) { T a = xa[i]; o[i] = MINT(a, hi); }                                 \
        else                                                                                                     \
            for (int64_t i = 0; i < n; i++) o[i] = xa[i];                                                        \
        return true;                                                                                             \
    }
CLAMP_ROW(float, f32)
CLAMP_ROW(double, f64)
ENTRY(clamp)

/* ======================================================================
 * depthwise convolution
 * ====================================================================== */

/* The output columns [lo, hi) whose input column ow * s + off is inside [0, W). */
static void col_range(int64_t OW, int64_t W, int64_t s, int64_t off, int64_t *lo, int64_t *hi) {
    int64_t l = off < 0 ? (-off + s - 1) / s : 0;
    int64_t h = W - 1 - off < 0 ? 0 : (W - 1 - off) / s + 1;
    if (h > OW) h = OW;
    *lo = l;
    *hi = h > l ? h : l;
}

FAST_CLONES static void dw_plane(const float *restrict x, const float *restrict w, float bias, float *restrict y,
                                 int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                                 const int64_t *stride, const int64_t *pad, const int64_t *dil) {
    int64_t sh = stride[0], sw = stride[1];
    for (int64_t oh = 0; oh < OH; oh++) {
        float *restrict yr = y + oh * OW;
        for (int64_t ow = 0; ow < OW; ow++) yr[ow] = 0.0f;
        for (int64_t kh = 0; kh < KH; kh++) {
            int64_t ih = oh * sh - pad[0] + kh * dil[0];
            if (ih < 0 || ih >= H) continue;
            const float *restrict xr = x + ih * W;
            for (int64_t kw = 0; kw < KW; kw++) {
                float wv = w[kh * KW + kw];
                int64_t off = kw * dil[1] - pad[1], lo, hi;
                col_range(OW, W, sw, off, &lo, &hi);
                if (sw == 1) {
                    const float *restrict xs = xr + off;
                    for (int64_t ow = lo; ow < hi; ow++) yr[ow] += wv * xs[ow];
                } else if (sw == 2) {
                    for (int64_t ow = lo; ow < hi; ow++) yr[ow] += wv * xr[2 * ow + off];
                } else {
                    for (int64_t ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow * sw + off];
                }
            }
        }
        if (bias != 0.0f)
            for (int64_t ow = 0; ow < OW; ow++) yr[ow] += bias;
    }
}

/* The plane x (H x W) at row ph, column pw of the HP x WP plane xp, zeros
 * around it; rows and columns past xp's edge are not needed and dropped. */
static void pad_plane(const float *x, float *xp, int64_t H, int64_t W, int64_t HP, int64_t WP, int64_t ph, int64_t pw) {
    memset(xp, 0, (size_t)(HP * WP) * sizeof(float));
    int64_t wn = W < WP - pw ? W : WP - pw;
    for (int64_t h = 0; h < H && h + ph < HP; h++)
        if (wn > 0) memcpy(xp + (h + ph) * WP + pw, x + h * W, (size_t)wn * sizeof(float));
}

/* One output row of a KH x 3 or KH x 5 depthwise kernel, undilated, over a
 * padded plane: each output is the sum of the taps in row-major order, then
 * the bias. rows[kh] is the padded input row of tap row kh. */
FAST_CLONES static void dw_row3(const float *const *rows, const float *w, float bias, float *restrict y, int64_t OW,
                                int64_t KH, int64_t s) {
    for (int64_t ow = 0; ow < OW; ow++) y[ow] = 0.0f;
    for (int64_t kh = 0; kh < KH; kh++) {
        const float *restrict r = rows[kh];
        float w0 = w[kh * 3], w1 = w[kh * 3 + 1], w2 = w[kh * 3 + 2];
        if (s == 1)
            for (int64_t ow = 0; ow < OW; ow++) y[ow] += w0 * r[ow] + w1 * r[ow + 1] + w2 * r[ow + 2];
        else
            for (int64_t ow = 0; ow < OW; ow++) {
                const float *q = r + ow * s;
                y[ow] += w0 * q[0] + w1 * q[1] + w2 * q[2];
            }
    }
    for (int64_t ow = 0; ow < OW; ow++) y[ow] += bias;
}
FAST_CLONES static void dw_row5(const float *const *rows, const float *w, float bias, float *restrict y, int64_t OW,
                                int64_t KH, int64_t s) {
    for (int64_t ow = 0; ow < OW; ow++) y[ow] = 0.0f;
    for (int64_t kh = 0; kh < KH; kh++) {
        const float *restrict r = rows[kh];
        const float *wk = w + kh * 5;
        float w0 = wk[0], w1 = wk[1], w2 = wk[2], w3 = wk[3], w4 = wk[4];
        if (s == 1)
            for (int64_t ow = 0; ow < OW; ow++)
                y[ow] += w0 * r[ow] + w1 * r[ow + 1] + w2 * r[ow + 2] + w3 * r[ow + 3] + w4 * r[ow + 4];
        else
            for (int64_t ow = 0; ow < OW; ow++) {
                const float *q = r + ow * s;
                y[ow] += w0 * q[0] + w1 * q[1] + w2 * q[2] + w3 * q[3] + w4 * q[4];
            }
    }
    for (int64_t ow = 0; ow < OW; ow++) y[ow] += bias;
}

/* One output row of a 3 x 3 depthwise kernel, undilated: the three tap rows
 * in one pass over the output row (no partial sums stored between rows).
 * Stride 1: r0..r2 are the padded input rows. Stride 2: e0..e2 hold each
 * padded row's even columns and o0..o2 its odd ones, so that every tap reads
 * unit-stride memory (input column 2 ow + k is e[ow + k / 2] or o[ow]). */
DW_CLONES static void dw_row33_s1(const float *restrict r0, const float *restrict r1, const float *restrict r2,
                                  const float *w, float bias, float *restrict y, int64_t OW) {
    const float a0 = w[0], a1 = w[1], a2 = w[2], b0 = w[3], b1 = w[4], b2 = w[5], c0 = w[6], c1 = w[7], c2 = w[8];
    for (int64_t ow = 0; ow < OW; ow++) {
        float t = a0 * r0[ow] + a1 * r0[ow + 1] + a2 * r0[ow + 2];
        t += b0 * r1[ow] + b1 * r1[ow + 1] + b2 * r1[ow + 2];
        t += c0 * r2[ow] + c1 * r2[ow + 1] + c2 * r2[ow + 2];
        y[ow] = t + bias;
    }
}
DW_CLONES static void dw_row33_s2(const float *restrict e0, const float *restrict o0, const float *restrict e1,
                                  const float *restrict o1, const float *restrict e2, const float *restrict o2,
                                  const float *w, float bias, float *restrict y, int64_t OW) {
    const float a0 = w[0], a1 = w[1], a2 = w[2], b0 = w[3], b1 = w[4], b2 = w[5], c0 = w[6], c1 = w[7], c2 = w[8];
    for (int64_t ow = 0; ow < OW; ow++) {
        float t = a0 * e0[ow] + a1 * o0[ow] + a2 * e0[ow + 1];
        t += b0 * e1[ow] + b1 * o1[ow] + b2 * e1[ow + 1];
        t += c0 * e2[ow] + c1 * o2[ow] + c2 * e2[ow + 1];
        y[ow] = t + bias;
    }
}

/* The padded plane xp (HP x WP) with each row's even columns first (WE =
 * (WP + 1) / 2 of them), then its odd ones, into xs (HP x WP). */
static void split_columns(const float *restrict xp, float *restrict xs, int64_t HP, int64_t WP) {
    int64_t WE = (WP + 1) / 2;
    for (int64_t h = 0; h < HP; h++) {
        const float *restrict r = xp + h * WP;
        float *restrict e = xs + h * WP, *restrict o = e + WE;
        for (int64_t i = 0; i < WP / 2; i++) {
            e[i] = r[2 * i];
            o[i] = r[2 * i + 1];
        }
        if (WP & 1) e[WE - 1] = r[WP - 1];
    }
}

/* Depthwise 3 x 3, 5 x 5 and 7 x 7 at strides 1 and 2 over "phase planes": the
 * zero-padded plane cut by row and column parity into sh * sw planes of
 * HE x WE (stride 1: the padded plane itself), so that tap (kh, kw) of every
 * output reads one phase plane at unit stride, at a fixed offset. Seen flat,
 * output (oh, ow) is element oh * WE + ow of every tap's stream, so one long
 * unit-stride loop over OH * WE elements computes the whole plane (the
 * columns ow >= OW of each row are computed and dropped): narrow planes
 * (7 x 7, 14 x 14) vectorize as well as wide ones. */
#define DW_TAP(t) const float *restrict p##t = p[t]; const float w##t = w[t];
#define DW_TERM(t) + w##t * p##t[i]
DW_CLONES static void dw_flat9(const float *const *p, int64_t at, const float *w, float bias, float *restrict y,
                               int64_t n) {
    const float *const *q = p;
    const float *p_[9];
    for (int t = 0; t < 9; t++) p_[t] = q[t] + at;
    p = p_;
    DW_TAP(0) DW_TAP(1) DW_TAP(2) DW_TAP(3) DW_TAP(4) DW_TAP(5) DW_TAP(6) DW_TAP(7) DW_TAP(8)
    for (int64_t i = 0; i < n; i++)
        y[i] = (w0 * p0[i] DW_TERM(1) DW_TERM(2) DW_TERM(3) DW_TERM(4) DW_TERM(5) DW_TERM(6) DW_TERM(7) DW_TERM(8)) + bias;
}
DW_CLONES static void dw_flat25(const float *const *p, int64_t at, const float *w, float bias, float *restrict y,
                                int64_t n) {
    const float *const *q = p;
    const float *p_[25];
    for (int t = 0; t < 25; t++) p_[t] = q[t] + at;
    p = p_;
    DW_TAP(0) DW_TAP(1) DW_TAP(2) DW_TAP(3) DW_TAP(4) DW_TAP(5) DW_TAP(6) DW_TAP(7) DW_TAP(8) DW_TAP(9)
    DW_TAP(10) DW_TAP(11) DW_TAP(12) DW_TAP(13) DW_TAP(14) DW_TAP(15) DW_TAP(16) DW_TAP(17) DW_TAP(18) DW_TAP(19)
    DW_TAP(20) DW_TAP(21) DW_TAP(22) DW_TAP(23) DW_TAP(24)
    for (int64_t i = 0; i < n; i++)
        y[i] = w0 * p0[i] DW_TERM(1) DW_TERM(2) DW_TERM(3) DW_TERM(4) DW_TERM(5) DW_TERM(6) DW_TERM(7) DW_TERM(8)
            DW_TERM(9) DW_TERM(10) DW_TERM(11) DW_TERM(12) DW_TERM(13) DW_TERM(14) DW_TERM(15) DW_TERM(16)
            DW_TERM(17) DW_TERM(18) DW_TERM(19) DW_TERM(20) DW_TERM(21) DW_TERM(22) DW_TERM(23) DW_TERM(24) + bias;
}
#undef DW_TAP
#undef DW_TERM

/* The same for 7 x 7 (49 taps), in blocks of 16 outputs held in registers while the taps go by:
 * each output w[0] p[0] + w[1] p[1] + ... + w[48] p[48] in that order, then the bias. */
enum { DW_LANES = 16 };
DW_CLONES static void dw_flat49(const float *const *p, int64_t at, const float *w, float bias, float *restrict y,
                                int64_t n) {
    int64_t i = 0;
    for (; i + DW_LANES <= n; i += DW_LANES) {
        float acc[DW_LANES];
        const float *restrict p0 = p[0] + at + i;
        for (int l = 0; l < DW_LANES; l++) acc[l] = w[0] * p0[l];
        for (int t = 1; t < 49; t++) {
            const float wt = w[t], *restrict pt = p[t] + at + i;
            for (int l = 0; l < DW_LANES; l++) acc[l] += wt * pt[l];
        }
        for (int l = 0; l < DW_LANES; l++) y[i + l] = acc[l] + bias;
    }
    for (; i < n; i++) {
        float a = w[0] * p[0][at + i];
        for (int t = 1; t < 49; t++) a += w[t] * p[t][at + i];
        y[i] = a + bias;
    }
}

/* out (OH x OW) = acc's rows (OH x WE, the first OW columns of each) */
static void dw_compact(const float *restrict acc, float *restrict y, int64_t OH, int64_t OW, int64_t WE) {
    for (int64_t oh = 0; oh < OH; oh++) memcpy(y + oh * OW, acc + oh * WE, (size_t)OW * sizeof(float));
}

/* Output rows at least this wide are computed row by row (no columns to drop).
 * Narrower planes go through one flat loop and a copy of their rows: for rows
 * of 28 and 56 (MobileNets) the flat loop, with its one vector tail per plane,
 * its few dropped columns and the copy, costs less than a scalar tail per row. */
enum { DW_WIDE = 64 };

/* The geometry of the phase planes; false when the flat kernels do not apply. */
typedef struct dw_phases {
    int64_t sh, sw, HE, WE, PS; /* strides, phase plane rows and columns, floats per phase (with slack) */
} dw_phases;

static bool dw_phases_of(int64_t OH, int64_t OW, int64_t KH, int64_t KW, const int64_t *stride, const int64_t *pad,
                         const int64_t *dil, dw_phases *ph) {
    if (!((KH == 3 && KW == 3) || (KH == 5 && KW == 5) || (KH == 7 && KW == 7)) || dil[0] != 1 || dil[1] != 1)
        return false;
    if (stride[0] < 1 || stride[0] > 2 || stride[1] < 1 || stride[1] > 2) return false;
    if (pad[0] < 0 || pad[1] < 0 || pad[0] >= KH || pad[1] >= KW || OH < 1 || OW < 1) return false;
    int64_t HP = (OH - 1) * stride[0] + KH, WP = (OW - 1) * stride[1] + KW;
    ph->sh = stride[0], ph->sw = stride[1];
    ph->HE = (HP + ph->sh - 1) / ph->sh, ph->WE = (WP + ph->sw - 1) / ph->sw;
    ph->PS = (ph->HE + 1) * ph->WE; /* a row of slack: the last rows' dropped columns read past the plane */
    return true;
}

/* a[k] = src[2 k] and b[k] = src[2 k + 1] for k in [0, n): a row's even and odd columns in one pass */
DW_CLONES static void dw_split2(float *restrict a, float *restrict b, const float *restrict src, int64_t n) {
    for (int64_t k = 0; k < n; k++) {
        a[k] = src[2 * k];
        b[k] = src[2 * k + 1];
    }
}

/* x's plane (H x W) into the phase planes at ph. Every plane of one
 * convolution writes the same positions, so the zeros around them are set
 * once (dw_planes clears ph before its first plane) and stay. */
static void dw_fill_phases(const float *x, float *ph, const dw_phases *g, int64_t H, int64_t W, int64_t pt, int64_t pl) {
    int64_t sh = g->sh, sw = g->sw, WE = g->WE, HP = g->HE * sh, WP = WE * sw;
    for (int64_t h = 0; h < H; h++) {
        int64_t r = h + pt;
        if (r >= HP) break;
        const float *xr = x + h * W;
        float *row = ph + (sh == 1 ? r * WE : (r & 1) * sw * g->PS + (r >> 1) * WE);
        int64_t wn = W < WP - pl ? W : WP - pl;
        if (sw == 1) {
            if (wn > 0) memcpy(row + pl, xr, (size_t)wn * sizeof(float));
            continue;
        }
        /* padded column c = w + pl goes to phase c % 2, column c / 2: input columns 2k and 2k + 1 to
         * column k + pl / 2 of phase pl % 2 and column k + (pl + 1) / 2 of the other phase */
        if (wn <= 0) continue;
        float *a = row + (pl & 1) * g->PS + pl / 2, *b = row + ((pl + 1) & 1) * g->PS + (pl + 1) / 2;
        dw_split2(a, b, xr, wn / 2);
        if (wn & 1) a[wn / 2] = xr[wn - 1];
    }
}

/* Planes [b, e) of the N*C planes of a depthwise convolution. */
typedef struct dw_job {
    const float *x, *w, *bias;
    float *y;
    int64_t C, H, W, OH, OW, KH, KW;
    const int64_t *stride, *pad, *dil;
    const eir_conv_epi *epi;
} dw_job;

static void dw_planes(void *ctx, int64_t b, int64_t e) {
    const dw_job *j = ctx;
    int64_t C = j->C, H = j->H, W = j->W, OH = j->OH, OW = j->OW, KH = j->KH, KW = j->KW;
    const int64_t *stride = j->stride, *pad = j->pad, *dil = j->dil;
    dw_phases g;
    float *phb = NULL;
    if (eir_kernels_fast && dw_phases_of(OH, OW, KH, KW, stride, pad, dil, &g) &&
        (phb = eir_kalloc((size_t)(g.sh * g.sw * g.PS + OH * g.WE) * sizeof(float))) != NULL) {
        float *acc = phb + g.sh * g.sw * g.PS;
        memset(phb, 0, (size_t)(g.sh * g.sw * g.PS) * sizeof(float)); /* the padding, for all planes */
        const float *taps[49];
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++)
                taps[kh * KW + kw] = phb + ((kh % g.sh) * g.sw + kw % g.sw) * g.PS + (kh / g.sh) * g.WE + kw / g.sw;
        for (int64_t pl = b; pl < e; pl++) {
            int64_t c = pl % C;
            const float *xc = j->x + pl * H * W, *wc = j->w + c * KH * KW;
            float *yc = j->y + pl * OH * OW;
            float bv = j->bias ? j->bias[c] : 0.0f;
            dw_fill_phases(xc, phb, &g, H, W, pad[0], pad[1]);
            if (OW >= DW_WIDE)  /* row by row, straight into y */
                for (int64_t oh = 0; oh < OH; oh++) {
                    if (KH == 3) dw_flat9(taps, oh * g.WE, wc, bv, yc + oh * OW, OW);
                    else if (KH == 5) dw_flat25(taps, oh * g.WE, wc, bv, yc + oh * OW, OW);
                    else dw_flat49(taps, oh * g.WE, wc, bv, yc + oh * OW, OW);
                }
            else {              /* narrow: the whole plane in one loop, then its first OW columns */
                if (KH == 3) dw_flat9(taps, 0, wc, bv, acc, OH * g.WE);
                else if (KH == 5) dw_flat25(taps, 0, wc, bv, acc, OH * g.WE);
                else dw_flat49(taps, 0, wc, bv, acc, OH * g.WE);
                dw_compact(acc, yc, OH, OW, g.WE);
            }
            if (j->epi) j->epi->fn(j->epi->ctx, c, yc, OH * OW);
        }
        eir_kfree(phb);
        return;
    }
    /* kernel width 3 or 5, no dilation, padding within the kernel: rows over a zero-padded copy of the plane */
    int64_t HP = (OH - 1) * stride[0] + KH, WP = (OW - 1) * stride[1] + KW;
    float *xp = NULL, *xs = NULL;
    bool padded = (KW == 3 || KW == 5) && KH <= 16 && dil[0] == 1 && dil[1] == 1 && pad[0] >= 0 && pad[1] >= 0 &&
                  pad[0] < KH && pad[1] < KW && HP > 0 && WP > 0 &&
                  (xp = eir_kalloc((size_t)(HP * WP) * sizeof(float))) != NULL;
    /* 3 x 3, stride 1 or 2 (2 in both directions: the rows of columns split by parity) */
    bool k33 = padded && KH == 3 && KW == 3 &&
               ((stride[0] == 1 && stride[1] == 1) ||
                (stride[0] == 2 && stride[1] == 2 && (xs = eir_kalloc((size_t)(HP * WP) * sizeof(float))) != NULL));
    for (int64_t pl = b; pl < e; pl++) {
        int64_t c = pl % C;
        const float *xc = j->x + pl * H * W, *wc = j->w + c * KH * KW;
        float *yc = j->y + pl * OH * OW, bv = j->bias ? j->bias[c] : 0.0f;
        if (!padded) {
            dw_plane(xc, wc, bv, yc, H, W, OH, OW, KH, KW, stride, pad, dil);
            if (j->epi) j->epi->fn(j->epi->ctx, c, yc, OH * OW);
            continue;
        }
        pad_plane(xc, xp, H, W, HP, WP, pad[0], pad[1]);
        if (k33 && xs) {
            split_columns(xp, xs, HP, WP);
            int64_t WE = (WP + 1) / 2;
            for (int64_t oh = 0; oh < OH; oh++) {
                const float *r0 = xs + 2 * oh * WP, *r1 = r0 + WP, *r2 = r1 + WP;
                dw_row33_s2(r0, r0 + WE, r1, r1 + WE, r2, r2 + WE, wc, bv, yc + oh * OW, OW);
            }
            if (j->epi) j->epi->fn(j->epi->ctx, c, yc, OH * OW);
            continue;
        }
        if (k33) {
            for (int64_t oh = 0; oh < OH; oh++) {
                const float *r0 = xp + oh * WP;
                dw_row33_s1(r0, r0 + WP, r0 + 2 * WP, wc, bv, yc + oh * OW, OW);
            }
            if (j->epi) j->epi->fn(j->epi->ctx, c, yc, OH * OW);
            continue;
        }
        const float *rows[16];
        for (int64_t oh = 0; oh < OH; oh++) {
            for (int64_t kh = 0; kh < KH; kh++) rows[kh] = xp + (oh * stride[0] + kh) * WP;
            if (KW == 3) dw_row3(rows, wc, bv, yc + oh * OW, OW, KH, stride[1]);
            else dw_row5(rows, wc, bv, yc + oh * OW, OW, KH, stride[1]);
        }
        if (j->epi) j->epi->fn(j->epi->ctx, c, yc, OH * OW);
    }
    eir_kfree(xs);
    eir_kfree(xp);
}

/* the fewest multiply-adds (or window taps) a thread takes in the loops below */
enum { PLANE_GRAIN = 1 << 14 };

/* The grain, in planes, of a loop over planes of `per` operations each. */
static int64_t plane_grain(int64_t per) { return per >= PLANE_GRAIN ? 1 : PLANE_GRAIN / (per > 0 ? per : 1); }

void eir_conv2d_depthwise_f32(const float *x, const float *w, const float *bias, float *y, int64_t N, int64_t C,
                              int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW, const int64_t *stride,
                              const int64_t *pad, const int64_t *dil) {
    eir_conv2d_depthwise_epi_f32(x, w, bias, y, N, C, H, W, OH, OW, KH, KW, stride, pad, dil, NULL);
}

void eir_conv2d_depthwise_epi_f32(const float *x, const float *w, const float *bias, float *y, int64_t N, int64_t C,
                                  int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                                  const int64_t *stride, const int64_t *pad, const int64_t *dil, const eir_conv_epi *epi) {
    dw_job j = {x, w, bias, y, C, H, W, OH, OW, KH, KW, stride, pad, dil, epi};
    eir_parallel_for(eir_pool_current(), N * C, plane_grain(OH * OW * KH * KW), dw_planes, &j);
}

/* ======================================================================
 * im2col
 * ====================================================================== */

typedef struct im2col_job {
    const float *x;
    float *col;
    int64_t H, W, OH, OW, KH, KW;
    const int64_t *stride, *pad, *dil;
} im2col_job;

/* The rows of channels [c0, c1) of the column matrix. */
static void im2col_channels(void *ctx, int64_t c0, int64_t c1) {
    const im2col_job *j = ctx;
    const float *x = j->x;
    int64_t H = j->H, W = j->W, OH = j->OH, OW = j->OW, KH = j->KH, KW = j->KW;
    const int64_t *stride = j->stride, *pad = j->pad, *dil = j->dil;
    float *q = j->col + c0 * KH * KW * OH * OW;
    for (int64_t c = c0; c < c1; c++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++) {
                int64_t off = kw * dil[1] - pad[1], lo, hi;
                col_range(OW, W, stride[1], off, &lo, &hi);
                for (int64_t oh = 0; oh < OH; oh++, q += OW) {
                    int64_t ih = oh * stride[0] - pad[0] + kh * dil[0];
                    if (ih < 0 || ih >= H) {
                        memset(q, 0, (size_t)OW * sizeof(float));
                        continue;
                    }
                    const float *xr = x + (c * H + ih) * W;
                    for (int64_t ow = 0; ow < lo; ow++) q[ow] = 0.0f;
                    if (stride[1] == 1) {
                        if (hi > lo) memcpy(q + lo, xr + lo + off, (size_t)(hi - lo) * sizeof(float));
                    } else
                        for (int64_t ow = lo; ow < hi; ow++) q[ow] = xr[ow * stride[1] + off];
                    for (int64_t ow = hi; ow < OW; ow++) q[ow] = 0.0f;
                }
            }
}

/* cloned as a static function: a cloned global's resolver would be exported from the shared library */
FAST_CLONES static void im2col2d_range(const float *x, float *col, int64_t C, int64_t H, int64_t W, int64_t OW, int64_t KH,
                                       int64_t KW, const int64_t *stride, const int64_t *pad, const int64_t *dil,
                                       int64_t p0, int64_t p1) {
    int64_t n = p1 - p0;
    float *q = col;
    for (int64_t c = 0; c < C; c++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++, q += n) {
                int64_t off = kw * dil[1] - pad[1], lo, hi;
                col_range(OW, W, stride[1], off, &lo, &hi);
                for (int64_t p = p0; p < p1;) {
                    int64_t oh = p / OW, ow0 = p % OW, ow1 = OW < ow0 + (p1 - p) ? OW : ow0 + (p1 - p);
                    int64_t ih = oh * stride[0] - pad[0] + kh * dil[0], base = (p - p0) - ow0; /* q[base + ow]: column of ow */
                    p += ow1 - ow0;
                    if (ih < 0 || ih >= H) {
                        memset(q + base + ow0, 0, (size_t)(ow1 - ow0) * sizeof(float));
                        continue;
                    }
                    const float *xr = x + (c * H + ih) * W;
                    int64_t a = lo > ow0 ? lo : ow0, b = hi < ow1 ? hi : ow1;
                    if (a > ow1) a = ow1;
                    if (b < a) b = a;
                    for (int64_t ow = ow0; ow < a; ow++) q[base + ow] = 0.0f;
                    if (stride[1] == 1) {
                        if (b > a) memcpy(q + base + a, xr + a + off, (size_t)(b - a) * sizeof(float));
                    } else
                        for (int64_t ow = a; ow < b; ow++) q[base + ow] = xr[ow * stride[1] + off];
                    for (int64_t ow = b; ow < ow1; ow++) q[base + ow] = 0.0f;
                }
            }
}

void eir_im2col2d_range_f32(const float *x, float *col, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW,
                            int64_t KH, int64_t KW, const int64_t *stride, const int64_t *pad, const int64_t *dil,
                            int64_t p0, int64_t p1) {
    (void)OH;
    im2col2d_range(x, col, C, H, W, OW, KH, KW, stride, pad, dil, p0, p1);
}

void eir_im2col2d_f32(const float *x, float *col, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH,
                      int64_t KW, const int64_t *stride, const int64_t *pad, const int64_t *dil) {
    im2col_job j = {x, col, H, W, OH, OW, KH, KW, stride, pad, dil};
    eir_parallel_for(eir_pool_current(), C, plane_grain(KH * KW * OH * OW), im2col_channels, &j);
}

/* ======================================================================
 * pooling
 * ====================================================================== */

/* One output of max pooling over rows [hs, he) and columns [ws, we) (both
 * clipped to the plane): the generic kernel's loop. */
static inline void max_one(const float *xp, int64_t W, int64_t hs, int64_t he, int64_t ws, int64_t we, int64_t dh,
                           int64_t dw, float *y, int64_t *ind) {
    int64_t mi = hs * W + ws;
    float mv = -INFINITY;
    for (int64_t h = hs; h < he; h += dh)
        for (int64_t w = ws; w < we; w += dw) {
            float v = xp[h * W + w];
            if (v > mv || v != v) { mv = v; mi = h * W + w; }
        }
    *y = mv;
    if (ind) *ind = mi;
}

/* Outputs [lo, hi) of one output row whose column windows lie inside the
 * plane, tap by tap across the row (the same taps in the same order per
 * output as max_one): y and ind hold the running maximum and its index. */
FAST_CLONES static void max_row(const float *xp, int64_t W, int64_t hs, int64_t he, int64_t dh, int64_t KW, int64_t dw,
                                int64_t s, int64_t p, int64_t lo, int64_t hi, float *restrict y, int64_t *restrict ind) {
    for (int64_t ow = lo; ow < hi; ow++) y[ow] = -INFINITY;
    if (ind)
        for (int64_t ow = lo; ow < hi; ow++) ind[ow] = hs * W + ow * s - p;
    for (int64_t h = hs; h < he; h += dh) {
        const float *restrict xr = xp + h * W;
        for (int64_t kw = 0; kw < KW; kw++) {
            int64_t off = kw * dw - p;
            if (!ind) {
                for (int64_t ow = lo; ow < hi; ow++) {
                    float v = xr[ow * s + off], m = y[ow];
                    y[ow] = v > m || v != v ? v : m;
                }
            } else {
                int64_t base = h * W + off;
                for (int64_t ow = lo; ow < hi; ow++) {
                    float v = xr[ow * s + off], m = y[ow];
                    bool c = v > m || v != v;
                    y[ow] = c ? v : m;
                    ind[ow] = c ? base + ow * s : ind[ow];
                }
            }
        }
    }
}

typedef struct pool_job {
    const float *x;
    float *y;
    int64_t *ind;
    int64_t H, W, OH, OW, lo, hi, divisor_override;
    const int64_t *ks, *st, *pd, *dl;
    bool count_include_pad;
} pool_job;

static void max_planes(void *ctx, int64_t b, int64_t e) {
    const pool_job *j = ctx;
    const float *x = j->x;
    float *y = j->y;
    int64_t *ind = j->ind, H = j->H, W = j->W, OH = j->OH, OW = j->OW, lo = j->lo, hi = j->hi;
    const int64_t *ks = j->ks, *st = j->st, *pd = j->pd, *dl = j->dl;
    for (int64_t pl = b; pl < e; pl++) {
        const float *xp = x + pl * H * W;
        float *yp = y + pl * OH * OW;
        int64_t *ip = ind ? ind + pl * OH * OW : NULL;
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t hs = oh * st[0] - pd[0], he = hs + (ks[0] - 1) * dl[0] + 1;
            if (he > H) he = H;
            while (hs < 0) hs += dl[0];
            float *yr = yp + oh * OW;
            int64_t *ir = ip ? ip + oh * OW : NULL;
            for (int64_t ow = 0; ow < OW; ow++) {
                if (ow == lo && hi > lo) {
                    max_row(xp, W, hs, he, dl[0], ks[1], dl[1], st[1], pd[1], lo, hi, yr, ir);
                    ow = hi - 1;
                    continue;
                }
                int64_t ws = ow * st[1] - pd[1], we = ws + (ks[1] - 1) * dl[1] + 1;
                if (we > W) we = W;
                while (ws < 0) ws += dl[1];
                max_one(xp, W, hs, he, ws, we, dl[0], dl[1], yr + ow, ir ? ir + ow : NULL);
            }
        }
    }
}

void eir_max_pool2d_f32(const float *x, float *y, int64_t *ind, int64_t planes, int64_t H, int64_t W, int64_t OH,
                        int64_t OW, const int64_t *ks, const int64_t *st, const int64_t *pd, const int64_t *dl) {
    /* the columns whose whole window is inside the plane */
    int64_t lo = 0, hi = 0;
    if (st[1] > 0) {
        lo = pd[1] > 0 ? (pd[1] + st[1] - 1) / st[1] : 0;
        int64_t last = W - 1 - ((ks[1] - 1) * dl[1] - pd[1]); /* ow * s <= last */
        hi = last < 0 ? 0 : last / st[1] + 1;
        if (hi > OW) hi = OW;
        if (lo > hi) lo = hi;
    }
    pool_job j = {.x = x, .y = y, .ind = ind, .H = H, .W = W, .OH = OH, .OW = OW, .lo = lo, .hi = hi,
                  .ks = ks, .st = st, .pd = pd, .dl = dl};
    eir_parallel_for(eir_pool_current(), planes, plane_grain(OH * OW * ks[0] * ks[1]), max_planes, &j);
}

/* Stride 1, padding within the window: sums over a zero-padded copy of the plane, in blocks of
 * 8 outputs of a row held in registers while the taps go by (the whole plane in one call), then
 * divided by the divisors of the plane's shape (div, OH x OW, the same for every plane). Every
 * output adds its window's values in the order of the plain loop in avg_planes (rows, then
 * columns, in double from 0), the padding's zeros included, which leave a sum of +0 or more
 * unchanged: the same bits. */
DW_CLONES static void avg_plane_s1(const float *restrict xp, int64_t WP, int64_t OH, int64_t OW, int64_t KH,
                                   int64_t KW, const double *restrict div, float *restrict yp) {
    for (int64_t oh = 0; oh < OH; oh++) {
        const double *restrict dr = div + oh * OW;
        float *restrict yr = yp + oh * OW;
        int64_t ow = 0;
        for (; ow + 8 <= OW; ow += 8) {
            double a[8] = {0};
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++) {
                    const float *restrict x = xp + (oh + kh) * WP + kw + ow;
                    for (int l = 0; l < 8; l++) a[l] += (double)x[l];
                }
            for (int l = 0; l < 8; l++) yr[ow + l] = (float)(a[l] / dr[ow + l]);
        }
        for (; ow < OW; ow++) {
            double a = 0;
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++) a += (double)xp[(oh + kh) * WP + kw + ow];
            yr[ow] = (float)(a / dr[ow]);
        }
    }
}

static bool avg_planes_s1(const pool_job *j, int64_t b, int64_t e) {
    int64_t H = j->H, W = j->W, OH = j->OH, OW = j->OW, dv = j->divisor_override;
    const int64_t *ks = j->ks, *pd = j->pd;
    if (j->st[0] != 1 || j->st[1] != 1 || pd[0] >= ks[0] || pd[1] >= ks[1] || pd[0] < 0 || pd[1] < 0) return false;
    int64_t HP = OH + ks[0] - 1, WP = OW + ks[1] - 1;
    float *xp = eir_kalloc((size_t)(HP * WP) * sizeof(float));
    double *div = eir_kalloc((size_t)(OH * OW) * sizeof(double));
    bool *empty = eir_kalloc((size_t)(OH * OW) * sizeof(bool));
    if (!xp || !div || !empty) {
        eir_kfree(xp);
        eir_kfree(div);
        eir_kfree(empty);
        return false;
    }
    bool any_empty = false;
    for (int64_t oh = 0; oh < OH; oh++) {
        int64_t hs = oh - pd[0], he = hs + ks[0];
        if (he > H + pd[0]) he = H + pd[0];
        int64_t hs0 = hs < 0 ? 0 : hs, he0 = he > H ? H : he;
        for (int64_t ow = 0; ow < OW; ow++) {
            int64_t ws = ow - pd[1], we = ws + ks[1];
            if (we > W + pd[1]) we = W + pd[1];
            int64_t pool = (he - hs) * (we - ws), ws0 = ws < 0 ? 0 : ws, we0 = we > W ? W : we;
            /* an empty window (past the input: ceil mode) gives 0, set after the division */
            bool em = hs0 >= he0 || ws0 >= we0;
            empty[oh * OW + ow] = em;
            any_empty |= em;
            div[oh * OW + ow] = em ? 1.0 : (double)(dv ? dv : j->count_include_pad ? pool : (he0 - hs0) * (we0 - ws0));
        }
    }
    for (int64_t pl = b; pl < e; pl++) {
        float *yp = j->y + pl * OH * OW;
        pad_plane(j->x + pl * H * W, xp, H, W, HP, WP, pd[0], pd[1]);
        avg_plane_s1(xp, WP, OH, OW, ks[0], ks[1], div, yp);
        for (int64_t i = 0; any_empty && i < OH * OW; i++)
            if (empty[i]) yp[i] = 0.0f;
    }
    eir_kfree(xp);
    eir_kfree(div);
    eir_kfree(empty);
    return true;
}

static void avg_planes(void *ctx, int64_t b, int64_t e) {
    const pool_job *j = ctx;
    if (eir_kernels_fast && avg_planes_s1(j, b, e)) return;
    const float *x = j->x;
    float *y = j->y;
    int64_t H = j->H, W = j->W, OH = j->OH, OW = j->OW, divisor_override = j->divisor_override;
    const int64_t *ks = j->ks, *st = j->st, *pd = j->pd;
    bool count_include_pad = j->count_include_pad;
    for (int64_t pl = b; pl < e; pl++) {
        const float *xp = x + pl * H * W;
        float *yp = y + pl * OH * OW;
        for (int64_t oh = 0; oh < OH; oh++)
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t hs = oh * st[0] - pd[0], ws = ow * st[1] - pd[1];
                int64_t he = hs + ks[0], we = ws + ks[1];
                if (he > H + pd[0]) he = H + pd[0];
                if (we > W + pd[1]) we = W + pd[1];
                int64_t pool = (he - hs) * (we - ws);
                if (hs < 0) hs = 0;
                if (ws < 0) ws = 0;
                if (he > H) he = H;
                if (we > W) we = W;
                if (hs >= he || ws >= we) { yp[oh * OW + ow] = 0.0f; continue; }
                int64_t div = divisor_override ? divisor_override : count_include_pad ? pool : (he - hs) * (we - ws);
                double s = 0;
                for (int64_t h = hs; h < he; h++)
                    for (int64_t w = ws; w < we; w++) s += xp[h * W + w];
                yp[oh * OW + ow] = (float)(s / (double)div);
            }
    }
}

void eir_avg_pool2d_f32(const float *x, float *y, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW,
                        const int64_t *ks, const int64_t *st, const int64_t *pd, bool count_include_pad,
                        int64_t divisor_override) {
    pool_job j = {.x = x, .y = y, .H = H, .W = W, .OH = OH, .OW = OW, .divisor_override = divisor_override,
                  .ks = ks, .st = st, .pd = pd, .count_include_pad = count_include_pad};
    eir_parallel_for(eir_pool_current(), planes, plane_grain(OH * OW * ks[0] * ks[1]), avg_planes, &j);
}

/* The sum of x[0..n) in double, in 8 interleaved partial sums (vectorized;
 * a single chain of dependent additions is bound by their latency) added
 * pairwise at the end. Float to double is exact and each partial sum
 * carries 29 bits more than a float, so the float it rounds to is a
 * sequential double sum's except in the rare case that the two double sums
 * fall on either side of a float rounding boundary. */
FAST_CLONES static double sum_f32_f64(const float *restrict x, int64_t n) {
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) s[k] += (double)x[i + k];
    for (int k = 0; i < n; i++, k++) s[k] += (double)x[i];
    return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]));
}

static void adaptive_planes(void *ctx, int64_t b, int64_t e) {
    const pool_job *j = ctx;
    const float *x = j->x;
    float *y = j->y;
    int64_t H = j->H, W = j->W, OH = j->OH, OW = j->OW;
    if (OH == 1 && OW == 1 && H * W >= 64) { /* global average (squeeze-and-excitation, classifier heads) */
        for (int64_t pl = b; pl < e; pl++) y[pl] = (float)(sum_f32_f64(x + pl * H * W, H * W) / (double)(H * W));
        return;
    }
    for (int64_t pl = b; pl < e; pl++) {
        const float *xp = x + pl * H * W;
        float *yp = y + pl * OH * OW;
        for (int64_t oh = 0; oh < OH; oh++) {
            int64_t hs = (oh * H) / OH, he = ((oh + 1) * H + OH - 1) / OH;
            for (int64_t ow = 0; ow < OW; ow++) {
                int64_t ws = (ow * W) / OW, we = ((ow + 1) * W + OW - 1) / OW;
                double s = 0;
                for (int64_t h = hs; h < he; h++)
                    for (int64_t w = ws; w < we; w++) s += xp[h * W + w];
                yp[oh * OW + ow] = (float)(s / (double)((he - hs) * (we - ws)));
            }
        }
    }
}

void eir_adaptive_avg_pool2d_f32(const float *x, float *y, int64_t planes, int64_t H, int64_t W, int64_t OH,
                                 int64_t OW) {
    pool_job j = {.x = x, .y = y, .H = H, .W = W, .OH = OH, .OW = OW};
    int64_t win = (H / (OH > 0 ? OH : 1) + 1) * (W / (OW > 0 ? OW : 1) + 1);
    eir_parallel_for(eir_pool_current(), planes, plane_grain(OH * OW * win), adaptive_planes, &j);
}

/* ======================================================================
 * copies into contiguous memory
 * ====================================================================== */

/* Copy one run of n elements of es bytes at source stride st (in elements). */
static void copy_run(char *restrict d, const char *restrict sp, int64_t n, int64_t st, size_t es) {
    if (st == 1) { memcpy(d, sp, (size_t)n * es); return; }
    switch (es) {
    case 4: {
        uint32_t *o = (uint32_t *)(void *)d;
        const uint32_t *x = (const uint32_t *)(const void *)sp;
        for (int64_t i = 0; i < n; i++) o[i] = x[i * st];
        return;
    }
    case 8: {
        uint64_t *o = (uint64_t *)(void *)d;
        const uint64_t *x = (const uint64_t *)(const void *)sp;
        for (int64_t i = 0; i < n; i++) o[i] = x[i * st];
        return;
    }
    case 2: {
        uint16_t *o = (uint16_t *)(void *)d;
        const uint16_t *x = (const uint16_t *)(const void *)sp;
        for (int64_t i = 0; i < n; i++) o[i] = x[i * st];
        return;
    }
    default:
        for (int64_t i = 0; i < n; i++) memcpy(d + (size_t)i * es, sp + (size_t)(i * st) * es, es);
    }
}

bool eir_copy_to_contig(void *dst, const eir_tview *src) {
    if (!eir_kernels_fast || src->rank > EIR_MAX_RANK) return false;
    size_t es = eir_dtype_size(src->dtype);
    if (es == 0) return false;
    /* the source's dims without the size-1 ones, adjacent dims merged where
     * their strides chain (row-major order is kept) */
    int64_t sz[EIR_MAX_RANK], st[EIR_MAX_RANK];
    int32_t r = 0;
    for (int32_t d = 0; d < src->rank; d++) {
        if (src->sizes[d] == 0) return true;
        if (src->sizes[d] == 1) continue;
        if (r > 0 && st[r - 1] == src->strides[d] * src->sizes[d]) {
            sz[r - 1] *= src->sizes[d];
            st[r - 1] = src->strides[d];
        } else {
            sz[r] = src->sizes[d];
            st[r] = src->strides[d];
            r++;
        }
    }
    char *o = dst;
    const char *base = src->data;
    /* an overlap of the source's span and the destination: not here */
    int64_t lo = 0, hi = 0, n = 1;
    for (int32_t d = 0; d < r; d++) {
        n *= sz[d];
        if (st[d] < 0) lo += (sz[d] - 1) * st[d];
        else hi += (sz[d] - 1) * st[d];
    }
    const char *slo = base + lo * (int64_t)es, *shi = base + (hi + 1) * (int64_t)es;
    if (o < shi && slo < o + n * (int64_t)es) return false;
    if (r == 0) { memcpy(o, base, es); return true; }
    /* a transposition (another dim has stride 1, the last does not): 16 x 16 tiles between
     * that dim and the last, so that reads and writes both go by whole cache lines (a permuted
     * tensor made contiguous, as attention's K^T: 3.0x faster than strided runs here) */
    int32_t k = -1;
    for (int32_t d = 0; d + 1 < r; d++)
        if (st[d] == 1 && sz[d] >= 16) k = d;
    if (es == 4 && k >= 0 && st[r - 1] != 1 && sz[r - 1] >= 16) {
        int64_t ost[EIR_MAX_RANK], run = 1, idx[EIR_MAX_RANK] = {0};
        for (int32_t d = r - 1; d >= 0; d--) {
            ost[d] = run;
            run *= sz[d];
        }
        const uint32_t *sb = (const uint32_t *)(const void *)base;
        uint32_t *ob = (uint32_t *)dst;
        int64_t nk = sz[k], nl = sz[r - 1], sl = st[r - 1], ok = ost[k];
        for (;;) {
            int64_t so = 0, oo = 0;
            for (int32_t d = 0; d < r - 1; d++)
                if (d != k) so += idx[d] * st[d], oo += idx[d] * ost[d];
            for (int64_t i0 = 0; i0 < nk; i0 += 16)
                for (int64_t l0 = 0; l0 < nl; l0 += 16) {
                    int64_t i1 = i0 + 16 < nk ? i0 + 16 : nk, l1 = l0 + 16 < nl ? l0 + 16 : nl;
                    for (int64_t i = i0; i < i1; i++)
                        for (int64_t l = l0; l < l1; l++) ob[oo + i * ok + l] = sb[so + i + l * sl];
                }
            int32_t d = r - 2;
            for (; d >= 0; d--) {
                if (d == k) continue;
                if (++idx[d] < sz[d]) break;
                idx[d] = 0;
            }
            if (d < 0) break;
        }
        return true;
    }
    int64_t inner = sz[r - 1], ist = st[r - 1], idx[EIR_MAX_RANK] = {0};
    for (;;) {
        int64_t off = 0;
        for (int32_t d = 0; d < r - 1; d++) off += idx[d] * st[d];
        copy_run(o, base + off * (int64_t)es, inner, ist, es);
        o += (size_t)inner * es;
        int32_t d = r - 2;
        for (; d >= 0; d--) {
            if (++idx[d] < sz[d]) break;
            idx[d] = 0;
        }
        if (d < 0) break;
    }
    return true;
}

/* ======================================================================
 * attention softmax
 * Reductions in lanes of 16 (the vector registers' width or a multiple),
 * combined in a fixed order, so the same bits in every clone.
 * ====================================================================== */

VEC_CLONES static float sm_max_f32(const float *restrict p, int64_t n) {
    float m[16];
    for (int l = 0; l < 16; l++) m[l] = -INFINITY;
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int l = 0; l < 16; l++) m[l] = p[j + l] > m[l] ? p[j + l] : m[l];
    for (; j < n; j++) m[0] = p[j] > m[0] ? p[j] : m[0];
    float r = -INFINITY;
    for (int l = 0; l < 16; l++) r = m[l] > r ? m[l] : r;
    return r;
}

/* p[j] = exp(p[j] - mx), returns their sum in double */
VEC_CLONES static double sm_exp_sum_f32(float *restrict p, int64_t n, float mx) {
    double acc[16] = {0};
    int64_t j = 0;
    for (; j + 16 <= n; j += 16)
        for (int l = 0; l < 16; l++) {
            float e = vm_expf(p[j + l] - mx);
            p[j + l] = e;
            acc[l] += (double)e;
        }
    for (; j < n; j++) {
        float e = vm_expf(p[j] - mx);
        p[j] = e;
        acc[0] += (double)e;
    }
    double s = 0;
    for (int l = 0; l < 16; l++) s += acc[l];
    return s;
}

VEC_CLONES static void sm_scale_f32(float *restrict p, int64_t n, float inv) {
    for (int64_t j = 0; j < n; j++) p[j] *= inv;
}

void eir_softmax_row_f32(float *p, int64_t nv, int64_t n, float *mx_out, double *sum_out) {
    float mx = sm_max_f32(p, nv);
    double sum = 0;
    /* NaN scores: the max skips them, their exponentials make the sum NaN */
    if (mx == -INFINITY)
        for (int64_t j = 0; j < nv; j++) p[j] = 0.0f;
    else {
        sum = sm_exp_sum_f32(p, nv, mx);
        sm_scale_f32(p, nv, (float)(1.0 / sum));
    }
    for (int64_t j = nv; j < n; j++) p[j] = 0.0f;
    if (mx_out) *mx_out = mx;
    if (sum_out) *sum_out = sum;
}

/* ======================================================================
 * batch norm
 * ====================================================================== */

FAST_CLONES static void bn_row(const float *restrict x, float *restrict y, int64_t P, float alpha, float beta) {
    for (int64_t i = 0; i < P; i++) y[i] = x[i] * alpha + beta;
}

typedef struct bn_job {
    const float *x;
    float *y;
    int64_t C, P;
    const double *alpha, *beta;
} bn_job;

static void bn_rows(void *ctx, int64_t b, int64_t e) {
    const bn_job *j = ctx;
    for (int64_t r = b; r < e; r++) {
        int64_t c = r % j->C;
        bn_row(j->x + r * j->P, j->y + r * j->P, j->P, (float)j->alpha[c], (float)j->beta[c]);
    }
}

void eir_batch_norm_apply_f32(const float *x, float *y, int64_t N, int64_t C, int64_t P, const double *alpha,
                              const double *beta) {
    bn_job j = {x, y, C, P, alpha, beta};
    eir_parallel_for(eir_pool_current(), N * C, 4 * plane_grain(P), bn_rows, &j);
}

/* float16 / bfloat16 planes: each converted to float32, the float32 row, rounded once */
typedef struct bn_half_job {
    const uint16_t *x;
    uint16_t *y;
    int64_t C, P;
    const double *alpha, *beta;
    bool bf16;
    _Atomic int oom;
} bn_half_job;

static void bn_half_rows(void *ctx, int64_t b, int64_t e) {
    bn_half_job *j = ctx;
    float *buf = eir_kalloc((size_t)(j->P > 0 ? 2 * j->P : 1) * sizeof(float)), *out = buf + j->P;
    if (!buf) { j->oom = 1; return; }
    for (int64_t r = b; r < e; r++) {
        int64_t c = r % j->C;
        (j->bf16 ? eir_bf16_to_f32_row : eir_f16_to_f32_row)(buf, j->x + r * j->P, j->P);
        bn_row(buf, out, j->P, (float)j->alpha[c], (float)j->beta[c]);
        (j->bf16 ? eir_f32_to_bf16_row : eir_f32_to_f16_row)(j->y + r * j->P, out, j->P);
    }
    eir_kfree(buf);
}

bool eir_batch_norm_apply_half(const uint16_t *x, uint16_t *y, bool bf16, int64_t N, int64_t C, int64_t P,
                               const double *alpha, const double *beta) {
    bn_half_job j = {x, y, C, P, alpha, beta, bf16, 0};
    eir_parallel_for(eir_pool_current(), N * C, 4 * plane_grain(P), bn_half_rows, &j);
    return !j.oom;
}
