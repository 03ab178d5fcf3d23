/* test_dot.c — eir_program_dot through the public API, without torch: the
 * bundled examples/mlp.pt2 draws with one DOT node per placeholder, call and
 * output and its data-flow edges; a stack trace and a module path full of
 * DOT's special characters come out escaped; collapse folds the modules into
 * boxes; bad arguments are refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eir.h"

static int occurrences(const char *s, const char *sub) {
    int n = 0;
    for (const char *q = strstr(s, sub); q; q = strstr(q + 1, sub)) n++;
    return n;
}

int main(void) {
    eir_program *p = NULL;
    if (eir_program_load("examples/mlp.pt2", &p) != EIR_OK) {
        fprintf(stderr, "cannot load examples/mlp.pt2: %s\n", eir_errmsg(p));
        eir_program_free(p);
        return 1;
    }
    char *text = NULL;
    CHECK(eir_program_dot(p, NULL, &text) == EIR_OK && text);
    if (text) {
        CHECK(strncmp(text, "digraph", 7) == 0);
        CHECK(strstr(text, "\"x\" [label=\"x\\nuser input\\nf32[2, 8]\"") != NULL);
        CHECK(strstr(text, "\"linear\" [label=\"linear\\naten.linear\\nf32[2, 16]\"") != NULL);
        CHECK(strstr(text, "\"x\" -> \"linear\";") != NULL);
        CHECK(strstr(text, "\"linear_2\" -> \"output\";") != NULL);
        CHECK(occurrences(text, " -> ") == 12 + 11);  /* 12 data-flow edges, the legend chain of 12 */
        CHECK(strstr(text, "label=\"fc1\\nLinear\"") != NULL);
    }
    eir_free(text);

    /* escaping: quotes, backslashes, newlines, a trailing backslash */
    eir_graph *g = eir_program_graph_mut(p);
    eir_node *relu = NULL;
    for (uint32_t i = 0; i < g->num_nodes; i++)
        if (!strcmp(g->nodes[i].name, "relu")) relu = (eir_node *)&g->nodes[i];
    CHECK(relu != NULL);
    if (relu) {
        CHECK(eir_node_set_metadata(p, relu, "stack_trace", "a \"q\" <b> & c\\d\ne\\") == EIR_OK);
        CHECK(eir_node_set_metadata(p, relu, "nn_module_stack",
                                    "L__self__,,M;L__self___w,w\"x\\y,pkg.W<1>") == EIR_OK);
        text = NULL;
        CHECK(eir_program_dot(p, NULL, &text) == EIR_OK && text);
        if (text) {
            CHECK(strstr(text, "tooltip=\"a \\\"q\\\" <b> & c\\\\d\\ne\\\\\"") != NULL);
            CHECK(strstr(text, "label=\"w\\\"x\\\\y\\nW<1>\"") != NULL);
        }
        eir_free(text);
    }

    /* collapse 0: one box per direct submodule, counting its ops */
    eir_dot_options o = {0, false, true};
    text = NULL;
    CHECK(eir_program_dot(p, &o, &text) == EIR_OK && text);
    if (text) {
        CHECK(strstr(text, "\"module:L__self__fc1\" [label=\"fc1\\nLinear\\n1 op\"") != NULL);
        CHECK(strstr(text, "\"linear\" [") == NULL);
        CHECK(strstr(text, "\"x\" -> \"module:L__self__fc1\";") != NULL);
        CHECK(strstr(text, "legend") == NULL);
    }
    eir_free(text);

    CHECK(eir_program_dot(p, NULL, NULL) == EIR_ERR_ARG);
    CHECK(eir_program_dot(NULL, NULL, &text) == EIR_ERR_ARG);
    eir_program_free(p);
    return check_summary("test_dot");
}
