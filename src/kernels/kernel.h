/* kernel.h — what a CPU kernel sees: tensor views, decoded arguments, a
 * context for errors. Kernels never see IR nodes or strings of the program;
 * the runtime decodes a node's arguments once, in schema order with defaults
 * filled, and allocates every output with the dtype, sizes and strides that
 * the program recorded for it (torch's own meta results).
 *
 * Contract of a kernel:
 *   int k(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx)
 *   - args[i] is the i-th schema argument of the op overload (e.g. for
 *     aten.add.Tensor: self, other, alpha), defaults already applied;
 *   - out[j] is the j-th returned tensor, already allocated; the kernel writes
 *     every element of it (respecting its strides, which may be anything the
 *     program recorded, e.g. channels-last);
 *   - returns 0, or -1 after eir_kerr(ctx, ...) for an error torch would raise
 *     at run time (index out of range, ...). Never aborts, never allocates
 *     memory that outlives the call. */
#ifndef EIR_KERNEL_H
#define EIR_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eir.h"  /* EIR_MAX_RANK, eir_dtype */

typedef struct eir_tview {
    void *data;                     /* address of element [0, ..., 0] */
    eir_dtype dtype;
    int32_t rank;
    int64_t sizes[EIR_MAX_RANK];
    int64_t strides[EIR_MAX_RANK];  /* in elements; 0 for broadcast dims */
} eir_tview;

/* A torch Scalar: Python int, float, bool or complex. */
typedef enum eir_scalar_kind { EIR_SC_INT, EIR_SC_FLOAT, EIR_SC_BOOL, EIR_SC_COMPLEX } eir_scalar_kind;
typedef struct eir_scalar {
    eir_scalar_kind kind;
    int64_t i;                      /* INT, BOOL */
    double f, im;                   /* FLOAT, COMPLEX (also set for INT/BOOL: f = i) */
} eir_scalar;

typedef enum eir_karg_kind {
    EIR_KA_NONE,     /* an optional argument that is None */
    EIR_KA_TENSOR,   /* t */
    EIR_KA_TENSORS,  /* ts[0..n), entries NULL for None (Tensor?[]) */
    EIR_KA_INT,      /* i (also SymInt) */
    EIR_KA_INTS,     /* ints[0..n) */
    EIR_KA_FLOAT,    /* f */
    EIR_KA_FLOATS,   /* floats[0..n) */
    EIR_KA_BOOL,     /* i: 0/1 */
    EIR_KA_BOOLS,    /* ints[0..n): 0/1 */
    EIR_KA_SCALAR,   /* s */
    EIR_KA_DTYPE,    /* i: eir_dtype */
    EIR_KA_STRING,   /* str */
    EIR_KA_OTHER,    /* layout / memory format / device / generator: i is the schema enum code */
} eir_karg_kind;

typedef struct eir_karg {
    eir_karg_kind kind;
    uint32_t n;
    int64_t i;
    double f;
    eir_scalar s;                   /* filled for INT, FLOAT, BOOL and SCALAR */
    const char *str;
    const int64_t *ints;
    const double *floats;
    const eir_tview *t;
    const eir_tview *const *ts;
} eir_karg;

typedef struct eir_kctx {
    char *err;
    size_t errlen;
    int nthreads;                   /* threads the kernel may use (>= 1): the run's pool,
                                     * eir_pool_current() (base/pool.h) */
    uint64_t *rng;                  /* random ops: the runtime's generator state (see random.c) */
} eir_kctx;

typedef int (*eir_kernel_fn)(const eir_karg *args, uint32_t nargs, eir_tview *out, uint32_t nout, eir_kctx *ctx);

/* One row of a kernel table: an op overload ("aten.add.Tensor") and its kernel. */
typedef struct eir_kernel_entry {
    const char *op;
    eir_kernel_fn fn;
} eir_kernel_entry;

/* Format an error into ctx; returns -1. */
int eir_kerr(eir_kctx *ctx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
