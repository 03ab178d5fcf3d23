/* test_k_gemv.c — eir_gemv_f32 (recurrent.c), the few-row product behind
 * eir_cpu::linear for M <= 4 (eight adjacent rows at a time, or for weights of 256 KiB and more
 * eight rows from eight runs of the rows): against a double-precision reference on
 * shapes with and without a tail of rows (N % 8) and of the sum (K % 8),
 * strided x and y rows, a bias or none; then on a pool of 2 threads, with
 * and without every loop split (eir_pool_split_all), the same bits as one
 * thread; a large weight's rows the bits of the same rows taken as a small
 * weight. Also under the sanitizers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "kernels/recurrent.h"
#include "check.h"

static float rnd(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static void check_shape(int64_t M, int64_t N, int64_t K, int64_t ldx, int64_t ldy, bool bias, eir_pool *pool) {
    unsigned s = (unsigned)(M * 131 + N * 7 + K);
    float *W = malloc((size_t)(N * K) * sizeof *W), *x = malloc((size_t)(M * ldx) * sizeof *x);
    float *b = malloc((size_t)N * sizeof *b), *y = malloc((size_t)(M * ldy) * sizeof *y), *y1 = malloc((size_t)(M * ldy) * sizeof *y1);
    for (int64_t i = 0; i < N * K; i++) W[i] = rnd(&s);
    for (int64_t i = 0; i < M * ldx; i++) x[i] = rnd(&s);
    for (int64_t i = 0; i < N; i++) b[i] = rnd(&s);
    for (int64_t i = 0; i < M * ldy; i++) y[i] = y1[i] = -7.f;       /* the gaps between rows stay */
    eir_gemv_f32(W, N, K, x, ldx, M, bias ? b : NULL, y, ldy);
    double worst = 0;
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            double want = bias ? b[n] : 0, mag = fabs(want);
            for (int64_t k = 0; k < K; k++) want += (double)W[n * K + k] * x[m * ldx + k], mag += fabs((double)W[n * K + k] * x[m * ldx + k]);
            double err = fabs(y[m * ldy + n] - want) / (mag > 0 ? mag : 1);
            if (err > worst) worst = err;
        }
    if (worst > 1e-6) fprintf(stderr, "M %lld N %lld K %lld: relative error %g\n", (long long)M, (long long)N, (long long)K, worst);
    CHECK(worst <= 1e-6);
    bool gaps = true;
    for (int64_t m = 0; m < M; m++)
        for (int64_t n = N; n < ldy; n++) gaps = gaps && y[m * ldy + n] == -7.f;
    CHECK(gaps);
    for (int split = 0; split < 2; split++) {
        eir_pool_split_all = split;
        eir_pool *prev = eir_pool_enter(pool);
        eir_gemv_f32(W, N, K, x, ldx, M, bias ? b : NULL, y1, ldy);
        eir_pool_leave(prev);
        eir_pool_split_all = 0;
        bool same = !memcmp(y, y1, (size_t)(M * ldy) * sizeof *y);
        if (!same) fprintf(stderr, "M %lld N %lld K %lld: 2 threads%s differ from 1\n", (long long)M, (long long)N, (long long)K,
                           split ? " (every loop split)" : "");
        CHECK(same);
    }
    /* a row's bits do not depend on the kernel the weight's size picks: rows of a large weight
     * against the same rows multiplied as a weight of 8 or 5 rows (eight adjacent rows, or one) */
    if (N * K * (int64_t)sizeof(float) >= 256 << 10) {
        float *ys = malloc((size_t)(M * 8) * sizeof *ys);
        bool rows_same = true;
        for (int64_t i0 = 0; i0 + 8 <= N; i0 += N / 5) {
            int64_t nr = i0 % 2 ? 5 : 8;
            eir_gemv_f32(W + i0 * K, nr, K, x, ldx, M, bias ? b + i0 : NULL, ys, 8);
            for (int64_t m = 0; m < M; m++)
                rows_same = rows_same && !memcmp(ys + m * 8, y + m * ldy + i0, (size_t)nr * sizeof *ys);
        }
        if (!rows_same) fprintf(stderr, "M %lld N %lld K %lld: rows differ from the same rows alone\n", (long long)M,
                                (long long)N, (long long)K);
        CHECK(rows_same);
        free(ys);
    }
    free(W); free(x); free(b); free(y); free(y1);
}

int main(void) {
    eir_pool *pool = eir_pool_create(2);
    eir_pool_no_backoff = 1;
    static const int64_t shapes[][3] = {{1, 1024, 256}, {3, 1024, 256}, {4, 37, 19}, {2, 8, 8}, {1, 5, 9}, {4, 250, 1024}, {1, 1, 8},
                                        {1, 1027, 67}, {3, 1029, 131},
                                        /* 256 KiB and more (some above): rows from eight runs, tails of rows and of K */
                                        {1, 1000, 1280}, {4, 517, 1037}, {2, 403, 1330}, {1, 240, 960}, {1, 1280, 960},
                                        {3, 71, 1024}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        int64_t M = shapes[i][0], N = shapes[i][1], K = shapes[i][2];
        check_shape(M, N, K, K, N, true, pool);
        check_shape(M, N, K, K + 3, N + 5, false, pool);
    }
    /* no rows, or no outputs (a dynamic batch of 0): nothing is written */
    float wz[16] = {0}, xz[8] = {0}, yz[4] = {-7.f, -7.f, -7.f, -7.f};
    eir_gemv_f32(wz, 2, 8, xz, 8, 0, wz, yz, 2);
    eir_gemv_f32(wz, 0, 8, xz, 8, 1, NULL, yz, 2);
    CHECK(yz[0] == -7.f && yz[1] == -7.f && yz[2] == -7.f && yz[3] == -7.f);
    eir_pool_free(pool);
    return check_summary("test_k_gemv");
}
