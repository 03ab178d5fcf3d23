/* test_sym.c — sympy srepr parsing, str() printing and evaluation. Expected
 * strings are what sympy 1.x / torch 2.13 print for the same expressions;
 * expected values (sym_cases.inc) were computed by sympy with torch's
 * definitions of FloorDiv, Mod, CeilToInt, ... at s0=10, s1=7, u0=-9. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/base.h"
#include "check.h"
#include "ir/sym.h"
#include "sym_cases.inc"
#include "sym_print_cases.inc"
#include "sym_order_cases.inc"
#include "sym_float_print_cases.inc"

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

static bool lookup(void *ctx, const char *name, eir_sym_value *v) {
    (void)ctx;
    int64_t x;
    if (!strcmp(name, "s0")) x = 10;
    else if (!strcmp(name, "s1")) x = 7;
    else if (!strcmp(name, "u0")) x = -9;
    else return false;
    *v = (eir_sym_value){false, x, (double)x};
    return true;
}

static void eval_int(const char *srepr, int64_t want) {
    char err[256];
    eir_sym_node *n = eir_sym_parse(&arena, srepr, err, sizeof err);
    CHECK(n != NULL);
    if (!n) { fprintf(stderr, "  %s\n", err); return; }
    int64_t got = -12345;
    bool ok = eir_sym_eval(n, lookup, NULL, &got, err, sizeof err);
    CHECK(ok && got == want);
    if (!ok || got != want) fprintf(stderr, "  %s: got %lld (%s), want %lld\n", srepr, (long long)got, ok ? "ok" : err, (long long)want);
}

static void eval_float(const char *srepr, double want) {
    char err[256];
    eir_sym_node *n = eir_sym_parse(&arena, srepr, err, sizeof err);
    CHECK(n != NULL);
    if (!n) { fprintf(stderr, "  %s\n", err); return; }
    eir_sym_value v = {0};
    bool ok = eir_sym_eval_value(n, lookup, NULL, &v, err, sizeof err);
    CHECK(ok && v.is_float && fabs(v.f - want) <= 1e-12 * fabs(want));
    if (!ok || !v.is_float || fabs(v.f - want) > 1e-12 * fabs(want))
        fprintf(stderr, "  %s: got %.17g (%s), want %.17g\n", srepr, v.f, ok ? "ok" : err, want);
}

static void eval_error(const char *srepr, const char *want_in_err) {
    char err[256];
    eir_sym_node *n = eir_sym_parse(&arena, srepr, err, sizeof err);
    CHECK(n != NULL);
    if (!n) return;
    int64_t got;
    bool ok = eir_sym_eval(n, lookup, NULL, &got, err, sizeof err);
    CHECK(!ok && strstr(err, want_in_err));
    if (ok || !strstr(err, want_in_err)) fprintf(stderr, "  %s: error was '%s'\n", srepr, ok ? "(none)" : err);
}

/* Parser robustness: every prefix and random byte mutations of valid texts
 * either parse or fail with a message; never crash (run under ASan too). */
static void fuzz_parse(void) {
    static const char *seeds[] = {
        "Add(Mul(Integer(2), Symbol('s0', integer=True, positive=True)), Integer(-1))",
        "Piecewise(ExprCondPair(Symbol('s0', integer=True), StrictLessThan(Symbol('s1'), Integer(3))), ExprCondPair(Integer(0), true))",
        "Mul(Float('0.5', precision=53), ToFloat(Symbol('s77', positive=True, integer=True)))",
        "Max(-int_oo, Rational(1, 2), Symbol('u0', integer=True))",
    };
    uint32_t rng = 12345;
    char buf[512];
    int parsed = 0, refused = 0;
    for (size_t si = 0; si < EIR_ARRAY_LEN(seeds); si++) {
        size_t len = strlen(seeds[si]);
        for (size_t cut = 0; cut <= len; cut++) {
            memcpy(buf, seeds[si], cut);
            buf[cut] = 0;
            char err[256];
            eir_sym_node *n = eir_sym_parse(&arena, buf, err, sizeof err);
            if (n) parsed++;
            else { refused++; CHECK(err[0] != 0); }
        }
        for (int k = 0; k < 2000; k++) {
            memcpy(buf, seeds[si], len + 1);
            for (int m = 0; m < 3; m++) {
                rng = rng * 1103515245u + 12345u;
                size_t at = (rng >> 8) % len;
                rng = rng * 1103515245u + 12345u;
                buf[at] = (char)("()',=-_ 0123456789aAzZ.\x01\xff"[(rng >> 8) % 25]);
            }
            char err[256];
            eir_sym_node *n = eir_sym_parse(&arena, buf, err, sizeof err);
            if (n) {
                int64_t v;
                (void)eir_sym_eval(n, lookup, NULL, &v, err, sizeof err);
                parsed++;
            } else {
                refused++;
                if (!err[0]) { CHECK(err[0] != 0); fprintf(stderr, "  no message for '%s'\n", buf); }
            }
        }
    }
    CHECK(parsed > 0 && refused > 0);
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
    roundtrip("Float('1.5', precision=53)", "1.50000000000000");
    for (size_t i = 0; i < EIR_ARRAY_LEN(float_print_cases); i++) roundtrip(float_print_cases[i].srepr, float_print_cases[i].str);   /* sympy: a Float alone keeps 15 digits */

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
    /* printing of what torch writes for dynamic programs */
    roundtrip("PowByNatural(Integer(2), FloorDiv(" S1 ", Integer(4)))", "PowByNatural(2, (s1//4))");
    roundtrip("FloorDiv(" S0 ", PowByNatural(Integer(2), " S1 "))", "(s0//(PowByNatural(2, s1)))");
    roundtrip("And(StrictGreaterThan(" S0 ", Integer(2)), StrictLessThan(" S1 ", Integer(4)))", "(s0 > 2) & (s1 < 4)");
    roundtrip("Or(Equality(" S0 ", Integer(2)), StrictLessThan(" S1 ", Integer(4)))", "Eq(s0, 2) | (s1 < 4)");
    roundtrip("Piecewise(ExprCondPair(" S0 ", StrictLessThan(" S1 ", " S0 ")), ExprCondPair(" S1 ", true))",
              "Piecewise((s0, s1 < s0), (s1, True))");
    roundtrip("Mul(Float('0.5', precision=53), ToFloat(" S0 "))", "0.5*ToFloat(s0)");
    roundtrip("TruncToInt(IntTrueDiv(" S0 ", Integer(3)))", "TruncToInt(IntTrueDiv(s0, 3))");
    roundtrip("Max(-int_oo, " S0 ")", "Max(-int_oo, s0)");
    roundtrip("int_oo", "int_oo");
    roundtrip("-oo", "-oo");

    for (size_t i = 0; i < EIR_ARRAY_LEN(print_cases); i++) roundtrip(print_cases[i].srepr, print_cases[i].str);
    for (size_t i = 0; i < EIR_ARRAY_LEN(order_cases); i++) roundtrip(order_cases[i].srepr, order_cases[i].str);

    /* evaluation, against sympy's own values */
    for (size_t i = 0; i < EIR_ARRAY_LEN(int_cases); i++) eval_int(int_cases[i].srepr, int_cases[i].want);
    for (size_t i = 0; i < EIR_ARRAY_LEN(float_cases); i++) eval_float(float_cases[i].srepr, float_cases[i].want);
    eval_int("Mul(Rational(1, 2), " S0 ")", 5);           /* s0/2 with s0 even is a whole size */
    eval_int("Max(Integer(3), Float('2.5', precision=53))", 3);
    eval_error("Mul(Rational(1, 3), " S0 ")", "not an integer");
    eval_error("FloorDiv(" S0 ", Add(" S0 ", Integer(-10)))", "division by zero");
    eval_error("PythonMod(" S0 ", Integer(0))", "modulo by zero in PythonMod");
    eval_error("Mul(Integer(4611686018427387904), " S0 ")", "overflow");
    eval_error("PowByNatural(Integer(2), Integer(64))", "overflow");
    eval_error("Add(Symbol('u7', integer=True), Integer(1))", "symbol u7 has no value");
    eval_error("CeilToInt(FloatTrueDiv(Float('1.0', precision=53), Float('0.0', precision=53)))", "division by zero");
    eval_error("CeilToInt(Mul(Float('1e300', precision=53), Float('1e300', precision=53)))", "not an integer");
    eval_error("LShift(" S0 ", Integer(-1))", "negative shift");

    /* clear load errors for what eir does not know, never a guess */
    bad("Frobnicate(" S0 ")", "unknown function 'Frobnicate'");
    bad("FloorDiv(" S0 ")", "FloorDiv takes 2 arguments, got 1");
    bad("Not(" S0 ", " S1 ")", "Not takes 1 argument, got 2");
    bad("Max()", "Max takes at least 1 argument, got 0");
    bad("Piecewise(" S0 ")", "ExprCondPair");
    bad("IsNonOverlappingAndDenseIndicator(" S0 ", " S1 ", Integer(1))", "even number");
    bad("Add('s0', Integer(1))", "quoted string");
    bad("'s0'", "quoted string");
    bad("Symbol('')", "empty symbol name");
    bad("Symbol(Integer(3))", "Symbol needs a name");
    bad("nan", "unknown name");
    bad("zoo", "unknown name");
    bad("-oops", "expected a number after '-'");
    fuzz_parse();
    eir_arena_release(&arena);
    return check_summary("test_sym");
}
