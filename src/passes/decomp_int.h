/* decomp_int.h — what the files of the to-core pass share (decomp.c the
 * driver and table, decomp_build.c the node builders, decomp_nn.c and
 * decomp_tensor.c the rules): the rewriting context, argument readers and
 * builders, tensor metadata helpers, and the rules' entry points. Private to
 * src/passes/decomp*.c. */
#ifndef EIR_DECOMP_INT_H
#define EIR_DECOMP_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../ir/program.h"
#include "../ops/optable.h"
#include "decomp.h"

#define MAXR 16     /* ranks handled; higher ones are refused */
#define POOL 512    /* list items of the arguments of one new node */

typedef struct tm {
    eir_tensor_meta m;
    eir_symint sz[MAXR], st[MAXR];
} tm;

/* In-place writes to graph inputs (buffers, user inputs) become mutation
 * outputs: per input, the name of the value that holds its latest version
 * (names, since value ids shift when nodes are erased). */
typedef struct mutation {
    const char *input;           /* the placeholder */
    const char *latest;          /* its newest value */
    eir_output_kind kind;        /* BUFFER_MUTATION or USER_INPUT_MUTATION */
    const char *target;          /* buffer FQN, or the user input's name */
} mutation;

typedef struct mut_state {
    mutation m[64];
    uint32_t n;
} mut_state;

/* torch's numbering of the unbacked symbols the rules create
 * (dc_new_unbacked): run_decompositions() traces the converted graph twice
 * with one counter, so the symbols the second trace allocates, the ones its
 * graph keeps, start `total` past the first free index */
#define RETRACE_NAMES 10
typedef struct unbacked_plan {
    uint32_t base;               /* the first free index (eir_program_unbacked_base) */
    uint32_t total;              /* the symbols one trace of the converted graph binds */
    uint32_t planned;            /* new ones the checking round counted (dc_plan_unbacked) */
    uint32_t next_name[RETRACE_NAMES]; /* decomp_retrace_names */
} unbacked_plan;

typedef struct dc {
    eir_program *p;
    eir_graph *g;
    uint32_t pos;                /* where the next new node goes */
    uint32_t node;               /* index of the node being decomposed */
    eir_node src;                /* a copy of it (the node array may move) */
    const char *op;              /* its target without "torch.ops." */
    bool dry;                    /* check only */
    bool kept;                   /* the rule rewrote the node in place */
    const eir_tensor_meta *pwm;  /* metadata of the steps of a pointwise chain */
    mut_state *muts;             /* the root graph's input mutations */
    uint32_t size_src;           /* a tensor whose sizes views may read (sym_size) */
    unbacked_plan *unb;          /* numbering of new unbacked symbols */
    eir_arg pool[POOL];
    uint32_t npool;
} dc;

static inline bool is_none(const eir_arg *a) {
    return !a || a->kind == EIR_ARG_NONE || (a->kind == EIR_ARG_OPTIONAL_TENSOR && a->value == EIR_NO_VALUE);
}

static inline const eir_tensor_meta *meta_of(const dc *c, uint32_t v) { return &c->g->values[v].meta; }

static inline bool int_of(const eir_arg *a, int64_t *out) {
    if (!a) return false;
    if (a->kind == EIR_ARG_INT || (a->kind == EIR_ARG_SYM_INT && a->literal)) { *out = a->u.i; return true; }
    if (a->kind == EIR_ARG_BOOL) { *out = a->u.b; return true; }
    return false;
}

/* ---- building arguments ---- */

static inline eir_arg a_tensor(uint32_t v) {
    eir_arg a = {0};
    a.kind = EIR_ARG_TENSOR;
    a.value = v;
    return a;
}

static inline eir_arg a_opt_tensor(uint32_t v) {
    eir_arg a = {0};
    if (v == EIR_NO_VALUE) { a.kind = EIR_ARG_NONE; a.value = EIR_NO_VALUE; return a; }
    a.kind = EIR_ARG_TENSOR;
    a.value = v;
    return a;
}

static inline eir_arg a_int(int64_t i) {
    eir_arg a = {0};
    a.kind = EIR_ARG_INT;
    a.u.i = i;
    return a;
}

static inline eir_arg a_float(double f) {
    eir_arg a = {0};
    a.kind = EIR_ARG_FLOAT;
    a.u.f = f;
    return a;
}

static inline eir_arg a_bool(bool b) {
    eir_arg a = {0};
    a.kind = EIR_ARG_BOOL;
    a.u.b = b;
    return a;
}

static inline eir_arg a_none(void) {
    eir_arg a = {0};
    a.kind = EIR_ARG_NONE;
    a.value = EIR_NO_VALUE;
    return a;
}

static inline eir_arg a_kind(eir_arg_kind k, int64_t i) {
    eir_arg a = {0};
    a.kind = k;
    a.u.i = i;
    return a;
}

static inline eir_named_arg pos_arg(const char *name, eir_arg a) {
    eir_named_arg n = {name, a, 1};
    return n;
}

static inline eir_named_arg kw_arg(const char *name, eir_arg a) {
    eir_named_arg n = {name, a, 2};
    return n;
}

/* ---- tensor metadata ---- */

static inline eir_symint si(int64_t v) {
    eir_symint s = {0};
    s.value = v;
    return s;
}

static inline bool si_eq(eir_symint a, eir_symint b) {
    if (a.is_expr != b.is_expr) return false;
    return a.is_expr ? a.expr == b.expr : a.value == b.value;
}

/* The decomposed node's single tensor output. */
static inline uint32_t out_value(const dc *c) {
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSOR) return EIR_NO_VALUE;
    uint32_t v = c->src.outputs[0].value;
    return v < c->g->num_values ? v : EIR_NO_VALUE;
}

/* Uses of the decomposed node's output move to v; so does an input
 * mutation whose latest version it was (a functional node made from an
 * in-place one, then decomposed itself). */
static inline eir_status finish(dc *c, uint32_t from, uint32_t to) {
    for (uint32_t i = 0; c->muts && i < c->muts->n; i++)
        if (!strcmp(c->muts->m[i].latest, c->g->values[from].name)) c->muts->m[i].latest = c->g->values[to].name;
    return eir_graph_replace_uses(c->p, c->g, from, to, NULL);
}

typedef eir_status (*rule_fn)(dc *c);

static inline int64_t wrap_dim(int64_t d, uint32_t rank) {
    int64_t r = rank ? rank : 1;
    return d < 0 ? d + r : d;
}

typedef eir_status (*rule_fn)(dc *c);

/* ---- decomp_build.c: reading arguments, building nodes ---- */

eir_status dc_refuse(dc *c, const char *fmt, ...) EIR_PRINTF(2, 3);
const eir_arg *dc_arg_named(const dc *c, const char *name);
uint32_t dc_tensor_of(const dc *c, const char *name);
bool dc_ints_of(const eir_arg *a, int64_t *out, uint32_t max, uint32_t *n);
bool dc_bool_arg(const dc *c, const char *name, bool def, bool *out);
bool dc_float_arg(const dc *c, const char *name, double def, double *out);
eir_arg dc_a_ints(dc *c, const int64_t *v, uint32_t n);
void dc_tm_from(tm *t, const eir_tensor_meta *m);
bool dc_tm_contig(tm *t);
bool dc_meta_concrete_sizes(const eir_tensor_meta *m);
bool dc_meta_contiguous(const eir_tensor_meta *m);
bool dc_meta_same_geometry(const eir_tensor_meta *a, const eir_tensor_meta *b);
eir_status dc_emit_n(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, uint32_t nout,
                     const eir_tensor_meta *const *ms, const char *hint, bool list_out, uint32_t *vals);
eir_status dc_emit(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, const eir_tensor_meta *m,
                   const char *hint, uint32_t *val);
eir_status dc_need_io(dc *c, const char *self_name, uint32_t *self, uint32_t *out);
/* The product of sizes sz[0..n) as one size: concrete, or a sympy Mul of a
 * constant and plain symbols (interned in the program's expression table;
 * in a dry run only checked). False for other symbolic factors. */
bool dc_sym_product(dc *c, const eir_symint *sz, uint32_t n, eir_symint *out);
bool dc_can_view(const dc *c, const eir_tensor_meta *xm);
/* contiguous strides, concrete or symbolic (products of the sizes) */
bool dc_contiguous(const dc *c, const eir_tensor_meta *m);
eir_status dc_emit_reshape(dc *c, uint32_t x, const eir_tensor_meta *m, const char *hint, uint32_t *res);
eir_status dc_emit_t(dc *c, uint32_t w, uint32_t *res);
eir_status dc_emit_permute(dc *c, uint32_t x, const int64_t *perm, uint32_t rank, const eir_tensor_meta *m,
                           uint32_t *res);
eir_status dc_emit_pw(dc *c, const char *target, uint32_t a, eir_arg other, const char *other_name,
                      const char *hint, uint32_t *res);
eir_status dc_emit_to_copy(dc *c, uint32_t x, const eir_tensor_meta *m, uint32_t *res);
eir_status dc_emit_batched_mm(dc *c, uint32_t a, uint32_t b, const eir_tensor_meta *om, uint32_t *out_res);
void dc_tm_new(tm *t, const eir_tensor_meta *like, eir_dtype dt, const int64_t *sz, uint32_t n);
void dc_tm_permute(tm *t, const eir_tensor_meta *m, const int64_t *perm);
eir_arg dc_a_device(const eir_tensor_meta *m);
void dc_tm_pointwise(tm *t, const eir_tensor_meta *m);
/* The metadata TensorIterator gives the result of a broadcasting binary op
 * on a and b (concrete sizes and strides; a's dtype). */
void dc_tm_binary(tm *t, const eir_tensor_meta *a, const eir_tensor_meta *b);
eir_status dc_emit_scalar_mul(dc *c, uint32_t x, double f, const eir_tensor_meta *m, uint32_t *res);
/* New unbacked symbols: in the checking round a rule counts the ones it
 * will create (dc_plan_unbacked); when rewriting, dc_new_unbacked makes
 * one with the range r (symbol field ignored), named as torch's retrace
 * names it: u<base + total + k>, k the symbols the nodes before c->pos
 * bind. dc_emit_local_scalar emits _local_scalar_dense(x) at c->pos, its
 * SymInt a new unbounded unbacked symbol (torch's .item()). */
void dc_plan_unbacked(dc *c, uint32_t n);
eir_status dc_new_unbacked(dc *c, const eir_range *r, eir_symint *out);
eir_status dc_emit_local_scalar(dc *c, uint32_t x, uint32_t *val);

/* ---- rules (decomp_nn.c, decomp_tensor.c) ---- */

eir_status decomp_linear(dc *c);
eir_status decomp_conv(dc *c);
eir_status decomp_batch_norm(dc *c);
eir_status decomp_layer_norm(dc *c);
eir_status decomp_dropout(dc *c);
eir_status decomp_dropout_inplace(dc *c);
eir_status decomp_max_pool(dc *c);
eir_status decomp_adaptive_avg_pool(dc *c);
eir_status decomp_sdpa(dc *c);
eir_status decomp_group_norm(dc *c);
eir_status decomp_pad(dc *c);
eir_status decomp_softmax(dc *c);
eir_status decomp_lstm(dc *c);

eir_status decomp_sum(dc *c);
eir_status decomp_transpose(dc *c);
eir_status decomp_to(dc *c);
eir_status decomp_contiguous(dc *c);
eir_status decomp_reshape(dc *c);
eir_status decomp_fill(dc *c);
eir_status decomp_activation(dc *c);
eir_status decomp_matmul(dc *c);
eir_status decomp_split(dc *c);
eir_status decomp_rename(dc *c);
eir_status decomp_item(dc *c);
eir_status decomp_real_imag(dc *c);
eir_status decomp_squeeze(dc *c);
eir_status decomp_repeat_interleave(dc *c);
eir_status decomp_rsub(dc *c);
eir_status decomp_lift_detach(dc *c);

eir_status decomp_einsum(dc *c);
eir_status decomp_rms_norm(dc *c);
eir_status decomp_pointwise_loss(dc *c);
eir_status decomp_broadcast_tensors(dc *c);
eir_status decomp_msort(dc *c);
eir_status decomp_mT(dc *c);

/* ---- pointwise, activations, reductions, losses (decomp_pointwise.c,
 * decomp_loss.c) ---- */

/* A chain of pointwise nodes: the first failure sticks in st, later steps
 * do nothing; nv0 tells the chain's own values from older ones. */
typedef struct pb {
    dc *c;
    eir_status st;
    uint32_t nv0;
    const eir_tensor_meta *like;  /* device of new tensors */
} pb;

eir_status dc_pw_check_concrete(dc *c);
void dc_pb_init(pb *b, dc *c, uint32_t like);
uint32_t dc_pb_emit_m(pb *b, const char *target, eir_dtype dt, uint32_t n, const eir_named_arg *ins,
                      const eir_tensor_meta *m);
uint32_t dc_pb_emit(pb *b, const char *target, eir_dtype dt, uint32_t n, const eir_named_arg *ins);
uint32_t dc_pb_u(pb *b, const char *target, eir_dtype dt, uint32_t x);
uint32_t dc_pb_b(pb *b, const char *target, eir_dtype dt, eir_arg self, eir_arg other);
uint32_t dc_pb_where(pb *b, eir_dtype dt, uint32_t cond, uint32_t x, uint32_t y);
uint32_t dc_pb_scalar(pb *b, eir_arg v, eir_dtype dt);
eir_status dc_pb_finish(pb *b, uint32_t out, uint32_t res);

eir_status decomp_pw_unary(dc *c);
eir_status decomp_pw_binary(dc *c);
eir_status decomp_float_power(dc *c);
eir_status decomp_pw_chain(dc *c);
eir_status decomp_pw_chain2(dc *c);
eir_status decomp_glu(dc *c);
eir_status decomp_prelu(dc *c);
eir_status decomp_logsumexp(dc *c);
eir_status decomp_nan_reduce(dc *c);
eir_status decomp_var_std(dc *c);
eir_status decomp_all(dc *c);
eir_status decomp_aminmax(dc *c);
eir_status decomp_mvlgamma(dc *c);
eir_status decomp_renorm(dc *c);
eir_status decomp_safe_softmax(dc *c);
eir_status decomp_rrelu(dc *c);
eir_status decomp_loss_pointwise(dc *c);
eir_status decomp_distance(dc *c);
eir_status decomp_cosine_similarity(dc *c);
eir_status decomp_nll_ce(dc *c);
eir_status decomp_cosine_embedding(dc *c);
eir_status decomp_multi_margin(dc *c);

/* ---- end of pointwise, activations, reductions, losses ---- */
/* ---- shapes, views, factories, indexing, linear algebra
 * (decomp_shape.c, decomp_linalg.c) ---- */

/* new nodes whose outputs' metadata eir's shape inference gives (`last`,
 * when given, is the single output's instead) */
eir_status sh_emit_n(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, uint32_t nout, bool list_out,
                     const eir_tensor_meta *last, uint32_t *vals);
eir_status sh_emit(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, const eir_tensor_meta *last,
                   uint32_t *res);
eir_arg sh_a_tensors(dc *c, const uint32_t *v, uint32_t n);
eir_arg sh_a_mf_contig(void);
bool sh_tensor_list(dc *c, const char *name, uint32_t *v, uint32_t *n);
eir_status sh_clone(dc *c, uint32_t x, const eir_tensor_meta *last, uint32_t *res);
eir_status sh_unsqueeze(dc *c, uint32_t x, int64_t d, const eir_tensor_meta *last, uint32_t *res);
eir_status sh_view(dc *c, uint32_t x, const int64_t *sz, uint32_t n, const eir_tensor_meta *last, uint32_t *res);
eir_status sh_reshape(dc *c, uint32_t x, const int64_t *sz, uint32_t n, const eir_tensor_meta *last, uint32_t *res);
eir_status sh_permute(dc *c, uint32_t x, const int64_t *perm, uint32_t n, const eir_tensor_meta *last, uint32_t *res);
eir_status sh_slice(dc *c, uint32_t x, int64_t d, int64_t s, int64_t e, uint32_t *res);
eir_status sh_binary(dc *c, const char *target, uint32_t a, eir_arg b, const eir_tensor_meta *last, uint32_t *res);
eir_status sh_sum(dc *c, uint32_t x, const int64_t *dims, uint32_t n, const eir_tensor_meta *last, uint32_t *res);
eir_status sh_arange(dc *c, int64_t start, int64_t end, eir_dtype dt, const eir_tensor_meta *like, uint32_t *res);
eir_status sh_zero_scalar(dc *c, const eir_tensor_meta *like, uint32_t *res);
eir_status sh_eye(dc *c, int64_t n, int64_t m, eir_dtype dt, const eir_tensor_meta *like, const eir_tensor_meta *last,
                  uint32_t *res);

eir_status decomp_squeeze_all(dc *c);
eir_status decomp_view_copy(dc *c);
eir_status decomp_atleast(dc *c);
eir_status decomp_stack(dc *c);
eir_status decomp_unbind(dc *c);
eir_status decomp_chunk(dc *c);
eir_status decomp_tensor_split(dc *c);
eir_status decomp_narrow(dc *c);
eir_status decomp_movedim(dc *c);
eir_status decomp_ravel(dc *c);
eir_status decomp_flip(dc *c);
eir_status decomp_roll(dc *c);
eir_status decomp_tile(dc *c);
eir_status decomp_expand_as(dc *c);
eir_status decomp_tril(dc *c);
eir_status decomp_meshgrid(dc *c);
eir_status decomp_cartesian_prod(dc *c);
eir_status decomp_kron(dc *c);
eir_status decomp_eye(dc *c);
eir_status decomp_empty(dc *c);
eir_status decomp_zero(dc *c);
eir_status decomp_fill_tensor(dc *c);
eir_status decomp_resolve(dc *c);
eir_status decomp_shuffle(dc *c);
eir_status decomp_diff(dc *c);
eir_status decomp_take(dc *c);
eir_status decomp_index_fill(dc *c);
eir_status decomp_sum_to_size(dc *c);
eir_status decomp_max_pool1d(dc *c);
eir_status decomp_linspace(dc *c);
eir_status decomp_block_diag(dc *c);
eir_status decomp_take_along_dim(dc *c);
eir_status decomp_trapezoid(dc *c);
eir_status decomp_logdet(dc *c);
eir_status decomp_native_bn(dc *c);
eir_status decomp_chunk_cat(dc *c);
eir_status decomp_instance_norm(dc *c);
eir_status decomp_upsample_nearest(dc *c);

eir_status decomp_outer(dc *c);
eir_status decomp_dot(dc *c);
eir_status decomp_tensordot(dc *c);
eir_status decomp_addr(dc *c);
eir_status decomp_baddbmm(dc *c);
eir_status decomp_diagonal(dc *c);
eir_status decomp_matrix_power(dc *c);
eir_status decomp_multi_dot(dc *c);
eir_status decomp_linalg_front(dc *c);

/* ---- end of shapes, views, factories, indexing, linear algebra ---- */
/* ---- FFT, upsampling, unpooling, distances, indexing (decomp_fft.c,
 * decomp_spatial.c) ---- */

eir_status decomp_fft(dc *c);
eir_status decomp_upsample_linear(dc *c);
eir_status decomp_upsample_bicubic(dc *c);
eir_status decomp_argsort(dc *c);
eir_status decomp_conj_physical(dc *c);
eir_status decomp_max_unpool(dc *c);
eir_status decomp_cdist(dc *c);
eir_status decomp_pdist(dc *c);
eir_status decomp_softmax_backward(dc *c);
eir_status decomp_vander(dc *c);
eir_status decomp_bilinear(dc *c);
eir_status decomp_isin(dc *c);
eir_status decomp_cross(dc *c);
eir_status decomp_diag_embed(dc *c);
eir_status decomp_argwhere(dc *c);
eir_status decomp_im2col(dc *c);
eir_status decomp_masked_index(dc *c);

/* ---- end of FFT, upsampling, unpooling, distances, indexing ---- */

/* ---- ranges, batch / instance norm forms, quantiles, linear algebra,
 * padding (decomp_misc.c) ---- */

eir_status decomp_linspace_tensor(dc *c);
eir_status decomp_dropout_backward(dc *c);
eir_status decomp_masked_index_put(dc *c);
eir_status decomp_quantile(dc *c);
eir_status decomp_svd(dc *c);
eir_status decomp_matrix_exp(dc *c);
eir_status decomp_resize_as(dc *c);
eir_status decomp_matrix_norm(dc *c);
eir_status decomp_cond(dc *c);
eir_status decomp_pinv_float(dc *c);
eir_status decomp_keep_front(dc *c);
/* unsqueeze(x, -2) of a rank-3 x has channels-last strides (torch's rule) */
bool decomp_unsqueezed_channels_last(const eir_tensor_meta *xm);
/* tensordot whose free dims all have size 1 (decomp_tensordot's operands
 * a, b, result out, contracted dims d1 / d2 of one length n) */
eir_status decomp_tensordot_single(dc *c, uint32_t a, uint32_t b, uint32_t out, const int64_t *d1, const int64_t *d2,
                                   uint32_t n);

/* ---- end of ranges, batch / instance norm forms, quantiles, linear
 * algebra, padding ---- */

/* ---- error checks through effect tokens (decomp_effects.c) ---- */

eir_status decomp_checked_linalg(dc *c);
eir_status decomp_print(dc *c);
eir_status decomp_bn_update(dc *c);

/* ---- random ops (decomp_random.c) ---- */

eir_status decomp_dropout_train(dc *c, uint32_t x, uint32_t out, double p);
eir_status decomp_bernoulli(dc *c);
eir_status decomp_normal_inplace(dc *c);
/* decomp_unbacked.c */
eir_status decomp_tensor_split_tensor(dc *c);
/* The suffixes torch's retrace numbers the runtime assertion nodes it
 * re-creates from (sym_size_int_<k>, ge_<k>, ...): past as many such names
 * as the root graph has (and, for ge, one more per .item() read, new or
 * not) */
void decomp_retrace_names(const eir_program *p, unbacked_plan *u);
/* decomp_extra.c */
eir_status decomp_histogramdd(dc *c);
eir_status decomp_multilabel_margin(dc *c);
eir_status decomp_embedding_bag(dc *c);
eir_status decomp_stft(dc *c);
eir_status decomp_nonzero_numpy(dc *c);
eir_status decomp_combinations(dc *c);
eir_status decomp_instance_norm_stats(dc *c);

/* ---- linalg_matrix_rank, gradient (decomp_rank.c) ---- */

eir_status decomp_matrix_rank(dc *c);
eir_status decomp_gradient(dc *c);

#endif
