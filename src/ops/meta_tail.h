/* meta_tail.h — what the two files of the long tail's meta functions
 * (src/ops/meta_tail.c, src/ops/meta_tail_la.c) share: small helpers over
 * meta.c's (meta_int.h), and the functions of meta_tail_la.c that the table
 * in meta_tail.c lists. Private to src/ops/meta_tail*.c. */
#ifndef EIR_META_TAIL_H
#define EIR_META_TAIL_H

#include <stdio.h>
#include <string.h>

#include "meta_int.h"

/* ---- small helpers ---- */

static inline void blank(eir_mtensor *o, eir_dtype dt, uint32_t rank) {
    memset(o, 0, sizeof *o);
    o->dtype = dt;
    o->rank = rank;
    o->sizes_known = true;
    o->offset = D(0);
}

static inline void contig(mctx *c, eir_mtensor *o, eir_dtype dt, const eir_mdim *sz, uint32_t rank) {
    blank(o, dt, rank);
    for (uint32_t i = 0; i < rank; i++) o->sizes[i] = sz[i];
    meta_set_contiguous(c, o);
}

/* a 0-d tensor of dtype dt */
static inline int scalar_out(mctx *c, eir_mtensor *o, eir_dtype dt) {
    contig(c, o, dt, NULL, 0);
    return 1;
}

/* sizes all known, strides left unknown */
static inline void no_strides(eir_mtensor *o) {
    o->strides_known = false;
    for (uint32_t i = 0; i < o->rank; i++) o->strides[i] = UNK;
    o->offset = UNK;
}

static inline eir_dtype real_of(eir_dtype d) { return meta_dt_cat(d) == 3 ? meta_complex_value(d) : d; }

/* integers and bool become float32 (torch's default dtype) */
static inline eir_dtype float_of(eir_dtype d) { return meta_dt_cat(d) < 2 ? EIR_F32 : d; }

static inline int in_dim(mctx *c, const char *name, uint32_t rank, uint32_t *d) {
    int64_t v;
    if (!meta_in_int(c, name, &v)) return 0;
    char what[64];
    snprintf(what, sizeof what, "argument '%s'", name);
    return meta_wrap_dim(c, v, rank, what, d) ? 1 : -1;
}

static inline int in_reduction(mctx *c, int64_t *red) {
    *red = 1;
    if (meta_arg(c, "reduction") && !meta_in_int(c, "reduction", red)) return 0;
    if (*red < 0 || *red > 2)
        return meta_fail(c, "argument 'reduction' is %lld; expected 0 (none), 1 (mean) or 2 (sum)", (long long)*red);
    return 1;
}

/* the tensors of a Tensor[] argument, at most max; their number, or -1 */
static inline int in_tensor_list(mctx *c, const char *name, eir_mtensor *ts, uint32_t max) {
    const eir_arg *a = meta_arg(c, name);
    if (!a || a->kind != EIR_ARG_TENSORS || a->u.list.n > max) return -1;
    for (uint32_t k = 0; k < a->u.list.n; k++)
        if (!meta_tensor_of_value(c, a->u.list.items[k].value, &ts[k])) return -1;
    return (int)a->u.list.n;
}

static inline eir_mdim numel(mctx *c, const eir_mtensor *t) {
    eir_mdim n = D(1);
    for (uint32_t i = 0; i < t->rank; i++) n = meta_dmul(c, n, t->sizes[i]);
    return n;
}

static inline void drop_dim(eir_mtensor *t, uint32_t d) {
    for (uint32_t i = d; i + 1 < t->rank; i++) { t->sizes[i] = t->sizes[i + 1]; t->strides[i] = t->strides[i + 1]; }
    t->rank--;
}

/* unsqueeze as a view (torch's stride for the new dim) */
static inline void view_unsqueeze(mctx *c, eir_mtensor *t, uint32_t k) {
    for (uint32_t i = t->rank; i > k; i--) { t->sizes[i] = t->sizes[i - 1]; t->strides[i] = t->strides[i - 1]; }
    t->strides[k] = k >= t->rank ? D(1) : meta_dmul(c, t->sizes[k + 1], t->strides[k + 1]);
    t->sizes[k] = D(1);
    t->rank++;
}

static inline eir_dtype promote_all(const eir_mtensor *ts, int n) {
    eir_dtype dt = EIR_DTYPE_UNKNOWN;
    for (int k = 0; k < n; k++) dt = meta_promote(dt, ts[k].dtype);
    return dt;
}

/* ---- meta functions of src/ops/meta_tail_la.c ---- */

int meta_tail_histc(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_bincount(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_histogram(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_histogramdd(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_trace(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_norm_dim(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_nuclear_norm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_linalg_norm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_matrix_norm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_linalg_cond(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_dist(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_quantile(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_trapezoid(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_diff(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_cosine_similarity(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_pairwise_distance(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_margin_ranking_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_cosine_embedding_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_triplet_margin_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_multi_margin_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_multilabel_margin_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_addmv(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_addr(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_addbmm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_inner(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_kron(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_tensordot(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_multi_dot(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_vecdot(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_cross(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_bilinear(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_matrix_power(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_linalg_solve(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_linalg_solve_ex(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail__linalg_solve_ex(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_lu_factor(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_linalg_lu(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_linalg_eig(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_householder(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_ormqr(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_geqrf(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_pinv(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_matrix_rank(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_vander(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_fft(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_stft(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_upsample(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_pixel_shuffle(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_channel_shuffle(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_im2col(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_max_unpool(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_affine_grid(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_native_batch_norm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_bn_legit_functional(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_bn_update(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_instance_norm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_rms_norm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_rnn(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_rnn_cell(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_cholesky_solve(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_lu_solve(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_lu_solve_legacy(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_ldl_solve(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_solve_triangular(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_triangular_solve(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_cholesky_inverse(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_lu_unpack(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_ldl_factor(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_tensorinv(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_tensorsolve(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_msort(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_einsum(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_chunk_cat(mctx *c, eir_mtensor *o, uint32_t max);
int meta_tail_trilinear(mctx *c, eir_mtensor *o, uint32_t max);

#endif
