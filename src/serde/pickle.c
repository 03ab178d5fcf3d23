/* pickle.c — the restricted pickle reader (see pickle.h). Opcode facts from
 * CPython's Lib/pickletools.py documentation. Nothing read here is executed:
 * GLOBAL builds a name, REDUCE/NEWOBJ/BUILD build call nodes. */
#include "serde/pickle.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

enum {
    MAX_STACK = 1 << 20,       /* values on the stack at once */
    MAX_MARKS = 4096,          /* open MARKs (nesting of tuple/list/dict building) */
    MAX_MEMO = 1 << 20,        /* memo indices */
    MAX_LINE = 1024,           /* text-opcode argument lines */
};

struct eir_pk_reader {
    eir_arena arena;
    eir_pk **stack;
    size_t sp, stack_cap;
    size_t *marks;
    size_t nmarks, marks_cap;
    eir_pk **memo;
    size_t memo_cap, memo_n;      /* slots, slots in use (MEMOIZE appends at memo_n) */
    const uint8_t *p;
    size_t len, pos, op_pos;
    char *err;
    size_t errlen;
    eir_pk_policy policy;
    void *ctx;
};

const char *eir_pk_kind_name(eir_pk_kind k) {
    static const char *const names[] = {"None", "bool", "int", "float", "str", "bytes", "tuple",
                                        "list", "dict", "global", "call", "persistent id"};
    return (unsigned)k < EIR_ARRAY_LEN(names) ? names[k] : "?";
}

static bool fail(eir_pk_reader *r, const char *fmt, ...) EIR_PRINTF(2, 3);
static bool fail(eir_pk_reader *r, const char *fmt, ...) {
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    eir_snprintf(r->err, r->errlen, "pickle byte %zu: %s", r->op_pos, msg);
    return false;
}

static bool nomem(eir_pk_reader *r) { return fail(r, "out of memory"); }

static eir_pk *node(eir_pk_reader *r, eir_pk_kind k) {
    eir_pk *v = eir_arena_alloc(&r->arena, sizeof *v);
    if (v) v->kind = k;
    return v;
}

static bool add_item(eir_pk_reader *r, eir_pk *c, eir_pk *v) {
    if (c->n == c->cap) {
        if (c->cap >= UINT32_MAX / 2) return fail(r, "container too large");
        uint32_t nc = c->cap ? c->cap * 2 : 4;
        eir_pk **ni = eir_arena_array(&r->arena, nc, sizeof *ni);
        if (!ni) return nomem(r);
        if (c->n) memcpy(ni, c->items, c->n * sizeof *ni);
        c->items = ni;
        c->cap = nc;
    }
    c->items[c->n++] = v;
    return true;
}

static bool push(eir_pk_reader *r, eir_pk *v) {
    if (!v) return nomem(r);
    if (r->sp == r->stack_cap) {
        if (r->stack_cap >= MAX_STACK) return fail(r, "stack deeper than %d values", MAX_STACK);
        size_t nc = r->stack_cap ? r->stack_cap * 2 : 64;
        eir_pk **ns = realloc(r->stack, nc * sizeof *ns);
        if (!ns) return nomem(r);
        r->stack = ns;
        r->stack_cap = nc;
    }
    r->stack[r->sp++] = v;
    return true;
}

/* The bottom of the current frame: values below the last MARK are not ours. */
static size_t floor_(const eir_pk_reader *r) { return r->nmarks ? r->marks[r->nmarks - 1] : 0; }

static bool pop(eir_pk_reader *r, eir_pk **out, const char *what) {
    if (r->sp <= floor_(r)) return fail(r, "%s needs a value but the stack is empty", what);
    *out = r->stack[--r->sp];
    return true;
}

static bool top(eir_pk_reader *r, eir_pk **out, const char *what) {
    if (r->sp <= floor_(r)) return fail(r, "%s needs a value but the stack is empty", what);
    *out = r->stack[r->sp - 1];
    return true;
}

/* Pops the values since the last MARK into a fresh container of kind k. */
static bool pop_mark(eir_pk_reader *r, eir_pk_kind k, eir_pk **out, const char *what) {
    if (!r->nmarks) return fail(r, "%s without a MARK", what);
    size_t m = r->marks[--r->nmarks];
    eir_pk *c = node(r, k);
    if (!c) return nomem(r);
    for (size_t i = m; i < r->sp; i++)
        if (!add_item(r, c, r->stack[i])) return false;
    r->sp = m;
    *out = c;
    return true;
}

static bool need(eir_pk_reader *r, size_t n) {
    if (n > r->len - r->pos)
        return fail(r, "truncated: %zu more bytes needed, %zu left", n, r->len - r->pos);
    return true;
}

static uint64_t le(const uint8_t *b, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | b[i];
    return v;
}

static bool rd_uint(eir_pk_reader *r, int n, uint64_t *v) {
    if (!need(r, (size_t)n)) return false;
    *v = le(r->p + r->pos, n);
    r->pos += (size_t)n;
    return true;
}

/* A newline-terminated argument of a text opcode, without the newline. */
static bool rd_line(eir_pk_reader *r, const char **s, size_t *n) {
    const uint8_t *start = r->p + r->pos;
    size_t avail = r->len - r->pos;
    const uint8_t *nl = memchr(start, '\n', avail < MAX_LINE ? avail : MAX_LINE);
    if (!nl) return fail(r, avail < MAX_LINE ? "truncated: text argument has no newline"
                                             : "text argument longer than %d bytes", MAX_LINE);
    *s = (const char *)start;
    *n = (size_t)(nl - start);
    r->pos += *n + 1;
    return true;
}

static bool push_str(eir_pk_reader *r, eir_pk_kind k, uint64_t n) {
    if (!need(r, n)) return false;
    eir_pk *v = node(r, k);
    if (!v) return nomem(r);
    char *s = eir_arena_strndup(&r->arena, (const char *)r->p + r->pos, (size_t)n);
    if (!s) return nomem(r);
    v->s = s;
    v->len = (size_t)n;
    r->pos += (size_t)n;
    return push(r, v);
}

static bool memo_put(eir_pk_reader *r, uint64_t idx) {
    eir_pk *v;
    if (!top(r, &v, "memo put")) return false;
    if (idx >= MAX_MEMO) return fail(r, "memo index %llu is too large (limit %d)", (unsigned long long)idx, MAX_MEMO);
    if (idx >= r->memo_cap) {
        size_t nc = r->memo_cap ? r->memo_cap : 64;
        while (nc <= idx) nc *= 2;
        eir_pk **nm = realloc(r->memo, nc * sizeof *nm);
        if (!nm) return nomem(r);
        memset(nm + r->memo_cap, 0, (nc - r->memo_cap) * sizeof *nm);
        r->memo = nm;
        r->memo_cap = nc;
    }
    if (!r->memo[idx]) r->memo_n++;
    r->memo[idx] = v;
    return true;
}

static bool memo_get(eir_pk_reader *r, uint64_t idx) {
    if (idx >= r->memo_cap || !r->memo[idx])
        return fail(r, "memo index %llu was never stored", (unsigned long long)idx);
    return push(r, r->memo[idx]);
}

static bool global(eir_pk_reader *r, const char *mod, size_t ml, const char *name, size_t nl) {
    eir_pk *v = node(r, EIR_PK_GLOBAL);
    if (!v) return nomem(r);
    char *m = eir_arena_strndup(&r->arena, mod, ml), *n = eir_arena_strndup(&r->arena, name, nl);
    if (!m || !n) return nomem(r);
    if (strlen(m) != ml || strlen(n) != nl) return fail(r, "global name contains a NUL byte");
    if (!r->policy || !r->policy(r->ctx, m, n)) {
        char shown[160];
        eir_snprintf(shown, sizeof shown, "%.70s.%.70s", m, n);
        for (char *c = shown; *c; c++)
            if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f) *c = '?';
        return fail(r, "pickle refers to %s, which eir does not load", shown);
    }
    v->s = m;
    v->name = n;
    return push(r, v);
}

static bool parse_int_text(eir_pk_reader *r, const char *s, size_t n, int64_t *out) {
    if (n && s[n - 1] == 'L') n--;  /* protocol-0 LONG */
    if (!n || n > 20) return fail(r, "bad integer text");
    bool neg = s[0] == '-';
    size_t i = neg || s[0] == '+';
    if (i == n) return fail(r, "bad integer text");
    uint64_t v = 0;
    for (; i < n; i++) {
        if (!eir_isdigit((unsigned char)s[i])) return fail(r, "bad integer text");
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return fail(r, "integer does not fit 64 bits");
        v = v * 10 + d;
    }
    if (v > (uint64_t)INT64_MAX + neg) return fail(r, "integer does not fit 64 bits");
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

static bool push_int(eir_pk_reader *r, int64_t i) {
    eir_pk *v = node(r, EIR_PK_INT);
    if (!v) return nomem(r);
    v->i = i;
    return push(r, v);
}

static bool push_bool(eir_pk_reader *r, bool b) {
    eir_pk *v = node(r, EIR_PK_BOOL);
    if (!v) return nomem(r);
    v->b = b;
    return push(r, v);
}

/* LONG1 / LONG4: little-endian two's complement of n bytes. */
static bool push_long(eir_pk_reader *r, uint64_t n) {
    if (!need(r, n)) return false;
    if (n > 8) return fail(r, "integer of %llu bytes does not fit 64 bits", (unsigned long long)n);
    uint64_t u = n ? le(r->p + r->pos, (int)n) : 0;
    if (n && n < 8 && (r->p[r->pos + n - 1] & 0x80)) u |= ~(uint64_t)0 << (8 * n);
    r->pos += (size_t)n;
    int64_t i;
    memcpy(&i, &u, sizeof i);
    return push_int(r, i);
}

static bool call(eir_pk_reader *r, const char *what) {
    eir_pk *args = NULL, *fn = NULL;
    if (!pop(r, &args, what) || !pop(r, &fn, what)) return false;
    if (fn->kind != EIR_PK_GLOBAL) return fail(r, "%s of a %s (expected a global)", what, eir_pk_kind_name(fn->kind));
    if (args->kind != EIR_PK_TUPLE)
        return fail(r, "%s of %s.%s with a %s as arguments (expected a tuple)", what, fn->s, fn->name,
                    eir_pk_kind_name(args->kind));
    if (!strcmp(fn->s, "collections") && !strcmp(fn->name, "OrderedDict") && args->n == 0)
        return push(r, node(r, EIR_PK_DICT));  /* an empty dict that SETITEMS may fill */
    eir_pk *c = node(r, EIR_PK_CALL);
    if (!c) return nomem(r);
    if (!add_item(r, c, fn) || !add_item(r, c, args)) return false;
    return push(r, c);
}

/* Pairs are kept in order; equal keys are not merged (torch never writes them,
 * and merging would cost a search per item on hostile input). */
static bool set_items(eir_pk_reader *r, eir_pk *d, eir_pk **kv, size_t n, const char *what) {
    if (d->kind != EIR_PK_DICT) return fail(r, "%s on a %s (expected a dict)", what, eir_pk_kind_name(d->kind));
    if (n % 2) return fail(r, "%s with an odd number of values", what);
    for (size_t i = 0; i < n; i++)
        if (!add_item(r, d, kv[i])) return false;
    return true;
}

static bool step(eir_pk_reader *r, bool *stop) {
    r->op_pos = r->pos;
    uint64_t n;
    const char *s;
    size_t sl;
    eir_pk *a = NULL, *b = NULL, *c = NULL;
    int op = r->p[r->pos++];
    switch (op) {
    case 0x80: /* PROTO */
        if (!rd_uint(r, 1, &n)) return false;
        if (n > 5) return fail(r, "pickle protocol %llu is newer than 5", (unsigned long long)n);
        return true;
    case 0x95: /* FRAME: an 8-byte length; framing does not change the opcode stream */
        return rd_uint(r, 8, &n);
    case '.': *stop = true; return true;   /* STOP */
    case '(':                              /* MARK */
        if (r->nmarks == MAX_MARKS) return fail(r, "more than %d nested MARKs", MAX_MARKS);
        if (r->nmarks == r->marks_cap) {
            size_t nc = r->marks_cap ? r->marks_cap * 2 : 16;
            size_t *nm = realloc(r->marks, nc * sizeof *nm);
            if (!nm) return nomem(r);
            r->marks = nm;
            r->marks_cap = nc;
        }
        r->marks[r->nmarks++] = r->sp;
        return true;
    case '0': return pop(r, &a, "POP");
    case '1':                              /* POP_MARK */
        if (!r->nmarks) return fail(r, "POP_MARK without a MARK");
        r->sp = r->marks[--r->nmarks];
        return true;
    case '2': return top(r, &a, "DUP") && push(r, a);
    case 'N': return push(r, node(r, EIR_PK_NONE));
    case 0x88: return push_bool(r, true);
    case 0x89: return push_bool(r, false);
    case 'J': { /* BININT: signed 4 bytes */
        if (!rd_uint(r, 4, &n)) return false;
        return push_int(r, (int64_t)(int32_t)(uint32_t)n);
    }
    case 'K': return rd_uint(r, 1, &n) && push_int(r, (int64_t)n);
    case 'M': return rd_uint(r, 2, &n) && push_int(r, (int64_t)n);
    case 0x8a: return rd_uint(r, 1, &n) && push_long(r, n);   /* LONG1 */
    case 0x8b:                                                 /* LONG4 */
        if (!rd_uint(r, 4, &n)) return false;
        if (n & 0x80000000u) return fail(r, "negative LONG4 length");
        return push_long(r, n);
    case 'I': case 'L': { /* INT / LONG as text; "I01"/"I00" are True/False */
        int64_t i;
        if (!rd_line(r, &s, &sl)) return false;
        if (op == 'I' && sl == 2 && s[0] == '0' && (s[1] == '0' || s[1] == '1')) return push_bool(r, s[1] == '1');
        return parse_int_text(r, s, sl, &i) && push_int(r, i);
    }
    case 'G': { /* BINFLOAT: big-endian double */
        if (!need(r, 8)) return false;
        uint64_t u = 0;
        for (int i = 0; i < 8; i++) u = u << 8 | r->p[r->pos + (size_t)i];
        r->pos += 8;
        eir_pk *v = node(r, EIR_PK_FLOAT);
        if (!v) return nomem(r);
        memcpy(&v->f, &u, sizeof v->f);
        return push(r, v);
    }
    case 'X': return rd_uint(r, 4, &n) && push_str(r, EIR_PK_STR, n);      /* BINUNICODE */
    case 0x8c: return rd_uint(r, 1, &n) && push_str(r, EIR_PK_STR, n);     /* SHORT_BINUNICODE */
    case 0x8d: return rd_uint(r, 8, &n) && push_str(r, EIR_PK_STR, n);     /* BINUNICODE8 */
    case 'B': return rd_uint(r, 4, &n) && push_str(r, EIR_PK_BYTES, n);    /* BINBYTES */
    case 'C': return rd_uint(r, 1, &n) && push_str(r, EIR_PK_BYTES, n);    /* SHORT_BINBYTES */
    case 0x8e: return rd_uint(r, 8, &n) && push_str(r, EIR_PK_BYTES, n);   /* BINBYTES8 */
    case 0x96: return rd_uint(r, 8, &n) && push_str(r, EIR_PK_BYTES, n);   /* BYTEARRAY8 */
    case 'T':                                                              /* BINSTRING */
        if (!rd_uint(r, 4, &n)) return false;
        if (n & 0x80000000u) return fail(r, "negative BINSTRING length");
        return push_str(r, EIR_PK_BYTES, n);
    case 'U': return rd_uint(r, 1, &n) && push_str(r, EIR_PK_BYTES, n);    /* SHORT_BINSTRING */
    case ')': return push(r, node(r, EIR_PK_TUPLE));
    case ']': return push(r, node(r, EIR_PK_LIST));
    case '}': return push(r, node(r, EIR_PK_DICT));
    case 't': return pop_mark(r, EIR_PK_TUPLE, &a, "TUPLE") && push(r, a);
    case 'l': return pop_mark(r, EIR_PK_LIST, &a, "LIST") && push(r, a);
    case 'd': {                                                            /* DICT */
        eir_pk *d = node(r, EIR_PK_DICT);
        if (!d) return nomem(r);
        if (!pop_mark(r, EIR_PK_TUPLE, &a, "DICT")) return false;
        return set_items(r, d, a->items, a->n, "DICT") && push(r, d);
    }
    case 0x85: case 0x86: case 0x87: { /* TUPLE1..3 */
        int k = op - 0x84;
        if (r->sp < floor_(r) + (size_t)k) return fail(r, "TUPLE%d needs %d values on the stack", k, k);
        eir_pk *t = node(r, EIR_PK_TUPLE);
        if (!t) return nomem(r);
        for (size_t i = r->sp - (size_t)k; i < r->sp; i++)
            if (!add_item(r, t, r->stack[i])) return false;
        r->sp -= (size_t)k;
        return push(r, t);
    }
    case 'a':                              /* APPEND */
        if (!pop(r, &a, "APPEND") || !top(r, &b, "APPEND")) return false;
        if (b->kind != EIR_PK_LIST) return fail(r, "APPEND to a %s (expected a list)", eir_pk_kind_name(b->kind));
        return add_item(r, b, a);
    case 'e':                              /* APPENDS */
        if (!pop_mark(r, EIR_PK_TUPLE, &a, "APPENDS") || !top(r, &b, "APPENDS")) return false;
        if (b->kind != EIR_PK_LIST) return fail(r, "APPENDS to a %s (expected a list)", eir_pk_kind_name(b->kind));
        for (uint32_t i = 0; i < a->n; i++)
            if (!add_item(r, b, a->items[i])) return false;
        return true;
    case 's': {                            /* SETITEM */
        eir_pk *kv[2];
        if (!pop(r, &kv[1], "SETITEM") || !pop(r, &kv[0], "SETITEM") || !top(r, &c, "SETITEM")) return false;
        return set_items(r, c, kv, 2, "SETITEM");
    }
    case 'u':                              /* SETITEMS */
        if (!pop_mark(r, EIR_PK_TUPLE, &a, "SETITEMS") || !top(r, &c, "SETITEMS")) return false;
        return set_items(r, c, a->items, a->n, "SETITEMS");
    case 'c': {                            /* GLOBAL "module\nname\n" */
        const char *m;
        size_t ml;
        if (!rd_line(r, &m, &ml) || !rd_line(r, &s, &sl)) return false;
        return global(r, m, ml, s, sl);
    }
    case 0x93:                             /* STACK_GLOBAL */
        if (!pop(r, &b, "STACK_GLOBAL") || !pop(r, &a, "STACK_GLOBAL")) return false;
        if (a->kind != EIR_PK_STR || b->kind != EIR_PK_STR) return fail(r, "STACK_GLOBAL needs two strings");
        return global(r, a->s, a->len, b->s, b->len);
    case 'R': return call(r, "REDUCE");
    case 0x81: return call(r, "NEWOBJ");
    case 'b':                              /* BUILD: obj.__setstate__(state), recorded */
        if (!pop(r, &a, "BUILD") || !top(r, &b, "BUILD")) return false;
        if (b->kind != EIR_PK_CALL || b->n != 2)
            return fail(r, "BUILD on a %s (expected an object made by REDUCE or NEWOBJ)", eir_pk_kind_name(b->kind));
        return add_item(r, b, a);
    case 'Q': {                            /* BINPERSID */
        if (!pop(r, &a, "BINPERSID")) return false;
        eir_pk *v = node(r, EIR_PK_PERSID);
        if (!v) return nomem(r);
        return add_item(r, v, a) && push(r, v);
    }
    case 'q': return rd_uint(r, 1, &n) && memo_put(r, n);       /* BINPUT */
    case 'r': return rd_uint(r, 4, &n) && memo_put(r, n);       /* LONG_BINPUT */
    case 0x94: return memo_put(r, r->memo_n);                 /* MEMOIZE */
    case 'h': return rd_uint(r, 1, &n) && memo_get(r, n);       /* BINGET */
    case 'j': return rd_uint(r, 4, &n) && memo_get(r, n);       /* LONG_BINGET */
    case 'p': case 'g': {                                       /* PUT / GET as text */
        int64_t i;
        if (!rd_line(r, &s, &sl) || !parse_int_text(r, s, sl, &i)) return false;
        if (i < 0) return fail(r, "negative memo index");
        return op == 'p' ? memo_put(r, (uint64_t)i) : memo_get(r, (uint64_t)i);
    }
    default:
        if (op >= 0x20 && op < 0x7f) return fail(r, "opcode '%c' (0x%02x) is not supported", op, op);
        return fail(r, "opcode 0x%02x is not supported", op);
    }
}

bool eir_pk_read(const uint8_t *data, size_t len, eir_pk_policy policy, void *ctx, eir_pk_reader **out_r,
                 eir_pk **out, char *err, size_t errlen) {
    *out = NULL;
    eir_pk_reader *r = calloc(1, sizeof *r);
    *out_r = r;
    if (!r) {
        eir_snprintf(err, errlen, "out of memory");
        return false;
    }
    eir_arena_init(&r->arena);
    r->p = data;
    r->len = len;
    r->err = err;
    r->errlen = errlen;
    r->policy = policy;
    r->ctx = ctx;
    bool stop = false;
    while (!stop) {
        if (r->pos >= r->len) {
            r->op_pos = r->pos;
            return fail(r, "truncated: the pickle ends without STOP");
        }
        if (!step(r, &stop)) return false;
    }
    if (r->nmarks) return fail(r, "STOP with %zu MARK(s) still open", r->nmarks);
    if (r->sp != 1) return fail(r, "STOP with %zu values on the stack (expected 1)", r->sp);
    *out = r->stack[0];
    return true;
}

void eir_pk_reader_free(eir_pk_reader *r) {
    if (!r) return;
    eir_arena_release(&r->arena);
    free(r->stack);
    free(r->marks);
    free(r->memo);
    free(r);
}
