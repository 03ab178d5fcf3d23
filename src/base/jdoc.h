/* jdoc.h — a read-only JSON document over jsmn (Debian's libjsmn-dev).
 *
 * jsmn tokenizes without allocating per value: one flat token array in
 * document order. jdoc adds what a reader needs on top: strict validation of
 * every token (number and literal grammar, string escapes, UTF-8, key/value
 * structure, a single root, a depth limit), O(1) access to the i-th child of
 * an array or object, and string decoding into an arena. Values are token
 * indices; JV_NONE means "absent". */
#ifndef EIR_JDOC_H
#define EIR_JDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"

typedef uint32_t jv;
#define JV_NONE UINT32_MAX

typedef enum jtype { JT_NONE, JT_OBJECT, JT_ARRAY, JT_STRING, JT_INTEGER, JT_REAL, JT_TRUE, JT_FALSE, JT_NULL } jtype;

typedef struct jdoc {
    const char *js;
    size_t len;
    uint32_t ntok;
    struct jtok *tok;
    uint32_t *kids;      /* children of token t: kids[first[t] .. first[t] + count) */
    uint32_t *first;
} jdoc;

/* Parse and validate js[0..len). On failure returns false with a message
 * ("line L, column C: ...") in err. max_depth bounds nesting. */
bool jdoc_parse(jdoc *d, const char *js, size_t len, int max_depth, char *err, size_t errlen);
void jdoc_free(jdoc *d);

jtype jdoc_type(const jdoc *d, jv v);
const char *jdoc_type_name(const jdoc *d, jv v);  /* "an object", "a string", ..., "nothing" */
uint32_t jdoc_size(const jdoc *d, jv v);           /* elements of an array, keys of an object */
jv jdoc_at(const jdoc *d, jv arr, uint32_t i);     /* i-th element */
jv jdoc_key(const jdoc *d, jv obj, uint32_t i);    /* i-th key (a string) */
jv jdoc_val(const jdoc *d, jv obj, uint32_t i);    /* i-th value */
jv jdoc_get(const jdoc *d, jv obj, const char *key); /* value of key, or JV_NONE (last wins) */

/* Decoded string (NUL-terminated, in arena). *has_nul tells whether the
 * text contained \u0000, which C strings cannot hold. NULL on out of memory. */
char *jdoc_str(const jdoc *d, jv v, eir_arena *arena, size_t *len, bool *has_nul);
/* Raw-compare a string token with key (no escapes in key). */
bool jdoc_str_eq(const jdoc *d, jv v, const char *key);
bool jdoc_int(const jdoc *d, jv v, int64_t *out);   /* false: not an integer or out of int64 range */
double jdoc_num(const jdoc *d, jv v);               /* integer or real */

#endif
