/* meta_int.h — what src/ops/meta.c shares with the other files of the
 * meta functions (src/ops/meta_more.c): the inference context, dims,
 * layouts, dtype promotion, argument readers, the pointwise and reduction
 * builders, and the meta functions meta.c's table takes from them. Private
 * to src/ops/meta*.c. */
#ifndef EIR_META_INT_H
#define EIR_META_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "meta.h"
#include "optable.h"

#define MAXR EIR_META_MAX_RANK

typedef struct mctx {
    const eir_program *p;
    const eir_graph *g;
    const eir_node *nd;
    const eir_op_schema *s;
    eir_arena *a;
    char *err;
    size_t errlen;
} mctx;

/* ---- dims: integers, expressions, unknown ---- */

static inline eir_mdim D(int64_t v) { return (eir_mdim){EIR_MDIM_INT, v, NULL}; }
static const eir_mdim UNK = {EIR_MDIM_UNKNOWN, 0, NULL};
static inline bool known(eir_mdim d) { return d.kind != EIR_MDIM_UNKNOWN; }
static inline bool is_int(eir_mdim d, int64_t v) { return d.kind == EIR_MDIM_INT && d.c == v; }

/* an operand of type promotion: a tensor of some rank, or a wrapped Python number */
typedef struct operand {
    eir_mtensor t;
    bool wrapped;
} operand;

/* pointwise result kinds; reduction kinds */
enum { PW_SAME, PW_FLOAT, PW_BOOL, PW_TRUEDIV };
enum { RED_SAME, RED_SUM, RED_BOOL, RED_LONG, RED_FLOAT };

/* ---- helpers defined in meta.c ---- */

/* the flat list of a node's output values (each tensor of a Tensor[] on its
 * own; EIR_NO_VALUE for a None or a non-tensor), at most max; their number */
uint32_t meta_flat_outputs(const eir_node *nd, uint32_t *ids, uint32_t max);
const eir_arg *meta_arg(mctx *c, const char *name);
int meta_broadcast(mctx *c, const operand *ops, uint32_t n, eir_mtensor *out, const char *const *names);
int meta_check_same(mctx *c, eir_mdim x, eir_mdim y, const char *what);
eir_dtype meta_complex_value(eir_dtype z);
eir_mdim meta_dadd(mctx *c, eir_mdim x, eir_mdim y);
bool meta_deq(mctx *c, eir_mdim x, eir_mdim y);
eir_mdim meta_dfloordiv(mctx *c, eir_mdim x, eir_mdim y);
eir_mdim meta_dmul(mctx *c, eir_mdim x, eir_mdim y);
eir_mdim meta_dsub(mctx *c, eir_mdim x, eir_mdim y);
int meta_dt_cat(eir_dtype d);
bool meta_dval(mctx *c, eir_mdim d, int64_t *out);
int meta_fail(mctx *c, const char *fmt, ...) EIR_PRINTF(2, 3);
bool meta_in_bool(mctx *c, const char *name, bool def);
eir_dtype meta_in_dtype(mctx *c, const char *name);
bool meta_in_int(mctx *c, const char *name, int64_t *v);
int meta_in_ints(mctx *c, const char *name, eir_mdim *out, uint32_t max, uint32_t fill);
int meta_in_memfmt(mctx *c, const char *name);
int meta_in_tensor(mctx *c, const char *name, eir_mtensor *t);
bool meta_is_contiguous(mctx *c, const eir_mtensor *t);
void meta_like_preserve(mctx *c, const eir_mtensor *self, eir_mtensor *out);
int meta_pointwise(mctx *c, eir_mtensor *o, const char *const *names, uint32_t n, int kind);
eir_mdim meta_pool_size(mctx *c, eir_mdim in, eir_mdim k, eir_mdim s, eir_mdim p, eir_mdim d, bool ceil);
eir_dtype meta_promote(eir_dtype a, eir_dtype b);
int meta_reduction(mctx *c, eir_mtensor *o, int kind, const char *dim_name);
int meta_reshape_to(mctx *c, eir_mtensor *o, const eir_mtensor *self_in, const eir_mdim *sz, uint32_t n, bool copy_ok,
                    const char *what);
void meta_set_channels_last(mctx *c, eir_mtensor *t);
void meta_set_contiguous(mctx *c, eir_mtensor *t);
/* TensorIterator's output layout for inputs ins (broadcast to out's sizes) */
void meta_ti_layout(mctx *c, const eir_mtensor *ins, uint32_t n, eir_mtensor *out);
/* strides with dims in order (order[0] fastest), offset 0 */
void meta_set_strides_order(mctx *c, eir_mtensor *t, const uint32_t *order);
int meta_sizes_arg(mctx *c, const char *name, eir_mtensor *o);
bool meta_strides_like_cl(mctx *c, const eir_mtensor *t);
bool meta_symint_arg(mctx *c, const eir_arg *a, eir_mdim *out);
eir_dtype meta_to_complex(eir_dtype f);
bool meta_wrap_dim(mctx *c, int64_t d, uint32_t rank, const char *what, uint32_t *out);

/* ---- meta functions defined in meta_more.c (and clamp.Tensor's, in meta.c) ---- */

int meta_op_clamp_scalar(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_heaviside(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_float_power(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_addc(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_lerp(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_unary_float_x(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_unary_float_self(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_nonzero(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_masked_select(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_unique2(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_repeat_interleave_tensor(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_values_indices(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_cumminmax(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_logcumsumexp(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_var_mean(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_aminmax(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_empty_strided(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_zeros_long(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_eye(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_like_self(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_strided_self(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_contig_self(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_sort(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_repeat(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_avg_pool1d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_avg_pool3d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_max_pool1d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_max_pool3d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_max_pool1d_with_indices(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_max_pool3d_with_indices(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_adaptive_avg_pool1d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_adaptive_avg_pool3d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_adaptive_max_pool1d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_adaptive_max_pool2d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_adaptive_max_pool3d(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_pad_nd(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_upsample_vec(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_grid_sampler(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_col2im(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_batch_norm_legit(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_mv(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_dot(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_outer(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_cdist(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_pdist(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_fft_r2c(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_fft_c2r(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_fft_c2c(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_swapaxes(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_mT(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_expand_as(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_type_as(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_ravel(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_pool_backward(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_convolution_backward(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_embedding_dense_backward(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_native_group_norm_backward(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_native_layer_norm_backward(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_embedding_bag(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_atan2_out(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_resize(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_clamp_tensor(mctx *c, eir_mtensor *o, uint32_t max);

int meta_op_linalg_inv(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_linalg_inv_ex(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_inverse(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_linalg_cholesky_ex(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_matrix_exp(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_det(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_slogdet(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_eigh(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_qr(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_svd(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_pointwise_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_window(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_linalg_cholesky(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_cholesky(mctx *c, eir_mtensor *o, uint32_t max);

int meta_op_nll_loss(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_vector_norm(mctx *c, eir_mtensor *o, uint32_t max);
int meta_op_glu(mctx *c, eir_mtensor *o, uint32_t max);

/* ---- the long tail (src/ops/meta_tail.c): its own sorted table, searched
 * after meta.c's; meta.c lends it the other overloads' functions ---- */

typedef int (*meta_fn)(mctx *c, eir_mtensor *outs, uint32_t max);
meta_fn meta_tail_find(const char *name);
uint32_t meta_tail_count(void);
const char *meta_tail_name(uint32_t i);
int meta_delegate(mctx *c, const char *name, eir_mtensor *o, uint32_t max);
bool meta_tensor_of_value(mctx *c, uint32_t v, eir_mtensor *t);

#endif
