/* vmath.h — float32 exp, erf and tanh written for the loop vectoriser:
 * straight-line code, selects instead of branches, integer work on the bit
 * pattern instead of float-to-int conversions, no libm calls. A loop over
 * contiguous floats that calls them compiles to SIMD code (SSE2, AVX2 or
 * AVX-512, whichever clone of the loop runs); each lane computes exactly
 * what the scalar code computes, since floating-point contraction is off
 * (-std=c11), so every clone and every split of a row gives the same bits.
 * Internal to src/kernels/ (fast.c's pointwise rows).
 *
 * Accuracy against the exact functions (tests/unit/test_k_vmath.c checks
 * the bounds on a sweep of float32 values): vm_expf within 1.5 ulp over its
 * whole range, subnormal results included (0.93 measured); vm_tanhf within
 * 2 ulp (1.23); vm_erff within 7e-7 absolute (5.6e-7): the Abramowitz-Stegun
 * formula 7.1.26 that torch's vectorised erf also uses (1.5e-7) plus float
 * rounding where 1 - q t e^-x^2 cancels near 0. GELU takes the absolute
 * error of erf times |x| / 2.
 * Special values: exp(-inf) = 0, exp(+inf) = +inf, tanh(±inf) = ±1,
 * erf(±inf) = ±1, NaN in NaN out. */
#ifndef EIR_KERNELS_VMATH_H
#define EIR_KERNELS_VMATH_H

#include <stdint.h>
#include <string.h>

static inline float vm_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline uint32_t vm_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* exp(x) = 2^n * e^r, n = round(x / ln 2), |r| <= ln 2 / 2; e^r by the
 * degree-7 polynomial of Cephes' expf. The scale 2^n is applied as two
 * factors 2^(n/2) so that subnormal results are rounded once, at the end. */
static inline float vm_expf(float x) {
    const float hi = 88.72283935546875f; /* above: +inf (exp(hi) rounds to FLT_MAX) */
    const float lo = -103.97208404541015625f; /* below: 0 */
    float xc = x < -104.0f ? -104.0f : x;
    xc = xc > 89.0f ? 89.0f : xc;
    /* round to nearest by the 1.5 * 2^23 shift: t's low bits hold n */
    float t = xc * 1.44269504088896341f + 12582912.0f;
    float n = t - 12582912.0f;
    int32_t ni = (int32_t)(vm_bits(t) - 0x4B400000u);
    /* ln 2 in two parts, the first exact in few bits so n * C1 is exact */
    float r = xc - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    float p = 1.9875691500e-4f;
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r;
    p = p + 1.0f;
    int32_t n1 = ni / 2, n2 = ni - n1;
    float s1 = vm_from_bits((uint32_t)(n1 + 127) << 23), s2 = vm_from_bits((uint32_t)(n2 + 127) << 23);
    float y = p * s1 * s2;
    y = x > hi ? (float)INFINITY : y;
    return x < lo ? 0.0f : y;
}

/* tanh: the odd polynomial of Cephes' tanhf below |x| = 0.625, else
 * 1 - 2 / (e^2|x| + 1) (e^2|x| = inf gives exactly 1), on |x|; then x's sign
 * (so tanh(-0) = -0). */
static inline float vm_tanhf(float x) {
    uint32_t sign = vm_bits(x) & 0x80000000u;
    float ax = vm_from_bits(vm_bits(x) & 0x7FFFFFFFu);
    float z = ax * ax;
    float p = -5.70498872745e-3f;
    p = p * z + 2.06390887954e-2f;
    p = p * z - 5.37397155531e-2f;
    p = p * z + 1.33314422036e-1f;
    p = p * z - 3.33332819422e-1f;
    float small = p * z * ax + ax;
    float e = vm_expf(ax + ax);
    float big = 1.0f - 2.0f / (e + 1.0f);
    float r = ax < 0.625f ? small : big; /* NaN: big, which is NaN */
    return vm_from_bits(vm_bits(r) | sign);
}

/* erf by Abramowitz and Stegun 7.1.26: 1 - (a1 t + ... + a5 t^5) e^-x^2,
 * t = 1 / (1 + p |x|), with x's sign; absolute error below 1.5e-7. */
static inline float vm_erff(float x) {
    float ax = x < 0.0f ? -x : x;
    float t = 1.0f / (0.3275911f * ax + 1.0f);
    float q = 1.061405429f;
    q = q * t + -1.453152027f;
    q = q * t + 1.421413741f;
    q = q * t + -0.284496736f;
    q = q * t + 0.254829592f;
    float e = vm_expf(-(x * x));
    float y = 1.0f - q * t * e;
    return x < 0.0f ? -y : y; /* NaN: y, which is NaN */
}

#endif
