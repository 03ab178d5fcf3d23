/* pyexpr.c — parse, print (as ast.unparse) and evaluate the Python
 * expressions of torch's guards. See pyexpr.h. */
#include "pyexpr.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parsing ---- */

typedef struct pp {
    eir_arena *arena;
    const char *text, *p;
    char *err;
    size_t errlen;
    int depth;
} pp;

static void *pfail(pp *ps, const char *what) {
    if (!ps->err[0])
        snprintf(ps->err, ps->errlen, "bad guard expression '%.200s': %s at offset %ld", ps->text, what,
                 (long)(ps->p - ps->text));
    return NULL;
}

static void ws(pp *ps) { while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r') ps->p++; }

static bool is_word(pp *ps, const char *w) {
    ws(ps);
    size_t n = strlen(w);
    return !strncmp(ps->p, w, n) && !eir_isalnum((unsigned char)ps->p[n]) && ps->p[n] != '_';
}

static bool eat(pp *ps, const char *tok) {
    ws(ps);
    size_t n = strlen(tok);
    if (strncmp(ps->p, tok, n)) return false;
    ps->p += n;
    return true;
}

static eir_py_node *node(pp *ps, eir_py_kind k, uint32_t nkids) {
    eir_py_node *n = eir_arena_alloc(ps->arena, sizeof *n);
    if (!n) return pfail(ps, "out of memory");
    memset(n, 0, sizeof *n);
    n->kind = k;
    n->n = nkids;
    if (nkids) {
        n->kids = eir_arena_array(ps->arena, nkids, sizeof *n->kids);
        if (!n->kids) return pfail(ps, "out of memory");
    }
    return n;
}

static eir_py_node *pair(pp *ps, eir_py_kind k, eir_py_op op, eir_py_node *a, eir_py_node *b) {
    eir_py_node *n = node(ps, k, b ? 2 : 1);
    if (!n) return NULL;
    n->op = op;
    n->kids[0] = a;
    if (b) n->kids[1] = b;
    return n;
}

static eir_py_node *p_test(pp *ps);

static eir_py_node *p_string(pp *ps) {
    char q = *ps->p++;
    eir_buf b;
    eir_buf_init(&b);
    while (*ps->p && *ps->p != q) {
        char c = *ps->p++;
        if (c == '\\') {
            char e = *ps->p;
            if (!e) break;
            ps->p++;
            c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == '0' ? 0 : e;
            if (c == 0) { eir_buf_free(&b); return pfail(ps, "NUL in a string"); }
        }
        eir_buf_putc(&b, c);
    }
    if (*ps->p != q) { eir_buf_free(&b); return pfail(ps, "unterminated string"); }
    ps->p++;
    eir_py_node *n = node(ps, EIR_PY_STR, 0);
    if (n) n->s = eir_arena_strdup(ps->arena, b.data ? b.data : "");
    eir_buf_free(&b);
    if (n && !n->s) return pfail(ps, "out of memory");
    return n;
}

static eir_py_node *p_number(pp *ps) {
    const char *s = ps->p;
    const char *q = s;
    while (eir_isdigit((unsigned char)*q)) q++;
    bool is_float = false;
    if (*q == '.') { is_float = true; q++; while (eir_isdigit((unsigned char)*q)) q++; }
    if (*q == 'e' || *q == 'E') {
        const char *r = q + 1;
        if (*r == '+' || *r == '-') r++;
        if (eir_isdigit((unsigned char)*r)) { is_float = true; q = r; while (eir_isdigit((unsigned char)*q)) q++; }
    }
    if (eir_isalpha((unsigned char)*q) || *q == '_') return pfail(ps, "bad number");
    char buf[64];
    size_t len = (size_t)(q - s);
    if (len >= sizeof buf) return pfail(ps, "number too long");
    memcpy(buf, s, len);
    buf[len] = 0;
    eir_py_node *n = node(ps, is_float ? EIR_PY_FLOAT : EIR_PY_INT, 0);
    if (!n) return NULL;
    errno = 0;
    if (is_float) {
        n->f = eir_strtod(buf, NULL);
    } else {
        char *end;
        long long v = strtoll(buf, &end, 10);
        if (errno || *end) return pfail(ps, "integer out of range");
        n->i = v;
    }
    ps->p = q;
    return n;
}

static eir_py_node *p_atom(pp *ps) {
    ws(ps);
    char c = *ps->p;
    if (c == '(') {
        ps->p++;
        eir_py_node *e = p_test(ps);
        if (!e) return NULL;
        if (!eat(ps, ")")) return pfail(ps, "expected ')'");
        return e;
    }
    if (c == '\'' || c == '"') return p_string(ps);
    if (eir_isdigit((unsigned char)c) || (c == '.' && eir_isdigit((unsigned char)ps->p[1]))) return p_number(ps);
    if (eir_isalpha((unsigned char)c) || c == '_') {
        const char *s = ps->p;
        while (eir_isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
        size_t len = (size_t)(ps->p - s);
        static const char *const reserved[] = {"and", "or", "not", "if", "else", "in", "is", "lambda"};
        for (size_t i = 0; i < EIR_ARRAY_LEN(reserved); i++)
            if (strlen(reserved[i]) == len && !strncmp(s, reserved[i], len)) { ps->p = s; return pfail(ps, "unexpected keyword"); }
        eir_py_node *n = node(ps, EIR_PY_NAME, 0);
        if (!n) return NULL;
        n->s = eir_arena_strndup(ps->arena, s, len);
        if (!n->s) return pfail(ps, "out of memory");
        /* True/False/None are constants */
        if (!strcmp(n->s, "True") || !strcmp(n->s, "False")) { n->kind = EIR_PY_INT; n->i = n->s[0] == 'T'; n->s = NULL; n->what = 1; }
        return n;
    }
    return pfail(ps, c ? "unexpected character" : "unexpected end");
}

static eir_py_node *p_primary(pp *ps) {
    eir_py_node *e = p_atom(ps);
    while (e) {
        ws(ps);
        if (*ps->p == '[') {
            ps->p++;
            eir_py_node *idx = p_test(ps);
            if (!idx) return NULL;
            if (!eat(ps, "]")) return pfail(ps, "expected ']'");
            e = pair(ps, EIR_PY_SUBSCRIPT, 0, e, idx);
        } else if (*ps->p == '.' && !eir_isdigit((unsigned char)ps->p[1])) {
            ps->p++;
            ws(ps);
            const char *s = ps->p;
            while (eir_isalnum((unsigned char)*ps->p) || *ps->p == '_') ps->p++;
            if (ps->p == s || eir_isdigit((unsigned char)*s)) return pfail(ps, "expected an attribute name");
            eir_py_node *a = pair(ps, EIR_PY_ATTR, 0, e, NULL);
            if (!a) return NULL;
            a->s = eir_arena_strndup(ps->arena, s, (size_t)(ps->p - s));
            if (!a->s) return pfail(ps, "out of memory");
            e = a;
        } else if (*ps->p == '(') {
            ps->p++;
            eir_py_node *tmp[16];
            uint32_t k = 0;
            tmp[k++] = e;
            ws(ps);
            if (*ps->p != ')') {
                for (;;) {
                    if (k == EIR_ARRAY_LEN(tmp)) return pfail(ps, "too many arguments");
                    eir_py_node *a = p_test(ps);
                    if (!a) return NULL;
                    tmp[k++] = a;
                    if (eat(ps, ",")) { ws(ps); if (*ps->p == ')') break; continue; }
                    break;
                }
            }
            if (!eat(ps, ")")) return pfail(ps, "expected ',' or ')'");
            eir_py_node *call = node(ps, EIR_PY_CALL, k);
            if (!call) return NULL;
            memcpy(call->kids, tmp, k * sizeof *tmp);
            e = call;
        } else {
            break;
        }
    }
    return e;
}

static eir_py_node *p_factor(pp *ps);

static eir_py_node *p_power(pp *ps) {
    eir_py_node *b = p_primary(ps);
    if (b && eat(ps, "**")) {
        eir_py_node *x = p_factor(ps);
        if (!x) return NULL;
        return pair(ps, EIR_PY_BINOP, EIR_PYOP_POW, b, x);
    }
    return b;
}

static eir_py_node *p_factor(pp *ps) {
    if (++ps->depth > 200) return pfail(ps, "nesting too deep");
    ws(ps);
    eir_py_node *r;
    char c = *ps->p;
    if (c == '-' || c == '+' || c == '~') {
        ps->p++;
        eir_py_node *x = p_factor(ps);
        r = x ? pair(ps, EIR_PY_UNARY, c == '-' ? EIR_PYOP_NEG : c == '+' ? EIR_PYOP_POS : EIR_PYOP_INVERT, x, NULL) : NULL;
    } else {
        r = p_power(ps);
    }
    ps->depth--;
    return r;
}

/* left-associative binary levels, loosest last */
typedef struct { const char *tok; eir_py_op op; } binop_tok;
static const binop_tok term_ops[] = {{"//", EIR_PYOP_FLOORDIV}, {"*", EIR_PYOP_MUL}, {"/", EIR_PYOP_DIV}, {"%", EIR_PYOP_MOD}};
static const binop_tok arith_ops[] = {{"+", EIR_PYOP_ADD}, {"-", EIR_PYOP_SUB}};
static const binop_tok shift_ops[] = {{"<<", EIR_PYOP_LSHIFT}, {">>", EIR_PYOP_RSHIFT}};
static const binop_tok band_ops[] = {{"&", EIR_PYOP_BITAND}};
static const binop_tok bxor_ops[] = {{"^", EIR_PYOP_BITXOR}};
static const binop_tok bor_ops[] = {{"|", EIR_PYOP_BITOR}};

static eir_py_node *p_level(pp *ps, int level);

static eir_py_node *p_level_operand(pp *ps, int level) { return level == 0 ? p_factor(ps) : p_level(ps, level - 1); }

static eir_py_node *p_level(pp *ps, int level) {
    static const struct { const binop_tok *t; size_t n; } levels[] = {
        {term_ops, 4}, {arith_ops, 2}, {shift_ops, 2}, {band_ops, 1}, {bxor_ops, 1}, {bor_ops, 1}};
    eir_py_node *l = p_level_operand(ps, level);
    while (l) {
        ws(ps);
        const binop_tok *hit = NULL;
        for (size_t i = 0; i < levels[level].n && !hit; i++) {
            const binop_tok *t = &levels[level].t[i];
            size_t len = strlen(t->tok);
            if (strncmp(ps->p, t->tok, len)) continue;
            /* '*' is not '**', '/' is not '//', '<' '>' belong to comparisons */
            if (len == 1 && (ps->p[1] == t->tok[0] && (t->tok[0] == '*' || t->tok[0] == '/'))) continue;
            if (ps->p[len] == '=') continue;
            hit = t;
        }
        if (!hit) break;
        ps->p += strlen(hit->tok);
        eir_py_node *r = p_level_operand(ps, level);
        if (!r) return NULL;
        l = pair(ps, EIR_PY_BINOP, hit->op, l, r);
    }
    return l;
}

static bool cmp_op(pp *ps, eir_py_op *op) {
    ws(ps);
    static const struct { const char *t; eir_py_op op; } t[] = {{"==", EIR_PYOP_EQ}, {"!=", EIR_PYOP_NE}, {"<=", EIR_PYOP_LE},
                                                               {">=", EIR_PYOP_GE}, {"<", EIR_PYOP_LT}, {">", EIR_PYOP_GT}};
    for (size_t i = 0; i < EIR_ARRAY_LEN(t); i++) {
        size_t len = strlen(t[i].t);
        if (strncmp(ps->p, t[i].t, len)) continue;
        if (len == 1 && (ps->p[1] == '<' || ps->p[1] == '>')) return false; /* a shift */
        ps->p += len;
        *op = t[i].op;
        return true;
    }
    return false;
}

static eir_py_node *p_comparison(pp *ps) {
    eir_py_node *first = p_level(ps, 5);
    if (!first) return NULL;
    eir_py_node *ops_n[16];
    eir_py_op ops[16];
    uint32_t k = 0;
    eir_py_op op;
    while (cmp_op(ps, &op)) {
        if (k == 15) return pfail(ps, "comparison chain too long");
        eir_py_node *r = p_level(ps, 5);
        if (!r) return NULL;
        ops[k] = op;
        ops_n[k++] = r;
    }
    if (!k) return first;
    eir_py_node *c = node(ps, EIR_PY_COMPARE, k + 1);
    if (!c) return NULL;
    c->cmp = eir_arena_array(ps->arena, k, sizeof *c->cmp);
    if (!c->cmp) return pfail(ps, "out of memory");
    c->kids[0] = first;
    memcpy(c->kids + 1, ops_n, k * sizeof *ops_n);
    memcpy(c->cmp, ops, k * sizeof *ops);
    return c;
}

static eir_py_node *p_not(pp *ps) {
    if (is_word(ps, "not")) {
        if (++ps->depth > 200) return pfail(ps, "nesting too deep");
        ps->p += 3;
        eir_py_node *x = p_not(ps);
        ps->depth--;
        return x ? pair(ps, EIR_PY_UNARY, EIR_PYOP_NOT, x, NULL) : NULL;
    }
    return p_comparison(ps);
}

static eir_py_node *p_boolop(pp *ps, bool is_or) {
    eir_py_node *tmp[32];
    uint32_t k = 0;
    const char *w = is_or ? "or" : "and";
    for (;;) {
        eir_py_node *x = is_or ? p_boolop(ps, false) : p_not(ps);
        if (!x) return NULL;
        if (k == EIR_ARRAY_LEN(tmp)) return pfail(ps, "boolean chain too long");
        tmp[k++] = x;
        if (!is_word(ps, w)) break;
        ps->p += strlen(w);
    }
    if (k == 1) return tmp[0];
    eir_py_node *b = node(ps, EIR_PY_BOOLOP, k);
    if (!b) return NULL;
    b->op = is_or ? EIR_PYOP_OR : EIR_PYOP_AND;
    memcpy(b->kids, tmp, k * sizeof *tmp);
    return b;
}

static eir_py_node *p_test(pp *ps) {
    if (++ps->depth > 200) return pfail(ps, "nesting too deep");
    eir_py_node *body = p_boolop(ps, true);
    if (body && is_word(ps, "if")) {
        ps->p += 2;
        eir_py_node *test = p_boolop(ps, true);
        if (!test) return NULL;
        if (!is_word(ps, "else")) return pfail(ps, "expected 'else'");
        ps->p += 4;
        eir_py_node *orelse = p_test(ps);
        if (!orelse) return NULL;
        eir_py_node *n = node(ps, EIR_PY_IFEXP, 3);
        if (!n) return NULL;
        n->kids[0] = body;
        n->kids[1] = test;
        n->kids[2] = orelse;
        body = n;
    }
    ps->depth--;
    return body;
}

eir_py_node *eir_py_parse(eir_arena *arena, const char *text, char *err, size_t errlen) {
    pp ps = {arena, text, text, err, errlen, 0};
    err[0] = 0;
    eir_py_node *n = p_test(&ps);
    if (!n) return NULL;
    ws(&ps);
    if (*ps.p) return pfail(&ps, "trailing text");
    return n;
}

/* ---- printing, as Python 3.11's ast.unparse ---- */

/* ast._Precedence */
enum { PR_TEST = 4, PR_OR, PR_AND, PR_NOT, PR_CMP, PR_BOR, PR_BXOR, PR_BAND, PR_SHIFT, PR_ARITH, PR_TERM,
       PR_FACTOR, PR_POWER, PR_AWAIT, PR_ATOM };

static int binop_prec(eir_py_op op) {
    switch (op) {
    case EIR_PYOP_ADD: case EIR_PYOP_SUB: return PR_ARITH;
    case EIR_PYOP_MUL: case EIR_PYOP_DIV: case EIR_PYOP_FLOORDIV: case EIR_PYOP_MOD: return PR_TERM;
    case EIR_PYOP_POW: return PR_POWER;
    case EIR_PYOP_LSHIFT: case EIR_PYOP_RSHIFT: return PR_SHIFT;
    case EIR_PYOP_BITAND: return PR_BAND;
    case EIR_PYOP_BITXOR: return PR_BXOR;
    case EIR_PYOP_BITOR: return PR_BOR;
    default: return PR_ATOM;
    }
}

static const char *op_text(eir_py_op op) {
    static const char *const t[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^",
                                    "-", "+", "~", "not", "==", "!=", "<", "<=", ">", ">=", "and", "or"};
    return t[op];
}

static void unparse(eir_buf *b, const eir_py_node *n, int need, bool strip_L);

static int own_prec(const eir_py_node *n) {
    switch (n->kind) {
    case EIR_PY_BINOP: return binop_prec(n->op);
    case EIR_PY_UNARY: return n->op == EIR_PYOP_NOT ? PR_NOT : PR_FACTOR;
    case EIR_PY_COMPARE: return PR_CMP;
    case EIR_PY_BOOLOP: return n->op == EIR_PYOP_AND ? PR_AND : PR_OR;
    case EIR_PY_IFEXP: return PR_TEST;
    case EIR_PY_SOURCE: return own_prec(n->kids[0]);
    default: return PR_ATOM;
    }
}

static void unparse(eir_buf *b, const eir_py_node *n, int need, bool strip_L) {
    bool paren = need > own_prec(n);
    if (paren) eir_buf_putc(b, '(');
    switch (n->kind) {
    case EIR_PY_INT:
        if (n->what == 1) eir_buf_puts(b, n->i ? "True" : "False");
        else eir_buf_printf(b, "%lld", (long long)n->i);
        break;
    case EIR_PY_FLOAT:
        if (isinf(n->f)) eir_buf_puts(b, n->f > 0 ? "1e309" : "-1e309");
        else eir_buf_put_pyfloat(b, n->f);
        break;
    case EIR_PY_STR: eir_buf_put_pyrepr_str(b, n->s); break;
    case EIR_PY_NAME: eir_buf_puts(b, n->s); break;
    case EIR_PY_ATTR:
        unparse(b, n->kids[0], PR_ATOM, strip_L);
        eir_buf_putc(b, '.');
        eir_buf_puts(b, n->s);
        break;
    case EIR_PY_SUBSCRIPT:
        /* torch's message form: L['x'] is the argument x */
        if (strip_L && n->kids[0]->kind == EIR_PY_NAME && !strcmp(n->kids[0]->s, "L") && n->kids[1]->kind == EIR_PY_STR) {
            eir_buf_puts(b, n->kids[1]->s);
            break;
        }
        unparse(b, n->kids[0], PR_ATOM, strip_L);
        eir_buf_putc(b, '[');
        unparse(b, n->kids[1], PR_TEST, strip_L);
        eir_buf_putc(b, ']');
        break;
    case EIR_PY_CALL:
        unparse(b, n->kids[0], PR_ATOM, strip_L);
        eir_buf_putc(b, '(');
        for (uint32_t i = 1; i < n->n; i++) {
            if (i > 1) eir_buf_puts(b, ", ");
            unparse(b, n->kids[i], PR_TEST, strip_L);
        }
        eir_buf_putc(b, ')');
        break;
    case EIR_PY_BINOP: {
        int p = binop_prec(n->op);
        bool rassoc = n->op == EIR_PYOP_POW;
        unparse(b, n->kids[0], rassoc ? p + 1 : p, strip_L);
        eir_buf_printf(b, " %s ", op_text(n->op));
        unparse(b, n->kids[1], rassoc ? p : p + 1, strip_L);
        break;
    }
    case EIR_PY_UNARY: {
        int p = n->op == EIR_PYOP_NOT ? PR_NOT : PR_FACTOR;
        eir_buf_puts(b, op_text(n->op));
        if (n->op == EIR_PYOP_NOT) eir_buf_putc(b, ' ');
        unparse(b, n->kids[0], p, strip_L);
        break;
    }
    case EIR_PY_COMPARE:
        unparse(b, n->kids[0], PR_CMP + 1, strip_L);
        for (uint32_t i = 1; i < n->n; i++) {
            eir_buf_printf(b, " %s ", op_text(n->cmp[i - 1]));
            unparse(b, n->kids[i], PR_CMP + 1, strip_L);
        }
        break;
    case EIR_PY_BOOLOP: {
        /* ast.unparse raises the required level with each operand */
        int p = n->op == EIR_PYOP_AND ? PR_AND : PR_OR;
        for (uint32_t i = 0; i < n->n; i++) {
            if (i) eir_buf_printf(b, " %s ", op_text(n->op));
            p++;
            unparse(b, n->kids[i], p, strip_L);
        }
        break;
    }
    case EIR_PY_IFEXP:
        unparse(b, n->kids[0], PR_TEST + 1, strip_L);
        eir_buf_puts(b, " if ");
        unparse(b, n->kids[1], PR_TEST + 1, strip_L);
        eir_buf_puts(b, " else ");
        unparse(b, n->kids[2], PR_TEST, strip_L);
        break;
    case EIR_PY_SOURCE:
        unparse(b, n->kids[0], need, strip_L);
        break;
    }
    if (paren) eir_buf_putc(b, ')');
}

void eir_py_unparse(eir_buf *b, const eir_py_node *n, bool strip_L) { unparse(b, n, PR_TEST, strip_L); }

/* ---- evaluation (Python semantics on int64 / double) ---- */

typedef struct pev {
    eir_py_source_fn source;
    void *ctx;
    char *err;
    size_t errlen;
} pev;

static bool efail(pev *e, const char *fmt, ...) EIR_PRINTF(2, 3);
static bool efail(pev *e, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(e->err, e->errlen, fmt, ap);
    va_end(ap);
    return false;
}

static eir_sym_value pint(int64_t i) { return (eir_sym_value){false, i, (double)i}; }
static eir_sym_value pflt(double f) { return (eir_sym_value){true, 0, f}; }
static double as_f(eir_sym_value v) { return v.is_float ? v.f : (double)v.i; }
static bool truthy(eir_sym_value v) { return v.is_float ? v.f != 0 : v.i != 0; }

static bool peval(pev *e, const eir_py_node *n, eir_sym_value *out);

static bool binop(pev *e, eir_py_op op, eir_sym_value a, eir_sym_value b, eir_sym_value *out) {
    static const eir_num_op map[] = {
        [EIR_PYOP_ADD] = EIR_NUM_ADD, [EIR_PYOP_SUB] = EIR_NUM_SUB, [EIR_PYOP_MUL] = EIR_NUM_MUL,
        [EIR_PYOP_DIV] = EIR_NUM_TRUEDIV, [EIR_PYOP_FLOORDIV] = EIR_NUM_FLOORDIV, [EIR_PYOP_MOD] = EIR_NUM_MOD,
        [EIR_PYOP_POW] = EIR_NUM_POW, [EIR_PYOP_LSHIFT] = EIR_NUM_LSHIFT, [EIR_PYOP_RSHIFT] = EIR_NUM_RSHIFT,
        [EIR_PYOP_BITAND] = EIR_NUM_AND, [EIR_PYOP_BITOR] = EIR_NUM_OR, [EIR_PYOP_BITXOR] = EIR_NUM_XOR};
    if (op > EIR_PYOP_BITXOR) return efail(e, "bad operator");
    return eir_num_binop(map[op], a, b, out, e->err, e->errlen);
}

static bool compare(eir_py_op op, eir_sym_value a, eir_sym_value b) {
    int c = eir_num_cmp(a, b);
    switch (op) {
    case EIR_PYOP_EQ: return c == 0;
    case EIR_PYOP_NE: return c != 0;
    case EIR_PYOP_LT: return c == -1;
    case EIR_PYOP_LE: return c == -1 || c == 0;
    case EIR_PYOP_GT: return c == 1;
    default: return c == 1 || c == 0;
    }
}

/* dotted name of a call's function ("math.ceil", "max") into buf */
static bool func_name(const eir_py_node *f, char *buf, size_t len) {
    if (f->kind == EIR_PY_NAME) return snprintf(buf, len, "%s", f->s) < (int)len;
    if (f->kind == EIR_PY_ATTR && f->kids[0]->kind == EIR_PY_NAME)
        return snprintf(buf, len, "%s.%s", f->kids[0]->s, f->s) < (int)len;
    return false;
}

static bool to_int(pev *e, double x, eir_sym_value *out) { return eir_num_to_int(x, out, e->err, e->errlen); }

static bool call(pev *e, const eir_py_node *n, eir_sym_value *out) {
    char name[64];
    if (!func_name(n->kids[0], name, sizeof name)) return efail(e, "unsupported call");
    uint32_t k = n->n - 1;
    eir_sym_value v[8];
    if (k > 8) return efail(e, "%s with %u arguments", name, k);
    for (uint32_t i = 0; i < k; i++)
        if (!peval(e, n->kids[i + 1], &v[i])) return false;
    if ((!strcmp(name, "max") || !strcmp(name, "min")) && k >= 1) {
        *out = v[0];
        for (uint32_t i = 1; i < k; i++)
            if (compare(name[1] == 'a' ? EIR_PYOP_GT : EIR_PYOP_LT, v[i], *out)) *out = v[i];
        return true;
    }
    if (k == 1) {
        eir_sym_value a = v[0];
        if (!strcmp(name, "abs")) {
            if (a.is_float) { *out = pflt(fabs(a.f)); return true; }
            if (a.i == INT64_MIN) return efail(e, "integer overflow");
            *out = pint(a.i < 0 ? -a.i : a.i);
            return true;
        }
        if (!strcmp(name, "float") || !strcmp(name, "torch.sym_float")) { *out = pflt(as_f(a)); return true; }
        if (!a.is_float && (!strcmp(name, "int") || !strcmp(name, "math.floor") || !strcmp(name, "math.ceil") ||
                            !strcmp(name, "math.trunc") || !strcmp(name, "round"))) { *out = a; return true; }
        if (!strcmp(name, "int") || !strcmp(name, "math.trunc")) return to_int(e, trunc(a.f), out);
        if (!strcmp(name, "math.floor")) return to_int(e, floor(a.f), out);
        if (!strcmp(name, "math.ceil")) return to_int(e, ceil(a.f), out);
        if (!strcmp(name, "round")) return to_int(e, nearbyint(a.f), out);
        static const struct { const char *n; double (*fn)(double); } fl[] = {
            {"math.sqrt", sqrt}, {"torch._sym_sqrt", sqrt}, {"math.cos", cos}, {"math.cosh", cosh}, {"math.sin", sin},
            {"math.sinh", sinh}, {"math.tan", tan}, {"math.tanh", tanh}, {"math.asin", asin}, {"math.acos", acos},
            {"math.atan", atan}, {"math.exp", exp}, {"math.log", log}, {"math.asinh", asinh}, {"math.log2", log2}};
        for (size_t i = 0; i < EIR_ARRAY_LEN(fl); i++)
            if (!strcmp(name, fl[i].n)) { *out = pflt(fl[i].fn(as_f(a))); return true; }
    }
    if (k == 2 && !strcmp(name, "round")) {
        if (v[1].is_float) return efail(e, "round() digits must be an integer");
        double s = pow(10.0, (double)v[1].i);
        *out = pflt(nearbyint(as_f(v[0]) * s) / s);
        return true;
    }
    return efail(e, "unsupported function %s with %u argument%s", name, k, k == 1 ? "" : "s");
}

static bool peval(pev *e, const eir_py_node *n, eir_sym_value *out) {
    eir_sym_value a, b;
    switch (n->kind) {
    case EIR_PY_INT: *out = pint(n->i); return true;
    case EIR_PY_FLOAT: *out = pflt(n->f); return true;
    case EIR_PY_SOURCE: return e->source ? e->source(e->ctx, n, out, e->err, e->errlen) : efail(e, "no input values");
    case EIR_PY_ATTR:
        if (n->kids[0]->kind == EIR_PY_NAME && !strcmp(n->kids[0]->s, "math")) {
            if (!strcmp(n->s, "inf")) { *out = pflt(INFINITY); return true; }
            if (!strcmp(n->s, "nan")) { *out = pflt(NAN); return true; }
            if (!strcmp(n->s, "pi")) { *out = pflt(M_PI); return true; }
        }
        return efail(e, "cannot evaluate attribute '%s'", n->s);
    case EIR_PY_NAME:
        if (!strcmp(n->s, "inf")) { *out = pflt(INFINITY); return true; }
        return efail(e, "unknown name '%s'", n->s);
    case EIR_PY_STR: return efail(e, "a string is not a number");
    case EIR_PY_SUBSCRIPT: return efail(e, "cannot evaluate a subscript that is not an input accessor");
    case EIR_PY_CALL: return call(e, n, out);
    case EIR_PY_BINOP:
        if (!peval(e, n->kids[0], &a) || !peval(e, n->kids[1], &b)) return false;
        return binop(e, n->op, a, b, out);
    case EIR_PY_UNARY:
        if (!peval(e, n->kids[0], &a)) return false;
        if (n->op == EIR_PYOP_NOT) { *out = pint(!truthy(a)); return true; }
        if (n->op == EIR_PYOP_POS) { *out = a; return true; }
        if (n->op == EIR_PYOP_NEG) {
            if (a.is_float) { *out = pflt(-a.f); return true; }
            if (a.i == INT64_MIN) return efail(e, "integer overflow");
            *out = pint(-a.i);
            return true;
        }
        if (a.is_float) return efail(e, "'~' of a float");
        *out = pint(~a.i);
        return true;
    case EIR_PY_COMPARE:
        if (!peval(e, n->kids[0], &a)) return false;
        for (uint32_t i = 1; i < n->n; i++) {
            if (!peval(e, n->kids[i], &b)) return false;
            if (!compare(n->cmp[i - 1], a, b)) { *out = pint(0); return true; }
            a = b;
        }
        *out = pint(1);
        return true;
    case EIR_PY_BOOLOP:
        /* Python returns the deciding operand */
        for (uint32_t i = 0; i < n->n; i++) {
            if (!peval(e, n->kids[i], out)) return false;
            if (truthy(*out) == (n->op == EIR_PYOP_OR)) return true;
        }
        return true;
    case EIR_PY_IFEXP:
        if (!peval(e, n->kids[1], &a)) return false;
        return peval(e, n->kids[truthy(a) ? 0 : 2], out);
    }
    return efail(e, "cannot evaluate");
}

bool eir_py_eval(const eir_py_node *n, eir_py_source_fn source, void *ctx, eir_sym_value *out, char *err,
                 size_t errlen) {
    pev e = {source, ctx, err, errlen};
    err[0] = 0;
    return peval(&e, n, out);
}

/* ---- input accessors ---- */

static bool is_chain(const eir_py_node *n) {
    /* NAME, then subscripts by constants and attributes */
    while (n->kind == EIR_PY_SUBSCRIPT || n->kind == EIR_PY_ATTR) {
        if (n->kind == EIR_PY_SUBSCRIPT && n->kids[1]->kind != EIR_PY_STR && n->kids[1]->kind != EIR_PY_INT) return false;
        n = n->kids[0];
    }
    return n->kind == EIR_PY_NAME;
}

static const char *chain_root(const eir_py_node *n) {
    while (n->kind != EIR_PY_NAME) n = n->kids[0];
    return n->s;
}

/* x.size()[i] / x.stride()[i] / x.storage_offset(): the accessor's kind, dim and object */
static int accessor(const eir_py_node *n, int64_t *dim, const eir_py_node **obj) {
    if (n->kind == EIR_PY_SUBSCRIPT && n->kids[1]->kind == EIR_PY_INT && n->kids[0]->kind == EIR_PY_CALL &&
        n->kids[0]->n == 1 && n->kids[0]->kids[0]->kind == EIR_PY_ATTR) {
        const eir_py_node *attr = n->kids[0]->kids[0];
        int what = !strcmp(attr->s, "size") ? EIR_PY_SIZE : !strcmp(attr->s, "stride") ? EIR_PY_STRIDE : 0;
        if (what && is_chain(attr->kids[0])) { *dim = n->kids[1]->i; *obj = attr->kids[0]; return what; }
    }
    if (n->kind == EIR_PY_CALL && n->n == 1 && n->kids[0]->kind == EIR_PY_ATTR && !strcmp(n->kids[0]->s, "storage_offset") &&
        is_chain(n->kids[0]->kids[0])) {
        *dim = 0;
        *obj = n->kids[0]->kids[0];
        return EIR_PY_STORAGE_OFFSET;
    }
    return 0;
}

static bool resolve(eir_arena *arena, eir_py_node **slot, eir_py_resolve_fn fn, void *ctx, char *err, size_t errlen,
                    bool callee) {
    eir_py_node *n = *slot;
    int64_t dim = 0;
    const eir_py_node *obj = NULL;
    int what = accessor(n, &dim, &obj);
    if (!what && !callee && is_chain(n)) {
        const char *root = chain_root(n);
        if (strcmp(root, "math") && strcmp(root, "torch") && strcmp(root, "inf")) { what = EIR_PY_VALUE; obj = n; }
    }
    if (what) {
        eir_buf b;
        eir_buf_init(&b);
        eir_py_unparse(&b, obj, false);
        uint32_t ref = 0;
        bool ok = b.data && fn(ctx, b.data, what, dim, &ref, err, errlen);
        if (!b.data) snprintf(err, errlen, "out of memory");
        eir_buf_free(&b);
        if (!ok) return false;
        eir_py_node *src = eir_arena_alloc(arena, sizeof *src);
        eir_py_node **kids = eir_arena_array(arena, 1, sizeof *kids);
        if (!src || !kids) { snprintf(err, errlen, "out of memory"); return false; }
        memset(src, 0, sizeof *src);
        src->kind = EIR_PY_SOURCE;
        src->what = what;
        src->i = dim;
        src->ref = ref;
        src->n = 1;
        src->kids = kids;
        kids[0] = n;
        *slot = src;
        return true;
    }
    if (n->kind == EIR_PY_SOURCE) return true;
    for (uint32_t i = 0; i < n->n; i++) {
        /* a call's function and an attribute's object are names, not inputs */
        bool is_callee = (n->kind == EIR_PY_CALL && i == 0) || n->kind == EIR_PY_ATTR;
        if (!resolve(arena, &n->kids[i], fn, ctx, err, errlen, is_callee)) return false;
    }
    return true;
}

bool eir_py_resolve(eir_arena *arena, eir_py_node **root, eir_py_resolve_fn fn, void *ctx, char *err, size_t errlen) {
    err[0] = 0;
    return resolve(arena, root, fn, ctx, err, errlen, false);
}

/* ---- Python operators on numbers, for symbolic ops of the graph ---- */

bool eir_py_binop(eir_py_op op, eir_sym_value a, eir_sym_value b, eir_sym_value *out, char *err, size_t errlen) {
    pev e = {NULL, NULL, err, errlen};
    err[0] = 0;
    if (op >= EIR_PYOP_EQ && op <= EIR_PYOP_GE) { *out = pint(compare(op, a, b)); return true; }
    if (op == EIR_PYOP_AND || op == EIR_PYOP_OR) {
        bool r = op == EIR_PYOP_AND ? truthy(a) && truthy(b) : truthy(a) || truthy(b);
        *out = pint(r);
        return true;
    }
    return binop(&e, op, a, b, out);
}

bool eir_py_call(const char *name, const eir_sym_value *args, uint32_t nargs, eir_sym_value *out, char *err,
                 size_t errlen) {
    pev e = {NULL, NULL, err, errlen};
    err[0] = 0;
    if (nargs > 8) return efail(&e, "%s with %u arguments", name, nargs);
    /* a call node over constants, so the evaluator's table serves both */
    eir_py_node fn = {0}, mod = {0}, argn[8], *kids[9], *modk[1] = {&mod};
    char modname[32];
    const char *dot = strchr(name, '.');
    fn.kind = EIR_PY_NAME;
    fn.s = name;
    if (dot && (size_t)(dot - name) < sizeof modname) {
        memcpy(modname, name, (size_t)(dot - name));
        modname[dot - name] = 0;
        mod.kind = EIR_PY_NAME;
        mod.s = modname;
        fn.kind = EIR_PY_ATTR;
        fn.s = dot + 1;
        fn.n = 1;
        fn.kids = modk;
    }
    memset(argn, 0, sizeof argn);
    kids[0] = &fn;
    for (uint32_t i = 0; i < nargs; i++) {
        argn[i].kind = args[i].is_float ? EIR_PY_FLOAT : EIR_PY_INT;
        argn[i].i = args[i].i;
        argn[i].f = args[i].f;
        kids[i + 1] = &argn[i];
    }
    eir_py_node c = {0};
    c.kind = EIR_PY_CALL;
    c.n = nargs + 1;
    c.kids = kids;
    return call(&e, &c, out);
}
