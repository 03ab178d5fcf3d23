/* save.c — encode an eir_program as a PT2 archive (the mirror of load.c).
 *
 * Writes what torch.export.save of torch 2.13 writes: the payload records
 * (one per storage: tensors sharing a storage share the record), the two
 * PayloadConfigs, models/model.json, the sample inputs, extra/ files and the
 * archive's small records, in torch's order, each stored (not compressed)
 * with its data aligned to 64 bytes by an `FB` extra field in the local
 * header, as PyTorchStreamWriter aligns it. JSON is written by hand in the
 * form Python's json.dumps gives (", " / ": " separators, ASCII escapes,
 * floats as repr, infinities and NaN as the strings torch's serializer puts
 * in their place) with the dataclasses' fields in declaration order, so a
 * model.json that eir loaded from torch is written back byte for byte.
 * The ZIP framing is minizip's, over a sink that is either a memory buffer or
 * a temporary file renamed into place when complete. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <minizip/zip.h>
#include <zlib.h>

#include "../ir/program.h"

#define ALIGN 64
#define CHUNK ((size_t)1 << 30)
#define PROGRESS_CHUNK ((size_t)16 << 20)   /* when progress is reported */

/* ---- JSON in json.dumps form ---- */

/* json.dumps(s) with ensure_ascii: '"' '\\' and the short escapes, other
 * control characters, DEL and every non-ASCII code point as \uXXXX (astral ones
 * as a surrogate pair). Invalid UTF-8 bytes are written as the code points
 * U+0080..U+00FF (Latin-1), which is what a lossy decoder would keep. */
static void j_str(eir_buf *b, const char *s) {
    const unsigned char *u = (const unsigned char *)s;
    eir_buf_putc(b, '"');
    while (*u) {
        unsigned c = *u;
        if (c < 0x80) {
            switch (c) {
            case '"': eir_buf_puts(b, "\\\""); break;
            case '\\': eir_buf_puts(b, "\\\\"); break;
            case '\n': eir_buf_puts(b, "\\n"); break;
            case '\r': eir_buf_puts(b, "\\r"); break;
            case '\t': eir_buf_puts(b, "\\t"); break;
            case '\b': eir_buf_puts(b, "\\b"); break;
            case '\f': eir_buf_puts(b, "\\f"); break;
            default:
                if (c < 0x20 || c == 0x7f) eir_buf_printf(b, "\\u%04x", c);
                else eir_buf_putc(b, (char)c);
            }
            u++;
            continue;
        }
        uint32_t cp;
        int n;
        if ((c & 0xE0) == 0xC0) { cp = c & 0x1F; n = 1; }
        else if ((c & 0xF0) == 0xE0) { cp = c & 0x0F; n = 2; }
        else if ((c & 0xF8) == 0xF0) { cp = c & 0x07; n = 3; }
        else { eir_buf_printf(b, "\\u%04x", c); u++; continue; }
        int k;
        for (k = 1; k <= n; k++) {
            if ((u[k] & 0xC0) != 0x80) break;
            cp = (cp << 6) | (u[k] & 0x3F);
        }
        if (k <= n) { eir_buf_printf(b, "\\u%04x", c); u++; continue; }
        u += n + 1;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            eir_buf_printf(b, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
        } else {
            eir_buf_printf(b, "\\u%04x", cp);
        }
    }
    eir_buf_putc(b, '"');
}

static void j_key(eir_buf *b, const char *k) {
    j_str(b, k);
    eir_buf_puts(b, ": ");
}

/* torch's _dataclass_to_dict turns the non-finite floats into strings before
 * json.dumps (allow_nan=False) sees them. */
static void j_float(eir_buf *b, double f) {
    if (isnan(f)) eir_buf_puts(b, "\"NaN\"");
    else if (isinf(f)) eir_buf_puts(b, f < 0 ? "\"-Infinity\"" : "\"Infinity\"");
    else eir_buf_put_pyfloat(b, f);
}

static void j_int(eir_buf *b, int64_t i) { eir_buf_printf(b, "%lld", (long long)i); }
static void j_bool(eir_buf *b, bool v) { eir_buf_puts(b, v ? "true" : "false"); }
static void j_opt_str(eir_buf *b, const char *s) { if (s) j_str(b, s); else eir_buf_puts(b, "null"); }

/* ---- model.json ---- */

typedef struct enc {
    eir_program *p;
    eir_buf b;
    eir_status st;
} enc;

static eir_status enc_fail(enc *e, eir_status st, const char *fmt, ...) EIR_PRINTF(3, 4);
static eir_status enc_fail(enc *e, eir_status st, const char *fmt, ...) {
    if (e->st != EIR_OK) return e->st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->p->errmsg, sizeof e->p->errmsg, fmt, ap);
    va_end(ap);
    e->st = st;
    return st;
}

static void w_symint(enc *e, const eir_symint *s) {
    eir_buf *b = &e->b;
    if (!s->is_expr) {
        eir_buf_puts(b, "{\"as_int\": ");
        j_int(b, s->value);
        eir_buf_putc(b, '}');
        return;
    }
    eir_buf_puts(b, "{\"as_expr\": {\"expr_str\": ");
    if (s->expr < e->p->num_exprs) j_str(b, e->p->exprs[s->expr].srepr);
    else enc_fail(e, EIR_ERR_GRAPH, "models/model.json: expression id %u out of range", s->expr);
    eir_buf_puts(b, ", \"hint\": ");
    if (!s->has_hint) eir_buf_puts(b, "null");
    else if (s->hint_kind == 1) { eir_buf_puts(b, "{\"as_bool\": "); j_bool(b, s->value != 0); eir_buf_putc(b, '}'); }
    else if (s->hint_kind == 2) { eir_buf_puts(b, "{\"as_float\": "); j_float(b, s->hint_float); eir_buf_putc(b, '}'); }
    else { eir_buf_puts(b, "{\"as_int\": "); j_int(b, s->value); eir_buf_putc(b, '}'); }
    eir_buf_puts(b, "}}");
}

static void w_device(eir_buf *b, const eir_device *d) {
    eir_buf_puts(b, "{\"type\": ");
    j_str(b, d->type ? d->type : "cpu");
    eir_buf_puts(b, ", \"index\": ");
    if (d->index < 0) eir_buf_puts(b, "null");
    else j_int(b, d->index);
    eir_buf_putc(b, '}');
}

static void w_symint_list(enc *e, uint32_t n, const eir_symint *s) {
    eir_buf_putc(&e->b, '[');
    for (uint32_t i = 0; i < n; i++) {
        if (i) eir_buf_puts(&e->b, ", ");
        w_symint(e, &s[i]);
    }
    eir_buf_putc(&e->b, ']');
}

static void w_tensor_meta(enc *e, const eir_tensor_meta *m) {
    eir_buf *b = &e->b;
    eir_buf_puts(b, "{\"dtype\": ");
    j_int(b, m->dtype);
    eir_buf_puts(b, ", \"sizes\": ");
    w_symint_list(e, m->rank, m->sizes);
    eir_buf_puts(b, ", \"requires_grad\": ");
    j_bool(b, m->requires_grad);
    eir_buf_puts(b, ", \"device\": ");
    w_device(b, &m->device);
    eir_buf_puts(b, ", \"strides\": ");
    w_symint_list(e, m->rank, m->strides);
    eir_buf_puts(b, ", \"storage_offset\": ");
    w_symint(e, &m->storage_offset);
    eir_buf_puts(b, ", \"layout\": ");
    j_int(b, m->layout);
    eir_buf_putc(b, '}');
}

/* The name an argument refers to: as written, else its value's name. */
static const char *arg_name(enc *e, const eir_graph *g, const eir_arg *a) {
    if (a->name) return a->name;
    if (g && a->value != EIR_NO_VALUE && a->value < g->num_values) return g->values[a->value].name;
    enc_fail(e, EIR_ERR_GRAPH, "models/model.json: an argument of kind %s names no value",
             eir_arg_kind_name(a->kind));
    return "";
}

static void w_name_obj(enc *e, const eir_graph *g, const eir_arg *a) {
    eir_buf_puts(&e->b, "{\"name\": ");
    j_str(&e->b, arg_name(e, g, a));
    eir_buf_putc(&e->b, '}');
}

static void w_graph(enc *e, const eir_graph *g);

/* SymIntArgument / SymFloatArgument / SymBoolArgument */
static void w_sym_arg(enc *e, const eir_graph *g, const eir_arg *a) {
    eir_buf *b = &e->b;
    if (!a->literal) {
        eir_buf_puts(b, "{\"as_name\": ");
        j_str(b, arg_name(e, g, a));
    } else if (a->kind == EIR_ARG_SYM_INT) {
        eir_buf_puts(b, "{\"as_int\": ");
        j_int(b, a->u.i);
    } else if (a->kind == EIR_ARG_SYM_FLOAT) {
        eir_buf_puts(b, "{\"as_float\": ");
        j_float(b, a->u.f);
    } else {
        eir_buf_puts(b, "{\"as_bool\": ");
        j_bool(b, a->u.b);
    }
    eir_buf_putc(b, '}');
}

static void w_opt_tensor(enc *e, const eir_graph *g, const eir_arg *a) {
    if (a->value == EIR_NO_VALUE && !a->name) {
        eir_buf_puts(&e->b, "{\"as_none\": true}");
        return;
    }
    eir_buf_puts(&e->b, "{\"as_tensor\": ");
    w_name_obj(e, g, a);
    eir_buf_putc(&e->b, '}');
}

/* The payload of a list argument: its elements in the form of its kind. */
static void w_list_payload(enc *e, const eir_graph *g, const eir_arg *a) {
    eir_buf *b = &e->b;
    eir_buf_putc(b, '[');
    for (uint32_t i = 0; i < a->u.list.n; i++) {
        const eir_arg *it = &a->u.list.items[i];
        if (i) eir_buf_puts(b, ", ");
        switch (a->kind) {
        case EIR_ARG_TENSORS: w_name_obj(e, g, it); break;   /* HOP operands may be sym values: by name too */
        case EIR_ARG_INTS: j_int(b, it->u.i); break;
        case EIR_ARG_FLOATS: j_float(b, it->u.f); break;
        case EIR_ARG_BOOLS: j_bool(b, it->u.b); break;
        case EIR_ARG_STRINGS: j_str(b, it->u.s ? it->u.s : ""); break;
        case EIR_ARG_SYM_INTS: case EIR_ARG_SYM_FLOATS: case EIR_ARG_SYM_BOOLS: w_sym_arg(e, g, it); break;
        case EIR_ARG_OPTIONAL_TENSORS: w_opt_tensor(e, g, it); break;
        case EIR_ARG_NESTED_TENSORS: case EIR_ARG_INT_LISTS: case EIR_ARG_FLOAT_LISTS:
            w_list_payload(e, g, it);
            break;
        default: enc_fail(e, EIR_ERR_GRAPH, "models/model.json: %s is not a list kind", eir_arg_kind_name(a->kind));
        }
    }
    eir_buf_putc(b, ']');
}

/* An Argument union. */
static void w_arg(enc *e, const eir_graph *g, const eir_arg *a) {
    eir_buf *b = &e->b;
    if (a->kind >= EIR_ARG_KIND_COUNT) {
        enc_fail(e, EIR_ERR_GRAPH, "models/model.json: argument of unknown kind %d", (int)a->kind);
        return;
    }
    eir_buf_putc(b, '{');
    j_key(b, eir_arg_kind_name(a->kind));
    switch (a->kind) {
    case EIR_ARG_NONE: eir_buf_puts(b, "true"); break;
    case EIR_ARG_TENSOR: w_name_obj(e, g, a); break;
    case EIR_ARG_INT: case EIR_ARG_SCALAR_TYPE: case EIR_ARG_MEMORY_FORMAT: case EIR_ARG_LAYOUT:
        j_int(b, a->u.i);
        break;
    case EIR_ARG_FLOAT: j_float(b, a->u.f); break;
    case EIR_ARG_STRING: case EIR_ARG_OPERATOR: j_str(b, a->u.s ? a->u.s : ""); break;
    case EIR_ARG_BOOL: j_bool(b, a->u.b); break;
    case EIR_ARG_DEVICE: w_device(b, &a->u.device); break;
    case EIR_ARG_SYM_INT: case EIR_ARG_SYM_FLOAT: case EIR_ARG_SYM_BOOL: w_sym_arg(e, g, a); break;
    case EIR_ARG_OPTIONAL_TENSOR: w_opt_tensor(e, g, a); break;
    case EIR_ARG_TENSORS: case EIR_ARG_INTS: case EIR_ARG_FLOATS: case EIR_ARG_BOOLS: case EIR_ARG_STRINGS:
    case EIR_ARG_SYM_INTS: case EIR_ARG_SYM_FLOATS: case EIR_ARG_SYM_BOOLS: case EIR_ARG_OPTIONAL_TENSORS:
    case EIR_ARG_NESTED_TENSORS: case EIR_ARG_INT_LISTS: case EIR_ARG_FLOAT_LISTS:
        w_list_payload(e, g, a);
        break;
    case EIR_ARG_COMPLEX:
        eir_buf_puts(b, "{\"real\": ");
        j_float(b, a->u.c.re);
        eir_buf_puts(b, ", \"imag\": ");
        j_float(b, a->u.c.im);
        eir_buf_putc(b, '}');
        break;
    case EIR_ARG_CUSTOM_OBJ:
        eir_buf_puts(b, "{\"name\": ");
        j_str(b, arg_name(e, g, a));
        eir_buf_puts(b, ", \"class_fqn\": ");
        j_str(b, a->u.s ? a->u.s : "");
        eir_buf_putc(b, '}');
        break;
    case EIR_ARG_GRAPH:
        eir_buf_puts(b, "{\"name\": ");
        j_str(b, a->u.graph.name ? a->u.graph.name : "");
        eir_buf_puts(b, ", \"graph\": ");
        if (a->u.graph.graph) w_graph(e, a->u.graph.graph);
        else enc_fail(e, EIR_ERR_GRAPH, "models/model.json: graph argument '%s' has no graph",
                      a->u.graph.name ? a->u.graph.name : "?");
        eir_buf_putc(b, '}');
        break;
    case EIR_ARG_STRING_TO_ARG:
        eir_buf_putc(b, '{');
        for (uint32_t i = 0; i < a->u.list.n; i++) {
            if (i) eir_buf_puts(b, ", ");
            j_key(b, a->u.list.keys && a->u.list.keys[i] ? a->u.list.keys[i] : "");
            w_arg(e, g, &a->u.list.items[i]);
        }
        eir_buf_putc(b, '}');
        break;
    case EIR_ARG_KIND_COUNT: break;
    }
    eir_buf_putc(b, '}');
}

static void w_arg_list(enc *e, const eir_graph *g, uint32_t n, const eir_arg *args) {
    eir_buf_putc(&e->b, '[');
    for (uint32_t i = 0; i < n; i++) {
        if (i) eir_buf_puts(&e->b, ", ");
        w_arg(e, g, &args[i]);
    }
    eir_buf_putc(&e->b, ']');
}

static void w_kv(eir_buf *b, uint32_t n, const eir_kv *kv) {
    eir_buf_putc(b, '{');
    for (uint32_t i = 0; i < n; i++) {
        if (i) eir_buf_puts(b, ", ");
        j_key(b, kv[i].key);
        j_str(b, kv[i].value ? kv[i].value : "");
    }
    eir_buf_putc(b, '}');
}

static void w_str_list(eir_buf *b, uint32_t n, const char *const *s) {
    eir_buf_putc(b, '[');
    for (uint32_t i = 0; i < n; i++) {
        if (i) eir_buf_puts(b, ", ");
        j_str(b, s[i] ? s[i] : "");
    }
    eir_buf_putc(b, ']');
}

static void w_node(enc *e, const eir_graph *g, const eir_node *nd) {
    eir_buf *b = &e->b;
    eir_buf_puts(b, "{\"target\": ");
    j_str(b, nd->target ? nd->target : "");
    eir_buf_puts(b, ", \"inputs\": [");
    for (uint32_t i = 0; i < nd->num_inputs; i++) {
        const eir_named_arg *na = &nd->inputs[i];
        if (i) eir_buf_puts(b, ", ");
        eir_buf_puts(b, "{\"name\": ");
        j_str(b, na->name ? na->name : "");
        eir_buf_puts(b, ", \"arg\": ");
        w_arg(e, g, &na->arg);
        eir_buf_puts(b, ", \"kind\": ");
        if (na->kind > 0) j_int(b, na->kind);
        else eir_buf_puts(b, "null");
        eir_buf_putc(b, '}');
    }
    eir_buf_puts(b, "], \"outputs\": ");
    w_arg_list(e, g, nd->num_outputs, nd->outputs);
    eir_buf_puts(b, ", \"metadata\": ");
    w_kv(b, nd->num_metadata, nd->metadata);
    eir_buf_puts(b, ", \"is_hop_single_tensor_return\": ");
    if (nd->is_hop_single_tensor_return < 0) eir_buf_puts(b, "null");
    else j_bool(b, nd->is_hop_single_tensor_return > 0);
    eir_buf_puts(b, ", \"name\": ");
    j_opt_str(b, nd->name);
    eir_buf_putc(b, '}');
}

/* One of the graph's value tables: the values of this kind, in graph order
 * (the loader keeps each table's entries in file order). */
static void w_value_table(enc *e, const eir_graph *g, eir_value_kind kind) {
    eir_buf *b = &e->b;
    bool first = true;
    eir_buf_putc(b, '{');
    for (uint32_t i = 0; i < g->num_values; i++) {
        const eir_value *v = &g->values[i];
        if (v->kind != kind) continue;
        if (!first) eir_buf_puts(b, ", ");
        first = false;
        j_key(b, v->name);
        switch (kind) {
        case EIR_VALUE_TENSOR: w_tensor_meta(e, &v->meta); break;
        case EIR_VALUE_SYM_INT: w_symint(e, &v->sym); break;
        case EIR_VALUE_SYM_BOOL:
        case EIR_VALUE_SYM_FLOAT:
            if (v->sym.is_expr) {
                eir_buf_puts(b, "{\"as_expr\": {\"expr_str\": ");
                if (v->sym.expr < e->p->num_exprs) j_str(b, e->p->exprs[v->sym.expr].srepr);
                eir_buf_puts(b, ", \"hint\": ");
                if (!v->sym.has_hint) eir_buf_puts(b, "null");
                else if (v->sym.hint_kind == 1) { eir_buf_puts(b, "{\"as_bool\": "); j_bool(b, v->sym.value != 0); eir_buf_putc(b, '}'); }
                else if (v->sym.hint_kind == 2) { eir_buf_puts(b, "{\"as_float\": "); j_float(b, v->sym.hint_float); eir_buf_putc(b, '}'); }
                else { eir_buf_puts(b, "{\"as_int\": "); j_int(b, v->sym.value); eir_buf_putc(b, '}'); }
                eir_buf_puts(b, "}}");
            } else if (kind == EIR_VALUE_SYM_BOOL) {
                eir_buf_puts(b, "{\"as_bool\": ");
                j_bool(b, v->sym.value != 0);
                eir_buf_putc(b, '}');
            } else {
                eir_buf_puts(b, "{\"as_float\": ");
                j_float(b, v->symf);
                eir_buf_putc(b, '}');
            }
            break;
        case EIR_VALUE_CUSTOM_OBJ:
            eir_buf_puts(b, "{\"name\": ");
            j_str(b, v->name);
            eir_buf_puts(b, ", \"class_fqn\": ");
            j_str(b, v->class_fqn ? v->class_fqn : "");
            eir_buf_putc(b, '}');
            break;
        default: break;
        }
    }
    eir_buf_putc(b, '}');
}

static void w_graph(enc *e, const eir_graph *g) {
    eir_buf *b = &e->b;
    eir_buf_puts(b, "{\"inputs\": ");
    w_arg_list(e, g, g->num_inputs, g->inputs);
    eir_buf_puts(b, ", \"outputs\": ");
    w_arg_list(e, g, g->num_outputs, g->outputs);
    eir_buf_puts(b, ", \"nodes\": [");
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        if (i) eir_buf_puts(b, ", ");
        w_node(e, g, &g->nodes[i]);
    }
    eir_buf_puts(b, "], \"tensor_values\": ");
    w_value_table(e, g, EIR_VALUE_TENSOR);
    eir_buf_puts(b, ", \"sym_int_values\": ");
    w_value_table(e, g, EIR_VALUE_SYM_INT);
    eir_buf_puts(b, ", \"sym_bool_values\": ");
    w_value_table(e, g, EIR_VALUE_SYM_BOOL);
    eir_buf_puts(b, ", \"is_single_tensor_return\": ");
    j_bool(b, g->is_single_tensor_return);
    eir_buf_puts(b, ", \"custom_obj_values\": ");
    w_value_table(e, g, EIR_VALUE_CUSTOM_OBJ);
    eir_buf_puts(b, ", \"sym_float_values\": ");
    w_value_table(e, g, EIR_VALUE_SYM_FLOAT);
    eir_buf_putc(b, '}');
}

static void w_input_spec(enc *e, const eir_graph *g, const eir_input_spec *s) {
    eir_buf *b = &e->b;
    static const char *const names[] = {"user_input", "parameter", "buffer", "tensor_constant", "custom_obj",
                                        "token", "constant_input"};
    static const char *const target_key[] = {NULL, "parameter_name", "buffer_name", "tensor_constant_name",
                                             "custom_obj_name", NULL, NULL};
    if ((unsigned)s->kind >= EIR_ARRAY_LEN(names)) {
        enc_fail(e, EIR_ERR_GRAPH, "models/model.json: input spec of unknown kind %d", (int)s->kind);
        return;
    }
    eir_buf_putc(b, '{');
    j_key(b, names[s->kind]);
    if (s->kind == EIR_IN_CONSTANT_INPUT) {
        eir_buf_puts(b, "{\"name\": ");
        j_str(b, s->target ? s->target : "");
        eir_buf_puts(b, ", \"value\": {");
        switch (s->arg.kind) {
        case EIR_ARG_INT: eir_buf_puts(b, "\"as_int\": "); j_int(b, s->arg.u.i); break;
        case EIR_ARG_FLOAT: eir_buf_puts(b, "\"as_float\": "); j_float(b, s->arg.u.f); break;
        case EIR_ARG_STRING: eir_buf_puts(b, "\"as_string\": "); j_str(b, s->arg.u.s ? s->arg.u.s : ""); break;
        case EIR_ARG_BOOL: eir_buf_puts(b, "\"as_bool\": "); j_bool(b, s->arg.u.b); break;
        default: eir_buf_puts(b, "\"as_none\": true"); break;
        }
        eir_buf_puts(b, "}}}");
        return;
    }
    eir_buf_puts(b, "{\"arg\": ");
    if (s->kind == EIR_IN_USER_INPUT) {
        w_arg(e, g, &s->arg);
    } else if (s->kind == EIR_IN_CUSTOM_OBJ) {
        eir_buf_puts(b, "{\"name\": ");
        j_str(b, arg_name(e, g, &s->arg));
        eir_buf_puts(b, ", \"class_fqn\": ");
        j_str(b, s->arg.u.s ? s->arg.u.s : "");
        eir_buf_putc(b, '}');
    } else {
        w_name_obj(e, g, &s->arg);
    }
    if (target_key[s->kind]) {
        eir_buf_puts(b, ", ");
        j_key(b, target_key[s->kind]);
        j_str(b, s->target ? s->target : "");
    }
    if (s->kind == EIR_IN_BUFFER) {
        eir_buf_puts(b, ", \"persistent\": ");
        j_bool(b, s->persistent == 1);
    }
    eir_buf_puts(b, "}}");
}

static void w_output_spec(enc *e, const eir_graph *g, const eir_output_spec *s) {
    eir_buf *b = &e->b;
    static const char *const names[] = {"user_output", "loss_output", "buffer_mutation", "gradient_to_parameter",
                                        "gradient_to_user_input", "user_input_mutation", "token",
                                        "parameter_mutation"};
    static const char *const target_key[] = {NULL, NULL, "buffer_name", "parameter_name", "user_input_name",
                                             "user_input_name", NULL, "parameter_name"};
    if ((unsigned)s->kind >= EIR_ARRAY_LEN(names)) {
        enc_fail(e, EIR_ERR_GRAPH, "models/model.json: output spec of unknown kind %d", (int)s->kind);
        return;
    }
    eir_buf_putc(b, '{');
    j_key(b, names[s->kind]);
    eir_buf_puts(b, "{\"arg\": ");
    if (s->kind == EIR_OUT_USER_OUTPUT) w_arg(e, g, &s->arg);
    else w_name_obj(e, g, &s->arg);
    if (target_key[s->kind]) {
        eir_buf_puts(b, ", ");
        j_key(b, target_key[s->kind]);
        j_str(b, s->target ? s->target : "");
    }
    eir_buf_puts(b, "}}");
}

static void w_program(enc *e) {
    eir_program *p = e->p;
    eir_buf *b = &e->b;
    const eir_graph *g = p->graph;
    eir_buf_puts(b, "{\"graph_module\": {\"graph\": ");
    w_graph(e, g);
    eir_buf_puts(b, ", \"signature\": {\"input_specs\": [");
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        if (i) eir_buf_puts(b, ", ");
        w_input_spec(e, g, &p->input_specs[i]);
    }
    eir_buf_puts(b, "], \"output_specs\": [");
    for (uint32_t i = 0; i < p->num_output_specs; i++) {
        if (i) eir_buf_puts(b, ", ");
        w_output_spec(e, g, &p->output_specs[i]);
    }
    eir_buf_puts(b, "]}, \"module_call_graph\": [");
    for (uint32_t i = 0; i < p->num_module_calls; i++) {
        const eir_module_call *mc = &p->module_calls[i];
        if (i) eir_buf_puts(b, ", ");
        eir_buf_puts(b, "{\"fqn\": ");
        j_str(b, mc->fqn ? mc->fqn : "");
        eir_buf_puts(b, ", \"signature\": ");
        if (!mc->has_signature) {
            eir_buf_puts(b, "null}");
            continue;
        }
        eir_buf_puts(b, "{\"inputs\": ");
        w_arg_list(e, g, mc->num_inputs, mc->inputs);
        eir_buf_puts(b, ", \"outputs\": ");
        w_arg_list(e, g, mc->num_outputs, mc->outputs);
        eir_buf_puts(b, ", \"in_spec\": ");
        j_str(b, mc->in_spec ? mc->in_spec : "");
        eir_buf_puts(b, ", \"out_spec\": ");
        j_str(b, mc->out_spec ? mc->out_spec : "");
        eir_buf_puts(b, ", \"forward_arg_names\": ");
        if (mc->num_forward_arg_names < 0) eir_buf_puts(b, "null");
        else w_str_list(b, (uint32_t)mc->num_forward_arg_names, mc->forward_arg_names);
        eir_buf_puts(b, "}}");
    }
    eir_buf_puts(b, "], \"metadata\": ");
    w_kv(b, p->num_gm_metadata, p->gm_metadata);
    eir_buf_puts(b, ", \"treespec_namedtuple_fields\": {");
    for (uint32_t i = 0; i < p->num_namedtuple_fields; i++) {
        if (i) eir_buf_puts(b, ", ");
        j_key(b, p->namedtuple_fields[i].type);
        eir_buf_puts(b, "{\"field_names\": ");
        w_str_list(b, p->namedtuple_fields[i].n, p->namedtuple_fields[i].fields);
        eir_buf_putc(b, '}');
    }
    eir_buf_puts(b, "}}, \"opset_version\": {");
    for (uint32_t i = 0; i < p->num_opset; i++) {
        if (i) eir_buf_puts(b, ", ");
        j_key(b, p->opset[i].name);
        j_int(b, p->opset[i].version);
    }
    eir_buf_puts(b, "}, \"range_constraints\": {");
    for (uint32_t i = 0; i < p->num_ranges; i++) {
        const eir_range *r = &p->ranges[i];
        if (i) eir_buf_puts(b, ", ");
        j_key(b, r->symbol);
        eir_buf_puts(b, "{\"min_val\": ");
        if (r->has_min) j_int(b, r->min);
        else eir_buf_puts(b, "null");
        eir_buf_puts(b, ", \"max_val\": ");
        if (r->has_max) j_int(b, r->max);
        else eir_buf_puts(b, "null");
        eir_buf_putc(b, '}');
    }
    eir_buf_puts(b, "}, \"schema_version\": {\"major\": ");
    j_int(b, p->schema_major);
    eir_buf_puts(b, ", \"minor\": ");
    j_int(b, p->schema_minor);
    eir_buf_puts(b, "}, \"verifiers\": ");
    w_str_list(b, p->num_verifiers, p->verifiers);
    eir_buf_puts(b, ", \"torch_version\": ");
    j_str(b, p->torch_version ? p->torch_version : "<=2.4");
    eir_buf_puts(b, ", \"guards_code\": ");
    w_str_list(b, p->num_guards_code, p->guards_code);
    eir_buf_putc(b, '}');
}

eir_status eir_serde_encode_model_json(eir_program *p, char **out, size_t *len) {
    enc e = {p, {0}, EIR_OK};
    eir_buf_init(&e.b);
    *out = NULL;
    *len = 0;
    if (!p->graph) return eir_fail(p, EIR_ERR_ARG, "the program has no graph to write");
    w_program(&e);
    if (!e.st && e.b.oom) e.st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    if (e.st) {
        eir_buf_free(&e.b);
        return e.st;
    }
    *len = e.b.len;
    *out = eir_buf_take(&e.b);
    return *out ? EIR_OK : eir_fail(p, EIR_ERR_NOMEM, "out of memory");
}

/* ---- payloads ---- */

/* A pickled payload is carried over from the source archive as it is when
 * the archive has it as a record of its own (torch 2.13's layout: tensor
 * subclasses, torchbind objects), and when it holds no plain storage eir
 * could write. A plain tensor read out of a larger pickle (the state dicts of
 * torch 2.1 - 2.8 archives) is written as raw bytes, as torch 2.13 writes it. */
static bool carried_pickle(const eir_program *p, const eir_tensor *t) {
    if (!t->use_pickle) return false;
    if (t->subclass || !t->data) return true;
    return p->archive.records && t->record && eir_archive_find(&p->archive, t->record) >= 0;
}

typedef enum pkind { PK_PICKLED, PK_RAW, PK_OBJ } pkind;

typedef struct payload {
    pkind kind;
    uint32_t first;            /* the tensor whose bytes are written */
    const char *name;          /* path_name, e.g. "weight_0" */
} payload;

/* The record basename after the last '/'. */
static const char *base_name(const char *rec) {
    const char *s = rec ? strrchr(rec, '/') : NULL;
    return s ? s + 1 : rec ? rec : "";
}

/* The record a tensor of the state dict or constants is written to, in
 * torch's numbering: pickled tensors first, then one record per (storage,
 * dtype) in the order of first use, then custom objects. *slot receives, per
 * tensor, its payload index; payloads are listed in write order. */
typedef struct plan {
    uint32_t n;
    payload *items;
    uint32_t *slot;            /* per tensor */
    uint32_t *order;           /* config order: tensors of the same PayloadConfig */
    uint32_t norder;
} plan;

static eir_status plan_payloads(eir_program *p, bool constants, eir_arena *ar, plan *pl) {
    uint32_t nt = p->num_tensors;
    pl->items = eir_arena_array(ar, nt ? nt : 1, sizeof *pl->items);
    pl->slot = eir_arena_array(ar, nt ? nt : 1, sizeof *pl->slot);
    pl->order = eir_arena_array(ar, nt ? nt : 1, sizeof *pl->order);
    uint32_t *count = eir_arena_array(ar, nt + 1, sizeof *count);
    if (!pl->items || !pl->slot || !pl->order || !count) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    pl->n = pl->norder = 0;
    const char *prefix = constants ? "tensor_" : "weight_";
    uint32_t idx = 0, n_custom = 0, n_opaque = 0;
    eir_strmap by_storage;     /* "<data pointer>/<bytes>/<dtype>" -> payload */
    eir_strmap_init(&by_storage);
    eir_status st = EIR_OK;
    for (int pass = 0; pass < 3 && !st; pass++) {
        for (uint32_t i = 0; i < nt; i++) {
            const eir_tensor *t = &p->tensors[i];
            if (t->is_constant != constants) continue;
            pkind k = t->is_custom_obj ? PK_OBJ : carried_pickle(p, t) ? PK_PICKLED : PK_RAW;
            if ((int)k != pass) continue;
            pl->order[pl->norder++] = i;
            char key[96];
            if (k == PK_RAW) {
                if (!t->data && t->storage_nbytes) {
                    st = eir_fail(p, EIR_ERR_TENSOR, "%s '%s' has no data to write", constants ? "constant" : "weight",
                                  t->fqn);
                    break;
                }
                uint32_t j;
                eir_snprintf(key, sizeof key, "%p/%llu/%d", t->data, (unsigned long long)t->storage_nbytes, (int)t->dtype);
                if (eir_strmap_get(&by_storage, key, &j)) {
                    pl->slot[i] = j;
                    continue;
                }
            }
            pl->slot[i] = pl->n;
            char nm[64];
            if (k == PK_OBJ) {
                bool opaque = !strncmp(base_name(t->record), "opaque_obj_", 11);
                eir_snprintf(nm, sizeof nm, "%s%u", opaque ? "opaque_obj_" : "custom_obj_",
                             opaque ? n_opaque++ : n_custom++);
            } else {
                eir_snprintf(nm, sizeof nm, "%s%u", prefix, idx++);
            }
            pl->items[pl->n] = (payload){k, i, eir_arena_strdup(ar, nm)};
            const char *kcopy = k == PK_RAW ? eir_arena_strdup(ar, key) : "";
            if (!pl->items[pl->n].name || !kcopy || (k == PK_RAW && !eir_strmap_put(&by_storage, kcopy, pl->n))) {
                st = eir_fail(p, EIR_ERR_NOMEM, "out of memory");
                break;
            }
            pl->n++;
        }
    }
    eir_strmap_free(&by_storage);
    if (st) return st;
    /* config order: the members of one storage together, in the order of
     * their payloads (torch iterates the storage groups); stable within one */
    uint32_t *sorted = eir_arena_array(ar, pl->norder ? pl->norder : 1, sizeof *sorted);
    if (!sorted) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    memset(count, 0, (nt + 1) * sizeof *count);
    for (uint32_t k = 0; k < pl->norder; k++) count[pl->slot[pl->order[k]] + 1]++;
    for (uint32_t s = 0; s < pl->n; s++) count[s + 1] += count[s];
    for (uint32_t k = 0; k < pl->norder; k++) sorted[count[pl->slot[pl->order[k]]]++] = pl->order[k];
    pl->order = sorted;
    return EIR_OK;
}

static void w_payload_config(eir_buf *b, const eir_program *p, const plan *pl) {
    eir_buf_puts(b, "{\"config\": {");
    for (uint32_t k = 0; k < pl->norder; k++) {
        uint32_t i = pl->order[k];
        const eir_tensor *t = &p->tensors[i];
        if (k) eir_buf_puts(b, ", ");
        j_key(b, t->fqn);
        eir_buf_puts(b, "{\"path_name\": ");
        j_str(b, pl->items[pl->slot[i]].name);
        eir_buf_puts(b, ", \"is_param\": ");
        j_bool(b, t->is_param);
        eir_buf_puts(b, ", \"use_pickle\": ");
        j_bool(b, carried_pickle(p, t) || t->is_custom_obj);
        eir_buf_puts(b, ", \"tensor_meta\": ");
        if (t->is_custom_obj) {
            eir_buf_puts(b, "null}");
            continue;
        }
        eir_buf_puts(b, "{\"dtype\": ");
        j_int(b, t->dtype);
        eir_buf_puts(b, ", \"sizes\": [");
        for (uint32_t d = 0; d < t->rank; d++) eir_buf_printf(b, "%s{\"as_int\": %lld}", d ? ", " : "", (long long)t->sizes[d]);
        eir_buf_puts(b, "], \"requires_grad\": ");
        j_bool(b, t->requires_grad);
        eir_buf_puts(b, ", \"device\": ");
        eir_device dev = t->device;
        if (!dev.type) dev = (eir_device){"cpu", -1};
        w_device(b, &dev);
        eir_buf_puts(b, ", \"strides\": [");
        for (uint32_t d = 0; d < t->rank; d++) eir_buf_printf(b, "%s{\"as_int\": %lld}", d ? ", " : "", (long long)t->strides[d]);
        eir_buf_printf(b, "], \"storage_offset\": {\"as_int\": %lld}, \"layout\": %d}}", (long long)t->storage_offset,
                       t->layout ? (int)t->layout : (int)EIR_LAYOUT_STRIDED);
    }
    eir_buf_puts(b, "}}");
}

/* ---- ZIP output over a sink ---- */

typedef struct sink {
    FILE *f;                   /* file sink, or NULL for memory */
    uint8_t *data;             /* memory sink */
    size_t len, cap;
    uint64_t pos;
    bool err;
    int errnum;
} sink;

static voidpf s_open(voidpf opaque, const void *filename, int mode) { return opaque; }
static uLong s_read(voidpf opaque, voidpf stream, void *buf, uLong size) {
    sink *s = stream;
    if (s->f) {
        size_t n = fread(buf, 1, size, s->f);
        s->pos += n;
        return (uLong)n;
    }
    if (s->pos >= s->len) return 0;
    size_t n = s->len - s->pos < size ? s->len - (size_t)s->pos : size;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (uLong)n;
}
static uLong s_write(voidpf opaque, voidpf stream, const void *buf, uLong size) {
    sink *s = stream;
    if (s->err) return 0;
    if (s->f) {
        size_t n = fwrite(buf, 1, size, s->f);
        if (n != size) { s->err = true; s->errnum = errno; }
        s->pos += n;
        return (uLong)n;
    }
    size_t end = (size_t)s->pos + size;
    if (end > s->cap) {
        size_t nc = s->cap ? s->cap : 1 << 16;
        while (nc < end) nc *= 2;
        uint8_t *d = realloc(s->data, nc);
        if (!d) { s->err = true; s->errnum = ENOMEM; return 0; }
        s->data = d;
        s->cap = nc;
    }
    memcpy(s->data + s->pos, buf, size);
    s->pos = end;
    if (end > s->len) s->len = end;
    return size;
}
static ZPOS64_T s_tell(voidpf opaque, voidpf stream) { return ((sink *)stream)->pos; }
static long s_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin) {
    sink *s = stream;
    uint64_t end = s->f ? 0 : s->len;
    if (s->f) {
        int wh = origin == ZLIB_FILEFUNC_SEEK_SET ? SEEK_SET : origin == ZLIB_FILEFUNC_SEEK_CUR ? SEEK_CUR : SEEK_END;
        if (fseeko(s->f, (off_t)offset, wh) != 0) return -1;
        off_t at = ftello(s->f);
        if (at < 0) return -1;
        s->pos = (uint64_t)at;
        return 0;
    }
    uint64_t at = origin == ZLIB_FILEFUNC_SEEK_SET ? offset : origin == ZLIB_FILEFUNC_SEEK_CUR ? s->pos + offset
                                                                                                : end + offset;
    if (at > s->len) return -1;
    s->pos = at;
    return 0;
}
static int s_close(voidpf opaque, voidpf stream) { return 0; }
static int s_error(voidpf opaque, voidpf stream) { return ((sink *)stream)->err; }

typedef struct writer {
    eir_program *p;
    zipFile zf;
    sink *s;
    const char *root;
    uint64_t names_hash;       /* for .data/serialization_id */
    uLong crc_all;
    eir_status st;
    uint64_t prog_done, prog_total;  /* payload bytes, for eir_progress */
} writer;

/* One stored record, its data starting at a multiple of 64 bytes. */
static eir_status put_record(writer *w, const char *rel, const void *data, uint64_t size) {
    if (w->st) return w->st;
    eir_buf name;
    eir_buf_init(&name);
    eir_buf_printf(&name, "%s/%s", w->root, rel);
    if (name.oom) { eir_buf_free(&name); return w->st = eir_fail(w->p, EIR_ERR_NOMEM, "out of memory"); }
    for (const char *c = rel; *c; c++) w->names_hash = (w->names_hash ^ (uint8_t)*c) * 1099511628211ull;
    int zip64 = size >= 0xFFFFFFFFull || w->s->pos >= 0xFFFFFFFFull;
    uint64_t start = w->s->pos + 30 + name.len + 4 + (zip64 ? 20 : 0);
    uint16_t pad = (uint16_t)((ALIGN - start % ALIGN) % ALIGN);
    unsigned char extra[4 + ALIGN];
    extra[0] = 'F';
    extra[1] = 'B';
    extra[2] = (unsigned char)(pad & 0xFF);
    extra[3] = (unsigned char)(pad >> 8);
    memset(extra + 4, 'Z', pad);
    zip_fileinfo zi;
    memset(&zi, 0, sizeof zi);
    zi.dosDate = 0x00210000;   /* 1980-01-01 00:00, fixed so that output is reproducible */
    int rc = zipOpenNewFileInZip4_64(w->zf, name.data, &zi, extra, (uInt)(4 + pad), NULL, 0, NULL, 0, 0, 0,
                                     -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, NULL, 0, 0, 0x0800, zip64);
    const uint8_t *d = data;
    uint64_t left = size;
    while (rc == ZIP_OK && left) {
        size_t chunk = w->prog_total ? PROGRESS_CHUNK : CHUNK;
        size_t n = left > chunk ? chunk : (size_t)left;
        rc = zipWriteInFileInZip(w->zf, d, (unsigned)n);
        w->crc_all = crc32(w->crc_all, d, (uInt)n);
        d += n;
        left -= n;
        if (w->prog_total) {
            w->prog_done += n;
            eir_progress("writing", w->prog_done, w->prog_total);
        }
    }
    if (rc == ZIP_OK) rc = zipCloseFileInZip(w->zf);
    if (rc != ZIP_OK || w->s->err)
        w->st = eir_fail(w->p, EIR_ERR_IO, "writing record '%s': %s", name.data,
                         w->s->errnum ? strerror(w->s->errnum) : "zip write failed");
    eir_buf_free(&name);
    return w->st;
}

static eir_status put_text(writer *w, const char *rel, const eir_buf *b) {
    if (b->oom) return w->st = eir_fail(w->p, EIR_ERR_NOMEM, "out of memory");
    return put_record(w, rel, b->data ? b->data : "", b->len);
}

/* A record of the source archive, carried over as it is (pickled payloads,
 * sample inputs, extra files). */
static eir_status copy_source_record(writer *w, const char *src, const char *rel, bool required) {
    eir_program *p = w->p;
    int64_t idx = p->archive.records ? eir_archive_find(&p->archive, src) : -1;
    if (idx < 0) {
        if (!required) return put_record(w, rel, "", 0);
        return w->st = eir_fail(p, EIR_ERR_UNSUPPORTED, "cannot write '%s': its bytes come from the source archive's "
                                "record '%s', which the program does not have", rel, src);
    }
    const uint8_t *data;
    size_t len;
    bool owned;
    char err[512];
    if (!eir_archive_read(&p->archive, (uint32_t)idx, UINT64_MAX / 2, &data, &len, &owned, err, sizeof err))
        return w->st = eir_fail(p, EIR_ERR_ARCHIVE, "%s", err);
    put_record(w, rel, data, len);
    if (owned) free((void *)data);
    return w->st;
}

/* Bytes a payload writes: the tensor's storage, or the carried record's size. */
static uint64_t payload_bytes(const eir_program *p, const payload *it) {
    const eir_tensor *t = &p->tensors[it->first];
    if (it->kind == PK_RAW) return t->data ? t->storage_nbytes : 0;
    int64_t idx = p->archive.records && t->record ? eir_archive_find(&p->archive, t->record) : -1;
    return idx < 0 ? 0 : p->archive.records[idx].usize;
}

static eir_status put_payloads(writer *w, bool constants, const plan *pl) {
    eir_program *p = w->p;
    if (w->st) return w->st;
    const char *dir = constants ? "data/constants" : "data/weights";
    for (uint32_t k = 0; k < pl->n; k++) {
        const payload *it = &pl->items[k];
        const eir_tensor *t = &p->tensors[it->first];
        char rel[256];
        eir_snprintf(rel, sizeof rel, "%s/%s", dir, it->name);
        if (it->kind == PK_RAW) put_record(w, rel, t->data ? t->data : "", t->data ? t->storage_nbytes : 0);
        else copy_source_record(w, t->record ? t->record : "", rel, true);
        if (w->st) return w->st;
    }
    eir_buf b;
    eir_buf_init(&b);
    w_payload_config(&b, p, pl);
    uint64_t total = w->prog_total;
    w->prog_total = 0;  /* configs are not payload bytes */
    put_text(w, constants ? "data/constants/model_constants_config.json" : "data/weights/model_weights_config.json", &b);
    w->prog_total = total;
    eir_buf_free(&b);
    return w->st;
}

/* The archive into the sink. */
static eir_status write_archive(eir_program *p, sink *s, const char *root) {
    if (!p->graph) return eir_fail(p, EIR_ERR_ARG, "the program has no graph to write");
    zlib_filefunc64_def io = {s_open, s_read, s_write, s_tell, s_seek, s_close, s_error, s};
    writer w = {p, NULL, s, root, 14695981039346656037ull, 0, EIR_OK, 0, 0};
    w.crc_all = crc32(0, Z_NULL, 0);
    w.zf = zipOpen2_64("eir", APPEND_STATUS_CREATE, NULL, &io);
    if (!w.zf) return eir_fail(p, EIR_ERR_IO, "cannot start the ZIP archive");
    eir_arena ar;
    eir_arena_init(&ar);

    plan plw = {0}, plc = {0};
    eir_status pst = plan_payloads(p, false, &ar, &plw);
    if (!pst) pst = plan_payloads(p, true, &ar, &plc);
    if (pst) w.st = pst;
    if (!w.st && eir_progress_wanted()) {
        for (uint32_t k = 0; k < plw.n; k++) w.prog_total += payload_bytes(p, &plw.items[k]);
        for (uint32_t k = 0; k < plc.n; k++) w.prog_total += payload_bytes(p, &plc.items[k]);
    }
    put_payloads(&w, false, &plw);
    put_payloads(&w, true, &plc);
    if (!w.st && w.prog_total && w.prog_done < w.prog_total) {
        /* carried records and empty payloads may write less than counted */
        w.prog_done = w.prog_total;
        eir_progress("writing", w.prog_done, w.prog_total);
    }
    w.prog_total = 0;

    if (!w.st) {
        char *json;
        size_t len;
        w.st = eir_serde_encode_model_json(p, &json, &len);
        if (!w.st) put_record(&w, "models/model.json", json, len);
        free(json);
    }
    if (!w.st) copy_source_record(&w, "data/sample_inputs/model.pt", "data/sample_inputs/model.pt", false);
    for (uint32_t i = 0; !w.st && p->archive.records && i < p->archive.num_records; i++)
        if (!strncmp(p->archive.records[i].name, "extra/", 6))
            copy_source_record(&w, p->archive.records[i].name, p->archive.records[i].name, true);
    if (!w.st) put_record(&w, "archive_format", "pt2", 3);
    if (!w.st) put_record(&w, "archive_version", "0", 1);
    if (!w.st) put_record(&w, ".data/version", "6\n", 2);
    if (!w.st) put_record(&w, "byteorder", "little", 6);
    if (!w.st) {
        /* informational in torch (a hash of the record names and their
         * combined CRC); eir writes the same kind of 40 digits */
        char id[48];
        eir_snprintf(id, sizeof id, "%020llu%020llu", (unsigned long long)w.names_hash, (unsigned long long)w.crc_all);
        put_record(&w, ".data/serialization_id", id, 40);
    }
    eir_arena_release(&ar);
    int rc = zipClose(w.zf, NULL);
    if (!w.st && (rc != ZIP_OK || s->err))
        w.st = eir_fail(p, EIR_ERR_IO, "finishing the ZIP archive: %s", s->errnum ? strerror(s->errnum) : "write failed");
    return w.st;
}

eir_status eir_program_save_buffer(eir_program *p, void **data, size_t *size) {
    if (!p) return EIR_ERR_ARG;
    if (!data || !size) return eir_fail(p, EIR_ERR_ARG, "eir_program_save_buffer: NULL output");
    *data = NULL;
    *size = 0;
    sink s = {0};
    eir_status st = write_archive(p, &s, "archive");
    if (st) {
        free(s.data);
        return st;
    }
    *data = s.data ? (void *)s.data : malloc(1);
    *size = s.len;
    return *data ? EIR_OK : eir_fail(p, EIR_ERR_NOMEM, "out of memory");
}

eir_status eir_program_save(eir_program *p, const char *path) {
    if (!p) return EIR_ERR_ARG;
    if (!path || !*path) return eir_fail(p, EIR_ERR_ARG, "eir_program_save: no path");
    /* the root folder: the file's name without its directory and extension */
    const char *bn = strrchr(path, '/');
    bn = bn ? bn + 1 : path;
    const char *dot = strrchr(bn, '.');
    size_t rl = dot && dot != bn ? (size_t)(dot - bn) : strlen(bn);
    if (!rl) return eir_fail(p, EIR_ERR_ARG, "eir_program_save: '%s' names no file", path);
    char *root = malloc(rl + 1);
    size_t tl = strlen(path) + 16;
    char *tmp = malloc(tl);
    if (!root || !tmp) {
        free(root);
        free(tmp);
        return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    }
    memcpy(root, bn, rl);
    root[rl] = 0;
    eir_snprintf(tmp, tl, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    eir_status st = EIR_OK;
    if (fd < 0) {
        st = eir_fail(p, EIR_ERR_IO, "%s: cannot create a temporary file next to it: %s", path, strerror(errno));
        goto out;
    }
    sink s = {0};
    s.f = fdopen(fd, "w+b");
    if (!s.f) {
        st = eir_fail(p, EIR_ERR_IO, "%s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    st = write_archive(p, &s, root);
    if (!st && (fflush(s.f) != 0 || fsync(fileno(s.f)) != 0))
        st = eir_fail(p, EIR_ERR_IO, "%s: %s", path, strerror(errno));
    if (!st) {
        /* a temporary file is created 0600; give the archive the usual mode */
        mode_t um = umask(0);
        umask(um);
        if (fchmod(fileno(s.f), 0666 & ~um) != 0) st = eir_fail(p, EIR_ERR_IO, "%s: %s", tmp, strerror(errno));
    }
    if (fclose(s.f) != 0 && !st) st = eir_fail(p, EIR_ERR_IO, "%s: %s", path, strerror(errno));
    if (!st && rename(tmp, path) != 0) st = eir_fail(p, EIR_ERR_IO, "%s: %s", path, strerror(errno));
    if (st) unlink(tmp);
out:
    free(root);
    free(tmp);
    return st;
}
