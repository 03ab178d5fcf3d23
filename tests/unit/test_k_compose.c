/* test_k_compose.c — the kernels of src/kernels/compose.c against naive
 * reference twins: every contraction (einsum with diagonals, broadcasting,
 * ellipses, three operands and a path; tensordot, inner, bilinear and
 * _trilinear) against a loop over every assignment of its labels; kron,
 * outer, vdot, addr, addbmm, trace from their formulas; the shape and
 * indexing ops element by element from index formulas; reductions and
 * vector ops from double-precision loops; linspace / logspace from their
 * definition; diff from differences rounded to the dtype step by step, the
 * trapezoid rule from double sums, one_hot, the stacks and max_unpool from
 * index formulas. Random shapes, the four layouts of ktest.h (contiguous,
 * reversed, padded, channels-last), empty tensors, views of more than
 * EIR_MAX_RANK dims, every dtype the op takes, and the errors torch raises. */
#include "ktest.h"

static const eir_dtype DTS[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I8, EIR_I16, EIR_I32, EIR_I64, EIR_U8, EIR_BOOL, EIR_C64, EIR_C128};
#define NDTS ((int)(sizeof DTS / sizeof DTS[0]))

static double rd(const eir_tview *v, const int64_t *idx) { return eir_load_f64(eir_tview_at(v, idx), v->dtype); }
static void rdc(const eir_tview *v, const int64_t *idx, double *re, double *im) { eir_load_c128(eir_tview_at(v, idx), v->dtype, re, im); }
static bool nexti(int64_t *idx, const int64_t *sizes, int rank) {
    for (int d = rank - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}
/* the element of a at ia equals the element of b at ib, bit for bit */
static bool same_el(const eir_tview *a, const int64_t *ia, const eir_tview *b, const int64_t *ib) {
    return a->dtype == b->dtype && memcmp(eir_tview_at(a, ia), eir_tview_at(b, ib), eir_dtype_size(a->dtype)) == 0;
}
static inline eir_karg KS(double f) { eir_karg a = KF(f); a.kind = EIR_KA_SCALAR; return a; }
static inline eir_karg KSI(int64_t i) { eir_karg a = KI(i); a.kind = EIR_KA_SCALAR; return a; }
static inline eir_karg KTS(uint32_t n, const eir_tview *const *ts) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSORS; a.n = n; a.ts = ts; return a; }

/* ======================================================================
 * contractions
 * ====================================================================== */

/* out[olab] = sum over every other label of prod_k op_k[lab_k] (labels a..z, sizes by letter) */
typedef struct rop { const eir_tview *v; const char *lab; } rop;
static void ref_contract(int nops, const rop *ops, const char *olab, const int64_t *lsize, double *ore, double *oim, double *oabs) {
    char used[27];
    int nu = 0;
    bool seen[26] = {false};
    for (int k = 0; k < nops; k++)
        for (const char *c = ops[k].lab; *c; c++)
            if (!seen[*c - 'a']) { seen[*c - 'a'] = true; used[nu++] = *c; }
    int64_t on = 1;
    for (const char *c = olab; *c; c++) on *= lsize[*c - 'a'];
    for (int64_t i = 0; i < on; i++) ore[i] = oim[i] = oabs[i] = 0;
    int64_t val[26] = {0}, tot = 1;
    for (int u = 0; u < nu; u++) tot *= lsize[used[u] - 'a'];
    for (int64_t t = 0; t < tot; t++) {
        int64_t r = t;
        for (int u = nu - 1; u >= 0; u--) { val[used[u] - 'a'] = r % lsize[used[u] - 'a']; r /= lsize[used[u] - 'a']; }
        double pr = 1, pi = 0;
        for (int k = 0; k < nops; k++) {
            int64_t idx[EIR_MAX_RANK];
            for (int d = 0; d < ops[k].v->rank; d++) idx[d] = ops[k].v->sizes[d] == 1 ? 0 : val[ops[k].lab[d] - 'a'];
            double re, im;
            rdc(ops[k].v, idx, &re, &im);
            double nr = pr * re - pi * im, ni = pr * im + pi * re;
            pr = nr; pi = ni;
        }
        int64_t o = 0;
        for (const char *c = olab; *c; c++) o = o * lsize[*c - 'a'] + val[*c - 'a'];
        ore[o] += pr; oim[o] += pi; oabs[o] += fabs(pr) + fabs(pi);
    }
}

/* got matches the reference within the dtype's rounding of sums of |terms| (exact for integers) */
static bool close_contract(const eir_tview *got, const double *re, const double *im, const double *ab, const char *what) {
    int64_t n = numel(got);
    double tol = tol_of(got->dtype) * 4;
    for (int64_t k = 0; k < n; k++) {
        double gr, gi;
        getck(got, k, &gr, &gi);
        bool ok;
        if (eir_is_integral(got->dtype, true)) {
            unsigned char tmp[16];
            eir_store_i64(tmp, got->dtype, (int64_t)re[k]);
            ok = gr == eir_load_f64(tmp, got->dtype);
        } else {
            ok = fabs(gr - re[k]) <= tol * (1 + ab[k]) && fabs(gi - (eir_is_complex(got->dtype) ? im[k] : 0)) <= tol * (1 + ab[k]);
        }
        if (!ok) {
            fprintf(stderr, "%s (%s): element %lld is %g%+gi, reference %g%+gi\n", what, eir_torch_dtype_name(got->dtype), (long long)k, gr, gi, re[k], im[k]);
            return false;
        }
    }
    return true;
}

typedef struct ecase {
    const char *eq;         /* the einsum equation */
    int nops;
    int rank[3];
    int64_t shape[3][5];
    const char *lab[3];     /* reference labels of each operand's dims */
    const char *olab;       /* reference labels of the output */
} ecase;

static const ecase ECASES[] = {
    {"ij,jk->ik", 2, {2, 2}, {{3, 4}, {4, 5}}, {"ij", "jk"}, "ik"},
    {"bij,bkj->bik", 2, {3, 3}, {{2, 3, 4}, {2, 5, 4}}, {"bij", "bkj"}, "bik"},
    {"ii->i", 1, {2}, {{4, 4}}, {"ii"}, "i"},
    {"ii", 1, {2}, {{5, 5}}, {"ii"}, ""},
    {"ijk->j", 1, {3}, {{2, 3, 4}}, {"ijk"}, "j"},
    {"i,j->ij", 2, {1, 1}, {{3}, {4}}, {"i", "j"}, "ij"},
    {"ij,jk,kl->il", 3, {2, 2, 2}, {{2, 3}, {3, 4}, {4, 5}}, {"ij", "jk", "kl"}, "il"},
    {"bij,bj->bi", 2, {3, 2}, {{1, 3, 4}, {5, 4}}, {"bij", "bj"}, "bi"},
    {"ba,cb", 2, {2, 2}, {{3, 4}, {5, 3}}, {"ba", "cb"}, "ac"},
    {"...ij,...jk", 2, {4, 3}, {{2, 1, 3, 4}, {5, 4, 2}}, {"xyij", "yjk"}, "xyik"},
    {"iij,jk->ik", 2, {3, 2}, {{3, 3, 4}, {4, 2}}, {"iij", "jk"}, "ik"},
    {"ij,ij->", 2, {2, 2}, {{3, 4}, {3, 4}}, {"ij", "ij"}, ""},
    {"i,i,i->i", 3, {1, 1, 1}, {{4}, {4}, {1}}, {"i", "i", "i"}, "i"},
    {"abc,cd,dbe->ae", 3, {3, 2, 3}, {{2, 3, 4}, {4, 3}, {3, 3, 2}}, {"abc", "cd", "dbe"}, "ae"},
};

static void test_einsum(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I32, EIR_I64, EIR_C64};
    for (size_t c = 0; c < sizeof ECASES / sizeof ECASES[0]; c++) {
        const ecase *e = &ECASES[c];
        for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
            eir_dtype dt = dts[di];
            int layout = (int)((c + di) % 4);
            tt op[3];
            rop rops[3];
            const eir_tview *tsv[3];
            int64_t lsize[26];
            for (int k = 0; k < 26; k++) lsize[k] = 1;
            for (int k = 0; k < e->nops; k++) {
                op[k] = tnew(dt, e->rank[k], e->shape[k], (layout + k) % 4);
                fill_rand(&op[k].v);
                rops[k] = (rop){&op[k].v, e->lab[k]};
                tsv[k] = &op[k].v;
                for (int d = 0; d < e->rank[k]; d++)
                    if (e->shape[k][d] != 1) lsize[e->lab[k][d] - 'a'] = e->shape[k][d];
            }
            int orank = (int)strlen(e->olab);
            int64_t osz[EIR_MAX_RANK];
            for (int d = 0; d < orank; d++) osz[d] = lsize[e->olab[d] - 'a'];
            tt out = tnew(dt, orank, osz, (layout + 1) % 4);
            fill_poison(&out.v);
            int64_t n = numel(&out.v);
            double *re = calloc((size_t)n + 1, sizeof *re), *im = calloc((size_t)n + 1, sizeof *im), *ab = calloc((size_t)n + 1, sizeof *ab);
            ref_contract(e->nops, rops, e->olab, lsize, re, im, ab);
            eir_karg a[3] = {KSTR(e->eq), KTS((uint32_t)e->nops, tsv), KN()};
            CHECK(run("aten.einsum.default", a, 3, &out.v, 1) == 0);
            char what[64];
            snprintf(what, sizeof what, "einsum %s", e->eq);
            CHECK(close_contract(&out.v, re, im, ab, what));
            if (e->nops == 3) { /* opt_einsum's path: (1, 2) first, then the two left */
                int64_t path[4] = {1, 2, 0, 1};
                eir_karg ap[3] = {KSTR(e->eq), KTS(3, tsv), KIS(4, path)};
                fill_poison(&out.v);
                CHECK(run("aten.einsum.default", ap, 3, &out.v, 1) == 0);
                CHECK(close_contract(&out.v, re, im, ab, what));
            }
            free(re); free(im); free(ab);
            tfree(&out);
            for (int k = 0; k < e->nops; k++) tfree(&op[k]);
        }
    }
    /* an empty contraction is zeros; bool operands multiply without summing */
    int64_t s1[2] = {3, 0}, s2[2] = {0, 4}, so[2] = {3, 4};
    tt a1 = tnew(EIR_F32, 2, s1, 0), a2 = tnew(EIR_F32, 2, s2, 1), o = tnew(EIR_F32, 2, so, 0);
    fill_poison(&o.v);
    const eir_tview *ts[2] = {&a1.v, &a2.v};
    eir_karg a[3] = {KSTR("ij,jk->ik"), KTS(2, ts), KN()};
    CHECK(run("aten.einsum.default", a, 3, &o.v, 1) == 0);
    for (int64_t k = 0; k < 12; k++) CHECK(getk(&o.v, k) == 0);
    int64_t b1[1] = {3}, b2[1] = {4};
    tt x = tnew(EIR_BOOL, 1, b1, 0), y = tnew(EIR_BOOL, 1, b2, 0), ob = tnew(EIR_BOOL, 2, so, 3);
    fill_rand(&x.v); fill_rand(&y.v);
    const eir_tview *tb[2] = {&x.v, &y.v};
    eir_karg ab[3] = {KSTR("i,j->ij"), KTS(2, tb), KN()};
    CHECK(run("aten.einsum.default", ab, 3, &ob.v, 1) == 0);
    for (int64_t i = 0; i < 3; i++)
        for (int64_t j = 0; j < 4; j++) {
            int64_t oi[2] = {i, j};
            CHECK(rd(&ob.v, oi) == (getk(&x.v, i) && getk(&y.v, j)));
        }
    /* errors torch raises */
    eir_karg bad[3] = {KSTR("i1,jk->ik"), KTS(2, ts), KN()};
    CHECK_FAILS(run("aten.einsum.default", bad, 3, &o.v, 1), "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]");
    eir_karg bad2[3] = {KSTR("ij->ij"), KTS(2, ts), KN()};
    CHECK_FAILS(run("aten.einsum.default", bad2, 3, &o.v, 1), "einsum(): more operands were provided than specified in the equation");
    eir_karg bad3[3] = {KSTR("ijk,jk->ik"), KTS(2, ts), KN()};
    CHECK_FAILS(run("aten.einsum.default", bad3, 3, &o.v, 1), "einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2) for operand 0 and no ellipsis was given");
    eir_karg bad4[3] = {KSTR("ij,jk->iq"), KTS(2, ts), KN()};
    CHECK_FAILS(run("aten.einsum.default", bad4, 3, &o.v, 1), "einsum(): output subscript q does not appear in the equation for any input operand");
    tfree(&a1); tfree(&a2); tfree(&o); tfree(&x); tfree(&y); tfree(&ob);
}

static void test_tensordot_inner_bilinear(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_BF16, EIR_I64, EIR_C128};
    for (int it = 0; it < 20; it++) {
        eir_dtype dt = dts[it % 5];
        /* tensordot over dims ([1, 0], [0, 2]) of a (I, J, K) and b (J, L, I) */
        int64_t I = irand(1, 4), J = irand(0, 3), K = irand(1, 4), L = irand(1, 3);
        int64_t sa[3] = {I, J, K}, sb[3] = {J, L, I}, so[2] = {K, L};
        tt A = tnew(dt, 3, sa, it % 4), B = tnew(dt, 3, sb, (it + 1) % 4), O = tnew(dt, 2, so, (it + 2) % 4);
        fill_rand(&A.v); fill_rand(&B.v); fill_poison(&O.v);
        int64_t lsize[26];
        for (int k = 0; k < 26; k++) lsize[k] = 1;
        lsize['i' - 'a'] = I; lsize['j' - 'a'] = J; lsize['k' - 'a'] = K; lsize['l' - 'a'] = L;
        rop ro[2] = {{&A.v, "ijk"}, {&B.v, "jli"}};
        double re[64], im[64], ab[64];
        ref_contract(2, ro, "kl", lsize, re, im, ab);
        int64_t d1[2] = {1, 0}, d2[2] = {0, 2};
        eir_karg a[4] = {KT(&A.v), KT(&B.v), KIS(2, d1), KIS(2, d2)};
        CHECK(run("aten.tensordot.default", a, 4, &O.v, 1) == 0);
        CHECK(close_contract(&O.v, re, im, ab, "tensordot"));
        /* inner(a (I, J, K), c (L, K)) -> (I, J, L) */
        int64_t sc[2] = {L, K}, si[3] = {I, J, L};
        tt C = tnew(dt, 2, sc, it % 3), Oi = tnew(dt, 3, si, (it + 1) % 4);
        fill_rand(&C.v); fill_poison(&Oi.v);
        rop ri[2] = {{&A.v, "ijk"}, {&C.v, "lk"}};
        double rr[128], ri2[128], ra[128];
        ref_contract(2, ri, "ijl", lsize, rr, ri2, ra);
        eir_karg ai[2] = {KT(&A.v), KT(&C.v)};
        CHECK(run("aten.inner.default", ai, 2, &Oi.v, 1) == 0);
        CHECK(close_contract(&Oi.v, rr, ri2, ra, "inner"));
        if (dt != EIR_I64 && dt != EIR_C128) {
            /* bilinear(x1 (B, P), x2 (B, Q), w (M, P, Q), bias (M)) */
            int64_t Bn = irand(1, 3), P = irand(1, 4), Q = irand(1, 4), M = irand(1, 3);
            int64_t s1[2] = {Bn, P}, s2[2] = {Bn, Q}, sw[3] = {M, P, Q}, sbias[1] = {M}, sob[2] = {Bn, M};
            tt X1 = tnew(dt, 2, s1, it % 4), X2 = tnew(dt, 2, s2, (it + 1) % 4), W = tnew(dt, 3, sw, (it + 2) % 4), Bi = tnew(dt, 1, sbias, 0), Ob = tnew(dt, 2, sob, it % 2);
            fill_rand(&X1.v); fill_rand(&X2.v); fill_rand(&W.v); fill_rand(&Bi.v); fill_poison(&Ob.v);
            int64_t ls[26];
            for (int k = 0; k < 26; k++) ls[k] = 1;
            ls['b' - 'a'] = Bn; ls['p' - 'a'] = P; ls['q' - 'a'] = Q; ls['m' - 'a'] = M;
            rop rb[3] = {{&X1.v, "bp"}, {&W.v, "mpq"}, {&X2.v, "bq"}};
            double br[64], bi[64], ba[64];
            ref_contract(3, rb, "bm", ls, br, bi, ba);
            for (int64_t b = 0; b < Bn; b++)
                for (int64_t m = 0; m < M; m++) br[b * M + m] += getk(&Bi.v, m), ba[b * M + m] += fabs(getk(&Bi.v, m));
            eir_karg ab4[4] = {KT(&X1.v), KT(&X2.v), KT(&W.v), KT(&Bi.v)};
            CHECK(run("aten.bilinear.default", ab4, 4, &Ob.v, 1) == 0);
            CHECK(close_contract(&Ob.v, br, bi, ba, "bilinear"));
            /* what bilinear decomposes into: _trilinear(x1, w, x2, [1, 3], [0], [1, 2], [2, 3]) without the bias */
            for (int64_t k = 0; k < Bn * M; k++) br[k] -= getk(&Bi.v, k % M);
            static const int64_t e1[2] = {1, 3}, e2[1] = {0}, e3[2] = {1, 2}, sd[2] = {2, 3};
            eir_karg at[8] = {KT(&X1.v), KT(&W.v), KT(&X2.v), KIS(2, e1), KIS(1, e2), KIS(2, e3), KIS(2, sd), KI(1)};
            fill_poison(&Ob.v);
            CHECK(run("aten._trilinear.default", at, 8, &Ob.v, 1) == 0);
            CHECK(close_contract(&Ob.v, br, bi, ba, "_trilinear"));
            tfree(&X1); tfree(&X2); tfree(&W); tfree(&Bi); tfree(&Ob);
        }
        tfree(&A); tfree(&B); tfree(&O); tfree(&C); tfree(&Oi);
    }
    int64_t s[2] = {2, 3}, s2[2] = {4, 2}, so[2] = {3, 2};
    tt A = tnew(EIR_F32, 2, s, 0), B = tnew(EIR_F32, 2, s2, 0), O = tnew(EIR_F32, 2, so, 0);
    int64_t d1[1] = {0}, d2[1] = {0};
    eir_karg a[4] = {KT(&A.v), KT(&B.v), KIS(1, d1), KIS(1, d2)};
    CHECK_FAILS(run("aten.tensordot.default", a, 4, &O.v, 1), "contracted dimensions need to match, but first has size 2 in dim 0 and second has size 4 in dim 0");
    eir_karg ai[2] = {KT(&A.v), KT(&B.v)};
    CHECK_FAILS(run("aten.inner.default", ai, 2, &O.v, 1), "inner() the last dimension must match on both input tensors but got shapes [2, 3] and [4, 2]");
    tfree(&A); tfree(&B); tfree(&O);
}

/* ======================================================================
 * kron, outer, vdot, addr, addbmm, trace
 * ====================================================================== */

/* the product of two elements rounded to the output dtype, as torch's mul */
static void mul_ref(const eir_tview *x, const int64_t *ix, const eir_tview *y, const int64_t *iy, const eir_tview *o, void *dst) {
    double ar, ai, br, bi;
    rdc(x, ix, &ar, &ai);
    rdc(y, iy, &br, &bi);
    if (o->dtype == EIR_BOOL) eir_store_i64(dst, o->dtype, ar != 0 && br != 0);
    else if (eir_is_complex(o->dtype)) eir_store_c128(dst, o->dtype, ar * br - ai * bi, ar * bi + ai * br);
    else if (eir_is_integral(o->dtype, false)) eir_store_i64(dst, o->dtype, (int64_t)ar * (int64_t)br);
    else eir_store_f64(dst, o->dtype, ar * br);
}

static void test_kron_outer_vdot(void) {
    for (int it = 0; it < 3 * NDTS; it++) {
        eir_dtype dt = DTS[it % NDTS];
        int ra = (int)irand(0, 5), rb = (int)irand(0, 5), r = ra > rb ? ra : rb;
        int64_t sa[5], sb[5], so[5];
        for (int d = 0; d < ra; d++) sa[d] = irand(1, 3);
        for (int d = 0; d < rb; d++) sb[d] = irand(it % 7 == 0 ? 0 : 1, 3);
        for (int d = 0; d < r; d++) {
            int da = d - (r - ra), db = d - (r - rb);
            so[d] = (da >= 0 ? sa[da] : 1) * (db >= 0 ? sb[db] : 1);
        }
        tt A = tnew(dt, ra, sa, it % 4), B = tnew(dt, rb, sb, (it + 1) % 4), O = tnew(dt, r, so, (it + 2) % 3);
        fill_rand(&A.v); fill_rand(&B.v); fill_poison(&O.v);
        eir_karg a[2] = {KT(&A.v), KT(&B.v)};
        CHECK(run("aten.kron.default", a, 2, &O.v, 1) == 0);
        int64_t n = numel(&O.v), oi[5] = {0};
        bool ok = true;
        for (int64_t k = 0; k < n; k++) {
            int64_t ia[5], ib[5];
            for (int d = 0; d < r; d++) {
                int da = d - (r - ra), db = d - (r - rb);
                int64_t zb = db >= 0 ? sb[db] : 1;
                if (da >= 0) ia[da] = oi[d] / zb;
                if (db >= 0) ib[db] = oi[d] % zb;
            }
            unsigned char want[16];
            mul_ref(&A.v, ia, &B.v, ib, &O.v, want);
            ok &= memcmp(eir_tview_at(&O.v, oi), want, eir_dtype_size(dt)) == 0;
            nexti(oi, so, r);
        }
        CHECK(ok);
        if (!ok) fprintf(stderr, "kron %s ranks %d, %d\n", eir_torch_dtype_name(dt), ra, rb);
        tfree(&A); tfree(&B); tfree(&O);
        /* outer / ger */
        int64_t m = irand(0, 4), nn = irand(1, 4), s1[1] = {m}, s2[1] = {nn}, s3[2] = {m, nn};
        tt U = tnew(dt, 1, s1, 2), V = tnew(dt, 1, s2, 0), OU = tnew(dt, 2, s3, it % 2);
        fill_rand(&U.v); fill_rand(&V.v); fill_poison(&OU.v);
        eir_karg ao[2] = {KT(&U.v), KT(&V.v)};
        CHECK(run(it % 2 ? "aten.outer.default" : "aten.ger.default", ao, 2, &OU.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < nn; j++) {
                int64_t ii[1] = {i}, jj[1] = {j}, ij[2] = {i, j};
                unsigned char want[16];
                mul_ref(&U.v, ii, &V.v, jj, &OU.v, want);
                ok &= memcmp(eir_tview_at(&OU.v, ij), want, eir_dtype_size(dt)) == 0;
            }
        CHECK(ok);
        tfree(&U); tfree(&V); tfree(&OU);
    }
    /* vdot conjugates its first argument */
    static const eir_dtype vd[] = {EIR_F32, EIR_F64, EIR_I32, EIR_C64, EIR_C128};
    for (int it = 0; it < 10; it++) {
        eir_dtype dt = vd[it % 5];
        int64_t n = irand(0, 9), s[1] = {n};
        tt X = tnew(dt, 1, s, 2), Y = tnew(dt, 1, s, 0), O = tnew(dt, 0, s, 0);
        fill_rand(&X.v); fill_rand(&Y.v);
        double re = 0, im = 0, ab = 0;
        for (int64_t k = 0; k < n; k++) {
            double ar, ai, br, bi;
            getck(&X.v, k, &ar, &ai);
            getck(&Y.v, k, &br, &bi);
            re += ar * br + ai * bi; im += ar * bi - ai * br; ab += fabs(ar * br) + fabs(ai * bi) + fabs(ar * bi) + fabs(ai * br);
        }
        eir_karg a[2] = {KT(&X.v), KT(&Y.v)};
        CHECK(run("aten.vdot.default", a, 2, &O.v, 1) == 0);
        CHECK(close_contract(&O.v, &re, &im, &ab, "vdot"));
        tfree(&X); tfree(&Y); tfree(&O);
    }
}

static void test_addr_addbmm_trace(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I32, EIR_I64, EIR_U8, EIR_BOOL, EIR_C64};
    for (int it = 0; it < 27; it++) {
        eir_dtype dt = dts[it % 9];
        int64_t n = irand(0, 20), m = irand(1, 40), so[2] = {n, m}, s1[1] = {n}, s2[1] = {m};
        bool bcast = it % 3 == 1, beta0 = it % 5 == 2;
        int64_t ss[2] = {bcast ? 1 : n, m};
        tt S = tnew(dt, 2, ss, it % 4), V1 = tnew(dt, 1, s1, 2), V2 = tnew(dt, 1, s2, 0), O = tnew(dt, 2, so, it % 2);
        fill_rand(&S.v); fill_rand(&V1.v); fill_rand(&V2.v); fill_poison(&O.v);
        double be = beta0 ? 0 : dt == EIR_BOOL ? 1 : 2, al = dt == EIR_BOOL ? 1 : 3;
        eir_karg a[5] = {KT(&S.v), KT(&V1.v), KT(&V2.v), KSI((int64_t)be), KSI((int64_t)al)};
        CHECK(run("aten.addr.default", a, 5, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t i = 0; i < n; i++)
            for (int64_t j = 0; j < m; j++) {
                int64_t ij[2] = {i, j}, sij[2] = {bcast ? 0 : i, j}, ii[1] = {i}, jj[1] = {j};
                double sr, si, ar, ai, br, bi, gr, gi;
                rdc(&S.v, sij, &sr, &si); rdc(&V1.v, ii, &ar, &ai); rdc(&V2.v, jj, &br, &bi); rdc(&O.v, ij, &gr, &gi);
                double wr = al * (ar * br - ai * bi) + (be ? be * sr : 0), wi = al * (ar * bi + ai * br) + (be ? be * si : 0);
                if (dt == EIR_BOOL) ok &= gr == (double)((be && sr) || (ar && br));
                else if (eir_is_integral(dt, false)) { unsigned char t[8]; eir_store_i64(t, dt, (int64_t)wr); ok &= gr == eir_load_f64(t, dt); }
                else ok &= fabs(gr - wr) <= tol_of(dt) * 8 * (1 + fabs(wr)) && fabs(gi - wi) <= tol_of(dt) * 8 * (1 + fabs(wi));
            }
        CHECK(ok);
        if (!ok) fprintf(stderr, "addr %s n %lld m %lld\n", eir_torch_dtype_name(dt), (long long)n, (long long)m);
        tfree(&S); tfree(&V1); tfree(&V2); tfree(&O);
        if (dt == EIR_BOOL || dt == EIR_U8) continue;
        /* addbmm: beta self + alpha sum_b b1[b] @ b2[b] */
        int64_t nb = irand(0, 3), P = irand(1, 4), K = irand(0, 3), Q = irand(1, 4);
        int64_t sb1[3] = {nb, P, K}, sb2[3] = {nb, K, Q}, sq[2] = {P, Q};
        tt B1 = tnew(dt, 3, sb1, it % 4), B2 = tnew(dt, 3, sb2, (it + 1) % 4), M = tnew(dt, 2, sq, 2), OM = tnew(dt, 2, sq, it % 2);
        fill_rand(&B1.v); fill_rand(&B2.v); fill_rand(&M.v); fill_poison(&OM.v);
        eir_karg ab[5] = {KT(&M.v), KT(&B1.v), KT(&B2.v), KSI(2), KSI(3)};
        CHECK(run("aten.addbmm.default", ab, 5, &OM.v, 1) == 0);
        ok = true;
        for (int64_t p = 0; p < P; p++)
            for (int64_t q = 0; q < Q; q++) {
                double wr = 0, wi = 0, mag = 0;
                for (int64_t b = 0; b < nb; b++)
                    for (int64_t k = 0; k < K; k++) {
                        int64_t i1[3] = {b, p, k}, i2[3] = {b, k, q};
                        double ar, ai, br, bi;
                        rdc(&B1.v, i1, &ar, &ai); rdc(&B2.v, i2, &br, &bi);
                        wr += 3 * (ar * br - ai * bi); wi += 3 * (ar * bi + ai * br); mag += 3 * (fabs(ar * br) + fabs(ai * bi));
                    }
                int64_t pq[2] = {p, q};
                double sr, si, gr, gi;
                rdc(&M.v, pq, &sr, &si); rdc(&OM.v, pq, &gr, &gi);
                wr += 2 * sr; wi += 2 * si; mag += 2 * fabs(sr);
                if (eir_is_integral(dt, false)) { unsigned char t[8]; eir_store_i64(t, dt, (int64_t)wr); ok &= gr == eir_load_f64(t, dt); }
                else ok &= fabs(gr - wr) <= tol_of(dt) * 8 * (1 + mag) && fabs(gi - wi) <= tol_of(dt) * 8 * (1 + mag);
            }
        CHECK(ok);
        tfree(&B1); tfree(&B2); tfree(&M); tfree(&OM);
        /* trace: integers sum into int64 */
        int64_t st[2] = {irand(0, 6), irand(1, 6)};
        eir_dtype od = eir_is_integral(dt, true) ? EIR_I64 : dt;
        tt T = tnew(dt, 2, st, it % 4), OT = tnew(od, 0, st, 0);
        fill_rand(&T.v);
        double tr = 0, ti = 0, ta = 0;
        for (int64_t i = 0; i < st[0] && i < st[1]; i++) {
            int64_t ii[2] = {i, i};
            double r, im;
            rdc(&T.v, ii, &r, &im);
            tr += r; ti += im; ta += fabs(r) + fabs(im);
        }
        eir_karg at[1] = {KT(&T.v)};
        CHECK(run("aten.trace.default", at, 1, &OT.v, 1) == 0);
        CHECK(close_contract(&OT.v, &tr, &ti, &ta, "trace"));
        tfree(&T); tfree(&OT);
    }
    int64_t s[2] = {2, 2};
    tt B = tnew(EIR_BOOL, 2, s, 0), OB = tnew(EIR_I64, 0, s, 0);
    eir_karg a[1] = {KT(&B.v)};
    CHECK_FAILS(run("aten.trace.default", a, 1, &OB.v, 1), "\"trace\" not implemented for 'Bool'");
    tfree(&B); tfree(&OB);
}

/* ======================================================================
 * diagonals, eye and shapes: bit-exact element copies
 * ====================================================================== */

static void test_diagonals(void) {
    for (int it = 0; it < 2 * NDTS; it++) {
        eir_dtype dt = DTS[it % NDTS];
        int64_t n = irand(0, 5), k = irand(-2, 2);
        int64_t an = n + (k < 0 ? -k : k), s1[1] = {n}, s2[2] = {an, an};
        tt V = tnew(dt, 1, s1, 2), O = tnew(dt, 2, s2, it % 4);
        fill_rand(&V.v); fill_poison(&O.v);
        eir_karg a[2] = {KT(&V.v), KI(k)};
        CHECK(run("aten.diag.default", a, 2, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t i = 0; i < an; i++)
            for (int64_t j = 0; j < an; j++) {
                int64_t ij[2] = {i, j}, t[1] = {k >= 0 ? i : j};
                ok &= j - i == k ? same_el(&O.v, ij, &V.v, t) : rd(&O.v, ij) == 0;
            }
        CHECK(ok);
        /* diag of a matrix: its k-th diagonal */
        int64_t sm[2] = {irand(0, 4), irand(1, 5)};
        int64_t len = k >= 0 ? (sm[1] - k < sm[0] ? sm[1] - k : sm[0]) : (sm[0] + k < sm[1] ? sm[0] + k : sm[1]);
        if (len < 0) len = 0;
        int64_t sl[1] = {len};
        tt M = tnew(dt, 2, sm, it % 4), D = tnew(dt, 1, sl, 0);
        fill_rand(&M.v);
        eir_karg am[2] = {KT(&M.v), KI(k)};
        CHECK(run("aten.diag.default", am, 2, &D.v, 1) == 0);
        for (int64_t i = 0; i < len; i++) {
            int64_t di[1] = {i}, mi[2] = {k >= 0 ? i : i - k, k >= 0 ? i + k : i};
            CHECK(same_el(&D.v, di, &M.v, mi));
        }
        /* diag_embed(x (p, q), off, 0, 2) -> (q+|off|, p, q+|off|) */
        int64_t p = irand(1, 3), q = irand(0, 3), qa = q + (k < 0 ? -k : k), sx[2] = {p, q}, se[3] = {qa, p, qa};
        tt X = tnew(dt, 2, sx, it % 3), E = tnew(dt, 3, se, (it + 1) % 4);
        fill_rand(&X.v); fill_poison(&E.v);
        eir_karg ae[4] = {KT(&X.v), KI(k), KI(0), KI(2)};
        CHECK(run("aten.diag_embed.default", ae, 4, &E.v, 1) == 0);
        int64_t ei[3] = {0};
        ok = true;
        for (int64_t t = 0; t < numel(&E.v); t++, nexti(ei, se, 3)) {
            int64_t xi[2] = {ei[1], k >= 0 ? ei[0] : ei[2]};
            ok &= ei[2] - ei[0] == k ? same_el(&E.v, ei, &X.v, xi) : rd(&E.v, ei) == 0;
        }
        CHECK(ok);
        /* diagflat of a 2-d x: x's elements row by row */
        int64_t nf = p * q + (k < 0 ? -k : k), sf[2] = {nf, nf};
        tt G = tnew(dt, 2, sf, it % 2);
        fill_poison(&G.v);
        eir_karg af[2] = {KT(&X.v), KI(k)};
        CHECK(run("aten.diagflat.default", af, 2, &G.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < nf; i++)
            for (int64_t j = 0; j < nf; j++) {
                int64_t ij[2] = {i, j}, r = k >= 0 ? i : j, xi[2] = {q ? r / q : 0, q ? r % q : 0};
                ok &= j - i == k ? same_el(&G.v, ij, &X.v, xi) : rd(&G.v, ij) == 0;
            }
        CHECK(ok);
        /* block_diag(x (p, q), v (n), 0-d) */
        int64_t s0[1] = {1}, sbd[2] = {p + 1 + 1, q + n + 1};
        tt Z = tnew(dt, 0, s0, 0), BD = tnew(dt, 2, sbd, it % 4);
        fill_rand(&Z.v); fill_poison(&BD.v);
        const eir_tview *ts[3] = {&X.v, &V.v, &Z.v};
        eir_karg ab[1] = {KTS(3, ts)};
        CHECK(run("aten.block_diag.default", ab, 1, &BD.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < sbd[0]; i++)
            for (int64_t j = 0; j < sbd[1]; j++) {
                int64_t ij[2] = {i, j};
                if (i < p && j < q) { int64_t xi[2] = {i, j}; ok &= same_el(&BD.v, ij, &X.v, xi); }
                else if (i == p && j >= q && j < q + n) { int64_t vi[1] = {j - q}; ok &= same_el(&BD.v, ij, &V.v, vi); }
                else if (i == p + 1 && j == q + n) ok &= same_el(&BD.v, ij, &Z.v, NULL);
                else ok &= rd(&BD.v, ij) == 0;
            }
        CHECK(ok);
        /* eye.m */
        int64_t se2[2] = {irand(0, 4), irand(0, 4)};
        tt I = tnew(dt, 2, se2, it % 4);
        fill_poison(&I.v);
        eir_karg ai[2] = {KI(se2[0]), KI(se2[1])};
        CHECK(run("aten.eye.m", ai, 2, &I.v, 1) == 0);
        int64_t ii[2] = {0, 0};
        ok = true;
        for (int64_t t = 0; t < numel(&I.v); t++, nexti(ii, se2, 2)) ok &= rd(&I.v, ii) == (ii[0] == ii[1]);
        CHECK(ok);
        tfree(&V); tfree(&O); tfree(&M); tfree(&D); tfree(&X); tfree(&E); tfree(&G); tfree(&Z); tfree(&BD); tfree(&I);
    }
}

/* out (of rank r) against src read at map(out index) */
typedef void (*idx_map)(const int64_t *oi, int64_t *si, const int64_t *p);
static bool check_map(const eir_tview *out, const eir_tview *src, idx_map f, const int64_t *p) {
    int64_t oi[EIR_MAX_RANK] = {0}, si[EIR_MAX_RANK];
    for (int64_t t = 0; t < numel(out); t++, nexti(oi, out->sizes, out->rank)) {
        f(oi, si, p);
        if (!same_el(out, oi, src, si)) return false;
    }
    return true;
}
static void map_id(const int64_t *oi, int64_t *si, const int64_t *p) { (void)p; for (int d = 0; d < EIR_MAX_RANK; d++) si[d] = oi[d]; }
static void map_tile(const int64_t *oi, int64_t *si, const int64_t *p) { for (int d = 0; d < (int)p[0]; d++) si[d] = oi[d + p[1]] % p[2 + d]; }
static void map_rot1(const int64_t *oi, int64_t *si, const int64_t *p) { si[0] = oi[1]; si[1] = p[1] - 1 - oi[0]; si[2] = oi[2]; }
static void map_rot2(const int64_t *oi, int64_t *si, const int64_t *p) { si[0] = p[0] - 1 - oi[0]; si[1] = p[1] - 1 - oi[1]; si[2] = oi[2]; }
static void map_rot3(const int64_t *oi, int64_t *si, const int64_t *p) { si[0] = p[0] - 1 - oi[1]; si[1] = oi[0]; si[2] = oi[2]; }
static void map_fliplr(const int64_t *oi, int64_t *si, const int64_t *p) { si[0] = oi[0]; si[1] = p[1] - 1 - oi[1]; si[2] = oi[2]; }
static void map_flipud(const int64_t *oi, int64_t *si, const int64_t *p) { si[0] = p[0] - 1 - oi[0]; si[1] = oi[1]; si[2] = oi[2]; }
static void map_rep_dim(const int64_t *oi, int64_t *si, const int64_t *p) { si[0] = oi[0]; si[1] = oi[1] / p[0]; si[2] = oi[2]; }
static void map_rep_flat(const int64_t *oi, int64_t *si, const int64_t *p) {
    int64_t f = oi[0] / p[0];
    si[2] = f % p[3]; f /= p[3]; si[1] = f % p[2]; si[0] = f / p[2];
}
/* pixel_shuffle: out (N, C, H r, W r) from in (N, C r r, H, W) */
static void map_pshuf(const int64_t *oi, int64_t *si, const int64_t *p) {
    int64_t r = p[0];
    si[0] = oi[0]; si[1] = oi[1] * r * r + (oi[2] % r) * r + oi[3] % r; si[2] = oi[2] / r; si[3] = oi[3] / r;
}
static void map_punshuf(const int64_t *oi, int64_t *si, const int64_t *p) {
    int64_t r = p[0], c = oi[1] / (r * r), i = oi[1] / r % r, j = oi[1] % r;
    si[0] = oi[0]; si[1] = c; si[2] = oi[2] * r + i; si[3] = oi[3] * r + j;
}
static void map_cshuf(const int64_t *oi, int64_t *si, const int64_t *p) {
    int64_t g = p[0], cg = p[1] / g;
    si[0] = oi[0]; si[1] = (oi[1] % g) * cg + oi[1] / g; si[2] = oi[2]; si[3] = oi[3];
}
/* circular padding: negative pads crop x first, then out[o] = x'[(o - pad_l) mod n'] */
static void map_circ(const int64_t *oi, int64_t *si, const int64_t *p) { /* p: rank, count, then (pad_l, pad_r, size) per padded dim from the last */
    int r = (int)p[0];
    for (int d = 0; d < r; d++) si[d] = oi[d];
    for (int k = 0; k < (int)p[1]; k++) {
        int d = r - 1 - k;
        int64_t pl = p[2 + 3 * k], pr = p[3 + 3 * k], n = p[4 + 3 * k];
        int64_t lo = pl < 0 ? -pl : 0, n2 = n - lo - (pr < 0 ? -pr : 0), pl2 = pl > 0 ? pl : 0;
        si[d] = lo + ((oi[d] - pl2) % n2 + n2) % n2;
    }
}

static void test_shapes(void) {
    for (int it = 0; it < 2 * NDTS; it++) {
        eir_dtype dt = DTS[it % NDTS];
        int lay = it % 4;
        /* tile: dims (2, 1, 3) over (a, b): a rank-3 result from rank 2; also a rank-5 tile (10 split dims) */
        int64_t a0 = irand(0, 3), b0 = irand(1, 4), sx[2] = {a0, b0};
        tt X = tnew(dt, 2, sx, lay);
        fill_rand(&X.v);
        int64_t reps[3] = {2, 1, 3}, st[3] = {2, a0, 3 * b0};
        tt T = tnew(dt, 3, st, (lay + 1) % 4);
        fill_poison(&T.v);
        eir_karg at[2] = {KT(&X.v), KIS(3, reps)};
        CHECK(run("aten.tile.default", at, 2, &T.v, 1) == 0);
        int64_t pt[4] = {2, 1, a0 ? a0 : 1, b0};
        CHECK(check_map(&T.v, &X.v, map_tile, pt));
        int64_t s5[5] = {2, 1, 2, 3, 1}, r5[5] = {1, 2, 2, 1, 3}, so5[5] = {2, 2, 4, 3, 3};
        tt X5 = tnew(dt, 5, s5, lay), T5 = tnew(dt, 5, so5, (lay + 2) % 4);
        fill_rand(&X5.v); fill_poison(&T5.v);
        eir_karg at5[2] = {KT(&X5.v), KIS(5, r5)};
        CHECK(run("aten.tile.default", at5, 2, &T5.v, 1) == 0);
        int64_t pt5[7] = {5, 0, 2, 1, 2, 3, 1};
        CHECK(check_map(&T5.v, &X5.v, map_tile, pt5));
        /* rot90 / fliplr / flipud of (p, q, r) */
        int64_t p = irand(1, 4), q = irand(1, 4), r = irand(0, 2), s3[3] = {p, q, r}, sr[3] = {q, p, r};
        tt Y = tnew(dt, 3, s3, lay), R1 = tnew(dt, 3, sr, (lay + 1) % 4), R2 = tnew(dt, 3, s3, lay), R3 = tnew(dt, 3, sr, 0), FL = tnew(dt, 3, s3, 2), FU = tnew(dt, 3, s3, 1);
        fill_rand(&Y.v);
        int64_t dims[2] = {0, 1}, ps[2] = {p, q};
        eir_karg ar1[3] = {KT(&Y.v), KI(1), KIS(2, dims)}, ar2[3] = {KT(&Y.v), KI(-2), KIS(2, dims)}, ar3[3] = {KT(&Y.v), KI(7), KIS(2, dims)};
        CHECK(run("aten.rot90.default", ar1, 3, &R1.v, 1) == 0 && check_map(&R1.v, &Y.v, map_rot1, ps));
        CHECK(run("aten.rot90.default", ar2, 3, &R2.v, 1) == 0 && check_map(&R2.v, &Y.v, map_rot2, ps));
        CHECK(run("aten.rot90.default", ar3, 3, &R3.v, 1) == 0 && check_map(&R3.v, &Y.v, map_rot3, ps));
        eir_karg af[1] = {KT(&Y.v)};
        CHECK(run("aten.fliplr.default", af, 1, &FL.v, 1) == 0 && check_map(&FL.v, &Y.v, map_fliplr, ps));
        CHECK(run("aten.flipud.default", af, 1, &FU.v, 1) == 0 && check_map(&FU.v, &Y.v, map_flipud, ps));
        int64_t bad[2] = {0, 3};
        eir_karg arb[3] = {KT(&Y.v), KI(1), KIS(2, bad)};
        CHECK_FAILS(run("aten.rot90.default", arb, 3, &R1.v, 1), "expected rotation dims to be different, but got dim0 = 0 and dim1 = 3");
        /* repeat_interleave.self_int, along dim 1 and flattened */
        int64_t rep = irand(0, 3), sri[3] = {p, q * rep, r}, srf[1] = {p * q * r * rep};
        tt RI = tnew(dt, 3, sri, lay), RF = tnew(dt, 1, srf, 0);
        fill_poison(&RI.v); fill_poison(&RF.v);
        eir_karg ari[4] = {KT(&Y.v), KI(rep), KI(1), KN()}, arf[4] = {KT(&Y.v), KI(rep), KN(), KN()};
        int64_t pri[4] = {rep ? rep : 1, p, q, r ? r : 1};
        CHECK(run("aten.repeat_interleave.self_int", ari, 4, &RI.v, 1) == 0 && check_map(&RI.v, &Y.v, map_rep_dim, pri));
        CHECK(run("aten.repeat_interleave.self_int", arf, 4, &RF.v, 1) == 0 && check_map(&RF.v, &Y.v, map_rep_flat, pri));
        /* unsafe_split / unsafe_chunk: slices of dim 1 sized as the outputs */
        int64_t w = irand(1, 7), sw[2] = {p, w}, c1 = (w + 2) / 3;
        tt W = tnew(dt, 2, sw, lay);
        fill_rand(&W.v);
        tt parts[3];
        eir_tview pv[3];
        int np = 0;
        for (int64_t at0 = 0; at0 < w; at0 += c1, np++) {
            int64_t sp[2] = {p, at0 + c1 <= w ? c1 : w - at0};
            parts[np] = tnew(dt, 2, sp, np % 2);
            fill_poison(&parts[np].v);
            pv[np] = parts[np].v;
        }
        eir_karg asp[3] = {KT(&W.v), KI(3), KI(-1)};
        CHECK(run("aten.unsafe_chunk.default", asp, 3, pv, (uint32_t)np) == 0);
        bool ok = true;
        for (int k = 0; k < np; k++)
            for (int64_t i = 0; i < p; i++)
                for (int64_t j = 0; j < pv[k].sizes[1]; j++) {
                    int64_t oi[2] = {i, j}, si[2] = {i, k * c1 + j};
                    ok &= same_el(&pv[k], oi, &W.v, si);
                }
        CHECK(ok);
        for (int k = 0; k < np; k++) tfree(&parts[k]);
        /* pixel_shuffle / pixel_unshuffle / channel_shuffle */
        int64_t rr = irand(1, 3), C = irand(1, 2), H = irand(1, 3), Wd = irand(1, 3);
        int64_t spi[4] = {2, C * rr * rr, H, Wd}, spo[4] = {2, C, H * rr, Wd * rr};
        tt PI = tnew(dt, 4, spi, lay), PO = tnew(dt, 4, spo, (lay + 1) % 4), PU = tnew(dt, 4, spi, (lay + 3) % 4);
        fill_rand(&PI.v); fill_poison(&PO.v); fill_poison(&PU.v);
        int64_t pr[1] = {rr};
        eir_karg aps[2] = {KT(&PI.v), KI(rr)}, apu[2] = {KT(&PO.v), KI(rr)};
        CHECK(run("aten.pixel_shuffle.default", aps, 2, &PO.v, 1) == 0 && check_map(&PO.v, &PI.v, map_pshuf, pr));
        CHECK(run("aten.pixel_unshuffle.default", apu, 2, &PU.v, 1) == 0 && check_map(&PU.v, &PO.v, map_punshuf, pr));
        CHECK(check_map(&PU.v, &PI.v, map_id, pr)); /* unshuffle(shuffle(x)) is x */
        int64_t g = irand(1, 3), scs[4] = {2, g * irand(1, 3), 2, 1};
        tt CS = tnew(dt, 4, scs, lay), CO = tnew(dt, 4, scs, (lay + 2) % 4);
        fill_rand(&CS.v); fill_poison(&CO.v);
        int64_t pg[2] = {g, scs[1]};
        eir_karg acs[2] = {KT(&CS.v), KI(g)};
        CHECK(run(it % 2 ? "aten.channel_shuffle.default" : "aten.native_channel_shuffle.default", acs, 2, &CO.v, 1) == 0 && check_map(&CO.v, &CS.v, map_cshuf, pg));
        eir_karg acb[2] = {KT(&CS.v), KI(scs[1] + 1)};
        if (scs[1] > 1) CHECK_FAILS(run("aten.channel_shuffle.default", acb, 2, &CO.v, 1), "Number of channels must be divisible by groups.");
        /* circular padding: out[o] = x[(o - pad_left) mod n], negative pads crop */
        int64_t pad[4] = {irand(-1, 2), irand(-1, 2), irand(0, 2), irand(-1, 1)};
        int64_t sci[3] = {2, 3, 4}, sco[3] = {2, 3 + pad[2] + pad[3], 4 + pad[0] + pad[1]};
        tt CI = tnew(dt, 3, sci, lay), CC = tnew(dt, 3, sco, (lay + 1) % 4);
        fill_rand(&CI.v); fill_poison(&CC.v);
        eir_karg apd[4] = {KT(&CI.v), KIS(4, pad), KSTR("circular"), KN()};
        int64_t pc[8] = {3, 2, pad[0], pad[1], 4, pad[2], pad[3], 3};
        CHECK(run("aten.pad.default", apd, 4, &CC.v, 1) == 0 && check_map(&CC.v, &CI.v, map_circ, pc));
        tfree(&X); tfree(&T); tfree(&X5); tfree(&T5); tfree(&Y); tfree(&R1); tfree(&R2); tfree(&R3); tfree(&FL); tfree(&FU);
        tfree(&RI); tfree(&RF); tfree(&W); tfree(&PI); tfree(&PO); tfree(&PU); tfree(&CS); tfree(&CO); tfree(&CI); tfree(&CC);
    }
}

/* meshgrid, broadcast_tensors, atleast_nd, cartesian_prod, combinations */
static void test_grids(void) {
    for (int it = 0; it < NDTS; it++) {
        eir_dtype dt = DTS[it];
        int64_t n0 = irand(0, 3), n1 = irand(1, 4), s0[1] = {n0}, s1[1] = {n1}, sz[1] = {1};
        tt A = tnew(dt, 1, s0, 2), B = tnew(dt, 1, s1, 0), Z = tnew(dt, 0, sz, 0);
        fill_rand(&A.v); fill_rand(&B.v); fill_rand(&Z.v);
        const eir_tview *ts[3] = {&A.v, &B.v, &Z.v};
        for (int xy = 0; xy < 2; xy++) {
            int64_t so[3] = {xy ? n1 : n0, xy ? n0 : n1, 1};
            tt O[3];
            eir_tview ov[3];
            for (int k = 0; k < 3; k++) { O[k] = tnew(dt, 3, so, (it + k) % 4); fill_poison(&O[k].v); ov[k] = O[k].v; }
            eir_karg a[2] = {KTS(3, ts), KSTR(xy ? "xy" : "ij")};
            CHECK(run("aten.meshgrid.indexing", a, 2, ov, 3) == 0);
            int64_t oi[3] = {0};
            bool ok = true;
            for (int64_t t = 0; t < numel(&ov[0]); t++, nexti(oi, so, 3)) {
                int64_t i0 = xy ? oi[1] : oi[0], i1 = xy ? oi[0] : oi[1];
                ok &= same_el(&ov[0], oi, &A.v, &i0) && same_el(&ov[1], oi, &B.v, &i1) && same_el(&ov[2], oi, &Z.v, NULL);
            }
            CHECK(ok);
            for (int k = 0; k < 3; k++) tfree(&O[k]);
        }
        /* broadcast_tensors(a (n0, 1), b (n1), z) -> three (n0, n1) */
        int64_t sa2[2] = {n0, 1}, sb2[2] = {n0, n1};
        tt A2 = tnew(dt, 2, sa2, 1), O[3];
        fill_rand(&A2.v);
        const eir_tview *tb[3] = {&A2.v, &B.v, &Z.v};
        eir_tview ov[3];
        for (int k = 0; k < 3; k++) { O[k] = tnew(dt, 2, sb2, (it + k) % 4); fill_poison(&O[k].v); ov[k] = O[k].v; }
        eir_karg ab[1] = {KTS(3, tb)};
        CHECK(run("aten.broadcast_tensors.default", ab, 1, ov, 3) == 0);
        int64_t oi[2] = {0};
        bool ok = true;
        for (int64_t t = 0; t < n0 * n1; t++, nexti(oi, sb2, 2)) {
            int64_t ia[2] = {oi[0], 0};
            ok &= same_el(&ov[0], oi, &A2.v, ia) && same_el(&ov[1], oi, &B.v, &oi[1]) && same_el(&ov[2], oi, &Z.v, NULL);
        }
        CHECK(ok);
        for (int k = 0; k < 3; k++) tfree(&O[k]);
        /* atleast_3d.Sequence(z, b, a2): (1, 1, 1), (1, n1, 1), (n0, 1, 1) */
        int64_t q0[3] = {1, 1, 1}, q1[3] = {1, n1, 1}, q2[3] = {n0, 1, 1};
        tt L0 = tnew(dt, 3, q0, 0), L1 = tnew(dt, 3, q1, 1), L2 = tnew(dt, 3, q2, 2);
        eir_tview lv[3] = {L0.v, L1.v, L2.v};
        const eir_tview *tl[3] = {&Z.v, &B.v, &A2.v};
        eir_karg al[1] = {KTS(3, tl)};
        CHECK(run("aten.atleast_3d.Sequence", al, 1, lv, 3) == 0);
        int64_t z3[3] = {0, 0, 0};
        CHECK(same_el(&lv[0], z3, &Z.v, NULL));
        ok = true;
        for (int64_t j = 0; j < n1; j++) { int64_t i3[3] = {0, j, 0}; ok &= same_el(&lv[1], i3, &B.v, &j); }
        for (int64_t i = 0; i < n0; i++) { int64_t i3[3] = {i, 0, 0}, i2[2] = {i, 0}; ok &= same_el(&lv[2], i3, &A2.v, i2); }
        CHECK(ok);
        tfree(&L0); tfree(&L1); tfree(&L2);
        /* cartesian_prod(a, b): rows (a[i], b[j]) */
        int64_t sc[2] = {n0 * n1, 2};
        tt CP = tnew(dt, 2, sc, it % 2);
        fill_poison(&CP.v);
        const eir_tview *tc[2] = {&A.v, &B.v};
        eir_karg ac[1] = {KTS(2, tc)};
        CHECK(run("aten.cartesian_prod.default", ac, 1, &CP.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < n0; i++)
            for (int64_t j = 0; j < n1; j++) {
                int64_t r0[2] = {i * n1 + j, 0}, r1[2] = {i * n1 + j, 1};
                ok &= same_el(&CP.v, r0, &A.v, &i) && same_el(&CP.v, r1, &B.v, &j);
            }
        CHECK(ok);
        /* combinations(b, r): increasing index tuples, lexicographic; the presize agrees */
        for (int r = 1; r <= 3; r++)
            for (int repl = 0; repl < 2; repl++) {
                int64_t cnt = 0, idx[3];
                int64_t total = 1;
                for (int k = 0; k < r; k++) total *= n1;
                int64_t rows[256][3];
                for (int64_t t = 0; t < total && cnt < 256; t++) {
                    int64_t u = t;
                    for (int k = r - 1; k >= 0; k--) { idx[k] = u % n1; u /= n1; }
                    bool good = true;
                    for (int k = 1; k < r; k++) good &= repl ? idx[k] >= idx[k - 1] : idx[k] > idx[k - 1];
                    if (good) { memcpy(rows[cnt], idx, sizeof idx); cnt++; }
                }
                int64_t so[2] = {cnt, r}, ps[EIR_MAX_RANK];
                int32_t prank = 0;
                eir_karg a[3] = {KT(&B.v), KI(r), KB(repl)};
                eir_kctx ctx = {errbuf, sizeof errbuf, 1, NULL};
                CHECK(eir_compose_presize("aten.combinations.default", a, 3, 0, ps, &prank, &ctx) == 1 && prank == 2 && ps[0] == cnt && ps[1] == r);
                tt CO = tnew(dt, 2, so, 0);
                fill_poison(&CO.v);
                CHECK(run("aten.combinations.default", a, 3, &CO.v, 1) == 0);
                ok = true;
                for (int64_t i = 0; i < cnt; i++)
                    for (int k = 0; k < r; k++) { int64_t oi2[2] = {i, k}; ok &= same_el(&CO.v, oi2, &B.v, &rows[i][k]); }
                CHECK(ok);
                tfree(&CO);
            }
        tfree(&A); tfree(&B); tfree(&Z); tfree(&A2); tfree(&CP);
    }
}

/* ======================================================================
 * indexing
 * ====================================================================== */

static int64_t flat_to(const eir_tview *v, int64_t f, int64_t *idx) { unravel(v, f, idx); return f; }

static void test_indexing(void) {
    for (int it = 0; it < 2 * NDTS; it++) {
        eir_dtype dt = DTS[it % NDTS];
        int lay = it % 4;
        int64_t p = irand(1, 4), q = irand(1, 5), sx[2] = {p, q}, n = p * q;
        tt X = tnew(dt, 2, sx, lay);
        fill_rand(&X.v);
        /* take: negative indices wrap */
        int64_t si[2] = {2, 3};
        tt I = tnew(EIR_I64, 2, si, 1), O = tnew(dt, 2, si, (lay + 1) % 4);
        for (int64_t k = 0; k < 6; k++) setk(&I.v, k, (double)irand(-n, n - 1));
        eir_karg at[2] = {KT(&X.v), KT(&I.v)};
        CHECK(run("aten.take.default", at, 2, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t k = 0; k < 6; k++) {
            int64_t i = (int64_t)getk(&I.v, k), xi[2], oi[2];
            flat_to(&X.v, i < 0 ? i + n : i, xi);
            unravel(&O.v, k, oi);
            ok &= same_el(&O.v, oi, &X.v, xi);
        }
        CHECK(ok);
        setk(&I.v, 4, (double)n);
        char msg[128];
        snprintf(msg, sizeof msg, "out of range: tried to access index %lld on a tensor of %lld elements.", (long long)n, (long long)n);
        CHECK_FAILS(run("aten.take.default", at, 2, &O.v, 1), msg);
        /* take_along_dim along dim 1: indices modulo the dim's size */
        int64_t sj[2] = {p, 3};
        tt J = tnew(EIR_I64, 2, sj, 0), OJ = tnew(dt, 2, sj, lay);
        for (int64_t k = 0; k < p * 3; k++) setk(&J.v, k, (double)irand(-2 * q, 2 * q));
        eir_karg aj[3] = {KT(&X.v), KT(&J.v), KI(1)};
        CHECK(run("aten.take_along_dim.default", aj, 3, &OJ.v, 1) == 0);
        ok = true;
        for (int64_t k = 0; k < p * 3; k++) {
            int64_t oi[2];
            unravel(&OJ.v, k, oi);
            int64_t j = (int64_t)getk(&J.v, k) % q;
            if (j < 0) j += q;
            int64_t xi[2] = {oi[0], j};
            ok &= same_el(&OJ.v, oi, &X.v, xi);
        }
        CHECK(ok);
        /* put (with and without accumulate) into a copy of x */
        int64_t sp[1] = {4};
        tt PI = tnew(EIR_I64, 1, sp, 0), PS = tnew(dt, 1, sp, 2), PO = tnew(dt, 2, sx, (lay + 2) % 4);
        fill_rand(&PS.v);
        for (int64_t k = 0; k < 4; k++) setk(&PI.v, k, (double)(k == 3 ? getk(&PI.v, 0) : irand(-n, n - 1)));
        for (int acc = 0; acc < 2; acc++) {
            fill_poison(&PO.v);
            eir_karg ap[4] = {KT(&X.v), KT(&PI.v), KT(&PS.v), KB(acc)};
            CHECK(run("aten.put.default", ap, 4, &PO.v, 1) == 0);
            /* reference in a contiguous double copy */
            double wr[64], wi[64];
            for (int64_t k = 0; k < n; k++) getck(&X.v, k, &wr[k], &wi[k]);
            for (int64_t k = 0; k < 4; k++) {
                int64_t i = (int64_t)getk(&PI.v, k);
                if (i < 0) i += n;
                double sr, s2;
                getck(&PS.v, k, &sr, &s2);
                if (acc && dt == EIR_BOOL) wr[i] = wr[i] || sr;
                else if (acc) { wr[i] += sr; wi[i] += s2; }
                else { wr[i] = sr; wi[i] = s2; }
                unsigned char t[16]; /* each accumulation rounds to the dtype */
                if (eir_is_integral(dt, true)) eir_store_i64(t, dt, (int64_t)wr[i]);
                else eir_store_c128(t, dt, wr[i], wi[i]);
                eir_load_c128(t, dt, &wr[i], &wi[i]);
            }
            ok = true;
            for (int64_t k = 0; k < n; k++) {
                double gr, gi;
                getck(&PO.v, k, &gr, &gi);
                unsigned char t[16];
                eir_store_c128(t, dt, wr[k], wi[k]);
                double er, ei;
                eir_load_c128(t, dt, &er, &ei);
                ok &= gr == er && gi == ei;
            }
            CHECK(ok);
        }
        /* index_copy / index_fill (value and 0-d tensor) along dim 0 */
        int64_t sic[1] = {2}, ssrc[2] = {2, q};
        tt IC = tnew(EIR_I64, 1, sic, 0), SRC = tnew(dt, 2, ssrc, lay), OC = tnew(dt, 2, sx, 1);
        fill_rand(&SRC.v);
        setk(&IC.v, 0, (double)(p - 1));
        setk(&IC.v, 1, 0);
        eir_karg aic[4] = {KT(&X.v), KI(0), KT(&IC.v), KT(&SRC.v)};
        CHECK(run("aten.index_copy.default", aic, 4, &OC.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < p; i++)
            for (int64_t j = 0; j < q; j++) {
                int64_t ij[2] = {i, j}, s0[2] = {0, j}, s1[2] = {1, j};
                ok &= same_el(&OC.v, ij, i == 0 ? &SRC.v : i == p - 1 ? &SRC.v : &X.v, i == 0 ? s1 : i == p - 1 ? s0 : ij);
            }
        CHECK(ok);
        setk(&IC.v, 1, (double)p);
        snprintf(msg, sizeof msg, "index_copy_(): index %lld is out of bounds for dimension 0 with size %lld", (long long)p, (long long)p);
        CHECK_FAILS(run("aten.index_copy.default", aic, 4, &OC.v, 1), msg);
        setk(&IC.v, 1, -1);
        eir_karg aif[4] = {KT(&X.v), KI(-1), KT(&IC.v), KSI(1)};
        int64_t ifi[1] = {0};
        setk(&IC.v, 0, 0);
        CHECK(run("aten.index_fill.int_Scalar", aif, 4, &OC.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < p; i++)
            for (int64_t j = 0; j < q; j++) {
                int64_t ij[2] = {i, j};
                ok &= (j == 0 || j == q - 1) ? rd(&OC.v, ij) == 1 : same_el(&OC.v, ij, &X.v, ij);
            }
        CHECK(ok);
        (void)ifi;
        /* in place: index_fill_ on its own output */
        tt Z = tnew(dt, 0, sx, 0);
        fill_rand(&Z.v);
        eir_karg aiz[4] = {KT(&OC.v), KI(0), KT(&IC.v), KT(&Z.v)};
        CHECK(run("aten.index_fill_.int_Tensor", aiz, 4, &OC.v, 1) == 0);
        ok = true;
        for (int64_t j = 0; j < q; j++) { int64_t ij[2] = {0, j}; ok &= same_el(&OC.v, ij, &Z.v, NULL); }
        CHECK(ok);
        /* as_strided_copy / as_strided_scatter on a contiguous base */
        int64_t sb[1] = {12}, sa2[2] = {2, 3}, stv[2] = {1, 4};
        tt BS = tnew(dt, 1, sb, 0), AO = tnew(dt, 2, sa2, lay), SO = tnew(dt, 1, sb, 0), SS = tnew(dt, 2, sa2, 1);
        fill_rand(&BS.v); fill_rand(&SS.v);
        eir_karg aas[4] = {KT(&BS.v), KIS(2, sa2), KIS(2, stv), KI(1)};
        CHECK(run("aten.as_strided_copy.default", aas, 4, &AO.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < 2; i++)
            for (int64_t j = 0; j < 3; j++) { int64_t ij[2] = {i, j}, b[1] = {1 + i + 4 * j}; ok &= same_el(&AO.v, ij, &BS.v, b); }
        CHECK(ok);
        eir_karg ass[5] = {KT(&BS.v), KT(&SS.v), KIS(2, sa2), KIS(2, stv), KI(1)};
        CHECK(run("aten.as_strided_scatter.default", ass, 5, &SO.v, 1) == 0);
        ok = true;
        for (int64_t k = 0; k < 12; k++) {
            int64_t kk[1] = {k}, i = (k - 1) % 4, j = (k - 1) / 4, ij[2] = {i, j};
            bool hit = k >= 1 && i < 2 && j < 3;
            ok &= hit ? same_el(&SO.v, kk, &SS.v, ij) : same_el(&SO.v, kk, &BS.v, kk);
        }
        CHECK(ok);
        int64_t big[2] = {4, 4}, bst[2] = {4, 1};
        tt AB = tnew(dt, 2, big, 0);
        eir_karg abad[4] = {KT(&BS.v), KIS(2, big), KIS(2, bst), KN()};
        CHECK_FAILS(run("aten.as_strided_copy.default", abad, 4, &AB.v, 1), "out of bounds for storage of size");
        tfree(&X); tfree(&I); tfree(&O); tfree(&J); tfree(&OJ); tfree(&PI); tfree(&PS); tfree(&PO); tfree(&IC); tfree(&SRC); tfree(&OC);
        tfree(&Z); tfree(&BS); tfree(&AO); tfree(&SO); tfree(&SS); tfree(&AB);
    }
}

/* index_reduce against a sequential loop in the dtype */
static void test_index_reduce(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I8, EIR_I32, EIR_I64, EIR_U8};
    static const char *reds[] = {"prod", "mean", "amax", "amin"};
    for (int it = 0; it < 64; it++) {
        eir_dtype dt = dts[it % 8];
        const char *red = reds[it / 8 % 4];
        bool inc = it / 32 == 0;
        int64_t p = irand(1, 4), q = irand(1, 3), m = irand(0, 5), sx[2] = {p, q}, ss[2] = {m, q}, si[1] = {m};
        tt X = tnew(dt, 2, sx, it % 4), S = tnew(dt, 2, ss, (it + 1) % 4), I = tnew(EIR_I64, 1, si, 0), O = tnew(dt, 2, sx, it % 2);
        fill_rand(&X.v); fill_rand(&S.v);
        if (eir_is_floating(dt) && it % 5 == 0) setk(&X.v, 0, NAN);
        for (int64_t k = 0; k < m; k++) setk(&I.v, k, (double)irand(0, p - 1));
        eir_karg a[6] = {KT(&X.v), KI(0), KT(&I.v), KT(&S.v), KSTR(red), KB(inc)};
        CHECK(run("aten.index_reduce.default", a, 6, &O.v, 1) == 0);
        bool ok = true, flt = eir_is_floating(dt);
        for (int64_t i = 0; i < p; i++)
            for (int64_t j = 0; j < q; j++) {
                int64_t ij[2] = {i, j};
                double acc = rd(&X.v, ij);
                int64_t cnt = inc, hits = 0;
                for (int64_t k = 0; k < m; k++) {
                    if ((int64_t)getk(&I.v, k) != i) continue;
                    int64_t kj[2] = {k, j};
                    double v = rd(&S.v, kj);
                    bool amax = !strcmp(red, "amax"), amin = !strcmp(red, "amin");
                    if (hits++ == 0 && !inc) acc = red[0] == 'p' ? 1 : amax ? -INFINITY : amin ? INFINITY : 0;
                    if (!flt && hits == 1 && !inc && (amax || amin)) {
                        unsigned char t[8];
                        eir_store_i64(t, dt, amax ? (dt == EIR_U8 ? 0 : dt == EIR_I8 ? -128 : dt == EIR_I32 ? INT32_MIN : INT64_MIN)
                                                  : (dt == EIR_U8 ? 255 : dt == EIR_I8 ? 127 : dt == EIR_I32 ? INT32_MAX : INT64_MAX));
                        acc = eir_load_f64(t, dt);
                    }
                    unsigned char t[16];
                    if (red[0] == 'p') acc = acc * v;
                    else if (red[1] == 'e') acc = acc + v;
                    else if (isnan(v) || isnan(acc)) acc = NAN;
                    else acc = amax ? fmax(acc, v) : fmin(acc, v);
                    if (flt) { eir_store_f64(t, dt, acc); acc = eir_load_f64(t, dt); }
                    else { eir_store_i64(t, dt, (int64_t)acc); acc = eir_load_f64(t, dt); }
                    cnt++;
                }
                if (red[1] == 'e' && cnt > 1) {
                    if (flt) acc = acc / (double)cnt;
                    else acc = floor(acc / (double)cnt);
                }
                double g = rd(&O.v, ij);
                unsigned char t[16];
                if (flt) eir_store_f64(t, dt, acc);
                else eir_store_i64(t, dt, (int64_t)acc);
                double w = eir_load_f64(t, dt);
                ok &= (isnan(w) && isnan(g)) || g == w;
            }
        CHECK(ok);
        if (!ok) fprintf(stderr, "index_reduce %s %s include_self=%d\n", red, eir_torch_dtype_name(dt), inc);
        if (m > 0) {
            setk(&I.v, 0, -1);
            CHECK_FAILS(run("aten.index_reduce.default", a, 6, &O.v, 1), "index out of range in self");
        }
        tfree(&X); tfree(&S); tfree(&I); tfree(&O);
    }
    int64_t s[2] = {2, 2}, si[1] = {1};
    tt X = tnew(EIR_F32, 2, s, 0), I = tnew(EIR_I64, 1, si, 0), S = tnew(EIR_F32, 2, s, 0);
    S.v.sizes[0] = 1;
    eir_karg a[6] = {KT(&X.v), KI(0), KT(&I.v), KT(&S.v), KSTR("sum"), KB(true)};
    CHECK_FAILS(run("aten.index_reduce.default", a, 6, &X.v, 1), "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.");
    tfree(&X); tfree(&I); tfree(&S);
}

/* nonzero_static, count_nonzero, unique_consecutive (with the presize the runtime asks) */
static void test_nonzero_unique(void) {
    for (int it = 0; it < 2 * NDTS; it++) {
        eir_dtype dt = DTS[it % NDTS];
        int64_t sx[3] = {irand(0, 3), irand(1, 3), irand(1, 4)};
        tt X = tnew(dt, 3, sx, it % 4);
        fill_rand(&X.v);
        for (int64_t k = 0; k < numel(&X.v); k++) if (irand(0, 2) == 0) setk(&X.v, k, 0);
        int64_t nz = 0, rows[64][3];
        int64_t xi[3] = {0};
        for (int64_t k = 0; k < numel(&X.v); k++, nexti(xi, sx, 3)) {
            double re, im;
            rdc(&X.v, xi, &re, &im);
            if (re != 0 || im != 0) memcpy(rows[nz++], xi, sizeof xi);
        }
        int64_t size = irand(0, nz + 2), so[2] = {size, 3};
        tt O = tnew(EIR_I64, 2, so, it % 2);
        eir_karg a[3] = {KT(&X.v), KI(size), KI(-9)};
        CHECK(run("aten.nonzero_static.default", a, 3, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t r = 0; r < size; r++)
            for (int d = 0; d < 3; d++) { int64_t rd2[2] = {r, d}; ok &= rd(&O.v, rd2) == (r < nz ? rows[r][d] : -9); }
        CHECK(ok);
        /* count_nonzero over dims (0, 2) */
        int64_t sc[1] = {sx[1]}, dims[2] = {0, -1};
        tt C = tnew(EIR_I64, 1, sc, 0);
        eir_karg ac[2] = {KT(&X.v), KIS(2, dims)};
        CHECK(run("aten.count_nonzero.dim_IntList", ac, 2, &C.v, 1) == 0);
        ok = true;
        for (int64_t j = 0; j < sx[1]; j++) {
            int64_t c = 0;
            for (int64_t r = 0; r < nz; r++) c += rows[r][1] == j;
            ok &= getk(&C.v, j) == (double)c;
        }
        CHECK(ok);
        tfree(&X); tfree(&O); tfree(&C);
        if (eir_is_complex(dt)) continue;
        /* unique_consecutive of a run-heavy vector, flat and along dim 1 of a matrix */
        int64_t n = irand(0, 12), sv[1] = {n};
        tt V = tnew(dt, 1, sv, it % 3);
        for (int64_t k = 0; k < n; k++) setk(&V.v, k, (double)(irand(0, 3) == 0 ? irand(0, 3) : (k ? getk(&V.v, k - 1) : 1)));
        int64_t u = 0, first[16], counts[16], inv[16];
        for (int64_t k = 0; k < n; k++) {
            if (k == 0 || getk(&V.v, k) != getk(&V.v, k - 1)) { first[u] = k; counts[u] = 0; u++; }
            counts[u - 1]++;
            inv[k] = u - 1;
        }
        eir_karg au[4] = {KT(&V.v), KB(true), KB(true), KN()};
        int64_t ps[EIR_MAX_RANK];
        int32_t pr;
        eir_kctx ctx = {errbuf, sizeof errbuf, 1, NULL};
        CHECK(eir_compose_presize("aten.unique_consecutive.default", au, 4, 0, ps, &pr, &ctx) == 1 && pr == 1 && ps[0] == u);
        CHECK(eir_compose_presize("aten.unique_consecutive.default", au, 4, 2, ps, &pr, &ctx) == 1 && pr == 1 && ps[0] == u);
        int64_t su[1] = {u};
        tt UV = tnew(dt, 1, su, 0), UI = tnew(EIR_I64, 1, sv, 0), UC = tnew(EIR_I64, 1, su, 0);
        eir_tview uo[3] = {UV.v, UI.v, UC.v};
        CHECK(run("aten.unique_consecutive.default", au, 4, uo, 3) == 0);
        ok = true;
        for (int64_t g = 0; g < u; g++) ok &= same_el(&uo[0], &g, &V.v, &first[g]) && getk(&uo[2], g) == (double)counts[g];
        for (int64_t k = 0; k < n; k++) ok &= getk(&uo[1], k) == (double)inv[k];
        CHECK(ok);
        /* dim=1 of a (2, n) matrix whose rows repeat V */
        int64_t sm[2] = {2, n};
        tt M = tnew(dt, 2, sm, it % 4);
        for (int64_t k = 0; k < 2 * n; k++) setk(&M.v, k, getk(&V.v, k % n));
        eir_karg am[4] = {KT(&M.v), KB(false), KB(true), KI(1)};
        int64_t smo[2] = {2, u};
        tt MV = tnew(dt, 2, smo, 1), MI = tnew(EIR_I64, 1, (int64_t[1]){0}, 0), MC = tnew(EIR_I64, 1, su, 0);
        CHECK(eir_compose_presize("aten.unique_consecutive.default", am, 4, 0, ps, &pr, &ctx) == 1 && pr == 2 && ps[0] == 2 && ps[1] == u);
        eir_tview mo[3] = {MV.v, MI.v, MC.v};
        CHECK(run("aten.unique_consecutive.default", am, 4, mo, 3) == 0);
        ok = true;
        for (int64_t g = 0; g < u; g++)
            for (int64_t r = 0; r < 2; r++) { int64_t a2[2] = {r, g}, b2[2] = {r, first[g]}; ok &= same_el(&mo[0], a2, &M.v, b2); }
        for (int64_t g = 0; g < u; g++) ok &= getk(&mo[2], g) == (double)counts[g];
        CHECK(ok);
        tfree(&V); tfree(&UV); tfree(&UI); tfree(&UC); tfree(&M); tfree(&MV); tfree(&MI); tfree(&MC);
    }
}

/* ======================================================================
 * reductions and vector ops
 * ====================================================================== */

static void test_reductions(void) {
    for (int it = 0; it < NDTS; it++) {
        eir_dtype dt = DTS[it];
        /* sum_to_size(x (2, p, q), [p, 1]) sums dim 0 and dim 2 */
        int64_t p = irand(1, 3), q = irand(0, 4), sx[3] = {2, p, q}, sz[2] = {p, 1};
        eir_dtype od = eir_is_integral(dt, true) ? EIR_I64 : dt;
        tt X = tnew(dt, 3, sx, it % 4), O = tnew(od, 2, sz, 0);
        fill_rand(&X.v);
        eir_karg a[2] = {KT(&X.v), KIS(2, sz)};
        CHECK(run("aten.sum_to_size.default", a, 2, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t j = 0; j < p; j++) {
            double wr = 0, wi = 0, ab = 0;
            for (int64_t i = 0; i < 2; i++)
                for (int64_t k = 0; k < q; k++) {
                    int64_t ix[3] = {i, j, k};
                    double r, im;
                    rdc(&X.v, ix, &r, &im);
                    wr += r; wi += im; ab += fabs(r) + fabs(im);
                }
            double gr, gi;
            getck(&O.v, j, &gr, &gi);
            ok &= eir_is_integral(od, false) ? gr == wr : fabs(gr - wr) <= tol_of(od) * 4 * (1 + ab) && fabs(gi - wi) <= tol_of(od) * 4 * (1 + ab);
        }
        CHECK(ok);
        tfree(&X); tfree(&O);
    }
    /* segment_reduce by lengths (2-d lengths over axis 1) and by offsets */
    static const eir_dtype fd[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
    static const char *reds[] = {"sum", "mean", "max", "min", "prod"};
    for (int it = 0; it < 20; it++) {
        eir_dtype dt = fd[it % 4];
        const char *red = reds[it % 5];
        int64_t ns = irand(1, 4), len[4], tot = 0;
        for (int64_t s = 0; s < ns; s++) { len[s] = irand(0, 3); tot += len[s]; }
        if (tot == 0) { len[0] = 1; tot = 1; }
        int64_t c = irand(1, 3), sd[3] = {2, tot, c}, sl[2] = {2, ns}, so[3] = {2, ns, c};
        tt D = tnew(dt, 3, sd, it % 4), L = tnew(EIR_I64, 2, sl, 0), O = tnew(dt, 3, so, (it + 1) % 4);
        fill_rand(&D.v);
        for (int64_t r = 0; r < 2; r++)
            for (int64_t s = 0; s < ns; s++) setk(&L.v, r * ns + s, (double)len[r == 0 ? s : ns - 1 - s]);
        bool has_init = it % 3 == 0;
        eir_karg a[8] = {KT(&D.v), KSTR(red), KT(&L.v), KN(), KN(), KI(1), KB(false), has_init ? KS(0.25) : KN()};
        CHECK(run("aten.segment_reduce.default", a, 8, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t r = 0; r < 2; r++) {
            int64_t start = 0;
            for (int64_t s = 0; s < ns; s++) {
                int64_t l = len[r == 0 ? s : ns - 1 - s];
                for (int64_t k = 0; k < c; k++) {
                    double acc = has_init ? 0.25 : red[1] == 'a' ? -INFINITY : red[1] == 'i' ? INFINITY : red[0] == 'p' ? 1 : 0, ab = 0;
                    for (int64_t j = 0; j < l; j++) {
                        int64_t ix[3] = {r, start + j, k};
                        double v = rd(&D.v, ix);
                        ab += fabs(v);
                        if (red[1] == 'a') acc = fmax(acc, v);
                        else if (red[1] == 'i') acc = fmin(acc, v);
                        else if (red[0] == 'p') acc *= v;
                        else acc += v;
                    }
                    if (red[1] == 'e') acc = l == 0 ? (has_init ? acc : NAN) : acc / (double)l;
                    int64_t oi[3] = {r, s, k};
                    double g = rd(&O.v, oi);
                    ok &= (isnan(acc) && isnan(g)) || (isinf(acc) && g == acc) || fabs(g - acc) <= tol_of(dt) * 4 * (1 + ab + fabs(acc));
                }
                start += l;
            }
        }
        CHECK(ok);
        if (!ok) fprintf(stderr, "segment_reduce %s %s\n", red, eir_torch_dtype_name(dt));
        setk(&L.v, 0, (double)(len[0] + 1));
        CHECK_FAILS(run("aten.segment_reduce.default", a, 8, &O.v, 1), "Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when !unsafe.");
        tfree(&D); tfree(&L); tfree(&O);
    }
}

static void test_vectors(void) {
    static const eir_dtype fd[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
    for (int it = 0; it < 16; it++) {
        eir_dtype dt = fd[it % 4];
        int64_t n = irand(1, 5), m = irand(1, 6), s3[2] = {n, 3}, sx[2] = {n, m}, s1[1] = {n};
        /* cross along dim 1 */
        tt A = tnew(dt, 2, s3, it % 4), B = tnew(dt, 2, s3, (it + 1) % 4), C = tnew(dt, 2, s3, (it + 2) % 4);
        fill_rand(&A.v); fill_rand(&B.v);
        eir_karg ac[3] = {KT(&A.v), KT(&B.v), KI(1)};
        CHECK(run(it % 2 ? "aten.linalg_cross.default" : "aten.cross.default", ac, 3, &C.v, 1) == 0);
        bool ok = true;
        for (int64_t i = 0; i < n; i++)
            for (int k = 0; k < 3; k++) {
                int64_t j1[2] = {i, (k + 1) % 3}, k1[2] = {i, (k + 2) % 3}, o[2] = {i, k};
                double w = rd(&A.v, j1) * rd(&B.v, k1) - rd(&A.v, k1) * rd(&B.v, j1);
                ok &= fabs(rd(&C.v, o) - w) <= tol_of(dt) * 8 * (1 + fabs(rd(&A.v, j1) * rd(&B.v, k1)) + fabs(rd(&A.v, k1) * rd(&B.v, j1)));
            }
        CHECK(ok);
        /* vecdot, cosine_similarity, pairwise_distance (p = 2), renorm along dim 0 */
        tt X = tnew(dt, 2, sx, it % 4), Y = tnew(dt, 2, sx, (it + 3) % 4), V = tnew(dt, 1, s1, 0), CS = tnew(dt, 1, s1, 2), PD = tnew(dt, 1, s1, 0), RN = tnew(dt, 2, sx, 1);
        fill_rand(&X.v); fill_rand(&Y.v);
        eir_karg av[3] = {KT(&X.v), KT(&Y.v), KI(-1)};
        CHECK(run("aten.linalg_vecdot.default", av, 3, &V.v, 1) == 0);
        eir_karg acs[4] = {KT(&X.v), KT(&Y.v), KI(1), KF(1e-8)};
        CHECK(run("aten.cosine_similarity.default", acs, 4, &CS.v, 1) == 0);
        eir_karg apd[5] = {KT(&X.v), KT(&Y.v), KF(2), KF(1e-6), KB(false)};
        CHECK(run("aten.pairwise_distance.default", apd, 5, &PD.v, 1) == 0);
        eir_karg arn[4] = {KT(&X.v), KS(2), KI(0), KS(1.0)};
        CHECK(run("aten.renorm.default", arn, 4, &RN.v, 1) == 0);
        ok = true;
        double t = tol_of(dt) * 16;
        for (int64_t i = 0; i < n; i++) {
            double dot = 0, nx = 0, ny = 0, pd = 0, ab = 0;
            for (int64_t j = 0; j < m; j++) {
                int64_t ij[2] = {i, j};
                double x = rd(&X.v, ij), y = rd(&Y.v, ij), d = x - y + 1e-6;
                dot += x * y; nx += x * x; ny += y * y; pd += d * d; ab += fabs(x * y);
            }
            int64_t ii[1] = {i};
            ok &= fabs(rd(&V.v, ii) - dot) <= t * (1 + ab);
            double cs = dot / (fmax(sqrt(nx), 1e-8) * fmax(sqrt(ny), 1e-8));
            ok &= fabs(rd(&CS.v, ii) - cs) <= t * (1 + fabs(cs));
            ok &= fabs(rd(&PD.v, ii) - sqrt(pd)) <= t * (1 + sqrt(pd));
            double f = sqrt(nx) > 1 ? 1 / (sqrt(nx) + 1e-7) : 1;
            for (int64_t j = 0; j < m; j++) {
                int64_t ij[2] = {i, j};
                ok &= fabs(rd(&RN.v, ij) - rd(&X.v, ij) * f) <= t * (1 + fabs(rd(&X.v, ij)));
            }
        }
        CHECK(ok);
        if (!ok) fprintf(stderr, "vector ops %s\n", eir_torch_dtype_name(dt));
        /* dist with p = 1, 3.5, inf */
        static const double ps[3] = {1, 3.5, INFINITY};
        for (int k = 0; k < 3; k++) {
            tt D = tnew(dt, 0, s1, 0);
            eir_karg ad[3] = {KT(&X.v), KT(&Y.v), KS(ps[k])};
            CHECK(run("aten.dist.default", ad, 3, &D.v, 1) == 0);
            double acc = 0;
            for (int64_t q = 0; q < n * m; q++) {
                double d = fabs(getk(&X.v, q) - getk(&Y.v, q));
                acc = isinf(ps[k]) ? fmax(acc, d) : acc + pow(d, ps[k]);
            }
            double w = isinf(ps[k]) ? acc : pow(acc, 1 / ps[k]);
            CHECK(fabs(getk(&D.v, 0) - w) <= t * (1 + w));
            tfree(&D);
        }
        tfree(&A); tfree(&B); tfree(&C); tfree(&X); tfree(&Y); tfree(&V); tfree(&CS); tfree(&PD); tfree(&RN);
    }
    int64_t s[2] = {2, 4};
    tt A = tnew(EIR_F32, 2, s, 0), C = tnew(EIR_F32, 2, s, 0);
    eir_karg ac[3] = {KT(&A.v), KT(&A.v), KI(1)};
    CHECK_FAILS(run("aten.linalg_cross.default", ac, 3, &C.v, 1), "linalg.cross: inputs dimension 1 must have length 3. Got 4 and 4");
    tfree(&A); tfree(&C);
}

/* ======================================================================
 * factories and aliases
 * ====================================================================== */

static void test_factories(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I8, EIR_I16, EIR_I32, EIR_I64, EIR_U8, EIR_C64};
    for (int it = 0; it < 30; it++) {
        eir_dtype dt = dts[it % 10];
        int64_t steps = irand(0, 40), s[1] = {steps};
        double a0 = eir_is_integral(dt, false) ? (double)irand(0, 20) : urand() * 10, a1 = eir_is_integral(dt, false) ? (double)irand(20, 100) : urand() * 10;
        tt O = tnew(dt, 1, s, it % 3 == 2 ? 2 : 0), L = tnew(dt, 1, s, 0);
        eir_karg a[3] = {KS(a0), KS(a1), KI(steps)};
        if (eir_is_integral(dt, false)) { a[0] = KSI((int64_t)a0); a[1] = KSI((int64_t)a1); }
        CHECK(run("aten.linspace.default", a, 3, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t k = 0; k < steps; k++) {
            double w = steps == 1 ? a0 : a0 + (a1 - a0) * (double)k / (double)(steps - 1), g = getk(&O.v, k);
            if (eir_is_integral(dt, false)) ok &= fabs(g - w) <= 1;
            else ok &= fabs(g - w) <= tol_of(dt) * 4 * (1 + fabs(a0) + fabs(a1));
        }
        CHECK(ok);
        if (!ok) fprintf(stderr, "linspace %s steps %lld\n", eir_torch_dtype_name(dt), (long long)steps);
        /* logspace with base 2 over [-2, 3] ([0, 3] for integers) */
        bool ints = eir_is_integral(dt, false);
        double l0 = ints ? 0 : -2;
        eir_karg al[4] = {ints ? KSI(0) : KS(-2), ints ? KSI(3) : KS(3), KI(steps), KF(2)};
        CHECK(run("aten.logspace.default", al, 4, &L.v, 1) == 0);
        ok = true;
        for (int64_t k = 0; k < steps; k++) {
            double w = pow(2, steps == 1 ? l0 : l0 + (3 - l0) * (double)k / (double)(steps - 1)), g = getk(&L.v, k);
            if (eir_is_integral(dt, false)) { unsigned char tb[8]; eir_store_i64(tb, dt, (int64_t)w); ok &= g == eir_load_f64(tb, dt); }
            else ok &= fabs(g - w) <= tol_of(dt) * 4 * (1 + w);
        }
        CHECK(ok);
        tfree(&O); tfree(&L);
    }
    /* the Tensor overloads take 0-d tensors; other ranks are refused as torch does */
    int64_t s[1] = {5}, s1[1] = {1};
    tt S0 = tnew(EIR_F32, 0, s, 0), S1 = tnew(EIR_F32, 0, s, 0), V1 = tnew(EIR_F32, 1, s1, 0), O = tnew(EIR_F32, 1, s, 0);
    setk(&S0.v, 0, -1); setk(&S1.v, 0, 1);
    eir_karg a[3] = {KT(&S0.v), KT(&S1.v), KI(5)};
    CHECK(run("aten.linspace.Tensor_Tensor", a, 3, &O.v, 1) == 0);
    for (int64_t k = 0; k < 5; k++) CHECK(getk(&O.v, k) == -1 + 0.5 * (double)k);
    eir_karg b[3] = {KT(&V1.v), KS(1), KI(5)};
    CHECK_FAILS(run("aten.linspace.Tensor_Scalar", b, 3, &O.v, 1), "linspace only supports 0-dimensional start and end tensors, but got start with 1 dimension(s).");
    tt I8 = tnew(EIR_I8, 1, s, 0);
    eir_karg c[3] = {KSI(0), KSI(300), KI(5)};
    CHECK_FAILS(run("aten.linspace.default", c, 3, &I8.v, 1), "value cannot be converted to type int8_t without overflow");
    /* empty_permuted, new_empty_strided and zero_ give zeros */
    int64_t se[2] = {2, 3};
    tt E = tnew(EIR_F32, 2, se, 1);
    fill_poison(&E.v);
    eir_karg ae[1] = {KT(&E.v)};
    CHECK(run("aten.zero_.default", ae, 1, &E.v, 1) == 0);
    for (int64_t k = 0; k < 6; k++) CHECK(getk(&E.v, k) == 0);
    tfree(&S0); tfree(&S1); tfree(&V1); tfree(&O); tfree(&I8); tfree(&E);
}

/* window functions against their textbook formulas in double (scipy.signal's
 * definitions); periodic windows are the first N of N + 1 */
static double ref_i0(double x) {
    double q = x * x / 4, term = 1, sum = 1;
    for (int k = 1; k < 500; k++) { term *= q / ((double)k * (double)k); sum += term; }
    return sum;
}
static double ref_window(int kind, int64_t i, int64_t m, double p0, double p1) {
    double x = (double)i, l = (double)(m - 1);
    switch (kind) {
    case 0: return p0 - p1 * cos(2 * M_PI * x / l);                                    /* hamming / hann */
    case 1: return 0.42 - 0.5 * cos(2 * M_PI * x / l) + 0.08 * cos(4 * M_PI * x / l);  /* blackman */
    case 2: return 1 - fabs(2 * x / l - 1);                                             /* bartlett */
    default: return ref_i0(p0 * sqrt(1 - pow(2 * x / l - 1, 2))) / ref_i0(p0);          /* kaiser */
    }
}
static void test_windows(void) {
    static const struct { const char *op; int kind, nargs; double p0, p1; } W[] = {
        {"aten.hann_window.periodic", 0, 2, 0.5, 0.5},       {"aten.hamming_window.periodic", 0, 2, 0.54, 0.46},
        {"aten.hamming_window.periodic_alpha_beta", 0, 4, 0.6, 0.3}, {"aten.blackman_window.periodic", 1, 2, 0, 0},
        {"aten.bartlett_window.periodic", 2, 2, 0, 0},       {"aten.kaiser_window.beta", 3, 3, 5.0, 0},
        {"aten.kaiser_window.periodic", 3, 2, 12.0, 0},
    };
    static const eir_dtype dts[] = {EIR_F64, EIR_F32, EIR_F16, EIR_BF16};
    for (size_t w = 0; w < sizeof W / sizeof W[0]; w++)
        for (int it = 0; it < 16; it++) {
            eir_dtype dt = dts[it % 4];
            bool periodic = it & 4;
            int64_t n = it < 2 ? it : irand(2, 70), s[1] = {n};
            tt O = tnew(dt, 1, s, it % 3 == 2 ? 2 : 0);
            eir_karg a[4] = {KI(n), KB(periodic), KF(W[w].p0), KF(W[w].p1)};
            CHECK(run(W[w].op, a, (uint32_t)W[w].nargs, &O.v, 1) == 0);
            int64_t m = periodic ? n + 1 : n;
            bool ok = true;
            for (int64_t k = 0; k < n; k++) {
                double want = n == 1 ? 1 : ref_window(W[w].kind, k, m, W[w].p0, W[w].p1);
                ok &= fabs(getk(&O.v, k) - want) <= tol_of(dt) * 8 * (1 + fabs(want));
            }
            CHECK(ok);
            if (!ok) fprintf(stderr, "%s %s n %lld periodic %d\n", W[w].op, eir_torch_dtype_name(dt), (long long)n, periodic);
            tfree(&O);
        }
    /* the .default overloads are periodic; torch's argument errors */
    int64_t s8[1] = {8};
    tt P = tnew(EIR_F64, 1, s8, 0), D = tnew(EIR_F64, 1, s8, 0), I = tnew(EIR_I32, 1, s8, 0);
    eir_karg ad[1] = {KI(8)}, ap[2] = {KI(8), KB(true)};
    CHECK(run("aten.hann_window.default", ad, 1, &D.v, 1) == 0);
    CHECK(run("aten.hann_window.periodic", ap, 2, &P.v, 1) == 0);
    for (int64_t k = 0; k < 8; k++) CHECK(getk(&D.v, k) == getk(&P.v, k));
    CHECK_FAILS(run("aten.hann_window.default", ad, 1, &I.v, 1), "hann_window expects floating point dtypes, got: ");
    eir_karg an[1] = {KI(-1)};
    CHECK_FAILS(run("aten.blackman_window.default", an, 1, &D.v, 1), "blackman_window requires non-negative window_length, got window_length=-1");
    tfree(&P); tfree(&D); tfree(&I);
}

/* ======================================================================
 * one_hot, the stacks, diff, msort, tril/triu_indices, the trapezoid rule, max_unpool
 * ====================================================================== */

static void test_one_hot(void) {
    for (int it = 0; it < 16; it++) {
        int64_t n0 = irand(0, 3), n1 = irand(1, 4), nc = irand(1, 5), sx[2] = {n0, n1};
        tt X = tnew(EIR_I64, 2, sx, it % 4);
        int64_t mx = -1;
        for (int64_t k = 0; k < n0 * n1; k++) { int64_t v = irand(0, nc - 1); setk(&X.v, k, (double)v); mx = v > mx ? v : mx; }
        bool infer = it % 3 == 0 && n0 > 0;
        if (infer) nc = mx + 1;
        eir_karg a[2] = {KT(&X.v), KI(infer ? -1 : nc)};
        int64_t ps[EIR_MAX_RANK], so[3] = {n0, n1, nc};
        int32_t pr;
        eir_kctx ctx = {errbuf, sizeof errbuf, 1, NULL};
        CHECK(eir_compose_presize("aten.one_hot.default", a, 2, 0, ps, &pr, &ctx) == 1 && pr == 3 && ps[0] == n0 && ps[1] == n1 && ps[2] == nc);
        tt O = tnew(EIR_I64, 3, so, (it + 1) % 4);
        fill_poison(&O.v);
        CHECK(run("aten.one_hot.default", a, 2, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t k = 0; k < n0 * n1 * nc; k++) ok &= getk(&O.v, k) == (getk(&X.v, k / nc) == (double)(k % nc));
        CHECK(ok);
        tfree(&X); tfree(&O);
    }
    int64_t s3[1] = {3}, s0[1] = {0}, so[2] = {3, 3};
    tt X = tnew(EIR_I64, 1, s3, 0), I = tnew(EIR_I32, 1, s3, 0), E = tnew(EIR_I64, 1, s0, 0), O = tnew(EIR_I64, 2, so, 0);
    setk(&X.v, 0, 0); setk(&X.v, 1, 3); setk(&X.v, 2, 1);
    eir_karg a[2] = {KT(&X.v), KI(3)}, ai[2] = {KT(&I.v), KI(3)}, ae[2] = {KT(&E.v), KI(-1)};
    CHECK_FAILS(run("aten.one_hot.default", a, 2, &O.v, 1), "Class values must be smaller than num_classes.");
    setk(&X.v, 1, -1);
    CHECK_FAILS(run("aten.one_hot.default", a, 2, &O.v, 1), "Class values must be non-negative.");
    CHECK_FAILS(run("aten.one_hot.default", ai, 2, &O.v, 1), "one_hot is only applicable to index tensor of type LongTensor.");
    CHECK_FAILS(run("aten.one_hot.default", ae, 2, &O.v, 1), "Can not infer total number of classes from empty tensor.");
    tfree(&X); tfree(&I); tfree(&E); tfree(&O);
}

/* hstack / vstack / dstack / column_stack against index formulas */
static void test_stacks(void) {
    for (int it = 0; it < NDTS; it++) {
        eir_dtype dt = DTS[it];
        int64_t n = irand(0, 4), r = irand(1, 3), c = irand(1, 3), sv[1] = {n}, sm[2] = {r, c}, sr[1] = {r};
        tt S = tnew(dt, 0, sv, 0), V = tnew(dt, 1, sv, it % 3), M = tnew(dt, 2, sm, it % 4), R = tnew(dt, 1, sr, 2);
        fill_rand(&S.v); fill_rand(&V.v); fill_rand(&M.v); fill_rand(&R.v);
        int64_t z = 0;
        /* hstack([v, s, v]): [2n + 1] */
        const eir_tview *h[3] = {&V.v, &S.v, &V.v};
        int64_t sh[1] = {2 * n + 1};
        tt H = tnew(dt, 1, sh, it % 3);
        eir_karg ah[2] = {KTS(3, h)};
        CHECK(run("aten.hstack.default", ah, 1, &H.v, 1) == 0);
        bool ok = true;
        for (int64_t k = 0; k < 2 * n + 1; k++) {
            int64_t j = k < n ? k : k - n - 1;
            ok &= k == n ? same_el(&H.v, &k, &S.v, &z) : same_el(&H.v, &k, &V.v, &j);
        }
        CHECK(ok);
        /* vstack([m, m]): [2r, c]; dstack([m, m]): [r, c, 2]; column_stack([rv, m]): [r, 1 + c] */
        const eir_tview *mm[2] = {&M.v, &M.v}, *rm[2] = {&R.v, &M.v};
        int64_t svs[2] = {2 * r, c}, sds[3] = {r, c, 2}, scs[2] = {r, 1 + c};
        tt VS = tnew(dt, 2, svs, it % 4), DS = tnew(dt, 3, sds, (it + 1) % 4), CS = tnew(dt, 2, scs, (it + 2) % 4);
        eir_karg am[1] = {KTS(2, mm)}, ar[1] = {KTS(2, rm)};
        CHECK(run("aten.vstack.default", am, 1, &VS.v, 1) == 0);
        CHECK(run("aten.dstack.default", am, 1, &DS.v, 1) == 0);
        CHECK(run("aten.column_stack.default", ar, 1, &CS.v, 1) == 0);
        ok = true;
        for (int64_t i = 0; i < r; i++)
            for (int64_t j = 0; j < c; j++) {
                int64_t mi[2] = {i, j}, v0[2] = {i, j}, v1[2] = {i + r, j}, d0[3] = {i, j, 0}, d1[3] = {i, j, 1}, cj[2] = {i, j + 1}, c0[2] = {i, 0};
                ok &= same_el(&VS.v, v0, &M.v, mi) && same_el(&VS.v, v1, &M.v, mi) && same_el(&DS.v, d0, &M.v, mi) &&
                      same_el(&DS.v, d1, &M.v, mi) && same_el(&CS.v, cj, &M.v, mi) && same_el(&CS.v, c0, &R.v, &i);
            }
        CHECK(ok);
        tfree(&S); tfree(&V); tfree(&M); tfree(&R); tfree(&H); tfree(&VS); tfree(&DS); tfree(&CS);
    }
    int64_t s2[2] = {2, 3}, s3[2] = {3, 3}, so[2] = {5, 3};
    tt A = tnew(EIR_F32, 2, s2, 0), B = tnew(EIR_F32, 2, s3, 0), O = tnew(EIR_F32, 2, so, 0);
    const eir_tview *ab[2] = {&A.v, &B.v};
    eir_karg e[1] = {KTS(0, ab)}, x[1] = {KTS(2, ab)};
    static const char *const ops[] = {"aten.hstack.default", "aten.vstack.default", "aten.dstack.default", "aten.column_stack.default"};
    static const char *const msg[] = {"hstack expects", "vstack expects", "dstack expects", "column_stack expects"};
    for (int k = 0; k < 4; k++) CHECK_FAILS(run(ops[k], e, 1, &O.v, 1), msg[k]);
    CHECK_FAILS(run("aten.hstack.default", x, 1, &O.v, 1), "Sizes of tensors must match except in dimension 1. Expected size");
    tfree(&A); tfree(&B); tfree(&O);
}

/* diff: the sequence (prepend, x, append) along dim, differenced n times with
 * the dtype's rounding (wrapping for integers, xor for bool) at every step */
static void diff_ref(eir_dtype dt, double *re, double *im, int64_t len, int64_t n) {
    for (int64_t r = 0; r < n && len > 0; r++, len--)
        for (int64_t k = 0; k + 1 < len; k++) {
            double dr = re[k + 1] - re[k], di = im[k + 1] - im[k];
            unsigned char t[16];
            if (dt == EIR_BOOL) dr = (re[k + 1] != 0) != (re[k] != 0);
            else if (eir_is_integral(dt, false)) { eir_store_i64(t, dt, (int64_t)re[k + 1] - (int64_t)re[k]); dr = eir_load_f64(t, dt); }
            else if (eir_is_complex(dt)) { eir_store_c128(t, dt, dr, di); eir_load_c128(t, dt, &dr, &di); }
            else dr = eir_round_f64(dr, dt);
            re[k] = dr;
            im[k] = di;
        }
}
static void test_diff(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I8, EIR_I32, EIR_I64, EIR_U8, EIR_BOOL, EIR_C64};
    for (int it = 0; it < 40; it++) {
        eir_dtype dt = dts[it % 10];
        int64_t a0 = irand(0, 4), a1 = irand(1, 4), n = irand(0, 4), dim = irand(0, 1), sx[2] = {a0, a1};
        bool pre = it % 3 == 1, app = it % 4 == 2;
        int64_t pl = irand(0, 2), al = irand(1, 2), sp[2] = {a0, a1}, sa[2] = {a0, a1};
        sp[dim] = pl;
        sa[dim] = al;
        tt X = tnew(dt, 2, sx, it % 4), P = tnew(dt, 2, sp, (it + 1) % 4), A = tnew(dt, 2, sa, 2);
        fill_rand(&X.v); fill_rand(&P.v); fill_rand(&A.v);
        int64_t len = sx[dim] + (n && pre ? pl : 0) + (n && app ? al : 0), ol = len - n > 0 ? len - n : 0, so[2] = {a0, a1};
        so[dim] = n == 0 ? sx[dim] : ol;
        tt O = tnew(dt, 2, so, (it + 2) % 4);
        eir_karg ar[5] = {KT(&X.v), KI(n), KI(dim - 2), pre ? KT(&P.v) : KN(), app ? KT(&A.v) : KN()};
        CHECK(run("aten.diff.default", ar, 5, &O.v, 1) == 0);
        bool ok = true;
        int64_t other = sx[1 - dim];
        for (int64_t o = 0; o < other; o++) {
            double re[16], im[16];
            int64_t m = 0;
            const eir_tview *parts[3] = {n && pre ? &P.v : NULL, &X.v, n && app ? &A.v : NULL};
            for (int q = 0; q < 3; q++)
                for (int64_t k = 0; parts[q] && k < parts[q]->sizes[dim]; k++, m++) {
                    int64_t ix[2];
                    ix[dim] = k;
                    ix[1 - dim] = o;
                    rdc(parts[q], ix, &re[m], &im[m]);
                }
            diff_ref(dt, re, im, len, n);
            for (int64_t k = 0; k < so[dim]; k++) {
                int64_t ix[2];
                ix[dim] = k;
                ix[1 - dim] = o;
                double gr, gi;
                rdc(&O.v, ix, &gr, &gi);
                ok &= gr == re[k] && (!eir_is_complex(dt) || gi == im[k]);
            }
        }
        CHECK(ok);
        if (!ok) fprintf(stderr, "diff %s n %lld dim %lld pre %d app %d\n", eir_torch_dtype_name(dt), (long long)n, (long long)dim, pre, app);
        tfree(&X); tfree(&P); tfree(&A); tfree(&O);
    }
    int64_t s2[2] = {2, 3}, s3[2] = {2, 2}, s1[1] = {3};
    tt X = tnew(EIR_F32, 2, s2, 0), P = tnew(EIR_F32, 2, s3, 0), V = tnew(EIR_F32, 1, s1, 0), Z = tnew(EIR_F32, 0, s1, 0);
    eir_karg neg[5] = {KT(&X.v), KI(-1), KI(-1), KN(), KN()}, bad[5] = {KT(&X.v), KI(1), KI(0), KT(&P.v), KN()};
    eir_karg rk[5] = {KT(&X.v), KI(1), KI(0), KN(), KT(&V.v)}, z0[5] = {KT(&Z.v), KI(1), KI(-1), KN(), KN()}, dm[5] = {KT(&X.v), KI(1), KI(2), KN(), KN()};
    CHECK_FAILS(run("aten.diff.default", neg, 5, &X.v, 1), "order must be non-negative but got -1");
    CHECK_FAILS(run("aten.diff.default", bad, 5, &X.v, 1), "input.size(1) = 3, but got tensor.size(1) = 2");
    CHECK_FAILS(run("aten.diff.default", rk, 5, &X.v, 1), "diff expects prepend or append to be the same dimension as input");
    CHECK_FAILS(run("aten.diff.default", z0, 5, &X.v, 1), "diff expects input to be at least one-dimensional");
    CHECK_FAILS(run("aten.diff.default", dm, 5, &X.v, 1), "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
    tfree(&X); tfree(&P); tfree(&V); tfree(&Z);
}

/* msort: each column sorted ascending, NaN last */
static int cmp_nan_last(const void *p, const void *q) {
    double a = *(const double *)p, b = *(const double *)q;
    if (isnan(a) || isnan(b)) return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}
static void test_msort_tri(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I8, EIR_I32, EIR_I64, EIR_U8, EIR_BOOL};
    for (int it = 0; it < 18; it++) {
        eir_dtype dt = dts[it % 9];
        int64_t r = irand(0, 9), c = irand(1, 3), s[2] = {r, c};
        tt X = tnew(dt, 2, s, it % 4), O = tnew(dt, 2, s, (it + 1) % 4);
        fill_rand(&X.v);
        if (eir_is_floating(dt) && r > 1) setk(&X.v, 0, NAN);
        eir_karg a[1] = {KT(&X.v)};
        CHECK(run("aten.msort.default", a, 1, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t j = 0; j < c; j++) {
            double col[16];
            for (int64_t i = 0; i < r; i++) col[i] = getk(&X.v, i * c + j);
            qsort(col, (size_t)r, sizeof col[0], cmp_nan_last);
            for (int64_t i = 0; i < r; i++) {
                double g = getk(&O.v, i * c + j);
                ok &= g == col[i] || (isnan(g) && isnan(col[i]));
            }
        }
        CHECK(ok);
        tfree(&X); tfree(&O);
    }
    /* tril_indices / triu_indices: (i, j) in row-major order with j - i <= off / >= off */
    for (int it = 0; it < 30; it++) {
        int64_t row = irand(0, 5), col = irand(0, 5), off = irand(-6, 6);
        for (int up = 0; up < 2; up++) {
            int64_t ri[64], ci[64], n = 0;
            for (int64_t i = 0; i < row; i++)
                for (int64_t j = 0; j < col; j++)
                    if (up ? j - i >= off : j - i <= off) { ri[n] = i; ci[n] = j; n++; }
            int64_t so[2] = {2, n};
            eir_dtype dt = it % 2 ? EIR_I32 : EIR_I64;
            tt O = tnew(dt, 2, so, it % 3);
            eir_karg a[3] = {KI(row), KI(col), KI(off)};
            CHECK(run(up ? "aten.triu_indices.default" : "aten.tril_indices.default", a, 3, &O.v, 1) == 0);
            bool ok = true;
            for (int64_t k = 0; k < n; k++) ok &= getk(&O.v, k) == (double)ri[k] && getk(&O.v, n + k) == (double)ci[k];
            CHECK(ok);
            tfree(&O);
        }
    }
    int64_t so[2] = {2, 6};
    tt F = tnew(EIR_F32, 2, so, 0);
    eir_karg a[3] = {KI(3), KI(3), KI(0)}, nr[3] = {KI(-1), KI(3), KI(0)}, nc[3] = {KI(3), KI(-2), KI(0)};
    CHECK_FAILS(run("aten.tril_indices.default", a, 3, &F.v, 1), "\"tril_indices\" not implemented for 'Float'");
    CHECK_FAILS(run("aten.triu_indices.default", nr, 3, &F.v, 1), "row must be non-negative, got-1");
    CHECK_FAILS(run("aten.triu_indices.default", nc, 3, &F.v, 1), "col must be non-negative, got-2");
    tfree(&F);
}

/* trapezoid / cumulative_trapezoid along dim of a (r, c) matrix, in double */
static void test_trapezoid(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I32, EIR_I64};
    for (int it = 0; it < 36; it++) {
        eir_dtype dt = dts[it % 6], od = eir_is_integral(dt, false) ? EIR_F32 : dt;
        int64_t r = irand(1, 5), c = irand(1, 5), dim = it % 2, s[2] = {r, c}, len = s[dim], other = s[1 - dim];
        int form = (it / 2) % 3; /* 0: x, 1: dx, 2: x as a broadcast matrix */
        double dx = form == 1 ? (double)irand(1, 8) / 4 : 1;
        tt Y = tnew(dt, 2, s, it % 4), X1 = tnew(dt, 1, &len, it % 3), O = tnew(od, 1, &other, 0);
        int64_t sc[2] = {r, c};
        sc[dim] = len - 1;
        tt C = tnew(od, 2, sc, (it + 1) % 4);
        fill_rand(&Y.v);
        for (int64_t k = 0; k < len; k++) setk(&X1.v, k, (double)k * (eir_is_integral(dt, false) ? 2 : 0.75) + (form == 2 ? (double)k * k / 8 : 0));
        eir_karg ax[3] = {KT(&Y.v), KT(&X1.v), KI(dim)}, ad[3] = {KT(&Y.v), KF(dx), KI(dim - 2)};
        bool tx = form != 1;
        CHECK(run(tx ? (it % 4 < 2 ? "aten.trapezoid.x" : "aten.trapz.x") : (it % 4 < 2 ? "aten.trapezoid.dx" : "aten.trapz.dx"), tx ? ax : ad, 3, &O.v, 1) == 0);
        CHECK(run(tx ? "aten.cumulative_trapezoid.x" : "aten.cumulative_trapezoid.dx", tx ? ax : ad, 3, &C.v, 1) == 0);
        bool ok = true;
        for (int64_t o = 0; o < other; o++) {
            double acc = 0, ab = 0;
            for (int64_t k = 0; k + 1 < len; k++) {
                int64_t i0[2], i1[2];
                i0[dim] = k; i1[dim] = k + 1; i0[1 - dim] = i1[1 - dim] = o;
                double h = tx ? getk(&X1.v, k + 1) - getk(&X1.v, k) : dx, t = h * (rd(&Y.v, i0) + rd(&Y.v, i1)) / 2;
                acc += t;
                ab += fabs(t);
                double tol = tol_of(od) * 8 * (1 + ab) + (od == EIR_F16 || od == EIR_BF16 ? tol_of(od) * 4 * (double)len * (1 + ab) : 0);
                ok &= fabs(getk(&C.v, dim ? o * (len - 1) + k : k * other + o) - acc) <= tol;
            }
            double tol = tol_of(od) * 8 * (1 + ab) + (od == EIR_F16 || od == EIR_BF16 ? tol_of(od) * 4 * (double)len * (1 + ab) : 0);
            ok &= fabs(getk(&O.v, o) - acc) <= tol;
        }
        CHECK(ok);
        if (!ok) fprintf(stderr, "trapezoid %s form %d dim %lld (%lld, %lld)\n", eir_torch_dtype_name(dt), form, (long long)dim, (long long)r, (long long)c);
        tfree(&Y); tfree(&X1); tfree(&O); tfree(&C);
    }
    /* no samples: zeros (of y's dtype); torch's argument errors */
    int64_t s0[2] = {3, 0}, s3[1] = {3}, s2[1] = {2};
    tt Y0 = tnew(EIR_I32, 2, s0, 0), Z = tnew(EIR_I32, 1, s3, 0), B = tnew(EIR_BOOL, 1, s3, 0), Y = tnew(EIR_F32, 1, s3, 0), X2 = tnew(EIR_F32, 1, s2, 0);
    tt O = tnew(EIR_F32, 0, s3, 0);
    fill_poison(&Z.v);
    eir_karg a0[3] = {KT(&Y0.v), KSI(1), KI(-1)};
    CHECK(run("aten.trapezoid.dx", a0, 3, &Z.v, 1) == 0);
    for (int k = 0; k < 3; k++) CHECK(getk(&Z.v, k) == 0);
    eir_karg ab[3] = {KT(&B.v), KSI(1), KI(-1)}, ax[3] = {KT(&Y.v), KT(&X2.v), KI(-1)}, ac[3] = {KT(&Y.v), KSI(1), KI(-1)};
    ac[1].s.kind = EIR_SC_COMPLEX;
    CHECK_FAILS(run("aten.trapezoid.dx", ab, 3, &O.v, 1), "trapezoid: received a bool input for `y`, but bool is not supported");
    CHECK_FAILS(run("aten.trapezoid.x", ax, 3, &O.v, 1), "trapezoid: There must be one `x` value for each sample point");
    CHECK_FAILS(run("aten.cumulative_trapezoid.x", ax, 3, &O.v, 1), "cumulative_trapezoid: There must be one `x` value for each sample point");
    CHECK_FAILS(run("aten.cumulative_trapezoid.dx", ac, 3, &O.v, 1), "cumulative_trapezoid: Currently, we only support dx as a real number.");
    tfree(&Y0); tfree(&Z); tfree(&B); tfree(&Y); tfree(&X2); tfree(&O);
}

/* max_unpool2d / 3d: zeros, then every input element at its index within its plane (the later one wins) */
static void test_max_unpool(void) {
    static const eir_dtype dts[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
    for (int it = 0; it < 24; it++) {
        eir_dtype dt = dts[it % 4];
        bool three = it % 3 == 2;
        int nd = three ? 3 : 2, lead = it % 2 ? 2 : 1, rank = lead + nd;
        int64_t xs[5], os[5], osz[3], planes = 1, iimg = 1, oimg = 1;
        for (int d = 0; d < lead; d++) { xs[d] = os[d] = irand(d == 0 && lead == 2 ? 0 : 1, 3); planes *= xs[d]; }
        for (int d = 0; d < nd; d++) {
            xs[lead + d] = irand(1, 3);
            os[lead + d] = osz[d] = xs[lead + d] * 2 + irand(0, 1);
            iimg *= xs[lead + d];
            oimg *= osz[d];
        }
        tt X = tnew(dt, rank, xs, it % 4), I = tnew(EIR_I64, rank, xs, (it + 1) % 4), O = tnew(dt, rank, os, (it + 2) % 4);
        fill_rand(&X.v);
        fill_poison(&O.v);
        int64_t total = planes * iimg;
        for (int64_t k = 0; k < total; k++) setk(&I.v, k, (double)irand(0, oimg - 1));
        int64_t st[3] = {2, 2, 2}, pd[3] = {0, 0, 0};
        eir_karg a[5] = {KT(&X.v), KT(&I.v), KIS((uint32_t)nd, osz), KIS(3, st), KIS(3, pd)};
        CHECK(run(three ? "aten.max_unpool3d.default" : "aten.max_unpool2d.default", a, three ? 5 : 3, &O.v, 1) == 0);
        int64_t *src = malloc((size_t)(planes * oimg + 1) * sizeof *src);
        for (int64_t k = 0; k < planes * oimg; k++) src[k] = -1;
        for (int64_t k = 0; k < total; k++) src[k / iimg * oimg + (int64_t)getk(&I.v, k)] = k;
        bool ok = true;
        for (int64_t k = 0; k < planes * oimg; k++) {
            int64_t oi[5], xi[5];
            unravel(&O.v, k, oi);
            if (src[k] < 0) ok &= getk(&O.v, k) == 0;
            else { unravel(&X.v, src[k], xi); ok &= same_el(&O.v, oi, &X.v, xi); }
        }
        CHECK(ok);
        free(src);
        tfree(&X); tfree(&I); tfree(&O);
    }
    int64_t xs[4] = {1, 1, 2, 2}, os[4] = {1, 1, 4, 4}, e[4] = {1, 0, 2, 2}, osz[2] = {4, 4}, bad3[3] = {1, 0, 2}, osz3[3] = {1, 4, 4};
    tt X = tnew(EIR_F32, 4, xs, 0), I = tnew(EIR_I64, 4, xs, 0), I32 = tnew(EIR_I32, 4, xs, 0), L = tnew(EIR_I64, 4, xs, 0), O = tnew(EIR_F32, 4, os, 0);
    tt XE = tnew(EIR_F32, 4, e, 0), IE = tnew(EIR_I64, 4, e, 0);
    for (int k = 0; k < 4; k++) setk(&I.v, k, k == 3 ? 16 : k);
    eir_karg a[3] = {KT(&X.v), KT(&I.v), KIS(2, osz)}, ai[3] = {KT(&X.v), KT(&I32.v), KIS(2, osz)}, al[3] = {KT(&L.v), KT(&I.v), KIS(2, osz)};
    eir_karg ae[3] = {KT(&XE.v), KT(&IE.v), KIS(2, osz)}, a3[5] = {KT(&X.v), KT(&I.v), KIS(3, osz3), KIS(3, bad3), KIS(3, bad3)};
    CHECK_FAILS(run("aten.max_unpool2d.default", a, 3, &O.v, 1), "Found an invalid max index: 16 (output volumes are of size 4x4)");
    CHECK_FAILS(run("aten.max_unpool2d.default", ai, 3, &O.v, 1), "elements in indices should be type int64 but got: Int");
    CHECK_FAILS(run("aten.max_unpool2d.default", al, 3, &O.v, 1), "\"max_unpool2d\" not implemented for 'Long'");
    CHECK_FAILS(run("aten.max_unpool2d.default", ae, 3, &O.v, 1),
                "max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for non-batch dimensions, but got [1, 0, 2, 2] with dimension 1 being empty.");
    CHECK_FAILS(run("aten.max_unpool3d.default", a3, 5, &O.v, 1), "strides should be greater than zero, but got stride: [1, 0, 2]");
    a3[2] = KIS(2, osz);
    CHECK_FAILS(run("aten.max_unpool3d.default", a3, 5, &O.v, 1), "There should be exactly three elements (depth, height, width) in output_size, but got 2 elements.");
    tfree(&X); tfree(&I); tfree(&I32); tfree(&L); tfree(&O); tfree(&XE); tfree(&IE);
}

/* _chunk_cat against its definition; nonzero_numpy as nonzero's columns; embedding_renorm_ from row norms in double */
static void test_chunk_nonzero_renorm(void) {
    for (int it = 0; it < NDTS; it++) {
        eir_dtype dt = DTS[it];
        int64_t lead = irand(1, 3), nc = irand(1, 4), s1 = irand(1, 6), s2 = irand(1, 5), t2 = irand(1, 3);
        int64_t sa[2] = {lead, s1}, sb[3] = {lead, s2, t2}, ca = (s1 + nc - 1) / nc, cb = (s2 + nc - 1) / nc, so[3] = {lead, nc, ca + cb * t2};
        tt A = tnew(dt, 2, sa, it % 4), B = tnew(dt, 3, sb, (it + 1) % 4), O = tnew(dt, 3, so, (it + 2) % 4);
        fill_rand(&A.v); fill_rand(&B.v); fill_poison(&O.v);
        const eir_tview *ab[2] = {&A.v, &B.v};
        eir_karg a[3] = {KTS(2, ab), KI(1), KI(nc)};
        CHECK(run("aten._chunk_cat.default", a, 3, &O.v, 1) == 0);
        bool ok = true;
        for (int64_t l = 0; l < lead; l++)
            for (int64_t k = 0; k < nc; k++)
                for (int64_t j = 0; j < so[2]; j++) {
                    int64_t oi[3] = {l, k, j};
                    if (j < ca) { /* A's chunk k, element j */
                        int64_t e = k * ca + j, ai[2] = {l, e};
                        ok &= e < s1 ? same_el(&O.v, oi, &A.v, ai) : rd(&O.v, oi) == 0;
                    } else {
                        int64_t jj = j - ca, e = k * cb + jj / t2, bi[3] = {l, e, jj % t2};
                        ok &= e < s2 ? same_el(&O.v, oi, &B.v, bi) : rd(&O.v, oi) == 0;
                    }
                }
        CHECK(ok);
        /* nonzero_numpy of B: one column of indices per dim */
        int64_t cnt = 0, nb = numel(&B.v);
        for (int64_t k = 0; k < nb; k++) { double re, im; getck(&B.v, k, &re, &im); cnt += re != 0 || im != 0; }
        eir_karg an[1] = {KT(&B.v)};
        int64_t ps[EIR_MAX_RANK];
        int32_t pr;
        eir_kctx ctx = {errbuf, sizeof errbuf, 1, NULL};
        CHECK(eir_compose_presize("aten.nonzero_numpy.default", an, 1, 2, ps, &pr, &ctx) == 1 && pr == 1 && ps[0] == cnt);
        tt N[3];
        eir_tview nv[3];
        for (int d = 0; d < 3; d++) { N[d] = tnew(EIR_I64, 1, &cnt, d % 3 == 2 ? 2 : 0); nv[d] = N[d].v; }
        CHECK(run("aten.nonzero_numpy.default", an, 1, nv, 3) == 0);
        ok = true;
        for (int64_t k = 0, row = 0; k < nb; k++) {
            double re, im;
            getck(&B.v, k, &re, &im);
            if (re == 0 && im == 0) continue;
            int64_t bi[3];
            unravel(&B.v, k, bi);
            for (int d = 0; d < 3; d++) ok &= getk(&nv[d], row) == (double)bi[d];
            row++;
        }
        CHECK(ok);
        tfree(&A); tfree(&B); tfree(&O);
        for (int d = 0; d < 3; d++) tfree(&N[d]);
    }
    int64_t s2[2] = {2, 3}, s0[2] = {2, 0}, so[3] = {2, 2, 4};
    tt A = tnew(EIR_F32, 2, s2, 0), E = tnew(EIR_F32, 2, s0, 0), D = tnew(EIR_F64, 2, s2, 0), O = tnew(EIR_F32, 3, so, 0);
    const eir_tview *ae[2] = {&A.v, &E.v}, *ad[2] = {&A.v, &D.v};
    eir_karg e0[3] = {KTS(2, ae), KI(1), KI(2)}, e1[3] = {KTS(2, ad), KI(1), KI(2)}, e2[3] = {KTS(1, ad), KI(1), KI(0)};
    CHECK_FAILS(run("aten._chunk_cat.default", e0, 3, &O.v, 1), "_chunk_cat expects non-empty tensor");
    CHECK_FAILS(run("aten._chunk_cat.default", e1, 3, &O.v, 1), "_chunk_cat expects all input tensors with the same dtype");
    CHECK_FAILS(run("aten._chunk_cat.default", e2, 3, &O.v, 1), "_chunk_cat expects positive num_chunks");
    tfree(&A); tfree(&E); tfree(&D); tfree(&O);

    /* embedding_renorm_: rows named by the indices (each once) scaled to max_norm where their p-norm exceeds it */
    static const eir_dtype fd[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
    for (int it = 0; it < 16; it++) {
        eir_dtype dt = fd[it % 4];
        int64_t rows = irand(1, 6), dims = irand(1, 5), ni = irand(0, 6), sw[2] = {rows, dims};
        double p = it % 3 == 0 ? 1 : it % 3 == 1 ? 2 : 3, maxn = 0.5 + urand() * 0.25 + 0.25;
        tt W = tnew(dt, 2, sw, it % 4), R = tnew(dt, 2, sw, 0), I = tnew(it % 2 ? EIR_I32 : EIR_I64, 1, &ni, 2);
        fill_rand(&W.v);
        for (int64_t k = 0; k < rows * dims; k++) setk(&R.v, k, getk(&W.v, k));
        bool named[8] = {false};
        for (int64_t k = 0; k < ni; k++) { int64_t r = irand(-rows, rows - 1); setk(&I.v, k, (double)r); named[r < 0 ? r + rows : r] = true; }
        eir_karg a[4] = {KT(&W.v), KT(&I.v), KF(maxn), KF(p)};
        CHECK(run("aten.embedding_renorm_.default", a, 4, &W.v, 1) == 0);
        bool ok = true;
        for (int64_t r = 0; r < rows; r++) {
            double nrm = 0;
            for (int64_t j = 0; j < dims; j++) nrm += pow(fabs(getk(&R.v, r * dims + j)), p);
            nrm = pow(nrm, 1 / p);
            /* a row named by a negative and a positive index is renormalized twice, as in torch; the second time its norm is within max_norm */
            double sc = named[r] && nrm > maxn ? maxn / (nrm + 1e-7) : 1;
            for (int64_t j = 0; j < dims; j++) {
                double want = getk(&R.v, r * dims + j) * sc, got = getk(&W.v, r * dims + j);
                ok &= fabs(got - want) <= tol_of(dt) * 8 * (1 + fabs(want));
            }
        }
        CHECK(ok);
        tfree(&W); tfree(&R); tfree(&I);
    }
    int64_t sw[2] = {3, 2}, s1[1] = {1};
    tt W = tnew(EIR_F32, 2, sw, 0), I16 = tnew(EIR_I16, 1, s1, 0), I = tnew(EIR_I64, 1, s1, 0), L = tnew(EIR_I64, 2, sw, 0);
    setk(&I.v, 0, 3);
    eir_karg b0[4] = {KT(&W.v), KT(&I16.v), KF(1), KF(2)}, b1[4] = {KT(&W.v), KT(&I.v), KF(1), KF(2)}, b2[4] = {KT(&L.v), KT(&I.v), KF(1), KF(2)};
    CHECK_FAILS(run("aten.embedding_renorm_.default", b0, 4, &W.v, 1), "have one of the following scalar types: Long, Int; but got torch.ShortTensor instead");
    CHECK_FAILS(run("aten.embedding_renorm_.default", b1, 4, &W.v, 1), "select(): index 3 out of range for tensor of size [3, 2] at dimension 0");
    CHECK_FAILS(run("aten.embedding_renorm_.default", b2, 4, &L.v, 1), "norm(): input dtype should be either floating point or complex. Got Long instead.");
    tfree(&W); tfree(&I16); tfree(&I); tfree(&L);
}

/* the alias ops reach the core kernels they name */
static void test_aliases(void) {
    int64_t s[1] = {6};
    tt A = tnew(EIR_I32, 1, s, 0), B = tnew(EIR_I32, 1, s, 2), O = tnew(EIR_I32, 1, s, 0), F = tnew(EIR_F32, 1, s, 0);
    static const double av[6] = {7, -7, 7, -7, 0, 5}, bv[6] = {2, 2, -2, -2, 3, 5};
    for (int k = 0; k < 6; k++) { setk(&A.v, k, av[k]); setk(&B.v, k, bv[k]); }
    eir_karg floor_[3] = {KT(&A.v), KT(&B.v), KSTR("floor")}, trunc_[3] = {KT(&A.v), KT(&B.v), KSTR("trunc")};
    CHECK(run("aten.divide.Tensor_mode", floor_, 3, &O.v, 1) == 0);
    for (int k = 0; k < 6; k++) CHECK(getk(&O.v, k) == floor(av[k] / bv[k]));
    CHECK(run("aten.divide_.Tensor_mode", trunc_, 3, &O.v, 1) == 0);
    for (int k = 0; k < 6; k++) CHECK(getk(&O.v, k) == trunc(av[k] / bv[k]));
    eir_karg td[2] = {KT(&A.v), KT(&B.v)};
    CHECK(run("aten.true_divide.Tensor", td, 2, &F.v, 1) == 0);
    for (int k = 0; k < 6; k++) CHECK(fabs(getk(&F.v, k) - av[k] / bv[k]) < 1e-6);
    eir_karg sb[3] = {KT(&A.v), KT(&B.v), KSI(2)};
    CHECK(run("aten.subtract.Tensor", sb, 3, &O.v, 1) == 0);
    for (int k = 0; k < 6; k++) CHECK(getk(&O.v, k) == av[k] - 2 * bv[k]);
    CHECK(run("aten.max.other", td, 2, &O.v, 1) == 0);
    for (int k = 0; k < 6; k++) CHECK(getk(&O.v, k) == fmax(av[k], bv[k]));
    CHECK(run("aten.min.other", td, 2, &O.v, 1) == 0);
    for (int k = 0; k < 6; k++) CHECK(getk(&O.v, k) == fmin(av[k], bv[k]));
    eir_karg sq[1] = {KT(&A.v)};
    CHECK(run("aten.square.default", sq, 1, &O.v, 1) == 0);
    for (int k = 0; k < 6; k++) CHECK(getk(&O.v, k) == av[k] * av[k]);
    tfree(&A); tfree(&B); tfree(&O); tfree(&F);
}

int main(void) {
    test_einsum();
    test_tensordot_inner_bilinear();
    test_kron_outer_vdot();
    test_addr_addbmm_trace();
    test_diagonals();
    test_shapes();
    test_grids();
    test_indexing();
    test_index_reduce();
    test_nonzero_unique();
    test_reductions();
    test_vectors();
    test_factories();
    test_windows();
    test_aliases();
    test_one_hot();
    test_stacks();
    test_diff();
    test_msort_tri();
    test_trapezoid();
    test_max_unpool();
    test_chunk_nonzero_renorm();
    return check_summary("test_k_compose");
}
