/* test_edit.c — the editing API and the pass table on committed fixtures:
 * insert / replace / erase keep the graph consistent (the printer and the
 * runtime see the edit), dead code elimination undoes dead insertions and
 * removes what a rewrite left unread, errors leave the program unchanged. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"

static char *print_prog(eir_program *p) {
    char *s = NULL;
    if (eir_program_print(p, EIR_PRINT_PROGRAM, &s) != EIR_OK) {
        fprintf(stderr, "print: %s\n", eir_errmsg(p));
        return NULL;
    }
    return s;
}

static uint32_t value_named(const eir_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->num_values; i++)
        if (!strcmp(g->values[i].name, name)) return i;
    return EIR_NO_VALUE;
}

static uint32_t node_named(const eir_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->num_nodes; i++)
        if (g->nodes[i].name && !strcmp(g->nodes[i].name, name)) return i;
    return UINT32_MAX;
}

static eir_arg tensor_arg(uint32_t v) {
    eir_arg a = {0};
    a.kind = EIR_ARG_TENSOR;
    a.value = v;
    return a;
}

/* a unary op on value v, inserted at pos; returns the new value */
static uint32_t insert_unary(eir_program *p, eir_graph *g, uint32_t pos, const char *target, uint32_t v,
                             const char *hint) {
    uint32_t out = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &g->values[v].meta, hint);
    if (out == EIR_NO_VALUE) return out;
    eir_named_arg in = {"self", tensor_arg(v), 1};
    eir_arg o = tensor_arg(out);
    if (eir_graph_insert_node(p, g, pos, target, 1, &in, 1, &o, NULL) != EIR_OK) {
        fprintf(stderr, "insert: %s\n", eir_errmsg(p));
        return EIR_NO_VALUE;
    }
    return out;
}

/* run the mlp fixture's recorded input through p; output 0 into *out (malloc'd floats) */
static bool run_mlp(eir_program *p, float **out, int64_t *numel) {
    npy_array in[2];
    eir_runtime *rt = fixture_runtime(p, NULL, "mlp", in, 2);
    if (!rt) return false;
    bool ok = eir_runtime_run(rt) == EIR_OK;
    if (!ok) fprintf(stderr, "run: %s\n", eir_runtime_errmsg(rt));
    eir_tensor_view v;
    if (ok && eir_runtime_output(rt, 0, &v) == EIR_OK && v.dtype == EIR_F32) {
        *numel = eir_tensor_numel(&v);
        *out = malloc((size_t)*numel * sizeof **out);
        memcpy(*out, v.data, (size_t)*numel * sizeof **out);
    } else ok = false;
    free(in[0].data);
    free(in[1].data);
    eir_runtime_free(rt);
    return ok;
}

static void test_dead_insert_and_dce(void) {
    eir_program *p = load_fixture("mlp");
    CHECK(p);
    if (!p) return;
    char *before = print_prog(p);
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t relu = value_named(g, "relu");
    uint32_t n0 = g->num_nodes, v0 = g->num_values;
    uint32_t a = insert_unary(p, g, 2, "torch.ops.aten.neg.default", relu, "neg");
    uint32_t b = insert_unary(p, g, 3, "torch.ops.aten.neg.default", a, "neg");
    CHECK(a != EIR_NO_VALUE && b != EIR_NO_VALUE);
    CHECK_STR(g->values[a].name, "neg");
    CHECK_STR(g->values[b].name, "neg_1");
    CHECK(g->num_nodes == n0 + 2);
    CHECK_STR(g->nodes[3].name, "neg_1");
    CHECK(g->values[b].producer == 3);
    CHECK(g->values[value_named(g, "linear_1")].producer == 4);   /* moved up by two */
    CHECK(eir_graph_num_uses(g, relu) == 2);
    char *mid = print_prog(p);
    CHECK(mid && strstr(mid, "neg_1: \"f32[2, 16]\" = torch.ops.aten.neg.default(neg);"));
    uint32_t removed = 0;
    CHECK(eir_program_run_pass(p, "dce", &removed) == EIR_OK);
    CHECK(removed == 2);
    CHECK(g->num_nodes == n0 && g->num_values == v0);
    char *after = print_prog(p);
    CHECK(before && after && !strcmp(before, after));
    /* a second run has nothing to do */
    CHECK(eir_program_run_pass(p, "dce", &removed) == EIR_OK && removed == 0);
    free(before), free(mid), free(after);
    eir_program_free(p);
}

static void test_rewrite_output(void) {
    eir_program *p = load_fixture("mlp");
    if (!p) { CHECK(0); return; }
    float *ref = NULL, *got = NULL;
    int64_t n = 0, m = 0;
    CHECK(run_mlp(p, &ref, &n));
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t out = value_named(g, "linear_2");
    uint32_t neg = insert_unary(p, g, g->num_nodes, "torch.ops.aten.neg.default", out, "neg");
    uint32_t moved = 0;
    CHECK(eir_graph_replace_uses(p, g, out, neg, &moved) == EIR_OK);
    CHECK(moved == 1);
    CHECK(g->outputs[0].value == neg);
    CHECK(eir_program_output_spec(p, 0)->arg.value == neg);
    char *s = print_prog(p);
    CHECK(s && strstr(s, "    neg: USER_OUTPUT\n") && strstr(s, "return (neg,)"));
    free(s);
    CHECK(run_mlp(p, &got, &m));
    CHECK(n == m && n == 8);
    bool same = ref && got && n == m;
    for (int64_t i = 0; same && i < n; i++) same = got[i] == -ref[i];
    CHECK(same);
    free(ref), free(got);
    eir_program_free(p);
}

static void test_add_state(void) {
    eir_program *p = load_fixture("mlp");
    if (!p) { CHECK(0); return; }
    float *ref = NULL, *got = NULL;
    int64_t n = 0, m = 0;
    CHECK(run_mlp(p, &ref, &n));
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t ntensors = eir_program_num_tensors(p);
    float scale[4] = {1.5f, -2.0f, 0.25f, 3.0f};
    int64_t sz[1] = {4};
    uint32_t pv = EIR_NO_VALUE;
    CHECK(eir_program_add_state(p, EIR_IN_PARAMETER, "head.scale", EIR_F32, 1, sz, scale, true, &pv) == EIR_OK);
    CHECK(pv != EIR_NO_VALUE && !strcmp(g->values[pv].name, "p_head_scale"));
    CHECK(eir_program_num_tensors(p) == ntensors + 1);
    CHECK(eir_program_find_tensor(p, "head.scale") != NULL);
    /* after the other parameters, before the user input */
    CHECK(g->num_inputs == 8 && g->inputs[6].value == pv);
    CHECK(eir_program_input_spec(p, 6)->kind == EIR_IN_PARAMETER);
    CHECK(eir_program_input_spec(p, 7)->kind == EIR_IN_USER_INPUT);
    /* the same name twice is refused */
    CHECK(eir_program_add_state(p, EIR_IN_BUFFER, "head.scale", EIR_F32, 1, sz, scale, true, NULL) == EIR_ERR_GRAPH);

    uint32_t out = value_named(g, "linear_2");
    uint32_t mul = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &g->values[out].meta, "mul");
    eir_named_arg ins[2] = {{"self", tensor_arg(out), 1}, {"other", tensor_arg(pv), 1}};
    eir_arg o = tensor_arg(mul);
    CHECK(eir_graph_insert_node(p, g, g->num_nodes, "torch.ops.aten.mul.Tensor", 2, ins, 1, &o, NULL) == EIR_OK);
    CHECK(eir_graph_replace_uses(p, g, out, mul, NULL) == EIR_OK);
    char *s = print_prog(p);
    CHECK(s && strstr(s, "p_fc3_bias: \"f32[4]\", p_head_scale: \"f32[4]\", x: \"f32[2, 8]\""));
    CHECK(s && strstr(s, "    p_head_scale: PARAMETER target='head.scale'\n    x: USER_INPUT"));
    CHECK(s && strstr(s, "mul: \"f32[2, 4]\" = torch.ops.aten.mul.Tensor(linear_2, p_head_scale)"));
    free(s);
    CHECK(run_mlp(p, &got, &m));
    bool same = ref && got && n == m && n == 8;
    for (int64_t i = 0; same && i < n; i++) same = got[i] == ref[i] * scale[i % 4];
    CHECK(same);
    free(ref), free(got);
    eir_program_free(p);
}

/* an effect token: input and output specs, a with_effects node threading
 * it; the program still prints, saves, loads and runs */
static void test_add_token(void) {
    eir_program *p = load_fixture("mlp");
    if (!p) { CHECK(0); return; }
    float *ref = NULL, *got = NULL;
    int64_t n = 0, m = 0;
    CHECK(run_mlp(p, &ref, &n));
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t nin = g->num_inputs, nout = g->num_outputs, tok = EIR_NO_VALUE;
    CHECK(eir_program_add_token(p, &tok) == EIR_OK);
    CHECK(tok != EIR_NO_VALUE && !strcmp(g->values[tok].name, "token"));
    CHECK(g->num_inputs == nin + 1 && g->inputs[0].value == tok && eir_program_input_spec(p, 0)->kind == EIR_IN_TOKEN);
    CHECK(g->num_outputs == nout + 1 && g->outputs[0].value == tok);
    CHECK(eir_program_output_spec(p, 0)->kind == EIR_OUT_TOKEN && eir_program_output_spec(p, 0)->arg.value == tok);
    /* with_effects(token, aten._print, 'hi'): its first output is the next token */
    uint32_t next = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &g->values[tok].meta, "getitem");
    eir_arg op = {0}, msg = {0}, none = {0};
    op.kind = EIR_ARG_OPERATOR;
    op.u.s = "torch.ops.aten._print.default";
    msg.kind = EIR_ARG_STRING;
    msg.u.s = "hi";
    none.kind = EIR_ARG_NONE;
    none.value = EIR_NO_VALUE;
    eir_named_arg ins[3] = {{"", tensor_arg(tok), 1}, {"", op, 1}, {"", msg, 1}};
    eir_arg outs[2] = {tensor_arg(next), none};
    CHECK(eir_graph_insert_node(p, g, 0, "torch.ops.higher_order.with_effects", 3, ins, 2, outs, NULL) == EIR_OK);
    CHECK(eir_graph_replace_uses(p, g, tok, next, NULL) == EIR_OK);
    CHECK(eir_program_output_spec(p, 0)->arg.value == next && g->outputs[0].value == next);
    char *s = print_prog(p);
    CHECK(s && strstr(s, "def forward(self, token: \"f32[0]\", p_fc1_weight"));
    CHECK(s && strstr(s, "with_effects = torch.ops.higher_order.with_effects(token, torch.ops.aten._print.default, 'hi')"));
    CHECK(s && strstr(s, "    # inputs\n    token: TOKEN\n") && strstr(s, "    # outputs\n    getitem: TOKEN\n"));
    free(s);
    eir_verify_report *rep = NULL;
    CHECK(eir_program_verify(p, EIR_DIALECT_ATEN, &rep) == EIR_OK);
    eir_verify_report_free(rep);
    CHECK(run_mlp(p, &got, &m));
    bool same = ref && got && n == m && n == 8;
    for (int64_t i = 0; same && i < n; i++) same = got[i] == ref[i];
    CHECK(same);
    free(ref), free(got);
    eir_program_free(p);
}

/* redirect the output past the last layer: dce removes the layer and the
 * parameters only it read */
static void test_dce_drops_parameters(void) {
    eir_program *p = load_fixture("mlp");
    if (!p) { CHECK(0); return; }
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t ntensors = eir_program_num_tensors(p);
    uint32_t relu1 = value_named(g, "relu_1"), out = value_named(g, "linear_2");
    /* relu_1 is f32[2, 16], the output f32[2, 4]: narrow it to keep the shape */
    uint32_t nar = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &g->values[out].meta, "slice");
    eir_arg dim = {0}, start = {0}, end = {0};
    dim.kind = start.kind = end.kind = EIR_ARG_INT;
    dim.u.i = 1, start.u.i = 0, end.u.i = 4;
    eir_named_arg ins[4] = {{"self", tensor_arg(relu1), 1}, {"dim", dim, 1}, {"start", start, 1}, {"end", end, 1}};
    eir_arg o = tensor_arg(nar);
    uint32_t pos = node_named(g, "linear_2");
    CHECK(eir_graph_insert_node(p, g, pos, "torch.ops.aten.slice.Tensor", 4, ins, 1, &o, NULL) == EIR_OK);
    CHECK(eir_graph_replace_uses(p, g, out, nar, NULL) == EIR_OK);
    uint32_t removed = 0, pruned = 0;
    CHECK(eir_program_run_pass(p, "dce", &removed) == EIR_OK);
    CHECK(removed == 1);                          /* linear_2 */
    CHECK(eir_program_num_tensors(p) == ntensors);
    CHECK(eir_program_run_pass(p, "prune-state", &pruned) == EIR_OK);
    CHECK(pruned == 2);                           /* p_fc3_weight, p_fc3_bias */
    CHECK(node_named(g, "linear_2") == UINT32_MAX);
    CHECK(eir_program_num_tensors(p) == ntensors - 2);
    CHECK(!eir_program_find_tensor(p, "fc3.weight") && eir_program_find_tensor(p, "fc2.weight"));
    CHECK(eir_program_num_input_specs(p) == 5 && g->num_inputs == 5);
    char *s = print_prog(p);
    CHECK(s && !strstr(s, "fc3") && strstr(s, "return (slice_1,)"));
    free(s);
    /* the runtime runs the smaller program */
    float *got = NULL;
    int64_t m = 0;
    CHECK(run_mlp(p, &got, &m));
    CHECK(m == 8);
    bool nonneg = got != NULL;
    for (int64_t i = 0; nonneg && i < m; i++) nonneg = got[i] >= 0;   /* a slice of a relu */
    CHECK(nonneg);
    free(got);
    eir_program_free(p);
}

static void test_errors(void) {
    eir_program *p = load_fixture("mlp");
    if (!p) { CHECK(0); return; }
    char *before = print_prog(p);
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t relu1 = value_named(g, "relu_1");
    uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &g->values[relu1].meta, "neg");
    eir_named_arg in = {"self", tensor_arg(relu1), 1};
    eir_arg o = tensor_arg(v);
    /* a use before the definition */
    CHECK(eir_graph_insert_node(p, g, 1, "torch.ops.aten.neg.default", 1, &in, 1, &o, NULL) == EIR_ERR_GRAPH);
    CHECK(strstr(eir_errmsg(p), "relu_1 is not defined before the node") != NULL);
    CHECK(eir_graph_insert_node(p, g, 99, "torch.ops.aten.neg.default", 1, &in, 1, &o, NULL) == EIR_ERR_ARG);
    /* an output that is already defined */
    eir_arg o2 = tensor_arg(relu1);
    CHECK(eir_graph_insert_node(p, g, g->num_nodes, "torch.ops.aten.neg.default", 1, &in, 1, &o2, NULL) ==
          EIR_ERR_GRAPH);
    CHECK(strstr(eir_errmsg(p), "relu_1, is already defined") != NULL);
    /* erase a node whose output is used */
    CHECK(eir_graph_erase_node(p, g, node_named(g, "relu")) == EIR_ERR_GRAPH);
    CHECK(strstr(eir_errmsg(p), "cannot erase node relu: its output relu is still used") != NULL);
    /* replacing by a value defined later moves only the uses after it: none here */
    uint32_t moved = 9;
    CHECK(eir_graph_replace_uses(p, g, value_named(g, "relu"), relu1, &moved) == EIR_OK && moved == 0);
    /* by a value of another kind, or one no node defines */
    uint32_t sym = eir_graph_add_value(p, g, EIR_VALUE_SYM_INT, NULL, "sym_size_int");
    CHECK(eir_graph_replace_uses(p, g, relu1, sym, NULL) == EIR_ERR_GRAPH);
    CHECK(strstr(eir_errmsg(p), "relu_1 is a tensor but sym_size_int is a SymInt") != NULL);
    CHECK(eir_graph_replace_uses(p, g, relu1, v, NULL) == EIR_ERR_GRAPH);
    CHECK(strstr(eir_errmsg(p), "neg is not defined by any node") != NULL);
    /* drop an input still used; a user input */
    CHECK(eir_program_drop_input(p, 0) == EIR_ERR_GRAPH);
    CHECK(eir_program_drop_input(p, 6) == EIR_ERR_ARG);
    /* unknown pass */
    CHECK(eir_program_run_pass(p, "nope", NULL) == EIR_ERR_ARG);
    CHECK(strstr(eir_errmsg(p), "no pass named 'nope' (passes: dce, prune-state, cse, fold, to-core, to-edge, to-backend, keep-lstm)") != NULL);
    CHECK(eir_pass_find("dce") && eir_num_passes() >= 1 && eir_pass_at(eir_num_passes()) == NULL);
    /* the failed calls changed nothing but the unused new value, which prints nowhere */
    char *after = print_prog(p);
    CHECK(before && after && !strcmp(before, after));
    free(before), free(after);
    eir_program_free(p);
}

/* dce in a nested graph, and a program with control flow keeps printing */
static void test_nested(void) {
    eir_program *p = load_fixture("cond");
    if (!p) { CHECK(0); return; }
    char *before = print_prog(p);
    eir_graph *g = eir_program_graph_mut(p);
    eir_graph *sub = NULL;
    for (uint32_t n = 0; n < g->num_nodes && !sub; n++)
        for (uint32_t i = 0; i < g->nodes[n].num_inputs; i++)
            if (g->nodes[n].inputs[i].arg.kind == EIR_ARG_GRAPH) { sub = g->nodes[n].inputs[i].arg.u.graph.graph; break; }
    CHECK(sub != NULL);
    if (sub && sub->num_inputs && sub->inputs[0].kind == EIR_ARG_TENSOR) {
        uint32_t v = insert_unary(p, sub, 0, "torch.ops.aten.sin.default", sub->inputs[0].value, "sin");
        CHECK(v != EIR_NO_VALUE);
        char *mid = print_prog(p);
        CHECK(mid && strstr(mid, "torch.ops.aten.sin.default"));
        free(mid);
        uint32_t removed = 0;
        CHECK(eir_graph_dce(p, g, &removed) == EIR_OK && removed == 1);
    }
    char *after = print_prog(p);
    CHECK(before && after && !strcmp(before, after));
    free(before), free(after);
    eir_program_free(p);
}

/* impure nodes stay: an in-place op, an assertion */
static void test_dce_keeps_side_effects(void) {
    eir_program *p = load_fixture("mlp");
    if (!p) { CHECK(0); return; }
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t relu = value_named(g, "relu");
    uint32_t a = insert_unary(p, g, 2, "torch.ops.aten.relu_.default", relu, "relu_");
    uint32_t b = insert_unary(p, g, 3, "torch.ops.aten.rand_like.default", relu, "rand_like");
    CHECK(a != EIR_NO_VALUE && b != EIR_NO_VALUE);
    uint32_t n = g->num_nodes, removed = 9;
    CHECK(eir_graph_dce(p, g, &removed) == EIR_OK && removed == 0 && g->num_nodes == n);
    eir_program_free(p);
}

/* cse: a repeated pure call goes, its uses move to the first; a random op stays */
static void test_cse(void) {
    eir_program *p = load_fixture("mlp");
    if (!p) { CHECK(0); return; }
    float *ref = NULL, *got = NULL;
    int64_t n = 0, m = 0;
    eir_graph *g = eir_program_graph_mut(p);
    uint32_t out = value_named(g, "linear_2");
    uint32_t pos = g->num_nodes;
    uint32_t a = insert_unary(p, g, pos, "torch.ops.aten.neg.default", out, "neg");
    uint32_t b = insert_unary(p, g, pos + 1, "torch.ops.aten.neg.default", out, "neg");
    uint32_t sum = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &g->values[out].meta, "add");
    eir_named_arg ins[2] = {{"self", tensor_arg(a), 1}, {"other", tensor_arg(b), 1}};
    eir_arg o = tensor_arg(sum);
    CHECK(eir_graph_insert_node(p, g, pos + 2, "torch.ops.aten.add.Tensor", 2, ins, 1, &o, NULL) == EIR_OK);
    CHECK(eir_graph_replace_uses(p, g, out, sum, NULL) == EIR_OK);
    uint32_t r1 = insert_unary(p, g, 0, "torch.ops.aten.rand_like.default", g->inputs[6].value, "rand_like");
    uint32_t r2 = insert_unary(p, g, 1, "torch.ops.aten.rand_like.default", g->inputs[6].value, "rand_like");
    CHECK(r1 != EIR_NO_VALUE && r2 != EIR_NO_VALUE);
    CHECK(run_mlp(p, &ref, &n));
    uint32_t nodes = g->num_nodes, removed = 0;
    CHECK(eir_program_run_pass(p, "cse", &removed) == EIR_OK);
    CHECK(removed == 1 && g->num_nodes == nodes - 1);
    char *s = print_prog(p);
    CHECK(s && strstr(s, "torch.ops.aten.add.Tensor(neg, neg)") && !strstr(s, "neg_1"));
    CHECK(s && strstr(s, "rand_like_1"));
    free(s);
    CHECK(run_mlp(p, &got, &m));
    bool same = ref && got && n == m && n == 8;
    for (int64_t i = 0; same && i < n; i++) same = got[i] == ref[i];
    CHECK(same);
    CHECK(eir_program_run_pass(p, "cse", &removed) == EIR_OK && removed == 0);
    free(ref), free(got);
    eir_program_free(p);
}

/* torch.export leaves no dead code: dce finds nothing in any fixture (an
 * unused parameter, an effectful _print, assertions stay) and
 * the printed program stays the same (a wrong purity rule or a broken
 * renumbering would show here) */
static void test_fixtures_unchanged(void) {
    static const char *const NAMES[] = {"mlp", "mlp.decomp", "cond", "nested_cond", "while_loop", "scan", "map",
                                        "buffer_mutation", "input_mutation", "tied_weights", "lifted_constants",
                                        "dynamic_shapes", "sym_exprs", "effects", "nonzero_dyn", "custom_op",
                                        "custom_mutation", "storage", "optional_inputs", "dataclass_dyn"};
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++) {
        eir_program *p = load_fixture(NAMES[i]);
        if (!p) { CHECK(0); continue; }
        char *before = print_prog(p);
        uint32_t removed = 99;
        CHECK(eir_program_run_pass(p, "dce", &removed) == EIR_OK);
        char *after = print_prog(p);
        bool same = before && after && !strcmp(before, after);
        if (removed || !same) fprintf(stderr, "  %s: dce removed %u\n", NAMES[i], removed);
        CHECK(removed == 0 && same);
        free(before), free(after);
        eir_program_free(p);
    }
}

int main(void) {
    const char *dir = getenv("EIR_FIXTURES");
    if (dir) fixture_dir = dir;
    test_dead_insert_and_dce();
    test_rewrite_output();
    test_add_state();
    test_add_token();
    test_dce_drops_parameters();
    test_errors();
    test_nested();
    test_dce_keeps_side_effects();
    test_cse();
    test_fixtures_unchanged();
    return check_summary("test_edit");
}
