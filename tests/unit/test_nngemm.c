/* test_nngemm.c — eir_nngemm_f32 (src/kernels/nngemm.c, C = A B against B packed in strips of
 * 64 columns) against a float64 reference and against its own rule for the bits: each element
 * the chain of FMAs over k in order from 0, whatever the rows' tiles (every remainder of the
 * tiles of at most 6 rows), the strip's width (every N mod 64, masked last vectors) and K's
 * blocks of 128 (K from 1 to past three blocks). Rows of A and C wider than the matrices; C's
 * padding untouched; the packed strips' tails zero. The epilogue (bias, residual, relu / clip /
 * hardswish) bit for bit against scalar float32, NaN and infinities included. Then
 * eir_nngemm_linear_f32, a linear layer on a declared constant weight: nothing done for an
 * undeclared one; the first use (the weight as stored, wgemm.c), the second (the packed copy made)
 * and later ones on one thread, and a use on two threads with every loop split (wgemm.c again),
 * bit for bit the scalar chain of fmaf over k then the bias; the rows of C past N untouched.
 * Skipped without AVX-512F. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pool.h"
#include "check.h"
#include "kernels/gemm.h"
#include "kernels/nngemm.h"

static uint64_t rng = 4242;
static float frand(void) {
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((rng >> 40) & 0xffff) / 32768.f - 1.f;
}

static int bad; /* cases with a failure, reported once each */

static void one(int64_t M, int64_t N, int64_t K, int64_t apad, int64_t bpad, int64_t cpad) {
    int64_t lda = K + apad, ldb = N + bpad, ldc = N + cpad, pf = eir_nngemm_packed_floats(K, N);
    float *A = malloc(sizeof(float) * (size_t)(M * lda + 1)), *B = malloc(sizeof(float) * (size_t)(K * ldb + 1)),
          *P = malloc(sizeof(float) * (size_t)(pf + 1)), *C = malloc(sizeof(float) * (size_t)(M * ldc + 1));
    for (int64_t i = 0; i < M * lda; i++) A[i] = frand();
    for (int64_t i = 0; i < K * ldb; i++) B[i] = frand();
    bool ok = pf == (N + 63) / 64 * 64 * K;
    for (int64_t i = 0; i < pf; i++) P[i] = -777.f;
    eir_nngemm_pack(K, N, B, ldb, P);
    /* the packed strips: B's columns in order, zeros past N */
    for (int64_t j = 0; ok && j < (N + 63) / 64 * 64; j++)
        for (int64_t k = 0; k < K; k++) {
            float want = j < N ? B[k * ldb + j] : 0.f, got = P[j / 64 * 64 * K + k * 64 + j % 64];
            if (memcmp(&want, &got, sizeof got)) ok = false;
        }
    for (int64_t i = 0; i < M * ldc; i++) C[i] = -12345.f;
    ok = ok && eir_nngemm_f32(M, N, K, A, lda, P, C, ldc, NULL) == 0;
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
                acc = fmaf(A[m * lda + k], B[k * ldb + n], acc);
                ref += (double)A[m * lda + k] * B[k * ldb + n];
                mag += fabs((double)A[m * lda + k] * B[k * ldb + n]);
            }
            if (memcmp(&got, &acc, sizeof got)) ok = false;
            if (fabs(got - ref) > 1e-6 * (mag + 1.0)) ok = false;
        }
    CHECK(ok);
    if (!ok && bad++ < 5)
        fprintf(stderr, "test_nngemm: M %lld N %lld K %lld (pads %lld %lld %lld) wrong\n", (long long)M, (long long)N,
                (long long)K, (long long)apad, (long long)bpad, (long long)cpad);
    free(A), free(B), free(P), free(C);
}

/* The epilogue, as dnnl_conv.h's epilogues compute it in scalar float32 (fused.c epi_pixels) */
static float epi_ref(float v, const eir_nngemm_epi *ep, int64_t i, int64_t j) {
    if (ep->bias) v = v + ep->bias[j];
    if (ep->res) v = v + ep->res[i * ep->ldr + j];
    switch (ep->act) {
    case EIR_NNGEMM_RELU: return v < 0.f ? 0.f : v;
    case EIR_NNGEMM_CLIP: v = v < ep->lo ? ep->lo : v; return v > ep->hi ? ep->hi : v;
    case EIR_NNGEMM_HARDSWISH: {
        float t = v + 3.0f;
        t = t > 0.0f ? t : 0.0f;
        t = t < 6.0f ? t : 6.0f;
        return v * t / 6.0f;
    }
    default: return v;
    }
}

/* C = A B then the epilogue (bias and residual each there or not, every activation), its bits
 * against epi_ref over the FMA chain; the residual carries NaN, infinities and -0 so that the
 * activations' treatment of them shows */
static void one_epi(int64_t M, int64_t N, int64_t K, int act, bool bias, bool res) {
    int64_t ldr = N + 3, pf = eir_nngemm_packed_floats(K, N);
    float *A = malloc(sizeof(float) * (size_t)(M * K + 1)), *B = malloc(sizeof(float) * (size_t)(K * N + 1)),
          *P = malloc(sizeof(float) * (size_t)(pf + 1)), *C = malloc(sizeof(float) * (size_t)(M * N + 1)),
          *bv = malloc(sizeof(float) * (size_t)N), *R = malloc(sizeof(float) * (size_t)(M * ldr));
    for (int64_t i = 0; i < M * K; i++) A[i] = 4.f * frand();
    for (int64_t i = 0; i < K * N; i++) B[i] = frand();
    for (int64_t i = 0; i < N; i++) bv[i] = 3.f * frand();
    static const float special[] = {NAN, INFINITY, -INFINITY, -0.0f, -3.0f, 3.0f, 6.0f};
    for (int64_t i = 0; i < M * ldr; i++) R[i] = i % 11 < 7 && i % 5 == 0 ? special[i % 7] : 4.f * frand();
    eir_nngemm_pack(K, N, B, N, P);
    eir_nngemm_epi ep = {bias ? bv : NULL, res ? R : NULL, ldr, act, -1.5f, 2.5f};
    bool ok = eir_nngemm_f32(M, N, K, A, K, P, C, N, &ep) == 0;
    for (int64_t m = 0; ok && m < M; m++)
        for (int64_t n = 0; n < N; n++) {
            float acc = 0.f;
            for (int64_t k = 0; k < K; k++) acc = fmaf(A[m * K + k], B[k * N + n], acc);
            float want = epi_ref(acc, &ep, m, n);
            if (memcmp(&want, &C[m * N + n], sizeof want)) ok = false;
        }
    CHECK(ok);
    if (!ok && bad++ < 5)
        fprintf(stderr, "test_nngemm: epilogue act %d bias %d res %d, M %lld N %lld K %lld wrong\n", act, bias, res,
                (long long)M, (long long)N, (long long)K);
    free(A), free(B), free(P), free(C), free(bv), free(R);
}

/* eir_nngemm_linear_f32 (the header comment) */
static int owner_tag;

static void linear_case(int64_t M, int64_t N, int64_t K, bool with_bias, eir_pool *pool) {
    int64_t ldw = K + 3, ldx = K + 1, ldc = N + 2;
    float *W = malloc(sizeof(float) * (size_t)(N * ldw)), *X = malloc(sizeof(float) * (size_t)(M * ldx)),
          *bias = malloc(sizeof(float) * (size_t)N), *want = malloc(sizeof(float) * (size_t)(M * N));
    float *C[4];
    for (int v = 0; v < 4; v++) C[v] = malloc(sizeof(float) * (size_t)(M * ldc));
    for (int64_t i = 0; i < N * ldw; i++) W[i] = frand();
    for (int64_t i = 0; i < M * ldx; i++) X[i] = frand();
    for (int64_t i = 0; i < N; i++) bias[i] = frand();
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float acc = 0.f;
            for (int64_t k = 0; k < K; k++) acc = fmaf(X[i * ldx + k], W[j * ldw + k], acc);
            want[i * N + j] = with_bias ? acc + bias[j] : acc;
        }
    for (int v = 0; v < 4; v++)
        for (int64_t i = 0; i < M * ldc; i++) C[v][i] = -5.f;
    const float *b = with_bias ? bias : NULL;
    eir_pool *prev;
    /* not a declared constant: not taken, C untouched */
    CHECK(eir_nngemm_linear_f32(M, N, K, X, ldx, W, ldw, b, C[0], ldc) == 0);
    bool untouched = true;
    prev = eir_pool_enter(pool); /* nor on two threads */
    CHECK(eir_nngemm_linear_f32(M, N, K, X, ldx, W, ldw, b, C[0], ldc) == 0);
    eir_pool_leave(prev);
    for (int64_t i = 0; i < M * ldc; i++) untouched = untouched && C[0][i] == -5.f;
    CHECK(untouched);
    CHECK(eir_sgemm_const_add(&owner_tag, W, sizeof(float) * (size_t)(N * ldw), false) == 0);
    size_t before = eir_sgemm_const_bytes();
    CHECK(eir_nngemm_linear_f32(M, N, K, X, ldx, W, ldw, b, C[0], ldc) == 1); /* first use: as stored */
    CHECK(eir_sgemm_const_bytes() == before);
    CHECK(eir_nngemm_linear_f32(M, N, K, X, ldx, W, ldw, b, C[1], ldc) == 1); /* the copy made */
    CHECK(eir_sgemm_const_bytes() - before == sizeof(float) * (size_t)eir_nngemm_packed_floats(K, N));
    CHECK(eir_nngemm_linear_f32(M, N, K, X, ldx, W, ldw, b, C[2], ldc) == 1); /* from the copy */
    eir_pool_split_all = 1;
    prev = eir_pool_enter(pool);
    CHECK(eir_nngemm_linear_f32(M, N, K, X, ldx, W, ldw, b, C[3], ldc) == 1); /* two threads */
    eir_pool_leave(prev);
    eir_pool_split_all = 0;
    bool same = true, pad = true;
    for (int v = 0; v < 4; v++)
        for (int64_t i = 0; i < M; i++) {
            same = same && !memcmp(C[v] + i * ldc, want + i * N, sizeof(float) * (size_t)N);
            pad = pad && C[v][i * ldc + N] == -5.f && C[v][i * ldc + N + 1] == -5.f;
        }
    if (!same || !pad)
        fprintf(stderr, "linear %lld x %lld x %lld%s: %s%s\n", (long long)M, (long long)N, (long long)K,
                with_bias ? " + bias" : "", same ? "" : "bits differ from the fmaf chain; ",
                pad ? "" : "C's padding written");
    CHECK(same);
    CHECK(pad);
    eir_sgemm_const_drop(&owner_tag);
    CHECK(eir_sgemm_const_bytes() == before);
    free(W), free(X), free(bias), free(want);
    for (int v = 0; v < 4; v++) free(C[v]);
}

int main(void) {
    eir_nngemm_set(1);
    if (!eir_nngemm_enabled()) {
        float a = 1.f, p[64] = {2.f}, c = 0.f;
        CHECK(eir_nngemm_f32(1, 1, 1, &a, 1, p, &c, 1, NULL) == -1 && c == 0.f); /* refused, C untouched */
        printf("test_nngemm: skipped (no AVX-512F)\n");
        return check_summary("test_nngemm");
    }
    /* every tile remainder (1..6 rows, evened out over 2..4 tiles) and every vector count of a strip */
    for (int64_t M = 1; M <= 25; M++)
        for (int64_t N = 1; N <= 70; N += (N < 20 ? 1 : 3)) one(M, N, 9 + M % 5, 0, 0, 0);
    /* K: one value, a block, blocks of 128 and a part (the sums carried through C between blocks) */
    int64_t ks[] = {1, 2, 127, 128, 129, 256, 300, 513};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        one(49, 128, ks[i], 0, 0, 0);
        one(13, 97, ks[i], 3, 5, 7);
    }
    /* the Winograd products of ResNet-18's stages: 196 x 64 x 64, 98 x 128 x 128, 49 x 256 x 256 */
    one(196, 64, 64, 0, 0, 0);
    one(98, 128, 128, 0, 0, 0);
    one(49, 256, 256, 0, 0, 0);
    /* the epilogue: every activation, with and without bias and residual, one k-block and three */
    for (int act = EIR_NNGEMM_NONE; act <= EIR_NNGEMM_HARDSWISH; act++)
        for (int br = 0; br < 4; br++) {
            one_epi(13, 70, 20, act, br & 1, br & 2);
            one_epi(7, 130, 300, act, br & 1, br & 2);
        }
    /* K = 0 with an epilogue: the bias through the activation */
    {
        float C[2 * 3], p[64] = {0}, bv[3] = {-2.f, 0.5f, 9.f};
        eir_nngemm_epi ep = {bv, NULL, 0, EIR_NNGEMM_RELU, 0.f, 0.f};
        CHECK(eir_nngemm_f32(2, 3, 0, NULL, 1, p, C, 3, &ep) == 0);
        CHECK(C[0] == 0.f && C[1] == 0.5f && C[2] == 9.f && C[3] == 0.f && C[5] == 9.f);
    }
    /* K = 0: zeros; M or N = 0: nothing written */
    {
        float C[3 * 8], p[64] = {0};
        for (int i = 0; i < 24; i++) C[i] = -1.f;
        CHECK(eir_nngemm_f32(3, 5, 0, NULL, 1, p, C, 8, NULL) == 0);
        CHECK(C[0] == 0.f && C[4] == 0.f && C[16 + 4] == 0.f && C[5] == -1.f && C[8 + 7] == -1.f);
        CHECK(eir_nngemm_f32(0, 5, 4, NULL, 4, p, C, 8, NULL) == 0 && eir_nngemm_f32(3, 0, 4, NULL, 4, p, C, 8, NULL) == 0);
        CHECK(C[5] == -1.f);
    }
    /* linear layers: few rows and many, strips whole and partial, K in one block and several */
    eir_pool *pool = eir_pool_create(2);
    eir_pool_no_backoff = 1;
    static const int64_t lin[][3] = {{16, 64, 128}, {49, 960, 160}, {64, 100, 300}, {5, 70, 19}, {128, 200, 1024},
                                     {200, 130, 33}, {64, 1, 256}};
    for (size_t i = 0; i < sizeof lin / sizeof *lin; i++)
        for (int bb = 0; bb < 2; bb++) linear_case(lin[i][0], lin[i][1], lin[i][2], bb, pool);
    eir_pool_free(pool);
    eir_nngemm_set(0);
    CHECK(!eir_nngemm_enabled());
    {
        float w[64] = {1.f}, x[64] = {1.f}, c = -1.f;
        CHECK(eir_nngemm_linear_f32(1, 1, 64, x, 64, w, 64, NULL, &c, 1) == 0 && c == -1.f); /* off: not taken */
    }
    eir_nngemm_set(-1);
    return check_summary("test_nngemm");
}
