/* view.h — the geometry of ops that return a view of their input, computed
 * from the op's arguments as torch's meta functions compute it (never taken
 * from metadata a program records), and torch's run-time rule for the ops that
 * return a view only when they can (reshape, flatten, contiguous, to, ...).
 *
 * Geometry is in elements of each view's own dtype: sizes, strides and the
 * storage offset. The caller turns offsets into addresses and checks them
 * against the storage (see src/runtime/runtime.c). */
#ifndef EIR_KERNELS_VIEW_H
#define EIR_KERNELS_VIEW_H

#include "kernel.h"

typedef enum eir_view_result {
    EIR_VIEW_ERROR = -1,    /* torch would raise: the message is in err */
    EIR_VIEW_ALIAS = 0,     /* outs/offs describe views of args[0]'s storage */
    EIR_VIEW_COPY = 1,      /* torch returns a new tensor: outs[0].sizes is its shape (the data must be copied) */
} eir_view_result;

/* Is `op` ("aten.select.int") an op whose result eir_view_compute describes:
 * a view, or a copy only when a view is impossible? */
bool eir_view_op(const char *op);
/* Does `op` return a view only when it can (reshape, flatten, contiguous, to, type_as, ...)? */
bool eir_view_may_copy(const char *op);

/* The outputs of view op `op` applied to args[0] (whose storage offset is
 * src_off), in schema order with defaults filled. nout is the number of
 * outputs the program has for the node (split and unbind return lists); a
 * different count is an error. outs[k].data is left NULL. */
eir_view_result eir_view_compute(const char *op, const eir_karg *args, uint32_t nargs, int64_t src_off, eir_tview *outs,
                                 int64_t *offs, uint32_t nout, char *err, size_t errlen);

/* torch's TensorImpl::is_contiguous(memory_format) (c10/core/Contiguity.h):
 * EIR_MF_CONTIGUOUS / PRESERVE / UNKNOWN read the contiguous flag. */
bool eir_view_is_contiguous(const eir_tview *t, int64_t memory_format);

/* at::detail::computeStride: the strides of `newsizes` viewing a tensor of
 * sizes/strides without copying; false when no such strides exist. */
bool eir_view_strides(const int64_t *sizes, const int64_t *strides, int32_t rank, const int64_t *newsizes, int32_t newrank,
                      int64_t *newstrides);

#endif
