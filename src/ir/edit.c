/* edit.c — editing a loaded program in place: values, nodes, uses, state.
 *
 * The graph keeps the loader's layout: nodes and values are arrays, an
 * argument names a value by its index in its graph's value table, and a
 * value records the index of the node that defines it (-1 for a graph
 * input, -2 for none). Every edit restores those invariants before it
 * returns, so the printer, the runtime and the writer see a program as
 * consistent as a loaded one.
 *
 * Arrays live in the program's arena. Growing one copies it into a larger
 * arena block with room to spare (capacities are remembered per graph), so
 * n insertions cost O(n) amortised copies and at most twice the memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"
#include "../ops/optable.h"
#include "edit.h"

/* ---- capacities of the arrays an edit may grow ---- */

typedef struct graph_cap {
    const eir_graph *g;
    uint32_t nodes, values, inputs;
} graph_cap;

static graph_cap *cap_of(eir_program *p, const eir_graph *g) {
    for (uint32_t i = 0; i < p->num_graph_caps; i++)
        if (p->graph_caps[i].g == g) return &p->graph_caps[i];
    if (p->num_graph_caps == p->cap_graph_caps) {
        uint32_t n = p->cap_graph_caps ? p->cap_graph_caps * 2 : 8;
        graph_cap *c = realloc(p->graph_caps, n * sizeof *c);
        if (!c) return NULL;
        p->graph_caps = c;
        p->cap_graph_caps = n;
    }
    graph_cap *c = &p->graph_caps[p->num_graph_caps++];
    c->g = g;
    c->nodes = g->num_nodes;
    c->values = g->num_values;
    c->inputs = g->num_inputs;
    return c;
}

/* Make room for one more element in an arena array of n elements whose
 * capacity is *cap; returns the (possibly moved) array or NULL. */
static void *grow(eir_program *p, const void *arr, uint32_t n, uint32_t *cap, size_t elem) {
    if (n < *cap) return (void *)arr;
    uint32_t ncap = *cap < 8 ? 8 : *cap * 2;
    void *a = eir_arena_array(&p->arena, ncap, elem);
    if (!a) return NULL;
    if (n) memcpy(a, arr, (size_t)n * elem);
    *cap = ncap;
    return a;
}

/* ---- walking the arguments that name values ---- */

/* Calls fn on every argument of `a` (recursively through lists) that names
 * a value of the graph it belongs to. */
typedef void (*arg_fn)(eir_arg *a, void *ctx);

bool eir_arg_names_value(const eir_arg *a) {
    switch (a->kind) {
    case EIR_ARG_TENSOR: case EIR_ARG_OPTIONAL_TENSOR: case EIR_ARG_CUSTOM_OBJ:
        return a->value != EIR_NO_VALUE;
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: case EIR_ARG_SYM_BOOL:
        return !a->literal && a->value != EIR_NO_VALUE;
    default:
        return false;
    }
}

bool eir_arg_kind_is_list(eir_arg_kind k) {
    switch (k) {
    case EIR_ARG_TENSORS: case EIR_ARG_INTS: case EIR_ARG_FLOATS: case EIR_ARG_BOOLS: case EIR_ARG_STRINGS:
    case EIR_ARG_SYM_INTS: case EIR_ARG_SYM_FLOATS: case EIR_ARG_SYM_BOOLS: case EIR_ARG_OPTIONAL_TENSORS:
    case EIR_ARG_NESTED_TENSORS: case EIR_ARG_INT_LISTS: case EIR_ARG_FLOAT_LISTS: case EIR_ARG_STRING_TO_ARG:
        return true;
    default:
        return false;
    }
}

uint32_t eir_node_output_value(const eir_node *nd, uint32_t k) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < nd->num_outputs; i++) {
        const eir_arg *o = &nd->outputs[i];
        if (eir_arg_names_value(o)) {
            if (n++ == k) return o->value;
        } else if (eir_arg_kind_is_list(o->kind))
            for (uint32_t j = 0; j < o->u.list.n; j++)
                if (eir_arg_names_value(&o->u.list.items[j]) && n++ == k) return o->u.list.items[j].value;
    }
    return EIR_NO_VALUE;
}

static void walk_arg(eir_arg *a, arg_fn fn, void *ctx) {
    if (eir_arg_names_value(a)) fn(a, ctx);
    else if (eir_arg_kind_is_list(a->kind))
        for (uint32_t i = 0; i < a->u.list.n; i++) walk_arg(&a->u.list.items[i], fn, ctx);
}

enum { WALK_DEFS = 1, WALK_USES = 2 };

/* The arguments of graph g: its inputs and node outputs (definitions), node
 * inputs and graph outputs (uses); for the root graph also the signature's
 * input specs (with the definitions: they name the graph inputs) and output
 * specs (with the uses: they name the graph outputs). */
static void walk_graph(eir_program *p, eir_graph *g, int what, arg_fn fn, void *ctx) {
    eir_arg *ins = (eir_arg *)g->inputs;
    if (what & WALK_DEFS)
        for (uint32_t i = 0; i < g->num_inputs; i++) walk_arg(&ins[i], fn, ctx);
    eir_node *nodes = (eir_node *)g->nodes;
    for (uint32_t n = 0; n < g->num_nodes; n++) {
        if (what & WALK_USES) {
            eir_named_arg *na = (eir_named_arg *)nodes[n].inputs;
            for (uint32_t i = 0; i < nodes[n].num_inputs; i++) walk_arg(&na[i].arg, fn, ctx);
        }
        if (what & WALK_DEFS) {
            eir_arg *o = (eir_arg *)nodes[n].outputs;
            for (uint32_t i = 0; i < nodes[n].num_outputs; i++) walk_arg(&o[i], fn, ctx);
        }
    }
    if (what & WALK_USES) {
        eir_arg *outs = (eir_arg *)g->outputs;
        for (uint32_t i = 0; i < g->num_outputs; i++) walk_arg(&outs[i], fn, ctx);
    }
    if (g == p->graph) {
        if (what & WALK_DEFS)
            for (uint32_t i = 0; i < p->num_input_specs; i++) walk_arg(&p->input_specs[i].arg, fn, ctx);
        if (what & WALK_USES)
            for (uint32_t i = 0; i < p->num_output_specs; i++) walk_arg(&p->output_specs[i].arg, fn, ctx);
    }
}

/* ---- queries ---- */

typedef struct count_ctx { uint32_t value, n; } count_ctx;
static void count_fn(eir_arg *a, void *ctx) {
    count_ctx *c = ctx;
    if (a->value == c->value) c->n++;
}

uint32_t eir_graph_num_uses(const eir_graph *g, uint32_t value) {
    if (!g || value >= g->num_values) return 0;
    count_ctx c = {value, 0};
    eir_node *nodes = (eir_node *)g->nodes;
    for (uint32_t n = 0; n < g->num_nodes; n++) {
        eir_named_arg *na = (eir_named_arg *)nodes[n].inputs;
        for (uint32_t i = 0; i < nodes[n].num_inputs; i++) walk_arg(&na[i].arg, count_fn, &c);
    }
    eir_arg *outs = (eir_arg *)g->outputs;
    for (uint32_t i = 0; i < g->num_outputs; i++) walk_arg(&outs[i], count_fn, &c);
    return c.n;
}

static bool name_taken(const eir_graph *g, const char *name) {
    for (uint32_t i = 0; i < g->num_values; i++)
        if (g->values[i].name && !strcmp(g->values[i].name, name)) return true;
    for (uint32_t i = 0; i < g->num_nodes; i++)
        if (g->nodes[i].name && !strcmp(g->nodes[i].name, name)) return true;
    return false;
}

static bool ident_char(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* A fresh name in g from a hint, as FX's namespace makes one: the hint made
 * an identifier, then `hint`, `hint_1`, `hint_2`, ... the first one free. A
 * hint that already ends in `_<n>` counts on from its base. A builtin's
 * name (`slice`) is not taken as it is: FX would rename such a node on
 * loading, away from the signature that names it. */
static const char *fresh_name(eir_program *p, const eir_graph *g, const char *hint) {
    char base[200];
    size_t n = 0;
    if (!hint || !hint[0]) hint = "_unnamed";
    if (hint[0] >= '0' && hint[0] <= '9') base[n++] = '_';
    for (const char *q = hint; *q && n < sizeof base - 1; q++) base[n++] = ident_char(*q) ? *q : '_';
    base[n] = 0;
    size_t k = n;
    while (k > 0 && base[k - 1] >= '0' && base[k - 1] <= '9') k--;
    if (k < n && k >= 2 && base[k - 1] == '_') base[k - 1] = 0;
    bool illegal = eir_fx_illegal_name(base);
    if (!illegal && !name_taken(g, hint) && !strcmp(hint, base)) return eir_arena_strdup(&p->arena, hint);
    if (!illegal && !name_taken(g, base)) return eir_arena_strdup(&p->arena, base);
    char buf[240];
    for (unsigned long i = 1;; i++) {
        snprintf(buf, sizeof buf, "%s_%lu", base, i);
        if (!name_taken(g, buf)) return eir_arena_strdup(&p->arena, buf);
    }
}

/* The name FX gives a node calling `target`: an operator's name without
 * namespace and overload ("torch.ops.aten.add.Tensor" -> "add"), else the
 * last dotted part. */
static void target_base(const char *target, char *out, size_t cap) {
    const char *s = target;
    if (!strncmp(s, "torch.ops.", 10)) {
        s += 10;
        const char *dot = strchr(s, '.');
        if (dot) s = dot + 1;            /* past the namespace */
        const char *end = strchr(s, '.');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        if (n >= cap) n = cap - 1;
        memcpy(out, s, n);
        out[n] = 0;
        return;
    }
    const char *dot = strrchr(s, '.');
    snprintf(out, cap, "%s", dot ? dot + 1 : s);
}

/* ---- copying arguments into the arena ---- */

static bool copy_arg(eir_program *p, eir_arg *dst, const eir_arg *src) {
    *dst = *src;
    if (eir_arg_kind_is_list(src->kind) && src->u.list.n) {
        eir_arg *items = eir_arena_array(&p->arena, src->u.list.n, sizeof *items);
        if (!items) return false;
        for (uint32_t i = 0; i < src->u.list.n; i++)
            if (!copy_arg(p, &items[i], &src->u.list.items[i])) return false;
        dst->u.list.items = items;
        if (src->u.list.keys) {
            const char **keys = eir_arena_array(&p->arena, src->u.list.n, sizeof *keys);
            if (!keys) return false;
            for (uint32_t i = 0; i < src->u.list.n; i++)
                if (!(keys[i] = eir_arena_strdup(&p->arena, src->u.list.keys[i] ? src->u.list.keys[i] : "")))
                    return false;
            dst->u.list.keys = keys;
        }
    } else if ((src->kind == EIR_ARG_STRING || src->kind == EIR_ARG_OPERATOR) && src->u.s) {
        if (!(dst->u.s = eir_arena_strdup(&p->arena, src->u.s))) return false;
    }
    return true;
}

/* ---- checks ---- */

typedef struct check_ctx {
    const eir_graph *g;
    int32_t before;              /* uses must be defined by a node before this one */
    const char *bad;             /* first problem */
    uint32_t bad_value;
} check_ctx;

static void check_use_fn(eir_arg *a, void *ctx) {
    check_ctx *c = ctx;
    if (c->bad) return;
    if (a->value >= c->g->num_values) { c->bad = "names no value of the graph"; c->bad_value = a->value; return; }
    int32_t pr = c->g->values[a->value].producer;
    if (pr == -2 || pr >= c->before) { c->bad = "is not defined before the node"; c->bad_value = a->value; }
}

static const char *value_kind_name(eir_value_kind k) {
    static const char *const N[] = {"a tensor", "a SymInt", "a SymFloat", "a SymBool", "a custom object",
                                    "untyped"};
    return k <= EIR_VALUE_UNTYPED ? N[k] : "?";
}

static eir_value_kind arg_value_kind(eir_arg_kind k) {
    switch (k) {
    case EIR_ARG_TENSOR: case EIR_ARG_OPTIONAL_TENSOR: return EIR_VALUE_TENSOR;
    case EIR_ARG_SYM_INT: return EIR_VALUE_SYM_INT;
    case EIR_ARG_SYM_FLOAT: return EIR_VALUE_SYM_FLOAT;
    case EIR_ARG_SYM_BOOL: return EIR_VALUE_SYM_BOOL;
    default: return EIR_VALUE_CUSTOM_OBJ;
    }
}

/* ---- values ---- */

eir_graph *eir_program_graph_mut(eir_program *p) { return p ? p->graph : NULL; }

uint32_t eir_graph_add_value(eir_program *p, eir_graph *g, eir_value_kind kind, const eir_tensor_meta *meta,
                             const char *name_hint) {
    if (!p || !g) return EIR_NO_VALUE;
    if (kind == EIR_VALUE_TENSOR && !meta) {
        eir_fail(p, EIR_ERR_ARG, "eir_graph_add_value: a tensor value needs its metadata");
        return EIR_NO_VALUE;
    }
    graph_cap *c = cap_of(p, g);
    eir_value *vals = c ? grow(p, g->values, g->num_values, &c->values, sizeof *vals) : NULL;
    if (!vals) { eir_fail(p, EIR_ERR_NOMEM, "out of memory"); return EIR_NO_VALUE; }
    g->values = vals;
    eir_value *v = &vals[g->num_values];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    v->producer = -2;
    v->name = fresh_name(p, g, name_hint);
    if (!v->name) { eir_fail(p, EIR_ERR_NOMEM, "out of memory"); return EIR_NO_VALUE; }
    if (kind == EIR_VALUE_TENSOR) {
        v->meta = *meta;
        uint32_t r = meta->rank;
        eir_symint *sz = eir_arena_array(&p->arena, r ? r : 1, sizeof *sz);
        eir_symint *st = eir_arena_array(&p->arena, r ? r : 1, sizeof *st);
        if (!sz || !st) { eir_fail(p, EIR_ERR_NOMEM, "out of memory"); return EIR_NO_VALUE; }
        if (r) {
            memcpy(sz, meta->sizes, r * sizeof *sz);
            memcpy(st, meta->strides, r * sizeof *st);
        }
        v->meta.sizes = sz;
        v->meta.strides = st;
        if (!v->meta.device.type) v->meta.device.type = "cpu", v->meta.device.index = -1;
        else if (!(v->meta.device.type = eir_arena_strdup(&p->arena, meta->device.type))) {
            eir_fail(p, EIR_ERR_NOMEM, "out of memory");
            return EIR_NO_VALUE;
        }
        if (v->meta.layout == EIR_LAYOUT_UNKNOWN) v->meta.layout = EIR_LAYOUT_STRIDED;
    }
    return g->num_values++;
}

/* ---- nodes ---- */

static void shift_producers(eir_graph *g, uint32_t from, int32_t by) {
    eir_value *vals = (eir_value *)g->values;
    for (uint32_t i = 0; i < g->num_values; i++)
        if (vals[i].producer >= (int32_t)from) vals[i].producer += by;
}

eir_status eir_graph_insert_node(eir_program *p, eir_graph *g, uint32_t pos, const char *target,
                                 uint32_t num_inputs, const eir_named_arg *inputs, uint32_t num_outputs,
                                 const eir_arg *outputs, uint32_t *node_out) {
    if (!p) return EIR_ERR_ARG;
    if (!g || !target || !target[0] || (num_inputs && !inputs) || (num_outputs && !outputs))
        return eir_fail(p, EIR_ERR_ARG, "eir_graph_insert_node: NULL graph, target or arguments");
    if (pos > g->num_nodes)
        return eir_fail(p, EIR_ERR_ARG, "eir_graph_insert_node: position %u is past the graph's %u nodes", pos,
                        g->num_nodes);
    /* every value used must be defined before pos */
    check_ctx cc = {g, (int32_t)pos, NULL, 0};
    for (uint32_t i = 0; i < num_inputs; i++) walk_arg((eir_arg *)&inputs[i].arg, check_use_fn, &cc);
    if (cc.bad)
        return eir_fail(p, EIR_ERR_GRAPH, "eir_graph_insert_node(%s): argument value %u%s%s %s", target,
                        cc.bad_value, cc.bad_value < g->num_values ? " " : "",
                        cc.bad_value < g->num_values ? g->values[cc.bad_value].name : "", cc.bad);
    for (uint32_t i = 0; i < num_inputs; i++) {
        const eir_arg *a = &inputs[i].arg;
        if (eir_arg_names_value(a) && a->kind != EIR_ARG_CUSTOM_OBJ &&
            g->values[a->value].kind != arg_value_kind(a->kind))
            return eir_fail(p, EIR_ERR_GRAPH, "eir_graph_insert_node(%s): argument %u names %s, which is %s", target,
                            i, g->values[a->value].name, value_kind_name(g->values[a->value].kind));
    }
    /* outputs: values made by eir_graph_add_value and not yet defined */
    for (uint32_t i = 0; i < num_outputs; i++) {
        const eir_arg *o = &outputs[i];
        if (!eir_arg_names_value(o)) continue;
        if (o->value >= g->num_values)
            return eir_fail(p, EIR_ERR_ARG, "eir_graph_insert_node(%s): output %u names no value of the graph",
                            target, i);
        if (g->values[o->value].producer != -2)
            return eir_fail(p, EIR_ERR_GRAPH, "eir_graph_insert_node(%s): output %u, %s, is already defined",
                            target, i, g->values[o->value].name);
        for (uint32_t j = 0; j < i; j++)
            if (eir_arg_names_value(&outputs[j]) && outputs[j].value == o->value)
                return eir_fail(p, EIR_ERR_GRAPH, "eir_graph_insert_node(%s): value %s is output twice", target,
                                g->values[o->value].name);
    }

    graph_cap *c = cap_of(p, g);
    eir_node *nodes = c ? grow(p, g->nodes, g->num_nodes, &c->nodes, sizeof *nodes) : NULL;
    eir_named_arg *ins = eir_arena_array(&p->arena, num_inputs ? num_inputs : 1, sizeof *ins);
    eir_arg *outs = eir_arena_array(&p->arena, num_outputs ? num_outputs : 1, sizeof *outs);
    char *tgt = eir_arena_strdup(&p->arena, target);
    if (!nodes || !ins || !outs || !tgt) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    g->nodes = nodes;
    for (uint32_t i = 0; i < num_inputs; i++) {
        ins[i] = inputs[i];
        ins[i].name = eir_arena_strdup(&p->arena, inputs[i].name ? inputs[i].name : "");
        if (!ins[i].name || !copy_arg(p, &ins[i].arg, &inputs[i].arg))
            return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < num_outputs; i++)
        if (!copy_arg(p, &outs[i], &outputs[i])) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");

    /* names: an argument carries its value's name as the file writes it */
    eir_value *vals = (eir_value *)g->values;
    for (uint32_t i = 0; i < num_inputs; i++) {
        eir_arg *a = &ins[i].arg;
        if (eir_arg_names_value(a)) a->name = vals[a->value].name;
        else if (eir_arg_kind_is_list(a->kind))
            for (uint32_t k = 0; k < a->u.list.n; k++)
                if (eir_arg_names_value(&a->u.list.items[k])) a->u.list.items[k].name = vals[a->u.list.items[k].value].name;
    }

    /* the node's name: its single output's, else one made from the target */
    const char *name = NULL;
    if (num_outputs == 1 && eir_arg_names_value(&outs[0])) name = vals[outs[0].value].name;
    if (!name) {
        char base[128];
        target_base(target, base, sizeof base);
        if (!(name = fresh_name(p, g, base))) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }

    shift_producers(g, pos, 1);
    memmove(&nodes[pos + 1], &nodes[pos], (size_t)(g->num_nodes - pos) * sizeof *nodes);
    eir_node *nd = &nodes[pos];
    memset(nd, 0, sizeof *nd);
    nd->target = tgt;
    nd->name = name;
    nd->num_inputs = num_inputs;
    nd->inputs = ins;
    nd->num_outputs = num_outputs;
    nd->outputs = outs;
    nd->is_hop_single_tensor_return = -1;
    g->num_nodes++;
    for (uint32_t i = 0; i < num_outputs; i++) {
        eir_arg *o = &outs[i];
        if (eir_arg_names_value(o)) {
            vals[o->value].producer = (int32_t)pos;
            o->name = vals[o->value].name;
        } else if (eir_arg_kind_is_list(o->kind)) {
            for (uint32_t k = 0; k < o->u.list.n; k++) {
                eir_arg *it = &o->u.list.items[k];
                if (!eir_arg_names_value(it)) continue;
                vals[it->value].producer = (int32_t)pos;
                it->name = vals[it->value].name;
            }
        }
    }
    if (node_out) *node_out = pos;
    return EIR_OK;
}

eir_status eir_node_set_metadata(eir_program *p, eir_node *nd, const char *key, const char *value) {
    if (!p) return EIR_ERR_ARG;
    if (!nd || !key) return eir_fail(p, EIR_ERR_ARG, "eir_node_set_metadata: NULL node or key");
    eir_kv *md = (eir_kv *)nd->metadata;
    for (uint32_t i = 0; i < nd->num_metadata; i++)
        if (!strcmp(md[i].key, key)) {
            if (value) {
                if (!(md[i].value = eir_arena_strdup(&p->arena, value)))
                    return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
            } else {
                memmove(&md[i], &md[i + 1], (nd->num_metadata - i - 1) * sizeof *md);
                nd->num_metadata--;
            }
            return EIR_OK;
        }
    if (!value) return EIR_OK;
    eir_kv *n = eir_arena_array(&p->arena, nd->num_metadata + 1, sizeof *n);
    if (!n) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    if (nd->num_metadata) memcpy(n, md, nd->num_metadata * sizeof *n);
    n[nd->num_metadata].key = eir_arena_strdup(&p->arena, key);
    n[nd->num_metadata].value = eir_arena_strdup(&p->arena, value);
    if (!n[nd->num_metadata].key || !n[nd->num_metadata].value) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    nd->metadata = n;
    nd->num_metadata++;
    return EIR_OK;
}

typedef struct repl_ctx { uint32_t from, to; const char *name; uint32_t n; } repl_ctx;
static void repl_fn(eir_arg *a, void *ctx) {
    repl_ctx *r = ctx;
    if (a->value != r->from) return;
    a->value = r->to;
    a->name = r->name;
    r->n++;
}

eir_status eir_graph_replace_uses(eir_program *p, eir_graph *g, uint32_t from, uint32_t to, uint32_t *replaced) {
    if (!p) return EIR_ERR_ARG;
    if (!g || from >= g->num_values || to >= g->num_values)
        return eir_fail(p, EIR_ERR_ARG, "eir_graph_replace_uses: value out of range");
    const eir_value *vf = &g->values[from], *vt = &g->values[to];
    if (vf->kind != vt->kind)
        return eir_fail(p, EIR_ERR_GRAPH, "eir_graph_replace_uses: %s is %s but %s is %s", vf->name,
                        value_kind_name(vf->kind), vt->name, value_kind_name(vt->kind));
    if (vt->producer == -2)
        return eir_fail(p, EIR_ERR_GRAPH, "eir_graph_replace_uses: %s is not defined by any node", vt->name);
    /* uses in the nodes after `to`'s definition, and the graph's outputs;
     * the nodes up to it keep `from` (to = f(from) still reads it) */
    repl_ctx r = {from, to, vt->name, 0};
    eir_node *nodes = (eir_node *)g->nodes;
    for (uint32_t n = (uint32_t)(vt->producer + 1); n < g->num_nodes; n++) {
        eir_named_arg *na = (eir_named_arg *)nodes[n].inputs;
        for (uint32_t i = 0; i < nodes[n].num_inputs; i++) walk_arg(&na[i].arg, repl_fn, &r);
    }
    eir_arg *outs = (eir_arg *)g->outputs;
    for (uint32_t i = 0; i < g->num_outputs; i++) walk_arg(&outs[i], repl_fn, &r);
    if (replaced) *replaced = r.n;
    if (g == p->graph)
        for (uint32_t i = 0; i < p->num_output_specs; i++) walk_arg(&p->output_specs[i].arg, repl_fn, &r);
    return EIR_OK;
}

/* ---- erasing ---- */

typedef struct remap_ctx { const uint32_t *map; } remap_ctx;
static void remap_fn(eir_arg *a, void *ctx) {
    remap_ctx *r = ctx;
    a->value = r->map[a->value];
}

typedef struct mark_ctx { bool *used; } mark_ctx;
static void mark_fn(eir_arg *a, void *ctx) { ((mark_ctx *)ctx)->used[a->value] = true; }

/* Remove the nodes with erase[i] set and the values they define, then
 * renumber the remaining values everywhere they are named. */
eir_status eir_graph_erase_nodes(eir_program *p, eir_graph *g, const bool *erase) {
    uint32_t nv = g->num_values, nn = g->num_nodes;
    eir_value *vals = (eir_value *)g->values;
    eir_node *nodes = (eir_node *)g->nodes;
    bool *dead = calloc(nv ? nv : 1, sizeof *dead);
    uint32_t *map = malloc((nv ? nv : 1) * sizeof *map);
    int32_t *newpos = malloc((nn ? nn : 1) * sizeof *newpos);
    if (!dead || !map || !newpos) {
        free(dead), free(map), free(newpos);
        return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < nv; i++) dead[i] = vals[i].producer >= 0 && erase[vals[i].producer];
    /* no remaining argument may name a dead value */
    bool *used = calloc(nv ? nv : 1, sizeof *used);
    if (!used) {
        free(dead), free(map), free(newpos);
        return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }
    mark_ctx mc = {used};
    for (uint32_t n = 0; n < nn; n++) {
        if (erase[n]) continue;
        eir_named_arg *na = (eir_named_arg *)nodes[n].inputs;
        for (uint32_t i = 0; i < nodes[n].num_inputs; i++) walk_arg(&na[i].arg, mark_fn, &mc);
    }
    eir_arg *gouts = (eir_arg *)g->outputs;
    for (uint32_t i = 0; i < g->num_outputs; i++) walk_arg(&gouts[i], mark_fn, &mc);
    if (g == p->graph)
        for (uint32_t i = 0; i < p->num_output_specs; i++) walk_arg(&p->output_specs[i].arg, mark_fn, &mc);
    for (uint32_t i = 0; i < nv; i++)
        if (dead[i] && used[i]) {
            int32_t pr = vals[i].producer;
            eir_status st = eir_fail(p, EIR_ERR_GRAPH, "cannot erase node %s: its output %s is still used",
                                     nodes[pr].name ? nodes[pr].name : "?", vals[i].name);
            free(dead), free(map), free(newpos), free(used);
            return st;
        }
    free(used);

    uint32_t k = 0;
    for (uint32_t n = 0; n < nn; n++) newpos[n] = erase[n] ? -1 : (int32_t)k++;
    uint32_t nk = 0;
    for (uint32_t n = 0; n < nn; n++)
        if (!erase[n]) nodes[nk++] = nodes[n];
    g->num_nodes = nk;
    /* values: definitions of dead values disappear with their nodes */
    uint32_t vk = 0;
    for (uint32_t i = 0; i < nv; i++) map[i] = dead[i] ? EIR_NO_VALUE : vk++;
    remap_ctx rc = {map};
    walk_graph(p, g, WALK_DEFS | WALK_USES, remap_fn, &rc);
    for (uint32_t i = 0; i < nv; i++) {
        if (dead[i]) continue;
        eir_value v = vals[i];
        if (v.producer >= 0) v.producer = newpos[v.producer];
        vals[map[i]] = v;
    }
    g->num_values = vk;
    free(dead), free(map), free(newpos);
    return EIR_OK;
}

eir_status eir_graph_erase_node(eir_program *p, eir_graph *g, uint32_t node) {
    if (!p) return EIR_ERR_ARG;
    if (!g || node >= g->num_nodes) return eir_fail(p, EIR_ERR_ARG, "eir_graph_erase_node: node out of range");
    bool *erase = calloc(g->num_nodes, sizeof *erase);
    if (!erase) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    erase[node] = true;
    eir_status st = eir_graph_erase_nodes(p, g, erase);
    free(erase);
    return st;
}

/* ---- dead code ---- */

/* torch.fx.Node.is_impure for call_function (torch._library.utils.is_impure):
 * operators with a mutable schema or seeded randomness, the functions of
 * torch.fx.node._side_effectful_functions, effectful higher-order ops. */
bool eir_node_is_impure(const eir_node *nd) {
    static const char *const SIDE_EFFECTS[] = {
        "torch.ops.aten._print.default", "torch.ops.aten._assert_async.msg", "torch.ops.aten._assert_scalar.default",
        "torch.ops.aten._assert_tensor_metadata.default", "torch.ops.aten.sym_constrain_range.default",
        "torch.ops.aten.sym_constrain_range_for_size.default", "torch.ops.profiler._record_function_enter.default",
        "torch.ops.profiler._record_function_enter_new.default", "torch.ops.profiler._record_function_exit._RecordFunction",
        "torch.ops.prims._sink_tokens.default", "torch.ops.inductor.accumulate_grad_.default",
        "torch.ops.inductor.resize_storage_bytes_.default", "torch._assert", "torch._assert_async",
        "torch._C._set_grad_enabled", "torch.amp.autocast_mode._enter_autocast",
        "torch.amp.autocast_mode._exit_autocast", "_operator.setitem", "operator.setitem",
        "torch.ops.higher_order.with_effects", "torch.ops.higher_order.print",
        "torch._functorch.predispatch._vmap_increment_nesting", "torch._functorch.predispatch._vmap_decrement_nesting",
    };
    const char *t = nd->target;
    for (size_t i = 0; i < sizeof SIDE_EFFECTS / sizeof *SIDE_EFFECTS; i++)
        if (!strcmp(t, SIDE_EFFECTS[i])) return true;
    if (!strncmp(t, "torch.ops.higher_order.auto_functionalized", 42)) {
        /* impure only when the wrapped op is one of the above */
        return false;
    }
    if (!strncmp(t, "torch.ops.higher_order.", 23)) return false;
    if (!strncmp(t, "torch.ops.aten.", 15)) {
        const eir_op_schema *op = eir_op_find(t);
        if (!op) return true;            /* unknown: keep it */
        if (op->flags & (EIR_OPF_INPLACE | EIR_OPF_OUT | EIR_OPF_RANDOM)) return true;
        return eir_op_mutates_args(op) != 0;
    }
    if (!strncmp(t, "torch.ops.eir_cpu.", 18)) return !eir_backend_op_find(t);   /* the Backend dialect's: pure */
    if (!strncmp(t, "torch.ops.", 10)) return true;   /* custom operators: their schema is not known here */
    return false;
}

static void uses_fn(eir_arg *a, void *ctx) { ((uint32_t *)ctx)[a->value]++; }
static void unuse_fn(eir_arg *a, void *ctx) { ((uint32_t *)ctx)[a->value]--; }

eir_status eir_graph_dce(eir_program *p, eir_graph *g, uint32_t *removed) {
    if (!p) return EIR_ERR_ARG;
    if (!g) return eir_fail(p, EIR_ERR_ARG, "eir_graph_dce: NULL graph");
    uint32_t nv = g->num_values, nn = g->num_nodes, total = 0;
    /* nested graphs first: their outputs are fixed by their callers */
    for (uint32_t n = 0; n < nn; n++)
        for (uint32_t i = 0; i < g->nodes[n].num_inputs; i++) {
            const eir_arg *a = &g->nodes[n].inputs[i].arg;
            if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
            uint32_t r = 0;
            eir_status st = eir_graph_dce(p, a->u.graph.graph, &r);
            if (st) return st;
            total += r;
        }
    uint32_t *uses = calloc(nv ? nv : 1, sizeof *uses);
    bool *erase = calloc(nn ? nn : 1, sizeof *erase);
    if (!uses || !erase) {
        free(uses), free(erase);
        return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }
    walk_graph(p, g, WALK_USES, uses_fn, uses);
    uint32_t count = 0;
    for (uint32_t n = nn; n-- > 0;) {
        const eir_node *nd = &g->nodes[n];
        if (eir_node_is_impure(nd)) continue;
        bool live = false;
        for (uint32_t i = 0; i < nd->num_outputs && !live; i++) {
            const eir_arg *o = &nd->outputs[i];
            if (eir_arg_names_value(o)) live = uses[o->value] > 0;
            else if (eir_arg_kind_is_list(o->kind))
                for (uint32_t k = 0; k < o->u.list.n && !live; k++)
                    if (eir_arg_names_value(&o->u.list.items[k])) live = uses[o->u.list.items[k].value] > 0;
        }
        if (live) continue;
        erase[n] = true;
        count++;
        /* its arguments lose a use each: nodes before it may die too */
        eir_named_arg *na = (eir_named_arg *)nd->inputs;
        for (uint32_t i = 0; i < nd->num_inputs; i++) walk_arg(&na[i].arg, unuse_fn, uses);
    }
    free(uses);
    eir_status st = count ? eir_graph_erase_nodes(p, g, erase) : EIR_OK;
    free(erase);
    if (removed) *removed = total + (st ? 0 : count);
    return st;
}

/* ---- common subexpressions ---- */

/* A node's call as text: target, then each argument (values by index,
 * literals by their bits); two pure nodes with the same text compute the
 * same values. */
static void key_arg(eir_buf *b, const eir_arg *a) {
    eir_buf_printf(b, "(%d", (int)a->kind);
    switch (a->kind) {
    case EIR_ARG_TENSOR: case EIR_ARG_OPTIONAL_TENSOR: case EIR_ARG_CUSTOM_OBJ:
        eir_buf_printf(b, " v%u", a->value);
        break;
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: case EIR_ARG_SYM_BOOL:
        if (!a->literal) eir_buf_printf(b, " v%u", a->value);
        else if (a->kind == EIR_ARG_SYM_FLOAT) eir_buf_printf(b, " f%a", a->u.f);
        else if (a->kind == EIR_ARG_SYM_BOOL) eir_buf_printf(b, " b%d", (int)a->u.b);
        else eir_buf_printf(b, " i%lld", (long long)a->u.i);
        break;
    case EIR_ARG_INT: case EIR_ARG_SCALAR_TYPE: case EIR_ARG_MEMORY_FORMAT: case EIR_ARG_LAYOUT:
        eir_buf_printf(b, " i%lld", (long long)a->u.i);
        break;
    case EIR_ARG_FLOAT: eir_buf_printf(b, " f%a", a->u.f); break;
    case EIR_ARG_BOOL: eir_buf_printf(b, " b%d", (int)a->u.b); break;
    case EIR_ARG_STRING: case EIR_ARG_OPERATOR:
        eir_buf_printf(b, " s%zu:%s", a->u.s ? strlen(a->u.s) : 0, a->u.s ? a->u.s : "");
        break;
    case EIR_ARG_DEVICE:
        eir_buf_printf(b, " d%s:%lld", a->u.device.type ? a->u.device.type : "", (long long)a->u.device.index);
        break;
    case EIR_ARG_COMPLEX: eir_buf_printf(b, " c%a,%a", a->u.c.re, a->u.c.im); break;
    case EIR_ARG_GRAPH: eir_buf_printf(b, " g%p", (void *)a->u.graph.graph); break;
    default:
        if (eir_arg_kind_is_list(a->kind))
            for (uint32_t i = 0; i < a->u.list.n; i++) {
                if (a->u.list.keys) eir_buf_printf(b, " k%s", a->u.list.keys[i]);
                key_arg(b, &a->u.list.items[i]);
            }
        break;
    }
    eir_buf_putc(b, ')');
}

static uint32_t output_values(const eir_node *nd, uint32_t *out, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < nd->num_outputs; i++) {
        const eir_arg *o = &nd->outputs[i];
        if (eir_arg_names_value(o)) {
            if (n < cap) out[n] = o->value;
            n++;
        } else if (eir_arg_kind_is_list(o->kind))
            for (uint32_t k = 0; k < o->u.list.n; k++)
                if (eir_arg_names_value(&o->u.list.items[k])) {
                    if (n < cap) out[n] = o->u.list.items[k].value;
                    n++;
                }
    }
    return n;
}

static bool cse_candidate(const eir_node *nd) {
    if (eir_node_is_impure(nd)) return false;
    if (!strncmp(nd->target, "torch.ops.higher_order.", 23)) return false;   /* subgraphs compare by identity */
    return nd->num_outputs > 0;
}

eir_status eir_graph_cse(eir_program *p, eir_graph *g, uint32_t *removed) {
    if (!p) return EIR_ERR_ARG;
    if (!g) return eir_fail(p, EIR_ERR_ARG, "eir_graph_cse: NULL graph");
    uint32_t total = 0;
    for (uint32_t n = 0; n < g->num_nodes; n++)
        for (uint32_t i = 0; i < g->nodes[n].num_inputs; i++) {
            const eir_arg *a = &g->nodes[n].inputs[i].arg;
            if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
            uint32_t r = 0;
            eir_status st = eir_graph_cse(p, a->u.graph.graph, &r);
            if (st) return st;
            total += r;
        }
    eir_strmap seen;
    eir_strmap_init(&seen);
    eir_arena keys;
    eir_arena_init(&keys);
    bool *erase = calloc(g->num_nodes ? g->num_nodes : 1, sizeof *erase);
    eir_status st = erase ? EIR_OK : eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    uint32_t count = 0;
    for (uint32_t n = 0; n < g->num_nodes && !st; n++) {
        const eir_node *nd = &g->nodes[n];
        if (!cse_candidate(nd)) continue;
        eir_buf b;
        eir_buf_init(&b);
        eir_buf_puts(&b, nd->target);
        for (uint32_t i = 0; i < nd->num_inputs; i++) {
            eir_buf_printf(&b, " %s=", nd->inputs[i].name ? nd->inputs[i].name : "");
            key_arg(&b, &nd->inputs[i].arg);
        }
        char *key = b.oom ? NULL : eir_arena_strdup(&keys, b.data);
        eir_buf_free(&b);
        if (!key) { st = eir_fail(p, EIR_ERR_NOMEM, "out of memory"); break; }
        uint32_t first;
        if (!eir_strmap_get(&seen, key, &first)) {
            if (!eir_strmap_put(&seen, key, n)) st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
            continue;
        }
        /* the same call as node `first`: its outputs stand for this one's */
        uint32_t a[64], c[64];
        uint32_t na = output_values(&g->nodes[first], a, 64), nc = output_values(nd, c, 64);
        if (na != nc || na > 64) continue;
        bool kinds = true;
        for (uint32_t i = 0; i < na; i++) kinds &= g->values[a[i]].kind == g->values[c[i]].kind;
        if (!kinds) continue;
        for (uint32_t i = 0; i < na && !st; i++) st = eir_graph_replace_uses(p, g, c[i], a[i], NULL);
        erase[n] = true;
        count++;
    }
    if (!st && count) st = eir_graph_erase_nodes(p, g, erase);
    free(erase);
    eir_strmap_free(&seen);
    eir_arena_release(&keys);
    if (removed) *removed = total + (st ? 0 : count);
    return st;
}

/* ---- parameters, buffers and constants ---- */

/* The order torch's graph signature keeps: tokens, parameters, buffers,
 * tensor constants, custom objects, then user inputs. */
static int spec_rank(eir_input_kind k) {
    switch (k) {
    case EIR_IN_TOKEN: return 0;
    case EIR_IN_PARAMETER: return 1;
    case EIR_IN_BUFFER: return 2;
    case EIR_IN_CONSTANT_TENSOR: return 3;
    case EIR_IN_CUSTOM_OBJ: return 4;
    default: return 5;
    }
}

eir_status eir_program_add_state(eir_program *p, eir_input_kind kind, const char *fqn, eir_dtype dtype,
                                 uint32_t rank, const int64_t *sizes, const void *data, bool persistent,
                                 uint32_t *value_out) {
    return eir_program_add_state_buf(p, kind, fqn, dtype, rank, sizes, data, persistent, value_out, NULL);
}

eir_status eir_program_add_state_buf(eir_program *p, eir_input_kind kind, const char *fqn, eir_dtype dtype,
                                     uint32_t rank, const int64_t *sizes, const void *data, bool persistent,
                                     uint32_t *value_out, void **data_out) {
    if (!p) return EIR_ERR_ARG;
    if (kind != EIR_IN_PARAMETER && kind != EIR_IN_BUFFER && kind != EIR_IN_CONSTANT_TENSOR)
        return eir_fail(p, EIR_ERR_ARG, "eir_program_add_state: kind must be a parameter, buffer or constant");
    if (!fqn || !fqn[0] || (rank && !sizes)) return eir_fail(p, EIR_ERR_ARG, "eir_program_add_state: NULL name or sizes");
    if (rank > 64) return eir_fail(p, EIR_ERR_ARG, "eir_program_add_state: rank %u", rank);
    if (eir_program_find_tensor(p, fqn)) return eir_fail(p, EIR_ERR_GRAPH, "eir_program_add_state: %s exists", fqn);
    size_t es = eir_dtype_size(dtype);
    if (!es) return eir_fail(p, EIR_ERR_ARG, "eir_program_add_state(%s): unknown dtype %d", fqn, (int)dtype);
    uint64_t numel = 1;
    for (uint32_t i = 0; i < rank; i++) {
        if (sizes[i] < 0 || (sizes[i] && numel > UINT64_MAX / 16 / (uint64_t)sizes[i]))
            return eir_fail(p, EIR_ERR_ARG, "eir_program_add_state(%s): bad size %lld", fqn, (long long)sizes[i]);
        numel *= (uint64_t)sizes[i];
    }
    eir_graph *g = p->graph;
    if (numel && !data && !data_out) return eir_fail(p, EIR_ERR_ARG, "eir_program_add_state(%s): NULL data", fqn);

    /* the tensor: sizes, contiguous strides, a copy of the data */
    int64_t *sz = eir_arena_array(&p->arena, rank ? rank : 1, sizeof *sz);
    int64_t *st = eir_arena_array(&p->arena, rank ? rank : 1, sizeof *st);
    eir_symint *ssz = eir_arena_array(&p->arena, rank ? rank : 1, sizeof *ssz);
    eir_symint *sst = eir_arena_array(&p->arena, rank ? rank : 1, sizeof *sst);
    void *copy = eir_arena_alloc(&p->arena, numel ? numel * es : 1);
    char *name = eir_arena_strdup(&p->arena, fqn);
    /* its own storage: the record name only identifies it (a writer
     * chooses where it goes in an archive) */
    eir_buf rec;
    eir_buf_init(&rec);
    eir_buf_printf(&rec, "<added>/%s", fqn);
    char *record = rec.data ? eir_arena_strdup(&p->arena, rec.data) : NULL;
    eir_buf_free(&rec);
    eir_tensor *arr = realloc(p->tensors, (p->num_tensors + 1) * sizeof *arr);
    if (arr) p->tensors = arr;
    if (!sz || !st || !ssz || !sst || !copy || !name || !record || !arr) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    int64_t stride = 1;
    for (uint32_t i = rank; i-- > 0;) {
        sz[i] = sizes[i];
        st[i] = stride;
        ssz[i].value = sizes[i];
        sst[i].value = stride;
        stride *= sizes[i] ? sizes[i] : 1;
    }
    if (numel && data) memcpy(copy, data, numel * es);
    eir_tensor *t = &p->tensors[p->num_tensors];
    memset(t, 0, sizeof *t);
    t->fqn = name;
    t->record = record;
    t->is_param = kind == EIR_IN_PARAMETER;
    t->is_constant = kind == EIR_IN_CONSTANT_TENSOR;
    t->dtype = dtype;
    t->rank = rank;
    t->sizes = sz;
    t->strides = st;
    t->data = copy;
    t->storage_nbytes = numel * es;

    /* the placeholder: p_/b_/c_ and the name with dots as underscores */
    char hint[256];
    snprintf(hint, sizeof hint, "%s_%s", kind == EIR_IN_PARAMETER ? "p" : kind == EIR_IN_BUFFER ? "b" : "c", fqn);
    for (char *q = hint; *q; q++)
        if (*q == '.') *q = '_';
    eir_tensor_meta m = {0};
    m.dtype = dtype;
    m.layout = EIR_LAYOUT_STRIDED;
    m.requires_grad = kind == EIR_IN_PARAMETER;
    m.rank = rank;
    m.sizes = ssz;
    m.strides = sst;
    uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &m, hint);
    if (v == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_value *vals = (eir_value *)g->values;
    vals[v].producer = -1;

    /* where: after the last spec of its kind or an earlier one */
    uint32_t pos = 0;
    for (uint32_t i = 0; i < p->num_input_specs; i++)
        if (spec_rank(p->input_specs[i].kind) <= spec_rank(kind)) pos = i + 1;
    graph_cap *c = cap_of(p, g);
    eir_arg *ins = c ? grow(p, g->inputs, g->num_inputs, &c->inputs, sizeof *ins) : NULL;
    eir_input_spec *specs = eir_arena_array(&p->arena, p->num_input_specs + 1, sizeof *specs);
    if (!ins || !specs) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    memmove(&ins[pos + 1], &ins[pos], (g->num_inputs - pos) * sizeof *ins);
    memset(&ins[pos], 0, sizeof *ins);
    ins[pos].kind = EIR_ARG_TENSOR;
    ins[pos].value = v;
    ins[pos].name = vals[v].name;
    g->inputs = ins;
    g->num_inputs++;
    if (p->num_input_specs) memcpy(specs, p->input_specs, p->num_input_specs * sizeof *specs);
    memmove(&specs[pos + 1], &specs[pos], (p->num_input_specs - pos) * sizeof *specs);
    memset(&specs[pos], 0, sizeof *specs);
    specs[pos].kind = kind;
    specs[pos].arg = ins[pos];
    specs[pos].target = name;
    specs[pos].persistent = kind == EIR_IN_BUFFER ? persistent : -1;
    p->input_specs = specs;
    p->num_input_specs++;
    if (!eir_strmap_put(&p->tensor_by_fqn, name, p->num_tensors)) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    p->num_tensors++;
    if (value_out) *value_out = v;
    if (data_out) *data_out = copy;
    return EIR_OK;
}

/* The name -> index map of the stored tensors, after some were removed. */
static eir_status reindex_tensors(eir_program *p) {
    eir_strmap_free(&p->tensor_by_fqn);
    eir_strmap_init(&p->tensor_by_fqn);
    for (uint32_t i = 0; i < p->num_tensors; i++)
        if (!eir_strmap_put(&p->tensor_by_fqn, p->tensors[i].fqn, i)) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    return EIR_OK;
}

eir_status eir_program_drop_input(eir_program *p, uint32_t index) {
    if (!p) return EIR_ERR_ARG;
    eir_graph *g = p->graph;
    if (index >= g->num_inputs || index >= p->num_input_specs)
        return eir_fail(p, EIR_ERR_ARG, "eir_program_drop_input: input %u out of range", index);
    const eir_input_spec *s = &p->input_specs[index];
    if (s->kind == EIR_IN_USER_INPUT)
        return eir_fail(p, EIR_ERR_ARG, "eir_program_drop_input: input %u is a user input (the caller passes it)",
                        index);
    const eir_arg *a = &g->inputs[index];
    uint32_t v = eir_arg_names_value(a) ? a->value : EIR_NO_VALUE;
    if (v != EIR_NO_VALUE && eir_graph_num_uses(g, v))
        return eir_fail(p, EIR_ERR_GRAPH, "eir_program_drop_input: %s is still used", g->values[v].name);
    const char *target = s->target;
    /* the tensor goes when no other spec names it */
    bool shared = false;
    for (uint32_t i = 0; i < p->num_input_specs; i++)
        if (i != index && p->input_specs[i].target && target && !strcmp(p->input_specs[i].target, target))
            shared = true;
    /* signature and graph inputs */
    eir_arg *ins = (eir_arg *)g->inputs;
    memmove(&ins[index], &ins[index + 1], (g->num_inputs - index - 1) * sizeof *ins);
    g->num_inputs--;
    memmove(&p->input_specs[index], &p->input_specs[index + 1],
            (p->num_input_specs - index - 1) * sizeof *p->input_specs);
    p->num_input_specs--;
    /* the value: renumber the ones after it */
    if (v != EIR_NO_VALUE) {
        uint32_t nv = g->num_values;
        uint32_t *map = malloc(nv * sizeof *map);
        if (!map) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < nv; i++) map[i] = i < v ? i : i == v ? EIR_NO_VALUE : i - 1;
        remap_ctx rc = {map};
        walk_graph(p, g, WALK_DEFS | WALK_USES, remap_fn, &rc);
        eir_value *vals = (eir_value *)g->values;
        memmove(&vals[v], &vals[v + 1], (nv - v - 1) * sizeof *vals);
        g->num_values--;
        free(map);
    }
    uint32_t ti;
    if (!shared && target && eir_strmap_get(&p->tensor_by_fqn, target, &ti)) {
        memmove(&p->tensors[ti], &p->tensors[ti + 1], (p->num_tensors - ti - 1) * sizeof *p->tensors);
        p->num_tensors--;
        return reindex_tensors(p);
    }
    return EIR_OK;
}

eir_status eir_program_add_token(eir_program *p, uint32_t *value_out) {
    if (!p) return EIR_ERR_ARG;
    eir_graph *g = p->graph;
    if (g->num_inputs != p->num_input_specs || g->num_outputs != p->num_output_specs)
        return eir_fail(p, EIR_ERR_GRAPH, "eir_program_add_token: the graph's inputs and outputs do not match its "
                        "signature (%u inputs, %u input specs; %u outputs, %u output specs)", g->num_inputs,
                        p->num_input_specs, g->num_outputs, p->num_output_specs);
    /* torch's token: torch.tensor([]), float32 of size 0 on the CPU */
    eir_symint *sz = eir_arena_array(&p->arena, 2, sizeof *sz);
    if (!sz) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    sz[0].value = 0;
    sz[1].value = 1;
    eir_tensor_meta m = {0};
    m.dtype = EIR_F32;
    m.layout = EIR_LAYOUT_STRIDED;
    m.rank = 1;
    m.sizes = &sz[0];
    m.strides = &sz[1];
    m.device.type = "cpu";
    m.device.index = -1;
    uint32_t in_pos = 0, out_pos = 0;
    while (in_pos < p->num_input_specs && p->input_specs[in_pos].kind == EIR_IN_TOKEN) in_pos++;
    while (out_pos < p->num_output_specs && p->output_specs[out_pos].kind == EIR_OUT_TOKEN) out_pos++;
    graph_cap *c = cap_of(p, g);
    eir_arg *ins = c ? grow(p, g->inputs, g->num_inputs, &c->inputs, sizeof *ins) : NULL;
    eir_input_spec *ispecs = eir_arena_array(&p->arena, p->num_input_specs + 1, sizeof *ispecs);
    eir_arg *outs = eir_arena_array(&p->arena, g->num_outputs + 1, sizeof *outs);
    eir_output_spec *ospecs = eir_arena_array(&p->arena, p->num_output_specs + 1, sizeof *ospecs);
    if (!ins || !ispecs || !outs || !ospecs) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    g->inputs = ins;     /* grown: the old array stays valid until replaced */
    uint32_t v = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &m, "token");
    if (v == EIR_NO_VALUE) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    eir_value *vals = (eir_value *)g->values;
    vals[v].producer = -1;
    eir_arg a = {0};
    a.kind = EIR_ARG_TENSOR;
    a.value = v;
    a.name = vals[v].name;
    memmove(&ins[in_pos + 1], &ins[in_pos], (g->num_inputs - in_pos) * sizeof *ins);
    ins[in_pos] = a;
    g->num_inputs++;
    if (p->num_input_specs) memcpy(ispecs, p->input_specs, p->num_input_specs * sizeof *ispecs);
    memmove(&ispecs[in_pos + 1], &ispecs[in_pos], (p->num_input_specs - in_pos) * sizeof *ispecs);
    memset(&ispecs[in_pos], 0, sizeof *ispecs);
    ispecs[in_pos].kind = EIR_IN_TOKEN;
    ispecs[in_pos].arg = a;
    ispecs[in_pos].persistent = -1;
    p->input_specs = ispecs;
    p->num_input_specs++;
    if (g->num_outputs) memcpy(outs, g->outputs, g->num_outputs * sizeof *outs);
    memmove(&outs[out_pos + 1], &outs[out_pos], (g->num_outputs - out_pos) * sizeof *outs);
    outs[out_pos] = a;
    if (p->num_output_specs) memcpy(ospecs, p->output_specs, p->num_output_specs * sizeof *ospecs);
    memmove(&ospecs[out_pos + 1], &ospecs[out_pos], (p->num_output_specs - out_pos) * sizeof *ospecs);
    memset(&ospecs[out_pos], 0, sizeof *ospecs);
    ospecs[out_pos].kind = EIR_OUT_TOKEN;
    ospecs[out_pos].arg = a;
    g->outputs = outs;
    g->num_outputs++;
    g->is_single_tensor_return = false;
    p->output_specs = ospecs;
    p->num_output_specs++;
    if (value_out) *value_out = v;
    return EIR_OK;
}

/* ---- moving a node ---- */

eir_status eir_graph_move_node(eir_program *p, eir_graph *g, uint32_t from, uint32_t to) {
    if (!p) return EIR_ERR_ARG;
    if (!g || from >= g->num_nodes || to > from)
        return eir_fail(p, EIR_ERR_ARG, "eir_graph_move_node: node %u cannot move to %u (earlier positions only)", from, to);
    if (to == from) return EIR_OK;
    eir_node *nodes = (eir_node *)g->nodes;
    check_ctx cc = {g, (int32_t)to, NULL, 0};
    for (uint32_t i = 0; i < nodes[from].num_inputs; i++) walk_arg((eir_arg *)&nodes[from].inputs[i].arg, check_use_fn, &cc);
    if (cc.bad)
        return eir_fail(p, EIR_ERR_GRAPH, "cannot move node %s to position %u: its argument %s %s",
                        nodes[from].name ? nodes[from].name : "?", to,
                        cc.bad_value < g->num_values ? g->values[cc.bad_value].name : "?", cc.bad);
    eir_node moved = nodes[from];
    memmove(&nodes[to + 1], &nodes[to], (size_t)(from - to) * sizeof *nodes);
    nodes[to] = moved;
    eir_value *vals = (eir_value *)g->values;
    for (uint32_t i = 0; i < g->num_values; i++) {
        if (vals[i].producer == (int32_t)from) vals[i].producer = (int32_t)to;
        else if (vals[i].producer >= (int32_t)to && vals[i].producer < (int32_t)from) vals[i].producer++;
    }
    return EIR_OK;
}

/* ---- unbacked symbols ---- */

/* n of a symbol named "u<n>" (torch's unbacked integers) */
static bool unbacked_index(const char *name, uint32_t *n) {
    if (!name || name[0] != 'u' || !name[1]) return false;
    uint64_t v = 0;
    for (const char *q = name + 1; *q; q++) {
        if (*q < '0' || *q > '9' || v > UINT32_MAX / 10) return false;
        v = v * 10 + (uint64_t)(*q - '0');
    }
    if (v >= UINT32_MAX) return false;
    *n = (uint32_t)v;
    return true;
}

/* The name of a symbol node (Symbol('u3', integer=True) parses to one), else NULL. */
static const char *symbol_name(const eir_sym_node *t) {
    return t->kind == EIR_SYM_SYMBOL && !t->quoted ? t->name : NULL;
}

/* fn on every symbol name of tree t, left to right; stops when fn returns false */
typedef bool (*sym_fn)(const char *name, void *ctx);
static bool walk_symbols(const eir_sym_node *t, sym_fn fn, void *ctx) {
    if (!t) return true;
    const char *nm = symbol_name(t);
    if (nm) return fn(nm, ctx);
    for (uint32_t i = 0; t->kind == EIR_SYM_CALL && i < t->nargs; i++)
        if (!walk_symbols(t->args[i], fn, ctx)) return false;
    return true;
}

static bool max_fn(const char *name, void *ctx) {
    uint32_t n;
    int64_t *m = ctx;
    if (unbacked_index(name, &n) && (int64_t)n > *m) *m = n;
    return true;
}

uint32_t eir_program_unbacked_base(const eir_program *p) {
    int64_t m = -1;
    for (uint32_t i = 0; i < p->num_ranges; i++) max_fn(p->ranges[i].symbol, &m);
    for (uint32_t i = 0; i < p->num_exprs; i++) walk_symbols(p->exprs[i].tree, max_fn, &m);
    return (uint32_t)(m + 1);
}

typedef struct bind_ctx {
    eir_strmap seen;
    uint32_t count;
    bool count_new;              /* false while marking the graph inputs' symbols */
    bool nomem;
} bind_ctx;

static bool bind_fn(const char *name, void *ctx) {
    bind_ctx *b = ctx;
    uint32_t n;
    if (!unbacked_index(name, &n) || eir_strmap_get(&b->seen, name, NULL)) return true;
    if (!eir_strmap_put(&b->seen, name, 0)) { b->nomem = true; return false; }
    if (b->count_new) b->count++;
    return true;
}

static void bind_symint(const eir_program *p, eir_symint s, bind_ctx *b) {
    if (s.is_expr && s.expr < p->num_exprs) walk_symbols(p->exprs[s.expr].tree, bind_fn, b);
}

static void bind_value(const eir_program *p, const eir_value *v, bind_ctx *b) {
    if (v->kind == EIR_VALUE_TENSOR) {
        for (uint32_t d = 0; d < v->meta.rank; d++) bind_symint(p, v->meta.sizes[d], b);
        for (uint32_t d = 0; d < v->meta.rank; d++) bind_symint(p, v->meta.strides[d], b);
        bind_symint(p, v->meta.storage_offset, b);
    } else if (v->kind == EIR_VALUE_SYM_INT || v->kind == EIR_VALUE_SYM_BOOL)
        bind_symint(p, v->sym, b);
}

eir_status eir_graph_unbacked_bindings(eir_program *p, const eir_graph *g, uint32_t end, uint32_t *count) {
    bind_ctx b = {0};
    eir_strmap_init(&b.seen);
    for (uint32_t i = 0; i < g->num_inputs; i++)
        if (eir_arg_names_value(&g->inputs[i]) && g->inputs[i].value < g->num_values)
            bind_value(p, &g->values[g->inputs[i].value], &b);
    b.count_new = true;
    for (uint32_t n = 0; n < end && n < g->num_nodes && !b.nomem; n++)
        for (uint32_t k = 0;; k++) {
            uint32_t v = eir_node_output_value(&g->nodes[n], k);
            if (v == EIR_NO_VALUE) break;
            if (v < g->num_values) bind_value(p, &g->values[v], &b);
        }
    eir_strmap_free(&b.seen);
    if (b.nomem) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    *count = b.count;
    return EIR_OK;
}

static bool names_fn(const char *name, void *ctx) { return strcmp(name, (const char *)ctx) != 0; }

eir_status eir_program_add_unbacked(eir_program *p, uint32_t n, const eir_range *range, uint32_t *expr) {
    if (!p) return EIR_ERR_ARG;
    if (!range || !expr) return eir_fail(p, EIR_ERR_ARG, "eir_program_add_unbacked: NULL range or result");
    if (range->has_min && range->has_max && range->min > range->max)
        return eir_fail(p, EIR_ERR_ARG, "eir_program_add_unbacked: empty range [%lld, %lld]", (long long)range->min,
                        (long long)range->max);
    char name[24], srepr[64];
    snprintf(name, sizeof name, "u%u", n);
    for (uint32_t i = 0; i < p->num_ranges; i++)
        if (!strcmp(p->ranges[i].symbol, name))
            return eir_fail(p, EIR_ERR_GRAPH, "eir_program_add_unbacked: the program already has a symbol %s", name);
    for (uint32_t i = 0; i < p->num_exprs; i++)
        if (!walk_symbols(p->exprs[i].tree, names_fn, name))
            return eir_fail(p, EIR_ERR_GRAPH, "eir_program_add_unbacked: the program already has a symbol %s", name);
    snprintf(srepr, sizeof srepr, "Symbol('%s', integer=True)", name);
    eir_range *r = eir_arena_array(&p->arena, p->num_ranges + 1, sizeof *r);
    const char *sym = eir_arena_strdup(&p->arena, name);
    if (!r || !sym) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    uint32_t id = eir_program_intern_expr(p, srepr, "unbacked symbol");
    if (id == UINT32_MAX) return EIR_ERR_NOMEM;
    if (p->num_ranges) memcpy(r, p->ranges, p->num_ranges * sizeof *r);
    r[p->num_ranges] = *range;
    r[p->num_ranges].symbol = sym;
    p->ranges = r;
    p->num_ranges++;
    *expr = id;
    return EIR_OK;
}

/* ---- passes (listed in src/passes/passes.c) ---- */

eir_status eir_ir_pass_dce(eir_program *p, uint32_t *changed) { return eir_graph_dce(p, p->graph, changed); }

/* parameters and tensor constants nothing reads; buffers stay (they are
 * module state the caller can read back) */
eir_status eir_ir_pass_prune_state(eir_program *p, uint32_t *changed) {
    eir_graph *g = p->graph;
    for (uint32_t i = g->num_inputs; i-- > 0;) {
        if (i >= p->num_input_specs) continue;
        eir_input_kind k = p->input_specs[i].kind;
        if (k != EIR_IN_PARAMETER && k != EIR_IN_CONSTANT_TENSOR) continue;
        const eir_arg *a = &g->inputs[i];
        if (!eir_arg_names_value(a) || eir_graph_num_uses(g, a->value)) continue;
        eir_status st = eir_program_drop_input(p, i);
        if (st) return st;
        (*changed)++;
    }
    /* parameters and constants stored without an input (strict export keeps
     * a module's unused parameters in its state dict) */
    uint32_t k = 0;
    for (uint32_t t = 0; t < p->num_tensors; t++) {
        const eir_tensor *tn = &p->tensors[t];
        bool named = false;
        for (uint32_t i = 0; i < p->num_input_specs && !named; i++)
            named = p->input_specs[i].target && !strcmp(p->input_specs[i].target, tn->fqn);
        if (!named && (tn->is_param || tn->is_constant) && !tn->is_custom_obj) {
            (*changed)++;
            continue;
        }
        p->tensors[k++] = *tn;
    }
    if (k == p->num_tensors) return EIR_OK;
    p->num_tensors = k;
    return reindex_tensors(p);
}

eir_status eir_ir_pass_cse(eir_program *p, uint32_t *changed) { return eir_graph_cse(p, p->graph, changed); }
