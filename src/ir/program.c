/* program.c — eir_program lifetime, accessors, the expression table and
 * dtype tables. */
#include "program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

eir_status eir_fail(eir_program *p, eir_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    eir_vsnprintf(p->errmsg, sizeof p->errmsg, fmt, ap);
    va_end(ap);
    return st;
}

eir_program *eir_program_new_empty(void) {
    eir_program *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    eir_arena_init(&p->arena);
    eir_strmap_init(&p->tensor_by_fqn);
    eir_strmap_init(&p->expr_by_srepr);
    return p;
}

eir_status eir_program_load_buffer(const void *data, size_t size, eir_program **out) {
    if (!out) return EIR_ERR_ARG;
    eir_program *p = *out = eir_program_new_empty();
    if (!p) return EIR_ERR_NOMEM;
    if (!data && size) return eir_fail(p, EIR_ERR_ARG, "eir_program_load_buffer: NULL data");
    return eir_serde_load(p, data ? data : (const void *)"", size);
}

eir_status eir_program_load(const char *path, eir_program **out) {
    if (!out) return EIR_ERR_ARG;
    eir_program *p = *out = eir_program_new_empty();
    if (!p) return EIR_ERR_NOMEM;
    if (!path) return eir_fail(p, EIR_ERR_ARG, "eir_program_load: NULL path");
    char err[1024];
    if (!eir_map_file(path, &p->map, err, sizeof err)) return eir_fail(p, EIR_ERR_IO, "%s", err);
    eir_status st = eir_serde_load(p, p->map.data, p->map.size);
    if (st != EIR_OK && st != EIR_ERR_NOMEM) {
        /* prefix the file name, keep the detail */
        char msg[sizeof p->errmsg + 1100];
        snprintf(msg, sizeof msg, "%s: %s", path, p->errmsg);
        snprintf(p->errmsg, sizeof p->errmsg, "%s", msg);
    }
    return st;
}

void eir_program_free(eir_program *p) {
    if (!p) return;
    eir_archive_close(&p->archive);
    eir_unmap_file(&p->map);
    free(p->tensors);
    free(p->exprs);
    free(p->graph_caps);
    eir_strmap_free(&p->tensor_by_fqn);
    eir_strmap_free(&p->expr_by_srepr);
    eir_arena_release(&p->arena);
    free(p);
}

const char *eir_errmsg(const eir_program *p) { return p ? p->errmsg : "out of memory"; }

uint32_t eir_program_intern_expr(eir_program *p, const char *srepr, const char *where) {
    (void)where;
    uint32_t id;
    if (eir_strmap_get(&p->expr_by_srepr, srepr, &id)) return id;
    char err[512];
    eir_sym_node *tree = eir_sym_parse(&p->arena, srepr, err, sizeof err);
    if (!tree) {
        eir_fail(p, EIR_ERR_SCHEMA, "%s", err);
        return UINT32_MAX;
    }
    if (p->num_exprs == p->cap_exprs) {
        uint32_t cap = p->cap_exprs ? p->cap_exprs * 2 : 16;
        eir_expr *e = realloc(p->exprs, cap * sizeof *e);
        if (!e) { eir_fail(p, EIR_ERR_NOMEM, "out of memory"); return UINT32_MAX; }
        p->exprs = e;
        p->cap_exprs = cap;
    }
    eir_buf b;
    eir_buf_init(&b);
    eir_sym_print(&b, tree);
    const char *str = b.data ? eir_arena_strdup(&p->arena, b.data) : NULL;
    eir_buf_free(&b);
    const char *key = eir_arena_strdup(&p->arena, srepr);
    if (!str || !key || !eir_strmap_put(&p->expr_by_srepr, key, p->num_exprs)) {
        eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        return UINT32_MAX;
    }
    p->exprs[p->num_exprs] = (eir_expr){key, str, tree};
    return p->num_exprs++;
}

static bool is_boolean_call(const eir_sym_node *n) {
    /* sympy's is_Boolean: BooleanFunctions, not relations */
    static const char *const BOOLEANS[] = {"And", "Or", "Not"};
    if (n->kind != EIR_SYM_CALL) return false;
    for (size_t i = 0; i < sizeof BOOLEANS / sizeof *BOOLEANS; i++)
        if (!strcmp(n->name, BOOLEANS[i])) return true;
    return false;
}

static bool subexpr_named(const eir_sym_node *n, const char *want) {
    if (n->kind == EIR_SYM_INTEGER || n->kind == EIR_SYM_RATIONAL || n->kind == EIR_SYM_FLOAT || n->kind == EIR_SYM_TRUE ||
        n->kind == EIR_SYM_FALSE)
        return false;
    if (n->kind == EIR_SYM_SYMBOL) return !strcmp(n->name, want);
    for (uint32_t i = 0; i < n->nargs; i++)
        if (subexpr_named(n->args[i], want)) return true;
    eir_buf b;
    eir_buf_init(&b);
    eir_sym_print(&b, n);
    bool hit = b.data && !strcmp(b.data, want);
    eir_buf_free(&b);
    return hit;
}

static bool symint_names(const eir_program *p, const eir_symint *v, const char *key) {
    if (!v->is_expr || v->expr >= p->num_exprs) return false;
    const eir_expr *e = &p->exprs[v->expr];
    /* _parse_sym_expr stops at sympy Booleans (And/Or/Not, true, false):
     * a symbol only they mention is not registered */
    const eir_sym_node *t = e->tree;
    if (t && (t->kind == EIR_SYM_TRUE || t->kind == EIR_SYM_FALSE || is_boolean_call(t))) return false;
    return !strcmp(e->str, key) || (t && subexpr_named(t, key));
}

static bool graph_names_symbol(const eir_program *p, const eir_graph *g, const char *key, int depth) {
    if (!g || depth > 64) return false;
    for (uint32_t i = 0; i < g->num_values; i++) {
        const eir_value *v = &g->values[i];
        if (v->producer == -2) continue;         /* no node: its meta is never evaluated */
        if (v->kind == EIR_VALUE_TENSOR) {
            /* deserialize_tensor_meta reads sizes and strides, not the storage offset */
            for (uint32_t k = 0; k < v->meta.rank; k++)
                if (symint_names(p, &v->meta.sizes[k], key) || symint_names(p, &v->meta.strides[k], key))
                    return true;
        } else if (v->kind == EIR_VALUE_SYM_INT || v->kind == EIR_VALUE_SYM_FLOAT || v->kind == EIR_VALUE_SYM_BOOL) {
            if (symint_names(p, &v->sym, key)) return true;
        }
    }
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        const eir_node *nd = &g->nodes[i];
        for (uint32_t k = 0; k < nd->num_inputs; k++)
            if (nd->inputs[k].arg.kind == EIR_ARG_GRAPH &&
                graph_names_symbol(p, nd->inputs[k].arg.u.graph.graph, key, depth + 1))
                return true;
    }
    return false;
}

bool eir_program_range_in_graph(const eir_program *p, uint32_t i) {
    if (i >= p->num_ranges) return false;
    /* torch registers a symbol when it evaluates the metadata of a value a
     * node carries (root and nested graphs) */
    return graph_names_symbol(p, p->graph, p->ranges[i].symbol, 0);
}

const eir_graph *eir_program_graph(const eir_program *p) { return p ? p->graph : NULL; }
uint32_t eir_program_num_input_specs(const eir_program *p) { return p->num_input_specs; }
const eir_input_spec *eir_program_input_spec(const eir_program *p, uint32_t i) {
    return i < p->num_input_specs ? &p->input_specs[i] : NULL;
}
uint32_t eir_program_num_output_specs(const eir_program *p) { return p->num_output_specs; }
const eir_output_spec *eir_program_output_spec(const eir_program *p, uint32_t i) {
    return i < p->num_output_specs ? &p->output_specs[i] : NULL;
}
uint32_t eir_program_num_ranges(const eir_program *p) { return p->num_ranges; }
const eir_range *eir_program_range(const eir_program *p, uint32_t i) {
    return i < p->num_ranges ? &p->ranges[i] : NULL;
}
uint32_t eir_program_num_module_calls(const eir_program *p) { return p->num_module_calls; }
const eir_module_call *eir_program_module_call(const eir_program *p, uint32_t i) {
    return i < p->num_module_calls ? &p->module_calls[i] : NULL;
}
uint32_t eir_program_num_tensors(const eir_program *p) { return p->num_tensors; }
const eir_tensor *eir_program_tensor(const eir_program *p, uint32_t i) {
    return i < p->num_tensors ? &p->tensors[i] : NULL;
}
const eir_tensor *eir_program_find_tensor(const eir_program *p, const char *fqn) {
    uint32_t i;
    return eir_strmap_get(&p->tensor_by_fqn, fqn, &i) ? &p->tensors[i] : NULL;
}
const char *eir_program_torch_version(const eir_program *p) { return p->torch_version; }
void eir_program_schema_version(const eir_program *p, int64_t *major, int64_t *minor) {
    if (major) *major = p->schema_major;
    if (minor) *minor = p->schema_minor;
}
uint32_t eir_program_num_verifiers(const eir_program *p) { return p->num_verifiers; }
const char *eir_program_verifier(const eir_program *p, uint32_t i) {
    return i < p->num_verifiers ? p->verifiers[i] : NULL;
}
uint32_t eir_program_num_exprs(const eir_program *p) { return p->num_exprs; }
const char *eir_expr_srepr(const eir_program *p, uint32_t e) { return e < p->num_exprs ? p->exprs[e].srepr : NULL; }
const char *eir_expr_str(const eir_program *p, uint32_t e) { return e < p->num_exprs ? p->exprs[e].str : NULL; }

void eir_free(void *ptr) { free(ptr); }


bool eir_is_pyspace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* fx.graph._parse_stack_trace: the innermost 'File "...", line N, in f' frame
 * and the code line after it; with user_only, the innermost frame of a real
 * file (not generated code such as "<eval_with_key>.3"). Writes the summary
 * or returns false. */
static bool stack_summary(eir_buf *out, const char *st, bool user_only) {
    /* split stripped text into lines */
    const char *s = st, *e = st + strlen(st);
    while (s < e && eir_is_pyspace(*s)) s++;
    while (e > s && eir_is_pyspace(e[-1])) e--;
    if (s >= e) return false;
    size_t nl = 1;
    for (const char *q = s; q < e; q++) if (*q == '\n') nl++;
    const char **ls = malloc(nl * sizeof *ls), **le = malloc(nl * sizeof *le);
    if (!ls || !le) { free(ls); free(le); return false; }
    size_t k = 0;
    ls[0] = s;
    for (const char *q = s; q < e; q++)
        if (*q == '\n') { le[k] = q; ls[++k] = q + 1; }
    le[k] = e;
    bool found = false;
    for (long idx = (long)nl - 2; idx >= 0 && !found; idx--) {
        const char *a = ls[idx], *z = le[idx];
        while (a < z && eir_is_pyspace(*a)) a++;
        while (z > a && eir_is_pyspace(z[-1])) z--;
        size_t len = (size_t)(z - a);
        if (len < 6 || strncmp(a, "File \"", 6) != 0 || (user_only && len > 6 && a[6] == '<')) continue;
        /* greedy file name: the last '", line <digits>, in <name>' split that matches */
        for (const char *q = z - 1; q > a + 6 && !found; q--) {
            if (*q != '"' || (size_t)(z - q) < 9 || strncmp(q, "\", line ", 8) != 0) continue;
            const char *dg = q + 8, *dz = dg;
            while (dz < z && *dz >= '0' && *dz <= '9') dz++;
            if (dz == dg || (size_t)(z - dz) < 6 || strncmp(dz, ", in ", 5) != 0) continue;
            const char *fn = dz + 5;
            if (fn >= z) continue;
            if (memchr(fn, '\n', (size_t)(z - fn))) continue;
            const char *c = ls[idx + 1], *cz = le[idx + 1];
            while (c < cz && eir_is_pyspace(*c)) c++;
            while (cz > c && eir_is_pyspace(cz[-1])) cz--;
            eir_buf_puts(out, "File: ");
            eir_buf_putn(out, a + 6, (size_t)(q - (a + 6)));
            eir_buf_putc(out, ':');
            eir_buf_putn(out, dg, (size_t)(dz - dg));
            eir_buf_puts(out, " in ");
            eir_buf_putn(out, fn, (size_t)(z - fn));
            eir_buf_puts(out, ", code: ");
            eir_buf_putn(out, c, (size_t)(cz - c));
            found = true;
        }
    }
    free(ls);
    free(le);
    return found;
}

bool eir_stack_summary(eir_buf *out, const char *st) { return stack_summary(out, st, false); }

bool eir_stack_user_line(eir_buf *out, const char *st) {
    return stack_summary(out, st, true) || stack_summary(out, st, false);
}

