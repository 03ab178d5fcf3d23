/* meta_tail.c — meta functions for the long tail of the overloads eir's
 * runtime runs: aliases of overloads meta.c already infers, more pointwise
 * ops (orthogonal polynomials, complex parts, frexp), random sampling,
 * dropout, views (movedim, atleast_nd, unfold, diagonal, splits, meshgrid,
 * broadcast_tensors), joins (hstack, block_diag...), indexing and search,
 * histograms, losses, norms, linear algebra (solve, LU, eig, pinv,
 * householder products...), FFT front ends, resampling and shuffles, the
 * batch-norm variants and recurrent layers. Each gives what torch 2.13's
 * meta kernel (or decomposition, as torch.export runs it) records; where
 * torch's layout is a library's choice (FFT, einsum, stft) the strides are
 * left unknown. The helpers are meta.c's (meta_int.h); this file has its
 * own sorted table, searched after meta.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta_int.h"

#define FN(name) static int name(mctx *c, eir_mtensor *o, uint32_t max)

/* ---- small helpers ---- */

static void blank(eir_mtensor *o, eir_dtype dt, uint32_t rank) {
    memset(o, 0, sizeof *o);
    o->dtype = dt;
    o->rank = rank;
    o->sizes_known = true;
    o->offset = D(0);
}

static void contig(mctx *c, eir_mtensor *o, eir_dtype dt, const eir_mdim *sz, uint32_t rank) {
    blank(o, dt, rank);
    for (uint32_t i = 0; i < rank; i++) o->sizes[i] = sz[i];
    meta_set_contiguous(c, o);
}

/* a 0-d tensor of dtype dt */
static int scalar_out(mctx *c, eir_mtensor *o, eir_dtype dt) {
    contig(c, o, dt, NULL, 0);
    return 1;
}

/* sizes all known, strides left unknown */
static void no_strides(eir_mtensor *o) {
    o->strides_known = false;
    for (uint32_t i = 0; i < o->rank; i++) o->strides[i] = UNK;
    o->offset = UNK;
}

static eir_dtype real_of(eir_dtype d) { return meta_dt_cat(d) == 3 ? meta_complex_value(d) : d; }

/* integers and bool become float32 (torch's default dtype) */
static eir_dtype float_of(eir_dtype d) { return meta_dt_cat(d) < 2 ? EIR_F32 : d; }

static int in_dim(mctx *c, const char *name, uint32_t rank, uint32_t *d) {
    int64_t v;
    if (!meta_in_int(c, name, &v)) return 0;
    char what[64];
    snprintf(what, sizeof what, "argument '%s'", name);
    return meta_wrap_dim(c, v, rank, what, d) ? 1 : -1;
}

static int in_reduction(mctx *c, int64_t *red) {
    *red = 1;
    if (meta_arg(c, "reduction") && !meta_in_int(c, "reduction", red)) return 0;
    if (*red < 0 || *red > 2)
        return meta_fail(c, "argument 'reduction' is %lld; expected 0 (none), 1 (mean) or 2 (sum)", (long long)*red);
    return 1;
}

/* the tensors of a Tensor[] argument, at most max; their number, or -1 */
static int in_tensor_list(mctx *c, const char *name, eir_mtensor *ts, uint32_t max) {
    const eir_arg *a = meta_arg(c, name);
    if (!a || a->kind != EIR_ARG_TENSORS || a->u.list.n > max) return -1;
    for (uint32_t k = 0; k < a->u.list.n; k++)
        if (!meta_tensor_of_value(c, a->u.list.items[k].value, &ts[k])) return -1;
    return (int)a->u.list.n;
}

static eir_mdim numel(mctx *c, const eir_mtensor *t) {
    eir_mdim n = D(1);
    for (uint32_t i = 0; i < t->rank; i++) n = meta_dmul(c, n, t->sizes[i]);
    return n;
}

static void drop_dim(eir_mtensor *t, uint32_t d) {
    for (uint32_t i = d; i + 1 < t->rank; i++) { t->sizes[i] = t->sizes[i + 1]; t->strides[i] = t->strides[i + 1]; }
    t->rank--;
}

/* unsqueeze as a view (torch's stride for the new dim) */
static void view_unsqueeze(mctx *c, eir_mtensor *t, uint32_t k) {
    for (uint32_t i = t->rank; i > k; i--) { t->sizes[i] = t->sizes[i - 1]; t->strides[i] = t->strides[i - 1]; }
    t->strides[k] = k >= t->rank ? D(1) : meta_dmul(c, t->sizes[k + 1], t->strides[k + 1]);
    t->sizes[k] = D(1);
    t->rank++;
}

/* ---- aliases of overloads meta.c infers ---- */

#define ALIAS(name, target) FN(name) { return meta_delegate(c, target, o, max); }
ALIAS(t_alias, "aten.alias.default")
ALIAS(t_maximum, "aten.maximum.default")
ALIAS(t_xlogy, "aten.xlogy.Tensor")
ALIAS(t_split_tensor, "aten.split.Tensor")
ALIAS(t_split_with_sizes, "aten.split_with_sizes.default")
ALIAS(t_chunk, "aten.chunk.default")
ALIAS(t_matmul, "aten.matmul.default")
ALIAS(t_softmax, "aten.softmax.int")
ALIAS(t_to, "aten.to.dtype")
ALIAS(t_flip, "aten.flip.default")
ALIAS(t_squeeze_copy, "aten.squeeze_copy.dims")

FN(t_aminmax) { return meta_op_aminmax(c, o, max); }
FN(t_var_mean) { return meta_op_var_mean(c, o, max); }
FN(t_cdist) { return meta_op_cdist(c, o, max); }
FN(t_pdist) { return meta_op_pdist(c, o, max); }
FN(t_embedding_bag) { return meta_op_embedding_bag(c, o, max); }
/* self's sizes and dtype, its layout preserved: the functional forms of
 * in-place writes (put, index_reduce, the random fills), rolls
 * (fftshift / ifftshift), poisson */
FN(t_like_self) { return meta_op_like_self(c, o, max); }

/* to.other: other's dtype */
FN(t_to_other) {
    eir_mtensor self, other;
    if (meta_in_tensor(c, "self", &self) != 1 || meta_in_tensor(c, "other", &other) != 1) return 0;
    int mf = meta_in_memfmt(c, "memory_format");
    if (!meta_in_bool(c, "copy", false) && other.dtype == self.dtype && (mf == EIR_MF_UNKNOWN || mf == EIR_MF_PRESERVE)) {
        *o = self;
        return 1;
    }
    *o = self;
    o->dtype = other.dtype;
    if (mf == EIR_MF_CONTIGUOUS) meta_set_contiguous(c, o);
    else if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) meta_set_channels_last(c, o);
    else meta_like_preserve(c, &self, o);
    return 1;
}

/* lift_fresh_copy: a contiguous copy (not clone's preserved layout) */
FN(t_lift_fresh_copy) { return meta_op_contig_self(c, o, max); }

/* self's sizes, contiguous: detach_copy, renorm */
FN(t_contig_self) { return meta_op_contig_self(c, o, max); }

/* ---- pointwise ---- */

static const char *const N_XN[] = {"x", "n"};
static const char *const N_SELF_OTHER[] = {"self", "other"};
static const char *const N_SELF[] = {"self"};

/* the orthogonal polynomials: x and n promoted, integers to float */
FN(t_poly) { return meta_pointwise(c, o, N_XN, 2, PW_FLOAT); }

/* square: pow(self, 2), so bool becomes int64 */
FN(t_square) {
    int r = meta_pointwise(c, o, N_SELF, 1, PW_SAME);
    if (r > 0 && o->dtype == EIR_BOOL) o->dtype = EIR_I64;
    return r;
}

/* angle: float for real inputs, the real dtype of complex ones */
FN(t_angle) {
    int r = meta_pointwise(c, o, N_SELF, 1, PW_FLOAT);
    if (r > 0) o->dtype = real_of(o->dtype);
    return r;
}

/* isreal: ones_like(self, bool) for real self, imag(self) == 0 else */
FN(t_isreal) { return meta_pointwise(c, o, N_SELF, 1, PW_BOOL); }

/* conj_physical: self itself when real; a pointwise copy when complex */
FN(t_conj_physical) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (meta_dt_cat(x.dtype) != 3) { *o = x; return 1; }
    return meta_pointwise(c, o, N_SELF, 1, PW_SAME);
}
FN(t_conj_physical_copy) { return meta_pointwise(c, o, N_SELF, 1, PW_SAME); }

/* complex(real, imag), polar(abs, angle): the complex dtype of the promoted pair */
static const char *const N_COMPLEX[] = {"real", "imag"};
static const char *const N_POLAR[] = {"abs", "angle"};
FN(t_complex) {
    int r = meta_pointwise(c, o, strcmp(c->s->name, "aten.polar.default") ? N_COMPLEX : N_POLAR, 2, PW_SAME);
    if (r > 0) o->dtype = meta_to_complex(o->dtype);
    return r;
}

/* frexp: the mantissa in self's dtype, the exponent int32 */
FN(t_frexp) {
    if (max < 2) return 0;
    int r = meta_pointwise(c, o, N_SELF, 1, PW_SAME);
    if (r <= 0) return r;
    o[1] = o[0];
    o[1].dtype = EIR_I32;
    return 2;
}

/* chalf: a complex32 copy, layout preserved */
FN(t_chalf) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    *o = x;
    o->dtype = EIR_C32;
    int mf = meta_in_memfmt(c, "memory_format");
    if (mf == EIR_MF_CONTIGUOUS) meta_set_contiguous(c, o);
    else if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) meta_set_channels_last(c, o);
    else meta_like_preserve(c, &x, o);
    return 1;
}

/* imag: a view of the imaginary parts (view_as_real(self)[..., 1]) */
FN(t_imag) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (meta_dt_cat(x.dtype) != 3) return meta_fail(c, "'self' has a real dtype; imag expects a complex tensor");
    *o = x;
    o->dtype = meta_complex_value(x.dtype);
    for (uint32_t i = 0; i < x.rank; i++) o->strides[i] = meta_dmul(c, x.strides[i], D(2));
    o->offset = meta_dadd(c, meta_dmul(c, x.offset, D(2)), D(1));
    return 1;
}

/* view_as_complex: pairs of the last dim (size 2, stride 1) become one element */
FN(t_view_as_complex) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank == 0 || !is_int(x.sizes[x.rank - 1], 2))
        return meta_fail(c, "'self' must have a last dim of size 2 (real and imaginary parts)");
    if (x.dtype != EIR_F32 && x.dtype != EIR_F64 && x.dtype != EIR_F16)
        return meta_fail(c, "'self' has dtype %s; view_as_complex expects float16, float32 or float64",
                         eir_dtype_name(x.dtype) ? eir_dtype_name(x.dtype) : "?");
    *o = x;
    o->dtype = meta_to_complex(x.dtype);
    o->rank = x.rank - 1;
    for (uint32_t i = 0; i < o->rank; i++) o->strides[i] = meta_dfloordiv(c, x.strides[i], D(2));
    o->offset = meta_dfloordiv(c, x.offset, D(2));
    return 1;
}

/* view.dtype: the same bytes as another dtype; a different element size
 * scales the last dim (which must have stride 1) */
FN(t_view_dtype) {
    eir_mtensor x;
    eir_dtype dt = meta_in_dtype(c, "dtype");
    if (meta_in_tensor(c, "self", &x) != 1 || dt == EIR_DTYPE_UNKNOWN) return 0;
    size_t a = eir_dtype_size(x.dtype), b = eir_dtype_size(dt);
    if (!a || !b) return 0;
    *o = x;
    o->dtype = dt;
    if (a == b) return 1;
    if (x.rank == 0) return meta_fail(c, "'self' is 0-d; view(dtype) to a dtype of another size needs a dim to scale");
    uint32_t l = x.rank - 1;
    int64_t last, st;
    if (meta_dval(c, x.sizes[l], &last) && meta_dval(c, x.strides[l], &st) && x.sizes[l].kind == EIR_MDIM_INT &&
        ((last > 1 && st != 1) || (a < b && last * (int64_t)a % (int64_t)b)))
        return meta_fail(c, "the last dim of 'self' (size %lld, stride %lld) cannot be viewed as %s: expected stride 1 "
                         "and a whole number of elements", (long long)last, (long long)st,
                         eir_dtype_name(dt) ? eir_dtype_name(dt) : "?");
    if (a > b) {
        int64_t f = (int64_t)(a / b);
        o->sizes[l] = meta_dmul(c, x.sizes[l], D(f));
        for (uint32_t i = 0; i < l; i++) o->strides[i] = meta_dmul(c, x.strides[i], D(f));
        o->offset = meta_dmul(c, x.offset, D(f));
    } else {
        int64_t f = (int64_t)(b / a);
        o->sizes[l] = meta_dfloordiv(c, x.sizes[l], D(f));
        for (uint32_t i = 0; i < l; i++) o->strides[i] = meta_dfloordiv(c, x.strides[i], D(f));
        o->offset = meta_dfloordiv(c, x.offset, D(f));
    }
    return 1;
}

/* prelu: self with a per-channel weight (TensorIterator over self) */
FN(t_prelu) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    *o = x;
    meta_ti_layout(c, &x, 1, o);
    return 1;
}

/* ---- random sampling and dropout ---- */

/* dropout variants: input itself when not training or p == 0, else a
 * pointwise product over input */
FN(t_dropout) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    const eir_arg *p = meta_arg(c, "p");
    bool zero = p && p->kind == EIR_ARG_FLOAT && p->u.f == 0.0;
    if (!meta_in_bool(c, "train", false) || zero) { *o = x; return 1; }
    *o = x;
    meta_ti_layout(c, &x, 1, o);
    return 1;
}

/* bernoulli.p: a contiguous tensor (torch's legacy contiguous format),
 * where the other forms preserve self's layout */
FN(t_bernoulli_p) { return meta_op_contig_self(c, o, max); }

/* normal with tensor mean and/or std: the broadcast shape, contiguous */
FN(t_normal_tensor) {
    static const char *const names[] = {"mean", "std"};
    operand ops[2];
    uint32_t n = 0;
    const char *present[2];
    for (int k = 0; k < 2; k++) {
        eir_mtensor t;
        int r = meta_in_tensor(c, names[k], &t);
        if (r < 0 && meta_arg(c, names[k])->kind != EIR_ARG_FLOAT) return 0;
        if (r <= 0) continue; /* a float mean or std */
        ops[n].t = t;
        ops[n].wrapped = false;
        present[n++] = names[k];
    }
    if (!n) return 0;
    memset(o, 0, sizeof *o);
    int b = meta_broadcast(c, ops, n, o, present);
    if (b <= 0) return b;
    o->dtype = ops[0].t.dtype;
    if (n == 2) o->dtype = meta_promote(ops[0].t.dtype, ops[1].t.dtype);
    meta_set_contiguous(c, o);
    return 1;
}

FN(t_normal_float_float) {
    memset(o, 0, sizeof *o);
    if (!meta_sizes_arg(c, "size", o)) return 0;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_F32;
    meta_set_contiguous(c, o);
    return 1;
}

/* multinomial: num_samples int64 draws per row */
FN(t_multinomial) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank < 1 || x.rank > 2) return meta_fail(c, "'self' has rank %u; multinomial expects 1 or 2 dims", x.rank);
    const eir_arg *n = meta_arg(c, "num_samples");
    eir_mdim ns;
    if (!n || !meta_symint_arg(c, n, &ns)) return 0;
    *o = x;
    o->dtype = EIR_I64;
    o->sizes[x.rank - 1] = ns;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- factories ---- */

/* linspace / logspace: [steps], the default float dtype unless dtype says */
FN(t_linspace) {
    const eir_arg *s = meta_arg(c, "steps");
    memset(o, 0, sizeof *o);
    if (!s || !meta_symint_arg(c, s, &o->sizes[0])) return 0;
    int64_t v;
    if (meta_dval(c, o->sizes[0], &v) && v < 0)
        return meta_fail(c, "argument 'steps' is %lld; expected a number of steps >= 0", (long long)v);
    o->rank = 1;
    o->sizes_known = true;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_F32;
    meta_set_contiguous(c, o);
    return 1;
}

/* tril_indices / triu_indices: [2, number of entries], int64 unless dtype says */
FN(t_tri_indices) {
    int64_t row, col, off = 0;
    if (!meta_in_int(c, "row", &row) || !meta_in_int(c, "col", &col)) return 0;
    if (meta_arg(c, "offset") && !meta_in_int(c, "offset", &off)) return 0;
    if (row < 0 || col < 0) return meta_fail(c, "arguments 'row' and 'col' are %lld and %lld; expected sizes >= 0",
                                             (long long)row, (long long)col);
    if (row > (1 << 24)) return 0;
    bool lower = strstr(c->s->name, "tril") != NULL;
    int64_t n = 0;
    for (int64_t i = 0; i < row; i++) {
        int64_t k;
        if (lower) { /* j <= i + off */
            k = i + off + 1;
            k = k < 0 ? 0 : k > col ? col : k;
        } else { /* j >= i + off */
            int64_t j0 = i + off < 0 ? 0 : i + off;
            k = j0 >= col ? 0 : col - j0;
        }
        n += k;
    }
    eir_dtype dt = meta_in_dtype(c, "dtype");
    eir_mdim sz[2] = {D(2), D(n)};
    contig(c, o, dt == EIR_DTYPE_UNKNOWN ? EIR_I64 : dt, sz, 2);
    return 1;
}

/* empty_permuted: physical_layout lists the dims outermost first */
FN(t_empty_permuted) {
    memset(o, 0, sizeof *o);
    if (!meta_sizes_arg(c, "size", o)) return 0;
    eir_mdim pl[MAXR];
    int n = meta_in_ints(c, "physical_layout", pl, MAXR, 0);
    if (n < 0) return 0;
    if ((uint32_t)n != o->rank)
        return meta_fail(c, "argument 'physical_layout' has %d entries, expected %u (the length of 'size')", n, o->rank);
    uint32_t order[MAXR];
    bool seen[MAXR] = {0};
    for (int i = 0; i < n; i++) {
        if (pl[i].kind != EIR_MDIM_INT || pl[i].c < 0 || pl[i].c >= n || seen[pl[i].c])
            return meta_fail(c, "argument 'physical_layout' is not a permutation of the dims");
        seen[pl[i].c] = true;
        order[n - 1 - i] = (uint32_t)pl[i].c;
    }
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_F32;
    meta_set_strides_order(c, o, order);
    return 1;
}

/* ---- views ---- */

/* movedim / moveaxis: the source dims go to the destinations, the others
 * keep their order in the remaining places */
FN(t_movedim) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim src[MAXR], dst[MAXR];
    int n = meta_in_ints(c, "source", src, MAXR, 0), m = meta_in_ints(c, "destination", dst, MAXR, 0);
    if (n < 0 || m < 0) return 0;
    if (n != m)
        return meta_fail(c, "arguments 'source' (%d dims) and 'destination' (%d) differ in length", n, m);
    int perm[MAXR];
    bool used_src[MAXR] = {0}, used_dst[MAXR] = {0};
    uint32_t r = x.rank ? x.rank : 1;
    for (uint32_t i = 0; i < r; i++) perm[i] = -1;
    for (int i = 0; i < n; i++) {
        uint32_t s, d;
        if (src[i].kind != EIR_MDIM_INT || dst[i].kind != EIR_MDIM_INT) return 0;
        if (!meta_wrap_dim(c, src[i].c, x.rank, "argument 'source': dim", &s) ||
            !meta_wrap_dim(c, dst[i].c, x.rank, "argument 'destination': dim", &d))
            return -1;
        if (used_src[s]) return meta_fail(c, "argument 'source' repeats dim %u", s);
        if (used_dst[d]) return meta_fail(c, "argument 'destination' repeats dim %u", d);
        used_src[s] = used_dst[d] = true;
        perm[d] = (int)s;
    }
    uint32_t next = 0;
    for (uint32_t i = 0; i < x.rank; i++) {
        if (perm[i] >= 0) continue;
        while (used_src[next]) next++;
        perm[i] = (int)next++;
    }
    *o = x;
    for (uint32_t i = 0; i < x.rank; i++) { o->sizes[i] = x.sizes[perm[i]]; o->strides[i] = x.strides[perm[i]]; }
    return 1;
}

/* numpy_T: the dims reversed */
FN(t_numpy_T) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    *o = x;
    for (uint32_t i = 0; i < x.rank; i++) {
        o->sizes[i] = x.sizes[x.rank - 1 - i];
        o->strides[i] = x.strides[x.rank - 1 - i];
    }
    return 1;
}

/* view_as / reshape_as: other's sizes */
FN(t_view_as) {
    eir_mtensor x, other;
    if (meta_in_tensor(c, "self", &x) != 1 || meta_in_tensor(c, "other", &other) != 1) return 0;
    bool reshape = !strcmp(c->s->name, "aten.reshape_as.default");
    eir_mdim a = numel(c, &x), b = numel(c, &other);
    if (a.kind == EIR_MDIM_INT && b.kind == EIR_MDIM_INT && a.c != b.c)
        return meta_fail(c, "'other' has %lld elements, 'self' %lld (expected the same number)", (long long)b.c,
                         (long long)a.c);
    return meta_reshape_to(c, o, &x, other.sizes, other.rank, reshape, "the sizes of 'other'");
}

/* _reshape_alias: the given sizes and strides at self's offset */
FN(t_reshape_alias) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim sz[MAXR], st[MAXR];
    int n = meta_in_ints(c, "size", sz, MAXR, 0), m = meta_in_ints(c, "stride", st, MAXR, 0);
    if (n < 0 || m < 0) return 0;
    if (n != m) return meta_fail(c, "arguments 'size' (%d entries) and 'stride' (%d) differ in length", n, m);
    *o = x;
    o->rank = (uint32_t)n;
    for (int i = 0; i < n; i++) { o->sizes[i] = sz[i]; o->strides[i] = st[i]; }
    return 1;
}

/* as_strided_copy: the given sizes, contiguous */
FN(t_as_strided_copy) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    *o = x;
    if (!meta_sizes_arg(c, "size", o)) return 0;
    meta_set_contiguous(c, o);
    return 1;
}

/* atleast_1d / _2d / _3d of one tensor: a view with leading (and for 3-d
 * trailing) dims of size 1 */
static void atleast(mctx *c, eir_mtensor *t, uint32_t n) {
    if (t->rank >= n) return;
    if (t->rank == 0) { /* reshape to [1] * n */
        for (uint32_t i = 0; i < n; i++) { t->sizes[i] = D(1); t->strides[i] = D(1); }
        t->rank = n;
        return;
    }
    if (n == 3 && t->rank == 1) { view_unsqueeze(c, t, 0); view_unsqueeze(c, t, 2); return; }
    if (n == 3 && t->rank == 2) { view_unsqueeze(c, t, 2); return; }
    view_unsqueeze(c, t, 0);
}

static uint32_t atleast_n(mctx *c) {
    const char *nm = c->s->name;
    return strstr(nm, "atleast_1d") ? 1 : strstr(nm, "atleast_2d") ? 2 : 3;
}

FN(t_atleast) {
    if (meta_in_tensor(c, "self", o) != 1) return 0;
    atleast(c, o, atleast_n(c));
    return 1;
}

FN(t_atleast_seq) {
    eir_mtensor *ts = eir_arena_array(c->a, 256, sizeof *ts);
    int n = ts ? in_tensor_list(c, "tensors", ts, max < 256 ? max : 256) : -1;
    if (n < 0) return 0;
    for (int k = 0; k < n; k++) {
        o[k] = ts[k];
        atleast(c, &o[k], atleast_n(c));
    }
    return n;
}

/* unfold: dim d becomes windows of `size` every `step`, a new last dim */
static int unfold(mctx *c, eir_mtensor *o, bool copy) {
    eir_mtensor x;
    int64_t size, step;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "size", &size) || !meta_in_int(c, "step", &step)) return 0;
    if (x.rank + 1 > MAXR) return 0;
    uint32_t d = 0;
    int r = in_dim(c, "dimension", x.rank, &d);
    if (r <= 0) return r;
    if (step <= 0) return meta_fail(c, "argument 'step' is %lld; expected > 0", (long long)step);
    *o = x;
    if (x.rank == 0) {
        o->rank = 1;
        o->sizes[0] = D(size);
        o->strides[0] = D(1);
    } else {
        int64_t s;
        if (meta_dval(c, x.sizes[d], &s) && x.sizes[d].kind == EIR_MDIM_INT && s < size)
            return meta_fail(c, "argument 'size' is %lld, more than the size of dim %u of 'self' (%lld)", (long long)size,
                             d, (long long)s);
        o->sizes[d] = meta_dadd(c, meta_dfloordiv(c, meta_dsub(c, x.sizes[d], D(size)), D(step)), D(1));
        o->strides[d] = meta_dmul(c, x.strides[d], D(step));
        o->sizes[x.rank] = D(size);
        o->strides[x.rank] = x.strides[d];
        o->rank = x.rank + 1;
    }
    if (copy) meta_set_contiguous(c, o);
    return 1;
}
FN(t_unfold) { return unfold(c, o, false); }
FN(t_unfold_copy) { return unfold(c, o, true); }

/* the diagonal of dims d1 and d2 as a view: those dims removed, the
 * diagonal appended */
static int diagonal_view(mctx *c, eir_mtensor *o, const eir_mtensor *x, int64_t off, uint32_t d1, uint32_t d2) {
    if (d1 == d2) return meta_fail(c, "arguments 'dim1' and 'dim2' are both dim %u; expected two different dims", d1);
    eir_mdim len, start;
    if (off >= 0) {
        eir_mdim rest = meta_dsub(c, x->sizes[d2], D(off));
        int64_t a, b;
        if (!meta_dval(c, x->sizes[d1], &a) || !meta_dval(c, rest, &b)) return 0;
        len = a < b ? x->sizes[d1] : rest;
        if ((a < b ? a : b) < 0) len = D(0);
        start = meta_dmul(c, D(off), x->strides[d2]);
    } else {
        eir_mdim rest = meta_dadd(c, x->sizes[d1], D(off));
        int64_t a, b;
        if (!meta_dval(c, rest, &a) || !meta_dval(c, x->sizes[d2], &b)) return 0;
        len = a < b ? rest : x->sizes[d2];
        if ((a < b ? a : b) < 0) len = D(0);
        start = meta_dmul(c, D(-off), x->strides[d1]);
    }
    *o = *x;
    o->offset = meta_dadd(c, x->offset, start);
    eir_mdim st = meta_dadd(c, x->strides[d1], x->strides[d2]);
    uint32_t n = 0;
    for (uint32_t i = 0; i < x->rank; i++) {
        if (i == d1 || i == d2) continue;
        o->sizes[n] = x->sizes[i];
        o->strides[n] = x->strides[i];
        n++;
    }
    o->sizes[n] = len;
    o->strides[n] = st;
    o->rank = n + 1;
    return 1;
}

FN(t_linalg_diagonal) {
    eir_mtensor x;
    int64_t off = 0;
    if (meta_in_tensor(c, "A", &x) != 1 || !meta_in_int(c, "offset", &off)) return 0;
    if (x.rank < 2) return meta_fail(c, "'A' has rank %u; expected at least 2 dims", x.rank);
    uint32_t d1, d2;
    int r = in_dim(c, "dim1", x.rank, &d1);
    if (r <= 0) return r;
    if ((r = in_dim(c, "dim2", x.rank, &d2)) <= 0) return r;
    return diagonal_view(c, o, &x, off, d1, d2);
}

/* diag: a 1-d self on the diagonal of a square matrix; the diagonal of a
 * 2-d self, copied */
FN(t_diag) {
    eir_mtensor x;
    int64_t off = 0;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "diagonal", &off)) return 0;
    if (x.rank == 1) {
        eir_mdim n = meta_dadd(c, x.sizes[0], D(off < 0 ? -off : off));
        eir_mdim sz[2] = {n, n};
        contig(c, o, x.dtype, sz, 2);
        return 1;
    }
    if (x.rank != 2) return meta_fail(c, "'self' has rank %u; diag expects a 1-d or 2-d tensor", x.rank);
    int r = diagonal_view(c, o, &x, off, 0, 1);
    if (r > 0) meta_set_contiguous(c, o);
    return r;
}

/* diagflat: the flattened self on a diagonal */
FN(t_diagflat) {
    eir_mtensor x;
    int64_t off = 0;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "offset", &off)) return 0;
    eir_mdim n = meta_dadd(c, numel(c, &x), D(off < 0 ? -off : off));
    eir_mdim sz[2] = {n, n};
    contig(c, o, x.dtype, sz, 2);
    return 1;
}

/* diag_embed: the last dim of self on the diagonal of new dims dim1, dim2 */
FN(t_diag_embed) {
    eir_mtensor x;
    int64_t off = 0;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "offset", &off) || x.rank == 0 || x.rank + 1 > MAXR) return 0;
    uint32_t d1, d2;
    int r = in_dim(c, "dim1", x.rank + 1, &d1);
    if (r <= 0) return r;
    if ((r = in_dim(c, "dim2", x.rank + 1, &d2)) <= 0) return r;
    if (d1 == d2) return meta_fail(c, "arguments 'dim1' and 'dim2' are both dim %u; expected two different dims", d1);
    eir_mdim n = meta_dadd(c, x.sizes[x.rank - 1], D(off < 0 ? -off : off));
    eir_mdim sz[MAXR];
    uint32_t k = 0;
    for (uint32_t i = 0; i < x.rank + 1; i++) sz[i] = (i == d1 || i == d2) ? n : x.sizes[k++];
    contig(c, o, x.dtype, sz, x.rank + 1);
    return 1;
}

/* views of self along dim d: lens[k] elements each, from successive starts
 * (or from starts[k] when given) */
static int split_views(mctx *c, eir_mtensor *o, uint32_t max, const eir_mtensor *x, uint32_t d, const eir_mdim *lens,
                       const eir_mdim *starts, uint32_t n) {
    if (n > max) return 0;
    eir_mdim at = D(0);
    for (uint32_t k = 0; k < n; k++) {
        o[k] = *x;
        o[k].sizes[d] = lens[k];
        eir_mdim s = starts ? starts[k] : at;
        o[k].offset = meta_dadd(c, x->offset, meta_dmul(c, s, x->strides[d]));
        at = meta_dadd(c, at, lens[k]);
    }
    return (int)n;
}

/* tensor_split into `sections` near-equal parts along dim d */
static int split_sections(mctx *c, eir_mtensor *o, uint32_t max, const eir_mtensor *x, uint32_t d, int64_t sections) {
    if (sections <= 0) return meta_fail(c, "argument 'sections' is %lld; expected > 0", (long long)sections);
    int64_t size;
    if (x->sizes[d].kind != EIR_MDIM_INT || !meta_dval(c, x->sizes[d], &size) || sections > 256) return 0;
    eir_mdim lens[256];
    for (int64_t k = 0; k < sections; k++) lens[k] = D(size / sections + (k < size % sections));
    return split_views(c, o, max, x, d, lens, NULL, (uint32_t)sections);
}

/* tensor_split at indices along dim d (slice semantics: clamped) */
static int split_indices(mctx *c, eir_mtensor *o, uint32_t max, const eir_mtensor *x, uint32_t d, const eir_mdim *idx,
                         uint32_t n) {
    int64_t size;
    if (x->sizes[d].kind != EIR_MDIM_INT || !meta_dval(c, x->sizes[d], &size) || n + 1 > 256) return 0;
    eir_mdim lens[256], starts[256];
    int64_t prev = 0;
    for (uint32_t k = 0; k <= n; k++) {
        int64_t e = size;
        if (k < n) {
            if (idx[k].kind != EIR_MDIM_INT) return 0;
            e = idx[k].c;
            if (e < 0) e += size;
            if (e < 0) e = 0;
            if (e > size) e = size;
        }
        int64_t s = prev > size ? size : prev;
        if (e < s) e = s;
        starts[k] = D(s);
        lens[k] = D(e - s);
        prev = k < n ? (idx[k].c < 0 ? idx[k].c + size : idx[k].c) : size;
        if (prev < 0) prev = 0;
    }
    return split_views(c, o, max, x, d, lens, starts, n + 1);
}

FN(t_tensor_split) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank == 0) return meta_fail(c, "'self' is 0-d; tensor_split expects at least one dim");
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    if (meta_arg(c, "sections")) {
        int64_t s;
        if (!meta_in_int(c, "sections", &s)) return 0;
        return split_sections(c, o, max, &x, d, s);
    }
    eir_mdim idx[256];
    int n = meta_in_ints(c, "indices", idx, 255, 0);
    if (n < 0) return 0;
    return split_indices(c, o, max, &x, d, idx, (uint32_t)n);
}

/* hsplit (dim 1, or 0 for a 1-d self), vsplit (dim 0), dsplit (dim 2):
 * equal sections, or at indices */
FN(t_hvdsplit) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    const char *nm = c->s->name;
    uint32_t need = nm[5] == 'h' ? 1 : nm[5] == 'v' ? 2 : 3, d = nm[5] == 'h' ? (x.rank == 1 ? 0 : 1) : nm[5] == 'v' ? 0 : 2;
    if (x.rank < need)
        return meta_fail(c, "'self' has rank %u; %.6s expects at least %u dims", x.rank, nm + 5, need);
    if (meta_arg(c, "sections")) {
        int64_t s, size;
        if (!meta_in_int(c, "sections", &s)) return 0;
        if (s <= 0) return meta_fail(c, "argument 'sections' is %lld; expected > 0", (long long)s);
        if (meta_dval(c, x.sizes[d], &size) && x.sizes[d].kind == EIR_MDIM_INT && size % s)
            return meta_fail(c, "dim %u of 'self' has size %lld, not divisible by argument 'sections' (%lld)", d,
                             (long long)size, (long long)s);
        return split_sections(c, o, max, &x, d, s);
    }
    eir_mdim idx[256];
    int n = meta_in_ints(c, "indices", idx, 255, 0);
    if (n < 0) return 0;
    return split_indices(c, o, max, &x, d, idx, (uint32_t)n);
}

/* split.sizes / split.default: split_with_sizes by another argument name */
FN(t_split_sizes) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || x.rank == 0) return 0;
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    eir_mdim lens[256];
    int n = meta_in_ints(c, meta_arg(c, "split_size") ? "split_size" : "split_sizes", lens, 256, 0);
    if (n < 0) return 0;
    eir_mdim total = D(0);
    for (int k = 0; k < n; k++) total = meta_dadd(c, total, lens[k]);
    int64_t a, b;
    if (total.kind == EIR_MDIM_INT && x.sizes[d].kind == EIR_MDIM_INT && meta_dval(c, total, &a) &&
        meta_dval(c, x.sizes[d], &b) && a != b)
        return meta_fail(c, "the split sizes sum to %lld, expected the size of dim %u of 'self' (%lld)", (long long)a, d,
                         (long long)b);
    return split_views(c, o, max, &x, d, lens, NULL, (uint32_t)n);
}

/* split_copy.Tensor: split.Tensor's pieces, each contiguous */
FN(t_split_copy) {
    int n = meta_delegate(c, "aten.split.Tensor", o, max);
    for (int k = 0; k < n; k++) meta_set_contiguous(c, &o[k]);
    return n;
}

/* narrow.Tensor: the start is a tensor's value, so the offset is unknown */
FN(t_narrow_tensor) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || x.rank == 0) return 0;
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    const eir_arg *l = meta_arg(c, "length");
    *o = x;
    if (!l || !meta_symint_arg(c, l, &o->sizes[d])) return 0;
    o->offset = UNK;
    return 1;
}

/* narrow_copy: the narrowed sizes, contiguous */
FN(t_narrow_copy) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || x.rank == 0) return 0;
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    const eir_arg *l = meta_arg(c, "length");
    *o = x;
    if (!l || !meta_symint_arg(c, l, &o->sizes[d])) return 0;
    meta_set_contiguous(c, o);
    return 1;
}

/* broadcast_tensors: each expanded to the common shape (stride 0 where it
 * grows) */
FN(t_broadcast_tensors) {
    eir_mtensor *ts = eir_arena_array(c->a, 64, sizeof *ts);
    int n = ts ? in_tensor_list(c, "tensors", ts, 64) : -1;
    if (n <= 0 || (uint32_t)n > max) return 0;
    operand ops[64];
    const char *names[64];
    for (int k = 0; k < n; k++) { ops[k].t = ts[k]; ops[k].wrapped = false; names[k] = "tensors"; }
    eir_mtensor b;
    memset(&b, 0, sizeof b);
    int r = meta_broadcast(c, ops, (uint32_t)n, &b, names);
    if (r <= 0) return r;
    for (int k = 0; k < n; k++) {
        const eir_mtensor *t = &ts[k];
        o[k] = *t;
        o[k].rank = b.rank;
        uint32_t lead = b.rank - t->rank;
        for (uint32_t i = 0; i < b.rank; i++) {
            o[k].sizes[i] = b.sizes[i];
            if (i < lead) o[k].strides[i] = D(0);
            else if (is_int(t->sizes[i - lead], 1) && !is_int(b.sizes[i], 1)) o[k].strides[i] = D(0);
            else o[k].strides[i] = t->strides[i - lead];
        }
    }
    return n;
}

/* meshgrid: each 1-d (or 0-d) tensor expanded over the grid, its own
 * stride at its own dim; 'xy' indexing swaps the first two dims */
FN(t_meshgrid) {
    eir_mtensor ts[MAXR];
    int n = in_tensor_list(c, "tensors", ts, MAXR);
    if (n <= 0 || (uint32_t)n > max) return 0;
    bool xy = false;
    const eir_arg *ix = meta_arg(c, "indexing");
    if (ix && ix->kind == EIR_ARG_STRING) {
        if (!strcmp(ix->u.s, "xy")) xy = true;
        else if (strcmp(ix->u.s, "ij")) return meta_fail(c, "argument 'indexing' is '%s'; expected 'ij' or 'xy'", ix->u.s);
    }
    for (int k = 0; k < n; k++)
        if (ts[k].rank > 1) return meta_fail(c, "tensor %d of 'tensors' has rank %u; meshgrid expects 0-d or 1-d tensors",
                                             k, ts[k].rank);
    bool swap = xy && n >= 2;
    eir_mdim sz[MAXR];
    for (int k = 0; k < n; k++) {
        int src = swap && k < 2 ? 1 - k : k;
        sz[k] = ts[src].rank ? ts[src].sizes[0] : D(1);
    }
    for (int k = 0; k < n; k++) {
        int pos = swap && k < 2 ? 1 - k : k;
        o[k] = ts[k];
        o[k].rank = (uint32_t)n;
        for (int i = 0; i < n; i++) {
            o[k].sizes[i] = sz[i];
            o[k].strides[i] = i == pos && ts[k].rank ? ts[k].strides[0] : D(0);
        }
    }
    return n;
}

/* rot90: k quarter turns in the plane of dims: flips (a copy) and, for odd
 * k, the two dims transposed */
FN(t_rot90) {
    eir_mtensor x;
    int64_t k = 1;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "k", &k)) return 0;
    eir_mdim dims[4];
    if (meta_in_ints(c, "dims", dims, 4, 0) != 2) return 0;
    if (x.rank < 2) return meta_fail(c, "'self' has rank %u; rot90 expects at least 2 dims", x.rank);
    uint32_t a, b;
    if (dims[0].kind != EIR_MDIM_INT || dims[1].kind != EIR_MDIM_INT) return 0;
    if (!meta_wrap_dim(c, dims[0].c, x.rank, "argument 'dims': dim", &a) ||
        !meta_wrap_dim(c, dims[1].c, x.rank, "argument 'dims': dim", &b))
        return -1;
    if (a == b) return meta_fail(c, "argument 'dims' names dim %u twice; expected two different dims", a);
    *o = x;
    meta_like_preserve(c, &x, o);
    if (((k % 4) + 4) % 4 % 2) {
        eir_mdim s = o->sizes[a], t = o->strides[a];
        o->sizes[a] = o->sizes[b]; o->strides[a] = o->strides[b];
        o->sizes[b] = s; o->strides[b] = t;
    }
    return 1;
}

/* ---- joins ---- */

static eir_dtype promote_all(const eir_mtensor *ts, int n) {
    eir_dtype dt = EIR_DTYPE_UNKNOWN;
    for (int k = 0; k < n; k++) dt = meta_promote(dt, ts[k].dtype);
    return dt;
}

/* the concatenation of ts along dim d (1-d empty tensors skipped), contiguous */
static int cat_of(mctx *c, eir_mtensor *o, eir_mtensor *ts, int n, uint32_t d) {
    int ref = -1;
    for (int k = 0; k < n && ref < 0; k++)
        if (!(ts[k].rank == 1 && is_int(ts[k].sizes[0], 0))) ref = k;
    if (ref < 0) {
        eir_mdim z = D(0);
        contig(c, o, promote_all(ts, n), &z, 1);
        return 1;
    }
    if (d >= ts[ref].rank) return meta_fail(c, "the joined tensors have rank %u; no dim %u to join along", ts[ref].rank, d);
    eir_mdim total = D(0);
    for (int k = 0; k < n; k++) {
        if (ts[k].rank == 1 && is_int(ts[k].sizes[0], 0)) continue;
        if (ts[k].rank != ts[ref].rank)
            return meta_fail(c, "tensor %d of 'tensors' has rank %u, tensor %d rank %u (expected the same rank)", k,
                             ts[k].rank, ref, ts[ref].rank);
        total = meta_dadd(c, total, ts[k].sizes[d]);
    }
    eir_mdim sz[MAXR];
    for (uint32_t i = 0; i < ts[ref].rank; i++) sz[i] = ts[ref].sizes[i];
    sz[d] = total;
    contig(c, o, promote_all(ts, n), sz, ts[ref].rank);
    return 1;
}

/* hstack, vstack, dstack, column_stack */
FN(t_stack_like) {
    eir_mtensor *ts = eir_arena_array(c->a, 256, sizeof *ts);
    int n = ts ? in_tensor_list(c, "tensors", ts, 256) : -1;
    if (n <= 0) return 0;
    const char *nm = c->s->name + 5;
    uint32_t d = 0;
    for (int k = 0; k < n; k++) {
        if (nm[0] == 'h') atleast(c, &ts[k], 1);
        else if (nm[0] == 'v') atleast(c, &ts[k], 2);
        else if (nm[0] == 'd') atleast(c, &ts[k], 3);
        else if (ts[k].rank <= 1) { /* column_stack: a column of each vector */
            eir_mdim len = ts[k].rank ? ts[k].sizes[0] : D(1);
            ts[k].rank = 2;
            ts[k].sizes[0] = len;
            ts[k].sizes[1] = D(1);
        }
    }
    if (nm[0] == 'h') d = ts[0].rank == 1 ? 0 : 1;
    else if (nm[0] == 'v') d = 0;
    else if (nm[0] == 'd') d = 2;
    else d = 1;
    return cat_of(c, o, ts, n, d);
}

/* block_diag: the matrices (0-d: 1x1, 1-d: one row) on the diagonal */
FN(t_block_diag) {
    eir_mtensor *ts = eir_arena_array(c->a, 256, sizeof *ts);
    int n = ts ? in_tensor_list(c, "tensors", ts, 256) : -1;
    if (n < 0) return 0;
    eir_mdim sz[2] = {D(0), D(0)};
    for (int k = 0; k < n; k++) {
        if (ts[k].rank > 2) return meta_fail(c, "tensor %d of 'tensors' has rank %u; block_diag expects at most 2 dims", k,
                                             ts[k].rank);
        eir_mdim r = ts[k].rank == 2 ? ts[k].sizes[0] : D(1);
        eir_mdim cl = ts[k].rank == 0 ? D(1) : ts[k].sizes[ts[k].rank - 1];
        sz[0] = meta_dadd(c, sz[0], r);
        sz[1] = meta_dadd(c, sz[1], cl);
    }
    contig(c, o, n ? promote_all(ts, n) : EIR_F32, sz, 2);
    return 1;
}

/* cartesian_prod: [product of the lengths, number of tensors] (1-d for one) */
FN(t_cartesian_prod) {
    eir_mtensor ts[MAXR];
    int n = in_tensor_list(c, "tensors", ts, MAXR);
    if (n <= 0) return 0;
    eir_mdim p = D(1);
    for (int k = 0; k < n; k++) {
        if (ts[k].rank != 1) return meta_fail(c, "tensor %d of 'tensors' has rank %u; expected 1-d tensors", k, ts[k].rank);
        p = meta_dmul(c, p, ts[k].sizes[0]);
    }
    eir_mdim sz[2] = {p, D(n)};
    contig(c, o, promote_all(ts, n), sz, n == 1 ? 1 : 2);
    return 1;
}

/* pad_sequence: [longest, batch, ...] or [batch, longest, ...] */
FN(t_pad_sequence) {
    eir_mtensor *ts = eir_arena_array(c->a, 256, sizeof *ts);
    int n = ts ? in_tensor_list(c, "sequences", ts, 256) : -1;
    if (n <= 0 || ts[0].rank == 0 || ts[0].rank + 1 > MAXR) return 0;
    int64_t longest = 0;
    for (int k = 0; k < n; k++) {
        int64_t v;
        if (ts[k].rank != ts[0].rank || ts[k].sizes[0].kind != EIR_MDIM_INT || !meta_dval(c, ts[k].sizes[0], &v)) return 0;
        if (v > longest) longest = v;
    }
    bool bf = meta_in_bool(c, "batch_first", false);
    eir_mdim sz[MAXR];
    sz[bf ? 0 : 1] = D(n);
    sz[bf ? 1 : 0] = D(longest);
    for (uint32_t i = 1; i < ts[0].rank; i++) sz[i + 1] = ts[0].sizes[i];
    contig(c, o, ts[0].dtype, sz, ts[0].rank + 1);
    return 1;
}

/* ---- indexing and search ---- */

/* take: index's shape in self's dtype */
FN(t_take) {
    eir_mtensor x, idx;
    if (meta_in_tensor(c, "self", &x) != 1 || meta_in_tensor(c, "index", &idx) != 1) return 0;
    contig(c, o, x.dtype, idx.sizes, idx.rank);
    return 1;
}

/* take_along_dim: flattened (dim None), or self and indices broadcast but
 * in dim, which indices gives */
FN(t_take_along_dim) {
    eir_mtensor x, idx;
    if (meta_in_tensor(c, "self", &x) != 1 || meta_in_tensor(c, "indices", &idx) != 1) return 0;
    if (!meta_arg(c, "dim")) {
        eir_mdim n = numel(c, &idx);
        contig(c, o, x.dtype, &n, 1);
        return 1;
    }
    if (x.rank != idx.rank)
        return meta_fail(c, "'self' has rank %u and 'indices' rank %u; expected the same rank", x.rank, idx.rank);
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    operand ops[2] = {{x, false}, {idx, false}};
    ops[0].t.sizes[d] = D(1);
    ops[1].t.sizes[d] = D(1);
    static const char *const names[] = {"self", "indices"};
    memset(o, 0, sizeof *o);
    if ((r = meta_broadcast(c, ops, 2, o, names)) <= 0) return r;
    o->sizes[d] = idx.sizes[d];
    o->dtype = x.dtype;
    meta_set_contiguous(c, o);
    return 1;
}

/* searchsorted / bucketize: the positions of self (a tensor or a number)
 * as int64, or int32 with out_int32 */
FN(t_search) {
    eir_mtensor x;
    bool out32 = meta_in_bool(c, "out_int32", false);
    int r = meta_in_tensor(c, "self", &x);
    if (r <= 0) return meta_arg(c, "self") ? scalar_out(c, o, out32 ? EIR_I32 : EIR_I64) : 0; /* a number */
    contig(c, o, out32 ? EIR_I32 : EIR_I64, x.sizes, x.rank);
    return 1;
}

/* isin: elements' shape (0-d for a number), bool */
FN(t_isin) {
    eir_mtensor x;
    int r = meta_in_tensor(c, "elements", &x);
    if (r <= 0) return meta_arg(c, "element") ? scalar_out(c, o, EIR_BOOL) : 0; /* isin.Scalar_Tensor */
    contig(c, o, EIR_BOOL, x.sizes, x.rank);
    return 1;
}

/* repeat_interleave.self_int: each element `repeats` times along dim (of
 * the flattened self when dim is None); self_Tensor: output_size when given */
FN(t_repeat_interleave) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim rep = UNK;
    const eir_arg *ra = meta_arg(c, "repeats");
    if (!ra) return 0;
    if (ra->kind == EIR_ARG_TENSOR) {
        eir_mtensor rt;
        if (meta_in_tensor(c, "repeats", &rt) != 1) return 0;
        if (rt.rank == 0 || (rt.rank == 1 && is_int(rt.sizes[0], 1))) rep = UNK; /* the one count is data */
    } else if (!meta_symint_arg(c, ra, &rep)) {
        return 0;
    }
    const eir_arg *os = meta_arg(c, "output_size");
    eir_mdim osz = UNK;
    if (os && !meta_symint_arg(c, os, &osz)) return 0;
    if (!meta_arg(c, "dim")) {
        eir_mdim n = known(osz) ? osz : known(rep) ? meta_dmul(c, numel(c, &x), rep) : UNK;
        blank(o, x.dtype, 1);
        o->sizes[0] = n;
        if (known(n)) meta_set_contiguous(c, o);
        else o->strides[0] = D(1), o->strides_known = true;
        return 1;
    }
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    *o = x;
    if (x.rank == 0) { o->rank = 1; d = 0; }
    o->sizes[d] = known(osz) ? osz : known(rep) ? meta_dmul(c, x.rank ? x.sizes[d] : D(1), rep) : UNK;
    if (known(o->sizes[d])) meta_set_contiguous(c, o);
    else no_strides(o);
    return 1;
}

/* one_hot: int64 [..., num_classes]; num_classes -1 is data-dependent */
FN(t_one_hot) {
    eir_mtensor x;
    int64_t n = -1;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "num_classes", &n) || x.rank + 1 > MAXR) return 0;
    *o = x;
    o->dtype = EIR_I64;
    o->sizes[o->rank++] = n < 0 ? UNK : D(n);
    if (n < 0) no_strides(o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* nonzero_static: [size, rank] int64 */
FN(t_nonzero_static) {
    eir_mtensor x;
    const eir_arg *s = meta_arg(c, "size");
    eir_mdim sz[2];
    if (meta_in_tensor(c, "self", &x) != 1 || !s || !meta_symint_arg(c, s, &sz[0])) return 0;
    sz[1] = D(x.rank);
    contig(c, o, EIR_I64, sz, 2);
    return 1;
}

/* nonzero_numpy, where(condition): one int64 index vector per dim of
 * self (a 0-d self counts as 1-d), as many as it has nonzero elements
 * (data-dependent) */
FN(t_nonzero_numpy) {
    eir_mtensor x;
    if (meta_in_tensor(c, meta_arg(c, "condition") ? "condition" : "self", &x) != 1) return 0;
    uint32_t n = x.rank ? x.rank : 1;
    if (n > max) return 0;
    for (uint32_t k = 0; k < n; k++) {
        blank(&o[k], EIR_I64, 1);
        o[k].sizes[0] = UNK;
        no_strides(&o[k]);
    }
    return (int)n;
}

/* unique_consecutive: values (data-dependent count), inverse indices
 * (self's shape or empty) and counts */
FN(t_unique_consecutive) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || max < 3) return 0;
    if (meta_arg(c, "dim")) return 0;
    blank(&o[0], x.dtype, 1);
    o[0].sizes[0] = UNK;
    no_strides(&o[0]);
    eir_mdim z = D(0);
    if (meta_in_bool(c, "return_inverse", false)) contig(c, &o[1], EIR_I64, x.sizes, x.rank);
    else contig(c, &o[1], EIR_I64, &z, 1);
    if (meta_in_bool(c, "return_counts", false)) {
        blank(&o[2], EIR_I64, 1);
        o[2].sizes[0] = UNK;
        no_strides(&o[2]);
    } else {
        contig(c, &o[2], EIR_I64, &z, 1);
    }
    return 3;
}


/* segment_reduce: data with dim axis replaced by the number of segments */
FN(t_segment_reduce) {
    eir_mtensor x, l;
    if (meta_in_tensor(c, "data", &x) != 1) return 0;
    uint32_t d;
    int r = in_dim(c, "axis", x.rank, &d);
    if (r <= 0) return r;
    *o = x;
    if (meta_in_tensor(c, "lengths", &l) == 1 && l.rank >= 1) o->sizes[d] = l.sizes[l.rank - 1];
    else if (meta_in_tensor(c, "offsets", &l) == 1 && l.rank >= 1) o->sizes[d] = meta_dsub(c, l.sizes[l.rank - 1], D(1));
    else return 0;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- histograms ---- */

/* histc: [bins] in self's dtype */
FN(t_histc) {
    eir_mtensor x;
    int64_t bins = 100;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "bins", &bins)) return 0;
    if (bins <= 0) return meta_fail(c, "argument 'bins' is %lld; expected > 0", (long long)bins);
    eir_mdim b = D(bins);
    contig(c, o, x.dtype, &b, 1);
    return 1;
}

/* bincount: one count per value up to the largest (data-dependent);
 * int64, or the weights' float dtype */
FN(t_bincount) {
    eir_mtensor x, w;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    int r = meta_in_tensor(c, "weights", &w);
    if (r < 0) return 0;
    blank(o, r == 0 ? EIR_I64 : w.dtype == EIR_F32 ? EIR_F32 : EIR_F64, 1);
    o->sizes[0] = UNK;
    no_strides(o);
    return 1;
}

/* histogram: bins counts and bins + 1 edges, in self's dtype */
FN(t_histogram) {
    eir_mtensor x, b;
    if (meta_in_tensor(c, "self", &x) != 1 || max < 2) return 0;
    eir_mdim n;
    if (meta_in_tensor(c, "bins", &b) == 1) {
        if (b.rank != 1) return meta_fail(c, "'bins' has rank %u; expected a 1-d tensor of edges", b.rank);
        n = meta_dsub(c, b.sizes[0], D(1));
    } else {
        int64_t v = 100;
        if (!meta_in_int(c, "bins", &v)) return 0;
        n = D(v);
    }
    contig(c, &o[0], x.dtype, &n, 1);
    eir_mdim e = meta_dadd(c, n, D(1));
    contig(c, &o[1], x.dtype, &e, 1);
    return 2;
}

/* histogramdd and its parts: self [..., D]; the counts [b0, ..., bD-1] and
 * one [bi + 1] edge tensor per dim */
static int hdd_bins(mctx *c, const eir_mtensor *x, eir_mdim *bins, uint32_t *nd) {
    if (x->rank < 1 || x->sizes[x->rank - 1].kind != EIR_MDIM_INT) return 0;
    int64_t dims = x->sizes[x->rank - 1].c;
    if (dims < 1 || dims > MAXR) return 0;
    *nd = (uint32_t)dims;
    const eir_arg *a = meta_arg(c, "bins");
    if (!a) return 0;
    if (a->kind == EIR_ARG_TENSORS) {
        eir_mtensor ts[MAXR];
        int n = in_tensor_list(c, "bins", ts, MAXR);
        if (n != (int)dims) return 0;
        for (int k = 0; k < n; k++) bins[k] = meta_dsub(c, ts[k].sizes[0], D(1));
        return 1;
    }
    if (a->kind == EIR_ARG_INT) {
        for (int64_t k = 0; k < dims; k++) bins[k] = D(a->u.i);
        return 1;
    }
    int n = meta_in_ints(c, "bins", bins, MAXR, 0);
    if (n != (int)dims)
        return n < 0 ? 0 : meta_fail(c, "argument 'bins' has %d entries; expected %lld (the last dim of 'self')", n,
                                     (long long)dims);
    return 1;
}

FN(t_histogramdd) {
    eir_mtensor x;
    eir_mdim bins[MAXR];
    uint32_t nd;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    int r = hdd_bins(c, &x, bins, &nd);
    if (r <= 0) return r;
    const char *nm = c->s->name;
    bool hist = !strstr(nm, "bin_edges"), edges = !strstr(nm, "_from_bin_");
    uint32_t k = 0;
    if (hist) contig(c, &o[k++], x.dtype, bins, nd);
    if (edges) {
        if (k + nd > max) return 0;
        for (uint32_t i = 0; i < nd; i++) {
            eir_mdim e = meta_dadd(c, bins[i], D(1));
            contig(c, &o[k++], x.dtype, &e, 1);
        }
    }
    return (int)k;
}

/* ---- reductions and norms ---- */

/* trace: the 0-d sum of the diagonal (int64 for integers) */
FN(t_trace) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank != 2) return meta_fail(c, "'self' has rank %u; trace expects a matrix", x.rank);
    return scalar_out(c, o, meta_dt_cat(x.dtype) <= 1 ? EIR_I64 : x.dtype);
}

/* norms reducing over "dim" (all dims when absent), in the real dtype */
FN(t_norm_dim) { return meta_reduction(c, o, RED_FLOAT, "dim"); }

/* nuclear_norm without dim: over the last two dims */
FN(t_nuclear_norm) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank < 2) return meta_fail(c, "'self' has rank %u; nuclear_norm expects a matrix", x.rank);
    bool keep = meta_in_bool(c, "keepdim", false);
    *o = x;
    o->dtype = real_of(x.dtype);
    if (keep) o->sizes[x.rank - 2] = o->sizes[x.rank - 1] = D(1);
    else o->rank = x.rank - 2;
    meta_set_contiguous(c, o);
    return 1;
}

/* linalg_norm: over dim, or every dim; the real dtype (or dtype) */
FN(t_linalg_norm) {
    int r = meta_reduction(c, o, RED_FLOAT, "dim");
    eir_dtype dt = meta_in_dtype(c, "dtype");
    if (r > 0 && dt != EIR_DTYPE_UNKNOWN) o->dtype = real_of(dt);
    return r;
}

/* linalg_matrix_norm: over the two dims of dim (schema default: the last two) */
FN(t_matrix_norm) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank < 2) return meta_fail(c, "'self' has rank %u; a matrix norm expects at least 2 dims", x.rank);
    eir_mdim dl[MAXR];
    if (meta_in_ints(c, "dim", dl, MAXR, 0) != 2) return 0;
    bool mask[MAXR] = {0};
    for (int i = 0; i < 2; i++) {
        uint32_t d;
        if (dl[i].kind != EIR_MDIM_INT) return 0;
        if (!meta_wrap_dim(c, dl[i].c, x.rank, "argument 'dim'", &d)) return -1;
        if (mask[d]) return meta_fail(c, "argument 'dim' repeats dim %u", d);
        mask[d] = true;
    }
    bool keep = meta_in_bool(c, "keepdim", false);
    eir_dtype dt = meta_in_dtype(c, "dtype");
    *o = x;
    o->dtype = real_of(dt != EIR_DTYPE_UNKNOWN ? dt : x.dtype);
    uint32_t n = 0;
    for (uint32_t i = 0; i < x.rank; i++) {
        if (!mask[i]) o->sizes[n++] = x.sizes[i];
        else if (keep) o->sizes[n++] = D(1);
    }
    o->rank = n;
    meta_set_contiguous(c, o);
    return 1;
}

/* linalg_cond: one real value per matrix */
FN(t_linalg_cond) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank < 2) return meta_fail(c, "'self' has rank %u; linalg_cond expects a matrix or a batch of them", x.rank);
    *o = x;
    o->dtype = real_of(x.dtype);
    o->rank = x.rank - 2;
    meta_set_contiguous(c, o);
    return 1;
}

/* dist: the 0-d p-norm of self - other */
FN(t_dist) {
    eir_mtensor t;
    int r = meta_pointwise(c, &t, N_SELF_OTHER, 2, PW_SAME);
    if (r <= 0) return r;
    return scalar_out(c, o, real_of(t.dtype));
}

/* quantile / nanquantile: over dim (or the flattened self); a 1-d q adds a
 * leading dim */
FN(t_quantile) {
    eir_mtensor x, q;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    int rq = meta_in_tensor(c, "q", &q);
    if (rq < 0 && meta_arg(c, "q")->kind == EIR_ARG_FLOAT) rq = 0; /* quantile.scalar */
    if (rq < 0) return 0;
    if (rq == 1 && q.rank > 1) return meta_fail(c, "'q' has rank %u; expected a 0-d or 1-d tensor", q.rank);
    bool keep = meta_in_bool(c, "keepdim", false);
    eir_mdim sz[MAXR];
    uint32_t n = 0;
    if (rq == 1 && q.rank == 1) sz[n++] = q.sizes[0];
    if (!meta_arg(c, "dim")) {
        if (keep)
            for (uint32_t i = 0; i < x.rank; i++) sz[n++] = D(1);
    } else {
        uint32_t d;
        int r = in_dim(c, "dim", x.rank, &d);
        if (r <= 0) return r;
        for (uint32_t i = 0; i < x.rank; i++) {
            if (i != d) sz[n++] = x.sizes[i];
            else if (keep) sz[n++] = D(1);
        }
    }
    if (n > MAXR) return 0;
    contig(c, o, x.dtype, sz, n);
    if (rq == 1 && q.rank == 1 && n > 1) { /* computed with the quantiles last, then moved to the front */
        uint32_t order[MAXR];
        order[0] = 0;
        for (uint32_t i = 1; i < n; i++) order[i] = n - i;
        meta_set_strides_order(c, o, order);
    }
    return 1;
}

/* trapezoid / trapz / cumulative_trapezoid over dim, in a float dtype */
FN(t_trapezoid) {
    eir_mtensor y, x;
    if (meta_in_tensor(c, "y", &y) != 1) return 0;
    uint32_t d;
    int r = in_dim(c, "dim", y.rank, &d);
    if (r <= 0) return r;
    if (y.rank == 0) return meta_fail(c, "'y' is 0-d; expected a dim to integrate over");
    eir_dtype dt = y.dtype;
    int rx = meta_in_tensor(c, "x", &x);
    if (rx < 0) return 0;
    if (rx == 1) dt = meta_promote(dt, x.dtype);
    const eir_arg *dx = meta_arg(c, "dx");
    if (dx && (dx->kind == EIR_ARG_FLOAT || dx->kind == EIR_ARG_SYM_FLOAT) && meta_dt_cat(dt) < 2) dt = EIR_F32;
    dt = float_of(dt);
    *o = y;
    o->dtype = dt;
    if (strstr(c->s->name, "cumulative")) {
        int64_t n;
        o->sizes[d] = meta_dval(c, y.sizes[d], &n) && n == 0 ? D(0) : meta_dsub(c, y.sizes[d], D(1));
    } else {
        drop_dim(o, d);
    }
    meta_set_contiguous(c, o);
    return 1;
}

/* diff: n differences along dim, after prepend and append */
FN(t_diff) {
    eir_mtensor x, p;
    int64_t n = 1;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "n", &n)) return 0;
    if (x.rank == 0) return meta_fail(c, "'self' is 0-d; diff expects at least one dim");
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    eir_mdim len = x.sizes[d];
    eir_dtype dt = x.dtype;
    static const char *const ext[] = {"prepend", "append"};
    for (int k = 0; k < 2; k++) {
        int rp = meta_in_tensor(c, ext[k], &p);
        if (rp < 0) return 0;
        if (rp == 1) {
            len = meta_dadd(c, len, p.rank == x.rank ? p.sizes[d] : D(1));
            dt = meta_promote(dt, p.dtype);
        }
    }
    int64_t l;
    if (!meta_dval(c, len, &l)) return 0;
    *o = x;
    if (n == 0) { /* self copied, prepend and append ignored */
        meta_like_preserve(c, &x, o);
        return 1;
    }
    o->dtype = dt;
    o->sizes[d] = l - n < 0 ? D(0) : meta_dsub(c, len, D(n));
    meta_set_contiguous(c, o);
    return 1;
}

/* cosine_similarity: x1 and x2 broadcast, dim reduced */
FN(t_cosine_similarity) {
    static const char *const names[] = {"x1", "x2"};
    eir_mtensor b;
    int r = meta_pointwise(c, &b, names, 2, PW_SAME);
    if (r <= 0) return r;
    uint32_t d;
    if ((r = in_dim(c, "dim", b.rank, &d)) <= 0) return r;
    *o = b;
    if (b.rank) drop_dim(o, d);
    meta_set_contiguous(c, o);
    return 1;
}

/* pairwise_distance: x1 and x2 broadcast, the last dim reduced */
FN(t_pairwise_distance) {
    static const char *const names[] = {"x1", "x2"};
    eir_mtensor b;
    int r = meta_pointwise(c, &b, names, 2, PW_SAME);
    if (r <= 0) return r;
    *o = b;
    o->dtype = real_of(float_of(b.dtype)); /* eps joins the promotion */
    if (b.rank) {
        if (meta_in_bool(c, "keepdim", false)) o->sizes[b.rank - 1] = D(1);
        else o->rank--;
    }
    meta_set_contiguous(c, o);
    return 1;
}


/* ---- losses ---- */

/* a loss per element of the broadcast names (reduction none) or 0-d */
static int loss_pointwise(mctx *c, eir_mtensor *o, const char *const *names, uint32_t n, int kind) {
    int64_t red;
    int r = in_reduction(c, &red);
    if (r <= 0) return r;
    if ((r = meta_pointwise(c, o, names, n, kind)) <= 0) return r;
    if (red == 0) { meta_set_contiguous(c, o); return 1; }
    return scalar_out(c, o, o->dtype);
}

static const char *const N_LOSS[] = {"self", "target"};
static const char *const N_INPUT_TARGET[] = {"input", "target"};
static const char *const N_RANKING[] = {"input1", "input2", "target"};
FN(t_loss) { return loss_pointwise(c, o, meta_arg(c, "self") ? N_LOSS : N_INPUT_TARGET, 2, PW_SAME); }
/* a float margin joins the promotion */
FN(t_margin_ranking_loss) { return loss_pointwise(c, o, N_RANKING, 3, PW_FLOAT); }

/* a loss per row of input (its last dim reduced), or 0-d */
static int loss_per_row(mctx *c, eir_mtensor *o, const char *name, bool class_dim_first) {
    eir_mtensor x;
    int64_t red;
    if (meta_in_tensor(c, name, &x) != 1) return 0;
    int r = in_reduction(c, &red);
    if (r <= 0) return r;
    if (red != 0) return scalar_out(c, o, x.dtype);
    *o = x;
    if (x.rank) {
        if (class_dim_first) o->rank = 1; /* [N, C] -> [N] */
        else o->rank--;
    }
    meta_set_contiguous(c, o);
    return 1;
}

FN(t_cosine_embedding_loss) { return loss_per_row(c, o, "input1", false); }
FN(t_triplet_margin_loss) { return loss_per_row(c, o, "anchor", false); }
FN(t_multi_margin_loss) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank > 2) return meta_fail(c, "'self' has rank %u; multi_margin_loss expects (N, C) or (C)", x.rank);
    return loss_per_row(c, o, "self", true);
}

/* multilabel_margin_loss (+ _forward: is_target, target's shape in self's dtype) */
FN(t_multilabel_margin_loss) {
    eir_mtensor x, t;
    if (meta_in_tensor(c, "self", &x) != 1 || meta_in_tensor(c, "target", &t) != 1) return 0;
    if (x.rank > 2) return meta_fail(c, "'self' has rank %u; multilabel_margin_loss expects (N, C) or (C)", x.rank);
    int r = loss_per_row(c, o, "self", true);
    if (r <= 0 || !strstr(c->s->name, "_forward")) return r;
    if (max < 2) return 0;
    contig(c, &o[1], x.dtype, t.sizes, t.rank);
    return 2;
}

/* ---- linear algebra ---- */

/* the last two dims fastest-first (columns contiguous), then the batch dims */
static void set_col_major(mctx *c, eir_mtensor *t) {
    if (t->rank < 2) { meta_set_contiguous(c, t); return; }
    uint32_t order[MAXR];
    order[0] = t->rank - 2;
    order[1] = t->rank - 1;
    for (uint32_t k = 2; k < t->rank; k++) order[k] = t->rank - 1 - k;
    meta_set_strides_order(c, t, order);
}

static int in_matrix(mctx *c, const char *name, eir_mtensor *a, bool square) {
    int r = meta_in_tensor(c, name, a);
    if (r != 1) return 0;
    if (a->rank < 2) return meta_fail(c, "'%s' has rank %u; expected a matrix or a batch of matrices", name, a->rank);
    int64_t m, n;
    if (square && meta_dval(c, a->sizes[a->rank - 2], &m) && meta_dval(c, a->sizes[a->rank - 1], &n) && m != n &&
        a->sizes[a->rank - 2].kind == EIR_MDIM_INT && a->sizes[a->rank - 1].kind == EIR_MDIM_INT)
        return meta_fail(c, "'%s' has %lld x %lld matrices; expected square ones", name, (long long)m, (long long)n);
    return 1;
}

/* [batch of a..., extra...] of dtype dt */
static void batch_tensor(mctx *c, eir_mtensor *o, const eir_mtensor *a, uint32_t batch, eir_dtype dt, const eir_mdim *extra,
                         uint32_t n, bool col_major) {
    blank(o, dt, batch + n);
    for (uint32_t i = 0; i < batch; i++) o->sizes[i] = a->sizes[i];
    for (uint32_t i = 0; i < n; i++) o->sizes[batch + i] = extra[i];
    if (col_major) set_col_major(c, o);
    else meta_set_contiguous(c, o);
}

/* min(m, n) of a's matrices, when known */
static bool min_mn(mctx *c, const eir_mtensor *a, eir_mdim *k) {
    eir_mdim m = a->sizes[a->rank - 2], n = a->sizes[a->rank - 1];
    int64_t mv, nv;
    if (meta_deq(c, m, n)) { *k = m; return true; }
    if (m.kind != EIR_MDIM_INT || n.kind != EIR_MDIM_INT || !meta_dval(c, m, &mv) || !meta_dval(c, n, &nv)) return false;
    *k = mv <= nv ? m : n;
    return true;
}

/* addmv: [n]; addr: [n, m]; addbmm: [n, p] */
FN(t_addmv) {
    eir_mtensor m, v;
    if (meta_in_tensor(c, "mat", &m) != 1 || meta_in_tensor(c, "vec", &v) != 1) return 0;
    if (m.rank != 2 || v.rank != 1)
        return meta_fail(c, "'mat' has rank %u and 'vec' rank %u; addmv expects a matrix and a vector", m.rank, v.rank);
    if (meta_check_same(c, m.sizes[1], v.sizes[0], "the sizes of 'mat' (dim 1) and 'vec'") < 0) return -1;
    contig(c, o, m.dtype, m.sizes, 1);
    return 1;
}

FN(t_addr) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "vec1", &a) != 1 || meta_in_tensor(c, "vec2", &b) != 1) return 0;
    if (a.rank != 1 || b.rank != 1)
        return meta_fail(c, "'vec1' has rank %u and 'vec2' rank %u; addr expects two vectors", a.rank, b.rank);
    eir_mdim sz[2] = {a.sizes[0], b.sizes[0]};
    contig(c, o, meta_promote(a.dtype, b.dtype), sz, 2);
    return 1;
}

FN(t_addbmm) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "batch1", &a) != 1 || meta_in_tensor(c, "batch2", &b) != 1) return 0;
    if (a.rank != 3 || b.rank != 3)
        return meta_fail(c, "'batch1' has rank %u and 'batch2' rank %u; addbmm expects two 3-d tensors", a.rank, b.rank);
    if (meta_check_same(c, a.sizes[2], b.sizes[1], "the sizes of 'batch1' (dim 2) and 'batch2' (dim 1)") < 0) return -1;
    eir_mdim sz[2] = {a.sizes[1], b.sizes[2]};
    contig(c, o, a.dtype, sz, 2);
    return 1;
}

/* inner: the last dims contracted (a product with a 0-d operand) */
FN(t_inner) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "other", &b) != 1) return 0;
    if (a.rank == 0 || b.rank == 0) return meta_pointwise(c, o, N_SELF_OTHER, 2, PW_SAME);
    if (a.rank + b.rank - 2 > MAXR) return 0;
    if (meta_check_same(c, a.sizes[a.rank - 1], b.sizes[b.rank - 1], "the last dims of 'self' and 'other'") < 0) return -1;
    eir_mdim sz[MAXR];
    uint32_t n = 0;
    for (uint32_t i = 0; i + 1 < a.rank; i++) sz[n++] = a.sizes[i];
    for (uint32_t i = 0; i + 1 < b.rank; i++) sz[n++] = b.sizes[i];
    contig(c, o, meta_promote(a.dtype, b.dtype), sz, n);
    return 1;
}

/* kron: sizes multiplied dim by dim (the lower rank padded with 1s) */
FN(t_kron) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "other", &b) != 1) return 0;
    uint32_t r = a.rank > b.rank ? a.rank : b.rank;
    eir_mdim sz[MAXR];
    for (uint32_t i = 0; i < r; i++) {
        eir_mdim x = i + a.rank >= r ? a.sizes[i + a.rank - r] : D(1);
        eir_mdim y = i + b.rank >= r ? b.sizes[i + b.rank - r] : D(1);
        sz[i] = meta_dmul(c, x, y);
    }
    contig(c, o, meta_promote(a.dtype, b.dtype), sz, r);
    return 1;
}

/* tensordot: the dims not contracted, self's then other's */
FN(t_tensordot) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "other", &b) != 1) return 0;
    eir_mdim da[MAXR], db[MAXR];
    int n = meta_in_ints(c, "dims_self", da, MAXR, 0), m = meta_in_ints(c, "dims_other", db, MAXR, 0);
    if (n < 0 || m < 0) return 0;
    if (n != m) return meta_fail(c, "arguments 'dims_self' (%d dims) and 'dims_other' (%d) differ in length", n, m);
    bool ca[MAXR] = {0}, cb[MAXR] = {0};
    for (int i = 0; i < n; i++) {
        uint32_t x, y;
        if (da[i].kind != EIR_MDIM_INT || db[i].kind != EIR_MDIM_INT) return 0;
        if (!meta_wrap_dim(c, da[i].c, a.rank, "argument 'dims_self': dim", &x) ||
            !meta_wrap_dim(c, db[i].c, b.rank, "argument 'dims_other': dim", &y))
            return -1;
        if (meta_check_same(c, a.sizes[x], b.sizes[y], "the sizes of the contracted dims") < 0) return -1;
        ca[x] = cb[y] = true;
    }
    eir_mdim sz[2 * MAXR];
    uint32_t k = 0;
    for (uint32_t i = 0; i < a.rank; i++) if (!ca[i]) sz[k++] = a.sizes[i];
    for (uint32_t i = 0; i < b.rank; i++) if (!cb[i]) sz[k++] = b.sizes[i];
    if (k > MAXR) return 0;
    contig(c, o, meta_promote(a.dtype, b.dtype), sz, k);
    return 1;
}

/* linalg_multi_dot / chain_matmul: the first's rows by the last's columns
 * (multi_dot drops the dim of a 1-d first or last) */
FN(t_multi_dot) {
    eir_mtensor *ts = eir_arena_array(c->a, 256, sizeof *ts);
    bool chain = !strcmp(c->s->name, "aten.chain_matmul.default");
    int n = ts ? in_tensor_list(c, chain ? "matrices" : "tensors", ts, 256) : -1;
    if (n <= 0) return 0;
    if (n == 1 && chain) { *o = ts[0]; meta_like_preserve(c, &ts[0], o); return 1; }
    if (n == 1) return 0;
    const eir_mtensor *f = &ts[0], *l = &ts[n - 1];
    eir_mdim sz[2];
    uint32_t k = 0;
    if (f->rank == 2) sz[k++] = f->sizes[0];
    else if (f->rank != 1 || chain) return meta_fail(c, "the first tensor has rank %u; expected a matrix%s", f->rank,
                                                     chain ? "" : " or a vector");
    if (l->rank == 2) sz[k++] = l->sizes[1];
    else if (l->rank != 1 || chain) return meta_fail(c, "the last tensor has rank %u; expected a matrix%s", l->rank,
                                                     chain ? "" : " or a vector");
    for (int i = 1; i + 1 < n; i++)
        if (ts[i].rank != 2) return meta_fail(c, "tensor %d has rank %u; expected a matrix", i, ts[i].rank);
    contig(c, o, f->dtype, sz, k);
    return 1;
}

/* linalg_vecdot: x and y broadcast, dim reduced */
FN(t_vecdot) {
    static const char *const names[] = {"x", "y"};
    eir_mtensor b;
    int r = meta_pointwise(c, &b, names, 2, PW_SAME);
    if (r <= 0) return r;
    uint32_t d;
    if ((r = in_dim(c, "dim", b.rank, &d)) <= 0) return r;
    *o = b;
    if (b.rank) drop_dim(o, d);
    meta_set_contiguous(c, o);
    return 1;
}

/* cross / linalg_cross: self and other broadcast, contiguous */
FN(t_cross) {
    int r = meta_pointwise(c, o, N_SELF_OTHER, 2, PW_SAME);
    if (r > 0) meta_set_contiguous(c, o);
    return r;
}

/* bilinear: [batch..., out_features] */
FN(t_bilinear) {
    eir_mtensor a, w;
    if (meta_in_tensor(c, "input1", &a) != 1 || meta_in_tensor(c, "weight", &w) != 1) return 0;
    if (w.rank != 3 || a.rank == 0) return meta_fail(c, "'weight' has rank %u; bilinear expects (out, in1, in2)", w.rank);
    *o = a;
    o->sizes[a.rank - 1] = w.sizes[0];
    meta_set_contiguous(c, o);
    return 1;
}

/* matrix_power: contiguous (n >= 0); a negative power goes through the
 * inverse, whose layout is not inferred */
FN(t_matrix_power) {
    eir_mtensor a;
    int64_t n;
    int r = in_matrix(c, "self", &a, true);
    if (r <= 0 || !meta_in_int(c, "n", &n)) return r < 0 ? r : 0;
    *o = a;
    if (n < 0) no_strides(o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* linalg_solve(_ex), _linalg_solve_ex: the batch dims broadcast; B a
 * vector (rank 1, or A's batch and one dim) or matrices; LAPACK's
 * column-major results; info int32 per matrix, LU and pivots of A */
static int solve_common(mctx *c, eir_mtensor *o, uint32_t max, int form) {
    eir_mtensor a, b;
    int r = in_matrix(c, "A", &a, true);
    if (r <= 0) return r;
    if (meta_in_tensor(c, "B", &b) != 1) return 0;
    bool left = meta_in_bool(c, "left", true);
    bool vector = b.rank == 1 || (b.rank == a.rank - 1 && left);
    if (vector && b.rank != 1) {
        for (uint32_t i = 0; i + 1 < b.rank; i++)
            if (!meta_deq(c, b.sizes[i], a.sizes[i])) { vector = false; break; }
    }
    operand ops[2] = {{a, false}, {b, false}};
    ops[0].t.rank = a.rank - 2;
    ops[1].t.rank = vector ? b.rank - 1 : b.rank - 2;
    if (b.rank < (vector ? 1u : 2u)) return meta_fail(c, "'B' has rank %u; expected a vector or a matrix", b.rank);
    static const char *const names[] = {"A", "B"};
    eir_mtensor bt;
    memset(&bt, 0, sizeof bt);
    if ((r = meta_broadcast(c, ops, 2, &bt, names)) <= 0) return r;
    uint32_t batch = bt.rank;
    eir_mdim extra[2];
    if (vector) {
        /* torch lays the result out as a batch of column-major matrices of
         * its own last two dims, even when those are a batch dim and n */
        extra[0] = b.sizes[b.rank - 1];
        batch_tensor(c, &o[0], &bt, batch, meta_promote(a.dtype, b.dtype), extra, 1, left);
    } else {
        extra[0] = b.sizes[b.rank - 2];
        extra[1] = b.sizes[b.rank - 1];
        batch_tensor(c, &o[0], &bt, batch, meta_promote(a.dtype, b.dtype), extra, 2, left); /* right: row-major */
    }
    if (form == 0) return 1;
    if (form == 1) { /* linalg_solve_ex: (result, info) */
        if (max < 2) return 0;
        batch_tensor(c, &o[1], &bt, batch, EIR_I32, NULL, 0, false);
        return 2;
    }
    if (max < 4) return 0; /* _linalg_solve_ex: (result, LU, pivots, info) */
    extra[0] = a.sizes[a.rank - 2];
    extra[1] = a.sizes[a.rank - 1];
    batch_tensor(c, &o[1], &a, a.rank - 2, a.dtype, extra, 2, true);
    batch_tensor(c, &o[2], &a, a.rank - 2, EIR_I32, extra, 1, false);
    batch_tensor(c, &o[3], &a, a.rank - 2, EIR_I32, NULL, 0, false);
    return 4;
}
FN(t_linalg_solve) { return solve_common(c, o, max, 0); }
FN(t_linalg_solve_ex) { return solve_common(c, o, max, 1); }
FN(t__linalg_solve_ex) { return solve_common(c, o, max, 2); }

/* linalg_lu_factor(_ex), _lu_with_info: LU column-major, int32 pivots
 * [..., min(m, n)], int32 info per matrix */
FN(t_lu_factor) {
    eir_mtensor a;
    const char *nm = c->s->name;
    int r = in_matrix(c, meta_arg(c, "A") ? "A" : "self", &a, false);
    if (r <= 0) return r;
    eir_mdim k;
    if (!min_mn(c, &a, &k)) return 0;
    bool info = strstr(nm, "_ex") || strstr(nm, "_with_info");
    if (max < (info ? 3u : 2u)) return 0;
    batch_tensor(c, &o[0], &a, a.rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    batch_tensor(c, &o[1], &a, a.rank - 2, EIR_I32, &k, 1, false);
    if (!info) return 2;
    batch_tensor(c, &o[2], &a, a.rank - 2, EIR_I32, NULL, 0, false);
    return 3;
}

/* linalg_lu: P [m, m], L [m, k], U [k, n] */
FN(t_linalg_lu) {
    eir_mtensor a;
    int r = in_matrix(c, "A", &a, false);
    if (r <= 0 || max < 3) return r < 0 ? r : 0;
    eir_mdim k, m = a.sizes[a.rank - 2], n = a.sizes[a.rank - 1];
    if (!min_mn(c, &a, &k)) return 0;
    eir_mdim pm[2] = {m, m}, lm[2] = {m, k}, um[2] = {k, n};
    if (meta_in_bool(c, "pivot", true)) batch_tensor(c, &o[0], &a, a.rank - 2, a.dtype, pm, 2, false);
    else { eir_mdim z = D(0); batch_tensor(c, &o[0], &a, 0, a.dtype, &z, 1, false); }
    batch_tensor(c, &o[1], &a, a.rank - 2, a.dtype, lm, 2, false);
    batch_tensor(c, &o[2], &a, a.rank - 2, a.dtype, um, 2, false);
    return 3;
}

/* linalg_eig: complex eigenvalues [..., n] and column-major eigenvectors;
 * linalg_eigvals: the eigenvalues */
FN(t_linalg_eig) {
    eir_mtensor a;
    int r = in_matrix(c, "self", &a, true);
    if (r <= 0) return r;
    eir_dtype z = meta_dt_cat(a.dtype) == 3 ? a.dtype : meta_to_complex(float_of(a.dtype));
    batch_tensor(c, &o[0], &a, a.rank - 2, z, &a.sizes[a.rank - 1], 1, false);
    if (!strcmp(c->s->name, "aten.linalg_eigvals.default")) return 1;
    if (max < 2) return 0;
    batch_tensor(c, &o[1], &a, a.rank - 2, z, &a.sizes[a.rank - 2], 2, true);
    return 2;
}

/* linalg_householder_product / orgqr: input's shape, column-major */
FN(t_householder) {
    eir_mtensor a;
    int r = in_matrix(c, meta_arg(c, "input") ? "input" : "self", &a, false);
    if (r <= 0) return r;
    batch_tensor(c, o, &a, a.rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    return 1;
}

/* ormqr: input3's shape, column-major */
FN(t_ormqr) {
    eir_mtensor a, cm;
    int r = in_matrix(c, "self", &a, false);
    if (r <= 0) return r;
    if ((r = in_matrix(c, "input3", &cm, false)) <= 0) return r;
    batch_tensor(c, o, &cm, cm.rank - 2, cm.dtype, &cm.sizes[cm.rank - 2], 2, true);
    return 1;
}

/* geqrf: the packed factors column-major, tau [..., min(m, n)] */
FN(t_geqrf) {
    eir_mtensor a;
    int r = in_matrix(c, "self", &a, false);
    if (r <= 0 || max < 2) return r < 0 ? r : 0;
    eir_mdim k;
    if (!min_mn(c, &a, &k)) return 0;
    batch_tensor(c, &o[0], &a, a.rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    batch_tensor(c, &o[1], &a, a.rank - 2, a.dtype, &k, 1, false);
    return 2;
}

/* linalg_pinv, pinverse: [..., n, m] */
FN(t_pinv) {
    eir_mtensor a;
    int r = in_matrix(c, meta_arg(c, "input") ? "input" : "self", &a, false);
    if (r <= 0) return r;
    eir_mdim nm[2] = {a.sizes[a.rank - 1], a.sizes[a.rank - 2]};
    batch_tensor(c, o, &a, a.rank - 2, a.dtype, nm, 2, false);
    return 1;
}

/* linalg_matrix_rank: int64 per matrix */
FN(t_matrix_rank) {
    eir_mtensor a;
    int r = in_matrix(c, meta_arg(c, "input") ? "input" : "self", &a, false);
    if (r <= 0) return r;
    batch_tensor(c, o, &a, a.rank - 2, EIR_I64, NULL, 0, false);
    return 1;
}

/* linalg_vander: [..., n, N] (N defaults to n) */
FN(t_vander) {
    eir_mtensor x;
    if (meta_in_tensor(c, "x", &x) != 1 || x.rank == 0 || x.rank + 1 > MAXR) return 0;
    eir_mdim n = x.sizes[x.rank - 1];
    const eir_arg *na = meta_arg(c, "N");
    if (na && !meta_symint_arg(c, na, &n)) return 0;
    *o = x;
    o->sizes[o->rank++] = n;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- FFT front ends: sizes and dtype; pocketfft's strides not inferred ---- */

enum { FFT_C2C, FFT_R2C, FFT_C2R, FFT_IHFFT, FFT_HFFT };

static int fft_kind(const char *nm) {
    nm += strlen("aten.fft_");
    if (nm[0] == 'r') return FFT_R2C;
    if (nm[0] == 'i' && nm[1] == 'r') return FFT_C2R;
    if (nm[0] == 'i' && nm[1] == 'h') return FFT_IHFFT;
    if (nm[0] == 'h') return FFT_HFFT;
    return FFT_C2C;
}

FN(t_fft) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    const char *nm = c->s->name;
    int kind = fft_kind(nm);
    const char *op = nm + strlen("aten.fft_");
    bool one = !strstr(op, "2.") && !strstr(op, "n.");
    eir_mdim s[MAXR];
    uint32_t dims[MAXR];
    uint32_t nd = 0;
    bool has_s = false;
    if (one) {
        uint32_t d;
        int r = in_dim(c, "dim", x.rank, &d);
        if (r <= 0) return r;
        dims[nd++] = d;
        const eir_arg *na = meta_arg(c, "n");
        if (na) { if (!meta_symint_arg(c, na, &s[0])) return 0; has_s = true; }
    } else {
        eir_mdim dl[MAXR];
        int ns = meta_arg(c, "s") ? meta_in_ints(c, "s", s, MAXR, 0) : 0;
        int ndim = meta_arg(c, "dim") || strstr(op, "2.") ? meta_in_ints(c, "dim", dl, MAXR, 0) : -2;
        if (ns < 0 || ndim == -1) return 0;
        has_s = ns > 0;
        if (ndim >= 0) {
            for (int i = 0; i < ndim; i++) {
                if (dl[i].kind != EIR_MDIM_INT) return 0;
                if (!meta_wrap_dim(c, dl[i].c, x.rank, "argument 'dim'", &dims[i])) return -1;
            }
            nd = (uint32_t)ndim;
            if (has_s && ns != ndim)
                return meta_fail(c, "arguments 's' (%d sizes) and 'dim' (%d dims) differ in length", ns, ndim);
        } else {
            nd = has_s ? (uint32_t)ns : x.rank;
            if (nd > x.rank) return meta_fail(c, "argument 's' has %u sizes, more than 'self' has dims (%u)", nd, x.rank);
            for (uint32_t i = 0; i < nd; i++) dims[i] = x.rank - nd + i;
        }
    }
    if (x.rank == 0 || nd == 0) return 0;
    *o = x;
    for (uint32_t i = 0; i < nd; i++)
        if (has_s && !is_int(s[i], -1)) o->sizes[dims[i]] = s[i];
    uint32_t last = dims[nd - 1];
    eir_dtype real = real_of(float_of(x.dtype));
    switch (kind) {
    case FFT_C2C: o->dtype = meta_dt_cat(x.dtype) == 3 ? x.dtype : meta_to_complex(real); break;
    case FFT_R2C: case FFT_IHFFT:
        if (meta_dt_cat(x.dtype) == 3)
            return meta_fail(c, "'self' is complex; %.*s expects a real tensor", (int)strcspn(nm + 5, "."), nm + 5);
        o->dtype = meta_to_complex(real);
        o->sizes[last] = meta_dadd(c, meta_dfloordiv(c, o->sizes[last], D(2)), D(1));
        break;
    default: /* c2r, hfft: the last dim's full length is n, or 2 (m - 1) */
        o->dtype = real;
        if (!(has_s && !is_int(s[nd - 1], -1))) o->sizes[last] = meta_dmul(c, meta_dsub(c, x.sizes[last], D(1)), D(2));
        break;
    }
    no_strides(o);
    return 1;
}


/* stft: [..., freqs, frames] complex (or [..., 2] real views); strides not inferred */
FN(t_stft) {
    eir_mtensor x;
    int64_t nfft, hop;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "n_fft", &nfft)) return 0;
    if (x.rank < 1 || x.rank > 2) return meta_fail(c, "'self' has rank %u; stft expects a 1-d or 2-d signal", x.rank);
    if (!meta_arg(c, "hop_length")) hop = nfft / 4;
    else if (!meta_in_int(c, "hop_length", &hop)) return 0;
    if (hop <= 0) return 0;
    const eir_arg *rc = meta_arg(c, "return_complex");
    if (!rc || rc->kind != EIR_ARG_BOOL) return 0;
    bool complex_in = meta_dt_cat(x.dtype) == 3;
    const eir_arg *os = meta_arg(c, "onesided");
    bool onesided = os && os->kind == EIR_ARG_BOOL ? os->u.b : !complex_in;
    int64_t len;
    if (!meta_dval(c, x.sizes[x.rank - 1], &len) || x.sizes[x.rank - 1].kind != EIR_MDIM_INT) return 0;
    if (!strcmp(c->s->name, "aten.stft.center") && meta_in_bool(c, "center", true)) len += 2 * (nfft / 2);
    if (len < nfft) return meta_fail(c, "the signal has %lld samples, fewer than argument 'n_fft' (%lld)", (long long)len,
                                     (long long)nfft);
    *o = x;
    uint32_t b = x.rank - 1;
    o->sizes[b] = D(onesided ? nfft / 2 + 1 : nfft);
    o->sizes[b + 1] = D(1 + (len - nfft) / hop);
    o->rank = b + 2;
    eir_dtype real = real_of(float_of(x.dtype));
    if (rc->u.b) {
        o->dtype = meta_to_complex(real);
    } else {
        o->dtype = real;
        o->sizes[o->rank++] = D(2);
    }
    no_strides(o);
    return 1;
}

/* ---- resampling, shuffles, im2col, unpooling ---- */

/* upsample_* with output_size: (N, C) and the output sizes; torch's
 * suggest_memory_format for the layout */
FN(t_upsample) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || x.rank < 3) return 0;
    uint32_t k = x.rank - 2;
    eir_mdim os[3];
    if (k > 3 || meta_in_ints(c, "output_size", os, 3, 0) != (int)k) return 0;
    *o = x;
    for (uint32_t i = 0; i < k; i++) o->sizes[2 + i] = os[i];
    if (meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* pixel_shuffle / pixel_unshuffle: channels traded for space, contiguous */
FN(t_pixel_shuffle) {
    eir_mtensor x;
    int64_t r;
    bool down = strstr(c->s->name, "unshuffle") != NULL;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, down ? "downscale_factor" : "upscale_factor", &r)) return 0;
    if (x.rank < 3) return meta_fail(c, "'self' has rank %u; expected (*, C, H, W)", x.rank);
    if (r <= 0) return meta_fail(c, "the scale factor is %lld; expected > 0", (long long)r);
    uint32_t ch = x.rank - 3;
    *o = x;
    int64_t cv;
    if (!down && meta_dval(c, x.sizes[ch], &cv) && x.sizes[ch].kind == EIR_MDIM_INT && cv % (r * r))
        return meta_fail(c, "'self' has %lld channels, not divisible by the square of argument 'upscale_factor' (%lld)",
                         (long long)cv, (long long)(r * r));
    if (down) {
        o->sizes[ch] = meta_dmul(c, x.sizes[ch], D(r * r));
        o->sizes[ch + 1] = meta_dfloordiv(c, x.sizes[ch + 1], D(r));
        o->sizes[ch + 2] = meta_dfloordiv(c, x.sizes[ch + 2], D(r));
    } else {
        o->sizes[ch] = meta_dfloordiv(c, x.sizes[ch], D(r * r));
        o->sizes[ch + 1] = meta_dmul(c, x.sizes[ch + 1], D(r));
        o->sizes[ch + 2] = meta_dmul(c, x.sizes[ch + 2], D(r));
    }
    if (meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* channel_shuffle: self's sizes, torch's suggested memory format */
FN(t_channel_shuffle) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank < 3) return meta_fail(c, "'self' has rank %u; channel_shuffle expects (N, C, *)", x.rank);
    *o = x;
    if (meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* im2col: (N, C * kh * kw, number of blocks) */
FN(t_im2col) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || (x.rank != 3 && x.rank != 4)) return 0;
    eir_mdim ks[2], dl[2], pd[2], st[2];
    if (meta_in_ints(c, "kernel_size", ks, 2, 2) != 2 || meta_in_ints(c, "dilation", dl, 2, 2) != 2 ||
        meta_in_ints(c, "padding", pd, 2, 2) != 2 || meta_in_ints(c, "stride", st, 2, 2) != 2)
        return 0;
    uint32_t b = x.rank - 3;
    eir_mdim oh = meta_pool_size(c, x.sizes[b + 1], ks[0], st[0], pd[0], dl[0], false);
    eir_mdim ow = meta_pool_size(c, x.sizes[b + 2], ks[1], st[1], pd[1], dl[1], false);
    eir_mdim sz[3];
    uint32_t n = 0;
    if (b) sz[n++] = x.sizes[0];
    sz[n++] = meta_dmul(c, x.sizes[b], meta_dmul(c, ks[0], ks[1]));
    sz[n++] = meta_dmul(c, oh, ow);
    contig(c, o, x.dtype, sz, n);
    return 1;
}

/* max_unpool2d / 3d: (N, C) and output_size */
FN(t_max_unpool) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    uint32_t k = strstr(c->s->name, "3d") ? 3 : 2;
    if (x.rank != k + 1 && x.rank != k + 2)
        return meta_fail(c, "'self' has rank %u; max_unpool%ud expects rank %u or %u", x.rank, k, k + 1, k + 2);
    eir_mdim os[3];
    if (meta_in_ints(c, "output_size", os, 3, 0) != (int)k) return 0;
    *o = x;
    for (uint32_t i = 0; i < k; i++) o->sizes[x.rank - k + i] = os[i];
    meta_set_contiguous(c, o);
    return 1;
}

/* affine_grid_generator: (N, H, W, 2) or (N, D, H, W, 3) */
FN(t_affine_grid) {
    eir_mtensor th;
    eir_mdim sz[5];
    if (meta_in_tensor(c, "theta", &th) != 1) return 0;
    int n = meta_in_ints(c, "size", sz, 5, 0);
    if (n != 4 && n != 5) return n < 0 ? 0 : meta_fail(c, "argument 'size' has %d entries; expected 4 or 5", n);
    eir_mdim out[5];
    out[0] = sz[0];
    for (int i = 2; i < n; i++) out[i - 1] = sz[i];
    out[n - 1] = D(n - 2);
    contig(c, o, th.dtype, out, (uint32_t)n);
    return 1;
}

/* ---- normalisation ---- */

/* the statistics of a channel: [C] in input's dtype (empty when not
 * computed) */
static void stat(mctx *c, eir_mtensor *o, const eir_mtensor *x, bool computed) {
    eir_mdim n = computed ? x->sizes[1] : D(0);
    contig(c, o, x->dtype, &n, 1);
}

/* native_batch_norm: output like input, the saved mean and inverse std
 * (empty when not training) */
FN(t_native_batch_norm) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1 || max < 3 || x.rank < 2) return 0;
    bool training = meta_in_bool(c, "training", false);
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    stat(c, &o[1], &x, training);
    stat(c, &o[2], &x, training);
    return 3;
}

/* _native_batch_norm_legit_functional: native_batch_norm's three and the
 * new running mean and variance */
FN(t_bn_legit_functional) {
    eir_mtensor x, rm, rv;
    if (meta_in_tensor(c, "input", &x) != 1 || max < 5 || x.rank < 2) return 0;
    if (meta_in_tensor(c, "running_mean", &rm) != 1 || meta_in_tensor(c, "running_var", &rv) != 1) return 0;
    bool training = meta_in_bool(c, "training", false);
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    stat(c, &o[1], &x, training);
    stat(c, &o[2], &x, training);
    o[3] = rm;
    meta_set_contiguous(c, &o[3]);
    o[4] = rv;
    meta_set_contiguous(c, &o[4]);
    return 5;
}

/* _batch_norm_with_update(_functional), _batch_norm_no_update: output, the
 * saved mean and rstd, an empty uint8 reserve (and the new running stats) */
FN(t_bn_update) {
    eir_mtensor x, rm, rv;
    const char *nm = c->s->name;
    bool functional = strstr(nm, "_functional") != NULL, update = strstr(nm, "with_update") != NULL;
    if (meta_in_tensor(c, "input", &x) != 1 || x.rank < 2 || max < (functional ? 6u : 4u)) return 0;
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    stat(c, &o[1], &x, update);
    stat(c, &o[2], &x, update);
    eir_mdim z = D(0);
    contig(c, &o[3], EIR_U8, &z, 1);
    if (!functional) return 4;
    if (meta_in_tensor(c, "running_mean", &rm) != 1 || meta_in_tensor(c, "running_var", &rv) != 1) return 0;
    o[4] = rm;
    meta_set_contiguous(c, &o[4]);
    o[5] = rv;
    meta_set_contiguous(c, &o[5]);
    return 6;
}

/* instance_norm: input's sizes, contiguous */
FN(t_instance_norm) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    *o = x;
    meta_set_contiguous(c, o);
    return 1;
}

/* rms_norm: pointwise over input, in input's dtype */
FN(t_rms_norm) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    eir_mdim ns[MAXR];
    int n = meta_in_ints(c, "normalized_shape", ns, MAXR, 0);
    if (n < 0) return 0;
    if ((uint32_t)n > x.rank)
        return meta_fail(c, "argument 'normalized_shape' has %d dims, more than 'input' (rank %u)", n, x.rank);
    for (int i = 0; i < n; i++)
        if (meta_check_same(c, x.sizes[x.rank - (uint32_t)n + (uint32_t)i], ns[i],
                            "argument 'normalized_shape' and the trailing sizes of 'input'") < 0)
            return -1;
    *o = x;
    meta_ti_layout(c, &x, 1, o);
    return 1;
}

/* ---- recurrent layers ---- */

/* lstm / gru / rnn_* over a sequence: the output [T, B, D * H] (batch
 * first: [B, T, D * H], a transposed view), and the final states like hx */
FN(t_rnn) {
    eir_mtensor x, h[2];
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    bool lstm = !strcmp(c->s->name, "aten.lstm.input");
    int nh = 1;
    if (lstm) {
        nh = in_tensor_list(c, "hx", h, 2);
        if (nh != 2) return 0;
    } else if (meta_in_tensor(c, "hx", &h[0]) != 1) {
        return 0;
    }
    if (max < (uint32_t)(1 + nh)) return 0;
    if (x.rank != 2 && x.rank != 3) return meta_fail(c, "'input' has rank %u; expected a 2-d or 3-d sequence", x.rank);
    for (int k = 0; k < nh; k++)
        if (h[k].rank < 1) return meta_fail(c, "the hidden state is 0-d; expected (layers, batch, hidden) or (layers, hidden)");
    bool bi = meta_in_bool(c, "bidirectional", false), bf = meta_in_bool(c, "batch_first", false);
    eir_mdim hout = h[0].sizes[h[0].rank - 1];
    o[0] = x;
    o[0].sizes[x.rank - 1] = bi ? meta_dmul(c, hout, D(2)) : hout;
    if (x.rank == 3 && bf) { /* computed as [T, B, F], returned transposed */
        static const uint32_t order[] = {2, 0, 1};
        meta_set_strides_order(c, &o[0], order);
    } else {
        meta_set_contiguous(c, &o[0]);
    }
    for (int k = 0; k < nh; k++) {
        o[1 + k] = h[k];
        meta_set_contiguous(c, &o[1 + k]);
    }
    return 1 + nh;
}

/* the cells: the new hidden state like hx ([B, H] or [H]); lstm_cell also
 * the new cell state */
FN(t_rnn_cell) {
    eir_mtensor h[2];
    bool lstm = !strcmp(c->s->name, "aten.lstm_cell.default");
    int nh = 1;
    if (lstm) {
        nh = in_tensor_list(c, "hx", h, 2);
        if (nh != 2) return 0;
    } else if (meta_in_tensor(c, "hx", &h[0]) != 1) {
        return 0;
    }
    if (max < (uint32_t)nh) return 0;
    for (int k = 0; k < nh; k++) {
        o[k] = h[k];
        meta_set_contiguous(c, &o[k]);
    }
    return nh;
}

/* ---- the rest ---- */

/* sum_to_size: self itself when it has the size; else summed down to it */
FN(t_sum_to_size) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim sz[MAXR];
    int n = meta_in_ints(c, "size", sz, MAXR, 0);
    if (n < 0) return 0;
    if ((uint32_t)n > x.rank)
        return meta_fail(c, "argument 'size' has %d dims, more than 'self' (rank %u)", n, x.rank);
    bool same = (uint32_t)n == x.rank;
    for (int i = 0; same && i < n; i++) same = meta_deq(c, sz[i], x.sizes[i]);
    if (same) { *o = x; return 1; }
    contig(c, o, x.dtype, sz, (uint32_t)n);
    return 1;
}

/* tile: repeat with dims padded by leading 1s to self's rank */
FN(t_tile) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim d[MAXR];
    int n = meta_in_ints(c, "dims", d, MAXR, 0);
    if (n < 0) return 0;
    uint32_t r = (uint32_t)n > x.rank ? (uint32_t)n : x.rank;
    eir_mdim sz[MAXR];
    for (uint32_t i = 0; i < r; i++) {
        eir_mdim rep = i + (uint32_t)n >= r ? d[i + (uint32_t)n - r] : D(1);
        eir_mdim s = i + x.rank >= r ? x.sizes[i + x.rank - r] : D(1);
        sz[i] = meta_dmul(c, rep, s);
    }
    contig(c, o, x.dtype, sz, r);
    return 1;
}

/* resize (functional): a copy of self, of the new sizes when they differ */
FN(t_resize) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim sz[MAXR];
    int n = meta_in_ints(c, "size", sz, MAXR, 0);
    if (n < 0) return 0;
    bool same = (uint32_t)n == x.rank;
    for (int i = 0; same && i < n; i++) same = meta_deq(c, sz[i], x.sizes[i]);
    *o = x;
    meta_like_preserve(c, &x, o);
    if (same) return 1;
    int mf = meta_in_memfmt(c, "memory_format");
    o->rank = (uint32_t)n;
    for (int i = 0; i < n; i++) o->sizes[i] = sz[i];
    if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* combinations: C(n, r) rows (with replacement C(n + r - 1, r)) of r values */
FN(t_combinations) {
    eir_mtensor x;
    int64_t r = 2, n;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "r", &r)) return 0;
    if (x.rank != 1) return meta_fail(c, "'self' has rank %u; combinations expects a 1-d tensor", x.rank);
    if (r < 0) return meta_fail(c, "argument 'r' is %lld; expected >= 0", (long long)r);
    if (r == 0 || !meta_dval(c, x.sizes[0], &n) || x.sizes[0].kind != EIR_MDIM_INT) return 0;
    bool rep = meta_in_bool(c, "with_replacement", false);
    int64_t top = rep ? n + r - 1 : n, cnt = 1;
    if (top < r) cnt = 0;
    for (int64_t i = 1; cnt && i <= r; i++) {
        if (cnt > INT64_MAX / (top - r + i)) return 0;
        cnt = cnt * (top - r + i) / i;
    }
    (void)cnt; /* torch selects the rows with a mask: the count is an unbacked size */
    blank(o, x.dtype, 2);
    o->sizes[0] = UNK;
    o->sizes[1] = D(r);
    no_strides(o);
    return 1;
}

/* log_sigmoid_forward: the output and the buffer, both self's shape */
FN(t_log_sigmoid_forward) {
    if (max < 2) return 0;
    int r = meta_pointwise(c, o, N_SELF, 1, PW_SAME);
    if (r <= 0) return r;
    o[1] = o[0];
    return 2;
}

/* rrelu_with_noise_functional: the output and the new noise */
FN(t_rrelu_noise_functional) {
    eir_mtensor nz;
    if (max < 2 || meta_in_tensor(c, "noise", &nz) != 1) return 0;
    int r = meta_pointwise(c, o, N_SELF, 1, PW_SAME);
    if (r <= 0) return r;
    o[1] = nz;
    meta_like_preserve(c, &nz, &o[1]);
    return 2;
}

/* argsort: sort's indices (int64, self's layout preserved) */
FN(t_argsort) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    uint32_t d;
    int r = in_dim(c, "dim", x.rank, &d);
    if (r <= 0) return r;
    *o = x;
    meta_like_preserve(c, &x, o);
    o->dtype = EIR_I64;
    return 1;
}

FN(t_unary) { return meta_pointwise(c, o, N_SELF, 1, PW_SAME); }
FN(t_binary_float) { return meta_pointwise(c, o, N_SELF_OTHER, 2, PW_FLOAT); }


/* ---- more linear algebra: triangular and factored solves ---- */

/* the batch dims of a and b broadcast, b's matrix dims; column-major */
static int solve_like(mctx *c, eir_mtensor *o, const char *an, const char *bn, bool col_major) {
    eir_mtensor a, b;
    int r = in_matrix(c, an, &a, false);
    if (r <= 0) return r;
    if ((r = in_matrix(c, bn, &b, false)) <= 0) return r;
    operand ops[2] = {{a, false}, {b, false}};
    ops[0].t.rank = a.rank - 2;
    ops[1].t.rank = b.rank - 2;
    const char *names[2] = {an, bn};
    eir_mtensor bt;
    memset(&bt, 0, sizeof bt);
    if ((r = meta_broadcast(c, ops, 2, &bt, names)) <= 0) return r;
    batch_tensor(c, o, &bt, bt.rank, meta_promote(a.dtype, b.dtype), &b.sizes[b.rank - 2], 2, col_major);
    return 1;
}

/* cholesky_solve(self = B, input2 = the factor) */
FN(t_cholesky_solve) { return solve_like(c, o, "input2", "self", true); }
/* linalg_lu_solve(LU, pivots, B): column-major for left, else row-major */
FN(t_lu_solve) { return solve_like(c, o, "LU", "B", meta_in_bool(c, "left", true)); }
/* lu_solve(self = B, LU_data, LU_pivots) */
FN(t_lu_solve_legacy) { return solve_like(c, o, "LU_data", "self", true); }
/* linalg_ldl_solve(LD, pivots, B) */
FN(t_ldl_solve) { return solve_like(c, o, "LD", "B", true); }

/* linalg_solve_triangular(self = A, B): the right-hand sides' shape,
 * column-major (left or not) */
FN(t_solve_triangular) { return solve_like(c, o, "self", "B", true); }

/* triangular_solve(self = B, A): the solution and a copy of A, both
 * column-major with the batch dims broadcast */
FN(t_triangular_solve) {
    if (max < 2) return 0;
    int r = solve_like(c, &o[0], "A", "self", true);
    if (r <= 0) return r;
    eir_mtensor a;
    if (meta_in_tensor(c, "A", &a) != 1) return 0;
    batch_tensor(c, &o[1], &o[0], o[0].rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    return 2;
}

/* cholesky_inverse: [..., n, n] column-major */
FN(t_cholesky_inverse) {
    eir_mtensor a;
    int r = in_matrix(c, "self", &a, true);
    if (r <= 0) return r;
    batch_tensor(c, o, &a, a.rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    return 1;
}

/* lu_unpack: P [m, m], L [m, k], U [k, n] (empty when not unpacked) */
FN(t_lu_unpack) {
    eir_mtensor a;
    int r = in_matrix(c, "LU_data", &a, false);
    if (r <= 0 || max < 3) return r < 0 ? r : 0;
    eir_mdim k, m = a.sizes[a.rank - 2], n = a.sizes[a.rank - 1], z = D(0);
    if (!min_mn(c, &a, &k)) return 0;
    eir_mdim pm[2] = {m, m}, lm[2] = {m, k}, um[2] = {k, n};
    if (meta_in_bool(c, "unpack_pivots", true)) batch_tensor(c, &o[0], &a, a.rank - 2, a.dtype, pm, 2, false);
    else batch_tensor(c, &o[0], &a, 0, a.dtype, &z, 1, false);
    if (meta_in_bool(c, "unpack_data", true)) {
        batch_tensor(c, &o[1], &a, a.rank - 2, a.dtype, lm, 2, false);
        batch_tensor(c, &o[2], &a, a.rank - 2, a.dtype, um, 2, false);
    } else {
        batch_tensor(c, &o[1], &a, 0, a.dtype, &z, 1, false);
        batch_tensor(c, &o[2], &a, 0, a.dtype, &z, 1, false);
    }
    return 3;
}

/* linalg_ldl_factor(_ex): LD column-major, int32 pivots [..., n] (and info) */
FN(t_ldl_factor) {
    eir_mtensor a;
    bool ex = strstr(c->s->name, "_ex") != NULL;
    int r = in_matrix(c, "self", &a, true);
    if (r <= 0 || max < (ex ? 3u : 2u)) return r < 0 ? r : 0;
    batch_tensor(c, &o[0], &a, a.rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    batch_tensor(c, &o[1], &a, a.rank - 2, EIR_I32, &a.sizes[a.rank - 1], 1, false);
    if (!ex) return 2;
    batch_tensor(c, &o[2], &a, a.rank - 2, EIR_I32, NULL, 0, false);
    return 3;
}

/* linalg_tensorinv: self.shape[ind:] + self.shape[:ind]; a reshaped inverse
 * whose strides are not inferred */
FN(t_tensorinv) {
    eir_mtensor x;
    int64_t ind = 2;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "ind", &ind)) return 0;
    if (ind <= 0 || (uint64_t)ind > x.rank)
        return meta_fail(c, "argument 'ind' is %lld; expected 1 to the rank of 'self' (%u)", (long long)ind, x.rank);
    *o = x;
    uint32_t k = 0;
    for (uint32_t i = (uint32_t)ind; i < x.rank; i++) o->sizes[k++] = x.sizes[i];
    for (uint32_t i = 0; i < (uint32_t)ind; i++) o->sizes[k++] = x.sizes[i];
    no_strides(o);
    return 1;
}

/* linalg_tensorsolve(self = A, other = B): A.shape[B.ndim:] (without
 * dims); strides not inferred */
FN(t_tensorsolve) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "other", &b) != 1 || meta_arg(c, "dims")) return 0;
    if (b.rank > a.rank) return meta_fail(c, "'other' has rank %u, more than 'self' (%u)", b.rank, a.rank);
    blank(o, meta_promote(a.dtype, b.dtype), a.rank - b.rank);
    for (uint32_t i = b.rank; i < a.rank; i++) o->sizes[i - b.rank] = a.sizes[i];
    no_strides(o);
    return 1;
}

/* msort: the values of a sort along dim 0 */
FN(t_msort) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    *o = x;
    meta_like_preserve(c, &x, o);
    return 1;
}

/* einsum: the output subscripts' sizes (the letters seen once, sorted,
 * without '->'); the operands' common dtype; strides not inferred (the
 * contraction's permutes decide them) */
FN(t_einsum) {
    const eir_arg *eq = meta_arg(c, "equation");
    eir_mtensor *ts = eir_arena_array(c->a, 64, sizeof *ts);
    int n = ts ? in_tensor_list(c, "tensors", ts, 64) : -1;
    if (!eq || eq->kind != EIR_ARG_STRING || n <= 0) return 0;
    const char *e = eq->u.s;
    eir_mdim size[52];
    bool has[52] = {0};
    int count[52] = {0};
    eir_mdim ell[MAXR];
    uint32_t nell = 0;
    bool any_ell = false;
    int k = 0;
    const char *p = e;
    char labels[MAXR + 1];
    uint32_t nl = 0;
    bool ellipsis_here = false;
    for (;; p++) {
        char ch = *p;
        if (ch == ',' || ch == '-' || ch == 0) {
            if (k >= n) return meta_fail(c, "argument 'equation' names more operands than 'tensors' has (%d)", n);
            const eir_mtensor *t = &ts[k];
            uint32_t letters = nl - (ellipsis_here ? 1 : 0);
            uint32_t nell_here = ellipsis_here ? t->rank - letters : 0;
            if (t->rank < letters || (!ellipsis_here && t->rank != letters))
                return meta_fail(c, "operand %d has rank %u; argument 'equation' gives it %u subscripts", k, t->rank,
                                 letters);
            uint32_t dim = 0;
            for (uint32_t i = 0; i < nl; i++) {
                if (labels[i] == '.') {
                    /* the ellipsis dims, broadcast right-aligned against the others' */
                    any_ell = true;
                    for (uint32_t j = 0; j < nell_here; j++) {
                        uint32_t at = (nell > nell_here ? nell - nell_here : 0) + j;
                        eir_mdim d = t->sizes[dim + j];
                        if (nell_here > nell) {
                            for (uint32_t m = nell; m > 0; m--) ell[m - 1 + nell_here - nell] = ell[m - 1];
                            for (uint32_t m = 0; m < nell_here - nell; m++) ell[m] = D(1);
                            nell = nell_here;
                            at = j;
                        }
                        if (is_int(ell[at], 1)) ell[at] = d;
                    }
                    dim += nell_here;
                    continue;
                }
                int l = labels[i] >= 'a' ? labels[i] - 'a' + 26 : labels[i] - 'A';
                if (!has[l] || is_int(size[l], 1)) size[l] = t->sizes[dim];
                has[l] = true;
                count[l]++;
                dim++;
            }
            k++;
            nl = 0;
            ellipsis_here = false;
            if (ch != ',') break;
            continue;
        }
        if (ch == ' ') continue;
        if (ch == '.') {
            if (p[1] != '.' || p[2] != '.') return meta_fail(c, "argument 'equation' has a '.' outside an ellipsis");
            if (nl >= MAXR) return 0;
            labels[nl++] = '.';
            ellipsis_here = true;
            p += 2;
            continue;
        }
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
            return meta_fail(c, "argument 'equation' has '%c'; expected letters, ',', '...' and '->'", ch);
        if (nl >= MAXR) return 0;
        labels[nl++] = ch;
    }
    if (k != n) return meta_fail(c, "argument 'equation' names %d operands, 'tensors' has %d", k, n);
    blank(o, promote_all(ts, n), 0);
    if (*p == '-') {
        if (p[1] != '>') return meta_fail(c, "argument 'equation' has '-' not followed by '>'");
        for (p += 2; *p; p++) {
            if (*p == ' ') continue;
            if (*p == '.') {
                if (p[1] != '.' || p[2] != '.') return meta_fail(c, "argument 'equation' has a '.' outside an ellipsis");
                for (uint32_t j = 0; j < nell && o->rank < MAXR; j++) o->sizes[o->rank++] = ell[j];
                p += 2;
                continue;
            }
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
                return meta_fail(c, "argument 'equation' has '%c' in its output", *p);
            int l = *p >= 'a' ? *p - 'a' + 26 : *p - 'A';
            if (!has[l]) return meta_fail(c, "the output subscript '%c' is not an operand's", *p);
            if (o->rank >= MAXR) return 0;
            o->sizes[o->rank++] = size[l];
        }
    } else {
        if (any_ell)
            for (uint32_t j = 0; j < nell && o->rank < MAXR; j++) o->sizes[o->rank++] = ell[j];
        for (int l = 0; l < 52; l++)
            if (has[l] && count[l] == 1 && o->rank < MAXR) o->sizes[o->rank++] = size[l];
    }
    no_strides(o);
    return 1;
}

/* _chunk_cat: each tensor cut into num_chunks chunks along dim (padded to
 * a multiple), the chunks' elements laid side by side: [sizes before dim,
 * num_chunks, sum of the chunks' sizes] */
FN(t_chunk_cat) {
    eir_mtensor *ts = eir_arena_array(c->a, 256, sizeof *ts);
    int n = ts ? in_tensor_list(c, "tensors", ts, 256) : -1;
    int64_t dim, chunks;
    if (n <= 0 || !meta_in_int(c, "dim", &dim) || !meta_in_int(c, "num_chunks", &chunks)) return 0;
    if (chunks < 1) return meta_fail(c, "argument 'num_chunks' is %lld; expected >= 1", (long long)chunks);
    uint32_t d;
    if (!meta_wrap_dim(c, dim, ts[0].rank, "argument 'dim'", &d)) return -1;
    if (d + 2 > MAXR) return 0;
    eir_mdim total = D(0);
    for (int k = 0; k < n; k++) {
        if (ts[k].rank <= d) return meta_fail(c, "tensor %d of 'tensors' has rank %u; expected more than dim %u", k,
                                              ts[k].rank, d);
        eir_mdim per = meta_dfloordiv(c, meta_dadd(c, ts[k].sizes[d], D(chunks - 1)), D(chunks));
        for (uint32_t i = d + 1; i < ts[k].rank; i++) per = meta_dmul(c, per, ts[k].sizes[i]);
        total = meta_dadd(c, total, per);
    }
    eir_mdim sz[MAXR];
    for (uint32_t i = 0; i < d; i++) sz[i] = ts[0].sizes[i];
    sz[d] = D(chunks);
    sz[d + 1] = total;
    contig(c, o, promote_all(ts, n), sz, d + 2);
    return 1;
}

/* _functional_assert_async / _assert_scalar / _sym_constrain_range(_for_size):
 * a new dependency token, an empty float32 tensor */
FN(t_dep_token) {
    eir_mdim z = D(0);
    contig(c, o, EIR_F32, &z, 1);
    return 1;
}

/* _trilinear: i1, i2, i3 unsqueezed at their expand dims and broadcast,
 * the sumdim dims summed away; contiguous */
FN(t_trilinear) {
    static const char *const in[3] = {"i1", "i2", "i3"}, *const ex[3] = {"expand1", "expand2", "expand3"};
    eir_mtensor t[3];
    eir_mdim e[MAXR], sd[MAXR];
    uint32_t rank = 0;
    for (int k = 0; k < 3; k++) {
        if (meta_in_tensor(c, in[k], &t[k]) != 1) return 0;
        int n = meta_in_ints(c, ex[k], e, MAXR, 0);
        if (n < 0 || t[k].rank + (uint32_t)n > MAXR) return 0;
        uint32_t r = t[k].rank + (uint32_t)n;
        if (k && r != rank)
            return meta_fail(c, "'%s' with its expand dims has rank %u, '%s' %u (expected the same)", in[k], r, in[0], rank);
        rank = r;
        bool ins[MAXR] = {0};
        for (int i = 0; i < n; i++) {
            if (e[i].kind != EIR_MDIM_INT || e[i].c < 0 || e[i].c >= (int64_t)r)
                return meta_fail(c, "argument '%s' has a dim out of range for rank %u", ex[k], r);
            ins[e[i].c] = true;
        }
        eir_mtensor u = t[k];
        for (uint32_t i = 0, j = 0; i < r; i++) u.sizes[i] = ins[i] ? D(1) : t[k].sizes[j++];
        u.rank = r;
        t[k] = u;
    }
    operand ops[3] = {{t[0], false}, {t[1], false}, {t[2], false}};
    eir_mtensor b;
    memset(&b, 0, sizeof b);
    int r = meta_broadcast(c, ops, 3, &b, in);
    if (r <= 0) return r;
    int n = meta_in_ints(c, "sumdim", sd, MAXR, 0);
    if (n < 0) return 0;
    bool sum[MAXR] = {0};
    for (int i = 0; i < n; i++) {
        if (sd[i].kind != EIR_MDIM_INT || sd[i].c < 0 || sd[i].c >= (int64_t)rank)
            return meta_fail(c, "argument 'sumdim' has a dim out of range for rank %u", rank);
        sum[sd[i].c] = true;
    }
    eir_mdim sz[MAXR];
    uint32_t k = 0;
    for (uint32_t i = 0; i < rank; i++) if (!sum[i]) sz[k++] = b.sizes[i];
    contig(c, o, meta_promote(meta_promote(t[0].dtype, t[1].dtype), t[2].dtype), sz, k);
    return 1;
}

/* ---- the table (sorted by name, strcmp) ---- */

typedef struct tail_row { const char *name; meta_fn fn; } tail_row;

static const tail_row TAIL[] = {
    {"aten._aminmax.default", t_aminmax},
    {"aten._aminmax.dim", t_aminmax},
    {"aten._batch_norm_no_update.default", t_bn_update},
    {"aten._batch_norm_with_update.default", t_bn_update},
    {"aten._batch_norm_with_update_functional.default", t_bn_update},
    {"aten._chunk_cat.default", t_chunk_cat},
    {"aten._conj.default", t_alias},
    {"aten._conj_physical.default", t_conj_physical_copy},
    {"aten._embedding_bag_forward_only.default", t_embedding_bag},
    {"aten._functional_assert_async.msg", t_dep_token},
    {"aten._functional_assert_scalar.default", t_dep_token},
    {"aten._functional_sym_constrain_range.default", t_dep_token},
    {"aten._functional_sym_constrain_range_for_size.default", t_dep_token},
    {"aten._histogramdd_bin_edges.default", t_histogramdd},
    {"aten._histogramdd_from_bin_cts.default", t_histogramdd},
    {"aten._histogramdd_from_bin_tensors.default", t_histogramdd},
    {"aten._linalg_solve_ex.default", t__linalg_solve_ex},
    {"aten._lu_with_info.default", t_lu_factor},
    {"aten._native_batch_norm_legit_functional.default", t_bn_legit_functional},
    {"aten._prelu_kernel.default", t_prelu},
    {"aten._reshape_alias.default", t_reshape_alias},
    {"aten._safe_softmax.default", t_softmax},
    {"aten._trilinear.default", t_trilinear},
    {"aten._upsample_bicubic2d_aa.default", t_upsample},
    {"aten._upsample_bilinear2d_aa.default", t_upsample},
    {"aten._upsample_nearest_exact1d.default", t_upsample},
    {"aten._upsample_nearest_exact2d.default", t_upsample},
    {"aten._upsample_nearest_exact3d.default", t_upsample},
    {"aten.addbmm.default", t_addbmm},
    {"aten.addmv.default", t_addmv},
    {"aten.addr.default", t_addr},
    {"aten.affine_grid_generator.default", t_affine_grid},
    {"aten.alpha_dropout.default", t_dropout},
    {"aten.angle.default", t_angle},
    {"aten.argsort.default", t_argsort},
    {"aten.argsort.stable", t_argsort},
    {"aten.as_strided_copy.default", t_as_strided_copy},
    {"aten.atleast_1d.Sequence", t_atleast_seq},
    {"aten.atleast_1d.default", t_atleast},
    {"aten.atleast_2d.Sequence", t_atleast_seq},
    {"aten.atleast_2d.default", t_atleast},
    {"aten.atleast_3d.Sequence", t_atleast_seq},
    {"aten.atleast_3d.default", t_atleast},
    {"aten.bernoulli.Tensor", t_like_self},
    {"aten.bernoulli.default", t_like_self},
    {"aten.bernoulli.p", t_bernoulli_p},
    {"aten.bilinear.default", t_bilinear},
    {"aten.binary_cross_entropy.default", t_loss},
    {"aten.binary_cross_entropy_with_logits.default", t_loss},
    {"aten.bincount.default", t_bincount},
    {"aten.block_diag.default", t_block_diag},
    {"aten.broadcast_tensors.default", t_broadcast_tensors},
    {"aten.bucketize.Scalar", t_search},
    {"aten.bucketize.Tensor", t_search},
    {"aten.cartesian_prod.default", t_cartesian_prod},
    {"aten.cauchy.default", t_like_self},
    {"aten.cdist.default", t_cdist},
    {"aten.chain_matmul.default", t_multi_dot},
    {"aten.chalf.default", t_chalf},
    {"aten.channel_shuffle.default", t_channel_shuffle},
    {"aten.cholesky_inverse.default", t_cholesky_inverse},
    {"aten.cholesky_solve.default", t_cholesky_solve},
    {"aten.column_stack.default", t_stack_like},
    {"aten.combinations.default", t_combinations},
    {"aten.complex.default", t_complex},
    {"aten.conj.default", t_alias},
    {"aten.conj_physical.default", t_conj_physical},
    {"aten.cosine_embedding_loss.default", t_cosine_embedding_loss},
    {"aten.cosine_similarity.default", t_cosine_similarity},
    {"aten.cpu.default", t_alias},
    {"aten.cross.default", t_cross},
    {"aten.cumulative_trapezoid.dx", t_trapezoid},
    {"aten.cumulative_trapezoid.x", t_trapezoid},
    {"aten.detach_copy.default", t_contig_self},
    {"aten.diag.default", t_diag},
    {"aten.diag_embed.default", t_diag_embed},
    {"aten.diagflat.default", t_diagflat},
    {"aten.diff.default", t_diff},
    {"aten.dist.default", t_dist},
    {"aten.dsplit.array", t_hvdsplit},
    {"aten.dsplit.int", t_hvdsplit},
    {"aten.dstack.default", t_stack_like},
    {"aten.einsum.default", t_einsum},
    {"aten.embedding_bag.default", t_embedding_bag},
    {"aten.embedding_bag.padding_idx", t_embedding_bag},
    {"aten.empty_permuted.default", t_empty_permuted},
    {"aten.exponential.default", t_like_self},
    {"aten.feature_alpha_dropout.default", t_dropout},
    {"aten.feature_dropout.default", t_dropout},
    {"aten.fft_fft.default", t_fft},
    {"aten.fft_fft2.default", t_fft},
    {"aten.fft_fftn.default", t_fft},
    {"aten.fft_fftshift.default", t_like_self},
    {"aten.fft_hfft.default", t_fft},
    {"aten.fft_hfft2.default", t_fft},
    {"aten.fft_hfftn.default", t_fft},
    {"aten.fft_ifft.default", t_fft},
    {"aten.fft_ifft2.default", t_fft},
    {"aten.fft_ifftn.default", t_fft},
    {"aten.fft_ifftshift.default", t_like_self},
    {"aten.fft_ihfft.default", t_fft},
    {"aten.fft_ihfft2.default", t_fft},
    {"aten.fft_ihfftn.default", t_fft},
    {"aten.fft_irfft.default", t_fft},
    {"aten.fft_irfft2.default", t_fft},
    {"aten.fft_irfftn.default", t_fft},
    {"aten.fft_rfft.default", t_fft},
    {"aten.fft_rfft2.default", t_fft},
    {"aten.fft_rfftn.default", t_fft},
    {"aten.fliplr.default", t_flip},
    {"aten.flipud.default", t_flip},
    {"aten.frexp.Tensor", t_frexp},
    {"aten.frobenius_norm.dim", t_norm_dim},
    {"aten.geometric.default", t_like_self},
    {"aten.geqrf.default", t_geqrf},
    {"aten.gru.input", t_rnn},
    {"aten.gru_cell.default", t_rnn_cell},
    {"aten.hinge_embedding_loss.default", t_loss},
    {"aten.histc.default", t_histc},
    {"aten.histogram.bin_ct", t_histogram},
    {"aten.histogram.bins_tensor", t_histogram},
    {"aten.histogramdd.TensorList_bins", t_histogramdd},
    {"aten.histogramdd.default", t_histogramdd},
    {"aten.histogramdd.int_bins", t_histogramdd},
    {"aten.hsplit.array", t_hvdsplit},
    {"aten.hsplit.int", t_hvdsplit},
    {"aten.hstack.default", t_stack_like},
    {"aten.im2col.default", t_im2col},
    {"aten.imag.default", t_imag},
    {"aten.index_reduce.default", t_like_self},
    {"aten.inner.default", t_inner},
    {"aten.instance_norm.default", t_instance_norm},
    {"aten.isin.Scalar_Tensor", t_isin},
    {"aten.isin.Tensor_Scalar", t_isin},
    {"aten.isin.Tensor_Tensor", t_isin},
    {"aten.isreal.default", t_isreal},
    {"aten.kl_div.default", t_loss},
    {"aten.kron.default", t_kron},
    {"aten.lift_fresh_copy.default", t_lift_fresh_copy},
    {"aten.linalg_cond.default", t_linalg_cond},
    {"aten.linalg_cond.p_str", t_linalg_cond},
    {"aten.linalg_cross.default", t_cross},
    {"aten.linalg_diagonal.default", t_linalg_diagonal},
    {"aten.linalg_eig.default", t_linalg_eig},
    {"aten.linalg_eigvals.default", t_linalg_eig},
    {"aten.linalg_householder_product.default", t_householder},
    {"aten.linalg_ldl_factor.default", t_ldl_factor},
    {"aten.linalg_ldl_factor_ex.default", t_ldl_factor},
    {"aten.linalg_ldl_solve.default", t_ldl_solve},
    {"aten.linalg_lu.default", t_linalg_lu},
    {"aten.linalg_lu_factor.default", t_lu_factor},
    {"aten.linalg_lu_factor_ex.default", t_lu_factor},
    {"aten.linalg_lu_solve.default", t_lu_solve},
    {"aten.linalg_matmul.default", t_matmul},
    {"aten.linalg_matrix_norm.default", t_matrix_norm},
    {"aten.linalg_matrix_norm.str_ord", t_matrix_norm},
    {"aten.linalg_matrix_power.default", t_matrix_power},
    {"aten.linalg_matrix_rank.atol_rtol_float", t_matrix_rank},
    {"aten.linalg_matrix_rank.atol_rtol_tensor", t_matrix_rank},
    {"aten.linalg_matrix_rank.default", t_matrix_rank},
    {"aten.linalg_matrix_rank.tol_tensor", t_matrix_rank},
    {"aten.linalg_multi_dot.default", t_multi_dot},
    {"aten.linalg_norm.default", t_linalg_norm},
    {"aten.linalg_norm.ord_str", t_linalg_norm},
    {"aten.linalg_pinv.atol_rtol_float", t_pinv},
    {"aten.linalg_pinv.atol_rtol_tensor", t_pinv},
    {"aten.linalg_pinv.default", t_pinv},
    {"aten.linalg_pinv.rcond_tensor", t_pinv},
    {"aten.linalg_solve.default", t_linalg_solve},
    {"aten.linalg_solve_ex.default", t_linalg_solve_ex},
    {"aten.linalg_solve_triangular.default", t_solve_triangular},
    {"aten.linalg_tensorinv.default", t_tensorinv},
    {"aten.linalg_tensorsolve.default", t_tensorsolve},
    {"aten.linalg_vander.default", t_vander},
    {"aten.linalg_vecdot.default", t_vecdot},
    {"aten.linspace.Scalar_Tensor", t_linspace},
    {"aten.linspace.Tensor_Scalar", t_linspace},
    {"aten.linspace.Tensor_Tensor", t_linspace},
    {"aten.linspace.default", t_linspace},
    {"aten.log_normal.default", t_like_self},
    {"aten.log_sigmoid_forward.default", t_log_sigmoid_forward},
    {"aten.logspace.Scalar_Tensor", t_linspace},
    {"aten.logspace.Tensor_Scalar", t_linspace},
    {"aten.logspace.Tensor_Tensor", t_linspace},
    {"aten.logspace.default", t_linspace},
    {"aten.lstm.input", t_rnn},
    {"aten.lstm_cell.default", t_rnn_cell},
    {"aten.lu_solve.default", t_lu_solve_legacy},
    {"aten.lu_unpack.default", t_lu_unpack},
    {"aten.margin_ranking_loss.default", t_margin_ranking_loss},
    {"aten.matrix_power.default", t_matrix_power},
    {"aten.max.other", t_maximum},
    {"aten.max_unpool2d.default", t_max_unpool},
    {"aten.max_unpool3d.default", t_max_unpool},
    {"aten.meshgrid.default", t_meshgrid},
    {"aten.meshgrid.indexing", t_meshgrid},
    {"aten.min.other", t_maximum},
    {"aten.moveaxis.int", t_movedim},
    {"aten.moveaxis.intlist", t_movedim},
    {"aten.movedim.int", t_movedim},
    {"aten.movedim.intlist", t_movedim},
    {"aten.msort.default", t_msort},
    {"aten.multi_margin_loss.default", t_multi_margin_loss},
    {"aten.multilabel_margin_loss.default", t_multilabel_margin_loss},
    {"aten.multilabel_margin_loss_forward.default", t_multilabel_margin_loss},
    {"aten.multinomial.default", t_multinomial},
    {"aten.nanquantile.default", t_quantile},
    {"aten.nanquantile.scalar", t_quantile},
    {"aten.narrow.Tensor", t_narrow_tensor},
    {"aten.narrow_copy.default", t_narrow_copy},
    {"aten.native_batch_norm.default", t_native_batch_norm},
    {"aten.native_channel_shuffle.default", t_channel_shuffle},
    {"aten.nonzero_numpy.default", t_nonzero_numpy},
    {"aten.nonzero_static.default", t_nonzero_static},
    {"aten.norm.Scalar", t_norm_dim},
    {"aten.norm.ScalarOpt_dim", t_norm_dim},
    {"aten.normal.Tensor_Tensor", t_normal_tensor},
    {"aten.normal.Tensor_float", t_normal_tensor},
    {"aten.normal.float_Tensor", t_normal_tensor},
    {"aten.normal.float_float", t_normal_float_float},
    {"aten.normal_functional.default", t_like_self},
    {"aten.nuclear_norm.default", t_nuclear_norm},
    {"aten.nuclear_norm.dim", t_norm_dim},
    {"aten.numpy_T.default", t_numpy_T},
    {"aten.one_hot.default", t_one_hot},
    {"aten.orgqr.default", t_householder},
    {"aten.ormqr.default", t_ormqr},
    {"aten.pad_sequence.default", t_pad_sequence},
    {"aten.pairwise_distance.default", t_pairwise_distance},
    {"aten.pdist.default", t_pdist},
    {"aten.pinverse.default", t_pinv},
    {"aten.pixel_shuffle.default", t_pixel_shuffle},
    {"aten.pixel_unshuffle.default", t_pixel_shuffle},
    {"aten.poisson.default", t_like_self},
    {"aten.poisson_nll_loss.default", t_loss},
    {"aten.polar.default", t_complex},
    {"aten.prelu.default", t_prelu},
    {"aten.put.default", t_like_self},
    {"aten.quantile.default", t_quantile},
    {"aten.quantile.scalar", t_quantile},
    {"aten.random.default", t_like_self},
    {"aten.random.from", t_like_self},
    {"aten.random.to", t_like_self},
    {"aten.renorm.default", t_contig_self},
    {"aten.repeat_interleave.self_Tensor", t_repeat_interleave},
    {"aten.repeat_interleave.self_int", t_repeat_interleave},
    {"aten.reshape_as.default", t_view_as},
    {"aten.resize.default", t_resize},
    {"aten.rms_norm.default", t_rms_norm},
    {"aten.rnn_relu.input", t_rnn},
    {"aten.rnn_relu_cell.default", t_rnn_cell},
    {"aten.rnn_tanh.input", t_rnn},
    {"aten.rnn_tanh_cell.default", t_rnn_cell},
    {"aten.rot90.default", t_rot90},
    {"aten.rrelu.default", t_unary},
    {"aten.rrelu_with_noise.default", t_unary},
    {"aten.rrelu_with_noise_functional.default", t_rrelu_noise_functional},
    {"aten.searchsorted.Scalar", t_search},
    {"aten.searchsorted.Tensor", t_search},
    {"aten.segment_reduce.default", t_segment_reduce},
    {"aten.special_chebyshev_polynomial_t.default", t_poly},
    {"aten.special_chebyshev_polynomial_t.n_scalar", t_poly},
    {"aten.special_chebyshev_polynomial_t.x_scalar", t_poly},
    {"aten.special_chebyshev_polynomial_u.default", t_poly},
    {"aten.special_chebyshev_polynomial_u.n_scalar", t_poly},
    {"aten.special_chebyshev_polynomial_u.x_scalar", t_poly},
    {"aten.special_chebyshev_polynomial_v.default", t_poly},
    {"aten.special_chebyshev_polynomial_v.n_scalar", t_poly},
    {"aten.special_chebyshev_polynomial_v.x_scalar", t_poly},
    {"aten.special_chebyshev_polynomial_w.default", t_poly},
    {"aten.special_chebyshev_polynomial_w.n_scalar", t_poly},
    {"aten.special_chebyshev_polynomial_w.x_scalar", t_poly},
    {"aten.special_hermite_polynomial_h.default", t_poly},
    {"aten.special_hermite_polynomial_h.n_scalar", t_poly},
    {"aten.special_hermite_polynomial_h.x_scalar", t_poly},
    {"aten.special_hermite_polynomial_he.default", t_poly},
    {"aten.special_hermite_polynomial_he.n_scalar", t_poly},
    {"aten.special_hermite_polynomial_he.x_scalar", t_poly},
    {"aten.special_laguerre_polynomial_l.default", t_poly},
    {"aten.special_laguerre_polynomial_l.n_scalar", t_poly},
    {"aten.special_laguerre_polynomial_l.x_scalar", t_poly},
    {"aten.special_legendre_polynomial_p.default", t_poly},
    {"aten.special_legendre_polynomial_p.n_scalar", t_poly},
    {"aten.special_legendre_polynomial_p.x_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_t.default", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_t.n_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_t.x_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_u.default", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_u.n_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_u.x_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_v.default", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_v.n_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_v.x_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_w.default", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_w.n_scalar", t_poly},
    {"aten.special_shifted_chebyshev_polynomial_w.x_scalar", t_poly},
    {"aten.special_xlog1py.other_scalar", t_binary_float},
    {"aten.special_xlog1py.self_scalar", t_binary_float},
    {"aten.special_xlogy.other_scalar", t_xlogy},
    {"aten.special_xlogy.self_scalar", t_xlogy},
    {"aten.special_zeta.other_scalar", t_binary_float},
    {"aten.special_zeta.self_scalar", t_binary_float},
    {"aten.split.default", t_split_sizes},
    {"aten.split.sizes", t_split_sizes},
    {"aten.split_copy.Tensor", t_split_copy},
    {"aten.square.default", t_square},
    {"aten.squeeze_copy.default", t_squeeze_copy},
    {"aten.std_mean.default", t_var_mean},
    {"aten.stft.center", t_stft},
    {"aten.stft.default", t_stft},
    {"aten.sum_to_size.default", t_sum_to_size},
    {"aten.take.default", t_take},
    {"aten.take_along_dim.default", t_take_along_dim},
    {"aten.tensor_split.indices", t_tensor_split},
    {"aten.tensor_split.sections", t_tensor_split},
    {"aten.tensordot.default", t_tensordot},
    {"aten.tile.default", t_tile},
    {"aten.to.device", t_to},
    {"aten.to.dtype_layout", t_to},
    {"aten.to.other", t_to_other},
    {"aten.trace.default", t_trace},
    {"aten.trapezoid.dx", t_trapezoid},
    {"aten.trapezoid.x", t_trapezoid},
    {"aten.trapz.dx", t_trapezoid},
    {"aten.trapz.x", t_trapezoid},
    {"aten.triangular_solve.default", t_triangular_solve},
    {"aten.tril_indices.default", t_tri_indices},
    {"aten.triplet_margin_loss.default", t_triplet_margin_loss},
    {"aten.triu_indices.default", t_tri_indices},
    {"aten.unfold.default", t_unfold},
    {"aten.unfold_copy.default", t_unfold_copy},
    {"aten.uniform.default", t_like_self},
    {"aten.unique_consecutive.default", t_unique_consecutive},
    {"aten.unsafe_chunk.default", t_chunk},
    {"aten.unsafe_split.Tensor", t_split_tensor},
    {"aten.unsafe_split_with_sizes.default", t_split_with_sizes},
    {"aten.upsample_bicubic2d.default", t_upsample},
    {"aten.upsample_bilinear2d.default", t_upsample},
    {"aten.upsample_linear1d.default", t_upsample},
    {"aten.upsample_nearest1d.default", t_upsample},
    {"aten.upsample_nearest2d.default", t_upsample},
    {"aten.upsample_nearest3d.default", t_upsample},
    {"aten.upsample_trilinear3d.default", t_upsample},
    {"aten.var_mean.default", t_var_mean},
    {"aten.view.dtype", t_view_dtype},
    {"aten.view_as.default", t_view_as},
    {"aten.view_as_complex.default", t_view_as_complex},
    {"aten.vsplit.array", t_hvdsplit},
    {"aten.vsplit.int", t_hvdsplit},
    {"aten.vstack.default", t_stack_like},
    {"aten.where.default", t_nonzero_numpy},
    {"aten.xlogy.Scalar_Other", t_xlogy},
    {"aten.xlogy.Scalar_Self", t_xlogy},
};

static int cmp_tail(const void *key, const void *row) { return strcmp((const char *)key, ((const tail_row *)row)->name); }

meta_fn meta_tail_find(const char *name) {
    const tail_row *r = bsearch(name, TAIL, EIR_ARRAY_LEN(TAIL), sizeof TAIL[0], cmp_tail);
    return r ? r->fn : NULL;
}

uint32_t meta_tail_count(void) { return (uint32_t)EIR_ARRAY_LEN(TAIL); }

const char *meta_tail_name(uint32_t i) { return i < EIR_ARRAY_LEN(TAIL) ? TAIL[i].name : NULL; }
