/* linalg.c — kernel family: linear algebra, as torch.export records it
 * before decompositions (torch.linalg.* and the older torch.* names) and
 * the non-core ops run_decompositions leaves (_linalg_det, _linalg_svd,
 * _linalg_eigh, _linalg_solve_ex, _linalg_check_errors, ...).
 *
 *   factorizations  LU (getrf), Cholesky (potrf), QR (geqrf + orgqr/ormqr),
 *                   LDL (sytrf/hetrf), eigh (syevd/heevd), eig (geev),
 *                   SVD (gesdd) — the LAPACK drivers torch calls on the CPU,
 *                   so non-unique results (signs, phases) follow the same
 *                   conventions
 *   solvers         solve, lu_solve, cholesky_solve, triangular solves
 *                   (trsm), ldl_solve, inv, cholesky_inverse, tensorsolve,
 *                   tensorinv
 *   derived         det, slogdet, logdet, pinv, matrix_rank, norms, cond,
 *                   matrix_power, matrix_exp, vander
 *
 * LAPACK comes from Debian's OpenBLAS (libopenblas-dev ships reference
 * LAPACK 3.11 inside libopenblas.so, but no LAPACKE), so the Fortran symbols
 * are declared here and called directly, with gfortran's hidden length
 * arguments for character parameters. Each matrix of a batch is copied into
 * a column-major scratch buffer in the compute dtype (float, double,
 * complex64, complex128: the input's own, as torch calls sgetrf for float),
 * factored in place, and written out through the output's recorded strides.
 * Batch dims broadcast as in torch (solve, lu_solve, cholesky_solve,
 * solve_triangular). Errors torch raises at run time (singular matrices,
 * non positive-definite input, non-finite input to svd and eig, invalid
 * pivots) come back with torch's messages; the *_ex variants return LAPACK's
 * info instead. Pivots are validated before LAPACK sees them, so malformed
 * pivots never index out of bounds. */
#include <cblas.h>
#include "base/cmplx.h" /* complex.h, and CMPLX for clang */
#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/base.h" /* eir_snprintf */
#include "gemm.h"
#include "kutil.h"
#include "tables.h"

static const char *dname(eir_dtype d) { return eir_torch_dtype_name(d); }

/* ======================================================================
 * LAPACK (Fortran symbols; LP64 integers; hidden character lengths last)
 * ====================================================================== */

typedef int lint;
typedef size_t flen;

#define LAPACK4(ret, name, params) ret s##name params; ret d##name params; ret c##name params; ret z##name params;
LAPACK4(void, getrf_, (const lint *m, const lint *n, void *a, const lint *lda, lint *ipiv, lint *info))
LAPACK4(void, getrs_, (const char *tr, const lint *n, const lint *nrhs, const void *a, const lint *lda, const lint *ipiv, void *b,
                       const lint *ldb, lint *info, flen))
LAPACK4(void, potrf_, (const char *uplo, const lint *n, void *a, const lint *lda, lint *info, flen))
LAPACK4(void, potrs_, (const char *uplo, const lint *n, const lint *nrhs, const void *a, const lint *lda, void *b, const lint *ldb,
                       lint *info, flen))
LAPACK4(void, potri_, (const char *uplo, const lint *n, void *a, const lint *lda, lint *info, flen))
LAPACK4(void, geqrf_, (const lint *m, const lint *n, void *a, const lint *lda, void *tau, void *work, const lint *lwork, lint *info))
LAPACK4(void, sytrf_, (const char *uplo, const lint *n, void *a, const lint *lda, lint *ipiv, void *work, const lint *lwork,
                       lint *info, flen))
LAPACK4(void, sytrs_, (const char *uplo, const lint *n, const lint *nrhs, const void *a, const lint *lda, const lint *ipiv, void *b,
                       const lint *ldb, lint *info, flen))
#undef LAPACK4
#define LAPACK_R(ret, name, params) ret s##name params; ret d##name params;
#define LAPACK_C(ret, name, params) ret c##name params; ret z##name params;
LAPACK_R(void, orgqr_, (const lint *m, const lint *n, const lint *k, void *a, const lint *lda, const void *tau, void *work,
                        const lint *lwork, lint *info))
LAPACK_C(void, ungqr_, (const lint *m, const lint *n, const lint *k, void *a, const lint *lda, const void *tau, void *work,
                        const lint *lwork, lint *info))
LAPACK_R(void, ormqr_, (const char *side, const char *tr, const lint *m, const lint *n, const lint *k, const void *a, const lint *lda,
                        const void *tau, void *c, const lint *ldc, void *work, const lint *lwork, lint *info, flen, flen))
LAPACK_C(void, unmqr_, (const char *side, const char *tr, const lint *m, const lint *n, const lint *k, const void *a, const lint *lda,
                        const void *tau, void *c, const lint *ldc, void *work, const lint *lwork, lint *info, flen, flen))
LAPACK_R(void, syevd_, (const char *jobz, const char *uplo, const lint *n, void *a, const lint *lda, void *w, void *work,
                        const lint *lwork, lint *iwork, const lint *liwork, lint *info, flen, flen))
LAPACK_C(void, heevd_, (const char *jobz, const char *uplo, const lint *n, void *a, const lint *lda, void *w, void *work,
                        const lint *lwork, void *rwork, const lint *lrwork, lint *iwork, const lint *liwork, lint *info, flen, flen))
LAPACK_R(void, geev_, (const char *jobvl, const char *jobvr, const lint *n, void *a, const lint *lda, void *wr, void *wi, void *vl,
                       const lint *ldvl, void *vr, const lint *ldvr, void *work, const lint *lwork, lint *info, flen, flen))
LAPACK_C(void, geev_, (const char *jobvl, const char *jobvr, const lint *n, void *a, const lint *lda, void *w, void *vl,
                       const lint *ldvl, void *vr, const lint *ldvr, void *work, const lint *lwork, void *rwork, lint *info, flen,
                       flen))
LAPACK_R(void, gesdd_, (const char *jobz, const lint *m, const lint *n, void *a, const lint *lda, void *s, void *u, const lint *ldu,
                        void *vt, const lint *ldvt, void *work, const lint *lwork, lint *iwork, lint *info, flen))
LAPACK_C(void, gesdd_, (const char *jobz, const lint *m, const lint *n, void *a, const lint *lda, void *s, void *u, const lint *ldu,
                        void *vt, const lint *ldvt, void *work, const lint *lwork, void *rwork, lint *iwork, lint *info, flen))
LAPACK_C(void, hetrf_, (const char *uplo, const lint *n, void *a, const lint *lda, lint *ipiv, void *work, const lint *lwork,
                        lint *info, flen))
LAPACK_C(void, hetrs_, (const char *uplo, const lint *n, const lint *nrhs, const void *a, const lint *lda, const lint *ipiv, void *b,
                        const lint *ldb, lint *info, flen))
#undef LAPACK_R
#undef LAPACK_C

/* info value the wrappers return when their workspace cannot be allocated */
#define LP_NOMEM INT_MIN

static bool is_cpx(eir_dtype ct) { return ct == EIR_C64 || ct == EIR_C128; }
static bool is_dbl(eir_dtype ct) { return ct == EIR_F64 || ct == EIR_C128; }
static eir_dtype real_of(eir_dtype ct) { return is_dbl(ct) ? EIR_F64 : EIR_F32; }
static size_t esz(eir_dtype ct) { return eir_elsize(ct); }

#define DISPATCH4(ct, call, ...)                       \
    switch (ct) {                                      \
    case EIR_F32: s##call(__VA_ARGS__); break;         \
    case EIR_F64: d##call(__VA_ARGS__); break;         \
    case EIR_C64: c##call(__VA_ARGS__); break;         \
    default: z##call(__VA_ARGS__); break;              \
    }

/* optimal lwork from a workspace query (its first element, real part) */
static lint wsize(eir_dtype ct, const void *w) {
    double v = ct == EIR_F32 || ct == EIR_C64 ? (double)*(const float *)w : *(const double *)w;
    return v < 1 ? 1 : v > INT_MAX / 2 ? INT_MAX / 2 : (lint)v + 1;
}

static lint lp_getrf(eir_dtype ct, lint m, lint n, void *a, lint lda, lint *ipiv) {
    lint info = 0;
    if (m == 0 || n == 0) return 0;
    DISPATCH4(ct, getrf_, &m, &n, a, &lda, ipiv, &info);
    return info;
}

static lint lp_getrs(eir_dtype ct, char tr, lint n, lint nrhs, const void *a, lint lda, const lint *ipiv, void *b, lint ldb) {
    lint info = 0;
    if (n == 0 || nrhs == 0) return 0;
    if (tr == 'C' && !is_cpx(ct)) tr = 'T';
    DISPATCH4(ct, getrs_, &tr, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
    return info;
}

static lint lp_potrf(eir_dtype ct, char uplo, lint n, void *a, lint lda) {
    lint info = 0;
    if (n == 0) return 0;
    DISPATCH4(ct, potrf_, &uplo, &n, a, &lda, &info, 1);
    return info;
}

static lint lp_potrs(eir_dtype ct, char uplo, lint n, lint nrhs, const void *a, lint lda, void *b, lint ldb) {
    lint info = 0;
    if (n == 0 || nrhs == 0) return 0;
    DISPATCH4(ct, potrs_, &uplo, &n, &nrhs, a, &lda, b, &ldb, &info, 1);
    return info;
}

static lint lp_potri(eir_dtype ct, char uplo, lint n, void *a, lint lda) {
    lint info = 0;
    if (n == 0) return 0;
    DISPATCH4(ct, potri_, &uplo, &n, a, &lda, &info, 1);
    return info;
}

static lint lp_geqrf(eir_dtype ct, lint m, lint n, void *a, lint lda, void *tau) {
    lint info = 0, lw = -1;
    if (m == 0 || n == 0) return 0;
    double q[4];
    DISPATCH4(ct, geqrf_, &m, &n, a, &lda, tau, q, &lw, &info);
    lw = wsize(ct, q);
    void *w = eir_kalloc((size_t)lw * esz(ct));
    if (!w) return LP_NOMEM;
    DISPATCH4(ct, geqrf_, &m, &n, a, &lda, tau, w, &lw, &info);
    eir_kfree(w);
    return info;
}

/* orgqr / ungqr: the first n columns of Q = H(1)...H(k) (m >= n >= k) */
static lint lp_orgqr(eir_dtype ct, lint m, lint n, lint k, void *a, lint lda, const void *tau) {
    lint info = 0, lw = -1;
    if (m == 0 || n == 0) return 0;
    double q[4];
    switch (ct) {
    case EIR_F32: sorgqr_(&m, &n, &k, a, &lda, tau, q, &lw, &info); break;
    case EIR_F64: dorgqr_(&m, &n, &k, a, &lda, tau, q, &lw, &info); break;
    case EIR_C64: cungqr_(&m, &n, &k, a, &lda, tau, q, &lw, &info); break;
    default: zungqr_(&m, &n, &k, a, &lda, tau, q, &lw, &info); break;
    }
    lw = wsize(ct, q);
    void *w = eir_kalloc((size_t)lw * esz(ct));
    if (!w) return LP_NOMEM;
    switch (ct) {
    case EIR_F32: sorgqr_(&m, &n, &k, a, &lda, tau, w, &lw, &info); break;
    case EIR_F64: dorgqr_(&m, &n, &k, a, &lda, tau, w, &lw, &info); break;
    case EIR_C64: cungqr_(&m, &n, &k, a, &lda, tau, w, &lw, &info); break;
    default: zungqr_(&m, &n, &k, a, &lda, tau, w, &lw, &info); break;
    }
    eir_kfree(w);
    return info;
}

/* ormqr / unmqr: C = op(Q) C or C op(Q); tr 'T' means the conjugate transpose for complex */
static lint lp_ormqr(eir_dtype ct, char side, char tr, lint m, lint n, lint k, const void *a, lint lda, const void *tau, void *c,
                     lint ldc) {
    lint info = 0, lw = -1;
    if (m == 0 || n == 0 || k == 0) return 0;
    if (tr == 'T' && is_cpx(ct)) tr = 'C';
    double q[4];
    switch (ct) {
    case EIR_F32: sormqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, q, &lw, &info, 1, 1); break;
    case EIR_F64: dormqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, q, &lw, &info, 1, 1); break;
    case EIR_C64: cunmqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, q, &lw, &info, 1, 1); break;
    default: zunmqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, q, &lw, &info, 1, 1); break;
    }
    lw = wsize(ct, q);
    void *w = eir_kalloc((size_t)lw * esz(ct));
    if (!w) return LP_NOMEM;
    switch (ct) {
    case EIR_F32: sormqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1); break;
    case EIR_F64: dormqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1); break;
    case EIR_C64: cunmqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1); break;
    default: zunmqr_(&side, &tr, &m, &n, &k, a, &lda, tau, c, &ldc, w, &lw, &info, 1, 1); break;
    }
    eir_kfree(w);
    return info;
}

/* syevd / heevd: eigenvalues w (real dtype) ascending; vectors into a when jobz 'V' */
static lint lp_syevd(eir_dtype ct, char jobz, char uplo, lint n, void *a, lint lda, void *w) {
    lint info = 0, lw = -1, lrw = -1, liw = -1, iq = 0;
    if (n == 0) return 0;
    double q[4], rq[4];
    switch (ct) {
    case EIR_F32: ssyevd_(&jobz, &uplo, &n, a, &lda, w, q, &lw, &iq, &liw, &info, 1, 1); break;
    case EIR_F64: dsyevd_(&jobz, &uplo, &n, a, &lda, w, q, &lw, &iq, &liw, &info, 1, 1); break;
    case EIR_C64: cheevd_(&jobz, &uplo, &n, a, &lda, w, q, &lw, rq, &lrw, &iq, &liw, &info, 1, 1); break;
    default: zheevd_(&jobz, &uplo, &n, a, &lda, w, q, &lw, rq, &lrw, &iq, &liw, &info, 1, 1); break;
    }
    lw = wsize(ct, q);
    lrw = is_cpx(ct) ? wsize(real_of(ct), rq) : 1;
    liw = iq > 1 ? iq : 1;
    void *wk = eir_kalloc((size_t)lw * esz(ct)), *rw = eir_kalloc((size_t)lrw * esz(real_of(ct)));
    lint *iw = eir_kalloc((size_t)liw * sizeof(lint));
    if (wk && rw && iw) switch (ct) {
        case EIR_F32: ssyevd_(&jobz, &uplo, &n, a, &lda, w, wk, &lw, iw, &liw, &info, 1, 1); break;
        case EIR_F64: dsyevd_(&jobz, &uplo, &n, a, &lda, w, wk, &lw, iw, &liw, &info, 1, 1); break;
        case EIR_C64: cheevd_(&jobz, &uplo, &n, a, &lda, w, wk, &lw, rw, &lrw, iw, &liw, &info, 1, 1); break;
        default: zheevd_(&jobz, &uplo, &n, a, &lda, w, wk, &lw, rw, &lrw, iw, &liw, &info, 1, 1); break;
        }
    else info = LP_NOMEM;
    eir_kfree(wk); eir_kfree(rw); eir_kfree(iw);
    return info;
}

/* geev with right eigenvectors: w (complex of ct's precision, n) and, when
 * jobvr 'V', vr (complex, n x n, leading dim n). Real input: LAPACK's
 * (wr, wi) pairs become complex values, and a conjugate pair's vectors
 * vr[:, j] +- i vr[:, j+1], as torch assembles them. */
static lint lp_geev(eir_dtype ct, char jobvr, lint n, void *a, lint lda, void *w, void *vr) {
    lint info = 0, lw = -1, one = 1, ldvr = n > 0 ? n : 1;
    char jobvl = 'N';
    if (n == 0) return 0;
    double q[4], dummy[2];
    bool cx = is_cpx(ct);
    eir_dtype rt = real_of(ct);
    size_t rs = esz(rt);
    /* real: wr, wi and a real vr; complex: rwork 2n */
    void *wr = NULL, *wi = NULL, *rvr = NULL, *rw = NULL;
    if (!cx) {
        wr = eir_kalloc((size_t)n * rs); wi = eir_kalloc((size_t)n * rs);
        rvr = jobvr == 'V' ? eir_kalloc((size_t)n * (size_t)n * rs) : NULL;
        if (!wr || !wi || (jobvr == 'V' && !rvr)) { eir_kfree(wr); eir_kfree(wi); eir_kfree(rvr); return LP_NOMEM; }
    } else {
        rw = eir_kalloc((size_t)(2 * n) * rs);
        if (!rw) return LP_NOMEM;
    }
    void *vrp = jobvr == 'V' ? (cx ? vr : rvr) : dummy;
    lint ldv = jobvr == 'V' ? ldvr : 1;
    switch (ct) {
    case EIR_F32: sgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, dummy, &one, vrp, &ldv, q, &lw, &info, 1, 1); break;
    case EIR_F64: dgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, dummy, &one, vrp, &ldv, q, &lw, &info, 1, 1); break;
    case EIR_C64: cgeev_(&jobvl, &jobvr, &n, a, &lda, w, dummy, &one, vrp, &ldv, q, &lw, rw, &info, 1, 1); break;
    default: zgeev_(&jobvl, &jobvr, &n, a, &lda, w, dummy, &one, vrp, &ldv, q, &lw, rw, &info, 1, 1); break;
    }
    lw = wsize(ct, q);
    void *wk = eir_kalloc((size_t)lw * esz(ct));
    if (wk) switch (ct) {
        case EIR_F32: sgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, dummy, &one, vrp, &ldv, wk, &lw, &info, 1, 1); break;
        case EIR_F64: dgeev_(&jobvl, &jobvr, &n, a, &lda, wr, wi, dummy, &one, vrp, &ldv, wk, &lw, &info, 1, 1); break;
        case EIR_C64: cgeev_(&jobvl, &jobvr, &n, a, &lda, w, dummy, &one, vrp, &ldv, wk, &lw, rw, &info, 1, 1); break;
        default: zgeev_(&jobvl, &jobvr, &n, a, &lda, w, dummy, &one, vrp, &ldv, wk, &lw, rw, &info, 1, 1); break;
        }
    else info = LP_NOMEM;
    eir_kfree(wk);
    if (!cx && info != LP_NOMEM) {
        bool d = ct == EIR_F64;
#define RGET(p, i) (d ? ((const double *)(p))[i] : (double)((const float *)(p))[i])
#define CPUT(p, i, re, im) do { if (d) { ((double *)(p))[2 * (i)] = (re); ((double *)(p))[2 * (i) + 1] = (im); } \
                                else { ((float *)(p))[2 * (i)] = (float)(re); ((float *)(p))[2 * (i) + 1] = (float)(im); } } while (0)
        for (lint j = 0; j < n; j++) CPUT(w, j, RGET(wr, j), RGET(wi, j));
        if (jobvr == 'V')
            for (lint j = 0; j < n; j++) {
                if (RGET(wi, j) != 0 && j + 1 < n) {
                    for (lint i = 0; i < n; i++) {
                        double re = RGET(rvr, i + j * n), im = RGET(rvr, i + (j + 1) * n);
                        CPUT(vr, i + j * n, re, im);
                        CPUT(vr, i + (j + 1) * n, re, -im);
                    }
                    j++;
                } else
                    for (lint i = 0; i < n; i++) CPUT(vr, i + j * n, RGET(rvr, i + j * n), 0.0);
            }
#undef RGET
#undef CPUT
    }
    eir_kfree(wr); eir_kfree(wi); eir_kfree(rvr); eir_kfree(rw);
    return info;
}

/* gesdd: s (real, min(m,n)); jobz 'A' / 'S' fill u (m x ucols) and vt (vrows x n), 'N' neither */
static lint lp_gesdd(eir_dtype ct, char jobz, lint m, lint n, void *a, lint lda, void *s, void *u, lint ldu, void *vt, lint ldvt) {
    lint info = 0, lw = -1;
    if (m == 0 || n == 0) return 0;
    lint mn = m < n ? m : n, mx = m < n ? n : m;
    double q[4], dummy[2];
    if (jobz == 'N') { u = vt = dummy; ldu = ldvt = 1; }
    lint *iw = eir_kalloc((size_t)(8 * mn) * sizeof(lint));
    void *rw = NULL;
    if (is_cpx(ct)) {
        /* LAPACK 3.11's bound for jobz != 'N' covers 'N' too */
        int64_t l1 = 5 * (int64_t)mn * mn + 7 * (int64_t)mn, l2 = 2 * (int64_t)mx * mn + 2 * (int64_t)mn * mn + mn;
        int64_t lr = l1 > l2 ? l1 : l2;
        rw = eir_kalloc((size_t)lr * esz(real_of(ct)));
        if (!rw) { eir_kfree(iw); return LP_NOMEM; }
    }
    if (!iw) { eir_kfree(rw); return LP_NOMEM; }
    switch (ct) {
    case EIR_F32: sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, q, &lw, iw, &info, 1); break;
    case EIR_F64: dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, q, &lw, iw, &info, 1); break;
    case EIR_C64: cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, q, &lw, rw, iw, &info, 1); break;
    default: zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, q, &lw, rw, iw, &info, 1); break;
    }
    lw = wsize(ct, q);
    void *wk = eir_kalloc((size_t)lw * esz(ct));
    if (wk) switch (ct) {
        case EIR_F32: sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wk, &lw, iw, &info, 1); break;
        case EIR_F64: dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wk, &lw, iw, &info, 1); break;
        case EIR_C64: cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wk, &lw, rw, iw, &info, 1); break;
        default: zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, wk, &lw, rw, iw, &info, 1); break;
        }
    else info = LP_NOMEM;
    eir_kfree(wk); eir_kfree(rw); eir_kfree(iw);
    return info;
}

/* sytrf ('L'); hermitian complex input: hetrf */
static lint lp_sytrf(eir_dtype ct, bool herm, lint n, void *a, lint lda, lint *ipiv) {
    lint info = 0, lw = -1;
    char uplo = 'L';
    if (n == 0) return 0;
    double q[4];
    if (herm && is_cpx(ct)) {
        if (ct == EIR_C64) chetrf_(&uplo, &n, a, &lda, ipiv, q, &lw, &info, 1);
        else zhetrf_(&uplo, &n, a, &lda, ipiv, q, &lw, &info, 1);
    } else DISPATCH4(ct, sytrf_, &uplo, &n, a, &lda, ipiv, q, &lw, &info, 1);
    lw = wsize(ct, q);
    void *w = eir_kalloc((size_t)lw * esz(ct));
    if (!w) return LP_NOMEM;
    if (herm && is_cpx(ct)) {
        if (ct == EIR_C64) chetrf_(&uplo, &n, a, &lda, ipiv, w, &lw, &info, 1);
        else zhetrf_(&uplo, &n, a, &lda, ipiv, w, &lw, &info, 1);
    } else DISPATCH4(ct, sytrf_, &uplo, &n, a, &lda, ipiv, w, &lw, &info, 1);
    eir_kfree(w);
    return info;
}

static lint lp_sytrs(eir_dtype ct, bool herm, lint n, lint nrhs, const void *a, lint lda, const lint *ipiv, void *b, lint ldb) {
    lint info = 0;
    char uplo = 'L';
    if (n == 0 || nrhs == 0) return 0;
    if (herm && is_cpx(ct)) {
        if (ct == EIR_C64) chetrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
        else zhetrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
    } else DISPATCH4(ct, sytrs_, &uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, &info, 1);
    return info;
}

/* C (m x n) = op(A) op(B), column-major; op: 'N', 'T' or 'C' */
static void gemm_cm(eir_dtype ct, char ta, char tb, lint m, lint n, lint k, const void *A, lint lda, const void *B, lint ldb, void *C,
                    lint ldc) {
    if (m <= 0 || n <= 0) return;
    if (k <= 0) { for (lint j = 0; j < n; j++) memset((char *)C + (size_t)j * ldc * esz(ct), 0, (size_t)m * esz(ct)); return; }
    CBLAS_TRANSPOSE TA = ta == 'N' ? CblasNoTrans : ta == 'T' ? CblasTrans : CblasConjTrans;
    CBLAS_TRANSPOSE TB = tb == 'N' ? CblasNoTrans : tb == 'T' ? CblasTrans : CblasConjTrans;
    if (!is_cpx(ct)) {
        if (TA == CblasConjTrans) TA = CblasTrans;
        if (TB == CblasConjTrans) TB = CblasTrans;
    }
    switch (ct) {
    case EIR_F32: eir_sgemm(CblasColMajor, TA, TB, m, n, k, 1.f, A, lda, B, ldb, 0.f, C, ldc); break;
    case EIR_F64: cblas_dgemm(CblasColMajor, TA, TB, m, n, k, 1.0, A, lda, B, ldb, 0.0, C, ldc); break;
    case EIR_C64: { float one[2] = {1, 0}, zero[2] = {0, 0}; cblas_cgemm(CblasColMajor, TA, TB, m, n, k, one, A, lda, B, ldb, zero, C, ldc); break; }
    default: { double one[2] = {1, 0}, zero[2] = {0, 0}; cblas_zgemm(CblasColMajor, TA, TB, m, n, k, one, A, lda, B, ldb, zero, C, ldc); break; }
    }
}

/* B = op(A)^-1 B (left) or B op(A)^-1 (right), A triangular, column-major */
static void trsm_cm(eir_dtype ct, bool left, bool upper, char tr, bool unit, lint m, lint n, const void *A, lint lda, void *B, lint ldb) {
    if (m <= 0 || n <= 0) return;
    CBLAS_SIDE S = left ? CblasLeft : CblasRight;
    CBLAS_UPLO U = upper ? CblasUpper : CblasLower;
    CBLAS_TRANSPOSE T = tr == 'N' ? CblasNoTrans : tr == 'T' || !is_cpx(ct) ? CblasTrans : CblasConjTrans;
    CBLAS_DIAG D = unit ? CblasUnit : CblasNonUnit;
    switch (ct) {
    case EIR_F32: cblas_strsm(CblasColMajor, S, U, T, D, m, n, 1.f, A, lda, B, ldb); break;
    case EIR_F64: cblas_dtrsm(CblasColMajor, S, U, T, D, m, n, 1.0, A, lda, B, ldb); break;
    case EIR_C64: { float one[2] = {1, 0}; cblas_ctrsm(CblasColMajor, S, U, T, D, m, n, one, A, lda, B, ldb); break; }
    default: { double one[2] = {1, 0}; cblas_ztrsm(CblasColMajor, S, U, T, D, m, n, one, A, lda, B, ldb); break; }
    }
}

/* ======================================================================
 * scalars, batches, matrices, scratch, torch's checks
 * ====================================================================== */

typedef double complex zc;

static inline zc cget(const void *p, eir_dtype ct, int64_t i) {
    switch (ct) {
    case EIR_F32: return ((const float *)p)[i];
    case EIR_F64: return ((const double *)p)[i];
    case EIR_C64: return CMPLX(((const float *)p)[2 * i], ((const float *)p)[2 * i + 1]);
    default: return CMPLX(((const double *)p)[2 * i], ((const double *)p)[2 * i + 1]);
    }
}
static inline void cset(void *p, eir_dtype ct, int64_t i, zc v) {
    switch (ct) {
    case EIR_F32: ((float *)p)[i] = (float)creal(v); break;
    case EIR_F64: ((double *)p)[i] = creal(v); break;
    case EIR_C64: ((float *)p)[2 * i] = (float)creal(v); ((float *)p)[2 * i + 1] = (float)cimag(v); break;
    default: ((double *)p)[2 * i] = creal(v); ((double *)p)[2 * i + 1] = cimag(v); break;
    }
}
/* the value rounded to ct's precision, as a computation in that dtype would hold it */
static inline zc cround(eir_dtype ct, zc v) {
    if (is_dbl(ct)) return v;
    return CMPLX((double)(float)creal(v), is_cpx(ct) ? (double)(float)cimag(v) : 0.0);
}
static inline void tput(const eir_tview *t, int64_t off, zc v) {
    eir_store_c128((char *)t->data + off * (int64_t)eir_elsize(t->dtype), t->dtype, creal(v), cimag(v));
}
static inline zc tget(const eir_tview *t, int64_t off) {
    double re, im;
    eir_load_c128((const char *)t->data + off * (int64_t)eir_elsize(t->dtype), t->dtype, &re, &im);
    return CMPLX(re, im);
}

/* Batch shape: the dims in front of each operand's matrix (or vector) dims. */
typedef struct bat {
    int32_t n;
    int64_t sizes[EIR_MAX_RANK];
    int64_t count;
} bat;

static void bat_from(bat *b, const eir_tview *t, int32_t nb) {
    b->n = nb < 0 ? 0 : nb;
    b->count = 1;
    for (int32_t i = 0; i < b->n; i++) { b->sizes[i] = t->sizes[i]; b->count *= t->sizes[i]; }
}

/* torch's broadcasting of two batch shapes */
static bool bat_bcast(bat *r, const bat *x, const bat *y) {
    r->n = x->n > y->n ? x->n : y->n;
    r->count = 1;
    for (int32_t j = 0; j < r->n; j++) {
        int32_t ix = j - (r->n - x->n), iy = j - (r->n - y->n);
        int64_t a = ix >= 0 ? x->sizes[ix] : 1, b = iy >= 0 ? y->sizes[iy] : 1;
        if (a != b && a != 1 && b != 1) return false;
        r->sizes[j] = a == 1 ? b : a;
        r->count *= r->sizes[j];
    }
    return true;
}

/* Do t's first tb dims broadcast to bs (aligned right)? */
static bool bat_fits(const eir_tview *t, int32_t tb, const bat *bs) {
    if (tb < 0 || tb > bs->n || tb > t->rank) return false;
    for (int32_t i = 0; i < tb; i++) {
        int64_t s = t->sizes[i], w = bs->sizes[i + bs->n - tb];
        if (s != 1 && s != w) return false;
    }
    return true;
}

/* element offset in t of batch element k (row-major over bs), t's tb batch dims broadcast */
static int64_t bat_off(const eir_tview *t, int32_t tb, const bat *bs, int64_t k) {
    int64_t off = 0;
    for (int32_t j = bs->n - 1; j >= 0; j--) {
        int64_t sz = bs->sizes[j], ix = k % sz;
        k /= sz;
        int32_t i = j - (bs->n - tb);
        if (i >= 0 && t->sizes[i] != 1) off += ix * t->strides[i];
    }
    return off;
}

/* linear index in the (broadcast) batch `from` of element k of bs */
static int64_t bat_map(const bat *from, const bat *bs, int64_t k) {
    int64_t idx = 0, mul = 1;
    for (int32_t j = bs->n - 1; j >= 0; j--) {
        int64_t sz = bs->sizes[j], ix = k % sz;
        k /= sz;
        int32_t i = j - (bs->n - from->n);
        if (i >= 0) {
            if (from->sizes[i] != 1) idx += ix * mul;
            mul *= from->sizes[i];
        }
    }
    return idx;
}

/* Geometry of a matrix operand: its last two dims. */
typedef struct mat {
    int64_t rows, cols, rs, cs;
} mat;
static mat mat_of(const eir_tview *t) {
    mat m = {t->sizes[t->rank - 2], t->sizes[t->rank - 1], t->strides[t->rank - 2], t->strides[t->rank - 1]};
    return m;
}

/* dst[i + j*ld] (ct) = t[off + i*rs + j*cs], i < rows, j < cols, conjugated when conj */
static void mat_get(void *dst, eir_dtype ct, int64_t ld, const eir_tview *t, int64_t off, int64_t rows, int64_t cols, int64_t rs,
                    int64_t cs, bool conj) {
    size_t es = eir_elsize(t->dtype);
    const char *base = (const char *)t->data + off * (int64_t)es;
    conj = conj && is_cpx(ct);
    if (t->dtype == ct && !conj) {
        if (ct == EIR_F32) {
            for (int64_t j = 0; j < cols; j++)
                for (int64_t i = 0; i < rows; i++) ((float *)dst)[i + j * ld] = ((const float *)base)[i * rs + j * cs];
            return;
        }
        if (ct == EIR_F64) {
            for (int64_t j = 0; j < cols; j++)
                for (int64_t i = 0; i < rows; i++) ((double *)dst)[i + j * ld] = ((const double *)base)[i * rs + j * cs];
            return;
        }
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) memcpy((char *)dst + (i + j * ld) * (int64_t)es, base + (i * rs + j * cs) * (int64_t)es, es);
        return;
    }
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            double re, im;
            eir_load_c128(base + (i * rs + j * cs) * (int64_t)es, t->dtype, &re, &im);
            cset(dst, ct, i + j * ld, CMPLX(re, conj ? -im : im));
        }
}

/* t[off + i*rs + j*cs] = src[i + j*ld] (ct), conjugated when conj */
static void mat_put(const eir_tview *t, int64_t off, int64_t rows, int64_t cols, int64_t rs, int64_t cs, const void *src, eir_dtype ct,
                    int64_t ld, bool conj) {
    size_t es = eir_elsize(t->dtype);
    char *base = (char *)t->data + off * (int64_t)es;
    conj = conj && is_cpx(ct);
    if (t->dtype == ct && !conj) {
        if (ct == EIR_F32) {
            for (int64_t j = 0; j < cols; j++)
                for (int64_t i = 0; i < rows; i++) ((float *)base)[i * rs + j * cs] = ((const float *)src)[i + j * ld];
            return;
        }
        if (ct == EIR_F64) {
            for (int64_t j = 0; j < cols; j++)
                for (int64_t i = 0; i < rows; i++) ((double *)base)[i * rs + j * cs] = ((const double *)src)[i + j * ld];
            return;
        }
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) memcpy(base + (i * rs + j * cs) * (int64_t)es, (const char *)src + (i + j * ld) * (int64_t)es, es);
        return;
    }
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            zc v = cget(src, ct, i + j * ld);
            eir_store_c128(base + (i * rs + j * cs) * (int64_t)es, t->dtype, creal(v), conj ? -cimag(v) : cimag(v));
        }
}

/* t[off + i*st] = src[i] for i < n (src in dtype sct) */
static void vec_put(const eir_tview *t, int64_t off, int64_t n, int64_t st, const void *src, eir_dtype sct) {
    for (int64_t i = 0; i < n; i++) tput(t, off + i * st, cget(src, sct, i));
}
static void ivec_put(const eir_tview *t, int64_t off, int64_t n, int64_t st, const lint *src) {
    size_t es = eir_elsize(t->dtype);
    for (int64_t i = 0; i < n; i++) eir_store_i64((char *)t->data + (off + i * st) * (int64_t)es, t->dtype, src[i]);
}
static void ivec_get(lint *dst, const eir_tview *t, int64_t off, int64_t n, int64_t st) {
    size_t es = eir_elsize(t->dtype);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = eir_load_i64((const char *)t->data + (off + i * st) * (int64_t)es, t->dtype);
        dst[i] = v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (lint)v;
    }
}
static void iput(const eir_tview *t, int64_t off, int64_t v) {
    eir_store_i64((char *)t->data + off * (int64_t)eir_elsize(t->dtype), t->dtype, v);
}

/* column-major identity / zero fill */
static void cm_eye(void *buf, eir_dtype ct, int64_t rows, int64_t cols, int64_t ld) {
    for (int64_t j = 0; j < cols; j++) {
        memset((char *)buf + j * ld * (int64_t)esz(ct), 0, (size_t)rows * esz(ct));
        if (j < rows) cset(buf, ct, j + j * ld, 1);
    }
}

static void cm_zero(void *buf, eir_dtype ct, int64_t rows, int64_t cols, int64_t ld) {
    for (int64_t j = 0; j < cols; j++) memset((char *)buf + j * ld * (int64_t)esz(ct), 0, (size_t)rows * esz(ct));
}

/* A kernel's scratch blocks, freed together. */
typedef struct pool {
    void *p[16];
    int n;
    bool fail;
} pool;
/* Blocks get 64 bytes of slack: OpenBLAS 0.3.21's complex dot kernel for Haswell
 * (cdotc_k_HASWELL, under cpotri's clauum) reads up to 24 bytes past the end of
 * the matrix it is given (valgrind shows it on an exactly sized buffer). */
#define LAPACK_SLACK 64
static void *palloc(pool *pl, size_t bytes) {
    if (pl->n == 16) { pl->fail = true; return NULL; }
    if (bytes > SIZE_MAX - LAPACK_SLACK) { pl->fail = true; return NULL; }
    void *q = eir_kalloc(bytes + LAPACK_SLACK);
    if (!q) pl->fail = true;
    else pl->p[pl->n++] = q;
    return q;
}
static void pfree(pool *pl) {
    while (pl->n > 0) eir_kfree(pl->p[--pl->n]);
}
static int oom(eir_kctx *ctx, pool *pl, const char *api) {
    pfree(pl);
    return eir_kerr(ctx, "%s: out of memory", api);
}

/* ---- argument access ---- */
static bool barg(const eir_karg *a, uint32_t na, uint32_t i, bool def) {
    return i < na && (a[i].kind == EIR_KA_BOOL || a[i].kind == EIR_KA_INT) ? a[i].i != 0 : def;
}
static int64_t iarg(const eir_karg *a, uint32_t na, uint32_t i, int64_t def) {
    return i < na && (a[i].kind == EIR_KA_INT || a[i].kind == EIR_KA_BOOL) ? a[i].i : def;
}
static const char *sarg(const eir_karg *a, uint32_t na, uint32_t i, const char *def) {
    return i < na && a[i].kind == EIR_KA_STRING && a[i].str ? a[i].str : def;
}
static bool is_none(const eir_karg *a, uint32_t na, uint32_t i) { return i >= na || a[i].kind == EIR_KA_NONE; }
/* a Scalar / float argument as a double */
static double farg(const eir_karg *a, uint32_t na, uint32_t i, double def) {
    if (i >= na) return def;
    switch (a[i].kind) {
    case EIR_KA_FLOAT: return a[i].f;
    case EIR_KA_INT: case EIR_KA_BOOL: return (double)a[i].i;
    case EIR_KA_SCALAR: return a[i].s.kind == EIR_SC_INT || a[i].s.kind == EIR_SC_BOOL ? (double)a[i].s.i : a[i].s.f;
    default: return def;
    }
}

static int need_tensors(eir_kctx *ctx, const char *api, const eir_karg *a, uint32_t na, uint32_t ntensors, uint32_t no, uint32_t nout) {
    if (na < ntensors || no < nout) return eir_kerr(ctx, "%s: expected %u tensor arguments and %u outputs", api, ntensors, nout);
    for (uint32_t i = 0; i < ntensors; i++)
        if (a[i].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: argument %u must be a tensor", api, i);
    return 0;
}

/* torch's checkFloatingOrComplex (low precision refused): the compute dtype */
static int need_dtype(eir_kctx *ctx, const char *api, eir_dtype d, eir_dtype *ct) {
    if (d == EIR_F32 || d == EIR_F64 || d == EIR_C64 || d == EIR_C128) { *ct = d; return 0; }
    if (d == EIR_F16 || d == EIR_BF16 || d == EIR_C32) return eir_kerr(ctx, "%s: Low precision dtypes not supported. Got %s", api, dname(d));
    return eir_kerr(ctx, "%s: Expected a floating point or complex tensor as input. Got %s", api, dname(d));
}

/* at least 2 dims (square when asked), sizes LAPACK's 32-bit integers can hold */
static int need_matrix(eir_kctx *ctx, const char *api, const eir_tview *t, bool square) {
    if (t->rank < 2) return eir_kerr(ctx, "%s: The input tensor A must have at least 2 dimensions.", api);
    mat m = mat_of(t);
    if (square && m.rows != m.cols)
        return eir_kerr(ctx, "%s: A must be batches of square matrices, but they are %lld by %lld matrices", api, (long long)m.rows,
                        (long long)m.cols);
    if (m.rows > INT_MAX / 2 || m.cols > INT_MAX / 2)
        return eir_kerr(ctx, "%s: matrices of %lld x %lld exceed LAPACK's 32-bit sizes", api, (long long)m.rows, (long long)m.cols);
    return 0;
}

/* An output must have the batch shape bs followed by core dims (sizes c[0..nc)). */
static int need_out(eir_kctx *ctx, const char *api, const eir_tview *o, const bat *bs, int32_t nc, int64_t c0, int64_t c1) {
    int64_t c[2] = {c0, c1};
    bool ok = o->rank == bs->n + nc;
    for (int32_t i = 0; ok && i < bs->n; i++) ok = o->sizes[i] == bs->sizes[i];
    for (int32_t i = 0; ok && i < nc; i++) ok = o->sizes[bs->n + i] == c[i];
    if (ok) return 0;
    char want[256];
    int w = 0;
    want[0] = 0;
    for (int32_t i = 0; i < bs->n + nc && w < 200; i++)
        w += snprintf(want + w, sizeof want - (size_t)w, "%s%lld", i ? ", " : "", (long long)(i < bs->n ? bs->sizes[i] : c[i - bs->n]));
    return eir_kerr(ctx, "%s: an output has a recorded shape that differs from [%s]", api, want);
}

/* torch's _linalg_check_errors: the first nonzero info, worded by the api name */
static int check_infos(eir_kctx *ctx, const char *api, const lint *infos, int64_t count, bool is_matrix) {
    int64_t k = 0;
    while (k < count && infos[k] == 0) k++;
    if (k == count) return 0;
    lint info = infos[k];
    char bstr[64] = "";
    if (!is_matrix) snprintf(bstr, sizeof bstr, ": (Batch element %lld)", (long long)k);
    if (info == LP_NOMEM) return eir_kerr(ctx, "%s: out of memory", api);
    if (info < 0) {
        if (strstr(api, "svd") && info == -4)
            return eir_kerr(ctx, "%s%s: The algorithm failed to converge because the input matrix contained non-finite values.", api, bstr);
        return eir_kerr(ctx, "%s%s: Argument %d has illegal value. Most certainly there is a bug in the implementation calling the backend library.",
                        api, bstr, -info);
    }
    if (strstr(api, "inv"))
        return eir_kerr(ctx, "%s%s: The diagonal element %d is zero, the inversion could not be completed because the input matrix is singular.",
                        api, bstr, info);
    if (strstr(api, "solve")) return eir_kerr(ctx, "%s%s: The solver failed because the input matrix is singular.", api, bstr);
    if (strstr(api, "cholesky"))
        return eir_kerr(ctx, "%s%s: The factorization could not be completed because the input is not positive-definite (the leading minor of order %d is not positive-definite).",
                        api, bstr, info);
    if (strstr(api, "svd"))
        return eir_kerr(ctx, "%s%s: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values (error code: %d).",
                        api, bstr, info);
    if (strstr(api, "eig") || strstr(api, "syevd"))
        return eir_kerr(ctx, "%s%s: The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues (error code: %d).",
                        api, bstr, info);
    if (strstr(api, "lstsq"))
        return eir_kerr(ctx, "%s%s: The least squares solution could not be computed because the input matrix does not have full rank (error code: %d).",
                        api, bstr, info);
    if (strstr(api, "lu_factor"))
        return eir_kerr(ctx, "%s%s: U[%d,%d] is zero and using it on lu_solve would result in a division by zero. If you still want to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)",
                        api, bstr, info, info);
    return eir_kerr(ctx, "%s: Unknown error code: %d.", api, info);
}

/* ======================================================================
 * LU: det, slogdet, logdet, inv, solve, lu_factor, lu, lu_unpack, lu_solve
 * ====================================================================== */

/* Determinants from getrf. torch factors A^T when A is contiguous and real
 * (same determinant, no copy); eir does too, so LU and pivots match. Any
 * output may be NULL. */
typedef struct det_outs {
    eir_tview *det, *sign, *logabs, *logdet, *LU, *piv;
} det_outs;

static int lu_det(eir_kctx *ctx, const char *api, const eir_tview *A, det_outs *o) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if ((o->det && need_out(ctx, api, o->det, &bs, 0, 0, 0)) || (o->sign && need_out(ctx, api, o->sign, &bs, 0, 0, 0)) ||
        (o->logabs && need_out(ctx, api, o->logabs, &bs, 0, 0, 0)) || (o->logdet && need_out(ctx, api, o->logdet, &bs, 0, 0, 0)) ||
        (o->LU && need_out(ctx, api, o->LU, &bs, 2, n, n)) || (o->piv && need_out(ctx, api, o->piv, &bs, 1, n, 0)))
        return -1;
    bool tr = eir_tview_is_contiguous(A) && !is_cpx(ct);
    mat m = mat_of(A);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct));
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, tr ? m.cs : m.rs, tr ? m.rs : m.cs, false);
        if (lp_getrf(ct, n, n, buf, ld, ip) == LP_NOMEM) return oom(ctx, &pl, api);
        int swaps = 0;
        for (lint i = 0; i < n; i++) swaps += ip[i] != i + 1;
        zc det = swaps & 1 ? -1 : 1, sg = det;
        double la = 0;
        for (lint i = 0; i < n; i++) {
            zc u = cget(buf, ct, i + (int64_t)i * ld);
            double au = cabs(u);
            det *= u;
            la += log(au);
            sg *= au == 0 ? 0 : u / au;
        }
        if (!is_cpx(ct)) sg = creal(sg); /* u / |u| is exactly +-1 */
        if (o->det) tput(o->det, bat_off(o->det, nb, &bs, b), det);
        if (o->sign) tput(o->sign, bat_off(o->sign, nb, &bs, b), sg);
        if (o->logabs) tput(o->logabs, bat_off(o->logabs, nb, &bs, b), la);
        if (o->logdet) {
            /* torch: real: NaN where sign is -1; complex: log(sign) + logabsdet */
            zc v = is_cpx(ct) ? (sg == 0 ? -INFINITY : CMPLX(la, carg(sg))) : creal(sg) < 0 ? NAN : la;
            tput(o->logdet, bat_off(o->logdet, nb, &bs, b), v);
        }
        if (o->LU) {
            mat lm = mat_of(o->LU);
            mat_put(o->LU, bat_off(o->LU, nb, &bs, b), n, n, lm.rs, lm.cs, buf, ct, ld, false);
        }
        if (o->piv) ivec_put(o->piv, bat_off(o->piv, nb, &bs, b), n, o->piv->strides[nb], ip);
    }
    pfree(&pl);
    return 0;
}

/* _linalg_det(A) -> (result, LU, pivots) */
static int k__linalg_det(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.det", a, na, 1, no, 3)) return -1;
    det_outs o = {&out[0], NULL, NULL, NULL, &out[1], &out[2]};
    return lu_det(ctx, "linalg.det", a[0].t, &o);
}
/* linalg_det(A), det(self) */
static int k_linalg_det(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.det", a, na, 1, no, 1)) return -1;
    det_outs o = {&out[0], NULL, NULL, NULL, NULL, NULL};
    return lu_det(ctx, "linalg.det", a[0].t, &o);
}
/* _linalg_slogdet(A) -> (sign, logabsdet, LU, pivots) */
static int k__linalg_slogdet(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.slogdet", a, na, 1, no, 4)) return -1;
    det_outs o = {NULL, &out[0], &out[1], NULL, &out[2], &out[3]};
    return lu_det(ctx, "linalg.slogdet", a[0].t, &o);
}
/* linalg_slogdet(A), slogdet(self) -> (sign, logabsdet) */
static int k_linalg_slogdet(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.slogdet", a, na, 1, no, 2)) return -1;
    det_outs o = {NULL, &out[0], &out[1], NULL, NULL, NULL};
    return lu_det(ctx, "linalg.slogdet", a[0].t, &o);
}
/* logdet(self) */
static int k_logdet(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "logdet", a, na, 1, no, 1)) return -1;
    det_outs o = {NULL, NULL, NULL, &out[0], NULL, NULL};
    return lu_det(ctx, "logdet", a[0].t, &o);
}

/* Inverse by getrf + getrs on the identity (torch's linalg_inv_ex is
 * solve_ex(A, I)). check: NULL for the _ex form. */
static int inv_impl(eir_kctx *ctx, const char *api, const char *check, const eir_tview *A, eir_tview *X, eir_tview *info) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, X, &bs, 2, n, n) || (info && need_out(ctx, api, info, &bs, 0, 0, 0))) return -1;
    mat m = mat_of(A), xm = mat_of(X);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *rhs = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct));
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint)), *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, m.rs, m.cs, false);
        infos[b] = lp_getrf(ct, n, n, buf, ld, ip);
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        cm_eye(rhs, ct, n, n, ld);
        lp_getrs(ct, 'N', n, n, buf, ld, ip, rhs, ld);
        mat_put(X, bat_off(X, nb, &bs, b), n, n, xm.rs, xm.cs, rhs, ct, ld, false);
        if (info) iput(info, bat_off(info, nb, &bs, b), infos[b]);
    }
    int rc = check ? check_infos(ctx, check, infos, bs.count, nb == 0) : 0;
    pfree(&pl);
    return rc;
}

/* linalg_inv(A), inverse(self) */
static int k_linalg_inv(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.inv", a, na, 1, no, 1)) return -1;
    return inv_impl(ctx, "linalg.inv", "linalg.inv", a[0].t, &out[0], NULL);
}
/* linalg_inv_ex(A, *, check_errors=False) -> (inverse, info) */
static int k_linalg_inv_ex(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.inv_ex", a, na, 1, no, 2)) return -1;
    return inv_impl(ctx, "linalg.inv_ex", barg(a, na, 1, false) ? "linalg.inv_ex" : NULL, a[0].t, &out[0], &out[1]);
}

/* torch's linalg_solve_is_vector_rhs */
static bool solve_vector_case(const eir_tview *A, const eir_tview *B) {
    if (B->rank == 1) return true;
    if (B->rank != A->rank - 1) return false;
    for (int32_t i = 0; i < B->rank; i++)
        if (B->sizes[i] != A->sizes[i]) return false;
    return true;
}

/* A X = B (left) or X A = B; LU, pivots and info have A's batch shape, the
 * result the broadcast one. Any of LU / piv / info may be NULL. */
static int solve_impl(eir_kctx *ctx, const char *api, const char *check, const eir_tview *A, const eir_tview *B, bool left, eir_tview *X,
                      eir_tview *LU, eir_tview *piv, eir_tview *info) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    if (B->dtype != A->dtype)
        return eir_kerr(ctx, "%s: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead", api,
                        dname(A->dtype), dname(B->dtype));
    bool vec = solve_vector_case(A, B);
    if (vec && !left)
        return eir_kerr(ctx, "%s: Vector broadcasting of the left hand side is not supported for left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)", api);
    if (!vec && B->rank < 2) return eir_kerr(ctx, "%s: The input tensor B must have at least 2 dimensions.", api);
    int32_t nbA = A->rank - 2, nbB = vec ? B->rank - 1 : B->rank - 2;
    bat ba, bb, bs;
    bat_from(&ba, A, nbA);
    bat_from(&bb, B, nbB);
    if (!bat_bcast(&bs, &ba, &bb)) return eir_kerr(ctx, "%s: Incompatible shapes of A and B for the equation AX = B", api);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    int64_t br = vec ? B->sizes[B->rank - 1] : B->sizes[B->rank - 2], bc = vec ? 1 : B->sizes[B->rank - 1];
    if ((left ? br : bc) != n || (vec ? br : bc) > INT_MAX / 2 || br > INT_MAX / 2)
        return eir_kerr(ctx, "%s: Incompatible shapes of A and B for the equation %s", api, left ? "AX = B" : "XA = B");
    lint k = (lint)(left ? bc : br); /* right-hand sides */
    if ((vec ? need_out(ctx, api, X, &bs, 1, n, 0) : need_out(ctx, api, X, &bs, 2, br, bc)) ||
        (LU && need_out(ctx, api, LU, &ba, 2, n, n)) || (piv && need_out(ctx, api, piv, &ba, 1, n, 0)) ||
        (info && need_out(ctx, api, info, &ba, 0, 0, 0)))
        return -1;
    mat m = mat_of(A);
    pool pl = {0};
    size_t nn = (size_t)ld * (size_t)ld;
    char *lus = palloc(&pl, nn * esz(ct) * (size_t)(ba.count > 0 ? ba.count : 1));
    lint *ips = palloc(&pl, (size_t)ld * sizeof(lint) * (size_t)(ba.count > 0 ? ba.count : 1));
    lint *infos = palloc(&pl, (size_t)(ba.count > 0 ? ba.count : 1) * sizeof(lint));
    void *rhs = palloc(&pl, (size_t)ld * (size_t)(k > 0 ? k : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < ba.count; b++) {
        void *buf = lus + (size_t)b * nn * esz(ct);
        mat_get(buf, ct, ld, A, bat_off(A, nbA, &ba, b), n, n, m.rs, m.cs, false);
        infos[b] = lp_getrf(ct, n, n, buf, ld, ips + (size_t)b * (size_t)ld);
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        if (LU) { mat lm = mat_of(LU); mat_put(LU, bat_off(LU, nbA, &ba, b), n, n, lm.rs, lm.cs, buf, ct, ld, false); }
        if (piv) ivec_put(piv, bat_off(piv, nbA, &ba, b), n, piv->strides[nbA], ips + (size_t)b * (size_t)ld);
        if (info) iput(info, bat_off(info, nbA, &ba, b), infos[b]);
    }
    int64_t brs = vec ? B->strides[B->rank - 1] : B->strides[B->rank - 2], bcs = vec ? 0 : B->strides[B->rank - 1];
    int64_t xrs = vec ? X->strides[X->rank - 1] : X->strides[X->rank - 2], xcs = vec ? 0 : X->strides[X->rank - 1];
    for (int64_t b = 0; b < bs.count; b++) {
        int64_t ai = bat_map(&ba, &bs, b);
        const void *buf = lus + (size_t)ai * nn * esz(ct);
        const lint *ip = ips + (size_t)ai * (size_t)ld;
        int64_t boff = bat_off(B, nbB, &bs, b), xoff = bat_off(X, bs.n, &bs, b);
        if (left) {
            mat_get(rhs, ct, ld, B, boff, n, k, brs, bcs, false);
            lp_getrs(ct, 'N', n, k, buf, ld, ip, rhs, ld);
            mat_put(X, xoff, n, k, xrs, xcs, rhs, ct, ld, false);
        } else { /* A^H X^H = B^H */
            mat_get(rhs, ct, ld, B, boff, n, k, bcs, brs, true);
            lp_getrs(ct, 'C', n, k, buf, ld, ip, rhs, ld);
            mat_put(X, xoff, n, k, xcs, xrs, rhs, ct, ld, true);
        }
    }
    int rc = check ? check_infos(ctx, check, infos, ba.count, nbA == 0) : 0;
    pfree(&pl);
    return rc;
}

/* linalg_solve(A, B, *, left=True) */
static int k_linalg_solve(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.solve", a, na, 2, no, 1)) return -1;
    return solve_impl(ctx, "torch.linalg.solve", "torch.linalg.solve", a[0].t, a[1].t, barg(a, na, 2, true), &out[0], NULL, NULL, NULL);
}
/* linalg_solve_ex(A, B, *, left=True, check_errors=False) -> (result, info) */
static int k_linalg_solve_ex(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.solve_ex", a, na, 2, no, 2)) return -1;
    return solve_impl(ctx, "torch.linalg.solve_ex", barg(a, na, 3, false) ? "torch.linalg.solve_ex" : NULL, a[0].t, a[1].t,
                      barg(a, na, 2, true), &out[0], NULL, NULL, &out[1]);
}
/* _linalg_solve_ex(A, B, *, left=True, check_errors=False) -> (result, LU, pivots, info) */
static int k__linalg_solve_ex(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.solve_ex", a, na, 2, no, 4)) return -1;
    return solve_impl(ctx, "torch.linalg.solve_ex", barg(a, na, 3, false) ? "torch.linalg.solve_ex" : NULL, a[0].t, a[1].t,
                      barg(a, na, 2, true), &out[0], &out[1], &out[2], &out[3]);
}

/* P (m x m) from LAPACK's pivots: P[perm[i], i] = 1, where perm applies the row swaps in order */
static void put_perm(const eir_tview *P, int64_t off, lint m, lint k, const lint *ip, int64_t *perm) {
    mat pm = mat_of(P);
    for (lint i = 0; i < m; i++) perm[i] = i;
    for (lint i = 0; i < k; i++) {
        int64_t j = ip[i] - 1, t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (lint i = 0; i < m; i++)
        for (lint j = 0; j < m; j++) tput(P, off + i * pm.rs + j * pm.cs, 0);
    for (lint i = 0; i < m; i++) tput(P, off + perm[i] * pm.rs + i * pm.cs, 1);
}

/* L (m x k, unit lower) and U (k x n, upper) from an LU buffer (column-major, ld) */
static void put_LU(const eir_tview *L, int64_t loff, const eir_tview *U, int64_t uoff, const void *buf, eir_dtype ct, lint m, lint n,
                   lint ld) {
    lint k = m < n ? m : n;
    if (L) {
        mat lm = mat_of(L);
        for (lint j = 0; j < k; j++)
            for (lint i = 0; i < m; i++) tput(L, loff + i * lm.rs + j * lm.cs, i > j ? cget(buf, ct, i + (int64_t)j * ld) : i == j ? 1 : 0);
    }
    if (U) {
        mat um = mat_of(U);
        for (lint j = 0; j < n; j++)
            for (lint i = 0; i < k; i++) tput(U, uoff + i * um.rs + j * um.cs, i <= j ? cget(buf, ct, i + (int64_t)j * ld) : 0);
    }
}

typedef struct lu_outs {
    eir_tview *LU, *piv, *info, *P, *L, *U;
} lu_outs;

/* getrf on m x n matrices; outputs may be NULL */
static int lu_factor_impl(eir_kctx *ctx, const char *api, const char *check, const eir_tview *A, bool pivot, lu_outs *o) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, false)) return -1;
    if (!pivot) return eir_kerr(ctx, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    mat m = mat_of(A);
    lint M = (lint)m.rows, N = (lint)m.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    if ((o->LU && need_out(ctx, api, o->LU, &bs, 2, M, N)) || (o->piv && need_out(ctx, api, o->piv, &bs, 1, K, 0)) ||
        (o->info && need_out(ctx, api, o->info, &bs, 0, 0, 0)) || (o->P && need_out(ctx, api, o->P, &bs, 2, M, M)) ||
        (o->L && need_out(ctx, api, o->L, &bs, 2, M, K)) || (o->U && need_out(ctx, api, o->U, &bs, 2, K, N)))
        return -1;
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct));
    lint *ip = palloc(&pl, (size_t)(K > 0 ? K : 1) * sizeof(lint)), *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    int64_t *perm = palloc(&pl, (size_t)(M > 0 ? M : 1) * sizeof(int64_t));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), M, N, m.rs, m.cs, false);
        infos[b] = lp_getrf(ct, M, N, buf, ld, ip);
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        if (o->LU) { mat lm = mat_of(o->LU); mat_put(o->LU, bat_off(o->LU, nb, &bs, b), M, N, lm.rs, lm.cs, buf, ct, ld, false); }
        if (o->piv) ivec_put(o->piv, bat_off(o->piv, nb, &bs, b), K, o->piv->strides[nb], ip);
        if (o->info) iput(o->info, bat_off(o->info, nb, &bs, b), infos[b]);
        if (o->P) put_perm(o->P, bat_off(o->P, nb, &bs, b), M, K, ip, perm);
        put_LU(o->L, o->L ? bat_off(o->L, nb, &bs, b) : 0, o->U, o->U ? bat_off(o->U, nb, &bs, b) : 0, buf, ct, M, N, ld);
    }
    int rc = check ? check_infos(ctx, check, infos, bs.count, nb == 0) : 0;
    pfree(&pl);
    return rc;
}

/* linalg_lu_factor_ex(A, *, pivot=True, check_errors=False) -> (LU, pivots, info) */
static int k_linalg_lu_factor_ex(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.lu_factor_ex", a, na, 1, no, 3)) return -1;
    lu_outs o = {&out[0], &out[1], &out[2], NULL, NULL, NULL};
    return lu_factor_impl(ctx, "torch.linalg.lu_factor_ex", barg(a, na, 2, false) ? "torch.linalg.lu_factor_ex" : NULL, a[0].t,
                          barg(a, na, 1, true), &o);
}
/* linalg_lu_factor(A, *, pivot=True) -> (LU, pivots) */
static int k_linalg_lu_factor(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.lu_factor", a, na, 1, no, 2)) return -1;
    lu_outs o = {&out[0], &out[1], NULL, NULL, NULL, NULL};
    return lu_factor_impl(ctx, "torch.linalg.lu_factor", "torch.linalg.lu_factor", a[0].t, barg(a, na, 1, true), &o);
}
/* _lu_with_info(self, pivot=True, check_errors=True) -> (LU, pivots, info): torch ignores check_errors */
static int k__lu_with_info(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.lu", a, na, 1, no, 3)) return -1;
    lu_outs o = {&out[0], &out[1], &out[2], NULL, NULL, NULL};
    return lu_factor_impl(ctx, "torch.lu", NULL, a[0].t, barg(a, na, 1, true), &o);
}
/* linalg_lu(A, *, pivot=True) -> (P, L, U) */
static int k_linalg_lu(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.lu", a, na, 1, no, 3)) return -1;
    lu_outs o = {NULL, NULL, NULL, &out[0], &out[1], &out[2]};
    return lu_factor_impl(ctx, "linalg.lu", NULL, a[0].t, barg(a, na, 1, true), &o);
}

/* pivots of an n-row factorization must lie in [1, n] (LAPACK indexes rows with them) */
static int check_pivots(eir_kctx *ctx, const lint *ip, lint k, lint n, const char *too_big, const char *too_small) {
    for (lint i = 0; i < k; i++) {
        if (ip[i] > n) return eir_kerr(ctx, "%s", too_big);
        if (ip[i] < 1) return eir_kerr(ctx, "%s", too_small);
    }
    return 0;
}

/* lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True) -> (P, L, U) */
static int k_lu_unpack(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "torch.lu_unpack";
    if (need_tensors(ctx, api, a, na, 2, no, 3)) return -1;
    const eir_tview *LU = a[0].t, *pv = a[1].t;
    bool ud = barg(a, na, 2, true), up = barg(a, na, 3, true);
    eir_dtype ct;
    if (need_dtype(ctx, api, LU->dtype, &ct) || need_matrix(ctx, api, LU, false)) return -1;
    if (!eir_is_integral(pv->dtype, false)) return eir_kerr(ctx, "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.");
    int32_t nb = LU->rank - 2;
    bat bs;
    bat_from(&bs, LU, nb);
    mat m = mat_of(LU);
    lint M = (lint)m.rows, N = (lint)m.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    if (pv->rank < 1 || pv->sizes[pv->rank - 1] != K || !bat_fits(pv, pv->rank - 1, &bs))
        return eir_kerr(ctx, "torch.lu_unpack: Expected LU_pivots.size(-1) == min(LU.size(-2), LU.size(-1)) and matching batch dims");
    bool hasP = up && eir_tview_numel(&out[0]) > 0, hasLU = ud && (eir_tview_numel(&out[1]) > 0 || eir_tview_numel(&out[2]) > 0);
    if ((hasP && need_out(ctx, api, &out[0], &bs, 2, M, M)) || (hasLU && (need_out(ctx, api, &out[1], &bs, 2, M, K) ||
                                                                        need_out(ctx, api, &out[2], &bs, 2, K, N))))
        return -1;
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct));
    lint *ip = palloc(&pl, (size_t)(K > 0 ? K : 1) * sizeof(lint));
    int64_t *perm = palloc(&pl, (size_t)(M > 0 ? M : 1) * sizeof(int64_t));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        if (hasP) {
            ivec_get(ip, pv, bat_off(pv, pv->rank - 1, &bs, b), K, pv->strides[pv->rank - 1]);
            const char *msg = "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass the result of lu_factor?";
            if (check_pivots(ctx, ip, K, M, msg, msg)) { pfree(&pl); return -1; }
            put_perm(&out[0], bat_off(&out[0], nb, &bs, b), M, K, ip, perm);
        }
        if (hasLU) {
            mat_get(buf, ct, ld, LU, bat_off(LU, nb, &bs, b), M, N, m.rs, m.cs, false);
            put_LU(&out[1], bat_off(&out[1], nb, &bs, b), &out[2], bat_off(&out[2], nb, &bs, b), buf, ct, M, N, ld);
        }
    }
    pfree(&pl);
    return 0;
}

/* linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False) */
static int lu_solve_impl(eir_kctx *ctx, const eir_tview *LU, const eir_tview *pv, const eir_tview *B, bool left, bool adjoint, eir_tview *X) {
    const char *api = "linalg.lu_solve";
    eir_dtype ct;
    if (need_dtype(ctx, api, LU->dtype, &ct) || need_matrix(ctx, api, LU, true)) return -1;
    if (B->rank < 2) return eir_kerr(ctx, "linalg.lu_solve: The input tensor B must have at least 2 dimensions.");
    if (B->dtype != LU->dtype) return eir_kerr(ctx, "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type %s and B of type %s instead", dname(LU->dtype), dname(B->dtype));
    if (!eir_is_integral(pv->dtype, false)) return eir_kerr(ctx, "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
    lint n = (lint)LU->sizes[LU->rank - 1], ld = n > 0 ? n : 1;
    int32_t nbL = LU->rank - 2, nbB = B->rank - 2;
    bat bl, bb, bs;
    bat_from(&bl, LU, nbL);
    bat_from(&bb, B, nbB);
    if (!bat_bcast(&bs, &bl, &bb)) return eir_kerr(ctx, "linalg.lu_solve: Incompatible shapes of LU and B");
    if (pv->rank != LU->rank - 1 || pv->sizes[pv->rank - 1] != n || !bat_fits(pv, nbL, &bl))
        return eir_kerr(ctx, "linalg.lu_solve: Expected LU.shape[:-1] == pivots.shape");
    mat bm = mat_of(B), xm;
    if ((left ? bm.rows : bm.cols) != n)
        return eir_kerr(ctx, "linalg.lu_solve: Incompatible shapes of A and B for the equation %s", left ? "AX = B" : "XA = B");
    if (need_out(ctx, api, X, &bs, 2, bm.rows, bm.cols)) return -1;
    xm = mat_of(X);
    lint k = (lint)(left ? bm.cols : bm.rows);
    pool pl = {0};
    size_t nn = (size_t)ld * (size_t)ld;
    int64_t cl = bl.count > 0 ? bl.count : 1;
    char *lus = palloc(&pl, nn * esz(ct) * (size_t)cl);
    lint *ips = palloc(&pl, (size_t)ld * sizeof(lint) * (size_t)cl);
    void *rhs = palloc(&pl, (size_t)ld * (size_t)(k > 0 ? k : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    mat lm = mat_of(LU);
    for (int64_t b = 0; b < bl.count; b++) {
        lint *ip = ips + (size_t)b * (size_t)ld;
        ivec_get(ip, pv, bat_off(pv, nbL, &bl, b), n, pv->strides[pv->rank - 1]);
        if (check_pivots(ctx, ip, n, n, "Pivots given to lu_solve must all be smaller or equal to LU.size(-2). Did you properly pass the result of lu_factor?",
                         "Pivots given to lu_solve must all be greater or equal to 1. Did you properly pass the result of lu_factor?")) {
            pfree(&pl);
            return -1;
        }
        mat_get(lus + (size_t)b * nn * esz(ct), ct, ld, LU, bat_off(LU, nbL, &bl, b), n, n, lm.rs, lm.cs, false);
    }
    for (int64_t b = 0; b < bs.count; b++) {
        int64_t li = bat_map(&bl, &bs, b);
        const void *buf = lus + (size_t)li * nn * esz(ct);
        const lint *ip = ips + (size_t)li * (size_t)ld;
        int64_t boff = bat_off(B, nbB, &bs, b), xoff = bat_off(X, bs.n, &bs, b);
        if (left) {
            mat_get(rhs, ct, ld, B, boff, n, k, bm.rs, bm.cs, false);
            lp_getrs(ct, adjoint ? 'C' : 'N', n, k, buf, ld, ip, rhs, ld);
            mat_put(X, xoff, n, k, xm.rs, xm.cs, rhs, ct, ld, false);
        } else { /* X op(A) = B  <=>  op(A)^H X^H = B^H */
            mat_get(rhs, ct, ld, B, boff, n, k, bm.cs, bm.rs, true);
            lp_getrs(ct, adjoint ? 'N' : 'C', n, k, buf, ld, ip, rhs, ld);
            mat_put(X, xoff, n, k, xm.cs, xm.rs, rhs, ct, ld, true);
        }
    }
    pfree(&pl);
    return 0;
}
static int k_linalg_lu_solve(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.lu_solve", a, na, 3, no, 1)) return -1;
    return lu_solve_impl(ctx, a[0].t, a[1].t, a[2].t, barg(a, na, 3, true), barg(a, na, 4, false), &out[0]);
}
/* lu_solve(self, LU_data, LU_pivots) */
static int k_lu_solve(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.lu_solve", a, na, 3, no, 1)) return -1;
    return lu_solve_impl(ctx, a[1].t, a[2].t, a[0].t, true, false, &out[0]);
}

/* ======================================================================
 * triangular solves, Cholesky
 * ====================================================================== */

/* op(A) X = B (left) or X op(A) = B with A triangular (trsm); batch dims
 * broadcast. coef: triangular_solve's cloned_coefficient (A broadcast), or NULL. */
static int trsolve_impl(eir_kctx *ctx, const char *api, const eir_tview *A, const eir_tview *B, bool upper, bool left, char tr, bool unit,
                        eir_tview *X, eir_tview *coef) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    if (B->rank < 2) return eir_kerr(ctx, "%s: The input tensor B must have at least 2 dimensions.", api);
    if (B->dtype != A->dtype)
        return eir_kerr(ctx, "%s: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead", api,
                        dname(A->dtype), dname(B->dtype));
    int32_t nbA = A->rank - 2, nbB = B->rank - 2;
    bat ba, bb, bs;
    bat_from(&ba, A, nbA);
    bat_from(&bb, B, nbB);
    if (!bat_bcast(&bs, &ba, &bb)) return eir_kerr(ctx, "%s: Incompatible shapes of A and B for the equation AX = B", api);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    mat bm = mat_of(B);
    if ((left ? bm.rows : bm.cols) != n || bm.rows > INT_MAX / 2 || bm.cols > INT_MAX / 2)
        return eir_kerr(ctx, "%s: Incompatible shapes of A and B for the equation %s", api, left ? "AX = B" : "XA = B");
    if (need_out(ctx, api, X, &bs, 2, bm.rows, bm.cols) || (coef && need_out(ctx, api, coef, &bs, 2, n, n))) return -1;
    lint M = (lint)bm.rows, N = (lint)bm.cols, ldb = M > 0 ? M : 1;
    mat am = mat_of(A), xm = mat_of(X);
    pool pl = {0};
    void *abuf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *bbuf = palloc(&pl, (size_t)ldb * (size_t)(N > 0 ? N : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(abuf, ct, ld, A, bat_off(A, nbA, &bs, b), n, n, am.rs, am.cs, false);
        mat_get(bbuf, ct, ldb, B, bat_off(B, nbB, &bs, b), M, N, bm.rs, bm.cs, false);
        trsm_cm(ct, left, upper, tr, unit, M, N, abuf, ld, bbuf, ldb);
        mat_put(X, bat_off(X, bs.n, &bs, b), M, N, xm.rs, xm.cs, bbuf, ct, ldb, false);
        if (coef) { mat cm = mat_of(coef); mat_put(coef, bat_off(coef, bs.n, &bs, b), n, n, cm.rs, cm.cs, abuf, ct, ld, false); }
    }
    pfree(&pl);
    return 0;
}

/* linalg_solve_triangular(self, B, *, upper, left=True, unitriangular=False) */
static int k_linalg_solve_triangular(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.solve_triangular", a, na, 2, no, 1)) return -1;
    return trsolve_impl(ctx, "linalg.solve_triangular", a[0].t, a[1].t, barg(a, na, 2, false), barg(a, na, 3, true), 'N',
                        barg(a, na, 4, false), &out[0], NULL);
}
/* triangular_solve(self, A, upper=True, transpose=False, unitriangular=False) -> (solution, cloned_coefficient) */
static int k_triangular_solve(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "triangular_solve", a, na, 2, no, 2)) return -1;
    return trsolve_impl(ctx, "triangular_solve", a[1].t, a[0].t, barg(a, na, 2, true), true, barg(a, na, 3, false) ? 'T' : 'N',
                        barg(a, na, 4, false), &out[0], &out[1]);
}

/* zero the strict upper (lower) triangle of a column-major n x n matrix */
static void cm_tri(void *buf, eir_dtype ct, lint n, lint ld, bool keep_upper) {
    for (lint j = 0; j < n; j++)
        for (lint i = 0; i < n; i++)
            if (keep_upper ? i > j : i < j) cset(buf, ct, i + (int64_t)j * ld, 0);
}

/* potrf on the lower (upper) triangle; the other triangle of the result is zero */
static int chol_impl(eir_kctx *ctx, const char *api, const char *check, const eir_tview *A, bool upper, eir_tview *L, eir_tview *info) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, L, &bs, 2, n, n) || (info && need_out(ctx, api, info, &bs, 0, 0, 0))) return -1;
    mat am = mat_of(A), lm = mat_of(L);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct));
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, am.rs, am.cs, false);
        infos[b] = lp_potrf(ct, upper ? 'U' : 'L', n, buf, ld);
        cm_tri(buf, ct, n, ld, upper);
        mat_put(L, bat_off(L, nb, &bs, b), n, n, lm.rs, lm.cs, buf, ct, ld, false);
        if (info) iput(info, bat_off(info, nb, &bs, b), infos[b]);
    }
    int rc = check ? check_infos(ctx, check, infos, bs.count, nb == 0) : 0;
    pfree(&pl);
    return rc;
}

/* linalg_cholesky_ex(self, *, upper=False, check_errors=False) -> (L, info) */
static int k_linalg_cholesky_ex(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.cholesky_ex", a, na, 1, no, 2)) return -1;
    return chol_impl(ctx, "linalg.cholesky_ex", barg(a, na, 2, false) ? "linalg.cholesky_ex" : NULL, a[0].t, barg(a, na, 1, false), &out[0], &out[1]);
}
/* linalg_cholesky(self, *, upper=False) */
static int k_linalg_cholesky(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.cholesky", a, na, 1, no, 1)) return -1;
    return chol_impl(ctx, "linalg.cholesky", "linalg.cholesky", a[0].t, barg(a, na, 1, false), &out[0], NULL);
}
/* cholesky(self, upper=False) */
static int k_cholesky(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "cholesky", a, na, 1, no, 1)) return -1;
    return chol_impl(ctx, "cholesky", "cholesky", a[0].t, barg(a, na, 1, false), &out[0], NULL);
}

/* cholesky_inverse(self, upper=False): potri, both triangles filled */
static int k_cholesky_inverse(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "cholesky_inverse";
    if (need_tensors(ctx, api, a, na, 1, no, 1)) return -1;
    const eir_tview *A = a[0].t;
    bool upper = barg(a, na, 1, false);
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, &out[0], &bs, 2, n, n)) return -1;
    mat am = mat_of(A), om = mat_of(&out[0]);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct));
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, am.rs, am.cs, false);
        infos[b] = lp_potri(ct, upper ? 'U' : 'L', n, buf, ld);
        for (lint j = 0; j < n; j++)
            for (lint i = 0; i < n; i++)
                if (upper ? i > j : i < j) cset(buf, ct, i + (int64_t)j * ld, conj(cget(buf, ct, j + (int64_t)i * ld)));
        mat_put(&out[0], bat_off(&out[0], nb, &bs, b), n, n, om.rs, om.cs, buf, ct, ld, false);
    }
    int rc = check_infos(ctx, api, infos, bs.count, nb == 0);
    pfree(&pl);
    return rc;
}

/* cholesky_solve(self, input2, upper=False): potrs with the factor input2, batch dims broadcast */
static int k_cholesky_solve(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "cholesky_solve";
    if (need_tensors(ctx, api, a, na, 2, no, 1)) return -1;
    const eir_tview *B = a[0].t, *A = a[1].t;
    bool upper = barg(a, na, 2, false);
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    if (B->rank < 2 || B->dtype != A->dtype) return eir_kerr(ctx, "%s: expected b and A to be matrices of the same dtype", api);
    int32_t nbA = A->rank - 2, nbB = B->rank - 2;
    bat ba, bb, bs;
    bat_from(&ba, A, nbA);
    bat_from(&bb, B, nbB);
    if (!bat_bcast(&bs, &ba, &bb)) return eir_kerr(ctx, "%s: Incompatible shapes of A and B", api);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    mat bm = mat_of(B), am = mat_of(A);
    if (bm.rows != n || bm.cols > INT_MAX / 2)
        return eir_kerr(ctx, "%s: Incompatible matrix sizes for cholesky_solve: each A matrix is %lld by %lld but each b matrix is %lld by %lld",
                        api, (long long)n, (long long)n, (long long)bm.rows, (long long)bm.cols);
    if (need_out(ctx, api, &out[0], &bs, 2, bm.rows, bm.cols)) return -1;
    mat xm = mat_of(&out[0]);
    lint k = (lint)bm.cols;
    pool pl = {0};
    void *abuf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *bbuf = palloc(&pl, (size_t)ld * (size_t)(k > 0 ? k : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(abuf, ct, ld, A, bat_off(A, nbA, &bs, b), n, n, am.rs, am.cs, false);
        mat_get(bbuf, ct, ld, B, bat_off(B, nbB, &bs, b), n, k, bm.rs, bm.cs, false);
        lp_potrs(ct, upper ? 'U' : 'L', n, k, abuf, ld, bbuf, ld);
        mat_put(&out[0], bat_off(&out[0], bs.n, &bs, b), n, k, xm.rs, xm.cs, bbuf, ct, ld, false);
    }
    pfree(&pl);
    return 0;
}

/* ======================================================================
 * QR: geqrf, linalg_qr / qr, householder_product / orgqr, ormqr
 * ====================================================================== */

/* geqrf(self) -> (a, tau) */
static int k_geqrf(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "geqrf";
    if (need_tensors(ctx, api, a, na, 1, no, 2)) return -1;
    const eir_tview *A = a[0].t;
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, false)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    mat m = mat_of(A);
    lint M = (lint)m.rows, N = (lint)m.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    if (need_out(ctx, api, &out[0], &bs, 2, M, N) || need_out(ctx, api, &out[1], &bs, 1, K, 0)) return -1;
    mat om = mat_of(&out[0]);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct)), *tau = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), M, N, m.rs, m.cs, false);
        if (lp_geqrf(ct, M, N, buf, ld, tau) == LP_NOMEM) return oom(ctx, &pl, api);
        mat_put(&out[0], bat_off(&out[0], nb, &bs, b), M, N, om.rs, om.cs, buf, ct, ld, false);
        vec_put(&out[1], bat_off(&out[1], nb, &bs, b), K, out[1].strides[nb], tau, ct);
    }
    pfree(&pl);
    return 0;
}

/* Q (m x qc; qc = 0 for mode 'r') and R (rr x n) by geqrf + orgqr, as torch's linalg_qr */
static int qr_impl(eir_kctx *ctx, const char *api, const eir_tview *A, int mode, eir_tview *Q, eir_tview *R) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, false)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    mat m = mat_of(A);
    lint M = (lint)m.rows, N = (lint)m.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    lint qc = mode == 0 ? K : mode == 1 ? M : 0, rr = mode == 1 ? M : K, wc = N > qc ? N : qc;
    if ((qc && need_out(ctx, api, Q, &bs, 2, M, qc)) || need_out(ctx, api, R, &bs, 2, rr, N)) return -1;
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(wc > 0 ? wc : 1) * esz(ct)), *tau = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    mat rm = mat_of(R);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), M, N, m.rs, m.cs, false);
        if (lp_geqrf(ct, M, N, buf, ld, tau) == LP_NOMEM) return oom(ctx, &pl, api);
        int64_t roff = bat_off(R, nb, &bs, b);
        for (lint j = 0; j < N; j++)
            for (lint i = 0; i < rr; i++) tput(R, roff + i * rm.rs + j * rm.cs, i <= j && i < M ? cget(buf, ct, i + (int64_t)j * ld) : 0);
        if (qc) {
            if (lp_orgqr(ct, M, qc, K, buf, ld, tau) == LP_NOMEM) return oom(ctx, &pl, api);
            mat qm = mat_of(Q);
            mat_put(Q, bat_off(Q, nb, &bs, b), M, qc, qm.rs, qm.cs, buf, ct, ld, false);
        }
    }
    pfree(&pl);
    return 0;
}

/* linalg_qr(A, str mode="reduced") -> (Q, R) */
static int k_linalg_qr(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.qr", a, na, 1, no, 2)) return -1;
    const char *mode = sarg(a, na, 1, "reduced");
    int md = !strcmp(mode, "reduced") ? 0 : !strcmp(mode, "complete") ? 1 : !strcmp(mode, "r") ? 2 : -1;
    if (md < 0) return eir_kerr(ctx, "qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', or 'complete'", mode);
    return qr_impl(ctx, "linalg.qr", a[0].t, md, &out[0], &out[1]);
}
/* qr(self, some=True) -> (Q, R) */
static int k_qr(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "qr", a, na, 1, no, 2)) return -1;
    return qr_impl(ctx, "linalg.qr", a[0].t, barg(a, na, 1, true) ? 0 : 1, &out[0], &out[1]);
}

/* linalg_householder_product(input, tau), orgqr(self, input2) */
static int k_householder_product(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "torch.linalg.householder_product";
    if (need_tensors(ctx, api, a, na, 2, no, 1)) return -1;
    const eir_tview *A = a[0].t, *tau = a[1].t;
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, false)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    mat m = mat_of(A);
    lint M = (lint)m.rows, N = (lint)m.cols, ld = M > 0 ? M : 1;
    if (M < N) return eir_kerr(ctx, "%s: input.shape[-2] must be greater than or equal to input.shape[-1]", api);
    if (tau->dtype != A->dtype || tau->rank != A->rank - 1 || tau->sizes[tau->rank - 1] > N || !bat_fits(tau, nb, &bs))
        return eir_kerr(ctx, "%s: input.shape[-1] must be greater than or equal to tau.shape[-1], with matching batch dims and dtype", api);
    lint K = (lint)tau->sizes[tau->rank - 1];
    if (need_out(ctx, api, &out[0], &bs, 2, M, N)) return -1;
    mat om = mat_of(&out[0]);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct)), *tb = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), M, N, m.rs, m.cs, false);
        mat_get(tb, ct, 1, tau, bat_off(tau, nb, &bs, b), 1, K, 0, tau->strides[tau->rank - 1], false);
        if (lp_orgqr(ct, M, N, K, buf, ld, tb) == LP_NOMEM) return oom(ctx, &pl, api);
        mat_put(&out[0], bat_off(&out[0], nb, &bs, b), M, N, om.rs, om.cs, buf, ct, ld, false);
    }
    pfree(&pl);
    return 0;
}

/* ormqr(self, input2, input3, left=True, transpose=False): op(Q) C or C op(Q), Q from geqrf's (self, tau) */
static int k_ormqr(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "torch.ormqr";
    if (need_tensors(ctx, api, a, na, 3, no, 1)) return -1;
    const eir_tview *A = a[0].t, *tau = a[1].t, *C = a[2].t;
    bool left = barg(a, na, 3, true), trans = barg(a, na, 4, false);
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, false) || need_matrix(ctx, api, C, false)) return -1;
    if (tau->dtype != ct || C->dtype != ct) return eir_kerr(ctx, "%s: Expected input, input2 and input3 to have the same dtype", api);
    int32_t nb = C->rank - 2;
    bat bs;
    bat_from(&bs, C, nb);
    mat am = mat_of(A), cm = mat_of(C);
    lint M = (lint)cm.rows, N = (lint)cm.cols, nq = left ? M : N;
    if (tau->rank < 1 || !bat_fits(A, A->rank - 2, &bs) || !bat_fits(tau, tau->rank - 1, &bs))
        return eir_kerr(ctx, "%s: Expected batch dimensions of input, input2 and input3 to be equal", api);
    lint K = (lint)tau->sizes[tau->rank - 1];
    if (am.rows != nq || K > nq || am.cols < K)
        return eir_kerr(ctx, "%s: input.shape[-2] must equal input3.shape[%d] and input2.shape[-1] must be at most that and input.shape[-1]", api,
                        left ? -2 : -1);
    if (need_out(ctx, api, &out[0], &bs, 2, M, N)) return -1;
    mat om = mat_of(&out[0]);
    lint lda = nq > 0 ? nq : 1, ldc = M > 0 ? M : 1;
    pool pl = {0};
    void *abuf = palloc(&pl, (size_t)lda * (size_t)(K > 0 ? K : 1) * esz(ct)), *tb = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(ct));
    void *cbuf = palloc(&pl, (size_t)ldc * (size_t)(N > 0 ? N : 1) * esz(ct));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(abuf, ct, lda, A, bat_off(A, A->rank - 2, &bs, b), nq, K, am.rs, am.cs, false);
        mat_get(tb, ct, 1, tau, bat_off(tau, tau->rank - 1, &bs, b), 1, K, 0, tau->strides[tau->rank - 1], false);
        mat_get(cbuf, ct, ldc, C, bat_off(C, nb, &bs, b), M, N, cm.rs, cm.cs, false);
        if (lp_ormqr(ct, left ? 'L' : 'R', trans ? 'T' : 'N', M, N, K, abuf, lda, tb, cbuf, ldc) == LP_NOMEM) return oom(ctx, &pl, api);
        mat_put(&out[0], bat_off(&out[0], nb, &bs, b), M, N, om.rs, om.cs, cbuf, ct, ldc, false);
    }
    pfree(&pl);
    return 0;
}

/* ======================================================================
 * eigenvalues: eigh / eigvalsh (syevd, heevd), eig / eigvals (geev)
 * ====================================================================== */

/* w: eigenvalues (real, ascending); V: eigenvectors (columns) or NULL */
static int eigh_impl(eir_kctx *ctx, const char *api, const eir_tview *A, const char *uplo, eir_tview *w, eir_tview *V) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    if (strcmp(uplo, "L") && strcmp(uplo, "U") && strcmp(uplo, "l") && strcmp(uplo, "u"))
        return eir_kerr(ctx, "Expected UPLO argument to be 'L' or 'U', but got %s", uplo);
    char ul = (char)(uplo[0] == 'l' || uplo[0] == 'L' ? 'L' : 'U');
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, w, &bs, 1, n, 0) || (V && need_out(ctx, api, V, &bs, 2, n, n))) return -1;
    mat am = mat_of(A);
    eir_dtype rt = real_of(ct);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *ev = palloc(&pl, (size_t)ld * esz(rt));
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, am.rs, am.cs, false);
        infos[b] = lp_syevd(ct, V ? 'V' : 'N', ul, n, buf, ld, ev);
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        vec_put(w, bat_off(w, nb, &bs, b), n, w->strides[nb], ev, rt);
        if (V) { mat vm = mat_of(V); mat_put(V, bat_off(V, nb, &bs, b), n, n, vm.rs, vm.cs, buf, ct, ld, false); }
    }
    int rc = check_infos(ctx, "linalg.eigh", infos, bs.count, nb == 0);
    pfree(&pl);
    return rc;
}

/* linalg_eigh(self, str UPLO="L") -> (eigenvalues, eigenvectors) */
static int k_linalg_eigh(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.eigh", a, na, 1, no, 2)) return -1;
    return eigh_impl(ctx, "linalg.eigh", a[0].t, sarg(a, na, 1, "L"), &out[0], &out[1]);
}
/* _linalg_eigh(A, str UPLO="L", bool compute_v=True) -> (eigenvalues, eigenvectors) */
static int k__linalg_eigh(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.eigh", a, na, 1, no, 2)) return -1;
    return eigh_impl(ctx, "linalg.eigh", a[0].t, sarg(a, na, 1, "L"), &out[0], barg(a, na, 2, true) ? &out[1] : NULL);
}
/* linalg_eigvalsh(self, str UPLO="L") */
static int k_linalg_eigvalsh(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.eigvalsh", a, na, 1, no, 1)) return -1;
    return eigh_impl(ctx, "linalg.eigvalsh", a[0].t, sarg(a, na, 1, "L"), &out[0], NULL);
}

static bool all_finite(const eir_tview *t) {
    int64_t idx[EIR_MAX_RANK] = {0}, n = eir_tview_numel(t);
    for (int64_t k = 0; k < n; k++) {
        double re, im;
        eir_load_c128(eir_tview_at(t, idx), t->dtype, &re, &im);
        if (!isfinite(re) || !isfinite(im)) return false;
        for (int32_t d = t->rank - 1; d >= 0; d--) {
            if (++idx[d] < t->sizes[d]) break;
            idx[d] = 0;
        }
    }
    return true;
}

/* eigenvalues w and (V non-NULL) right eigenvectors, complex, by geev */
static int eig_impl(eir_kctx *ctx, const eir_tview *A, eir_tview *w, eir_tview *V) {
    const char *api = "torch.linalg.eig";
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    if (!all_finite(A)) return eir_kerr(ctx, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, w, &bs, 1, n, 0) || (V && need_out(ctx, api, V, &bs, 2, n, n))) return -1;
    eir_dtype cct = is_dbl(ct) ? EIR_C128 : EIR_C64;
    mat am = mat_of(A);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *ev = palloc(&pl, (size_t)ld * esz(cct));
    void *vr = palloc(&pl, (size_t)ld * (size_t)ld * esz(cct));
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, am.rs, am.cs, false);
        infos[b] = lp_geev(ct, V ? 'V' : 'N', n, buf, ld, ev, vr);
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        vec_put(w, bat_off(w, nb, &bs, b), n, w->strides[nb], ev, cct);
        if (V) { mat vm = mat_of(V); mat_put(V, bat_off(V, nb, &bs, b), n, n, vm.rs, vm.cs, vr, cct, ld, false); }
    }
    int rc = check_infos(ctx, api, infos, bs.count, nb == 0);
    pfree(&pl);
    return rc;
}

/* linalg_eig(self) -> (eigenvalues, eigenvectors) */
static int k_linalg_eig(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.eig", a, na, 1, no, 2)) return -1;
    return eig_impl(ctx, a[0].t, &out[0], &out[1]);
}
/* linalg_eigvals(self) */
static int k_linalg_eigvals(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.eigvals", a, na, 1, no, 1)) return -1;
    return eig_impl(ctx, a[0].t, &out[0], NULL);
}

/* ======================================================================
 * SVD (gesdd, as torch on the CPU)
 * ====================================================================== */

/* One matrix's SVD into column-major scratch: s (real, k); with uv, u
 * (m x uc, ld m) and vt (vr x n, ld vr), uc = vr = full ? m / n : k.
 * Non-finite input gives info -4 without calling LAPACK, as reference
 * LAPACK 3.10+'s gesdd reports it (torch then raises). */
static lint svd_one(eir_dtype ct, void *buf, lint M, lint N, bool uv, bool full, void *s, void *u, void *vt) {
    lint K = M < N ? M : N, vr = full ? N : K;
    for (int64_t i = 0; i < (int64_t)(M > 0 ? M : 1) * N; i++) {
        zc v = cget(buf, ct, i);
        if (!isfinite(creal(v)) || !isfinite(cimag(v))) return -4;
    }
    return lp_gesdd(ct, uv ? (full ? 'A' : 'S') : 'N', M, N, buf, M > 0 ? M : 1, s, u, M > 0 ? M : 1, vt, vr > 0 ? vr : 1);
}

typedef struct svd_outs {
    eir_tview *U, *S, *V; /* any may be NULL; V is Vh unless v_not_vh */
    bool v_not_vh;        /* torch.svd: V = Vh^H */
    bool zero_uv;         /* torch.svd(compute_uv=False): U and V are zero-filled */
} svd_outs;

static int svd_impl(eir_kctx *ctx, const char *api, const eir_tview *A, bool full, bool uv, svd_outs *o) {
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, false)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    mat am = mat_of(A);
    lint M = (lint)am.rows, N = (lint)am.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    lint uc = full ? M : K, vr = full ? N : K;
    if (o->S && need_out(ctx, api, o->S, &bs, 1, K, 0)) return -1;
    if (uv && o->U && need_out(ctx, api, o->U, &bs, 2, M, uc)) return -1;
    if (uv && o->V && (o->v_not_vh ? need_out(ctx, api, o->V, &bs, 2, N, vr) : need_out(ctx, api, o->V, &bs, 2, vr, N))) return -1;
    eir_dtype rt = real_of(ct);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct)), *s = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(rt));
    void *u = uv ? palloc(&pl, (size_t)ld * (size_t)(uc > 0 ? uc : 1) * esz(ct)) : NULL;
    void *vt = uv ? palloc(&pl, (size_t)(vr > 0 ? vr : 1) * (size_t)(N > 0 ? N : 1) * esz(ct)) : NULL;
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    memset(infos, 0, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (uv && full && K == 0) {
        /* an empty matrix (torch's _linalg_svd_out): U and Vh are identities, a valid SVD */
        for (int q = 0; q < 2; q++) {
            eir_tview *t = q ? o->V : o->U;
            int64_t idx[EIR_MAX_RANK] = {0}, n = t ? eir_tview_numel(t) : 0;
            for (int64_t k = 0; k < n; k++) {
                bool diag = idx[t->rank - 1] == idx[t->rank - 2];
                eir_store_c128(eir_tview_at(t, idx), t->dtype, diag ? 1 : 0, 0);
                for (int32_t d = t->rank - 1; d >= 0; d--) {
                    if (++idx[d] < t->sizes[d]) break;
                    idx[d] = 0;
                }
            }
        }
    }
    for (int64_t b = 0; K > 0 && b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), M, N, am.rs, am.cs, false);
        infos[b] = svd_one(ct, buf, M, N, uv, full, s, u, vt);
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        if (infos[b]) continue;
        if (o->S) vec_put(o->S, bat_off(o->S, nb, &bs, b), K, o->S->strides[nb], s, rt);
        if (uv && o->U) { mat um = mat_of(o->U); mat_put(o->U, bat_off(o->U, nb, &bs, b), M, uc, um.rs, um.cs, u, ct, ld, false); }
        if (uv && o->V) {
            mat vm = mat_of(o->V);
            lint lv = vr > 0 ? vr : 1;
            if (o->v_not_vh) mat_put(o->V, bat_off(o->V, nb, &bs, b), vr, N, vm.cs, vm.rs, vt, ct, lv, true);
            else mat_put(o->V, bat_off(o->V, nb, &bs, b), vr, N, vm.rs, vm.cs, vt, ct, lv, false);
        }
    }
    if (!uv && o->zero_uv) /* torch.svd(compute_uv=False) */
        for (int q = 0; q < 2; q++) {
            eir_tview *t = q ? o->V : o->U;
            if (!t) continue;
            int64_t idx[EIR_MAX_RANK] = {0}, n = eir_tview_numel(t);
            for (int64_t k = 0; k < n; k++) {
                eir_store_c128(eir_tview_at(t, idx), t->dtype, 0, 0);
                for (int32_t d = t->rank - 1; d >= 0; d--) {
                    if (++idx[d] < t->sizes[d]) break;
                    idx[d] = 0;
                }
            }
        }
    int rc = check_infos(ctx, "linalg.svd", infos, bs.count, nb == 0);
    pfree(&pl);
    return rc;
}

static int no_driver(eir_kctx *ctx, const eir_karg *a, uint32_t na, uint32_t i) {
    if (!is_none(a, na, i))
        return eir_kerr(ctx, "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
    return 0;
}

/* linalg_svd(A, full_matrices=True, *, driver=None) -> (U, S, Vh) */
static int k_linalg_svd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.svd", a, na, 1, no, 3) || no_driver(ctx, a, na, 2)) return -1;
    svd_outs o = {&out[0], &out[1], &out[2], false, false};
    return svd_impl(ctx, "linalg.svd", a[0].t, barg(a, na, 1, true), true, &o);
}
/* _linalg_svd(A, full_matrices=False, compute_uv=True, *, driver=None) -> (U, S, Vh) */
static int k__linalg_svd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.svd", a, na, 1, no, 3) || no_driver(ctx, a, na, 3)) return -1;
    svd_outs o = {&out[0], &out[1], &out[2], false, false};
    return svd_impl(ctx, "linalg.svd", a[0].t, barg(a, na, 1, false), barg(a, na, 2, true), &o);
}
/* svd(self, some=True, compute_uv=True) -> (U, S, V) */
static int k_svd(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "svd", a, na, 1, no, 3)) return -1;
    svd_outs o = {&out[0], &out[1], &out[2], true, true};
    return svd_impl(ctx, "linalg.svd", a[0].t, !barg(a, na, 1, true), barg(a, na, 2, true), &o);
}
/* linalg_svdvals(A, *, driver=None) */
static int k_linalg_svdvals(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.svdvals", a, na, 1, no, 1) || no_driver(ctx, a, na, 1)) return -1;
    svd_outs o = {NULL, &out[0], NULL, false, false};
    return svd_impl(ctx, "linalg.svd", a[0].t, false, false, &o);
}

/* ======================================================================
 * pinv, matrix_rank (tolerances as torch's get_atol_rtol)
 * ====================================================================== */

/* atol / rtol: a tensor (broadcast over the batch), a float, or absent */
typedef struct tol {
    const eir_tview *t;
    double v;
    bool has;
} tol;

static tol tol_arg(const eir_karg *a, uint32_t na, uint32_t i) {
    tol t = {NULL, 0, false};
    if (i >= na || a[i].kind == EIR_KA_NONE) return t;
    t.has = true;
    if (a[i].kind == EIR_KA_TENSOR) t.t = a[i].t;
    else t.v = farg(a, na, i, 0);
    return t;
}
static tol tol_val(double v) { tol t = {NULL, v, true}; return t; }

static double tol_at(const tol *t, const bat *bs, int64_t b) {
    if (!t->t) return t->v;
    double re, im;
    const eir_tview *x = t->t;
    eir_load_c128((const char *)x->data + bat_off(x, x->rank, bs, b) * (int64_t)eir_elsize(x->dtype), x->dtype, &re, &im);
    return re;
}
static int tol_check(eir_kctx *ctx, const char *api, const char *name, const tol *t, const bat *bs) {
    if (!t->t) return 0;
    if (eir_is_complex(t->t->dtype)) return eir_kerr(ctx, "%s: %s tensor of complex type is not supported.", api, name);
    if (!bat_fits(t->t, t->t->rank, bs)) return eir_kerr(ctx, "%s: %s does not broadcast with the batch shape of the input", api, name);
    return 0;
}
static double nanmax2(double x, double y) { return isnan(x) || isnan(y) ? NAN : x > y ? x : y; }

/* max(atol, rtol * smax); rtol defaults to eps * max(m, n), or 0 where atol > 0 */
static double threshold(const tol *atol, const tol *rtol, const bat *bs, int64_t b, eir_dtype ct, int64_t m, int64_t n, double smax) {
    double at = atol->has ? tol_at(atol, bs, b) : 0, rt;
    if (rtol->has) rt = tol_at(rtol, bs, b);
    else {
        double def = (real_of(ct) == EIR_F64 ? DBL_EPSILON : FLT_EPSILON) * (double)(m > n ? m : n);
        rt = atol->has && at > 0 ? 0 : def;
    }
    return nanmax2(at, rt * smax);
}

/* pinv via svd (V diag(1/s) U^H) or, hermitian, eigh (U diag(1/w) U^H) */
static int pinv_impl(eir_kctx *ctx, const eir_tview *A, tol atol, tol rtol, bool herm, eir_tview *out) {
    const char *api = "linalg.pinv";
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, herm)) return -1;
    mat am = mat_of(A);
    lint M = (lint)am.rows, N = (lint)am.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    if (out->rank < 2) return eir_kerr(ctx, "%s: the output must have at least 2 dimensions", api);
    bat bs;
    bat_from(&bs, out, out->rank - 2);
    if (!bat_fits(A, A->rank - 2, &bs) || need_out(ctx, api, out, &bs, 2, N, M) || tol_check(ctx, api, "atol", &atol, &bs) ||
        tol_check(ctx, api, "rtol", &rtol, &bs))
        return -1;
    eir_dtype rt = real_of(ct);
    mat om = mat_of(out);
    lint kk = herm ? N : K, ldn = N > 0 ? N : 1;
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct)), *s = palloc(&pl, (size_t)(kk > 0 ? kk : 1) * esz(rt));
    void *u = palloc(&pl, (size_t)ld * (size_t)(kk > 0 ? kk : 1) * esz(ct)), *vt = palloc(&pl, (size_t)(kk > 0 ? kk : 1) * (size_t)(N > 0 ? N : 1) * esz(ct));
    void *w = palloc(&pl, (size_t)ldn * (size_t)(kk > 0 ? kk : 1) * esz(ct)), *res = palloc(&pl, (size_t)ldn * (size_t)(M > 0 ? M : 1) * esz(ct));
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        infos[b] = 0;
        if (kk == 0) {
            cm_zero(res, ct, N, M, ldn);
            mat_put(out, bat_off(out, bs.n, &bs, b), N, M, om.rs, om.cs, res, ct, ldn, false);
            continue;
        }
        mat_get(buf, ct, ld, A, bat_off(A, A->rank - 2, &bs, b), M, N, am.rs, am.cs, false);
        double smax = 0;
        if (herm) {
            infos[b] = lp_syevd(ct, 'V', 'L', N, buf, ld, s);
            for (lint j = 0; j < N; j++) smax = nanmax2(smax, fabs(creal(cget(s, rt, j))));
        } else {
            infos[b] = svd_one(ct, buf, M, N, true, false, s, u, vt);
            smax = creal(cget(s, rt, 0));
        }
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        if (infos[b]) continue;
        double thr = threshold(&atol, &rtol, &bs, b, ct, M, N, smax);
        /* w = V diag(sp) (N x kk); V = vt^H, or the eigenvectors (in buf) */
        for (lint j = 0; j < kk; j++) {
            double sv = creal(cget(s, rt, j));
            double sp = (herm ? fabs(sv) : sv) > thr ? (rt == EIR_F32 ? (double)(1.0f / (float)sv) : 1.0 / sv) : 0.0;
            for (lint i = 0; i < N; i++) {
                zc v = herm ? cget(buf, ct, i + (int64_t)j * ld) : conj(cget(vt, ct, j + (int64_t)i * kk));
                cset(w, ct, i + (int64_t)j * ldn, cround(ct, v * sp));
            }
        }
        /* res = w U^H (N x M) */
        gemm_cm(ct, 'N', 'C', N, M, kk, w, ldn, herm ? buf : u, ld, res, ldn);
        mat_put(out, bat_off(out, bs.n, &bs, b), N, M, om.rs, om.cs, res, ct, ldn, false);
    }
    int rc = check_infos(ctx, herm ? "linalg.eigh" : "linalg.svd", infos, bs.count, bs.n == 0);
    pfree(&pl);
    return rc;
}

/* linalg_pinv.atol_rtol_tensor / atol_rtol_float(self, *, atol=None, rtol=None, hermitian=False) */
static int k_linalg_pinv_atol_rtol(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.pinv", a, na, 1, no, 1)) return -1;
    return pinv_impl(ctx, a[0].t, tol_arg(a, na, 1), tol_arg(a, na, 2), barg(a, na, 3, false), &out[0]);
}
/* linalg_pinv(self, float rcond, hermitian=False), linalg_pinv.rcond_tensor(self, Tensor rcond, hermitian=False) */
static int k_linalg_pinv_rcond(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.pinv", a, na, 1, no, 1)) return -1;
    return pinv_impl(ctx, a[0].t, tol_val(0), tol_arg(a, na, 1), barg(a, na, 2, false), &out[0]);
}
/* pinverse(self, float rcond=1e-15) */
static int k_pinverse(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.pinv", a, na, 1, no, 1)) return -1;
    return pinv_impl(ctx, a[0].t, tol_val(0), tol_val(farg(a, na, 1, 1e-15)), false, &out[0]);
}

/* the number of singular values (|eigenvalues|, hermitian) above the threshold */
static int rank_impl(eir_kctx *ctx, const eir_tview *A, tol atol, tol rtol, bool herm, eir_tview *out) {
    const char *api = "torch.linalg.matrix_rank";
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, herm)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    if (need_out(ctx, api, out, &bs, 0, 0, 0) || tol_check(ctx, api, "atol", &atol, &bs) || tol_check(ctx, api, "rtol", &rtol, &bs)) return -1;
    mat am = mat_of(A);
    lint M = (lint)am.rows, N = (lint)am.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    eir_dtype rt = real_of(ct);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct)), *s = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(rt));
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        infos[b] = 0;
        int64_t cnt = 0;
        if (K > 0) {
            mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), M, N, am.rs, am.cs, false);
            double smax = 0;
            if (herm) {
                infos[b] = lp_syevd(ct, 'N', 'L', N, buf, ld, s);
                for (lint j = 0; j < K; j++) smax = nanmax2(smax, fabs(creal(cget(s, rt, j))));
            } else {
                infos[b] = svd_one(ct, buf, M, N, false, false, s, NULL, NULL);
                smax = creal(cget(s, rt, 0));
            }
            if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
            double thr = threshold(&atol, &rtol, &bs, b, ct, M, N, smax);
            for (lint j = 0; j < K; j++) cnt += fabs(creal(cget(s, rt, j))) > thr;
        }
        iput(out, bat_off(out, nb, &bs, b), cnt);
    }
    int rc = check_infos(ctx, herm ? "linalg.eigh" : "linalg.svd", infos, bs.count, nb == 0);
    pfree(&pl);
    return rc;
}

/* linalg_matrix_rank.atol_rtol_tensor / atol_rtol_float(input, *, atol=None, rtol=None, hermitian=False) */
static int k_matrix_rank_atol_rtol(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.matrix_rank", a, na, 1, no, 1)) return -1;
    return rank_impl(ctx, a[0].t, tol_arg(a, na, 1), tol_arg(a, na, 2), barg(a, na, 3, false), &out[0]);
}
/* linalg_matrix_rank(self, float tol, hermitian=False), .tol_tensor(input, Tensor tol, hermitian=False) */
static int k_matrix_rank_tol(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.matrix_rank", a, na, 1, no, 1)) return -1;
    return rank_impl(ctx, a[0].t, tol_arg(a, na, 1), tol_val(0), barg(a, na, 2, false), &out[0]);
}

/* ======================================================================
 * norms: linalg_norm, linalg_matrix_norm, linalg_cond
 * ====================================================================== */

static double nanmin2(double x, double y) { return isnan(x) || isnan(y) ? NAN : x < y ? x : y; }

/* dims (an int or int list; none or [] = all dims) as a mask */
static int dims_mask(eir_kctx *ctx, const char *api, const eir_karg *d, int32_t rank, bool *mask) {
    memset(mask, 0, sizeof(bool) * EIR_MAX_RANK);
    int64_t one;
    const int64_t *v = NULL;
    uint32_t n = 0;
    if (d && d->kind == EIR_KA_INTS) { v = d->ints; n = d->n; }
    else if (d && d->kind == EIR_KA_INT) { one = d->i; v = &one; n = 1; }
    if (n == 0) {
        for (int32_t i = 0; i < rank; i++) mask[i] = true;
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        int32_t w = eir_wrap_dim(v[i], rank);
        if (w < 0)
            return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", rank ? -rank : -1,
                            rank ? rank - 1 : 0, (long long)v[i]);
        if (rank > 0 && mask[w]) return eir_kerr(ctx, "%s: dim %d appears multiple times in the list of dims", api, w);
        if (rank > 0) mask[w] = true;
    }
    return 0;
}

/* torch's vector norm of order p over the masked dims, computed in double (kutil.h) */
int eir_vector_norm(eir_kctx *ctx, const char *api, const eir_tview *x, double p, const bool *mask, bool keepdim, eir_tview *out) {
    if (!eir_is_floating(x->dtype) && !eir_is_complex(x->dtype))
        return eir_kerr(ctx, "%s: Expected a floating point or complex tensor as input. Got %s", api, dname(x->dtype));
    int32_t r = x->rank, orank = 0;
    int64_t osz[EIR_MAX_RANK], mul[EIR_MAX_RANK], nx = eir_tview_numel(x);
    for (int32_t d = 0; d < r; d++)
        if (!mask[d] || keepdim) osz[orank++] = mask[d] ? 1 : x->sizes[d];
    bool ok = out->rank == orank;
    for (int32_t d = 0; ok && d < orank; d++) ok = out->sizes[d] == osz[d];
    if (!ok) return eir_kerr(ctx, "%s: the output's recorded shape does not match the reduction", api);
    if ((isinf(p) || p < 0) && nx == 0) {
        bool all = true;
        for (int32_t d = 0; d < r; d++) all = all && mask[d];
        if (all) return eir_kerr(ctx, "linalg.vector_norm cannot compute the %g norm on an empty tensor because the operation does not have an identity", p);
        for (int32_t d = 0; d < r; d++)
            if (mask[d] && x->sizes[d] == 0)
                return eir_kerr(ctx, "linalg.vector_norm cannot compute the %g norm on the dimension %d"
                                     "because this dimension is empty and the operation does not have an identity", p, d);
    }
    int64_t no = eir_tview_numel(out), m = 1;
    for (int32_t d = r - 1; d >= 0; d--) {
        mul[d] = mask[d] ? 0 : m;
        if (!mask[d]) m *= x->sizes[d];
    }
    double *acc = eir_kalloc((size_t)(no > 0 ? no : 1) * sizeof(double));
    if (!acc) return eir_kerr(ctx, "%s: out of memory", api);
    for (int64_t k = 0; k < no; k++) acc[k] = p == -INFINITY ? INFINITY : 0;
    int64_t idx[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < nx; k++) {
        int64_t ol = 0;
        for (int32_t d = 0; d < r; d++) ol += idx[d] * mul[d];
        double re, im;
        eir_load_c128(eir_tview_at(x, idx), x->dtype, &re, &im);
        double v = im == 0 ? fabs(re) : hypot(re, im);
        double *a = &acc[ol];
        if (p == 0) *a += v != 0;
        else if (p == INFINITY) *a = nanmax2(*a, v);
        else if (p == -INFINITY) *a = nanmin2(*a, v);
        else if (p == 1) *a += v;
        else if (p == 2) *a += v * v;
        else *a += pow(v, p);
        for (int32_t d = r - 1; d >= 0; d--) {
            if (++idx[d] < x->sizes[d]) break;
            idx[d] = 0;
        }
    }
    memset(idx, 0, sizeof idx);
    for (int64_t k = 0; k < no; k++) {
        double v = acc[k];
        if (p == 2) v = sqrt(v);
        else if (p != 0 && p != 1 && !isinf(p)) v = pow(v, 1.0 / p);
        eir_store_f64(eir_tview_at(out, idx), out->dtype, v);
        for (int32_t d = orank - 1; d >= 0; d--) {
            if (++idx[d] < out->sizes[d]) break;
            idx[d] = 0;
        }
    }
    eir_kfree(acc);
    return 0;
}

enum { ORD_NUM, ORD_FRO, ORD_NUC };

/* |ord| in {1, inf} from abs row / column sums; fro by sum of squares; all in double */
static double norm_sums(const void *buf, eir_dtype ct, int64_t rows, int64_t cols, int64_t ld, int kind, double ord) {
    if (kind == ORD_FRO) {
        double s = 0;
        for (int64_t j = 0; j < cols; j++)
            for (int64_t i = 0; i < rows; i++) { double v = cabs(cget(buf, ct, i + j * ld)); s += v * v; }
        return sqrt(s);
    }
    bool bycol = fabs(ord) == 1;
    int64_t outer = bycol ? cols : rows, inner = bycol ? rows : cols;
    double best = ord > 0 ? -INFINITY : INFINITY;
    for (int64_t o = 0; o < outer; o++) {
        double s = 0;
        for (int64_t i = 0; i < inner; i++) s += cabs(cget(buf, ct, bycol ? i + o * ld : o + i * ld));
        best = ord > 0 ? nanmax2(best, s) : nanmin2(best, s);
    }
    return best;
}

/* linalg.matrix_norm over dims (d0, d1): kind ORD_FRO / ORD_NUC or a numeric ord */
static int mnorm_impl(eir_kctx *ctx, const eir_tview *x, int kind, double ord, int64_t d0_, int64_t d1_, bool keepdim, eir_dtype dt,
                      eir_tview *out) {
    const char *api = "linalg.matrix_norm";
    if (kind == ORD_NUM && !(fabs(ord) == 1 || fabs(ord) == 2 || isinf(ord)))
        return eir_kerr(ctx, "linalg.matrix_norm: Order %g not supported.", ord);
    if (x->rank < 2) return eir_kerr(ctx, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
    int32_t r = x->rank, d0 = eir_wrap_dim(d0_, r), d1 = eir_wrap_dim(d1_, r);
    if (d0 < 0 || d1 < 0)
        return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -r, r - 1,
                        (long long)(d0 < 0 ? d0_ : d1_));
    if (d0 == d1) return eir_kerr(ctx, "linalg.matrix_norm: dims must be different. Got (%lld, %lld)", (long long)d0_, (long long)d1_);
    bool svd = kind == ORD_NUC || (kind == ORD_NUM && fabs(ord) == 2);
    eir_dtype ct = dt ? dt : x->dtype;
    if (svd) {
        if (need_dtype(ctx, api, ct, &ct)) return -1;
    } else if (!eir_is_floating(x->dtype) && !eir_is_complex(x->dtype))
        return eir_kerr(ctx, "%s: Expected a floating point or complex tensor as input. Got %s", api, dname(x->dtype));
    bool mask[EIR_MAX_RANK] = {false};
    mask[d0] = mask[d1] = true;
    if (kind == ORD_FRO) return eir_vector_norm(ctx, api, x, 2, mask, keepdim, out);
    if (!svd) ct = eir_is_complex(x->dtype) ? EIR_C128 : EIR_F64;
    /* P: x with (d0, d1) moved last; O: out without them */
    eir_tview P = *x, O = *out;
    int32_t k = 0;
    for (int32_t d = 0; d < r; d++)
        if (!mask[d]) { P.sizes[k] = x->sizes[d]; P.strides[k] = x->strides[d]; k++; }
    P.sizes[r - 2] = x->sizes[d0]; P.strides[r - 2] = x->strides[d0];
    P.sizes[r - 1] = x->sizes[d1]; P.strides[r - 1] = x->strides[d1];
    if (keepdim) {
        if (out->rank != r || out->sizes[d0] != 1 || out->sizes[d1] != 1) return eir_kerr(ctx, "%s: the output's recorded shape does not match", api);
        k = 0;
        for (int32_t d = 0; d < r; d++)
            if (!mask[d]) { O.sizes[k] = out->sizes[d]; O.strides[k] = out->strides[d]; k++; }
        O.rank = r - 2;
    }
    bat bs;
    bat_from(&bs, &P, r - 2);
    if (need_out(ctx, api, &O, &bs, 0, 0, 0)) return -1;
    int64_t M = P.sizes[r - 2], N = P.sizes[r - 1], K = M < N ? M : N, ld = M > 0 ? M : 1;
    if (svd && (M > INT_MAX / 2 || N > INT_MAX / 2)) return eir_kerr(ctx, "%s: matrix too large for LAPACK", api);
    if ((kind == ORD_NUM && (fabs(ord) == 2 ? K : fabs(ord) == 1 ? N : M) == 0) && bs.count > 0)
        return eir_kerr(ctx, "%s: the %g norm of an empty matrix is not defined (the reduction has no identity)", api, ord);
    eir_dtype rt = real_of(ct);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct)), *s = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(rt));
    lint *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    mat pm = mat_of(&P);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, &P, bat_off(&P, r - 2, &bs, b), M, N, pm.rs, pm.cs, false);
        double v;
        infos[b] = 0;
        if (!svd) v = norm_sums(buf, ct, M, N, ld, kind, ord);
        else {
            infos[b] = K ? svd_one(ct, buf, (lint)M, (lint)N, false, false, s, NULL, NULL) : 0;
            if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
            if (infos[b]) continue;
            if (kind == ORD_NUC) { v = 0; for (int64_t j = 0; j < K; j++) v += creal(cget(s, rt, j)); }
            else v = creal(cget(s, rt, ord > 0 ? 0 : K - 1));
        }
        tput(&O, bat_off(&O, bs.n, &bs, b), v);
    }
    int rc = check_infos(ctx, "linalg.svd", infos, bs.count, bs.n == 0);
    pfree(&pl);
    return rc;
}

static eir_dtype dtype_arg(const eir_karg *a, uint32_t na, uint32_t i) { return i < na && a[i].kind == EIR_KA_DTYPE ? (eir_dtype)a[i].i : 0; }

static int two_dims(eir_kctx *ctx, const eir_karg *d, int64_t *d0, int64_t *d1) {
    if (!d || d->kind != EIR_KA_INTS || d->n != 2) return eir_kerr(ctx, "linalg.matrix_norm: dim must be a 2-tuple. Got %u dims", d && d->kind == EIR_KA_INTS ? d->n : 1);
    *d0 = d->ints[0];
    *d1 = d->ints[1];
    return 0;
}

/* linalg_matrix_norm(self, Scalar ord, int[] dim=[-2,-1], keepdim=False, *, dtype=None) */
static int k_linalg_matrix_norm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.matrix_norm", a, na, 1, no, 1)) return -1;
    int64_t d0 = -2, d1 = -1;
    if (!is_none(a, na, 2) && two_dims(ctx, &a[2], &d0, &d1)) return -1;
    return mnorm_impl(ctx, a[0].t, ORD_NUM, farg(a, na, 1, 2), d0, d1, barg(a, na, 3, false), dtype_arg(a, na, 4), &out[0]);
}

static int str_ord(eir_kctx *ctx, const char *api, const char *s, int *kind) {
    if (!strcmp(s, "fro")) *kind = ORD_FRO;
    else if (!strcmp(s, "nuc")) *kind = ORD_NUC;
    else return eir_kerr(ctx, "%s: Order %s not supported.", api, s);
    return 0;
}

/* linalg_matrix_norm.str_ord(self, str ord="fro", int[] dim=[-2,-1], keepdim=False, *, dtype=None) */
static int k_linalg_matrix_norm_str(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.matrix_norm", a, na, 1, no, 1)) return -1;
    int kind = ORD_FRO;
    int64_t d0 = -2, d1 = -1;
    if (str_ord(ctx, "linalg.matrix_norm", sarg(a, na, 1, "fro"), &kind)) return -1;
    if (!is_none(a, na, 2) && two_dims(ctx, &a[2], &d0, &d1)) return -1;
    return mnorm_impl(ctx, a[0].t, kind, 0, d0, d1, barg(a, na, 3, false), dtype_arg(a, na, 4), &out[0]);
}

/* linalg_norm(self, Scalar? ord=None, int[1]? dim=None, keepdim=False, *, dtype=None) */
static int k_linalg_norm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.norm", a, na, 1, no, 1)) return -1;
    const eir_tview *x = a[0].t;
    bool has_ord = !is_none(a, na, 1), has_dim = !is_none(a, na, 2);
    const eir_karg *dim = has_dim ? &a[2] : NULL;
    uint32_t nd = !dim ? 0 : dim->kind == EIR_KA_INTS ? dim->n : 1;
    if (has_dim && nd != 1 && nd != 2) return eir_kerr(ctx, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got %u dims", nd);
    if (!has_dim && has_ord && x->rank != 1 && x->rank != 2)
        return eir_kerr(ctx, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got %dD.", x->rank);
    bool keep = barg(a, na, 3, false);
    eir_dtype dt = dtype_arg(a, na, 4);
    if (has_ord && ((has_dim && nd == 2) || (!has_dim && x->rank == 2))) {
        int64_t d0 = has_dim ? dim->ints[0] : 0, d1 = has_dim ? dim->ints[1] : 1;
        return mnorm_impl(ctx, x, ORD_NUM, farg(a, na, 1, 2), d0, d1, keep, dt, &out[0]);
    }
    bool mask[EIR_MAX_RANK];
    if (dims_mask(ctx, "linalg.vector_norm", dim, x->rank, mask)) return -1;
    return eir_vector_norm(ctx, "linalg.vector_norm", x, has_ord ? farg(a, na, 1, 2) : 2, mask, keep, &out[0]);
}

/* linalg_norm.ord_str(self, str ord, int[1]? dim=None, keepdim=False, *, dtype=None) */
static int k_linalg_norm_str(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.norm", a, na, 1, no, 1)) return -1;
    const eir_tview *x = a[0].t;
    int kind = ORD_FRO;
    if (str_ord(ctx, "linalg.matrix_norm", sarg(a, na, 1, "fro"), &kind)) return -1;
    int64_t d0 = 0, d1 = 1;
    if (!is_none(a, na, 2)) {
        if (a[2].kind != EIR_KA_INTS || (a[2].n != 1 && a[2].n != 2))
            return eir_kerr(ctx, "linalg.norm: If dim is specified, it mut be of length 1 or 2. Got %u dims", a[2].kind == EIR_KA_INTS ? a[2].n : 1);
        if (two_dims(ctx, &a[2], &d0, &d1)) return -1;
    } else if (x->rank != 1 && x->rank != 2)
        return eir_kerr(ctx, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got %dD.", x->rank);
    return mnorm_impl(ctx, x, kind, 0, d0, d1, barg(a, na, 3, false), dtype_arg(a, na, 4), &out[0]);
}

/* linalg.cond: ||A|| ||A^-1||, or for the 2-norms the ratio of extreme singular values */
static int cond_impl(eir_kctx *ctx, const eir_tview *A, int kind, double p, const char *pstr, eir_tview *out) {
    const char *api = "linalg.cond";
    if (A->rank < 2) return eir_kerr(ctx, "linalg.cond: The input tensor must have at least 2 dimensions.");
    if (kind == ORD_NUM && !(fabs(p) == 1 || fabs(p) == 2 || isinf(p))) return eir_kerr(ctx, "linalg.cond got an invalid norm type: %g", p);
    bool svd2 = kind == ORD_NUM && fabs(p) == 2;
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, false)) return -1;
    mat am = mat_of(A);
    if (!svd2 && am.rows != am.cols)
        return eir_kerr(ctx, "linalg.cond(ord=%s): A must be batches of square matrices, but they are %lld by %lld matrices", pstr,
                        (long long)am.rows, (long long)am.cols);
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    if (need_out(ctx, api, out, &bs, 0, 0, 0)) return -1;
    lint M = (lint)am.rows, N = (lint)am.cols, K = M < N ? M : N, ld = M > 0 ? M : 1;
    eir_dtype rt = real_of(ct);
    pool pl = {0};
    size_t mn = (size_t)ld * (size_t)(N > 0 ? N : 1) * esz(ct);
    void *buf = palloc(&pl, mn), *lu = palloc(&pl, mn), *inv = palloc(&pl, mn), *tmp = palloc(&pl, mn);
    void *s = palloc(&pl, (size_t)(K > 0 ? K : 1) * esz(rt));
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint)), *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        int64_t ooff = bat_off(out, nb, &bs, b);
        infos[b] = 0;
        if (M == 0 || N == 0) { tput(out, ooff, 0); continue; } /* torch: 0 for empty matrices */
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), M, N, am.rs, am.cs, false);
        double r;
        if (svd2) {
            infos[b] = svd_one(ct, buf, M, N, false, false, s, NULL, NULL);
            if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
            if (infos[b]) continue;
            double smax = creal(cget(s, rt, 0)), smin = creal(cget(s, rt, K - 1));
            r = p > 0 ? smax / smin : smin / smax;
        } else {
            memcpy(lu, buf, mn);
            lint info = lp_getrf(ct, N, N, lu, ld, ip);
            if (info == LP_NOMEM) return oom(ctx, &pl, api);
            cm_eye(inv, ct, N, N, ld);
            lp_getrs(ct, 'N', N, N, lu, ld, ip, inv, ld);
            if (kind == ORD_NUC) {
                infos[b] = info;
                if (info) continue;
                double na_ = 0, ni = 0;
                memcpy(tmp, buf, mn);
                lint e = svd_one(ct, tmp, N, N, false, false, s, NULL, NULL);
                for (lint j = 0; !e && j < N; j++) na_ += creal(cget(s, rt, j));
                memcpy(tmp, inv, mn);
                lint e2 = svd_one(ct, tmp, N, N, false, false, s, NULL, NULL);
                for (lint j = 0; !e2 && j < N; j++) ni += creal(cget(s, rt, j));
                if (e || e2) { infos[b] = e == LP_NOMEM || e2 == LP_NOMEM ? LP_NOMEM : -4; continue; }
                r = (double)creal(cround(rt, na_)) * (double)creal(cround(rt, ni));
            } else {
                if (info > 0) /* torch: the inverse of a singular matrix is +inf everywhere */
                    for (int64_t i = 0; i < (int64_t)ld * N; i++) cset(inv, ct, i, INFINITY);
                double na_ = creal(cround(rt, norm_sums(buf, ct, N, N, ld, kind, p)));
                double ni = creal(cround(rt, norm_sums(inv, ct, N, N, ld, kind, p)));
                r = na_ * ni;
                if (isnan(r)) r = INFINITY; /* nan_to_num(inf, inf, -inf) */
            }
        }
        tput(out, ooff, cround(rt, r));
    }
    int rc = check_infos(ctx, kind == ORD_NUC ? "linalg.inv" : "linalg.svd", infos, bs.count, nb == 0);
    pfree(&pl);
    return rc;
}

/* linalg_cond(self, Scalar? p=None) */
static int k_linalg_cond(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.cond", a, na, 1, no, 1)) return -1;
    double p = farg(a, na, 1, 2);
    char ps[64];
    bool is_int = na > 1 && (a[1].kind == EIR_KA_INT || (a[1].kind == EIR_KA_SCALAR && a[1].s.kind == EIR_SC_INT));
    if (is_int || isinf(p)) snprintf(ps, sizeof ps, "%lld", isinf(p) ? (p > 0 ? (long long)INT64_MAX : (long long)INT64_MIN) : (long long)p);
    else eir_snprintf(ps, sizeof ps, "%f", p);
    return cond_impl(ctx, a[0].t, ORD_NUM, p, ps, &out[0]);
}
/* linalg_cond.p_str(self, str p) */
static int k_linalg_cond_str(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "linalg.cond", a, na, 1, no, 1)) return -1;
    int kind = ORD_FRO;
    const char *p = sarg(a, na, 1, "fro");
    if (strcmp(p, "fro") && strcmp(p, "nuc")) return eir_kerr(ctx, "linalg.cond got an invalid norm type: %s", p);
    str_ord(ctx, "linalg.cond", p, &kind);
    return cond_impl(ctx, a[0].t, kind, 0, p, &out[0]);
}

/* ======================================================================
 * matrix_power, matrix_exp
 * ====================================================================== */

/* C = A B for n x n column-major matrices: BLAS for the LAPACK dtypes, exact
 * wrap-around int64 loops for integers (torch's integer mm, modulo the width) */
static void mul_nn(eir_dtype ct, lint n, const void *A, const void *B, void *C) {
    if (ct != EIR_I64) { gemm_cm(ct, 'N', 'N', n, n, n, A, n, B, n, C, n); return; }
    const int64_t *a = A, *b = B;
    int64_t *c = C;
    for (lint j = 0; j < n; j++)
        for (lint i = 0; i < n; i++) {
            uint64_t s = 0;
            for (lint k = 0; k < n; k++) s += (uint64_t)a[i + (int64_t)k * n] * (uint64_t)b[k + (int64_t)j * n];
            c[i + (int64_t)j * n] = (int64_t)s;
        }
}

/* round every element to dtype rd (float16 / bfloat16 products rounded as torch stores them) */
static void round_to(void *buf, eir_dtype ct, int64_t cnt, eir_dtype rd) {
    if (rd != EIR_F16 && rd != EIR_BF16) return;
    for (int64_t i = 0; i < cnt; i++) {
        unsigned char t[8];
        eir_store_f64(t, rd, ((float *)buf)[i]);
        ((float *)buf)[i] = (float)eir_load_f64(t, rd);
    }
}

/* a^p (p >= 1) with torch's order of products: 1, 2, 3 directly, else
 * binary decomposition from the least significant bit. The result lands in
 * one of the three buffers, returned. */
static void *matpow(eir_dtype ct, eir_dtype rd, lint n, int64_t p, void *a, void *z, void *r, void *t) {
    int64_t nn = (int64_t)n * n;
    if (p == 1) return a;
    if (p <= 3) {
        mul_nn(ct, n, a, a, r);
        round_to(r, ct, nn, rd);
        if (p == 2) return r;
        mul_nn(ct, n, r, a, t);
        round_to(t, ct, nn, rd);
        return t;
    }
    void *zc_ = NULL, *rc = NULL, *spare[3] = {z, r, t};
    while (p > 0) {
        int bit = (int)(p % 2);
        p /= 2;
        if (!zc_) zc_ = a;
        else {
            void *d = spare[0] != zc_ && spare[0] != rc ? spare[0] : spare[1] != zc_ && spare[1] != rc ? spare[1] : spare[2];
            mul_nn(ct, n, zc_, zc_, d);
            round_to(d, ct, nn, rd);
            zc_ = d;
        }
        if (bit) {
            if (!rc) rc = zc_;
            else {
                void *d = spare[0] != zc_ && spare[0] != rc ? spare[0] : spare[1] != zc_ && spare[1] != rc ? spare[1] : spare[2];
                mul_nn(ct, n, rc, zc_, d);
                round_to(d, ct, nn, rd);
                rc = d;
            }
        }
    }
    return rc;
}

/* linalg_matrix_power(self, int n), matrix_power(self, int n) */
static int k_linalg_matrix_power(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "linalg.matrix_power";
    if (need_tensors(ctx, api, a, na, 1, no, 1)) return -1;
    const eir_tview *A = a[0].t;
    int64_t p = iarg(a, na, 1, 1);
    if (A->rank < 2) return eir_kerr(ctx, "linalg.matrix_power: The input tensor A must have at least 2 dimensions.");
    if (need_matrix(ctx, api, A, true)) return -1;
    eir_dtype d = A->dtype, ct;
    if (p < 0) {
        if (need_dtype(ctx, "linalg.inv", d, &ct)) return -1;
    } else if (d == EIR_F32 || d == EIR_F64 || d == EIR_C64 || d == EIR_C128) ct = d;
    else if (d == EIR_F16 || d == EIR_BF16) ct = EIR_F32;
    else if (eir_is_integral(d, true) && d != EIR_U64 && (d != EIR_BOOL || p <= 1)) ct = EIR_I64;
    else return eir_kerr(ctx, "\"addmm_impl_cpu_\" not implemented for '%s'", dname(d));
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, &out[0], &bs, 2, n, n)) return -1;
    mat am = mat_of(A), om = mat_of(&out[0]);
    size_t nn = (size_t)ld * (size_t)ld * (ct == EIR_I64 ? 8 : esz(ct));
    pool pl = {0};
    void *bufs[4];
    for (int i = 0; i < 4; i++) bufs[i] = palloc(&pl, nn);
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint)), *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    int64_t q = p < 0 ? (p == INT64_MIN ? INT64_MAX : -p) : p;
    for (int64_t b = 0; b < bs.count; b++) {
        int64_t aoff = bat_off(A, nb, &bs, b), ooff = bat_off(&out[0], nb, &bs, b);
        infos[b] = 0;
        if (p == 0) {
            size_t es = eir_elsize(out[0].dtype);
            for (lint j = 0; j < n; j++)
                for (lint i = 0; i < n; i++) eir_store_f64((char *)out[0].data + (ooff + i * om.rs + j * om.cs) * (int64_t)es, out[0].dtype, i == j);
            continue;
        }
        if (ct == EIR_I64) {
            int64_t *m = bufs[0];
            size_t es = eir_elsize(d);
            for (lint j = 0; j < n; j++)
                for (lint i = 0; i < n; i++) m[i + (int64_t)j * n] = eir_load_i64((const char *)A->data + (aoff + i * am.rs + j * am.cs) * (int64_t)es, d);
        } else mat_get(bufs[0], ct, ld, A, aoff, n, n, am.rs, am.cs, false);
        if (p < 0) { /* torch: a = linalg_inv(a) first */
            void *lu = bufs[1];
            memcpy(lu, bufs[0], nn);
            infos[b] = lp_getrf(ct, n, n, lu, ld, ip);
            if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
            cm_eye(bufs[0], ct, n, n, ld);
            lp_getrs(ct, 'N', n, n, lu, ld, ip, bufs[0], ld);
        }
        void *r = n > 0 ? matpow(ct, d, n, q, bufs[0], bufs[1], bufs[2], bufs[3]) : bufs[0];
        if (ct == EIR_I64) {
            const int64_t *m = r;
            size_t es = eir_elsize(out[0].dtype);
            for (lint j = 0; j < n; j++)
                for (lint i = 0; i < n; i++) eir_store_i64((char *)out[0].data + (ooff + i * om.rs + j * om.cs) * (int64_t)es, out[0].dtype, m[i + (int64_t)j * n]);
        } else mat_put(&out[0], ooff, n, n, om.rs, om.cs, r, ct, ld, false);
    }
    int rc = p < 0 ? check_infos(ctx, "linalg.inv", infos, bs.count, nb == 0) : 0;
    pfree(&pl);
    return rc;
}

/* exp(A) by scaling and squaring with the [13/13] Pade approximant (Higham
 * 2005), in double precision whatever the dtype, rounded once. torch uses a
 * Taylor-based variant; both are accurate to the working precision. */
static int expm_one(eir_dtype ct, lint n, void *A, void *w[6], lint *ip) {
    static const double b[14] = {64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
                                 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0};
    int64_t nn = (int64_t)n * n;
    double norm = 0;
    for (lint j = 0; j < n; j++) {
        double s = 0;
        for (lint i = 0; i < n; i++) s += cabs(cget(A, ct, i + (int64_t)j * n));
        norm = nanmax2(norm, s);
    }
    if (!isfinite(norm)) {
        for (int64_t i = 0; i < nn; i++) cset(A, ct, i, NAN);
        return 0;
    }
    int s = 0;
    if (norm > 5.371920351148152) s = (int)ceil(log2(norm / 5.371920351148152));
    if (s > 2000) s = 2000;
    double sc = ldexp(1.0, -s);
    for (int64_t i = 0; i < nn; i++) cset(A, ct, i, cget(A, ct, i) * sc);
    void *A2 = w[0], *A4 = w[1], *A6 = w[2], *U = w[3], *V = w[4], *T = w[5];
    mul_nn(ct, n, A, A, A2);
    mul_nn(ct, n, A2, A2, A4);
    mul_nn(ct, n, A4, A2, A6);
    /* T = A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I; U = A T */
    for (int64_t i = 0; i < nn; i++) cset(U, ct, i, b[13] * cget(A6, ct, i) + b[11] * cget(A4, ct, i) + b[9] * cget(A2, ct, i));
    mul_nn(ct, n, A6, U, T);
    for (int64_t i = 0; i < nn; i++) cset(T, ct, i, cget(T, ct, i) + b[7] * cget(A6, ct, i) + b[5] * cget(A4, ct, i) + b[3] * cget(A2, ct, i) + (i % (n + 1) == 0 ? b[1] : 0));
    mul_nn(ct, n, A, T, U);
    /* V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I */
    for (int64_t i = 0; i < nn; i++) cset(T, ct, i, b[12] * cget(A6, ct, i) + b[10] * cget(A4, ct, i) + b[8] * cget(A2, ct, i));
    mul_nn(ct, n, A6, T, V);
    for (int64_t i = 0; i < nn; i++) cset(V, ct, i, cget(V, ct, i) + b[6] * cget(A6, ct, i) + b[4] * cget(A4, ct, i) + b[2] * cget(A2, ct, i) + (i % (n + 1) == 0 ? b[0] : 0));
    /* (V - U) X = (V + U) */
    for (int64_t i = 0; i < nn; i++) {
        zc u = cget(U, ct, i), v = cget(V, ct, i);
        cset(T, ct, i, v - u);
        cset(A, ct, i, v + u);
    }
    lint info = lp_getrf(ct, n, n, T, n, ip);
    if (info == LP_NOMEM) return -1;
    lp_getrs(ct, 'N', n, n, T, n, ip, A, n);
    for (int k = 0; k < s; k++) {
        mul_nn(ct, n, A, A, T);
        memcpy(A, T, (size_t)nn * esz(ct));
    }
    return 0;
}

/* matrix_exp(self), linalg_matrix_exp(self) */
static int k_matrix_exp(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "linalg.matrix_exp";
    if (need_tensors(ctx, api, a, na, 1, no, 1)) return -1;
    const eir_tview *A = a[0].t;
    if (!eir_is_floating(A->dtype) && !eir_is_complex(A->dtype))
        return eir_kerr(ctx, "linalg.matrix_exp: Expected a floating point or complex tensor as input. Got %s", dname(A->dtype));
    if (need_matrix(ctx, api, A, true)) return -1;
    eir_dtype ct = eir_is_complex(A->dtype) ? EIR_C128 : EIR_F64;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, &out[0], &bs, 2, n, n)) return -1;
    mat am = mat_of(A), om = mat_of(&out[0]);
    size_t nn = (size_t)ld * (size_t)ld * esz(ct);
    pool pl = {0};
    void *buf = palloc(&pl, nn), *w[6];
    for (int i = 0; i < 6; i++) w[i] = palloc(&pl, nn);
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, am.rs, am.cs, false);
        if (n > 0 && expm_one(ct, n, buf, w, ip)) return oom(ctx, &pl, api);
        mat_put(&out[0], bat_off(&out[0], nb, &bs, b), n, n, om.rs, om.cs, buf, ct, ld, false);
    }
    pfree(&pl);
    return 0;
}

/* ======================================================================
 * tensorinv, tensorsolve, vander
 * ====================================================================== */

/* element k (row-major order) of t */
static zc flat_get(const eir_tview *t, int64_t k) {
    int64_t off = 0;
    for (int32_t d = t->rank - 1; d >= 0; d--) {
        int64_t sz = t->sizes[d];
        off += (k % sz) * t->strides[d];
        k /= sz;
    }
    return tget(t, off);
}
static void flat_put(const eir_tview *t, int64_t k, zc v) {
    int64_t off = 0;
    for (int32_t d = t->rank - 1; d >= 0; d--) {
        int64_t sz = t->sizes[d];
        off += (k % sz) * t->strides[d];
        k /= sz;
    }
    tput(t, off, v);
}

/* linalg_tensorinv(self, int ind=2): inv(self.reshape(P, P)).reshape(shape[ind:] + shape[:ind]) */
static int k_linalg_tensorinv(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "linalg.tensorinv";
    if (need_tensors(ctx, api, a, na, 1, no, 1)) return -1;
    const eir_tview *A = a[0].t;
    int64_t ind = iarg(a, na, 1, 2);
    if (ind <= 0) return eir_kerr(ctx, "Expected a strictly positive integer for 'ind', but got %lld", (long long)ind);
    if (ind > A->rank) return eir_kerr(ctx, "%s: ind (%lld) exceeds the number of dims (%d)", api, (long long)ind, A->rank);
    eir_dtype ct;
    if (need_dtype(ctx, "linalg.inv", A->dtype, &ct)) return -1;
    int64_t P = 1, Q = 1;
    for (int32_t d = 0; d < A->rank; d++) *(d < ind ? &P : &Q) *= A->sizes[d];
    if (P != Q) return eir_kerr(ctx, "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got %lld != %lld", (long long)Q, (long long)P);
    if (P > 46340) return eir_kerr(ctx, "%s: a %lld x %lld matrix is too large", api, (long long)P, (long long)P);
    if (eir_tview_numel(&out[0]) != P * P) return eir_kerr(ctx, "%s: the output's recorded shape does not match", api);
    lint n = (lint)P, ld = n > 0 ? n : 1;
    pool pl = {0};
    void *lu = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *x = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct));
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t i = 0; i < P; i++)
        for (int64_t j = 0; j < P; j++) cset(lu, ct, i + j * ld, flat_get(A, i * P + j));
    lint info = lp_getrf(ct, n, n, lu, ld, ip);
    if (info == LP_NOMEM) return oom(ctx, &pl, api);
    cm_eye(x, ct, n, n, ld);
    lp_getrs(ct, 'N', n, n, lu, ld, ip, x, ld);
    for (int64_t i = 0; i < P; i++)
        for (int64_t j = 0; j < P; j++) flat_put(&out[0], i * P + j, cget(x, ct, i + j * ld));
    int rc = check_infos(ctx, "inv", &info, 1, true);
    pfree(&pl);
    return rc;
}

/* linalg_tensorsolve(self, other, int[]? dims=None) */
static int k_linalg_tensorsolve(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "torch.linalg.solve";
    if (need_tensors(ctx, api, a, na, 2, no, 1)) return -1;
    const eir_tview *A = a[0].t, *B = a[1].t;
    eir_dtype ct;
    if (need_dtype(ctx, "linalg.solve", A->dtype, &ct)) return -1;
    if (B->dtype != A->dtype) return eir_kerr(ctx, "linalg.solve: Expected A and B to have the same dtype, but found A of type %s and B of type %s instead", dname(A->dtype), dname(B->dtype));
    /* A' = movedim(A, dims, the last positions) */
    eir_tview Ap = *A;
    if (!is_none(a, na, 2)) {
        if (a[2].kind != EIR_KA_INTS) return eir_kerr(ctx, "linalg.tensorsolve: dims must be a list of ints");
        bool moved[EIR_MAX_RANK] = {false};
        int32_t k = 0, nd = (int32_t)a[2].n, r = A->rank;
        if (nd > r) return eir_kerr(ctx, "linalg.tensorsolve: too many dims");
        int32_t src[EIR_MAX_RANK];
        for (int32_t i = 0; i < nd; i++) {
            int32_t d = eir_wrap_dim(a[2].ints[i], r);
            if (d < 0 || moved[d]) return eir_kerr(ctx, "movedim: repeated or out-of-range dim %lld in `source`", (long long)a[2].ints[i]);
            moved[d] = true;
            src[i] = d;
        }
        for (int32_t d = 0; d < r; d++)
            if (!moved[d]) { Ap.sizes[k] = A->sizes[d]; Ap.strides[k] = A->strides[d]; k++; }
        for (int32_t i = 0; i < nd; i++) { Ap.sizes[k] = A->sizes[src[i]]; Ap.strides[k] = A->strides[src[i]]; k++; }
    }
    int64_t P = eir_tview_numel(B), R = 1;
    if (B->rank > Ap.rank) return eir_kerr(ctx, "linalg.tensorsolve: other has more dims than self");
    for (int32_t d = B->rank; d < Ap.rank; d++) R *= Ap.sizes[d];
    if (R != P || eir_tview_numel(&Ap) != P * P)
        return eir_kerr(ctx, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got %lld != %lld",
                        (long long)R, (long long)(R ? eir_tview_numel(&Ap) / R : 0));
    if (P > 46340) return eir_kerr(ctx, "linalg.tensorsolve: a %lld x %lld system is too large", (long long)P, (long long)P);
    if (eir_tview_numel(&out[0]) != P) return eir_kerr(ctx, "linalg.tensorsolve: the output's recorded shape does not match");
    lint n = (lint)P, ld = n > 0 ? n : 1;
    pool pl = {0};
    void *lu = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *x = palloc(&pl, (size_t)ld * esz(ct));
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t i = 0; i < P; i++) {
        for (int64_t j = 0; j < P; j++) cset(lu, ct, i + j * ld, flat_get(&Ap, i * P + j));
        cset(x, ct, i, flat_get(B, i));
    }
    lint info = lp_getrf(ct, n, n, lu, ld, ip);
    if (info == LP_NOMEM) return oom(ctx, &pl, api);
    lp_getrs(ct, 'N', n, 1, lu, ld, ip, x, ld);
    for (int64_t i = 0; i < P; i++) flat_put(&out[0], i, cget(x, ct, i));
    int rc = check_infos(ctx, api, &info, 1, true);
    pfree(&pl);
    return rc;
}

/* linalg_vander(x, *, N=None): x[..., i]^j, j < N, by cumulative products
 * (torch's cumprod accumulates in double, or int64 for integers) */
static int k_linalg_vander(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "linalg.vander";
    if (need_tensors(ctx, api, a, na, 1, no, 1)) return -1;
    const eir_tview *x = a[0].t;
    if (x->dtype == EIR_BOOL || (!eir_is_floating(x->dtype) && !eir_is_complex(x->dtype) && !eir_is_integral(x->dtype, false)))
        return eir_kerr(ctx, "linalg.vander supports floating point, complex, and integer tensors, but got %s", dname(x->dtype));
    eir_tview x1;
    if (x->rank == 0) { /* a 0-d x is x.unsqueeze(-1) */
        x1 = *x;
        x1.rank = 1;
        x1.sizes[0] = 1;
        x1.strides[0] = 1;
        x = &x1;
    }
    int64_t n = x->sizes[x->rank - 1], N = is_none(a, na, 1) ? n : iarg(a, na, 1, n);
    if (N <= 1) return eir_kerr(ctx, "N must be greater than 1.");
    int32_t nb = x->rank - 1;
    bat bs;
    bat_from(&bs, x, nb);
    if (need_out(ctx, api, &out[0], &bs, 2, n, N)) return -1;
    mat om = mat_of(&out[0]);
    bool integ = eir_is_integral(x->dtype, false) && eir_is_integral(out[0].dtype, false);
    size_t xs = eir_elsize(x->dtype), os = eir_elsize(out[0].dtype);
    for (int64_t b = 0; b < bs.count; b++) {
        int64_t xo = bat_off(x, nb, &bs, b), oo = bat_off(&out[0], nb, &bs, b);
        for (int64_t i = 0; i < n; i++) {
            const char *xp = (const char *)x->data + (xo + i * x->strides[nb]) * (int64_t)xs;
            char *op = (char *)out[0].data + (oo + i * om.rs) * (int64_t)os;
            if (integ) {
                uint64_t v = (uint64_t)eir_load_i64(xp, x->dtype), acc = 1;
                for (int64_t j = 0; j < N; j++) {
                    eir_store_i64(op + j * om.cs * (int64_t)os, out[0].dtype, (int64_t)acc);
                    acc *= v;
                }
            } else {
                double re, im;
                eir_load_c128(xp, x->dtype, &re, &im);
                zc v = CMPLX(re, im), acc = 1;
                for (int64_t j = 0; j < N; j++) {
                    eir_store_c128(op + j * om.cs * (int64_t)os, out[0].dtype, creal(acc), cimag(acc));
                    acc *= v;
                }
            }
        }
    }
    return 0;
}

/* ======================================================================
 * LDL: ldl_factor(_ex), ldl_solve; _linalg_check_errors
 * ====================================================================== */

static int ldl_impl(eir_kctx *ctx, const char *check, const eir_tview *A, bool herm, eir_tview *LD, eir_tview *piv, eir_tview *info) {
    const char *api = "torch.linalg.ldl_factor_ex";
    eir_dtype ct;
    if (need_dtype(ctx, api, A->dtype, &ct) || need_matrix(ctx, api, A, true)) return -1;
    int32_t nb = A->rank - 2;
    bat bs;
    bat_from(&bs, A, nb);
    lint n = (lint)A->sizes[A->rank - 1], ld = n > 0 ? n : 1;
    if (need_out(ctx, api, LD, &bs, 2, n, n) || need_out(ctx, api, piv, &bs, 1, n, 0) || (info && need_out(ctx, api, info, &bs, 0, 0, 0))) return -1;
    mat am = mat_of(A), lm = mat_of(LD);
    pool pl = {0};
    void *buf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct));
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint)), *infos = palloc(&pl, (size_t)(bs.count > 0 ? bs.count : 1) * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        mat_get(buf, ct, ld, A, bat_off(A, nb, &bs, b), n, n, am.rs, am.cs, false);
        cm_tri(buf, ct, n, ld, false); /* torch: LD = tril(A), then sytrf('L') in place */
        infos[b] = lp_sytrf(ct, herm, n, buf, ld, ip);
        if (infos[b] == LP_NOMEM) return oom(ctx, &pl, api);
        mat_put(LD, bat_off(LD, nb, &bs, b), n, n, lm.rs, lm.cs, buf, ct, ld, false);
        ivec_put(piv, bat_off(piv, nb, &bs, b), n, piv->strides[nb], ip);
        if (info) iput(info, bat_off(info, nb, &bs, b), infos[b]);
    }
    int rc = check ? check_infos(ctx, check, infos, bs.count, nb == 0) : 0;
    pfree(&pl);
    return rc;
}

/* linalg_ldl_factor_ex(self, *, hermitian=False, check_errors=False) -> (LD, pivots, info) */
static int k_linalg_ldl_factor_ex(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.ldl_factor_ex", a, na, 1, no, 3)) return -1;
    return ldl_impl(ctx, barg(a, na, 2, false) ? "torch.linalg.ldl_factor_ex" : NULL, a[0].t, barg(a, na, 1, false), &out[0], &out[1], &out[2]);
}
/* linalg_ldl_factor(self, *, hermitian=False) -> (LD, pivots) */
static int k_linalg_ldl_factor(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "torch.linalg.ldl_factor", a, na, 1, no, 2)) return -1;
    return ldl_impl(ctx, "torch.linalg.ldl_factor", a[0].t, barg(a, na, 1, false), &out[0], &out[1], NULL);
}

/* sytrf's pivots ('L'): |p| <= n, and a negative pivot starts a 2 x 2 block that ends before n */
static bool ldl_pivots_ok(const lint *ip, lint n) {
    for (lint k = 0; k < n; k++) {
        lint p = ip[k];
        if (p > 0 && p <= n) continue;
        if (p < 0 && -p <= n && k + 1 < n && ip[k + 1] == p) { k++; continue; }
        return false;
    }
    return true;
}

/* linalg_ldl_solve(LD, pivots, B, *, hermitian=False) */
static int k_linalg_ldl_solve(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    const char *api = "torch.linalg.ldl_solve";
    if (need_tensors(ctx, api, a, na, 3, no, 1)) return -1;
    const eir_tview *LD = a[0].t, *pv = a[1].t, *B = a[2].t;
    bool herm = barg(a, na, 3, false);
    eir_dtype ct;
    if (need_dtype(ctx, api, LD->dtype, &ct) || need_matrix(ctx, api, LD, true)) return -1;
    if (B->rank < 2 || B->dtype != LD->dtype) return eir_kerr(ctx, "%s: Expected LD and B to have the same dtype, and B to be a matrix", api);
    if (!eir_is_integral(pv->dtype, false)) return eir_kerr(ctx, "%s: Expected pivots to be integers. Got %s", api, dname(pv->dtype));
    lint n = (lint)LD->sizes[LD->rank - 1], ld = n > 0 ? n : 1;
    int32_t nbL = LD->rank - 2, nbB = B->rank - 2;
    bat bl, bb, bs;
    bat_from(&bl, LD, nbL);
    bat_from(&bb, B, nbB);
    if (!bat_bcast(&bs, &bl, &bb)) return eir_kerr(ctx, "%s: Incompatible shapes of LD and B", api);
    if (pv->rank != LD->rank - 1 || pv->sizes[pv->rank - 1] != n || !bat_fits(pv, nbL, &bl))
        return eir_kerr(ctx, "%s: Expected LD.shape[:-1] and pivots.shape to be the same", api);
    mat bm = mat_of(B), lm = mat_of(LD);
    if (bm.rows != n || bm.cols > INT_MAX / 2) return eir_kerr(ctx, "%s: Incompatible shapes of LD and B", api);
    if (need_out(ctx, api, &out[0], &bs, 2, bm.rows, bm.cols)) return -1;
    mat xm = mat_of(&out[0]);
    lint k = (lint)bm.cols;
    pool pl = {0};
    void *lbuf = palloc(&pl, (size_t)ld * (size_t)ld * esz(ct)), *bbuf = palloc(&pl, (size_t)ld * (size_t)(k > 0 ? k : 1) * esz(ct));
    lint *ip = palloc(&pl, (size_t)ld * sizeof(lint));
    if (pl.fail) return oom(ctx, &pl, api);
    for (int64_t b = 0; b < bs.count; b++) {
        ivec_get(ip, pv, bat_off(pv, nbL, &bs, b), n, pv->strides[pv->rank - 1]);
        if (!ldl_pivots_ok(ip, n)) { pfree(&pl); return eir_kerr(ctx, "%s: invalid pivots (not what ldl_factor returns)", api); }
        mat_get(lbuf, ct, ld, LD, bat_off(LD, nbL, &bs, b), n, n, lm.rs, lm.cs, false);
        mat_get(bbuf, ct, ld, B, bat_off(B, nbB, &bs, b), n, k, bm.rs, bm.cs, false);
        lp_sytrs(ct, herm, n, k, lbuf, ld, ip, bbuf, ld);
        mat_put(&out[0], bat_off(&out[0], bs.n, &bs, b), n, k, xm.rs, xm.cs, bbuf, ct, ld, false);
    }
    pfree(&pl);
    return 0;
}

/* _linalg_check_errors(Tensor info, str api_name, *, bool is_matrix) -> () */
static int k__linalg_check_errors(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "_linalg_check_errors", a, na, 1, 0, 0)) return -1;
    const eir_tview *t = a[0].t;
    if (!eir_is_integral(t->dtype, false)) return eir_kerr(ctx, "_linalg_check_errors: info must be an integer tensor");
    int64_t n = eir_tview_numel(t);
    if (n == 0) return 0;
    lint *infos = eir_kalloc((size_t)n * sizeof(lint));
    if (!infos) return eir_kerr(ctx, "_linalg_check_errors: out of memory");
    for (int64_t k = 0; k < n; k++) {
        int64_t v = creal(flat_get(t, k));
        infos[k] = v < -INT_MAX ? -INT_MAX : v > INT_MAX ? INT_MAX : (lint)v;
    }
    int rc = check_infos(ctx, sarg(a, na, 1, "linalg"), infos, n, barg(a, na, 2, false));
    eir_kfree(infos);
    return rc;
}

/* ======================================================================
 * products of several matrices: linalg_matmul, linalg_multi_dot, chain_matmul
 * (through nn.c's matmul / mm kernels, so every dtype they take works)
 * ====================================================================== */

static eir_kernel_fn nn_kernel(const char *op) {
    for (const eir_kernel_entry *e = eir_kernels_nn; e->op; e++)
        if (!strcmp(e->op, op)) return e->fn;
    return NULL;
}

/* linalg_matmul(self, other): an alias of matmul */
static int k_linalg_matmul(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    eir_kernel_fn f = nn_kernel("aten.matmul.default");
    return f ? f(a, na, out, no, ctx) : eir_kerr(ctx, "linalg.matmul: no matmul kernel");
}

typedef struct chain {
    const eir_tview *m[64]; /* the operands as matrices */
    int64_t p[65];          /* m[i] is p[i] x p[i+1] */
    int split[64][64];      /* torch's order of products for m[i..j] */
    void *blocks[64];
    int nblocks;
    eir_kernel_fn mm;
    eir_kctx *ctx;
} chain;

/* the product m[i..j] into dst (a p[i] x p[j+1] view) */
static int chain_mul(chain *c, int i, int j, eir_tview *dst) {
    eir_tview parts[2];
    int lo[2] = {i, c->split[i][j] + 1}, hi[2] = {c->split[i][j], j};
    for (int q = 0; q < 2; q++) {
        if (lo[q] == hi[q]) { parts[q] = *c->m[lo[q]]; continue; }
        eir_tview *v = &parts[q];
        memset(v, 0, sizeof *v);
        v->dtype = dst->dtype;
        v->rank = 2;
        v->sizes[0] = c->p[lo[q]];
        v->sizes[1] = c->p[hi[q] + 1];
        v->strides[0] = v->sizes[1];
        v->strides[1] = 1;
        v->data = eir_kalloc((size_t)(v->sizes[0] * v->sizes[1] > 0 ? v->sizes[0] * v->sizes[1] : 1) * eir_elsize(dst->dtype));
        if (!v->data) return eir_kerr(c->ctx, "linalg.multi_dot: out of memory");
        c->blocks[c->nblocks++] = v->data;
        if (chain_mul(c, lo[q], hi[q], v)) return -1;
    }
    eir_karg a[2] = {{.kind = EIR_KA_TENSOR, .t = &parts[0]}, {.kind = EIR_KA_TENSOR, .t = &parts[1]}};
    return c->mm(a, 2, dst, 1, c->ctx);
}

/* torch's multi_dot: the first and last operands may be vectors; two or
 * three operands in the cheaper of the two orders, more by the matrix-chain
 * dynamic program */
static int chain_impl(eir_kctx *ctx, const char *api, const eir_karg *list, eir_tview *out, bool vec_ends) {
    if (list->kind != EIR_KA_TENSORS) return eir_kerr(ctx, "%s: expected a list of tensors", api);
    int n = (int)list->n;
    if (n == 0 || (vec_ends && n < 2)) return eir_kerr(ctx, "%s(): expected at least 2 tensors but got %d", api, n);
    if (n > 64) return eir_kerr(ctx, "%s: at most 64 operands are supported", api);
    chain *c = eir_kcalloc(1, sizeof *c);
    if (!c) return eir_kerr(ctx, "%s: out of memory", api);
    c->ctx = ctx;
    c->mm = nn_kernel("aten.mm.default");
    eir_tview ends[2];
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        const eir_tview *t = list->ts[i];
        if (!t) { rc = eir_kerr(ctx, "%s: tensor %d is None", api, i); break; }
        if (t->dtype != list->ts[0]->dtype)
            rc = eir_kerr(ctx, "%s(): all tensors must have be the same dtype but tensor 0 is %s and tensor %d %s", api, dname(list->ts[0]->dtype), i, dname(t->dtype));
        else if (vec_ends && t->rank == 1 && (i == 0 || i == n - 1) && n > 1) {
            eir_tview *v = &ends[i == 0 ? 0 : 1];
            *v = *t;
            v->rank = 2;
            if (i == 0) { v->sizes[0] = 1; v->strides[0] = 1; v->sizes[1] = t->sizes[0]; v->strides[1] = t->strides[0]; }
            else { v->sizes[1] = 1; v->strides[1] = 1; }
            c->m[i] = v;
        } else if (t->rank != 2)
            rc = eir_kerr(ctx, "%s(): tensor %d must be 2D but got %dD", api, i, t->rank);
        else c->m[i] = t;
        if (!rc) {
            c->p[i] = c->m[i]->sizes[0];
            if (i > 0 && c->m[i - 1]->sizes[1] != c->m[i]->sizes[0])
                rc = eir_kerr(ctx, "%s(): tensors %d and %d with shapes [%lld, %lld] and [%lld, %lld] cannot be multiplied", api, i - 1, i,
                              (long long)c->m[i - 1]->sizes[0], (long long)c->m[i - 1]->sizes[1], (long long)c->m[i]->sizes[0], (long long)c->m[i]->sizes[1]);
        }
    }
    if (!rc) {
        c->p[n] = c->m[n - 1]->sizes[1];
        /* the result as a p[0] x p[n] matrix over out's storage */
        eir_tview o = *out;
        bool v0 = vec_ends && list->ts[0]->rank == 1, v1 = vec_ends && list->ts[n - 1]->rank == 1;
        int32_t want_rank = 2 - v0 - v1;
        if (out->rank != want_rank || (want_rank >= 1 && out->sizes[0] != (v0 ? c->p[n] : c->p[0])) || (want_rank == 2 && out->sizes[1] != c->p[n]))
            rc = eir_kerr(ctx, "%s: the output's recorded shape does not match the product", api);
        else {
            o.rank = 2;
            o.sizes[0] = c->p[0];
            o.sizes[1] = c->p[n];
            o.strides[0] = v0 ? 1 : out->strides[0];
            o.strides[1] = v1 ? 1 : out->strides[want_rank - 1];
            if (n == 1) { /* chain_matmul of one matrix: a copy */
                eir_iter it;
                const eir_tview *ops[2] = {&o, c->m[0]};
                eir_iter_init(&it, 2, o.sizes, 2, ops);
                char *pp[2];
                int64_t len;
                size_t es = eir_elsize(o.dtype);
                while (eir_iter_next(&it, pp, &len))
                    for (int64_t k = 0; k < len; k++) memcpy(pp[0] + k * it.inner_stride[0], pp[1] + k * it.inner_stride[1], es);
            } else {
                if (n == 3) { /* (AB)C unless A(BC) is cheaper, as torch */
                    double cost1 = (double)c->p[0] * (double)c->p[2] * (double)(c->p[1] + c->p[3]);
                    double cost2 = (double)c->p[1] * (double)c->p[3] * (double)(c->p[0] + c->p[2]);
                    c->split[0][2] = cost1 > cost2 ? 0 : 1;
                    c->split[1][2] = 1;
                    c->split[0][1] = 0;
                } else { /* the matrix-chain order: cost[i][j] over chains m[i..j] */
                    static _Thread_local double cost[64][64];
                    for (int i = 0; i < n; i++) cost[i][i] = 0;
                    for (int l = 1; l < n; l++)
                        for (int i = 0; i + l < n; i++) {
                            int j = i + l;
                            cost[i][j] = INFINITY;
                            for (int k = i; k < j; k++) {
                                double q = cost[i][k] + cost[k + 1][j] + (double)c->p[i] * (double)c->p[k + 1] * (double)c->p[j + 1];
                                if (q < cost[i][j]) { cost[i][j] = q; c->split[i][j] = k; }
                            }
                        }
                }
                rc = c->mm ? chain_mul(c, 0, n - 1, &o) : eir_kerr(ctx, "%s: no mm kernel", api);
            }
        }
    }
    for (int i = 0; i < c->nblocks; i++) eir_kfree(c->blocks[i]);
    eir_kfree(c);
    return rc;
}
/* linalg_multi_dot(Tensor[] tensors) */
static int k_linalg_multi_dot(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || no < 1) return eir_kerr(ctx, "multi_dot: expected a list of tensors");
    return chain_impl(ctx, "multi_dot", &a[0], &out[0], true);
}
/* chain_matmul(Tensor[] matrices) */
static int k_chain_matmul(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || no < 1) return eir_kerr(ctx, "chain_matmul: expected a list of tensors");
    return chain_impl(ctx, "chain_matmul", &a[0], &out[0], false);
}

/* frobenius_norm.dim(self, int[1] dim, keepdim=False): the 2-norm over dim */
static int k_frobenius_norm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "frobenius_norm", a, na, 1, no, 1)) return -1;
    bool mask[EIR_MAX_RANK];
    if (dims_mask(ctx, "frobenius_norm", na > 1 ? &a[1] : NULL, a[0].t->rank, mask)) return -1;
    return eir_vector_norm(ctx, "linalg.vector_norm", a[0].t, 2, mask, barg(a, na, 2, false), &out[0]);
}
/* nuclear_norm(self, keepdim=False) over dims (0, 1); nuclear_norm.dim(self, int[2] dim, keepdim=False) */
static int k_nuclear_norm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "nuclear_norm", a, na, 1, no, 1)) return -1;
    if (a[0].t->rank != 2) return eir_kerr(ctx, "Expected a tensor with 2 dimensions, but got a tensor with %d dimension%s instead.", a[0].t->rank, a[0].t->rank == 1 ? "" : "s");
    return mnorm_impl(ctx, a[0].t, ORD_NUC, 0, 0, 1, barg(a, na, 1, false), 0, &out[0]);
}
static int k_nuclear_norm_dim(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_tensors(ctx, "nuclear_norm", a, na, 1, no, 1)) return -1;
    int64_t d0 = -2, d1 = -1;
    if (two_dims(ctx, na > 1 ? &a[1] : NULL, &d0, &d1)) return -1;
    return mnorm_impl(ctx, a[0].t, ORD_NUC, 0, d0, d1, barg(a, na, 2, false), 0, &out[0]);
}

/* ======================================================================
 * conjugating views, materialized
 * ====================================================================== */

/* torch's conj() and mH are views with a lazy conjugate bit, which strides
 * cannot express; the runtime runs them as copies through these kernels
 * (real inputs: plain copies). swap: also transpose the last two dims. */
static int conj_copy(eir_kctx *ctx, const char *api, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, bool swap) {
    if (need_tensors(ctx, api, a, na, 1, no, 1)) return -1;
    eir_tview x = *a[0].t;
    if (swap && x.rank >= 2) {
        int32_t r = x.rank;
        int64_t s = x.sizes[r - 1], st = x.strides[r - 1];
        x.sizes[r - 1] = x.sizes[r - 2]; x.strides[r - 1] = x.strides[r - 2];
        x.sizes[r - 2] = s; x.strides[r - 2] = st;
    }
    bool ok = x.rank == out[0].rank && x.dtype == out[0].dtype;
    for (int32_t d = 0; ok && d < x.rank; d++) ok = x.sizes[d] == out[0].sizes[d];
    if (!ok) return eir_kerr(ctx, "%s: the output's recorded shape or dtype does not match the input", api);
    bool cx = eir_is_complex(x.dtype);
    size_t es = eir_elsize(x.dtype);
    eir_iter it;
    const eir_tview *ops[2] = {&out[0], &x};
    eir_iter_init(&it, x.rank, x.sizes, 2, ops);
    char *p[2];
    int64_t len;
    while (eir_iter_next(&it, p, &len))
        for (int64_t k = 0; k < len; k++) {
            char *d = p[0] + k * it.inner_stride[0];
            const char *sp = p[1] + k * it.inner_stride[1];
            if (!cx) { memcpy(d, sp, es); continue; }
            double re, im;
            eir_load_c128(sp, x.dtype, &re, &im);
            eir_store_c128(d, x.dtype, re, -im);
        }
    return 0;
}
/* _conj(self), conj(self), _conj_physical(self) */
static int k_conj(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) { return conj_copy(ctx, "conj", a, na, out, no, false); }
/* mH(self), adjoint(self), H(self) */
static int k_mH(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) { return conj_copy(ctx, "mH", a, na, out, no, true); }

const eir_kernel_entry eir_kernels_linalg[] = {
    {"aten._linalg_det.default", k__linalg_det},
    {"aten.linalg_det.default", k_linalg_det},
    {"aten.det.default", k_linalg_det},
    {"aten._linalg_slogdet.default", k__linalg_slogdet},
    {"aten.linalg_slogdet.default", k_linalg_slogdet},
    {"aten.slogdet.default", k_linalg_slogdet},
    {"aten.logdet.default", k_logdet},
    {"aten.linalg_inv.default", k_linalg_inv},
    {"aten.inverse.default", k_linalg_inv},
    {"aten.linalg_inv_ex.default", k_linalg_inv_ex},
    {"aten.linalg_solve.default", k_linalg_solve},
    {"aten.linalg_solve_ex.default", k_linalg_solve_ex},
    {"aten._linalg_solve_ex.default", k__linalg_solve_ex},
    {"aten.linalg_lu_factor_ex.default", k_linalg_lu_factor_ex},
    {"aten.linalg_lu_factor.default", k_linalg_lu_factor},
    {"aten._lu_with_info.default", k__lu_with_info},
    {"aten.linalg_lu.default", k_linalg_lu},
    {"aten.lu_unpack.default", k_lu_unpack},
    {"aten.linalg_lu_solve.default", k_linalg_lu_solve},
    {"aten.lu_solve.default", k_lu_solve},
    {"aten.linalg_solve_triangular.default", k_linalg_solve_triangular},
    {"aten.triangular_solve.default", k_triangular_solve},
    {"aten.linalg_cholesky_ex.default", k_linalg_cholesky_ex},
    {"aten.linalg_cholesky.default", k_linalg_cholesky},
    {"aten.cholesky.default", k_cholesky},
    {"aten.cholesky_inverse.default", k_cholesky_inverse},
    {"aten.cholesky_solve.default", k_cholesky_solve},
    {"aten.geqrf.default", k_geqrf},
    {"aten.linalg_qr.default", k_linalg_qr},
    {"aten.qr.default", k_qr},
    {"aten.linalg_householder_product.default", k_householder_product},
    {"aten.orgqr.default", k_householder_product},
    {"aten.ormqr.default", k_ormqr},
    {"aten.linalg_eigh.default", k_linalg_eigh},
    {"aten._linalg_eigh.default", k__linalg_eigh},
    {"aten.linalg_eigvalsh.default", k_linalg_eigvalsh},
    {"aten.linalg_eig.default", k_linalg_eig},
    {"aten.linalg_eigvals.default", k_linalg_eigvals},
    {"aten.linalg_svd.default", k_linalg_svd},
    {"aten._linalg_svd.default", k__linalg_svd},
    {"aten.svd.default", k_svd},
    {"aten.linalg_svdvals.default", k_linalg_svdvals},
    {"aten.linalg_pinv.atol_rtol_tensor", k_linalg_pinv_atol_rtol},
    {"aten.linalg_pinv.atol_rtol_float", k_linalg_pinv_atol_rtol},
    {"aten.linalg_pinv.default", k_linalg_pinv_rcond},
    {"aten.linalg_pinv.rcond_tensor", k_linalg_pinv_rcond},
    {"aten.pinverse.default", k_pinverse},
    {"aten.linalg_matrix_rank.atol_rtol_tensor", k_matrix_rank_atol_rtol},
    {"aten.linalg_matrix_rank.atol_rtol_float", k_matrix_rank_atol_rtol},
    {"aten.linalg_matrix_rank.default", k_matrix_rank_tol},
    {"aten.linalg_matrix_rank.tol_tensor", k_matrix_rank_tol},
    {"aten.linalg_norm.default", k_linalg_norm},
    {"aten.linalg_norm.ord_str", k_linalg_norm_str},
    {"aten.linalg_matrix_norm.default", k_linalg_matrix_norm},
    {"aten.linalg_matrix_norm.str_ord", k_linalg_matrix_norm_str},
    {"aten.linalg_cond.default", k_linalg_cond},
    {"aten.linalg_cond.p_str", k_linalg_cond_str},
    {"aten.linalg_matrix_power.default", k_linalg_matrix_power},
    {"aten.matrix_power.default", k_linalg_matrix_power},
    {"aten.matrix_exp.default", k_matrix_exp},
    {"aten.linalg_matrix_exp.default", k_matrix_exp},
    {"aten.linalg_tensorinv.default", k_linalg_tensorinv},
    {"aten.linalg_tensorsolve.default", k_linalg_tensorsolve},
    {"aten.linalg_vander.default", k_linalg_vander},
    {"aten.linalg_ldl_factor_ex.default", k_linalg_ldl_factor_ex},
    {"aten.linalg_ldl_factor.default", k_linalg_ldl_factor},
    {"aten.linalg_ldl_solve.default", k_linalg_ldl_solve},
    {"aten._linalg_check_errors.default", k__linalg_check_errors},
    {"aten.linalg_matmul.default", k_linalg_matmul},
    {"aten.linalg_multi_dot.default", k_linalg_multi_dot},
    {"aten.chain_matmul.default", k_chain_matmul},
    {"aten.frobenius_norm.dim", k_frobenius_norm},
    {"aten.nuclear_norm.default", k_nuclear_norm},
    {"aten.nuclear_norm.dim", k_nuclear_norm_dim},
    {"aten._conj.default", k_conj},
    {"aten.conj.default", k_conj},
    {"aten._conj_physical.default", k_conj},
    {"aten.mH.default", k_mH},
    {"aten.adjoint.default", k_mH},
    {"aten.H.default", k_mH},
    {"aten.matrix_H.default", k_mH},
    {NULL, NULL},
};
