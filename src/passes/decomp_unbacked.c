/* decomp_unbacked.c — to-core rules whose decomposition reads tensor
 * values into new unbacked symbols, as torch's does:
 *   tensor_split(x, t, dim) with a 1-d int64 tensor t of n split points
 *       -> slice(t, 0, k, k+1) for each k, then squeeze.dims(.., [0]) of
 *          each, then _local_scalar_dense of each (t[k].item(): a new
 *          unbacked symbol, unbounded, named as run_decompositions() names
 *          it), then per part slice(x, dim, start, end) with start 0 or the
 *          previous point and end the next point or x's size there; the
 *          part's sizes and storage offset are the original outputs'
 *          (u3, ...). The runtime assertions on those symbols that follow
 *          the node (sym_size / sym_storage_offset of a part, the
 *          comparisons, _assert_scalar) move after the slice they check,
 *          reading it, which is where torch's retrace puts them. With no
 *          split points: one slice(x, dim, 0, size).
 * Refused: a 0-d tensor of sections (the number of parts would be the
 * tensor's value: torch cannot export or decompose that either), a tensor
 * of symbolic length, a split dimension of symbolic size (torch's slices
 * then end at sym_size of x and the assertions compare with it), the op
 * inside a nested graph (the numbering of new symbols there is not
 * modelled). */
#include <stdio.h>
#include <string.h>

#include "decomp_int.h"
#include "../ir/edit.h"

#define TS_MAX 128       /* split points handled */
#define BLOCK_MAX 1024   /* assertion nodes after the node */

/* n's target is t (operator.x also as _operator.x, as pt2 files spell it) */
static bool target_is(const eir_node *n, const char *t) {
    if (!n->target) return false;
    if (!strcmp(n->target, t)) return true;
    return !strncmp(t, "operator.", 9) && n->target[0] == '_' && !strcmp(n->target + 1, t);
}

/* reads a size, stride, offset or numel of a tensor */
static bool is_sym_read(const eir_node *n) {
    return target_is(n, "torch.ops.aten.sym_size.int") || target_is(n, "torch.ops.aten.sym_storage_offset.default") ||
           target_is(n, "torch.ops.aten.sym_stride.int") || target_is(n, "torch.ops.aten.sym_numel.default");
}

static bool is_check(const eir_node *n) {
    static const char *const T[] = {"torch.ops.aten._assert_scalar.default", "operator.ge", "operator.le", "operator.gt",
                                    "operator.lt", "operator.eq", "operator.ne"};
    for (size_t i = 0; i < sizeof T / sizeof *T; i++)
        if (target_is(n, T[i])) return true;
    return false;
}

/* The runtime assertions after the node: nodes [c->node + 1, + *nb) read
 * sizes or check them. part[j]: the part whose symbols block node j reads
 * (sym reads of output i; checks of the values of such nodes: the highest
 * part), -1 when it reads none (it stays where it is). */
static eir_status assertion_block(dc *c, const uint32_t *outs, uint32_t nparts, int32_t *part, uint32_t *nb) {
    const eir_graph *g = c->g;
    uint32_t start = c->node + 1, n = 0;
    while (start + n < g->num_nodes && n < BLOCK_MAX) {
        const eir_node *nd = &g->nodes[start + n];
        if (!is_sym_read(nd) && !is_check(nd)) break;
        n++;
    }
    for (uint32_t j = 0; j < n; j++) {
        const eir_node *nd = &g->nodes[start + j];
        part[j] = -1;
        if (is_sym_read(nd)) {
            const eir_arg *a = nd->num_inputs ? &nd->inputs[0].arg : NULL;
            for (uint32_t i = 0; a && a->kind == EIR_ARG_TENSOR && i < nparts; i++)
                if (a->value == outs[i]) part[j] = (int32_t)i;
            continue;
        }
        bool stays = false;
        for (uint32_t k = 0; k < nd->num_inputs; k++) {
            const eir_arg *a = &nd->inputs[k].arg;
            if ((a->kind != EIR_ARG_SYM_INT && a->kind != EIR_ARG_SYM_BOOL) || a->literal || a->value >= g->num_values)
                continue;
            int32_t pr = g->values[a->value].producer;
            if (pr < (int32_t)start || pr >= (int32_t)(start + j)) continue;
            if (part[pr - start] < 0) stays = true;
            else if (part[pr - start] > part[j]) part[j] = part[pr - start];
        }
        if (stays && part[j] >= 0)
            return dc_refuse(c, "the runtime assertion %s reads both a part's size and a value that does not",
                             nd->name ? nd->name : "?");
    }
    *nb = n;
    return EIR_OK;
}

/* ---- the names torch's retrace gives the assertion nodes ---- */

/* run_decompositions() traces the graph anew, naming every node afresh in
 * trace order (the original's sym_size / comparison nodes among them), then
 * the pass that re-inserts runtime assertions after the nodes that bind
 * their symbols makes new ones, named past those: past as many of each
 * name as the graph has, and for `ge` past one more per .item() read
 * (made and dropped while tracing it); the _assert_scalar nodes keep their
 * names. The rule renames the assertion nodes it moves so; the other
 * assertion nodes of the graph keep theirs (torch renumbers those too). */
static const char *const RETRACE_BASE[RETRACE_NAMES] = {
    "sym_size_int", "sym_storage_offset_default", "sym_stride_int", "sym_numel_default", "ge", "le", "gt", "lt", "eq",
    "ne"};

/* index of name's base in RETRACE_BASE, *k its suffix (0 for none) */
static int retrace_base(const char *name, uint32_t *k) {
    for (int b = 0; b < RETRACE_NAMES; b++) {
        size_t n = strlen(RETRACE_BASE[b]);
        if (strncmp(name, RETRACE_BASE[b], n)) continue;
        if (!name[n]) { *k = 0; return b; }
        if (name[n] != '_' || !name[n + 1]) continue;
        uint64_t v = 0;
        const char *q = name + n + 1;
        for (; *q >= '0' && *q <= '9' && v < UINT32_MAX; q++) v = v * 10 + (uint64_t)(*q - '0');
        if (*q || v >= UINT32_MAX) continue;
        *k = (uint32_t)v;
        return b;
    }
    return -1;
}

void decomp_retrace_names(const eir_program *p, unbacked_plan *u) {
    const eir_graph *g = p->graph;
    for (int b = 0; b < RETRACE_NAMES; b++) u->next_name[b] = 0;
    uint32_t reads = u->planned;
    for (uint32_t i = 0; i < g->num_nodes; i++) {
        uint32_t k;
        int b = g->nodes[i].name ? retrace_base(g->nodes[i].name, &k) : -1;
        if (b >= 0) u->next_name[b]++;
        if (target_is(&g->nodes[i], "torch.ops.aten.item.default") ||
            target_is(&g->nodes[i], "torch.ops.aten._local_scalar_dense.default"))
            reads++;
    }
    u->next_name[4] += reads;
}

/* Rename node `at` (one output, a SymInt or SymBool) as the retrace would,
 * with its readers' arguments, and the node named in the message of an
 * _assert_scalar reading it. */
static eir_status retrace_rename(dc *c, uint32_t at) {
    eir_node *nd = (eir_node *)&c->g->nodes[at];
    uint32_t k;
    int b = nd->name ? retrace_base(nd->name, &k) : -1;
    if (b < 0 || !c->unb || nd->num_outputs != 1 || nd->outputs[0].kind == EIR_ARG_TENSOR ||
        !eir_arg_names_value(&nd->outputs[0]))
        return EIR_OK;
    uint32_t v = nd->outputs[0].value, n = c->unb->next_name[b]++;
    char buf[64];
    if (n) snprintf(buf, sizeof buf, "%s_%u", RETRACE_BASE[b], n);
    else snprintf(buf, sizeof buf, "%s", RETRACE_BASE[b]);
    for (uint32_t i = 0; i < c->g->num_nodes; i++)
        if (c->g->nodes[i].name && !strcmp(c->g->nodes[i].name, buf)) return EIR_OK; /* taken: keep the name */
    const char *old = nd->name, *name = eir_arena_strdup(&c->p->arena, buf);
    if (!name) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
    nd->name = name;
    ((eir_arg *)&nd->outputs[0])->name = name;
    ((eir_value *)&c->g->values[v])->name = name;
    char was[80];
    snprintf(was, sizeof was, "'%s'", old);
    for (uint32_t i = at + 1; i < c->g->num_nodes; i++) {
        eir_node *u = (eir_node *)&c->g->nodes[i];
        bool reads = false;
        for (uint32_t j = 0; j < u->num_inputs; j++) {
            eir_arg *a = (eir_arg *)&u->inputs[j].arg;
            if (eir_arg_names_value(a) && a->kind != EIR_ARG_TENSOR && a->value == v) a->name = name, reads = true;
        }
        /* "Runtime assertion failed for expression u3 >= 0 on node 'ge'" */
        if (!reads || !target_is(u, "torch.ops.aten._assert_scalar.default") || u->num_inputs < 2 ||
            u->inputs[1].arg.kind != EIR_ARG_STRING)
            continue;
        const char *msg = u->inputs[1].arg.u.s;
        size_t lm = strlen(msg), lw = strlen(was);
        if (lm < lw || strcmp(msg + lm - lw, was)) continue;
        eir_buf nb;
        eir_buf_init(&nb);
        eir_buf_printf(&nb, "%.*s'%s'", (int)(lm - lw), msg, name);
        const char *nm = nb.data ? eir_arena_strdup(&c->p->arena, nb.data) : NULL;
        eir_buf_free(&nb);
        if (!nm) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
        ((eir_arg *)&u->inputs[1].arg)->u.s = nm;
    }
    return EIR_OK;
}

static uint32_t node_named(const eir_graph *g, uint32_t from, const char *name) {
    for (uint32_t i = from; i < g->num_nodes; i++)
        if (g->nodes[i].name && !strcmp(g->nodes[i].name, name)) return i;
    return UINT32_MAX;
}

eir_status decomp_tensor_split_tensor(dc *c) {
    uint32_t x = dc_tensor_of(c, "self"), t = dc_tensor_of(c, "tensor_indices_or_sections");
    if (x == EIR_NO_VALUE || t == EIR_NO_VALUE)
        return dc_refuse(c, "arguments 'self', 'tensor_indices_or_sections': expected tensors");
    if (c->g != c->p->graph)
        return dc_refuse(c, "inside a nested graph: the numbering of the unbacked symbols its decomposition creates "
                         "is not modelled there");
    const eir_tensor_meta *xm = meta_of(c, x), *tmeta = meta_of(c, t);
    if (tmeta->rank == 0)
        return dc_refuse(c, "a 0-d tensor of sections: the number of parts is the tensor's value, which torch's "
                         "decomposition (tensor_split(x, t.item())) cannot trace either");
    if (tmeta->rank != 1) return dc_refuse(c, "a tensor of split points of rank %u (expected 0 or 1)", tmeta->rank);
    if (tmeta->dtype != EIR_I64) return dc_refuse(c, "a tensor of split points of dtype other than int64");
    if (tmeta->sizes[0].is_expr) return dc_refuse(c, "a tensor of split points of symbolic length");
    int64_t n = tmeta->sizes[0].value, dim = 0;
    if (n > TS_MAX) return dc_refuse(c, "more than %d split points", TS_MAX);
    const eir_arg *da = dc_arg_named(c, "dim");
    if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (xm->rank == 0) return dc_refuse(c, "a 0-d input");
    dim = wrap_dim(dim, xm->rank);
    if (dim < 0 || dim >= (int64_t)xm->rank) return dc_refuse(c, "dimension out of range");
    if (xm->sizes[dim].is_expr)
        return dc_refuse(c, "a split dimension of symbolic size (torch's last slice ends at sym_size of the input and "
                         "its assertions compare with it, which this rule does not build)");
    int64_t len = xm->sizes[dim].value;
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSORS || c->src.outputs[0].u.list.n != (uint32_t)n + 1)
        return dc_refuse(c, "expected %lld tensors as output", (long long)n + 1);
    uint32_t outs[TS_MAX + 1];
    for (int64_t i = 0; i <= n; i++) {
        outs[i] = c->src.outputs[0].u.list.items[i].value;
        if (outs[i] >= c->g->num_values || c->g->values[outs[i]].kind != EIR_VALUE_TENSOR ||
            meta_of(c, outs[i])->rank != xm->rank)
            return dc_refuse(c, "output %lld: expected a tensor of the input's rank", (long long)i);
    }
    int32_t part[BLOCK_MAX];
    uint32_t nb = 0;
    eir_status st = assertion_block(c, outs, (uint32_t)n + 1, part, &nb);
    if (st) return st;
    if (c->dry) {
        dc_plan_unbacked(c, (uint32_t)n);
        return EIR_OK;
    }
    /* the block's nodes by name (indices shift as nodes move) */
    const char *names[BLOCK_MAX];
    for (uint32_t j = 0; j < nb; j++) {
        names[j] = c->g->nodes[c->node + 1 + j].name;
        if (!names[j]) return eir_fail(c->p, EIR_ERR_GRAPH, "to-core: a runtime assertion node without a name");
    }
    /* t[k].item() for every k: unbind (slices, then squeezes), then the reads */
    uint32_t sl[TS_MAX], sq[TS_MAX], pt[TS_MAX];
    for (int64_t k = 0; k < n; k++) {
        eir_named_arg si_[4] = {pos_arg("self", a_tensor(t)), pos_arg("dim", a_int(0)), pos_arg("start", a_int(k)),
                                pos_arg("end", a_int(k + 1))};
        if ((st = sh_emit(c, "slice.Tensor", 4, si_, NULL, &sl[k]))) return st;
    }
    for (int64_t k = 0; k < n; k++) {
        int64_t zero = 0;
        eir_named_arg qi[2] = {pos_arg("self", a_tensor(sl[k])), pos_arg("dim", dc_a_ints(c, &zero, 1))};
        if ((st = sh_emit(c, "squeeze.dims", 2, qi, NULL, &sq[k]))) return st;
    }
    for (int64_t k = 0; k < n; k++)
        if ((st = dc_emit_local_scalar(c, sq[k], &pt[k]))) return st;
    /* the parts, each followed by the assertions on its symbols */
    uint32_t res[TS_MAX + 1];
    for (int64_t i = 0; i <= n; i++) {
        eir_arg start = a_int(0), end = a_int(len);
        if (i > 0) start = (eir_arg){.kind = EIR_ARG_SYM_INT, .value = pt[i - 1]};
        if (i < n) end = (eir_arg){.kind = EIR_ARG_SYM_INT, .value = pt[i]};
        eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("start", start),
                                pos_arg("end", end)};
        if ((st = dc_emit(c, "slice.Tensor", 4, si_, meta_of(c, outs[i]), "slice", &res[i]))) return st;
        for (uint32_t j = 0; j < nb; j++) {
            if (part[j] != (int32_t)i) continue;
            uint32_t at = node_named(c->g, c->node + 1, names[j]);
            if (at == UINT32_MAX) return eir_fail(c->p, EIR_ERR_GRAPH, "to-core: lost the node %s", names[j]);
            eir_node *nd = (eir_node *)&c->g->nodes[at];
            if (is_sym_read(nd)) {
                eir_arg *a = (eir_arg *)&nd->inputs[0].arg;
                a->value = res[i];
                a->name = c->g->values[res[i]].name;
            }
            if ((st = eir_graph_move_node(c->p, c->g, at, c->pos)) || (st = retrace_rename(c, c->pos))) return st;
            c->pos++;
            c->node++;
        }
    }
    for (int64_t i = 0; i <= n; i++)
        if ((st = finish(c, outs[i], res[i]))) return st;
    return EIR_OK;
}
