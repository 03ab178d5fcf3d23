/* test_k_linalg.c — the linear-algebra kernels (src/kernels/linalg.c), the
 * conjugating views and the FFT extras (fftshift, hfftn / ihfftn, stft,
 * istft in src/kernels/fft.c) against naive references and invariants:
 * determinants by cofactor expansion, A inv(A) = I, L L^H = A, P L U = A,
 * Q R = A with Q unitary, A V = V diag(w), U S V^H = A, the Penrose
 * conditions for pinv, norms by their definitions, matrix powers by
 * repeated products, exp of matrices with known exponentials, frames of
 * stft by a direct DFT and istft(stft(x)) = x. Every dtype LAPACK takes
 * (f32, f64, c64, c128), batches (with broadcasting where torch
 * broadcasts), non-contiguous inputs and outputs, empty batches, and the
 * errors torch raises at run time with its messages. */
#include "base/cmplx.h" /* complex.h, and CMPLX for clang */

#include "ktest.h"

typedef double complex zc;

static eir_kernel_fn lfind(const char *op) {
    const eir_kernel_entry *const tables[] = {eir_kernels_linalg, eir_kernels_fft, eir_kernels_reduce, eir_kernels_pointwise, eir_kernels_nn};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const eir_kernel_entry *e = tables[t]; e->op; e++)
            if (!strcmp(e->op, op)) return e->fn;
    fprintf(stderr, "no kernel %s\n", op);
    return NULL;
}
static int lrun(const char *op, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no) {
    eir_kctx ctx = {errbuf, sizeof errbuf, 1, NULL};
    errbuf[0] = 0;
    eir_kernel_fn f = lfind(op);
    if (!f) return -2;
    return f(a, na, out, no, &ctx);
}

static const eir_dtype DT4[4] = {EIR_F32, EIR_F64, EIR_C64, EIR_C128};
static bool cpx(eir_dtype d) { return d == EIR_C64 || d == EIR_C128; }
static eir_dtype realof(eir_dtype d) { return d == EIR_F64 || d == EIR_C128 ? EIR_F64 : EIR_F32; }
static double eps_of(eir_dtype d) { return d == EIR_F64 || d == EIR_C128 ? 1e-11 : 3e-5; }

static zc G(const eir_tview *v, int64_t k) { double re, im; getck(v, k, &re, &im); return CMPLX(re, im); }
static void S(const eir_tview *v, int64_t k, zc x) { setck(v, k, creal(x), cimag(x)); }

/* the whole view as a row-major array */
static zc *load(const eir_tview *v) {
    int64_t n = numel(v);
    zc *a = malloc((size_t)(n + 1) * sizeof *a);
    for (int64_t k = 0; k < n; k++) a[k] = G(v, k);
    return a;
}

/* random matrices plus n I on every n x n block of the last two dims (well conditioned) */
static void fill_wc(const eir_tview *v) {
    fill_rand(v);
    int64_t n = v->sizes[v->rank - 1], r = v->sizes[v->rank - 2], cnt = numel(v) / (n * r > 0 ? n * r : 1);
    for (int64_t b = 0; b < cnt; b++)
        for (int64_t i = 0; i < (r < n ? r : n); i++) S(v, b * r * n + i * n + i, G(v, b * r * n + i * n + i) + (double)n + 1);
}
/* Hermitian positive definite: X X^H + n I */
static void fill_spd(const eir_tview *v) {
    int64_t n = v->sizes[v->rank - 1], cnt = numel(v) / (n * n > 0 ? n * n : 1);
    for (int64_t b = 0; b < cnt; b++) {
        zc x[64];
        for (int64_t k = 0; k < n * n; k++) x[k] = CMPLX(urand(), cpx(v->dtype) ? urand() : 0);
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < n; j++) {
                zc s = i == j ? (double)n : 0;
                for (int64_t k = 0; k < n; k++) s += x[i * n + k] * conj(x[j * n + k]);
                S(v, b * n * n + i * n + j, s);
            }
    }
}

/* max |a - b| / (1 + max|b|) over n values */
static double maxdiff(const zc *a, const zc *b, int64_t n) {
    double m = 0, s = 0;
    for (int64_t k = 0; k < n; k++) s = fmax(s, cabs(b[k]));
    for (int64_t k = 0; k < n; k++) m = fmax(m, cabs(a[k] - b[k]));
    return m / (1 + s);
}

/* C (r x c) = A (r x k) B (k x c), row-major blocks */
static void mm(zc *C, const zc *A, const zc *B, int64_t r, int64_t k, int64_t c) {
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++) {
            zc s = 0;
            for (int64_t q = 0; q < k; q++) s += A[i * k + q] * B[q * c + j];
            C[i * c + j] = s;
        }
}
/* conjugate transpose of an r x c block */
static void ct_(zc *T, const zc *A, int64_t r, int64_t c) {
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < c; j++) T[j * r + i] = conj(A[i * c + j]);
}
static double eye_err(const zc *A, int64_t n) {
    double m = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) m = fmax(m, cabs(A[i * n + j] - (i == j ? 1.0 : 0.0)));
    return m;
}

/* determinant by cofactor expansion along the first row */
static zc cofactor_det(const zc *A, int n) {
    if (n == 0) return 1;
    if (n == 1) return A[0];
    zc d = 0, sub[25];
    for (int c = 0; c < n; c++) {
        int k = 0;
        for (int i = 1; i < n; i++)
            for (int j = 0; j < n; j++)
                if (j != c) sub[k++] = A[i * n + j];
        d += (c % 2 ? -1.0 : 1.0) * A[c] * cofactor_det(sub, n - 1);
    }
    return d;
}

static tt T3(eir_dtype dt, int64_t a, int64_t b, int64_t c, int layout) { int64_t s[3] = {a, b, c}; return tnew(dt, 3, s, layout); }
static tt T2(eir_dtype dt, int64_t a, int64_t b, int layout) { int64_t s[2] = {a, b}; return tnew(dt, 2, s, layout); }
static tt T1(eir_dtype dt, int64_t a) { int64_t s[1] = {a}; return tnew(dt, 1, s, 0); }
static tt T0(eir_dtype dt) { return tnew(dt, 0, NULL, 0); }

/* ---- det, slogdet, logdet ---- */

static void test_det(void) {
    for (int di = 0; di < 4; di++)
        for (int n = 0; n <= 5; n++) {
            eir_dtype dt = DT4[di];
            int64_t bs[2] = {2, 3}, sz[4] = {2, 3, n, n};
            tt A = tnew(dt, 4, sz, (n + di) % 3);
            fill_rand(&A.v);
            tt det = tnew(dt, 2, bs, 0), sg = tnew(dt, 2, bs, 1), la = tnew(realof(dt), 2, bs, 0), ld = tnew(dt, 2, bs, 0);
            tt LU = tnew(dt, 4, sz, 1);
            int64_t ps[3] = {2, 3, n};
            tt piv = tnew(EIR_I32, 3, ps, 0);
            eir_karg a[1] = {KT(&A.v)};
            eir_tview o3[3] = {det.v, LU.v, piv.v}, o2[2] = {sg.v, la.v};
            CHECK(lrun("aten._linalg_det.default", a, 1, o3, 3) == 0);
            CHECK(lrun("aten.linalg_slogdet.default", a, 1, o2, 2) == 0);
            CHECK(lrun("aten.logdet.default", a, 1, &ld.v, 1) == 0);
            zc *M = load(&A.v);
            double e = 0, es = 0, el = 0;
            for (int b = 0; b < 6; b++) {
                zc want = cofactor_det(M + b * n * n, n), got = G(&det.v, b);
                e = fmax(e, cabs(got - want) / (1 + cabs(want)));
                zc s = G(&sg.v, b);
                double l = creal(G(&la.v, b));
                es = fmax(es, cabs(s * exp(l) - want) / (1 + cabs(want)));
                zc lg = G(&ld.v, b);
                if (cpx(dt)) el = fmax(el, cabs(cexp(lg) - want) / (1 + cabs(want)));
                else if (creal(want) > 0) el = fmax(el, fabs(exp(creal(lg)) - creal(want)) / (1 + cabs(want)));
                else CHECK(isnan(creal(lg)));
            }
            CHECK(e < eps_of(dt) * 10);
            CHECK(es < eps_of(dt) * 10);
            CHECK(el < eps_of(dt) * 10);
            if (e >= eps_of(dt) * 10) fprintf(stderr, "det n=%d %s: %g\n", n, eir_torch_dtype_name(dt), e);
            free(M);
            tfree(&A); tfree(&det); tfree(&sg); tfree(&la); tfree(&ld); tfree(&LU); tfree(&piv);
        }
    /* singular: det 0, sign 0, logabsdet -inf; empty batch */
    tt A = T3(EIR_F64, 1, 2, 2, 0), d = T1(EIR_F64, 1), s = T1(EIR_F64, 1), l = T1(EIR_F64, 1);
    double v[4] = {1, 2, 2, 4};
    for (int k = 0; k < 4; k++) setk(&A.v, k, v[k]);
    eir_karg a[1] = {KT(&A.v)};
    eir_tview o2[2] = {s.v, l.v};
    CHECK(lrun("aten.linalg_det.default", a, 1, &d.v, 1) == 0 && getk(&d.v, 0) == 0);
    CHECK(lrun("aten.linalg_slogdet.default", a, 1, o2, 2) == 0 && getk(&s.v, 0) == 0 && isinf(getk(&l.v, 0)) && getk(&l.v, 0) < 0);
    tt E = T3(EIR_F32, 0, 3, 3, 0), ed = T1(EIR_F32, 0);
    eir_karg ea[1] = {KT(&E.v)};
    CHECK(lrun("aten.det.default", ea, 1, &ed.v, 1) == 0);
    tt Iv = T2(EIR_I64, 2, 2, 0), id = T0(EIR_I64);
    eir_karg ia[1] = {KT(&Iv.v)};
    CHECK_FAILS(lrun("aten.linalg_det.default", ia, 1, &id.v, 1), "linalg.det: Expected a floating point or complex tensor as input. Got Long");
    tfree(&A); tfree(&d); tfree(&s); tfree(&l); tfree(&E); tfree(&ed); tfree(&Iv); tfree(&id);
}

/* ---- inverses and solves ---- */

static void test_inv(void) {
    for (int di = 0; di < 4; di++)
        for (int n = 1; n <= 6; n += 2) {
            eir_dtype dt = DT4[di];
            tt A = T3(dt, 3, n, n, di % 3), X = T3(dt, 3, n, n, (di + 1) % 3), info = T1(EIR_I32, 3);
            fill_wc(&A.v);
            eir_karg a[2] = {KT(&A.v), KB(true)};
            eir_tview o[2] = {X.v, info.v};
            CHECK(lrun("aten.linalg_inv_ex.default", a, 2, o, 2) == 0);
            zc *M = load(&A.v), *Xi = load(&X.v), P[36];
            double e = 0;
            for (int b = 0; b < 3; b++) {
                mm(P, M + b * n * n, Xi + b * n * n, n, n, n);
                e = fmax(e, eye_err(P, n));
                CHECK(getk(&info.v, b) == 0);
            }
            CHECK(e < eps_of(dt) * 10);
            free(M); free(Xi);
            tfree(&A); tfree(&X); tfree(&info);
        }
    /* singular in batch element 1: the message torch gives, and the info codes of _ex */
    tt A = T3(EIR_F64, 2, 3, 3, 0), X = T3(EIR_F64, 2, 3, 3, 0), info = T1(EIR_I32, 2);
    double v[18] = {2, 0, 0, 0, 2, 0, 0, 0, 2, 1, 2, 3, 2, 4, 6, 0, 1, 1};
    for (int k = 0; k < 18; k++) setk(&A.v, k, v[k]);
    eir_karg a[1] = {KT(&A.v)};
    CHECK_FAILS(lrun("aten.linalg_inv.default", a, 1, &X.v, 1),
                "linalg.inv: (Batch element 1): The diagonal element 3 is zero, the inversion could not be completed because the input matrix is singular.");
    eir_tview o[2] = {X.v, info.v};
    CHECK(lrun("aten.linalg_inv_ex.default", a, 1, o, 2) == 0 && getk(&info.v, 0) == 0 && getk(&info.v, 1) == 3);
    eir_karg b[2] = {KT(&A.v), KB(true)};
    CHECK_FAILS(lrun("aten.linalg_inv_ex.default", b, 2, o, 2), "linalg.inv_ex: (Batch element 1): The diagonal element 3 is zero");
    tt H = T2(EIR_F16, 2, 2, 0), Ho = T2(EIR_F16, 2, 2, 0);
    eir_karg h[1] = {KT(&H.v)};
    CHECK_FAILS(lrun("aten.linalg_inv.default", h, 1, &Ho.v, 1), "linalg.inv: Low precision dtypes not supported. Got Half");
    tfree(&A); tfree(&X); tfree(&info); tfree(&H); tfree(&Ho);
}

static void test_solve(void) {
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di];
        int64_t n = 4, k = 3;
        /* A (1, n, n) broadcast against B (3, n, k); result (3, n, k); LU / pivots / info have A's batch */
        tt A = T3(dt, 1, n, n, 1), B = T3(dt, 3, n, k, 2), X = T3(dt, 3, n, k, di % 2), LU = T3(dt, 1, n, n, 1);
        tt piv = T2(EIR_I32, 1, n, 0), info = T1(EIR_I32, 1);
        fill_wc(&A.v);
        fill_rand(&B.v);
        eir_karg a[4] = {KT(&A.v), KT(&B.v), KB(true), KB(true)};
        eir_tview o[4] = {X.v, LU.v, piv.v, info.v};
        CHECK(lrun("aten._linalg_solve_ex.default", a, 4, o, 4) == 0);
        zc *M = load(&A.v), *Bv = load(&B.v), *Xv = load(&X.v), P[16];
        double e = 0;
        for (int b = 0; b < 3; b++) {
            mm(P, M, Xv + b * n * k, n, n, k);
            e = fmax(e, maxdiff(P, Bv + b * n * k, n * k));
        }
        CHECK(e < eps_of(dt) * 10);
        /* left=False: X A = B with B (3, k, n) */
        tt Bt = T3(dt, 3, k, n, 1), Xt = T3(dt, 3, k, n, 0);
        fill_rand(&Bt.v);
        eir_karg c[3] = {KT(&A.v), KT(&Bt.v), KB(false)};
        CHECK(lrun("aten.linalg_solve.default", c, 3, &Xt.v, 1) == 0);
        zc *Btv = load(&Bt.v), *Xtv = load(&Xt.v);
        e = 0;
        for (int b = 0; b < 3; b++) {
            mm(P, Xtv + b * n * k, M, k, n, n);
            e = fmax(e, maxdiff(P, Btv + b * n * k, n * k));
        }
        CHECK(e < eps_of(dt) * 10);
        /* vector right-hand side: B (n) */
        tt bv = T1(dt, n), xv = T1(dt, n);
        fill_rand(&bv.v);
        tt A2 = T2(dt, n, n, 2);
        fill_wc(&A2.v);
        eir_karg d[2] = {KT(&A2.v), KT(&bv.v)};
        CHECK(lrun("aten.linalg_solve.default", d, 2, &xv.v, 1) == 0);
        zc *A2v = load(&A2.v), *bb = load(&bv.v), *xx = load(&xv.v);
        mm(P, A2v, xx, n, n, 1);
        CHECK(maxdiff(P, bb, n) < eps_of(dt) * 10);
        free(M); free(Bv); free(Xv); free(Btv); free(Xtv); free(A2v); free(bb); free(xx);
        tfree(&A); tfree(&B); tfree(&X); tfree(&LU); tfree(&piv); tfree(&info); tfree(&Bt); tfree(&Xt); tfree(&bv); tfree(&xv); tfree(&A2);
    }
    tt A = T2(EIR_F32, 2, 2, 0), B = T2(EIR_F32, 2, 1, 0), X = T2(EIR_F32, 2, 1, 0);
    eir_karg a[2] = {KT(&A.v), KT(&B.v)};
    CHECK_FAILS(lrun("aten.linalg_solve.default", a, 2, &X.v, 1), "torch.linalg.solve: The solver failed because the input matrix is singular.");
    tfree(&A); tfree(&B); tfree(&X);
}

static void test_triangular(void) {
    for (int di = 0; di < 4; di++)
        for (int var = 0; var < 6; var++) {
            eir_dtype dt = DT4[di];
            int64_t n = 4, k = 3;
            bool upper = var & 1, left = var < 4, unit = var == 2 || var == 5;
            tt A = T3(dt, 2, n, n, var % 3);
            fill_wc(&A.v);
            tt B = left ? T3(dt, 2, n, k, 1) : T3(dt, 2, k, n, 1), X = left ? T3(dt, 2, n, k, 0) : T3(dt, 2, k, n, 2);
            fill_rand(&B.v);
            eir_karg a[5] = {KT(&A.v), KT(&B.v), KB(upper), KB(left), KB(unit)};
            CHECK(lrun("aten.linalg_solve_triangular.default", a, 5, &X.v, 1) == 0);
            zc *M = load(&A.v), *Bv = load(&B.v), *Xv = load(&X.v), P[16], Tm[16];
            double e = 0;
            for (int b = 0; b < 2; b++) {
                for (int64_t i = 0; i < n; i++) /* only the triangle (and the diagonal unless unit) is used */
                    for (int64_t j = 0; j < n; j++) Tm[i * n + j] = i == j ? (unit ? 1 : M[b * n * n + i * n + j]) : (upper ? j > i : j < i) ? M[b * n * n + i * n + j] : 0;
                if (left) mm(P, Tm, Xv + b * n * k, n, n, k);
                else mm(P, Xv + b * n * k, Tm, k, n, n);
                e = fmax(e, maxdiff(P, Bv + b * n * k, n * k));
            }
            CHECK(e < eps_of(dt) * 10);
            if (var == 0) { /* triangular_solve(B, A, upper, transpose): op(A) = A^T, and A is cloned out */
                tt C = T3(dt, 2, n, n, 0), Y = T3(dt, 2, n, k, 1);
                eir_karg t[5] = {KT(&B.v), KT(&A.v), KB(false), KB(true), KB(false)};
                eir_tview o[2] = {Y.v, C.v};
                CHECK(lrun("aten.triangular_solve.default", t, 5, o, 2) == 0);
                zc *Yv = load(&Y.v), *Cv = load(&C.v);
                e = 0;
                for (int b = 0; b < 2; b++) {
                    for (int64_t i = 0; i < n; i++)
                        for (int64_t j = 0; j < n; j++) Tm[j * n + i] = j <= i ? M[b * n * n + i * n + j] : 0; /* (lower A)^T */
                    mm(P, Tm, Yv + b * n * k, n, n, k);
                    e = fmax(e, maxdiff(P, Bv + b * n * k, n * k));
                }
                CHECK(e < eps_of(dt) * 10);
                CHECK(maxdiff(Cv, M, 2 * n * n) == 0);
                free(Yv); free(Cv);
                tfree(&C); tfree(&Y);
            }
            free(M); free(Bv); free(Xv);
            tfree(&A); tfree(&B); tfree(&X);
        }
}

/* ---- Cholesky, LU, LDL ---- */

static void test_cholesky(void) {
    for (int di = 0; di < 4; di++)
        for (int upper = 0; upper < 2; upper++) {
            eir_dtype dt = DT4[di];
            int64_t n = 5;
            tt A = T3(dt, 2, n, n, di % 3), Lo = T3(dt, 2, n, n, (di + upper) % 3), info = T1(EIR_I32, 2);
            fill_spd(&A.v);
            eir_karg a[3] = {KT(&A.v), KB(upper), KB(true)};
            eir_tview o[2] = {Lo.v, info.v};
            CHECK(lrun("aten.linalg_cholesky_ex.default", a, 3, o, 2) == 0);
            zc *M = load(&A.v), *Lv = load(&Lo.v), H[25], P[25];
            double e = 0, tri = 0;
            for (int b = 0; b < 2; b++) {
                zc *Lb = Lv + b * n * n;
                ct_(H, Lb, n, n);
                if (upper) mm(P, H, Lb, n, n, n); /* U^H U */
                else mm(P, Lb, H, n, n, n);       /* L L^H */
                e = fmax(e, maxdiff(P, M + b * n * n, n * n));
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = 0; j < n; j++)
                        if (upper ? i > j : j > i) tri = fmax(tri, cabs(Lb[i * n + j]));
            }
            CHECK(e < eps_of(dt) * 10);
            CHECK(tri == 0);
            /* cholesky_inverse(L) A = I; cholesky_solve(B, L) */
            tt Ai = T3(dt, 2, n, n, 2), B = T3(dt, 1, n, 2, 1), X = T3(dt, 2, n, 2, 0);
            eir_karg c[2] = {KT(&Lo.v), KB(upper)};
            CHECK(lrun("aten.cholesky_inverse.default", c, 2, &Ai.v, 1) == 0);
            fill_rand(&B.v);
            eir_karg s[3] = {KT(&B.v), KT(&Lo.v), KB(upper)};
            CHECK(lrun("aten.cholesky_solve.default", s, 3, &X.v, 1) == 0);
            zc *Aiv = load(&Ai.v), *Bv = load(&B.v), *Xv = load(&X.v);
            double ei = 0, es = 0;
            for (int b = 0; b < 2; b++) {
                mm(P, Aiv + b * n * n, M + b * n * n, n, n, n);
                ei = fmax(ei, eye_err(P, n));
                mm(P, M + b * n * n, Xv + b * n * 2, n, n, 2);
                es = fmax(es, maxdiff(P, Bv, n * 2));
            }
            CHECK(ei < eps_of(dt) * 10);
            CHECK(es < eps_of(dt) * 10);
            free(M); free(Lv); free(Aiv); free(Bv); free(Xv);
            tfree(&A); tfree(&Lo); tfree(&info); tfree(&Ai); tfree(&B); tfree(&X);
        }
    /* not positive-definite: info = the order of the failing minor; torch's messages */
    tt A = T3(EIR_F32, 2, 2, 2, 0), L = T3(EIR_F32, 2, 2, 2, 0), info = T1(EIR_I32, 2);
    double v[8] = {1, 0, 0, 1, 1, 2, 2, 1};
    for (int k = 0; k < 8; k++) setk(&A.v, k, v[k]);
    eir_karg a[1] = {KT(&A.v)};
    eir_tview o[2] = {L.v, info.v};
    CHECK(lrun("aten.linalg_cholesky_ex.default", a, 1, o, 2) == 0 && getk(&info.v, 0) == 0 && getk(&info.v, 1) == 2);
    CHECK_FAILS(lrun("aten.linalg_cholesky.default", a, 1, &L.v, 1),
                "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite).");
    CHECK_FAILS(lrun("aten.cholesky.default", a, 1, &L.v, 1), "cholesky: (Batch element 1): The factorization could not be completed");
    tt Z = T2(EIR_F64, 2, 2, 0), Zi = T2(EIR_F64, 2, 2, 0);
    setk(&Z.v, 0, 1);
    eir_karg z[1] = {KT(&Z.v)};
    CHECK_FAILS(lrun("aten.cholesky_inverse.default", z, 1, &Zi.v, 1),
                "cholesky_inverse: The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular.");
    tfree(&A); tfree(&L); tfree(&info); tfree(&Z); tfree(&Zi);
}

static void test_lu(void) {
    const int64_t shapes[3][2] = {{4, 4}, {5, 3}, {3, 5}};
    for (int di = 0; di < 4; di++)
        for (int si = 0; si < 3; si++) {
            eir_dtype dt = DT4[di];
            int64_t m = shapes[si][0], n = shapes[si][1], k = m < n ? m : n;
            tt A = T3(dt, 2, m, n, si % 3);
            fill_rand(&A.v);
            tt P = T3(dt, 2, m, m, 1), Lo = T3(dt, 2, m, k, 0), U = T3(dt, 2, k, n, 2);
            eir_karg a[2] = {KT(&A.v), KB(true)};
            eir_tview o[3] = {P.v, Lo.v, U.v};
            CHECK(lrun("aten.linalg_lu.default", a, 2, o, 3) == 0);
            zc *M = load(&A.v), *Pv = load(&P.v), *Lv = load(&Lo.v), *Uv = load(&U.v), LUm[25], R[25];
            double e = 0;
            for (int b = 0; b < 2; b++) {
                mm(LUm, Lv + b * m * k, Uv + b * k * n, m, k, n);
                mm(R, Pv + b * m * m, LUm, m, m, n);
                e = fmax(e, maxdiff(R, M + b * m * n, m * n));
                for (int64_t i = 0; i < m; i++)
                    for (int64_t j = 0; j < k; j++) CHECK(j > i ? Lv[b * m * k + i * k + j] == 0 : j < i || Lv[b * m * k + i * k + j] == 1);
            }
            CHECK(e < eps_of(dt) * 10);
            /* lu_factor + lu_unpack gives the same P, L, U */
            tt LU = T3(dt, 2, m, n, 1), piv = T2(EIR_I32, 2, k, 0), info = T1(EIR_I32, 2);
            eir_tview f[3] = {LU.v, piv.v, info.v};
            CHECK(lrun("aten.linalg_lu_factor_ex.default", a, 2, f, 3) == 0);
            tt P2 = T3(dt, 2, m, m, 0), L2 = T3(dt, 2, m, k, 1), U2 = T3(dt, 2, k, n, 0);
            eir_karg u[4] = {KT(&LU.v), KT(&piv.v), KB(true), KB(true)};
            eir_tview uo[3] = {P2.v, L2.v, U2.v};
            CHECK(lrun("aten.lu_unpack.default", u, 4, uo, 3) == 0);
            zc *P2v = load(&P2.v), *L2v = load(&L2.v), *U2v = load(&U2.v);
            CHECK(maxdiff(P2v, Pv, 2 * m * m) == 0 && maxdiff(L2v, Lv, 2 * m * k) == 0 && maxdiff(U2v, Uv, 2 * k * n) == 0);
            if (m == n) { /* lu_solve, all four forms */
                for (int form = 0; form < 4; form++) {
                    bool left = form < 2, adj = form & 1;
                    tt B = left ? T3(dt, 2, n, 2, 1) : T3(dt, 2, 2, n, 1), X = left ? T3(dt, 2, n, 2, 2) : T3(dt, 2, 2, n, 0);
                    fill_rand(&B.v);
                    eir_karg s[5] = {KT(&LU.v), KT(&piv.v), KT(&B.v), KB(left), KB(adj)};
                    CHECK(lrun("aten.linalg_lu_solve.default", s, 5, &X.v, 1) == 0);
                    zc *Bv = load(&B.v), *Xv = load(&X.v), Op[16];
                    double es = 0;
                    for (int b = 0; b < 2; b++) {
                        if (adj) ct_(Op, M + b * n * n, n, n);
                        else memcpy(Op, M + b * n * n, sizeof(zc) * (size_t)(n * n));
                        if (left) mm(R, Op, Xv + b * n * 2, n, n, 2);
                        else mm(R, Xv + b * n * 2, Op, 2, n, n);
                        es = fmax(es, maxdiff(R, Bv + b * n * 2, n * 2));
                    }
                    CHECK(es < eps_of(dt) * 10);
                    free(Bv); free(Xv);
                    tfree(&B); tfree(&X);
                }
                /* pivots out of range never reach LAPACK */
                tt B = T3(dt, 2, n, 1, 0), X = T3(dt, 2, n, 1, 0);
                setk(&piv.v, 1, (double)(n + 1));
                eir_karg s[3] = {KT(&LU.v), KT(&piv.v), KT(&B.v)};
                CHECK_FAILS(lrun("aten.linalg_lu_solve.default", s, 3, &X.v, 1), "Pivots given to lu_solve must all be smaller or equal to LU.size(-2)");
                setk(&piv.v, 1, 0);
                CHECK_FAILS(lrun("aten.linalg_lu_solve.default", s, 3, &X.v, 1), "Pivots given to lu_solve must all be greater or equal to 1");
                CHECK_FAILS(lrun("aten.lu_unpack.default", u, 4, uo, 3), "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive");
                tfree(&B); tfree(&X);
            }
            free(M); free(Pv); free(Lv); free(Uv); free(P2v); free(L2v); free(U2v);
            tfree(&A); tfree(&P); tfree(&Lo); tfree(&U); tfree(&LU); tfree(&piv); tfree(&info); tfree(&P2); tfree(&L2); tfree(&U2);
        }
    /* a singular matrix: lu_factor raises, _lu_with_info reports */
    tt A = T2(EIR_F64, 2, 2, 0), LU = T2(EIR_F64, 2, 2, 0), piv = T1(EIR_I32, 2), info = T0(EIR_I32);
    setk(&A.v, 0, 1); setk(&A.v, 1, 2); setk(&A.v, 2, 2); setk(&A.v, 3, 4);
    eir_karg a[1] = {KT(&A.v)};
    eir_tview o[3] = {LU.v, piv.v, info.v};
    CHECK_FAILS(lrun("aten.linalg_lu_factor.default", a, 1, o, 2),
                "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a division by zero.");
    CHECK(lrun("aten._lu_with_info.default", a, 1, o, 3) == 0 && getk(&info.v, 0) == 2);
    eir_karg np[2] = {KT(&A.v), KB(false)};
    CHECK_FAILS(lrun("aten.linalg_lu_factor_ex.default", np, 2, o, 3), "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
    tfree(&A); tfree(&LU); tfree(&piv); tfree(&info);
}

static void test_ldl(void) {
    for (int di = 0; di < 4; di++)
        for (int herm = 0; herm < 2; herm++) {
            eir_dtype dt = DT4[di];
            int64_t n = 5;
            tt A = T3(dt, 2, n, n, 0), LD = T3(dt, 2, n, n, 1), piv = T2(EIR_I32, 2, n, 0), info = T1(EIR_I32, 2);
            fill_rand(&A.v);
            /* symmetric (hermitian) and indefinite, so 2 x 2 pivots occur */
            for (int b = 0; b < 2; b++)
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = 0; j < i; j++) { zc x = G(&A.v, b * n * n + i * n + j); S(&A.v, b * n * n + j * n + i, herm ? conj(x) : x); }
            if (herm)
                for (int b = 0; b < 2; b++)
                    for (int64_t i = 0; i < n; i++) S(&A.v, b * n * n + i * n + i, creal(G(&A.v, b * n * n + i * n + i)));
            eir_karg a[3] = {KT(&A.v), KB(herm), KB(true)};
            eir_tview o[3] = {LD.v, piv.v, info.v};
            CHECK(lrun("aten.linalg_ldl_factor_ex.default", a, 3, o, 3) == 0);
            tt B = T3(dt, 2, n, 2, 1), X = T3(dt, 2, n, 2, 2);
            fill_rand(&B.v);
            eir_karg s[4] = {KT(&LD.v), KT(&piv.v), KT(&B.v), KB(herm)};
            CHECK(lrun("aten.linalg_ldl_solve.default", s, 4, &X.v, 1) == 0);
            zc *M = load(&A.v), *Bv = load(&B.v), *Xv = load(&X.v), R[10];
            double e = 0;
            for (int b = 0; b < 2; b++) {
                mm(R, M + b * n * n, Xv + b * n * 2, n, n, 2);
                e = fmax(e, maxdiff(R, Bv + b * n * 2, n * 2));
            }
            CHECK(e < eps_of(dt) * 100);
            for (int64_t i = 0; i < n; i++) /* the strict upper triangle of LD is zero */
                for (int64_t j = i + 1; j < n; j++) CHECK(G(&LD.v, i * n + j) == 0);
            /* a negative pivot must start a 2 x 2 block that ends inside the matrix */
            setk(&piv.v, n - 1, -1);
            CHECK_FAILS(lrun("aten.linalg_ldl_solve.default", s, 4, &X.v, 1), "invalid pivots");
            free(M); free(Bv); free(Xv);
            tfree(&A); tfree(&LD); tfree(&piv); tfree(&info); tfree(&B); tfree(&X);
        }
    tt Z = T2(EIR_F64, 2, 2, 0), LD = T2(EIR_F64, 2, 2, 0), piv = T1(EIR_I32, 2);
    eir_karg z[1] = {KT(&Z.v)};
    eir_tview o[2] = {LD.v, piv.v};
    CHECK_FAILS(lrun("aten.linalg_ldl_factor.default", z, 1, o, 2), "torch.linalg.ldl_factor: Unknown error code: 1.");
    tfree(&Z); tfree(&LD); tfree(&piv);
}

/* ---- QR ---- */

static void test_qr(void) {
    const int64_t shapes[2][2] = {{5, 3}, {3, 5}};
    for (int di = 0; di < 4; di++)
        for (int si = 0; si < 2; si++)
            for (int mode = 0; mode < 3; mode++) { /* reduced, complete, r */
                eir_dtype dt = DT4[di];
                int64_t m = shapes[si][0], n = shapes[si][1], k = m < n ? m : n;
                int64_t qc = mode == 0 ? k : mode == 1 ? m : 0, rr = mode == 1 ? m : k;
                tt A = T3(dt, 2, m, n, (si + mode) % 3), Q = mode == 2 ? T1(dt, 0) : T3(dt, 2, m, qc, mode % 2), R = T3(dt, 2, rr, n, 2);
                fill_rand(&A.v);
                const char *names[3] = {"reduced", "complete", "r"};
                eir_karg a[2] = {KT(&A.v), KSTR(names[mode])};
                eir_tview o[2] = {Q.v, R.v};
                CHECK(lrun("aten.linalg_qr.default", a, 2, o, 2) == 0);
                zc *M = load(&A.v), *Rv = load(&R.v);
                for (int b = 0; b < 2; b++)
                    for (int64_t i = 0; i < rr; i++)
                        for (int64_t j = 0; j < i && j < n; j++) CHECK(Rv[b * rr * n + i * n + j] == 0);
                if (mode < 2) {
                    zc *Qv = load(&Q.v), P[25], H[25];
                    double e = 0, eu = 0;
                    for (int b = 0; b < 2; b++) {
                        mm(P, Qv + b * m * qc, Rv + b * rr * n, m, qc, n);
                        e = fmax(e, maxdiff(P, M + b * m * n, m * n));
                        ct_(H, Qv + b * m * qc, m, qc);
                        mm(P, H, Qv + b * m * qc, qc, m, qc);
                        eu = fmax(eu, eye_err(P, qc));
                    }
                    CHECK(e < eps_of(dt) * 10);
                    CHECK(eu < eps_of(dt) * 10);
                    free(Qv);
                }
                free(M); free(Rv);
                tfree(&A); tfree(&Q); tfree(&R);
            }
    /* geqrf -> householder_product gives the reduced Q; ormqr applies Q^H */
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di];
        int64_t m = 5, n = 3;
        tt A = T2(dt, m, n, 1), G2 = T2(dt, m, n, 0), tau = T1(dt, n), Q = T2(dt, m, n, 2), Qr = T2(dt, m, n, 0), Rr = T2(dt, n, n, 0);
        fill_rand(&A.v);
        eir_karg a[1] = {KT(&A.v)};
        eir_tview o[2] = {G2.v, tau.v};
        CHECK(lrun("aten.geqrf.default", a, 1, o, 2) == 0);
        eir_karg h[2] = {KT(&G2.v), KT(&tau.v)};
        CHECK(lrun("aten.linalg_householder_product.default", h, 2, &Q.v, 1) == 0);
        eir_karg q[2] = {KT(&A.v), KSTR("reduced")};
        eir_tview qo[2] = {Qr.v, Rr.v};
        CHECK(lrun("aten.linalg_qr.default", q, 2, qo, 2) == 0);
        zc *Qv = load(&Q.v), *Qrv = load(&Qr.v);
        CHECK(maxdiff(Qv, Qrv, m * n) < eps_of(dt));
        tt C = T2(dt, m, 2, 1), Y = T2(dt, m, 2, 0), Qf = T2(dt, m, m, 0), Rf = T2(dt, m, n, 0);
        fill_rand(&C.v);
        eir_karg r[5] = {KT(&G2.v), KT(&tau.v), KT(&C.v), KB(true), KB(true)};
        CHECK(lrun("aten.ormqr.default", r, 5, &Y.v, 1) == 0);
        eir_karg qf[2] = {KT(&A.v), KSTR("complete")};
        eir_tview qfo[2] = {Qf.v, Rf.v};
        CHECK(lrun("aten.linalg_qr.default", qf, 2, qfo, 2) == 0);
        zc *Qfv = load(&Qf.v), *Cv = load(&C.v), *Yv = load(&Y.v), H[25], P[10];
        ct_(H, Qfv, m, m);
        mm(P, H, Cv, m, m, 2);
        CHECK(maxdiff(Yv, P, m * 2) < eps_of(dt) * 10);
        free(Qv); free(Qrv); free(Qfv); free(Cv); free(Yv);
        tfree(&A); tfree(&G2); tfree(&tau); tfree(&Q); tfree(&Qr); tfree(&Rr); tfree(&C); tfree(&Y); tfree(&Qf); tfree(&Rf);
    }
}

/* ---- eigenvalues, SVD ---- */

static void test_eigh(void) {
    for (int di = 0; di < 4; di++)
        for (int up = 0; up < 2; up++) {
            eir_dtype dt = DT4[di];
            int64_t n = 5;
            tt A = T3(dt, 2, n, n, up), w = T2(realof(dt), 2, n, 0), V = T3(dt, 2, n, n, 2), w2 = T2(realof(dt), 2, n, 1);
            fill_spd(&A.v);
            for (int64_t k = 0; k < 2 * n * n; k++)
                if (k % (n * n) % (n + 1) == 0) S(&A.v, k, G(&A.v, k) - 6.0); /* indefinite */
            eir_karg a[2] = {KT(&A.v), KSTR(up ? "U" : "L")};
            eir_tview o[2] = {w.v, V.v};
            CHECK(lrun("aten.linalg_eigh.default", a, 2, o, 2) == 0);
            CHECK(lrun("aten.linalg_eigvalsh.default", a, 2, &w2.v, 1) == 0);
            zc *M = load(&A.v), *Vv = load(&V.v), *wv = load(&w.v), *w2v = load(&w2.v), P[25], H[25], D[25];
            double e = 0, eu = 0;
            for (int b = 0; b < 2; b++) {
                zc *Vb = Vv + b * n * n;
                mm(P, M + b * n * n, Vb, n, n, n);
                for (int64_t i = 0; i < n; i++)
                    for (int64_t j = 0; j < n; j++) D[i * n + j] = Vb[i * n + j] * wv[b * n + j];
                e = fmax(e, maxdiff(P, D, n * n));
                ct_(H, Vb, n, n);
                mm(P, H, Vb, n, n, n);
                eu = fmax(eu, eye_err(P, n));
                for (int64_t j = 1; j < n; j++) CHECK(creal(wv[b * n + j]) >= creal(wv[b * n + j - 1]));
            }
            CHECK(e < eps_of(dt) * 10);
            CHECK(eu < eps_of(dt) * 10);
            CHECK(maxdiff(w2v, wv, 2 * n) < eps_of(dt) * 10);
            free(M); free(Vv); free(wv); free(w2v);
            tfree(&A); tfree(&w); tfree(&V); tfree(&w2);
        }
}

static void test_eig(void) {
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di], cd = realof(dt) == EIR_F64 ? EIR_C128 : EIR_C64;
        int64_t n = 5;
        tt A = T3(dt, 2, n, n, di % 3), w = T2(cd, 2, n, 0), V = T3(cd, 2, n, n, 1), w2 = T2(cd, 2, n, 0);
        fill_rand(&A.v);
        eir_karg a[1] = {KT(&A.v)};
        eir_tview o[2] = {w.v, V.v};
        CHECK(lrun("aten.linalg_eig.default", a, 1, o, 2) == 0);
        CHECK(lrun("aten.linalg_eigvals.default", a, 1, &w2.v, 1) == 0);
        zc *M = load(&A.v), *Vv = load(&V.v), *wv = load(&w.v), *w2v = load(&w2.v), P[25], D[25];
        double e = 0, en = 0;
        for (int b = 0; b < 2; b++) {
            zc *Vb = Vv + b * n * n;
            mm(P, M + b * n * n, Vb, n, n, n);
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < n; j++) D[i * n + j] = Vb[i * n + j] * wv[b * n + j];
            e = fmax(e, maxdiff(P, D, n * n));
            for (int64_t j = 0; j < n; j++) {
                double s = 0;
                for (int64_t i = 0; i < n; i++) s += creal(Vb[i * n + j] * conj(Vb[i * n + j]));
                en = fmax(en, fabs(s - 1));
            }
        }
        CHECK(e < eps_of(dt) * 10);
        CHECK(en < eps_of(dt) * 10);
        CHECK(maxdiff(w2v, wv, 2 * n) < eps_of(dt) * 10);
        free(M); free(Vv); free(wv); free(w2v);
        tfree(&A); tfree(&w); tfree(&V); tfree(&w2);
    }
    /* a rotation: eigenvalues +-i from a real matrix */
    tt R = T2(EIR_F64, 2, 2, 0), w = T1(EIR_C128, 2);
    setk(&R.v, 1, -1); setk(&R.v, 2, 1);
    eir_karg r[1] = {KT(&R.v)};
    CHECK(lrun("aten.linalg_eigvals.default", r, 1, &w.v, 1) == 0);
    CHECK(cabs(G(&w.v, 0) * G(&w.v, 1) - 1) < 1e-14 && fabs(cimag(G(&w.v, 0))) > 0.99);
    setk(&R.v, 0, NAN);
    CHECK_FAILS(lrun("aten.linalg_eigvals.default", r, 1, &w.v, 1), "torch.linalg.eig: input tensor should not contain infs or NaNs.");
    tfree(&R); tfree(&w);
}

static void test_svd(void) {
    const int64_t shapes[2][2] = {{5, 3}, {3, 4}};
    for (int di = 0; di < 4; di++)
        for (int si = 0; si < 2; si++)
            for (int full = 0; full < 2; full++) {
                eir_dtype dt = DT4[di];
                int64_t m = shapes[si][0], n = shapes[si][1], k = m < n ? m : n, uc = full ? m : k, vr = full ? n : k;
                tt A = T3(dt, 2, m, n, (si + full) % 3), U = T3(dt, 2, m, uc, 1), Sv = T2(realof(dt), 2, k, 0), Vh = T3(dt, 2, vr, n, 2);
                fill_rand(&A.v);
                eir_karg a[2] = {KT(&A.v), KB(full)};
                eir_tview o[3] = {U.v, Sv.v, Vh.v};
                CHECK(lrun("aten.linalg_svd.default", a, 2, o, 3) == 0);
                zc *M = load(&A.v), *Uv = load(&U.v), *sv = load(&Sv.v), *Vv = load(&Vh.v), US[25], P[25], H[25];
                double e = 0, eu = 0;
                for (int b = 0; b < 2; b++) {
                    for (int64_t i = 0; i < m; i++)
                        for (int64_t j = 0; j < k; j++) US[i * k + j] = Uv[b * m * uc + i * uc + j] * sv[b * k + j];
                    mm(P, US, Vv + b * vr * n, m, k, n); /* the first k rows of Vh */
                    e = fmax(e, maxdiff(P, M + b * m * n, m * n));
                    ct_(H, Uv + b * m * uc, m, uc);
                    mm(P, H, Uv + b * m * uc, uc, m, uc);
                    eu = fmax(eu, eye_err(P, uc));
                    for (int64_t j = 1; j < k; j++) CHECK(creal(sv[b * k + j]) <= creal(sv[b * k + j - 1]));
                }
                CHECK(e < eps_of(dt) * 10);
                CHECK(eu < eps_of(dt) * 10);
                /* torch.svd returns V = Vh^H; svdvals */
                tt U2 = T3(dt, 2, m, uc, 0), S2 = T2(realof(dt), 2, k, 1), V2 = T3(dt, 2, n, vr, 1), S3 = T2(realof(dt), 2, k, 0);
                eir_karg s[3] = {KT(&A.v), KB(!full), KB(true)};
                eir_tview so[3] = {U2.v, S2.v, V2.v};
                CHECK(lrun("aten.svd.default", s, 3, so, 3) == 0);
                eir_karg sv1[1] = {KT(&A.v)};
                CHECK(lrun("aten.linalg_svdvals.default", sv1, 1, &S3.v, 1) == 0);
                zc *V2v = load(&V2.v), *S3v = load(&S3.v), Vt[25];
                for (int b = 0; b < 2; b++) {
                    ct_(Vt, V2v + b * n * vr, n, vr);
                    CHECK(maxdiff(Vt, Vv + b * vr * n, vr * n) < eps_of(dt));
                }
                CHECK(maxdiff(S3v, sv, 2 * k) < eps_of(dt) * 10);
                free(M); free(Uv); free(sv); free(Vv); free(V2v); free(S3v);
                tfree(&A); tfree(&U); tfree(&Sv); tfree(&Vh); tfree(&U2); tfree(&S2); tfree(&V2); tfree(&S3);
            }
    /* compute_uv=False zero-fills U and V; non-finite input fails as LAPACK 3.10+ reports it */
    tt A = T3(EIR_F32, 2, 3, 2, 0), U = T3(EIR_F32, 2, 3, 3, 0), Sv = T2(EIR_F32, 2, 2, 0), V = T3(EIR_F32, 2, 2, 2, 0);
    fill_rand(&A.v);
    fill_poison(&U.v);
    fill_poison(&V.v);
    eir_karg a[3] = {KT(&A.v), KB(false), KB(false)};
    eir_tview o[3] = {U.v, Sv.v, V.v};
    CHECK(lrun("aten.svd.default", a, 3, o, 3) == 0);
    for (int64_t k = 0; k < 18; k++) CHECK(getk(&U.v, k) == 0);
    for (int64_t k = 0; k < 8; k++) CHECK(getk(&V.v, k) == 0);
    setk(&A.v, 8, INFINITY);
    eir_karg b[1] = {KT(&A.v)};
    CHECK_FAILS(lrun("aten.linalg_svdvals.default", b, 1, &Sv.v, 1),
                "linalg.svd: (Batch element 1): The algorithm failed to converge because the input matrix contained non-finite values.");
    tfree(&A); tfree(&U); tfree(&Sv); tfree(&V);
}

/* ---- pinv, matrix_rank, norms, cond ---- */

static void test_pinv_rank(void) {
    for (int di = 0; di < 4; di++)
        for (int herm = 0; herm < 2; herm++) {
            eir_dtype dt = DT4[di];
            int64_t m = herm ? 4 : 5, n = 4;
            /* rank 2 (or, hermitian, B B^H with B 4 x 2) */
            tt A = T3(dt, 2, m, n, herm), X = T3(dt, 2, n, m, 1), rk = T1(EIR_I64, 2);
            zc Bm[10], Cm[8];
            for (int b = 0; b < 2; b++) {
                for (int k = 0; k < 10; k++) Bm[k] = CMPLX(urand(), cpx(dt) ? urand() : 0);
                for (int k = 0; k < 8; k++) Cm[k] = CMPLX(urand(), cpx(dt) ? urand() : 0);
                for (int64_t i = 0; i < m; i++)
                    for (int64_t j = 0; j < n; j++) {
                        zc s = 0;
                        for (int q = 0; q < 2; q++) s += Bm[i * 2 + q] * (herm ? conj(Bm[j * 2 + q]) : Cm[q * n + j]);
                        S(&A.v, b * m * n + i * n + j, s);
                    }
            }
            eir_karg a[4] = {KT(&A.v), KN(), KN(), KB(herm)};
            CHECK(lrun("aten.linalg_pinv.atol_rtol_tensor", a, 4, &X.v, 1) == 0);
            CHECK(lrun("aten.linalg_matrix_rank.atol_rtol_tensor", a, 4, &rk.v, 1) == 0);
            CHECK(getk(&rk.v, 0) == 2 && getk(&rk.v, 1) == 2);
            zc *M = load(&A.v), *Xv = load(&X.v), P[25], Q[25];
            double e1 = 0, e2 = 0;
            for (int b = 0; b < 2; b++) { /* Penrose: A X A = A, X A X = X */
                mm(P, M + b * m * n, Xv + b * n * m, m, n, m);
                mm(Q, P, M + b * m * n, m, m, n);
                e1 = fmax(e1, maxdiff(Q, M + b * m * n, m * n));
                mm(P, Xv + b * n * m, M + b * m * n, n, m, n);
                mm(Q, P, Xv + b * n * m, n, n, m);
                e2 = fmax(e2, maxdiff(Q, Xv + b * n * m, n * m));
            }
            CHECK(e1 < eps_of(dt) * 100);
            CHECK(e2 < eps_of(dt) * 100);
            /* an absolute tolerance above every singular value: rank 0, pinv 0 */
            eir_karg t[3] = {KT(&A.v), KF(1e6), KB(herm)};
            CHECK(lrun("aten.linalg_matrix_rank.default", t, 3, &rk.v, 1) == 0 && getk(&rk.v, 0) == 0);
            CHECK(lrun("aten.linalg_pinv.default", t, 3, &X.v, 1) == 0); /* rcond 1e6: rtol * smax > every s */
            for (int64_t k = 0; k < 2 * n * m; k++) CHECK(cabs(G(&X.v, k)) == 0);
            free(M); free(Xv);
            tfree(&A); tfree(&X); tfree(&rk);
        }
}

static void test_norms(void) {
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di], rt = realof(dt);
        int64_t sz[3] = {2, 3, 4};
        tt A = tnew(dt, 3, sz, 1);
        fill_rand(&A.v);
        zc *M = load(&A.v);
        /* vector norms over dim 2 */
        const double ps[6] = {0, 1, 2, 3, INFINITY, -INFINITY};
        for (int pi = 0; pi < 6; pi++) {
            tt o = T2(rt, 2, 3, 0);
            int64_t d[1] = {2};
            eir_karg a[5] = {KT(&A.v), KF(ps[pi]), KIS(1, d), KB(false), KN()};
            CHECK(lrun("aten.linalg_norm.default", a, 5, &o.v, 1) == 0);
            double want[6];
            for (int r = 0; r < 6; r++) {
                double s = ps[pi] == -INFINITY ? INFINITY : 0;
                for (int j = 0; j < 4; j++) {
                    double v = cabs(M[r * 4 + j]);
                    if (ps[pi] == 0) s += v != 0;
                    else if (ps[pi] == INFINITY) s = fmax(s, v);
                    else if (ps[pi] == -INFINITY) s = fmin(s, v);
                    else s += pow(v, ps[pi]);
                }
                want[r] = ps[pi] == 0 || isinf(ps[pi]) ? s : pow(s, 1 / ps[pi]);
            }
            double *w = rounded(&o.v, want);
            CHECK(close_to(&o.v, w, tol_of(rt) * 4, "vector norm"));
            free(w);
            tfree(&o);
        }
        /* matrix norms over dims (2, 0) with keepdim: per index of dim 1, the 4 x 2 matrix M[:, i, :]^T */
        const double mo[6] = {1, -1, 2, -2, INFINITY, -INFINITY};
        for (int oi = 0; oi < 8; oi++) {
            int64_t ks[3] = {1, 3, 1};
            tt o = tnew(rt, 3, ks, 0);
            int64_t d[2] = {2, 0};
            eir_karg a[5] = {KT(&A.v), oi < 6 ? KF(mo[oi]) : KSTR(oi == 6 ? "fro" : "nuc"), KIS(2, d), KB(true), KN()};
            CHECK(lrun(oi < 6 ? "aten.linalg_matrix_norm.default" : "aten.linalg_matrix_norm.str_ord", a, 5, &o.v, 1) == 0);
            double want[3];
            for (int i = 0; i < 3; i++) {
                zc T[8]; /* rows: dim 2 (4), cols: dim 0 (2) */
                for (int r = 0; r < 4; r++)
                    for (int c = 0; c < 2; c++) T[r * 2 + c] = M[c * 12 + i * 4 + r];
                double colsum[2] = {0, 0}, rowsum[4] = {0, 0, 0, 0}, fro = 0;
                for (int r = 0; r < 4; r++)
                    for (int c = 0; c < 2; c++) { double v = cabs(T[r * 2 + c]); colsum[c] += v; rowsum[r] += v; fro += v * v; }
                /* singular values of a 4 x 2 matrix from the eigenvalues of T^H T (2 x 2 hermitian) */
                zc g00 = 0, g01 = 0, g11 = 0;
                for (int r = 0; r < 4; r++) { g00 += conj(T[r * 2]) * T[r * 2]; g01 += conj(T[r * 2]) * T[r * 2 + 1]; g11 += conj(T[r * 2 + 1]) * T[r * 2 + 1]; }
                double tr = creal(g00 + g11), det = creal(g00 * g11) - creal(g01 * conj(g01));
                double disc = sqrt(fmax(tr * tr / 4 - det, 0)), s1 = sqrt(tr / 2 + disc), s2 = sqrt(fmax(tr / 2 - disc, 0));
                switch (oi) {
                case 0: want[i] = fmax(colsum[0], colsum[1]); break;
                case 1: want[i] = fmin(colsum[0], colsum[1]); break;
                case 2: want[i] = s1; break;
                case 3: want[i] = s2; break;
                case 4: want[i] = fmax(fmax(rowsum[0], rowsum[1]), fmax(rowsum[2], rowsum[3])); break;
                case 5: want[i] = fmin(fmin(rowsum[0], rowsum[1]), fmin(rowsum[2], rowsum[3])); break;
                case 6: want[i] = sqrt(fro); break;
                default: want[i] = s1 + s2; break;
                }
            }
            double *w = rounded(&o.v, want);
            CHECK(close_to(&o.v, w, tol_of(rt) * 10, "matrix norm"));
            free(w);
            tfree(&o);
        }
        /* cond = ||A|| ||A^-1|| (1-norm), and smax / smin */
        tt W = T2(dt, 3, 3, 2), c1 = T0(rt), c2 = T0(rt), X = T2(dt, 3, 3, 0), n1 = T0(rt), n2 = T0(rt);
        fill_wc(&W.v);
        eir_karg ca[2] = {KT(&W.v), KF(1)}, cb[2] = {KT(&W.v), KN()};
        CHECK(lrun("aten.linalg_cond.default", ca, 2, &c1.v, 1) == 0);
        CHECK(lrun("aten.linalg_cond.default", cb, 2, &c2.v, 1) == 0);
        eir_karg ia[1] = {KT(&W.v)};
        CHECK(lrun("aten.linalg_inv.default", ia, 1, &X.v, 1) == 0);
        int64_t d01[2] = {0, 1};
        eir_karg na_[5] = {KT(&W.v), KF(1), KIS(2, d01), KB(false), KN()}, nb_[5] = {KT(&X.v), KF(1), KIS(2, d01), KB(false), KN()};
        CHECK(lrun("aten.linalg_matrix_norm.default", na_, 5, &n1.v, 1) == 0 && lrun("aten.linalg_matrix_norm.default", nb_, 5, &n2.v, 1) == 0);
        double want1 = getk(&n1.v, 0) * getk(&n2.v, 0);
        CHECK(fabs(getk(&c1.v, 0) - want1) <= tol_of(rt) * 10 * want1);
        eir_karg n2a[5] = {KT(&W.v), KF(2), KIS(2, d01), KB(false), KN()}, n2b[5] = {KT(&W.v), KF(-2), KIS(2, d01), KB(false), KN()};
        CHECK(lrun("aten.linalg_matrix_norm.default", n2a, 5, &n1.v, 1) == 0 && lrun("aten.linalg_matrix_norm.default", n2b, 5, &n2.v, 1) == 0);
        double want2 = getk(&n1.v, 0) / getk(&n2.v, 0);
        CHECK(fabs(getk(&c2.v, 0) - want2) <= tol_of(rt) * 10 * want2);
        /* a singular matrix: cond(1) is inf, cond('nuc') raises as linalg.inv */
        for (int64_t k = 0; k < 9; k++) S(&W.v, k, (double)(k % 3 + 1));
        CHECK(lrun("aten.linalg_cond.default", ca, 2, &c1.v, 1) == 0 && isinf(getk(&c1.v, 0)));
        eir_karg cn[2] = {KT(&W.v), KSTR("nuc")};
        CHECK_FAILS(lrun("aten.linalg_cond.p_str", cn, 2, &c1.v, 1), "linalg.inv: The diagonal element 2 is zero");
        free(M);
        tfree(&A); tfree(&W); tfree(&c1); tfree(&c2); tfree(&X); tfree(&n1); tfree(&n2);
    }
    /* complex input to the core linalg_vector_norm (reduce.c delegates to linalg.c) */
    tt z = T1(EIR_C64, 2), o = T0(EIR_F32);
    setck(&z.v, 0, 3, 4);
    setck(&z.v, 1, 0, 12);
    eir_karg a[5] = {KT(&z.v), KF(2), KN(), KB(false), KN()};
    CHECK(lrun("aten.linalg_vector_norm.default", a, 5, &o.v, 1) == 0 && getk(&o.v, 0) == 13);
    tfree(&z); tfree(&o);
}

/* ---- powers, exponential, tensorinv / tensorsolve, vander ---- */

static void test_power_exp(void) {
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di];
        int64_t n = 3;
        tt A = T3(dt, 2, n, n, 1);
        fill_wc(&A.v);
        zc *M = load(&A.v);
        for (int64_t p = -3; p <= 9; p++) {
            tt X = T3(dt, 2, n, n, (int)(p & 1) * 2);
            eir_karg a[2] = {KT(&A.v), KI(p)};
            CHECK(lrun("aten.linalg_matrix_power.default", a, 2, &X.v, 1) == 0);
            zc *Xv = load(&X.v), R[9], T[9];
            double e = 0;
            for (int b = 0; b < 2; b++) {
                for (int64_t k = 0; k < n * n; k++) R[k] = k % (n + 1) == 0;
                for (int64_t q = 0; q < (p < 0 ? -p : p); q++) { mm(T, R, M + b * n * n, n, n, n); memcpy(R, T, sizeof R); }
                if (p < 0) { mm(T, R, Xv + b * n * n, n, n, n); e = fmax(e, eye_err(T, n)); } /* A^|p| A^p = I */
                else e = fmax(e, maxdiff(Xv + b * n * n, R, n * n));
            }
            CHECK(e < eps_of(dt) * 100);
            free(Xv);
            tfree(&X);
        }
        free(M);
        tfree(&A);
    }
    /* integers wrap like torch's int32 mm */
    tt Iv = T2(EIR_I32, 2, 2, 0), IX = T2(EIR_I32, 2, 2, 1);
    setk(&Iv.v, 0, 1000); setk(&Iv.v, 1, 1); setk(&Iv.v, 2, 1); setk(&Iv.v, 3, 1000);
    eir_karg ia[2] = {KT(&Iv.v), KI(5)};
    CHECK(lrun("aten.linalg_matrix_power.default", ia, 2, &IX.v, 1) == 0);
    int64_t a00 = 1000, a01 = 1; /* [[a, 1], [1, a]]^5 in int64, truncated to int32 */
    int64_t m00 = 1, m01 = 0;
    for (int q = 0; q < 5; q++) { int64_t t0 = m00 * a00 + m01 * a01, t1 = m00 * a01 + m01 * a00; m00 = t0; m01 = t1; }
    CHECK(getk(&IX.v, 0) == (double)(int32_t)m00 && getk(&IX.v, 1) == (double)(int32_t)m01);
    eir_karg ib[2] = {KT(&Iv.v), KI(-1)};
    CHECK_FAILS(lrun("aten.linalg_matrix_power.default", ib, 2, &IX.v, 1), "linalg.inv: Expected a floating point or complex tensor as input. Got Int");
    tfree(&Iv); tfree(&IX);
    /* matrix_exp: a diagonal matrix, a nilpotent one, a rotation generator, and exp(A) exp(-A) = I */
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di];
        tt A = T3(dt, 3, 2, 2, di % 3), E = T3(dt, 3, 2, 2, 1);
        double vals[12] = {1.5, 0, 0, -40, 0, 1, 0, 0, 0, -2.5, 2.5, 0};
        for (int k = 0; k < 12; k++) setk(&A.v, k, vals[k]);
        eir_karg a[1] = {KT(&A.v)};
        CHECK(lrun("aten.matrix_exp.default", a, 1, &E.v, 1) == 0);
        double want[12] = {exp(1.5), 0, 0, exp(-40), 1, 1, 0, 1, cos(2.5), -sin(2.5), sin(2.5), cos(2.5)};
        double *w = rounded(&E.v, want);
        CHECK(close_to(&E.v, w, tol_of(dt), "matrix_exp"));
        free(w);
        tt B = T2(dt, 4, 4, 0), Bn = T2(dt, 4, 4, 2), EB = T2(dt, 4, 4, 0), EBn = T2(dt, 4, 4, 1);
        fill_rand(&B.v);
        for (int64_t k = 0; k < 16; k++) S(&B.v, k, G(&B.v, k) * 1.5); /* norm ~6: squaring steps too */
        for (int64_t k = 0; k < 16; k++) S(&Bn.v, k, -G(&B.v, k));
        eir_karg b1[1] = {KT(&B.v)}, b2[1] = {KT(&Bn.v)};
        CHECK(lrun("aten.linalg_matrix_exp.default", b1, 1, &EB.v, 1) == 0 && lrun("aten.matrix_exp.default", b2, 1, &EBn.v, 1) == 0);
        zc *x = load(&EB.v), *y = load(&EBn.v), P[16];
        mm(P, x, y, 4, 4, 4);
        CHECK(eye_err(P, 4) < eps_of(dt) * 100);
        free(x); free(y);
        tfree(&A); tfree(&E); tfree(&B); tfree(&Bn); tfree(&EB); tfree(&EBn);
    }
}

static void test_tensor_ops(void) {
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di];
        /* tensorinv(A (2, 3, 6), ind=2): inverse of the 6 x 6 reshape, shaped (6, 2, 3) */
        int64_t as[3] = {2, 3, 6}, os[3] = {6, 2, 3};
        tt A = tnew(dt, 3, as, 1), X = tnew(dt, 3, os, 2);
        fill_rand(&A.v);
        for (int64_t i = 0; i < 6; i++) S(&A.v, i * 6 + i, G(&A.v, i * 6 + i) + 7.0);
        eir_karg a[2] = {KT(&A.v), KI(2)};
        CHECK(lrun("aten.linalg_tensorinv.default", a, 2, &X.v, 1) == 0);
        zc *M = load(&A.v), *Xv = load(&X.v), P[36];
        mm(P, M, Xv, 6, 6, 6);
        CHECK(eye_err(P, 6) < eps_of(dt) * 10);
        /* tensorsolve(A, B (2, 3)): A reshaped (6, 6) x = B flattened; with dims=(0,) A's dim 0 moves last */
        int64_t bs[2] = {2, 3};
        tt B = tnew(dt, 2, bs, 0), x = T1(dt, 6), At = tnew(dt, 3, os, 0), x2 = T1(dt, 6);
        fill_rand(&B.v);
        eir_karg s[3] = {KT(&A.v), KT(&B.v), KN()};
        CHECK(lrun("aten.linalg_tensorsolve.default", s, 3, &x.v, 1) == 0);
        zc *Bv = load(&B.v), *xv = load(&x.v), r[6];
        mm(r, M, xv, 6, 6, 1);
        CHECK(maxdiff(r, Bv, 6) < eps_of(dt) * 10);
        for (int64_t i = 0; i < 36; i++) S(&At.v, (i % 6) * 6 + i / 6, M[i]); /* At[j, i0, i1] = A[i0, i1, j] */
        int64_t d0[1] = {0};
        eir_karg s2[3] = {KT(&At.v), KT(&B.v), KIS(1, d0)};
        CHECK(lrun("aten.linalg_tensorsolve.default", s2, 3, &x2.v, 1) == 0);
        zc *x2v = load(&x2.v);
        CHECK(maxdiff(x2v, xv, 6) < eps_of(dt) * 10);
        free(M); free(Xv); free(Bv); free(xv); free(x2v);
        tfree(&A); tfree(&X); tfree(&B); tfree(&x); tfree(&At); tfree(&x2);
    }
    /* vander: x^j; integers in int64 */
    tt x = T2(EIR_I32, 2, 3, 1), V = T3(EIR_I64, 2, 3, 4, 2);
    for (int k = 0; k < 6; k++) setk(&x.v, k, k - 2);
    eir_karg a[2] = {KT(&x.v), KI(4)};
    CHECK(lrun("aten.linalg_vander.default", a, 2, &V.v, 1) == 0);
    for (int k = 0; k < 6; k++)
        for (int j = 0; j < 4; j++) CHECK(getk(&V.v, k * 4 + j) == pow(k - 2, j));
    tt xc = T1(EIR_C128, 3), Vc = T2(EIR_C128, 3, 3, 0);
    setck(&xc.v, 0, 0, 1); setck(&xc.v, 1, 2, 0); setck(&xc.v, 2, 1, 1);
    eir_karg c[2] = {KT(&xc.v), KN()};
    CHECK(lrun("aten.linalg_vander.default", c, 2, &Vc.v, 1) == 0);
    CHECK(cabs(G(&Vc.v, 2) + 1) < 1e-15 && cabs(G(&Vc.v, 8) - CMPLX(0, 2)) < 1e-15);
    eir_karg e1[2] = {KT(&xc.v), KI(1)};
    CHECK_FAILS(lrun("aten.linalg_vander.default", e1, 2, &Vc.v, 1), "N must be greater than 1.");
    tfree(&x); tfree(&V); tfree(&xc); tfree(&Vc);
}

/* multi_dot: vectors at the ends, chains long enough for the dynamic program */
static void test_multi_dot(void) {
    for (int di = 0; di < 4; di++) {
        eir_dtype dt = DT4[di];
        tt v = T1(dt, 3), a = T2(dt, 3, 5, 1), b = T2(dt, 5, 2, 0), c = T2(dt, 2, 6, 2), d = T2(dt, 6, 4, 0), o = T1(dt, 4), o2 = T2(dt, 5, 6, 1);
        fill_rand(&v.v); fill_rand(&a.v); fill_rand(&b.v); fill_rand(&c.v); fill_rand(&d.v);
        const eir_tview *l1[5] = {&v.v, &a.v, &b.v, &c.v, &d.v}, *l2[2] = {&b.v, &c.v};
        eir_karg a1 = {.kind = EIR_KA_TENSORS, .n = 5, .ts = l1}, a2 = {.kind = EIR_KA_TENSORS, .n = 2, .ts = l2};
        CHECK(lrun("aten.linalg_multi_dot.default", &a1, 1, &o.v, 1) == 0);
        zc *V = load(&v.v), *A = load(&a.v), *B = load(&b.v), *C = load(&c.v), *D = load(&d.v), t1[15], t2[10], t3[24], r[4];
        mm(t1, V, A, 1, 3, 5);
        mm(t2, t1, B, 1, 5, 2);
        mm(t3, t2, C, 1, 2, 6);
        mm(r, t3, D, 1, 6, 4);
        zc *O = load(&o.v);
        CHECK(maxdiff(O, r, 4) < eps_of(dt) * 10);
        CHECK(lrun("aten.chain_matmul.default", &a2, 1, &o2.v, 1) == 0);
        zc *O2 = load(&o2.v), r2[30];
        mm(r2, B, C, 5, 2, 6);
        CHECK(maxdiff(O2, r2, 30) < eps_of(dt) * 10);
        free(V); free(A); free(B); free(C); free(D); free(O); free(O2);
        tfree(&v); tfree(&a); tfree(&b); tfree(&c); tfree(&d); tfree(&o); tfree(&o2);
    }
}

/* ---- _linalg_check_errors, conjugating views, empty batches ---- */

static void test_check_errors(void) {
    tt info = T1(EIR_I32, 3), one = T0(EIR_I32);
    setk(&info.v, 2, 4);
    struct { const char *api, *msg; } cases[] = {
        {"linalg.inv", "linalg.inv: (Batch element 2): The diagonal element 4 is zero, the inversion could not be completed because the input matrix is singular."},
        {"torch.linalg.solve", "torch.linalg.solve: (Batch element 2): The solver failed because the input matrix is singular."},
        {"linalg.cholesky", "linalg.cholesky: (Batch element 2): The factorization could not be completed because the input is not positive-definite (the leading minor of order 4 is not positive-definite)."},
        {"linalg.eigh", "linalg.eigh: (Batch element 2): The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: 4)."},
        {"torch.linalg.lu_factor", "torch.linalg.lu_factor: (Batch element 2): U[4,4] is zero and using it on lu_solve would result in a division by zero."},
        {"torch.linalg.ldl_factor", "torch.linalg.ldl_factor: Unknown error code: 4."},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        eir_karg a[3] = {KT(&info.v), KSTR(cases[i].api), KB(false)};
        CHECK_FAILS(lrun("aten._linalg_check_errors.default", a, 3, NULL, 0), cases[i].msg);
    }
    eir_karg m[3] = {KT(&one.v), KSTR("linalg.inv"), KB(true)};
    CHECK(lrun("aten._linalg_check_errors.default", m, 3, NULL, 0) == 0);
    setk(&one.v, 0, 2);
    CHECK_FAILS(lrun("aten._linalg_check_errors.default", m, 3, NULL, 0), "linalg.inv: The diagonal element 2 is zero");
    setk(&one.v, 0, -4);
    eir_karg s[3] = {KT(&one.v), KSTR("linalg.svd"), KB(true)};
    CHECK_FAILS(lrun("aten._linalg_check_errors.default", s, 3, NULL, 0), "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
    tfree(&info); tfree(&one);
}

static void test_conj_views(void) {
    tt x = T3(EIR_C64, 2, 3, 4, 1), c = T3(EIR_C64, 2, 3, 4, 0), h = T3(EIR_C64, 2, 4, 3, 2), r = T2(EIR_F64, 2, 3, 1), rh = T2(EIR_F64, 3, 2, 0);
    fill_rand(&x.v);
    fill_rand(&r.v);
    eir_karg a[1] = {KT(&x.v)}, b[1] = {KT(&r.v)};
    CHECK(lrun("aten._conj.default", a, 1, &c.v, 1) == 0);
    CHECK(lrun("aten.mH.default", a, 1, &h.v, 1) == 0);
    CHECK(lrun("aten.adjoint.default", b, 1, &rh.v, 1) == 0);
    for (int64_t k = 0; k < 24; k++) {
        int64_t bb = k / 12, i = k / 4 % 3, j = k % 4;
        CHECK(G(&c.v, k) == conj(G(&x.v, k)));
        CHECK(G(&h.v, bb * 12 + j * 3 + i) == conj(G(&x.v, k)));
    }
    for (int64_t k = 0; k < 6; k++) CHECK(getk(&rh.v, (k % 3) * 2 + k / 3) == getk(&r.v, k));
    tfree(&x); tfree(&c); tfree(&h); tfree(&r); tfree(&rh);
}

static void test_empty(void) {
    /* a batch of zero matrices: nothing to do, nothing written, no error */
    tt A = T3(EIR_F64, 0, 3, 3, 0), X = T3(EIR_F64, 0, 3, 3, 0), info = T1(EIR_I32, 0), w = T2(EIR_F64, 0, 3, 0), S = T2(EIR_F64, 0, 3, 0);
    eir_karg a[1] = {KT(&A.v)};
    eir_tview o[2] = {X.v, info.v}, e[2] = {w.v, X.v};
    CHECK(lrun("aten.linalg_inv_ex.default", a, 1, o, 2) == 0);
    CHECK(lrun("aten.linalg_cholesky_ex.default", a, 1, o, 2) == 0);
    CHECK(lrun("aten.linalg_eigh.default", a, 1, e, 2) == 0);
    CHECK(lrun("aten.linalg_svdvals.default", a, 1, &S.v, 1) == 0);
    CHECK(lrun("aten.matrix_exp.default", a, 1, &X.v, 1) == 0);
    /* 0 x 0 matrices: det 1, inverse empty */
    tt Z = T3(EIR_F32, 2, 0, 0, 0), d = T1(EIR_F32, 2), Zi = T3(EIR_F32, 2, 0, 0, 0);
    eir_karg z[1] = {KT(&Z.v)};
    CHECK(lrun("aten.linalg_det.default", z, 1, &d.v, 1) == 0 && getk(&d.v, 0) == 1 && getk(&d.v, 1) == 1);
    CHECK(lrun("aten.linalg_inv.default", z, 1, &Zi.v, 1) == 0);
    /* an output whose recorded shape disagrees is an error, not a write out of bounds */
    tt bad = T3(EIR_F32, 2, 2, 2, 0), bo = T3(EIR_F32, 2, 3, 3, 0);
    eir_karg bb[1] = {KT(&bad.v)};
    CHECK_FAILS(lrun("aten.linalg_inv.default", bb, 1, &bo.v, 1), "recorded shape");
    tfree(&A); tfree(&X); tfree(&info); tfree(&w); tfree(&S); tfree(&Z); tfree(&d); tfree(&Zi); tfree(&bad); tfree(&bo);
}

/* ---- FFT extras ---- */

static void test_fftshift(void) {
    for (int inv = 0; inv < 2; inv++) {
        tt x = T2(EIR_I64, 3, 5, 1), y = T2(EIR_I64, 3, 5, 2);
        for (int k = 0; k < 15; k++) setk(&x.v, k, k);
        eir_karg a[2] = {KT(&x.v), KN()};
        CHECK(lrun(inv ? "aten.fft_ifftshift.default" : "aten.fft_fftshift.default", a, 2, &y.v, 1) == 0);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++) {
                int si = inv ? (i + 2) % 3 : (i + 2) % 3, sj = inv ? (j + 3) % 5 : (j + 3) % 5;
                /* fftshift rolls by n/2: out[i] = x[(i - n/2) mod n]; ifftshift by (n+1)/2 */
                si = inv ? (i - 2 + 3) % 3 : (i - 1 + 3) % 3;
                sj = inv ? (j - 3 + 5) % 5 : (j - 2 + 5) % 5;
                CHECK(getk(&y.v, i * 5 + j) == si * 5 + sj);
            }
        int64_t d[1] = {-1};
        eir_karg b[2] = {KT(&x.v), KIS(1, d)};
        CHECK(lrun(inv ? "aten.fft_ifftshift.default" : "aten.fft_fftshift.default", b, 2, &y.v, 1) == 0);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++) CHECK(getk(&y.v, i * 5 + j) == i * 5 + (inv ? (j + 2) % 5 : (j + 3) % 5));
        tfree(&x); tfree(&y);
    }
}

/* naive DFT of one line (sign -1 forward) */
static void dft(const zc *x, zc *X, int64_t n, int sign) {
    for (int64_t k = 0; k < n; k++) {
        zc s = 0;
        for (int64_t j = 0; j < n; j++) s += x[j] * cexp(CMPLX(0, sign * 2 * M_PI * (double)((j * k) % n) / (double)n));
        X[k] = s;
    }
}

static void test_hfftn(void) {
    /* ihfftn(x) = conj(fftn(x)) / N, trimmed to the half spectrum; hfftn(ihfftn(x)) = x */
    for (int prec = 0; prec < 2; prec++) {
        eir_dtype rt = prec ? EIR_F64 : EIR_F32, ct = prec ? EIR_C128 : EIR_C64;
        tt x = T2(rt, 4, 6, prec), h = T2(ct, 4, 4, 0), back = T2(rt, 4, 6, 1);
        fill_rand(&x.v);
        eir_karg a[4] = {KT(&x.v), KN(), KN(), KN()};
        CHECK(lrun("aten.fft_ihfftn.default", a, 4, &h.v, 1) == 0);
        zc X[24], R[24], tmp[6];
        for (int k = 0; k < 24; k++) X[k] = getk(&x.v, k);
        for (int i = 0; i < 4; i++) { dft(X + i * 6, tmp, 6, -1); memcpy(R + i * 6, tmp, sizeof tmp); }
        double e = 0;
        for (int j = 0; j < 6; j++) {
            zc col[4], C[4];
            for (int i = 0; i < 4; i++) col[i] = R[i * 6 + j];
            dft(col, C, 4, -1);
            for (int i = 0; i < 4; i++) R[i * 6 + j] = C[i];
        }
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) e = fmax(e, cabs(G(&h.v, i * 4 + j) - conj(R[i * 6 + j]) / 24.0));
        CHECK(e < (prec ? 1e-14 : 1e-6));
        int64_t s[2] = {4, 6};
        eir_karg b[4] = {KT(&h.v), KIS(2, s), KN(), KN()};
        CHECK(lrun("aten.fft_hfftn.default", b, 4, &back.v, 1) == 0);
        double *want = malloc(24 * sizeof *want);
        for (int k = 0; k < 24; k++) want[k] = getk(&x.v, k);
        CHECK(close_to(&back.v, want, prec ? 1e-12 : 1e-5, "hfftn(ihfftn(x))"));
        int64_t d2[2] = {-2, -1};
        eir_karg c[4] = {KT(&h.v), KIS(2, s), KIS(2, d2), KSTR("backward")};
        CHECK(lrun("aten.fft_hfft2.default", c, 4, &back.v, 1) == 0);
        CHECK(close_to(&back.v, want, prec ? 1e-12 : 1e-5, "hfft2(ihfftn(x))"));
        eir_karg d[4] = {KT(&h.v), KN(), KIS(2, d2), KN()};
        CHECK_FAILS(lrun("aten.fft_ihfft2.default", d, 4, &h.v, 1), "Only supports floating-point dtypes, but found: Complex");
        free(want);
        tfree(&x); tfree(&h); tfree(&back);
    }
}

static void test_stft(void) {
    /* frames of hop 3, a length-6 window centered in n_fft = 8, onesided; each frame by a direct DFT */
    for (int prec = 0; prec < 2; prec++) {
        eir_dtype rt = prec ? EIR_F64 : EIR_F32, ct = prec ? EIR_C128 : EIR_C64;
        int64_t L = 40, n_fft = 8, hop = 3, win = 6, left = 1, frames = 1 + (L - n_fft) / hop;
        tt x = T2(rt, 2, L, prec), w = T1(rt, win), y = T3(ct, 2, n_fft / 2 + 1, frames, 1);
        fill_rand(&x.v);
        for (int k = 0; k < win; k++) setk(&w.v, k, 0.5 + 0.1 * k);
        eir_karg a[9] = {KT(&x.v), KI(n_fft), KI(hop), KI(win), KT(&w.v), KB(false), KN(), KB(true), KN()};
        CHECK(lrun("aten.stft.default", a, 9, &y.v, 1) == 0);
        double e = 0;
        for (int b = 0; b < 2; b++)
            for (int64_t t = 0; t < frames; t++) {
                zc f[8], F[8];
                for (int64_t k = 0; k < n_fft; k++) f[k] = k >= left && k < left + win ? getk(&x.v, b * L + t * hop + k) * getk(&w.v, k - left) : 0;
                dft(f, F, n_fft, -1);
                for (int64_t q = 0; q <= n_fft / 2; q++) e = fmax(e, cabs(G(&y.v, (b * (n_fft / 2 + 1) + q) * frames + t) - F[q]));
            }
        CHECK(e < (prec ? 1e-13 : 2e-5));
        /* istft(stft(x)) = x with a window whose squares overlap-add to a positive envelope */
        int64_t hop2 = 2, nf2 = 1 + L / hop2;
        tt w2 = T1(rt, n_fft), spec = T3(ct, 2, n_fft / 2 + 1, nf2, 0), back = T2(rt, 2, L, 1);
        for (int k = 0; k < n_fft; k++) setk(&w2.v, k, 0.6 - 0.4 * cos(2 * M_PI * k / (double)n_fft));
        eir_karg s[11] = {KT(&x.v), KI(n_fft), KI(hop2), KN(), KT(&w2.v), KB(true), KSTR("reflect"), KB(false), KN(), KB(true), KN()};
        CHECK(lrun("aten.stft.center", s, 11, &spec.v, 1) == 0);
        eir_karg is[10] = {KT(&spec.v), KI(n_fft), KI(hop2), KN(), KT(&w2.v), KB(true), KB(false), KN(), KI(L), KB(false)};
        CHECK(lrun("aten.istft.default", is, 10, &back.v, 1) == 0);
        double *want = malloc((size_t)(2 * L) * sizeof *want);
        for (int64_t k = 0; k < 2 * L; k++) want[k] = getk(&x.v, k);
        CHECK(close_to(&back.v, want, prec ? 1e-12 : 1e-5, "istft(stft(x))"));
        free(want);
        /* a window whose envelope vanishes at the ends (center=False) is refused, in torch's words */
        tt z = T1(rt, n_fft), sp2 = T3(ct, 2, n_fft / 2 + 1, frames, 0), o2 = T2(rt, 2, n_fft + hop * (frames - 1), 0);
        for (int k = 0; k < n_fft; k++) setk(&z.v, k, k == 0 ? 0 : 1);
        eir_karg is2[10] = {KT(&sp2.v), KI(n_fft), KI(hop), KN(), KT(&z.v), KB(false), KB(false), KN(), KN(), KB(false)};
        CHECK_FAILS(lrun("aten.istft.default", is2, 10, &o2.v, 1), "window overlap add min: 0");
        tfree(&x); tfree(&w); tfree(&y); tfree(&w2); tfree(&spec); tfree(&back); tfree(&z); tfree(&sp2); tfree(&o2);
    }
    tt x = T1(EIR_F32, 16), y = T2(EIR_C64, 3, 5, 0);
    eir_karg a[8] = {KT(&x.v), KI(4), KN(), KN(), KN(), KB(false), KN(), KN()};
    CHECK_FAILS(lrun("aten.stft.default", a, 8, &y.v, 1), "stft requires the return_complex parameter be given for real inputs");
    tfree(&x); tfree(&y);
}

int main(void) {
    test_det();
    test_inv();
    test_solve();
    test_triangular();
    test_cholesky();
    test_lu();
    test_ldl();
    test_qr();
    test_eigh();
    test_eig();
    test_svd();
    test_pinv_rank();
    test_norms();
    test_power_exp();
    test_tensor_ops();
    test_multi_dot();
    test_check_errors();
    test_conj_views();
    test_empty();
    test_fftshift();
    test_hfftn();
    test_stft();
    return check_summary("test_k_linalg");
}
