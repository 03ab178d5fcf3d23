/* test_k_vmath.c — the float32 exp / tanh / erf of src/kernels/vmath.h and
 * the pointwise rows built on them (exp, tanh, sigmoid, silu, gelu 'none' and
 * 'tanh'): against the values torch computed for the same inputs
 * (vmath_ref.h, written by gen_vmath_ref.py: specials, subnormals, tiny and
 * huge magnitudes, the overflow edge of exp, a grid and random values), and
 * the functions themselves against double-precision libm on a sweep of
 * float32 bit patterns, within the bounds vmath.h states. */
#include "ktest.h"

#include "kernels/fast.h"
#include "kernels/vmath.h"
#include "vmath_ref.h"

/* both NaN, or equal infinities, or |g - w| <= tol * (1 + |w|) */
static bool agree(float g, float w, double tol) {
    if (isnan(w) || isnan(g)) return isnan(w) && isnan(g);
    if (isinf(w) || isinf(g)) return g == w;
    return fabs((double)g - (double)w) <= tol * (1.0 + fabs((double)w));
}

typedef struct refop {
    const char *op, *approx;
    const float *want;
} refop;

static void test_against_torch(void) {
    const refop ops[] = {
        {"aten.exp.default", NULL, vmath_ref_exp},          {"aten.tanh.default", NULL, vmath_ref_tanh},
        {"aten.sigmoid.default", NULL, vmath_ref_sigmoid},  {"aten.silu.default", NULL, vmath_ref_silu},
        {"aten.gelu.default", "none", vmath_ref_gelu},      {"aten.gelu.default", "tanh", vmath_ref_gelu_tanh},
    };
    int64_t n = VMATH_REF_N;
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        tt X = tnew(EIR_F32, 1, &n, 0), Y = tnew(EIR_F32, 1, &n, 0);
        memcpy(X.v.data, vmath_ref_x, sizeof vmath_ref_x);
        eir_karg a[2] = {KT(&X.v), KSTR(ops[o].approx ? ops[o].approx : "none")};
        CHECK(run(ops[o].op, a, ops[o].approx ? 2 : 1, &Y.v, 1) == 0);
        const float *y = Y.v.data;
        int bad = 0;
        for (int64_t k = 0; k < n; k++)
            if (!agree(y[k], ops[o].want[k], 1e-6) && bad++ < 5)
                fprintf(stderr, "%s %s: x = %a: eir %a, torch %a\n", ops[o].op, ops[o].approx ? ops[o].approx : "",
                        (double)vmath_ref_x[k], (double)y[k], (double)ops[o].want[k]);
        CHECK(bad == 0);
        tfree(&X); tfree(&Y);
    }
}

/* the spacing of float32 values at |w| (the subnormal spacing below the normal range) */
static double ulp_at(double w) {
    float a = (float)fabs(w);
    if (a < 0x1p-126f) return 0x1p-149;
    if (isinf(a)) return INFINITY;
    return (double)nextafterf(a, INFINITY) - (double)a;
}

static void test_sweep(void) {
    double worst_exp = 0, worst_tanh = 0, worst_erf = 0;
    for (uint64_t u = 0; u <= 0xFFFFFFFFu; u += 4093) {
        float x = vm_from_bits((uint32_t)u);
        if (isnan(x)) continue;
        double e = exp((double)x);
        float g = vm_expf(x);
        if (isinf((float)e) || isinf(g)) {
            if ((float)e != g) { fprintf(stderr, "exp(%a): %a, want %a\n", (double)x, (double)g, (double)(float)e); CHECK(false); }
        } else {
            double d = fabs((double)g - e) / ulp_at(e);
            if (d > worst_exp) worst_exp = d;
        }
        double t = tanh((double)x), dt = fabs((double)vm_tanhf(x) - t) / ulp_at(t);
        if (dt > worst_tanh) worst_tanh = dt;
        double de = fabs((double)vm_erff(x) - erf((double)x));
        if (de > worst_erf) worst_erf = de;
    }
    printf("test_k_vmath: worst exp %.3f ulp, tanh %.3f ulp, erf %.3g absolute\n", worst_exp, worst_tanh, worst_erf);
    CHECK(worst_exp <= 1.5);
    CHECK(worst_tanh <= 2.0);
    CHECK(worst_erf <= 7e-7);
    /* special values */
    CHECK(vm_expf(INFINITY) == INFINITY && vm_expf(-INFINITY) == 0.0f && isnan(vm_expf(NAN)));
    CHECK(vm_expf(0.0f) == 1.0f && vm_expf(-0.0f) == 1.0f);
    CHECK(vm_tanhf(INFINITY) == 1.0f && vm_tanhf(-INFINITY) == -1.0f && isnan(vm_tanhf(NAN)));
    CHECK(vm_tanhf(-0.0f) == 0.0f && signbit(vm_tanhf(-0.0f)));
    CHECK(vm_erff(INFINITY) == 1.0f && vm_erff(-INFINITY) == -1.0f && isnan(vm_erff(NAN)));
    /* the overflow edge: the largest float whose exponential is finite, and the next */
    CHECK(vm_expf(88.7228317f) < INFINITY && vm_expf(nextafterf(88.7228317f, 100.0f)) == INFINITY);
    CHECK(vm_expf(-103.0f) > 0.0f && vm_expf(-104.0f) == 0.0f);
}

int main(void) {
    test_against_torch();
    test_sweep();
    return check_summary("test_k_vmath");
}
