/* guards.c — torch's input guards for an exported program: built once from
 * the signature, the range constraints and guards_code, run before each
 * plan. See guards.h for what torch checks and in which order. */
#include "guards.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/jdoc.h"
#include "../ir/pyexpr.h"

typedef struct guard {
    const char *code;            /* as torch writes it: L['x'].size()[0] <= 64 */
    const char *shown;           /* as torch reports it: x.size()[0] <= 64 */
    eir_py_node *tree;           /* resolved: accessors are SOURCE nodes */
} guard;

typedef struct user_input {
    const char *name;            /* graph input name ("p_x") */
    const char *path;            /* "L['p'].x" */
    const char *shown;           /* "p.x" */
    const eir_value *value;      /* NULL for a constant input */
} user_input;

struct eir_guards {
    eir_arena arena;
    user_input *inputs;
    uint32_t ninputs;
    guard *guards;
    uint32_t nguards, capguards;
};

/* ---- input paths from the pytree spec ---- */

typedef struct path_ctx {
    eir_guards *g;
    const eir_program *p;
    jdoc doc;
    uint32_t leaf;               /* next leaf index */
    bool ok;
} path_ctx;

/* The keys of a dict node's context ("[\"a\", 1]"), as Python reprs */
static const char **dict_keys(path_ctx *c, jv ctxv, uint32_t n) {
    const char **keys = eir_arena_array(&c->g->arena, n ? n : 1, sizeof *keys);
    if (!keys || jdoc_type(&c->doc, ctxv) != JT_STRING) return NULL;
    char *text = jdoc_str(&c->doc, ctxv, &c->g->arena, NULL, NULL);
    char err[128];
    jdoc d2;
    if (!text || !jdoc_parse(&d2, text, strlen(text), 16, err, sizeof err)) return NULL;
    jv root = 0;
    /* defaultdict: {"default_factory_module": ..., "dict_context": [...]} */
    if (jdoc_type(&d2, root) == JT_OBJECT) root = jdoc_get(&d2, root, "dict_context");
    bool ok = root != JV_NONE && jdoc_type(&d2, root) == JT_ARRAY && jdoc_size(&d2, root) == n;
    for (uint32_t i = 0; ok && i < n; i++) {
        jv k = jdoc_at(&d2, root, i);
        eir_buf b;
        eir_buf_init(&b);
        int64_t iv;
        if (jdoc_type(&d2, k) == JT_STRING) {
            char *s = jdoc_str(&d2, k, &c->g->arena, NULL, NULL);
            if (s) eir_buf_put_pyrepr_str(&b, s);
        } else if (jdoc_int(&d2, k, &iv)) {
            eir_buf_printf(&b, "%lld", (long long)iv);
        } else {
            ok = false;
        }
        keys[i] = b.data ? eir_arena_strdup(&c->g->arena, b.data) : NULL;
        eir_buf_free(&b);
        if (!keys[i]) ok = false;
    }
    jdoc_free(&d2);
    return ok ? keys : NULL;
}

/* A dataclass context ("[[\"x\", \"y\"], []]") or a namedtuple's fields: attribute names */
static const char **attr_names(path_ctx *c, const char *type, jv ctxv, uint32_t n) {
    const char **names = eir_arena_array(&c->g->arena, n ? n : 1, sizeof *names);
    if (!names) return NULL;
    if (!strcmp(type, "collections.namedtuple")) {
        char *t = jdoc_type(&c->doc, ctxv) == JT_STRING ? jdoc_str(&c->doc, ctxv, &c->g->arena, NULL, NULL) : NULL;
        for (uint32_t k = 0; t && k < c->p->num_namedtuple_fields; k++)
            if (!strcmp(c->p->namedtuple_fields[k].type, t) && c->p->namedtuple_fields[k].n == n) {
                for (uint32_t i = 0; i < n; i++) names[i] = c->p->namedtuple_fields[k].fields[i];
                return names;
            }
        return NULL;
    }
    if (jdoc_type(&c->doc, ctxv) != JT_STRING) return NULL;
    char *text = jdoc_str(&c->doc, ctxv, &c->g->arena, NULL, NULL);
    char err[128];
    jdoc d2;
    if (!text || !jdoc_parse(&d2, text, strlen(text), 16, err, sizeof err)) return NULL;
    jv first = jdoc_type(&d2, 0) == JT_ARRAY && jdoc_size(&d2, 0) >= 1 ? jdoc_at(&d2, 0, 0) : JV_NONE;
    bool ok = first != JV_NONE && jdoc_type(&d2, first) == JT_ARRAY && jdoc_size(&d2, first) == n;
    for (uint32_t i = 0; ok && i < n; i++) {
        jv k = jdoc_at(&d2, first, i);
        names[i] = jdoc_type(&d2, k) == JT_STRING ? jdoc_str(&d2, k, &c->g->arena, NULL, NULL) : NULL;
        if (!names[i]) ok = false;
    }
    jdoc_free(&d2);
    return ok ? names : NULL;
}

static void walk_spec(path_ctx *c, jv node, const char *prefix, int depth) {
    if (!c->ok) return;
    if (depth > 64 || jdoc_type(&c->doc, node) != JT_OBJECT) { c->ok = false; return; }
    jv type = jdoc_get(&c->doc, node, "type");
    jv kids = jdoc_get(&c->doc, node, "children_spec");
    jv ctxv = jdoc_get(&c->doc, node, "context");
    if (type == JV_NONE || jdoc_type(&c->doc, type) == JT_NULL) {
        if (c->leaf >= c->g->ninputs) { c->ok = false; return; }
        c->g->inputs[c->leaf++].path = prefix;
        return;
    }
    if (kids == JV_NONE || jdoc_type(&c->doc, kids) != JT_ARRAY || jdoc_type(&c->doc, type) != JT_STRING) { c->ok = false; return; }
    uint32_t n = jdoc_size(&c->doc, kids);
    const char **keys = NULL, **attrs = NULL;
    char *tname = jdoc_str(&c->doc, type, &c->g->arena, NULL, NULL);
    if (!tname) { c->ok = false; return; }
    bool seq = !strcmp(tname, "builtins.tuple") || !strcmp(tname, "builtins.list") ||
               !strcmp(tname, "torch.fx.immutable_collections.immutable_list");
    if (!seq) {
        if (!strcmp(tname, "builtins.dict") || !strcmp(tname, "collections.OrderedDict") ||
            !strcmp(tname, "collections.defaultdict") || !strcmp(tname, "torch.fx.immutable_collections.immutable_dict"))
            keys = dict_keys(c, ctxv, n);
        else
            attrs = attr_names(c, tname, ctxv, n);
    }
    for (uint32_t i = 0; i < n && c->ok; i++) {
        eir_buf b;
        eir_buf_init(&b);
        eir_buf_puts(&b, prefix);
        if (keys) eir_buf_printf(&b, "[%s]", keys[i]);
        else if (attrs) eir_buf_printf(&b, ".%s", attrs[i]);
        else eir_buf_printf(&b, "[%u]", i);
        const char *child = b.data ? eir_arena_strdup(&c->g->arena, b.data) : NULL;
        eir_buf_free(&b);
        if (!child) { c->ok = false; return; }
        walk_spec(c, jdoc_at(&c->doc, kids, i), child, depth + 1);
    }
}

/* torch binds the example inputs to the unlifted module's signature, whose
 * parameters are forward_arg_names: positional argument i is L['name_i'],
 * keyword argument k is L['k']. */
static bool spec_paths(eir_guards *g, const eir_program *p) {
    const eir_module_call *mc = NULL;
    for (uint32_t i = 0; i < p->num_module_calls; i++)
        if (p->module_calls[i].fqn && !p->module_calls[i].fqn[0] && p->module_calls[i].has_signature) mc = &p->module_calls[i];
    if (!mc || !mc->in_spec) return false;
    path_ctx c = {g, p, {0}, 0, true};
    char err[128];
    if (!jdoc_parse(&c.doc, mc->in_spec, strlen(mc->in_spec), 80, err, sizeof err)) return false;
    jv root = jdoc_type(&c.doc, 0) == JT_ARRAY && jdoc_size(&c.doc, 0) == 2 ? jdoc_at(&c.doc, 0, 1) : JV_NONE;
    jv kids = root != JV_NONE ? jdoc_get(&c.doc, root, "children_spec") : JV_NONE;
    if (kids == JV_NONE || jdoc_type(&c.doc, kids) != JT_ARRAY || jdoc_size(&c.doc, kids) != 2) { jdoc_free(&c.doc); return false; }
    jv args = jdoc_at(&c.doc, kids, 0), kwargs = jdoc_at(&c.doc, kids, 1);
    jv akids = jdoc_get(&c.doc, args, "children_spec"), kkids = jdoc_get(&c.doc, kwargs, "children_spec");
    if (akids == JV_NONE || kkids == JV_NONE || jdoc_type(&c.doc, akids) != JT_ARRAY || jdoc_type(&c.doc, kkids) != JT_ARRAY) {
        jdoc_free(&c.doc);
        return false;
    }
    uint32_t na = jdoc_size(&c.doc, akids), nk = jdoc_size(&c.doc, kkids);
    const char **kw = nk ? dict_keys(&c, jdoc_get(&c.doc, kwargs, "context"), nk) : NULL;
    if (nk && !kw) { jdoc_free(&c.doc); return false; }
    for (uint32_t i = 0; i < na && c.ok; i++) {
        eir_buf b;
        eir_buf_init(&b);
        eir_buf_puts(&b, "L[");
        if (mc->num_forward_arg_names > (int32_t)i) eir_buf_put_pyrepr_str(&b, mc->forward_arg_names[i]);
        else eir_buf_printf(&b, "'args_%u'", i);
        eir_buf_putc(&b, ']');
        const char *pre = b.data ? eir_arena_strdup(&g->arena, b.data) : NULL;
        eir_buf_free(&b);
        if (!pre) { c.ok = false; break; }
        walk_spec(&c, jdoc_at(&c.doc, akids, i), pre, 0);
    }
    for (uint32_t i = 0; i < nk && c.ok; i++) {
        char *pre = eir_arena_array(&g->arena, strlen(kw[i]) + 4, 1);
        if (!pre) { c.ok = false; break; }
        sprintf(pre, "L[%s]", kw[i]);
        walk_spec(&c, jdoc_at(&c.doc, kkids, i), pre, 0);
    }
    bool ok = c.ok && c.leaf == g->ninputs;
    jdoc_free(&c.doc);
    return ok;
}

/* ---- building ---- */

typedef struct build {
    eir_guards *g;
    const eir_program *p;
    char *err;
    size_t errlen;
    /* torch's `sources`: the first input dim seen with each expression */
    const char **src_expr, **src_text;
    uint32_t nsrc;
    /* deferred single-symbol expressions and the unification map */
    struct { const char *src; uint32_t expr; } *deferred;
    uint32_t ndeferred;
    struct { const char *sym; int64_t num, den; const char *src; int64_t off; } *unify; /* sym = (src - off) * den / num ... */
    uint32_t nunify;
} build;

static const eir_range *range_of(const eir_program *p, const char *expr_str) {
    for (uint32_t i = 0; i < p->num_ranges; i++)
        if (!strcmp(p->ranges[i].symbol, expr_str)) return &p->ranges[i];
    return NULL;
}

static bool chain_to_input(void *ctx, const char *chain, int what, int64_t dim, uint32_t *ref, char *err, size_t errlen) {
    eir_guards *g = ctx;
    (void)dim;
    for (uint32_t i = 0; i < g->ninputs; i++) {
        if (!g->inputs[i].path || strcmp(g->inputs[i].path, chain)) continue;
        const eir_value *v = g->inputs[i].value;
        bool tensor = v && v->kind == EIR_VALUE_TENSOR;
        if ((what == EIR_PY_VALUE) == tensor || !v) {
            snprintf(err, errlen, "%s is %s", chain, !v ? "a constant burned into the program" : tensor ? "a tensor" : "not a tensor");
            return false;
        }
        *ref = i;
        return true;
    }
    snprintf(err, errlen, "%s is not an input of the program", chain);
    return false;
}

static bool add_guard(build *b, const char *code) {
    eir_guards *g = b->g;
    if (g->nguards == g->capguards) {
        uint32_t cap = g->capguards ? g->capguards * 2 : 16;
        guard *ng = realloc(g->guards, cap * sizeof *ng);
        if (!ng) { snprintf(b->err, b->errlen, "out of memory"); return false; }
        g->guards = ng;
        g->capguards = cap;
    }
    char perr[512];
    eir_py_node *tree = eir_py_parse(&g->arena, code, perr, sizeof perr);
    if (!tree) { snprintf(b->err, b->errlen, "guard %u: %s", g->nguards, perr); return false; }
    eir_buf sb;
    eir_buf_init(&sb);
    eir_py_unparse(&sb, tree, true);
    const char *shown = sb.data ? eir_arena_strdup(&g->arena, sb.data) : NULL;
    eir_buf_free(&sb);
    const char *c = eir_arena_strdup(&g->arena, code);
    if (!shown || !c) { snprintf(b->err, b->errlen, "out of memory"); return false; }
    if (!eir_py_resolve(&g->arena, &tree, chain_to_input, g, perr, sizeof perr)) {
        snprintf(b->err, b->errlen, "guard '%s': %s", code, perr);
        return false;
    }
    g->guards[g->nguards++] = (guard){c, shown, tree};
    return true;
}

static bool add_guardf(build *b, const char *fmt, ...) EIR_PRINTF(2, 3);
static bool add_guardf(build *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    eir_buf t;
    eir_buf_init(&t);
    eir_buf_vprintf(&t, fmt, ap);
    va_end(ap);
    bool ok = t.data && add_guard(b, t.data);
    if (!t.data) snprintf(b->err, b->errlen, "out of memory");
    eir_buf_free(&t);
    return ok;
}

/* the free symbols of a tree, up to max; returns how many (capped at max + 1) */
static uint32_t free_symbols(const eir_sym_node *n, const char **out, uint32_t cnt, uint32_t max) {
    if (n->kind == EIR_SYM_SYMBOL) {
        for (uint32_t i = 0; i < cnt && i < max; i++)
            if (!strcmp(out[i], n->name)) return cnt;
        if (cnt < max) out[cnt] = n->name;
        return cnt + 1;
    }
    for (uint32_t i = 0; i < n->nargs && cnt <= max; i++) cnt = free_symbols(n->args[i], out, cnt, max);
    return cnt;
}

/* a*s + b with integer a != 0, b: the only forms solved (as torch's try_solve does for sizes) */
static bool linear_form(const eir_sym_node *n, const char *sym, int64_t *a, int64_t *b) {
    *a = 0;
    *b = 0;
    const eir_sym_node *terms[2] = {n, NULL};
    uint32_t nt = 1;
    if (n->kind == EIR_SYM_CALL && !strcmp(n->name, "Add")) {
        if (n->nargs != 2) return false;
        terms[0] = n->args[0];
        terms[1] = n->args[1];
        nt = 2;
    }
    for (uint32_t i = 0; i < nt; i++) {
        const eir_sym_node *t = terms[i];
        if (t->kind == EIR_SYM_INTEGER) { *b += t->ival; continue; }
        if (t->kind == EIR_SYM_SYMBOL && !strcmp(t->name, sym)) { *a += 1; continue; }
        if (t->kind == EIR_SYM_CALL && !strcmp(t->name, "Mul") && t->nargs == 2 && t->args[0]->kind == EIR_SYM_INTEGER &&
            t->args[1]->kind == EIR_SYM_SYMBOL && !strcmp(t->args[1]->name, sym)) {
            *a += t->args[0]->ival;
            continue;
        }
        return false;
    }
    return *a != 0;
}

/* torch's handle_symint */
static bool handle_symint(build *b, uint32_t expr, const char *src) {
    const eir_program *p = b->p;
    const char *estr = p->exprs[expr].str;
    const char *syms[2];
    if (free_symbols(p->exprs[expr].tree, syms, 0, 1) == 1) {
        b->deferred[b->ndeferred].src = src;
        b->deferred[b->ndeferred].expr = expr;
        b->ndeferred++;
    }
    for (uint32_t i = 0; i < b->nsrc; i++)
        if (!strcmp(b->src_expr[i], estr)) return add_guardf(b, "%s == %s", src, b->src_text[i]);
    b->src_expr[b->nsrc] = estr;
    b->src_text[b->nsrc] = src;
    b->nsrc++;
    const eir_range *r = range_of(p, estr);
    if (r && r->has_min && r->min > 2 && !add_guardf(b, "%s >= %lld", src, (long long)r->min)) return false;
    if (r && r->has_max && !add_guardf(b, "%s <= %lld", src, (long long)r->max)) return false;
    return true;
}

/* Print c*X + d (X a source text) as sympy's PythonPrinter orders it: the
 * constant first ("-2 + 2*L['w'].size()[0]") */
static void print_linear(eir_buf *t, int64_t num, int64_t den, const char *x, int64_t cnum, int64_t cden) {
    bool has_c = cnum != 0;
    if (has_c) {
        if (cden == 1) eir_buf_printf(t, "%lld", (long long)cnum);
        else eir_buf_printf(t, "%lld/%lld", (long long)cnum, (long long)cden);
        eir_buf_puts(t, " + ");
    }
    if (den == 1) {
        if (num == 1) eir_buf_printf(t, "%s", x);
        else if (num == -1) eir_buf_printf(t, "-%s", x);
        else eir_buf_printf(t, "%lld*%s", (long long)num, x);
    } else {
        eir_buf_printf(t, "(%lld/%lld)*%s", (long long)num, (long long)den, x);
    }
}

static int64_t gcd64(int64_t a, int64_t b) {
    if (a < 0) a = -a;
    if (b < 0) b = -b;
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a ? a : 1;
}

static bool deferred_guards(build *b) {
    const eir_program *p = b->p;
    for (uint32_t k = 0; k < b->ndeferred; k++) {
        const char *src = b->deferred[k].src;
        const eir_sym_node *e = p->exprs[b->deferred[k].expr].tree;
        const char *sym;
        free_symbols(e, &sym, 0, 1);
        bool direct = false;
        for (uint32_t i = 0; i < b->nsrc; i++)
            if (!strcmp(b->src_expr[i], sym)) direct = true;
        if (direct) continue;  /* s0 comes straight from an input: its ranges were checked there */
        int64_t a, c;
        if (!linear_form(e, sym, &a, &c)) continue;   /* torch's solver gives up too */
        uint32_t u;
        for (u = 0; u < b->nunify; u++)
            if (!strcmp(b->unify[u].sym, sym)) break;
        if (u < b->nunify) {
            /* s = (X - off) / den0 (den0 = the first input's coefficient); here a*s + c */
            int64_t den0 = b->unify[u].den, off = b->unify[u].off;
            /* a*(X - off)/den0 + c = (a/den0)*X + (c - a*off/den0) */
            int64_t num = a, den = den0, g1 = gcd64(num, den);
            num /= g1; den /= g1;
            if (den < 0) { num = -num; den = -den; }
            int64_t cn = c * den0 - a * off, cd = den0, g2 = gcd64(cn, cd);
            cn /= g2; cd /= g2;
            if (cd < 0) { cn = -cn; cd = -cd; }
            eir_buf t;
            eir_buf_init(&t);
            print_linear(&t, num, den, b->unify[u].src, cn, cd);
            eir_buf_printf(&t, " == %s", src);
            bool ok = t.data && add_guard(b, t.data);
            eir_buf_free(&t);
            if (!ok) return false;
        } else {
            b->unify[b->nunify].sym = sym;
            b->unify[b->nunify].src = src;
            b->unify[b->nunify].den = a;
            b->unify[b->nunify].off = c;
            b->nunify++;
        }
    }
    return true;
}

/* torch's _force_ep_signature_match, then its _force_gm_signature_match.
 * A program exported with strict=True writes its guards over the flattened
 * user inputs, L['flat_args'][i]; ep.module() rewrites each into the i-th
 * input's path (L['x'], L['p'].x, L['xs'][1]['a']) before it builds its guard
 * function, so its messages name the inputs as the user does; eir does the
 * same; an index past the inputs is an error naming it.
 * Then L['args'][0] -> L['args_0'] when the module's parameters were
 * flattened that way. */
static char *match_signature(eir_guards *g, const eir_program *p, const char *code, char *err, size_t errlen) {
    eir_buf b;
    eir_buf_init(&b);
    const char *q = code;
    static const char FLAT[] = "L['flat_args'][";
    while (*q) {
        const char *hit = strstr(q, "L['");
        if (!hit) { eir_buf_puts(&b, q); break; }
        eir_buf_putn(&b, q, (size_t)(hit - q));
        if (!strncmp(hit, FLAT, sizeof FLAT - 1) && hit[sizeof FLAT - 1] >= '0' && hit[sizeof FLAT - 1] <= '9') {
            const char *num = hit + sizeof FLAT - 1, *ne = num;
            uint64_t idx = 0;
            while (*ne >= '0' && *ne <= '9' && idx < UINT32_MAX) idx = idx * 10 + (uint64_t)(*ne++ - '0');
            if (*ne == ']') {
                if (idx >= g->ninputs || !g->inputs[idx].path) {
                    snprintf(err, errlen, "guard '%s': %.*s is not an input of the program (it has %u user inputs)", code,
                             (int)(ne + 1 - hit), hit, g->ninputs);
                    eir_buf_free(&b);
                    return NULL;
                }
                eir_buf_puts(&b, g->inputs[idx].path);
                q = ne + 1;
                continue;
            }
        }
        const char *name = hit + 3, *end = strchr(name, '\'');
        bool done = false;
        if (end && end[1] == ']' && end[2] == '[' && end[3] >= '0' && end[3] <= '9') {
            const char *num = end + 3, *ne = num;
            while (*ne >= '0' && *ne <= '9') ne++;
            if (*ne == ']') {
                char flat[256];
                snprintf(flat, sizeof flat, "%.*s_%.*s", (int)(end - name), name, (int)(ne - num), num);
                for (const eir_module_call *mc = p->module_calls; mc < p->module_calls + p->num_module_calls && !done; mc++)
                    for (int32_t i = 0; mc->fqn && !mc->fqn[0] && i < mc->num_forward_arg_names && !done; i++)
                        if (!strcmp(mc->forward_arg_names[i], flat)) {
                            eir_buf_printf(&b, "L['%s']", flat);
                            q = ne + 1;
                            done = true;
                        }
            }
        }
        if (!done) { eir_buf_puts(&b, "L['"); q = hit + 3; }
    }
    char *r = b.data ? eir_arena_strdup(&g->arena, b.data) : eir_arena_strdup(&g->arena, "");
    eir_buf_free(&b);
    return r;
}

eir_guards *eir_guards_build(const eir_program *p, char *err, size_t errlen) {
    eir_guards *g = calloc(1, sizeof *g);
    if (!g) { snprintf(err, errlen, "out of memory"); return NULL; }
    eir_arena_init(&g->arena);
    err[0] = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->num_input_specs; i++)
        if (p->input_specs[i].kind == EIR_IN_USER_INPUT || p->input_specs[i].kind == EIR_IN_CONSTANT_INPUT) n++;
    g->inputs = eir_arena_array(&g->arena, n ? n : 1, sizeof *g->inputs);
    if (!g->inputs) goto oom;
    for (uint32_t i = 0; i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if (s->kind != EIR_IN_USER_INPUT && s->kind != EIR_IN_CONSTANT_INPUT) continue;
        user_input *u = &g->inputs[g->ninputs++];
        const eir_arg *a = &p->graph->inputs[i];
        u->name = s->kind == EIR_IN_CONSTANT_INPUT ? s->target : a->name;
        if (s->kind == EIR_IN_USER_INPUT && (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_SYM_INT) && a->value != EIR_NO_VALUE)
            u->value = &p->graph->values[a->value];
    }
    if (!spec_paths(g, p)) {
        /* no usable pytree spec: name inputs as the graph does */
        for (uint32_t i = 0; i < g->ninputs; i++) {
            char *t = eir_arena_array(&g->arena, strlen(g->inputs[i].name ? g->inputs[i].name : "") + 8, 1);
            if (!t) goto oom;
            sprintf(t, "L['%s']", g->inputs[i].name ? g->inputs[i].name : "");
            g->inputs[i].path = t;
        }
    }
    for (uint32_t i = 0; i < g->ninputs; i++) {
        /* L['p'].x -> p.x: the form torch's messages use */
        const char *path = g->inputs[i].path;
        char *shown = eir_arena_array(&g->arena, strlen(path) + 1, 1);
        if (!shown) goto oom;
        const char *q = strchr(path, ']');
        if (!strncmp(path, "L['", 3) && q && q > path + 3 && q[-1] == '\'')
            sprintf(shown, "%.*s%s", (int)(q - 1 - (path + 3)), path + 3, q + 1);
        else
            strcpy(shown, path);
        g->inputs[i].shown = shown;
    }

    uint32_t ndims = 1;
    for (uint32_t i = 0; i < g->ninputs; i++)
        ndims += g->inputs[i].value && g->inputs[i].value->kind == EIR_VALUE_TENSOR ? g->inputs[i].value->meta.rank : 1;
    build b = {g, p, err, errlen, NULL, NULL, 0, NULL, 0, NULL, 0};
    b.src_expr = eir_arena_array(&g->arena, ndims, sizeof *b.src_expr);
    b.src_text = eir_arena_array(&g->arena, ndims, sizeof *b.src_text);
    b.deferred = eir_arena_array(&g->arena, ndims, sizeof *b.deferred);
    b.unify = eir_arena_array(&g->arena, ndims, sizeof *b.unify);
    if (!b.src_expr || !b.src_text || !b.deferred || !b.unify) goto oom;
    for (uint32_t i = 0; i < g->ninputs; i++) {
        const eir_value *v = g->inputs[i].value;
        if (!v) continue;  /* burned-in constants take no data: the runtime refuses values for them */
        const char *path = g->inputs[i].path;
        if (v->kind == EIR_VALUE_SYM_INT) {
            if (v->sym.is_expr && range_of(p, p->exprs[v->sym.expr].str) && !handle_symint(&b, v->sym.expr, path)) goto fail;
            continue;
        }
        if (v->kind != EIR_VALUE_TENSOR) continue;
        for (uint32_t d = 0; d < v->meta.rank; d++) {
            const eir_symint *si = &v->meta.sizes[d];
            char *src = eir_arena_array(&g->arena, strlen(path) + 32, 1);
            if (!src) goto oom;
            sprintf(src, "%s.size()[%u]", path, d);
            if (!si->is_expr) {
                if (!add_guardf(&b, "%s == %lld", src, (long long)si->value)) goto fail;
            } else if (range_of(p, p->exprs[si->expr].str)) {
                if (!handle_symint(&b, si->expr, src)) goto fail;
            }
        }
    }
    if (!deferred_guards(&b)) goto fail;
    for (uint32_t i = 0; i < p->num_guards_code; i++) {
        const char *code = match_signature(g, p, p->guards_code[i], err, errlen);
        if (!code) { if (err[0]) goto fail; goto oom; }
        if (!add_guard(&b, code)) goto fail;
    }
    return g;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    eir_guards_free(g);
    return NULL;
}

void eir_guards_free(eir_guards *g) {
    if (!g) return;
    free(g->guards);
    eir_arena_release(&g->arena);
    free(g);
}

const char *eir_guards_path(const eir_guards *g, uint32_t i) { return i < g->ninputs ? g->inputs[i].shown : NULL; }
uint32_t eir_guards_count(const eir_guards *g) { return g->nguards; }
const char *eir_guards_text(const eir_guards *g, uint32_t k) { return k < g->nguards ? g->guards[k].shown : NULL; }

/* ---- checking ---- */

typedef struct check_ctx {
    const eir_guards *g;
    const eir_guard_input *in;
} check_ctx;

static bool read_source(void *ctx, const eir_py_node *n, eir_sym_value *out, char *err, size_t errlen) {
    const check_ctx *c = ctx;
    const eir_guard_input *in = &c->in[n->ref];
    const char *shown = c->g->inputs[n->ref].shown;
    if (!in->is_set) { snprintf(err, errlen, "input %s was not set", shown); return false; }
    int64_t v = 0;
    if (n->what == EIR_PY_VALUE) {
        v = in->value;
    } else if (n->what == EIR_PY_STORAGE_OFFSET) {
        v = 0;
    } else {
        if (n->i < 0 || (uint64_t)n->i >= in->rank) {
            /* what Python raises indexing x.size() past the rank */
            snprintf(err, errlen, "%s has %u dims; %s()[%lld]: tuple index out of range", shown, in->rank,
                     n->what == EIR_PY_SIZE ? "size" : "stride", (long long)n->i);
            return false;
        }
        if (n->what == EIR_PY_SIZE) v = in->sizes[n->i];
        else if (in->strides) v = in->strides[n->i];
        else {
            v = 1;
            for (uint32_t d = (uint32_t)n->i + 1; d < in->rank; d++) v *= in->sizes[d];
        }
    }
    *out = (eir_sym_value){false, v, (double)v};
    return true;
}

/* "x.size()[0] = 65, y.size()[0] = 4": the values of a guard's accessors */
static void list_values(eir_buf *b, const eir_py_node *n, const check_ctx *c, const char **seen, uint32_t *nseen) {
    if (n->kind == EIR_PY_SOURCE) {
        eir_buf t;
        eir_buf_init(&t);
        eir_py_unparse(&t, n, true);
        bool dup = false;
        for (uint32_t i = 0; i < *nseen && t.data; i++)
            if (!strcmp(seen[i], t.data)) dup = true;
        eir_sym_value v;
        char err[64];
        if (t.data && !dup && *nseen < 16 && read_source((void *)c, n, &v, err, sizeof err)) {
            eir_buf_printf(b, "%s%s = %lld", *nseen ? ", " : "", t.data, (long long)v.i);
            seen[(*nseen)++] = eir_buf_take(&t);
        }
        eir_buf_free(&t);
        return;
    }
    for (uint32_t i = 0; i < n->n; i++) list_values(b, n->kids[i], c, seen, nseen);
}

/* The input a failed guard is about: the last one it reads. torch checks
 * inputs in order, so a relation fails on the later input
 * ("y.size()[0] == x.size()[0]" is about y, "-2 + 2 * w.size()[0] ==
 * z.size()[0]" about z). */
static const eir_py_node *last_source(const eir_py_node *n) {
    const eir_py_node *best = n->kind == EIR_PY_SOURCE ? n : NULL;
    for (uint32_t i = 0; n->kind != EIR_PY_SOURCE && i < n->n; i++) {
        const eir_py_node *s = last_source(n->kids[i]);
        if (s && (!best || s->ref > best->ref)) best = s;
    }
    return best;
}

bool eir_guards_check(const eir_guards *g, const eir_guard_input *inputs, char *err, size_t errlen) {
    check_ctx c = {g, inputs};
    for (uint32_t k = 0; k < g->nguards; k++) {
        const guard *gd = &g->guards[k];
        eir_sym_value v;
        char why[256];
        bool ok = eir_py_eval(gd->tree, read_source, &c, &v, why, sizeof why);
        if (ok && (v.is_float ? v.f != 0 : v.i != 0)) continue;
        const eir_py_node *s = last_source(gd->tree);
        uint32_t who = s ? s->ref : 0;
        const char *name = who < g->ninputs && g->inputs[who].name ? g->inputs[who].name : "?";
        const char *shown = who < g->ninputs ? g->inputs[who].shown : "?";
        char lab[512];
        if (strcmp(name, shown)) snprintf(lab, sizeof lab, "input %u '%s' (%s)", who, name, shown);
        else snprintf(lab, sizeof lab, "input %u '%s'", who, name);
        if (!ok) {
            snprintf(err, errlen, "%s: cannot check the guard %s: %s", lab, gd->shown, why);
            return false;
        }
        eir_buf vals;
        eir_buf_init(&vals);
        const char *seen[16];
        uint32_t nseen = 0;
        list_values(&vals, gd->tree, &c, seen, &nseen);
        for (uint32_t i = 0; i < nseen; i++) free((void *)seen[i]);
        snprintf(err, errlen, "%s: Guard failed: %s (%s)", lab, gd->shown, vals.data ? vals.data : "");
        eir_buf_free(&vals);
        return false;
    }
    return true;
}
