/* sym.h — symbolic expressions as torch.export stores them: sympy srepr text
 * (e.g. "Mul(Integer(2), Symbol('s0', integer=True, positive=True))"),
 * parsed into a small tree and printed the way sympy's str() does. */
#ifndef EIR_SYM_H
#define EIR_SYM_H

#include <stdbool.h>
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
    bool quoted;      /* a bare 'string' (only valid as Symbol's / Float's argument) */
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

/* A Python number: an int or a float. */
typedef struct eir_sym_value {
    bool is_float;
    int64_t i;
    double f;
} eir_sym_value;

/* Python's binary operators on numbers: int op int stays an int (int64;
 * overflow is an error where Python would grow), / gives a float, // and %
 * floor, ** with a negative or float exponent gives a float; shifts and
 * bitwise ops take ints. The evaluators of sympy text and of guard text
 * both use these. false with a message ("division by zero") in err. */
typedef enum eir_num_op {
    EIR_NUM_ADD, EIR_NUM_SUB, EIR_NUM_MUL, EIR_NUM_TRUEDIV, EIR_NUM_FLOORDIV, EIR_NUM_CEILDIV, EIR_NUM_MOD,
    EIR_NUM_POW, EIR_NUM_LSHIFT, EIR_NUM_RSHIFT, EIR_NUM_AND, EIR_NUM_OR, EIR_NUM_XOR,
} eir_num_op;
bool eir_num_binop(eir_num_op op, eir_sym_value a, eir_sym_value b, eir_sym_value *out, char *err, size_t errlen);
/* -1, 0 or 1 as a <, ==, > b; 2 when either is nan (every comparison false but !=) */
int eir_num_cmp(eir_sym_value a, eir_sym_value b);
/* A float that must become an int (after floor/ceil/trunc/round): refuses
 * nan, inf and values beyond int64. */
bool eir_num_to_int(double x, eir_sym_value *out, char *err, size_t errlen);

/* lookup(ctx, name, &v) gives a symbol's value; false if it is unknown. */
typedef bool (*eir_sym_lookup)(void *ctx, const char *name, eir_sym_value *value);

/* Evaluate with Python's semantics (// and % floor, / gives a float, int64
 * overflow is an error). false with a message in err when a symbol has no
 * value ("symbol u0 has no value"), on division by zero, or on overflow. */
bool eir_sym_eval_value(const eir_sym_node *n, eir_sym_lookup lookup, void *ctx, eir_sym_value *out, char *err,
                        size_t errlen);

/* The same for a size, stride or count: the value must be an integer (a
 * float result is accepted only when it is whole, as for s0/2 with s0 even). */
bool eir_sym_eval(const eir_sym_node *n, eir_sym_lookup lookup, void *ctx, int64_t *out, char *err, size_t errlen);

#endif
