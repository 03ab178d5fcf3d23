/* optable.h — ATen operator schemas (generated from the installed torch by
 * scripts/gen_ops.py): argument names, types, defaults and flags per
 * overload. The runtime decodes node arguments against them; eir info uses
 * the Core ATen flag. */
#ifndef EIR_OPTABLE_H
#define EIR_OPTABLE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum eir_schema_type {
    EIR_ST_TENSOR, EIR_ST_OPT_TENSOR, EIR_ST_TENSORS, EIR_ST_OPT_TENSORS,
    EIR_ST_INT, EIR_ST_OPT_INT, EIR_ST_INTS, EIR_ST_OPT_INTS,
    EIR_ST_FLOAT, EIR_ST_OPT_FLOAT, EIR_ST_FLOATS, EIR_ST_OPT_FLOATS,
    EIR_ST_BOOL, EIR_ST_OPT_BOOL, EIR_ST_BOOLS,
    EIR_ST_SCALAR, EIR_ST_OPT_SCALAR, EIR_ST_STR, EIR_ST_OPT_STR, EIR_ST_STRS,
    EIR_ST_DTYPE, EIR_ST_LAYOUT, EIR_ST_MEMFMT, EIR_ST_DEVICE, EIR_ST_OPT_DEVICE,
    EIR_ST_GENERATOR, EIR_ST_OTHER,
} eir_schema_type;

typedef struct eir_schema_arg {
    const char *name;
    eir_schema_type type;
    bool kwarg_only;
    const char *def;             /* default as torch prints it ("None", "1", "[]", "contiguous_format"), or NULL */
} eir_schema_arg;

enum {
    EIR_OPF_CORE = 1,            /* torch.Tag.core */
    EIR_OPF_VIEW = 2,            /* returns an alias of an input (may be a copy for to/reshape/contiguous) */
    EIR_OPF_INPLACE = 4,         /* writes its first argument and returns it */
    EIR_OPF_OUT = 8,             /* an out= variant */
    EIR_OPF_RANDOM = 16,         /* nondeterministic_seeded */
    EIR_OPF_DECOMP = 32,         /* not core, and torch.export.default_decompositions() has it:
                                    ep.run_decompositions() rewrites it (into Core ATen ops, or
                                    for a few into other non-core ops such as aten._linalg_svd) */
    EIR_OPF_FUNCTIONAL = 64,     /* in place, and functionalization (the first step of
                                    ep.run_decompositions()) rewrites it into its functional form,
                                    eir_op_inplace_functional() */
};

typedef struct eir_op_schema {
    const char *name;            /* "aten.add.Tensor" */
    const eir_schema_arg *args;
    uint32_t nargs, nreturns;
    uint32_t flags;
} eir_op_schema;

typedef struct eir_op_mutates { const char *name; uint64_t args; } eir_op_mutates;

/* The schema of an overload by name, with or without "torch.ops.", or NULL. */
const eir_op_schema *eir_op_find(const char *name);
/* Bit i set: the op writes argument i in place (Tensor(a!) in its schema),
 * for arguments other than self and out= (batch norm's running stats). */
uint64_t eir_op_mutates_args(const eir_op_schema *op);
/* For an out= overload (EIR_OPF_OUT) whose trailing kwarg-only Tensor
 * arguments are its outputs: the functional overload taking exactly the
 * other arguments (aten.atan2.out -> aten.atan2.default), and the number of
 * out arguments in *nouts. NULL when there is none (factories with extra
 * dtype/device arguments, list outputs). */
const eir_op_schema *eir_op_functional(const eir_op_schema *out_op, uint32_t *nouts);
/* For an in-place overload with EIR_OPF_FUNCTIONAL: the functional one
 * functionalization rewrites it into (aten.sigmoid_.default ->
 * aten.sigmoid.default); NULL otherwise. */
const eir_op_schema *eir_op_inplace_functional(const eir_op_schema *op);
/* Number of overloads in the table, and overload i (sorted by name), or NULL. */
uint32_t eir_op_count(void);
const eir_op_schema *eir_op_at(uint32_t i);

/* ---- the Backend dialect's operators (backend_ops.c) ----
 * eir_cpu::attention, conv2d and linear, "eir_cpu.conv2d.default", found by
 * eir_op_find too (they are not in eir_op_at's table). schema_text receives
 * the operator's schema in torch's syntax. */
const eir_op_schema *eir_backend_op_find(const char *name);
uint32_t eir_backend_op_count(void);
const eir_op_schema *eir_backend_op_at(uint32_t i, const char **schema_text);
/* The epilogue an `activation` argument names: EIR_ACT_NONE .. EIR_ACT_HARDSWISH, or -1. */
enum { EIR_ACT_NONE, EIR_ACT_RELU, EIR_ACT_HARDTANH, EIR_ACT_SILU, EIR_ACT_HARDSWISH };
int eir_backend_activation(const char *name);

#endif
