/* print.c — render a program exactly as torch 2.13 prints it.
 *
 * torch prints the FX graph that torch.export.load rebuilds from the file,
 * not the file itself, so printing first builds that FX view: placeholders
 * for graph inputs, a get_attr node before each use of a nested graph,
 * call_function nodes, operator.getitem nodes for every element of a
 * multi-output node, and one output node. Three renderers follow torch's
 * code paths: Graph.__str__ (fx/node.py format_node), GraphModule.code
 * (fx/graph.py CodeGen._gen_python_code) and ExportedProgram.__str__
 * (print_readable + graph signature + range constraints). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "../base/jdoc.h"

/* ---- FX's _Namespace (torch/fx/graph.py) ----
 *
 * torch names nodes twice. Graph.create_node asks the graph's namespace for
 * a name (the deserializer then overwrites it with the serialized name for
 * most nodes, so the namespace remembers the name it handed out, not the
 * final one); the code generator asks a fresh namespace again for every node
 * it prints and every global it references. Both refuse names in
 * _illegal_names (keywords, builtins, the code generator's own globals)
 * unless the object is that builtin, so a placeholder `input` prints as
 * `input_1 = input` in code. */

/* sorted(torch.fx.graph._illegal_names) for Python 3.11: keyword.kwlist,
 * builtins.__dict__ and the registered custom builtins */
static const char *const ILLEGAL_NAMES[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup",
    "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
    "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
    "DeprecationWarning", "EOFError", "Ellipsis", "EncodingWarning", "EnvironmentError", "Exception",
    "ExceptionGroup", "False", "FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
    "GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError", "IndexError",
    "InterruptedError", "IsADirectoryError", "KeyError", "KeyboardInterrupt", "LookupError", "MemoryError",
    "ModuleNotFoundError", "NameError", "None", "NoneType", "NotADirectoryError", "NotImplemented",
    "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning", "PermissionError",
    "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
    "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning", "SystemError",
    "SystemExit", "TabError", "TimeoutError", "True", "TypeError", "UnboundLocalError", "UnicodeDecodeError",
    "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning", "UserWarning",
    "ValueError", "Warning", "ZeroDivisionError", "__build_class__", "__debug__", "__doc__", "__import__",
    "__loader__", "__name__", "__package__", "__spec__", "abs", "aiter", "all", "and", "anext", "any", "as",
    "ascii", "assert", "async", "await", "bin", "bool", "break", "breakpoint", "bytearray", "bytes",
    "callable", "chr", "class", "classmethod", "compile", "complex", "continue", "copyright", "credits",
    "def", "del", "delattr", "device", "dict", "dir", "divmod", "elif", "else", "enumerate", "eval", "except",
    "exec", "exit", "filter", "finally", "float", "for", "format", "from", "frozenset", "fx_pytree",
    "getattr", "global", "globals", "hasattr", "hash", "help", "hex", "id", "if", "import", "in", "inf",
    "input", "int", "is", "isinstance", "issubclass", "iter", "lambda", "len", "license", "list", "locals",
    "map", "max", "memoryview", "min", "nan", "next", "nonlocal", "not", "object", "oct", "open", "or", "ord",
    "pass", "pow", "print", "property", "pytree", "quit", "raise", "range", "repr", "return", "reversed",
    "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "torch", "try",
    "tuple", "type", "vars", "while", "with", "yield", "zip",
};

static int cmp_cstr(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

bool eir_fx_illegal_name(const char *s) {
    return bsearch(&s, ILLEGAL_NAMES, sizeof ILLEGAL_NAMES / sizeof *ILLEGAL_NAMES, sizeof *ILLEGAL_NAMES,
                   cmp_cstr) != NULL;
}

/* the code generator pre-registers these globals (_custom_builtins) */
static const char *const CUSTOM_BUILTINS[] = {"inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"};

typedef struct fxns {
    eir_arena *arena;
    eir_strmap used;             /* _used_names */
    eir_strmap base_count;       /* _base_count (keys in the arena) */
    eir_strmap globals;          /* code generator: global's target -> index into gnames */
    const char **gnames;
    uint32_t nglobals, capglobals;
    bool oom;
} fxns;

static void ns_init(fxns *ns, eir_arena *arena) {
    memset(ns, 0, sizeof *ns);
    ns->arena = arena;
    eir_strmap_init(&ns->used);
    eir_strmap_init(&ns->base_count);
    eir_strmap_init(&ns->globals);
}

static void ns_free(fxns *ns) {
    eir_strmap_free(&ns->used);
    eir_strmap_free(&ns->base_count);
    eir_strmap_free(&ns->globals);
    free(ns->gnames);
}

static bool is_ident_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* _Namespace.create_name(candidate, obj); is_builtin says obj is the builtin
 * of that name (only the code generator's pre-registered globals). Returns an
 * arena string (or NULL out of memory). */
static const char *ns_create(fxns *ns, const char *candidate, bool is_builtin) {
    /* _name_regex: ^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$ ; otherwise
     * _illegal_char_regex.sub("_", ...), "_unnamed", "_" before a digit */
    eir_buf c;
    eir_buf_init(&c);
    bool legal = candidate[0] && !is_digit(candidate[0]);
    for (const char *q = candidate; *q && legal; q++) legal = is_ident_char(*q);
    if (legal) {
        eir_buf_puts(&c, candidate);
    } else {
        eir_buf s;
        eir_buf_init(&s);
        for (const char *q = candidate; *q;) {
            if (is_ident_char(*q)) { eir_buf_putc(&s, *q++); continue; }
            eir_buf_putc(&s, '_');
            while (*q && !is_ident_char(*q)) q++;
        }
        const char *sv = s.data ? s.data : "";
        if (!sv[0]) eir_buf_puts(&c, "_unnamed");
        else {
            if (is_digit(sv[0])) eir_buf_putc(&c, '_');
            eir_buf_puts(&c, sv);
        }
        eir_buf_free(&s);
    }
    char *cand = eir_arena_strdup(ns->arena, c.data ? c.data : "");
    eir_buf_free(&c);
    if (!cand) { ns->oom = true; return NULL; }
    /* base and the numeric suffix: the last "_<digits>" after at least one character */
    size_t len = strlen(cand), blen = len;
    bool has_num = false;
    {
        size_t k = len;
        while (k > 0 && is_digit(cand[k - 1])) k--;
        if (k < len && k >= 2 && cand[k - 1] == '_') { has_num = true; blen = k - 1; }
    }
    char *base = eir_arena_alloc(ns->arena, blen + 1);
    if (!base) { ns->oom = true; return NULL; }
    memcpy(base, cand, blen);
    base[blen] = 0;
    unsigned long long num;
    char buf[320];
    if (!has_num || eir_strmap_get(&ns->used, cand, NULL)) {
        uint32_t bc = 0;
        eir_strmap_get(&ns->base_count, base, &bc);
        num = bc;
        if (eir_fx_illegal_name(cand) && !is_builtin) {
            num++;
            snprintf(buf, sizeof buf, "%.300s_%llu", base, num);
            cand = eir_arena_strdup(ns->arena, buf);
            if (!cand) { ns->oom = true; return NULL; }
        }
    } else {
        num = strtoull(cand + blen + 1, NULL, 10);
    }
    while (eir_strmap_get(&ns->used, cand, NULL)) {
        num++;
        snprintf(buf, sizeof buf, "%.300s_%llu", base, num);
        cand = eir_arena_strdup(ns->arena, buf);
        if (!cand) { ns->oom = true; return NULL; }
    }
    if (!eir_strmap_put(&ns->used, cand, 1) ||
        !eir_strmap_put(&ns->base_count, base, num > UINT32_MAX ? UINT32_MAX : (uint32_t)num))
        ns->oom = true;
    return cand;
}

/* CodeGen's add_global(name_hint, obj) for an object that is not from
 * torch: the same object keeps its name. */
static const char *ns_global(fxns *ns, const char *target, const char *hint, bool is_builtin) {
    uint32_t idx;
    if (eir_strmap_get(&ns->globals, target, &idx)) return ns->gnames[idx];
    const char *name = ns_create(ns, hint, is_builtin);
    if (!name) return NULL;
    if (ns->nglobals == ns->capglobals) {
        uint32_t cap = ns->capglobals ? ns->capglobals * 2 : 16;
        const char **g = realloc(ns->gnames, cap * sizeof *g);
        if (!g) { ns->oom = true; return NULL; }
        ns->gnames = g;
        ns->capglobals = cap;
    }
    ns->gnames[ns->nglobals] = name;
    if (!eir_strmap_put(&ns->globals, target, ns->nglobals)) { ns->oom = true; return NULL; }
    ns->nglobals++;
    return name;
}

/* Graph._target_to_str of a serialized target: an OpOverload's __name__
 * ("split.Tensor"), a higher-order op's or function's __name__ (the last
 * dotted part), then _snake_case. */
static void target_to_str(eir_buf *b, const char *t) {
    const char *s = t;
    if (!strncmp(t, "torch.ops.", 10) && strncmp(t, "torch.ops.higher_order.", 23) != 0) {
        const char *ns_end = strchr(t + 10, '.');
        if (ns_end) s = ns_end + 1;
    } else {
        const char *dot = strrchr(t, '.');
        if (dot) s = dot + 1;
    }
    for (const char *q = s; *q; q++) {
        char ch = *q;
        if (ch >= 'A' && ch <= 'Z') {
            if (q > s && q[-1] >= 'a' && q[-1] <= 'z') eir_buf_putc(b, '_');
            ch = (char)(ch - 'A' + 'a');
        }
        eir_buf_putc(b, ch);
    }
}

/* ---- the FX view ---- */

typedef enum fa_kind {
    FA_NODE, FA_NONE, FA_INT, FA_FLOAT, FA_BOOL, FA_STR, FA_DTYPE, FA_MEMFMT, FA_LAYOUT, FA_DEVICE,
    FA_COMPLEX, FA_OP, FA_TUPLE, FA_LIST, FA_DICT,
} fa_kind;

typedef struct fxarg {
    fa_kind kind;
    uint32_t n;
    union {
        uint32_t node;
        int64_t i;
        double f;
        bool b;
        const char *s;
        eir_device dev;
        struct { double re, im; } c;
    } u;
    struct fxarg *items;
    const char **keys;
} fxarg;

typedef enum fx_op { FX_PLACEHOLDER, FX_GET_ATTR, FX_CALL, FX_OUTPUT } fx_op;

typedef struct fxnode {
    fx_op op;
    const char *name;
    const char *target;          /* serialized target; "_operator.getitem" for getitems */
    fxarg args, kwargs;          /* TUPLE and DICT */
    uint32_t nusers;
    const eir_value *val;        /* meta["val"] when it is a tensor or symbolic value */
    const eir_node *meta_from;   /* node whose metadata (stack trace, custom) this node carries */
    const eir_graph *subgraph;   /* get_attr of a nested graph */
} fxnode;

typedef struct fxsub {
    const char *name;
    const eir_graph *graph;
} fxsub;

typedef struct fxgraph {
    eir_program *p;
    eir_arena *arena;
    const eir_graph *g;
    fxnode *nodes;
    uint32_t n, cap;
    fxsub *subs;
    uint32_t nsubs, capsubs;
    int32_t *val2fx;
    fxns ns;                     /* the graph's _graph_namespace */
    const char **code_names;     /* names in the generated code (NULL: not yet asked) */
    fxns *code_ns;               /* the code generator's namespace, while it runs */
    bool oom;
} fxgraph;

/* Graph.create_node(name=candidate): the namespace picks a name; `final`,
 * when not NULL, is the name the deserializer then assigns (sync_fx_node). */
static uint32_t fx_add(fxgraph *fg, fx_op op, const char *candidate, const char *final, const char *target) {
    if (fg->n == fg->cap) {
        uint32_t cap = fg->cap ? fg->cap * 2 : 64;
        fxnode *nn = eir_arena_array(fg->arena, cap, sizeof *nn);
        if (!nn) { fg->oom = true; return 0; }
        if (fg->n) memcpy(nn, fg->nodes, fg->n * sizeof *nn);
        fg->nodes = nn;
        fg->cap = cap;
    }
    fxnode *x = &fg->nodes[fg->n];
    memset(x, 0, sizeof *x);
    x->op = op;
    const char *name = ns_create(&fg->ns, candidate, false);
    if (!name) { fg->oom = true; return 0; }
    if (final) name = final;
    x->name = name;
    x->target = target;
    x->args.kind = FA_TUPLE;
    x->kwargs.kind = FA_DICT;
    return fg->n++;
}

/* Node._rename(candidate) */
static void fx_rename(fxgraph *fg, uint32_t id, const char *candidate) {
    if (!strcmp(candidate, fg->nodes[id].name)) return;
    const char *name = ns_create(&fg->ns, candidate, false);
    if (!name) fg->oom = true;
    else fg->nodes[id].name = name;
}

static fxarg *alloc_items(fxgraph *fg, uint32_t n) {
    fxarg *it = eir_arena_array(fg->arena, n ? n : 1, sizeof *it);
    if (!it) fg->oom = true;
    return it;
}

static fxarg node_ref(fxgraph *fg, uint32_t value) {
    fxarg a = {FA_NONE, 0, {0}, NULL, NULL};
    if (value != EIR_NO_VALUE && fg->val2fx[value] >= 0) {
        a.kind = FA_NODE;
        a.u.node = (uint32_t)fg->val2fx[value];
    }
    return a;
}

static void register_sub(fxgraph *fg, const char *name, const eir_graph *g) {
    if (fg->nsubs == fg->capsubs) {
        uint32_t cap = fg->capsubs ? fg->capsubs * 2 : 8;
        fxsub *s = eir_arena_array(fg->arena, cap, sizeof *s);
        if (!s) { fg->oom = true; return; }
        if (fg->nsubs) memcpy(s, fg->subs, fg->nsubs * sizeof *s);
        fg->subs = s;
        fg->capsubs = cap;
    }
    fg->subs[fg->nsubs++] = (fxsub){name, g};
}

/* The Python value torch's deserialize_input makes of an argument. */
static fxarg conv_arg(fxgraph *fg, const eir_arg *a, const eir_node *owner) {
    fxarg r = {FA_NONE, 0, {0}, NULL, NULL};
    switch (a->kind) {
    case EIR_ARG_NONE: break;
    case EIR_ARG_TENSOR: return node_ref(fg, a->value);
    case EIR_ARG_OPTIONAL_TENSOR: return node_ref(fg, a->value);
    case EIR_ARG_INT: r.kind = FA_INT; r.u.i = a->u.i; break;
    case EIR_ARG_FLOAT: r.kind = FA_FLOAT; r.u.f = a->u.f; break;
    case EIR_ARG_BOOL: r.kind = FA_BOOL; r.u.b = a->u.b; break;
    case EIR_ARG_STRING: r.kind = FA_STR; r.u.s = a->u.s; break;
    case EIR_ARG_SCALAR_TYPE: r.kind = FA_DTYPE; r.u.i = a->u.i; break;
    case EIR_ARG_MEMORY_FORMAT: r.kind = FA_MEMFMT; r.u.i = a->u.i; break;
    case EIR_ARG_LAYOUT: r.kind = FA_LAYOUT; r.u.i = a->u.i; break;
    case EIR_ARG_DEVICE: r.kind = FA_DEVICE; r.u.dev = a->u.device; break;
    case EIR_ARG_COMPLEX: r.kind = FA_COMPLEX; r.u.c.re = a->u.c.re; r.u.c.im = a->u.c.im; break;
    case EIR_ARG_OPERATOR: r.kind = FA_OP; r.u.s = a->u.s; break;
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: case EIR_ARG_SYM_BOOL:
        if (!a->literal) return node_ref(fg, a->value);
        if (a->kind == EIR_ARG_SYM_INT) { r.kind = FA_INT; r.u.i = a->u.i; }
        else if (a->kind == EIR_ARG_SYM_FLOAT) { r.kind = FA_FLOAT; r.u.f = a->u.f; }
        else { r.kind = FA_BOOL; r.u.b = a->u.b; }
        break;
    case EIR_ARG_CUSTOM_OBJ:
        if (a->value != EIR_NO_VALUE) return node_ref(fg, a->value);
        r.kind = FA_STR;
        r.u.s = a->name;
        break;
    case EIR_ARG_GRAPH: {
        /* deserialize_input registers the submodule and creates a get_attr */
        register_sub(fg, a->u.graph.name, a->u.graph.graph);
        uint32_t id = fx_add(fg, FX_GET_ATTR, a->u.graph.name, NULL, a->u.graph.name);
        if (fg->oom) return r;
        fg->nodes[id].subgraph = a->u.graph.graph;
        fg->nodes[id].meta_from = owner;
        r.kind = FA_NODE;
        r.u.node = id;
        break;
    }
    case EIR_ARG_TENSORS: case EIR_ARG_INTS: case EIR_ARG_FLOATS: case EIR_ARG_BOOLS: case EIR_ARG_STRINGS:
    case EIR_ARG_SYM_INTS: case EIR_ARG_SYM_FLOATS: case EIR_ARG_SYM_BOOLS: case EIR_ARG_OPTIONAL_TENSORS:
    case EIR_ARG_NESTED_TENSORS: case EIR_ARG_INT_LISTS: case EIR_ARG_FLOAT_LISTS:
        r.kind = FA_LIST;
        r.n = a->u.list.n;
        r.items = alloc_items(fg, r.n);
        if (!r.items) return r;
        for (uint32_t i = 0; i < r.n; i++) {
            r.items[i] = conv_arg(fg, &a->u.list.items[i], owner);
            /* Triton-style grids: list of tuples */
            if (a->kind == EIR_ARG_INT_LISTS) r.items[i].kind = FA_TUPLE;
        }
        break;
    case EIR_ARG_STRING_TO_ARG:
        r.kind = FA_DICT;
        r.n = a->u.list.n;
        r.items = alloc_items(fg, r.n);
        r.keys = a->u.list.keys;
        if (!r.items) return r;
        for (uint32_t i = 0; i < r.n; i++) r.items[i] = conv_arg(fg, &a->u.list.items[i], owner);
        break;
    case EIR_ARG_KIND_COUNT: break;
    }
    return r;
}

static bool starts_with(const char *s, const char *pre) { return strncmp(s, pre, strlen(pre)) == 0; }

/* serialize.py's _SYM_OPS (as serialize_operator writes them) and aten.item */
static bool is_sym_op_target(const char *t) {
    static const char *const SYM_OPS[] = {"math.trunc", "torch._sym_sqrt", "torch.sym_float", "torch.sym_int",
                                          "torch.sym_ite", "torch.sym_max", "torch.sym_min", "torch.sym_not",
                                          "torch.ops.aten.item.default"};
    static const char *const OPERATOR_SYM[] = {"add", "and_", "eq", "floordiv", "ge", "gt", "le", "lshift",
                                               "lt", "mod", "mul", "ne", "neg", "or_", "pos", "pow",
                                               "rshift", "sub", "truediv"};
    for (size_t i = 0; i < sizeof SYM_OPS / sizeof *SYM_OPS; i++)
        if (!strcmp(t, SYM_OPS[i])) return true;
    if (starts_with(t, "_operator.") || starts_with(t, "operator.")) {
        const char *f = strchr(t, '.') + 1;
        for (size_t i = 0; i < sizeof OPERATOR_SYM / sizeof *OPERATOR_SYM; i++)
            if (!strcmp(f, OPERATOR_SYM[i])) return true;
    }
    return false;
}

static const eir_value *output_value(const fxgraph *fg, const eir_arg *a) {
    if (a->value == EIR_NO_VALUE) return NULL;
    return &fg->g->values[a->value];
}

static void set_val(fxgraph *fg, uint32_t fx, const eir_arg *a) {
    if (a->value != EIR_NO_VALUE) {
        fg->val2fx[a->value] = (int32_t)fx;
        fg->nodes[fx].val = output_value(fg, a);
    }
}

static void gen_getitems(fxgraph *fg, uint32_t parent, const eir_arg *items, uint32_t n, const eir_node *nd);

/* operator.getitem(parent, idx) created as `candidate` (renamed `final`),
 * carrying nd's metadata */
static uint32_t add_getitem(fxgraph *fg, uint32_t parent, uint32_t idx, const char *candidate, const char *final,
                            const eir_node *nd) {
    uint32_t id = fx_add(fg, FX_CALL, candidate, final, "_operator.getitem");
    fxarg *it = fg->oom ? NULL : alloc_items(fg, 2);
    if (!it) return UINT32_MAX;
    it[0] = (fxarg){FA_NODE, 0, {.node = parent}, NULL, NULL};
    it[1] = (fxarg){FA_INT, 0, {.i = idx}, NULL, NULL};
    fg->nodes[id].args.n = 2;
    fg->nodes[id].args.items = it;
    fg->nodes[id].meta_from = nd;
    return id;
}

static void gen_getitem_for(fxgraph *fg, uint32_t parent, const eir_arg *a, uint32_t idx, const eir_node *nd) {
    switch (a->kind) {
    case EIR_ARG_TENSOR: case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: {
        uint32_t id = add_getitem(fg, parent, idx, a->name, a->name, nd);
        if (id != UINT32_MAX) set_val(fg, id, a);
        break;
    }
    case EIR_ARG_NONE:
        add_getitem(fg, parent, idx, "as_none", NULL, nd);
        break;
    default: {
        /* a list element: an unnamed getitem, then getitems of it */
        uint32_t id = add_getitem(fg, parent, idx, "getitem", NULL, nd);
        if (id != UINT32_MAX &&
            (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_SYM_INTS || a->kind == EIR_ARG_SYM_FLOATS))
            gen_getitems(fg, id, a->u.list.items, a->u.list.n, nd);
        break;
    }
    }
}

static void gen_getitems(fxgraph *fg, uint32_t parent, const eir_arg *items, uint32_t n, const eir_node *nd) {
    for (uint32_t i = 0; i < n && !fg->oom; i++) gen_getitem_for(fg, parent, &items[i], i, nd);
}

static void build_node(fxgraph *fg, const eir_node *nd) {
    const char *t = nd->target;
    bool hop = starts_with(t, "torch.ops.higher_order.");
    /* other Python callables (predispatch vmap wrappers, autocast, grad mode)
     * take their inputs as deserialize_hoo_inputs does */
    bool hoo = hop || (!starts_with(t, "torch.ops.") && !is_sym_op_target(t));
    fxarg args = {FA_TUPLE, 0, {0}, NULL, NULL}, kwargs = {FA_DICT, 0, {0}, NULL, NULL};
    args.items = alloc_items(fg, nd->num_inputs);
    kwargs.items = alloc_items(fg, nd->num_inputs);
    kwargs.keys = eir_arena_array(fg->arena, nd->num_inputs ? nd->num_inputs : 1, sizeof(char *));
    if (!args.items || !kwargs.items || !kwargs.keys) { fg->oom = true; return; }
    bool symop = is_sym_op_target(t);
    for (uint32_t i = 0; i < nd->num_inputs; i++) {
        const eir_named_arg *na = &nd->inputs[i];
        fxarg v = conv_arg(fg, &na->arg, nd);
        bool positional = symop || na->kind == 1 || (hoo ? na->name[0] == 0 : na->kind == 0);
        if (positional) args.items[args.n++] = v;
        else { kwargs.keys[kwargs.n] = na->name; kwargs.items[kwargs.n++] = v; }
    }
    if (fg->oom) return;
    /* the node's name, or (older archives) its single output's; else FX
     * names it after the target */
    const char *name = nd->name;
    if (!name && nd->num_outputs == 1 && nd->outputs[0].name) name = nd->outputs[0].name;
    eir_buf tb;
    eir_buf_init(&tb);
    if (!name) {
        target_to_str(&tb, t);
        name = tb.data ? tb.data : "";
    }
    uint32_t id = fx_add(fg, FX_CALL, name, NULL, t);
    eir_buf_free(&tb);
    if (fg->oom) return;
    fg->nodes[id].args = args;
    fg->nodes[id].kwargs = kwargs;
    fg->nodes[id].meta_from = nd;

    /* outputs, as deserialize_outputs / deserialize_sym_op_outputs do */
    uint32_t no = nd->num_outputs;
    const eir_arg *o = nd->outputs;
    if (no == 0) return;
    if (symop) {
        if (o[0].name) fg->nodes[id].name = o[0].name;
        set_val(fg, id, &o[0]);
        return;
    }
    if (no == 1 && hop && nd->is_hop_single_tensor_return == 0 && o[0].kind != EIR_ARG_NONE) {
        gen_getitem_for(fg, id, &o[0], 0, nd);
        return;
    }
    if (no == 1 && (o[0].kind == EIR_ARG_TENSOR || o[0].kind == EIR_ARG_SYM_INT || o[0].kind == EIR_ARG_SYM_FLOAT ||
                    o[0].kind == EIR_ARG_SYM_BOOL)) {
        fg->nodes[id].name = o[0].name;
        set_val(fg, id, &o[0]);
        return;
    }
    if (no == 1 && o[0].kind == EIR_ARG_NONE) {
        /* fx_node._rename(f"{_target_to_str(target)}_unused") */
        eir_buf ub;
        eir_buf_init(&ub);
        target_to_str(&ub, t);
        eir_buf_puts(&ub, "_unused");
        fx_rename(fg, id, ub.data ? ub.data : "_unused");
        eir_buf_free(&ub);
        return;
    }
    if (no == 1) {
        if (o[0].kind == EIR_ARG_TENSORS) gen_getitems(fg, id, o[0].u.list.items, o[0].u.list.n, nd);
        return;
    }
    gen_getitems(fg, id, o, no, nd);
}

static void count_users_arg(fxgraph *fg, const fxarg *a, uint32_t user, uint32_t *last_seen) {
    switch (a->kind) {
    case FA_NODE:
        if (last_seen[a->u.node] != user + 1) {
            last_seen[a->u.node] = user + 1;
            fg->nodes[a->u.node].nusers++;
        }
        break;
    case FA_TUPLE: case FA_LIST: case FA_DICT:
        for (uint32_t i = 0; i < a->n; i++) count_users_arg(fg, &a->items[i], user, last_seen);
        break;
    default: break;
    }
}

static bool fx_build(fxgraph *fg, eir_program *p, eir_arena *arena, const eir_graph *g, bool root) {
    memset(fg, 0, sizeof *fg);
    fg->p = p;
    fg->arena = arena;
    fg->g = g;
    ns_init(&fg->ns, arena);
    fg->val2fx = eir_arena_array(arena, g->num_values ? g->num_values : 1, sizeof(int32_t));
    if (!fg->val2fx) return false;
    for (uint32_t i = 0; i < g->num_values; i++) fg->val2fx[i] = -1;

    for (uint32_t i = 0; i < g->num_inputs; i++) {
        const eir_arg *a = &g->inputs[i];
        const char *name;
        bool sync = false;       /* tensor and symbolic inputs keep their name even if FX calls it illegal */
        if (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_CUSTOM_OBJ || a->kind == EIR_ARG_SYM_INT ||
            a->kind == EIR_ARG_SYM_FLOAT || a->kind == EIR_ARG_SYM_BOOL) {
            name = a->name;
            sync = true;
        } else {
            const eir_input_spec *s = root && i < p->num_input_specs ? &p->input_specs[i] : NULL;
            if (s && s->kind == EIR_IN_CONSTANT_INPUT && s->target) name = s->target;
            else {
                char buf[32];
                snprintf(buf, sizeof buf, "arg%u", i);
                name = eir_arena_strdup(arena, buf);
            }
        }
        uint32_t id = fx_add(fg, FX_PLACEHOLDER, name, sync ? name : NULL, name);
        if (fg->oom) return false;
        set_val(fg, id, a);
    }
    for (uint32_t i = 0; i < g->num_nodes && !fg->oom; i++) build_node(fg, &g->nodes[i]);
    if (fg->oom) return false;

    uint32_t out = fx_add(fg, FX_OUTPUT, "output", NULL, "output");
    if (fg->oom) return false;
    fxarg res;
    if (g->is_single_tensor_return && g->num_outputs == 1) {
        res = conv_arg(fg, &g->outputs[0], NULL);
    } else {
        res.kind = FA_TUPLE;
        res.n = g->num_outputs;
        res.items = alloc_items(fg, res.n);
        res.keys = NULL;
        if (!res.items) return false;
        for (uint32_t i = 0; i < res.n; i++) res.items[i] = conv_arg(fg, &g->outputs[i], NULL);
    }
    fxarg *wrap = alloc_items(fg, 1);
    if (!wrap) return false;
    wrap[0] = res;
    fg->nodes[out].args.n = 1;
    fg->nodes[out].args.items = wrap;

    uint32_t *last_seen = eir_arena_array(arena, fg->n, sizeof *last_seen);
    if (!last_seen) return false;
    for (uint32_t i = 0; i < fg->n; i++) {
        count_users_arg(fg, &fg->nodes[i].args, i, last_seen);
        count_users_arg(fg, &fg->nodes[i].kwargs, i, last_seen);
    }
    return !fg->oom;
}

static void fx_free(fxgraph *fg) { ns_free(&fg->ns); }

/* ---- value formatting ---- */

static const char *dtype_torch_name(int64_t code) {
    const char *n = eir_dtype_name((eir_dtype)code);
    return n ? n : "unknown";
}

static const char *memfmt_name(int64_t c) {
    static const char *const n[] = {"torch.unknown_format", "torch.contiguous_format", "torch.channels_last",
                                    "torch.channels_last_3d", "torch.preserve_format"};
    return c >= 0 && c < 5 ? n[c] : "torch.unknown_format";
}

static const char *layout_name(int64_t c) {
    static const char *const n[] = {"torch.unknown_layout", "torch.sparse_coo", "torch.sparse_csr",
                                    "torch.sparse_csc", "torch.sparse_bsr", "torch.sparse_bsc", "torch._mkldnn",
                                    "torch.strided"};
    return c >= 0 && c < 8 ? n[c] : "torch.unknown_layout";
}

/* Python formats complex parts with repr() but without a forced ".0". */
static void put_complex_part(eir_buf *b, double v) {
    eir_buf tmp;
    eir_buf_init(&tmp);
    eir_buf_put_pyfloat(&tmp, v);
    const char *s = tmp.data ? tmp.data : "";
    size_t n = strlen(s);
    if (n > 2 && !strcmp(s + n - 2, ".0")) n -= 2;
    eir_buf_putn(b, s, n);
    eir_buf_free(&tmp);
}

static void put_complex(eir_buf *b, double re, double im) {
    if (re == 0 && !signbit(re)) {
        put_complex_part(b, im);
        eir_buf_putc(b, 'j');
        return;
    }
    eir_buf_putc(b, '(');
    put_complex_part(b, re);
    if (!(im < 0) && !signbit(im)) eir_buf_putc(b, '+');
    put_complex_part(b, im);
    eir_buf_puts(b, "j)");
}

/* Operator strings: str(OpOverload) is "aten.add.Tensor"; code uses the
 * qualified "torch.ops.aten.add.Tensor". */
static void put_op(eir_buf *b, const char *s, bool qualified) {
    if (!qualified && starts_with(s, "torch.ops.")) s += 10;
    eir_buf_puts(b, s);
}

typedef enum fmt_mode { FMT_GRAPH, FMT_CODE, FMT_REPR } fmt_mode;

/* repr(node) while the code generator runs (its node_repr): the name the
 * code namespace gives the node the first time it is printed. */
static const char *code_name(const fxgraph *fg, uint32_t id) {
    if (!fg->code_names) return fg->nodes[id].name;
    if (!fg->code_names[id]) {
        const char *nm = ns_create(fg->code_ns, fg->nodes[id].name, false);
        fg->code_names[id] = nm ? nm : fg->nodes[id].name;
    }
    return fg->code_names[id];
}

/* FMT_GRAPH: fx.node._format_arg (nodes as %name, strings unquoted).
 * FMT_REPR: Python repr() (nodes as name) — the output line of str(graph).
 * FMT_CODE: CodeGen._get_repr (repr-like, devices as device(type=...)). */
static void put_arg(eir_buf *b, const fxgraph *fg, const fxarg *a, fmt_mode m) {
    switch (a->kind) {
    case FA_NODE:
        if (m == FMT_GRAPH) eir_buf_putc(b, '%');
        eir_buf_puts(b, m == FMT_CODE ? code_name(fg, a->u.node) : fg->nodes[a->u.node].name);
        break;
    case FA_NONE: eir_buf_puts(b, "None"); break;
    case FA_INT: eir_buf_printf(b, "%lld", (long long)a->u.i); break;
    case FA_FLOAT: eir_buf_put_pyfloat(b, a->u.f); break;
    case FA_BOOL: eir_buf_puts(b, a->u.b ? "True" : "False"); break;
    case FA_STR:
        if (m == FMT_GRAPH) eir_buf_puts(b, a->u.s);
        else eir_buf_put_pyrepr_str(b, a->u.s);
        break;
    case FA_DTYPE: eir_buf_printf(b, "torch.%s", dtype_torch_name(a->u.i)); break;
    case FA_MEMFMT: eir_buf_puts(b, memfmt_name(a->u.i)); break;
    case FA_LAYOUT: eir_buf_puts(b, layout_name(a->u.i)); break;
    case FA_DEVICE:
        if (m == FMT_GRAPH) {
            eir_buf_puts(b, a->u.dev.type);
            if (a->u.dev.index >= 0) eir_buf_printf(b, ":%lld", (long long)a->u.dev.index);
        } else {
            eir_buf_printf(b, "device(type='%s'", a->u.dev.type);
            if (a->u.dev.index >= 0) eir_buf_printf(b, ", index=%lld", (long long)a->u.dev.index);
            eir_buf_putc(b, ')');
        }
        break;
    case FA_COMPLEX: put_complex(b, a->u.c.re, a->u.c.im); break;
    case FA_OP: put_op(b, a->u.s, m == FMT_CODE); break;
    case FA_TUPLE:
        eir_buf_putc(b, '(');
        for (uint32_t i = 0; i < a->n; i++) {
            if (i) eir_buf_puts(b, ", ");
            put_arg(b, fg, &a->items[i], m);
        }
        if (a->n == 1) eir_buf_putc(b, ',');
        eir_buf_putc(b, ')');
        break;
    case FA_LIST:
        eir_buf_putc(b, '[');
        for (uint32_t i = 0; i < a->n; i++) {
            if (i) eir_buf_puts(b, ", ");
            put_arg(b, fg, &a->items[i], m);
        }
        eir_buf_putc(b, ']');
        break;
    case FA_DICT:
        eir_buf_putc(b, '{');
        for (uint32_t i = 0; i < a->n; i++) {
            if (i) eir_buf_puts(b, ", ");
            if (m == FMT_GRAPH) eir_buf_puts(b, a->keys[i]);
            else eir_buf_put_pyrepr_str(b, a->keys[i]);
            eir_buf_puts(b, ": ");
            put_arg(b, fg, &a->items[i], m);
        }
        eir_buf_putc(b, '}');
        break;
    }
}

/* _pretty_print_target */
static void put_target_pretty(eir_buf *b, const char *t) {
    if (starts_with(t, "_operator.")) {
        eir_buf_puts(b, "operator.");
        eir_buf_puts(b, t + 10);
    } else {
        eir_buf_puts(b, t);
    }
}

/* ---- print(ep.graph) ---- */

static void print_graph(eir_buf *b, const fxgraph *fg) {
    eir_buf_puts(b, "graph():");
    for (uint32_t i = 0; i < fg->n; i++) {
        const fxnode *x = &fg->nodes[i];
        eir_buf_puts(b, "\n    ");
        switch (x->op) {
        case FX_PLACEHOLDER:
            eir_buf_printf(b, "%%%s : [num_users=%u] = placeholder[target=%s]", x->name, x->nusers, x->target);
            break;
        case FX_GET_ATTR:
            eir_buf_printf(b, "%%%s : [num_users=%u] = get_attr[target=%s]", x->name, x->nusers, x->target);
            break;
        case FX_CALL:
            eir_buf_printf(b, "%%%s : [num_users=%u] = call_function[target=", x->name, x->nusers);
            put_target_pretty(b, x->target);
            eir_buf_puts(b, "](args = ");
            put_arg(b, fg, &x->args, FMT_GRAPH);
            eir_buf_puts(b, ", kwargs = ");
            put_arg(b, fg, &x->kwargs, FMT_GRAPH);
            eir_buf_putc(b, ')');
            break;
        case FX_OUTPUT:
            eir_buf_puts(b, "return ");
            put_arg(b, fg, &x->args.items[0], FMT_REPR);
            break;
        }
    }
}

/* ---- code generation (CodeGen._gen_python_code) ---- */

static const struct { const char *name, *fmt; } MAGIC[] = {
    {"add", "{} + {}"}, {"sub", "{} - {}"}, {"mul", "{} * {}"}, {"floordiv", "{} // {}"},
    {"truediv", "{} / {}"}, {"div", "{} / {}"}, {"mod", "{} % {}"}, {"pow", "{} ** {}"},
    {"lshift", "{} << {}"}, {"rshift", "{} >> {}"}, {"and_", "{} & {}"}, {"or_", "{} | {}"},
    {"xor", "{} ^ {}"}, {"getitem", "{}[{}]"}, {"matmul", "{} @ {}"}, {"eq", "{} == {}"},
    {"ne", "{} != {}"}, {"lt", "{} < {}"}, {"gt", "{} > {}"}, {"le", "{} <= {}"}, {"ge", "{} >= {}"},
    {"pos", "+{}"}, {"neg", "-{}"}, {"invert", "~{}"},
};

static const char *magic_fmt(const char *target) {
    if (!starts_with(target, "_operator.")) return NULL;
    for (size_t i = 0; i < EIR_ARRAY_LEN(MAGIC); i++)
        if (!strcmp(target + 10, MAGIC[i].name)) return MAGIC[i].fmt;
    return NULL;
}

static void put_sym_str(eir_buf *b, const eir_program *p, const eir_symint *s) {
    if (s->is_expr) eir_buf_puts(b, p->exprs[s->expr].str);
    else eir_buf_printf(b, "%lld", (long long)s->value);
}

/* The verbose annotation: ': "f32[s77, 4]"' or ': "Sym(s0)"', or nothing. */
static void put_annotation(eir_buf *b, const eir_program *p, const eir_value *v) {
    if (!v) return;
    if (v->kind == EIR_VALUE_TENSOR) {
        if (v->meta.layout == EIR_LAYOUT_SPARSE_CSR || v->meta.layout == EIR_LAYOUT_SPARSE_CSC) return;
        const char *ab = eir_dtype_abbr(v->meta.dtype);
        eir_buf_printf(b, ": \"%s[", ab ? ab : "?");
        for (uint32_t i = 0; i < v->meta.rank; i++) {
            if (i) eir_buf_puts(b, ", ");
            put_sym_str(b, p, &v->meta.sizes[i]);
        }
        eir_buf_puts(b, "]\"");
    } else if ((v->kind == EIR_VALUE_SYM_INT || v->kind == EIR_VALUE_SYM_BOOL || v->kind == EIR_VALUE_SYM_FLOAT) &&
               v->sym.is_expr) {
        eir_buf_printf(b, ": \"Sym(%s)\"", p->exprs[v->sym.expr].str);
    }
}

static const char *node_meta(const eir_node *nd, const char *key) {
    if (!nd) return NULL;
    for (uint32_t i = 0; i < nd->num_metadata; i++)
        if (!strcmp(nd->metadata[i].key, key)) return nd->metadata[i].value;
    return NULL;
}

/* meta["custom"] = json.loads(text); printed as a Python dict whose long
 * values are cut to 40 characters. */
static void put_pyrepr_json(eir_buf *b, const jdoc *d, jv v, bool as_str, eir_arena *ar) {
    switch (jdoc_type(d, v)) {
    case JT_OBJECT:
        eir_buf_putc(b, '{');
        for (uint32_t i = 0; i < jdoc_size(d, v); i++) {
            if (i) eir_buf_puts(b, ", ");
            const char *k = jdoc_str(d, jdoc_key(d, v, i), ar, NULL, NULL);
            eir_buf_put_pyrepr_str(b, k ? k : "");
            eir_buf_puts(b, ": ");
            put_pyrepr_json(b, d, jdoc_val(d, v, i), false, ar);
        }
        eir_buf_putc(b, '}');
        break;
    case JT_ARRAY:
        eir_buf_putc(b, '[');
        for (uint32_t i = 0; i < jdoc_size(d, v); i++) {
            if (i) eir_buf_puts(b, ", ");
            put_pyrepr_json(b, d, jdoc_at(d, v, i), false, ar);
        }
        eir_buf_putc(b, ']');
        break;
    case JT_STRING: {
        const char *s = jdoc_str(d, v, ar, NULL, NULL);
        if (as_str) eir_buf_puts(b, s ? s : "");
        else eir_buf_put_pyrepr_str(b, s ? s : "");
        break;
    }
    case JT_INTEGER: {
        int64_t x;
        if (jdoc_int(d, v, &x)) eir_buf_printf(b, "%lld", (long long)x);
        else eir_buf_put_pyfloat(b, jdoc_num(d, v));
        break;
    }
    case JT_REAL: eir_buf_put_pyfloat(b, jdoc_num(d, v)); break;
    case JT_TRUE: eir_buf_puts(b, "True"); break;
    case JT_FALSE: eir_buf_puts(b, "False"); break;
    default: eir_buf_puts(b, "None"); break;
    }
}

static void put_custom_annotation(eir_buf *b, const char *custom) {
    jdoc d;
    char err[256];
    if (!jdoc_parse(&d, custom, strlen(custom), 64, err, sizeof err)) return;
    eir_arena ar;
    eir_arena_init(&ar);
    if (jdoc_type(&d, 0) == JT_OBJECT && jdoc_size(&d, 0) > 0) {
        eir_buf_puts(b, " Annotation: {");
        for (uint32_t i = 0; i < jdoc_size(&d, 0); i++) {
            if (i) eir_buf_puts(b, ", ");
            const char *k = jdoc_str(&d, jdoc_key(&d, 0, i), &ar, NULL, NULL);
            eir_buf_put_pyrepr_str(b, k ? k : "");
            eir_buf_puts(b, ": ");
            jv x = jdoc_val(&d, 0, i);
            eir_buf s;
            eir_buf_init(&s);
            put_pyrepr_json(&s, &d, x, true, &ar);
            const char *sv = s.data ? s.data : "";
            if (strlen(sv) > 40) {
                /* str(value)[:40] + "..." is a str, shown with repr */
                char cut[48];
                memcpy(cut, sv, 40);
                strcpy(cut + 40, "...");
                eir_buf_put_pyrepr_str(b, cut);
            } else {
                put_pyrepr_json(b, &d, x, false, &ar);
            }
            eir_buf_free(&s);
        }
        eir_buf_putc(b, '}');
    }
    eir_arena_release(&ar);
    jdoc_free(&d);
}

typedef struct strlist {
    char **items;
    size_t n, cap;
    bool oom;
} strlist;

static void sl_push(strlist *l, eir_buf *b) {
    char *s = eir_buf_take(b);
    if (!s) { l->oom = true; return; }
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 64;
        char **it = realloc(l->items, cap * sizeof *it);
        if (!it) { free(s); l->oom = true; return; }
        l->items = it;
        l->cap = cap;
    }
    l->items[l->n++] = s;
}

static void sl_pushs(strlist *l, const char *s) {
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_puts(&b, s);
    sl_push(l, &b);
}

static void sl_free(strlist *l) {
    for (size_t i = 0; i < l->n; i++) free(l->items[i]);
    free(l->items);
    memset(l, 0, sizeof *l);
}

static void collect_inputs(const fxarg *a, uint32_t *order, uint32_t *n, uint8_t *seen) {
    switch (a->kind) {
    case FA_NODE:
        if (!seen[a->u.node]) { seen[a->u.node] = 1; order[(*n)++] = a->u.node; }
        break;
    case FA_TUPLE: case FA_LIST: case FA_DICT:
        for (uint32_t i = 0; i < a->n; i++) collect_inputs(&a->items[i], order, n, seen);
        break;
    default: break;
    }
}

/* Python source of the graph's forward(): "\n\n\ndef forward(self, ...):\n    ...\n    " */
static char *gen_code(fxgraph *fg, bool verbose) {
    const eir_program *p = fg->p;
    uint32_t n = fg->n;
    strlist body = {0};
    eir_buf b;
    eir_buf_init(&b);
    char *result = NULL;

    /* the code generator's namespace, pre-filled with its builtins */
    fxns cns;
    ns_init(&cns, fg->arena);
    for (size_t i = 0; i < sizeof CUSTOM_BUILTINS / sizeof *CUSTOM_BUILTINS; i++)
        ns_global(&cns, CUSTOM_BUILTINS[i], CUSTOM_BUILTINS[i], true);
    fg->code_ns = &cns;
    fg->code_names = eir_arena_array(fg->arena, n ? n : 1, sizeof *fg->code_names);

    /* last uses: scan nodes in reverse; each input's first sighting is its
     * last use. Every value has one last user, so the per-user lists are
     * threaded through one next[] array. */
    int32_t *last_user = malloc((n ? n : 1) * sizeof *last_user);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order);
    uint8_t *seen = calloc(n ? n : 1, 1);
    int32_t *head = malloc((n ? n : 1) * sizeof *head);
    int32_t *tail = malloc((n ? n : 1) * sizeof *tail);
    int32_t *next = malloc((n ? n : 1) * sizeof *next);
    if (!last_user || !order || !seen || !head || !tail || !next) goto out;
    for (uint32_t i = 0; i < n; i++) last_user[i] = head[i] = tail[i] = next[i] = -1;
    for (uint32_t k = n; k-- > 0;) {
        const fxnode *x = &fg->nodes[k];
        uint32_t cnt = 0;
        collect_inputs(&x->args, order, &cnt, seen);
        collect_inputs(&x->kwargs, order, &cnt, seen);
        for (uint32_t j = 0; j < cnt; j++) {
            uint32_t in = order[j];
            seen[in] = 0;
            if (last_user[in] >= 0) continue;
            last_user[in] = (int32_t)k;
            if (tail[k] < 0) head[k] = (int32_t)in;
            else next[tail[k]] = (int32_t)in;
            tail[k] = (int32_t)in;
        }
    }

    eir_buf params;
    eir_buf_init(&params);
    eir_buf_puts(&params, "self");
    eir_buf prev_summary;
    eir_buf_init(&prev_summary);
    bool have_prev = false;

    for (uint32_t k = 0; k < n; k++) {
        const fxnode *x = &fg->nodes[k];
        if (verbose && x->op != FX_PLACEHOLDER && x->op != FX_OUTPUT) {
            eir_buf sum;
            eir_buf_init(&sum);
            eir_buf_puts(&sum, "\n#");
            const char *custom = node_meta(x->meta_from, "custom");
            if (custom) put_custom_annotation(&sum, custom);
            eir_buf_putc(&sum, ' ');
            const char *st = node_meta(x->meta_from, "stack_trace");
            if (!(st && st[0] && eir_stack_summary(&sum, st)))
                eir_buf_puts(&sum, "No stacktrace found for following nodes");
            eir_buf_putc(&sum, '\n');
            const char *ss = sum.data ? sum.data : "";
            if (!have_prev || strcmp(ss, prev_summary.data ? prev_summary.data : "") != 0) {
                eir_buf_free(&prev_summary);
                eir_buf_init(&prev_summary);
                eir_buf_puts(&prev_summary, ss);
                have_prev = true;
                sl_pushs(&body, ss);
            }
            eir_buf_free(&sum);
        }
        eir_buf line;
        eir_buf_init(&line);
        switch (x->op) {
        case FX_PLACEHOLDER:
            eir_buf_puts(&params, ", ");
            eir_buf_puts(&params, x->target);
            if (verbose) put_annotation(&params, p, x->val);
            const char *cn = code_name(fg, k);
            if (strcmp(cn, x->target) != 0) {
                eir_buf_printf(&line, "%s = %s\n", cn, x->target);
                sl_push(&body, &line);
            }
            eir_buf_free(&line);
            continue;
        case FX_GET_ATTR:
            eir_buf_puts(&line, code_name(fg, k));
            eir_buf_puts(&line, " = self.");
            eir_buf_puts(&line, x->target);
            break;
        case FX_CALL: {
            const char *mf = magic_fmt(x->target);
            /* other globals get a name from the namespace first (math.trunc -> math_trunc) */
            const char *global = NULL;
            if (!(mf && x->kwargs.n == 0) && !starts_with(x->target, "torch."))
                global = ns_global(&cns, x->target, x->target, false);
            eir_buf_puts(&line, code_name(fg, k));
            if (verbose) put_annotation(&line, p, x->val);
            eir_buf_puts(&line, " = ");
            if (mf && x->kwargs.n == 0) {
                uint32_t ai = 0;
                for (const char *q = mf; *q; q++) {
                    if (q[0] == '{' && q[1] == '}') {
                        if (ai < x->args.n) put_arg(&line, fg, &x->args.items[ai], FMT_CODE);
                        ai++;
                        q++;
                    } else {
                        eir_buf_putc(&line, *q);
                    }
                }
            } else {
                eir_buf_puts(&line, global ? global : x->target);
                eir_buf_putc(&line, '(');
                for (uint32_t i = 0; i < x->args.n; i++) {
                    if (i) eir_buf_puts(&line, ", ");
                    put_arg(&line, fg, &x->args.items[i], FMT_CODE);
                }
                for (uint32_t i = 0; i < x->kwargs.n; i++) {
                    if (i || x->args.n) eir_buf_puts(&line, ", ");
                    eir_buf_printf(&line, "%s = ", x->kwargs.keys[i]);
                    put_arg(&line, fg, &x->kwargs.items[i], FMT_CODE);
                }
                eir_buf_putc(&line, ')');
            }
            break;
        }
        case FX_OUTPUT:
            eir_buf_puts(&line, "return ");
            put_arg(&line, fg, &x->args.items[0], FMT_CODE);
            sl_push(&body, &line);
            sl_pushs(&body, "\n");
            continue;
        }
        /* delete_unused_values */
        bool self_del = x->nusers == 0;
        if (head[k] >= 0 || self_del) {
            eir_buf_puts(&line, ";  ");
            for (int32_t j = head[k]; j >= 0; j = next[j]) {
                eir_buf_puts(&line, code_name(fg, (uint32_t)j));
                eir_buf_puts(&line, " = ");
            }
            if (self_del) {
                eir_buf_puts(&line, code_name(fg, k));
                eir_buf_puts(&line, " = ");
            }
            eir_buf_puts(&line, "None\n");
        } else {
            eir_buf_putc(&line, '\n');
        }
        sl_push(&body, &line);
    }
    eir_buf_free(&prev_summary);
    if (body.n == 0) sl_pushs(&body, "pass\n");

    /* join, strip leading newlines, indent every line by 4 */
    eir_buf joined;
    eir_buf_init(&joined);
    for (size_t i = 0; i < body.n; i++) eir_buf_puts(&joined, body.items[i]);
    const char *js = joined.data ? joined.data : "";
    while (*js == '\n') js++;
    eir_buf_puts(&b, "\n\n\ndef forward(");
    eir_buf_puts(&b, params.data ? params.data : "self");
    eir_buf_puts(&b, "):\n    ");
    for (const char *q = js; *q; q++) {
        eir_buf_putc(&b, *q);
        if (*q == '\n') eir_buf_puts(&b, "    ");
    }
    eir_buf_free(&joined);
    eir_buf_free(&params);
    if (!body.oom && !cns.oom && fg->code_names) result = eir_buf_take(&b);
out:
    fg->code_ns = NULL;
    fg->code_names = NULL;
    ns_free(&cns);
    free(last_user);
    free(order);
    free(seen);
    free(head);
    free(tail);
    free(next);
    sl_free(&body);
    eir_buf_free(&b);
    return result;
}

/* nn.Module._addindent: indent every line after the first; blank (all
 * whitespace) lines become empty. */
static void addindent(eir_buf *out, const char *s, int spaces) {
    const char *nl = strchr(s, '\n');
    if (!nl) { eir_buf_puts(out, s); return; }
    eir_buf_putn(out, s, (size_t)(nl - s));
    const char *line = nl + 1;
    for (;;) {
        eir_buf_putc(out, '\n');
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        bool blank = true;
        for (size_t i = 0; i < len; i++)
            if (!eir_is_pyspace(line[i])) { blank = false; break; }
        if (!blank) {
            for (int i = 0; i < spaces; i++) eir_buf_putc(out, ' ');
            eir_buf_putn(out, line, len);
        }
        if (!end) break;
        line = end + 1;
    }
}

/* GraphModule.print_readable(print_output=False) */
static char *print_readable(eir_program *p, eir_arena *arena, const eir_graph *g, const char *cls, bool root) {
    fxgraph fg;
    char *res = NULL;
    if (!fx_build(&fg, p, arena, g, root)) { fx_free(&fg); return NULL; }
    char *code = gen_code(&fg, true);
    if (!code) { fx_free(&fg); return NULL; }
    eir_buf mc;
    eir_buf_init(&mc);
    eir_buf_printf(&mc, "class %s(torch.nn.Module):\n", cls);
    const char *c = code;
    while (*c == '\n') c++;
    eir_buf_puts(&mc, c);
    free(code);
    eir_buf out;
    eir_buf_init(&out);
    addindent(&out, mc.data ? mc.data : "", 4);
    eir_buf_free(&mc);
    /* children, in registration order, each after a newline */
    eir_buf subs;
    eir_buf_init(&subs);
    bool ok = true;
    for (uint32_t i = 0; i < fg.nsubs; i++) {
        char *s = print_readable(p, arena, fg.subs[i].graph, fg.subs[i].name, false);
        if (!s) { ok = false; break; }
        eir_buf_putc(&subs, '\n');
        eir_buf_puts(&subs, s);
        free(s);
    }
    if (ok) {
        if (subs.data) addindent(&out, subs.data, 4);
        res = eir_buf_take(&out);
    }
    eir_buf_free(&subs);
    eir_buf_free(&out);
    fx_free(&fg);
    return res;
}

static void put_replace_nl(eir_buf *b, const char *s, const char *with) {
    for (const char *q = s; *q; q++) {
        if (*q == '\n') eir_buf_puts(b, with);
        else eir_buf_putc(b, *q);
    }
}

static const char *const IN_KIND[] = {"USER_INPUT", "PARAMETER", "BUFFER", "CONSTANT_TENSOR",
                                      "CUSTOM_OBJ", "TOKEN", "USER_INPUT"};
static const char *const OUT_KIND[] = {"USER_OUTPUT", "LOSS_OUTPUT", "BUFFER_MUTATION", "GRADIENT_TO_PARAMETER",
                                       "GRADIENT_TO_USER_INPUT", "USER_INPUT_MUTATION", "TOKEN",
                                       "PARAMETER_MUTATION"};

static const char *spec_arg_name(const eir_arg *a) {
    if (a->name) return a->name;
    return "";
}

static void print_signature(eir_buf *b, const eir_program *p) {
    eir_buf_puts(b, "\n# inputs\n");
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if (i) eir_buf_putc(b, '\n');
        const char *name = s->kind == EIR_IN_CONSTANT_INPUT ? s->target : spec_arg_name(&s->arg);
        eir_buf_printf(b, "%s: %s", name, IN_KIND[s->kind]);
        if (s->kind != EIR_IN_USER_INPUT && s->kind != EIR_IN_CONSTANT_INPUT && s->kind != EIR_IN_TOKEN &&
            s->target)
            eir_buf_printf(b, " target='%s'", s->target);
        if (s->persistent >= 0) eir_buf_printf(b, " persistent=%s", s->persistent ? "True" : "False");
    }
    eir_buf_puts(b, "\n\n# outputs\n");
    for (uint32_t i = 0; i < p->num_output_specs; i++) {
        const eir_output_spec *s = &p->output_specs[i];
        if (i) eir_buf_putc(b, '\n');
        eir_buf_printf(b, "%s: %s", spec_arg_name(&s->arg), OUT_KIND[s->kind]);
        if (s->target) eir_buf_printf(b, " target='%s'", s->target);
    }
    eir_buf_putc(b, '\n');
}

static void print_ranges(eir_buf *b, const eir_program *p) {
    eir_buf_putc(b, '{');
    bool first = true;
    for (uint32_t i = 0; i < p->num_ranges; i++) {
        const eir_range *r = &p->ranges[i];
        if (!eir_program_range_in_graph(p, i)) continue;
        if (!first) eir_buf_puts(b, ", ");
        first = false;
        eir_buf_printf(b, "%s: VR[", r->symbol);
        if (r->has_min) eir_buf_printf(b, "%lld", (long long)r->min);
        else eir_buf_puts(b, "-int_oo");
        eir_buf_puts(b, ", ");
        if (r->has_max) eir_buf_printf(b, "%lld", (long long)r->max);
        else eir_buf_puts(b, "int_oo");
        eir_buf_putc(b, ']');
    }
    eir_buf_putc(b, '}');
}

eir_status eir_program_print(eir_program *p, eir_print_form form, char **out) {
    if (!p || !out) return EIR_ERR_ARG;
    *out = NULL;
    if (!p->graph) return eir_fail(p, EIR_ERR_ARG, "program has no graph (it failed to load)");
    eir_arena arena;
    eir_arena_init(&arena);
    eir_buf b;
    eir_buf_init(&b);
    eir_status st = EIR_OK;
    if (form == EIR_PRINT_GRAPH) {
        fxgraph fg;
        if (!fx_build(&fg, p, &arena, p->graph, true)) st = EIR_ERR_NOMEM;
        else print_graph(&b, &fg);
        fx_free(&fg);
        eir_buf_putc(&b, '\n');
    } else if (form == EIR_PRINT_CODE) {
        fxgraph fg;
        char *code = NULL;
        if (fx_build(&fg, p, &arena, p->graph, true)) code = gen_code(&fg, false);
        fx_free(&fg);
        if (!code) st = EIR_ERR_NOMEM;
        else { eir_buf_puts(&b, code); eir_buf_putc(&b, '\n'); free(code); }
    } else if (form == EIR_PRINT_PROGRAM) {
        char *gm = print_readable(p, &arena, p->graph, "GraphModule", true);
        if (!gm) st = EIR_ERR_NOMEM;
        else {
            eir_buf_puts(&b, "ExportedProgram:\n    ");
            put_replace_nl(&b, gm, "\n    ");
            free(gm);
            eir_buf_puts(&b, "\nGraph signature: ");
            eir_buf sig;
            eir_buf_init(&sig);
            print_signature(&sig, p);
            put_replace_nl(&b, sig.data ? sig.data : "", "\n    ");
            eir_buf_free(&sig);
            eir_buf_puts(&b, "\nRange constraints: ");
            print_ranges(&b, p);
            eir_buf_puts(&b, "\n\n");
        }
    } else {
        st = eir_fail(p, EIR_ERR_ARG, "unknown print form %d", (int)form);
    }
    eir_arena_release(&arena);
    if (st == EIR_OK) {
        *out = eir_buf_take(&b);
        if (!*out) st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    } else {
        eir_buf_free(&b);
        if (st == EIR_ERR_NOMEM) eir_fail(p, st, "out of memory while printing");
    }
    return st;
}
