/* meta_tail_la.c — the long tail's meta functions for numerics:
 * histograms, norms and reductions, losses, linear algebra (solve, LU,
 * LDL, eig, pinv, householder products, triangular and factored solves,
 * einsum, _trilinear, _chunk_cat), FFT front ends and stft, resampling,
 * shuffles and unpooling, the batch-norm variants and recurrent layers.
 * The helpers are meta_tail.h's and meta.c's; the table in meta_tail.c
 * lists these functions. */
#include <stdint.h>
#include <string.h>

#include "meta_tail.h"

#define FN(name) int name(mctx *c, eir_mtensor *o, uint32_t max)

static const char *const N_SELF_OTHER[] = {"self", "other"};

/* ---- histograms ---- */

/* histc: [bins] in self's dtype */
FN(meta_tail_histc) {
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
FN(meta_tail_bincount) {
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
FN(meta_tail_histogram) {
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

FN(meta_tail_histogramdd) {
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
FN(meta_tail_trace) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank != 2) return meta_fail(c, "'self' has rank %u; trace expects a matrix", x.rank);
    return scalar_out(c, o, meta_dt_cat(x.dtype) <= 1 ? EIR_I64 : x.dtype);
}

/* norms reducing over "dim" (all dims when absent), in the real dtype */
FN(meta_tail_norm_dim) { return meta_reduction(c, o, RED_FLOAT, "dim"); }

/* nuclear_norm without dim: over the last two dims */
FN(meta_tail_nuclear_norm) {
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
FN(meta_tail_linalg_norm) {
    int r = meta_reduction(c, o, RED_FLOAT, "dim");
    eir_dtype dt = meta_in_dtype(c, "dtype");
    if (r > 0 && dt != EIR_DTYPE_UNKNOWN) o->dtype = real_of(dt);
    return r;
}

/* linalg_matrix_norm: over the two dims of dim (schema default: the last two) */
FN(meta_tail_matrix_norm) {
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
FN(meta_tail_linalg_cond) {
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
FN(meta_tail_dist) {
    eir_mtensor t;
    int r = meta_pointwise(c, &t, N_SELF_OTHER, 2, PW_SAME);
    if (r <= 0) return r;
    return scalar_out(c, o, real_of(t.dtype));
}

/* quantile / nanquantile: over dim (or the flattened self); a 1-d q adds a
 * leading dim */
FN(meta_tail_quantile) {
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
FN(meta_tail_trapezoid) {
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
FN(meta_tail_diff) {
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

/* two operands broadcast, then argument 'dim' reduced (contiguous) */
static int broadcast_drop_dim(mctx *c, eir_mtensor *o, const char *const names[2]) {
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

/* cosine_similarity: x1 and x2 broadcast, dim reduced */
FN(meta_tail_cosine_similarity) {
    static const char *const names[] = {"x1", "x2"};
    return broadcast_drop_dim(c, o, names);
}

/* pairwise_distance: x1 and x2 broadcast, the last dim reduced */
FN(meta_tail_pairwise_distance) {
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
FN(meta_tail_loss) { return loss_pointwise(c, o, meta_arg(c, "self") ? N_LOSS : N_INPUT_TARGET, 2, PW_SAME); }
/* a float margin joins the promotion */
FN(meta_tail_margin_ranking_loss) { return loss_pointwise(c, o, N_RANKING, 3, PW_FLOAT); }

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

FN(meta_tail_cosine_embedding_loss) { return loss_per_row(c, o, "input1", false); }
FN(meta_tail_triplet_margin_loss) { return loss_per_row(c, o, "anchor", false); }
FN(meta_tail_multi_margin_loss) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank > 2) return meta_fail(c, "'self' has rank %u; multi_margin_loss expects (N, C) or (C)", x.rank);
    return loss_per_row(c, o, "self", true);
}

/* multilabel_margin_loss (+ _forward: is_target, target's shape in self's dtype) */
FN(meta_tail_multilabel_margin_loss) {
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
FN(meta_tail_addmv) {
    eir_mtensor m, v;
    if (meta_in_tensor(c, "mat", &m) != 1 || meta_in_tensor(c, "vec", &v) != 1) return 0;
    if (m.rank != 2 || v.rank != 1)
        return meta_fail(c, "'mat' has rank %u and 'vec' rank %u; addmv expects a matrix and a vector", m.rank, v.rank);
    if (meta_check_same(c, m.sizes[1], v.sizes[0], "the sizes of 'mat' (dim 1) and 'vec'") < 0) return -1;
    contig(c, o, m.dtype, m.sizes, 1);
    return 1;
}

FN(meta_tail_addr) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "vec1", &a) != 1 || meta_in_tensor(c, "vec2", &b) != 1) return 0;
    if (a.rank != 1 || b.rank != 1)
        return meta_fail(c, "'vec1' has rank %u and 'vec2' rank %u; addr expects two vectors", a.rank, b.rank);
    eir_mdim sz[2] = {a.sizes[0], b.sizes[0]};
    contig(c, o, meta_promote(a.dtype, b.dtype), sz, 2);
    return 1;
}

FN(meta_tail_addbmm) {
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
FN(meta_tail_inner) {
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
FN(meta_tail_kron) {
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
FN(meta_tail_tensordot) {
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
FN(meta_tail_multi_dot) {
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
FN(meta_tail_vecdot) {
    static const char *const names[] = {"x", "y"};
    return broadcast_drop_dim(c, o, names);
}

/* cross / linalg_cross: self and other broadcast, contiguous */
FN(meta_tail_cross) {
    int r = meta_pointwise(c, o, N_SELF_OTHER, 2, PW_SAME);
    if (r > 0) meta_set_contiguous(c, o);
    return r;
}

/* bilinear: [batch..., out_features] */
FN(meta_tail_bilinear) {
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
FN(meta_tail_matrix_power) {
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
FN(meta_tail_linalg_solve) { return solve_common(c, o, max, 0); }
FN(meta_tail_linalg_solve_ex) { return solve_common(c, o, max, 1); }
FN(meta_tail__linalg_solve_ex) { return solve_common(c, o, max, 2); }

/* linalg_lu_factor(_ex), _lu_with_info: LU column-major, int32 pivots
 * [..., min(m, n)], int32 info per matrix */
FN(meta_tail_lu_factor) {
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
FN(meta_tail_linalg_lu) {
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
FN(meta_tail_linalg_eig) {
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
FN(meta_tail_householder) {
    eir_mtensor a;
    int r = in_matrix(c, meta_arg(c, "input") ? "input" : "self", &a, false);
    if (r <= 0) return r;
    batch_tensor(c, o, &a, a.rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    return 1;
}

/* ormqr: input3's shape, column-major */
FN(meta_tail_ormqr) {
    eir_mtensor a, cm;
    int r = in_matrix(c, "self", &a, false);
    if (r <= 0) return r;
    if ((r = in_matrix(c, "input3", &cm, false)) <= 0) return r;
    batch_tensor(c, o, &cm, cm.rank - 2, cm.dtype, &cm.sizes[cm.rank - 2], 2, true);
    return 1;
}

/* geqrf: the packed factors column-major, tau [..., min(m, n)] */
FN(meta_tail_geqrf) {
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
FN(meta_tail_pinv) {
    eir_mtensor a;
    int r = in_matrix(c, meta_arg(c, "input") ? "input" : "self", &a, false);
    if (r <= 0) return r;
    eir_mdim nm[2] = {a.sizes[a.rank - 1], a.sizes[a.rank - 2]};
    batch_tensor(c, o, &a, a.rank - 2, a.dtype, nm, 2, false);
    return 1;
}

/* linalg_matrix_rank: int64 per matrix */
FN(meta_tail_matrix_rank) {
    eir_mtensor a;
    int r = in_matrix(c, meta_arg(c, "input") ? "input" : "self", &a, false);
    if (r <= 0) return r;
    batch_tensor(c, o, &a, a.rank - 2, EIR_I64, NULL, 0, false);
    return 1;
}

/* linalg_vander: [..., n, N] (N defaults to n) */
FN(meta_tail_vander) {
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

FN(meta_tail_fft) {
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
FN(meta_tail_stft) {
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
FN(meta_tail_upsample) {
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
FN(meta_tail_pixel_shuffle) {
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
FN(meta_tail_channel_shuffle) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    if (x.rank < 3) return meta_fail(c, "'self' has rank %u; channel_shuffle expects (N, C, *)", x.rank);
    *o = x;
    if (meta_strides_like_cl(c, &x)) meta_set_channels_last(c, o);
    else meta_set_contiguous(c, o);
    return 1;
}

/* im2col: (N, C * kh * kw, number of blocks) */
FN(meta_tail_im2col) {
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
FN(meta_tail_max_unpool) {
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
FN(meta_tail_affine_grid) {
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
FN(meta_tail_native_batch_norm) {
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
FN(meta_tail_bn_legit_functional) {
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
FN(meta_tail_bn_update) {
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
FN(meta_tail_instance_norm) {
    eir_mtensor x;
    if (meta_in_tensor(c, "input", &x) != 1) return 0;
    *o = x;
    meta_set_contiguous(c, o);
    return 1;
}

/* rms_norm: pointwise over input, in input's dtype */
FN(meta_tail_rms_norm) {
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
FN(meta_tail_rnn) {
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
FN(meta_tail_rnn_cell) {
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
FN(meta_tail_cholesky_solve) { return solve_like(c, o, "input2", "self", true); }
/* linalg_lu_solve(LU, pivots, B): column-major for left, else row-major */
FN(meta_tail_lu_solve) { return solve_like(c, o, "LU", "B", meta_in_bool(c, "left", true)); }
/* lu_solve(self = B, LU_data, LU_pivots) */
FN(meta_tail_lu_solve_legacy) { return solve_like(c, o, "LU_data", "self", true); }
/* linalg_ldl_solve(LD, pivots, B) */
FN(meta_tail_ldl_solve) { return solve_like(c, o, "LD", "B", true); }

/* linalg_solve_triangular(self = A, B): the right-hand sides' shape,
 * column-major (left or not) */
FN(meta_tail_solve_triangular) { return solve_like(c, o, "self", "B", true); }

/* triangular_solve(self = B, A): the solution and a copy of A, both
 * column-major with the batch dims broadcast */
FN(meta_tail_triangular_solve) {
    if (max < 2) return 0;
    int r = solve_like(c, &o[0], "A", "self", true);
    if (r <= 0) return r;
    eir_mtensor a;
    if (meta_in_tensor(c, "A", &a) != 1) return 0;
    batch_tensor(c, &o[1], &o[0], o[0].rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    return 2;
}

/* cholesky_inverse: [..., n, n] column-major */
FN(meta_tail_cholesky_inverse) {
    eir_mtensor a;
    int r = in_matrix(c, "self", &a, true);
    if (r <= 0) return r;
    batch_tensor(c, o, &a, a.rank - 2, a.dtype, &a.sizes[a.rank - 2], 2, true);
    return 1;
}

/* lu_unpack: P [m, m], L [m, k], U [k, n] (empty when not unpacked) */
FN(meta_tail_lu_unpack) {
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
FN(meta_tail_ldl_factor) {
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
FN(meta_tail_tensorinv) {
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
FN(meta_tail_tensorsolve) {
    eir_mtensor a, b;
    if (meta_in_tensor(c, "self", &a) != 1 || meta_in_tensor(c, "other", &b) != 1 || meta_arg(c, "dims")) return 0;
    if (b.rank > a.rank) return meta_fail(c, "'other' has rank %u, more than 'self' (%u)", b.rank, a.rank);
    blank(o, meta_promote(a.dtype, b.dtype), a.rank - b.rank);
    for (uint32_t i = b.rank; i < a.rank; i++) o->sizes[i - b.rank] = a.sizes[i];
    no_strides(o);
    return 1;
}

/* msort: the values of a sort along dim 0 */
FN(meta_tail_msort) {
    eir_mtensor x;
    if (meta_in_tensor(c, "self", &x) != 1) return 0;
    *o = x;
    meta_like_preserve(c, &x, o);
    return 1;
}

/* einsum: the output subscripts' sizes (the letters seen once, sorted,
 * without '->'); the operands' common dtype; strides not inferred (the
 * contraction's permutes decide them) */
FN(meta_tail_einsum) {
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
FN(meta_tail_chunk_cat) {
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


/* _trilinear: i1, i2, i3 unsqueezed at their expand dims and broadcast,
 * the sumdim dims summed away; contiguous */
FN(meta_tail_trilinear) {
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
