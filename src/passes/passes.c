/* passes.c — the table of passes: one line per pass (name, one-line
 * description, function). `eir convert --NAME`, --verify-each and
 * --print-after, and eir_program_run_pass read it. The IR's own passes live
 * in src/ir/edit.c; the ones that run kernels, such as constant folding,
 * live beside this file, so src/ir/ never depends on the runtime. */
#include <string.h>

#include "passes.h"
#include "../ir/edit.h"
#include "decomp.h"

static const eir_pass PASSES[] = {
    {"dce", "remove nodes nothing uses that have no side effect (torch.fx's rule)", eir_ir_pass_dce},
    {"prune-state", "remove parameters and constants no node reads (buffers stay)", eir_ir_pass_prune_state},
    {"cse", "merge repeated side-effect-free calls with the same arguments", eir_ir_pass_cse},
    {"fold", "evaluate calls on constants and parameters, keep their results as lifted constants", eir_pass_fold},
    {"to-core", "decompose ATen operators into Core ATen ones, as ep.run_decompositions() does", eir_pass_to_core},
    {"to-edge", "lower Core ATen to ExecuTorch's Edge dialect, as exir.to_edge() does", eir_pass_to_edge},
    {"to-backend", "fuse convolution + batch norm + activation and linear + activation into eir_cpu operators",
     eir_pass_to_backend},
    {"keep-lstm", "rename float32 aten.lstm calls eir_cpu::lstm (eir's fused time loop), which to-core keeps whole",
     eir_pass_keep_lstm},
};

uint32_t eir_num_passes(void) { return sizeof PASSES / sizeof *PASSES; }
const eir_pass *eir_pass_at(uint32_t i) { return i < eir_num_passes() ? &PASSES[i] : NULL; }
const eir_pass *eir_pass_find(const char *name) {
    for (uint32_t i = 0; name && i < eir_num_passes(); i++)
        if (!strcmp(PASSES[i].name, name)) return &PASSES[i];
    return NULL;
}

eir_status eir_program_run_pass(eir_program *p, const char *name, uint32_t *changed) {
    if (!p) return EIR_ERR_ARG;
    if (changed) *changed = 0;
    const eir_pass *ps = eir_pass_find(name);
    if (!ps) {
        eir_buf b;
        eir_buf_init(&b);
        for (uint32_t i = 0; i < eir_num_passes(); i++) eir_buf_printf(&b, "%s%s", i ? ", " : "", PASSES[i].name);
        eir_status st = eir_fail(p, EIR_ERR_ARG, "no pass named '%s' (passes: %s)", name ? name : "(null)",
                                 b.data ? b.data : "");
        eir_buf_free(&b);
        return st;
    }
    uint32_t n = 0;
    eir_status st = ps->run(p, &n);
    if (changed) *changed = n;
    return st;
}
