/* sym.c — parse sympy srepr text and print it as sympy's str() does.
 *
 * The grammar is the one srepr produces: Name(args, key=value), bare names
 * (oo, true, int_oo), integers, floats and quoted strings. Printing covers
 * what torch.export programs carry (symbols, integer arithmetic, FloorDiv,
 * Max/Min, relations); other functions print as Name(arg, ...). */
#include "sym.h"

#include <ctype.h>
#include <errno.h>
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
        while (isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
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
        if (res) res->name = s;
    } else if (*p == '-' || isdigit((unsigned char)*p)) {
        const char *s = p;
        if (*p == '-') p++;
        while (isdigit((unsigned char)*p)) p++;
        if (*p == '.' || *p == 'e' || *p == 'E') {
            char *end;
            double v = strtod(s, &end);
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
    } else if (isalpha((unsigned char)*p) || *p == '_') {
        const char *s = p;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '.') p++;
        size_t n = (size_t)(p - s);
        ps->p = p;
        skip_ws(ps);
        if (*ps->p != '(') {
            if ((n == 4 && !memcmp(s, "true", 4)) || (n == 4 && !memcmp(s, "True", 4)))
                return new_node(ps, EIR_SYM_TRUE);
            if ((n == 5 && !memcmp(s, "false", 5)) || (n == 5 && !memcmp(s, "False", 5)))
                return new_node(ps, EIR_SYM_FALSE);
            if ((n == 2 && !memcmp(s, "oo", 2)) || (n == 6 && !memcmp(s, "int_oo", 6)))
                return new_node(ps, EIR_SYM_INFINITY);
            return perr(ps, "unknown name");
        }
        ps->p++;
        const char *name = eir_arena_strndup(ps->arena, s, n);
        if (!name) return perr(ps, "out of memory");
        eir_sym_node tmp = {0};
        if (!parse_args(ps, &tmp)) return NULL;
        if (!strcmp(name, "Symbol")) {
            if (tmp.nargs != 1 || tmp.args[0]->kind != EIR_SYM_SYMBOL) return perr(ps, "Symbol needs a name");
            res = tmp.args[0];
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
            if (a->kind == EIR_SYM_SYMBOL) { res->name = a->name; res->fval = strtod(a->name, NULL); }
            else if (a->kind == EIR_SYM_FLOAT) { res->name = a->name; res->fval = a->fval; }
            else if (a->kind == EIR_SYM_INTEGER) { res->fval = (double)a->ival; res->name = NULL; }
            else return perr(ps, "Float needs a number");
        } else if (!strcmp(name, "BooleanTrue")) {
            res = new_node(ps, EIR_SYM_TRUE);
        } else if (!strcmp(name, "BooleanFalse")) {
            res = new_node(ps, EIR_SYM_FALSE);
        } else {
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
    if (n->kind == EIR_SYM_SYMBOL && (!n->name[0])) return perr(&ps, "empty symbol name");
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
    case EIR_SYM_RATIONAL: return PREC_MUL;
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
        if (is_call(n, "FloorDiv") || is_call(n, "Identity")) return PREC_ATOM;
        return PREC_FUNC;
    default: return PREC_ATOM;
    }
}

static void print_paren(eir_buf *b, const eir_sym_node *n, int level) {
    if (prec_of(n) < level) {
        eir_buf_putc(b, '(');
        eir_sym_print(b, n);
        eir_buf_putc(b, ')');
    } else {
        eir_sym_print(b, n);
    }
}

static bool is_neg_pow(const eir_sym_node *f) {
    return is_call(f, "Pow") && f->nargs == 2 && f->args[1]->kind == EIR_SYM_INTEGER && f->args[1]->ival < 0;
}

static void print_mul(eir_buf *b, const eir_sym_node *n) {
    /* Coefficient first (-1 prints as a sign); a rational coefficient's
     * denominator and x**-k factors go after '/'. */
    uint32_t start = 0;
    int64_t den = 1;
    const eir_sym_node *c = n->args[0];
    if (n->nargs > 1 && (c->kind == EIR_SYM_INTEGER || c->kind == EIR_SYM_RATIONAL)) {
        int64_t num = c->ival;
        if (c->kind == EIR_SYM_RATIONAL) den = c->den;
        start = 1;
        if (num == -1) eir_buf_putc(b, '-');
        else if (num != 1) eir_buf_printf(b, "%lld*", (long long)num);
    }
    bool first = true;
    uint32_t ndenom = den != 1 ? 1 : 0;
    for (uint32_t i = start; i < n->nargs; i++) {
        const eir_sym_node *f = n->args[i];
        if (is_neg_pow(f)) { ndenom++; continue; }
        if (!first) eir_buf_putc(b, '*');
        print_paren(b, f, PREC_MUL);
        first = false;
    }
    if (first) eir_buf_putc(b, '1');
    if (ndenom) {
        eir_buf_putc(b, '/');
        if (ndenom > 1) eir_buf_putc(b, '(');
        bool f1 = true;
        if (den != 1) { eir_buf_printf(b, "%lld", (long long)den); f1 = false; }
        for (uint32_t i = start; i < n->nargs; i++) {
            const eir_sym_node *f = n->args[i];
            if (!is_neg_pow(f)) continue;
            if (!f1) eir_buf_putc(b, '*');
            print_paren(b, f->args[0], PREC_MUL);
            if (f->args[1]->ival != -1) eir_buf_printf(b, "**%lld", (long long)-f->args[1]->ival);
            f1 = false;
        }
        if (ndenom > 1) eir_buf_putc(b, ')');
    }
}

static void print_add(eir_buf *b, const eir_sym_node *n) {
    /* sympy lists the symbolic terms first and the constant last */
    bool first = true;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n->nargs; i++) {
            const eir_sym_node *t = n->args[i];
            bool is_num = t->kind == EIR_SYM_INTEGER || t->kind == EIR_SYM_RATIONAL || t->kind == EIR_SYM_FLOAT;
            if (is_num != (pass == 1)) continue;
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
}

static const char *rel_op(const char *name) {
    static const char *const t[][2] = {{"StrictLessThan", " < "}, {"LessThan", " <= "},
                                       {"StrictGreaterThan", " > "}, {"GreaterThan", " >= "}};
    for (size_t i = 0; i < EIR_ARRAY_LEN(t); i++)
        if (!strcmp(name, t[i][0])) return t[i][1];
    return NULL;
}

void eir_sym_print(eir_buf *b, const eir_sym_node *n) {
    switch (n->kind) {
    case EIR_SYM_SYMBOL: eir_buf_puts(b, n->name); return;
    case EIR_SYM_INTEGER: eir_buf_printf(b, "%lld", (long long)n->ival); return;
    case EIR_SYM_RATIONAL: eir_buf_printf(b, "%lld/%lld", (long long)n->ival, (long long)n->den); return;
    case EIR_SYM_FLOAT:
        if (n->name) eir_buf_puts(b, n->name);
        else eir_buf_put_pyfloat(b, n->fval);
        return;
    case EIR_SYM_TRUE: eir_buf_puts(b, "True"); return;
    case EIR_SYM_FALSE: eir_buf_puts(b, "False"); return;
    case EIR_SYM_INFINITY: eir_buf_puts(b, "oo"); return;
    case EIR_SYM_NEG_INFINITY: eir_buf_puts(b, "-oo"); return;
    case EIR_SYM_CALL: break;
    }
    if (is_call(n, "Add") && n->nargs) { print_add(b, n); return; }
    if (is_call(n, "Mul") && n->nargs) { print_mul(b, n); return; }
    if (is_call(n, "Pow") && n->nargs == 2) {
        print_paren(b, n->args[0], PREC_POW + 1);
        eir_buf_puts(b, "**");
        print_paren(b, n->args[1], PREC_POW);
        return;
    }
    if (is_call(n, "FloorDiv") && n->nargs == 2) {
        eir_buf_putc(b, '(');
        print_paren(b, n->args[0], PREC_ATOM);
        eir_buf_puts(b, "//");
        print_paren(b, n->args[1], PREC_ATOM);
        eir_buf_putc(b, ')');
        return;
    }
    if (is_call(n, "Identity") && n->nargs == 1) {
        eir_buf_putc(b, '(');
        eir_sym_print(b, n->args[0]);
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
        int pr = prec_of(n);
        for (uint32_t i = 0; i < n->nargs; i++) {
            if (i) eir_buf_puts(b, is_call(n, "And") ? " & " : " | ");
            print_paren(b, n->args[i], pr + 1);
        }
        return;
    }
    if (is_call(n, "Not") && n->nargs == 1) {
        eir_buf_putc(b, '~');
        print_paren(b, n->args[0], 100);
        return;
    }
    /* sympy prints Equality/Unequality by their short names */
    eir_buf_puts(b, !strcmp(n->name, "Equality") ? "Eq" : !strcmp(n->name, "Unequality") ? "Ne" : n->name);
    eir_buf_putc(b, '(');
    for (uint32_t i = 0; i < n->nargs; i++) {
        if (i) eir_buf_puts(b, ", ");
        eir_sym_print(b, n->args[i]);
    }
    eir_buf_putc(b, ')');
}

/* ---- evaluation ---- */

static int64_t floordiv64(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
    return q;
}

static int64_t pymod64(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

bool eir_sym_eval(const eir_sym_node *n, eir_sym_lookup lookup, void *ctx, int64_t *out, char *err, size_t errlen) {
    switch (n->kind) {
    case EIR_SYM_INTEGER: *out = n->ival; return true;
    case EIR_SYM_TRUE: *out = 1; return true;
    case EIR_SYM_FALSE: *out = 0; return true;
    case EIR_SYM_SYMBOL:
        if (lookup && lookup(ctx, n->name, out)) return true;
        snprintf(err, errlen, "symbol %s has no value", n->name);
        return false;
    case EIR_SYM_RATIONAL:
        if (n->den == 1) { *out = n->ival; return true; }
        snprintf(err, errlen, "rational %lld/%lld is not an integer", (long long)n->ival, (long long)n->den);
        return false;
    case EIR_SYM_CALL: break;
    default:
        snprintf(err, errlen, "cannot evaluate a non-integer expression");
        return false;
    }
    int64_t v[8];
    if (n->nargs > 8) { snprintf(err, errlen, "%s with %u arguments", n->name, n->nargs); return false; }
    for (uint32_t i = 0; i < n->nargs; i++)
        if (!eir_sym_eval(n->args[i], lookup, ctx, &v[i], err, errlen)) return false;
    const char *f = n->name;
    uint32_t k = n->nargs;
    if (!strcmp(f, "Add")) { int64_t s = 0; for (uint32_t i = 0; i < k; i++) s += v[i]; *out = s; return true; }
    if (!strcmp(f, "Mul")) { int64_t s = 1; for (uint32_t i = 0; i < k; i++) s *= v[i]; *out = s; return true; }
    if (!strcmp(f, "Max") && k) { int64_t s = v[0]; for (uint32_t i = 1; i < k; i++) if (v[i] > s) s = v[i]; *out = s; return true; }
    if (!strcmp(f, "Min") && k) { int64_t s = v[0]; for (uint32_t i = 1; i < k; i++) if (v[i] < s) s = v[i]; *out = s; return true; }
    if (!strcmp(f, "And")) { int64_t s = 1; for (uint32_t i = 0; i < k; i++) s = s && v[i]; *out = s; return true; }
    if (!strcmp(f, "Or")) { int64_t s = 0; for (uint32_t i = 0; i < k; i++) s = s || v[i]; *out = s; return true; }
    if (k == 1) {
        if (!strcmp(f, "Not")) { *out = !v[0]; return true; }
        if (!strcmp(f, "Abs")) { *out = v[0] < 0 ? -v[0] : v[0]; return true; }
        if (!strcmp(f, "Identity") || !strcmp(f, "TruncToInt") || !strcmp(f, "FloorToInt") ||
            !strcmp(f, "CeilToInt") || !strcmp(f, "RoundToInt")) { *out = v[0]; return true; }
    }
    if (k == 2) {
        int64_t a = v[0], b = v[1];
        if (!strcmp(f, "Pow") || !strcmp(f, "PowByNatural")) {
            if (b < 0) { snprintf(err, errlen, "negative exponent in %s", f); return false; }
            int64_t r = 1;
            for (int64_t i = 0; i < b && i < 64; i++) r *= a;
            *out = r;
            return true;
        }
        if (!strcmp(f, "Equality")) { *out = a == b; return true; }
        if (!strcmp(f, "Unequality")) { *out = a != b; return true; }
        if (!strcmp(f, "StrictLessThan")) { *out = a < b; return true; }
        if (!strcmp(f, "LessThan")) { *out = a <= b; return true; }
        if (!strcmp(f, "StrictGreaterThan")) { *out = a > b; return true; }
        if (!strcmp(f, "GreaterThan")) { *out = a >= b; return true; }
        if (!strcmp(f, "FloorDiv") || !strcmp(f, "CleanDiv") || !strcmp(f, "CeilDiv") || !strcmp(f, "Mod") ||
            !strcmp(f, "PythonMod")) {
            if (b == 0) { snprintf(err, errlen, "division by zero in %s", f); return false; }
            if (!strcmp(f, "CeilDiv")) *out = -floordiv64(-a, b);
            else if (f[0] == 'M' || f[0] == 'P') *out = pymod64(a, b);
            else *out = floordiv64(a, b);
            return true;
        }
    }
    if (k == 3 && !strcmp(f, "ModularIndexing")) {
        if (v[1] == 0 || v[2] == 0) { snprintf(err, errlen, "division by zero in ModularIndexing"); return false; }
        *out = pymod64(floordiv64(v[0], v[1]), v[2]);
        return true;
    }
    snprintf(err, errlen, "cannot evaluate %s with %u arguments", f, k);
    return false;
}
