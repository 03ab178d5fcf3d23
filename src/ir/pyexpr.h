/* pyexpr.h — the Python expressions torch.export stores as text: the
 * program's guards_code ("L['x'].size()[0] == (2*L['y'].size()[0])") and
 * the input guards ep.module() generates from the signature and ranges.
 *
 * A small subset of Python's expression grammar (constants, names,
 * attributes, subscripts, calls, arithmetic, bitwise, comparisons, and/or/
 * not, a if c else b), parsed into a tree, printed back the way Python's
 * ast.unparse prints it (torch builds its "Guard failed: ..." messages with
 * ast.unparse), and evaluated with Python's int/float semantics. Input
 * accessors (L['x'].size()[0]) are resolved by the caller into SOURCE nodes
 * whose values come from a callback. */
#ifndef EIR_PYEXPR_H
#define EIR_PYEXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/base.h"
#include "sym.h"

typedef enum eir_py_kind {
    EIR_PY_INT, EIR_PY_FLOAT, EIR_PY_STR, EIR_PY_NAME, EIR_PY_ATTR, EIR_PY_SUBSCRIPT, EIR_PY_CALL,
    EIR_PY_BINOP, EIR_PY_UNARY, EIR_PY_COMPARE, EIR_PY_BOOLOP, EIR_PY_IFEXP,
    EIR_PY_SOURCE,                 /* an input accessor, resolved by the caller */
} eir_py_kind;

typedef enum eir_py_op {
    EIR_PYOP_ADD, EIR_PYOP_SUB, EIR_PYOP_MUL, EIR_PYOP_DIV, EIR_PYOP_FLOORDIV, EIR_PYOP_MOD, EIR_PYOP_POW,
    EIR_PYOP_LSHIFT, EIR_PYOP_RSHIFT, EIR_PYOP_BITAND, EIR_PYOP_BITOR, EIR_PYOP_BITXOR,
    EIR_PYOP_NEG, EIR_PYOP_POS, EIR_PYOP_INVERT, EIR_PYOP_NOT,
    EIR_PYOP_EQ, EIR_PYOP_NE, EIR_PYOP_LT, EIR_PYOP_LE, EIR_PYOP_GT, EIR_PYOP_GE,
    EIR_PYOP_AND, EIR_PYOP_OR,
} eir_py_op;

typedef struct eir_py_node {
    eir_py_kind kind;
    eir_py_op op;                  /* BINOP, UNARY, BOOLOP */
    int64_t i;                     /* INT; SOURCE: a dim */
    double f;                      /* FLOAT */
    const char *s;                 /* STR, NAME, ATTR's attribute */
    uint32_t n;                    /* kids: ATTR/SUBSCRIPT value (+ index), CALL func + args,
                                      BINOP l r, UNARY x, COMPARE operands, BOOLOP values,
                                      IFEXP body test orelse */
    struct eir_py_node **kids;
    eir_py_op *cmp;                /* COMPARE: n - 1 operators */
    uint32_t ref;                  /* SOURCE: caller's meaning (an input index) */
    int what;                      /* SOURCE: caller's meaning (size, stride, ...) */
} eir_py_node;

/* Parse text into a tree from arena. NULL on a syntax error, with a message
 * naming the offset in err. Depth-limited; never reads past the text. */
eir_py_node *eir_py_parse(eir_arena *arena, const char *text, char *err, size_t errlen);

/* Print as ast.unparse does. With strip_L, L['x'] prints as x (torch's
 * message form of a guard). SOURCE nodes print through their original
 * subtree, which callers keep in kids[0]. */
void eir_py_unparse(eir_buf *b, const eir_py_node *n, bool strip_L);

/* Evaluate. source(ctx, node, &v) gives a SOURCE node's value (false with a
 * message in err to fail). Calls: math.ceil/floor/trunc/sqrt/..., max, min,
 * abs, round, float, int, torch.sym_float, torch._sym_sqrt. */
/* What a SOURCE node reads. */
enum { EIR_PY_VALUE = 1, EIR_PY_SIZE, EIR_PY_STRIDE, EIR_PY_STORAGE_OFFSET };

/* Replace the input accessors of a tree by SOURCE nodes: a name chain
 * (L['x'], L['p'].x, L['xs'][1]['a'], n) read as a value, or followed by
 * .size()[i], .stride()[i] or .storage_offset(). fn(ctx, chain_text, what,
 * dim, &ref, err, errlen) is given the chain as ast.unparse prints it
 * ("L['xs'][1]['a']") and sets ref, or fails with a message. Names under
 * math. and torch. are functions and constants, not inputs. */
typedef bool (*eir_py_resolve_fn)(void *ctx, const char *chain, int what, int64_t dim, uint32_t *ref, char *err,
                                  size_t errlen);
bool eir_py_resolve(eir_arena *arena, eir_py_node **root, eir_py_resolve_fn fn, void *ctx, char *err, size_t errlen);

typedef bool (*eir_py_source_fn)(void *ctx, const eir_py_node *n, eir_sym_value *out, char *err, size_t errlen);
bool eir_py_eval(const eir_py_node *n, eir_py_source_fn source, void *ctx, eir_sym_value *out, char *err,
                 size_t errlen);

/* Python's binary operators and comparisons on numbers (and/or give a
 * bool), and its functions by name ("math.ceil", "max", "torch.sym_float"):
 * the arithmetic of the graph's symbolic ops (operator.floordiv, ...). */
bool eir_py_binop(eir_py_op op, eir_sym_value a, eir_sym_value b, eir_sym_value *out, char *err, size_t errlen);
bool eir_py_call(const char *name, const eir_sym_value *args, uint32_t nargs, eir_sym_value *out, char *err,
                 size_t errlen);

#endif
