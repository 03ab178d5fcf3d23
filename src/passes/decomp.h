/* decomp.h — the to-core pass (src/passes/decomp.c): ATen -> Core ATen. */
#ifndef EIR_DECOMP_H
#define EIR_DECOMP_H

#include "eir.h"

/* Rewrites the non-core operators it has a rule for into Core ATen ones, in
 * the root graph and nested graphs. Fails (program unchanged) naming the
 * first node it has a rule for but cannot decompose. *changed counts the
 * nodes rewritten. */
eir_status eir_pass_to_core(eir_program *p, uint32_t *changed);

/* The operators with a rule ("aten.linear.default"), for docs and tests. */
uint32_t eir_decomp_num_rules(void);
const char *eir_decomp_rule(uint32_t i);

/* Whether torch's run_decompositions() rewrites the non-core operator op
 * ("aten.chunk.default") through its CompositeImplicitAutograd kernel
 * (decomp_cia.inc, generated from torch); the op table's EIR_OPF_DECOMP
 * flags the others it rewrites. */
bool eir_decomp_torch_rewrites(const char *op);

#endif
