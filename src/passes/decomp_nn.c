/* decomp_nn.c — to-core rules for neural-network operators: linear,
 * convolutions, batch/layer/group norm, dropout (eval), pooling, pad,
 * scaled_dot_product_attention, softmax and lstm. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"

/* linear of a vector: torch's matmul (unsqueeze + mm + squeeze) without a
 * bias, addmm on a [1, K] view with one */
static eir_status linear_1d(dc *c, uint32_t x, uint32_t w, uint32_t b, uint32_t out) {
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (!dc_meta_concrete_sizes(xm) || !dc_meta_concrete_sizes(om) || xm->strides[0].is_expr)
        return dc_refuse(c, "symbolic sizes of a 1-d input");
    int64_t k = xm->sizes[0].value, n = om->rank == 1 ? om->sizes[0].value : 1;
    if (om->rank != 1) return dc_refuse(c, "a 1-d input with a result of rank %u", om->rank);
    tm row, res;
    int64_t rs[2] = {1, k}, os_[2] = {1, n};
    dc_tm_new(&row, xm, xm->dtype, rs, 2);
    dc_tm_new(&res, om, om->dtype, os_, 2);
    if (b == EIR_NO_VALUE) {
        row.st[1] = xm->strides[0];
        row.st[0] = si(k * xm->strides[0].value);
        row.m.storage_offset = xm->storage_offset;
    } else {
        dc probe = *c;
        probe.dry = true;
        uint32_t tmp;
        eir_status st = dc_emit_reshape(&probe, x, &row.m, "view", &tmp);
        if (st) return st;
    }
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t wt, u, mm, r;
    if (b == EIR_NO_VALUE) {
        if ((st = dc_emit_t(c, w, &wt))) return st;
        eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(0))};
        if ((st = dc_emit(c, "unsqueeze.default", 2, ui, &row.m, "unsqueeze", &u))) return st;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(u)), pos_arg("mat2", a_tensor(wt))};
        if ((st = dc_emit(c, "mm.default", 2, mi, &res.m, "mm", &mm))) return st;
        int64_t zero = 0;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(mm)), pos_arg("dim", dc_a_ints(c, &zero, 1))};
        if ((st = dc_emit(c, "squeeze.dims", 2, si_, om, "squeeze", &r))) return st;
        return finish(c, out, r);
    }
    if ((st = dc_emit_reshape(c, x, &row.m, "view", &u))) return st;
    if ((st = dc_emit_t(c, w, &wt))) return st;
    eir_named_arg ai[3] = {pos_arg("self", a_tensor(b)), pos_arg("mat1", a_tensor(u)), pos_arg("mat2", a_tensor(wt))};
    if ((st = dc_emit(c, "addmm.default", 3, ai, &res.m, "addmm", &mm))) return st;
    if ((st = dc_emit_reshape(c, mm, om, "view", &r))) return st;
    return finish(c, out, r);
}

/* linear(x, w, b) of rank >= 2 with result metadata om; *resp the
 * result (nothing is emitted in a dry run) */
static eir_status emit_linear(dc *c, uint32_t x, uint32_t w, uint32_t b, const eir_tensor_meta *om, uint32_t *resp) {
    eir_status st;
    const eir_tensor_meta *xm = meta_of(c, x);
    if (b != EIR_NO_VALUE && meta_of(c, b)->rank > 1) return dc_refuse(c, "argument 'bias': expected a 1-d tensor");
    tm flat_in, flat_out;
    c->size_src = x;
    if (xm->rank > 2) {
        eir_symint n;
        if (!dc_sym_product(c, xm->sizes, xm->rank - 1, &n))
            return dc_refuse(c, "the batch sizes of input %s are not plain symbols", c->g->values[x].name);
        dc_tm_from(&flat_in, xm);
        flat_in.m.rank = 2;
        flat_in.sz[0] = n;
        flat_in.sz[1] = xm->sizes[xm->rank - 1];
        dc_tm_from(&flat_out, om);
        flat_out.m.rank = 2;
        flat_out.sz[0] = n;
        flat_out.sz[1] = om->sizes[om->rank - 1];
        if (!dc_tm_contig(&flat_out) || !dc_tm_contig(&flat_in)) return dc_refuse(c, "symbolic feature size");
        dc probe = *c;
        probe.dry = true;
        st = dc_emit_reshape(&probe, x, &flat_in.m, "view", &x);
        if (st) return st;
    }
    if (xm->rank > 2 && !dc_can_view(c, xm)) {
        /* torch's matmul: broadcast the weight, bmm, then add the bias */
        if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "symbolic sizes of a non-contiguous input");
        for (uint32_t i = 0; i < xm->rank; i++)
            if (xm->strides[i].is_expr) return dc_refuse(c, "symbolic strides of input %s", c->g->values[x].name);
        if (c->dry) return EIR_OK;
        uint32_t wt, mmv, res;
        tm mo;
        dc_tm_from(&mo, om);
        if (!dc_tm_contig(&mo)) return dc_refuse(c, "symbolic output size");
        if ((st = dc_emit_t(c, w, &wt))) return st;
        if ((st = dc_emit_batched_mm(c, x, wt, b != EIR_NO_VALUE ? &mo.m : om, &mmv))) return st;
        res = mmv;
        if (b != EIR_NO_VALUE) {
            eir_named_arg ad[2] = {pos_arg("self", a_tensor(mmv)), pos_arg("other", a_tensor(b))};
            if ((st = dc_emit(c, "add.Tensor", 2, ad, om, "add", &res))) return st;
        }
        *resp = res;
        return EIR_OK;
    }
    if (c->dry) return EIR_OK;
    uint32_t in2 = x, wt, mm;
    if (xm->rank > 2) {
        st = dc_emit_reshape(c, x, &flat_in.m, "view", &in2);
        if (st) return st;
    }
    st = dc_emit_t(c, w, &wt);
    if (st) return st;
    const eir_tensor_meta *mmm = xm->rank > 2 ? &flat_out.m : om;
    if (b != EIR_NO_VALUE) {
        eir_named_arg ai[3] = {pos_arg("self", a_tensor(b)), pos_arg("mat1", a_tensor(in2)), pos_arg("mat2", a_tensor(wt))};
        st = dc_emit(c, "addmm.default", 3, ai, mmm, "addmm", &mm);
    } else {
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(in2)), pos_arg("mat2", a_tensor(wt))};
        st = dc_emit(c, "mm.default", 2, mi, mmm, "mm", &mm);
    }
    if (st) return st;
    uint32_t res = mm;
    if (xm->rank > 2) {
        st = dc_emit_reshape(c, mm, om, "view", &res);
        if (st) return st;
    }
    *resp = res;
    return EIR_OK;
}

eir_status decomp_linear(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    uint32_t w = dc_tensor_of(c, "weight"), b = dc_tensor_of(c, "bias");
    if (w == EIR_NO_VALUE || meta_of(c, w)->rank != 2) return dc_refuse(c, "argument 'weight': expected a 2-d tensor");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (xm->rank == 1) return linear_1d(c, x, w, b, out);
    if (xm->rank < 2) return dc_refuse(c, "input of rank %u (only rank >= 1 is decomposed)", xm->rank);
    uint32_t res = EIR_NO_VALUE;
    if ((st = emit_linear(c, x, w, b, meta_of(c, out), &res))) return st;
    if (c->dry) return EIR_OK;
    return finish(c, out, res);
}

/* conv1d/2d/3d (.default and .padding) and conv_transpose1d/2d/3d -> convolution */
eir_status decomp_conv(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    uint32_t w = dc_tensor_of(c, "weight"), b = dc_tensor_of(c, "bias");
    if (w == EIR_NO_VALUE) return dc_refuse(c, "argument 'weight': expected a tensor");
    bool transposed = strstr(c->op, "conv_transpose") != NULL;
    uint32_t k = meta_of(c, w)->rank >= 3 ? meta_of(c, w)->rank - 2 : 0;
    if (!k || k > 3) return dc_refuse(c, "weight of rank %u", meta_of(c, w)->rank);
    /* an unbatched input: unsqueeze(0), convolution, squeeze.dims([0]) */
    bool unbatched = meta_of(c, x)->rank == k + 1;
    if (meta_of(c, x)->rank != k + 2 && !unbatched)
        return dc_refuse(c, "input of rank %u (%u or %u expected)", meta_of(c, x)->rank, k + 1, k + 2);
    if (unbatched) {
        const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
        if (!dc_meta_concrete_sizes(xm) || !dc_meta_concrete_sizes(om) || xm->strides[0].is_expr ||
            om->strides[0].is_expr)
            return dc_refuse(c, "an unbatched input of symbolic size");
    }
    int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1}, opad[3] = {0, 0, 0}, groups = 1;
    int64_t tmp[3];
    uint32_t n;
    struct { const char *name; int64_t *dst; } lists[] = {
        {"stride", stride}, {"padding", pad}, {"dilation", dil}, {"output_padding", opad}};
    for (uint32_t li = 0; li < 4; li++) {
        const eir_arg *a = dc_arg_named(c, lists[li].name);
        if (is_none(a)) continue;
        if (a->kind == EIR_ARG_STRING && !strcmp(lists[li].name, "padding")) continue;
        if (!dc_ints_of(a, tmp, 3, &n) || !(n == 1 || n == k))
            return dc_refuse(c, "argument '%s': expected %u concrete ints", lists[li].name, k);
        for (uint32_t i = 0; i < k; i++) lists[li].dst[i] = tmp[n == 1 ? 0 : i];
    }
    const eir_arg *ga = dc_arg_named(c, "groups");
    if (!is_none(ga) && !int_of(ga, &groups)) return dc_refuse(c, "argument 'groups': expected an int");
    const eir_arg *pa = dc_arg_named(c, "padding");
    if (pa && pa->kind == EIR_ARG_STRING) {
        if (!strcmp(pa->u.s, "valid")) {
            for (uint32_t i = 0; i < k; i++) pad[i] = 0;
        } else if (!strcmp(pa->u.s, "same")) {
            const eir_tensor_meta *wm = meta_of(c, w);
            for (uint32_t i = 0; i < k; i++) {
                if (wm->sizes[2 + i].is_expr) return dc_refuse(c, "symbolic kernel size");
                int64_t total = dil[i] * (wm->sizes[2 + i].value - 1);
                if (total % 2) return dc_refuse(c, "padding='same' needs asymmetric padding here");
                pad[i] = total / 2;
            }
        } else
            return dc_refuse(c, "argument 'padding': unknown string '%s'", pa->u.s);
    }
    if (c->dry) return EIR_OK;
    tm um, cm;
    const eir_tensor_meta *cmp = meta_of(c, out);
    if (unbatched) {
        /* a leading dimension of size 1 on the input and on the result */
        const eir_tensor_meta *ms[2] = {meta_of(c, x), meta_of(c, out)};
        tm *ts[2] = {&um, &cm};
        for (uint32_t j = 0; j < 2; j++) {
            dc_tm_from(ts[j], ms[j]);
            for (uint32_t i = ms[j]->rank; i > 0; i--) {
                ts[j]->sz[i] = ms[j]->sizes[i - 1];
                ts[j]->st[i] = ms[j]->strides[i - 1];
            }
            ts[j]->sz[0] = si(1);
            ts[j]->st[0] = si(ms[j]->sizes[0].value * ms[j]->strides[0].value);
            ts[j]->m.rank = ms[j]->rank + 1;
        }
        eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(0))};
        if ((st = dc_emit(c, "unsqueeze.default", 2, ui, &um.m, "unsqueeze", &x))) return st;
        cmp = &cm.m;
    }
    eir_named_arg ci[9] = {
        pos_arg("input", a_tensor(x)),          pos_arg("weight", a_tensor(w)),
        pos_arg("bias", a_opt_tensor(b)),       pos_arg("stride", dc_a_ints(c, stride, k)),
        pos_arg("padding", dc_a_ints(c, pad, k)),  pos_arg("dilation", dc_a_ints(c, dil, k)),
        pos_arg("transposed", a_bool(transposed)), pos_arg("output_padding", dc_a_ints(c, opad, k)),
        pos_arg("groups", a_int(groups))};
    uint32_t res;
    st = dc_emit(c, "convolution.default", 9, ci, cmp, "convolution", &res);
    if (st) return st;
    if (unbatched) {
        int64_t zero = 0;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(res)), pos_arg("dim", dc_a_ints(c, &zero, 1))};
        if ((st = dc_emit(c, "squeeze.dims", 2, si_, meta_of(c, out), "squeeze", &res))) return st;
    }
    return finish(c, out, res);
}

eir_status decomp_batch_norm(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    bool training;
    double momentum, eps;
    if (!dc_bool_arg(c, "training", false, &training)) return dc_refuse(c, "argument 'training': expected a bool");
    if (training) return decomp_bn_update(c);
    if (!dc_float_arg(c, "momentum", 0.1, &momentum) || !dc_float_arg(c, "eps", 1e-5, &eps))
        return dc_refuse(c, "arguments 'momentum' and 'eps': expected floats");
    uint32_t w = dc_tensor_of(c, "weight"), b = dc_tensor_of(c, "bias");
    uint32_t rm = dc_tensor_of(c, "running_mean"), rv = dc_tensor_of(c, "running_var");
    if (rm == EIR_NO_VALUE || rv == EIR_NO_VALUE) return dc_refuse(c, "batch_norm without running statistics");
    if (c->dry) return EIR_OK;
    tm save;
    dc_tm_from(&save, meta_of(c, x));
    save.m.rank = 1;
    save.sz[0] = si(0);
    save.st[0] = si(1);
    save.m.storage_offset = si(0);
    const eir_tensor_meta *ms[3] = {meta_of(c, out), &save.m, &save.m};
    eir_named_arg bi[7] = {pos_arg("input", a_tensor(x)),        pos_arg("weight", a_opt_tensor(w)),
                           pos_arg("bias", a_opt_tensor(b)),      pos_arg("running_mean", a_tensor(rm)),
                           pos_arg("running_var", a_tensor(rv)), pos_arg("momentum", a_float(momentum)),
                           pos_arg("eps", a_float(eps))};
    uint32_t vals[3];
    st = dc_emit_n(c, "_native_batch_norm_legit_no_training.default", 7, bi, 3, ms, NULL, false, vals);
    if (st) return st;
    return finish(c, out, vals[0]);
}

eir_status decomp_layer_norm(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_arg *ns = dc_arg_named(c, "normalized_shape");
    if (!ns || (ns->kind != EIR_ARG_INTS && ns->kind != EIR_ARG_SYM_INTS))
        return dc_refuse(c, "argument 'normalized_shape': expected a list of ints");
    double eps;
    if (!dc_float_arg(c, "eps", 1e-5, &eps)) return dc_refuse(c, "argument 'eps': expected a float");
    const eir_tensor_meta *xm = meta_of(c, x);
    uint32_t nn = ns->u.list.n;
    if (nn > xm->rank) return dc_refuse(c, "normalized_shape longer than the input's rank");
    tm stat;
    dc_tm_from(&stat, xm);
    for (uint32_t i = xm->rank - nn; i < xm->rank; i++) stat.sz[i] = si(1);
    if (!dc_tm_contig(&stat)) return dc_refuse(c, "the strides of mean/rstd for symbolic sizes");
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *ms[3] = {meta_of(c, out), &stat.m, &stat.m};
    uint32_t w = dc_tensor_of(c, "weight"), b = dc_tensor_of(c, "bias");
    eir_named_arg li[5] = {pos_arg("input", a_tensor(x)), pos_arg("normalized_shape", *ns),
                           pos_arg("weight", a_opt_tensor(w)), pos_arg("bias", a_opt_tensor(b)),
                           pos_arg("eps", a_float(eps))};
    uint32_t vals[3];
    st = dc_emit_n(c, "native_layer_norm.default", 5, li, 3, ms, NULL, false, vals);
    if (st) return st;
    return finish(c, out, vals[0]);
}

/* dropout_ and its in-place variants in eval mode (or with p = 0): the input itself, unchanged
 * (torch's functionalization makes them dropout, whose eval form returns a copy that nothing
 * writes; run_decompositions() then leaves no call). In training mode: refused. */
eir_status decomp_dropout_inplace(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    bool train;
    if (!dc_bool_arg(c, "train", false, &train)) return dc_refuse(c, "argument 'train': expected a bool");
    double p;
    if (!dc_float_arg(c, "p", 0.5, &p)) return dc_refuse(c, "argument 'p': expected a float");
    if (train && p != 0.0) return dc_refuse(c, "an in-place dropout in training mode is not decomposed");
    if (c->dry) return EIR_OK;
    return finish(c, out, x);
}

/* dropout and its variants in eval mode (and dropout with p = 0): a copy;
 * in training mode decomp_dropout_train (decomp_random.c) */
eir_status decomp_dropout(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    bool train;
    if (!dc_bool_arg(c, "train", false, &train)) return dc_refuse(c, "argument 'train': expected a bool");
    double p;
    if (!dc_float_arg(c, "p", 0.5, &p)) return dc_refuse(c, "argument 'p': expected a float");
    if (train && (p != 0.0 || strcmp(c->op, "aten.dropout.default"))) return decomp_dropout_train(c, x, out, p);
    if (strcmp(c->op, "aten.dropout.default")) {
        /* the variants' CompositeImplicitAutograd kernels return the input */
        if (c->dry) return EIR_OK;
        return finish(c, out, x);
    }
    const eir_tensor_meta *xm = meta_of(c, x);
    bool dense = dc_meta_contiguous(xm);
    if (!dense && dc_meta_concrete_sizes(xm)) {
        /* clone keeps the strides of a dense input (a permutation), else
         * makes it contiguous */
        tm t;
        dc_tm_pointwise(&t, xm);
        dense = true;
        for (uint32_t i = 0; i < xm->rank && dense; i++)
            dense = xm->sizes[i].value <= 1 || (!xm->strides[i].is_expr && xm->strides[i].value == t.st[i].value);
        if (!dense && !dc_meta_concrete_sizes(xm)) return dc_refuse(c, "a non-dense input of symbolic size");
    } else if (!dense)
        return dc_refuse(c, "a non-contiguous input of symbolic size");
    if (c->dry) return EIR_OK;
    tm cm;
    dc_tm_from(&cm, meta_of(c, out));
    if (dense) {
        for (uint32_t i = 0; i < xm->rank; i++) cm.st[i] = xm->strides[i];
    } else
        dc_tm_contig(&cm);
    cm.m.storage_offset = si(0);
    eir_named_arg ci[1] = {pos_arg("self", a_tensor(x))};
    uint32_t res;
    st = dc_emit(c, "clone.default", 1, ci, &cm.m, "clone", &res);
    if (st) return st;
    return finish(c, out, res);
}

eir_status decomp_max_pool(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *om = meta_of(c, out);
    tm idx;
    dc_tm_from(&idx, om);
    idx.m.dtype = EIR_I64;
    const eir_tensor_meta *ms[2] = {om, &idx.m};
    eir_named_arg pi[6];
    uint32_t n = 0;
    static const char *names[6] = {"self", "kernel_size", "stride", "padding", "dilation", "ceil_mode"};
    for (uint32_t i = 0; i < 6; i++) {
        const eir_arg *a = dc_arg_named(c, names[i]);
        if (!a) break;
        pi[n++] = pos_arg(names[i], *a);
    }
    char target[64];
    snprintf(target, sizeof target, "%.*s_with_indices.default", (int)(strchr(c->op + 5, '.') - (c->op + 5)), c->op + 5);
    uint32_t vals[2];
    if ((st = dc_emit_n(c, target, n, pi, 2, ms, NULL, false, vals))) return st;
    return finish(c, out, vals[0]);
}

eir_status decomp_adaptive_avg_pool(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t os[3];
    uint32_t n;
    if (!dc_ints_of(dc_arg_named(c, "output_size"), os, 3, &n)) return dc_refuse(c, "argument 'output_size': expected ints");
    bool ones = true;
    for (uint32_t i = 0; i < n; i++) ones = ones && os[i] == 1;
    const eir_tensor_meta *xm = meta_of(c, x);
    /* the pooled result is contiguous unless torch suggests a channels-last
     * layout, which only a non-contiguous input of rank 3 or more can have */
    bool strides_ok = true;
    for (uint32_t i = 0; i < xm->rank; i++) strides_ok = strides_ok && !xm->strides[i].is_expr;
    if (!ones && n == 1 &&
        (xm->rank < 2 || xm->rank > 3 || !dc_meta_concrete_sizes(xm) || !strides_ok || decomp_unsqueezed_channels_last(xm)))
        return dc_refuse(c, "adaptive_avg_pool1d to a size other than 1 of an input of symbolic size or strides, of "
                            "rank %u, or of strides torch takes for channels-last once unsqueezed", xm->rank);
    if (c->dry) return EIR_OK;
    uint32_t res;
    if (!ones && n == 1) {
        /* torch: unsqueeze(-2), _adaptive_avg_pool2d to [1, L], squeeze.dims([-2]) */
        uint32_t r = xm->rank, u, p2;
        tm um, pm;
        dc_tm_from(&um, xm);
        um.sz[r] = xm->sizes[r - 1];
        um.st[r] = xm->strides[r - 1];
        um.sz[r - 1] = si(1);
        um.st[r - 1] = si(xm->sizes[r - 1].value * xm->strides[r - 1].value);
        um.m.rank = r + 1;
        eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(-2))};
        if ((st = dc_emit(c, "unsqueeze.default", 2, ui, &um.m, "unsqueeze", &u))) return st;
        int64_t psz[MAXR + 1], osz2[2] = {1, os[0]};
        for (uint32_t i = 0; i + 1 < r; i++) psz[i] = xm->sizes[i].value;
        psz[r - 1] = 1;
        psz[r] = os[0];
        dc_tm_new(&pm, xm, xm->dtype, psz, r + 1);
        eir_named_arg ai[2] = {pos_arg("self", a_tensor(u)), pos_arg("output_size", dc_a_ints(c, osz2, 2))};
        if ((st = dc_emit(c, "_adaptive_avg_pool2d.default", 2, ai, &pm.m, "_adaptive_avg_pool2d", &p2))) return st;
        int64_t m2 = -2;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(p2)), pos_arg("dim", dc_a_ints(c, &m2, 1))};
        if ((st = dc_emit(c, "squeeze.dims", 2, si_, meta_of(c, out), "squeeze", &res))) return st;
        return finish(c, out, res);
    }
    if (ones) {
        int64_t dims[3] = {-1, -2, -3};
        eir_named_arg mi[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, dims, n)), pos_arg("keepdim", a_bool(true))};
        st = dc_emit(c, "mean.dim", 3, mi, meta_of(c, out), "mean", &res);
    } else {
        eir_named_arg ai[2] = {pos_arg("self", a_tensor(x)), pos_arg("output_size", *dc_arg_named(c, "output_size"))};
        st = dc_emit(c, n == 2 ? "_adaptive_avg_pool2d.default" : "_adaptive_avg_pool3d.default",
                  2, ai, meta_of(c, out), "_adaptive_avg_pool", &res);
    }
    if (st) return st;
    return finish(c, out, res);
}

/* the causal mask [L, S]: arange(S)[None] - arange(L)[:, None] <= 0 and a
 * full of True, as torch builds it */
static eir_status sdpa_causal(dc *c, const eir_tensor_meta *qm, int64_t L, int64_t S, uint32_t *res) {
    eir_status st;
    tm t1;
    int64_t ls[2] = {L, S}, l1[1] = {L}, s1[1] = {S}, r1s[2] = {1, S}, rl1[2] = {L, 1};
    uint32_t full, ar_s, ar_l, us, ul, sub, le, land;
    dc_tm_new(&t1, qm, EIR_BOOL, ls, 2);
    eir_named_arg fi[6] = {pos_arg("size", dc_a_ints(c, ls, 2)), pos_arg("fill_value", a_bool(true)),
                           kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, EIR_BOOL)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                           kw_arg("device", dc_a_device(qm)), kw_arg("pin_memory", a_bool(false))};
    if ((st = dc_emit(c, "full.default", 6, fi, &t1.m, "full", &full))) return st;
    dc_tm_new(&t1, qm, EIR_I64, s1, 1);
    eir_named_arg ai[5] = {pos_arg("start", a_int(0)), pos_arg("end", a_int(S)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                           kw_arg("device", dc_a_device(qm)), kw_arg("pin_memory", a_bool(false))};
    if ((st = dc_emit(c, "arange.start_step", 5, ai, &t1.m, "arange", &ar_s))) return st;
    dc_tm_new(&t1, qm, EIR_I64, r1s, 2);
    eir_named_arg u1[2] = {pos_arg("self", a_tensor(ar_s)), pos_arg("dim", a_int(-2))};
    if ((st = dc_emit(c, "unsqueeze.default", 2, u1, &t1.m, "unsqueeze", &us))) return st;
    dc_tm_new(&t1, qm, EIR_I64, l1, 1);
    ai[1] = pos_arg("end", a_int(L));
    if ((st = dc_emit(c, "arange.start_step", 5, ai, &t1.m, "arange", &ar_l))) return st;
    dc_tm_new(&t1, qm, EIR_I64, rl1, 2);
    eir_named_arg u2[2] = {pos_arg("self", a_tensor(ar_l)), pos_arg("dim", a_int(-1))};
    if ((st = dc_emit(c, "unsqueeze.default", 2, u2, &t1.m, "unsqueeze", &ul))) return st;
    dc_tm_new(&t1, qm, EIR_I64, ls, 2);
    eir_named_arg sb_[2] = {pos_arg("self", a_tensor(us)), pos_arg("other", a_tensor(ul))};
    if ((st = dc_emit(c, "sub.Tensor", 2, sb_, &t1.m, "sub", &sub))) return st;
    dc_tm_new(&t1, qm, EIR_BOOL, ls, 2);
    eir_named_arg li[2] = {pos_arg("self", a_tensor(sub)), pos_arg("other", a_int(0))};
    if ((st = dc_emit(c, "le.Scalar", 2, li, &t1.m, "le", &le))) return st;
    eir_named_arg la[2] = {pos_arg("self", a_tensor(le)), pos_arg("other", a_tensor(full))};
    if ((st = dc_emit(c, "logical_and.default", 2, la, &t1.m, "logical_and", &land))) return st;
    *res = land;
    return EIR_OK;
}

/* a boolean mask as an additive bias (where(mask, 0, -inf)); another mask
 * is the bias itself */
static eir_status sdpa_bias(dc *c, const eir_tensor_meta *qm, uint32_t mask, uint32_t *bias) {
    eir_status st;
    tm t1;
    eir_dtype dt = qm->dtype;
    if (mask == EIR_NO_VALUE || meta_of(c, mask)->dtype != EIR_BOOL) {
        *bias = mask;
        return EIR_OK;
    }
    const eir_tensor_meta *mm = meta_of(c, mask);
    uint32_t ninf, zero;
    dc_tm_new(&t1, qm, dt, NULL, 0);
    eir_named_arg n1[3] = {pos_arg("s", a_float(-INFINITY)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                           kw_arg("device", dc_a_device(qm))};
    if ((st = dc_emit(c, "scalar_tensor.default", 3, n1, &t1.m, "scalar_tensor", &ninf))) return st;
    eir_named_arg n0[4] = {pos_arg("s", a_float(0.0)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, dt)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                           kw_arg("device", dc_a_device(qm))};
    if ((st = dc_emit(c, "scalar_tensor.default", 4, n0, &t1.m, "scalar_tensor", &zero))) return st;
    int64_t msz[4];
    for (uint32_t i = 0; i < mm->rank; i++) msz[i] = mm->sizes[i].value;
    dc_tm_new(&t1, qm, dt, msz, mm->rank);
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(mask)), pos_arg("self", a_tensor(zero)),
                           pos_arg("other", a_tensor(ninf))};
    if ((st = dc_emit(c, "where.self", 3, wi, &t1.m, "where", bias))) return st;
    return EIR_OK;
}

/* Whether torch's CPU dispatch of scaled_dot_product_attention takes the
 * flash kernel (whose decomposition lays the result out as [L, B, H, E]):
 * 4-d query, key and value of one batch and head count and one head size,
 * no dropout, unit last strides, non-empty sequences, and a mask of rank 2
 * or a rank-4 one broadcasting over batch and heads. */
static bool sdpa_flash(const dc *c, const eir_tensor_meta *qm, const eir_tensor_meta *km, const eir_tensor_meta *vm,
                       uint32_t mask, double p_drop) {
    if (qm->rank != 4 || km->rank != 4 || vm->rank != 4 || p_drop > 0.0) return false;
    if (qm->dtype != EIR_F32 && qm->dtype != EIR_F64 && qm->dtype != EIR_F16 && qm->dtype != EIR_BF16) return false;
    for (uint32_t i = 0; i < 2; i++)
        if (km->sizes[i].value != qm->sizes[i].value || vm->sizes[i].value != qm->sizes[i].value) return false;
    if (km->sizes[3].value != qm->sizes[3].value || vm->sizes[3].value != qm->sizes[3].value) return false;
    if (qm->strides[3].value != 1 || km->strides[3].value != 1 || vm->strides[3].value != 1) return false;
    if (qm->sizes[2].value == 0 || km->sizes[2].value == 0) return false;
    if (mask == EIR_NO_VALUE) return true;
    const eir_tensor_meta *mm = meta_of(c, mask);
    if (mm->rank < 2) return false;
    int64_t ml = mm->sizes[mm->rank - 2].value, ms = mm->sizes[mm->rank - 1].value;
    if ((ml != qm->sizes[2].value && ml != 1) || (ms != km->sizes[2].value && ms != 1)) return false;
    if (mm->rank == 2) return true;
    return mm->rank == 4 && (mm->sizes[0].value == 1 || mm->sizes[0].value == qm->sizes[0].value) &&
           (mm->sizes[1].value == 1 || mm->sizes[1].value == qm->sizes[1].value);
}

/* scaled_dot_product_attention on query [..., L, E], key [..., S, E] and
 * value [..., S, Ev] of ranks 3 or 4 (batch dimensions broadcast as
 * matmul's), torch's math path: q and k^T scaled by sqrt(scale), the
 * causal or boolean mask as an additive bias, softmax with all -inf rows
 * set to 0, native_dropout when dropout_p > 0, then @ v; the flash
 * kernel's layout of the result when torch takes that kernel. */
eir_status decomp_sdpa(dc *c) {
    uint32_t q, out;
    eir_status st = dc_need_io(c, "query", &q, &out);
    if (st) return st;
    uint32_t k = dc_tensor_of(c, "key"), v = dc_tensor_of(c, "value"), mask = dc_tensor_of(c, "attn_mask");
    if (k == EIR_NO_VALUE || v == EIR_NO_VALUE) return dc_refuse(c, "arguments 'key', 'value': expected tensors");
    const eir_tensor_meta *qm = meta_of(c, q), *km = meta_of(c, k), *vm = meta_of(c, v), *om = meta_of(c, out);
    const eir_tensor_meta *all[3] = {qm, km, vm};
    for (uint32_t j = 0; j < 3; j++) {
        if (all[j]->rank != 3 && all[j]->rank != 4)
            return dc_refuse(c, "query, key and value of rank 3 or 4 are decomposed (got %u, %u, %u)", qm->rank, km->rank,
                             vm->rank);
        if (!dc_meta_concrete_sizes(all[j])) return dc_refuse(c, "symbolic sizes");
        for (uint32_t i = 0; i < all[j]->rank; i++)
            if (all[j]->strides[i].is_expr) return dc_refuse(c, "symbolic strides");
    }
    double p_drop, scale;
    bool causal, gqa;
    if (!dc_float_arg(c, "dropout_p", 0.0, &p_drop) || p_drop < 0.0 || p_drop > 1.0)
        return dc_refuse(c, "argument 'dropout_p': expected a float in [0, 1]");
    if (!dc_bool_arg(c, "is_causal", false, &causal) || !dc_bool_arg(c, "enable_gqa", false, &gqa) || gqa)
        return dc_refuse(c, "enable_gqa=True");
    uint32_t rq = qm->rank, rk = km->rank, rv = vm->rank;
    int64_t L = qm->sizes[rq - 2].value, E = qm->sizes[rq - 1].value;
    int64_t S = km->sizes[rk - 2].value;
    if (km->sizes[rk - 1].value != E || vm->sizes[rv - 2].value != S)
        return dc_refuse(c, "key of head size other than the query's, or value of another sequence length");
    /* batch dims: scores broadcast q and k, the result that and v */
    uint32_t rs = rq > rk ? rq : rk, ro = rs > rv ? rs : rv;
    int64_t sb[4], ob[4];
    for (uint32_t i = 0; i + 2 < rs; i++) {
        int64_t a = (int64_t)i - (int64_t)(rs - rq), b = (int64_t)i - (int64_t)(rs - rk);
        int64_t x = a >= 0 ? qm->sizes[a].value : 1, y = b >= 0 ? km->sizes[b].value : 1;
        if (x != y && x != 1 && y != 1) return dc_refuse(c, "query and key batch dimensions that do not broadcast");
        sb[i] = x == 1 ? y : x;
    }
    for (uint32_t i = 0; i + 2 < ro; i++) {
        int64_t a = (int64_t)i - (int64_t)(ro - rs), b = (int64_t)i - (int64_t)(ro - rv);
        int64_t x = a >= 0 ? sb[a] : 1, y = b >= 0 ? vm->sizes[b].value : 1;
        if (x != y && x != 1 && y != 1) return dc_refuse(c, "attention and value batch dimensions that do not broadcast");
        ob[i] = x == 1 ? y : x;
    }
    if (om->rank != ro) return dc_refuse(c, "a result of rank %u (expected %u)", om->rank, ro);
    if (!dc_float_arg(c, "scale", 1.0 / sqrt((double)E), &scale)) return dc_refuse(c, "argument 'scale': expected a float");
    if (causal && mask != EIR_NO_VALUE) return dc_refuse(c, "both attn_mask and is_causal");
    if (mask != EIR_NO_VALUE && (meta_of(c, mask)->rank > 4 || !dc_meta_concrete_sizes(meta_of(c, mask))))
        return dc_refuse(c, "attn_mask of rank above 4 or symbolic sizes");
    bool flash = sdpa_flash(c, qm, km, vm, mask, p_drop);
    if (c->dry) return EIR_OK;
    double sq = sqrt(scale);
    eir_dtype dt = qm->dtype;
    tm t1, t2;
    uint32_t qs, kt, ks, s4, bias = EIR_NO_VALUE;
    /* a boolean attn_mask becomes an additive bias before q is scaled (as
     * torch converts it); the causal mask is built after */
    if (!causal && (st = sdpa_bias(c, qm, mask, &bias))) return st;
    /* q * sqrt(scale) */
    if ((st = dc_emit_scalar_mul(c, q, sq, qm, &qs))) return st;
    if (causal && ((st = sdpa_causal(c, qm, L, S, &mask)) || (st = sdpa_bias(c, qm, mask, &bias)))) return st;
    /* k^T * sqrt(scale) */
    int64_t pk[4];
    for (uint32_t i = 0; i < rk; i++) pk[i] = i;
    pk[rk - 2] = rk - 1, pk[rk - 1] = rk - 2;
    dc_tm_permute(&t1, km, pk);
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(k)), pos_arg("dims", dc_a_ints(c, pk, rk))};
    if ((st = dc_emit(c, "permute.default", 2, pi, &t1.m, "permute", &kt))) return st;
    if ((st = dc_emit_scalar_mul(c, kt, sq, &t1.m, &ks))) return st;
    /* scores = q @ k^T */
    int64_t ssz[4];
    for (uint32_t i = 0; i + 2 < rs; i++) ssz[i] = sb[i];
    ssz[rs - 2] = L, ssz[rs - 1] = S;
    dc_tm_new(&t2, qm, dt, ssz, rs);
    if ((st = dc_emit_batched_mm(c, qs, ks, &t2.m, &s4))) return st;
    if (bias != EIR_NO_VALUE) {
        uint32_t added;
        tm ta;
        dc_tm_binary(&ta, &t2.m, meta_of(c, bias));
        eir_named_arg ad[2] = {pos_arg("self", a_tensor(s4)), pos_arg("other", a_tensor(bias))};
        if ((st = dc_emit(c, "add.Tensor", 2, ad, &ta.m, "add", &added))) return st;
        s4 = added;
    }
    /* the scores' sizes after the bias (a mask may broadcast them) */
    const eir_tensor_meta *sm4 = meta_of(c, s4);
    uint32_t rsb = sm4->rank;
    int64_t ssz2[MAXR];
    for (uint32_t i = 0; i < rsb; i++) ssz2[i] = sm4->sizes[i].value;
    dc_tm_new(&t2, qm, dt, ssz2, rsb);
    /* softmax, with rows that are all -inf set to 0 */
    uint32_t sm, eq, ln1, any, ln2, fl, w;
    eir_named_arg so[3] = {pos_arg("self", a_tensor(s4)), pos_arg("dim", a_int(-1)), pos_arg("half_to_float", a_bool(false))};
    if ((st = dc_emit(c, "_softmax.default", 3, so, &t2.m, "_softmax", &sm))) return st;
    tm bs, bany;
    dc_tm_new(&bs, qm, EIR_BOOL, ssz2, rsb);
    int64_t asz[MAXR];
    memcpy(asz, ssz2, sizeof(int64_t) * rsb);
    asz[rsb - 1] = 1;
    dc_tm_new(&bany, qm, EIR_BOOL, asz, rsb);
    eir_named_arg eqi[2] = {pos_arg("self", a_tensor(s4)), pos_arg("other", a_float(-INFINITY))};
    if ((st = dc_emit(c, "eq.Scalar", 2, eqi, &bs.m, "eq", &eq))) return st;
    eir_named_arg n1i[1] = {pos_arg("self", a_tensor(eq))};
    if ((st = dc_emit(c, "logical_not.default", 1, n1i, &bs.m, "logical_not", &ln1))) return st;
    eir_named_arg ani[3] = {pos_arg("self", a_tensor(ln1)), pos_arg("dim", a_int(-1)), pos_arg("keepdim", a_bool(true))};
    if ((st = dc_emit(c, "any.dim", 3, ani, &bany.m, "any", &any))) return st;
    eir_named_arg n2i[1] = {pos_arg("self", a_tensor(any))};
    if ((st = dc_emit(c, "logical_not.default", 1, n2i, &bany.m, "logical_not", &ln2))) return st;
    eir_named_arg fli[4] = {pos_arg("self", a_tensor(sm)), pos_arg("fill_value", a_int(0)),
                            kw_arg("pin_memory", a_bool(false)),
                            kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE))};
    if ((st = dc_emit(c, "full_like.default", 4, fli, &t2.m, "full_like", &fl))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(ln2)), pos_arg("self", a_tensor(fl)), pos_arg("other", a_tensor(sm))};
    if ((st = dc_emit(c, "where.self", 3, wi, &t2.m, "where", &w))) return st;
    if (p_drop > 0.0) {
        eir_named_arg di[3] = {pos_arg("input", a_tensor(w)), pos_arg("p", a_float(p_drop)), pos_arg("train", a_bool(true))};
        uint32_t dv[2];
        if ((st = sh_emit_n(c, "native_dropout.default", 3, di, 2, false, NULL, dv))) return st;
        w = dv[0];
    }
    /* @ v */
    uint32_t o4, pr, cl, res;
    int64_t osz[MAXR];
    uint32_t rfo = rsb > rv ? rsb : rv;
    if (rfo != ro) return dc_refuse(c, "attn_mask of a rank above the scores'");
    for (uint32_t i = 0; i < ro; i++) osz[i] = om->sizes[i].value;
    (void)ob;
    dc_tm_new(&t2, qm, dt, osz, ro);
    if ((st = dc_emit_batched_mm(c, w, v, &t2.m, &o4))) return st;
    /* torch's decomposition of the flash kernel lays the result out as
     * [L, B, H, E] (permute, contiguous copy, permute back). Later nodes
     * were written for the layout the program recorded: that layout is kept
     * (the same way) unless it is contiguous and only graph outputs read
     * the result, or it is torch's. */
    int64_t p1[4] = {0, 1, 2, 3}, p2[4];
    bool flash_layout = false;
    if (flash) {
        int64_t B_ = om->sizes[0].value, H_ = om->sizes[1].value, E_ = om->sizes[3].value;
        int64_t fs[4] = {H_ * E_, E_, B_ * H_ * E_, 1};
        flash_layout = true;
        for (uint32_t i = 0; i < 4 && flash_layout; i++)
            flash_layout = (om->sizes[i].value <= 1 || om->strides[i].value == fs[i]);
        if (!flash_layout && dc_meta_contiguous(om)) {
            uint32_t outs = 0;
            for (uint32_t i = 0; i < c->g->num_outputs; i++)
                outs += c->g->outputs[i].kind == EIR_ARG_TENSOR && c->g->outputs[i].value == out;
            flash_layout = eir_graph_num_uses(c->g, out) == outs;
        }
    }
    if (flash_layout) {
        p1[0] = 2, p1[1] = 0, p1[2] = 1, p1[3] = 3;
    } else if (ro == 4 && !dc_meta_contiguous(om)) {
        for (uint32_t i = 1; i < 4; i++)
            for (uint32_t j = i; j > 0 && om->strides[p1[j - 1]].value < om->strides[p1[j]].value; j--) {
                int64_t tmp = p1[j - 1];
                p1[j - 1] = p1[j];
                p1[j] = tmp;
            }
    } else
        return finish(c, out, o4);
    for (uint32_t i = 0; i < 4; i++) p2[p1[i]] = i;
    dc_tm_permute(&t1, &t2.m, p1);
    eir_named_arg ppi[2] = {pos_arg("self", a_tensor(o4)), pos_arg("dims", dc_a_ints(c, p1, 4))};
    if ((st = dc_emit(c, "permute.default", 2, ppi, &t1.m, "permute", &pr))) return st;
    dc_tm_contig(&t1);
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(pr)), kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    if ((st = dc_emit(c, "clone.default", 2, ci, &t1.m, "clone", &cl))) return st;
    tm t3;
    dc_tm_permute(&t3, &t1.m, p2);
    eir_named_arg p2i[2] = {pos_arg("self", a_tensor(cl)), pos_arg("dims", dc_a_ints(c, p2, 4))};
    if ((st = dc_emit(c, "permute.default", 2, p2i, &t3.m, "permute", &res))) return st;
    return finish(c, out, res);
}

/* ---- group_norm, pad, repeat_interleave ---- */

/* group_norm -> native_group_norm(x, w, b, N, C, HxW, group, eps) (its
 * mean / rstd outputs [N, group] in the input's dtype) */
eir_status decomp_group_norm(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t groups;
    double eps;
    if (!int_of(dc_arg_named(c, "num_groups"), &groups) || groups <= 0)
        return dc_refuse(c, "argument 'num_groups': expected a positive int");
    if (!dc_float_arg(c, "eps", 1e-5, &eps)) return dc_refuse(c, "argument 'eps': expected a float");
    if (xm->rank < 2) return dc_refuse(c, "input of rank %u (expected rank >= 2)", xm->rank);
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
    int64_t n = xm->sizes[0].value, ch = xm->sizes[1].value, hw = 1;
    for (uint32_t i = 2; i < xm->rank; i++) hw *= xm->sizes[i].value;
    if (ch % groups) return dc_refuse(c, "%lld channels are not divisible into %lld groups", (long long)ch, (long long)groups);
    if (!dc_meta_contiguous(xm) && xm->rank == 4 && !xm->strides[1].is_expr && xm->strides[1].value == 1 && ch > 1)
        return dc_refuse(c, "a channels-last input (torch normalizes a channels-last copy)");
    if (c->dry) return EIR_OK;
    /* torch normalizes contiguous copies of input, weight and bias */
    uint32_t wb[3] = {x, dc_tensor_of(c, "weight"), dc_tensor_of(c, "bias")};
    for (uint32_t i = 0; i < 3; i++) {
        if (wb[i] == EIR_NO_VALUE || dc_meta_contiguous(meta_of(c, wb[i]))) continue;
        tm cl;
        dc_tm_from(&cl, meta_of(c, wb[i]));
        dc_tm_contig(&cl);
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(wb[i])),
                               kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
        if ((st = dc_emit(c, "clone.default", 2, ci, &cl.m, "clone", &wb[i]))) return st;
    }
    x = wb[0];
    xm = meta_of(c, x);
    tm stat;
    int64_t ssz[2] = {n, groups};
    dc_tm_new(&stat, xm, xm->dtype, ssz, 2);
    const eir_tensor_meta *ms[3] = {meta_of(c, out), &stat.m, &stat.m};
    eir_named_arg gi[8] = {pos_arg("input", a_tensor(x)), pos_arg("weight", a_opt_tensor(wb[1])),
                           pos_arg("bias", a_opt_tensor(wb[2])),
                           pos_arg("N", a_int(n)), pos_arg("C", a_int(ch)), pos_arg("HxW", a_int(hw)),
                           pos_arg("group", a_int(groups)), pos_arg("eps", a_float(eps))};
    uint32_t vals[3];
    if ((st = dc_emit_n(c, "native_group_norm.default", 8, gi, 3, ms, NULL, false, vals))) return st;
    return finish(c, out, vals[0]);
}

/* pad: 'constant' -> constant_pad_nd; 'reflect' / 'replicate' -> per padded
 * dimension an index built from arange (torch's
 * _reflection_or_replication_pad: reflect as m-1 - |m-1 - |i||, replicate as
 * clamp(i, 0, m-1)) and index.Tensor; 'circular' is refused */
/* slice.Tensor(x, dim, start, end): a view */
static eir_status emit_slice(dc *c, uint32_t x, uint32_t dim, int64_t start, int64_t end, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    dc_tm_from(&t, xm);
    t.sz[dim] = si(end - start);
    t.m.storage_offset = si(xm->storage_offset.value + start * xm->strides[dim].value);
    eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("start", a_int(start)),
                            pos_arg("end", a_int(end))};
    return dc_emit(c, "slice.Tensor", 4, si_, &t.m, "slice", res);
}

/* copy.default(dst, src): a new tensor of dst's sizes and strides (torch's
 * meta keeps them, gaps included) */
static eir_status emit_copy(dc *c, uint32_t dst, uint32_t src, uint32_t *res) {
    tm t;
    dc_tm_from(&t, meta_of(c, dst));
    t.m.storage_offset = si(0);
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(dst)), pos_arg("src", a_tensor(src))};
    return dc_emit(c, "copy.default", 2, ci, &t.m, "copy", res);
}

static eir_status emit_slice_scatter(dc *c, uint32_t x, uint32_t src, uint32_t dim, int64_t start, int64_t end,
                                     uint32_t *res) {
    tm t;
    dc_tm_from(&t, meta_of(c, x));
    t.m.storage_offset = si(0);
    eir_named_arg si_[5] = {pos_arg("self", a_tensor(x)), pos_arg("src", a_tensor(src)), pos_arg("dim", a_int(dim)),
                            pos_arg("start", a_int(start)), pos_arg("end", a_int(end))};
    return dc_emit(c, "slice_scatter.default", 5, si_, &t.m, "slice_scatter", res);
}

/* pad(x, pad, 'circular'), as torch's _pad_circular traces once
 * functionalized: an empty result, the input copied into its middle (slices
 * of both, copy, slice_scatter back through the chain of slices), then per
 * padded dimension (last first) the left and the right wrap copied from the
 * result itself (slice, slice, copy, slice_scatter) */
static eir_status pad_circular(dc *c, uint32_t x, uint32_t out, const int64_t *pad, uint32_t np) {
    const eir_tensor_meta *xm = meta_of(c, x);
    uint32_t nd = np / 2;
    if (!nd || nd > xm->rank) return dc_refuse(c, "circular padding of %u dimensions of a tensor of rank %u", nd, xm->rank);
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
    uint32_t nn = xm->rank - nd;
    int64_t osz[MAXR];
    for (uint32_t d = 0; d < xm->rank; d++) osz[d] = xm->sizes[d].value;
    for (uint32_t i = 0; i < nd; i++) {
        int64_t l = pad[2 * (nd - i - 1)], r = pad[2 * (nd - i - 1) + 1], m = xm->sizes[nn + i].value;
        if (l > m || r > m)
            return dc_refuse(c, "circular padding (%lld, %lld) of a dimension of size %lld (at most the size)",
                             (long long)l, (long long)r, (long long)m);
        osz[nn + i] = m + l + r;
        if (osz[nn + i] < 0) return dc_refuse(c, "circular padding to a negative size");
    }
    if (c->dry) return EIR_OK;
    eir_status st;
    tm em;
    dc_tm_new(&em, xm, xm->dtype, osz, xm->rank);
    eir_named_arg ei[5] = {pos_arg("size", dc_a_ints(c, osz, xm->rank)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm)),
                           kw_arg("pin_memory", a_bool(false))};
    uint32_t base, os_ = 0, is = x, cp;
    if ((st = dc_emit(c, "empty.memory_format", 5, ei, &em.m, "empty", &base))) return st;
    /* the middle: a chain of slices of the result and of the input */
    uint32_t dims[MAXR];
    int64_t st_[MAXR], en[MAXR];
    os_ = base;
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t dim = nd - i + nn - 1;
        int64_t l = pad[2 * i], r = pad[2 * i + 1];
        dims[i] = dim;
        st_[i] = l > 0 ? l : 0;
        en[i] = osz[dim] - (r > 0 ? r : 0);
        if ((st = emit_slice(c, os_, dim, st_[i], en[i], &os_))) return st;
        if ((st = emit_slice(c, is, dim, l < 0 ? -l : 0, xm->sizes[dim].value - (r < 0 ? -r : 0), &is))) return st;
    }
    if ((st = emit_copy(c, os_, is, &cp))) return st;
    /* written back: the chain taken again from the result, then scattered outward */
    uint32_t views[MAXR + 1];
    views[0] = base;
    for (uint32_t i = 0; i + 1 < nd; i++)
        if ((st = emit_slice(c, views[i], dims[i], st_[i], en[i], &views[i + 1]))) return st;
    uint32_t cur = cp;
    for (uint32_t i = nd; i-- > 0;)
        if ((st = emit_slice_scatter(c, views[i], cur, dims[i], st_[i], en[i], &cur))) return st;
    /* the wraps */
    for (uint32_t i = 0; i < nd; i++) {
        uint32_t dim = nd - i + nn - 1, a, b;
        int64_t l = pad[2 * i], r = pad[2 * i + 1], n = osz[dim], rp = r > 0 ? r : 0, lp = l > 0 ? l : 0;
        if (l > 0) {
            if ((st = emit_slice(c, cur, dim, 0, l, &a)) || (st = emit_slice(c, cur, dim, n - l - rp, n - rp, &b)) ||
                (st = emit_copy(c, a, b, &cp)) || (st = emit_slice_scatter(c, cur, cp, dim, 0, l, &cur)))
                return st;
        }
        if (r > 0) {
            if ((st = emit_slice(c, cur, dim, n - r, n, &a)) || (st = emit_slice(c, cur, dim, lp, lp + r, &b)) ||
                (st = emit_copy(c, a, b, &cp)) || (st = emit_slice_scatter(c, cur, cp, dim, n - r, n, &cur)))
                return st;
        }
    }
    return finish(c, out, cur);
}

eir_status decomp_pad(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_arg *pa = dc_arg_named(c, "pad"), *ma = dc_arg_named(c, "mode");
    int64_t pad[2 * MAXR];
    uint32_t np;
    if (!dc_ints_of(pa, pad, 2 * MAXR, &np) || np % 2) return dc_refuse(c, "argument 'pad': expected an even number of concrete ints");
    const char *mode = is_none(ma) ? "constant" : ma->kind == EIR_ARG_STRING ? ma->u.s : NULL;
    if (!mode) return dc_refuse(c, "argument 'mode': expected a string");
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (!strcmp(mode, "constant")) {
        double v;
        if (!dc_float_arg(c, "value", 0.0, &v)) return dc_refuse(c, "argument 'value': expected a float");
        if (c->dry) return EIR_OK;
        eir_named_arg ci[3] = {pos_arg("self", a_tensor(x)), pos_arg("pad", *pa), pos_arg("value", a_float(v))};
        uint32_t res;
        if ((st = dc_emit(c, "constant_pad_nd.default", 3, ci, om, "constant_pad_nd", &res))) return st;
        return finish(c, out, res);
    }
    if (!strcmp(mode, "circular")) return pad_circular(c, x, out, pad, np);
    bool reflect = !strcmp(mode, "reflect");
    if (!reflect && strcmp(mode, "replicate"))
        return dc_refuse(c, "pad mode '%s' (only 'constant', 'reflect', 'replicate' and 'circular' are decomposed)",
                         mode);
    uint32_t k = np / 2;
    if (!k || xm->rank < k + 1 || xm->rank > k + 2)
        return dc_refuse(c, "%s padding of %u dimensions of a tensor of rank %u", mode, k, xm->rank);
    if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
    if (!dc_meta_contiguous(om)) return dc_refuse(c, "a non-contiguous result");
    uint32_t nc = xm->rank - k;
    for (uint32_t i = 0; i < k; i++) {
        int64_t l = pad[2 * (k - 1 - i)], r = pad[2 * (k - 1 - i) + 1], m = xm->sizes[nc + i].value;
        if (reflect && (l < 0 || r < 0)) return dc_refuse(c, "negative %s padding", mode);
        if (l + m + r < 1) return dc_refuse(c, "replicate padding (%lld, %lld) of a dimension of size %lld to nothing",
                                            (long long)l, (long long)r, (long long)m);
        if (reflect && (l >= m || r >= m))
            return dc_refuse(c, "reflect padding (%lld, %lld) of a dimension of size %lld", (long long)l, (long long)r,
                          (long long)m);
        if (!reflect && m == 0) return dc_refuse(c, "replicate padding of an empty dimension");
    }
    if (c->dry) return EIR_OK;
    uint32_t cur = x;
    tm res_m;
    dc_tm_from(&res_m, xm);
    for (uint32_t i = 0; i < k; i++) {
        int64_t l = pad[2 * (k - 1 - i)], r = pad[2 * (k - 1 - i) + 1], m = xm->sizes[nc + i].value, len = l + m + r;
        tm t;
        uint32_t ar, idx, a1, s1, a2;
        dc_tm_new(&t, xm, EIR_I64, &len, 1);
        eir_named_arg ai[5] = {pos_arg("start", a_int(-l)), pos_arg("end", a_int(m + r)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", dc_a_device(xm)), kw_arg("pin_memory", a_bool(false))};
        if ((st = dc_emit(c, "arange.start_step", 5, ai, &t.m, "arange", &ar))) return st;
        if (reflect) {
            eir_named_arg b1[1] = {pos_arg("self", a_tensor(ar))};
            if ((st = dc_emit(c, "abs.default", 1, b1, &t.m, "abs", &a1))) return st;
            eir_named_arg s1i[2] = {pos_arg("self", a_int(m - 1)), pos_arg("other", a_tensor(a1))};
            if ((st = dc_emit(c, "sub.Tensor", 2, s1i, &t.m, "sub", &s1))) return st;
            eir_named_arg b2[1] = {pos_arg("self", a_tensor(s1))};
            if ((st = dc_emit(c, "abs.default", 1, b2, &t.m, "abs", &a2))) return st;
            eir_named_arg s2i[2] = {pos_arg("self", a_int(m - 1)), pos_arg("other", a_tensor(a2))};
            if ((st = dc_emit(c, "sub.Tensor", 2, s2i, &t.m, "sub", &idx))) return st;
        } else {
            eir_named_arg ci[3] = {pos_arg("self", a_tensor(ar)), pos_arg("min", a_int(0)), pos_arg("max", a_int(m - 1))};
            if ((st = dc_emit(c, "clamp.default", 3, ci, &t.m, "clamp", &idx))) return st;
        }
        eir_arg items[MAXR];
        for (uint32_t d = 0; d < xm->rank; d++) {
            memset(&items[d], 0, sizeof items[d]);
            items[d].kind = EIR_ARG_OPTIONAL_TENSOR;
            items[d].value = d == nc + i ? idx : EIR_NO_VALUE;
        }
        eir_arg il = {0};
        il.kind = EIR_ARG_OPTIONAL_TENSORS;
        il.u.list.n = xm->rank;
        il.u.list.items = items;
        res_m.sz[nc + i] = si(len);
        dc_tm_contig(&res_m);
        eir_named_arg ii[2] = {pos_arg("self", a_tensor(cur)), pos_arg("indices", il)};
        if ((st = dc_emit(c, "index.Tensor", 2, ii, i + 1 == k ? om : &res_m.m, "index", &cur))) return st;
    }
    return finish(c, out, cur);
}

/* softmax.int / log_softmax.int -> (_to_copy to dtype) + _softmax /
 * _log_softmax(x, dim, False) */
eir_status decomp_softmax(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t dim;
    if (!int_of(dc_arg_named(c, "dim"), &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    const eir_arg *dt = dc_arg_named(c, "dtype");
    if (!is_none(dt) && dt->kind != EIR_ARG_SCALAR_TYPE) return dc_refuse(c, "argument 'dtype': expected a dtype");
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    if (!is_none(dt) && (eir_dtype)dt->u.i != xm->dtype) {
        tm t;
        dc_tm_from(&t, om);
        eir_named_arg ti[4] = {pos_arg("self", a_tensor(x)), kw_arg("dtype", *dt),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)),
                               kw_arg("device", dc_a_device(xm))};
        if ((st = dc_emit(c, "_to_copy.default", 4, ti, &t.m, "_to_copy", &x))) return st;
    }
    bool lg = strstr(c->op, "log_softmax") != NULL;
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("half_to_float", a_bool(false))};
    uint32_t res;
    if ((st = dc_emit(c, lg ? "_log_softmax.default" : "_softmax.default", 3, si_, om, lg ? "_log_softmax" : "_softmax",
                   &res)))
        return st;
    return finish(c, out, res);
}

/* ---- lstm (torch's lstm_impl: one_layer_lstm unrolled over time) ---- */

static eir_status emit_slice0(dc *c, uint32_t x, int64_t i, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    dc_tm_from(&t, xm);
    t.sz[0] = si(1);
    t.m.storage_offset = si(xm->storage_offset.value + i * xm->strides[0].value);
    eir_named_arg si_[4] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(0)), pos_arg("start", a_int(i)),
                            pos_arg("end", a_int(i + 1))};
    return dc_emit(c, "slice.Tensor", 4, si_, &t.m, "slice", res);
}

/* squeeze.dims(x, [0]) of a tensor whose first size is 1 */
static eir_status emit_squeeze0(dc *c, uint32_t x, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    dc_tm_from(&t, xm);
    for (uint32_t i = 1; i < xm->rank; i++) {
        t.sz[i - 1] = xm->sizes[i];
        t.st[i - 1] = xm->strides[i];
    }
    t.m.rank = xm->rank - 1;
    int64_t zero = 0;
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, &zero, 1))};
    return dc_emit(c, "squeeze.dims", 2, si_, &t.m, "squeeze", res);
}

/* x.unbind(0) as torch's decomposition writes it: every slice, then every
 * squeeze */
static eir_status emit_unbind0(dc *c, uint32_t x, uint32_t n, uint32_t *parts) {
    eir_status st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = emit_slice0(c, x, i, &parts[i]))) return st;
    for (uint32_t i = 0; i < n; i++)
        if ((st = emit_squeeze0(c, parts[i], &parts[i]))) return st;
    return EIR_OK;
}

static eir_status emit_pw2(dc *c, const char *target, uint32_t a, uint32_t b, const eir_tensor_meta *m,
                           const char *hint, uint32_t *res) {
    eir_named_arg pi[2] = {pos_arg("self", a_tensor(a)), pos_arg("other", a_tensor(b))};
    return dc_emit(c, target, b == EIR_NO_VALUE ? 1 : 2, pi, m, hint, res);
}

static eir_status emit_cat0(dc *c, const uint32_t *vals, uint32_t n, const eir_tensor_meta *m, uint32_t *res) {
    eir_arg *items = calloc(n, sizeof *items);
    if (!items) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
    for (uint32_t i = 0; i < n; i++) items[i] = a_tensor(vals[i]);
    eir_arg l = {0};
    l.kind = EIR_ARG_TENSORS;
    l.u.list.n = n;
    l.u.list.items = items;
    eir_named_arg ci[1] = {pos_arg("tensors", l)};
    eir_status st = dc_emit(c, "cat.default", 1, ci, m, "cat", res);
    free(items);
    return st;
}

eir_status decomp_lstm(dc *c) {
    uint32_t x = dc_tensor_of(c, "input");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'input': expected a tensor");
    if (c->src.num_outputs != 3) return dc_refuse(c, "expected three outputs");
    for (uint32_t i = 0; i < 3; i++)
        if (c->src.outputs[i].kind != EIR_ARG_TENSOR || c->src.outputs[i].value >= c->g->num_values)
            return dc_refuse(c, "expected three tensor outputs");
    const eir_arg *hxa = dc_arg_named(c, "hx"), *pa = dc_arg_named(c, "params");
    if (!hxa || hxa->kind != EIR_ARG_TENSORS || hxa->u.list.n != 2) return dc_refuse(c, "argument 'hx': expected two tensors");
    if (!pa || pa->kind != EIR_ARG_TENSORS) return dc_refuse(c, "argument 'params': expected a list of tensors");
    bool has_b, train, bidir, bf;
    int64_t layers;
    double drop;
    if (!dc_bool_arg(c, "has_biases", true, &has_b) || !dc_bool_arg(c, "train", false, &train) ||
        !dc_bool_arg(c, "bidirectional", false, &bidir) || !dc_bool_arg(c, "batch_first", false, &bf) ||
        !int_of(dc_arg_named(c, "num_layers"), &layers) || !dc_float_arg(c, "dropout", 0.0, &drop))
        return dc_refuse(c, "arguments has_biases, num_layers, dropout, train, bidirectional, batch_first: expected "
                         "concrete values");
    if (bidir) return dc_refuse(c, "a bidirectional lstm is not decomposed yet");
    if (train && drop != 0.0 && layers > 1) return dc_refuse(c, "dropout between layers in training mode (random)");
    uint32_t per = has_b ? 4 : 2;
    if (layers < 1 || layers > MAXR || pa->u.list.n != per * (uint32_t)layers)
        return dc_refuse(c, "%u parameters for %lld layers (lstm with projections is not decomposed)", pa->u.list.n,
                      (long long)layers);
    for (uint32_t i = 0; i < pa->u.list.n; i++) {
        const eir_arg *it = &pa->u.list.items[i];
        if (it->value >= c->g->num_values || c->g->values[it->value].kind != EIR_VALUE_TENSOR)
            return dc_refuse(c, "argument 'params': item %u is not a tensor", i);
    }
    uint32_t h0 = hxa->u.list.items[0].value, c0 = hxa->u.list.items[1].value;
    if (h0 >= c->g->num_values || c0 >= c->g->num_values) return dc_refuse(c, "argument 'hx': expected two tensors");
    const eir_tensor_meta *xm = meta_of(c, x), *hm = meta_of(c, h0), *cm = meta_of(c, c0);
    if (xm->rank != 3) return dc_refuse(c, "input of rank %u (an unbatched lstm is not decomposed)", xm->rank);
    if (!dc_meta_concrete_sizes(xm) || !dc_meta_concrete_sizes(hm) || !dc_meta_concrete_sizes(cm))
        return dc_refuse(c, "symbolic sizes");
    for (uint32_t i = 0; i < 3; i++)
        if (xm->strides[i].is_expr || hm->strides[i].is_expr || cm->strides[i].is_expr || hm->rank != 3 || cm->rank != 3)
            return dc_refuse(c, "symbolic strides, or hidden states not of rank 3");
    int64_t T = xm->sizes[bf ? 1 : 0].value, B = xm->sizes[bf ? 0 : 1].value, H = hm->sizes[2].value;
    if (T < 1 || T > 4096) return dc_refuse(c, "%lld time steps (1 to 4096 are unrolled)", (long long)T);
    if (hm->sizes[0].value != layers || hm->sizes[1].value != B || cm->sizes[0].value != layers ||
        cm->sizes[1].value != B || cm->sizes[2].value != H)
        return dc_refuse(c, "hidden states of sizes other than [num_layers, batch, hidden]");
    for (uint32_t l = 0; l < (uint32_t)layers; l++) {
        const eir_tensor_meta *wih = meta_of(c, pa->u.list.items[l * per].value);
        const eir_tensor_meta *whh = meta_of(c, pa->u.list.items[l * per + 1].value);
        if (wih->rank != 2 || whh->rank != 2 || !dc_meta_concrete_sizes(wih) || !dc_meta_concrete_sizes(whh) ||
            wih->sizes[0].value != 4 * H || whh->sizes[0].value != 4 * H || whh->sizes[1].value != H)
            return dc_refuse(c, "layer %u: weights of sizes other than [4*hidden, in] and [4*hidden, hidden]", l);
    }
    if (c->dry) return EIR_OK;

    eir_status st;
    eir_dtype dt = xm->dtype;
    uint32_t *steps = calloc((size_t)T, sizeof *steps);
    uint32_t hs[MAXR], cs[MAXR], hf[MAXR], cf[MAXR];
    if (!steps) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");

#define TRYL(e) do { if ((st = (e))) { free(steps); return st; } } while (0)
    /* hidden = zip(hx[0], hx[1]) */
    TRYL(emit_unbind0(c, h0, (uint32_t)layers, hs));
    TRYL(emit_unbind0(c, c0, (uint32_t)layers, cs));
    uint32_t inp = x;
    if (bf) {
        int64_t perm[3] = {1, 0, 2};
        tm t;
        dc_tm_permute(&t, xm, perm);
        TRYL(dc_emit_permute(c, x, perm, 3, &t.m, &inp));
    }
    tm g1, gbh, s1, pre;
    int64_t gsz[3] = {1, B, 4 * H}, hsz[3] = {1, B, H};
    dc_tm_new(&g1, xm, dt, gsz, 3);
    dc_tm_new(&s1, xm, dt, hsz, 3);
    dc_tm_from(&gbh, &g1.m);
    gbh.m.rank = 2;
    gbh.sz[0] = si(B);
    gbh.sz[1] = si(4 * H);
    dc_tm_contig(&gbh);
    for (uint32_t l = 0; l < (uint32_t)layers; l++) {
        uint32_t wih = pa->u.list.items[l * per].value, whh = pa->u.list.items[l * per + 1].value;
        uint32_t bih = has_b ? pa->u.list.items[l * per + 2].value : EIR_NO_VALUE;
        uint32_t bhh = has_b ? pa->u.list.items[l * per + 3].value : EIR_NO_VALUE;
        uint32_t hx, cx, pv;
        for (int k = 0; k < 2; k++) {
            uint32_t v = k ? cs[l] : hs[l];
            const eir_tensor_meta *vm = meta_of(c, v);
            tm u;
            dc_tm_from(&u, vm);
            u.m.rank = 3;
            u.sz[2] = vm->sizes[1], u.st[2] = vm->strides[1];
            u.sz[1] = vm->sizes[0], u.st[1] = vm->strides[0];
            u.sz[0] = si(1), u.st[0] = si(vm->sizes[0].value * vm->strides[0].value);
            eir_named_arg ui[2] = {pos_arg("self", a_tensor(v)), pos_arg("dim", a_int(0))};
            TRYL(dc_emit(c, "unsqueeze.default", 2, ui, &u.m, "unsqueeze", k ? &cx : &hx));
        }
        int64_t psz[3] = {T, B, 4 * H};
        dc_tm_new(&pre, xm, dt, psz, 3);
        TRYL(emit_linear(c, inp, wih, bih, &pre.m, &pv));
        TRYL(emit_unbind0(c, pv, (uint32_t)T, steps));
        for (int64_t t = 0; t < T; t++) {
            uint32_t gl, ga, parts[4], sg0, sg1, th2, sg3, m0, m1, cy, tc, hy;
            TRYL(emit_linear(c, hx, whh, bhh, &g1.m, &gl));
            TRYL(emit_pw2(c, "add.Tensor", gl, steps[t], &g1.m, "add", &ga));
            /* gates.chunk(4, 2) */
            tm pm[4];
            const eir_tensor_meta *pms[4];
            for (int k = 0; k < 4; k++) {
                dc_tm_from(&pm[k], &g1.m);
                pm[k].sz[2] = si(H);
                pm[k].m.storage_offset = si(k * H);
                pms[k] = &pm[k].m;
            }
            int64_t ss[4] = {H, H, H, H};
            eir_named_arg sp[3] = {pos_arg("self", a_tensor(ga)), pos_arg("split_sizes", dc_a_ints(c, ss, 4)),
                                   pos_arg("dim", a_int(2))};
            TRYL(dc_emit_n(c, "split_with_sizes.default", 3, sp, 4, pms, NULL, true, parts));
            TRYL(emit_pw2(c, "sigmoid.default", parts[0], EIR_NO_VALUE, &s1.m, "sigmoid", &sg0));
            TRYL(emit_pw2(c, "sigmoid.default", parts[1], EIR_NO_VALUE, &s1.m, "sigmoid", &sg1));
            TRYL(emit_pw2(c, "tanh.default", parts[2], EIR_NO_VALUE, &s1.m, "tanh", &th2));
            TRYL(emit_pw2(c, "sigmoid.default", parts[3], EIR_NO_VALUE, &s1.m, "sigmoid", &sg3));
            TRYL(emit_pw2(c, "mul.Tensor", sg1, cx, &s1.m, "mul", &m0));
            TRYL(emit_pw2(c, "mul.Tensor", sg0, th2, &s1.m, "mul", &m1));
            TRYL(emit_pw2(c, "add.Tensor", m0, m1, &s1.m, "add", &cy));
            TRYL(emit_pw2(c, "tanh.default", cy, EIR_NO_VALUE, &s1.m, "tanh", &tc));
            TRYL(emit_pw2(c, "mul.Tensor", sg3, tc, &s1.m, "mul", &hy));
            hx = hy;
            cx = cy;
            steps[t] = hy;
        }
        tm o;
        int64_t osz[3] = {T, B, H};
        dc_tm_new(&o, xm, dt, osz, 3);
        TRYL(emit_cat0(c, steps, (uint32_t)T, &o.m, &inp));
        TRYL(emit_squeeze0(c, hx, &hf[l]));
        TRYL(emit_squeeze0(c, cx, &cf[l]));
    }
    uint32_t out0 = inp, out1, out2, cat;
    if (bf) {
        int64_t perm[3] = {1, 0, 2};
        tm t;
        dc_tm_permute(&t, meta_of(c, inp), perm);
        TRYL(dc_emit_permute(c, inp, perm, 3, &t.m, &out0));
    }
    /* torch.stack(final_hiddens, 0): cat + view */
    tm fl, fv;
    int64_t fsz[2] = {layers * B, H}, vsz[3] = {layers, B, H};
    dc_tm_new(&fl, xm, dt, fsz, 2);
    dc_tm_new(&fv, xm, dt, vsz, 3);
    TRYL(emit_cat0(c, hf, (uint32_t)layers, &fl.m, &cat));
    TRYL(dc_emit_reshape(c, cat, &fv.m, "view", &out1));
    TRYL(emit_cat0(c, cf, (uint32_t)layers, &fl.m, &cat));
    TRYL(dc_emit_reshape(c, cat, &fv.m, "view", &out2));
#undef TRYL
    free(steps);
    if ((st = finish(c, c->src.outputs[0].value, out0))) return st;
    if ((st = finish(c, c->src.outputs[1].value, out1))) return st;
    return finish(c, c->src.outputs[2].value, out2);
}

/* ---- rms_norm, mse_loss ---- */

/* Whether m's sizes and strides are all concrete. */
static bool meta_concrete(const eir_tensor_meta *m) {
    if (m->rank > MAXR || !dc_meta_concrete_sizes(m) || m->storage_offset.is_expr) return false;
    for (uint32_t d = 0; d < m->rank; d++)
        if (m->strides[d].is_expr) return false;
    return true;
}

/* a unary pointwise op with one optional scalar: aten.<target>(x[, name=s]) */
static eir_status emit_unary(dc *c, const char *target, uint32_t x, const char *name, eir_arg s, const char *hint,
                             uint32_t *res) {
    tm t;
    dc_tm_pointwise(&t, meta_of(c, x));
    eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg(name ? name : "", s)};
    return dc_emit(c, target, name ? 2 : 1, ui, &t.m, hint, res);
}

static eir_status emit_binary(dc *c, const char *target, uint32_t a, uint32_t b, const char *hint, uint32_t *res) {
    tm t;
    dc_tm_binary(&t, meta_of(c, a), meta_of(c, b));
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(a)), pos_arg("other", a_tensor(b))};
    return dc_emit(c, target, 2, bi, &t.m, hint, res);
}

/* rms_norm(x, shape, w, eps) -> x * rsqrt(mean(x^2 over the last dims) + eps)
 * (* w), eps defaulting to the dtype's machine epsilon, as torch's
 * composite rms_norm traces for float32 and float64 */
eir_status decomp_rms_norm(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "input", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    if (xm->dtype != EIR_F32 && xm->dtype != EIR_F64)
        return dc_refuse(c, "input of dtype %s (only float32 and float64 are decomposed)", eir_dtype_name(xm->dtype));
    if (!meta_concrete(xm)) return dc_refuse(c, "input of symbolic size");
    int64_t ns[MAXR];
    uint32_t nn;
    if (!dc_ints_of(dc_arg_named(c, "normalized_shape"), ns, MAXR, &nn) || nn > xm->rank)
        return dc_refuse(c, "argument 'normalized_shape': expected at most %u ints", xm->rank);
    uint32_t w = dc_tensor_of(c, "weight");
    if (w != EIR_NO_VALUE && (!meta_concrete(meta_of(c, w)) || meta_of(c, w)->dtype != xm->dtype))
        return dc_refuse(c, "weight of symbolic size or another dtype");
    double eps;
    if (!dc_float_arg(c, "eps", xm->dtype == EIR_F32 ? 1.1920928955078125e-07 : 2.220446049250313e-16, &eps))
        return dc_refuse(c, "argument 'eps': expected a float");
    if (c->dry) return EIR_OK;
    int64_t dims[MAXR], msz[MAXR];
    for (uint32_t i = 0; i < nn; i++) dims[i] = (int64_t)xm->rank - 1 - i;
    for (uint32_t d = 0; d < xm->rank; d++) msz[d] = d + nn >= xm->rank ? 1 : xm->sizes[d].value;
    tm mt;
    dc_tm_new(&mt, xm, xm->dtype, msz, xm->rank);
    uint32_t p, mean, add, rs, mul;
    if ((st = emit_unary(c, "pow.Tensor_Scalar", x, "exponent", a_int(2), "pow", &p))) return st;
    eir_named_arg mi[3] = {pos_arg("self", a_tensor(p)), pos_arg("dim", dc_a_ints(c, dims, nn)),
                           pos_arg("keepdim", a_bool(true))};
    if ((st = dc_emit(c, "mean.dim", 3, mi, &mt.m, "mean", &mean))) return st;
    if ((st = emit_unary(c, "add.Scalar", mean, "other", a_float(eps), "add", &add))) return st;
    if ((st = emit_unary(c, "rsqrt.default", add, NULL, a_none(), "rsqrt", &rs))) return st;
    if ((st = emit_binary(c, "mul.Tensor", x, rs, "mul", &mul))) return st;
    if (w != EIR_NO_VALUE && (st = emit_binary(c, "mul.Tensor", mul, w, "mul", &mul))) return st;
    if (!dc_meta_contiguous(meta_of(c, mul))) {
        /* the result is made contiguous */
        tm ct;
        dc_tm_from(&ct, meta_of(c, mul));
        dc_tm_contig(&ct);
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(mul)),
                               kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
        if ((st = dc_emit(c, "clone.default", 2, ci, &ct.m, "clone", &mul))) return st;
    }
    return finish(c, out, mul);
}

/* a pointwise op of x and a float scalar, as torch's Python decompositions
 * write it (aten.mul.Tensor(x, 0.5) and the like), of x's metadata */
static eir_status emit_scalar_op(dc *c, const char *target, uint32_t x, double f, eir_dtype dt, const char *hint,
                                 uint32_t *res) {
    tm t;
    dc_tm_pointwise(&t, meta_of(c, x));
    t.m.dtype = dt;
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(x)), pos_arg("other", a_float(f))};
    return dc_emit(c, target, 2, bi, &t.m, hint, res);
}

/* The elementwise losses, as torch's decompositions of them trace:
 *   mse_loss       pow(sub(a, b), 2)
 *   l1_loss        abs(sub(a, b))
 *   huber_loss     d = abs(sub(a, b)); where(d < delta, d * 0.5 * d, (d - 0.5 delta) * delta)
 *   smooth_l1_loss d = abs(sub(a, b)); where(d < beta, d^2 * 0.5 / beta, d - 0.5 beta)
 *                  (beta 0: d)
 * then mean / sum over all dimensions (reduction 1 / 2). */
eir_status decomp_pointwise_loss(dc *c) {
    uint32_t a, out, b = dc_tensor_of(c, "target");
    eir_status st = dc_need_io(c, "self", &a, &out);
    if (st) return st;
    if (b == EIR_NO_VALUE) return dc_refuse(c, "argument 'target': expected a tensor");
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    if (!meta_concrete(am) || !meta_concrete(bm)) return dc_refuse(c, "operands of symbolic size");
    if (am->dtype != bm->dtype || (am->dtype != EIR_F32 && am->dtype != EIR_F64))
        return dc_refuse(c, "operands of dtypes %s and %s (float32 or float64, the same, are decomposed)",
                         eir_dtype_name(am->dtype), eir_dtype_name(bm->dtype));
    int64_t red = 1;
    const eir_arg *ra = dc_arg_named(c, "reduction");
    if (!is_none(ra) && (!int_of(ra, &red) || red < 0 || red > 2))
        return dc_refuse(c, "argument 'reduction': expected 0, 1 or 2");
    bool mse = strstr(c->op, "mse_loss"), huber = strstr(c->op, "huber_loss"), smooth = strstr(c->op, "smooth_l1");
    double k = 1.0;
    if ((huber && !dc_float_arg(c, "delta", 1.0, &k)) || (smooth && !dc_float_arg(c, "beta", 1.0, &k)))
        return dc_refuse(c, "argument '%s': expected a float", huber ? "delta" : "beta");
    if (c->dry) return EIR_OK;
    uint32_t d, v, res;
    if ((st = emit_binary(c, "sub.Tensor", a, b, "sub", &d))) return st;
    if (mse) {
        if ((st = emit_unary(c, "pow.Tensor_Scalar", d, "exponent", a_int(2), "pow", &v))) return st;
    } else if ((st = emit_unary(c, "abs.default", d, NULL, a_none(), "abs", &v)))
        return st;
    if (huber || (smooth && k != 0.0)) {
        uint32_t lt, x, y, z, w;
        if ((st = emit_scalar_op(c, "lt.Scalar", v, k, EIR_BOOL, "lt", &lt))) return st;
        if (huber) {
            if ((st = emit_scalar_op(c, "mul.Tensor", v, 0.5, am->dtype, "mul", &x))) return st;
            if ((st = emit_binary(c, "mul.Tensor", x, v, "mul", &x))) return st;
            if ((st = emit_scalar_op(c, "sub.Tensor", v, 0.5 * k, am->dtype, "sub", &y))) return st;
            if ((st = emit_scalar_op(c, "mul.Tensor", y, k, am->dtype, "mul", &y))) return st;
        } else {
            if ((st = emit_unary(c, "pow.Tensor_Scalar", v, "exponent", a_int(2), "pow", &z))) return st;
            if ((st = emit_scalar_op(c, "mul.Tensor", z, 0.5, am->dtype, "mul", &w))) return st;
            if ((st = emit_scalar_op(c, "div.Tensor", w, k, am->dtype, "div", &x))) return st;
            if ((st = emit_scalar_op(c, "sub.Tensor", v, 0.5 * k, am->dtype, "sub", &y))) return st;
        }
        tm t;
        dc_tm_pointwise(&t, meta_of(c, v));
        eir_named_arg wi[3] = {pos_arg("condition", a_tensor(lt)), pos_arg("self", a_tensor(x)),
                               pos_arg("other", a_tensor(y))};
        if ((st = dc_emit(c, "where.self", 3, wi, &t.m, "where", &v))) return st;
    }
    if (red == 0) return finish(c, out, v);
    tm s;
    dc_tm_new(&s, am, am->dtype, NULL, 0);
    if (red == 1) {
        eir_named_arg mi[1] = {pos_arg("self", a_tensor(v))};
        st = dc_emit(c, "mean.default", 1, mi, &s.m, "mean", &res);
    } else {
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(v)), pos_arg("dim", dc_a_ints(c, NULL, 0))};
        st = dc_emit(c, "sum.dim_IntList", 2, si_, &s.m, "sum", &res);
    }
    if (st) return st;
    return finish(c, out, res);
}
