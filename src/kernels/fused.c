/* fused.c — kernels of the Backend dialect's operators (src/ops/backend_ops.c):
 * eir_cpu::conv2d and eir_cpu::linear, a convolution or matrix product with
 * its bias and activation applied in one epilogue, and eir_cpu::attention.
 *
 * The product itself is nn.c's (eir_nn_conv_epi, eir_nn_gemm), so it
 * computes what aten.convolution / aten.addmm compute. The epilogue is
 * applied while the output is still in cache: a convolution's inside nn.c
 * (on each depthwise plane, on each block of the im2col GEMM as it
 * completes), a linear's in one pass over the product's rows split over the
 * run's threads. The bias is
 * added (a convolution's, in float, as nn.c adds it; a linear's goes into
 * the GEMM as addmm's does) and the activation applied in float, each
 * element what aten.relu, aten.hardtanh (relu6 is hardtanh(0, 6)),
 * aten.silu or aten.hardswish would make of it: relu and hardtanh as
 * vectorized compare-and-select rows here (a NaN stays NaN), silu and
 * hardswish with the pointwise engine's rows (fast.c)
 * A linear on up to 4 rows of a row-major weight runs recurrent.c's
 * matrix-vector kernel instead of the GEMM. eir_cpu::attention is
 * nn.c's scaled_dot_product_attention without dropout or causal masking.
 * eir_cpu::conv2d_blocked, to_blocked and from_blocked keep convolution
 * chains in a blocked layout (dnnl_conv.c's primitive, the NCHW convolution
 * when it has none), the epilogue adding bias and residual and applying the
 * activation as the output is written.
 * Float32 only; other dtypes are refused (the pass to-backend makes these
 * operators only for float32 programs). */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/pool.h"
#include "dnnl_conv.h"
#include "fast.h"
#include "fused.h"
#include "gemm.h"
#include "kutil.h"
#include "pw.h"
#include "recurrent.h"
#include "tables.h"
#include "wgemm.h"
#include "nngemm.h"
#include "../ops/optable.h"

typedef struct epilogue {
    int act;                     /* EIR_ACT_* */
    float lo, hi;                /* hardtanh's bounds */
} epilogue;

/* relu and hardtanh rows, vectorized (compare and select: a NaN stays NaN, as
 * in aten.relu and aten.hardtanh); the other activations use fast.c's rows */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define EPI_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("tree-vectorize")))
#define SC_CLONES                                                                                                      \
    __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("tree-vectorize", "fp-contract=fast")))
#else
#define EPI_CLONES
#define SC_CLONES
#endif
EPI_CLONES static void relu_row(float *restrict y, int64_t n, float b) {
    for (int64_t i = 0; i < n; i++) {
        float v = y[i] + b;
        y[i] = v < 0.f ? 0.f : v;
    }
}
EPI_CLONES static void hardtanh_row(float *restrict y, int64_t n, float b, float lo, float hi) {
    for (int64_t i = 0; i < n; i++) {
        float v = y[i] + b;
        v = v < lo ? lo : v;
        y[i] = v > hi ? hi : v;
    }
}

/* hardswish as fast.c's row computes it: v * clamp(v + 3, 0, 6) / 6 */
EPI_CLONES static void hardswish_row(float *restrict y, int64_t n, float b) {
    for (int64_t i = 0; i < n; i++) {
        float v = y[i] + b, t = v + 3.0f;
        t = t > 0.0f ? t : 0.0f;
        t = t < 6.0f ? t : 6.0f;
        y[i] = v * t / 6.0f;
    }
}

/* y[0..n) = act(y + b): relu, hardtanh and hardswish add the bias in their
 * own pass (y + b in float, as aten.add, then the activation's expression:
 * the same bits as two passes); silu the pointwise engine's add row, then
 * its row */
static void apply_row(float *y, int64_t n, float b, const epilogue *e) {
    if (e->act == EIR_ACT_RELU) { relu_row(y, n, b); return; }
    if (e->act == EIR_ACT_HARDTANH) { hardtanh_row(y, n, b, e->lo, e->hi); return; }
    if (e->act == EIR_ACT_HARDSWISH) { hardswish_row(y, n, b); return; }
    static const int64_t s[3] = {1, 0, 0};
    pw_params pp;
    memset(&pp, 0, sizeof pp);
    pp.ct = EIR_F32;
    pp.a = 1.0, pp.af = 1.0f;
    if (b != 0.f) {
        const float *x[4] = {y, &b, NULL, NULL};
        eir_pw_row_add_f32(y, x, s, n, &pp);
    }
    const float *x[4] = {y, &e->lo, &e->hi, NULL};
    switch (e->act) {
    case EIR_ACT_SILU: eir_pw_row_silu_f32(y, x, s, n, &pp); break;
    default: break;
    }
}

/* The epilogue as the convolution's callback: channel c's bias, then the activation */
typedef struct conv_epi_ctx {
    const float *bias;
    const epilogue *e;
} conv_epi_ctx;

static void conv_epi_row(const void *ctx, int64_t c, float *y, int64_t n) {
    const conv_epi_ctx *k = ctx;
    apply_row(y, n, k->bias ? k->bias[c] : 0.f, k->e);
}

/* The epilogue over rows [b, e) of n elements each, row r's bias bias[r]
 * (none: NULL), on the run's threads: rows are independent, so the bits do
 * not depend on the split. A chunk takes at least EPI_GRAIN elements. */
enum { EPI_GRAIN = 1 << 15 };
typedef struct epi_job {
    float *y;
    int64_t n;
    const float *bias;
    const epilogue *e;
} epi_job;

static void epi_rows(void *ctx, int64_t b, int64_t e) {
    const epi_job *j = ctx;
    for (int64_t r = b; r < e; r++) apply_row(j->y + r * j->n, j->n, j->bias ? j->bias[r] : 0.f, j->e);
}

static void apply_rows(float *y, int64_t rows, int64_t n, const float *bias, const epilogue *e) {
    epi_job j = {y, n, bias, e};
    eir_parallel_for(eir_pool_current(), rows, n >= EPI_GRAIN ? 1 : EPI_GRAIN / (n > 0 ? n : 1), epi_rows, &j);
}

/* a convolution's stride, padding and dilation (args[0..2]: lists of 1 or 2 ints) into st, pd, dl;
 * -1 with the kernel's error set when malformed */
static int read_geometry(const eir_karg *args, int64_t st[2], int64_t pd[2], int64_t dl[2], eir_kctx *ctx,
                         const char *op) {
    int64_t *dst[3] = {st, pd, dl};
    for (int k = 0; k < 3; k++) {
        if (args[k].kind != EIR_KA_INTS || (args[k].n != 1 && args[k].n != 2))
            return eir_kerr(ctx, "%s: %s must be a list of 1 or 2 ints", op, k == 0 ? "stride" : k == 1 ? "padding" : "dilation");
        for (int i = 0; i < 2; i++) dst[k][i] = args[k].ints[args[k].n == 1 ? 0 : i];
    }
    for (int i = 0; i < 2; i++)
        if (st[i] < 1 || pd[i] < 0 || dl[i] < 1)
            return eir_kerr(ctx, "%s: stride and dilation must be positive and padding non-negative", op);
    return 0;
}

/* activation (and its bounds) from arguments 'activation', 'min', 'max' */
static int read_epilogue(const eir_karg *act, const eir_karg *lo, const eir_karg *hi, epilogue *e, eir_kctx *ctx,
                         const char *op) {
    const char *name = act->kind == EIR_KA_STRING ? act->str : "none";
    e->act = eir_backend_activation(name);
    if (e->act < 0)
        return eir_kerr(ctx, "%s: unknown activation '%s' (none, relu, hardtanh, silu or hardswish)", op, name);
    e->lo = -INFINITY, e->hi = INFINITY;
    if (e->act == EIR_ACT_HARDTANH) {
        if (lo->kind == EIR_KA_NONE || hi->kind == EIR_KA_NONE)
            return eir_kerr(ctx, "%s: activation 'hardtanh' needs min and max", op);
        e->lo = (float)(lo->kind == EIR_KA_FLOAT ? lo->f : lo->s.f);
        e->hi = (float)(hi->kind == EIR_KA_FLOAT ? hi->f : hi->s.f);
    }
    return 0;
}

/* A contiguous float32 view of t's sizes over buf. */
static eir_tview contig_like(const eir_tview *t, void *buf) {
    eir_tview v = *t;
    v.data = buf;
    int64_t s = 1;
    for (int32_t d = t->rank; d-- > 0;) {
        v.strides[d] = s;
        s *= t->sizes[d];
    }
    return v;
}

/* dst = src elementwise (float32, same sizes, any strides) */
static void copy_f32(const eir_tview *dst, const eir_tview *src) {
    int64_t n = eir_tview_numel(dst), idx[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        int64_t od = 0, os = 0;
        for (int32_t d = 0; d < dst->rank; d++) od += idx[d] * dst->strides[d], os += idx[d] * src->strides[d];
        ((float *)dst->data)[od] = ((const float *)src->data)[os];
        for (int32_t d = dst->rank; d-- > 0;) {
            if (++idx[d] < dst->sizes[d]) break;
            idx[d] = 0;
        }
    }
}

/* eir_cpu::conv2d(input, weight, bias, stride, padding, dilation, groups, activation, min, max) */
static int k_conv2d(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::conv2d";
    if (na < 10 || no < 1) return eir_kerr(ctx, "%s: expected 10 arguments and one output", op);
    const eir_tview *x = a[0].t, *w = a[1].t, *b = a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    eir_tview *y = &out[0];
    if (x->dtype != EIR_F32 || w->dtype != EIR_F32 || (b && b->dtype != EIR_F32) || y->dtype != EIR_F32)
        return eir_kerr(ctx, "%s: expected float32 input, weight, bias and output, got %s, %s", op,
                        eir_torch_dtype_name(x->dtype), eir_torch_dtype_name(w->dtype));
    if (x->rank != 4 || w->rank != 4 || y->rank != 4)
        return eir_kerr(ctx, "%s: expected a 4-d input and weight, got ranks %d and %d", op, (int)x->rank, (int)w->rank);
    int64_t st[2], pd[2], dl[2];
    if (read_geometry(&a[3], st, pd, dl, ctx, op)) return -1;
    if (b && (b->rank != 1 || b->sizes[0] != y->sizes[1]))
        return eir_kerr(ctx, "%s: bias must be 1-d with %lld elements", op, (long long)y->sizes[1]);
    epilogue e;
    if (read_epilogue(&a[7], &a[8], &a[9], &e, ctx, op)) return -1;
    int64_t C = y->sizes[1];
    bool direct = eir_tview_is_contiguous(y);
    void *scratch = direct ? NULL : eir_kalloc((size_t)(eir_tview_numel(y) > 0 ? eir_tview_numel(y) : 1) * sizeof(float));
    if (!direct && !scratch) return eir_kerr(ctx, "out of memory");
    eir_tview yc = direct ? *y : contig_like(y, scratch);
    float *bias = NULL;
    void *bias_buf = NULL;
    if (b) {
        if (b->strides[0] == 1) bias = b->data;
        else {
            if (!(bias = bias_buf = eir_kalloc((size_t)(C > 0 ? C : 1) * sizeof(float)))) {
                eir_kfree(scratch);
                return eir_kerr(ctx, "out of memory");
            }
            for (int64_t c = 0; c < C; c++) bias[c] = ((const float *)b->data)[c * b->strides[0]];
        }
    }
    /* the epilogue runs inside the convolution, on each block of output as it is computed */
    conv_epi_ctx ec = {bias, &e};
    eir_conv_epi epi = {conv_epi_row, &ec};
    int rc = eir_nn_conv_epi(ctx, x, w, NULL, st, pd, dl, a[6].i, &yc, bias || e.act != EIR_ACT_NONE ? &epi : NULL);
    if (!rc && !direct) copy_f32(y, &yc);
    eir_kfree(bias_buf);
    eir_kfree(scratch);
    return rc;
}

/* A linear layer's input as an M x K matrix with contiguous rows (x itself, or a copy in xbuf) and
 * where its M x N result is written (y itself when contiguous, else ybuf, copied into y by
 * linear_end). */
typedef struct linear_io {
    eir_tview xc;
    float *C;
    void *xbuf, *ybuf;
    bool direct;
} linear_io;

static int linear_begin(const eir_tview *x, const eir_tview *y, int64_t M, int64_t K, int64_t N, linear_io *io,
                        eir_kctx *ctx) {
    memset(io, 0, sizeof *io);
    io->xc = *x;
    if (!eir_tview_is_contiguous(x)) {
        if (!(io->xbuf = eir_kalloc((size_t)(M * K > 0 ? M * K : 1) * sizeof(float)))) return eir_kerr(ctx, "out of memory");
        io->xc = contig_like(x, io->xbuf);
        copy_f32(&io->xc, x);
    }
    io->direct = eir_tview_is_contiguous(y);
    if (!io->direct && !(io->ybuf = eir_kalloc((size_t)(M * N > 0 ? M * N : 1) * sizeof(float)))) {
        eir_kfree(io->xbuf);
        return eir_kerr(ctx, "out of memory");
    }
    io->C = io->direct ? y->data : io->ybuf;
    return 0;
}

/* After the product (ok): the activation on its rows, the result copied into y when it went to a
 * buffer; the buffers freed either way. */
static void linear_end(eir_tview *y, int64_t M, int64_t N, const epilogue *e, linear_io *io, bool ok) {
    if (ok && e->act != EIR_ACT_NONE) apply_rows(io->C, M, N, NULL, e);
    if (ok && !io->direct) {
        eir_tview yc = contig_like(y, io->ybuf);
        copy_f32(y, &yc);
    }
    eir_kfree(io->xbuf);
    eir_kfree(io->ybuf);
}

/* eir_cpu::linear(input, weight, bias, activation, min, max): input (.., K), weight (N, K), bias (N) */
static int k_linear(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::linear";
    if (na < 6 || no < 1) return eir_kerr(ctx, "%s: expected 6 arguments and one output", op);
    const eir_tview *x = a[0].t, *w = a[1].t, *b = a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    eir_tview *y = &out[0];
    if (x->dtype != EIR_F32 || w->dtype != EIR_F32 || (b && b->dtype != EIR_F32) || y->dtype != EIR_F32)
        return eir_kerr(ctx, "%s: expected float32 input, weight, bias and output, got %s, %s", op,
                        eir_torch_dtype_name(x->dtype), eir_torch_dtype_name(w->dtype));
    if (x->rank < 1 || w->rank != 2 || y->rank != x->rank || x->sizes[x->rank - 1] != w->sizes[1] ||
        y->sizes[y->rank - 1] != w->sizes[0])
        return eir_kerr(ctx, "%s: input (.., %lld) and weight [%lld, %lld] do not multiply", op,
                        (long long)x->sizes[x->rank - 1], (long long)w->sizes[0], (long long)w->sizes[1]);
    if (b && (b->rank != 1 || b->sizes[0] != w->sizes[0]))
        return eir_kerr(ctx, "%s: bias must be 1-d with %lld elements", op, (long long)w->sizes[0]);
    epilogue e;
    if (read_epilogue(&a[3], &a[4], &a[5], &e, ctx, op)) return -1;
    int64_t K = w->sizes[1], N = w->sizes[0], M = 1;
    for (int32_t d = 0; d + 1 < x->rank; d++) M *= x->sizes[d];
    linear_io io;
    if (linear_begin(x, y, M, K, N, &io, ctx)) return -1;
    /* a few rows against a row-major weight: the matrix-vector kernel
     * (recurrent.c) reads the weight once, without a GEMM call's set-up */
    if (eir_kernels_fast && M <= EIR_GEMV_MAX_M && K >= 8 && w->strides[1] == 1 && w->strides[0] == K &&
        (!b || b->strides[0] == 1 || N == 1)) {
        eir_gemv_f32(w->data, N, K, io.xc.data, K, M, b ? b->data : NULL, io.C, N);
        linear_end(y, M, N, &e, &io, true);
        return 0;
    }
    /* 16 to 64 rows against a constant weight, where nngemm.c runs (an Intel CPU with AVX-512):
     * from the weight's packed copy on one thread; as stored at its first use and on more threads
     * (wgemm.c, the same bits) */
    if (eir_kernels_fast && w->strides[1] == 1 && (!b || b->strides[0] == 1 || N == 1) &&
        eir_nngemm_linear_takes(M, K) &&
        eir_nngemm_linear_f32(M, N, K, io.xc.data, K, w->data, w->strides[0], b ? b->data : NULL, io.C, N) == 1) {
        linear_end(y, M, N, &e, &io, true);
        return 0;
    }
    /* 48 to 64 rows, where wgemm.c runs (an Intel CPU with AVX-512): the product read from the
     * weight as stored, without a transposed copy */
    if (eir_kernels_fast && w->strides[1] == 1 && eir_wgemm_takes(M, K) &&
        eir_wgemm_f32(M, N, K, io.xc.data, K, w->data, w->strides[0], b ? b->data : NULL, b ? b->strides[0] : 0, io.C,
                      N) == 0) {
        linear_end(y, M, N, &e, &io, true);
        return 0;
    }
    eir_tview A = {io.xc.data, EIR_F32, 2, {M, K}, {K, 1}};
    eir_tview B = {w->data, EIR_F32, 2, {K, N}, {w->strides[1], w->strides[0]}};   /* weight transposed */
    eir_tview Cm = {io.C, EIR_F32, 2, {M, N}, {N, 1}};
    eir_tview bias;
    if (b) bias = (eir_tview){b->data, EIR_F32, 2, {M, N}, {0, b->strides[0]}};
    int rc = eir_nn_gemm(ctx, &A, &B, b ? &bias : NULL, &Cm);
    linear_end(y, M, N, &e, &io, rc == 0);
    return rc;
}

typedef struct panel_job {
    const float *A, *B, *bias;
    float *C;
    int64_t M, N, K, W;
} panel_job;

static void panel_blocks(void *ctx, int64_t p0, int64_t p1) {
    const panel_job *j = ctx;
    for (int64_t p = p0; p < p1; p++) {
        int64_t lo = p * j->W, n = j->N - lo < j->W ? j->N - lo : j->W;
        float *C = j->C + lo;
        if (j->bias)
            for (int64_t r = 0; r < j->M; r++) memcpy(C + r * j->N, j->bias + lo, (size_t)n * sizeof *C);
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)j->M, (int)n, (int)j->K, 1.0f, j->A, (int)j->K,
                  j->B + p * j->K * j->W, (int)j->W, j->bias ? 1.0f : 0.0f, C, (int)j->N);
    }
}

/* eir_cpu::linear_packed(input, packed_weight, bias, out_features, activation, min, max): input
 * (.., K); packed_weight (P, K, W), panel p holding columns [p W, p W + W) of the K x N right-hand
 * operand (weight^T; the last panel's columns past N = out_features unused); bias (N). One product
 * per panel, on the pool's threads (the same calls at any thread count); the bias copied into the
 * result first and accumulated into, as addmm does. */
static int k_linear_packed(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::linear_packed";
    if (na < 7 || no < 1) return eir_kerr(ctx, "%s: expected 7 arguments and one output", op);
    const eir_tview *x = a[0].t, *w = a[1].t, *b = a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    eir_tview *y = &out[0];
    if (x->dtype != EIR_F32 || w->dtype != EIR_F32 || (b && b->dtype != EIR_F32) || y->dtype != EIR_F32)
        return eir_kerr(ctx, "%s: expected float32 input, weight, bias and output, got %s, %s", op,
                        eir_torch_dtype_name(x->dtype), eir_torch_dtype_name(w->dtype));
    if (w->rank != 3) return eir_kerr(ctx, "%s: expected a 3-d packed_weight (panels, K, width), got rank %d", op, (int)w->rank);
    int64_t P = w->sizes[0], K = w->sizes[1], W = w->sizes[2], N = a[3].i, M = 1;
    if (x->rank < 1 || y->rank != x->rank || x->sizes[x->rank - 1] != K || y->sizes[y->rank - 1] != N || W < 1 ||
        N <= (P - 1) * W || N > P * W)
        return eir_kerr(ctx, "%s: input (.., %lld) and packed_weight [%lld, %lld, %lld] do not give %lld columns", op,
                        (long long)x->sizes[x->rank - 1], (long long)P, (long long)K, (long long)W, (long long)N);
    /* contiguous (a dim of size 1 may have any stride) */
    if ((W > 1 && w->strides[2] != 1) || (K > 1 && w->strides[1] != W) || (P > 1 && w->strides[0] != K * W))
        return eir_kerr(ctx, "%s: packed_weight must be contiguous", op);
    if (b && (b->rank != 1 || b->sizes[0] != N))
        return eir_kerr(ctx, "%s: bias must be 1-d with %lld elements", op, (long long)N);
    epilogue e;
    if (read_epilogue(&a[4], &a[5], &a[6], &e, ctx, op)) return -1;
    for (int32_t d = 0; d + 1 < x->rank; d++) M *= x->sizes[d];
    if (M == 0 || N == 0) return 0;
    linear_io io;
    if (linear_begin(x, y, M, K, N, &io, ctx)) return -1;
    const float *bias = b ? b->data : NULL;
    float *bbuf = NULL;
    if (b && b->strides[0] != 1) {
        if (!(bbuf = eir_kalloc((size_t)N * sizeof(float)))) {
            linear_end(y, M, N, &e, &io, false);
            return eir_kerr(ctx, "out of memory");
        }
        for (int64_t i = 0; i < N; i++) bbuf[i] = ((const float *)b->data)[i * b->strides[0]];
        bias = bbuf;
    }
    if (K == 0) {
        for (int64_t r = 0; r < M; r++)
            for (int64_t i = 0; i < N; i++) io.C[r * N + i] = bias ? bias[i] : 0.0f;
    } else {
        panel_job j = {io.xc.data, w->data, bias, io.C, M, N, K, W};
        eir_parallel_items(eir_pool_current(), (N + W - 1) / W, panel_blocks, &j); /* as gemm_split's blocks */
    }
    linear_end(y, M, N, &e, &io, true);
    eir_kfree(bbuf);
    return 0;
}

/* eir_cpu::attention(query, key, value, attn_mask, scale): query (.., L, E), key
 * (.., S, E), value (.., S, Ev) with the same batch dims as the output (.., L,
 * Ev); attn_mask (float32, added to the scores) broadcast to (.., L, S). The
 * decomposed form of aten.scaled_dot_product_attention that to-backend
 * recognises; nn.c's attention computes it. */
static int k_attention(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::attention";
    if (na < 5 || no < 1) return eir_kerr(ctx, "%s: expected 5 arguments and one output", op);
    if (a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR || a[2].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "%s: query, key and value must be tensors", op);
    const eir_tview *q = a[0].t, *k = a[1].t, *v = a[2].t, *m = a[3].kind == EIR_KA_TENSOR ? a[3].t : NULL;
    eir_tview *y = &out[0];
    if (q->dtype != EIR_F32 || k->dtype != EIR_F32 || v->dtype != EIR_F32 || (m && m->dtype != EIR_F32) ||
        y->dtype != EIR_F32)
        return eir_kerr(ctx, "%s: expected float32 query, key, value, attn_mask and output, got %s, %s, %s", op,
                        eir_torch_dtype_name(q->dtype), eir_torch_dtype_name(k->dtype), eir_torch_dtype_name(v->dtype));
    int32_t r = y->rank;
    if (r < 2 || q->rank != r || k->rank != r || v->rank != r)
        return eir_kerr(ctx, "%s: query, key, value and output must have the same rank (at least 2)", op);
    for (int32_t d = 0; d < r - 2; d++)
        if (q->sizes[d] != y->sizes[d] || k->sizes[d] != y->sizes[d] || v->sizes[d] != y->sizes[d])
            return eir_kerr(ctx, "%s: query, key and value must have the output's batch dims", op);
    if (q->sizes[r - 2] != y->sizes[r - 2] || k->sizes[r - 1] != q->sizes[r - 1] || v->sizes[r - 2] != k->sizes[r - 2] ||
        v->sizes[r - 1] != y->sizes[r - 1])
        return eir_kerr(ctx, "%s: query [.., %lld, %lld], key [.., %lld, %lld] and value [.., %lld, %lld] do not multiply",
                        op, (long long)q->sizes[r - 2], (long long)q->sizes[r - 1], (long long)k->sizes[r - 2],
                        (long long)k->sizes[r - 1], (long long)v->sizes[r - 2], (long long)v->sizes[r - 1]);
    double scale = a[4].kind == EIR_KA_FLOAT ? a[4].f : a[4].kind == EIR_KA_INT ? (double)a[4].i : a[4].s.f;
    return eir_nn_sdpa(ctx, q, k, v, m, scale, y);
}

/* ---- the blocked layout: (N, C, H, W) kept as (N, ceil(C / B), H, W, B) ---- */

/* whether t is a contiguous float32 tensor of rank r */
static bool dense_f32(const eir_tview *t, int32_t r) {
    return t->dtype == EIR_F32 && t->rank == r && eir_tview_is_contiguous(t);
}

/* Pixels per tile of the layout copies: a tile of every channel of a block stays in cache
 * while it is transposed. */
enum { PIX_TILE = 64 };

/* y blocked = x (N, C, H, W, any strides), the lanes past C zero */
static void pack_blocked(float *y, const eir_tview *x, int64_t B) {
    int64_t N = x->sizes[0], C = x->sizes[1], H = x->sizes[2], W = x->sizes[3], CB = (C + B - 1) / B, P = H * W;
    const float *xd = x->data;
    const int64_t *xs = x->strides;
    bool plane = xs[3] == 1 && xs[2] == W;   /* each channel's pixels contiguous */
    for (int64_t n = 0; n < N; n++)
        for (int64_t cb = 0; cb < CB; cb++) {
            float *yb = y + (n * CB + cb) * P * B;
            int64_t nc = C - cb * B < B ? C - cb * B : B;
            for (int64_t p0 = 0; p0 < P; p0 += PIX_TILE) {
                int64_t p1 = p0 + PIX_TILE < P ? p0 + PIX_TILE : P;
                for (int64_t j = 0; j < nc; j++) {
                    const float *xc = xd + n * xs[0] + (cb * B + j) * xs[1];
                    if (plane)
                        for (int64_t p = p0; p < p1; p++) yb[p * B + j] = xc[p];
                    else
                        for (int64_t p = p0; p < p1; p++) yb[p * B + j] = xc[(p / W) * xs[2] + (p % W) * xs[3]];
                }
                for (int64_t p = p0; p < p1; p++)
                    for (int64_t j = nc; j < B; j++) yb[p * B + j] = 0.f;
            }
        }
}

/* y (N, C, H, W, any strides) = x blocked, its first C channels */
static void unpack_blocked(const eir_tview *y, const float *x, int64_t B) {
    int64_t N = y->sizes[0], C = y->sizes[1], H = y->sizes[2], W = y->sizes[3], CB = (C + B - 1) / B, P = H * W;
    float *yd = y->data;
    const int64_t *ys = y->strides;
    bool plane = ys[3] == 1 && ys[2] == W;
    for (int64_t n = 0; n < N; n++)
        for (int64_t cb = 0; cb < CB; cb++) {
            const float *xb = x + (n * CB + cb) * P * B;
            int64_t nc = C - cb * B < B ? C - cb * B : B;
            for (int64_t p0 = 0; p0 < P; p0 += PIX_TILE) {
                int64_t p1 = p0 + PIX_TILE < P ? p0 + PIX_TILE : P;
                for (int64_t j = 0; j < nc; j++) {
                    float *yc = yd + n * ys[0] + (cb * B + j) * ys[1];
                    if (plane)
                        for (int64_t p = p0; p < p1; p++) yc[p] = xb[p * B + j];
                    else
                        for (int64_t p = p0; p < p1; p++) yc[(p / W) * ys[2] + (p % W) * ys[3]] = xb[p * B + j];
                }
            }
        }
}

/* eir_cpu::to_blocked(input, block) */
static int k_to_blocked(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::to_blocked";
    if (na < 2 || no < 1 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected a tensor and a block", op);
    const eir_tview *x = a[0].t;
    eir_tview *y = &out[0];
    int64_t B = a[1].i;
    if (x->dtype != EIR_F32 || x->rank != 4) return eir_kerr(ctx, "%s: expected a 4-d float32 input", op);
    if (B < 1 || !dense_f32(y, 5) || y->sizes[0] != x->sizes[0] || y->sizes[1] != (x->sizes[1] + B - 1) / B ||
        y->sizes[2] != x->sizes[2] || y->sizes[3] != x->sizes[3] || y->sizes[4] != B)
        return eir_kerr(ctx, "%s: output must be contiguous float32 [N, ceil(C / %lld), H, W, %lld] for input "
                        "[%lld, %lld, %lld, %lld]", op, (long long)B, (long long)B, (long long)x->sizes[0],
                        (long long)x->sizes[1], (long long)x->sizes[2], (long long)x->sizes[3]);
    if (!(eir_tview_is_contiguous(x) &&
          eir_dnnl_reorder_f32(x->data, 0, y->data, B, x->sizes[0], x->sizes[1], x->sizes[2], x->sizes[3])))
        pack_blocked(y->data, x, B);
    return 0;
}

/* eir_cpu::from_blocked(input, channels) */
static int k_from_blocked(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::from_blocked";
    if (na < 2 || no < 1 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected a tensor and a channel count", op);
    const eir_tview *x = a[0].t;
    eir_tview *y = &out[0];
    if (!dense_f32(x, 5)) return eir_kerr(ctx, "%s: expected a contiguous 5-d float32 input", op);
    int64_t B = x->sizes[4], C = a[1].i;
    if (y->dtype != EIR_F32 || y->rank != 4 || C < 0 || y->sizes[1] != C || y->sizes[0] != x->sizes[0] ||
        x->sizes[1] != (C + B - 1) / B || y->sizes[2] != x->sizes[2] || y->sizes[3] != x->sizes[3])
        return eir_kerr(ctx, "%s: input [%lld, %lld, %lld, %lld, %lld] does not hold %lld channels of the output", op,
                        (long long)x->sizes[0], (long long)x->sizes[1], (long long)x->sizes[2], (long long)x->sizes[3],
                        (long long)B, (long long)C);
    if (!(eir_tview_is_contiguous(y) &&
          eir_dnnl_reorder_f32(x->data, B, y->data, 0, y->sizes[0], C, y->sizes[2], y->sizes[3])))
        unpack_blocked(y, x->data, B);
    return 0;
}

/* the blocked convolution's epilogue (eir_blk_epi): per channel c < O, v = y + bias[c] (no
 * bias: y), then + residual, then the activation, each step what eir_cpu::conv2d's epilogue,
 * aten.add and the activation make of it; the padding lanes zeroed */
typedef struct blk_epi_ctx {
    const float *bias;
    const float *res;            /* the residual, blocked like y; NULL: none */
    const epilogue *e;
    float *y;
} blk_epi_ctx;

/* P pixels of lanes [0, nc) contiguous: y = x (+ bias) (+ r), then the activation (silu not
 * here), in one call for a whole piece; x may be y; lanes [nc, nz) zeroed */
EPI_CLONES static void epi_pixels(float *dst, int64_t dp, const float *src, int64_t sp, int64_t P, int64_t nc,
                                  int64_t nz, const float *restrict b, const float *restrict r, int act, float lo,
                                  float hi) {
    for (int64_t p = 0; p < P; p++) {
        float *yp = dst + p * dp;
        const float *xp = src + p * sp;
        if (xp != yp) {
            if (b)
                for (int64_t j = 0; j < nc; j++) yp[j] = xp[j] + b[j];
            else
                for (int64_t j = 0; j < nc; j++) yp[j] = xp[j];
        } else if (b)
            for (int64_t j = 0; j < nc; j++) yp[j] = yp[j] + b[j];
        if (r) {
            const float *rp = r + p * dp;
            for (int64_t j = 0; j < nc; j++) yp[j] = yp[j] + rp[j];
        }
        switch (act) {
        case EIR_ACT_RELU:
            for (int64_t j = 0; j < nc; j++) yp[j] = yp[j] < 0.f ? 0.f : yp[j];
            break;
        case EIR_ACT_HARDTANH:
            for (int64_t j = 0; j < nc; j++) {
                float v = yp[j] < lo ? lo : yp[j];
                yp[j] = v > hi ? hi : v;
            }
            break;
        case EIR_ACT_HARDSWISH:
            for (int64_t j = 0; j < nc; j++) {
                float v = yp[j], t = v + 3.0f;
                t = t > 0.0f ? t : 0.0f;
                t = t < 6.0f ? t : 6.0f;
                yp[j] = v * t / 6.0f;
            }
            break;
        default: break;
        }
        for (int64_t j = nc; j < nz; j++) yp[j] = 0.f;
    }
}

static void blk_epi(const void *ctx, int64_t n, int64_t c0, int64_t nc, int64_t nz, int64_t P, const float *src,
                    int64_t sp, int64_t sj, float *dst, int64_t dp) {
    if (sj == 1) { /* the primitive's pieces: pixel rows of contiguous lanes */
        const blk_epi_ctx *k = ctx;
        const float *r = k->res ? k->res + (dst - k->y) : NULL, *bias = k->bias ? k->bias + c0 : NULL;
        const epilogue *e = k->e;
        epi_pixels(dst, dp, src, sp, P, nc, nz, bias, r, e->act, e->lo, e->hi);
        if (e->act == EIR_ACT_SILU) {
            static const int64_t s1[3] = {1, 0, 0};
            pw_params pp;
            memset(&pp, 0, sizeof pp);
            pp.ct = EIR_F32;
            pp.a = 1.0, pp.af = 1.0f;
            for (int64_t p = 0; p < P; p++) {
                float *yp = dst + p * dp;
                const float *xs[4] = {yp, NULL, NULL, NULL};
                eir_pw_row_silu_f32(yp, xs, s1, nc, &pp);
            }
        }
        return;
    }
    const blk_epi_ctx *k = ctx;
    const float *r = k->res ? k->res + (dst - k->y) : NULL;
    const float *bias = k->bias ? k->bias + c0 : NULL;
    const epilogue *e = k->e;
    float lo = e->lo, hi = e->hi;
    static const int64_t s1[3] = {1, 0, 0};
    pw_params pp;
    memset(&pp, 0, sizeof pp);
    pp.ct = EIR_F32;
    pp.a = 1.0, pp.af = 1.0f;
    for (int64_t p = 0; p < P; p++) {
        const float *sp_ = src + p * sp;
        float *yp = dst + p * dp;
        const float *rp = r ? r + p * dp : NULL;
        for (int64_t j = 0; j < nc; j++) {
            float v = sp_[j * sj];
            if (bias) v = v + bias[j];
            if (rp) v = v + rp[j];
            switch (e->act) {
            case EIR_ACT_RELU: v = v < 0.f ? 0.f : v; break;
            case EIR_ACT_HARDTANH:
                v = v < lo ? lo : v;
                v = v > hi ? hi : v;
                break;
            case EIR_ACT_HARDSWISH: {
                float t = v + 3.0f;
                t = t > 0.0f ? t : 0.0f;
                t = t < 6.0f ? t : 6.0f;
                v = v * t / 6.0f;
                break;
            }
            default: break;
            }
            yp[j] = v;
        }
        if (e->act == EIR_ACT_SILU) {
            const float *xs[4] = {yp, NULL, NULL, NULL};
            eir_pw_row_silu_f32(yp, xs, s1, nc, &pp);
        }
        for (int64_t j = nc; j < nz; j++) yp[j] = 0.f;
    }
    (void)n;
}

/* ---- depthwise convolution (groups == C == O) on the blocked layout ----
 * Each output pixel's lanes are summed tap by tap (kh, then kw, taps outside the input
 * skipped) in a few vector accumulators, from the input's pixel rows and the weight
 * transposed to (ceil(C / B), KH, KW, B); a row of output pixels then gets the blocked
 * epilogue (bias, residual, activation) while in cache. Rows are the unit of work: every
 * element is computed the same way at any thread count. */
typedef struct dw_job {
    const float *x, *wt;         /* x blocked by B; wt (CB, KH, KW, B), lanes past C zero */
    const float *bias;           /* (CB * B), lanes past C zero; NULL: none */
    float *y;
    int64_t C, CB, B, H, W, OH, OW, KH, KW, st[2], pd[2], dl[2];
    int act;                     /* applied pixel by pixel (with the bias): relu, hardtanh, hardswish or none */
    bool inreg;                  /* false: the row's epilogue is blk_epi (a residual, or silu) */
    float lo, hi;
    const blk_epi_ctx *ec;
} dw_job;

/* yp[0..L) = act(yp + bias) in place (inreg): each step as blk_epi's */
#define DW_EPI(yp, L)                                                                                                  \
    do {                                                                                                               \
        float *restrict y_ = (yp);                                                                                     \
        if (bj)                                                                                                        \
            for (int64_t l = 0; l < (L); l++) y_[l] = y_[l] + bj[l];                                                   \
        switch (act) {                                                                                                 \
        case EIR_ACT_RELU:                                                                                             \
            for (int64_t l = 0; l < (L); l++) y_[l] = y_[l] < 0.f ? 0.f : y_[l];                                       \
            break;                                                                                                     \
        case EIR_ACT_HARDTANH:                                                                                         \
            for (int64_t l = 0; l < (L); l++) {                                                                        \
                float v_ = y_[l] < lo ? lo : y_[l];                                                                    \
                y_[l] = v_ > hi ? hi : v_;                                                                             \
            }                                                                                                          \
            break;                                                                                                     \
        case EIR_ACT_HARDSWISH:                                                                                        \
            for (int64_t l = 0; l < (L); l++) {                                                                        \
                float v_ = y_[l], t_ = v_ + 3.0f;                                                                      \
                t_ = t_ > 0.0f ? t_ : 0.0f;                                                                            \
                t_ = t_ < 6.0f ? t_ : 6.0f;                                                                            \
                y_[l] = v_ * t_ / 6.0f;                                                                                \
            }                                                                                                          \
            break;                                                                                                     \
        default: break;                                                                                                \
        }                                                                                                              \
    } while (0)

/* 16 lanes as one value (registers: one zmm, two ymm or four xmm, per clone) */
typedef float dw_v16 __attribute__((vector_size(64), aligned(4)));

/* lanes [j0, j0 + 16 V) of output pixels ow and ow + 1 (np 2) or ow alone (np 1) in V
 * vectors each: taps in order kh, kw, those outside the input skipped */
#define DW_VCHUNK(V)                                                                                                   \
    do {                                                                                                               \
        dw_v16 a0[V], a1[V];                                                                                           \
        for (int v = 0; v < (V); v++) a0[v] = (dw_v16){0}, a1[v] = (dw_v16){0};                                        \
        for (int64_t kh = 0; kh < KH; kh++) {                                                                          \
            int64_t ih = ih0 + kh * d0;                                                                                \
            if (ih < 0 || ih >= H) continue;                                                                           \
            const float *xr = xi + ih * W * B + j0;                                                                    \
            for (int64_t kw = 0; kw < KW; kw++) {                                                                      \
                int64_t iw = iw0 + kw * d1, iw1 = iw + s1;                                                             \
                const float *wp = wt + (kh * KW + kw) * B + j0;                                                        \
                dw_v16 wv[V];                                                                                          \
                for (int v = 0; v < (V); v++) wv[v] = *(const dw_v16 *)(wp + 16 * v);                                  \
                if (iw >= 0 && iw < W)                                                                                 \
                    for (int v = 0; v < (V); v++) a0[v] += *(const dw_v16 *)(xr + iw * B + 16 * v) * wv[v];            \
                if (np == 2 && iw1 >= 0 && iw1 < W)                                                                    \
                    for (int v = 0; v < (V); v++) a1[v] += *(const dw_v16 *)(xr + iw1 * B + 16 * v) * wv[v];           \
            }                                                                                                          \
        }                                                                                                              \
        for (int v = 0; v < (V); v++) *(dw_v16 *)(yp + j0 + 16 * v) = a0[v];                                          \
        if (np == 2)                                                                                                   \
            for (int v = 0; v < (V); v++) *(dw_v16 *)(yp + B + j0 + 16 * v) = a1[v];                                   \
        j0 += 16 * (V);                                                                                                \
    } while (0)

/* the same for the last L < 16 lanes, one at a time */
#define DW_CHUNK(L)                                                                                                    \
    do {                                                                                                               \
        float a0[L], a1[L];                                                                                            \
        for (int64_t l = 0; l < (L); l++) a0[l] = 0.f, a1[l] = 0.f;                                                    \
        for (int64_t kh = 0; kh < KH; kh++) {                                                                          \
            int64_t ih = ih0 + kh * d0;                                                                                \
            if (ih < 0 || ih >= H) continue;                                                                           \
            const float *xr = xi + ih * W * B + j0;                                                                    \
            for (int64_t kw = 0; kw < KW; kw++) {                                                                      \
                int64_t iw = iw0 + kw * d1, iw1 = iw + s1;                                                             \
                const float *wp = wt + (kh * KW + kw) * B + j0;                                                        \
                if (iw >= 0 && iw < W)                                                                                 \
                    for (int64_t l = 0; l < (L); l++) a0[l] += xr[iw * B + l] * wp[l];                                 \
                if (np == 2 && iw1 >= 0 && iw1 < W)                                                                    \
                    for (int64_t l = 0; l < (L); l++) a1[l] += xr[iw1 * B + l] * wp[l];                                \
            }                                                                                                          \
        }                                                                                                              \
        for (int64_t l = 0; l < (L); l++) yp[j0 + l] = a0[l];                                                          \
        if (np == 2)                                                                                                   \
            for (int64_t l = 0; l < (L); l++) yp[B + j0 + l] = a1[l];                                                  \
        j0 += (L);                                                                                                     \
    } while (0)

/* output row oh of one image's channel block: xi that block of the input, wt and bias its own */
EPI_CLONES static void dw_row(float *restrict yr, const float *restrict xi, const float *restrict wt,
                              const float *restrict bias, const dw_job *j, int64_t oh) {
    const int64_t B = j->B, H = j->H, W = j->W, KH = j->KH, KW = j->KW, d0 = j->dl[0], d1 = j->dl[1], s1 = j->st[1];
    const int64_t ih0 = oh * j->st[0] - j->pd[0];
    const bool inreg = j->inreg;
    const int act = j->act;
    const float lo = j->lo, hi = j->hi;
    for (int64_t ow = 0; ow < j->OW; ow += 2) {
        const int64_t np = j->OW - ow >= 2 ? 2 : 1;
        float *restrict yp = yr + ow * B;
        const int64_t iw0 = ow * s1 - j->pd[1];
        int64_t j0 = 0;
        while (B - j0 >= 32) DW_VCHUNK(2);
        if (B - j0 >= 16) DW_VCHUNK(1);
        if (j0 < B && B >= 16) { /* the last 16 lanes again: those already done get the same bits */
            j0 = B - 16;
            DW_VCHUNK(1);
        }
        while (j0 < B) DW_CHUNK(1);
        if (inreg) { /* the pixels' epilogue while they are in L1 */
            const float *restrict bj = bias;
            DW_EPI(yp, B);
            if (np == 2) DW_EPI(yp + B, B);
        }
    }
}
#undef DW_VCHUNK
#undef DW_CHUNK
#undef DW_EPI

/* rows [r0, r1) of all (image, channel block, output row) */
static void dw_rows(void *ctx, int64_t r0, int64_t r1) {
    const dw_job *j = ctx;
    for (int64_t r = r0; r < r1; r++) {
        int64_t oh = r % j->OH, nb = r / j->OH, cb = nb % j->CB, n = nb / j->CB;
        float *yr = j->y + (nb * j->OH + oh) * j->OW * j->B;
        dw_row(yr, j->x + nb * j->H * j->W * j->B, j->wt + cb * j->KH * j->KW * j->B,
               j->bias ? j->bias + cb * j->B : NULL, j, oh);
        if (!j->inreg) {
            int64_t c0 = cb * j->B, nc = j->C - c0 < j->B ? j->C - c0 : j->B;
            blk_epi(j->ec, n, c0, nc, j->B, j->OW, yr, j->B, 1, yr, j->B);
        }
    }
}

/* y blocked by B = epi(depthwise(x, w)); x NCHW (xB 0) or blocked by xB; w (C, 1, KH, KW)
 * contiguous. Returns 0, or -1 when out of memory. */
static int conv_dw_blocked(eir_kctx *ctx, const eir_tview *x, int64_t xB, const float *w, float *y, int64_t B,
                           int64_t N, int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                           const int64_t *st, const int64_t *pd, const int64_t *dl, const blk_epi_ctx *ec) {
    int64_t CB = (C + B - 1) / B, KK = KH * KW;
    /* the weight transposed, then the bias, lanes past C zero (padding lanes come out 0) */
    float *wt = eir_kalloc((size_t)(CB * (KK + 1) * B) * sizeof(float)), *xbuf = NULL, *nchw = NULL;
    if (!wt) return eir_kerr(ctx, "out of memory");
    float *bl = wt + CB * KK * B;
    for (int64_t cb = 0; cb < CB; cb++)
        for (int64_t t = 0; t < KK; t++)
            for (int64_t l = 0; l < B; l++) {
                int64_t c = cb * B + l;
                wt[(cb * KK + t) * B + l] = c < C ? w[c * KK + t] : 0.f;
            }
    for (int64_t c = 0; c < CB * B; c++) bl[c] = ec->bias && c < C ? ec->bias[c] : 0.f;
    const float *xd = x->data;
    if (xB != B) { /* the input into this block first */
        xbuf = eir_kalloc((size_t)(N * CB * H * W * B) * sizeof(float));
        nchw = xB ? eir_kalloc((size_t)(N * C * H * W) * sizeof(float)) : NULL;
        if (!xbuf || (xB && !nchw)) {
            eir_kfree(wt);
            eir_kfree(xbuf);
            eir_kfree(nchw);
            return eir_kerr(ctx, "out of memory");
        }
        eir_tview xv = *x;
        if (xB) {
            xv = (eir_tview){nchw, EIR_F32, 4, {N, C, H, W}, {C * H * W, H * W, W, 1}};
            unpack_blocked(&xv, x->data, xB);
        }
        pack_blocked(xbuf, &xv, B);
        xd = xbuf;
    }
    const epilogue *e = ec->e;
    bool inreg = !ec->res && e->act != EIR_ACT_SILU;
    dw_job j = {xd,  wt, ec->bias ? bl : NULL, y, C, CB, B, H, W, OH, OW, KH, KW, {st[0], st[1]}, {pd[0], pd[1]},
                {dl[0], dl[1]}, e->act, inreg, e->lo, e->hi, ec};
    eir_parallel_for(eir_pool_current(), N * CB * OH, 1, dw_rows, &j);
    eir_kfree(wt);
    eir_kfree(xbuf);
    eir_kfree(nchw);
    return 0;
}

/* ---- convolution of few input channels (a network's stem on an RGB image) ----
 * oneDNN's kernels reduce over the input channels inside their inner loop, which three channels
 * leave mostly idle (ResNet-18's 7 x 7 stem at 66-78 GFLOP/s on this machine's 112). Here the
 * reduction runs over the taps (channel, row, column) instead: a tile of output lanes by output
 * pixels stays in registers (64 x 6, 32 x 8 or 16 x 24: 24, 16 and 24 vectors), each tap one
 * weight load per 16 lanes and one input value per pixel; the input is first copied into
 * zero-padded NCHW planes (from NCHW rows, or gathered from a blocked input) so that no tap needs
 * a bounds check. Per call, one thread, warm caches (eir's profiler, median of 30 runs): ResNet-18's
 * stem 2.96 ms + 0.07 ms for its to_blocked -> 2.37 ms, MobileNetV2's 385 + 70 -> 380-417 us,
 * MobileNetV3's 237 + 68 -> 247-324 us (the chain now reads the image as NCHW, backend.c). */

typedef struct sc_job {
    const float *xp;          /* the input, zero-padded NCHW: N x C x HP x WP */
    const float *wt;          /* the weight as (C, KH, KW, CB * B): output lanes innermost, past O zero */
    float *y;
    const blk_epi_ctx *ec;
    int64_t C, O, B, CB, HP, WP, OH, OW, KH, KW, st[2], dl[2];
} sc_job;

/* lanes [l0, l0 + 16 V) of output pixels [ow, ow + P) of row yr, the P x V accumulators in
 * registers (loops unrolled) */
#define SC_TILE(V, P)                                                                                                  \
    do {                                                                                                               \
        dw_v16 acc[P][V];                                                                                              \
        _Pragma("GCC unroll 24") for (int p = 0; p < (P); p++)                                                         \
            _Pragma("GCC unroll 4") for (int v = 0; v < (V); v++) acc[p][v] = (dw_v16){0};                             \
        for (int64_t c = 0; c < C; c++)                                                                                \
            for (int64_t kh = 0; kh < KH; kh++) {                                                                      \
                const float *xr = j->xp + ((n * C + c) * j->HP + oh * j->st[0] + kh * j->dl[0]) * WP + ow * s1;       \
                const float *wr = j->wt + (c * KH + kh) * KW * LB + cb * B + l0;                                       \
                for (int64_t kw = 0; kw < KW; kw++) {                                                                  \
                    dw_v16 wv[V];                                                                                      \
                    _Pragma("GCC unroll 4") for (int v = 0; v < (V); v++) wv[v] = *(const dw_v16 *)(wr + kw * LB + 16 * v); \
                    const float *xk = xr + kw * d1;                                                                    \
                    _Pragma("GCC unroll 24") for (int p = 0; p < (P); p++)                                             \
                        _Pragma("GCC unroll 4") for (int v = 0; v < (V); v++) acc[p][v] += xk[p * s1] * wv[v];         \
                }                                                                                                      \
            }                                                                                                          \
        _Pragma("GCC unroll 24") for (int p = 0; p < (P); p++)                                                         \
            _Pragma("GCC unroll 4") for (int v = 0; v < (V); v++) *(dw_v16 *)(yr + (ow + p) * B + l0 + 16 * v) = acc[p][v]; \
    } while (0)

/* lanes [l0, l0 + 16 V) of the whole row: tiles of P pixels, the last one moved back to end at
 * the row's end (its pixels already done get the same values again); rows shorter than P pixel
 * by pixel */
#define SC_LANES(V, P)                                                                                                 \
    do {                                                                                                               \
        if (OW >= (P)) {                                                                                               \
            for (int64_t ow0 = 0; ow0 < OW; ow0 += (P)) {                                                              \
                const int64_t ow = ow0 + (P) <= OW ? ow0 : OW - (P);                                                   \
                SC_TILE(V, P);                                                                                         \
            }                                                                                                          \
        } else                                                                                                         \
            for (int64_t ow = 0; ow < OW; ow++) SC_TILE(V, 1);                                                         \
        l0 += 16 * (V);                                                                                                \
    } while (0)

/* output row oh of image n's channel block cb, then its epilogue while it is in L1. The v4 and v3
 * clones multiply-add in one rounding (FMA), the portable one in two. */
SC_CLONES static void sc_row(const sc_job *j, int64_t n, int64_t cb, int64_t oh) {
    const int64_t C = j->C, B = j->B, KH = j->KH, KW = j->KW, WP = j->WP, s1 = j->st[1], d1 = j->dl[1];
    const int64_t LB = j->CB * B, OW = j->OW;
    float *yr = j->y + ((n * j->CB + cb) * j->OH + oh) * OW * B;
    for (int64_t l0 = 0; l0 < B;) {
        if (B - l0 >= 64) SC_LANES(4, 6);
        else if (B - l0 >= 32) SC_LANES(2, 8);
        else SC_LANES(1, 24);
    }
    int64_t c0 = cb * B, nc = j->O - c0 < B ? j->O - c0 : B;
    blk_epi(j->ec, n, c0, nc, B, OW, yr, B, 1, yr, B);
}
#undef SC_TILE
#undef SC_LANES

static void sc_rows(void *ctx, int64_t r0, int64_t r1) {
    const sc_job *j = ctx;
    for (int64_t r = r0; r < r1; r++) sc_row(j, r / (j->CB * j->OH), r / j->OH % j->CB, r % j->OH);
}

/* Input channels at most this many take conv_small_c when the output's block is a multiple of
 * 16; EIR_SMALL_C_CONV=0 sends them to oneDNN like the others (for measurements). */
enum { SMALL_C = EIR_CONV_SMALL_C };

/* A kernel choice on unless the environment variable name is "0", read once into *cache */
static bool env_switch_on(const char *name, _Atomic int *cache) {
    int v = atomic_load_explicit(cache, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv(name);
        v = !(e && !strcmp(e, "0"));
        atomic_store_explicit(cache, v, memory_order_relaxed);
    }
    return v;
}

static bool small_c_on(void) {
    static _Atomic int on = -1;
    return env_switch_on("EIR_SMALL_C_CONV", &on);
}

/* y blocked by B (a multiple of 16) = epi(conv(x, w)), groups 1, C <= SMALL_C; x NCHW (xB 0, any
 * strides) or blocked by xB (contiguous); w (O, C, KH, KW) contiguous. 0, or -1 out of memory. */
static int conv_small_c(eir_kctx *ctx, const eir_tview *x, int64_t xB, const float *w, float *y, int64_t B, int64_t N,
                        int64_t C, int64_t H, int64_t W, int64_t O, int64_t OH, int64_t OW, int64_t KH, int64_t KW,
                        const int64_t *st, const int64_t *pd, const int64_t *dl, const blk_epi_ctx *ec) {
    int64_t CB = (O + B - 1) / B, HP = H + 2 * pd[0], WP = W + 2 * pd[1], KK = KH * KW;
    float *xp = eir_kalloc((size_t)(N * C * HP * WP > 0 ? N * C * HP * WP : 1) * sizeof(float));
    float *wt = eir_kcalloc((size_t)(C * KK * CB * B), sizeof(float));
    if (!xp || !wt) {
        eir_kfree(xp);
        eir_kfree(wt);
        return eir_kerr(ctx, "out of memory");
    }
    const float *xd = x->data;
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++) {
            float *plane = xp + (n * C + c) * HP * WP;
            memset(plane, 0, (size_t)(pd[0] * WP) * sizeof(float));                   /* the rows above */
            memset(plane + (pd[0] + H) * WP, 0, (size_t)(pd[0] * WP) * sizeof(float)); /* and below */
            for (int64_t h = 0; h < H; h++) {
                float *row = plane + (h + pd[0]) * WP;
                for (int64_t q = 0; q < pd[1]; q++) row[q] = row[pd[1] + W + q] = 0.f;
                row += pd[1];
                if (xB) {
                    const float *src = xd + (((n * ((C + xB - 1) / xB) + c / xB) * H + h) * W) * xB + c % xB;
                    for (int64_t q = 0; q < W; q++) row[q] = src[q * xB];
                } else {
                    const float *src = xd + n * x->strides[0] + c * x->strides[1] + h * x->strides[2];
                    if (x->strides[3] == 1) memcpy(row, src, (size_t)W * sizeof(float));
                    else
                        for (int64_t q = 0; q < W; q++) row[q] = src[q * x->strides[3]];
                }
            }
        }
    for (int64_t o = 0; o < O; o++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t t = 0; t < KK; t++) wt[(c * KK + t) * CB * B + o] = w[(o * C + c) * KK + t];
    sc_job j = {xp, wt, y, ec, C, O, B, CB, HP, WP, OH, OW, KH, KW, {st[0], st[1]}, {dl[0], dl[1]}};
    eir_parallel_for(eir_pool_current(), N * CB * OH, 1, sc_rows, &j);
    eir_kfree(xp);
    eir_kfree(wt);
    return 0;
}

/* ---- 1 x 1 convolutions of few pixels on channels-last chains, as matrix products ----
 * On the channels-last layout a 1 x 1 convolution of stride 1 is the product Y (pixels x O) =
 * X (pixels x C) W^T, W the (O, C) weight as stored. eir_sgemm runs it from the copy of W^T it
 * keeps for a constant weight (gemm.c), in 1, 2 or 4 blocks of columns, the epilogue (bias,
 * residual, activation) applied to each block while it is in cache. The blocks depend on the shape only, so the bits do not depend on the thread count.
 * Taken for at most PW_MAX_PIXELS pixels (the 7 x 7 layers of the MobileNets), where oneDNN's
 * 1 x 1 primitive ran at 75-94 GFLOP/s and dnnl_sgemm from W^T at 105-113 on this machine; on
 * 14 x 14 and larger images the primitive is as fast or faster (docs/BENCHMARKS.md, "1 x 1
 * convolutions of 7 x 7 images as matrix products"; eir_nngemm_linear_f32 ran them faster on one
 * thread, but on two its wgemm is slower than oneDNN at K = 160: docs/GEMM.md, "Linear layers on
 * eir's kernel"). EIR_CONV_1X1_GEMM=0 turns it off. */
enum { PW_BLOCK_FLOPS = 1 << 22, PW_MAX_COLS = 4, PW_MAX_PIXELS = 64 };

typedef struct pw1_job {
    const float *x, *w;
    float *y;
    const blk_epi_ctx *ec;
    int64_t M, C, O, cb;
} pw1_job;

/* start of column block b of nb over n columns, on a multiple of 16 (the last ends at n) */
static int64_t pw1_start(int64_t n, int64_t nb, int64_t b) { return b >= nb ? n : (n * b / nb) & ~(int64_t)15; }

static void pw1_blocks(void *ctx, int64_t b0, int64_t b1) {
    const pw1_job *j = ctx;
    for (int64_t b = b0; b < b1; b++) {
        int64_t o0 = pw1_start(j->O, j->cb, b), o1 = pw1_start(j->O, j->cb, b + 1);
        if (o1 <= o0) continue;
        float *yb = j->y + o0;
        eir_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)j->M, (int)(o1 - o0), (int)j->C, 1.f, j->x, (int)j->C,
                  j->w + o0 * j->C, (int)j->C, 0.f, yb, (int)j->O);
        blk_epi(j->ec, 0, o0, o1 - o0, o1 - o0, j->M, yb, j->O, 1, yb, j->O);
    }
}

static bool pw1_on(void) {
    static _Atomic int on = -1;
    return env_switch_on("EIR_CONV_1X1_GEMM", &on);
}

/* y (M pixels x O) = epi(x (M x C) w^T), both channels last, M <= PW_MAX_PIXELS */
static void conv_1x1_gemm(const float *x, const float *w, float *y, int64_t M, int64_t C, int64_t O,
                          const blk_epi_ctx *ec) {
    double flops = 2.0 * (double)M * (double)C * (double)O;
    int64_t cb = 1; /* 1, 2 or 4 blocks of at least 64 columns: shares that two threads split evenly */
    while (cb < PW_MAX_COLS && flops >= (double)PW_BLOCK_FLOPS * (double)(2 * cb) && O / (2 * cb) >= 64) cb *= 2;
    pw1_job j = {x, w, y, ec, M, C, O, cb};
    eir_parallel_for(eir_pool_current(), cb, 1, pw1_blocks, &j);
}

/* eir_cpu::conv2d_blocked(input, weight, bias, stride, padding, dilation, groups, block,
 * activation, min, max, residual) */
static int k_conv2d_blocked(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::conv2d_blocked";
    if (na < 12 || no < 1 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_TENSOR)
        return eir_kerr(ctx, "%s: expected 12 arguments and one output", op);
    const eir_tview *x = a[0].t, *w = a[1].t, *b = a[2].kind == EIR_KA_TENSOR ? a[2].t : NULL;
    const eir_tview *r = a[11].kind == EIR_KA_TENSOR ? a[11].t : NULL;
    eir_tview *y = &out[0];
    int64_t B = a[7].i;
    int64_t groups = a[6].i;
    if (B < 1) return eir_kerr(ctx, "%s: block must be positive, got %lld", op, (long long)B);
    bool xb = x->rank == 5;
    if (!(xb ? dense_f32(x, 5) : x->dtype == EIR_F32 && x->rank == 4))
        return eir_kerr(ctx, "%s: input must be float32 4-d, or contiguous 5-d (blocked)", op);
    int64_t xB = xb ? x->sizes[4] : 0;
    if (w->dtype != EIR_F32 || w->rank != 4 || (b && (b->dtype != EIR_F32 || b->rank != 1)))
        return eir_kerr(ctx, "%s: expected a float32 4-d weight and 1-d bias", op);
    /* groups 1, or depthwise: one input channel per group and output channel */
    bool dw = groups != 1 && w->sizes[1] == 1 && groups == w->sizes[0];
    if (groups != 1 && !dw)
        return eir_kerr(ctx, "%s: groups must be 1 or the output channels with a (C, 1, KH, KW) weight, got %lld "
                        "groups for weight [%lld, %lld, %lld, %lld]", op, (long long)groups, (long long)w->sizes[0],
                        (long long)w->sizes[1], (long long)w->sizes[2], (long long)w->sizes[3]);
    int64_t N = x->sizes[0], C = w->sizes[1] * groups, H = x->sizes[2], W = x->sizes[3], O = w->sizes[0];
    if (xb ? xB < 1 || x->sizes[1] != (C + xB - 1) / xB : x->sizes[1] != C)
        return eir_kerr(ctx, "%s: input has %lld channels%s, the weight %lld", op, (long long)x->sizes[1],
                        xb ? " blocks" : "", (long long)C);
    if (!dense_f32(y, 5) || y->sizes[0] != N || y->sizes[1] != (O + B - 1) / B || y->sizes[4] != B)
        return eir_kerr(ctx, "%s: output must be contiguous float32 [%lld, %lld, OH, OW, %lld]", op, (long long)N,
                        (long long)((O + B - 1) / B), (long long)B);
    if (b && b->sizes[0] != O) return eir_kerr(ctx, "%s: bias must have %lld elements", op, (long long)O);
    if (r && (!dense_f32(r, 5) || memcmp(r->sizes, y->sizes, 5 * sizeof *r->sizes)))
        return eir_kerr(ctx, "%s: residual must be contiguous float32 of the output's sizes", op);
    int64_t st[2], pd[2], dl[2];
    if (read_geometry(&a[3], st, pd, dl, ctx, op)) return -1;
    int64_t OH = y->sizes[2], OW = y->sizes[3];
    if (OH != (H + 2 * pd[0] - dl[0] * (w->sizes[2] - 1) - 1) / st[0] + 1 ||
        OW != (W + 2 * pd[1] - dl[1] * (w->sizes[3] - 1) - 1) / st[1] + 1)
        return eir_kerr(ctx, "%s: output is %lld x %lld, the convolution makes %lld x %lld", op, (long long)OH,
                        (long long)OW, (long long)((H + 2 * pd[0] - dl[0] * (w->sizes[2] - 1) - 1) / st[0] + 1),
                        (long long)((W + 2 * pd[1] - dl[1] * (w->sizes[3] - 1) - 1) / st[1] + 1));
    epilogue e;
    if (read_epilogue(&a[8], &a[9], &a[10], &e, ctx, op)) return -1;
    float *bias = NULL;
    void *bias_buf = NULL;
    if (b) {
        if (b->strides[0] == 1) bias = b->data;
        else {
            if (!(bias = bias_buf = eir_kalloc((size_t)(O > 0 ? O : 1) * sizeof(float)))) return eir_kerr(ctx, "out of memory");
            for (int64_t c = 0; c < O; c++) bias[c] = ((const float *)b->data)[c * b->strides[0]];
        }
    }
    int64_t P = OH * OW, img = y->sizes[1] * B * P;
    blk_epi_ctx ec = {bias, r ? r->data : NULL, &e, y->data};
    int bact = e.act == EIR_ACT_NONE ? EIR_BLK_NONE : e.act == EIR_ACT_RELU ? EIR_BLK_RELU
             : e.act == EIR_ACT_HARDTANH ? EIR_BLK_CLIP : e.act == EIR_ACT_HARDSWISH ? EIR_BLK_HARDSWISH
             : e.act == EIR_ACT_SILU ? EIR_BLK_SILU : -1;
    eir_blk_epi epi = {blk_epi, &ec, bact, e.lo, e.hi, bias, r ? r->data : NULL};
    int rc = 0;
    /* a 1 x 1 convolution of a few channels-last pixels (squeeze-and-excitation on a pooled
     * image): a matrix-vector product over the weight's rows, split over the pool, the same bits
     * at any thread count */
    if (!dw && (xB == C || (!xb && H * W == 1 && eir_tview_is_contiguous(x))) && B == O && w->sizes[2] == 1 &&
        w->sizes[3] == 1 && st[0] == 1 && st[1] == 1 && !pd[0] && !pd[1] && N * P <= EIR_GEMV_MAX_M && C >= 8 &&
        eir_tview_is_contiguous(w) && eir_kernels_fast) {
        eir_gemv_f32(w->data, O, C, x->data, C, N * P, NULL, y->data, O);
        for (int64_t n = 0; n < N; n++) {
            float *yn = (float *)y->data + n * img;
            blk_epi(&ec, n, 0, O, O, P, yn, O, 1, yn, O);
        }
    } else if (!dw && xb && xB == C && B == O && w->sizes[2] == 1 && w->sizes[3] == 1 && st[0] == 1 && st[1] == 1 &&
               !pd[0] && !pd[1] && eir_tview_is_contiguous(w) && eir_kernels_fast && pw1_on() &&
               eir_sgemm_const_copies() && N * P <= PW_MAX_PIXELS && O <= INT_MAX && C <= INT_MAX) {
        conv_1x1_gemm(x->data, w->data, y->data, N * P, C, O, &ec);
    } else if (!dw && C <= SMALL_C && B % 16 == 0 && eir_tview_is_contiguous(w) && small_c_on() &&
        (!xb || dense_f32(x, 5))) {
        rc = conv_small_c(ctx, x, xB, w->data, y->data, B, N, C, H, W, O, OH, OW, w->sizes[2], w->sizes[3], st, pd, dl,
                          &ec);
    } else if (dw && eir_tview_is_contiguous(w) &&
        eir_dnnl_conv2d_blk_f32(x->data, xB, w->data, y->data, B, N, C, H, W, O, OH, OW, w->sizes[2], w->sizes[3], st,
                                pd, dl, groups, &epi)) {
        /* oneDNN's depthwise primitive, on the chain's layout */
    } else if (dw) {
        const float *wd = w->data;
        float *wbuf = NULL;
        if (!eir_tview_is_contiguous(w)) {
            int64_t KK = w->sizes[2] * w->sizes[3];
            if (!(wd = wbuf = eir_kalloc((size_t)(O * KK > 0 ? O * KK : 1) * sizeof(float)))) rc = eir_kerr(ctx, "out of memory");
            for (int64_t c = 0; wbuf && c < O; c++)
                for (int64_t t = 0; t < KK; t++)
                    wbuf[c * KK + t] = ((const float *)w->data)[c * w->strides[0] + (t / w->sizes[3]) * w->strides[2] +
                                                                (t % w->sizes[3]) * w->strides[3]];
        }
        if (!rc) /* an NCHW input (any strides) is packed into the block first */
            rc = conv_dw_blocked(ctx, x, xB, wd, y->data, B, N, C, H, W, OH, OW, w->sizes[2], w->sizes[3], st, pd, dl,
                                 &ec);
        eir_kfree(wbuf);
    } else if (!(eir_tview_is_contiguous(w) &&
          eir_dnnl_conv2d_blk_f32(x->data, xB, w->data, y->data, B, N, C, H, W, O, OH, OW, w->sizes[2], w->sizes[3], st,
                                  pd, dl, 1, &epi))) {
        /* another path: the convolution on NCHW tensors, packed, then the same epilogue */
        int64_t xn = xb ? N * C * H * W : 0, yn = N * O * P;
        float *xbuf = xn ? eir_kalloc((size_t)xn * sizeof(float)) : NULL, *ybuf = eir_kalloc((size_t)(yn > 0 ? yn : 1) * sizeof(float));
        if ((xn && !xbuf) || !ybuf) rc = eir_kerr(ctx, "out of memory");
        else {
            eir_tview xv = *x;
            if (xb) {
                xv = (eir_tview){xbuf, EIR_F32, 4, {N, C, H, W}, {C * H * W, H * W, W, 1}};
                unpack_blocked(&xv, x->data, xB);
            }
            eir_tview yv = {ybuf, EIR_F32, 4, {N, O, OH, OW}, {O * P, P, OW, 1}};
            rc = eir_nn_conv_epi(ctx, &xv, w, NULL, st, pd, dl, 1, &yv, NULL);
            /* channel block by channel block: NCHW planes in, blocked pixels out */
            for (int64_t n = 0; !rc && n < N; n++)
                for (int64_t c = 0; c < O; c += B) {
                    float *yb = (float *)y->data + n * img + c * P;
                    blk_epi(&ec, n, c, O - c < B ? O - c : B, B, P, ybuf + (n * O + c) * P, 1, P, yb, B);
                }
        }
        eir_kfree(xbuf);
        eir_kfree(ybuf);
    }
    eir_kfree(bias_buf);
    return rc;
}

/* ---- max pooling on the blocked layout ---- */

typedef struct mp_job {
    const float *x;
    float *y;
    int64_t H, W, B, OH, OW, k[2], st[2], pd[2], dl[2];
} mp_job;

/* output rows [r0, r1) (r = plane * OH + oh, a plane one image's block of channels): each
 * output pixel's B lanes the maximum over its window's in-range pixels, NaN if any is NaN (as
 * torch's max_pool2d); one contiguous run of B lanes per tap */
EPI_CLONES static void mp_rows(void *ctx, int64_t r0, int64_t r1) {
    const mp_job *j = ctx;
    const int64_t B = j->B, W = j->W;
    for (int64_t r = r0; r < r1; r++) {
        int64_t plane = r / j->OH, oh = r % j->OH;
        const float *xp = j->x + plane * j->H * W * B;
        float *yrow = j->y + r * j->OW * B;
        int64_t ih0 = oh * j->st[0] - j->pd[0];
        for (int64_t ow = 0; ow < j->OW; ow++) {
            float *restrict yp = yrow + ow * B;
            for (int64_t q = 0; q < B; q++) yp[q] = -INFINITY;
            int64_t iw0 = ow * j->st[1] - j->pd[1];
            for (int64_t a = 0; a < j->k[0]; a++) {
                int64_t ih = ih0 + a * j->dl[0];
                if (ih < 0 || ih >= j->H) continue;
                for (int64_t b = 0; b < j->k[1]; b++) {
                    int64_t iw = iw0 + b * j->dl[1];
                    if (iw < 0 || iw >= W) continue;
                    const float *restrict xv = xp + (ih * W + iw) * B;
                    for (int64_t q = 0; q < B; q++) {
                        float v = xv[q], m = yp[q];
                        yp[q] = (v > m || v != v) ? v : m;
                    }
                }
            }
        }
    }
}

/* eir_cpu::max_pool2d_blocked(input, kernel_size, stride, padding, dilation, ceil_mode): max_pool2d
 * of a blocked (N, CB, H, W, B) input, the result blocked alike; the lanes past C stay zero
 * (the maximum of zeros) */
static int k_max_pool2d_blocked(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    static const char *op = "eir_cpu::max_pool2d_blocked";
    if (na < 6 || no < 1 || a[0].kind != EIR_KA_TENSOR || a[1].kind != EIR_KA_INTS)
        return eir_kerr(ctx, "%s: expected a tensor, kernel_size, stride, padding, dilation and ceil_mode", op);
    const eir_tview *x = a[0].t;
    eir_tview *y = &out[0];
    if (!dense_f32(x, 5) || !dense_f32(y, 5))
        return eir_kerr(ctx, "%s: expected a contiguous 5-d (blocked) float32 input and output", op);
    mp_job j = {x->data, y->data, x->sizes[2], x->sizes[3], x->sizes[4], y->sizes[2], y->sizes[3], {0}, {0}, {0}, {0}};
    if (a[1].n != 1 && a[1].n != 2) return eir_kerr(ctx, "%s: kernel_size must be a list of 1 or 2 ints", op);
    for (int i = 0; i < 2; i++) j.k[i] = a[1].ints[a[1].n == 1 ? 0 : i];
    if (a[2].kind == EIR_KA_INTS && a[2].n == 0) { /* stride [] : the kernel size */
        eir_karg g[3] = {{.kind = EIR_KA_INTS, .n = 2, .ints = j.k}, a[3], a[4]};
        if (read_geometry(g, j.st, j.pd, j.dl, ctx, op)) return -1;
    } else if (read_geometry(&a[2], j.st, j.pd, j.dl, ctx, op))
        return -1;
    bool ceil_mode = a[5].kind == EIR_KA_BOOL && a[5].i;
    for (int i = 0; i < 2; i++) {
        int64_t in = x->sizes[2 + i], span = j.dl[i] * (j.k[i] - 1) + 1, num = in + 2 * j.pd[i] - span;
        int64_t o = (num < 0 ? -1 : (ceil_mode ? (num + j.st[i] - 1) / j.st[i] : num / j.st[i])) + 1;
        if (ceil_mode && o > 0 && (o - 1) * j.st[i] >= in + j.pd[i]) o--;
        if (j.k[i] < 1 || 2 * j.pd[i] > j.k[i] || o < 1 || y->sizes[2 + i] != o)
            return eir_kerr(ctx, "%s: kernel %lld, stride %lld, padding %lld, dilation %lld over %lld gives no "
                            "output of %lld (pad at most half the kernel)", op, (long long)j.k[i], (long long)j.st[i],
                            (long long)j.pd[i], (long long)j.dl[i], (long long)in, (long long)y->sizes[2 + i]);
    }
    if (y->sizes[0] != x->sizes[0] || y->sizes[1] != x->sizes[1] || y->sizes[4] != x->sizes[4])
        return eir_kerr(ctx, "%s: output [%lld, %lld, ., ., %lld] is not blocked like input [%lld, %lld, ., ., %lld]", op,
                        (long long)y->sizes[0], (long long)y->sizes[1], (long long)y->sizes[4],
                        (long long)x->sizes[0], (long long)x->sizes[1], (long long)x->sizes[4]);
    int64_t rows = x->sizes[0] * x->sizes[1] * j.OH, per = j.OW * j.B * j.k[0] * j.k[1];
    eir_parallel_for(eir_pool_current(), rows, per >= EPI_GRAIN ? 1 : EPI_GRAIN / (per > 0 ? per : 1), mp_rows, &j);
    return 0;
}

const eir_kernel_entry eir_kernels_fused[] = {
    {"eir_cpu.attention.default", k_attention},
    {"eir_cpu.conv2d.default", k_conv2d},
    {"eir_cpu.conv2d_blocked.default", k_conv2d_blocked},
    {"eir_cpu.from_blocked.default", k_from_blocked},
    {"eir_cpu.linear.default", k_linear},
    {"eir_cpu.linear_packed.default", k_linear_packed},
    {"eir_cpu.max_pool2d_blocked.default", k_max_pool2d_blocked},
    {"eir_cpu.to_blocked.default", k_to_blocked},
    {NULL, NULL},
};
