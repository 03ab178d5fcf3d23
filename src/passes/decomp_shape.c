/* decomp_shape.c — to-core rules for shapes, views, copies, splits, stacks,
 * flips, rolls, masks, factories and indexing, each emitting the nodes
 * torch 2.13's ep.run_decompositions() writes for the operator: squeeze,
 * the *_copy operators (view + clone), stack / hstack / vstack / dstack /
 * column_stack / atleast_*d, unbind, chunk, tensor_split and hsplit /
 * vsplit / dsplit, narrow, movedim, T / mH / H, ravel, fliplr / flipud,
 * rot90, roll (and fftshift / ifftshift), tile, expand_as, tril / triu,
 * meshgrid, cartesian_prod, kron, eye, new_empty / empty_like, zero,
 * resolve_conj / resolve_neg, pixel and channel shuffles, diff, take,
 * index_fill / index_copy / index_add, sum_to_size, max_pool1d /
 * adaptive_max_pool1d, linspace / logspace, block_diag, take_along_dim,
 * trapezoid / trapz / cumulative_trapezoid, _chunk_cat, instance_norm.
 * Intermediate nodes get the metadata eir's shape inference
 * gives them (torch's meta kernels); the last node of a decomposition
 * takes the replaced node's recorded metadata. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"

/* ---- building nodes whose metadata is inferred ---- */

static eir_status sh_set_inferred(dc *c, uint32_t node, uint32_t k, uint32_t v) {
    eir_inferred_meta m;
    eir_status st = eir_node_infer_meta(c->p, c->g, node, k, &m);
    if (st) return st;
    if (m.unknown_sizes || m.dtype == EIR_DTYPE_UNKNOWN || m.rank > MAXR)
        return dc_refuse(c, "the metadata of a new %s node is not inferred", c->g->nodes[node].target);
    eir_symint *sz = eir_arena_array(&c->p->arena, m.rank ? m.rank : 1, sizeof *sz);
    eir_symint *stv = eir_arena_array(&c->p->arena, m.rank ? m.rank : 1, sizeof *stv);
    if (!sz || !stv) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
    bool contiguous = m.unknown_strides || m.unknown_offset;
    int64_t run = 1;
    for (uint32_t d = m.rank; d-- > 0;) {
        sz[d] = m.sizes[d];
        if (contiguous) {
            if (m.sizes[d].is_expr) return dc_refuse(c, "the strides of a new %s node are not inferred", c->g->nodes[node].target);
            stv[d] = si(run);
            run *= m.sizes[d].value > 1 ? m.sizes[d].value : 1;
        } else
            stv[d] = m.strides[d];
    }
    eir_value *val = (eir_value *)&c->g->values[v];
    val->meta.dtype = m.dtype;
    val->meta.rank = m.rank;
    val->meta.sizes = sz;
    val->meta.strides = stv;
    val->meta.storage_offset = contiguous ? si(0) : m.storage_offset;
    return EIR_OK;
}

/* A node `target` (without "aten.") of nout tensor outputs (a Tensor[]
 * when list_out); `last`, when given, is the single output's metadata,
 * else each output's is inferred. */
eir_status sh_emit_n(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, uint32_t nout, bool list_out,
                     const eir_tensor_meta *last, uint32_t *vals) {
    if (nout > MAXR) return dc_refuse(c, "more than %d outputs", MAXR);
    eir_tensor_meta unk = {0};
    unk.layout = EIR_LAYOUT_STRIDED;
    unk.device.type = "cpu";
    unk.device.index = -1;
    for (uint32_t i = 0; i < c->src.num_inputs; i++) {
        const eir_arg *a = &c->src.inputs[i].arg;
        if (a->kind == EIR_ARG_TENSOR && a->value < c->g->num_values && c->g->values[a->value].kind == EIR_VALUE_TENSOR) {
            unk.device = c->g->values[a->value].meta.device;
            break;
        }
    }
    const eir_tensor_meta *ms[MAXR];
    for (uint32_t i = 0; i < nout; i++) ms[i] = last && nout == 1 ? last : &unk;
    char hint[48];
    const char *dot = strchr(target, '.');
    snprintf(hint, sizeof hint, "%.*s", dot ? (int)(dot - target) : (int)strlen(target), target);
    eir_status st = dc_emit_n(c, target, nin, ins, nout, ms, hint, list_out, vals);
    if (st) return st;
    if (last && nout == 1) return EIR_OK;
    for (uint32_t i = 0; i < nout; i++)
        if ((st = sh_set_inferred(c, c->pos - 1, i, vals[i]))) return st;
    return EIR_OK;
}

eir_status sh_emit(dc *c, const char *target, uint32_t nin, const eir_named_arg *ins, const eir_tensor_meta *last,
                   uint32_t *res) {
    return sh_emit_n(c, target, nin, ins, 1, false, last, res);
}

/* A Tensor[] argument of values v[0..n) (in the node's list pool). */
eir_arg sh_a_tensors(dc *c, const uint32_t *v, uint32_t n) {
    eir_arg a = {0};
    a.kind = EIR_ARG_TENSORS;
    if (c->npool + n > POOL) return a;
    a.u.list.n = n;
    a.u.list.items = &c->pool[c->npool];
    for (uint32_t i = 0; i < n; i++) c->pool[c->npool++] = a_tensor(v[i]);
    return a;
}

eir_arg sh_a_mf_contig(void) { return a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS); }

/* clone(x, memory_format=contiguous_format) */
eir_status sh_clone(dc *c, uint32_t x, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(x)), kw_arg("memory_format", sh_a_mf_contig())};
    return sh_emit(c, "clone.default", 2, ci, last, res);
}

eir_status sh_unsqueeze(dc *c, uint32_t x, int64_t d, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(d))};
    return sh_emit(c, "unsqueeze.default", 2, ui, last, res);
}

eir_status sh_view(dc *c, uint32_t x, const int64_t *sz, uint32_t n, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg vi[2] = {pos_arg("self", a_tensor(x)), pos_arg("size", dc_a_ints(c, sz, n))};
    return sh_emit(c, "view.default", 2, vi, last, res);
}

eir_status sh_permute(dc *c, uint32_t x, const int64_t *perm, uint32_t n, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(x)), pos_arg("dims", dc_a_ints(c, perm, n))};
    return sh_emit(c, "permute.default", 2, pi, last, res);
}

eir_status sh_slice(dc *c, uint32_t x, int64_t d, int64_t s, int64_t e, uint32_t *res) {
    eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(d)), pos_arg("start", a_int(s)),
                            pos_arg("end", a_int(e))};
    return sh_emit(c, "slice.Tensor", 4, si_, NULL, res);
}

eir_status sh_binary(dc *c, const char *target, uint32_t a, eir_arg b, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(a)), pos_arg("other", b)};
    return sh_emit(c, target, 2, bi, last, res);
}

/* sum.dim_IntList(x, dims) */
eir_status sh_sum(dc *c, uint32_t x, const int64_t *dims, uint32_t n, const eir_tensor_meta *last, uint32_t *res) {
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, dims, n))};
    return sh_emit(c, "sum.dim_IntList", 2, si_, last, res);
}

/* x reshaped to concrete sizes sz (view, or contiguous clone + view, as
 * torch's reshape) */
eir_status sh_reshape(dc *c, uint32_t x, const int64_t *sz, uint32_t n, const eir_tensor_meta *last, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    if (last) dc_tm_from(&t, last);
    else dc_tm_new(&t, xm, xm->dtype, sz, n);
    return dc_emit_reshape(c, x, &t.m, "view", res);
}

/* arange.start_step(start, end) (dtype keyword unless EIR_DTYPE_UNKNOWN:
 * int64), with torch's layout / device / pin_memory keywords */
eir_status sh_arange(dc *c, int64_t start, int64_t end, eir_dtype dt, const eir_tensor_meta *like, uint32_t *res) {
    eir_named_arg ai[6];
    uint32_t n = 0;
    ai[n++] = pos_arg("start", a_int(start));
    ai[n++] = pos_arg("end", a_int(end));
    if (dt != EIR_DTYPE_UNKNOWN) ai[n++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt));
    ai[n++] = kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED));
    ai[n++] = kw_arg("device", dc_a_device(like));
    ai[n++] = kw_arg("pin_memory", a_bool(false));
    return sh_emit(c, "arange.start_step", n, ai, NULL, res);
}

/* scalar_tensor(0, dtype, layout, device) */
eir_status sh_zero_scalar(dc *c, const eir_tensor_meta *like, uint32_t *res) {
    eir_named_arg si_[4] = {pos_arg("s", a_int(0)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, like->dtype)),
                            kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                            kw_arg("device", dc_a_device(like))};
    return sh_emit(c, "scalar_tensor.default", 4, si_, NULL, res);
}

/* The tensors of a Tensor[] argument (at most MAXR), ranks within MAXR. */
bool sh_tensor_list(dc *c, const char *name, uint32_t *v, uint32_t *n) {
    const eir_arg *a = dc_arg_named(c, name);
    if (!a || a->kind != EIR_ARG_TENSORS || a->u.list.n > MAXR) return false;
    for (uint32_t i = 0; i < a->u.list.n; i++) {
        const eir_arg *it = &a->u.list.items[i];
        if (it->kind != EIR_ARG_TENSOR || it->value >= c->g->num_values ||
            c->g->values[it->value].kind != EIR_VALUE_TENSOR || meta_of(c, it->value)->rank > MAXR)
            return false;
        v[i] = it->value;
    }
    *n = a->u.list.n;
    return true;
}

/* The values of the node's Tensor[] output (n of them expected). */
static eir_status list_out(dc *c, uint32_t n, const eir_arg **ol) {
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSORS || c->src.outputs[0].u.list.n != n)
        return dc_refuse(c, "expected a Tensor[] output of %u tensors", n);
    for (uint32_t i = 0; i < n; i++)
        if (c->src.outputs[0].u.list.items[i].value >= c->g->num_values)
            return dc_refuse(c, "output %u is not a tensor", i);
    *ol = &c->src.outputs[0];
    return EIR_OK;
}

static bool concrete_dim(const eir_tensor_meta *m, int64_t d, int64_t *n) {
    if (d < 0 || d >= (int64_t)m->rank || m->sizes[d].is_expr) return false;
    *n = m->sizes[d].value;
    return true;
}

static bool concrete_sizes(const eir_tensor_meta *m, int64_t *sz) {
    if (!dc_meta_concrete_sizes(m)) return false;
    for (uint32_t i = 0; i < m->rank; i++) sz[i] = m->sizes[i].value;
    return true;
}

static bool is_complex(eir_dtype dt) { return dt == EIR_C32 || dt == EIR_C64 || dt == EIR_C128; }

/* t's second dimension: 1, or 0 below rank 2 */
static int64_t r_min1(uint32_t r) { return r >= 2 ? 1 : 0; }

/* ---- squeeze, the *_copy operators ---- */

/* squeeze.default -> squeeze.dims over every dimension; squeeze_copy.* the
 * same (or the one dimension) + clone */
eir_status decomp_squeeze_all(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    bool copy = strstr(c->op, "_copy") != NULL;
    int64_t dims[MAXR];
    uint32_t n = 0;
    if (!strcmp(c->op, "aten.squeeze_copy.dim")) {
        if (!int_of(dc_arg_named(c, "dim"), &dims[0])) return dc_refuse(c, "argument 'dim': expected an int");
        n = 1;
    } else
        for (uint32_t i = 0; i < meta_of(c, x)->rank; i++) dims[n++] = i;
    if (c->dry) return EIR_OK;
    uint32_t s, res;
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, dims, n))};
    if ((st = sh_emit(c, "squeeze.dims", 2, si_, copy ? NULL : meta_of(c, out), &s))) return st;
    if (!copy) return finish(c, out, s);
    if ((st = sh_clone(c, s, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* X_copy -> X (the same arguments) + clone; t_copy / transpose_copy ->
 * permute + clone */
eir_status decomp_view_copy(dc *c) {
    static const struct { const char *from, *to; } V[] = {
        {"aten.alias_copy.default", "alias.default"},       {"aten.unsqueeze_copy.default", "unsqueeze.default"},
        {"aten.expand_copy.default", "expand.default"},     {"aten.diagonal_copy.default", "diagonal.default"},
        {"aten.unfold_copy.default", "unfold.default"},     {"aten.t_copy.default", "permute.default"},
        {"aten.transpose_copy.int", "permute.default"},     {"aten.split_with_sizes_copy.default", "split_with_sizes.default"},
    };
    const char *to = NULL;
    for (uint32_t i = 0; i < sizeof V / sizeof *V; i++)
        if (!strcmp(c->op, V[i].from)) to = V[i].to;
    if (!to) return dc_refuse(c, "internal: no view for this copy");
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (xm->rank > MAXR) return dc_refuse(c, "rank above %d", MAXR);
    bool split = !strcmp(to, "split_with_sizes.default");
    const eir_arg *ol = NULL;
    uint32_t out = EIR_NO_VALUE, nout = 1;
    eir_status st;
    if (split) {
        const eir_arg *ss = dc_arg_named(c, "split_sizes");
        if (!ss || (ss->kind != EIR_ARG_INTS && ss->kind != EIR_ARG_SYM_INTS)) return dc_refuse(c, "argument 'split_sizes': expected a list of ints");
        nout = ss->u.list.n;
        if ((st = list_out(c, nout, &ol))) return st;
        if (nout > MAXR) return dc_refuse(c, "more than %d parts", MAXR);
    } else if ((out = out_value(c)) == EIR_NO_VALUE)
        return dc_refuse(c, "expected one tensor output");
    int64_t perm[MAXR];
    bool permute = !strcmp(to, "permute.default");
    if (permute) {
        int64_t d0 = 0, d1 = r_min1(xm->rank);
        uint32_t r = xm->rank;
        if (!strcmp(c->op, "aten.transpose_copy.int") &&
            (!int_of(dc_arg_named(c, "dim0"), &d0) || !int_of(dc_arg_named(c, "dim1"), &d1)))
            return dc_refuse(c, "arguments 'dim0', 'dim1': expected ints");
        d0 = wrap_dim(d0, r);
        d1 = wrap_dim(d1, r);
        if (d0 < 0 || d1 < 0 || d0 >= (r ? r : 1) || d1 >= (r ? r : 1)) return dc_refuse(c, "dimension out of range for rank %u", r);
        /* below rank 2 the view is the tensor itself: alias */
        if (r < 2) permute = false, to = "alias.default";
        for (uint32_t i = 0; i < r; i++) perm[i] = i;
        perm[d0] = d1;
        perm[d1] = d0;
    }
    bool unfold = !strcmp(to, "unfold.default");
    int64_t ud = 0, ustep = 1;
    if (unfold) {
        if (!int_of(dc_arg_named(c, "dimension"), &ud) || !int_of(dc_arg_named(c, "step"), &ustep))
            return dc_refuse(c, "arguments 'dimension', 'step': expected ints");
        ud = wrap_dim(ud, xm->rank);
        if (ud < 0 || ud >= (int64_t)(xm->rank ? xm->rank : 1) || xm->rank + 1 > MAXR ||
            meta_of(c, out)->rank != (xm->rank ? xm->rank + 1 : 1))
            return dc_refuse(c, "argument 'dimension': out of range");
        for (uint32_t i = 0; i < xm->rank; i++)
            if (xm->strides[i].is_expr) return dc_refuse(c, "symbolic strides of the input");
        if (xm->storage_offset.is_expr) return dc_refuse(c, "a symbolic storage offset of the input");
    }
    if (c->dry) return EIR_OK;
    uint32_t v[MAXR], res;
    if (permute) {
        if ((st = sh_permute(c, x, perm, xm->rank, NULL, &v[0]))) return st;
    } else {
        eir_named_arg ins[8];
        uint32_t n = 0;
        for (uint32_t i = 0; i < c->src.num_inputs && n < 8; i++)
            if (c->src.inputs[i].kind && (strcmp(to, "alias.default") || !strcmp(c->src.inputs[i].name, "self")))
                ins[n++] = c->src.inputs[i];
        tm u;
        const eir_tensor_meta *um = NULL;
        if (unfold) {
            /* the view's metadata by hand: sizes of the copy, strides of
             * the windows */
            dc_tm_from(&u, meta_of(c, out));
            for (uint32_t i = 0; i < xm->rank; i++) u.st[i] = xm->strides[i];
            if (xm->rank) {
                u.st[ud] = si(xm->strides[ud].value * ustep);
                u.st[xm->rank] = xm->strides[ud];
            } else
                u.st[0] = si(1);
            u.m.storage_offset = xm->storage_offset;
            um = &u.m;
        }
        if ((st = sh_emit_n(c, to, n, ins, nout, split, um, v))) return st;
    }
    for (uint32_t i = 0; i < nout; i++) {
        uint32_t o = split ? ol->u.list.items[i].value : out;
        if ((st = sh_clone(c, v[i], meta_of(c, o), &res))) return st;
        if ((st = finish(c, o, res))) return st;
    }
    return EIR_OK;
}

/* ---- stacks ---- */

/* atleast_{1,2,3}d of one tensor, torch's way: 0-d -> view to all ones,
 * 1-d -> unsqueeze(0) (and unsqueeze(-1) for 3d), 2-d -> unsqueeze(-1) for
 * 3d; otherwise the tensor itself */
static eir_status atleast(dc *c, uint32_t x, uint32_t nd, const eir_tensor_meta *last, uint32_t *res) {
    uint32_t r = meta_of(c, x)->rank;
    eir_status st;
    *res = x;
    if (r >= nd) return EIR_OK;
    if (r == 0) {
        int64_t ones[3] = {1, 1, 1};
        return sh_view(c, x, ones, nd, last, res);
    }
    if (r == 1 && nd >= 2) {
        if ((st = sh_unsqueeze(c, x, 0, nd == 2 ? last : NULL, res))) return st;
        if (nd == 2) return EIR_OK;
        return sh_unsqueeze(c, *res, -1, last, res);
    }
    return sh_unsqueeze(c, x, -1, last, res);
}

eir_status decomp_atleast(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    uint32_t nd = (uint32_t)(strstr(c->op, "atleast_")[8] - '0'), res;
    if ((st = atleast(c, x, nd, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* stack -> cat + view (dim below the rank) or unsqueeze each + cat;
 * hstack / vstack / dstack -> atleast_*d each + cat; column_stack -> 1-d
 * and 0-d operands viewed as columns + cat */
eir_status decomp_stack(dc *c) {
    uint32_t out = out_value(c), v[MAXR], n;
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (!sh_tensor_list(c, "tensors", v, &n) || n == 0)
        return dc_refuse(c, "argument 'tensors': expected 1 to %d tensors of rank up to %d", MAXR, MAXR);
    const char *op = c->op + 5;
    uint32_t r0 = meta_of(c, v[0])->rank;
    int64_t dim = 0, wd = 0;
    bool stack = !strncmp(op, "stack.", 6);
    if (stack) {
        const eir_arg *da = dc_arg_named(c, "dim");
        if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
        wd = wrap_dim(dim, r0 + 1);
        if (wd < 0 || wd > r0 || r0 + 1 > MAXR) return dc_refuse(c, "dimension %lld out of range", (long long)dim);
        for (uint32_t i = 1; i < n; i++)
            if (meta_of(c, v[i])->rank != r0) return dc_refuse(c, "operands of different ranks");
    }
    if (!strncmp(op, "column_stack.", 13))
        for (uint32_t i = 0; i < n; i++)
            if (meta_of(c, v[i])->rank == 1 && meta_of(c, v[i])->sizes[0].is_expr)
                return dc_refuse(c, "operand %u: symbolic size", i);
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t w[MAXR], res;
    eir_named_arg ci[2];
    uint32_t nc = 1;
    int64_t cat_dim = 0;
    if (stack) {
        if (wd < r0) {
            uint32_t cv;
            ci[0] = pos_arg("tensors", sh_a_tensors(c, v, n));
            ci[1] = pos_arg("dim", a_int(wd));
            if ((st = sh_emit(c, "cat.default", wd ? 2 : 1, ci, NULL, &cv))) return st;
            if ((st = dc_emit_reshape(c, cv, meta_of(c, out), "view", &res))) return st;
            return finish(c, out, res);
        }
        for (uint32_t i = 0; i < n; i++)
            if ((st = sh_unsqueeze(c, v[i], wd, NULL, &w[i]))) return st;
        nc = 2;
        cat_dim = dim;
    } else if (!strncmp(op, "column_stack.", 13)) {
        for (uint32_t i = 0; i < n; i++) {
            const eir_tensor_meta *m = meta_of(c, v[i]);
            int64_t sz[2] = {m->rank ? m->sizes[0].value : 1, 1};
            w[i] = v[i];
            if (m->rank <= 1 && (st = sh_view(c, v[i], sz, 2, NULL, &w[i]))) return st;
        }
        nc = 2;
        cat_dim = 1;
    } else {
        uint32_t nd = op[0] == 'h' ? 1 : op[0] == 'v' ? 2 : 3;
        for (uint32_t i = 0; i < n; i++)
            if ((st = atleast(c, v[i], nd, NULL, &w[i]))) return st;
        if (nd == 1 && meta_of(c, w[0])->rank > 1) nc = 2, cat_dim = 1;
        if (nd == 3) nc = 2, cat_dim = 2;
    }
    ci[0] = pos_arg("tensors", sh_a_tensors(c, w, n));
    ci[1] = pos_arg("dim", a_int(cat_dim));
    if ((st = sh_emit(c, "cat.default", cat_dim ? nc : 1, ci, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ---- splits ---- */

/* unbind.int -> a slice per index, then squeeze.dims of each */
eir_status decomp_unbind(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dim = 0, len;
    const eir_arg *da = dc_arg_named(c, "dim");
    if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    dim = wrap_dim(dim, xm->rank);
    if (!concrete_dim(xm, dim, &len)) return dc_refuse(c, "dimension %lld out of range or of symbolic size", (long long)dim);
    if (len > MAXR) return dc_refuse(c, "more than %d parts", MAXR);
    const eir_arg *ol;
    eir_status st = list_out(c, (uint32_t)len, &ol);
    if (st || c->dry) return st;
    uint32_t s[MAXR], res;
    for (int64_t i = 0; i < len; i++)
        if ((st = sh_slice(c, x, dim, i, i + 1, &s[i]))) return st;
    for (int64_t i = 0; i < len; i++) {
        uint32_t o = ol->u.list.items[i].value;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(s[i])), pos_arg("dim", dc_a_ints(c, &dim, 1))};
        if ((st = sh_emit(c, "squeeze.dims", 2, si_, meta_of(c, o), &res))) return st;
        if ((st = finish(c, o, res))) return st;
    }
    return EIR_OK;
}

/* chunk / unsafe_chunk / unsafe_split -> split_with_sizes (dim as given) */
eir_status decomp_chunk(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dim = 0, len, k;
    const eir_arg *da = dc_arg_named(c, "dim");
    if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (!concrete_dim(xm, wrap_dim(dim, xm->rank), &len))
        return dc_refuse(c, "dimension %lld out of range or of symbolic size", (long long)dim);
    bool split = strstr(c->op, "split") != NULL;
    if (!int_of(dc_arg_named(c, split ? "split_size" : "chunks"), &k) || k <= 0)
        return dc_refuse(c, "argument '%s': expected a positive int", split ? "split_size" : "chunks");
    int64_t size = split ? k : (len + k - 1) / k;
    if (size == 0) return dc_refuse(c, "a chunk of an empty dimension");
    int64_t nparts = len ? (len + size - 1) / size : 1, sizes[MAXR];
    if (nparts > MAXR) return dc_refuse(c, "more than %d parts", MAXR);
    const eir_arg *ol;
    eir_status st = list_out(c, (uint32_t)nparts, &ol);
    if (st || c->dry) return st;
    for (int64_t i = 0; i < nparts; i++) sizes[i] = len - i * size < size ? len - i * size : size;
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("split_sizes", dc_a_ints(c, sizes, (uint32_t)nparts)),
                            pos_arg("dim", a_int(dim))};
    const eir_tensor_meta *ms[MAXR];
    uint32_t vals[MAXR];
    for (int64_t i = 0; i < nparts; i++) ms[i] = meta_of(c, ol->u.list.items[i].value);
    if ((st = dc_emit_n(c, "split_with_sizes.default", dim ? 3 : 2, si_, (uint32_t)nparts, ms, NULL, true, vals))) return st;
    for (int64_t i = 0; i < nparts; i++)
        if ((st = finish(c, ol->u.list.items[i].value, vals[i]))) return st;
    return EIR_OK;
}

/* tensor_split.sections / .indices and hsplit / vsplit / dsplit (.int,
 * .array) -> one slice per part (dim wrapped, bounds as given) */
eir_status decomp_tensor_split(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    const char *op = c->op + 5;
    int64_t dim = 0, len;
    if (!strncmp(op, "tensor_split.", 13)) {
        const eir_arg *da = dc_arg_named(c, "dim");
        if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
        dim = wrap_dim(dim, xm->rank);
    } else if (op[0] == 'h')
        dim = xm->rank > 1 ? 1 : 0;
    else if (op[0] == 'd')
        dim = 2;
    if (!concrete_dim(xm, dim, &len)) return dc_refuse(c, "dimension %lld out of range or of symbolic size", (long long)dim);
    int64_t bounds[MAXR + 1], nparts;
    bool by_sections = strstr(op, ".sections") || strstr(op, ".int");
    if (by_sections) {
        int64_t s;
        if (!int_of(dc_arg_named(c, "sections"), &s) || s <= 0) return dc_refuse(c, "argument 'sections': expected a positive int");
        if (s > MAXR) return dc_refuse(c, "more than %d parts", MAXR);
        nparts = s;
        bounds[0] = 0;
        for (int64_t i = 0; i < s; i++) bounds[i + 1] = bounds[i] + len / s + (i < len % s);
    } else {
        int64_t idx[MAXR];
        uint32_t n;
        if (!dc_ints_of(dc_arg_named(c, "indices"), idx, MAXR - 1, &n))
            return dc_refuse(c, "argument 'indices': expected up to %d concrete ints", MAXR - 1);
        nparts = n + 1;
        bounds[0] = 0;
        for (uint32_t i = 0; i < n; i++) bounds[i + 1] = idx[i];
        bounds[n + 1] = len;
    }
    const eir_arg *ol;
    eir_status st = list_out(c, (uint32_t)nparts, &ol);
    if (st || c->dry) return st;
    for (int64_t i = 0; i < nparts; i++) {
        uint32_t o = ol->u.list.items[i].value, res;
        eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("start", a_int(bounds[i])),
                                pos_arg("end", a_int(bounds[i + 1]))};
        if ((st = sh_emit(c, "slice.Tensor", 4, si_, meta_of(c, o), &res))) return st;
        if ((st = finish(c, o, res))) return st;
    }
    return EIR_OK;
}

/* narrow(x, dim, start, length) -> slice(x, dim, start, start + length),
 * a negative start wrapped */
eir_status decomp_narrow(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dim, start, length, len;
    if (!int_of(dc_arg_named(c, "dim"), &dim) || !int_of(dc_arg_named(c, "start"), &start) ||
        !int_of(dc_arg_named(c, "length"), &length))
        return dc_refuse(c, "arguments 'dim', 'start', 'length': expected concrete ints");
    if (start < 0) {
        if (!concrete_dim(xm, wrap_dim(dim, xm->rank), &len)) return dc_refuse(c, "a negative start in a dimension of symbolic size");
        start += len;
    }
    if (c->dry) return EIR_OK;
    eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("start", a_int(start)),
                            pos_arg("end", a_int(start + length))};
    uint32_t res;
    if ((st = sh_emit(c, "slice.Tensor", 4, si_, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ---- permutations and flips ---- */

/* movedim (.intlist, .int), numpy_T, mH / matrix_H (real dtypes) -> permute */
eir_status decomp_movedim(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    uint32_t r = xm->rank;
    int64_t perm[MAXR];
    const char *op = c->op + 5;
    if (!strncmp(op, "movedim.", 8)) {
        int64_t src[MAXR], dst[MAXR];
        uint32_t ns, nd;
        if (!dc_ints_of(dc_arg_named(c, "source"), src, MAXR, &ns) || !dc_ints_of(dc_arg_named(c, "destination"), dst, MAXR, &nd) ||
            ns != nd)
            return dc_refuse(c, "arguments 'source', 'destination': expected int lists of one length");
        bool used_src[MAXR] = {0}, used_dst[MAXR] = {0};
        for (uint32_t i = 0; i < r; i++) perm[i] = -1;
        for (uint32_t i = 0; i < ns; i++) {
            int64_t s = wrap_dim(src[i], r), d = wrap_dim(dst[i], r);
            if (s < 0 || d < 0 || s >= (int64_t)(r ? r : 1) || d >= (int64_t)(r ? r : 1) || used_src[s] || used_dst[d])
                return dc_refuse(c, "dimensions out of range or repeated");
            used_src[s] = used_dst[d] = true;
            if (r) perm[d] = s;
        }
        uint32_t next = 0;
        for (uint32_t i = 0; i < r; i++) {
            if (perm[i] >= 0) continue;
            while (used_src[next]) next++;
            perm[i] = next++;
        }
    } else if (!strncmp(op, "numpy_T.", 8)) {
        for (uint32_t i = 0; i < r; i++) perm[i] = r - 1 - i;
    } else {
        if (is_complex(xm->dtype)) return dc_refuse(c, "a complex input (its conjugate is not decomposed)");
        if (r < 2 || (!strncmp(op, "matrix_H.", 9) && r != 2)) return dc_refuse(c, "an input of rank %u", r);
        for (uint32_t i = 0; i < r; i++) perm[i] = i;
        perm[r - 2] = r - 1;
        perm[r - 1] = r - 2;
    }
    if (c->dry) return EIR_OK;
    uint32_t res;
    if ((st = sh_permute(c, x, perm, r, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ravel -> view(x, [-1]), after a contiguous clone when x is not contiguous */
eir_status decomp_ravel(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    bool contig = dc_meta_contiguous(xm);
    if (!contig && !dc_meta_concrete_sizes(xm)) return dc_refuse(c, "a non-contiguous input of symbolic size");
    if (c->dry) return EIR_OK;
    int64_t m1 = -1;
    uint32_t src = x, res;
    if (!contig && (st = sh_clone(c, x, NULL, &src))) return st;
    if ((st = sh_view(c, src, &m1, 1, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* fliplr / flipud -> flip; rot90 -> flip (+ permute), or a clone for k = 0 */
eir_status decomp_flip(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    uint32_t r = xm->rank;
    int64_t fl[2], nf = 1, perm[MAXR];
    bool swap = false, clone = false;
    if (!strcmp(c->op, "aten.fliplr.default")) {
        if (r < 2) return dc_refuse(c, "an input of rank %u (2 or more expected)", r);
        fl[0] = 1;
    } else if (!strcmp(c->op, "aten.flipud.default")) {
        if (r < 1) return dc_refuse(c, "a 0-d input");
        fl[0] = 0;
    } else {
        int64_t k = 1, dims[2] = {0, 1};
        uint32_t nd = 2;
        const eir_arg *ka = dc_arg_named(c, "k"), *da = dc_arg_named(c, "dims");
        if (!is_none(ka) && !int_of(ka, &k)) return dc_refuse(c, "argument 'k': expected an int");
        if (!is_none(da) && (!dc_ints_of(da, dims, 2, &nd) || nd != 2)) return dc_refuse(c, "argument 'dims': expected two ints");
        if (r < 2) return dc_refuse(c, "an input of rank %u (2 or more expected)", r);
        int64_t d0 = wrap_dim(dims[0], r), d1 = wrap_dim(dims[1], r);
        if (d0 < 0 || d1 < 0 || d0 >= r || d1 >= r || d0 == d1) return dc_refuse(c, "argument 'dims': out of range or equal");
        k = ((k % 4) + 4) % 4;
        for (uint32_t i = 0; i < r; i++) perm[i] = i;
        perm[d0] = d1;
        perm[d1] = d0;
        if (k == 0) clone = true;
        else if (k == 2) fl[0] = d0, fl[1] = d1, nf = 2;
        else fl[0] = k == 1 ? d1 : d0, swap = true;
    }
    if (c->dry) return EIR_OK;
    uint32_t f, res;
    if (clone) {
        if ((st = sh_clone(c, x, meta_of(c, out), &res))) return st;
        return finish(c, out, res);
    }
    eir_named_arg fi[2] = {pos_arg("self", a_tensor(x)), pos_arg("dims", dc_a_ints(c, fl, (uint32_t)nf))};
    if ((st = sh_emit(c, "flip.default", 2, fi, swap ? NULL : meta_of(c, out), &f))) return st;
    if (!swap) return finish(c, out, f);
    if ((st = sh_permute(c, f, perm, r, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* roll -> per (shift, dim): index_select by (arange + (n - shift) mod n)
 * fmod n; without dims, on the flattened tensor, viewed back; fft_fftshift
 * / fft_ifftshift -> the same rolls */
eir_status decomp_roll(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t shifts[MAXR], dims[MAXR], sz[MAXR];
    uint32_t ns, nd = 0;
    bool shift = strstr(c->op, "fftshift") != NULL;
    if (!concrete_sizes(xm, sz)) return dc_refuse(c, "an input of symbolic size");
    if (shift) {
        /* fftshift / ifftshift: a roll by half of each dimension (all of
         * them without 'dim') */
        const eir_arg *da = dc_arg_named(c, "dim");
        if (!is_none(da) && !dc_ints_of(da, dims, MAXR, &nd)) return dc_refuse(c, "argument 'dim': expected ints");
        if (is_none(da))
            for (nd = 0; nd < xm->rank; nd++) dims[nd] = nd;
        if (nd == 0) return dc_refuse(c, "no dimension to shift");
        for (uint32_t i = 0; i < nd; i++) {
            int64_t d = wrap_dim(dims[i], xm->rank);
            if (d < 0 || d >= xm->rank) return dc_refuse(c, "argument 'dim': %lld out of range", (long long)dims[i]);
            shifts[i] = strstr(c->op, "ifftshift") ? -(sz[d] / 2) : sz[d] / 2;
        }
        ns = nd;
    } else {
        if (!dc_ints_of(dc_arg_named(c, "shifts"), shifts, MAXR, &ns) || ns == 0)
            return dc_refuse(c, "argument 'shifts': expected concrete ints");
        const eir_arg *da = dc_arg_named(c, "dims");
        if (!is_none(da) && !dc_ints_of(da, dims, MAXR, &nd)) return dc_refuse(c, "argument 'dims': expected ints");
    }
    bool flat = nd == 0, empty = false;
    int64_t numel = 1;
    for (uint32_t i = 0; i < xm->rank; i++) numel *= sz[i];
    if (flat) {
        if (ns != 1) return dc_refuse(c, "%u shifts without dims", ns);
        dims[0] = 0;
        nd = 1;
        if (numel == 0) empty = true;
    } else {
        if (ns != nd) return dc_refuse(c, "%u shifts for %u dims", ns, nd);
        for (uint32_t i = 0; i < nd; i++) {
            dims[i] = wrap_dim(dims[i], xm->rank);
            if (dims[i] < 0 || dims[i] >= xm->rank) return dc_refuse(c, "argument 'dims': %lld out of range", (long long)dims[i]);
            if (sz[dims[i]] == 0) empty = true;
        }
    }
    if (c->dry) return EIR_OK;
    uint32_t cur = x;
    if (empty) {
        /* torch: a clone of an empty tensor */
        eir_named_arg ci[1] = {pos_arg("self", a_tensor(x))};
        if ((st = sh_emit(c, "clone.default", 1, ci, meta_of(c, out), &cur))) return st;
        return finish(c, out, cur);
    }
    if (flat && (st = sh_reshape(c, x, &numel, 1, NULL, &cur))) return st;
    for (uint32_t i = 0; i < nd; i++) {
        int64_t n = flat ? numel : sz[dims[i]], start = ((n - shifts[i]) % n + n) % n;
        uint32_t ar, add, fm;
        if ((st = sh_arange(c, 0, n, EIR_DTYPE_UNKNOWN, xm, &ar))) return st;
        if ((st = sh_binary(c, "add.Tensor", ar, a_int(start), NULL, &add))) return st;
        if ((st = sh_binary(c, "fmod.Scalar", add, a_int(n), NULL, &fm))) return st;
        eir_named_arg ii[3] = {pos_arg("self", a_tensor(cur)), pos_arg("dim", a_int(dims[i])), pos_arg("index", a_tensor(fm))};
        if ((st = sh_emit(c, "index_select.default", 3, ii, !flat && i + 1 == nd ? meta_of(c, out) : NULL, &cur))) return st;
    }
    if (flat && (st = dc_emit_reshape(c, cur, meta_of(c, out), "view", &cur))) return st;
    return finish(c, out, cur);
}

/* tile -> repeat, the repeats padded with leading ones to the rank */
eir_status decomp_tile(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t d[MAXR], rep[MAXR];
    uint32_t n, r = meta_of(c, x)->rank;
    if (!dc_ints_of(dc_arg_named(c, "dims"), d, MAXR, &n)) return dc_refuse(c, "argument 'dims': expected concrete ints");
    uint32_t k = n < r ? r - n : 0;
    for (uint32_t i = 0; i < k; i++) rep[i] = 1;
    for (uint32_t i = 0; i < n; i++) rep[k + i] = d[i];
    if (c->dry) return EIR_OK;
    eir_named_arg ri[2] = {pos_arg("self", a_tensor(x)), pos_arg("repeats", dc_a_ints(c, rep, k + n))};
    uint32_t res;
    if ((st = sh_emit(c, "repeat.default", 2, ri, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* expand_as(x, other) -> expand(x, other's sizes) */
eir_status decomp_expand_as(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t o = dc_tensor_of(c, "other");
    int64_t sz[MAXR];
    if (o == EIR_NO_VALUE || meta_of(c, o)->rank > MAXR) return dc_refuse(c, "argument 'other': expected a tensor");
    if (!concrete_sizes(meta_of(c, o), sz)) return dc_refuse(c, "argument 'other': symbolic sizes");
    if (c->dry) return EIR_OK;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(x)), pos_arg("size", dc_a_ints(c, sz, meta_of(c, o)->rank))};
    uint32_t res;
    if ((st = sh_emit(c, "expand.default", 2, ei, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* ---- masks and grids ---- */

/* tril / triu -> (arange(cols) row - arange(rows) column) le / ge k, then
 * where(mask, x, 0) (logical_and for bool) */
eir_status decomp_tril(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t k = 0, rows, cols;
    const eir_arg *da = dc_arg_named(c, "diagonal");
    if (!is_none(da) && !int_of(da, &k)) return dc_refuse(c, "argument 'diagonal': expected an int");
    if (xm->rank < 2 || !concrete_dim(xm, xm->rank - 2, &rows) || !concrete_dim(xm, xm->rank - 1, &cols))
        return dc_refuse(c, "an input of rank below 2 or of symbolic matrix size");
    if (is_complex(xm->dtype)) return dc_refuse(c, "a complex input");
    if (c->dry) return EIR_OK;
    bool upper = !strcmp(c->op, "aten.triu.default");
    uint32_t a0, u0, a1, u1, sub, mask, z, res;
    if ((st = sh_arange(c, 0, cols, EIR_DTYPE_UNKNOWN, xm, &a0))) return st;
    if ((st = sh_unsqueeze(c, a0, -2, NULL, &u0))) return st;
    if ((st = sh_arange(c, 0, rows, EIR_DTYPE_UNKNOWN, xm, &a1))) return st;
    if ((st = sh_unsqueeze(c, a1, -1, NULL, &u1))) return st;
    if ((st = sh_binary(c, "sub.Tensor", u0, a_tensor(u1), NULL, &sub))) return st;
    if ((st = sh_binary(c, upper ? "ge.Scalar" : "le.Scalar", sub, a_int(k), NULL, &mask))) return st;
    if (xm->dtype == EIR_BOOL) {
        if ((st = sh_binary(c, "logical_and.default", mask, a_tensor(x), meta_of(c, out), &res))) return st;
        return finish(c, out, res);
    }
    if ((st = sh_zero_scalar(c, xm, &z))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(mask)), pos_arg("self", a_tensor(x)), pos_arg("other", a_tensor(z))};
    if ((st = sh_emit(c, "where.self", 3, wi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* meshgrid of 1-d tensors: per tensor a view with -1 in its place and ones
 * elsewhere, expanded to the grid; 'xy' swaps the first two */
static eir_status meshgrid(dc *c, const uint32_t *v, uint32_t n, bool xy, const eir_arg *ol, uint32_t *grids) {
    uint32_t order[MAXR];
    int64_t shape[MAXR];
    for (uint32_t i = 0; i < n; i++) order[i] = i;
    if (xy && n >= 2) order[0] = 1, order[1] = 0;
    for (uint32_t i = 0; i < n; i++) {
        const eir_tensor_meta *m = meta_of(c, v[order[i]]);
        shape[i] = m->rank ? m->sizes[0].value : 1;
    }
    eir_status st;
    for (uint32_t i = 0; i < n; i++) {
        int64_t vs[MAXR];
        for (uint32_t j = 0; j < n; j++) vs[j] = j == i ? -1 : 1;
        uint32_t vw, o = ol ? ol->u.list.items[order[i]].value : EIR_NO_VALUE;
        if ((st = sh_view(c, v[order[i]], vs, n, NULL, &vw))) return st;
        eir_named_arg ei[2] = {pos_arg("self", a_tensor(vw)), pos_arg("size", dc_a_ints(c, shape, n))};
        if ((st = sh_emit(c, "expand.default", 2, ei, ol ? meta_of(c, o) : NULL, &grids[order[i]]))) return st;
    }
    return EIR_OK;
}

static eir_status grid_operands(dc *c, uint32_t *v, uint32_t *n) {
    if (!sh_tensor_list(c, "tensors", v, n) || *n == 0) return dc_refuse(c, "argument 'tensors': expected 1 to %d tensors", MAXR);
    for (uint32_t i = 0; i < *n; i++) {
        const eir_tensor_meta *m = meta_of(c, v[i]);
        if (m->rank > 1 || (m->rank == 1 && m->sizes[0].is_expr))
            return dc_refuse(c, "operand %u: a 0-d or 1-d tensor of concrete size expected", i);
    }
    return EIR_OK;
}

eir_status decomp_meshgrid(dc *c) {
    uint32_t v[MAXR], n, grids[MAXR];
    eir_status st = grid_operands(c, v, &n);
    if (st) return st;
    const eir_arg *ia = dc_arg_named(c, "indexing"), *ol;
    bool xy = ia && ia->kind == EIR_ARG_STRING && ia->u.s && !strcmp(ia->u.s, "xy");
    if (ia && ia->kind == EIR_ARG_STRING && ia->u.s && !xy && strcmp(ia->u.s, "ij"))
        return dc_refuse(c, "argument 'indexing': expected 'ij' or 'xy'");
    if ((st = list_out(c, n, &ol)) || c->dry) return st;
    if ((st = meshgrid(c, v, n, xy, ol, grids))) return st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = finish(c, ol->u.list.items[i].value, grids[i]))) return st;
    return EIR_OK;
}

/* cartesian_prod -> meshgrid, each grid flattened (clone + view), stacked
 * as columns (unsqueeze + cat) */
eir_status decomp_cartesian_prod(dc *c) {
    uint32_t v[MAXR], n, grids[MAXR], flat[MAXR], cols[MAXR], out = out_value(c), res;
    eir_status st = grid_operands(c, v, &n);
    if (st) return st;
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (n < 2 && meta_of(c, v[0])->rank != 1) return dc_refuse(c, "a single 0-d operand");
    if (c->dry) return EIR_OK;
    if (n == 1) return finish(c, out, v[0]); /* torch returns the operand */
    int64_t numel = 1;
    for (uint32_t i = 0; i < n; i++) numel *= meta_of(c, v[i])->rank ? meta_of(c, v[i])->sizes[0].value : 1;
    if ((st = meshgrid(c, v, n, false, NULL, grids))) return st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = sh_reshape(c, grids[i], &numel, 1, NULL, &flat[i]))) return st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = sh_unsqueeze(c, flat[i], 1, NULL, &cols[i]))) return st;
    eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, cols, n)), pos_arg("dim", a_int(1))};
    if ((st = sh_emit(c, "cat.default", 2, ci, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* kron(a, b) -> a viewed as [a0, 1, a1, 1, ...], b as [1, b0, 1, b1, ...]
 * (both padded to one rank), mul, viewed to [a0 * b0, ...] */
eir_status decomp_kron(dc *c) {
    uint32_t a, out;
    eir_status st = dc_need_io(c, "self", &a, &out);
    if (st) return st;
    uint32_t b = dc_tensor_of(c, "other");
    if (b == EIR_NO_VALUE) return dc_refuse(c, "argument 'other': expected a tensor");
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    int64_t asz[MAXR], bsz[MAXR];
    if (am->rank > MAXR || bm->rank > MAXR || !concrete_sizes(am, asz) || !concrete_sizes(bm, bsz))
        return dc_refuse(c, "operands of symbolic size or rank above %d", MAXR);
    uint32_t r = am->rank > bm->rank ? am->rank : bm->rank;
    if (2 * r > MAXR) return dc_refuse(c, "operands of rank above %d", MAXR / 2);
    if (c->dry) return EIR_OK;
    int64_t va[MAXR], vb[MAXR];
    for (uint32_t i = 0; i < r; i++) {
        int64_t ia = (int64_t)i - (int64_t)(r - am->rank), ib = (int64_t)i - (int64_t)(r - bm->rank);
        va[2 * i] = ia >= 0 ? asz[ia] : 1;
        va[2 * i + 1] = 1;
        vb[2 * i] = 1;
        vb[2 * i + 1] = ib >= 0 ? bsz[ib] : 1;
    }
    uint32_t xa, xb, m, res;
    if ((st = sh_reshape(c, a, va, 2 * r, NULL, &xa))) return st;
    if ((st = sh_reshape(c, b, vb, 2 * r, NULL, &xb))) return st;
    if ((st = sh_binary(c, "mul.Tensor", xa, a_tensor(xb), NULL, &m))) return st;
    if ((st = dc_emit_reshape(c, m, meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

/* ---- factories ---- */

/* The identity pattern of torch's eye: arange(n) column == arange(m) row
 * (in the smallest unsigned type holding n and m), converted to dt (a bool
 * result is the comparison itself). */
eir_status sh_eye(dc *c, int64_t n, int64_t m, eir_dtype dt, const eir_tensor_meta *like, const eir_tensor_meta *last,
                  uint32_t *res) {
    int64_t big = n > m ? n : m;
    eir_dtype it = big <= 255 ? EIR_U8 : EIR_U16;
    uint32_t a0, a1, u, eq;
    eir_status st;
    if ((st = sh_arange(c, 0, n, it, like, &a0))) return st;
    if ((st = sh_arange(c, 0, m, it, like, &a1))) return st;
    if ((st = sh_unsqueeze(c, a0, -1, NULL, &u))) return st;
    if ((st = sh_binary(c, "eq.Tensor", u, a_tensor(a1), dt == EIR_BOOL ? last : NULL, &eq))) return st;
    if (dt == EIR_BOOL) { *res = eq; return EIR_OK; }
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(eq)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt))};
    return sh_emit(c, "_to_copy.default", 2, ti, last, res);
}

/* eye / eye.m -> the identity pattern (sizes below 65536) */
eir_status decomp_eye(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    int64_t n, m;
    if (!int_of(dc_arg_named(c, "n"), &n)) return dc_refuse(c, "argument 'n': expected a concrete int");
    m = n;
    if (!strcmp(c->op, "aten.eye.m") && !int_of(dc_arg_named(c, "m"), &m)) return dc_refuse(c, "argument 'm': expected a concrete int");
    if (n < 0 || m < 0 || n > 65535 || m > 65535) return dc_refuse(c, "sizes %lld x %lld (0 to 65535 are decomposed)", (long long)n, (long long)m);
    if (is_complex(meta_of(c, out)->dtype)) return dc_refuse(c, "a complex result");
    if (c->dry) return EIR_OK;
    uint32_t res;
    eir_status st = sh_eye(c, n, m, meta_of(c, out)->dtype, meta_of(c, out), meta_of(c, out), &res);
    if (st) return st;
    return finish(c, out, res);
}


/* new_empty -> empty.memory_format; empty_like -> empty_permuted in the
 * input's dimension order (preserve_format) */
eir_status decomp_empty(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    const eir_tensor_meta *om = meta_of(c, out);
    bool like = !strcmp(c->op, "aten.empty_like.default");
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE || meta_of(c, x)->rank > MAXR) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t sz[MAXR], perm[MAXR];
    uint32_t r = om->rank;
    if (!concrete_sizes(om, sz) || r > MAXR) return dc_refuse(c, "a result of symbolic size");
    if (like) {
        const eir_arg *mf = dc_arg_named(c, "memory_format");
        if (!is_none(mf) && !(mf->kind == EIR_ARG_MEMORY_FORMAT && mf->u.i == EIR_MF_PRESERVE))
            return dc_refuse(c, "argument 'memory_format': only preserve_format is decomposed");
        for (uint32_t i = 0; i < xm->rank; i++)
            if (xm->strides[i].is_expr) return dc_refuse(c, "symbolic strides of the input");
        /* outermost first: by stride, larger first, ties in order */
        for (uint32_t i = 0; i < r; i++) perm[i] = i;
        for (uint32_t i = 1; i < r; i++)
            for (uint32_t j = i; j > 0 && xm->strides[perm[j - 1]].value < xm->strides[perm[j]].value; j--) {
                int64_t t = perm[j - 1];
                perm[j - 1] = perm[j];
                perm[j] = t;
            }
    }
    if (c->dry) return EIR_OK;
    eir_named_arg ei[6];
    uint32_t n = 0, res;
    ei[n++] = pos_arg("size", dc_a_ints(c, sz, r));
    if (like) ei[n++] = pos_arg("physical_layout", dc_a_ints(c, perm, r));
    ei[n++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype));
    ei[n++] = kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED));
    ei[n++] = kw_arg("device", dc_a_device(om));
    ei[n++] = kw_arg("pin_memory", a_bool(false));
    eir_status st = sh_emit(c, like ? "empty_permuted.default" : "empty.memory_format", n, ei, om, &res);
    if (st) return st;
    return finish(c, out, res);
}

/* zero -> full_like(x, 0) */
eir_status decomp_zero(dc *c) {
    uint32_t x, out, res;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st || c->dry) return st;
    eir_named_arg fi[4] = {pos_arg("self", a_tensor(x)), pos_arg("fill_value", a_int(0)), kw_arg("pin_memory", a_bool(false)),
                           kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE))};
    if ((st = sh_emit(c, "full_like.default", 4, fi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* fill.Tensor(x, value) (the functional form of fill_ with a 0-d tensor) -> copy(x, value), as
 * torch's decomposition writes it: copy broadcasts the value to x's sizes and dtype */
eir_status decomp_fill_tensor(dc *c) {
    uint32_t x, out, res;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t v = dc_tensor_of(c, "value");
    if (v == EIR_NO_VALUE) return dc_refuse(c, "argument 'value' is not a tensor");
    if (meta_of(c, v)->rank != 0)
        return dc_refuse(c, "fill_ only supports 0-dimension value tensor but got tensor with %u dimensions",
                         (unsigned)meta_of(c, v)->rank);
    if (c->dry) return EIR_OK;
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(x)), pos_arg("src", a_tensor(v))};
    if ((st = sh_emit(c, "copy.default", 2, ci, NULL, &res))) return st;
    return finish(c, out, res);
}

/* resolve_conj / resolve_neg of a real tensor: the tensor itself */
eir_status decomp_resolve(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (is_complex(meta_of(c, x)->dtype)) return dc_refuse(c, "a complex input");
    if (c->dry) return EIR_OK;
    return finish(c, out, x);
}

/* pixel_shuffle / pixel_unshuffle / channel_shuffle -> view, permute,
 * contiguous clone, view (and a last clone for the pixel ones) */
eir_status decomp_shuffle(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    const char *op = c->op + 5;
    bool chan = !strncmp(op, "channel_", 8), un = !strncmp(op, "pixel_un", 8);
    int64_t f, sz[MAXR];
    if (!int_of(dc_arg_named(c, chan ? "groups" : un ? "downscale_factor" : "upscale_factor"), &f) || f <= 0)
        return dc_refuse(c, "expected a positive factor");
    uint32_t r = xm->rank;
    if (!concrete_sizes(xm, sz)) return dc_refuse(c, "an input of symbolic size");
    if ((chan && r < 3) || (!chan && r < 3) || r + (chan ? 1 : 3) > MAXR) return dc_refuse(c, "an input of rank %u", r);
    int64_t v[MAXR], perm[MAXR];
    uint32_t nv = 0, np = 0;
    if (chan) {
        /* [N, g, C / g, *spatial] with g and C / g swapped */
        if (sz[1] % f) return dc_refuse(c, "%lld channels in %lld groups", (long long)sz[1], (long long)f);
        v[nv++] = sz[0];
        v[nv++] = f;
        v[nv++] = sz[1] / f;
        for (uint32_t i = 2; i < r; i++) v[nv++] = sz[i];
        perm[np++] = 0, perm[np++] = 2, perm[np++] = 1;
        for (uint32_t i = 3; i < nv; i++) perm[np++] = i;
    } else {
        uint32_t b = r - 3;
        int64_t C = sz[b], H = sz[b + 1], W = sz[b + 2];
        if (un ? (H % f || W % f) : C % (f * f)) return dc_refuse(c, "sizes not divisible by the factor");
        for (uint32_t i = 0; i < b; i++) v[nv++] = sz[i], perm[np++] = i;
        if (!un) {
            /* [*, C, r, r, H, W] -> [*, C, H, r, W, r] */
            v[nv++] = C / (f * f), v[nv++] = f, v[nv++] = f, v[nv++] = H, v[nv++] = W;
            perm[np++] = b, perm[np++] = b + 3, perm[np++] = b + 1, perm[np++] = b + 4, perm[np++] = b + 2;
        } else {
            /* [*, C, H / r, r, W / r, r] -> [*, C, r, r, H / r, W / r] */
            v[nv++] = C, v[nv++] = H / f, v[nv++] = f, v[nv++] = W / f, v[nv++] = f;
            perm[np++] = b, perm[np++] = b + 2, perm[np++] = b + 4, perm[np++] = b + 1, perm[np++] = b + 3;
        }
    }
    if (c->dry) return EIR_OK;
    uint32_t a, p, cl, w, res;
    if ((st = sh_reshape(c, x, v, nv, NULL, &a))) return st;
    if ((st = sh_permute(c, a, perm, np, NULL, &p))) return st;
    if ((st = sh_clone(c, p, NULL, &cl))) return st;
    tm om;
    dc_tm_from(&om, meta_of(c, out));
    if (!dc_tm_contig(&om)) return dc_refuse(c, "a result of symbolic size");
    if ((st = dc_emit_reshape(c, cl, chan ? meta_of(c, out) : &om.m, "view", &w))) return st;
    if (chan) return finish(c, out, w);
    if ((st = sh_clone(c, w, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* diff(x, n, dim, prepend, append) -> cat of prepend, x, append; then n
 * times slice [1:] - slice [:-1] along dim (dim as given) */
eir_status decomp_diff(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t n = 1, dim = -1, len;
    const eir_arg *na = dc_arg_named(c, "n"), *da = dc_arg_named(c, "dim");
    if (!is_none(na) && !int_of(na, &n)) return dc_refuse(c, "argument 'n': expected an int");
    if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (xm->dtype == EIR_BOOL) return dc_refuse(c, "a bool input (logical_xor is not emitted)");
    if (n < 0 || n > 64) return dc_refuse(c, "argument 'n': %lld", (long long)n);
    int64_t wd = wrap_dim(dim, xm->rank);
    uint32_t pre = dc_tensor_of(c, "prepend"), app = dc_tensor_of(c, "append");
    if (!concrete_dim(xm, wd, &len)) return dc_refuse(c, "dimension %lld out of range or of symbolic size", (long long)dim);
    int64_t pl = 0, al = 0;
    if (pre != EIR_NO_VALUE && !concrete_dim(meta_of(c, pre), wd, &pl)) return dc_refuse(c, "argument 'prepend': symbolic size");
    if (app != EIR_NO_VALUE && !concrete_dim(meta_of(c, app), wd, &al)) return dc_refuse(c, "argument 'append': symbolic size");
    if (c->dry) return EIR_OK;
    uint32_t cur = x;
    if (n == 0) {
        /* torch: a copy of the input (prepend and append ignored) */
        uint32_t f;
        eir_named_arg fi[4] = {pos_arg("self", a_tensor(x)), pos_arg("fill_value", a_int(0)), kw_arg("pin_memory", a_bool(false)),
                               kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE))};
        if ((st = sh_emit(c, "full_like.default", 4, fi, NULL, &f))) return st;
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(f)), pos_arg("src", a_tensor(x))};
        if ((st = sh_emit(c, "copy.default", 2, ci, meta_of(c, out), &cur))) return st;
        return finish(c, out, cur);
    }
    len += pl + al;
    if (pre != EIR_NO_VALUE || app != EIR_NO_VALUE) {
        uint32_t parts[3], np = 0;
        if (pre != EIR_NO_VALUE) parts[np++] = pre;
        parts[np++] = x;
        if (app != EIR_NO_VALUE) parts[np++] = app;
        eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, parts, np)), pos_arg("dim", a_int(dim))};
        if ((st = sh_emit(c, "cat.default", dim ? 2 : 1, ci, NULL, &cur))) return st;
    }
    for (int64_t i = 0; i < n; i++, len = len > 0 ? len - 1 : 0) {
        uint32_t lo, hi;
        int64_t e = len > 0 ? len - 1 : 0;
        if ((st = sh_slice(c, cur, dim, 0, e, &lo))) return st;
        if ((st = sh_slice(c, cur, dim, 1, len > 0 ? len : 1, &hi))) return st;
        if ((st = sh_binary(c, "sub.Tensor", hi, a_tensor(lo), i + 1 == n ? meta_of(c, out) : NULL, &cur))) return st;
    }
    return finish(c, out, cur);
}

/* take(x, idx) -> index(x flattened, [idx]) */
eir_status decomp_take(dc *c) {
    uint32_t x, out, idx;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if ((idx = dc_tensor_of(c, "index")) == EIR_NO_VALUE) return dc_refuse(c, "argument 'index': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    bool contig = dc_meta_contiguous(xm);
    int64_t numel = 1, sz[MAXR];
    if (!contig && !concrete_sizes(xm, sz)) return dc_refuse(c, "a non-contiguous input of symbolic size");
    for (uint32_t i = 0; !contig && i < xm->rank; i++) numel *= sz[i];
    if (c->dry) return EIR_OK;
    uint32_t src = x, f, res;
    int64_t m1 = -1;
    if (contig) {
        if ((st = sh_view(c, x, &m1, 1, NULL, &f))) return st;
    } else {
        if ((st = sh_clone(c, x, NULL, &src))) return st;
        if ((st = sh_view(c, src, &numel, 1, NULL, &f))) return st;
    }
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = 1;
    l.u.list.items = &c->pool[c->npool];
    c->pool[c->npool++] = a_tensor(idx);
    eir_named_arg ii[2] = {pos_arg("self", a_tensor(f)), pos_arg("indices", l)};
    if ((st = sh_emit(c, "index.Tensor", 2, ii, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* index_fill / index_copy / index_add of a 0-d tensor, torch's way: on
 * unsqueeze(x, 0) (and a 0-d index unsqueezed), then squeeze.dims([0])
 * (and a clone for index_fill) */
static eir_status index_fill_0d(dc *c, uint32_t x, uint32_t out, uint32_t idx) {
    const eir_tensor_meta *im = meta_of(c, idx);
    const char *op = c->op + 5;
    bool fill = !strncmp(op, "index_fill.", 11), add = !strncmp(op, "index_add.", 10);
    bool scalar = !strcmp(op, "index_fill.int_Scalar");
    int64_t dim, k = 1;
    if (!int_of(dc_arg_named(c, "dim"), &dim) || (dim != 0 && dim != -1)) return dc_refuse(c, "argument 'dim': 0 or -1 expected");
    if (im->rank > 1 || (im->rank == 1 && im->sizes[0].is_expr)) return dc_refuse(c, "argument 'index': a 0-d or 1-d index expected");
    if (im->rank == 1) k = im->sizes[0].value;
    const eir_arg *val = dc_arg_named(c, "value"), *alpha = dc_arg_named(c, "alpha");
    uint32_t src = EIR_NO_VALUE;
    if (scalar) {
        if (!val || (val->kind != EIR_ARG_INT && val->kind != EIR_ARG_FLOAT && val->kind != EIR_ARG_BOOL))
            return dc_refuse(c, "argument 'value': expected a number");
    } else if ((src = dc_tensor_of(c, fill ? "value" : "source")) == EIR_NO_VALUE)
        return dc_refuse(c, "argument '%s': expected a tensor", fill ? "value" : "source");
    if (add && !is_none(alpha) && alpha->kind != EIR_ARG_INT && alpha->kind != EIR_ARG_FLOAT)
        return dc_refuse(c, "argument 'alpha': expected a number");
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *xm = meta_of(c, x);
    eir_status st;
    uint32_t u, ip, sq, res;
    if (add && !is_none(alpha) && !(alpha->kind == EIR_ARG_INT && alpha->u.i == 1) &&
        (st = sh_binary(c, "mul.Tensor", src, *alpha, NULL, &src)))
        return st;
    if (scalar) {
        eir_named_arg si_[5] = {pos_arg("s", *val), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                                kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                                kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
        if ((st = sh_emit(c, "scalar_tensor.default", 5, si_, NULL, &src))) return st;
    }
    if ((st = sh_unsqueeze(c, x, 0, NULL, &u))) return st;
    if (fill) {
        eir_named_arg ei[2] = {pos_arg("self", a_tensor(src)), pos_arg("size", dc_a_ints(c, &k, 1))};
        if ((st = sh_emit(c, "expand.default", 2, ei, NULL, &src))) return st;
    }
    if (im->rank == 0 && (st = sh_unsqueeze(c, idx, 0, NULL, &idx))) return st;
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = 1;
    l.u.list.items = &c->pool[c->npool];
    c->pool[c->npool++] = a_tensor(idx);
    eir_named_arg pi[4] = {pos_arg("self", a_tensor(u)), pos_arg("indices", l), pos_arg("values", a_tensor(src)),
                           pos_arg("accumulate", a_bool(true))};
    if ((st = sh_emit(c, "index_put.default", add ? 4 : 3, pi, NULL, &ip))) return st;
    int64_t zero = 0;
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(ip)), pos_arg("dim", dc_a_ints(c, &zero, 1))};
    if ((st = sh_emit(c, "squeeze.dims", 2, si_, fill ? NULL : meta_of(c, out), &sq))) return st;
    if (!fill) return finish(c, out, sq);
    eir_named_arg ci[1] = {pos_arg("self", a_tensor(sq))};
    if ((st = sh_emit(c, "clone.default", 1, ci, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* index_fill / index_copy / index_add -> index_put(x, [None] * dim +
 * [idx], values (accumulate for index_add)); a scalar fill value becomes a
 * scalar_tensor expanded to the indexed region, alpha a mul */
eir_status decomp_index_fill(dc *c) {
    uint32_t x, out, idx;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t dim, sz[MAXR], k;
    if (!int_of(dc_arg_named(c, "dim"), &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if ((idx = dc_tensor_of(c, "index")) == EIR_NO_VALUE) return dc_refuse(c, "argument 'index': expected a tensor");
    const eir_tensor_meta *im = meta_of(c, idx);
    if (xm->rank == 0) return index_fill_0d(c, x, out, idx);
    if (im->rank != 1 || im->sizes[0].is_expr) return dc_refuse(c, "argument 'index': a 1-d index of concrete size expected");
    if (!concrete_sizes(xm, sz)) return dc_refuse(c, "an input of symbolic size");
    int64_t wd = wrap_dim(dim, xm->rank);
    if (wd < 0 || wd >= xm->rank) return dc_refuse(c, "argument 'dim': %lld out of range", (long long)dim);
    const char *op = c->op + 5;
    bool fill = !strncmp(op, "index_fill.", 11), add = !strncmp(op, "index_add.", 10);
    bool scalar = !strcmp(op, "index_fill.int_Scalar");
    uint32_t src = EIR_NO_VALUE;
    const eir_arg *val = dc_arg_named(c, "value"), *alpha = dc_arg_named(c, "alpha");
    if (scalar) {
        if (!val || (val->kind != EIR_ARG_INT && val->kind != EIR_ARG_FLOAT && val->kind != EIR_ARG_BOOL))
            return dc_refuse(c, "argument 'value': expected a number");
    } else if ((src = dc_tensor_of(c, fill ? "value" : "source")) == EIR_NO_VALUE)
        return dc_refuse(c, "argument '%s': expected a tensor", fill ? "value" : "source");
    if (add && !is_none(alpha) && alpha->kind != EIR_ARG_INT && alpha->kind != EIR_ARG_FLOAT)
        return dc_refuse(c, "argument 'alpha': expected a number");
    k = im->sizes[0].value;
    if (c->dry) return EIR_OK;
    if (fill) {
        int64_t esz[MAXR];
        for (uint32_t i = 0; i < xm->rank; i++) esz[i] = i == wd ? k : sz[i];
        if (scalar) {
            eir_named_arg si_[5] = {pos_arg("s", *val), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                                    kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                                    kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
            if ((st = sh_emit(c, "scalar_tensor.default", 5, si_, NULL, &src))) return st;
        }
        eir_named_arg ei[2] = {pos_arg("self", a_tensor(src)), pos_arg("size", dc_a_ints(c, esz, xm->rank))};
        if ((st = sh_emit(c, "expand.default", 2, ei, NULL, &src))) return st;
    }
    if (add && !is_none(alpha) && !(alpha->kind == EIR_ARG_INT && alpha->u.i == 1) &&
        (st = sh_binary(c, "mul.Tensor", src, *alpha, NULL, &src)))
        return st;
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = (uint32_t)wd + 1;
    l.u.list.items = &c->pool[c->npool];
    for (int64_t i = 0; i < wd; i++) c->pool[c->npool++] = a_none();
    c->pool[c->npool++] = a_tensor(idx);
    eir_named_arg pi[4] = {pos_arg("self", a_tensor(x)), pos_arg("indices", l), pos_arg("values", a_tensor(src)),
                           pos_arg("accumulate", a_bool(true))};
    uint32_t res;
    if ((st = sh_emit(c, "index_put.default", add ? 4 : 3, pi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* sum_to_size -> sum.dim_IntList(keepdim) over the leading and the
 * broadcast dimensions, viewed to the size when leading ones go */
eir_status decomp_sum_to_size(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t sz[MAXR], xs[MAXR], dims[MAXR];
    uint32_t n, nd = 0;
    if (!dc_ints_of(dc_arg_named(c, "size"), sz, MAXR, &n) || n > xm->rank) return dc_refuse(c, "argument 'size': expected concrete ints");
    if (!concrete_sizes(xm, xs)) return dc_refuse(c, "an input of symbolic size");
    uint32_t lead = xm->rank - n;
    for (uint32_t i = 0; i < lead; i++) dims[nd++] = i;
    for (uint32_t i = 0; i < n; i++)
        if (sz[i] == 1 && xs[lead + i] != 1) dims[nd++] = lead + i;
    if (c->dry) return EIR_OK;
    if (!nd) return finish(c, out, x);
    uint32_t s, res;
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, dims, nd)), pos_arg("keepdim", a_bool(true))};
    if ((st = sh_emit(c, "sum.dim_IntList", 3, si_, lead ? NULL : meta_of(c, out), &s))) return st;
    if (!lead) return finish(c, out, s);
    if ((st = dc_emit_reshape(c, s, meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

/* max_pool1d (+ _with_indices) / adaptive_max_pool1d -> unsqueeze(-2), the
 * 2-d pool with a kernel of height 1, squeeze.dims([-2]) of its outputs */
eir_status decomp_max_pool1d(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE || meta_of(c, x)->rank < 2 || meta_of(c, x)->rank > 3)
        return dc_refuse(c, "argument 'self': a tensor of rank 2 or 3 expected");
    bool adaptive = !strncmp(c->op + 5, "adaptive", 8);
    int64_t k[1], s[1] = {0}, p[1] = {0}, d[1] = {1}, o[1];
    uint32_t nk = 0, ns = 0, np = 1, ndl = 1;
    bool ceil = false;
    if (adaptive) {
        if (!dc_ints_of(dc_arg_named(c, "output_size"), o, 1, &nk) || nk != 1) return dc_refuse(c, "argument 'output_size': expected one int");
    } else {
        if (!dc_ints_of(dc_arg_named(c, "kernel_size"), k, 1, &nk) || nk != 1) return dc_refuse(c, "argument 'kernel_size': expected one int");
        const eir_arg *sa = dc_arg_named(c, "stride"), *pa = dc_arg_named(c, "padding"), *da = dc_arg_named(c, "dilation");
        if (!is_none(sa) && !dc_ints_of(sa, s, 1, &ns)) return dc_refuse(c, "argument 'stride': expected one int");
        if (!is_none(pa) && !dc_ints_of(pa, p, 1, &np)) return dc_refuse(c, "argument 'padding': expected one int");
        if (!is_none(da) && !dc_ints_of(da, d, 1, &ndl)) return dc_refuse(c, "argument 'dilation': expected one int");
        if (!dc_bool_arg(c, "ceil_mode", false, &ceil)) return dc_refuse(c, "argument 'ceil_mode': expected a bool");
        if (ns == 0) s[0] = k[0];
    }
    /* outputs: values (and indices) */
    uint32_t outs[2], no = 0;
    for (uint32_t i = 0; i < c->src.num_outputs && no < 2; i++)
        if (c->src.outputs[i].kind == EIR_ARG_TENSOR && c->src.outputs[i].value < c->g->num_values) outs[no++] = c->src.outputs[i].value;
        else return dc_refuse(c, "output %u is not a tensor", i);
    if (no == 0) return dc_refuse(c, "expected tensor outputs");
    if (c->dry) return EIR_OK;
    uint32_t u, v[2], res;
    eir_status st;
    if ((st = sh_unsqueeze(c, x, -2, NULL, &u))) return st;
    eir_named_arg pi[6];
    uint32_t n = 0;
    pi[n++] = pos_arg("self", a_tensor(u));
    if (adaptive) {
        int64_t os[2] = {1, o[0]};
        pi[n++] = pos_arg("output_size", dc_a_ints(c, os, 2));
    } else {
        int64_t ks[2] = {1, k[0]}, ss[2] = {1, s[0]}, ps[2] = {0, p[0]}, ds[2] = {1, d[0]};
        pi[n++] = pos_arg("kernel_size", dc_a_ints(c, ks, 2));
        pi[n++] = pos_arg("stride", dc_a_ints(c, ss, 2));
        /* trailing defaults left out, as torch writes them */
        uint32_t last = ceil ? 3 : d[0] != 1 ? 2 : p[0] != 0 ? 1 : 0;
        if (last >= 1) pi[n++] = pos_arg("padding", dc_a_ints(c, ps, 2));
        if (last >= 2) pi[n++] = pos_arg("dilation", dc_a_ints(c, ds, 2));
        if (last >= 3) pi[n++] = pos_arg("ceil_mode", a_bool(true));
    }
    if ((st = sh_emit_n(c, adaptive ? "adaptive_max_pool2d.default" : "max_pool2d_with_indices.default", n, pi, 2, false, NULL, v)))
        return st;
    for (uint32_t i = 0; i < no; i++) {
        int64_t m2 = -2;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(v[i])), pos_arg("dim", dc_a_ints(c, &m2, 1))};
        if ((st = sh_emit(c, "squeeze.dims", 2, si_, meta_of(c, outs[i]), &res))) return st;
        if ((st = finish(c, outs[i], res))) return st;
    }
    return EIR_OK;
}

static double num_of(const eir_arg *a) {
    if (a->kind == EIR_ARG_FLOAT) return a->u.f;
    if (a->kind == EIR_ARG_BOOL) return a->u.b;
    return (double)a->u.i;
}

static bool is_float_dtype(eir_dtype dt) { return dt == EIR_F32 || dt == EIR_F64; }

static bool is_int_dtype(eir_dtype dt) {
    return dt == EIR_U8 || dt == EIR_I8 || dt == EIR_I16 || dt == EIR_I32 || dt == EIR_I64;
}

/* linspace (numbers) -> steps 0 and 1: full; else torch's two-sided
 * formula: where(i < steps / 2, start + i * step, end - (steps - 1 - i) *
 * step), computed in the result's float dtype (an integer result: in the
 * default float dtype, converted last); logspace -> the same in float64,
 * then pow(base, .) converted to the result's dtype */
eir_status decomp_linspace(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    const eir_tensor_meta *om = meta_of(c, out);
    bool logsp = !strncmp(c->op, "aten.logspace", 13);
    const eir_arg *sa = dc_arg_named(c, "start"), *ea = dc_arg_named(c, "end"), *ba = dc_arg_named(c, "base");
    int64_t steps;
    if (!sa || !ea || (sa->kind != EIR_ARG_INT && sa->kind != EIR_ARG_FLOAT) || (ea->kind != EIR_ARG_INT && ea->kind != EIR_ARG_FLOAT))
        return dc_refuse(c, "arguments 'start', 'end': expected numbers");
    if (!int_of(dc_arg_named(c, "steps"), &steps) || steps < 0) return dc_refuse(c, "argument 'steps': expected a non-negative int");
    if (logsp && !is_none(ba) && ba->kind != EIR_ARG_INT && ba->kind != EIR_ARG_FLOAT) return dc_refuse(c, "argument 'base': expected a number");
    if (!is_float_dtype(om->dtype) && !is_int_dtype(om->dtype)) return dc_refuse(c, "a result of dtype other than float32, float64 or integer");
    if (om->rank != 1) return dc_refuse(c, "expected a 1-d result");
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t res;
    if (steps < 2) {
        /* full of start (or empty); logspace: in float64, then pow and
         * the conversion */
        eir_named_arg fi[6] = {pos_arg("size", dc_a_ints(c, &steps, 1)), pos_arg("fill_value", steps ? *sa : a_int(0)),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, logsp ? EIR_F64 : om->dtype)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(om)),
                               kw_arg("pin_memory", a_bool(false))};
        if ((st = sh_emit(c, "full.default", 6, fi, logsp ? NULL : om, &res))) return st;
        if (logsp) {
            eir_named_arg pi[2] = {pos_arg("self", is_none(ba) ? a_int(10) : *ba), pos_arg("exponent", a_tensor(res))};
            if ((st = sh_emit(c, "pow.Scalar", 2, pi, NULL, &res))) return st;
            eir_named_arg ti[2] = {pos_arg("self", a_tensor(res)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype))};
            if ((st = sh_emit(c, "_to_copy.default", 2, ti, om, &res))) return st;
        }
        return finish(c, out, res);
    }
    eir_dtype cdt = logsp ? EIR_F64 : is_float_dtype(om->dtype) ? om->dtype : EIR_DTYPE_UNKNOWN;
    double step = (num_of(ea) - num_of(sa)) / (double)(steps - 1);
    bool last_is_where = !logsp && is_float_dtype(om->dtype);
    uint32_t ar, lt, a, m, add, sub, b, m1, s1, w;
    if ((st = sh_arange(c, 0, steps, EIR_DTYPE_UNKNOWN, om, &ar))) return st;
    if ((st = sh_binary(c, "lt.Scalar", ar, a_float((double)steps / 2), NULL, &lt))) return st;
    a = ar;
    if (cdt != EIR_DTYPE_UNKNOWN) {
        eir_named_arg ti[2] = {pos_arg("self", a_tensor(ar)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, cdt))};
        if ((st = sh_emit(c, "_to_copy.default", 2, ti, NULL, &a))) return st;
    }
    if ((st = sh_binary(c, "mul.Tensor", a, a_float(step), NULL, &m))) return st;
    if ((st = sh_binary(c, "add.Tensor", m, *sa, NULL, &add))) return st;
    eir_named_arg si_[2] = {pos_arg("self", a_int(steps - 1)), pos_arg("other", a_tensor(ar))};
    if ((st = sh_emit(c, "sub.Tensor", 2, si_, NULL, &sub))) return st;
    b = sub;
    if (cdt != EIR_DTYPE_UNKNOWN) {
        eir_named_arg ti[2] = {pos_arg("self", a_tensor(sub)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, cdt))};
        if ((st = sh_emit(c, "_to_copy.default", 2, ti, NULL, &b))) return st;
    }
    if ((st = sh_binary(c, "mul.Tensor", b, a_float(step), NULL, &m1))) return st;
    eir_named_arg ri[2] = {pos_arg("self", *ea), pos_arg("other", a_tensor(m1))};
    if ((st = sh_emit(c, "sub.Tensor", 2, ri, NULL, &s1))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(lt)), pos_arg("self", a_tensor(add)), pos_arg("other", a_tensor(s1))};
    if ((st = sh_emit(c, "where.self", 3, wi, last_is_where ? om : NULL, &w))) return st;
    if (last_is_where) return finish(c, out, w);
    if (logsp) {
        eir_named_arg pi[2] = {pos_arg("self", is_none(ba) ? a_int(10) : *ba), pos_arg("exponent", a_tensor(w))};
        if ((st = sh_emit(c, "pow.Scalar", 2, pi, NULL, &w))) return st;
    }
    eir_named_arg ti[2] = {pos_arg("self", a_tensor(w)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype))};
    if ((st = sh_emit(c, "_to_copy.default", 2, ti, om, &res))) return st;
    return finish(c, out, res);
}

static eir_status sh_full(dc *c, const int64_t *sz, uint32_t n, eir_arg fill, const eir_tensor_meta *like, uint32_t *res) {
    eir_named_arg fi[6] = {pos_arg("size", dc_a_ints(c, sz, n)), pos_arg("fill_value", fill),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, like->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(like)),
                           kw_arg("pin_memory", a_bool(false))};
    return sh_emit(c, "full.default", 6, fi, NULL, res);
}

/* block_diag -> each operand as a matrix (0-d and 1-d viewed as one row),
 * padded left and right with zeros (full + cat), the rows concatenated */
eir_status decomp_block_diag(dc *c) {
    uint32_t out = out_value(c), v[MAXR], n;
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (!sh_tensor_list(c, "tensors", v, &n) || n == 0) return dc_refuse(c, "argument 'tensors': expected 1 to %d tensors", MAXR);
    const eir_tensor_meta *om = meta_of(c, out);
    int64_t rows[MAXR], cols[MAXR], total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const eir_tensor_meta *m = meta_of(c, v[i]);
        if (m->rank > 2 || !dc_meta_concrete_sizes(m) || m->dtype != om->dtype)
            return dc_refuse(c, "operand %u: a tensor of rank up to 2, concrete size and the result's dtype expected", i);
        rows[i] = m->rank == 2 ? m->sizes[0].value : 1;
        cols[i] = m->rank == 2 ? m->sizes[1].value : m->rank == 1 ? m->sizes[0].value : 1;
        total += cols[i];
    }
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t w[MAXR], row[MAXR], res;
    for (uint32_t i = 0; i < n; i++) {
        int64_t sz[2] = {1, -1};
        w[i] = v[i];
        if (meta_of(c, v[i])->rank < 2 && (st = sh_view(c, v[i], sz, 2, NULL, &w[i]))) return st;
    }
    int64_t left = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t ls[2] = {rows[i], left}, rs[2] = {rows[i], total - left - cols[i]};
        uint32_t fl, fr;
        if ((st = sh_full(c, ls, 2, a_int(0), om, &fl)) || (st = sh_full(c, rs, 2, a_int(0), om, &fr))) return st;
        uint32_t parts[3] = {fl, w[i], fr};
        eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, parts, 3)), pos_arg("dim", a_int(1))};
        if ((st = sh_emit(c, "cat.default", 2, ci, NULL, &row[i]))) return st;
        left += cols[i];
    }
    eir_named_arg ci[1] = {pos_arg("tensors", sh_a_tensors(c, row, n))};
    if ((st = sh_emit(c, "cat.default", 1, ci, om, &res))) return st;
    return finish(c, out, res);
}

/* take_along_dim(x, idx, dim) -> gather(x expanded, dim, idx expanded
 * remainder size); without dim, gather(x flat, 0, idx flat) */
eir_status decomp_take_along_dim(dc *c) {
    uint32_t x, out, idx;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if ((idx = dc_tensor_of(c, "indices")) == EIR_NO_VALUE || meta_of(c, idx)->rank > MAXR)
        return dc_refuse(c, "argument 'indices': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x), *im = meta_of(c, idx);
    const eir_arg *da = dc_arg_named(c, "dim");
    int64_t dim = 0, xs[MAXR], is[MAXR];
    bool flat = is_none(da);
    if (!flat && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (flat) {
        if (!dc_meta_contiguous(xm) || !dc_meta_contiguous(im)) return dc_refuse(c, "non-contiguous operands without 'dim'");
    } else {
        dim = wrap_dim(dim, xm->rank);
        if (xm->rank == 0 || im->rank != xm->rank || dim < 0 || dim >= xm->rank || !concrete_sizes(xm, xs) || !concrete_sizes(im, is))
            return dc_refuse(c, "operands of one rank (at least 1) and concrete sizes, dim in range expected");
        for (uint32_t i = 0; i < xm->rank; i++)
            if (i != dim && xs[i] != is[i] && xs[i] != 1 && is[i] != 1) return dc_refuse(c, "sizes that do not broadcast");
    }
    if (c->dry) return EIR_OK;
    uint32_t a, b, res;
    if (flat) {
        int64_t m1 = -1;
        if ((st = sh_view(c, x, &m1, 1, NULL, &a)) || (st = sh_view(c, idx, &m1, 1, NULL, &b))) return st;
        dim = 0;
    } else {
        int64_t ei[MAXR], ex[MAXR];
        for (uint32_t i = 0; i < xm->rank; i++) {
            int64_t bsz = xs[i] == 1 ? is[i] : xs[i];
            ei[i] = i == dim ? is[i] : bsz;
            ex[i] = i == dim ? xs[i] : bsz;
        }
        uint32_t e1, e2;
        eir_named_arg i1[2] = {pos_arg("self", a_tensor(idx)), pos_arg("size", dc_a_ints(c, ei, xm->rank))};
        if ((st = sh_emit(c, "expand.default", 2, i1, NULL, &e1))) return st;
        eir_named_arg i2[2] = {pos_arg("self", a_tensor(x)), pos_arg("size", dc_a_ints(c, ex, xm->rank))};
        if ((st = sh_emit(c, "expand.default", 2, i2, NULL, &e2))) return st;
        if ((st = sh_binary(c, "remainder.Scalar", e1, a_int(xs[dim]), NULL, &b))) return st;
        a = e2;
    }
    eir_named_arg gi[3] = {pos_arg("self", a_tensor(a)), pos_arg("dim", a_int(dim)), pos_arg("index", a_tensor(b))};
    if ((st = sh_emit(c, "gather.default", 3, gi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* trapezoid.dx / trapz.dx -> (sum - (first + last) / 2) * dx;
 * cumulative_trapezoid.dx -> cumsum((y[:-1] + y[1:]) * dx / 2); the .x
 * forms -> sum (cumsum) of (y[:-1] + y[1:]) * diff(x) along dim, / 2 */
eir_status decomp_trapezoid(dc *c) {
    uint32_t y, out;
    eir_status st = dc_need_io(c, "y", &y, &out);
    if (st) return st;
    const eir_tensor_meta *ym = meta_of(c, y);
    int64_t dim = -1, len;
    double dx = 1;
    const eir_arg *da = dc_arg_named(c, "dim"), *xa = dc_arg_named(c, "dx");
    if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (!is_none(xa)) {
        if (xa->kind != EIR_ARG_INT && xa->kind != EIR_ARG_FLOAT) return dc_refuse(c, "argument 'dx': expected a number");
        dx = num_of(xa);
    }
    if (!concrete_dim(ym, wrap_dim(dim, ym->rank), &len) || len == 0)
        return dc_refuse(c, "dimension %lld out of range, empty or of symbolic size", (long long)dim);
    if (!is_float_dtype(ym->dtype)) return dc_refuse(c, "a non-float input");
    uint32_t xv = dc_tensor_of(c, "x");
    bool by_x = strstr(c->op, ".x") != NULL;
    if (by_x) {
        /* spacing by sample points: x 1-d (viewed along dim) or of y's sizes */
        if (xv == EIR_NO_VALUE) return dc_refuse(c, "argument 'x': expected a tensor");
        const eir_tensor_meta *xm = meta_of(c, xv);
        bool same = xm->rank == ym->rank && dc_meta_concrete_sizes(xm) && dc_meta_concrete_sizes(ym);
        for (uint32_t i = 0; same && i < xm->rank; i++) same = xm->sizes[i].value == ym->sizes[i].value;
        if (!(xm->rank == 1 && !xm->sizes[0].is_expr && xm->sizes[0].value == len) && !same)
            return dc_refuse(c, "argument 'x': a 1-d tensor of the dimension's size or one of y's sizes expected");
        if (ym->rank > MAXR || len < 2) return dc_refuse(c, "fewer than 2 samples");
    }
    if (c->dry) return EIR_OK;
    uint32_t a, b, s, m, sm, d, res;
    if (by_x) {
        int64_t wd = wrap_dim(dim, ym->rank), vs[MAXR];
        uint32_t xw = xv, xl, xh, dxv;
        if (meta_of(c, xv)->rank == 1) {
            for (uint32_t i = 0; i < ym->rank; i++) vs[i] = i == wd ? len : 1;
            if ((st = sh_view(c, xv, vs, ym->rank, NULL, &xw))) return st;
        }
        eir_named_arg l1[4] = {pos_arg("self", a_tensor(xw)), pos_arg("dim", a_int(wd)), pos_arg("start", a_int(0)), pos_arg("end", a_int(-1))};
        if ((st = sh_emit(c, "slice.Tensor", 4, l1, NULL, &xl))) return st;
        eir_named_arg h1[3] = {pos_arg("self", a_tensor(xw)), pos_arg("dim", a_int(wd)), pos_arg("start", a_int(1))};
        if ((st = sh_emit(c, "slice.Tensor", 3, h1, NULL, &xh))) return st;
        if ((st = sh_binary(c, "sub.Tensor", xh, a_tensor(xl), NULL, &dxv))) return st;
        eir_named_arg l2[4] = {pos_arg("self", a_tensor(y)), pos_arg("dim", a_int(wd)), pos_arg("start", a_int(0)), pos_arg("end", a_int(-1))};
        if ((st = sh_emit(c, "slice.Tensor", 4, l2, NULL, &a))) return st;
        eir_named_arg h2[3] = {pos_arg("self", a_tensor(y)), pos_arg("dim", a_int(wd)), pos_arg("start", a_int(1))};
        if ((st = sh_emit(c, "slice.Tensor", 3, h2, NULL, &b))) return st;
        if ((st = sh_binary(c, "add.Tensor", a, a_tensor(b), NULL, &s))) return st;
        if ((st = sh_binary(c, "mul.Tensor", s, a_tensor(dxv), NULL, &m))) return st;
        if (strstr(c->op, "cumulative")) {
            eir_named_arg ci[2] = {pos_arg("self", a_tensor(m)), pos_arg("dim", a_int(wd))};
            if ((st = sh_emit(c, "cumsum.default", 2, ci, NULL, &sm))) return st;
        } else if ((st = sh_sum(c, m, &wd, 1, NULL, &sm)))
            return st;
        if ((st = sh_binary(c, "div.Scalar", sm, a_float(2.0), meta_of(c, out), &res))) return st;
        return finish(c, out, res);
    }
    if (strstr(c->op, "cumulative")) {
        eir_named_arg s1[4] = {pos_arg("self", a_tensor(y)), pos_arg("dim", a_int(dim)), pos_arg("start", a_int(0)),
                               pos_arg("end", a_int(-1))};
        if ((st = sh_emit(c, "slice.Tensor", 4, s1, NULL, &a))) return st;
        eir_named_arg s2[3] = {pos_arg("self", a_tensor(y)), pos_arg("dim", a_int(dim)), pos_arg("start", a_int(1))};
        if ((st = sh_emit(c, "slice.Tensor", 3, s2, NULL, &b))) return st;
        if ((st = sh_binary(c, "add.Tensor", a, a_tensor(b), NULL, &s))) return st;
        if ((st = sh_binary(c, "mul.Scalar", s, a_float(dx / 2), NULL, &m))) return st;
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(m)), pos_arg("dim", a_int(dim))};
        if ((st = sh_emit(c, "cumsum.default", 2, ci, meta_of(c, out), &res))) return st;
        return finish(c, out, res);
    }
    eir_named_arg s1[3] = {pos_arg("self", a_tensor(y)), pos_arg("dim", a_int(dim)), pos_arg("index", a_int(-1))};
    if ((st = sh_emit(c, "select.int", 3, s1, NULL, &a))) return st;
    eir_named_arg s2[3] = {pos_arg("self", a_tensor(y)), pos_arg("dim", a_int(dim)), pos_arg("index", a_int(0))};
    if ((st = sh_emit(c, "select.int", 3, s2, NULL, &b))) return st;
    if ((st = sh_binary(c, "add.Tensor", b, a_tensor(a), NULL, &s))) return st;
    if ((st = sh_binary(c, "mul.Scalar", s, a_float(0.5), NULL, &m))) return st;
    if ((st = sh_sum(c, y, &dim, 1, NULL, &sm))) return st;
    if ((st = sh_binary(c, "sub.Tensor", sm, a_tensor(m), NULL, &d))) return st;
    if ((st = sh_binary(c, "mul.Scalar", d, a_float(dx), meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* _chunk_cat(tensors, dim, num_chunks) -> each padded at the end of dim
 * to a multiple of num_chunks (constant_pad_nd, when it is not one) and
 * viewed as [..., num_chunks, -1] at dim, cat at dim + 1 */
eir_status decomp_chunk_cat(dc *c) {
    uint32_t out = out_value(c), v[MAXR], n;
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (!sh_tensor_list(c, "tensors", v, &n) || n == 0) return dc_refuse(c, "argument 'tensors': expected 1 to %d tensors", MAXR);
    int64_t dim, k;
    if (!int_of(dc_arg_named(c, "dim"), &dim) || !int_of(dc_arg_named(c, "num_chunks"), &k) || k <= 0)
        return dc_refuse(c, "arguments 'dim', 'num_chunks': expected ints (num_chunks positive)");
    uint32_t r = meta_of(c, v[0])->rank;
    dim = wrap_dim(dim, r);
    if (dim < 0 || dim >= r || dim + 2 > MAXR) return dc_refuse(c, "argument 'dim': out of range");
    for (uint32_t i = 0; i < n; i++) {
        const eir_tensor_meta *m = meta_of(c, v[i]);
        if ((int64_t)m->rank <= dim || m->rank > MAXR || !dc_meta_concrete_sizes(m) ||
            (!dc_meta_contiguous(m) && m->sizes[dim].value % k == 0))
            return dc_refuse(c, "operand %u: of concrete size and rank above %lld, contiguous unless padded, expected", i,
                             (long long)dim);
    }
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t w[MAXR], res;
    for (uint32_t i = 0; i < n; i++) {
        const eir_tensor_meta *m = meta_of(c, v[i]);
        int64_t sz[MAXR];
        for (int64_t d = 0; d < dim; d++) sz[d] = m->sizes[d].value;
        sz[dim] = k;
        sz[dim + 1] = -1;
        uint32_t x = v[i];
        int64_t extra = (k - m->sizes[dim].value % k) % k;
        if (extra) {
            /* padded at the end of dim to a multiple of num_chunks */
            int64_t pad[2 * MAXR] = {0};
            uint32_t np = 2 * (m->rank - (uint32_t)dim);
            pad[np - 1] = extra;
            eir_named_arg pi[2] = {pos_arg("self", a_tensor(x)), pos_arg("pad", dc_a_ints(c, pad, np))};
            if ((st = sh_emit(c, "constant_pad_nd.default", 2, pi, NULL, &x))) return st;
        }
        if ((st = sh_view(c, x, sz, (uint32_t)dim + 2, NULL, &w[i]))) return st;
    }
    eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, w, n)), pos_arg("dim", a_int(dim + 1))};
    if ((st = sh_emit(c, "cat.default", 2, ci, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* instance_norm without weight, bias or running statistics -> viewed as
 * [1, N * C, ...], _native_batch_norm_legit.no_stats (training), viewed
 * back (with them: decomp_instance_norm_stats) */
eir_status decomp_instance_norm(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    bool use = false;
    if (!is_none(dc_arg_named(c, "weight")) || !is_none(dc_arg_named(c, "bias")) || !is_none(dc_arg_named(c, "running_mean")) ||
        !is_none(dc_arg_named(c, "running_var")))
        return decomp_instance_norm_stats(c);
    if (!dc_bool_arg(c, "use_input_stats", false, &use) || !use) return dc_refuse(c, "use_input_stats false");
    const eir_arg *mom = dc_arg_named(c, "momentum"), *eps = dc_arg_named(c, "eps");
    int64_t sz[MAXR];
    if (!mom || !eps) return dc_refuse(c, "arguments 'momentum', 'eps' missing");
    if (xm->rank < 2 || !concrete_sizes(xm, sz)) return dc_refuse(c, "an input of rank below 2 or of symbolic size");
    if (c->dry) return EIR_OK;
    int64_t v[MAXR];
    v[0] = 1;
    v[1] = sz[0] * sz[1];
    for (uint32_t i = 2; i < xm->rank; i++) v[i] = sz[i];
    uint32_t a, bn[3], res;
    if ((st = sh_reshape(c, x, v, xm->rank, NULL, &a))) return st;
    eir_named_arg bi[6] = {pos_arg("input", a_tensor(a)), pos_arg("weight", a_none()), pos_arg("bias", a_none()),
                           pos_arg("training", a_bool(true)), pos_arg("momentum", *mom), pos_arg("eps", *eps)};
    if ((st = sh_emit_n(c, "_native_batch_norm_legit.no_stats", 6, bi, 3, false, NULL, bn))) return st;
    if ((st = dc_emit_reshape(c, bn[0], meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

/* upsample_nearest1d/3d.vec, _upsample_nearest_exact1d/2d/3d.vec -> per
 * spatial dim: index = int64((arange(out, float32) + offset) * scale)
 * (offset 0.5 for exact; scale 1 / scale_factor, or in / out), unsqueezed
 * to broadcast, then index.Tensor with None for batch and channels */
eir_status decomp_upsample_nearest(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    const char *op = c->op + 5;
    bool exact = strstr(op, "exact") != NULL;
    uint32_t k = (uint32_t)(strstr(op, "d.vec")[-1] - '0');
    int64_t xs[MAXR], os[MAXR];
    if (k < 1 || k > 3 || xm->rank != k + 2 || om->rank != k + 2) return dc_refuse(c, "an input of rank %u", xm->rank);
    if (!concrete_sizes(xm, xs) || !concrete_sizes(om, os)) return dc_refuse(c, "symbolic sizes");
    if (!is_float_dtype(xm->dtype)) return dc_refuse(c, "an input of dtype other than float32 or float64");
    const eir_arg *sf = dc_arg_named(c, "scale_factors");
    double scale[3];
    bool have_sf = !is_none(sf);
    if (have_sf && (sf->kind != EIR_ARG_FLOATS || sf->u.list.n != k)) return dc_refuse(c, "argument 'scale_factors': expected %u floats", k);
    for (uint32_t d = 0; d < k; d++) {
        if (os[2 + d] == 0) return dc_refuse(c, "an empty result");
        if (have_sf) {
            const eir_arg *f = &sf->u.list.items[d];
            double v = f->kind == EIR_ARG_FLOAT ? f->u.f : (double)f->u.i;
            if (!(v > 0)) return dc_refuse(c, "argument 'scale_factors': a non-positive factor");
            scale[d] = 1.0 / v;
        } else
            scale[d] = (double)xs[2 + d] / (double)os[2 + d];
    }
    if (c->dry) return EIR_OK;
    uint32_t idx[3], res;
    for (uint32_t d = 0; d < k; d++) {
        uint32_t ar, ad, mu, ic;
        if ((st = sh_arange(c, 0, os[2 + d], EIR_F32, xm, &ar))) return st;
        if ((st = sh_binary(c, "add.Tensor", ar, a_float(exact ? 0.5 : 0.0), NULL, &ad))) return st;
        if ((st = sh_binary(c, "mul.Tensor", ad, a_float(scale[d]), NULL, &mu))) return st;
        eir_named_arg ti[2] = {pos_arg("self", a_tensor(mu)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_I64))};
        if ((st = sh_emit(c, "_to_copy.default", 2, ti, NULL, &ic))) return st;
        for (uint32_t u = d + 1; u < k; u++)
            if ((st = sh_unsqueeze(c, ic, -1, NULL, &ic))) return st;
        idx[d] = ic;
    }
    eir_arg l = {0};
    l.kind = EIR_ARG_OPTIONAL_TENSORS;
    l.u.list.n = k + 2;
    l.u.list.items = &c->pool[c->npool];
    c->pool[c->npool++] = a_none();
    c->pool[c->npool++] = a_none();
    for (uint32_t d = 0; d < k; d++) c->pool[c->npool++] = a_tensor(idx[d]);
    eir_named_arg ii[2] = {pos_arg("self", a_tensor(x)), pos_arg("indices", l)};
    if ((st = sh_emit(c, "index.Tensor", 2, ii, om, &res))) return st;
    return finish(c, out, res);
}
