/* test_to_core.c — the to-core pass (src/passes/decomp.c) on committed
 * fixtures: programs it converts verify as Core ATen and compute torch's
 * recorded outputs; programs it must refuse (in-place writes to buffers and
 * user inputs) fail with a message naming the node, the operator and the
 * reason, and stay unchanged. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"

static char *print_prog(eir_program *p) {
    char *s = NULL;
    if (eir_program_print(p, EIR_PRINT_PROGRAM, &s) != EIR_OK) return NULL;
    return s;
}

static uint32_t core_violations(eir_program *p) {
    eir_verify_report *r = NULL;
    eir_status st = eir_program_verify(p, EIR_DIALECT_CORE, &r);
    uint32_t n = (st == EIR_OK || st == EIR_ERR_INVALID) && r ? eir_verify_num_violations(r) : UINT32_MAX;
    eir_verify_report_free(r);
    return n;
}

static bool has_target(const eir_program *p, const char *target) {
    const eir_graph *g = eir_program_graph(p);
    for (uint32_t i = 0; i < g->num_nodes; i++)
        if (strstr(g->nodes[i].target, target)) return true;
    return false;
}

/* the fixture's program converted, run on its recorded inputs, against
 * torch's recorded output 0 */
static void converts(const char *name, uint32_t min_changed) {
    eir_program *p = load_fixture(name);
    CHECK(p != NULL);
    if (!p) return;
    CHECK(core_violations(p) > 0);
    uint32_t changed = 0, removed = 0;
    eir_status st = eir_program_run_pass(p, "to-core", &changed);
    if (st) fprintf(stderr, "  %s: %s\n", name, eir_errmsg(p));
    CHECK(st == EIR_OK);
    CHECK(changed >= min_changed);
    CHECK(eir_program_run_pass(p, "dce", &removed) == EIR_OK);
    CHECK(core_violations(p) == 0);
    CHECK(!has_target(p, "aten.linear.") && !has_target(p, "aten.layer_norm.") && !has_target(p, "aten.silu."));
    npy_array in[4], want;
    eir_runtime *rt = fixture_runtime(p, NULL, name, in, 4);
    CHECK(rt != NULL);
    char key[256];
    snprintf(key, sizeof key, "%s.out_0", name);
    if (rt && load_npy(key, &want)) {
        CHECK(eir_runtime_run(rt) == EIR_OK);
        eir_tensor_view got;
        CHECK(eir_runtime_output(rt, 0, &got) == EIR_OK);
        double rtol = want.dtype == EIR_BF16 || got.dtype == EIR_BF16 ? 2e-2 : 1e-4;
        CHECK(view_close(&got, &want, rtol, rtol / 10, name));
        free(want.data);
    }
    for (uint32_t i = 0; rt && i < 4; i++) free(in[i].data);
    eir_runtime_free(rt);
    /* a second run has nothing left to do */
    CHECK(eir_program_run_pass(p, "to-core", &changed) == EIR_OK);
    CHECK(changed == 0);
    eir_program_free(p);
}

/* the pass fails with `msg` in its message and leaves the program as it was */
static void refuses(const char *name, const char *msg) {
    eir_program *p = load_fixture(name);
    CHECK(p != NULL);
    if (!p) return;
    char *before = print_prog(p);
    uint32_t changed = 7;
    CHECK(eir_program_run_pass(p, "to-core", &changed) == EIR_ERR_GRAPH);
    CHECK(changed == 0);
    if (!strstr(eir_errmsg(p), msg)) fprintf(stderr, "  %s: got '%s'\n", name, eir_errmsg(p));
    CHECK(strstr(eir_errmsg(p), msg) != NULL);
    char *after = print_prog(p);
    CHECK(before && after && !strcmp(before, after));
    free(before);
    free(after);
    eir_program_free(p);
}

int main(void) {
    CHECK(eir_pass_find("to-core") != NULL);
    converts("mlp", 3);
    converts("tied_weights", 1);
    /* a user input written through a select: slice_scatter into it, its USER_INPUT_MUTATION output */
    converts("input_mutation", 2);
    refuses("custom_mutation", "node %add_ (aten.add_.Tensor): cannot decompose: b_acc, which it writes, is aliased "
                               "by %slice_1 (aten.slice.Tensor), read afterwards");
    /* buffer writes become BUFFER_MUTATION outputs ahead of the user outputs */
    eir_program *bm = load_fixture("buffer_mutation");
    uint32_t nb = 0;
    CHECK(bm && eir_program_run_pass(bm, "to-core", &nb) == EIR_OK && nb == 3);
    CHECK(bm && eir_program_num_output_specs(bm) == 4);
    if (bm && eir_program_num_output_specs(bm) == 4) {
        CHECK(eir_program_output_spec(bm, 0)->kind == EIR_OUT_BUFFER_MUTATION);
        CHECK_STR(eir_program_output_spec(bm, 0)->target, "count");
        CHECK(eir_program_output_spec(bm, 1)->kind == EIR_OUT_BUFFER_MUTATION);
        CHECK_STR(eir_program_output_spec(bm, 1)->target, "running");
        CHECK(eir_program_output_spec(bm, 2)->kind == EIR_OUT_USER_OUTPUT);
        CHECK(eir_program_graph(bm)->num_outputs == 4);
    }
    CHECK(bm && core_violations(bm) == 0);
    eir_program_free(bm);
    converts("dynamic_shapes", 1);   /* linear over two symbolic batch sizes */
    /* already Core ATen: nothing to do */
    eir_program *p = load_fixture("mlp.decomp");
    uint32_t changed = 9;
    CHECK(p && eir_program_run_pass(p, "to-core", &changed) == EIR_OK && changed == 0);
    eir_program_free(p);
    return check_summary("test_to_core");
}
