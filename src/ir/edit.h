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

/* Move node `from` to position `to` (to <= from: earlier; the nodes in
 * between move down one). Refused, changing nothing, when an argument of
 * the node is not defined before `to`. Value indices stay. */
eir_status eir_graph_move_node(eir_program *p, eir_graph *g, uint32_t from, uint32_t to);

/* eir_program_add_state, with data NULL allowed: *data_out (when given)
 * is the new tensor's own storage, zeroed when data is NULL, for the caller
 * to fill before anything reads it (a pass writing a folded weight there
 * saves a second buffer of its size). */
eir_status eir_program_add_state_buf(eir_program *p, eir_input_kind kind, const char *fqn, eir_dtype dtype,
                                     uint32_t rank, const int64_t *sizes, const void *data, bool persistent,
                                     uint32_t *value_out, void **data_out);

/* Unbacked integer symbols (u0, u1, ... : data-dependent sizes and
 * values), numbered as torch numbers them.
 *
 * The first free index: one past the highest N of a symbol uN that a range
 * constraint or an expression of p names (torch's deserializer starts its
 * counter of unbacked symbols past the range constraints' uN the same way). */
uint32_t eir_program_unbacked_base(const eir_program *p);

/* How many unbacked symbols g's nodes [0, end) bind: symbols uN that a
 * node's outputs (sizes, strides, storage offset; SymInt / SymBool values)
 * name first, not named by a graph input or an earlier node. Each is one
 * symbol torch's fake tensors allocate when they trace those nodes (the
 * retrace of run_decompositions() allocates them in this order). */
eir_status eir_graph_unbacked_bindings(eir_program *p, const eir_graph *g, uint32_t end, uint32_t *count);

/* A new unbacked symbol u<n> (an integer, as torch writes it:
 * Symbol('u<n>', integer=True)) with the bounds of `range` (its symbol
 * field ignored; has_min / has_max false: unbounded), appended to p's range
 * constraints. *expr receives its expression. Refused when p already names
 * u<n>. */
eir_status eir_program_add_unbacked(eir_program *p, uint32_t n, const eir_range *range, uint32_t *expr);

#endif
