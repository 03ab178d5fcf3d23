/* sym.c — parse sympy srepr text, print it as sympy's str() does, and
 * evaluate it with Python's numerics.
 *
 * The grammar is the one srepr produces: Name(args, key=value), bare names
 * (oo, true, int_oo), integers, floats and quoted strings. Only the functions
 * torch.export programs can carry are accepted (sympy's arithmetic,
 * relations and logic, and torch/utils/_sympy/functions.py), each with its
 * arity: an unknown name is a load error rather than a guess at its meaning.
 * Printing covers what torch prints specially (symbols, arithmetic,
 * FloorDiv, relations, And/Or, Piecewise); other functions print as
 * Name(arg, ...). */
#include "sym.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    eir_arena *arena;
    const char *text, *p;
    char *err;
    size_t errlen;
    int depth;
} parser;

static void skip_ws(parser *ps) { while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n') ps->p++; }

static void *perr(parser *ps, const char *what) {
    if (ps->err[0] == 0)
        snprintf(ps->err, ps->errlen, "bad symbolic expression '%.200s': %s at offset %ld", ps->text, what,
                 (long)(ps->p - ps->text));
    return NULL;
}

static eir_sym_node *new_node(parser *ps, eir_sym_kind k) {
    eir_sym_node *n = eir_arena_alloc(ps->arena, sizeof *n);
    if (!n) return perr(ps, "out of memory");
    n->kind = k;
    return n;
}

static const char *parse_string(parser *ps) {
    char q = *ps->p;
    const char *s = ++ps->p;
    while (*ps->p && *ps->p != q) ps->p++;
    if (*ps->p != q) return perr(ps, "unterminated string");
    const char *r = eir_arena_strndup(ps->arena, s, (size_t)(ps->p - s));
    ps->p++;
    return r ? r : perr(ps, "out of memory");
}

static bool parse_int(parser *ps, const char *tok, size_t n, int64_t *out) {
    char buf[32];
    if (n == 0 || n >= sizeof buf) return false;
    memcpy(buf, tok, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long long v = strtoll(buf, &end, 10);
    if (errno || *end) return false;
    *out = v;
    return true;
}

static eir_sym_node *parse_expr(parser *ps);

/* A call's arguments; keyword arguments (assumptions such as integer=True,
 * precision=53) are skipped. */
static bool parse_args(parser *ps, eir_sym_node *n) {
    eir_sym_node *tmp[64];
    uint32_t cnt = 0;
    skip_ws(ps);
    if (*ps->p == ')') { ps->p++; return true; }
    for (;;) {
        skip_ws(ps);
        const char *save = ps->p;
        while (eir_isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
        skip_ws(ps);
        if (ps->p > save && *ps->p == '=') {
            ps->p++;
            if (!parse_expr(ps)) return false;
        } else {
            ps->p = save;
            eir_sym_node *a = parse_expr(ps);
            if (!a) return false;
            if (cnt == EIR_ARRAY_LEN(tmp)) { perr(ps, "too many arguments"); return false; }
            tmp[cnt++] = a;
        }
        skip_ws(ps);
        if (*ps->p == ',') { ps->p++; continue; }
        if (*ps->p == ')') { ps->p++; break; }
        perr(ps, "expected ',' or ')'");
        return false;
    }
    n->nargs = cnt;
    n->args = eir_arena_array(ps->arena, cnt ? cnt : 1, sizeof *n->args);
    if (!n->args) { perr(ps, "out of memory"); return false; }
    memcpy(n->args, tmp, cnt * sizeof *tmp);
    return true;
}

/* The functions a torch.export program can carry, with their arity
 * (max -1: any number from min). */
static const struct fn_info { const char *name; int min, max; } known_fns[] = {
    {"Add", 1, -1}, {"Mul", 1, -1}, {"Pow", 2, 2}, {"PowByNatural", 2, 2}, {"FloatPow", 2, 2},
    {"FloorDiv", 2, 2}, {"CleanDiv", 2, 2}, {"CeilDiv", 2, 2}, {"Mod", 2, 2}, {"PythonMod", 2, 2},
    {"ModularIndexing", 3, 3}, {"Where", 3, 3}, {"IntTrueDiv", 2, 2}, {"FloatTrueDiv", 2, 2},
    {"ToFloat", 1, 1}, {"TruncToFloat", 1, 1}, {"TruncToInt", 1, 1}, {"FloorToInt", 1, 1},
    {"CeilToInt", 1, 1}, {"RoundToInt", 1, 1}, {"RoundDecimal", 2, 2}, {"floor", 1, 1}, {"ceiling", 1, 1},
    {"Max", 1, -1}, {"Min", 1, -1}, {"Abs", 1, 1}, {"Identity", 1, 1}, {"LShift", 2, 2}, {"RShift", 2, 2},
    {"BitwiseFn_bitwise_and", 2, 2}, {"BitwiseFn_bitwise_or", 2, 2}, {"BitwiseFn_bitwise_xor", 2, 2},
    {"OpaqueUnaryFn_sqrt", 1, 1}, {"OpaqueUnaryFn_cos", 1, 1}, {"OpaqueUnaryFn_cosh", 1, 1},
    {"OpaqueUnaryFn_sin", 1, 1}, {"OpaqueUnaryFn_sinh", 1, 1}, {"OpaqueUnaryFn_tan", 1, 1},
    {"OpaqueUnaryFn_tanh", 1, 1}, {"OpaqueUnaryFn_asin", 1, 1}, {"OpaqueUnaryFn_acos", 1, 1},
    {"OpaqueUnaryFn_atan", 1, 1}, {"OpaqueUnaryFn_exp", 1, 1}, {"OpaqueUnaryFn_log", 1, 1},
    {"OpaqueUnaryFn_asinh", 1, 1}, {"OpaqueUnaryFn_log2", 1, 1},
    {"Equality", 2, 2}, {"Unequality", 2, 2}, {"StrictLessThan", 2, 2}, {"LessThan", 2, 2},
    {"StrictGreaterThan", 2, 2}, {"GreaterThan", 2, 2}, {"And", 1, -1}, {"Or", 1, -1}, {"Not", 1, 1},
    {"Piecewise", 1, -1}, {"ExprCondPair", 2, 2}, {"IsNonOverlappingAndDenseIndicator", 2, -1},
};

static bool check_call(parser *ps, const char *name, const eir_sym_node *call) {
    for (size_t i = 0; i < EIR_ARRAY_LEN(known_fns); i++) {
        const struct fn_info *f = &known_fns[i];
        if (strcmp(f->name, name)) continue;
        int k = (int)call->nargs;
        if (k < f->min || (f->max >= 0 && k > f->max)) {
            char m[160];
            if (f->max < 0) snprintf(m, sizeof m, "%s takes at least %d argument%s, got %d", name, f->min, f->min == 1 ? "" : "s", k);
            else snprintf(m, sizeof m, "%s takes %d argument%s, got %d", name, f->min, f->min == 1 ? "" : "s", k);
            perr(ps, m);
            return false;
        }
        if (!strcmp(name, "IsNonOverlappingAndDenseIndicator") && k % 2) {
            perr(ps, "IsNonOverlappingAndDenseIndicator takes sizes and strides (an even number of arguments)");
            return false;
        }
        if (!strcmp(name, "Piecewise"))
            for (uint32_t a = 0; a < call->nargs; a++)
                if (call->args[a]->kind != EIR_SYM_CALL || strcmp(call->args[a]->name, "ExprCondPair")) {
                    perr(ps, "Piecewise takes ExprCondPair arguments");
                    return false;
                }
        /* the bare strings of Symbol('s0') / Float('1.5') are not operands */
        for (uint32_t a = 0; a < call->nargs; a++)
            if (call->args[a]->kind == EIR_SYM_SYMBOL && call->args[a]->quoted) {
                perr(ps, "a quoted string is not an operand (expected Symbol('...'))");
                return false;
            }
        return true;
    }
    char m[200];
    snprintf(m, sizeof m, "unknown function '%.100s'", name);
    perr(ps, m);
    return false;
}

static eir_sym_node *parse_expr(parser *ps) {
    if (++ps->depth > 200) return perr(ps, "nesting too deep");
    skip_ws(ps);
    eir_sym_node *res = NULL;
    const char *p = ps->p;
    if (*p == '\'' || *p == '"') {
        /* a bare string only appears as an argument (Symbol's name, Float's text) */
        const char *s = parse_string(ps);
        if (!s) return NULL;
        res = new_node(ps, EIR_SYM_SYMBOL);
        if (res) { res->name = s; res->quoted = true; }
    } else if (*p == '-' && (!strncmp(p + 1, "oo", 2) || !strncmp(p + 1, "int_oo", 6)) &&
               !eir_isalnum((unsigned char)p[p[1] == 'o' ? 3 : 7]) && p[p[1] == 'o' ? 3 : 7] != '_') {
        /* -oo, -int_oo: the bounds of unbounded ranges */
        bool is_int = p[1] == 'i';
        ps->p = p + (is_int ? 7 : 3);
        res = new_node(ps, EIR_SYM_NEG_INFINITY);
        if (res) res->name = is_int ? "-int_oo" : "-oo";
    } else if (*p == '-' || eir_isdigit((unsigned char)*p)) {
        const char *s = p;
        if (*p == '-') p++;
        if (!eir_isdigit((unsigned char)*p)) return perr(ps, "expected a number after '-'");
        while (eir_isdigit((unsigned char)*p)) p++;
        if (*p == '.' || *p == 'e' || *p == 'E') {
            char *end;
            double v = eir_strtod(s, &end);
            ps->p = end;
            res = new_node(ps, EIR_SYM_FLOAT);
            if (res) { res->fval = v; res->name = eir_arena_strndup(ps->arena, s, (size_t)(end - s)); }
        } else {
            int64_t v;
            if (!parse_int(ps, s, (size_t)(p - s), &v)) return perr(ps, "integer out of range");
            ps->p = p;
            res = new_node(ps, EIR_SYM_INTEGER);
            if (res) res->ival = v;
        }
    } else if (eir_isalpha((unsigned char)*p) || *p == '_') {
        const char *s = p;
        while (eir_isalnum((unsigned char)*p) || *p == '_' || *p == '.') p++;
        size_t n = (size_t)(p - s);
        ps->p = p;
        skip_ws(ps);
        if (*ps->p != '(') {
            if ((n == 4 && !memcmp(s, "true", 4)) || (n == 4 && !memcmp(s, "True", 4)))
                return new_node(ps, EIR_SYM_TRUE);
            if ((n == 5 && !memcmp(s, "false", 5)) || (n == 5 && !memcmp(s, "False", 5)))
                return new_node(ps, EIR_SYM_FALSE);
            if ((n == 2 && !memcmp(s, "oo", 2)) || (n == 6 && !memcmp(s, "int_oo", 6))) {
                res = new_node(ps, EIR_SYM_INFINITY);
                if (res) res->name = n == 2 ? "oo" : "int_oo";
                ps->depth--;
                return res;
            }
            return perr(ps, "unknown name");
        }
        ps->p++;
        const char *name = eir_arena_strndup(ps->arena, s, n);
        if (!name) return perr(ps, "out of memory");
        eir_sym_node tmp = {0};
        if (!parse_args(ps, &tmp)) return NULL;
        if (!strcmp(name, "Symbol")) {
            if (tmp.nargs != 1 || tmp.args[0]->kind != EIR_SYM_SYMBOL || !tmp.args[0]->quoted)
                return perr(ps, "Symbol needs a name");
            if (!tmp.args[0]->name[0]) return perr(ps, "empty symbol name");
            res = tmp.args[0];
            res->quoted = false;
        } else if (!strcmp(name, "Integer")) {
            if (tmp.nargs != 1 || tmp.args[0]->kind != EIR_SYM_INTEGER) return perr(ps, "Integer needs an integer");
            res = tmp.args[0];
        } else if (!strcmp(name, "Rational")) {
            if (tmp.nargs != 2 || tmp.args[0]->kind != EIR_SYM_INTEGER || tmp.args[1]->kind != EIR_SYM_INTEGER ||
                tmp.args[1]->ival <= 0)
                return perr(ps, "Rational needs two integers");
            res = new_node(ps, EIR_SYM_RATIONAL);
            if (res) { res->ival = tmp.args[0]->ival; res->den = tmp.args[1]->ival; }
        } else if (!strcmp(name, "Float")) {
            if (tmp.nargs != 1) return perr(ps, "Float needs one value");
            eir_sym_node *a = tmp.args[0];
            res = new_node(ps, EIR_SYM_FLOAT);
            if (!res) return NULL;
            if (a->kind == EIR_SYM_SYMBOL) { res->name = a->name; res->fval = eir_strtod(a->name, NULL); }
            else if (a->kind == EIR_SYM_FLOAT) { res->name = a->name; res->fval = a->fval; }
            else if (a->kind == EIR_SYM_INTEGER) { res->fval = (double)a->ival; res->name = NULL; }
            else return perr(ps, "Float needs a number");
        } else if (!strcmp(name, "BooleanTrue")) {
            res = new_node(ps, EIR_SYM_TRUE);
        } else if (!strcmp(name, "BooleanFalse")) {
            res = new_node(ps, EIR_SYM_FALSE);
        } else {
            if (!check_call(ps, name, &tmp)) return NULL;
            res = new_node(ps, EIR_SYM_CALL);
            if (res) { res->name = name; res->nargs = tmp.nargs; res->args = tmp.args; }
        }
    } else {
        return perr(ps, *p ? "unexpected character" : "unexpected end");
    }
    ps->depth--;
    return res;
}

eir_sym_node *eir_sym_parse(eir_arena *arena, const char *text, char *err, size_t errlen) {
    parser ps = {arena, text, text, err, errlen, 0};
    err[0] = 0;
    eir_sym_node *n = parse_expr(&ps);
    if (!n) return NULL;
    skip_ws(&ps);
    if (*ps.p) return perr(&ps, "trailing text");
    if (n->kind == EIR_SYM_SYMBOL && n->quoted) return perr(&ps, "a quoted string is not an expression (expected Symbol('...'))");
    return n;
}

/* ---- printing (sympy StrPrinter conventions) ---- */

enum { PREC_OR = 20, PREC_AND = 30, PREC_REL = 35, PREC_ADD = 40, PREC_MUL = 50, PREC_NEG = 55,
       PREC_POW = 60, PREC_FUNC = 70, PREC_ATOM = 1000 };

static bool is_call(const eir_sym_node *n, const char *name) {
    return n->kind == EIR_SYM_CALL && !strcmp(n->name, name);
}

static bool is_negative_number(const eir_sym_node *n) {
    return (n->kind == EIR_SYM_INTEGER || n->kind == EIR_SYM_RATIONAL) ? n->ival < 0
           : n->kind == EIR_SYM_FLOAT ? n->fval < 0 : false;
}

static int prec_of(const eir_sym_node *n) {
    switch (n->kind) {
    case EIR_SYM_INTEGER: return n->ival < 0 ? PREC_ADD : PREC_ATOM;
    case EIR_SYM_RATIONAL: return n->ival < 0 ? PREC_ADD : PREC_MUL;
    case EIR_SYM_FLOAT: return n->fval < 0 ? PREC_ADD : PREC_ATOM;
    case EIR_SYM_CALL:
        if (is_call(n, "Add")) return PREC_ADD;
        if (is_call(n, "Mul")) return (n->nargs && is_negative_number(n->args[0])) ? PREC_ADD : PREC_MUL;
        if (is_call(n, "Pow")) return PREC_POW;
        if (is_call(n, "And")) return PREC_AND;
        if (is_call(n, "Or")) return PREC_OR;
        if (is_call(n, "Not")) return 100;
        if (is_call(n, "StrictLessThan") || is_call(n, "LessThan") || is_call(n, "StrictGreaterThan") ||
            is_call(n, "GreaterThan"))
            return PREC_REL;
        /* the precedence attributes of torch's sympy functions */
        if (is_call(n, "FloorDiv") || is_call(n, "CleanDiv") || is_call(n, "ModularIndexing") || is_call(n, "Where") ||
            is_call(n, "PythonMod") || is_call(n, "Mod") || is_call(n, "FloatTrueDiv") || is_call(n, "IntTrueDiv"))
            return 35;
        if (is_call(n, "PowByNatural")) return PREC_MUL;
        if (is_call(n, "FloatPow")) return PREC_POW;
        if (is_call(n, "Identity")) return 10;
        /* not sympy Functions: no precedence of their own */
        if (is_call(n, "Max") || is_call(n, "Min")) return PREC_ATOM;
        if (is_call(n, "Equality") || is_call(n, "Unequality")) return 50;
        if (is_call(n, "BitwiseFn_bitwise_and")) return 38;
        if (is_call(n, "BitwiseFn_bitwise_xor")) return 37;
        if (is_call(n, "BitwiseFn_bitwise_or")) return 36;
        return PREC_FUNC;
    default: return PREC_ATOM;
    }
}

static void sym_print(eir_buf *b, const eir_sym_node *n);

/* sympy's str() of a Float of 53-bit precision: StrPrinter._print_Float through
 * mpmath's to_str with dps = 15. The value's first 18 significant digits
 * (correctly rounded, in the C locale) are cut to 15, rounding up when the
 * 16th is 5 or more (mpmath's rule, carrying through 9s); fixed notation when
 * the decimal exponent is in (-5, 15), else d.ddd e+X / e-X. Trailing zeros
 * are stripped (keeping one after the point) for a Float inside an
 * expression (sympy's print level > 1: "0.9*ToFloat(s77)") and kept for a
 * Float printed alone ("0.900000000000000"). */
static void print_float(eir_buf *b, double v, bool strip) {
    if (isnan(v)) { eir_buf_puts(b, "nan"); return; }
    if (isinf(v)) { eir_buf_puts(b, v < 0 ? "-inf" : "inf"); return; }
    if (v == 0) { eir_buf_puts(b, "0.0"); return; }
    enum { DPS = 15 };
    char tmp[64];
    eir_snprintf(tmp, sizeof tmp, "%.17e", fabs(v));
    char dig[DPS + 4];
    int nd = 0;
    const char *e = tmp;
    for (; *e && *e != 'e'; e++)
        if (*e >= '0' && *e <= '9' && nd < DPS + 3) dig[nd++] = *e;
    int exponent = *e ? atoi(e + 1) : 0;
    if (nd > DPS && dig[DPS] >= '5') {
        int i = DPS - 1;
        while (i >= 0 && dig[i] == '9') i--;
        if (i >= 0) {
            dig[i]++;
            for (int j = i + 1; j < DPS; j++) dig[j] = '0';
        } else {
            dig[0] = '1';
            for (int j = 1; j < DPS; j++) dig[j] = '0';
            exponent++;
        }
    }
    char out[64];
    int n = 0, split = 1;
    if (-5 < exponent && exponent < DPS) {
        if (exponent < 0) {
            for (int i = 0; i < -exponent; i++) out[n++] = '0';
        } else {
            split = exponent + 1;
        }
        exponent = 0;
    }
    for (int i = 0; i < DPS; i++) out[n++] = dig[i];
    char txt[80];
    int t = 0;
    if (v < 0) txt[t++] = '-';
    for (int i = 0; i < n; i++) {
        if (i == split) txt[t++] = '.';
        txt[t++] = out[i];
    }
    if (split == n) txt[t++] = '.';   /* exponent 14: all 15 digits before the point */
    if (strip) {
        while (txt[t - 1] == '0') t--;
        if (txt[t - 1] == '.') txt[t++] = '0';
    }
    txt[t] = 0;
    eir_buf_puts(b, txt);
    if (exponent > 0) eir_buf_printf(b, "e+%d", exponent);
    else if (exponent < 0) eir_buf_printf(b, "e%d", exponent);
}

/* sympy's parenthesize: strict wraps only lower precedence, non-strict also equal */
static void print_paren_x(eir_buf *b, const eir_sym_node *n, int level, bool strict) {
    if (prec_of(n) < level || (!strict && prec_of(n) == level)) {
        eir_buf_putc(b, '(');
        sym_print(b, n);
        eir_buf_putc(b, ')');
    } else {
        sym_print(b, n);
    }
}

static void print_paren(eir_buf *b, const eir_sym_node *n, int level) {
    if (prec_of(n) < level) {
        eir_buf_putc(b, '(');
        sym_print(b, n);
        eir_buf_putc(b, ')');
    } else {
        sym_print(b, n);
    }
}

static bool is_neg_pow(const eir_sym_node *f) {
    return is_call(f, "Pow") && f->nargs == 2 && f->args[1]->kind == EIR_SYM_INTEGER && f->args[1]->ival < 0;
}

/* ---- sympy's term and factor order ----
 *
 * str() prints an Add's terms in as_ordered_terms() order and a Mul's
 * factors in as_ordered_factors() order, not in the stored (srepr) order.
 * Both rest on Basic.sort_key / Expr.sort_key:
 *   (class_key, (len(args), args' keys | (str(atom),)), exponent's key, coefficient)
 * and as_ordered_terms sorts by the negated exponent vector over the sorted
 * generators, then the coefficient (with one special case: `10 - u0`). */

static const eir_sym_node SYM_ONE = {EIR_SYM_INTEGER, false, NULL, 1, 1, 0.0, 0, NULL};

static bool sym_is_number(const eir_sym_node *n) {
    return n->kind == EIR_SYM_INTEGER || n->kind == EIR_SYM_RATIONAL || n->kind == EIR_SYM_FLOAT ||
           n->kind == EIR_SYM_INFINITY || n->kind == EIR_SYM_NEG_INFINITY;
}

static bool sym_is_atom(const eir_sym_node *n) { return n->kind != EIR_SYM_CALL; }

static double sym_num_value(const eir_sym_node *n) {
    switch (n->kind) {
    case EIR_SYM_INTEGER: return (double)n->ival;
    case EIR_SYM_RATIONAL: return (double)n->ival / (double)n->den;
    case EIR_SYM_FLOAT: return n->fval;
    case EIR_SYM_INFINITY: return INFINITY;
    case EIR_SYM_NEG_INFINITY: return -INFINITY;
    default: return 0;
    }
}

static int cmp_num(const eir_sym_node *a, const eir_sym_node *b) {
    if (a->kind == EIR_SYM_INTEGER && b->kind == EIR_SYM_INTEGER)
        return a->ival < b->ival ? -1 : a->ival > b->ival;
    double x = sym_num_value(a), y = sym_num_value(b);
    return x < y ? -1 : x > y;
}

static bool sym_equal(const eir_sym_node *a, const eir_sym_node *b) {
    if (a->kind != b->kind || a->nargs != b->nargs) return false;
    switch (a->kind) {
    case EIR_SYM_SYMBOL: return !strcmp(a->name, b->name);
    case EIR_SYM_INTEGER: return a->ival == b->ival;
    case EIR_SYM_RATIONAL: return a->ival == b->ival && a->den == b->den;
    case EIR_SYM_FLOAT: return a->fval == b->fval;
    case EIR_SYM_CALL:
        if (strcmp(a->name, b->name)) return false;
        for (uint32_t i = 0; i < a->nargs; i++)
            if (!sym_equal(a->args[i], b->args[i])) return false;
        return true;
    default: return true;
    }
}

/* class_key(): (rank, i, name) */
static void class_key(const eir_sym_node *n, int *r, int *i, const char **name) {
    *i = 0;
    if (sym_is_number(n)) { *r = 1; *name = "Number"; return; }
    if (n->kind == EIR_SYM_SYMBOL) { *r = 2; *name = "Symbol"; return; }
    if (n->kind != EIR_SYM_CALL) { *r = 2; *name = n->kind == EIR_SYM_TRUE ? "BooleanTrue" : "BooleanFalse"; return; }
    *name = n->name;
    if (is_call(n, "Mul")) { *r = 3; *i = 0; return; }
    if (is_call(n, "Add")) { *r = 3; *i = 1; return; }
    if (is_call(n, "Pow")) { *r = 3; *i = 2; return; }
    static const char *const APPLICATIONS[] = {"Max", "Min", "StrictLessThan", "LessThan", "StrictGreaterThan",
                                               "GreaterThan", "Equality", "Unequality", "And", "Or", "Not",
                                               "Piecewise"};
    for (size_t k = 0; k < EIR_ARRAY_LEN(APPLICATIONS); k++)
        if (!strcmp(n->name, APPLICATIONS[k])) { *r = 5; return; }
    *r = 4;
    if (!strcmp(n->name, "Identity") || !strcmp(n->name, "CeilDiv") ||
        !strcmp(n->name, "IsNonOverlappingAndDenseIndicator"))
        *i = 0;
    else
        *i = 10000;
}

/* Mul.as_coeff_Mul(): the numeric coefficient and the index of the first
 * other factor. srepr writes -2*x as Mul(Integer(-1), Integer(2), x). */
static uint32_t mul_coeff(const eir_sym_node *n, double *coeff) {
    *coeff = 1;
    if (!is_call(n, "Mul") || n->nargs < 2 || !sym_is_number(n->args[0])) return 0;
    *coeff = sym_num_value(n->args[0]);
    if (n->nargs >= 3 && n->args[0]->kind == EIR_SYM_INTEGER && n->args[0]->ival == -1 && sym_is_number(n->args[1])) {
        *coeff = -sym_num_value(n->args[1]);
        return 2;
    }
    return 1;
}

/* A Mul's factors from index `from` on (the expression part of
 * as_coeff_Mul), or a whole node when from == 0. */
typedef struct symview {
    const eir_sym_node *n;
    uint32_t from;
} symview;

static int cmp_sort_key(const eir_sym_node *a, const eir_sym_node *b);
static int cmp_sort_key_v(symview a, symview b);
static const eir_sym_node **ordered_terms(const eir_sym_node *n);
static const eir_sym_node **ordered_factors(const eir_sym_node *n, uint32_t from);

static uint32_t view_nargs(symview v) { return v.n->nargs - v.from; }

static symview view_single(symview v) {
    if (v.from && view_nargs(v) == 1) return (symview){v.n->args[v.from], 0};
    return v;
}

static int cmp_args(symview a, symview b) {
    uint32_t na = view_nargs(a), nb = view_nargs(b);
    if (na != nb) return na < nb ? -1 : 1;
    const eir_sym_node **la = NULL, **lb = NULL;
    if (is_call(a.n, "Add") && !a.from) { la = ordered_terms(a.n); lb = ordered_terms(b.n); }
    else if (is_call(a.n, "Mul")) { la = ordered_factors(a.n, a.from); lb = ordered_factors(b.n, b.from); }
    int c = 0;
    for (uint32_t i = 0; i < na && !c; i++)
        c = cmp_sort_key(la ? la[i] : a.n->args[a.from + i], lb ? lb[i] : b.n->args[b.from + i]);
    free(la);
    free(lb);
    return c;
}

static int cmp_sort_key_v(symview a, symview b) {
    a = view_single(a);
    b = view_single(b);
    bool an = !a.from && sym_is_number(a.n), bn = !b.from && sym_is_number(b.n);
    if (an && bn) return cmp_num(a.n, b.n);      /* Number.sort_key: (ck, (0, ()), (), self) */
    if (an != bn) return an ? -1 : 1;            /* Number's class key is the smallest */
    /* Expr.sort_key: coeff, expr = as_coeff_Mul(); a Pow splits into base, exp */
    const eir_sym_node *ea = &SYM_ONE, *eb = &SYM_ONE;
    double ca = 1, cb = 1;
    if (!a.from) {
        uint32_t k = mul_coeff(a.n, &ca);
        if (k) a = view_single((symview){a.n, k});
    }
    if (!b.from) {
        uint32_t k = mul_coeff(b.n, &cb);
        if (k) b = view_single((symview){b.n, k});
    }
    if (!a.from && is_call(a.n, "Pow") && a.n->nargs == 2) { ea = a.n->args[1]; a = (symview){a.n->args[0], 0}; }
    if (!b.from && is_call(b.n, "Pow") && b.n->nargs == 2) { eb = b.n->args[1]; b = (symview){b.n->args[0], 0}; }
    int ra, ia, rb, ib;
    const char *na, *nb;
    class_key(a.n, &ra, &ia, &na);
    class_key(b.n, &rb, &ib, &nb);
    if (a.from) { ra = 3; ia = 0; na = "Mul"; }
    if (b.from) { rb = 3; ib = 0; nb = "Mul"; }
    if (ra != rb) return ra < rb ? -1 : 1;
    if (ia != ib) return ia < ib ? -1 : 1;
    int c = strcmp(na, nb);
    if (c) return c < 0 ? -1 : 1;
    bool aa = !a.from && sym_is_atom(a.n), ba = !b.from && sym_is_atom(b.n);
    if (aa || ba) {
        /* (1, (str(atom),)) against (len(args), ...) */
        uint32_t la = aa ? 1 : view_nargs(a), lb = ba ? 1 : view_nargs(b);
        if (la != lb) return la < lb ? -1 : 1;
        if (aa && ba) {
            eir_buf x, y;
            eir_buf_init(&x);
            eir_buf_init(&y);
            eir_sym_print(&x, a.n);
            eir_sym_print(&y, b.n);
            c = strcmp(x.data ? x.data : "", y.data ? y.data : "");
            eir_buf_free(&x);
            eir_buf_free(&y);
            if (c) return c < 0 ? -1 : 1;
        }
    } else {
        c = cmp_args(a, b);
        if (c) return c;
    }
    c = cmp_sort_key(ea, eb);
    if (c) return c;
    return ca < cb ? -1 : ca > cb;
}

static int cmp_sort_key(const eir_sym_node *a, const eir_sym_node *b) {
    return cmp_sort_key_v((symview){a, 0}, (symview){b, 0});
}

/* stable insertion sort (Python's sorted is stable) */
static void sort_nodes(const eir_sym_node **v, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        const eir_sym_node *x = v[i];
        uint32_t j = i;
        while (j > 0 && cmp_sort_key(v[j - 1], x) > 0) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
}

/* Mul.as_ordered_factors(): caller frees; NULL out of memory */
static const eir_sym_node **ordered_factors(const eir_sym_node *n, uint32_t from) {
    uint32_t k = n->nargs - from;
    const eir_sym_node **v = malloc((k ? k : 1) * sizeof *v);
    if (!v) return NULL;
    for (uint32_t i = 0; i < k; i++) v[i] = n->args[from + i];
    sort_nodes(v, k);
    return v;
}

typedef struct term_info {
    const eir_sym_node *term;
    double coeff;
    uint32_t nf;                  /* factors: base and integer exponent */
    const eir_sym_node **base;
    int64_t *exp;
} term_info;

/* Expr.as_ordered_terms() of an Add: caller frees; NULL out of memory */
static const eir_sym_node **ordered_terms(const eir_sym_node *n) {
    uint32_t k = n->nargs;
    const eir_sym_node **v = malloc((k ? k : 1) * sizeof *v);
    if (!v) return NULL;
    /* Add(Number, Mul(Number, expr)), first positive, second negative: number first */
    if (k == 2) {
        const eir_sym_node *num = sym_is_number(n->args[0]) ? n->args[0] : sym_is_number(n->args[1]) ? n->args[1] : NULL;
        const eir_sym_node *mul = num == n->args[0] ? n->args[1] : n->args[0];
        double mc;
        uint32_t ms = num && is_call(mul, "Mul") ? mul_coeff(mul, &mc) : 0;
        if (ms && mul->nargs - ms == 1 && sym_num_value(num) > 0) {
            if (mc < 0) {
                v[0] = num;
                v[1] = mul;
                return v;
            }
        }
    }
    /* as_terms(): coefficient and {base: exponent} per term */
    uint32_t total = 0;
    for (uint32_t i = 0; i < k; i++) total += is_call(n->args[i], "Mul") ? n->args[i]->nargs : 1;
    term_info *ti = calloc(k ? k : 1, sizeof *ti);
    const eir_sym_node **bases = malloc((total ? total : 1) * sizeof *bases);
    int64_t *exps = malloc((total ? total : 1) * sizeof *exps);
    const eir_sym_node **gens = malloc((total ? total : 1) * sizeof *gens);
    if (!ti || !bases || !exps || !gens) {
        free(ti); free(bases); free(exps); free(gens); free(v);
        return NULL;
    }
    uint32_t used = 0, ngens = 0;
    for (uint32_t i = 0; i < k; i++) {
        const eir_sym_node *t = n->args[i];
        term_info *x = &ti[i];
        x->term = t;
        x->coeff = 1;
        x->base = bases + used;
        x->exp = exps + used;
        const eir_sym_node *const *f = &t;
        uint32_t nf = 1;
        if (sym_is_number(t)) { x->coeff = sym_num_value(t); nf = 0; }
        else if (is_call(t, "Mul")) { f = (const eir_sym_node *const *)t->args; nf = t->nargs; }
        for (uint32_t j = 0; j < nf; j++) {
            const eir_sym_node *fj = f[j];
            if (sym_is_number(fj)) { x->coeff *= sym_num_value(fj); continue; }
            const eir_sym_node *b = fj;
            int64_t e = 1;
            if (is_call(fj, "Pow") && fj->nargs == 2 && fj->args[1]->kind == EIR_SYM_INTEGER) {
                b = fj->args[0];
                e = fj->args[1]->ival;
            }
            x->base[x->nf] = b;
            x->exp[x->nf++] = e;
            used++;
            bool seen = false;
            for (uint32_t g = 0; g < ngens && !seen; g++) seen = sym_equal(gens[g], b);
            if (!seen) gens[ngens++] = b;
        }
    }
    sort_nodes(gens, ngens);
    /* key: the negated exponent vector, then the coefficient; stable */
    uint32_t *ord = malloc((k ? k : 1) * sizeof *ord);
    int64_t *mon = calloc((size_t)(k ? k : 1) * (ngens ? ngens : 1), sizeof *mon);
    if (!ord || !mon) {
        free(ord); free(mon); free(ti); free(bases); free(exps); free(gens); free(v);
        return NULL;
    }
    for (uint32_t i = 0; i < k; i++) {
        for (uint32_t j = 0; j < ti[i].nf; j++)
            for (uint32_t g = 0; g < ngens; g++)
                if (sym_equal(gens[g], ti[i].base[j])) { mon[(size_t)i * ngens + g] = ti[i].exp[j]; break; }
        ord[i] = i;
    }
    for (uint32_t i = 1; i < k; i++) {
        uint32_t x = ord[i], j = i;
        while (j > 0) {
            uint32_t y = ord[j - 1];
            int c = 0;
            for (uint32_t g = 0; g < ngens && !c; g++) {
                int64_t my = -mon[(size_t)y * ngens + g], mx = -mon[(size_t)x * ngens + g];
                c = my < mx ? -1 : my > mx;
            }
            if (!c) c = ti[y].coeff < ti[x].coeff ? -1 : ti[y].coeff > ti[x].coeff;
            if (c <= 0) break;
            ord[j] = y;
            j--;
        }
        ord[j] = x;
    }
    for (uint32_t i = 0; i < k; i++) v[i] = n->args[ord[i]];
    free(ord); free(mon); free(ti); free(bases); free(exps); free(gens);
    return v;
}

/* one factor of a Mul's numerator or denominator: parenthesize(x, Mul, strict=False) */
static void print_factor(eir_buf *b, const eir_sym_node *f, int64_t pow_exp) {
    if (pow_exp == 1) { print_paren_x(b, f, PREC_MUL, false); return; }
    /* Pow(base, k): Pow's precedence is above Mul's, so no parentheses around it */
    print_paren_x(b, f, PREC_POW, false);
    eir_buf_printf(b, "**%lld", (long long)pow_exp);
}

static void print_mul(eir_buf *b, const eir_sym_node *n) {
    /* StrPrinter._print_Mul: the sign of the coefficient first; then the
     * factors in as_ordered_factors() order, a rational coefficient's
     * numerator and the other factors before '/', its denominator and the
     * x**-k factors (as x**k) after it. */
    double cv;
    uint32_t start = mul_coeff(n, &cv);
    const eir_sym_node **args = ordered_factors(n, start);
    if (!args) return;
    uint32_t k = n->nargs - start;
    const eir_sym_node *c = start ? n->args[start - 1] : NULL;   /* the coefficient's magnitude node */
    bool neg = false;
    int64_t cnum = 1, cden = 1;
    bool coeff_float = false;
    if (c) {
        if (c->kind == EIR_SYM_INTEGER) cnum = c->ival;
        else if (c->kind == EIR_SYM_RATIONAL) { cnum = c->ival; cden = c->den; }
        else coeff_float = true;
        if (start == 2) cnum = -cnum;  /* Mul(-1, k, ...) */
        if (coeff_float ? cv < 0 : cnum < 0) { neg = true; cnum = -cnum; }
    }
    eir_buf num, den;
    eir_buf_init(&num);
    eir_buf_init(&den);
    uint32_t nnum = 0, nden = 0;
    if (c && coeff_float) {
        print_float(&num, fabs(cv), true);   /* inside an expression: trailing zeros stripped */
        nnum++;
    } else if (c) {
        if (cnum != 1) { eir_buf_printf(&num, "%lld", (long long)cnum); nnum++; }
        if (cden != 1) { eir_buf_printf(&den, "%lld", (long long)cden); nden++; }
    }
    for (uint32_t i = 0; i < k; i++) {
        const eir_sym_node *f = args[i];
        if (is_neg_pow(f)) {
            if (nden++) eir_buf_putc(&den, '*');
            print_factor(&den, f->args[0], -f->args[1]->ival);
        } else {
            if (nnum++) eir_buf_putc(&num, '*');
            print_factor(&num, f, 1);
        }
    }
    if (neg) eir_buf_putc(b, '-');
    eir_buf_puts(b, nnum ? num.data : "1");
    if (nden == 1) {
        eir_buf_putc(b, '/');
        eir_buf_puts(b, den.data);
    } else if (nden > 1) {
        eir_buf_puts(b, "/(");
        eir_buf_puts(b, den.data);
        eir_buf_putc(b, ')');
    }
    eir_buf_free(&num);
    eir_buf_free(&den);
    free(args);
}

static void print_add(eir_buf *b, const eir_sym_node *n) {
    /* in as_ordered_terms() order */
    const eir_sym_node **terms = ordered_terms(n);
    if (!terms) return;
    bool first = true;
    {
        for (uint32_t i = 0; i < n->nargs; i++) {
            const eir_sym_node *t = terms[i];
            eir_buf b2;
            eir_buf_init(&b2);
            print_paren(&b2, t, PREC_ADD);
            const char *s = b2.data ? b2.data : "";
            if (first) {
                eir_buf_puts(b, s);
            } else if (s[0] == '-') {
                eir_buf_puts(b, " - ");
                eir_buf_puts(b, s + 1);
            } else {
                eir_buf_puts(b, " + ");
                eir_buf_puts(b, s);
            }
            eir_buf_free(&b2);
            first = false;
        }
    }
    free(terms);
}

static const char *rel_op(const char *name) {
    static const char *const t[][2] = {{"StrictLessThan", " < "}, {"LessThan", " <= "},
                                       {"StrictGreaterThan", " > "}, {"GreaterThan", " >= "}};
    for (size_t i = 0; i < EIR_ARRAY_LEN(t); i++)
        if (!strcmp(name, t[i][0])) return t[i][1];
    return NULL;
}

static void sym_print(eir_buf *b, const eir_sym_node *n) {
    switch (n->kind) {
    case EIR_SYM_SYMBOL: eir_buf_puts(b, n->name); return;
    case EIR_SYM_INTEGER: eir_buf_printf(b, "%lld", (long long)n->ival); return;
    case EIR_SYM_RATIONAL: eir_buf_printf(b, "%lld/%lld", (long long)n->ival, (long long)n->den); return;
    case EIR_SYM_FLOAT: print_float(b, n->fval, true); return;
    case EIR_SYM_TRUE: eir_buf_puts(b, "True"); return;
    case EIR_SYM_FALSE: eir_buf_puts(b, "False"); return;
    case EIR_SYM_INFINITY: eir_buf_puts(b, n->name ? n->name : "oo"); return;
    case EIR_SYM_NEG_INFINITY: eir_buf_puts(b, n->name ? n->name : "-oo"); return;
    case EIR_SYM_CALL: break;
    }
    if (is_call(n, "Add") && n->nargs) { print_add(b, n); return; }
    if (is_call(n, "Mul") && n->nargs) { print_mul(b, n); return; }
    if (is_call(n, "Pow") && n->nargs == 2 && n->args[1]->kind == EIR_SYM_INTEGER && n->args[1]->ival == -1) {
        eir_buf_puts(b, "1/");
        print_paren_x(b, n->args[0], PREC_POW, false);
        return;
    }
    if (is_call(n, "Pow") && n->nargs == 2) {
        print_paren_x(b, n->args[0], PREC_POW, false);
        eir_buf_puts(b, "**");
        print_paren_x(b, n->args[1], PREC_POW, false);
        return;
    }
    if ((is_call(n, "FloorDiv") || is_call(n, "CleanDiv")) && n->nargs == 2) {
        eir_buf_putc(b, '(');
        print_paren(b, n->args[0], PREC_ATOM);
        eir_buf_puts(b, "//");
        print_paren(b, n->args[1], PREC_ATOM);
        eir_buf_putc(b, ')');
        return;
    }
    if (is_call(n, "Identity") && n->nargs == 1) {
        eir_buf_putc(b, '(');
        sym_print(b, n->args[0]);
        eir_buf_putc(b, ')');
        return;
    }
    const char *rel = rel_op(n->name);
    if (rel && n->nargs == 2) {
        print_paren(b, n->args[0], PREC_REL + 1);
        eir_buf_puts(b, rel);
        print_paren(b, n->args[1], PREC_REL + 1);
        return;
    }
    if ((is_call(n, "And") || is_call(n, "Or")) && n->nargs) {
        /* sympy joins them at its BitwiseAnd / BitwiseOr precedence (38 / 36),
         * so relations are parenthesized: (s0 > 2) & (s1 < 4) */
        int pr = is_call(n, "And") ? 38 : 36;
        for (uint32_t i = 0; i < n->nargs; i++) {
            if (i) eir_buf_puts(b, is_call(n, "And") ? " & " : " | ");
            print_paren(b, n->args[i], pr);
        }
        return;
    }
    if (is_call(n, "Piecewise") && n->nargs) {
        eir_buf_puts(b, "Piecewise(");
        for (uint32_t i = 0; i < n->nargs; i++) {
            if (i) eir_buf_puts(b, ", ");
            sym_print(b, n->args[i]);
        }
        eir_buf_putc(b, ')');
        return;
    }
    if (is_call(n, "ExprCondPair") && n->nargs == 2) {
        eir_buf_putc(b, '(');
        sym_print(b, n->args[0]);
        eir_buf_puts(b, ", ");
        sym_print(b, n->args[1]);
        eir_buf_putc(b, ')');
        return;
    }
    if (is_call(n, "Not") && n->nargs == 1) {
        eir_buf_putc(b, '~');
        print_paren(b, n->args[0], 100);
        return;
    }
    if ((is_call(n, "Max") || is_call(n, "Min")) && n->nargs) {
        /* _print_LatticeOp: the arguments sorted by default_sort_key */
        const eir_sym_node **v = ordered_factors(n, 0);
        if (!v) return;
        eir_buf_puts(b, n->name);
        eir_buf_putc(b, '(');
        for (uint32_t i = 0; i < n->nargs; i++) {
            if (i) eir_buf_puts(b, ", ");
            sym_print(b, v[i]);
        }
        eir_buf_putc(b, ')');
        free(v);
        return;
    }
    /* sympy prints Equality/Unequality by their short names */
    eir_buf_puts(b, !strcmp(n->name, "Equality") ? "Eq" : !strcmp(n->name, "Unequality") ? "Ne" : n->name);
    eir_buf_putc(b, '(');
    for (uint32_t i = 0; i < n->nargs; i++) {
        if (i) eir_buf_puts(b, ", ");
        sym_print(b, n->args[i]);
    }
    eir_buf_putc(b, ')');
}

/* ---- evaluation ----
 *
 * Values are Python numbers: an int (int64 here; overflow is an error where
 * Python would grow) or a float. Each function follows the definition in
 * torch/utils/_sympy/functions.py (FloorDiv is Python's //, Mod and
 * PythonMod are Python's %, IntTrueDiv is int / int -> float, CeilToInt is
 * math.ceil, RoundToInt is round(): halves to even, ...). Booleans are the
 * ints 0 and 1. */

typedef struct ev {
    eir_sym_lookup lookup;
    void *ctx;
    char *err;
    size_t errlen;
} ev;

static bool ev_fail(ev *e, const char *fmt, ...) EIR_PRINTF(2, 3);
static bool ev_fail(ev *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(e->err, e->errlen, fmt, ap);
    va_end(ap);
    return false;
}

static eir_sym_value vint(int64_t i) { return (eir_sym_value){false, i, (double)i}; }
static eir_sym_value vflt(double f) { return (eir_sym_value){true, 0, f}; }
static double fv(eir_sym_value v) { return v.is_float ? v.f : (double)v.i; }

/* ---- Python's arithmetic on numbers ---- */

static int64_t floordiv64(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static bool num_fail(char *err, size_t errlen, const char *msg) {
    snprintf(err, errlen, "%s", msg);
    return false;
}

bool eir_num_to_int(double x, eir_sym_value *out, char *err, size_t errlen) {
    if (isnan(x)) return num_fail(err, errlen, "cannot convert nan to an integer");
    if (isinf(x)) return num_fail(err, errlen, "cannot convert inf to an integer");
    if (x >= 9223372036854775808.0 || x < -9223372036854775808.0) return num_fail(err, errlen, "integer overflow");
    *out = vint((int64_t)x);
    return true;
}

int eir_num_cmp(eir_sym_value a, eir_sym_value b) {
    if (!a.is_float && !b.is_float) return (a.i > b.i) - (a.i < b.i);
    double x = fv(a), y = fv(b);
    if (isnan(x) || isnan(y)) return 2;
    return (x > y) - (x < y);
}

bool eir_num_binop(eir_num_op op, eir_sym_value a, eir_sym_value b, eir_sym_value *out, char *err, size_t errlen) {
    bool ints = !a.is_float && !b.is_float;
    int64_t r;
    switch (op) {
    case EIR_NUM_ADD: case EIR_NUM_SUB: case EIR_NUM_MUL:
        if (ints) {
            bool ovf = op == EIR_NUM_ADD ? __builtin_add_overflow(a.i, b.i, &r)
                     : op == EIR_NUM_SUB ? __builtin_sub_overflow(a.i, b.i, &r) : __builtin_mul_overflow(a.i, b.i, &r);
            if (ovf) return num_fail(err, errlen, "integer overflow");
            *out = vint(r);
        } else {
            double x = fv(a), y = fv(b);
            *out = vflt(op == EIR_NUM_ADD ? x + y : op == EIR_NUM_SUB ? x - y : x * y);
        }
        return true;
    case EIR_NUM_TRUEDIV:
        if (fv(b) == 0) return num_fail(err, errlen, "division by zero");
        *out = vflt(fv(a) / fv(b));
        return true;
    case EIR_NUM_FLOORDIV: case EIR_NUM_CEILDIV: case EIR_NUM_MOD:
        if (fv(b) == 0) return num_fail(err, errlen, op == EIR_NUM_MOD ? "modulo by zero" : "division by zero");
        if (ints) {
            if (a.i == INT64_MIN && b.i == -1) return num_fail(err, errlen, "integer overflow");
            int64_t q = op == EIR_NUM_CEILDIV ? -floordiv64(-a.i, b.i) : floordiv64(a.i, b.i);
            *out = vint(op == EIR_NUM_MOD ? a.i - q * b.i : q);
        } else {
            double x = fv(a), y = fv(b);
            if (op == EIR_NUM_MOD) {
                double m = fmod(x, y);
                if (m != 0 && ((m < 0) != (y < 0))) m += y;
                *out = vflt(m);
            } else {
                *out = vflt(op == EIR_NUM_CEILDIV ? ceil(x / y) : floor(x / y));
            }
        }
        return true;
    case EIR_NUM_POW:
        if (ints && b.i >= 0) {
            int64_t acc = 1;
            for (int64_t i = 0; i < b.i; i++) {
                if (__builtin_mul_overflow(acc, a.i, &acc)) return num_fail(err, errlen, "integer overflow");
                if (acc == 0 || acc == 1) break;       /* 0**k, 1**k */
                if (acc == -1 && a.i == -1) { acc = (b.i % 2) ? -1 : 1; break; }
            }
            *out = vint(acc);
            return true;
        }
        if (fv(a) == 0 && fv(b) < 0) return num_fail(err, errlen, "division by zero");
        *out = vflt(pow(fv(a), fv(b)));
        return true;
    default: break;
    }
    if (!ints) return num_fail(err, errlen, "bitwise operation on a float");
    switch (op) {
    case EIR_NUM_LSHIFT:
        if (b.i < 0) return num_fail(err, errlen, "negative shift count");
        if (b.i >= 63 ? a.i != 0 : __builtin_mul_overflow(a.i, (int64_t)1 << b.i, &r)) return num_fail(err, errlen, "integer overflow");
        *out = vint(b.i >= 63 ? 0 : r);
        return true;
    case EIR_NUM_RSHIFT:
        if (b.i < 0) return num_fail(err, errlen, "negative shift count");
        *out = vint(b.i >= 63 ? (a.i < 0 ? -1 : 0) : floordiv64(a.i, (int64_t)1 << b.i));
        return true;
    case EIR_NUM_AND: *out = vint(a.i & b.i); return true;
    case EIR_NUM_OR: *out = vint(a.i | b.i); return true;
    case EIR_NUM_XOR: *out = vint(a.i ^ b.i); return true;
    default: return num_fail(err, errlen, "bad operator");
    }
}

/* ---- evaluating expressions ---- */

static bool eval_node(ev *e, const eir_sym_node *n, eir_sym_value *out);

static bool eval_arg(ev *e, const eir_sym_node *n, uint32_t i, eir_sym_value *out) {
    return eval_node(e, n->args[i], out);
}

static bool truthy(eir_sym_value v) { return v.is_float ? v.f != 0 : v.i != 0; }

/* relations by their sympy names; false if f is not one */
static bool cmp_values(const char *f, eir_sym_value a, eir_sym_value b, bool *r) {
    int c = eir_num_cmp(a, b);
    if (!strcmp(f, "Equality")) *r = c == 0;
    else if (!strcmp(f, "Unequality")) *r = c != 0;
    else if (!strcmp(f, "StrictLessThan")) *r = c == -1;
    else if (!strcmp(f, "LessThan")) *r = c == -1 || c == 0;
    else if (!strcmp(f, "StrictGreaterThan")) *r = c == 1;
    else if (!strcmp(f, "GreaterThan")) *r = c == 1 || c == 0;
    else return false;
    return true;
}

/* an arithmetic step of function f, its error message naming f */
static bool num_op(ev *e, const char *f, eir_num_op op, eir_sym_value a, eir_sym_value b, eir_sym_value *out) {
    char why[96];
    if (eir_num_binop(op, a, b, out, why, sizeof why)) return true;
    return ev_fail(e, "%s in %s", why, f);
}

static bool to_int(ev *e, double x, const char *f, eir_sym_value *out) {
    char why[96];
    if (eir_num_to_int(x, out, why, sizeof why)) return true;
    return ev_fail(e, "%s of %s is not an integer (%s)", f, isnan(x) ? "nan" : isinf(x) ? "inf" : "a huge value", why);
}

static bool eval_unary_float(const char *name, double x, double *r) {
    static const struct { const char *n; double (*fn)(double); } t[] = {
        {"sqrt", sqrt}, {"cos", cos}, {"cosh", cosh}, {"sin", sin}, {"sinh", sinh}, {"tan", tan}, {"tanh", tanh},
        {"asin", asin}, {"acos", acos}, {"atan", atan}, {"exp", exp}, {"log", log}, {"asinh", asinh}, {"log2", log2}};
    for (size_t i = 0; i < EIR_ARRAY_LEN(t); i++)
        if (!strcmp(name, t[i].n)) { *r = t[i].fn(x); return true; }
    return false;
}

/* torch.fx.experimental.symbolic_shapes.eval_is_non_overlapping_and_dense */
static bool eval_dense(ev *e, const eir_sym_node *n, eir_sym_value *out) {
    uint32_t dim = n->nargs / 2;
    int64_t sz[64], st[64];
    if (dim > 64) return ev_fail(e, "IsNonOverlappingAndDenseIndicator with %u dims", dim);
    for (uint32_t i = 0; i < 2 * dim; i++) {
        eir_sym_value v;
        if (!eval_arg(e, n, i, &v)) return false;
        if (v.is_float) return ev_fail(e, "IsNonOverlappingAndDenseIndicator of a float");
        (i < dim ? sz : st)[i % dim] = v.i;
    }
    if (dim == 1) { *out = vint(st[0] == 1 || sz[0] < 2); return true; }
    /* insertion sort by stride (stable, as Python's sorted) */
    for (uint32_t i = 1; i < dim; i++)
        for (uint32_t j = i; j > 0 && st[j - 1] > st[j]; j--) {
            int64_t t = st[j]; st[j] = st[j - 1]; st[j - 1] = t;
            t = sz[j]; sz[j] = sz[j - 1]; sz[j - 1] = t;
        }
    int64_t expected = 1;
    for (uint32_t i = 0; i < dim; i++) {
        if (sz[i] == 1) continue;
        if (st[i] != expected) { *out = vint(0); return true; }
        if (__builtin_mul_overflow(expected, sz[i], &expected)) return ev_fail(e, "integer overflow");
    }
    *out = vint(1);
    return true;
}

static bool eval_call(ev *e, const eir_sym_node *n, eir_sym_value *out) {
    const char *f = n->name;
    uint32_t k = n->nargs;
    eir_sym_value a, b, c;
    if (!strcmp(f, "Add") || !strcmp(f, "Mul")) {
        bool add = f[0] == 'A';
        eir_sym_value acc = vint(add ? 0 : 1);
        for (uint32_t i = 0; i < k; i++)
            if (!eval_arg(e, n, i, &a) || !num_op(e, f, add ? EIR_NUM_ADD : EIR_NUM_MUL, acc, a, &acc)) return false;
        *out = acc;
        return true;
    }
    if (!strcmp(f, "Max") || !strcmp(f, "Min")) {
        bool mx = f[1] == 'a';
        for (uint32_t i = 0; i < k; i++) {
            if (!eval_arg(e, n, i, &a)) return false;
            if (i == 0) { *out = a; continue; }
            if (eir_num_cmp(a, *out) == (mx ? 1 : -1)) *out = a;
        }
        return true;
    }
    if (!strcmp(f, "And") || !strcmp(f, "Or")) {
        bool and_ = f[0] == 'A';
        for (uint32_t i = 0; i < k; i++) {
            if (!eval_arg(e, n, i, &a)) return false;
            if (truthy(a) != and_) { *out = vint(!and_); return true; }
        }
        *out = vint(and_);
        return true;
    }
    if (!strcmp(f, "Piecewise")) {
        for (uint32_t i = 0; i < k; i++) {
            const eir_sym_node *pair = n->args[i];
            if (!eval_arg(e, pair, 1, &c)) return false;
            if (truthy(c)) return eval_arg(e, pair, 0, out);
        }
        return ev_fail(e, "Piecewise has no true condition");
    }
    if (!strcmp(f, "Where")) {
        if (!eval_arg(e, n, 0, &c)) return false;
        return eval_arg(e, n, truthy(c) ? 1 : 2, out);
    }
    if (!strcmp(f, "IsNonOverlappingAndDenseIndicator")) return eval_dense(e, n, out);
    if (!strcmp(f, "ModularIndexing")) {
        eir_sym_value m;
        if (!eval_arg(e, n, 0, &a) || !eval_arg(e, n, 1, &b) || !eval_arg(e, n, 2, &m)) return false;
        eir_sym_value q;
        return num_op(e, f, EIR_NUM_FLOORDIV, a, b, &q) && num_op(e, f, EIR_NUM_MOD, q, m, out);
    }
    if (k == 1) {
        if (!eval_arg(e, n, 0, &a)) return false;
        if (!strcmp(f, "Not")) { *out = vint(!truthy(a)); return true; }
        if (!strcmp(f, "Identity")) { *out = a; return true; }
        if (!strcmp(f, "Abs")) {
            if (a.is_float) *out = vflt(fabs(a.f));
            else if (a.i == INT64_MIN) return ev_fail(e, "integer overflow in Abs");
            else *out = vint(a.i < 0 ? -a.i : a.i);
            return true;
        }
        if (!strcmp(f, "ToFloat")) { *out = vflt(fv(a)); return true; }
        if (!a.is_float && (!strcmp(f, "TruncToInt") || !strcmp(f, "FloorToInt") || !strcmp(f, "CeilToInt") ||
                            !strcmp(f, "RoundToInt") || !strcmp(f, "floor") || !strcmp(f, "ceiling"))) {
            *out = a;
            return true;
        }
        if (!strcmp(f, "TruncToInt")) return to_int(e, trunc(a.f), f, out);
        if (!strcmp(f, "FloorToInt") || !strcmp(f, "floor")) return to_int(e, floor(a.f), f, out);
        if (!strcmp(f, "CeilToInt") || !strcmp(f, "ceiling")) return to_int(e, ceil(a.f), f, out);
        if (!strcmp(f, "RoundToInt")) return to_int(e, nearbyint(a.f), f, out); /* halves to even */
        if (!strcmp(f, "TruncToFloat")) { *out = vflt(trunc(fv(a))); return true; }
        if (!strncmp(f, "OpaqueUnaryFn_", 14)) {
            double r;
            if (eval_unary_float(f + 14, fv(a), &r)) { *out = vflt(r); return true; }
        }
        return ev_fail(e, "cannot evaluate %s", f);
    }
    if (k != 2) return ev_fail(e, "cannot evaluate %s with %u arguments", f, k);
    if (!eval_arg(e, n, 0, &a) || !eval_arg(e, n, 1, &b)) return false;
    bool r;
    if (cmp_values(f, a, b, &r)) { *out = vint(r); return true; }
    if (!strcmp(f, "FloorDiv") || !strcmp(f, "CleanDiv")) return num_op(e, f, EIR_NUM_FLOORDIV, a, b, out);
    if (!strcmp(f, "CeilDiv")) return num_op(e, f, EIR_NUM_CEILDIV, a, b, out);
    if (!strcmp(f, "Mod") || !strcmp(f, "PythonMod")) return num_op(e, f, EIR_NUM_MOD, a, b, out);
    if (!strcmp(f, "IntTrueDiv") || !strcmp(f, "FloatTrueDiv")) return num_op(e, f, EIR_NUM_TRUEDIV, a, b, out);
    if (!strcmp(f, "PowByNatural") && (a.is_float || b.is_float || b.i < 0))
        return ev_fail(e, "PowByNatural needs a natural exponent");
    if (!strcmp(f, "FloatPow")) return num_op(e, f, EIR_NUM_POW, vflt(fv(a)), b, out);
    if (!strcmp(f, "Pow") || !strcmp(f, "PowByNatural")) return num_op(e, f, EIR_NUM_POW, a, b, out);
    if (!strcmp(f, "RoundDecimal")) {
        if (b.is_float) return ev_fail(e, "RoundDecimal needs an integer number of digits");
        double scale = pow(10.0, (double)b.i);
        *out = vflt(nearbyint(fv(a) * scale) / scale);
        return true;
    }
    if (a.is_float || b.is_float) return ev_fail(e, "%s of a float", f);
    if (!strcmp(f, "LShift")) return num_op(e, f, EIR_NUM_LSHIFT, a, b, out);
    if (!strcmp(f, "RShift")) return num_op(e, f, EIR_NUM_RSHIFT, a, b, out);
    if (!strcmp(f, "BitwiseFn_bitwise_and")) return num_op(e, f, EIR_NUM_AND, a, b, out);
    if (!strcmp(f, "BitwiseFn_bitwise_or")) return num_op(e, f, EIR_NUM_OR, a, b, out);
    if (!strcmp(f, "BitwiseFn_bitwise_xor")) return num_op(e, f, EIR_NUM_XOR, a, b, out);
    return ev_fail(e, "cannot evaluate %s", f);
}

static bool eval_node(ev *e, const eir_sym_node *n, eir_sym_value *out) {
    switch (n->kind) {
    case EIR_SYM_INTEGER: *out = vint(n->ival); return true;
    case EIR_SYM_TRUE: *out = vint(1); return true;
    case EIR_SYM_FALSE: *out = vint(0); return true;
    case EIR_SYM_RATIONAL:
        *out = n->den == 1 ? vint(n->ival) : vflt((double)n->ival / (double)n->den);
        return true;
    case EIR_SYM_FLOAT: *out = vflt(n->fval); return true;
    case EIR_SYM_INFINITY: *out = vflt(INFINITY); return true;
    case EIR_SYM_NEG_INFINITY: *out = vflt(-INFINITY); return true;
    case EIR_SYM_SYMBOL:
        if (e->lookup && e->lookup(e->ctx, n->name, out)) return true;
        return ev_fail(e, "symbol %s has no value", n->name);
    case EIR_SYM_CALL: return eval_call(e, n, out);
    }
    return ev_fail(e, "cannot evaluate this expression");
}

bool eir_sym_eval_value(const eir_sym_node *n, eir_sym_lookup lookup, void *ctx, eir_sym_value *out, char *err,
                        size_t errlen) {
    ev e = {lookup, ctx, err, errlen};
    err[0] = 0;
    return eval_node(&e, n, out);
}

bool eir_sym_eval(const eir_sym_node *n, eir_sym_lookup lookup, void *ctx, int64_t *out, char *err, size_t errlen) {
    eir_sym_value v;
    if (!eir_sym_eval_value(n, lookup, ctx, &v, err, errlen)) return false;
    if (v.is_float) {
        /* a size computed through a rational coefficient (s0/2 with even s0) is whole */
        if (v.f != floor(v.f) || fabs(v.f) > 9007199254740992.0) {
            eir_snprintf(err, errlen, "value %.17g is not an integer", v.f);
            return false;
        }
        *out = (int64_t)v.f;
        return true;
    }
    *out = v.i;
    return true;
}

/* A Float alone keeps sympy's trailing zeros (print level 1); everything
 * below the root is printed as sympy's nested levels are. */
void eir_sym_print(eir_buf *b, const eir_sym_node *n) {
    if (n->kind == EIR_SYM_FLOAT) print_float(b, n->fval, false);
    else sym_print(b, n);
}
