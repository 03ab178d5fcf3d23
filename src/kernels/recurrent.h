/* recurrent.h — the float32 time loop of the recurrent layers and cells
 * (recurrent.c): what nn.c's lstm / gru / rnn_tanh / rnn_relu kernels and
 * their one-step cells run for one layer and direction once the input
 * projection of every step is done. Internal to src/kernels/. */
#ifndef EIR_KERNELS_RECURRENT_H
#define EIR_KERNELS_RECURRENT_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel.h"

/* The cell kinds, in the order of their gate count: LSTM i, f, g, o; GRU
 * r, z, n; the simple cells one. */
enum { EIR_RNN_LSTM, EIR_RNN_GRU, EIR_RNN_TANH, EIR_RNN_RELU };

/* One layer and direction, float32, every buffer contiguous row-major.
 * G = gates * H (4 for LSTM, 3 for GRU, 1 otherwise). Nothing is owned. */
typedef struct eir_rnn_f32 {
    int mode;                 /* EIR_RNN_LSTM ... */
    int64_t T, B, H, Hout;    /* steps, batch, hidden size, output size (Hout < H: LSTM projection) */
    const float *gx;          /* (T, B, G): x W_ih^T of every step, no bias */
    const float *Wh;          /* (G, Hout) */
    const float *bi, *bh;     /* (G) each, or both NULL */
    const float *Wr;          /* (Hout, H): the LSTM projection, or NULL (then Hout == H) */
    const float *h0;          /* (B, Hout) */
    float *c;                 /* LSTM: (B, H), c0 in, the last step's c out; else unused */
    float *Y;                 /* (T, B, ycols): step t's h goes to row (t, b), columns [dcol, dcol + Hout) */
    int64_t ycols, dcol;
    bool reverse;             /* steps from t = T - 1 down to 0 */
} eir_rnn_f32;

/* Run every step. The last step's h is Y's row of its t (0 when reverse,
 * else T - 1). Each output element is computed by the same code in the
 * same order at any thread count (the steps split their units over the
 * pool of the run in progress when a step is large enough), so results are
 * bit-identical at 1 and N threads. 0, or -1 with the message in ctx (out
 * of memory). */
int eir_rnn_run_f32(eir_kctx *ctx, const eir_rnn_f32 *r);

/* y (M, N), rows ldy apart = x (M, K), rows ldx apart, times W^T (W: N x K,
 * row-major) + bias (N, or NULL): the recurrent step's matrix-vector kernel,
 * for the few rows (M <= EIR_GEMV_MAX_M) where it beats a GEMM call. Rows of
 * W are split over the pool of the run in progress in blocks of 8; a row's
 * sum does not depend on its block, so the bits are the same at any thread
 * count. */
enum { EIR_GEMV_MAX_M = 4 };
void eir_gemv_f32(const float *W, int64_t N, int64_t K, const float *x, int64_t ldx, int64_t M, const float *bias, float *y,
                  int64_t ldy);

#endif
