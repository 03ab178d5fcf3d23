/* load.c — decode a PT2 archive into an eir_program.
 *
 * Reads archive_format/archive_version, models/model.json (the serialized
 * ExportedProgram, schema 8.x) and the weights/constants PayloadConfigs, and
 * builds the program through the IR structs. JSON is read through jdoc (jsmn);
 * every error names the record and the JSON path ($.graph_module.graph.
 * nodes[3].inputs[1].arg) or the node, and what was expected. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/program.h"
#include "../base/jdoc.h"
#include "torchsave.h"

#define MAX_JSON_BYTES ((uint64_t)1 << 30)   /* 1 GiB of model.json is far beyond any real program */

typedef struct path_seg {
    const char *key;
    long idx;
} path_seg;

typedef struct dec {
    eir_program *p;
    const jdoc *doc;
    const char *record;
    const char *node_name, *node_target;   /* the node being decoded, for messages */
    jv node_json;                          /* its JSON, to find the user's source line */
    path_seg path[256];
    int depth;
    eir_status st;
} dec;

static void push_key(dec *d, const char *k) {
    if (d->depth < (int)EIR_ARRAY_LEN(d->path)) d->path[d->depth] = (path_seg){k, -1};
    d->depth++;
}
static void push_idx(dec *d, size_t i) {
    if (d->depth < (int)EIR_ARRAY_LEN(d->path)) d->path[d->depth] = (path_seg){NULL, (long)i};
    d->depth++;
}
static void pop(dec *d) { d->depth--; }


static eir_status fail(dec *d, eir_status st, const char *fmt, ...) EIR_PRINTF(3, 4);
static eir_status fail(dec *d, eir_status st, const char *fmt, ...) {
    if (d->st != EIR_OK) return d->st;
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_printf(&b, "%s: ", d->record);
    if (d->node_target) {
        const char *t = d->node_target;
        if (!strncmp(t, "torch.ops.", 10)) t += 10;
        eir_buf_printf(&b, "node %%%s (%s), ", d->node_name ? d->node_name : "?", t);
    }
    eir_buf_putc(&b, '$');
    int n = d->depth < (int)EIR_ARRAY_LEN(d->path) ? d->depth : (int)EIR_ARRAY_LEN(d->path);
    for (int i = 0; i < n; i++) {
        if (d->path[i].key) eir_buf_printf(&b, ".%s", d->path[i].key);
        else eir_buf_printf(&b, "[%ld]", d->path[i].idx);
    }
    eir_buf_puts(&b, ": ");
    va_list ap;
    va_start(ap, fmt);
    eir_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (d->node_target) {
        /* point at the user's source line when the node carries a stack trace */
        jv meta = jdoc_get(d->doc, d->node_json, "metadata");
        jv trace = jdoc_get(d->doc, meta, "stack_trace");
        if (jdoc_type(d->doc, trace) == JT_STRING) {
            eir_arena tmp;
            eir_arena_init(&tmp);
            const char *text = jdoc_str(d->doc, trace, &tmp, NULL, NULL);
            eir_buf sum;
            eir_buf_init(&sum);
            if (text && eir_stack_user_line(&sum, text)) eir_buf_printf(&b, " [%s]", sum.data);
            eir_buf_free(&sum);
            eir_arena_release(&tmp);
        }
    }
    snprintf(d->p->errmsg, sizeof d->p->errmsg, "%s", b.data ? b.data : "out of memory");
    eir_buf_free(&b);
    d->st = st;
    return st;
}

#define PRESENT(d, x) ((x) != JV_NONE && jdoc_type((d)->doc, (x)) != JT_NULL)
#define TRY(x) do { eir_status _s = (x); if (_s != EIR_OK) return _s; } while (0)
#define NOMEM(d) fail((d), EIR_ERR_NOMEM, "out of memory")

/* ---- primitive fields ---- */

static eir_status want_type(dec *d, jv v, jtype t, const char *what) {
    if (jdoc_type(d->doc, v) != t) return fail(d, EIR_ERR_SCHEMA, "expected %s, got %s", what, jdoc_type_name(d->doc, v));
    return EIR_OK;
}

/* Field lookup. required: missing -> error. */
static eir_status field(dec *d, jv obj, const char *key, bool required, jv *out) {
    *out = jdoc_get(d->doc, obj, key);
    if (*out == JV_NONE && required) return fail(d, EIR_ERR_SCHEMA, "missing field '%s'", key);
    return EIR_OK;
}

static eir_status as_str(dec *d, jv v, const char **out) {
    TRY(want_type(d, v, JT_STRING, "a string"));
    bool has_nul;
    *out = jdoc_str(d->doc, v, &d->p->arena, NULL, &has_nul);
    if (!*out) return NOMEM(d);
    if (has_nul) return fail(d, EIR_ERR_SCHEMA, "string contains a NUL character");
    return EIR_OK;
}

static eir_status as_int(dec *d, jv v, int64_t *out) {
    TRY(want_type(d, v, JT_INTEGER, "an integer"));
    if (!jdoc_int(d->doc, v, out)) return fail(d, EIR_ERR_SCHEMA, "integer out of the int64 range");
    return EIR_OK;
}

static eir_status as_bool(dec *d, jv v, bool *out) {
    if (!(jdoc_type(d->doc, v) == JT_TRUE || jdoc_type(d->doc, v) == JT_FALSE)) return fail(d, EIR_ERR_SCHEMA, "expected a bool, got %s", jdoc_type_name(d->doc, v));
    *out = (jdoc_type(d->doc, v) == JT_TRUE);
    return EIR_OK;
}

/* Floats are numbers, or "Infinity" / "-Infinity" / "NaN" strings. */
static eir_status as_float(dec *d, jv v, double *out) {
    if ((jdoc_type(d->doc, v) == JT_INTEGER || jdoc_type(d->doc, v) == JT_REAL)) { *out = jdoc_num(d->doc, v); return EIR_OK; }
    if (jdoc_str_eq(d->doc, v, "Infinity")) { *out = INFINITY; return EIR_OK; }
    if (jdoc_str_eq(d->doc, v, "-Infinity")) { *out = -INFINITY; return EIR_OK; }
    if (jdoc_str_eq(d->doc, v, "NaN")) { *out = NAN; return EIR_OK; }
    return fail(d, EIR_ERR_SCHEMA, "expected a float (number, \"Infinity\", \"-Infinity\" or \"NaN\"), got %s",
                jdoc_type_name(d->doc, v));
}

static eir_status str_field(dec *d, jv obj, const char *key, const char **out) {
    jv v;
    TRY(field(d, obj, key, true, &v));
    push_key(d, key);
    TRY(as_str(d, v, out));
    pop(d);
    return EIR_OK;
}

/* A union: an object with exactly one key naming a member. */
static eir_status as_union(dec *d, jv v, const char *const *names, int n, int *which, jv *payload,
                           const char *uname) {
    TRY(want_type(d, v, JT_OBJECT, "an object"));
    if (jdoc_size(d->doc, v) != 1)
        return fail(d, EIR_ERR_SCHEMA, "%s union must have exactly one key, got %u", uname, jdoc_size(d->doc, v));
    jv kt = jdoc_key(d->doc, v, 0);
    for (int i = 0; i < n; i++) {
        if (names[i] && jdoc_str_eq(d->doc, kt, names[i])) {
            *which = i;
            *payload = kt + 1;
            return EIR_OK;
        }
    }
    const char *key = jdoc_str(d->doc, kt, &d->p->arena, NULL, NULL);
    return fail(d, EIR_ERR_SCHEMA, "unknown %s member '%s'", uname, key ? key : "?");
}

/* Arrays: check and iterate. */
static eir_status as_array(dec *d, jv v, size_t *n) {
    TRY(want_type(d, v, JT_ARRAY, "an array"));
    *n = jdoc_size(d->doc, v);
    return EIR_OK;
}

static eir_status str_list(dec *d, jv v, uint32_t *n, const char ***out) {
    size_t cnt;
    TRY(as_array(d, v, &cnt));
    const char **arr = eir_arena_array(&d->p->arena, cnt ? cnt : 1, sizeof *arr);
    if (!arr) return NOMEM(d);
    for (size_t i = 0; i < cnt; i++) {
        push_idx(d, i);
        TRY(as_str(d, jdoc_at(d->doc, v, i), &arr[i]));
        pop(d);
    }
    *n = (uint32_t)cnt;
    *out = arr;
    return EIR_OK;
}

static eir_status str_dict(dec *d, jv v, uint32_t *n, eir_kv **out) {
    TRY(want_type(d, v, JT_OBJECT, "an object"));
    size_t cnt = jdoc_size(d->doc, v);
    eir_kv *kv = eir_arena_array(&d->p->arena, cnt ? cnt : 1, sizeof *kv);
    if (!kv) return NOMEM(d);
    size_t i = 0;
    for (uint32_t it_ = 0; it_ < jdoc_size(d->doc, v); it_++) {
            jv val = jdoc_val(d->doc, v, it_);
            const char *key = jdoc_str(d->doc, jdoc_key(d->doc, v, it_), &d->p->arena, NULL, NULL);
            if (!key) return NOMEM(d);
        push_key(d, key);
        kv[i].key = eir_arena_strdup(&d->p->arena, key);
        if (!kv[i].key) return NOMEM(d);
        TRY(as_str(d, val, &kv[i].value));
        pop(d);
        i++;
    }
    *n = (uint32_t)cnt;
    *out = kv;
    return EIR_OK;
}

/* ---- symbolic ints ---- */

static eir_status dec_symint(dec *d, jv v, eir_symint *out, bool literal_only) {
    static const char *const names[] = {"as_expr", "as_int"};
    int w;
    jv pl;
    TRY(as_union(d, v, names, 2, &w, &pl, "SymInt"));
    memset(out, 0, sizeof *out);
    push_key(d, names[w]);
    if (w == 1) {
        TRY(as_int(d, pl, &out->value));
    } else {
        if (literal_only) return fail(d, EIR_ERR_SCHEMA, "a stored tensor's sizes must be concrete integers");
        TRY(want_type(d, pl, JT_OBJECT, "a SymExpr object"));
        const char *s;
        TRY(str_field(d, pl, "expr_str", &s));
        push_key(d, "expr_str");
        uint32_t id = eir_program_intern_expr(d->p, s, NULL);
        if (id == UINT32_MAX) {
            char msg[sizeof d->p->errmsg];
            snprintf(msg, sizeof msg, "%s", d->p->errmsg);
            return fail(d, EIR_ERR_SCHEMA, "%s", msg);
        }
        pop(d);
        out->is_expr = true;
        out->expr = id;
        jv hint = jdoc_get(d->doc, pl, "hint");
        if (PRESENT(d, hint)) {
            static const char *const hn[] = {"as_int", "as_bool", "as_float"};
            int hw;
            jv hp;
            push_key(d, "hint");
            TRY(as_union(d, hint, hn, 3, &hw, &hp, "SymExprHint"));
            push_key(d, hn[hw]);
            out->hint_kind = (uint8_t)hw;
            if (hw == 0) TRY(as_int(d, hp, &out->value));
            else if (hw == 1) { bool b = false; TRY(as_bool(d, hp, &b)); out->value = b; }
            else {
                TRY(as_float(d, hp, &out->hint_float));
                double f = out->hint_float;
                out->value = (f > -9.2e18 && f < 9.2e18) ? (int64_t)f : 0;
            }
            pop(d);
            pop(d);
            out->has_hint = true;
        }
    }
    pop(d);
    return EIR_OK;
}

static eir_status dec_symint_list(dec *d, jv obj, const char *key, uint32_t *n, eir_symint **out,
                                  bool literal_only) {
    jv v;
    TRY(field(d, obj, key, true, &v));
    push_key(d, key);
    size_t cnt;
    TRY(as_array(d, v, &cnt));
    if (cnt > 64) return fail(d, EIR_ERR_SCHEMA, "rank %zu is over the limit of 64", cnt);
    eir_symint *arr = eir_arena_array(&d->p->arena, cnt ? cnt : 1, sizeof *arr);
    if (!arr) return NOMEM(d);
    for (size_t i = 0; i < cnt; i++) {
        push_idx(d, i);
        TRY(dec_symint(d, jdoc_at(d->doc, v, i), &arr[i], literal_only));
        pop(d);
    }
    pop(d);
    *n = (uint32_t)cnt;
    *out = arr;
    return EIR_OK;
}

static bool dtype_known(int64_t c) {
    return (c >= 1 && c <= 13) || (c >= 28 && c <= 35);
}

static eir_status dec_device(dec *d, jv v, eir_device *dev) {
    TRY(want_type(d, v, JT_OBJECT, "a Device object"));
    TRY(str_field(d, v, "type", &dev->type));
    jv idx = jdoc_get(d->doc, v, "index");
    dev->index = -1;
    if (PRESENT(d, idx)) {
        push_key(d, "index");
        TRY(as_int(d, idx, &dev->index));
        pop(d);
    }
    return EIR_OK;
}

static eir_status dec_tensor_meta(dec *d, jv v, eir_tensor_meta *m, bool literal_only) {
    TRY(want_type(d, v, JT_OBJECT, "a TensorMeta object"));
    jv f;
    int64_t dt, layout;
    TRY(field(d, v, "dtype", true, &f));
    push_key(d, "dtype");
    TRY(as_int(d, f, &dt));
    if (!dtype_known(dt)) return fail(d, EIR_ERR_SCHEMA, "unknown dtype code %lld", (long long)dt);
    pop(d);
    m->dtype = (eir_dtype)dt;
    uint32_t ns, nst;
    eir_symint *sizes, *strides;
    TRY(dec_symint_list(d, v, "sizes", &ns, &sizes, literal_only));
    TRY(dec_symint_list(d, v, "strides", &nst, &strides, literal_only));
    if (ns != nst) {
        push_key(d, "strides");
        return fail(d, EIR_ERR_SCHEMA, "%u strides for %u sizes", nst, ns);
    }
    for (uint32_t i = 0; i < ns; i++)
        if (!sizes[i].is_expr && sizes[i].value < 0) {
            push_key(d, "sizes");
            push_idx(d, i);
            return fail(d, EIR_ERR_SCHEMA, "negative size %lld", (long long)sizes[i].value);
        }
    m->rank = ns;
    m->sizes = sizes;
    m->strides = strides;
    TRY(field(d, v, "requires_grad", true, &f));
    push_key(d, "requires_grad");
    TRY(as_bool(d, f, &m->requires_grad));
    pop(d);
    TRY(field(d, v, "device", true, &f));
    push_key(d, "device");
    TRY(dec_device(d, f, &m->device));
    pop(d);
    TRY(field(d, v, "storage_offset", true, &f));
    push_key(d, "storage_offset");
    TRY(dec_symint(d, f, &m->storage_offset, literal_only));
    if (!m->storage_offset.is_expr && m->storage_offset.value < 0)
        return fail(d, EIR_ERR_SCHEMA, "negative storage offset");
    pop(d);
    TRY(field(d, v, "layout", true, &f));
    push_key(d, "layout");
    TRY(as_int(d, f, &layout));
    if (layout < 0 || layout > 7) return fail(d, EIR_ERR_SCHEMA, "unknown layout code %lld", (long long)layout);
    pop(d);
    m->layout = (eir_layout)layout;
    return EIR_OK;
}

/* ---- graphs ---- */

typedef struct scope {
    eir_graph *g;
    eir_value *values;
    eir_strmap by_name;
} scope;

static eir_status dec_graph(dec *d, jv v, eir_graph **out);

static const char *const ARG_NAMES[EIR_ARG_KIND_COUNT] = {
    [EIR_ARG_NONE] = "as_none", [EIR_ARG_TENSOR] = "as_tensor", [EIR_ARG_TENSORS] = "as_tensors",
    [EIR_ARG_INT] = "as_int", [EIR_ARG_INTS] = "as_ints", [EIR_ARG_FLOAT] = "as_float",
    [EIR_ARG_FLOATS] = "as_floats", [EIR_ARG_STRING] = "as_string", [EIR_ARG_STRINGS] = "as_strings",
    [EIR_ARG_SYM_INT] = "as_sym_int", [EIR_ARG_SYM_INTS] = "as_sym_ints",
    [EIR_ARG_SCALAR_TYPE] = "as_scalar_type", [EIR_ARG_MEMORY_FORMAT] = "as_memory_format",
    [EIR_ARG_LAYOUT] = "as_layout", [EIR_ARG_DEVICE] = "as_device", [EIR_ARG_BOOL] = "as_bool",
    [EIR_ARG_BOOLS] = "as_bools", [EIR_ARG_SYM_BOOL] = "as_sym_bool", [EIR_ARG_SYM_BOOLS] = "as_sym_bools",
    [EIR_ARG_GRAPH] = "as_graph", [EIR_ARG_OPTIONAL_TENSORS] = "as_optional_tensors",
    [EIR_ARG_CUSTOM_OBJ] = "as_custom_obj", [EIR_ARG_OPERATOR] = "as_operator",
    [EIR_ARG_SYM_FLOAT] = "as_sym_float", [EIR_ARG_SYM_FLOATS] = "as_sym_floats",
    [EIR_ARG_OPTIONAL_TENSOR] = "as_optional_tensor", [EIR_ARG_COMPLEX] = "as_complex",
    [EIR_ARG_NESTED_TENSORS] = "as_nested_tensors", [EIR_ARG_INT_LISTS] = "as_int_lists",
    [EIR_ARG_STRING_TO_ARG] = "as_string_to_argument", [EIR_ARG_FLOAT_LISTS] = "as_float_lists",
};

const char *eir_arg_kind_name(eir_arg_kind k) { return k < EIR_ARG_KIND_COUNT ? ARG_NAMES[k] : "?"; }

/* Resolve a reference to a value of the current scope. When use is true the
 * value must already be defined (inputs and earlier nodes). */
static eir_status ref_value(dec *d, scope *sc, const char *name, eir_value_kind want, bool use, uint32_t *id) {
    uint32_t vid;
    if (!eir_strmap_get(&sc->by_name, name, &vid))
        return fail(d, EIR_ERR_GRAPH, "'%s' is not a value of this graph (no entry in its %s table)", name,
                    want == EIR_VALUE_TENSOR ? "tensor_values"
                    : want == EIR_VALUE_SYM_INT ? "sym_int_values"
                    : want == EIR_VALUE_SYM_BOOL ? "sym_bool_values"
                    : want == EIR_VALUE_SYM_FLOAT ? "sym_float_values" : "custom_obj_values");
    eir_value *val = &sc->values[vid];
    if (val->kind != want && val->kind != EIR_VALUE_UNTYPED)
        return fail(d, EIR_ERR_GRAPH, "'%s' is used as a %s but declared as a %s", name,
                    want == EIR_VALUE_TENSOR ? "tensor" : "symbolic value",
                    val->kind == EIR_VALUE_TENSOR ? "tensor" : "symbolic value");
    if (use && val->producer == -2)
        return fail(d, EIR_ERR_GRAPH, "'%s' is used before it is defined (graph inputs and earlier nodes define "
                    "values; nodes must be in topological order)", name);
    *id = vid;
    return EIR_OK;
}

static eir_status dec_named_ref(dec *d, scope *sc, jv v, eir_value_kind want, bool use, eir_arg *a) {
    TRY(want_type(d, v, JT_OBJECT, "an object with a 'name'"));
    TRY(str_field(d, v, "name", &a->name));
    push_key(d, "name");
    TRY(ref_value(d, sc, a->name, want, use, &a->value));
    pop(d);
    return EIR_OK;
}

/* SymIntArgument / SymFloatArgument / SymBoolArgument */
static eir_status dec_sym_arg(dec *d, scope *sc, jv v, eir_arg_kind k, bool use, eir_arg *a) {
    const char *lit = k == EIR_ARG_SYM_INT ? "as_int" : k == EIR_ARG_SYM_FLOAT ? "as_float" : "as_bool";
    const char *const names[] = {"as_name", lit};
    int w;
    jv pl;
    TRY(as_union(d, v, names, 2, &w, &pl,
                 k == EIR_ARG_SYM_INT ? "SymIntArgument" : k == EIR_ARG_SYM_FLOAT ? "SymFloatArgument"
                                                                               : "SymBoolArgument"));
    a->kind = k;
    push_key(d, names[w]);
    if (w == 0) {
        TRY(as_str(d, pl, &a->name));
        eir_value_kind want = k == EIR_ARG_SYM_INT ? EIR_VALUE_SYM_INT
                            : k == EIR_ARG_SYM_FLOAT ? EIR_VALUE_SYM_FLOAT : EIR_VALUE_SYM_BOOL;
        TRY(ref_value(d, sc, a->name, want, use, &a->value));
    } else {
        a->literal = true;
        a->value = EIR_NO_VALUE;
        if (k == EIR_ARG_SYM_INT) TRY(as_int(d, pl, &a->u.i));
        else if (k == EIR_ARG_SYM_FLOAT) TRY(as_float(d, pl, &a->u.f));
        else TRY(as_bool(d, pl, &a->u.b));
    }
    pop(d);
    return EIR_OK;
}

static eir_status dec_opt_tensor(dec *d, scope *sc, jv v, bool use, eir_arg *a) {
    static const char *const names[] = {"as_tensor", "as_none"};
    int w;
    jv pl;
    TRY(as_union(d, v, names, 2, &w, &pl, "OptionalTensorArgument"));
    a->kind = EIR_ARG_OPTIONAL_TENSOR;
    push_key(d, names[w]);
    if (w == 0) {
        TRY(dec_named_ref(d, sc, pl, EIR_VALUE_TENSOR, use, a));
    } else {
        a->value = EIR_NO_VALUE;
    }
    pop(d);
    return EIR_OK;
}

static eir_status dec_arg(dec *d, scope *sc, jv v, bool use, eir_arg *a);

/* A higher-order op's operand list (cond's, while_loop's, map's, scan's) may
 * hold symbolic ints, floats and bools besides tensors: torch.cond(pred, f, g,
 * (x, x.shape[0])), or a branch closing over x.shape[0], which torch.export
 * lifts into an operand. torch's serializer writes such a list as as_tensors
 * (every element is an fx node) and its deserializer resolves the names
 * whatever they are. An element naming a symbolic value becomes a sym
 * argument of that kind (printed by name like the tensors). Ordinary ops keep
 * the strict check. 1 when e was such an element (decoded into it), 0 when
 * it is not (the tensor path decodes it), -1 after a failure. */
static int hop_operand_sym(dec *d, scope *sc, jv e, eir_arg *it) {
    if (!d->node_target || strncmp(d->node_target, "torch.ops.higher_order.", 23)) return 0;
    if (jdoc_type(d->doc, e) != JT_OBJECT) return 0;
    jv nv = jdoc_get(d->doc, e, "name");
    if (nv == JV_NONE || jdoc_type(d->doc, nv) != JT_STRING) return 0;
    const char *name = jdoc_str(d->doc, nv, &d->p->arena, NULL, NULL);
    uint32_t vid;
    if (!name || !eir_strmap_get(&sc->by_name, name, &vid)) return 0;
    eir_value_kind k = sc->values[vid].kind;
    if (k != EIR_VALUE_SYM_INT && k != EIR_VALUE_SYM_FLOAT && k != EIR_VALUE_SYM_BOOL) return 0;
    if (sc->values[vid].producer == -2) {
        push_key(d, "name");
        fail(d, EIR_ERR_GRAPH, "'%s' is used before it is defined (graph inputs and earlier nodes define values; nodes "
             "must be in topological order)", name);
        pop(d);
        return -1;
    }
    it->kind = k == EIR_VALUE_SYM_INT ? EIR_ARG_SYM_INT : k == EIR_VALUE_SYM_FLOAT ? EIR_ARG_SYM_FLOAT : EIR_ARG_SYM_BOOL;
    it->name = name;
    it->value = vid;
    return 1;
}

/* Lists of any element kind. */
static eir_status dec_list(dec *d, scope *sc, jv v, eir_arg_kind k, bool use, eir_arg *a) {
    size_t n;
    TRY(as_array(d, v, &n));
    a->kind = k;
    a->u.list.n = (uint32_t)n;
    a->u.list.items = eir_arena_array(&d->p->arena, n ? n : 1, sizeof(eir_arg));
    if (!a->u.list.items) return NOMEM(d);
    for (size_t i = 0; i < n; i++) {
        jv e = jdoc_at(d->doc, v, i);
        eir_arg *it = &a->u.list.items[i];
        it->value = EIR_NO_VALUE;
        push_idx(d, i);
        switch (k) {
        case EIR_ARG_TENSORS:
            it->kind = EIR_ARG_TENSOR;
            if (use) {
                int h = hop_operand_sym(d, sc, e, it);
                if (h < 0) return d->st;
                if (h > 0) break;
            }
            TRY(dec_named_ref(d, sc, e, EIR_VALUE_TENSOR, use, it));
            break;
        case EIR_ARG_INTS: it->kind = EIR_ARG_INT; TRY(as_int(d, e, &it->u.i)); break;
        case EIR_ARG_FLOATS: it->kind = EIR_ARG_FLOAT; TRY(as_float(d, e, &it->u.f)); break;
        case EIR_ARG_BOOLS: it->kind = EIR_ARG_BOOL; TRY(as_bool(d, e, &it->u.b)); break;
        case EIR_ARG_STRINGS: it->kind = EIR_ARG_STRING; TRY(as_str(d, e, &it->u.s)); break;
        case EIR_ARG_SYM_INTS: TRY(dec_sym_arg(d, sc, e, EIR_ARG_SYM_INT, use, it)); break;
        case EIR_ARG_SYM_FLOATS: TRY(dec_sym_arg(d, sc, e, EIR_ARG_SYM_FLOAT, use, it)); break;
        case EIR_ARG_SYM_BOOLS: TRY(dec_sym_arg(d, sc, e, EIR_ARG_SYM_BOOL, use, it)); break;
        case EIR_ARG_OPTIONAL_TENSORS: TRY(dec_opt_tensor(d, sc, e, use, it)); break;
        case EIR_ARG_NESTED_TENSORS: TRY(dec_list(d, sc, e, EIR_ARG_TENSORS, use, it)); break;
        case EIR_ARG_INT_LISTS: TRY(dec_list(d, sc, e, EIR_ARG_INTS, use, it)); break;
        case EIR_ARG_FLOAT_LISTS: TRY(dec_list(d, sc, e, EIR_ARG_FLOATS, use, it)); break;
        default: return fail(d, EIR_ERR_SCHEMA, "internal: not a list kind");
        }
        pop(d);
    }
    return EIR_OK;
}

static eir_status dec_arg(dec *d, scope *sc, jv v, bool use, eir_arg *a) {
    int w;
    jv pl;
    memset(a, 0, sizeof *a);
    a->value = EIR_NO_VALUE;
    TRY(as_union(d, v, ARG_NAMES, EIR_ARG_KIND_COUNT, &w, &pl, "Argument"));
    a->kind = (eir_arg_kind)w;
    push_key(d, ARG_NAMES[w]);
    switch (a->kind) {
    case EIR_ARG_NONE: break;
    case EIR_ARG_TENSOR: TRY(dec_named_ref(d, sc, pl, EIR_VALUE_TENSOR, use, a)); break;
    case EIR_ARG_INT: TRY(as_int(d, pl, &a->u.i)); break;
    case EIR_ARG_FLOAT: TRY(as_float(d, pl, &a->u.f)); break;
    case EIR_ARG_STRING: TRY(as_str(d, pl, &a->u.s)); break;
    case EIR_ARG_BOOL: TRY(as_bool(d, pl, &a->u.b)); break;
    case EIR_ARG_OPERATOR: TRY(as_str(d, pl, &a->u.s)); break;
    case EIR_ARG_SCALAR_TYPE:
        TRY(as_int(d, pl, &a->u.i));
        if (!dtype_known(a->u.i)) return fail(d, EIR_ERR_SCHEMA, "unknown dtype code %lld", (long long)a->u.i);
        break;
    case EIR_ARG_MEMORY_FORMAT:
        TRY(as_int(d, pl, &a->u.i));
        if (a->u.i < 0 || a->u.i > 4)
            return fail(d, EIR_ERR_SCHEMA, "unknown memory format code %lld", (long long)a->u.i);
        break;
    case EIR_ARG_LAYOUT:
        TRY(as_int(d, pl, &a->u.i));
        if (a->u.i < 0 || a->u.i > 7) return fail(d, EIR_ERR_SCHEMA, "unknown layout code %lld", (long long)a->u.i);
        break;
    case EIR_ARG_DEVICE: TRY(dec_device(d, pl, &a->u.device)); break;
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: case EIR_ARG_SYM_BOOL:
        TRY(dec_sym_arg(d, sc, pl, a->kind, use, a));
        break;
    case EIR_ARG_OPTIONAL_TENSOR: TRY(dec_opt_tensor(d, sc, pl, use, a)); break;
    case EIR_ARG_TENSORS: case EIR_ARG_INTS: case EIR_ARG_FLOATS: case EIR_ARG_BOOLS: case EIR_ARG_STRINGS:
    case EIR_ARG_SYM_INTS: case EIR_ARG_SYM_FLOATS: case EIR_ARG_SYM_BOOLS: case EIR_ARG_OPTIONAL_TENSORS:
    case EIR_ARG_NESTED_TENSORS: case EIR_ARG_INT_LISTS: case EIR_ARG_FLOAT_LISTS:
        TRY(dec_list(d, sc, pl, a->kind, use, a));
        break;
    case EIR_ARG_COMPLEX: {
        TRY(want_type(d, pl, JT_OBJECT, "a ComplexValue object"));
        jv f;
        TRY(field(d, pl, "real", true, &f));
        TRY(as_float(d, f, &a->u.c.re));
        TRY(field(d, pl, "imag", true, &f));
        TRY(as_float(d, f, &a->u.c.im));
        break;
    }
    case EIR_ARG_CUSTOM_OBJ: {
        TRY(want_type(d, pl, JT_OBJECT, "a CustomObjArgument object"));
        TRY(str_field(d, pl, "name", &a->name));
        TRY(str_field(d, pl, "class_fqn", &a->u.s));
        uint32_t vid;
        if (eir_strmap_get(&sc->by_name, a->name, &vid)) a->value = vid;
        break;
    }
    case EIR_ARG_GRAPH: {
        TRY(want_type(d, pl, JT_OBJECT, "a GraphArgument object"));
        TRY(str_field(d, pl, "name", &a->u.graph.name));
        jv gv;
        TRY(field(d, pl, "graph", true, &gv));
        push_key(d, "graph");
        TRY(dec_graph(d, gv, &a->u.graph.graph));
        pop(d);
        break;
    }
    case EIR_ARG_STRING_TO_ARG: {
        TRY(want_type(d, pl, JT_OBJECT, "an object"));
        size_t n = jdoc_size(d->doc, pl);
        a->u.list.n = (uint32_t)n;
        a->u.list.items = eir_arena_array(&d->p->arena, n ? n : 1, sizeof(eir_arg));
        a->u.list.keys = eir_arena_array(&d->p->arena, n ? n : 1, sizeof(char *));
        if (!a->u.list.items || !a->u.list.keys) return NOMEM(d);
        size_t i = 0;
        for (uint32_t it_ = 0; it_ < jdoc_size(d->doc, pl); it_++) {
            jv val = jdoc_val(d->doc, pl, it_);
            const char *key = jdoc_str(d->doc, jdoc_key(d->doc, pl, it_), &d->p->arena, NULL, NULL);
            if (!key) return NOMEM(d);
            push_key(d, key);
            a->u.list.keys[i] = eir_arena_strdup(&d->p->arena, key);
            if (!a->u.list.keys[i]) return NOMEM(d);
            TRY(dec_arg(d, sc, val, use, &a->u.list.items[i]));
            pop(d);
            i++;
        }
        break;
    }
    case EIR_ARG_KIND_COUNT: break;
    }
    pop(d);
    return EIR_OK;
}

/* Mark the values named by an output argument as produced by node `producer`. */
static eir_status define_outputs(dec *d, scope *sc, const eir_arg *a, int32_t producer) {
    switch (a->kind) {
    case EIR_ARG_TENSOR: case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: case EIR_ARG_SYM_BOOL:
    case EIR_ARG_CUSTOM_OBJ: case EIR_ARG_OPTIONAL_TENSOR:
        if (a->value == EIR_NO_VALUE) return EIR_OK;
        if (sc->values[a->value].producer != -2)
            return fail(d, EIR_ERR_GRAPH, "value '%s' is defined twice", sc->values[a->value].name);
        sc->values[a->value].producer = producer;
        return EIR_OK;
    case EIR_ARG_TENSORS: case EIR_ARG_SYM_INTS: case EIR_ARG_SYM_FLOATS: case EIR_ARG_SYM_BOOLS:
    case EIR_ARG_OPTIONAL_TENSORS: case EIR_ARG_NESTED_TENSORS:
        for (uint32_t i = 0; i < a->u.list.n; i++) {
            push_idx(d, i);
            TRY(define_outputs(d, sc, &a->u.list.items[i], producer));
            pop(d);
        }
        return EIR_OK;
    default:
        return EIR_OK;
    }
}

static eir_status add_values(dec *d, scope *sc, jv tables[5], uint32_t *count) {
    static const char *const tnames[] = {"tensor_values", "sym_int_values", "sym_bool_values", "sym_float_values",
                                         "custom_obj_values"};
    static const eir_value_kind kinds[] = {EIR_VALUE_TENSOR, EIR_VALUE_SYM_INT, EIR_VALUE_SYM_BOOL,
                                           EIR_VALUE_SYM_FLOAT, EIR_VALUE_CUSTOM_OBJ};
    uint32_t n = 0;
    for (int t = 0; t < 5; t++) {
        if (tables[t] == JV_NONE) continue;
        push_key(d, tnames[t]);
        for (uint32_t it_ = 0; it_ < jdoc_size(d->doc, tables[t]); it_++) {
            jv val = jdoc_val(d->doc, tables[t], it_);
            const char *key = jdoc_str(d->doc, jdoc_key(d->doc, tables[t], it_), &d->p->arena, NULL, NULL);
            if (!key) return NOMEM(d);
            push_key(d, key);
            eir_value *v = &sc->values[n];
            v->name = eir_arena_strdup(&d->p->arena, key);
            if (!v->name) return NOMEM(d);
            v->kind = kinds[t];
            v->producer = -2;
            uint32_t prev;
            if (eir_strmap_get(&sc->by_name, v->name, &prev))
                return fail(d, EIR_ERR_GRAPH, "value '%s' is declared twice", key);
            if (!eir_strmap_put(&sc->by_name, v->name, n)) return NOMEM(d);
            switch (kinds[t]) {
            case EIR_VALUE_TENSOR: TRY(dec_tensor_meta(d, val, &v->meta, false)); break;
            case EIR_VALUE_SYM_INT: TRY(dec_symint(d, val, &v->sym, false)); break;
            case EIR_VALUE_SYM_BOOL: case EIR_VALUE_SYM_FLOAT: {
                static const char *const bn[] = {"as_expr", "as_bool"};
                static const char *const fnm[] = {"as_expr", "as_float"};
                int w;
                jv pl;
                TRY(as_union(d, val, kinds[t] == EIR_VALUE_SYM_BOOL ? bn : fnm, 2, &w, &pl,
                             kinds[t] == EIR_VALUE_SYM_BOOL ? "SymBool" : "SymFloat"));
                push_key(d, w == 0 ? "as_expr" : kinds[t] == EIR_VALUE_SYM_BOOL ? "as_bool" : "as_float");
                if (w == 0) {
                    TRY(want_type(d, pl, JT_OBJECT, "a SymExpr object"));
                    const char *s;
                    TRY(str_field(d, pl, "expr_str", &s));
                    uint32_t id = eir_program_intern_expr(d->p, s, NULL);
                    if (id == UINT32_MAX) {
                        char msg[sizeof d->p->errmsg];
                        snprintf(msg, sizeof msg, "%s", d->p->errmsg);
                        return fail(d, EIR_ERR_SCHEMA, "%s", msg);
                    }
                    v->sym.is_expr = true;
                    v->sym.expr = id;
                    jv hint = jdoc_get(d->doc, pl, "hint");
                    if ((jdoc_type(d->doc, hint) == JT_OBJECT) && jdoc_size(d->doc, hint) == 1) {
                        jv hv = jdoc_val(d->doc, hint, 0);
                        jv hk = jdoc_key(d->doc, hint, 0);
                        v->sym.hint_kind = jdoc_str_eq(d->doc, hk, "as_bool") ? 1 : jdoc_str_eq(d->doc, hk, "as_float") ? 2 : 0;
                        if (v->sym.hint_kind == 2) v->sym.hint_float = jdoc_num(d->doc, hv);
                        if ((jdoc_type(d->doc, hv) == JT_INTEGER || jdoc_type(d->doc, hv) == JT_REAL)) { v->symf = jdoc_num(d->doc, hv); v->sym.value = (v->symf > -9.2e18 && v->symf < 9.2e18) ? (int64_t)v->symf : 0; v->sym.has_hint = true; }
                        else if ((jdoc_type(d->doc, hv) == JT_TRUE || jdoc_type(d->doc, hv) == JT_FALSE)) { v->sym.value = (jdoc_type(d->doc, hv) == JT_TRUE); v->sym.has_hint = true; }
                    }
                } else if (kinds[t] == EIR_VALUE_SYM_BOOL) {
                    bool b = false;
                    TRY(as_bool(d, pl, &b));
                    v->sym.value = b;
                } else {
                    TRY(as_float(d, pl, &v->symf));
                }
                pop(d);
                break;
            }
            case EIR_VALUE_CUSTOM_OBJ:
                TRY(want_type(d, val, JT_OBJECT, "a CustomObjArgument object"));
                TRY(str_field(d, val, "class_fqn", &v->class_fqn));
                break;
            default: break;
            }
            pop(d);
            n++;
        }
        pop(d);
    }
    *count = n;
    return EIR_OK;
}

static eir_status dec_node_body(dec *d, scope *sc, jv v, uint32_t idx, eir_node *nd);

static eir_status dec_node(dec *d, scope *sc, jv v, uint32_t idx, eir_node *nd) {
    TRY(want_type(d, v, JT_OBJECT, "a Node object"));
    TRY(str_field(d, v, "target", &nd->target));
    if (!nd->target[0]) return fail(d, EIR_ERR_SCHEMA, "empty node target");
    jv f;
    TRY(field(d, v, "name", false, &f));
    if (PRESENT(d, f)) {
        push_key(d, "name");
        TRY(as_str(d, f, &nd->name));
        pop(d);
    }
    const char *outer_name = d->node_name, *outer_target = d->node_target;
    jv outer_json = d->node_json;
    d->node_name = nd->name;
    d->node_target = nd->target;
    d->node_json = v;
    eir_status st = dec_node_body(d, sc, v, idx, nd);
    d->node_name = outer_name;
    d->node_target = outer_target;
    d->node_json = outer_json;
    return st;
}

static eir_status dec_node_body(dec *d, scope *sc, jv v, uint32_t idx, eir_node *nd) {
    jv f;
    TRY(field(d, v, "inputs", true, &f));
    push_key(d, "inputs");
    size_t n;
    TRY(as_array(d, f, &n));
    eir_named_arg *ins = eir_arena_array(&d->p->arena, n ? n : 1, sizeof *ins);
    if (!ins) return NOMEM(d);
    for (size_t i = 0; i < n; i++) {
        jv na = jdoc_at(d->doc, f, i);
        push_idx(d, i);
        TRY(want_type(d, na, JT_OBJECT, "a NamedArgument object"));
        TRY(str_field(d, na, "name", &ins[i].name));
        jv av, kv;
        TRY(field(d, na, "arg", true, &av));
        push_key(d, "arg");
        TRY(dec_arg(d, sc, av, true, &ins[i].arg));
        pop(d);
        TRY(field(d, na, "kind", false, &kv));
        if (PRESENT(d, kv)) {
            int64_t k;
            push_key(d, "kind");
            TRY(as_int(d, kv, &k));
            if (k < 0 || k > 2) return fail(d, EIR_ERR_SCHEMA, "unknown ArgumentKind %lld", (long long)k);
            pop(d);
            ins[i].kind = (int8_t)k;
        }
        pop(d);
    }
    pop(d);
    nd->num_inputs = (uint32_t)n;
    nd->inputs = ins;

    TRY(field(d, v, "outputs", true, &f));
    push_key(d, "outputs");
    TRY(as_array(d, f, &n));
    eir_arg *outs = eir_arena_array(&d->p->arena, n ? n : 1, sizeof *outs);
    if (!outs) return NOMEM(d);
    for (size_t i = 0; i < n; i++) {
        push_idx(d, i);
        TRY(dec_arg(d, sc, jdoc_at(d->doc, f, i), false, &outs[i]));
        TRY(define_outputs(d, sc, &outs[i], (int32_t)idx));
        pop(d);
    }
    pop(d);
    nd->num_outputs = (uint32_t)n;
    nd->outputs = outs;

    TRY(field(d, v, "metadata", true, &f));
    push_key(d, "metadata");
    eir_kv *kvs;
    TRY(str_dict(d, f, &nd->num_metadata, &kvs));
    nd->metadata = kvs;
    pop(d);

    nd->is_hop_single_tensor_return = -1;
    TRY(field(d, v, "is_hop_single_tensor_return", false, &f));
    if (PRESENT(d, f)) {
        bool b = false;
        push_key(d, "is_hop_single_tensor_return");
        TRY(as_bool(d, f, &b));
        pop(d);
        nd->is_hop_single_tensor_return = b;
    }
    return EIR_OK;
}

static eir_status dec_graph(dec *d, jv v, eir_graph **out) {
    TRY(want_type(d, v, JT_OBJECT, "a Graph object"));
    eir_graph *g = eir_arena_alloc(&d->p->arena, sizeof *g);
    if (!g) return NOMEM(d);
    scope sc = {g, NULL, {0}};
    eir_strmap_init(&sc.by_name);
    eir_status st = EIR_OK;

    static const char *const tnames[] = {"tensor_values", "sym_int_values", "sym_bool_values", "sym_float_values",
                                         "custom_obj_values"};
    jv tables[5];
    size_t total = 0;
    for (int t = 0; t < 5; t++) {
        jv tv;
        if ((st = field(d, v, tnames[t], t < 3, &tv))) goto out;
        if (tv != JV_NONE && (jdoc_type(d->doc, tv) == JT_NULL) && t >= 3) tv = JV_NONE;
        if (tv != JV_NONE) {
            push_key(d, tnames[t]);
            if ((st = want_type(d, tv, JT_OBJECT, "an object"))) goto out;
            pop(d);
            total += jdoc_size(d->doc, tv);
        }
        tables[t] = tv;
    }
    sc.values = eir_arena_array(&d->p->arena, total ? total : 1, sizeof *sc.values);
    if (!sc.values) { st = NOMEM(d); goto out; }
    uint32_t nvals = 0;
    if ((st = add_values(d, &sc, tables, &nvals))) goto out;
    g->values = sc.values;
    g->num_values = nvals;

    /* inputs */
    jv f;
    size_t n;
    if ((st = field(d, v, "inputs", true, &f))) goto out;
    push_key(d, "inputs");
    if ((st = as_array(d, f, &n))) goto out;
    eir_arg *ins = eir_arena_array(&d->p->arena, n ? n : 1, sizeof *ins);
    if (!ins) { st = NOMEM(d); goto out; }
    for (size_t i = 0; i < n; i++) {
        push_idx(d, i);
        if ((st = dec_arg(d, &sc, jdoc_at(d->doc, f, i), false, &ins[i]))) goto out;
        if ((st = define_outputs(d, &sc, &ins[i], -1))) goto out;
        pop(d);
    }
    pop(d);
    g->inputs = ins;
    g->num_inputs = (uint32_t)n;

    /* nodes */
    if ((st = field(d, v, "nodes", true, &f))) goto out;
    push_key(d, "nodes");
    if ((st = as_array(d, f, &n))) goto out;
    eir_node *nodes = eir_arena_array(&d->p->arena, n ? n : 1, sizeof *nodes);
    if (!nodes) { st = NOMEM(d); goto out; }
    for (size_t i = 0; i < n; i++) {
        push_idx(d, i);
        if ((st = dec_node(d, &sc, jdoc_at(d->doc, f, i), (uint32_t)i, &nodes[i]))) goto out;
        pop(d);
    }
    pop(d);
    g->nodes = nodes;
    g->num_nodes = (uint32_t)n;

    /* outputs */
    if ((st = field(d, v, "outputs", true, &f))) goto out;
    push_key(d, "outputs");
    if ((st = as_array(d, f, &n))) goto out;
    eir_arg *outs = eir_arena_array(&d->p->arena, n ? n : 1, sizeof *outs);
    if (!outs) { st = NOMEM(d); goto out; }
    for (size_t i = 0; i < n; i++) {
        push_idx(d, i);
        if ((st = dec_arg(d, &sc, jdoc_at(d->doc, f, i), true, &outs[i]))) goto out;
        pop(d);
    }
    pop(d);
    g->outputs = outs;
    g->num_outputs = (uint32_t)n;

    if ((st = field(d, v, "is_single_tensor_return", false, &f))) goto out;
    if (f != JV_NONE) {
        push_key(d, "is_single_tensor_return");
        if ((st = as_bool(d, f, &g->is_single_tensor_return))) goto out;
        pop(d);
        if (g->is_single_tensor_return && g->num_outputs != 1) {
            st = fail(d, EIR_ERR_GRAPH, "is_single_tensor_return is true but the graph has %u outputs",
                      g->num_outputs);
            goto out;
        }
    }
    *out = g;
out:
    eir_strmap_free(&sc.by_name);
    return st;
}

/* ---- signature ---- */

static eir_status dec_input_spec(dec *d, scope *sc, jv v, eir_input_spec *s) {
    static const char *const names[] = {"user_input", "parameter", "buffer", "tensor_constant",
                                        "custom_obj", "token", "constant_input"};
    static const eir_input_kind kinds[] = {EIR_IN_USER_INPUT, EIR_IN_PARAMETER, EIR_IN_BUFFER,
                                           EIR_IN_CONSTANT_TENSOR, EIR_IN_CUSTOM_OBJ, EIR_IN_TOKEN,
                                           EIR_IN_CONSTANT_INPUT};
    static const char *const target_key[] = {NULL, "parameter_name", "buffer_name", "tensor_constant_name",
                                             "custom_obj_name", NULL, NULL};
    int w;
    jv pl;
    TRY(as_union(d, v, names, 7, &w, &pl, "InputSpec"));
    s->kind = kinds[w];
    s->persistent = -1;
    push_key(d, names[w]);
    TRY(want_type(d, pl, JT_OBJECT, "an object"));
    jv a;
    if (s->kind == EIR_IN_CONSTANT_INPUT) {
        TRY(str_field(d, pl, "name", &s->target));
        TRY(field(d, pl, "value", true, &a));
        push_key(d, "value");
        static const char *const cn[] = {"as_none", "as_int", "as_float", "as_string", "as_bool"};
        static const eir_arg_kind ck[] = {EIR_ARG_NONE, EIR_ARG_INT, EIR_ARG_FLOAT, EIR_ARG_STRING, EIR_ARG_BOOL};
        int cw;
        jv cp;
        TRY(as_union(d, a, cn, 5, &cw, &cp, "ConstantValue"));
        push_key(d, cn[cw]);
        s->arg.kind = ck[cw];
        s->arg.value = EIR_NO_VALUE;
        if (cw == 1) TRY(as_int(d, cp, &s->arg.u.i));
        else if (cw == 2) TRY(as_float(d, cp, &s->arg.u.f));
        else if (cw == 3) TRY(as_str(d, cp, &s->arg.u.s));
        else if (cw == 4) TRY(as_bool(d, cp, &s->arg.u.b));
        pop(d);
        pop(d);
    } else {
        TRY(field(d, pl, "arg", true, &a));
        push_key(d, "arg");
        if (s->kind == EIR_IN_USER_INPUT) {
            TRY(dec_arg(d, sc, a, false, &s->arg));
        } else if (s->kind == EIR_IN_CUSTOM_OBJ) {
            TRY(want_type(d, a, JT_OBJECT, "a CustomObjArgument object"));
            s->arg.kind = EIR_ARG_CUSTOM_OBJ;
            TRY(str_field(d, a, "name", &s->arg.name));
            TRY(str_field(d, a, "class_fqn", &s->arg.u.s));
            uint32_t vid;
            s->arg.value = eir_strmap_get(&sc->by_name, s->arg.name, &vid) ? vid : EIR_NO_VALUE;
        } else if (s->kind == EIR_IN_TOKEN) {
            TRY(want_type(d, a, JT_OBJECT, "a TokenArgument object"));
            s->arg.kind = EIR_ARG_TENSOR;
            TRY(str_field(d, a, "name", &s->arg.name));
            uint32_t vid;
            s->arg.value = eir_strmap_get(&sc->by_name, s->arg.name, &vid) ? vid : EIR_NO_VALUE;
        } else {
            s->arg.kind = EIR_ARG_TENSOR;
            TRY(dec_named_ref(d, sc, a, EIR_VALUE_TENSOR, false, &s->arg));
        }
        pop(d);
        if (target_key[w]) TRY(str_field(d, pl, target_key[w], &s->target));
        if (s->kind == EIR_IN_BUFFER) {
            jv pv;
            bool b = false;
            TRY(field(d, pl, "persistent", true, &pv));
            push_key(d, "persistent");
            TRY(as_bool(d, pv, &b));
            pop(d);
            s->persistent = b;
        }
    }
    pop(d);
    return EIR_OK;
}

static eir_status dec_output_spec(dec *d, scope *sc, jv v, eir_output_spec *s) {
    static const char *const names[] = {"user_output", "loss_output", "buffer_mutation", "gradient_to_parameter",
                                        "gradient_to_user_input", "user_input_mutation", "token",
                                        "parameter_mutation"};
    static const char *const target_key[] = {NULL, NULL, "buffer_name", "parameter_name", "user_input_name",
                                             "user_input_name", NULL, "parameter_name"};
    int w;
    jv pl;
    TRY(as_union(d, v, names, 8, &w, &pl, "OutputSpec"));
    s->kind = (eir_output_kind)w;
    push_key(d, names[w]);
    TRY(want_type(d, pl, JT_OBJECT, "an object"));
    jv a;
    TRY(field(d, pl, "arg", true, &a));
    push_key(d, "arg");
    if (w == 0) {
        TRY(dec_arg(d, sc, a, true, &s->arg));
    } else {
        s->arg.kind = EIR_ARG_TENSOR;
        TRY(want_type(d, a, JT_OBJECT, "an object with a 'name'"));
        TRY(str_field(d, a, "name", &s->arg.name));
        uint32_t vid;
        s->arg.value = eir_strmap_get(&sc->by_name, s->arg.name, &vid) ? vid : EIR_NO_VALUE;
        if (s->arg.value == EIR_NO_VALUE && w != 6)
            return fail(d, EIR_ERR_GRAPH, "'%s' is not a value of the graph", s->arg.name);
    }
    pop(d);
    if (target_key[w]) TRY(str_field(d, pl, target_key[w], &s->target));
    pop(d);
    return EIR_OK;
}

/* A scope over the root graph's values: signature specs and the module call
 * graph refer to them by name. */
static eir_status root_scope(dec *d, scope *sc) {
    eir_graph *g = d->p->graph;
    *sc = (scope){g, (eir_value *)g->values, {0}};
    eir_strmap_init(&sc->by_name);
    for (uint32_t i = 0; i < g->num_values; i++)
        if (!eir_strmap_put(&sc->by_name, g->values[i].name, i)) return NOMEM(d);
    return EIR_OK;
}

typedef eir_status (*spec_fn)(dec *d, scope *sc, jv v, void *out);

static eir_status dec_input_spec_v(dec *d, scope *sc, jv v, void *out) { return dec_input_spec(d, sc, v, out); }
static eir_status dec_output_spec_v(dec *d, scope *sc, jv v, void *out) { return dec_output_spec(d, sc, v, out); }

/* signature.<key>: one spec per graph input/output, in the same order */
static eir_status dec_specs(dec *d, scope *sc, jv sig, const char *key, size_t elem, spec_fn fn, void **arr,
                            uint32_t *count, uint32_t want, const char *what) {
    jv f;
    size_t n;
    TRY(field(d, sig, key, true, &f));
    push_key(d, key);
    TRY(as_array(d, f, &n));
    char *items = eir_arena_array(&d->p->arena, n ? n : 1, elem);
    if (!items) return NOMEM(d);
    for (size_t i = 0; i < n; i++) {
        push_idx(d, i);
        TRY(fn(d, sc, jdoc_at(d->doc, f, i), items + i * elem));
        pop(d);
    }
    if (n != want)
        return fail(d, EIR_ERR_GRAPH, "the signature lists %zu %s specs but the graph has %u %ss", n, what, want,
                    what);
    pop(d);
    *arr = items;
    *count = (uint32_t)n;
    return EIR_OK;
}

static eir_status dec_signature(dec *d, jv v) {
    eir_program *p = d->p;
    scope sc;
    eir_status st = root_scope(d, &sc);
    if (!st) st = want_type(d, v, JT_OBJECT, "a GraphSignature object");
    if (!st)
        st = dec_specs(d, &sc, v, "input_specs", sizeof *p->input_specs, dec_input_spec_v,
                       (void **)&p->input_specs, &p->num_input_specs, p->graph->num_inputs, "input");
    if (!st)
        st = dec_specs(d, &sc, v, "output_specs", sizeof *p->output_specs, dec_output_spec_v,
                       (void **)&p->output_specs, &p->num_output_specs, p->graph->num_outputs, "output");
    eir_strmap_free(&sc.by_name);
    return st;
}

static eir_status dec_module_calls(dec *d, jv v) {
    eir_program *p = d->p;
    size_t n;
    TRY(as_array(d, v, &n));
    p->module_calls = eir_arena_array(&p->arena, n ? n : 1, sizeof *p->module_calls);
    if (!p->module_calls) return NOMEM(d);
    /* call-graph arguments name root-graph values but need not be defined in
     * it (they describe a submodule's boundary), so they are kept by name. */
    scope sc;
    eir_status st = root_scope(d, &sc);
    if (st) goto out;
    for (size_t i = 0; i < n; i++) {
        jv e = jdoc_at(d->doc, v, i);
        eir_module_call *mc = &p->module_calls[i];
        push_idx(d, i);
        if ((st = want_type(d, e, JT_OBJECT, "a ModuleCallEntry object"))) goto out;
        if ((st = str_field(d, e, "fqn", &mc->fqn))) goto out;
        jv sig = jdoc_get(d->doc, e, "signature");
        mc->num_forward_arg_names = -1;
        if (PRESENT(d, sig)) {
            push_key(d, "signature");
            if ((st = want_type(d, sig, JT_OBJECT, "a ModuleCallSignature object"))) goto out;
            mc->has_signature = true;
            static const char *const lists[] = {"inputs", "outputs"};
            for (int l = 0; l < 2; l++) {
                jv lv;
                size_t m;
                if ((st = field(d, sig, lists[l], true, &lv))) goto out;
                push_key(d, lists[l]);
                if ((st = as_array(d, lv, &m))) goto out;
                eir_arg *args = eir_arena_array(&p->arena, m ? m : 1, sizeof *args);
                if (!args) { st = NOMEM(d); goto out; }
                for (size_t k = 0; k < m; k++) {
                    push_idx(d, k);
                    if ((st = dec_arg(d, &sc, jdoc_at(d->doc, lv, k), false, &args[k]))) goto out;
                    pop(d);
                }
                pop(d);
                if (l == 0) { mc->inputs = args; mc->num_inputs = (uint32_t)m; }
                else { mc->outputs = args; mc->num_outputs = (uint32_t)m; }
            }
            if ((st = str_field(d, sig, "in_spec", &mc->in_spec))) goto out;
            if ((st = str_field(d, sig, "out_spec", &mc->out_spec))) goto out;
            jv fa = jdoc_get(d->doc, sig, "forward_arg_names");
            if (PRESENT(d, fa)) {
                uint32_t cnt;
                push_key(d, "forward_arg_names");
                if ((st = str_list(d, fa, &cnt, &mc->forward_arg_names))) goto out;
                mc->num_forward_arg_names = (int32_t)cnt;
                pop(d);
            }
            pop(d);
        }
        pop(d);
    }
    p->num_module_calls = (uint32_t)n;
out:
    eir_strmap_free(&sc.by_name);
    return st;
}

static eir_status dec_program(dec *d, jv root) {
    eir_program *p = d->p;
    TRY(want_type(d, root, JT_OBJECT, "an ExportedProgram object"));
    jv f, gm;

    /* version first: an unknown major means the rest cannot be trusted */
    TRY(field(d, root, "schema_version", true, &f));
    push_key(d, "schema_version");
    TRY(want_type(d, f, JT_OBJECT, "a SchemaVersion object"));
    jv mj, mn;
    TRY(field(d, f, "major", true, &mj));
    TRY(field(d, f, "minor", true, &mn));
    push_key(d, "major");
    TRY(as_int(d, mj, &p->schema_major));
    pop(d);
    push_key(d, "minor");
    TRY(as_int(d, mn, &p->schema_minor));
    pop(d);
    if (p->schema_major != 8)
        return fail(d, EIR_ERR_VERSION, "schema version %lld.%lld is not supported (eir reads schema 8.x, "
                    "written by torch 2.9 and later)", (long long)p->schema_major, (long long)p->schema_minor);
    pop(d);

    TRY(field(d, root, "graph_module", true, &gm));
    push_key(d, "graph_module");
    TRY(want_type(d, gm, JT_OBJECT, "a GraphModule object"));
    TRY(field(d, gm, "graph", true, &f));
    push_key(d, "graph");
    TRY(dec_graph(d, f, &p->graph));
    pop(d);
    TRY(field(d, gm, "signature", true, &f));
    push_key(d, "signature");
    TRY(dec_signature(d, f));
    pop(d);
    TRY(field(d, gm, "module_call_graph", true, &f));
    push_key(d, "module_call_graph");
    TRY(dec_module_calls(d, f));
    pop(d);
    TRY(field(d, gm, "metadata", false, &f));
    if (f != JV_NONE) {
        push_key(d, "metadata");
        TRY(str_dict(d, f, &p->num_gm_metadata, &p->gm_metadata));
        pop(d);
    }
    TRY(field(d, gm, "treespec_namedtuple_fields", false, &f));
    if (f != JV_NONE) {
        push_key(d, "treespec_namedtuple_fields");
        TRY(want_type(d, f, JT_OBJECT, "an object"));
        size_t n = jdoc_size(d->doc, f), i = 0;
        p->namedtuple_fields = eir_arena_array(&p->arena, n ? n : 1, sizeof *p->namedtuple_fields);
        if (!p->namedtuple_fields) return NOMEM(d);
        for (uint32_t it_ = 0; it_ < jdoc_size(d->doc, f); it_++) {
            jv val = jdoc_val(d->doc, f, it_);
            const char *key = jdoc_str(d->doc, jdoc_key(d->doc, f, it_), &d->p->arena, NULL, NULL);
            if (!key) return NOMEM(d);
            push_key(d, key);
            p->namedtuple_fields[i].type = eir_arena_strdup(&p->arena, key);
            TRY(want_type(d, val, JT_OBJECT, "a NamedTupleDef object"));
            jv fn;
            TRY(field(d, val, "field_names", true, &fn));
            push_key(d, "field_names");
            TRY(str_list(d, fn, &p->namedtuple_fields[i].n, &p->namedtuple_fields[i].fields));
            pop(d);
            pop(d);
            i++;
        }
        p->num_namedtuple_fields = (uint32_t)n;
        pop(d);
    }
    pop(d);

    TRY(field(d, root, "opset_version", true, &f));
    push_key(d, "opset_version");
    TRY(want_type(d, f, JT_OBJECT, "an object"));
    {
        size_t n = jdoc_size(d->doc, f), i = 0;
        p->opset = eir_arena_array(&p->arena, n ? n : 1, sizeof *p->opset);
        if (!p->opset) return NOMEM(d);
        for (uint32_t it_ = 0; it_ < jdoc_size(d->doc, f); it_++) {
            jv val = jdoc_val(d->doc, f, it_);
            const char *key = jdoc_str(d->doc, jdoc_key(d->doc, f, it_), &d->p->arena, NULL, NULL);
            if (!key) return NOMEM(d);
            push_key(d, key);
            p->opset[i].name = eir_arena_strdup(&p->arena, key);
            TRY(as_int(d, val, &p->opset[i].version));
            pop(d);
            i++;
        }
        p->num_opset = (uint32_t)n;
    }
    pop(d);

    TRY(field(d, root, "range_constraints", true, &f));
    push_key(d, "range_constraints");
    TRY(want_type(d, f, JT_OBJECT, "an object"));
    {
        size_t n = jdoc_size(d->doc, f), i = 0;
        p->ranges = eir_arena_array(&p->arena, n ? n : 1, sizeof *p->ranges);
        if (!p->ranges) return NOMEM(d);
        for (uint32_t it_ = 0; it_ < jdoc_size(d->doc, f); it_++) {
            jv val = jdoc_val(d->doc, f, it_);
            const char *key = jdoc_str(d->doc, jdoc_key(d->doc, f, it_), &d->p->arena, NULL, NULL);
            if (!key) return NOMEM(d);
            push_key(d, key);
            eir_range *r = &p->ranges[i];
            r->symbol = eir_arena_strdup(&p->arena, key);
            TRY(want_type(d, val, JT_OBJECT, "a RangeConstraint object"));
            jv lo, hi;
            TRY(field(d, val, "min_val", true, &lo));
            TRY(field(d, val, "max_val", true, &hi));
            if (!(jdoc_type(d->doc, lo) == JT_NULL)) { push_key(d, "min_val"); TRY(as_int(d, lo, &r->min)); pop(d); r->has_min = true; }
            if (!(jdoc_type(d->doc, hi) == JT_NULL)) { push_key(d, "max_val"); TRY(as_int(d, hi, &r->max)); pop(d); r->has_max = true; }
            if (r->has_min && r->has_max && r->min > r->max)
                return fail(d, EIR_ERR_SCHEMA, "empty range [%lld, %lld]", (long long)r->min, (long long)r->max);
            pop(d);
            i++;
        }
        p->num_ranges = (uint32_t)n;
    }
    pop(d);

    TRY(field(d, root, "verifiers", false, &f));
    if (f != JV_NONE) { push_key(d, "verifiers"); TRY(str_list(d, f, &p->num_verifiers, &p->verifiers)); pop(d); }
    TRY(field(d, root, "torch_version", false, &f));
    p->torch_version = "<=2.4";
    if (f != JV_NONE) { push_key(d, "torch_version"); TRY(as_str(d, f, &p->torch_version)); pop(d); }
    TRY(field(d, root, "guards_code", false, &f));
    if (f != JV_NONE) { push_key(d, "guards_code"); TRY(str_list(d, f, &p->num_guards_code, &p->guards_code)); pop(d); }
    return EIR_OK;
}

/* ---- weights and constants ---- */

/* A parsed JSON record; the text stays alive (mapping or owned copy) while
 * the document is read. */
typedef struct json_record {
    jdoc doc;
    const uint8_t *data;
    bool owned;
} json_record;

static void record_free(json_record *r) {
    jdoc_free(&r->doc);
    if (r->owned) free((void *)r->data);
    memset(r, 0, sizeof *r);
}

/* Generous for any real program, small enough that a hostile file cannot
 * make the parser exhaust the stack of a recursive consumer. */
#define MAX_JSON_DEPTH 512

static eir_status read_record(eir_program *p, const char *name, uint64_t max, json_record *out) {
    memset(out, 0, sizeof *out);
    int64_t idx = eir_archive_find(&p->archive, name);
    if (idx < 0) return eir_fail(p, EIR_ERR_ARCHIVE, "archive has no record '%s/%s'", p->archive.root, name);
    size_t len;
    char err[512];
    if (!eir_archive_read(&p->archive, (uint32_t)idx, max, &out->data, &len, &out->owned, err, sizeof err))
        return eir_fail(p, EIR_ERR_ARCHIVE, "%s", err);
    if (!jdoc_parse(&out->doc, (const char *)out->data, len, MAX_JSON_DEPTH, err, sizeof err)) {
        if (out->owned) free((void *)out->data);
        memset(out, 0, sizeof *out);
        return eir_fail(p, EIR_ERR_JSON, "%s: %s", name, err);
    }
    return EIR_OK;
}

static size_t dtype_size_of(eir_dtype dt) { return eir_dtype_size(dt); }

/* Copies a torch.save tensor (and its inner tensors) into an eir_tensor.
 * base names the torch.save record: an inner tensor's record is
 * "<base>:<storage key>", so that the runtime, which shares storages by record
 * name, keeps the inner storages of different subclass tensors apart. */
static eir_status put_ts_tensor(dec *d, eir_tensor *t, const eir_ts_tensor *s, const char *base) {
    eir_program *p = d->p;
    t->subclass = s->subclass;
    t->data = s->data;
    t->storage_nbytes = s->data ? s->nbytes : 0;
    t->dtype = s->dtype;
    t->rank = s->rank;
    t->sizes = s->sizes;
    t->strides = s->strides;
    t->storage_offset = s->storage_offset;
    if (s->num_inner) {
        eir_tensor *in = eir_arena_array(&p->arena, s->num_inner, sizeof *in);
        if (!in) return NOMEM(d);
        for (uint32_t i = 0; i < s->num_inner; i++) {
            size_t n = strlen(t->fqn) + strlen(s->inner_names[i]) + 2;
            char *fqn = eir_arena_alloc(&p->arena, n);
            if (!fqn) return NOMEM(d);
            snprintf(fqn, n, "%s.%s", t->fqn, s->inner_names[i]);
            in[i].fqn = fqn;
            size_t rl = strlen(base) + strlen(s->inner[i].storage_key ? s->inner[i].storage_key : "") + 2;
            char *rec = eir_arena_alloc(&p->arena, rl);
            if (!rec) return NOMEM(d);
            snprintf(rec, rl, "%s:%s", base, s->inner[i].storage_key ? s->inner[i].storage_key : "");
            in[i].record = rec;
            in[i].is_param = t->is_param;
            in[i].is_constant = t->is_constant;
            in[i].use_pickle = true;
            TRY(put_ts_tensor(d, &in[i], &s->inner[i], base));
        }
        t->num_inner = s->num_inner;
        t->inner_names = s->inner_names;
        t->inner = in;
    }
    return EIR_OK;
}

static void put_sizes(eir_buf *b, eir_dtype dt, uint32_t rank, const int64_t *sz) {
    eir_buf_printf(b, "%s[", eir_dtype_abbr(dt) ? eir_dtype_abbr(dt) : "?");
    for (uint32_t k = 0; k < rank; k++) eir_buf_printf(b, "%s%lld", k ? ", " : "", (long long)sz[k]);
    eir_buf_putc(b, ']');
}

/* A payload torch pickled (tensor subclasses): a torch.save archive holding
 * one tensor. Its dtype and sizes must agree with the config's tensor_meta. */
static eir_status dec_pickled_tensor(dec *d, eir_tensor *t, uint32_t ri) {
    eir_program *p = d->p;
    const uint8_t *data;
    size_t len;
    bool owned;
    char err[768];
    if (!eir_archive_read(&p->archive, ri, UINT64_MAX / 2, &data, &len, &owned, err, sizeof err))
        return fail(d, EIR_ERR_ARCHIVE, "%s", err);
    if (owned) {
        void *copy = eir_arena_alloc(&p->arena, len ? len : 1);
        if (!copy) { free((void *)data); return NOMEM(d); }
        memcpy(copy, data, len);
        free((void *)data);
        data = copy;
    }
    eir_ts_entry *e;
    uint32_t n;
    if (!eir_torchsave_read(data, len, &p->arena, &e, &n, err, sizeof err))
        return fail(d, EIR_ERR_TENSOR, "pickled payload '%s': %s", t->record, err);
    if (n != 1 || e->key)
        return fail(d, EIR_ERR_TENSOR, "pickled payload '%s' holds a dict, expected one tensor", t->record);
    eir_dtype mdt = t->dtype;
    uint32_t mrank = t->rank;
    const int64_t *msz = t->sizes;
    TRY(put_ts_tensor(d, t, &e->t, t->record));
    bool same = mdt == t->dtype && mrank == t->rank;
    for (uint32_t i = 0; same && i < mrank; i++) same = msz[i] == t->sizes[i];
    if (!same) {
        eir_buf a, b;
        eir_buf_init(&a);
        eir_buf_init(&b);
        put_sizes(&a, mdt, mrank, msz);
        put_sizes(&b, t->dtype, t->rank, t->sizes);
        push_key(d, "tensor_meta");
        fail(d, EIR_ERR_TENSOR, "says %s, but pickled payload '%s' holds %s", a.data ? a.data : "?", t->record,
             b.data ? b.data : "?");
        eir_buf_free(&a);
        eir_buf_free(&b);
        return EIR_ERR_TENSOR;
    }
    return EIR_OK;
}

/* Progress of one load on this thread: payload bytes read (eir_progress). */
static _Thread_local uint64_t load_done, load_total;
static void load_progress(uint64_t add) {
    if (!load_total) return;
    load_done += add;
    eir_progress("loading", load_done, load_total);
}

static eir_status dec_payloads(dec *d, jv root, const char *dir, bool constants) {
    eir_program *p = d->p;
    TRY(want_type(d, root, JT_OBJECT, "a PayloadConfig object"));
    jv cfg;
    TRY(field(d, root, "config", true, &cfg));
    push_key(d, "config");
    TRY(want_type(d, cfg, JT_OBJECT, "an object"));
    size_t n = jdoc_size(d->doc, cfg);
    eir_tensor *arr = realloc(p->tensors, (p->num_tensors + n + 1) * sizeof *arr);
    if (!arr) return NOMEM(d);
    p->tensors = arr;
    for (uint32_t it_ = 0; it_ < jdoc_size(d->doc, cfg); it_++) {
            jv val = jdoc_val(d->doc, cfg, it_);
            const char *key = jdoc_str(d->doc, jdoc_key(d->doc, cfg, it_), &d->p->arena, NULL, NULL);
            if (!key) return NOMEM(d);
        push_key(d, key);
        eir_tensor *t = &p->tensors[p->num_tensors];
        memset(t, 0, sizeof *t);
        t->fqn = eir_arena_strdup(&p->arena, key);
        if (!t->fqn) return NOMEM(d);
        t->is_constant = constants;
        TRY(want_type(d, val, JT_OBJECT, "a PayloadMeta object"));
        const char *path_name;
        TRY(str_field(d, val, "path_name", &path_name));
        jv f;
        TRY(field(d, val, "is_param", true, &f));
        push_key(d, "is_param");
        TRY(as_bool(d, f, &t->is_param));
        pop(d);
        TRY(field(d, val, "use_pickle", true, &f));
        push_key(d, "use_pickle");
        TRY(as_bool(d, f, &t->use_pickle));
        pop(d);
        if (strchr(path_name, '/') || !strcmp(path_name, "..") || !path_name[0]) {
            push_key(d, "path_name");
            return fail(d, EIR_ERR_SCHEMA, "path_name '%s' must be a plain record name", path_name);
        }
        size_t plen = strlen(dir) + strlen(path_name) + 2;
        char *rec = eir_arena_alloc(&p->arena, plen);
        if (!rec) return NOMEM(d);
        snprintf(rec, plen, "%s/%s", dir, path_name);
        t->record = rec;
        int64_t ri = eir_archive_find(&p->archive, rec);
        if (ri < 0) {
            push_key(d, "path_name");
            return fail(d, EIR_ERR_ARCHIVE, "payload record '%s/%s' is missing from the archive", p->archive.root,
                        rec);
        }
        const eir_record *r = &p->archive.records[ri];
        TRY(field(d, val, "tensor_meta", true, &f));
        if ((jdoc_type(d->doc, f) == JT_NULL)) {
            t->is_custom_obj = true;
        } else {
            push_key(d, "tensor_meta");
            eir_tensor_meta m = {0};
            TRY(dec_tensor_meta(d, f, &m, true));
            t->dtype = m.dtype;
            t->rank = m.rank;
            int64_t *sz = eir_arena_array(&p->arena, m.rank ? m.rank : 1, sizeof *sz);
            int64_t *stv = eir_arena_array(&p->arena, m.rank ? m.rank : 1, sizeof *stv);
            if (!sz || !stv) return NOMEM(d);
            for (uint32_t i = 0; i < m.rank; i++) { sz[i] = m.sizes[i].value; stv[i] = m.strides[i].value; }
            t->sizes = sz;
            t->strides = stv;
            t->storage_offset = m.storage_offset.value;
            t->requires_grad = m.requires_grad;
            t->layout = m.layout;
            t->device = m.device;
            pop(d);
        }
        if (t->use_pickle && !t->is_custom_obj) {
            TRY(dec_pickled_tensor(d, t, (uint32_t)ri));
            load_progress(r->usize);
        } else if (!t->is_custom_obj) {
            if (r->method != 0) {
                /* compressed payloads cannot be mapped in place; inflate a private copy */
                const uint8_t *data;
                size_t len;
                bool owned;
                char err[512];
                if (!eir_archive_read(&p->archive, (uint32_t)ri, UINT64_MAX / 2, &data, &len, &owned, err, sizeof err))
                    return fail(d, EIR_ERR_ARCHIVE, "%s", err);
                void *copy = eir_arena_alloc(&p->arena, len ? len : 1);
                if (!copy) { if (owned) free((void *)data); return NOMEM(d); }
                memcpy(copy, data, len);
                if (owned) free((void *)data);
                t->data = copy;
            } else {
                t->data = p->archive.data + r->offset;
            }
            t->storage_nbytes = r->usize;
            load_progress(r->usize);
            /* the view must stay inside its storage: max element index < elements */
            size_t es = dtype_size_of(t->dtype);
            bool empty = false;
            unsigned __int128 hi = (unsigned __int128)(uint64_t)t->storage_offset;
            for (uint32_t i = 0; i < t->rank; i++) {
                if (t->sizes[i] == 0) empty = true;
                if (t->strides[i] < 0) {
                    push_key(d, "tensor_meta");
                    return fail(d, EIR_ERR_TENSOR, "negative stride %lld in dim %u", (long long)t->strides[i], i);
                }
            }
            if (!empty) {
                for (uint32_t i = 0; i < t->rank; i++)
                    hi += (unsigned __int128)(uint64_t)(t->sizes[i] - 1) * (uint64_t)t->strides[i];
                unsigned __int128 need = (hi + 1) * es;
                if (need >> 63) {
                    push_key(d, "tensor_meta");
                    return fail(d, EIR_ERR_TENSOR,
                                "sizes/strides/storage_offset overflow: the view would span more than 2^63 bytes "
                                "(payload '%s' has %llu bytes)", rec, (unsigned long long)t->storage_nbytes);
                }
                if (need > t->storage_nbytes) {
                    push_key(d, "tensor_meta");
                    return fail(d, EIR_ERR_TENSOR,
                                "%s tensor of sizes/strides/offset needing %llu bytes does not fit its payload "
                                "'%s' of %llu bytes",
                                eir_dtype_abbr(t->dtype), (unsigned long long)need, rec,
                                (unsigned long long)t->storage_nbytes);
                }
            }
        }
        if (!eir_strmap_put(&p->tensor_by_fqn, t->fqn, p->num_tensors)) return NOMEM(d);
        p->num_tensors++;
        pop(d);
    }
    pop(d);
    return EIR_OK;
}

static void put_type(eir_buf *b, eir_dtype dt, uint32_t rank, const eir_symint *ss, const int64_t *is,
                     const eir_program *p) {
    const char *ab = eir_dtype_abbr(dt);
    eir_buf_printf(b, "%s[", ab ? ab : "?");
    for (uint32_t k = 0; k < rank; k++) {
        if (k) eir_buf_puts(b, ", ");
        if (ss && ss[k].is_expr) eir_buf_puts(b, p->exprs[ss[k].expr].str);
        else eir_buf_printf(b, "%lld", (long long)(ss ? ss[k].value : is[k]));
    }
    eir_buf_putc(b, ']');
}

/* Where the archive keeps its weights (or constants), for messages. */
static const char *payload_home(const eir_program *p, bool weights) {
    if (p->archive.flat) return weights ? "serialized_state_dict.pt" : "serialized_constants.pt";
    const char *legacy = weights ? "data/weights/model.pt" : "data/constants/model.pt";
    const char *cfg = weights ? "data/weights/model_weights_config.json" : "data/constants/model_constants_config.json";
    return eir_archive_find(&p->archive, legacy) >= 0 && eir_archive_find(&p->archive, cfg) < 0 ? legacy : cfg;
}

/* Every lifted parameter/buffer/constant must have a payload, and its graph
 * metadata must agree with it. */
static eir_status check_bindings(eir_program *p) {
    const eir_graph *g = p->graph;
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if (s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_BUFFER && s->kind != EIR_IN_CONSTANT_TENSOR) continue;
        uint32_t ti;
        const char *kind = s->kind == EIR_IN_PARAMETER ? "parameter" : s->kind == EIR_IN_BUFFER ? "buffer"
                                                                                                : "constant";
        if (!eir_strmap_get(&p->tensor_by_fqn, s->target, &ti))
            return eir_fail(p, EIR_ERR_ARCHIVE,
                            "models/model.json: $.graph_module.signature.input_specs[%u]: %s '%s' (graph input "
                            "%%%s) has no payload in %s", i, kind, s->target, s->arg.name,
                            payload_home(p, s->kind == EIR_IN_PARAMETER ||
                                                (s->kind == EIR_IN_BUFFER && s->persistent == 1)));
        const eir_tensor *t = &p->tensors[ti];
        if (t->is_custom_obj || (t->use_pickle && !t->data) || s->arg.value == EIR_NO_VALUE) continue;
        const eir_tensor_meta *m = &g->values[s->arg.value].meta;
        bool ok = m->dtype == t->dtype && m->rank == t->rank;
        for (uint32_t k = 0; ok && k < m->rank; k++)
            if (!m->sizes[k].is_expr && m->sizes[k].value != t->sizes[k]) ok = false;
        if (!ok) {
            eir_buf gt, pt;
            eir_buf_init(&gt);
            eir_buf_init(&pt);
            put_type(&gt, m->dtype, m->rank, m->sizes, NULL, p);
            put_type(&pt, t->dtype, t->rank, NULL, t->sizes, p);
            eir_fail(p, EIR_ERR_TENSOR, "%s '%s': the graph declares %%%s as %s but its payload '%s' holds %s", kind,
                     s->target, s->arg.name, gt.data ? gt.data : "?", t->record, pt.data ? pt.data : "?");
            eir_buf_free(&gt);
            eir_buf_free(&pt);
            return EIR_ERR_TENSOR;
        }
    }
    return EIR_OK;
}

static eir_status read_small_text(eir_program *p, const char *name, const char **out) {
    int64_t idx = eir_archive_find(&p->archive, name);
    *out = NULL;
    if (idx < 0) return EIR_OK;
    const uint8_t *data;
    size_t len;
    bool owned;
    char err[512];
    if (!eir_archive_read(&p->archive, (uint32_t)idx, 4096, &data, &len, &owned, err, sizeof err))
        return eir_fail(p, EIR_ERR_ARCHIVE, "%s", err);
    *out = eir_arena_strndup(&p->arena, (const char *)data, len);
    if (owned) free((void *)data);
    return *out ? EIR_OK : eir_fail(p, EIR_ERR_NOMEM, "out of memory");
}

eir_status eir_serde_decode_model_json(eir_program *p, const char *text, size_t len) {
    jdoc doc;
    char err[512];
    if (!jdoc_parse(&doc, text, len, MAX_JSON_DEPTH, err, sizeof err))
        return eir_fail(p, EIR_ERR_JSON, "models/model.json: %s", err);
    dec d = {.p = p, .doc = &doc, .record = "models/model.json"};
    eir_status st = dec_program(&d, 0);
    jdoc_free(&doc);
    return st;
}

/* A torch.save'd dict of tensors (legacy layouts: the state dict or the
 * constants in one record). Tensors of one storage share it, as in torch. */
static eir_status dec_legacy_tensors(eir_program *p, const char *name, bool constants) {
    int64_t idx = eir_archive_find(&p->archive, name);
    if (idx < 0)
        return eir_fail(p, EIR_ERR_ARCHIVE, "archive has no record '%s' (a legacy archive keeps its %s there)", name,
                        constants ? "constants" : "weights");
    const uint8_t *data;
    size_t len;
    bool owned;
    char err[768];
    if (!eir_archive_read(&p->archive, (uint32_t)idx, UINT64_MAX / 2, &data, &len, &owned, err, sizeof err))
        return eir_fail(p, EIR_ERR_ARCHIVE, "%s", err);
    load_progress(p->archive.records[idx].usize);
    if (owned) {
        void *copy = eir_arena_alloc(&p->arena, len ? len : 1);
        if (!copy) { free((void *)data); return eir_fail(p, EIR_ERR_NOMEM, "out of memory"); }
        memcpy(copy, data, len);
        free((void *)data);
        data = copy;
    }
    if (!len) return EIR_OK;  /* torch writes no bytes for None */
    eir_ts_entry *e;
    uint32_t n;
    if (!eir_torchsave_read(data, len, &p->arena, &e, &n, err, sizeof err))
        return eir_fail(p, EIR_ERR_TENSOR, "%s: %s", name, err);
    if (n == 1 && !e->key) return eir_fail(p, EIR_ERR_TENSOR, "%s holds one tensor, expected a dict of tensors", name);
    eir_tensor *arr = realloc(p->tensors, (p->num_tensors + n + 1) * sizeof *arr);
    if (!arr) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    p->tensors = arr;
    dec d = {.p = p, .record = name};
    for (uint32_t i = 0; i < n; i++) {
        eir_tensor *t = &p->tensors[p->num_tensors];
        memset(t, 0, sizeof *t);
        uint32_t dup;
        if (eir_strmap_get(&p->tensor_by_fqn, e[i].key, &dup))
            return eir_fail(p, EIR_ERR_TENSOR, "%s: '%s' is stored twice", name, e[i].key);
        t->fqn = e[i].key;
        /* the runtime shares storages by record name: one per torch.save storage */
        size_t rl = strlen(name) + 2 + (e[i].t.storage_key ? strlen(e[i].t.storage_key) : 0);
        char *rec = eir_arena_alloc(&p->arena, rl);
        if (!rec) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        snprintf(rec, rl, "%s:%s", name, e[i].t.storage_key ? e[i].t.storage_key : "");
        t->record = rec;
        t->is_param = e[i].t.is_param;
        t->is_constant = constants;
        t->use_pickle = true;
        d.depth = 0;
        push_key(&d, e[i].key);
        TRY(put_ts_tensor(&d, t, &e[i].t, name));
        if (!eir_strmap_put(&p->tensor_by_fqn, t->fqn, p->num_tensors)) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        p->num_tensors++;
    }
    return EIR_OK;
}

static eir_status read_small_text(eir_program *p, const char *name, const char **out);

/* torch 2.1 - 2.7: a flat ZIP (Python's zipfile) with serialized_exported_program.json,
 * serialized_state_dict.pt, serialized_constants.pt and version ("8.x"). */
static eir_status load_flat_legacy(eir_program *p) {
    const char *version;
    TRY(read_small_text(p, "version", &version));
    if (!version) return eir_fail(p, EIR_ERR_ARCHIVE, "legacy archive has no record 'version'");
    if (strncmp(version, "8.", 2) != 0)
        return eir_fail(p, EIR_ERR_VERSION, "legacy archive has schema version '%.20s'; eir (like torch 2.13) reads "
                        "schema 8.x", version);
    p->model_name = "model";
    json_record root;
    TRY(read_record(p, "serialized_exported_program.json", MAX_JSON_BYTES, &root));
    dec d = {.p = p, .doc = &root.doc, .record = "serialized_exported_program.json"};
    eir_status st = dec_program(&d, 0);
    record_free(&root);
    if (st) return st;
    TRY(dec_legacy_tensors(p, "serialized_state_dict.pt", false));
    TRY(dec_legacy_tensors(p, "serialized_constants.pt", true));
    return check_bindings(p);
}

static eir_status serde_load(eir_program *p, const uint8_t *data, size_t size);

/* Loads with progress: the total is the size of the records payloads come from. */
eir_status eir_serde_load(eir_program *p, const uint8_t *data, size_t size) {
    load_done = load_total = 0;
    eir_status st = serde_load(p, data, size);
    if (!st && load_total) {
        load_done = load_total;
        eir_progress("loading", load_done, load_total);
    }
    load_done = load_total = 0;
    return st;
}

static eir_status serde_load(eir_program *p, const uint8_t *data, size_t size) {
    char err[1024];
    if (!eir_archive_open(&p->archive, data, size, err, sizeof err)) return eir_fail(p, EIR_ERR_ARCHIVE, "%s", err);
    if (eir_progress_wanted())
        for (uint32_t i = 0; i < p->archive.num_records; i++) {
            const char *n = p->archive.records[i].name;
            if (!strncmp(n, "data/weights/", 13) || !strncmp(n, "data/constants/", 15) ||
                !strcmp(n, "serialized_state_dict.pt") || !strcmp(n, "serialized_constants.pt"))
                if (!strstr(n, "_config.json")) load_total += p->archive.records[i].usize;
        }
    if (p->archive.flat) {
        if (eir_archive_find(&p->archive, "serialized_exported_program.json") >= 0) return load_flat_legacy(p);
        return eir_fail(p, EIR_ERR_ARCHIVE, "ZIP record '%.200s' is not inside an archive root folder (a .pt2 keeps "
                        "every record under '<name>/'; torch <= 2.7 wrote a flat ZIP with "
                        "'serialized_exported_program.json')", p->archive.records[0].name);
    }
    bool legacy_weights = eir_archive_find(&p->archive, "data/weights/model.pt") >= 0 &&
                          eir_archive_find(&p->archive, "data/weights/model_weights_config.json") < 0;
    bool legacy_constants = eir_archive_find(&p->archive, "data/constants/model.pt") >= 0 &&
                            eir_archive_find(&p->archive, "data/constants/model_constants_config.json") < 0;
    TRY(read_small_text(p, "archive_format", &p->archive_format));
    if (!p->archive_format)
        return eir_fail(p, EIR_ERR_ARCHIVE, "archive has no record '%s/archive_format' (not a PT2 archive)",
                        p->archive.root);
    if (strcmp(p->archive_format, "pt2") != 0)
        return eir_fail(p, EIR_ERR_ARCHIVE, "record 'archive_format' says '%.40s', expected 'pt2'", p->archive_format);
    TRY(read_small_text(p, "archive_version", &p->archive_version));
    if (p->archive_version && strcmp(p->archive_version, "0") != 0)
        return eir_fail(p, EIR_ERR_VERSION, "archive_version '%.40s' is not supported (expected '0')",
                        p->archive_version);
    TRY(read_small_text(p, "byteorder", &p->byteorder));
    if (p->byteorder && strcmp(p->byteorder, "little") != 0)
        return eir_fail(p, EIR_ERR_ARCHIVE, "byteorder '%.40s' is not supported (expected 'little')", p->byteorder);

    p->model_name = "model";
    json_record root;
    TRY(read_record(p, "models/model.json", MAX_JSON_BYTES, &root));
    dec d = {.p = p, .doc = &root.doc, .record = "models/model.json"};
    eir_status st = dec_program(&d, 0);
    record_free(&root);
    if (st) return st;

    static const struct { const char *cfg, *dir; bool constants; } payloads[] = {
        {"data/weights/model_weights_config.json", "data/weights", false},
        {"data/constants/model_constants_config.json", "data/constants", true},
    };
    for (size_t i = 0; i < EIR_ARRAY_LEN(payloads); i++) {
        /* torch 2.8 kept each dict in one torch.save record, data/<dir>/model.pt */
        if (payloads[i].constants ? legacy_constants : legacy_weights) {
            TRY(dec_legacy_tensors(p, payloads[i].constants ? "data/constants/model.pt" : "data/weights/model.pt",
                                   payloads[i].constants));
            continue;
        }
        json_record cfg;
        TRY(read_record(p, payloads[i].cfg, MAX_JSON_BYTES, &cfg));
        dec dp = {.p = p, .doc = &cfg.doc, .record = payloads[i].cfg};
        st = dec_payloads(&dp, 0, payloads[i].dir, payloads[i].constants);
        record_free(&cfg);
        if (st) return st;
    }
    return check_bindings(p);
}

eir_status eir_program_use_inner(eir_program *p, const char *name) {
    uint32_t used = 0;
    for (uint32_t i = 0; i < p->num_tensors; i++) {
        eir_tensor *t = &p->tensors[i];
        if (!t->num_inner) continue;
        const eir_tensor *in = NULL;
        for (uint32_t k = 0; k < t->num_inner && !in; k++)
            if (!strcmp(t->inner_names[k], name)) in = &t->inner[k];
        if (!in) {
            eir_buf names;
            eir_buf_init(&names);
            for (uint32_t k = 0; k < t->num_inner; k++) eir_buf_printf(&names, "%s'%s'", k ? ", " : "", t->inner_names[k]);
            eir_fail(p, EIR_ERR_TENSOR, "'%s' (%s) has no inner tensor '%s' (it has %s)", t->fqn, t->subclass, name,
                     names.data ? names.data : "");
            eir_buf_free(&names);
            return EIR_ERR_TENSOR;
        }
        bool same = in->dtype == t->dtype && in->rank == t->rank && in->storage_offset == t->storage_offset;
        for (uint32_t d = 0; same && d < t->rank; d++)
            same = in->sizes[d] == t->sizes[d] && (in->sizes[d] <= 1 || in->strides[d] == t->strides[d]);
        if (!same)
            return eir_fail(p, EIR_ERR_TENSOR, "inner tensor '%s' of '%s' (%s) has a dtype, sizes, strides or offset "
                            "other than the subclass tensor's", name, t->fqn, t->subclass);
        t->data = in->data;
        t->storage_nbytes = in->storage_nbytes;
        t->record = in->record;
        used++;
    }
    if (!used) return eir_fail(p, EIR_ERR_TENSOR, "the program has no tensor subclass with inner tensors");
    return EIR_OK;
}
