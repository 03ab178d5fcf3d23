/* test_k_random.c — random ops checked by distribution: moments, ranges,
 * permutations, dropout scaling and mask, reproducibility for a seed. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "kernels/kutil.h"
#include "kernels/tables.h"

static eir_kernel_fn find(const char *op) {
    for (const eir_kernel_entry *e = eir_kernels_random; e->op; e++)
        if (!strcmp(e->op, op)) return e->fn;
    return NULL;
}

static eir_tview vec(void *data, eir_dtype dt, int64_t n) {
    eir_tview t = {data, dt, 1, {n}, {1}};
    return t;
}

static void moments(const float *x, int64_t n, double *mean, double *var) {
    double s = 0, s2 = 0;
    for (int64_t i = 0; i < n; i++) { s += x[i]; s2 += (double)x[i] * x[i]; }
    *mean = s / (double)n;
    *var = s2 / (double)n - *mean * *mean;
}

int main(void) {
    enum { N = 100000 };
    static float buf[N];
    static int64_t ibuf[N];
    static uint8_t mask[N];
    char err[256];
    uint64_t state = 42;
    eir_kctx ctx = {.err = err, .errlen = sizeof err, .nthreads = 1, .rng = &state};
    eir_karg none[8] = {{0}};
    double m, v;

    eir_tview out = vec(buf, EIR_F32, N);
    CHECK(find("aten.rand.default")(none, 5, &out, 1, &ctx) == 0);
    moments(buf, N, &m, &v);
    CHECK(fabs(m - 0.5) < 0.01 && fabs(v - 1.0 / 12) < 0.005);
    bool in_range = true;
    for (int i = 0; i < N; i++) in_range = in_range && buf[i] >= 0 && buf[i] < 1;
    CHECK(in_range);

    CHECK(find("aten.randn.default")(none, 5, &out, 1, &ctx) == 0);
    moments(buf, N, &m, &v);
    CHECK(fabs(m) < 0.02 && fabs(v - 1) < 0.03);

    /* same seed, same numbers; another seed, other numbers */
    static float again[N];
    uint64_t s1 = 7, s2 = 7, s3 = 8;
    eir_tview o2 = vec(again, EIR_F32, N);
    ctx.rng = &s1;
    find("aten.randn.default")(none, 5, &out, 1, &ctx);
    ctx.rng = &s2;
    find("aten.randn.default")(none, 5, &o2, 1, &ctx);
    CHECK(memcmp(buf, again, sizeof buf) == 0);
    ctx.rng = &s3;
    find("aten.randn.default")(none, 5, &o2, 1, &ctx);
    CHECK(memcmp(buf, again, sizeof buf) != 0);
    ctx.rng = &state;

    /* randint.low(low=-3, high=5): every value in range, each one hit */
    eir_karg ri[3] = {{.kind = EIR_KA_INT, .i = -3}, {.kind = EIR_KA_INT, .i = 5}, {.kind = EIR_KA_INTS}};
    eir_tview io = vec(ibuf, EIR_I64, N);
    CHECK(find("aten.randint.low")(ri, 3, &io, 1, &ctx) == 0);
    int hits[8] = {0};
    bool ok = true;
    for (int i = 0; i < N; i++) {
        ok = ok && ibuf[i] >= -3 && ibuf[i] < 5;
        if (ibuf[i] >= -3 && ibuf[i] < 5) hits[ibuf[i] + 3]++;
    }
    CHECK(ok);
    for (int k = 0; k < 8; k++) CHECK(abs(hits[k] - N / 8) < N / 40);
    eir_karg bad[3] = {{.kind = EIR_KA_INT, .i = 5}, {.kind = EIR_KA_INT, .i = 5}, {.kind = EIR_KA_INTS}};
    CHECK(find("aten.randint.low")(bad, 3, &io, 1, &ctx) == -1 && strstr(err, "less than"));

    /* randperm: a permutation of 0..n-1 */
    eir_karg rp[1] = {{.kind = EIR_KA_INT, .i = 1000}};
    eir_tview po = vec(ibuf, EIR_I64, 1000);
    CHECK(find("aten.randperm.default")(rp, 1, &po, 1, &ctx) == 0);
    static uint8_t seen[1000];
    memset(seen, 0, sizeof seen);
    bool perm = true, moved = false;
    for (int i = 0; i < 1000; i++) {
        perm = perm && ibuf[i] >= 0 && ibuf[i] < 1000 && !seen[ibuf[i]];
        if (ibuf[i] >= 0 && ibuf[i] < 1000) seen[ibuf[i]] = 1;
        moved = moved || ibuf[i] != i;
    }
    CHECK(perm && moved);

    /* bernoulli.p: fraction of ones near p */
    eir_karg bp[3] = {{.kind = EIR_KA_TENSOR, .t = &out}, {.kind = EIR_KA_FLOAT, .f = 0.3}};
    CHECK(find("aten.bernoulli.p")(bp, 3, &out, 1, &ctx) == 0);
    moments(buf, N, &m, &v);
    CHECK(fabs(m - 0.3) < 0.01);

    /* native_dropout(x = 1, p = 0.25, train): kept values are 1/(1-p), about 75% kept; eval: identity */
    for (int i = 0; i < N; i++) again[i] = 1.0f;
    eir_tview x = vec(again, EIR_F32, N);
    eir_tview outs[2] = {vec(buf, EIR_F32, N), vec(mask, EIR_BOOL, N)};
    eir_karg dp[3] = {{.kind = EIR_KA_TENSOR, .t = &x}, {.kind = EIR_KA_FLOAT, .f = 0.25}, {.kind = EIR_KA_BOOL, .i = 1}};
    CHECK(find("aten.native_dropout.default")(dp, 3, outs, 2, &ctx) == 0);
    int kept = 0;
    bool consistent = true;
    for (int i = 0; i < N; i++) {
        kept += mask[i];
        consistent = consistent && (mask[i] ? fabsf(buf[i] - 1.0f / 0.75f) < 1e-6f : buf[i] == 0);
    }
    CHECK(consistent && abs(kept - 3 * N / 4) < N / 50);
    dp[2].i = 0;
    CHECK(find("aten.native_dropout.default")(dp, 3, outs, 2, &ctx) == 0);
    bool ident = true;
    for (int i = 0; i < N; i++) ident = ident && buf[i] == 1.0f && mask[i] == 1;
    CHECK(ident);
    dp[1].f = 1.5;
    CHECK(find("aten.native_dropout.default")(dp, 3, outs, 2, &ctx) == -1);
    /* complex inputs keep their imaginary part: eval is the identity, training scales both parts */
    static float cx[2 * 64], co[2 * 64];
    for (int i = 0; i < 64; i++) { cx[2 * i] = (float)i; cx[2 * i + 1] = -2.0f * (float)i; }
    eir_tview xc = vec(cx, EIR_C64, 64), oc[2] = {vec(co, EIR_C64, 64), vec(mask, EIR_BOOL, 64)};
    eir_karg dc[3] = {{.kind = EIR_KA_TENSOR, .t = &xc}, {.kind = EIR_KA_FLOAT, .f = 0.5}, {.kind = EIR_KA_BOOL, .i = 0}};
    CHECK(find("aten.native_dropout.default")(dc, 3, oc, 2, &ctx) == 0);
    CHECK(memcmp(cx, co, sizeof cx) == 0);
    dc[2].i = 1;
    CHECK(find("aten.native_dropout.default")(dc, 3, oc, 2, &ctx) == 0);
    bool scaled = true;
    for (int i = 0; i < 64; i++)
        scaled = scaled && co[2 * i] == (mask[i] ? 2.0f * (float)i : 0) && co[2 * i + 1] == (mask[i] ? -4.0f * (float)i : -0.0f * (float)i);
    CHECK(scaled);
    return check_summary("test_k_random");
}
