/* parse_lex.c — the lexical half of the text-form parser (parse.c builds
 * the program): positioned messages, a cursor over one line, Python values
 * as torch's code printer writes them (numbers with inf/nan, strings with
 * Python's escapes, dtypes, devices, lists, dicts), sympy str() text turned
 * into the srepr the expression table keeps, and type annotations. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

eir_status tp_perr(ps *P, eir_status st, uint32_t lno, uint32_t col, const char *fmt, ...) {
    if (P->failed) return st;
    P->failed = true;
    char msg[1800];
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return eir_fail(P->p, st, "%u:%u: %s", lno, col, msg);
}

eir_status tp_oom(ps *P) {
    P->failed = true;
    return eir_fail(P->p, EIR_ERR_NOMEM, "out of memory");
}

void *tp_grow(void *arr, uint32_t n, uint32_t *cap, size_t elem) {
    if (n < *cap) return arr;
    uint32_t nc = *cap ? *cap * 2 : 16;
    if (nc > UINT32_MAX / 2 / elem) return NULL;
    void *a = realloc(arr, (size_t)nc * elem);
    if (a) *cap = nc;
    return a;
}

char *tp_pstrndup(ps *P, const char *s, size_t n) {
    char *r = eir_arena_strndup(&P->p->arena, s, n);
    if (!r) tp_oom(P);
    return r;
}

/* ---- a cursor over one line ---- */

eir_status tp_cerr(cur *c, eir_status st, const char *fmt, ...) {
    char msg[1500];
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return tp_perr(c->P, st, c->ln->no, tp_ccol(c), "%s", msg);
}

bool tp_ceat(cur *c, const char *tok) {
    tp_cws(c);
    size_t n = strlen(tok);
    if ((size_t)(c->e - c->s) >= n && !memcmp(c->s, tok, n)) { c->s += n; return true; }
    return false;
}

/* what is at the cursor, for "got ..." */
const char *tp_got(cur *c, char *buf, size_t n) {
    tp_cws(c);
    if (c->s >= c->e) return "the end of the line";
    size_t k = 0;
    while (c->s + k < c->e && k < 20 && c->s[k] != ' ') k++;
    snprintf(buf, n, "'%.*s'", (int)k, c->s);
    return buf;
}

eir_status tp_cexpect(cur *c, const char *tok, const char *what) {
    if (tp_ceat(c, tok)) return EIR_OK;
    char g[40];
    return tp_cerr(c, EIR_ERR_SCHEMA, "expected '%s' %s, got %s", tok, what, tp_got(c, g, sizeof g));
}

/* an identifier, or NULL (nothing consumed) */
const char *tp_cident(cur *c, size_t *len) {
    tp_cws(c);
    if (c->s >= c->e || !tp_ident_start(*c->s)) return NULL;
    const char *st = c->s;
    while (c->s < c->e && tp_ident_char(*c->s)) c->s++;
    *len = (size_t)(c->s - st);
    return st;
}

/* a dotted name (torch.ops.aten.add.Tensor), or NULL */
const char *tp_cdotted(cur *c, size_t *len) {
    const char *st = tp_cident(c, len);
    if (!st) return NULL;
    while (c->s + 1 < c->e && c->s[0] == '.' && tp_ident_start(c->s[1])) {
        c->s++;
        while (c->s < c->e && tp_ident_char(*c->s)) c->s++;
    }
    *len = (size_t)(c->s - st);
    return st;
}

/* a Python string literal as repr() writes it ('...' or "..."), decoded */
eir_status tp_cstring(cur *c, const char **out) {
    tp_cws(c);
    char q = *c->s;
    const char *start = c->s;
    c->s++;
    eir_buf b;
    eir_buf_init(&b);
    while (c->s < c->e && *c->s != q) {
        char ch = *c->s++;
        if (ch != '\\') { eir_buf_putc(&b, ch); continue; }
        if (c->s >= c->e) break;
        char esc = *c->s++;
        int hexn = 0;
        switch (esc) {
        case 'n': eir_buf_putc(&b, '\n'); break;
        case 't': eir_buf_putc(&b, '\t'); break;
        case 'r': eir_buf_putc(&b, '\r'); break;
        case '\\': case '\'': case '"': eir_buf_putc(&b, esc); break;
        case 'x': hexn = 2; break;
        case 'u': hexn = 4; break;
        case 'U': hexn = 8; break;
        default:
            c->s -= 2;
            eir_buf_free(&b);
            return tp_cerr(c, EIR_ERR_SCHEMA, "unknown escape '\\%c' in a string", esc);
        }
        if (hexn) {
            uint32_t v = 0;
            for (int i = 0; i < hexn; i++) {
                char h = c->s < c->e ? *c->s : 0;
                int d = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
                      : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                if (d < 0) { eir_buf_free(&b); return tp_cerr(c, EIR_ERR_SCHEMA, "bad \\%c escape in a string", esc); }
                v = v * 16 + (uint32_t)d;
                c->s++;
            }
            if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF) || v == 0) {
                eir_buf_free(&b);
                return tp_cerr(c, EIR_ERR_SCHEMA, "escape \\%c gives no valid character", esc);
            }
            /* UTF-8 */
            if (v < 0x80) eir_buf_putc(&b, (char)v);
            else if (v < 0x800) { eir_buf_putc(&b, (char)(0xC0 | (v >> 6))); eir_buf_putc(&b, (char)(0x80 | (v & 63))); }
            else if (v < 0x10000) {
                eir_buf_putc(&b, (char)(0xE0 | (v >> 12)));
                eir_buf_putc(&b, (char)(0x80 | ((v >> 6) & 63)));
                eir_buf_putc(&b, (char)(0x80 | (v & 63)));
            } else {
                eir_buf_putc(&b, (char)(0xF0 | (v >> 18)));
                eir_buf_putc(&b, (char)(0x80 | ((v >> 12) & 63)));
                eir_buf_putc(&b, (char)(0x80 | ((v >> 6) & 63)));
                eir_buf_putc(&b, (char)(0x80 | (v & 63)));
            }
        }
    }
    if (c->s >= c->e) {
        eir_buf_free(&b);
        c->s = start;
        return tp_cerr(c, EIR_ERR_SCHEMA, "unterminated string");
    }
    c->s++;
    *out = tp_pstrndup(c->P, b.data ? b.data : "", b.len);
    eir_buf_free(&b);
    return *out ? EIR_OK : EIR_ERR_NOMEM;
}

/* ---- Python values (arguments, as the code printer writes them) ---- */

static const char *const MEMFMTS[] = {"torch.unknown_format", "torch.contiguous_format", "torch.channels_last",
                                      "torch.channels_last_3d", "torch.preserve_format"};
static const char *const LAYOUTS[] = {"torch.unknown_layout", "torch.sparse_coo", "torch.sparse_csr",
                                      "torch.sparse_csc", "torch.sparse_bsr", "torch.sparse_bsc", "torch._mkldnn",
                                      "torch.strided"};

static int tp_dtype_by_name(const char *s, size_t n) {
    for (int c = 1; c < 64; c++) {
        const char *nm = eir_dtype_name((eir_dtype)c);
        if (nm && strlen(nm) == n && !memcmp(nm, s, n)) return c;
    }
    return -1;
}

static int tp_dtype_by_abbr(const char *s, size_t n) {
    for (int c = 1; c < 64; c++) {
        const char *nm = eir_dtype_abbr((eir_dtype)c);
        if (nm && strlen(nm) == n && !memcmp(nm, s, n)) return c;
    }
    return -1;
}

/* a number: int, float (1.5, 1e-05, inf, nan) or an imaginary literal (2j) */
eir_status tp_cnumber(cur *c, pv *v) {
    tp_cws(c);
    const char *st = c->s;
    bool neg = false;
    if (c->s < c->e && (*c->s == '-' || *c->s == '+')) { neg = *c->s == '-'; c->s++; }
    size_t k = 0;
    while (c->s + k < c->e && (eir_isalnum((unsigned char)c->s[k]) || c->s[k] == '.' ||
                               ((c->s[k] == '-' || c->s[k] == '+') && k && (c->s[k - 1] == 'e' || c->s[k - 1] == 'E'))))
        k++;
    char buf[64];
    if (k == 0 || k >= sizeof buf) { c->s = st; return tp_cerr(c, EIR_ERR_SCHEMA, "expected a number"); }
    memcpy(buf, c->s, k);
    buf[k] = 0;
    bool imag = buf[k - 1] == 'j';
    if (imag) buf[--k] = 0;
    bool isfloat = imag || strchr(buf, '.') || strchr(buf, 'e') || strchr(buf, 'E') || !strcmp(buf, "inf") ||
                   !strcmp(buf, "nan");
    char *end;
    if (!isfloat) {
        errno = 0;
        long long x = strtoll(buf, &end, 10);
        if (errno || *end || !eir_isdigit((unsigned char)buf[0])) {
            c->s = st;
            return tp_cerr(c, EIR_ERR_SCHEMA, errno ? "integer '%s' is out of range (int64)" : "bad number '%s'", buf);
        }
        v->kind = PV_INT;
        v->i = neg ? -x : x;
        if (neg && x == INT64_MIN) v->i = x;
    } else {
        double x;
        if (!strcmp(buf, "inf")) x = INFINITY;
        else if (!strcmp(buf, "nan")) x = NAN;
        else {
            if (!eir_isdigit((unsigned char)buf[0]) && buf[0] != '.') {
                c->s = st;
                return tp_cerr(c, EIR_ERR_SCHEMA, "bad number '%s'", buf);
            }
            x = eir_strtod(buf, &end);
            if (*end) { c->s = st; return tp_cerr(c, EIR_ERR_SCHEMA, "bad number '%s'", buf); }
        }
        if (neg) x = -x;
        if (imag) { v->kind = PV_COMPLEX; v->f = 0; v->im = x; }
        else { v->kind = PV_FLOAT; v->f = x; }
    }
    c->s += k + (imag ? 1 : 0);
    return EIR_OK;
}

/* items up to `close`; a trailing comma is allowed */
static eir_status tp_cseq(cur *c, char close, pv *v, bool dict) {
    pv *items = NULL;
    const char **keys = NULL;
    uint32_t n = 0, cap = 0, kcap = 0;
    eir_status st = EIR_OK;
    if (++c->P->depth > MAX_DEPTH) { st = tp_cerr(c, EIR_ERR_SCHEMA, "nested too deeply"); goto out; }
    for (;;) {
        if (tp_ceat(c, (char[]){close, 0})) break;
        const char *key = NULL;
        if (dict) {
            if (!tp_cpeek(c, '\'') && !tp_cpeek(c, '"')) { st = tp_cerr(c, EIR_ERR_SCHEMA, "expected a string key"); goto out; }
            if ((st = tp_cstring(c, &key))) goto out;
            if ((st = tp_cexpect(c, ":", "after a dict key"))) goto out;
        }
        pv *it = PUSH(c->P, items, n, cap);
        if (!it) { st = tp_oom(c->P); goto out; }
        memset(it, 0, sizeof *it);
        if (dict) {
            keys = tp_grow(keys, n - 1, &kcap, sizeof *keys);
            if (!keys) { st = tp_oom(c->P); goto out; }
            keys[n - 1] = key;
        }
        if ((st = tp_cvalue(c, it))) goto out;
        if (tp_ceat(c, ",")) continue;
        if (tp_ceat(c, (char[]){close, 0})) break;
        char g[40];
        st = tp_cerr(c, EIR_ERR_SCHEMA, "expected ',' or '%c', got %s", close, tp_got(c, g, sizeof g));
        goto out;
    }
    v->n = n;
    v->items = eir_arena_array(&c->P->p->arena, n ? n : 1, sizeof *v->items);
    if (!v->items) { st = tp_oom(c->P); goto out; }
    if (n) memcpy(v->items, items, n * sizeof *items);
    if (dict) {
        v->keys = eir_arena_array(&c->P->p->arena, n ? n : 1, sizeof *v->keys);
        if (!v->keys) { st = tp_oom(c->P); goto out; }
        if (n) memcpy(v->keys, keys, n * sizeof *keys);
    }
out:
    c->P->depth--;
    free(items);
    free(keys);
    return st;
}

eir_status tp_cvalue(cur *c, pv *v) {
    tp_cws(c);
    memset(v, 0, sizeof *v);
    v->col = tp_ccol(c);
    if (c->s >= c->e) return tp_cerr(c, EIR_ERR_SCHEMA, "expected a value, got the end of the line");
    char ch = *c->s;
    if (ch == '\'' || ch == '"') { v->kind = PV_STR; return tp_cstring(c, &v->s); }
    if (ch == '[') { c->s++; v->kind = PV_LIST; return tp_cseq(c, ']', v, false); }
    if (ch == '{') { c->s++; v->kind = PV_DICT; return tp_cseq(c, '}', v, true); }
    if (ch == '(') {
        /* a tuple, or a complex number (1+2j) */
        const char *save = c->s;
        c->s++;
        tp_cws(c);
        if (c->s < c->e && (eir_isdigit((unsigned char)*c->s) || *c->s == '-' || *c->s == '.' || *c->s == 'i' ||
                            *c->s == 'n')) {
            pv re;
            cur t = *c;
            if (tp_cnumber(&t, &re) == EIR_OK && (re.kind == PV_FLOAT || re.kind == PV_INT) && t.s < t.e &&
                (*t.s == '+' || *t.s == '-')) {
                pv im;
                if (tp_cnumber(&t, &im) == EIR_OK && im.kind == PV_COMPLEX && t.s < t.e && *t.s == ')') {
                    v->kind = PV_COMPLEX;
                    v->f = re.kind == PV_INT ? (double)re.i : re.f;
                    v->im = im.im;
                    c->s = t.s + 1;
                    return EIR_OK;
                }
            }
            c->P->failed = false;
        }
        c->s = save + 1;
        v->kind = PV_TUPLE;
        return tp_cseq(c, ')', v, false);
    }
    if (eir_isdigit((unsigned char)ch) || ch == '-' || ch == '.') return tp_cnumber(c, v);
    size_t n;
    const char *id = tp_cdotted(c, &n);
    if (!id) {
        char g[40];
        return tp_cerr(c, EIR_ERR_SCHEMA, "expected a value, got %s", tp_got(c, g, sizeof g));
    }
#define IS(lit) (n == sizeof(lit) - 1 && !memcmp(id, lit, n))
    if (IS("None")) { v->kind = PV_NONE; return EIR_OK; }
    if (IS("True") || IS("False")) { v->kind = PV_BOOL; v->i = IS("True"); return EIR_OK; }
    if (IS("inf")) { v->kind = PV_FLOAT; v->f = INFINITY; return EIR_OK; }
    if (IS("nan")) { v->kind = PV_FLOAT; v->f = NAN; return EIR_OK; }
    if (IS("device") && c->s < c->e && *c->s == '(') {
        /* device(type='cpu', index=0) */
        v->kind = PV_DEVICE;
        v->i = -1;
        eir_status st;
        if ((st = tp_cexpect(c, "(", "after device")) || (st = tp_cexpect(c, "type", "in device(...)")) ||
            (st = tp_cexpect(c, "=", "after type")))
            return st;
        if (!tp_cpeek(c, '\'')) return tp_cerr(c, EIR_ERR_SCHEMA, "expected a device type string");
        if ((st = tp_cstring(c, &v->s))) return st;
        if (tp_ceat(c, ",")) {
            if ((st = tp_cexpect(c, "index", "in device(...)")) || (st = tp_cexpect(c, "=", "after index"))) return st;
            pv ix;
            if ((st = tp_cnumber(c, &ix))) return st;
            if (ix.kind != PV_INT || ix.i < 0) return tp_cerr(c, EIR_ERR_SCHEMA, "a device index is an int >= 0");
            v->i = ix.i;
        }
        return tp_cexpect(c, ")", "after the device");
    }
    if (n > 6 && !memcmp(id, "torch.", 6)) {
        int dt = tp_dtype_by_name(id + 6, n - 6);
        if (dt > 0) { v->kind = PV_DTYPE; v->i = dt; return EIR_OK; }
        for (int k = 0; k < 5; k++)
            if (strlen(MEMFMTS[k]) == n && !memcmp(id, MEMFMTS[k], n)) { v->kind = PV_MEMFMT; v->i = k; return EIR_OK; }
        for (int k = 0; k < 8; k++)
            if (strlen(LAYOUTS[k]) == n && !memcmp(id, LAYOUTS[k], n)) { v->kind = PV_LAYOUT; v->i = k; return EIR_OK; }
        if (n > 10 && !memcmp(id, "torch.ops.", 10)) {
            v->kind = PV_OP;
            v->s = tp_pstrndup(c->P, id, n);
            return v->s ? EIR_OK : EIR_ERR_NOMEM;
        }
        c->s = id;
        return tp_cerr(c, EIR_ERR_SCHEMA, "unknown torch constant '%.*s' (a dtype, memory format, layout or "
                    "torch.ops operator was expected)", (int)n, id);
    }
    if (memchr(id, '.', n)) {
        c->s = id;
        return tp_cerr(c, EIR_ERR_SCHEMA, "unexpected dotted name '%.*s' as a value", (int)n, id);
    }
    v->kind = PV_NAME;
    v->s = tp_pstrndup(c->P, id, n);
    return v->s ? EIR_OK : EIR_ERR_NOMEM;
#undef IS
}

/* ---- symbolic sizes: sympy str() text -> srepr ---- */

typedef struct sx {
    ps *P;
    const char *text, *s, *e;
    const line *ln;
    uint32_t col0;
    int depth;
    bool bad;
} sx;

static void sx_err(sx *x, const char *what) {
    if (x->bad) return;
    x->bad = true;
    tp_perr(x->P, EIR_ERR_SCHEMA, x->ln->no, x->col0 + (uint32_t)(x->s - x->text), "bad symbolic expression '%.*s': %s",
         (int)(x->e - x->text), x->text, what);
}

static void sx_ws(sx *x) { while (x->s < x->e && *x->s == ' ') x->s++; }

static void sx_symbol(eir_buf *b, const char *s, size_t n) {
    eir_buf_printf(b, "Symbol('%.*s', %s)", (int)n, s, s[0] == 's' ? "positive=True, integer=True" : "integer=True");
}

static bool sx_expr(sx *x, eir_buf *b, int minprec);

/* atom: number, name, Name(args), (expr) */
static bool sx_atom(sx *x, eir_buf *b) {
    sx_ws(x);
    if (x->s >= x->e) { sx_err(x, "unexpected end"); return false; }
    if (++x->depth > MAX_DEPTH) { sx_err(x, "nested too deeply"); return false; }
    bool ok = true;
    char ch = *x->s;
    if (ch == '(') {
        x->s++;
        eir_buf in;
        eir_buf_init(&in);
        ok = sx_expr(x, &in, 0);
        sx_ws(x);
        if (ok && x->s < x->e && *x->s == ',') {
            /* (expr, cond): a Piecewise pair */
            x->s++;
            eir_buf_printf(b, "ExprCondPair(%s, ", in.data ? in.data : "");
            ok = sx_expr(x, b, 0);
            eir_buf_putc(b, ')');
            sx_ws(x);
        } else {
            eir_buf_puts(b, in.data ? in.data : "");
        }
        eir_buf_free(&in);
        if (ok && (x->s >= x->e || *x->s != ')')) { sx_err(x, "expected ')'"); ok = false; }
        else if (ok) x->s++;
    } else if (ch == '-') {
        x->s++;
        eir_buf t;
        eir_buf_init(&t);
        ok = sx_atom(x, &t);
        /* -2 is Integer(-2); -x is Mul(Integer(-1), x) */
        if (ok && t.data && !strncmp(t.data, "Integer(", 8)) {
            if (t.data[8] == '-') eir_buf_printf(b, "Integer(%s", t.data + 9);
            else eir_buf_printf(b, "Integer(-%s", t.data + 8);
        } else if (ok) {
            eir_buf_printf(b, "Mul(Integer(-1), %s)", t.data ? t.data : "");
        }
        eir_buf_free(&t);
    } else if (eir_isdigit((unsigned char)ch)) {
        const char *st = x->s;
        while (x->s < x->e && eir_isdigit((unsigned char)*x->s)) x->s++;
        if (x->s < x->e && (*x->s == '.' || *x->s == 'e')) {
            while (x->s < x->e && (eir_isalnum((unsigned char)*x->s) || *x->s == '.' ||
                                   ((*x->s == '-' || *x->s == '+') && (x->s[-1] == 'e'))))
                x->s++;
            eir_buf_printf(b, "Float('%.*s', precision=53)", (int)(x->s - st), st);
        } else {
            if (x->s - st > 18) { sx_err(x, "integer out of range"); ok = false; }
            else eir_buf_printf(b, "Integer(%.*s)", (int)(x->s - st), st);
        }
    } else if (tp_ident_start(ch)) {
        const char *st = x->s;
        while (x->s < x->e && tp_ident_char(*x->s)) x->s++;
        size_t n = (size_t)(x->s - st);
        if (x->s < x->e && *x->s == '(') {
            x->s++;
            eir_buf_printf(b, "%.*s(", (int)n, st);
            sx_ws(x);
            bool first = true;
            while (ok && !(x->s < x->e && *x->s == ')')) {
                if (!first) {
                    if (x->s >= x->e || *x->s != ',') { sx_err(x, "expected ',' or ')'"); ok = false; break; }
                    x->s++;
                    eir_buf_puts(b, ", ");
                }
                first = false;
                ok = sx_expr(x, b, 0);
                sx_ws(x);
            }
            if (ok) { x->s++; eir_buf_putc(b, ')'); }
        } else if (n == 4 && !memcmp(st, "True", 4)) eir_buf_puts(b, "true");
        else if (n == 5 && !memcmp(st, "False", 5)) eir_buf_puts(b, "false");
        else if ((n == 2 && !memcmp(st, "oo", 2)) || (n == 6 && !memcmp(st, "int_oo", 6))) eir_buf_putn(b, st, n);
        else sx_symbol(b, st, n);
    } else {
        sx_err(x, "unexpected character");
        ok = false;
    }
    x->depth--;
    return ok;
}

/* binary operators by precedence (sympy str's): relations < | < & < + - < * / // % < ** */
static const struct { const char *op; int prec; const char *fn; } SX_OPS[] = {
    {">=", 1, "GreaterThan"}, {"<=", 1, "LessThan"}, {"==", 1, "Eq"}, {"!=", 1, "Ne"},
    {">", 1, "StrictGreaterThan"}, {"<", 1, "StrictLessThan"}, {"|", 2, "Or"}, {"&", 3, "And"},
    {"+", 4, "Add"}, {"-", 4, "Sub"}, {"//", 5, "FloorDiv"}, {"**", 6, "Pow"}, {"*", 5, "Mul"},
    {"/", 5, "Div"}, {"%", 5, "PythonMod"},
};

static bool sx_expr(sx *x, eir_buf *b, int minprec) {
    if (x->depth > MAX_DEPTH) { sx_err(x, "nested too deeply"); return false; }
    x->depth++;
    eir_buf lhs;
    eir_buf_init(&lhs);
    bool ok = sx_atom(x, &lhs);
    /* each operator nests the left side one level deeper in srepr */
    for (int terms = 0; ok; terms++) {
        sx_ws(x);
        if (x->s >= x->e) break;
        if (terms == 256) { sx_err(x, "too many terms"); ok = false; break; }
        int k = -1;
        for (size_t i = 0; i < EIR_ARRAY_LEN(SX_OPS); i++) {
            size_t n = strlen(SX_OPS[i].op);
            if ((size_t)(x->e - x->s) >= n && !memcmp(x->s, SX_OPS[i].op, n)) { k = (int)i; break; }
        }
        if (k < 0 || SX_OPS[k].prec < minprec || (SX_OPS[k].prec == minprec && SX_OPS[k].prec != 6)) break;
        x->s += strlen(SX_OPS[k].op);
        eir_buf rhs;
        eir_buf_init(&rhs);
        /* ** is right-associative */
        ok = sx_expr(x, &rhs, SX_OPS[k].prec == 6 ? SX_OPS[k].prec : SX_OPS[k].prec);
        if (ok) {
            const char *l = lhs.data ? lhs.data : "", *r = rhs.data ? rhs.data : "";
            eir_buf nb;
            eir_buf_init(&nb);
            const char *fn = SX_OPS[k].fn;
            if (!strcmp(fn, "Sub")) {
                if (!strncmp(r, "Integer(", 8)) {
                    if (r[8] == '-') eir_buf_printf(&nb, "Add(%s, Integer(%s)", l, r + 9);
                    else eir_buf_printf(&nb, "Add(%s, Integer(-%s)", l, r + 8);
                } else {
                    eir_buf_printf(&nb, "Add(%s, Mul(Integer(-1), %s))", l, r);
                }
            } else if (!strcmp(fn, "Div")) {
                eir_buf_printf(&nb, "Mul(%s, Pow(%s, Integer(-1)))", l, r);
            } else {
                eir_buf_printf(&nb, "%s(%s, %s)", fn, l, r);
            }
            eir_buf_free(&lhs);
            lhs = nb;
        }
        eir_buf_free(&rhs);
    }
    if (ok) eir_buf_puts(b, lhs.data ? lhs.data : "");
    eir_buf_free(&lhs);
    x->depth--;
    return ok;
}

/* The expression id of sympy str text (which is kept as its printed form). */
eir_status tp_sym_expr(ps *P, const line *ln, uint32_t col, const char *text, size_t n, uint32_t *id) {
    eir_buf b;
    eir_buf_init(&b);
    sx x = {P, text, text, text + n, ln, col, 0, false};
    bool ok = sx_expr(&x, &b, 0);
    sx_ws(&x);
    if (ok && x.s < x.e) { sx_err(&x, "unexpected text after the expression"); ok = false; }
    if (!ok) { eir_buf_free(&b); return EIR_ERR_SCHEMA; }
    uint32_t before = P->p->num_exprs;
    uint32_t e = eir_program_intern_expr(P->p, b.data ? b.data : "", NULL);
    eir_buf_free(&b);
    if (e == UINT32_MAX) {
        char msg[sizeof P->p->errmsg];
        snprintf(msg, sizeof msg, "%s", P->p->errmsg);
        return tp_perr(P, EIR_ERR_SCHEMA, ln->no, col, "symbolic expression '%.*s': %s", (int)n, text, msg);
    }
    if (e >= before) {
        /* a new expression prints as written */
        char *s = tp_pstrndup(P, text, n);
        if (!s) return EIR_ERR_NOMEM;
        P->p->exprs[e].str = s;
    }
    *id = e;
    return EIR_OK;
}

/* ---- annotations: "f32[2, s77]" and "Sym(s0 + 1)" ---- */

static bool tp_is_bool_expr(const eir_sym_node *t) {
    static const char *const B[] = {"GreaterThan", "LessThan", "StrictGreaterThan", "StrictLessThan", "Eq", "Ne",
                                    "And", "Or", "Not"};
    if (t->kind == EIR_SYM_TRUE || t->kind == EIR_SYM_FALSE) return true;
    if (t->kind != EIR_SYM_CALL) return false;
    for (size_t i = 0; i < EIR_ARRAY_LEN(B); i++)
        if (!strcmp(t->name, B[i])) return true;
    return false;
}

static bool tp_is_float_expr(const eir_sym_node *t) {
    if (t->kind == EIR_SYM_FLOAT) return true;
    if (t->kind == EIR_SYM_CALL && (!strcmp(t->name, "ToFloat") || !strcmp(t->name, "FloatTrueDiv") || !strcmp(t->name, "IntTrueDiv") ||
                                    !strcmp(t->name, "FloatPow") || !strncmp(t->name, "OpaqueUnaryFn", 13) ||
                                    !strcmp(t->name, "TruncToFloat")))
        return true;
    if (t->kind == EIR_SYM_CALL && (!strcmp(t->name, "TruncToInt") || !strcmp(t->name, "FloorToInt") ||
                                    !strcmp(t->name, "CeilToInt") || !strcmp(t->name, "RoundToInt")))
        return false;
    for (uint32_t i = 0; i < t->nargs; i++)
        if (tp_is_float_expr(t->args[i])) return true;
    return false;
}

/* c is just past the opening quote */
eir_status tp_cannotation(cur *c, ann *a) {
    memset(a, 0, sizeof *a);
    a->present = true;
    const char *q = memchr(c->s, '"', (size_t)(c->e - c->s));
    if (!q) return tp_cerr(c, EIR_ERR_SCHEMA, "unterminated type annotation");
    const char *st = c->s;
    uint32_t col = tp_ccol(c);
    if (q - st > 4 && !memcmp(st, "Sym(", 4) && q[-1] == ')') {
        a->is_sym = true;
        eir_status s = tp_sym_expr(c->P, c->ln, col + 4, st + 4, (size_t)(q - st - 5), &a->sym_expr);
        if (s) return s;
        const eir_sym_node *t = c->P->p->exprs[a->sym_expr].tree;
        a->sym_kind = tp_is_bool_expr(t) ? EIR_VALUE_SYM_BOOL : tp_is_float_expr(t) ? EIR_VALUE_SYM_FLOAT
                                                                                : EIR_VALUE_SYM_INT;
        c->s = q + 1;
        return EIR_OK;
    }
    const char *br = memchr(st, '[', (size_t)(q - st));
    if (!br || q[-1] != ']')
        return tp_cerr(c, EIR_ERR_SCHEMA, "expected a type annotation \"<dtype>[<sizes>]\" or \"Sym(<expr>)\"");
    int dt = tp_dtype_by_abbr(st, (size_t)(br - st));
    if (dt < 0) return tp_cerr(c, EIR_ERR_SCHEMA, "unknown dtype '%.*s' (f32, i64, b8, bf16, ... expected)",
                            (int)(br - st), st);
    a->dtype = (eir_dtype)dt;
    const char *s = br + 1, *end = q - 1;
    while (s < end) {
        /* one size up to a top-level comma */
        int depth = 0;
        const char *z = s;
        while (z < end && !(depth == 0 && *z == ',')) {
            if (*z == '(') depth++;
            else if (*z == ')') depth--;
            z++;
        }
        const char *a0 = s, *a1 = z;
        while (a0 < a1 && *a0 == ' ') a0++;
        while (a1 > a0 && a1[-1] == ' ') a1--;
        uint32_t dcol = col + (uint32_t)(a0 - st);
        if (a0 == a1) return tp_perr(c->P, EIR_ERR_SCHEMA, c->ln->no, dcol, "empty size in a type annotation");
        if (a->rank >= EIR_ARRAY_LEN(a->sizes))
            return tp_perr(c->P, EIR_ERR_SCHEMA, c->ln->no, dcol, "too many dimensions (at most %u)",
                        (unsigned)EIR_ARRAY_LEN(a->sizes));
        eir_symint *si = &a->sizes[a->rank++];
        bool digits = true;
        for (const char *k = a0; k < a1; k++) digits &= eir_isdigit((unsigned char)*k) != 0;
        if (digits) {
            if (a1 - a0 > 18) return tp_perr(c->P, EIR_ERR_SCHEMA, c->ln->no, dcol, "size out of range");
            char buf[24];
            memcpy(buf, a0, (size_t)(a1 - a0));
            buf[a1 - a0] = 0;
            si->value = strtoll(buf, NULL, 10);
        } else {
            si->is_expr = true;
            eir_status r = tp_sym_expr(c->P, c->ln, dcol, a0, (size_t)(a1 - a0), &si->expr);
            if (r) return r;
        }
        s = z < end ? z + 1 : z;
    }
    c->s = q + 1;
    return EIR_OK;
}

/* contiguous strides: products of the sizes after each dim */
eir_status tp_contiguous_strides(ps *P, uint32_t rank, const eir_symint *sizes, eir_symint *strides) {
    eir_buf acc;
    eir_buf_init(&acc);
    int64_t k = 1;
    bool sym = false;
    eir_status st = EIR_OK;
    for (uint32_t d = rank; d-- > 0;) {
        memset(&strides[d], 0, sizeof strides[d]);
        if (!sym) strides[d].value = k;
        else {
            eir_buf e;
            eir_buf_init(&e);
            if (k == 1) eir_buf_puts(&e, acc.data);
            else eir_buf_printf(&e, "Mul(Integer(%lld), %s)", (long long)k, acc.data);
            uint32_t id = eir_program_intern_expr(P->p, e.data ? e.data : "", NULL);
            eir_buf_free(&e);
            if (id == UINT32_MAX) { st = tp_oom(P); break; }
            strides[d].is_expr = true;
            strides[d].expr = id;
        }
        if (d == 0) break;
        const eir_symint *s = &sizes[d];
        if (!s->is_expr) {
            int64_t m = s->value > 1 ? s->value : 1;
            if (k > INT64_MAX / m) k = INT64_MAX;
            else k *= m;
        } else {
            const char *sr = P->p->exprs[s->expr].srepr;
            if (!sym) { eir_buf_puts(&acc, sr); sym = true; }
            else {
                eir_buf t;
                eir_buf_init(&t);
                eir_buf_printf(&t, "Mul(%s, %s)", sr, acc.data);
                eir_buf_free(&acc);
                acc = t;
            }
        }
    }
    eir_buf_free(&acc);
    return st;
}
