/* test_fold.c — the pass `fold` on tests/unit/fold/fold*.pt2 (written by
 * make_fold.py with torch: x @ w.t() + b.to(float32) * 2, a constant
 * through a view, a buffer read as is, a buffer written in place, a random
 * op), as exported and after run_decompositions(): what folds and what
 * stays, the new constants, the state dropped and kept, outputs against
 * torch's over two runs, the verifier, a second fold changing nothing,
 * the program saved and loaded again; and programs with nothing to fold. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"

static uint32_t count_target(const eir_graph *g, const char *target) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->num_nodes; i++) n += !strcmp(g->nodes[i].target, target);
    return n;
}

static char *print_prog(eir_program *p) {
    char *s = NULL;
    if (eir_program_print(p, EIR_PRINT_PROGRAM, &s) != EIR_OK) return NULL;
    return s;
}

static uint32_t count_kind(const eir_program *p, eir_input_kind k) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < eir_program_num_input_specs(p); i++) n += eir_program_input_spec(p, i)->kind == k;
    return n;
}

/* two runs on x.npy against torch's outputs (the buffer `count` goes 1, 2) */
static bool runs_like_torch(eir_program *p, const char *what) {
    npy_array x, want;
    if (!load_npy("x", &x)) return false;
    eir_runtime *rt = NULL;
    bool ok = eir_runtime_create(p, &rt) == EIR_OK;
    if (!ok) fprintf(stderr, "%s: %s\n", what, eir_runtime_errmsg(rt));
    for (int r = 1; ok && r <= 2; r++) {
        eir_tensor_view xv = view_of(&x), y;
        char key[64];
        snprintf(key, sizeof key, "run_%d.out_0", r);
        ok = eir_runtime_set_input(rt, 0, &xv) == EIR_OK && eir_runtime_run(rt) == EIR_OK &&
             eir_runtime_output(rt, 0, &y) == EIR_OK;
        if (!ok) {
            fprintf(stderr, "%s: run %d: %s\n", what, r, eir_runtime_errmsg(rt));
            break;
        }
        if (!load_npy(key, &want)) { ok = false; break; }
        ok = view_close(&y, &want, 1e-5, 1e-5, what);
        free(want.data);
    }
    eir_runtime_free(rt);
    free(x.data);
    return ok;
}

static bool verifies(eir_program *p) {
    eir_verify_report *r = NULL;
    eir_status st = eir_program_verify(p, EIR_DIALECT_ATEN, &r);
    bool ok = st == EIR_OK && eir_verify_num_violations(r) == 0;
    if (!ok) fprintf(stderr, "verify: %s\n", eir_errmsg(p));
    eir_verify_report_free(r);
    return ok;
}

static void test_fold(const char *name, bool decomposed) {
    eir_program *p = load_fixture(name);
    CHECK(p);
    if (!p) return;
    const eir_graph *g = eir_program_graph(p);
    uint32_t nodes0 = g->num_nodes;
    const char *T = decomposed ? "torch.ops.aten.permute.default" : "torch.ops.aten.t.default";
    const char *CAST = decomposed ? "torch.ops.aten._to_copy.default" : "torch.ops.aten.to.dtype";
    const char *INPLACE = decomposed ? "torch.ops.aten.add.Tensor" : "torch.ops.aten.add_.Tensor";
    CHECK(count_target(g, T) >= 1 && count_target(g, CAST) == 1);
    uint32_t inplace0 = count_target(g, INPLACE);
    CHECK(runs_like_torch(p, name));

    uint32_t changed = 0;
    CHECK(eir_program_run_pass(p, "fold", &changed) == EIR_OK);
    g = eir_program_graph(p);
    /* folded: w.t(), b.to(float32), * 2, c.view(1, 4) and the assertion on b's dtype */
    CHECK(changed == 5);
    CHECK(g->num_nodes == nodes0 - changed);
    CHECK(count_target(g, CAST) == 0);
    CHECK(count_target(g, "torch.ops.aten._assert_tensor_metadata.default") == 0);
    CHECK(count_target(g, "torch.ops.aten.view.default") == 0);
    /* the transpose left is the written buffer's count.t() (aten.alias once decomposed) */
    CHECK(count_target(g, T) == (decomposed ? 0 : 1));
    /* stays: the random op, the in-place write of the buffer, what reads x */
    CHECK(count_target(g, "torch.ops.aten.rand.default") == 1);
    CHECK(count_target(g, INPLACE) == inplace0);
    /* three new constants, with the folded values' sizes, strides and dtypes */
    CHECK(count_kind(p, EIR_IN_CONSTANT_TENSOR) == 3);
    CHECK(count_kind(p, EIR_IN_PARAMETER) == 0);
    CHECK(count_kind(p, EIR_IN_BUFFER) == 2);
    CHECK(!eir_program_find_tensor(p, "w") && !eir_program_find_tensor(p, "b") && !eir_program_find_tensor(p, "c"));
    CHECK(eir_program_find_tensor(p, "scale") && eir_program_find_tensor(p, "count"));
    const eir_tensor *wt = eir_program_find_tensor(p, "_prop_tensor_constant1");
    const eir_tensor *bt = eir_program_find_tensor(p, "_prop_tensor_constant2");
    const eir_tensor *ct = eir_program_find_tensor(p, "_prop_tensor_constant3");
    CHECK(wt && wt->is_constant && wt->dtype == EIR_F32 && wt->rank == 2 && wt->sizes[0] == 3 && wt->sizes[1] == 4 &&
          wt->strides[0] == 1 && wt->strides[1] == 3);
    /* w.t() keeps its recorded strides: column-major, so its storage is w's, byte for byte */
    eir_program *orig = load_fixture(name);
    const eir_tensor *w = orig ? eir_program_find_tensor(orig, "w") : NULL;
    CHECK(w && wt && wt->storage_nbytes == 48 && w->storage_nbytes == 48 && !memcmp(wt->data, w->data, 48));
    eir_program_free(orig);
    CHECK(bt && bt->dtype == EIR_F32 && bt->rank == 1 && bt->sizes[0] == 4);
    CHECK(ct && ct->dtype == EIR_F32 && ct->rank == 2 && ct->sizes[0] == 1 && ct->sizes[1] == 4);
    if (ct) {
        const float *c = ct->data;
        CHECK(c[0] == 0 && c[1] == 1 && c[2] == 2 && c[3] == 3);
    }
    CHECK(verifies(p));
    CHECK(runs_like_torch(p, name));

    /* a second fold changes nothing */
    char *once = print_prog(p);
    uint32_t again = 99;
    CHECK(eir_program_run_pass(p, "fold", &again) == EIR_OK && again == 0);
    char *twice = print_prog(p);
    CHECK(once && twice && !strcmp(once, twice));

    /* saved and loaded again: the same program, the same outputs */
    void *buf = NULL;
    size_t size = 0;
    CHECK(eir_program_save_buffer(p, &buf, &size) == EIR_OK);
    eir_program *q = NULL;
    CHECK(buf && eir_program_load_buffer(buf, size, &q) == EIR_OK);
    char *loaded = q ? print_prog(q) : NULL;
    CHECK(loaded && once && !strcmp(loaded, once));
    if (q) CHECK(runs_like_torch(q, name));
    free(once), free(twice), free(loaded);
    eir_program_free(q);
    eir_free(buf);
    eir_program_free(p);
}

/* nothing to fold: a program whose calls all read the input */
static void test_nothing_to_fold(void) {
    const char *saved = fixture_dir;
    fixture_dir = "tests/e2e/fixtures";
    static const char *const NAMES[] = {"buffer_mutation", "cond", "custom_op", "dynamic_shapes"};
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++) {
        eir_program *p = load_fixture(NAMES[i]);
        if (!p) { CHECK(0); continue; }
        char *before = print_prog(p);
        uint32_t changed = 99;
        CHECK(eir_program_run_pass(p, "fold", &changed) == EIR_OK);
        char *after = print_prog(p);
        if (changed) fprintf(stderr, "  %s: fold changed %u\n", NAMES[i], changed);
        CHECK(changed == 0 && before && after && !strcmp(before, after));
        free(before), free(after);
        eir_program_free(p);
    }
    fixture_dir = saved;
}

/* a program whose folded part cannot be evaluated (a slice recorded with
 * the wrong size): an error naming the node, and the program unchanged */
static void test_error_leaves_program(void) {
    eir_program *p = NULL;
    if (eir_program_load("tests/bad/corpus/r03_view_size_contradicts_op.pt2", &p) != EIR_OK) {
        CHECK(0);
        eir_program_free(p);
        return;
    }
    char *before = print_prog(p);
    uint32_t changed = 99;
    CHECK(eir_program_run_pass(p, "fold", &changed) != EIR_OK && changed == 0);
    CHECK(strstr(eir_errmsg(p), "fold: evaluating the constant calls: node %slice_1 (aten.slice.Tensor)") != NULL);
    char *after = print_prog(p);
    CHECK(before && after && !strcmp(before, after));
    free(before), free(after);
    eir_program_free(p);
}

/* a dead call on a folded result (made with the editing API; torch.export
 * leaves none) goes with the folded calls instead of reading an erased value */
static void test_dead_reader(void) {
    eir_program *p = load_fixture("fold");
    if (!p) { CHECK(0); return; }
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t t = UINT32_MAX;
    for (uint32_t i = 0; i < g->num_nodes; i++)
        if (!strcmp(g->nodes[i].target, "torch.ops.aten.t.default")) { t = i; break; }
    CHECK(t != UINT32_MAX);
    if (t == UINT32_MAX) { eir_program_free(p); return; }
    uint32_t tv = g->nodes[t].outputs[0].value;
    uint32_t out = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &g->values[tv].meta, "neg");
    eir_named_arg in = {"self", {.kind = EIR_ARG_TENSOR, .value = tv}, 1};
    eir_arg o = {.kind = EIR_ARG_TENSOR, .value = out};
    CHECK(eir_graph_insert_node(p, g, t + 1, "torch.ops.aten.neg.default", 1, &in, 1, &o, NULL) == EIR_OK);
    uint32_t n0 = g->num_nodes, changed = 0;
    CHECK(eir_program_run_pass(p, "fold", &changed) == EIR_OK);
    CHECK(changed == 6 && g->num_nodes == n0 - 6);
    CHECK(count_target(g, "torch.ops.aten.neg.default") == 0);
    CHECK(runs_like_torch(p, "fold with a dead reader"));
    eir_program_free(p);
}

static void test_table(void) {
    const eir_pass *ps = eir_pass_find("fold");
    CHECK(ps && ps->run && ps->doc && ps->doc[0]);
    bool listed = false;
    for (uint32_t i = 0; i < eir_num_passes(); i++) listed |= eir_pass_at(i) == ps;
    CHECK(listed);
    eir_program *p = load_fixture("fold");
    if (!p) { CHECK(0); return; }
    CHECK(eir_program_run_pass(p, "folding", NULL) == EIR_ERR_ARG);
    CHECK(strstr(eir_errmsg(p), "no pass named 'folding'") && strstr(eir_errmsg(p), "fold"));
    eir_program_free(p);
}

int main(void) {
    const char *dir = getenv("EIR_FOLD_FIXTURES");
    fixture_dir = dir ? dir : "tests/unit/fold";
    test_fold("fold", false);
    test_fold("fold.decomp", true);
    test_nothing_to_fold();
    test_error_leaves_program();
    test_dead_reader();
    test_table();
    return check_summary("test_fold");
}
