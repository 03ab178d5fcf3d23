/* decomp_effects.c — to-core rules with effects. Error checks through an
 * effectful operator: linalg_inv, linalg_cholesky, linalg_solve,
 * linalg_lu_factor, linalg_ldl_factor, linalg_tensorinv and
 * linalg_tensorsolve become their _ex forms (the result and an info tensor) followed by
 * higher_order.with_effects(token, aten._linalg_check_errors, info, api,
 * is_matrix=...), the effect token threaded through the program as torch's
 * run_decompositions() threads it (a TOKEN input and a TOKEN output, added
 * by eir_program_add_token); aten._print goes into with_effects the same
 * way. Also lu_solve -> linalg_lu_solve (no check). Running statistics
 * written back: the batch norms that update them and instance_norm with
 * them, as mutation outputs (decomp_bn_update, decomp_instance_norm_stats). */
#include <stdio.h>
#include <string.h>

#include "decomp_int.h"

#define CHECK_ERRORS "torch.ops.aten._linalg_check_errors.default"
#define WITH_EFFECTS "torch.ops.higher_order.with_effects"

/* The value of the program's TOKEN output, or EIR_NO_VALUE. */
static uint32_t token_output(const eir_program *p) {
    for (uint32_t i = 0; i < p->num_output_specs; i++)
        if (p->output_specs[i].kind == EIR_OUT_TOKEN) {
            const eir_arg *a = &p->output_specs[i].arg;
            return a->kind == EIR_ARG_TENSOR && a->value < p->graph->num_values ? a->value : EIR_NO_VALUE;
        }
    return EIR_NO_VALUE;
}

/* Whether an effectful node may go at the decomposed node's place: in the
 * top-level graph (torch threads tokens through nested graphs too: not
 * done), with no single token the program threads already defined after
 * it. */
static eir_status effects_check(dc *c) {
    if (c->g != c->p->graph)
        return dc_refuse(c, "its error check needs an effect token, which is only threaded through the top-level graph");
    uint32_t ntok = 0;
    for (uint32_t i = 0; i < c->p->num_output_specs; i++) ntok += c->p->output_specs[i].kind == EIR_OUT_TOKEN;
    if (ntok > 1) return dc_refuse(c, "the program threads %u effect tokens (one is handled)", ntok);
    uint32_t t = token_output(c->p);
    if (ntok && t == EIR_NO_VALUE) return dc_refuse(c, "the program's TOKEN output names no value");
    if (t != EIR_NO_VALUE && c->g->values[t].producer >= (int32_t)c->node)
        return dc_refuse(c, "an effectful node after it already threads the effect token %s",
                         c->g->values[t].name);
    return EIR_OK;
}

/* with_effects(token, op, *args) at the insertion point, with outputs the
 * new token and None; the new token made the program's TOKEN output (the
 * token input and output added first when the program has none). */
static eir_status emit_with_effects(dc *c, const char *op, uint32_t nargs, const eir_named_arg *args) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    eir_status st;
    if (nargs > 8) return dc_refuse(c, "too many arguments for with_effects");
    uint32_t tok = token_output(p);
    if (tok == EIR_NO_VALUE && (st = eir_program_add_token(p, &tok))) return st;
    eir_tensor_meta tm_ = g->values[tok].meta;
    uint32_t next = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &tm_, "getitem");
    if (next == EIR_NO_VALUE) return eir_fail(p, EIR_ERR_NOMEM, "to-core: out of memory");
    eir_arg opa = {0};
    opa.kind = EIR_ARG_OPERATOR;
    opa.u.s = op;
    eir_named_arg ins[10] = {pos_arg("", a_tensor(tok)), pos_arg("", opa)};
    for (uint32_t i = 0; i < nargs; i++) {
        ins[2 + i] = args[i];
        if (ins[2 + i].kind == 1) ins[2 + i].name = "";
    }
    eir_arg outs[2] = {a_tensor(next), a_none()};
    if ((st = eir_graph_insert_node(p, g, c->pos, WITH_EFFECTS, 2 + nargs, ins, 2, outs, NULL))) return st;
    eir_node *nd = (eir_node *)&g->nodes[c->pos];
    nd->is_hop_single_tensor_return = 0;
    for (uint32_t i = 0; i < c->src.num_metadata; i++)
        if ((st = eir_node_set_metadata(p, nd, c->src.metadata[i].key, c->src.metadata[i].value))) return st;
    c->pos++;
    c->node++;
    /* the TOKEN output moves on to the new token */
    return eir_graph_replace_uses(p, g, tok, next, NULL);
}

/* with_effects(token, _linalg_check_errors, info, api, is_matrix=...) */
static eir_status emit_check_errors(dc *c, uint32_t info, const char *api, bool is_matrix) {
    eir_arg name = {0};
    name.kind = EIR_ARG_STRING;
    name.u.s = api;
    eir_named_arg args[3] = {pos_arg("info", a_tensor(info)), pos_arg("api_name", name),
                             kw_arg("is_matrix", a_bool(is_matrix))};
    return emit_with_effects(c, CHECK_ERRORS, 3, args);
}

/* aten._print(s) -> with_effects(token, aten._print, s), as torch's
 * run_decompositions() threads it */
eir_status decomp_print(dc *c) {
    if (c->src.num_inputs != 1 || c->src.inputs[0].arg.kind != EIR_ARG_STRING)
        return dc_refuse(c, "argument 's': expected a string");
    for (uint32_t i = 0; i < c->src.num_outputs; i++)
        if (c->src.outputs[i].kind != EIR_ARG_NONE) return dc_refuse(c, "expected no output");
    eir_status st = effects_check(c);
    if (st || c->dry) return st;
    eir_named_arg a = c->src.inputs[0];
    return emit_with_effects(c, "torch.ops.aten._print.default", 1, &a);
}

/* The node's tensor outputs, in order (at most max). */
static bool ef_outputs(const dc *c, uint32_t *outs, uint32_t max, uint32_t *n) {
    *n = 0;
    for (uint32_t i = 0; i < c->src.num_outputs; i++) {
        const eir_arg *o = &c->src.outputs[i];
        if (o->kind != EIR_ARG_TENSOR || *n >= max || o->value >= c->g->num_values) return false;
        outs[(*n)++] = o->value;
    }
    return true;
}

/* linalg_tensorinv(A, ind): A as a (p, p) matrix (p the product of its
 * first ind sizes), inverted (errors checked as "inv"), the result
 * reshaped to A's last sizes then its first ind ones */
static eir_status tensorinv(dc *c, uint32_t a, uint32_t out) {
    const eir_tensor_meta *am = meta_of(c, a);
    int64_t ind = 2;
    const eir_arg *ia = dc_arg_named(c, "ind");
    if (ia && !is_none(ia) && !int_of(ia, &ind)) return dc_refuse(c, "argument 'ind': expected an int");
    if (!dc_meta_concrete_sizes(am)) return dc_refuse(c, "an input of symbolic size");
    if (ind <= 0 || ind > (int64_t)am->rank) return dc_refuse(c, "argument 'ind': %lld out of range", (long long)ind);
    int64_t pa = 1, pr = 1;
    for (uint32_t i = 0; i < am->rank; i++) {
        if ((int64_t)i < ind) pa *= am->sizes[i].value;
        else pr *= am->sizes[i].value;
    }
    if (pa != pr) return dc_refuse(c, "the first %lld sizes' product %lld is not the others' %lld", (long long)ind,
                                  (long long)pa, (long long)pr);
    int64_t sq[2] = {pa, pa};
    tm sqm;
    dc_tm_new(&sqm, am, am->dtype, sq, 2);
    uint32_t m2 = EIR_NO_VALUE, r[2], res;
    eir_status st;
    if ((st = dc_emit_reshape(c, a, &sqm.m, "view", &m2))) return st;
    if (c->dry) return EIR_OK;
    eir_named_arg ii[1] = {pos_arg("A", a_tensor(m2))};
    if ((st = sh_emit_n(c, "linalg_inv_ex.default", 1, ii, 2, false, NULL, r))) return st;
    if ((st = emit_check_errors(c, r[1], "inv", true))) return st;
    if ((st = dc_emit_reshape(c, r[0], meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

/* linalg_tensorsolve(A, B, dims): A's dims moved to the end (permute,
 * when dims are given), A as a (p, p) matrix and B flattened (reshape:
 * view, or clone and view; a 1-d B as it is), _linalg_solve_ex and the
 * check of its info ("torch.linalg.solve", a matrix), the result reshaped
 * to A's sizes after B's rank */
static eir_status tensorsolve(dc *c, uint32_t a, uint32_t b, uint32_t out) {
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    if (!dc_meta_concrete_sizes(am) || !dc_meta_concrete_sizes(bm)) return dc_refuse(c, "inputs of symbolic size");
    uint32_t n = am->rank, nb = bm->rank;
    if (n > MAXR || nb > n) return dc_refuse(c, "ranks %u and %u", n, nb);
    int64_t perm[MAXR], dims[MAXR], sz[MAXR];
    uint32_t nd = 0;
    const eir_arg *da = dc_arg_named(c, "dims");
    bool have_dims = !is_none(da);
    if (have_dims && !dc_ints_of(da, dims, MAXR, &nd)) return dc_refuse(c, "argument 'dims': expected a list of ints");
    bool used[MAXR] = {false};
    for (uint32_t i = 0; i < nd; i++) {
        dims[i] = wrap_dim(dims[i], n);
        if (dims[i] < 0 || dims[i] >= (int64_t)n || used[dims[i]]) return dc_refuse(c, "argument 'dims': bad or repeated dim");
        used[dims[i]] = true;
    }
    uint32_t k = 0;
    for (uint32_t d = 0; d < n; d++)
        if (!used[d]) perm[k++] = d;
    for (uint32_t i = 0; i < nd; i++) perm[k++] = dims[i];
    for (uint32_t i = 0; i < n; i++) sz[i] = am->sizes[perm[i]].value;
    int64_t p = 1, nel = 1, pa = 1;
    for (uint32_t i = nb; i < n; i++) p *= sz[i];
    for (uint32_t i = 0; i < nb; i++) nel *= bm->sizes[i].value;
    for (uint32_t i = 0; i < n; i++) pa *= sz[i];
    if (p != nel || pa != p * p) return dc_refuse(c, "A's sizes do not make a square matrix for B's %lld elements", (long long)nel);
    if (c->dry) return EIR_OK;
    tm sq, fl;
    int64_t sqs[2] = {p, p};
    dc_tm_new(&sq, am, am->dtype, sqs, 2);
    dc_tm_new(&fl, bm, bm->dtype, &nel, 1);
    uint32_t a1 = a, a2, b1 = b, r[4], res;
    eir_status st;
    if (have_dims && (st = sh_permute(c, a, perm, n, NULL, &a1))) return st;
    if ((st = dc_emit_reshape(c, a1, &sq.m, "view", &a2))) return st;
    if (nb != 1 && (st = dc_emit_reshape(c, b, &fl.m, "view", &b1))) return st;
    eir_named_arg si_[2] = {pos_arg("A", a_tensor(a2)), pos_arg("B", a_tensor(b1))};
    if ((st = sh_emit_n(c, "_linalg_solve_ex.default", 2, si_, 4, false, NULL, r))) return st;
    if ((st = emit_check_errors(c, r[3], "torch.linalg.solve", true))) return st;
    if ((st = dc_emit_reshape(c, r[0], meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

/* lu_solve(self=B, LU_data, LU_pivots) -> linalg_lu_solve(LU, pivots, B) */
static eir_status lu_solve(dc *c) {
    uint32_t b, out, lu = dc_tensor_of(c, "LU_data"), piv = dc_tensor_of(c, "LU_pivots"), res;
    eir_status st = dc_need_io(c, "self", &b, &out);
    if (st) return st;
    if (lu == EIR_NO_VALUE || piv == EIR_NO_VALUE) return dc_refuse(c, "arguments 'LU_data', 'LU_pivots': expected tensors");
    if (c->dry) return EIR_OK;
    eir_named_arg li[3] = {pos_arg("LU", a_tensor(lu)), pos_arg("pivots", a_tensor(piv)), pos_arg("B", a_tensor(b))};
    if ((st = sh_emit(c, "linalg_lu_solve.default", 3, li, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* linalg_inv(A) -> linalg_inv_ex(A); linalg_cholesky(self, upper) ->
 * linalg_cholesky_ex(self, upper=); linalg_solve(A, B, left) ->
 * _linalg_solve_ex(A, B, left=); linalg_lu_factor(A, pivot) ->
 * linalg_lu_factor_ex(A, pivot=); linalg_ldl_factor(self, hermitian) ->
 * linalg_ldl_factor_ex(self, hermitian=); each followed by the check of
 * its info, is_matrix when the input is a single matrix (torch's
 * A.dim() == 2) */
eir_status decomp_checked_linalg(dc *c) {
    const char *op = c->op;
    if (!strcmp(op, "aten.lu_solve.default")) return lu_solve(c);
    uint32_t outs[3], no;
    if (!ef_outputs(c, outs, 3, &no) || no == 0) return dc_refuse(c, "expected tensor outputs");
    eir_status st = effects_check(c);
    if (st) return st;
    const char *to, *api;
    const char *self_name = "A", *flag = NULL;
    bool flag_def = false, flag_v = false;
    uint32_t nout, info, want_out;
    if (!strcmp(op, "aten.linalg_inv.default")) {
        to = "linalg_inv_ex.default", api = "linalg.inv", nout = 2, info = 1, want_out = 1;
    } else if (!strcmp(op, "aten.linalg_tensorinv.default")) {
        self_name = "self";
        uint32_t a = dc_tensor_of(c, self_name);
        if (a == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
        if (no != 1) return dc_refuse(c, "expected one output");
        return tensorinv(c, a, outs[0]);
    } else if (!strcmp(op, "aten.linalg_tensorsolve.default")) {
        uint32_t a = dc_tensor_of(c, "self"), b = dc_tensor_of(c, "other");
        if (a == EIR_NO_VALUE || b == EIR_NO_VALUE) return dc_refuse(c, "arguments 'self', 'other': expected tensors");
        if (no != 1) return dc_refuse(c, "expected one output");
        return tensorsolve(c, a, b, outs[0]);
    } else if (!strcmp(op, "aten.linalg_cholesky.default")) {
        to = "linalg_cholesky_ex.default", api = "linalg.cholesky", nout = 2, info = 1, want_out = 1;
        self_name = "self", flag = "upper";
    } else if (!strcmp(op, "aten.linalg_solve.default")) {
        to = "_linalg_solve_ex.default", api = "torch.linalg.solve", nout = 4, info = 3, want_out = 1;
        flag = "left", flag_def = true;
    } else if (!strcmp(op, "aten.linalg_lu_factor.default")) {
        to = "linalg_lu_factor_ex.default", api = "torch.linalg.lu_factor", nout = 3, info = 2, want_out = 2;
        flag = "pivot", flag_def = true;
    } else if (!strcmp(op, "aten.linalg_ldl_factor.default")) {
        to = "linalg_ldl_factor_ex.default", api = "torch.linalg.ldl_factor", nout = 3, info = 2, want_out = 2;
        self_name = "self", flag = "hermitian";
    } else
        return dc_refuse(c, "no checked form of %s", op);
    if (no != want_out) return dc_refuse(c, "expected %u outputs", want_out);
    uint32_t a = dc_tensor_of(c, self_name);
    if (a == EIR_NO_VALUE) return dc_refuse(c, "argument '%s': expected a tensor", self_name);
    if (meta_of(c, a)->rank < 2) return dc_refuse(c, "argument '%s': a matrix or a batch of matrices expected", self_name);
    bool is_matrix = meta_of(c, a)->rank == 2;
    eir_named_arg ins[3];
    uint32_t n = 0;
    ins[n++] = pos_arg(self_name, a_tensor(a));
    if (!strcmp(op, "aten.linalg_solve.default")) {
        uint32_t b = dc_tensor_of(c, "B");
        if (b == EIR_NO_VALUE) return dc_refuse(c, "argument 'B': expected a tensor");
        ins[n++] = pos_arg("B", a_tensor(b));
    }
    if (flag) {
        if (!dc_bool_arg(c, flag, flag_def, &flag_v)) return dc_refuse(c, "argument '%s': expected a bool", flag);
        if (flag_v != flag_def) ins[n++] = kw_arg(flag, a_bool(flag_v));
    }
    if (c->dry) return EIR_OK;
    uint32_t v[4];
    if ((st = sh_emit_n(c, to, n, ins, nout, false, NULL, v))) return st;
    if ((st = emit_check_errors(c, v[info], api, is_matrix))) return st;
    for (uint32_t i = 0; i < no; i++)
        if ((st = finish(c, outs[i], v[i]))) return st;
    return EIR_OK;
}

/* ---- running statistics written back ---- */

/* The mutation record of graph input x (a buffer or a user input of the
 * top-level graph, written before or not), or of the input whose latest
 * version x is; a new
 * record when x is an input written for the first time. NULL (and a
 * refusal) otherwise. */
static mutation *input_written(dc *c, uint32_t x, eir_status *st) {
    const eir_value *xv = &c->g->values[x];
    *st = EIR_OK;
    for (uint32_t i = 0; c->muts && i < c->muts->n; i++)
        if (!strcmp(c->muts->m[i].latest, xv->name) || !strcmp(c->muts->m[i].input, xv->name)) return &c->muts->m[i];
    const eir_input_spec *spec = NULL;
    for (uint32_t i = 0; c->g == c->p->graph && xv->producer < 0 && i < c->p->num_input_specs; i++)
        if (c->p->input_specs[i].arg.kind == EIR_ARG_TENSOR && c->p->input_specs[i].arg.value == x)
            spec = &c->p->input_specs[i];
    if (!spec || (spec->kind != EIR_IN_BUFFER && spec->kind != EIR_IN_USER_INPUT)) {
        *st = dc_refuse(c, "it writes %s, which is not a buffer or user input of the top-level graph (or an "
                        "as_strided view of one)", xv->name);
        return NULL;
    }
    if (!c->muts || c->muts->n == sizeof c->muts->m / sizeof *c->muts->m) {
        *st = dc_refuse(c, "too many mutated inputs");
        return NULL;
    }
    mutation *m = &c->muts->m[c->muts->n++];
    m->input = m->latest = xv->name;
    m->kind = spec->kind == EIR_IN_BUFFER ? EIR_OUT_BUFFER_MUTATION : EIR_OUT_USER_INPUT_MUTATION;
    m->target = spec->kind == EIR_IN_BUFFER ? spec->target : xv->name;
    return m;
}

/* Whether value v is read by a node after index `after` or by the graph's
 * outputs. */
static bool read_after(const dc *c, uint32_t v, uint32_t after) {
    for (uint32_t i = after + 1; i < c->g->num_nodes; i++) {
        const eir_node *n = &c->g->nodes[i];
        for (uint32_t j = 0; j < n->num_inputs; j++) {
            const eir_arg *a = &n->inputs[j].arg;
            if ((a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR) && a->value == v) return true;
            if (a->kind == EIR_ARG_TENSORS || a->kind == EIR_ARG_OPTIONAL_TENSORS)
                for (uint32_t k = 0; k < a->u.list.n; k++)
                    if (a->u.list.items[k].value == v) return true;
        }
    }
    for (uint32_t i = 0; i < c->g->num_outputs; i++)
        if (c->g->outputs[i].kind == EIR_ARG_TENSOR && c->g->outputs[i].value == v) return true;
    return false;
}

/* x, which the decomposed node writes in place, takes the value nv: x is a
 * graph input (or its latest version), whose mutation output becomes nv;
 * as_strided(base, ...) of one, written back by as_strided_scatter into
 * base as torch's functionalization does; or a tensor the graph makes
 * (no mutation output). Later reads of x read nv. In a dry run only
 * checked. */
static eir_status write_back(dc *c, uint32_t x, uint32_t nv) {
    const eir_value *xv = &c->g->values[x];
    eir_status st;
    uint32_t base = x;
    const eir_node *pn = xv->producer >= 0 ? &c->g->nodes[xv->producer] : NULL;
    bool mutated_before = false;
    for (uint32_t i = 0; c->muts && i < c->muts->n; i++) mutated_before |= !strcmp(c->muts->m[i].latest, xv->name);
    bool local = false;
    if (pn && !mutated_before && strcmp(pn->target, "torch.ops.aten.as_strided.default")) {
        /* a tensor the graph makes (not a view, not written in place): later
         * reads take the new value, no mutation output */
        const eir_op_schema *ps = strncmp(pn->target, "torch.ops.", 10) ? NULL : eir_op_find(pn->target + 10);
        if (!ps || (ps->flags & (EIR_OPF_VIEW | EIR_OPF_INPLACE | EIR_OPF_OUT)) || eir_op_mutates_args(ps))
            return dc_refuse(c, "it writes %s, the result of %%%s (%s), in place", xv->name, pn->name ? pn->name : "?",
                             pn->target);
        local = true;
    } else if (pn && !mutated_before) {
        if (pn->num_inputs < 3 || pn->inputs[0].arg.kind != EIR_ARG_TENSOR)
            return dc_refuse(c, "it writes %s, an as_strided view without its arguments", xv->name);
        base = pn->inputs[0].arg.value;
        if (read_after(c, x, c->node))
            return dc_refuse(c, "%s, which it writes, is an as_strided view read afterwards", xv->name);
    }
    /* another view of base, taken before and read after, would see the write */
    for (uint32_t i = 0; i < c->node; i++) {
        const eir_node *u = &c->g->nodes[i];
        if (u == pn || u->num_inputs < 1 || u->inputs[0].arg.kind != EIR_ARG_TENSOR || u->inputs[0].arg.value != base ||
            u->num_outputs != 1 || u->outputs[0].kind != EIR_ARG_TENSOR || strncmp(u->target, "torch.ops.", 10))
            continue;
        const eir_op_schema *us = eir_op_find(u->target + 10);
        if (us && (us->flags & EIR_OPF_VIEW) && read_after(c, u->outputs[0].value, c->node))
            return dc_refuse(c, "%s, which it writes, is aliased by %%%s (%s), read afterwards", c->g->values[base].name,
                             u->name ? u->name : "?", u->target + 10);
    }
    if (local) return c->dry ? EIR_OK : eir_graph_replace_uses(c->p, c->g, x, nv, NULL);
    mutation *m = input_written(c, base, &st);
    if (!m) return st;
    if (c->dry) return EIR_OK;
    uint32_t res = nv;
    if (base != x) {
        /* the scatter goes into the base's latest version */
        uint32_t cur = base;
        for (uint32_t i = 0; i < c->g->num_values; i++)
            if (!strcmp(c->g->values[i].name, m->latest)) cur = i;
        eir_named_arg si_[5];
        uint32_t n = 0;
        si_[n++] = pos_arg("self", a_tensor(cur));
        si_[n++] = pos_arg("src", a_tensor(nv));
        for (uint32_t i = 1; i < pn->num_inputs && n < 5; i++) si_[n++] = pn->inputs[i];
        if ((st = sh_emit(c, "as_strided_scatter.default", n, si_, meta_of(c, base), &res))) return st;
        m->latest = c->g->values[res].name;
        return eir_graph_replace_uses(c->p, c->g, cur, res, NULL);
    }
    m->latest = c->g->values[res].name;
    return eir_graph_replace_uses(c->p, c->g, base, res, NULL);
}

/* The batch norms that update running statistics, as torch functionalizes
 * them: _native_batch_norm_legit (either mode), native_batch_norm and
 * batch_norm in training mode -> _native_batch_norm_legit_functional;
 * _batch_norm_with_update -> _batch_norm_with_update_functional; the new
 * running mean and variance written back to the inputs they came from
 * (mutation outputs); without running statistics (training)
 * _native_batch_norm_legit.no_stats. batch_norm of an empty input is
 * input.clone() as torch's composite (with weight or bias: refused). */
eir_status decomp_bn_update(dc *c) {
    bool with_update = !strcmp(c->op, "aten._batch_norm_with_update.default");
    bool composite = !strcmp(c->op, "aten.batch_norm.default");
    uint32_t outs[4], no;
    if (!ef_outputs(c, outs, 4, &no) || no == 0) return dc_refuse(c, "expected tensor outputs");
    uint32_t want = with_update ? 4 : composite ? 1 : 3;
    if (no != want) return dc_refuse(c, "expected %u outputs", want);
    uint32_t x = dc_tensor_of(c, "input");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'input': expected a tensor");
    uint32_t rm = dc_tensor_of(c, "running_mean"), rv = dc_tensor_of(c, "running_var");
    const eir_arg *mom = dc_arg_named(c, "momentum"), *eps = dc_arg_named(c, "eps");
    if (!mom || !eps) return dc_refuse(c, "arguments 'momentum', 'eps' missing");
    const eir_arg *wa = dc_arg_named(c, "weight"), *ba = dc_arg_named(c, "bias");
    eir_status st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t numel = 1;
    if (composite && !dc_meta_concrete_sizes(xm)) return dc_refuse(c, "an input of symbolic size");
    for (uint32_t i = 0; composite && i < xm->rank; i++) numel *= xm->sizes[i].value;
    if (composite && numel == 0) {
        if (!is_none(wa) || !is_none(ba)) return dc_refuse(c, "an empty input with weight or bias");
        if (c->dry) return EIR_OK;
        uint32_t res;
        eir_named_arg ci[1] = {pos_arg("self", a_tensor(x))};
        if ((st = sh_emit(c, "clone.default", 1, ci, meta_of(c, outs[0]), &res))) return st;
        return finish(c, outs[0], res);
    }
    if (rm == EIR_NO_VALUE && rv == EIR_NO_VALUE && !with_update) {
        /* training without running statistics: _native_batch_norm_legit.no_stats */
        bool training = true;
        if (!dc_bool_arg(c, "training", true, &training) || !training)
            return dc_refuse(c, "eval mode without running statistics");
        if (c->dry) return EIR_OK;
        eir_named_arg ni[6] = {pos_arg("input", a_tensor(x)), pos_arg("weight", is_none(wa) ? a_none() : *wa),
                               pos_arg("bias", is_none(ba) ? a_none() : *ba), pos_arg("training", a_bool(true)),
                               pos_arg("momentum", *mom), pos_arg("eps", *eps)};
        uint32_t v[3];
        if ((st = sh_emit_n(c, "_native_batch_norm_legit.no_stats", 6, ni, 3, false, NULL, v))) return st;
        for (uint32_t i = 0; i < no; i++)
            if ((st = finish(c, outs[i], v[i]))) return st;
        return EIR_OK;
    }
    if (rm == EIR_NO_VALUE || rv == EIR_NO_VALUE) return dc_refuse(c, "only one of running_mean and running_var");
    if (rm == rv) return dc_refuse(c, "running_mean and running_var are the same tensor");
    /* the statistics written: checked before anything is emitted */
    bool dry = c->dry;
    c->dry = true;
    if ((st = write_back(c, rm, rm)) || (st = write_back(c, rv, rv))) {
        c->dry = dry;
        return st;
    }
    c->dry = dry;
    if (c->dry) return EIR_OK;
    eir_named_arg bi[8];
    uint32_t n = 0;
    bi[n++] = pos_arg("input", a_tensor(x));
    bi[n++] = pos_arg("weight", is_none(wa) ? a_none() : *wa);
    bi[n++] = pos_arg("bias", is_none(ba) ? a_none() : *ba);
    bi[n++] = pos_arg("running_mean", a_tensor(rm));
    bi[n++] = pos_arg("running_var", a_tensor(rv));
    if (!with_update) {
        bool training = true;
        if (!dc_bool_arg(c, "training", true, &training)) return dc_refuse(c, "argument 'training': expected a bool");
        bi[n++] = pos_arg("training", a_bool(training));
    }
    bi[n++] = pos_arg("momentum", *mom);
    bi[n++] = pos_arg("eps", *eps);
    uint32_t v[6], nout = with_update ? 6 : 5;
    if ((st = sh_emit_n(c, with_update ? "_batch_norm_with_update_functional.default"
                                       : "_native_batch_norm_legit_functional.default",
                        n, bi, nout, false, NULL, v)))
        return st;
    for (uint32_t i = 0; i < no; i++)
        if ((st = finish(c, outs[i], v[i]))) return st;
    if ((st = write_back(c, rm, v[nout - 2]))) return st;
    return write_back(c, rv, v[nout - 1]);
}

/* instance_norm(input, weight, bias, running_mean, running_var,
 * use_input_stats=True, momentum, eps) with weight, bias or running
 * statistics, as torch's composite: each given one repeated N times, the
 * input (made contiguous) viewed as [1, N * C, ...], _native_batch_norm_legit_functional
 * (running statistics) or _native_batch_norm_legit.no_stats, each new
 * running statistic averaged over the batch (view [N, C], mean over dim 0)
 * and copied into an alias of the old (copy, alias) and written back, the
 * result viewed back to the input's shape */
eir_status decomp_instance_norm_stats(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    bool use = false;
    if (!dc_bool_arg(c, "use_input_stats", false, &use)) return dc_refuse(c, "argument 'use_input_stats': expected a bool");
    if (!use) return dc_refuse(c, "use_input_stats false with weight, bias or running statistics");
    const eir_arg *mom = dc_arg_named(c, "momentum"), *eps = dc_arg_named(c, "eps");
    if (!mom || !eps) return dc_refuse(c, "arguments 'momentum', 'eps' missing");
    if (xm->rank < 2 || !dc_meta_concrete_sizes(xm)) return dc_refuse(c, "an input of rank below 2 or of symbolic size");
    const char *names[4] = {"weight", "bias", "running_mean", "running_var"};
    uint32_t t[4];
    for (int i = 0; i < 4; i++) {
        const eir_arg *a = dc_arg_named(c, names[i]);
        t[i] = is_none(a) ? EIR_NO_VALUE : dc_tensor_of(c, names[i]);
        if (!is_none(a) && t[i] == EIR_NO_VALUE) return dc_refuse(c, "argument '%s': expected a tensor", names[i]);
    }
    bool stats = t[2] != EIR_NO_VALUE;
    if (stats != (t[3] != EIR_NO_VALUE)) return dc_refuse(c, "only one of running_mean and running_var");
    if (stats && t[2] == t[3]) return dc_refuse(c, "running_mean and running_var are the same tensor");
    int64_t n = xm->sizes[0].value, ch = xm->sizes[1].value;
    int64_t v[MAXR];
    uint32_t rank = xm->rank;    /* xm moves when values are added */
    bool contig = dc_meta_contiguous(xm);
    v[0] = 1;
    v[1] = n * ch;
    for (uint32_t i = 2; i < rank; i++) v[i] = xm->sizes[i].value;
    if (stats) {
        bool dry = c->dry;
        c->dry = true;
        if ((st = write_back(c, t[2], t[2])) || (st = write_back(c, t[3], t[3]))) {
            c->dry = dry;
            return st;
        }
        c->dry = dry;
    }
    if (c->dry) return EIR_OK;
    uint32_t rep[4] = {EIR_NO_VALUE, EIR_NO_VALUE, EIR_NO_VALUE, EIR_NO_VALUE};
    for (int i = 0; i < 4; i++) {
        if (t[i] == EIR_NO_VALUE) continue;
        eir_named_arg ri[2] = {pos_arg("self", a_tensor(t[i])), pos_arg("repeats", dc_a_ints(c, &n, 1))};
        if ((st = sh_emit(c, "repeat.default", 2, ri, NULL, &rep[i]))) return st;
    }
    uint32_t a, bn[5], res;
    /* input.contiguous().view(...) */
    if (!contig) {
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(x)), kw_arg("memory_format", sh_a_mf_contig())};
        if ((st = sh_emit(c, "clone.default", 2, ci, NULL, &x))) return st;
    }
    if ((st = sh_reshape(c, x, v, rank, NULL, &a))) return st;
    eir_named_arg bi[8];
    uint32_t k = 0;
    bi[k++] = pos_arg("input", a_tensor(a));
    bi[k++] = pos_arg("weight", a_opt_tensor(rep[0]));
    bi[k++] = pos_arg("bias", a_opt_tensor(rep[1]));
    if (stats) {
        bi[k++] = pos_arg("running_mean", a_tensor(rep[2]));
        bi[k++] = pos_arg("running_var", a_tensor(rep[3]));
    }
    bi[k++] = pos_arg("training", a_bool(true));
    bi[k++] = pos_arg("momentum", *mom);
    bi[k++] = pos_arg("eps", *eps);
    if ((st = sh_emit_n(c, stats ? "_native_batch_norm_legit_functional.default" : "_native_batch_norm_legit.no_stats", k,
                        bi, stats ? 5 : 3, false, NULL, bn)))
        return st;
    for (int i = 0; stats && i < 2; i++) {
        uint32_t al, vw, mn, cp, al2;
        int64_t nc[2] = {n, ch}, d0 = 0;
        /* torch's functionalization takes the alias of a statistic written
         * before again when it copies into it: after the mean */
        bool again = false;
        for (uint32_t j = 0; c->muts && j < c->muts->n; j++)
            again |= !strcmp(c->muts->m[j].latest, c->g->values[t[2 + i]].name) &&
                     strcmp(c->muts->m[j].input, c->muts->m[j].latest);
        eir_named_arg ai[1] = {pos_arg("self", a_tensor(t[2 + i]))};
        if (!again && (st = sh_emit(c, "alias.default", 1, ai, NULL, &al))) return st;
        if ((st = sh_view(c, bn[3 + i], nc, 2, NULL, &vw))) return st;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(vw)), pos_arg("dim", dc_a_ints(c, &d0, 1))};
        if ((st = sh_emit(c, "mean.dim", 2, mi, NULL, &mn))) return st;
        if (again && (st = sh_emit(c, "alias.default", 1, ai, NULL, &al))) return st;
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(al)), pos_arg("src", a_tensor(mn))};
        if ((st = sh_emit(c, "copy.default", 2, ci, NULL, &cp))) return st;
        eir_named_arg a2[1] = {pos_arg("self", a_tensor(cp))};
        if ((st = sh_emit(c, "alias.default", 1, a2, NULL, &al2))) return st;
        if ((st = write_back(c, t[2 + i], al2))) return st;
    }
    if ((st = dc_emit_reshape(c, bn[0], meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}
