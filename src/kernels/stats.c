/* stats.c — kernel family for the statistics, search and normalization ops
 * that torch.export keeps as user-level ATen ops (run_decompositions()
 * would lower them):
 *
 *   order statistics  median / nanmedian (.default, .dim), kthvalue, mode,
 *                     quantile / nanquantile (.scalar, .default; linear,
 *                     lower, higher, nearest, midpoint)
 *   scans             cummax, cummin, logcumsumexp
 *   histograms        histc, histogram (.bin_ct, .bins_tensor), histogramdd (all
 *                     three overloads and the _histogramdd_* ops it lowers to), bincount
 *                     (its length depends on the data: the runtime sizes the
 *                     output before the kernel runs)
 *   search            searchsorted (.Tensor, .Scalar), bucketize (.Tensor,
 *                     .Scalar), isin (.Tensor_Tensor, .Tensor_Scalar,
 *                     .Scalar_Tensor)
 *   normalization     rms_norm; instance_norm, _batch_norm_with_update
 *                     (+ _functional) and _batch_norm_no_update, composed
 *                     from the batch-norm kernels of misc.c and reduce.c
 *
 * Which element an order statistic picks among equal values follows torch's
 * CPU kernels: median.dim takes position (n-1)/2 of the order (value, index),
 * kthvalue runs torch's quickselect (quick_select_template, Sedgewick's
 * partition), and mode and nanmedian sort or select with libstdc++'s
 * std::sort / std::nth_element — which torch's kernels call — ported below,
 * so the indices they return for ties are torch's. */
#include "base/cmplx.h" /* complex.h, and CMPLX for clang */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#include "kutil.h"
#include "tables.h"

static const char *tname(eir_dtype d) { return eir_torch_dtype_name(d); }

static bool barg(const eir_karg *a, uint32_t na, uint32_t i, bool dflt) {
    return i < na && a[i].kind != EIR_KA_NONE ? a[i].i != 0 : dflt;
}
static double farg(const eir_karg *a, uint32_t na, uint32_t i, double dflt) {
    if (i >= na || a[i].kind == EIR_KA_NONE) return dflt;
    return a[i].kind == EIR_KA_FLOAT ? a[i].f : a[i].s.f;
}
static const eir_tview *targ(const eir_karg *a, uint32_t na, uint32_t i) {
    return i < na && a[i].kind == EIR_KA_TENSOR ? a[i].t : NULL;
}

static int dim_err(eir_kctx *ctx, int64_t dim, int32_t rank) {
    int64_t r = rank > 0 ? rank : 1;
    return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-r,
                    (long long)(r - 1), (long long)dim);
}


static inline double in_dtype(double v, eir_dtype d) { return eir_round_f64(v, d); }

/* ---- lines: the 1-d slices of a tensor along one dim --------------------
 * Views that line up with x (reduction outputs with the reduced dim
 * restored by keep_dim) are walked together; base[j] is the address of a
 * line's first element in view j, step[j] the bytes between its elements. */

/* A reduction output o viewed with x's rank: keepdim=False outputs get the
 * reduced dim back, as size 1. */
static eir_tview keep_dim(const eir_tview *o, int32_t rank, int32_t dim) {
    if (o->rank == rank) return *o;
    eir_tview v = *o;
    v.rank = rank;
    for (int32_t d = rank - 1; d > dim; d--) { v.sizes[d] = o->sizes[d - 1]; v.strides[d] = o->strides[d - 1]; }
    if (rank > 0) { v.sizes[dim] = 1; v.strides[dim] = 0; }
    return v;
}

typedef struct lineit {
    eir_iter it;
    eir_tview v[EIR_ITER_MAX_OPS];
    int nv;
    int64_t len, run, k;
    int64_t step[EIR_ITER_MAX_OPS];
    char *p[EIR_ITER_MAX_OPS];
} lineit;

/* views v[0..nv) of x's rank (v[0] is x, of length len along dim) */
static void lineit_init(lineit *L, int nv, const eir_tview *const *v, int32_t dim) {
    memset(L, 0, sizeof *L);
    L->nv = nv;
    int32_t rank = v[0]->rank;
    L->len = rank ? v[0]->sizes[dim] : 1;
    const eir_tview *ops[EIR_ITER_MAX_OPS];
    for (int j = 0; j < nv; j++) {
        L->v[j] = *v[j];
        L->step[j] = rank ? v[j]->strides[dim] * (int64_t)eir_elsize(v[j]->dtype) : 0;
        if (rank) L->v[j].sizes[dim] = 1;
        ops[j] = &L->v[j];
    }
    eir_iter_init(&L->it, rank, L->v[0].sizes, nv, ops);
}
static bool lineit_next(lineit *L, char **base) {
    while (L->k >= L->run) {
        if (!eir_iter_next(&L->it, L->p, &L->run)) return false;
        L->k = 0;
    }
    for (int j = 0; j < L->nv; j++) base[j] = L->p[j] + L->k * L->it.inner_stride[j];
    L->k++;
    return true;
}

/* ---- elements as sort keys ----------------------------------------------- */

typedef struct item {
    double f;       /* floating dtypes */
    int64_t i;      /* integer dtypes (exact beyond 2^53) */
    int64_t idx;    /* position along the line */
} item;

static inline item load_item(const char *p, eir_dtype d, bool isf, int64_t idx) {
    item it = {0, 0, idx};
    if (isf) it.f = eir_load_f64(p, d);
    else it.i = eir_load_i64(p, d);
    return it;
}
static inline void store_item(char *p, eir_dtype d, bool isf, const item *it) {
    if (isf) eir_store_f64(p, d, it->f);
    else eir_store_i64(p, d, it->i);
}

/* the dtypes torch's sorting kernels dispatch on (AT_DISPATCH_ALL_TYPES_AND2(Half, BFloat16)) */
static bool sortable(eir_dtype d) {
    return d == EIR_F32 || d == EIR_F64 || d == EIR_F16 || d == EIR_BF16 || d == EIR_U8 || d == EIR_I8 ||
           d == EIR_I16 || d == EIR_I32 || d == EIR_I64;
}

/* comparators; isf selects the key */
typedef bool (*item_less)(const item *a, const item *b);
static bool lt_f(const item *a, const item *b) { return a->f < b->f; }
static bool lt_i(const item *a, const item *b) { return a->i < b->i; }
/* (value, index), NaN last (NaNs unordered among themselves) */
static bool lt_f_idx_nanlast(const item *a, const item *b) {
    return a->f < b->f || (a->f == b->f && a->idx < b->idx) || (isnan(b->f) && !isnan(a->f));
}
static bool lt_i_idx(const item *a, const item *b) { return a->i < b->i || (a->i == b->i && a->idx < b->idx); }
/* values only, NaN last */
static bool lt_f_nanlast(const item *a, const item *b) { return a->f < b->f || (isnan(b->f) && !isnan(a->f)); }

/* ---- libstdc++'s std::sort and std::nth_element ----------------------------
 * The same steps as GCC's <bits/stl_algo.h> and <bits/stl_heap.h>
 * (introsort / introselect with median-of-three pivots, insertion sort below
 * 16 elements, heap fallback), so that elements that compare equal end in
 * the positions torch's kernels leave them in. */

static inline void swap_items(item *a, item *b) { item t = *a; *a = *b; *b = t; }

static void move_median_to_first(item *result, item *a, item *b, item *c, item_less lt) {
    if (lt(a, b)) {
        if (lt(b, c)) swap_items(result, b);
        else if (lt(a, c)) swap_items(result, c);
        else swap_items(result, a);
    } else if (lt(a, c)) swap_items(result, a);
    else if (lt(b, c)) swap_items(result, c);
    else swap_items(result, b);
}
static item *unguarded_partition(item *first, item *last, item *pivot, item_less lt) {
    for (;;) {
        while (lt(first, pivot)) ++first;
        --last;
        while (lt(pivot, last)) --last;
        if (!(first < last)) return first;
        swap_items(first, last);
        ++first;
    }
}
static item *unguarded_partition_pivot(item *first, item *last, item_less lt) {
    item *mid = first + (last - first) / 2;
    move_median_to_first(first, first + 1, mid, last - 1, lt);
    return unguarded_partition(first + 1, last, first, lt);
}
static void unguarded_linear_insert(item *last, item_less lt) {
    item val = *last, *next = last - 1;
    while (lt(&val, next)) { *last = *next; last = next; --next; }
    *last = val;
}
static void insertion_sort(item *first, item *last, item_less lt) {
    if (first == last) return;
    for (item *i = first + 1; i != last; ++i) {
        if (lt(i, first)) {
            item val = *i;
            memmove(first + 1, first, (size_t)(i - first) * sizeof *first);
            *first = val;
        } else {
            unguarded_linear_insert(i, lt);
        }
    }
}
static void push_heap(item *first, int64_t hole, int64_t top, item value, item_less lt) {
    int64_t parent = (hole - 1) / 2;
    while (hole > top && lt(&first[parent], &value)) {
        first[hole] = first[parent];
        hole = parent;
        parent = (hole - 1) / 2;
    }
    first[hole] = value;
}
static void adjust_heap(item *first, int64_t hole, int64_t len, item value, item_less lt) {
    const int64_t top = hole;
    int64_t second = hole;
    while (second < (len - 1) / 2) {
        second = 2 * (second + 1);
        if (lt(&first[second], &first[second - 1])) second--;
        first[hole] = first[second];
        hole = second;
    }
    if ((len & 1) == 0 && second == (len - 2) / 2) {
        second = 2 * (second + 1);
        first[hole] = first[second - 1];
        hole = second - 1;
    }
    push_heap(first, hole, top, value, lt);
}
static void heap_select(item *first, item *middle, item *last, item_less lt) {
    int64_t len = middle - first;
    if (len >= 2)
        for (int64_t parent = (len - 2) / 2;; parent--) {
            adjust_heap(first, parent, len, first[parent], lt);
            if (parent == 0) break;
        }
    for (item *i = middle; i < last; ++i)
        if (lt(i, first)) {
            item value = *i;
            *i = *first;
            adjust_heap(first, 0, len, value, lt);
        }
}
static int lg2(int64_t n) { return 63 - __builtin_clzll((unsigned long long)n); }

static void introsort_loop(item *first, item *last, int64_t depth, item_less lt) {
    while (last - first > 16) {
        if (depth == 0) {
            heap_select(first, last, last, lt);
            while (last - first > 1) { /* sort_heap */
                --last;
                item value = *last;
                *last = *first;
                adjust_heap(first, 0, last - first, value, lt);
            }
            return;
        }
        --depth;
        item *cut = unguarded_partition_pivot(first, last, lt);
        introsort_loop(cut, last, depth, lt);
        last = cut;
    }
}
static void std_sort(item *first, item *last, item_less lt) {
    if (last - first < 2) return;
    introsort_loop(first, last, 2 * (int64_t)lg2(last - first), lt);
    if (last - first > 16) {
        insertion_sort(first, first + 16, lt);
        for (item *i = first + 16; i != last; ++i) unguarded_linear_insert(i, lt);
    } else {
        insertion_sort(first, last, lt);
    }
}
static void std_nth_element(item *first, item *nth, item *last, item_less lt) {
    if (first == last || nth == last) return;
    int64_t depth = 2 * (int64_t)lg2(last - first);
    while (last - first > 3) {
        if (depth == 0) {
            heap_select(first, nth + 1, last, lt);
            swap_items(first, nth);
            return;
        }
        --depth;
        item *cut = unguarded_partition_pivot(first, last, lt);
        if (cut <= nth) first = cut;
        else last = cut;
    }
    insertion_sort(first, last, lt);
}

/* torch's quick_select_template (SortingUtils.h) with kthvalue's
 * "greater, NaN largest" comparison: arr[k] ends as the k-th smallest */
static inline bool gt_or_nan(const item *x, const item *y, bool isf) {
    if (!isf) return x->i > y->i;
    return (isnan(x->f) && !isnan(y->f)) || x->f > y->f;
}
static void quick_select(item *arr, int64_t n, int64_t k, bool isf) {
    int64_t L = 0, R = n - 1;
    for (;;) {
        if (R <= L) return;
        if (R == L + 1) {
            if (gt_or_nan(&arr[L], &arr[R], isf)) swap_items(&arr[L], &arr[R]);
            return;
        }
        int64_t P = (L + R) >> 1;
        swap_items(&arr[P], &arr[L + 1]);
        if (gt_or_nan(&arr[L + 1], &arr[R], isf)) swap_items(&arr[L + 1], &arr[R]);
        if (gt_or_nan(&arr[L], &arr[R], isf)) swap_items(&arr[L], &arr[R]);
        if (gt_or_nan(&arr[L + 1], &arr[L], isf)) swap_items(&arr[L + 1], &arr[L]);
        int64_t i = L + 1, j = R;
        item piv = arr[L];
        for (;;) {
            do i++; while (gt_or_nan(&piv, &arr[i], isf));
            do j--; while (gt_or_nan(&arr[j], &piv, isf));
            if (j < i) break;
            swap_items(&arr[i], &arr[j]);
        }
        swap_items(&arr[L], &arr[j]);
        if (j <= k) L = i;
        if (j >= k) R = j - 1;
    }
}

/* ---- order statistics along a dim: median.dim, nanmedian.dim, kthvalue, mode ---- */

enum sel_kind { SEL_MEDIAN, SEL_NANMEDIAN, SEL_KTH, SEL_MODE };

/* values / indices of one line it[0..n) (items in line order); returns the
 * chosen item */
static item select_line(enum sel_kind kind, item *it, int64_t n, int64_t k, bool isf) {
    switch (kind) {
    case SEL_MEDIAN:
        /* a NaN anywhere is the answer (the first one) */
        if (isf)
            for (int64_t i = 0; i < n; i++)
                if (isnan(it[i].f)) return it[i];
        std_nth_element(it, it + (n - 1) / 2, it + n, isf ? lt_f_idx_nanlast : lt_i_idx);
        return it[(n - 1) / 2];
    case SEL_NANMEDIAN: {
        int64_t nan = 0;
        if (isf)
            for (int64_t i = 0; i < n; i++) nan += isnan(it[i].f);
        int64_t pos = (n - nan - 1) / 2; /* C++ division: 0 when every value is NaN */
        std_nth_element(it, it + pos, it + n, isf ? lt_f_idx_nanlast : lt_i_idx);
        return it[pos];
    }
    case SEL_KTH:
        quick_select(it, n, k - 1, isf);
        return it[k - 1];
    case SEL_MODE: {
        std_sort(it, it + n, isf ? lt_f : lt_i);
        item best = it[0];
        int64_t freq = 0, maxf = 0;
        for (int64_t i = 0; i < n; i++) {
            freq++;
            bool end = i == n - 1 || (isf ? it[i].f != it[i + 1].f : it[i].i != it[i + 1].i);
            if (end) {
                if (freq > maxf) { best = it[i]; maxf = freq; }
                freq = 0;
            }
        }
        return best;
    }
    }
    return it[0];
}

static int select_dim(const char *op, enum sel_kind kind, const eir_tview *x, int64_t dim64, int64_t k, eir_tview *out,
                      uint32_t nout, eir_kctx *ctx) {
    if (nout < 2) return eir_kerr(ctx, "%s: expected values and indices", op);
    if (!sortable(x->dtype)) return eir_kerr(ctx, "\"%s_cpu\" not implemented for '%s'", op, tname(x->dtype));
    int32_t dim = eir_wrap_dim(dim64, x->rank);
    if (dim < 0) return dim_err(ctx, dim64, x->rank);
    int64_t n = x->rank ? x->sizes[dim] : 1;
    if (kind == SEL_KTH && (k < 1 || k > n))
        return eir_kerr(ctx, "kthvalue(): selected number k out of range for dimension %d", dim);
    if (n == 0 && eir_tview_numel(&out[0]) > 0)
        return eir_kerr(ctx, "%s(): Expected reduction dim %d to have non-zero size.", op, dim);
    eir_tview vo = keep_dim(&out[0], x->rank, dim), io = keep_dim(&out[1], x->rank, dim);
    if (vo.rank != x->rank || io.rank != x->rank) return eir_kerr(ctx, "%s: output rank does not match the input", op);
    const eir_tview *vs[3] = {x, &vo, &io};
    lineit L;
    lineit_init(&L, 3, vs, dim);
    item *buf = eir_kalloc((size_t)(n > 0 ? n : 1) * sizeof *buf);
    if (!buf) return eir_kerr(ctx, "%s: out of memory", op);
    bool isf = eir_is_floating(x->dtype);
    char *b[3];
    while (n > 0 && lineit_next(&L, b)) {
        for (int64_t i = 0; i < n; i++) buf[i] = load_item(b[0] + i * L.step[0], x->dtype, isf, i);
        item r = select_line(kind, buf, n, k, isf);
        store_item(b[1], vo.dtype, isf, &r);
        eir_store_i64(b[2], io.dtype, r.idx);
    }
    eir_kfree(buf);
    return 0;
}

/* median.dim / nanmedian.dim(self, dim, keepdim) */
static int k_median_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(c, "median: expected self and dim");
    return select_dim("median", SEL_MEDIAN, a[0].t, a[1].i, 0, o, no, c);
}
static int k_nanmedian_dim(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(c, "nanmedian: expected self and dim");
    return select_dim("nanmedian", SEL_NANMEDIAN, a[0].t, a[1].i, 0, o, no, c);
}
/* kthvalue(self, k, dim=-1, keepdim) */
static int k_kthvalue(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(c, "kthvalue: expected self and k");
    return select_dim("kthvalue", SEL_KTH, a[0].t, na > 2 ? a[2].i : -1, a[1].i, o, no, c);
}
/* mode(self, dim=-1, keepdim) */
static int k_mode(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (na < 1 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(c, "mode: expected self");
    return select_dim("mode", SEL_MODE, a[0].t, na > 1 ? a[1].i : -1, 0, o, no, c);
}

/* Every element of x in row-major order: as items (it, when given) and/or
 * as doubles (v, when given). */
static void gather(const eir_tview *x, bool isf, item *it, double *v) {
    eir_iter iter;
    const eir_tview *ops[1] = {x};
    eir_iter_init(&iter, x->rank, x->sizes, 1, ops);
    char *p[1];
    int64_t len, k = 0;
    while (eir_iter_next(&iter, p, &len))
        for (int64_t j = 0; j < len; j++, k++) {
            const char *e = p[0] + j * iter.inner_stride[0];
            if (it) it[k] = load_item(e, x->dtype, isf, k);
            if (v) v[k] = eir_load_f64(e, x->dtype);
        }
}

/* median.default / nanmedian.default(self): the lower median of all
 * elements; NaN for an empty tensor (as torch, converted to the dtype) */
static int median_all(const char *op, bool ignore_nan, const eir_karg *a, uint32_t na, eir_tview *out, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected self", op);
    const eir_tview *x = a[0].t;
    if (!sortable(x->dtype)) return eir_kerr(ctx, "\"%s_cpu\" not implemented for '%s'", op, tname(x->dtype));
    bool isf = eir_is_floating(x->dtype);
    int64_t n;
    if (eir_tview_numel(x) == 0) {
        if (isf) eir_store_f64(out->data, out->dtype, NAN);
        else eir_store_i64(out->data, out->dtype, out->dtype == EIR_I64 ? INT64_MIN : INT32_MIN); /* NaN cast as x86 does */
        return 0;
    }
    n = eir_tview_numel(x);
    item *buf = eir_kalloc((size_t)n * sizeof *buf);
    if (!buf) return eir_kerr(ctx, "%s: out of memory", op);
    gather(x, isf, buf, NULL);
    item r;
    bool has_nan = false;
    for (int64_t i = 0; isf && i < n; i++) has_nan |= isnan(buf[i].f);
    if (has_nan && !ignore_nan) {
        r.f = NAN;
    } else {
        int64_t nan = 0;
        for (int64_t i = 0; isf && i < n; i++) nan += isnan(buf[i].f);
        int64_t pos = (n - nan - 1) / 2;
        std_nth_element(buf, buf + pos, buf + n, isf ? lt_f_nanlast : lt_i);
        r = buf[pos];
    }
    store_item(out->data, out->dtype, isf, &r);
    eir_kfree(buf);
    return 0;
}
static int k_median(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return median_all("median", false, a, na, o, c); }
static int k_nanmedian(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return median_all("nanmedian", true, a, na, o, c); }

/* ---- quantile / nanquantile ----------------------------------------------
 * torch's quantile_compute: each line sorted (NaN last); q's rank
 * q * (n - 1) in the input's dtype (n counts non-NaN values for
 * nanquantile; a NaN makes quantile's rank the last, NaN, element); the
 * interpolation picks or blends the neighbours with lerp's formula. */

enum qinterp { Q_LINEAR, Q_LOWER, Q_HIGHER, Q_MIDPOINT, Q_NEAREST };

static int cmp_nanlast(const void *pa, const void *pb) {
    double a = *(const double *)pa, b = *(const double *)pb;
    bool na = isnan(a), nb = isnan(b);
    if (na || nb) return na - nb;
    return (a > b) - (a < b);
}

/* one quantile of the sorted line v[0..n) (nnan trailing NaNs) */
static double quantile_of(const double *v, int64_t n, int64_t nnan, double q, bool ignore_nan, enum qinterp in,
                          eir_dtype d) {
    double rank;
    if (ignore_nan) {
        rank = in_dtype(q * (double)(n - nnan - 1), d);
        if (rank < 0) rank = 0;
    } else {
        rank = nnan ? (double)(n - 1) : in_dtype(q * (double)(n - 1), d);
    }
    if (in == Q_LOWER) rank = floor(rank);
    else if (in == Q_HIGHER) rank = ceil(rank);
    else if (in == Q_NEAREST) rank = nearbyint(rank);
    int64_t lo = (int64_t)rank;
    double below = v[lo];
    if (in != Q_LINEAR && in != Q_MIDPOINT) return below;
    double w = in == Q_MIDPOINT ? 0.5 : in_dtype(rank - (double)lo, d);
    double above = v[(int64_t)ceil(rank)];
    double diff = in_dtype(above - below, d);
    return fabs(w) < 0.5 ? in_dtype(below + in_dtype(w * diff, d), d) : in_dtype(above - in_dtype(diff * in_dtype(1 - w, d), d), d);
}

static int quantile_impl(const char *op, bool ignore_nan, const eir_karg *a, uint32_t na, bool q_tensor, eir_tview *out,
                         eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected self and q", op);
    const eir_tview *x = a[0].t, *qt = q_tensor ? targ(a, na, 1) : NULL;
    if (q_tensor && !qt) return eir_kerr(ctx, "%s: expected a tensor q", op);
    const char *interp = na > 4 && a[4].kind == EIR_KA_STRING ? a[4].str : "linear";
    enum qinterp in;
    if (!strcmp(interp, "linear")) in = Q_LINEAR;
    else if (!strcmp(interp, "lower")) in = Q_LOWER;
    else if (!strcmp(interp, "higher")) in = Q_HIGHER;
    else if (!strcmp(interp, "midpoint")) in = Q_MIDPOINT;
    else if (!strcmp(interp, "nearest")) in = Q_NEAREST;
    else return eir_kerr(ctx, "%s() interpolation must be one of linear, lower, higher, midpoint or nearest. Got %s", op, interp);
    if (eir_tview_numel(x) == 0) return eir_kerr(ctx, "%s() input tensor must be non-empty", op);
    if (qt && qt->rank > 1) return eir_kerr(ctx, "%s() q must be a scalar or 1D tensor", op);
    if (x->dtype != EIR_F32 && x->dtype != EIR_F64) return eir_kerr(ctx, "%s() input tensor must be either float or double dtype", op);
    if (qt && qt->dtype != x->dtype) return eir_kerr(ctx, "%s() q tensor must be same dtype as the input tensor", op);
    int64_t nq = qt ? eir_tview_numel(qt) : 1;
    double qs1 = 0, *qs = nq > 1 ? eir_kalloc((size_t)nq * sizeof *qs) : &qs1;
    if (!qs) return eir_kerr(ctx, "%s: out of memory", op);
    int rc = 0;
    if (qt) {
        for (int64_t i = 0; i < nq; i++) {
            int64_t at[1] = {i};
            qs[i] = eir_load_f64(qt->rank ? eir_tview_at(qt, at) : qt->data, qt->dtype);
            if (!(qs[i] >= 0 && qs[i] <= 1)) { rc = eir_kerr(ctx, "%s() q values must be in the range [0, 1]", op); goto done; }
        }
    } else {
        double q = farg(a, na, 1, 0.5);
        if (!(q >= 0 && q <= 1)) { rc = eir_kerr(ctx, "%s() q must be in the range [0, 1] but got %g", op, q); goto done; }
        qs[0] = in_dtype(q, x->dtype);  /* scalar q becomes a tensor of the input's dtype */
    }
    bool all = na < 3 || a[2].kind == EIR_KA_NONE;
    int32_t dim = 0;
    if (!all) {
        dim = eir_wrap_dim(a[2].i, x->rank);
        if (dim < 0) { rc = dim_err(ctx, a[2].i, x->rank); goto done; }
    }
    /* out is [Q, *reduced] for a 1-d q, else the reduced shape */
    bool qdim = qt && qt->rank == 1;
    for (int64_t qi = 0; qi < nq; qi++) {
        eir_tview o = out[0];
        if (qdim) {
            o.data = (char *)out[0].data + qi * out[0].strides[0] * (int64_t)eir_elsize(out[0].dtype);
            o.rank--;
            memmove(o.sizes, o.sizes + 1, (size_t)o.rank * sizeof o.sizes[0]);
            memmove(o.strides, o.strides + 1, (size_t)o.rank * sizeof o.strides[0]);
        }
        if (all) {
            int64_t n = eir_tview_numel(x);
            double *v = eir_kalloc((size_t)n * sizeof *v);
            if (!v) { rc = eir_kerr(ctx, "%s: out of memory", op); goto done; }
            gather(x, true, NULL, v);
            qsort(v, (size_t)n, sizeof *v, cmp_nanlast);
            int64_t nnan = 0;
            while (nnan < n && isnan(v[n - 1 - nnan])) nnan++;
            eir_store_f64(o.data, o.dtype, quantile_of(v, n, nnan, qs[qi], ignore_nan, in, x->dtype));
            eir_kfree(v);
            continue;
        }
        eir_tview vo = keep_dim(&o, x->rank, dim);
        const eir_tview *vs[2] = {x, &vo};
        lineit L;
        lineit_init(&L, 2, vs, dim);
        double *v = eir_kalloc((size_t)(L.len > 0 ? L.len : 1) * sizeof *v);
        if (!v) { rc = eir_kerr(ctx, "%s: out of memory", op); goto done; }
        char *b[2];
        while (lineit_next(&L, b)) {
            for (int64_t i = 0; i < L.len; i++) v[i] = eir_load_f64(b[0] + i * L.step[0], x->dtype);
            qsort(v, (size_t)L.len, sizeof *v, cmp_nanlast);
            int64_t nnan = 0;
            while (nnan < L.len && isnan(v[L.len - 1 - nnan])) nnan++;
            eir_store_f64(b[1], vo.dtype, quantile_of(v, L.len, nnan, qs[qi], ignore_nan, in, x->dtype));
        }
        eir_kfree(v);
    }
done:
    if (qs != &qs1) eir_kfree(qs);
    return rc;
}
/* quantile.scalar(self, float q, int? dim, bool keepdim, *, str interpolation) / .default (Tensor q) */
static int k_quantile_scalar(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return quantile_impl("quantile", false, a, na, false, o, c); }
static int k_quantile(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return quantile_impl("quantile", false, a, na, true, o, c); }
static int k_nanquantile_scalar(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return quantile_impl("nanquantile", true, a, na, false, o, c); }
static int k_nanquantile(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return quantile_impl("nanquantile", true, a, na, true, o, c); }

/* ---- scans: cummax / cummin / logcumsumexp --------------------------------- */

/* cummax / cummin(self, dim) -> (values, indices): the running extreme; a
 * later equal value takes over the index, a NaN takes over and stays */
static int cumext(const char *op, bool want_max, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || no < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "%s: expected self, dim and two outputs", op);
    const eir_tview *x = a[0].t;
    if (!sortable(x->dtype) && x->dtype != EIR_BOOL) return eir_kerr(ctx, "\"%s_cpu\" not implemented for '%s'", op, tname(x->dtype));
    int32_t dim = eir_wrap_dim(a[1].i, x->rank);
    if (dim < 0) return dim_err(ctx, a[1].i, x->rank);
    const eir_tview *vs[3] = {x, &out[0], &out[1]};
    lineit L;
    lineit_init(&L, 3, vs, dim);
    bool isf = eir_is_floating(x->dtype);
    char *b[3];
    while (L.len > 0 && lineit_next(&L, b)) {
        item best = load_item(b[0], x->dtype, isf, 0);
        for (int64_t i = 0; i < L.len; i++) {
            item v = load_item(b[0] + i * L.step[0], x->dtype, isf, i);
            bool take;
            if (isf) take = isnan(v.f) || (!isnan(best.f) && (want_max ? v.f >= best.f : v.f <= best.f));
            else take = want_max ? v.i >= best.i : v.i <= best.i;
            if (take) best = v;
            store_item(b[1] + i * L.step[1], out[0].dtype, isf, &best);
            eir_store_i64(b[2] + i * L.step[2], out[1].dtype, best.idx);
        }
    }
    return 0;
}
static int k_cummax(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return cumext("cummax", true, a, na, o, no, c); }
static int k_cummin(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return cumext("cummin", false, a, na, o, no, c); }

/* torch's _log_add_exp_helper */
static inline double log_add_exp(double x, double y) {
    double mn = isnan(y) ? y : (y < x ? y : x), mx = isnan(y) ? y : (x < y ? y : x);
    if (mn != mx || isfinite(mn)) return log1p(exp(mn - mx)) + mx;
    return x;
}
static inline float log_add_expf(float x, float y) {
    float mn = isnan(y) ? y : (y < x ? y : x), mx = isnan(y) ? y : (x < y ? y : x);
    if (mn != mx || isfinite(mn)) return log1pf(expf(mn - mx)) + mx;
    return x;
}
/* c10's log1p for complex: log|1 + z| without cancellation for small z */
static double complex clog1p_(double complex z) {
    double x = creal(z), y = cimag(z), theta = atan2(y, x + 1);
    if (cabs(z) < 0.5) {
        double r = x * (2 + x) + y * y;
        if (r == 0) return CMPLX(x, theta);
        return CMPLX(0.5 * log1p(r), theta);
    }
    return CMPLX(log(hypot(x + 1, y)), theta);
}
/* torch's _log_add_exp_helper for complex values: by real parts; NaN is infectious */
static double complex log_add_exp_c(double complex x, double complex y) {
    double xr = creal(x), yr = creal(y);
    if (isnan(xr) || isnan(yr)) return CMPLX(NAN, NAN);
    double mn = xr < yr ? xr : yr, mx = xr < yr ? yr : xr;
    if (!isfinite(mn) && mn == mx) return mn < 0 ? x : clog(cexp(x) + cexp(y));
    double complex lo = xr < yr ? x : y, hi = xr < yr ? y : x;
    return clog1p_(cexp(lo - hi)) + hi;
}

/* logcumsumexp(self, dim): accumulated in double for float32/float64 and
 * complex (their CPU accumulate types), in float for float16/bfloat16 */
static int k_logcumsumexp(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "logcumsumexp: expected self and dim");
    const eir_tview *x = a[0].t;
    if (!eir_is_floating(x->dtype) && x->dtype != EIR_C64 && x->dtype != EIR_C128)
        return eir_kerr(ctx, "\"logcumsumexp_out_cpu\" not implemented for '%s'", tname(x->dtype));
    int32_t dim = eir_wrap_dim(a[1].i, x->rank);
    if (dim < 0) return dim_err(ctx, a[1].i, x->rank);
    if (eir_is_complex(x->dtype)) {
        const eir_tview *cv[2] = {x, &out[0]};
        lineit C;
        lineit_init(&C, 2, cv, dim);
        char *cb[2];
        while (lineit_next(&C, cb)) {
            double complex acc = CMPLX(-INFINITY, 0);
            for (int64_t i = 0; i < C.len; i++) {
                double re, im;
                eir_load_c128(cb[0] + i * C.step[0], x->dtype, &re, &im);
                acc = log_add_exp_c(CMPLX(re, im), acc);
                eir_store_c128(cb[1] + i * C.step[1], out[0].dtype, creal(acc), cimag(acc));
            }
        }
        return 0;
    }
    bool reduced = x->dtype == EIR_F16 || x->dtype == EIR_BF16;
    const eir_tview *vs[2] = {x, &out[0]};
    lineit L;
    lineit_init(&L, 2, vs, dim);
    char *b[2];
    while (lineit_next(&L, b)) {
        double acc = -INFINITY;
        for (int64_t i = 0; i < L.len; i++) {
            double v = eir_load_f64(b[0] + i * L.step[0], x->dtype);
            acc = reduced ? log_add_expf((float)v, (float)acc) : log_add_exp(v, acc);
            eir_store_f64(b[1] + i * L.step[1], out[0].dtype, acc);
        }
    }
    return 0;
}

/* ---- histograms ---------------------------------------------------------- */

/* bin edges as torch's linspace computes them (a fused multiply-add from
 * whichever end is nearer), in dtype d */
static double linspace_at(double lo, double hi, int64_t steps, int64_t i, eir_dtype d) {
    if (steps == 1) return lo;
    if (d == EIR_F64) {
        double step = (hi - lo) / (double)(steps - 1);
        return i < steps / 2 ? fma(step, (double)i, lo) : fma(-step, (double)(steps - i - 1), hi);
    }
    float l = (float)lo, h = (float)hi, step = (h - l) / (float)(steps - 1);
    return i < steps / 2 ? fmaf(step, (float)i, l) : fmaf(-step, (float)(steps - i - 1), h);
}

/* first position in e[lo..hi) whose value is > v (std::upper_bound) */
static int64_t upper_bound_d(const double *e, int64_t lo, int64_t hi, double v) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (!(v < e[mid])) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

enum hist_alg { H_LINEAR, H_LINEAR_SEARCH, H_BINARY };

/* torch's histogramdd_cpu_contiguous: rows v[m*N .. m*N+N) of M samples
 * (weights w[m], or 1) into hist (row-major over nb[0..N), zeroed,
 * accumulated in dtype d); edges e[k][0..nb[k]]. A sample with a
 * coordinate outside [e[k][0], e[k][nb[k]]] (or NaN) is skipped; the last
 * bin of each dim includes its right edge. H_LINEAR reads only the outer
 * edges (histc), H_LINEAR_SEARCH corrects the interpolated bin against the
 * edges next to it (evenly spaced bins), H_BINARY searches them all. */
static void hist_fill(const double *v, const double *w, int64_t M, int32_t N, double *const *e, const int64_t *nb,
                      enum hist_alg alg, double *hist, eir_dtype d) {
    for (int64_t m = 0; m < M; m++) {
        int64_t at = 0;
        bool skip = false;
        for (int32_t k = 0; k < N && !skip; k++) {
            double x = v[m * N + k], lo = e[k][0], hi = e[k][nb[k]];
            if (!(x >= lo && x <= hi)) { skip = true; break; }
            int64_t pos;
            if (alg == H_BINARY) {
                pos = upper_bound_d(e[k], 0, nb[k] + 1, x) - 1;
            } else {
                pos = (int64_t)in_dtype(in_dtype(in_dtype(x - lo, d) * (double)nb[k], d) / in_dtype(hi - lo, d), d);
                if (alg == H_LINEAR_SEARCH) {
                    int64_t pmin = pos - 1 > 0 ? pos - 1 : 0, pmax = pos + 2 < nb[k] + 1 ? pos + 2 : nb[k] + 1;
                    pos = upper_bound_d(e[k], pmin, pmax, x) - 1;
                }
            }
            if (pos == nb[k]) pos--;
            at = at * nb[k] + pos;
        }
        if (!skip) hist[at] = in_dtype(hist[at] + (w ? w[m] : 1.0), d);
    }
}

/* the minimum and maximum of column k of the rows v[M][N] (NaN, NaN when
 * it holds a NaN, as aminmax) */
static void column_range(const double *v, int64_t M, int32_t N, int32_t k, double *lo, double *hi) {
    *lo = INFINITY;
    *hi = -INFINITY;
    for (int64_t m = 0; m < M; m++) {
        double x = v[m * N + k];
        if (isnan(x)) { *lo = *hi = NAN; return; }
        if (x < *lo) *lo = x;
        if (x > *hi) *hi = x;
    }
}

/* histc(self, bins=100, min=0, max=0): min == max takes the data's range */
static int k_histc(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "histc: expected self");
    const eir_tview *x = a[0].t;
    int64_t bins = na > 1 ? a[1].i : 100;
    double lo = farg(a, na, 2, 0), hi = farg(a, na, 3, 0);
    if (!(x->dtype == EIR_F32 || x->dtype == EIR_F64 || x->dtype == EIR_F16 || x->dtype == EIR_BF16))
        return eir_kerr(ctx, "\"histogram_cpu\" not implemented for '%s'", tname(x->dtype));
    if (bins <= 0) return eir_kerr(ctx, "torch.histc(): bins must be > 0, but got %lld for dimension 0", (long long)bins);
    if (out->rank != 1 || out->sizes[0] != bins) return eir_kerr(ctx, "histc: output must have %lld elements", (long long)bins);
    int64_t n = eir_tview_numel(x);
    double *v = eir_kalloc((size_t)(n > 0 ? n : 1) * sizeof *v), *hist = eir_kcalloc((size_t)bins, sizeof *hist);
    double *e = eir_kcalloc((size_t)bins + 1, sizeof *e);
    int rc = 0;
    if (!v || !hist || !e) { rc = eir_kerr(ctx, "histc: out of memory"); goto done; }
    gather(x, true, NULL, v);
    if (lo == hi && n > 0) column_range(v, n, 1, 0, &lo, &hi);
    if (lo == hi) { lo -= 1; hi += 1; }
    if (isinf(lo) || isinf(hi) || isnan(lo) || isnan(hi)) { rc = eir_kerr(ctx, "torch.histc: range of [%g, %g] is not finite", lo, hi); goto done; }
    if (!(lo < hi)) { rc = eir_kerr(ctx, "torch.histc: max must be larger than min"); goto done; }
    /* the linear bin search reads only the outer edges */
    e[0] = in_dtype(lo, x->dtype);
    e[bins] = in_dtype(hi, x->dtype);
    hist_fill(v, NULL, n, 1, &e, &bins, H_LINEAR, hist, x->dtype);
    for (int64_t i = 0; i < bins; i++) eir_store_f64((char *)out->data + i * out->strides[0] * (int64_t)eir_elsize(out->dtype), out->dtype, hist[i]);
done:
    eir_kfree(v);
    eir_kfree(hist);
    eir_kfree(e);
    return rc;
}

/* histogram / histogramdd and the pieces they decompose into. x is [*, N]
 * (histogram: every element a sample, N = 1); bins are counts (nbins[k])
 * or edge tensors (bins_t[k]); range lists N (min, max) pairs. */
typedef struct hspec {
    const eir_tview *x, *w;
    int32_t N;
    const int64_t *nbins;          /* counts, or NULL */
    const eir_tview *const *bins_t; /* edge tensors, or NULL */
    const double *range;           /* 2N values, or NULL */
    bool density;
    eir_tview *hist;               /* outputs, each may be NULL */
    eir_tview *edges;              /* N 1-d tensors */
} hspec;

static int histdd(const char *op, const hspec *h, eir_kctx *ctx) {
    const eir_tview *x = h->x;
    eir_dtype d = x->dtype;
    int32_t N = h->N;
    if (d != EIR_F32 && d != EIR_F64) return eir_kerr(ctx, "\"histogramdd\" not implemented for '%s'", tname(d));
    if (N < 1 || N > EIR_MAX_RANK) return eir_kerr(ctx, "%s: %d dimensions are not supported", op, N);
    int64_t n = eir_tview_numel(x), M = n / N;
    if (h->w && h->w->dtype != d)
        return eir_kerr(ctx, "torch.histogramdd: if weight tensor is provided, it should have the same dtype as the input tensor");
    if (h->w && eir_tview_numel(h->w) != M)
        return eir_kerr(ctx, "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor excluding its innermost dimension");
    int64_t nb[EIR_MAX_RANK], total = 1;
    double *e[EIR_MAX_RANK] = {NULL};
    for (int32_t k = 0; k < N; k++) {
        if (h->bins_t) {
            const eir_tview *b = h->bins_t[k];
            if (!b) return eir_kerr(ctx, "%s: bins %d is None", op, k);
            if (b->dtype != d)
                return eir_kerr(ctx, "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input %s and bins %s", tname(d), tname(b->dtype));
            if (b->rank != 1) return eir_kerr(ctx, "torch.histogramdd: bins tensor should have one dimension, but got %d dimensions in the bins tensor for dimension %d", b->rank, k);
            if (b->sizes[0] < 1) return eir_kerr(ctx, "torch.histogramdd: bins tensor should have at least 1 element, but got 0 elements in the bins tensor for dimension %d", k);
            nb[k] = b->sizes[0] - 1;
        } else {
            nb[k] = h->nbins[k];
            if (nb[k] <= 0) return eir_kerr(ctx, "torch.histogramdd(): bins must be > 0, but got %lld for dimension %d", (long long)nb[k], k);
        }
        total *= nb[k];
    }
    double *v = eir_kalloc((size_t)(n > 0 ? n : 1) * sizeof *v), *wv = h->w ? eir_kalloc((size_t)(M > 0 ? M : 1) * sizeof *wv) : NULL;
    double *hist = eir_kcalloc((size_t)(total > 0 ? total : 1), sizeof *hist);
    int rc = 0;
    if (!v || (h->w && !wv) || !hist) { rc = eir_kerr(ctx, "%s: out of memory", op); goto done; }
    gather(x, true, NULL, v);
    if (h->w) gather(h->w, true, NULL, wv);
    for (int32_t k = 0; k < N; k++) {
        e[k] = eir_kalloc(((size_t)nb[k] + 1) * sizeof *e[k]);
        if (!e[k]) { rc = eir_kerr(ctx, "%s: out of memory", op); goto done; }
        if (h->bins_t) {
            for (int64_t i = 0; i <= nb[k]; i++) {
                int64_t at[1] = {i};
                e[k][i] = eir_load_f64(eir_tview_at(h->bins_t[k], at), d);
            }
            continue;
        }
        /* torch's select_outer_bin_edges, then linspace */
        double lo = 0, hi = 1;
        if (h->range) { lo = h->range[2 * k]; hi = h->range[2 * k + 1]; }
        else if (M > 0) column_range(v, M, N, k, &lo, &hi);
        if (!(isfinite(lo) && isfinite(hi))) { rc = eir_kerr(ctx, "torch.histogramdd: dimension %d's range [%g, %g] is not finite", k, lo, hi); goto done; }
        if (!(lo <= hi)) { rc = eir_kerr(ctx, "torch.histogramdd: min should not exceed max, but got min %g max %g for dimension %d", lo, hi, k); goto done; }
        if (lo == hi) { lo -= 0.5; hi += 0.5; }
        for (int64_t i = 0; i <= nb[k]; i++) e[k][i] = linspace_at(lo, hi, nb[k] + 1, i, d);
    }
    if (h->hist) {
        hist_fill(v, wv, M, N, e, nb, h->bins_t ? H_BINARY : H_LINEAR_SEARCH, hist, d);
        if (h->density) {
            /* hist / its sum, then / each dim's bin lengths */
            double s = 0;
            for (int64_t i = 0; i < total; i++) s += hist[i];
            s = in_dtype(s, d);
            for (int64_t i = 0; i < total; i++) hist[i] = in_dtype(hist[i] / s, d);
            int64_t inner = total;
            for (int32_t k = 0; k < N; k++) {
                inner /= nb[k];
                for (int64_t i = 0; i < total; i++) {
                    int64_t b = (i / inner) % nb[k];
                    hist[i] = in_dtype(hist[i] / in_dtype(e[k][b + 1] - e[k][b], d), d);
                }
            }
        }
        if (h->hist->rank != N || eir_tview_numel(h->hist) != total) { rc = eir_kerr(ctx, "%s: the histogram output has the wrong shape", op); goto done; }
        eir_iter it;
        const eir_tview *ops[1] = {h->hist};
        eir_iter_init(&it, h->hist->rank, h->hist->sizes, 1, ops);
        char *p[1];
        int64_t len, k = 0;
        while (eir_iter_next(&it, p, &len))
            for (int64_t j = 0; j < len; j++) eir_store_f64(p[0] + j * it.inner_stride[0], h->hist->dtype, hist[k++]);
    }
    if (h->edges)
        for (int32_t k = 0; k < N; k++) {
            eir_tview *o = &h->edges[k];
            if (o->rank != 1 || o->sizes[0] != nb[k] + 1) { rc = eir_kerr(ctx, "%s: bin_edges %d has the wrong shape", op, k); goto done; }
            for (int64_t i = 0; i <= nb[k]; i++) eir_store_f64((char *)o->data + i * o->strides[0] * (int64_t)eir_elsize(o->dtype), o->dtype, e[k][i]);
        }
done:
    for (int32_t k = 0; k < N; k++) eir_kfree(e[k]);
    eir_kfree(v);
    eir_kfree(wv);
    eir_kfree(hist);
    return rc;
}

/* the range argument: 2N floats, or NULL (None); -1 after an error */
static int range_arg(const eir_karg *a, int32_t N, const double **range, eir_kctx *ctx) {
    *range = NULL;
    if (!a || a->kind != EIR_KA_FLOATS) return 0;
    if ((int32_t)a->n != 2 * N)
        return eir_kerr(ctx, "torch.histogramdd: for a %d-dimensional histogram range should have %d elements, but got %u", N, 2 * N, a->n);
    *range = a->floats;
    return 0;
}

/* histogram.bin_ct(self, bins=100, *, range?, weight?, density) / .bins_tensor(self, bins, *, weight?, density) -> (hist, bin_edges) */
static int histogram_impl(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, bool bins_tensor, eir_kctx *ctx) {
    if (na < 2 || no < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "histogram: expected self, bins and two outputs");
    const eir_tview *bt = bins_tensor ? targ(a, na, 1) : NULL;
    if (bins_tensor && !bt) return eir_kerr(ctx, "histogram: expected a bins tensor");
    hspec h = {a[0].t, targ(a, na, bins_tensor ? 2 : 3), 1, bins_tensor ? NULL : &a[1].i, bins_tensor ? &bt : NULL, NULL,
               barg(a, na, bins_tensor ? 3 : 4, false), &out[0], &out[1]};
    if (!bins_tensor && range_arg(na > 2 ? &a[2] : NULL, 1, &h.range, ctx)) return -1;
    return histdd("histogram", &h, ctx);
}
static int k_histogram_bin_ct(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histogram_impl(a, na, o, no, false, c); }
static int k_histogram_bins(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histogram_impl(a, na, o, no, true, c); }

/* histogramdd(self, bins, range?, weight?, density) -> (hist, bin_edges[]) in
 * its three overloads (int[] bins, int bins, Tensor[] bins); which: 0 both
 * outputs, 1 _histogramdd_bin_edges (edges only), 2 _histogramdd_from_bin_*
 * (hist only); bins_form: 0 int[], 1 int, 2 Tensor[] */
static int histdd_entry(int which, int bins_form, const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "histogramdd: expected self and bins");
    const eir_tview *x = a[0].t;
    if (x->rank < 1) return eir_kerr(ctx, "torch.histogramdd: input tensor should have at least 1 dimension, but got 0");
    int32_t N = (int32_t)x->sizes[x->rank - 1];
    int64_t same[EIR_MAX_RANK];
    const int64_t *nbins = NULL;
    const eir_tview *const *bins_t = NULL;
    uint32_t given = (uint32_t)N;
    if (bins_form == 0) { nbins = a[1].ints; given = a[1].n; }
    else if (bins_form == 2) { bins_t = a[1].ts; given = a[1].n; }
    else {
        for (int32_t k = 0; k < N && k < EIR_MAX_RANK; k++) same[k] = a[1].i;
        nbins = same;
    }
    if ((int32_t)given != N)
        return eir_kerr(ctx, "torch.histogramdd: expected %d sequences of bin edges for a %d-dimensional histogram but got %u", N, N, given);
    /* _histogramdd_from_bin_tensors has no range: (self, bins, *, weight, density) */
    uint32_t wi = bins_form == 2 && which == 2 ? 2 : 3, di = wi + 1;
    hspec h = {x, targ(a, na, wi), N, nbins, bins_t, NULL, barg(a, na, di, false), NULL, NULL};
    if (bins_form != 2 && range_arg(na > 2 ? &a[2] : NULL, N, &h.range, ctx)) return -1;  /* edge tensors need no range */
    if (which != 1) h.hist = &out[0];
    if (which != 2) {
        uint32_t first = which == 0 ? 1 : 0;
        if (no < first + (uint32_t)N) return eir_kerr(ctx, "histogramdd: expected %d bin_edges outputs", N);
        h.edges = &out[first];
    }
    return histdd("histogramdd", &h, ctx);
}
static int k_histogramdd(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histdd_entry(0, 0, a, na, o, no, c); }
static int k_histogramdd_int(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histdd_entry(0, 1, a, na, o, no, c); }
static int k_histogramdd_tensors(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histdd_entry(0, 2, a, na, o, no, c); }
static int k_histogramdd_bin_edges(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histdd_entry(1, 0, a, na, o, no, c); }
static int k_histogramdd_from_cts(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histdd_entry(2, 0, a, na, o, no, c); }
static int k_histogramdd_from_tensors(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return histdd_entry(2, 2, a, na, o, no, c); }

/* bincount(self, weights?, minlength=0): out has max(self) + 1 (at least
 * minlength) elements — sized by the runtime from the data before this runs;
 * weights accumulate in the output's dtype, in order */
static int k_bincount(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "bincount: expected self");
    const eir_tview *x = a[0].t, *w = targ(a, na, 1);
    int64_t minlength = na > 2 ? a[2].i : 0;
    if (!eir_is_integral(x->dtype, false) || x->dtype == EIR_U16 || x->dtype == EIR_U32 || x->dtype == EIR_U64)
        return eir_kerr(ctx, "\"bincount_cpu\" not implemented for '%s'", tname(x->dtype));
    if (minlength < 0) return eir_kerr(ctx, "minlength should be >= 0");
    if (x->rank != 1) return eir_kerr(ctx, "bincount only supports 1-d non-negative integral inputs.");
    int64_t n = x->sizes[0], mx = -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = eir_load_i64((const char *)x->data + i * x->strides[0] * (int64_t)eir_elsize(x->dtype), x->dtype);
        if (v < 0) return eir_kerr(ctx, "bincount only supports 1-d non-negative integral inputs.");
        if (v > mx) mx = v;
    }
    if (w && (w->rank != 1 || w->sizes[0] != n)) return eir_kerr(ctx, "weights should be 1-d and have the same length as input");
    int64_t len = mx + 1 > minlength ? mx + 1 : minlength;
    if (out->rank != 1 || out->sizes[0] != len)
        return eir_kerr(ctx, "bincount: output has %lld elements, expected %lld", (long long)(out->rank == 1 ? out->sizes[0] : -1), (long long)len);
    size_t oes = eir_elsize(out->dtype);
    for (int64_t i = 0; i < len; i++) eir_store_i64((char *)out->data + i * out->strides[0] * (int64_t)oes, out->dtype, 0);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = eir_load_i64((const char *)x->data + i * x->strides[0] * (int64_t)eir_elsize(x->dtype), x->dtype);
        char *o = (char *)out->data + v * out->strides[0] * (int64_t)oes;
        if (!w) {
            eir_store_i64(o, out->dtype, eir_load_i64(o, out->dtype) + 1);
        } else {
            double wv = eir_load_f64((const char *)w->data + i * w->strides[0] * (int64_t)eir_elsize(w->dtype), w->dtype);
            eir_store_f64(o, out->dtype, in_dtype(eir_load_f64(o, out->dtype) + wv, out->dtype));
        }
    }
    return 0;
}

/* ---- searchsorted / bucketize / isin ------------------------------------- */

/* a value converted to the comparison dtype ct */
typedef struct cval { double f; int64_t i; } cval;
static inline cval to_ct(const char *p, eir_dtype d, eir_dtype ct) {
    cval v = {0, 0};
    if (eir_is_floating(ct)) v.f = in_dtype(eir_load_f64(p, d), ct);
    else {
        unsigned char tmp[8];
        eir_store_i64(tmp, ct, eir_load_i64(p, d));
        v.i = eir_load_i64(tmp, ct);
    }
    return v;
}
static inline bool cv_ge(cval a, cval b, bool isf) { return isf ? a.f >= b.f : a.i >= b.i; }
static inline bool cv_gt(cval a, cval b, bool isf) { return isf ? a.f > b.f : a.i > b.i; }

/* searchsorted over boundaries bd[0..n) (through sorter when given):
 * torch's cus_lower_bound / cus_upper_bound */
static int64_t search_bound(const cval *bd, const int64_t *sorter, int64_t n, cval v, bool right, bool isf) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + ((hi - lo) >> 1);
        cval m = bd[sorter ? sorter[mid] : mid];
        bool go_right = right ? !cv_gt(m, v, isf) : !cv_ge(m, v, isf);
        if (go_right) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* searchsorted(sorted_sequence, self, *, out_int32, right, side?, sorter?);
 * self may be a Scalar (a wrapped number: it promotes as in binary ops) */
static int searchsorted_impl(const eir_tview *bd, const eir_karg *self, bool right, const char *side, const eir_tview *sorter,
                             eir_tview *out, eir_kctx *ctx) {
    if (side) {
        if (strcmp(side, "left") && strcmp(side, "right"))
            return eir_kerr(ctx, "torch.searchsorted(): side can only be 'left' or 'right' but got %s", side);
        if (right && strcmp(side, "right"))
            return eir_kerr(ctx, "torch.searchsorted(): side and right can't be set to opposites, got side of %s while right was True", side);
        right = !strcmp(side, "right");
    }
    const eir_tview *x = self->kind == EIR_KA_TENSOR ? self->t : NULL;
    eir_tview sv;
    double sbuf = 0;
    int64_t sibuf = 0;
    if (!x) {
        /* the scalar as a 0-d tensor of its own kind */
        memset(&sv, 0, sizeof sv);
        if (self->s.kind == EIR_SC_FLOAT) { sbuf = self->s.f; sv.data = &sbuf; sv.dtype = EIR_F64; }
        else { sibuf = self->s.i; sv.data = &sibuf; sv.dtype = self->s.kind == EIR_SC_BOOL ? EIR_I64 : EIR_I64; }
        x = &sv;
    }
    char s1[96], s2[96];
    if (bd->rank == 0) return eir_kerr(ctx, "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
    if (x->rank == 0 && bd->rank != 1)
        return eir_kerr(ctx, "torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension is 1, but we got "
                             "boundaries tensor dim(%d) and input value's dim(0) numel(1)", bd->rank);
    bool leading = bd->rank == x->rank;
    for (int32_t d = 0; leading && d + 1 < bd->rank; d++) leading = bd->sizes[d] == x->sizes[d];
    if (bd->rank != 1 && !leading)
        return eir_kerr(ctx, "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                             "tensor and input value tensor must match, but we got boundaries tensor %s and input value tensor %s",
                        eir_sizes_str(bd, s1, sizeof s1), eir_sizes_str(x, s2, sizeof s2));
    if (sorter) {
        bool same = sorter->rank == bd->rank;
        for (int32_t d = 0; same && d < bd->rank; d++) same = sorter->sizes[d] == bd->sizes[d];
        if (!same)
            return eir_kerr(ctx, "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor %sand got sorter tensor %s",
                            eir_sizes_str(bd, s1, sizeof s1), eir_sizes_str(sorter, s2, sizeof s2));
        if (sorter->dtype != EIR_I64)
            return eir_kerr(ctx, "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype %s", tname(sorter->dtype));
    }
    if (eir_is_complex(bd->dtype) || eir_is_complex(x->dtype))
        return eir_kerr(ctx, "\"searchsorted_out_cpu\" not implemented for '%s'", tname(eir_is_complex(bd->dtype) ? bd->dtype : x->dtype));
    /* the comparison dtype: torch promotes the two */
    eir_karg ka = {0}, kb = *self;
    ka.kind = EIR_KA_TENSOR;
    ka.t = bd;
    const eir_karg *pr[2] = {&ka, &kb};
    eir_dtype ct = eir_result_type(pr, 2);
    bool isf = eir_is_floating(ct);
    int64_t m = bd->sizes[bd->rank - 1], rows = m ? eir_tview_numel(bd) / m : 0;
    int64_t inner = x->rank ? x->sizes[x->rank - 1] : 1;
    cval *row = eir_kalloc((size_t)(m > 0 ? m : 1) * sizeof *row);
    int64_t *srt = sorter ? eir_kalloc((size_t)(m > 0 ? m : 1) * sizeof *srt) : NULL;
    if (!row || (sorter && !srt)) { eir_kfree(row); eir_kfree(srt); return eir_kerr(ctx, "searchsorted: out of memory"); }
    int rc = 0;
    /* boundaries as rows along their last dim; the input's lines along its last dim map onto them */
    int32_t r = bd->rank - 1;
    int64_t nx = eir_tview_numel(x), lines = bd->rank == 1 ? 1 : rows;
    for (int64_t l = 0; l < lines && nx > 0; l++) {
        /* row l of the boundaries (and of the sorter) */
        int64_t idx[EIR_MAX_RANK] = {0}, t = l;
        for (int32_t d = r - 1; d >= 0; d--) { idx[d] = t % bd->sizes[d]; t /= bd->sizes[d]; }
        for (int64_t i = 0; i < m; i++) {
            idx[r] = i;
            row[i] = to_ct(eir_tview_at(bd, idx), bd->dtype, ct);
            if (sorter) {
                int64_t s = eir_load_i64(eir_tview_at(sorter, idx), EIR_I64);
                if (s < 0 || s >= m) { rc = eir_kerr(ctx, "torch.searchsorted(): sorter index out of range"); goto done; }
                srt[i] = s;
            }
        }
        /* the input elements this row serves: all of x (1-d boundaries) or x's line l */
        eir_tview xs = *x, os = *out;
        if (bd->rank > 1) {
            int64_t xo = 0, oo = 0;
            for (int32_t d = 0; d < r; d++) { xo += idx[d] * x->strides[d]; oo += idx[d] * out->strides[d]; }
            xs.data = (char *)x->data + xo * (int64_t)eir_elsize(x->dtype);
            os.data = (char *)out->data + oo * (int64_t)eir_elsize(out->dtype);
            xs.rank = os.rank = 1;
            xs.sizes[0] = os.sizes[0] = inner;
            xs.strides[0] = x->strides[r];
            os.strides[0] = out->strides[r];
        }
        const eir_tview *ops[2] = {&os, &xs};
        eir_iter it;
        eir_iter_init(&it, xs.rank, xs.sizes, 2, ops);
        char *p[2];
        int64_t len;
        while (eir_iter_next(&it, p, &len))
            for (int64_t j = 0; j < len; j++) {
                cval v = to_ct(p[1] + j * it.inner_stride[1], xs.dtype, ct);
                eir_store_i64(p[0] + j * it.inner_stride[0], out->dtype, search_bound(row, srt, m, v, right, isf));
            }
    }
done:
    eir_kfree(row);
    eir_kfree(srt);
    return rc;
}
static int search_common(const eir_karg *a, uint32_t na, eir_tview *out, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "searchsorted: expected sorted_sequence and self");
    bool out_int32 = barg(a, na, 2, false);
    if ((out_int32 && out->dtype != EIR_I32) || (!out_int32 && out->dtype != EIR_I64))
        return eir_kerr(ctx, "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending on "
                             "whether out_int32 flag is True, but we got output tensor's dtype %s and out_int32 flag is %s",
                        tname(out->dtype), out_int32 ? "True" : "False");
    const char *side = na > 4 && a[4].kind == EIR_KA_STRING ? a[4].str : NULL;
    return searchsorted_impl(a[0].t, &a[1], barg(a, na, 3, false), side, targ(a, na, 5), out, ctx);
}
/* searchsorted.Tensor / .Scalar(sorted_sequence, self, *, out_int32, right, side?, sorter?) */
static int k_searchsorted(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) { return search_common(a, na, o, c); }
/* bucketize.Tensor(self, boundaries, *, out_int32, right) / .Scalar(Scalar self, boundaries, ...) */
static int k_bucketize(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[1].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "bucketize: expected self and boundaries");
    if (a[1].t->rank != 1) return eir_kerr(ctx, "boundaries tensor must be 1 dimension, but got dim(%d)", a[1].t->rank);
    eir_karg s[4] = {a[1], a[0]};
    s[2] = na > 2 ? a[2] : (eir_karg){.kind = EIR_KA_BOOL};
    s[3] = na > 3 ? a[3] : (eir_karg){.kind = EIR_KA_BOOL};
    return search_common(s, 4, out, ctx);
}

/* isin(elements, test_elements, *, assume_unique, invert): elements equal
 * to some test element, compared in the promoted dtype (NaN matches
 * nothing). The Tensor_Scalar / Scalar_Tensor forms take the scalar as a
 * wrapped number. */
static int cmp_cval_f(const void *pa, const void *pb) {
    double a = ((const cval *)pa)->f, b = ((const cval *)pb)->f;
    return cmp_nanlast(&a, &b);
}
static int cmp_cval_i(const void *pa, const void *pb) {
    int64_t a = ((const cval *)pa)->i, b = ((const cval *)pb)->i;
    return (a > b) - (a < b);
}
static int isin_impl(const eir_karg *el, const eir_karg *te, bool invert, eir_tview *out, eir_kctx *ctx) {
    const eir_karg *pr[2] = {el, te};
    eir_dtype ct = eir_result_type(pr, 2);
    if (eir_is_complex(ct)) return eir_kerr(ctx, "\"isin_default_cpu\" not implemented for '%s'", tname(ct));
    bool isf = eir_is_floating(ct);
    /* the scalars as 0-d views */
    double sf[2];
    int64_t si[2];
    eir_tview sv[2];
    const eir_karg *args[2] = {el, te};
    const eir_tview *v[2];
    for (int k = 0; k < 2; k++) {
        if (args[k]->kind == EIR_KA_TENSOR) { v[k] = args[k]->t; continue; }
        memset(&sv[k], 0, sizeof sv[k]);
        if (args[k]->s.kind == EIR_SC_FLOAT) { sf[k] = args[k]->s.f; sv[k].data = &sf[k]; sv[k].dtype = EIR_F64; }
        else { si[k] = args[k]->s.i; sv[k].data = &si[k]; sv[k].dtype = EIR_I64; }
        v[k] = &sv[k];
    }
    int64_t m = eir_tview_numel(v[1]);
    cval *tests = eir_kalloc((size_t)(m > 0 ? m : 1) * sizeof *tests);
    if (!tests) return eir_kerr(ctx, "isin: out of memory");
    {
        eir_iter it;
        const eir_tview *ops[1] = {v[1]};
        eir_iter_init(&it, v[1]->rank, v[1]->sizes, 1, ops);
        char *p[1];
        int64_t len, k = 0;
        while (eir_iter_next(&it, p, &len))
            for (int64_t j = 0; j < len; j++) tests[k++] = to_ct(p[0] + j * it.inner_stride[0], v[1]->dtype, ct);
    }
    qsort(tests, (size_t)m, sizeof *tests, isf ? cmp_cval_f : cmp_cval_i);
    eir_tview eb;
    if (!eir_tview_broadcast(v[0], out->rank, out->sizes, &eb)) { eir_kfree(tests); return eir_kerr(ctx, "isin: output shape"); }
    const eir_tview *ops[2] = {out, &eb};
    eir_iter it;
    eir_iter_init(&it, out->rank, out->sizes, 2, ops);
    char *p[2];
    int64_t len;
    while (eir_iter_next(&it, p, &len))
        for (int64_t j = 0; j < len; j++) {
            cval x = to_ct(p[1] + j * it.inner_stride[1], eb.dtype, ct);
            int64_t pos = search_bound(tests, NULL, m, x, false, isf);
            bool found = pos < m && (isf ? tests[pos].f == x.f : tests[pos].i == x.i);
            eir_store_i64(p[0] + j * it.inner_stride[0], out->dtype, found != invert);
        }
    eir_kfree(tests);
    return 0;
}
static int k_isin(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2) return eir_kerr(ctx, "isin: expected elements and test_elements");
    return isin_impl(&a[0], &a[1], barg(a, na, 3, false), out, ctx);
}

/* ---- normalization -------------------------------------------------------- */

/* rms_norm(input, normalized_shape, weight?, eps?): x * rsqrt(mean(x^2) + eps)
 * (* weight) over the trailing dims; float16/bfloat16 compute in float and
 * round once, as torch's CPU kernel does */
static int k_rms_norm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "rms_norm: expected input and normalized_shape");
    const eir_tview *x = a[0].t, *w = targ(a, na, 2);
    const int64_t *ns = a[1].ints;
    uint32_t nn = a[1].kind == EIR_KA_INTS ? a[1].n : 0;
    char s1[96], s2[96], s3[96];
    eir_tview nsv = {0};
    nsv.rank = (int32_t)(nn < EIR_MAX_RANK ? nn : EIR_MAX_RANK);
    for (int32_t d = 0; d < nsv.rank; d++) nsv.sizes[d] = ns[d];
    if (nn == 0)
        return eir_kerr(ctx, "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []");
    if (w) {
        bool same = w->rank == (int32_t)nn;
        for (uint32_t k = 0; same && k < nn; k++) same = w->sizes[k] == ns[k];
        if (!same)
            return eir_kerr(ctx, "Expected weight to be of same shape as normalized_shape, but got weight of shape %s and normalized_shape = %s",
                            eir_sizes_str(w, s1, sizeof s1), eir_sizes_str(&nsv, s2, sizeof s2));
    }
    int32_t axis = x->rank - (int32_t)nn;
    bool fits = axis >= 0;
    for (uint32_t k = 0; fits && k < nn; k++) fits = x->sizes[axis + (int32_t)k] == ns[k];
    if (!fits) {
        /* torch prints "[*, 5]" from the normalized shape */
        char star[100];
        snprintf(star, sizeof star, "[*, %s", eir_sizes_str(&nsv, s3, sizeof s3) + 1);
        return eir_kerr(ctx, "Given normalized_shape=%s, expected input with shape %s, but got input of size%s", eir_sizes_str(&nsv, s1, sizeof s1),
                        star, eir_sizes_str(x, s2, sizeof s2));
    }
    eir_dtype d = x->dtype;
    if (!eir_is_floating(d)) return eir_kerr(ctx, "\"rms_norm\" not implemented for '%s'", tname(d));
    bool dbl = d == EIR_F64;
    double eps = na > 3 && a[3].kind != EIR_KA_NONE ? farg(a, na, 3, 0) : (dbl ? DBL_EPSILON : FLT_EPSILON);
    if (!dbl) eps = (float)eps;
    bool mask[EIR_MAX_RANK] = {false}, wmask[EIR_MAX_RANK];
    for (int32_t k = axis; k < x->rank; k++) mask[k] = true;
    for (int32_t k = 0; k < EIR_MAX_RANK; k++) wmask[k] = true;
    int64_t nr, ny, nw = 0;
    int64_t *xoff = eir_tview_offsets(x, mask, &nr), *yoff = eir_tview_offsets(out, mask, &ny);
    int64_t *woff = w ? eir_tview_offsets(w, wmask, &nw) : NULL;
    int rc = 0;
    if (!xoff || !yoff || (w && !woff)) { rc = eir_kerr(ctx, "rms_norm: out of memory"); goto done; }
    /* the leading positions: x and out with the trailing dims collapsed to one element */
    eir_tview xl = *x, yl = *out;
    for (int32_t k = axis; k < x->rank; k++) xl.sizes[k] = yl.sizes[k] = 1;
    const eir_tview *ops[2] = {&yl, &xl};
    eir_iter it;
    eir_iter_init(&it, x->rank, xl.sizes, 2, ops);
    char *p[2];
    int64_t len;
    size_t xes = eir_elsize(d), yes = eir_elsize(out->dtype), wes = w ? eir_elsize(w->dtype) : 0;
    while (nr > 0 && eir_iter_next(&it, p, &len))
        for (int64_t j = 0; j < len; j++) {
            const char *xb = p[1] + j * it.inner_stride[1];
            char *yb = p[0] + j * it.inner_stride[0];
            double ss = 0;
            for (int64_t i = 0; i < nr; i++) {
                double v = eir_load_f64(xb + xoff[i] * (int64_t)xes, d);
                ss += dbl ? v * v : (double)((float)v * (float)v);
            }
            double rstd;
            if (dbl) rstd = 1.0 / sqrt(ss / (double)nr + eps);
            else rstd = 1.0f / sqrtf((float)((float)ss / (float)nr) + (float)eps);
            for (int64_t i = 0; i < nr; i++) {
                double v = eir_load_f64(xb + xoff[i] * (int64_t)xes, d), y;
                if (dbl) {
                    y = v * rstd;
                    if (w) y *= eir_load_f64((const char *)w->data + woff[i] * (int64_t)wes, w->dtype);
                } else {
                    float yf = (float)v * (float)rstd;
                    if (w) yf *= (float)eir_load_f64((const char *)w->data + woff[i] * (int64_t)wes, w->dtype);
                    y = yf;
                }
                eir_store_f64(yb + yoff[i] * (int64_t)yes, out->dtype, y);
            }
        }
done:
    eir_kfree(xoff);
    eir_kfree(yoff);
    eir_kfree(woff);
    return rc;
}

/* A contiguous scratch tensor of dtype d and the given sizes, from eir_kalloc. */
static bool scratch_like(eir_dtype d, int32_t rank, const int64_t *sizes, eir_tview *s) {
    memset(s, 0, sizeof *s);
    s->dtype = d;
    s->rank = rank;
    int64_t st = 1;
    for (int32_t k = rank - 1; k >= 0; k--) { s->sizes[k] = sizes[k]; s->strides[k] = st; st *= sizes[k]; }
    s->data = eir_kalloc((size_t)(st > 0 ? st : 1) * eir_elsize(d));
    return s->data != NULL;
}
/* t copied into s (same shape, any strides) */
static void copy_view(eir_tview *s, const eir_tview *t) {
    const eir_tview *ops[2] = {s, t};
    eir_iter it;
    eir_iter_init(&it, s->rank, s->sizes, 2, ops);
    char *p[2];
    int64_t len;
    size_t es = eir_elsize(t->dtype);
    while (eir_iter_next(&it, p, &len))
        for (int64_t j = 0; j < len; j++) {
            if (s->dtype == t->dtype) memcpy(p[0] + j * it.inner_stride[0], p[1] + j * it.inner_stride[1], es);
            else eir_store_f64(p[0] + j * it.inner_stride[0], s->dtype, eir_load_f64(p[1] + j * it.inner_stride[1], t->dtype));
        }
}
/* a 1-d tensor of C values repeated B times (instance_norm's repeat_if_defined) */
static bool repeat_vec(const eir_tview *v, int64_t B, eir_tview *s) {
    int64_t C = v->sizes[0], n = B * C;
    if (!scratch_like(v->dtype, 1, &n, s)) return false;
    size_t es = eir_elsize(v->dtype);
    for (int64_t b = 0; b < B; b++)
        for (int64_t c = 0; c < C; c++)
            memcpy((char *)s->data + (b * C + c) * (int64_t)es, (const char *)v->data + c * v->strides[0] * (int64_t)es, es);
    return true;
}

/* instance_norm(input, weight?, bias?, running_mean?, running_var?,
 * use_input_stats, momentum, eps, cudnn_enabled): batch norm of input
 * viewed as [1, N*C, *], per-channel tensors repeated N times, as torch
 * composes it. With use_input_stats and running statistics, those are
 * updated in place as torch does (through an alias: the schema does not say
 * so, the runtime knows): each repeated copy takes batch norm's momentum
 * update, and the copies' mean (summed in order in the dtype) is written
 * back. */
static int k_instance_norm(const eir_karg *a, uint32_t na, eir_tview *out, uint32_t no, eir_kctx *ctx) {
    if (na < 8 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "instance_norm: expected 9 arguments");
    const eir_tview *x = a[0].t, *per[4] = {targ(a, na, 1), targ(a, na, 2), targ(a, na, 3), targ(a, na, 4)};
    bool use_input_stats = barg(a, na, 5, true);
    double momentum = farg(a, na, 6, 0.1), eps = farg(a, na, 7, 1e-5);
    if (!use_input_stats && (!per[2] || !per[3]))
        return eir_kerr(ctx, "Expected running_mean and running_var to be defined when use_input_stats is false");
    if (x->rank < 2) return eir_kerr(ctx, "instance_norm: expected an input with at least 2 dims, got %d", x->rank);
    int64_t B = x->sizes[0], C = x->sizes[1];
    for (int k = 0; k < 4; k++)
        if (per[k] && (per[k]->rank != 1 || per[k]->sizes[0] != C))
            return eir_kerr(ctx, "instance_norm: per-channel tensors must have %lld elements", (long long)C);
    /* x and out as [1, B*C, *rest] (through contiguous copies when their dims 0 and 1 do not merge) */
    eir_tview xs, ys, rep[4], stats[2];
    memset(rep, 0, sizeof rep);
    memset(stats, 0, sizeof stats);
    bool xmerge = x->strides[0] == x->strides[1] * C || B <= 1, ymerge = out->strides[0] == out->strides[1] * C || B <= 1;
    void *xtmp = NULL, *ytmp = NULL;
    int rc = 0;
    if (xmerge) { xs = *x; xs.strides[0] = xs.strides[1] * B * C; }
    else {
        eir_tview full;
        if (!scratch_like(x->dtype, x->rank, x->sizes, &full)) return eir_kerr(ctx, "instance_norm: out of memory");
        copy_view(&full, x);
        xtmp = full.data;
        xs = full;
    }
    xs.sizes[0] = 1;
    xs.sizes[1] = B * C;
    if (ymerge) { ys = *out; ys.strides[0] = ys.strides[1] * B * C; }
    else {
        if (!scratch_like(out->dtype, out->rank, out->sizes, &ys)) { eir_kfree(xtmp); return eir_kerr(ctx, "instance_norm: out of memory"); }
        ytmp = ys.data;
    }
    ys.sizes[0] = 1;
    ys.sizes[1] = B * C;
    for (int k = 0; k < 4; k++)
        if (per[k] && !repeat_vec(per[k], B, &rep[k])) { rc = eir_kerr(ctx, "instance_norm: out of memory"); goto done; }
    int64_t bc = B * C;
    eir_dtype sd = x->dtype == EIR_F64 ? EIR_F64 : EIR_F32;
    for (int k = 0; k < 2; k++)
        if (!scratch_like(sd, 1, &bc, &stats[k])) { rc = eir_kerr(ctx, "instance_norm: out of memory"); goto done; }
    eir_karg args[8];
    memset(args, 0, sizeof args);
    args[0].kind = EIR_KA_TENSOR;
    args[0].t = &xs;
    for (int k = 0; k < 4; k++) {
        args[1 + k].kind = per[k] ? EIR_KA_TENSOR : EIR_KA_NONE;
        args[1 + k].t = per[k] ? &rep[k] : NULL;
    }
    eir_tview outs[3] = {ys, stats[0], stats[1]};
    if (use_input_stats && per[2] && per[3]) {
        /* _native_batch_norm_legit_functional(input, weight, bias, running_mean, running_var, training, momentum, eps)
         * -> (out, save_mean, save_invstd, running_mean', running_var') on the repeated statistics */
        eir_tview upd[2];
        memset(upd, 0, sizeof upd);
        for (int k = 0; k < 2 && !rc; k++)
            if (!scratch_like(rep[2 + k].dtype, 1, &bc, &upd[k])) rc = eir_kerr(ctx, "instance_norm: out of memory");
        eir_karg fa[8] = {args[0], args[1], args[2], args[3], args[4]};
        fa[5].kind = EIR_KA_BOOL; fa[5].i = 1;
        fa[6].kind = EIR_KA_FLOAT; fa[6].f = momentum;
        fa[7].kind = EIR_KA_FLOAT; fa[7].f = eps;
        eir_tview fo[5] = {ys, stats[0], stats[1], upd[0], upd[1]};
        eir_kernel_fn f = eir_kernel_in(eir_kernels_misc, "aten._native_batch_norm_legit_functional.default");
        if (!rc) rc = f ? f(fa, 8, fo, 5, ctx) : eir_kerr(ctx, "instance_norm: no batch-norm kernel");
        for (int k = 0; !rc && k < 2; k++) {
            const eir_tview *r = per[2 + k];
            size_t es = eir_elsize(r->dtype);
            for (int64_t c = 0; c < C; c++) {
                double sum = 0;
                for (int64_t b = 0; b < B; b++) sum = in_dtype(sum + eir_load_f64((char *)upd[k].data + (b * C + c) * (int64_t)es, r->dtype), r->dtype);
                eir_store_f64((char *)r->data + c * r->strides[0] * (int64_t)es, r->dtype, in_dtype(sum / (double)B, r->dtype));
            }
        }
        eir_kfree(upd[0].data);
        eir_kfree(upd[1].data);
    } else if (use_input_stats) {
        /* _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps) */
        eir_karg nb[6] = {args[0], args[1], args[2]};
        nb[3].kind = EIR_KA_BOOL; nb[3].i = 1;
        nb[4].kind = EIR_KA_FLOAT; nb[4].f = momentum;
        nb[5].kind = EIR_KA_FLOAT; nb[5].f = eps;
        eir_kernel_fn f = eir_kernel_in(eir_kernels_misc, "aten._native_batch_norm_legit.no_stats");
        rc = f ? f(nb, 6, outs, 3, ctx) : eir_kerr(ctx, "instance_norm: no batch-norm kernel");
    } else {
        /* _native_batch_norm_legit_no_training(input, weight, bias, running_mean, running_var, momentum, eps) */
        args[5].kind = EIR_KA_FLOAT; args[5].f = momentum;
        args[6].kind = EIR_KA_FLOAT; args[6].f = eps;
        eir_kernel_fn f = eir_kernel_in(eir_kernels_reduce, "aten._native_batch_norm_legit_no_training.default");
        rc = f ? f(args, 7, outs, 3, ctx) : eir_kerr(ctx, "instance_norm: no batch-norm kernel");
    }
    if (!rc && ytmp) {
        eir_tview back = ys;
        back.sizes[0] = B;
        back.sizes[1] = C;
        back.strides[0] = ys.strides[1] * C;
        copy_view(out, &back);
    }
done:
    for (int k = 0; k < 4; k++) eir_kfree(rep[k].data);
    for (int k = 0; k < 2; k++) eir_kfree(stats[k].data);
    eir_kfree(xtmp);
    eir_kfree(ytmp);
    return rc;
}

/* _batch_norm_with_update(input, weight?, bias?, Tensor(a!) running_mean,
 * Tensor(b!) running_var, momentum, eps) -> (out, save_mean, save_invstd,
 * reserve): training batch norm updating the running stats in place;
 * _functional returns the new running stats as outputs 4 and 5 instead;
 * _batch_norm_no_update uses them (evaluation). reserve is empty. */
static int bn_call(const char *table_op, const eir_kernel_entry *table, const eir_karg *a, uint32_t na, bool training,
                   eir_tview *outs, uint32_t nouts, eir_kctx *ctx) {
    if (na < 7 || a[0].kind != EIR_KA_TENSOR) return eir_kerr(ctx, "batch norm: expected 7 arguments");
    eir_karg args[8] = {a[0], a[1], a[2], a[3], a[4]};
    uint32_t n = 7;
    if (training) {
        args[5].kind = EIR_KA_BOOL; args[5].i = 1;
        args[6] = a[5];
        args[7] = a[6];
        n = 8;
    } else {
        args[5] = a[5];
        args[6] = a[6];
    }
    eir_kernel_fn f = eir_kernel_in(table, table_op);
    if (!f) return eir_kerr(ctx, "batch norm: no kernel %s", table_op);
    return f(args, n, outs, nouts, ctx);
}
static int k_bn_with_update(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (no < 3) return eir_kerr(c, "_batch_norm_with_update: expected 4 outputs");
    return bn_call("aten._native_batch_norm_legit.default", eir_kernels_misc, a, na, true, o, 3, c);
}
static int k_bn_with_update_functional(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (no < 6) return eir_kerr(c, "_batch_norm_with_update_functional: expected 6 outputs");
    eir_tview outs[5] = {o[0], o[1], o[2], o[4], o[5]};
    return bn_call("aten._native_batch_norm_legit_functional.default", eir_kernels_misc, a, na, true, outs, 5, c);
}
static int k_bn_no_update(const eir_karg *a, uint32_t na, eir_tview *o, uint32_t no, eir_kctx *c) {
    if (no < 3) return eir_kerr(c, "_batch_norm_no_update: expected 4 outputs");
    if (na < 5 || a[3].kind != EIR_KA_TENSOR || a[4].kind != EIR_KA_TENSOR)
        return eir_kerr(c, "_batch_norm_no_update: running_mean and running_var must be defined");
    return bn_call("aten._native_batch_norm_legit_no_training.default", eir_kernels_reduce, a, na, false, o, 3, c);
}

/* ---- table ---------------------------------------------------------------- */

const eir_kernel_entry eir_kernels_stats[] = {
    {"aten.median.default", k_median},
    {"aten.median.dim", k_median_dim},
    {"aten.nanmedian.default", k_nanmedian},
    {"aten.nanmedian.dim", k_nanmedian_dim},
    {"aten.kthvalue.default", k_kthvalue},
    {"aten.mode.default", k_mode},
    {"aten.quantile.scalar", k_quantile_scalar},
    {"aten.quantile.default", k_quantile},
    {"aten.nanquantile.scalar", k_nanquantile_scalar},
    {"aten.nanquantile.default", k_nanquantile},
    {"aten.cummax.default", k_cummax},
    {"aten.cummin.default", k_cummin},
    {"aten.logcumsumexp.default", k_logcumsumexp},
    {"aten.histc.default", k_histc},
    {"aten.histogram.bin_ct", k_histogram_bin_ct},
    {"aten.histogram.bins_tensor", k_histogram_bins},
    {"aten.histogramdd.default", k_histogramdd},
    {"aten.histogramdd.int_bins", k_histogramdd_int},
    {"aten.histogramdd.TensorList_bins", k_histogramdd_tensors},
    {"aten._histogramdd_bin_edges.default", k_histogramdd_bin_edges},
    {"aten._histogramdd_from_bin_cts.default", k_histogramdd_from_cts},
    {"aten._histogramdd_from_bin_tensors.default", k_histogramdd_from_tensors},
    {"aten.bincount.default", k_bincount},
    {"aten.searchsorted.Tensor", k_searchsorted},
    {"aten.searchsorted.Scalar", k_searchsorted},
    {"aten.bucketize.Tensor", k_bucketize},
    {"aten.bucketize.Scalar", k_bucketize},
    {"aten.isin.Tensor_Tensor", k_isin},
    {"aten.isin.Tensor_Scalar", k_isin},
    {"aten.isin.Scalar_Tensor", k_isin},
    {"aten.rms_norm.default", k_rms_norm},
    {"aten.instance_norm.default", k_instance_norm},
    {"aten._batch_norm_with_update.default", k_bn_with_update},
    {"aten._batch_norm_with_update_functional.default", k_bn_with_update_functional},
    {"aten._batch_norm_no_update.default", k_bn_no_update},
    {NULL, NULL},
};
