/* test_unbacked.c — the editing helpers the to-core rules use for unbacked
 * symbols (src/ir/edit.h), on the nonzero_check fixture (nonzero binds u0,
 * range [1, 20], with its runtime assertions): the first free index, the
 * symbols a graph's nodes bind, a new symbol with its range, moving a node
 * (and refusing a move that would read a value before its definition),
 * and new values not named after builtins. */
#include <stdlib.h>

#include "check.h"
#include "fixture.h"
#include "../../src/ir/edit.h"

static char *print_prog(eir_program *p) {
    char *s = NULL;
    if (eir_program_print(p, EIR_PRINT_PROGRAM, &s) != EIR_OK) {
        fprintf(stderr, "print: %s\n", eir_errmsg(p));
        return NULL;
    }
    return s;
}

static uint32_t node_named(const eir_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->num_nodes; i++)
        if (g->nodes[i].name && !strcmp(g->nodes[i].name, name)) return i;
    return UINT32_MAX;
}

static uint32_t value_named(const eir_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->num_values; i++)
        if (!strcmp(g->values[i].name, name)) return i;
    return EIR_NO_VALUE;
}

static void test_numbering(void) {
    eir_program *p = load_fixture("nonzero_check");
    CHECK(p);
    if (!p) return;
    eir_graph *g = eir_program_graph_mut(p);
    CHECK(eir_program_unbacked_base(p) == 1);
    uint32_t nz = node_named(g, "nonzero"), n = 99;
    CHECK(nz != UINT32_MAX);
    /* nonzero's output binds u0; the nodes before it bind none, those after nothing new */
    CHECK(eir_graph_unbacked_bindings(p, g, nz, &n) == EIR_OK && n == 0);
    CHECK(eir_graph_unbacked_bindings(p, g, nz + 1, &n) == EIR_OK && n == 1);
    CHECK(eir_graph_unbacked_bindings(p, g, g->num_nodes, &n) == EIR_OK && n == 1);
    CHECK(eir_graph_unbacked_bindings(p, g, g->num_nodes + 5, &n) == EIR_OK && n == 1);

    /* a new symbol u1 in [0, 7], and an unbounded u5 */
    uint32_t nr = eir_program_num_ranges(p), e1 = 0, e5 = 0;
    eir_range r = {NULL, 0, 7, true, true};
    CHECK(eir_program_add_unbacked(p, 1, &r, &e1) == EIR_OK);
    CHECK_STR(eir_expr_srepr(p, e1), "Symbol('u1', integer=True)");
    CHECK_STR(eir_expr_str(p, e1), "u1");
    CHECK(eir_program_num_ranges(p) == nr + 1);
    const eir_range *got = eir_program_range(p, nr);
    CHECK(got && !strcmp(got->symbol, "u1") && got->has_min && got->min == 0 && got->has_max && got->max == 7);
    eir_range unb = {0};
    CHECK(eir_program_add_unbacked(p, 5, &unb, &e5) == EIR_OK && e5 != e1);
    got = eir_program_range(p, nr + 1);
    CHECK(got && !strcmp(got->symbol, "u5") && !got->has_min && !got->has_max);
    CHECK(eir_program_unbacked_base(p) == 6);
    /* names the program has, and empty ranges, are refused and change nothing */
    uint32_t ex = 0;
    CHECK(eir_program_add_unbacked(p, 0, &unb, &ex) == EIR_ERR_GRAPH);
    CHECK(strstr(eir_errmsg(p), "already has a symbol u0") != NULL);
    CHECK(eir_program_add_unbacked(p, 1, &unb, &ex) == EIR_ERR_GRAPH);
    eir_range empty = {NULL, 3, 2, true, true};
    CHECK(eir_program_add_unbacked(p, 9, &empty, &ex) == EIR_ERR_ARG);
    CHECK(eir_program_num_ranges(p) == nr + 2);

    /* a SymInt value holding u1, defined by a new node: one more binding there */
    uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_SYM_INT, NULL, "_local_scalar_dense");
    CHECK(v != EIR_NO_VALUE);
    eir_symint s = {0};
    s.is_expr = true;
    s.expr = e1;
    ((eir_value *)&g->values[v])->sym = s;
    eir_arg in = {0};
    in.kind = EIR_ARG_TENSOR;
    in.value = value_named(g, "nonzero");
    eir_named_arg ins[1] = {{"self", in, 1}};
    eir_arg out = {0};
    out.kind = EIR_ARG_SYM_INT;
    out.value = v;
    /* (an op that reads a tensor into a SymInt; the graph is not run) */
    CHECK(eir_graph_insert_node(p, g, nz + 1, "torch.ops.aten._local_scalar_dense.default", 1, ins, 1, &out, NULL) ==
          EIR_OK);
    CHECK(eir_graph_unbacked_bindings(p, g, nz + 1, &n) == EIR_OK && n == 1);
    CHECK(eir_graph_unbacked_bindings(p, g, nz + 2, &n) == EIR_OK && n == 2);
    char *s1 = print_prog(p);
    CHECK(s1 && strstr(s1, "_local_scalar_dense: \"Sym(u1)\"") && strstr(s1, "u1: VR[0, 7]"));
    eir_free(s1);
    eir_program_free(p);
}

static void test_move(void) {
    eir_program *p = load_fixture("nonzero_check");
    CHECK(p);
    if (!p) return;
    eir_graph *g = eir_program_graph_mut(p);
    char *before = print_prog(p);
    uint32_t ss = node_named(g, "sym_size_int_1"), le = node_named(g, "le_1"), ge = node_named(g, "ge_1");
    CHECK(ss != UINT32_MAX && le != UINT32_MAX && ge == ss + 1 && le > ge);
    /* le_1 reads sym_size_int_1: it may move right after it */
    CHECK(eir_graph_move_node(p, g, le, ss + 1) == EIR_OK);
    CHECK(node_named(g, "le_1") == ss + 1 && node_named(g, "ge_1") == ss + 2);
    CHECK(g->values[value_named(g, "le_1")].producer == (int32_t)(ss + 1));
    CHECK(g->values[value_named(g, "ge_1")].producer == (int32_t)(ss + 2));
    char *moved = print_prog(p);
    CHECK(moved && before && strcmp(moved, before) != 0);
    CHECK(moved && strstr(moved, "le_1: \"Sym(u0 <= 20)\"") < strstr(moved, "ge_1: \"Sym(u0 >= 1)\""));
    /* the program still runs: the assertions hold on the fixture's input */
    npy_array in[1];
    eir_runtime *rt = fixture_runtime(p, NULL, "nonzero_check", in, 1);
    CHECK(rt);
    if (rt) {
        eir_status st = eir_runtime_run(rt);
        if (st) fprintf(stderr, "run: %s\n", eir_runtime_errmsg(rt));
        CHECK(st == EIR_OK);
        eir_runtime_free(rt);
        free(in[0].data);
    }
    /* sym_size_int_1 reads nonzero: it cannot move before it; nor may a node move later */
    uint32_t nz = node_named(g, "nonzero");
    CHECK(eir_graph_move_node(p, g, ss, nz) == EIR_ERR_GRAPH);
    CHECK(strstr(eir_errmsg(p), "cannot move node sym_size_int_1") != NULL);
    CHECK(eir_graph_move_node(p, g, ss, ss + 2) == EIR_ERR_ARG);
    CHECK(eir_graph_move_node(p, g, g->num_nodes, 0) == EIR_ERR_ARG);
    CHECK(eir_graph_move_node(p, g, ss, ss) == EIR_OK);
    char *after = print_prog(p);
    CHECK(after && moved && !strcmp(after, moved));
    /* new values are not named after builtins (FX would rename such a node) */
    eir_tensor_meta m = g->values[value_named(g, "nonzero")].meta;
    uint32_t a = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &m, "slice");
    uint32_t b = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &m, "input");
    uint32_t c = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &m, "slice");
    CHECK_STR(g->values[a].name, "slice_1");
    CHECK_STR(g->values[b].name, "input_1");
    CHECK_STR(g->values[c].name, "slice_2");
    eir_free(before);
    eir_free(moved);
    eir_free(after);
    eir_program_free(p);
}

int main(void) {
    const char *dir = getenv("EIR_FIXTURES");
    if (dir) fixture_dir = dir;
    test_numbering();
    test_move();
    return check_summary("test_unbacked");
}
