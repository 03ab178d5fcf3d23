/* dot.c — a program as a Graphviz DOT picture (eir_program_dot).
 *
 * One DOT node per FX node of the graph torch rebuilds from the file:
 * placeholders (coloured by input kind: user input, parameter, buffer,
 * constant, ...), one node per call, an operator.getitem node per element of
 * a multi-output call, and the output node. Node ids are the FX names; the
 * nodes of a nested graph (cond branches, while_loop cond/body, map, scan)
 * are prefixed with the path of graph attributes that leads to them
 * ("true_graph_0/sin") and drawn in a cluster linked to the calling node.
 * Edges follow the data flow (one per producer/user pair, as FX's
 * node.users). Calls are coloured by op family, with a legend. Nodes of the
 * root graph are grouped in nested clusters by their nn_module_stack; with a
 * collapse depth, a module below that depth becomes one box counting its
 * ops. Ids that eir makes up ("legend:...", "module:...") contain a colon,
 * which no FX name does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "program.h"

/* ---- op families ---- */

enum { FAM_MATMUL, FAM_POINTWISE, FAM_REDUCTION, FAM_VIEW, FAM_NORM, FAM_CONTROL, FAM_OTHER, FAM_COUNT };
static const struct { const char *name, *color; } FAMILY[FAM_COUNT] = {
    {"conv / matmul", "#f4a582"}, {"pointwise", "#d1e5f0"}, {"reduction", "#b8e186"},
    {"view / shape", "#e0e0e0"}, {"normalization", "#fddbc7"}, {"control flow", "#c2a5cf"},
    {"other", "#ffffff"},
};

static bool in_list(const char *s, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s, list[i])) return true;
    return false;
}
#define IN(s, ...) in_list((s), (const char *const[]){__VA_ARGS__}, \
                           sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

static bool starts_with(const char *s, const char *pre) { return strncmp(s, pre, strlen(pre)) == 0; }
static bool contains(const char *s, const char *sub) { return strstr(s, sub) != NULL; }

/* The family of an operator, from its base name ("conv2d" of
 * torch.ops.aten.conv2d.default; leading and trailing underscores off). */
static int op_family(const char *target) {
    if (starts_with(target, "torch.ops.higher_order.")) return FAM_CONTROL;
    char base[96];
    const char *s = target;
    bool is_operator = starts_with(s, "_operator.") || starts_with(s, "operator.");
    if (starts_with(s, "torch.ops.")) {
        s += 10;
        const char *dot = strchr(s, '.');
        if (!dot) return FAM_OTHER;
        if (strncmp(s, "aten.", 5) && strncmp(s, "prims.", 6)) return FAM_OTHER; /* custom ops */
        s = dot + 1;
    } else if (is_operator) {
        s = strchr(s, '.') + 1;
    } else {
        const char *dot = strrchr(s, '.');
        if (dot) s = dot + 1;
    }
    size_t n = strcspn(s, ".");
    while (n && *s == '_') s++, n--;
    while (n && s[n - 1] == '_') n--;
    if (n >= sizeof base) n = sizeof base - 1;
    memcpy(base, s, n);
    base[n] = 0;
    const char *b = base;
    if (is_operator) return !strcmp(b, "getitem") ? FAM_VIEW : FAM_POINTWISE;
    if (starts_with(b, "assert") || starts_with(b, "sym_constrain_range") || IN(b, "cond", "while_loop", "map_impl", "scan"))
        return FAM_CONTROL;
    if (starts_with(b, "conv") || starts_with(b, "cudnn_conv") || starts_with(b, "mkldnn_conv") ||
        contains(b, "scaled_dot_product") ||
        IN(b, "linear", "mm", "bmm", "addmm", "matmul", "baddbmm", "addbmm", "addmv", "mv", "dot", "vdot", "einsum",
           "outer", "tensordot", "bilinear", "addr"))
        return FAM_MATMUL;
    if (contains(b, "pool") ||
        IN(b, "sum", "mean", "amax", "amin", "max", "min", "argmax", "argmin", "prod", "var", "std", "var_mean",
           "std_mean", "any", "all", "norm", "linalg_vector_norm", "frobenius_norm", "nuclear_norm", "logsumexp",
           "cumsum", "cumprod", "cummax", "cummin", "softmax", "log_softmax", "nansum", "nanmean", "median",
           "nanmedian", "mode", "count_nonzero", "aminmax", "logcumsumexp"))
        return FAM_REDUCTION;
    if (contains(b, "batch_norm") || contains(b, "layer_norm") || contains(b, "group_norm") ||
        contains(b, "instance_norm") || contains(b, "rms_norm") || IN(b, "local_response_norm", "normalize"))
        return FAM_NORM;
    if (starts_with(b, "view") || starts_with(b, "split") || starts_with(b, "unsafe_") ||
        IN(b, "reshape", "permute", "transpose", "t", "expand", "expand_as", "squeeze", "unsqueeze", "flatten",
           "unflatten", "slice", "select", "cat", "concat", "stack", "hstack", "vstack", "chunk", "unbind", "narrow",
           "contiguous", "clone", "alias", "as_strided", "movedim", "permute_copy", "repeat", "tile", "detach",
           "lift_fresh_copy", "sym_size", "sym_stride", "sym_numel", "sym_storage_offset", "getitem", "flip",
           "roll", "tensor_split", "swapaxes", "view_copy", "expand_copy", "slice_copy", "select_copy", "squeeze_copy",
           "unsqueeze_copy", "transpose_copy", "t_copy", "reshape_as", "pad", "constant_pad_nd", "index_select",
           "gather", "index", "new_empty", "empty", "zeros", "ones", "full", "arange", "zeros_like", "ones_like",
           "empty_like", "full_like", "to_copy", "to", "type_as", "pixel_shuffle", "pixel_unshuffle", "diagonal"))
        return FAM_VIEW;
    if (IN(b, "add", "sub", "mul", "div", "relu", "relu6", "gelu", "sigmoid", "tanh", "exp", "exp2", "expm1", "log",
           "log2", "log10", "log1p", "sqrt", "rsqrt", "pow", "neg", "abs", "sin", "cos", "tan", "asin", "acos", "atan",
           "atan2", "sinh", "cosh", "asinh", "acosh", "atanh", "where", "clamp", "clamp_min", "clamp_max", "clip",
           "hardtanh", "silu", "mish", "erf", "erfc", "erfinv", "maximum", "minimum", "fmax", "fmin", "eq", "ne",
           "lt", "gt", "le", "ge", "logical_and", "logical_or", "logical_not", "logical_xor", "bitwise_and",
           "bitwise_or", "bitwise_not", "bitwise_xor", "floor", "ceil", "round", "trunc", "frac", "reciprocal",
           "sign", "sgn", "dropout", "native_dropout", "hardswish", "hardsigmoid", "leaky_relu", "elu", "selu",
           "celu", "softplus", "softsign", "masked_fill", "fill", "remainder", "fmod", "floor_divide", "square",
           "lerp", "addcmul", "addcdiv", "isnan", "isinf", "isfinite", "nan_to_num", "sigmoid_backward",
           "threshold", "prelu", "glu", "logit", "xlogy", "hypot", "copysign", "positive", "bitwise_left_shift",
           "bitwise_right_shift", "mul_scalar", "rsub", "true_divide", "copy", "sym_not", "sym_float", "sym_int",
           "sym_max", "sym_min", "sym_ite", "sym_sqrt", "bernoulli", "rand_like", "randn_like"))
        return FAM_POINTWISE;
    return FAM_OTHER;
}

/* ---- DOT strings ---- */

/* A double-quoted DOT string. Labels and tooltips are escString: `\\` is
 * a backslash and `\n` a line break, so backslashes are doubled, quotes
 * escaped, newlines written as \n; other control characters and bytes
 * that are not UTF-8 become '?' (Graphviz reads UTF-8). */
static void put_q(eir_buf *b, const char *s) {
    eir_buf_putc(b, '"');
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    while (*u) {
        unsigned c = *u;
        if (c == '"') eir_buf_puts(b, "\\\"");
        else if (c == '\\') eir_buf_puts(b, "\\\\");
        else if (c == '\n') eir_buf_puts(b, "\\n");
        else if (c < 0x20 || c == 0x7f) eir_buf_putc(b, c == '\t' ? ' ' : '?');
        else if (c < 0x80) eir_buf_putc(b, (char)c);
        else {
            int n = c >= 0xf0 && c < 0xf5 ? 3 : c >= 0xe0 ? 2 : c >= 0xc2 && c < 0xe0 ? 1 : -1;
            bool ok = n > 0 && c < 0xf5;
            for (int k = 1; ok && k <= n; k++) ok = (u[k] & 0xc0) == 0x80;
            if (!ok) { eir_buf_putc(b, '?'); u++; continue; }
            eir_buf_putn(b, (const char *)u, (size_t)n + 1);
            u += n + 1;
            continue;
        }
        u++;
    }
    eir_buf_putc(b, '"');
}

/* ---- the walk ---- */

typedef struct module {
    const char *key, *path, *type;
    int32_t parent;
    uint32_t depth;              /* 1 for a direct submodule of the exported module */
    uint32_t nops;               /* calls inside it and its submodules */
    bool box;                    /* drawn as one node (collapsed) */
} module;

typedef struct dotctx {
    eir_program *p;
    const eir_dot_options *opt;
    eir_arena arena;
    eir_buf out, edges;
    eir_strmap edge_seen;
    uint32_t nclusters;
    bool oom;
    /* modules of the root graph */
    module *mods;
    uint32_t nmods, capmods;
    eir_strmap mod_by_key;
} dotctx;

static char *cat3(dotctx *c, const char *a, const char *b, const char *d) {
    size_t la = strlen(a), lb = strlen(b), ld = strlen(d);
    char *s = eir_arena_alloc(&c->arena, la + lb + ld + 1);
    if (!s) { c->oom = true; return (char *)""; }
    memcpy(s, a, la);
    memcpy(s + la, b, lb);
    memcpy(s + la + lb, d, ld + 1);
    return s;
}

static const char *node_meta(const eir_node *nd, const char *key) {
    for (uint32_t i = 0; i < nd->num_metadata; i++)
        if (!strcmp(nd->metadata[i].key, key)) return nd->metadata[i].value;
    return NULL;
}

static void put_sym(eir_buf *b, const eir_program *p, const eir_symint *s) {
    if (s->is_expr && s->expr < p->num_exprs) eir_buf_puts(b, p->exprs[s->expr].str);
    else eir_buf_printf(b, "%lld", (long long)s->value);
}

/* "f32[1, 64, s77]", "Sym(u0)", "3" */
static void put_type(eir_buf *b, const eir_program *p, const eir_value *v) {
    switch (v->kind) {
    case EIR_VALUE_TENSOR: {
        const char *ab = eir_dtype_abbr(v->meta.dtype);
        eir_buf_printf(b, "%s[", ab ? ab : "?");
        for (uint32_t i = 0; i < v->meta.rank; i++) {
            if (i) eir_buf_puts(b, ", ");
            put_sym(b, p, &v->meta.sizes[i]);
        }
        eir_buf_putc(b, ']');
        break;
    }
    case EIR_VALUE_SYM_INT: case EIR_VALUE_SYM_BOOL:
        eir_buf_puts(b, "Sym(");
        put_sym(b, p, &v->sym);
        eir_buf_putc(b, ')');
        break;
    case EIR_VALUE_SYM_FLOAT: eir_buf_puts(b, "SymFloat"); break;
    case EIR_VALUE_CUSTOM_OBJ: eir_buf_puts(b, v->class_fqn ? v->class_fqn : "object"); break;
    default: break;
    }
}

/* "aten.conv2d" of torch.ops.aten.conv2d.default, "cond" of a HOP */
static void put_op_short(eir_buf *b, const char *t) {
    if (starts_with(t, "torch.ops.higher_order.")) t += 23;
    else if (starts_with(t, "torch.ops.")) t += 10;
    else if (t[0] == '_' && starts_with(t, "_operator.")) t += 1;
    size_t n = strlen(t);
    if (n > 8 && !strcmp(t + n - 8, ".default")) n -= 8;
    eir_buf_putn(b, t, n);
}

/* An edge, once per (from, to) pair. */
static void add_edge(dotctx *c, const char *from, const char *to, const char *attrs) {
    if (!from || !to || !strcmp(from, to)) return;
    char *key = cat3(c, from, "\x01", to);
    uint32_t dummy;
    if (eir_strmap_get(&c->edge_seen, key, &dummy)) return;
    if (!eir_strmap_put(&c->edge_seen, key, 0)) { c->oom = true; return; }
    eir_buf_puts(&c->edges, "  ");
    put_q(&c->edges, from);
    eir_buf_puts(&c->edges, " -> ");
    put_q(&c->edges, to);
    if (attrs) eir_buf_printf(&c->edges, " [%s]", attrs);
    eir_buf_puts(&c->edges, ";\n");
}

/* nn_module_stack: "key,path,type;key,path,type" (commas and semicolons
 * inside brackets or parentheses belong to the field). Fills up to max
 * (key, path, type) triples of the submodules (entries with an empty path,
 * the exported module itself, are skipped); returns their count. */
static uint32_t parse_stack(dotctx *c, const char *s, const char *(*out)[3], uint32_t max) {
    uint32_t n = 0;
    while (s && *s && n < max) {
        const char *f[3] = {"", "", ""};
        size_t len[3] = {0, 0, 0};
        int k = 0, depth = 0;
        const char *start = s;
        for (;; s++) {
            char ch = *s;
            if (ch == '(' || ch == '[') depth++;
            else if ((ch == ')' || ch == ']') && depth) depth--;
            if (ch == 0 || (depth == 0 && (ch == ';' || (ch == ',' && k < 2)))) {
                f[k] = start;
                len[k] = (size_t)(s - start);
                if (ch == ',') { k++; start = s + 1; continue; }
                break;
            }
        }
        if (*s == ';') s++;
        if (k == 2 && len[1]) {
            for (int j = 0; j < 3; j++) {
                char *d = eir_arena_strndup(&c->arena, f[j], len[j]);
                if (!d) { c->oom = true; return n; }
                out[n][j] = d;
            }
            n++;
        }
    }
    return n;
}

#define MAX_STACK 64

/* The module of a root-graph node: the innermost cluster it is drawn in
 * (*home) and, when collapsed, the box that stands for it (*box); -1 for
 * none. Modules are created on first sight, in graph order. */
static void node_module(dotctx *c, const eir_node *nd, int32_t *home, int32_t *box, bool count) {
    *home = *box = -1;
    const char *ms = c->opt->no_meta ? NULL : node_meta(nd, "nn_module_stack");
    if (!ms) return;
    const char *st[MAX_STACK][3];
    uint32_t n = parse_stack(c, ms, st, MAX_STACK);
    int32_t parent = -1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        if (!eir_strmap_get(&c->mod_by_key, st[i][0], &id)) {
            if (c->nmods == c->capmods) {
                uint32_t cap = c->capmods ? c->capmods * 2 : 16;
                module *m = eir_arena_array(&c->arena, cap, sizeof *m);
                if (!m) { c->oom = true; return; }
                if (c->nmods) memcpy(m, c->mods, c->nmods * sizeof *m);
                c->mods = m;
                c->capmods = cap;
            }
            id = c->nmods++;
            c->mods[id] = (module){st[i][0], st[i][1], st[i][2], parent, i + 1, 0, false};
            if (c->opt->collapse >= 0 && i + 1 == (uint32_t)c->opt->collapse + 1) c->mods[id].box = true;
            if (!eir_strmap_put(&c->mod_by_key, st[i][0], id)) { c->oom = true; return; }
        }
        if (count) c->mods[id].nops++;
        if (c->mods[id].box) { *box = (int32_t)id; *home = parent; return; }
        parent = (int32_t)id;
    }
    *home = parent;
}

/* The FX names of a call's outputs, as torch's deserializer makes them:
 * a single tensor/symbol output names the node; otherwise every named
 * element gets an operator.getitem node. */
static bool call_has_getitems(const eir_node *nd) {
    const char *t = nd->target;
    uint32_t no = nd->num_outputs;
    if (no == 0) return false;
    if (no == 1 && starts_with(t, "torch.ops.higher_order.") && nd->is_hop_single_tensor_return == 0 &&
        nd->outputs[0].kind != EIR_ARG_NONE)
        return true;
    if (no == 1) return nd->outputs[0].kind == EIR_ARG_TENSORS || nd->outputs[0].kind == EIR_ARG_SYM_INTS ||
                        nd->outputs[0].kind == EIR_ARG_SYM_FLOATS;
    return true;
}

typedef struct gview {
    const eir_graph *g;
    const char *prefix;          /* "" for the root, "true_graph_0/" inside */
    bool root;
    const char **node_id;        /* per node: its DOT id (the call) */
    const char **rep;            /* per node: where its edges attach (a module box or itself) */
    const char **val_src;        /* per value: the DOT id of the node that makes it */
    int32_t *home;               /* root only: module cluster per node */
} gview;

static const char *call_name(dotctx *c, const gview *v, const eir_node *nd) {
    const char *name = nd->name;
    if (!call_has_getitems(nd) && nd->num_outputs == 1 && nd->outputs[0].name &&
        nd->outputs[0].kind != EIR_ARG_NONE)
        name = nd->outputs[0].name;
    if (!name && nd->num_outputs == 1) name = nd->outputs[0].name;
    if (!name) name = nd->target;
    return cat3(c, v->prefix, name, "");
}

static void emit_graph(dotctx *c, const eir_graph *g, const char *prefix, bool root, const char *indent);

static void attr_tooltip(dotctx *c, eir_buf *b, const eir_node *nd) {
    const char *st = c->opt->no_meta ? NULL : node_meta(nd, "stack_trace");
    eir_buf_puts(b, " tooltip=");
    put_q(b, st ? st : nd->target);
}

static const char *INPUT_KIND[] = {"user input", "parameter", "buffer", "constant", "custom object", "token",
                                   "constant input"};
static const char *INPUT_STYLE[] = {
    "shape=ellipse style=filled fillcolor=\"#a6dba0\"",          /* user input */
    "shape=cylinder style=filled fillcolor=\"#fee090\"",         /* parameter */
    "shape=cylinder style=filled fillcolor=\"#fdae61\"",         /* buffer */
    "shape=cylinder style=filled fillcolor=\"#d9d9d9\"",         /* constant tensor */
    "shape=component style=filled fillcolor=\"#d9d9d9\"",        /* custom object */
    "shape=ellipse style=dashed",                                /* token */
    "shape=plaintext",                                           /* constant input */
};

static void emit_placeholder(dotctx *c, eir_buf *b, const gview *v, uint32_t i, const char *indent) {
    const eir_arg *a = &v->g->inputs[i];
    const eir_input_spec *s = v->root && i < c->p->num_input_specs ? &c->p->input_specs[i] : NULL;
    int kind = s ? (int)s->kind : 0;
    if (kind < 0 || kind > 6) kind = 0;
    const char *id = v->val_src[a->value == EIR_NO_VALUE ? 0 : a->value];
    if (a->value == EIR_NO_VALUE) return;
    eir_buf lb;
    eir_buf_init(&lb);
    eir_buf_puts(&lb, a->name ? a->name : "");
    if (s && s->kind != EIR_IN_USER_INPUT && s->target) eir_buf_printf(&lb, "\n%s: %s", INPUT_KIND[kind], s->target);
    else if (s) eir_buf_printf(&lb, "\n%s", INPUT_KIND[kind]);
    const eir_value *val = &v->g->values[a->value];
    if (val->kind != EIR_VALUE_UNTYPED) { eir_buf_putc(&lb, '\n'); put_type(&lb, c->p, val); }
    eir_buf_printf(b, "%s", indent);
    put_q(b, id);
    eir_buf_puts(b, " [label=");
    put_q(b, lb.data ? lb.data : "");
    eir_buf_printf(b, " %s];\n", v->root ? INPUT_STYLE[kind] : "shape=ellipse style=filled fillcolor=\"#e5f5e0\"");
    if (lb.oom) c->oom = true;
    eir_buf_free(&lb);
}

static void emit_call(dotctx *c, eir_buf *b, const gview *v, uint32_t k, const char *indent) {
    const eir_node *nd = &v->g->nodes[k];
    const char *id = v->node_id[k];
    eir_buf lb;
    eir_buf_init(&lb);
    eir_buf_puts(&lb, id + strlen(v->prefix));
    eir_buf_putc(&lb, '\n');
    put_op_short(&lb, nd->target);
    if (!call_has_getitems(nd) && nd->num_outputs == 1 && nd->outputs[0].value != EIR_NO_VALUE &&
        nd->outputs[0].value < v->g->num_values) {
        const eir_value *val = &v->g->values[nd->outputs[0].value];
        if (val->kind != EIR_VALUE_UNTYPED) { eir_buf_putc(&lb, '\n'); put_type(&lb, c->p, val); }
    }
    eir_buf_printf(b, "%s", indent);
    put_q(b, id);
    eir_buf_puts(b, " [label=");
    put_q(b, lb.data ? lb.data : "");
    eir_buf_printf(b, " fillcolor=\"%s\"", FAMILY[op_family(nd->target)].color);
    attr_tooltip(c, b, nd);
    eir_buf_puts(b, "];\n");
    if (lb.oom) c->oom = true;
    eir_buf_free(&lb);
    /* the getitem nodes */
    if (!call_has_getitems(nd)) return;
    const eir_arg *o = nd->outputs;
    uint32_t no = nd->num_outputs;
    if (no == 1 && (o[0].kind == EIR_ARG_TENSORS || o[0].kind == EIR_ARG_SYM_INTS || o[0].kind == EIR_ARG_SYM_FLOATS)) {
        no = o[0].u.list.n;
        o = o[0].u.list.items;
    }
    for (uint32_t i = 0; i < no; i++) {
        if (o[i].value == EIR_NO_VALUE || o[i].value >= v->g->num_values) continue;
        eir_buf_init(&lb);
        eir_buf_printf(&lb, "%s\ngetitem %u\n", o[i].name ? o[i].name : "", i);
        put_type(&lb, c->p, &v->g->values[o[i].value]);
        eir_buf_printf(b, "%s", indent);
        put_q(b, v->val_src[o[i].value]);
        eir_buf_puts(b, " [label=");
        put_q(b, lb.data ? lb.data : "");
        eir_buf_printf(b, " fillcolor=\"%s\" fontsize=9];\n", FAMILY[FAM_VIEW].color);
        if (lb.oom) c->oom = true;
        eir_buf_free(&lb);
        add_edge(c, id, v->val_src[o[i].value], NULL);
    }
}

static void emit_module(dotctx *c, eir_buf *b, const gview *v, int32_t m, const char *indent);

/* The calls (and their getitems) whose home is module m (-1: top level). */
static void emit_members(dotctx *c, eir_buf *b, const gview *v, int32_t m, const char *indent) {
    for (uint32_t k = 0; k < v->g->num_nodes; k++)
        if (v->home[k] == m && v->rep[k] == v->node_id[k]) emit_call(c, b, v, k, indent);
    for (uint32_t i = 0; i < c->nmods; i++)
        if (c->mods[i].parent == m) emit_module(c, b, v, (int32_t)i, indent);
}

static const char *short_class(const char *t) {
    const char *d = strrchr(t, '.');
    return d ? d + 1 : t;
}

static void emit_module(dotctx *c, eir_buf *b, const gview *v, int32_t m, const char *indent) {
    const module *md = &c->mods[m];
    eir_buf lb;
    eir_buf_init(&lb);
    eir_buf_printf(&lb, "%s\n%s", md->path, short_class(md->type));
    if (md->box) {
        eir_buf_printf(&lb, "\n%u op%s", md->nops, md->nops == 1 ? "" : "s");
        eir_buf_printf(b, "%s", indent);
        put_q(b, cat3(c, "module:", md->key, ""));
        eir_buf_puts(b, " [label=");
        put_q(b, lb.data ? lb.data : "");
        eir_buf_puts(b, " shape=box3d style=filled fillcolor=\"#f7f7f7\" tooltip=");
        put_q(b, md->type);
        eir_buf_puts(b, "];\n");
    } else {
        eir_buf_printf(b, "%ssubgraph cluster_%u {\n%s  label=", indent, c->nclusters++, indent);
        put_q(b, lb.data ? lb.data : "");
        eir_buf_printf(b, "; tooltip=");
        put_q(b, md->type);
        eir_buf_printf(b, "; style=\"rounded,dashed\"; color=\"#737373\"; labeljust=l;\n");
        char *in2 = cat3(c, indent, "  ", "");
        emit_members(c, b, v, m, in2);
        eir_buf_printf(b, "%s}\n", indent);
    }
    if (lb.oom) c->oom = true;
    eir_buf_free(&lb);
}

/* The role of the i-th graph argument of a higher-order op. */
static const char *sub_role(const char *target, uint32_t i) {
    const char *op = starts_with(target, "torch.ops.higher_order.") ? target + 23 : target;
    if (!strcmp(op, "cond")) return i == 0 ? "cond: true branch" : "cond: false branch";
    if (!strcmp(op, "while_loop")) return i == 0 ? "while_loop: cond" : "while_loop: body";
    if (!strcmp(op, "map_impl")) return "map: body";
    if (!strcmp(op, "scan")) return "scan: combine";
    if (!strcmp(op, "associative_scan")) return "associative_scan: combine";
    return op;
}

static void value_edges(dotctx *c, const gview *v, const eir_arg *a, const char *to, const char *attrs) {
    switch (a->kind) {
    case EIR_ARG_TENSOR: case EIR_ARG_OPTIONAL_TENSOR: case EIR_ARG_CUSTOM_OBJ:
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: case EIR_ARG_SYM_BOOL:
        if ((a->kind == EIR_ARG_SYM_INT || a->kind == EIR_ARG_SYM_FLOAT || a->kind == EIR_ARG_SYM_BOOL) && a->literal)
            break;
        if (a->value != EIR_NO_VALUE && a->value < v->g->num_values && v->val_src[a->value])
            add_edge(c, v->val_src[a->value], to, attrs);
        break;
    case EIR_ARG_TENSORS: case EIR_ARG_SYM_INTS: case EIR_ARG_SYM_FLOATS: case EIR_ARG_SYM_BOOLS:
    case EIR_ARG_OPTIONAL_TENSORS: case EIR_ARG_NESTED_TENSORS: case EIR_ARG_STRING_TO_ARG:
        for (uint32_t i = 0; i < a->u.list.n; i++) value_edges(c, v, &a->u.list.items[i], to, attrs);
        break;
    default: break;
    }
}

static void emit_graph(dotctx *c, const eir_graph *g, const char *prefix, bool root, const char *indent) {
    gview v = {g, prefix, root, NULL, NULL, NULL, NULL};
    uint32_t nn = g->num_nodes ? g->num_nodes : 1, nv = g->num_values ? g->num_values : 1;
    v.node_id = eir_arena_array(&c->arena, nn, sizeof(char *));
    v.rep = eir_arena_array(&c->arena, nn, sizeof(char *));
    v.val_src = eir_arena_array(&c->arena, nv, sizeof(char *));
    v.home = eir_arena_array(&c->arena, nn, sizeof(int32_t));
    if (!v.node_id || !v.rep || !v.val_src || !v.home) { c->oom = true; return; }
    eir_buf *b = &c->out;

    /* ids: placeholders, calls, getitems; modules of the root's calls */
    for (uint32_t i = 0; i < g->num_inputs; i++)
        if (g->inputs[i].value != EIR_NO_VALUE && g->inputs[i].value < g->num_values && g->inputs[i].name)
            v.val_src[g->inputs[i].value] = cat3(c, prefix, g->inputs[i].name, "");
    for (uint32_t k = 0; k < g->num_nodes && !c->oom; k++) {
        const eir_node *nd = &g->nodes[k];
        v.node_id[k] = call_name(c, &v, nd);
        int32_t home = -1, box = -1;
        if (root) node_module(c, nd, &home, &box, true);
        v.home[k] = home;
        v.rep[k] = box >= 0 ? cat3(c, "module:", c->mods[box].key, "") : v.node_id[k];
        bool gi = call_has_getitems(nd);
        const eir_arg *o = nd->outputs;
        uint32_t no = nd->num_outputs;
        if (gi && no == 1 && (o[0].kind == EIR_ARG_TENSORS || o[0].kind == EIR_ARG_SYM_INTS ||
                              o[0].kind == EIR_ARG_SYM_FLOATS)) {
            no = o[0].u.list.n;
            o = o[0].u.list.items;
        }
        for (uint32_t i = 0; i < no; i++) {
            if (o[i].value == EIR_NO_VALUE || o[i].value >= g->num_values) continue;
            v.val_src[o[i].value] = box >= 0 ? v.rep[k] : gi ? cat3(c, prefix, o[i].name ? o[i].name : "?", "")
                                                              : v.node_id[k];
        }
    }
    if (c->oom) return;

    for (uint32_t i = 0; i < g->num_inputs; i++) emit_placeholder(c, b, &v, i, indent);
    if (root) emit_members(c, b, &v, -1, indent);
    else
        for (uint32_t k = 0; k < g->num_nodes; k++) emit_call(c, b, &v, k, indent);

    /* output */
    const char *out_id = cat3(c, prefix, "output", "");
    eir_buf_printf(b, "%s", indent);
    put_q(b, out_id);
    eir_buf_puts(b, " [label=\"output\" shape=house style=filled fillcolor=\"#92c5de\"];\n");

    /* data flow, then nested graphs */
    for (uint32_t k = 0; k < g->num_nodes; k++) {
        const eir_node *nd = &g->nodes[k];
        for (uint32_t i = 0; i < nd->num_inputs; i++) value_edges(c, &v, &nd->inputs[i].arg, v.rep[k], NULL);
    }
    for (uint32_t i = 0; i < g->num_outputs; i++) {
        const eir_output_spec *s = root && i < c->p->num_output_specs ? &c->p->output_specs[i] : NULL;
        const char *attrs = NULL;
        if (s && s->kind != EIR_OUT_USER_OUTPUT && s->kind != EIR_OUT_LOSS_OUTPUT) {
            eir_buf ab;
            eir_buf_init(&ab);
            eir_buf_puts(&ab, "style=dashed color=\"#d6604d\" fontcolor=\"#d6604d\" label=");
            eir_buf lb;
            eir_buf_init(&lb);
            eir_buf_printf(&lb, "%s %s", s->kind == EIR_OUT_BUFFER_MUTATION ? "buffer mutation"
                                         : s->kind == EIR_OUT_USER_INPUT_MUTATION ? "input mutation"
                                         : s->kind == EIR_OUT_PARAMETER_MUTATION ? "parameter mutation"
                                                                                  : "",
                           s->target ? s->target : "");
            put_q(&ab, lb.data ? lb.data : "");
            eir_buf_free(&lb);
            attrs = ab.data ? eir_arena_strdup(&c->arena, ab.data) : NULL;
            eir_buf_free(&ab);
        }
        value_edges(c, &v, &g->outputs[i], out_id, attrs);
    }
    for (uint32_t k = 0; k < g->num_nodes && !c->oom; k++) {
        const eir_node *nd = &g->nodes[k];
        if (v.rep[k] != v.node_id[k]) continue;      /* inside a collapsed module */
        uint32_t gi = 0;
        for (uint32_t i = 0; i < nd->num_inputs; i++) {
            const eir_arg *a = &nd->inputs[i].arg;
            if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
            char num[32];
            snprintf(num, sizeof num, "subgraph_%u", gi);
            const char *gname = a->u.graph.name && a->u.graph.name[0] ? a->u.graph.name : num;
            const char *sub_prefix = cat3(c, prefix, gname, "/");
            uint32_t cl = c->nclusters++;
            eir_buf lb;
            eir_buf_init(&lb);
            eir_buf_printf(&lb, "%s\n%s (%s)", gname, sub_role(nd->target, gi), v.node_id[k] + strlen(prefix));
            eir_buf_printf(b, "%ssubgraph cluster_%u {\n%s  label=", indent, cl, indent);
            put_q(b, lb.data ? lb.data : "");
            eir_buf_free(&lb);
            eir_buf_printf(b, "; style=\"rounded,filled\"; fillcolor=\"#f2ecf7\"; color=\"#8073ac\"; labeljust=l;\n");
            char *in2 = cat3(c, indent, "  ", "");
            emit_graph(c, a->u.graph.graph, sub_prefix, false, in2);
            eir_buf_printf(b, "%s}\n", indent);
            char attrs[96];
            snprintf(attrs, sizeof attrs, "ltail=cluster_%u style=dashed color=\"#8073ac\" arrowhead=odiamond", cl);
            add_edge(c, cat3(c, sub_prefix, "output", ""), v.node_id[k], attrs);
            gi++;
        }
    }
}

static void emit_legend(dotctx *c) {
    eir_buf *b = &c->out;
    eir_buf_puts(b, "  subgraph cluster_legend {\n    label=\"legend\"; style=\"rounded\"; color=\"#bdbdbd\";\n"
                    "    node [fontsize=9];\n");
    for (int f = 0; f < FAM_COUNT; f++) {
        eir_buf_printf(b, "    \"legend:%d\" [label=", f);
        put_q(b, FAMILY[f].name);
        eir_buf_printf(b, " fillcolor=\"%s\"];\n", FAMILY[f].color);
    }
    for (int k = 0; k < 4; k++) {
        eir_buf_printf(b, "    \"legend:in%d\" [label=\"%s\" %s];\n", k, INPUT_KIND[k], INPUT_STYLE[k]);
    }
    eir_buf_puts(b, "    \"legend:out\" [label=\"output\" shape=house style=filled fillcolor=\"#92c5de\"];\n");
    /* one column */
    eir_buf_puts(b, "    \"legend:0\"");
    for (int f = 1; f < FAM_COUNT; f++) eir_buf_printf(b, " -> \"legend:%d\"", f);
    eir_buf_puts(b, " -> \"legend:in0\" -> \"legend:in1\" -> \"legend:in2\" -> \"legend:in3\" -> \"legend:out\""
                    " [style=invis];\n  }\n");
}

eir_status eir_program_dot(eir_program *p, const eir_dot_options *opt, char **out) {
    if (!p || !out) return EIR_ERR_ARG;
    *out = NULL;
    if (!p->graph) return eir_fail(p, EIR_ERR_ARG, "program has no graph (it failed to load)");
    eir_dot_options def = {-1, false, false};
    dotctx c;
    memset(&c, 0, sizeof c);
    c.p = p;
    c.opt = opt ? opt : &def;
    eir_arena_init(&c.arena);
    eir_buf_init(&c.out);
    eir_buf_init(&c.edges);
    eir_strmap_init(&c.edge_seen);
    eir_strmap_init(&c.mod_by_key);

    eir_buf_puts(&c.out, "digraph \"eir\" {\n"
                         "  graph [rankdir=TB compound=true newrank=true fontname=\"Helvetica\" fontsize=11"
                         " charset=\"UTF-8\"];\n"
                         "  node [shape=box style=\"rounded,filled\" fillcolor=\"#ffffff\" fontname=\"Helvetica\""
                         " fontsize=10];\n"
                         "  edge [color=\"#525252\" arrowsize=0.6 fontname=\"Helvetica\" fontsize=9];\n");
    if (!c.opt->no_legend) emit_legend(&c);
    emit_graph(&c, p->graph, "", true, "  ");
    eir_buf_puts(&c.out, c.edges.data ? c.edges.data : "");
    eir_buf_puts(&c.out, "}\n");

    bool oom = c.oom || c.out.oom || c.edges.oom;
    eir_strmap_free(&c.edge_seen);
    eir_strmap_free(&c.mod_by_key);
    eir_buf_free(&c.edges);
    eir_arena_release(&c.arena);
    if (!oom) *out = eir_buf_take(&c.out);
    else eir_buf_free(&c.out);
    if (!*out) return eir_fail(p, EIR_ERR_NOMEM, "out of memory while drawing the graph");
    return EIR_OK;
}
