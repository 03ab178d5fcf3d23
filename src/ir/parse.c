/* parse.c — the text form: read what `print(ep)` prints (eir_program_print
 * with EIR_PRINT_PROGRAM) back into a program.
 *
 * The text is the FX view torch prints, so reading it undoes what the
 * printer's FX view did: placeholders become graph inputs, `x = self.g`
 * lines name the nested graph an argument carries, runs of `y = node[i]`
 * after a call become that call's outputs, magic-method lines (`a * b`,
 * `x[0]`) become operator.* calls, and "# File: f.py:N in fn, code: ..."
 * comments become the stack_trace of the nodes below them. Sizes are
 * sympy's str() text, turned into srepr for the expression table (the
 * printed text is kept as the expression's str, so printing gives it back).
 * What print does not show is made up the one way docs/TEXT-FORM.md says:
 * contiguous strides, cpu, zero-filled parameters, buffers and constants.
 *
 * Every error names the line and column and what was expected; nothing
 * here trusts the text (lengths, nesting and numbers are all checked).
 * This file builds the program from statements; parse_lex.c reads the
 * values, expressions and annotations inside them. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "../ops/optable.h"

/* One graph being read. Arrays are malloc'd while they grow and copied to the
 * program's arena when the graph is complete. */
typedef struct gb {
    eir_value *values;
    uint32_t nvalues, capvalues;
    eir_node *nodes;
    uint32_t nnodes, capnodes;
    eir_arg *inputs;
    uint32_t ninputs, capinputs;
    eir_strmap by_name;          /* value name -> index */
    eir_strmap names;            /* every name the graph's code defines */
    eir_strmap attrs;            /* get_attr code name -> index into attr_names */
    const char **attr_names;
    uint32_t *attr_lines;
    uint32_t nattrs, capattrs, capattrl;
    eir_strmap aliases;          /* code name -> value (placeholders FX renamed in code) */
    /* the call whose outputs the getitem lines below are collecting */
    int32_t pending;             /* node index or -1 */
    uint32_t pending_line;
    eir_arg *items;              /* outputs collected so far */
    uint32_t nitems, capitems;
    int32_t list_item;           /* index into items of a list output being filled by nested getitems, or -1 */
    const char *list_name;       /* its code name */
    eir_arg *litems;
    uint32_t nlitems, caplitems;
    /* metadata of the nodes below the last comment */
    const char *stack_trace;
    const char *custom;
} gb;

/* ---- graphs ---- */

static void gb_free(gb *g) {
    free(g->values);
    free(g->nodes);
    free(g->inputs);
    free(g->attr_names);
    free(g->attr_lines);
    eir_strmap_free(&g->names);
    free(g->items);
    free(g->litems);
    eir_strmap_free(&g->by_name);
    eir_strmap_free(&g->attrs);
    eir_strmap_free(&g->aliases);
}

/* a new value; the name must be fresh in the graph */
static eir_status reserve(ps *P, gb *g, const line *ln, uint32_t col, const char *name) {
    uint32_t prev;
    if (eir_strmap_get(&g->names, name, &prev))
        return tp_perr(P, EIR_ERR_GRAPH, ln->no, col, "'%s' is defined twice in this graph (first on line %u)", name,
                    prev);
    return eir_strmap_put(&g->names, name, ln->no) ? EIR_OK : tp_oom(P);
}

/* a new value (a is NULL: only the name is taken, for a call without a
 * value of its own); the name must be fresh in the graph */
static eir_status add_value(ps *P, gb *g, const line *ln, uint32_t col, const char *name, const ann *a,
                            int32_t producer, uint32_t *id) {
    eir_status rs = reserve(P, g, ln, col, name);
    if (rs || !a) return rs;
    eir_value *v = PUSH(P, g->values, g->nvalues, g->capvalues);
    if (!v) return tp_oom(P);
    memset(v, 0, sizeof *v);
    v->name = name;
    v->producer = producer;
    v->sym.value = 0;
    if (a && a->is_sym) {
        v->kind = a->sym_kind;
        v->sym.is_expr = true;
        v->sym.expr = a->sym_expr;
    } else if (a && a->present) {
        v->kind = EIR_VALUE_TENSOR;
        eir_tensor_meta *m = &v->meta;
        m->dtype = a->dtype;
        m->layout = EIR_LAYOUT_STRIDED;
        m->rank = a->rank;
        eir_symint *sz = eir_arena_array(&P->p->arena, a->rank ? a->rank : 1, sizeof *sz);
        eir_symint *sd = eir_arena_array(&P->p->arena, a->rank ? a->rank : 1, sizeof *sd);
        if (!sz || !sd) return tp_oom(P);
        if (a->rank) memcpy(sz, a->sizes, a->rank * sizeof *sz);
        eir_status st = tp_contiguous_strides(P, a->rank, sz, sd);
        if (st) return st;
        m->sizes = sz;
        m->strides = sd;
        m->device.type = "cpu";
        m->device.index = -1;
    } else {
        v->kind = EIR_VALUE_UNTYPED;
    }
    (void)producer;
    if (!eir_strmap_put(&g->by_name, name, g->nvalues - 1)) return tp_oom(P);
    *id = g->nvalues - 1;
    return EIR_OK;
}

/* the eir_arg naming value id */
static eir_arg value_arg(const gb *g, uint32_t id) {
    eir_arg a;
    memset(&a, 0, sizeof a);
    const eir_value *v = &g->values[id];
    a.value = id;
    a.name = v->name;
    switch (v->kind) {
    case EIR_VALUE_TENSOR: a.kind = EIR_ARG_TENSOR; break;
    case EIR_VALUE_SYM_INT: a.kind = EIR_ARG_SYM_INT; break;
    case EIR_VALUE_SYM_FLOAT: a.kind = EIR_ARG_SYM_FLOAT; break;
    case EIR_VALUE_SYM_BOOL: a.kind = EIR_ARG_SYM_BOOL; break;
    case EIR_VALUE_CUSTOM_OBJ: a.kind = EIR_ARG_CUSTOM_OBJ; a.u.s = v->class_fqn; break;
    default: a.kind = EIR_ARG_NONE; a.value = EIR_NO_VALUE; break;
    }
    return a;
}

static eir_status lookup(ps *P, gb *g, const line *ln, uint32_t col, const char *name, uint32_t *id) {
    if (eir_strmap_get(&g->aliases, name, id)) return EIR_OK;
    if (eir_strmap_get(&g->by_name, name, id)) return EIR_OK;
    uint32_t l;
    if (eir_strmap_get(&g->names, name, &l))
        return tp_perr(P, EIR_ERR_GRAPH, ln->no, col, "'%s' (line %u) is not a value: a call with several or no "
                    "outputs, a submodule, or an input without a type", name, l);
    return tp_perr(P, EIR_ERR_GRAPH, ln->no, col, "undefined name '%s'", name);
}

static bool pv_is_value(gb *g, const pv *v, eir_value_kind k) {
    uint32_t id;
    if (v->kind != PV_NAME) return false;
    if (!eir_strmap_get(&g->aliases, v->s, &id) && !eir_strmap_get(&g->by_name, v->s, &id)) return false;
    return g->values[id].kind == k;
}

/* Python value -> argument, as serialize_input does (by the values; empty
 * lists by the schema's type). */
static eir_status to_arg(ps *P, gb *g, const line *ln, const pv *v, int stype, eir_arg *a) {
    memset(a, 0, sizeof *a);
    a->value = EIR_NO_VALUE;
    eir_arena *ar = &P->p->arena;
    switch (v->kind) {
    case PV_NAME: {
        uint32_t ai;
        if (eir_strmap_get(&g->attrs, v->s, &ai)) {
            a->kind = EIR_ARG_GRAPH;
            a->u.graph.name = g->attr_names[ai];
            return EIR_OK;
        }
        uint32_t id;
        eir_status st = lookup(P, g, ln, v->col, v->s, &id);
        if (st) return st;
        *a = value_arg(g, id);
        return EIR_OK;
    }
    case PV_INT: a->kind = EIR_ARG_INT; a->u.i = v->i; return EIR_OK;
    case PV_FLOAT: a->kind = EIR_ARG_FLOAT; a->u.f = v->f; return EIR_OK;
    case PV_BOOL: a->kind = EIR_ARG_BOOL; a->u.b = v->i != 0; return EIR_OK;
    case PV_NONE: a->kind = EIR_ARG_NONE; return EIR_OK;
    case PV_STR: a->kind = EIR_ARG_STRING; a->u.s = v->s; return EIR_OK;
    case PV_DTYPE: a->kind = EIR_ARG_SCALAR_TYPE; a->u.i = v->i; return EIR_OK;
    case PV_MEMFMT: a->kind = EIR_ARG_MEMORY_FORMAT; a->u.i = v->i; return EIR_OK;
    case PV_LAYOUT: a->kind = EIR_ARG_LAYOUT; a->u.i = v->i; return EIR_OK;
    case PV_DEVICE: a->kind = EIR_ARG_DEVICE; a->u.device.type = v->s; a->u.device.index = v->i; return EIR_OK;
    case PV_COMPLEX: a->kind = EIR_ARG_COMPLEX; a->u.c.re = v->f; a->u.c.im = v->im; return EIR_OK;
    case PV_OP: a->kind = EIR_ARG_OPERATOR; a->u.s = v->s; return EIR_OK;
    case PV_DICT: {
        a->kind = EIR_ARG_STRING_TO_ARG;
        a->u.list.n = v->n;
        a->u.list.items = eir_arena_array(ar, v->n ? v->n : 1, sizeof(eir_arg));
        a->u.list.keys = eir_arena_array(ar, v->n ? v->n : 1, sizeof(char *));
        if (!a->u.list.items || !a->u.list.keys) return tp_oom(P);
        for (uint32_t i = 0; i < v->n; i++) {
            a->u.list.keys[i] = v->keys[i];
            eir_status st = to_arg(P, g, ln, &v->items[i], -1, &a->u.list.items[i]);
            if (st) return st;
        }
        return EIR_OK;
    }
    case PV_LIST: case PV_TUPLE: break;
    }
    /* lists */
    uint32_t n = v->n;
    eir_arg_kind lk, ek;
    if (n == 0) {
        switch (stype) {
        case EIR_ST_BOOLS: lk = EIR_ARG_BOOLS; break;
        case EIR_ST_INTS: case EIR_ST_OPT_INTS: lk = EIR_ARG_INTS; break;
        case EIR_ST_FLOATS: case EIR_ST_OPT_FLOATS: lk = EIR_ARG_FLOATS; break;
        case EIR_ST_STRS: lk = EIR_ARG_STRINGS; break;
        default: lk = EIR_ARG_TENSORS; break;
        }
        a->kind = lk;
        a->u.list.items = eir_arena_array(ar, 1, sizeof(eir_arg));
        return a->u.list.items ? EIR_OK : tp_oom(P);
    }
    bool all_bool = true, all_int = true, all_float = true, all_str = true, all_symint = true, all_symfloat = true,
         all_symbool = true, all_tensor = true, all_opt = true, all_nested = true;
    for (uint32_t i = 0; i < n; i++) {
        const pv *it = &v->items[i];
        all_bool &= it->kind == PV_BOOL;
        all_int &= it->kind == PV_INT;
        all_float &= it->kind == PV_FLOAT;
        all_str &= it->kind == PV_STR;
        all_symint &= it->kind == PV_INT || pv_is_value(g, it, EIR_VALUE_SYM_INT);
        all_symfloat &= it->kind == PV_FLOAT || pv_is_value(g, it, EIR_VALUE_SYM_FLOAT);
        all_symbool &= it->kind == PV_BOOL || pv_is_value(g, it, EIR_VALUE_SYM_BOOL);
        bool t = pv_is_value(g, it, EIR_VALUE_TENSOR);
        all_tensor &= t;
        all_opt &= t || it->kind == PV_NONE;
        bool nested = it->kind == PV_LIST || it->kind == PV_TUPLE;
        for (uint32_t j = 0; nested && j < it->n; j++) nested = pv_is_value(g, &it->items[j], EIR_VALUE_TENSOR);
        all_nested &= nested;
    }
    if (all_bool) { lk = EIR_ARG_BOOLS; ek = EIR_ARG_BOOL; }
    else if (all_int) { lk = EIR_ARG_INTS; ek = EIR_ARG_INT; }
    else if (all_float) { lk = EIR_ARG_FLOATS; ek = EIR_ARG_FLOAT; }
    else if (all_str) { lk = EIR_ARG_STRINGS; ek = EIR_ARG_STRING; }
    else if (all_symint) { lk = EIR_ARG_SYM_INTS; ek = EIR_ARG_SYM_INT; }
    else if (all_symfloat) { lk = EIR_ARG_SYM_FLOATS; ek = EIR_ARG_SYM_FLOAT; }
    else if (all_symbool) { lk = EIR_ARG_SYM_BOOLS; ek = EIR_ARG_SYM_BOOL; }
    else if (all_tensor) { lk = EIR_ARG_TENSORS; ek = EIR_ARG_TENSOR; }
    else if (all_nested) { lk = EIR_ARG_NESTED_TENSORS; ek = EIR_ARG_TENSORS; }
    else if (all_opt) { lk = EIR_ARG_OPTIONAL_TENSORS; ek = EIR_ARG_OPTIONAL_TENSOR; }
    else {
        /* name the first element that does not fit */
        for (uint32_t i = 0; i < n; i++)
            if (v->items[i].kind == PV_NAME) {
                uint32_t id;
                eir_status st = lookup(P, g, ln, v->items[i].col, v->items[i].s, &id);
                if (st) return st;
            }
        return tp_perr(P, EIR_ERR_SCHEMA, ln->no, v->col, "a list mixing kinds of elements (expected all ints, "
                    "floats, bools, strings, symbolic values or tensors, or tensors and None)");
    }
    a->kind = lk;
    a->u.list.n = n;
    a->u.list.items = eir_arena_array(ar, n, sizeof(eir_arg));
    if (!a->u.list.items) return tp_oom(P);
    for (uint32_t i = 0; i < n; i++) {
        eir_arg *e = &a->u.list.items[i];
        const pv *it = &v->items[i];
        eir_status st = EIR_OK;
        if (ek == EIR_ARG_TENSORS) st = to_arg(P, g, ln, it, EIR_ST_TENSORS, e), e->kind = EIR_ARG_TENSORS;
        else st = to_arg(P, g, ln, it, -1, e);
        if (st) return st;
        if (ek == EIR_ARG_SYM_INT || ek == EIR_ARG_SYM_FLOAT || ek == EIR_ARG_SYM_BOOL) {
            e->literal = it->kind != PV_NAME;
            e->kind = ek;
        } else if (ek == EIR_ARG_OPTIONAL_TENSOR) {
            e->kind = EIR_ARG_OPTIONAL_TENSOR;
        }
    }
    return EIR_OK;
}

/* ---- targets ---- */

/* serialize.py's _SYM_OPS and the operator.* functions, with the names of
 * their parameters (inspect.signature) */
static const struct { const char *target, *code; const char *p0, *p1, *p2; } SYM_FNS[] = {
    {"math.trunc", "math_trunc", "x", NULL, NULL},      {"torch._sym_sqrt", NULL, "a", NULL, NULL},
    {"torch.sym_float", NULL, "a", NULL, NULL},         {"torch.sym_int", NULL, "a", NULL, NULL},
    {"torch.sym_ite", NULL, "b", "t", "f"},             {"torch.sym_max", NULL, "a", "b", NULL},
    {"torch.sym_min", NULL, "a", "b", NULL},            {"torch.sym_not", NULL, "a", NULL, NULL},
};

/* two-character operators before their one-character prefixes */
static const struct { const char *op, *target; } MAGIC_BIN[] = {
    {"//", "_operator.floordiv"}, {"**", "_operator.pow"}, {"<<", "_operator.lshift"},
    {">>", "_operator.rshift"}, {"==", "_operator.eq"}, {"!=", "_operator.ne"}, {"<=", "_operator.le"},
    {">=", "_operator.ge"}, {"+", "_operator.add"}, {"-", "_operator.sub"}, {"*", "_operator.mul"},
    {"/", "_operator.truediv"}, {"%", "_operator.mod"}, {"&", "_operator.and_"}, {"|", "_operator.or_"},
    {"^", "_operator.xor"}, {"@", "_operator.matmul"}, {"<", "_operator.lt"}, {">", "_operator.gt"},
};

/* Graph._target_to_str + "_unused", sanitized as FX's namespace does */
static bool is_unused_name(const char *name, const char *t) {
    const char *s = t;
    if (!strncmp(t, "torch.ops.", 10) && strncmp(t, "torch.ops.higher_order.", 23) != 0) {
        const char *e = strchr(t + 10, '.');
        if (e) s = e + 1;
    } else {
        const char *d = strrchr(t, '.');
        if (d) s = d + 1;
    }
    char buf[512];
    size_t k = 0;
    for (const char *q = s; *q && k < sizeof buf - 16; q++) {
        char ch = *q;
        if (ch >= 'A' && ch <= 'Z') {
            if (q > s && q[-1] >= 'a' && q[-1] <= 'z') buf[k++] = '_';
            ch = (char)(ch - 'A' + 'a');
        }
        if (!tp_ident_char(ch)) {
            if (k == 0 || buf[k - 1] != '_' || tp_ident_char(q[-1])) buf[k++] = '_';
            continue;
        }
        buf[k++] = ch;
    }
    memcpy(buf + k, "_unused", 8);
    size_t n = strlen(buf);
    if (strncmp(name, buf, n) != 0) return false;
    const char *r = name + n;
    if (!*r) return true;
    if (*r++ != '_' || !*r) return false;
    for (; *r; r++)
        if (!eir_isdigit((unsigned char)*r)) return false;
    return true;
}

static bool is_sym_target(const char *t) {
    if (!strncmp(t, "_operator.", 10) && strcmp(t, "_operator.getitem") != 0) return true;
    if (!strcmp(t, "torch.ops.aten.item.default")) return true;
    for (size_t i = 0; i < EIR_ARRAY_LEN(SYM_FNS); i++)
        if (!strcmp(t, SYM_FNS[i].target)) return true;
    return false;
}

/* ---- nodes ---- */

static eir_status finish_list(ps *P, gb *g) {
    if (g->list_item < 0) return EIR_OK;
    eir_arg *a = &g->items[g->list_item];
    a->u.list.n = g->nlitems;
    a->u.list.items = eir_arena_array(&P->p->arena, g->nlitems ? g->nlitems : 1, sizeof(eir_arg));
    if (!a->u.list.items) return tp_oom(P);
    if (g->nlitems) memcpy(a->u.list.items, g->litems, g->nlitems * sizeof *g->litems);
    /* a list of symbolic ints is SYM_INTS */
    if (g->nlitems && a->u.list.items[0].kind == EIR_ARG_SYM_INT) a->kind = EIR_ARG_SYM_INTS;
    else if (g->nlitems && a->u.list.items[0].kind == EIR_ARG_SYM_FLOAT) a->kind = EIR_ARG_SYM_FLOATS;
    g->list_item = -1;
    g->nlitems = 0;
    return EIR_OK;
}

/* the outputs of the pending call are complete */
static eir_status finish_pending(ps *P, gb *g) {
    if (g->pending < 0) return EIR_OK;
    eir_status st = finish_list(P, g);
    if (st) return st;
    eir_node *nd = &g->nodes[g->pending];
    bool hop = !strncmp(nd->target, "torch.ops.higher_order.", 23);
    uint32_t n = g->nitems;
    eir_arg *outs = NULL;
    uint32_t no = 0;
    if (n == 0) {
        if (is_unused_name(nd->name, nd->target)) {
            outs = eir_arena_array(&P->p->arena, 1, sizeof *outs);
            if (!outs) return tp_oom(P);
            memset(outs, 0, sizeof *outs);
            outs[0].kind = EIR_ARG_NONE;
            outs[0].value = EIR_NO_VALUE;
            no = 1;
        }
    } else {
        const eir_op_schema *sc = hop ? NULL : eir_op_find(nd->target);
        bool one_list = sc && sc->nreturns == 1;
        for (uint32_t i = 0; i < n && one_list; i++) one_list = g->items[i].kind == EIR_ARG_TENSOR;
        if (one_list) {
            outs = eir_arena_array(&P->p->arena, 1, sizeof *outs);
            eir_arg *it = eir_arena_array(&P->p->arena, n, sizeof *it);
            if (!outs || !it) return tp_oom(P);
            memcpy(it, g->items, n * sizeof *it);
            memset(outs, 0, sizeof *outs);
            outs[0].kind = EIR_ARG_TENSORS;
            outs[0].value = EIR_NO_VALUE;
            outs[0].u.list.n = n;
            outs[0].u.list.items = it;
            no = 1;
        } else {
            outs = eir_arena_array(&P->p->arena, n, sizeof *outs);
            if (!outs) return tp_oom(P);
            memcpy(outs, g->items, n * sizeof *outs);
            no = n;
        }
        if (hop) nd->is_hop_single_tensor_return = 0;
    }
    nd->outputs = outs;
    nd->num_outputs = no;
    for (uint32_t i = 0; i < no; i++) {
        const eir_arg *o = &outs[i];
        if (o->value != EIR_NO_VALUE && o->kind != EIR_ARG_TENSORS) g->values[o->value].producer = g->pending;
        if (o->kind == EIR_ARG_TENSORS || o->kind == EIR_ARG_SYM_INTS || o->kind == EIR_ARG_SYM_FLOATS)
            for (uint32_t j = 0; j < o->u.list.n; j++)
                if (o->u.list.items[j].value != EIR_NO_VALUE) g->values[o->u.list.items[j].value].producer = g->pending;
    }
    g->pending = -1;
    g->nitems = 0;
    return EIR_OK;
}

/* metadata of a new node: the current stack trace and custom annotation */
static eir_status node_meta(ps *P, gb *g, eir_node *nd) {
    uint32_t n = (g->stack_trace != NULL) + (g->custom != NULL);
    nd->num_metadata = n;
    if (!n) return EIR_OK;
    eir_kv *kv = eir_arena_array(&P->p->arena, n, sizeof *kv);
    if (!kv) return tp_oom(P);
    uint32_t k = 0;
    if (g->stack_trace) kv[k++] = (eir_kv){"stack_trace", g->stack_trace};
    if (g->custom) kv[k++] = (eir_kv){"custom", g->custom};
    nd->metadata = kv;
    return EIR_OK;
}

/* a getitem line `name[: ann] = parent[idx]` of the pending call */
static eir_status getitem_line(ps *P, gb *g, const line *ln, uint32_t col, const char *name, const ann *a,
                               const char *parent, int64_t idx, uint32_t icol) {
    bool nested = g->list_item >= 0 && !strcmp(parent, g->list_name);
    if (!nested) {
        eir_status st = finish_list(P, g);
        if (st) return st;
    }
    uint32_t expect = nested ? g->nlitems : g->nitems;
    if (idx != (int64_t)expect)
        return tp_perr(P, EIR_ERR_GRAPH, ln->no, icol, "%s[%lld]: the outputs of '%s' are read in order, expected "
                    "index %u", parent, (long long)idx, parent, expect);
    eir_arg o;
    memset(&o, 0, sizeof o);
    o.value = EIR_NO_VALUE;
    if (a->present) {
        uint32_t id;
        eir_status st = add_value(P, g, ln, col, name, a, g->pending, &id);
        if (st) return st;
        o = value_arg(g, id);
    } else if (!nested && !strncmp(name, "as_none", 7)) {
        o.kind = EIR_ARG_NONE;
        uint32_t id;
        eir_status st = add_value(P, g, ln, col, name, NULL, g->pending, &id);
        if (st) return st;
    } else if (!nested) {
        o.kind = EIR_ARG_TENSORS;       /* a list: nested getitems follow */
        uint32_t id;
        eir_status st = add_value(P, g, ln, col, name, NULL, g->pending, &id);
        if (st) return st;
    } else {
        return tp_perr(P, EIR_ERR_SCHEMA, ln->no, col, "'%s' needs a type annotation", name);
    }
    if (nested) {
        eir_arg *slot = PUSH(P, g->litems, g->nlitems, g->caplitems);
        if (!slot) return tp_oom(P);
        *slot = o;
        return EIR_OK;
    }
    eir_arg *slot = PUSH(P, g->items, g->nitems, g->capitems);
    if (!slot) return tp_oom(P);
    *slot = o;
    if (o.kind == EIR_ARG_TENSORS) {
        g->list_item = (int32_t)(g->nitems - 1);
        g->list_name = name;
        g->nlitems = 0;
    }
    return EIR_OK;
}

/* `name[: ann] = rhs[;  a = b = None]` */
static eir_status call_line(ps *P, gb *g, const line *ln) {
    cur c = {P, ln, ln->s, ln->s + ln->len};
    eir_status st;
    size_t n;
    uint32_t ncol = tp_ccol(&c);
    const char *nm = tp_cident(&c, &n);
    if (!nm) {
        char gg[40];
        return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a statement 'name = ...', got %s", tp_got(&c, gg, sizeof gg));
    }
    const char *name = tp_pstrndup(P, nm, n);
    if (!name) return EIR_ERR_NOMEM;
    ann a = {0};
    if (tp_ceat(&c, ":")) {
        if (!tp_ceat(&c, "\"")) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a type annotation in double quotes");
        if ((st = tp_cannotation(&c, &a))) return st;
    }
    if ((st = tp_cexpect(&c, "=", "after the name"))) return st;
    tp_cws(&c);
    uint32_t rcol = tp_ccol(&c);

    /* the right-hand side: get_attr, alias, getitem, magic operator or call */
    const char *target = NULL;
    pv args[3];
    uint32_t nargs = 0;
    pv call;
    memset(&call, 0, sizeof call);
    bool is_call = false;
    if (tp_ceat(&c, "self.")) {
        const char *an = tp_cident(&c, &n);
        if (!an) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a submodule name after 'self.'");
        if (a.present) return tp_perr(P, EIR_ERR_SCHEMA, ln->no, ncol, "a submodule reference has no type annotation");
        if ((st = reserve(P, g, ln, ncol, name))) return st;
        uint32_t *lslot = tp_grow(g->attr_lines, g->nattrs, &g->capattrl, sizeof *g->attr_lines);
        if (!lslot) return tp_oom(P);
        g->attr_lines = lslot;
        lslot[g->nattrs] = ln->no;
        const char **slot = PUSH(P, g->attr_names, g->nattrs, g->capattrs);
        if (!slot) return tp_oom(P);
        *slot = tp_pstrndup(P, an, n);
        if (!*slot || !eir_strmap_put(&g->attrs, name, g->nattrs - 1)) return tp_oom(P);
        if (!tp_cat_end(&c)) return tp_cerr(&c, EIR_ERR_SCHEMA, "unexpected text after 'self.%.*s'", (int)n, an);
        return EIR_OK;
    }
    char op1 = c.s < c.e ? *c.s : 0;
    if (op1 == '-' || op1 == '+' || op1 == '~') {
        /* unary magic: -x, +x, ~x (a negative number is not a call) */
        c.s++;
        target = op1 == '-' ? "_operator.neg" : op1 == '+' ? "_operator.pos" : "_operator.invert";
        if ((st = tp_cvalue(&c, &args[0]))) return st;
        nargs = 1;
    } else {
        /* a call: a dotted name and '(' */
        cur save = c;
        size_t cn;
        uint32_t ccl = tp_ccol(&c);
        const char *callee = tp_cdotted(&c, &cn);
        if (callee && c.s < c.e && *c.s == '(') {
            memset(&args[0], 0, sizeof args[0]);
            args[0].kind = PV_NAME;
            args[0].col = ccl;
            args[0].s = tp_pstrndup(P, callee, cn);
            if (!args[0].s) return EIR_ERR_NOMEM;
            is_call = true;
        } else {
            c = save;
            if (callee && (c.s = callee + cn, tp_cat_end(&c) || *c.s == ';') && !memchr(callee, '.', cn)) {
                /* `input_1 = input`: the code's name for a placeholder */
                if (a.present) return tp_perr(P, EIR_ERR_SCHEMA, ln->no, rcol, "a renamed input has no annotation");
                char *pn = tp_pstrndup(P, callee, cn);
                uint32_t id;
                if (!pn) return EIR_ERR_NOMEM;
                if (!eir_strmap_get(&g->by_name, pn, &id) || g->values[id].producer != -1)
                    return tp_perr(P, EIR_ERR_SCHEMA, ln->no, rcol, "'%s = %s': only graph inputs can be renamed",
                                name, pn);
                if (!eir_strmap_put(&g->aliases, name, id)) return tp_oom(P);
                goto deletions;
            }
            c = save;
        }
        if (!is_call && (st = tp_cvalue(&c, &args[0]))) return st;
        nargs = 1;
        tp_cws(&c);
        if (is_call) {
            /* below */
        } else if (args[0].kind == PV_NAME && c.s < c.e && *c.s == '[') {
            c.s++;
            uint32_t icol = tp_ccol(&c);
            pv ix;
            if ((st = tp_cnumber(&c, &ix))) return st;
            if (ix.kind != PV_INT) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected an integer index");
            if ((st = tp_cexpect(&c, "]", "after the index"))) return st;
            /* outputs of the call above */
            bool ok_parent = g->pending >= 0 &&
                             ((g->nodes[g->pending].name && !strcmp(args[0].s, g->nodes[g->pending].name)) ||
                              (g->list_item >= 0 && !strcmp(args[0].s, g->list_name)));
            if (!ok_parent) {
                uint32_t id;
                if ((st = lookup(P, g, ln, args[0].col, args[0].s, &id))) return st;
                return tp_perr(P, EIR_ERR_GRAPH, ln->no, args[0].col, "'%s[%lld]': getitem lines must directly "
                            "follow the call whose outputs they read", args[0].s, (long long)ix.i);
            }
            if ((st = getitem_line(P, g, ln, ncol, name, &a, args[0].s, ix.i, icol))) return st;
            goto deletions;
        } else if (tp_cat_end(&c) == false && *c.s != ';') {
            for (size_t i = 0; i < EIR_ARRAY_LEN(MAGIC_BIN); i++)
                if (tp_ceat(&c, MAGIC_BIN[i].op)) {
                    target = MAGIC_BIN[i].target;
                    break;
                }
            if (!target) {
                char gg[40];
                return tp_cerr(&c, EIR_ERR_SCHEMA, "expected '(', '[' or an operator after the first operand, got %s",
                            tp_got(&c, gg, sizeof gg));
            }
            if ((st = tp_cvalue(&c, &args[1]))) return st;
            nargs = 2;
        } else {
            return tp_perr(P, EIR_ERR_SCHEMA, ln->no, rcol, "expected a call, an operator or a getitem");
        }
    }
    if ((st = finish_pending(P, g))) return st;

    /* the node */
    uint32_t tcol = args[0].col;
    if (is_call) {
        const char *callee = args[0].s;
        target = callee;
        for (size_t i = 0; i < EIR_ARRAY_LEN(SYM_FNS); i++)
            if (SYM_FNS[i].code && !strcmp(callee, SYM_FNS[i].code)) target = SYM_FNS[i].target;
        c.s++;
        call.kind = PV_TUPLE;
    }
    if (!strncmp(target, "torch.", 6) || !strncmp(target, "_operator.", 10) || !strcmp(target, "math.trunc")) {
        /* fine */
    } else {
        return tp_perr(P, EIR_ERR_SCHEMA, ln->no, tcol, "unknown callable '%s' (torch.ops.<ns>.<op>.<overload>, "
                    "torch.sym_*, math_trunc or an operator expected)", target);
    }
    const char *tdup = tp_pstrndup(P, target, strlen(target));
    if (!tdup) return EIR_ERR_NOMEM;
    target = tdup;
    bool hop = !strncmp(target, "torch.ops.higher_order.", 23);
    bool symop = is_sym_target(target);
    const eir_op_schema *sc = NULL;
    if (!strncmp(target, "torch.ops.", 10) && !hop) {
        sc = eir_op_find(target);
        const char *ns = target + 10;
        if (!sc && (!strncmp(ns, "aten.", 5) || !strncmp(ns, "prims.", 6)))
            return tp_perr(P, EIR_ERR_SCHEMA, ln->no, tcol, "unknown operator '%s' (torch 2.13 has no such overload)",
                        target);
    }

    /* arguments */
    eir_named_arg *ins = NULL;
    uint32_t nin = 0, capin = 0;
    eir_status rst = EIR_OK;
    if (is_call) {
        uint32_t npos = 0;
        for (;;) {
            if (tp_ceat(&c, ")")) break;
            /* keyword? */
            tp_cws(&c);
            cur save = c;
            uint32_t kcol = tp_ccol(&c);
            size_t kn;
            const char *kw = tp_cident(&c, &kn);
            bool is_kw = kw && tp_ceat(&c, "=") && !(c.s < c.e && *c.s == '=');
            if (!is_kw) { c = save; kw = NULL; }
            uint32_t acol = tp_ccol(&c);
            pv v;
            if ((rst = tp_cvalue(&c, &v))) goto fail;
            eir_named_arg *na = PUSH(P, ins, nin, capin);
            if (!na) { rst = tp_oom(P); goto fail; }
            memset(na, 0, sizeof *na);
            int stype = -1;
            if (kw) {
                na->kind = 2;
                na->name = tp_pstrndup(P, kw, kn);
                if (!na->name) { rst = EIR_ERR_NOMEM; goto fail; }
                for (uint32_t i = 0; i < nin - 1; i++)
                    if (ins[i].kind == 2 && !strcmp(ins[i].name, na->name)) {
                        rst = tp_perr(P, EIR_ERR_SCHEMA, ln->no, kcol, "keyword argument '%s' given twice", na->name);
                        goto fail;
                    }
                if (sc) {
                    uint32_t k = 0;
                    while (k < sc->nargs && strcmp(sc->args[k].name, na->name)) k++;
                    if (k == sc->nargs) {
                        rst = tp_perr(P, EIR_ERR_SCHEMA, ln->no, kcol, "%s has no argument '%s'", target + 10, na->name);
                        goto fail;
                    }
                    stype = (int)sc->args[k].type;
                }
            } else {
                if (nin > 1 && ins[nin - 2].kind == 2) {
                    rst = tp_perr(P, EIR_ERR_SCHEMA, ln->no, acol, "positional argument after a keyword argument");
                    goto fail;
                }
                na->kind = 1;
                na->name = "";
                if (sc) {
                    if (npos >= sc->nargs || sc->args[npos].kwarg_only) {
                        rst = tp_perr(P, EIR_ERR_SCHEMA, ln->no, acol, "%s takes %u positional arguments, got more",
                                   target + 10, npos);
                        goto fail;
                    }
                    na->name = sc->args[npos].name;
                    stype = (int)sc->args[npos].type;
                } else if (symop) {
                    for (size_t i = 0; i < EIR_ARRAY_LEN(SYM_FNS); i++)
                        if (!strcmp(target, SYM_FNS[i].target))
                            na->name = npos == 0 ? SYM_FNS[i].p0 : npos == 1 ? SYM_FNS[i].p1 : SYM_FNS[i].p2;
                    if (!na->name) na->name = "";
                }
                npos++;
            }
            if ((rst = to_arg(P, g, ln, &v, stype, &na->arg))) goto fail;
            if (tp_ceat(&c, ",")) continue;
            if (tp_ceat(&c, ")")) break;
            char gg[40];
            rst = tp_cerr(&c, EIR_ERR_SCHEMA, "expected ',' or ')' in the arguments of %s, got %s", target,
                       tp_got(&c, gg, sizeof gg));
            goto fail;
        }
    } else {
        for (uint32_t i = 0; i < nargs; i++) {
            eir_named_arg *na = PUSH(P, ins, nin, capin);
            if (!na) { rst = tp_oom(P); goto fail; }
            memset(na, 0, sizeof *na);
            na->kind = 1;
            na->name = i == 0 ? "a" : "b";
            if ((rst = to_arg(P, g, ln, &args[i], -1, &na->arg))) goto fail;
        }
    }
    if (sc && nin > 1) {
        /* schema order, as the serializer writes them */
        for (uint32_t i = 1; i < nin; i++) {
            eir_named_arg t = ins[i];
            uint32_t ti = 0;
            while (ti < sc->nargs && strcmp(sc->args[ti].name, t.name)) ti++;
            uint32_t j = i;
            while (j > 0) {
                uint32_t pj = 0;
                while (pj < sc->nargs && strcmp(sc->args[pj].name, ins[j - 1].name)) pj++;
                if (pj <= ti) break;
                ins[j] = ins[j - 1];
                j--;
            }
            ins[j] = t;
        }
    }

    /* the node itself */
    eir_node *nd = PUSH(P, g->nodes, g->nnodes, g->capnodes);
    if (!nd) { rst = tp_oom(P); goto fail; }
    memset(nd, 0, sizeof *nd);
    nd->target = target;
    nd->name = name;
    nd->is_hop_single_tensor_return = -1;
    nd->num_inputs = nin;
    eir_named_arg *cin = eir_arena_array(&P->p->arena, nin ? nin : 1, sizeof *cin);
    if (!cin) { rst = tp_oom(P); goto fail; }
    if (nin) memcpy(cin, ins, nin * sizeof *ins);
    nd->inputs = cin;
    free(ins);
    ins = NULL;
    if ((rst = node_meta(P, g, nd))) goto fail;
    if (a.present) {
        uint32_t id;
        if ((st = add_value(P, g, ln, ncol, name, &a, (int32_t)(g->nnodes - 1), &id))) return st;
        eir_arg *o = eir_arena_array(&P->p->arena, 1, sizeof *o);
        if (!o) return tp_oom(P);
        *o = value_arg(g, id);
        g->nodes[g->nnodes - 1].outputs = o;
        g->nodes[g->nnodes - 1].num_outputs = 1;
        if (hop) g->nodes[g->nnodes - 1].is_hop_single_tensor_return = 1;
    } else if (symop) {
        return tp_perr(P, EIR_ERR_SCHEMA, ln->no, ncol, "'%s' needs a \"Sym(...)\" type annotation", name);
    } else {
        /* outputs come from the getitem lines below, if any */
        uint32_t id;
        if ((st = add_value(P, g, ln, ncol, name, NULL, (int32_t)(g->nnodes - 1), &id))) return st;
        g->pending = (int32_t)(g->nnodes - 1);
        g->pending_line = ln->no;
        g->nitems = 0;
        g->list_item = -1;
    }
    goto deletions;
fail:
    free(ins);
    return rst;

deletions:
    /* `;  a = b = None`: names must exist */
    if (tp_cat_end(&c)) return EIR_OK;
    if ((st = tp_cexpect(&c, ";", "or the end of the line after the statement"))) return st;
    for (;;) {
        size_t dn;
        tp_cws(&c);
        uint32_t dcol = tp_ccol(&c);
        const char *d = tp_cident(&c, &dn);
        if (!d) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected 'name = ... = None' after ';'");
        if (dn == 4 && !memcmp(d, "None", 4)) {
            if (!tp_cat_end(&c)) return tp_cerr(&c, EIR_ERR_SCHEMA, "unexpected text after 'None'");
            return EIR_OK;
        }
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%.*s", (int)(dn < 255 ? dn : 255), d);
        uint32_t id;
        if (!eir_strmap_get(&g->names, tmp, &id) && !eir_strmap_get(&g->aliases, tmp, &id))
            return tp_perr(P, EIR_ERR_GRAPH, ln->no, dcol, "undefined name '%s' in a deletion", tmp);
        if ((st = tp_cexpect(&c, "=", "in 'name = ... = None'"))) return st;
    }
}

/* ---- comments: "# File: f.py:12 in forward, code: y = x + 1" ---- */

static void json_str(eir_buf *b, const char *s) {
    eir_buf_putc(b, '"');
    for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
        if (*q == '"' || *q == '\\') { eir_buf_putc(b, '\\'); eir_buf_putc(b, (char)*q); }
        else if (*q < 0x20) eir_buf_printf(b, "\\u%04x", *q);
        else eir_buf_putc(b, (char)*q);
    }
    eir_buf_putc(b, '"');
}

/* a Python value of an annotation as JSON (meta["custom"] is JSON text) */
static bool pv_json(eir_buf *b, const pv *v) {
    switch (v->kind) {
    case PV_NONE: eir_buf_puts(b, "null"); return true;
    case PV_BOOL: eir_buf_puts(b, v->i ? "true" : "false"); return true;
    case PV_INT: eir_buf_printf(b, "%lld", (long long)v->i); return true;
    case PV_FLOAT:
        if (!isfinite(v->f)) return false;
        eir_buf_put_pyfloat(b, v->f);
        return true;
    case PV_STR: json_str(b, v->s); return true;
    case PV_LIST: case PV_TUPLE:
        eir_buf_putc(b, '[');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) eir_buf_puts(b, ", ");
            if (!pv_json(b, &v->items[i])) return false;
        }
        eir_buf_putc(b, ']');
        return true;
    case PV_DICT:
        eir_buf_putc(b, '{');
        for (uint32_t i = 0; i < v->n; i++) {
            if (i) eir_buf_puts(b, ", ");
            json_str(b, v->keys[i]);
            eir_buf_puts(b, ": ");
            if (!pv_json(b, &v->items[i])) return false;
        }
        eir_buf_putc(b, '}');
        return true;
    default: return false;
    }
}

static eir_status comment_line(ps *P, gb *g, const line *ln) {
    cur c = {P, ln, ln->s + 1, ln->s + ln->len};
    g->custom = NULL;
    g->stack_trace = NULL;
    if (tp_ceat(&c, "Annotation:")) {
        pv d;
        eir_status st = tp_cvalue(&c, &d);
        if (st) return st;
        if (d.kind != PV_DICT) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a dict after 'Annotation:'");
        eir_buf b;
        eir_buf_init(&b);
        bool ok = pv_json(&b, &d);
        if (ok) g->custom = tp_pstrndup(P, b.data ? b.data : "{}", b.len);
        eir_buf_free(&b);
        if (!ok) return tp_perr(P, EIR_ERR_SCHEMA, ln->no, d.col, "an annotation holds only JSON values");
        if (!g->custom) return EIR_ERR_NOMEM;
    }
    tp_cws(&c);
    const char *s = c.s, *e = c.e;
    size_t n = (size_t)(e - s);
    if (n == 39 && !strncmp(s, "No stacktrace found for following nodes", 39)) return EIR_OK;
    if (n < 6 || strncmp(s, "File: ", 6) != 0)
        return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a comment 'File: <path>:<line> in <function>, code: <code>' or "
                    "'No stacktrace found for following nodes'");
    /* File: PATH:LINE in FN, code: CODE — the first ", code: " ends FN, and
     * the last ":<digits> in " before it ends PATH */
    const char *code = NULL;
    for (const char *q = s + 6; q + 8 <= e; q++)
        if (!memcmp(q, ", code: ", 8)) { code = q; break; }
    const char *colon = NULL, *fn = NULL;
    for (const char *q = code ? code : e; code && q-- > s + 6;) {
        if (*q != ':') continue;
        const char *d = q + 1;
        while (d < code && eir_isdigit((unsigned char)*d)) d++;
        if (d > q + 1 && d + 4 <= code && !memcmp(d, " in ", 4)) { colon = q; fn = d + 4; break; }
    }
    if (!code || !colon) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected 'File: <path>:<line> in <function>, code: <code>'");
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_printf(&b, "  File \"%.*s\", line %.*s, in %.*s\n    %.*s\n", (int)(colon - (s + 6)), s + 6,
                   (int)(fn - 4 - colon - 1), colon + 1, (int)(code - fn), fn, (int)(e - code - 8), code + 8);
    g->stack_trace = tp_pstrndup(P, b.data, b.len);
    eir_buf_free(&b);
    return g->stack_trace ? EIR_OK : EIR_ERR_NOMEM;
}

/* ---- classes ---- */

typedef struct parsed_graph {
    eir_graph *graph;
    const char *name;
} parsed_graph;

static eir_status parse_class(ps *P, uint32_t *li, uint32_t indent, bool root, const char **name_out,
                              eir_graph **out);

static uint32_t next_nonblank(ps *P, uint32_t i) {
    while (i < P->nlines && P->lines[i].blank) i++;
    return i;
}

/* `def forward(self, x: "f32[2]", n):` */
static eir_status forward_line(ps *P, gb *g, const line *ln, bool root) {
    cur c = {P, ln, ln->s, ln->s + ln->len};
    eir_status st;
    if ((st = tp_cexpect(&c, "def", "(the forward method)")) || (st = tp_cexpect(&c, "forward", "after 'def'")) ||
        (st = tp_cexpect(&c, "(", "after 'def forward'")) || (st = tp_cexpect(&c, "self", "as forward's first parameter")))
        return st;
    for (;;) {
        if (tp_ceat(&c, ")")) break;
        if ((st = tp_cexpect(&c, ",", "between parameters"))) return st;
        size_t n;
        tp_cws(&c);
        uint32_t col = tp_ccol(&c);
        const char *nm = tp_cident(&c, &n);
        if (!nm) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a parameter name");
        const char *name = tp_pstrndup(P, nm, n);
        if (!name) return EIR_ERR_NOMEM;
        ann a = {0};
        if (tp_ceat(&c, ":")) {
            if (!tp_ceat(&c, "\"")) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a type annotation in double quotes");
            if ((st = tp_cannotation(&c, &a))) return st;
        }
        uint32_t idx = g->ninputs;
        eir_arg *in = PUSH(P, g->inputs, g->ninputs, g->capinputs);
        if (!in) return tp_oom(P);
        memset(in, 0, sizeof *in);
        in->value = EIR_NO_VALUE;
        if (a.present) {
            uint32_t id;
            if ((st = add_value(P, g, ln, col, name, &a, -1, &id))) return st;
            *in = value_arg(g, id);
        } else if (root && P->have_sig && idx < P->nsin && P->sin[idx].kind == EIR_IN_CUSTOM_OBJ) {
            ann none = {0};
            uint32_t id;
            if ((st = add_value(P, g, ln, col, name, &none, -1, &id))) return st;
            g->values[id].kind = EIR_VALUE_CUSTOM_OBJ;
            g->values[id].class_fqn = "";
            *in = value_arg(g, id);
        } else {
            /* a constant input: its value is not printed */
            if ((st = add_value(P, g, ln, col, name, NULL, -1, NULL))) return st;
            in->kind = EIR_ARG_NONE;
        }
    }
    if ((st = tp_cexpect(&c, ":", "after forward's parameters"))) return st;
    if (!tp_cat_end(&c)) return tp_cerr(&c, EIR_ERR_SCHEMA, "unexpected text after 'def forward(...):'");
    return EIR_OK;
}

static eir_status return_line(ps *P, gb *g, const line *ln, eir_graph *graph) {
    cur c = {P, ln, ln->s + 6, ln->s + ln->len};
    pv v;
    eir_status st = tp_cvalue(&c, &v);
    if (st) return st;
    if (!tp_cat_end(&c)) return tp_cerr(&c, EIR_ERR_SCHEMA, "unexpected text after the return value");
    if ((st = finish_pending(P, g))) return st;
    uint32_t n = v.kind == PV_TUPLE ? v.n : 1;
    eir_arg *outs = eir_arena_array(&P->p->arena, n ? n : 1, sizeof *outs);
    if (!outs) return tp_oom(P);
    for (uint32_t i = 0; i < n; i++)
        if ((st = to_arg(P, g, ln, v.kind == PV_TUPLE ? &v.items[i] : &v, -1, &outs[i]))) return st;
    graph->outputs = outs;
    graph->num_outputs = n;
    graph->is_single_tensor_return = v.kind != PV_TUPLE;
    return EIR_OK;
}

/* GRAPH arguments name child classes */
static eir_status bind_subgraphs(ps *P, gb *g, const char *cls, parsed_graph *kids, uint32_t nkids,
                                 const uint32_t *kid_lines) {
    for (uint32_t k = 0; k < nkids; k++) {
        uint32_t a = 0;
        while (a < g->nattrs && strcmp(kids[k].name, g->attr_names[a])) a++;
        if (a == g->nattrs)
            return tp_perr(P, EIR_ERR_GRAPH, kid_lines[k], 1, "class '%s' is not used: %s has no 'self.%s'",
                        kids[k].name, cls, kids[k].name);
    }
    for (uint32_t a = 0; a < g->nattrs; a++) {
        uint32_t k = 0;
        while (k < nkids && strcmp(kids[k].name, g->attr_names[a])) k++;
        if (k == nkids)
            return tp_perr(P, EIR_ERR_GRAPH, g->attr_lines[a], 1, "no class '%s' in %s for 'self.%s'",
                        g->attr_names[a], cls, g->attr_names[a]);
    }
    for (uint32_t i = 0; i < g->nnodes; i++) {
        eir_node *nd = &g->nodes[i];
        for (uint32_t j = 0; j < nd->num_inputs; j++) {
            eir_arg *a = &((eir_named_arg *)nd->inputs)[j].arg;
            if (a->kind != EIR_ARG_GRAPH) continue;
            for (uint32_t k = 0; k < nkids; k++)
                if (!strcmp(kids[k].name, a->u.graph.name)) a->u.graph.graph = kids[k].graph;
        }
    }
    return EIR_OK;
}

static eir_status parse_class(ps *P, uint32_t *li, uint32_t indent, bool root, const char **name_out,
                              eir_graph **out) {
    uint32_t i = next_nonblank(P, *li);
    if (i >= P->nlines) return tp_perr(P, EIR_ERR_SCHEMA, P->nlines ? P->lines[P->nlines - 1].no : 1, 1,
                                    "expected 'class <name>(torch.nn.Module):', got the end of the text");
    const line *cl = &P->lines[i];
    if (++P->depth > MAX_DEPTH) return tp_perr(P, EIR_ERR_SCHEMA, cl->no, 1, "classes nested too deeply");
    cur c = {P, cl, cl->s, cl->s + cl->len};
    eir_status st;
    if (cl->indent != indent)
        return tp_perr(P, EIR_ERR_SCHEMA, cl->no, cl->indent + 1, "expected a class at column %u", indent + 1);
    size_t n;
    if ((st = tp_cexpect(&c, "class", "(a graph module)"))) return st;
    const char *nm = tp_cident(&c, &n);
    if (!nm) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a class name");
    *name_out = tp_pstrndup(P, nm, n);
    if (!*name_out) return EIR_ERR_NOMEM;
    if ((st = tp_cexpect(&c, "(torch.nn.Module):", "after the class name"))) return st;
    if (!tp_cat_end(&c)) return tp_cerr(&c, EIR_ERR_SCHEMA, "unexpected text after the class line");

    gb g;
    memset(&g, 0, sizeof g);
    eir_strmap_init(&g.by_name);
    eir_strmap_init(&g.names);
    eir_strmap_init(&g.attrs);
    eir_strmap_init(&g.aliases);
    g.pending = -1;
    g.list_item = -1;
    parsed_graph *kids = NULL;
    uint32_t *kid_lines = NULL;
    uint32_t nkids = 0, capkids = 0, capkidl = 0;
    eir_graph *graph = eir_arena_alloc(&P->p->arena, sizeof *graph);
    if (!graph) { st = tp_oom(P); goto out; }
    memset(graph, 0, sizeof *graph);

    i = next_nonblank(P, i + 1);
    if (i >= P->nlines || P->lines[i].indent != indent + 4) {
        st = tp_perr(P, EIR_ERR_SCHEMA, i < P->nlines ? P->lines[i].no : cl->no + 1, indent + 5,
                  "expected 'def forward(self, ...):' at column %u", indent + 5);
        goto out;
    }
    if ((st = forward_line(P, &g, &P->lines[i], root))) goto out;
    bool returned = false;
    uint32_t body = indent + 8;
    for (i = i + 1; i < P->nlines; i++) {
        const line *ln = &P->lines[i];
        if (ln->blank) continue;
        if (ln->indent < body) break;
        if (ln->indent > body) { st = tp_perr(P, EIR_ERR_SCHEMA, ln->no, ln->indent + 1, "unexpected indentation"); goto out; }
        if (returned) { st = tp_perr(P, EIR_ERR_SCHEMA, ln->no, ln->indent + 1, "statement after 'return'"); goto out; }
        if (ln->s[0] == '#') {
            if ((st = finish_pending(P, &g))) goto out;
            st = comment_line(P, &g, ln);
        } else if (ln->len >= 7 && !memcmp(ln->s, "return ", 7)) {
            st = return_line(P, &g, ln, graph);
            returned = true;
        } else {
            st = call_line(P, &g, ln);
        }
        if (st) goto out;
    }
    if (!returned) {
        st = tp_perr(P, EIR_ERR_SCHEMA, i < P->nlines ? P->lines[i].no : P->lines[P->nlines - 1].no, body + 1,
                  "expected 'return ...' to end forward()");
        goto out;
    }
    /* child classes */
    for (;;) {
        i = next_nonblank(P, i);
        if (i >= P->nlines || P->lines[i].indent != indent + 4) break;
        uint32_t *kl = tp_grow(kid_lines, nkids, &capkidl, sizeof *kid_lines);
        if (!kl) { st = tp_oom(P); goto out; }
        kid_lines = kl;
        kid_lines[nkids] = P->lines[i].no;
        parsed_graph *k = PUSH(P, kids, nkids, capkids);
        if (!k) { st = tp_oom(P); goto out; }
        uint32_t at = i;
        if ((st = parse_class(P, &i, indent + 4, false, &k->name, &k->graph))) goto out;
        for (uint32_t j = 0; j + 1 < nkids; j++)
            if (!strcmp(kids[j].name, k->name)) {
                st = tp_perr(P, EIR_ERR_GRAPH, P->lines[at].no, indent + 5, "class '%s' is defined twice", k->name);
                goto out;
            }
    }
    if (i < P->nlines && P->lines[i].indent > indent) {
        st = tp_perr(P, EIR_ERR_SCHEMA, P->lines[i].no, P->lines[i].indent + 1, "expected a class at column %u",
                  indent + 5);
        goto out;
    }
    if ((st = bind_subgraphs(P, &g, *name_out, kids, nkids, kid_lines))) goto out;

    /* copy into the arena */
    eir_arena *ar = &P->p->arena;
    graph->num_inputs = g.ninputs;
    graph->num_nodes = g.nnodes;
    graph->num_values = g.nvalues;
    eir_arg *ins = eir_arena_array(ar, g.ninputs ? g.ninputs : 1, sizeof *ins);
    eir_node *nodes = eir_arena_array(ar, g.nnodes ? g.nnodes : 1, sizeof *nodes);
    eir_value *vals = eir_arena_array(ar, g.nvalues ? g.nvalues : 1, sizeof *vals);
    if (!ins || !nodes || !vals) { st = tp_oom(P); goto out; }
    if (g.ninputs) memcpy(ins, g.inputs, g.ninputs * sizeof *ins);
    if (g.nnodes) memcpy(nodes, g.nodes, g.nnodes * sizeof *nodes);
    if (g.nvalues) memcpy(vals, g.values, g.nvalues * sizeof *vals);
    graph->inputs = ins;
    graph->nodes = nodes;
    graph->values = vals;
    *out = graph;
    *li = i;
out:
    P->depth--;
    free(kids);
    free(kid_lines);
    gb_free(&g);
    return st;
}

/* ---- signature and ranges ---- */

static const char *const IN_KINDS[] = {"USER_INPUT", "PARAMETER", "BUFFER", "CONSTANT_TENSOR", "CUSTOM_OBJ",
                                       "TOKEN"};
static const char *const OUT_KINDS[] = {"USER_OUTPUT", "LOSS_OUTPUT", "BUFFER_MUTATION", "GRADIENT_TO_PARAMETER",
                                        "GRADIENT_TO_USER_INPUT", "USER_INPUT_MUTATION", "TOKEN",
                                        "PARAMETER_MUTATION"};

/* `name: KIND[ target='t'][ persistent=True]` */
static eir_status spec_line(ps *P, const line *ln, bool outputs) {
    cur c = {P, ln, ln->s, ln->s + ln->len};
    eir_status st;
    size_t n = 0;
    const char *nm = tp_cident(&c, &n);
    const char *name = tp_pstrndup(P, nm ? nm : "", nm ? n : 0);
    if (!name) return EIR_ERR_NOMEM;
    if ((st = tp_cexpect(&c, ":", "after the name of a signature entry"))) return st;
    size_t kn;
    tp_cws(&c);
    uint32_t kcol = tp_ccol(&c);
    const char *k = tp_cident(&c, &kn);
    int kind = -1;
    const char *const *tab = outputs ? OUT_KINDS : IN_KINDS;
    int ntab = outputs ? (int)EIR_ARRAY_LEN(OUT_KINDS) : (int)EIR_ARRAY_LEN(IN_KINDS);
    for (int i = 0; k && i < ntab; i++)
        if (strlen(tab[i]) == kn && !memcmp(tab[i], k, kn)) kind = i;
    if (kind < 0)
        return tp_perr(P, EIR_ERR_SCHEMA, ln->no, kcol, "unknown %s kind '%.*s'", outputs ? "output" : "input",
                    k ? (int)kn : 0, k ? k : "");
    const char *target = NULL;
    int8_t persistent = -1;
    if (tp_ceat(&c, "target=")) {
        if (!tp_cpeek(&c, '\'') && !tp_cpeek(&c, '"')) return tp_cerr(&c, EIR_ERR_SCHEMA, "expected a quoted target");
        if ((st = tp_cstring(&c, &target))) return st;
    }
    if (!outputs && tp_ceat(&c, "persistent=")) {
        if (tp_ceat(&c, "True")) persistent = 1;
        else if (tp_ceat(&c, "False")) persistent = 0;
        else return tp_cerr(&c, EIR_ERR_SCHEMA, "expected True or False");
    }
    if (!tp_cat_end(&c)) return tp_cerr(&c, EIR_ERR_SCHEMA, "unexpected text in a signature entry");
    if (!outputs) {
        if ((kind == EIR_IN_PARAMETER || kind == EIR_IN_BUFFER || kind == EIR_IN_CONSTANT_TENSOR ||
             kind == EIR_IN_CUSTOM_OBJ) && !target)
            return tp_perr(P, EIR_ERR_SCHEMA, ln->no, kcol, "a %s input needs target='...'", IN_KINDS[kind]);
        if (kind == EIR_IN_BUFFER && persistent < 0)
            return tp_perr(P, EIR_ERR_SCHEMA, ln->no, kcol, "a BUFFER input needs persistent=True or False");
        uint32_t *l = tp_grow(P->sin_line, P->nsin, &P->capsinl, sizeof *l);
        if (!l) return tp_oom(P);
        P->sin_line = l;
        l[P->nsin] = ln->no;
        struct sig_in *s = PUSH(P, P->sin, P->nsin, P->capsin);
        if (!s) return tp_oom(P);
        *s = (struct sig_in){name, (eir_input_kind)kind, target, persistent};
    } else {
        if (persistent >= 0) return tp_cerr(&c, EIR_ERR_SCHEMA, "outputs have no persistent=");
        uint32_t *l = tp_grow(P->sout_line, P->nsout, &P->capsoutl, sizeof *l);
        if (!l) return tp_oom(P);
        P->sout_line = l;
        l[P->nsout] = ln->no;
        struct sig_out *s = PUSH(P, P->sout, P->nsout, P->capsout);
        if (!s) return tp_oom(P);
        *s = (struct sig_out){name, (eir_output_kind)kind, target};
    }
    return EIR_OK;
}

/* lines [from, to) of the signature section */
static eir_status parse_signature(ps *P, uint32_t from, uint32_t to) {
    int part = 0;                /* 1 inputs, 2 outputs */
    for (uint32_t i = from; i < to; i++) {
        const line *ln = &P->lines[i];
        if (ln->blank) continue;
        if (ln->len == 8 && !memcmp(ln->s, "# inputs", 8)) {
            if (part != 0) return tp_perr(P, EIR_ERR_SCHEMA, ln->no, ln->indent + 1, "'# inputs' comes first");
            part = 1;
            continue;
        }
        if (ln->len == 9 && !memcmp(ln->s, "# outputs", 9)) {
            if (part != 1) return tp_perr(P, EIR_ERR_SCHEMA, ln->no, ln->indent + 1, "'# outputs' follows '# inputs'");
            part = 2;
            continue;
        }
        if (part == 0) return tp_perr(P, EIR_ERR_SCHEMA, ln->no, ln->indent + 1, "expected '# inputs'");
        eir_status st = spec_line(P, ln, part == 2);
        if (st) return st;
    }
    if (part != 2)
        return tp_perr(P, EIR_ERR_SCHEMA, to > from ? P->lines[to - 1].no : P->lines[from ? from - 1 : 0].no, 1,
                    "the graph signature needs '# inputs' and '# outputs'");
    P->have_sig = true;
    return EIR_OK;
}

/* `Range constraints: {s77: VR[2, 16], u0: VR[0, int_oo]}` */
static eir_status parse_ranges(ps *P, const line *ln) {
    cur c = {P, ln, ln->s + 18, ln->s + ln->len};
    eir_status st;
    if ((st = tp_cexpect(&c, "{", "after 'Range constraints:'"))) return st;
    eir_range *r = NULL;
    uint32_t n = 0, cap = 0;
    while (!tp_ceat(&c, "}")) {
        /* a symbol, or an expression (2*s17) of one */
        tp_cws(&c);
        uint32_t scol = tp_ccol(&c);
        const char *sym = c.s, *stop = NULL;
        for (const char *q = c.s; q + 5 <= c.e; q++)
            if (!memcmp(q, ": VR[", 5)) { stop = q; break; }
        if (!stop || stop == sym) { st = tp_cerr(&c, EIR_ERR_SCHEMA, "expected '<symbol>: VR[<min>, <max>]'"); goto out; }
        size_t sn = (size_t)(stop - sym);
        c.s = stop;
        eir_range *x = PUSH(P, r, n, cap);
        if (!x) { st = tp_oom(P); goto out; }
        memset(x, 0, sizeof *x);
        x->symbol = tp_pstrndup(P, sym, sn);
        if (!x->symbol) { st = EIR_ERR_NOMEM; goto out; }
        for (uint32_t j = 0; j + 1 < n; j++)
            if (!strcmp(r[j].symbol, x->symbol)) {
                st = tp_perr(P, EIR_ERR_SCHEMA, ln->no, scol, "symbol '%s' has two ranges", x->symbol);
                goto out;
            }
        if ((st = tp_cexpect(&c, ":", "after the symbol")) || (st = tp_cexpect(&c, "VR[", "(a value range)"))) goto out;
        for (int b = 0; b < 2; b++) {
            if (tp_ceat(&c, b ? "int_oo" : "-int_oo")) {
                /* unbounded */
            } else {
                pv v;
                if ((st = tp_cnumber(&c, &v))) goto out;
                if (v.kind != PV_INT) { st = tp_cerr(&c, EIR_ERR_SCHEMA, "a bound is an integer or %sint_oo", b ? "" : "-"); goto out; }
                if (b) { x->has_max = true; x->max = v.i; }
                else { x->has_min = true; x->min = v.i; }
            }
            if ((st = tp_cexpect(&c, b ? "]" : ",", b ? "after the upper bound" : "between the bounds"))) goto out;
        }
        if (x->has_min && x->has_max && x->min > x->max) {
            st = tp_perr(P, EIR_ERR_SCHEMA, ln->no, scol, "range of '%s' is empty (%lld > %lld)", x->symbol,
                      (long long)x->min, (long long)x->max);
            goto out;
        }
        if (tp_ceat(&c, ",")) continue;
        if (!tp_cpeek(&c, '}')) { char gg[40]; st = tp_cerr(&c, EIR_ERR_SCHEMA, "expected ',' or '}', got %s", tp_got(&c, gg, sizeof gg)); goto out; }
    }
    if (!tp_cat_end(&c)) { st = tp_cerr(&c, EIR_ERR_SCHEMA, "unexpected text after the range constraints"); goto out; }
    P->p->ranges = eir_arena_array(&P->p->arena, n ? n : 1, sizeof *r);
    if (!P->p->ranges) { st = tp_oom(P); goto out; }
    if (n) memcpy(P->p->ranges, r, n * sizeof *r);
    P->p->num_ranges = n;
out:
    free(r);
    return st;
}

/* ---- hints ----
 *
 * torch records an example value (hint) for every backed size; the text
 * does not show it. Backed symbols (s*) get the smallest value of their
 * range that is at least 2 (torch's default range starts there), sizes
 * that are expressions of them the value of the expression; unbacked ones
 * (u*, data-dependent) stay without a hint, as in torch. */

typedef struct hint_ctx {
    const eir_program *p;
} hint_ctx;

static bool hint_of(void *ctx, const char *name, eir_sym_value *v) {
    const eir_program *p = ((hint_ctx *)ctx)->p;
    if (name[0] != 's') return false;
    int64_t h = 2;
    for (uint32_t i = 0; i < p->num_ranges; i++) {
        const eir_range *r = &p->ranges[i];
        if (strcmp(r->symbol, name) != 0) continue;
        if (r->has_min && r->min > h) h = r->min;
        if (r->has_max && r->max < h) h = r->max;
    }
    *v = (eir_sym_value){false, h, (double)h};
    return true;
}

static void set_hint(const eir_program *p, eir_symint *si) {
    if (!si->is_expr) return;
    hint_ctx c = {p};
    char err[128];
    eir_sym_value v;
    if (!eir_sym_eval_value(p->exprs[si->expr].tree, hint_of, &c, &v, err, sizeof err)) return;
    if (v.is_float) { si->hint_kind = 2; si->hint_float = v.f; si->value = (int64_t)v.f; }
    else si->value = v.i;
    si->has_hint = true;
}

static void set_hints(eir_program *p, eir_graph *g, int depth) {
    if (depth > MAX_DEPTH) return;
    for (uint32_t i = 0; i < g->num_values; i++) {
        eir_value *v = (eir_value *)&g->values[i];
        if (v->kind == EIR_VALUE_TENSOR) {
            for (uint32_t d = 0; d < v->meta.rank; d++) {
                set_hint(p, (eir_symint *)&v->meta.sizes[d]);
                set_hint(p, (eir_symint *)&v->meta.strides[d]);
            }
        } else if (v->kind == EIR_VALUE_SYM_INT || v->kind == EIR_VALUE_SYM_FLOAT || v->kind == EIR_VALUE_SYM_BOOL) {
            set_hint(p, &v->sym);
            if (v->sym.has_hint && v->kind == EIR_VALUE_SYM_FLOAT) v->symf = v->sym.hint_float;
        }
    }
    for (uint32_t i = 0; i < g->num_nodes; i++)
        for (uint32_t j = 0; j < g->nodes[i].num_inputs; j++) {
            const eir_arg *a = &g->nodes[i].inputs[j].arg;
            if (a->kind == EIR_ARG_GRAPH && a->u.graph.graph) set_hints(p, a->u.graph.graph, depth + 1);
        }
}

/* ---- the program ---- */

/* the signature: one spec per root input and output */
static eir_status build_specs(ps *P, uint32_t sig_line) {
    eir_program *p = P->p;
    const eir_graph *g = p->graph;
    uint32_t ni = g->num_inputs, no = g->num_outputs;
    if (P->have_sig && P->nsin != ni)
        return tp_perr(P, EIR_ERR_GRAPH, sig_line, 1, "the signature lists %u inputs, forward() takes %u", P->nsin, ni);
    if (P->have_sig && P->nsout != no)
        return tp_perr(P, EIR_ERR_GRAPH, sig_line, 1, "the signature lists %u outputs, forward() returns %u", P->nsout,
                    no);
    p->input_specs = eir_arena_array(&p->arena, ni ? ni : 1, sizeof *p->input_specs);
    p->output_specs = eir_arena_array(&p->arena, no ? no : 1, sizeof *p->output_specs);
    if (!p->input_specs || !p->output_specs) return tp_oom(P);
    for (uint32_t i = 0; i < ni; i++) {
        eir_input_spec *s = &p->input_specs[i];
        const eir_arg *a = &g->inputs[i];
        s->arg = *a;
        s->persistent = -1;
        s->kind = EIR_IN_USER_INPUT;
        if (P->have_sig) {
            const struct sig_in *si = &P->sin[i];
            s->kind = si->kind;
            s->target = si->target;
            s->persistent = si->persistent;
            if (a->kind != EIR_ARG_NONE && (!a->name || strcmp(a->name, si->name) != 0))
                return tp_perr(P, EIR_ERR_GRAPH, P->sin_line[i], 1, "signature input %u is '%s', forward()'s is '%s'", i,
                            si->name, a->name ? a->name : "");
            bool tensor = a->kind == EIR_ARG_TENSOR;
            if ((s->kind == EIR_IN_PARAMETER || s->kind == EIR_IN_BUFFER || s->kind == EIR_IN_CONSTANT_TENSOR) &&
                !tensor)
                return tp_perr(P, EIR_ERR_GRAPH, P->sin_line[i], 1, "%s input '%s' needs a tensor type in forward()",
                            IN_KINDS[s->kind], si->name);
            if (a->kind == EIR_ARG_NONE) {
                if (s->kind != EIR_IN_USER_INPUT)
                    return tp_perr(P, EIR_ERR_GRAPH, P->sin_line[i], 1, "input '%s' has no type in forward()", si->name);
                s->kind = EIR_IN_CONSTANT_INPUT;
                s->target = si->name;
            }
        } else if (a->kind == EIR_ARG_NONE) {
            s->kind = EIR_IN_CONSTANT_INPUT;
            s->target = "";
        }
    }
    for (uint32_t i = 0; i < no; i++) {
        eir_output_spec *s = &p->output_specs[i];
        const eir_arg *a = &g->outputs[i];
        s->arg = *a;
        s->kind = EIR_OUT_USER_OUTPUT;
        if (P->have_sig) {
            const struct sig_out *so = &P->sout[i];
            const char *an = a->name ? a->name : "";
            if (strcmp(an, so->name) != 0)
                return tp_perr(P, EIR_ERR_GRAPH, P->sout_line[i], 1, "signature output %u is '%s', forward() returns "
                            "'%s'", i, so->name, an);
            s->kind = so->kind;
            s->target = so->target;
        }
    }
    p->num_input_specs = ni;
    p->num_output_specs = no;
    return EIR_OK;
}

/* parameters, buffers and constants: zero-filled, contiguous */
static eir_status build_tensors(ps *P) {
    eir_program *p = P->p;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        eir_input_kind k = p->input_specs[i].kind;
        n += k == EIR_IN_PARAMETER || k == EIR_IN_BUFFER || k == EIR_IN_CONSTANT_TENSOR;
    }
    p->tensors = calloc(n ? n : 1, sizeof *p->tensors);
    if (!p->tensors) return tp_oom(P);
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if (s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_BUFFER && s->kind != EIR_IN_CONSTANT_TENSOR) continue;
        uint32_t prev;
        const eir_tensor_meta *m = &p->graph->values[s->arg.value].meta;
        if (eir_strmap_get(&p->tensor_by_fqn, s->target, &prev)) {  /* tied: one tensor, of one type */
            const eir_tensor *u = &p->tensors[prev];
            bool same = u->dtype == m->dtype && u->rank == m->rank;
            for (uint32_t d = 0; same && d < m->rank; d++)
                same = !m->sizes[d].is_expr && m->sizes[d].value == u->sizes[d];
            if (!same)
                return tp_perr(P, EIR_ERR_GRAPH, P->have_sig ? P->sin_line[i] : 1, 1, "%s '%s' is the target of "
                               "two placeholders of different dtypes or sizes", IN_KINDS[s->kind], s->target);
            continue;
        }
        eir_tensor *t = &p->tensors[p->num_tensors];
        int64_t *sz = eir_arena_array(&p->arena, m->rank ? m->rank : 1, sizeof *sz);
        int64_t *sd = eir_arena_array(&p->arena, m->rank ? m->rank : 1, sizeof *sd);
        if (!sz || !sd) return tp_oom(P);
        uint64_t numel = 1;
        for (uint32_t d = 0; d < m->rank; d++) {
            if (m->sizes[d].is_expr)
                return tp_perr(P, EIR_ERR_GRAPH, P->have_sig ? P->sin_line[i] : 1, 1, "%s '%s' has a symbolic size "
                            "(%s); parameters, buffers and constants have static sizes", IN_KINDS[s->kind],
                            s->target, p->exprs[m->sizes[d].expr].str);
            sz[d] = m->sizes[d].value;
            if (sz[d] < 0 || (sz[d] && numel > (UINT64_C(1) << 40) / (uint64_t)sz[d]))
                return tp_perr(P, EIR_ERR_GRAPH, P->have_sig ? P->sin_line[i] : 1, 1, "%s '%s' is too large",
                            IN_KINDS[s->kind], s->target);
            numel *= (uint64_t)sz[d];
        }
        for (uint32_t d = m->rank; d-- > 0;) sd[d] = d + 1 == m->rank ? 1 : sd[d + 1] * (sz[d + 1] > 1 ? sz[d + 1] : 1);
        uint64_t nbytes = numel * eir_dtype_size(m->dtype);
        void *data = eir_arena_alloc(&p->arena, nbytes ? (size_t)nbytes : 1);
        if (!data) return tp_oom(P);
        memset(data, 0, nbytes ? (size_t)nbytes : 1);
        t->is_constant = s->kind == EIR_IN_CONSTANT_TENSOR || (s->kind == EIR_IN_BUFFER && s->persistent == 0);
        char rec[64];
        snprintf(rec, sizeof rec, "%s_%u", t->is_constant ? "data/constants/tensor" : "data/weights/weight",
                 p->num_tensors);
        t->record = tp_pstrndup(P, rec, strlen(rec));
        if (!t->record) return EIR_ERR_NOMEM;
        t->fqn = s->target;
        t->is_param = s->kind == EIR_IN_PARAMETER;
        t->is_constant = s->kind == EIR_IN_CONSTANT_TENSOR || (s->kind == EIR_IN_BUFFER && s->persistent == 0);
        t->dtype = m->dtype;
        t->rank = m->rank;
        t->sizes = sz;
        t->strides = sd;
        t->data = data;
        t->storage_nbytes = nbytes;
        t->requires_grad = t->is_param;
        t->layout = EIR_LAYOUT_STRIDED;
        t->device.type = "cpu";
        t->device.index = -1;
        if (!eir_strmap_put(&p->tensor_by_fqn, t->fqn, p->num_tensors)) return tp_oom(P);
        p->num_tensors++;
    }
    return EIR_OK;
}

/* The root module's call signature, as torch writes it for forward(*args)
 * returning its outputs (one output: not a tuple), so that torch.export.load
 * can rebuild ep.module() from an archive written from the text. */
static eir_status build_module_call(ps *P) {
    eir_program *p = P->p;
    static const char LEAF[] = "{\"type\": null, \"context\": null, \"children_spec\": []}";
    uint32_t nin = 0, nout = 0;
    for (uint32_t i = 0; i < p->num_input_specs; i++)
        nin += p->input_specs[i].kind == EIR_IN_USER_INPUT || p->input_specs[i].kind == EIR_IN_CONSTANT_INPUT;
    for (uint32_t i = 0; i < p->num_output_specs; i++) nout += p->output_specs[i].kind == EIR_OUT_USER_OUTPUT;
    eir_module_call *mc = eir_arena_alloc(&p->arena, sizeof *mc);
    eir_arg *ins = eir_arena_array(&p->arena, nin ? nin : 1, sizeof *ins);
    eir_arg *outs = eir_arena_array(&p->arena, nout ? nout : 1, sizeof *outs);
    const char **names = eir_arena_array(&p->arena, nin ? nin : 1, sizeof *names);
    if (!mc || !ins || !outs || !names) return tp_oom(P);
    memset(mc, 0, sizeof *mc);
    uint32_t k = 0;
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_puts(&b, "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [{\"type\": "
                     "\"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if (s->kind != EIR_IN_USER_INPUT && s->kind != EIR_IN_CONSTANT_INPUT) continue;
        ins[k] = s->arg;
        names[k] = s->kind == EIR_IN_CONSTANT_INPUT ? s->target : s->arg.name;
        if (!names[k]) names[k] = "";
        eir_buf_puts(&b, k ? ", " : "");
        eir_buf_puts(&b, LEAF);
        k++;
    }
    eir_buf_puts(&b, "]}, {\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}]}]");
    mc->in_spec = tp_pstrndup(P, b.data ? b.data : "", b.len);
    eir_buf_free(&b);
    eir_buf_init(&b);
    k = 0;
    if (nout == 1) eir_buf_printf(&b, "[1, %s]", LEAF);
    else eir_buf_puts(&b, "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [");
    for (uint32_t i = 0; i < p->num_output_specs; i++) {
        if (p->output_specs[i].kind != EIR_OUT_USER_OUTPUT) continue;
        outs[k] = p->output_specs[i].arg;
        if (nout != 1) { eir_buf_puts(&b, k ? ", " : ""); eir_buf_puts(&b, LEAF); }
        k++;
    }
    if (nout != 1) eir_buf_puts(&b, "]}]");
    mc->out_spec = tp_pstrndup(P, b.data ? b.data : "", b.len);
    eir_buf_free(&b);
    if (!mc->in_spec || !mc->out_spec) return EIR_ERR_NOMEM;
    mc->fqn = "";
    mc->has_signature = true;
    mc->num_inputs = nin;
    mc->inputs = ins;
    mc->num_outputs = nout;
    mc->outputs = outs;
    mc->num_forward_arg_names = (int32_t)nin;
    mc->forward_arg_names = names;
    p->module_calls = mc;
    p->num_module_calls = 1;
    return EIR_OK;
}

static eir_status split_lines(ps *P, const char *text, size_t len) {
    uint32_t cap = 0;
    uint32_t no = 1;
    for (size_t i = 0; i <= len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        if (j == len && i == len) break;
        if (no == UINT32_MAX) return tp_perr(P, EIR_ERR_SCHEMA, no, 1, "too many lines");
        line *l = PUSH(P, P->lines, P->nlines, cap);
        if (!l) return tp_oom(P);
        size_t k = i;
        while (k < j && text[k] == ' ') k++;
        if (k < j && text[k] == '\t') return tp_perr(P, EIR_ERR_SCHEMA, no, (uint32_t)(k - i) + 1, "tab in the indentation");
        size_t e = j;
        while (e > k && eir_isspace((unsigned char)text[e - 1])) e--;
        if (k - i > UINT32_MAX / 2 || e - k > UINT32_MAX / 2) return tp_perr(P, EIR_ERR_SCHEMA, no, 1, "line too long");
        l->s = text + k;
        l->len = (uint32_t)(e - k);
        l->indent = (uint32_t)(k - i);
        l->no = no++;
        l->blank = e == k;
        i = j + 1;
    }
    return EIR_OK;
}

static eir_status parse_program(ps *P, const char *text, size_t len) {
    eir_status st;
    const char *nul = memchr(text, 0, len);
    if (nul) {
        uint32_t lno = 1, col = 1;
        for (const char *q = text; q < nul; q++) { if (*q == '\n') { lno++; col = 1; } else col++; }
        return tp_perr(P, EIR_ERR_SCHEMA, lno, col, "NUL byte in the text");
    }
    if ((st = split_lines(P, text, len))) return st;
    uint32_t i = next_nonblank(P, 0);
    if (i >= P->nlines) return tp_perr(P, EIR_ERR_SCHEMA, 1, 1, "empty text: expected 'ExportedProgram:' or a class");
    uint32_t cls_indent = P->lines[i].indent;
    bool wrapped = false;
    if (P->lines[i].len == 16 && !memcmp(P->lines[i].s, "ExportedProgram:", 16)) {
        wrapped = true;
        cls_indent = P->lines[i].indent + 4;
        i++;
    }
    /* the sections after the graph module: at the indentation of "ExportedProgram:" */
    uint32_t sig = P->nlines, ranges = P->nlines, end_graph = P->nlines;
    uint32_t top = cls_indent - (wrapped ? 4 : 0);
    for (uint32_t k = i; k < P->nlines; k++) {
        const line *ln = &P->lines[k];
        if (ln->blank || ln->indent != top) continue;
        if (ln->len >= 16 && !memcmp(ln->s, "Graph signature:", 16) && sig == P->nlines) {
            sig = k;
            if (end_graph == P->nlines) end_graph = k;
        } else if (ln->len >= 18 && !memcmp(ln->s, "Range constraints:", 18) && ranges == P->nlines) {
            ranges = k;
            if (end_graph == P->nlines) end_graph = k;
        }
    }
    if (sig < P->nlines) {
        if (P->lines[sig].len != 16)
            return tp_perr(P, EIR_ERR_SCHEMA, P->lines[sig].no, top + 17, "unexpected text after 'Graph signature:'");
        uint32_t stop = ranges > sig ? ranges : P->nlines;
        for (uint32_t k = sig + 1; k < stop; k++)
            if (!P->lines[k].blank && P->lines[k].indent <= top) { stop = k; break; }
        if ((st = parse_signature(P, sig + 1, stop))) return st;
    }
    /* the graph module, with only its own lines */
    uint32_t saved = P->nlines;
    P->nlines = end_graph;
    const char *name;
    eir_graph *g = NULL;
    st = parse_class(P, &i, cls_indent, true, &name, &g);
    uint32_t after = next_nonblank(P, i);
    P->nlines = saved;
    if (st) return st;
    if (after < end_graph)
        return tp_perr(P, EIR_ERR_SCHEMA, P->lines[after].no, P->lines[after].indent + 1,
                    "unexpected line after the graph module");
    P->p->graph = g;
    if (ranges < P->nlines && (st = parse_ranges(P, &P->lines[ranges]))) return st;
    for (uint32_t k = (ranges < P->nlines ? ranges : sig < P->nlines ? P->nlines : end_graph) + 1; k < P->nlines; k++)
        if (!P->lines[k].blank && P->lines[k].indent <= top && k != sig && (ranges == P->nlines || k > ranges))
            return tp_perr(P, EIR_ERR_SCHEMA, P->lines[k].no, P->lines[k].indent + 1, "unexpected line after the "
                        "range constraints");
    set_hints(P->p, g, 0);
    if ((st = build_specs(P, sig < P->nlines ? P->lines[sig].no : 1))) return st;
    if ((st = build_tensors(P))) return st;
    if ((st = build_module_call(P))) return st;
    P->p->torch_version = "2.13.0";
    /* the text does not say whether the program was decomposed: TRAINING is
     * the dialect torch's verifier accepts either way */
    static const char *const VERIFIERS[] = {"TRAINING"};
    P->p->verifiers = (const char **)VERIFIERS;
    P->p->num_verifiers = 1;
    P->p->opset = eir_arena_alloc(&P->p->arena, sizeof *P->p->opset);
    if (!P->p->opset) return tp_oom(P);
    P->p->opset[0].name = "aten";
    P->p->opset[0].version = 10;
    P->p->num_opset = 1;
    P->p->schema_major = 8;
    P->p->schema_minor = 20;
    P->p->model_name = "model";
    return EIR_OK;
}

eir_status eir_program_parse(const char *text, size_t len, eir_program **out) {
    if (!out) return EIR_ERR_ARG;
    eir_program *p = *out = eir_program_new_empty();
    if (!p) return EIR_ERR_NOMEM;
    if (!text && len) return eir_fail(p, EIR_ERR_ARG, "eir_program_parse: NULL text");
    ps P;
    memset(&P, 0, sizeof P);
    P.p = p;
    eir_status st = parse_program(&P, text ? text : "", len);
    free(P.lines);
    free(P.sin);
    free(P.sout);
    free(P.sin_line);
    free(P.sout_line);
    if (st != EIR_OK) p->graph = NULL;
    else p->layout_made_up = true;  /* print shows no strides */
    return st;
}
