/* verify.h — the Export IR verifier (eir_program_verify in eir.h): the
 * report it builds, and the Edge dialect's operator facts it reads
 * (generated into edge_ops.inc by scripts/gen_edge.py). The rules are listed
 * in docs/IR.md. */
#ifndef EIR_VERIFY_H
#define EIR_VERIFY_H

#include "eir.h"
#include "../base/base.h"

/* One operator of ExecuTorch's edge.yaml: its tensor columns (arguments and
 * returns), the dtype set of each type alias (bit i: eir_dtype code i), and
 * the allowed rows: nrows * ncols alias indices (255: the column is not
 * constrained in that row). */
typedef struct eir_edge_op {
    const char *name;            /* "aten.add.Tensor" */
    uint32_t ncols;
    const char *const *cols;     /* "self", "other", "__ret_0", "values" */
    const int8_t *col_ret;       /* the output a column names, -1 for an argument */
    const uint64_t *alias;       /* dtype mask per alias */
    uint32_t nrows;
    const uint8_t *rows;
} eir_edge_op;

/* The edge.yaml entry of an ATen overload ("aten.add.Tensor"), or NULL. */
const eir_edge_op *eir_edge_op_find(const char *name);
/* Whether torch 2.13 tags the overload view_copy (aten.view_copy.default). */
bool eir_edge_is_view_copy(const char *name);

struct eir_verify_report {
    eir_arena arena;             /* every string of the violations */
    uint32_t n, cap;
    eir_violation *v;
    bool oom;
};

#endif
