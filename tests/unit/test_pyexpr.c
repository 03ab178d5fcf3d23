/* test_pyexpr.c — the Python expressions of torch's guards: parsing,
 * printing as ast.unparse does (plain and in torch's message form), input
 * accessors, and evaluation. Expected texts and values (pyexpr_cases.inc)
 * come from Python 3.11's ast.unparse and eval on the same texts, with
 * x.size() = (10, 7), x.stride() = (7, 1), n = 9, a..z small ints. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/base.h"
#include "check.h"
#include "ir/pyexpr.h"
#include "pyexpr_cases.inc"

static eir_arena arena;

static void unparse_case(const char *text, const char *want, const char *want_shadow) {
    char err[256];
    eir_py_node *n = eir_py_parse(&arena, text, err, sizeof err);
    CHECK(n != NULL);
    if (!n) { fprintf(stderr, "  %s: %s\n", text, err); return; }
    eir_buf b;
    eir_buf_init(&b);
    eir_py_unparse(&b, n, false);
    CHECK_STR(b.data, want);
    eir_buf_free(&b);
    eir_buf_init(&b);
    eir_py_unparse(&b, n, true);
    CHECK_STR(b.data, want_shadow);
    eir_buf_free(&b);
}

/* refs: 0.. for names a..z, 100 for L['x'] and the other tensors, 101 for L['n'] */
static bool resolve(void *ctx, const char *chain, int what, int64_t dim, uint32_t *ref, char *err, size_t errlen) {
    (void)ctx;
    (void)dim;
    if (!strncmp(chain, "L[", 2)) {
        *ref = !strcmp(chain, "L['n']") ? 101 : 100;
        if (*ref == 101 && what != EIR_PY_VALUE) { snprintf(err, errlen, "n is not a tensor"); return false; }
        return true;
    }
    if (strlen(chain) == 1 && chain[0] >= 'a' && chain[0] <= 'z' && what == EIR_PY_VALUE) { *ref = (uint32_t)(chain[0] - 'a'); return true; }
    snprintf(err, errlen, "unknown input %s", chain);
    return false;
}

static bool source(void *ctx, const eir_py_node *n, eir_sym_value *out, char *err, size_t errlen) {
    (void)ctx;
    static const int64_t letters[26] = {['a' - 'a'] = 0, ['b' - 'a'] = 1, ['c' - 'a'] = 2, ['d' - 'a'] = 0, ['e' - 'a'] = 5,
                                        ['w' - 'a'] = 6, ['x' - 'a'] = 12, ['y' - 'a'] = 5, ['z' - 'a'] = 3};
    int64_t v;
    if (n->ref == 101) v = 9;
    else if (n->ref == 100) {
        static const int64_t sizes[2] = {10, 7}, strides[2] = {7, 1};
        if (n->what == EIR_PY_STORAGE_OFFSET) v = 0;
        else if (n->i < 0 || n->i > 1) { snprintf(err, errlen, "dim %lld out of range", (long long)n->i); return false; }
        else v = n->what == EIR_PY_SIZE ? sizes[n->i] : strides[n->i];
    } else v = letters[n->ref];
    *out = (eir_sym_value){false, v, (double)v};
    return true;
}

static void eval_case(const char *text, double want, int is_float) {
    char err[256];
    eir_py_node *n = eir_py_parse(&arena, text, err, sizeof err);
    CHECK(n != NULL);
    if (!n) return;
    bool ok = eir_py_resolve(&arena, &n, resolve, NULL, err, sizeof err);
    CHECK(ok);
    if (!ok) { fprintf(stderr, "  %s: %s\n", text, err); return; }
    eir_sym_value v;
    ok = eir_py_eval(n, source, NULL, &v, err, sizeof err);
    double got = v.is_float ? v.f : (double)v.i;
    CHECK(ok && v.is_float == (is_float != 0) && (got == want || fabs(got - want) < 1e-12 * fabs(want)));
    if (!ok || v.is_float != (is_float != 0) || !(got == want || fabs(got - want) < 1e-12 * fabs(want)))
        fprintf(stderr, "  %s: got %.17g%s (%s), want %.17g%s\n", text, got, v.is_float ? " float" : "", ok ? "ok" : err,
                want, is_float ? " float" : "");
    /* a SOURCE prints as the accessor it replaced */
    eir_buf b;
    eir_buf_init(&b);
    eir_py_unparse(&b, n, false);
    eir_py_node *again = eir_py_parse(&arena, text, err, sizeof err);
    eir_buf b2;
    eir_buf_init(&b2);
    eir_py_unparse(&b2, again, false);
    CHECK_STR(b.data, b2.data);
    eir_buf_free(&b);
    eir_buf_free(&b2);
}

static void bad(const char *text, const char *want_in_err) {
    char err[256];
    eir_py_node *n = eir_py_parse(&arena, text, err, sizeof err);
    CHECK(n == NULL && strstr(err, want_in_err) != NULL);
    if (n || !strstr(err, want_in_err)) fprintf(stderr, "  %s: error was '%s'\n", text, n ? "(parsed)" : err);
}

static void eval_error(const char *text, const char *want_in_err) {
    char err[256];
    eir_py_node *n = eir_py_parse(&arena, text, err, sizeof err);
    CHECK(n != NULL);
    if (!n) return;
    eir_sym_value v;
    bool ok = eir_py_resolve(&arena, &n, resolve, NULL, err, sizeof err) && eir_py_eval(n, source, NULL, &v, err, sizeof err);
    CHECK(!ok && strstr(err, want_in_err));
    if (ok || !strstr(err, want_in_err)) fprintf(stderr, "  %s: error was '%s'\n", text, ok ? "(none)" : err);
}

/* Parser robustness: every prefix and random byte mutations of real guard
 * texts parse or fail with a message, and what parses evaluates or fails
 * cleanly; never a crash (run under ASan too). */
static void fuzz_parse(void) {
    static const char *seeds[] = {
        "1 + (L['x'].size()[0] + ((-1)*L['y'].size()[0]) if L['y'].size()[0] < L['x'].size()[0] else L['y'].size()[0] + ((-1)*L['x'].size()[0])) >= 2",
        "(((-1) + L['v'].size()[0]) % 3) == 0",
        "L['xs'][1]['a'].size()[0] == (2*L['p'].y.size()[0])",
        "not (math.ceil(L['n'] / 3) != 2) and max(L['n'], 4) ** 2 >> 1 <= 100",
    };
    uint32_t rng = 4321;
    char buf[512];
    int parsed = 0, refused = 0;
    for (size_t si = 0; si < EIR_ARRAY_LEN(seeds); si++) {
        size_t len = strlen(seeds[si]);
        for (size_t cut = 0; cut <= len; cut++) {
            memcpy(buf, seeds[si], cut);
            buf[cut] = 0;
            char err[256];
            if (eir_py_parse(&arena, buf, err, sizeof err)) parsed++;
            else { refused++; CHECK(err[0] != 0); }
        }
        for (int k = 0; k < 2000; k++) {
            memcpy(buf, seeds[si], len + 1);
            for (int m = 0; m < 3; m++) {
                rng = rng * 1103515245u + 12345u;
                size_t at = (rng >> 8) % len;
                rng = rng * 1103515245u + 12345u;
                buf[at] = "()[]'.,=<>!+-*/%&|^~ 019aLnxz"[(rng >> 8) % 29];
            }
            char err[256];
            eir_py_node *n = eir_py_parse(&arena, buf, err, sizeof err);
            if (!n) { refused++; CHECK(err[0] != 0); continue; }
            parsed++;
            eir_buf b;
            eir_buf_init(&b);
            eir_py_unparse(&b, n, true);
            eir_buf_free(&b);
            eir_sym_value v;
            if (eir_py_resolve(&arena, &n, resolve, NULL, err, sizeof err)) (void)eir_py_eval(n, source, NULL, &v, err, sizeof err);
        }
    }
    CHECK(parsed > 0 && refused > 0);
}

int main(void) {
    eir_arena_init(&arena);
    for (size_t i = 0; i < EIR_ARRAY_LEN(unparse_cases); i++)
        unparse_case(unparse_cases[i].text, unparse_cases[i].unparsed, unparse_cases[i].shadow);
    for (size_t i = 0; i < EIR_ARRAY_LEN(eval_cases); i++)
        eval_case(eval_cases[i].text, eval_cases[i].want, eval_cases[i].is_float);

    bad("L['x'].size()[0] ==", "unexpected end");
    bad("L['x'.size()", "expected ']'");
    bad("(1 + 2", "expected ')'");
    bad("f(1, 2", "expected ',' or ')'");
    bad("1 +* 2", "unexpected character");
    bad("x if y", "expected 'else'");
    bad("'abc", "unterminated string");
    bad("99999999999999999999", "integer out of range");
    bad("1 2", "trailing text");
    bad("and", "unexpected keyword");
    bad("x.", "expected an attribute name");
    static char deep[4000];
    for (int i = 0; i < 1000; i++) deep[i] = '(';
    bad(deep, "nesting too deep");
    for (int i = 0; i < 1000; i++) { deep[2 * i] = '-'; deep[2 * i + 1] = ' '; }
    deep[2000] = '1';
    bad(deep, "nesting too deep");

    eval_error("L['x'].size()[2] == 1", "dim 2 out of range");
    eval_error("L['n'].size()[0] == 1", "n is not a tensor");
    eval_error("L['n'] // 0", "division by zero");
    eval_error("L['n'] % 0", "modulo by zero");
    eval_error("9223372036854775807 + L['n']", "integer overflow");
    eval_error("frob(L['n'])", "unsupported function frob");
    eval_error("math.ceil(math.inf)", "cannot convert inf");
    eval_error("q.r.s", "unknown input");
    fuzz_parse();
    eir_arena_release(&arena);
    return check_summary("test_pyexpr");
}
