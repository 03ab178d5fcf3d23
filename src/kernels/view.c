/* view.c — the geometry of view ops, as torch's meta functions compute it
 * (aten/src/ATen/native/TensorShape.cpp, TensorUtils.cpp), with torch's
 * messages for the arguments it refuses; and torch's run-time choice between
 * a view and a copy for reshape, flatten, ravel, contiguous, to and type_as.
 * See view.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../base/base.h"
#include "kutil.h"
#include "view.h"

typedef struct geom {
    eir_dtype dtype;
    int32_t rank;
    int64_t sizes[EIR_MAX_RANK], strides[EIR_MAX_RANK];
    int64_t off;
} geom;

typedef struct vctx {
    const char *op;
    char *err;
    size_t errlen;
    eir_tview *outs;
    int64_t *offs;
    uint32_t nout, n;      /* outputs the program has; outputs produced */
} vctx;

static eir_view_result fail(vctx *c, const char *fmt, ...) EIR_PRINTF(2, 3);
static eir_view_result fail(vctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->errlen, fmt, ap);
    va_end(ap);
    return EIR_VIEW_ERROR;
}

static void put_list(char *buf, size_t n, const int64_t *v, int32_t k) {
    size_t at = 0;
    if (n < 3) { if (n) *buf = 0; return; }
    buf[at++] = '[';
    for (int32_t i = 0; i < k && at + 24 < n; i++) at += (size_t)snprintf(buf + at, n - at, "%s%lld", i ? ", " : "", (long long)v[i]);
    snprintf(buf + at, n - at, "]");
}

static eir_view_result emit(vctx *c, const geom *g) {
    if (c->n >= c->nout)
        return fail(c, "%s returns more tensors than the program has outputs for it (%u)", c->op, c->nout);
    eir_tview *o = &c->outs[c->n];
    memset(o, 0, sizeof *o);
    o->dtype = g->dtype;
    o->rank = g->rank;
    memcpy(o->sizes, g->sizes, sizeof g->sizes);
    memcpy(o->strides, g->strides, sizeof g->strides);
    c->offs[c->n++] = g->off;
    return EIR_VIEW_ALIAS;
}

static eir_view_result copy_of(vctx *c, const geom *g) {
    eir_view_result r = emit(c, g);
    return r == EIR_VIEW_ALIAS ? EIR_VIEW_COPY : r;
}

/* maybe_wrap_dim: a 0-d tensor takes dims -1 and 0 */
static bool wrap(vctx *c, int64_t dim, int32_t rank, int32_t *out) {
    int64_t r = rank > 0 ? rank : 1;
    if (dim < -r || dim >= r) {
        fail(c, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-r,
             (long long)(r - 1), (long long)dim);
        return false;
    }
    *out = (int32_t)(dim < 0 ? dim + r : dim);
    return true;
}

static int64_t numel_of(const int64_t *sizes, int32_t rank) {
    int64_t n = 1;
    for (int32_t d = 0; d < rank; d++) n *= sizes[d];
    return n;
}

static void contiguous_strides(geom *g) {
    int64_t st = 1;
    for (int32_t d = g->rank - 1; d >= 0; d--) {
        g->strides[d] = st;
        st *= g->sizes[d] > 1 ? g->sizes[d] : 1;
    }
}

bool eir_view_strides(const int64_t *sizes, const int64_t *strides, int32_t rank, const int64_t *newsizes, int32_t newrank,
                      int64_t *newstrides) {
    if (rank == 0) {
        for (int32_t d = 0; d < newrank; d++) newstrides[d] = 1;
        return true;
    }
    int64_t numel = numel_of(sizes, rank);
    if (numel == 0) {
        bool same = rank == newrank;
        for (int32_t d = 0; same && d < rank; d++) same = sizes[d] == newsizes[d];
        if (same) {
            memcpy(newstrides, strides, (size_t)rank * sizeof *strides);
            return true;
        }
        for (int32_t d = newrank - 1; d >= 0; d--)
            newstrides[d] = d == newrank - 1 ? 1 : (newsizes[d + 1] > 1 ? newsizes[d + 1] : 1) * newstrides[d + 1];
        return true;
    }
    int32_t view_d = newrank - 1;
    int64_t chunk_base = strides[rank - 1], tensor_numel = 1, view_numel = 1;
    for (int32_t td = rank - 1; td >= 0; td--) {
        tensor_numel *= sizes[td];
        if (td == 0 || (sizes[td - 1] != 1 && strides[td - 1] != tensor_numel * chunk_base)) {
            while (view_d >= 0 && (view_numel < tensor_numel || newsizes[view_d] == 1)) {
                newstrides[view_d] = view_numel * chunk_base;
                view_numel *= newsizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (td > 0) {
                chunk_base = strides[td - 1];
                tensor_numel = view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

bool eir_view_is_contiguous(const eir_tview *t, int64_t memory_format) {
    static const int32_t cl2[] = {1, 3, 2, 0}, cl3[] = {1, 4, 3, 2, 0};
    int32_t order[EIR_MAX_RANK], n = 0;
    if (memory_format == EIR_MF_CHANNELS_LAST || memory_format == EIR_MF_CHANNELS_LAST_3D) {
        bool two = memory_format == EIR_MF_CHANNELS_LAST;
        if (t->rank != (two ? 4 : 5)) return false;
        for (int32_t i = 0; i < t->rank; i++) order[n++] = two ? cl2[i] : cl3[i];
    } else {
        if (eir_tview_numel(t) == 0) return true;
        for (int32_t d = t->rank - 1; d >= 0; d--) order[n++] = d;
    }
    int64_t expected = 1;
    for (int32_t i = 0; i < n; i++) {
        int32_t d = order[i];
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return true;
}

/* infer_size: a -1 takes what the others leave */
static bool infer_shape(vctx *c, const int64_t *shape, uint32_t n, int64_t numel, geom *out) {
    char buf[256];
    if (n > EIR_MAX_RANK) { fail(c, "%s: %u dimensions; eir runs tensors up to rank %d", c->op, n, EIR_MAX_RANK); return false; }
    int64_t newsize = 1;
    int32_t infer = -1;
    out->rank = (int32_t)n;
    for (uint32_t d = 0; d < n; d++) {
        out->sizes[d] = shape[d];
        if (shape[d] == -1) {
            if (infer >= 0) { fail(c, "only one dimension can be inferred"); return false; }
            infer = (int32_t)d;
        } else if (shape[d] >= 0) {
            if (shape[d] && newsize > INT64_MAX / shape[d]) newsize = INT64_MAX;
            else newsize *= shape[d];
        } else {
            fail(c, "invalid shape dimension %lld", (long long)shape[d]);
            return false;
        }
    }
    put_list(buf, sizeof buf, shape, (int32_t)n);
    if (numel == newsize || (infer >= 0 && newsize > 0 && numel % newsize == 0)) {
        if (infer >= 0) {
            if (newsize == 0) {
                fail(c, "cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be "
                     "any value and is ambiguous", buf);
                return false;
            }
            out->sizes[infer] = numel / newsize;
        }
        return true;
    }
    fail(c, "shape '%s' is invalid for input of size %lld", buf, (long long)numel);
    return false;
}

static geom geom_of(const eir_tview *t, int64_t off) {
    geom g;
    memset(&g, 0, sizeof g);
    g.dtype = t->dtype;
    g.rank = t->rank;
    memcpy(g.sizes, t->sizes, sizeof g.sizes);
    memcpy(g.strides, t->strides, sizeof g.strides);
    g.off = off;
    return g;
}

static bool geom_contiguous(const geom *g, int64_t mf) {
    eir_tview t = {NULL, g->dtype, g->rank, {0}, {0}};
    memcpy(t.sizes, g->sizes, sizeof t.sizes);
    memcpy(t.strides, g->strides, sizeof t.strides);
    return eir_view_is_contiguous(&t, mf);
}

/* view (when `copy_ok`, reshape: a copy where no view exists) */
static eir_view_result reshape_to(vctx *c, const geom *x, const int64_t *shape, uint32_t n, bool copy_ok) {
    geom r = *x;
    if (!infer_shape(c, shape, n, numel_of(x->sizes, x->rank), &r)) return EIR_VIEW_ERROR;
    if (eir_view_strides(x->sizes, x->strides, x->rank, r.sizes, r.rank, r.strides)) return emit(c, &r);
    if (!copy_ok)
        return fail(c, "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
                    "two contiguous subspaces). Use .reshape(...) instead.");
    contiguous_strides(&r);
    r.off = 0;
    return copy_of(c, &r);
}

static void drop_dim(geom *g, int32_t d) {
    for (int32_t q = d; q + 1 < g->rank; q++) {
        g->sizes[q] = g->sizes[q + 1];
        g->strides[q] = g->strides[q + 1];
    }
    g->rank--;
}

static eir_view_result do_select(vctx *c, const geom *x, int64_t dim, int64_t index, geom *out) {
    int32_t d;
    if (x->rank == 0) return fail(c, "select() cannot be applied to a 0-dim tensor.");
    if (!wrap(c, dim, x->rank, &d)) return EIR_VIEW_ERROR;
    int64_t size = x->sizes[d];
    if (index < -size || index >= size) {
        char buf[256];
        put_list(buf, sizeof buf, x->sizes, x->rank);
        return fail(c, "select(): index %lld out of range for tensor of size %s at dimension %lld", (long long)index, buf,
                    (long long)dim);
    }
    if (index < 0) index += size;
    *out = *x;
    out->off += index * x->strides[d];
    drop_dim(out, d);
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_slice(vctx *c, const geom *x, int32_t d, bool has_start, int64_t start, bool has_end, int64_t end,
                                int64_t step, geom *out) {
    if (step <= 0) return fail(c, "slice step must be positive");
    int64_t size = x->sizes[d];
    if (!has_start) start = 0;
    if (!has_end) end = INT64_MAX;
    if (start < 0) start = start < INT64_MIN + size ? INT64_MIN : start + size;
    if (end < 0) end = end < INT64_MIN + size ? INT64_MIN : end + size;
    if (start < 0) start = 0;
    else if (start >= size) start = size;
    if (end < start) end = start;
    else if (end >= size) end = size;
    *out = *x;
    out->off += start * x->strides[d];
    out->sizes[d] = (end - start + step - 1) / step;
    out->strides[d] = x->strides[d] * step;
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_narrow(vctx *c, const geom *x, int64_t dim, int64_t start, int64_t length, geom *out) {
    int32_t d;
    if (x->rank == 0) return fail(c, "narrow() cannot be applied to a 0-dim tensor.");
    if (length < 0) return fail(c, "narrow(): length must be non-negative.");
    if (!wrap(c, dim, x->rank, &d)) return EIR_VIEW_ERROR;
    int64_t cur = x->sizes[d];
    if (start < -cur || start > cur)
        return fail(c, "start out of range (expected to be in range of [%lld, %lld], but got %lld)", (long long)-cur,
                    (long long)cur, (long long)start);
    if (start < 0) start += cur;
    if (start > cur - length)
        return fail(c, "start (%lld) + length (%lld) exceeds dimension size (%lld).", (long long)start, (long long)length,
                    (long long)cur);
    return do_slice(c, x, d, true, start, true, start + length, 1, out);
}

static eir_view_result do_transpose(vctx *c, const geom *x, int64_t d0, int64_t d1, geom *out) {
    int32_t a, b;
    if (!wrap(c, d0, x->rank, &a) || !wrap(c, d1, x->rank, &b)) return EIR_VIEW_ERROR;
    *out = *x;
    if (x->rank == 0) return EIR_VIEW_ALIAS;
    out->sizes[a] = x->sizes[b];
    out->sizes[b] = x->sizes[a];
    out->strides[a] = x->strides[b];
    out->strides[b] = x->strides[a];
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_permute(vctx *c, const geom *x, const int64_t *dims, uint32_t n, geom *out) {
    if ((int32_t)n != x->rank)
        return fail(c, "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
                    "ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %u", x->rank, n);
    bool seen[EIR_MAX_RANK] = {0};
    *out = *x;
    for (uint32_t i = 0; i < n; i++) {
        int32_t d;
        if (!wrap(c, dims[i], x->rank, &d)) return EIR_VIEW_ERROR;
        if (seen[d]) return fail(c, "permute(): duplicate dims are not allowed.");
        seen[d] = true;
        out->sizes[i] = x->sizes[d];
        out->strides[i] = x->strides[d];
    }
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_movedim(vctx *c, const geom *x, const int64_t *src, const int64_t *dst, uint32_t n, geom *out) {
    if (n > EIR_MAX_RANK || (int32_t)n > (x->rank ? x->rank : 1))
        return fail(c, "movedim: Invalid source or destination dims: source (%u dims) and destination must not exceed the rank", n);
    int32_t s[EIR_MAX_RANK], t[EIR_MAX_RANK], order[EIR_MAX_RANK];
    bool used_s[EIR_MAX_RANK] = {0}, used_t[EIR_MAX_RANK] = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (!wrap(c, src[i], x->rank, &s[i]) || !wrap(c, dst[i], x->rank, &t[i])) return EIR_VIEW_ERROR;
        if (used_s[s[i]]) return fail(c, "movedim: repeated dim in `source` (%lld)", (long long)src[i]);
        if (used_t[t[i]]) return fail(c, "movedim: repeated dim in `destination` (%lld)", (long long)dst[i]);
        used_s[s[i]] = used_t[t[i]] = true;
    }
    *out = *x;
    if (x->rank == 0) return EIR_VIEW_ALIAS;
    for (int32_t d = 0; d < x->rank; d++) order[d] = -1;
    for (uint32_t i = 0; i < n; i++) order[t[i]] = s[i];
    int32_t next = 0;
    for (int32_t d = 0; d < x->rank; d++) {
        if (order[d] >= 0) continue;
        while (used_s[next]) next++;
        order[d] = next++;
    }
    for (int32_t d = 0; d < x->rank; d++) {
        out->sizes[d] = x->sizes[order[d]];
        out->strides[d] = x->strides[order[d]];
    }
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_expand(vctx *c, const geom *x, const int64_t *size, uint32_t n, geom *out) {
    char a[256], b[256];
    put_list(a, sizeof a, size, (int32_t)n);
    put_list(b, sizeof b, x->sizes, x->rank);
    if ((int32_t)n < x->rank)
        return fail(c, "expand(torch.FloatTensor{%s}, size=%s): the number of sizes provided (%u) must be greater or equal to "
                    "the number of dimensions in the tensor (%d)", b + 1, a, n, x->rank);
    if (n > EIR_MAX_RANK) return fail(c, "expand: %u dimensions; eir runs tensors up to rank %d", n, EIR_MAX_RANK);
    *out = *x;
    out->rank = (int32_t)n;
    for (int32_t i = (int32_t)n - 1; i >= 0; i--) {
        int32_t offset = (int32_t)n - 1 - i, dim = x->rank - 1 - offset;
        int64_t sz = dim >= 0 ? x->sizes[dim] : 1;
        int64_t st = dim >= 0 ? x->strides[dim] : (i + 1 < (int32_t)n ? out->sizes[i + 1] * out->strides[i + 1] : 1);
        int64_t target = size[i];
        if (target == -1) {
            if (dim < 0)
                return fail(c, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension %d", i);
            target = sz;
        }
        if (target < 0) return fail(c, "The expanded size of the tensor (%lld) isn't allowed", (long long)target);
        if (sz != target) {
            if (sz != 1)
                return fail(c, "The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton "
                            "dimension %d.  Target sizes: %s.  Tensor sizes: %s", (long long)target, (long long)sz, i, a, b);
            sz = target;
            st = 0;
        }
        out->sizes[i] = sz;
        out->strides[i] = st;
    }
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_diagonal(vctx *c, const geom *x, int64_t offset, int64_t dim1, int64_t dim2, geom *out) {
    int32_t a, b;
    if (!wrap(c, dim1, x->rank, &a) || !wrap(c, dim2, x->rank, &b)) return EIR_VIEW_ERROR;
    if (a == b) return fail(c, "diagonal dimensions cannot be identical %lld, %lld", (long long)dim1, (long long)dim2);
    if (x->rank < 2) return fail(c, "diagonal expects a tensor with at least 2 dimensions");
    int64_t n;
    *out = *x;
    if (offset >= 0) {
        n = x->sizes[a] < x->sizes[b] - offset ? x->sizes[a] : x->sizes[b] - offset;
        if (n < 0) n = 0;
        else out->off += offset * x->strides[b];
    } else {
        n = x->sizes[a] + offset < x->sizes[b] ? x->sizes[a] + offset : x->sizes[b];
        if (n < 0) n = 0;
        else out->off -= offset * x->strides[a];
    }
    int64_t st = x->strides[a] + x->strides[b];
    drop_dim(out, a > b ? a : b);
    drop_dim(out, a > b ? b : a);
    out->sizes[out->rank] = n;
    out->strides[out->rank] = st;
    out->rank++;
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_unfold(vctx *c, const geom *x, int64_t dim, int64_t size, int64_t step, geom *out) {
    int32_t d;
    if (!wrap(c, dim, x->rank, &d)) return EIR_VIEW_ERROR;
    int64_t max = x->rank ? x->sizes[d] : 1, st = x->rank ? x->strides[d] : 1;
    if (size > max) return fail(c, "maximum size for tensor at dimension %d is %lld but size is %lld", d, (long long)max, (long long)size);
    if (size < 0) return fail(c, "size is %lld but must be >= 0", (long long)size);
    if (step <= 0) return fail(c, "step is %lld but must be > 0", (long long)step);
    if (x->rank + 1 > EIR_MAX_RANK) return fail(c, "unfold: the result would have more than %d dims", EIR_MAX_RANK);
    *out = *x;
    if (x->rank) {
        out->sizes[d] = (max - size) / step + 1;
        out->strides[d] = st * step;
    }
    out->sizes[out->rank] = size;
    out->strides[out->rank] = st;
    out->rank++;
    return EIR_VIEW_ALIAS;
}

static bool split_dim(vctx *c, const geom *x, int64_t dim, const char *what, int32_t *d) {
    if (x->rank == 0) { fail(c, "%s expects at least a 1-dimensional tensor", what); return false; }
    return wrap(c, dim, x->rank, d);
}

static eir_view_result emit_slice(vctx *c, const geom *x, int32_t d, int64_t start, int64_t end) {
    geom g;
    if (do_slice(c, x, d, true, start, true, end, 1, &g) < 0) return EIR_VIEW_ERROR;
    return emit(c, &g);
}

static eir_view_result do_split_sizes(vctx *c, const geom *x, const int64_t *sizes, uint32_t n, int32_t d) {
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (sizes[i] < 0)
            return fail(c, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%lld",
                        (long long)sizes[i]);
        sum += sizes[i];
    }
    if (sum != x->sizes[d]) {
        char buf[256];
        put_list(buf, sizeof buf, sizes, (int32_t)n);
        return fail(c, "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %d), but "
                    "got split_sizes=%s", (long long)x->sizes[d], d, buf);
    }
    int64_t start = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (emit_slice(c, x, d, start, start + sizes[i]) < 0) return EIR_VIEW_ERROR;
        start += sizes[i];
    }
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_split(vctx *c, const geom *x, int64_t split_size, int32_t d) {
    int64_t dim_size = x->sizes[d];
    if (split_size < 0) return fail(c, "split expects split_size be non-negative, but got split_size=%lld", (long long)split_size);
    if (split_size == 0 && dim_size != 0)
        return fail(c, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld", (long long)dim_size);
    int64_t num = 1;
    if (split_size) num = (dim_size + split_size - 1) / split_size > 1 ? (dim_size + split_size - 1) / split_size : 1;
    if (num > (int64_t)c->nout) return fail(c, "%s returns %lld tensors; the program has %u", c->op, (long long)num, c->nout);
    for (int64_t i = 0; i < num; i++) {
        int64_t len = i == num - 1 ? split_size - (split_size * num - dim_size) : split_size;
        if (emit_slice(c, x, d, i * split_size, i * split_size + len) < 0) return EIR_VIEW_ERROR;
    }
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_tensor_split_sections(vctx *c, const geom *x, int64_t sections, int32_t d) {
    if (sections <= 0) return fail(c, "number of sections must be larger than 0, got %lld", (long long)sections);
    if (sections > (int64_t)c->nout) return fail(c, "%s returns %lld tensors; the program has %u", c->op, (long long)sections, c->nout);
    int64_t dim_size = x->sizes[d], min_split = dim_size / sections, large = dim_size % sections, start = 0;
    for (int64_t i = 0; i < sections; i++) {
        int64_t len = i < large ? min_split + 1 : min_split;
        if (emit_slice(c, x, d, start, start + len) < 0) return EIR_VIEW_ERROR;
        start += len;
    }
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_tensor_split_indices(vctx *c, const geom *x, const int64_t *idx, uint32_t n, int32_t d) {
    int64_t start = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (emit_slice(c, x, d, start, idx[i]) < 0) return EIR_VIEW_ERROR;
        start = idx[i];
    }
    return emit_slice(c, x, d, start, x->sizes[d]);
}

/* hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-d), 0, 2 */
static eir_view_result do_hvdsplit(vctx *c, const geom *x, char which, const eir_karg *arg) {
    const char *name = which == 'h' ? "torch.hsplit" : which == 'v' ? "torch.vsplit" : "torch.dsplit";
    int32_t need = which == 'h' ? 1 : which == 'v' ? 2 : 3;
    if (x->rank < need)
        return fail(c, "%s requires a tensor with at least %d dimension%s, but got a tensor with %d dimensions!", name, need,
                    need == 1 ? "" : "s", x->rank);
    int32_t d = which == 'h' ? (x->rank == 1 ? 0 : 1) : which == 'v' ? 0 : 2;
    if (arg->kind == EIR_KA_INTS) return do_tensor_split_indices(c, x, arg->ints, arg->n, d);
    int64_t sections = arg->i;
    if (sections == 0 || x->sizes[d] % sections)
        return fail(c, "%s attempted to split along dimension %d, but the size of the dimension %lld is not divisible by the "
                    "split_size %lld!", name, d, (long long)x->sizes[d], (long long)sections);
    return do_tensor_split_sections(c, x, sections, d);
}

static eir_dtype real_of(eir_dtype d) { return d == EIR_C64 ? EIR_F32 : d == EIR_C128 ? EIR_F64 : EIR_F16; }

static eir_view_result do_view_as_real(vctx *c, const geom *x, geom *out) {
    if (!eir_is_complex(x->dtype)) return fail(c, "view_as_real is only supported for complex tensors");
    if (x->rank + 1 > EIR_MAX_RANK) return fail(c, "view_as_real: the result would have more than %d dims", EIR_MAX_RANK);
    *out = *x;
    out->dtype = real_of(x->dtype);
    for (int32_t d = 0; d < x->rank; d++) out->strides[d] = x->strides[d] * 2;
    out->sizes[x->rank] = 2;
    out->strides[x->rank] = 1;
    out->rank++;
    out->off = x->off * 2;
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_view_as_complex(vctx *c, const geom *x, geom *out) {
    if (x->dtype != EIR_F32 && x->dtype != EIR_F64 && x->dtype != EIR_F16)
        return fail(c, "view_as_complex is only supported for half, float and double tensors");
    if (x->rank == 0 || x->sizes[x->rank - 1] != 2) return fail(c, "Tensor must have a last dimension of size 2");
    if (x->strides[x->rank - 1] != 1) return fail(c, "Tensor must have a last dimension with stride 1");
    for (int32_t d = 0; d + 1 < x->rank; d++)
        if (x->strides[d] % 2) return fail(c, "Tensor must have a stride divisible by 2 for all but last dimension");
    if (x->off % 2) return fail(c, "Tensor must have a storage_offset divisible by 2");
    *out = *x;
    out->dtype = x->dtype == EIR_F32 ? EIR_C64 : x->dtype == EIR_F64 ? EIR_C128 : EIR_C32;
    out->rank--;
    for (int32_t d = 0; d < out->rank; d++) out->strides[d] = x->strides[d] / 2;
    out->off = x->off / 2;
    return EIR_VIEW_ALIAS;
}

static eir_view_result do_view_dtype(vctx *c, const geom *x, eir_dtype to, geom *out) {
    size_t from_sz = eir_dtype_size(x->dtype), to_sz = eir_dtype_size(to);
    *out = *x;
    out->dtype = to;
    if (from_sz == to_sz) return EIR_VIEW_ALIAS;
    if (x->rank == 0)
        return fail(c, "self.dim() cannot be 0 to view %s as %s (different element sizes)", eir_dtype_name(x->dtype),
                    eir_dtype_name(to));
    if (x->strides[x->rank - 1] != 1)
        return fail(c, "self.stride(-1) must be 1 to view %s as %s (different element sizes), but got %lld",
                    eir_dtype_name(x->dtype), eir_dtype_name(to), (long long)x->strides[x->rank - 1]);
    if (from_sz > to_sz) {
        int64_t r = (int64_t)(from_sz / to_sz);
        for (int32_t d = 0; d + 1 < x->rank; d++) out->strides[d] = x->strides[d] * r;
        out->sizes[x->rank - 1] = x->sizes[x->rank - 1] * r;
        out->off = x->off * r;
        return EIR_VIEW_ALIAS;
    }
    int64_t r = (int64_t)(to_sz / from_sz);
    if (x->sizes[x->rank - 1] % r)
        return fail(c, "self.size(-1) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                    (long long)r, eir_dtype_name(x->dtype), eir_dtype_name(to), (long long)x->sizes[x->rank - 1]);
    if (x->off % r)
        return fail(c, "self.storage_offset() must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                    (long long)r, eir_dtype_name(x->dtype), eir_dtype_name(to), (long long)x->off);
    for (int32_t d = 0; d + 1 < x->rank; d++) {
        if (x->strides[d] % r)
            return fail(c, "self.stride(%d) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                        d, (long long)r, eir_dtype_name(x->dtype), eir_dtype_name(to), (long long)x->strides[d]);
        out->strides[d] = x->strides[d] / r;
    }
    out->sizes[x->rank - 1] = x->sizes[x->rank - 1] / r;
    out->off = x->off / r;
    return EIR_VIEW_ALIAS;
}

/* `to` returns self when nothing changes (to_will_alias in TensorConversions.cpp) */
static eir_view_result do_to(vctx *c, const geom *x, eir_dtype to, bool copy, int64_t mf) {
    if (to == x->dtype && !copy && (mf == EIR_MF_PRESERVE || mf == EIR_MF_UNKNOWN || geom_contiguous(x, mf))) return emit(c, x);
    geom r = *x;
    r.dtype = to;
    return copy_of(c, &r);
}

static const char *const view_ops[] = {
    "aten.view.default", "aten.view.dtype", "aten._unsafe_view.default", "aten._reshape_alias.default",
    "aten.view_as.default", "aten.alias.default", "aten.detach.default", "aten.detach_.default", "aten.lift_fresh.default",
    "aten.positive.default", "aten.resolve_conj.default", "aten.resolve_neg.default", "aten.cpu.default",
    "aten.expand.default", "aten.expand_as.default", "aten.broadcast_to.default", "aten.permute.default",
    "aten.transpose.int", "aten.swapaxes.default", "aten.swapdims.default", "aten.t.default", "aten.numpy_T.default",
    "aten.mT.default", "aten.movedim.int", "aten.movedim.intlist", "aten.moveaxis.int", "aten.moveaxis.intlist",
    "aten.select.int", "aten.slice.Tensor", "aten.narrow.default", "aten.narrow.Tensor", "aten.squeeze.default",
    "aten.squeeze.dim", "aten.squeeze.dims", "aten.unsqueeze.default", "aten.diagonal.default",
    "aten.linalg_diagonal.default", "aten.unfold.default", "aten.as_strided.default", "aten.split.Tensor",
    "aten.split.sizes", "aten.split.default", "aten.split_with_sizes.default", "aten.chunk.default", "aten.unbind.int",
    "aten.tensor_split.sections", "aten.tensor_split.indices", "aten.tensor_split.tensor_indices_or_sections",
    "aten.hsplit.int", "aten.hsplit.array", "aten.vsplit.int",
    "aten.vsplit.array", "aten.dsplit.int", "aten.dsplit.array", "aten.view_as_real.default",
    "aten.view_as_complex.default", "aten.real.default", "aten.imag.default", "aten.unflatten.int", "aten.resize_.default",
    /* real tensors only (the runtime runs complex ones through conjugating kernels) */
    "aten._conj.default", "aten.conj.default", "aten.mH.default", "aten.adjoint.default", "aten.H.default",
    "aten.matrix_H.default",
};
static const char *const may_copy_ops[] = {
    "aten.reshape.default", "aten.reshape_as.default", "aten.flatten.using_ints", "aten.ravel.default",
    "aten.contiguous.default", "aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten.to.other",
    "aten.type_as.default",
};

static bool listed(const char *op, const char *const *names, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(op, names[i])) return true;
    return false;
}

bool eir_view_op(const char *op) {
    return listed(op, view_ops, EIR_ARRAY_LEN(view_ops)) || eir_view_may_copy(op);
}

bool eir_view_may_copy(const char *op) { return listed(op, may_copy_ops, EIR_ARRAY_LEN(may_copy_ops)); }

static int64_t opt_int(const eir_karg *a, int64_t def) { return a->kind == EIR_KA_NONE ? def : a->i; }
static bool is(const char *op, const char *name) { return !strcmp(op, name); }

eir_view_result eir_view_compute(const char *op, const eir_karg *args, uint32_t nargs, int64_t src_off, eir_tview *outs,
                                 int64_t *offs, uint32_t nout, char *err, size_t errlen) {
    vctx c = {op, err, errlen, outs, offs, nout, 0};
    if (nargs == 0 || args[0].kind != EIR_KA_TENSOR || !args[0].t) return fail(&c, "%s: its first argument is not a tensor", op);
    const geom x = geom_of(args[0].t, src_off);
    geom g = x;
    eir_view_result r = EIR_VIEW_ALIAS;
#define ARG(i) (&args[(uint32_t)(i) < nargs ? (uint32_t)(i) : 0])
#define NEED(n) do { if (nargs < (uint32_t)(n)) return fail(&c, "%s: expected %d arguments", op, (n)); } while (0)
    if (is(op, "aten.view.default") || is(op, "aten._unsafe_view.default")) {
        NEED(2);
        r = reshape_to(&c, &x, ARG(1)->ints, ARG(1)->n, false);
        goto counted;
    }
    if (is(op, "aten.view_as.default")) {
        NEED(2);
        r = reshape_to(&c, &x, ARG(1)->t->sizes, (uint32_t)ARG(1)->t->rank, false);
        goto counted;
    }
    if (is(op, "aten.reshape.default")) {
        NEED(2);
        r = reshape_to(&c, &x, ARG(1)->ints, ARG(1)->n, true);
        goto counted;
    }
    if (is(op, "aten.reshape_as.default")) {
        NEED(2);
        r = reshape_to(&c, &x, ARG(1)->t->sizes, (uint32_t)ARG(1)->t->rank, true);
        goto counted;
    }
    if (is(op, "aten.flatten.using_ints")) {
        NEED(3);
        if (x.rank == 0) {
            int64_t one = 1;
            r = reshape_to(&c, &x, &one, 1, true);
            goto counted;
        }
        int32_t s, e;
        if (!wrap(&c, ARG(1)->i, x.rank, &s) || !wrap(&c, ARG(2)->i, x.rank, &e)) return EIR_VIEW_ERROR;
        if (s > e) return fail(&c, "flatten() has invalid args: start_dim cannot come after end_dim");
        if (s == e) { r = emit(&c, &x); goto counted; }
        int64_t shape[EIR_MAX_RANK];
        uint32_t n = 0;
        for (int32_t d = 0; d < s; d++) shape[n++] = x.sizes[d];
        shape[n] = 1;
        for (int32_t d = s; d <= e; d++) shape[n] *= x.sizes[d];
        n++;
        for (int32_t d = e + 1; d < x.rank; d++) shape[n++] = x.sizes[d];
        r = reshape_to(&c, &x, shape, n, true);
        goto counted;
    }
    if (is(op, "aten.ravel.default")) {
        g.rank = 1;
        g.sizes[0] = numel_of(x.sizes, x.rank);
        g.strides[0] = 1;
        if (geom_contiguous(&x, EIR_MF_CONTIGUOUS)) { r = emit(&c, &g); goto counted; }
        g.off = 0;
        r = copy_of(&c, &g);
        goto counted;
    }
    if (is(op, "aten.unflatten.int")) {
        NEED(3);
        int32_t d;
        if (!wrap(&c, ARG(1)->i, x.rank, &d)) return EIR_VIEW_ERROR;
        if (ARG(2)->n == 0) return fail(&c, "unflatten: sizes must be non-empty");
        geom part;
        if (!infer_shape(&c, ARG(2)->ints, ARG(2)->n, x.rank ? x.sizes[d] : 1, &part)) return EIR_VIEW_ERROR;
        int64_t shape[EIR_MAX_RANK];
        uint32_t n = 0;
        if (x.rank - 1 + part.rank > EIR_MAX_RANK) return fail(&c, "unflatten: the result would have more than %d dims", EIR_MAX_RANK);
        for (int32_t q = 0; q < d; q++) shape[n++] = x.sizes[q];
        for (int32_t q = 0; q < part.rank; q++) shape[n++] = part.sizes[q];
        for (int32_t q = d + 1; q < x.rank; q++) shape[n++] = x.sizes[q];
        r = reshape_to(&c, &x, shape, n, false);
        goto counted;
    }
    if (is(op, "aten.contiguous.default")) {
        int64_t mf = nargs > 1 && ARG(1)->kind == EIR_KA_OTHER ? ARG(1)->i : EIR_MF_CONTIGUOUS;
        if (mf == EIR_MF_PRESERVE) return fail(&c, "preserve memory format is unsupported by the contiguous operator");
        r = geom_contiguous(&x, mf) ? emit(&c, &x) : copy_of(&c, &x);
        goto counted;
    }
    if (is(op, "aten.to.dtype") || is(op, "aten.to.dtype_layout") || is(op, "aten.to.device") || is(op, "aten.to.other")) {
        /* (self, dtype, non_blocking, copy, memory_format) and the other overloads' positions */
        int dt = is(op, "aten.to.device") ? 2 : 1, cp = is(op, "aten.to.dtype_layout") ? 6 : is(op, "aten.to.device") ? 4 : 3;
        int mfi = cp + 1;
        NEED(mfi + 1);
        eir_dtype to = x.dtype;
        if (is(op, "aten.to.other")) to = ARG(1)->t->dtype;
        else if (ARG(dt)->kind == EIR_KA_DTYPE) to = (eir_dtype)ARG(dt)->i;
        int64_t mf = ARG(mfi)->kind == EIR_KA_OTHER ? ARG(mfi)->i : EIR_MF_PRESERVE;
        r = do_to(&c, &x, to, ARG(cp)->kind == EIR_KA_BOOL && ARG(cp)->i, mf);
        goto counted;
    }
    if (is(op, "aten.type_as.default")) {
        NEED(2);
        r = do_to(&c, &x, ARG(1)->t->dtype, false, EIR_MF_PRESERVE);
        goto counted;
    }
    /* dropout with train=False or p=0 returns its input itself (_dropout_impl in Dropout.cpp); the
     * runtime binds it as a view only then (eir_view_dropout_identity), a kernel otherwise */
    if (is(op, "aten.dropout.default") || is(op, "aten.feature_dropout.default") || is(op, "aten.alpha_dropout.default") ||
        is(op, "aten.feature_alpha_dropout.default")) {
        r = emit(&c, &x);
        goto counted;
    }
    if (is(op, "aten.alias.default") || is(op, "aten.detach.default") || is(op, "aten.detach_.default") ||
        is(op, "aten.lift_fresh.default") || is(op, "aten.resolve_conj.default") || is(op, "aten.resolve_neg.default") ||
        is(op, "aten.cpu.default") || is(op, "aten._conj.default") || is(op, "aten.conj.default")) {
        r = emit(&c, &x);
        goto counted;
    }
    if (is(op, "aten.positive.default")) {
        if (x.dtype == EIR_BOOL)
            return fail(&c, "The `+` operator, on a bool tensor is not supported.");
        r = emit(&c, &x);
        goto counted;
    }
    if (is(op, "aten.resize_.default")) {
        NEED(2);
        if (ARG(1)->n > EIR_MAX_RANK) return fail(&c, "resize_: %u dimensions; eir runs tensors up to rank %d", ARG(1)->n, EIR_MAX_RANK);
        g.rank = (int32_t)ARG(1)->n;
        for (int32_t d = 0; d < g.rank; d++) {
            if (ARG(1)->ints[d] < 0) return fail(&c, "Trying to create tensor with negative dimension %lld: ", (long long)ARG(1)->ints[d]);
            g.sizes[d] = ARG(1)->ints[d];
        }
        contiguous_strides(&g);
        int64_t mf = nargs > 2 && ARG(2)->kind == EIR_KA_OTHER ? ARG(2)->i : EIR_MF_CONTIGUOUS;
        if ((mf == EIR_MF_CHANNELS_LAST && g.rank == 4) || (mf == EIR_MF_CHANNELS_LAST_3D && g.rank == 5)) {
            /* channels innermost, then the spatial dims from the last, then the batch */
            int64_t st = 1;
            g.strides[1] = st;
            st *= g.sizes[1] > 1 ? g.sizes[1] : 1;
            for (int32_t d = g.rank - 1; d >= 2; d--) {
                g.strides[d] = st;
                st *= g.sizes[d] > 1 ? g.sizes[d] : 1;
            }
            g.strides[0] = st;
        } else if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) {
            return fail(&c, "required rank %d tensor to use %s format", mf == EIR_MF_CHANNELS_LAST ? 4 : 5,
                        mf == EIR_MF_CHANNELS_LAST ? "channels_last" : "channels_last_3d");
        }
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten._reshape_alias.default") || is(op, "aten.as_strided.default")) {
        NEED(3);
        const eir_karg *sz = ARG(1), *st = ARG(2);
        if (sz->n != st->n) return fail(&c, "mismatch in length of strides and shape");
        if (sz->n > EIR_MAX_RANK) return fail(&c, "%s: %u dimensions; eir runs tensors up to rank %d", op, sz->n, EIR_MAX_RANK);
        g.rank = (int32_t)sz->n;
        for (int32_t d = 0; d < g.rank; d++) {
            if (sz->ints[d] < 0) return fail(&c, "as_strided: Negative sizes are not supported, got size %lld", (long long)sz->ints[d]);
            if (st->ints[d] < 0) {
                char buf[256];
                put_list(buf, sizeof buf, st->ints, g.rank);
                return fail(&c, "as_strided: Negative strides are not supported at the moment, got strides: %s", buf);
            }
            g.sizes[d] = sz->ints[d];
            g.strides[d] = st->ints[d];
        }
        if (is(op, "aten.as_strided.default") && nargs > 3) g.off = opt_int(ARG(3), src_off);
        if (g.off < 0) return fail(&c, "Tensor: invalid storage offset %lld", (long long)g.off);
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.expand.default") || is(op, "aten.broadcast_to.default")) {
        NEED(2);
        if ((r = do_expand(&c, &x, ARG(1)->ints, ARG(1)->n, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.expand_as.default")) {
        NEED(2);
        if ((r = do_expand(&c, &x, ARG(1)->t->sizes, (uint32_t)ARG(1)->t->rank, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.permute.default")) {
        NEED(2);
        if ((r = do_permute(&c, &x, ARG(1)->ints, ARG(1)->n, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.transpose.int") || is(op, "aten.swapaxes.default") || is(op, "aten.swapdims.default")) {
        NEED(3);
        if ((r = do_transpose(&c, &x, ARG(1)->i, ARG(2)->i, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.t.default")) {
        if (x.rank > 2) return fail(&c, "t() expects a tensor with <= 2 dimensions, but self is %dD", x.rank);
        if (x.rank == 2 && (r = do_transpose(&c, &x, 0, 1, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.numpy_T.default")) {
        for (int32_t d = 0; d < x.rank; d++) {
            g.sizes[d] = x.sizes[x.rank - 1 - d];
            g.strides[d] = x.strides[x.rank - 1 - d];
        }
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.mT.default") || is(op, "aten.mH.default") || is(op, "aten.adjoint.default") ||
        is(op, "aten.H.default") || is(op, "aten.matrix_H.default")) {
        bool two = is(op, "aten.H.default") || is(op, "aten.matrix_H.default");
        if (two ? (x.rank != 2 && !(x.rank == 0 && is(op, "aten.H.default"))) : x.rank < 2) {
            const char *api = is(op, "aten.mT.default") ? "tensor.mT" : is(op, "aten.mH.default") ? "tensor.mH"
                              : is(op, "aten.adjoint.default") ? "tensor.adjoint()" : is(op, "aten.H.default") ? "tensor.H"
                              : "matrix_H";
            return fail(&c, two ? "%s is only supported on matrices (2-D tensors). Got %d-D tensor."
                                : "%s is only supported on matrices or batches of matrices. Got %d-D tensor.", api, x.rank);
        }
        if (x.rank >= 2 && (r = do_transpose(&c, &x, -2, -1, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.movedim.int") || is(op, "aten.moveaxis.int")) {
        NEED(3);
        int64_t s = ARG(1)->i, t = ARG(2)->i;
        if ((r = do_movedim(&c, &x, &s, &t, 1, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.movedim.intlist") || is(op, "aten.moveaxis.intlist")) {
        NEED(3);
        if (ARG(1)->n != ARG(2)->n)
            return fail(&c, "movedim: Invalid source or destination dims: source (%u dims) should contain the same number of "
                        "dims as destination (%u dims)", ARG(1)->n, ARG(2)->n);
        if ((r = do_movedim(&c, &x, ARG(1)->ints, ARG(2)->ints, ARG(1)->n, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.select.int")) {
        NEED(3);
        if ((r = do_select(&c, &x, ARG(1)->i, ARG(2)->i, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.slice.Tensor")) {
        NEED(5);
        int32_t d;
        if (x.rank == 0) return fail(&c, "slice() cannot be applied to a 0-dim tensor.");
        if (!wrap(&c, ARG(1)->i, x.rank, &d)) return EIR_VIEW_ERROR;
        if ((r = do_slice(&c, &x, d, ARG(2)->kind != EIR_KA_NONE, ARG(2)->i, ARG(3)->kind != EIR_KA_NONE, ARG(3)->i,
                          ARG(4)->i, &g)) < 0)
            return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.narrow.default") || is(op, "aten.narrow.Tensor")) {
        NEED(4);
        int64_t start = ARG(2)->i;
        if (is(op, "aten.narrow.Tensor")) {
            const eir_tview *s = ARG(2)->t;
            if (!s || s->rank != 0 || !eir_is_integral(s->dtype, false)) return fail(&c, "start must be an 0-dim integral Tensor.");
            start = eir_load_i64(s->data, s->dtype);
        }
        if ((r = do_narrow(&c, &x, ARG(1)->i, start, ARG(3)->i, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.squeeze.default") || is(op, "aten.squeeze.dim") || is(op, "aten.squeeze.dims")) {
        bool drop[EIR_MAX_RANK] = {0};
        if (is(op, "aten.squeeze.default")) {
            for (int32_t d = 0; d < x.rank; d++) drop[d] = x.sizes[d] == 1;
        } else {
            NEED(2);
            const int64_t *dims = is(op, "aten.squeeze.dim") ? &ARG(1)->i : ARG(1)->ints;
            uint32_t n = is(op, "aten.squeeze.dim") ? 1 : ARG(1)->n;
            for (uint32_t i = 0; i < n; i++) {
                int32_t d;
                if (!wrap(&c, dims[i], x.rank, &d)) return EIR_VIEW_ERROR;
                if (x.rank) drop[d] = x.sizes[d] == 1;
            }
        }
        g.rank = 0;
        for (int32_t d = 0; d < x.rank; d++)
            if (!drop[d]) { g.sizes[g.rank] = x.sizes[d]; g.strides[g.rank] = x.strides[d]; g.rank++; }
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.unsqueeze.default")) {
        NEED(2);
        int32_t d;
        if (x.rank + 1 > EIR_MAX_RANK) return fail(&c, "unsqueeze: the result would have more than %d dims", EIR_MAX_RANK);
        if (!wrap(&c, ARG(1)->i, x.rank + 1, &d)) return EIR_VIEW_ERROR;
        for (int32_t q = x.rank; q > d; q--) { g.sizes[q] = x.sizes[q - 1]; g.strides[q] = x.strides[q - 1]; }
        g.sizes[d] = 1;
        g.strides[d] = d >= x.rank ? 1 : x.sizes[d] * x.strides[d];
        g.rank = x.rank + 1;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.diagonal.default") || is(op, "aten.linalg_diagonal.default")) {
        NEED(4);
        if ((r = do_diagonal(&c, &x, ARG(1)->i, ARG(2)->i, ARG(3)->i, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.unfold.default")) {
        NEED(4);
        if ((r = do_unfold(&c, &x, ARG(1)->i, ARG(2)->i, ARG(3)->i, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.split.Tensor") || is(op, "aten.split.sizes") || is(op, "aten.split.default") ||
        is(op, "aten.split_with_sizes.default")) {
        NEED(3);
        int32_t d;
        if (!split_dim(&c, &x, ARG(2)->i, "split", &d)) return EIR_VIEW_ERROR;
        r = ARG(1)->kind == EIR_KA_INTS ? do_split_sizes(&c, &x, ARG(1)->ints, ARG(1)->n, d) : do_split(&c, &x, ARG(1)->i, d);
        goto counted;
    }
    if (is(op, "aten.chunk.default")) {
        NEED(3);
        int32_t d;
        int64_t chunks = ARG(1)->i;
        if (chunks <= 0) return fail(&c, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
        if (!split_dim(&c, &x, ARG(2)->i, "chunk", &d)) return EIR_VIEW_ERROR;
        int64_t dim_size = x.sizes[d], split_size = (dim_size + chunks - 1) / chunks;
        if (split_size == 0 && dim_size == 0) {
            if (chunks > (int64_t)nout) return fail(&c, "%s returns %lld tensors; the program has %u", op, (long long)chunks, nout);
            for (int64_t i = 0; i < chunks; i++)
                if (emit_slice(&c, &x, d, 0, 0) < 0) return EIR_VIEW_ERROR;
            goto counted;
        }
        r = do_split(&c, &x, split_size, d);
        goto counted;
    }
    if (is(op, "aten.unbind.int")) {
        NEED(2);
        int32_t d;
        if (x.rank == 0) return fail(&c, "Dimension specified as 0 but tensor has no dimensions");
        if (!wrap(&c, ARG(1)->i, x.rank, &d)) return EIR_VIEW_ERROR;
        if (x.sizes[d] > (int64_t)nout) return fail(&c, "%s returns %lld tensors; the program has %u", op, (long long)x.sizes[d], nout);
        for (int64_t i = 0; i < x.sizes[d]; i++) {
            if (do_select(&c, &x, d, i, &g) < 0) return EIR_VIEW_ERROR;
            if (emit(&c, &g) < 0) return EIR_VIEW_ERROR;
        }
        goto counted;
    }
    if (is(op, "aten.tensor_split.sections") || is(op, "aten.tensor_split.indices")) {
        NEED(3);
        int32_t d;
        if (x.rank == 0)
            return fail(&c, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
        if (!wrap(&c, ARG(2)->i, x.rank, &d)) return EIR_VIEW_ERROR;
        r = ARG(1)->kind == EIR_KA_INTS ? do_tensor_split_indices(&c, &x, ARG(1)->ints, ARG(1)->n, d)
                                        : do_tensor_split_sections(&c, &x, ARG(1)->i, d);
        goto counted;
    }
    if (is(op, "aten.tensor_split.tensor_indices_or_sections")) {
        /* a 0-d tensor is the number of sections, a 1-d one the split indices */
        NEED(3);
        int32_t d;
        const eir_tview *t = ARG(1)->t;
        if (!t || !eir_is_integral(t->dtype, false) || t->rank > 1)
            return fail(&c, "tensor_split expected tensor_indices_or_sections to have integer dtype and to be a zero-dimensional "
                        "or one-dimensional tensor");
        if (x.rank == 0)
            return fail(&c, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
        if (!wrap(&c, ARG(2)->i, x.rank, &d)) return EIR_VIEW_ERROR;
        if (t->rank == 0) {
            r = do_tensor_split_sections(&c, &x, eir_load_i64(t->data, t->dtype), d);
            goto counted;
        }
        int64_t idx[64];
        if (t->sizes[0] > 64) return fail(&c, "tensor_split: eir takes at most 64 split indices, got %lld", (long long)t->sizes[0]);
        for (int64_t i = 0; i < t->sizes[0]; i++)
            idx[i] = eir_load_i64((const char *)t->data + i * t->strides[0] * (int64_t)eir_dtype_size(t->dtype), t->dtype);
        r = do_tensor_split_indices(&c, &x, idx, (uint32_t)t->sizes[0], d);
        goto counted;
    }
    if (!strncmp(op, "aten.hsplit.", 12) || !strncmp(op, "aten.vsplit.", 12) || !strncmp(op, "aten.dsplit.", 12)) {
        NEED(2);
        r = do_hvdsplit(&c, &x, op[5], ARG(1));
        goto counted;
    }
    if (is(op, "aten.view_as_real.default")) {
        if ((r = do_view_as_real(&c, &x, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.view_as_complex.default")) {
        if ((r = do_view_as_complex(&c, &x, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.real.default") || is(op, "aten.imag.default")) {
        bool im = is(op, "aten.imag.default");
        if (!eir_is_complex(x.dtype)) {
            if (im) return fail(&c, "imag is not implemented for tensors with non-complex dtypes.");
            r = emit(&c, &x);
            goto counted;
        }
        geom re;
        if (do_view_as_real(&c, &x, &re) < 0 || do_select(&c, &re, -1, im, &g) < 0) return EIR_VIEW_ERROR;
        r = emit(&c, &g);
        goto counted;
    }
    if (is(op, "aten.view.dtype")) {
        NEED(2);
        if ((r = do_view_dtype(&c, &x, (eir_dtype)ARG(1)->i, &g)) < 0) return r;
        r = emit(&c, &g);
        goto counted;
    }
    return fail(&c, "%s: eir does not know this view op's geometry", op);
counted:
    if (r < 0) return r;
    if (c.n != nout) return fail(&c, "%s returns %u tensor%s here; the program has %u", op, c.n, c.n == 1 ? "" : "s", nout);
    return r;
#undef ARG
#undef NEED
}
