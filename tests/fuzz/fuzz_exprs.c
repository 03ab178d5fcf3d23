/* fuzz_exprs.c — libFuzzer target: the two expression languages an archive
 * carries as text. The input is parsed as sympy srepr (symbolic sizes) and
 * as a Python guard (guards_code); whatever parses is printed and evaluated
 * with every symbol and input accessor bound to small values. Seeds: any
 * srepr or guard text (the fixtures' model.json records contain both). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir/pyexpr.h"
#include "ir/sym.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool any_symbol(void *ctx, const char *name, eir_sym_value *v) {
    (void)ctx;
    *v = (eir_sym_value){false, (int64_t)(strlen(name) % 7) + 1, 0};
    v->f = (double)v->i;
    return true;
}

static bool any_input(void *ctx, const char *chain, int what, int64_t dim, uint32_t *ref, char *err, size_t errlen) {
    (void)ctx; (void)chain; (void)what; (void)err; (void)errlen;
    *ref = (uint32_t)(dim & 3);
    return true;
}

static bool input_value(void *ctx, const eir_py_node *n, eir_sym_value *out, char *err, size_t errlen) {
    (void)ctx; (void)err; (void)errlen;
    *out = (eir_sym_value){false, (int64_t)n->ref + 2, (double)n->ref + 2};
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    eir_arena arena;
    eir_arena_init(&arena);
    char err[512];
    eir_sym_node *s = eir_sym_parse(&arena, text, err, sizeof err);
    if (s) {
        eir_buf b;
        eir_buf_init(&b);
        eir_sym_print(&b, s);
        eir_buf_free(&b);
        eir_sym_value v;
        (void)eir_sym_eval_value(s, any_symbol, NULL, &v, err, sizeof err);
    }
    eir_py_node *g = eir_py_parse(&arena, text, err, sizeof err);
    if (g) {
        eir_buf b;
        eir_buf_init(&b);
        eir_py_unparse(&b, g, true);
        eir_buf_free(&b);
        eir_sym_value v;
        if (eir_py_resolve(&arena, &g, any_input, NULL, err, sizeof err))
            (void)eir_py_eval(g, input_value, NULL, &v, err, sizeof err);
    }
    eir_arena_release(&arena);
    free(text);
    return 0;
}
