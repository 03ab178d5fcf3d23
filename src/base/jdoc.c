/* jdoc.c — jsmn tokens turned into a validated, indexable JSON document.
 *
 * jsmn (strict mode, parent links) does the tokenizing. Its strict mode still
 * lets some malformed text through (a missing comma, a misspelt literal, a
 * raw control character in a string, bad UTF-8), so every token is checked
 * here against the JSON grammar before anyone reads the document. */
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#define JSMN_STATIC
#include <jsmn.h>

#include "jdoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct jtok {
    jsmntok_t t;
};

static void pos_to_linecol(const char *js, size_t pos, size_t len, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < pos && i < len; i++) {
        if (js[i] == '\n') { (*line)++; *col = 1; }
        else (*col)++;
    }
}

static bool errat(const jdoc *d, size_t pos, char *err, size_t errlen, const char *what) {
    int line, col;
    pos_to_linecol(d->js, pos, d->len, &line, &col);
    snprintf(err, errlen, "JSON error at line %d, column %d: %s", line, col, what);
    return false;
}

static bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A string starting at js[*pos] == '"': escapes, control characters, UTF-8. */
static const char *scan_string(const char *js, size_t len, size_t *pos) {
    const unsigned char *s = (const unsigned char *)js;
    size_t i = *pos + 1;
    while (i < len) {
        unsigned char c = s[i];
        if (c == '"') { *pos = i + 1; return NULL; }
        if (c < 0x20) { *pos = i; return "control character in a string"; }
        if (c == '\\') {
            if (i + 1 >= len) break;
            unsigned char e = s[i + 1];
            if (e == 'u') {
                if (i + 6 > len) break;
                for (int k = 2; k < 6; k++)
                    if (hexval((char)s[i + k]) < 0) { *pos = i; return "bad \\u escape"; }
                i += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                       e == 't') {
                i += 2;
            } else {
                *pos = i;
                return "bad escape in a string";
            }
            continue;
        }
        if (c < 0x80) { i++; continue; }
        int extra = (c >= 0xC2 && c <= 0xDF) ? 1 : (c >= 0xE0 && c <= 0xEF) ? 2 : (c >= 0xF0 && c <= 0xF4) ? 3 : -1;
        if (extra < 0 || i + (size_t)extra >= len) { *pos = i; return "invalid UTF-8 in a string"; }
        for (int k = 1; k <= extra; k++)
            if ((s[i + (size_t)k] & 0xC0) != 0x80) { *pos = i; return "invalid UTF-8 in a string"; }
        i += (size_t)extra + 1;
    }
    *pos = len;
    return "unexpected end of text in a string";
}

/* A number or literal at js[*pos]. */
static const char *scan_scalar(const char *js, size_t len, size_t *pos) {
    size_t i = *pos;
    static const char *const lits[] = {"true", "false", "null"};
    for (int k = 0; k < 3; k++) {
        size_t n = strlen(lits[k]);
        if (i + n <= len && !memcmp(js + i, lits[k], n)) {
            *pos = i + n;
            return NULL;
        }
    }
    if (i < len && js[i] == '-') i++;
    if (i >= len) return "invalid number";
    if (js[i] == '0') i++;
    else if (js[i] >= '1' && js[i] <= '9') { while (i < len && js[i] >= '0' && js[i] <= '9') i++; }
    else return "invalid value";
    if (i < len && js[i] == '.') {
        size_t st = ++i;
        while (i < len && js[i] >= '0' && js[i] <= '9') i++;
        if (i == st) return "invalid number";
    }
    if (i < len && (js[i] == 'e' || js[i] == 'E')) {
        i++;
        if (i < len && (js[i] == '+' || js[i] == '-')) i++;
        size_t st = i;
        while (i < len && js[i] >= '0' && js[i] <= '9') i++;
        if (i == st) return "invalid number";
    }
    *pos = i;
    return NULL;
}

/* The JSON grammar, checked in one pass before jsmn tokenizes: jsmn's strict
 * mode still accepts missing or doubled separators, trailing commas and
 * misspelt literals. Iterative, with an explicit bounded stack. */
static const char *check_syntax(const char *js, size_t len, int max_depth, size_t *errpos, size_t *ntok) {
    char *stack = malloc((size_t)max_depth + 1);
    if (!stack) return "out of memory";
    int depth = 0;
    size_t i = 0;
    const char *why = NULL;
    size_t tokens = 0;  /* jsmn makes one token per value and per key */
    enum { VALUE, KEY, AFTER } st = VALUE;
    for (;;) {
        while (i < len && is_ws(js[i])) i++;
        if (st == AFTER) {
            if (depth == 0) {
                if (i != len) why = "extra text after the JSON value";
                break;
            }
            if (i >= len) { why = "unexpected end of text"; break; }
            char c = js[i];
            if (c == ',') { i++; st = stack[depth - 1] == '{' ? KEY : VALUE; continue; }
            if ((c == '}' && stack[depth - 1] == '{') || (c == ']' && stack[depth - 1] == '[')) { depth--; i++; continue; }
            why = stack[depth - 1] == '{' ? "expected ',' or '}'" : "expected ',' or ']'";
            break;
        }
        if (i >= len) { why = "unexpected end of text"; break; }
        if (st == KEY) {
            if (js[i] != '"') { why = "expected a string key"; break; }
            if ((why = scan_string(js, len, &i))) break;
            tokens++;
            while (i < len && is_ws(js[i])) i++;
            if (i >= len || js[i] != ':') { why = "expected ':'"; break; }
            i++;
            st = VALUE;
            continue;
        }
        char c = js[i];
        tokens++;
        if (c == '{' || c == '[') {
            if (depth >= max_depth) { why = "nesting too deep"; break; }
            stack[depth++] = c;
            i++;
            while (i < len && is_ws(js[i])) i++;
            if (i < len && js[i] == (c == '{' ? '}' : ']')) { depth--; i++; st = AFTER; continue; }
            st = c == '{' ? KEY : VALUE;
            continue;
        }
        if (c == '"') { if ((why = scan_string(js, len, &i))) break; }
        else if ((why = scan_scalar(js, len, &i))) break;
        st = AFTER;
    }
    free(stack);
    *errpos = i;
    *ntok = tokens;
    return why;
}

bool jdoc_parse(jdoc *d, const char *js, size_t len, int max_depth, char *err, size_t errlen) {
    memset(d, 0, sizeof *d);
    d->js = js;
    d->len = len;
    if (len >= (size_t)INT32_MAX) { snprintf(err, errlen, "JSON text of %zu bytes is too large", len); return false; }
    size_t epos = 0, ntok = 0;
    const char *why = check_syntax(js, len, max_depth, &epos, &ntok);
    if (why) return errat(d, epos, err, errlen, why);
    size_t s0 = 0;
    while (s0 < len && is_ws(js[s0])) s0++;
    if (js[s0] != '{' && js[s0] != '[' && js[s0] != '"') {
        /* a lone number or literal: jsmn's strict mode wants a delimiter after it */
        size_t e0 = s0;
        scan_scalar(js, len, &e0);
        jsmntok_t *one = calloc(1, sizeof *one);
        d->first = calloc(2, sizeof *d->first);
        d->kids = calloc(1, sizeof *d->kids);
        if (!one || !d->first || !d->kids) {
            free(one);
            jdoc_free(d);
            snprintf(err, errlen, "out of memory");
            return false;
        }
        *one = (jsmntok_t){JSMN_PRIMITIVE, (int)s0, (int)e0, 0, -1};
        d->tok = (struct jtok *)one;
        d->ntok = 1;
        return true;
    }
    if (ntok > (size_t)INT32_MAX) { snprintf(err, errlen, "too many JSON values"); return false; }
    jsmn_parser p;
    int n = (int)ntok;
    jsmntok_t *tok = malloc((size_t)n * sizeof *tok);
    d->tok = (struct jtok *)tok;
    d->first = malloc(((size_t)n + 1) * sizeof *d->first);
    d->kids = malloc((size_t)n * sizeof *d->kids);
    uint32_t *count = calloc((size_t)n + 1, sizeof *count);
    if (!tok || !d->first || !d->kids || !count) {
        free(count);
        jdoc_free(d);
        snprintf(err, errlen, "out of memory for %d JSON tokens", n);
        return false;
    }
    jsmn_init(&p);
    int r = jsmn_parse(&p, js, len, tok, (unsigned)n);
    if (r <= 0 || tok[0].parent != -1) {
        free(count);
        jdoc_free(d);
        return errat(d, p.pos, err, errlen, "invalid JSON");
    }
    d->ntok = (uint32_t)r;
    /* children lists from parent links: counts, prefix sums, fill in order */
    for (int t = 1; t < r; t++) count[tok[t].parent]++;
    uint32_t acc = 0;
    for (int t = 0; t < r; t++) { d->first[t] = acc; acc += count[t]; }
    d->first[r] = acc;
    memset(count, 0, ((size_t)r + 1) * sizeof *count);
    for (int t = 1; t < r; t++) {
        int par = tok[t].parent;
        if (tok[par].type == JSMN_STRING) continue;   /* a key's value: reached as key + 1 */
        d->kids[d->first[par] + count[par]++] = (uint32_t)t;
    }
    free(count);
    return true;
}

void jdoc_free(jdoc *d) {
    free(d->tok);
    free(d->kids);
    free(d->first);
    d->tok = NULL;
    d->kids = d->first = NULL;
    d->ntok = 0;
}

static const jsmntok_t *T(const jdoc *d, jv v) { return &d->tok[v].t; }

jtype jdoc_type(const jdoc *d, jv v) {
    if (v == JV_NONE || v >= d->ntok) return JT_NONE;
    const jsmntok_t *k = T(d, v);
    switch (k->type) {
    case JSMN_OBJECT: return JT_OBJECT;
    case JSMN_ARRAY: return JT_ARRAY;
    case JSMN_STRING: return JT_STRING;
    case JSMN_PRIMITIVE: {
        char c = d->js[k->start];
        if (c == 't') return JT_TRUE;
        if (c == 'f') return JT_FALSE;
        if (c == 'n') return JT_NULL;
        for (int i = k->start; i < k->end; i++)
            if (d->js[i] == '.' || d->js[i] == 'e' || d->js[i] == 'E') return JT_REAL;
        return JT_INTEGER;
    }
    default: return JT_NONE;
    }
}

const char *jdoc_type_name(const jdoc *d, jv v) {
    switch (jdoc_type(d, v)) {
    case JT_OBJECT: return "an object";
    case JT_ARRAY: return "an array";
    case JT_STRING: return "a string";
    case JT_INTEGER: return "an integer";
    case JT_REAL: return "a float";
    case JT_TRUE: case JT_FALSE: return "a bool";
    case JT_NULL: return "null";
    default: return "nothing";
    }
}

uint32_t jdoc_size(const jdoc *d, jv v) {
    jtype t = jdoc_type(d, v);
    if (t != JT_OBJECT && t != JT_ARRAY) return 0;
    return d->first[v + 1] - d->first[v];
}

jv jdoc_at(const jdoc *d, jv arr, uint32_t i) { return i < jdoc_size(d, arr) ? d->kids[d->first[arr] + i] : JV_NONE; }
jv jdoc_key(const jdoc *d, jv obj, uint32_t i) { return jdoc_at(d, obj, i); }
jv jdoc_val(const jdoc *d, jv obj, uint32_t i) {
    jv k = jdoc_at(d, obj, i);
    return k == JV_NONE ? JV_NONE : k + 1; /* a key's value is the next token */
}

bool jdoc_str_eq(const jdoc *d, jv v, const char *key) {
    if (jdoc_type(d, v) != JT_STRING) return false;
    const jsmntok_t *k = T(d, v);
    size_t n = (size_t)(k->end - k->start);
    return strlen(key) == n && memcmp(d->js + k->start, key, n) == 0;
}

jv jdoc_get(const jdoc *d, jv obj, const char *key) {
    if (jdoc_type(d, obj) != JT_OBJECT) return JV_NONE;
    uint32_t n = jdoc_size(d, obj);
    jv found = JV_NONE;
    for (uint32_t i = 0; i < n; i++) {
        jv k = d->kids[d->first[obj] + i];
        if (jdoc_str_eq(d, k, key)) found = k + 1;
    }
    return found;
}

static void put_utf8(char *o, size_t *w, uint32_t cp) {
    if (cp < 0x80) o[(*w)++] = (char)cp;
    else if (cp < 0x800) { o[(*w)++] = (char)(0xC0 | (cp >> 6)); o[(*w)++] = (char)(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
        o[(*w)++] = (char)(0xE0 | (cp >> 12));
        o[(*w)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*w)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        o[(*w)++] = (char)(0xF0 | (cp >> 18));
        o[(*w)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[(*w)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[(*w)++] = (char)(0x80 | (cp & 0x3F));
    }
}

char *jdoc_str(const jdoc *d, jv v, eir_arena *arena, size_t *len, bool *has_nul) {
    const jsmntok_t *k = T(d, v);
    const char *s = d->js + k->start;
    size_t n = (size_t)(k->end - k->start);
    if (has_nul) *has_nul = false;
    if (!memchr(s, '\\', n)) {
        if (len) *len = n;
        return eir_arena_strndup(arena, s, n);
    }
    char *o = eir_arena_alloc(arena, n + 1); /* decoding never grows the text */
    if (!o) return NULL;
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') { o[w++] = s[i++]; continue; }
        char e = s[i + 1];
        i += 2;
        switch (e) {
        case 'b': o[w++] = '\b'; break;
        case 'f': o[w++] = '\f'; break;
        case 'n': o[w++] = '\n'; break;
        case 'r': o[w++] = '\r'; break;
        case 't': o[w++] = '\t'; break;
        case 'u': {
            uint32_t cp = (uint32_t)(hexval(s[i]) << 12 | hexval(s[i + 1]) << 8 | hexval(s[i + 2]) << 4 | hexval(s[i + 3]));
            i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                uint32_t lo = (uint32_t)(hexval(s[i + 2]) << 12 | hexval(s[i + 3]) << 8 | hexval(s[i + 4]) << 4 |
                                         hexval(s[i + 5]));
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD; /* lone surrogate */
            if (cp == 0 && has_nul) *has_nul = true;
            put_utf8(o, &w, cp);
            break;
        }
        default: o[w++] = e; break; /* \" \\ \/ */
        }
    }
    o[w] = 0;
    if (len) *len = w;
    return o;
}

bool jdoc_int(const jdoc *d, jv v, int64_t *out) {
    if (jdoc_type(d, v) != JT_INTEGER) return false;
    const jsmntok_t *k = T(d, v);
    char buf[32];
    size_t n = (size_t)(k->end - k->start);
    if (n >= sizeof buf) return false;
    memcpy(buf, d->js + k->start, n);
    buf[n] = 0;
    errno = 0;
    char *end;
    long long x = strtoll(buf, &end, 10);
    if (errno || *end) return false;
    *out = x;
    return true;
}

double jdoc_num(const jdoc *d, jv v) {
    const jsmntok_t *k = T(d, v);
    size_t n = (size_t)(k->end - k->start);
    char buf[400];
    if (n >= sizeof buf) n = sizeof buf - 1;
    memcpy(buf, d->js + k->start, n);
    buf[n] = 0;
    return eir_strtod(buf, NULL);
}
