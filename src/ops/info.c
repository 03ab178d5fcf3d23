/* info.c — `eir info`: a human summary of a program (or the same as JSON):
 * versions, user inputs/outputs with symbolic dims and their ranges, stored
 * state, op histogram, dialect guess, control flow, custom ops, runtime
 * assertions. Lives at the ops layer because the dialect guess needs the
 * Core ATen op table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../ir/program.h"
#include "optable.h"

/* "aten.add.Tensor" is Core ATen in the installed torch's op table */
bool eir_op_is_core(const char *op) {
    const eir_op_schema *s = eir_op_find(op);
    return s && (s->flags & EIR_OPF_CORE);
}

typedef struct hist {
    const char **names;
    uint32_t *counts;
    uint32_t n, cap;
    eir_strmap idx;
} hist;

static void hist_add(hist *h, const char *name) {
    uint32_t i;
    if (eir_strmap_get(&h->idx, name, &i)) { h->counts[i]++; return; }
    if (h->n == h->cap) {
        uint32_t cap = h->cap ? h->cap * 2 : 32;
        const char **nn = realloc(h->names, cap * sizeof *nn);
        if (!nn) return;
        h->names = nn;
        uint32_t *cc = realloc(h->counts, cap * sizeof *cc);
        if (!cc) return;
        h->counts = cc;
        h->cap = cap;
    }
    h->names[h->n] = name;
    h->counts[h->n] = 1;
    eir_strmap_put(&h->idx, name, h->n);
    h->n++;
}

typedef struct census {
    hist ops;
    uint32_t nodes, graphs;
    uint32_t noncore, custom, hops, asserts, pyfns;
} census;

static bool starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static bool is_assert(const char *t) {
    return !strcmp(t, "torch.ops.aten._assert_scalar.default") ||
           !strcmp(t, "torch.ops.aten._assert_tensor_metadata.default") ||
           !strcmp(t, "torch.ops.aten.sym_constrain_range_for_size.default") ||
           !strcmp(t, "torch.ops.aten.sym_constrain_range.default") ||
           !strcmp(t, "torch.ops.aten._assert_async.msg") || !strcmp(t, "torch.ops.aten._assert_async.default") ||
           !strcmp(t, "torch.ops.aten._functional_assert_async.msg") ||
           !strcmp(t, "torch.ops.aten._functional_sym_constrain_range_for_size.default");
}

static void census_graph(census *c, const eir_graph *g) {
    c->graphs++;
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        const eir_node *n = &g->nodes[i];
        const char *t = n->target;
        const char *shown = starts_with(t, "torch.ops.") ? t + 10 : t;
        c->nodes++;
        hist_add(&c->ops, shown);
        if (starts_with(t, "torch.ops.higher_order.")) c->hops++;
        else if (starts_with(t, "torch.ops.aten.")) {
            if (is_assert(t)) c->asserts++;
            if (!eir_op_is_core(shown) && strcmp(t, "torch.ops.aten.sym_size.int") != 0 &&
                strcmp(t, "torch.ops.aten.sym_stride.int") != 0 && strcmp(t, "torch.ops.aten.sym_numel.default") != 0 &&
                strcmp(t, "torch.ops.aten.sym_storage_offset.default") != 0 && !is_assert(t))
                c->noncore++;
        } else if (starts_with(t, "torch.ops.")) {
            c->custom++;
        } else if (!starts_with(t, "operator.") && !starts_with(t, "_operator.") && !starts_with(t, "math.") &&
                   !starts_with(t, "torch.sym_") && strcmp(t, "torch._sym_sqrt") != 0) {
            /* Python callables other than symbolic arithmetic (vmap's batching
             * functions, grad-mode and autocast switches) are not Core ATen */
            c->pyfns++;
        }
        for (uint32_t k = 0; k < n->num_inputs; k++)
            if (n->inputs[k].arg.kind == EIR_ARG_GRAPH) census_graph(c, n->inputs[k].arg.u.graph.graph);
    }
}

static void put_shape(eir_buf *b, const eir_program *p, const eir_tensor_meta *m) {
    eir_buf_putc(b, '[');
    for (uint32_t i = 0; i < m->rank; i++) {
        if (i) eir_buf_puts(b, ", ");
        if (m->sizes[i].is_expr) eir_buf_puts(b, p->exprs[m->sizes[i].expr].str);
        else eir_buf_printf(b, "%lld", (long long)m->sizes[i].value);
    }
    eir_buf_putc(b, ']');
}

static void put_json_str(eir_buf *b, const char *s) {
    eir_buf_putc(b, '"');
    for (const unsigned char *q = (const unsigned char *)s; *q; q++) {
        if (*q == '"' || *q == '\\') { eir_buf_putc(b, '\\'); eir_buf_putc(b, (char)*q); }
        else if (*q < 0x20) eir_buf_printf(b, "\\u%04x", *q);
        else eir_buf_putc(b, (char)*q);
    }
    eir_buf_putc(b, '"');
}

static void put_json_shape(eir_buf *b, const eir_program *p, const eir_tensor_meta *m) {
    eir_buf_putc(b, '[');
    for (uint32_t i = 0; i < m->rank; i++) {
        if (i) eir_buf_puts(b, ", ");
        if (m->sizes[i].is_expr) put_json_str(b, p->exprs[m->sizes[i].expr].str);
        else eir_buf_printf(b, "%lld", (long long)m->sizes[i].value);
    }
    eir_buf_putc(b, ']');
}

/* The graph value behind an argument, if it is one. */
static const eir_value *arg_value(const eir_program *p, const eir_arg *a) {
    if (a->value == EIR_NO_VALUE || a->kind == EIR_ARG_CUSTOM_OBJ) return NULL;
    return &p->graph->values[a->value];
}

static void put_const_value(eir_buf *b, const eir_arg *a, bool json) {
    switch (a->kind) {
    case EIR_ARG_INT: eir_buf_printf(b, "%lld", (long long)a->u.i); break;
    case EIR_ARG_FLOAT:
        if (json && (a->u.f != a->u.f || a->u.f - a->u.f != 0)) put_json_str(b, a->u.f != a->u.f ? "NaN" : a->u.f > 0 ? "Infinity" : "-Infinity");
        else eir_buf_put_pyfloat(b, a->u.f);
        break;
    case EIR_ARG_BOOL: eir_buf_puts(b, a->u.b ? (json ? "true" : "True") : (json ? "false" : "False")); break;
    case EIR_ARG_STRING:
        if (json) put_json_str(b, a->u.s);
        else eir_buf_put_pyrepr_str(b, a->u.s);
        break;
    default: eir_buf_puts(b, json ? "null" : "None"); break;
    }
}

/* One user input/output: (name, value-or-constant) */
static void io_json(eir_buf *b, const eir_program *p, const char *name, const eir_arg *a) {
    const eir_value *v = arg_value(p, a);
    eir_buf_puts(b, "{\"name\": ");
    put_json_str(b, name ? name : "");
    if (v && v->kind == EIR_VALUE_TENSOR) {
        eir_buf_puts(b, ", \"kind\": \"tensor\", \"dtype\": ");
        put_json_str(b, eir_dtype_name(v->meta.dtype));
        eir_buf_puts(b, ", \"shape\": ");
        put_json_shape(b, p, &v->meta);
    } else if (v && v->kind == EIR_VALUE_SYM_INT) {
        eir_buf_puts(b, ", \"kind\": \"sym_int\"");
    } else if (v && v->kind == EIR_VALUE_SYM_FLOAT) {
        eir_buf_puts(b, ", \"kind\": \"sym_float\"");
    } else if (v && v->kind == EIR_VALUE_SYM_BOOL) {
        eir_buf_puts(b, ", \"kind\": \"sym_bool\"");
    } else if (a->kind == EIR_ARG_CUSTOM_OBJ) {
        eir_buf_puts(b, ", \"kind\": \"custom_obj\"");
    } else {
        eir_buf_puts(b, ", \"kind\": \"constant\", \"value\": ");
        put_const_value(b, a, true);
    }
    eir_buf_putc(b, '}');
}

static void io_human(eir_buf *b, const eir_program *p, const char *name, const eir_arg *a) {
    const eir_value *v = arg_value(p, a);
    eir_buf_printf(b, "  %-24s ", name ? name : "");
    if (v && v->kind == EIR_VALUE_TENSOR) {
        eir_buf_puts(b, eir_dtype_abbr(v->meta.dtype));
        put_shape(b, p, &v->meta);
        /* ranges of the symbols this input's dims use */
        bool first = true;
        for (uint32_t i = 0; i < v->meta.rank; i++) {
            if (!v->meta.sizes[i].is_expr) continue;
            const char *s = p->exprs[v->meta.sizes[i].expr].str;
            for (uint32_t r = 0; r < p->num_ranges; r++) {
                if (strcmp(p->ranges[r].symbol, s) != 0) continue;
                eir_buf_puts(b, first ? "  where " : ", ");
                first = false;
                const eir_range *rg = &p->ranges[r];
                if (rg->has_min) eir_buf_printf(b, "%lld <= ", (long long)rg->min);
                eir_buf_puts(b, s);
                if (rg->has_max) eir_buf_printf(b, " <= %lld", (long long)rg->max);
            }
        }
    } else if (v && (v->kind == EIR_VALUE_SYM_INT || v->kind == EIR_VALUE_SYM_FLOAT || v->kind == EIR_VALUE_SYM_BOOL)) {
        eir_buf_printf(b, "Sym(%s)", v->sym.is_expr ? p->exprs[v->sym.expr].str : "?");
    } else if (a->kind == EIR_ARG_CUSTOM_OBJ) {
        eir_buf_printf(b, "object %s", a->u.s);
    } else {
        eir_buf_puts(b, "constant ");
        put_const_value(b, a, false);
    }
    eir_buf_putc(b, '\n');
}

static void human_bytes(eir_buf *b, uint64_t n) {
    if (n < 1024) eir_buf_printf(b, "%llu B", (unsigned long long)n);
    else if (n < 1024 * 1024) eir_buf_printf(b, "%.1f KiB", n / 1024.0);
    else if (n < 1024ull * 1024 * 1024) eir_buf_printf(b, "%.1f MiB", n / (1024.0 * 1024));
    else eir_buf_printf(b, "%.2f GiB", n / (1024.0 * 1024 * 1024));
}

/* Bytes a stored tensor's view covers (the storage it needs). */
static uint64_t tensor_nbytes(const eir_tensor *t) {
    uint64_t n = 1;
    for (uint32_t i = 0; i < t->rank; i++) n *= (uint64_t)t->sizes[i];
    return n * eir_dtype_size(t->dtype);
}

eir_status eir_program_info(eir_program *p, bool json, char **out) {
    if (!p || !out) return EIR_ERR_ARG;
    *out = NULL;
    if (!p->graph) return eir_fail(p, EIR_ERR_ARG, "program has no graph (it failed to load)");
    census c = {0};
    eir_strmap_init(&c.ops.idx);
    census_graph(&c, p->graph);

    /* state: parameters, buffers, constants; storage bytes counted once per record */
    uint32_t cnt[3] = {0};
    uint64_t bytes[3] = {0};
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        int k = s->kind == EIR_IN_PARAMETER ? 0 : s->kind == EIR_IN_BUFFER ? 1
              : (s->kind == EIR_IN_CONSTANT_TENSOR || s->kind == EIR_IN_CUSTOM_OBJ) ? 2 : -1;
        if (k < 0) continue;
        cnt[k]++;
        const eir_tensor *t = s->target ? eir_program_find_tensor(p, s->target) : NULL;
        if (t && !t->is_custom_obj) bytes[k] += tensor_nbytes(t);
    }
    uint64_t stored = 0;
    eir_strmap recs;
    eir_strmap_init(&recs);
    for (uint32_t i = 0; i < p->num_tensors; i++) {
        if (eir_strmap_get(&recs, p->tensors[i].record, NULL)) continue;
        eir_strmap_put(&recs, p->tensors[i].record, i);
        stored += p->tensors[i].storage_nbytes;
    }
    eir_strmap_free(&recs);
    bool core = c.noncore == 0 && c.custom == 0 && c.pyfns == 0;
    const char *dialect = core ? "Core ATen" : "ATen";

    eir_buf b;
    eir_buf_init(&b);
    if (json) {
        eir_buf_puts(&b, "{\"torch_version\": ");
        put_json_str(&b, p->torch_version);
        eir_buf_printf(&b, ", \"schema_version\": \"%lld.%lld\"", (long long)p->schema_major,
                       (long long)p->schema_minor);
        eir_buf_puts(&b, ", \"dialect\": ");
        put_json_str(&b, dialect);
        eir_buf_puts(&b, ", \"inputs\": [");
        bool first = true;
        for (uint32_t i = 0; i < p->num_input_specs; i++) {
            const eir_input_spec *s = &p->input_specs[i];
            if (s->kind != EIR_IN_USER_INPUT && s->kind != EIR_IN_CONSTANT_INPUT) continue;
            if (!first) eir_buf_puts(&b, ", ");
            first = false;
            io_json(&b, p, s->kind == EIR_IN_CONSTANT_INPUT ? s->target : s->arg.name, &s->arg);
        }
        eir_buf_puts(&b, "], \"outputs\": [");
        first = true;
        for (uint32_t i = 0; i < p->num_output_specs; i++) {
            const eir_output_spec *s = &p->output_specs[i];
            if (s->kind != EIR_OUT_USER_OUTPUT) continue;
            if (!first) eir_buf_puts(&b, ", ");
            first = false;
            io_json(&b, p, s->arg.name, &s->arg);
        }
        eir_buf_puts(&b, "], \"range_constraints\": {");
        bool first_range = true;
        for (uint32_t i = 0; i < p->num_ranges; i++) {
            if (!eir_program_range_in_graph(p, i)) continue;  /* as torch.export.load keeps them */
            if (!first_range) eir_buf_puts(&b, ", ");
            first_range = false;
            put_json_str(&b, p->ranges[i].symbol);
            eir_buf_puts(&b, ": [");
            if (p->ranges[i].has_min) eir_buf_printf(&b, "%lld", (long long)p->ranges[i].min);
            else eir_buf_puts(&b, "null");
            eir_buf_puts(&b, ", ");
            if (p->ranges[i].has_max) eir_buf_printf(&b, "%lld", (long long)p->ranges[i].max);
            else eir_buf_puts(&b, "null");
            eir_buf_putc(&b, ']');
        }
        eir_buf_printf(&b, "}, \"parameters\": {\"count\": %u, \"bytes\": %llu}", cnt[0], (unsigned long long)bytes[0]);
        eir_buf_printf(&b, ", \"buffers\": {\"count\": %u, \"bytes\": %llu}", cnt[1], (unsigned long long)bytes[1]);
        eir_buf_printf(&b, ", \"constants\": {\"count\": %u, \"bytes\": %llu}", cnt[2], (unsigned long long)bytes[2]);
        eir_buf_printf(&b, ", \"stored_bytes\": %llu, \"nodes\": %u, \"graphs\": %u", (unsigned long long)stored,
                       c.nodes, c.graphs);
        eir_buf_puts(&b, ", \"ops\": {");
        for (uint32_t i = 0; i < c.ops.n; i++) {
            if (i) eir_buf_puts(&b, ", ");
            put_json_str(&b, c.ops.names[i]);
            eir_buf_printf(&b, ": %u", c.ops.counts[i]);
        }
        eir_buf_printf(&b, "}, \"control_flow\": %s, \"custom_ops\": %u, \"runtime_assertions\": %u}\n",
                       c.hops ? "true" : "false", c.custom, c.asserts);
    } else {
        eir_buf_printf(&b, "torch %s, schema %lld.%lld", p->torch_version, (long long)p->schema_major,
                       (long long)p->schema_minor);
        if (p->num_verifiers) {
            eir_buf_puts(&b, ", verifier ");
            for (uint32_t i = 0; i < p->num_verifiers; i++) eir_buf_printf(&b, "%s%s", i ? "," : "", p->verifiers[i]);
        }
        eir_buf_printf(&b, "\ndialect: %s", dialect);
        if (!core) {
            eir_buf_printf(&b, " (%u non-core ATen node%s, %u custom op node%s", c.noncore, c.noncore == 1 ? "" : "s",
                           c.custom, c.custom == 1 ? "" : "s");
            if (c.pyfns) eir_buf_printf(&b, ", %u Python function node%s", c.pyfns, c.pyfns == 1 ? "" : "s");
            eir_buf_putc(&b, ')');
        }
        eir_buf_puts(&b, "\n\ninputs:\n");
        uint32_t nin = 0, nout = 0;
        for (uint32_t i = 0; i < p->num_input_specs; i++) {
            const eir_input_spec *s = &p->input_specs[i];
            if (s->kind != EIR_IN_USER_INPUT && s->kind != EIR_IN_CONSTANT_INPUT) continue;
            io_human(&b, p, s->kind == EIR_IN_CONSTANT_INPUT ? s->target : s->arg.name, &s->arg);
            nin++;
        }
        if (!nin) eir_buf_puts(&b, "  (none)\n");
        eir_buf_puts(&b, "outputs:\n");
        for (uint32_t i = 0; i < p->num_output_specs; i++) {
            const eir_output_spec *s = &p->output_specs[i];
            if (s->kind != EIR_OUT_USER_OUTPUT) continue;
            io_human(&b, p, s->arg.name, &s->arg);
            nout++;
        }
        if (!nout) eir_buf_puts(&b, "  (none)\n");
        uint32_t mut = 0;
        for (uint32_t i = 0; i < p->num_output_specs; i++)
            if (p->output_specs[i].kind == EIR_OUT_BUFFER_MUTATION ||
                p->output_specs[i].kind == EIR_OUT_USER_INPUT_MUTATION ||
                p->output_specs[i].kind == EIR_OUT_PARAMETER_MUTATION)
                mut++;
        eir_buf_puts(&b, "\nstate:\n");
        static const char *const what[] = {"parameters", "buffers", "constants"};
        for (int k = 0; k < 3; k++) {
            eir_buf_printf(&b, "  %-11s %5u  ", what[k], cnt[k]);
            human_bytes(&b, bytes[k]);
            eir_buf_putc(&b, '\n');
        }
        eir_buf_printf(&b, "  stored in the archive: ");
        human_bytes(&b, stored);
        eir_buf_printf(&b, " in %u payload%s (memory-mapped, not copied)\n", p->num_tensors,
                       p->num_tensors == 1 ? "" : "s");
        if (mut) eir_buf_printf(&b, "  mutated by the program: %u\n", mut);
        eir_buf_printf(&b, "\nops: %u node%s in %u graph%s\n", c.nodes, c.nodes == 1 ? "" : "s", c.graphs,
                       c.graphs == 1 ? "" : "s");
        /* histogram, most frequent first (stable) */
        uint32_t *ord = malloc((c.ops.n ? c.ops.n : 1) * sizeof *ord);
        if (ord) {
            for (uint32_t i = 0; i < c.ops.n; i++) ord[i] = i;
            for (uint32_t i = 1; i < c.ops.n; i++) {
                uint32_t x = ord[i], j = i;
                while (j > 0 && c.ops.counts[ord[j - 1]] < c.ops.counts[x]) { ord[j] = ord[j - 1]; j--; }
                ord[j] = x;
            }
            for (uint32_t i = 0; i < c.ops.n; i++) {
                const char *nm = c.ops.names[ord[i]];
                const char *tag = "";
                if (starts_with(nm, "aten.") && !eir_op_is_core(nm)) tag = "  (not core)";
                eir_buf_printf(&b, "  %5u  %s%s\n", c.ops.counts[ord[i]], nm, tag);
            }
            free(ord);
        }
        eir_buf_printf(&b, "\ncontrol flow: %s\n", c.hops ? "yes" : "no");
        eir_buf_printf(&b, "custom ops: %s\n", c.custom ? "yes" : "no");
        eir_buf_printf(&b, "runtime assertions: %u\n", c.asserts);
    }
    free(c.ops.names);
    free(c.ops.counts);
    eir_strmap_free(&c.ops.idx);
    *out = eir_buf_take(&b);
    return *out ? EIR_OK : eir_fail(p, EIR_ERR_NOMEM, "out of memory");
}
