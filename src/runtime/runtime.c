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
 * lifetimes (first fit in the best of three orders); inputs, parameters and
 * outputs are pinned.
 *
 * Run: refresh symbolic arguments, call the steps in order; nothing is
 * allocated while shapes stay the same. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/pool.h"
#include "../ir/program.h"
#include "../kernels/kutil.h"
#include "../kernels/fast.h"
#include "../kernels/gemm.h"
#include "../kernels/dnnl_conv.h"
#include "../ir/pyexpr.h"
#include "guards.h"
#include "../kernels/tables.h"
#include "../kernels/view.h"
#include "../ops/optable.h"
#include "library.h"
#include "../passes/passes.h"

/* STEP_VIEW: the outputs are views of the first argument, their geometry computed by
 * the op (src/kernels/view.c) when the step runs; STEP_MAYCOPY: a view when torch can
 * make one (reshape, flatten, to, contiguous, ...), else a copy into the output's own
 * storage, decided when the step runs, as torch decides */
enum { STEP_KERNEL, STEP_VIEW, STEP_MAYCOPY, STEP_SYM, STEP_ASSERT, STEP_NOOP, STEP_HOP, STEP_NONZERO, STEP_ITEM, STEP_CUSTOM,
       STEP_MASKED_SELECT, STEP_UNIQUE, STEP_REPEAT_INTERLEAVE, STEP_VMAP, STEP_VMAP_END, STEP_BATCH_IN, STEP_BATCH_OUT,
       STEP_PRINT };
/* torch.vmap as exported (torch._functorch.predispatch): the steps between STEP_VMAP
 * (_vmap_increment_nesting) and its STEP_VMAP_END (_vmap_decrement_nesting) run once per
 * batch index i; STEP_BATCH_IN (_add_batch_dim) is the view x.select(in_dim, i) and
 * STEP_BATCH_OUT (_remove_batch_dim) writes its argument into out.select(out_dim, i) */
enum { VMAP_ERROR, VMAP_DIFFERENT, VMAP_SAME };
/* HOP_CALL: one subgraph run once on the operands — wrap_with_set_grad_enabled
 * (eir computes no gradients), wrap_with_autocast (casts as autocast does),
 * hints_wrapper, strict_mode, invoke_subgraph */
/* HOP_WHILE_STACK: while_loop_stack_output, a while_loop whose outputs stack the body's
 * outputs of every iteration (the carried operands, unsqueezed, when it runs none) */
enum { HOP_COND, HOP_WHILE, HOP_MAP, HOP_SCAN, HOP_CALL, HOP_WHILE_STACK };

typedef struct rt_value {
    eir_tview view;            /* geometry + data pointer (after planning) */
    int64_t offset;            /* storage offset in elements */
    int32_t storage;           /* -1 for non-tensors */
    bool is_tensor;
    int64_t symval;            /* SYM_INT / SYM_BOOL values */
    double symf;               /* SYM_FLOAT values */
    bool sym_float;            /* the value is a SymFloat */
    bool sym_set;
    bool deferred;             /* shape depends on data (unbacked symbols): resolved during the run */
    bool resolved;
    bool rview;                /* geometry computed when its step runs (views, in-place results) */
    bool sizes_storage;        /* an rview whose recorded geometry still sizes its storage (a
                                  STEP_MAYCOPY's copy, resize_'s result) */
    int32_t cur;               /* the storage its data lies in during this run (a view made by a
                                  STEP_MAYCOPY lies in its source's, not in its own) */
} rt_value;

typedef struct rt_storage {
    uint64_t nbytes;
    void *ext;                 /* external data (user input, archive payload, private copy) */
    void *owned;               /* private copy we free */
    int64_t arena_off;         /* planned offset, or -1 */
    int32_t first, last;       /* lifetime in steps */
    bool external, pinned;
    bool payload;              /* a parameter's, buffer's or constant's payload from the archive (nbytes known) */
    bool deferred;             /* sized during the run; lives in dyn */
    bool written;              /* the program writes it (in place, or as a mutation output) */
    int32_t parent;            /* the storage of a STEP_MAYCOPY's source: its values may lie there; -1 */
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
    uint32_t src2;             /* MASKED_SELECT: the mask */
    int64_t plan_off;          /* MAYCOPY: the copy's planned geometry and storage offset */
    eir_tview planv;
    int64_t *offs;             /* VIEW/MAYCOPY: the outputs' storage offsets, computed when the step runs */
    bool flags[3];             /* UNIQUE: sorted, return_inverse, return_counts */
    void *scratch;             /* UNIQUE: sort space; an in-place op run through its functional
                                  kernel: the result before it is copied into self; kept across runs */
    bool via_functional;       /* an in-place op (op_) run by its functional overload's kernel */
    size_t scratch_bytes;
    /* STEP_HOP: the subgraphs' runtimes and the operand lists, in argument order */
    int hop;
    struct eir_runtime *sub[2];
    const eir_arg *lists[4];
    uint32_t nlists;
    uint32_t pred;             /* cond: predicate value */
    /* STEP_CUSTOM: a custom operator's call, refreshed before each run */
    const eir_custom_op *custom;
    eir_op_arg *oargs;         /* the public arguments, one per schema argument */
    eir_tensor_view *tviews;   /* views of the tensor arguments (ntviews) */
    const eir_tensor_view **tlist; /* entries of Tensor[] arguments */
    bool *bools;               /* bool[] arguments */
    uint32_t ntviews;
    eir_tensor_view *cviews;   /* the kernel's outputs (the schema's returns) */
    eir_op_shape *shapes;      /* for the shape function */
    uint8_t *defines;          /* per output: bit d set when this call defines the size of dim d (unbacked) */
    uint32_t ncout;            /* outputs the kernel writes; with auto_functionalized_v2 the */
    struct rt_mutarg *mut;     /* cloned bases follow them in outs (v2: one per mutated argument) */
    uint32_t nmut;
    const eir_arg *bases;      /* v2: _all_bases */
    uint32_t *ops, nops;       /* HOP_CALL: operand values */
    /* vmap: STEP_VMAP's batch size (a literal or a symbolic value), its randomness, the
     * index of its STEP_VMAP_END and the batch index of this pass; STEP_VMAP_END,
     * STEP_BATCH_IN and STEP_BATCH_OUT: the index of their region's STEP_VMAP */
    void **ws_buf;             /* HOP_WHILE_STACK: per carried value, the rows stacked so far */
    size_t *ws_cap;
    bool out_dtype;            /* higher_order.out_dtype: the op runs in the promoted dtype, then is cast */
    void *od_buf;              /* out_dtype: the result in the promoted dtype */
    size_t od_cap;
    const eir_arg *vm_size;
    int vm_random;
    int64_t vm_n, vm_i, vm_level, vm_dim;
    uint32_t vm_begin, vm_end;
    bool vm_head, vm_close;    /* a region without increment/decrement (see bind_vmap_regions): its first
                                  batching step holds the region (vm_end: its last _remove_batch_dim,
                                  which has vm_close) */
    bool vm_active;            /* vm_head: a pass over the batch is under way */
    uint64_t vm_rng;           /* randomness "same": the generator's state at the first pass */
    /* kernels in an autocast region: inputs cast to the recorded output dtype */
    eir_tview *cast;
    void **cast_buf;
    size_t *cast_cap;
} rt_step;

/* auto_functionalized_v2: a mutated argument is a view of one of the bases */
typedef struct rt_mutarg {
    uint32_t arg;              /* schema argument index */
    uint32_t value;            /* a direct call: the tensor written in place */
    int32_t base;              /* v2: index into _all_bases; -1: None */
    int kind;                  /* 0 the base itself (or an alias), 1 as_strided, 2 slice */
    int64_t sizes[EIR_MAX_RANK], strides[EIR_MAX_RANK], offset;
    uint32_t rank;
    int64_t dim, start, end;
    eir_tensor_view view;
    eir_tview tv;
} rt_mutarg;

typedef struct rt_io {
    const char *name;
    uint32_t value;            /* EIR_NO_VALUE for constants */
    const eir_arg *arg;        /* the constant's argument */
    int64_t *sizes;            /* recorded sizes, -1 for symbolic */
    eir_tensor_view given;     /* sizes/strides point at the copies below */
    int64_t given_sizes[EIR_MAX_RANK], given_strides[EIR_MAX_RANK];
    bool set;
    void *copy;                /* normalized copy of a non-conforming input */
    size_t copy_bytes;
    eir_tview scalar_view;     /* constant / symbolic outputs as 0-d tensors */
    union { int64_t i; double f; uint8_t b; } scalar;
} rt_io;

struct eir_runtime {
    eir_program *p;
    eir_program *fused;        /* root: the private Backend-dialect copy p points to (freed with the runtime) */
    void *fused_buf;           /* the archive bytes it was loaded from */
    const eir_graph *g;
    bool root;                 /* the program's graph (signature applies), not a subgraph */
    char errmsg[2048];
    bool err_source;        /* errmsg already ends with a node's source line (see step_failed) */
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
    eir_sym_value *symvals;
    bool *sym_bound;
    uint32_t nsyms;
    /* planning */
    void *mem;
    uint64_t mem_bytes, planned_bytes, sum_bytes;
    uint64_t peak_live_bytes;  /* the largest total of storages alive at one step */
    bool planned;
    int64_t *last_shapes;      /* input sizes of the last plan */
    uint32_t nlast_shapes;
    uint32_t ndeferred;        /* values whose shapes depend on data */
    uint64_t rng;              /* random ops' generator state */
    uint64_t nplans, nallocs, nruns; /* eir_runtime_stats */
    bool autocast;             /* a wrap_with_autocast subgraph (and what it calls) */
    eir_guards *guards;        /* root: torch's input guards */
    eir_guard_input *guard_in; /* one per input, refreshed before each check */
    /* state written back after each run: buffer mutations and user-input mutations */
    uint32_t nwrites;
    struct { uint32_t src, dst; } *writes;
    const char **mutated;      /* FQNs of the parameters and buffers the program writes */
    uint32_t nmutated;
    const eir_library *lib;    /* custom operators (borrowed) */
    char kerr[1024];
    eir_missing_op *missing;   /* creation failed with EIR_ERR_UNSUPPORTED: the operators it lacks */
    uint32_t nmissing;
    const char *missing_msg;   /* and the whole message (errmsg holds what fits) */
    int nthreads;              /* eir_runtime_set_threads; 0 (unset) runs on 1 */
    eir_pool *pool;            /* its workers, when nthreads > 1 */
    /* eir_runtime_set_profiling: per step, in step order (NULL: off) */
    eir_step_profile *prof;
    uint64_t prof_runs;
    double prof_run_us, prof_last_run_us;
};

static eir_status rt_fail(eir_runtime *rt, eir_status st, const char *fmt, ...) EIR_PRINTF(3, 4);
static eir_status rt_fail(eir_runtime *rt, eir_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(rt->errmsg, sizeof rt->errmsg, fmt, ap);
    va_end(ap);
    rt->err_source = false;
    return st;
}

static const char *short_target(const char *t) { return strncmp(t, "torch.ops.", 10) ? t : t + 10; }

/* ---- symbols ---- */

static eir_sym_value sym_int_value(int64_t i) { return (eir_sym_value){false, i, (double)i}; }

/* a symbolic value of the graph as a Python number */
static eir_sym_value value_num(const rt_value *v) {
    return v->sym_float ? (eir_sym_value){true, 0, v->symf} : sym_int_value(v->symval);
}

static void value_set(rt_value *v, eir_sym_value x) {
    if (v->sym_float) v->symf = x.is_float ? x.f : (double)x.i;
    else v->symval = x.is_float ? (int64_t)x.f : x.i;
    v->sym_set = true;
}

static bool sym_lookup(void *ctx, const char *name, eir_sym_value *v) {
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
    s->parent = -1;
    return (int32_t)rt->nstorages++;
}

/* a value keeps its storage alive to `step`, and the storages it may be a view of */
static void use_storage(eir_runtime *rt, uint32_t value, int32_t step) {
    for (int32_t s = rt->values[value].storage; s >= 0; s = rt->storages[s].parent)
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
        k->f = eir_strtod(d, NULL);
        k->s = scalar_float(k->f);
        return true;
    case EIR_ST_SCALAR: case EIR_ST_OPT_SCALAR:
        k->kind = EIR_KA_SCALAR;
        if (strchr(d, '.') || strchr(d, 'e') || strstr(d, "inf") || strstr(d, "nan")) k->s = scalar_float(eir_strtod(d, NULL));
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
            if (a->kind == EIR_ARG_SYM_INT && !a->literal) patches[(*npatches)++] = (rt_patch){ai, -1, a->value};
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
        k->kind = (sa->type == EIR_ST_SCALAR || sa->type == EIR_ST_OPT_SCALAR) ? EIR_KA_SCALAR : EIR_KA_FLOAT;
        if (a->kind == EIR_ARG_SYM_FLOAT && !a->literal) {
            /* a SymFloat computed by the graph (x * (n / 3)): patched in before each call */
            patches[(*npatches)++] = (rt_patch){ai, -1, a->value};
            k->s = scalar_float(0);
            return EIR_OK;
        }
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
           !strcmp(t, "torch._sym_sqrt") ||
           !strcmp(t, "torch.ops.aten.sym_size.int") || !strcmp(t, "torch.ops.aten.sym_numel.default") ||
           !strcmp(t, "torch.ops.aten.sym_stride.int") || !strcmp(t, "torch.ops.aten.sym_storage_offset.default") ||
           !strcmp(t, "torch.ops.aten.sym_is_contiguous.default");
}

/* Views strides cannot express, run as copies through kernels: those that
 * conjugate a complex tensor (torch's lazy conj bit; src/kernels/linalg.c;
 * of a real tensor they are plain views). */
static bool view_runs_as_copy(const char *op) {
    static const char *const names[] = {"aten._conj.default", "aten.conj.default", "aten.mH.default", "aten.adjoint.default",
                                        "aten.H.default", "aten.matrix_H.default"};
    for (size_t i = 0; i < EIR_ARRAY_LEN(names); i++)
        if (!strcmp(op, names[i])) return true;
    return false;
}

static bool is_assert(const char *t) {
    static const char *const names[] = {
        "torch.ops.aten._assert_scalar.default", "torch.ops.aten._assert_tensor_metadata.default",
        "torch.ops.aten.sym_constrain_range_for_size.default", "torch.ops.aten.sym_constrain_range.default",
        "torch.ops.aten._assert_async.msg", "torch.ops.aten._assert_async.default",
        /* functionalized forms: the same checks, with a dependency token */
        "torch.ops.aten._functional_assert_scalar.default", "torch.ops.aten._functional_assert_async.msg",
        "torch.ops.aten._functional_sym_constrain_range.default",
        "torch.ops.aten._functional_sym_constrain_range_for_size.default"};
    for (size_t i = 0; i < EIR_ARRAY_LEN(names); i++)
        if (!strcmp(t, names[i])) return true;
    return false;
}

static eir_kernel_fn find_kernel(const char *op);

/* The kernel of an in-place overload's functional form (aten.hardswish_.default ->
 * aten.hardswish.default, aten.arccos_.default -> aten.acos.default, aten.pow_.Tensor ->
 * aten.pow.Tensor_Tensor) when the two take the same arguments; NULL otherwise. */
static eir_kernel_fn functional_kernel(const eir_op_schema *inplace) {
    static const char *const alias[][2] = {
        {"absolute", "abs"}, {"arccos", "acos"}, {"arccosh", "acosh"}, {"arcsin", "asin"}, {"arcsinh", "asinh"},
        {"arctan", "atan"}, {"arctan2", "atan2"}, {"arctanh", "atanh"}, {"clip", "clamp"}, {"fix", "trunc"},
        {"greater", "gt"}, {"greater_equal", "ge"}, {"less", "lt"}, {"less_equal", "le"}, {"multiply", "mul"},
        {"negative", "neg"}, {"not_equal", "ne"}, {"__iand", "bitwise_and"}, {"__ior", "bitwise_or"},
        {"__ixor", "bitwise_xor"}, {"__ilshift", "bitwise_left_shift"}, {"__irshift", "bitwise_right_shift"}};
    const char *name = inplace->name + 5, *dot = strrchr(name, '.');
    if (strncmp(inplace->name, "aten.", 5) || !dot || dot == name || dot[-1] != '_') return NULL;
    char base[96];
    size_t len = (size_t)(dot - name - 1);
    if (len >= sizeof base) return NULL;
    memcpy(base, name, len);
    base[len] = 0;
    if (len > 2 && base[0] == '_' && base[1] == '_' && base[len - 1] == '_') base[len - 1] = 0;   /* __iand__ */
    for (size_t i = 0; i < EIR_ARRAY_LEN(alias); i++)
        if (!strcmp(base, alias[i][0])) { strcpy(base, alias[i][1]); break; }
    const char *ov = dot + 1;
    const char *tries[3] = {ov, !strcmp(ov, "Tensor") ? "Tensor_Tensor" : !strcmp(ov, "Scalar") ? "Tensor_Scalar" : NULL,
                            !strcmp(ov, "Tensor") || !strcmp(ov, "Scalar") ? "default" : NULL};
    for (int t = 0; t < 3; t++) {
        if (!tries[t]) continue;
        char full[160];
        snprintf(full, sizeof full, "aten.%s.%s", base, tries[t]);
        const eir_op_schema *f = eir_op_find(full);
        if (!f || f->nargs != inplace->nargs || f->nreturns != 1) continue;
        bool same = true;
        for (uint32_t a = 0; same && a < f->nargs; a++) same = f->args[a].type == inplace->args[a].type;
        eir_kernel_fn fn = same ? find_kernel(full) : NULL;
        if (fn) return fn;
    }
    return NULL;
}

static eir_kernel_fn find_kernel(const char *op) {
    static const eir_kernel_entry *const tables[] = {eir_kernels_pointwise, eir_kernels_reduce, eir_kernels_nn,
                                                    eir_kernels_data, eir_kernels_random, eir_kernels_spatial,
                                                    eir_kernels_fft, eir_kernels_misc,
                                                    eir_kernels_compose, eir_kernels_stats, eir_kernels_loss,
                                                    eir_kernels_special, eir_kernels_linalg, eir_kernels_fused};
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

static eir_status runtime_create_graph(eir_program *p, const eir_graph *g, bool root, const eir_library *lib,
                                       eir_runtime **out);
static const eir_arg *node_arg(const eir_node *n, const char *name, uint32_t pos);
static eir_status settle_output(eir_runtime *rt, uint32_t value, const int64_t *sizes, int32_t rank, const char *what);

/* ---- custom operators: binding ---- */

/* operators a runtime lacks, collected while binding: one entry per operator */
typedef struct rt_missing {
    eir_missing_op *ops;       /* in the arena of the runtime being created */
    uint32_t n, cap;
} rt_missing;
static eir_status note_missing(eir_runtime *rt, rt_missing *m, const char *op, const char *node, const char *subgraph,
                               const char *context, uint32_t count);
static eir_status merge_missing(eir_runtime *rt, rt_missing *m, eir_runtime *sub, const char *subgraph);
static eir_status bind_step(eir_runtime *rt, uint32_t si, rt_missing *missing);

/* "a float", "None": what a node argument holds, for messages */
static const char *arg_desc(const eir_arg *a) {
    switch (a->kind) {
    case EIR_ARG_NONE: return "None";
    case EIR_ARG_TENSOR: return "a Tensor";
    case EIR_ARG_OPTIONAL_TENSOR: return a->value == EIR_NO_VALUE ? "None" : "a Tensor";
    case EIR_ARG_TENSORS: return "a Tensor[]";
    case EIR_ARG_OPTIONAL_TENSORS: return "a Tensor?[]";
    case EIR_ARG_INT: return "an int";
    case EIR_ARG_SYM_INT: return "a SymInt";
    case EIR_ARG_INTS: return "an int[]";
    case EIR_ARG_SYM_INTS: return "a SymInt[]";
    case EIR_ARG_FLOAT: return "a float";
    case EIR_ARG_SYM_FLOAT: return "a SymFloat";
    case EIR_ARG_FLOATS: return "a float[]";
    case EIR_ARG_BOOL: return "a bool";
    case EIR_ARG_SYM_BOOL: return "a SymBool";
    case EIR_ARG_BOOLS: return "a bool[]";
    case EIR_ARG_STRING: return "a str";
    case EIR_ARG_STRINGS: return "a str[]";
    case EIR_ARG_SCALAR_TYPE: return "a ScalarType";
    case EIR_ARG_COMPLEX: return "a complex";
    default: return eir_arg_kind_name(a->kind);
    }
}

/* does node argument a fit schema argument pa? */
static bool custom_arg_fits(const eir_parsed_arg *pa, const eir_arg *a) {
    if (a->kind == EIR_ARG_NONE || (a->kind == EIR_ARG_OPTIONAL_TENSOR && a->value == EIR_NO_VALUE)) return pa->optional;
    if (pa->list) {
        switch (pa->base) {
        case EIR_AB_TENSOR:
            if (a->kind == EIR_ARG_TENSORS) return true;
            if (a->kind != EIR_ARG_OPTIONAL_TENSORS) return false;
            for (uint32_t i = 0; !pa->elem_optional && i < a->u.list.n; i++)
                if (a->u.list.items[i].value == EIR_NO_VALUE) return false;
            return true;
        case EIR_AB_INT: case EIR_AB_SYMINT: return a->kind == EIR_ARG_INTS || a->kind == EIR_ARG_SYM_INTS;
        case EIR_AB_FLOAT: return a->kind == EIR_ARG_FLOATS;
        case EIR_AB_BOOL: return a->kind == EIR_ARG_BOOLS;
        default: return false;
        }
    }
    bool lit_float = a->kind == EIR_ARG_SYM_FLOAT && a->literal;
    switch (pa->base) {
    case EIR_AB_TENSOR: return a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR;
    case EIR_AB_INT: case EIR_AB_SYMINT: return a->kind == EIR_ARG_INT || a->kind == EIR_ARG_SYM_INT;
    case EIR_AB_FLOAT: return a->kind == EIR_ARG_FLOAT || a->kind == EIR_ARG_INT || lit_float;
    case EIR_AB_BOOL: return a->kind == EIR_ARG_BOOL || a->kind == EIR_ARG_SYM_BOOL;
    case EIR_AB_STR: return a->kind == EIR_ARG_STRING;
    case EIR_AB_SCALAR:
        return a->kind == EIR_ARG_INT || a->kind == EIR_ARG_SYM_INT || a->kind == EIR_ARG_FLOAT || lit_float ||
               a->kind == EIR_ARG_BOOL || a->kind == EIR_ARG_SYM_BOOL;
    case EIR_AB_DTYPE: return a->kind == EIR_ARG_SCALAR_TYPE;
    }
    return false;
}

static bool sym_mentions(const eir_sym_node *n, const char *name) {
    if (n->kind == EIR_SYM_SYMBOL) return !strcmp(n->name, name);
    for (uint32_t i = 0; i < n->nargs; i++)
        if (sym_mentions(n->args[i], name)) return true;
    return false;
}

static bool value_mentions(eir_runtime *rt, uint32_t v, const char *name) {
    if (v == EIR_NO_VALUE) return false;
    const eir_value *gv = &rt->g->values[v];
    const eir_program *p = rt->p;
    if (gv->kind == EIR_VALUE_SYM_INT || gv->kind == EIR_VALUE_SYM_BOOL)
        return gv->sym.is_expr && sym_mentions(p->exprs[gv->sym.expr].tree, name);
    if (gv->kind != EIR_VALUE_TENSOR) return false;
    const eir_tensor_meta *m = &gv->meta;
    for (uint32_t d = 0; d < m->rank; d++)
        if ((m->sizes[d].is_expr && sym_mentions(p->exprs[m->sizes[d].expr].tree, name)) ||
            (m->strides[d].is_expr && sym_mentions(p->exprs[m->strides[d].expr].tree, name)))
            return true;
    return m->storage_offset.is_expr && sym_mentions(p->exprs[m->storage_offset.expr].tree, name);
}

/* Is the symbol known before step si runs (bound by the inputs or by an
 * earlier step)? If not, step si introduces it: an unbacked size. */
static bool symbol_known_before(eir_runtime *rt, uint32_t si, const char *name) {
    for (uint32_t i = 0; i < rt->g->num_inputs; i++)
        if (value_mentions(rt, rt->g->inputs[i].value, name)) return true;
    for (uint32_t j = 0; j < si; j++)
        for (uint32_t k = 0; k < rt->steps[j].nout; k++)
            if (value_mentions(rt, rt->steps[j].outs[k], name)) return true;
    return false;
}

static bool same_symint(const eir_symint *a, const eir_symint *b) {
    return a->is_expr == b->is_expr && (a->is_expr ? a->expr == b->expr : a->value == b->value);
}

/* resize_ on a tensor eir does not own (a user input, a parameter, buffer or
 * constant, or a view of one): torch changes that tensor's shape for the
 * caller, which eir cannot do (inputs and state keep their recorded shapes),
 * so such a program is refused unless the size stays the same. (torch.export's
 * run_decompositions cannot functionalize it either.) */
static eir_status check_resize(eir_runtime *rt) {
    const eir_graph *g = rt->g;
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        const rt_step *s = &rt->steps[i];
        if (s->kind != STEP_VIEW || !s->schema || strcmp(s->schema->name, "aten.resize_.default") || s->nout < 1 ||
            s->outs[0] == EIR_NO_VALUE || s->src == EIR_NO_VALUE)
            continue;
        int32_t sid = rt->values[s->src].storage;
        if (sid < 0 || !rt->storages[sid].external) continue;
        const eir_tensor_meta *a = &g->values[s->src].meta, *b = &g->values[s->outs[0]].meta;
        bool same = a->rank == b->rank;
        for (uint32_t d = 0; same && d < a->rank; d++) same = same_symint(&a->sizes[d], &b->sizes[d]);
        if (!same)
            return rt_fail(rt, EIR_ERR_GRAPH,
                           "node %%%s (aten.resize_.default): resizes '%s' in place, a tensor of the caller's or of the "
                           "module's state; eir keeps those at their recorded shapes and cannot run this",
                           s->node->name ? s->node->name : "?", g->values[s->src].name ? g->values[s->src].name : "?");
    }
    return EIR_OK;
}

/* Make a storage writable by the program: a payload mapped from the archive
 * gets a private copy once; the runtime remembers that it is written. A write
 * may land in the storages the value may be a view of (parent) too. */
static eir_status write_storage(eir_runtime *rt, int32_t sid) {
    for (; sid >= 0; sid = rt->storages[sid].parent) {
        rt_storage *s = &rt->storages[sid];
        s->written = true;
        if (s->external && s->ext && !s->owned) {
            void *copy = malloc(s->nbytes ? s->nbytes : 1);
            if (!copy) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
            memcpy(copy, s->ext, s->nbytes);
            s->owned = s->ext = copy;
        }
    }
    return EIR_OK;
}

/* Does a subgraph write its input i (an in-place op on a placeholder)? */
static bool sub_writes_input(const eir_runtime *sub, uint32_t i) {
    if (!sub || i >= sub->ninputs || sub->inputs[i].value == EIR_NO_VALUE) return false;
    const rt_value *v = &sub->values[sub->inputs[i].value];
    return v->is_tensor && v->storage >= 0 && sub->storages[v->storage].written;
}

/* A higher-order op whose subgraph writes an operand in place (an in-place op on a
 * parameter inside `torch.no_grad()`, a cond branch that writes a buffer) writes the
 * parent's tensor: the parent's storage must be writable and is marked written. */
static eir_status hop_writes(eir_runtime *rt, const rt_step *s) {
    eir_status st;
    if (s->hop == HOP_CALL) {
        for (uint32_t i = 0; i < s->nops; i++)
            if (sub_writes_input(s->sub[0], i) && rt->values[s->ops[i]].is_tensor &&
                (st = write_storage(rt, rt->values[s->ops[i]].storage)))
                return st;
    } else if (s->hop == HOP_COND && s->nlists) {
        const eir_arg *ops = s->lists[0];
        for (uint32_t i = 0; i < ops->u.list.n; i++) {
            uint32_t v = ops->u.list.items[i].value;
            if ((sub_writes_input(s->sub[0], i) || sub_writes_input(s->sub[1], i)) && v != EIR_NO_VALUE &&
                rt->values[v].is_tensor && (st = write_storage(rt, rt->values[v].storage)))
                return st;
        }
    }
    return EIR_OK;
}

/* auto_functionalized_v2's record of how mutated argument `name` views a
 * base: _<name>_base_index, then _alias, or _size/_stride/_storage_offset
 * (as_strided), or _slice_dim/_start/_end */
static eir_status bind_mutarg(eir_runtime *rt, rt_step *st, uint32_t ai, const char *name, uint32_t nbases, rt_mutarg *m) {
    const eir_node *n = st->node;
    char key[256];
    const eir_arg *idx = NULL, *size = NULL, *stride = NULL, *off = NULL, *sdim = NULL, *sstart = NULL, *send = NULL;
    struct { const char *suffix; const eir_arg **slot; } fields[] = {
        {"base_index", &idx}, {"size", &size}, {"stride", &stride}, {"storage_offset", &off},
        {"slice_dim", &sdim}, {"slice_start", &sstart}, {"slice_end", &send}};
    for (size_t f = 0; f < EIR_ARRAY_LEN(fields); f++) {
        snprintf(key, sizeof key, "_%s_%s", name, fields[f].suffix);
        const eir_named_arg *na = find_input(n, key, 0, true);
        *fields[f].slot = na ? &na->arg : NULL;
    }
    memset(m, 0, sizeof *m);
    m->arg = ai;
    m->value = EIR_NO_VALUE;
    if (!idx) {
        snprintf(key, sizeof key, "_%s_length", name);
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): %s", n->name,
                       find_input(n, key, 0, true) ? "mutated Tensor[] arguments are not supported yet"
                                                   : "no _<argument>_base_index for a mutated argument");
    }
    if (idx->kind == EIR_ARG_NONE) { m->base = -1; return EIR_OK; }
    if (idx->kind != EIR_ARG_INT || idx->u.i < 0 || (uint64_t)idx->u.i >= nbases)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): _%s_base_index is not an "
                       "index into _all_bases (%u bases)", n->name, name, nbases);
    m->base = (int32_t)idx->u.i;
    bool ok = true;
    if (off) {
        m->kind = 1;
        ok = size && stride && (size->kind == EIR_ARG_INTS || size->kind == EIR_ARG_SYM_INTS) &&
             (stride->kind == EIR_ARG_INTS || stride->kind == EIR_ARG_SYM_INTS) && size->u.list.n == stride->u.list.n &&
             size->u.list.n <= EIR_MAX_RANK && (off->kind == EIR_ARG_INT || (off->kind == EIR_ARG_SYM_INT && off->literal));
        for (uint32_t d = 0; ok && d < size->u.list.n; d++) {
            const eir_arg *a = &size->u.list.items[d], *b = &stride->u.list.items[d];
            ok = (a->kind == EIR_ARG_INT || a->literal) && (b->kind == EIR_ARG_INT || b->literal);
            m->sizes[d] = a->u.i;
            m->strides[d] = b->u.i;
        }
        if (ok) { m->rank = size->u.list.n; m->offset = off->u.i; }
    } else if (sdim) {
        m->kind = 2;
        ok = sdim->kind == EIR_ARG_INT && sstart && send && (sstart->kind == EIR_ARG_INT || sstart->kind == EIR_ARG_NONE) &&
             (send->kind == EIR_ARG_INT || send->kind == EIR_ARG_NONE);
        if (ok) {
            m->dim = sdim->u.i;
            m->start = sstart->kind == EIR_ARG_INT ? sstart->u.i : 0;
            m->end = send->kind == EIR_ARG_INT ? send->u.i : INT64_MAX;
        }
    }
    if (!ok)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): the view of mutated "
                       "argument '%s' has symbolic or malformed geometry, which eir does not support yet", n->name, name);
    return EIR_OK;
}

/* A call of custom operator c: check the node against the schema, decode the
 * arguments once. v2: the node is auto_functionalized_v2(op, **kwargs). */
static eir_status bind_custom(eir_runtime *rt, uint32_t si, const eir_custom_op *c, bool v2) {
    rt_step *st = &rt->steps[si];
    const eir_node *n = st->node;
    const eir_parsed_schema *ps = &c->schema;
    const char *where = n->name ? n->name : "?";
    const char *op = short_target(n->target);
    st->kind = STEP_CUSTOM;
    st->custom = c;
    /* every named input is a schema argument (v2 bookkeeping starts with '_'); unnamed ones are positional */
    uint32_t npos = 0;
    for (uint32_t i = v2 ? 1 : 0; i < n->num_inputs; i++) {
        const char *nm = n->inputs[i].name;
        if (!nm[0]) { npos++; continue; }
        if (v2 && nm[0] == '_') continue;
        bool known = false;
        for (uint32_t k = 0; k < ps->nargs && !known; k++) known = !strcmp(ps->args[k].sa.name, nm);
        if (!known)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): argument '%s' is not in the schema %s", where, op, nm, ps->text);
    }
    if (npos > ps->nargs)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): %u positional arguments, the schema %s takes %u", where, op,
                       npos, ps->text, ps->nargs);
    const eir_arg *bases = NULL;
    if (v2) {
        const eir_named_arg *b = find_input(n, "_all_bases", 0, true);
        if (!b || b->arg.kind != EIR_ARG_TENSORS)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): no _all_bases tensor list", where);
        bases = st->bases = &b->arg;
    }
    st->nargs = ps->nargs;
    st->args = eir_arena_array(&rt->arena, ps->nargs + 1, sizeof *st->args);
    st->oargs = eir_arena_array(&rt->arena, ps->nargs + 1, sizeof *st->oargs);
    st->mut = eir_arena_array(&rt->arena, ps->nargs + 1, sizeof *st->mut);
    rt_patch *patches = eir_arena_array(&rt->arena, 64, sizeof *patches);
    if (!st->args || !st->oargs || !st->mut || !patches) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    uint32_t np = 0, pos = 0, nlist = 0, nbools = 0;
    for (uint32_t i = 0; i < ps->nargs; i++) {
        const eir_parsed_arg *pa = &ps->args[i];
        if (v2 && pa->mutates) {
            if (pa->list)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): mutated Tensor[] "
                               "argument '%s' is not supported yet", where, pa->sa.name);
            eir_status e = bind_mutarg(rt, st, i, pa->sa.name, bases->u.list.n, &st->mut[st->nmut++]);
            if (e) return e;
            st->args[i].kind = EIR_KA_NONE;
            continue;
        }
        const eir_named_arg *na = find_input(n, pa->sa.name, i, pa->sa.kwarg_only);
        if (!na && !pa->sa.kwarg_only) {
            /* the pos-th unnamed input */
            uint32_t seen = 0;
            for (uint32_t k = v2 ? 1 : 0; k < n->num_inputs && !na; k++)
                if (!n->inputs[k].name[0] && seen++ == pos) na = &n->inputs[k];
            if (na) pos++;
        }
        if (na) {
            if (!custom_arg_fits(pa, &na->arg))
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): argument '%s' is %s, the schema %s expects %s", where,
                               op, pa->sa.name, arg_desc(&na->arg), ps->text, pa->type_text);
            if (np > 48) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: too many symbolic arguments", where);
            eir_status e = decode_arg(rt, st, i, &pa->sa, &na->arg, patches, &np);
            if (e) return e;
            if (st->args[i].kind == EIR_KA_SCALAR && st->args[i].s.kind == EIR_SC_COMPLEX)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): argument '%s' is a complex Scalar, which eir's custom "
                               "operators do not take", where, op, pa->sa.name);
            if (pa->mutates && !v2) {
                /* written in place: remember the values (their storages are marked when storages are assigned) */
                if (na->arg.kind == EIR_ARG_TENSOR) {
                    st->mut[st->nmut] = (rt_mutarg){.arg = i, .base = -1, .value = na->arg.value};
                    st->nmut++;
                } else if (na->arg.kind == EIR_ARG_TENSORS || na->arg.kind == EIR_ARG_OPTIONAL_TENSORS) {
                    /* one entry per element: grow the array */
                    uint32_t ne = na->arg.u.list.n;
                    rt_mutarg *m = eir_arena_array(&rt->arena, st->nmut + ne + ps->nargs + 1, sizeof *m);
                    if (!m) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
                    memcpy(m, st->mut, st->nmut * sizeof *m);
                    st->mut = m;
                    for (uint32_t k = 0; k < ne; k++)
                        st->mut[st->nmut++] = (rt_mutarg){.arg = i, .base = -1, .value = na->arg.u.list.items[k].value};
                }
            }
        } else if (pa->sa.def) {
            if (!decode_default(rt, &pa->sa, &st->args[i])) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        } else {
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): required argument '%s' (%s) is missing; the schema is %s",
                           where, op, pa->sa.name, pa->type_text, ps->text);
        }
        if (st->args[i].kind == EIR_KA_TENSORS) nlist += st->args[i].n;
        if (st->args[i].kind == EIR_KA_BOOLS) nbools += st->args[i].n;
    }
    st->patches = patches;
    st->npatches = np;
    st->ntviews = nlist + ps->nargs;
    st->tviews = eir_arena_array(&rt->arena, st->ntviews + 1, sizeof *st->tviews);
    st->tlist = eir_arena_array(&rt->arena, nlist + 1, sizeof *st->tlist);
    st->bools = eir_arena_array(&rt->arena, nbools + 1, sizeof *st->bools);
    if (!st->tviews || !st->tlist || !st->bools) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");

    /* outputs: the returns (a Tensor[] return is one list), then v2's new bases */
    uint32_t want = ps->nrets, raw = n->num_outputs;
    bool list_ret = ps->nrets == 1 && ps->rets[0].list;
    uint32_t nret_raw = v2 ? (want ? want : 1) : want;
    if (!v2 && want == 0) {
        for (uint32_t k = 0; k < raw; k++)
            if (n->outputs[k].kind != EIR_ARG_NONE)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): the schema %s returns nothing, the node has outputs",
                               where, op, ps->text);
        raw = 0;
    }
    if (raw != nret_raw + (v2 ? bases->u.list.n : 0)) {
        if (v2)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): %u outputs, expected %u "
                           "for %s and %u bases", where, raw, nret_raw + bases->u.list.n, ps->text, bases->u.list.n);
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): %u outputs, the schema %s returns %u", where, op, raw,
                       ps->text, want);
    }
    st->ncout = 0;
    for (uint32_t k = 0; k < want; k++) {
        const eir_arg *o = &n->outputs[k];
        if (list_ret ? o->kind != EIR_ARG_TENSORS : o->kind != EIR_ARG_TENSOR)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): output %u is %s, the schema %s returns %s", where, op, k,
                           arg_desc(o), ps->text, ps->rets[k].type_text);
        uint32_t cnt = list_ret ? o->u.list.n : 1;
        for (uint32_t q = 0; q < cnt; q++)
            if (st->outs[st->ncout + q] == EIR_NO_VALUE || !rt->values[st->outs[st->ncout + q]].is_tensor)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): output %u is not a recorded tensor", where, op, st->ncout + q);
        st->ncout += cnt;
    }
    if (v2) {
        uint32_t first = count_outputs(n) - bases->u.list.n;
        for (uint32_t b = 0; b < bases->u.list.n; b++) {
            uint32_t v = st->outs[first + b], src = bases->u.list.items[b].value;
            if (v == EIR_NO_VALUE || src == EIR_NO_VALUE || !rt->values[v].is_tensor)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): base %u is not a "
                               "recorded tensor", where, b);
        }
    }
    st->cviews = eir_arena_array(&rt->arena, st->ncout + 1, sizeof *st->cviews);
    st->shapes = eir_arena_array(&rt->arena, st->ncout + 1, sizeof *st->shapes);
    st->defines = eir_arena_array(&rt->arena, st->ncout + 1, sizeof *st->defines);
    if (!st->cviews || !st->shapes || !st->defines) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    /* sizes this call introduces (unbacked symbols, e.g. u0 of new_dynamic_size()) need a shape function */
    for (uint32_t k = 0; k < st->ncout; k++) {
        const eir_tensor_meta *m = &rt->g->values[st->outs[k]].meta;
        if (m->rank > EIR_MAX_RANK) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: output %u has rank %u", where, k, m->rank);
        for (uint32_t d = 0; d < m->rank; d++) {
            if (!m->sizes[d].is_expr) continue;
            const eir_sym_node *t = rt->p->exprs[m->sizes[d].expr].tree;
            if (t->kind != EIR_SYM_SYMBOL || symbol_known_before(rt, si, t->name)) continue;
            st->defines[k] |= (uint8_t)(1u << d);
            if (!c->shape)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): output %u has the data-dependent size %s in dim %u, "
                               "so %s needs a shape function (eir_library_define's shape argument)", where, op, k,
                               t->name, d, ps->qualname);
        }
    }
    return EIR_OK;
}

/* with_effects(token, op, *args): the token orders effectful ops, which eir
 * runs in graph order anyway; the wrapped op becomes the step */
static eir_status bind_effects(eir_runtime *rt, uint32_t si, rt_missing *missing) {
    rt_step *st = &rt->steps[si];
    const eir_node *n = st->node;
    if (n->num_inputs < 2 || n->inputs[0].arg.kind != EIR_ARG_TENSOR || n->inputs[1].arg.kind != EIR_ARG_OPERATOR ||
        n->num_outputs < 1 || n->outputs[0].kind != EIR_ARG_TENSOR)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.with_effects): expected (token, operator, args...) "
                       "and a token output", n->name ? n->name : "?");
    const char *inner = n->inputs[1].arg.u.s;
    if (strncmp(inner, "torch.ops.", 10) != 0 || !strncmp(inner, "torch.ops.higher_order.", 23))
        return note_missing(rt, missing, short_target(inner), n->name, NULL, "inside higher_order.with_effects", 1);
    eir_node *in = eir_arena_alloc(&rt->arena, sizeof *in);
    if (!in) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    *in = *n;
    in->target = inner;
    in->inputs = n->inputs + 2;
    in->num_inputs = n->num_inputs - 2;
    in->outputs = n->outputs + 1;
    in->num_outputs = n->num_outputs - 1;
    st->node = in;
    return bind_step(rt, si, missing);
}

/* auto_functionalized_v2(op, **kwargs): a custom op that mutates its
 * arguments, made functional: the bases are cloned into the node's last
 * outputs and the op writes the clones */
static eir_status bind_autofunc(eir_runtime *rt, uint32_t si, rt_missing *missing) {
    rt_step *st = &rt->steps[si];
    const eir_node *n = st->node;
    if (n->num_inputs < 1 || n->inputs[0].arg.kind != EIR_ARG_OPERATOR)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.auto_functionalized_v2): no operator argument", n->name);
    const char *inner = n->inputs[0].arg.u.s;
    const eir_custom_op *c = eir_library_find(rt->lib, inner);
    if (!c) return note_missing(rt, missing, short_target(inner), n->name, NULL, "in auto_functionalized_v2", 1);
    return bind_custom(rt, si, c, true);
}

/* cond / while_loop / map_impl / scan: subgraphs become runtimes of their own */
static void set_autocast(eir_runtime *rt) {
    rt->autocast = true;
    for (uint32_t i = 0; i < rt->nsteps; i++)
        for (int k = 0; k < 2; k++)
            if (rt->steps[i].sub[k]) set_autocast(rt->steps[i].sub[k]);
}

/* A HOP that runs its one subgraph once: the operands are every value
 * argument after the graph (single tensors, symbolic values, lists). */
static eir_status bind_hop_call(eir_runtime *rt, rt_step *st, const char *t, rt_missing *missing) {
    const eir_node *n = st->node;
    st->hop = HOP_CALL;
    st->ops = eir_arena_array(&rt->arena, n->num_inputs * 4 + 64, sizeof *st->ops);
    if (!st->ops) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    int graph_at = -1;
    for (uint32_t i = 0; i < n->num_inputs; i++) {
        const eir_arg *a = &n->inputs[i].arg;
        if (a->kind == EIR_ARG_GRAPH) {
            if (graph_at >= 0) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.%s): more than one subgraph", n->name, t);
            graph_at = (int)i;
            eir_runtime *sub = NULL;
            eir_status s = runtime_create_graph(rt->p, a->u.graph.graph, false, rt->lib, &sub);
            if (s == EIR_ERR_UNSUPPORTED) return merge_missing(rt, missing, sub, a->u.graph.name);
            if (s) {
                if (!sub) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
                rt_fail(rt, s, "node %%%s, subgraph %s: %s", n->name, a->u.graph.name, sub->errmsg);
                eir_runtime_free(sub);
                return s;
            }
            st->sub[0] = sub;
            continue;
        }
        if (graph_at < 0 || n->inputs[i].kind == 2) continue;   /* leading options; keyword hints */
        if (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_SYM_INT || a->kind == EIR_ARG_SYM_FLOAT || a->kind == EIR_ARG_SYM_BOOL) {
            if (a->literal) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.%s): literal operand", n->name, t);
            st->ops[st->nops++] = a->value;
        } else if (a->kind == EIR_ARG_TENSORS) {
            for (uint32_t k = 0; k < a->u.list.n && st->nops < n->num_inputs * 4 + 64; k++) st->ops[st->nops++] = a->u.list.items[k].value;
        }
    }
    if (!st->sub[0]) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.%s): no subgraph", n->name, t);
    if (st->nops != eir_runtime_num_inputs(st->sub[0]) || st->nout != eir_runtime_num_outputs(st->sub[0]))
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.%s): %u operands and %u outputs for a subgraph of %u inputs "
                       "and %u outputs", n->name, t, st->nops, st->nout, eir_runtime_num_inputs(st->sub[0]),
                       eir_runtime_num_outputs(st->sub[0]));
    if (!strcmp(t, "wrap_with_autocast")) {
        /* (device_type, dtype, enabled, cache_enabled, subgraph, *args) */
        bool enabled = n->num_inputs > 2 && n->inputs[2].arg.kind == EIR_ARG_BOOL && n->inputs[2].arg.u.b;
        bool cpu = n->num_inputs > 0 && n->inputs[0].arg.kind == EIR_ARG_STRING && !strcmp(n->inputs[0].arg.u.s, "cpu");
        if (enabled && cpu) set_autocast(st->sub[0]);
    }
    return EIR_OK;
}

/* higher_order.print(format_str, *args, **kwargs): torch prints
 * format_str.format(*args, **kwargs). eir writes the same line to stdout when every
 * field it formats ({}, {0}, {name}, no format spec) is a number, a bool, a string,
 * None, or a real or bool tensor of at most 1000 elements (torch's repr: print_tensor);
 * other lines (complex tensors, tensors torch summarizes with "...") run without printing. */

/* torch's repr of a tensor with the default print options (torch/_tensor_str.py:
 * precision 4, linewidth 80, no summarization under 1000 elements) */
typedef struct tfmt { bool floating, int_mode, sci; int width; } tfmt;
/* an element: integers kept exact */
typedef struct telem { double f; int64_t i; } telem;

static int tfmt_value(const tfmt *f, telem e, bool is_bool, char *out, size_t n) {
    double v = e.f;
    if (is_bool) return snprintf(out, n, "%s", e.i != 0 ? "True" : "False");
    if (!f->floating) return snprintf(out, n, "%lld", (long long)e.i);
    if (isnan(v)) return snprintf(out, n, "nan");
    if (f->sci) return snprintf(out, n, "%.4e", v);
    if (f->int_mode) return snprintf(out, n, isinf(v) ? "%.0f" : "%.0f.", v);
    return snprintf(out, n, "%.4f", v);
}

static double tview_get(const eir_tview *t, const int64_t *idx, bool *is_int) {
    const void *p = eir_tview_at(t, idx);
    if (eir_is_integral(t->dtype, true)) { *is_int = true; return (double)eir_load_i64(p, t->dtype); }
    *is_int = false;
    return eir_load_f64(p, t->dtype);
}

static bool tensor_elems(const eir_tview *t, telem *vals, int64_t n) {
    int64_t idx[EIR_MAX_RANK] = {0};
    bool is_int;
    for (int64_t k = 0; k < n; k++) {
        vals[k].f = tview_get(t, idx, &is_int);
        if (is_int) vals[k].i = eir_load_i64(eir_tview_at(t, idx), t->dtype);
        for (int32_t d = t->rank - 1; d >= 0; d--) { if (++idx[d] < t->sizes[d]) break; idx[d] = 0; }
    }
    return true;
}

static void print_slices(eir_buf *out, const tfmt *f, const eir_tview *t, const telem *vals, int32_t dim, int64_t *pos,
                         int indent) {
    bool is_bool = t->dtype == EIR_BOOL;
    char cell[64];
    if (dim == t->rank - 1) {
        int per_line = (80 - indent) / (f->width + 2);
        if (per_line < 1) per_line = 1;
        eir_buf_putc(out, '[');
        for (int64_t k = 0; k < t->sizes[dim]; k++) {
            if (k) {
                if (k % per_line == 0) { eir_buf_puts(out, ",\n"); for (int q = 0; q < indent + 1; q++) eir_buf_putc(out, ' '); }
                else eir_buf_puts(out, ", ");
            }
            int len = tfmt_value(f, vals[(*pos)++], is_bool, cell, sizeof cell);
            for (int q = len; q < f->width; q++) eir_buf_putc(out, ' ');
            eir_buf_puts(out, cell);
        }
        eir_buf_putc(out, ']');
        return;
    }
    eir_buf_putc(out, '[');
    for (int64_t k = 0; k < t->sizes[dim]; k++) {
        if (k) {
            eir_buf_putc(out, ',');
            for (int32_t q = 0; q < t->rank - dim - 1; q++) eir_buf_putc(out, '\n');
            for (int q = 0; q < indent + 1; q++) eir_buf_putc(out, ' ');
        }
        print_slices(out, f, t, vals, dim + 1, pos, indent + 1);
    }
    eir_buf_putc(out, ']');
}

static bool print_tensor(eir_buf *out, const eir_tview *t) {
    if (eir_is_complex(t->dtype) || !t->data) return false;
    if (t->rank == 0) {
        /* str.format of a 0-d tensor formats its item(), a Python number */
        bool is_int;
        double v = tview_get(t, NULL, &is_int);
        if (t->dtype == EIR_BOOL) eir_buf_puts(out, v != 0 ? "True" : "False");
        else if (is_int) eir_buf_printf(out, "%lld", (long long)eir_load_i64(t->data, t->dtype));
        else eir_buf_put_pyfloat(out, v);
        return true;
    }
    int64_t n = eir_tview_numel(t);
    if (n > 1000) return false;
    telem *vals = malloc(sizeof *vals * (size_t)(n ? n : 1));
    if (!vals) return false;
    tensor_elems(t, vals, n);
    tfmt f = {eir_is_floating(t->dtype), true, false, 1};
    char cell[64];
    if (!f.floating) {
        for (int64_t k = 0; k < n; k++) {
            int len = tfmt_value(&f, vals[k], t->dtype == EIR_BOOL, cell, sizeof cell);
            if (len > f.width) f.width = len;
        }
    } else {
        double lo = INFINITY, hi = 0;
        bool any = false;
        for (int64_t k = 0; k < n; k++) {
            double v = vals[k].f;
            if (!isfinite(v) || v == 0) continue;
            any = true;
            if (fabs(v) < lo) lo = fabs(v);
            if (fabs(v) > hi) hi = fabs(v);
            if (v != ceil(v)) f.int_mode = false;
        }
        if (any) {
            f.sci = hi / lo > 1000.0 || hi > 1.0e8 || (!f.int_mode && lo < 1.0e-4);
            for (int64_t k = 0; k < n; k++) {
                if (!isfinite(vals[k].f) || vals[k].f == 0) continue;
                int len = tfmt_value(&f, vals[k], false, cell, sizeof cell);
                if (len > f.width) f.width = len;
            }
        }
    }
    eir_buf_puts(out, "tensor(");
    size_t start = out->len;
    if (n == 0) eir_buf_puts(out, "[]");
    else { int64_t pos = 0; print_slices(out, &f, t, vals, 0, &pos, 7); }
    free(vals);
    /* suffixes, each on a new line when it would pass the line width */
    char suffix[2][160];
    int ns = 0;
    if (n == 0 && t->rank != 1) {
        int w = snprintf(suffix[ns], sizeof suffix[ns], "size=(");
        for (int32_t d = 0; d < t->rank; d++)
            w += snprintf(suffix[ns] + w, sizeof suffix[ns] - (size_t)w, "%s%lld", d ? ", " : "", (long long)t->sizes[d]);
        snprintf(suffix[ns] + w, sizeof suffix[ns] - (size_t)w, t->rank == 1 ? ",)" : ")");
        ns++;
    }
    if (t->dtype != EIR_F32 && t->dtype != EIR_I64 && t->dtype != EIR_BOOL)
        snprintf(suffix[ns++], sizeof suffix[0], "dtype=torch.%s", eir_dtype_name(t->dtype));
    const char *body = out->data + start;
    const char *nl = strrchr(body, '\n');
    size_t last = nl ? (size_t)(out->len - (size_t)(nl - out->data)) + 1 : out->len - start + 7 + 2;
    for (int k = 0; k < ns; k++) {
        size_t sl = strlen(suffix[k]);
        if (last + sl + 2 > 80) { eir_buf_puts(out, ",\n       "); last = 7 + sl; }
        else { eir_buf_puts(out, ", "); last += sl + 2; }
        eir_buf_puts(out, suffix[k]);
    }
    eir_buf_putc(out, ')');
    return true;
}
static eir_sym_value sym_arg(eir_runtime *rt, const eir_arg *a, bool *ok);

static const eir_arg *print_field(const eir_node *n, const char *f, size_t len, uint32_t *auto_i) {
    if (len == 0 || eir_isdigit(f[0])) {
        uint32_t k = len ? (uint32_t)strtoul(f, NULL, 10) : (*auto_i)++;
        for (uint32_t i = 1, c = 0; i < n->num_inputs; i++)
            if (n->inputs[i].kind != 2 && c++ == k) return &n->inputs[i].arg;
        return NULL;
    }
    for (uint32_t i = 1; i < n->num_inputs; i++)
        if (n->inputs[i].kind == 2 && strlen(n->inputs[i].name) == len && !strncmp(n->inputs[i].name, f, len))
            return &n->inputs[i].arg;
    return NULL;
}

/* the line print writes, or false when eir does not render one of its fields */
static bool print_line(eir_runtime *rt, const eir_node *n, eir_buf *out) {
    const char *fmt = n->inputs[0].arg.u.s;
    uint32_t auto_i = 0;
    for (const char *c = fmt; *c; c++) {
        if ((c[0] == '{' && c[1] == '{') || (c[0] == '}' && c[1] == '}')) { eir_buf_putc(out, *c++); continue; }
        if (*c != '{') { eir_buf_putc(out, *c); continue; }
        const char *end = strchr(c, '}');
        if (!end) return false;
        size_t len = (size_t)(end - c - 1);
        for (size_t k = 0; k < len; k++)
            if (!eir_isalnum(c[1 + k]) && c[1 + k] != '_') return false;   /* a format spec, a conversion, an index */
        const eir_arg *a = print_field(n, c + 1, len, &auto_i);
        if (!a) return false;
        bool ok = true;
        switch (a->kind) {
        case EIR_ARG_INT: eir_buf_printf(out, "%lld", (long long)a->u.i); break;
        case EIR_ARG_FLOAT: eir_buf_put_pyfloat(out, a->u.f); break;
        case EIR_ARG_BOOL: eir_buf_puts(out, a->u.b ? "True" : "False"); break;
        case EIR_ARG_STRING: eir_buf_puts(out, a->u.s); break;
        case EIR_ARG_NONE: eir_buf_puts(out, "None"); break;
        case EIR_ARG_TENSOR:
            if (a->value == EIR_NO_VALUE || !print_tensor(out, &rt->values[a->value].view)) return false;
            break;
        case EIR_ARG_SYM_INT: case EIR_ARG_SYM_BOOL: case EIR_ARG_SYM_FLOAT: {
            eir_sym_value v = sym_arg(rt, a, &ok);
            if (!ok) return false;
            if (a->kind == EIR_ARG_SYM_BOOL) eir_buf_puts(out, v.i ? "True" : "False");
            else if (v.is_float) eir_buf_put_pyfloat(out, v.f);
            else eir_buf_printf(out, "%lld", (long long)v.i);
            break;
        }
        default: return false;
        }
        c = end;
    }
    return true;
}

static eir_status run_print(eir_runtime *rt, const rt_step *s) {
    eir_buf line;
    eir_buf_init(&line);
    bool ok = print_line(rt, s->node, &line);
    if (ok) {
        fputs(line.data ? line.data : "", stdout);
        fputc('\n', stdout);
        fflush(stdout);
    }
    eir_buf_free(&line);
    return EIR_OK;
}

static eir_status bind_hop(eir_runtime *rt, rt_step *st, rt_missing *missing) {
    const eir_node *n = st->node;
    const char *t = n->target + strlen("torch.ops.higher_order.");
    st->kind = STEP_HOP;
    if (!strcmp(t, "print")) {
        if (n->num_inputs < 1 || n->inputs[0].arg.kind != EIR_ARG_STRING)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.print): expected a format string first", n->name);
        st->kind = STEP_PRINT;
        return EIR_OK;
    }
    if (!strcmp(t, "cond")) st->hop = HOP_COND;
    else if (!strcmp(t, "while_loop")) st->hop = HOP_WHILE;
    else if (!strcmp(t, "while_loop_stack_output")) st->hop = HOP_WHILE_STACK;
    else if (!strcmp(t, "map_impl")) st->hop = HOP_MAP;
    else if (!strcmp(t, "scan")) st->hop = HOP_SCAN;
    else if (!strcmp(t, "wrap_with_set_grad_enabled") || !strcmp(t, "wrap_with_autocast") || !strcmp(t, "hints_wrapper") ||
             !strcmp(t, "strict_mode") || !strcmp(t, "invoke_subgraph"))
        return bind_hop_call(rt, st, t, missing);
    else
        return note_missing(rt, missing, short_target(n->target), n->name, NULL, NULL, 1);
    uint32_t ng = 0;
    st->pred = EIR_NO_VALUE;
    for (uint32_t i = 0; i < n->num_inputs; i++) {
        const eir_arg *a = &n->inputs[i].arg;
        if (n->inputs[i].kind == 2) continue; /* keyword options */
        if (a->kind == EIR_ARG_GRAPH) {
            if (ng == 2) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: more than two subgraphs", n->name);
            eir_runtime *sub = NULL;
            eir_status s = runtime_create_graph(rt->p, a->u.graph.graph, false, rt->lib, &sub);
            if (s == EIR_ERR_UNSUPPORTED) {
                if ((s = merge_missing(rt, missing, sub, a->u.graph.name))) return s;
                ng++;           /* the other branch may lack operators too */
                continue;
            }
            if (s) {
                if (!sub) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
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
    if (ng != (uint32_t)want_graphs || st->nlists < (st->hop == HOP_COND ? 1u : 2u) ||
        (st->hop == HOP_COND && st->pred == EIR_NO_VALUE))
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.%s): unexpected arguments", n->name, t);
    return EIR_OK;
}

/* An integer argument of a predispatch vmap op, by position (they are positional) */
static bool vmap_int(const eir_node *n, uint32_t pos, int64_t *out) {
    if (pos >= n->num_inputs) return false;
    const eir_arg *a = &n->inputs[pos].arg;
    if (a->kind == EIR_ARG_INT || (a->kind == EIR_ARG_SYM_INT && a->literal)) { *out = a->u.i; return true; }
    return false;
}

/* torch._functorch.predispatch's ops, which torch.vmap leaves in a program as exported */
static eir_status bind_vmap(eir_runtime *rt, rt_step *st, rt_missing *missing) {
    const eir_node *n = st->node;
    const char *op = n->target + strlen("torch._functorch.predispatch.");
    const char *name = n->name ? n->name : "?";
    if (!strcmp(op, "lazy_load_decompositions")) { st->kind = STEP_NOOP; return EIR_OK; }
    if (!strcmp(op, "_vmap_decrement_nesting")) { st->kind = STEP_VMAP_END; return EIR_OK; }
    if (!strcmp(op, "_vmap_increment_nesting")) {
        /* (batch_size, randomness) */
        const eir_arg *b = n->num_inputs > 0 ? &n->inputs[0].arg : NULL;
        const eir_arg *r = n->num_inputs > 1 ? &n->inputs[1].arg : NULL;
        if (!b || (b->kind != EIR_ARG_INT && b->kind != EIR_ARG_SYM_INT) || !r || r->kind != EIR_ARG_STRING)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): expected (batch_size: SymInt, randomness: str) arguments",
                           name, n->target);
        if (!strcmp(r->u.s, "error")) st->vm_random = VMAP_ERROR;
        else if (!strcmp(r->u.s, "different")) st->vm_random = VMAP_DIFFERENT;
        else if (!strcmp(r->u.s, "same")) st->vm_random = VMAP_SAME;
        else
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): randomness '%s', expected 'error', 'different' or 'same'",
                           name, n->target, r->u.s);
        st->vm_size = b;
        st->kind = STEP_VMAP;
        return EIR_OK;
    }
    bool in = !strcmp(op, "_add_batch_dim");
    if (in || !strcmp(op, "_remove_batch_dim")) {
        /* _add_batch_dim(self, batch_dim, level); _remove_batch_dim(self, level, batch_size, out_dim) */
        const eir_arg *x = n->num_inputs > 0 ? &n->inputs[0].arg : NULL;
        int64_t size;
        if (!x || x->kind != EIR_ARG_TENSOR || x->value == EIR_NO_VALUE || st->nout != 1 || st->outs[0] == EIR_NO_VALUE ||
            !vmap_int(n, in ? 2 : 1, &st->vm_level) || !vmap_int(n, in ? 1 : 3, &st->vm_dim) ||
            (!in && (n->num_inputs < 3 || (!vmap_int(n, 2, &size) && n->inputs[2].arg.kind != EIR_ARG_SYM_INT))))
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): expected %s and one tensor output", name, n->target,
                           in ? "(self: Tensor, batch_dim: int, level: int)"
                              : "(self: Tensor, level: int, batch_size: SymInt, out_dim: int)");
        st->src = x->value;
        st->vm_size = in ? NULL : &n->inputs[2].arg;
        st->kind = in ? STEP_BATCH_IN : STEP_BATCH_OUT;
        return EIR_OK;
    }
    return note_missing(rt, missing, n->target, name, NULL, NULL, 1);
}

/* A vmap inside a cond branch is exported without its _vmap_increment_nesting and
 * _vmap_decrement_nesting (torch drops them from the subgraph; torch's batching ops
 * still work without them, the batch size coming from the tensor). Such a graph's
 * region of level L runs from its first _add_batch_dim / _remove_batch_dim of that level
 * to its last _remove_batch_dim of that level; the batch size is the size of the first
 * one's mapped dimension (or its batch_size argument). Regions of higher levels must lie
 * inside those of lower ones. */
static eir_status bind_implicit_vmap(eir_runtime *rt) {
    int64_t levels = 0;
    for (uint32_t i = 0; i < rt->nsteps; i++)
        if ((rt->steps[i].kind == STEP_BATCH_IN || rt->steps[i].kind == STEP_BATCH_OUT) && rt->steps[i].vm_level > levels)
            levels = rt->steps[i].vm_level;
    uint32_t prev_head = 0, prev_close = rt->nsteps;
    for (int64_t L = 1; L <= levels; L++) {
        uint32_t head = UINT32_MAX, close = UINT32_MAX;
        for (uint32_t i = 0; i < rt->nsteps; i++) {
            rt_step *s = &rt->steps[i];
            if ((s->kind != STEP_BATCH_IN && s->kind != STEP_BATCH_OUT) || s->vm_level != L) continue;
            if (head == UINT32_MAX) head = i;
            if (s->kind == STEP_BATCH_OUT) close = i;
        }
        const rt_step *h = head == UINT32_MAX ? NULL : &rt->steps[head];
        if (!h || close == UINT32_MAX || (L > 1 && (head <= prev_head || close >= prev_close)) ||
            (h->kind == STEP_BATCH_OUT && head != close))
            return rt_fail(rt, EIR_ERR_UNSUPPORTED, "node %%%s (%s): vmap level %lld without _vmap_increment_nesting / "
                           "_vmap_decrement_nesting, whose batching ops eir cannot arrange into one loop",
                           h && h->node->name ? h->node->name : "?", h ? h->node->target : "vmap", (long long)L);
        for (uint32_t i = head; i <= close; i++) {
            rt_step *s = &rt->steps[i];
            if ((s->kind == STEP_BATCH_IN || s->kind == STEP_BATCH_OUT) && s->vm_level == L) s->vm_begin = head;
        }
        rt->steps[head].vm_head = true;
        rt->steps[head].vm_end = close;
        rt->steps[close].vm_close = true;
        prev_head = head;
        prev_close = close;
    }
    return EIR_OK;
}

/* Pair each _vmap_increment_nesting with its _vmap_decrement_nesting (they nest), and give
 * _add_batch_dim / _remove_batch_dim the region of their level: level L is the L-th
 * region open at that point, as torch numbers them when it exports. */
static eir_status bind_vmap_regions(eir_runtime *rt) {
    uint32_t stack[64];
    uint32_t depth = 0;
    bool explicit_regions = false, batching = false;
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        explicit_regions |= rt->steps[i].kind == STEP_VMAP || rt->steps[i].kind == STEP_VMAP_END;
        batching |= rt->steps[i].kind == STEP_BATCH_IN || rt->steps[i].kind == STEP_BATCH_OUT;
    }
    if (batching && !explicit_regions) return bind_implicit_vmap(rt);
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        rt_step *s = &rt->steps[i];
        const char *name = s->node->name ? s->node->name : "?";
        if (s->kind == STEP_VMAP) {
            if (depth == EIR_ARRAY_LEN(stack))
                return rt_fail(rt, EIR_ERR_UNSUPPORTED, "node %%%s (%s): vmap nested more than %zu deep", name,
                               s->node->target, EIR_ARRAY_LEN(stack));
            stack[depth++] = i;
        } else if (s->kind == STEP_VMAP_END) {
            if (!depth)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): no _vmap_increment_nesting before it", name, s->node->target);
            s->vm_begin = stack[--depth];
            rt->steps[s->vm_begin].vm_end = i;
        } else if (s->kind == STEP_BATCH_IN || s->kind == STEP_BATCH_OUT) {
            if (s->vm_level < 1 || s->vm_level > (int64_t)depth)
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): vmap level %lld, but %u vmap level%s open here", name,
                               s->node->target, (long long)s->vm_level, depth, depth == 1 ? " is" : "s are");
            s->vm_begin = stack[s->vm_level - 1];
        }
    }
    if (depth) {
        const rt_step *s = &rt->steps[stack[depth - 1]];
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): no _vmap_decrement_nesting after it", s->node->name ? s->node->name : "?",
                       s->node->target);
    }
    return EIR_OK;
}

/* The steps of a vmap region run once per batch index, so a storage they share with
 * steps outside it lives through the whole region: one made before it (an operand
 * read in every pass) to its end, one that outlives it (a _remove_batch_dim result,
 * written in every pass) from its start. */
static void vmap_lifetimes(eir_runtime *rt) {
    bool changed = true;
    while (changed) {
        changed = false;
        for (uint32_t b = 0; b < rt->nsteps; b++) {
            if (rt->steps[b].kind != STEP_VMAP && !rt->steps[b].vm_head) continue;
            int32_t e = (int32_t)rt->steps[b].vm_end;
            for (uint32_t k = 0; k < rt->nstorages; k++) {
                rt_storage *s = &rt->storages[k];
                if (s->first < 0 && s->last < 0) continue;
                int32_t last = s->pinned ? INT32_MAX : s->last;
                if (last < (int32_t)b || s->first > e) continue;
                if (s->first < (int32_t)b && last < e) { s->last = e; changed = true; }
                if (last > e && s->first > (int32_t)b) { s->first = (int32_t)b; changed = true; }
            }
        }
    }
}

/* out_dtype(op, dtype, *args): the op's kernel on the arguments cast to their dtype
 * promoted with `dtype`, its result cast to `dtype` (torch's out_dtype_fallback) */
static eir_status bind_out_dtype(eir_runtime *rt, uint32_t si, rt_missing *missing) {
    rt_step *st = &rt->steps[si];
    const eir_node *n = st->node;
    if (n->num_inputs < 2 || n->inputs[0].arg.kind != EIR_ARG_OPERATOR || n->inputs[1].arg.kind != EIR_ARG_SCALAR_TYPE ||
        n->num_outputs != 1 || n->outputs[0].kind != EIR_ARG_TENSOR)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (higher_order.out_dtype): expected (operator, dtype, args...) and one "
                       "tensor output", n->name ? n->name : "?");
    const char *inner = n->inputs[0].arg.u.s;
    if (strncmp(inner, "torch.ops.aten.", 15) != 0)
        return note_missing(rt, missing, short_target(inner), n->name, NULL, "inside higher_order.out_dtype", 1);
    eir_node *in = eir_arena_alloc(&rt->arena, sizeof *in);
    if (!in) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    *in = *n;
    in->target = inner;
    in->inputs = n->inputs + 2;
    in->num_inputs = n->num_inputs - 2;
    st->node = in;
    uint32_t before = missing->n;
    eir_status s = bind_step(rt, si, missing);
    if (s || missing->n != before) return s;
    if (st->kind != STEP_KERNEL || st->via_functional || (st->schema->flags & (EIR_OPF_INPLACE | EIR_OPF_OUT)) || st->nout != 1)
        return rt_fail(rt, EIR_ERR_UNSUPPORTED, "node %%%s (higher_order.out_dtype): eir runs out_dtype of functional "
                       "operators with one result, not of %s", n->name ? n->name : "?", short_target(inner));
    st->out_dtype = true;
    return EIR_OK;
}

/* aten.dropout (and feature_, alpha_, feature_alpha_dropout) with a literal train=False or
 * p=0: torch returns the input itself
 * (_dropout_impl in Dropout.cpp), so the step is a view of it (no copy; a write through the
 * result reaches the input, as in torch) */
static bool dropout_identity(const eir_node *n, const char *op) {
    if (strcmp(op, "aten.dropout.default") && strcmp(op, "aten.feature_dropout.default") &&
        strcmp(op, "aten.alpha_dropout.default") && strcmp(op, "aten.feature_alpha_dropout.default"))
        return false;
    const eir_arg *p = node_arg(n, "p", 1), *train = node_arg(n, "train", 2);
    if (train && train->kind == EIR_ARG_BOOL && !train->u.b) return true;
    return p && ((p->kind == EIR_ARG_FLOAT && p->u.f == 0) || (p->kind == EIR_ARG_INT && p->u.i == 0));
}

static eir_status bind_step(eir_runtime *rt, uint32_t si, rt_missing *missing) {
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
    if (!strcmp(t, "torch.ops.higher_order.with_effects")) return bind_effects(rt, si, missing);
    if (!strcmp(t, "torch.ops.higher_order.auto_functionalized_v2")) return bind_autofunc(rt, si, missing);
    if (!strcmp(t, "torch.ops.higher_order.out_dtype")) return bind_out_dtype(rt, si, missing);
    if (!strncmp(t, "torch.ops.higher_order.", 23)) return bind_hop(rt, st, missing);
    if (!strncmp(t, "torch._functorch.predispatch.", 29)) return bind_vmap(rt, st, missing);
    if (!strcmp(t, "torch.ops.aten.nonzero.default") || !strcmp(t, "torch.ops.aten.argwhere.default") ||
        !strcmp(t, "torch.ops.aten.item.default") || !strcmp(t, "torch.ops.aten._local_scalar_dense.default")) {
        /* data-dependent: the count / the value binds an unbacked symbol (argwhere is nonzero) */
        st->kind = strstr(t, "nonzero") || strstr(t, "argwhere") ? STEP_NONZERO : STEP_ITEM;
        st->src = EIR_NO_VALUE;
        for (uint32_t i = 0; i < n->num_inputs; i++)
            if (n->inputs[i].arg.kind == EIR_ARG_TENSOR) { st->src = n->inputs[i].arg.value; break; }
        if (st->src == EIR_NO_VALUE || st->nout != 1 || st->outs[0] == EIR_NO_VALUE)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): expected one tensor input and one output", n->name, short_target(t));
        return EIR_OK;
    }
    if (!strcmp(t, "torch.ops.aten.masked_select.default")) {
        /* data-dependent: the number of selected elements binds an unbacked symbol */
        const eir_arg *x = node_arg(n, "self", 0), *m = node_arg(n, "mask", 1);
        if (!x || !m || x->kind != EIR_ARG_TENSOR || m->kind != EIR_ARG_TENSOR || st->nout != 1 || st->outs[0] == EIR_NO_VALUE)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (aten.masked_select.default): expected self, mask and one output", n->name);
        st->kind = STEP_MASKED_SELECT;
        st->src = x->value;
        st->src2 = m->value;
        return EIR_OK;
    }
    if (!strcmp(t, "torch.ops.aten.repeat_interleave.Tensor") || !strcmp(t, "torch.ops.aten.repeat_interleave.self_Tensor")) {
        /* data-dependent: the sum of the repeats binds the output's unbacked size */
        bool self_form = strstr(t, "self_Tensor") != NULL;
        const eir_arg *x = self_form ? node_arg(n, "self", 0) : NULL, *r = node_arg(n, "repeats", self_form ? 1 : 0);
        if ((self_form && (!x || x->kind != EIR_ARG_TENSOR)) || !r || r->kind != EIR_ARG_TENSOR || st->nout != 1)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): expected tensor arguments and one output", n->name, short_target(t));
        const eir_arg *dim = self_form ? node_arg(n, "dim", 2) : NULL;
        st->kind = STEP_REPEAT_INTERLEAVE;
        st->src = self_form ? x->value : EIR_NO_VALUE;
        st->src2 = r->value;
        st->flags[0] = dim && dim->kind == EIR_ARG_INT;     /* a dim is given */
        st->pred = st->flags[0] ? (uint32_t)(int32_t)dim->u.i : 0;
        return EIR_OK;
    }
    if (!strcmp(t, "torch.ops.aten._unique2.default")) {
        const eir_arg *x = node_arg(n, "self", 0);
        if (!x || x->kind != EIR_ARG_TENSOR || st->nout != 3)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (aten._unique2.default): expected self and three outputs", n->name);
        static const char *const flag_names[3] = {"sorted", "return_inverse", "return_counts"};
        for (int k = 0; k < 3; k++) {
            const eir_arg *f = node_arg(n, flag_names[k], (uint32_t)k + 1);
            st->flags[k] = f && f->kind == EIR_ARG_BOOL ? f->u.b : k == 0;
        }
        st->kind = STEP_UNIQUE;
        st->src = x->value;
        return EIR_OK;
    }
    const char *op = short_target(t);
    const eir_custom_op *custom = eir_library_find(rt->lib, t);
    if (custom) return bind_custom(rt, si, custom, false);
    const eir_op_schema *sc = eir_op_find(op);
    /* Views (src/kernels/view.c) share their source's storage, with geometry the op computes when it
     * runs. detach_ changes autograd state only: its result is self. resize_ changes self's geometry in
     * place and leaves the data where it is: its storage is sized for the largest value that aliases it,
     * so growing works; see check_resize for the storages it may not grow. */
    bool maycopy = sc && eir_view_may_copy(op);
    bool complex_src = false;
    for (uint32_t i = 0; i < n->num_inputs; i++)
        if (n->inputs[i].arg.kind == EIR_ARG_TENSOR && n->inputs[i].arg.value < rt->nvalues) {
            complex_src = eir_is_complex(rt->g->values[n->inputs[i].arg.value].meta.dtype);
            break;
        }
    bool view = sc && !maycopy &&
                ((eir_view_op(op) && !(view_runs_as_copy(op) && complex_src)) || dropout_identity(n, op));
    eir_kernel_fn fn = NULL;
    if (sc && !view && !maycopy) fn = find_kernel(op);
    if (!fn && sc && (sc->flags & EIR_OPF_INPLACE) && (fn = functional_kernel(sc))) st->via_functional = true;
    /* an out= overload runs its functional overload's kernel; the outputs share the out arguments' storage */
    if (!fn && sc && (sc->flags & EIR_OPF_OUT) && eir_op_functional(sc, NULL)) fn = find_kernel(eir_op_functional(sc, NULL)->name);
    if (!sc || (!view && !fn && !maycopy)) return note_missing(rt, missing, op, n->name, NULL, NULL, 1);
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
    if (view || maycopy) {
        st->kind = view ? STEP_VIEW : STEP_MAYCOPY;
        st->offs = eir_arena_array(&rt->arena, st->nout ? st->nout : 1, sizeof *st->offs);
        if (!st->offs) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
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
        io->value = (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_SYM_INT || a->kind == EIR_ARG_SYM_FLOAT ||
                     a->kind == EIR_ARG_SYM_BOOL) ? a->value : EIR_NO_VALUE;
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
        if (s->kind == EIR_IN_TOKEN && a->kind == EIR_ARG_TENSOR && a->value != EIR_NO_VALUE) {
            /* an effect token: an empty tensor that only orders effectful ops */
            static uint64_t token_payload;
            int32_t sid = new_storage(rt);
            if (sid < 0) { eir_strmap_free(&recs); return rt_fail(rt, EIR_ERR_NOMEM, "out of memory"); }
            rt->values[a->value].storage = sid;
            rt->storages[sid].external = rt->storages[sid].pinned = true;
            rt->storages[sid].ext = &token_payload;
            continue;
        }
        if (s->kind == EIR_IN_TOKEN || s->kind == EIR_IN_CUSTOM_OBJ) {
            eir_strmap_free(&recs);
            return rt_fail(rt, EIR_ERR_GRAPH, "input %s: %s inputs are not supported yet", a->name ? a->name : "?",
                           s->kind == EIR_IN_TOKEN ? "malformed effect token" : "custom object (torchbind)");
        }
        const eir_tensor *t = eir_program_find_tensor(p, s->target);
        if (!t || !t->data) {
            eir_strmap_free(&recs);
            if (t && t->subclass)
                return rt_fail(rt, EIR_ERR_TENSOR, "input %s: '%s' is a %s, a tensor subclass with no storage of its "
                               "own (its data is in %u inner tensors); eir does not run wrapper subclasses", a->name,
                               s->target, t->subclass, t->num_inner);
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
            rt->storages[sid].payload = true;
            /* kernels load whole elements: a payload off their alignment (a record at an odd
             * offset in the archive, or a caller's unaligned buffer) is read from a copy */
            if ((uintptr_t)t->data % 16) {
                void *copy = malloc(t->storage_nbytes ? t->storage_nbytes : 1);
                if (!copy) { eir_strmap_free(&recs); return rt_fail(rt, EIR_ERR_NOMEM, "out of memory"); }
                memcpy(copy, t->data, t->storage_nbytes);
                rt->storages[sid].owned = rt->storages[sid].ext = copy;
            }
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
        if (o->kind != EIR_OUT_BUFFER_MUTATION && o->kind != EIR_OUT_USER_INPUT_MUTATION &&
            o->kind != EIR_OUT_PARAMETER_MUTATION)
            continue;
        uint32_t dst = EIR_NO_VALUE;
        for (uint32_t k = 0; k < p->num_input_specs; k++) {
            const eir_input_spec *in = &p->input_specs[k];
            if (o->kind == EIR_OUT_BUFFER_MUTATION && in->kind == EIR_IN_BUFFER && !strcmp(in->target, o->target))
                dst = in->arg.value;
            if (o->kind == EIR_OUT_PARAMETER_MUTATION && in->kind == EIR_IN_PARAMETER && !strcmp(in->target, o->target))
                dst = in->arg.value;
            if (o->kind == EIR_OUT_USER_INPUT_MUTATION && in->kind == EIR_IN_USER_INPUT && in->arg.name &&
                !strcmp(in->arg.name, o->target))
                dst = in->arg.value;
        }
        if (dst == EIR_NO_VALUE || o->arg.value == EIR_NO_VALUE || !rt->values[dst].is_tensor)
            return rt_fail(rt, EIR_ERR_GRAPH, "output %s mutates '%s', which is not an input of the program",
                           o->arg.name ? o->arg.name : "?", o->target ? o->target : "?");
        eir_status e = write_storage(rt, rt->values[dst].storage);
        if (e) return e;
        rt->writes[rt->nwrites].src = o->arg.value;
        rt->writes[rt->nwrites].dst = dst;
        rt->nwrites++;
    }
    /* the state the program writes, by FQN */
    rt->mutated = eir_arena_array(&rt->arena, p->num_input_specs + 1, sizeof *rt->mutated);
    if (!rt->mutated) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    for (uint32_t k = 0; k < p->num_input_specs; k++) {
        const eir_input_spec *in = &p->input_specs[k];
        if ((in->kind != EIR_IN_PARAMETER && in->kind != EIR_IN_BUFFER && in->kind != EIR_IN_CONSTANT_TENSOR) ||
            in->arg.value == EIR_NO_VALUE)
            continue;
        int32_t sid = rt->values[in->arg.value].storage;
        if (sid >= 0 && rt->storages[sid].written) rt->mutated[rt->nmutated++] = in->target;
    }
    return EIR_OK;
}

const char *eir_runtime_mutated_state(const eir_runtime *rt, uint32_t i) {
    return rt && i < rt->nmutated ? rt->mutated[i] : NULL;
}

/* For output k of an out= step: the value of its out argument when that has exactly the output's
 * recorded geometry (torch writes the result into it); else EIR_NO_VALUE, and the result gets
 * storage of its own (torch would have resized the argument). */
static uint32_t out_arg_value(eir_runtime *rt, const rt_step *s, uint32_t k) {
    uint32_t nouts = 0;
    if (!(s->schema->flags & EIR_OPF_OUT) || !eir_op_functional(s->schema, &nouts) || k >= nouts) return EIR_NO_VALUE;
    const eir_schema_arg *sa = &s->schema->args[s->schema->nargs - nouts + k];
    const eir_named_arg *na = find_input(s->node, sa->name, s->schema->nargs - nouts + k, true);
    if (!na || na->arg.kind != EIR_ARG_TENSOR || na->arg.value == EIR_NO_VALUE || s->outs[k] == EIR_NO_VALUE) return EIR_NO_VALUE;
    const eir_tensor_meta *a = &rt->g->values[na->arg.value].meta, *b = &rt->g->values[s->outs[k]].meta;
    if (a->dtype != b->dtype || a->rank != b->rank || !same_symint(&a->storage_offset, &b->storage_offset)) return EIR_NO_VALUE;
    for (uint32_t d = 0; d < a->rank; d++)
        if (!same_symint(&a->sizes[d], &b->sizes[d]) || !same_symint(&a->strides[d], &b->strides[d])) return EIR_NO_VALUE;
    return na->arg.value;
}

void eir_runtime_seed(eir_runtime *rt, uint64_t seed) {
    if (!rt) return;
    rt->rng = seed * 0x9E3779B97F4A7C15ull + 0x853c49e6748fea9bull;
    for (uint32_t i = 0; rt->steps && i < rt->nsteps; i++)
        for (int k = 0; k < 2; k++)
            if (rt->steps[i].sub[k]) eir_runtime_seed(rt->steps[i].sub[k], seed + 1 + i * 2 + (uint64_t)k);
}

/* Parameters, buffers and constants the program never writes: a float32 product may copy an
 * operand that lies in one, once for this runtime (kernels/gemm.c; dropped in eir_runtime_free).
 * map: the archive the caller's program was read from; a payload read in place from it (not an
 * inflated or realigned copy) is file-backed, and gives its pages back once copied. */
static void declare_constants(eir_runtime *rt, const eir_mapped *map) {
    for (uint32_t i = 0; i < rt->nstorages; i++)
        if (rt->storages[i].payload && !rt->storages[i].written && rt->storages[i].ext) {
            const char *x = rt->storages[i].ext;
            bool mapped = map->is_mmap && !rt->storages[i].owned && x >= (const char *)map->data &&
                          (size_t)rt->storages[i].nbytes <= map->size - (size_t)(x - (const char *)map->data);
            (void)eir_sgemm_const_add(rt, x, (size_t)rt->storages[i].nbytes, mapped);
            (void)eir_dnnl_conv_const_add(rt, x, (size_t)rt->storages[i].nbytes, mapped);
        }
}

eir_status eir_runtime_create_with(eir_program *p, const eir_library *lib, eir_runtime **out) {
    if (!out) return EIR_ERR_ARG;
    if (!p || !p->graph) {
        *out = calloc(1, sizeof **out);
        if (!*out) return EIR_ERR_NOMEM;
        return rt_fail(*out, EIR_ERR_ARG, "eir_runtime_create: no loaded program");
    }
    eir_blas_single_thread();   /* the runtime's thread count governs matrix products too */
    /* the Backend dialect's fused operators, on a private copy (src/passes/backend.c) */
    eir_program *q = NULL;
    void *qbuf = NULL;
    eir_status st = eir_backend_bind_copy(p, &q, &qbuf);
    if (st) {
        *out = calloc(1, sizeof **out);
        if (!*out) return EIR_ERR_NOMEM;
        return rt_fail(*out, st, "eir_runtime_create: out of memory");
    }
    if (q) {
        st = runtime_create_graph(q, q->graph, true, lib, out);
        if (!st) {
            declare_constants(*out, &p->map);
            (*out)->fused = q;
            (*out)->fused_buf = qbuf;
            /* outputs keep the names the caller's program gives them (fusion renames the
             * calls that compute them); user outputs are in the same order in both */
            for (uint32_t i = 0, k = 0; i < p->num_output_specs && k < (*out)->noutputs; i++)
                if (p->output_specs[i].kind == EIR_OUT_USER_OUTPUT)
                    (*out)->outputs[k++].name = p->output_specs[i].arg.name ? p->output_specs[i].arg.name : "";
            return EIR_OK;
        }
        /* the unfused program gives the messages its user knows */
        eir_runtime_free(*out);
        eir_program_free(q);
        eir_free(qbuf);
    }
    st = runtime_create_graph(p, p->graph, true, lib, out);
    if (!st) declare_constants(*out, &p->map);
    return st;
}

eir_status eir_runtime_create(eir_program *p, eir_runtime **out) { return eir_runtime_create_with(p, NULL, out); }

/* ---- operators eir lacks ---- */

/* Count one more use of op (count: uses, for a subgraph's list); the first
 * use is the node reported. Strings are borrowed from the program (or are
 * literals), so the entries survive the subgraph runtimes they came from. */
static eir_status note_missing(eir_runtime *rt, rt_missing *m, const char *op, const char *node, const char *subgraph,
                               const char *context, uint32_t count) {
    for (uint32_t i = 0; i < m->n; i++)
        if (!strcmp(m->ops[i].op, op)) {
            m->ops[i].count += count;
            return EIR_OK;
        }
    if (m->n == m->cap) {
        uint32_t cap = m->cap ? 2 * m->cap : 8;
        eir_missing_op *ops = eir_arena_array(&rt->arena, cap, sizeof *ops);
        if (!ops) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        if (m->n) memcpy(ops, m->ops, m->n * sizeof *ops);
        m->ops = ops;
        m->cap = cap;
    }
    eir_missing_op *e = &m->ops[m->n++];
    memset(e, 0, sizeof *e);
    e->op = op;
    e->count = count;
    e->first_node = node ? node : "?";
    e->subgraph = subgraph;
    e->context = context;
    e->custom = strncmp(op, "aten.", 5) && strncmp(op, "prims.", 6) && strncmp(op, "higher_order.", 13);
    /* what ep.run_decompositions() would do with it (src/ops/schemas.inc, from torch) */
    const eir_op_schema *sc = e->custom ? NULL : eir_op_find(op);
    const eir_op_schema *f = eir_op_inplace_functional(sc);
    if (sc && (sc->flags & EIR_OPF_DECOMP)) {
        e->decomp = EIR_DECOMP_TORCH;
    } else if (f) {
        e->decomp = EIR_DECOMP_FUNCTIONAL;
        e->functional = f->name;
        e->functional_runs = find_kernel(f->name) || eir_view_may_copy(f->name) || (f->flags & EIR_OPF_VIEW);
    }
    return EIR_OK;
}

/* A subgraph runtime that failed for lack of operators: its list joins ours. */
static eir_status merge_missing(eir_runtime *rt, rt_missing *m, eir_runtime *sub, const char *subgraph) {
    eir_status st = EIR_OK;
    for (uint32_t i = 0; i < sub->nmissing && !st; i++) {
        const eir_missing_op *e = &sub->missing[i];
        st = note_missing(rt, m, e->op, e->first_node, e->subgraph ? e->subgraph : subgraph, e->context, e->count);
    }
    eir_runtime_free(sub);
    return st;
}

/* an in-place op's functional form: 1 eir runs it, 2 torch decomposes it further, 0 neither */
static int functional_fate(const eir_missing_op *e) {
    if (e->functional_runs) return 1;
    const eir_op_schema *f = e->functional ? eir_op_find(e->functional) : NULL;
    return f && (f->flags & EIR_OPF_DECOMP) ? 2 : 0;
}

/* "a, b, c and 2 others" of the entries of one kind (in-place ones: of one
 * functional_fate, unless fate < 0); with `functional`, their functional forms */
static int hint_names(char *out, size_t cap, const rt_missing *m, eir_decomp_kind kind, int fate, bool functional) {
    int k = 0, n = 0, total = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < m->n; i++)
        total += m->ops[i].decomp == kind && (fate < 0 || functional_fate(&m->ops[i]) == fate);
    for (uint32_t i = 0; i < m->n && k >= 0 && (size_t)k < cap; i++) {
        const eir_missing_op *e = &m->ops[i];
        if (e->decomp != kind || (fate >= 0 && functional_fate(e) != fate)) continue;
        if (n == 4) { k += snprintf(out + k, cap - (size_t)k, " and %d others", total - n); break; }
        k += snprintf(out + k, cap - (size_t)k, "%s%s", n == 0 ? "" : n + 1 == total ? " and " : ", ",
                      functional ? e->functional : e->op);
        n++;
    }
    return n;
}

/* The hints after the list, per operator, as torch 2.13 behaves (checked by
 * python/tests/test_missing_ops.py): ep.run_decompositions() rewrites
 * non-core ops with a default decomposition (EIR_OPF_DECOMP), and its
 * functionalization turns in-place ops into their functional forms
 * (EIR_OPF_FUNCTIONAL), which eir may run. Empty when it would change
 * nothing. */
static void decomp_hint(const rt_missing *m, char *out, size_t cap) {
    char a[512], b[512];
    size_t k = 0;
    out[0] = 0;
    int nt = hint_names(a, sizeof a, m, EIR_DECOMP_TORCH, -1, false);
    if (nt && k < cap)
        k += (size_t)snprintf(out + k, cap - k, "\nhint: %s %s; torch has %s: ep.run_decompositions() before "
                              "torch.export.save rewrites %s into Core ATen ops, which eir runs (or into other ops, "
                              "which eir then names)", a, nt == 1 ? "is not a Core ATen op" : "are not Core ATen ops",
                              nt == 1 ? "a decomposition for it" : "decompositions for them", nt == 1 ? "it" : "them");
    static const char *const fates[] = {
        "which eir cannot run either", "which eir runs",
        "which torch decomposes further (into Core ATen ops, which eir runs, or into other ops, which eir then names)"};
    for (int fate = 1; fate <= 3; fate++) {
        int nf = hint_names(a, sizeof a, m, EIR_DECOMP_FUNCTIONAL, fate % 3, false);
        hint_names(b, sizeof b, m, EIR_DECOMP_FUNCTIONAL, fate % 3, true);
        if (nf && k < cap)
            k += (size_t)snprintf(out + k, cap - k, "\nhint: %s %s in place; ep.run_decompositions() before "
                                  "torch.export.save functionalizes %s into %s, %s", a, nf == 1 ? "writes" : "write",
                                  nf == 1 ? "it" : "them", b, fates[fate % 3]);
        nt += nf;
    }
    if (nt && (uint32_t)nt < m->n && k < cap)
        snprintf(out + k, cap - k, "\nhint: torch has no decomposition for the other missing operator%s",
                 m->n - (uint32_t)nt == 1 ? "" : "s");
}

/* "40 nodes use 2 operators eir cannot run yet:", one line per operator, and
 * the hints: the whole list, however long (errmsg holds what fits) */
static eir_status missing_failure(eir_runtime *rt, const rt_missing *m) {
    rt->missing = m->ops;
    rt->nmissing = m->n;
    uint32_t nodes = 0;
    for (uint32_t i = 0; i < m->n; i++) nodes += m->ops[i].count;
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_printf(&b, "%u node%s %u operator%s eir cannot run yet:", nodes, nodes == 1 ? " uses" : "s use", m->n,
                   m->n == 1 ? "" : "s");
    for (uint32_t i = 0; i < m->n; i++) {
        const eir_missing_op *e = &m->ops[i];
        if (e->count == 1) eir_buf_printf(&b, "\n  %s (node %%%s", e->op, e->first_node);
        else eir_buf_printf(&b, "\n  %s (%u nodes, first %%%s", e->op, e->count, e->first_node);
        if (e->subgraph) eir_buf_printf(&b, ", in subgraph %s", e->subgraph);
        if (e->context) eir_buf_printf(&b, ", %s", e->context);
        eir_buf_printf(&b, ")%s", e->custom ? ", a custom operator" : "");
    }
    if (rt->root) {
        char hint[2048];
        decomp_hint(m, hint, sizeof hint);
        eir_buf_puts(&b, hint);
    }
    rt->missing_msg = b.oom || !b.data ? NULL : eir_arena_strdup(&rt->arena, b.data);
    rt_fail(rt, EIR_ERR_UNSUPPORTED, "%s", b.data && !b.oom ? b.data : "out of memory");
    eir_buf_free(&b);
    return EIR_ERR_UNSUPPORTED;
}

uint32_t eir_runtime_num_missing_ops(const eir_runtime *rt) { return rt ? rt->nmissing : 0; }

const eir_missing_op *eir_runtime_missing_op(const eir_runtime *rt, uint32_t i) {
    return rt && i < rt->nmissing ? &rt->missing[i] : NULL;
}

static eir_status runtime_create_graph(eir_program *p, const eir_graph *graph, bool root, const eir_library *lib,
                                       eir_runtime **out) {
    eir_runtime *rt = *out = calloc(1, sizeof *rt);
    if (!rt) return EIR_ERR_NOMEM;
    rt->p = p;
    rt->lib = lib;
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
            eir_value_kind k = g->values[i].kind;
            rt->values[i].sym_float = k == EIR_VALUE_SYM_FLOAT;
            if (k == EIR_VALUE_SYM_INT || k == EIR_VALUE_SYM_BOOL || k == EIR_VALUE_SYM_FLOAT) {
                if (g->values[i].sym.is_expr) collect_symbols(rt, p->exprs[g->values[i].sym.expr].tree);
                else if (k == EIR_VALUE_SYM_FLOAT) { rt->values[i].symf = g->values[i].symf; rt->values[i].sym_set = true; }
                else { rt->values[i].symval = g->values[i].sym.value; rt->values[i].sym_set = true; }
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
    if (root) {
        char gerr[1024];
        rt->guards = eir_guards_build(p, gerr, sizeof gerr);
        if (!rt->guards) return rt_fail(rt, EIR_ERR_GRAPH, "input guards: %s", gerr);
        rt->guard_in = eir_arena_array(&rt->arena, rt->ninputs + 1, sizeof *rt->guard_in);
        if (!rt->guard_in) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    }

    /* steps */
    rt->nsteps = g->num_nodes;
    rt->steps = eir_arena_array(&rt->arena, g->num_nodes ? g->num_nodes : 1, sizeof *rt->steps);
    if (!rt->steps) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    rt_missing missing = {0};
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        rt->steps[i].node = &g->nodes[i];
        st = bind_step(rt, i, &missing);
        if (st) return st;
    }
    if (missing.n) return missing_failure(rt, &missing);
    if ((st = bind_vmap_regions(rt))) return st;

    /* storages of step outputs: views and in-place ops share their source's */
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        rt_step *s = &rt->steps[i];
        for (uint32_t k = 0; k < s->nout; k++) {
            uint32_t v = s->outs[k];
            if (v == EIR_NO_VALUE || !rt->values[v].is_tensor) continue;
            if (s->kind == STEP_VIEW || s->kind == STEP_BATCH_IN) {
                rt->values[v].storage = rt->values[s->src].storage;
                rt->values[v].rview = true;
                rt->values[v].sizes_storage = s->schema && !strcmp(s->schema->name, "aten.resize_.default");
            } else if (s->kind == STEP_KERNEL && (s->schema->flags & EIR_OPF_INPLACE) && k == 0 &&
                       s->args[0].kind == EIR_KA_TENSOR) {
                uint32_t src = EIR_NO_VALUE;
                for (uint32_t q = 0; q < s->node->num_inputs; q++)
                    if (s->node->inputs[q].arg.kind == EIR_ARG_TENSOR) { src = s->node->inputs[q].arg.value; break; }
                int32_t sid = src == EIR_NO_VALUE ? -1 : rt->values[src].storage;
                rt->values[v].storage = sid;
                rt->values[v].rview = src != EIR_NO_VALUE;
                s->src = src;
                if ((st = write_storage(rt, sid))) return st;
            } else if (s->kind == STEP_KERNEL && out_arg_value(rt, s, k) != EIR_NO_VALUE) {
                int32_t sid = rt->values[out_arg_value(rt, s, k)].storage;
                rt->values[v].storage = sid;
                rt->values[v].rview = true;
                if ((st = write_storage(rt, sid))) return st;
            } else {
                int32_t sid = new_storage(rt);
                if (sid < 0) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
                rt->values[v].storage = sid;
                rt->storages[sid].first = (int32_t)i;
                rt->storages[sid].last = (int32_t)i;
                if (s->kind == STEP_MAYCOPY) {
                    /* a view of the source when torch can make one: writes may land there (never
                     * when the dtype changes, which always copies) */
                    if (g->values[v].meta.dtype == g->values[s->src].meta.dtype)
                        rt->storages[sid].parent = rt->values[s->src].storage;
                    rt->values[v].rview = rt->values[v].sizes_storage = true;
                }
            }
        }
        /* arguments the op writes in place besides self (batch norm's running stats); instance_norm
         * updates its running stats through an alias its schema does not declare */
        if (s->kind == STEP_HOP && (st = hop_writes(rt, s))) return st;
        uint64_t mut = s->kind == STEP_KERNEL ? eir_op_mutates_args(s->schema) : 0;
        if (s->kind == STEP_KERNEL && !strcmp(s->schema->name, "aten.instance_norm.default")) mut |= 3u << 3;
        /* batch norm writes its running stats only in training mode: an eval-mode call (training a
         * literal False) leaves them untouched, so they are neither copied nor reported mutated */
        if (mut && s->kind == STEP_KERNEL && s->schema->nargs > 5 && !strcmp(s->schema->args[5].name, "training")) {
            const eir_named_arg *tr = find_input(s->node, "training", 5, false);
            if (tr && tr->arg.kind == EIR_ARG_BOOL && !tr->arg.u.b) mut = 0;
        }
        for (uint32_t q = 0; mut && q < s->schema->nargs && q < 64; q++) {
            if (!(mut >> q & 1)) continue;
            const eir_named_arg *na = find_input(s->node, s->schema->args[q].name, q, false);
            if (na && na->arg.kind == EIR_ARG_TENSOR && na->arg.value != EIR_NO_VALUE &&
                (st = write_storage(rt, rt->values[na->arg.value].storage)))
                return st;
        }
    }
    if ((st = check_resize(rt))) return st;
    /* torch's conj() of a complex tensor is a view with a lazy conjugate bit; eir runs it as a
     * conjugating copy, so a write through it would not reach the source: refused, not lost */
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        const rt_step *s = &rt->steps[i];
        if (s->kind != STEP_KERNEL || !s->schema || !view_runs_as_copy(s->schema->name) || !s->nout ||
            s->outs[0] == EIR_NO_VALUE || rt->values[s->outs[0]].storage < 0 ||
            !rt->storages[rt->values[s->outs[0]].storage].written)
            continue;
        return rt_fail(rt, EIR_ERR_UNSUPPORTED,
                       "node %%%s (%s): the program writes through this conjugate view of a complex tensor; torch "
                       "writes the conjugated values into its source, and eir, which runs %s as a copy, cannot yet",
                       s->node->name ? s->node->name : "?", s->schema->name, s->schema->name);
    }
    /* a custom op's Tensor(a!) arguments are written in place */
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        rt_step *s = &rt->steps[i];
        for (uint32_t k = 0; s->kind == STEP_CUSTOM && !s->bases && k < s->nmut; k++)
            if (s->mut[k].value != EIR_NO_VALUE && (st = write_storage(rt, rt->values[s->mut[k].value].storage))) return st;
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
        /* a with_effects step reads its token too */
        if (rt->steps[i].node != &g->nodes[i])
            for (uint32_t k = 0; k < g->nodes[i].num_inputs; k++)
                if (g->nodes[i].inputs[k].arg.kind == EIR_ARG_TENSOR && g->nodes[i].inputs[k].arg.value != EIR_NO_VALUE)
                    use_storage(rt, g->nodes[i].inputs[k].arg.value, (int32_t)i);
    }
    for (uint32_t i = 0; i < g->num_outputs; i++) {
        const eir_arg *a = &g->outputs[i];
        if (a->value != EIR_NO_VALUE && a->kind == EIR_ARG_TENSOR)
            for (int32_t sid = rt->values[a->value].storage; sid >= 0; sid = rt->storages[sid].parent)
                rt->storages[sid].pinned = true;
    }
    if (root && (st = setup_writes(rt))) return st;
    vmap_lifetimes(rt);
    return EIR_OK;
}

void eir_runtime_free(eir_runtime *rt) {
    if (!rt) return;
    eir_sgemm_const_drop(rt);
    eir_dnnl_conv_const_drop(rt);
    for (uint32_t i = 0; rt->steps && i < rt->nsteps; i++) {
        eir_runtime_free(rt->steps[i].sub[0]);
        eir_runtime_free(rt->steps[i].sub[1]);
        free(rt->steps[i].scratch);
        free(rt->steps[i].od_buf);
        for (uint32_t k = 0; rt->steps[i].ws_buf && k < rt->steps[i].nout; k++) free(rt->steps[i].ws_buf[k]);
        if (rt->steps[i].cast_buf)
            for (uint32_t k = 0; k < rt->steps[i].nargs; k++) free(rt->steps[i].cast_buf[k]);
    }
    for (uint32_t i = 0; i < rt->nstorages; i++) { free(rt->storages[i].owned); free(rt->storages[i].dyn); }
    for (uint32_t i = 0; i < rt->ninputs; i++) free(rt->inputs[i].copy);
    free(rt->storages);
    free(rt->symvals);
    free(rt->sym_bound);
    free(rt->mem);
    free(rt->last_shapes);
    eir_guards_free(rt->guards);
    eir_strmap_free(&rt->sym_index);
    eir_arena_release(&rt->arena);
    eir_pool_free(rt->pool);
    free(rt->prof);
    eir_program *fused = rt->fused;
    void *fused_buf = rt->fused_buf;
    free(rt);
    if (fused) eir_program_free(fused);
    eir_free(fused_buf);
}

const char *eir_runtime_errmsg(const eir_runtime *rt) {
    return !rt ? "out of memory" : rt->missing_msg ? rt->missing_msg : rt->errmsg;
}

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
        int32_t sid = rt->values[io->value].storage;
        info->mutated = sid >= 0 && rt->storages[sid].written;
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
    if (io->value == EIR_NO_VALUE) {
        info->is_constant = true;
        info->is_none = !io->arg || io->arg->kind == EIR_ARG_NONE;
        return EIR_OK;
    }
    const eir_value *v = &rt->g->values[io->value];
    info->is_tensor = v->kind == EIR_VALUE_TENSOR;
    info->is_symbolic_int = !info->is_tensor;
    info->dtype = info->is_tensor ? v->meta.dtype : EIR_I64;
    info->rank = info->is_tensor ? v->meta.rank : 0;
    return EIR_OK;
}

static const char *input_label(eir_runtime *rt, uint32_t i, char *buf, size_t n);

/* A constant input (a Python int, float or bool torch.export burned into the
 * program) given anyway: ep.module() guards it as `n == 3`, so a 0-d number
 * equal to it in Python's sense (3.0 == 3, True == 1) is accepted and
 * ignored, and any other is refused with torch's guard text. */
static eir_status check_constant(eir_runtime *rt, uint32_t i, const eir_tensor_view *v, const char *lab) {
    const eir_arg *a = rt->inputs[i].arg;
    bool numeric = a && (a->kind == EIR_ARG_INT || a->kind == EIR_ARG_FLOAT || a->kind == EIR_ARG_BOOL);
    if (!numeric || !v || v->rank != 0 || !v->data || !(eir_is_floating(v->dtype) || eir_is_integral(v->dtype, true)))
        return rt_fail(rt, EIR_ERR_ARG, "%s is a constant burned into the program; it takes no data%s", lab,
                       numeric ? " but a 0-d number equal to it" : "");
    bool int_given = !eir_is_floating(v->dtype), same;
    int64_t gi = int_given ? eir_load_i64(v->data, v->dtype) : 0;
    double gf = int_given ? (double)gi : eir_load_f64(v->data, v->dtype);
    if (a->kind == EIR_ARG_FLOAT) same = gf == a->u.f;
    else {
        int64_t w = a->kind == EIR_ARG_BOOL ? a->u.b : a->u.i;
        same = int_given ? gi == w : gf == (double)w;
    }
    if (same) return EIR_OK;
    const char *path = rt->guards ? eir_guards_path(rt->guards, i) : NULL;
    if (!path) path = rt->inputs[i].name;
    eir_buf want, got;
    eir_buf_init(&want);
    eir_buf_init(&got);
    if (a->kind == EIR_ARG_FLOAT) eir_buf_put_pyfloat(&want, a->u.f);
    else if (a->kind == EIR_ARG_BOOL) eir_buf_puts(&want, a->u.b ? "True" : "False");
    else eir_buf_printf(&want, "%lld", (long long)a->u.i);
    if (v->dtype == EIR_BOOL) eir_buf_puts(&got, gi ? "True" : "False");
    else if (int_given) eir_buf_printf(&got, "%lld", (long long)gi);
    else eir_buf_put_pyfloat(&got, gf);
    rt_fail(rt, EIR_ERR_ARG, "%s: Guard failed: %s == %s (%s = %s)", lab, path, want.data ? want.data : "?", path,
            got.data ? got.data : "?");
    eir_buf_free(&want);
    eir_buf_free(&got);
    return EIR_ERR_ARG;
}

eir_status eir_runtime_set_input(eir_runtime *rt, uint32_t i, const eir_tensor_view *v) {
    if (i >= rt->ninputs) return rt_fail(rt, EIR_ERR_ARG, "input index %u out of range (the program has %u inputs)", i, rt->ninputs);
    rt_io *io = &rt->inputs[i];
    char lab[512];
    input_label(rt, i, lab, sizeof lab);
    if (io->value == EIR_NO_VALUE) return check_constant(rt, i, v, lab);
    if (!v || (!v->data && v->rank > 0 && v->sizes)) {
        int64_t n = 1;
        for (uint32_t d = 0; v && d < v->rank; d++) n *= v->sizes[d];
        if (!v || n) return rt_fail(rt, EIR_ERR_ARG, "%s: no data", lab);
    }
    const eir_value *gv = &rt->g->values[io->value];
    if (gv->kind == EIR_VALUE_SYM_FLOAT) {
        if (v->rank != 0 || !(eir_is_floating(v->dtype) || eir_is_integral(v->dtype, false)))
            return rt_fail(rt, EIR_ERR_ARG, "%s is a symbolic float: expected a 0-d number", lab);
    } else if (gv->kind != EIR_VALUE_TENSOR) {
        if (v->rank != 0 || !eir_is_integral(v->dtype, gv->kind == EIR_VALUE_SYM_BOOL))
            return rt_fail(rt, EIR_ERR_ARG, "%s is a symbolic int: expected a 0-d integer tensor", lab);
    } else {
        const eir_tensor_meta *m = &gv->meta;
        if (v->dtype != m->dtype)
            return rt_fail(rt, EIR_ERR_ARG, "%s: expected dtype %s, got %s", lab,
                           eir_dtype_name(m->dtype), eir_dtype_name(v->dtype) ? eir_dtype_name(v->dtype) : "unknown");
        if (v->rank != m->rank)
            return rt_fail(rt, EIR_ERR_ARG, "%s: expected %u dims, got %u", lab, m->rank, v->rank);
        for (uint32_t d = 0; d < m->rank; d++) {
            if (v->sizes[d] < 0) return rt_fail(rt, EIR_ERR_ARG, "%s: negative size in dim %u", lab, d);
            if (!m->sizes[d].is_expr && v->sizes[d] != m->sizes[d].value) {
                if (!rt->guards)  /* a subgraph's input */
                    return rt_fail(rt, EIR_ERR_ARG, "%s: dim %u must be %lld (static in the program), got %lld", lab, d,
                                   (long long)m->sizes[d].value, (long long)v->sizes[d]);
                /* the guard torch's ep.module() runs for a static dim */
                const char *path = eir_guards_path(rt->guards, i);
                return rt_fail(rt, EIR_ERR_ARG, "%s: Guard failed: %s.size()[%u] == %lld (%s.size()[%u] = %lld; dim %u is static in the program)",
                               lab, path, d, (long long)m->sizes[d].value, path, d, (long long)v->sizes[d], d);
            }
        }
    }
    if (v->rank > EIR_MAX_RANK) return rt_fail(rt, EIR_ERR_ARG, "%s: rank %u is over %d", lab, v->rank, EIR_MAX_RANK);
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

/* "input 1 'p_y' (p.y)": the index, the graph's name and torch's path */
static const char *input_label(eir_runtime *rt, uint32_t i, char *buf, size_t n) {
    const char *path = rt->guards ? eir_guards_path(rt->guards, i) : NULL;
    if (path && strcmp(path, rt->inputs[i].name)) snprintf(buf, n, "input %u '%s' (%s)", i, rt->inputs[i].name, path);
    else snprintf(buf, n, "input %u '%s'", i, rt->inputs[i].name);
    return buf;
}

/* The symbolic slots of the inputs: each tensor dim and each symbolic int,
 * with the program's expression and the actual value. */
typedef struct in_slot { uint32_t input; int32_t dim; const eir_sym_node *expr; const char *expr_str; int64_t actual; } in_slot;

static uint32_t input_slots(eir_runtime *rt, in_slot *out, uint32_t cap) {
    const eir_program *p = rt->p;
    uint32_t n = 0;
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        rt_io *io = &rt->inputs[i];
        if (io->value == EIR_NO_VALUE || !io->set) continue;
        const eir_value *gv = &rt->g->values[io->value];
        if (gv->kind != EIR_VALUE_TENSOR) {
            if (gv->sym.is_expr && n < cap)
                out[n++] = (in_slot){i, -1, p->exprs[gv->sym.expr].tree, p->exprs[gv->sym.expr].str,
                                     eir_load_i64(io->given.data, io->given.dtype)};
            continue;
        }
        for (uint32_t d = 0; d < gv->meta.rank && d < io->given.rank; d++)
            if (gv->meta.sizes[d].is_expr && n < cap)
                out[n++] = (in_slot){i, (int32_t)d, p->exprs[gv->meta.sizes[d].expr].tree, p->exprs[gv->meta.sizes[d].expr].str,
                                     io->given.sizes[d]};
    }
    return n;
}

static const char *slot_what(const in_slot *sl, char *buf, size_t n) {
    if (sl->dim < 0) snprintf(buf, n, "its value");
    else snprintf(buf, n, "dim %d", sl->dim);
    return buf;
}

/* a*s + b with integer a != 0 and b, in the symbol s */
static bool linear_in(const eir_sym_node *n, const char **sym, int64_t *a, int64_t *b) {
    *a = 0;
    *b = 0;
    *sym = NULL;
    const eir_sym_node *terms[2] = {n, NULL};
    uint32_t nt = 1;
    if (n->kind == EIR_SYM_CALL && !strcmp(n->name, "Add") && n->nargs == 2) { terms[0] = n->args[0]; terms[1] = n->args[1]; nt = 2; }
    for (uint32_t i = 0; i < nt; i++) {
        const eir_sym_node *t = terms[i], *x = NULL;
        int64_t c = 1;
        if (t->kind == EIR_SYM_INTEGER) { *b += t->ival; continue; }
        if (t->kind == EIR_SYM_SYMBOL) x = t;
        else if (t->kind == EIR_SYM_CALL && !strcmp(t->name, "Mul") && t->nargs == 2 && t->args[0]->kind == EIR_SYM_INTEGER &&
                 t->args[1]->kind == EIR_SYM_SYMBOL) { c = t->args[0]->ival; x = t->args[1]; }
        if (!x || (*sym && strcmp(*sym, x->name))) return false;
        *sym = x->name;
        *a += c;
    }
    return *sym && *a != 0;
}

/* Bind every backed symbol from the inputs: plain dims first (x.shape[0] is
 * s0), then derived dims whose symbol appears nowhere plain (2*s0 + 1 gives
 * s0), then check that every dim equals what the program computes for it.
 * Torch's guards ran before this, so a failure here is a relation torch
 * does not check but the traced graph relies on. */
static eir_status bind_symbols(eir_runtime *rt) {
    memset(rt->sym_bound, 0, (rt->nsyms + 1) * sizeof *rt->sym_bound);
    char lab[512], what[32], err[256];
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        rt_io *io = &rt->inputs[i];
        if (io->value == EIR_NO_VALUE) continue;
        if (!io->set) return rt_fail(rt, EIR_ERR_ARG, "%s was not set", input_label(rt, i, lab, sizeof lab));
        if (!rt->values[io->value].is_tensor) {
            if (eir_is_floating(io->given.dtype))
                value_set(&rt->values[io->value], (eir_sym_value){true, 0, eir_load_f64(io->given.data, io->given.dtype)});
            else
                value_set(&rt->values[io->value], sym_int_value(eir_load_i64(io->given.data, io->given.dtype)));
        }
    }
    in_slot slots[256];
    uint32_t ns = input_slots(rt, slots, EIR_ARRAY_LEN(slots));
    for (uint32_t k = 0; k < ns; k++) {
        const in_slot *sl = &slots[k];
        if (sl->expr->kind != EIR_SYM_SYMBOL) continue;
        uint32_t s;
        if (!eir_strmap_get(&rt->sym_index, sl->expr->name, &s)) continue;
        if (rt->sym_bound[s] && (rt->symvals[s].is_float || rt->symvals[s].i != sl->actual)) {
            /* the first slot that bound it */
            const in_slot *first = sl;
            for (uint32_t q = 0; q < k; q++)
                if (slots[q].expr->kind == EIR_SYM_SYMBOL && !strcmp(slots[q].expr->name, sl->expr->name)) { first = &slots[q]; break; }
            char lab2[512], what2[32];
            return rt_fail(rt, EIR_ERR_ARG, "%s: %s is %lld, but it must equal %s of %s, which is %lld (both are %s)",
                           input_label(rt, sl->input, lab, sizeof lab), slot_what(sl, what, sizeof what), (long long)sl->actual,
                           slot_what(first, what2, sizeof what2), input_label(rt, first->input, lab2, sizeof lab2),
                           (long long)rt->symvals[s].i, sl->expr->name);
        }
        rt->symvals[s] = sym_int_value(sl->actual);
        rt->sym_bound[s] = true;
    }
    for (uint32_t k = 0; k < ns; k++) {
        const in_slot *sl = &slots[k];
        const char *sym;
        int64_t a, b;
        uint32_t s;
        if (sl->expr->kind == EIR_SYM_SYMBOL || !linear_in(sl->expr, &sym, &a, &b)) continue;
        if (!eir_strmap_get(&rt->sym_index, sym, &s) || rt->sym_bound[s]) continue;
        int64_t num = sl->actual - b;
        if (num % a != 0)
            return rt_fail(rt, EIR_ERR_ARG, "%s: %s is %lld, but the program needs it to be %s for an integer %s",
                           input_label(rt, sl->input, lab, sizeof lab), slot_what(sl, what, sizeof what),
                           (long long)sl->actual, sl->expr_str, sym);
        rt->symvals[s] = sym_int_value(num / a);
        rt->sym_bound[s] = true;
    }
    for (uint32_t k = 0; k < ns; k++) {
        const in_slot *sl = &slots[k];
        int64_t want;
        if (!eir_sym_eval(sl->expr, sym_lookup, rt, &want, err, sizeof err)) {
            if (strstr(err, "has no value")) continue;  /* a symbol only the graph defines */
            return rt_fail(rt, EIR_ERR_ARG, "%s: cannot compute %s = %s: %s", input_label(rt, sl->input, lab, sizeof lab),
                           slot_what(sl, what, sizeof what), sl->expr_str, err);
        }
        if (want != sl->actual)
            return rt_fail(rt, EIR_ERR_ARG, "%s: %s is %lld, but the program needs %s = %lld from the other inputs",
                           input_label(rt, sl->input, lab, sizeof lab), slot_what(sl, what, sizeof what),
                           (long long)sl->actual, sl->expr_str, (long long)want);
    }
    return EIR_OK;
}

/* torch's input guards (root program only), in torch's order */
static eir_status check_guards(eir_runtime *rt) {
    if (!rt->guards) return EIR_OK;
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        rt_io *io = &rt->inputs[i];
        eir_guard_input *gi = &rt->guard_in[i];
        memset(gi, 0, sizeof *gi);
        if (io->value == EIR_NO_VALUE || !io->set) continue;
        gi->is_set = true;
        gi->is_tensor = rt->values[io->value].is_tensor;
        if (gi->is_tensor) {
            gi->rank = io->given.rank;
            gi->sizes = io->given.sizes;
            gi->strides = io->given.strides;
        } else {
            gi->value = eir_load_i64(io->given.data, io->given.dtype);
        }
    }
    char err[1536];
    if (!eir_guards_check(rt->guards, rt->guard_in, err, sizeof err)) return rt_fail(rt, EIR_ERR_ARG, "%s", err);
    return EIR_OK;
}

/* sizes/strides/offset of every tensor value from its recorded metadata */
static void put_ints(char *buf, size_t n, const int64_t *v, uint32_t k);

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
        if (v->rview && !v->sizes_storage) continue;   /* geometry from its op, when it runs */
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
            /* resize_ grows the storage it finds its input in: a STEP_MAYCOPY's source's too */
            for (int32_t p = v->sizes_storage ? s->parent : -1; p >= 0; p = rt->storages[p].parent)
                if (!rt->storages[p].external && rt->storages[p].nbytes < need) rt->storages[p].nbytes = need;
        } else if (v->storage >= 0) {
            /* parameters, buffers, constants and inputs: the recorded geometry must stay inside the payload */
            rt_storage *s = &rt->storages[v->storage];
            bool neg = v->offset < 0;
            for (int32_t d = 0; d < v->view.rank; d++) neg |= v->view.strides[d] < 0 || v->view.sizes[d] < 0;
            if (neg || (!empty && ((uint64_t)v->offset > (UINT64_MAX >> 8) || (uint64_t)extent > (UINT64_MAX >> 8))) ||
                (s->payload && need > s->nbytes)) {
                char sz[160], st[160];
                put_ints(sz, sizeof sz, v->view.sizes, (uint32_t)v->view.rank);
                put_ints(st, sizeof st, v->view.strides, (uint32_t)v->view.rank);
                return rt_fail(rt, EIR_ERR_TENSOR, "value %s: its recorded geometry (sizes %s, strides %s, storage offset %lld) "
                               "%s", g->values[i].name, sz, st, (long long)v->offset,
                               neg ? "has a negative size, stride or offset"
                                   : "reaches past the end of its storage");
            }
        }
    }
    /* a MAYCOPY's copy keeps the recorded geometry: the step may replace the value's view by a view */
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        rt_step *s = &rt->steps[i];
        if (s->kind != STEP_MAYCOPY || s->outs[0] == EIR_NO_VALUE) continue;
        s->planv = rt->values[s->outs[0]].view;
        s->plan_off = rt->values[s->outs[0]].offset;
    }
    for (uint32_t i = 0; i < rt->nstorages; i++)
        if (!rt->storages[i].external) rt->sum_bytes += rt->storages[i].nbytes;
    return EIR_OK;
}

typedef struct placed { uint64_t off, end; int32_t first, last; } placed;

/* Orders in which storages are offered to first fit: largest first (ties
 * by earlier start), earliest start first (ties by size), and longest
 * lifetime first. Each tends to win on a different graph shape; the plan
 * keeps the smallest arena. */
enum { ORDER_SIZE, ORDER_START, ORDER_SPAN, NORDERS };

typedef struct order_ctx { const rt_storage *s; int how; } order_ctx;

static int64_t span_of(const rt_storage *s) { return (int64_t)(s->pinned ? INT32_MAX : s->last) - s->first; }

static int cmp_storage(const void *a, const void *b, void *ctx) {
    const order_ctx *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const rt_storage *sx = &c->s[x], *sy = &c->s[y];
    int r = 0;
    if (c->how == ORDER_START) r = (sx->first > sy->first) - (sx->first < sy->first);
    else if (c->how == ORDER_SPAN) r = (span_of(sx) < span_of(sy)) - (span_of(sx) > span_of(sy));
    if (!r) r = (sx->nbytes < sy->nbytes) - (sx->nbytes > sy->nbytes);
    if (!r) r = (sx->first > sy->first) - (sx->first < sy->first);
    return r ? r : (x > y) - (x < y);
}

static uint64_t arena_size(uint64_t nbytes) { return (nbytes + 63) & ~(uint64_t)63; }

/* First fit in the given order: each storage at the lowest offset that does
 * not overlap a storage placed before it and alive at the same time. Writes
 * offsets to off[]; returns the arena's size. */
static uint64_t place_storages(const rt_storage *st, const uint32_t *order, uint32_t n, placed *pl, int64_t *off) {
    uint64_t total = 0;
    uint32_t np = 0;
    for (uint32_t k = 0; k < n; k++) {
        const rt_storage *s = &st[order[k]];
        int32_t first = s->first, last = s->pinned ? INT32_MAX : s->last;
        uint64_t size = arena_size(s->nbytes);
        uint64_t o = 0;
        bool moved = true;
        while (moved) {
            moved = false;
            for (uint32_t q = 0; q < np; q++) {
                if (pl[q].last < first || pl[q].first > last) continue;
                if (o < pl[q].end && pl[q].off < o + size) { o = pl[q].end; moved = true; }
            }
        }
        off[k] = (int64_t)o;
        pl[np++] = (placed){o, o + (size ? size : 64), first, last};
        if (o + size > total) total = o + size;
    }
    return total;
}

typedef struct live_event { int64_t at; int64_t delta; } live_event;

static int cmp_event(const void *a, const void *b) {
    const live_event *x = a, *y = b;
    if (x->at != y->at) return (x->at > y->at) - (x->at < y->at);
    return (x->delta > y->delta) - (x->delta < y->delta); /* a storage ending frees its bytes before the next starts */
}

/* The largest total of planned storages alive at one step: no arena can be
 * smaller. ev has room for 2 n events. */
static uint64_t peak_live(const rt_storage *st, const uint32_t *idx, uint32_t n, live_event *ev) {
    uint32_t ne = 0;
    for (uint32_t k = 0; k < n; k++) {
        const rt_storage *s = &st[idx[k]];
        int64_t size = (int64_t)arena_size(s->nbytes);
        ev[ne++] = (live_event){s->first, size};
        ev[ne++] = (live_event){(s->pinned ? (int64_t)INT32_MAX : s->last) + 1, -size};
    }
    qsort(ev, ne, sizeof *ev, cmp_event);
    int64_t cur = 0, best = 0;
    for (uint32_t k = 0; k < ne; k++) {
        cur += ev[k].delta;
        if (cur > best) best = cur;
    }
    return (uint64_t)best;
}

static eir_status plan_memory(eir_runtime *rt) {
    uint32_t n = 0, ns = rt->nstorages + 1;
    uint32_t *order = malloc(ns * sizeof *order), *idx = malloc(ns * sizeof *idx);
    placed *pl = malloc(ns * sizeof *pl);
    int64_t *off = malloc(ns * sizeof *off), *best_off = malloc(ns * sizeof *best_off);
    live_event *ev = malloc(2 * (size_t)ns * sizeof *ev);
    rt->nplans++;
    rt->nallocs += 6;
    if (!order || !idx || !pl || !off || !best_off || !ev) {
        free(order); free(idx); free(pl); free(off); free(best_off); free(ev);
        return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < rt->nstorages; i++)
        if (!rt->storages[i].external && !rt->storages[i].deferred) idx[n++] = i;
    uint64_t lower = peak_live(rt->storages, idx, n, ev);
    uint64_t total = UINT64_MAX;
    for (int how = 0; how < NORDERS && total > lower; how++) {
        memcpy(order, idx, n * sizeof *order);
        order_ctx c = {rt->storages, how};
        qsort_r(order, n, sizeof *order, cmp_storage, &c);
        uint64_t t = place_storages(rt->storages, order, n, pl, off);
        if (t < total) {
            total = t;
            for (uint32_t k = 0; k < n; k++) best_off[order[k]] = off[k];
        }
    }
    if (total == UINT64_MAX) total = 0;
    for (uint32_t k = 0; k < n; k++) rt->storages[idx[k]].arena_off = best_off[idx[k]];
    free(order);
    free(idx);
    free(pl);
    free(off);
    free(best_off);
    free(ev);
    if (total > rt->mem_bytes) {
        free(rt->mem);
        rt->mem = aligned_alloc(64, (total + 63) & ~(uint64_t)63);
        rt->nallocs++;
        if (!rt->mem) { rt->mem_bytes = 0; return rt_fail(rt, EIR_ERR_NOMEM, "out of memory for a %llu-byte arena", (unsigned long long)total); }
        rt->mem_bytes = total;
    }
    rt->planned_bytes = total;
    rt->peak_live_bytes = lower;
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
    if (dst->dtype == src->dtype && eir_tview_is_contiguous(dst) && eir_copy_to_contig(dst->data, src)) return;
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
            /* the caller's tensor, its extent in bytes for the views the program makes of it */
            int64_t hi = 0;
            bool empty = false;
            for (int32_t d = 0; d < v->view.rank; d++) {
                if (v->view.sizes[d] == 0) empty = true;
                else if (v->view.sizes[d] > 1) hi += (v->view.sizes[d] - 1) * v->view.strides[d];
            }
            s->ext = io->given.data;
            s->nbytes = empty ? 0 : (uint64_t)(hi + 1) * eir_dtype_size(v->view.dtype);
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
        if (need > io->copy_bytes || !io->copy) {
            /* kept across runs: same shapes, no allocation */
            free(io->copy);
            io->copy_bytes = 0;
            io->copy = malloc(need ? need : 1);
            rt->nallocs++;
            if (!io->copy) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
            io->copy_bytes = need;
        }
        s->ext = io->copy;
        s->nbytes = need;
        eir_tview dst = v->view;
        dst.data = (char *)io->copy + v->offset * (int64_t)eir_dtype_size(v->view.dtype);
        copy_logical(&dst, &src);
    }
    return EIR_OK;
}

/* The plan depends on the input shapes and on the values of symbolic int
 * inputs (a size may be computed from them): one key of both. */
static bool shapes_changed(eir_runtime *rt) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < rt->ninputs; i++)
        if (rt->inputs[i].value != EIR_NO_VALUE) n += rt->inputs[i].given.rank + 2;
    bool changed = !rt->planned;
    if (n != rt->nlast_shapes || !rt->last_shapes) {
        free(rt->last_shapes);
        rt->last_shapes = calloc(n + 1, sizeof *rt->last_shapes);
        rt->nlast_shapes = rt->last_shapes ? n : 0;
        changed = true;
        rt->nallocs++;
    }
    if (!rt->last_shapes) return true;
    uint32_t k = 0;
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        const rt_io *io = &rt->inputs[i];
        if (io->value == EIR_NO_VALUE) continue;
        int64_t key[2] = {io->given.rank, 0};
        if (!rt->values[io->value].is_tensor && io->set) key[1] = eir_load_i64(io->given.data, io->given.dtype);
        for (int q = 0; q < 2; q++) {
            if (rt->last_shapes[k] != key[q]) changed = true;
            rt->last_shapes[k++] = key[q];
        }
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
        v->cur = v->storage;
        if (v->deferred || v->rview) { v->view.data = NULL; continue; }
        char *base = storage_base(rt, v->storage);
        v->view.data = base ? base + v->offset * (int64_t)eir_dtype_size(v->view.dtype) : NULL;
    }
}

/* ---- running ---- */

/* A symbolic argument (a literal or a graph value) as a Python number */
static eir_sym_value sym_arg(eir_runtime *rt, const eir_arg *a, bool *ok) {
    switch (a->kind) {
    case EIR_ARG_INT: return sym_int_value(a->u.i);
    case EIR_ARG_BOOL: return sym_int_value(a->u.b);
    case EIR_ARG_FLOAT: return (eir_sym_value){true, 0, a->u.f};
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_BOOL: case EIR_ARG_SYM_FLOAT:
        if (a->literal)
            return a->kind == EIR_ARG_SYM_INT ? sym_int_value(a->u.i)
                 : a->kind == EIR_ARG_SYM_BOOL ? sym_int_value(a->u.b) : (eir_sym_value){true, 0, a->u.f};
        if (a->value != EIR_NO_VALUE && rt->values[a->value].sym_set) return value_num(&rt->values[a->value]);
        break;
    default: break;
    }
    *ok = false;
    return sym_int_value(0);
}

/* The symbolic ops a graph may call (torch/_export/serde's _SYM_OPS and
 * the sym_size family), by the last part of their target name. */
typedef struct sym_op { const char *name; int op; int arity; } sym_op;
enum { SO_BIN = 0, SO_NEG = 100, SO_POS, SO_NOT, SO_FLOAT, SO_INT, SO_TRUNC, SO_SQRT, SO_MAX, SO_MIN, SO_ITE };
static const sym_op sym_ops[] = {
    {"add", EIR_PYOP_ADD, 2}, {"sub", EIR_PYOP_SUB, 2}, {"mul", EIR_PYOP_MUL, 2}, {"truediv", EIR_PYOP_DIV, 2},
    {"floordiv", EIR_PYOP_FLOORDIV, 2}, {"mod", EIR_PYOP_MOD, 2}, {"pow", EIR_PYOP_POW, 2},
    {"lshift", EIR_PYOP_LSHIFT, 2}, {"rshift", EIR_PYOP_RSHIFT, 2}, {"and_", EIR_PYOP_AND, 2}, {"or_", EIR_PYOP_OR, 2},
    {"eq", EIR_PYOP_EQ, 2}, {"ne", EIR_PYOP_NE, 2}, {"lt", EIR_PYOP_LT, 2}, {"le", EIR_PYOP_LE, 2},
    {"gt", EIR_PYOP_GT, 2}, {"ge", EIR_PYOP_GE, 2},
    {"neg", SO_NEG, 1}, {"pos", SO_POS, 1}, {"sym_not", SO_NOT, 1}, {"sym_float", SO_FLOAT, 1}, {"sym_int", SO_INT, 1},
    {"trunc", SO_TRUNC, 1}, {"_sym_sqrt", SO_SQRT, 1}, {"sym_max", SO_MAX, 2}, {"sym_min", SO_MIN, 2}, {"sym_ite", SO_ITE, 3},
};

static const sym_op *find_sym_op(const char *target) {
    const char *f = strrchr(target, '.');
    f = f ? f + 1 : target;
    for (size_t i = 0; i < EIR_ARRAY_LEN(sym_ops); i++)
        if (!strcmp(sym_ops[i].name, f)) return &sym_ops[i];
    return NULL;
}

static const eir_arg *node_arg(const eir_node *n, const char *name, uint32_t pos);

static eir_status run_sym(eir_runtime *rt, const rt_step *st) {
    const eir_node *n = st->node;
    const char *t = n->target;
    if (st->nout != 1 || st->outs[0] == EIR_NO_VALUE) return EIR_OK;
    rt_value *outv = &rt->values[st->outs[0]];
    eir_sym_value r = sym_int_value(0);
    bool ok = true;
    char err[256] = "";
    if (!strncmp(t, "torch.ops.aten.sym_", 19)) {
        const eir_arg *ta = n->num_inputs ? &n->inputs[0].arg : NULL;
        if (!ta || ta->kind != EIR_ARG_TENSOR) ok = false;
        else {
            const eir_tview *tv = &rt->values[ta->value].view;
            if (!strcmp(t, "torch.ops.aten.sym_numel.default")) r = sym_int_value(eir_tview_numel(tv));
            else if (!strcmp(t, "torch.ops.aten.sym_is_contiguous.default")) {
                const eir_arg *mf = node_arg(n, "memory_format", 1);
                int64_t code = mf && mf->kind == EIR_ARG_MEMORY_FORMAT ? mf->u.i : EIR_MF_CONTIGUOUS;
                r = sym_int_value(eir_view_is_contiguous(tv, code));
            }
            else if (!strcmp(t, "torch.ops.aten.sym_storage_offset.default")) r = sym_int_value(rt->values[ta->value].offset);
            else {
                eir_sym_value dim = n->num_inputs > 1 ? sym_arg(rt, &n->inputs[1].arg, &ok) : sym_int_value(0);
                int32_t d = eir_wrap_dim(dim.i, tv->rank);
                if (d < 0) ok = false;
                else r = sym_int_value(!strcmp(t, "torch.ops.aten.sym_size.int") ? tv->sizes[d] : tv->strides[d]);
            }
        }
        if (!ok) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): cannot evaluate its symbolic arguments", n->name, t);
    } else {
        const sym_op *op = find_sym_op(t);
        if (!op) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: symbolic op %s is not supported yet", n->name, t);
        eir_sym_value a[3] = {{0}};
        for (int k = 0; k < op->arity && k < 3; k++)
            a[k] = (uint32_t)k < n->num_inputs ? sym_arg(rt, &n->inputs[k].arg, &ok) : sym_int_value(0);
        if (!ok || (uint32_t)op->arity > n->num_inputs)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): cannot evaluate its symbolic arguments", n->name, t);
        bool good = true;
        switch (op->op) {
        case SO_NEG: good = eir_py_binop(EIR_PYOP_SUB, sym_int_value(0), a[0], &r, err, sizeof err);
            if (a[0].is_float) r = (eir_sym_value){true, 0, -a[0].f};
            break;
        case SO_POS: r = a[0]; break;
        case SO_NOT: r = sym_int_value(!(a[0].is_float ? a[0].f != 0 : a[0].i != 0)); break;
        case SO_FLOAT: good = eir_py_call("torch.sym_float", a, 1, &r, err, sizeof err); break;
        case SO_INT: case SO_TRUNC: good = eir_py_call("math.trunc", a, 1, &r, err, sizeof err); break;
        case SO_SQRT: good = eir_py_call("math.sqrt", a, 1, &r, err, sizeof err); break;
        case SO_MAX: good = eir_py_call("max", a, 2, &r, err, sizeof err); break;
        case SO_MIN: good = eir_py_call("min", a, 2, &r, err, sizeof err); break;
        case SO_ITE: r = (a[0].is_float ? a[0].f != 0 : a[0].i != 0) ? a[1] : a[2]; break;
        default: good = eir_py_binop((eir_py_op)op->op, a[0], a[1], &r, err, sizeof err); break;
        }
        if (!good) return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", n->name, t, err);
    }
    value_set(outv, r);
    return EIR_OK;
}

/* a node's argument by schema name, or by position when the file has no names */
static const eir_arg *node_arg(const eir_node *n, const char *name, uint32_t pos) {
    for (uint32_t i = 0; i < n->num_inputs; i++)
        if (n->inputs[i].name && !strcmp(n->inputs[i].name, name)) return &n->inputs[i].arg;
    if (pos < n->num_inputs && (!n->inputs[pos].name || !n->inputs[pos].name[0])) return &n->inputs[pos].arg;
    return NULL;
}

/* the C++ type names torch's _assert_tensor_metadata prints for a tensor's dtype */
static const char *typemeta_name(eir_dtype d) {
    switch (d) {
    case EIR_F32: return "float"; case EIR_F64: return "double"; case EIR_F16: return "c10::Half";
    case EIR_BF16: return "c10::BFloat16"; case EIR_I64: return "long int"; case EIR_I32: return "int";
    case EIR_I16: return "short int"; case EIR_I8: return "signed char"; case EIR_U8: return "unsigned char";
    case EIR_BOOL: return "bool"; case EIR_C64: return "c10::complex<float>"; case EIR_C128: return "c10::complex<double>";
    default: return eir_dtype_name(d) ? eir_dtype_name(d) : "?";
    }
}

static void put_ints(char *buf, size_t n, const int64_t *v, uint32_t k) {
    size_t at = (size_t)snprintf(buf, n, "[");
    for (uint32_t i = 0; i < k && at < n; i++) at += (size_t)snprintf(buf + at, n - at, "%s%lld", i ? ", " : "", (long long)v[i]);
    if (at < n) snprintf(buf + at, n - at, "]");
}

/* The graph's runtime assertions, with torch's own messages: _assert_scalar
 * and _assert_async carry the text torch wrote into the graph ("Runtime
 * assertion failed for expression u0 >= 2 on node 'ge_1'"); the others
 * fail as torch's kernels do. */
static eir_status run_assert(eir_runtime *rt, const rt_step *st) {
    const eir_node *n = st->node;
    const char *t = short_target(n->target);
    const char *name = n->name ? n->name : "?";
    bool ok = true;
    if (strstr(t, "_assert_scalar")) {
        const eir_arg *c = node_arg(n, "self", 0), *m = node_arg(n, "assert_msg", 1);
        eir_sym_value v = c ? sym_arg(rt, c, &ok) : sym_int_value(1);
        if (!ok) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): its condition has no value", name, t);
        if (v.is_float ? v.f == 0 : v.i == 0)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", name, t,
                           m && m->kind == EIR_ARG_STRING ? m->u.s : "assertion failed");
        return EIR_OK;
    }
    if (strstr(t, "_assert_async")) {
        const eir_arg *c = node_arg(n, "self", 0), *m = node_arg(n, "assert_msg", 1);
        if (!c || c->kind != EIR_ARG_TENSOR) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): expected a tensor", name, t);
        const eir_tview *x = &rt->values[c->value].view;
        if (eir_tview_numel(x) != 1)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): Expected Tensor with single element, but got %lld elements", name, t,
                           (long long)eir_tview_numel(x));
        if (eir_load_f64(x->data, x->dtype) == 0)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", name, t,
                           m && m->kind == EIR_ARG_STRING ? m->u.s : "Expected Tensor with single nonzero value, but got zero");
        return EIR_OK;
    }
    if (strstr(t, "sym_constrain_range")) {
        bool for_size = strstr(t, "for_size") != NULL;
        const eir_arg *c = node_arg(n, "size", 0), *lo = node_arg(n, "min", 1), *hi = node_arg(n, "max", 2);
        eir_sym_value v = c ? sym_arg(rt, c, &ok) : sym_int_value(0);
        int64_t mn = for_size ? 0 : INT64_MIN, mx = INT64_MAX;
        if (lo && lo->kind != EIR_ARG_NONE) mn = sym_arg(rt, lo, &ok).i;
        if (hi && hi->kind != EIR_ARG_NONE) mx = sym_arg(rt, hi, &ok).i;
        if (!ok) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): its arguments have no value", name, t);
        if (v.i < mn || v.i > mx)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): Invalid value range for %lld between [%lld, %lld].", name, t,
                           (long long)v.i, (long long)mn, (long long)mx);
        return EIR_OK;
    }
    if (strstr(t, "_assert_tensor_metadata")) {
        const eir_arg *a = node_arg(n, "a", 0), *sz = node_arg(n, "size", 1), *sd = node_arg(n, "stride", 2),
                      *dt = node_arg(n, "dtype", 3);
        if (!a || a->kind != EIR_ARG_TENSOR) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): expected a tensor", name, t);
        const eir_tview *x = &rt->values[a->value].view;
        if (dt && dt->kind == EIR_ARG_SCALAR_TYPE && dt->u.i != x->dtype)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): Tensor dtype mismatch! Expected: %s, Got: %s", name, t,
                           eir_torch_dtype_name((eir_dtype)dt->u.i), typemeta_name(x->dtype));
        for (int which = 0; which < 2; which++) {
            const eir_arg *l = which ? sd : sz;
            if (!l || (l->kind != EIR_ARG_INTS && l->kind != EIR_ARG_SYM_INTS)) continue;
            int64_t want[EIR_MAX_RANK], got[EIR_MAX_RANK];
            uint32_t k = l->u.list.n < EIR_MAX_RANK ? l->u.list.n : EIR_MAX_RANK;
            bool same = k == (uint32_t)x->rank;
            for (uint32_t i = 0; i < k; i++) want[i] = sym_arg(rt, &l->u.list.items[i], &ok).i;
            for (int32_t i = 0; i < x->rank; i++) got[i] = which ? x->strides[i] : x->sizes[i];
            for (uint32_t i = 0; same && i < k; i++) same = want[i] == got[i];
            if (ok && !same) {
                char w[160], g[160];
                put_ints(w, sizeof w, want, k);
                put_ints(g, sizeof g, got, (uint32_t)x->rank);
                return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): Tensor %s mismatch! Expected: %s, Got: %s", name, t,
                               which ? "strides" : "sizes", w, g);
            }
        }
        return EIR_OK;
    }
    return EIR_OK;
}

/* ---- data-dependent shapes ---- */

static void bind_unbacked(eir_runtime *rt, const eir_symint *si, eir_sym_value value) {
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
            rt->nallocs++;
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
    bind_unbacked(rt, &rt->g->values[st->outs[0]].meta.sizes[0], sym_int_value(count));
    eir_status e = resolve_deferred(rt);
    if (e) return e;
    if (!out->resolved && out->deferred)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: cannot size the output of nonzero", st->node->name);
    if (out->view.rank != 2)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: nonzero gives a 2-d tensor, where the program records %d dims",
                       st->node->name, out->view.rank);
    if (out->view.sizes[1] != x->rank)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: nonzero of a %d-d tensor gives [n, %d], where the program records [n, %lld]",
                       st->node->name, x->rank, x->rank, (long long)out->view.sizes[1]);
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
    eir_sym_value v;
    if (eir_is_floating(x->dtype) || eir_is_complex(x->dtype)) v = (eir_sym_value){true, 0, eir_load_f64(x->data, x->dtype)};
    else v = sym_int_value(eir_load_i64(x->data, x->dtype));
    value_set(out, v);
    bind_unbacked(rt, &gv->sym, value_num(out));
    return resolve_deferred(rt);
}

/* x broadcast to sizes[rank] (right-aligned; size-1 dims get stride 0) */
static bool broadcast_to(const eir_tview *x, const int64_t *sizes, int32_t rank, eir_tview *out) {
    *out = *x;
    out->rank = rank;
    for (int32_t d = 0; d < rank; d++) {
        int32_t xd = d - (rank - x->rank);
        if (xd < 0) { out->sizes[d] = sizes[d]; out->strides[d] = 0; continue; }
        if (x->sizes[xd] == sizes[d]) { out->sizes[d] = sizes[d]; out->strides[d] = x->strides[xd]; }
        else if (x->sizes[xd] == 1) { out->sizes[d] = sizes[d]; out->strides[d] = 0; }
        else return false;
    }
    return true;
}

static bool next_index(int64_t *idx, const int64_t *sizes, int32_t rank) {
    for (int32_t d = rank - 1; d >= 0; d--) {
        if (++idx[d] < sizes[d]) return true;
        idx[d] = 0;
    }
    return false;
}

/* masked_select: the elements of self where mask is true (both broadcast),
 * in row-major order; their count binds the output's unbacked size */
static eir_status run_masked_select(eir_runtime *rt, const rt_step *st) {
    const eir_tview *x = &rt->values[st->src].view, *m = &rt->values[st->src2].view;
    int32_t rank = x->rank > m->rank ? x->rank : m->rank;
    int64_t sizes[EIR_MAX_RANK] = {0};
    for (int32_t d = 0; d < rank; d++) {
        int32_t xd = d - (rank - x->rank), md = d - (rank - m->rank);
        int64_t a = xd >= 0 ? x->sizes[xd] : 1, b = md >= 0 ? m->sizes[md] : 1;
        if (a != b && a != 1 && b != 1)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (aten.masked_select.default): The size of tensor a (%lld) must match the "
                           "size of tensor b (%lld) at non-singleton dimension %d", st->node->name, (long long)a, (long long)b, d);
        sizes[d] = a == 1 ? b : a;
    }
    eir_tview xb, mb;
    broadcast_to(x, sizes, rank, &xb);
    broadcast_to(m, sizes, rank, &mb);
    int64_t n = 1, count = 0, idx[EIR_MAX_RANK] = {0};
    for (int32_t d = 0; d < rank; d++) n *= sizes[d];
    for (int64_t k = 0; k < n; k++, next_index(idx, sizes, rank))
        if (eir_load_f64(eir_tview_at(&mb, idx), mb.dtype) != 0) count++;
    rt_value *out = &rt->values[st->outs[0]];
    eir_status e = settle_output(rt, st->outs[0], &count, 1, "the selected elements");
    if (e) return e;
    size_t es = eir_dtype_size(x->dtype);
    memset(idx, 0, sizeof idx);
    int64_t row = 0;
    for (int64_t k = 0; k < n && row < count; k++, next_index(idx, sizes, rank))
        if (eir_load_f64(eir_tview_at(&mb, idx), mb.dtype) != 0) {
            int64_t at[1] = {row++};
            memcpy(eir_tview_at(&out->view, at), eir_tview_at(&xb, idx), es);
        }
    return EIR_OK;
}

/* _unique2: the distinct values of self, sorted (torch's CPU kernel sorts
 * whatever `sorted` says), optionally the index of each element's value and
 * each value's count; the number of values binds the outputs' unbacked size */
typedef struct uniq_item { double f; int64_t i; int64_t pos; } uniq_item;
static int cmp_uniq_f(const void *a, const void *b) {
    const uniq_item *x = a, *y = b;
    return x->f < y->f ? -1 : x->f > y->f ? 1 : (x->pos > y->pos) - (x->pos < y->pos);
}
static int cmp_uniq_i(const void *a, const void *b) {
    const uniq_item *x = a, *y = b;
    return x->i < y->i ? -1 : x->i > y->i ? 1 : (x->pos > y->pos) - (x->pos < y->pos);
}

static eir_status run_unique(eir_runtime *rt, rt_step *st) {
    const eir_tview *x = &rt->values[st->src].view;
    int64_t n = eir_tview_numel(x), idx[EIR_MAX_RANK] = {0};
    bool ints = !eir_is_floating(x->dtype);
    if (eir_is_complex(x->dtype))
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (aten._unique2.default): complex input is not supported", st->node->name);
    size_t need = (size_t)(n ? n : 1) * sizeof(uniq_item);
    if (need > st->scratch_bytes) {
        /* sort space, kept across runs: the same shapes allocate nothing */
        free(st->scratch);
        st->scratch_bytes = 0;
        st->scratch = malloc(need);
        rt->nallocs++;
        if (!st->scratch) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        st->scratch_bytes = need;
    }
    uniq_item *items = st->scratch;
    for (int64_t k = 0; k < n; k++, next_index(idx, x->sizes, x->rank)) {
        const void *p = eir_tview_at(x, idx);
        items[k] = (uniq_item){ints ? 0 : eir_load_f64(p, x->dtype), ints ? eir_load_i64(p, x->dtype) : 0, k};
    }
    qsort(items, (size_t)n, sizeof *items, ints ? cmp_uniq_i : cmp_uniq_f);
    int64_t u = 0;
    for (int64_t k = 0; k < n; k++)
        if (k == 0 || (ints ? items[k].i != items[k - 1].i : !(items[k].f == items[k - 1].f))) u++;
    eir_status e = settle_output(rt, st->outs[0], &u, 1, "the unique values");
    if (!e && st->flags[2] && st->outs[2] != EIR_NO_VALUE) e = settle_output(rt, st->outs[2], &u, 1, "the counts");
    if (e) return e;
    rt_value *vals = &rt->values[st->outs[0]];
    rt_value *inv = st->outs[1] != EIR_NO_VALUE ? &rt->values[st->outs[1]] : NULL;
    rt_value *cnt = st->outs[2] != EIR_NO_VALUE ? &rt->values[st->outs[2]] : NULL;
    int64_t g = -1;
    for (int64_t k = 0; k < n; k++) {
        if (k == 0 || (ints ? items[k].i != items[k - 1].i : !(items[k].f == items[k - 1].f))) {
            g++;
            int64_t at[1] = {g};
            void *dst = eir_tview_at(&vals->view, at);
            if (ints) eir_store_i64(dst, vals->view.dtype, items[k].i);
            else eir_store_f64(dst, vals->view.dtype, items[k].f);
            if (st->flags[2] && cnt) eir_store_i64(eir_tview_at(&cnt->view, at), cnt->view.dtype, 0);
        }
        int64_t at[1] = {g};
        if (st->flags[2] && cnt) {
            void *c = eir_tview_at(&cnt->view, at);
            eir_store_i64(c, cnt->view.dtype, eir_load_i64(c, cnt->view.dtype) + 1);
        }
        if (st->flags[1] && inv && eir_tview_numel(&inv->view) == n) {
            /* inverse has self's shape: element pos gets its value's index */
            int64_t pos = items[k].pos, ii[EIR_MAX_RANK];
            for (int32_t d = inv->view.rank - 1; d >= 0; d--) { ii[d] = pos % inv->view.sizes[d]; pos /= inv->view.sizes[d]; }
            eir_store_i64(eir_tview_at(&inv->view, ii), inv->view.dtype, g);
        }
    }
    return EIR_OK;
}

/* repeat_interleave: element i of self (along dim, or of the flattened self)
 * repeated repeats[i] times; without self, the indices 0.. repeated. The
 * sum of the repeats binds the output's unbacked size. */
static eir_status run_repeat_interleave(eir_runtime *rt, const rt_step *st) {
    const char *t = short_target(st->node->target);
    const eir_tview *r = &rt->values[st->src2].view;
    const eir_tview *x = st->src != EIR_NO_VALUE ? &rt->values[st->src].view : NULL;
    if (r->rank > 1) return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): repeats must be 0-dim or 1-dim tensor", st->node->name, t);
    int32_t dim = 0;
    int64_t len = r->rank ? r->sizes[0] : 1;
    eir_tview flat;
    if (x && !st->flags[0]) {
        /* no dim: self flattened (row-major order) */
        flat = *x;
        flat.rank = 1;
        flat.sizes[0] = eir_tview_numel(x);
        flat.strides[0] = 1;
        if (!eir_tview_is_contiguous(x)) return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): a non-contiguous input without dim", st->node->name, t);
        x = &flat;
    } else if (x) {
        dim = eir_wrap_dim((int64_t)(int32_t)st->pred, x->rank);
        if (dim < 0) return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): dim out of range", st->node->name, t);
    }
    int64_t n = x ? x->sizes[dim] : len;
    if (r->rank == 1 && len != n)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): repeats must have the same size as input along dim, but got "
                       "repeats.size(0) = %lld and input.size(%d) = %lld", st->node->name, t, (long long)len, dim, (long long)n);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t at[1] = {r->rank ? i : 0};
        int64_t k = eir_load_i64(r->rank ? eir_tview_at(r, at) : r->data, r->dtype);
        if (k < 0) return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): repeats can not be negative", st->node->name, t);
        total += k;
    }
    int64_t sizes[EIR_MAX_RANK] = {0};
    int32_t rank = x ? x->rank : 1;
    for (int32_t d = 0; x && d < rank; d++) sizes[d] = x->sizes[d];
    sizes[dim] = total;
    eir_status e = settle_output(rt, st->outs[0], sizes, rank, "the repeated elements");
    if (e) return e;
    rt_value *out = &rt->values[st->outs[0]];
    int64_t row = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t at[1] = {r->rank ? i : 0};
        int64_t k = eir_load_i64(r->rank ? eir_tview_at(r, at) : r->data, r->dtype);
        for (int64_t q = 0; q < k; q++, row++) {
            if (!x) {
                int64_t o[1] = {row};
                eir_store_i64(eir_tview_at(&out->view, o), out->view.dtype, i);
                continue;
            }
            /* copy slice i of x along dim into slice row of out */
            eir_tview src = *x, dst = out->view;
            src.data = (char *)x->data + i * x->strides[dim] * (int64_t)eir_dtype_size(x->dtype);
            dst.data = (char *)dst.data + row * dst.strides[dim] * (int64_t)eir_dtype_size(dst.dtype);
            src.sizes[dim] = dst.sizes[dim] = 1;
            copy_logical(&dst, &src);
        }
    }
    return EIR_OK;
}

/* A kernel whose output has an unbacked size the op itself decides — indexing
 * with a boolean mask (x[x > 0]), bincount — is sized from its arguments
 * before the kernel runs. bincount has max(self) + 1 bins (at least
 * minlength). For indexing, each boolean index stands for the indices of its true
 * elements (one dim of that count in place of the dims it covers); the
 * index tensors broadcast together, and their result takes the place of the
 * first indexed dim when they are adjacent, else it comes first. */
static eir_status presize_outputs(eir_runtime *rt, rt_step *s) {
    for (uint32_t k = 0; k < s->nout; k++) {
        uint32_t v = s->outs[k];
        if (v == EIR_NO_VALUE || !rt->values[v].deferred || rt->values[v].resolved) continue;
        const char *op = short_target(s->node->target);
        /* ops whose kernels' family computes the size (unique_consecutive, combinations) */
        int64_t csz[EIR_MAX_RANK];
        int32_t crank = 0;
        eir_kctx cctx = {rt->kerr, sizeof rt->kerr, 1, NULL};
        int pr = s->kind == STEP_KERNEL ? eir_compose_presize(op, s->args, s->nargs, k, csz, &crank, &cctx) : 0;
        if (pr < 0) return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", s->node->name, op, rt->kerr);
        if (pr > 0) {
            eir_status e = settle_output(rt, v, csz, crank, op);
            if (e) return e;
            continue;
        }
        if (!strcmp(op, "aten.bincount.default") && s->nargs >= 3 && s->args[0].kind == EIR_KA_TENSOR) {
            /* max(self) + 1 bins, at least minlength (the kernel checks the values) */
            const eir_tview *x = s->args[0].t;
            int64_t len = s->args[2].kind == EIR_KA_INT ? s->args[2].i : 0, n = eir_tview_numel(x), idx[EIR_MAX_RANK] = {0};
            for (int64_t q = 0; q < n; q++, next_index(idx, x->sizes, x->rank)) {
                int64_t b = eir_load_i64(eir_tview_at(x, idx), x->dtype) + 1;
                if (b > len) len = b;
            }
            eir_status e = settle_output(rt, v, &len, 1, "the bins");
            if (e) return e;
            continue;
        }
        if (strcmp(op, "aten.index.Tensor") || s->nargs < 2 || s->args[0].kind != EIR_KA_TENSOR || s->args[1].kind != EIR_KA_TENSORS)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): output %s has a size known only once the op has run, and eir "
                           "cannot compute it for this op", s->node->name, op, rt->g->values[v].name);
        const eir_tview *x = s->args[0].t;
        const eir_karg *ixs = &s->args[1];
        int64_t bshape[EIR_MAX_RANK];
        int32_t brank = 0, xd = 0, first = -1, after = 0, idims = 0;
        bool adjacent = true, gap = false;
        for (uint32_t i = 0; i < ixs->n; i++) {
            const eir_tview *ix = ixs->ts[i];
            if (!ix) { xd++; gap = first >= 0; continue; }
            if (gap) adjacent = false;
            bool mask = ix->dtype == EIR_BOOL || ix->dtype == EIR_U8;
            int64_t shp[EIR_MAX_RANK];
            int32_t rk = mask ? 1 : ix->rank;
            if (mask) {
                int64_t cnt = 0, n = eir_tview_numel(ix), idx[EIR_MAX_RANK] = {0};
                for (int64_t q = 0; q < n; q++, next_index(idx, ix->sizes, ix->rank))
                    if (eir_load_i64(eir_tview_at(ix, idx), ix->dtype)) cnt++;
                shp[0] = cnt;
            } else {
                for (int32_t d = 0; d < rk; d++) shp[d] = ix->sizes[d];
            }
            if (first < 0) first = xd;
            xd += mask ? ix->rank : 1;
            idims += mask ? ix->rank : 1;
            after = xd;
            /* broadcast into bshape */
            int32_t nr = rk > brank ? rk : brank;
            int64_t merged[EIR_MAX_RANK];
            for (int32_t d = 0; d < nr; d++) {
                int32_t a = d - (nr - brank), b = d - (nr - rk);
                int64_t sa = a >= 0 ? bshape[a] : 1, sb = b >= 0 ? shp[b] : 1;
                if (sa != sb && sa != 1 && sb != 1)
                    return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): shape mismatch: indexing tensors could not be broadcast together",
                                   s->node->name, op);
                merged[d] = sa == 1 ? sb : sa;
            }
            memcpy(bshape, merged, sizeof merged);
            brank = nr;
        }
        if (xd > x->rank)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): too many indices for tensor of dimension %d", s->node->name, op, x->rank);
        if (first < 0) first = 0;
        if (x->rank - idims + brank > EIR_MAX_RANK)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): the result would have more than %d dims", s->node->name, op, EIR_MAX_RANK);
        /* x's dims: those before the first index, the broadcast result, those after */
        int64_t sizes[EIR_MAX_RANK];
        int32_t rank = 0;
        if (adjacent) {
            for (int32_t d = 0; d < first; d++) sizes[rank++] = x->sizes[d];
            for (int32_t d = 0; d < brank; d++) sizes[rank++] = bshape[d];
            for (int32_t d = after; d < x->rank; d++) sizes[rank++] = x->sizes[d];
        } else {
            for (int32_t d = 0; d < brank; d++) sizes[rank++] = bshape[d];
            xd = 0;
            for (uint32_t i = 0; i < ixs->n; i++) {
                const eir_tview *ix = ixs->ts[i];
                if (!ix) sizes[rank++] = x->sizes[xd++];
                else xd += (ix->dtype == EIR_BOOL || ix->dtype == EIR_U8) ? ix->rank : 1;
            }
            for (int32_t d = xd; d < x->rank; d++) sizes[rank++] = x->sizes[d];
        }
        eir_status e = settle_output(rt, v, sizes, rank, "the indexed elements");
        if (e) return e;
    }
    return EIR_OK;
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
    } else if (value != EIR_NO_VALUE && rt->values[value].sym_float) {
        double f = rt->values[value].symf;
        memcpy(scalar_slot, &f, sizeof f);
        v = (eir_tensor_view){scalar_slot, EIR_F64, 0, NULL, NULL};
    } else {
        *scalar_slot = value != EIR_NO_VALUE ? rt->values[value].symval : 0;
        v = (eir_tensor_view){scalar_slot, EIR_I64, 0, NULL, NULL};
    }
    if (eir_runtime_set_input(sub, i, &v) != EIR_OK)
        return rt_fail(rt, EIR_ERR_ARG, "subgraph input %u: %s", i, sub->errmsg);
    return EIR_OK;
}

/* subgraph output j into a parent value (or into an explicit destination view) */
/* A higher-order op's output whose size the program leaves to the data
 * (cond branches of different lengths: u0): bind its unbacked symbols from
 * what the subgraph produced, then size and place it. Every output's shape
 * must agree with the program's before anything is copied. */
static eir_status settle_output(eir_runtime *rt, uint32_t value, const int64_t *sizes, int32_t rank, const char *what) {
    rt_value *v = &rt->values[value];
    const eir_tensor_meta *m = &rt->g->values[value].meta;
    if (v->deferred && !v->resolved) {
        for (int32_t d = 0; d < rank && (uint32_t)d < m->rank; d++) {
            const eir_symint *si = &m->sizes[d];
            if (!si->is_expr || rt->p->exprs[si->expr].tree->kind != EIR_SYM_SYMBOL) continue;
            eir_sym_value known;
            if (!sym_lookup(rt, rt->p->exprs[si->expr].tree->name, &known)) bind_unbacked(rt, si, sym_int_value(sizes[d]));
        }
        /* the value has a storage of its own: an unbacked storage offset (a
         * view torch makes, eir a copy: tensor_split by a tensor) is 0 */
        const eir_symint *so = &m->storage_offset;
        eir_sym_value known;
        if (so->is_expr && rt->p->exprs[so->expr].tree->kind == EIR_SYM_SYMBOL &&
            !sym_lookup(rt, rt->p->exprs[so->expr].tree->name, &known))
            bind_unbacked(rt, so, sym_int_value(0));
        eir_status e = resolve_deferred(rt);
        if (e) return e;
        if (!v->resolved)
            return rt_fail(rt, EIR_ERR_GRAPH, "value %s: cannot size it from %s", rt->g->values[value].name, what);
    }
    bool same = rank == v->view.rank;
    for (int32_t d = 0; same && d < rank; d++) same = sizes[d] == v->view.sizes[d];
    if (!same) {
        char a[160], b[160];
        put_ints(a, sizeof a, sizes, (uint32_t)rank);
        put_ints(b, sizeof b, v->view.sizes, (uint32_t)v->view.rank);
        return rt_fail(rt, EIR_ERR_ARG, "value %s: %s has shape %s, but the program computes %s", rt->g->values[value].name,
                       what, a, b);
    }
    return EIR_OK;
}

/* subgraph output j into a parent value (or into an explicit destination view) */
static eir_status sub_output(eir_runtime *rt, eir_runtime *sub, uint32_t j, uint32_t value, const eir_tview *dst) {
    eir_tensor_view o;
    if (eir_runtime_output(sub, j, &o) != EIR_OK)
        return rt_fail(rt, EIR_ERR_ARG, "subgraph output %u: %s", j, sub->errmsg);
    eir_tview src = from_public_view(&o);
    if (dst) {
        bool same = dst->rank == src.rank;
        for (int32_t d = 0; same && d < src.rank; d++) same = dst->sizes[d] == src.sizes[d];
        if (!same) return rt_fail(rt, EIR_ERR_ARG, "subgraph output %u: its shape differs from one iteration to the next", j);
        copy_logical(dst, &src);
        return EIR_OK;
    }
    if (value == EIR_NO_VALUE) return EIR_OK;
    rt_value *v = &rt->values[value];
    if (v->is_tensor) {
        char what[64];
        snprintf(what, sizeof what, "subgraph output %u", j);
        eir_status e = settle_output(rt, value, src.sizes, src.rank, what);
        if (e) return e;
        copy_logical(&v->view, &src);
    }
    else if (eir_is_floating(o.dtype)) value_set(v, (eir_sym_value){true, 0, eir_load_f64(o.data, o.dtype)});
    else value_set(v, sym_int_value(eir_load_i64(o.data, o.dtype)));
    return EIR_OK;
}

/* map / scan: stacked output j of iteration 0 fixes the output's shape */
static eir_status settle_stacked(eir_runtime *rt, eir_runtime *sub, uint32_t j, uint32_t value, int64_t len) {
    eir_tensor_view o;
    if (eir_runtime_output(sub, j, &o) != EIR_OK) return rt_fail(rt, EIR_ERR_ARG, "subgraph output %u: %s", j, sub->errmsg);
    int64_t sizes[EIR_MAX_RANK];
    if (o.rank + 1 > EIR_MAX_RANK) return rt_fail(rt, EIR_ERR_GRAPH, "subgraph output %u: rank too large", j);
    sizes[0] = len;
    for (uint32_t d = 0; d < o.rank; d++) sizes[d + 1] = o.sizes[d];
    char what[64];
    snprintf(what, sizeof what, "the stacked subgraph output %u", j);
    return settle_output(rt, value, sizes, (int32_t)o.rank + 1, what);
}

static bool truth(eir_runtime *rt, uint32_t value) {
    if (value == UINT32_MAX - 1) return true;
    if (value == UINT32_MAX - 2) return false;
    rt_value *v = &rt->values[value];
    if (v->is_tensor) return eir_load_f64(v->view.data, v->view.dtype) != 0;
    return v->sym_float ? v->symf != 0 : v->symval != 0;
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
    if (eir_runtime_run(sub) != EIR_OK) {
        rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", n->name ? n->name : "?", short_target(n->target), sub->errmsg);
        rt->err_source = sub->err_source; /* the subgraph's node is the more precise place */
        return EIR_ERR_ARG;
    }
    return EIR_OK;
}

static void contiguous_strides(eir_tview *t) {
    int64_t st = 1;
    for (int32_t d = t->rank - 1; d >= 0; d--) { t->strides[d] = st; st *= t->sizes[d] > 1 ? t->sizes[d] : 1; }
}

/* The inputs of while_loop_stack_output's condition or body: the carried values of
 * this iteration (the operands, then the rows the body wrote last), then the others */
static eir_status while_stack_inputs(eir_runtime *rt, rt_step *st, eir_runtime *sub, const eir_tview *row, int64_t iter,
                                     int64_t *slots) {
    const eir_arg *carried = st->lists[0], *extra = st->lists[1];
    uint32_t nc = carried->u.list.n, ne = extra->u.list.n;
    eir_status e;
    for (uint32_t i = 0; i < nc; i++) {
        eir_tview cur = row[i];
        cur.data = (char *)st->ws_buf[i] + (iter - 1) * eir_tview_numel(&row[i]) * (int64_t)eir_dtype_size(row[i].dtype);
        if ((e = sub_input(rt, sub, i, iter ? EIR_NO_VALUE : carried->u.list.items[i].value, iter ? &cur : NULL, &slots[i])))
            return e;
    }
    for (uint32_t i = 0; i < ne; i++)
        if ((e = sub_input(rt, sub, nc + i, extra->u.list.items[i].value, NULL, &slots[nc + i]))) return e;
    return EIR_OK;
}

static eir_status run_while_stack(eir_runtime *rt, rt_step *st) {
    const eir_node *n = st->node;
    const char *name = n->name ? n->name : "?";
    const eir_arg *carried = st->lists[0], *extra = st->lists[1];
    uint32_t nc = carried->u.list.n, ne = extra->u.list.n;
    int64_t slots[64];
    eir_tview row[64];
    eir_status e;
    if (nc != st->nout || nc + ne > 64 || nc == 0)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: bad while_loop_stack_output operands", name);
    for (uint32_t i = 0; i < nc; i++) {
        uint32_t v = carried->u.list.items[i].value;
        if (v == EIR_NO_VALUE || !rt->values[v].is_tensor || st->outs[i] == EIR_NO_VALUE)
            return rt_fail(rt, EIR_ERR_UNSUPPORTED, "node %%%s (higher_order.while_loop_stack_output): carried value %u is "
                           "not a tensor; eir stacks tensors only", name, i);
        row[i] = rt->values[v].view;
        contiguous_strides(&row[i]);
    }
    if (!st->ws_buf) {
        st->ws_buf = eir_arena_array(&rt->arena, nc, sizeof *st->ws_buf);
        st->ws_cap = eir_arena_array(&rt->arena, nc, sizeof *st->ws_cap);
        if (!st->ws_buf || !st->ws_cap) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    }
    int64_t iter = 0;
    for (;; iter++) {
        /* room for this iteration's rows, before any view into the rows is handed out */
        for (uint32_t i = 0; i < nc; i++) {
            size_t rb = (size_t)eir_tview_numel(&row[i]) * eir_dtype_size(row[i].dtype);
            size_t need = (size_t)(iter + 1) * rb;
            if (need > st->ws_cap[i] || !st->ws_buf[i]) {
                size_t cap = st->ws_cap[i] * 2 > need ? st->ws_cap[i] * 2 : need;
                void *b = realloc(st->ws_buf[i], cap ? cap : 1);
                rt->nallocs++;
                if (!b) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
                st->ws_buf[i] = b;
                st->ws_cap[i] = cap;
            }
        }
        if ((e = while_stack_inputs(rt, st, st->sub[0], row, iter, slots)) || (e = run_sub(rt, st->sub[0], n))) return e;
        eir_tensor_view c;
        if (eir_runtime_output(st->sub[0], 0, &c) != EIR_OK) return rt_fail(rt, EIR_ERR_ARG, "%s", st->sub[0]->errmsg);
        if (eir_load_f64(c.data, c.dtype) == 0) break;
        if ((e = while_stack_inputs(rt, st, st->sub[1], row, iter, slots)) || (e = run_sub(rt, st->sub[1], n))) return e;
        for (uint32_t j = 0; j < nc; j++) {
            eir_tview dst = row[j];
            dst.data = (char *)st->ws_buf[j] + iter * eir_tview_numel(&row[j]) * (int64_t)eir_dtype_size(row[j].dtype);
            if ((e = sub_output(rt, st->sub[1], j, EIR_NO_VALUE, &dst))) return e;
        }
    }
    /* torch stacks the body's outputs; with no iteration, the carried operands unsqueezed */
    for (uint32_t j = 0; j < nc; j++) {
        int64_t sizes[EIR_MAX_RANK];
        if (row[j].rank + 1 > EIR_MAX_RANK) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: carried value %u: rank too large", name, j);
        sizes[0] = iter ? iter : 1;
        for (int32_t d = 0; d < row[j].rank; d++) sizes[d + 1] = row[j].sizes[d];
        char what[64];
        snprintf(what, sizeof what, "the stacked carried value %u", j);
        if ((e = settle_output(rt, st->outs[j], sizes, row[j].rank + 1, what))) return e;
        const eir_tview *out = &rt->values[st->outs[j]].view;
        if (!iter) {
            eir_tview dst = select0(out, 0);
            copy_logical(&dst, &rt->values[carried->u.list.items[j].value].view);
            continue;
        }
        eir_tview src = row[j];
        src.rank = row[j].rank + 1;
        memcpy(src.sizes, sizes, sizeof(int64_t) * (size_t)src.rank);
        contiguous_strides(&src);
        src.data = st->ws_buf[j];
        copy_logical(out, &src);
    }
    return EIR_OK;
}

static eir_status run_hop(eir_runtime *rt, rt_step *st) {
    const eir_node *n = st->node;
    eir_status e;
    int64_t slots[64];
    if (st->hop == HOP_WHILE_STACK) return run_while_stack(rt, st);
    if (st->hop == HOP_CALL) {
        for (uint32_t i = 0; i < st->nops && i < 64; i++)
            if ((e = sub_input(rt, st->sub[0], i, st->ops[i], NULL, &slots[i]))) return e;
        if ((e = run_sub(rt, st->sub[0], n))) return e;
        for (uint32_t j = 0; j < st->nout; j++)
            if ((e = sub_output(rt, st->sub[0], j, st->outs[j], NULL))) return e;
        return EIR_OK;
    }
    if (st->hop == HOP_COND) {
        if (st->pred < UINT32_MAX - 2 && rt->values[st->pred].is_tensor && eir_tview_numel(&rt->values[st->pred].view) != 1)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (higher_order.cond): the predicate has %lld elements, expected 1",
                           n->name ? n->name : "?", (long long)eir_tview_numel(&rt->values[st->pred].view));
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
            else value_set(&rt->values[dst], value_num(&rt->values[src]));
        }
        for (uint64_t iter = 0;; iter++) {
            for (uint32_t i = 0; i < nc; i++)
                if ((e = sub_input(rt, st->sub[0], i, st->outs[i], NULL, &slots[i]))) return e;
            for (uint32_t i = 0; i < ne; i++)
                if ((e = sub_input(rt, st->sub[0], nc + i, extra->u.list.items[i].value, NULL, &slots[nc + i]))) return e;
            if ((e = run_sub(rt, st->sub[0], n))) return e;
            eir_tensor_view c;
            if (eir_runtime_output(st->sub[0], 0, &c) != EIR_OK) return rt_fail(rt, EIR_ERR_ARG, "%s", st->sub[0]->errmsg);
            if (eir_tensor_numel(&c) != 1)
                return rt_fail(rt, EIR_ERR_ARG, "node %%%s (higher_order.while_loop): the condition has %lld elements, expected 1",
                               n->name ? n->name : "?", (long long)eir_tensor_numel(&c));
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
                if (i == 0 && (e = settle_stacked(rt, st->sub[0], j, st->outs[j], len))) return e;
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
                if (i == 0 && (e = settle_stacked(rt, st->sub[0], j, st->outs[j], len))) return e;
                eir_tview dst = select0(&rt->values[st->outs[j]].view, i);
                if ((e = sub_output(rt, st->sub[0], j, EIR_NO_VALUE, &dst))) return e;
            }
        }
    }
    return EIR_OK;
}

/* ---- custom operators: running ---- */

static void apply_patches(eir_runtime *rt, rt_step *s) {
    for (uint32_t k = 0; k < s->npatches; k++) {
        const rt_patch *pt = &s->patches[k];
        eir_sym_value v = value_num(&rt->values[pt->value]);
        eir_karg *a = &s->args[pt->arg];
        if (pt->elem >= 0) ((int64_t *)a->ints)[pt->elem] = v.is_float ? (int64_t)v.f : v.i;
        else if (a->kind == EIR_KA_FLOAT) { a->f = v.is_float ? v.f : (double)v.i; a->s = scalar_float(a->f); }
        else if (a->kind == EIR_KA_BOOL) { a->i = v.is_float ? v.f != 0 : v.i != 0; a->s = scalar_bool(a->i); }
        else if (v.is_float) { a->f = v.f; a->s = scalar_float(v.f); }
        else if (rt->g->values[pt->value].kind == EIR_VALUE_SYM_BOOL) { a->i = v.i != 0; a->s = scalar_bool(a->i); }
        else { a->i = v.i; a->s = scalar_int(v.i); }
    }
}

/* the public arguments from the decoded ones (tensor data and symbolic ints change between runs) */
static void fill_custom_args(rt_step *s) {
    uint32_t tv = 0, tl = 0, nb = 0;
    for (uint32_t i = 0; i < s->nargs; i++) {
        const eir_karg *k = &s->args[i];
        eir_op_arg *o = &s->oargs[i];
        memset(o, 0, sizeof *o);
        switch (k->kind) {
        case EIR_KA_TENSOR:
            to_public_view(k->t, &s->tviews[tv]);
            o->kind = EIR_OP_TENSOR;
            o->tensor = &s->tviews[tv++];
            break;
        case EIR_KA_TENSORS:
            o->kind = EIR_OP_TENSORS;
            o->n = k->n;
            o->tensors = &s->tlist[tl];
            for (uint32_t j = 0; j < k->n; j++) {
                if (!k->ts[j]) { s->tlist[tl++] = NULL; continue; }
                to_public_view(k->ts[j], &s->tviews[tv]);
                s->tlist[tl++] = &s->tviews[tv++];
            }
            break;
        case EIR_KA_INT: o->kind = EIR_OP_INT; o->i = k->i; break;
        case EIR_KA_BOOL: o->kind = EIR_OP_BOOL; o->b = k->i != 0; break;
        case EIR_KA_FLOAT: o->kind = EIR_OP_FLOAT; o->f = k->f; break;
        case EIR_KA_SCALAR:
            if (k->s.kind == EIR_SC_FLOAT) { o->kind = EIR_OP_FLOAT; o->f = k->s.f; }
            else if (k->s.kind == EIR_SC_BOOL) { o->kind = EIR_OP_BOOL; o->b = k->s.i != 0; }
            else { o->kind = EIR_OP_INT; o->i = k->s.i; }
            break;
        case EIR_KA_INTS: o->kind = EIR_OP_INTS; o->n = k->n; o->ints = k->ints; break;
        case EIR_KA_BOOLS:
            o->kind = EIR_OP_BOOLS;
            o->n = k->n;
            o->bools = &s->bools[nb];
            for (uint32_t j = 0; j < k->n; j++) s->bools[nb++] = k->ints[j] != 0;
            break;
        case EIR_KA_FLOATS: o->kind = EIR_OP_FLOATS; o->n = k->n; o->floats = k->floats; break;
        case EIR_KA_STRING: o->kind = EIR_OP_STRING; o->s = k->str; break;
        case EIR_KA_DTYPE: o->kind = EIR_OP_DTYPE; o->dtype = (eir_dtype)k->i; break;
        default: o->kind = EIR_OP_NONE; break;
        }
    }
}

/* auto_functionalized_v2: clone the bases into the node's last outputs and
 * point the mutated arguments at (views of) the clones */
static eir_status prepare_autofunc(eir_runtime *rt, rt_step *s) {
    uint32_t nb = s->bases->u.list.n, first = s->nout - nb;
    for (uint32_t b = 0; b < nb; b++)
        copy_logical(&rt->values[s->outs[first + b]].view, &rt->values[s->bases->u.list.items[b].value].view);
    for (uint32_t k = 0; k < s->nmut; k++) {
        rt_mutarg *m = &s->mut[k];
        eir_op_arg *o = &s->oargs[m->arg];
        if (m->base < 0) { memset(o, 0, sizeof *o); continue; }
        const rt_value *bv = &rt->values[s->outs[first + (uint32_t)m->base]];
        m->tv = bv->view;
        size_t es = eir_dtype_size(bv->view.dtype);
        if (m->kind == 1) {
            /* as_strided on the clone, which keeps the base's storage offset */
            m->tv.rank = (int32_t)m->rank;
            int64_t extent = 0;
            for (uint32_t d = 0; d < m->rank; d++) {
                m->tv.sizes[d] = m->sizes[d];
                m->tv.strides[d] = m->strides[d];
                if (m->sizes[d] == 0) { extent = -1; break; }
                extent += (m->sizes[d] - 1) * m->strides[d];
            }
            int64_t cap = (int64_t)(rt->storages[bv->storage].nbytes / es); /* elements of the clone's storage */
            if (m->offset < 0 || (extent >= 0 && m->offset + extent >= cap))
                return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: the as_strided view of mutated argument '%s' leaves its base",
                               s->node->name, s->custom->schema.args[m->arg].sa.name);
            m->tv.data = (char *)bv->view.data + (m->offset - bv->offset) * (int64_t)es;
        } else if (m->kind == 2) {
            int32_t d = eir_wrap_dim(m->dim, bv->view.rank);
            if (d < 0) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: slice dim %lld out of range", s->node->name, (long long)m->dim);
            int64_t size = bv->view.sizes[d], start = m->start < 0 ? m->start + size : m->start;
            int64_t end = m->end < 0 ? m->end + size : m->end;
            if (start < 0) start = 0;
            if (start > size) start = size;
            if (end > size) end = size;
            if (end < start) end = start;
            m->tv.sizes[d] = end - start;
            m->tv.data = (char *)bv->view.data + start * bv->view.strides[d] * (int64_t)es;
        }
        to_public_view(&m->tv, &m->view);
        o->kind = EIR_OP_TENSOR;
        o->n = 0;
        o->tensor = &m->view;
    }
    return EIR_OK;
}

/* a custom op defines this unbacked symbol again on each call */
static void unbind_symbol(eir_runtime *rt, const eir_symint *si) {
    uint32_t s;
    if (si->is_expr && rt->p->exprs[si->expr].tree->kind == EIR_SYM_SYMBOL &&
        eir_strmap_get(&rt->sym_index, rt->p->exprs[si->expr].tree->name, &s))
        rt->sym_bound[s] = false;
}

static eir_status run_custom(eir_runtime *rt, rt_step *s) {
    const eir_custom_op *c = s->custom;
    const char *where = s->node->name ? s->node->name : "?", *op = short_target(s->node->target);
    apply_patches(rt, s);
    fill_custom_args(s);
    eir_status e;
    if (s->bases && (e = prepare_autofunc(rt, s))) return e;
    eir_op_call call = {c->schema.qualname, where, c->schema.nargs, s->oargs, s->ncout, NULL, c->user,
                        rt->kerr, sizeof rt->kerr};
    rt->kerr[0] = 0;
    if (c->shape && s->ncout) {
        char err[256];
        for (uint32_t k = 0; k < s->ncout; k++) {
            const eir_tensor_meta *m = &rt->g->values[s->outs[k]].meta;
            eir_op_shape *sh = &s->shapes[k];
            sh->dtype = m->dtype;
            sh->rank = m->rank;
            for (uint32_t d = 0; d < m->rank; d++)
                if ((s->defines[k] >> d & 1) || !eval_symint(rt, &m->sizes[d], &sh->sizes[d], err, sizeof err))
                    sh->sizes[d] = -1;
        }
        if (c->shape(&call, s->shapes) != 0)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): shape function: %s", where, op,
                           rt->kerr[0] ? rt->kerr : "failed");
        /* the symbols this call defines are unbound until their first size below (a later one must agree) */
        for (uint32_t k = 0; k < s->ncout; k++)
            for (uint32_t d = 0; d < s->shapes[k].rank; d++)
                if (s->defines[k] >> d & 1) unbind_symbol(rt, &rt->g->values[s->outs[k]].meta.sizes[d]);
        eir_status bad = EIR_OK;
        for (uint32_t k = 0; k < s->ncout && !bad; k++) {
            const eir_value *gv = &rt->g->values[s->outs[k]];
            eir_op_shape *sh = &s->shapes[k];
            if (sh->rank != gv->meta.rank || sh->dtype != gv->meta.dtype) {
                bad = rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): the shape function changed output %u's dtype or rank "
                              "(they are the program's: %s, rank %u)", where, op, k, eir_dtype_name(gv->meta.dtype),
                              gv->meta.rank);
                break;
            }
            for (uint32_t d = 0; d < sh->rank && !bad; d++) {
                const eir_symint *si = &gv->meta.sizes[d];
                int64_t known;
                if (sh->sizes[d] < 0)
                    bad = rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): the shape function left output %u's size in dim %u "
                                  "unset (%lld)", where, op, k, d, (long long)sh->sizes[d]);
                else if ((s->defines[k] >> d & 1) && !eval_symint(rt, si, &known, err, sizeof err))
                    bind_unbacked(rt, si, sym_int_value(sh->sizes[d]));
                else if (!eval_symint(rt, si, &known, err, sizeof err))
                    bad = rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): output %u's size in dim %u is %s, which is not known "
                                  "when the call runs", where, op, k, d, si->is_expr ? rt->p->exprs[si->expr].str : "?");
                else if (known != sh->sizes[d])
                    bad = rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): the shape function gives output %u size %lld in dim "
                                  "%u, the program has %lld", where, op, k, (long long)sh->sizes[d], d, (long long)known);
            }
        }
        if (bad) return bad;
        if ((e = resolve_deferred(rt))) return e;
    }
    for (uint32_t k = 0; k < s->ncout; k++) {
        const rt_value *v = &rt->values[s->outs[k]];
        if (v->deferred && !v->resolved)
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): output %u's shape depends on sizes that are not known "
                           "when the call runs", where, op, k);
        to_public_view(&v->view, &s->cviews[k]);
    }
    call.outputs = s->cviews;
    rt->kerr[0] = 0;
    if (c->kernel(&call) != 0)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", where, op, rt->kerr[0] ? rt->kerr : "the kernel failed");
    return EIR_OK;
}

/* torch.autocast: the region's ops ran under autocast, so the recorded
 * dtypes already say what each op produced (linear: bf16 from f32 inputs).
 * Before a kernel, floating inputs whose dtype differs from the recorded
 * output dtype are cast to it — what autocast does for its lower-precision
 * and fp32 ops, and exact (a widening) for ops that merely promote. With
 * begin false, the arguments point back at the values. */
static eir_status cast_inputs(eir_runtime *rt, rt_step *s, bool begin, eir_dtype want, bool any_dtype);

static eir_status autocast_inputs(eir_runtime *rt, rt_step *s, bool begin) {
    if (!s->nout || s->outs[0] == EIR_NO_VALUE) return EIR_OK;
    eir_dtype want = rt->values[s->outs[0]].view.dtype;
    if (!eir_is_floating(want)) return EIR_OK;
    return cast_inputs(rt, s, begin, want, false);
}

/* Tensor arguments cast to `want` into buffers of the step's own (begin), or the
 * original views put back (!begin); any_dtype: every tensor, else floating ones */
static eir_status cast_inputs(eir_runtime *rt, rt_step *s, bool begin, eir_dtype want, bool any_dtype) {
    if (!s->cast) {
        s->cast = eir_arena_array(&rt->arena, s->nargs + 1, sizeof *s->cast);
        s->cast_buf = eir_arena_array(&rt->arena, s->nargs + 1, sizeof *s->cast_buf);
        s->cast_cap = eir_arena_array(&rt->arena, s->nargs + 1, sizeof *s->cast_cap);
        if (!s->cast || !s->cast_buf || !s->cast_cap) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
    }
    uint32_t ti = 0;
    for (uint32_t k = 0; k < s->nargs; k++) {
        eir_karg *a = &s->args[k];
        if (a->kind != EIR_KA_TENSOR) continue;
        /* the k-th tensor argument of the node is the value behind this view */
        const eir_tview *orig = NULL;
        for (uint32_t q = 0, c = 0; q < s->node->num_inputs; q++) {
            const eir_arg *na = &s->node->inputs[q].arg;
            if ((na->kind == EIR_ARG_TENSOR || na->kind == EIR_ARG_OPTIONAL_TENSOR) && na->value != EIR_NO_VALUE && c++ == ti) {
                orig = &rt->values[na->value].view;
                break;
            }
        }
        ti++;
        if (!orig) continue;
        if (!begin) { a->t = orig; continue; }
        if ((!any_dtype && !eir_is_floating(orig->dtype)) || orig->dtype == want) continue;
        size_t need = (size_t)eir_tview_numel(orig) * eir_dtype_size(want);
        if (need > s->cast_cap[k]) {
            free(s->cast_buf[k]);
            s->cast_cap[k] = 0;
            s->cast_buf[k] = malloc(need ? need : 1);
            rt->nallocs++;
            if (!s->cast_buf[k]) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
            s->cast_cap[k] = need;
        }
        eir_tview *c = &s->cast[k];
        *c = *orig;
        c->data = s->cast_buf[k];
        c->dtype = want;
        int64_t st = 1;
        for (int32_t d = c->rank - 1; d >= 0; d--) { c->strides[d] = st; st *= c->sizes[d]; }
        copy_logical(c, orig);
        a->t = c;
    }
    return EIR_OK;
}

void eir_runtime_stats(const eir_runtime *rt, eir_run_stats *out) {
    memset(out, 0, sizeof *out);
    if (!rt) return;
    out->runs = rt->nruns;
    out->plans = rt->nplans;
    out->allocations = rt->nallocs;
    for (uint32_t i = 0; rt->steps && i < rt->nsteps; i++)
        for (int k = 0; k < 2; k++)
            if (rt->steps[i].sub[k]) {
                eir_run_stats sub;
                eir_runtime_stats(rt->steps[i].sub[k], &sub);
                out->plans += sub.plans;
                out->allocations += sub.allocations;
            }
}

/* ---- views: geometry from the op, checked against the storage ---- */

static uint64_t storage_bytes(eir_runtime *rt, int32_t sid) {
    const rt_storage *s = &rt->storages[sid];
    return s->deferred ? s->dyn_bytes : s->nbytes;
}

/* Does a view at element offset `off` stay inside storage sid? */
static bool view_fits(eir_runtime *rt, int32_t sid, const eir_tview *t, int64_t off) {
    int64_t lo = off, hi = off;
    for (int32_t d = 0; d < t->rank; d++) {
        if (t->sizes[d] == 0) return off >= 0;
        int64_t span;
        if (t->sizes[d] < 0 || __builtin_mul_overflow(t->sizes[d] - 1, t->strides[d], &span)) return false;
        if (__builtin_add_overflow(span < 0 ? lo : hi, span, span < 0 ? &lo : &hi)) return false;
    }
    uint64_t end;
    if (lo < 0 || __builtin_mul_overflow((uint64_t)hi + 1, (uint64_t)eir_dtype_size(t->dtype), &end)) return false;
    return end <= storage_bytes(rt, sid);
}

/* Give value `value` the geometry its op computed: a view of storage sid at
 * element offset off. The recorded metadata is a claim: its unbacked sizes
 * (u0) are bound from the computed ones, and a size it states otherwise
 * (a corrupt archive) is an error, since later kernels are sized from it. */
static eir_status set_view(eir_runtime *rt, const rt_step *s, uint32_t value, const eir_tview *g, int64_t off, int32_t sid) {
    rt_value *v = &rt->values[value];
    const eir_value *gv = &rt->g->values[value];
    const eir_tensor_meta *m = &gv->meta;
    const char *node = s->node->name ? s->node->name : "?", *op = short_target(s->node->target);
    if (g->rank != (int32_t)m->rank || g->dtype != m->dtype)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): computes a %s tensor of %d dims for %s, where the program records "
                       "%s of %u dims", node, op, eir_dtype_name(g->dtype), g->rank, gv->name, eir_dtype_name(m->dtype), m->rank);
    if (!view_fits(rt, sid, g, off)) {
        char sz[160], st[160];
        put_ints(sz, sizeof sz, g->sizes, (uint32_t)g->rank);
        put_ints(st, sizeof st, g->strides, (uint32_t)g->rank);
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): the view %s (sizes %s, strides %s, storage offset %lld) reaches "
                       "outside its storage of %llu bytes", node, op, gv->name, sz, st, (long long)off,
                       (unsigned long long)storage_bytes(rt, sid));
    }
    bool bound = false;
    char err[256];
    for (int32_t d = 0; d < g->rank; d++) {
        const eir_symint *si = &m->sizes[d];
        eir_sym_value known;
        if (si->is_expr && rt->p->exprs[si->expr].tree->kind == EIR_SYM_SYMBOL &&
            !sym_lookup(rt, rt->p->exprs[si->expr].tree->name, &known)) {
            bind_unbacked(rt, si, sym_int_value(g->sizes[d]));
            bound = true;
            continue;
        }
        int64_t rec;
        if (eval_symint(rt, si, &rec, err, sizeof err) && rec != g->sizes[d])
            return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): computes size %lld for dim %d of %s, where the program "
                           "records %lld", node, op, (long long)g->sizes[d], d, gv->name, (long long)rec);
    }
    v->view = *g;
    v->view.data = (char *)storage_base(rt, sid) + off * (int64_t)eir_dtype_size(g->dtype);
    v->offset = off;
    v->cur = sid;
    v->resolved = true;
    return bound ? resolve_deferred(rt) : EIR_OK;
}

static eir_status run_view(eir_runtime *rt, rt_step *s) {
    apply_patches(rt, s);
    const rt_value *src = &rt->values[s->src];
    const char *op = short_target(s->node->target);
    eir_view_result r = eir_view_compute(op, s->args, s->nargs, src->offset, s->outv, s->offs, s->nout, rt->kerr, sizeof rt->kerr);
    if (r == EIR_VIEW_ERROR)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", s->node->name ? s->node->name : "?", op, rt->kerr);
    if (r == EIR_VIEW_ALIAS) {
        int32_t sid = src->cur;
        for (uint32_t k = 0; k < s->nout; k++) {
            if (s->outs[k] == EIR_NO_VALUE) continue;
            eir_status e = set_view(rt, s, s->outs[k], &s->outv[k], s->offs[k], sid);
            if (e) return e;
        }
        return EIR_OK;
    }
    /* a copy (reshape of a tensor no view can express, to another dtype, ...): into the
     * output's own storage, laid out as the program recorded */
    rt_value *v = &rt->values[s->outs[0]];
    eir_status e;
    if (v->deferred) {
        if (!v->resolved && (e = settle_output(rt, s->outs[0], s->outv[0].sizes, s->outv[0].rank, op))) return e;
    } else {
        v->view = s->planv;
        v->offset = s->plan_off;
        v->cur = v->storage;
        v->view.data = (char *)storage_base(rt, v->storage) + v->offset * (int64_t)eir_dtype_size(v->view.dtype);
        if ((e = settle_output(rt, s->outs[0], s->outv[0].sizes, s->outv[0].rank, op))) return e;
    }
    copy_logical(&v->view, &src->view);
    return EIR_OK;
}

/* An in-place op run by its functional kernel writes a scratch tensor shaped like self
 * first (the kernel may read self while it writes), then self is overwritten. */
static eir_status functional_target(eir_runtime *rt, rt_step *s) {
    const eir_tview *self = s->args[0].kind == EIR_KA_TENSOR ? s->args[0].t : NULL;
    if (!self) return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s: an in-place op without a tensor self", s->node->name);
    eir_tview t = *self;
    size_t need = (size_t)eir_tview_numel(self) * eir_dtype_size(self->dtype);
    if (need > s->scratch_bytes || !s->scratch) {
        free(s->scratch);
        s->scratch_bytes = 0;
        s->scratch = malloc(need ? need : 1);
        rt->nallocs++;
        if (!s->scratch) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        s->scratch_bytes = need;
    }
    int64_t st = 1;
    for (int32_t d = t.rank - 1; d >= 0; d--) {
        t.strides[d] = st;
        st *= t.sizes[d] > 1 ? t.sizes[d] : 1;
    }
    t.data = s->scratch;
    s->outv[0] = t;
    return EIR_OK;
}

/* ---- vmap as exported: a loop over the batch ---- */

static eir_status run_vmap(eir_runtime *rt, rt_step *s) {
    bool ok = true;
    eir_sym_value n = sym_arg(rt, s->vm_size, &ok);
    if (!ok || n.is_float || n.i < 0)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): the batch size %s", s->node->name ? s->node->name : "?",
                       s->node->target, !ok || n.is_float ? "is not a known integer" : "is negative");
    s->vm_n = n.i;
    s->vm_i = 0;
    s->vm_rng = rt->rng;
    return EIR_OK;
}

/* x.select(dim, i) of a rank-r view: rank r-1, the offset moved by i strides */
static void select_dim(const eir_tview *x, int64_t dim, int64_t i, eir_tview *out, int64_t *off) {
    *out = *x;
    out->rank = x->rank - 1;
    for (int32_t d = (int32_t)dim; d < out->rank; d++) {
        out->sizes[d] = x->sizes[d + 1];
        out->strides[d] = x->strides[d + 1];
    }
    *off += i * x->strides[dim];
    if (x->data) out->data = (char *)x->data + i * x->strides[dim] * (int64_t)eir_dtype_size(x->dtype);
}

/* the first batching step of a region without _vmap_increment_nesting starts a pass */
static void vmap_enter(eir_runtime *rt, rt_step *s, int64_t n) {
    s->vm_active = true;
    s->vm_n = n;
    s->vm_i = 0;
    s->vm_rng = rt->rng;
}

static eir_status run_batch_in(eir_runtime *rt, rt_step *s) {
    const rt_value *x = &rt->values[s->src];
    const char *name = s->node->name ? s->node->name : "?";
    int64_t dim = s->vm_dim < 0 ? s->vm_dim + x->view.rank : s->vm_dim;
    if (dim < 0 || dim >= x->view.rank)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): batch dim %lld of %s, a tensor of %d dims", name, s->node->target,
                       (long long)s->vm_dim, rt->g->values[s->src].name, x->view.rank);
    if (s->vm_head && !s->vm_active) vmap_enter(rt, s, x->view.sizes[dim]);
    const rt_step *b = &rt->steps[s->vm_begin];
    if (b->vm_n == 0) return EIR_OK;    /* an empty batch: the region runs no pass */
    if (x->view.sizes[dim] != b->vm_n)
        return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): vmap: %s has size %lld in its mapped dimension %lld, where the batch "
                       "size (node %%%s) is %lld", name, s->node->target, rt->g->values[s->src].name,
                       (long long)x->view.sizes[dim], (long long)dim, b->node->name ? b->node->name : "?", (long long)b->vm_n);
    eir_tview g;
    int64_t off = x->offset;
    select_dim(&x->view, dim, b->vm_i, &g, &off);
    return set_view(rt, s, s->outs[0], &g, off, x->cur);
}

static eir_status run_batch_out(eir_runtime *rt, rt_step *s) {
    const rt_value *y = &rt->values[s->src];
    const rt_value *o = &rt->values[s->outs[0]];
    const char *name = s->node->name ? s->node->name : "?";
    const char *oname = rt->g->values[s->outs[0]].name;
    int64_t dim = s->vm_dim < 0 ? s->vm_dim + o->view.rank : s->vm_dim;
    bool ok = true;
    eir_sym_value n = sym_arg(rt, s->vm_size, &ok);
    if (s->vm_head && !s->vm_active) {
        if (!ok || n.is_float || n.i < 0)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): the batch size is not a known integer", name, s->node->target);
        vmap_enter(rt, s, n.i);
    }
    const rt_step *b = &rt->steps[s->vm_begin];
    if (b->vm_n == 0) return EIR_OK;
    if (ok && !n.is_float && n.i != b->vm_n)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): batch size %lld, where its vmap (node %%%s) has %lld", name,
                       s->node->target, (long long)n.i, b->node->name ? b->node->name : "?", (long long)b->vm_n);
    if (dim < 0 || dim >= o->view.rank || o->view.sizes[dim] != b->vm_n)
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): out dim %lld of %s, a tensor of %d dims, is not of the batch "
                       "size %lld", name, s->node->target, (long long)s->vm_dim, oname, o->view.rank, (long long)b->vm_n);
    eir_tview dst;
    int64_t off = o->offset;
    select_dim(&o->view, dim, b->vm_i, &dst, &off);
    bool same = dst.rank == y->view.rank && dst.dtype == y->view.dtype;
    for (int32_t d = 0; same && d < dst.rank; d++) same = dst.sizes[d] == y->view.sizes[d];
    if (!same) {
        char ys[160], ds[160];
        put_ints(ys, sizeof ys, y->view.sizes, (uint32_t)y->view.rank);
        put_ints(ds, sizeof ds, dst.sizes, (uint32_t)dst.rank);
        return rt_fail(rt, EIR_ERR_GRAPH, "node %%%s (%s): a sample of %s is a %s tensor of sizes %s, where %s records %s %s",
                       name, s->node->target, rt->g->values[s->src].name, eir_dtype_name(y->view.dtype), ys, oname,
                       eir_dtype_name(dst.dtype), ds);
    }
    copy_logical(&dst, &y->view);
    return EIR_OK;
}

/* out_dtype: the arguments cast to their dtype promoted with the output's (a tensor of
 * one dim, as torch's fallback adds torch.ones(1, dtype=out_dtype)); the kernel writes
 * a result of that dtype, cast into the output after it */
static eir_status out_dtype_begin(eir_runtime *rt, rt_step *s) {
    eir_dtype want = rt->values[s->outs[0]].view.dtype;
    const eir_karg *args[64];
    int na = 0;
    for (uint32_t k = 0; k < s->nargs && na < 63; k++) args[na++] = &s->args[k];
    eir_tview one = {.dtype = want, .rank = 1, .sizes = {1}, .strides = {1}};
    eir_karg ones = {.kind = EIR_KA_TENSOR, .t = &one};
    args[na++] = &ones;
    eir_dtype promoted = eir_result_type(args, na);
    eir_status st = cast_inputs(rt, s, true, promoted, true);
    if (st || promoted == want) return st;
    eir_tview t = rt->values[s->outs[0]].view;
    size_t need = (size_t)eir_tview_numel(&t) * eir_dtype_size(promoted);
    if (need > s->od_cap || !s->od_buf) {
        free(s->od_buf);
        s->od_cap = 0;
        s->od_buf = malloc(need ? need : 1);
        rt->nallocs++;
        if (!s->od_buf) return rt_fail(rt, EIR_ERR_NOMEM, "out of memory");
        s->od_cap = need;
    }
    t.dtype = promoted;
    int64_t stride = 1;
    for (int32_t d = t.rank - 1; d >= 0; d--) { t.strides[d] = stride; stride *= t.sizes[d] > 1 ? t.sizes[d] : 1; }
    t.data = s->od_buf;
    s->outv[0] = t;
    return EIR_OK;
}

static eir_status run_step(eir_runtime *rt, rt_step *s, eir_kctx *ctx) {
    eir_status st;
    switch (s->kind) {
    case STEP_SYM:
        if ((st = run_sym(rt, s))) return st;
        return resolve_deferred(rt);
    case STEP_ASSERT: return run_assert(rt, s);
    case STEP_VIEW: case STEP_MAYCOPY: return run_view(rt, s);
    case STEP_HOP: return run_hop(rt, s);
    case STEP_NONZERO: return run_nonzero(rt, s);
    case STEP_MASKED_SELECT: return run_masked_select(rt, s);
    case STEP_UNIQUE: return run_unique(rt, s);
    case STEP_REPEAT_INTERLEAVE: return run_repeat_interleave(rt, s);
    case STEP_CUSTOM: return run_custom(rt, s);
    case STEP_ITEM: return run_item(rt, s);
    case STEP_VMAP: return run_vmap(rt, s);
    case STEP_PRINT: return run_print(rt, s);
    case STEP_BATCH_IN: return run_batch_in(rt, s);
    case STEP_BATCH_OUT: return run_batch_out(rt, s);
    case STEP_KERNEL: {
        apply_patches(rt, s);
        /* results that are their self / out= argument: that argument's geometry */
        if (s->nout && s->outs[0] != EIR_NO_VALUE && rt->values[s->outs[0]].rview && (s->schema->flags & EIR_OPF_INPLACE)) {
            rt_value *o = &rt->values[s->outs[0]];
            const rt_value *x = &rt->values[s->src];
            o->view = x->view;
            o->offset = x->offset;
            o->cur = x->cur;
        } else if (s->schema->flags & EIR_OPF_OUT) {
            for (uint32_t k = 0; k < s->nout; k++) {
                if (s->outs[k] == EIR_NO_VALUE || !rt->values[s->outs[k]].rview) continue;
                rt_value *o = &rt->values[s->outs[k]];
                const rt_value *x = &rt->values[out_arg_value(rt, s, k)];
                o->view = x->view;
                o->offset = x->offset;
                o->cur = x->cur;
            }
        }
        if (rt->ndeferred && (st = presize_outputs(rt, s))) return st;
        for (uint32_t k = 0; k < s->nout; k++) {
            if (s->outs[k] == EIR_NO_VALUE) memset(&s->outv[k], 0, sizeof s->outv[k]);
            else s->outv[k] = rt->values[s->outs[k]].view;
        }
        if (s->via_functional && s->nout && (st = functional_target(rt, s))) return st;
        if (rt->autocast && (st = autocast_inputs(rt, s, true))) return st;
        if (s->out_dtype && (st = out_dtype_begin(rt, s))) return st;
        rt->kerr[0] = 0;
        int kr = s->fn(s->args, s->nargs, s->outv, s->nout, ctx);
        if (rt->autocast) autocast_inputs(rt, s, false);
        if (s->out_dtype) {
            cast_inputs(rt, s, false, EIR_DTYPE_UNKNOWN, true);
            if (kr == 0 && s->outv[0].data != rt->values[s->outs[0]].view.data)
                copy_logical(&rt->values[s->outs[0]].view, &s->outv[0]);
        }
        if (kr != 0)
            return rt_fail(rt, EIR_ERR_ARG, "node %%%s (%s): %s", s->node->name ? s->node->name : "?",
                           short_target(s->node->target), rt->kerr[0] ? rt->kerr : "kernel failed");
        /* an in-place op run by its functional kernel: the result goes into self */
        if (s->via_functional && s->nout && s->outs[0] != EIR_NO_VALUE) copy_logical(&rt->values[s->outs[0]].view, &s->outv[0]);
        return EIR_OK;
    }
    default: return EIR_OK;
    }
}

/* A step failed while running: end its message with the user's source line
 * from the node's stack_trace, as load-time node errors do
 * ("... [File: m.py:12 in forward, code: y = x[i]]"), after torch's own text.
 * A subgraph's failing node has put its line there already. */
static eir_status step_failed(eir_runtime *rt, const rt_step *s, eir_status st) {
    if (rt->err_source) return st;
    const char *trace = NULL;
    for (uint32_t i = 0; s->node && i < s->node->num_metadata; i++)
        if (!strcmp(s->node->metadata[i].key, "stack_trace")) trace = s->node->metadata[i].value;
    eir_buf sum;
    eir_buf_init(&sum);
    if (trace && eir_stack_user_line(&sum, trace) && sum.data) {
        size_t len = strlen(rt->errmsg);
        snprintf(rt->errmsg + len, sizeof rt->errmsg - len, " [%s]", sum.data);
        rt->err_source = true;
    }
    eir_buf_free(&sum);
    return st;
}

/* The step after step i: the next one, or, at the end of a vmap region, the start of
 * the region's next pass over the batch */
static uint32_t next_step(eir_runtime *rt, uint32_t i) {
    rt_step *s = &rt->steps[i];
    if ((s->kind == STEP_VMAP || (s->vm_head && s->vm_active)) && s->vm_n == 0) {
        s->vm_active = false;
        return s->vm_end + 1;           /* an empty batch: no pass */
    }
    if (s->kind != STEP_VMAP_END && !s->vm_close) return i + 1;
    rt_step *b = &rt->steps[s->vm_begin];
    if (++b->vm_i < b->vm_n) {
        if (b->vm_random == VMAP_SAME) rt->rng = b->vm_rng;
        return b->kind == STEP_VMAP ? s->vm_begin + 1 : s->vm_begin;
    }
    b->vm_active = false;
    return i + 1;
}

static eir_status runtime_run(eir_runtime *rt);

static double mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec * 1e-3;
}

/* A runtime with a pool installs it on this thread for the run (the kernels
 * find it with eir_pool_current); a subgraph's runtime has none and runs on
 * the pool of the run that calls it. */
eir_status eir_runtime_run(eir_runtime *rt) {
    double t0 = rt && rt->prof ? mono_us() : 0;
    eir_status st;
    if (!rt || !rt->pool) st = runtime_run(rt);
    else {
        eir_pool *prev = eir_pool_enter(rt->pool);
        st = runtime_run(rt);
        eir_pool_leave(prev);
    }
    if (rt && rt->prof && st == EIR_OK) {
        rt->prof_last_run_us = mono_us() - t0;
        rt->prof_run_us += rt->prof_last_run_us;
        rt->prof_runs++;
    }
    return st;
}

static eir_status runtime_run(eir_runtime *rt) {
    if (!rt || !rt->steps) return EIR_ERR_ARG;
    eir_status st;
    rt->nruns++;
    bool replan = shapes_changed(rt);
    if (replan) {
        for (uint32_t i = 0; i < rt->ninputs; i++)
            if (rt->inputs[i].value != EIR_NO_VALUE && !rt->inputs[i].set) {
                char lab[512];
                return rt_fail(rt, EIR_ERR_ARG, "%s was not set", input_label(rt, i, lab, sizeof lab));
            }
        if ((st = check_guards(rt))) { rt->planned = false; return st; }
        if ((st = bind_symbols(rt))) { rt->planned = false; return st; }
        if ((st = eval_geometry(rt))) return st;
        if ((st = plan_memory(rt))) return st;
        rt->planned = true;
    }
    if ((st = prepare_inputs(rt))) return st;
    refresh_pointers(rt);
    eir_kctx ctx = {.err = rt->kerr, .errlen = sizeof rt->kerr, .nthreads = eir_pool_threads(eir_pool_current()),
                    .rng = &rt->rng};
    if (rt->prof) {
        /* the same loop, each step timed (a separate loop: no clock read when off) */
        double run0 = mono_us();
        for (uint32_t i = 0; i < rt->nsteps; i++) rt->prof[i].last_start_us = rt->prof[i].last_us = 0;
        for (uint32_t i = 0; i < rt->nsteps;) {
            rt_step *s = &rt->steps[i];
            double t0 = mono_us();
            if ((st = run_step(rt, s, &ctx))) return step_failed(rt, s, st);
            double t1 = mono_us();
            eir_step_profile *sp = &rt->prof[i];
            sp->calls++;
            sp->total_us += t1 - t0;
            sp->last_start_us = t0 - run0;
            sp->last_us = t1 - t0;
            i = next_step(rt, i);
        }
    } else {
        for (uint32_t i = 0; i < rt->nsteps;) {
            rt_step *s = &rt->steps[i];
            if ((st = run_step(rt, s, &ctx))) return step_failed(rt, s, st);
            i = next_step(rt, i);
        }
    }
    /* write mutated state back (outputs are pinned, so they are still intact) */
    for (uint32_t k = 0; k < rt->nwrites; k++) {
        rt_value *src = &rt->values[rt->writes[k].src], *dst = &rt->values[rt->writes[k].dst];
        if (src->view.data == dst->view.data) continue;
        copy_logical(&dst->view, &src->view);
    }
    /* inputs written in place that were normalized into a private copy: update the caller's tensor */
    for (uint32_t i = 0; i < rt->ninputs; i++) {
        rt_io *io = &rt->inputs[i];
        if (!io->copy || io->value == EIR_NO_VALUE || !rt->values[io->value].is_tensor) continue;
        rt_value *v = &rt->values[io->value];
        if (v->storage < 0 || !rt->storages[v->storage].written) continue;
        eir_tview caller = from_public_view(&io->given);
        copy_logical(&caller, &v->view);
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
    if (io->value != EIR_NO_VALUE && rt->values[io->value].sym_float) {
        io->scalar.f = rt->values[io->value].symf;
        out->dtype = EIR_F64;
    } else if (io->value != EIR_NO_VALUE) {
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
                rt->symvals[s] = sym_int_value(si->value);
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

uint64_t eir_runtime_peak_live_bytes(const eir_runtime *rt) { return rt ? rt->peak_live_bytes : 0; }

int eir_op_runnable(const char *op) {
    if (!op) return 0;
    char full[192];
    if (strncmp(op, "torch.ops.", 10)) {
        snprintf(full, sizeof full, "torch.ops.%s", op);
    } else {
        snprintf(full, sizeof full, "%s", op);
        op += 10;
    }
    if (is_sym_target(full) || is_assert(full)) return 1;
    static const char *const data_dependent[] = {
        "aten.nonzero.default", "aten.argwhere.default", "aten.item.default", "aten._local_scalar_dense.default",
        "aten.masked_select.default", "aten.repeat_interleave.Tensor", "aten.repeat_interleave.self_Tensor",
        "aten._unique2.default"};
    for (size_t i = 0; i < EIR_ARRAY_LEN(data_dependent); i++)
        if (!strcmp(op, data_dependent[i])) return 1;
    const eir_op_schema *sc = eir_op_find(op);
    if (!sc) return 0;
    if (eir_view_op(op) || find_kernel(op)) return 1;
    if ((sc->flags & EIR_OPF_INPLACE) && functional_kernel(sc)) return 1;
    if ((sc->flags & EIR_OPF_OUT) && eir_op_functional(sc, NULL) && find_kernel(eir_op_functional(sc, NULL)->name)) return 1;
    return 0;
}

/* ---- profiling ---- */

eir_status eir_runtime_set_profiling(eir_runtime *rt, int on) {
    if (!rt || !rt->steps) return EIR_ERR_ARG;
    if (!on) {
        free(rt->prof);
        rt->prof = NULL;
        return EIR_OK;
    }
    if (rt->prof) return EIR_OK;
    if (!(rt->prof = calloc(rt->nsteps ? rt->nsteps : 1, sizeof *rt->prof)))
        return rt_fail(rt, EIR_ERR_NOMEM, "profiling: out of memory for %u steps", rt->nsteps);
    eir_runtime_profile_reset(rt);
    return EIR_OK;
}

void eir_runtime_profile_reset(eir_runtime *rt) {
    if (!rt || !rt->prof) return;
    for (uint32_t i = 0; i < rt->nsteps; i++) {
        const eir_node *nd = rt->steps[i].node;
        rt->prof[i] = (eir_step_profile){.node = nd && nd->name ? nd->name : "?",
                                         .target = nd && nd->target ? short_target(nd->target) : "?"};
    }
    rt->prof_runs = 0;
    rt->prof_run_us = rt->prof_last_run_us = 0;
}

eir_status eir_runtime_profile(const eir_runtime *rt, eir_profile *out) {
    if (!rt || !out) return EIR_ERR_ARG;
    memset(out, 0, sizeof *out);
    if (!rt->prof) return EIR_OK;
    out->runs = rt->prof_runs;
    out->run_us = rt->prof_run_us;
    out->last_run_us = rt->prof_last_run_us;
    out->num_steps = rt->nsteps;
    out->steps = rt->prof;
    return EIR_OK;
}

/* ---- threads ----
 * n > 1 starts a pool of n - 1 workers now (replacing the runtime's old one);
 * its kernels split their work over it (docs/RUNTIME.md, Threads). */
eir_status eir_runtime_set_threads(eir_runtime *rt, int n) {
    if (!rt) return EIR_ERR_ARG;
    if (n < 0 || n > EIR_MAX_THREADS)
        return rt_fail(rt, EIR_ERR_ARG, "threads: %d is not a thread count (0 for the machine's cores, 1 to %d)", n,
                       EIR_MAX_THREADS);
    if (n == 0) n = eir_cpu_count();
    if (n > EIR_MAX_THREADS) n = EIR_MAX_THREADS;
    if (n == eir_runtime_threads(rt)) return EIR_OK;
    eir_pool_free(rt->pool);
    rt->pool = NULL;
    rt->nthreads = 1;
    if (n > 1) {
        if (!(rt->pool = eir_pool_create(n))) return rt_fail(rt, EIR_ERR_NOMEM, "threads: could not start %d threads", n - 1);
    }
    rt->nthreads = n;
    return EIR_OK;
}

int eir_runtime_threads(const eir_runtime *rt) { return rt && rt->nthreads > 1 ? rt->nthreads : 1; }
