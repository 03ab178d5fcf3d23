/* meta_tail.c — meta functions for the long tail of the overloads eir's
 * runtime runs: aliases of overloads meta.c already infers, more pointwise
 * ops (orthogonal polynomials, complex parts, frexp), random sampling,
 * dropout, factories, views (movedim, atleast_nd, unfold, diagonal,
 * splits, meshgrid, broadcast_tensors), joins (hstack, block_diag...),
 * indexing and search; and the table of the long tail, which also lists
 * the numerics of meta_tail_la.c (histograms, norms, losses, linear
 * algebra, FFT, resampling, normalisation, recurrent layers). Each gives
 * what torch 2.13's meta kernel (or decomposition, as torch.export runs
 * it) records; where torch's layout is a library's choice (FFT, einsum,
 * stft) the strides are left unknown. The helpers are meta.c's
 * (meta_int.h) and meta_tail.h's; the table is sorted and searched after
 * meta.c's. */
#include <stdlib.h>
#include <string.h>

#include "meta_tail.h"

#define FN(name) static int name(mctx *c, eir_mtensor *o, uint32_t max)

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

/* _functional_assert_async / _assert_scalar / _sym_constrain_range(_for_size):
 * a new dependency token, an empty float32 tensor */
FN(t_dep_token) {
    eir_mdim z = D(0);
    contig(c, o, EIR_F32, &z, 1);
    return 1;
}

/* ---- the table (sorted by name, strcmp) ---- */

typedef struct tail_row { const char *name; meta_fn fn; } tail_row;

static const tail_row TAIL[] = {
    {"aten._aminmax.default", t_aminmax},
    {"aten._aminmax.dim", t_aminmax},
    {"aten._batch_norm_no_update.default", meta_tail_bn_update},
    {"aten._batch_norm_with_update.default", meta_tail_bn_update},
    {"aten._batch_norm_with_update_functional.default", meta_tail_bn_update},
    {"aten._chunk_cat.default", meta_tail_chunk_cat},
    {"aten._conj.default", t_alias},
    {"aten._conj_physical.default", t_conj_physical_copy},
    {"aten._embedding_bag_forward_only.default", t_embedding_bag},
    {"aten._functional_assert_async.msg", t_dep_token},
    {"aten._functional_assert_scalar.default", t_dep_token},
    {"aten._functional_sym_constrain_range.default", t_dep_token},
    {"aten._functional_sym_constrain_range_for_size.default", t_dep_token},
    {"aten._histogramdd_bin_edges.default", meta_tail_histogramdd},
    {"aten._histogramdd_from_bin_cts.default", meta_tail_histogramdd},
    {"aten._histogramdd_from_bin_tensors.default", meta_tail_histogramdd},
    {"aten._linalg_solve_ex.default", meta_tail__linalg_solve_ex},
    {"aten._lu_with_info.default", meta_tail_lu_factor},
    {"aten._native_batch_norm_legit_functional.default", meta_tail_bn_legit_functional},
    {"aten._prelu_kernel.default", t_prelu},
    {"aten._reshape_alias.default", t_reshape_alias},
    {"aten._safe_softmax.default", t_softmax},
    {"aten._trilinear.default", meta_tail_trilinear},
    {"aten._upsample_bicubic2d_aa.default", meta_tail_upsample},
    {"aten._upsample_bilinear2d_aa.default", meta_tail_upsample},
    {"aten._upsample_nearest_exact1d.default", meta_tail_upsample},
    {"aten._upsample_nearest_exact2d.default", meta_tail_upsample},
    {"aten._upsample_nearest_exact3d.default", meta_tail_upsample},
    {"aten.addbmm.default", meta_tail_addbmm},
    {"aten.addmv.default", meta_tail_addmv},
    {"aten.addr.default", meta_tail_addr},
    {"aten.affine_grid_generator.default", meta_tail_affine_grid},
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
    {"aten.bilinear.default", meta_tail_bilinear},
    {"aten.binary_cross_entropy.default", meta_tail_loss},
    {"aten.binary_cross_entropy_with_logits.default", meta_tail_loss},
    {"aten.bincount.default", meta_tail_bincount},
    {"aten.block_diag.default", t_block_diag},
    {"aten.broadcast_tensors.default", t_broadcast_tensors},
    {"aten.bucketize.Scalar", t_search},
    {"aten.bucketize.Tensor", t_search},
    {"aten.cartesian_prod.default", t_cartesian_prod},
    {"aten.cauchy.default", t_like_self},
    {"aten.cdist.default", t_cdist},
    {"aten.chain_matmul.default", meta_tail_multi_dot},
    {"aten.chalf.default", t_chalf},
    {"aten.channel_shuffle.default", meta_tail_channel_shuffle},
    {"aten.cholesky_inverse.default", meta_tail_cholesky_inverse},
    {"aten.cholesky_solve.default", meta_tail_cholesky_solve},
    {"aten.column_stack.default", t_stack_like},
    {"aten.combinations.default", t_combinations},
    {"aten.complex.default", t_complex},
    {"aten.conj.default", t_alias},
    {"aten.conj_physical.default", t_conj_physical},
    {"aten.cosine_embedding_loss.default", meta_tail_cosine_embedding_loss},
    {"aten.cosine_similarity.default", meta_tail_cosine_similarity},
    {"aten.cpu.default", t_alias},
    {"aten.cross.default", meta_tail_cross},
    {"aten.cumulative_trapezoid.dx", meta_tail_trapezoid},
    {"aten.cumulative_trapezoid.x", meta_tail_trapezoid},
    {"aten.detach_copy.default", t_contig_self},
    {"aten.diag.default", t_diag},
    {"aten.diag_embed.default", t_diag_embed},
    {"aten.diagflat.default", t_diagflat},
    {"aten.diff.default", meta_tail_diff},
    {"aten.dist.default", meta_tail_dist},
    {"aten.dsplit.array", t_hvdsplit},
    {"aten.dsplit.int", t_hvdsplit},
    {"aten.dstack.default", t_stack_like},
    {"aten.einsum.default", meta_tail_einsum},
    {"aten.embedding_bag.default", t_embedding_bag},
    {"aten.embedding_bag.padding_idx", t_embedding_bag},
    {"aten.embedding_renorm.default", t_like_self},
    {"aten.empty_permuted.default", t_empty_permuted},
    {"aten.exponential.default", t_like_self},
    {"aten.feature_alpha_dropout.default", t_dropout},
    {"aten.feature_dropout.default", t_dropout},
    {"aten.fft_fft.default", meta_tail_fft},
    {"aten.fft_fft2.default", meta_tail_fft},
    {"aten.fft_fftn.default", meta_tail_fft},
    {"aten.fft_fftshift.default", t_like_self},
    {"aten.fft_hfft.default", meta_tail_fft},
    {"aten.fft_hfft2.default", meta_tail_fft},
    {"aten.fft_hfftn.default", meta_tail_fft},
    {"aten.fft_ifft.default", meta_tail_fft},
    {"aten.fft_ifft2.default", meta_tail_fft},
    {"aten.fft_ifftn.default", meta_tail_fft},
    {"aten.fft_ifftshift.default", t_like_self},
    {"aten.fft_ihfft.default", meta_tail_fft},
    {"aten.fft_ihfft2.default", meta_tail_fft},
    {"aten.fft_ihfftn.default", meta_tail_fft},
    {"aten.fft_irfft.default", meta_tail_fft},
    {"aten.fft_irfft2.default", meta_tail_fft},
    {"aten.fft_irfftn.default", meta_tail_fft},
    {"aten.fft_rfft.default", meta_tail_fft},
    {"aten.fft_rfft2.default", meta_tail_fft},
    {"aten.fft_rfftn.default", meta_tail_fft},
    {"aten.fliplr.default", t_flip},
    {"aten.flipud.default", t_flip},
    {"aten.frexp.Tensor", t_frexp},
    {"aten.frobenius_norm.dim", meta_tail_norm_dim},
    {"aten.geometric.default", t_like_self},
    {"aten.geqrf.default", meta_tail_geqrf},
    {"aten.gru.input", meta_tail_rnn},
    {"aten.gru_cell.default", meta_tail_rnn_cell},
    {"aten.hinge_embedding_loss.default", meta_tail_loss},
    {"aten.histc.default", meta_tail_histc},
    {"aten.histogram.bin_ct", meta_tail_histogram},
    {"aten.histogram.bins_tensor", meta_tail_histogram},
    {"aten.histogramdd.TensorList_bins", meta_tail_histogramdd},
    {"aten.histogramdd.default", meta_tail_histogramdd},
    {"aten.histogramdd.int_bins", meta_tail_histogramdd},
    {"aten.hsplit.array", t_hvdsplit},
    {"aten.hsplit.int", t_hvdsplit},
    {"aten.hstack.default", t_stack_like},
    {"aten.im2col.default", meta_tail_im2col},
    {"aten.imag.default", t_imag},
    {"aten.index_reduce.default", t_like_self},
    {"aten.inner.default", meta_tail_inner},
    {"aten.instance_norm.default", meta_tail_instance_norm},
    {"aten.isin.Scalar_Tensor", t_isin},
    {"aten.isin.Tensor_Scalar", t_isin},
    {"aten.isin.Tensor_Tensor", t_isin},
    {"aten.isreal.default", t_isreal},
    {"aten.kl_div.default", meta_tail_loss},
    {"aten.kron.default", meta_tail_kron},
    {"aten.lift_fresh_copy.default", t_lift_fresh_copy},
    {"aten.linalg_cond.default", meta_tail_linalg_cond},
    {"aten.linalg_cond.p_str", meta_tail_linalg_cond},
    {"aten.linalg_cross.default", meta_tail_cross},
    {"aten.linalg_diagonal.default", t_linalg_diagonal},
    {"aten.linalg_eig.default", meta_tail_linalg_eig},
    {"aten.linalg_eigvals.default", meta_tail_linalg_eig},
    {"aten.linalg_householder_product.default", meta_tail_householder},
    {"aten.linalg_ldl_factor.default", meta_tail_ldl_factor},
    {"aten.linalg_ldl_factor_ex.default", meta_tail_ldl_factor},
    {"aten.linalg_ldl_solve.default", meta_tail_ldl_solve},
    {"aten.linalg_lu.default", meta_tail_linalg_lu},
    {"aten.linalg_lu_factor.default", meta_tail_lu_factor},
    {"aten.linalg_lu_factor_ex.default", meta_tail_lu_factor},
    {"aten.linalg_lu_solve.default", meta_tail_lu_solve},
    {"aten.linalg_matmul.default", t_matmul},
    {"aten.linalg_matrix_norm.default", meta_tail_matrix_norm},
    {"aten.linalg_matrix_norm.str_ord", meta_tail_matrix_norm},
    {"aten.linalg_matrix_power.default", meta_tail_matrix_power},
    {"aten.linalg_matrix_rank.atol_rtol_float", meta_tail_matrix_rank},
    {"aten.linalg_matrix_rank.atol_rtol_tensor", meta_tail_matrix_rank},
    {"aten.linalg_matrix_rank.default", meta_tail_matrix_rank},
    {"aten.linalg_matrix_rank.tol_tensor", meta_tail_matrix_rank},
    {"aten.linalg_multi_dot.default", meta_tail_multi_dot},
    {"aten.linalg_norm.default", meta_tail_linalg_norm},
    {"aten.linalg_norm.ord_str", meta_tail_linalg_norm},
    {"aten.linalg_pinv.atol_rtol_float", meta_tail_pinv},
    {"aten.linalg_pinv.atol_rtol_tensor", meta_tail_pinv},
    {"aten.linalg_pinv.default", meta_tail_pinv},
    {"aten.linalg_pinv.rcond_tensor", meta_tail_pinv},
    {"aten.linalg_solve.default", meta_tail_linalg_solve},
    {"aten.linalg_solve_ex.default", meta_tail_linalg_solve_ex},
    {"aten.linalg_solve_triangular.default", meta_tail_solve_triangular},
    {"aten.linalg_tensorinv.default", meta_tail_tensorinv},
    {"aten.linalg_tensorsolve.default", meta_tail_tensorsolve},
    {"aten.linalg_vander.default", meta_tail_vander},
    {"aten.linalg_vecdot.default", meta_tail_vecdot},
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
    {"aten.lstm.input", meta_tail_rnn},
    {"aten.lstm_cell.default", meta_tail_rnn_cell},
    {"aten.lu_solve.default", meta_tail_lu_solve_legacy},
    {"aten.lu_unpack.default", meta_tail_lu_unpack},
    {"aten.margin_ranking_loss.default", meta_tail_margin_ranking_loss},
    {"aten.matrix_power.default", meta_tail_matrix_power},
    {"aten.max.other", t_maximum},
    {"aten.max_unpool2d.default", meta_tail_max_unpool},
    {"aten.max_unpool3d.default", meta_tail_max_unpool},
    {"aten.meshgrid.default", t_meshgrid},
    {"aten.meshgrid.indexing", t_meshgrid},
    {"aten.min.other", t_maximum},
    {"aten.moveaxis.int", t_movedim},
    {"aten.moveaxis.intlist", t_movedim},
    {"aten.movedim.int", t_movedim},
    {"aten.movedim.intlist", t_movedim},
    {"aten.msort.default", meta_tail_msort},
    {"aten.multi_margin_loss.default", meta_tail_multi_margin_loss},
    {"aten.multilabel_margin_loss.default", meta_tail_multilabel_margin_loss},
    {"aten.multilabel_margin_loss_forward.default", meta_tail_multilabel_margin_loss},
    {"aten.multinomial.default", t_multinomial},
    {"aten.nanquantile.default", meta_tail_quantile},
    {"aten.nanquantile.scalar", meta_tail_quantile},
    {"aten.narrow.Tensor", t_narrow_tensor},
    {"aten.narrow_copy.default", t_narrow_copy},
    {"aten.native_batch_norm.default", meta_tail_native_batch_norm},
    {"aten.native_channel_shuffle.default", meta_tail_channel_shuffle},
    {"aten.nonzero_numpy.default", t_nonzero_numpy},
    {"aten.nonzero_static.default", t_nonzero_static},
    {"aten.norm.Scalar", meta_tail_norm_dim},
    {"aten.norm.ScalarOpt_dim", meta_tail_norm_dim},
    {"aten.normal.Tensor_Tensor", t_normal_tensor},
    {"aten.normal.Tensor_float", t_normal_tensor},
    {"aten.normal.float_Tensor", t_normal_tensor},
    {"aten.normal.float_float", t_normal_float_float},
    {"aten.normal_functional.default", t_like_self},
    {"aten.nuclear_norm.default", meta_tail_nuclear_norm},
    {"aten.nuclear_norm.dim", meta_tail_norm_dim},
    {"aten.numpy_T.default", t_numpy_T},
    {"aten.one_hot.default", t_one_hot},
    {"aten.orgqr.default", meta_tail_householder},
    {"aten.ormqr.default", meta_tail_ormqr},
    {"aten.pad_sequence.default", t_pad_sequence},
    {"aten.pairwise_distance.default", meta_tail_pairwise_distance},
    {"aten.pdist.default", t_pdist},
    {"aten.pinverse.default", meta_tail_pinv},
    {"aten.pixel_shuffle.default", meta_tail_pixel_shuffle},
    {"aten.pixel_unshuffle.default", meta_tail_pixel_shuffle},
    {"aten.poisson.default", t_like_self},
    {"aten.poisson_nll_loss.default", meta_tail_loss},
    {"aten.polar.default", t_complex},
    {"aten.prelu.default", t_prelu},
    {"aten.put.default", t_like_self},
    {"aten.quantile.default", meta_tail_quantile},
    {"aten.quantile.scalar", meta_tail_quantile},
    {"aten.random.default", t_like_self},
    {"aten.random.from", t_like_self},
    {"aten.random.to", t_like_self},
    {"aten.renorm.default", t_contig_self},
    {"aten.repeat_interleave.self_Tensor", t_repeat_interleave},
    {"aten.repeat_interleave.self_int", t_repeat_interleave},
    {"aten.reshape_as.default", t_view_as},
    {"aten.resize.default", t_resize},
    {"aten.rms_norm.default", meta_tail_rms_norm},
    {"aten.rnn_relu.input", meta_tail_rnn},
    {"aten.rnn_relu_cell.default", meta_tail_rnn_cell},
    {"aten.rnn_tanh.input", meta_tail_rnn},
    {"aten.rnn_tanh_cell.default", meta_tail_rnn_cell},
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
    {"aten.stft.center", meta_tail_stft},
    {"aten.stft.default", meta_tail_stft},
    {"aten.sum_to_size.default", t_sum_to_size},
    {"aten.take.default", t_take},
    {"aten.take_along_dim.default", t_take_along_dim},
    {"aten.tensor_split.indices", t_tensor_split},
    {"aten.tensor_split.sections", t_tensor_split},
    {"aten.tensordot.default", meta_tail_tensordot},
    {"aten.tile.default", t_tile},
    {"aten.to.device", t_to},
    {"aten.to.dtype_layout", t_to},
    {"aten.to.other", t_to_other},
    {"aten.trace.default", meta_tail_trace},
    {"aten.trapezoid.dx", meta_tail_trapezoid},
    {"aten.trapezoid.x", meta_tail_trapezoid},
    {"aten.trapz.dx", meta_tail_trapezoid},
    {"aten.trapz.x", meta_tail_trapezoid},
    {"aten.triangular_solve.default", meta_tail_triangular_solve},
    {"aten.tril_indices.default", t_tri_indices},
    {"aten.triplet_margin_loss.default", meta_tail_triplet_margin_loss},
    {"aten.triu_indices.default", t_tri_indices},
    {"aten.unfold.default", t_unfold},
    {"aten.unfold_copy.default", t_unfold_copy},
    {"aten.uniform.default", t_like_self},
    {"aten.unique_consecutive.default", t_unique_consecutive},
    {"aten.unsafe_chunk.default", t_chunk},
    {"aten.unsafe_split.Tensor", t_split_tensor},
    {"aten.unsafe_split_with_sizes.default", t_split_with_sizes},
    {"aten.upsample_bicubic2d.default", meta_tail_upsample},
    {"aten.upsample_bilinear2d.default", meta_tail_upsample},
    {"aten.upsample_linear1d.default", meta_tail_upsample},
    {"aten.upsample_nearest1d.default", meta_tail_upsample},
    {"aten.upsample_nearest2d.default", meta_tail_upsample},
    {"aten.upsample_nearest3d.default", meta_tail_upsample},
    {"aten.upsample_trilinear3d.default", meta_tail_upsample},
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
