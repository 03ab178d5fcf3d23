/* sym.h — symbolic expressions as torch.export stores them: sympy srepr text
 * (e.g. "Mul(Integer(2), Symbol('s0', integer=True, positive=True))"),
 * parsed into a small tree and printed the way sympy's str() does. */
#ifndef EIR_SYM_H
#define EIR_SYM_H

#include <stdint.h>
#include "../base/base.h"

typedef enum eir_sym_kind {
    EIR_SYM_SYMBOL,   /* name */
    EIR_SYM_INTEGER,  /* ival */
    EIR_SYM_RATIONAL, /* ival / den */
    EIR_SYM_FLOAT,    /* fval, text in name */
    EIR_SYM_TRUE, EIR_SYM_FALSE,
    EIR_SYM_INFINITY, EIR_SYM_NEG_INFINITY, /* oo, -oo, int_oo, -int_oo */
    EIR_SYM_CALL,     /* name(args...): Add, Mul, Pow, FloorDiv, Max, Eq, ... */
} eir_sym_kind;

typedef struct eir_sym_node {
    eir_sym_kind kind;
    const char *name;
    int64_t ival, den;
    double fval;
    uint32_t nargs;
    struct eir_sym_node **args;
} eir_sym_node;

/* Parse srepr text into a tree allocated from arena. NULL on a syntax error,
 * with a message naming the position in err. */
eir_sym_node *eir_sym_parse(eir_arena *arena, const char *text, char *err, size_t errlen);

/* Print as sympy's str() would. */
void eir_sym_print(eir_buf *b, const eir_sym_node *n);

#endif

/* Evaluate an integer/boolean expression. lookup(ctx, name, &v) gives a
 * symbol's value and returns false if it is unknown. Supports integers,
 * booleans, Add, Mul, Pow (integer exponent >= 0), FloorDiv, Mod, PythonMod,
 * CleanDiv, CeilDiv, ModularIndexing, Max, Min, Abs, Identity, relations,
 * And, Or, Not. false with a message in err otherwise. */
typedef bool (*eir_sym_lookup)(void *ctx, const char *name, int64_t *value);
bool eir_sym_eval(const eir_sym_node *n, eir_sym_lookup lookup, void *ctx, int64_t *out, char *err, size_t errlen);
