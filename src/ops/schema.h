/* schema.h — torch's operator schema syntax, parsed: the text
 * torch.library.define takes, e.g.
 *
 *     (Tensor x, Tensor? bias=None, int[2] k=[1, 1], *, float a=1., ScalarType? dt=None) -> (Tensor, Tensor)
 *     mylib::scale_(Tensor(a!) x, float f) -> ()
 *
 * for custom operators defined through the C API. Each argument also gets
 * the decoding type and default of the generated ATen table (optable.h), so
 * the runtime decodes custom-op nodes with the same code as ATen ones. */
#ifndef EIR_SCHEMA_H
#define EIR_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"
#include "optable.h"

/* The element type of an argument or return. */
typedef enum eir_arg_base {
    EIR_AB_TENSOR, EIR_AB_INT, EIR_AB_SYMINT, EIR_AB_FLOAT, EIR_AB_BOOL, EIR_AB_STR, EIR_AB_SCALAR, EIR_AB_DTYPE,
} eir_arg_base;

typedef struct eir_parsed_arg {
    eir_schema_arg sa;           /* name, decoding type, kwarg_only, default as the ATen table writes it */
    eir_arg_base base;
    bool list;                   /* T[] / T[N] */
    int32_t list_size;           /* N of T[N], -1 when unsized */
    bool optional;               /* T? / T[]? */
    bool elem_optional;          /* Tensor?[] */
    bool mutates;                /* Tensor(a!) */
    char alias;                  /* the alias set letter of Tensor(a) / Tensor(a!), 0 if none */
    const char *type_text;       /* the type as written ("Tensor(a!)", "int[2]"), for messages */
} eir_parsed_arg;

typedef struct eir_parsed_schema {
    const char *qualname;        /* "mylib::sin", "mylib::sin.out" */
    const char *target;          /* how graph nodes name it, without "torch.ops.": "mylib.sin.default" */
    const char *text;            /* "mylib::sin(Tensor x) -> Tensor", for messages */
    eir_parsed_arg *args;
    uint32_t nargs;
    eir_parsed_arg *rets;        /* returns; names are "" when the schema gives none */
    uint32_t nrets;
} eir_parsed_schema;

/* Parse `schema` ("(Tensor x) -> Tensor", or with the name in front:
 * "mylib::sin(Tensor x) -> Tensor"). `qualname` ("ns::op" or
 * "ns::op.overload") may be NULL when the schema carries the name; when both
 * name it they must agree. Strings are allocated in `a`. On error returns
 * false with a message naming the position and what was expected. */
bool eir_schema_parse(const char *qualname, const char *schema, eir_arena *a, eir_parsed_schema *out, char *err,
                      size_t errlen);

#endif
