/* test_sym.c — sympy srepr parsing and str() printing. Expected strings are
 * what sympy 1.x / torch 2.13 print for the same expressions. */
#include "base/base.h"
#include "check.h"
#include "ir/sym.h"

static eir_arena arena;

static void roundtrip(const char *srepr, const char *want) {
    char err[256];
    eir_sym_node *n = eir_sym_parse(&arena, srepr, err, sizeof err);
    CHECK(n != NULL);
    if (!n) { fprintf(stderr, "  %s\n", err); return; }
    eir_buf b;
    eir_buf_init(&b);
    eir_sym_print(&b, n);
    CHECK_STR(b.data, want);
    eir_buf_free(&b);
}

static void bad(const char *srepr, const char *want_in_err) {
    char err[256];
    eir_sym_node *n = eir_sym_parse(&arena, srepr, err, sizeof err);
    CHECK(n == NULL);
    CHECK(strstr(err, want_in_err) != NULL);
    if (!strstr(err, want_in_err)) fprintf(stderr, "  error was: %s\n", err);
}

#define S0 "Symbol('s0', integer=True, positive=True)"
#define S1 "Symbol('s1', integer=True, positive=True)"

int main(void) {
    eir_arena_init(&arena);
    roundtrip("Symbol('s77', positive=True, integer=True)", "s77");
    roundtrip("Integer(-3)", "-3");
    roundtrip("Mul(Integer(2), " S0 ")", "2*s0");
    roundtrip("Add(" S0 ", Integer(1))", "s0 + 1");
    roundtrip("Add(Integer(1), " S0 ")", "s0 + 1");
    roundtrip("Add(" S0 ", Integer(-1))", "s0 - 1");
    roundtrip("FloorDiv(" S0 ", Integer(2))", "(s0//2)");
    roundtrip("FloorDiv(Mul(Integer(2), " S0 "), Integer(3))", "((2*s0)//3)");
    roundtrip("Max(" S0 ", " S1 ")", "Max(s0, s1)");
    roundtrip("Add(Mul(Integer(2), " S0 "), " S1 ")", "2*s0 + s1");
    roundtrip("Mul(" S0 ", " S1 ")", "s0*s1");
    roundtrip("Mul(Integer(-1), " S0 ")", "-s0");
    roundtrip("Pow(" S0 ", Integer(2))", "s0**2");
    roundtrip("Add(" S0 ", " S1 ", Integer(3))", "s0 + s1 + 3");
    roundtrip("Equality(" S0 ", Integer(2))", "Eq(s0, 2)");
    roundtrip("StrictLessThan(" S0 ", Integer(4))", "s0 < 4");
    roundtrip("Add(Mul(Integer(3), " S0 "), Integer(-2))", "3*s0 - 2");
    roundtrip("Mul(Rational(1, 2), " S0 ")", "s0/2");
    roundtrip("Symbol('u0', integer=True)", "u0");
    roundtrip("true", "True");
    roundtrip("Float('1.5', precision=53)", "1.5");

    bad("Symbol('s0'", "expected ',' or ')'");
    bad("Symbol('s0", "unterminated");
    bad("Symbol('s0') junk", "trailing text");
    bad("Integer(99999999999999999999999)", "out of range");
    bad("", "unexpected end");
    bad("@", "unexpected character");
    bad("foo", "unknown name");
    bad("Rational(1, 0)", "Rational");
    /* deep nesting is refused, not a stack overflow */
    static char deep[20000];
    size_t k = 0;
    for (int i = 0; i < 3000; i++) { memcpy(deep + k, "Max(", 4); k += 4; }
    deep[k] = 0;
    bad(deep, "nesting too deep");
    eir_arena_release(&arena);
    return check_summary("test_sym");
}
