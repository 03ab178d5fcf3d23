/* pw.h — the elementwise engine of pointwise.c, for the kernel files that
 * define more pointwise ops on it (special.c). Internal to src/kernels/.
 *
 * An op is a set of element functions, one per computation domain:
 *   F: float32, float16, bfloat16 (computed in float, rounded on store)
 *   D: float64
 *   I: integers and bool (int64 arithmetic, wrapped on store)
 *   C: complex64/complex128 (computed in double complex)
 * NULL where torch does not implement the op for that domain, so the
 * engine reports torch's '"name" not implemented for 'Half'' error.
 * eir_pw_run broadcasts the inputs to the output's shape, converts each
 * element to the domain of the computation dtype ct, calls the element
 * function and stores the result in the output's dtype. */
#ifndef EIR_KERNELS_PW_H
#define EIR_KERNELS_PW_H

#include "base/cmplx.h" /* complex.h, and CMPLX for clang */

#include "fast.h"
#include "kutil.h"

typedef double _Complex pw_cplx;

/* Per-call parameters, filled by the kernel before eir_pw_run. */
typedef struct pw_params {
    eir_dtype ct;           /* computation dtype (set by eir_pw_run) */
    int bits;               /* I domain: width of ct (set by eir_pw_run) */
    bool is_signed;         /* I domain: signedness of ct (set by eir_pw_run) */
    int mode;               /* rounding mode (0 none, 1 trunc, 2 floor), gelu approximate, ... */
    bool has_lo, has_hi;    /* clamp */
    double a, b, c;         /* scalar parameters (alpha, slope, ...), as double */
    float af, bf, cf;       /* the same, as float (rounded to ct where torch does) */
    int64_t ai, bi, ci;     /* the same, as integers */
} pw_params;

/* x[0..nin) are the operands (x always has 4 slots). The I function sets
 * *err to report torch's ZeroDivisionError. */
typedef float (*pw_ffn)(const float *x, const pw_params *p);
typedef double (*pw_dfn)(const double *x, const pw_params *p);
typedef int64_t (*pw_ifn)(const int64_t *x, const pw_params *p, int *err);
typedef pw_cplx (*pw_cfn)(const pw_cplx *x, const pw_params *p);

typedef struct pw_op {
    const char *name;       /* torch's kernel name for "not implemented for" errors */
    int nin;                /* 1..4 */
    pw_ffn f;
    pw_dfn d;
    pw_ifn i;
    pw_cfn c;
    unsigned keep_opmath;   /* bit k: a one-element input k is not rounded to a reduced-float ct */
    bool f32_only;          /* F domain for float32 only: torch has no float16/bfloat16 kernel */
    pw_rowf rf;             /* float32 rows when every operand is float32 (fast.h), or NULL */
    pw_rowd rd;             /* float64 rows likewise */
    bool reduced_rows;      /* rf also runs float16 / bfloat16 rows converted to float32 (f computes in float and
                               rounds only on store, as torch's reduced-float kernels do for this op) */
} pw_op;

/* Run op on ins[0..op->nin) (each broadcastable to out) into out, computing
 * in ct. Returns 0, or -1 with the message in ctx. */
int eir_pw_run(const pw_op *op, pw_params *p, eir_dtype ct, const eir_tview *const *ins, eir_tview *out,
               eir_kctx *ctx);

/* A tensor argument, or a scalar argument (Scalar, int, float, bool) as a
 * 0-d view stored in *b; NULL if the argument is neither. */
typedef struct pw_scalar_buf {
    double v[2];
    eir_tview t;
} pw_scalar_buf;
const eir_tview *eir_pw_arg_view(const eir_karg *a, pw_scalar_buf *b);

/* A scalar argument's value as double / as int64 (floats truncate). */
double eir_pw_scalar_f(const eir_karg *a);
int64_t eir_pw_scalar_i(const eir_karg *a);

/* torch.result_type of two arguments (b may be NULL). */
eir_dtype eir_pw_result_type2(const eir_karg *a, const eir_karg *b);

/* Integer and bool computation dtypes promote to the default float, as
 * torch's float ops do: the output's dtype when it is floating, else float32. */
static inline eir_dtype eir_pw_float_ct(eir_dtype ct, const eir_tview *out) {
    if (eir_is_floating(ct) || eir_is_complex(ct)) return ct;
    return eir_is_floating(out->dtype) ? out->dtype : EIR_F32;
}

/* v rounded to float16 / bfloat16 when ct is one of them. */
static inline float eir_pw_round(float v, eir_dtype ct) {
    if (ct == EIR_F16) return eir_f16_to_f32(eir_f32_to_f16(v));
    if (ct == EIR_BF16) return eir_bf16_to_f32(eir_f32_to_bf16(v));
    return v;
}

#endif
