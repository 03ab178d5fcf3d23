/* meta.h — shape and dtype inference (meta functions): for a node and the
 * recorded metadata of its inputs, the dtype, sizes, strides and storage
 * offset of its outputs as torch 2.13's meta kernels give them, symbolic
 * sizes included; and the check of a node's recorded output metadata
 * against them (the verifier's `meta.*` rules, `eir verify --meta-report`).
 *
 * One meta function per ATen overload, in tables keyed by overload name
 * (src/ops/meta.c; the long tail's in src/ops/meta_tail.c). An overload
 * without one is not checked. */
#ifndef EIR_META_H
#define EIR_META_H

#include <stdbool.h>
#include <stdint.h>

#include "eir.h"
#include "../base/base.h"
#include "../ir/sym.h"

/* Tensors of higher rank are not inferred. */
#define EIR_META_MAX_RANK 16

/* A size, stride or offset: an integer, a symbolic expression (a tree in
 * the program's expression table or in the inference's scratch arena), or
 * unknown (inference could not say; never compared). */
typedef enum eir_mdim_kind { EIR_MDIM_INT, EIR_MDIM_SYM, EIR_MDIM_UNKNOWN } eir_mdim_kind;

typedef struct eir_mdim {
    eir_mdim_kind kind;
    int64_t c;                   /* EIR_MDIM_INT */
    const eir_sym_node *e;       /* EIR_MDIM_SYM */
} eir_mdim;

typedef struct eir_mtensor {
    eir_dtype dtype;             /* EIR_DTYPE_UNKNOWN: not inferred */
    uint32_t rank;
    bool sizes_known;            /* false: rank and sizes not inferred */
    bool strides_known;          /* false: strides and offset not inferred */
    eir_mdim sizes[EIR_META_MAX_RANK];
    eir_mdim strides[EIR_META_MAX_RANK];
    eir_mdim offset;
} eir_mtensor;

/* Whether the overload ("aten.add.Tensor", with or without "torch.ops." or
 * the Edge prefix) has a meta function. */
bool eir_meta_has(const char *target);

/* The overloads with a meta function: their number, and name i (sorted by
 * strcmp), or NULL. */
uint32_t eir_meta_count(void);
const char *eir_meta_name(uint32_t i);

/* The outcome of comparing one output of a node with its inference. */
typedef enum eir_meta_cmp { EIR_MCMP_AGREE, EIR_MCMP_DIFFER, EIR_MCMP_UNKNOWN } eir_meta_cmp;

typedef struct eir_meta_outcome {
    uint32_t output;             /* flat output index (a Tensor[] return counts each tensor) */
    const char *value;           /* the output value's name */
    eir_meta_cmp dtype, sizes, strides, offset;
    char recorded[256];          /* "f32[2, 3] strides [3, 1] offset 0" */
    char inferred[256];
} eir_meta_outcome;

/* Infer node nd of graph g (a graph of p) and compare with what the program
 * recorded (flags: EIR_META_*). Returns the number of outcomes written to outs (at most max),
 * 0 when the node's target has no meta function or the node is not one it
 * can infer (an argument form it does not know), or -1 when the node's
 * arguments contradict each other (shapes that do not broadcast, a dim out
 * of range): err then holds a message naming the argument and what was
 * expected. */
int eir_meta_check_node(const eir_program *p, const eir_graph *g, const eir_node *nd, uint32_t flags,
                        eir_meta_outcome *outs, uint32_t max, char *err, size_t errlen);

/* flags: dtypes are not compared (the node runs under autocast, which
 * casts its inputs: torch.autocast's wrap_with_autocast subgraphs) */
#define EIR_META_NO_DTYPE 1u
/* flags: strides and storage offsets are not compared (the program's are made
 * up: read from the text form, which does not show them) */
#define EIR_META_NO_LAYOUT 2u

/* The flags a node's subgraphs add for their nodes (wrap_with_autocast:
 * EIR_META_NO_DTYPE). */
uint32_t eir_meta_subgraph_flags(const eir_node *nd);

/* Infer the outputs of node nd into outs (at most max); the same returns.
 * Symbolic results are trees allocated in `scratch`. */
int eir_meta_infer_node(const eir_program *p, const eir_graph *g, const eir_node *nd, eir_arena *scratch,
                        eir_mtensor *outs, uint32_t max, char *err, size_t errlen);

/* Visit every node of p's graph and its subgraphs: `visit` gets the
 * subgraph path (NULL at the root), the node, whether it has a meta
 * function, and the outcomes of eir_meta_check_node (n = -1 with err on a
 * contradiction). */
typedef void (*eir_meta_visit)(void *ctx, const char *graph, const eir_node *nd, bool has_meta,
                               const eir_meta_outcome *outs, int n, const char *err);
void eir_meta_check_program(const eir_program *p, eir_meta_visit visit, void *ctx);

/* The id of an expression of p's table equal to e (the same tree, or the
 * same value at every trial point, as outputs are compared), or UINT32_MAX. */
uint32_t eir_meta_find_expr(const eir_program *p, const eir_sym_node *e);

#endif
