/* fast.h — float32/float64 fast paths of the CPU kernels (fast.c): row
 * loops of the pointwise engine, a direct depthwise convolution, 2-d
 * pooling and eval-mode batch norm on contiguous NCHW tensors, attention's
 * softmax rows, copies of strided views. Internal to src/kernels/ and the
 * runtime.
 *
 * The pointwise rows, pooling and im2col compute what the generic path of
 * their kernel computes, in the same order per element, so results are
 * bit-identical to it, except the float32 exp, tanh, sigmoid, silu and gelu
 * rows (vmath.h's vectorisable functions instead of libm: an ulp or two);
 * the depthwise convolution sums in another order and batch norm computes
 * in float (within an ulp or a few of the generic). The
 * kernel decides when a fast path applies (dtype, layout) and falls back to
 * the generic path otherwise. eir_kernels_fast = 0 turns them all off (the
 * unit tests compare both paths). Each splits its outer loop over the pool of
 * the run in progress (eir_pool_current), with the same results at any
 * thread count. */
#ifndef EIR_KERNELS_FAST_H
#define EIR_KERNELS_FAST_H

#include <stdbool.h>
#include <stdint.h>

struct pw_params;

/* 1 (default): kernels take their fast paths where they apply. */
extern int eir_kernels_fast;

/* ---- pointwise rows ----
 * o[0..n) = op(x[0][i * s[0]], x[1][i * s[1]], ...) where each s[k] is 0
 * (a broadcast scalar) or 1 (contiguous). Returns false, having written
 * nothing, for a stride combination the row does not handle. */
typedef bool (*pw_rowf)(float *o, const float *const *x, const int64_t *s, int64_t n, const struct pw_params *p);
typedef bool (*pw_rowd)(double *o, const double *const *x, const int64_t *s, int64_t n, const struct pw_params *p);

#define EIR_PW_ROWS(X) \
    X(add) X(mul) X(div) X(max) X(min) X(relu) X(clamp) X(neg) X(abs) X(sqrt) X(rsqrt) X(recip) \
    X(hardswish) X(hardsigmoid) X(exp) X(tanh) X(sigmoid) X(silu) X(gelu) X(pows)
#define EIR_PW_ROW_DECL(name)                                                                                     \
    bool eir_pw_row_##name##_f32(float *o, const float *const *x, const int64_t *s, int64_t n, const struct pw_params *p); \
    bool eir_pw_row_##name##_f64(double *o, const double *const *x, const int64_t *s, int64_t n, const struct pw_params *p);
EIR_PW_ROWS(EIR_PW_ROW_DECL)
#undef EIR_PW_ROW_DECL

/* ---- convolution ----
 * Depthwise 2-d convolution, float32: x (N, C, H, W) and y (N, C, OH, OW)
 * contiguous, w (C, 1, KH, KW) contiguous, bias (C) or NULL. Each output is
 * bias + the sum over (kh, kw) in row-major order, accumulated in float. */
void eir_conv2d_depthwise_f32(const float *x, const float *w, const float *bias, float *y, int64_t N, int64_t C,
                              int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW, const int64_t *stride,
                              const int64_t *pad, const int64_t *dil);

/* An epilogue applied to a float32 convolution's output while it is still in
 * cache: fn(ctx, c, y, n) rewrites y[0..n), n outputs of channel c, in place.
 * Elementwise, so the result does not depend on how the output is cut. */
typedef struct eir_conv_epi {
    void (*fn)(const void *ctx, int64_t c, float *y, int64_t n);
    const void *ctx;
} eir_conv_epi;

/* eir_conv2d_depthwise_f32, then epi (NULL: none) on each output plane
 * right after it is computed (the bias is already in). Kernels of 3 x 3 and
 * 5 x 5 at stride 1 or 2, undilated, sum the 9 or 25 taps in row-major order
 * in one expression per output. */
void eir_conv2d_depthwise_epi_f32(const float *x, const float *w, const float *bias, float *y, int64_t N, int64_t C,
                                  int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                                  const int64_t *stride, const int64_t *pad, const int64_t *dil, const eir_conv_epi *epi);

/* im2col of one group, float32, 2-d: col (C*KH*KW, OH*OW) from x (C, H, W), zeros where a tap falls
 * in the padding; what nn.c's generic im2col writes. */
void eir_im2col2d_f32(const float *x, float *col, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH,
                      int64_t KW, const int64_t *stride, const int64_t *pad, const int64_t *dil);

/* The columns [p0, p1) of that matrix (output pixels p0 .. p1 - 1 in row-major
 * order) as a (C*KH*KW, p1 - p0) matrix: the same values; one thread. */
void eir_im2col2d_range_f32(const float *x, float *col, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW,
                            int64_t KH, int64_t KW, const int64_t *stride, const int64_t *pad, const int64_t *dil,
                            int64_t p0, int64_t p1);

/* ---- pooling, float32, x (N*C planes of H x W) and y (N*C planes of OH x OW) contiguous ----
 * max_pool2d: NaN wins (the last NaN's index), ind (int64, same layout as
 * y) when not NULL. avg_pool2d: sums in double as the generic kernel does;
 * divisor_override 0 for none. adaptive_avg_pool2d likewise; its global
 * average (a 1 x 1 output, 64 or more inputs per plane) in 8 interleaved
 * double partial sums: the same float unless the two double sums straddle a
 * float rounding boundary. */
void eir_max_pool2d_f32(const float *x, float *y, int64_t *ind, int64_t planes, int64_t H, int64_t W, int64_t OH,
                        int64_t OW, const int64_t *ks, const int64_t *st, const int64_t *pd, const int64_t *dl);
void eir_avg_pool2d_f32(const float *x, float *y, int64_t planes, int64_t H, int64_t W, int64_t OH, int64_t OW,
                        const int64_t *ks, const int64_t *st, const int64_t *pd, bool count_include_pad,
                        int64_t divisor_override);
void eir_adaptive_avg_pool2d_f32(const float *x, float *y, int64_t planes, int64_t H, int64_t W, int64_t OH,
                                 int64_t OW);

/* ---- batch norm (eval) ----
 * y = x * alpha[c] + beta[c] over N planes of C channels of P elements, in
 * float with alpha and beta rounded to float, as torch's CPU kernel computes
 * it (the generic kernel computes in double: results differ by an ulp). */
void eir_batch_norm_apply_f32(const float *x, float *y, int64_t N, int64_t C, int64_t P, const double *alpha,
                              const double *beta);
/* The same for float16 / bfloat16 x and y (bf16: which): each plane converted to float32, the
 * float32 row, rounded once, as torch's reduced-float kernel computes in float. false: out of
 * memory (y partly written). */
bool eir_batch_norm_apply_half(const uint16_t *x, uint16_t *y, bool bf16, int64_t N, int64_t C, int64_t P,
                               const double *alpha, const double *beta);

/* ---- attention ----
 * One row of attention weights in place, float32: p[j] = exp(p[j] - mx) / sum
 * for j < nv, where mx is the largest of p[0..nv) and sum the sum of those
 * exponentials (in double, in a fixed order), and p[j] = 0 for nv <= j < n
 * (the causal mask); *mx_out and *sum_out receive mx and sum (for the
 * logsumexp). A row whose largest score is -inf becomes zeros (mx = -inf,
 * sum = 0); a NaN score makes the row NaN. Runs on the calling thread. */
void eir_softmax_row_f32(float *p, int64_t nv, int64_t n, float *mx_out, double *sum_out);

/* ---- copies ----
 * The elements of src in row-major (logical) order into dst, contiguous, of
 * src's dtype (the runtime's view copies, aten.clone / copy / contiguous into
 * a contiguous output): runs of the last dim, or, for 4-byte elements whose
 * last dim is strided while another has stride 1 (a transposition), 16 x 16
 * tiles. Returns false, having copied nothing, when fast paths are off or dst
 * overlaps the span of src. Runs on the calling thread. */
struct eir_tview;
bool eir_copy_to_contig(void *dst, const struct eir_tview *src);

/* ---- bfloat16 / float16 rows ----
 * n contiguous values converted to float32 (exact), or float32 values rounded
 * to nearest even (a NaN stays a quiet NaN): kutil.h's eir_bf16_to_f32 /
 * eir_f32_to_bf16 / eir_f16_to_f32 / eir_f32_to_f16, the same bits, in loops
 * the compiler vectorises. */
void eir_bf16_to_f32_row(float *d, const uint16_t *s, int64_t n);
void eir_f32_to_bf16_row(uint16_t *d, const float *s, int64_t n);
void eir_f16_to_f32_row(float *d, const uint16_t *s, int64_t n);
void eir_f32_to_f16_row(uint16_t *d, const float *s, int64_t n);

#endif
