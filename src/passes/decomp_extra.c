/* decomp_extra.c — to-core rules for histogramdd and multilabel_margin_loss,
 *   histogramdd(self, int[] bins, range, weight, density)
 *       -> _histogramdd_bin_edges(self, bins, ...) (the edges) and
 *          _histogramdd_from_bin_cts(self, bins, ...) (the histogram)
 *   histogramdd.TensorList_bins(self, Tensor[] bins, range, weight, density)
 *       -> _histogramdd_from_bin_tensors(self, bins, weight, density); the
 *          edges are the bins tensors themselves
 * range, weight and density passed as keywords where given (torch's
 * printing);
 *   multilabel_margin_loss(input, target, reduction) as torch's
 *   decomposition of multilabel_margin_loss_forward: both made 2-d
 *   (atleast_2d), the targets before the first -1 gathered, the hinge
 *   max(0, 1 - x[target] + x) / dim summed where the class is no target
 *   and the target slot comes before the first -1 (a step torch's
 *   decomposition lacks, see below), then reduced (is_target, its second output, is not computed: unused);
 *   embedding_bag (both overloads) -> _embedding_bag_forward_only on
 *   contiguous indices and offsets (clone where they are not), the trailing
 *   arguments that have their default values left out, as torch prints
 *   them;
 *   stft of a real input (window of n_fft values or none) as torch's
 *   composite: unsqueeze(0) of a 1-d input, unfold(-1, n_fft, hop), times
 *   the window, _fft_r2c over the last dim, permute [0, 2, 1], squeeze(0)
 *   of a 1-d input, view_as_real unless return_complex;
 *   nonzero_numpy(x) -> nonzero (of x unsqueezed when 0-d), the runtime
 *   size assertions on its row count moved onto it, then its columns by
 *   slice + squeeze.dims (unbind(1));
 *   combinations(x, r=1) -> view(-1) + expand (meshgrid of one), a full
 *   mask of True, masked_select (the assertions on the row count moved
 *   onto it), then stack (unsqueeze + cat); r >= 2 refused. */
#include <string.h>

#include "decomp_int.h"

eir_status decomp_histogramdd(dc *c) {
    bool tensor_bins = !strcmp(c->op, "aten.histogramdd.TensorList_bins");
    if (c->src.num_outputs != 2 || c->src.outputs[0].kind != EIR_ARG_TENSOR || c->src.outputs[1].kind != EIR_ARG_TENSORS)
        return dc_refuse(c, "expected a histogram and a Tensor[] of edges as outputs");
    const eir_arg *edges = &c->src.outputs[1];
    uint32_t x = dc_tensor_of(c, "self");
    const eir_arg *bins = dc_arg_named(c, "bins"), *range = dc_arg_named(c, "range");
    if (x == EIR_NO_VALUE || !bins) return dc_refuse(c, "arguments 'self', 'bins' missing");
    if (edges->u.list.n > MAXR) return dc_refuse(c, "more than %d dimensions", MAXR);
    uint32_t w = dc_tensor_of(c, "weight");
    bool density;
    if (!dc_bool_arg(c, "density", false, &density)) return dc_refuse(c, "argument 'density': expected a bool");
    if (tensor_bins) {
        if (bins->kind != EIR_ARG_TENSORS || bins->u.list.n != edges->u.list.n)
            return dc_refuse(c, "argument 'bins': expected one tensor per output edge");
    } else if (bins->kind != EIR_ARG_INTS && bins->kind != EIR_ARG_SYM_INTS)
        return dc_refuse(c, "argument 'bins': expected ints");
    if (c->dry) return EIR_OK;
    eir_named_arg ins[5];
    uint32_t n = 0;
    eir_arg b = *bins;
    b.name = NULL;
    ins[n++] = pos_arg("self", a_tensor(x));
    ins[n++] = pos_arg("bins", b);
    if (!tensor_bins && !is_none(range)) {
        eir_arg ra = *range;
        ra.name = NULL;
        ins[n++] = kw_arg("range", ra);
    }
    if (w != EIR_NO_VALUE) ins[n++] = kw_arg("weight", a_tensor(w));
    if (density) ins[n++] = kw_arg("density", a_bool(true));
    uint32_t hist, ev[MAXR];
    uint32_t out = c->src.outputs[0].value, ne = edges->u.list.n;
    eir_status st;
    if (tensor_bins) {
        if ((st = dc_emit(c, "_histogramdd_from_bin_tensors.default", n, ins, meta_of(c, out), "_histogramdd_from_bin_tensors",
                          &hist)))
            return st;
        for (uint32_t i = 0; i < ne; i++) ev[i] = bins->u.list.items[i].value;
    } else {
        const eir_tensor_meta *ms[MAXR];
        for (uint32_t i = 0; i < ne; i++) ms[i] = meta_of(c, edges->u.list.items[i].value);
        if ((st = dc_emit_n(c, "_histogramdd_bin_edges.default", n, ins, ne, ms, "_histogramdd_bin_edges", true, ev)))
            return st;
        if ((st = dc_emit(c, "_histogramdd_from_bin_cts.default", n, ins, meta_of(c, out), "_histogramdd_from_bin_cts",
                          &hist)))
            return st;
    }
    if ((st = finish(c, out, hist))) return st;
    for (uint32_t i = 0; i < ne; i++)
        if (edges->u.list.items[i].value != EIR_NO_VALUE && (st = finish(c, edges->u.list.items[i].value, ev[i]))) return st;
    return EIR_OK;
}

/* scalar_tensor(v, dtype, layout, device) */
static eir_status ex_scalar(dc *c, eir_arg v, eir_dtype dt, const eir_tensor_meta *like, uint32_t *res) {
    eir_named_arg si_[4] = {pos_arg("s", v), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                            kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(like))};
    return sh_emit(c, "scalar_tensor.default", 4, si_, NULL, res);
}

static eir_status ex_bin(dc *c, const char *target, eir_arg a, eir_arg b, uint32_t *res) {
    eir_named_arg bi[2] = {pos_arg("self", a), pos_arg("other", b)};
    return sh_emit(c, target, 2, bi, NULL, res);
}

static eir_status ex_where(dc *c, uint32_t cond, uint32_t a, uint32_t b, uint32_t *res) {
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(cond)), pos_arg("self", a_tensor(a)), pos_arg("other", a_tensor(b))};
    return sh_emit(c, "where.self", 3, wi, NULL, res);
}

/* atleast_2d: view [1, 1] of a 0-d tensor, unsqueeze(0) of a 1-d one */
static eir_status ex_2d(dc *c, uint32_t x, uint32_t *res) {
    const eir_tensor_meta *m = meta_of(c, x);
    if (m->rank >= 2) {
        *res = x;
        return EIR_OK;
    }
    if (m->rank == 1) return sh_unsqueeze(c, x, 0, NULL, res);
    int64_t one[2] = {1, 1};
    return sh_view(c, x, one, 2, NULL, res);
}

eir_status decomp_multilabel_margin(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t t = dc_tensor_of(c, "target");
    int64_t red = 1;
    const eir_arg *ra = dc_arg_named(c, "reduction");
    if (t == EIR_NO_VALUE) return dc_refuse(c, "argument 'target': expected a tensor");
    if (!is_none(ra) && !int_of(ra, &red)) return dc_refuse(c, "argument 'reduction': expected an int");
    const eir_tensor_meta *xm = meta_of(c, x), *tmeta = meta_of(c, t);
    if (!dc_meta_concrete_sizes(xm) || !dc_meta_concrete_sizes(tmeta)) return dc_refuse(c, "symbolic sizes");
    if (xm->rank > 2 || tmeta->rank != xm->rank) return dc_refuse(c, "input and target of rank %u and %u (expected equal, at most 2)",
                                                              xm->rank, tmeta->rank);
    if (red < 0 || red > 2) return dc_refuse(c, "reduction %lld", (long long)red);
    if (red == 0 && xm->rank < 2) return dc_refuse(c, "reduction 'none' of an input of rank %u", xm->rank);
    if (xm->dtype != EIR_F32 && xm->dtype != EIR_F64) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (c->dry) return EIR_OK;
    uint32_t x2, t2, idx, end, stn, w, amin, lt, z0, w1, u, m1, w2, uq, eq1, is_t, pm, uq2, sub, add, cl, dv, zf, wz, res;
    int64_t dim = xm->rank == 2 ? xm->sizes[1].value : xm->rank == 1 ? xm->sizes[0].value : 1;
    if ((st = ex_2d(c, x, &x2)) || (st = ex_2d(c, t, &t2))) return st;
    if ((st = sh_arange(c, 0, dim, EIR_DTYPE_UNKNOWN, tmeta, &idx))) return st;
    if ((st = ex_bin(c, "eq.Scalar", a_tensor(t2), a_int(-1), &end))) return st;
    if ((st = ex_scalar(c, a_int(dim), EIR_I64, tmeta, &stn))) return st;
    if ((st = ex_where(c, end, idx, stn, &w))) return st;
    int64_t last = -1;
    eir_named_arg ai[3] = {pos_arg("self", a_tensor(w)), pos_arg("dim", dc_a_ints(c, &last, 1)), pos_arg("keepdim", a_bool(true))};
    if ((st = sh_emit(c, "amin.default", 3, ai, NULL, &amin))) return st;
    if ((st = ex_bin(c, "lt.Tensor", a_tensor(idx), a_tensor(amin), &lt))) return st;
    if ((st = ex_scalar(c, a_int(0), EIR_I64, tmeta, &z0))) return st;
    if ((st = ex_where(c, lt, t2, z0, &w1))) return st;
    eir_named_arg gi[3] = {pos_arg("self", a_tensor(x2)), pos_arg("dim", a_int(-1)), pos_arg("index", a_tensor(w1))};
    if ((st = sh_emit(c, "gather.default", 3, gi, NULL, &u))) return st;
    if ((st = ex_scalar(c, a_int(-1), EIR_I64, tmeta, &m1))) return st;
    if ((st = ex_where(c, lt, t2, m1, &w2))) return st;
    if ((st = sh_unsqueeze(c, w2, -1, NULL, &uq))) return st;
    if ((st = ex_bin(c, "eq.Tensor", a_tensor(idx), a_tensor(uq), &eq1))) return st;
    eir_named_arg ni[2] = {pos_arg("self", a_tensor(eq1)), pos_arg("dim", a_int(1))};
    if ((st = sh_emit(c, "any.dim", 2, ni, NULL, &is_t))) return st;
    int64_t pr[2] = {1, 0};
    if ((st = sh_permute(c, u, pr, 2, NULL, &pm))) return st;
    if ((st = sh_unsqueeze(c, pm, -1, NULL, &uq2))) return st;
    /* 1.0 - u^T[..., None]: sub.Tensor with a float self, as torch records it */
    tm sm;
    dc_tm_from(&sm, meta_of(c, uq2));
    sm.m.dtype = xm->dtype;
    dc_tm_contig(&sm);
    eir_named_arg si_[2] = {pos_arg("self", a_float(1.0)), pos_arg("other", a_tensor(uq2))};
    if ((st = dc_emit(c, "sub.Tensor", 2, si_, &sm.m, "sub", &sub))) return st;
    if ((st = ex_bin(c, "add.Tensor", a_tensor(sub), a_tensor(x2), &add))) return st;
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(add)), pos_arg("min", a_int(0))};
    if ((st = sh_emit(c, "clamp.default", 2, ci, NULL, &cl))) return st;
    if ((st = ex_bin(c, "div.Tensor", a_tensor(cl), a_int(dim), &dv))) return st;
    if ((st = ex_scalar(c, a_int(0), xm->dtype, xm, &zf))) return st;
    if ((st = ex_where(c, is_t, zf, dv, &wz))) return st;
    /* torch 2.13's decomposition stops here and so counts the target slots
     * after the first -1 (gathered at class 0) as targets: its values
     * differ from the op's whenever a row has fewer than dim targets (the
     * documented example gives 2.05 for 0.85). Those slots are zeroed too:
     * where(target_mask^T[..., None], z, 0). */
    uint32_t lt_t, lt_u, wz2;
    if ((st = sh_permute(c, lt, pr, 2, NULL, &lt_t)) || (st = sh_unsqueeze(c, lt_t, -1, NULL, &lt_u)) ||
        (st = ex_where(c, lt_u, wz, zf, &wz2)))
        return st;
    wz = wz2;
    /* sum: over every dim (sum.dim_IntList with no dims, as torch's sum) */
    int64_t dims[2] = {0, -1};
    uint32_t s2;
    if ((st = sh_sum(c, wz, dims, red == 2 ? 0 : 2, NULL, &s2))) return st;
    if (red == 2) return finish(c, out, s2);
    if (red == 0) return finish(c, out, s2);
    eir_named_arg mi[1] = {pos_arg("self", a_tensor(s2))};
    if ((st = sh_emit(c, "mean.default", 1, mi, NULL, &res))) return st;
    return finish(c, out, res);
}

eir_status decomp_embedding_bag(dc *c) {
    if (c->src.num_outputs != 4) return dc_refuse(c, "expected 4 outputs");
    for (uint32_t i = 0; i < 4; i++)
        if (c->src.outputs[i].kind != EIR_ARG_TENSOR) return dc_refuse(c, "expected tensor outputs");
    uint32_t w = dc_tensor_of(c, "weight"), ix = dc_tensor_of(c, "indices"), off = dc_tensor_of(c, "offsets");
    if (w == EIR_NO_VALUE || ix == EIR_NO_VALUE || off == EIR_NO_VALUE)
        return dc_refuse(c, "arguments 'weight', 'indices', 'offsets': expected tensors");
    bool scale, sparse, ilo;
    int64_t mode = 0, pad = -1;
    const eir_arg *ma = dc_arg_named(c, "mode"), *pa = dc_arg_named(c, "padding_idx");
    if (!dc_bool_arg(c, "scale_grad_by_freq", false, &scale) || !dc_bool_arg(c, "sparse", false, &sparse) ||
        !dc_bool_arg(c, "include_last_offset", false, &ilo) || (!is_none(ma) && !int_of(ma, &mode)) ||
        (!is_none(pa) && !int_of(pa, &pad)))
        return dc_refuse(c, "arguments scale_grad_by_freq, mode, sparse, include_last_offset, padding_idx: expected "
                         "bools and ints");
    uint32_t psw = dc_tensor_of(c, "per_sample_weights");
    if (c->dry) return EIR_OK;
    eir_status st;
    if (!dc_meta_contiguous(meta_of(c, ix)) && (st = sh_clone(c, ix, NULL, &ix))) return st;
    if (!dc_meta_contiguous(meta_of(c, off)) && (st = sh_clone(c, off, NULL, &off))) return st;
    eir_named_arg ins[9] = {pos_arg("weight", a_tensor(w)), pos_arg("indices", a_tensor(ix)), pos_arg("offsets", a_tensor(off)),
                            pos_arg("scale_grad_by_freq", a_bool(scale)), pos_arg("mode", a_int(mode)),
                            pos_arg("sparse", a_bool(sparse)), pos_arg("per_sample_weights", a_opt_tensor(psw)),
                            pos_arg("include_last_offset", a_bool(ilo)), pos_arg("padding_idx", a_int(pad))};
    bool set[6] = {scale, mode != 0, sparse, psw != EIR_NO_VALUE, ilo, pad != -1};
    uint32_t n = 3;
    for (uint32_t i = 0; i < 6; i++)
        if (set[i]) n = 4 + i;
    const eir_tensor_meta *ms[4];
    for (uint32_t i = 0; i < 4; i++) ms[i] = meta_of(c, c->src.outputs[i].value);
    uint32_t v[4];
    if ((st = dc_emit_n(c, "_embedding_bag_forward_only.default", n, ins, 4, ms, "_embedding_bag_forward_only", false, v)))
        return st;
    for (uint32_t i = 0; i < 4; i++)
        if ((st = finish(c, c->src.outputs[i].value, v[i]))) return st;
    return EIR_OK;
}

eir_status decomp_stft(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    if (xm->rank != 1 && xm->rank != 2) return dc_refuse(c, "an input of rank %u (expected 1 or 2)", xm->rank);
    if (xm->dtype != EIR_F32 && xm->dtype != EIR_F64) return dc_refuse(c, "an input of dtype other than float32 or float64");
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "symbolic sizes");
    int64_t n_fft, hop, win;
    const eir_arg *ha = dc_arg_named(c, "hop_length"), *wa = dc_arg_named(c, "win_length"), *oa = dc_arg_named(c, "onesided"),
                  *ra = dc_arg_named(c, "return_complex");
    if (!int_of(dc_arg_named(c, "n_fft"), &n_fft) || n_fft <= 0) return dc_refuse(c, "argument 'n_fft': expected a positive int");
    hop = n_fft / 4;
    win = n_fft;
    if (!is_none(ha) && !int_of(ha, &hop)) return dc_refuse(c, "argument 'hop_length': expected an int");
    if (!is_none(wa) && !int_of(wa, &win)) return dc_refuse(c, "argument 'win_length': expected an int");
    if (win != n_fft) return dc_refuse(c, "win_length other than n_fft (torch pads the window: not decomposed)");
    bool normalized, onesided = true, rc;
    if (!dc_bool_arg(c, "normalized", false, &normalized)) return dc_refuse(c, "argument 'normalized': expected a bool");
    if (!is_none(oa) && !dc_bool_arg(c, "onesided", true, &onesided)) return dc_refuse(c, "argument 'onesided': expected a bool");
    if (is_none(ra) || !dc_bool_arg(c, "return_complex", false, &rc)) return dc_refuse(c, "argument 'return_complex': expected a bool");
    uint32_t w = dc_tensor_of(c, "window");
    if (w != EIR_NO_VALUE) {
        const eir_tensor_meta *wm = meta_of(c, w);
        if (wm->rank != 1 || wm->sizes[0].is_expr || wm->sizes[0].value != n_fft || (wm->dtype != EIR_F32 && wm->dtype != EIR_F64))
            return dc_refuse(c, "a window other than n_fft real values");
    }
    if (hop <= 0 || n_fft > xm->sizes[xm->rank - 1].value) return dc_refuse(c, "hop_length or n_fft out of range");
    if (c->dry) return EIR_OK;
    uint32_t v = x, f, p, res;
    if (xm->rank == 1 && (st = sh_unsqueeze(c, v, 0, NULL, &v))) return st;
    eir_named_arg ui[4] = {pos_arg("self", a_tensor(v)), pos_arg("dimension", a_int(-1)), pos_arg("size", a_int(n_fft)),
                           pos_arg("step", a_int(hop))};
    if ((st = sh_emit(c, "unfold.default", 4, ui, NULL, &v))) return st;
    if (w != EIR_NO_VALUE && (st = ex_bin(c, "mul.Tensor", a_tensor(v), a_tensor(w), &v))) return st;
    int64_t two = 2;
    eir_named_arg fi[4] = {pos_arg("self", a_tensor(v)), pos_arg("dim", dc_a_ints(c, &two, 1)),
                           pos_arg("normalization", a_int(normalized ? 1 : 0)), pos_arg("onesided", a_bool(onesided))};
    if ((st = sh_emit(c, "_fft_r2c.default", 4, fi, NULL, &f))) return st;
    int64_t perm[3] = {0, 2, 1};
    if ((st = sh_permute(c, f, perm, 3, NULL, &p))) return st;
    res = p;
    if (xm->rank == 1) {
        int64_t d0 = 0;
        eir_named_arg qi[2] = {pos_arg("self", a_tensor(p)), pos_arg("dim", dc_a_ints(c, &d0, 1))};
        if ((st = sh_emit(c, "squeeze.dims", 2, qi, NULL, &res))) return st;
    }
    if (!rc) {
        eir_named_arg vi[1] = {pos_arg("self", a_tensor(res))};
        if ((st = sh_emit(c, "view_as_real.default", 1, vi, NULL, &res))) return st;
    }
    return finish(c, out, res);
}

/* n's target is t (operator.x also as _operator.x, as pt2 files spell it) */
static bool is_target(const eir_node *n, const char *t) {
    if (!n->target) return false;
    if (!strcmp(n->target, t)) return true;
    return !strncmp(t, "operator.", 9) && n->target[0] == '_' && !strcmp(n->target + 1, t);
}

/* The runtime assertions on a data-dependent size that follow the node
 * being decomposed (sym_size.int of an output, comparisons,
 * _assert_scalar): how many nodes. */
static uint32_t assert_block(const dc *c) {
    uint32_t end = c->node + 1;
    while (end < c->g->num_nodes) {
        const eir_node *nd = &c->g->nodes[end];
        if (!is_target(nd, "torch.ops.aten.sym_size.int") && !is_target(nd, "torch.ops.aten._assert_scalar.default") &&
            !is_target(nd, "operator.ge") && !is_target(nd, "operator.le") && !is_target(nd, "operator.eq"))
            break;
        end++;
    }
    return end - (c->node + 1);
}

/* In those nblock nodes, sym_size.int of one of olds[0..n) reads nv
 * instead (a new node of the same size there) */
static void reread_sizes(dc *c, uint32_t nblock, const uint32_t *olds, uint32_t n, uint32_t nv) {
    for (uint32_t i = c->node + 1; i < c->node + 1 + nblock; i++) {
        eir_node *nd = (eir_node *)&c->g->nodes[i];
        if (!is_target(nd, "torch.ops.aten.sym_size.int") || nd->num_inputs < 2) continue;
        eir_arg *a = (eir_arg *)&nd->inputs[0].arg;
        for (uint32_t k = 0; k < n; k++)
            if (a->kind == EIR_ARG_TENSOR && olds[k] != EIR_NO_VALUE && a->value == olds[k]) {
                a->value = nv;
                a->name = c->g->values[nv].name;
            }
    }
}

eir_status decomp_nonzero_numpy(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    uint32_t n = xm->rank ? xm->rank : 1;
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSORS || c->src.outputs[0].u.list.n != n || n > MAXR)
        return dc_refuse(c, "expected %u tensors as output", n);
    const eir_arg *ol = &c->src.outputs[0];
    uint32_t items[MAXR], any = EIR_NO_VALUE;
    for (uint32_t i = 0; i < n; i++) {
        items[i] = ol->u.list.items[i].value;
        if (items[i] != EIR_NO_VALUE && any == EIR_NO_VALUE) any = items[i];
    }
    if (any == EIR_NO_VALUE) return dc_refuse(c, "no output is used");
    const eir_tensor_meta *im = meta_of(c, any);
    if (im->rank != 1) return dc_refuse(c, "outputs of rank %u (expected 1)", im->rank);
    eir_symint u = im->sizes[0];
    uint32_t nblock = assert_block(c);
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t v = x, nz;
    if (xm->rank == 0 && (st = sh_unsqueeze(c, v, 0, NULL, &v))) return st;
    tm nm;
    dc_tm_from(&nm, im);
    nm.m.rank = 2;
    nm.sz[0] = u, nm.sz[1] = si(n);
    nm.st[0] = si(1), nm.st[1] = u;
    nm.m.storage_offset = si(0);
    eir_named_arg ni[1] = {pos_arg("self", a_tensor(v))};
    if ((st = dc_emit(c, "nonzero.default", 1, ni, &nm.m, "nonzero", &nz))) return st;
    /* the assertions read the new nonzero's row count */
    reread_sizes(c, nblock, items, n, nz);
    /* the columns, after the assertions: new nodes go there (c->node stays
     * where the decomposed node is) */
    uint32_t node = c->node;
    c->pos = c->node + 1 + nblock;
    uint32_t sl[MAXR], sq[MAXR];
    for (uint32_t k = 0; k < n; k++) {
        tm sm;
        const eir_tensor_meta *km = items[k] != EIR_NO_VALUE ? meta_of(c, items[k]) : im;
        dc_tm_from(&sm, km);
        sm.m.rank = 2;
        sm.sz[0] = u, sm.sz[1] = si(1);
        sm.st[0] = si(1), sm.st[1] = u;
        eir_named_arg si_[4] = {pos_arg("self", a_tensor(nz)), pos_arg("dim", a_int(1)), pos_arg("start", a_int(k)),
                                pos_arg("end", a_int(k + 1))};
        if ((st = dc_emit(c, "slice.Tensor", 4, si_, &sm.m, "slice", &sl[k]))) return st;
        c->node = node;
    }
    for (uint32_t k = 0; k < n; k++) {
        tm qm;
        dc_tm_from(&qm, meta_of(c, sl[k]));
        qm.m.rank = 1;
        int64_t one = 1;
        eir_named_arg qi[2] = {pos_arg("self", a_tensor(sl[k])), pos_arg("dim", dc_a_ints(c, &one, 1))};
        if ((st = dc_emit(c, "squeeze.dims", 2, qi, &qm.m, "squeeze", &sq[k]))) return st;
        c->node = node;
    }
    for (uint32_t k = 0; k < n; k++)
        if (items[k] != EIR_NO_VALUE && (st = finish(c, items[k], sq[k]))) return st;
    /* the scan goes on after the decomposed node (erased) */
    c->pos = c->node;
    return EIR_OK;
}

eir_status decomp_combinations(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t r = 2;
    const eir_arg *ra = dc_arg_named(c, "r");
    if (!is_none(ra) && !int_of(ra, &r)) return dc_refuse(c, "argument 'r': expected an int");
    if (r != 1)
        return dc_refuse(c, "r = %lld: torch's decomposition makes one masked_select per copy, each with a data-dependent "
                         "size of its own and runtime assertions, which this pass does not create (r = 1 is decomposed)",
                         (long long)r);
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (xm->rank != 1 || !dc_meta_concrete_sizes(xm) || xm->strides[0].is_expr)
        return dc_refuse(c, "an input of rank other than 1 or of symbolic size");
    if (om->rank != 2) return dc_refuse(c, "a result of rank %u (expected 2)", om->rank);
    uint32_t nblock = assert_block(c);
    if (c->dry) return EIR_OK;
    int64_t n = xm->sizes[0].value, m1 = -1;
    uint32_t vw, ex, full, ms, us, cat;
    tm t;
    dc_tm_from(&t, xm);
    eir_named_arg vi[2] = {pos_arg("self", a_tensor(x)), pos_arg("size", dc_a_ints(c, &m1, 1))};
    if ((st = dc_emit(c, "view.default", 2, vi, &t.m, "view", &vw))) return st;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(vw)), pos_arg("size", dc_a_ints(c, &n, 1))};
    if ((st = dc_emit(c, "expand.default", 2, ei, &t.m, "expand", &ex))) return st;
    eir_named_arg fi[5] = {pos_arg("size", dc_a_ints(c, &n, 1)), pos_arg("fill_value", a_bool(true)),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_BOOL)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm))};
    if ((st = sh_emit(c, "full.default", 5, fi, NULL, &full))) return st;
    tm mm;
    dc_tm_from(&mm, om);
    mm.m.rank = 1;
    mm.st[0] = si(1);
    mm.m.storage_offset = si(0);
    eir_named_arg mi[2] = {pos_arg("self", a_tensor(ex)), pos_arg("mask", a_tensor(full))};
    if ((st = dc_emit(c, "masked_select.default", 2, mi, &mm.m, "masked_select", &ms))) return st;
    reread_sizes(c, nblock, &out, 1, ms);
    /* stack([ms], 1) after the assertions */
    uint32_t node = c->node;
    c->pos = c->node + 1 + nblock;
    tm um;
    dc_tm_from(&um, om);
    um.st[0] = si(1), um.st[1] = si(1);
    eir_named_arg ui[2] = {pos_arg("self", a_tensor(ms)), pos_arg("dim", a_int(1))};
    if ((st = dc_emit(c, "unsqueeze.default", 2, ui, &um.m, "unsqueeze", &us))) return st;
    c->node = node;
    eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, &us, 1)), pos_arg("dim", a_int(1))};
    if ((st = dc_emit(c, "cat.default", 2, ci, om, "cat", &cat))) return st;
    c->node = node;
    if ((st = finish(c, out, cat))) return st;
    c->pos = c->node;
    return EIR_OK;
}
