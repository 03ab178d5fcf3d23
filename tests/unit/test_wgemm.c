/* test_wgemm.c — eir_wgemm_f32 (src/kernels/wgemm.c, a linear layer's product from its weight as
 * stored) against a float64 reference: every remainder of the 64-row chunks and six-row tiles,
 * K from 1 to past a block of packed X, weight and output rows wider than the matrix, a strided
 * bias, K = 0; and its bits: the same on 1, 2 and 3 threads and from run to run, and each element
 * exactly the chain of FMAs over k in order (plus the bias). Forced on where the CPU has AVX-512F
 * (by default it runs on Intel CPUs only); skipped without it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "check.h"
#include "kernels/wgemm.h"

static uint64_t rng = 777;
static float frand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffff) / 32768.f - 1.f;
}

/* C = X W^T + bias on `pool`, into C (M x ldc, filled with a marker first). */
static int run(eir_pool *pool, int64_t M, int64_t N, int64_t K, const float *X, int64_t ldx, const float *W, int64_t ldw,
               const float *bias, int64_t bs, float *C, int64_t ldc) {
    for (int64_t i = 0; i < M * ldc; i++) C[i] = -12345.f;
    eir_pool *prev = eir_pool_enter(pool);
    int rc = eir_wgemm_f32(M, N, K, X, ldx, W, ldw, bias, bs, C, ldc);
    eir_pool_leave(prev);
    return rc;
}

static int bad; /* cases with a failure, reported once each */

static void one(eir_pool **pools, int64_t M, int64_t N, int64_t K, int64_t xpad, int64_t wpad, int64_t cpad,
                bool with_bias) {
    int64_t ldx = K + xpad, ldw = K + wpad, ldc = N + cpad;
    float *X = malloc(sizeof(float) * (size_t)(M * ldx + 1)), *W = malloc(sizeof(float) * (size_t)(N * ldw + 1)),
          *bias = malloc(sizeof(float) * (size_t)(2 * N + 1)), *C = malloc(sizeof(float) * (size_t)(M * ldc + 1)),
          *C2 = malloc(sizeof(float) * (size_t)(M * ldc + 1));
    for (int64_t i = 0; i < M * ldx; i++) X[i] = frand();
    for (int64_t i = 0; i < N * ldw; i++) W[i] = frand();
    for (int64_t i = 0; i < 2 * N; i++) bias[i] = frand();
    const float *b = with_bias ? bias : NULL;
    int64_t bs = with_bias ? 2 : 0; /* every other value: a strided bias */
    bool ok = run(pools[0], M, N, K, X, ldx, W, ldw, b, bs, C, ldc) == 0;
    /* the chain of FMAs in k order, then the bias: the bits */
    for (int64_t m = 0; ok && m < M; m++)
        for (int64_t n = 0; n < ldc; n++) {
            float got = C[m * ldc + n];
            if (n >= N) {
                if (memcmp(&got, &(float){-12345.f}, sizeof got)) ok = false; /* padding untouched */
                continue;
            }
            float acc = 0.f;
            double ref = 0, mag = 0;
            for (int64_t k = 0; k < K; k++) {
                acc = fmaf(X[m * ldx + k], W[n * ldw + k], acc);
                ref += (double)X[m * ldx + k] * W[n * ldw + k];
                mag += fabs((double)X[m * ldx + k] * W[n * ldw + k]);
            }
            if (b) {
                acc += b[n * bs];
                ref += b[n * bs];
                mag += fabs(b[n * bs]);
            }
            if (memcmp(&got, &acc, sizeof got) || fabs(got - ref) > 1e-6 * (K + 1) * (mag + 1)) ok = false;
        }
    /* more threads, and again: the same bits */
    for (int p = 1; ok && p < 3; p++) {
        ok = run(pools[p], M, N, K, X, ldx, W, ldw, b, bs, C2, ldc) == 0 && !memcmp(C, C2, sizeof(float) * (size_t)(M * ldc));
    }
    CHECK(ok);
    if (!ok && bad++ < 10)
        fprintf(stderr, "  wgemm case M %lld N %lld K %lld pads %lld/%lld/%lld bias %d\n", (long long)M, (long long)N,
                (long long)K, (long long)xpad, (long long)wpad, (long long)cpad, (int)with_bias);
    free(X);
    free(W);
    free(bias);
    free(C);
    free(C2);
}

int main(void) {
    eir_wgemm_set(1);
    if (!eir_wgemm_enabled()) {
        printf("test_wgemm: skipped (no AVX-512F)\n");
        return 0;
    }
    eir_pool *pools[3] = {NULL, eir_pool_create(2), eir_pool_create(3)};
    /* every chunk remainder (1..64 rows and past a chunk), every tile remainder (N mod 6) */
    for (int64_t M = 1; M <= 70; M += (M < 20 ? 1 : 7))
        for (int64_t N = 1; N <= 13; N++) one(pools, M, N, 37, 0, 0, 0, (M + N) % 2 == 0);
    /* K: 1, odd, and past WG_BLOCK's packed X (2 chunks of 64 x 2100 floats > 512 KiB: one chunk a block) */
    int64_t ks[] = {1, 2, 15, 16, 17, 100, 768, 2100};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        one(pools, 64, 50, ks[i], 0, 0, 0, true);
        one(pools, 130, 19, ks[i], 3, 5, 7, i % 2 == 0);
    }
    /* many tiles on the threads, rows of the weight further apart than K */
    one(pools, 65, 601, 96, 1, 16, 2, true);
    one(pools, 192, 250, 200, 0, 0, 0, false);
    /* K = 0: the bias, or zeros */
    {
        float bias[8], C[3 * 8];
        for (int i = 0; i < 8; i++) bias[i] = (float)i;
        CHECK(run(NULL, 3, 4, 0, NULL, 1, NULL, 1, bias, 2, C, 8) == 0);
        CHECK(C[0] == 0.f && C[1] == 2.f && C[3] == 6.f && C[8 + 2] == 4.f && C[4] == -12345.f);
        CHECK(run(NULL, 3, 4, 0, NULL, 1, NULL, 1, NULL, 0, C, 8) == 0);
        CHECK(C[1] == 0.f && C[16 + 3] == 0.f);
    }
    eir_wgemm_set(0);
    CHECK(!eir_wgemm_enabled());
    eir_wgemm_set(-1);
    eir_pool_free(pools[1]);
    eir_pool_free(pools[2]);
    return check_summary("test_wgemm");
}
