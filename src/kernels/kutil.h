/* kutil.h — helpers every kernel family shares: element loads and stores in
 * any dtype, f16/bf16 conversion, an N-d strided iterator with
 * broadcasting, and torch's type promotion. */
#ifndef EIR_KUTIL_H
#define EIR_KUTIL_H

#include <math.h>
#include <string.h>

#include "kernel.h"

/* ---- f16 / bf16 (round to nearest even, NaN preserved) ---- */
float eir_f16_to_f32(uint16_t h);
uint16_t eir_f32_to_f16(float f);
static inline float eir_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t eir_f32_to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* torch's C++ ScalarType names as its error messages print them ("Float", "Long"). */
const char *eir_torch_dtype_name(eir_dtype d);

/* torch's Scalar::to<T>() (c10::checked_convert) of a scalar s into dtype dt: -1 with torch's
 * "value cannot be converted to type T without overflow" where the value lies outside T's range
 * (a finite float beyond a floating type's largest value too; infinities and NaN pass for
 * floating types; uint8 takes -255..255, wrapping as torch does), else 0. bool, complex and the
 * other dtypes: 0. eir_scalar_arg_fits does the same for a Scalar argument (0 for a tensor). */
int eir_scalar_fits(const eir_scalar *s, eir_dtype dt, eir_kctx *ctx);
int eir_scalar_arg_fits(const eir_karg *a, eir_dtype dt, eir_kctx *ctx);
/* The same for the value of a one-element tensor (masked_fill's and index_fill's 0-dim value:
 * torch takes value.item() and converts it checked); 0 for other tensors. */
int eir_item_fits(const eir_tview *t, eir_dtype dt, eir_kctx *ctx);

/* ---- dtype classes ---- */
static inline bool eir_is_floating(eir_dtype d) {
    return d == EIR_F16 || d == EIR_F32 || d == EIR_F64 || d == EIR_BF16 || (d >= EIR_F8E4M3FN && d <= EIR_F8E8M0FNU);
}
static inline bool eir_is_complex(eir_dtype d) { return d == EIR_C32 || d == EIR_C64 || d == EIR_C128; }
static inline bool eir_is_integral(eir_dtype d, bool include_bool) {
    return d == EIR_U8 || d == EIR_I8 || d == EIR_I16 || d == EIR_I32 || d == EIR_I64 || d == EIR_U16 ||
           d == EIR_U32 || d == EIR_U64 || (include_bool && d == EIR_BOOL);
}

/* ---- generic element access (slow path; specialize hot loops) ---- */
/* Value as double (complex: real part). */
double eir_load_f64(const void *p, eir_dtype d);
/* Value as int64 (floats truncate toward zero like a C cast; bool 0/1). */
int64_t eir_load_i64(const void *p, eir_dtype d);
/* Complex value (real dtypes: imaginary 0). */
void eir_load_c128(const void *p, eir_dtype d, double *re, double *im);
/* Store with torch's conversion rules: to bool is != 0; float to int truncates. */
void eir_store_f64(void *p, eir_dtype d, double v);
void eir_store_i64(void *p, eir_dtype d, int64_t v);
void eir_store_c128(void *p, eir_dtype d, double re, double im);

/* v rounded to dtype d: what storing it and loading it back gives (float
 * for float32, 16 bits for float16/bfloat16, unchanged for float64). */
static inline double eir_round_f64(double v, eir_dtype d) {
    if (d == EIR_F64) return v;
    if (d == EIR_F32) return (float)v;
    unsigned char tmp[16];
    eir_store_f64(tmp, d, v);
    return eir_load_f64(tmp, d);
}

/* ---- views ---- */
int64_t eir_tview_numel(const eir_tview *t);
bool eir_tview_is_contiguous(const eir_tview *t);
/* A view of t broadcast to (rank, sizes): dims aligned right, size-1 dims get
 * stride 0. false if the shapes do not broadcast. */
bool eir_tview_broadcast(const eir_tview *t, int32_t rank, const int64_t *sizes, eir_tview *out);
static inline size_t eir_elsize(eir_dtype d) { return eir_dtype_size(d); }
/* Element offsets of every element of the dims mask selects (mask[d] for
 * d < t->rank), in row-major order of those dims; *n is their count. From
 * eir_kalloc: the caller eir_kfree's it. NULL on allocation failure. */
int64_t *eir_tview_offsets(const eir_tview *t, const bool *mask, int64_t *n);
/* t's sizes as torch prints them in messages ("[2, 3]"), into buf; returns buf. */
const char *eir_sizes_str(const eir_tview *t, char *buf, size_t n);
/* Address of the element at index idx[0..rank). */
static inline void *eir_tview_at(const eir_tview *t, const int64_t *idx) {
    int64_t off = 0;
    for (int32_t i = 0; i < t->rank; i++) off += idx[i] * t->strides[i];
    return (char *)t->data + off * (int64_t)eir_elsize(t->dtype);
}

/* ---- N-d iteration over up to 8 operands sharing one shape ----
 *
 *     eir_iter it;
 *     eir_iter_init(&it, out->rank, out->sizes, n, views);   // views already broadcast to out's shape
 *     char *p[8];
 *     int64_t len;
 *     while (eir_iter_next(&it, p, &len))                     // one innermost run at a time
 *         for (int64_t k = 0; k < len; k++) { ... p[j] + k * it.inner_stride[j] ... }
 *
 * inner_stride is in bytes. Zero-size shapes yield nothing; rank 0 yields one
 * run of length 1. */
#define EIR_ITER_MAX_OPS 8
typedef struct eir_iter {
    int32_t rank, nops;
    int64_t sizes[EIR_MAX_RANK];
    int64_t bstrides[EIR_ITER_MAX_OPS][EIR_MAX_RANK]; /* bytes */
    char *base[EIR_ITER_MAX_OPS];
    int64_t idx[EIR_MAX_RANK];
    int64_t inner_stride[EIR_ITER_MAX_OPS];
    bool done;
} eir_iter;
void eir_iter_init(eir_iter *it, int32_t rank, const int64_t *sizes, int32_t nops, const eir_tview *const *ops);
bool eir_iter_next(eir_iter *it, char **ptrs, int64_t *len);

/* ---- type promotion (torch.result_type) ---- */
eir_dtype eir_promote_types(eir_dtype a, eir_dtype b);
/* result_type over tensor / scalar arguments (EIR_KA_TENSOR, EIR_KA_SCALAR,
 * EIR_KA_INT, EIR_KA_FLOAT, EIR_KA_BOOL); 0-dim tensors and scalars take part
 * only when they are of a higher category, as in torch. */
eir_dtype eir_result_type(const eir_karg *const *args, int n);

/* Normalize a possibly negative dim for rank (rank 0 accepts -1 and 0);
 * returns -1 if out of range. */
int32_t eir_wrap_dim(int64_t dim, int32_t rank);

/* ---- kernels one family lends another ----
 * Batch norm with batch statistics (misc.c), for reduce.c's batch_norm and
 * native_batch_norm in training mode: normalizes x over every dim but 1,
 * writes the new running statistics into rm/rv in place when they are given
 * (momentum, unbiased variance), and save_mean/save_invstd when given. */
int eir_batch_norm_training(eir_kctx *ctx, const char *op, const eir_tview *x, const eir_tview *w, const eir_tview *b,
                            const eir_tview *rm, const eir_tview *rv, double momentum, double eps, eir_tview *y,
                            eir_tview *save_mean, eir_tview *save_invstd);

/* The kernel of op in one family's table (tables.h), or NULL: for kernels
 * that are compositions of other families' kernels (cross_entropy_loss
 * runs _log_softmax's, instance_norm batch norm's). */
eir_kernel_fn eir_kernel_in(const eir_kernel_entry *table, const char *op);

/* Vector norm of order p (0, +-inf, any real) over the dims in mask, for
 * real and complex x, computed in double and stored in out's dtype; out has
 * the reduced shape (size-1 dims when keepdim). torch's errors for inf and
 * negative orders over empty dims. (linalg.c) */
int eir_vector_norm(eir_kctx *ctx, const char *api, const eir_tview *x, double p, const bool *mask, bool keepdim, eir_tview *out);

/* torch's calc_i0 (Cephes, Math.h) in float and double, as its CPU kernels
 * run it (special.c) */
float eir_calc_i0_f(float x);
double eir_calc_i0_d(double x);

/* random.c: a uniform draw in [0, 1) from the runtime's generator (ctx->rng
 * must be set), and aten.dropout in training mode (torch's _dropout_impl) */
double eir_rand_unit(eir_kctx *ctx);
int eir_dropout_train(const eir_karg *a, uint32_t n, eir_tview *out, eir_kctx *ctx);

/* ---- kernel scratch ----
 * Workspace a kernel needs during one call (im2col columns, offset lists,
 * sort keys). eir_kfree keeps the block in a small per-thread cache and
 * eir_kalloc reuses a cached block that is large enough, so a run with the
 * same shapes as the one before takes no memory from the heap. NULL on out
 * of memory; eir_kfree(NULL) does nothing. eir_kscratch_release frees the
 * calling thread's cache. */
void *eir_kalloc(size_t bytes);
void *eir_kcalloc(size_t n, size_t elem);
void eir_kfree(void *p);
void eir_kscratch_release(void);

/* ---- kernels of eir's own that need AVX-512F (wgemm.c, nngemm.c) ----
 * Whether such a kernel runs by default: the environment variable env "0" no, "1" yes (where
 * the CPU has AVX-512F), otherwise on Intel CPUs with AVX-512F, where they were measured.
 * *cpu_ok: whether the CPU has AVX-512F (always false off x86-64). Callers read it once. */
bool eir_avx512_kernel_default(const char *env, bool *cpu_ok);

/* OpenBLAS on one thread, for the whole process, once (nn.c; the first
 * runtime created calls it): threads are the runtime's to give
 * (eir_runtime_set_threads), which cuts large products into blocks for them,
 * and OpenBLAS's own threads would change the results' last bits with the
 * machine's core count. */
void eir_blas_single_thread(void);

#endif
