/* reduce.c — kernel family for reductions (sum, mean, prod, max/min and
 * their arg/value forms, aminmax, any/all, var/std and their _mean forms,
 * nansum/nanmean, logsumexp, norms), scans (cumsum,
 * cumprod), softmax / log_softmax / _safe_softmax, normalization (layer, batch eval, group)
 * and ordering (sort, argsort, topk).
 *
 * Numerics: floating results are accumulated in double (torch accumulates
 * f16/bf16/f32 in float with cascade sums, and in double for f32 scans and
 * var); integer sums and products wrap in 64 bits as torch's int64
 * accumulation does. With an explicit `dtype=` the input is first converted
 * to that dtype element by element, as torch does. Values that a reduction
 * selects (max, min, sort, topk) are copied bit for bit.
 *
 * Shape plumbing: every reduction is described by a plan that splits the
 * input's dims into kept dims (iterated, mapped onto the output's dims with
 * or without keepdim) and reduced dims (whose element offsets are listed
 * once per call, in row-major order, so "first occurrence" means what it
 * means in torch). Temporary buffers live only for the call. */
#include <stdio.h>
#include <stdlib.h>

#include "../base/pool.h"
#include "fast.h"
#include "kutil.h"
#include "vmath.h"
#include "tables.h"

/* ---- small helpers ---------------------------------------------------- */

/* torch's ScalarType names, as they appear in its error messages. */
static const char *tname(eir_dtype d) { return eir_torch_dtype_name(d); }

static inline double ld(const char *p, eir_dtype d) {
    if (d == EIR_F32) return *(const float *)p;
    if (d == EIR_F64) return *(const double *)p;
    return eir_load_f64(p, d);
}

/* Round v to dtype `to` and back (torch's element-wise cast before a
 * reduction with dtype=). */
static inline double cast_f(double v, eir_dtype to) { return eir_round_f64(v, to); }
static inline int64_t cast_i(int64_t v, eir_dtype to) {
    unsigned char tmp[16];
    eir_store_i64(tmp, to, v);
    return eir_load_i64(tmp, to);
}

/* Complex values in double; c64 elements and casts to c64 round each part
 * to float. */
typedef struct cpx { double re, im; } cpx;
static inline cpx ld_cpx(const char *p, eir_dtype d, eir_dtype cast) {
    cpx v;
    eir_load_c128(p, d, &v.re, &v.im);
    if (cast == EIR_C64) { v.re = (float)v.re; v.im = (float)v.im; }
    return v;
}
/* the schoolbook product, as c10::complex computes it */
static inline cpx cpx_mul(cpx a, cpx b) { return (cpx){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }
static cpx cpx_sum(const cpx *v, int64_t n) {
    if (n <= 16) {
        cpx s = {0, 0};
        for (int64_t k = 0; k < n; k++) { s.re += v[k].re; s.im += v[k].im; }
        return s;
    }
    cpx a = cpx_sum(v, n / 2), b = cpx_sum(v + n / 2, n - n / 2);
    return (cpx){a.re + b.re, a.im + b.im};
}

static const char *dim_range_err(eir_kctx *ctx, int64_t dim, int32_t rank) {
    int64_t r = rank > 0 ? rank : 1;
    eir_kerr(ctx, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
             (long long)-r, (long long)(r - 1), (long long)dim);
    return NULL;
}

static const eir_tview *targ(const eir_karg *args, uint32_t nargs, uint32_t i) {
    return i < nargs && args[i].kind == EIR_KA_TENSOR ? args[i].t : NULL;
}
static bool barg(const eir_karg *args, uint32_t nargs, uint32_t i, bool dflt) {
    if (i >= nargs || args[i].kind == EIR_KA_NONE) return dflt;
    return args[i].i != 0;
}
static int64_t iarg(const eir_karg *args, uint32_t nargs, uint32_t i, int64_t dflt) {
    if (i >= nargs || args[i].kind == EIR_KA_NONE) return dflt;
    return args[i].i;
}
static double farg(const eir_karg *args, uint32_t nargs, uint32_t i, double dflt) {
    if (i >= nargs || args[i].kind == EIR_KA_NONE) return dflt;
    if (args[i].kind == EIR_KA_FLOAT) return args[i].f;
    if (args[i].kind == EIR_KA_INT || args[i].kind == EIR_KA_BOOL) return (double)args[i].i;
    return args[i].s.f;
}
/* dtype= argument: the dtype, or UNKNOWN for None. */
static eir_dtype darg(const eir_karg *args, uint32_t nargs, uint32_t i) {
    if (i >= nargs || args[i].kind != EIR_KA_DTYPE) return EIR_DTYPE_UNKNOWN;
    return (eir_dtype)args[i].i;
}

static int need_args(const char *op, uint32_t nargs, uint32_t want, uint32_t nout, uint32_t want_out,
                     const eir_karg *args, eir_kctx *ctx) {
    if (nargs < want || nout < want_out) return eir_kerr(ctx, "%s: expected %u arguments and %u outputs", op, want, want_out);
    if (args[0].kind != EIR_KA_TENSOR || !args[0].t) return eir_kerr(ctx, "%s: argument 'self' must be a tensor", op);
    return 0;
}

/* Decode a dim list argument into a mask over rank dims. INTS with entries,
 * INT, or NONE / empty list (all dims when empty_all, else none). */
static int parse_dims(const eir_karg *a, int32_t rank, bool empty_all, bool *mask, eir_kctx *ctx) {
    for (int32_t d = 0; d < EIR_MAX_RANK; d++) mask[d] = false;
    const int64_t *list = NULL;
    uint32_t n = 0;
    int64_t one;
    if (a && a->kind == EIR_KA_INT) { one = a->i; list = &one; n = 1; }
    else if (a && a->kind == EIR_KA_INTS) { list = a->ints; n = a->n; }
    if (n == 0) {
        if (empty_all)
            for (int32_t d = 0; d < rank; d++) mask[d] = true;
        return 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        int32_t d = eir_wrap_dim(list[k], rank);
        if (d < 0) { dim_range_err(ctx, list[k], rank); return -1; }
        if (rank == 0) continue;
        if (mask[d]) return eir_kerr(ctx, "dim %d appears multiple times in the list of dims", d);
        mask[d] = true;
    }
    return 0;
}

/* ---- reduction plan ----------------------------------------------------- */

typedef struct rplan {
    int32_t orank;                 /* kept dims */
    int64_t osz[EIR_MAX_RANK];
    int64_t ist[EIR_MAX_RANK];     /* input strides of kept dims (elements) */
    int64_t ost[EIR_MAX_RANK];     /* output strides of kept dims, per output */
    int64_t ost2[EIR_MAX_RANK];
    int64_t nout, nred;
    int64_t *roff;                 /* nred input offsets of the reduced elements */
} rplan;

/* Offsets of the elements of the dims selected by mask, row-major (kutil.h). */
static int64_t *list_offsets(const eir_tview *t, const bool *mask, int64_t *n) { return eir_tview_offsets(t, mask, n); }

/* Map kept input dims onto out's dims: with keepdim out has x's rank
 * (reduced dims of size 1), else only the kept dims in order. */
static int map_out(const eir_tview *x, const bool *mask, bool keepdim, const eir_tview *o, int64_t *ost,
                   const char *op, eir_kctx *ctx) {
    int32_t j = 0, kept = 0;
    for (int32_t d = 0; d < x->rank; d++) kept += !mask[d];
    int32_t want = keepdim ? x->rank : kept;
    int64_t numel = 1;
    for (int32_t d = 0; d < x->rank; d++) if (!mask[d]) numel *= x->sizes[d];
    if (o->rank != want || eir_tview_numel(o) != numel)
        return eir_kerr(ctx, "%s: output has rank %d and %lld elements, expected rank %d and %lld elements", op,
                        o->rank, (long long)eir_tview_numel(o), want, (long long)numel);
    for (int32_t d = 0; d < x->rank; d++) {
        if (keepdim) { if (!mask[d]) ost[j++] = o->strides[d]; }
        else if (!mask[d]) { ost[j] = o->strides[j]; j++; }
    }
    return 0;
}

static int plan_init(rplan *p, const eir_tview *x, const bool *mask, bool keepdim, const eir_tview *o1,
                     const eir_tview *o2, const char *op, eir_kctx *ctx) {
    memset(p, 0, sizeof *p);
    p->nout = 1;
    for (int32_t d = 0; d < x->rank; d++) {
        if (mask[d]) continue;
        p->osz[p->orank] = x->sizes[d];
        p->ist[p->orank] = x->strides[d];
        p->nout *= x->sizes[d];
        p->orank++;
    }
    if (o1 && map_out(x, mask, keepdim, o1, p->ost, op, ctx)) return -1;
    if (o2 && map_out(x, mask, keepdim, o2, p->ost2, op, ctx)) return -1;
    p->roff = list_offsets(x, mask, &p->nred);
    if (!p->roff) return eir_kerr(ctx, "%s: out of memory", op);
    return 0;
}

/* Offsets of the o-th kept position in the input and the outputs. */
static inline void plan_pos(const rplan *p, int64_t o, int64_t *xi, int64_t *oi, int64_t *oi2) {
    int64_t a = 0, b = 0, c = 0;
    for (int32_t d = p->orank - 1; d >= 0; d--) {
        int64_t i = o % p->osz[d];
        o /= p->osz[d];
        a += i * p->ist[d];
        b += i * p->ost[d];
        c += i * p->ost2[d];
    }
    *xi = a; *oi = b; *oi2 = c;
}

/* ---- value reductions (double / int64 accumulation) ----------------------- */

enum rkind { R_SUM, R_MEAN, R_PROD, R_ANY, R_ALL, R_VAR, R_STD, R_VARMEAN, R_STDMEAN, R_LSE, R_NORM, R_NANSUM, R_NANMEAN };

static double pairwise_sum(const double *v, int64_t n) {
    if (n <= 16) {
        double s = 0;
        for (int64_t k = 0; k < n; k++) s += v[k];
        return s;
    }
    int64_t h = n / 2;
    return pairwise_sum(v, h) + pairwise_sum(v + h, n - h);
}

/* Reduce one gathered row v[0..n) of doubles. */
static double reduce_row_f(enum rkind k, const double *v, int64_t n, double param, double *second) {
    switch (k) {
    case R_SUM: return pairwise_sum(v, n);
    case R_MEAN: return n ? pairwise_sum(v, n) / (double)n : NAN;
    case R_PROD: {
        double r = 1;
        for (int64_t i = 0; i < n; i++) r *= v[i];
        return r;
    }
    case R_VAR: case R_STD: case R_VARMEAN: case R_STDMEAN: {
        double mean = n ? pairwise_sum(v, n) / (double)n : NAN;
        double m2 = 0;
        for (int64_t i = 0; i < n; i++) m2 += (v[i] - mean) * (v[i] - mean);
        if (n == 0) m2 = NAN;
        double div = (double)n - param;
        if (div < 0) div = 0;
        double var = m2 / div;
        if (second) *second = mean;
        return k == R_STD || k == R_STDMEAN ? sqrt(var) : var;
    }
    case R_LSE: {
        double m = -INFINITY;
        for (int64_t i = 0; i < n; i++) {
            if (isnan(v[i])) return NAN;
            if (v[i] > m) m = v[i];
        }
        if (isinf(m)) m = 0;
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += exp(v[i] - m);
        return log(s) + m;
    }
    case R_NORM: {
        double p = param;
        if (p == INFINITY || p == -INFINITY) {
            double r = p > 0 ? 0 : INFINITY;
            for (int64_t i = 0; i < n; i++) {
                double a = fabs(v[i]);
                if (isnan(a)) return NAN;
                if (p > 0 ? a > r : a < r) r = a;
            }
            return r;
        }
        if (p == 0) {
            double c = 0;
            for (int64_t i = 0; i < n; i++) c += v[i] != 0;
            return c;
        }
        double s = 0;
        if (p == 1) for (int64_t i = 0; i < n; i++) s += fabs(v[i]);
        else if (p == 2) { for (int64_t i = 0; i < n; i++) s += v[i] * v[i]; return sqrt(s); }
        else for (int64_t i = 0; i < n; i++) s += pow(fabs(v[i]), p);
        return p == 1 ? s : pow(s, 1.0 / p);
    }
    case R_ANY: case R_ALL: case R_NANSUM: case R_NANMEAN: break;
    }
    return NAN;
}

/* Reduce one gathered row of complex values: sum, mean, prod (complex
 * results) or var/std (real results: the mean squared distance to the mean). */
static cpx reduce_row_c(enum rkind k, const cpx *v, int64_t n, double corr) {
    switch (k) {
    case R_SUM: return cpx_sum(v, n);
    case R_MEAN: {
        /* sum / n as torch divides by the scalar: c10's complex division by (n, 0),
         * so an infinite real part makes the imaginary part NaN (inf * 0) */
        cpx s = cpx_sum(v, n);
        double scl = 1.0 / (double)n;
        return (cpx){(s.re + s.im * 0.0) * scl, (s.im - s.re * 0.0) * scl};
    }
    case R_PROD: {
        cpx r = {1, 0};
        for (int64_t i = 0; i < n; i++) r = cpx_mul(r, v[i]);
        return r;
    }
    case R_VAR: case R_STD: {
        cpx s = cpx_sum(v, n);
        double mr = s.re / (double)n, mi = s.im / (double)n, m2 = 0;
        for (int64_t i = 0; i < n; i++) m2 += (v[i].re - mr) * (v[i].re - mr) + (v[i].im - mi) * (v[i].im - mi);
        if (n == 0) m2 = NAN;
        double div = (double)n - corr;
        double var = m2 / (div < 0 ? 0 : div);
        return (cpx){k == R_STD ? sqrt(var) : var, 0};
    }
    default: break;
    }
    return (cpx){NAN, NAN};
}

/* Sum of n contiguous floats in double: 8 independent lanes so the loop
 * vectorizes, combined pairwise. */
static double sum_f32(const char *p, int64_t n) {
    const float *f = (const float *)p;
    double acc[8] = {0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) acc[j] += f[i + j];
    for (; i < n; i++) acc[0] += f[i];
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7]));
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define RUN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("tree-vectorize")))
#else
#define RUN_CLONES
#endif

/* acc[b] += x[roff[i] + b] for b < R, i = 0, 1, ... nred - 1 in turn: R outputs whose input
 * elements lie next to each other (the innermost kept dim, stride 1), each summed in double in
 * the order of the reduced positions */
RUN_CLONES static void sum_run_f32(double *restrict acc, const float *restrict x, const int64_t *roff, int64_t nred,
                                   int64_t R) {
    for (int64_t i = 0; i < nred; i++) {
        const float *f = x + roff[i];
        for (int64_t b = 0; b < R; b++) acc[b] += f[b];
    }
}

/* Sum (or mean) when the kept dims are innermost in memory (e.g. a sum over
 * dim 0 of a row-major matrix): walk the reduced elements in the outer
 * loop and accumulate whole runs of outputs in double. false when the
 * layout does not fit (the caller takes the generic path). float32 with a
 * run of 4 or more outputs (a blocked layout's channel lanes: the mean over
 * the pixels of (N, C / 16, H, W, 16)) takes the runs one at a time, each
 * element summed in the same order. */
static bool sum_columns(const rplan *p, const eir_tview *x, eir_tview *o, bool mean) {
    if (p->orank == 0 || p->nout < 8 || p->nred < 2 || p->ist[p->orank - 1] != 1) return false;
    int64_t *xo = eir_kalloc((size_t)p->nout * sizeof *xo), *oo = eir_kalloc((size_t)p->nout * sizeof *oo);
    double *acc = eir_kcalloc((size_t)p->nout, sizeof *acc);
    if (!xo || !oo || !acc) { eir_kfree(xo); eir_kfree(oo); eir_kfree(acc); return false; }
    for (int64_t j = 0, dummy; j < p->nout; j++) plan_pos(p, j, &xo[j], &oo[j], &dummy);
    size_t oes = eir_elsize(o->dtype);
    int64_t R = p->osz[p->orank - 1];
    if (x->dtype == EIR_F32 && R >= 4) {
        for (int64_t g = 0; g < p->nout; g += R)
            sum_run_f32(acc + g, (const float *)x->data + xo[g], p->roff, p->nred, R);
    } else
    for (int64_t i = 0; i < p->nred; i++) {
        int64_t r = p->roff[i];
        if (x->dtype == EIR_F32) {
            const float *f = (const float *)x->data + r;
            for (int64_t j = 0; j < p->nout; j++) acc[j] += f[xo[j]];
        } else {
            const double *f = (const double *)x->data + r;
            for (int64_t j = 0; j < p->nout; j++) acc[j] += f[xo[j]];
        }
    }
    for (int64_t j = 0; j < p->nout; j++)
        eir_store_f64((char *)o->data + oo[j] * (int64_t)oes, o->dtype, mean ? acc[j] / (double)p->nred : acc[j]);
    eir_kfree(xo); eir_kfree(oo); eir_kfree(acc);
    return true;
}

/* The generic value reduction: x reduced over mask into out[0] (and out[1]
 * for var_mean). cast: convert each element to this dtype first (UNKNOWN:
 * none). Integral outputs accumulate in wrapping int64 (sum, prod); any/all
 * write 0/1. */
static int reduce_values(const char *op, enum rkind k, const eir_tview *x, const bool *mask, bool keepdim,
                         eir_tview *out, uint32_t nout, double param, eir_dtype cast, eir_kctx *ctx) {
    bool two = k == R_VARMEAN || k == R_STDMEAN;
    eir_tview *o2 = two ? &out[1] : NULL;
    if (two && nout < 2) return eir_kerr(ctx, "%s: expected 2 outputs", op);
    rplan p;
    if (plan_init(&p, x, mask, keepdim, &out[0], o2, op, ctx)) return -1;
    int rc = 0;
    eir_dtype od = out[0].dtype, xd = x->dtype;
    size_t xes = eir_elsize(xd), oes = eir_elsize(od), o2es = o2 ? eir_elsize(o2->dtype) : 0;
    if (cast == xd) cast = EIR_DTYPE_UNKNOWN;
    bool intpath = (k == R_SUM || k == R_PROD || k == R_NANSUM) && eir_is_integral(od, true);
    double *buf = NULL;
    if (k != R_ANY && k != R_ALL && !intpath) {
        buf = eir_kalloc((size_t)(p.nred > 0 ? p.nred : 1) * sizeof *buf);
        if (!buf) { rc = eir_kerr(ctx, "%s: out of memory", op); goto done; }
    }
    if ((k == R_SUM || k == R_MEAN) && !intpath && !cast && (xd == EIR_F32 || xd == EIR_F64) &&
        sum_columns(&p, x, &out[0], k == R_MEAN)) goto done;
    bool contig = p.nred > 0 && p.roff[p.nred - 1] == p.nred - 1;
    if (eir_is_complex(cast ? cast : xd) && (k == R_SUM || k == R_MEAN || k == R_PROD || k == R_VAR || k == R_STD)) {
        cpx *cb = malloc((size_t)(p.nred > 0 ? p.nred : 1) * sizeof *cb);
        if (!cb) { rc = eir_kerr(ctx, "%s: out of memory", op); goto done; }
        for (int64_t o = 0; o < p.nout; o++) {
            int64_t xi, oi, oi2;
            plan_pos(&p, o, &xi, &oi, &oi2);
            const char *xb = (const char *)x->data + xi * (int64_t)xes;
            for (int64_t i = 0; i < p.nred; i++) cb[i] = ld_cpx(xb + p.roff[i] * (int64_t)xes, xd, cast);
            cpx r = reduce_row_c(k, cb, p.nred, param);
            eir_store_c128((char *)out[0].data + oi * (int64_t)oes, od, r.re, r.im);
        }
        free(cb);
        goto done;
    }
    for (int64_t o = 0; o < p.nout; o++) {
        int64_t xi, oi, oi2;
        plan_pos(&p, o, &xi, &oi, &oi2);
        const char *xb = (const char *)x->data + xi * (int64_t)xes;
        char *ob = (char *)out[0].data + oi * (int64_t)oes;
        if ((k == R_SUM || k == R_MEAN) && contig && xd == EIR_F32 && !cast) {
            double r = sum_f32(xb, p.nred);
            eir_store_f64(ob, od, k == R_MEAN ? r / (double)p.nred : r);
            continue;
        }
        if (k == R_ANY || k == R_ALL) {
            bool r = k == R_ALL;
            for (int64_t i = 0; i < p.nred; i++) {
                const char *e = xb + p.roff[i] * (int64_t)xes;
                double re, im;
                eir_load_c128(e, xd, &re, &im);
                bool nz = re != 0 || im != 0;
                if (k == R_ANY && nz) { r = true; break; }
                if (k == R_ALL && !nz) { r = false; break; }
            }
            eir_store_i64(ob, od, r);
            continue;
        }
        if (intpath) {
            uint64_t acc = k == R_PROD ? 1 : 0;
            for (int64_t i = 0; i < p.nred; i++) {
                int64_t v = eir_load_i64(xb + p.roff[i] * (int64_t)xes, xd);
                if (cast) v = cast_i(v, cast);
                if (k != R_PROD) acc += (uint64_t)v;
                else acc *= (uint64_t)v;
            }
            eir_store_i64(ob, od, (int64_t)acc);
            continue;
        }
        if (xd == EIR_F32 && !cast)
            for (int64_t i = 0; i < p.nred; i++) buf[i] = ((const float *)xb)[p.roff[i]];
        else if (xd == EIR_F64 && !cast)
            for (int64_t i = 0; i < p.nred; i++) buf[i] = ((const double *)xb)[p.roff[i]];
        else
            for (int64_t i = 0; i < p.nred; i++) {
                double v = ld(xb + p.roff[i] * (int64_t)xes, xd);
                buf[i] = cast ? cast_f(v, cast) : v;
            }
        double second = 0;
        double r;
        if (k == R_NANSUM || k == R_NANMEAN) {
            int64_t m = 0;
            for (int64_t i = 0; i < p.nred; i++)
                if (buf[i] == buf[i]) buf[m++] = buf[i];
            r = pairwise_sum(buf, m);
            /* nanmean: the sum in the output dtype divided by the count, in
             * that dtype's arithmetic (float for float16/bfloat16) */
            if (k == R_NANMEAN) r = od == EIR_F64 ? r / (double)m : (float)((float)cast_f(r, od) / (float)m);
        } else if (k == R_PROD && (od == EIR_F16 || od == EIR_BF16)) {
            /* torch multiplies float16/bfloat16 in their own dtype: each
             * partial product is rounded (row order, as its short reductions) */
            r = 1;
            for (int64_t i = 0; i < p.nred; i++) r = cast_f((float)(r * buf[i]), od);
        } else {
            r = reduce_row_f(k, buf, p.nred, param, o2 ? &second : NULL);
        }
        eir_store_f64(ob, od, r);
        if (o2) eir_store_f64((char *)o2->data + oi2 * (int64_t)o2es, o2->dtype, second);
    }
done:
    eir_kfree(buf);
    eir_kfree(p.roff);
    return rc;
}

static bool is_real_float(eir_dtype d) { return eir_is_floating(d); }

/* sum.default(self, *, dtype) / sum.dim_IntList(self, dim, keepdim, *, dtype) */
static int k_sum_default(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("sum", na, 1, no, 1, a, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    parse_dims(NULL, a[0].t->rank, true, mask, ctx);
    return reduce_values("sum", R_SUM, a[0].t, mask, false, out, no, 0, darg(a, na, 1), ctx);
}
static int k_sum_dim(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("sum", na, 2, no, 1, a, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    if (parse_dims(&a[1], a[0].t->rank, true, mask, ctx)) return -1;
    return reduce_values("sum", R_SUM, a[0].t, mask, barg(a, na, 2, false), out, no, 0, darg(a, na, 3), ctx);
}

static int mean_check(const eir_tview *x, eir_dtype dt, eir_tview *out, eir_kctx *ctx) {
    eir_dtype d = dt ? dt : x->dtype;
    bool ok = (is_real_float(d) && is_real_float(out[0].dtype)) || (eir_is_complex(d) && eir_is_complex(out[0].dtype));
    if (!ok)
        return eir_kerr(ctx, "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s", tname(d));
    return 0;
}
static int k_mean_default(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("mean", na, 1, no, 1, a, ctx)) return -1;
    eir_dtype dt = darg(a, na, 1);
    if (mean_check(a[0].t, dt, out, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    parse_dims(NULL, a[0].t->rank, true, mask, ctx);
    return reduce_values("mean", R_MEAN, a[0].t, mask, false, out, no, 0, dt, ctx);
}
static int k_mean_dim(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("mean", na, 2, no, 1, a, ctx)) return -1;
    eir_dtype dt = darg(a, na, 3);
    if (mean_check(a[0].t, dt, out, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    if (parse_dims(&a[1], a[0].t->rank, true, mask, ctx)) return -1;
    return reduce_values("mean", R_MEAN, a[0].t, mask, barg(a, na, 2, false), out, no, 0, dt, ctx);
}

static int k_prod_default(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("prod", na, 1, no, 1, a, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    parse_dims(NULL, a[0].t->rank, true, mask, ctx);
    return reduce_values("prod", R_PROD, a[0].t, mask, false, out, no, 0, darg(a, na, 1), ctx);
}
static int k_prod_dim(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("prod", na, 2, no, 1, a, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    if (parse_dims(&a[1], a[0].t->rank, true, mask, ctx)) return -1;
    return reduce_values("prod", R_PROD, a[0].t, mask, barg(a, na, 2, false), out, no, 0, darg(a, na, 3), ctx);
}

/* any / all: .default (all dims), .dim (one int), .dims (None: all dims; []: none) */
static int anyall(const char *op, enum rkind k, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no,
                  int form, eir_kctx *ctx) {
    if (need_args(op, na, form ? 2 : 1, no, 1, a, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    const eir_karg *d = form ? &a[1] : NULL;
    if (form == 2 && d->kind == EIR_KA_INTS && d->n == 0) {
        if (parse_dims(d, a[0].t->rank, false, mask, ctx)) return -1;
    } else if (parse_dims(d, a[0].t->rank, true, mask, ctx)) return -1;
    return reduce_values(op, k, a[0].t, mask, form ? barg(a, na, 2, false) : false, out, no, 0, 0, ctx);
}
static int k_any_default(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return anyall("any", R_ANY, a, na, o, no, 0, c); }
static int k_any_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return anyall("any", R_ANY, a, na, o, no, 1, c); }
static int k_any_dims(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return anyall("any", R_ANY, a, na, o, no, 2, c); }
static int k_all_default(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return anyall("all", R_ALL, a, na, o, no, 0, c); }
static int k_all_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return anyall("all", R_ALL, a, na, o, no, 1, c); }
static int k_all_dims(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return anyall("all", R_ALL, a, na, o, no, 2, c); }

/* var/std: .correction(self, dim?, *, correction?, keepdim), .dim(self, dim?, unbiased, keepdim) */
static int varstd(const char *op, enum rkind k, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no,
                  bool corr_form, eir_kctx *ctx) {
    if (need_args(op, na, 1, no, k == R_VARMEAN || k == R_STDMEAN ? 2 : 1, a, ctx)) return -1;
    const eir_tview *x = a[0].t;
    if (!is_real_float(x->dtype) && !eir_is_complex(x->dtype))
        return eir_kerr(ctx, "std and var only support floating point and complex dtypes");
    bool mask[EIR_MAX_RANK];
    if (parse_dims(na > 1 ? &a[1] : NULL, x->rank, true, mask, ctx)) return -1;
    double corr;
    if (corr_form) corr = farg(a, na, 2, 1.0);
    else corr = barg(a, na, 2, true) ? 1.0 : 0.0;
    if ((k == R_VARMEAN || k == R_STDMEAN) && eir_is_complex(x->dtype)) {
        /* complex: the (real) variance of the parts and the complex mean, as two reductions */
        int rc = reduce_values(op, k == R_VARMEAN ? R_VAR : R_STD, x, mask, barg(a, na, 3, false), &out[0], 1, corr, 0, ctx);
        return rc ? rc : reduce_values(op, R_MEAN, x, mask, barg(a, na, 3, false), &out[1], 1, 0, 0, ctx);
    }
    return reduce_values(op, k, x, mask, barg(a, na, 3, false), out, no, corr, 0, ctx);
}
static int k_var_corr(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("var", R_VAR, a, na, o, no, true, c); }
static int k_var_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("var", R_VAR, a, na, o, no, false, c); }
static int k_std_corr(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("std", R_STD, a, na, o, no, true, c); }
static int k_std_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("std", R_STD, a, na, o, no, false, c); }
static int k_var_mean_corr(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("var_mean", R_VARMEAN, a, na, o, no, true, c); }
static int k_var_mean_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("var_mean", R_VARMEAN, a, na, o, no, false, c); }
static int k_std_mean_corr(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("std_mean", R_STDMEAN, a, na, o, no, true, c); }
static int k_std_mean_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd("std_mean", R_STDMEAN, a, na, o, no, false, c); }
/* .default(self, unbiased=True): every dim, as .dim with dim=None */
static int varstd_all(const char *op, enum rkind k, const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args(op, na, 1, no, 1, a, c)) return -1;
    eir_karg d[4] = {a[0]};
    d[1].kind = EIR_KA_NONE;
    d[2].kind = d[3].kind = EIR_KA_BOOL;
    d[2].i = barg(a, na, 1, true);
    return varstd(op, k, d, 4, o, no, false, c);
}
static int k_var_all(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd_all("var", R_VAR, a, na, o, no, c); }
static int k_std_all(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd_all("std", R_STD, a, na, o, no, c); }
static int k_var_mean_all(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd_all("var_mean", R_VARMEAN, a, na, o, no, c); }
static int k_std_mean_all(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return varstd_all("std_mean", R_STDMEAN, a, na, o, no, c); }

/* nansum / nanmean(self, dim?, keepdim, *, dtype?): NaNs count as absent */
static int nanreduce(const char *op, enum rkind k, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args(op, na, 1, no, 1, a, ctx)) return -1;
    const eir_tview *x = a[0].t;
    if (k == R_NANMEAN && !is_real_float(x->dtype) && !eir_is_complex(x->dtype))
        return eir_kerr(ctx, "nanmean(): expected input to have floating point or complex dtype but got %s", tname(x->dtype));
    if (eir_is_complex(x->dtype) || eir_is_complex(out[0].dtype)) return eir_kerr(ctx, "nansum does not support complex inputs");
    bool mask[EIR_MAX_RANK];
    if (parse_dims(na > 1 ? &a[1] : NULL, x->rank, true, mask, ctx)) return -1;
    return reduce_values(op, k, x, mask, barg(a, na, 2, false), out, no, 0, darg(a, na, 3), ctx);
}
static int k_nansum(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return nanreduce("nansum", R_NANSUM, a, na, o, no, c); }
static int k_nanmean(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return nanreduce("nanmean", R_NANMEAN, a, na, o, no, c); }

/* logsumexp(self, int[1] dim, keepdim) */
static int k_logsumexp(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("logsumexp", na, 2, no, 1, a, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    if (parse_dims(&a[1], a[0].t->rank, true, mask, ctx)) return -1;
    if (!is_real_float(out[0].dtype)) return eir_kerr(ctx, "logsumexp(): output dtype %s is not supported", tname(out[0].dtype));
    return reduce_values("logsumexp", R_LSE, a[0].t, mask, barg(a, na, 2, false), out, no, 0, 0, ctx);
}

/* Shared by norm.ScalarOpt_dim and linalg_vector_norm. */
static int vnorm(const char *op, const eir_tview *x, double p, const eir_karg *dims, bool keepdim, eir_dtype cast,
                 eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (!is_real_float(x->dtype)) {
        if (eir_is_complex(x->dtype)) { /* |z| in double: linalg.c's vector norm */
            bool cmask[EIR_MAX_RANK];
            if (parse_dims(dims, x->rank, true, cmask, ctx)) return -1;
            return eir_vector_norm(ctx, op, x, p, cmask, keepdim, out);
        }
        if (strcmp(op, "norm") == 0)
            return eir_kerr(ctx, "norm(): input dtype should be either floating point or complex. Got %s instead.", tname(x->dtype));
        return eir_kerr(ctx, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s", tname(x->dtype));
    }
    bool mask[EIR_MAX_RANK];
    if (parse_dims(dims, x->rank, true, mask, ctx)) return -1;
    /* torch refuses inf and negative norms over empty dims (no identity) */
    if ((isinf(p) || p < 0) && eir_tview_numel(x) == 0) {
        bool listed = dims && ((dims->kind == EIR_KA_INTS && dims->n > 0) || dims->kind == EIR_KA_INT);
        if (!listed)
            return eir_kerr(ctx, "linalg.vector_norm cannot compute the %g norm on an empty tensor because the operation does not have an identity", p);
        for (int32_t d = 0; d < x->rank; d++)
            if (mask[d] && x->sizes[d] == 0)
                return eir_kerr(ctx, "linalg.vector_norm cannot compute the %g norm on the dimension %d"
                                     "because this dimension is empty and the operation does not have an identity", p, d);
    }
    return reduce_values(op, R_NORM, x, mask, keepdim, out, no, p, cast, ctx);
}
/* norm.ScalarOpt_dim(self, Scalar? p, int[1] dim, keepdim) */
static int k_norm_dim(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("norm", na, 3, no, 1, a, ctx)) return -1;
    return vnorm("norm", a[0].t, farg(a, na, 1, 2.0), &a[2], barg(a, na, 3, false), 0, out, no, ctx);
}
/* norm.Scalar(self, Scalar p=2) */
static int k_norm_scalar(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("norm", na, 1, no, 1, a, ctx)) return -1;
    return vnorm("norm", a[0].t, farg(a, na, 1, 2.0), NULL, false, 0, out, no, ctx);
}
/* linalg_vector_norm(self, Scalar ord=2, int[1]? dim=None, keepdim, *, dtype?) */
static int k_vector_norm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args("linalg_vector_norm", na, 1, no, 1, a, ctx)) return -1;
    return vnorm("linalg.vector_norm", a[0].t, farg(a, na, 1, 2.0), na > 2 ? &a[2] : NULL, barg(a, na, 3, false),
                 darg(a, na, 4), out, no, ctx);
}

/* ---- selections: max/min/amax/amin/argmax/argmin ------------------------ */

/* Index (into roff) of the max (want_max) or min; the first occurrence wins
 * and a NaN beats everything, as in torch. n >= 1. */
static int64_t select_idx(const char *xb, const int64_t *roff, int64_t n, eir_dtype d, bool want_max) {
    size_t es = eir_elsize(d);
    int64_t best = 0;
    if (eir_is_floating(d)) {
        double b = ld(xb + roff[0] * (int64_t)es, d);
        if (isnan(b)) return 0;
        for (int64_t i = 1; i < n; i++) {
            double v = ld(xb + roff[i] * (int64_t)es, d);
            if (isnan(v)) return i;
            if (want_max ? v > b : v < b) { b = v; best = i; }
        }
    } else if (d == EIR_U64) {
        uint64_t b = ((const uint64_t *)xb)[roff[0]];
        for (int64_t i = 1; i < n; i++) {
            uint64_t v = ((const uint64_t *)xb)[roff[i]];
            if (want_max ? v > b : v < b) { b = v; best = i; }
        }
    } else {
        int64_t b = eir_load_i64(xb + roff[0] * (int64_t)es, d);
        for (int64_t i = 1; i < n; i++) {
            int64_t v = eir_load_i64(xb + roff[i] * (int64_t)es, d);
            if (want_max ? v > b : v < b) { b = v; best = i; }
        }
    }
    return best;
}

static void copy_elem(char *dst, eir_dtype dd, const char *src, eir_dtype sd) {
    if (dd == sd) memcpy(dst, src, eir_elsize(sd));
    else if (eir_is_floating(sd) || eir_is_floating(dd)) eir_store_f64(dst, dd, eir_load_f64(src, sd));
    else eir_store_i64(dst, dd, eir_load_i64(src, sd));
}

/* vals / idxs may be NULL. full: no dim was given (torch's other message). */
static int select_reduce(const char *op, const eir_tview *x, const bool *mask, bool keepdim, bool full,
                         eir_tview *vals, eir_tview *idxs, bool want_max, eir_kctx *ctx) {
    if (eir_is_complex(x->dtype)) return eir_kerr(ctx, "%s(): does not support complex input", op);
    if (full && eir_tview_numel(x) == 0) {
        if (strcmp(op, "argmax") == 0 || strcmp(op, "argmin") == 0)
            return eir_kerr(ctx, "%s(): Expected reduction dim to be specified for input.numel() == 0.", op);
        return eir_kerr(ctx, "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.", op);
    }
    for (int32_t d = 0; d < x->rank; d++)
        if (mask[d] && x->sizes[d] == 0)
            return eir_kerr(ctx, "%s(): Expected reduction dim %d to have non-zero size.", op, d);
    rplan p;
    if (plan_init(&p, x, mask, keepdim, vals ? vals : idxs, vals ? idxs : NULL, op, ctx)) return -1;
    size_t xes = eir_elsize(x->dtype);
    for (int64_t o = 0; o < p.nout; o++) {
        int64_t xi, oi, oi2;
        plan_pos(&p, o, &xi, &oi, &oi2);
        const char *xb = (const char *)x->data + xi * (int64_t)xes;
        int64_t k = p.nred ? select_idx(xb, p.roff, p.nred, x->dtype, want_max) : 0;
        if (vals) {
            copy_elem((char *)vals->data + oi * (int64_t)eir_elsize(vals->dtype), vals->dtype,
                      xb + p.roff[k] * (int64_t)xes, x->dtype);
            if (idxs) eir_store_i64((char *)idxs->data + oi2 * (int64_t)eir_elsize(idxs->dtype), idxs->dtype, k);
        } else {
            eir_store_i64((char *)idxs->data + oi * (int64_t)eir_elsize(idxs->dtype), idxs->dtype, k);
        }
    }
    eir_kfree(p.roff);
    return 0;
}

static int amaxmin(const char *op, bool want_max, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args(op, na, 1, no, 1, a, ctx)) return -1;
    bool mask[EIR_MAX_RANK];
    const eir_karg *d = na > 1 ? &a[1] : NULL;
    if (parse_dims(d, a[0].t->rank, true, mask, ctx)) return -1;
    bool full = !d || d->kind == EIR_KA_NONE || (d->kind == EIR_KA_INTS && d->n == 0);
    return select_reduce(op, a[0].t, mask, barg(a, na, 2, false), full, &out[0], NULL, want_max, ctx);
}
static int k_amax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return amaxmin("amax", true, a, na, o, no, c); }
static int k_amin(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return amaxmin("amin", false, a, na, o, no, c); }
static int k_max_default(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("max", na, 1, no, 1, a, c)) return -1;
    bool mask[EIR_MAX_RANK];
    parse_dims(NULL, a[0].t->rank, true, mask, c);
    return select_reduce("max", a[0].t, mask, false, true, &o[0], NULL, true, c);
}
static int k_min_default(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("min", na, 1, no, 1, a, c)) return -1;
    bool mask[EIR_MAX_RANK];
    parse_dims(NULL, a[0].t->rank, true, mask, c);
    return select_reduce("min", a[0].t, mask, false, true, &o[0], NULL, false, c);
}
static int maxmin_dim(const char *op, bool want_max, const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args(op, na, 2, no, 2, a, c)) return -1;
    bool mask[EIR_MAX_RANK];
    if (parse_dims(&a[1], a[0].t->rank, true, mask, c)) return -1;
    return select_reduce(op, a[0].t, mask, barg(a, na, 2, false), false, &o[0], &o[1], want_max, c);
}
static int k_max_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return maxmin_dim("max", true, a, na, o, no, c); }
static int k_min_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return maxmin_dim("min", false, a, na, o, no, c); }
static int argmaxmin(const char *op, bool want_max, const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args(op, na, 1, no, 1, a, c)) return -1;
    if (a[0].t->dtype == EIR_BOOL) return eir_kerr(c, "%s(): does not support bool input", op);
    bool mask[EIR_MAX_RANK];
    const eir_karg *d = na > 1 ? &a[1] : NULL;
    bool full = !d || d->kind == EIR_KA_NONE;
    if (parse_dims(full ? NULL : d, a[0].t->rank, true, mask, c)) return -1;
    /* dim=None flattens: the result is a 0-d index, or all-ones dims with keepdim */
    return select_reduce(op, a[0].t, mask, barg(a, na, 2, false), full, NULL, &o[0], want_max, c);
}
static int k_argmax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return argmaxmin("argmax", true, a, na, o, no, c); }
static int k_argmin(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return argmaxmin("argmin", false, a, na, o, no, c); }
/* aminmax(self, *, dim?, keepdim) and _aminmax(self) / _aminmax.dim(self, dim, keepdim) -> (min, max) */
static int aminmax_impl(const eir_tview *x, const eir_karg *dim, bool keepdim, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (no < 2) return eir_kerr(c, "aminmax: expected 2 outputs");
    bool full = !dim || dim->kind == EIR_KA_NONE, mask[EIR_MAX_RANK];
    if (parse_dims(full ? NULL : dim, x->rank, true, mask, c)) return -1;
    if (full && eir_tview_numel(x) == 0)
        return eir_kerr(c, "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    for (int32_t d = 0; d < x->rank; d++)
        if (mask[d] && x->sizes[d] == 0) return eir_kerr(c, "aminmax: Expected reduction dim %d to have non-zero size.", d);
    if (select_reduce("aminmax", x, mask, keepdim, full, &o[0], NULL, false, c)) return -1;
    return select_reduce("aminmax", x, mask, keepdim, full, &o[1], NULL, true, c);
}
static int k_aminmax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("aminmax", na, 1, no, 2, a, c)) return -1;
    return aminmax_impl(a[0].t, na > 1 ? &a[1] : NULL, barg(a, na, 2, false), o, no, c);
}
static int k__aminmax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("_aminmax", na, 1, no, 2, a, c)) return -1;
    return aminmax_impl(a[0].t, NULL, false, o, no, c);
}

/* ---- per-line operations (scans, softmax, sort) -------------------------- */

/* Iterate the lines of x along dim: line l starts at element offset
 * lo[v] in view v, for up to 3 views of the same shape. */
typedef struct lines {
    int32_t r;
    int64_t sz[EIR_MAX_RANK], st[3][EIR_MAX_RANK];
    int64_t n, len, lst[3];
} lines;

static void lines_init(lines *L, const eir_tview *const *v, int nv, int32_t dim) {
    memset(L, 0, sizeof *L);
    const eir_tview *x = v[0];
    L->n = 1;
    L->len = x->rank ? x->sizes[dim] : 1;
    for (int k = 0; k < nv; k++) L->lst[k] = x->rank ? v[k]->strides[dim] : 0;
    for (int32_t d = 0; d < x->rank; d++) {
        if (d == dim) continue;
        L->sz[L->r] = x->sizes[d];
        for (int k = 0; k < nv; k++) L->st[k][L->r] = v[k]->strides[d];
        L->n *= x->sizes[d];
        L->r++;
    }
    if (L->len == 0) L->n = 0;
}
static void lines_pos(const lines *L, int64_t l, int64_t *off) {
    off[0] = off[1] = off[2] = 0;
    for (int32_t d = L->r - 1; d >= 0; d--) {
        int64_t i = l % L->sz[d];
        l /= L->sz[d];
        for (int k = 0; k < 3; k++) off[k] += i * L->st[k][d];
    }
}

static bool same_shape(const eir_tview *a, const eir_tview *b) {
    if (a->rank != b->rank) return false;
    for (int32_t d = 0; d < a->rank; d++) if (a->sizes[d] != b->sizes[d]) return false;
    return true;
}

static int cumop(const char *op, bool prod, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (need_args(op, na, 2, no, 1, a, ctx)) return -1;
    const eir_tview *x = a[0].t;
    int32_t dim = eir_wrap_dim(a[1].i, x->rank);
    if (dim < 0) { dim_range_err(ctx, a[1].i, x->rank); return -1; }
    if (!same_shape(x, &out[0])) return eir_kerr(ctx, "%s: output shape does not match the input", op);
    eir_dtype cast = darg(a, na, 2), od = out[0].dtype, xd = x->dtype;
    if (cast == xd) cast = EIR_DTYPE_UNKNOWN;
    bool cplx = eir_is_complex(cast ? cast : xd);
    const eir_tview *vs[2] = {x, &out[0]};
    lines L;
    lines_init(&L, vs, 2, dim);
    size_t xes = eir_elsize(xd), oes = eir_elsize(od);
    bool intpath = eir_is_integral(od, true);
    for (int64_t l = 0; l < L.n; l++) {
        int64_t off[3];
        lines_pos(&L, l, off);
        const char *xb = (const char *)x->data + off[0] * (int64_t)xes;
        char *ob = (char *)out[0].data + off[1] * (int64_t)oes;
        if (cplx) {
            cpx acc = {prod ? 1 : 0, 0};
            for (int64_t i = 0; i < L.len; i++) {
                cpx v = ld_cpx(xb + i * L.lst[0] * (int64_t)xes, xd, cast);
                acc = prod ? cpx_mul(acc, v) : (cpx){acc.re + v.re, acc.im + v.im};
                eir_store_c128(ob + i * L.lst[1] * (int64_t)oes, od, acc.re, acc.im);
            }
        } else if (intpath) {
            uint64_t acc = prod ? 1 : 0;
            for (int64_t i = 0; i < L.len; i++) {
                int64_t v = eir_load_i64(xb + i * L.lst[0] * (int64_t)xes, xd);
                if (cast) v = cast_i(v, cast);
                acc = prod ? acc * (uint64_t)v : acc + (uint64_t)v;
                eir_store_i64(ob + i * L.lst[1] * (int64_t)oes, od, (int64_t)acc);
            }
        } else {
            double acc = prod ? 1 : 0;
            for (int64_t i = 0; i < L.len; i++) {
                double v = ld(xb + i * L.lst[0] * (int64_t)xes, xd);
                if (cast) v = cast_f(v, cast);
                acc = prod ? acc * v : acc + v;
                eir_store_f64(ob + i * L.lst[1] * (int64_t)oes, od, acc);
            }
        }
    }
    return 0;
}
static int k_cumsum(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return cumop("cumsum", false, a, na, o, no, c); }
static int k_cumprod(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return cumop("cumprod", true, a, na, o, no, c); }

/* Contiguous float32 line: float exponentials as torch does, the sum in
 * double. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define SM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("tree-vectorize")))
#else
#define SM_CLONES
#endif

enum { SM_LANES = 16 };

/* A contiguous float32 softmax / log_softmax line: the maximum (NaN if any element is NaN),
 * exp(x - max) with vmath's vectorisable exp (within 1.5 ulp of expf), its sum in SM_LANES
 * interleaved double partial sums added in a fixed order (the same bits at any thread
 * count), then the scale (or the log of the sum subtracted). */
SM_CLONES static void softmax_f32(const float *restrict x, float *restrict y, int64_t n, bool lg) {
    /* loops the vectoriser takes: lane-wise maxima and NaN flags, one exp per element, lane-wise
     * double sums; each lane's order fixed, the lanes combined in a fixed order */
    float mk[SM_LANES];
    int nk[SM_LANES];
    for (int k = 0; k < SM_LANES; k++) mk[k] = -INFINITY, nk[k] = 0;
    int64_t full = n - n % SM_LANES;
    for (int64_t i = 0; i < full; i += SM_LANES)
        for (int k = 0; k < SM_LANES; k++) {
            float v = x[i + k];
            mk[k] = v > mk[k] ? v : mk[k];
            nk[k] |= v != v;
        }
    for (int64_t i = full; i < n; i++) {
        mk[i - full] = x[i] > mk[i - full] ? x[i] : mk[i - full];
        nk[i - full] |= x[i] != x[i];
    }
    float m = -INFINITY;
    int nan = 0;
    for (int k = 0; k < SM_LANES; k++) {
        m = mk[k] > m ? mk[k] : m;
        nan |= nk[k];
    }
    if (nan) m = NAN;
    for (int64_t i = 0; i < n; i++) y[i] = vm_expf(x[i] - m);
    double acc[SM_LANES] = {0};
    for (int64_t i = 0; i < full; i += SM_LANES)
        for (int k = 0; k < SM_LANES; k++) acc[k] += (double)y[i + k];
    for (int64_t i = full; i < n; i++) acc[i - full] += (double)y[i];
    for (int w = SM_LANES / 2; w > 0; w /= 2)
        for (int k = 0; k < w; k++) acc[k] += acc[k + w];
    double s = acc[0];
    if (lg) {
        float ls = (float)log(s);
        for (int64_t i = 0; i < n; i++) y[i] = x[i] - m - ls;
    } else {
        float inv = (float)(1.0 / s);
        for (int64_t i = 0; i < n; i++) y[i] *= inv;
    }
}

/* softmax / log_softmax over the lines [l0, l1) of L; each line on its own,
 * so the lines can be split over the run's threads (the same bits). */
typedef struct softmax_job {
    bool lg;
    const eir_tview *x;
    eir_tview *out;
    eir_dtype cast;
    lines L;
    _Atomic int oom;
} softmax_job;

static void softmax_lines(void *ctx, int64_t l0, int64_t l1) {
    softmax_job *j = ctx;
    const eir_tview *x = j->x;
    eir_tview *out = j->out;
    const lines *L = &j->L;
    bool lg = j->lg;
    eir_dtype cast = j->cast;
    size_t xes = eir_elsize(x->dtype), oes = eir_elsize(out->dtype);
    double *buf = eir_kalloc((size_t)(L->len > 0 ? L->len : 1) * sizeof *buf);
    if (!buf) { j->oom = 1; return; }
    for (int64_t l = l0; l < l1; l++) {
        int64_t off[3];
        lines_pos(L, l, off);
        const char *xb = (const char *)x->data + off[0] * (int64_t)xes;
        char *ob = (char *)out->data + off[1] * (int64_t)oes;
        if (x->dtype == EIR_F32 && out->dtype == EIR_F32 && !cast && L->lst[0] == 1 && L->lst[1] == 1) {
            softmax_f32((const float *)xb, (float *)ob, L->len, lg);
            continue;
        }
        if ((x->dtype == EIR_BF16 || x->dtype == EIR_F16) && out->dtype == x->dtype && !cast && L->lst[0] == 1 &&
            L->lst[1] == 1 && eir_kernels_fast) {
            /* float16 / bfloat16 as torch's reduced-float softmax: the line in float32, its float32
             * softmax, each value rounded once */
            float *xf = (float *)buf, *yf = xf + L->len;
            const uint16_t *xs = (const uint16_t *)xb;
            uint16_t *ys = (uint16_t *)ob;
            bool bf = x->dtype == EIR_BF16;
            (bf ? eir_bf16_to_f32_row : eir_f16_to_f32_row)(xf, xs, L->len);
            softmax_f32(xf, yf, L->len, lg);
            (bf ? eir_f32_to_bf16_row : eir_f32_to_f16_row)(ys, yf, L->len);
            continue;
        }
        double m = -INFINITY;
        for (int64_t i = 0; i < L->len; i++) {
            double v = ld(xb + i * L->lst[0] * (int64_t)xes, x->dtype);
            if (cast) v = cast_f(v, cast);
            buf[i] = v;
            if (v > m) m = v;
        }
        double s = 0;
        if (lg) {
            for (int64_t i = 0; i < L->len; i++) s += exp(buf[i] - m);
            double ls = log(s);
            for (int64_t i = 0; i < L->len; i++) eir_store_f64(ob + i * L->lst[1] * (int64_t)oes, out->dtype, buf[i] - m - ls);
        } else {
            for (int64_t i = 0; i < L->len; i++) s += buf[i] = exp(buf[i] - m);
            double inv = 1.0 / s;
            for (int64_t i = 0; i < L->len; i++) eir_store_f64(ob + i * L->lst[1] * (int64_t)oes, out->dtype, buf[i] * inv);
        }
    }
    eir_kfree(buf);
}

/* softmax / log_softmax over dim; cast: the dtype= conversion (or UNKNOWN). */
static int softmax_impl(bool lg, const eir_tview *x, int64_t dim64, eir_dtype cast, eir_tview *out, eir_kctx *ctx) {
    const char *kname = lg ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl";
    eir_dtype cd = cast ? cast : x->dtype;
    if (!is_real_float(cd) || !is_real_float(out->dtype)) return eir_kerr(ctx, "\"%s\" not implemented for '%s'", kname, tname(cd));
    int32_t dim = eir_wrap_dim(dim64, x->rank);
    if (dim < 0) { dim_range_err(ctx, dim64, x->rank); return -1; }
    if (!same_shape(x, out)) return eir_kerr(ctx, "%s: output shape does not match the input", lg ? "log_softmax" : "softmax");
    if (cast == x->dtype) cast = EIR_DTYPE_UNKNOWN;
    const eir_tview *vs[2] = {x, out};
    softmax_job j = {.lg = lg, .x = x, .out = out, .cast = cast};
    lines_init(&j.L, vs, 2, dim);
    /* a line costs about 20 operations per element (exp) */
    int64_t per = j.L.len > 0 ? j.L.len * 20 : 1;
    eir_parallel_for(eir_pool_current(), j.L.n, per >= (1 << 15) ? 1 : (1 << 15) / per, softmax_lines, &j);
    if (j.oom) return eir_kerr(ctx, "softmax: out of memory");
    return 0;
}
/* _softmax(self, dim, half_to_float) */
static int k__softmax_common(bool lg, const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args(lg ? "_log_softmax" : "_softmax", na, 2, no, 1, a, c)) return -1;
    if (barg(a, na, 2, false)) {
        if (a[0].t->dtype == EIR_F16 || a[0].t->dtype == EIR_BF16)
            return eir_kerr(c, "softmax with half to float conversion is not supported on CPU");
        return eir_kerr(c, "conversion is supported for Half type only");
    }
    return softmax_impl(lg, a[0].t, a[1].i, 0, &o[0], c);
}
static int k__softmax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return k__softmax_common(false, a, na, o, no, c); }
static int k__log_softmax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return k__softmax_common(true, a, na, o, no, c); }
/* softmax.int(self, dim, dtype?) */
static int k_softmax_int(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("softmax", na, 2, no, 1, a, c)) return -1;
    return softmax_impl(false, a[0].t, a[1].i, darg(a, na, 2), &o[0], c);
}
static int k_log_softmax_int(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("log_softmax", na, 2, no, 1, a, c)) return -1;
    return softmax_impl(true, a[0].t, a[1].i, darg(a, na, 2), &o[0], c);
}
/* _safe_softmax(self, dim, dtype?): softmax, with 0 (not NaN) for the lines
 * of self that are entirely -inf (attention rows that mask everything) */
static int k_safe_softmax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("_safe_softmax", na, 2, no, 1, a, c)) return -1;
    const eir_tview *x = a[0].t;
    if (softmax_impl(false, x, a[1].i, darg(a, na, 2), &o[0], c)) return -1;
    const eir_tview *vs[2] = {x, &o[0]};
    lines L;
    lines_init(&L, vs, 2, eir_wrap_dim(a[1].i, x->rank));
    size_t xes = eir_elsize(x->dtype), oes = eir_elsize(o[0].dtype);
    for (int64_t l = 0; l < L.n; l++) {
        int64_t off[3];
        lines_pos(&L, l, off);
        bool masked = true;
        for (int64_t i = 0; i < L.len && masked; i++)
            masked = ld((const char *)x->data + (off[0] + i * L.lst[0]) * (int64_t)xes, x->dtype) == -INFINITY;
        if (masked)
            for (int64_t i = 0; i < L.len; i++) eir_store_f64((char *)o[0].data + (off[1] + i * L.lst[1]) * (int64_t)oes, o[0].dtype, 0.0);
    }
    return 0;
}

/* ---- sort / argsort / topk ----------------------------------------------- */

typedef struct skey {
    union { double f; int64_t i; uint64_t u; } k;
    int64_t idx;
} skey;

/* Ascending with NaN largest; ties by index (stable). */
static int cmp_f_asc(const void *pa, const void *pb) {
    const skey *a = pa, *b = pb;
    bool na = isnan(a->k.f), nb = isnan(b->k.f);
    if (na != nb) return na ? 1 : -1;
    if (!na && a->k.f != b->k.f) return a->k.f < b->k.f ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}
static int cmp_f_desc(const void *pa, const void *pb) {
    const skey *a = pa, *b = pb;
    bool na = isnan(a->k.f), nb = isnan(b->k.f);
    if (na != nb) return na ? -1 : 1;
    if (!na && a->k.f != b->k.f) return a->k.f > b->k.f ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}
static int cmp_i_asc(const void *pa, const void *pb) {
    const skey *a = pa, *b = pb;
    if (a->k.i != b->k.i) return a->k.i < b->k.i ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}
static int cmp_i_desc(const void *pa, const void *pb) {
    const skey *a = pa, *b = pb;
    if (a->k.i != b->k.i) return a->k.i > b->k.i ? -1 : 1;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Sort every line of x along dim; write the first k of each line (k = -1:
 * all) to vals / idxs (either may be NULL). */
static int sort_lines(const char *op, const eir_tview *x, int64_t dim64, bool desc, int64_t k, eir_tview *vals,
                      eir_tview *idxs, eir_kctx *ctx) {
    if (eir_is_complex(x->dtype)) return eir_kerr(ctx, "%s: complex inputs are not supported", op);
    int32_t dim = eir_wrap_dim(dim64, x->rank);
    if (dim < 0) { dim_range_err(ctx, dim64, x->rank); return -1; }
    int64_t len = x->rank ? x->sizes[dim] : 1;
    if (k < 0) k = len;
    else if (k > len) return eir_kerr(ctx, "selected index k out of range");
    const eir_tview *ref = vals ? vals : idxs;
    if (ref->rank != x->rank) return eir_kerr(ctx, "%s: output rank does not match the input", op);
    for (int32_t d = 0; d < x->rank; d++)
        if ((vals && vals->sizes[d] != (d == dim ? k : x->sizes[d])) || (idxs && idxs->sizes[d] != (d == dim ? k : x->sizes[d])))
            return eir_kerr(ctx, "%s: output shape does not match the input", op);
    eir_tview vdummy = *x, idummy = *x;
    const eir_tview *vs[3] = {x, vals ? vals : &vdummy, idxs ? idxs : &idummy};
    lines L;
    lines_init(&L, vs, 3, dim);
    if (k == 0) return 0;
    skey *keys = eir_kalloc((size_t)(len > 0 ? len : 1) * sizeof *keys);
    if (!keys) return eir_kerr(ctx, "%s: out of memory", op);
    eir_dtype xd = x->dtype;
    size_t xes = eir_elsize(xd);
    bool fl = eir_is_floating(xd);
    int (*cmp)(const void *, const void *) = fl ? (desc ? cmp_f_desc : cmp_f_asc) : (desc ? cmp_i_desc : cmp_i_asc);
    for (int64_t l = 0; l < L.n; l++) {
        int64_t off[3];
        lines_pos(&L, l, off);
        const char *xb = (const char *)x->data + off[0] * (int64_t)xes;
        for (int64_t i = 0; i < len; i++) {
            const char *e = xb + i * L.lst[0] * (int64_t)xes;
            keys[i].idx = i;
            if (fl) keys[i].k.f = ld(e, xd);
            else if (xd == EIR_U64) keys[i].k.i = (int64_t)(*(const uint64_t *)e ^ 0x8000000000000000ull);
            else keys[i].k.i = eir_load_i64(e, xd);
        }
        qsort(keys, (size_t)len, sizeof *keys, cmp);
        for (int64_t i = 0; i < k; i++) {
            if (vals) {
                size_t ves = eir_elsize(vals->dtype);
                copy_elem((char *)vals->data + (off[1] + i * L.lst[1]) * (int64_t)ves, vals->dtype,
                          xb + keys[i].idx * L.lst[0] * (int64_t)xes, xd);
            }
            if (idxs)
                eir_store_i64((char *)idxs->data + (off[2] + i * L.lst[2]) * (int64_t)eir_elsize(idxs->dtype),
                              idxs->dtype, keys[i].idx);
        }
    }
    eir_kfree(keys);
    return 0;
}
/* sort.default(self, dim=-1, descending=False) */
static int k_sort(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("sort", na, 1, no, 2, a, c)) return -1;
    return sort_lines("sort", a[0].t, iarg(a, na, 1, -1), barg(a, na, 2, false), -1, &o[0], &o[1], c);
}
/* sort.stable(self, *, stable?, dim=-1, descending=False) */
static int k_sort_stable(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("sort", na, 1, no, 2, a, c)) return -1;
    return sort_lines("sort", a[0].t, iarg(a, na, 2, -1), barg(a, na, 3, false), -1, &o[0], &o[1], c);
}
/* argsort.default(self, dim=-1, descending=False) */
static int k_argsort(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("argsort", na, 1, no, 1, a, c)) return -1;
    return sort_lines("argsort", a[0].t, iarg(a, na, 1, -1), barg(a, na, 2, false), -1, NULL, &o[0], c);
}
/* argsort.stable(self, *, stable, dim=-1, descending=False) */
static int k_argsort_stable(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("argsort", na, 1, no, 1, a, c)) return -1;
    return sort_lines("argsort", a[0].t, iarg(a, na, 2, -1), barg(a, na, 3, false), -1, NULL, &o[0], c);
}
/* topk(self, k, dim=-1, largest=True, sorted=True): always sorted; ties
 * keep the lower index. */
static int k_topk(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("topk", na, 2, no, 2, a, c)) return -1;
    int64_t k = a[1].i;
    if (k < 0) return eir_kerr(c, "selected index k out of range");
    return sort_lines("topk", a[0].t, iarg(a, na, 2, -1), barg(a, na, 3, true), k, &o[0], &o[1], c);
}

/* ---- normalization ------------------------------------------------------- */

/* Optional per-element parameter (weight / bias) of a normalization. */
static inline double opt_at(const eir_tview *t, const int64_t *off, int64_t i, double dflt) {
    if (!t) return dflt;
    return ld((const char *)t->data + off[i] * (int64_t)eir_elsize(t->dtype), t->dtype);
}

/* 1/sqrt(var + eps) in torch's opmath type: float unless the input is
 * double (eps is cast to it too, which decides the last bit). */
static double rstd_of(double var, double eps, eir_dtype xd) {
    if (var < 0) var = 0;
    if (xd == EIR_F64) return 1.0 / sqrt(var + eps);
    return 1.0f / sqrtf((float)var + (float)eps);
}

static void mean_var(const double *v, int64_t n, double *mean, double *var) {
    if (n == 0) { *mean = 0; *var = NAN; return; }
    double m = pairwise_sum(v, n) / (double)n, s = 0;
    for (int64_t i = 0; i < n; i++) s += (v[i] - m) * (v[i] - m);
    *mean = m;
    *var = s / (double)n;
}

/* Rows [o0, o1) of a layer norm: each row on its own, so the rows can be
 * split over the run's threads (the same bits). */
typedef struct ln_job {
    const eir_tview *x, *y, *w, *b, *mo, *ro;
    const rplan *p;
    const int64_t *yoff, *woff, *boff, *yst;
    double eps;
    bool f32rows; /* float32 x, y, weight and bias, each row (and weight, bias) contiguous */
    bool redrows; /* the same in float16 / bfloat16: rows converted to float32 for ln_row_f32 (wf, bf) */
    const float *wf, *bf;
    _Atomic int oom;
} ln_job;

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && !defined(EIR_NO_CLONES) && \
    !defined(__SANITIZE_THREAD__)
#define LN_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("tree-vectorize")))
#else
#define LN_CLONES
#endif

enum { LN_LANES = 8 };

/* One contiguous float32 row of a layer norm, in doubles as the generic row: the mean and
 * the variance (two passes) each summed in LN_LANES interleaved partial sums, added
 * pairwise at the end (a fixed order: the same bits at any thread count), then
 * (x - mean) * rstd * w + b rounded once; no copy of the row, loops the compiler
 * vectorizes. */
LN_CLONES static void ln_row_f32(const float *restrict x, float *restrict y, const float *restrict w,
                                 const float *restrict b, int64_t n, double eps, double *mean_out, double *rstd_out) {
    double acc[LN_LANES] = {0};
    int64_t m = n - n % LN_LANES;
    for (int64_t i = 0; i < m; i += LN_LANES)
        for (int k = 0; k < LN_LANES; k++) acc[k] += (double)x[i + k];
    for (int64_t i = m; i < n; i++) acc[i - m] += (double)x[i];
    double mean = n ? (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))) / (double)n
                    : 0;
    for (int k = 0; k < LN_LANES; k++) acc[k] = 0;
    for (int64_t i = 0; i < m; i += LN_LANES)
        for (int k = 0; k < LN_LANES; k++) {
            double d = (double)x[i + k] - mean;
            acc[k] += d * d;
        }
    for (int64_t i = m; i < n; i++) acc[i - m] += ((double)x[i] - mean) * ((double)x[i] - mean);
    double var = n ? (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))) / (double)n
                   : NAN;
    double rstd = rstd_of(var, eps, EIR_F32);
    if (w && b)
        for (int64_t i = 0; i < n; i++) y[i] = (float)(((double)x[i] - mean) * rstd * (double)w[i] + (double)b[i]);
    else if (w)
        for (int64_t i = 0; i < n; i++) y[i] = (float)(((double)x[i] - mean) * rstd * (double)w[i]);
    else if (b)
        for (int64_t i = 0; i < n; i++) y[i] = (float)(((double)x[i] - mean) * rstd + (double)b[i]);
    else
        for (int64_t i = 0; i < n; i++) y[i] = (float)(((double)x[i] - mean) * rstd);
    *mean_out = mean;
    *rstd_out = rstd;
}

static void ln_rows(void *ctx, int64_t o0, int64_t o1) {
    ln_job *j = ctx;
    const rplan *p = j->p;
    const eir_tview *x = j->x, *w = j->w, *b = j->b, *mo = j->mo, *ro = j->ro;
    size_t xes = eir_elsize(x->dtype), yes = eir_elsize(j->y->dtype);
    double *buf = eir_kalloc((size_t)(p->nred > 0 ? p->nred : 1) * sizeof *buf);
    if (!buf) { j->oom = 1; return; }
    for (int64_t o = o0; o < o1; o++) {
        int64_t xi, mi, ri, yi = 0, t = o;
        plan_pos(p, o, &xi, &mi, &ri);
        for (int32_t d = p->orank - 1; d >= 0; d--) { yi += (t % p->osz[d]) * j->yst[d]; t /= p->osz[d]; }
        const char *xb = (const char *)x->data + xi * (int64_t)xes;
        char *yb = (char *)j->y->data + yi * (int64_t)yes;
        double mean, var, rstd;
        if (j->f32rows) {
            ln_row_f32((const float *)xb, (float *)yb, w ? (const float *)w->data : NULL, b ? (const float *)b->data : NULL,
                       p->nred, j->eps, &mean, &rstd);
        } else if (j->redrows) {
            /* the row exactly in float32, normalised as a float32 row, each value rounded once more to
             * x's type: what the generic loop computes (it stores double -> float -> x's type) */
            float *xf = (float *)buf, *yf = xf + p->nred;
            const uint16_t *xs = (const uint16_t *)xb;
            uint16_t *ys = (uint16_t *)yb;
            bool bf = x->dtype == EIR_BF16;
            (bf ? eir_bf16_to_f32_row : eir_f16_to_f32_row)(xf, xs, p->nred);
            ln_row_f32(xf, yf, j->wf, j->bf, p->nred, j->eps, &mean, &rstd);
            (bf ? eir_f32_to_bf16_row : eir_f32_to_f16_row)(ys, yf, p->nred);
        } else {
            for (int64_t i = 0; i < p->nred; i++) buf[i] = ld(xb + p->roff[i] * (int64_t)xes, x->dtype);
            mean_var(buf, p->nred, &mean, &var);
            rstd = rstd_of(var, j->eps, x->dtype);
            for (int64_t i = 0; i < p->nred; i++) {
                double y = (buf[i] - mean) * rstd * opt_at(w, j->woff, i, 1.0) + opt_at(b, j->boff, i, 0.0);
                eir_store_f64(yb + j->yoff[i] * (int64_t)yes, j->y->dtype, y);
            }
        }
        if (mo) eir_store_f64((char *)mo->data + mi * (int64_t)eir_elsize(mo->dtype), mo->dtype, mean);
        if (ro) eir_store_f64((char *)ro->data + ri * (int64_t)eir_elsize(ro->dtype), ro->dtype, rstd);
    }
    eir_kfree(buf);
}

/* A contiguous float32 copy of x (rows of it gathered in x's order), or NULL when out of memory. */
static float *contig_f32(const eir_tview *x, eir_tview *v) {
    int64_t n = eir_tview_numel(x);
    float *buf = eir_kalloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (!buf) return NULL;
    *v = *x;
    v->data = buf;
    int64_t st = 1;
    for (int32_t d = x->rank - 1; d >= 0; d--) {
        v->strides[d] = st;
        st *= x->sizes[d];
    }
    eir_iter it;
    const eir_tview *ops[2] = {v, x};
    eir_iter_init(&it, x->rank, x->sizes, 2, ops);
    char *p[2];
    int64_t len, ds = it.inner_stride[0] / 4, ss = it.inner_stride[1] / 4;
    while (eir_iter_next(&it, p, &len)) {
        float *d = (float *)p[0];
        const float *s = (const float *)p[1];
        for (int64_t k = 0; k < len; k++) d[k * ds] = s[k * ss];
    }
    return buf;
}

static int layer_norm_x(const eir_tview *x, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, double eps,
                        eir_kctx *ctx);

/* native_layer_norm(input, normalized_shape, weight?, bias?, eps) -> (y, mean, rstd); nout 1: layer_norm */
static int layer_norm_impl(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, double eps, eir_kctx *ctx) {
    const eir_tview *x = a[0].t;
    /* a float32 input laid out otherwise (a transposed sequence, as Whisper's encoder keeps its
     * activations) normalised from a contiguous copy of it, on the vectorised rows */
    eir_tview xcv;
    float *xc = NULL;
    if (eir_kernels_fast && x->dtype == EIR_F32 && x->rank >= 1 && !eir_tview_is_contiguous(x) &&
        eir_tview_numel(x) > 0 && (xc = contig_f32(x, &xcv)) != NULL)
        x = &xcv;
    int rc = layer_norm_x(x, a, na, out, no, eps, ctx);
    eir_kfree(xc);
    return rc;
}

static int layer_norm_x(const eir_tview *x, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, double eps,
                        eir_kctx *ctx) {
    if (a[1].kind != EIR_KA_INTS && a[1].kind != EIR_KA_INT) return eir_kerr(ctx, "layer_norm: normalized_shape must be a list of ints");
    uint32_t nn = a[1].kind == EIR_KA_INT ? 1 : a[1].n;
    const int64_t *ns = a[1].kind == EIR_KA_INT ? &a[1].i : a[1].ints;
    int32_t axis = x->rank - (int32_t)nn;
    bool bad = axis < 0;
    for (uint32_t k = 0; !bad && k < nn; k++) bad = x->sizes[axis + (int32_t)k] != ns[k];
    if (bad) {
        char buf[160], *p = buf;
        size_t left = sizeof buf;
        for (uint32_t k = 0; k < nn && left > 24; k++) {
            int nw = snprintf(p, left, "%s%lld", k ? ", " : "", (long long)ns[k]);
            p += nw; left -= (size_t)nw;
        }
        return eir_kerr(ctx, "Given normalized_shape=[%s], expected input with shape [*, %s], but got input of a different size", buf, buf);
    }
    const eir_tview *w = targ(a, na, 2), *b = targ(a, na, 3);
    if (!same_shape(x, &out[0])) return eir_kerr(ctx, "layer_norm: output shape does not match the input");
    bool mask[EIR_MAX_RANK] = {false}, wmask[EIR_MAX_RANK];
    for (int32_t d = axis; d < x->rank; d++) mask[d] = true;
    for (int32_t d = 0; d < EIR_MAX_RANK; d++) wmask[d] = true;
    rplan p;
    eir_tview *mo = no >= 3 ? &out[1] : NULL, *ro = no >= 3 ? &out[2] : NULL;
    /* plan over x; y uses the same kept/reduced split with its own offsets */
    if (plan_init(&p, x, mask, true, mo, ro, "native_layer_norm", ctx)) return -1;
    int64_t ny, nw = 0, nb = 0, *yoff = list_offsets(&out[0], mask, &ny);
    int64_t *woff = w ? list_offsets(w, wmask, &nw) : NULL, *boff = b ? list_offsets(b, wmask, &nb) : NULL;
    int rc = 0;
    if (!yoff || (w && !woff) || (b && !boff)) { rc = eir_kerr(ctx, "layer_norm: out of memory"); goto done; }
    if ((w && nw != p.nred) || (b && nb != p.nred)) { rc = eir_kerr(ctx, "layer_norm: weight and bias must have the normalized shape"); goto done; }
    /* kept-dim strides of y (same shape as x) */
    int64_t yst[EIR_MAX_RANK];
    for (int32_t d = 0, j = 0; d < x->rank; d++) if (!mask[d]) yst[j++] = out[0].strides[d];
    bool f32rows = x->dtype == EIR_F32 && out[0].dtype == EIR_F32 && (!w || w->dtype == EIR_F32) &&
                   (!b || b->dtype == EIR_F32);
    for (int64_t i = 0; f32rows && i < p.nred; i++)
        f32rows = p.roff[i] == i && yoff[i] == i && (!w || woff[i] == i) && (!b || boff[i] == i);
    eir_dtype xd = x->dtype;
    bool redrows = eir_kernels_fast && (xd == EIR_BF16 || xd == EIR_F16) && out[0].dtype == xd && (!w || w->dtype == xd) &&
                   (!b || b->dtype == xd);
    for (int64_t i = 0; redrows && i < p.nred; i++)
        redrows = p.roff[i] == i && yoff[i] == i && (!w || woff[i] == i) && (!b || boff[i] == i);
    float *wbf = NULL; /* weight and bias in float32 (exact), one after the other */
    if (redrows && (w || b)) {
        if (!(wbf = eir_kalloc((size_t)(2 * p.nred) * sizeof(float)))) redrows = false;
        for (int64_t i = 0; redrows && i < p.nred; i++) {
            if (w) wbf[i] = (float)ld((const char *)w->data + i * 2, xd);
            if (b) wbf[p.nred + i] = (float)ld((const char *)b->data + i * 2, xd);
        }
    }
    ln_job j = {x, &out[0], w, b, mo, ro, &p, yoff, woff, boff, yst, eps, f32rows, redrows,
                redrows && w ? wbf : NULL, redrows && b ? wbf + p.nred : NULL, 0};
    eir_parallel_for(eir_pool_current(), p.nout, p.nred * 8 >= (1 << 15) ? 1 : (1 << 15) / (p.nred * 8 + 1),
                     ln_rows, &j);
    eir_kfree(wbf);
    if (j.oom) rc = eir_kerr(ctx, "layer_norm: out of memory");
done:
    eir_kfree(yoff); eir_kfree(woff); eir_kfree(boff); eir_kfree(p.roff);
    return rc;
}
static int k_native_layer_norm(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("native_layer_norm", na, 5, no, 3, a, c)) return -1;
    return layer_norm_impl(a, na, o, 3, farg(a, na, 4, 1e-5), c);
}
/* layer_norm(input, normalized_shape, weight?, bias?, eps=1e-5, cudnn_enable) */
static int k_layer_norm(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("layer_norm", na, 2, no, 1, a, c)) return -1;
    return layer_norm_impl(a, na, o, 1, farg(a, na, 4, 1e-5), c);
}

/* Eval-mode batch norm over channel dim 1 with running statistics; save_mean
 * and save_invstd (when given and non-empty) get the running mean and
 * 1/sqrt(var + eps). */
static int batch_norm_eval(const char *op, const eir_tview *x, const eir_tview *w, const eir_tview *b,
                           const eir_tview *rm, const eir_tview *rv, double eps, eir_tview *out, uint32_t no,
                           eir_kctx *ctx) {
    if (!rm || !rv) return eir_kerr(ctx, "%s: running_mean and running_var must be defined in evaluation mode", op);
    if (x->rank < 2) return eir_kerr(ctx, "%s: expected an input with at least 2 dims, got %d", op, x->rank);
    if (!same_shape(x, &out[0])) return eir_kerr(ctx, "%s: output shape does not match the input", op);
    int64_t C = x->sizes[1];
    const eir_tview *per[4] = {w, b, rm, rv};
    for (int k = 0; k < 4; k++)
        if (per[k] && (per[k]->rank != 1 || per[k]->sizes[0] != C))
            return eir_kerr(ctx, "%s: per-channel tensors must have shape [%lld]", op, (long long)C);
    size_t xes = eir_elsize(x->dtype), yes = eir_elsize(out[0].dtype);
    /* float32, both contiguous: N planes of P elements per channel */
    bool half = x->dtype == EIR_BF16 || x->dtype == EIR_F16; /* float16 / bfloat16: the same on converted planes */
    bool fast = eir_kernels_fast && (x->dtype == EIR_F32 || half) && out[0].dtype == x->dtype &&
                eir_tview_is_contiguous(x) && eir_tview_is_contiguous(&out[0]);
    int64_t N = x->sizes[0], P = 1;
    for (int32_t d = 2; d < x->rank; d++) P *= x->sizes[d];
    /* the fast path: every channel's alpha and beta first, then one pass (on the run's threads) */
    double *ab = fast ? eir_kalloc((size_t)(2 * C > 0 ? 2 * C : 1) * sizeof(double)) : NULL;
    if (!ab) fast = false;
    for (int64_t c = 0; c < C; c++) {
        double mean = ld((const char *)rm->data + c * rm->strides[0] * (int64_t)eir_elsize(rm->dtype), rm->dtype);
        double var = ld((const char *)rv->data + c * rv->strides[0] * (int64_t)eir_elsize(rv->dtype), rv->dtype);
        double invstd = rstd_of(var, eps, x->dtype);
        double ww = w ? ld((const char *)w->data + c * w->strides[0] * (int64_t)eir_elsize(w->dtype), w->dtype) : 1.0;
        double bb = b ? ld((const char *)b->data + c * b->strides[0] * (int64_t)eir_elsize(b->dtype), b->dtype) : 0.0;
        double alpha = invstd * ww, beta = bb - mean * alpha;
        if (fast) {
            ab[c] = alpha;
            ab[C + c] = beta;
            goto stats;
        }
        /* the channel slice: every dim except 1 */
        eir_tview xs = *x, ys = out[0];
        xs.data = (char *)x->data + c * x->strides[1] * (int64_t)xes;
        ys.data = (char *)out[0].data + c * out[0].strides[1] * (int64_t)yes;
        xs.sizes[1] = ys.sizes[1] = 1;
        const eir_tview *ops[2] = {&ys, &xs};
        eir_iter it;
        eir_iter_init(&it, xs.rank, xs.sizes, 2, ops);
        char *pp[EIR_ITER_MAX_OPS];
        int64_t n;
        while (eir_iter_next(&it, pp, &n))
            for (int64_t i = 0; i < n; i++) {
                double v = ld(pp[1] + i * it.inner_stride[1], x->dtype);
                eir_store_f64(pp[0] + i * it.inner_stride[0], out[0].dtype, v * alpha + beta);
            }
    stats:
        for (uint32_t j = 1; j < no && j < 3; j++)
            if (eir_tview_numel(&out[j]) == C && out[j].rank == 1)
                eir_store_f64((char *)out[j].data + c * out[j].strides[0] * (int64_t)eir_elsize(out[j].dtype),
                              out[j].dtype, j == 1 ? mean : invstd);
    }
    int rc = 0;
    if (fast && !half) eir_batch_norm_apply_f32((const float *)x->data, (float *)out[0].data, N, C, P, ab, ab + C);
    if (fast && half && !eir_batch_norm_apply_half((const uint16_t *)x->data, (uint16_t *)out[0].data,
                                                   x->dtype == EIR_BF16, N, C, P, ab, ab + C))
        rc = eir_kerr(ctx, "%s: out of memory", op);
    eir_kfree(ab);
    return rc;
}
/* _native_batch_norm_legit_no_training(input, weight?, bias?, running_mean, running_var, momentum, eps) */
static int k_bn_no_training(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("_native_batch_norm_legit_no_training", na, 7, no, 1, a, c)) return -1;
    return batch_norm_eval("_native_batch_norm_legit_no_training", a[0].t, targ(a, na, 1), targ(a, na, 2),
                           targ(a, na, 3), targ(a, na, 4), farg(a, na, 6, 1e-5), o, no, c);
}
/* native_batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps)
 * -> (out, save_mean, save_invstd). In training mode torch's kernel writes
 * running_mean/running_var in place although the schema does not say so;
 * scripts/gen_ops.py lists these arguments as written, so the runtime gives
 * them private copies as it does for Tensor(a!) arguments. */
static int k_native_batch_norm(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("native_batch_norm", na, 8, no, 1, a, c)) return -1;
    if (barg(a, na, 5, false))
        return eir_batch_norm_training(c, "native_batch_norm", a[0].t, targ(a, na, 1), targ(a, na, 2), targ(a, na, 3),
                                       targ(a, na, 4), farg(a, na, 6, 0.1), farg(a, na, 7, 1e-5), &o[0],
                                       no > 1 ? &o[1] : NULL, no > 2 ? &o[2] : NULL);
    return batch_norm_eval("native_batch_norm", a[0].t, targ(a, na, 1), targ(a, na, 2), targ(a, na, 3),
                           targ(a, na, 4), farg(a, na, 7, 1e-5), o, no, c);
}
/* batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum, eps, cudnn_enabled):
 * what a BatchNorm module exports to before decompositions; running stats as above */
static int k_batch_norm(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("batch_norm", na, 8, no, 1, a, c)) return -1;
    /* torch's _batch_norm_impl_index: an empty input gives an empty result (out * weight[0] + bias[0]) */
    if (eir_tview_numel(a[0].t) == 0) {
        for (int k = 1; k <= 2; k++) {
            const eir_tview *t = targ(a, na, (uint32_t)k);
            if (t && eir_tview_numel(t) == 0)
                return eir_kerr(c, "index 0 is out of bounds for dimension 0 with size 0");
        }
        return 0;
    }
    if (barg(a, na, 5, false))
        return eir_batch_norm_training(c, "batch_norm", a[0].t, targ(a, na, 1), targ(a, na, 2), targ(a, na, 3),
                                       targ(a, na, 4), farg(a, na, 6, 0.1), farg(a, na, 7, 1e-5), &o[0], NULL, NULL);
    return batch_norm_eval("batch_norm", a[0].t, targ(a, na, 1), targ(a, na, 2), targ(a, na, 3), targ(a, na, 4),
                           farg(a, na, 7, 1e-5), o, 1, c);
}

/* Group norm over x = [N, C, *]: G groups of C/G channels; mean / rstd are
 * [N, G] when given. */
static int group_norm_impl(const char *op, const eir_tview *x, const eir_tview *w, const eir_tview *b, int64_t G,
                           double eps, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (x->rank < 2) return eir_kerr(ctx, "%s: expected an input with at least 2 dims, got %d", op, x->rank);
    int64_t N = x->sizes[0], C = x->sizes[1];
    if (G <= 0 || C % G) {
        char shp[160], *p = shp;
        size_t left = sizeof shp;
        for (int32_t d = 0; d < x->rank && left > 24; d++) {
            int n = snprintf(p, left, "%s%lld", d ? ", " : "", (long long)x->sizes[d]);
            p += n; left -= (size_t)n;
        }
        return eir_kerr(ctx, "Expected number of channels in input to be divisible by num_groups, but got input of shape [%s] and num_groups=%lld",
                        shp, (long long)G);
    }
    if (!same_shape(x, &out[0])) return eir_kerr(ctx, "%s: output shape does not match the input", op);
    if ((w && eir_tview_numel(w) != C) || (b && eir_tview_numel(b) != C))
        return eir_kerr(ctx, "%s: weight and bias must have %lld elements", op, (long long)C);
    bool mask[EIR_MAX_RANK] = {false};
    for (int32_t d = 1; d < x->rank; d++) mask[d] = true;
    int64_t nx, ny;
    int64_t *xoff = list_offsets(x, mask, &nx), *yoff = list_offsets(&out[0], mask, &ny);
    int64_t HW = C ? nx / C : 0, gsz = (C / G) * HW;
    double *buf = eir_kalloc((size_t)(gsz > 0 ? gsz : 1) * sizeof *buf);
    int rc = 0;
    if (!xoff || !yoff || !buf) { rc = eir_kerr(ctx, "%s: out of memory", op); goto done; }
    size_t xes = eir_elsize(x->dtype), yes = eir_elsize(out[0].dtype);
    eir_tview *mo = no >= 3 ? &out[1] : NULL, *ro = no >= 3 ? &out[2] : NULL;
    if (mo && (eir_tview_numel(mo) != N * G || eir_tview_numel(ro) != N * G)) {
        rc = eir_kerr(ctx, "%s: mean and rstd must have %lld elements", op, (long long)(N * G));
        goto done;
    }
    for (int64_t n = 0; n < N; n++) {
        const char *xb = (const char *)x->data + n * x->strides[0] * (int64_t)xes;
        char *yb = (char *)out[0].data + n * out[0].strides[0] * (int64_t)yes;
        for (int64_t g = 0; g < G; g++) {
            const int64_t *xo = xoff + g * gsz, *yo = yoff + g * gsz;
            for (int64_t i = 0; i < gsz; i++) buf[i] = ld(xb + xo[i] * (int64_t)xes, x->dtype);
            double mean, var;
            mean_var(buf, gsz, &mean, &var);
            double rstd = rstd_of(var, eps, x->dtype);
            for (int64_t i = 0; i < gsz; i++) {
                int64_t c = g * (C / G) + i / HW;
                double ww = w ? ld((const char *)w->data + c * w->strides[0] * (int64_t)eir_elsize(w->dtype), w->dtype) : 1.0;
                double bb = b ? ld((const char *)b->data + c * b->strides[0] * (int64_t)eir_elsize(b->dtype), b->dtype) : 0.0;
                eir_store_f64(yb + yo[i] * (int64_t)yes, out[0].dtype, (buf[i] - mean) * rstd * ww + bb);
            }
            if (mo) {
                int64_t li[2] = {n, g}, off_m = 0, off_r = 0;
                /* mean / rstd: [N, G] (any strides) */
                if (mo->rank == 2) { off_m = li[0] * mo->strides[0] + li[1] * mo->strides[1]; }
                else off_m = n * G + g;
                if (ro->rank == 2) { off_r = li[0] * ro->strides[0] + li[1] * ro->strides[1]; }
                else off_r = n * G + g;
                eir_store_f64((char *)mo->data + off_m * (int64_t)eir_elsize(mo->dtype), mo->dtype, mean);
                eir_store_f64((char *)ro->data + off_r * (int64_t)eir_elsize(ro->dtype), ro->dtype, rstd);
            }
        }
    }
done:
    eir_kfree(xoff); eir_kfree(yoff); eir_kfree(buf);
    return rc;
}
/* native_group_norm(input, weight?, bias?, N, C, HxW, group, eps) -> (y, mean, rstd) */
static int k_native_group_norm(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("native_group_norm", na, 8, no, 3, a, c)) return -1;
    const eir_tview *x = a[0].t;
    int64_t N = a[3].i, C = a[4].i, HW = a[5].i;
    if (x->rank < 2 || x->sizes[0] != N || x->sizes[1] != C || eir_tview_numel(x) != N * C * HW)
        return eir_kerr(c, "native_group_norm: input does not match N=%lld, C=%lld, HxW=%lld", (long long)N, (long long)C, (long long)HW);
    return group_norm_impl("native_group_norm", x, targ(a, na, 1), targ(a, na, 2), a[6].i, farg(a, na, 7, 1e-5), o, 3, c);
}
/* group_norm(input, num_groups, weight?, bias?, eps=1e-5, cudnn_enabled) */
static int k_group_norm(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (need_args("group_norm", na, 2, no, 1, a, c)) return -1;
    return group_norm_impl("group_norm", a[0].t, targ(a, na, 2), targ(a, na, 3), a[1].i, farg(a, na, 4, 1e-5), o, 1, c);
}

/* ---- table ---------------------------------------------------------------- */

const eir_kernel_entry eir_kernels_reduce[] = {
    {"aten.sum.default", k_sum_default},
    {"aten.sum.dim_IntList", k_sum_dim},
    {"aten.mean.default", k_mean_default},
    {"aten.mean.dim", k_mean_dim},
    {"aten.prod.default", k_prod_default},
    {"aten.prod.dim_int", k_prod_dim},
    {"aten.amax.default", k_amax},
    {"aten.amin.default", k_amin},
    {"aten.max.default", k_max_default},
    {"aten.min.default", k_min_default},
    {"aten.max.dim", k_max_dim},
    {"aten.min.dim", k_min_dim},
    {"aten.argmax.default", k_argmax},
    {"aten.argmin.default", k_argmin},
    {"aten.any.default", k_any_default},
    {"aten.any.dim", k_any_dim},
    {"aten.any.dims", k_any_dims},
    {"aten.all.default", k_all_default},
    {"aten.all.dim", k_all_dim},
    {"aten.all.dims", k_all_dims},
    {"aten.var.correction", k_var_corr},
    {"aten.var.dim", k_var_dim},
    {"aten.std.correction", k_std_corr},
    {"aten.std.dim", k_std_dim},
    {"aten.var_mean.correction", k_var_mean_corr},
    {"aten.var_mean.dim", k_var_mean_dim},
    {"aten.var_mean.default", k_var_mean_all},
    {"aten.var.default", k_var_all},
    {"aten.std.default", k_std_all},
    {"aten.std_mean.correction", k_std_mean_corr},
    {"aten.std_mean.dim", k_std_mean_dim},
    {"aten.std_mean.default", k_std_mean_all},
    {"aten.nansum.default", k_nansum},
    {"aten.nanmean.default", k_nanmean},
    {"aten.aminmax.default", k_aminmax},
    {"aten._aminmax.default", k__aminmax},
    {"aten._aminmax.dim", k_aminmax},
    {"aten.logsumexp.default", k_logsumexp},
    {"aten.norm.ScalarOpt_dim", k_norm_dim},
    {"aten.norm.Scalar", k_norm_scalar},
    {"aten.linalg_vector_norm.default", k_vector_norm},
    {"aten.cumsum.default", k_cumsum},
    {"aten.cumprod.default", k_cumprod},
    {"aten._softmax.default", k__softmax},
    {"aten._log_softmax.default", k__log_softmax},
    {"aten.softmax.int", k_softmax_int},
    {"aten.log_softmax.int", k_log_softmax_int},
    {"aten._safe_softmax.default", k_safe_softmax},
    {"aten.native_layer_norm.default", k_native_layer_norm},
    {"aten.layer_norm.default", k_layer_norm},
    {"aten._native_batch_norm_legit_no_training.default", k_bn_no_training},
    {"aten.native_batch_norm.default", k_native_batch_norm},
    {"aten.batch_norm.default", k_batch_norm},
    {"aten.native_group_norm.default", k_native_group_norm},
    {"aten.group_norm.default", k_group_norm},
    {"aten.topk.default", k_topk},
    {"aten.sort.default", k_sort},
    {"aten.sort.stable", k_sort_stable},
    {"aten.argsort.default", k_argsort},
    {"aten.argsort.stable", k_argsort_stable},
    {NULL, NULL},
};
