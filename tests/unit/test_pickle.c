/* test_pickle.c — the restricted pickle reader: values of pickles CPython
 * wrote (protocols 2, 4, 5) come back as the value tree; hostile input
 * (every truncation, byte flips, huge lengths, deep nesting, bad memo
 * indices, stack underflow, forbidden globals, cycles) gives an error, never
 * a crash or a read out of bounds (run it under ASan+UBSan: build/san/tests). */
#include <stdlib.h>

#include "check.h"
#include "serde/pickle.h"

#include "pickle_cases.inc"

static bool allow_some(void *ctx, const char *m, const char *n) {
    (void)ctx;
    return (!strcmp(m, "_codecs") && !strcmp(n, "encode")) || (!strcmp(m, "collections") && !strcmp(n, "OrderedDict")) ||
           (!strcmp(m, "torch") && !strcmp(n, "FloatStorage"));
}

static char err[512];

/* Reads b[0..n); returns the top value (reader in *r) or NULL with err set. */
static eir_pk *rd(const void *b, size_t n, eir_pk_reader **r) {
    eir_pk *v = NULL;
    if (!eir_pk_read(b, n, allow_some, NULL, r, &v, err, sizeof err)) return NULL;
    return v;
}

/* Expects failure with a message containing want. */
static void bad(const void *b, size_t n, const char *want) {
    eir_pk_reader *r = NULL;
    eir_pk *v = rd(b, n, &r);
    CHECK(v == NULL);
    if (v) fprintf(stderr, "  accepted a pickle that should fail with '%s'\n", want);
    else if (!strstr(err, want)) {
        check_failed++;
        fprintf(stderr, "  message '%s' lacks '%s'\n", err, want);
    }
    eir_pk_reader_free(r);
}
#define BAD(lit, want) bad(lit, sizeof(lit) - 1, want)

static const eir_pk *dict_get(const eir_pk *d, const char *k) {
    for (uint32_t i = 0; i + 1 < d->n; i += 2)
        if (d->items[i]->kind == EIR_PK_STR && !strcmp(d->items[i]->s, k)) return d->items[i + 1];
    return NULL;
}

static void check_obj(const unsigned char *b, size_t n, bool bytes_via_codecs) {
    eir_pk_reader *r = NULL;
    const eir_pk *v = rd(b, n, &r);
    CHECK(v != NULL);
    if (!v) { fprintf(stderr, "  %s\n", err); eir_pk_reader_free(r); return; }
    CHECK(v->kind == EIR_PK_DICT && v->n == 8);
    const eir_pk *a = dict_get(v, "a"), *t = dict_get(v, "b"), *s = dict_get(v, "s"), *y = dict_get(v, "y");
    CHECK(a && a->kind == EIR_PK_LIST && a->n == 6);
    if (a && a->n == 6) {
        static const int64_t want[] = {1, -2, 300, 70000, -(INT64_C(1) << 40), INT64_MAX};
        for (int i = 0; i < 6; i++) CHECK(a->items[i]->kind == EIR_PK_INT && a->items[i]->i == want[i]);
    }
    CHECK(t && t->kind == EIR_PK_TUPLE && t->n == 4);
    if (t && t->n == 4) {
        CHECK(t->items[0]->kind == EIR_PK_FLOAT && t->items[0]->f == 1.5);
        CHECK(t->items[1]->kind == EIR_PK_NONE);
        CHECK(t->items[2]->kind == EIR_PK_BOOL && t->items[2]->b);
        CHECK(t->items[3]->kind == EIR_PK_BOOL && !t->items[3]->b);
    }
    CHECK(s && s->kind == EIR_PK_STR && s->len == 3 && !memcmp(s->s, "h\xc3\xa9", 3));
    if (bytes_via_codecs) {
        /* protocol 2 writes bytes as _codecs.encode('\x00\x01', 'latin1'): a call node */
        CHECK(y && y->kind == EIR_PK_CALL && y->items[0]->kind == EIR_PK_GLOBAL && !strcmp(y->items[0]->name, "encode"));
    } else {
        CHECK(y && y->kind == EIR_PK_BYTES && y->len == 2 && y->s[0] == 0 && y->s[1] == 1);
    }
    eir_pk_reader_free(r);
}

/* Every prefix must fail cleanly; every single-byte change must not crash. */
static void hostile_variants(const unsigned char *b, size_t n) {
    unsigned char *copy = malloc(n);
    for (size_t k = 0; k + 1 < n; k++) {
        /* an exact-size heap copy so ASan sees any read past the end */
        memcpy(copy, b, k);
        eir_pk_reader *r = NULL;
        CHECK(rd(copy, k, &r) == NULL);
        eir_pk_reader_free(r);
    }
    static const unsigned char vals[] = {0x00, 0x01, 0x7f, 0x80, 0xff, '(', 'h', 'j', 'q', 'r', 'R', 'Q', 'b', 't', 'u', 's', '.'};
    for (size_t k = 0; k < n; k++)
        for (size_t j = 0; j < sizeof vals; j++) {
            memcpy(copy, b, n);
            copy[k] = vals[j];
            eir_pk_reader *r = NULL;
            rd(copy, n, &r);
            eir_pk_reader_free(r);
        }
    free(copy);
}

int main(void) {
    check_obj(P2, sizeof P2 - 1, true);
    check_obj(P4, sizeof P4 - 1, false);
    check_obj(P5, sizeof P5 - 1, false);
    hostile_variants(P2, sizeof P2 - 1);
    hostile_variants(P4, sizeof P4 - 1);

    /* an OrderedDict() filled by SETITEM is a dict */
    {
        static const char od[] = "\x80\x02" "ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00kq\x02K\x01s.";
        eir_pk_reader *r = NULL;
        const eir_pk *v = rd(od, sizeof od - 1, &r);
        CHECK(v && v->kind == EIR_PK_DICT && v->n == 2 && v->items[1]->i == 1);
        eir_pk_reader_free(r);
    }
    /* a list that contains itself (memo): read, not followed */
    {
        static const char cyc[] = "\x80\x02]q\x00h\x00" "a.";
        eir_pk_reader *r = NULL;
        const eir_pk *v = rd(cyc, sizeof cyc - 1, &r);
        CHECK(v && v->kind == EIR_PK_LIST && v->n == 1 && v->items[0] == v);
        eir_pk_reader_free(r);
    }
    /* a persistent id and a REDUCE are recorded, not executed */
    {
        static const char pid[] = "\x80\x02(X\x07\x00\x00\x00" "storagectorch\nFloatStorage\nX\x01\x00\x00\x00" "0tQ.";
        eir_pk_reader *r = NULL;
        const eir_pk *v = rd(pid, sizeof pid - 1, &r);
        CHECK(v && v->kind == EIR_PK_PERSID && v->items[0]->kind == EIR_PK_TUPLE && v->items[0]->n == 3);
        eir_pk_reader_free(r);
    }

    /* forbidden globals, by name, in every spelling */
    BAD("cos\nsystem\n(X\x02\x00\x00\x00lstR.", "pickle refers to os.system, which eir does not load");
    BAD("\x80\x04\x8c\x08" "builtins\x8c\x04" "eval\x93.", "pickle refers to builtins.eval");
    BAD("\x80\x02" "csubprocess\nPopen\n.", "pickle refers to subprocess.Popen");
    BAD("\x80\x02" "c__main__\nSub\n.", "pickle refers to __main__.Sub");
    BAD("\x80\x02" "cos\x1b[31m\nsystem\n.", "pickle refers to os?[31m.system");
    BAD("\x80\x02" "ctorch\x00x\nFloatStorage\n.", "NUL byte");
    /* truncation and lengths past the end */
    BAD("", "ends without STOP");
    BAD("\x80\x02", "ends without STOP");
    BAD("\x80\x02X\xff\xff\xff\xff" "abc.", "truncated");
    BAD("\x80\x02\x8d\xff\xff\xff\xff\xff\xff\xff\x7f" "abc.", "truncated");
    BAD("\x80\x02\x8e\x00\x00\x00\x00\x00\x00\x00\x80.", "truncated");
    BAD("\x80\x02\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09.", "does not fit 64 bits");
    BAD("\x80\x02\x8b\xff\xff\xff\xff.", "negative LONG4");
    BAD("\x80\x02T\xff\xff\xff\xff.", "negative BINSTRING");
    BAD("\x80\x02" "cos", "no newline");
    BAD("\x80\x02I99999999999999999999\n.", "does not fit 64 bits");
    BAD("\x80\x02Iabc\n.", "bad integer");
    BAD("\x80\x06N.", "protocol 6");
    /* memo */
    BAD("\x80\x02h\x05.", "memo index 5 was never stored");
    BAD("\x80\x02j\xff\xff\xff\xff.", "was never stored");
    BAD("\x80\x02Nr\xff\xff\xff\xff.", "memo index 4294967295 is too large");
    BAD("\x80\x02q\x00.", "stack is empty");
    /* stack and marks */
    BAD("\x80\x02.", "STOP with 0 values");
    BAD("\x80\x02NN.", "STOP with 2 values");
    BAD("\x80\x02(N.", "MARK(s) still open");
    BAD("\x80\x02t.", "TUPLE without a MARK");
    BAD("\x80\x02N(a.", "APPEND needs a value");
    BAD("\x80\x02}Na.", "APPEND to a dict");
    BAD("\x80\x02]NNs.", "SETITEM on a list");
    BAD("\x80\x02}(Nu.", "odd number");
    BAD("\x80\x02NN\x87.", "TUPLE3 needs 3 values");
    BAD("\x80\x02N(N\x86.", "TUPLE2 needs 2 values");
    BAD("\x80\x02N)R.", "REDUCE of a None");
    BAD("\x80\x02" "ccollections\nOrderedDict\nNR.", "with a None as arguments");
    BAD("\x80\x02NNb.", "BUILD on a None");
    BAD("\x80\x02Q.", "BINPERSID needs a value");
    BAD("\x80\x02X\x01\x00\x00\x00" "aN\x93.", "STACK_GLOBAL needs two strings");
    BAD("\x80\x02\xfe.", "opcode 0xfe is not supported");
    BAD("\x80\x02" "cos\nsystem\n" "\x82\x01.", "os.system");
    BAD("\x80\x02\x8f.", "opcode 0x8f");   /* EMPTY_SET: not written for tensors */
    BAD("\x80\x02i__main__\nX\n.", "opcode 'i'");
    /* deep nesting: marks are capped; nested lists do not recurse in the reader */
    {
        size_t n = 100000;
        char *b = malloc(n + 4);
        b[0] = '\x80';
        b[1] = 2;
        memset(b + 2, '(', n);
        b[n + 2] = '.';
        bad(b, n + 3, "nested MARKs");
        memset(b + 2, ']', n);
        bad(b, n + 3, "STOP with 100000 values");
        free(b);
    }
    /* a long text line is refused */
    {
        size_t n = 5000;
        char *b = malloc(n + 8);
        memcpy(b, "\x80\x02" "c", 3);
        memset(b + 3, 'a', n);
        memcpy(b + 3 + n, "\nx\n.", 4);
        bad(b, n + 7, "longer than");
        free(b);
    }
    return check_summary("test_pickle");
}
