/* test_k_random.c — random ops checked by distribution: moments, ranges,
 * permutations, dropout scaling and mask, reproducibility for a seed; the
 * normal overloads by z-scores, exponential, Cauchy, geometric, log-normal
 * and Poisson by their moments or quantiles, random_ and multinomial by
 * chi-square statistics, and torch's messages for invalid arguments. */
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

/* chi-square statistic of counts against equal expectations */
static double chi2_uniform(const int64_t *counts, int k, int64_t n) {
    double e = (double)n / k, s = 0;
    for (int i = 0; i < k; i++) s += (counts[i] - e) * (counts[i] - e) / e;
    return s;
}
/* a loose bound for a chi-square with df degrees of freedom (about 6 sigma) */
static double chi2_bound(int df) { return df + 6 * sqrt(2.0 * df); }

static eir_karg F(double f) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_FLOAT; a.f = f; a.s.kind = EIR_SC_FLOAT; a.s.f = f; return a; }
static eir_karg I(int64_t i) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_INT; a.i = i; a.s.kind = EIR_SC_INT; a.s.i = i; a.s.f = (double)i; return a; }
static eir_karg TT(const eir_tview *t) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSOR; a.t = t; return a; }
static eir_karg NONE(void) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_NONE; return a; }
static eir_karg B(bool b) { eir_karg a = I(b); a.kind = EIR_KA_BOOL; return a; }

static void test_more_distributions(eir_kctx *ctx) {
    enum { N = 100000 };
    static float buf[N], mean[N], stdv[N];
    static double dbuf[N];
    char *err = ctx->err;
    double m, v;
    eir_tview out = vec(buf, EIR_F32, N);

    /* uniform_(self, -1, 3): the range, the mean and the variance of U(-1, 3) */
    eir_karg ua[3] = {TT(&out), F(-1), F(3)};
    CHECK(find("aten.uniform_.default")(ua, 3, &out, 1, ctx) == 0);
    moments(buf, N, &m, &v);
    bool in = true;
    for (int i = 0; i < N; i++) in = in && buf[i] >= -1 && buf[i] < 3;
    CHECK(in && fabs(m - 1) < 0.02 && fabs(v - 16.0 / 12) < 0.02);
    ua[1] = F(3); ua[2] = F(-1);
    CHECK(find("aten.uniform_.default")(ua, 3, &out, 1, ctx) == -1 && strstr(err, "uniform_ expects to return a [from, to) range"));
    /* float16: 11 random bits, so every value is a multiple of 2^-11 in [0, 1) */
    static uint16_t h[4096];
    eir_tview ho = vec(h, EIR_F16, 4096);
    ua[1] = F(0); ua[2] = F(1);
    CHECK(find("aten.uniform_.default")(ua, 3, &ho, 1, ctx) == 0);
    bool grid = true;
    for (int i = 0; i < 4096; i++) {
        float x = eir_f16_to_f32(h[i]);
        grid = grid && x >= 0 && x < 1 && x * 2048 == floorf(x * 2048);
    }
    CHECK(grid);

    /* normal.Tensor_Tensor / Tensor_float / float_Tensor: (x - mean) / std is N(0, 1) */
    for (int i = 0; i < N; i++) { mean[i] = -3 + 6.0f * (float)i / N; stdv[i] = 0.5f + 1.5f * (float)i / N; }
    eir_tview mv = vec(mean, EIR_F32, N), sv = vec(stdv, EIR_F32, N);
    eir_karg forms[3][2] = {{TT(&mv), TT(&sv)}, {TT(&mv), F(2.0)}, {F(1.0), TT(&sv)}};
    const char *names[3] = {"aten.normal.Tensor_Tensor", "aten.normal.Tensor_float", "aten.normal.float_Tensor"};
    for (int f = 0; f < 3; f++) {
        CHECK(find(names[f])(forms[f], 3, &out, 1, ctx) == 0);
        double s = 0, s2 = 0;
        for (int i = 0; i < N; i++) {
            double mu = f == 2 ? 1.0 : mean[i], sd = f == 1 ? 2.0 : stdv[i], z = (buf[i] - mu) / sd;
            s += z;
            s2 += z * z;
        }
        CHECK(fabs(s / N) < 0.02 && fabs(s2 / N - 1) < 0.03);
    }
    stdv[7] = -1;
    CHECK(find("aten.normal.Tensor_Tensor")(forms[0], 3, &out, 1, ctx) == -1 && strstr(err, "normal expects all elements of std >= 0.0"));
    forms[1][1] = F(-2);
    CHECK(find("aten.normal.Tensor_float")(forms[1], 3, &out, 1, ctx) == -1 && strstr(err, "normal expects std >= 0.0"));
    stdv[7] = 1;
    /* normal_(self, 2, 0.5) */
    eir_karg na[3] = {TT(&out), F(2), F(0.5)};
    CHECK(find("aten.normal_.default")(na, 3, &out, 1, ctx) == 0);
    moments(buf, N, &m, &v);
    CHECK(fabs(m - 2) < 0.01 && fabs(v - 0.25) < 0.01);

    /* exponential_(lambda = 4): mean and std 1/4 */
    eir_karg ea[2] = {TT(&out), F(4)};
    CHECK(find("aten.exponential_.default")(ea, 2, &out, 1, ctx) == 0);
    moments(buf, N, &m, &v);
    CHECK(fabs(m - 0.25) < 0.005 && fabs(sqrt(v) - 0.25) < 0.005);
    /* cauchy(median 1, sigma 2): half the mass within one sigma of the median, a quarter beyond each side */
    eir_karg ca[3] = {TT(&out), F(1), F(2)};
    CHECK(find("aten.cauchy.default")(ca, 3, &out, 1, ctx) == 0);
    int inside = 0, above = 0;
    for (int i = 0; i < N; i++) { inside += fabsf(buf[i] - 1) < 2; above += buf[i] > 3; }
    CHECK(abs(inside - N / 2) < N / 100 && abs(above - N / 4) < N / 100);
    ca[2] = F(-1);
    CHECK(find("aten.cauchy_.default")(ca, 3, &out, 1, ctx) == -1 && strstr(err, "cauchy_ expects sigma > 0.0"));
    /* geometric_(p = 0.25): integers from 1, mean 1/p = 4, P(1) = p */
    eir_karg ga[2] = {TT(&out), F(0.25)};
    CHECK(find("aten.geometric_.default")(ga, 2, &out, 1, ctx) == 0);
    moments(buf, N, &m, &v);
    int ones = 0;
    bool ints = true;
    for (int i = 0; i < N; i++) { ones += buf[i] == 1; ints = ints && buf[i] >= 1 && buf[i] == floorf(buf[i]); }
    CHECK(ints && fabs(m - 4) < 0.05 && fabs(v - 12) < 0.5 && abs(ones - N / 4) < N / 100);
    ga[1] = F(1.5);
    CHECK(find("aten.geometric.default")(ga, 2, &out, 1, ctx) == -1 && strstr(err, "geometric_ expects p to be in (0, 1)"));
    /* log_normal(mean 0.5, std 0.25): log of the values is N(0.5, 0.25^2) */
    eir_karg la[3] = {TT(&out), F(0.5), F(0.25)};
    CHECK(find("aten.log_normal_.default")(la, 3, &out, 1, ctx) == 0);
    double s = 0, s2 = 0;
    for (int i = 0; i < N; i++) { double l = log(buf[i]); s += l; s2 += l * l; }
    CHECK(fabs(s / N - 0.5) < 0.005 && fabs(sqrt(s2 / N - (s / N) * (s / N)) - 0.25) < 0.005);
    la[2] = F(0);
    CHECK(find("aten.log_normal.default")(la, 3, &out, 1, ctx) == -1 && strstr(err, "log_normal_ expects std > 0.0"));

    /* random_: to(10) uniform on 0..9 by chi-square; from(-3, 5); float16 without bounds reaches 2^11 */
    eir_tview dv = vec(dbuf, EIR_F64, N);
    eir_karg rt[2] = {TT(&dv), I(10)};
    CHECK(find("aten.random_.to")(rt, 2, &dv, 1, ctx) == 0);
    int64_t counts[10] = {0};
    bool ok = true;
    for (int i = 0; i < N; i++) { ok = ok && dbuf[i] >= 0 && dbuf[i] <= 9 && dbuf[i] == floor(dbuf[i]); if (ok) counts[(int)dbuf[i]]++; }
    CHECK(ok && chi2_uniform(counts, 10, N) < chi2_bound(9));
    eir_karg rf[3] = {TT(&dv), I(-3), I(5)};
    CHECK(find("aten.random.from")(rf, 3, &dv, 1, ctx) == 0);
    int64_t c8[8] = {0};
    ok = true;
    for (int i = 0; i < N; i++) { ok = ok && dbuf[i] >= -3 && dbuf[i] < 5; if (ok) c8[(int)dbuf[i] + 3]++; }
    CHECK(ok && chi2_uniform(c8, 8, N) < chi2_bound(7));
    rf[1] = I(5); rf[2] = I(5);
    CHECK(find("aten.random_.from")(rf, 3, &dv, 1, ctx) == -1 && strstr(err, "random_ expects 'from' to be less than 'to'"));
    eir_karg rd[1] = {TT(&ho)};
    CHECK(find("aten.random_.default")(rd, 1, &ho, 1, ctx) == 0);
    float hmax = 0;
    ok = true;
    for (int i = 0; i < 4096; i++) { float x = eir_f16_to_f32(h[i]); ok = ok && x >= 0 && x <= 2048 && x == floorf(x); hmax = fmaxf(hmax, x); }
    CHECK(ok && hmax > 1900);
    static int8_t i8[N];
    eir_tview i8v = vec(i8, EIR_I8, N);
    eir_karg r8[1] = {TT(&i8v)};
    CHECK(find("aten.random.default")(r8, 1, &i8v, 1, ctx) == 0);
    int64_t c128[128] = {0};
    ok = true;
    for (int i = 0; i < N; i++) { ok = ok && i8[i] >= 0; if (ok) c128[i8[i]]++; }
    CHECK(ok && chi2_uniform(c128, 128, N) < chi2_bound(127));

    /* bernoulli.Tensor(self, p): each element 1 with its own probability */
    for (int i = 0; i < N; i++) mean[i] = (i % 2) ? 0.9f : 0.1f;
    eir_karg bt[2] = {TT(&out), TT(&mv)};
    CHECK(find("aten.bernoulli_.Tensor")(bt, 2, &out, 1, ctx) == 0);
    int odd = 0, even = 0;
    for (int i = 0; i < N; i++) { if (i % 2) odd += buf[i] == 1; else even += buf[i] == 1; }
    CHECK(abs(odd - 9 * N / 20) < N / 100 && abs(even - N / 20) < N / 100);

    /* poisson: mean and variance lambda, for small (product method) and large (rejection) rates */
    const float lams[2] = {3.5f, 42.0f};
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < N; i++) mean[i] = lams[k];
        eir_karg pa[2] = {TT(&mv), NONE()};
        CHECK(find("aten.poisson.default")(pa, 2, &out, 1, ctx) == 0);
        moments(buf, N, &m, &v);
        ints = true;
        for (int i = 0; i < N; i++) ints = ints && buf[i] >= 0 && buf[i] == floorf(buf[i]);
        CHECK(ints && fabs(m - lams[k]) < 5 * sqrt(lams[k] / N) && fabs(v / lams[k] - 1) < 0.03);
    }
    mean[3] = -1;
    eir_karg pa[2] = {TT(&mv), NONE()};
    CHECK(find("aten.poisson.default")(pa, 2, &out, 1, ctx) == -1 && strstr(err, "invalid Poisson rate"));

    /* multinomial with replacement: frequencies by chi-square; never a zero-weight category */
    float w[5] = {1, 0, 3, 2, 2};
    eir_tview wv = vec(w, EIR_F32, 5);
    static int64_t idx[N];
    eir_tview iv = vec(idx, EIR_I64, N);
    eir_karg mr[3] = {TT(&wv), I(N), B(true)};
    CHECK(find("aten.multinomial.default")(mr, 3, &iv, 1, ctx) == 0);
    int64_t cm[5] = {0};
    ok = true;
    for (int i = 0; i < N; i++) { ok = ok && idx[i] >= 0 && idx[i] < 5; if (ok) cm[idx[i]]++; }
    double chi = 0;
    for (int c = 0; c < 5; c++) if (w[c] > 0) { double e = N * w[c] / 8.0; chi += (cm[c] - e) * (cm[c] - e) / e; }
    CHECK(ok && cm[1] == 0 && chi < chi2_bound(3));
    /* without replacement: distinct categories of positive weight first; the first pick follows the weights */
    int64_t first[5] = {0};
    for (int trial = 0; trial < 20000; trial++) {
        int64_t pick[4];
        eir_tview pv = vec(pick, EIR_I64, 4);
        eir_karg mn[3] = {TT(&wv), I(4), B(false)};
        CHECK(find("aten.multinomial.default")(mn, 3, &pv, 1, ctx) == 0);
        bool distinct = true;
        for (int a = 0; a < 4; a++) for (int b = a + 1; b < 4; b++) distinct = distinct && pick[a] != pick[b];
        if (!distinct || pick[0] == 1 || pick[1] == 1 || pick[2] == 1 || pick[3] == 1) { CHECK(0); break; }
        first[pick[0]]++;
    }
    double chf = 0;
    for (int c = 0; c < 5; c++) if (w[c] > 0) { double e = 20000 * w[c] / 8.0; chf += (first[c] - e) * (first[c] - e) / e; }
    CHECK(first[1] == 0 && chf < chi2_bound(3));
    /* 2-d input: one row per distribution */
    float w2[6] = {0, 0, 1, 5, 0, 0};
    int64_t o2[4];
    eir_tview w2v = {w2, EIR_F32, 2, {2, 3}, {3, 1}}, o2v = {o2, EIR_I64, 2, {2, 2}, {2, 1}};
    eir_karg m2[3] = {TT(&w2v), I(2), B(true)};
    CHECK(find("aten.multinomial.default")(m2, 3, &o2v, 1, ctx) == 0);
    CHECK(o2[0] == 2 && o2[1] == 2 && o2[2] == 0 && o2[3] == 0);
    /* torch's checks */
    eir_karg bad[3] = {TT(&wv), I(6), B(false)};
    CHECK(find("aten.multinomial.default")(bad, 3, &iv, 1, ctx) == -1 && strstr(err, "cannot sample n_sample > prob_dist.size(-1) samples without replacement"));
    w[3] = -1;
    bad[1] = I(2);
    CHECK(find("aten.multinomial.default")(bad, 3, &iv, 1, ctx) == -1 && strstr(err, "probability tensor contains either `inf`, `nan` or element < 0"));
    float z[3] = {0, 0, 0};
    eir_tview zv = vec(z, EIR_F32, 3);
    eir_karg zb[3] = {TT(&zv), I(1), B(false)};
    CHECK(find("aten.multinomial.default")(zb, 3, &iv, 1, ctx) == -1 && strstr(err, "invalid multinomial distribution (sum of probabilities <= 0)"));
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
    test_more_distributions(&ctx);
    return check_summary("test_k_random");
}
