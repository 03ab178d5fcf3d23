/* test_verify.c — eir_program_verify through the public API, without torch:
 * committed fixtures verify clean in their dialects (tests/e2e/fixtures as
 * exported -> ATen, decomposed -> Core ATen, tests/verify/edge_mlp.pt2 ->
 * Edge), and the violations planted in tests/verify/planted_*.pt2 (by
 * tests/verify/plant.py) come back with their rule, node, target, argument,
 * subgraph and source line; the report formats as text and JSON; bad
 * arguments are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eir.h"

static const char *fixtures = "tests/e2e/fixtures";

static eir_program *load(const char *dir, const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.pt2", dir, name);
    eir_program *p = NULL;
    if (eir_program_load(path, &p) != EIR_OK) {
        fprintf(stderr, "cannot load %s: %s\n", path, eir_errmsg(p));
        eir_program_free(p);
        return NULL;
    }
    return p;
}

/* the number of violations of `name` in dialect d (-1 if it does not load) */
static int count(const char *dir, const char *name, eir_dialect d) {
    eir_program *p = load(dir, name);
    if (!p) return -1;
    eir_verify_report *r = NULL;
    eir_status st = eir_program_verify(p, d, &r);
    int n = r ? (int)eir_verify_num_violations(r) : -1;
    if (n > 0) {
        for (uint32_t i = 0; i < (uint32_t)n; i++) fprintf(stderr, "  %s: %s\n", name, eir_verify_violation(r, i)->message);
    }
    CHECK(st == (n == 0 ? EIR_OK : EIR_ERR_INVALID));
    eir_verify_report_free(r);
    eir_program_free(p);
    return n;
}

static void test_clean(void) {
    static const char *const aten[] = {"mlp", "cond", "nested_cond", "while_loop", "while_count", "map", "scan",
                                       "buffer_mutation", "input_mutation", "custom_op", "custom_mutation",
                                       "dynamic_shapes", "effects", "nonzero_dyn", "storage", "names_builtins",
                                       "names_vmap_unused", "sym_exprs", "tied_weights"};
    static const char *const core[] = {"mlp.decomp", "cond.decomp", "while_loop.decomp", "map.decomp", "scan.decomp",
                                       "buffer_mutation.decomp", "input_mutation.decomp", "custom_mutation.decomp",
                                       "effects.decomp", "dynamic_shapes.decomp", "lifted_constants.decomp"};
    for (size_t i = 0; i < sizeof aten / sizeof *aten; i++) CHECK(count(fixtures, aten[i], EIR_DIALECT_ATEN) == 0);
    for (size_t i = 0; i < sizeof core / sizeof *core; i++) {
        CHECK(count(fixtures, core[i], EIR_DIALECT_CORE) == 0);
        CHECK(count(fixtures, core[i], EIR_DIALECT_ATEN) == 0);
    }
    CHECK(count("tests/verify", "edge_mlp", EIR_DIALECT_EDGE) == 0);
}

typedef struct want {
    const char *rule, *graph, *node, *target, *arg, *text;
} want;

/* Verify a planted program; each wanted violation must be in the report with
 * exactly these fields (graph/node/target/arg NULL meaning NULL), and the
 * report must hold no others. */
static void planted(const char *name, eir_dialect d, const want *w, uint32_t nw) {
    eir_program *p = load("tests/verify", name);
    CHECK(p != NULL);
    if (!p) return;
    eir_verify_report *r = NULL;
    CHECK(eir_program_verify(p, d, &r) == EIR_ERR_INVALID);
    CHECK(r != NULL);
    if (!r) { eir_program_free(p); return; }
    CHECK(eir_verify_num_violations(r) == nw);
    for (uint32_t i = 0; i < nw; i++) {
        const eir_violation *v = eir_verify_violation(r, i);
        CHECK(v != NULL);
        if (!v) continue;
        CHECK_STR(v->rule, w[i].rule);
#define SAME(f) do { if (w[i].f) CHECK_STR(v->f, w[i].f); else CHECK(v->f == NULL); } while (0)
        SAME(graph);
        SAME(node);
        SAME(target);
        SAME(arg);
#undef SAME
        if (!strstr(v->message, w[i].text)) {
            fprintf(stderr, "%s: message '%s' lacks '%s'\n", name, v->message, w[i].text);
            CHECK(0);
        }
        if (v->node) {
            CHECK(v->source != NULL);
            if (v->source) {
                char tail[2048];
                snprintf(tail, sizeof tail, " [%s]", v->source);
                size_t lm = strlen(v->message), lt = strlen(tail);
                CHECK(lm > lt && !strcmp(v->message + lm - lt, tail));
            }
        }
    }
    CHECK(eir_verify_violation(r, nw) == NULL);
    /* the program's message: the count and the first violation */
    char head[64];
    snprintf(head, sizeof head, "%u violation%s of the ", nw, nw == 1 ? "" : "s");
    CHECK(!strncmp(eir_errmsg(p), head, strlen(head)));
    CHECK(nw == 0 || strstr(eir_errmsg(p), eir_verify_violation(r, 0)->message) != NULL);
    eir_verify_report_free(r);
    eir_program_free(p);
}

static void test_planted(void) {
    const want arg_unknown[] = {
        {"arg.unknown", NULL, "mul", "aten.mul.Tensor", "othr",
         "node %mul (aten.mul.Tensor): argument 'othr' is not in the schema of aten.mul.Tensor (its arguments: "
         "self, other) [File: "},
        {"arg.missing", NULL, "mul", "aten.mul.Tensor", "other", "argument 'other' (Tensor) is missing; it has no default"},
    };
    planted("planted_arg_unknown", EIR_DIALECT_ATEN, arg_unknown, 2);
    const want hop[] = {
        {"hop.subgraph", NULL, "cond", "higher_order.cond", "true_graph_0",
         "subgraph true_graph_0 takes 1 input, expected 2 (one per operand)"},
        {"hop.subgraph", NULL, "cond", "higher_order.cond", "false_graph_0",
         "subgraph false_graph_0 takes 1 input, expected 2 (one per operand)"},
    };
    planted("planted_hop_cond_operands", EIR_DIALECT_ATEN, hop, 2);
    const want nested[] = {
        {"op.unknown", "true_graph_0", "relu", "aten.relu_x.default", NULL,
         "node %relu (aten.relu_x.default) in true_graph_0: aten.relu_x.default is not an ATen operator of torch 2.13"},
    };
    planted("planted_nested_unknown", EIR_DIALECT_ATEN, nested, 1);
    const want mutation[] = {
        {"sig.mutation", NULL, NULL, NULL, "output_specs[0]",
         "signature: output_specs[0] (%add) mutates buffer 'nothere', which is not one of the program's buffers"},
    };
    planted("planted_sig_mutation_target", EIR_DIALECT_CORE, mutation, 1);
    const want dtype[] = {
        {"edge.dtype", NULL, "aten_relu_default", "aten.relu.default", NULL,
         "the dtypes (self: float32, __ret_0: int64) are not one of the combinations edge.yaml allows for "
         "aten.relu.default"},
        {"edge.dtype", NULL, "aten_permute_copy_default_1", "aten.permute_copy.default", NULL,
         "the dtypes (self: int64, __ret_0: float32)"},
    };
    planted("planted_edge_dtype", EIR_DIALECT_EDGE, dtype, 2);
    const want scalar[] = {
        {"edge.scalar", NULL, "aten_add_tensor", "aten.add.Tensor", "other",
         "argument 'other' is the number as_float where the schema wants a Tensor"},
    };
    planted("planted_edge_scalar", EIR_DIALECT_EDGE, scalar, 1);
    const want inplace[] = {
        {"op.functional", NULL, "relu", "aten.relu_.default", NULL,
         "aten.relu_.default is not functional (it writes its input in place); the Core ATen dialect allows only "
         "functional operators"},
        {"core.not-core", NULL, "relu", "aten.relu_.default", NULL, "is not in the Core ATen opset of torch 2.13"},
    };
    planted("planted_core_inplace", EIR_DIALECT_CORE, inplace, 2);
    /* the same program is a fine ATen program: in-place ops are allowed there */
    CHECK(count("tests/verify", "planted_core_inplace", EIR_DIALECT_ATEN) == 0);
}

static void test_format(void) {
    eir_program *p = load("tests/verify", "planted_edge_scalar");
    CHECK(p != NULL);
    if (!p) return;
    eir_verify_report *r = NULL;
    CHECK(eir_program_verify(p, EIR_DIALECT_EDGE, &r) == EIR_ERR_INVALID);
    char *text = NULL, *json = NULL;
    CHECK(eir_verify_report_format(r, false, &text) == EIR_OK);
    CHECK(eir_verify_report_format(r, true, &json) == EIR_OK);
    if (text && r) {
        size_t n = strlen(eir_verify_violation(r, 0)->message);
        CHECK(!strncmp(text, eir_verify_violation(r, 0)->message, n) && !strcmp(text + n, "\n"));
    }
    if (json) {
        const char *head = "{\"violations\": [\n  {\"rule\": \"edge.scalar\", \"graph\": null, \"node\": "
                           "\"aten_add_tensor\", \"target\": \"aten.add.Tensor\", \"arg\": \"other\", \"source\": "
                           "\"File: ";
        CHECK(!strncmp(json, head, strlen(head)));
        CHECK(strstr(json, "\"message\": \"node %aten_add_tensor (aten.add.Tensor): argument 'other' is the number "
                           "as_float") != NULL);
        CHECK(!strcmp(json + strlen(json) - 4, "\n]}\n"));
    }
    eir_free(text);
    eir_free(json);
    eir_verify_report_free(r);
    /* a clean report */
    eir_program *clean = load("tests/verify", "edge_mlp");
    CHECK(clean != NULL);
    if (!clean) { eir_program_free(p); return; }
    CHECK(eir_program_verify(clean, EIR_DIALECT_EDGE, &r) == EIR_OK);
    CHECK(eir_verify_num_violations(r) == 0 && eir_verify_violation(r, 0) == NULL);
    CHECK(eir_verify_report_format(r, true, &json) == EIR_OK);
    CHECK_STR(json, "{\"violations\": []}\n");
    CHECK(eir_verify_report_format(r, false, &text) == EIR_OK);
    CHECK_STR(text, "");
    eir_free(text);
    eir_free(json);
    eir_verify_report_free(r);
    eir_program_free(clean);
    /* bad arguments */
    CHECK(eir_program_verify(p, EIR_DIALECT_ATEN, NULL) == EIR_ERR_ARG);
    CHECK(eir_program_verify(p, (eir_dialect)7, &r) == EIR_ERR_ARG && r == NULL);
    CHECK(strstr(eir_errmsg(p), "unknown dialect") != NULL);
    CHECK(eir_program_verify(NULL, EIR_DIALECT_ATEN, &r) == EIR_ERR_ARG && r == NULL);
    CHECK(eir_verify_report_format(NULL, false, &text) == EIR_ERR_ARG && text == NULL);
    CHECK(eir_verify_num_violations(NULL) == 0 && eir_verify_violation(NULL, 0) == NULL);
    eir_verify_report_free(NULL);
    eir_dialect d;
    CHECK(eir_dialect_parse("core", &d) && d == EIR_DIALECT_CORE);
    CHECK(eir_dialect_parse("edge", &d) && d == EIR_DIALECT_EDGE);
    CHECK(eir_dialect_parse("aten", &d) && d == EIR_DIALECT_ATEN);
    CHECK(eir_dialect_parse("backend", &d) && d == EIR_DIALECT_BACKEND);
    CHECK(!eir_dialect_parse("cpu", &d) && !eir_dialect_parse(NULL, &d));
    eir_program_free(p);
}

int main(void) {
    const char *env = getenv("EIR_FIXTURES");
    if (env && *env) fixtures = env;
    test_clean();
    test_planted();
    test_format();
    return check_summary("test_verify");
}
