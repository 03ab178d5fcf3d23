/* custom_ops.c — an example library of custom-operator kernels for eir: the
 * `mylib` operators of the conformance zoo (python/zoo/zoo.py), built by the
 * Makefile as build/libeir_example_ops.so and loaded with
 *
 *     eir run --ops build/libeir_example_ops.so MODEL.pt2 ...
 *
 * A library like this exports eir_ops_init(), which defines each operator by
 * its qualified name and the schema torch has for it, with a kernel and, for
 * a data-dependent output size, a shape function (include/eir.h).
 *
 *   mylib::sin(Tensor x) -> Tensor                        elementwise sin
 *   mylib::custom_nonzero(Tensor x) -> Tensor              indices of the non-zero elements
 *   mylib::combine(Tensor x, Tensor[] others, ...)         arguments of every kind
 *   mylib::scale_(Tensor(a!) x, float f) -> ()             writes its argument in place
 *   mylib::log_sum(Tensor x) -> Tensor                     an op torch treats as effectful
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eir.h"

#define FAIL(c, ...) (snprintf((c)->err, (c)->errlen, __VA_ARGS__), 1)

/* offset in elements of the k-th element in row-major order (views in
 * calls always have strides) */
static int64_t offset_of(const eir_tensor_view *t, int64_t k) {
    int64_t off = 0;
    for (uint32_t d = t->rank; d-- > 0;) {
        off += (k % t->sizes[d]) * t->strides[d];
        k /= t->sizes[d];
    }
    return off;
}

static bool readable(eir_dtype dt) {
    return dt == EIR_F32 || dt == EIR_F64 || dt == EIR_I32 || dt == EIR_I64 || dt == EIR_BOOL || dt == EIR_U8;
}

static double get(const eir_tensor_view *t, int64_t off) {
    const char *p = t->data;
    switch (t->dtype) {
    case EIR_F32: return ((const float *)p)[off];
    case EIR_F64: return ((const double *)p)[off];
    case EIR_I32: return ((const int32_t *)p)[off];
    case EIR_I64: return (double)((const int64_t *)p)[off];
    default: return ((const uint8_t *)p)[off];
    }
}

/* store a float32 result as float32, float64 or bfloat16 (round to nearest even) */
static void put(const eir_tensor_view *t, int64_t off, float v) {
    if (t->dtype == EIR_F32) {
        ((float *)t->data)[off] = v;
    } else if (t->dtype == EIR_F64) {
        ((double *)t->data)[off] = v;
    } else {
        uint32_t u;
        memcpy(&u, &v, 4);
        u = isnan(v) ? (u | 0x400000u) : u + 0x7fffu + ((u >> 16) & 1u);
        ((uint16_t *)t->data)[off] = (uint16_t)(u >> 16);
    }
}

static bool same_shape(const eir_tensor_view *a, const eir_tensor_view *b) {
    if (a->rank != b->rank) return false;
    for (uint32_t d = 0; d < a->rank; d++)
        if (a->sizes[d] != b->sizes[d]) return false;
    return true;
}

/* ---- mylib::sin ---- */

static int sin_kernel(const eir_op_call *c) {
    const eir_tensor_view *x = c->args[0].tensor, *y = &c->outputs[0];
    if (x->dtype != EIR_F32 && x->dtype != EIR_F64) return FAIL(c, "mylib::sin: expected float32 or float64, got %s", eir_dtype_name(x->dtype));
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n; k++) {
        int64_t i = offset_of(x, k), o = offset_of(y, k);
        if (x->dtype == EIR_F32) ((float *)y->data)[o] = sinf(((const float *)x->data)[i]);
        else ((double *)y->data)[o] = sin(((const double *)x->data)[i]);
    }
    return 0;
}

/* ---- mylib::custom_nonzero ---- */

/* the row count depends on the data: read it */
static int nonzero_shape(const eir_op_call *c, eir_op_shape *out) {
    const eir_tensor_view *x = c->args[0].tensor;
    if (!readable(x->dtype)) return FAIL(c, "mylib::custom_nonzero: dtype %s is not supported", eir_dtype_name(x->dtype));
    int64_t count = 0;
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n; k++) count += get(x, offset_of(x, k)) != 0;
    out[0].sizes[0] = count;
    out[0].sizes[1] = x->rank;
    return 0;
}

static int nonzero_kernel(const eir_op_call *c) {
    const eir_tensor_view *x = c->args[0].tensor, *y = &c->outputs[0];
    if (y->dtype != EIR_I64 || y->rank != 2) return FAIL(c, "mylib::custom_nonzero: expected an int64 [n, rank] output");
    int64_t row = 0;
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n && row < y->sizes[0]; k++) {
        if (get(x, offset_of(x, k)) == 0) continue;
        for (int64_t d = x->rank, rem = k; d-- > 0; rem /= x->sizes[d])
            ((int64_t *)y->data)[row * y->strides[0] + d * y->strides[1]] = rem % x->sizes[d];
        row++;
    }
    return 0;
}

/* ---- mylib::combine ----
 * (Tensor x, Tensor[] others, Tensor? bias, int[] dims, float alpha=1.0, *, bool relu=False,
 *  str mode="sum", ScalarType? dtype=None, Scalar offset=0) -> (Tensor, Tensor)
 * y = alpha * (x + sum(others)) + bias, relu'd if asked; r = y summed (or averaged) over dims,
 * plus offset, in dtype */
enum { CX, COTHERS, CBIAS, CDIMS, CALPHA, CRELU, CMODE, CDTYPE, COFFSET };

static int combine_kernel(const eir_op_call *c) {
    const eir_op_arg *a = c->args;
    const eir_tensor_view *x = a[CX].tensor, *y = &c->outputs[0], *r = &c->outputs[1];
    if (x->dtype != EIR_F32 || y->dtype != EIR_F32) return FAIL(c, "mylib::combine: expected float32 tensors");
    for (uint32_t i = 0; i < a[COTHERS].n; i++)
        if (!same_shape(a[COTHERS].tensors[i], x) || a[COTHERS].tensors[i]->dtype != EIR_F32)
            return FAIL(c, "mylib::combine: others[%u] must be a float32 tensor shaped like x", i);
    const eir_tensor_view *bias = a[CBIAS].kind == EIR_OP_TENSOR ? a[CBIAS].tensor : NULL;
    if (bias && (!same_shape(bias, x) || bias->dtype != EIR_F32))
        return FAIL(c, "mylib::combine: bias must be a float32 tensor shaped like x");
    bool mean = !strcmp(a[CMODE].s, "mean");
    if (!mean && strcmp(a[CMODE].s, "sum")) return FAIL(c, "mylib::combine: mode must be \"sum\" or \"mean\", got \"%s\"", a[CMODE].s);
    if (r->dtype != EIR_F32 && r->dtype != EIR_F64 && r->dtype != EIR_BF16)
        return FAIL(c, "mylib::combine: dtype must be float32, float64 or bfloat16, got %s", eir_dtype_name(r->dtype));
    bool reduced[EIR_MAX_RANK] = {false};
    int64_t count = 1;
    for (uint32_t i = 0; i < a[CDIMS].n; i++) {
        int64_t d = a[CDIMS].ints[i] < 0 ? a[CDIMS].ints[i] + x->rank : a[CDIMS].ints[i];
        if (d < 0 || d >= x->rank) return FAIL(c, "mylib::combine: dim %lld out of range", (long long)a[CDIMS].ints[i]);
        if (!reduced[d]) count *= x->sizes[d];
        reduced[d] = true;
    }
    double offset = a[COFFSET].kind == EIR_OP_FLOAT ? a[COFFSET].f : (double)a[COFFSET].i;
    int64_t nr = eir_tensor_numel(r);
    double *acc = calloc((size_t)(nr ? nr : 1), sizeof *acc);
    if (!acc) return FAIL(c, "mylib::combine: out of memory");
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n; k++) {
        float v = ((const float *)x->data)[offset_of(x, k)];
        for (uint32_t i = 0; i < a[COTHERS].n; i++) {
            const eir_tensor_view *o = a[COTHERS].tensors[i];
            v += ((const float *)o->data)[offset_of(o, k)];
        }
        v *= (float)a[CALPHA].f;
        if (bias) v += ((const float *)bias->data)[offset_of(bias, k)];
        if (a[CRELU].b && v < 0) v = 0;
        ((float *)y->data)[offset_of(y, k)] = v;
        /* the row-major index of k among the kept dims */
        int64_t ri = 0, scale = 1;
        for (int64_t d = x->rank, rem = k; d-- > 0; rem /= x->sizes[d])
            if (!reduced[d]) { ri += (rem % x->sizes[d]) * scale; scale *= x->sizes[d]; }
        acc[ri] += v;
    }
    /* torch computes r in float32, then converts it to dtype */
    for (int64_t q = 0; q < nr; q++) put(r, offset_of(r, q), (float)(mean ? acc[q] / (double)count : acc[q]) + (float)offset);
    free(acc);
    return 0;
}

/* ---- mylib::scale_ ---- */

static int scale_kernel(const eir_op_call *c) {
    const eir_tensor_view *x = c->args[0].tensor;   /* Tensor(a!): the real storage */
    if (x->dtype != EIR_F32) return FAIL(c, "mylib::scale_: expected float32, got %s", eir_dtype_name(x->dtype));
    float f = (float)c->args[1].f;
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n; k++) ((float *)x->data)[offset_of(x, k)] *= f;
    return 0;
}

/* ---- mylib::log_sum ---- */

static int log_sum_kernel(const eir_op_call *c) {
    const eir_tensor_view *x = c->args[0].tensor, *y = &c->outputs[0];
    if (x->dtype != EIR_F32 || y->dtype != EIR_F32) return FAIL(c, "mylib::log_sum: expected float32");
    float s = 0;
    for (int64_t k = 0, n = eir_tensor_numel(x); k < n; k++) s += ((const float *)x->data)[offset_of(x, k)];
    *(float *)y->data = s;
    return 0;
}

eir_status eir_ops_init(eir_library *lib) {
    static const struct {
        const char *name, *schema;
        eir_op_shape_fn shape;
        eir_op_kernel kernel;
    } ops[] = {
        {"mylib::sin", "(Tensor x) -> Tensor", NULL, sin_kernel},
        {"mylib::custom_nonzero", "(Tensor x) -> Tensor", nonzero_shape, nonzero_kernel},
        {"mylib::combine",
         "(Tensor x, Tensor[] others, Tensor? bias, int[] dims, float alpha=1.0, *, bool relu=False, "
         "str mode=\"sum\", ScalarType? dtype=None, Scalar offset=0) -> (Tensor, Tensor)",
         NULL, combine_kernel},
        {"mylib::scale_", "(Tensor(a!) x, float f) -> ()", NULL, scale_kernel},
        {"mylib::log_sum", "(Tensor x) -> Tensor", NULL, log_sum_kernel},
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        eir_status st = eir_library_define(lib, ops[i].name, ops[i].schema, ops[i].shape, ops[i].kernel, NULL);
        if (st != EIR_OK) return st;
    }
    return EIR_OK;
}
