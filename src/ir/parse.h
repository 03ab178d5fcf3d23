/* parse.h — what the two halves of the text-form parser share: the lines
 * and cursor of parse_lex.c (diagnostics, Python values, sympy str() text,
 * type annotations) and the state parse.c builds graphs with. Internal to
 * src/ir/. */
#ifndef EIR_PARSE_H
#define EIR_PARSE_H

#include "program.h"

#define MAX_DEPTH 64

typedef struct line {
    const char *s;               /* first character after the indentation */
    uint32_t len;                /* from s, without trailing whitespace */
    uint32_t indent;
    uint32_t no;                 /* 1-based */
    bool blank;
} line;

typedef struct ps {
    eir_program *p;
    line *lines;
    uint32_t nlines;
    bool failed;
    int depth;
    /* signature, read before the graph: the kinds of the root's inputs */
    struct sig_in { const char *name; eir_input_kind kind; const char *target; int8_t persistent; } *sin;
    uint32_t nsin, capsin;
    struct sig_out { const char *name; eir_output_kind kind; const char *target; } *sout;
    uint32_t nsout, capsout;
    uint32_t *sin_line, *sout_line;
    uint32_t capsinl, capsoutl;
    bool have_sig;
} ps;


/* a cursor over one line */
typedef struct cur {
    ps *P;
    const line *ln;
    const char *s, *e;           /* position, end */
} cur;

typedef enum pv_kind {
    PV_NAME, PV_INT, PV_FLOAT, PV_BOOL, PV_NONE, PV_STR, PV_DTYPE, PV_MEMFMT, PV_LAYOUT, PV_DEVICE,
    PV_COMPLEX, PV_OP, PV_LIST, PV_TUPLE, PV_DICT,
} pv_kind;

/* a Python value as the code printer writes it */
typedef struct pv {
    pv_kind kind;
    uint32_t col;
    int64_t i;
    double f, im;
    const char *s;               /* NAME, STR, OP; DEVICE type */
    uint32_t n;
    struct pv *items;
    const char **keys;
} pv;

/* a type annotation: "f32[2, s77]" or "Sym(s0 + 1)" */
typedef struct ann {
    bool present, is_sym;
    eir_dtype dtype;
    uint32_t rank;
    eir_symint sizes[EIR_MAX_RANK * 4];
    uint32_t sym_expr;
    eir_value_kind sym_kind;
} ann;

#define PUSH(P, arr, n, cap) \
    ((arr) = tp_grow((arr), (n), &(cap), sizeof *(arr)), (arr) ? &(arr)[(n)++] : NULL)

static inline uint32_t tp_ccol(const cur *c) { return (uint32_t)(c->s - c->ln->s) + c->ln->indent + 1; }
static inline void tp_cws(cur *c) { while (c->s < c->e && (*c->s == ' ' || *c->s == '\t')) c->s++; }
static inline bool tp_cat_end(cur *c) { tp_cws(c); return c->s >= c->e; }
static inline bool tp_cpeek(cur *c, char ch) { tp_cws(c); return c->s < c->e && *c->s == ch; }
static inline bool tp_ident_start(char ch) { return eir_isalpha((unsigned char)ch) || ch == '_'; }
static inline bool tp_ident_char(char ch) { return eir_isalnum((unsigned char)ch) || ch == '_'; }

/* Diagnostics: set the program's message "LINE:COLUMN: ..." once (the first
 * failure wins) and return st; tp_cerr at the cursor; tp_oom out of memory. */
eir_status tp_perr(ps *P, eir_status st, uint32_t lno, uint32_t col, const char *fmt, ...) EIR_PRINTF(5, 6);
eir_status tp_cerr(cur *c, eir_status st, const char *fmt, ...) EIR_PRINTF(3, 4);
eir_status tp_oom(ps *P);

/* A malloc'd array with room for element n (NULL when it cannot grow), and
 * a copy of s[0..n) in the program's arena (NULL, with the message set). */
void *tp_grow(void *arr, uint32_t n, uint32_t *cap, size_t elem);
char *tp_pstrndup(ps *P, const char *s, size_t n);

/* The cursor: what is at it (for "got ..."), consume tok if it is there
 * (after spaces), or fail saying what was expected; an identifier or a
 * dotted name (NULL, nothing consumed, if there is none). */
const char *tp_got(cur *c, char *buf, size_t n);
bool tp_ceat(cur *c, const char *tok);
eir_status tp_cexpect(cur *c, const char *tok, const char *what);
const char *tp_cident(cur *c, size_t *len);
const char *tp_cdotted(cur *c, size_t *len);

/* Values: a quoted string (decoded, in the arena), a number, any value. */
eir_status tp_cstring(cur *c, const char **out);
eir_status tp_cnumber(cur *c, pv *v);
eir_status tp_cvalue(cur *c, pv *v);

/* The expression id of sympy str() text at line ln, column col (its printed
 * form stays the text); an annotation after its opening quote; contiguous
 * strides of sizes (symbolic products where sizes are). */
eir_status tp_sym_expr(ps *P, const line *ln, uint32_t col, const char *text, size_t n, uint32_t *id);
eir_status tp_cannotation(cur *c, ann *a);
eir_status tp_contiguous_strides(ps *P, uint32_t rank, const eir_symint *sizes, eir_symint *strides);

#endif
