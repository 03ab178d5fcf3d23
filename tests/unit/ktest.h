/* ktest.h — helpers for the kernel tests (spatial.c, fft.c, misc.c, compose.c, stats.c, loss.c, ...):
 * tensors in several memory layouts, random fills, element access by
 * row-major position, argument constructors and a kernel runner that looks
 * the op up in every kernel table. Header-only; each test includes it once. */
#ifndef EIR_KTEST_H
#define EIR_KTEST_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/kutil.h"
#include "kernels/tables.h"

static uint64_t kt_rng = 88172645463325252ull;
static inline double urand(void) { /* [-1, 1) */
    kt_rng ^= kt_rng << 13; kt_rng ^= kt_rng >> 7; kt_rng ^= kt_rng << 17;
    return (double)(kt_rng >> 11) / 9007199254740992.0 * 2 - 1;
}
static inline int64_t irand(int64_t lo, int64_t hi) { return lo + (int64_t)((urand() + 1) / 2 * (double)(hi - lo + 1)) % (hi - lo + 1); }

typedef struct tt { eir_tview v; void *buf; } tt;

/* layout: 0 contiguous, 1 dims in reverse memory order, 2 padded (gaps between rows and elements),
 * 3 channels-last style (dim 1 innermost) */
static inline tt tnew(eir_dtype dt, int32_t rank, const int64_t *sizes, int layout) {
    tt t;
    memset(&t, 0, sizeof t);
    t.v.dtype = dt;
    t.v.rank = rank;
    int32_t order[EIR_MAX_RANK];
    for (int32_t i = 0; i < rank; i++) order[i] = rank - 1 - i;
    if (layout == 1) for (int32_t i = 0; i < rank; i++) order[i] = i;
    if (layout == 3 && rank >= 3) { int32_t k = 0; order[k++] = 1; for (int32_t d = rank - 1; d >= 0; d--) if (d != 1) order[k++] = d; }
    int64_t st = 1;
    for (int32_t i = 0; i < rank; i++) {
        int32_t d = order[i];
        t.v.sizes[d] = sizes[d];
        t.v.strides[d] = st;
        st *= sizes[d] + (layout == 2 ? 1 : 0);
        if (layout == 2 && i == 0) t.v.strides[d] = 2, st *= 2;
    }
    size_t n = (size_t)(st > 0 ? st : 1) * eir_dtype_size(dt) + 64;
    t.buf = calloc(1, n);
    t.v.data = t.buf;
    return t;
}
static inline void tfree(tt *t) { free(t->buf); t->buf = NULL; }
static inline int64_t numel(const eir_tview *v) { int64_t n = 1; for (int i = 0; i < v->rank; i++) n *= v->sizes[i]; return n; }
static inline void unravel(const eir_tview *v, int64_t k, int64_t *idx) {
    for (int32_t d = v->rank - 1; d >= 0; d--) { idx[d] = v->sizes[d] ? k % v->sizes[d] : 0; if (v->sizes[d]) k /= v->sizes[d]; }
}
static inline double getk(const eir_tview *v, int64_t k) { int64_t idx[EIR_MAX_RANK]; unravel(v, k, idx); return eir_load_f64(eir_tview_at(v, idx), v->dtype); }
static inline void setk(const eir_tview *v, int64_t k, double x) { int64_t idx[EIR_MAX_RANK]; unravel(v, k, idx); eir_store_f64(eir_tview_at(v, idx), v->dtype, x); }
static inline void getck(const eir_tview *v, int64_t k, double *re, double *im) { int64_t idx[EIR_MAX_RANK]; unravel(v, k, idx); eir_load_c128(eir_tview_at(v, idx), v->dtype, re, im); }
static inline void setck(const eir_tview *v, int64_t k, double re, double im) { int64_t idx[EIR_MAX_RANK]; unravel(v, k, idx); eir_store_c128(eir_tview_at(v, idx), v->dtype, re, im); }
/* values exactly representable in the dtype, so references see what the kernel sees */
static inline void fill_rand(const eir_tview *v) {
    int64_t n = numel(v);
    for (int64_t k = 0; k < n; k++) {
        if (eir_is_complex(v->dtype)) { setck(v, k, urand(), urand()); continue; }
        setk(v, k, eir_is_integral(v->dtype, false) ? (double)irand(-20, 20) : v->dtype == EIR_U8 ? (double)irand(0, 255) : urand() * 2);
    }
}
static inline void fill_poison(const eir_tview *v) { /* unwritten outputs show as NaN / -77 */
    int64_t n = numel(v);
    for (int64_t k = 0; k < n; k++) setk(v, k, eir_is_floating(v->dtype) ? NAN : -77);
}
static inline double tol_of(eir_dtype dt) {
    switch (dt) {
    case EIR_F64: case EIR_C128: return 1e-11;
    case EIR_F32: case EIR_C64: return 3e-6;
    case EIR_F16: return 2e-3;
    case EIR_BF16: return 1.6e-2;
    default: return 0;
    }
}
/* max |got - want| / (1 + |want|); NaN must match NaN */
static inline double max_err(const eir_tview *got, const double *want) {
    int64_t n = numel(got);
    double e = 0;
    for (int64_t k = 0; k < n; k++) {
        double g = getk(got, k), w = want[k];
        if (isnan(w) || isnan(g)) { if (!(isnan(w) && isnan(g))) return INFINITY; continue; }
        if (isinf(w) || isinf(g)) { if (g != w) return INFINITY; continue; }
        double d = fabs(g - w) / (1 + fabs(w));
        if (d > e) e = d;
    }
    return e;
}
/* the reference rounded to the output dtype first (what a correct kernel stores) */
static inline double *rounded(const eir_tview *like, const double *want) {
    int64_t n = numel(like);
    double *r = malloc((size_t)(n + 1) * sizeof *r);
    unsigned char tmp[16];
    for (int64_t k = 0; k < n; k++) { eir_store_f64(tmp, like->dtype, want[k]); r[k] = eir_load_f64(tmp, like->dtype); }
    return r;
}
static double worst[4];
static inline int dslot(eir_dtype dt) { return dt == EIR_F32 || dt == EIR_C64 ? 0 : dt == EIR_F64 || dt == EIR_C128 ? 1 : dt == EIR_F16 ? 2 : dt == EIR_BF16 ? 3 : -1; }
static inline bool close_to(const eir_tview *got, const double *want, double tol, const char *what) {
    double e = max_err(got, want);
    int s = dslot(got->dtype);
    if (s >= 0 && e > worst[s] && !isinf(e)) worst[s] = e;
    if (e <= tol) return true;
    fprintf(stderr, "%s: max error %g > %g (dtype %s)\n", what, e, tol, eir_torch_dtype_name(got->dtype));
    return false;
}
static inline void print_worst(const char *name) {
    printf("%s: worst relative error vs references: f32 %.3g, f64 %.3g, f16 %.3g, bf16 %.3g\n", name, worst[0], worst[1], worst[2], worst[3]);
}

static inline eir_karg KT(const eir_tview *t) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSOR; a.t = t; return a; }
static inline eir_karg KN(void) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_NONE; return a; }
static inline eir_karg KI(int64_t i) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_INT; a.i = i; a.s.kind = EIR_SC_INT; a.s.i = i; a.s.f = (double)i; return a; }
static inline eir_karg KB(bool b) { eir_karg a = KI(b); a.kind = EIR_KA_BOOL; a.s.kind = EIR_SC_BOOL; return a; }
static inline eir_karg KF(double f) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_FLOAT; a.f = f; a.s.kind = EIR_SC_FLOAT; a.s.f = f; return a; }
static inline eir_karg KIS(uint32_t n, const int64_t *v) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_INTS; a.n = n; a.ints = v; return a; }
static inline eir_karg KFS(uint32_t n, const double *v) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_FLOATS; a.n = n; a.floats = v; return a; }
static inline eir_karg KSTR(const char *s) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_STRING; a.str = s; return a; }

static char errbuf[512];
static inline eir_kernel_fn find_op(const char *op) {
    const eir_kernel_entry *const tables[] = {eir_kernels_spatial, eir_kernels_fft,      eir_kernels_misc,
                                              eir_kernels_nn,      eir_kernels_stats,    eir_kernels_loss,
                                              eir_kernels_reduce,  eir_kernels_pointwise, eir_kernels_random,
                                              eir_kernels_compose};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const eir_kernel_entry *e = tables[t]; e->op; e++)
            if (!strcmp(e->op, op)) return e->fn;
    fprintf(stderr, "no kernel %s\n", op);
    return NULL;
}
static inline int run(const char *op, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no) {
    eir_kctx ctx = {.err = errbuf, .errlen = sizeof errbuf, .nthreads = 1};
    errbuf[0] = 0;
    eir_kernel_fn f = find_op(op);
    if (!f) return -2;
    return f(a, na, out, no, &ctx);
}
/* the kernel fails and its message contains needle */
#define CHECK_FAILS(call, needle) do { CHECK((call) == -1); CHECK(strstr(errbuf, (needle)) != NULL); if (!strstr(errbuf, (needle))) fprintf(stderr, "  message was: %s\n", errbuf); } while (0)

#endif
