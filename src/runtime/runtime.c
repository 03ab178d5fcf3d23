/* runtime.c — run an exported program: bind once, plan, run a flat loop.
 *
 * Bind (eir_runtime_create): every node of the root graph becomes a step —
 * a kernel call with arguments decoded against the op's ATen schema, a view
 * (the output shares its input's storage; geometry from the recorded
 * metadata), a symbolic-int computation, or a runtime assertion. Every
 * operator without an implementation is reported at once.
 *
 * Plan (on the first run and whenever input shapes change): evaluate the
 * recorded sizes/strides (symbolic ones from the symbols bound by the
 * inputs), then place every intermediate storage into one arena by value
 * lifetimes (greedy, largest first, first fit); inputs, parameters and
 * outputs are pinned.
 *
 * Run: refresh symbolic arguments, call the steps in order; nothing is
 * allocated while shapes stay the same. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/program.h"
#include "../kernels/kutil.h"
#include "../kernels/tables.h"
#include "../ops/optable.h"

enum { STEP_KERNEL, STEP_VIEW, STEP_COPY, STEP_SYM, STEP_ASSERT, STEP_NOOP, STEP_HOP, STEP_NONZERO, STEP_ITEM, STEP_CUSTOM };
enum { HOP_COND, HOP_WHILE, HOP_MAP, HOP_SCAN };

typedef struct rt_value {
    eir_tview view;            /* geometry + data pointer (after planning) */
    int64_t offset;            /* storage offset in elements */
    int32_t storage;           /* -1 for non-tensors */
    bool is_tensor;
    int64_t symval;            /* SYM_INT / SYM_BOOL values */
    bool sym_set;
    bool deferred;             /* shape depends on data (unbacked symbols): resolved during the run */
    bool resolved;
} rt_value;

typedef struct rt_storage {
    uint64_t nbytes;
    void *ext;                 /* external data (user input, archive payload, private copy) */
    void *owned;               /* private copy we free */
    int64_t arena_off;         /* planned offset, or -1 */
    int32_t first, last;       /* lifetime in steps */
    bool external, pinned;
    bool deferred;             /* sized during the run; lives in dyn */
    void *dyn;
    uint64_t dyn_bytes;
} rt_storage;

typedef struct rt_patch {
    uint32_t arg;
    int32_t elem;              /* -1: scalar argument */
    uint32_t value;
} rt_patch;

typedef struct rt_step {
    const eir_node *node;
    int kind;
    eir_kernel_fn fn;
    const eir_op_schema *schema;
    eir_karg *args;
    uint32_t nargs;
    uint32_t *outs;            /* value ids of the outputs (flattened) */
    uint32_t nout;
    eir_tview *outv;
    rt_patch *patches;
    uint32_t npatches;
    uint32_t src;              /* VIEW/COPY: source value */
    /* STEP_HOP: the subgraphs' runtimes and the operand lists, in argument order */
    int hop;
    struct eir_runtime *sub[2];
    const eir_arg *lists[4];
    uint32_t nlists;
    uint32_t pred;             /* cond: predicate value */
    /* STEP_CUSTOM */
    eir_custom_kernel custom;
    void *custom_user;
    uint32_t *tin;             /* tensor input values */
    uint32_t ntin;
    eir_tensor_view *cviews;   /* ntin inputs then nout outputs */
} rt_step;

typedef struct rt_io {
    const char *name;
    uint32_t value;            /* EIR_NO_VALUE for constants */
    const eir_arg *arg;        /* the constant's argument */
    int64_t *sizes;            /* recorded sizes, -1 for symbolic */
    eir_tensor_view given;     /* sizes/strides point at the copies below */
    int64_t given_sizes[EIR_MAX_RANK], given_strides[EIR_MAX_RANK];
    bool set;
    void *copy;                /* normalized copy of a non-conforming input */
    eir_tview scalar_view;     /* constant / symbolic outputs as 0-d tensors */
    union { int64_t i; double f; uint8_t b; } scalar;
} rt_io;

struct eir_runtime {
    eir_program *p;
    const eir_graph *g;
    bool root;                 /* the program's graph (signature applies), not a subgraph */
    char errmsg[2048];
    eir_arena arena;
    rt_value *values;
    uint32_t nvalues;
    rt_storage *storages;
    uint32_t nstorages, capstorages;
    rt_step *steps;
    uint32_t nsteps;
    rt_io *inputs, *outputs;
    uint32_t ninputs, noutputs;
    /* symbols bound from input shapes */
    eir_strmap sym_index;
    int64_t *symvals;
    bool *sym_bound;
    uint32_t nsyms;
    /* planning */
    void *mem;
    uint64_t mem_bytes, planned_bytes, sum_bytes;
    bool planned;
    int64_t *last_shapes;      /* input sizes of the last plan */
    uint32_t nlast_shapes;
    uint32_t ndeferred;        /* values whose shapes depend on data */
    uint64_t rng;              /* random ops' generator state */
    /* state written back after each run: buffer mutations and user-input mutations */
    uint32_t nwrites;
    struct { uint32_t src, dst; int32_t input; } *writes;
    char kerr[1024];
};

static eir_status rt_fail(eir_runtime *rt, eir_status st, const char *fmt, ...) EIR_PRINTF(3, 4);
static eir_status rt_fail(eir_runtime *rt, eir_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rt->errmsg, sizeof rt->errmsg, fmt, ap);
    va_end(ap);
    return st;
}

static const char *short_target(const char *t) { return strncmp(t, "torch.ops.", 10) ? t : t + 10; }

/* ---- symbols ---- */

static bool sym_lookup(void *ctx, const char *name, int64_t *v) {
    eir_runtime *rt = ctx;
    uint32_t i;
    if (!eir_strmap_get(&rt->sym_index, name, &i) || !rt->sym_bound[i]) return false;
    *v = rt->symvals[i];
    return true;
}

static bool eval_symint(eir_runtime *rt, const eir_symint *s, int64_t *out, char *err, size_t errlen) {
    if (!s->is_expr) { *out = s->value; return true; }
    return eir_sym_eval(rt->p->exprs[s->expr].tree, sym_lookup, rt, out, err, errlen);
}

/* register every symbol name appearing in expressions */
static void collect_symbols(eir_runtime *rt, const eir_sym_node *n) {
    if (n->kind == EIR_SYM_SYMBOL) {
        if (!eir_strmap_get(&rt->sym_index, n->name, NULL)) eir_strmap_put(&rt->sym_index, n->name, rt->nsyms++);
        return;
    }
    for (uint32_t i = 0; i < n->nargs; i++) collect_symbols(rt, n->args[i]);
}

/* ---- storages ---- */

static int32_t new_storage(eir_runtime *rt) {
    if (rt->nstorages == rt->capstorages) {
        uint32_t cap = rt->capstorages ? rt->capstorages * 2 : 64;
        rt_storage *s = realloc(rt->storages, cap * sizeof *s);
        if (!s) return -1;
        rt->storages = s;
        rt->capstorages = cap;
    }
    rt_storage *s = &rt->storages[rt->nstorages];
    memset(s, 0, sizeof *s);
    s->arena_off = -1;
    s->first = -1;
    s->last = -1;
    return (int32_t)rt->nstorages++;
}

static void use_storage(eir_runtime *rt, uint32_t value, int32_t step) {
    int32_t s = rt->values[value].storage;
    if (s < 0) return;
    if (rt->storages[s].last < step) rt->storages[s].last = step;
}

/* ---- argument decoding ---- */

static const eir_named_arg *find_input(const eir_node *n, const char *name, uint32_t pos, bool kwonly) {
    for (uint32_t i = 0; i < n->num_inputs; i++)
        if (!strcmp(n->inputs[i].name, name)) return &n->inputs[i];
    /* files without argument names: positional order */
    (void)pos;
    (void)kwonly;
    return NULL;
}

static eir_scalar scalar_int(int64_t v) { return (eir_scalar){EIR_SC_INT, v, (double)v, 0}; }
static eir_scalar scalar_float(double v) { return (eir_scalar){EIR_SC_FLOAT, 0, v, 0}; }
static eir_scalar scalar_bool(bool v) { return (eir_scalar){EIR_SC_BOOL, v, v, 0}; }

static int64_t memfmt_code(const char *s) {
    if (!strcmp(s, "contiguous_format")) return EIR_MF_CONTIGUOUS;
    if (!strcmp(s, "channels_last")) return EIR_MF_CHANNELS_LAST;
    if (!strcmp(s, "channels_last_3d")) return EIR_MF_CHANNELS_LAST_3D;
    if (!strcmp(s, "preserve_format")) return EIR_MF_PRESERVE;
    return 0;
}

/* A schema default ("None", "1", "0.5", "True", "[0, 1]", "contiguous_format", "mean") */
static bool decode_default(eir_runtime *rt, const eir_schema_arg *sa, eir_karg *k) {
    const char *d = sa->def;
    memset(k, 0, sizeof *k);
    if (!strcmp(d, "None")) { k->kind = EIR_KA_NONE; return true; }
    switch (sa->type) {
    case EIR_ST_BOOL: case EIR_ST_OPT_BOOL:
        k->kind = EIR_KA_BOOL;
        k->i = !strcmp(d, "True");
        k->s = scalar_bool(k->i);
        return true;
    case EIR_ST_INT: case EIR_ST_OPT_INT:
        k->kind = EIR_KA_INT;
        k->i = strtoll(d, NULL, 10);
        k->s = scalar_int(k->i);
        return true;
    case EIR_ST_FLOAT: case EIR_ST_OPT_FLOAT:
        k->kind = EIR_KA_FLOAT;
        k->f = strtod(d, NULL);
        k->s = scalar_float(k->f);
        return true;
    case EIR_ST_SCALAR: case EIR_ST_OPT_SCALAR:
        k->kind = EIR_KA_SCALAR;
        if (strchr(d, '.') || strchr(d, 'e') || strstr(d, "inf") || strstr(d, "nan")) k->s = scalar_float(strtod(d, NULL));
        else if (!strcmp(d, "True") || !strcmp(d, "False")) k->s = scalar_bool(!strcmp(d, "True"));
        else k->s = scalar_int(strtoll(d, NULL, 10));
        return true;
    case EIR_ST_INTS: case EIR_ST_OPT_INTS: case EIR_ST_BOOLS: {
        k->kind = sa->type == EIR_ST_BOOLS ? EIR_KA_BOOLS : EIR_KA_INTS;
        int64_t *v = eir_arena_array(&rt->arena, 16, sizeof *v);
        if (!v) return false;
        uint32_t n = 0;
        for (const char *q = d; *q && n < 16; q++) {
            if (*q == '-' || (*q >= '0' && *q <= '9')) {
                char *end;
                v[n++] = strtoll(q, &end, 10);
                q = end - 1;
            } else if (!strncmp(q, "True", 4)) { v[n++] = 1; q += 3; }
            else if (!strncmp(q, "False", 5)) { v[n++] = 0; q += 4; }
        }
        k->n = n;
        k->ints = v;
        return true;
    }
    case EIR_ST_FLOATS: case EIR_ST_OPT_FLOATS:
        k->kind = EIR_KA_FLOATS;
        k->n = 0;
        return true;
    case EIR_ST_STR: case EIR_ST_OPT_STR:
        k->kind = EIR_KA_STRING;
        k->str = d;
        return true;
    case EIR_ST_MEMFMT:
        k->kind = EIR_KA_OTHER;
        k->i = (d[0] >= '0' && d[0] <= '9') ? strtoll(d, NULL, 10) + 1 : memfmt_code(d); /* c10 0 = contiguous */
        return true;
    case EIR_ST_DTYPE: {
        /* schema defaults use c10's ScalarType numbering (4 = Long); eir uses the export schema's */
        int64_t c = strtoll(d, NULL, 10);
        k->kind = EIR_KA_DTYPE;
        k->i = c >= 0 && c <= 11 ? c + 1 : c == 15 ? EIR_BF16 : 0;
        return true;
    }
    default:
        k->kind = EIR_KA_OTHER;
        return true;
    }
}

static const eir_tview *value_view(eir_runtime *rt, uint32_t v) { return &rt->values[v].view; }

static eir_status decode_arg(eir_runtime *rt, rt_step *st, uint32_t ai, const eir_schema_arg *sa, const eir_arg *a,
                             rt_patch *patches, uint32_t *npatches) {
    eir_karg *k = &st->args[ai];
    memset(k, 0, sizeof *k);
    const char *where = st->node->name ? st->node->name : "?";
    switch (a->kind) {
    case EIR_ARG_NONE: k->kind = EIR_KA_NONE; return EIR_OK;
    case EIR_ARG_TENSOR: case EIR_ARG_OPTIONAL_TENSOR:
        if (a->value == EIR_NO_VALUE) { k->kind = EIR_KA_NONE; return EIR_OK; }
        k->kind = EIR_KA_TENSOR;
        k->t = value_view(rt, a->value);
        return EIR_OK;
    case EIR_ARG_TENSORS: case EIR_ARG_OPTIONAL_TENSORS: {
        k->kind = EIR_KA_TENSORS;
        k->n = a->u.list.n;
        const eir_tview **ts = eir_arena_array(&rt->arena, k->n ? k->n : 1, sizeof *ts);
        if (!ts) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < k->n; i++) {
            uint32_t v = a->u.list.items[i].value;
            ts[i] = v == EIR_NO_VALUE ? NULL : value_view(rt, v);
        }
        k->ts = ts;
        return EIR_OK;
    }
    case EIR_ARG_INT: case EIR_ARG_SYM_INT:
        if (sa->type == EIR_ST_FLOAT || sa->type == EIR_ST_OPT_FLOAT) {
            k->kind = EIR_KA_FLOAT;
            k->f = (double)a->u.i;
            k->s = scalar_float(k->f);
            return EIR_OK;
        }
        k->kind = (sa->type == EIR_ST_SCALAR || sa->type == EIR_ST_OPT_SCALAR) ? EIR_KA_SCALAR
                : sa->type == EIR_ST_BOOL || sa->type == EIR_ST_OPT_BOOL ? EIR_KA_BOOL : EIR_KA_INT;
        if (a->kind == EIR_ARG_SYM_INT && !a->literal) {
            patches[(*npatches)++] = (rt_patch){ai, -1, a->value};
        } else {
            k->i = a->u.i;
        }
        k->s = scalar_int(k->i);
        return EIR_OK;
    case EIR_ARG_FLOAT: case EIR_ARG_SYM_FLOAT:
        if (a->kind == EIR_ARG_SYM_FLOAT && !a->literal)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): symbolic float arguments are not supported yet", where,
                           short_target(st->node->target));
        k->kind = (sa->type == EIR_ST_SCALAR || sa->type == EIR_ST_OPT_SCALAR) ? EIR_KA_SCALAR : EIR_KA_FLOAT;
        k->f = a->u.f;
        k->s = scalar_float(a->u.f);
        return EIR_OK;
    case EIR_ARG_BOOL: case EIR_ARG_SYM_BOOL:
        if (a->kind == EIR_ARG_SYM_BOOL && !a->literal) {
            k->kind = EIR_KA_BOOL;
            patches[(*npatches)++] = (rt_patch){ai, -1, a->value};
            return EIR_OK;
        }
        k->kind = (sa->type == EIR_ST_SCALAR || sa->type == EIR_ST_OPT_SCALAR) ? EIR_KA_SCALAR : EIR_KA_BOOL;
        k->i = a->u.b;
        k->s = scalar_bool(a->u.b);
        return EIR_OK;
    case EIR_ARG_COMPLEX:
        k->kind = EIR_KA_SCALAR;
        k->s = (eir_scalar){EIR_SC_COMPLEX, 0, a->u.c.re, a->u.c.im};
        return EIR_OK;
    case EIR_ARG_INTS: case EIR_ARG_SYM_INTS: case EIR_ARG_BOOLS: {
        k->kind = a->kind == EIR_ARG_BOOLS ? EIR_KA_BOOLS : EIR_KA_INTS;
        k->n = a->u.list.n;
        int64_t *v = eir_arena_array(&rt->arena, k->n ? k->n : 1, sizeof *v);
        if (!v) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < k->n; i++) {
            const eir_arg *e = &a->u.list.items[i];
            if (e->kind == EIR_ARG_SYM_INT && !e->literal) {
                patches[(*npatches)++] = (rt_patch){ai, (int32_t)i, e->value};
                v[i] = 0;
            } else {
                v[i] = e->kind == EIR_ARG_BOOL ? e->u.b : e->u.i;
            }
        }
        k->ints = v;
        return EIR_OK;
    }
    case EIR_ARG_FLOATS: {
        k->kind = EIR_KA_FLOATS;
        k->n = a->u.list.n;
        double *v = eir_arena_array(&rt->arena, k->n ? k->n : 1, sizeof *v);
        if (!v) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < k->n; i++) v[i] = a->u.list.items[i].u.f;
        k->floats = v;
        return EIR_OK;
    }
    case EIR_ARG_STRING: k->kind = EIR_KA_STRING; k->str = a->u.s; return EIR_OK;
    case EIR_ARG_SCALAR_TYPE: k->kind = EIR_KA_DTYPE; k->i = a->u.i; return EIR_OK;
    case EIR_ARG_MEMORY_FORMAT: case EIR_ARG_LAYOUT: k->kind = EIR_KA_OTHER; k->i = a->u.i; return EIR_OK;
    case EIR_ARG_DEVICE: k->kind = EIR_KA_OTHER; k->str = a->u.device.type; return EIR_OK;
    default:
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): argument '%s' of kind %s is not supported", where,
                       short_target(st->node->target), sa->name, eir_arg_kind_name(a->kind));
    }
}

/* ---- binding ---- */

static bool is_sym_target(const char *t) {
    return !strncmp(t, "_operator.", 10) || !strncmp(t, "math.", 5) || !strncmp(t, "torch.sym_", 10) ||
           !strcmp(t, "torch.ops.aten.sym_size.int") || !strcmp(t, "torch.ops.aten.sym_numel.default") ||
           !strcmp(t, "torch.ops.aten.sym_stride.int") || !strcmp(t, "torch.ops.aten.sym_storage_offset.default");
}

/* ops whose schema says "may alias" but that copy when they must: computed as copies */
static bool is_copy_like(const char *op) {
    static const char *const names[] = {"aten.to.dtype", "aten.to.dtype_layout", "aten.to.device", "aten.to.other",
                                        "aten.reshape.default", "aten.contiguous.default", "aten.flatten.using_ints",
                                        "aten.reshape_as.default", "aten.type_as.default", "aten._unsafe_view.default",
                                        "aten.lift_fresh.default"};
    for (size_t i = 0; i < EIR_ARRAY_LEN(names); i++)
        if (!strcmp(op, names[i])) return true;
    return false;
}

static bool is_assert(const char *t) {
    return !strcmp(t, "torch.ops.aten._assert_scalar.default") ||
           !strcmp(t, "torch.ops.aten._assert_tensor_metadata.default") ||
           !strcmp(t, "torch.ops.aten.sym_constrain_range_for_size.default") ||
           !strcmp(t, "torch.ops.aten.sym_constrain_range.default") ||
           !strcmp(t, "torch.ops.aten._assert_async.msg") || !strcmp(t, "torch.ops.aten._assert_async.default");
}

static eir_kernel_fn find_kernel(const char *op) {
    static const eir_kernel_entry *const tables[] = {eir_kernels_pointwise, eir_kernels_reduce, eir_kernels_nn,
                                                    eir_kernels_data, eir_kernels_random};
    for (size_t t = 0; t < EIR_ARRAY_LEN(tables); t++)
        for (const eir_kernel_entry *e = tables[t]; e->op; e++)
            if (!strcmp(e->op, op)) return e->fn;
    return NULL;
}

/* the value ids a node's outputs name, flattened */
static uint32_t count_outputs(const eir_node *n) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < n->num_outputs; i++)
        c += (n->outputs[i].kind == EIR_ARG_TENSORS) ? n->outputs[i].u.list.n : 1;
    return c;
}

static void list_outputs(const eir_node *n, uint32_t *ids) {
    uint32_t c = 0;
    for (uint32_t i = 0; i < n->num_outputs; i++) {
        const eir_arg *a = &n->outputs[i];
        if (a->kind == EIR_ARG_TENSORS)
            for (uint32_t k = 0; k < a->u.list.n; k++) ids[c++] = a->u.list.items[k].value;
        else
            ids[c++] = a->value;
    }
}

static eir_status runtime_create_graph(eir_program *p, const eir_graph *g, bool root, eir_runtime **out);

/* ---- custom operators (process-wide registry) ---- */

typedef struct custom_op { char *name; eir_custom_kernel fn; void *user; } custom_op;
static custom_op *g_custom;
static uint32_t g_ncustom;

eir_status eir_register_op(const char *name, eir_custom_kernel fn, void *user) {
    if (!name || !fn || !strstr(name, "::")) return EIR_ERR_ARG;
    /* "mylib::sin" -> "mylib.sin" ; "mylib::sin.default" -> "mylib.sin.default" */
    size_t n = strlen(name);
    char *key = malloc(n);
    if (!key) return EIR_ERR_NOMEM;
    const char *sep = strstr(name, "::");
    memcpy(key, name, (size_t)(sep - name));
    key[sep - name] = '.';
    strcpy(key + (sep - name) + 1, sep + 2);
    for (uint32_t i = 0; i < g_ncustom; i++)
        if (!strcmp(g_custom[i].name, key)) { g_custom[i].fn = fn; g_custom[i].user = user; free(key); return EIR_OK; }
    custom_op *c = realloc(g_custom, (g_ncustom + 1) * sizeof *c);
    if (!c) { free(key); return EIR_ERR_NOMEM; }
    g_custom = c;
    g_custom[g_ncustom++] = (custom_op){key, fn, user};
    return EIR_OK;
}

/* "mylib.sin.default" matches a registration of "mylib.sin.default" or "mylib.sin" */
static const custom_op *find_custom(const char *op) {
    for (uint32_t i = 0; i < g_ncustom; i++) {
        size_t n = strlen(g_custom[i].name);
        if (!strncmp(op, g_custom[i].name, n) && (op[n] == 0 || (op[n] == '.' && !strchr(op + n + 1, '.'))))
            return &g_custom[i];
    }
    return NULL;
}

/* cond / while_loop / map_impl / scan: subgraphs become runtimes of their own */
static eir_status bind_hop(eir_runtime *rt, rt_step *st, eir_buf *missing, uint32_t *nmissing) {
    const eir_node *n = st->node;
    const char *t = n->target + strlen("torch.ops.higher_order.");
    st->kind = STEP_HOP;
    if (!strcmp(t, "cond")) st->hop = HOP_COND;
    else if (!strcmp(t, "while_loop")) st->hop = HOP_WHILE;
    else if (!strcmp(t, "map_impl")) st->hop = HOP_MAP;
    else if (!strcmp(t, "scan")) st->hop = HOP_SCAN;
    else {
        if (*nmissing < 40) eir_buf_printf(missing, "\n  higher_order.%s (node %%%s)", t, n->name ? n->name : "?");
        (*nmissing)++;
        return EIR_OK;
    }
    uint32_t ng = 0;
    st->pred = EIR_NO_VALUE;
    for (uint32_t i = 0; i < n->num_inputs; i++) {
        const eir_arg *a = &n->inputs[i].arg;
        if (n->inputs[i].kind == 2) continue; /* keyword options */
        if (a->kind == EIR_ARG_GRAPH) {
            if (ng == 2) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: more than two subgraphs", n->name);
            eir_runtime *sub = NULL;
            eir_status s = runtime_create_graph(rt->p, a->u.graph.graph, false, &sub);
            if (s) {
                if (!sub) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
                if (s == EIR_ERR_GRAPH && strstr(sub->errmsg, "cannot run yet")) {
                    const char *list = strchr(sub->errmsg, '\n');
                    if (list) eir_buf_puts(missing, list);
                    (*nmissing)++;
                    eir_runtime_free(sub);
                    return EIR_OK;
                }
                rt_fail(rt, s, "node %%%s, subgraph %s: %s", n->name, a->u.graph.name, sub->errmsg);
                eir_runtime_free(sub);
                return s;
            }
            st->sub[ng++] = sub;
        } else if (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_SYM_INTS) {
            if (st->nlists == 4) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: too many operand lists", n->name);
            st->lists[st->nlists++] = a;
        } else if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_SYM_BOOL || a->kind == EIR_ARG_BOOL) && st->hop == HOP_COND) {
            st->pred = a->value;
            if (a->kind == EIR_ARG_BOOL) st->pred = a->u.b ? UINT32_MAX - 1 : UINT32_MAX - 2;
        }
    }
    int want_graphs = st->hop == HOP_MAP || st->hop == HOP_SCAN ? 1 : 2;
    if (ng != (uint32_t)want_graphs || st->nlists < (st->hop == HOP_COND ? 1u : 2u))
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.%s): unexpected arguments", n->name, t);
    return EIR_OK;
}

static eir_status bind_step(eir_runtime *rt, uint32_t si, eir_buf *missing, uint32_t *nmissing) {
    rt_step *st = &rt->steps[si];
    const eir_node *n = st->node;
    const char *t = n->target;
    st->nout = count_outputs(n);
    st->outs = eir_arena_array(&rt->arena, st->nout ? st->nout : 1, sizeof *st->outs);
    st->outv = eir_arena_array(&rt->arena, st->nout ? st->nout : 1, sizeof *st->outv);
    if (!st->outs || !st->outv) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    list_outputs(n, st->outs);

    if (is_sym_target(t)) { st->kind = STEP_SYM; return EIR_OK; }
    if (is_assert(t)) { st->kind = STEP_ASSERT; return EIR_OK; }
    if (!strncmp(t, "torch.ops.higher_order.", 23)) return bind_hop(rt, st, missing, nmissing);
    if (!strcmp(t, "torch.ops.aten.nonzero.default") || !strcmp(t, "torch.ops.aten.item.default") ||
        !strcmp(t, "torch.ops.aten._local_scalar_dense.default")) {
        /* data-dependent: the count / the value binds an unbacked symbol */
        st->kind = !strcmp(t, "torch.ops.aten.nonzero.default") ? STEP_NONZERO : STEP_ITEM;
        st->src = EIR_NO_VALUE;
        for (uint32_t i = 0; i < n->num_inputs; i++)
            if (n->inputs[i].arg.kind == EIR_ARG_TENSOR) { st->src = n->inputs[i].arg.value; break; }
        if (st->src == EIR_NO_VALUE || st->nout != 1 || st->outs[0] == EIR_NO_VALUE)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): expected one tensor input and one output", n->name, short_target(t));
        return EIR_OK;
    }
    const char *op = short_target(t);
    if (strncmp(op, "aten.", 5) != 0) {
        const custom_op *c = find_custom(op);
        if (c) {
            st->kind = STEP_CUSTOM;
            st->custom = c->fn;
            st->custom_user = c->user;
            st->tin = eir_arena_array(&rt->arena, n->num_inputs + 1, sizeof *st->tin);
            st->cviews = eir_arena_array(&rt->arena, n->num_inputs + st->nout + 1, sizeof *st->cviews);
            if (!st->tin || !st->cviews) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
            for (uint32_t i = 0; i < n->num_inputs; i++)
                if (n->inputs[i].arg.kind == EIR_ARG_TENSOR) st->tin[st->ntin++] = n->inputs[i].arg.value;
                else if (n->inputs[i].arg.kind != EIR_ARG_NONE)
                    return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): custom operators take tensor arguments only, "
                                   "argument '%s' is %s", n->name, op, n->inputs[i].name,
                                   eir_arg_kind_name(n->inputs[i].arg.kind));
            return EIR_OK;
        }
    }
    const eir_op_schema *sc = eir_op_find(op);
    bool view = sc && (sc->flags & EIR_OPF_VIEW) && !is_copy_like(op);
    eir_kernel_fn fn = NULL;
    if (sc && !view && !is_copy_like(op)) fn = find_kernel(op);
    if (!sc || (!view && !fn && !is_copy_like(op))) {
        if (*nmissing < 40)
            eir_buf_printf(missing, "\n  %s (node %%%s)", op, n->name ? n->name : "?");
        (*nmissing)++;
        return EIR_OK;
    }
    st->schema = sc;
    /* decode arguments in schema order */
    st->nargs = sc->nargs;
    st->args = eir_arena_array(&rt->arena, sc->nargs ? sc->nargs : 1, sizeof *st->args);
    rt_patch *patches = eir_arena_array(&rt->arena, 64, sizeof *patches);
    if (!st->args || !patches) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    uint32_t np = 0;
    for (uint32_t i = 0; i < sc->nargs; i++) {
        const eir_schema_arg *sa = &sc->args[i];
        const eir_named_arg *na = find_input(n, sa->name, i, sa->kwarg_only);
        if (!na && i < n->num_inputs && n->inputs[i].name[0] == 0) na = &n->inputs[i];
        if (na) {
            if (np > 48) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: too many symbolic arguments", n->name);
            eir_status s = decode_arg(rt, st, i, sa, &na->arg, patches, &np);
            if (s) return s;
        } else if (sa->def) {
            if (!decode_default(rt, sa, &st->args[i])) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        } else {
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): required argument '%s' is missing",
                           n->name ? n->name : "?", op, sa->name);
        }
    }
    st->patches = patches;
    st->npatches = np;
    if (view || is_copy_like(op)) {
        st->kind = view ? STEP_VIEW : STEP_COPY;
        if (st->nargs == 0 || st->args[0].kind != EIR_KA_TENSOR)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): a view op needs a tensor first argument", n->name, op);
        /* the source value: the first argument's value id */
        for (uint32_t i = 0; i < n->num_inputs; i++)
            if (n->inputs[i].arg.kind == EIR_ARG_TENSOR) { st->src = n->inputs[i].arg.value; break; }
        return EIR_OK;
    }
    st->kind = STEP_KERNEL;
    st->fn = fn;
    return EIR_OK;
}

/* a subgraph's inputs and outputs are all "user" ones, by position */
static eir_status setup_io_sub(eir_runtime *rt) {
    const eir_graph *g = rt->g;
    rt->inputs = eir_arena_array(&rt->arena, g->num_inputs + 1, sizeof *rt->inputs);
    rt->outputs = eir_arena_array(&rt->arena, g->num_outputs + 1, sizeof *rt->outputs);
    if (!rt->inputs || !rt->outputs) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < g->num_inputs; i++) {
        const eir_arg *a = &g->inputs[i];
        rt_io *io = &rt->inputs[rt->ninputs++];
        io->name = a->name ? a->name : "";
        io->value = (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_SYM_INT) ? a->value : EIR_NO_VALUE;
        io->arg = a;
        if (io->value != EIR_NO_VALUE && rt->values[io->value].is_tensor) {
            int32_t sid = new_storage(rt);
            if (sid < 0) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
            rt->values[io->value].storage = sid;
            rt->storages[sid].external = rt->storages[sid].pinned = true;
            const eir_tensor_meta *m = &g->values[io->value].meta;
            io->sizes = eir_arena_array(&rt->arena, m->rank ? m->rank : 1, sizeof *io->sizes);
            if (!io->sizes) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
            for (uint32_t d = 0; d < m->rank; d++) io->sizes[d] = m->sizes[d].is_expr ? -1 : m->sizes[d].value;
        }
    }
    for (uint32_t i = 0; i < g->num_outputs; i++) {
        rt_io *io = &rt->outputs[rt->noutputs++];
        io->name = g->outputs[i].name ? g->outputs[i].name : "";
        io->value = g->outputs[i].value;
        io->arg = &g->outputs[i];
    }
    return EIR_OK;
}

static eir_status setup_io(eir_runtime *rt) {
    eir_program *p = rt->p;
    const eir_graph *g = rt->g;
    rt->inputs = eir_arena_array(&rt->arena, p->num_input_specs + 1, sizeof *rt->inputs);
    rt->outputs = eir_arena_array(&rt->arena, p->num_output_specs + 1, sizeof *rt->outputs);
    if (!rt->inputs || !rt->outputs) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    eir_strmap recs;
    eir_strmap_init(&recs);
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        const eir_arg *a = &g->inputs[i];
        if (s->kind == EIR_IN_USER_INPUT || s->kind == EIR_IN_CONSTANT_INPUT) {
            rt_io *io = &rt->inputs[rt->ninputs++];
            io->name = s->kind == EIR_IN_CONSTANT_INPUT ? s->target : a->name;
            io->value = (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_SYM_INT) ? a->value : EIR_NO_VALUE;
            io->arg = a;
            if (io->value != EIR_NO_VALUE && rt->values[io->value].is_tensor) {
                int32_t sid = new_storage(rt);
                if (sid < 0) { eir_strmap_free(&recs); return rt_fail(rt, EIR_ERR_NOMEM, "out of memory"); }
                rt->values[io->value].storage = sid;
                rt->storages[sid].external = rt->storages[sid].pinned = true;
                const eir_tensor_meta *m = &g->values[io->value].meta;
                io->sizes = eir_arena_array(&rt->arena, m->rank ? m->rank : 1, sizeof *io->sizes);
                if (!io->sizes) { eir_strmap_free(&recs); return rt_fail(rt, EIR_ERR_NOMEM, "out of memory"); }
                for (uint32_t d = 0; d < m->rank; d++) io->sizes[d] = m->sizes[d].is_expr ? -1 : m->sizes[d].value;
            }
            continue;
        }
        if (s->kind == EIR_IN_TOKEN || s->kind == EIR_IN_CUSTOM_OBJ) {
            eir_strmap_free(&recs);
            return rt_fail(rt, EIR_ERR_GRAPH, "input %s: %s inputs are not supported yet", a->name ? a->name : "?",
                           s->kind == EIR_IN_TOKEN ? "effect token" : "custom object");
        }
        const eir_tensor *t = eir_program_find_tensor(p, s->target);
        if (!t || !t->data) {
            eir_strmap_free(&recs);
            return rt_fail(rt, EIR_ERR_TENSOR, "input %s: '%s' has no readable payload%s", a->name, s->target,
                           t && t->use_pickle ? " (it is pickled)" : "");
        }
        uint32_t sid;
        if (!eir_strmap_get(&recs, t->record, &sid)) {
            int32_t ns = new_storage(rt);
            if (ns < 0) { eir_strmap_free(&recs); return rt_fail(rt, EIR_ERR_NOMEM, "out of memory"); }
            sid = (uint32_t)ns;
            rt->storages[sid].external = rt->storages[sid].pinned = true;
            rt->storages[sid].ext = (void *)t->data;
            rt->storages[sid].nbytes = t->storage_nbytes;
            eir_strmap_put(&recs, t->record, sid);
        }
        rt->values[a->value].storage = (int32_t)sid;
    }
    eir_strmap_free(&recs);
    for (uint32_t i = 0; i < p->num_output_specs; i++) {
        const eir_output_spec *s = &p->output_specs[i];
        if (s->kind != EIR_OUT_USER_OUTPUT) continue;
        rt_io *io = &rt->outputs[rt->noutputs++];
        io->name = s->arg.name ? s->arg.name : "";
        io->value = s->arg.value;
        io->arg = &s->arg;
    }
    return EIR_OK;
}

/* Functional programs return new values for the buffers (and user inputs)
 * they mutate; after each run those are written back, so the next run sees
 * them. Buffers get a private copy of their payload for this. */
static eir_status setup_writes(eir_runtime *rt) {
    eir_program *p = rt->p;
    rt->writes = eir_arena_array(&rt->arena, p->num_output_specs + 1, sizeof *rt->writes);
    if (!rt->writes) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < p->num_output_specs; i++) {
        const eir_output_spec *o = &p->output_specs[i];
        if (o->kind != EIR_OUT_BUFFER_MUTATION && o->kind != EIR_OUT_USER_INPUT_MUTATION) continue;
        uint32_t dst = EIR_NO_VALUE;
        int32_t input = -1;
        for (uint32_t k = 0; k < p->num_input_specs; k++) {
            const eir_input_spec *in = &p->input_specs[k];
            if (o->kind == EIR_OUT_BUFFER_MUTATION && in->kind == EIR_IN_BUFFER && !strcmp(in->target, o->target))
                dst = in->arg.value;
            if (o->kind == EIR_OUT_USER_INPUT_MUTATION && in->kind == EIR_IN_USER_INPUT && in->arg.name &&
                !strcmp(in->arg.name, o->target))
                dst = in->arg.value;
        }
        if (dst == EIR_NO_VALUE || o->arg.value == EIR_NO_VALUE)
            return rt_fail(rt, EIR_ERR_GRAPH, "output %s mutates '%s', which is not an input of the program",
                           o->arg.name ? o->arg.name : "?", o->target ? o->target : "?");
        if (o->kind == EIR_OUT_USER_INPUT_MUTATION)
            for (uint32_t k = 0; k < rt->ninputs; k++)
                if (rt->inputs[k].value == dst) input = (int32_t)k;
        rt_storage *s = rt->values[dst].storage >= 0 ? &rt->storages[rt->values[dst].storage] : NULL;
        if (s && o->kind == EIR_OUT_BUFFER_MUTATION && s->ext && !s->owned) {
            void *copy = malloc(s->nbytes ? s->nbytes : 1);
            if (!copy) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
            memcpy(copy, s->ext, s->nbytes);
            s->owned = s->ext = copy;
        }
        rt->writes[rt->nwrites].src = o->arg.value;
        rt->writes[rt->nwrites].dst = dst;
        rt->writes[rt->nwrites].input = input;
        rt->nwrites++;
    }
    return EIR_OK;
}

void eir_runtime_seed(eir_runtime *rt, uint64_t seed) {
    if (!rt) return;
    rt->rng = seed * 0x9E3779B97F4A7C15ull + 0x853c49e6748fea9bull;
    for (uint32_t i = 0; rt->steps && i < rt->nsteps; i++)
        for (int k = 0; k < 2; k++)
            if (rt->steps[i].sub[k]) eir_runtime_seed(rt->steps[i].sub[k], seed + 1 + i * 2 + (uint64_t)k);
}

eir_status eir_runtime_create(eir_program *p, eir_runtime **out) {
    if (!out) return EIR_ERR_ARG;
    if (!p || !p->graph) {
        *out = calloc(1, sizeof **out);
        if (!*out) return EIR_ERR_NOMEM;
        return rt_fail(*out, EIR_ERR_ARG, "eir_runtime_create: no loaded program");
    }
    return runtime_create_graph(p, p->graph, true, out);
}

static eir_status runtime_create_graph(eir_program *p, const eir_graph *graph, bool root, eir_runtime **out) {
    eir_runtime *rt = *out = calloc(1, sizeof *rt);
    if (!rt) return EIR_ERR_NOMEM;
    rt->p = p;
    rt->g = graph;
    rt->root = root;
    rt->rng = 0x853c49e6748fea9bull;
    eir_arena_init(&rt->arena);
    eir_strmap_init(&rt->sym_index);
    const eir_graph *g = rt->g;
    rt->nvalues = g->num_values;
    rt->values = eir_arena_array(&rt->arena, g->num_values ? g->num_values : 1, sizeof *rt->values);
    if (!rt->values) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < g->num_values; i++) {
        rt->values[i].storage = -1;
        rt->values[i].is_tensor = g->values[i].kind == EIR_VALUE_TENSOR;
        const eir_tensor_meta *m = &g->values[i].meta;
        if (rt->values[i].is_tensor && m->rank > EIR_MAX_RANK)
            return rt_fail(rt, EIR_ERR_GRAPH, "value %s has rank %u; eir runs tensors up to rank %d", g->values[i].name,
                           m->rank, EIR_MAX_RANK);
        if (!rt->values[i].is_tensor) {
            if (g->values[i].kind == EIR_VALUE_SYM_INT || g->values[i].kind == EIR_VALUE_SYM_BOOL) {
                if (!g->values[i].sym.is_expr) { rt->values[i].symval = g->values[i].sym.value; rt->values[i].sym_set = true; }
            }
            continue;
        }
        for (uint32_t d = 0; d < m->rank; d++) {
            if (m->sizes[d].is_expr) collect_symbols(rt, p->exprs[m->sizes[d].expr].tree);
            if (m->strides[d].is_expr) collect_symbols(rt, p->exprs[m->strides[d].expr].tree);
        }
        if (m->storage_offset.is_expr) collect_symbols(rt, p->exprs[m->storage_offset.expr].tree);
    }
    rt->symvals = calloc(rt->nsyms + 1, sizeof *rt->symvals);
    rt->sym_bound = calloc(rt->nsyms + 1, sizeof *rt->sym_bound);
    if (!rt->symvals || !rt->sym_bound) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");

    eir_status st = root ? setup_io(rt) : setup_io_sub(rt);
    if (st) return st;

    /* steps */
    rt->nsteps = g->num_nodes;
    rt->steps = eir_arena_array(&rt->arena, g->num_nodes ? g->num_nodes : 1, sizeof *rt->steps);
    if (!rt->steps) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    eir_buf missing;
    eir_buf_init(&missing);
    uint32_t nmissing = 0;
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        rt->steps[i].node = &g->nodes[i];
        st = bind_step(rt, i, &missing, &nmissing);
        if (st) { eir_buf_free(&missing); return st; }
    }
    if (nmissing) {
        rt_fail(rt, EIR_ERR_GRAPH, "%u node%s use operators eir cannot run yet:%s%s", nmissing,
                nmissing == 1 ? "" : "s", missing.data ? missing.data : "", nmissing > 40 ? "\n  ..." : "");
        eir_buf_free(&missing);
        return EIR_ERR_GRAPH;
    }
    eir_buf_free(&missing);

    /* storages of step outputs: views and in-place ops share their source's */
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        rt_step *s = &rt->steps[i];
        for (uint32_t k = 0; k < s->nout; k++) {
            uint32_t v = s->outs[k];
            if (v == EIR_NO_VALUE || !rt->values[v].is_tensor) continue;
            if (s->kind == STEP_VIEW) {
                rt->values[v].storage = rt->values[s->src].storage;
            } else if (s->kind == STEP_KERNEL && (s->schema->flags & EIR_OPF_INPLACE) && k == 0 &&
                       s->args[0].kind == EIR_KA_TENSOR) {
                uint32_t src = EIR_NO_VALUE;
                for (uint32_t q = 0; q < s->node->num_inputs; q++)
                    if (s->node->inputs[q].arg.kind == EIR_ARG_TENSOR) { src = s->node->inputs[q].arg.value; break; }
                int32_t sid = src == EIR_NO_VALUE ? -1 : rt->values[src].storage;
                rt->values[v].storage = sid;
                /* writing into an archive payload: take a private copy once */
                if (sid >= 0 && rt->storages[sid].external && rt->storages[sid].ext && !rt->storages[sid].owned) {
                    void *copy = malloc(rt->storages[sid].nbytes ? rt->storages[sid].nbytes : 1);
                    if (!copy) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
                    memcpy(copy, rt->storages[sid].ext, rt->storages[sid].nbytes);
                    rt->storages[sid].owned = rt->storages[sid].ext = copy;
                }
            } else {
                int32_t sid = new_storage(rt);
                if (sid < 0) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
                rt->values[v].storage = sid;
                rt->storages[sid].first = (int32_t)i;
                rt->storages[sid].last = (int32_t)i;
            }
        }
    }
    /* lifetimes: every tensor argument keeps its storage alive to that step */
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        const eir_node *n = rt->steps[i].node;
        for (uint32_t k = 0; k < n->num_inputs; k++) {
            const eir_arg *a = &n->inputs[k].arg;
            if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && a->value != EIR_NO_VALUE)
                use_storage(rt, a->value, (int32_t)i);
            if (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_OPTIONAL_TENSORS)
                for (uint32_t q = 0; q < a->u.list.n; q++)
                    if (a->u.list.items[q].value != EIR_NO_VALUE) use_storage(rt, a->u.list.items[q].value, (int32_t)i);
        }
        for (uint32_t k = 0; k < rt->steps[i].nout; k++)
            if (rt->steps[i].outs[k] != EIR_NO_VALUE) use_storage(rt, rt->steps[i].outs[k], (int32_t)i);
    }
    for (uint32_t i = 0; i < g->num_outputs; i++) {
        const eir_arg *a = &g->outputs[i];
        if (a->value != EIR_NO_VALUE && a->kind == EIR_ARG_TENSOR) {
            int32_t sid = rt->values[a->value].storage;
            if (sid >= 0) rt->storages[sid].pinned = true;
        }
    }
    return root ? setup_writes(rt) : EIR_OK;
}

void eir_runtime_free(eir_runtime *rt) {
    if (!rt) return;
    for (uint32_t i = 0; rt->steps && i < rt->nsteps; i++) {
        eir_runtime_free(rt->steps[i].sub[0]);
        eir_runtime_free(rt->steps[i].sub[1]);
    }
    for (uint32_t i = 0; i < rt->nstorages; i++) { free(rt->storages[i].owned); free(rt->storages[i].dyn); }
    for (uint32_t i = 0; i < rt->ninputs; i++) free(rt->inputs[i].copy);
    free(rt->storages);
    free(rt->symvals);
    free(rt->sym_bound);
    free(rt->mem);
    free(rt->last_shapes);
    eir_strmap_free(&rt->sym_index);
    eir_arena_release(&rt->arena);
    free(rt);
}

const char *eir_runtime_errmsg(const eir_runtime *rt) { return rt ? rt->errmsg : "out of memory"; }

/* ---- inputs ---- */

uint32_t eir_runtime_num_inputs(const eir_runtime *rt) { return rt->ninputs; }
uint32_t eir_runtime_num_outputs(const eir_runtime *rt) { return rt->noutputs; }

static void fill_info(const eir_runtime *rt, const rt_io *io, eir_io_info *info) {
    memset(info, 0, sizeof *info);
    info->name = io->name;
    if (io->value == EIR_NO_VALUE) { info->is_constant = true; return; }
    const eir_value *v = &rt->g->values[io->value];
    if (v->kind == EIR_VALUE_TENSOR) {
        info->is_tensor = true;
        info->dtype = v->meta.dtype;
        info->rank = v->meta.rank;
        info->sizes = io->sizes;
    } else {
        info->is_symbolic_int = true;
        info->dtype = EIR_I64;
    }
}

eir_status eir_runtime_input_info(const eir_runtime *rt, uint32_t i, eir_io_info *info) {
    if (i >= rt->ninputs) return EIR_ERR_ARG;
    fill_info(rt, &rt->inputs[i], info);
    return EIR_OK;
}

eir_status eir_runtime_output_info(const eir_runtime *rt, uint32_t i, eir_io_info *info) {
    if (i >= rt->noutputs) return EIR_ERR_ARG;
    const rt_io *io = &rt->outputs[i];
    memset(info, 0, sizeof *info);
    info->name = io->name;
    if (io->value == EIR_NO_VALUE) { info->is_constant = true; return EIR_OK; }
    const eir_value *v = &rt->g->values[io->value];
    info->is_tensor = v->kind == EIR_VALUE_TENSOR;
    info->is_symbolic_int = !info->is_tensor;
    info->dtype = info->is_tensor ? v->meta.dtype : EIR_I64;
    info->rank = info->is_tensor ? v->meta.rank : 0;
    return EIR_OK;
}

eir_status eir_runtime_set_input(eir_runtime *rt, uint32_t i, const eir_tensor_view *v) {
    if (i >= rt->ninputs) return rt_fail(rt, EIR_ERR_ARG, "input index %u out of range (the program has %u inputs)", i, rt->ninputs);
    rt_io *io = &rt->inputs[i];
    if (io->value == EIR_NO_VALUE) {
        rt_fail(rt, EIR_ERR_ARG, "input %u '%s' is a constant burned into the program; it takes no data", i, io->name);
        return EIR_ERR_ARG;
    }
    if (!v || (!v->data && v->rank > 0 && v->sizes)) {
        int64_t n = 1;
        for (uint32_t d = 0; v && d < v->rank; d++) n *= v->sizes[d];
        if (!v || n) return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': no data", i, io->name);
    }
    const eir_value *gv = &rt->g->values[io->value];
    if (gv->kind != EIR_VALUE_TENSOR) {
        if (v->rank != 0 || !eir_is_integral(v->dtype, false))
            return rt_fail(rt, EIR_ERR_ARG, "input %u '%s' is a symbolic int: expected a 0-d integer tensor", i, io->name);
    } else {
        const eir_tensor_meta *m = &gv->meta;
        if (v->dtype != m->dtype)
            return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': expected dtype %s, got %s", i, io->name,
                           eir_dtype_name(m->dtype), eir_dtype_name(v->dtype) ? eir_dtype_name(v->dtype) : "unknown");
        if (v->rank != m->rank)
            return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': expected rank %u, got %u", i, io->name, m->rank, v->rank);
        for (uint32_t d = 0; d < m->rank; d++) {
            if (v->sizes[d] < 0) return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': negative size in dim %u", i, io->name, d);
            if (!m->sizes[d].is_expr && v->sizes[d] != m->sizes[d].value)
                return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': dim %u must be %lld (static in the program), got %lld",
                               i, io->name, d, (long long)m->sizes[d].value, (long long)v->sizes[d]);
        }
    }
    if (v->rank > EIR_MAX_RANK) return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': rank %u is over %d", i, io->name, v->rank, EIR_MAX_RANK);
    /* the data is borrowed; the shape is copied so callers may pass temporaries */
    io->given = *v;
    for (uint32_t d = 0; d < v->rank; d++) {
        io->given_sizes[d] = v->sizes[d];
        if (v->strides) io->given_strides[d] = v->strides[d];
    }
    io->given.sizes = io->given_sizes;
    io->given.strides = v->strides ? io->given_strides : NULL;
    io->set = true;
    return EIR_OK;
}

/* ---- geometry and planning ---- */

static eir_status bind_symbols(eir_runtime *rt) {
    memset(rt->sym_bound, 0, (rt->nsyms + 1) * sizeof *rt->sym_bound);
    const eir_program *p = rt->p;
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        rt_io *io = &rt->inputs[i];
        if (io->value == EIR_NO_VALUE) continue;
        if (!io->set) return rt_fail(rt, EIR_ERR_ARG, "input %u '%s' was not set", i, io->name);
        const eir_value *gv = &rt->g->values[io->value];
        if (gv->kind != EIR_VALUE_TENSOR) {
            int64_t x = eir_load_i64(io->given.data, io->given.dtype);
            rt->values[io->value].symval = x;
            rt->values[io->value].sym_set = true;
            if (gv->sym.is_expr && p->exprs[gv->sym.expr].tree->kind == EIR_SYM_SYMBOL) {
                uint32_t s;
                if (eir_strmap_get(&rt->sym_index, p->exprs[gv->sym.expr].tree->name, &s)) {
                    rt->symvals[s] = x;
                    rt->sym_bound[s] = true;
                }
            }
            continue;
        }
        const eir_tensor_meta *m = &gv->meta;
        for (uint32_t d = 0; d < m->rank; d++) {
            if (!m->sizes[d].is_expr) continue;
            const eir_sym_node *tn = p->exprs[m->sizes[d].expr].tree;
            if (tn->kind != EIR_SYM_SYMBOL) continue;
            uint32_t s;
            if (!eir_strmap_get(&rt->sym_index, tn->name, &s)) continue;
            int64_t x = io->given.sizes[d];
            if (rt->sym_bound[s] && rt->symvals[s] != x)
                return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': dim %u is %lld but %s is already %lld from another input",
                               i, io->name, d, (long long)x, tn->name, (long long)rt->symvals[s]);
            for (uint32_t r = 0; r < p->num_ranges; r++) {
                const eir_range *rg = &p->ranges[r];
                if (strcmp(rg->symbol, tn->name)) continue;
                if ((rg->has_min && x < rg->min) || (rg->has_max && x > rg->max))
                    return rt_fail(rt, EIR_ERR_ARG, "input %u '%s': dim %u is %lld, outside the range of %s [%s%lld, %s%lld]",
                                   i, io->name, d, (long long)x, tn->name, rg->has_min ? "" : "-inf ",
                                   (long long)(rg->has_min ? rg->min : 0), rg->has_max ? "" : "inf ",
                                   (long long)(rg->has_max ? rg->max : 0));
            }
            rt->symvals[s] = x;
            rt->sym_bound[s] = true;
        }
    }
    return EIR_OK;
}

/* sizes/strides/offset of every tensor value from its recorded metadata */
static eir_status eval_geometry(eir_runtime *rt) {
    const eir_graph *g = rt->g;
    char err[256];
    rt->sum_bytes = 0;
    for (uint32_t i = 0; i < rt->nstorages; i++)
        if (!rt->storages[i].external) rt->storages[i].nbytes = 0;
    rt->ndeferred = 0;
    for (uint32_t i = 0; i < g->num_values; i++) {
        rt_value *v = &rt->values[i];
        if (!v->is_tensor) continue;
        const eir_tensor_meta *m = &g->values[i].meta;
        v->view.dtype = m->dtype;
        v->view.rank = (int32_t)m->rank;
        v->deferred = false;
        int64_t extent = 0;
        bool empty = false;
        bool unknown = false;
        for (uint32_t d = 0; d < m->rank && !unknown; d++) {
            if (!eval_symint(rt, &m->sizes[d], &v->view.sizes[d], err, sizeof err) ||
                !eval_symint(rt, &m->strides[d], &v->view.strides[d], err, sizeof err)) {
                if (!strstr(err, "has no value"))
                    return rt_fail(rt, EIR_ERR_GRAPH, "value %s: cannot compute its shape: %s", g->values[i].name, err);
                unknown = true;  /* an unbacked symbol: known only once the producing op has run */
                break;
            }
            if (v->view.sizes[d] == 0) empty = true;
            else extent += (v->view.sizes[d] - 1) * (v->view.strides[d] < 0 ? 0 : v->view.strides[d]);
        }
        if (!unknown && !eval_symint(rt, &m->storage_offset, &v->offset, err, sizeof err)) {
            if (!strstr(err, "has no value")) return rt_fail(rt, EIR_ERR_GRAPH, "value %s: %s", g->values[i].name, err);
            unknown = true;
        }
        if (unknown) {
            v->deferred = true;
            rt->ndeferred++;
            if (v->storage >= 0 && !rt->storages[v->storage].external) rt->storages[v->storage].deferred = true;
            continue;
        }
        uint64_t need = empty ? 0 : (uint64_t)(v->offset + extent + 1) * eir_dtype_size(m->dtype);
        if (v->storage >= 0 && !rt->storages[v->storage].external) {
            rt_storage *s = &rt->storages[v->storage];
            if (s->nbytes < need) s->nbytes = need;
        }
    }
    for (uint32_t i = 0; i < rt->nstorages; i++)
        if (!rt->storages[i].external) rt->sum_bytes += rt->storages[i].nbytes;
    return EIR_OK;
}

typedef struct placed { uint64_t off, end; int32_t first, last; } placed;

static int cmp_by_size(const void *a, const void *b, void *ctx) {
    const rt_storage *s = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return s[x].nbytes < s[y].nbytes ? 1 : s[x].nbytes > s[y].nbytes ? -1 : (x > y) - (x < y);
}

static eir_status plan_memory(eir_runtime *rt) {
    uint32_t n = 0;
    uint32_t *order = malloc((rt->nstorages + 1) * sizeof *order);
    placed *pl = malloc((rt->nstorages + 1) * sizeof *pl);
    if (!order || !pl) { free(order); free(pl); return rt_fail(rt, EIR_ERR_NOMEM, "out of memory"); }
    for (uint32_t i = 0; i < rt->nstorages; i++)
        if (!rt->storages[i].external && !rt->storages[i].deferred) order[n++] = i;
    qsort_r(order, n, sizeof *order, cmp_by_size, rt->storages);
    uint64_t total = 0;
    uint32_t np = 0;
    for (uint32_t k = 0; k < n; k++) {
        rt_storage *s = &rt->storages[order[k]];
        int32_t first = s->first, last = s->pinned ? INT32_MAX : s->last;
        uint64_t size = (s->nbytes + 63) & ~(uint64_t)63;
        /* first fit among the gaps left by storages alive at the same time */
        uint64_t off = 0;
        bool moved = true;
        while (moved) {
            moved = false;
            for (uint32_t q = 0; q < np; q++) {
                if (pl[q].last < first || pl[q].first > last) continue;
                if (off < pl[q].end && pl[q].off < off + size) { off = pl[q].end; moved = true; }
            }
        }
        s->arena_off = (int64_t)off;
        pl[np++] = (placed){off, off + (size ? size : 64), first, last};
        if (off + size > total) total = off + size;
    }
    free(order);
    free(pl);
    if (total > rt->mem_bytes) {
        free(rt->mem);
        rt->mem = aligned_alloc(64, total ? total : 64);
        if (!rt->mem) { rt->mem_bytes = 0; return rt_fail(rt, EIR_ERR_NOMEM, "out of memory for a %llu-byte arena", (unsigned long long)total); }
        rt->mem_bytes = total;
    }
    rt->planned_bytes = total;
    return EIR_OK;
}

static void *storage_base(eir_runtime *rt, int32_t sid) {
    rt_storage *s = &rt->storages[sid];
    if (s->external) return s->ext;
    if (s->deferred) return s->dyn;
    return (char *)rt->mem + s->arena_off;
}

/* copy src into dst element by element in logical (row-major) order,
 * converting dtypes; shapes may differ when numel agrees (reshape) */
static void copy_logical(const eir_tview *dst, const eir_tview *src) {
    int64_t n = eir_tview_numel(dst);
    if (n != eir_tview_numel(src)) return;
    if (dst->dtype == src->dtype && eir_tview_is_contiguous(dst) && eir_tview_is_contiguous(src)) {
        if (n) memmove(dst->data, src->data, (size_t)n * eir_dtype_size(dst->dtype));
        return;
    }
    bool same_shape = dst->rank == src->rank;
    for (int32_t d = 0; same_shape && d < dst->rank; d++) same_shape = dst->sizes[d] == src->sizes[d];
    if (same_shape) {
        eir_iter it;
        const eir_tview *ops[2] = {dst, src};
        eir_iter_init(&it, dst->rank, dst->sizes, 2, ops);
        char *ptr[2];
        int64_t len;
        size_t ds = eir_dtype_size(dst->dtype), ss = eir_dtype_size(src->dtype);
        bool cplx = eir_is_complex(dst->dtype) || eir_is_complex(src->dtype);
        bool ints = eir_is_integral(dst->dtype, true) && eir_is_integral(src->dtype, true);
        while (eir_iter_next(&it, ptr, &len)) {
            for (int64_t k = 0; k < len; k++) {
                char *dp = ptr[0] + k * it.inner_stride[0], *sp = ptr[1] + k * it.inner_stride[1];
                if (dst->dtype == src->dtype) memcpy(dp, sp, ds);
                else if (cplx) { double re, im; eir_load_c128(sp, src->dtype, &re, &im); eir_store_c128(dp, dst->dtype, re, im); }
                else if (ints) eir_store_i64(dp, dst->dtype, eir_load_i64(sp, src->dtype));
                else eir_store_f64(dp, dst->dtype, eir_load_f64(sp, src->dtype));
                (void)ss;
            }
        }
        return;
    }
    int64_t di[EIR_MAX_RANK] = {0}, si[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        void *dp = eir_tview_at(dst, di), *sp = eir_tview_at(src, si);
        if (dst->dtype == src->dtype) memcpy(dp, sp, eir_dtype_size(dst->dtype));
        else eir_store_f64(dp, dst->dtype, eir_load_f64(sp, src->dtype));
        for (int32_t d = dst->rank - 1; d >= 0; d--) { if (++di[d] < dst->sizes[d]) break; di[d] = 0; }
        for (int32_t d = src->rank - 1; d >= 0; d--) { if (++si[d] < src->sizes[d]) break; si[d] = 0; }
    }
}

static eir_status prepare_inputs(eir_runtime *rt) {
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        rt_io *io = &rt->inputs[i];
        if (io->value == EIR_NO_VALUE || !rt->values[io->value].is_tensor) continue;
        rt_value *v = &rt->values[io->value];
        rt_storage *s = &rt->storages[v->storage];
        /* the program's views assume the recorded strides: copy a
         * non-conforming input once into that layout */
        bool conform = true;
        for (int32_t d = 0; d < v->view.rank; d++) {
            int64_t given = io->given.strides ? io->given.strides[d] : 0;
            if (!io->given.strides) {
                int64_t st = 1;
                for (int32_t q = d + 1; q < v->view.rank; q++) st *= io->given.sizes[q];
                given = st;
            }
            if (v->view.sizes[d] > 1 && given != v->view.strides[d]) conform = false;
        }
        if (v->offset != 0) conform = false;
        if (conform) {
            s->ext = io->given.data;
            continue;
        }
        eir_tview src = {io->given.data, io->given.dtype, (int32_t)io->given.rank, {0}, {0}};
        for (uint32_t d = 0; d < io->given.rank; d++) {
            src.sizes[d] = io->given.sizes[d];
            int64_t st = 1;
            for (uint32_t q = d + 1; q < io->given.rank; q++) st *= io->given.sizes[q];
            src.strides[d] = io->given.strides ? io->given.strides[d] : st;
        }
        size_t need = 0;
        int64_t extent = 0;
        bool empty = false;
        for (int32_t d = 0; d < v->view.rank; d++) {
            if (v->view.sizes[d] == 0) empty = true;
            else extent += (v->view.sizes[d] - 1) * v->view.strides[d];
        }
        need = empty ? 0 : (size_t)(v->offset + extent + 1) * eir_dtype_size(v->view.dtype);
        free(io->copy);
        io->copy = malloc(need ? need : 1);
        if (!io->copy) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        s->ext = io->copy;
        eir_tview dst = v->view;
        dst.data = (char *)io->copy + v->offset * (int64_t)eir_dtype_size(v->view.dtype);
        copy_logical(&dst, &src);
    }
    return EIR_OK;
}

static bool shapes_changed(eir_runtime *rt) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < rt->ninputs; i++)
        if (rt->inputs[i].value != EIR_NO_VALUE) n += rt->inputs[i].given.rank + 1;
    bool changed = !rt->planned || n != rt->nlast_shapes;
    if (n != rt->nlast_shapes) {
        free(rt->last_shapes);
        rt->last_shapes = calloc(n + 1, sizeof *rt->last_shapes);
        rt->nlast_shapes = n;
        changed = true;
    }
    if (!rt->last_shapes) return true;
    uint32_t k = 0;
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        const rt_io *io = &rt->inputs[i];
        if (io->value == EIR_NO_VALUE) continue;
        if (rt->last_shapes[k] != io->given.rank) changed = true;
        rt->last_shapes[k++] = io->given.rank;
        for (uint32_t d = 0; d < io->given.rank; d++) {
            if (rt->last_shapes[k] != io->given.sizes[d]) changed = true;
            rt->last_shapes[k++] = io->given.sizes[d];
        }
    }
    return changed;
}

static void refresh_pointers(eir_runtime *rt) {
    for (uint32_t i = 0; i < rt->nvalues; i++) {
        rt_value *v = &rt->values[i];
        if (!v->is_tensor || v->storage < 0) continue;
        v->resolved = false;
        if (v->deferred) { v->view.data = NULL; continue; }
        char *base = storage_base(rt, v->storage);
        v->view.data = base ? base + v->offset * (int64_t)eir_dtype_size(v->view.dtype) : NULL;
    }
}

/* ---- running ---- */

static int64_t sym_arg(eir_runtime *rt, const eir_arg *a, bool *ok) {
    switch (a->kind) {
    case EIR_ARG_INT: return a->u.i;
    case EIR_ARG_BOOL: return a->u.b;
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_BOOL:
        if (a->literal) return a->kind == EIR_ARG_SYM_INT ? a->u.i : a->u.b;
        if (a->value != EIR_NO_VALUE && rt->values[a->value].sym_set) return rt->values[a->value].symval;
        break;
    default: break;
    }
    *ok = false;
    return 0;
}

static int64_t floordiv_i64(int64_t a, int64_t b) { int64_t q = a / b; if ((a % b) && ((a < 0) != (b < 0))) q--; return q; }

static eir_status run_sym(eir_runtime *rt, const rt_step *st) {
    const eir_node *n = st->node;
    const char *t = n->target;
    if (st->nout != 1 || st->outs[0] == EIR_NO_VALUE) return EIR_OK;
    rt_value *outv = &rt->values[st->outs[0]];
    int64_t r = 0;
    bool ok = true;
    if (!strncmp(t, "torch.ops.aten.sym_", 19)) {
        const eir_arg *ta = n->num_inputs ? &n->inputs[0].arg : NULL;
        if (!ta || ta->kind != EIR_ARG_TENSOR) ok = false;
        else {
            const eir_tview *tv = &rt->values[ta->value].view;
            if (!strcmp(t, "torch.ops.aten.sym_numel.default")) r = eir_tview_numel(tv);
            else if (!strcmp(t, "torch.ops.aten.sym_storage_offset.default")) r = rt->values[ta->value].offset;
            else {
                int64_t dim = n->num_inputs > 1 ? sym_arg(rt, &n->inputs[1].arg, &ok) : 0;
                int32_t d = eir_wrap_dim(dim, tv->rank);
                if (d < 0) ok = false;
                else r = !strcmp(t, "torch.ops.aten.sym_size.int") ? tv->sizes[d] : tv->strides[d];
            }
        }
    } else {
        int64_t a = n->num_inputs > 0 ? sym_arg(rt, &n->inputs[0].arg, &ok) : 0;
        int64_t b = n->num_inputs > 1 ? sym_arg(rt, &n->inputs[1].arg, &ok) : 0;
        const char *f = strrchr(t, '.') + 1;
        if (!strcmp(f, "add")) r = a + b;
        else if (!strcmp(f, "sub")) r = a - b;
        else if (!strcmp(f, "mul")) r = a * b;
        else if (!strcmp(f, "floordiv") || !strcmp(f, "mod")) {
            if (b == 0) return rt_fail(rt, EIR_ERR_ARG, "node %%%s: division by zero", n->name);
            r = f[0] == 'f' ? floordiv_i64(a, b) : a - floordiv_i64(a, b) * b;
        } else if (!strcmp(f, "eq")) r = a == b;
        else if (!strcmp(f, "ne")) r = a != b;
        else if (!strcmp(f, "lt")) r = a < b;
        else if (!strcmp(f, "le")) r = a <= b;
        else if (!strcmp(f, "gt")) r = a > b;
        else if (!strcmp(f, "ge")) r = a >= b;
        else if (!strcmp(f, "neg")) r = -a;
        else if (!strcmp(f, "pos")) r = a;
        else if (!strcmp(f, "and_")) r = a && b;
        else if (!strcmp(f, "or_")) r = a || b;
        else if (!strcmp(f, "sym_not")) r = !a;
        else if (!strcmp(f, "sym_max")) r = a > b ? a : b;
        else if (!strcmp(f, "sym_min")) r = a < b ? a : b;
        else if (!strcmp(f, "sym_int") || !strcmp(f, "trunc")) r = a;
        else return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: symbolic op %s is not supported yet", n->name, t);
    }
    if (!ok) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): cannot evaluate its symbolic arguments", n->name, t);
    outv->symval = r;
    outv->sym_set = true;
    return EIR_OK;
}

static eir_status run_assert(eir_runtime *rt, const rt_step *st) {
    const eir_node *n = st->node;
    if (!strcmp(n->target, "torch.ops.aten._assert_scalar.default") && n->num_inputs >= 1) {
        bool ok = true;
        int64_t v = sym_arg(rt, &n->inputs[0].arg, &ok);
        if (ok && !v) {
            const char *msg = n->num_inputs > 1 && n->inputs[1].arg.kind == EIR_ARG_STRING ? n->inputs[1].arg.u.s : "assertion failed";
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s: %s", n->name, msg);
        }
    }
    return EIR_OK;
}

/* ---- data-dependent shapes ---- */

static void bind_unbacked(eir_runtime *rt, const eir_symint *si, int64_t value) {
    if (!si->is_expr) return;
    const eir_sym_node *t = rt->p->exprs[si->expr].tree;
    if (t->kind != EIR_SYM_SYMBOL) return;
    uint32_t s;
    if (eir_strmap_get(&rt->sym_index, t->name, &s)) {
        rt->symvals[s] = value;
        rt->sym_bound[s] = true;
    }
}

/* give every deferred value whose symbols are now known its geometry and memory */
static eir_status resolve_deferred(eir_runtime *rt) {
    if (!rt->ndeferred) return EIR_OK;
    char err[256];
    for (uint32_t i = 0; i < rt->nvalues; i++) {
        rt_value *v = &rt->values[i];
        if (!v->deferred || v->resolved) continue;
        const eir_tensor_meta *m = &rt->g->values[i].meta;
        bool ok = true, empty = false;
        int64_t extent = 0;
        for (uint32_t d = 0; d < m->rank && ok; d++) {
            ok = eval_symint(rt, &m->sizes[d], &v->view.sizes[d], err, sizeof err) &&
                 eval_symint(rt, &m->strides[d], &v->view.strides[d], err, sizeof err);
            if (!ok) break;
            if (v->view.sizes[d] < 0) return rt_fail(rt, EIR_ERR_ARG, "value %s: negative size", rt->g->values[i].name);
            if (v->view.sizes[d] == 0) empty = true;
            else extent += (v->view.sizes[d] - 1) * (v->view.strides[d] < 0 ? 0 : v->view.strides[d]);
        }
        if (!ok || !eval_symint(rt, &m->storage_offset, &v->offset, err, sizeof err)) continue;
        uint64_t need = empty ? 0 : (uint64_t)(v->offset + extent + 1) * eir_dtype_size(m->dtype);
        rt_storage *s = &rt->storages[v->storage];
        if (s->deferred && s->dyn_bytes < need) {
            void *d = realloc(s->dyn, need);
            if (!d) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory for %s", rt->g->values[i].name);
            s->dyn = d;
            s->dyn_bytes = need;
        }
        char *base = storage_base(rt, v->storage);
        if (!base && need) base = s->dyn;
        v->view.data = base ? base + v->offset * (int64_t)eir_dtype_size(m->dtype) : (void *)s;
        v->resolved = true;
    }
    return EIR_OK;
}

/* a complex element is nonzero when either part is */
static bool elem_nonzero(const void *p, eir_dtype d) {
    double re, im;
    eir_load_c128(p, d, &re, &im);
    return re != 0 || im != 0;
}

/* nonzero: count, bind the output's unbacked size, then write the indices */
static eir_status run_nonzero(eir_runtime *rt, const rt_step *st) {
    const eir_tview *x = &rt->values[st->src].view;
    rt_value *out = &rt->values[st->outs[0]];
    int64_t n = eir_tview_numel(x), count = 0;
    int64_t idx[EIR_MAX_RANK] = {0};
    for (int64_t k = 0; k < n; k++) {
        if (elem_nonzero(eir_tview_at(x, idx), x->dtype)) count++;
        for (int32_t d = x->rank - 1; d >= 0; d--) { if (++idx[d] < x->sizes[d]) break; idx[d] = 0; }
    }
    bind_unbacked(rt, &rt->g->values[st->outs[0]].meta.sizes[0], count);
    eir_status e = resolve_deferred(rt);
    if (e) return e;
    if (!out->resolved && out->deferred)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: cannot size the output of nonzero", st->node->name);
    memset(idx, 0, sizeof idx);
    int64_t row = 0;
    for (int64_t k = 0; k < n && row < out->view.sizes[0]; k++) {
        if (elem_nonzero(eir_tview_at(x, idx), x->dtype)) {
            for (int32_t d = 0; d < x->rank; d++) {
                int64_t at[2] = {row, d};
                eir_store_i64(eir_tview_at(&out->view, at), out->view.dtype, idx[d]);
            }
            row++;
        }
        for (int32_t d = x->rank - 1; d >= 0; d--) { if (++idx[d] < x->sizes[d]) break; idx[d] = 0; }
    }
    return EIR_OK;
}

/* item / _local_scalar_dense: a tensor's single element as a symbolic value */
static eir_status run_item(eir_runtime *rt, const rt_step *st) {
    const eir_tview *x = &rt->values[st->src].view;
    if (eir_tview_numel(x) != 1)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s: a Tensor with %lld elements cannot be converted to Scalar",
                       st->node->name, (long long)eir_tview_numel(x));
    rt_value *out = &rt->values[st->outs[0]];
    const eir_value *gv = &rt->g->values[st->outs[0]];
    if (gv->kind == EIR_VALUE_SYM_FLOAT)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: float item() values are not supported yet", st->node->name);
    out->symval = eir_load_i64(x->data, x->dtype);
    out->sym_set = true;
    bind_unbacked(rt, &gv->sym, out->symval);
    return resolve_deferred(rt);
}

/* ---- higher-order ops ---- */

static void to_public_view(const eir_tview *t, eir_tensor_view *v) {
    v->data = t->data;
    v->dtype = t->dtype;
    v->rank = (uint32_t)t->rank;
    v->sizes = t->sizes;
    v->strides = t->strides;
}

static eir_tview from_public_view(const eir_tensor_view *v) {
    eir_tview t = {v->data, v->dtype, (int32_t)v->rank, {0}, {0}};
    for (uint32_t d = 0; d < v->rank && d < EIR_MAX_RANK; d++) {
        t.sizes[d] = v->sizes[d];
        int64_t st = 1;
        for (uint32_t q = d + 1; q < v->rank; q++) st *= v->sizes[q];
        t.strides[d] = v->strides ? v->strides[d] : st;
    }
    return t;
}

/* a subgraph input from a parent value, or from an explicit view */
static eir_status sub_input(eir_runtime *rt, eir_runtime *sub, uint32_t i, uint32_t value, const eir_tview *view,
                            int64_t *scalar_slot) {
    eir_tensor_view v;
    if (view) {
        to_public_view(view, &v);
    } else if (value != EIR_NO_VALUE && rt->values[value].is_tensor) {
        to_public_view(&rt->values[value].view, &v);
    } else {
        *scalar_slot = value != EIR_NO_VALUE ? rt->values[value].symval : 0;
        v = (eir_tensor_view){scalar_slot, EIR_I64, 0, NULL, NULL};
    }
    if (eir_runtime_set_input(sub, i, &v) != EIR_OK)
        return rt_fail(rt, EIR_ERR_ARG, "subgraph input %u: %s", i, sub->errmsg);
    return EIR_OK;
}

/* subgraph output j into a parent value (or into an explicit destination view) */
static eir_status sub_output(eir_runtime *rt, eir_runtime *sub, uint32_t j, uint32_t value, const eir_tview *dst) {
    eir_tensor_view o;
    if (eir_runtime_output(sub, j, &o) != EIR_OK)
        return rt_fail(rt, EIR_ERR_ARG, "subgraph output %u: %s", j, sub->errmsg);
    eir_tview src = from_public_view(&o);
    if (dst) { copy_logical(dst, &src); return EIR_OK; }
    if (value == EIR_NO_VALUE) return EIR_OK;
    rt_value *v = &rt->values[value];
    if (v->is_tensor) copy_logical(&v->view, &src);
    else { v->symval = eir_load_i64(o.data, o.dtype); v->sym_set = true; }
    return EIR_OK;
}

static bool truth(eir_runtime *rt, uint32_t value) {
    if (value == UINT32_MAX - 1) return true;
    if (value == UINT32_MAX - 2) return false;
    rt_value *v = &rt->values[value];
    if (v->is_tensor) return eir_load_f64(v->view.data, v->view.dtype) != 0;
    return v->symval != 0;
}

/* view of x[i] along dim 0 */
static eir_tview select0(const eir_tview *x, int64_t i) {
    eir_tview r = *x;
    r.data = (char *)x->data + i * x->strides[0] * (int64_t)eir_dtype_size(x->dtype);
    r.rank = x->rank - 1;
    for (int32_t d = 0; d < r.rank; d++) { r.sizes[d] = x->sizes[d + 1]; r.strides[d] = x->strides[d + 1]; }
    return r;
}

static eir_status run_sub(eir_runtime *rt, eir_runtime *sub, const eir_node *n) {
    if (eir_runtime_run(sub) != EIR_OK)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", n->name ? n->name : "?", short_target(n->target), sub->errmsg);
    return EIR_OK;
}

static eir_status run_hop(eir_runtime *rt, rt_step *st) {
    const eir_node *n = st->node;
    eir_status e;
    int64_t slots[64];
    if (st->hop == HOP_COND) {
        eir_runtime *sub = truth(rt, st->pred) ? st->sub[0] : st->sub[1];
        const eir_arg *ops = st->lists[0];
        for (uint32_t i = 0; i < ops->u.list.n && i < 64; i++)
            if ((e = sub_input(rt, sub, i, ops->u.list.items[i].value, NULL, &slots[i]))) return e;
        if ((e = run_sub(rt, sub, n))) return e;
        for (uint32_t j = 0; j < st->nout; j++)
            if ((e = sub_output(rt, sub, j, st->outs[j], NULL))) return e;
        return EIR_OK;
    }
    if (st->hop == HOP_WHILE) {
        const eir_arg *carried = st->lists[0], *extra = st->lists[1];
        uint32_t nc = carried->u.list.n, ne = extra->u.list.n;
        if (nc != st->nout || nc + ne > 64) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: bad while_loop operands", n->name);
        /* the outputs hold the carried values between iterations */
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t src = carried->u.list.items[i].value, dst = st->outs[i];
            if (rt->values[dst].is_tensor) copy_logical(&rt->values[dst].view, &rt->values[src].view);
            else { rt->values[dst].symval = rt->values[src].symval; rt->values[dst].sym_set = true; }
        }
        for (uint64_t iter = 0;; iter++) {
            for (uint32_t i = 0; i < nc; i++)
                if ((e = sub_input(rt, st->sub[0], i, st->outs[i], NULL, &slots[i]))) return e;
            for (uint32_t i = 0; i < ne; i++)
                if ((e = sub_input(rt, st->sub[0], nc + i, extra->u.list.items[i].value, NULL, &slots[nc + i]))) return e;
            if ((e = run_sub(rt, st->sub[0], n))) return e;
            eir_tensor_view c;
            if (eir_runtime_output(st->sub[0], 0, &c) != EIR_OK) return rt_fail(rt, EIR_ERR_ARG, "%s", st->sub[0]->errmsg);
            if (eir_load_f64(c.data, c.dtype) == 0) break;
            for (uint32_t i = 0; i < nc; i++)
                if ((e = sub_input(rt, st->sub[1], i, st->outs[i], NULL, &slots[i]))) return e;
            for (uint32_t i = 0; i < ne; i++)
                if ((e = sub_input(rt, st->sub[1], nc + i, extra->u.list.items[i].value, NULL, &slots[nc + i]))) return e;
            if ((e = run_sub(rt, st->sub[1], n))) return e;
            for (uint32_t j = 0; j < nc; j++)
                if ((e = sub_output(rt, st->sub[1], j, st->outs[j], NULL))) return e;
        }
        return EIR_OK;
    }
    if (st->hop == HOP_MAP) {
        const eir_arg *xs = st->lists[0], *pos = st->lists[1];
        uint32_t nx = xs->u.list.n, np = pos->u.list.n;
        if (nx == 0 || nx + np > 64) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: bad map operands", n->name);
        const eir_tview *x0 = &rt->values[xs->u.list.items[0].value].view;
        int64_t len = x0->rank ? x0->sizes[0] : 0;
        for (int64_t i = 0; i < len; i++) {
            for (uint32_t k = 0; k < nx; k++) {
                eir_tview xi = select0(&rt->values[xs->u.list.items[k].value].view, i);
                if ((e = sub_input(rt, st->sub[0], k, EIR_NO_VALUE, &xi, &slots[k]))) return e;
            }
            for (uint32_t k = 0; k < np; k++)
                if ((e = sub_input(rt, st->sub[0], nx + k, pos->u.list.items[k].value, NULL, &slots[nx + k]))) return e;
            if ((e = run_sub(rt, st->sub[0], n))) return e;
            for (uint32_t j = 0; j < st->nout; j++) {
                eir_tview dst = select0(&rt->values[st->outs[j]].view, i);
                if ((e = sub_output(rt, st->sub[0], j, EIR_NO_VALUE, &dst))) return e;
            }
        }
        return EIR_OK;
    }
    /* scan(combine, init, xs, additional): carry through, ys stacked on dim 0 */
    const eir_arg *init = st->lists[0], *xs = st->lists[1], *extra = st->nlists > 2 ? st->lists[2] : NULL;
    uint32_t nc = init->u.list.n, nx = xs->u.list.n, ne = extra ? extra->u.list.n : 0;
    if (nc > st->nout || nc + nx + ne > 64) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: bad scan operands", n->name);
    for (uint32_t i = 0; i < nc; i++)
        copy_logical(&rt->values[st->outs[i]].view, &rt->values[init->u.list.items[i].value].view);
    int64_t len = nx && rt->values[xs->u.list.items[0].value].view.rank ? rt->values[xs->u.list.items[0].value].view.sizes[0] : 0;
    for (int64_t i = 0; i < len; i++) {
        for (uint32_t k = 0; k < nc; k++)
            if ((e = sub_input(rt, st->sub[0], k, st->outs[k], NULL, &slots[k]))) return e;
        for (uint32_t k = 0; k < nx; k++) {
            eir_tview xi = select0(&rt->values[xs->u.list.items[k].value].view, i);
            if ((e = sub_input(rt, st->sub[0], nc + k, EIR_NO_VALUE, &xi, &slots[nc + k]))) return e;
        }
        for (uint32_t k = 0; k < ne; k++)
            if ((e = sub_input(rt, st->sub[0], nc + nx + k, extra->u.list.items[k].value, NULL, &slots[nc + nx + k]))) return e;
        if ((e = run_sub(rt, st->sub[0], n))) return e;
        for (uint32_t j = 0; j < st->nout; j++) {
            if (j < nc) { if ((e = sub_output(rt, st->sub[0], j, st->outs[j], NULL))) return e; }
            else {
                eir_tview dst = select0(&rt->values[st->outs[j]].view, i);
                if ((e = sub_output(rt, st->sub[0], j, EIR_NO_VALUE, &dst))) return e;
            }
        }
    }
    return EIR_OK;
}

eir_status eir_runtime_run(eir_runtime *rt) {
    if (!rt || !rt->steps) return EIR_ERR_ARG;
    eir_status st;
    bool replan = shapes_changed(rt);
    if (replan) {
        if ((st = bind_symbols(rt))) return st;
        if ((st = eval_geometry(rt))) return st;
        if ((st = plan_memory(rt))) return st;
        rt->planned = true;
    }
    if ((st = prepare_inputs(rt))) return st;
    refresh_pointers(rt);
    eir_kctx ctx = {rt->kerr, sizeof rt->kerr, 1, &rt->rng};
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        rt_step *s = &rt->steps[i];
        switch (s->kind) {
        case STEP_SYM:
            if ((st = run_sym(rt, s))) return st;
            if ((st = resolve_deferred(rt))) return st;
            break;
        case STEP_ASSERT:
            if ((st = run_assert(rt, s))) return st;
            break;
        case STEP_VIEW:
            break;  /* geometry and pointer were set by planning */
        case STEP_HOP:
            if ((st = run_hop(rt, s))) return st;
            break;
        case STEP_NONZERO:
            if ((st = run_nonzero(rt, s))) return st;
            break;
        case STEP_CUSTOM: {
            for (uint32_t k = 0; k < s->ntin; k++) to_public_view(&rt->values[s->tin[k]].view, &s->cviews[k]);
            for (uint32_t k = 0; k < s->nout; k++) {
                if (s->outs[k] == EIR_NO_VALUE) memset(&s->cviews[s->ntin + k], 0, sizeof s->cviews[0]);
                else to_public_view(&rt->values[s->outs[k]].view, &s->cviews[s->ntin + k]);
            }
            rt->kerr[0] = 0;
            if (s->custom(s->cviews, s->ntin, s->cviews + s->ntin, s->nout, s->custom_user, rt->kerr, sizeof rt->kerr))
                return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", s->node->name ? s->node->name : "?",
                               short_target(s->node->target), rt->kerr[0] ? rt->kerr : "custom kernel failed");
            break;
        }
        case STEP_ITEM:
            if ((st = run_item(rt, s))) return st;
            break;
        case STEP_COPY:
            copy_logical(&rt->values[s->outs[0]].view, &rt->values[s->src].view);
            break;
        case STEP_KERNEL: {
            for (uint32_t k = 0; k < s->npatches; k++) {
                const rt_patch *pt = &s->patches[k];
                int64_t v = rt->values[pt->value].symval;
                eir_karg *a = &s->args[pt->arg];
                if (pt->elem < 0) { a->i = v; a->s = scalar_int(v); }
                else ((int64_t *)a->ints)[pt->elem] = v;
            }
            for (uint32_t k = 0; k < s->nout; k++) {
                if (s->outs[k] == EIR_NO_VALUE) memset(&s->outv[k], 0, sizeof s->outv[k]);
                else s->outv[k] = rt->values[s->outs[k]].view;
            }
            rt->kerr[0] = 0;
            if (s->fn(s->args, s->nargs, s->outv, s->nout, &ctx) != 0)
                return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", s->node->name ? s->node->name : "?",
                               short_target(s->node->target), rt->kerr[0] ? rt->kerr : "kernel failed");
            break;
        }
        default: break;
        }
    }
    /* write mutated state back (outputs are pinned, so they are still intact) */
    for (uint32_t k = 0; k < rt->nwrites; k++) {
        rt_value *src = &rt->values[rt->writes[k].src], *dst = &rt->values[rt->writes[k].dst];
        if (src->view.data == dst->view.data) continue;
        copy_logical(&dst->view, &src->view);
        int32_t in = rt->writes[k].input;
        if (in >= 0 && rt->inputs[in].copy) {
            /* the input was normalized into a private copy: update the caller's tensor too */
            eir_tview caller = from_public_view(&rt->inputs[in].given);
            copy_logical(&caller, &dst->view);
        }
    }
    return EIR_OK;
}

/* The current value of a parameter, buffer or constant by its FQN ("count"):
 * after runs that mutate it, the mutated value. */
eir_status eir_runtime_state(eir_runtime *rt, const char *fqn, eir_tensor_view *out) {
    if (!rt || !fqn || !out) return EIR_ERR_ARG;
    const eir_program *p = rt->p;
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if ((s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_BUFFER && s->kind != EIR_IN_CONSTANT_TENSOR) ||
            strcmp(s->target, fqn) != 0)
            continue;
        rt_value *v = &rt->values[s->arg.value];
        if (!rt->planned || !v->view.data) {
            /* before the first run: the stored value */
            const eir_tensor *t = eir_program_find_tensor(p, fqn);
            rt_storage *st = &rt->storages[v->storage];
            out->data = (char *)st->ext + (t ? t->storage_offset : 0) * (int64_t)eir_dtype_size(v->view.dtype);
            out->dtype = t ? t->dtype : v->view.dtype;
            out->rank = t ? t->rank : 0;
            out->sizes = t ? t->sizes : NULL;
            out->strides = t ? t->strides : NULL;
            return EIR_OK;
        }
        to_public_view(&v->view, out);
        return EIR_OK;
    }
    return rt_fail(rt, EIR_ERR_ARG, "no parameter, buffer or constant named '%s'", fqn);
}

eir_status eir_runtime_output(eir_runtime *rt, uint32_t i, eir_tensor_view *out) {
    if (!rt || i >= rt->noutputs || !out) return EIR_ERR_ARG;
    rt_io *io = &rt->outputs[i];
    memset(out, 0, sizeof *out);
    if (io->value != EIR_NO_VALUE && rt->values[io->value].is_tensor) {
        rt_value *v = &rt->values[io->value];
        out->data = v->view.data;
        out->dtype = v->view.dtype;
        out->rank = (uint32_t)v->view.rank;
        out->sizes = v->view.sizes;
        out->strides = v->view.strides;
        return EIR_OK;
    }
    /* scalars as 0-d tensors */
    if (io->value != EIR_NO_VALUE) {
        io->scalar.i = rt->values[io->value].symval;
        out->dtype = rt->g->values[io->value].kind == EIR_VALUE_SYM_BOOL ? EIR_BOOL : EIR_I64;
        if (out->dtype == EIR_BOOL) io->scalar.b = (uint8_t)(io->scalar.i != 0);
    } else if (io->arg->kind == EIR_ARG_FLOAT) { io->scalar.f = io->arg->u.f; out->dtype = EIR_F64; }
    else if (io->arg->kind == EIR_ARG_BOOL) { io->scalar.b = io->arg->u.b; out->dtype = EIR_BOOL; }
    else if (io->arg->kind == EIR_ARG_INT) { io->scalar.i = io->arg->u.i; out->dtype = EIR_I64; }
    else return rt_fail(rt, EIR_ERR_ARG, "output %u '%s' is None or not a tensor", i, io->name);
    out->data = &io->scalar;
    out->rank = 0;
    return EIR_OK;
}

eir_status eir_runtime_plan_example(eir_runtime *rt) {
    if (!rt || !rt->steps) return EIR_ERR_ARG;
    memset(rt->sym_bound, 0, (rt->nsyms + 1) * sizeof *rt->sym_bound);
    const eir_program *p = rt->p;
    /* every symbol with a recorded hint takes it */
    for (uint32_t i = 0; i < rt->g->num_values; i++) {
        const eir_value *v = &rt->g->values[i];
        if (v->kind != EIR_VALUE_TENSOR) continue;
        for (uint32_t d = 0; d < v->meta.rank; d++) {
            const eir_symint *si = &v->meta.sizes[d];
            if (!si->is_expr || !si->has_hint || p->exprs[si->expr].tree->kind != EIR_SYM_SYMBOL) continue;
            uint32_t s;
            if (eir_strmap_get(&rt->sym_index, p->exprs[si->expr].tree->name, &s)) {
                rt->symvals[s] = si->value;
                rt->sym_bound[s] = true;
            }
        }
    }
    eir_status st = eval_geometry(rt);
    if (!st) st = plan_memory(rt);
    rt->planned = false; /* a real run plans for its own inputs */
    return st;
}

void eir_runtime_memory(const eir_runtime *rt, uint64_t *arena_bytes, uint64_t *sum) {
    if (arena_bytes) *arena_bytes = rt->planned_bytes;
    if (sum) *sum = rt->sum_bytes;
}
