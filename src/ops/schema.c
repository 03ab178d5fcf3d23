/* schema.c — a parser for torch's operator schema syntax (see schema.h).
 *
 * Grammar, as torch's FunctionSchema parser accepts it for the types eir's
 * custom operators can take:
 *
 *     schema  := [ns '::' name ['.' overload]] '(' [arg {',' arg}] ')' '->' returns
 *     arg     := '*' | type [name] ['=' default]          ('*' starts keyword-only arguments)
 *     type    := base ['(' alias ['!'] ')'] ['?'] ['[' [N] ']'] ['?']
 *     returns := type [name] | '(' [type [name] {',' type [name]}] ')'
 *
 * base is Tensor, int, SymInt, float, bool, str, Scalar or ScalarType.
 * Defaults are normalized to the text the generated ATen table uses, so the
 * runtime's decode_default reads both. */
#include "schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
    const char *s;               /* the schema text */
    size_t pos;
    eir_arena *a;
    char *err;
    size_t errlen;
    const char *who;             /* qualname, for messages */
} parser;

static bool perr(parser *p, const char *fmt, ...) EIR_PRINTF(2, 3);
static bool perr(parser *p, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errlen, "%s: schema \"%s\", at offset %zu: %s", p->who, p->s, p->pos, msg);
    return false;
}

static void skip(parser *p) {
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n') p->pos++;
}

static bool peek(parser *p, char c) {
    skip(p);
    return p->s[p->pos] == c;
}

static bool accept(parser *p, char c) {
    if (!peek(p, c)) return false;
    p->pos++;
    return true;
}

/* what is at the current position, for "got ..." */
static const char *here(parser *p) {
    static const char end[] = "the end of the schema";
    return p->s[p->pos] ? p->s + p->pos : end;
}

static bool expect(parser *p, char c) {
    if (accept(p, c)) return true;
    return perr(p, "expected '%c', got '%.20s'", c, here(p));
}

static bool is_ident_start(char c) { return eir_isalpha((unsigned char)c) || c == '_'; }
static bool is_ident_char(char c) { return eir_isalnum((unsigned char)c) || c == '_'; }

/* an identifier (dots allowed inside when dotted, for torchbind class names) */
static char *ident(parser *p, bool dotted) {
    skip(p);
    size_t b = p->pos;
    if (!is_ident_start(p->s[b])) return NULL;
    while (is_ident_char(p->s[p->pos]) || (dotted && p->s[p->pos] == '.' && is_ident_start(p->s[p->pos + 1]))) p->pos++;
    return eir_arena_strndup(p->a, p->s + b, p->pos - b);
}

/* ---- names ---- */

/* "ns::op[.overload]" -> target "ns.op.overload" ("default" when none); false on bad syntax */
static bool split_qualname(const char *q, size_t n, eir_arena *a, char **qual, char **target) {
    const char *sep = NULL;
    for (size_t i = 0; i + 1 < n; i++)
        if (q[i] == ':' && q[i + 1] == ':') { sep = q + i; break; }
    if (!sep || sep == q) return false;
    for (const char *c = q; c < sep; c++)
        if (!is_ident_char(*c) || (c == q && !is_ident_start(*c))) return false;
    const char *name = sep + 2, *end = q + n, *dot = NULL;
    if (name >= end || !is_ident_start(*name)) return false;
    for (const char *c = name; c < end; c++) {
        if (*c == '.') {
            if (dot || c + 1 >= end || !is_ident_start(c[1])) return false;
            dot = c;
        } else if (!is_ident_char(*c)) {
            return false;
        }
    }
    *qual = eir_arena_strndup(a, q, n);
    char buf[512];
    int len = snprintf(buf, sizeof buf, "%.*s.%.*s%s", (int)(sep - q), q, (int)(end - name), name, dot ? "" : ".default");
    if (len < 0 || (size_t)len >= sizeof buf) return false;
    *target = eir_arena_strdup(a, buf);
    return *qual && *target;
}

/* ---- types ---- */

static const struct { const char *name; eir_arg_base base; } BASES[] = {
    {"Tensor", EIR_AB_TENSOR}, {"int", EIR_AB_INT}, {"SymInt", EIR_AB_SYMINT}, {"float", EIR_AB_FLOAT},
    {"bool", EIR_AB_BOOL}, {"str", EIR_AB_STR}, {"Scalar", EIR_AB_SCALAR}, {"ScalarType", EIR_AB_DTYPE},
};

/* types torch has that eir's custom operators do not take */
static const char *const UNSUPPORTED[] = {"Generator", "Device", "Layout", "MemoryFormat", "Dimname", "Storage",
                                          "Stream", "Any", "complex", "SymFloat", "SymBool", "QScheme", "t",
                                          "GenericList", "DeviceIndex", "Future", "RRef", "Union", "Optional"};

static const char SUPPORTED[] = "Tensor, int, SymInt, float, bool, str, Scalar, ScalarType; "
                                "Tensor?[]; lists of Tensor, int, SymInt, float and bool; optionals of each";

static bool parse_type(parser *p, eir_parsed_arg *t, bool is_return) {
    skip(p);
    size_t b = p->pos;
    char *name = ident(p, true);
    if (!name) return perr(p, "expected a type, got '%.20s'", here(p));
    bool found = false;
    for (size_t i = 0; i < EIR_ARRAY_LEN(BASES); i++)
        if (!strcmp(name, BASES[i].name)) { t->base = BASES[i].base; found = true; }
    if (!found) {
        p->pos = b;
        for (size_t i = 0; i < EIR_ARRAY_LEN(UNSUPPORTED); i++)
            if (!strcmp(name, UNSUPPORTED[i]))
                return perr(p, "type %s is not supported by eir's custom operators (they take %s)", name, SUPPORTED);
        if (!strncmp(name, "__torch__", 9))
            return perr(p, "custom classes (%s) are not supported by eir's custom operators", name);
        return perr(p, "unknown type '%s' (eir's custom operators take %s)", name, SUPPORTED);
    }
    /* alias annotation: Tensor(a) or Tensor(a!) */
    if (p->s[p->pos] == '(') {
        size_t at = p->pos;
        p->pos++;
        if (t->base != EIR_AB_TENSOR) return perr(p, "only Tensor arguments take an alias annotation");
        if (!eir_isalpha((unsigned char)p->s[p->pos]))
            return perr(p, "expected an alias set letter in the annotation, got '%.20s'", here(p));
        t->alias = p->s[p->pos++];
        while (eir_isalnum((unsigned char)p->s[p->pos]) || p->s[p->pos] == '_') p->pos++;
        if (p->s[p->pos] == '!') { t->mutates = true; p->pos++; }
        if (p->s[p->pos] != ')') {
            p->pos = at;
            return perr(p, "eir reads alias annotations of the forms (a) and (a!), not '%.20s'", here(p));
        }
        p->pos++;
        if (is_return) {
            p->pos = at;
            return perr(p, "returns that alias an input (%.*s) are not supported; return a new tensor", 12, p->s + b);
        }
    }
    /* suffixes: ? before [] marks the elements optional (Tensor?[]), after it the list */
    bool q1 = accept(p, '?');
    if (accept(p, '[')) {
        t->list = true;
        t->list_size = -1;
        skip(p);
        if (eir_isdigit((unsigned char)p->s[p->pos])) {
            char *end;
            long n = strtol(p->s + p->pos, &end, 10);
            if (n <= 0 || n > 64) return perr(p, "list size %ld out of range (1 to 64)", n);
            t->list_size = (int32_t)n;
            p->pos = (size_t)(end - p->s);
        }
        if (!accept(p, ']')) return perr(p, "expected ']' after '[', got '%.20s'", here(p));
        t->elem_optional = q1;
        t->optional = accept(p, '?');
    } else {
        t->optional = q1;
    }
    size_t e = p->pos;
    while (e > b && eir_isspace((unsigned char)p->s[e - 1])) e--;
    t->type_text = eir_arena_strndup(p->a, p->s + b, e - b);
    if (t->elem_optional && t->base != EIR_AB_TENSOR) return perr(p, "only Tensor lists may hold None (Tensor?[])");
    if (t->list && (t->base == EIR_AB_STR || t->base == EIR_AB_SCALAR || t->base == EIR_AB_DTYPE))
        return perr(p, "lists of %s are not supported by eir's custom operators", name);
    if (is_return && (t->base != EIR_AB_TENSOR || t->optional || t->elem_optional))
        return perr(p, "custom operators in eir return Tensor, Tensor[] or a tuple of Tensors, not %s", t->type_text);
    /* the decoding type of the ATen table */
    switch (t->base) {
    case EIR_AB_TENSOR:
        t->sa.type = t->list ? (t->elem_optional ? EIR_ST_OPT_TENSORS : EIR_ST_TENSORS)
                   : t->optional ? EIR_ST_OPT_TENSOR : EIR_ST_TENSOR;
        break;
    case EIR_AB_INT: case EIR_AB_SYMINT:
        t->sa.type = t->list ? (t->optional ? EIR_ST_OPT_INTS : EIR_ST_INTS) : t->optional ? EIR_ST_OPT_INT : EIR_ST_INT;
        break;
    case EIR_AB_FLOAT:
        t->sa.type = t->list ? (t->optional ? EIR_ST_OPT_FLOATS : EIR_ST_FLOATS)
                   : t->optional ? EIR_ST_OPT_FLOAT : EIR_ST_FLOAT;
        break;
    case EIR_AB_BOOL: t->sa.type = t->list ? EIR_ST_BOOLS : t->optional ? EIR_ST_OPT_BOOL : EIR_ST_BOOL; break;
    case EIR_AB_STR: t->sa.type = t->optional ? EIR_ST_OPT_STR : EIR_ST_STR; break;
    case EIR_AB_SCALAR: t->sa.type = t->optional ? EIR_ST_OPT_SCALAR : EIR_ST_SCALAR; break;
    case EIR_AB_DTYPE: t->sa.type = EIR_ST_DTYPE; break;
    }
    return true;
}

/* ---- defaults ---- */

/* torch dtype names -> c10 ScalarType codes, which schema defaults use */
static const struct { const char *name; int code; } DTYPES[] = {
    {"uint8", 0}, {"int8", 1}, {"int16", 2}, {"short", 2}, {"int32", 3}, {"int", 3}, {"int64", 4}, {"long", 4},
    {"float16", 5}, {"half", 5}, {"float32", 6}, {"float", 6}, {"float64", 7}, {"double", 7}, {"complex32", 8},
    {"chalf", 8}, {"complex64", 9}, {"cfloat", 9}, {"complex128", 10}, {"cdouble", 10}, {"bool", 11},
    {"bfloat16", 15},
};

static bool is_int_lit(const char *s) {
    if (*s == '-' || *s == '+') s++;
    if (!eir_isdigit((unsigned char)*s)) return false;
    while (eir_isdigit((unsigned char)*s)) s++;
    return *s == 0;
}

static bool is_float_lit(const char *s) {
    const char *v = s + (*s == '-' || *s == '+');
    if (!strcmp(v, "inf") || !strcmp(v, "nan")) return true;
    char *end;
    eir_strtod(s, &end);
    return end != s && *end == 0;
}

/* one element of a default for element type `base`; appended to out */
static bool default_elem(parser *p, const eir_parsed_arg *t, const char *v, eir_buf *out) {
    switch (t->base) {
    case EIR_AB_INT: case EIR_AB_SYMINT:
        if (!is_int_lit(v)) return perr(p, "default '%s' of %s is not an integer", v, t->type_text);
        eir_buf_puts(out, v);
        return true;
    case EIR_AB_FLOAT:
        if (!is_float_lit(v)) return perr(p, "default '%s' of %s is not a number", v, t->type_text);
        eir_buf_puts(out, v);
        return true;
    case EIR_AB_BOOL:
        if (strcmp(v, "True") && strcmp(v, "False")) return perr(p, "default '%s' of %s is not True or False", v, t->type_text);
        eir_buf_puts(out, v);
        return true;
    case EIR_AB_SCALAR:
        if (!is_float_lit(v) && strcmp(v, "True") && strcmp(v, "False"))
            return perr(p, "default '%s' of %s is not a number or a bool", v, t->type_text);
        eir_buf_puts(out, v);
        return true;
    case EIR_AB_STR: {
        size_t n = strlen(v);
        if (n < 2 || (v[0] != '"' && v[0] != '\'') || v[n - 1] != v[0])
            return perr(p, "default %s of %s is not a quoted string", v, t->type_text);
        for (size_t i = 1; i + 1 < n; i++) {
            char c = v[i];
            if (c == '\\' && i + 2 < n) {
                c = v[++i];
                c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
            }
            eir_buf_putc(out, c);
        }
        return true;
    }
    case EIR_AB_DTYPE: {
        const char *nm = !strncmp(v, "torch.", 6) ? v + 6 : v;
        if (is_int_lit(nm)) { eir_buf_puts(out, nm); return true; }
        for (size_t i = 0; i < EIR_ARRAY_LEN(DTYPES); i++)
            if (!strcmp(nm, DTYPES[i].name)) { eir_buf_printf(out, "%d", DTYPES[i].code); return true; }
        return perr(p, "default '%s' of ScalarType is not a dtype name (float32, int64, ...)", v);
    }
    case EIR_AB_TENSOR:
        return perr(p, "a Tensor argument's only default is None, got '%s'", v);
    }
    return false;
}

/* the default's text (up to ',' or ')' outside brackets and quotes), normalized */
static bool parse_default(parser *p, eir_parsed_arg *t) {
    skip(p);
    size_t b = p->pos;
    int depth = 0;
    char quote = 0;
    for (; p->s[p->pos]; p->pos++) {
        char c = p->s[p->pos];
        if (quote) {
            if (c == '\\' && p->s[p->pos + 1]) p->pos++;
            else if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') quote = c;
        else if (c == '[') depth++;
        else if (c == ']') depth--;
        else if ((c == ',' || c == ')') && depth == 0) break;
    }
    if (quote || depth) return perr(p, "unterminated default value");
    size_t e = p->pos;
    while (e > b && (p->s[e - 1] == ' ' || p->s[e - 1] == '\t')) e--;
    if (e == b) return perr(p, "expected a default value after '='");
    char *v = eir_arena_strndup(p->a, p->s + b, e - b);
    size_t save = p->pos;
    p->pos = b;
    eir_buf out;
    eir_buf_init(&out);
    bool ok = true;
    if (!strcmp(v, "None")) {
        if (!t->optional) ok = perr(p, "default None for %s, which is not optional (write %s?)", t->type_text, t->type_text);
        else eir_buf_puts(&out, "None");
    } else if (t->list) {
        /* [a, b, ...], or one value repeated for a sized list (int[2] k=1) */
        if (v[0] == '[') {
            size_t n = strlen(v);
            if (v[n - 1] != ']') ok = perr(p, "default %s of %s: expected a list", v, t->type_text);
            v[n - 1] = 0;
            eir_buf_putc(&out, '[');
            uint32_t count = 0;
            for (char *item = v + 1; ok && *item;) {
                while (*item == ' ') item++;
                if (!*item) break;
                char *comma = strchr(item, ',');
                if (comma) *comma = 0;
                char *ie = item + strlen(item);
                while (ie > item && ie[-1] == ' ') *--ie = 0;
                if (count++) eir_buf_puts(&out, ", ");
                ok = default_elem(p, t, item, &out);
                item = comma ? comma + 1 : ie;
            }
            if (ok && t->list_size > 0 && count != (uint32_t)t->list_size)
                ok = perr(p, "default of %s has %u elements", t->type_text, count);
            eir_buf_putc(&out, ']');
        } else if (t->list_size > 0) {
            eir_buf_putc(&out, '[');
            for (int32_t i = 0; ok && i < t->list_size; i++) {
                if (i) eir_buf_puts(&out, ", ");
                ok = default_elem(p, t, v, &out);
            }
            eir_buf_putc(&out, ']');
        } else {
            ok = perr(p, "default %s of %s: expected a list [...]", v, t->type_text);
        }
    } else {
        ok = default_elem(p, t, v, &out);
    }
    if (ok) {
        p->pos = save;
        t->sa.def = eir_arena_strndup(p->a, out.data ? out.data : "", out.len);
        if (!t->sa.def || out.oom) ok = perr(p, "out of memory");
    }
    eir_buf_free(&out);
    return ok;
}

/* ---- arguments and returns ---- */

static bool parse_args(parser *p, eir_parsed_arg **out, uint32_t *n) {
    uint32_t cap = 8;
    eir_parsed_arg *args = eir_arena_array(p->a, cap, sizeof *args);
    if (!args) return perr(p, "out of memory");
    bool kwonly = false;
    *n = 0;
    if (accept(p, ')')) { *out = args; return true; }
    for (;;) {
        if (accept(p, '*')) {
            if (kwonly) return perr(p, "a second '*'");
            kwonly = true;
        } else {
            if (*n == cap) {
                eir_parsed_arg *grown = eir_arena_array(p->a, cap * 2, sizeof *grown);
                if (!grown) return perr(p, "out of memory");
                memcpy(grown, args, cap * sizeof *args);
                args = grown;
                cap *= 2;
            }
            eir_parsed_arg *t = &args[*n];
            if (!parse_type(p, t, false)) return false;
            char *name = ident(p, false);
            if (!name) return perr(p, "expected the name of the %s argument, got '%.20s'", t->type_text, here(p));
            for (uint32_t i = 0; i < *n; i++)
                if (!strcmp(args[i].sa.name, name)) return perr(p, "argument '%s' is named twice", name);
            t->sa.name = name;
            t->sa.kwarg_only = kwonly;
            if (accept(p, '=') && !parse_default(p, t)) return false;
            (*n)++;
        }
        if (accept(p, ')')) break;
        if (!accept(p, ',')) return perr(p, "expected ',' or ')' after an argument, got '%.20s'", here(p));
    }
    *out = args;
    return true;
}

static bool parse_one_return(parser *p, eir_parsed_arg *r) {
    if (!parse_type(p, r, true)) return false;
    skip(p);
    char *name = is_ident_start(p->s[p->pos]) ? ident(p, false) : NULL;
    r->sa.name = name ? name : "";
    r->sa.type = r->list ? EIR_ST_TENSORS : EIR_ST_TENSOR;
    return true;
}

static bool parse_returns(parser *p, eir_parsed_arg **out, uint32_t *n) {
    *n = 0;
    if (accept(p, '(')) {
        uint32_t cap = 16;
        eir_parsed_arg *rets = eir_arena_array(p->a, cap, sizeof *rets);
        if (!rets) return perr(p, "out of memory");
        *out = rets;
        if (accept(p, ')')) return true;
        for (;;) {
            if (*n == cap) return perr(p, "more than %u returns", cap);
            if (!parse_one_return(p, &rets[(*n)++])) return false;
            if (accept(p, ')')) break;
            if (!accept(p, ',')) return perr(p, "expected ',' or ')' in the returns, got '%.20s'", here(p));
        }
        for (uint32_t i = 0; i < *n && *n > 1; i++)
            if (rets[i].list) return perr(p, "a Tensor[] return must be the only return");
        return true;
    }
    eir_parsed_arg *r = eir_arena_array(p->a, 1, sizeof *r);
    if (!r) return perr(p, "out of memory");
    *out = r;
    *n = 1;
    return parse_one_return(p, r);
}

bool eir_schema_parse(const char *qualname, const char *schema, eir_arena *a, eir_parsed_schema *out, char *err,
                      size_t errlen) {
    memset(out, 0, sizeof *out);
    parser p = {schema ? schema : "", 0, a, err, errlen, qualname ? qualname : "custom operator"};
    char *qual = NULL, *target = NULL;
    if (qualname && !split_qualname(qualname, strlen(qualname), a, &qual, &target)) {
        snprintf(err, errlen, "'%s' is not a qualified operator name (expected \"namespace::name\" or "
                 "\"namespace::name.overload\", e.g. \"mylib::sin\")", qualname);
        return false;
    }
    if (!schema) {
        snprintf(err, errlen, "%s: no schema given", p.who);
        return false;
    }
    skip(&p);
    if (p.s[p.pos] != '(') {
        /* the name in front of the schema */
        size_t b = p.pos;
        while (p.s[p.pos] && p.s[p.pos] != '(' && p.s[p.pos] != ' ') p.pos++;
        char *q2, *t2;
        if (!split_qualname(p.s + b, p.pos - b, a, &q2, &t2)) {
            p.pos = b;
            return perr(&p, "expected '(' or \"namespace::name(\", got '%.20s'", here(&p));
        }
        if (qual && strcmp(qual, q2) != 0) {
            p.pos = b;
            return perr(&p, "the schema names %s, but the operator is %s", q2, qual);
        }
        qual = q2;
        target = t2;
        p.who = qual;
    }
    if (!qual) return perr(&p, "no operator name: give one (\"mylib::sin\") or write it in front of the schema");
    if (!expect(&p, '(')) return false;
    if (!parse_args(&p, &out->args, &out->nargs)) return false;
    skip(&p);
    if (strncmp(p.s + p.pos, "->", 2) != 0) return perr(&p, "expected '->' and the returns, got '%.20s'", here(&p));
    p.pos += 2;
    if (!parse_returns(&p, &out->rets, &out->nrets)) return false;
    skip(&p);
    if (p.s[p.pos]) return perr(&p, "unexpected text after the returns: '%.20s'", here(&p));
    out->qualname = qual;
    out->target = target;
    char *text = eir_arena_alloc(a, strlen(qual) + strlen(schema) + 1);
    if (!text) return perr(&p, "out of memory");
    strcpy(text, qual);
    strcat(text, schema[strspn(schema, " \t\n")] == '(' ? schema + strspn(schema, " \t\n") : strchr(schema, '('));
    out->text = text;
    return true;
}
