/* test_k_data.c — the data-movement kernels (src/kernels/data.c) against
 * straightforward references: random shapes, negative dims/indices,
 * transposed and padded (non-contiguous) inputs and outputs, empty and 0-d
 * tensors, several dtypes; index.Tensor / index_put against torch-computed
 * cases; out-of-range indices give torch's errors. Outputs live in padded
 * storage whose gaps are checked to stay untouched. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "kernels/kutil.h"
#include "kernels/tables.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void) { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
static int64_t rint_(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static eir_kernel_fn K(const char *name) {
    for (const eir_kernel_entry *e = eir_kernels_data; e->op; e++)
        if (!strcmp(e->op, name)) return e->fn;
    fprintf(stderr, "missing kernel %s\n", name);
    return NULL;
}

/* a tensor in its own storage: layout 0 contiguous, 1 reversed dim order
 * (transposed), 2 padded (gaps between elements) */
typedef struct T {
    eir_tview v;
    unsigned char *buf;
    size_t nbytes;
} T;

enum { SENT = 0xA5 };

static T mk(eir_dtype dt, int32_t rank, const int64_t *sizes, int layout) {
    T t;
    memset(&t, 0, sizeof t);
    t.v.dtype = dt;
    t.v.rank = rank;
    int64_t st = 1;
    for (int32_t k = 0; k < rank; k++) {
        int32_t i = layout == 1 ? k : rank - 1 - k;
        t.v.sizes[i] = sizes[i];
        t.v.strides[i] = st * (layout == 2 ? 2 : 1);
        st *= (sizes[i] > 0 ? sizes[i] : 1) * (layout == 2 ? 2 : 1);
    }
    size_t es = eir_elsize(dt);
    t.nbytes = (size_t)st * es + 16;
    t.buf = malloc(t.nbytes);
    memset(t.buf, SENT, t.nbytes);
    t.v.data = t.buf;
    return t;
}

static void put(const eir_tview *v, const int64_t *idx, double x) { eir_store_f64(eir_tview_at(v, idx), v->dtype, x); }
static double get(const eir_tview *v, const int64_t *idx) { return eir_load_f64(eir_tview_at(v, idx), v->dtype); }

static bool odo(int64_t *idx, const int64_t *sizes, int32_t r) {
    for (int32_t d = r - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

static void fill_rand(const eir_tview *v) {
    int64_t idx[EIR_MAX_RANK] = {0}, n = eir_tview_numel(v);
    for (int64_t k = 0; k < n; k++, odo(idx, v->sizes, v->rank)) {
        double x = (double)rint_(-50, 50);
        if (eir_is_floating(v->dtype)) x = x / 4;
        if (v->dtype == EIR_U8) x = (double)rint_(0, 200);
        put(v, idx, x);
    }
}

static T mkr(eir_dtype dt, int32_t rank, const int64_t *sizes, int layout) {
    T t = mk(dt, rank, sizes, layout);
    fill_rand(&t.v);
    return t;
}

/* bytes of storage outside the view still hold the sentinel */
static bool gaps_ok(const T *t) {
    size_t es = eir_elsize(t->v.dtype);
    unsigned char *mark = calloc(t->nbytes, 1);
    int64_t idx[EIR_MAX_RANK] = {0}, n = eir_tview_numel(&t->v);
    for (int64_t k = 0; k < n; k++, odo(idx, t->v.sizes, t->v.rank)) {
        size_t o = (size_t)((char *)eir_tview_at(&t->v, idx) - (char *)t->buf);
        memset(mark + o, 1, es);
    }
    bool ok = true;
    for (size_t i = 0; i < t->nbytes; i++)
        if (!mark[i] && t->buf[i] != SENT) ok = false;
    free(mark);
    return ok;
}

static void fr(T *t) { free(t->buf); t->buf = NULL; }

static bool elem_eq(const eir_tview *a, const int64_t *ia, const eir_tview *b, const int64_t *ib) {
    if (a->dtype == b->dtype) return !memcmp(eir_tview_at(a, ia), eir_tview_at(b, ib), eir_elsize(a->dtype));
    return get(a, ia) == get(b, ib);
}

static char errbuf[512];
static eir_kctx ctx = {.err = errbuf, .errlen = sizeof errbuf, .nthreads = 1};

static eir_karg A_T(const eir_tview *t) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSOR; a.t = t; return a; }
static eir_karg A_I(int64_t i) {
    eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_INT; a.i = i; a.s.kind = EIR_SC_INT; a.s.i = i; a.s.f = (double)i; return a;
}
static eir_karg A_B(bool b) { eir_karg a = A_I(b); a.kind = EIR_KA_BOOL; a.s.kind = EIR_SC_BOOL; return a; }
static eir_karg A_N(void) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_NONE; return a; }
static eir_karg A_IS(const int64_t *v, uint32_t n) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_INTS; a.ints = v; a.n = n; return a; }
static eir_karg A_TS(const eir_tview *const *ts, uint32_t n) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSORS; a.ts = ts; a.n = n; return a; }
static eir_karg A_SF(double f) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_SCALAR; a.s.kind = EIR_SC_FLOAT; a.s.f = f; return a; }
static eir_karg A_SI(int64_t i) { eir_karg a = A_I(i); a.kind = EIR_KA_SCALAR; return a; }
static eir_karg A_STR(const char *s) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_STRING; a.str = s; return a; }

static const eir_dtype DTS[] = {EIR_F32, EIR_F64, EIR_I64, EIR_I32, EIR_BOOL, EIR_F16, EIR_U8, EIR_BF16, EIR_I8};
#define NDT ((int)(sizeof DTS / sizeof DTS[0]))

static void rand_shape(int32_t rank, int64_t *s, int64_t maxs) {
    for (int32_t i = 0; i < rank; i++) s[i] = rint_(1, maxs);
}

/* ---------------------------------------------------------------- cat, stack */
static void test_cat(void) {
    eir_kernel_fn f = K("aten.cat.default");
    for (int it = 0; it < 200; it++) {
        eir_dtype dt = DTS[it % NDT];
        int32_t rank = (int32_t)rint_(1, 4), d = (int32_t)rint_(0, rank - 1);
        int64_t base[EIR_MAX_RANK];
        rand_shape(rank, base, 4);
        int n = (int)rint_(1, 3);
        T in[4];
        const eir_tview *ts[5];
        int64_t tot = 0, part[4];
        for (int i = 0; i < n; i++) {
            int64_t s[EIR_MAX_RANK];
            memcpy(s, base, sizeof s);
            s[d] = part[i] = rint_(0, 3);
            tot += s[d];
            eir_dtype di = (it % 7 == 0 && i == 1) ? EIR_I64 : dt; /* mixed: promote to out */
            in[i] = mkr(di, rank, s, (int)rint_(0, 2));
            ts[i] = &in[i].v;
        }
        int64_t e0 = 0;
        T empty = mk(dt, 1, &e0, 0);
        int nn = n;
        if (it % 5 == 0) ts[nn++] = &empty.v; /* legacy empty input: skipped */
        eir_dtype od = dt;
        if (it % 7 == 0 && n > 1) od = eir_promote_types(dt, EIR_I64);
        int64_t os[EIR_MAX_RANK];
        memcpy(os, base, sizeof os);
        os[d] = tot;
        T o = mk(od, rank, os, (int)rint_(0, 2));
        eir_karg a[2] = {A_TS(ts, (uint32_t)nn), A_I(it % 2 ? d - rank : d)};
        int rc = f(a, 2, &o.v, 1, &ctx);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "cat: %s\n", errbuf);
        bool ok = true;
        int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(&o.v);
        for (int64_t k = 0; k < N; k++, odo(idx, os, rank)) {
            int64_t j = idx[d], i = 0;
            while (j >= part[i]) j -= part[i++];
            int64_t si[EIR_MAX_RANK];
            memcpy(si, idx, sizeof si);
            si[d] = j;
            if (get(&o.v, idx) != get(&in[i].v, si)) ok = false;
        }
        CHECK(ok);
        CHECK(gaps_ok(&o));
        for (int i = 0; i < n; i++) fr(&in[i]);
        fr(&empty);
        fr(&o);
    }
}

static void test_stack(void) {
    eir_kernel_fn f = K("aten.stack.default");
    for (int it = 0; it < 100; it++) {
        eir_dtype dt = DTS[it % NDT];
        int32_t rank = (int32_t)rint_(0, 3), d = (int32_t)rint_(0, rank);
        int64_t s[EIR_MAX_RANK];
        rand_shape(rank, s, 3);
        if (it % 9 == 0 && rank) s[0] = 0;
        int n = (int)rint_(1, 3);
        T in[3];
        const eir_tview *ts[3];
        for (int i = 0; i < n; i++) { in[i] = mkr(dt, rank, s, (int)rint_(0, 2)); ts[i] = &in[i].v; }
        int64_t os[EIR_MAX_RANK];
        for (int32_t i = 0, k = 0; i <= rank; i++) os[i] = i == d ? n : s[k++];
        T o = mk(dt, rank + 1, os, (int)rint_(0, 2));
        eir_karg a[2] = {A_TS(ts, (uint32_t)n), A_I(it % 2 ? d - rank - 1 : d)};
        CHECK(f(a, 2, &o.v, 1, &ctx) == 0);
        bool ok = true;
        int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(&o.v);
        for (int64_t k = 0; k < N; k++, odo(idx, os, rank + 1)) {
            int64_t si[EIR_MAX_RANK];
            for (int32_t i = 0, q = 0; i <= rank; i++)
                if (i != d) si[q++] = idx[i];
            if (!elem_eq(&o.v, idx, &in[idx[d]].v, si)) ok = false;
        }
        CHECK(ok);
        CHECK(gaps_ok(&o));
        for (int i = 0; i < n; i++) fr(&in[i]);
        fr(&o);
    }
}

/* ------------------------------------------------ index_select, gather, scatter */
static T mk_index(eir_dtype dt, int32_t rank, const int64_t *sizes, int64_t lo, int64_t hi) {
    T t = mk(dt, rank, sizes, (int)rint_(0, 2));
    int64_t idx[EIR_MAX_RANK] = {0}, n = eir_tview_numel(&t.v);
    for (int64_t k = 0; k < n; k++, odo(idx, sizes, rank)) eir_store_i64(eir_tview_at(&t.v, idx), dt, rint_(lo, hi));
    return t;
}
static int64_t gi(const eir_tview *v, const int64_t *idx) { return eir_load_i64(eir_tview_at(v, idx), v->dtype); }

static void test_index_select_gather(void) {
    eir_kernel_fn fis = K("aten.index_select.default"), fg = K("aten.gather.default");
    for (int it = 0; it < 150; it++) {
        eir_dtype dt = DTS[it % NDT];
        int32_t rank = (int32_t)rint_(1, 3), d = (int32_t)rint_(0, rank - 1);
        int64_t s[EIR_MAX_RANK];
        rand_shape(rank, s, 4);
        T x = mkr(dt, rank, s, (int)rint_(0, 2));
        int64_t n = rint_(0, 5);
        T ix = mk_index(it % 2 ? EIR_I64 : EIR_I32, 1, &n, 0, s[d] - 1);
        int64_t os[EIR_MAX_RANK];
        memcpy(os, s, sizeof os);
        os[d] = n;
        T o = mk(dt, rank, os, (int)rint_(0, 2));
        eir_karg a[3] = {A_T(&x.v), A_I(d - rank), A_T(&ix.v)};
        CHECK(fis(a, 3, &o.v, 1, &ctx) == 0);
        bool ok = true;
        int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(&o.v);
        for (int64_t k = 0; k < N; k++, odo(idx, os, rank)) {
            int64_t si[EIR_MAX_RANK];
            memcpy(si, idx, sizeof si);
            int64_t ii[1] = {idx[d]};
            si[d] = gi(&ix.v, ii);
            if (!elem_eq(&o.v, idx, &x.v, si)) ok = false;
        }
        CHECK(ok);
        CHECK(gaps_ok(&o));
        fr(&ix);
        fr(&o);
        /* gather: index no larger than self except at dim */
        int64_t is[EIR_MAX_RANK];
        for (int32_t i = 0; i < rank; i++) is[i] = i == d ? rint_(0, 5) : rint_(0, s[i]);
        T gx = mk_index(it % 3 ? EIR_I64 : EIR_I32, rank, is, 0, s[d] - 1);
        T go = mk(dt, rank, is, (int)rint_(0, 2));
        eir_karg b[4] = {A_T(&x.v), A_I(d), A_T(&gx.v), A_B(false)};
        CHECK(fg(b, 4, &go.v, 1, &ctx) == 0);
        ok = true;
        memset(idx, 0, sizeof idx);
        N = eir_tview_numel(&go.v);
        for (int64_t k = 0; k < N; k++, odo(idx, is, rank)) {
            int64_t si[EIR_MAX_RANK];
            memcpy(si, idx, sizeof si);
            si[d] = gi(&gx.v, idx);
            if (!elem_eq(&go.v, idx, &x.v, si)) ok = false;
        }
        CHECK(ok);
        CHECK(gaps_ok(&go));
        fr(&gx);
        fr(&go);
        fr(&x);
    }
    /* errors, and 0-d */
    int64_t s3[1] = {3}, one[1] = {1};
    T x = mkr(EIR_F32, 1, s3, 0), o = mk(EIR_F32, 1, one, 0);
    T bad = mk_index(EIR_I64, 1, one, 5, 5);
    eir_karg a[3] = {A_T(&x.v), A_I(0), A_T(&bad.v)};
    CHECK(fis(a, 3, &o.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "index out of range in self");
    eir_karg b[4] = {A_T(&x.v), A_I(0), A_T(&bad.v), A_B(false)};
    CHECK(fg(b, 4, &o.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "index 5 is out of bounds for dimension 0 with size 3");
    eir_store_i64(bad.v.data, EIR_I64, -1);
    CHECK(fg(b, 4, &o.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "index -1 is out of bounds for dimension 0 with size 3");
    T s0 = mkr(EIR_F64, 0, NULL, 0), i0 = mk_index(EIR_I64, 0, NULL, 0, 0), o0 = mk(EIR_F64, 0, NULL, 0);
    eir_karg c[4] = {A_T(&s0.v), A_I(-1), A_T(&i0.v), A_B(false)};
    CHECK(fg(c, 4, &o0.v, 1, &ctx) == 0);
    CHECK(*(double *)o0.v.data == *(double *)s0.v.data);
    CHECK(fis(c, 3, &o0.v, 1, &ctx) == 0);
    CHECK(*(double *)o0.v.data == *(double *)s0.v.data);
    eir_store_i64(i0.v.data, EIR_I64, -1);
    CHECK(fis(c, 3, &o0.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "index out of range in self");
    fr(&x); fr(&o); fr(&bad); fr(&s0); fr(&i0); fr(&o0);
}

static void test_scatter(void) {
    const char *names[] = {"aten.scatter.src", "aten.scatter.value", "aten.scatter_add.default", "aten.scatter_reduce.two"};
    const char *reds[] = {"sum", "prod", "mean", "amax", "amin"};
    for (int it = 0; it < 400; it++) {
        int which = it % 4;
        eir_kernel_fn f = K(names[which]);
        eir_dtype dt = DTS[(it / 4) % NDT];
        if (which == 3 && dt == EIR_BOOL) dt = EIR_I64;
        int32_t rank = (int32_t)rint_(1, 3), d = (int32_t)rint_(0, rank - 1);
        int64_t s[EIR_MAX_RANK], is[EIR_MAX_RANK];
        rand_shape(rank, s, 4);
        for (int32_t i = 0; i < rank; i++) is[i] = i == d ? rint_(0, 6) : rint_(0, s[i]);
        T x = mkr(dt, rank, s, (int)rint_(0, 2));
        T ix = mk_index(it % 3 ? EIR_I64 : EIR_I32, rank, is, 0, s[d] - 1);
        int64_t ss[EIR_MAX_RANK];
        for (int32_t i = 0; i < rank; i++) ss[i] = is[i] + rint_(0, 1);
        T src = mkr(dt, rank, ss, (int)rint_(0, 2));
        T o = mk(dt, rank, s, (int)rint_(0, 2));
        const char *red = reds[it % 5];
        bool incl = (it / 5) % 2;
        if (dt == EIR_F16 || dt == EIR_BF16) red = reds[(it % 2) * 3]; /* exact-only in the reference */
        if ((dt == EIR_U8 || dt == EIR_I8) && !strcmp(red, "mean")) red = "sum"; /* wrapped sums */
        eir_karg a[6] = {A_T(&x.v), A_I(d), A_T(&ix.v), which == 1 ? A_SF(2.5) : A_T(&src.v), A_STR(red), A_B(incl)};
        int rc = f(a, which == 3 ? 6 : 4, &o.v, 1, &ctx);
        CHECK(rc == 0);
        if (rc) fprintf(stderr, "%s: %s\n", names[which], errbuf);
        /* reference in double on a contiguous copy */
        int64_t N = eir_tview_numel(&x.v);
        double *ref = malloc((size_t)(N + 1) * sizeof *ref);
        int64_t *cnt = calloc((size_t)(N + 1), sizeof *cnt);
        int64_t idx[EIR_MAX_RANK] = {0};
        int64_t cst[EIR_MAX_RANK], st = 1;
        for (int32_t i = rank - 1; i >= 0; i--) { cst[i] = st; st *= s[i]; }
        for (int64_t k = 0; k < N; k++, odo(idx, s, rank)) ref[k] = get(&x.v, idx);
        double val = 2.5;
        unsigned char tmp[16];
        eir_store_f64(tmp, dt, val);
        val = eir_load_f64(tmp, dt);
        memset(idx, 0, sizeof idx);
        int64_t NI = eir_tview_numel(&ix.v);
        for (int64_t k = 0; k < NI; k++, odo(idx, is, rank)) {
            int64_t off = 0;
            for (int32_t i = 0; i < rank; i++) off += (i == d ? gi(&ix.v, idx) : idx[i]) * cst[i];
            double v = which == 1 ? val : get(&src.v, idx), *r = &ref[off];
            if (which <= 1) *r = v;
            else if (which == 2) *r = dt == EIR_BOOL ? (*r || v) : *r + v;
            else {
                if (!incl && cnt[off] == 0) *r = v;
                else if (!strcmp(red, "sum") || !strcmp(red, "mean")) *r += v;
                else if (!strcmp(red, "prod")) *r *= v;
                else if (!strcmp(red, "amax")) *r = *r < v ? v : *r;
                else *r = v < *r ? v : *r;
                cnt[off]++;
            }
        }
        bool ok = true;
        memset(idx, 0, sizeof idx);
        for (int64_t k = 0; k < N; k++, odo(idx, s, rank)) {
            double want = ref[k];
            if (which == 3 && !strcmp(red, "mean")) {
                int64_t c = cnt[k] + (incl ? 1 : 0);
                if (c > 1) want = eir_is_floating(dt) ? want / (double)c : floor(want / (double)c);
            }
            unsigned char w[16];
            eir_store_f64(w, dt, want); /* wraps ints like the kernel */
            if (eir_is_integral(dt, false)) eir_store_i64(w, dt, (int64_t)want);
            double got = get(&o.v, idx), wv = eir_load_f64(w, dt);
            if (dt == EIR_F32 ? fabs(got - wv) > 1e-4 * (1 + fabs(wv)) : got != wv) ok = false;
        }
        CHECK(ok);
        if (!ok) fprintf(stderr, "  %s dt=%d red=%s incl=%d\n", names[which], dt, red, incl);
        CHECK(gaps_ok(&o));
        free(ref); free(cnt);
        fr(&x); fr(&ix); fr(&src); fr(&o);
    }
    /* errors */
    int64_t s3[1] = {3}, one[1] = {1};
    T x = mkr(EIR_F32, 1, s3, 0), o = mk(EIR_F32, 1, s3, 0), src = mkr(EIR_F32, 1, one, 0);
    T bad = mk_index(EIR_I64, 1, one, 3, 3);
    eir_karg a[4] = {A_T(&x.v), A_I(0), A_T(&bad.v), A_T(&src.v)};
    CHECK(K("aten.scatter.src")(a, 4, &o.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "index 3 is out of bounds for dimension 0 with size 3");
    CHECK(K("aten.scatter_add.default")(a, 4, &o.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "index 3 is out of bounds for dimension 0 with size 3");
    fr(&x); fr(&o); fr(&src); fr(&bad);
}

static void test_index_add(void) {
    eir_kernel_fn f = K("aten.index_add.default");
    for (int it = 0; it < 100; it++) {
        eir_dtype dt = DTS[it % NDT];
        int32_t rank = (int32_t)rint_(1, 3), d = (int32_t)rint_(0, rank - 1);
        int64_t s[EIR_MAX_RANK], ss[EIR_MAX_RANK];
        rand_shape(rank, s, 4);
        int64_t n = rint_(0, 5);
        memcpy(ss, s, sizeof ss);
        ss[d] = n;
        T x = mkr(dt, rank, s, (int)rint_(0, 2)), src = mkr(dt, rank, ss, (int)rint_(0, 2));
        T ix = mk_index(it % 2 ? EIR_I64 : EIR_I32, 1, &n, 0, s[d] - 1);
        T o = mk(dt, rank, s, (int)rint_(0, 2));
        int64_t alpha = dt == EIR_BOOL ? 1 : 2;
        eir_karg a[5] = {A_T(&x.v), A_I(d), A_T(&ix.v), A_T(&src.v), A_SI(alpha)};
        CHECK(f(a, 5, &o.v, 1, &ctx) == 0);
        /* reference: expected = x; expected[.., ix[i], ..] += alpha * src[.., i, ..] */
        T e = mk(EIR_F64, rank, s, 0);
        int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(&x.v);
        for (int64_t k = 0; k < N; k++, odo(idx, s, rank)) put(&e.v, idx, get(&x.v, idx));
        memset(idx, 0, sizeof idx);
        int64_t NS = eir_tview_numel(&src.v);
        for (int64_t k = 0; k < NS; k++, odo(idx, ss, rank)) {
            int64_t ti[EIR_MAX_RANK], ii[1] = {idx[d]};
            memcpy(ti, idx, sizeof ti);
            ti[d] = gi(&ix.v, ii);
            double v = get(&e.v, ti) + (double)alpha * get(&src.v, idx);
            if (dt == EIR_BOOL) v = v != 0;
            unsigned char w[16];
            if (eir_is_integral(dt, false)) eir_store_i64(w, dt, (int64_t)v); else eir_store_f64(w, dt, v);
            put(&e.v, ti, eir_load_f64(w, dt)); /* round/wrap per step like the kernel */
        }
        bool ok = true;
        memset(idx, 0, sizeof idx);
        for (int64_t k = 0; k < N; k++, odo(idx, s, rank))
            if (get(&o.v, idx) != get(&e.v, idx)) ok = false;
        CHECK(ok);
        CHECK(gaps_ok(&o));
        fr(&x); fr(&src); fr(&ix); fr(&o); fr(&e);
    }
    int64_t s3[1] = {3}, one[1] = {1};
    T x = mkr(EIR_F32, 1, s3, 0), o = mk(EIR_F32, 1, s3, 0), src = mkr(EIR_F32, 1, one, 0);
    T bad = mk_index(EIR_I64, 1, one, -1, -1);
    eir_karg a[5] = {A_T(&x.v), A_I(0), A_T(&bad.v), A_T(&src.v), A_SI(1)};
    CHECK(f(a, 5, &o.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "index -1 is out of bounds for dimension 0 with size 3");
    fr(&x); fr(&o); fr(&src); fr(&bad);
}

/* ------------------------------------------------ index.Tensor / index_put vs torch */
static T ivec(int32_t rank, const int64_t *sizes, const int64_t *vals) {
    T t = mk(EIR_I64, rank, sizes, 0);
    memcpy(t.v.data, vals, (size_t)eir_tview_numel(&t.v) * 8);
    return t;
}
static T bvec(int32_t rank, const int64_t *sizes, const char *bits) {
    T t = mk(EIR_BOOL, rank, sizes, 0);
    for (int64_t i = 0; i < eir_tview_numel(&t.v); i++) ((uint8_t *)t.v.data)[i] = bits[i] == '1';
    return t;
}

static bool out_equals(const eir_tview *o, const int64_t *want, int64_t n) {
    if (eir_tview_numel(o) != n) return false;
    int64_t idx[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++, odo(idx, o->sizes, o->rank))
        if (get(o, idx) != (double)want[k]) return false;
    return true;
}

static void run_index_case(const char *name, int layout, const eir_tview *const *ix, uint32_t nix, int32_t orank,
                           const int64_t *osz, const int64_t *want, eir_dtype dt) {
    int64_t xs[3] = {3, 4, 5};
    T x = mk(dt, 3, xs, layout);
    int64_t idx[3] = {0};
    for (int64_t k = 0; k < 60; k++, odo(idx, xs, 3)) put(&x.v, idx, (double)k);
    T o = mk(dt, orank, osz, 2 - layout);
    eir_karg a[2] = {A_T(&x.v), A_TS(ix, nix)};
    int rc = K("aten.index.Tensor")(a, 2, &o.v, 1, &ctx);
    CHECK(rc == 0);
    if (rc) fprintf(stderr, "index case %s: %s\n", name, errbuf);
    bool ok = out_equals(&o.v, want, eir_tview_numel(&o.v));
    CHECK(ok);
    if (!ok) fprintf(stderr, "index case %s layout %d dtype %d wrong\n", name, layout, dt);
    CHECK(gaps_ok(&o));
    fr(&x);
    fr(&o);
}

static void test_index_torch(void) {
    /* x = torch.arange(60).reshape(3,4,5); outputs from torch 2.13 */
    int64_t s21[2] = {2, 1}, s3[1] = {3}, s2[1] = {2}, s22[2] = {2, 2}, s1[1] = {1};
    int64_t v0[2] = {0, 2}, v1[3] = {1, -1, 3}, v03[2] = {0, 3}, v2m3[2] = {2, -3}, v10[2] = {1, 0};
    int64_t v4011[4] = {4, 0, 1, 1}, v04[2] = {0, 4}, v2[1] = {2};
    T i_a0 = ivec(2, s21, v0), i_a2 = ivec(1, s3, v1), i_b1 = ivec(2, s21, v03), i_c0 = ivec(1, s2, v2m3),
      i_c1 = ivec(2, s21, v10), i_d = ivec(2, s22, v4011), i_e2 = ivec(1, s2, v04), i_f = ivec(1, s1, v2);
    T m_e = bvec(1, s3, "101");
    int64_t s45[2] = {4, 5};
    T m_g = bvec(2, s45, "10011000001111101000");
    static const int64_t wA[] = {1, 6, 11, 16, 4, 9, 14, 19, 3, 8, 13, 18, 41, 46, 51, 56, 44, 49, 54, 59, 43, 48, 53, 58};
    static const int64_t wB[] = {1, 4, 3, 16, 19, 18, 21, 24, 23, 36, 39, 38, 41, 44, 43, 56, 59, 58};
    static const int64_t wC[] = {45, 46, 47, 48, 49, 5, 6, 7, 8, 9, 40, 41, 42, 43, 44, 0, 1, 2, 3, 4};
    static const int64_t wD[] = {4, 0, 1, 1, 9, 5, 6, 6, 14, 10, 11, 11, 19, 15, 16, 16, 24, 20, 21, 21, 29, 25, 26, 26,
                                 34, 30, 31, 31, 39, 35, 36, 36, 44, 40, 41, 41, 49, 45, 46, 46, 54, 50, 51, 51, 59, 55, 56, 56};
    static const int64_t wE[] = {0, 5, 10, 15, 44, 49, 54, 59};
    static const int64_t wF[] = {2, 7, 12, 17, 22, 27, 32, 37, 42, 47, 52, 57};
    static const int64_t wG[] = {0, 3, 4, 10, 11, 12, 13, 14, 16, 20, 23, 24, 30, 31, 32, 33, 34, 36, 40, 43, 44, 50, 51, 52, 53, 54, 56};
    for (int layout = 0; layout < 3; layout++)
        for (int q = 0; q < 3; q++) {
            eir_dtype dt = q == 0 ? EIR_F32 : q == 1 ? EIR_I64 : EIR_F16;
            { const eir_tview *ix[3] = {&i_a0.v, NULL, &i_a2.v}; int64_t os[3] = {2, 3, 4}; run_index_case("A", layout, ix, 3, 3, os, wA, dt); }
            { const eir_tview *ix[3] = {NULL, &i_b1.v, &i_a2.v}; int64_t os[3] = {3, 2, 3}; run_index_case("B", layout, ix, 3, 3, os, wB, dt); }
            { const eir_tview *ix[2] = {&i_c0.v, &i_c1.v}; int64_t os[3] = {2, 2, 5}; run_index_case("C", layout, ix, 2, 3, os, wC, dt); }
            { const eir_tview *ix[3] = {NULL, NULL, &i_d.v}; int64_t os[4] = {3, 4, 2, 2}; run_index_case("D", layout, ix, 3, 4, os, wD, dt); }
            { const eir_tview *ix[3] = {&m_e.v, NULL, &i_e2.v}; int64_t os[2] = {2, 4}; run_index_case("E", layout, ix, 3, 2, os, wE, dt); }
            { const eir_tview *ix[3] = {NULL, NULL, &i_f.v}; int64_t os[3] = {3, 4, 1}; run_index_case("F", layout, ix, 3, 3, os, wF, dt); }
            { const eir_tview *ix[2] = {NULL, &m_g.v}; int64_t os[2] = {3, 9}; run_index_case("G", layout, ix, 2, 2, os, wG, dt); }
        }
    /* out of bounds: x[:, :, [-6]] -> dimension 0 (ordinal among index tensors) */
    int64_t xs[3] = {3, 4, 5}, m6[1] = {-6}, os[3] = {3, 4, 1}, v5[1] = {5}, os2[2] = {1, 4};
    T x = mkr(EIR_F32, 3, xs, 0), o = mk(EIR_F32, 3, os, 0), bad = ivec(1, s1, m6);
    { const eir_tview *ix[3] = {NULL, NULL, &bad.v}; eir_karg a[2] = {A_T(&x.v), A_TS(ix, 3)};
      CHECK(K("aten.index.Tensor")(a, 2, &o.v, 1, &ctx) == -1);
      CHECK_STR(errbuf, "index -6 is out of bounds for dimension 0 with size 5"); }
    T bad5 = ivec(1, s1, v5), o2 = mk(EIR_F32, 2, os2, 0);
    { const eir_tview *ix[3] = {&i_f.v, NULL, &bad5.v}; eir_karg a[2] = {A_T(&x.v), A_TS(ix, 3)};
      CHECK(K("aten.index.Tensor")(a, 2, &o2.v, 1, &ctx) == -1);
      CHECK_STR(errbuf, "index 5 is out of bounds for dimension 1 with size 5"); }
    { int64_t wrong[1] = {4}; T m = bvec(1, wrong, "1010"); const eir_tview *ix[1] = {&m.v}; eir_karg a[2] = {A_T(&x.v), A_TS(ix, 1)};
      CHECK(K("aten.index.Tensor")(a, 2, &o2.v, 1, &ctx) == -1);
      CHECK_STR(errbuf, "The shape of the mask [4] at index 0 does not match the shape of the indexed tensor [3, 4, 5] at index 0");
      fr(&m); }
    /* index_put, torch: y = zeros(3,4,5); index_put(y, [[[0],[2]], None, [1,-1,1]], arange(12.).reshape(3,4), acc) */
    static const int64_t wP0[] = {0, 8, 0, 0, 4, 0, 9, 0, 0, 5, 0, 10, 0, 0, 6, 0, 11, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 4, 0, 9, 0, 0, 5, 0, 10, 0, 0, 6, 0, 11, 0, 0, 7};
    static const int64_t wP1[] = {0, 8, 0, 0, 4, 0, 10, 0, 0, 5, 0, 12, 0, 0, 6, 0, 14, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 4, 0, 10, 0, 0, 5, 0, 12, 0, 0, 6, 0, 14, 0, 0, 7};
    int64_t v11[3] = {1, -1, 1}, s34[2] = {3, 4};
    T i_p2 = ivec(1, s3, v11);
    for (int layout = 0; layout < 3; layout++)
        for (int acc = 0; acc < 2; acc++) {
            T y = mk(EIR_F64, 3, xs, layout), vals = mk(EIR_F64, 2, s34, layout), po = mk(EIR_F64, 3, xs, 2 - layout);
            int64_t idx[3] = {0};
            for (int k = 0; k < 60; k++, odo(idx, xs, 3)) put(&y.v, idx, 0);
            memset(idx, 0, sizeof idx);
            for (int k = 0; k < 12; k++, odo(idx, s34, 2)) put(&vals.v, idx, k);
            const eir_tview *ix[3] = {&i_a0.v, NULL, &i_p2.v};
            eir_karg a[4] = {A_T(&y.v), A_TS(ix, 3), A_T(&vals.v), A_B(acc)};
            CHECK(K("aten.index_put.default")(a, 4, &po.v, 1, &ctx) == 0);
            CHECK(out_equals(&po.v, acc ? wP1 : wP0, 60));
            CHECK(gaps_ok(&po));
            fr(&y); fr(&vals); fr(&po);
        }
    /* index_put errors: out of bounds, dtype mismatch */
    {
        T y = mkr(EIR_F32, 3, xs, 0), po = mk(EIR_F32, 3, xs, 0), vals = mkr(EIR_F32, 0, NULL, 0), vl = mkr(EIR_I64, 0, NULL, 0);
        int64_t m4[1] = {-4};
        T b4 = ivec(1, s1, m4);
        const eir_tview *ix[1] = {&b4.v};
        eir_karg a[4] = {A_T(&y.v), A_TS(ix, 1), A_T(&vals.v), A_B(true)};
        CHECK(K("aten.index_put.default")(a, 4, &po.v, 1, &ctx) == -1);
        CHECK_STR(errbuf, "index -4 is out of bounds for dimension 0 with size 3");
        a[2] = A_T(&vl.v);
        CHECK(K("aten.index_put.default")(a, 4, &po.v, 1, &ctx) == -1);
        CHECK_STR(errbuf, "Index put requires the source and destination dtypes match, got Float for the destination and Long for the source.");
        fr(&y); fr(&po); fr(&vals); fr(&vl); fr(&b4);
    }
    fr(&x); fr(&o); fr(&bad); fr(&bad5); fr(&o2); fr(&i_p2);
    fr(&i_a0); fr(&i_a2); fr(&i_b1); fr(&i_c0); fr(&i_c1); fr(&i_d); fr(&i_e2); fr(&i_f); fr(&m_e); fr(&m_g);
}

/* random index.Tensor with one index tensor at a random dim vs a reference */
static void test_index_random(void) {
    for (int it = 0; it < 150; it++) {
        eir_dtype dt = DTS[it % NDT];
        int32_t rank = (int32_t)rint_(1, 3), d = (int32_t)rint_(0, rank - 1);
        int64_t s[EIR_MAX_RANK];
        rand_shape(rank, s, 4);
        T x = mkr(dt, rank, s, (int)rint_(0, 2));
        int32_t ir = (int32_t)rint_(0, 2);
        int64_t is[2];
        rand_shape(ir, is, 3);
        T ix = mk_index(it % 2 ? EIR_I64 : EIR_I32, ir, is, -s[d], s[d] - 1);
        int64_t os[EIR_MAX_RANK];
        int32_t orank = 0;
        for (int32_t i = 0; i < d; i++) os[orank++] = s[i];
        for (int32_t i = 0; i < ir; i++) os[orank++] = is[i];
        for (int32_t i = d + 1; i < rank; i++) os[orank++] = s[i];
        T o = mk(dt, orank, os, (int)rint_(0, 2));
        const eir_tview *ixs[EIR_MAX_RANK] = {NULL};
        ixs[d] = &ix.v;
        eir_karg a[2] = {A_T(&x.v), A_TS(ixs, (uint32_t)d + 1)};
        CHECK(K("aten.index.Tensor")(a, 2, &o.v, 1, &ctx) == 0);
        bool ok = true;
        int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(&o.v);
        for (int64_t k = 0; k < N; k++, odo(idx, os, orank)) {
            int64_t si[EIR_MAX_RANK];
            for (int32_t i = 0; i < d; i++) si[i] = idx[i];
            int64_t v = gi(&ix.v, idx + d);
            si[d] = v < 0 ? v + s[d] : v;
            for (int32_t i = d + 1; i < rank; i++) si[i] = idx[i - 1 + ir];
            if (!elem_eq(&o.v, idx, &x.v, si)) ok = false;
        }
        CHECK(ok);
        CHECK(gaps_ok(&o));
        fr(&x); fr(&ix); fr(&o);
    }
}

/* ------------------------------------------------ view copies and the rest */
/* out[idx] == x[map(idx)] for every out element; map returns false for "fill" */
typedef bool (*mapfn)(const int64_t *oi, int64_t *xi, const void *p);

static bool check_map(const eir_tview *o, const eir_tview *x, mapfn m, const void *p, double fillv) {
    int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(o);
    for (int64_t k = 0; k < N; k++, odo(idx, o->sizes, o->rank)) {
        int64_t xi[EIR_MAX_RANK] = {0};
        if (m(idx, xi, p)) { if (!elem_eq(o, idx, x, xi)) return false; }
        else if (get(o, idx) != fillv) return false;
    }
    return true;
}

typedef struct mp {
    int32_t rank, d, d2;
    int64_t a, b, c;
    int64_t s[EIR_MAX_RANK];
    int64_t v[EIR_MAX_RANK];
} mp;

static bool m_perm(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p;
    for (int32_t i = 0; i < q->rank; i++) xi[q->v[i]] = oi[i];
    return true;
}
static bool m_slice(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p;
    for (int32_t i = 0; i < q->rank; i++) xi[i] = i == q->d ? q->a + oi[i] * q->c : oi[i];
    return true;
}
static bool m_select(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p;
    for (int32_t i = 0, k = 0; i < q->rank; i++) xi[i] = i == q->d ? q->a : oi[k++];
    return true;
}
static bool m_flip(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p;
    for (int32_t i = 0; i < q->rank; i++) xi[i] = q->v[i] ? q->s[i] - 1 - oi[i] : oi[i];
    return true;
}
static bool m_roll(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p;
    for (int32_t i = 0; i < q->rank; i++) xi[i] = (((oi[i] - q->v[i]) % q->s[i]) + q->s[i]) % q->s[i];
    return true;
}
static bool m_pad(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p; /* v: left pad per dim */
    for (int32_t i = 0; i < q->rank; i++) {
        xi[i] = oi[i] - q->v[i];
        if (xi[i] < 0 || xi[i] >= q->s[i]) return false;
    }
    return true;
}
static bool m_repeat(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p; /* s: x sizes padded to rank; a: leading dims */
    for (int32_t i = (int32_t)q->a; i < q->rank; i++) xi[i - q->a] = oi[i] % q->s[i];
    return true;
}
static bool m_tri(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p; /* a: diagonal, b: 1 lower */
    memcpy(xi, oi, sizeof(int64_t) * (size_t)q->rank);
    int64_t i = oi[q->rank - 2], j = oi[q->rank - 1];
    return q->b ? j - i <= q->a : j - i >= q->a;
}
static bool m_diag(const int64_t *oi, int64_t *xi, const void *p) {
    const mp *q = p; /* d, d2 dims, a offset */
    int64_t k = oi[q->rank - 2];
    for (int32_t i = 0, r = 0; i < q->rank; i++) {
        if (i == q->d) xi[i] = k + (q->a < 0 ? -q->a : 0);
        else if (i == q->d2) xi[i] = k + (q->a > 0 ? q->a : 0);
        else xi[i] = oi[r++];
    }
    return true;
}

static void test_views(void) {
    for (int it = 0; it < 300; it++) {
        eir_dtype dt = DTS[it % NDT];
        int32_t rank = (int32_t)rint_(1, 4);
        int64_t s[EIR_MAX_RANK];
        rand_shape(rank, s, 4);
        if (it % 11 == 0) s[rint_(0, rank - 1)] = 0;
        T x = mkr(dt, rank, s, (int)rint_(0, 2));
        int lo = (int)rint_(0, 2);
        mp q;
        memset(&q, 0, sizeof q);
        q.rank = rank;
        memcpy(q.s, s, sizeof q.s);
        /* permute_copy */
        {
            int64_t perm[EIR_MAX_RANK], os[EIR_MAX_RANK];
            for (int32_t i = 0; i < rank; i++) perm[i] = i;
            for (int32_t i = rank - 1; i > 0; i--) { int32_t j = (int32_t)rint_(0, i); int64_t t = perm[i]; perm[i] = perm[j]; perm[j] = t; }
            for (int32_t i = 0; i < rank; i++) { os[i] = s[perm[i]]; q.v[i] = perm[i]; }
            int64_t pa[EIR_MAX_RANK];
            for (int32_t i = 0; i < rank; i++) pa[i] = perm[i] - (it % 2 ? rank : 0);
            T o = mk(dt, rank, os, lo);
            eir_karg a[2] = {A_T(&x.v), A_IS(pa, (uint32_t)rank)};
            CHECK(K("aten.permute_copy.default")(a, 2, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_perm, &q, 0));
            CHECK(gaps_ok(&o));
            /* transpose_copy.int of the first and last dims */
            fr(&o);
            int64_t ts[EIR_MAX_RANK];
            memcpy(ts, s, sizeof ts);
            ts[0] = s[rank - 1]; ts[rank - 1] = s[0];
            for (int32_t i = 0; i < rank; i++) q.v[i] = i;
            q.v[0] = rank - 1; q.v[rank - 1] = 0;
            o = mk(dt, rank, ts, lo);
            eir_karg b[3] = {A_T(&x.v), A_I(0), A_I(-1)};
            CHECK(K("aten.transpose_copy.int")(b, 3, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_perm, &q, 0));
            fr(&o);
        }
        /* slice_copy */
        {
            int32_t d = (int32_t)rint_(0, rank - 1);
            int64_t start = rint_(-5, 5), end = rint_(-5, 6), step = rint_(1, 3);
            bool none = it % 3 == 0;
            int64_t st = none ? 0 : start < 0 ? start + s[d] : start, en = end < 0 ? end + s[d] : end;
            if (st < 0) st = 0;
            if (st > s[d]) st = s[d];
            if (en < st) en = st;
            if (en > s[d]) en = s[d];
            int64_t os[EIR_MAX_RANK];
            memcpy(os, s, sizeof os);
            os[d] = (en - st + step - 1) / step;
            q.d = d; q.a = st; q.c = step;
            T o = mk(dt, rank, os, lo);
            eir_karg a[5] = {A_T(&x.v), A_I(d), none ? A_N() : A_I(start), A_I(end), A_I(step)};
            CHECK(K("aten.slice_copy.Tensor")(a, 5, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_slice, &q, 0));
            CHECK(gaps_ok(&o));
            fr(&o);
            /* slice_scatter: out = x with the slice replaced by src */
            if (!none) {
                T src = mkr(dt, rank, os, lo);
                T so = mk(dt, rank, s, 2 - lo);
                eir_karg b[6] = {A_T(&x.v), A_T(&src.v), A_I(d), A_I(start), A_I(end), A_I(step)};
                CHECK(K("aten.slice_scatter.default")(b, 6, &so.v, 1, &ctx) == 0);
                bool ok = true;
                int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(&so.v);
                for (int64_t k = 0; k < N; k++, odo(idx, s, rank)) {
                    int64_t j = idx[d] - st;
                    if (j >= 0 && j % step == 0 && j / step < os[d]) {
                        int64_t si[EIR_MAX_RANK];
                        memcpy(si, idx, sizeof si);
                        si[d] = j / step;
                        if (!elem_eq(&so.v, idx, &src.v, si)) ok = false;
                    } else if (!elem_eq(&so.v, idx, &x.v, idx)) ok = false;
                }
                CHECK(ok);
                CHECK(gaps_ok(&so));
                fr(&src); fr(&so);
            }
        }
        /* select_copy + select_scatter */
        if (eir_tview_numel(&x.v) > 0) {
            int32_t d = (int32_t)rint_(0, rank - 1);
            int64_t i = rint_(-s[d], s[d] - 1), os[EIR_MAX_RANK];
            for (int32_t k = 0, r = 0; k < rank; k++) if (k != d) os[r++] = s[k];
            q.d = d; q.a = i < 0 ? i + s[d] : i;
            T o = mk(dt, rank - 1, os, lo);
            eir_karg a[3] = {A_T(&x.v), A_I(d - (it % 2) * rank), A_I(i)};
            CHECK(K("aten.select_copy.int")(a, 3, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_select, &q, 0));
            T so = mk(dt, rank, s, lo);
            eir_karg b[4] = {A_T(&x.v), A_T(&o.v), A_I(d), A_I(i)};
            CHECK(K("aten.select_scatter.default")(b, 4, &so.v, 1, &ctx) == 0);
            bool ok = true;
            int64_t idx[EIR_MAX_RANK] = {0}, N = eir_tview_numel(&so.v);
            for (int64_t k = 0; k < N; k++, odo(idx, s, rank)) ok &= elem_eq(&so.v, idx, &x.v, idx);
            CHECK(ok); /* scattering x's own slice gives x back */
            a[2] = A_I(s[d]);
            CHECK(K("aten.select_copy.int")(a, 3, &o.v, 1, &ctx) == -1);
            CHECK(strstr(errbuf, "select(): index") != NULL);
            fr(&o); fr(&so);
        }
        /* flip */
        {
            int64_t dims[EIR_MAX_RANK];
            uint32_t nd = 0;
            for (int32_t i = 0; i < rank; i++) { q.v[i] = rnd() % 2; if (q.v[i]) dims[nd++] = i - (it % 2 ? rank : 0); }
            T o = mk(dt, rank, s, lo);
            eir_karg a[2] = {A_T(&x.v), A_IS(dims, nd)};
            CHECK(K("aten.flip.default")(a, 2, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_flip, &q, 0));
            CHECK(gaps_ok(&o));
            fr(&o);
        }
        /* roll over dims, and flat */
        if (eir_tview_numel(&x.v) > 0) {
            int64_t dims[EIR_MAX_RANK], sh[EIR_MAX_RANK];
            uint32_t nd = 0;
            for (int32_t i = 0; i < rank; i++) q.v[i] = 0;
            for (int32_t i = 0; i < rank; i++)
                if (rnd() % 2) { dims[nd] = i; sh[nd] = rint_(-7, 7); q.v[i] = sh[nd]; nd++; }
            if (nd == 0) { dims[0] = 0; sh[0] = 1; q.v[0] = 1; nd = 1; }
            T o = mk(dt, rank, s, lo);
            eir_karg a[3] = {A_T(&x.v), A_IS(sh, nd), A_IS(dims, nd)};
            CHECK(K("aten.roll.default")(a, 3, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_roll, &q, 0));
            CHECK(gaps_ok(&o));
            /* flat roll: compare via flat positions */
            int64_t fs = rint_(-9, 9), n = eir_tview_numel(&x.v);
            eir_karg b[3] = {A_T(&x.v), A_IS(&fs, 1), A_IS(NULL, 0)};
            CHECK(K("aten.roll.default")(b, 3, &o.v, 1, &ctx) == 0);
            bool ok = true;
            int64_t oi[EIR_MAX_RANK] = {0};
            for (int64_t k = 0; k < n; k++, odo(oi, s, rank)) {
                int64_t src = (((k - fs) % n) + n) % n, xi[EIR_MAX_RANK];
                for (int32_t i = rank - 1; i >= 0; i--) { xi[i] = src % s[i]; src /= s[i]; }
                ok &= elem_eq(&o.v, oi, &x.v, xi);
            }
            CHECK(ok);
            fr(&o);
        }
        /* constant_pad_nd with positive and negative pads */
        {
            int64_t pads[2 * EIR_MAX_RANK], os[EIR_MAX_RANK];
            uint32_t np = (uint32_t)rint_(0, rank);
            memcpy(os, s, sizeof os);
            for (int32_t i = 0; i < rank; i++) q.v[i] = 0;
            bool okshape = true;
            for (uint32_t k = 0; k < np; k++) {
                int32_t d = rank - 1 - (int32_t)k;
                pads[2 * k] = rint_(-1, 2);
                pads[2 * k + 1] = rint_(-1, 2);
                os[d] = s[d] + pads[2 * k] + pads[2 * k + 1];
                if (os[d] < 0) okshape = false;
                q.v[d] = pads[2 * k];
            }
            if (okshape) {
                T o = mk(dt, rank, os, lo);
                eir_karg a[3] = {A_T(&x.v), A_IS(pads, 2 * np), A_SI(1)};
                CHECK(K("aten.constant_pad_nd.default")(a, 3, &o.v, 1, &ctx) == 0);
                CHECK(check_map(&o.v, &x.v, m_pad, &q, 1));
                CHECK(gaps_ok(&o));
                fr(&o);
            }
        }
        /* repeat */
        {
            int32_t r = rank + (int32_t)rint_(0, 2);
            if (r > 5) r = 5;
            int64_t reps[EIR_MAX_RANK], os[EIR_MAX_RANK];
            mp qr;
            memset(&qr, 0, sizeof qr);
            qr.rank = r;
            qr.a = r - rank;
            for (int32_t i = 0; i < r; i++) {
                reps[i] = rint_(0, 3);
                qr.s[i] = i < qr.a ? 1 : s[i - qr.a];
                os[i] = qr.s[i] * reps[i];
            }
            T o = mk(dt, r, os, lo);
            eir_karg a[2] = {A_T(&x.v), A_IS(reps, (uint32_t)r)};
            CHECK(K("aten.repeat.default")(a, 2, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_repeat, &qr, 0));
            CHECK(gaps_ok(&o));
            fr(&o);
        }
        /* tril / triu */
        if (rank >= 2) {
            for (int lower = 0; lower < 2; lower++) {
                q.a = rint_(-3, 3);
                q.b = lower;
                T o = mk(dt, rank, s, lo);
                eir_karg a[2] = {A_T(&x.v), A_I(q.a)};
                CHECK(K(lower ? "aten.tril.default" : "aten.triu.default")(a, 2, &o.v, 1, &ctx) == 0);
                CHECK(check_map(&o.v, &x.v, m_tri, &q, 0));
                CHECK(gaps_ok(&o));
                fr(&o);
            }
            /* diagonal_copy over dims (0, last) */
            int64_t off = rint_(-3, 3), n1 = s[0], n2 = s[rank - 1];
            int64_t len = off >= 0 ? (n1 < n2 - off ? n1 : n2 - off) : (n1 + off < n2 ? n1 + off : n2);
            if (len < 0) len = 0;
            int64_t os[EIR_MAX_RANK];
            int32_t r = 0;
            for (int32_t i = 1; i < rank - 1; i++) os[r++] = s[i];
            os[r++] = len;
            mp qd = q;
            qd.d = 0; qd.d2 = rank - 1; qd.a = off;
            T o = mk(dt, r, os, lo);
            eir_karg a[4] = {A_T(&x.v), A_I(off), A_I(0), A_I(-1)};
            CHECK(K("aten.diagonal_copy.default")(a, 4, &o.v, 1, &ctx) == 0);
            CHECK(check_map(&o.v, &x.v, m_diag, &qd, 0));
            fr(&o);
        }
        /* view_copy / _unsafe_view to a flattened shape, and back */
        {
            int64_t n = eir_tview_numel(&x.v);
            T o = mk(dt, 1, &n, lo);
            eir_karg a[2] = {A_T(&x.v), A_IS(&n, 1)};
            CHECK(K("aten.view_copy.default")(a, 2, &o.v, 1, &ctx) == 0);
            bool ok = true;
            int64_t xi[EIR_MAX_RANK] = {0};
            for (int64_t k = 0; k < n; k++, odo(xi, s, rank)) ok &= elem_eq(&o.v, &k, &x.v, xi);
            CHECK(ok);
            T back = mk(dt, rank, s, 2 - lo);
            eir_karg b[2] = {A_T(&o.v), A_IS(s, (uint32_t)rank)};
            CHECK(K("aten._unsafe_view.default")(b, 2, &back.v, 1, &ctx) == 0);
            ok = true;
            memset(xi, 0, sizeof xi);
            for (int64_t k = 0; k < n; k++, odo(xi, s, rank)) ok &= elem_eq(&back.v, xi, &x.v, xi);
            CHECK(ok);
            CHECK(gaps_ok(&back));
            fr(&o); fr(&back);
        }
        fr(&x);
    }
}

static void test_misc(void) {
    /* expand_copy from a transposed [3,1] to [2,3,4] */
    int64_t s31[2] = {3, 1}, s234[3] = {2, 3, 4}, sz[3] = {2, -1, 4};
    T x = mkr(EIR_F16, 2, s31, 1), o = mk(EIR_F16, 3, s234, 2);
    eir_karg a[3] = {A_T(&x.v), A_IS(sz, 3), A_B(false)};
    CHECK(K("aten.expand_copy.default")(a, 3, &o.v, 1, &ctx) == 0);
    bool ok = true;
    int64_t idx[3] = {0};
    for (int k = 0; k < 24; k++, odo(idx, s234, 3)) { int64_t xi[2] = {idx[1], 0}; ok &= elem_eq(&o.v, idx, &x.v, xi); }
    CHECK(ok);
    CHECK(gaps_ok(&o));
    fr(&x); fr(&o);
    /* split_with_sizes_copy / split_copy / unbind_copy */
    int64_t s25[2] = {2, 5}, p2[2] = {2, 2}, p1[2] = {2, 1}, p22[2] = {2, 3}, sizes[2] = {2, 3};
    x = mkr(EIR_I32, 2, s25, 1);
    T outs[3] = {mk(EIR_I32, 2, p2, 0), mk(EIR_I32, 2, p22, 2), mk(EIR_I32, 2, p1, 0)};
    eir_tview ov[3] = {outs[0].v, outs[1].v, outs[2].v};
    eir_karg b[3] = {A_T(&x.v), A_IS(sizes, 2), A_I(-1)};
    CHECK(K("aten.split_with_sizes_copy.default")(b, 3, ov, 2, &ctx) == 0);
    ok = true;
    memset(idx, 0, sizeof idx);
    for (int k = 0; k < 10; k++, odo(idx, s25, 2)) {
        int64_t j = idx[1] < 2 ? 0 : 1, oi[2] = {idx[0], idx[1] - (j ? 2 : 0)};
        ok &= elem_eq(&ov[j], oi, &x.v, idx);
    }
    CHECK(ok);
    ov[1] = mk(EIR_I32, 2, p2, 0).v; /* leaks nothing: freed below via outs[1] swap */
    free(outs[1].buf);
    outs[1].buf = ov[1].data;
    eir_karg c[3] = {A_T(&x.v), A_I(2), A_I(1)};
    CHECK(K("aten.split_copy.Tensor")(c, 3, ov, 3, &ctx) == 0);
    ok = true;
    memset(idx, 0, sizeof idx);
    for (int k = 0; k < 10; k++, odo(idx, s25, 2)) {
        int64_t j = idx[1] / 2, oi[2] = {idx[0], idx[1] % 2};
        ok &= elem_eq(&ov[j], oi, &x.v, idx);
    }
    CHECK(ok);
    for (int i = 0; i < 3; i++) fr(&outs[i]);
    int64_t s5[1] = {5};
    T u0 = mk(EIR_I32, 1, s5, 2), u1 = mk(EIR_I32, 1, s5, 0);
    eir_tview uv[2] = {u0.v, u1.v};
    eir_karg d[2] = {A_T(&x.v), A_I(0)};
    CHECK(K("aten.unbind_copy.int")(d, 2, uv, 2, &ctx) == 0);
    ok = true;
    memset(idx, 0, sizeof idx);
    for (int k = 0; k < 10; k++, odo(idx, s25, 2)) ok &= elem_eq(&uv[idx[0]], &idx[1], &x.v, idx);
    CHECK(ok);
    CHECK(gaps_ok(&u0));
    fr(&u0); fr(&u1);
    /* t_copy, unsqueeze_copy, squeeze_copy, alias_copy on 0-d and 2-d */
    T tt = mk(EIR_I32, 2, (int64_t[]){5, 2}, 2);
    eir_karg e[1] = {A_T(&x.v)};
    CHECK(K("aten.t_copy.default")(e, 1, &tt.v, 1, &ctx) == 0);
    ok = true;
    memset(idx, 0, sizeof idx);
    for (int k = 0; k < 10; k++, odo(idx, s25, 2)) { int64_t ti[2] = {idx[1], idx[0]}; ok &= elem_eq(&tt.v, ti, &x.v, idx); }
    CHECK(ok);
    fr(&tt);
    T z = mkr(EIR_BOOL, 0, NULL, 0), z1 = mk(EIR_BOOL, 1, (int64_t[]){1}, 0), z0 = mk(EIR_BOOL, 0, NULL, 0);
    eir_karg f1[2] = {A_T(&z.v), A_I(0)};
    CHECK(K("aten.unsqueeze_copy.default")(f1, 2, &z1.v, 1, &ctx) == 0);
    CHECK(*(uint8_t *)z1.v.data == *(uint8_t *)z.v.data);
    eir_karg f2[1] = {A_T(&z1.v)};
    CHECK(K("aten.squeeze_copy.default")(f2, 1, &z0.v, 1, &ctx) == 0);
    CHECK(K("aten.alias_copy.default")(f2, 1, &z1.v, 1, &ctx) == 0);
    CHECK(*(uint8_t *)z0.v.data == *(uint8_t *)z.v.data);
    fr(&z); fr(&z1); fr(&z0);
    /* narrow_copy errors use torch's wording */
    T no = mk(EIR_I32, 2, (int64_t[]){2, 1}, 0);
    eir_karg g[4] = {A_T(&x.v), A_I(1), A_I(5), A_I(1)};
    CHECK(K("aten.narrow_copy.default")(g, 4, &no.v, 1, &ctx) == -1);
    CHECK_STR(errbuf, "start (5) + length (1) exceeds dimension size (5).");
    g[2] = A_I(-1);
    CHECK(K("aten.narrow_copy.default")(g, 4, &no.v, 1, &ctx) == 0);
    CHECK(((int32_t *)no.v.data)[0] == ((int32_t *)x.v.data)[x.v.strides[1] * 4]);
    fr(&no);
    /* unfold_copy: [2,5] dim 1 size 2 step 2 -> [2,2,2] */
    T uo = mk(EIR_I32, 3, (int64_t[]){2, 2, 2}, 2);
    eir_karg h[4] = {A_T(&x.v), A_I(1), A_I(2), A_I(2)};
    CHECK(K("aten.unfold_copy.default")(h, 4, &uo.v, 1, &ctx) == 0);
    ok = true;
    int64_t ui[3] = {0};
    for (int k = 0; k < 8; k++, odo(ui, uo.v.sizes, 3)) { int64_t xi[2] = {ui[0], ui[1] * 2 + ui[2]}; ok &= elem_eq(&uo.v, ui, &x.v, xi); }
    CHECK(ok);
    fr(&uo);
    /* cat of all-legacy-empty inputs and mixed dtype */
    int64_t zero = 0;
    T e0 = mk(EIR_F32, 1, &zero, 0), eo = mk(EIR_F32, 1, &zero, 0);
    const eir_tview *ts[2] = {&e0.v, &e0.v};
    eir_karg ca[2] = {A_TS(ts, 2), A_I(0)};
    CHECK(K("aten.cat.default")(ca, 2, &eo.v, 1, &ctx) == 0);
    fr(&e0); fr(&eo);
    fr(&x);
    /* scatter_reduce mean on integers floors (torch: [1,2,3,4], [0,0,1], [5,-6,7]) */
    int64_t s4[1] = {4}, s3[1] = {3}, xv[4] = {1, 2, 3, 4}, iv[3] = {0, 0, 1}, sv[3] = {5, -6, 7};
    T sx = ivec(1, s4, xv), si = ivec(1, s3, iv), ss = ivec(1, s3, sv), so = mk(EIR_I64, 1, s4, 2);
    eir_karg sr[6] = {A_T(&sx.v), A_I(0), A_T(&si.v), A_T(&ss.v), A_STR("mean"), A_B(true)};
    CHECK(K("aten.scatter_reduce.two")(sr, 6, &so.v, 1, &ctx) == 0);
    CHECK(out_equals(&so.v, (const int64_t[]){0, 4, 3, 4}, 4));
    sr[5] = A_B(false);
    CHECK(K("aten.scatter_reduce.two")(sr, 6, &so.v, 1, &ctx) == 0);
    CHECK(out_equals(&so.v, (const int64_t[]){-1, 7, 3, 4}, 4));
    fr(&sx); fr(&si); fr(&ss); fr(&so);
    /* float16 scatter sums accumulate in float32 and round once (torch 2.13: 1 + ten times 0.0004 is
     * 1.00390625; rounding at every step would stay at 1), and mean divides the rounded sum */
    int64_t s11[1] = {11}, s2[1] = {2};
    T hx = mk(EIR_F16, 1, s2, 0), hs = mk(EIR_F16, 1, s11, 0), hi = mk(EIR_I64, 1, s11, 0), ho = mk(EIR_F16, 1, s2, 0);
    for (int64_t k = 0; k < 11; k++) {
        int64_t at[1] = {k};
        put(&hs.v, at, k ? 0.0004 : 1.0);
        eir_store_i64(eir_tview_at(&hi.v, at), EIR_I64, 0);
    }
    for (int64_t k = 0; k < 2; k++) { int64_t at[1] = {k}; put(&hx.v, at, 0.0); }
    eir_karg ha[4] = {A_T(&hx.v), A_I(0), A_T(&hi.v), A_T(&hs.v)};
    CHECK(K("aten.scatter_add.default")(ha, 4, &ho.v, 1, &ctx) == 0);
    int64_t h0[1] = {0}, h1[1] = {1};
    CHECK(get(&ho.v, h0) == 1.00390625 && get(&ho.v, h1) == 0);
    eir_karg hm[6] = {A_T(&hx.v), A_I(0), A_T(&hi.v), A_T(&hs.v), A_STR("mean"), A_B(false)};
    CHECK(K("aten.scatter_reduce.two")(hm, 6, &ho.v, 1, &ctx) == 0);
    CHECK(get(&ho.v, h0) == (double)eir_f16_to_f32(eir_f32_to_f16(1.00390625f / 11.0f)));
    fr(&hx); fr(&hs); fr(&hi); fr(&ho);
    /* reflection / replication padding vs torch */
    int64_t s14[2] = {1, 4}, s17[2] = {1, 7}, p21[2] = {2, 1}, v4[4] = {0, 1, 2, 3};
    T rx = ivec(2, s14, v4), ro = mk(EIR_I64, 2, s17, 2);
    eir_karg ra[2] = {A_T(&rx.v), A_IS(p21, 2)};
    CHECK(K("aten.reflection_pad1d.default")(ra, 2, &ro.v, 1, &ctx) == 0);
    CHECK(out_equals(&ro.v, (const int64_t[]){2, 1, 0, 1, 2, 3, 2}, 7));
    CHECK(gaps_ok(&ro));
    int64_t p4[2] = {4, 0};
    ra[1] = A_IS(p4, 2);
    CHECK(K("aten.reflection_pad1d.default")(ra, 2, &ro.v, 1, &ctx) == -1);
    CHECK(strcmp(errbuf, "Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                         "padding (4, 0) at dimension 1 of input [1, 4]") == 0);
    /* negative pads crop before reflecting (torch: [0,1,2,3] with (-1, 2) is [1,2,3,2,1]; (2, -1) is [2,1,0,1,2]) */
    int64_t s15[2] = {1, 5}, pm12[2] = {-1, 2}, p2m1[2] = {2, -1};
    T rn = mk(EIR_I64, 2, s15, 1);
    ra[1] = A_IS(pm12, 2);
    CHECK(K("aten.reflection_pad1d.default")(ra, 2, &rn.v, 1, &ctx) == 0);
    CHECK(out_equals(&rn.v, (const int64_t[]){1, 2, 3, 2, 1}, 5));
    ra[1] = A_IS(p2m1, 2);
    CHECK(K("aten.reflection_pad1d.default")(ra, 2, &rn.v, 1, &ctx) == 0);
    CHECK(out_equals(&rn.v, (const int64_t[]){2, 1, 0, 1, 2}, 5));
    fr(&rn);
    int64_t s123[3] = {1, 2, 3}, s146[3] = {1, 4, 6}, p2120[4] = {1, 2, 2, 0}, v6[6] = {0, 1, 2, 3, 4, 5};
    T px = ivec(3, s123, v6), po = mk(EIR_I64, 3, s146, 1);
    eir_karg pa[2] = {A_T(&px.v), A_IS(p2120, 4)};
    CHECK(K("aten.replication_pad2d.default")(pa, 2, &po.v, 1, &ctx) == 0);
    CHECK(out_equals(&po.v, (const int64_t[]){0, 0, 1, 2, 2, 2, 0, 0, 1, 2, 2, 2, 0, 0, 1, 2, 2, 2, 3, 3, 4, 5, 5, 5}, 24));
    fr(&rx); fr(&ro); fr(&px); fr(&po);
}

int main(void) {
    test_cat();
    test_stack();
    test_index_select_gather();
    test_scatter();
    test_index_add();
    test_index_torch();
    test_index_random();
    test_views();
    test_misc();
    return check_summary("test_k_data");
}
