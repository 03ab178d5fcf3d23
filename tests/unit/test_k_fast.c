/* test_k_fast.c — the kernels' float32/float64 fast paths (src/kernels/fast.c)
 * against their generic paths (eir_kernels_fast = 0): pointwise ops on
 * random shapes with contiguous, broadcast (row, channel, scalar, 0-d),
 * transposed, strided, in-place and overlapping operands, empty and 0-d
 * tensors, NaN / inf / -0 among the values (pow with the exponents that
 * have rows among them); depthwise and im2col convolutions; max / avg /
 * adaptive-avg pooling; eval-mode batch norm; copies of strided views into
 * contiguous memory (eir_copy_to_contig, against an element loop); the
 * bfloat16 / float16 row conversions against the element ones.
 * The pointwise rows, pooling and im2col must be bit-identical to the
 * generic path, except the float32 exp, tanh, sigmoid, silu and gelu rows
 * (vmath.h's polynomials instead of libm): within 1e-6 relative of it, as
 * are depthwise convolution and batch norm (float sums in another order). */
#include "ktest.h"

#include "kernels/fast.h"

static const eir_dtype FD[2] = {EIR_F32, EIR_F64};

/* random values with specials mixed in */
static void fill_special(const eir_tview *v) {
    static const double sp[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0, -3.0, 3.0, 6.0, 1e-30, -1e30};
    int64_t n = numel(v);
    for (int64_t k = 0; k < n; k++) setk(v, k, irand(0, 9) == 0 ? sp[irand(0, 9)] : urand() * 8);
}

/* got and want hold the same bits (NaN payloads aside), element by element */
static bool same_bits(const eir_tview *got, const eir_tview *want, const char *what) {
    int64_t n = numel(got);
    for (int64_t k = 0; k < n; k++) {
        double g = getk(got, k), w = getk(want, k);
        if (isnan(g) && isnan(w)) continue;
        if (g != w || signbit(g) != signbit(w)) {
            fprintf(stderr, "%s: element %lld: fast %.17g, generic %.17g\n", what, (long long)k, g, w);
            return false;
        }
    }
    return true;
}

/* |got - want| <= tol * (1 + |want|) element by element, NaN where NaN */
static bool near(const eir_tview *got, const eir_tview *want, double tol, const char *what) {
    int64_t n = numel(got);
    double *w = malloc((size_t)(n + 1) * sizeof *w);
    for (int64_t k = 0; k < n; k++) w[k] = getk(want, k);
    bool ok = close_to(got, w, tol, what);
    free(w);
    return ok;
}

/* op on args into F (fast paths on) and G (off); returns both status codes equal and 0 */
static bool both(const char *op, const eir_karg *a, uint32_t na, eir_tview *F, eir_tview *G, uint32_t no) {
    eir_kernels_fast = 1;
    int rf = run(op, a, na, F, no);
    eir_kernels_fast = 0;
    int rg = run(op, a, na, G, no);
    eir_kernels_fast = 1;
    if (rf != 0 || rg != 0) fprintf(stderr, "%s: status fast %d generic %d: %s\n", op, rf, rg, errbuf);
    return rf == 0 && rg == 0;
}

/* ---------------------------------------------------------------------- */
/* pointwise                                                                */

typedef struct unop {
    const char *op;
    int nextra;           /* scalar arguments after self */
    double s0, s1;
    const char *str;      /* a string argument (gelu's approximate) */
} unop;

static const unop UNOPS[] = {
    {"aten.relu.default", 0, 0, 0, NULL},         {"aten.neg.default", 0, 0, 0, NULL},
    {"aten.abs.default", 0, 0, 0, NULL},          {"aten.sqrt.default", 0, 0, 0, NULL},
    {"aten.rsqrt.default", 0, 0, 0, NULL},        {"aten.reciprocal.default", 0, 0, 0, NULL},
    {"aten.exp.default", 0, 0, 0, NULL},          {"aten.tanh.default", 0, 0, 0, NULL},
    {"aten.sigmoid.default", 0, 0, 0, NULL},      {"aten.silu.default", 0, 0, 0, NULL},
    {"aten.gelu.default", 0, 0, 0, "none"},       {"aten.gelu.default", 0, 0, 0, "tanh"},
    {"aten.hardswish.default", 0, 0, 0, NULL},    {"aten.hardsigmoid.default", 0, 0, 0, NULL},
    {"aten.hardtanh.default", 2, 0, 6, NULL},     {"aten.hardtanh.default", 2, -1.5, 2.25, NULL},
    {"aten.clamp.default", 2, -2, 3.5, NULL},     {"aten.clamp_min.default", 1, 0.5, 0, NULL},
    {"aten.clamp_max.default", 1, -0.25, 0, NULL}, {"aten.relu6.default", 0, 0, 0, NULL},
    {"aten.pow.Tensor_Scalar", 1, 2, 0, NULL},    {"aten.pow.Tensor_Scalar", 1, 3, 0, NULL},
    {"aten.pow.Tensor_Scalar", 1, -2, 0, NULL},   {"aten.pow.Tensor_Scalar", 1, 0.5, 0, NULL},
    {"aten.pow.Tensor_Scalar", 1, -0.5, 0, NULL}, {"aten.pow.Tensor_Scalar", 1, -1, 0, NULL},
    {"aten.pow.Tensor_Scalar", 1, 2.5, 0, NULL},
};

/* float32 rows computed by vmath.h rather than libm: close to the generic
 * path, not the same bits (test_k_vmath.c checks them against torch) */
static bool approx_f32(const char *op, eir_dtype dt) {
    static const char *const ops[] = {"aten.exp.default", "aten.tanh.default", "aten.sigmoid.default",
                                      "aten.silu.default", "aten.gelu.default"};
    if (dt != EIR_F32) return false;
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (!strcmp(op, ops[k])) return true;
    return false;
}

static int32_t rand_shape(int64_t *sz) {
    int32_t r = (int32_t)irand(0, 4);
    for (int32_t d = 0; d < r; d++) sz[d] = irand(1, 7);
    if (irand(0, 7) == 0 && r > 0) sz[irand(0, r - 1)] = 0;
    if (irand(0, 3) == 0 && r > 0) sz[r - 1] = irand(30, 70); /* rows longer than a vector, with a tail */
    return r;
}

static void test_unary(void) {
    char what[160];
    for (size_t u = 0; u < sizeof UNOPS / sizeof UNOPS[0]; u++)
        for (int it = 0; it < 24; it++) {
            const unop *o = &UNOPS[u];
            eir_dtype dt = FD[it % 2];
            int64_t sz[5];
            int32_t r = rand_shape(sz);
            int lx = it % 3 == 2 ? (int)irand(1, 2) : 0, ly = it % 5 == 4 ? 2 : 0; /* mostly the rows' layout */
            tt X = tnew(dt, r, sz, lx), F = tnew(dt, r, sz, ly), G = tnew(dt, r, sz, ly);
            fill_special(&X.v);
            eir_karg a[3] = {KT(&X.v), KF(o->s0), KI((int64_t)o->s1)};
            if (o->nextra == 2 && o->s1 != (double)(int64_t)o->s1) a[2] = KF(o->s1);
            if (it % 3 == 0 && o->nextra) a[1] = KI((int64_t)o->s0); /* integer bounds */
            uint32_t na = 1 + (uint32_t)o->nextra;
            if (o->str) { a[1] = KSTR(o->str); na = 2; }
            snprintf(what, sizeof what, "%s%s%s %s rank %d layout %d/%d", o->op, o->str ? " " : "", o->str ? o->str : "",
                     eir_torch_dtype_name(dt), r, lx, ly);
            CHECK(both(o->op, a, na, &F.v, &G.v, 1));
            if (approx_f32(o->op, dt))
                CHECK(near(&F.v, &G.v, 1e-6, what));
            else
                CHECK(same_bits(&F.v, &G.v, what));
            tfree(&X); tfree(&F); tfree(&G);
        }
}

/* in place: the output is the input (relu_, hardtanh_, add_) */
static void test_inplace(void) {
    for (int it = 0; it < 40; it++) {
        eir_dtype dt = FD[it % 2];
        int64_t sz[2] = {irand(1, 9), irand(1, 40)};
        int layout = it % 4 == 3 ? 1 : 0;
        tt A = tnew(dt, 2, sz, layout), B = tnew(dt, 2, sz, layout), O = tnew(dt, 2, sz, 0);
        fill_special(&A.v);
        fill_special(&O.v);
        for (int64_t k = 0; k < numel(&A.v); k++) setk(&B.v, k, getk(&A.v, k));
        const char *op = it % 3 == 0 ? "aten.relu_.default" : it % 3 == 1 ? "aten.hardtanh_.default" : "aten.add_.Tensor";
        eir_karg fa[3] = {KT(&A.v), KI(0), KI(6)}, ga[3] = {KT(&B.v), KI(0), KI(6)};
        if (it % 3 == 2) { fa[1] = ga[1] = KT(&O.v); fa[2] = ga[2] = KF(0.5); }
        eir_kernels_fast = 1;
        CHECK(run(op, fa, 3, &A.v, 1) == 0);
        eir_kernels_fast = 0;
        CHECK(run(op, ga, 3, &B.v, 1) == 0);
        eir_kernels_fast = 1;
        CHECK(same_bits(&A.v, &B.v, op));
        tfree(&A); tfree(&B); tfree(&O);
    }
}

/* an output overlapping an input one element further on: the fast rows must
 * decline it, leaving the element order of the generic loop */
static void test_overlap(void) {
    for (int di = 0; di < 2; di++) {
        eir_dtype dt = FD[di];
        int64_t n = 37, m = 36;
        tt A = tnew(dt, 1, &n, 0), B = tnew(dt, 1, &n, 0);
        fill_rand(&A.v);
        for (int64_t k = 0; k < n; k++) setk(&B.v, k, getk(&A.v, k));
        eir_tview xa = A.v, ya = A.v, xb = B.v, yb = B.v;
        xa.sizes[0] = ya.sizes[0] = xb.sizes[0] = yb.sizes[0] = m;
        ya.data = (char *)A.v.data + eir_dtype_size(dt);
        yb.data = (char *)B.v.data + eir_dtype_size(dt);
        eir_karg fa[3] = {KT(&xa), KT(&xa), KI(1)}, ga[3] = {KT(&xb), KT(&xb), KI(1)};
        eir_kernels_fast = 1;
        CHECK(run("aten.add.Tensor", fa, 3, &ya, 1) == 0);
        eir_kernels_fast = 0;
        CHECK(run("aten.add.Tensor", ga, 3, &yb, 1) == 0);
        eir_kernels_fast = 1;
        CHECK(same_bits(&A.v, &B.v, "overlapping add"));
        tfree(&A); tfree(&B);
    }
}

static const char *const BINOPS[] = {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor",
                                     "aten.div.Tensor", "aten.maximum.default", "aten.minimum.default"};

static void test_binary(void) {
    char what[200];
    for (size_t b = 0; b < sizeof BINOPS / sizeof BINOPS[0]; b++)
        for (int it = 0; it < 60; it++) {
            eir_dtype dt = FD[it % 2];
            int64_t ys[5], as[5], bs[5];
            int32_t r = rand_shape(ys);
            int mode = it % 6; /* 0 same, 1 row vector, 2 channel vector, 3 scalar other, 4 0-d tensor, 5 random broadcast */
            int32_t ra = r, rb = r;
            for (int32_t d = 0; d < r; d++) { as[d] = ys[d]; bs[d] = ys[d]; }
            if (mode == 1 && r > 0) { rb = 1; bs[0] = ys[r - 1]; }
            if (mode == 2 && r >= 2) { rb = r - 1; for (int32_t d = 0; d < rb; d++) bs[d] = d == 0 ? ys[1] : 1; }
            if (mode == 4) rb = 0;
            if (mode == 5)
                for (int32_t d = 0; d < r; d++) {
                    if (irand(0, 2) == 0) as[d] = 1;
                    else if (irand(0, 2) == 0) bs[d] = 1;
                }
            bool swap = it % 7 == 3;
            eir_dtype bdt = mode == 4 && it % 4 == 0 ? EIR_I64 : dt;
            tt A = tnew(dt, ra, as, it % 5 == 2 ? (int)irand(1, 2) : 0), B = tnew(bdt, rb, bs, it % 5 == 3 ? (int)irand(1, 2) : 0);
            tt F = tnew(dt, r, ys, it % 9 == 8 ? 2 : 0), G = tnew(dt, r, ys, it % 9 == 8 ? 2 : 0);
            fill_special(&A.v);
            fill_special(&B.v);
            if (bdt == EIR_I64) setk(&B.v, 0, (double)irand(-5, 5));
            eir_karg a[3] = {KT(&A.v), KT(&B.v), KI(1)};
            if (swap) { a[0] = KT(&B.v); a[1] = KT(&A.v); }
            if (mode == 3) a[1] = it % 4 == 1 ? KI(irand(-3, 3)) : KF(urand() * 4);
            uint32_t na = 2;
            const char *op = BINOPS[b];
            if (b < 2) { na = 3; a[2] = it % 3 == 0 ? KI(1) : it % 3 == 1 ? KI(-1) : KF(0.375); }
            /* swapped: the output has the broadcast shape of both, which is ys when b broadcasts to a */
            snprintf(what, sizeof what, "%s %s mode %d swap %d rank %d", op, eir_torch_dtype_name(dt), mode, swap, r);
            if (mode == 3 && !strcmp(op, "aten.maximum.default")) { tfree(&A); tfree(&B); tfree(&F); tfree(&G); continue; }
            if (mode == 3 && !strcmp(op, "aten.minimum.default")) { tfree(&A); tfree(&B); tfree(&F); tfree(&G); continue; }
            if (mode == 3 && (!strcmp(op, "aten.mul.Tensor") || !strcmp(op, "aten.div.Tensor"))) na = 2;
            CHECK(both(op, a, na, &F.v, &G.v, 1));
            CHECK(same_bits(&F.v, &G.v, what));
            tfree(&A); tfree(&B); tfree(&F); tfree(&G);
        }
}

/* a 0-d output: the rows need a rank of at least 1, the engine's loop does the rest */
static void test_zero_dim(void) {
    for (int di = 0; di < 2; di++) {
        tt A = tnew(FD[di], 0, NULL, 0), B = tnew(FD[di], 0, NULL, 0), F = tnew(FD[di], 0, NULL, 0), G = tnew(FD[di], 0, NULL, 0);
        setk(&A.v, 0, -2.5);
        setk(&B.v, 0, 4.0);
        eir_karg a[3] = {KT(&A.v), KT(&B.v), KF(2.0)};
        CHECK(both("aten.add.Tensor", a, 3, &F.v, &G.v, 1));
        CHECK(getk(&F.v, 0) == 5.5 && getk(&G.v, 0) == 5.5);
        CHECK(both("aten.relu.default", a, 1, &F.v, &G.v, 1));
        CHECK(getk(&F.v, 0) == 0.0 && getk(&G.v, 0) == 0.0);
        tfree(&A); tfree(&B); tfree(&F); tfree(&G);
    }
}

/* ---------------------------------------------------------------------- */
/* convolution                                                              */

static void test_conv(void) {
    char what[200];
    for (int it = 0; it < 160; it++) {
        bool dw = it % 4 != 3; /* depthwise; else an ordinary 2-d convolution (im2col) */
        int64_t Nb = irand(1, 2), C = irand(1, 6), Cout = dw ? C : irand(1, 4);
        int64_t k[2], s[2], p[2], d[2], is[2], os[2];
        for (int i = 0; i < 2; i++) {
            static const int64_t KS[] = {1, 2, 3, 3, 3, 5, 5, 7};
            k[i] = KS[irand(0, 7)];
            s[i] = irand(1, 3);
            d[i] = irand(0, 3) == 0 ? 2 : 1;
            p[i] = irand(0, k[i]);
            is[i] = irand(1, 20);
            if (is[i] + 2 * p[i] < d[i] * (k[i] - 1) + 1) is[i] = d[i] * (k[i] - 1) + 1;
            os[i] = (is[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) / s[i] + 1;
        }
        if (it % 8 == 0) { k[0] = k[1] = 3; s[0] = s[1] = 1 + it % 16 / 8; p[0] = p[1] = 1; d[0] = d[1] = 1; }
        if (it % 8 == 0)
            for (int i = 0; i < 2; i++) { is[i] = irand(3, 40); os[i] = (is[i] + 2 - 3) / s[i] + 1; }
        int64_t xs[4] = {Nb, C, is[0], is[1]}, wsz[4] = {Cout, dw ? 1 : C, k[0], k[1]}, ys[4] = {Nb, Cout, os[0], os[1]};
        int lx = it % 5 == 1 ? 3 : 0, ly = it % 7 == 2 ? 3 : 0;
        tt X = tnew(EIR_F32, 4, xs, lx), W = tnew(EIR_F32, 4, wsz, 0), Bi = tnew(EIR_F32, 1, &Cout, 0);
        tt F = tnew(EIR_F32, 4, ys, ly), G = tnew(EIR_F32, 4, ys, ly);
        fill_rand(&X.v); fill_rand(&W.v); fill_rand(&Bi.v);
        int64_t op0[2] = {0, 0};
        bool hb = it % 3 != 1;
        eir_karg a[9] = {KT(&X.v), KT(&W.v), hb ? KT(&Bi.v) : KN(), KIS(2, s), KIS(2, p), KIS(2, d), KB(false),
                         KIS(2, op0), KI(dw ? C : 1)};
        snprintf(what, sizeof what, "conv %s N%lld C%lld %lldx%lld k%lldx%lld s%lld,%lld p%lld,%lld d%lld,%lld",
                 dw ? "depthwise" : "im2col", (long long)Nb, (long long)C, (long long)is[0], (long long)is[1],
                 (long long)k[0], (long long)k[1], (long long)s[0], (long long)s[1], (long long)p[0], (long long)p[1],
                 (long long)d[0], (long long)d[1]);
        CHECK(both("aten.convolution.default", a, 9, &F.v, &G.v, 1));
        if (dw || (C == 1 && Cout == 1)) CHECK(near(&F.v, &G.v, 2e-6, what)); /* one channel is depthwise too */
        else CHECK(same_bits(&F.v, &G.v, what));
        tfree(&X); tfree(&W); tfree(&Bi); tfree(&F); tfree(&G);
    }
    /* an empty batch */
    int64_t xs[4] = {0, 3, 5, 5}, wsz[4] = {3, 1, 3, 3}, ys[4] = {0, 3, 5, 5}, s[2] = {1, 1}, p[2] = {1, 1}, d[2] = {1, 1}, o[2] = {0, 0};
    tt X = tnew(EIR_F32, 4, xs, 0), W = tnew(EIR_F32, 4, wsz, 0), F = tnew(EIR_F32, 4, ys, 0), G = tnew(EIR_F32, 4, ys, 0);
    eir_karg a[9] = {KT(&X.v), KT(&W.v), KN(), KIS(2, s), KIS(2, p), KIS(2, d), KB(false), KIS(2, o), KI(3)};
    CHECK(both("aten.convolution.default", a, 9, &F.v, &G.v, 1));
    tfree(&X); tfree(&W); tfree(&F); tfree(&G);
}

/* ---------------------------------------------------------------------- */
/* pooling and batch norm                                                    */

static void test_pool(void) {
    char what[160];
    for (int it = 0; it < 120; it++) {
        int64_t Nb = irand(1, 2), C = irand(1, 4), H = irand(1, 24), W = irand(1, 24);
        int64_t k[2] = {irand(1, 4), irand(1, 4)}, s[2] = {irand(1, 3), irand(1, 3)}, d[2] = {1, 1}, p[2], o[2];
        if (it % 4 == 1) { d[0] = irand(1, 2); d[1] = irand(1, 2); }
        if (it % 3 == 0) s[0] = s[1] = 1; /* stride 1: avg_pool2d's blocked sums (fast.c avg_plane_s1) */
        bool ceil_mode = it % 5 == 2;
        for (int i = 0; i < 2; i++) {
            p[i] = irand(0, k[i] / 2);
            int64_t in = i ? W : H;
            int64_t span = d[i] * (k[i] - 1) + 1;
            if (in + 2 * p[i] < span) { p[i] = 0; k[i] = 1; span = 1; }
            int64_t num = in + 2 * p[i] - span;
            o[i] = (ceil_mode ? (num + s[i] - 1) / s[i] : num / s[i]) + 1;
            if (ceil_mode && (o[i] - 1) * s[i] >= in + p[i]) o[i]--;
        }
        int64_t xs[4] = {Nb, C, H, W}, ys[4] = {Nb, C, o[0], o[1]};
        int lx = it % 6 == 5 ? 3 : 0;
        tt X = tnew(EIR_F32, 4, xs, lx);
        fill_special(&X.v);
        snprintf(what, sizeof what, "pool %lldx%lld k%lldx%lld s%lld,%lld p%lld,%lld d%lld,%lld ceil %d", (long long)H,
                 (long long)W, (long long)k[0], (long long)k[1], (long long)s[0], (long long)s[1], (long long)p[0],
                 (long long)p[1], (long long)d[0], (long long)d[1], ceil_mode);
        {
            tt F = tnew(EIR_F32, 4, ys, 0), G = tnew(EIR_F32, 4, ys, 0), FI = tnew(EIR_I64, 4, ys, 0), GI = tnew(EIR_I64, 4, ys, 0);
            eir_karg a[6] = {KT(&X.v), KIS(2, k), KIS(2, s), KIS(2, p), KIS(2, d), KB(ceil_mode)};
            eir_tview fo[2] = {F.v, FI.v}, go[2] = {G.v, GI.v};
            CHECK(both("aten.max_pool2d_with_indices.default", a, 6, fo, go, 2));
            CHECK(same_bits(&F.v, &G.v, what));
            CHECK(same_bits(&FI.v, &GI.v, what));
            CHECK(both("aten.max_pool2d.default", a, 6, &F.v, &G.v, 1));
            CHECK(same_bits(&F.v, &G.v, what));
            tfree(&F); tfree(&G); tfree(&FI); tfree(&GI);
        }
        if (d[0] == 1 && d[1] == 1) {
            tt F = tnew(EIR_F32, 4, ys, 0), G = tnew(EIR_F32, 4, ys, 0);
            eir_karg a[7] = {KT(&X.v), KIS(2, k), KIS(2, s), KIS(2, p), KB(ceil_mode), KB(it % 2), it % 7 == 3 ? KI(3) : KN()};
            CHECK(both("aten.avg_pool2d.default", a, 7, &F.v, &G.v, 1));
            CHECK(same_bits(&F.v, &G.v, what));
            tfree(&F); tfree(&G);
        }
        {
            int64_t os[2] = {irand(1, 5), irand(1, 5)}, as[4] = {Nb, C, os[0], os[1]};
            tt F = tnew(EIR_F32, 4, as, 0), G = tnew(EIR_F32, 4, as, 0);
            eir_karg a[2] = {KT(&X.v), KIS(2, os)};
            CHECK(both("aten._adaptive_avg_pool2d.default", a, 2, &F.v, &G.v, 1));
            CHECK(same_bits(&F.v, &G.v, "adaptive_avg_pool2d"));
            tfree(&F); tfree(&G);
        }
        tfree(&X);
    }
}

static void test_batch_norm(void) {
    for (int it = 0; it < 40; it++) {
        int32_t r = (int32_t)irand(2, 4);
        int64_t sz[4];
        for (int32_t d = 0; d < r; d++) sz[d] = irand(1, 9);
        if (it % 5 == 4) sz[0] = 0;
        int64_t C = sz[1];
        int lx = it % 4 == 3 ? 3 : 0;
        tt X = tnew(EIR_F32, r, sz, lx), F = tnew(EIR_F32, r, sz, 0), G = tnew(EIR_F32, r, sz, 0);
        tt Wt = tnew(EIR_F32, 1, &C, 0), B = tnew(EIR_F32, 1, &C, 0), M = tnew(EIR_F32, 1, &C, 0), V = tnew(EIR_F32, 1, &C, 0);
        fill_rand(&X.v); fill_rand(&Wt.v); fill_rand(&B.v); fill_rand(&M.v);
        for (int64_t c = 0; c < C; c++) setk(&V.v, c, 0.1 + fabs(urand()));
        int64_t zero = 0;
        tt S1 = tnew(EIR_F32, 1, &zero, 0), S2 = tnew(EIR_F32, 1, &zero, 0);
        eir_karg a[7] = {KT(&X.v), it % 3 ? KT(&Wt.v) : KN(), it % 2 ? KT(&B.v) : KN(), KT(&M.v), KT(&V.v), KF(0.1), KF(1e-5)};
        eir_tview fo[3] = {F.v, S1.v, S2.v}, go[3] = {G.v, S1.v, S2.v};
        CHECK(both("aten._native_batch_norm_legit_no_training.default", a, 7, fo, go, 3));
        CHECK(near(&F.v, &G.v, 1e-6, "batch norm"));
        tfree(&X); tfree(&F); tfree(&G); tfree(&Wt); tfree(&B); tfree(&M); tfree(&V); tfree(&S1); tfree(&S2);
    }
}

/* eir_copy_to_contig: any layout (reversed, padded, channels-last, size-1
 * and empty dims, every element size) into contiguous memory, in logical
 * order; an overlapping destination is declined */
static void test_copy(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BOOL, EIR_I64, EIR_C128};
    for (int it = 0; it < 120; it++) {
        eir_dtype dt = dts[it % 6];
        int64_t sz[5];
        int32_t r = (int32_t)irand(0, 5);
        for (int32_t d = 0; d < r; d++) sz[d] = irand(1, 3) == 1 ? 1 : irand(1, 6);
        if (it % 17 == 0 && r > 0) sz[irand(0, r - 1)] = 0;
        tt X = tnew(dt, r, sz, (int)irand(0, 3));
        size_t es = eir_dtype_size(dt);
        int64_t n = numel(&X.v);
        for (int64_t k = 0; k < n; k++) setk(&X.v, k, dt == EIR_BOOL ? (double)(k % 3 == 0) : (double)(k * 7 % 23) - 5);
        unsigned char *got = calloc((size_t)n + 1, es), *want = calloc((size_t)n + 1, es);
        for (int64_t k = 0; k < n; k++) {
            int64_t idx[EIR_MAX_RANK];
            unravel(&X.v, k, idx);
            memcpy(want + (size_t)k * es, eir_tview_at(&X.v, idx), es);
        }
        CHECK(eir_copy_to_contig(got, &X.v));
        CHECK(memcmp(got, want, (size_t)n * es) == 0);
        free(got); free(want);
        /* into its own storage: declined unless empty */
        if (n > 0) CHECK(!eir_copy_to_contig(X.buf, &X.v));
        tfree(&X);
    }
}

/* the bfloat16 / float16 row conversions against the element ones, on every bfloat16 / half
 * pattern and on float32 patterns around the rounding ties, NaN, infinities, subnormals */
static void test_half_rows(void) {
    enum { N = 1 << 16 };
    static uint16_t h[N], back[N];
    static float f[N], g[N];
    for (int i = 0; i < N; i++) h[i] = (uint16_t)i;
    eir_bf16_to_f32_row(f, h, N);
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float e = eir_bf16_to_f32(h[i]);
        bad += memcmp(&e, &f[i], 4) != 0;
    }
    eir_f16_to_f32_row(g, h, N);
    for (int i = 0; i < N; i++) {
        float e = eir_f16_to_f32(h[i]);
        bad += memcmp(&e, &g[i], 4) != 0 && !(isnan(e) && isnan(g[i]));
    }
    CHECK(bad == 0);
    /* float32 bit patterns: each bfloat16 value with every low half near a tie, random ones, specials */
    uint32_t seed = 7;
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < N; i++) {
            seed = seed * 1664525u + 1013904223u;
            uint32_t lo = round == 0 ? 0x8000u : round == 1 ? 0x7fffu : round == 2 ? 0x8001u : (seed >> 16);
            uint32_t u = ((uint32_t)i << 16) | lo;
            memcpy(&f[i], &u, 4);
        }
        eir_f32_to_bf16_row(back, f, N);
        for (int i = 0; i < N; i++) bad += back[i] != eir_f32_to_bf16(f[i]);
        eir_f32_to_f16_row(back, f, N);
        for (int i = 0; i < N; i++) bad += back[i] != eir_f32_to_f16(f[i]);
    }
    CHECK(bad == 0);
    /* lengths that leave a tail after the vector loop */
    for (int n = 0; n < 40; n++) {
        eir_f32_to_bf16_row(back, f, n);
        for (int i = 0; i < n; i++) bad += back[i] != eir_f32_to_bf16(f[i]);
    }
    CHECK(bad == 0);
}

int main(void) {
    test_half_rows();
    test_copy();
    test_unary();
    test_inplace();
    test_overlap();
    test_binary();
    test_zero_dim();
    test_conv();
    test_pool();
    test_batch_norm();
    print_worst("test_k_fast");
    return check_summary("test_k_fast");
}
