/* compose.c — kernel family: the non-core ATen ops that programs contain as
 * users export them (torch.export.export, before run_decompositions()).
 *
 *   products     einsum (with opt_einsum's path), tensordot, inner,
 *                bilinear and the _trilinear it decomposes into, outer / ger,
 *                kron, vdot, addr, addbmm, trace
 *   diagonals    diag, diag_embed, diagflat, block_diag, eye
 *   shapes       tile, rot90, fliplr, flipud, meshgrid, broadcast_tensors,
 *                atleast_1d/2d/3d, unsafe_split(_with_sizes), unsafe_chunk,
 *                repeat_interleave.self_int, pixel_(un)shuffle,
 *                channel_shuffle, cartesian_prod, combinations, pad (all
 *                four modes)
 *   indexing     take, take_along_dim, put, index_copy, index_fill,
 *                index_reduce, as_strided_copy / as_strided_scatter,
 *                nonzero_static, unique_consecutive
 *   reductions   count_nonzero, sum_to_size, segment_reduce
 *   vectors      cross / linalg_cross, linalg_vecdot, cosine_similarity,
 *                pairwise_distance, dist, renorm
 *   factories    linspace / logspace (all overloads), empty_permuted,
 *                new_empty_strided, zero_; the windows hann, hamming,
 *                blackman, bartlett and kaiser (all overloads)
 *   aliases      divide, true_divide, subtract, max.other / min.other,
 *                square, fill_: the core kernels they stand for
 *   stacks       hstack, vstack, dstack, column_stack (atleast_Nd views, cat)
 *   encodings    one_hot (num_classes=-1 sized by eir_compose_presize)
 *   differences  diff (n, dim, prepend, append), msort
 *   triangles    tril_indices, triu_indices
 *   integration  trapezoid / trapz / cumulative_trapezoid (x and dx forms),
 *                composed as Integration.cpp composes them
 *   unpooling    max_unpool2d, max_unpool3d
 *   chunks       _chunk_cat; nonzero_numpy and where(condition) (sized by
 *                eir_compose_presize);
 *                embedding_renorm_ (in place on its weight, F.embedding's max_norm)
 *   sequences    pad_sequence; affine_grid_generator (linspace base grid, bmm)
 *
 * Composites do what torch's C++ composition does (the same ops, in the
 * same dtype and order) by calling the other families' kernels on views
 * built here: einsum reduces to bmm exactly as aten's einsum does
 * (sumproduct_pair), kron is a broadcast mul, dist a sub and a norm.
 * Intermediates live in eir_kalloc scratch. Views of more than EIR_MAX_RANK
 * dims (kron and tile split every dim in two) are run block by block.
 *
 * unique_consecutive, combinations, nonzero_numpy and one_hot(num_classes=-1)
 * have outputs whose size the program leaves symbolic (u0):
 * eir_compose_presize computes it before the kernel runs, and the runtime
 * sizes the outputs from it. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "kutil.h"
#include "tables.h"

typedef eir_tview tv;

static const char *dname(eir_dtype d) { return eir_torch_dtype_name(d); }

/* ======================================================================
 * the other families' kernels, looked up by name once
 * ====================================================================== */

static eir_kernel_fn kfind(const char *op) {
    static const eir_kernel_entry *const tables[] = {eir_kernels_pointwise, eir_kernels_reduce, eir_kernels_nn,
                                                    eir_kernels_data, eir_kernels_misc};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++)
        for (const eir_kernel_entry *e = tables[t]; e->op; e++)
            if (!strcmp(e->op, op)) return e->fn;
    return NULL;
}

static int kcall(const char *op, eir_kernel_fn *cache, const eir_karg *a, uint32_t na, tv *out, uint32_t no,
                 eir_kctx *ctx) {
    eir_kernel_fn f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!f) {
        if (!(f = kfind(op))) return eir_kerr(ctx, "%s: no kernel", op);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f(a, na, out, no, ctx);
}

/* name(args, nargs, out, nout, ctx) runs the kernel of op */
#define KREF(name, op)                                                                          \
    static int name(const eir_karg *a, uint32_t na, tv *o, uint32_t no, eir_kctx *c) {          \
        static eir_kernel_fn f;                                                                 \
        return kcall(op, &f, a, na, o, no, c);                                                  \
    }

KREF(k_mul, "aten.mul.Tensor")
KREF(k_add, "aten.add.Tensor")
KREF(k_sub, "aten.sub.Tensor")
KREF(k_div, "aten.div.Tensor")
KREF(k_div_mode, "aten.div.Tensor_mode")
KREF(k_maximum, "aten.maximum.default")
KREF(k_minimum, "aten.minimum.default")
KREF(k_pow_ts, "aten.pow.Tensor_Scalar")
KREF(k_abs, "aten.abs.default")
KREF(k_copy, "aten.copy.default")
KREF(k_fill, "aten.fill.Scalar")
KREF(k_fill_t, "aten.fill.Tensor")
KREF(k_clamp_min, "aten.clamp_min.default")
KREF(k_bmm, "aten.bmm.default")
KREF(k_addmm, "aten.addmm.default")
KREF(k_dot, "aten.dot.default")
KREF(k_sum_dim, "aten.sum.dim_IntList")
KREF(k_vnorm, "aten.linalg_vector_norm.default")
KREF(k_norm_dim, "aten.norm.ScalarOpt_dim")
KREF(k_norm_sc, "aten.norm.Scalar")
KREF(k_cpad, "aten.constant_pad_nd.default")
KREF(k_reflect1, "aten.reflection_pad1d.default")
KREF(k_reflect2, "aten.reflection_pad2d.default")
KREF(k_reflect3, "aten.reflection_pad3d.default")
KREF(k_repl1, "aten.replication_pad1d.default")
KREF(k_repl2, "aten.replication_pad2d.default")
KREF(k_repl3, "aten.replication_pad3d.default")
KREF(k_cat, "aten.cat.default")
KREF(k_lxor, "aten.logical_xor.default")
KREF(k_sort, "aten.sort.default")
KREF(k_cumsum, "aten.cumsum.default")

/* ---- kernel arguments ---- */
static eir_karg A_t(const tv *t) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_TENSOR; a.t = t; return a; }
static eir_karg A_none(void) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_NONE; return a; }
static eir_karg A_i(int64_t i) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_INT;
    a.i = i;
    a.s = (eir_scalar){EIR_SC_INT, i, (double)i, 0};
    return a;
}
static eir_karg A_b(bool b) { eir_karg a = A_i(b); a.kind = EIR_KA_BOOL; a.s.kind = EIR_SC_BOOL; return a; }
static eir_karg A_f(double f) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_FLOAT;
    a.f = f;
    a.s = (eir_scalar){EIR_SC_FLOAT, 0, f, 0};
    return a;
}
static eir_karg A_sc(eir_scalar s) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_SCALAR;
    a.s = s;
    a.i = s.i;
    a.f = s.f;
    return a;
}
static eir_karg A_ints(const int64_t *v, uint32_t n) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_INTS;
    a.ints = v;
    a.n = n;
    return a;
}
static eir_karg A_ts(const tv *const *ts, uint32_t n) {
    eir_karg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_KA_TENSORS;
    a.ts = ts;
    a.n = n;
    return a;
}
static eir_karg A_dtype(eir_dtype d) { eir_karg a; memset(&a, 0, sizeof a); a.kind = EIR_KA_DTYPE; a.i = d; return a; }

static const tv *arg_t(const eir_karg *a, uint32_t na, uint32_t i) {
    return i < na && a[i].kind == EIR_KA_TENSOR ? a[i].t : NULL;
}
static bool arg_none(const eir_karg *a, uint32_t na, uint32_t i) { return i >= na || a[i].kind == EIR_KA_NONE; }
static int64_t arg_i(const eir_karg *a, uint32_t na, uint32_t i, int64_t dflt) {
    if (arg_none(a, na, i)) return dflt;
    if (a[i].kind == EIR_KA_FLOAT) return (int64_t)a[i].f;
    if (a[i].kind == EIR_KA_SCALAR) return a[i].s.kind == EIR_SC_FLOAT ? (int64_t)a[i].s.f : a[i].s.i;
    return a[i].i;
}
static double arg_f(const eir_karg *a, uint32_t na, uint32_t i, double dflt) {
    if (arg_none(a, na, i)) return dflt;
    if (a[i].kind == EIR_KA_FLOAT) return a[i].f;
    if (a[i].kind == EIR_KA_INT || a[i].kind == EIR_KA_BOOL) return (double)a[i].i;
    return a[i].s.kind == EIR_SC_FLOAT || a[i].s.kind == EIR_SC_COMPLEX ? a[i].s.f : (double)a[i].s.i;
}
static eir_scalar arg_sc(const eir_karg *a, uint32_t na, uint32_t i, int64_t dflt) {
    if (arg_none(a, na, i)) return (eir_scalar){EIR_SC_INT, dflt, (double)dflt, 0};
    if (a[i].kind == EIR_KA_FLOAT) return (eir_scalar){EIR_SC_FLOAT, 0, a[i].f, 0};
    if (a[i].kind == EIR_KA_INT) return (eir_scalar){EIR_SC_INT, a[i].i, (double)a[i].i, 0};
    if (a[i].kind == EIR_KA_BOOL) return (eir_scalar){EIR_SC_BOOL, a[i].i, (double)a[i].i, 0};
    return a[i].s;
}

#define NEED_T(i, name)                                                                              \
    const tv *name = arg_t(a, na, (i));                                                              \
    if (!name) return eir_kerr(ctx, "%s: argument %d must be a tensor", __func__ + 2, (int)(i));

/* "[2, 3]" */
static const char *fmt_shape(char *buf, size_t n, int32_t rank, const int64_t *sizes) {
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int32_t i = 0; i < rank && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ", %" PRId64 : "%" PRId64, sizes[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
    return buf;
}

/* ======================================================================
 * views
 * ====================================================================== */

static inline size_t esz(eir_dtype d) { return eir_elsize(d); }
static inline char *at_el(const tv *t, int64_t off) { return (char *)t->data + off * (int64_t)esz(t->dtype); }

static tv v_contig(void *data, eir_dtype dt, int32_t rank, const int64_t *sizes) {
    tv v;
    memset(&v, 0, sizeof v);
    v.data = data;
    v.dtype = dt;
    v.rank = rank;
    int64_t st = 1;
    for (int32_t d = rank - 1; d >= 0; d--) { v.sizes[d] = sizes[d]; v.strides[d] = st; st *= sizes[d] > 1 ? sizes[d] : 1; }
    return v;
}
static void v_unsq(tv *t, int32_t d) {
    for (int32_t k = t->rank; k > d; k--) { t->sizes[k] = t->sizes[k - 1]; t->strides[k] = t->strides[k - 1]; }
    t->sizes[d] = 1;
    t->strides[d] = 0;
    t->rank++;
}
static void v_narrow(tv *t, int32_t d, int64_t start, int64_t len) {
    if (len > 0) t->data = at_el(t, start * t->strides[d]);
    t->sizes[d] = len;
}
static void v_select(tv *t, int32_t d, int64_t i) {
    t->data = at_el(t, i * t->strides[d]);
    for (int32_t k = d; k + 1 < t->rank; k++) { t->sizes[k] = t->sizes[k + 1]; t->strides[k] = t->strides[k + 1]; }
    t->rank--;
}
static void v_flip(tv *t, int32_t d) {
    if (t->sizes[d] > 0) t->data = at_el(t, (t->sizes[d] - 1) * t->strides[d]);
    t->strides[d] = -t->strides[d];
}
static void v_swap(tv *t, int32_t d0, int32_t d1) {
    int64_t s = t->sizes[d0], st = t->strides[d0];
    t->sizes[d0] = t->sizes[d1]; t->strides[d0] = t->strides[d1];
    t->sizes[d1] = s; t->strides[d1] = st;
}
/* t.diagonal(off, d1, d2): d1 and d2 removed, the diagonal appended last */
static void v_diagonal(tv *t, int64_t off, int32_t d1, int32_t d2) {
    int64_t n1 = t->sizes[d1], n2 = t->sizes[d2], len, start;
    if (off >= 0) { len = n2 - off < n1 ? n2 - off : n1; start = off * t->strides[d2]; }
    else { len = n1 + off < n2 ? n1 + off : n2; start = -off * t->strides[d1]; }
    if (len < 0) len = 0;
    int64_t st = t->strides[d1] + t->strides[d2];
    if (len > 0) t->data = at_el(t, start);
    int32_t r = 0;
    for (int32_t k = 0; k < t->rank; k++)
        if (k != d1 && k != d2) { t->sizes[r] = t->sizes[k]; t->strides[r] = t->strides[k]; r++; }
    t->sizes[r] = len;
    t->strides[r] = st;
    t->rank = r + 1;
}
/* t reshaped to sizes without copying, as torch's computeStride decides; false when that needs a copy */
static bool v_reshape(const tv *t, int32_t rank, const int64_t *sizes, tv *out) {
    *out = *t;
    out->rank = rank;
    int64_t numel = eir_tview_numel(t);
    if (numel == 0 || t->rank == 0) {
        int64_t st = 1;
        for (int32_t d = rank - 1; d >= 0; d--) { out->sizes[d] = sizes[d]; out->strides[d] = st; st *= sizes[d] > 1 ? sizes[d] : 1; }
        return true;
    }
    int32_t view_d = rank - 1;
    int64_t chunk_base_stride = t->strides[t->rank - 1], tensor_numel = 1, view_numel = 1;
    for (int32_t td = t->rank - 1; td >= 0; td--) {
        tensor_numel *= t->sizes[td];
        if (td == 0 || (t->sizes[td - 1] != 1 && t->strides[td - 1] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || sizes[view_d] == 1)) {
                out->strides[view_d] = view_numel * chunk_base_stride;
                out->sizes[view_d] = sizes[view_d];
                view_numel *= sizes[view_d];
                view_d--;
            }
            if (view_numel != tensor_numel) return false;
            if (td > 0) { chunk_base_stride = t->strides[td - 1]; tensor_numel = 1; view_numel = 1; }
        }
    }
    return view_d == -1;
}
/* a 1-d view (n elements, stride s) seen as the row-major layout of sizes[rank] */
static tv v_unflatten1(const tv *t, int32_t rank, const int64_t *sizes) {
    tv v = *t;
    v.rank = rank;
    int64_t st = t->rank ? t->strides[0] : 1;
    for (int32_t d = rank - 1; d >= 0; d--) { v.sizes[d] = sizes[d]; v.strides[d] = st; st *= sizes[d]; }
    return v;
}
static bool same_sizes(const tv *a, const tv *b) {
    if (a->rank != b->rank) return false;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->sizes[d] != b->sizes[d]) return false;
    return true;
}
static bool same_view(const tv *a, const tv *b) {
    if (a->data != b->data || a->dtype != b->dtype || !same_sizes(a, b)) return false;
    for (int32_t d = 0; d < a->rank; d++)
        if (a->sizes[d] > 1 && a->strides[d] != b->strides[d]) return false;
    return true;
}
static int64_t ravel_off(const tv *t, int64_t flat) { /* element offset of row-major position flat */
    int64_t off = 0;
    for (int32_t d = t->rank - 1; d >= 0; d--) {
        if (t->sizes[d] == 0) return 0;
        off += (flat % t->sizes[d]) * t->strides[d];
        flat /= t->sizes[d];
    }
    return off;
}
static bool next_idx(int64_t *idx, const int64_t *sizes, int32_t rank) {
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}
/* ---- copies and fills through the pointwise kernels ---- */

/* dst = src (converted, broadcast to dst's shape) */
static int tv_copy(tv *dst, const tv *src, eir_kctx *ctx) {
    eir_karg a[3] = {A_t(dst), A_t(src), A_b(false)};
    return k_copy(a, 3, dst, 1, ctx);
}
static int tv_fill(tv *dst, eir_scalar s, eir_kctx *ctx) {
    eir_karg a[2] = {A_t(dst), A_sc(s)};
    return k_fill(a, 2, dst, 1, ctx);
}
static const eir_scalar S_ZERO = {EIR_SC_INT, 0, 0, 0};
static const eir_scalar S_ONE = {EIR_SC_INT, 1, 1, 0};

/* ---- views of any rank (label space, split dims), run in blocks ---- */

#define BMAX 64
typedef struct bv {
    char *data;
    eir_dtype dt;
    int32_t rank;
    int64_t sizes[BMAX], strides[BMAX];
} bv;

static bv bv_of(const tv *t) {
    bv b;
    b.data = t->data;
    b.dt = t->dtype;
    b.rank = t->rank;
    for (int32_t d = 0; d < t->rank; d++) { b.sizes[d] = t->sizes[d]; b.strides[d] = t->strides[d]; }
    return b;
}

/* Run fn over nops same-shaped views (ops[0] is fn's output, ops[k] is
 * argument args[pos[k]]): size-1 dims drop, dims contiguous in every
 * operand merge, and whatever exceeds EIR_MAX_RANK is looped here. */
static int bv_run(eir_kernel_fn fn, eir_karg *args, uint32_t na, const int *pos, int nops, bv *ops, eir_kctx *ctx) {
    int32_t r = 0;
    for (int32_t d = 0; d < ops[0].rank; d++) {
        if (ops[0].sizes[d] == 0) return 0;
        if (ops[0].sizes[d] == 1) continue;
        for (int k = 0; k < nops; k++) { ops[k].sizes[r] = ops[k].sizes[d]; ops[k].strides[r] = ops[k].strides[d]; }
        r++;
    }
    int32_t m = 0;
    for (int32_t d = 0; d < r; d++) {
        bool merge = m > 0;
        for (int k = 0; k < nops && merge; k++)
            if (ops[k].strides[m - 1] != ops[k].strides[d] * ops[k].sizes[d]) merge = false;
        if (merge) {
            for (int k = 0; k < nops; k++) { ops[k].sizes[m - 1] *= ops[k].sizes[d]; ops[k].strides[m - 1] = ops[k].strides[d]; }
            continue;
        }
        for (int k = 0; k < nops; k++) { ops[k].sizes[m] = ops[k].sizes[d]; ops[k].strides[m] = ops[k].strides[d]; }
        m++;
    }
    for (int k = 0; k < nops; k++) ops[k].rank = m;
    int32_t inner = m < EIR_MAX_RANK ? m : EIR_MAX_RANK, outer = m - inner;
    int64_t idx[BMAX] = {0};
    tv v[4];
    for (;;) {
        for (int k = 0; k < nops; k++) {
            int64_t off = 0;
            for (int32_t d = 0; d < outer; d++) off += idx[d] * ops[k].strides[d];
            memset(&v[k], 0, sizeof v[k]);
            v[k].data = ops[k].data + off * (int64_t)esz(ops[k].dt);
            v[k].dtype = ops[k].dt;
            v[k].rank = inner;
            for (int32_t d = 0; d < inner; d++) { v[k].sizes[d] = ops[k].sizes[outer + d]; v[k].strides[d] = ops[k].strides[outer + d]; }
            if (k > 0) args[pos[k]] = A_t(&v[k]);
        }
        if (pos[0] >= 0) args[pos[0]] = A_t(&v[0]);
        int rc = fn(args, na, &v[0], 1, ctx);
        if (rc) return rc;
        int32_t d = outer - 1;
        while (d >= 0 && ++idx[d] == ops[0].sizes[d]) idx[d--] = 0;
        if (d < 0) return 0;
    }
}

/* src seen with like's sizes: its size-1 dims broadcast (stride 0) */
static void bv_bcast(bv *src, const bv *like) {
    for (int32_t d = 0; d < src->rank; d++)
        if (src->sizes[d] != like->sizes[d]) { src->sizes[d] = like->sizes[d]; src->strides[d] = 0; }
}

static int bv_copy(bv *dst, bv *src, eir_kctx *ctx) {
    bv_bcast(src, dst);
    bv ops[2] = {*dst, *src};
    eir_karg a[3] = {A_none(), A_none(), A_b(false)};
    static const int pos[2] = {0, 1};
    return bv_run(k_copy, a, 3, pos, 2, ops, ctx);
}

/* ======================================================================
 * contraction engine (einsum, tensordot, inner, bilinear)
 *
 * Operands live in a label space of L positions: positions [0, nout) are the
 * output's dims in order, the rest are contracted. An absent label has size
 * 1 and stride 0; a repeated one (a diagonal) the sum of its strides. Pairs
 * contract as aten's sumproduct_pair: labels in both operands are batch
 * dims, labels summed now are the bmm's inner dim, the others rows /
 * columns; with nothing to sum it is a broadcast mul.
 * ====================================================================== */

#define NLAB 64
typedef struct lview {
    char *data;
    eir_dtype dt;
    int64_t size[NLAB], stride[NLAB];
    void *own;                      /* scratch holding data, or NULL */
} lview;

static bv lv_bv(const lview *v, const int *pos, int n) {
    bv b;
    b.data = v->data;
    b.dt = v->dt;
    b.rank = n;
    for (int i = 0; i < n; i++) { b.sizes[i] = v->size[pos[i]]; b.strides[i] = v->size[pos[i]] == 1 ? 0 : v->stride[pos[i]]; }
    return b;
}

/* a fresh contiguous lview of dtype dt with src's sizes except where sum[] (size 1) */
static int lv_alloc(lview *r, const lview *src, int L, const bool *sum, eir_dtype dt, eir_kctx *ctx) {
    memset(r, 0, sizeof *r);
    r->dt = dt;
    int64_t n = 1;
    for (int p = L - 1; p >= 0; p--) {
        r->size[p] = sum && sum[p] ? 1 : src->size[p];
        r->stride[p] = r->size[p] == 1 ? 0 : n;
        n *= r->size[p];
    }
    r->own = eir_kalloc((size_t)(n > 0 ? n : 1) * esz(dt));
    if (!r->own) return eir_kerr(ctx, "out of memory");
    r->data = r->own;
    return 0;
}

/* dst = src summed over the positions sum[] marks (dst has size 1 there).
 * Floating values accumulate in double, integers in wrapping 64 bits, and
 * the result is converted to dst's dtype (torch's sum, then a copy). */
static int lv_reduce(const lview *src, const lview *dst, int L, const bool *sum, eir_kctx *ctx) {
    int kp[NLAB], sp[NLAB], nk = 0, ns = 0;
    for (int p = 0; p < L; p++) {
        if (sum[p] && src->size[p] != 1) sp[ns++] = p;
        else if (dst->size[p] != 1) kp[nk++] = p;
    }
    if (ns == 0) {
        bv d = lv_bv(dst, kp, nk), s = lv_bv(src, kp, nk);
        return bv_copy(&d, &s, ctx);
    }
    int64_t ko[NLAB] = {0}, so[NLAB] = {0};
    for (int i = 0; i < nk; i++)
        if (dst->size[kp[i]] == 0) return 0;
    eir_dtype sd = src->dt, dd = dst->dt;
    size_t ses = esz(sd), des = esz(dd);
    bool cpx = eir_is_complex(sd) || eir_is_complex(dd), flt = eir_is_floating(sd) || eir_is_floating(dd);
    bool empty = false;
    for (int i = 0; i < ns; i++) empty |= src->size[sp[i]] == 0;
    for (;;) {
        int64_t soff = 0, doff = 0;
        for (int i = 0; i < nk; i++) {
            soff += ko[i] * (src->size[kp[i]] == 1 ? 0 : src->stride[kp[i]]);
            doff += ko[i] * dst->stride[kp[i]];
        }
        double re = 0, im = 0;
        uint64_t acc = 0;
        memset(so, 0, sizeof so);
        while (!empty) {
            int64_t o = soff;
            for (int i = 0; i < ns; i++) o += so[i] * src->stride[sp[i]];
            const char *e = src->data + o * (int64_t)ses;
            if (cpx) { double r2, i2; eir_load_c128(e, sd, &r2, &i2); re += r2; im += i2; }
            else if (flt) re += eir_load_f64(e, sd);
            else acc += (uint64_t)eir_load_i64(e, sd);
            int i = ns - 1;
            while (i >= 0 && ++so[i] == src->size[sp[i]]) so[i--] = 0;
            if (i < 0) break;
        }
        char *d = dst->data + doff * (int64_t)des;
        if (cpx) eir_store_c128(d, dd, re, im);
        else if (flt) eir_store_f64(d, dd, re);
        else eir_store_i64(d, dd, (int64_t)acc);
        int i = nk - 1;
        while (i >= 0 && ++ko[i] == dst->size[kp[i]]) ko[i--] = 0;
        if (i < 0) return 0;
    }
}

/* v's labels pos[0..n) as one dim (size, stride) without copying, if their strides chain */
static bool lv_merge(const lview *v, const int *pos, int n, int64_t *size, int64_t *stride) {
    int64_t s = 1, st = 1;
    bool first = true;
    for (int i = n - 1; i >= 0; i--) {
        int64_t z = v->size[pos[i]];
        if (z == 1) continue;
        if (first) { st = v->stride[pos[i]]; first = false; }
        else if (v->stride[pos[i]] != st * s) return false;
        s *= z;
    }
    *size = s;
    *stride = st;
    return true;
}

/* v as a 3-d (g0, g1, g2) matrix batch in dtype dt: a view when it can be,
 * else a contiguous copy into *own */
static int lv_mat3(const lview *v, const int *const *g, const int *ng, eir_dtype dt, tv *m, void **own, eir_kctx *ctx) {
    memset(m, 0, sizeof *m);
    m->rank = 3;
    m->dtype = dt;
    *own = NULL;
    bool ok = v->dt == dt;
    for (int k = 0; k < 3 && ok; k++) ok = lv_merge(v, g[k], ng[k], &m->sizes[k], &m->strides[k]);
    if (ok) { m->data = v->data; return 0; }
    int all[NLAB], n = 0;
    int64_t sz[3] = {1, 1, 1};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < ng[k]; i++) { all[n++] = g[k][i]; sz[k] *= v->size[g[k][i]]; }
    int64_t total = sz[0] * sz[1] * sz[2];
    *own = eir_kalloc((size_t)(total > 0 ? total : 1) * esz(dt));
    if (!*own) return eir_kerr(ctx, "out of memory");
    *m = v_contig(*own, dt, 3, sz);
    bv s = lv_bv(v, all, n), d;
    d.data = *own;
    d.dt = dt;
    d.rank = n;
    int64_t st = 1;
    for (int i = n - 1; i >= 0; i--) { d.sizes[i] = s.sizes[i]; d.strides[i] = st; st *= s.sizes[i]; }
    return bv_copy(&d, &s, ctx);
}

/* r = sumproduct_pair(a, b, sum) in dtype dt (r owns its scratch) */
static int lv_pair(const lview *a, const lview *b, int L, const bool *sum, eir_dtype dt, lview *r, eir_kctx *ctx) {
    int pb[NLAB], pm[NLAB], pn[NLAB], pk[NLAB], nb = 0, nm = 0, nn = 0, nk = 0, all[NLAB], nall = 0;
    memset(r, 0, sizeof *r);
    r->dt = dt;
    for (int p = 0; p < L; p++) {
        bool sa = a->size[p] != 1, sb = b->size[p] != 1;
        r->size[p] = 1;
        if (sum[p]) { pk[nk++] = p; continue; }
        if (sa && sb) { pb[nb++] = p; r->size[p] = a->size[p]; }
        else if (sa) { pm[nm++] = p; r->size[p] = a->size[p]; }
        else if (sb) { pn[nn++] = p; r->size[p] = b->size[p]; }
        if (sa || sb) all[nall++] = p;
    }
    /* the result: contiguous in the order batch, rows, columns */
    int64_t n = 1;
    int order[NLAB], no = 0;
    for (int i = 0; i < nb; i++) order[no++] = pb[i];
    for (int i = 0; i < nm; i++) order[no++] = pm[i];
    for (int i = 0; i < nn; i++) order[no++] = pn[i];
    for (int i = no - 1; i >= 0; i--) { r->stride[order[i]] = n; n *= r->size[order[i]]; }
    r->own = eir_kalloc((size_t)(n > 0 ? n : 1) * esz(dt));
    if (!r->own) return eir_kerr(ctx, "out of memory");
    r->data = r->own;
    if (nk == 0) { /* at::mul(left, right) */
        bv ops[3] = {lv_bv(r, all, nall), lv_bv(a, all, nall), lv_bv(b, all, nall)};
        bv_bcast(&ops[1], &ops[0]);
        bv_bcast(&ops[2], &ops[0]);
        eir_karg args[2] = {A_none(), A_none()};
        static const int pos[3] = {-1, 0, 1};
        return bv_run(k_mul, args, 2, pos, 3, ops, ctx);
    }
    const int *ga[3] = {pb, pm, pk}, *gb[3] = {pb, pk, pn};
    int na3[3] = {nb, nm, nk}, nb3[3] = {nb, nk, nn};
    tv A, B;
    void *oa = NULL, *ob = NULL;
    int rc = lv_mat3(a, ga, na3, dt, &A, &oa, ctx);
    if (!rc) rc = lv_mat3(b, gb, nb3, dt, &B, &ob, ctx);
    if (!rc) {
        int64_t cs[3] = {A.sizes[0], A.sizes[1], B.sizes[2]};
        tv C = v_contig(r->data, dt, 3, cs);
        eir_karg args[2] = {A_t(&A), A_t(&B)};
        rc = k_bmm(args, 2, &C, 1, ctx);
    }
    eir_kfree(oa);
    eir_kfree(ob);
    return rc;
}

static void lv_free(lview *v) {
    eir_kfree(v->own);
    v->own = NULL;
}

/* out = the contraction of ts[i] (dims labelled labs[i][d], positions in
 * [0, L); the output's dims are positions 0..out->rank-1), pairwise left to
 * right or along path (opt_einsum's pairs, results appended last) */
static int contract(int nops, const tv *const *ts, const int *const *labs, int L, const int64_t *path, uint32_t npath,
                    tv *out, eir_kctx *ctx) {
    int nout = out->rank;
    if (L > NLAB || nops < 1) return eir_kerr(ctx, "einsum(): too many dimensions");
    lview *ops = eir_kcalloc((size_t)nops, sizeof *ops);
    if (!ops) return eir_kerr(ctx, "out of memory");
    eir_dtype dt = out->dtype;
    int n = nops;                   /* ops[0..n) are live; scratch they own is freed at the end */
    int64_t dimc[NLAB] = {0}, lsize[NLAB];
    for (int p = 0; p < L; p++) lsize[p] = 1;
    int rc = 0;
    for (int i = 0; i < nops; i++) {
        lview *v = &ops[i];
        v->data = ts[i]->data;
        v->dt = ts[i]->dtype;
        bool seen[NLAB] = {false};
        for (int p = 0; p < L; p++) { v->size[p] = 1; v->stride[p] = 0; }
        for (int32_t d = 0; d < ts[i]->rank; d++) {
            int p = labs[i][d];
            if (seen[p]) { v->stride[p] += ts[i]->strides[d]; continue; }
            seen[p] = true;
            v->size[p] = ts[i]->sizes[d];
            v->stride[p] = ts[i]->strides[d];
        }
        for (int p = 0; p < L; p++) {
            if (v->size[p] == 1) continue;
            if (lsize[p] != 1 && lsize[p] != v->size[p]) { rc = eir_kerr(ctx, "einsum(): operands do not broadcast with remapped shapes (original->remapped)"); goto done; }
            lsize[p] = v->size[p];
            dimc[p]++;
        }
    }
    for (int p = 0; p < nout; p++)
        if (out->sizes[p] != lsize[p]) { rc = eir_kerr(ctx, "einsum(): output dim %d has size %" PRId64 ", expected %" PRId64, p, out->sizes[p], lsize[p]); goto done; }
    lview ov;
    memset(&ov, 0, sizeof ov);
    ov.data = out->data;
    ov.dt = dt;
    for (int p = 0; p < L; p++) { ov.size[p] = p < nout ? out->sizes[p] : 1; ov.stride[p] = p < nout ? out->strides[p] : 0; }
    bool sum[NLAB] = {false};
    for (int p = nout; p < L; p++) sum[p] = true;
    if (nops == 1) { rc = lv_reduce(&ops[0], &ov, L, sum, ctx); goto done; }
    uint32_t pi = 0;
    while (n > 1) {
        int64_t i = 0, j = 1;
        if (path) {
            if (pi + 2 > npath) { rc = eir_kerr(ctx, "einsum(): the contraction path is too short"); goto done; }
            i = path[pi++];
            j = path[pi++];
            if (j < i) { int64_t t = i; i = j; j = t; }
            if (i == j || i < 0 || j >= n) {
                rc = eir_kerr(ctx, "einsum(): invalid contraction (%" PRId64 ", %" PRId64 ")%s", i, j,
                              i == j ? " cannot contract an operand with itself" : " operand index is out of bounds");
                goto done;
            }
        }
        lview a = ops[i], b = ops[j];
        memmove(&ops[j], &ops[j + 1], (size_t)(n - j - 1) * sizeof *ops);
        memmove(&ops[i], &ops[i + 1], (size_t)(n - i - 2) * sizeof *ops);
        n -= 2;
        ops[n].own = ops[n + 1].own = NULL;
        bool now[NLAB] = {false}, as[NLAB] = {false}, bs[NLAB] = {false};
        bool any_a = false, any_b = false;
        for (int p = nout; p < L; p++) {
            if (a.size[p] != 1 && b.size[p] != 1) {
                if (--dimc[p] == 1) { now[p] = true; dimc[p] = 0; }
            } else if (dimc[p] == 1) {
                if (a.size[p] != 1) { as[p] = any_a = true; dimc[p] = 0; }
                else if (b.size[p] != 1) { bs[p] = any_b = true; dimc[p] = 0; }
            }
        }
        lview t;
        if (any_a) {
            if ((rc = lv_alloc(&t, &a, L, as, a.dt, ctx)) || (rc = lv_reduce(&a, &t, L, as, ctx))) { lv_free(&t); lv_free(&a); lv_free(&b); goto done; }
            lv_free(&a);
            a = t;
        }
        if (any_b) {
            if ((rc = lv_alloc(&t, &b, L, bs, b.dt, ctx)) || (rc = lv_reduce(&b, &t, L, bs, ctx))) { lv_free(&t); lv_free(&a); lv_free(&b); goto done; }
            lv_free(&b);
            b = t;
        }
        lview r;
        rc = lv_pair(&a, &b, L, now, dt, &r, ctx);
        lv_free(&a);
        lv_free(&b);
        if (rc) { lv_free(&r); goto done; }
        ops[n].own = NULL;
        if (path) ops[n] = r;
        else { memmove(&ops[1], &ops[0], (size_t)n * sizeof *ops); ops[0] = r; }
        n++;
    }
    bool none[NLAB] = {false};
    rc = lv_reduce(&ops[0], &ov, L, none, ctx);
done:
    for (int i = 0; i < n; i++) lv_free(&ops[i]);
    eir_kfree(ops);
    return rc;
}

/* ======================================================================
 * einsum, tensordot, inner, bilinear
 * ====================================================================== */

#define ELL 52 /* the ellipsis among an operand's labels */

/* einsum(str equation, Tensor[] tensors, *, int[]? path=None), parsed as aten does */
static int k_einsum(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    if (na < 2 || a[0].kind != EIR_KA_STRING || a[1].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "einsum: expected an equation and tensors");
    const char *eq = a[0].str;
    uint32_t nops = a[1].n;
    if (nops == 0) return eir_kerr(ctx, "einsum(): must provide at least one operand");
    const int64_t *path = NULL;
    uint32_t npath = 0;
    if (!arg_none(a, na, 2) && a[2].kind == EIR_KA_INTS) {
        path = a[2].ints;
        npath = a[2].n;
        uint32_t want = nops == 1 ? 1 : (nops - 1) * 2;
        if (npath != want)
            return eir_kerr(ctx, "einsum(): expected contraction path given in path parameter to have size %u but got %u", want, npath);
    }
    uint8_t (*ol)[EIR_MAX_RANK + 1] = eir_kcalloc(nops, sizeof *ol);
    int *nl = eir_kcalloc(nops, sizeof *nl), *lab = eir_kcalloc((size_t)nops * EIR_MAX_RANK, sizeof *lab);
    const tv **ts = eir_kcalloc(nops, sizeof *ts);
    const int **labs = eir_kcalloc(nops, sizeof *labs);
    int rc = 0;
    if (!ol || !nl || !lab || !ts || !labs) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    const char *arrow = strstr(eq, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - eq) : strlen(eq);
    uint32_t cur = 0;
    bool ell_in = false;
    for (size_t i = 0; i < lhs_len; i++) {
        unsigned char c = (unsigned char)eq[i];
        if (c == ' ') continue;
        if (c == '.') {
            if (ell_in) { rc = eir_kerr(ctx, "einsum(): found '.' for operand %u for which an ellipsis was already found", cur); goto done; }
            if (!(i + 2 < lhs_len && eq[i + 1] == '.' && eq[i + 2] == '.')) { rc = eir_kerr(ctx, "einsum(): found '.' for operand %u that is not part of any ellipsis", cur); goto done; }
            i += 2;
            if (nl[cur] > EIR_MAX_RANK) { rc = eir_kerr(ctx, "einsum(): too many subscripts for operand %u", cur); goto done; }
            ol[cur][nl[cur]++] = ELL;
            ell_in = true;
        } else if (c == ',') {
            if (++cur >= nops) { rc = eir_kerr(ctx, "einsum(): fewer operands were provided than specified in the equation"); goto done; }
            ell_in = false;
        } else {
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
                rc = eir_kerr(ctx, "einsum(): invalid subscript given at index %zu in the equation string, subscripts must be in [a-zA-Z]", i);
                goto done;
            }
            if (nl[cur] > EIR_MAX_RANK) { rc = eir_kerr(ctx, "einsum(): too many subscripts for operand %u", cur); goto done; }
            ol[cur][nl[cur]++] = (uint8_t)(c <= 'Z' ? c - 'A' : c - 'a' + 26);
        }
    }
    if (cur != nops - 1) { rc = eir_kerr(ctx, "einsum(): more operands were provided than specified in the equation"); goto done; }
    int64_t count[ELL] = {0};
    int ell_dims = 0;
    for (uint32_t i = 0; i < nops; i++) {
        ts[i] = a[1].ts[i];
        if (!ts[i]) { rc = eir_kerr(ctx, "einsum(): operand %u is None", i); goto done; }
        int nlab = nl[i];
        bool has_ell = false;
        for (int k = 0; k < nl[i]; k++) {
            if (ol[i][k] == ELL) { nlab--; has_ell = true; }
            else count[ol[i][k]]++;
        }
        if (has_ell && ts[i]->rank - nlab > ell_dims) ell_dims = ts[i]->rank - nlab;
        if (has_ell ? nlab > ts[i]->rank : nlab != ts[i]->rank) {
            rc = eir_kerr(ctx, "einsum(): the number of subscripts in the equation (%d) %s the number of dimensions (%d) for operand %u%s", nlab,
                          has_ell ? "is more than" : "does not match", ts[i]->rank, i, has_ell ? "" : " and no ellipsis was given");
            goto done;
        }
    }
    int perm[ELL], pidx = 0, ell_at = 0;
    bool ell_out = false;
    for (int l = 0; l < ELL; l++) perm[l] = -1;
    if (!arrow) {
        pidx = ell_dims;
        ell_out = true;
        for (int l = 0; l < ELL; l++)
            if (count[l] == 1) perm[l] = pidx++;
    } else {
        const char *rhs = arrow + 2;
        size_t rl = strlen(rhs);
        for (size_t i = 0; i < rl; i++) {
            unsigned char c = (unsigned char)rhs[i];
            if (c == ' ') continue;
            if (c == '.') {
                if (ell_out) { rc = eir_kerr(ctx, "einsum(): found '.' for output but an ellipsis (...) was already found"); goto done; }
                if (!(i + 2 < rl && rhs[i + 1] == '.' && rhs[i + 2] == '.')) { rc = eir_kerr(ctx, "einsum(): found '.' for output that is not part of any ellipsis (...)"); goto done; }
                i += 2;
                ell_at = pidx;
                pidx += ell_dims;
                ell_out = true;
                continue;
            }
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
                rc = eir_kerr(ctx, "einsum(): invalid subscript given at index %zu in the equation string, subscripts must be in [a-zA-Z]", lhs_len + 2 + i);
                goto done;
            }
            int l = c <= 'Z' ? c - 'A' : c - 'a' + 26;
            if (!(count[l] > 0 && perm[l] == -1)) {
                rc = eir_kerr(ctx, "einsum(): output subscript %c %s", c, perm[l] > -1 ? "appears more than once in the output" : "does not appear in the equation for any input operand");
                goto done;
            }
            perm[l] = pidx++;
        }
    }
    int nout = pidx;
    if (!ell_out) { ell_at = pidx; pidx += ell_dims; }
    for (int l = 0; l < ELL; l++)
        if (count[l] > 0 && perm[l] == -1) perm[l] = pidx++;
    if (out->rank != nout) { rc = eir_kerr(ctx, "einsum(): the output has %d dims, the equation gives %d", out->rank, nout); goto done; }
    for (uint32_t i = 0; i < nops; i++) {
        int *li = lab + (size_t)i * EIR_MAX_RANK, d = 0;
        for (int k = 0; k < nl[i]; k++) {
            if (ol[i][k] == ELL) {
                int nd = ts[i]->rank - (nl[i] - 1);
                for (int j = ell_dims - nd; j < ell_dims; j++) li[d++] = ell_at + j;
            } else {
                li[d++] = perm[ol[i][k]];
            }
        }
        labs[i] = li;
    }
    rc = contract((int)nops, ts, labs, pidx, path, npath, out, ctx);
done:
    eir_kfree(ol); eir_kfree(nl); eir_kfree(lab); eir_kfree(ts); eir_kfree(labs);
    return rc;
}

/* tensordot(self, other, dims_self, dims_other) */
static int tensordot_run(const tv *x, const tv *y, const int64_t *d1, const int64_t *d2, uint32_t nd, tv *out, eir_kctx *ctx) {
    if (x->dtype != y->dtype) return eir_kerr(ctx, "both inputs should have same dtype");
    int lx[EIR_MAX_RANK], ly[EIR_MAX_RANK];
    bool cx[EIR_MAX_RANK] = {false}, cy[EIR_MAX_RANK] = {false};
    for (int32_t d = 0; d < EIR_MAX_RANK; d++) lx[d] = ly[d] = -1;
    if (nd > EIR_MAX_RANK) return eir_kerr(ctx, "tensordot: too many dims");
    int nfree = 0;
    for (int32_t d = 0; d < x->rank; d++) nfree++;
    for (int32_t d = 0; d < y->rank; d++) nfree++;
    nfree -= 2 * (int)nd;
    for (uint32_t i = 0; i < nd; i++) {
        int32_t a1 = eir_wrap_dim(d1[i], x->rank), a2 = eir_wrap_dim(d2[i], y->rank);
        if (a1 < 0 || a2 < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")",
                                           -(a1 < 0 ? x->rank : y->rank), (a1 < 0 ? x->rank : y->rank) - 1, a1 < 0 ? d1[i] : d2[i]);
        if (cx[a1] || cy[a2]) return eir_kerr(ctx, "dim %d appears multiple times in the list of dims", cx[a1] ? a1 : a2);
        cx[a1] = cy[a2] = true;
        int64_t s1 = x->sizes[a1], s2 = y->sizes[a2];
        if (s1 != 1 && s2 != 1 && s1 != s2)
            return eir_kerr(ctx, "contracted dimensions need to match, but first has size %" PRId64 " in dim %" PRId64 " and second has size %" PRId64 " in dim %" PRId64,
                            s1, d1[i], s2, d2[i]);
        lx[a1] = ly[a2] = nfree + (int)i;
    }
    int p = 0;
    for (int32_t d = 0; d < x->rank; d++) if (!cx[d]) lx[d] = p++;
    for (int32_t d = 0; d < y->rank; d++) if (!cy[d]) ly[d] = p++;
    if (p != out->rank) return eir_kerr(ctx, "tensordot: the output has %d dims, expected %d", out->rank, p);
    const tv *ts[2] = {x, y};
    const int *labs[2] = {lx, ly};
    return contract(2, ts, labs, nfree + (int)nd, NULL, 0, out, ctx);
}

static int k_tensordot(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    if (na < 4 || a[2].kind != EIR_KA_INTS || a[3].kind != EIR_KA_INTS) return eir_kerr(ctx, "tensordot: expected two dim lists");
    if (a[2].n != a[3].n) return eir_kerr(ctx, "both dimension lists should have same length");
    return tensordot_run(x, y, a[2].ints, a[3].ints, a[2].n, out, ctx);
}

/* inner(self, other): a product with a 0-d operand, else tensordot over the last dims */
static int k_inner(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    if (x->rank == 0 || y->rank == 0) {
        eir_karg m[2] = {A_t(x), A_t(y)};
        return k_mul(m, 2, out, 1, ctx);
    }
    if (x->sizes[x->rank - 1] != y->sizes[y->rank - 1]) {
        char b1[128], b2[128];
        return eir_kerr(ctx, "inner() the last dimension must match on both input tensors but got shapes %s and %s",
                        fmt_shape(b1, sizeof b1, x->rank, x->sizes), fmt_shape(b2, sizeof b2, y->rank, y->sizes));
    }
    static const int64_t last = -1;
    return tensordot_run(x, y, &last, &last, 1, out, ctx);
}

/* bilinear(input1, input2, weight, bias?): x1^T W x2 + b, contracted as
 * _trilinear does (input1 with the weight, then with input2) */
static int k_bilinear(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x1);
    NEED_T(1, x2);
    NEED_T(2, w);
    const tv *bias = arg_t(a, na, 3);
    int32_t r = x1->rank;
    if (r != x2->rank) return eir_kerr(ctx, "bilinear(): input dimensions do not match: got %d and %d", r, x2->rank);
    if (r < 1 || w->rank != 3) return eir_kerr(ctx, "bilinear(): expected a 3-d weight and inputs of at least 1 dim");
    for (int32_t i = 0; i + 1 < r; i++)
        if (x1->sizes[i] != x2->sizes[i])
            return eir_kerr(ctx, "bilinear(): input batch dimensions do not match at dim %d: got %" PRId64 " and %" PRId64, i, x1->sizes[i], x2->sizes[i]);
    if (x1->sizes[r - 1] != w->sizes[1])
        return eir_kerr(ctx, "bilinear(): input1 size does not match weight size: got %" PRId64 " but expected %" PRId64, x1->sizes[r - 1], w->sizes[1]);
    if (x2->sizes[r - 1] != w->sizes[2])
        return eir_kerr(ctx, "bilinear(): input2 size does not match weight size: got %" PRId64 " but expected %" PRId64, x2->sizes[r - 1], w->sizes[2]);
    if (bias && (bias->rank < 1 || bias->sizes[bias->rank - 1] != w->sizes[0]))
        return eir_kerr(ctx, "bilinear(): bias size does not match weight size: got %" PRId64 " but expected %" PRId64,
                        bias->rank ? bias->sizes[0] : 1, w->sizes[0]);
    if (out->rank != r) return eir_kerr(ctx, "bilinear(): output rank %d, expected %d", out->rank, r);
    /* positions: batch dims 0..r-2, the weight's out features r-1, i = r, j = r+1 */
    int l1[EIR_MAX_RANK], l2[EIR_MAX_RANK], lw[3] = {r - 1, r, r + 1};
    for (int32_t i = 0; i + 1 < r; i++) l1[i] = l2[i] = i;
    l1[r - 1] = r;
    l2[r - 1] = r + 1;
    const tv *ts[3] = {x1, w, x2};
    const int *labs[3] = {l1, lw, l2};
    int rc = contract(3, ts, labs, r + 2, NULL, 0, out, ctx);
    if (rc || !bias) return rc;
    eir_karg args[3] = {A_t(out), A_t(bias), A_i(1)};
    return k_add(args, 3, out, 1, ctx);
}

/* _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
 * (i1.unsqueeze(expand1) * i2.unsqueeze(expand2) * i3.unsqueeze(expand3)).sum(sumdim),
 * what run_decompositions() leaves of bilinear; i1 with i2 first, then i3 */
static int k_trilinear(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, i1);
    NEED_T(1, i2);
    NEED_T(2, i3);
    for (uint32_t k = 3; k < 7; k++)
        if (na <= k || a[k].kind != EIR_KA_INTS) return eir_kerr(ctx, "_trilinear: expected four dim lists");
    int32_t total = i1->rank + (int32_t)a[3].n;
    if (total > EIR_MAX_RANK * 2 || total >= NLAB) return eir_kerr(ctx, "_trilinear: too many dims");
    bool summed[NLAB] = {false};
    for (uint32_t k = 0; k < a[6].n; k++) {
        if (a[6].ints[k] < 0 || a[6].ints[k] >= total) return eir_kerr(ctx, "_trilinear: sum dim out of range");
        summed[a[6].ints[k]] = true;
    }
    int pos[NLAB], nout = 0, p = 0;
    for (int32_t d = 0; d < total; d++)
        if (!summed[d]) pos[d] = nout++;
    p = nout;
    for (int32_t d = 0; d < total; d++)
        if (summed[d]) pos[d] = p++;
    if (out->rank != nout) return eir_kerr(ctx, "_trilinear: output rank %d, expected %d", out->rank, nout);
    int labs[3][EIR_MAX_RANK];
    const tv *ts[3] = {i1, i2, i3};
    for (int k = 0; k < 3; k++) {
        bool ex[NLAB] = {false};
        for (uint32_t e = 0; e < a[3 + k].n; e++) {
            if (a[3 + k].ints[e] < 0 || a[3 + k].ints[e] >= total) return eir_kerr(ctx, "_trilinear: expand dim out of range");
            ex[a[3 + k].ints[e]] = true;
        }
        int32_t d = 0;
        for (int32_t q = 0; q < total; q++) {
            if (ex[q]) continue;
            if (d >= ts[k]->rank) return eir_kerr(ctx, "_trilinear: operand %d has too few dims", k + 1);
            labs[k][d++] = pos[q];
        }
        if (d != ts[k]->rank) return eir_kerr(ctx, "_trilinear: operand %d has %d dims, expected %d", k + 1, ts[k]->rank, d);
    }
    const int *lp[3] = {labs[0], labs[1], labs[2]};
    return contract(3, ts, lp, p, NULL, 0, out, ctx);
}

/* ======================================================================
 * outer, kron, vdot, addr, addbmm, trace
 * ====================================================================== */

/* outer(self, vec2) / ger: self[:, None] * vec2 */
static int k_outer(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    if (x->rank != 1) return eir_kerr(ctx, "outer: Expected 1-D argument self, but got %d-D", x->rank);
    if (y->rank != 1) return eir_kerr(ctx, "outer: Expected 1-D argument vec2, but got %d-D", y->rank);
    tv xv = *x;
    v_unsq(&xv, 1);
    eir_karg m[2] = {A_t(&xv), A_t(y)};
    return k_mul(m, 2, out, 1, ctx);
}

/* kron(self, other): self and other interleaved as (s0, o0, s1, o1, ...) and
 * multiplied with broadcasting, the product seen through out's dims split in two */
static int k_kron(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    int32_t r = x->rank > y->rank ? x->rank : y->rank;
    if (out->rank != r) return eir_kerr(ctx, "kron: output rank %d, expected %d", out->rank, r);
    bv ops[3];
    for (int k = 0; k < 3; k++) {
        const tv *t = k == 0 ? out : k == 1 ? x : y;
        ops[k].data = t->data;
        ops[k].dt = t->dtype;
        ops[k].rank = 2 * r;
    }
    for (int32_t d = 0; d < r; d++) {
        int32_t dx = d - (r - x->rank), dy = d - (r - y->rank);
        int64_t sx = dx >= 0 ? x->sizes[dx] : 1, sy = dy >= 0 ? y->sizes[dy] : 1;
        if (out->sizes[d] != sx * sy) return eir_kerr(ctx, "kron: output dim %d has size %" PRId64 ", expected %" PRId64, d, out->sizes[d], sx * sy);
        ops[0].sizes[2 * d] = ops[1].sizes[2 * d] = ops[2].sizes[2 * d] = sx;
        ops[0].sizes[2 * d + 1] = ops[1].sizes[2 * d + 1] = ops[2].sizes[2 * d + 1] = sy;
        ops[0].strides[2 * d] = out->strides[d] * sy;
        ops[0].strides[2 * d + 1] = out->strides[d];
        ops[1].strides[2 * d] = dx >= 0 ? x->strides[dx] : 0;
        ops[1].strides[2 * d + 1] = 0;
        ops[2].strides[2 * d] = 0;
        ops[2].strides[2 * d + 1] = dy >= 0 ? y->strides[dy] : 0;
    }
    eir_karg args[2] = {A_none(), A_none()};
    static const int pos[3] = {-1, 0, 1};
    return bv_run(k_mul, args, 2, pos, 3, ops, ctx);
}

/* vdot(self, other): sum(conj(self) * other) of two vectors */
static int k_vdot(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    if (x->rank != 1 || y->rank != 1)
        return eir_kerr(ctx, "1D tensors expected, but got %dD and %dD tensors", x->rank, y->rank);
    if (x->dtype != y->dtype)
        return eir_kerr(ctx, "vdot : expected both vectors to have same dtype, but found %s and %s", dname(x->dtype), dname(y->dtype));
    if (x->sizes[0] != y->sizes[0])
        return eir_kerr(ctx, "inconsistent tensor size, expected tensor [%" PRId64 "] and src [%" PRId64 "] to have the same number of elements, but got %" PRId64 " and %" PRId64 " elements respectively",
                        x->sizes[0], y->sizes[0], x->sizes[0], y->sizes[0]);
    if (x->dtype == EIR_BOOL) return eir_kerr(ctx, "\"dot\" not implemented for 'Bool'");
    if (!eir_is_complex(x->dtype)) {
        eir_karg m[2] = {A_t(x), A_t(y)};
        return k_dot(m, 2, out, 1, ctx);
    }
    double re = 0, im = 0;
    for (int64_t i = 0; i < x->sizes[0]; i++) {
        double ar, ai, br, bi;
        eir_load_c128(at_el(x, i * x->strides[0]), x->dtype, &ar, &ai);
        eir_load_c128(at_el(y, i * y->strides[0]), y->dtype, &br, &bi);
        re += ar * br + ai * bi;
        im += ar * bi - ai * br;
    }
    eir_store_c128(out->data, out->dtype, re, im);
    return 0;
}

/* rounding to a dtype's precision, for arithmetic done in the dtype as torch's kernels do */
static inline double rnd(double v, eir_dtype d) {
    switch (d) {
    case EIR_F32: case EIR_C64: return (float)v;
    case EIR_F16: return eir_f16_to_f32(eir_f32_to_f16((float)v));
    case EIR_BF16: return eir_bf16_to_f32(eir_f32_to_bf16((float)v));
    default: return v;
    }
}

/* addr(self, vec1, vec2, *, beta=1, alpha=1): beta self + alpha vec1 vec2^T,
 * element by element in the dtype (torch's addr kernel; self ignored when
 * beta is 0, logical and/or for bool) */
static int k_addr(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, self);
    NEED_T(1, v1);
    NEED_T(2, v2);
    if (v1->rank != 1) return eir_kerr(ctx, "addr: Expected 1-D argument vec1, but got %d-D", v1->rank);
    if (v2->rank != 1) return eir_kerr(ctx, "addr: Expected 1-D argument vec2, but got %d-D", v2->rank);
    if (out->rank != 2 || out->sizes[0] != v1->sizes[0] || out->sizes[1] != v2->sizes[0])
        return eir_kerr(ctx, "addr: output shape does not fit the vectors");
    eir_scalar beta = arg_sc(a, na, 3, 1), alpha = arg_sc(a, na, 4, 1);
    /* beta and alpha convert checked to the tensor's type (addmm's and addbmm's: to opmath) */
    if (eir_scalar_fits(&beta, out->dtype, ctx) || eir_scalar_fits(&alpha, out->dtype, ctx)) return -1;
    tv sb, x1 = *v1, x2 = *v2;
    if (!eir_tview_broadcast(self, 2, out->sizes, &sb)) {
        char b1[128], b2[128];
        return eir_kerr(ctx, "The expanded size of the tensor must match the existing size: self %s vs %s",
                        fmt_shape(b1, sizeof b1, self->rank, self->sizes), fmt_shape(b2, sizeof b2, 2, out->sizes));
    }
    v_unsq(&x1, 1);
    v_unsq(&x2, 0);
    eir_dtype dt = out->dtype;
    int64_t idx[2] = {0, 0};
    if (eir_tview_numel(out) == 0) return 0;
    bool bzero = beta.kind == EIR_SC_COMPLEX ? beta.f == 0 && beta.im == 0 : beta.kind == EIR_SC_FLOAT ? beta.f == 0 : beta.i == 0;
    /* torch's loop runs the columns of a row in vectors of two AVX2 registers
     * when the row is contiguous, the rest one by one */
    int64_t vec_end = 0;
    int inner = out->strides[1] == 1 || out->sizes[0] <= 1 ? 1 : 0; /* the dim torch's loop runs innermost */
    if ((dt == EIR_F32 || dt == EIR_F64) && out->strides[inner] == 1) {
        /* vectorized when every operand is contiguous there, but one that is broadcast */
        int nzero = (sb.strides[inner] == 0) + (x1.strides[inner] == 0) + (x2.strides[inner] == 0);
        int nunit = (sb.strides[inner] == 1) + (x1.strides[inner] == 1) + (x2.strides[inner] == 1);
        if (nunit == 3 || (nunit == 2 && nzero == 1)) {
            int64_t v2w = dt == EIR_F32 ? 16 : 8;
            vec_end = out->sizes[inner] / v2w * v2w;
        }
    }
    do {
        char *o = (char *)eir_tview_at(out, idx);
        int64_t i1[2] = {idx[0], 0}, i2[2] = {0, idx[1]};
        const char *ps = eir_tview_at(&sb, idx), *p1 = eir_tview_at(&x1, i1), *p2 = eir_tview_at(&x2, i2);
        if (dt == EIR_BOOL) {
            bool bv_ = beta.kind == EIR_SC_FLOAT ? beta.f != 0 : beta.i != 0, av = alpha.kind == EIR_SC_FLOAT ? alpha.f != 0 : alpha.i != 0;
            bool r = av && eir_load_i64(p1, v1->dtype) && eir_load_i64(p2, v2->dtype);
            if (bv_) r = r || eir_load_i64(ps, sb.dtype);
            eir_store_i64(o, dt, r);
        } else if (eir_is_complex(dt)) {
            double sr, si, ar, ai, br, bi, al_r = alpha.f, al_i = alpha.kind == EIR_SC_COMPLEX ? alpha.im : 0;
            double be_r = beta.f, be_i = beta.kind == EIR_SC_COMPLEX ? beta.im : 0;
            eir_load_c128(p1, v1->dtype, &ar, &ai);
            eir_load_c128(p2, v2->dtype, &br, &bi);
            double tr = rnd(al_r * ar - al_i * ai, dt), ti = rnd(al_r * ai + al_i * ar, dt);
            double pr = rnd(tr * br - ti * bi, dt), pim = rnd(tr * bi + ti * br, dt);
            if (!bzero) {
                eir_load_c128(ps, sb.dtype, &sr, &si);
                pr = rnd(rnd(be_r * sr - be_i * si, dt) + pr, dt);
                pim = rnd(rnd(be_r * si + be_i * sr, dt) + pim, dt);
            }
            eir_store_c128(o, dt, pr, pim);
        } else if (eir_is_floating(dt)) {
            double al = rnd(alpha.kind == EIR_SC_FLOAT || alpha.kind == EIR_SC_COMPLEX ? alpha.f : (double)alpha.i, dt);
            double be = rnd(beta.kind == EIR_SC_FLOAT || beta.kind == EIR_SC_COMPLEX ? beta.f : (double)beta.i, dt);
            double u = eir_load_f64(p1, v1->dtype), w = eir_load_f64(p2, v2->dtype), sv = bzero ? 0 : eir_load_f64(ps, sb.dtype);
            double p;
            if (dt == EIR_F32) { /* torch's compiler contracts into an FMA: which product, the vector or the scalar loop decides */
                float t = (float)al * (float)u;
                p = bzero ? t * (float)w : idx[inner] < vec_end ? fmaf(t, (float)w, (float)be * (float)sv) : fmaf((float)be, (float)sv, t * (float)w);
            } else if (dt == EIR_F64) {
                double t = al * u;
                p = bzero ? t * w : idx[inner] < vec_end ? fma(t, w, be * sv) : fma(be, sv, t * w);
            } else {
                p = rnd(rnd(al * u, dt) * w, dt);
                if (!bzero) p = rnd(rnd(be * sv, dt) + p, dt);
            }
            eir_store_f64(o, dt, p);
        } else {
            uint64_t al = (uint64_t)(alpha.kind == EIR_SC_FLOAT ? (int64_t)alpha.f : alpha.i);
            uint64_t be = (uint64_t)(beta.kind == EIR_SC_FLOAT ? (int64_t)beta.f : beta.i);
            /* C++ integer arithmetic: wrapping, truncated to the dtype once */
            uint64_t p = al * (uint64_t)eir_load_i64(p1, v1->dtype) * (uint64_t)eir_load_i64(p2, v2->dtype);
            if (!bzero) p += be * (uint64_t)eir_load_i64(ps, sb.dtype);
            eir_store_i64(o, dt, (int64_t)p);
        }
    } while (next_idx(idx, out->sizes, 2));
    return 0;
}

/* addbmm(self, batch1, batch2, *, beta=1, alpha=1): addmm into the result
 * once per batch, beta applied the first time only (torch's addbmm_impl_) */
static int k_addbmm(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, self);
    NEED_T(1, b1);
    NEED_T(2, b2);
    if (b1->rank != 3) return eir_kerr(ctx, "batch1 must be a 3D tensor");
    if (b2->rank != 3) return eir_kerr(ctx, "batch2 must be a 3D tensor");
    if (b1->sizes[0] != b2->sizes[0])
        return eir_kerr(ctx, "batch1 and batch2 must have same number of batches, got %" PRId64 " and %" PRId64, b1->sizes[0], b2->sizes[0]);
    if (b1->sizes[2] != b2->sizes[1])
        return eir_kerr(ctx, "Incompatible matrix sizes for bmm (%" PRId64 "x%" PRId64 " and %" PRId64 "x%" PRId64 ")", b1->sizes[1], b1->sizes[2], b2->sizes[1], b2->sizes[2]);
    if (out->rank != 2 || out->sizes[0] != b1->sizes[1] || out->sizes[1] != b2->sizes[2])
        return eir_kerr(ctx, "addbmm: output shape does not fit the batches");
    eir_karg beta = na > 3 ? a[3] : A_i(1), alpha = na > 4 ? a[4] : A_i(1);
    /* beta and alpha convert checked to opmath (float for float16 / bfloat16), as addmm's */
    eir_dtype om = out->dtype == EIR_F16 || out->dtype == EIR_BF16 ? EIR_F32 : out->dtype;
    if (eir_scalar_arg_fits(&beta, om, ctx) || eir_scalar_arg_fits(&alpha, om, ctx)) return -1;
    tv sb;
    if (!eir_tview_broadcast(self, 2, out->sizes, &sb)) return eir_kerr(ctx, "addbmm: self does not broadcast to the output");
    int64_t nb = b1->sizes[0];
    eir_scalar bs = arg_sc(a, na, 3, 1);
    bool bzero = bs.kind == EIR_SC_FLOAT || bs.kind == EIR_SC_COMPLEX ? bs.f == 0 && bs.im == 0 : bs.i == 0;
    if (nb == 0) {
        if (bzero) return tv_fill(out, S_ZERO, ctx);
        eir_karg m[2] = {A_t(&sb), A_sc(bs)};
        return k_mul(m, 2, out, 1, ctx);
    }
    eir_scalar as = arg_sc(a, na, 4, 1);
    if ((as.kind == EIR_SC_COMPLEX && as.im != 0) || (bs.kind == EIR_SC_COMPLEX && bs.im != 0)) {
        /* complex alpha or beta: beta self, then alpha (b1[b] @ b2[b]) added batch by batch */
        int rc;
        if (bzero) rc = tv_fill(out, S_ZERO, ctx);
        else { eir_karg m[2] = {A_t(&sb), A_sc(bs)}; rc = k_mul(m, 2, out, 1, ctx); }
        void *buf = rc ? NULL : eir_kalloc((size_t)(eir_tview_numel(out) + 1) * esz(out->dtype));
        if (!rc && !buf) rc = eir_kerr(ctx, "out of memory");
        tv p = v_contig(buf, out->dtype, 2, out->sizes);
        for (int64_t b = 0; b < nb && !rc; b++) {
            tv m1 = *b1, m2 = *b2;
            v_select(&m1, 0, b);
            v_select(&m2, 0, b);
            eir_karg mm[5] = {A_t(&p), A_t(&m1), A_t(&m2), A_i(0), A_i(1)};
            eir_karg ml[2] = {A_t(&p), A_sc(as)};
            if (!(rc = k_addmm(mm, 5, &p, 1, ctx)) && !(rc = k_mul(ml, 2, &p, 1, ctx))) {
                eir_karg ad[3] = {A_t(out), A_t(&p), A_i(1)};
                rc = k_add(ad, 3, out, 1, ctx);
            }
        }
        eir_kfree(buf);
        return rc;
    }
    for (int64_t b = 0; b < nb; b++) {
        tv m1 = *b1, m2 = *b2;
        v_select(&m1, 0, b);
        v_select(&m2, 0, b);
        eir_karg args[5] = {A_t(b == 0 ? &sb : out), A_t(&m1), A_t(&m2), b == 0 ? beta : A_i(1), alpha};
        int rc = k_addmm(args, 5, out, 1, ctx);
        if (rc) return rc;
    }
    return 0;
}

/* trace(self): the sum of a matrix's diagonal (integers sum into int64) */
static int k_trace(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    if (x->rank != 2) return eir_kerr(ctx, "trace: expected a matrix, but got tensor with dim %d", x->rank);
    if (x->dtype == EIR_BOOL) return eir_kerr(ctx, "\"trace\" not implemented for 'Bool'");
    tv d = *x;
    v_diagonal(&d, 0, 0, 1);
    lview s, o;
    memset(&s, 0, sizeof s);
    memset(&o, 0, sizeof o);
    s.data = d.data; s.dt = d.dtype; s.size[0] = d.sizes[0]; s.stride[0] = d.strides[0];
    o.data = out->data; o.dt = out->dtype; o.size[0] = 1;
    bool sum[1] = {true};
    if (d.sizes[0] == 1) { tv t = d; t.rank = 0; return tv_copy(out, &t, ctx); }
    return lv_reduce(&s, &o, 1, sum, ctx);
}

/* ======================================================================
 * diagonals and eye
 * ====================================================================== */

/* diag(self, diagonal=0): a vector onto a matrix's diagonal, or a matrix's diagonal */
static int k_diag(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t k = arg_i(a, na, 1, 0);
    if (x->rank == 1) {
        if (out->rank != 2) return eir_kerr(ctx, "diag: expected a 2-d output");
        int rc = tv_fill(out, S_ZERO, ctx);
        if (rc) return rc;
        tv d = *out;
        v_diagonal(&d, k, 0, 1);
        if (d.sizes[0] != x->sizes[0]) return eir_kerr(ctx, "diag: output shape does not fit the input");
        return tv_copy(&d, x, ctx);
    }
    if (x->rank != 2) return eir_kerr(ctx, "diag(): Supports 1D or 2D tensors. Got %dD", x->rank);
    tv d = *x;
    v_diagonal(&d, k, 0, 1);
    if (out->rank != 1 || out->sizes[0] != d.sizes[0]) return eir_kerr(ctx, "diag: output shape does not fit the input");
    return tv_copy(out, &d, ctx);
}

/* diag_embed(self, offset=0, dim1=-2, dim2=-1): the last dim of self onto
 * diagonals of the (dim1, dim2) planes of a zero tensor */
static int k_diag_embed(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t off = arg_i(a, na, 1, 0);
    int32_t r = out->rank;
    int32_t d1 = eir_wrap_dim(arg_i(a, na, 2, -2), r), d2 = eir_wrap_dim(arg_i(a, na, 3, -1), r);
    if (d1 < 0 || d2 < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -r, r - 1, d1 < 0 ? arg_i(a, na, 2, -2) : arg_i(a, na, 3, -1));
    if (d1 == d2) return eir_kerr(ctx, "diagonal dimensions cannot be identical %" PRId64 ", %" PRId64, arg_i(a, na, 2, -2), arg_i(a, na, 3, -1));
    int rc = tv_fill(out, S_ZERO, ctx);
    if (rc) return rc;
    tv d = *out;
    v_diagonal(&d, off, d1, d2);
    if (!same_sizes(&d, x)) return eir_kerr(ctx, "diag_embed: output shape does not fit the input");
    return tv_copy(&d, x, ctx);
}

/* diagflat(self, offset=0): self flattened (row-major) onto a diagonal */
static int k_diagflat(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t off = arg_i(a, na, 1, 0);
    if (out->rank != 2) return eir_kerr(ctx, "diagflat: expected a 2-d output");
    int rc = tv_fill(out, S_ZERO, ctx);
    if (rc) return rc;
    tv d = *out;
    v_diagonal(&d, off, 0, 1);
    if (d.sizes[0] != eir_tview_numel(x)) return eir_kerr(ctx, "diagflat: output shape does not fit the input");
    tv dv = v_unflatten1(&d, x->rank, x->sizes);
    return tv_copy(&dv, x, ctx);
}

/* block_diag(tensors): each (0-d, 1-d as a row, 2-d) on the diagonal of a zero matrix */
static int k_block_diag(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "block_diag: expected a tensor list");
    if (out->rank != 2) return eir_kerr(ctx, "block_diag: expected a 2-d output");
    int rc = tv_fill(out, S_ZERO, ctx);
    if (rc) return rc;
    int64_t r0 = 0, c0 = 0;
    for (uint32_t i = 0; i < a[0].n; i++) {
        const tv *t = a[0].ts[i];
        if (!t) return eir_kerr(ctx, "block_diag: tensor %u is None", i);
        if (t->rank > 2)
            return eir_kerr(ctx, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %u has %d dimensions", i, t->rank);
        tv m = *t;
        while (m.rank < 2) v_unsq(&m, 0);
        if (r0 + m.sizes[0] > out->sizes[0] || c0 + m.sizes[1] > out->sizes[1]) return eir_kerr(ctx, "block_diag: output shape does not fit the inputs");
        tv blk = *out;
        v_narrow(&blk, 0, r0, m.sizes[0]);
        v_narrow(&blk, 1, c0, m.sizes[1]);
        if ((rc = tv_copy(&blk, &m, ctx))) return rc;
        r0 += m.sizes[0];
        c0 += m.sizes[1];
    }
    return 0;
}

/* eye(n, *, dtype...) / eye.m(n, m, ...) */
static int k_eye(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    int64_t n = arg_i(a, na, 0, 0);
    if (n < 0) return eir_kerr(ctx, "n must be greater or equal to 0, got %" PRId64, n);
    if (out->rank != 2) return eir_kerr(ctx, "eye: expected a 2-d output");
    int rc = tv_fill(out, S_ZERO, ctx);
    if (rc) return rc;
    tv d = *out;
    v_diagonal(&d, 0, 0, 1);
    return tv_fill(&d, S_ONE, ctx);
}
static int k_eye_m(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    int64_t m = arg_i(a, na, 1, 0);
    if (m < 0) return eir_kerr(ctx, "m must be greater or equal to 0, got %" PRId64, m);
    return k_eye(a, na, out, no, ctx);
}

/* ======================================================================
 * shapes
 * ====================================================================== */

/* tile(self, dims): repeat with dims padded by leading 1s; out's dims split
 * into (repeat, size) pairs with self broadcast over the repeat halves */
static int k_tile(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    if (na < 2 || a[1].kind != EIR_KA_INTS) return eir_kerr(ctx, "tile: expected dims");
    uint32_t nd = a[1].n;
    int32_t r = out->rank;
    if ((int32_t)nd > r || x->rank > r) return eir_kerr(ctx, "tile: output rank %d does not fit", r);
    bv o, s;
    o.data = out->data; o.dt = out->dtype; o.rank = 2 * r;
    s.data = x->data; s.dt = x->dtype; s.rank = 2 * r;
    for (int32_t d = 0; d < r; d++) {
        int32_t dr = d - (r - (int32_t)nd), dx = d - (r - x->rank);
        int64_t rep = dr >= 0 ? a[1].ints[dr] : 1, sz = dx >= 0 ? x->sizes[dx] : 1;
        if (rep < 0) return eir_kerr(ctx, "Trying to create tensor with negative dimension %" PRId64 ": [%" PRId64 "]", rep, rep);
        if (out->sizes[d] != rep * sz) return eir_kerr(ctx, "tile: output dim %d has size %" PRId64 ", expected %" PRId64, d, out->sizes[d], rep * sz);
        o.sizes[2 * d] = s.sizes[2 * d] = rep;
        o.sizes[2 * d + 1] = s.sizes[2 * d + 1] = sz;
        o.strides[2 * d] = out->strides[d] * sz;
        o.strides[2 * d + 1] = out->strides[d];
        s.strides[2 * d] = 0;
        s.strides[2 * d + 1] = dx >= 0 ? x->strides[dx] : 0;
    }
    return bv_copy(&o, &s, ctx);
}

/* rot90(self, k=1, dims=[0, 1]): flips and a transpose of self, copied */
static int k_rot90(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t k = arg_i(a, na, 1, 1);
    int64_t dims[2] = {0, 1};
    if (!arg_none(a, na, 2) && a[2].kind == EIR_KA_INTS) {
        if (a[2].n != 2) return eir_kerr(ctx, "expected total rotation dims == 2, but got dims = %u", a[2].n);
        dims[0] = a[2].ints[0];
        dims[1] = a[2].ints[1];
    }
    int32_t r = x->rank;
    if (r < 2) return eir_kerr(ctx, "expected total dims >= 2, but got total dims = %d", r);
    if (dims[0] == dims[1] || llabs(dims[0] - dims[1]) == r)
        return eir_kerr(ctx, "expected rotation dims to be different, but got dim0 = %" PRId64 " and dim1 = %" PRId64, dims[0], dims[1]);
    if (!(dims[0] < r && dims[0] >= -r)) return eir_kerr(ctx, "Rotation dim0 out of range, dim0 = %" PRId64, dims[0]);
    if (!(dims[1] < r && dims[1] >= -r)) return eir_kerr(ctx, "Rotation dim1 out of range, dim1 = %" PRId64, dims[1]);
    int32_t d0 = eir_wrap_dim(dims[0], r), d1 = eir_wrap_dim(dims[1], r);
    k = ((k % 4) + 4) % 4;
    tv v = *x;
    if (k == 1) { v_flip(&v, d1); v_swap(&v, d0, d1); }
    else if (k == 2) { v_flip(&v, d0); v_flip(&v, d1); }
    else if (k == 3) { v_flip(&v, d0); v_swap(&v, d0, d1); }
    if (!same_sizes(&v, out)) return eir_kerr(ctx, "rot90: output shape does not fit the input");
    return tv_copy(out, &v, ctx);
}

/* fliplr (dim 1 of a >= 2-d input) / flipud (dim 0 of a >= 1-d input) */
static int flip_dim(const eir_karg *a, uint32_t na, tv *out, int32_t dim, eir_kctx *ctx) {
    NEED_T(0, x);
    if (x->rank < dim + 1) return eir_kerr(ctx, "Input must be >= %d-d.", dim + 1);
    tv v = *x;
    v_flip(&v, dim);
    return tv_copy(out, &v, ctx);
}
static int k_fliplr(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return flip_dim(a, na, out, 1, ctx); }
static int k_flipud(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return flip_dim(a, na, out, 0, ctx); }

/* meshgrid(tensors, *, indexing="ij"|"xy") */
static int meshgrid(const eir_karg *a, uint32_t na, tv *out, uint32_t no, const char *indexing, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "meshgrid: expected a tensor list");
    uint32_t n = a[0].n;
    if (n == 0) return eir_kerr(ctx, "torch.meshgrid: Expected at least one tensor");
    bool xy;
    if (!strcmp(indexing, "ij")) xy = false;
    else if (!strcmp(indexing, "xy")) xy = true;
    else return eir_kerr(ctx, "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: %s", indexing);
    if (no != n || n > EIR_MAX_RANK) return eir_kerr(ctx, "meshgrid: expected %u outputs", n);
    for (uint32_t i = 0; i < n; i++) {
        const tv *t = a[0].ts[i];
        if (!t || t->rank > 1) return eir_kerr(ctx, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %d-D", t ? t->rank : -1);
        if (t->dtype != a[0].ts[0]->dtype) return eir_kerr(ctx, "torch.meshgrid: all tensors must have the same dtype");
    }
    for (uint32_t i = 0; i < n; i++) {
        const tv *t = a[0].ts[i];
        tv *o = &out[i];
        if (o->rank != (int32_t)n) return eir_kerr(ctx, "meshgrid: output %u has rank %d, expected %u", i, o->rank, n);
        int32_t dim = (int32_t)i;
        if (xy && n >= 2 && i < 2) dim = 1 - (int32_t)i;
        tv s = *t;
        s.rank = (int32_t)n;
        for (int32_t d = 0; d < (int32_t)n; d++) { s.sizes[d] = o->sizes[d]; s.strides[d] = 0; }
        int64_t len = t->rank ? t->sizes[0] : 1;
        if (o->sizes[dim] != len) return eir_kerr(ctx, "meshgrid: output %u does not fit tensor %u", i, i);
        s.strides[dim] = t->rank && len > 1 ? t->strides[0] : 0;
        int rc = tv_copy(o, &s, ctx);
        if (rc) return rc;
    }
    return 0;
}
static int k_meshgrid(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return meshgrid(a, na, out, no, "ij", ctx); }
static int k_meshgrid_ix(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return meshgrid(a, na, out, no, na > 1 && a[1].kind == EIR_KA_STRING ? a[1].str : "ij", ctx);
}

/* broadcast_tensors(tensors): each tensor expanded to the common shape */
static int k_broadcast_tensors(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSORS || no != a[0].n) return eir_kerr(ctx, "broadcast_tensors: expected a tensor list and one output per tensor");
    for (uint32_t i = 0; i < no; i++) {
        const tv *t = a[0].ts[i];
        tv b;
        if (!t || !eir_tview_broadcast(t, out[i].rank, out[i].sizes, &b))
            return eir_kerr(ctx, "broadcast_tensors: tensor %u does not broadcast to the common shape", i);
        int rc = tv_copy(&out[i], &b, ctx);
        if (rc) return rc;
    }
    return 0;
}

/* out = x with out's shape (same elements in row-major order) */
static int copy_reshaped(const tv *x, tv *out, eir_kctx *ctx) {
    if (eir_tview_numel(x) != eir_tview_numel(out)) return eir_kerr(ctx, "reshape: output shape does not fit the input");
    tv v;
    if (v_reshape(x, out->rank, out->sizes, &v)) return tv_copy(out, &v, ctx);
    /* x's layout cannot be viewed as out's shape: go through a contiguous copy */
    void *buf = eir_kalloc((size_t)(eir_tview_numel(x) + 1) * esz(x->dtype));
    if (!buf) return eir_kerr(ctx, "out of memory");
    tv c = v_contig(buf, x->dtype, x->rank, x->sizes);
    int rc = tv_copy(&c, x, ctx);
    if (!rc) {
        tv cv = v_contig(buf, x->dtype, out->rank, out->sizes);
        rc = tv_copy(out, &cv, ctx);
    }
    eir_kfree(buf);
    return rc;
}

/* atleast_Nd(self) and .Sequence(tensors): each reshaped to its output */
static int k_atleast(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    if (na >= 1 && a[0].kind == EIR_KA_TENSORS) {
        if (no != a[0].n) return eir_kerr(ctx, "atleast_nd: expected one output per tensor");
        for (uint32_t i = 0; i < no; i++) {
            if (!a[0].ts[i]) return eir_kerr(ctx, "atleast_nd: tensor %u is None", i);
            int rc = copy_reshaped(a[0].ts[i], &out[i], ctx);
            if (rc) return rc;
        }
        return 0;
    }
    NEED_T(0, x);
    return copy_reshaped(x, out, ctx);
}

/* unsafe_split(self, split_size, dim=0) / unsafe_split_with_sizes / unsafe_chunk:
 * consecutive slices along dim, sized as the outputs are */
static int k_unsafe_split(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int32_t dim = eir_wrap_dim(arg_i(a, na, 2, 0), x->rank);
    if (dim < 0 || x->rank == 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -x->rank, x->rank - 1, arg_i(a, na, 2, 0));
    int64_t at = 0;
    for (uint32_t i = 0; i < no; i++) {
        if (out[i].rank != x->rank) return eir_kerr(ctx, "split: output %u has rank %d", i, out[i].rank);
        int64_t len = out[i].sizes[dim];
        if (at + len > x->sizes[dim]) return eir_kerr(ctx, "split: the outputs are larger than the input along dim %d", dim);
        tv s = *x;
        v_narrow(&s, dim, at, len);
        if (!same_sizes(&s, &out[i])) return eir_kerr(ctx, "split: output %u does not fit the input", i);
        int rc = tv_copy(&out[i], &s, ctx);
        if (rc) return rc;
        at += len;
    }
    return 0;
}

/* tensor_split.tensor_indices_or_sections(self, tensor_indices_or_sections, dim=0):
 * a 0-d int64 tensor is a number of sections, a 1-d one the split indices
 * (TensorShape.cpp); output k is at::slice(self, dim, start, end). The sizes
 * depend on the tensor's values, so the runtime runs the op as a copy, sized
 * by eir_compose_presize. */
static int ts_bounds(const eir_karg *a, uint32_t na, const tv *x, uint32_t k, int32_t *dim, int64_t *start, int64_t *end,
                     eir_kctx *ctx) {
    const tv *t = arg_t(a, na, 1);
    if (x->rank == 0)
        return eir_kerr(ctx, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims");
    if (!t) return eir_kerr(ctx, "tensor_split: expected a tensor of indices or sections");
    if (t->dtype != EIR_I64)
        return eir_kerr(ctx, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s", dname(t->dtype));
    if (t->rank > 1)
        return eir_kerr(ctx, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with %d dims", t->rank);
    int64_t d0 = arg_i(a, na, 2, 0);
    *dim = eir_wrap_dim(d0, x->rank);
    if (*dim < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -x->rank, x->rank - 1, d0);
    int64_t n = x->sizes[*dim];
    if (t->rank == 0) {
        int64_t sections = eir_load_i64(t->data, t->dtype);
        if (sections <= 0) return eir_kerr(ctx, "number of sections must be larger than 0, got %" PRId64, sections);
        if ((int64_t)k >= sections) return eir_kerr(ctx, "tensor_split: %" PRId64 " sections, the program has more outputs", sections);
        int64_t q = n / sections, r = n % sections, kk = (int64_t)k;
        *start = kk * q + (kk < r ? kk : r);
        *end = *start + q + (kk < r ? 1 : 0);
        return 0;
    }
    int64_t m = t->sizes[0];
    if ((int64_t)k > m) return eir_kerr(ctx, "tensor_split: %" PRId64 " indices, the program has more outputs", m);
    const char *p = (const char *)t->data;
    int64_t es = (int64_t)eir_dtype_size(t->dtype) * t->strides[0];
    int64_t s0 = k == 0 ? 0 : eir_load_i64(p + (int64_t)(k - 1) * es, t->dtype);
    int64_t e0 = (int64_t)k == m ? n : eir_load_i64(p + (int64_t)k * es, t->dtype);
    /* at::slice: negative ends count from the back, then clamp to [0, n], end >= start */
    if (s0 < 0) s0 += n;
    if (e0 < 0) e0 += n;
    s0 = s0 < 0 ? 0 : s0 > n ? n : s0;
    e0 = e0 < s0 ? s0 : e0 > n ? n : e0;
    *start = s0;
    *end = e0;
    return 0;
}
static int k_tensor_split_t(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    const tv *t = arg_t(a, na, 1);
    if (t && t->rank == 0 && t->dtype == EIR_I64 && eir_load_i64(t->data, t->dtype) != (int64_t)no)
        return eir_kerr(ctx, "tensor_split: %" PRId64 " sections, the program was exported for %u", eir_load_i64(t->data, t->dtype), no);
    if (t && t->rank == 1 && t->sizes[0] + 1 != (int64_t)no)
        return eir_kerr(ctx, "tensor_split: %" PRId64 " indices, the program was exported for %u", t->sizes[0], no - 1);
    for (uint32_t k = 0; k < no; k++) {
        int32_t dim;
        int64_t st, en;
        if (ts_bounds(a, na, x, k, &dim, &st, &en, ctx)) return -1;
        tv s = *x;
        v_narrow(&s, dim, st, en - st);
        if (!same_sizes(&s, &out[k])) return eir_kerr(ctx, "tensor_split: output %u does not fit the input", k);
        int rc = tv_copy(&out[k], &s, ctx);
        if (rc) return rc;
    }
    return 0;
}

/* repeat_interleave.self_int(self, repeats, dim=None, *, output_size=None) */
static int k_repeat_interleave_int(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t rep = arg_i(a, na, 1, 1);
    if (rep < 0) return eir_kerr(ctx, "repeats can not be negative");
    bv o, s;
    o.data = out->data; o.dt = out->dtype;
    s.data = x->data; s.dt = x->dtype;
    if (arg_none(a, na, 2)) { /* flattened: out[i * rep + k] = x.flatten()[i] */
        if (out->rank != 1 || out->sizes[0] != eir_tview_numel(x) * rep) return eir_kerr(ctx, "repeat_interleave: output shape does not fit");
        o.rank = s.rank = x->rank + 1;
        int64_t st = out->strides[0];
        o.sizes[x->rank] = s.sizes[x->rank] = rep;
        o.strides[x->rank] = st;
        s.strides[x->rank] = 0;
        st *= rep;
        for (int32_t d = x->rank - 1; d >= 0; d--) {
            o.sizes[d] = s.sizes[d] = x->sizes[d];
            o.strides[d] = st;
            s.strides[d] = x->strides[d];
            st *= x->sizes[d];
        }
        return bv_copy(&o, &s, ctx);
    }
    int32_t r = x->rank ? x->rank : 1;
    tv xx = *x;
    if (x->rank == 0) v_unsq(&xx, 0);
    int32_t dim = eir_wrap_dim(arg_i(a, na, 2, 0), r);
    if (dim < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -r, r - 1, arg_i(a, na, 2, 0));
    if (out->rank != r || out->sizes[dim] != xx.sizes[dim] * rep) return eir_kerr(ctx, "repeat_interleave: output shape does not fit");
    o.rank = s.rank = r + 1;
    for (int32_t d = 0, k = 0; d < r; d++, k++) {
        o.sizes[k] = s.sizes[k] = xx.sizes[d];
        s.strides[k] = xx.strides[d];
        if (d == dim) {
            o.strides[k] = out->strides[d] * rep;
            k++;
            o.sizes[k] = s.sizes[k] = rep;
            o.strides[k] = out->strides[d];
            s.strides[k] = 0;
        } else {
            o.strides[k] = out->strides[d];
        }
    }
    return bv_copy(&o, &s, ctx);
}

/* pixel_shuffle(self, r): (*, C r^2, H, W) -> (*, C, H r, W r) */
static int pixel_shuffle(const tv *x, tv *out, int64_t r, bool inverse, eir_kctx *ctx) {
    const char *nm = inverse ? "pixel_unshuffle" : "pixel_shuffle";
    if (x->rank < 3) return eir_kerr(ctx, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)", nm, x->rank);
    if (r <= 0) return eir_kerr(ctx, "%s expects a positive %s, but got %" PRId64, nm, inverse ? "downscale_factor" : "upscale_factor", r);
    if (out->rank != x->rank) return eir_kerr(ctx, "%s: output rank %d", nm, out->rank);
    int32_t nb = x->rank - 3;
    const tv *big = inverse ? x : out, *small = inverse ? out : x; /* big: (C, H r, W r); small: (C r^2, H, W) */
    int64_t C = big->sizes[nb], H = small->sizes[nb + 1], W = small->sizes[nb + 2];
    if (!inverse && x->sizes[nb] % (r * r) != 0)
        return eir_kerr(ctx, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%" PRId64 " is not divisible by %" PRId64, x->sizes[nb], r * r);
    if (inverse && (x->sizes[nb + 1] % r != 0 || x->sizes[nb + 2] % r != 0))
        return eir_kerr(ctx, "pixel_unshuffle expects %s to be divisible by downscale_factor, but input.size(%d)=%" PRId64 " is not divisible by %" PRId64,
                        x->sizes[nb + 1] % r ? "height" : "width", x->sizes[nb + 1] % r ? -2 : -1, x->sizes[nb + 1] % r ? x->sizes[nb + 1] : x->sizes[nb + 2], r);
    if (small->sizes[nb] != C * r * r || big->sizes[nb + 1] != H * r || big->sizes[nb + 2] != W * r)
        return eir_kerr(ctx, "%s: output shape does not fit the input", nm);
    /* both as (*, C, H, r, W, r): big splits H r and W r; small splits C r^2 into (C, r, r) */
    bv b, s;
    b.data = big->data; b.dt = big->dtype; b.rank = nb + 5;
    s.data = small->data; s.dt = small->dtype; s.rank = nb + 5;
    for (int32_t d = 0; d < nb; d++) {
        b.sizes[d] = s.sizes[d] = big->sizes[d];
        b.strides[d] = big->strides[d];
        s.strides[d] = small->strides[d];
    }
    int64_t sz[5] = {C, H, r, W, r};
    for (int k = 0; k < 5; k++) b.sizes[nb + k] = s.sizes[nb + k] = sz[k];
    int64_t bc = big->strides[nb], bh = big->strides[nb + 1], bw = big->strides[nb + 2];
    int64_t sc = small->strides[nb], sh = small->strides[nb + 1], sw = small->strides[nb + 2];
    int64_t bst[5] = {bc, bh * r, bh, bw * r, bw}, sst[5] = {sc * r * r, sh, sc * r, sw, sc};
    for (int k = 0; k < 5; k++) { b.strides[nb + k] = bst[k]; s.strides[nb + k] = sst[k]; }
    return inverse ? bv_copy(&s, &b, ctx) : bv_copy(&b, &s, ctx);
}
static int k_pixel_shuffle(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    return pixel_shuffle(x, out, arg_i(a, na, 1, 1), false, ctx);
}
static int k_pixel_unshuffle(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    return pixel_shuffle(x, out, arg_i(a, na, 1, 1), true, ctx);
}

/* channel_shuffle(self, groups): (N, g, C/g, *) transposed to (N, C/g, g, *) */
static int k_channel_shuffle(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t g = arg_i(a, na, 1, 1);
    if (g <= 0) return eir_kerr(ctx, "Number of groups to divide channels in must be positive. Value of groups:%" PRId64, g);
    if (x->rank <= 2) return eir_kerr(ctx, "channel_shuffle expects input to have at least 3 dimensions, but got input with %d dimension(s)", x->rank);
    int64_t C = x->sizes[1];
    if (C % g != 0) return eir_kerr(ctx, "Number of channels must be divisible by groups. Got %" PRId64 " channels and %" PRId64 " groups.", C, g);
    if (!same_sizes(x, out)) return eir_kerr(ctx, "channel_shuffle: output shape does not fit the input");
    bv o = bv_of(out), s = bv_of(x);
    o.rank = s.rank = x->rank + 1;
    for (int32_t d = x->rank - 1; d >= 2; d--) {
        o.sizes[d + 1] = s.sizes[d + 1] = x->sizes[d];
        o.strides[d + 1] = out->strides[d];
        s.strides[d + 1] = x->strides[d];
    }
    int64_t cg = C / g;
    o.sizes[1] = s.sizes[1] = cg;
    o.sizes[2] = s.sizes[2] = g;
    o.strides[1] = out->strides[1] * g;
    o.strides[2] = out->strides[1];
    s.strides[1] = x->strides[1];
    s.strides[2] = x->strides[1] * cg;
    return bv_copy(&o, &s, ctx);
}

/* cartesian_prod(tensors): column j of the (prod n_i, k) output is tensor j
 * broadcast over the others' dims (meshgrid, 'ij'), row-major */
static int k_cartesian_prod(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSORS || a[0].n == 0) return eir_kerr(ctx, "cartesian_prod: expected a non-empty tensor list");
    uint32_t n = a[0].n;
    for (uint32_t i = 0; i < n; i++) {
        const tv *t = a[0].ts[i];
        if (!t || t->rank != 1) {
            char b[128];
            return eir_kerr(ctx, "Expect a 1D vector, but got shape %s", t ? fmt_shape(b, sizeof b, t->rank, t->sizes) : "None");
        }
    }
    if (n == 1) return tv_copy(out, a[0].ts[0], ctx);
    if (n > BMAX || out->rank != 2 || out->sizes[1] != (int64_t)n) return eir_kerr(ctx, "cartesian_prod: output shape does not fit");
    for (uint32_t j = 0; j < n; j++) {
        bv o, s;
        o.data = (char *)out->data + j * out->strides[1] * (int64_t)esz(out->dtype);
        o.dt = out->dtype;
        s.data = a[0].ts[j]->data;
        s.dt = a[0].ts[j]->dtype;
        o.rank = s.rank = (int32_t)n;
        int64_t st = out->strides[0];
        for (int32_t d = (int32_t)n - 1; d >= 0; d--) {
            o.sizes[d] = s.sizes[d] = a[0].ts[d]->sizes[0];
            o.strides[d] = st;
            s.strides[d] = d == (int32_t)j ? a[0].ts[j]->strides[0] : 0;
            st *= a[0].ts[d]->sizes[0];
        }
        int rc = bv_copy(&o, &s, ctx);
        if (rc) return rc;
    }
    return 0;
}

/* C(n, r), or C(n + r - 1, r) with replacement */
static int64_t n_combinations(int64_t n, int64_t r, bool repl) {
    if (r == 0) return 0; /* torch returns an empty tensor for r = 0 */
    if (repl) n = n + r - 1;
    if (r > n || n <= 0) return 0;
    int64_t c = 1;
    for (int64_t i = 1; i <= r; i++) c = c * (n - r + i) / i;
    return c;
}

/* combinations(self, r=2, with_replacement=False): the r-tuples of self's
 * elements at increasing (non-decreasing) positions, lexicographically */
static int k_combinations(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t r = arg_i(a, na, 1, 2);
    bool repl = arg_i(a, na, 2, 0) != 0;
    if (x->rank != 1) {
        char b[128];
        return eir_kerr(ctx, "Expect a 1D vector, but got shape %s", fmt_shape(b, sizeof b, x->rank, x->sizes));
    }
    if (r < 0) return eir_kerr(ctx, "Expect a non-negative number, but got %" PRId64, r);
    int64_t n = x->sizes[0], count = n_combinations(n, r, repl);
    if (r == 0) return 0;
    if (r > BMAX) return eir_kerr(ctx, "combinations: r = %" PRId64 " is too large", r);
    if (out->rank != 2 || out->sizes[0] != count || out->sizes[1] != r) return eir_kerr(ctx, "combinations: output shape does not fit");
    if (count == 0) return 0;
    int64_t idx[BMAX];
    for (int64_t k = 0; k < r; k++) idx[k] = repl ? 0 : k;
    size_t es = esz(x->dtype);
    for (int64_t row = 0; row < count; row++) {
        for (int64_t k = 0; k < r; k++)
            memcpy(at_el(out, row * out->strides[0] + k * out->strides[1]), at_el(x, idx[k] * x->strides[0]), es);
        /* next tuple */
        int64_t k = r - 1;
        while (k >= 0 && idx[k] == (repl ? n - 1 : n - r + k)) k--;
        if (k < 0) break;
        idx[k]++;
        for (int64_t q = k + 1; q < r; q++) idx[q] = repl ? idx[k] : idx[q - 1] + 1;
    }
    return 0;
}

/* pad(self, pad, mode="constant", value=None) */
static int pad_circular(const tv *x, const int64_t *pad, uint32_t np, tv *out, eir_kctx *ctx);
static int k_pad(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    if (na < 2 || a[1].kind != EIR_KA_INTS) return eir_kerr(ctx, "pad: expected a pad list");
    const char *mode = na > 2 && a[2].kind == EIR_KA_STRING ? a[2].str : "constant";
    bool has_value = !arg_none(a, na, 3);
    uint32_t np = a[1].n;
    if (np % 2) return eir_kerr(ctx, "Padding length must be divisible by 2");
    if ((int32_t)np > 2 * x->rank)
        return eir_kerr(ctx, "Padding length should be less than or equal to two times the input dimension but got padding length %u and input of dimension %d", np, x->rank);
    if (!strcmp(mode, "constant")) {
        eir_karg args[3] = {A_t(x), a[1], has_value ? A_f(arg_f(a, na, 3, 0)) : A_i(0)};
        return k_cpad(args, 3, out, 1, ctx);
    }
    if (has_value) return eir_kerr(ctx, "Padding mode \"%s\" doesn't take in value argument", mode);
    eir_karg args[2] = {A_t(x), a[1]};
    if (!strcmp(mode, "reflect")) {
        if (np == 2) return k_reflect1(args, 2, out, 1, ctx);
        if (np == 4) return k_reflect2(args, 2, out, 1, ctx);
        if (np == 6) return k_reflect3(args, 2, out, 1, ctx);
    } else if (!strcmp(mode, "replicate")) {
        if (np == 2) return k_repl1(args, 2, out, 1, ctx);
        if (np == 4) return k_repl2(args, 2, out, 1, ctx);
        if (np == 6) return k_repl3(args, 2, out, 1, ctx);
    } else if (!strcmp(mode, "circular")) {
        return pad_circular(x, a[1].ints, np, out, ctx);
    } else {
        return eir_kerr(ctx, "Unrecognised padding mode %s", mode);
    }
    return eir_kerr(ctx, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
}

/* torch's _pad_circular: the input (cropped by negative pads) in the
 * middle, then each padded dim's borders copied from the opposite side of
 * the output, dim by dim (corners written more than once, as in torch) */
static int pad_circular(const tv *x, const int64_t *pad, uint32_t np, tv *out, eir_kctx *ctx) {
    int32_t nd = (int32_t)(np / 2), nnp = x->rank - nd;
    if (nnp != 1 && nnp != 2)
        return eir_kerr(ctx, "Invalid padding size, expected 1 or 2 non-padded dimensions, which would be equivalent to padding of length %d or %d respectively but got %u",
                        (x->rank - 1) * 2, (x->rank - 2) * 2, np);
    if (out->rank != x->rank) return eir_kerr(ctx, "pad: output rank %d", out->rank);
    for (int32_t i = 0; i < nd; i++) {
        int64_t pl = pad[2 * (nd - i - 1)], pr = pad[2 * (nd - i - 1) + 1], size = x->sizes[nnp + i];
        if (!(pl <= size && pr <= size)) return eir_kerr(ctx, "Padding value causes wrapping around more than once.");
        if (size + pl + pr < 0) return eir_kerr(ctx, "Negative padding value is resulting in an empty dimension");
        if (out->sizes[nnp + i] != size + pl + pr) return eir_kerr(ctx, "pad: output shape does not fit");
    }
    tv os = *out, is = *x;
    for (int32_t i = 0; i < nd; i++) {
        int32_t dim = nd - i + nnp - 1;
        int64_t pl = pad[2 * i], pr = pad[2 * i + 1];
        int64_t ol = pl > 0 ? pl : 0, orr = pr > 0 ? pr : 0, il = -pl > 0 ? -pl : 0, ir = -pr > 0 ? -pr : 0;
        v_narrow(&os, dim, ol, out->sizes[dim] - orr - ol);
        v_narrow(&is, dim, il, x->sizes[dim] - ir - il);
    }
    int rc = tv_copy(&os, &is, ctx);
    for (int32_t i = 0; i < nd && !rc; i++) {
        int32_t dim = nd - i + nnp - 1;
        int64_t pl = pad[2 * i], pr = pad[2 * i + 1], n = out->sizes[dim];
        int64_t prp = pr > 0 ? pr : 0, plp = pl > 0 ? pl : 0;
        if (pl > 0) {
            tv d = *out, s = *out;
            v_narrow(&d, dim, 0, pl);
            v_narrow(&s, dim, n - pl - prp, pl);
            rc = tv_copy(&d, &s, ctx);
        }
        if (!rc && pr > 0) {
            tv d = *out, s = *out;
            v_narrow(&d, dim, n - pr, pr);
            v_narrow(&s, dim, plp, pr);
            rc = tv_copy(&d, &s, ctx);
        }
    }
    return rc;
}

/* ======================================================================
 * indexing
 * ====================================================================== */

static bool is_index_dtype(eir_dtype d) { return d == EIR_I64 || d == EIR_I32; }

/* out = self unless out is self (an in-place call) */
static int copy_self(tv *out, const tv *self, eir_kctx *ctx) {
    if (same_view(out, self)) return 0;
    return tv_copy(out, self, ctx);
}

/* element a += b in dtype d (bool: or), for accumulating writes */
static void acc_add(char *pa, const char *pb, eir_dtype d) {
    if (eir_is_complex(d)) {
        double ar, ai, br, bi;
        eir_load_c128(pa, d, &ar, &ai);
        eir_load_c128(pb, d, &br, &bi);
        eir_store_c128(pa, d, ar + br, ai + bi);
    } else if (eir_is_floating(d)) {
        eir_store_f64(pa, d, eir_load_f64(pa, d) + eir_load_f64(pb, d));
    } else if (d == EIR_BOOL) {
        *(uint8_t *)pa = *(uint8_t *)pa || *(const uint8_t *)pb;
    } else {
        eir_store_i64(pa, d, (int64_t)((uint64_t)eir_load_i64(pa, d) + (uint64_t)eir_load_i64(pb, d)));
    }
}

/* take(self, index): self flattened, read at index (negative wraps) */
static int k_take(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, ix);
    if (!is_index_dtype(ix->dtype) && ix->dtype != EIR_I64) return eir_kerr(ctx, "take(): Expected a long tensor for index, but got %s", dname(ix->dtype));
    if (!same_sizes(out, ix)) return eir_kerr(ctx, "take: output shape does not fit the index");
    int64_t n = eir_tview_numel(x), m = eir_tview_numel(ix);
    if (m == 0) return 0;
    if (n == 0) return eir_kerr(ctx, "take(): tried to take from an empty tensor");
    size_t es = esz(x->dtype);
    int64_t idx[EIR_MAX_RANK] = {0};
    do {
        int64_t i = eir_load_i64(eir_tview_at(ix, idx), ix->dtype);
        if (i < -n || i >= n) return eir_kerr(ctx, "out of range: tried to access index %" PRId64 " on a tensor of %" PRId64 " elements.", i, n);
        if (i < 0) i += n;
        memcpy(eir_tview_at(out, idx), at_el(x, ravel_off(x, i)), es);
    } while (next_idx(idx, ix->sizes, ix->rank));
    return 0;
}

/* take_along_dim(self, indices, dim=None): gather along dim of self and
 * indices broadcast against each other (indices taken modulo the dim's
 * size), or of both flattened */
static int k_take_along_dim(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, ix);
    if (!eir_is_integral(ix->dtype, false))
        return eir_kerr(ctx, "torch.take_along_dim(): dtype of indices should be int but got %s instead", dname(ix->dtype));
    size_t es = esz(x->dtype);
    if (arg_none(a, na, 2)) {
        int64_t n = eir_tview_numel(x), m = eir_tview_numel(ix);
        if (out->rank != 1 || out->sizes[0] != m) return eir_kerr(ctx, "take_along_dim: output shape does not fit");
        int64_t idx[EIR_MAX_RANK] = {0}, k = 0;
        if (m == 0) return 0;
        do {
            int64_t i = eir_load_i64(eir_tview_at(ix, idx), ix->dtype);
            if (i < 0 || i >= n) return eir_kerr(ctx, "index %" PRId64 " is out of bounds for dimension 0 with size %" PRId64, i, n);
            memcpy(at_el(out, k++ * out->strides[0]), at_el(x, ravel_off(x, i)), es);
        } while (next_idx(idx, ix->sizes, ix->rank));
        return 0;
    }
    if (x->rank != ix->rank)
        return eir_kerr(ctx, "torch.take_along_dim(): input and indices should have the same number of dimensions, but got %d dimensions for input, and %d dimensions for indices",
                        x->rank, ix->rank);
    int32_t r = x->rank;
    int32_t dim = eir_wrap_dim(arg_i(a, na, 2, 0), r);
    if (dim < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -r, r - 1, arg_i(a, na, 2, 0));
    if (out->rank != r) return eir_kerr(ctx, "take_along_dim: output rank %d", out->rank);
    tv xb = *x, ib = *ix;
    for (int32_t d = 0; d < r; d++) {
        if (d == dim) {
            if (out->sizes[d] != ix->sizes[d] && ix->sizes[d] != 1) return eir_kerr(ctx, "take_along_dim: output shape does not fit");
            if (ix->sizes[d] == 1) ib.strides[d] = 0;
            ib.sizes[d] = out->sizes[d];
            continue;
        }
        int64_t s = out->sizes[d];
        if ((x->sizes[d] != s && x->sizes[d] != 1) || (ix->sizes[d] != s && ix->sizes[d] != 1))
            return eir_kerr(ctx, "shape mismatch: input and indices do not broadcast at dim %d", d);
        if (x->sizes[d] == 1) xb.strides[d] = 0;
        if (ix->sizes[d] == 1) ib.strides[d] = 0;
        xb.sizes[d] = ib.sizes[d] = s;
    }
    int64_t n = x->sizes[dim];
    if (eir_tview_numel(out) == 0) return 0;
    if (n == 0) return eir_kerr(ctx, "ZeroDivisionError");
    int64_t idx[EIR_MAX_RANK] = {0};
    do {
        int64_t i = eir_load_i64(eir_tview_at(&ib, idx), ib.dtype) % n;
        if (i < 0) i += n;
        int64_t save = idx[dim];
        idx[dim] = i;
        const char *src = eir_tview_at(&xb, idx);
        idx[dim] = save;
        memcpy(eir_tview_at(out, idx), src, es);
    } while (next_idx(idx, out->sizes, r));
    return 0;
}

/* put(self, index, source, accumulate=False): self flattened, written at index */
static int k_put(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, ix);
    NEED_T(2, src);
    bool accumulate = arg_i(a, na, 3, 0) != 0;
    if (ix->dtype != EIR_I64) return eir_kerr(ctx, "put_(): Expected a long tensor for index, but got %s", dname(ix->dtype));
    if (src->dtype != x->dtype)
        return eir_kerr(ctx, "put_(): self and source expected to have the same dtype, but got self.dtype = %s and source.dtype = %s", dname(x->dtype), dname(src->dtype));
    int64_t m = eir_tview_numel(ix), n = eir_tview_numel(x);
    if (eir_tview_numel(src) != m)
        return eir_kerr(ctx, "put_(): Expected source and index to have the same number of elements, but got source.numel() = %" PRId64 ", index.numel() = %" PRId64,
                        eir_tview_numel(src), m);
    if (!same_sizes(out, x)) return eir_kerr(ctx, "put: output shape does not fit");
    int rc = copy_self(out, x, ctx);
    if (rc || m == 0) return rc;
    if (n == 0) return eir_kerr(ctx, "put_(): Tried to put elements into an empty tensor");
    size_t es = esz(x->dtype);
    int64_t idx[EIR_MAX_RANK] = {0}, k = 0;
    do {
        int64_t i = eir_load_i64(eir_tview_at(ix, idx), ix->dtype);
        if (i < -n || i >= n) return eir_kerr(ctx, "out of range: tried to access index %" PRId64 " on a tensor of %" PRId64 " elements.", i, n);
        if (i < 0) i += n;
        char *d = at_el(out, ravel_off(out, i));
        const char *s = at_el(src, ravel_off(src, k++));
        if (accumulate) acc_add(d, s, x->dtype);
        else memcpy(d, s, es);
    } while (next_idx(idx, ix->sizes, ix->rank));
    return 0;
}

/* index arguments shared by index_copy / index_fill / index_reduce: self of
 * rank 0 is seen as one element along dim 0 */
static int index_common(const char *op, const tv *x, int64_t dim_arg, const tv *ix, tv *xs, int32_t *dim, eir_kctx *ctx) {
    *xs = *x;
    if (xs->rank == 0) v_unsq(xs, 0);
    *dim = eir_wrap_dim(dim_arg, x->rank);
    if (*dim < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -(x->rank ? x->rank : 1), x->rank ? x->rank - 1 : 0, dim_arg);
    if (ix->rank > 1) return eir_kerr(ctx, "%s(): Index should have dimension 1 or 0 (got %d)", op, ix->rank);
    return 0;
}
static int64_t index_at(const tv *ix, int64_t i) { return eir_load_i64(at_el(ix, ix->rank ? i * ix->strides[0] : 0), ix->dtype); }

/* index_copy(self, dim, index, source): out.select(dim, index[i]) = source.select(dim, i) */
static int k_index_copy(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(2, ix);
    NEED_T(3, src);
    tv xs, os = *out, ss = *src;
    int32_t dim;
    int rc = index_common("index_copy_", x, arg_i(a, na, 1, 0), ix, &xs, &dim, ctx);
    if (rc) return rc;
    if (ix->dtype != EIR_I64) return eir_kerr(ctx, "index_copy_(): Expected a long tensor for index, but got %s", dname(ix->dtype));
    if (os.rank == 0) v_unsq(&os, 0);
    if (ss.rank == 0) v_unsq(&ss, 0);
    int64_t m = eir_tview_numel(ix), n = xs.sizes[dim];
    if (ss.sizes[dim] != m && !(src->rank == 0 && m == 1))
        return eir_kerr(ctx, "index_copy_(): Number of indices (%" PRId64 ") should be equal to source.size(dim) (%" PRId64 ")", m, ss.sizes[dim]);
    if ((rc = copy_self(out, x, ctx))) return rc;
    for (int64_t i = 0; i < m; i++) {
        int64_t k = index_at(ix, i);
        if (k < 0 || k >= n) return eir_kerr(ctx, "index_copy_(): index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, k, dim, n);
        tv d = os, s = ss;
        v_select(&d, dim, k);
        v_select(&s, dim, i);
        if ((rc = tv_copy(&d, &s, ctx))) return rc;
    }
    return 0;
}

/* index_fill(self, dim, index, value): the selected slices set to value (negative indices wrap) */
static int k_index_fill(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(2, ix);
    tv xs, os = *out;
    int32_t dim;
    int rc = index_common("index_fill_", x, arg_i(a, na, 1, 0), ix, &xs, &dim, ctx);
    if (rc) return rc;
    if (ix->dtype != EIR_I64) return eir_kerr(ctx, "index_fill_(): Expected dtype int64 for index.");
    const tv *vt = arg_t(a, na, 3);
    if (vt && vt->rank != 0)
        return eir_kerr(ctx, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d dimension(s).", vt->rank);
    if (!vt) {
        eir_scalar v = arg_sc(a, na, 3, 0);
        if (eir_scalar_fits(&v, x->dtype, ctx)) return -1;
    } else if (eir_item_fits(vt, x->dtype, ctx)) {
        return -1;
    }
    if (os.rank == 0) v_unsq(&os, 0);
    if ((rc = copy_self(out, x, ctx))) return rc;
    int64_t m = eir_tview_numel(ix), n = xs.sizes[dim];
    for (int64_t i = 0; i < m; i++) {
        int64_t k0 = index_at(ix, i), k = k0 < 0 ? k0 + n : k0;
        if (k < 0 || k >= n) return eir_kerr(ctx, "index %" PRId64 " is out of bounds for dimension %d with size %" PRId64, k0, dim, n);
        tv d = os;
        v_select(&d, dim, k);
        if (vt) rc = tv_copy(&d, vt, ctx);
        else rc = tv_fill(&d, arg_sc(a, na, 3, 0), ctx);
        if (rc) return rc;
    }
    return 0;
}

/* index_reduce(self, dim, index, source, reduce, *, include_self=True):
 * prod / mean / amax / amin of the source slices into the indexed slices,
 * in the dtype, in index order (torch's index_reduce_func_impl) */
static int k_index_reduce(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(2, ix);
    NEED_T(3, src);
    const char *red = na > 4 && a[4].kind == EIR_KA_STRING ? a[4].str : "";
    bool include_self = arg_i(a, na, 5, 1) != 0;
    enum { R_PROD, R_MEAN, R_MAX, R_MIN } op;
    if (!strcmp(red, "prod")) op = R_PROD;
    else if (!strcmp(red, "mean")) op = R_MEAN;
    else if (!strcmp(red, "amax")) op = R_MAX;
    else if (!strcmp(red, "amin")) op = R_MIN;
    else return eir_kerr(ctx, "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got %s.", red);
    eir_dtype dt = x->dtype;
    if (dt == EIR_BOOL || eir_is_complex(dt)) return eir_kerr(ctx, "\"index_reduce_func_exclude_input_init\" not implemented for '%s'", dname(dt));
    if (src->dtype != dt) return eir_kerr(ctx, "index_reduce_(): self (%s) and source (%s) must have the same scalar type", dname(dt), dname(src->dtype));
    tv xs, os = *out, ss = *src;
    int32_t dim;
    int rc = index_common("index_reduce_", x, arg_i(a, na, 1, 0), ix, &xs, &dim, ctx);
    if (rc) return rc;
    if (!is_index_dtype(ix->dtype)) return eir_kerr(ctx, "index_reduce_(): Expected dtype int32/int64 for index");
    if (os.rank == 0) v_unsq(&os, 0);
    if (ss.rank == 0) v_unsq(&ss, 0);
    int64_t m = eir_tview_numel(ix), n = xs.sizes[dim];
    if (ss.sizes[dim] != m) return eir_kerr(ctx, "index_reduce_(): Number of indices (%" PRId64 ") should be equal to source.size(dim) (%" PRId64 ")", m, ss.sizes[dim]);
    if ((rc = copy_self(out, x, ctx))) return rc;
    bool flt = eir_is_floating(dt);
    /* per-slot counts for mean (include_self counts self once) */
    int64_t *cnt = NULL;
    if (op == R_MEAN) {
        cnt = eir_kcalloc((size_t)(n > 0 ? n : 1), sizeof *cnt);
        if (!cnt) return eir_kerr(ctx, "out of memory");
        for (int64_t k = 0; k < n; k++) cnt[k] = include_self;
    }
    for (int64_t i = 0; i < m; i++) {
        int64_t k = index_at(ix, i);
        if (k < 0 || k >= n) { eir_kfree(cnt); return eir_kerr(ctx, "index out of range in self"); }
    }
    if (!include_self) {
        for (int64_t i = 0; i < m; i++) {
            tv d = os;
            v_select(&d, dim, index_at(ix, i));
            eir_scalar init;
            if (op == R_PROD) init = S_ONE;
            else if (op == R_MEAN) init = S_ZERO;
            else if (flt) init = (eir_scalar){EIR_SC_FLOAT, 0, op == R_MAX ? -INFINITY : INFINITY, 0};
            else {
                int64_t lo, hi;
                switch (dt) {
                case EIR_U8: lo = 0; hi = 255; break;
                case EIR_I8: lo = -128; hi = 127; break;
                case EIR_I16: lo = -32768; hi = 32767; break;
                case EIR_I32: lo = INT32_MIN; hi = INT32_MAX; break;
                default: lo = INT64_MIN; hi = INT64_MAX; break;
                }
                init = (eir_scalar){EIR_SC_INT, op == R_MAX ? lo : hi, 0, 0};
            }
            if ((rc = tv_fill(&d, init, ctx))) { eir_kfree(cnt); return rc; }
        }
    }
    for (int64_t i = 0; i < m; i++) {
        int64_t k = index_at(ix, i);
        tv d = os, s = ss;
        v_select(&d, dim, k);
        v_select(&s, dim, i);
        if (cnt) cnt[k]++;
        int64_t e[EIR_MAX_RANK] = {0};
        if (eir_tview_numel(&d) == 0) continue;
        do {
            char *pd = eir_tview_at(&d, e);
            const char *ps = eir_tview_at(&s, e);
            if (flt) {
                double u = eir_load_f64(pd, dt), v = eir_load_f64(ps, dt), r;
                if (op == R_PROD) r = u * v;
                else if (op == R_MEAN) r = u + v;
                else if (isnan(u) || isnan(v)) r = isnan(v) ? v : u;
                else r = op == R_MAX ? (v > u ? v : u) : (v < u ? v : u);
                eir_store_f64(pd, dt, r);
            } else {
                int64_t u = eir_load_i64(pd, dt), v = eir_load_i64(ps, dt), r;
                if (op == R_PROD) r = (int64_t)((uint64_t)u * (uint64_t)v);
                else if (op == R_MEAN) r = (int64_t)((uint64_t)u + (uint64_t)v);
                else r = op == R_MAX ? (v > u ? v : u) : (v < u ? v : u);
                eir_store_i64(pd, dt, r);
            }
        } while (next_idx(e, d.sizes, d.rank));
    }
    if (cnt) {
        for (int64_t k = 0; k < n; k++) {
            int64_t c = cnt[k] ? cnt[k] : 1;
            tv d = os;
            v_select(&d, dim, k);
            int64_t e[EIR_MAX_RANK] = {0};
            if (c == 1 || eir_tview_numel(&d) == 0) continue;
            do {
                char *pd = eir_tview_at(&d, e);
                if (flt) {
                    eir_store_f64(pd, dt, eir_load_f64(pd, dt) / rnd((double)c, dt));
                } else {
                    int64_t u = eir_load_i64(pd, dt), q = u / c;
                    if ((u % c != 0) && ((u < 0) != (c < 0))) q--;
                    eir_store_i64(pd, dt, q);
                }
            } while (next_idx(e, d.sizes, d.rank));
        }
        eir_kfree(cnt);
    }
    return 0;
}

/* the extent [lo, hi] in elements of a strided view from its base */
static void view_extent(int32_t rank, const int64_t *sizes, const int64_t *strides, int64_t *lo, int64_t *hi) {
    *lo = *hi = 0;
    for (int32_t d = 0; d < rank; d++) {
        if (sizes[d] == 0) { *lo = 0; *hi = -1; return; }
        int64_t e = (sizes[d] - 1) * strides[d];
        if (e < 0) *lo += e;
        else *hi += e;
    }
}

static int as_strided_args(const char *op, const eir_karg *a, uint32_t na, uint32_t i0, const tv *base, tv *v, eir_kctx *ctx) {
    if (na <= i0 + 1 || a[i0].kind != EIR_KA_INTS || a[i0 + 1].kind != EIR_KA_INTS) return eir_kerr(ctx, "%s: expected size and stride lists", op);
    uint32_t r = a[i0].n;
    if (a[i0 + 1].n != r) return eir_kerr(ctx, "mismatch in length of strides and shape");
    if (r > EIR_MAX_RANK) return eir_kerr(ctx, "%s: too many dims", op);
    int64_t off = arg_none(a, na, i0 + 2) ? 0 : arg_i(a, na, i0 + 2, 0);
    if (off < 0) return eir_kerr(ctx, "Tensor: invalid storage offset %" PRId64, off);
    *v = *base;
    v->rank = (int32_t)r;
    for (uint32_t d = 0; d < r; d++) {
        v->sizes[d] = a[i0].ints[d];
        v->strides[d] = a[i0 + 1].ints[d];
        if (v->strides[d] < 0) return eir_kerr(ctx, "as_strided: Negative strides are not supported at the moment, got strides: [%" PRId64 "]", v->strides[d]);
    }
    int64_t lo, hi, blo, bhi;
    view_extent(v->rank, v->sizes, v->strides, &lo, &hi);
    view_extent(base->rank, base->sizes, base->strides, &blo, &bhi);
    if (hi >= 0 && off + hi > bhi) {
        char b1[128], b2[128];
        size_t es = esz(base->dtype);
        return eir_kerr(ctx, "setStorage: sizes %s, strides %s, storage offset %" PRId64 ", and itemsize %zu requiring a storage size of %" PRId64 " are out of bounds for storage of size %" PRId64,
                        fmt_shape(b1, sizeof b1, v->rank, v->sizes), fmt_shape(b2, sizeof b2, v->rank, v->strides), off, es,
                        (int64_t)((off + hi + 1) * (int64_t)es), (int64_t)((bhi + 1) * (int64_t)es));
    }
    v->data = at_el(base, off);
    return 0;
}

/* as_strided_copy(self, size, stride, storage_offset=None): storage offsets
 * count from self's first element (its own offset is not visible here) */
static int k_as_strided_copy(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    tv v;
    int rc = as_strided_args("as_strided_copy", a, na, 1, x, &v, ctx);
    if (rc) return rc;
    if (!same_sizes(&v, out)) return eir_kerr(ctx, "as_strided_copy: output shape does not fit");
    return tv_copy(out, &v, ctx);
}

/* as_strided_scatter(self, src, size, stride, storage_offset=None): a copy
 * of self with src written through the strided view of the copy's storage */
static int k_as_strided_scatter(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, src);
    if (!same_sizes(out, x)) return eir_kerr(ctx, "as_strided_scatter: output shape does not fit");
    int rc = copy_self(out, x, ctx);
    if (rc) return rc;
    tv v;
    if ((rc = as_strided_args("as_strided_scatter", a, na, 2, out, &v, ctx))) return rc;
    if (!same_sizes(&v, src)) {
        char b1[128], b2[128];
        return eir_kerr(ctx, "expected src to have a size equal to the slice of self. src size = %s, slice size = %s",
                        fmt_shape(b1, sizeof b1, src->rank, src->sizes), fmt_shape(b2, sizeof b2, v.rank, v.sizes));
    }
    return tv_copy(&v, src, ctx);
}

/* nonzero_static(self, *, size, fill_value=-1): the first `size` nonzero
 * positions (row-major), rows past the count filled with fill_value */
static int k_nonzero_static(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t size = arg_i(a, na, 1, 0), fill = arg_i(a, na, 2, -1);
    if (size < 0) return eir_kerr(ctx, "nonzero_static: 'size' must be an non-negative integer");
    if (out->rank != 2 || out->sizes[0] != size || out->sizes[1] != x->rank) return eir_kerr(ctx, "nonzero_static: output shape does not fit");
    int64_t row = 0, idx[EIR_MAX_RANK] = {0};
    if (eir_tview_numel(x) > 0 && size > 0)
        do {
            double re, im;
            eir_load_c128(eir_tview_at(x, idx), x->dtype, &re, &im);
            if (re != 0 || im != 0) {
                for (int32_t d = 0; d < x->rank; d++) eir_store_i64(at_el(out, row * out->strides[0] + d * out->strides[1]), out->dtype, idx[d]);
                row++;
            }
        } while (row < size && next_idx(idx, x->sizes, x->rank));
    for (; row < size; row++)
        for (int32_t d = 0; d < x->rank; d++) eir_store_i64(at_el(out, row * out->strides[0] + d * out->strides[1]), out->dtype, fill);
    return 0;
}

/* ======================================================================
 * reductions
 * ====================================================================== */

/* dims argument (int, int[] or None) as a mask over rank dims; None or [] is every dim */
static int dims_mask(const eir_karg *d, int32_t rank, bool *mask, eir_kctx *ctx) {
    for (int32_t i = 0; i < EIR_MAX_RANK; i++) mask[i] = false;
    const int64_t *list = NULL;
    uint32_t n = 0;
    if (d && d->kind == EIR_KA_INT) { list = &d->i; n = 1; }
    else if (d && d->kind == EIR_KA_INTS) { list = d->ints; n = d->n; }
    if (n == 0) {
        for (int32_t i = 0; i < rank; i++) mask[i] = true;
        return 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        int32_t w = eir_wrap_dim(list[k], rank);
        if (w < 0) {
            int32_t r = rank ? rank : 1;
            return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -r, r - 1, list[k]);
        }
        if (rank == 0) continue;
        if (mask[w]) return eir_kerr(ctx, "dim %d appears multiple times in the list of dims", w);
        mask[w] = true;
    }
    return 0;
}

/* count_nonzero(self, dim=None) / .dim_IntList(self, dim): int64 counts */
static int k_count_nonzero(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    bool mask[EIR_MAX_RANK];
    int rc = dims_mask(arg_none(a, na, 1) ? NULL : &a[1], x->rank, mask, ctx);
    if (rc) return rc;
    /* out seen in x's rank: size 1, stride 0 on the counted dims */
    tv o = *out;
    o.rank = x->rank;
    int32_t k = 0;
    for (int32_t d = 0; d < x->rank; d++) {
        if (mask[d]) { o.sizes[d] = 1; o.strides[d] = 0; continue; }
        if (k >= out->rank || out->sizes[k] != x->sizes[d]) return eir_kerr(ctx, "count_nonzero: output shape does not fit");
        o.sizes[d] = out->sizes[k];
        o.strides[d] = out->strides[k];
        k++;
    }
    if ((rc = tv_fill(out, S_ZERO, ctx))) return rc;
    int64_t idx[EIR_MAX_RANK] = {0}, oi[EIR_MAX_RANK];
    if (eir_tview_numel(x) == 0) return 0;
    do {
        double re, im;
        eir_load_c128(eir_tview_at(x, idx), x->dtype, &re, &im);
        if (re == 0 && im == 0) continue;
        for (int32_t d = 0; d < x->rank; d++) oi[d] = mask[d] ? 0 : idx[d];
        char *p = eir_tview_at(&o, oi);
        eir_store_i64(p, out->dtype, eir_load_i64(p, out->dtype) + 1);
    } while (next_idx(idx, x->sizes, x->rank));
    return 0;
}

/* sum_to_size(self, size): summed over the leading dims and the dims size
 * makes 1 (keepdim), as sum_to; self itself when nothing is summed */
static int k_sum_to_size(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    if (na < 2 || a[1].kind != EIR_KA_INTS) return eir_kerr(ctx, "sum_to_size: expected a size");
    uint32_t n = a[1].n;
    const int64_t *sz = a[1].ints;
    if ((int32_t)n > x->rank) return eir_kerr(ctx, "size {%u dims} is not expandable to size {%d dims}", n, x->rank);
    int32_t lead = x->rank - (int32_t)n;
    int64_t dims[EIR_MAX_RANK];
    uint32_t nd = 0;
    for (int32_t d = 0; d < lead; d++) dims[nd++] = d;
    for (int32_t i = 0; i < (int32_t)n; i++) {
        int64_t s = x->sizes[lead + i];
        if (sz[i] == 1 && s != 1) dims[nd++] = lead + i;
        else if (sz[i] != s) return eir_kerr(ctx, "size is not expandable to the tensor's size");
    }
    if (nd == 0) return copy_reshaped(x, out, ctx);
    tv o = *out;
    while (o.rank < x->rank) v_unsq(&o, 0);
    eir_karg args[4] = {A_t(x), A_ints(dims, nd), A_b(true), A_none()};
    return k_sum_dim(args, 4, &o, 1, ctx);
}

/* segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None,
 * axis=0, unsafe=False, initial=None): each segment along the lengths' last
 * dim reduced in the data's dtype (torch's _segment_reduce_cpu_kernel) */
static int k_segment_reduce(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, data);
    const char *red = na > 1 && a[1].kind == EIR_KA_STRING ? a[1].str : "";
    const tv *lengths = arg_t(a, na, 2), *indices = arg_t(a, na, 3), *offsets = arg_t(a, na, 4);
    bool unsafe = arg_i(a, na, 6, 0) != 0, has_init = !arg_none(a, na, 7);
    enum { S_MAX, S_MEAN, S_MIN, S_SUM, S_PROD } op;
    if (!strcmp(red, "max")) op = S_MAX;
    else if (!strcmp(red, "mean")) op = S_MEAN;
    else if (!strcmp(red, "min")) op = S_MIN;
    else if (!strcmp(red, "sum")) op = S_SUM;
    else if (!strcmp(red, "prod")) op = S_PROD;
    else return eir_kerr(ctx, "unsupported reduction given! %s", red);
    int32_t axis = eir_wrap_dim(arg_i(a, na, 5, 0), data->rank);
    if (axis < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -data->rank, data->rank - 1, arg_i(a, na, 5, 0));
    eir_dtype dt = data->dtype;
    if (!eir_is_floating(dt)) return eir_kerr(ctx, "\"_segment_reduce_cpu\" not implemented for '%s'", dname(dt));
    if (eir_tview_numel(data) <= 0) return eir_kerr(ctx, "Expected data.numel() > 0 to be true, but got false.");
    if (indices || !(lengths || offsets)) return eir_kerr(ctx, "Either lengths or offsets must be defined");
    const tv *seg = lengths ? lengths : offsets;
    if (!is_index_dtype(seg->dtype)) return eir_kerr(ctx, "segment_reduce: lengths must be int32 or int64");
    if (seg->rank < 1 || data->rank < seg->rank) return eir_kerr(ctx, "Expected data.dim() >= lengths.dim() to be true, but got false.");
    axis = seg->rank - 1;
    int64_t nseg = seg->sizes[axis] - (lengths ? 0 : 1);
    if (nseg < 0) nseg = 0;
    int64_t outer = 1, inner = 1;
    for (int32_t d = 0; d < axis; d++) outer *= data->sizes[d];
    for (int32_t d = axis + 1; d < data->rank; d++) inner *= data->sizes[d];
    if (out->rank != data->rank || out->sizes[axis] != nseg) return eir_kerr(ctx, "segment_reduce: output shape does not fit");
    /* each row of segment bounds: row o of lengths/offsets over the leading dims */
    int64_t segs_outer = 1;
    for (int32_t d = 0; d < axis; d++) segs_outer *= seg->sizes[d];
    if (segs_outer != outer) return eir_kerr(ctx, "segment_reduce: lengths do not fit the data's leading dims");
    tv sview = *seg;
    int64_t total = data->sizes[axis];
    if (!unsafe) {
        for (int64_t o = 0; o < outer; o++) {
            int64_t sum = 0;
            for (int64_t i = 0; i < seg->sizes[axis]; i++) {
                int64_t v = eir_load_i64(at_el(&sview, ravel_off(&sview, o * seg->sizes[axis] + i)), seg->dtype);
                if (lengths) {
                    if (v < 0) return eir_kerr(ctx, "lengths contains negative value!");
                    sum += v;
                } else if (i > 0) {
                    int64_t pv = eir_load_i64(at_el(&sview, ravel_off(&sview, o * seg->sizes[axis] + i - 1)), seg->dtype);
                    if (v < pv) return eir_kerr(ctx, "lengths contains negative value!");
                }
            }
            if (lengths && sum != total)
                return eir_kerr(ctx, "segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) when !unsafe.");
        }
    }
    double init = 0;
    if (has_init) init = rnd(arg_f(a, na, 7, 0), dt);
    else if (op == S_MAX) init = -INFINITY;
    else if (op == S_MIN) init = INFINITY;
    else if (op == S_PROD) init = 1;
    tv dd = *data, oo = *out;
    for (int64_t o = 0; o < outer; o++) {
        int64_t start = 0;
        for (int64_t s = 0; s < nseg; s++) {
            int64_t base = o * seg->sizes[axis];
            int64_t len, first;
            if (lengths) {
                len = eir_load_i64(at_el(&sview, ravel_off(&sview, base + s)), seg->dtype);
                first = start;
                start += len;
            } else {
                first = eir_load_i64(at_el(&sview, ravel_off(&sview, base + s)), seg->dtype);
                len = eir_load_i64(at_el(&sview, ravel_off(&sview, base + s + 1)), seg->dtype) - first;
            }
            if (first < 0 || len < 0 || first + len > total) return eir_kerr(ctx, "segment_reduce: a segment is out of the data's bounds");
            for (int64_t in = 0; in < inner; in++) {
                double acc = init;
                for (int64_t j = 0; j < len; j++) {
                    int64_t flat = (o * total + first + j) * inner + in;
                    double v = eir_load_f64(at_el(&dd, ravel_off(&dd, flat)), dt);
                    if (op == S_MAX) acc = isnan(v) ? v : (v > acc ? v : acc);
                    else if (op == S_MIN) acc = isnan(v) ? v : (v < acc ? v : acc);
                    else if (op == S_PROD) acc = rnd(acc * v, dt);
                    else acc = rnd(acc + v, dt);
                }
                if (op == S_MEAN) {
                    if (len == 0 && !has_init) acc = NAN;
                    else if (len > 0 && !isnan(acc)) acc = rnd(acc / rnd((double)len, dt), dt);
                }
                int64_t flat = (o * nseg + s) * inner + in;
                eir_store_f64(at_el(&oo, ravel_off(&oo, flat)), out->dtype, acc);
            }
        }
    }
    return 0;
}

/* ======================================================================
 * vectors: cross, vecdot, cosine_similarity, pairwise_distance, dist, renorm
 * ====================================================================== */

/* linalg_cross(self, other, *, dim=-1) and cross(self, other, dim=None):
 * broadcast, then a[j] b[k] - a[k] b[j] in the dtype */
static int cross_run(const tv *x, const tv *y, int64_t dim_arg, bool dflt, tv *out, eir_kctx *ctx) {
    if (x->rank != y->rank)
        return eir_kerr(ctx, "linalg.cross: inputs must have the same number of dimensions.");
    int32_t r = x->rank;
    int32_t dim;
    if (dflt) {
        dim = -1;
        for (int32_t d = 0; d < r && dim < 0; d++)
            if (x->sizes[d] == 3) dim = d;
        if (dim < 0) return eir_kerr(ctx, "no dimension of size 3 in input");
    } else {
        dim = eir_wrap_dim(dim_arg, r);
        if (dim < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -r, r - 1, dim_arg);
    }
    if (x->sizes[dim] != 3 || y->sizes[dim] != 3)
        return eir_kerr(ctx, "linalg.cross: inputs dimension %d must have length 3. Got %" PRId64 " and %" PRId64, dim, x->sizes[dim], y->sizes[dim]);
    if (x->dtype != y->dtype) return eir_kerr(ctx, "expected scalar type %s but found %s", dname(x->dtype), dname(y->dtype));
    eir_dtype dt = out->dtype;
    if (dt == EIR_BOOL) return eir_kerr(ctx, "\"cross\" not implemented for 'Bool'");
    tv xb, yb;
    if (out->rank != r || !eir_tview_broadcast(x, r, out->sizes, &xb) || !eir_tview_broadcast(y, r, out->sizes, &yb))
        return eir_kerr(ctx, "linalg.cross: inputs do not broadcast to the output");
    tv o = *out;
    o.sizes[dim] = xb.sizes[dim] = yb.sizes[dim] = 1;
    int64_t idx[EIR_MAX_RANK] = {0};
    if (eir_tview_numel(&o) == 0) return 0;
    size_t ex = esz(x->dtype), eo = esz(dt);
    int64_t sx = xb.strides[dim] * (int64_t)ex, sy = yb.strides[dim] * (int64_t)ex, so = out->strides[dim] * (int64_t)eo;
    do {
        const char *px = eir_tview_at(&xb, idx), *py = eir_tview_at(&yb, idx);
        char *po = eir_tview_at(&o, idx);
        for (int i = 0; i < 3; i++) {
            int j = (i + 1) % 3, k = (i + 2) % 3;
            if (eir_is_complex(dt)) {
                double ar, ai, br, bi, cr, ci, dr, di;
                eir_load_c128(px + j * sx, x->dtype, &ar, &ai);
                eir_load_c128(py + k * sy, x->dtype, &br, &bi);
                eir_load_c128(px + k * sx, x->dtype, &cr, &ci);
                eir_load_c128(py + j * sy, x->dtype, &dr, &di);
                double p1r = rnd(ar * br - ai * bi, dt), p1i = rnd(ar * bi + ai * br, dt);
                double p2r = rnd(cr * dr - ci * di, dt), p2i = rnd(cr * di + ci * dr, dt);
                eir_store_c128(po + i * so, dt, p1r - p2r, p1i - p2i);
            } else if (eir_is_floating(dt)) {
                double aj = eir_load_f64(px + j * sx, x->dtype), bk = eir_load_f64(py + k * sy, x->dtype);
                double ak = eir_load_f64(px + k * sx, x->dtype), bj = eir_load_f64(py + j * sy, x->dtype);
                /* float and double as torch's compiled loop: the first product fused into the difference */
                if (dt == EIR_F32) eir_store_f64(po + i * so, dt, fmaf((float)aj, (float)bk, -((float)ak * (float)bj)));
                else if (dt == EIR_F64) eir_store_f64(po + i * so, dt, fma(aj, bk, -(ak * bj)));
                else eir_store_f64(po + i * so, dt, rnd(rnd(aj * bk, dt) - rnd(ak * bj, dt), dt));
            } else {
                uint64_t p1 = (uint64_t)eir_load_i64(px + j * sx, x->dtype) * (uint64_t)eir_load_i64(py + k * sy, x->dtype);
                uint64_t p2 = (uint64_t)eir_load_i64(px + k * sx, x->dtype) * (uint64_t)eir_load_i64(py + j * sy, x->dtype);
                eir_store_i64(po + i * so, dt, (int64_t)(p1 - p2));
            }
        }
    } while (next_idx(idx, o.sizes, r));
    return 0;
}
static int k_linalg_cross(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    return cross_run(x, y, arg_i(a, na, 2, -1), false, out, ctx);
}
static int k_cross(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    return cross_run(x, y, arg_i(a, na, 2, -1), arg_none(a, na, 2), out, ctx);
}

/* a contiguous scratch tensor of the broadcast shape of x and y */
static int bcast_scratch(const tv *x, const tv *y, eir_dtype dt, tv *s, eir_kctx *ctx) {
    int32_t r = x->rank > y->rank ? x->rank : y->rank;
    int64_t sizes[EIR_MAX_RANK];
    for (int32_t d = 0; d < r; d++) {
        int32_t dx = d - (r - x->rank), dy = d - (r - y->rank);
        int64_t a = dx >= 0 ? x->sizes[dx] : 1, b = dy >= 0 ? y->sizes[dy] : 1;
        if (a != b && a != 1 && b != 1)
            return eir_kerr(ctx, "The size of tensor a (%" PRId64 ") must match the size of tensor b (%" PRId64 ") at non-singleton dimension %d", a, b, d);
        sizes[d] = a == 1 ? b : a;
    }
    int64_t n = 1;
    for (int32_t d = 0; d < r; d++) n *= sizes[d];
    void *buf = eir_kalloc((size_t)(n > 0 ? n : 1) * esz(dt));
    if (!buf) return eir_kerr(ctx, "out of memory");
    *s = v_contig(buf, dt, r, sizes);
    return 0;
}

/* linalg_vecdot(x, y, *, dim=-1): (x.conj() * y).sum(dim) */
static int k_linalg_vecdot(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, y);
    if (!eir_is_floating(x->dtype) && !eir_is_complex(x->dtype))
        return eir_kerr(ctx, "linalg.vecdot: Expected a floating point or complex tensor as input. Got %s", dname(x->dtype));
    if (x->dtype != y->dtype)
        return eir_kerr(ctx, "linalg.vecdot: Expected x and y to have the same dtype, but found x of type %s and y of type %s instead", dname(x->dtype), dname(y->dtype));
    tv p;
    int rc = bcast_scratch(x, y, x->dtype, &p, ctx);
    if (rc) return rc;
    int64_t dim = arg_i(a, na, 2, -1);
    void *xc = NULL;
    tv xv = *x;
    if (eir_is_complex(x->dtype)) { /* conj(x) into scratch */
        xc = eir_kalloc((size_t)(eir_tview_numel(x) + 1) * esz(x->dtype));
        if (!xc) { eir_kfree(p.data); return eir_kerr(ctx, "out of memory"); }
        xv = v_contig(xc, x->dtype, x->rank, x->sizes);
        rc = tv_copy(&xv, x, ctx);
        int64_t n = eir_tview_numel(x);
        for (int64_t i = 0; i < n && !rc; i++) {
            double re, im;
            eir_load_c128(at_el(&xv, i), x->dtype, &re, &im);
            eir_store_c128(at_el(&xv, i), x->dtype, re, -im);
        }
    }
    eir_karg m[2] = {A_t(&xv), A_t(y)};
    if (!rc) rc = k_mul(m, 2, &p, 1, ctx);
    eir_karg s[4] = {A_t(&p), A_ints(&dim, 1), A_b(false), A_none()};
    if (!rc) rc = k_sum_dim(s, 4, out, 1, ctx);
    eir_kfree(xc);
    eir_kfree(p.data);
    return rc;
}

/* cosine_similarity(x1, x2, dim=1, eps=1e-8): each input divided by its
 * norm (clamped to eps), multiplied and summed, as aten computes it */
static int k_cosine_similarity(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x1);
    NEED_T(1, x2);
    int64_t dim = arg_i(a, na, 2, 1);
    double eps = arg_f(a, na, 3, 1e-8);
    eir_dtype dt = out->dtype;
    const eir_karg *ra[2] = {&a[0], &a[1]};
    eir_dtype common = eir_result_type(ra, 2);
    if (!eir_is_floating(common))
        return eir_kerr(ctx, "expected common dtype to be floating point, yet common dtype is %s", dname(common));
    tv xs[2], ns[2], q[2];
    void *bufs[6] = {NULL};
    int rc = 0, nb = 0;
    /* the inputs broadcast, in the common dtype where they are integers */
    rc = bcast_scratch(x1, x2, dt, &q[0], ctx);
    if (rc) return rc;
    bufs[nb++] = q[0].data;
    int32_t r = q[0].rank;
    int32_t d = eir_wrap_dim(dim, r);
    if (d < 0) { eir_kfree(bufs[0]); return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -(r ? r : 1), r ? r - 1 : 0, dim); }
    int64_t nsz[EIR_MAX_RANK];
    for (int32_t k = 0; k < r; k++) nsz[k] = k == d ? 1 : q[0].sizes[k];
    for (int i = 0; i < 2 && !rc; i++) {
        const tv *x = i ? x2 : x1;
        if (eir_is_integral(x->dtype, true)) {
            void *b = eir_kalloc((size_t)(eir_tview_numel(x) + 1) * esz(dt));
            if (!b) { rc = eir_kerr(ctx, "out of memory"); break; }
            bufs[nb++] = b;
            xs[i] = v_contig(b, dt, x->rank, x->sizes);
            rc = tv_copy(&xs[i], x, ctx);
        } else {
            xs[i] = *x;
        }
        tv b = xs[i];
        if (!rc && !eir_tview_broadcast(&xs[i], r, q[0].sizes, &b)) rc = eir_kerr(ctx, "cosine_similarity: inputs do not broadcast");
        xs[i] = b;
        if (rc) break;
        void *nbuf = eir_kalloc((size_t)(eir_tview_numel(&q[0]) / (q[0].sizes[d] ? q[0].sizes[d] : 1) + 1) * esz(dt));
        if (!nbuf) { rc = eir_kerr(ctx, "out of memory"); break; }
        bufs[nb++] = nbuf;
        ns[i] = v_contig(nbuf, dt, r, nsz);
        int64_t dl = d;
        eir_karg vn[5] = {A_t(&xs[i]), A_sc((eir_scalar){EIR_SC_INT, 2, 2, 0}), A_ints(&dl, 1), A_b(true), A_none()};
        rc = k_vnorm(vn, 5, &ns[i], 1, ctx);
        eir_karg cm[2] = {A_t(&ns[i]), A_sc((eir_scalar){EIR_SC_FLOAT, 0, eps, 0})};
        if (!rc) rc = k_clamp_min(cm, 2, &ns[i], 1, ctx);
    }
    if (!rc) { /* q0 = x1 / n1 */
        eir_karg dv[2] = {A_t(&xs[0]), A_t(&ns[0])};
        rc = k_div(dv, 2, &q[0], 1, ctx);
    }
    if (!rc && !(rc = bcast_scratch(x1, x2, dt, &q[1], ctx))) {
        bufs[nb++] = q[1].data;
        eir_karg dv[2] = {A_t(&xs[1]), A_t(&ns[1])};
        rc = k_div(dv, 2, &q[1], 1, ctx);
    }
    if (!rc) {
        eir_karg m[2] = {A_t(&q[0]), A_t(&q[1])};
        rc = k_mul(m, 2, &q[0], 1, ctx);
    }
    if (!rc) {
        int64_t dl = d;
        eir_karg s[4] = {A_t(&q[0]), A_ints(&dl, 1), A_b(false), A_none()};
        rc = k_sum_dim(s, 4, out, 1, ctx);
    }
    for (int i = 0; i < nb; i++) eir_kfree(bufs[i]);
    return rc;
}

/* *t (a scratch tensor) replaced by its magnitudes when complex: the norm of
 * complex values is the norm of their absolute values, which the real norm
 * kernel takes */
static int to_abs(tv *t, eir_kctx *ctx) {
    if (!eir_is_complex(t->dtype)) return 0;
    eir_dtype rdt = t->dtype == EIR_C64 ? EIR_F32 : EIR_F64;
    void *b = eir_kalloc((size_t)(eir_tview_numel(t) + 1) * esz(rdt));
    int rc = b ? 0 : eir_kerr(ctx, "out of memory");
    tv r = v_contig(b, rdt, t->rank, t->sizes);
    eir_karg ab[1] = {A_t(t)};
    if (!rc) rc = k_abs(ab, 1, &r, 1, ctx);
    eir_kfree(t->data);
    if (rc) { eir_kfree(b); r.data = NULL; }
    *t = r;
    return rc;
}

/* x1 - x2 (+ eps) into scratch: the difference dist and pairwise_distance take the norm of */
static int diff_scratch(const tv *x1, const tv *x2, const eir_karg *ea, bool with_eps, double eps, eir_dtype fdt, tv *dff, eir_kctx *ctx) {
    const eir_karg *ra[2] = {&ea[0], &ea[1]};
    eir_dtype rt = eir_result_type(ra, 2);
    tv s;
    int rc = bcast_scratch(x1, x2, rt, &s, ctx);
    if (rc) return rc;
    eir_karg sa[3] = {A_t(x1), A_t(x2), A_i(1)};
    if ((rc = k_sub(sa, 3, &s, 1, ctx))) { eir_kfree(s.data); return rc; }
    if (!with_eps) { *dff = s; return 0; }
    tv f = s;
    if (fdt != rt) { /* an integer difference plus a float eps promotes */
        void *b = eir_kalloc((size_t)(eir_tview_numel(&s) + 1) * esz(fdt));
        if (!b) { eir_kfree(s.data); return eir_kerr(ctx, "out of memory"); }
        f = v_contig(b, fdt, s.rank, s.sizes);
    }
    eir_karg aa[3] = {A_t(&s), A_sc((eir_scalar){EIR_SC_FLOAT, 0, eps, 0}), A_i(1)};
    rc = k_add(aa, 3, &f, 1, ctx);
    if (f.data != s.data) eir_kfree(s.data);
    if (rc) { eir_kfree(f.data); return rc; }
    *dff = f;
    return 0;
}

/* pairwise_distance(x1, x2, p=2, eps=1e-6, keepdim=False): norm(x1 - x2 + eps, p, last dim) */
static int k_pairwise_distance(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x1);
    NEED_T(1, x2);
    double p = arg_f(a, na, 2, 2.0), eps = arg_f(a, na, 3, 1e-6);
    bool keepdim = arg_i(a, na, 4, 0) != 0;
    tv dff;
    dff.data = NULL;
    const eir_karg *ra[2] = {&a[0], &a[1]};
    eir_dtype rt = eir_result_type(ra, 2), fdt = eir_is_floating(rt) || eir_is_complex(rt) ? rt : EIR_F32;
    int rc = diff_scratch(x1, x2, a, true, eps, fdt, &dff, ctx);
    if (!rc) rc = to_abs(&dff, ctx);
    if (rc) { eir_kfree(dff.data); return rc; }
    int64_t dim = (x1->rank > x2->rank ? x1->rank : x2->rank) - 1;
    eir_karg nargs[4] = {A_t(&dff), A_sc((eir_scalar){EIR_SC_FLOAT, 0, p, 0}), A_ints(&dim, 1), A_b(keepdim)};
    rc = k_norm_dim(nargs, 4, out, 1, ctx);
    eir_kfree(dff.data);
    return rc;
}

/* dist(self, other, p=2): norm(self - other, p) */
static int k_dist(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x1);
    NEED_T(1, x2);
    tv dff;
    dff.data = NULL;
    int rc = diff_scratch(x1, x2, a, false, 0, out->dtype, &dff, ctx);
    if (!rc) rc = to_abs(&dff, ctx);
    if (rc) { eir_kfree(dff.data); return rc; }
    eir_karg nargs[2] = {A_t(&dff), A_sc(arg_sc(a, na, 2, 2))};
    rc = k_norm_sc(nargs, 2, out, 1, ctx);
    eir_kfree(dff.data);
    return rc;
}

/* renorm(self, p, dim, maxnorm): each slice along dim scaled by
 * maxnorm / (norm + 1e-7) where its p-norm exceeds maxnorm; norms of
 * float16/bfloat16 in float, the factor rounded to the dtype */
static int k_renorm(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    double p = arg_f(a, na, 1, 2), maxnorm = arg_f(a, na, 3, 0);
    int32_t r = x->rank;
    int32_t dim = eir_wrap_dim(arg_i(a, na, 2, 0), r);
    if (dim < 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -(r ? r : 1), r ? r - 1 : 0, arg_i(a, na, 2, 0));
    if (r < 2) return eir_kerr(ctx, "renorm: input needs at least 2 dimensions, got %d dimensions", r);
    if (!(p > 0)) return eir_kerr(ctx, "renorm: non-positive-norm not supported");
    if (maxnorm < 0) return eir_kerr(ctx, "renorm: expected maxnorm to be >= 0 but got %g", maxnorm);
    if (!eir_is_floating(x->dtype) && !eir_is_complex(x->dtype))
        return eir_kerr(ctx, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s", dname(x->dtype));
    /* norms of float16/bfloat16 in float, of complex values over their magnitudes */
    eir_dtype acc = x->dtype == EIR_F16 || x->dtype == EIR_BF16 || x->dtype == EIR_C64 ? EIR_F32 : x->dtype == EIR_C128 ? EIR_F64 : x->dtype;
    int64_t nsz[EIR_MAX_RANK], dims[EIR_MAX_RANK];
    uint32_t nd = 0;
    for (int32_t d = 0; d < r; d++) {
        nsz[d] = d == dim ? x->sizes[d] : 1;
        if (d != dim) dims[nd++] = d;
    }
    int64_t n = r ? x->sizes[dim] : 1;
    void *buf = eir_kalloc((size_t)(n + 1) * (esz(acc) + esz(x->dtype)));
    if (!buf) return eir_kerr(ctx, "out of memory");
    tv nv = v_contig(buf, acc, r, nsz), fv = v_contig((char *)buf + (size_t)(n + 1) * esz(acc), x->dtype, r, nsz);
    tv src = *x;
    int rc = 0;
    if (eir_is_complex(x->dtype)) { /* |x| into scratch */
        void *c = eir_kalloc((size_t)(eir_tview_numel(x) + 1) * esz(x->dtype));
        if (!c) rc = eir_kerr(ctx, "out of memory");
        else {
            src = v_contig(c, x->dtype, r, x->sizes);
            if (!(rc = tv_copy(&src, x, ctx))) rc = to_abs(&src, ctx);
        }
    }
    if (!rc) {
        eir_karg vn[5] = {A_t(&src), A_sc((eir_scalar){EIR_SC_FLOAT, 0, p, 0}), A_ints(dims, nd), A_b(true), acc != src.dtype ? A_dtype(acc) : A_none()};
        rc = k_vnorm(vn, 5, &nv, 1, ctx);
    }
    if (!rc) {
        double mx = rnd(maxnorm, acc), e = rnd(1e-7, acc);
        for (int64_t i = 0; i < n; i++) {
            double nm = eir_load_f64(at_el(&nv, i), acc);
            double f = nm > mx ? rnd(mx / rnd(nm + e, acc), acc) : 1.0;
            eir_store_f64(at_el(&fv, i), x->dtype, f);
        }
        eir_karg m[2] = {A_t(x), A_t(&fv)};
        rc = k_mul(m, 2, out, 1, ctx);
    }
    if (src.data != x->data) eir_kfree(src.data);
    eir_kfree(buf);
    return rc;
}

/* ======================================================================
 * factories: linspace, logspace, eye (above), empty_permuted, new_empty_strided, zero_
 * ====================================================================== */

/* torch's Scalar::to<T>() for dtype dt: an error where the value overflows T */
static int scalar_to(eir_scalar s, eir_dtype dt, double *f, int64_t *i, double *im, eir_kctx *ctx) {
    *im = s.kind == EIR_SC_COMPLEX ? s.im : 0;
    double v = s.kind == EIR_SC_FLOAT || s.kind == EIR_SC_COMPLEX ? s.f : (double)s.i;
    *f = v;
    *i = s.kind == EIR_SC_FLOAT || s.kind == EIR_SC_COMPLEX ? (int64_t)v : s.i;
    if (eir_scalar_fits(&s, dt, ctx)) return -1;
    if (dt == EIR_F16 || dt == EIR_BF16 || dt == EIR_F32) *f = rnd(v, dt);
    if (dt == EIR_U8 || dt == EIR_I8 || dt == EIR_I16 || dt == EIR_I32 || dt == EIR_I64) {
        unsigned char tmp[8]; /* negative ints wrap into uint8 (-3 is 253) */
        eir_store_i64(tmp, dt, *i);
        *i = eir_load_i64(tmp, dt);
    }
    return 0;
}

/* a 0-d tensor's value as the Scalar item() returns */
static int item_of(const tv *t, eir_scalar *s, const char *op, const char *which, eir_kctx *ctx) {
    if (t->rank != 0)
        return eir_kerr(ctx, "%s only supports 0-dimensional start and end tensors, but got %s with %d dimension(s).", op, which, t->rank);
    if (eir_is_complex(t->dtype)) { double re, im; eir_load_c128(t->data, t->dtype, &re, &im); *s = (eir_scalar){EIR_SC_COMPLEX, 0, re, im}; }
    else if (eir_is_floating(t->dtype)) *s = (eir_scalar){EIR_SC_FLOAT, 0, eir_load_f64(t->data, t->dtype), 0};
    else if (t->dtype == EIR_BOOL) { int64_t b = eir_load_i64(t->data, t->dtype); *s = (eir_scalar){EIR_SC_BOOL, b, (double)b, 0}; }
    else { int64_t v = eir_load_i64(t->data, t->dtype); *s = (eir_scalar){EIR_SC_INT, v, (double)v, 0}; }
    return 0;
}

/* start / end of linspace and logspace: a Scalar or a 0-d tensor, per overload */
static int range_args(const eir_karg *a, uint32_t na, const char *op, eir_scalar *start, eir_scalar *end, eir_kctx *ctx) {
    const tv *ts = arg_t(a, na, 0), *te = arg_t(a, na, 1);
    if (ts && te && (ts->rank != 0 || te->rank != 0))
        return eir_kerr(ctx, "%s only supports 0-dimensional start and end tensors, but got start with %d dimension(s) and end with %d dimension(s).", op, ts->rank, te->rank);
    int rc = 0;
    if (ts) rc = item_of(ts, start, op, "start", ctx);
    else *start = arg_sc(a, na, 0, 0);
    if (!rc && te) rc = item_of(te, end, op, "end", ctx);
    else if (!rc) *end = arg_sc(a, na, 1, 0);
    return rc;
}

/* C++'s conversion of a double to an integer type on x86 (out of range: the "integer indefinite" value) */
static int64_t d2i(double v, eir_dtype dt) {
    if (dt == EIR_I64) return v > -9223372036854775808.0 && v < 9223372036854775808.0 ? (int64_t)v : INT64_MIN;
    return v > -2147483649.0 && v < 2147483648.0 ? (int64_t)(int32_t)v : INT32_MIN;
}

/* linspace(start, end, steps, ...) and its Tensor_Tensor / Tensor_Scalar / Scalar_Tensor forms:
 * start + step i below half the steps, end - step (steps - 1 - i) above, in the dtype's arithmetic */
static int k_linspace(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    eir_scalar s0, s1;
    int rc = range_args(a, na, "linspace", &s0, &s1, ctx);
    if (rc) return rc;
    int64_t steps = arg_i(a, na, 2, 0);
    if (steps < 0) return eir_kerr(ctx, "number of steps must be non-negative");
    if (out->rank != 1 || out->sizes[0] != steps) return eir_kerr(ctx, "linspace: output shape does not fit");
    eir_dtype dt = out->dtype;
    if (dt == EIR_BOOL) return eir_kerr(ctx, "\"linspace_cpu\" not implemented for 'Bool'");
    if (steps == 0) return 0;
    if (steps == 1) return tv_fill(out, s0, ctx);
    double f0, f1, im0, im1;
    int64_t i0, i1;
    if ((rc = scalar_to(s0, dt, &f0, &i0, &im0, ctx)) || (rc = scalar_to(s1, dt, &f1, &i1, &im1, ctx))) return rc;
    int64_t half = steps / 2;
    for (int64_t k = 0; k < steps; k++) {
        char *p = at_el(out, k * out->strides[0]);
        bool lo = k < half;
        int64_t m = lo ? k : steps - k - 1;
        if (eir_is_integral(dt, false)) {
            double st = ((double)i1 - (double)i0) / (double)(steps - 1);
            double v = lo ? (double)i0 + st * (double)m : (double)i1 - st * (double)m;
            eir_store_i64(p, dt, d2i(v, dt));
        } else if (dt == EIR_F32) {
            float st = ((float)f1 - (float)f0) / (float)(steps - 1);
            float v = lo ? (float)f0 + st * (float)m : (float)f1 - st * (float)m;
            *(float *)p = v;
        } else if (dt == EIR_F64) {
            double st = (f1 - f0) / (double)(steps - 1);
            *(double *)p = lo ? f0 + st * (double)m : f1 - st * (double)m;
        } else if (dt == EIR_F16 || dt == EIR_BF16) { /* c10::Half / BFloat16 arithmetic: every operation rounds */
            double st = rnd(rnd(f1 - f0, dt) / rnd((double)(steps - 1), dt), dt);
            double t = rnd(st * rnd((double)m, dt), dt);
            eir_store_f64(p, dt, rnd(lo ? f0 + t : f1 - t, dt));
        } else if (eir_is_complex(dt)) {
            double c = (double)(steps - 1);
            double sr = rnd(rnd(f1 - f0, dt) / c, dt), si = rnd(rnd(im1 - im0, dt) / c, dt);
            double tr = rnd(sr * (double)m, dt), ti = rnd(si * (double)m, dt);
            eir_store_c128(p, dt, rnd(lo ? f0 + tr : f1 - tr, dt), rnd(lo ? im0 + ti : im1 - ti, dt));
        } else {
            return eir_kerr(ctx, "\"linspace_cpu\" not implemented for '%s'", dname(dt));
        }
    }
    return 0;
}

/* logspace(start, end, steps, base=10., ...) and its tensor forms: base ** linspace, in double */
static int k_logspace(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    eir_scalar s0, s1;
    int rc = range_args(a, na, "logspace", &s0, &s1, ctx);
    if (rc) return rc;
    int64_t steps = arg_i(a, na, 2, 0);
    double base = arg_f(a, na, 3, 10.0);
    if (steps < 0) return eir_kerr(ctx, "number of steps must be non-negative");
    if (out->rank != 1 || out->sizes[0] != steps) return eir_kerr(ctx, "logspace: output shape does not fit");
    eir_dtype dt = out->dtype;
    if (dt == EIR_BOOL) return eir_kerr(ctx, "\"logspace_cpu\" not implemented for 'Bool'");
    if (steps == 0) return 0;
    if (eir_is_complex(dt)) {
        double f0, f1, im0, im1;
        int64_t i0, i1;
        if (steps > 1 && ((rc = scalar_to(s0, dt, &f0, &i0, &im0, ctx)) || (rc = scalar_to(s1, dt, &f1, &i1, &im1, ctx)))) return rc;
        if (steps == 1) { f0 = s0.kind == EIR_SC_FLOAT || s0.kind == EIR_SC_COMPLEX ? s0.f : (double)s0.i; im0 = s0.kind == EIR_SC_COMPLEX ? s0.im : 0; }
        /* (end - start) / complex(steps - 1): c10's division by a real-valued complex multiplies by its reciprocal */
        double scl = steps > 1 ? rnd(1.0 / (double)(steps - 1), dt) : 0;
        double sr = steps > 1 ? rnd(rnd(f1 - f0, dt) * scl, dt) : 0, si = steps > 1 ? rnd(rnd(im1 - im0, dt) * scl, dt) : 0;
        int64_t half = steps / 2;
        double lb = log(base);
        for (int64_t k = 0; k < steps; k++) {
            bool lo = k < half || steps == 1;
            int64_t m = lo ? k : steps - k - 1;
            double er = lo ? f0 + sr * (double)m : f1 - sr * (double)m, ei = lo ? im0 + si * (double)m : im1 - si * (double)m;
            if (steps > 1) { er = rnd(er, dt); ei = rnd(ei, dt); }
            /* base ** (er + i ei) = exp((er + i ei) log base) */
            double mag = exp(er * lb), ang = ei * lb;
            eir_store_c128(at_el(out, k * out->strides[0]), dt, mag * cos(ang), mag * sin(ang));
        }
        return 0;
    }
    if (steps == 1) {
        double s = s0.kind == EIR_SC_FLOAT || s0.kind == EIR_SC_COMPLEX ? s0.f : (double)s0.i;
        return tv_fill(out, (eir_scalar){EIR_SC_FLOAT, 0, pow(base, s), 0}, ctx);
    }
    double f0, f1, im0, im1;
    int64_t i0, i1;
    if ((rc = scalar_to(s0, dt, &f0, &i0, &im0, ctx)) || (rc = scalar_to(s1, dt, &f1, &i1, &im1, ctx))) return rc;
    bool integral = eir_is_integral(dt, false);
    double start = integral ? (double)i0 : f0, diff;
    if (integral) {
        /* end - start in C++'s integer arithmetic: int64 wraps, narrower types promote to int */
        diff = dt == EIR_I64 ? (double)(int64_t)((uint64_t)i1 - (uint64_t)i0) : (double)(i1 - i0);
    } else {
        diff = rnd(f1 - f0, dt);
    }
    double step = diff / (double)(steps - 1), end = integral ? (double)i1 : f1;
    int64_t half = steps / 2;
    for (int64_t k = 0; k < steps; k++) {
        double e = k < half ? start + step * (double)k : end - step * (double)(steps - k - 1);
        double v = pow(base, e);
        char *p = at_el(out, k * out->strides[0]);
        if (integral) eir_store_i64(p, dt, d2i(v, dt));
        else if (dt == EIR_F16 || dt == EIR_BF16) eir_store_f64(p, dt, (float)v);
        else eir_store_f64(p, dt, v);
    }
    return 0;
}

/* empty_permuted / new_empty_strided: uninitialized in torch; zeros here, so runs reproduce */
static int k_zeros_out(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    (void)a; (void)na;
    for (uint32_t i = 0; i < no; i++) {
        int rc = tv_fill(&out[i], S_ZERO, ctx);
        if (rc) return rc;
    }
    return 0;
}

/* square(self): pow(self, 2) */
static int k_square(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    eir_karg p[2] = {A_t(x), A_sc((eir_scalar){EIR_SC_INT, 2, 2, 0})};
    return k_pow_ts(p, 2, out, 1, ctx);
}

/* ======================================================================
 * window functions: hann, hamming, blackman, bartlett, kaiser
 * (TensorFactories.cpp). Each step is one of torch's tensor ops on the
 * window, so each rounds to the window's dtype: the arithmetic is in its
 * opmath type (float for float16/bfloat16/float32), the scalars are first
 * rounded to the window's dtype, as torch's in-place ops on it do.
 * ====================================================================== */

/* the window length torch works with (periodic: one more, the last dropped);
 * 0: the window is empty or [1] and is already written */
static int64_t window_start(const char *api, const eir_karg *a, uint32_t na, bool has_periodic, tv *out, eir_kctx *ctx, int *rc) {
    int64_t n = arg_i(a, na, 0, 0);
    bool periodic = has_periodic ? arg_i(a, na, 1, 1) != 0 : true;
    *rc = 0;
    if (n < 0) { *rc = eir_kerr(ctx, "%s requires non-negative window_length, got window_length=%" PRId64, api, n); return 0; }
    if (!eir_is_floating(out->dtype)) {
        *rc = eir_kerr(ctx, "%s expects floating point dtypes, got: %s", api, dname(out->dtype));
        return 0;
    }
    if (out->rank != 1 || out->sizes[0] != n) { *rc = eir_kerr(ctx, "%s: output shape does not fit", api); return 0; }
    if (n == 0) return 0;
    if (n == 1) { *rc = tv_fill(out, S_ONE, ctx); return 0; }
    return periodic ? n + 1 : n;
}

static inline eir_dtype opmath(eir_dtype d) { return d == EIR_F64 ? EIR_F64 : EIR_F32; }
/* one tensor op: computed in opmath, stored in the window's dtype */
static inline double wstep(double v, eir_dtype d) { return rnd(rnd(v, opmath(d)), d); }

static void window_store(tv *out, int64_t i, double v) {
    eir_store_f64((char *)out->data + i * out->strides[0] * (int64_t)eir_dtype_size(out->dtype), out->dtype, v);
}

/* hamming_window(N, periodic=True, alpha=0.54, beta=0.46); hann_window is alpha = beta = 0.5:
 * arange(N).mul_(2 pi / (N - 1)).cos_().mul_(-beta).add_(alpha) */
static int hamming(const char *api, const eir_karg *a, uint32_t na, bool has_periodic, double alpha, double beta, tv *out,
                   eir_kctx *ctx) {
    int rc;
    int64_t n = window_start(api, a, na, has_periodic, out, ctx, &rc);
    if (!n) return rc;
    eir_dtype d = out->dtype;
    double c = rnd(M_PI * 2. / (double)(n - 1), d), mb = rnd(-beta, d), al = rnd(alpha, d);
    for (int64_t i = 0; i < out->sizes[0]; i++) {
        double v = wstep(rnd((double)i, d) * c, d);
        v = wstep(cos(v), d);
        v = wstep(v * mb, d);
        window_store(out, i, wstep(v + al, d));
    }
    return 0;
}
static int k_hann_window(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return hamming("hann_window", a, na, false, 0.5, 0.5, out, ctx);
}
static int k_hann_window_p(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return hamming("hann_window", a, na, true, 0.5, 0.5, out, ctx);
}
static int k_hamming_window(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return hamming("hamming_window", a, na, false, 0.54, 0.46, out, ctx);
}
/* .periodic, .periodic_alpha, .periodic_alpha_beta */
static int k_hamming_window_p(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    double alpha = 0.54, beta = 0.46;
    if (na > 2 && (a[2].kind == EIR_KA_FLOAT || a[2].kind == EIR_KA_INT)) alpha = arg_f(a, na, 2, 0.54);
    if (na > 3 && (a[3].kind == EIR_KA_FLOAT || a[3].kind == EIR_KA_INT)) beta = arg_f(a, na, 3, 0.46);
    return hamming("hamming_window", a, na, true, alpha, beta, out, ctx);
}

/* blackman_window: w = arange(N).mul_(pi / (N - 1)); w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42 */
static int blackman(const eir_karg *a, uint32_t na, bool has_periodic, tv *out, eir_kctx *ctx) {
    int rc;
    int64_t n = window_start("blackman_window", a, na, has_periodic, out, ctx, &rc);
    if (!n) return rc;
    eir_dtype d = out->dtype;
    double c = rnd(M_PI / (double)(n - 1), d), k8 = rnd(0.08, d), k42 = rnd(0.42, d);
    for (int64_t i = 0; i < out->sizes[0]; i++) {
        double w = wstep(rnd((double)i, d) * c, d);
        double p = wstep(wstep(cos(wstep(w * 4, d)), d) * k8, d);
        double q = wstep(wstep(cos(wstep(w * 2, d)), d) * 0.5, d);
        window_store(out, i, wstep(wstep(p - q, d) + k42, d));
    }
    return 0;
}
static int k_blackman_window(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return blackman(a, na, false, out, ctx);
}
static int k_blackman_window_p(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return blackman(a, na, true, out, ctx);
}

/* bartlett_window: w = arange(N).mul_(2 / (N - 1)); its second half (from ((N-1) >> 1) + 1) .mul_(-1).add_(2) */
static int bartlett(const eir_karg *a, uint32_t na, bool has_periodic, tv *out, eir_kctx *ctx) {
    int rc;
    int64_t n = window_start("bartlett_window", a, na, has_periodic, out, ctx, &rc);
    if (!n) return rc;
    eir_dtype d = out->dtype;
    double c = rnd(2. / (double)(n - 1), d);
    int64_t half = ((n - 1) >> 1) + 1;
    for (int64_t i = 0; i < out->sizes[0]; i++) {
        double w = wstep(rnd((double)i, d) * c, d);
        if (i >= half) w = wstep(-w + 2, d);
        window_store(out, i, w);
    }
    return 0;
}
static int k_bartlett_window(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return bartlett(a, na, false, out, ctx);
}
static int k_bartlett_window_p(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return bartlett(a, na, true, out, ctx);
}

/* kaiser_window(N, periodic=True, beta=12.): i0(beta * sqrt(|1 - ((i - alpha) / alpha)^2|)) / i0(beta),
 * alpha = (N - 1) / 2, in the opmath type (float for float16/bfloat16/float32) with torch's calc_i0 */
static int kaiser(const eir_karg *a, uint32_t na, bool has_periodic, double beta, tv *out, eir_kctx *ctx) {
    int rc;
    int64_t n = window_start("kaiser_window", a, na, has_periodic, out, ctx, &rc);
    if (!n) return rc;
    eir_dtype d = out->dtype;
    if (d == EIR_F64) {
        double alpha = (double)(n - 1) / 2.0, den = eir_calc_i0_d(beta);
        for (int64_t i = 0; i < out->sizes[0]; i++) {
            double r = ((double)i - alpha) / alpha;
            window_store(out, i, eir_calc_i0_d(beta * sqrt(fabs(1 - pow(r, 2.0)))) / den);
        }
        return 0;
    }
    float alpha = (float)((double)(n - 1) / 2.0), fb = (float)beta, den = eir_calc_i0_f(fb);
    for (int64_t i = 0; i < out->sizes[0]; i++) {
        float r = ((float)rnd((double)i, d) - alpha) / alpha;
        window_store(out, i, eir_calc_i0_f(fb * sqrtf(fabsf(1.0f - powf(r, 2.0f)))) / den);
    }
    return 0;
}
static int k_kaiser_window(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return kaiser(a, na, false, 12.0, out, ctx);
}
static int k_kaiser_window_p(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return kaiser(a, na, true, 12.0, out, ctx);
}
static int k_kaiser_window_beta(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return kaiser(a, na, true, arg_f(a, na, 2, 12.0), out, ctx);
}

/* ======================================================================
 * one_hot (num_classes = -1 is sized by eir_compose_presize)
 * ====================================================================== */

/* the number of classes of one_hot(x, nc), with torch's checks */
static int oh_classes(const tv *x, int64_t nc, int64_t *classes, eir_kctx *ctx) {
    if (x->dtype != EIR_I64) return eir_kerr(ctx, "one_hot is only applicable to index tensor of type LongTensor.");
    int64_t n = eir_tview_numel(x), idx[EIR_MAX_RANK] = {0}, lo = INT64_MAX, hi = INT64_MIN;
    if (n == 0) {
        if (nc <= 0) return eir_kerr(ctx, "Can not infer total number of classes from empty tensor.");
        *classes = nc;
        return 0;
    }
    do {
        int64_t v = *(const int64_t *)eir_tview_at(x, idx);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    } while (next_idx(idx, x->sizes, x->rank));
    if (lo < 0) return eir_kerr(ctx, "Class values must be non-negative.");
    if (nc == -1) nc = hi + 1;
    else if (!(nc > hi)) return eir_kerr(ctx, "Class values must be smaller than num_classes.");
    *classes = nc;
    return 0;
}

/* one_hot(self, num_classes=-1): zeros with a 1 at each value (torch's scatter_ of 1) */
static int k_one_hot(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t nc;
    int rc = oh_classes(x, arg_i(a, na, 1, -1), &nc, ctx);
    if (rc) return rc;
    if (x->rank + 1 > EIR_MAX_RANK || out->rank != x->rank + 1 || out->sizes[x->rank] != nc)
        return eir_kerr(ctx, "one_hot: the output does not have %" PRId64 " classes", nc);
    if ((rc = tv_fill(out, S_ZERO, ctx))) return rc;
    int64_t idx[EIR_MAX_RANK] = {0};
    if (eir_tview_numel(x) == 0) return 0;
    do {
        int64_t v = *(const int64_t *)eir_tview_at(x, idx), off = v * out->strides[x->rank];
        for (int32_t d = 0; d < x->rank; d++) off += idx[d] * out->strides[d];
        eir_store_i64(at_el(out, off), out->dtype, 1);
    } while (next_idx(idx, x->sizes, x->rank));
    return 0;
}

/* ======================================================================
 * hstack, vstack, dstack, column_stack: atleast_Nd views, then cat
 * ====================================================================== */

enum { STK_H, STK_V, STK_D, STK_COL };

static int stack_cat(int mode, const eir_karg *a, uint32_t na, tv *out, eir_kctx *ctx) {
    static const char *const names[] = {"hstack", "vstack", "dstack", "column_stack"};
    if (na < 1 || a[0].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "%s: expected a tensor list", names[mode]);
    uint32_t n = a[0].n;
    if (n == 0) return eir_kerr(ctx, "%s expects a non-empty TensorList", names[mode]);
    void *buf = eir_kalloc(n * (sizeof(tv) + sizeof(tv *)));
    if (!buf) return eir_kerr(ctx, "out of memory");
    tv *vs = buf;
    const tv **ps = (const tv **)(vs + n);
    for (uint32_t i = 0; i < n; i++) {
        const tv *t = a[0].ts[i];
        if (!t) { eir_kfree(buf); return eir_kerr(ctx, "%s: tensor %u is None", names[mode], i); }
        tv v = *t;
        switch (mode) {
        case STK_H: if (v.rank == 0) v_unsq(&v, 0); break;
        case STK_V: while (v.rank < 2) v_unsq(&v, 0); break;
        case STK_D:
            if (v.rank == 0) v_unsq(&v, 0);
            if (v.rank == 1) v_unsq(&v, 0);
            if (v.rank == 2) v_unsq(&v, 2);
            break;
        default: /* t.reshape({t.numel(), 1}) */
            if (v.rank == 0) v_unsq(&v, 0);
            if (v.rank == 1) v_unsq(&v, 1);
            break;
        }
        vs[i] = v;
        ps[i] = &vs[i];
    }
    int64_t dim = mode == STK_H ? (vs[0].rank == 1 ? 0 : 1) : mode == STK_V ? 0 : mode == STK_D ? 2 : 1;
    eir_karg ca[2] = {A_ts(ps, n), A_i(dim)};
    int rc = k_cat(ca, 2, out, 1, ctx);
    eir_kfree(buf);
    return rc;
}
static int k_hstack(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return stack_cat(STK_H, a, na, out, ctx); }
static int k_vstack(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return stack_cat(STK_V, a, na, out, ctx); }
static int k_dstack(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return stack_cat(STK_D, a, na, out, ctx); }
static int k_column_stack(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return stack_cat(STK_COL, a, na, out, ctx); }

/* ======================================================================
 * diff, msort
 * ====================================================================== */

static int dim_err(eir_kctx *ctx, int64_t d, int32_t rank) {
    return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -(rank ? rank : 1),
                    rank ? rank - 1 : 0, d);
}

/* diff(self, n=1, dim=-1, prepend=None, append=None): n rounds of
 * narrow(1) - narrow(0) (logical_xor for bool) on cat(prepend, self, append) */
static int k_diff(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t n = arg_i(a, na, 1, 1), dim_arg = arg_i(a, na, 2, -1);
    const tv *pa[2] = {arg_t(a, na, 3), arg_t(a, na, 4)};
    if (x->rank < 1) return eir_kerr(ctx, "diff expects input to be at least one-dimensional");
    if (n < 0) return eir_kerr(ctx, "order must be non-negative but got %" PRId64, n);
    int32_t dim = eir_wrap_dim(dim_arg, x->rank);
    for (int k = 0; k < 2; k++) {
        if (!pa[k]) continue;
        if (dim < 0) return dim_err(ctx, dim_arg, x->rank);
        if (pa[k]->rank != x->rank) return eir_kerr(ctx, "diff expects prepend or append to be the same dimension as input");
        for (int32_t d = 0; d < x->rank; d++)
            if (d != dim && pa[k]->sizes[d] != x->sizes[d])
                return eir_kerr(ctx, "diff expects the shape of tensor to prepend or append to match that of input except along the "
                                "differencing dimension; input.size(%d) = %" PRId64 ", but got tensor.size(%d) = %" PRId64,
                                d, x->sizes[d], d, pa[k]->sizes[d]);
    }
    if (dim < 0) return dim_err(ctx, dim_arg, x->rank);
    if (n == 0) return tv_copy(out, x, ctx);
    eir_dtype dt = out->dtype;
    /* the sequence, concatenated in the result dtype when there is anything to add */
    int64_t sz[EIR_MAX_RANK];
    memcpy(sz, x->sizes, sizeof sz);
    for (int k = 0; k < 2; k++) sz[dim] += pa[k] ? pa[k]->sizes[dim] : 0;
    int64_t len = sz[dim], total = 1;
    for (int32_t d = 0; d < x->rank; d++) total *= sz[d];
    char *buf = eir_kalloc((size_t)(3 * total + 3) * esz(dt));
    if (!buf) return eir_kerr(ctx, "out of memory");
    int rc = 0;
    tv cur = *x;
    if (pa[0] || pa[1]) {
        const tv *parts[3];
        uint32_t np = 0;
        if (pa[0]) parts[np++] = pa[0];
        parts[np++] = x;
        if (pa[1]) parts[np++] = pa[1];
        cur = v_contig(buf, dt, x->rank, sz);
        eir_karg ca[2] = {A_ts(parts, np), A_i(dim)};
        rc = k_cat(ca, 2, &cur, 1, ctx);
    }
    if (n > len) n = len;
    if (!rc && out->sizes[dim] != len - n) rc = eir_kerr(ctx, "diff: the output does not fit the input");
    bool lx = cur.dtype == EIR_BOOL;
    for (int64_t r = 0; !rc && r < n; r++) {
        int64_t ol = len - 1 - r;
        tv hi = cur, lo = cur, res;
        v_narrow(&hi, dim, 1, ol);
        v_narrow(&lo, dim, 0, ol);
        if (r == n - 1) res = *out;
        else {
            sz[dim] = ol;
            res = v_contig(buf + (size_t)((r % 2 + 1) * total + 1) * esz(dt), dt, x->rank, sz);
        }
        eir_karg sa[3] = {A_t(&hi), A_t(&lo), A_i(1)};
        rc = lx ? k_lxor(sa, 2, &res, 1, ctx) : k_sub(sa, 3, &res, 1, ctx);
        cur = res;
    }
    if (!rc && n == 0) rc = tv_copy(out, &cur, ctx); /* an empty dim: nothing to difference */
    eir_kfree(buf);
    return rc;
}

/* msort(self): sort(self, dim=0).values */
static int k_msort(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    int64_t n = eir_tview_numel(x);
    void *ib = eir_kalloc((size_t)(n + 1) * sizeof(int64_t));
    if (!ib) return eir_kerr(ctx, "out of memory");
    tv outs[2] = {*out, v_contig(ib, EIR_I64, x->rank, x->sizes)};
    eir_karg sa[3] = {A_t(x), A_i(0), A_b(false)};
    int rc = k_sort(sa, 3, outs, 2, ctx);
    eir_kfree(ib);
    return rc;
}

/* ======================================================================
 * tril_indices, triu_indices
 * ====================================================================== */

static int tri_indices(bool upper, const eir_karg *a, uint32_t na, tv *out, eir_kctx *ctx) {
    const char *api = upper ? "triu_indices" : "tril_indices";
    int64_t row = arg_i(a, na, 0, 0), col = arg_i(a, na, 1, 0), off = arg_i(a, na, 2, 0);
    if (row < 0) return eir_kerr(ctx, "row must be non-negative, got%" PRId64, row);
    if (col < 0) return eir_kerr(ctx, "col must be non-negative, got%" PRId64, col);
    if (out->dtype != EIR_I64 && out->dtype != EIR_I32) return eir_kerr(ctx, "\"%s\" not implemented for '%s'", api, dname(out->dtype));
    int64_t k = 0;
    for (int64_t i = 0; i < row; i++) {
        /* the columns j with j - i <= off (tril) or >= off (triu), as a range */
        int64_t lo = upper ? i + off : 0, hi = upper ? col : i + off + 1;
        if (lo < 0) lo = 0;
        if (hi > col) hi = col;
        for (int64_t j = lo; j < hi; j++, k++) {
            if (out->rank != 2 || out->sizes[0] != 2 || k >= out->sizes[1]) return eir_kerr(ctx, "%s: the output does not fit", api);
            eir_store_i64(at_el(out, k * out->strides[1]), out->dtype, i);
            eir_store_i64(at_el(out, out->strides[0] + k * out->strides[1]), out->dtype, j);
        }
    }
    if (out->rank != 2 || out->sizes[1] != k) return eir_kerr(ctx, "%s: the output does not fit", api);
    return 0;
}
static int k_tril_indices(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return tri_indices(false, a, na, out, ctx); }
static int k_triu_indices(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return tri_indices(true, a, na, out, ctx); }

/* ======================================================================
 * trapezoid / trapz / cumulative_trapezoid (aten/src/ATen/native/Integration.cpp)
 * ====================================================================== */

/* torch's result dtype of an integral sum / cumsum (int64) and of an integral tensor times a float (float32) */
static eir_dtype sum_dt(eir_dtype d) { return eir_is_integral(d, true) ? EIR_I64 : d; }
static eir_dtype flt_dt(eir_dtype d) { return eir_is_integral(d, true) ? EIR_F32 : d; }

/* a scratch tensor of dtype dt and sizes, carved from *pool */
static tv carve(char **pool, eir_dtype dt, int32_t rank, const int64_t *sizes) {
    int64_t n = 1;
    for (int32_t d = 0; d < rank; d++) n *= sizes[d];
    tv v = v_contig(*pool, dt, rank, sizes);
    *pool += (size_t)((n + 1) * (int64_t)esz(dt) + 15) / 16 * 16;
    return v;
}

/* the shared tail of the x and dx forms: out = ((left + right) * dx).sum(dim) / 2.
 * (cumulative: .cumsum(dim) / 2.), dx a tensor broadcasting against left */
static int trap_tensor_dx(const tv *y, const tv *dx, int32_t dim, bool cumulative, tv *out, eir_kctx *ctx) {
    int32_t rank = y->rank > dx->rank ? y->rank : dx->rank;
    int64_t ysz[EIR_MAX_RANK], bsz[EIR_MAX_RANK], ssz[EIR_MAX_RANK];
    memcpy(ysz, y->sizes, sizeof ysz);
    ysz[dim] -= 1;
    for (int32_t d = 0; d < rank; d++) {
        int32_t a = d - (rank - y->rank), b = d - (rank - dx->rank);
        int64_t sa = a >= 0 ? ysz[a] : 1, sb = b >= 0 ? dx->sizes[b] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return eir_kerr(ctx, "The size of tensor a (%" PRId64 ") must match the size of tensor b (%" PRId64 ") at non-singleton dimension %d", sa, sb, d);
        bsz[d] = sa == 1 ? sb : sa;
    }
    int32_t srank = 0;
    for (int32_t d = 0; d < rank; d++)
        if (cumulative || d != dim) ssz[srank++] = bsz[d];
    eir_dtype p = eir_promote_types(y->dtype, dx->dtype), s = sum_dt(p);
    int64_t nb = 1;
    for (int32_t d = 0; d < rank; d++) nb *= bsz[d];
    char *pool = eir_kalloc((size_t)(2 * nb + eir_tview_numel(y) + 8) * 16 + 64), *q = pool;
    if (!pool) return eir_kerr(ctx, "out of memory");
    tv lr = carve(&q, y->dtype, y->rank, ysz), pr = carve(&q, p, rank, bsz), sm = carve(&q, s, srank, ssz);
    tv left = *y, right = *y;
    v_narrow(&left, dim, 0, y->sizes[dim] - 1);
    v_narrow(&right, dim, 1, y->sizes[dim] - 1);
    eir_karg ad[3] = {A_t(&left), A_t(&right), A_i(1)}, md[2] = {A_t(&lr), A_t(dx)};
    int64_t dims[1] = {dim};
    eir_karg sd[4] = {A_t(&pr), A_ints(dims, 1), A_b(false), A_none()}, cd[3] = {A_t(&pr), A_i(dim), A_none()};
    eir_karg vd[2] = {A_t(&sm), A_f(2.0)};
    int rc = k_add(ad, 3, &lr, 1, ctx);
    if (!rc) rc = k_mul(md, 2, &pr, 1, ctx);
    if (!rc) rc = cumulative ? k_cumsum(cd, 3, &sm, 1, ctx) : k_sum_dim(sd, 4, &sm, 1, ctx);
    if (!rc) rc = k_div(vd, 2, out, 1, ctx);
    eir_kfree(pool);
    return rc;
}

/* x viewed as torch views it: a 1-d x along dim, a lower-rank x with leading 1s */
static int trap_x(const char *api, const tv *y, const tv *x, int32_t dim, tv *xv, eir_kctx *ctx) {
    *xv = *x;
    if (x->rank == 1) {
        if (x->sizes[0] != y->sizes[dim]) return eir_kerr(ctx, "%s: There must be one `x` value for each sample point", api);
        int64_t st = x->strides[0];
        xv->rank = y->rank;
        for (int32_t d = 0; d < y->rank; d++) { xv->sizes[d] = 1; xv->strides[d] = 0; }
        xv->sizes[dim] = x->sizes[0];
        xv->strides[dim] = st;
    } else {
        while (xv->rank < y->rank) v_unsq(xv, 0);
    }
    if (dim >= xv->rank) return dim_err(ctx, dim, xv->rank);
    return 0;
}

static int trapezoid_x(const char *api, bool cumulative, const eir_karg *a, uint32_t na, tv *out, eir_kctx *ctx) {
    NEED_T(0, y);
    NEED_T(1, x);
    int64_t dim_arg = arg_i(a, na, 2, -1);
    if (y->rank == 0 && !cumulative) return eir_kerr(ctx, "Dimension specified as %" PRId64 " but tensor has no dimensions", dim_arg);
    if (y->rank == 0) return eir_kerr(ctx, "slice() cannot be applied to a 0-dim tensor.");
    int32_t dim = eir_wrap_dim(dim_arg, y->rank);
    if (dim < 0) return dim_err(ctx, dim_arg, y->rank);
    if (!cumulative && y->sizes[dim] == 0) return tv_fill(out, S_ZERO, ctx);
    if (y->dtype == EIR_BOOL || x->dtype == EIR_BOOL)
        return eir_kerr(ctx, "%s: received a bool input for `x` or `y`, but bool is not supported", api);
    tv xv;
    int rc = trap_x(api, y, x, dim, &xv, ctx);
    if (rc) return rc;
    /* dx = x_right - x_left, in x's dtype */
    tv xl = xv, xr = xv;
    int64_t m = xv.sizes[dim] > 0 ? xv.sizes[dim] - 1 : 0;
    v_narrow(&xl, dim, 0, m);
    v_narrow(&xr, dim, 1, m);
    void *db = eir_kalloc((size_t)(eir_tview_numel(&xl) + 1) * esz(x->dtype));
    if (!db) return eir_kerr(ctx, "out of memory");
    tv dx = v_contig(db, x->dtype, xl.rank, xl.sizes);
    eir_karg sa[3] = {A_t(&xr), A_t(&xl), A_i(1)};
    rc = k_sub(sa, 3, &dx, 1, ctx);
    if (!rc) rc = trap_tensor_dx(y, &dx, dim, cumulative, out, ctx);
    eir_kfree(db);
    return rc;
}

static int trapezoid_dx(const char *api, bool cumulative, const eir_karg *a, uint32_t na, tv *out, eir_kctx *ctx) {
    NEED_T(0, y);
    int64_t dim_arg = arg_i(a, na, 2, -1);
    eir_scalar dxs = arg_sc(a, na, 1, 1);
    double dx = dxs.kind == EIR_SC_FLOAT || dxs.kind == EIR_SC_COMPLEX ? dxs.f : (double)dxs.i;
    int32_t dim = eir_wrap_dim(dim_arg, y->rank);
    if (y->rank == 0 && !cumulative) return eir_kerr(ctx, "Dimension specified as %" PRId64 " but tensor has no dimensions", dim_arg);
    if (dim < 0 && !(cumulative && y->rank == 0)) return dim_err(ctx, dim_arg, y->rank);
    if (!cumulative && y->sizes[dim] == 0) return tv_fill(out, S_ZERO, ctx);
    if (y->dtype == EIR_BOOL) return eir_kerr(ctx, "%s: received a bool input for `y`, but bool is not supported", api);
    if (dxs.kind == EIR_SC_COMPLEX || dxs.kind == EIR_SC_BOOL) return eir_kerr(ctx, "%s: Currently, we only support dx as a real number.", api);
    if (y->rank == 0) return eir_kerr(ctx, "slice() cannot be applied to a 0-dim tensor.");
    int64_t sz[EIR_MAX_RANK], n = y->sizes[dim];
    memcpy(sz, y->sizes, sizeof sz);
    char *pool = eir_kalloc((size_t)(3 * eir_tview_numel(y) + 8) * 16 + 64), *q = pool;
    if (!pool) return eir_kerr(ctx, "out of memory");
    int rc;
    if (cumulative) { /* (dx / 2. * (left + right)).cumsum(dim) */
        sz[dim] = n > 0 ? n - 1 : 0;
        tv lr = carve(&q, y->dtype, y->rank, sz), m = carve(&q, flt_dt(y->dtype), y->rank, sz);
        tv left = *y, right = *y;
        v_narrow(&left, dim, 0, sz[dim]);
        v_narrow(&right, dim, 1, sz[dim]);
        eir_karg ad[3] = {A_t(&left), A_t(&right), A_i(1)}, md[2] = {A_t(&lr), A_f(dx / 2.)}, cd[3] = {A_t(&m), A_i(dim), A_none()};
        rc = k_add(ad, 3, &lr, 1, ctx);
        if (!rc) rc = k_mul(md, 2, &m, 1, ctx);
        if (!rc) rc = k_cumsum(cd, 3, out, 1, ctx);
    } else { /* (y.sum(dim) - (y.select(dim, 0) + y.select(dim, -1)) * 0.5) * dx */
        int32_t r = 0;
        for (int32_t d = 0; d < y->rank; d++)
            if (d != dim) sz[r++] = y->sizes[d];
        eir_dtype ds = eir_promote_types(sum_dt(y->dtype), flt_dt(y->dtype));
        tv s = carve(&q, sum_dt(y->dtype), r, sz), e = carve(&q, y->dtype, r, sz), h = carve(&q, flt_dt(y->dtype), r, sz);
        tv df = carve(&q, ds, r, sz), first = *y, last = *y;
        v_select(&first, dim, 0);
        v_select(&last, dim, n - 1);
        int64_t dims[1] = {dim};
        eir_karg sd[4] = {A_t(y), A_ints(dims, 1), A_b(false), A_none()}, ad[3] = {A_t(&first), A_t(&last), A_i(1)};
        eir_karg hd[2] = {A_t(&e), A_f(0.5)}, bd[3] = {A_t(&s), A_t(&h), A_i(1)}, md[2] = {A_t(&df), A_f(dx)};
        rc = k_sum_dim(sd, 4, &s, 1, ctx);
        if (!rc) rc = k_add(ad, 3, &e, 1, ctx);
        if (!rc) rc = k_mul(hd, 2, &h, 1, ctx);
        if (!rc) rc = k_sub(bd, 3, &df, 1, ctx);
        if (!rc) rc = k_mul(md, 2, out, 1, ctx);
    }
    eir_kfree(pool);
    return rc;
}

static int k_trapezoid_x(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return trapezoid_x("trapezoid", false, a, na, out, ctx); }
static int k_trapezoid_dx(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return trapezoid_dx("trapezoid", false, a, na, out, ctx); }
static int k_cumtrapz_x(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return trapezoid_x("cumulative_trapezoid", true, a, na, out, ctx);
}
static int k_cumtrapz_dx(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    return trapezoid_dx("cumulative_trapezoid", true, a, na, out, ctx);
}

/* ======================================================================
 * max_unpool2d / max_unpool3d (aten/src/ATen/native/MaxUnpooling.cpp and
 * cpu/MaxUnpoolKernel.cpp): zeros, then each input element written at its
 * index within its (N, C) plane; with repeated indices the later element
 * wins (torch's threads race there)
 * ====================================================================== */

static int max_unpool(int nd, const eir_karg *a, uint32_t na, tv *out, eir_kctx *ctx) {
    NEED_T(0, x);
    NEED_T(1, ix);
    const char *fn = nd == 2 ? "max_unpooling2d_forward_out_cpu()" : "max_unpooling3d_forward_out_cpu()";
    char b1[160], b2[160];
    if (na < 3 || a[2].kind != EIR_KA_INTS) return eir_kerr(ctx, "max_unpool%dd: expected output_size", nd);
    uint32_t nos = a[2].n;
    if (nd == 2) {
        if (ix->dtype != EIR_I64) return eir_kerr(ctx, "elements in indices should be type int64 but got: %s", dname(ix->dtype));
        if (nos != 2)
            return eir_kerr(ctx, "There should be exactly two elements (height, width) in output_size, but got %u elements.", nos);
        if (x->rank != 3 && x->rank != 4)
            return eir_kerr(ctx, "Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with %d dimensions.", x->rank);
    } else {
        if (ix->dtype != EIR_I64) return eir_kerr(ctx, "elements in indices should be type int64");
        if (x->rank != 4 && x->rank != 5)
            return eir_kerr(ctx, "Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with %d dimensions.", x->rank);
        if (nos != 3)
            return eir_kerr(ctx, "There should be exactly three elements (depth, height, width) in output_size, but got %u elements.", nos);
        for (int k = 3; k <= 4; k++)
            if (na <= (uint32_t)k || a[k].kind != EIR_KA_INTS || a[k].n != 3)
                return eir_kerr(ctx, "There should be exactly three elements (depth, height, width) in %s, but got: %u elements.",
                                k == 3 ? "stride" : "padding", na > (uint32_t)k ? a[k].n : 0);
    }
    if (!same_sizes(x, ix))
        return eir_kerr(ctx, "Expected shape of indices to be same as that of the input tensor (%s) but got indices tensor with shape: %s",
                        fmt_shape(b1, sizeof b1, x->rank, x->sizes), fmt_shape(b2, sizeof b2, ix->rank, ix->sizes));
    for (int32_t d = 1; d < x->rank; d++)
        if (x->sizes[d] <= 0)
            return eir_kerr(ctx, "%s: Expected input to have non-zero size for non-batch dimensions, but got %s with dimension %d being empty.",
                            fn, fmt_shape(b1, sizeof b1, x->rank, x->sizes), d);
    if (nd == 3 && !(a[3].ints[0] > 0 && a[3].ints[1] > 0 && a[3].ints[2] > 0))
        return eir_kerr(ctx, "strides should be greater than zero, but got stride: [%" PRId64 ", %" PRId64 ", %" PRId64 "]", a[3].ints[0],
                        a[3].ints[1], a[3].ints[2]);
    if (x->dtype != EIR_F32 && x->dtype != EIR_F64 && x->dtype != EIR_F16 && x->dtype != EIR_BF16)
        return eir_kerr(ctx, "\"max_unpool%dd\" not implemented for '%s'", nd, dname(x->dtype));
    int32_t lead = x->rank - nd;
    if (out->rank != x->rank || out->dtype != x->dtype) return eir_kerr(ctx, "max_unpool%dd: the output does not fit", nd);
    for (int32_t d = 0; d < lead; d++)
        if (out->sizes[d] != x->sizes[d]) return eir_kerr(ctx, "max_unpool%dd: the output does not fit", nd);
    int64_t oimg = 1, iimg = 1;
    for (int32_t d = 0; d < nd; d++) {
        if (out->sizes[lead + d] != a[2].ints[d]) return eir_kerr(ctx, "max_unpool%dd: the output does not fit", nd);
        oimg *= a[2].ints[d];
        iimg *= x->sizes[lead + d];
    }
    int rc = tv_fill(out, S_ZERO, ctx);
    if (rc || eir_tview_numel(out) == 0) return rc;
    int64_t planes = eir_tview_numel(x) / (iimg ? iimg : 1), bad = 0;
    bool has_bad = false;
    size_t es = esz(x->dtype);
    for (int64_t c = 0; c < planes; c++) {
        int64_t idx[EIR_MAX_RANK] = {0}, ooff = 0, r = c;
        for (int32_t d = lead - 1; d >= 0; d--) { idx[d] = r % x->sizes[d]; r /= x->sizes[d]; ooff += idx[d] * out->strides[d]; }
        for (int64_t i = 0; i < iimg; i++) {
            int64_t rr = i;
            for (int32_t d = x->rank - 1; d >= lead; d--) { idx[d] = rr % x->sizes[d]; rr /= x->sizes[d]; }
            int64_t p = *(const int64_t *)eir_tview_at(ix, idx);
            if (p < 0 || p >= oimg) { has_bad = true; bad = p; continue; }
            int64_t off = ooff, pp = p;
            for (int32_t d = x->rank - 1; d >= lead; d--) { off += (pp % out->sizes[d]) * out->strides[d]; pp /= out->sizes[d]; }
            memcpy(at_el(out, off), eir_tview_at(x, idx), es);
        }
    }
    if (has_bad) {
        if (nd == 2)
            return eir_kerr(ctx, "Found an invalid max index: %" PRId64 " (output volumes are of size %" PRId64 "x%" PRId64 ")", bad, a[2].ints[0],
                            a[2].ints[1]);
        return eir_kerr(ctx, "Found an invalid max index: %" PRId64 " (output volumes are of size %" PRId64 "x%" PRId64 "x%" PRId64 ")", bad,
                        a[2].ints[0], a[2].ints[1], a[2].ints[2]);
    }
    return 0;
}
static int k_max_unpool2d(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return max_unpool(2, a, na, out, ctx); }
static int k_max_unpool3d(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) { return max_unpool(3, a, na, out, ctx); }

/* ======================================================================
 * _chunk_cat, nonzero_numpy, embedding_renorm_
 * ====================================================================== */

/* _chunk_cat(tensors, dim, num_chunks): each tensor split into num_chunks
 * zero-padded chunks along dim, each chunk flattened, and the tensors' rows
 * concatenated: out[lead..., k, :] */
static int k_chunk_cat(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    if (na < 3 || a[0].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "_chunk_cat: expected a tensor list");
    int64_t dim = arg_i(a, na, 1, 0), nc = arg_i(a, na, 2, 1);
    uint32_t n = a[0].n;
    const tv *const *ts = a[0].ts;
    if (nc < 1) return eir_kerr(ctx, "_chunk_cat expects positive num_chunks");
    if (n == 0) return eir_kerr(ctx, "_chunk_cat expects a non-empty input tensor list");
    bool same_nd = true;
    for (uint32_t i = 0; i < n; i++) {
        if (!ts[i]) return eir_kerr(ctx, "_chunk_cat: tensor %u is None", i);
        if (eir_tview_numel(ts[i]) == 0) return eir_kerr(ctx, "_chunk_cat expects non-empty tensor");
        if (ts[i]->dtype != ts[0]->dtype) return eir_kerr(ctx, "_chunk_cat expects all input tensors with the same dtype");
        same_nd &= ts[i]->rank == ts[0]->rank;
    }
    if (same_nd) {
        int32_t d = eir_wrap_dim(dim, ts[0]->rank);
        if (d < 0 || ts[0]->rank == 0) return dim_err(ctx, dim, ts[0]->rank);
        dim = d;
    } else {
        if (dim < 0) return eir_kerr(ctx, "_chunk_cat expects non-negative dim when input tensors have different ndims");
        for (uint32_t i = 0; i < n; i++)
            if (dim >= ts[i]->rank) return eir_kerr(ctx, "_chunk_cat expects dim < ndim for all input tensors");
    }
    for (uint32_t i = 0; i < n; i++)
        for (int64_t d = 0; d < dim; d++)
            if (ts[i]->sizes[d] != ts[0]->sizes[d])
                return eir_kerr(ctx, "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors");
    int32_t D = (int32_t)dim;
    if (out->rank != D + 2 || out->sizes[D] != nc) return eir_kerr(ctx, "_chunk_cat: the output does not fit the inputs");
    int rc = tv_fill(out, S_ZERO, ctx);
    int64_t col = 0;
    for (uint32_t i = 0; !rc && i < n; i++) {
        const tv *t = ts[i];
        int64_t size = t->sizes[D], chunk = (size + nc - 1) / nc, trail = 1;
        for (int32_t d = D + 1; d < t->rank; d++) trail *= t->sizes[d];
        if (col + chunk * trail > out->sizes[D + 1]) return eir_kerr(ctx, "_chunk_cat: the output does not fit the inputs");
        for (int64_t k = 0; !rc && k < nc; k++) {
            int64_t len = size - k * chunk < chunk ? size - k * chunk : chunk;
            if (len <= 0) break;
            tv src = *t, dst = *out;
            v_narrow(&src, D, k * chunk, len);
            v_select(&dst, D, k);
            v_narrow(&dst, D, col, len * trail);
            /* the flat row segment seen with the chunk's shape */
            int64_t st = dst.strides[D];
            dst.rank = t->rank;
            for (int32_t d = t->rank - 1; d >= D; d--) { dst.sizes[d] = src.sizes[d]; dst.strides[d] = st; st *= src.sizes[d]; }
            rc = tv_copy(&dst, &src, ctx);
        }
        col += chunk * trail;
    }
    return rc;
}

/* nonzero_numpy(self): nonzero(self) by columns, one index tensor per dim
 * (a 0-d self counts as 1-d); sized by eir_compose_presize */
static int64_t nz_count(const tv *x) {
    int64_t c = 0, idx[EIR_MAX_RANK] = {0};
    if (eir_tview_numel(x) == 0) return 0;
    do {
        double re, im;
        eir_load_c128(eir_tview_at(x, idx), x->dtype, &re, &im);
        c += re != 0 || im != 0;
    } while (next_idx(idx, x->sizes, x->rank));
    return c;
}
static int k_nonzero_numpy(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    uint32_t nd = x->rank ? (uint32_t)x->rank : 1;
    int64_t cnt = nz_count(x), row = 0, idx[EIR_MAX_RANK] = {0};
    if (no != nd) return eir_kerr(ctx, "nonzero_numpy: expected %u outputs", nd);
    for (uint32_t d = 0; d < nd; d++)
        if (out[d].rank != 1 || out[d].sizes[0] != cnt) return eir_kerr(ctx, "nonzero_numpy: output %u does not have %" PRId64 " elements", d, cnt);
    if (cnt == 0) return 0;
    do {
        double re, im;
        eir_load_c128(eir_tview_at(x, idx), x->dtype, &re, &im);
        if (re == 0 && im == 0) continue;
        for (uint32_t d = 0; d < nd; d++) eir_store_i64(at_el(&out[d], row * out[d].strides[0]), out[d].dtype, x->rank ? idx[d] : 0);
        row++;
    } while (next_idx(idx, x->sizes, x->rank));
    return 0;
}

/* embedding_renorm_(self, indices, max_norm, norm_type) (and its functional
 * form embedding_renorm, into a copy of self): each row the sorted
 * indices name (once per distinct index) scaled by max_norm / (norm + 1e-7)
 * where its norm exceeds max_norm, as Embedding.cpp does it: norm(p) of the
 * row, read as a double, and row *= scale */
static int cmp_i64(const void *p, const void *q) {
    int64_t a = *(const int64_t *)p, b = *(const int64_t *)q;
    return (a > b) - (a < b);
}
static int k_embedding_renorm(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, w);
    NEED_T(1, ix);
    double max_norm = arg_f(a, na, 2, 0), p = arg_f(a, na, 3, 2);
    if (w->rank != 2)
        return eir_kerr(ctx, "Expected 2-dimensional tensor, but got %d-dimensional tensor for argument #1 'self' (while checking arguments for embedding_renorm_)", w->rank);
    if (ix->dtype != EIR_I64 && ix->dtype != EIR_I32)
        return eir_kerr(ctx, "Expected tensor for argument #2 'indices' to have one of the following scalar types: Long, Int; but got "
                        "torch.%sTensor instead (while checking arguments for embedding_renorm_)", dname(ix->dtype));
    if (!eir_is_floating(w->dtype) && !eir_is_complex(w->dtype))
        return eir_kerr(ctx, "norm(): input dtype should be either floating point or complex. Got %s instead.", dname(w->dtype));
    if (out->rank != 2 || !same_sizes(out, w)) return eir_kerr(ctx, "embedding_renorm_: the output does not fit self");
    int rc = same_view(out, w) ? 0 : tv_copy(out, w, ctx);
    int64_t n = eir_tview_numel(ix), idx[EIR_MAX_RANK] = {0}, k = 0;
    int64_t *s = eir_kalloc((size_t)(n + 1) * sizeof *s);
    if (!s) return eir_kerr(ctx, "out of memory");
    if (n > 0)
        do s[k++] = eir_load_i64(eir_tview_at(ix, idx), ix->dtype);
        while (next_idx(idx, ix->sizes, ix->rank));
    qsort(s, (size_t)n, sizeof *s, cmp_i64);
    unsigned char nb[16];
    tv nv = v_contig(nb, eir_is_complex(w->dtype) ? (w->dtype == EIR_C128 ? EIR_F64 : EIR_F32) : w->dtype, 0, NULL);
    for (int64_t i = 0; !rc && i < n; i++) {
        if (i > 0 && s[i] == s[i - 1]) continue;
        int64_t r = s[i] < 0 ? s[i] + w->sizes[0] : s[i];
        if (r < 0 || r >= w->sizes[0]) {
            char b[64];
            rc = eir_kerr(ctx, "select(): index %" PRId64 " out of range for tensor of size %s at dimension 0", s[i], fmt_shape(b, sizeof b, 2, w->sizes));
            break;
        }
        tv row = *out;
        v_select(&row, 0, r);
        eir_karg na_[2] = {A_t(&row), A_sc((eir_scalar){EIR_SC_FLOAT, 0, p, 0})};
        if ((rc = k_norm_sc(na_, 2, &nv, 1, ctx))) break;
        double norm = eir_load_f64(nb, nv.dtype);
        if (norm > max_norm) {
            eir_karg ma[2] = {A_t(&row), A_f(max_norm / (norm + 1e-7))};
            rc = k_mul(ma, 2, &row, 1, ctx);
        }
    }
    eir_kfree(s);
    return rc;
}

/* ======================================================================
 * unique_consecutive: sized before the kernel runs (eir_compose_presize)
 * ====================================================================== */

static bool elem_eq(const char *p, const char *q, eir_dtype d) {
    if (eir_is_floating(d)) return eir_load_f64(p, d) == eir_load_f64(q, d);
    return eir_load_i64(p, d) == eir_load_i64(q, d);
}

/* slices i and j of x along dim are equal element by element */
static bool slice_eq(const tv *x, int32_t dim, int64_t i, int64_t j) {
    tv a = *x, b = *x;
    v_select(&a, dim, i);
    v_select(&b, dim, j);
    int64_t idx[EIR_MAX_RANK] = {0};
    if (eir_tview_numel(&a) == 0) return true;
    do {
        if (!elem_eq(eir_tview_at(&a, idx), eir_tview_at(&b, idx), x->dtype)) return false;
    } while (next_idx(idx, a.sizes, a.rank));
    return true;
}

/* the number of runs of equal consecutive elements (dim < 0: x flattened) or slices */
static int uc_count(const tv *x, int32_t dim, int64_t *count, eir_kctx *ctx) {
    if (eir_is_complex(x->dtype)) return eir_kerr(ctx, "\"unique\" not implemented for '%s'", dname(x->dtype));
    int64_t n = dim < 0 ? eir_tview_numel(x) : x->sizes[dim], c = 0;
    size_t es = esz(x->dtype);
    (void)es;
    for (int64_t k = 0; k < n; k++) {
        bool same = k > 0 && (dim < 0 ? elem_eq(at_el(x, ravel_off(x, k)), at_el(x, ravel_off(x, k - 1)), x->dtype) : slice_eq(x, dim, k, k - 1));
        if (!same) c++;
    }
    *count = c;
    return 0;
}

static int uc_dim(const eir_karg *a, uint32_t na, const tv *x, int32_t *dim, eir_kctx *ctx) {
    *dim = -1;
    if (arg_none(a, na, 3)) return 0;
    int64_t d = arg_i(a, na, 3, 0);
    *dim = eir_wrap_dim(d, x->rank);
    if (*dim < 0 || x->rank == 0) return eir_kerr(ctx, "Dimension out of range (expected to be in range of [%d, %d], but got %" PRId64 ")", -(x->rank ? x->rank : 1), x->rank ? x->rank - 1 : 0, d);
    return 0;
}


/* ======================================================================
 * sequences and grids: where(condition) (one argument), pad_sequence,
 * affine_grid_generator
 * ====================================================================== */

/* pad_sequence(sequences, batch_first=False, padding_value=0., padding_side="right"):
 * PackedSequence.cpp's loop: out = full(padding_value) in the first sequence's
 * dtype, each sequence copied (converted) into its row, from the left end when
 * padding_side is "left" */
static int k_pad_sequence(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    if (na < 1 || a[0].kind != EIR_KA_TENSORS) return eir_kerr(ctx, "pad_sequence: expected a list of tensors");
    uint32_t n = a[0].n;
    bool bf = arg_i(a, na, 1, 0) != 0;
    double pv = arg_f(a, na, 2, 0);
    const char *side = na > 3 && a[3].kind == EIR_KA_STRING && a[3].str ? a[3].str : "right";
    if (n == 0) return eir_kerr(ctx, "received an empty list of sequences");
    if (strcmp(side, "left") && strcmp(side, "right"))
        return eir_kerr(ctx, "Expected padding_side to be one of left or right, but got %s.", side);
    const tv *s0 = a[0].ts[0];
    if (!s0 || s0->rank < 1) return eir_kerr(ctx, "pad_sequence: every sequence must have at least one dimension");
    int64_t max_len = 0;
    for (uint32_t i = 0; i < n; i++) {
        const tv *q = a[0].ts[i];
        if (!q || q->rank != s0->rank) return eir_kerr(ctx, "pad_sequence: sequence %u does not have the rank of the first", i);
        for (int32_t d = 1; d < q->rank; d++)
            if (q->sizes[d] != s0->sizes[d]) return eir_kerr(ctx, "pad_sequence: sequence %u does not have the trailing dims of the first", i);
        if (q->sizes[0] > max_len) max_len = q->sizes[0];
    }
    if (out->rank != s0->rank + 1 || out->sizes[bf ? 0 : 1] != n || out->sizes[bf ? 1 : 0] != max_len)
        return eir_kerr(ctx, "pad_sequence: the output does not fit the sequences");
    eir_scalar sv = {EIR_SC_FLOAT, (int64_t)pv, pv, 0};
    int rc = tv_fill(out, sv, ctx);
    for (uint32_t i = 0; !rc && i < n; i++) {
        const tv *q = a[0].ts[i];
        int64_t len = q->sizes[0], start = !strcmp(side, "left") ? max_len - len : 0;
        if (len == 0) continue;
        tv d = *out;
        if (bf) { v_select(&d, 0, i); v_narrow(&d, 0, start, len); }
        else { v_narrow(&d, 0, start, len); v_select(&d, 1, i); }
        rc = tv_copy(&d, q, ctx);
    }
    return rc;
}

/* affine_grid_generator(theta, size, align_corners), AffineGridGenerator.cpp:
 * a base grid (N, H, W, 3) or (N, D, H, W, 4) of linspace(-1, 1, steps) per
 * spatial dim (scaled by (steps - 1) / steps without align_corners; 0 for one
 * step) and ones, times theta^T by bmm, in theta's dtype */
static int ag_range(eir_dtype dt, int64_t steps, bool align, double *r, eir_kctx *ctx) {
    if (steps <= 1) { if (steps == 1) r[0] = 0; return 0; }
    void *buf = eir_kalloc((size_t)steps * esz(dt));
    if (!buf) return eir_kerr(ctx, "out of memory");
    tv lv = v_contig(buf, dt, 1, &steps);
    eir_scalar m1 = {EIR_SC_INT, -1, -1, 0};
    eir_karg la[3] = {A_sc(m1), A_sc(S_ONE), A_i(steps)};
    int rc = k_linspace(la, 3, &lv, 1, ctx);
    for (int64_t k = 0; !rc && k < steps; k++) {
        double v = eir_load_f64(at_el(&lv, k), dt);
        /* range * (steps - 1) / steps: two ops in the dtype's arithmetic */
        if (!align) v = rnd(rnd(v * (double)(steps - 1), dt) / (double)steps, dt);
        r[k] = v;
    }
    eir_kfree(buf);
    return rc;
}
static int k_affine_grid_generator(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, th);
    if (na < 2 || a[1].kind != EIR_KA_INTS) return eir_kerr(ctx, "affine_grid_generator: expected a size list");
    const int64_t *sz = a[1].ints;
    uint32_t ns = a[1].n;
    bool align = arg_i(a, na, 2, 0) != 0;
    if (ns != 4 && ns != 5) return eir_kerr(ctx, "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
    int32_t sd = (int32_t)ns - 2; /* spatial dims: 2 or 3 */
    int64_t N = sz[0], sp[3] = {1, 1, 1}; /* D, H, W */
    for (int32_t k = 0; k < sd; k++) sp[3 - sd + k] = sz[2 + k];
    if (th->rank != 3 || th->sizes[0] != N || th->sizes[1] != sd || th->sizes[2] != sd + 1)
        return eir_kerr(ctx, "affine_grid_generator: theta must have shape [%" PRId64 ", %d, %d]", N, sd, sd + 1);
    if (!eir_is_floating(th->dtype)) return eir_kerr(ctx, "\"linspace_cpu\" not implemented for '%s'", dname(th->dtype));
    int64_t P = sp[0] * sp[1] * sp[2], C = sd + 1;
    if (out->rank != sd + 2 || eir_tview_numel(out) != N * P * sd) return eir_kerr(ctx, "affine_grid_generator: the output does not fit");
    if (N * P == 0) return 0;
    eir_dtype dt = th->dtype;
    size_t es = esz(dt);
    double *rg = eir_kalloc((size_t)(sp[0] + sp[1] + sp[2] + 3) * sizeof(double));
    void *base = eir_kalloc((size_t)(N * P * C) * es), *res = eir_kalloc((size_t)(N * P * sd) * es);
    int rc = 0;
    if (!rg || !base || !res) { rc = eir_kerr(ctx, "out of memory"); goto done; }
    double *rd = rg, *rh = rg + sp[0] + 1, *rw = rh + sp[1] + 1;
    if ((rc = ag_range(dt, sp[2], align, rw, ctx)) || (rc = ag_range(dt, sp[1], align, rh, ctx))) goto done;
    if (sd == 3 && (rc = ag_range(dt, sp[0], align, rd, ctx))) goto done;
    {
        tv gb = v_contig(base, dt, 3, (int64_t[]){N, P, C});
        for (int64_t b = 0; b < N; b++)
            for (int64_t p = 0; p < P; p++) {
                int64_t w = p % sp[2], h = (p / sp[2]) % sp[1], dd = p / (sp[1] * sp[2]);
                char *e = at_el(&gb, (b * P + p) * C);
                eir_store_f64(e, dt, rw[w]);
                eir_store_f64(e + es, dt, rh[h]);
                if (sd == 3) eir_store_f64(e + 2 * es, dt, rd[dd]);
                eir_store_f64(e + (size_t)sd * es, dt, 1.0);
            }
        tv tt = *th; /* theta.transpose(1, 2): (N, C, sd) */
        v_swap(&tt, 1, 2);
        tv rv = v_contig(res, dt, 3, (int64_t[]){N, P, sd});
        eir_karg ba[2] = {A_t(&gb), A_t(&tt)};
        if ((rc = k_bmm(ba, 2, &rv, 1, ctx))) goto done;
        tv src = v_contig(res, dt, out->rank, out->sizes);
        rc = tv_copy(out, &src, ctx);
    }
done:
    eir_kfree(rg); eir_kfree(base); eir_kfree(res);
    return rc;
}


/* unique_consecutive(self, return_inverse=False, return_counts=False, dim=None) */
static int k_unique_consecutive(const eir_karg *a, uint32_t na, tv *out, uint32_t no, eir_kctx *ctx) {
    NEED_T(0, x);
    bool inv = arg_i(a, na, 1, 0) != 0, cnt = arg_i(a, na, 2, 0) != 0;
    int32_t dim;
    int64_t u;
    int rc = uc_dim(a, na, x, &dim, ctx);
    if (rc || (rc = uc_count(x, dim, &u, ctx))) return rc;
    if (no != 3) return eir_kerr(ctx, "unique_consecutive: expected three outputs");
    int64_t n = dim < 0 ? eir_tview_numel(x) : x->sizes[dim];
    if (dim < 0 ? (out[0].rank != 1 || out[0].sizes[0] != u) : (out[0].rank != x->rank || out[0].sizes[dim] != u))
        return eir_kerr(ctx, "unique_consecutive: output 0 does not have the size of the unique values (%" PRId64 ")", u);
    if (inv && eir_tview_numel(&out[1]) != n) return eir_kerr(ctx, "unique_consecutive: the inverse does not fit the input");
    if (cnt && (out[2].rank != 1 || out[2].sizes[0] != u)) return eir_kerr(ctx, "unique_consecutive: the counts do not fit");
    size_t es = esz(x->dtype);
    int64_t g = -1, run = 0;
    for (int64_t k = 0; k <= n; k++) {
        bool same = k > 0 && k < n && (dim < 0 ? elem_eq(at_el(x, ravel_off(x, k)), at_el(x, ravel_off(x, k - 1)), x->dtype) : slice_eq(x, dim, k, k - 1));
        if (k > 0 && !same && cnt) eir_store_i64(at_el(&out[2], g * out[2].strides[0]), out[2].dtype, run);
        if (k == n) break;
        if (!same) {
            g++;
            run = 0;
            if (dim < 0) memcpy(at_el(&out[0], g * out[0].strides[0]), at_el(x, ravel_off(x, k)), es);
            else {
                tv d = out[0], s = *x;
                v_select(&d, dim, g);
                v_select(&s, dim, k);
                if ((rc = tv_copy(&d, &s, ctx))) return rc;
            }
        }
        run++;
        if (inv) eir_store_i64(at_el(&out[1], ravel_off(&out[1], k)), out[1].dtype, g);
    }
    return 0;
}

int eir_compose_presize(const char *op, const eir_karg *a, uint32_t na, uint32_t k, int64_t *sizes, int32_t *rank, eir_kctx *ctx) {
    if (!strcmp(op, "aten.unique_consecutive.default")) {
        const tv *x = arg_t(a, na, 0);
        if (!x) return eir_kerr(ctx, "unique_consecutive: expected a tensor");
        int32_t dim;
        int64_t u;
        if (uc_dim(a, na, x, &dim, ctx) || uc_count(x, dim, &u, ctx)) return -1;
        bool inv = arg_i(a, na, 1, 0) != 0, cnt = arg_i(a, na, 2, 0) != 0;
        if (k == 0) {
            if (dim < 0) { *rank = 1; sizes[0] = u; }
            else { *rank = x->rank; memcpy(sizes, x->sizes, sizeof x->sizes); sizes[dim] = u; }
        } else if (k == 1) {
            if (!inv) { *rank = 1; sizes[0] = 0; }
            else if (dim < 0) { *rank = x->rank; memcpy(sizes, x->sizes, sizeof x->sizes); }
            else { *rank = 1; sizes[0] = x->sizes[dim]; }
        } else {
            *rank = 1;
            sizes[0] = cnt ? u : 0;
        }
        return 1;
    }
    if (!strcmp(op, "aten.one_hot.default")) {
        const tv *x = arg_t(a, na, 0);
        int64_t nc;
        if (!x) return eir_kerr(ctx, "one_hot: expected a tensor");
        if (x->rank + 1 > EIR_MAX_RANK) return eir_kerr(ctx, "one_hot: the result would have more than %d dims", EIR_MAX_RANK);
        if (oh_classes(x, arg_i(a, na, 1, -1), &nc, ctx)) return -1;
        *rank = x->rank + 1;
        memcpy(sizes, x->sizes, sizeof x->sizes);
        sizes[x->rank] = nc;
        return 1;
    }
    if (!strcmp(op, "aten.nonzero_numpy.default") || !strcmp(op, "aten.where.default")) {
        const tv *x = arg_t(a, na, 0);
        if (!x) return eir_kerr(ctx, "nonzero_numpy: expected a tensor");
        *rank = 1;
        sizes[0] = nz_count(x);
        return 1;
    }
    if (!strcmp(op, "aten.combinations.default")) {
        const tv *x = arg_t(a, na, 0);
        if (!x || x->rank != 1) return eir_kerr(ctx, "combinations: Expect a 1D vector");
        int64_t r = arg_i(a, na, 1, 2);
        if (r < 0) return eir_kerr(ctx, "Expect a non-negative number, but got %" PRId64, r);
        if (r == 0) { *rank = 1; sizes[0] = 0; return 1; }
        *rank = 2;
        sizes[0] = n_combinations(x->sizes[0], r, arg_i(a, na, 2, 0) != 0);
        sizes[1] = r;
        return 1;
    }
    if (!strcmp(op, "aten.tensor_split.tensor_indices_or_sections")) {
        const tv *x = arg_t(a, na, 0);
        int32_t dim;
        int64_t st, en;
        if (!x) return eir_kerr(ctx, "tensor_split: expected a tensor");
        if (ts_bounds(a, na, x, k, &dim, &st, &en, ctx)) return -1;
        *rank = x->rank;
        memcpy(sizes, x->sizes, sizeof x->sizes);
        sizes[dim] = en - st;
        return 1;
    }
    return 0;
}

/* ======================================================================
 * table
 * ====================================================================== */

const eir_kernel_entry eir_kernels_compose[] = {
    /* products */
    {"aten.einsum.default", k_einsum},
    {"aten.tensordot.default", k_tensordot},
    {"aten.inner.default", k_inner},
    {"aten.bilinear.default", k_bilinear},
    {"aten._trilinear.default", k_trilinear},
    {"aten.outer.default", k_outer},
    {"aten.ger.default", k_outer},
    {"aten.kron.default", k_kron},
    {"aten.vdot.default", k_vdot},
    {"aten.addr.default", k_addr},
    {"aten.addr_.default", k_addr},
    {"aten.addbmm.default", k_addbmm},
    {"aten.addbmm_.default", k_addbmm},
    {"aten.trace.default", k_trace},
    /* diagonals */
    {"aten.diag.default", k_diag},
    {"aten.diag_embed.default", k_diag_embed},
    {"aten.diagflat.default", k_diagflat},
    {"aten.block_diag.default", k_block_diag},
    {"aten.eye.default", k_eye},
    {"aten.eye.m", k_eye_m},
    /* shapes */
    {"aten.tile.default", k_tile},
    {"aten.rot90.default", k_rot90},
    {"aten.fliplr.default", k_fliplr},
    {"aten.flipud.default", k_flipud},
    {"aten.meshgrid.default", k_meshgrid},
    {"aten.meshgrid.indexing", k_meshgrid_ix},
    {"aten.broadcast_tensors.default", k_broadcast_tensors},
    {"aten.atleast_1d.default", k_atleast},
    {"aten.atleast_2d.default", k_atleast},
    {"aten.atleast_3d.default", k_atleast},
    {"aten.atleast_1d.Sequence", k_atleast},
    {"aten.atleast_2d.Sequence", k_atleast},
    {"aten.atleast_3d.Sequence", k_atleast},
    {"aten.unsafe_split.Tensor", k_unsafe_split},
    {"aten.unsafe_split_with_sizes.default", k_unsafe_split},
    {"aten.tensor_split.tensor_indices_or_sections", k_tensor_split_t},
    {"aten.unsafe_chunk.default", k_unsafe_split},
    {"aten.repeat_interleave.self_int", k_repeat_interleave_int},
    {"aten.pixel_shuffle.default", k_pixel_shuffle},
    {"aten.pixel_unshuffle.default", k_pixel_unshuffle},
    {"aten.channel_shuffle.default", k_channel_shuffle},
    {"aten.native_channel_shuffle.default", k_channel_shuffle},
    {"aten.cartesian_prod.default", k_cartesian_prod},
    {"aten.combinations.default", k_combinations},
    {"aten.pad.default", k_pad},
    {"aten.hstack.default", k_hstack},
    {"aten._chunk_cat.default", k_chunk_cat},
    {"aten.vstack.default", k_vstack},
    {"aten.dstack.default", k_dstack},
    {"aten.column_stack.default", k_column_stack},
    {"aten.diff.default", k_diff},
    {"aten.msort.default", k_msort},
    {"aten.max_unpool2d.default", k_max_unpool2d},
    {"aten.max_unpool3d.default", k_max_unpool3d},
    /* indexing */
    {"aten.take.default", k_take},
    {"aten.take_along_dim.default", k_take_along_dim},
    {"aten.put.default", k_put},
    {"aten.put_.default", k_put},
    {"aten.index_copy.default", k_index_copy},
    {"aten.index_copy_.default", k_index_copy},
    {"aten.index_fill.int_Scalar", k_index_fill},
    {"aten.index_fill.int_Tensor", k_index_fill},
    {"aten.index_fill_.int_Scalar", k_index_fill},
    {"aten.index_fill_.int_Tensor", k_index_fill},
    {"aten.index_reduce.default", k_index_reduce},
    {"aten.index_reduce_.default", k_index_reduce},
    {"aten.as_strided_copy.default", k_as_strided_copy},
    {"aten.as_strided_scatter.default", k_as_strided_scatter},
    {"aten.nonzero_static.default", k_nonzero_static},
    {"aten.nonzero_numpy.default", k_nonzero_numpy},
    {"aten.where.default", k_nonzero_numpy}, /* torch.where(condition) is condition.nonzero_numpy() */
    {"aten.pad_sequence.default", k_pad_sequence},
    {"aten.affine_grid_generator.default", k_affine_grid_generator},
    {"aten.embedding_renorm_.default", k_embedding_renorm},
    {"aten.embedding_renorm.default", k_embedding_renorm},
    {"aten.unique_consecutive.default", k_unique_consecutive},
    {"aten.one_hot.default", k_one_hot},
    /* reductions */
    {"aten.count_nonzero.default", k_count_nonzero},
    {"aten.count_nonzero.dim_IntList", k_count_nonzero},
    {"aten.sum_to_size.default", k_sum_to_size},
    {"aten.segment_reduce.default", k_segment_reduce},
    {"aten.trapezoid.x", k_trapezoid_x},
    {"aten.trapezoid.dx", k_trapezoid_dx},
    {"aten.trapz.x", k_trapezoid_x},
    {"aten.trapz.dx", k_trapezoid_dx},
    {"aten.cumulative_trapezoid.x", k_cumtrapz_x},
    {"aten.cumulative_trapezoid.dx", k_cumtrapz_dx},
    /* vectors */
    {"aten.cross.default", k_cross},
    {"aten.linalg_cross.default", k_linalg_cross},
    {"aten.linalg_vecdot.default", k_linalg_vecdot},
    {"aten.cosine_similarity.default", k_cosine_similarity},
    {"aten.pairwise_distance.default", k_pairwise_distance},
    {"aten.dist.default", k_dist},
    {"aten.renorm.default", k_renorm},
    {"aten.renorm_.default", k_renorm},
    /* factories */
    {"aten.hann_window.default", k_hann_window},
    {"aten.hann_window.periodic", k_hann_window_p},
    {"aten.hamming_window.default", k_hamming_window},
    {"aten.hamming_window.periodic", k_hamming_window_p},
    {"aten.hamming_window.periodic_alpha", k_hamming_window_p},
    {"aten.hamming_window.periodic_alpha_beta", k_hamming_window_p},
    {"aten.blackman_window.default", k_blackman_window},
    {"aten.blackman_window.periodic", k_blackman_window_p},
    {"aten.bartlett_window.default", k_bartlett_window},
    {"aten.bartlett_window.periodic", k_bartlett_window_p},
    {"aten.kaiser_window.default", k_kaiser_window},
    {"aten.kaiser_window.periodic", k_kaiser_window_p},
    {"aten.kaiser_window.beta", k_kaiser_window_beta},
    {"aten.tril_indices.default", k_tril_indices},
    {"aten.triu_indices.default", k_triu_indices},
    {"aten.linspace.default", k_linspace},
    {"aten.linspace.Tensor_Tensor", k_linspace},
    {"aten.linspace.Tensor_Scalar", k_linspace},
    {"aten.linspace.Scalar_Tensor", k_linspace},
    {"aten.logspace.default", k_logspace},
    {"aten.logspace.Tensor_Tensor", k_logspace},
    {"aten.logspace.Tensor_Scalar", k_logspace},
    {"aten.logspace.Scalar_Tensor", k_logspace},
    {"aten.empty_permuted.default", k_zeros_out},
    {"aten.new_empty_strided.default", k_zeros_out},
    {"aten.zero_.default", k_zeros_out},
    {"aten.zero.default", k_zeros_out},
    /* aliases of core ops */
    {"aten.divide.Tensor", k_div},
    {"aten.divide.Scalar", k_div},
    {"aten.divide_.Tensor", k_div},
    {"aten.divide_.Scalar", k_div},
    {"aten.divide.Tensor_mode", k_div_mode},
    {"aten.divide.Scalar_mode", k_div_mode},
    {"aten.divide_.Tensor_mode", k_div_mode},
    {"aten.divide_.Scalar_mode", k_div_mode},
    {"aten.true_divide.Tensor", k_div},
    {"aten.true_divide.Scalar", k_div},
    {"aten.true_divide_.Tensor", k_div},
    {"aten.true_divide_.Scalar", k_div},
    {"aten.subtract.Tensor", k_sub},
    {"aten.subtract.Scalar", k_sub},
    {"aten.subtract_.Tensor", k_sub},
    {"aten.subtract_.Scalar", k_sub},
    {"aten.max.other", k_maximum},
    {"aten.min.other", k_minimum},
    {"aten.square.default", k_square},
    {"aten.square_.default", k_square},
    {"aten.fill_.Scalar", k_fill},
    {"aten.fill_.Tensor", k_fill_t},
    {NULL, NULL},
};
