/* meta_more.c — meta functions for the overloads beyond
 * the common model ops, as the Core ATen and OpInfo sweeps call them: more
 * pointwise ops, data-dependent sizes (nonzero, masked_select, _unique2),
 * reductions with indices, factories, scatters and sorts, pooling and
 * padding of other ranks, resampling, batch norm in training, vector
 * products, FFT, more views, the Core ATen backward ops. The helpers (dims,
 * layouts, promotion, arguments) are meta.c's, through meta_int.h; the
 * table in meta.c lists these functions. */
#include <string.h>

#include "meta_int.h"

static const char *const N_SELF[] = {"self"};
static const char *const N_POW[] = {"self", "exponent"};

/* ---- more pointwise ops ---- */

int meta_op_clamp_scalar(mctx *c, eir_mtensor *o, uint32_t max) { return meta_op_clamp_tensor(c, o, max); }

static const char *const N_HEAVISIDE[] = {"self", "values"};
int meta_op_heaviside(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_HEAVISIDE, 2, PW_SAME); }

/* float_power: float64 (complex128 with a complex operand), whatever the inputs */
int meta_op_float_power(mctx *c, eir_mtensor *o, uint32_t max) {
    int r = meta_pointwise(c, o, N_POW, 2, PW_SAME);
    if (r > 0) o->dtype = meta_dt_cat(o->dtype) == 3 ? EIR_C128 : EIR_F64;
    return r;
}

/* addcdiv: integer inputs are refused by torch, floats keep their type */
static const char *const N_ADDC[] = {"self", "tensor1", "tensor2"};
int meta_op_addc(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_ADDC, 3, PW_SAME); }

static const char *const N_LERP[] = {"self", "end", "weight"};
int meta_op_lerp(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_LERP, 3, PW_SAME); }

static const char *const N_X[] = {"x"};
int meta_op_unary_float_x(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_X, 1, PW_FLOAT); }

/* polygamma(n, self), mvlgamma(self, p): a float result over self */
int meta_op_unary_float_self(mctx *c, eir_mtensor *o, uint32_t max) { return meta_pointwise(c, o, N_SELF, 1, PW_FLOAT); }

/* ---- data-dependent sizes: dtype and rank, sizes unknown ---- */

static void unknown_sizes(eir_mtensor *o, eir_dtype dt, uint32_t rank) {
    memset(o, 0, sizeof *o);
    o->dtype = dt;
    o->rank = rank;
    o->sizes_known = true;
    for (uint32_t i = 0; i < rank; i++) o->sizes[i] = UNK, o->strides[i] = UNK;
    o->offset = D(0);
}

/* nonzero: (number of nonzero elements, rank of self), int64 */
int meta_op_nonzero(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    unknown_sizes(o, EIR_I64, 2);
    o->sizes[1] = D(x.rank);
    return 1;
}

int meta_op_masked_select(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    unknown_sizes(o, x.dtype, 1);
    return 1;
}

/* _unique2: the unique values (1-d), the inverse indices (self's shape, or
 * empty when not asked for) and the counts */
int meta_op_unique2(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || max < 3) return 0;
    unknown_sizes(&o[0], x.dtype, 1);
    o[0].strides[0] = D(1);
    o[0].strides_known = true;
    o[1] = x;
    o[1].dtype = EIR_I64;
    if (!meta_in_bool(c, "return_inverse", false)) { o[1].rank = 1; o[1].sizes[0] = D(0); }
    meta_set_contiguous(c, &o[1]);
    if (meta_in_bool(c, "return_counts", false)) {
        unknown_sizes(&o[2], EIR_I64, 1);
        o[2].strides[0] = D(1);
        o[2].strides_known = true;
    } else {
        memset(&o[2], 0, sizeof o[2]);
        o[2].dtype = EIR_I64;
        o[2].rank = 1;
        o[2].sizes_known = true;
        o[2].sizes[0] = D(0);
        meta_set_contiguous(c, &o[2]);
    }
    return 3;
}

/* repeat_interleave.Tensor: sum(repeats) elements, known only as output_size */
int meta_op_repeat_interleave_tensor(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor r;
    if (meta_in_tensor(c, "repeats", &r) != 1) return 0;
    unknown_sizes(o, r.dtype, 1);
    const eir_arg *os = meta_arg(c, "output_size");
    if (os && meta_symint_arg(c, os, &o->sizes[0])) meta_set_contiguous(c, o);
    return 1;
}

/* ---- more reductions ---- */

/* values and int64 indices over one dim (schema default when absent) */
int meta_op_values_indices(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "dim", &dim) || max < 2) return 0;
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    bool keep = meta_in_bool(c, "keepdim", false);
    o[0] = x;
    if (x.rank) {
        if (keep) o[0].sizes[d] = D(1);
        else {
            for (uint32_t i = d; i + 1 < x.rank; i++) o[0].sizes[i] = x.sizes[i + 1];
            o[0].rank--;
        }
    }
    meta_set_contiguous(c, &o[0]);
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

/* cummax / cummin: self's shape, values and int64 indices */
int meta_op_cumminmax(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "dim", &dim) || max < 2) return 0;
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    o[0] = x;
    meta_set_contiguous(c, &o[0]);
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

int meta_op_logcumsumexp(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t dim;
    uint32_t d;
    if (meta_in_tensor(c, "self", &x) != 1 || !meta_in_int(c, "dim", &dim)) return 0;
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    *o = x;
    meta_set_contiguous(c, o);
    return 1;
}

/* var_mean / std_mean: two reductions, real-valued variance and self's mean */
int meta_op_var_mean(mctx *c, eir_mtensor *o, uint32_t max) {
    if (max < 2) return 0;
    int r = meta_reduction(c, o, RED_FLOAT, "dim");
    if (r <= 0) return r;
    o[1] = o[0];
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) == 1) o[1].dtype = x.dtype;
    return 2;
}

/* aminmax: min and max of self (over dim when given) */
int meta_op_aminmax(mctx *c, eir_mtensor *o, uint32_t max) {
    if (max < 2) return 0;
    int r = meta_reduction(c, o, RED_SAME, "dim");
    if (r <= 0) return r;
    o[1] = o[0];
    return 2;
}

/* ---- more factories ---- */

int meta_op_empty_strided(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    int n = meta_in_ints(c, "size", o->sizes, MAXR, 0), m = meta_in_ints(c, "stride", o->strides, MAXR, 0);
    if (n < 0 || m < 0) return 0;
    if (n != m) return meta_fail(c, "arguments 'size' (%d entries) and 'stride' (%d) differ in length", n, m);
    o->rank = (uint32_t)n;
    o->sizes_known = o->strides_known = true;
    o->offset = D(0);
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) {
        eir_mtensor self;
        o->dtype = meta_in_tensor(c, "self", &self) == 1 ? self.dtype : EIR_F32;
    }
    return 1;
}

/* factories whose dtype defaults to int64 (randperm, randint) */
int meta_op_zeros_long(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    if (meta_arg(c, "n") && !meta_arg(c, "size")) {
        o->rank = 1;
        o->sizes_known = true;
        if (!meta_symint_arg(c, meta_arg(c, "n"), &o->sizes[0])) return 0;
    } else if (!meta_sizes_arg(c, "size", o)) {
        return 0;
    }
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_I64;
    meta_set_contiguous(c, o);
    return 1;
}

int meta_op_eye(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    const eir_arg *an = meta_arg(c, "n"), *am = meta_arg(c, "m");
    o->rank = 2;
    o->sizes_known = true;
    if (!an || !meta_symint_arg(c, an, &o->sizes[0])) return 0;
    o->sizes[1] = o->sizes[0];
    if (am && !meta_symint_arg(c, am, &o->sizes[1])) return 0;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_F32;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- copies of self: scatters, flips, sorts ---- */

/* self's sizes, dtype and preserved layout (clone, then an in-place op) */
int meta_op_like_self(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    *o = self;
    meta_like_preserve(c, &self, o);
    return 1;
}

/* self's sizes, dtype and strides, at offset 0 (empty_strided like self) */
int meta_op_strided_self(mctx *c, eir_mtensor *o, uint32_t max) {
    if (meta_in_tensor(c, "self", o) != 1) return 0;
    o->offset = D(0);
    return 1;
}

/* self's sizes and dtype, contiguous */
int meta_op_contig_self(mctx *c, eir_mtensor *o, uint32_t max) {
    if (meta_in_tensor(c, "self", o) != 1) return 0;
    meta_set_contiguous(c, o);
    return 1;
}

int meta_op_sort(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    int64_t dim = -1;
    uint32_t d;
    if (meta_in_tensor(c, "self", &self) != 1 || !meta_in_int(c, "dim", &dim) || max < 2) return 0;
    if (!meta_wrap_dim(c, dim, self.rank, "argument 'dim'", &d)) return -1;
    o[0] = self;
    meta_like_preserve(c, &self, &o[0]);
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

int meta_op_repeat(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    eir_mdim rep[MAXR];
    int n = meta_in_ints(c, "repeats", rep, MAXR, 0);
    if (n < 0) return 0;
    if ((uint32_t)n < self.rank)
        return meta_fail(c, "argument 'repeats' has %d entries, fewer than the rank of 'self' (%u)", n, self.rank);
    memset(o, 0, sizeof *o);
    o->dtype = self.dtype;
    o->rank = (uint32_t)n;
    o->sizes_known = true;
    uint32_t off = (uint32_t)n - self.rank;
    for (uint32_t i = 0; i < (uint32_t)n; i++) o->sizes[i] = i < off ? rep[i] : meta_dmul(c, rep[i], self.sizes[i - off]);
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- more pooling, padding, resampling ---- */

/* pooling over the last k dims of a rank k+1 or k+2 input */
static int pool_nd(mctx *c, eir_mtensor *o, uint32_t max, uint32_t k, bool with_indices, bool avg) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank != k + 1 && x.rank != k + 2)
        return meta_fail(c, "'self' has rank %u; %u-d pooling expects rank %u or %u", x.rank, k, k + 1, k + 2);
    eir_mdim ks[3], s[3], p[3], d[3] = {D(1), D(1), D(1)};
    if (meta_in_ints(c, "kernel_size", ks, 3, k) != (int)k || meta_in_ints(c, "padding", p, 3, k) != (int)k) return 0;
    int ns = meta_in_ints(c, "stride", s, 3, k);
    if (ns == 0) for (uint32_t i = 0; i < k; i++) s[i] = ks[i];
    else if (ns != (int)k) return 0;
    if (!avg && meta_in_ints(c, "dilation", d, 3, k) != (int)k) return 0;
    bool ceil = meta_in_bool(c, "ceil_mode", false);
    *o = x;
    for (uint32_t i = 0; i < k; i++)
        o->sizes[x.rank - k + i] = meta_pool_size(c, x.sizes[x.rank - k + i], ks[i], s[i], p[i], d[i], ceil);
    if (x.rank == k + 2 && meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    if (!with_indices) return 1;
    if (max < 2) return 0;
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

int meta_op_avg_pool1d(mctx *c, eir_mtensor *o, uint32_t max) { return pool_nd(c, o, max, 1, false, true); }
int meta_op_avg_pool3d(mctx *c, eir_mtensor *o, uint32_t max) { return pool_nd(c, o, max, 3, false, true); }
int meta_op_max_pool1d(mctx *c, eir_mtensor *o, uint32_t max) { return pool_nd(c, o, max, 1, false, false); }
int meta_op_max_pool3d(mctx *c, eir_mtensor *o, uint32_t max) { return pool_nd(c, o, max, 3, false, false); }
int meta_op_max_pool1d_with_indices(mctx *c, eir_mtensor *o, uint32_t max) { return pool_nd(c, o, max, 1, true, false); }
int meta_op_max_pool3d_with_indices(mctx *c, eir_mtensor *o, uint32_t max) { return pool_nd(c, o, max, 3, true, false); }

/* adaptive pooling over the last k dims: output_size replaces them */
static int adaptive_nd(mctx *c, eir_mtensor *o, uint32_t max, uint32_t k, bool with_indices) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || (x.rank != k + 1 && x.rank != k + 2)) return 0;
    eir_mdim os[3];
    if (meta_in_ints(c, "output_size", os, 3, k) != (int)k) return 0;
    *o = x;
    for (uint32_t i = 0; i < k; i++) o->sizes[x.rank - k + i] = os[i];
    if (x.rank == k + 2 && meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    if (!with_indices) return 1;
    if (max < 2) return 0;
    o[1] = o[0];
    o[1].dtype = EIR_I64;
    return 2;
}

int meta_op_adaptive_avg_pool1d(mctx *c, eir_mtensor *o, uint32_t max) { return adaptive_nd(c, o, max, 1, false); }
int meta_op_adaptive_avg_pool3d(mctx *c, eir_mtensor *o, uint32_t max) { return adaptive_nd(c, o, max, 3, false); }
int meta_op_adaptive_max_pool1d(mctx *c, eir_mtensor *o, uint32_t max) { return adaptive_nd(c, o, max, 1, true); }
int meta_op_adaptive_max_pool2d(mctx *c, eir_mtensor *o, uint32_t max) { return adaptive_nd(c, o, max, 2, true); }
int meta_op_adaptive_max_pool3d(mctx *c, eir_mtensor *o, uint32_t max) { return adaptive_nd(c, o, max, 3, true); }

/* reflection_pad / replication_pad: argument 'padding' (left, right, top, ...) widens the last dims */
int meta_op_pad_nd(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim pad[6];
    int n = meta_in_ints(c, "padding", pad, 6, 0);
    if (n < 0) return 0;
    if (n % 2 || (uint32_t)n / 2 > x.rank)
        return meta_fail(c, "argument 'padding' has %d entries; expected an even number, at most twice the rank of 'self' "
                    "(%u)", n, x.rank);
    *o = x;
    for (int i = 0; i < n / 2; i++) {
        uint32_t d = x.rank - 1 - (uint32_t)i;
        o->sizes[d] = meta_dadd(c, meta_dadd(c, x.sizes[d], pad[2 * i]), pad[2 * i + 1]);
    }
    meta_set_contiguous(c, o);
    return 1;
}

/* upsample_*.vec: output_size, or floor(size * scale) per spatial dim;
 * torch's suggest_memory_format for the layout */
int meta_op_upsample_vec(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1 || x.rank < 3) return 0;
    uint32_t k = x.rank - 2;
    eir_mdim os[3];
    *o = x;
    const eir_arg *sf = meta_arg(c, "scale_factors");
    if (meta_arg(c, "output_size")) {
        if (meta_in_ints(c, "output_size", os, 3, 0) != (int)k) return 0;
        for (uint32_t i = 0; i < k; i++) o->sizes[2 + i] = os[i];
    } else if (sf && sf->kind == EIR_ARG_FLOATS && sf->u.list.n == k) {
        for (uint32_t i = 0; i < k; i++) {
            eir_mdim in = x.sizes[2 + i];
            double s = sf->u.list.items[i].u.f;
            if (in.kind != EIR_MDIM_INT || !(s >= 0 && s < 1e9)) { o->sizes[2 + i] = UNK; continue; }
            o->sizes[2 + i] = D((int64_t)((double)in.c * s));
        }
    } else {
        return 0;
    }
    if (meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

int meta_op_grid_sampler(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x, g;
    if (meta_in_tensor(c, "input", &x) != 1 || meta_in_tensor(c, "grid", &g) != 1) return 0;
    if (x.rank < 4 || g.rank != x.rank) return 0;
    *o = x;
    for (uint32_t i = 2; i < x.rank; i++) o->sizes[i] = g.sizes[i - 1];
    meta_set_contiguous(c, o);
    return 1;
}

int meta_op_col2im(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || (x.rank != 2 && x.rank != 3)) return 0;
    eir_mdim os[2], ks[2];
    if (meta_in_ints(c, "output_size", os, 2, 2) != 2 || meta_in_ints(c, "kernel_size", ks, 2, 2) != 2) return 0;
    uint32_t b = x.rank - 2;
    memset(o, 0, sizeof *o);
    o->dtype = x.dtype;
    o->rank = b + 3;
    o->sizes_known = true;
    if (b) o->sizes[0] = x.sizes[0];
    o->sizes[b] = meta_dfloordiv(c, x.sizes[b], meta_dmul(c, ks[0], ks[1]));
    o->sizes[b + 1] = os[0];
    o->sizes[b + 2] = os[1];
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- more normalization ---- */

/* _native_batch_norm_legit: the output like input; the saved mean and
 * inverse std per channel (empty when not training) */
int meta_op_batch_norm_legit(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1 || max < 3 || x.rank < 2) return 0;
    bool training = meta_in_bool(c, "training", false);
    o[0] = x;
    meta_like_preserve(c, &x, &o[0]);
    for (int k = 1; k < 3; k++) {
        memset(&o[k], 0, sizeof o[k]);
        o[k].dtype = x.dtype; /* on the CPU, the saved statistics keep the input's dtype */
        o[k].rank = 1;
        o[k].sizes_known = true;
        o[k].sizes[0] = training ? x.sizes[1] : D(0);
        meta_set_contiguous(c, &o[k]);
    }
    return 3;
}

/* ---- more linear algebra ---- */

int meta_op_mv(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a, v;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "vec", &v) != 1) return 0;
    if (a.rank != 2 || v.rank != 1)
        return meta_fail(c, "'self' has rank %u and 'vec' rank %u; mv expects a matrix and a vector", a.rank, v.rank);
    if (meta_check_same(c, a.sizes[1], v.sizes[0], "the sizes of 'self' (dim 1) and 'vec'") < 0) return -1;
    memset(o, 0, sizeof *o);
    o->dtype = a.dtype;
    o->rank = 1;
    o->sizes_known = true;
    o->sizes[0] = a.sizes[0];
    meta_set_contiguous(c, o);
    return 1;
}

int meta_op_dot(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a;
    if (meta_in_tensor(c, "self", &a) != 1) return 0;
    memset(o, 0, sizeof *o);
    o->dtype = a.dtype;
    o->sizes_known = true;
    meta_set_contiguous(c, o);
    return 1;
}

int meta_op_outer(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "vec2", &b) != 1 || a.rank != 1 || b.rank != 1) return 0;
    memset(o, 0, sizeof *o);
    o->dtype = meta_promote(a.dtype, b.dtype);
    o->rank = 2;
    o->sizes_known = true;
    o->sizes[0] = a.sizes[0];
    o->sizes[1] = b.sizes[0];
    meta_set_contiguous(c, o);
    return 1;
}

/* _cdist_forward: (batch..., P, R) */
int meta_op_cdist(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "x1", &a) != 1 || meta_in_tensor(c, "x2", &b) != 1 || a.rank < 2 || b.rank < 2) return 0;
    operand ba = {a, false}, bb = {b, false};
    ba.t.rank = a.rank - 2;
    bb.t.rank = b.rank - 2;
    static const char *const names[] = {"x1", "x2"};
    operand both[2] = {ba, bb};
    memset(o, 0, sizeof *o);
    int r = meta_broadcast(c, both, 2, o, names);
    if (r <= 0) return r;
    o->sizes[o->rank++] = a.sizes[a.rank - 2];
    o->sizes[o->rank++] = b.sizes[b.rank - 2];
    o->dtype = a.dtype;
    meta_set_contiguous(c, o);
    return 1;
}

int meta_op_pdist(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1 || x.rank != 2) return 0;
    memset(o, 0, sizeof *o);
    o->dtype = x.dtype;
    o->rank = 1;
    o->sizes_known = true;
    eir_mdim n = x.sizes[0];
    o->sizes[0] = meta_dfloordiv(c, meta_dmul(c, n, meta_dsub(c, n, D(1))), D(2));
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- FFT: sizes and dtype (the layouts are pocketfft's, not inferred) ---- */

static int fft_common(mctx *c, eir_mtensor *o, int kind) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim dims[MAXR];
    int n = meta_in_ints(c, "dim", dims, MAXR, 0);
    if (n <= 0) return 0;
    uint32_t last;
    if (dims[n - 1].kind != EIR_MDIM_INT) return 0;
    if (!meta_wrap_dim(c, dims[n - 1].c, x.rank, "argument 'dim'", &last)) return -1;
    *o = x;
    o->strides_known = false;
    if (kind == 0) { /* r2c */
        o->dtype = meta_to_complex(x.dtype);
        if (meta_in_bool(c, "onesided", true)) o->sizes[last] = meta_dadd(c, meta_dfloordiv(c, x.sizes[last], D(2)), D(1));
    } else if (kind == 1) { /* c2r */
        o->dtype = meta_complex_value(x.dtype);
        const eir_arg *l = meta_arg(c, "last_dim_size");
        if (!l || !meta_symint_arg(c, l, &o->sizes[last])) return 0;
    }
    return 1;
}

int meta_op_fft_r2c(mctx *c, eir_mtensor *o, uint32_t max) { return fft_common(c, o, 0); }
int meta_op_fft_c2r(mctx *c, eir_mtensor *o, uint32_t max) { return fft_common(c, o, 1); }
int meta_op_fft_c2c(mctx *c, eir_mtensor *o, uint32_t max) { return fft_common(c, o, 2); }

/* ---- more views ---- */

int meta_op_swapaxes(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    int64_t d0, d1;
    uint32_t a, b;
    if (!(meta_in_int(c, "axis0", &d0) || meta_in_int(c, "dim0", &d0)) || !(meta_in_int(c, "axis1", &d1) || meta_in_int(c, "dim1", &d1)))
        return 0;
    if (!meta_wrap_dim(c, d0, self.rank, "argument 'dim0'", &a) || !meta_wrap_dim(c, d1, self.rank, "argument 'dim1'", &b))
        return -1;
    *o = self;
    if (self.rank == 0) return 1;
    o->sizes[a] = self.sizes[b]; o->sizes[b] = self.sizes[a];
    o->strides[a] = self.strides[b]; o->strides[b] = self.strides[a];
    return 1;
}

/* mT / mH / adjoint: the last two dims swapped */
int meta_op_mT(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    if (self.rank < 2) return meta_fail(c, "'self' has rank %u; expected a batch of matrices (rank >= 2)", self.rank);
    *o = self;
    uint32_t a = self.rank - 2, b = self.rank - 1;
    o->sizes[a] = self.sizes[b]; o->sizes[b] = self.sizes[a];
    o->strides[a] = self.strides[b]; o->strides[b] = self.strides[a];
    return 1;
}

/* expand_as / view_as / reshape_as / type_as: the other tensor's sizes (or dtype) */
int meta_op_expand_as(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self, other;
    if (meta_in_tensor(c, "self", &self) != 1 || meta_in_tensor(c, "other", &other) != 1) return 0;
    if (other.rank < self.rank) return 0;
    memset(o, 0, sizeof *o);
    o->dtype = self.dtype;
    o->rank = other.rank;
    o->sizes_known = o->strides_known = true;
    o->offset = self.offset;
    uint32_t off = other.rank - self.rank;
    for (uint32_t i = 0; i < other.rank; i++) {
        o->sizes[i] = other.sizes[i];
        o->strides[i] = i < off || (is_int(self.sizes[i - off], 1) && !is_int(other.sizes[i], 1)) ? D(0)
                        : self.strides[i - off];
    }
    return 1;
}

int meta_op_type_as(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self, other;
    if (meta_in_tensor(c, "self", &self) != 1 || meta_in_tensor(c, "other", &other) != 1) return 0;
    *o = self;
    if (self.dtype == other.dtype) return 1;
    o->dtype = other.dtype;
    meta_like_preserve(c, &self, o);
    return 1;
}

/* ravel: contiguous(self).view(-1), a copy whenever self is not contiguous */
int meta_op_ravel(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor self;
    if (meta_in_tensor(c, "self", &self) != 1) return 0;
    eir_mdim n = D(1);
    for (uint32_t i = 0; i < self.rank; i++) n = meta_dmul(c, n, self.sizes[i]);
    if (meta_is_contiguous(c, &self)) return meta_reshape_to(c, o, &self, &n, 1, true, "ravel");
    memset(o, 0, sizeof *o);
    o->dtype = self.dtype;
    o->rank = 1;
    o->sizes_known = true;
    o->sizes[0] = n;
    meta_set_contiguous(c, o);
    return 1;
}

/* ---- backward ops, embedding bags, out= and in-place resizes ---- */

/* output_mask[i] (absent or not a bool list: true) */
static bool mask_at(mctx *c, uint32_t i) {
    const eir_arg *a = meta_arg(c, "output_mask");
    if (!a || a->kind != EIR_ARG_BOOLS || i >= a->u.list.n) return true;
    return a->u.list.items[i].u.b;
}

/* a None return of an op whose returns are optional (output_mask false) */
static void none_out(eir_mtensor *o) { memset(o, 0, sizeof *o); }

/* a new tensor of t's sizes in dtype dt: channels-last when cl, else contiguous */
static void new_like(mctx *c, eir_mtensor *o, const eir_mtensor *t, eir_dtype dt, bool cl) {
    *o = *t;
    o->dtype = dt;
    if (cl) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
}

/* _adaptive_avg_pool2d_backward, avg_pool2d_backward,
 * max_pool2d_with_indices_backward: the gradient of self, in grad_output's
 * dtype, channels-last when self's strides suggest it */
int meta_op_pool_backward(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor g, x;
    if (meta_in_tensor(c, "grad_output", &g) != 1 || meta_in_tensor(c, "self", &x) != 1) return 0;
    if (g.rank != x.rank)
        return meta_fail(c, "'grad_output' has rank %u; expected the rank of 'self' (%u)", g.rank, x.rank);
    new_like(c, o, &x, g.dtype, x.rank == 4 && meta_strides_like_cl(c, &x));
    return 1;
}

/* convolution_backward: the gradients of input and weight in grad_output's
 * dtype, channels-last when input's or weight's strides suggest it (torch's
 * backend memory format), and of the bias with bias_sizes; None where
 * output_mask is false */
int meta_op_convolution_backward(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor g, x, w;
    if (meta_in_tensor(c, "grad_output", &g) != 1 || meta_in_tensor(c, "input", &x) != 1 || meta_in_tensor(c, "weight", &w) != 1 ||
        max < 3)
        return 0;
    if (x.rank < 3 || w.rank != x.rank || g.rank != x.rank)
        return meta_fail(c, "'input', 'weight' and 'grad_output' have ranks %u, %u and %u; expected one rank of at least 3",
                    x.rank, w.rank, g.rank);
    bool cl = (x.rank == 4 || x.rank == 5) && (meta_strides_like_cl(c, &x) || meta_strides_like_cl(c, &w));
    if (mask_at(c, 0)) new_like(c, &o[0], &x, g.dtype, cl);
    else none_out(&o[0]);
    if (mask_at(c, 1)) new_like(c, &o[1], &w, g.dtype, cl);
    else none_out(&o[1]);
    none_out(&o[2]);
    if (mask_at(c, 2)) {
        eir_mdim bs[MAXR];
        int n = meta_in_ints(c, "bias_sizes", bs, MAXR, 0);
        if (n < 0) {
            /* bias_sizes None: the output channels */
            bs[0] = g.sizes[1];
            n = 1;
        }
        o[2].dtype = g.dtype;
        o[2].rank = (uint32_t)n;
        o[2].sizes_known = true;
        for (int i = 0; i < n; i++) o[2].sizes[i] = bs[i];
        meta_set_contiguous(c, &o[2]);
    }
    return 3;
}

/* embedding_dense_backward: [num_weights, grad_output's last size] */
int meta_op_embedding_dense_backward(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor g;
    eir_mdim nw;
    const eir_arg *a = meta_arg(c, "num_weights");
    if (meta_in_tensor(c, "grad_output", &g) != 1 || !a || !meta_symint_arg(c, a, &nw)) return 0;
    if (g.rank < 1) return meta_fail(c, "'grad_output' is 0-d; expected the embedding size as its last dim");
    memset(o, 0, sizeof *o);
    o->dtype = g.dtype;
    o->rank = 2;
    o->sizes_known = true;
    o->sizes[0] = nw;
    o->sizes[1] = g.sizes[g.rank - 1];
    meta_set_contiguous(c, o);
    return 1;
}

/* native_group_norm_backward: the input's gradient like input (channels-last
 * when grad_output's strides suggest it), the weight's and bias's [C] */
int meta_op_native_group_norm_backward(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor g, x;
    eir_mdim ch;
    const eir_arg *a = meta_arg(c, "C");
    if (meta_in_tensor(c, "grad_out", &g) != 1 || meta_in_tensor(c, "input", &x) != 1 || !a || !meta_symint_arg(c, a, &ch) ||
        max < 3)
        return 0;
    if (g.rank != x.rank)
        return meta_fail(c, "'grad_out' has rank %u; expected the rank of 'input' (%u)", g.rank, x.rank);
    if (mask_at(c, 0)) new_like(c, &o[0], &x, x.dtype, (g.rank == 4 || g.rank == 5) && meta_strides_like_cl(c, &g));
    else none_out(&o[0]);
    for (uint32_t k = 1; k < 3; k++) {
        none_out(&o[k]);
        if (!mask_at(c, k)) continue;
        o[k].dtype = x.dtype;
        o[k].rank = 1;
        o[k].sizes_known = true;
        o[k].sizes[0] = ch;
        meta_set_contiguous(c, &o[k]);
    }
    return 3;
}

/* native_layer_norm_backward: contiguous gradients of input, weight and bias
 * in their dtypes; None where output_mask is false or the operand is None */
int meta_op_native_layer_norm_backward(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1 || max < 3) return 0;
    if (mask_at(c, 0)) new_like(c, &o[0], &x, x.dtype, false);
    else none_out(&o[0]);
    static const char *const names[] = {"weight", "bias"};
    for (uint32_t k = 1; k < 3; k++) {
        eir_mtensor t;
        int r = meta_in_tensor(c, names[k - 1], &t);
        if (r < 0) return 0;
        if (r == 1 && mask_at(c, k)) new_like(c, &o[k], &t, t.dtype, false);
        else none_out(&o[k]);
    }
    return 3;
}

/* _embedding_bag on the CPU: the bags [num_bags, D] in weight's dtype, then
 * offset2bag, bag_size and max_indices in offsets' dtype. offset2bag is
 * empty on the fast sum path (f32/f16 weight with unit last stride, no
 * padding_idx, per-sample weights of unit stride); max_indices is
 * [num_bags, D] in max mode, else [num_bags]. */
int meta_op_embedding_bag(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor w, idx, off, psw;
    int64_t mode = 0, pad = -1;
    if (meta_in_tensor(c, "weight", &w) != 1 || meta_in_tensor(c, "indices", &idx) != 1 || meta_in_tensor(c, "offsets", &off) != 1 ||
        max < 4)
        return 0;
    int rp = meta_in_tensor(c, "per_sample_weights", &psw);
    if (rp < 0) return 0;
    if (meta_arg(c, "mode") && !meta_in_int(c, "mode", &mode)) return 0;
    if (meta_arg(c, "padding_idx") && !meta_in_int(c, "padding_idx", &pad)) return 0;
    if (w.rank != 2) return meta_fail(c, "'weight' has rank %u; expected a 2-d embedding table", w.rank);
    if (idx.rank != 1) return meta_fail(c, "'indices' has rank %u; expected a 1-d tensor", idx.rank);
    if (off.rank != 1) return meta_fail(c, "'offsets' has rank %u; expected a 1-d tensor", off.rank);
    if (idx.dtype != EIR_I64 && idx.dtype != EIR_I32)
        return meta_fail(c, "'indices' has dtype %s; expected int64 or int32",
                    eir_dtype_name(idx.dtype) ? eir_dtype_name(idx.dtype) : "?");
    if (off.dtype != EIR_I64 && off.dtype != EIR_I32)
        return meta_fail(c, "'offsets' has dtype %s; expected int64 or int32",
                    eir_dtype_name(off.dtype) ? eir_dtype_name(off.dtype) : "?");
    if (mode < 0 || mode > 2) return meta_fail(c, "argument 'mode' is %lld; expected 0 (sum), 1 (mean) or 2 (max)",
                                          (long long)mode);
    eir_mdim bags = off.sizes[0];
    if (meta_in_bool(c, "include_last_offset", false)) {
        if (is_int(bags, 0)) return meta_fail(c, "'offsets' is empty; include_last_offset needs at least one offset");
        bags = meta_dsub(c, bags, D(1));
    }
    for (int k = 0; k < 4; k++) memset(&o[k], 0, sizeof o[k]);
    o[0].dtype = w.dtype;
    o[0].rank = 2;
    o[0].sizes_known = true;
    o[0].sizes[0] = bags;
    o[0].sizes[1] = w.sizes[1];
    meta_set_contiguous(c, &o[0]);
    /* the fast sum path needs w's last stride known */
    int64_t ws = 0, ps = 1;
    if (!w.strides_known || !meta_dval(c, w.strides[1], &ws)) return 0;
    if (rp == 1 && (!psw.strides_known || psw.rank != 1 || !meta_dval(c, psw.strides[0], &ps))) return 0;
    bool fast = (w.dtype == EIR_F32 || w.dtype == EIR_F16) && ws == 1 && pad < 0 && ps == 1;
    o[1].dtype = o[2].dtype = o[3].dtype = off.dtype;
    o[1].rank = o[2].rank = 1;
    o[1].sizes_known = o[2].sizes_known = o[3].sizes_known = true;
    o[1].sizes[0] = mode == 0 && fast ? D(0) : idx.sizes[0];
    o[2].sizes[0] = bags;
    o[3].rank = mode == 2 ? 2 : 1;
    o[3].sizes[0] = bags;
    o[3].sizes[1] = w.sizes[1];
    for (int k = 1; k < 4; k++) meta_set_contiguous(c, &o[k]);
    return 4;
}

/* atan2.out: the broadcast sizes in out's dtype; out keeps its strides when
 * it already has those sizes, else it is resized (contiguous), and keeps
 * its storage offset either way */
static const char *const N_ATAN2[] = {"self", "other"};
int meta_op_atan2_out(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor out;
    if (meta_in_tensor(c, "out", &out) != 1) return 0;
    int r = meta_pointwise(c, o, N_ATAN2, 2, PW_FLOAT);
    if (r <= 0) return r;
    o->dtype = out.dtype;
    bool same = out.rank == o->rank;
    for (uint32_t i = 0; same && i < o->rank; i++) same = meta_deq(c, out.sizes[i], o->sizes[i]);
    if (same) {
        *o = out;
        return 1;
    }
    meta_set_contiguous(c, o);
    o->offset = out.offset;
    return 1;
}

/* resize_: self with the new sizes, contiguous (or in memory_format),
 * keeping its storage offset; self unchanged when the sizes are its own and
 * no memory_format is given. The returned tensor is self (the op writes
 * its input's metadata), so what is inferred is self after the call. */
int meta_op_resize(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    eir_mdim sz[MAXR];
    int n = meta_in_ints(c, "size", sz, MAXR, 0);
    if (n < 0) return 0;
    for (int i = 0; i < n; i++) {
        int64_t v;
        if (meta_dval(c, sz[i], &v) && v < 0)
            return meta_fail(c, "argument 'size' has %lld in dim %d; expected sizes >= 0", (long long)v, i);
    }
    int mf = meta_in_memfmt(c, "memory_format");
    bool same = x.rank == (uint32_t)n;
    for (int i = 0; same && i < n; i++) same = meta_deq(c, x.sizes[i], sz[i]);
    *o = x;
    if (same && (mf == EIR_MF_UNKNOWN || mf == EIR_MF_PRESERVE)) return 1;
    o->rank = (uint32_t)n;
    for (int i = 0; i < n; i++) o->sizes[i] = sz[i];
    eir_mdim off = x.offset;
    if (mf == EIR_MF_CHANNELS_LAST || mf == EIR_MF_CHANNELS_LAST_3D) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    o->offset = off;
    return 1;
}

/* ---- linear algebra: LAPACK's results, matrices in batched column-major ---- */

/* the last two dims fastest-first (columns contiguous), then the batch dims */
static void set_col_major(mctx *c, eir_mtensor *t) {
    if (t->rank < 2) { meta_set_contiguous(c, t); return; }
    uint32_t order[MAXR];
    order[0] = t->rank - 2;
    order[1] = t->rank - 1;
    for (uint32_t k = 2; k < t->rank; k++) order[k] = t->rank - 1 - k;
    meta_set_strides_order(c, t, order);
}

/* self as a batch of matrices (rank >= 2; square when asked) */
static int in_matrices(mctx *c, const char *name, eir_mtensor *a, bool square) {
    if (!meta_arg(c, name) && meta_arg(c, "self")) name = "self"; /* linalg_eigh, linalg_cholesky... */
    int r = meta_in_tensor(c, name, a);
    if (r != 1) return r < 0 ? 0 : -2;
    if (a->rank < 2) return meta_fail(c, "'%s' has rank %u; expected a matrix or a batch of matrices", name, a->rank);
    if (square && !meta_deq(c, a->sizes[a->rank - 2], a->sizes[a->rank - 1]) &&
        a->sizes[a->rank - 2].kind == EIR_MDIM_INT && a->sizes[a->rank - 1].kind == EIR_MDIM_INT)
        return meta_fail(c, "'%s' has %lld x %lld matrices; expected square ones", name,
                         (long long)a->sizes[a->rank - 2].c, (long long)a->sizes[a->rank - 1].c);
    return 1;
}

/* a [batch..., extra...] tensor of dtype dt, contiguous (extra: n sizes) */
static void batch_of(mctx *c, eir_mtensor *o, const eir_mtensor *a, eir_dtype dt, const eir_mdim *extra, uint32_t n) {
    memset(o, 0, sizeof *o);
    o->dtype = dt;
    o->sizes_known = true;
    o->rank = a->rank - 2 + n;
    for (uint32_t i = 0; i + 2 < a->rank; i++) o->sizes[i] = a->sizes[i];
    for (uint32_t i = 0; i < n; i++) o->sizes[a->rank - 2 + i] = extra[i];
    meta_set_contiguous(c, o);
}

static void empty_1d(mctx *c, eir_mtensor *o, eir_dtype dt) {
    memset(o, 0, sizeof *o);
    o->dtype = dt;
    o->rank = 1;
    o->sizes_known = true;
    o->sizes[0] = D(0);
    meta_set_contiguous(c, o);
}

static eir_dtype real_of(eir_dtype d) { return meta_dt_cat(d) == 3 ? meta_complex_value(d) : d; }

/* a matrix like a, in column-major order (rows r, columns k) */
static void matrix_like(mctx *c, eir_mtensor *o, const eir_mtensor *a, eir_mdim r, eir_mdim k, bool col_major) {
    *o = *a;
    o->sizes[a->rank - 2] = r;
    o->sizes[a->rank - 1] = k;
    if (col_major) set_col_major(c, o);
    else meta_set_contiguous(c, o);
}

/* inverse, linalg_inv, cholesky, linalg_cholesky (+ _ex: int32 info per matrix) */
static int linalg_square(mctx *c, eir_mtensor *o, uint32_t max, const char *name, bool ex) {
    eir_mtensor a;
    int r = in_matrices(c, name, &a, true);
    if (r != 1) return r == -1 ? -1 : 0;
    matrix_like(c, &o[0], &a, a.sizes[a.rank - 2], a.sizes[a.rank - 1], true);
    if (!ex) return 1;
    if (max < 2) return 0;
    batch_of(c, &o[1], &a, EIR_I32, NULL, 0);
    return 2;
}
int meta_op_linalg_inv(mctx *c, eir_mtensor *o, uint32_t max) { return linalg_square(c, o, max, "A", false); }
int meta_op_linalg_inv_ex(mctx *c, eir_mtensor *o, uint32_t max) { return linalg_square(c, o, max, "A", true); }
int meta_op_inverse(mctx *c, eir_mtensor *o, uint32_t max) { return linalg_square(c, o, max, "self", false); }
int meta_op_linalg_cholesky(mctx *c, eir_mtensor *o, uint32_t max) { return linalg_square(c, o, max, "self", false); }
int meta_op_cholesky(mctx *c, eir_mtensor *o, uint32_t max) { return linalg_square(c, o, max, "self", false); }
int meta_op_linalg_cholesky_ex(mctx *c, eir_mtensor *o, uint32_t max) { return linalg_square(c, o, max, "self", true); }

/* matrix_exp: contiguous, like self */
int meta_op_matrix_exp(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a;
    int r = in_matrices(c, meta_arg(c, "A") ? "A" : "self", &a, true);
    if (r != 1) return r == -1 ? -1 : 0;
    matrix_like(c, o, &a, a.sizes[a.rank - 2], a.sizes[a.rank - 1], false);
    return 1;
}

/* det, logdet, linalg_det: one value per matrix; _linalg_det adds the LU
 * factors and int32 pivots */
int meta_op_det(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a;
    const char *name = meta_arg(c, "A") ? "A" : "self";
    int r = in_matrices(c, name, &a, true);
    if (r != 1) return r == -1 ? -1 : 0;
    batch_of(c, &o[0], &a, a.dtype, NULL, 0);
    if (strcmp(c->s->name, "aten._linalg_det.default")) return 1;
    if (max < 3) return 0;
    matrix_like(c, &o[1], &a, a.sizes[a.rank - 2], a.sizes[a.rank - 1], true);
    batch_of(c, &o[2], &a, EIR_I32, &a.sizes[a.rank - 1], 1);
    return 3;
}

/* slogdet, linalg_slogdet: (sign, log |det|) per matrix, the log real;
 * _linalg_slogdet adds the LU factors and int32 pivots */
int meta_op_slogdet(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a;
    const char *name = meta_arg(c, "A") ? "A" : "self";
    int r = in_matrices(c, name, &a, true);
    if (r != 1 || max < 2) return r == -1 ? -1 : 0;
    batch_of(c, &o[0], &a, a.dtype, NULL, 0);
    batch_of(c, &o[1], &a, real_of(a.dtype), NULL, 0);
    if (strcmp(c->s->name, "aten._linalg_slogdet.default")) return 2;
    if (max < 4) return 0;
    matrix_like(c, &o[2], &a, a.sizes[a.rank - 2], a.sizes[a.rank - 1], true);
    batch_of(c, &o[3], &a, EIR_I32, &a.sizes[a.rank - 1], 1);
    return 4;
}

/* linalg_eigh, _linalg_eigh: real eigenvalues [..., n], column-major
 * eigenvectors; linalg_eigvalsh: the eigenvalues */
int meta_op_eigh(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a;
    int r = in_matrices(c, "A", &a, true);
    if (r != 1) return r == -1 ? -1 : 0;
    batch_of(c, &o[0], &a, real_of(a.dtype), &a.sizes[a.rank - 1], 1);
    if (!strcmp(c->s->name, "aten.linalg_eigvalsh.default")) return 1;
    if (max < 2 || !meta_in_bool(c, "compute_v", true)) return 0;
    matrix_like(c, &o[1], &a, a.sizes[a.rank - 2], a.sizes[a.rank - 1], true);
    return 2;
}

/* min(m, n) of a matrix's dims, when their order is known */
static bool min_dim(mctx *c, const eir_mtensor *a, eir_mdim *k, bool *tall) {
    eir_mdim m = a->sizes[a->rank - 2], n = a->sizes[a->rank - 1];
    int64_t mv, nv;
    if (meta_deq(c, m, n)) { *k = m; *tall = true; return true; }
    if (m.kind != EIR_MDIM_INT || n.kind != EIR_MDIM_INT || !meta_dval(c, m, &mv) || !meta_dval(c, n, &nv))
        return false;
    *tall = mv >= nv;
    *k = *tall ? n : m;
    return true;
}

/* linalg_qr (mode reduced, complete or r), qr (some): Q and R column-major */
int meta_op_qr(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a;
    bool legacy = !strcmp(c->s->name, "aten.qr.default");
    int r = in_matrices(c, legacy ? "self" : "A", &a, false);
    if (r != 1 || max < 2) return r == -1 ? -1 : 0;
    const char *mode = "reduced";
    if (legacy) {
        if (!meta_in_bool(c, "some", true)) mode = "complete";
    } else {
        const eir_arg *ma = meta_arg(c, "mode");
        if (ma && ma->kind != EIR_ARG_STRING) return 0;
        if (ma) mode = ma->u.s;
    }
    eir_mdim k, m = a.sizes[a.rank - 2], n = a.sizes[a.rank - 1];
    bool tall;
    if (!min_dim(c, &a, &k, &tall)) return 0;
    if (!strcmp(mode, "reduced")) {
        matrix_like(c, &o[0], &a, m, k, true);
        matrix_like(c, &o[1], &a, k, n, true);
    } else if (!strcmp(mode, "complete")) {
        matrix_like(c, &o[0], &a, m, m, true);
        matrix_like(c, &o[1], &a, m, n, true);
    } else if (!strcmp(mode, "r")) {
        empty_1d(c, &o[0], a.dtype);
        matrix_like(c, &o[1], &a, k, n, true);
    } else {
        return meta_fail(c, "argument 'mode' is '%s'; expected 'reduced', 'complete' or 'r'", mode);
    }
    return 2;
}

/* linalg_svd, _linalg_svd: U and Vh column-major (full: m x m and n x n,
 * else m x k and k x n; empty when compute_uv is false), S real [..., k];
 * svd (some, compute_uv): V = Vh^H, row-major; linalg_svdvals: S */
int meta_op_svd(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor a;
    const char *nm = c->s->name;
    bool legacy = !strcmp(nm, "aten.svd.default"), vals = !strcmp(nm, "aten.linalg_svdvals.default");
    int r = in_matrices(c, legacy ? "self" : "A", &a, false);
    if (r != 1) return r == -1 ? -1 : 0;
    eir_mdim k, m = a.sizes[a.rank - 2], n = a.sizes[a.rank - 1];
    bool tall;
    if (!min_dim(c, &a, &k, &tall)) return 0;
    if (vals) {
        batch_of(c, &o[0], &a, real_of(a.dtype), &k, 1);
        return 1;
    }
    if (max < 3) return 0;
    bool full = legacy ? !meta_in_bool(c, "some", true)
                       : meta_in_bool(c, "full_matrices", strcmp(nm, "aten._linalg_svd.default") != 0);
    bool uv = meta_in_bool(c, "compute_uv", true);
    if (legacy && !uv) return 0; /* zero-filled U and V of torch's own layouts: not inferred */
    batch_of(c, &o[1], &a, real_of(a.dtype), &k, 1);
    if (!uv) {
        empty_1d(c, &o[0], a.dtype);
        empty_1d(c, &o[2], a.dtype);
        return 3;
    }
    matrix_like(c, &o[0], &a, m, full ? m : k, true);
    if (legacy) matrix_like(c, &o[2], &a, n, full ? n : k, false);
    else matrix_like(c, &o[2], &a, full ? n : k, n, true);
    return 3;
}

/* ---- losses: the broadcast elementwise loss (reduction 'none', 0) or a
 * 0-d mean or sum, in the operands' common dtype ---- */

static const char *const N_LOSS[] = {"self", "target"};
int meta_op_pointwise_loss(mctx *c, eir_mtensor *o, uint32_t max) {
    int64_t red = 1;
    if (meta_arg(c, "reduction") && !meta_in_int(c, "reduction", &red)) return 0;
    int r = meta_pointwise(c, o, N_LOSS, 2, PW_SAME);
    if (r <= 0) return r;
    if (red < 0 || red > 2) return meta_fail(c, "argument 'reduction' is %lld; expected 0 (none), 1 (mean) or 2 (sum)",
                                             (long long)red);
    if (red == 0) return 1;
    o->rank = 0;
    o->offset = D(0);
    return 1;
}

/* ---- window functions: [window_length], float32 unless dtype says ---- */

int meta_op_window(mctx *c, eir_mtensor *o, uint32_t max) {
    memset(o, 0, sizeof *o);
    const eir_arg *a = meta_arg(c, "window_length");
    if (!a || !meta_symint_arg(c, a, &o->sizes[0])) return 0;
    int64_t v;
    if (meta_dval(c, o->sizes[0], &v) && v < 0)
        return meta_fail(c, "argument 'window_length' is %lld; expected a length >= 0", (long long)v);
    o->rank = 1;
    o->sizes_known = true;
    o->dtype = meta_in_dtype(c, "dtype");
    if (o->dtype == EIR_DTYPE_UNKNOWN) o->dtype = EIR_F32;
    meta_set_contiguous(c, o);
    return 1;
}

/* nll_loss_forward, nll_loss2d_forward (+ the 0-d total weight), nll_loss,
 * nll_loss2d, nll_loss_nd, cross_entropy_loss: with reduction 'none' (0) a
 * loss per target, self's sizes without the class dim 1 (0-d for a 1-d
 * self), else 0-d; self's dtype, contiguous */
int meta_op_nll_loss(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t red = 1;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (meta_arg(c, "reduction") && !meta_in_int(c, "reduction", &red)) return 0;
    if (red < 0 || red > 2)
        return meta_fail(c, "argument 'reduction' is %lld; expected 0 (none), 1 (mean) or 2 (sum)", (long long)red);
    if (x.rank < 1) return meta_fail(c, "'self' is 0-d; expected (N, C, ...) or (C) scores");
    bool forward = strstr(c->s->name, "_forward.") != NULL;
    if (forward && max < 2) return 0;
    memset(o, 0, sizeof *o);
    o->dtype = x.dtype;
    o->sizes_known = true;
    if (red == 0 && x.rank >= 2) {
        o->rank = x.rank - 1;
        o->sizes[0] = x.sizes[0];
        for (uint32_t i = 2; i < x.rank; i++) o->sizes[i - 1] = x.sizes[i];
    }
    meta_set_contiguous(c, o);
    if (!forward) return 1;
    memset(&o[1], 0, sizeof o[1]);
    o[1].dtype = x.dtype;
    o[1].sizes_known = true;
    meta_set_contiguous(c, &o[1]);
    return 2;
}

/* linalg_vector_norm: a reduction to the real dtype of self (or dtype) */
int meta_op_vector_norm(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    int r = meta_reduction(c, o, RED_SAME, "dim");
    if (r <= 0) return r;
    eir_dtype dt = meta_in_dtype(c, "dtype");
    o->dtype = dt != EIR_DTYPE_UNKNOWN ? real_of(dt) : real_of(x.dtype);
    return 1;
}

/* glu: dim halved; the halves' layout (TensorIterator over the two views) */
int meta_op_glu(mctx *c, eir_mtensor *o, uint32_t max) {
    eir_mtensor x;
    int64_t dim = -1;
    uint32_t d;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (meta_arg(c, "dim") && !meta_in_int(c, "dim", &dim)) return 0;
    if (x.rank == 0) return meta_fail(c, "'self' is 0-d; glu expects a dim to halve");
    if (!meta_wrap_dim(c, dim, x.rank, "argument 'dim'", &d)) return -1;
    int64_t n;
    if (meta_dval(c, x.sizes[d], &n) && n % 2 && x.sizes[d].kind == EIR_MDIM_INT)
        return meta_fail(c, "'self' has size %lld in dim %u; glu halves it, expected an even size", (long long)n, d);
    x.sizes[d] = meta_dfloordiv(c, x.sizes[d], D(2));
    *o = x;
    meta_ti_layout(c, &x, 1, o);
    return 1;
}
