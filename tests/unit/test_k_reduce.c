/* test_k_reduce.c — the reduction / softmax / normalization / sort kernels
 * (src/kernels/reduce.c) against straightforward double-precision
 * references written here, on random shapes up to rank 4 (negative and
 * multiple dims, keepdim, transposed inputs and outputs, empty and 0-d
 * tensors, every dtype the op takes), plus values and error messages
 * pasted from torch 2.13. */
#include "base/cmplx.h" /* complex.h, and CMPLX for clang */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "base/pool.h"
#include "kernels/kutil.h"
#include "kernels/tables.h"

/* ---- harness -------------------------------------------------------------- */

static eir_kernel_fn K(const char *name) {
    for (const eir_kernel_entry *e = eir_kernels_reduce; e->op; e++)
        if (strcmp(e->op, name) == 0) return e->fn;
    fprintf(stderr, "no kernel %s\n", name);
    return NULL;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static int64_t rint_(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }
static double runif(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0; }

/* Tensors own their buffer (freed by tfree). perm: physical dim order
 * (NULL: row-major); a permuted layout makes a non-contiguous view. */
typedef struct tensor { eir_tview v; void *buf; } tensor;

static tensor tnew(eir_dtype d, int32_t rank, const int64_t *sizes, bool transposed) {
    tensor t;
    memset(&t, 0, sizeof t);
    t.v.dtype = d;
    t.v.rank = rank;
    int64_t n = 1;
    for (int32_t i = 0; i < rank; i++) { t.v.sizes[i] = sizes[i]; n *= sizes[i]; }
    /* transposed: strides laid out with dims in reverse order */
    int64_t s = 1;
    for (int32_t k = 0; k < rank; k++) {
        int32_t i = transposed ? k : rank - 1 - k;
        t.v.strides[i] = s;
        s *= sizes[i] > 0 ? sizes[i] : 1;
    }
    t.buf = calloc((size_t)(n > 0 ? n : 1), eir_elsize(d));
    t.v.data = t.buf;
    return t;
}
static void tfree(tensor *t) { free(t->buf); t->buf = NULL; }

static int64_t numel(const eir_tview *v) { return eir_tview_numel(v); }
/* multi-index of the k-th element in row-major order */
static void unravel(const eir_tview *v, int64_t k, int64_t *idx) {
    for (int32_t d = v->rank - 1; d >= 0; d--) { idx[d] = k % v->sizes[d]; k /= v->sizes[d]; }
}
static double getf(const eir_tview *v, const int64_t *idx) { return eir_load_f64(eir_tview_at(v, idx), v->dtype); }
static int64_t geti(const eir_tview *v, const int64_t *idx) { return eir_load_i64(eir_tview_at(v, idx), v->dtype); }
static double getf_lin(const eir_tview *v, int64_t k) { int64_t idx[EIR_MAX_RANK]; unravel(v, k, idx); return getf(v, idx); }
static int64_t geti_lin(const eir_tview *v, int64_t k) { int64_t idx[EIR_MAX_RANK]; unravel(v, k, idx); return geti(v, idx); }
static void setf_lin(eir_tview *v, int64_t k, double x) { int64_t idx[EIR_MAX_RANK]; unravel(v, k, idx); eir_store_f64(eir_tview_at(v, idx), v->dtype, x); }

static void fill_random(eir_tview *v, double lo, double hi) {
    int64_t n = numel(v);
    for (int64_t k = 0; k < n; k++) {
        double x;
        if (eir_is_floating(v->dtype)) x = runif(lo, hi);
        else if (v->dtype == EIR_BOOL) x = (double)(rnd() & 1);
        else if (v->dtype == EIR_U8) x = (double)rint_(0, 255);
        else x = (double)rint_((int64_t)lo * 10, (int64_t)hi * 10);
        setf_lin(v, k, x);
    }
}

static eir_karg A_T(const eir_tview *t) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSOR; a.t = t; return a; }
static eir_karg A_NONE(void) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_NONE; return a; }
static eir_karg A_INT(int64_t i) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_INT; a.i = i; a.s.kind = EIR_SC_INT; a.s.i = i; a.s.f = (double)i; return a; }
static eir_karg A_BOOL(bool b) { eir_karg a = A_INT(b); a.kind = EIR_KA_BOOL; a.s.kind = EIR_SC_BOOL; return a; }
static eir_karg A_F(double f) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_FLOAT; a.f = f; a.s.kind = EIR_SC_FLOAT; a.s.f = f; return a; }
static eir_karg A_SF(double f) { eir_karg a = A_F(f); a.kind = EIR_KA_SCALAR; return a; }
static eir_karg A_DT(eir_dtype d) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_DTYPE; a.i = d; return a; }
static eir_karg A_INTS(const int64_t *v, uint32_t n) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_INTS; a.ints = v; a.n = n; return a; }

static char errbuf[512];
static int call(const char *op, const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout) {
    eir_kctx ctx = {.err = errbuf, .errlen = sizeof errbuf, .nthreads = 1};
    errbuf[0] = 0;
    eir_kernel_fn f = K(op);
    if (!f) return -2;
    return f(args, nargs, out, nout, &ctx);
}

static double tol_for(eir_dtype d) {
    switch (d) {
    case EIR_F16: return 2e-3;
    case EIR_BF16: return 1.6e-2;
    case EIR_F32: return 2e-5;
    case EIR_F64: return 1e-11;
    default: return 0;
    }
}
static bool close_to(double got, double want, double tol) {
    if (isnan(want)) return isnan(got);
    if (isinf(want)) return got == want;
    return fabs(got - want) <= tol * (1 + fabs(want));
}

/* ---- random reductions ---------------------------------------------------- */

static const eir_dtype FLOATS[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16};
static const eir_dtype ALL[] = {EIR_F32, EIR_F64, EIR_F16, EIR_BF16, EIR_I32, EIR_I64, EIR_I8, EIR_U8, EIR_I16, EIR_BOOL};

typedef enum { O_SUM, O_MEAN, O_PROD, O_AMAX, O_AMIN, O_VAR, O_STD, O_LSE, O_NORM, O_ANY, O_ALL, O_ARGMAX, O_MAXDIM, O_VARMEAN, O_NOPS } op_t;

/* Reference: reduce x over mask into per-slot accumulators. */
static void ref_reduce(op_t op, const eir_tview *x, const bool *mask, double param, int64_t nslots, double *res,
                       double *res2, int64_t *ires) {
    int64_t n = numel(x), cnt = 1;
    for (int32_t d = 0; d < x->rank; d++) if (mask[d]) cnt *= x->sizes[d];
    double *s = calloc((size_t)nslots + 1, sizeof *s), *s2 = calloc((size_t)nslots + 1, sizeof *s2);
    int64_t *first = calloc((size_t)nslots + 1, sizeof *first);
    uint64_t *ip = calloc((size_t)nslots + 1, sizeof *ip);
    int64_t *pos = calloc((size_t)nslots + 1, sizeof *pos);
    bool *seen = calloc((size_t)nslots + 1, sizeof *seen);
    bool integral = !eir_is_floating(x->dtype);
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t j = 0; j < nslots; j++) pos[j] = 0;
        for (int64_t k = 0; k < n; k++) {
            int64_t idx[EIR_MAX_RANK], slot = 0;
            unravel(x, k, idx);
            for (int32_t d = 0; d < x->rank; d++) if (!mask[d]) slot = slot * x->sizes[d] + idx[d];
            double v = getf(x, idx);
            int64_t iv = geti(x, idx);
            int64_t rp = pos[slot]++;
            if (pass == 0) {
                switch (op) {
                case O_SUM: case O_MEAN: case O_VAR: case O_STD: case O_VARMEAN: s[slot] += v; ip[slot] += (uint64_t)iv; break;
                case O_PROD:
                    if (!seen[slot]) { s[slot] = 1; ip[slot] = 1; }
                    s[slot] *= v; ip[slot] *= (uint64_t)iv; break;
                case O_AMAX: case O_ARGMAX: case O_MAXDIM: case O_AMIN: {
                    bool mx = op != O_AMIN;
                    if (!seen[slot]) { s[slot] = v; first[slot] = rp; }
                    else if (!isnan(s[slot]) && (isnan(v) || (mx ? v > s[slot] : v < s[slot]))) { s[slot] = v; first[slot] = rp; }
                    break;
                }
                case O_LSE: if (!seen[slot]) s[slot] = -INFINITY; if (v > s[slot]) s[slot] = v; break;
                case O_NORM: s[slot] += pow(fabs(v), param); break;
                case O_ANY: if (v != 0) s[slot] = 1; break;
                case O_ALL: if (!seen[slot]) s[slot] = 1; if (v == 0) s[slot] = 0; break;
                default: break;
                }
                seen[slot] = true;
            } else {
                if (op == O_VAR || op == O_STD || op == O_VARMEAN) { double m = s[slot] / (double)cnt; s2[slot] += (v - m) * (v - m); }
                if (op == O_LSE) s2[slot] += exp(v - s[slot]);
            }
        }
    }
    for (int64_t j = 0; j < nslots; j++) {
        switch (op) {
        case O_SUM: res[j] = s[j]; ires[j] = (int64_t)ip[j]; break;
        case O_PROD: res[j] = cnt ? s[j] : 1; ires[j] = cnt ? (int64_t)ip[j] : 1; break;
        case O_MEAN: res[j] = s[j] / (double)cnt; break;
        case O_VAR: case O_STD: case O_VARMEAN: {
            double div = (double)cnt - param;
            double var = (cnt ? s2[j] : NAN) / (div > 0 ? div : 0);
            res[j] = op == O_STD ? sqrt(var) : var;
            if (res2) res2[j] = s[j] / (double)cnt;
            break;
        }
        case O_AMAX: case O_AMIN: case O_ARGMAX: case O_MAXDIM: res[j] = s[j]; ires[j] = first[j]; break;
        case O_LSE: res[j] = cnt ? log(s2[j]) + s[j] : -INFINITY; break;
        case O_NORM: res[j] = pow(s[j], 1.0 / param); break;
        case O_ANY: case O_ALL: res[j] = cnt ? s[j] : op == O_ALL; break;
        default: break;
        }
        (void)integral;
    }
    free(s); free(s2); free(first); free(ip); free(pos); free(seen);
}

static const char *opname[] = {"sum", "mean", "prod", "amax", "amin", "var", "std", "logsumexp", "norm", "any", "all", "argmax", "max.dim", "var_mean"};

static void random_reduction(op_t op, int trial) {
    /* dtype */
    eir_dtype xd;
    bool float_only = op == O_MEAN || op == O_VAR || op == O_STD || op == O_VARMEAN || op == O_NORM || op == O_LSE;
    if (float_only) xd = FLOATS[rnd() % 4];
    else xd = ALL[rnd() % 10];
    if (op == O_ARGMAX && xd == EIR_BOOL) xd = EIR_I32;
    /* shape */
    int32_t rank = (int32_t)rint_(0, 4);
    int64_t sizes[EIR_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) sizes[d] = rint_(1, 5);
    bool allow_empty = op != O_AMAX && op != O_AMIN && op != O_ARGMAX && op != O_MAXDIM;
    if (rank && allow_empty && rnd() % 8 == 0) sizes[rnd() % (uint64_t)rank] = 0;
    bool transposed = rnd() & 1;
    tensor x = tnew(xd, rank, sizes, transposed);
    if (op == O_PROD) fill_random(&x.v, 0.5, 1.5);
    else if (op == O_LSE) fill_random(&x.v, -30, 30);
    else fill_random(&x.v, -3, 3);
    if (eir_is_floating(xd) && (op == O_AMAX || op == O_ARGMAX || op == O_MAXDIM) && numel(&x.v) && rnd() % 5 == 0)
        setf_lin(&x.v, rint_(0, numel(&x.v) - 1), NAN);
    /* dims: a random subset, each given negative half of the time */
    int64_t dims[EIR_MAX_RANK];
    uint32_t nd = 0;
    bool mask[EIR_MAX_RANK] = {false};
    bool single = op == O_ARGMAX || op == O_MAXDIM;
    for (int32_t d = 0; d < rank; d++)
        if (rnd() % 2 && !(single && nd == 1)) { dims[nd++] = (rnd() & 1) ? d - rank : d; mask[d] = true; }
    if (single && nd == 0) { dims[nd++] = rank ? rank - 1 : 0; if (rank) mask[rank - 1] = true; }
    if (nd == 0 && op != O_ANY && op != O_ALL) for (int32_t d = 0; d < rank; d++) mask[d] = true; /* [] = all */
    if (nd == 0 && (op == O_ANY || op == O_ALL)) for (int32_t d = 0; d < rank; d++) mask[d] = true; /* .default */
    if (single && rank == 0) for (int32_t d = 0; d < EIR_MAX_RANK; d++) mask[d] = false;
    /* a reduction over a zero-size dim is fine for these ops; skip when dims excluded for selection ops */
    bool keepdim = rnd() & 1;
    /* output */
    eir_dtype od = xd;
    if ((op == O_SUM || op == O_PROD) && !eir_is_floating(xd)) od = EIR_I64;
    if (op == O_ANY || op == O_ALL) od = xd == EIR_U8 ? EIR_U8 : EIR_BOOL;
    if (op == O_ARGMAX) od = EIR_I64;
    int64_t osz[EIR_MAX_RANK], nslots = 1;
    int32_t orank = 0;
    for (int32_t d = 0; d < rank; d++) {
        if (!mask[d]) { osz[orank++] = sizes[d]; nslots *= sizes[d]; }
        else if (keepdim) osz[orank++] = 1;
    }
    tensor o = tnew(od, orank, osz, rnd() & 1), o2 = tnew(EIR_I64, orank, osz, false);
    if (op == O_VARMEAN) { tfree(&o2); o2 = tnew(od, orank, osz, rnd() & 1); }
    double corr = (double)rint_(0, 2), p = (double)rint_(1, 4) * 0.75;
    eir_karg a[6];
    uint32_t na = 0;
    a[na++] = A_T(&x.v);
    const char *kname = NULL;
    eir_tview outs[2] = {o.v, o2.v};
    uint32_t nout = 1;
    switch (op) {
    case O_SUM: kname = "aten.sum.dim_IntList"; a[na++] = nd || rnd() % 2 ? A_INTS(dims, nd) : A_NONE(); a[na++] = A_BOOL(keepdim); a[na++] = A_NONE(); break;
    case O_MEAN: kname = "aten.mean.dim"; a[na++] = A_INTS(dims, nd); a[na++] = A_BOOL(keepdim); a[na++] = A_NONE(); break;
    case O_PROD:
        if (nd == 1) { kname = "aten.prod.dim_int"; a[na++] = A_INT(dims[0]); a[na++] = A_BOOL(keepdim); a[na++] = A_NONE(); }
        else { kname = "aten.prod.default"; a[na++] = A_NONE(); for (int32_t d = 0; d < rank; d++) mask[d] = true;
               orank = 0; nslots = 1; tfree(&o); o = tnew(od, 0, osz, false); outs[0] = o.v; }
        break;
    case O_AMAX: kname = "aten.amax.default"; a[na++] = A_INTS(dims, nd); a[na++] = A_BOOL(keepdim); break;
    case O_AMIN: kname = "aten.amin.default"; a[na++] = A_INTS(dims, nd); a[na++] = A_BOOL(keepdim); break;
    case O_VAR: kname = "aten.var.correction"; a[na++] = A_INTS(dims, nd); a[na++] = A_SF(corr); a[na++] = A_BOOL(keepdim); break;
    case O_STD: kname = "aten.std.dim"; a[na++] = A_INTS(dims, nd); a[na++] = A_BOOL(corr != 0); a[na++] = A_BOOL(keepdim); corr = corr != 0; break;
    case O_VARMEAN: kname = "aten.var_mean.correction"; a[na++] = nd ? A_INTS(dims, nd) : A_NONE(); a[na++] = A_SF(corr); a[na++] = A_BOOL(keepdim); nout = 2; break;
    case O_LSE: kname = "aten.logsumexp.default"; a[na++] = A_INTS(dims, nd); a[na++] = A_BOOL(keepdim); break;
    case O_NORM: kname = "aten.linalg_vector_norm.default"; a[na++] = A_SF(p); a[na++] = A_INTS(dims, nd); a[na++] = A_BOOL(keepdim); a[na++] = A_NONE(); break;
    case O_ANY: case O_ALL:
        kname = op == O_ANY ? "aten.any.dims" : "aten.all.dims";
        a[na++] = nd ? A_INTS(dims, nd) : A_NONE(); a[na++] = A_BOOL(keepdim); break;
    case O_ARGMAX: kname = "aten.argmax.default"; a[na++] = A_INT(dims[0]); a[na++] = A_BOOL(keepdim); break;
    case O_MAXDIM: kname = "aten.max.dim"; a[na++] = A_INT(dims[0]); a[na++] = A_BOOL(keepdim); nout = 2; break;
    default: break;
    }
    int rc = call(kname, a, na, outs, nout);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  trial %d %s: %s\n", trial, opname[op], errbuf);
    double *want = calloc((size_t)nslots + 1, sizeof *want), *want2 = calloc((size_t)nslots + 1, sizeof *want2);
    int64_t *iwant = calloc((size_t)nslots + 1, sizeof *iwant);
    double param = op == O_NORM ? p : corr;
    ref_reduce(op, &x.v, mask, param, nslots, want, want2, iwant);
    int bad = 0;
    double tol = tol_for(od);
    if (op == O_SUM || op == O_MEAN || op == O_VAR || op == O_VARMEAN || op == O_NORM) tol *= 2;
    for (int64_t j = 0; rc == 0 && j < nslots; j++) {
        bool ok;
        if (op == O_ARGMAX) ok = geti_lin(&o.v, j) == iwant[j];
        else if (op == O_MAXDIM) {
            double g = getf_lin(&o.v, j);
            ok = (isnan(want[j]) ? isnan(g) : g == want[j]) && geti_lin(&o2.v, j) == iwant[j];
        } else if (op == O_AMAX || op == O_AMIN) { double g = getf_lin(&o.v, j); ok = isnan(want[j]) ? isnan(g) : g == want[j]; }
        else if (!eir_is_floating(od)) ok = (op == O_ANY || op == O_ALL) ? geti_lin(&o.v, j) == (int64_t)want[j] : geti_lin(&o.v, j) == iwant[j];
        else {
            ok = close_to(getf_lin(&o.v, j), want[j], tol);
            if (op == O_VARMEAN) ok = ok && close_to(getf_lin(&o2.v, j), want2[j], tol);
        }
        if (!ok && bad++ < 3)
            fprintf(stderr, "  trial %d %s dtype %s rank %d slot %lld: got %.9g want %.9g (int %lld)\n", trial, opname[op],
                    eir_dtype_name(xd), rank, (long long)j, getf_lin(&o.v, j), want[j], (long long)iwant[j]);
    }
    CHECK(bad == 0);
    free(want); free(want2); free(iwant);
    tfree(&x); tfree(&o); tfree(&o2);
}

/* ---- random per-line ops: cumsum, cumprod, softmax, log_softmax, sort, topk -- */

static int cmp_pair(double a, int64_t ia, double b, int64_t ib, bool desc) {
    bool na = isnan(a), nb = isnan(b);
    if (na != nb) return desc ? (na ? -1 : 1) : (na ? 1 : -1);
    if (!na && a != b) return desc ? (a > b ? -1 : 1) : (a < b ? -1 : 1);
    return ia < ib ? -1 : 1;
}

static void random_lines(int which, int trial) {
    /* which: 0 cumsum 1 cumprod 2 softmax 3 log_softmax 4 sort 5 topk */
    eir_dtype xd = which >= 2 && which <= 3 ? FLOATS[rnd() % 4] : ALL[rnd() % 10];
    int32_t rank = (int32_t)rint_(0, 4);
    int64_t sizes[EIR_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) sizes[d] = rint_(1, 6);
    if (rank && rnd() % 8 == 0) sizes[rnd() % (uint64_t)rank] = 0;
    tensor x = tnew(xd, rank, sizes, rnd() & 1);
    fill_random(&x.v, which == 1 ? 0.5 : which == 2 || which == 3 ? -40 : -3, which == 1 ? 1.5 : which == 2 || which == 3 ? 40 : 3);
    if (eir_is_floating(xd) && which >= 4 && numel(&x.v) && rnd() % 3 == 0) setf_lin(&x.v, rint_(0, numel(&x.v) - 1), NAN);
    int32_t dim = rank ? (int32_t)rint_(0, rank - 1) : 0;
    int64_t dimarg = (rnd() & 1) ? dim - (rank ? rank : 1) : dim;
    int64_t len = rank ? sizes[dim] : 1;
    int64_t k = which == 5 ? (rank ? rint_(0, len) : 1) : len;
    int64_t osz[EIR_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) osz[d] = d == dim ? k : sizes[d];
    eir_dtype od = xd;
    if (which <= 1 && !eir_is_floating(xd)) od = EIR_I64;
    tensor o = tnew(od, rank, osz, rnd() & 1), oi = tnew(EIR_I64, rank, osz, rnd() & 1);
    eir_tview outs[2] = {o.v, oi.v};
    bool desc = rnd() & 1;
    eir_karg a[5];
    uint32_t na = 0;
    a[na++] = A_T(&x.v);
    const char *kname;
    switch (which) {
    case 0: kname = "aten.cumsum.default"; a[na++] = A_INT(dimarg); a[na++] = A_NONE(); break;
    case 1: kname = "aten.cumprod.default"; a[na++] = A_INT(dimarg); a[na++] = A_NONE(); break;
    case 2: kname = "aten._softmax.default"; a[na++] = A_INT(dimarg); a[na++] = A_BOOL(false); break;
    case 3: kname = "aten.log_softmax.int"; a[na++] = A_INT(dimarg); a[na++] = A_NONE(); break;
    case 4: kname = "aten.sort.stable"; a[na++] = A_BOOL(true); a[na++] = A_INT(dimarg); a[na++] = A_BOOL(desc); break;
    default: kname = "aten.topk.default"; a[na++] = A_INT(k); a[na++] = A_INT(dimarg); a[na++] = A_BOOL(desc); a[na++] = A_BOOL(true); break;
    }
    int rc = call(kname, a, na, outs, which >= 4 ? 2 : 1);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  lines trial %d %s: %s\n", trial, kname, errbuf);
    /* reference per line */
    int64_t nlines = len ? numel(&x.v) / len : 0;
    double *v = malloc((size_t)(len + 1) * sizeof *v);
    int64_t *ord = malloc((size_t)(len + 1) * sizeof *ord);
    int bad = 0;
    double tol = tol_for(od);
    for (int64_t l = 0; rc == 0 && l < nlines; l++) {
        int64_t idx[EIR_MAX_RANK] = {0}, rem = l;
        for (int32_t d = rank - 1; d >= 0; d--) { if (d == dim) continue; idx[d] = rem % sizes[d]; rem /= sizes[d]; }
        for (int64_t i = 0; i < len; i++) { if (rank) idx[dim] = i; v[i] = getf(&x.v, idx); ord[i] = i; }
        int64_t ival[EIR_MAX_RANK];
        memcpy(ival, idx, sizeof ival);
        if (which == 0 || which == 1) {
            double acc = which;
            uint64_t iacc = (uint64_t)which;
            for (int64_t i = 0; i < len; i++) {
                if (rank) idx[dim] = i;
                acc = which ? acc * v[i] : acc + v[i];
                uint64_t iv = (uint64_t)geti(&x.v, idx);
                iacc = which ? iacc * iv : iacc + iv;
                bool ok = eir_is_floating(od) ? close_to(getf(&o.v, idx), acc, tol * 2) : geti(&o.v, idx) == (int64_t)iacc;
                if (!ok && bad++ < 3) fprintf(stderr, "  %s %s: got %g want %g\n", kname, eir_dtype_name(xd), getf(&o.v, idx), acc);
            }
        } else if (which == 2 || which == 3) {
            double m = -INFINITY, s = 0;
            for (int64_t i = 0; i < len; i++) if (v[i] > m) m = v[i];
            for (int64_t i = 0; i < len; i++) s += exp(v[i] - m);
            for (int64_t i = 0; i < len; i++) {
                if (rank) idx[dim] = i;
                double want = which == 2 ? exp(v[i] - m) / s : v[i] - m - log(s);
                double g = getf(&o.v, idx);
                bool ok = which == 2 ? fabs(g - want) <= tol * 2 : close_to(g, want, tol * 2);
                if (!ok && bad++ < 3) fprintf(stderr, "  %s %s: got %.9g want %.9g\n", kname, eir_dtype_name(xd), g, want);
            }
        } else {
            bool largest = which == 5 ? desc : desc; /* topk: largest flag reused as desc */
            /* insertion sort by (value, index) */
            for (int64_t i = 1; i < len; i++)
                for (int64_t j = i; j > 0 && cmp_pair(v[ord[j]], ord[j], v[ord[j - 1]], ord[j - 1], largest) < 0; j--) {
                    int64_t t = ord[j]; ord[j] = ord[j - 1]; ord[j - 1] = t;
                }
            for (int64_t i = 0; i < k; i++) {
                if (rank) ival[dim] = i;
                double g = getf(&o.v, ival), w = v[ord[i]];
                bool ok = (isnan(w) ? isnan(g) : g == w) && geti(&oi.v, ival) == ord[i];
                if (!ok && bad++ < 3)
                    fprintf(stderr, "  %s %s pos %lld: got %g@%lld want %g@%lld\n", kname, eir_dtype_name(xd), (long long)i, g,
                            (long long)geti(&oi.v, ival), w, (long long)ord[i]);
            }
        }
    }
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "  lines trial %d failed (%s, rank %d, dim %d)\n", trial, kname, rank, dim);
    free(v); free(ord);
    tfree(&x); tfree(&o); tfree(&oi);
}

/* ---- random normalization -------------------------------------------------- */

static void random_layer_norm(int trial) {
    eir_dtype xd = FLOATS[rnd() % 4];
    int32_t rank = (int32_t)rint_(1, 4), nn = (int32_t)rint_(1, rank);
    int64_t sizes[EIR_MAX_RANK], msz[EIR_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) sizes[d] = rint_(1, 6);
    int32_t axis = rank - nn;
    for (int32_t d = 0; d < rank; d++) msz[d] = d < axis ? sizes[d] : 1;
    tensor x = tnew(xd, rank, sizes, rnd() & 1), y = tnew(xd, rank, sizes, rnd() & 1);
    tensor m = tnew(xd, rank, msz, false), r = tnew(xd, rank, msz, false);
    tensor w = tnew(xd, nn, sizes + axis, rnd() & 1), b = tnew(EIR_F32, nn, sizes + axis, false);
    fill_random(&x.v, -2, 3);
    fill_random(&w.v, 0.5, 2);
    fill_random(&b.v, -1, 1);
    bool use_w = rnd() % 4, use_b = rnd() % 4;
    eir_karg a[5] = {A_T(&x.v), A_INTS(sizes + axis, (uint32_t)nn), use_w ? A_T(&w.v) : A_NONE(), use_b ? A_T(&b.v) : A_NONE(), A_F(1e-5)};
    eir_tview outs[3] = {y.v, m.v, r.v};
    int rc = call("aten.native_layer_norm.default", a, 5, outs, 3);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "  layer_norm: %s\n", errbuf);
    int64_t N = 1, M = 1;
    for (int32_t d = axis; d < rank; d++) N *= sizes[d];
    for (int32_t d = 0; d < axis; d++) M *= sizes[d];
    int bad = 0;
    double tol = tol_for(xd) * 4;
    for (int64_t i = 0; rc == 0 && i < M; i++) {
        double s = 0, s2 = 0;
        for (int64_t j = 0; j < N; j++) s += getf_lin(&x.v, i * N + j);
        double mean = s / (double)N;
        for (int64_t j = 0; j < N; j++) { double dd = getf_lin(&x.v, i * N + j) - mean; s2 += dd * dd; }
        double rstd = 1 / sqrt(s2 / (double)N + 1e-5);
        if (!close_to(getf_lin(&m.v, i), mean, tol) || !close_to(getf_lin(&r.v, i), rstd, tol)) bad++;
        for (int64_t j = 0; j < N; j++) {
            double want = (getf_lin(&x.v, i * N + j) - mean) * rstd * (use_w ? getf_lin(&w.v, j) : 1) + (use_b ? getf_lin(&b.v, j) : 0);
            if (fabs(getf_lin(&y.v, i * N + j) - want) > tol * (1 + fabs(want)) * 4 && bad++ < 3)
                fprintf(stderr, "  layer_norm trial %d %s: got %g want %g\n", trial, eir_dtype_name(xd), getf_lin(&y.v, i * N + j), want);
        }
    }
    CHECK(bad == 0);
    tfree(&x); tfree(&y); tfree(&m); tfree(&r); tfree(&w); tfree(&b);
}

/* float32 rows as transformers have them (contiguous, 768 and 1000 wide, and 13: a tail past
 * the partial sums' lanes), with and without weight and bias: within float32 rounding of a
 * float64 reference, mean and rstd too; the same bits when the rows split over 2 threads */
static void long_layer_norm(void) {
    static const int64_t widths[] = {768, 1000, 13};
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
        for (int affine = 0; affine < 4; affine++) {
            int64_t N = widths[wi], M = 37, sizes[2] = {M, N}, ms[2] = {M, 1};
            tensor x = tnew(EIR_F32, 2, sizes, false), y = tnew(EIR_F32, 2, sizes, false), y2 = tnew(EIR_F32, 2, sizes, false);
            tensor m = tnew(EIR_F32, 2, ms, false), r = tnew(EIR_F32, 2, ms, false);
            tensor w = tnew(EIR_F32, 1, &N, false), b = tnew(EIR_F32, 1, &N, false);
            fill_random(&x.v, -3, 5);
            fill_random(&w.v, 0.5, 2);
            fill_random(&b.v, -1, 1);
            bool use_w = affine & 1, use_b = affine & 2;
            eir_karg a[5] = {A_T(&x.v), A_INTS(&N, 1), use_w ? A_T(&w.v) : A_NONE(), use_b ? A_T(&b.v) : A_NONE(), A_F(1e-5)};
            eir_tview outs[3] = {y.v, m.v, r.v};
            CHECK(call("aten.native_layer_norm.default", a, 5, outs, 3) == 0);
            const float *xf = x.buf, *yf = y.buf, *wf = w.buf, *bf = b.buf;
            int bad = 0;
            for (int64_t i = 0; i < M; i++) {
                double s = 0, s2 = 0;
                for (int64_t j = 0; j < N; j++) s += xf[i * N + j];
                double mean = s / (double)N;
                for (int64_t j = 0; j < N; j++) s2 += (xf[i * N + j] - mean) * (xf[i * N + j] - mean);
                double rstd = 1 / sqrt(s2 / (double)N + 1e-5);
                if (fabs(((float *)m.buf)[i] - mean) > 1e-6 * (1 + fabs(mean)) ||
                    fabs(((float *)r.buf)[i] - rstd) > 2e-7 * rstd)
                    bad++;
                for (int64_t j = 0; j < N; j++) {
                    double want = (xf[i * N + j] - mean) * rstd * (use_w ? wf[j] : 1) + (use_b ? bf[j] : 0);
                    if (fabs(yf[i * N + j] - want) > 4e-7 * (1 + fabs(want))) bad++;
                }
            }
            if (bad) fprintf(stderr, "  layer_norm width %lld affine %d: %d values off\n", (long long)N, affine, bad);
            CHECK(bad == 0);
            eir_pool *pool = eir_pool_create(2);
            eir_pool *prev = eir_pool_enter(pool);
            eir_tview outs2[3] = {y2.v, m.v, r.v};
            CHECK(call("aten.native_layer_norm.default", a, 5, outs2, 3) == 0);
            eir_pool_leave(prev);
            eir_pool_free(pool);
            CHECK(memcmp(y.buf, y2.buf, (size_t)(M * N) * sizeof(float)) == 0);
            tfree(&x); tfree(&y); tfree(&y2); tfree(&m); tfree(&r); tfree(&w); tfree(&b);
        }
}

/* float32 softmax / log_softmax lines as attention has them (64 and 1000 wide, and 7: a tail
 * past the partial sums' lanes), with -inf (masked) entries, a line of large values, a line
 * with a NaN (all NaN, as torch) and a line entirely -inf (NaN, as torch): within a few
 * float32 ulps of a float64 reference, the same bits on 2 threads */
static void long_softmax(void) {
    static const int64_t widths[] = {64, 1000, 7};
    for (size_t wi = 0; wi < sizeof widths / sizeof *widths; wi++)
        for (int lg = 0; lg < 2; lg++) {
            int64_t N = widths[wi], M = 11, sizes[2] = {M, N};
            tensor x = tnew(EIR_F32, 2, sizes, false), y = tnew(EIR_F32, 2, sizes, false), y2 = tnew(EIR_F32, 2, sizes, false);
            fill_random(&x.v, -6, 6);
            float *xf = x.buf;
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++)
                    if (j > i + 2) xf[i * N + j] = -INFINITY;          /* causal-style mask */
            for (int64_t j = 0; j < N; j++) xf[5 * N + j] = 80.0f + (float)(j % 7);  /* large values */
            xf[6 * N + N / 2] = NAN;
            for (int64_t j = 0; j < N; j++) xf[7 * N + j] = -INFINITY;
            eir_karg a[3] = {A_T(&x.v), A_INT(-1), A_BOOL(false)};
            const char *op = lg ? "aten._log_softmax.default" : "aten._softmax.default";
            CHECK(call(op, a, 3, &y.v, 1) == 0);
            const float *yf = y.buf;
            int bad = 0;
            for (int64_t i = 0; i < M; i++) {
                double m = -INFINITY, s = 0;
                bool nan = false;
                for (int64_t j = 0; j < N; j++) {
                    m = fmax(m, xf[i * N + j]);
                    nan |= isnan(xf[i * N + j]);
                }
                for (int64_t j = 0; j < N; j++) s += exp((double)xf[i * N + j] - m);
                for (int64_t j = 0; j < N; j++) {
                    double want = nan || isinf(m) ? NAN : lg ? (double)xf[i * N + j] - m - log(s) : exp((double)xf[i * N + j] - m) / s;
                    double got = yf[i * N + j];
                    /* x - max is rounded to float (as in torch): exp's relative error grows with it */
                    double d = fabs((double)xf[i * N + j] - m), rel = 4e-7 + 6e-8 * (isinf(d) ? 0 : d);
                    bool ok = isnan(want) ? isnan(got)
                                          : (isinf(want) ? got == want : fabs(got - want) <= rel * fabs(want) + (lg ? 2e-6 : 1e-38));
                    if (!ok && bad++ < 3)
                        fprintf(stderr, "  %s width %lld line %lld col %lld: got %.9g want %.9g\n", op, (long long)N, (long long)i,
                                (long long)j, got, want);
                }
            }
            CHECK(bad == 0);
            eir_pool *pool = eir_pool_create(2);
            eir_pool *prev = eir_pool_enter(pool);
            CHECK(call(op, a, 3, &y2.v, 1) == 0);
            eir_pool_leave(prev);
            eir_pool_free(pool);
            CHECK(memcmp(y.buf, y2.buf, (size_t)(M * N) * sizeof(float)) == 0);
            tfree(&x); tfree(&y); tfree(&y2);
        }
}

static void random_group_norm(int trial) {
    eir_dtype xd = FLOATS[rnd() % 4];
    int32_t rank = (int32_t)rint_(2, 4);
    int64_t G = rint_(1, 3), sizes[EIR_MAX_RANK];
    sizes[0] = rint_(1, 3);
    sizes[1] = G * rint_(1, 3);
    for (int32_t d = 2; d < rank; d++) sizes[d] = rint_(1, 4);
    int64_t N = sizes[0], C = sizes[1], HW = 1;
    for (int32_t d = 2; d < rank; d++) HW *= sizes[d];
    int64_t ms[2] = {N, G};
    tensor x = tnew(xd, rank, sizes, rnd() & 1), y = tnew(xd, rank, sizes, rnd() & 1);
    tensor m = tnew(xd, 2, ms, false), r = tnew(xd, 2, ms, rnd() & 1), w = tnew(xd, 1, &C, false), b = tnew(xd, 1, &C, false);
    fill_random(&x.v, -2, 2); fill_random(&w.v, 0.5, 2); fill_random(&b.v, -1, 1);
    eir_karg a[8] = {A_T(&x.v), A_T(&w.v), A_T(&b.v), A_INT(N), A_INT(C), A_INT(HW), A_INT(G), A_F(1e-5)};
    eir_tview outs[3] = {y.v, m.v, r.v};
    int rc = call("aten.native_group_norm.default", a, 8, outs, 3);
    CHECK(rc == 0);
    int bad = 0;
    double tol = tol_for(xd) * 4;
    int64_t gs = C / G * HW;
    for (int64_t n = 0; rc == 0 && n < N; n++)
        for (int64_t g = 0; g < G; g++) {
            int64_t base = n * C * HW + g * gs;
            double s = 0, s2 = 0;
            for (int64_t i = 0; i < gs; i++) s += getf_lin(&x.v, base + i);
            double mean = s / (double)gs;
            for (int64_t i = 0; i < gs; i++) { double dd = getf_lin(&x.v, base + i) - mean; s2 += dd * dd; }
            double rstd = 1 / sqrt(s2 / (double)gs + 1e-5);
            if (!close_to(getf_lin(&m.v, n * G + g), mean, tol) || !close_to(getf_lin(&r.v, n * G + g), rstd, tol)) bad++;
            for (int64_t i = 0; i < gs; i++) {
                int64_t c = g * (C / G) + i / HW;
                double want = (getf_lin(&x.v, base + i) - mean) * rstd * getf_lin(&w.v, c) + getf_lin(&b.v, c);
                if (fabs(getf_lin(&y.v, base + i) - want) > tol * (1 + fabs(want)) * 4) bad++;
            }
        }
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "  group_norm trial %d failed\n", trial);
    tfree(&x); tfree(&y); tfree(&m); tfree(&r); tfree(&w); tfree(&b);
}

static void random_batch_norm(int trial) {
    eir_dtype xd = FLOATS[rnd() % 4];
    int32_t rank = (int32_t)rint_(2, 4);
    int64_t sizes[EIR_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) sizes[d] = rint_(1, 4);
    int64_t C = sizes[1], zero = 0;
    tensor x = tnew(xd, rank, sizes, rnd() & 1), y = tnew(xd, rank, sizes, rnd() & 1);
    tensor w = tnew(EIR_F32, 1, &C, false), b = tnew(EIR_F32, 1, &C, false), rm = tnew(EIR_F32, 1, &C, false), rv = tnew(EIR_F32, 1, &C, false);
    tensor e1 = tnew(EIR_F32, 1, &zero, false), e2 = tnew(EIR_F32, 1, &zero, false);
    fill_random(&x.v, -2, 2); fill_random(&w.v, 0.5, 2); fill_random(&b.v, -1, 1); fill_random(&rm.v, -1, 1); fill_random(&rv.v, 0.2, 3);
    eir_karg a[7] = {A_T(&x.v), A_T(&w.v), A_T(&b.v), A_T(&rm.v), A_T(&rv.v), A_F(0.1), A_F(1e-5)};
    eir_tview outs[3] = {y.v, e1.v, e2.v};
    int rc = call("aten._native_batch_norm_legit_no_training.default", a, 7, outs, 3);
    CHECK(rc == 0);
    int bad = 0;
    double tol = tol_for(xd) * 4;
    int64_t n = numel(&x.v);
    for (int64_t k = 0; rc == 0 && k < n; k++) {
        int64_t idx[EIR_MAX_RANK];
        unravel(&x.v, k, idx);
        int64_t c = idx[1];
        double want = (getf(&x.v, idx) - getf_lin(&rm.v, c)) / sqrt(getf_lin(&rv.v, c) + 1e-5) * getf_lin(&w.v, c) + getf_lin(&b.v, c);
        if (fabs(getf(&y.v, idx) - want) > tol * (1 + fabs(want))) bad++;
    }
    CHECK(bad == 0);
    if (bad) fprintf(stderr, "  batch_norm trial %d failed\n", trial);
    tfree(&x); tfree(&y); tfree(&w); tfree(&b); tfree(&rm); tfree(&rv); tfree(&e1); tfree(&e2);
}

/* ---- values and errors pasted from torch 2.13 ------------------------------ */

static tensor vec_f32(const double *v, int64_t n) {
    tensor t = tnew(EIR_F32, 1, &n, false);
    for (int64_t i = 0; i < n; i++) ((float *)t.buf)[i] = (float)v[i];
    return t;
}

static void test_torch_values(void) {
    int64_t none[1] = {0};
    (void)none;
    /* argmax / argmin / max.dim with NaN and ties:
     * x = [1, nan, 3, nan, 0]: argmax 1, argmin 1, max.dim (nan, 1);
     * y = [2, 5, 5, 1, 1]: argmax 1, argmin 3, min.dim (1, 3) */
    {
        double xv[5] = {1, NAN, 3, NAN, 0}, yv[5] = {2, 5, 5, 1, 1};
        tensor x = vec_f32(xv, 5), y = vec_f32(yv, 5), o = tnew(EIR_I64, 0, NULL, false), v = tnew(EIR_F32, 0, NULL, false);
        eir_karg a[3] = {A_T(&x.v), A_NONE(), A_BOOL(false)};
        CHECK(call("aten.argmax.default", a, 3, &o.v, 1) == 0 && *(int64_t *)o.buf == 1);
        CHECK(call("aten.argmin.default", a, 3, &o.v, 1) == 0 && *(int64_t *)o.buf == 1);
        eir_tview vo[2] = {v.v, o.v};
        a[1] = A_INT(0);
        CHECK(call("aten.max.dim", a, 3, vo, 2) == 0 && isnan(*(float *)v.buf) && *(int64_t *)o.buf == 1);
        a[0] = A_T(&y.v);
        a[1] = A_NONE();
        CHECK(call("aten.argmax.default", a, 3, &o.v, 1) == 0 && *(int64_t *)o.buf == 1);
        CHECK(call("aten.argmin.default", a, 3, &o.v, 1) == 0 && *(int64_t *)o.buf == 3);
        a[1] = A_INT(-1);
        CHECK(call("aten.min.dim", a, 3, vo, 2) == 0 && *(float *)v.buf == 1 && *(int64_t *)o.buf == 3);
        eir_karg m[1] = {A_T(&x.v)};
        CHECK(call("aten.max.default", m, 1, &v.v, 1) == 0 && isnan(*(float *)v.buf));
        CHECK(call("aten.amin.default", (eir_karg[]){A_T(&x.v), A_INTS(NULL, 0), A_BOOL(false)}, 3, &v.v, 1) == 0 && isnan(*(float *)v.buf));
        tfree(&x); tfree(&y); tfree(&o); tfree(&v);
    }
    /* var with correction 0 / 1 / 2.5 of [1,2,3,4,10]: 10, 12.5, 20; rows of [[1,2,3],[4,5,7]] */
    {
        double xv[5] = {1, 2, 3, 4, 10};
        tensor x = vec_f32(xv, 5), o = tnew(EIR_F32, 0, NULL, false);
        double corr[3] = {0, 1, 2.5}, want[3] = {10, 12.5, 20};
        for (int i = 0; i < 3; i++) {
            eir_karg a[4] = {A_T(&x.v), A_NONE(), A_SF(corr[i]), A_BOOL(false)};
            CHECK(call("aten.var.correction", a, 4, &o.v, 1) == 0 && *(float *)o.buf == (float)want[i]);
        }
        eir_karg a[4] = {A_T(&x.v), A_NONE(), A_NONE(), A_BOOL(false)};
        CHECK(call("aten.var.correction", a, 4, &o.v, 1) == 0 && *(float *)o.buf == 12.5f);
        int64_t s2[2] = {2, 3}, two = 2, three = 3, d1 = 1, d0 = 0;
        tensor m = tnew(EIR_F32, 2, s2, false), r = tnew(EIR_F32, 1, &two, false), r3 = tnew(EIR_F32, 1, &three, false);
        float mv[6] = {1, 2, 3, 4, 5, 7};
        memcpy(m.buf, mv, sizeof mv);
        eir_karg b[4] = {A_T(&m.v), A_INTS(&d1, 1), A_SF(0), A_BOOL(false)};
        CHECK(call("aten.var.correction", b, 4, &r.v, 1) == 0 && ((float *)r.buf)[0] == 0.6666666865348816f && ((float *)r.buf)[1] == 1.5555555820465088f);
        eir_karg c[4] = {A_T(&m.v), A_INTS(&d0, 1), A_SF(1), A_BOOL(false)};
        CHECK(call("aten.std.correction", c, 4, &r3.v, 1) == 0 && fabsf(((float *)r3.buf)[2] - 2.8284270763397217f) < 3e-7f);
        eir_karg l[3] = {A_T(&m.v), A_INTS(&d1, 1), A_BOOL(false)};
        CHECK(call("aten.logsumexp.default", l, 3, &r.v, 1) == 0 && fabsf(((float *)r.buf)[0] - 3.4076058864593506f) < 4e-7f &&
              fabsf(((float *)r.buf)[1] - 7.169846057891846f) < 1e-6f);
        eir_karg nv[5] = {A_T(&m.v), A_SF(3.0), A_INTS(&d1, 1), A_BOOL(false), A_NONE()};
        CHECK(call("aten.linalg_vector_norm.default", nv, 5, &r.v, 1) == 0 && fabsf(((float *)r.buf)[0] - 3.301927328109741f) < 4e-7f &&
              fabsf(((float *)r.buf)[1] - 8.102839469909668f) < 1e-6f);
        /* correction larger than n: [1,2] c=2 -> inf, [1,1] c=2 -> nan */
        double pv[2] = {1, 2}, qv[2] = {1, 1};
        tensor p = vec_f32(pv, 2), q = vec_f32(qv, 2);
        eir_karg e[4] = {A_T(&p.v), A_NONE(), A_SF(2), A_BOOL(false)};
        CHECK(call("aten.var.correction", e, 4, &o.v, 1) == 0 && isinf(*(float *)o.buf));
        e[0] = A_T(&q.v);
        CHECK(call("aten.var.correction", e, 4, &o.v, 1) == 0 && isnan(*(float *)o.buf));
        tfree(&x); tfree(&o); tfree(&m); tfree(&r); tfree(&r3); tfree(&p); tfree(&q);
    }
    /* softmax / log_softmax of large values: torch float32 results */
    {
        double xv[3] = {1000, 1001, 1002};
        tensor x = vec_f32(xv, 3), o = tnew(EIR_F32, 1, (int64_t[]){3}, false);
        eir_karg a[3] = {A_T(&x.v), A_INT(0), A_BOOL(false)};
        const float sm[3] = {0.09003057330846786f, 0.2447284758090973f, 0.6652409434318542f};
        const float lsm[3] = {-2.4076058864593506f, -1.4076058864593506f, -0.40760594606399536f};
        CHECK(call("aten._softmax.default", a, 3, &o.v, 1) == 0);
        for (int i = 0; i < 3; i++) CHECK(fabsf(((float *)o.buf)[i] - sm[i]) <= 1e-7f);
        CHECK(call("aten._log_softmax.default", a, 3, &o.v, 1) == 0);
        for (int i = 0; i < 3; i++) CHECK(fabsf(((float *)o.buf)[i] - lsm[i]) <= 3e-7f);
        /* bf16: all three round to 1000 -> 0.333984375 each */
        tensor xb = tnew(EIR_BF16, 1, (int64_t[]){3}, false), ob = tnew(EIR_BF16, 1, (int64_t[]){3}, false);
        for (int i = 0; i < 3; i++) ((uint16_t *)xb.buf)[i] = eir_f32_to_bf16((float)xv[i]);
        a[0] = A_T(&xb.v);
        CHECK(call("aten._softmax.default", a, 3, &ob.v, 1) == 0 && eir_bf16_to_f32(((uint16_t *)ob.buf)[2]) == 0.333984375f);
        a[2] = A_BOOL(true);
        CHECK(call("aten._softmax.default", a, 3, &ob.v, 1) == -1);
        CHECK_STR(errbuf, "softmax with half to float conversion is not supported on CPU");
        /* rows of -inf give nan; [-inf, 1] log_softmax -> [-inf, 0] */
        double iv[2] = {-INFINITY, -INFINITY}, jv[2] = {-INFINITY, 1};
        tensor xi = vec_f32(iv, 2), xj = vec_f32(jv, 2), o2 = tnew(EIR_F32, 1, (int64_t[]){2}, false);
        eir_karg b[3] = {A_T(&xi.v), A_INT(-1), A_NONE()};
        CHECK(call("aten.softmax.int", b, 3, &o2.v, 1) == 0 && isnan(((float *)o2.buf)[0]) && isnan(((float *)o2.buf)[1]));
        b[0] = A_T(&xj.v);
        CHECK(call("aten.log_softmax.int", b, 3, &o2.v, 1) == 0 && isinf(((float *)o2.buf)[0]) && ((float *)o2.buf)[1] == 0);
        /* logsumexp: [-inf,-inf] -> -inf; [inf, 1] -> inf */
        tensor s0 = tnew(EIR_F32, 0, NULL, false);
        eir_karg l[3] = {A_T(&xi.v), A_INTS((int64_t[]){0}, 1), A_BOOL(false)};
        CHECK(call("aten.logsumexp.default", l, 3, &s0.v, 1) == 0 && *(float *)s0.buf == -INFINITY);
        ((float *)xj.buf)[0] = INFINITY;
        l[0] = A_T(&xj.v);
        CHECK(call("aten.logsumexp.default", l, 3, &s0.v, 1) == 0 && *(float *)s0.buf == INFINITY);
        /* softmax of an int tensor */
        tensor xl = tnew(EIR_I64, 1, (int64_t[]){3}, false), ol = tnew(EIR_I64, 1, (int64_t[]){3}, false);
        eir_karg c[3] = {A_T(&xl.v), A_INT(0), A_NONE()};
        CHECK(call("aten.softmax.int", c, 3, &ol.v, 1) == -1);
        CHECK_STR(errbuf, "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
        /* 0-d softmax is 1 */
        tensor z = tnew(EIR_F32, 0, NULL, false);
        *(float *)z.buf = 3;
        eir_karg d[3] = {A_T(&z.v), A_INT(-1), A_BOOL(false)};
        CHECK(call("aten._softmax.default", d, 3, &s0.v, 1) == 0 && *(float *)s0.buf == 1);
        tfree(&x); tfree(&o); tfree(&xb); tfree(&ob); tfree(&xi); tfree(&xj); tfree(&o2); tfree(&s0); tfree(&xl); tfree(&ol); tfree(&z);
    }
    /* layer_norm of a constant row (0.1 x 5): y 0, mean 0.1, rstd 316.227783203125;
     * [[1,2,3,4]] with weight [1,2,3,4], bias [0.5,0,0,0] */
    {
        int64_t s[2] = {1, 5}, s1[2] = {1, 1}, five = 5, four = 4, s4[2] = {1, 4};
        tensor x = tnew(EIR_F32, 2, s, false), y = tnew(EIR_F32, 2, s, false), m = tnew(EIR_F32, 2, s1, false), r = tnew(EIR_F32, 2, s1, false);
        for (int i = 0; i < 5; i++) ((float *)x.buf)[i] = 0.1f;
        eir_karg a[5] = {A_T(&x.v), A_INTS(&five, 1), A_NONE(), A_NONE(), A_F(1e-5)};
        eir_tview outs[3] = {y.v, m.v, r.v};
        CHECK(call("aten.native_layer_norm.default", a, 5, outs, 3) == 0);
        for (int i = 0; i < 5; i++) CHECK(((float *)y.buf)[i] == 0.0f);
        CHECK(*(float *)m.buf == 0.10000000149011612f);
        CHECK(*(float *)r.buf == 316.227783203125f);
        tensor x4 = tnew(EIR_F32, 2, s4, false), y4 = tnew(EIR_F32, 2, s4, false), w = tnew(EIR_F32, 1, &four, false), b = tnew(EIR_F32, 1, &four, false);
        for (int i = 0; i < 4; i++) { ((float *)x4.buf)[i] = (float)(i + 1); ((float *)w.buf)[i] = (float)(i + 1); ((float *)b.buf)[i] = i ? 0 : 0.5f; }
        eir_karg c[6] = {A_T(&x4.v), A_INTS(&four, 1), A_T(&w.v), A_T(&b.v), A_F(1e-5), A_BOOL(true)};
        CHECK(call("aten.layer_norm.default", c, 6, &y4.v, 1) == 0);
        const float want[4] = {-0.8416354656219482f, -0.8944236636161804f, 1.3416354656219482f, 5.366541862487793f};
        for (int i = 0; i < 4; i++) CHECK(fabsf(((float *)y4.buf)[i] - want[i]) <= 5e-7f);
        tfree(&x); tfree(&y); tfree(&m); tfree(&r); tfree(&x4); tfree(&y4); tfree(&w); tfree(&b);
    }
    /* group_norm of arange(12).reshape(1,4,3), 2 groups */
    {
        int64_t s[3] = {1, 4, 3}, s2[2] = {1, 2};
        tensor x = tnew(EIR_F32, 3, s, false), y = tnew(EIR_F32, 3, s, false), m = tnew(EIR_F32, 2, s2, false), r = tnew(EIR_F32, 2, s2, false);
        for (int i = 0; i < 12; i++) ((float *)x.buf)[i] = (float)i;
        eir_karg a[8] = {A_T(&x.v), A_NONE(), A_NONE(), A_INT(1), A_INT(4), A_INT(3), A_INT(2), A_F(1e-5)};
        eir_tview outs[3] = {y.v, m.v, r.v};
        CHECK(call("aten.native_group_norm.default", a, 8, outs, 3) == 0);
        CHECK(fabsf(((float *)y.buf)[0] + 1.4638476371765137f) < 3e-7f && fabsf(((float *)y.buf)[8] + 0.29276952147483826f) < 1e-7f);
        CHECK(fabsf(((float *)r.buf)[1] - 0.5855390429496765f) < 1e-7f && ((float *)m.buf)[1] == 8.5f);
        eir_karg g[6] = {A_T(&x.v), A_INT(3), A_NONE(), A_NONE(), A_F(1e-5), A_BOOL(true)};
        CHECK(call("aten.group_norm.default", g, 6, &y.v, 1) == -1);
        CHECK_STR(errbuf, "Expected number of channels in input to be divisible by num_groups, but got input of shape [1, 4, 3] and num_groups=3");
        tfree(&x); tfree(&y); tfree(&m); tfree(&r);
    }
    /* sort with NaN, -inf and ties (torch: desc [1,2,3,5,0,6,4], asc [4,0,6,5,2,3,1]); topk */
    {
        double xv[7] = {1, NAN, 3, 3, -INFINITY, 2, 1};
        tensor x = vec_f32(xv, 7), v = tnew(EIR_F32, 1, (int64_t[]){7}, false), i = tnew(EIR_I64, 1, (int64_t[]){7}, false);
        eir_tview outs[2] = {v.v, i.v};
        eir_karg a[3] = {A_T(&x.v), A_INT(-1), A_BOOL(true)};
        const int64_t wd[7] = {1, 2, 3, 5, 0, 6, 4}, wa[7] = {4, 0, 6, 5, 2, 3, 1};
        CHECK(call("aten.sort.default", a, 3, outs, 2) == 0 && memcmp(i.buf, wd, sizeof wd) == 0 && isnan(((float *)v.buf)[0]));
        a[2] = A_BOOL(false);
        CHECK(call("aten.sort.default", a, 3, outs, 2) == 0 && memcmp(i.buf, wa, sizeof wa) == 0 && ((float *)v.buf)[0] == -INFINITY);
        CHECK(call("aten.argsort.default", a, 3, &i.v, 1) == 0 && memcmp(i.buf, wa, sizeof wa) == 0);
        double tv[5] = {1, NAN, 3, 3, 2};
        tensor t = vec_f32(tv, 5), tvv = tnew(EIR_F32, 1, (int64_t[]){3}, false), ti = tnew(EIR_I64, 1, (int64_t[]){3}, false);
        eir_tview to[2] = {tvv.v, ti.v};
        eir_karg k[5] = {A_T(&t.v), A_INT(3), A_INT(-1), A_BOOL(true), A_BOOL(true)};
        const int64_t wl[3] = {1, 2, 3}, ws[3] = {0, 4, 2};
        CHECK(call("aten.topk.default", k, 5, to, 2) == 0 && memcmp(ti.buf, wl, sizeof wl) == 0);
        k[3] = A_BOOL(false);
        CHECK(call("aten.topk.default", k, 5, to, 2) == 0 && memcmp(ti.buf, ws, sizeof ws) == 0 && ((float *)tvv.buf)[2] == 3);
        k[1] = A_INT(6);
        CHECK(call("aten.topk.default", k, 5, to, 2) == -1);
        CHECK_STR(errbuf, "selected index k out of range");
        tfree(&x); tfree(&v); tfree(&i); tfree(&t); tfree(&tvv); tfree(&ti);
    }
    /* integer sums: int8 [100,100,100] -> 300 (int64), dtype=int8 -> 44; prod of 2^40 * 2^40 wraps to 0 */
    {
        tensor x = tnew(EIR_I8, 1, (int64_t[]){3}, false), o = tnew(EIR_I64, 0, NULL, false), o8 = tnew(EIR_I8, 0, NULL, false);
        for (int i = 0; i < 3; i++) ((int8_t *)x.buf)[i] = 100;
        eir_karg a[2] = {A_T(&x.v), A_NONE()};
        CHECK(call("aten.sum.default", a, 2, &o.v, 1) == 0 && *(int64_t *)o.buf == 300);
        a[1] = A_DT(EIR_I8);
        CHECK(call("aten.sum.default", a, 2, &o8.v, 1) == 0 && *(int8_t *)o8.buf == 44);
        tensor p = tnew(EIR_I64, 1, (int64_t[]){2}, false);
        ((int64_t *)p.buf)[0] = ((int64_t *)p.buf)[1] = (int64_t)1 << 40;
        eir_karg b[2] = {A_T(&p.v), A_NONE()};
        CHECK(call("aten.prod.default", b, 2, &o.v, 1) == 0 && *(int64_t *)o.buf == 0);
        /* f16 sum of ten 0.1 -> 1.0; bf16 mean of 0.1 -> 0.10009765625 */
        tensor h = tnew(EIR_F16, 1, (int64_t[]){10}, false), hb = tnew(EIR_BF16, 1, (int64_t[]){10}, false);
        tensor oh = tnew(EIR_F16, 0, NULL, false), ob = tnew(EIR_BF16, 0, NULL, false);
        for (int i = 0; i < 10; i++) { ((uint16_t *)h.buf)[i] = eir_f32_to_f16(0.1f); ((uint16_t *)hb.buf)[i] = eir_f32_to_bf16(0.1f); }
        eir_karg c[2] = {A_T(&h.v), A_NONE()};
        CHECK(call("aten.sum.default", c, 2, &oh.v, 1) == 0 && eir_f16_to_f32(*(uint16_t *)oh.buf) == 1.0f);
        c[0] = A_T(&hb.v);
        CHECK(call("aten.mean.default", c, 2, &ob.v, 1) == 0 && eir_bf16_to_f32(*(uint16_t *)ob.buf) == 0.10009765625f);
        /* mean of ints is an error; with dtype=f32 it works */
        c[0] = A_T(&x.v);
        CHECK(call("aten.mean.default", c, 2, &o.v, 1) == -1);
        CHECK_STR(errbuf, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Char");
        tensor of = tnew(EIR_F32, 0, NULL, false);
        c[1] = A_DT(EIR_F32);
        CHECK(call("aten.mean.default", c, 2, &of.v, 1) == 0 && *(float *)of.buf == 100.0f);
        /* cumprod [1.5, 2, -1, 0.5] -> [1.5, 3, -3, -1.5]; cumsum of bool -> int64 */
        double cv[4] = {1.5, 2, -1, 0.5};
        tensor cx = vec_f32(cv, 4), co = tnew(EIR_F32, 1, (int64_t[]){4}, false);
        eir_karg d[3] = {A_T(&cx.v), A_INT(0), A_NONE()};
        CHECK(call("aten.cumprod.default", d, 3, &co.v, 1) == 0 && ((float *)co.buf)[1] == 3 && ((float *)co.buf)[3] == -1.5f);
        tfree(&x); tfree(&o); tfree(&o8); tfree(&p); tfree(&h); tfree(&hb); tfree(&oh); tfree(&ob); tfree(&of); tfree(&cx); tfree(&co);
    }
}

static void test_errors_and_edges(void) {
    int64_t s03[2] = {0, 3}, three = 3, zero = 0;
    tensor e = tnew(EIR_F32, 2, s03, false), o3 = tnew(EIR_F32, 1, &three, false), o0 = tnew(EIR_F32, 1, &zero, false);
    tensor s = tnew(EIR_F32, 0, NULL, false), i3 = tnew(EIR_I64, 1, &three, false), si = tnew(EIR_I64, 0, NULL, false);
    int64_t d0 = 0, d1 = 1, d5 = 5, dup[2] = {0, -2};
    eir_karg a[3] = {A_T(&e.v), A_INTS(&d0, 1), A_BOOL(false)};
    CHECK(call("aten.amax.default", a, 3, &o3.v, 1) == -1);
    CHECK_STR(errbuf, "amax(): Expected reduction dim 0 to have non-zero size.");
    a[1] = A_INTS(&d1, 1);
    CHECK(call("aten.amax.default", a, 3, &o0.v, 1) == 0);
    a[1] = A_INTS(NULL, 0);
    CHECK(call("aten.amin.default", a, 3, &s.v, 1) == -1);
    CHECK_STR(errbuf, "amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
    eir_karg m[1] = {A_T(&e.v)};
    CHECK(call("aten.max.default", m, 1, &s.v, 1) == -1);
    CHECK_STR(errbuf, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
    eir_karg am[3] = {A_T(&e.v), A_NONE(), A_BOOL(false)};
    CHECK(call("aten.argmax.default", am, 3, &si.v, 1) == -1);
    CHECK_STR(errbuf, "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
    am[1] = A_INT(0);
    CHECK(call("aten.argmin.default", am, 3, &i3.v, 1) == -1);
    CHECK_STR(errbuf, "argmin(): Expected reduction dim 0 to have non-zero size.");
    eir_tview vo[2] = {o3.v, i3.v};
    CHECK(call("aten.max.dim", am, 3, vo, 2) == -1);
    CHECK_STR(errbuf, "max(): Expected reduction dim 0 to have non-zero size.");
    /* empty reductions: sum 0, prod 1, mean nan, logsumexp -inf, var nan */
    eir_karg r[4] = {A_T(&e.v), A_INTS(&d0, 1), A_BOOL(false), A_NONE()};
    CHECK(call("aten.sum.dim_IntList", r, 4, &o3.v, 1) == 0 && ((float *)o3.buf)[2] == 0);
    CHECK(call("aten.mean.dim", r, 4, &o3.v, 1) == 0 && isnan(((float *)o3.buf)[0]));
    CHECK(call("aten.logsumexp.default", r, 3, &o3.v, 1) == 0 && ((float *)o3.buf)[1] == -INFINITY);
    eir_karg p[4] = {A_T(&e.v), A_INT(0), A_BOOL(false), A_NONE()};
    CHECK(call("aten.prod.dim_int", p, 4, &o3.v, 1) == 0 && ((float *)o3.buf)[1] == 1);
    eir_karg v[4] = {A_T(&e.v), A_NONE(), A_NONE(), A_BOOL(false)};
    CHECK(call("aten.var.correction", v, 4, &s.v, 1) == 0 && isnan(*(float *)s.buf));
    /* bad dims */
    r[1] = A_INTS(&d5, 1);
    CHECK(call("aten.sum.dim_IntList", r, 4, &o3.v, 1) == -1);
    CHECK_STR(errbuf, "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
    r[1] = A_INTS(dup, 2);
    CHECK(call("aten.sum.dim_IntList", r, 4, &o3.v, 1) == -1);
    CHECK_STR(errbuf, "dim 0 appears multiple times in the list of dims");
    /* vector norm errors */
    eir_karg n[5] = {A_T(&e.v), A_SF(INFINITY), A_NONE(), A_BOOL(false), A_NONE()};
    CHECK(call("aten.linalg_vector_norm.default", n, 5, &s.v, 1) == -1);
    CHECK_STR(errbuf, "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not have an identity");
    n[1] = A_SF(-1.5);
    n[2] = A_INTS(&d0, 1);
    CHECK(call("aten.linalg_vector_norm.default", n, 5, &o3.v, 1) == -1);
    CHECK_STR(errbuf, "linalg.vector_norm cannot compute the -1.5 norm on the dimension 0because this dimension is empty and the operation does not have an identity");
    tensor li = tnew(EIR_I64, 1, &three, false);
    n[0] = A_T(&li.v);
    n[1] = A_SF(2);
    CHECK(call("aten.linalg_vector_norm.default", n, 5, &s.v, 1) == -1);
    CHECK_STR(errbuf, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long");
    eir_karg vi[4] = {A_T(&li.v), A_NONE(), A_NONE(), A_BOOL(false)};
    CHECK(call("aten.var.correction", vi, 4, &s.v, 1) == -1);
    CHECK_STR(errbuf, "std and var only support floating point and complex dtypes");
    tensor b = tnew(EIR_BOOL, 1, &three, false);
    eir_karg ab[3] = {A_T(&b.v), A_NONE(), A_BOOL(false)};
    CHECK(call("aten.argmax.default", ab, 3, &si.v, 1) == -1);
    CHECK_STR(errbuf, "argmax(): does not support bool input");
    /* any.dims with [] keeps every element (no reduction); bool any/all */
    int64_t s23[2] = {2, 3};
    tensor x = tnew(EIR_F32, 2, s23, true), ob = tnew(EIR_BOOL, 2, s23, false), b0 = tnew(EIR_BOOL, 0, NULL, false);
    ((float *)x.buf)[1] = 2;
    eir_karg ad[3] = {A_T(&x.v), A_INTS(NULL, 0), A_BOOL(false)};
    CHECK(call("aten.any.dims", ad, 3, &ob.v, 1) == 0);
    int cnt = 0;
    for (int i = 0; i < 6; i++) cnt += ((uint8_t *)ob.buf)[i];
    CHECK(cnt == 1);
    eir_karg ad2[1] = {A_T(&x.v)};
    CHECK(call("aten.all.default", ad2, 1, &b0.v, 1) == 0 && *(uint8_t *)b0.buf == 0);
    CHECK(call("aten.any.default", ad2, 1, &b0.v, 1) == 0 && *(uint8_t *)b0.buf == 1);
    eir_karg ae[1] = {A_T(&e.v)};
    CHECK(call("aten.all.default", ae, 1, &b0.v, 1) == 0 && *(uint8_t *)b0.buf == 1);
    CHECK(call("aten.any.default", ae, 1, &b0.v, 1) == 0 && *(uint8_t *)b0.buf == 0);
    /* batch_norm: running stats of the wrong size (training mode, test_k_misc checks its numerics)
     * and missing running stats in evaluation mode are errors */
    int64_t two = 2;
    tensor rm = tnew(EIR_F32, 1, &two, false), rm3 = tnew(EIR_F32, 1, &three, false), y = tnew(EIR_F32, 2, s23, false);
    int64_t s32[2] = {3, 2};
    tensor xb = tnew(EIR_F32, 2, s32, false), yb = tnew(EIR_F32, 2, s32, false);
    eir_karg bn[9] = {A_T(&xb.v), A_NONE(), A_NONE(), A_T(&rm3.v), A_T(&rm.v), A_BOOL(true), A_F(0.1), A_F(1e-5), A_BOOL(true)};
    CHECK(call("aten.batch_norm.default", bn, 9, &yb.v, 1) == -1);
    CHECK_STR(errbuf, "running_mean should contain 2 elements not 3");
    bn[3] = A_T(&rm.v);
    bn[5] = A_BOOL(false);
    for (int i = 0; i < 2; i++) ((float *)rm.buf)[i] = 1; /* mean 1, var 1 */
    for (int i = 0; i < 6; i++) ((float *)xb.buf)[i] = (float)i;
    CHECK(call("aten.batch_norm.default", bn, 9, &yb.v, 1) == 0 && fabsf(((float *)yb.buf)[5] - 4.0f / sqrtf(1 + 1e-5f)) < 1e-6f);
    bn[3] = A_NONE();
    eir_tview nbo[3] = {yb.v, o0.v, o0.v};
    CHECK(call("aten.native_batch_norm.default", bn, 8, nbo, 3) == -1);
    tfree(&e); tfree(&o3); tfree(&o0); tfree(&s); tfree(&i3); tfree(&si); tfree(&li); tfree(&b); tfree(&x); tfree(&ob); tfree(&b0);
    tfree(&rm); tfree(&rm3); tfree(&y); tfree(&xb); tfree(&yb);
}

/* Complex sum / mean / prod / var / cumsum over a transposed 3x4 tensor,
 * against naive double-complex references: the imaginary parts take part
 * (var's result is real: the mean squared distance to the mean). */
static void test_complex(void) {
    int64_t sz[2] = {3, 4}, s3[1] = {3}, s4[1] = {4};
    for (int c = 0; c < 2; c++) {
        eir_dtype dt = c ? EIR_C128 : EIR_C64, rt = c ? EIR_F64 : EIR_F32;
        double tol = c ? 1e-13 : 1e-5;
        tensor x = tnew(dt, 2, sz, true);
        double complex v[3][4];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 4; j++) {
                v[i][j] = CMPLX(runif(-2, 2), runif(-2, 2));
                int64_t idx[2] = {i, j};
                eir_store_c128(eir_tview_at(&x.v, idx), dt, creal(v[i][j]), cimag(v[i][j]));
                if (!c) v[i][j] = CMPLX((float)creal(v[i][j]), (float)cimag(v[i][j]));
            }
        int64_t d1[1] = {1};
        tensor o = tnew(dt, 1, s3, false), ov = tnew(rt, 1, s3, false), oc = tnew(dt, 2, sz, false);
        eir_karg sa[3] = {A_T(&x.v), A_INTS(d1, 1), A_BOOL(false)};
        const char *ops[3] = {"aten.sum.dim_IntList", "aten.mean.dim", "aten.prod.dim_int"};
        for (int k = 0; k < 3; k++) {
            if (k == 2) sa[1] = A_INT(1);
            CHECK(call(ops[k], sa, 3, &o.v, 1) == 0);
            for (int i = 0; i < 3; i++) {
                double complex w = k == 2 ? 1 : 0;
                for (int j = 0; j < 4; j++) w = k == 2 ? w * v[i][j] : w + v[i][j];
                if (k == 1) w /= 4;
                double re, im;
                int64_t idx[1] = {i};
                eir_load_c128(eir_tview_at(&o.v, idx), dt, &re, &im);
                CHECK(cabs(CMPLX(re, im) - w) <= tol * (1 + cabs(w)));
            }
        }
        eir_karg va[4] = {A_T(&x.v), A_INTS(d1, 1), A_NONE(), A_BOOL(false)};
        CHECK(call("aten.var.correction", va, 4, &ov.v, 1) == 0);
        for (int i = 0; i < 3; i++) {
            double complex m = 0;
            for (int j = 0; j < 4; j++) m += v[i][j] / 4;
            double ss = 0;
            for (int j = 0; j < 4; j++) ss += cabs(v[i][j] - m) * cabs(v[i][j] - m);
            int64_t idx[1] = {i};
            CHECK(close_to(getf(&ov.v, idx), ss / 3, tol));
        }
        eir_karg ca[3] = {A_T(&x.v), A_INT(-1), A_NONE()};
        CHECK(call("aten.cumsum.default", ca, 3, &oc.v, 1) == 0);
        for (int i = 0; i < 3; i++) {
            double complex w = 0;
            for (int j = 0; j < 4; j++) {
                w += v[i][j];
                double re, im;
                int64_t idx[2] = {i, j};
                eir_load_c128(eir_tview_at(&oc.v, idx), dt, &re, &im);
                CHECK(cabs(CMPLX(re, im) - w) <= tol * (1 + cabs(w)));
            }
        }
        /* products by the schoolbook formula, as torch: 1 * (inf + 0i) = inf + nan i (0 * inf), then
         * * (1 + 1i) = nan + nan i, where C's operator (Annex G) would recover an infinity */
        tensor p = tnew(dt, 1, s4, false), po = tnew(dt, 0, s4, false);
        const double pr[4] = {INFINITY, 1, 1, 1}, pi[4] = {0, 1, 0, 0};
        for (int j = 0; j < 4; j++) {
            int64_t idx[1] = {j};
            eir_store_c128(eir_tview_at(&p.v, idx), dt, pr[j], pi[j]);
        }
        eir_karg pa[2] = {A_T(&p.v), A_NONE()};
        CHECK(call("aten.prod.default", pa, 2, &po.v, 1) == 0);
        double re, im;
        eir_load_c128(po.v.data, dt, &re, &im);
        CHECK(isnan(re) && isnan(im));
        /* (2 + 1i) * (inf + 0i) = inf + inf i */
        int64_t i0[1] = {0}, i1[1] = {1};
        eir_store_c128(eir_tview_at(&p.v, i0), dt, 2, 1);
        eir_store_c128(eir_tview_at(&p.v, i1), dt, INFINITY, 0);
        p.v.sizes[0] = 2;
        CHECK(call("aten.prod.default", pa, 2, &po.v, 1) == 0);
        eir_load_c128(po.v.data, dt, &re, &im);
        CHECK(re == INFINITY && im == INFINITY);
        /* mean divides by (n, 0) as a complex number: an infinite real part makes the imaginary part NaN */
        int64_t sm[1] = {2};
        tensor mo = tnew(dt, 0, sm, false);
        eir_karg ma[2] = {A_T(&p.v), A_NONE()};
        CHECK(call("aten.mean.default", ma, 2, &mo.v, 1) == 0);
        eir_load_c128(mo.v.data, dt, &re, &im);
        CHECK(re == INFINITY && isnan(im));
        tfree(&mo);
        tfree(&x); tfree(&o); tfree(&ov); tfree(&oc); tfree(&p); tfree(&po);
    }
}

/* float16 / bfloat16 prod rounds every partial product to the dtype, as
 * torch does (1.1^7 in float16 is 1.943359375 in torch 2.13, where one final
 * rounding would give 1.9443359375); reference: the same recurrence */
static void test_prod_half(void) {
    int64_t s7[1] = {7}, s0[1] = {1};
    const eir_dtype dts[2] = {EIR_F16, EIR_BF16};
    for (int k = 0; k < 2; k++) {
        tensor x = tnew(dts[k], 1, s7, false), o = tnew(dts[k], 0, s0, false);
        double want = 1;
        for (int64_t i = 0; i < 7; i++) {
            int64_t at[1] = {i};
            eir_store_f64(eir_tview_at(&x.v, at), dts[k], 1.1 + 0.05 * (double)i);
            double v = getf(&x.v, at);
            unsigned char b[2];
            eir_store_f64(b, dts[k], (float)(want * v));
            want = eir_load_f64(b, dts[k]);
        }
        eir_karg a[2] = {A_T(&x.v), A_NONE()};
        CHECK(call("aten.prod.default", a, 2, &o.v, 1) == 0);
        CHECK(getf(&o.v, NULL) == want);
        tfree(&x); tfree(&o);
    }
    tensor h = tnew(EIR_F16, 1, s7, false), ho = tnew(EIR_F16, 0, s0, false);
    for (int64_t i = 0; i < 7; i++) { int64_t at[1] = {i}; eir_store_f64(eir_tview_at(&h.v, at), EIR_F16, 1.1); }
    eir_karg a[2] = {A_T(&h.v), A_NONE()};
    CHECK(call("aten.prod.default", a, 2, &ho.v, 1) == 0);
    CHECK(getf(&ho.v, NULL) == 1.943359375);
    tfree(&h); tfree(&ho);
}

int main(void) {
    int n = 0;
    for (const eir_kernel_entry *e = eir_kernels_reduce; e->op; e++) n++;
    CHECK(n >= 45);
    test_torch_values();
    test_errors_and_edges();
    test_complex();
    test_prod_half();
    for (int t = 0; t < 1500; t++) random_reduction((op_t)(t % O_NOPS), t);
    for (int t = 0; t < 600; t++) random_lines(t % 6, t);
    for (int t = 0; t < 60; t++) { random_layer_norm(t); random_group_norm(t); random_batch_norm(t); }
    long_layer_norm();
    long_softmax();
    return check_summary("test_k_reduce");
}
