/* pickle.h — a restricted reader of Python pickles (protocols 0..5 as torch
 * writes them). It interprets the opcodes into a small value tree and never
 * executes anything: a global is only a (module, name) pair, a call is only a
 * node holding its callable and arguments. Which globals may appear at all is
 * the caller's policy (a callback asked at every GLOBAL / STACK_GLOBAL);
 * interpreting calls such as torch._utils._rebuild_tensor_v2 is the caller's
 * job too (src/serde/torchsave.c).
 *
 * The input may be hostile: every read is bounds-checked, lengths are checked
 * against the bytes that remain, the stack, memo, mark depth and node count
 * are capped, and any malformed input gives a message with the byte offset. */
#ifndef EIR_PICKLE_H
#define EIR_PICKLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum eir_pk_kind {
    EIR_PK_NONE,
    EIR_PK_BOOL,
    EIR_PK_INT,       /* fits int64 (larger LONG values are refused) */
    EIR_PK_FLOAT,
    EIR_PK_STR,       /* unicode text (UTF-8 as stored) */
    EIR_PK_BYTES,     /* bytes / bytearray / protocol-1 strings */
    EIR_PK_TUPLE,
    EIR_PK_LIST,
    EIR_PK_DICT,      /* items: key0, value0, key1, value1, ... in insertion order
                         (a repeated key is kept twice: callers that care refuse it);
                         also what collections.OrderedDict() (no arguments) makes */
    EIR_PK_GLOBAL,    /* module + name, never resolved */
    EIR_PK_CALL,      /* REDUCE / NEWOBJ: items[0] callable, items[1] args tuple;
                         BUILD appends its state as items[2] */
    EIR_PK_PERSID,    /* persistent id: items[0] is the pid value */
} eir_pk_kind;

typedef struct eir_pk eir_pk;
struct eir_pk {
    eir_pk_kind kind;
    bool b;
    int64_t i;
    double f;
    const char *s;            /* STR / BYTES data (NUL-terminated copy), GLOBAL module */
    size_t len;               /* STR / BYTES length */
    const char *name;         /* GLOBAL name */
    eir_pk **items;
    uint32_t n, cap;
};

/* Asked for every global the pickle names; returns true to accept it. On
 * false the reader fails with "pickle refers to MODULE.NAME, which eir does not
 * load". */
typedef bool (*eir_pk_policy)(void *ctx, const char *module, const char *name);

typedef struct eir_pk_reader eir_pk_reader;

/* Reads one pickle from data[0..len) (borrowed only during the call). On
 * success *out is the top-level value, owned by *r (free with
 * eir_pk_reader_free, which is safe on NULL and after failures). On failure
 * returns false with a one-line message in err. Values may be shared (memo)
 * and lists/dicts may contain themselves: walk with a depth limit. */
bool eir_pk_read(const uint8_t *data, size_t len, eir_pk_policy policy, void *ctx, eir_pk_reader **r,
                 eir_pk **out, char *err, size_t errlen);
void eir_pk_reader_free(eir_pk_reader *r);

/* Short Python-like name of a kind ("int", "tuple", ...), for messages. */
const char *eir_pk_kind_name(eir_pk_kind k);

#endif
