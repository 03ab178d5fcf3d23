/* special.c — special functions on the pointwise engine (pw.h): the gamma
 * family (lgamma, digamma, polygamma, mvlgamma, igamma, igammac), the
 * error-function family (erfinv, erfcx, ndtr, ndtri, log_ndtr, entr), the
 * modified Bessel functions of torch.i0 / torch.special (i0, i0e, i1, i1e),
 * the Airy and Bessel functions, the Hurwitz zeta and the orthogonal
 * polynomials of torch.special, with their special_* aliases and Scalar
 * overloads.
 *
 * The functions themselves are torch's (special_impl.h, ported from
 * aten/src/ATen/native/Math.h with its types), instantiated for float and
 * double. torch's CPU kernels are compiled with multiply-adds contracted
 * into FMA instructions on CPUs that have them (its AVX2/AVX512 builds);
 * the recurrences and series here are sensitive to that, so a second
 * instance is compiled the same way and chosen at run time when the CPU has
 * AVX2 and FMA, as torch's dispatch chooses its AVX2 kernels. The two that
 * torch compiles without contraction (erfcx, log_ndtr) use the plain
 * instance. Against torch 2.13 on this machine most results are
 * bit-identical; docs/RUNTIME.md lists the few-ulp exceptions.
 *
 * Dtypes follow torch: integer inputs compute in the default float
 * (float32), float16/bfloat16 compute in float and round once where torch
 * upcasts, and the functions torch dispatches for float/double only
 * (Bessel, Airy, zeta, the polynomials, ndtri, log_ndtr, erfcx) refuse
 * float16/bfloat16 with torch's message. */
#include <float.h>

#include "kutil.h"
#include "pw.h"
#include "tables.h"

/* after the headers: the generic macros must not reach their inline code */
#include <tgmath.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define SPECIAL_FMA 1
#else
#define SPECIAL_FMA 0
#endif

#define SPECIAL_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define PI_float ((float)M_PI)

/* ---- the instances ---- */

/* not every instance of every function is called */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"

#define SPECIAL_DOUBLE 0
#define SF(n) n##_f
#include "special_impl.h"
#define SPECIAL_DOUBLE 1
#define SF(n) n##_d
#include "special_impl.h"

#if SPECIAL_FMA
/* the same functions with a * b + c contracted to fma (names ending in x) */
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("fma"))), apply_to = function)
#pragma clang fp contract(fast)
#else
#pragma GCC push_options
#pragma GCC target("fma")
#pragma GCC optimize("fp-contract=fast")
#endif

#define SPECIAL_DOUBLE 0
#define SF(n) n##_fx
#include "special_impl.h"
#define SPECIAL_DOUBLE 1
#define SF(n) n##_dx
#include "special_impl.h"

#if defined(__clang__)
#pragma clang fp contract(on)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#endif

#pragma GCC diagnostic pop

/* torch runs its AVX2 (or AVX512) kernels when the CPU has AVX2 and FMA */
static int use_fma(void) {
#if SPECIAL_FMA
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

/* torch's calc_i0 in float and in double, the instance torch's dispatch
 * would run (for kaiser_window, compose.c) */
float eir_calc_i0_f(float x) {
#if SPECIAL_FMA
    if (use_fma()) return i0_fx(x);
#endif
    return i0_f(x);
}
double eir_calc_i0_d(double x) {
#if SPECIAL_FMA
    if (use_fma()) return i0_dx(x);
#endif
    return i0_d(x);
}

/* fn's float (T = f) or double (T = d) instance; the contracted one when
 * the kernel found FMA (p->mode) */
#if SPECIAL_FMA
#define CALL(p, fn, T, ...) ((p)->mode ? fn##_##T##x(__VA_ARGS__) : fn##_##T(__VA_ARGS__))
#else
#define CALL(p, fn, T, ...) fn##_##T(__VA_ARGS__)
#endif

/* A float degree n as torch's static_cast<int64_t> gives it on x86: NaN and
 * out-of-range values become INT64_MIN (negative degrees give 0). */
static int64_t degree(double n) {
    if (!(n > -9223372036854775808.0 && n < 9223372036854775808.0)) return INT64_MIN;
    return (int64_t)n;
}

/* ---- functions that torch takes from MKL ---- */

/* erfinv: torch's float and double kernels call MKL's vsErfInv / vdErfInv,
 * correctly rounded in practice; Math.h's rational guess refined by Newton
 * steps in long double gets the same (erfc near |y| = 1, where 1 - |y| is
 * exact but erf(x) - y would cancel). float16/bfloat16 use Math.h's
 * algorithm in float, as torch's vectorized reduced-float path does. */
static double erfinv_accurate(double y) {
    double x = erfinv_d(y);
    if (!isfinite(x)) return x;
    const long double c = 1.1283791670955125738961589031215452L; /* 2 / sqrt(pi) */
    long double lx = x;
    double ay = fabs(y);
    for (int i = 0; i < 2; i++) {
        long double d = c * expl(-lx * lx);
        if (d == 0) break;
        if (ay <= 0.5) lx -= (erfl(lx) - (long double)y) / d;
        else {
            long double r = (long double)(1.0 - ay), ax = fabsl(lx);  /* 1 - |y| is exact here */
            ax += (erfcl(ax) - r) / d;
            lx = y < 0 ? -ax : ax;
        }
    }
    return (double)lx;
}

/* lgamma: torch's float/double kernels are MKL's vsLGamma / vdLGamma;
 * glibc's lgamma in the next wider type, rounded, agrees with them but for
 * a few values near the negative roots. Reduced floats: Sleef's float
 * lgamma in torch, this one rounded. */
static float lgamma_float(float x) { return (float)lgamma((double)x); }
static double lgamma_double(double x) { return (double)lgammal((long double)x); }

/* ---- element functions ---- */

#define EF(name) static float name##_F(const float *x, const pw_params *p)
#define ED(name) static double name##_D(const double *x, const pw_params *p)

/* unary: torch's function fn in both instances */
#define UNARY(name, fn)                                                  \
    EF(name) { return CALL(p, fn, f, x[0]); }                            \
    ED(name) { return CALL(p, fn, d, x[0]); }
#define UNARY_PLAIN(name, fn)                                            \
    EF(name) { (void)p; return fn##_f(x[0]); }                           \
    ED(name) { (void)p; return fn##_d(x[0]); }
#define BINARY(name, fn)                                                 \
    EF(name) { return CALL(p, fn, f, x[0], x[1]); }                      \
    ED(name) { return CALL(p, fn, d, x[0], x[1]); }
/* polynomials: (x, n) with n a float degree */
#define POLY(name)                                                                    \
    EF(name) { return CALL(p, name##_forward, f, x[0], degree(x[1])); }               \
    ED(name) { return CALL(p, name##_forward, d, x[0], degree(x[1])); }

UNARY(i0, i0)
UNARY(i0e, i0e)
UNARY(i1, i1)
UNARY(i1e, i1e)
UNARY(digamma, digamma)
UNARY(ndtri, calc_ndtri)
UNARY_PLAIN(erfcx, calc_erfcx)
UNARY_PLAIN(log_ndtr, calc_log_ndtr)
UNARY(airy_ai, airy_ai_forward)
UNARY(bessel_j0, bessel_j0_forward)
UNARY(bessel_j1, bessel_j1_forward)
UNARY(bessel_y0, bessel_y0_forward)
UNARY(bessel_y1, bessel_y1_forward)
UNARY(mbessel_i0, modified_bessel_i0_forward)
UNARY(mbessel_i1, modified_bessel_i1_forward)
UNARY(mbessel_k0, modified_bessel_k0_forward)
UNARY(mbessel_k1, modified_bessel_k1_forward)
UNARY(smbessel_k0, scaled_modified_bessel_k0_forward)
UNARY(smbessel_k1, scaled_modified_bessel_k1_forward)
UNARY(sbessel_j0, spherical_bessel_j0_forward)
BINARY(zeta, zeta)
BINARY(igamma, calc_igamma)
BINARY(igammac, calc_igammac)
POLY(chebyshev_polynomial_t)
POLY(chebyshev_polynomial_u)
POLY(chebyshev_polynomial_v)
POLY(chebyshev_polynomial_w)
POLY(shifted_chebyshev_polynomial_t)
POLY(shifted_chebyshev_polynomial_u)
POLY(shifted_chebyshev_polynomial_v)
POLY(shifted_chebyshev_polynomial_w)
POLY(hermite_polynomial_he)
POLY(laguerre_polynomial_l)
POLY(legendre_polynomial_p)
/* hermite_polynomial_h: torch maps a NaN or infinite degree to -1 first */
EF(hermite_polynomial_h) {
    int64_t n = isfinite(x[1]) ? degree(x[1]) : -1;
    return CALL(p, hermite_polynomial_h_forward, f, x[0], n);
}
ED(hermite_polynomial_h) {
    int64_t n = isfinite(x[1]) ? degree(x[1]) : -1;
    return CALL(p, hermite_polynomial_h_forward, d, x[0], n);
}

EF(erfinv) { return p->ct == EIR_F32 ? (float)erfinv_accurate(x[0]) : CALL(p, erfinv, f, x[0]); }
ED(erfinv) { (void)p; return erfinv_accurate(x[0]); }
EF(lgamma) { (void)p; return lgamma_float(x[0]); }
ED(lgamma) { (void)p; return lgamma_double(x[0]); }

/* torch's zeta<Half> / zeta<BFloat16> inside polygamma: the same series
 * accumulated in float (their acc_type) */
static float zeta_reduced(float x, float q) {
    const float MACHEP = (float)1.11022302462515654042E-16;
    static const float A[] = {
        12.0f, -720.0f, 30240.0f, -1209600.0f, 47900160.0f, (float)-1.8924375803183791606e9, (float)7.47242496e10,
        (float)-2.950130727918164224e12, (float)1.1646782814350067249e14, (float)-4.5979787224074726105e15,
        (float)1.8152105401943546773e17, (float)-7.1661652561756670113e18};
    float a, b, k, s, t, w;
    if (x == 1.0f) return INFINITY;
    if (x < 1.0f) return NAN;
    if (q <= 0.0f) {
        if (q == floor(q)) return INFINITY;
        if (x != floor(x)) return NAN;
    }
    s = pow(q, -x);
    a = q;
    int i = 0;
    b = 0.0f;
    while (i < 9 || a <= 9.0f) {
        i += 1;
        a += 1.0f;
        b = (float)pow((double)a, (double)-x);
        s += b;
        if (-MACHEP * s < b && b < MACHEP * s) return s;
    }
    w = a;
    s += b * w / (x - 1.0f);
    s -= 0.5f * b;
    a = 1.0f;
    k = 0.0f;
    for (i = 0; i < 12; i++) {
        a *= x + k;
        b /= w;
        t = a * b / A[i];
        s = s + t;
        t = fabs(t / s);
        if (t < MACHEP) return s;
        k += 1.0f;
        a *= x + k;
        b /= w;
        k += 1.0f;
    }
    return s;
}

/* polygamma(n, x): n = p->ai; digamma and trigamma for n = 0, 1. For
 * float16/bfloat16 torch evaluates calc_polygamma with scalar_t the reduced
 * type: n! in float, zeta accumulated in float and rounded to the type. */
EF(polygamma) {
    int n = (int)p->ai;
    if (n == 0) return CALL(p, digamma, f, x[0]);
    if (n == 1) return CALL(p, trigamma, f, x[0]);
    if (p->ct == EIR_F32) return CALL(p, polygamma, f, x[0], n);
    float fac = exp(lgamma((float)n + 1.0f));
    float z = eir_pw_round(zeta_reduced(eir_pw_round((float)(n + 1), p->ct), x[0]), p->ct);
    return ((n % 2) ? fac : -fac) * z;
}
ED(polygamma) {
    int n = (int)p->ai;
    if (n == 0) return CALL(p, digamma, d, x[0]);
    if (n == 1) return CALL(p, trigamma, d, x[0]);
    return CALL(p, polygamma, d, x[0], n);
}

/* entr: -x log x, 0 at 0, -inf below (torch's entr kernel) */
/* (float16/bfloat16: torch's log of a reduced float returns that type) */
EF(entr) {
    float a = x[0];
    return a != a ? a : a > 0 ? -a * eir_pw_round(log(a), p->ct) : a == 0 ? 0.0f : -INFINITY;
}
ED(entr) {
    (void)p;
    double a = x[0];
    return a != a ? a : a > 0 ? -a * log(a) : a == 0 ? 0.0 : -INFINITY;
}

/* ndtr = (1 + erf(x / sqrt(2))) * 0.5, three tensor ops in torch: each
 * result rounded to the dtype */
EF(ndtr) {
    float t = eir_pw_round(x[0] * (float)M_SQRT1_2, p->ct);
    float e = eir_pw_round(erf(t), p->ct);
    return eir_pw_round(1.0f + e, p->ct) * 0.5f;
}
ED(ndtr) {
    (void)p;
    return (1.0 + erf(x[0] * M_SQRT1_2)) * 0.5;
}

/* mvlgamma(x, p): sum over j < p of lgamma(x - (p - 1 - j) / 2), plus
 * p (p - 1) / 4 log(pi); torch builds it from tensor ops (arange, add,
 * lgamma, sum, add), so reduced floats round after each */
EF(mvlgamma) {
    int64_t np = p->ai;
    float s = 0;
    for (int64_t j = 0; j < np; j++) {
        float off = eir_pw_round((float)(-(double)np * 0.5 + 0.5 + 0.5 * (double)j), p->ct);
        float arg = eir_pw_round(x[0] + off, p->ct);
        s += eir_pw_round(lgamma_float(arg), p->ct);
    }
    s = eir_pw_round(s, p->ct);
    return s + p->af;
}
ED(mvlgamma) {
    int64_t np = p->ai;
    double s = 0;
    for (int64_t j = 0; j < np; j++) s += lgamma_double(x[0] + (-(double)np * 0.5 + 0.5 + 0.5 * (double)j));
    return s + p->a;
}

/* ---- ops ---- */

#define OPX(var, nm, n, base, f32only) \
    static const pw_op var = {nm, n, base##_F, base##_D, NULL, NULL, 0, f32only, NULL, NULL, false};

OPX(op_i0, "i0_vml_cpu", 1, i0, false)
OPX(op_i0e, "i0e_cpu", 1, i0e, false)
OPX(op_i1, "i1_cpu", 1, i1, false)
OPX(op_i1e, "i1e_cpu", 1, i1e, false)
OPX(op_erfinv, "erfinv_vml_cpu", 1, erfinv, false)
OPX(op_digamma, "digamma", 1, digamma, false)
OPX(op_polygamma, "polygamma", 1, polygamma, false)
OPX(op_lgamma, "lgamma_vml_cpu", 1, lgamma, false)
OPX(op_mvlgamma, "lgamma_vml_cpu", 1, mvlgamma, false)
OPX(op_entr, "entr_cpu", 1, entr, false)
OPX(op_ndtr, "erf_vml_cpu", 1, ndtr, false)
OPX(op_ndtri, "ndtri_cpu", 1, ndtri, true)
OPX(op_erfcx, "erfcx_cpu", 1, erfcx, true)
OPX(op_log_ndtr, "log_ndtr_cpu", 1, log_ndtr, true)
OPX(op_airy_ai, "airy_ai_cpu", 1, airy_ai, true)
OPX(op_bessel_j0, "bessel_j0_cpu", 1, bessel_j0, true)
OPX(op_bessel_j1, "bessel_j1_cpu", 1, bessel_j1, true)
OPX(op_bessel_y0, "bessel_y0_cpu", 1, bessel_y0, true)
OPX(op_bessel_y1, "bessel_y1_cpu", 1, bessel_y1, true)
OPX(op_mbessel_i0, "modified_bessel_i0_cpu", 1, mbessel_i0, true)
OPX(op_mbessel_i1, "modified_bessel_i1_cpu", 1, mbessel_i1, true)
OPX(op_mbessel_k0, "modified_bessel_k0_cpu", 1, mbessel_k0, true)
OPX(op_mbessel_k1, "modified_bessel_k1_cpu", 1, mbessel_k1, true)
OPX(op_smbessel_k0, "scaled_modified_bessel_k0_cpu", 1, smbessel_k0, true)
OPX(op_smbessel_k1, "scaled_modified_bessel_k1_cpu", 1, smbessel_k1, true)
OPX(op_sbessel_j0, "spherical_bessel_j0_cpu", 1, sbessel_j0, true)
OPX(op_zeta, "zeta_cpu", 2, zeta, true)
OPX(op_igamma, "igamma_cpu", 2, igamma, false)
OPX(op_igammac, "igammac_cpu", 2, igammac, false)
OPX(op_cheb_t, "chebyshev_polynomial_t_cpu", 2, chebyshev_polynomial_t, true)
OPX(op_cheb_u, "chebyshev_polynomial_u_cpu", 2, chebyshev_polynomial_u, true)
OPX(op_cheb_v, "chebyshev_polynomial_v_cpu", 2, chebyshev_polynomial_v, true)
OPX(op_cheb_w, "chebyshev_polynomial_w_cpu", 2, chebyshev_polynomial_w, true)
OPX(op_scheb_t, "shifted_chebyshev_polynomial_t_cpu", 2, shifted_chebyshev_polynomial_t, true)
OPX(op_scheb_u, "shifted_chebyshev_polynomial_u_cpu", 2, shifted_chebyshev_polynomial_u, true)
OPX(op_scheb_v, "shifted_chebyshev_polynomial_v_cpu", 2, shifted_chebyshev_polynomial_v, true)
OPX(op_scheb_w, "shifted_chebyshev_polynomial_w_cpu", 2, shifted_chebyshev_polynomial_w, true)
OPX(op_herm_h, "hermite_polynomial_h_cpu", 2, hermite_polynomial_h, true)
OPX(op_herm_he, "hermite_polynomial_he_cpu", 2, hermite_polynomial_he, true)
OPX(op_laguerre, "laguerre_polynomial_l_cpu", 2, laguerre_polynomial_l, true)
OPX(op_legendre, "legendre_polynomial_p_cpu", 2, legendre_polynomial_p, true)

/* ---- kernels ---- */

#define KARGS const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx
#define NEED(n)                                                                                    \
    do {                                                                                           \
        if (nargs < (n) || nout < 1) return eir_kerr(ctx, "%s: expected %d arguments", __func__, (n)); \
    } while (0)

/* op on args[first .. first + op->nin), computing in ct */
static int run_args(const pw_op *op, pw_params *p, eir_dtype ct, const eir_karg *args, eir_tview *out,
                    eir_kctx *ctx) {
    pw_scalar_buf sb[2];
    const eir_tview *in[2] = {NULL, NULL};
    for (int k = 0; k < op->nin; k++)
        if (!(in[k] = eir_pw_arg_view(&args[k], &sb[k])))
            return eir_kerr(ctx, "%s: expected a tensor or a scalar as argument %d", op->name, k);
    p->mode = use_fma();
    return eir_pw_run(op, p, ct, in, out, ctx);
}

/* float ops: integer inputs compute in the default float */
static int run_float(const pw_op *op, const eir_karg *args, eir_tview *out, eir_kctx *ctx) {
    pw_params p = {0};
    eir_dtype ct = eir_pw_result_type2(&args[0], op->nin > 1 ? &args[1] : NULL);
    return run_args(op, &p, eir_pw_float_ct(ct, out), args, out, ctx);
}

#define KFLOAT(kname, opvar, n)                                       \
    static int kname(KARGS) {                                         \
        NEED(n);                                                      \
        return run_float(&opvar, args, out, ctx);                     \
    }

KFLOAT(k_i0, op_i0, 1)
KFLOAT(k_i0e, op_i0e, 1)
KFLOAT(k_i1, op_i1, 1)
KFLOAT(k_i1e, op_i1e, 1)
KFLOAT(k_erfinv, op_erfinv, 1)
KFLOAT(k_digamma, op_digamma, 1)
KFLOAT(k_lgamma, op_lgamma, 1)
KFLOAT(k_entr, op_entr, 1)
KFLOAT(k_ndtr, op_ndtr, 1)
KFLOAT(k_ndtri, op_ndtri, 1)
KFLOAT(k_erfcx, op_erfcx, 1)
KFLOAT(k_log_ndtr, op_log_ndtr, 1)
KFLOAT(k_airy_ai, op_airy_ai, 1)
KFLOAT(k_bessel_j0, op_bessel_j0, 1)
KFLOAT(k_bessel_j1, op_bessel_j1, 1)
KFLOAT(k_bessel_y0, op_bessel_y0, 1)
KFLOAT(k_bessel_y1, op_bessel_y1, 1)
KFLOAT(k_mbessel_i0, op_mbessel_i0, 1)
KFLOAT(k_mbessel_i1, op_mbessel_i1, 1)
KFLOAT(k_mbessel_k0, op_mbessel_k0, 1)
KFLOAT(k_mbessel_k1, op_mbessel_k1, 1)
KFLOAT(k_smbessel_k0, op_smbessel_k0, 1)
KFLOAT(k_smbessel_k1, op_smbessel_k1, 1)
KFLOAT(k_sbessel_j0, op_sbessel_j0, 1)
KFLOAT(k_zeta, op_zeta, 2)
KFLOAT(k_cheb_t, op_cheb_t, 2)
KFLOAT(k_cheb_u, op_cheb_u, 2)
KFLOAT(k_cheb_v, op_cheb_v, 2)
KFLOAT(k_cheb_w, op_cheb_w, 2)
KFLOAT(k_scheb_t, op_scheb_t, 2)
KFLOAT(k_scheb_u, op_scheb_u, 2)
KFLOAT(k_scheb_v, op_scheb_v, 2)
KFLOAT(k_scheb_w, op_scheb_w, 2)
KFLOAT(k_herm_h, op_herm_h, 2)
KFLOAT(k_herm_he, op_herm_he, 2)
KFLOAT(k_laguerre, op_laguerre, 2)
KFLOAT(k_legendre, op_legendre, 2)

/* igamma / igammac: floating inputs only (torch has no integer kernel) */
static int k_igamma(KARGS) {
    NEED(2);
    pw_params p = {0};
    return run_args(&op_igamma, &p, eir_pw_result_type2(&args[0], &args[1]), args, out, ctx);
}
static int k_igammac(KARGS) {
    NEED(2);
    pw_params p = {0};
    return run_args(&op_igammac, &p, eir_pw_result_type2(&args[0], &args[1]), args, out, ctx);
}

/* polygamma(int n, Tensor self) */
static int k_polygamma(KARGS) {
    NEED(2);
    pw_params p = {0};
    p.ai = args[0].i;
    if (p.ai < 0) return eir_kerr(ctx, "polygamma(n, x) does not support negative n.");
    eir_dtype ct = eir_pw_result_type2(&args[1], NULL);
    return run_args(&op_polygamma, &p, eir_pw_float_ct(ct, out), &args[1], out, ctx);
}

/* polygamma_(Tensor self, int n): the in-place form takes self first */
static int k_polygamma_(KARGS) {
    NEED(2);
    eir_karg swapped[2] = {args[1], args[0]};
    return k_polygamma(swapped, 2, out, nout, ctx);
}

/* mvlgamma(Tensor self, int p): torch 2.13 no longer checks that the
 * elements exceed (p - 1) / 2 (lgamma's poles give inf there) */
static int k_mvlgamma(KARGS) {
    NEED(2);
    if (args[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "mvlgamma: expected a tensor");
    pw_params p = {0};
    p.ai = args[1].i;
    if (p.ai < 1) return eir_kerr(ctx, "p has to be greater than or equal to 1");
    eir_dtype ct = eir_pw_float_ct(args[0].t->dtype, out);
    /* p (p - 1) / 4 log(pi), added as a Scalar: converted to the tensor's dtype */
    p.a = (double)(p.ai * (p.ai - 1)) * log(M_PI) * 0.25;
    p.af = eir_pw_round((float)p.a, ct);
    return run_args(&op_mvlgamma, &p, ct, args, out, ctx);
}

const eir_kernel_entry eir_kernels_special[] = {
    /* gamma family */
    {"aten.lgamma.default", k_lgamma},
    {"aten.lgamma_.default", k_lgamma},
    {"aten.special_gammaln.default", k_lgamma},
    {"aten.digamma.default", k_digamma},
    {"aten.digamma_.default", k_digamma},
    {"aten.special_digamma.default", k_digamma},
    {"aten.special_psi.default", k_digamma},
    {"aten.polygamma.default", k_polygamma},
    {"aten.special_polygamma.default", k_polygamma},
    {"aten.polygamma_.default", k_polygamma_},
    {"aten.mvlgamma.default", k_mvlgamma},
    {"aten.mvlgamma_.default", k_mvlgamma},
    {"aten.special_multigammaln.default", k_mvlgamma},
    {"aten.igamma.default", k_igamma},
    {"aten.igamma_.default", k_igamma},
    {"aten.special_gammainc.default", k_igamma},
    {"aten.igammac.default", k_igammac},
    {"aten.igammac_.default", k_igammac},
    {"aten.special_gammaincc.default", k_igammac},
    /* error function family */
    {"aten.erfinv.default", k_erfinv},
    {"aten.erfinv_.default", k_erfinv},
    {"aten.special_erfinv.default", k_erfinv},
    {"aten.special_erfcx.default", k_erfcx},
    {"aten.special_ndtr.default", k_ndtr},
    {"aten.special_ndtri.default", k_ndtri},
    {"aten.special_log_ndtr.default", k_log_ndtr},
    {"aten.special_entr.default", k_entr},
    /* Bessel and Airy */
    {"aten.i0.default", k_i0},
    {"aten.i0_.default", k_i0},
    {"aten.special_i0.default", k_i0},
    {"aten.special_i0e.default", k_i0e},
    {"aten.special_i1.default", k_i1},
    {"aten.special_i1e.default", k_i1e},
    {"aten.special_airy_ai.default", k_airy_ai},
    {"aten.special_bessel_j0.default", k_bessel_j0},
    {"aten.special_bessel_j1.default", k_bessel_j1},
    {"aten.special_bessel_y0.default", k_bessel_y0},
    {"aten.special_bessel_y1.default", k_bessel_y1},
    {"aten.special_modified_bessel_i0.default", k_mbessel_i0},
    {"aten.special_modified_bessel_i1.default", k_mbessel_i1},
    {"aten.special_modified_bessel_k0.default", k_mbessel_k0},
    {"aten.special_modified_bessel_k1.default", k_mbessel_k1},
    {"aten.special_scaled_modified_bessel_k0.default", k_smbessel_k0},
    {"aten.special_scaled_modified_bessel_k1.default", k_smbessel_k1},
    {"aten.special_spherical_bessel_j0.default", k_sbessel_j0},
    /* zeta */
    {"aten.special_zeta.default", k_zeta},
    {"aten.special_zeta.self_scalar", k_zeta},
    {"aten.special_zeta.other_scalar", k_zeta},
    /* orthogonal polynomials (x, n): Tensor/Tensor, Scalar x, Scalar n */
#define POLY_ENTRIES(name, k) \
    {"aten.special_" name ".default", k}, {"aten.special_" name ".x_scalar", k}, {"aten.special_" name ".n_scalar", k},
    POLY_ENTRIES("chebyshev_polynomial_t", k_cheb_t)
    POLY_ENTRIES("chebyshev_polynomial_u", k_cheb_u)
    POLY_ENTRIES("chebyshev_polynomial_v", k_cheb_v)
    POLY_ENTRIES("chebyshev_polynomial_w", k_cheb_w)
    POLY_ENTRIES("shifted_chebyshev_polynomial_t", k_scheb_t)
    POLY_ENTRIES("shifted_chebyshev_polynomial_u", k_scheb_u)
    POLY_ENTRIES("shifted_chebyshev_polynomial_v", k_scheb_v)
    POLY_ENTRIES("shifted_chebyshev_polynomial_w", k_scheb_w)
    POLY_ENTRIES("hermite_polynomial_h", k_herm_h)
    POLY_ENTRIES("hermite_polynomial_he", k_herm_he)
    POLY_ENTRIES("laguerre_polynomial_l", k_laguerre)
    POLY_ENTRIES("legendre_polynomial_p", k_legendre)
#undef POLY_ENTRIES
    {NULL, NULL},
};
