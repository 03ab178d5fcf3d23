/* passes.h — passes that evaluate or lower a program, beyond the IR's own
 * edits (src/ir/edit.h); all are listed in the one table of passes.c. */
#ifndef EIR_PASSES_H
#define EIR_PASSES_H

#include "../ir/program.h"

/* Constant folding (fold.c): side-effect-free ATen calls whose tensor
 * arguments are all constants (parameters, tensor constants, buffers the
 * program never writes, or results of such calls) are evaluated with eir's
 * kernels; each result still read by the rest of the program becomes a
 * lifted tensor constant, and the folded calls leave the graph, with the
 * parameters and constants only they read. *changed counts the nodes
 * removed. */
eir_status eir_pass_fold(eir_program *p, uint32_t *changed);

/* Lowering to ExecuTorch's Edge dialect (to_edge.c), as
 * executorch.exir.to_edge() does: view_copy operators, numbers as lifted
 * tensor constants, dim-order copies, Edge operator targets and names.
 * A program that is not Core ATen goes through the pass to-core first when
 * there is one, else is refused. *changed counts the edits. */
eir_status eir_pass_to_edge(eir_program *p, uint32_t *changed);

/* The Backend dialect (backend.c): convolution + eval batch norm +
 * activation and linear / addmm + activation become eir_cpu::conv2d and
 * eir_cpu::linear calls, batch norm folded into new weight and bias
 * constants. Float32 patterns only; *changed counts the fused calls. */
eir_status eir_pass_to_backend(eir_program *p, uint32_t *changed);

/* Before to-core in `eir convert --to backend` (backend.c): float32
 * aten.lstm.input calls become eir_cpu::lstm (the same arguments, results
 * and kernel), which to-core leaves whole. *changed counts them. */
eir_status eir_pass_keep_lstm(eir_program *p, uint32_t *changed);

/* For eir_runtime_create: a private copy of p with to-backend applied, in
 * *out (its graph decoded anew from p's model.json, kept in *buf, which
 * must outlive it: free the program, then eir_free the buffer; its stored
 * tensors borrowed from p, which must outlive the copy), or *out NULL when
 * there is nothing to fuse, the environment has EIR_NO_FUSION set
 * (non-empty, not "0"), or the copy cannot be made (p is then run as it
 * is). p is not changed. */
eir_status eir_backend_bind_copy(eir_program *p, eir_program **out, void **buf);

#endif
