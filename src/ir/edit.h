/* edit.h — the editing layer's internal entry points that other layers
 * use: the IR passes (listed in src/passes/passes.c), erasing several nodes
 * at once, and torch.fx's side-effect rule for a node. */
#ifndef EIR_EDIT_H
#define EIR_EDIT_H

#include "program.h"

/* The passes of src/ir/edit.c, as the pass table calls them. */
eir_status eir_ir_pass_dce(eir_program *p, uint32_t *changed);
eir_status eir_ir_pass_prune_state(eir_program *p, uint32_t *changed);
eir_status eir_ir_pass_cse(eir_program *p, uint32_t *changed);

/* Remove the nodes of g with erase[n] set (erase has g->num_nodes entries)
 * and the values they define, renumbering the rest. Refused, changing
 * nothing, when a remaining node, output or output spec names one of
 * those values. */
eir_status eir_graph_erase_nodes(eir_program *p, eir_graph *g, const bool *erase);

/* torch.fx.Node.is_impure for a call: a mutable schema, seeded randomness,
 * assertions and other side-effectful functions, effectful higher-order ops,
 * custom operators. */
bool eir_node_is_impure(const eir_node *nd);

/* An argument that names a value of its graph (a tensor, an optional
 * tensor, a custom object, a symbolic int/float/bool that is not a literal);
 * and the argument kinds that are lists of arguments. */
bool eir_arg_names_value(const eir_arg *a);
bool eir_arg_kind_is_list(eir_arg_kind k);

/* The k-th value a node defines (its outputs flattened, lists included), or
 * EIR_NO_VALUE. */
uint32_t eir_node_output_value(const eir_node *nd, uint32_t k);

#endif
