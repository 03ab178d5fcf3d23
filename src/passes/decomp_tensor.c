/* decomp_tensor.c — to-core rules for tensor-shaped operators: sum,
 * transpose, to, contiguous, reshape family, fills, activations, matmul,
 * split, renames (the ops torch maps to another overload), item, real/imag,
 * squeeze, repeat_interleave, rsub and the detach family. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"

eir_status decomp_sum(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    const eir_arg *dt = dc_arg_named(c, "dtype");
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, NULL, 0)), {0}};
    uint32_t n = 2;
    if (!is_none(dt)) si_[n++] = kw_arg("dtype", *dt);
    uint32_t res;
    st = dc_emit(c, "sum.dim_IntList", n, si_, meta_of(c, out), "sum", &res);
    if (st) return st;
    return finish(c, out, res);
}

eir_status decomp_transpose(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t r = meta_of(c, x)->rank;
    int64_t d0 = 0, d1 = 1;
    if (!strcmp(c->op, "aten.t.default")) {
        if (r < 2) {
            if (c->dry) return EIR_OK;
            return finish(c, out, x);
        }
    } else if (!int_of(dc_arg_named(c, "dim0"), &d0) || !int_of(dc_arg_named(c, "dim1"), &d1))
        return dc_refuse(c, "arguments 'dim0', 'dim1': expected ints");
    d0 = wrap_dim(d0, r);
    d1 = wrap_dim(d1, r);
    if (d0 < 0 || d1 < 0 || (r && (d0 >= r || d1 >= r)) || (!r && (d0 > 0 || d1 > 0)))
        return dc_refuse(c, "dimension out of range for rank %u", r);
    if (c->dry) return EIR_OK;
    int64_t perm[MAXR];
    for (uint32_t i = 0; i < r; i++) perm[i] = i;
    if (r) {
        perm[d0] = d1;
        perm[d1] = d0;
    }
    uint32_t res;
    st = dc_emit_permute(c, x, perm, r, meta_of(c, out), &res);
    if (st) return st;
    return finish(c, out, res);
}

/* to.dtype / to.dtype_layout / to.device -> _to_copy */
eir_status decomp_to(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    bool copy = false;
    dc_bool_arg(c, "copy", false, &copy);
    if (c->dry) return EIR_OK;
    if (!copy && dc_meta_same_geometry(xm, om)) return finish(c, out, x); /* torch returns self */
    eir_named_arg ti[4];
    uint32_t n = 0;
    ti[n++] = pos_arg("self", a_tensor(x));
    if (om->dtype != xm->dtype) ti[n++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype));
    const eir_arg *dev = dc_arg_named(c, "device");
    if (!is_none(dev) && dev->kind == EIR_ARG_DEVICE) ti[n++] = kw_arg("device", *dev);
    const eir_arg *mf = dc_arg_named(c, "memory_format");
    if (!is_none(mf)) ti[n++] = kw_arg("memory_format", *mf);
    uint32_t res;
    st = dc_emit(c, "_to_copy.default", n, ti, om, "_to_copy", &res);
    if (st) return st;
    return finish(c, out, res);
}

eir_status decomp_contiguous(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    if (dc_meta_same_geometry(meta_of(c, x), meta_of(c, out))) return finish(c, out, x);
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(x)), kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    uint32_t res;
    st = dc_emit(c, "clone.default", 2, ci, meta_of(c, out), "clone", &res);
    if (st) return st;
    return finish(c, out, res);
}

/* reshape / flatten / unflatten / view_as / reshape_as -> view (a contiguous
 * clone first when no view exists), as torch's composites write it: reshape
 * of a contiguous input views with its shape as given (-1 kept: view(x,
 * [-1])), of another with the sizes it infers (through a clone when no view
 * exists); the others with the result's sizes (view_as / reshape_as: read
 * from `other`); flatten of one dimension is x itself */
eir_status decomp_reshape(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *om = meta_of(c, out);
    if (dc_meta_same_geometry(meta_of(c, x), om) && !strcmp(c->op, "aten.flatten.using_ints")) {
        if (c->dry) return EIR_OK;
        return finish(c, out, x);
    }
    bool as = !strcmp(c->op, "aten.view_as.default") || !strcmp(c->op, "aten.reshape_as.default");
    if (as) c->size_src = dc_tensor_of(c, "other");
    const eir_arg *shape = !strcmp(c->op, "aten.reshape.default") ? dc_arg_named(c, "shape") : NULL;
    if (shape && shape->kind != EIR_ARG_INTS && shape->kind != EIR_ARG_SYM_INTS)
        return dc_refuse(c, "argument 'shape': expected a list of ints");
    dc probe = *c;
    probe.dry = true;
    uint32_t res;
    st = dc_emit_reshape(&probe, x, om, "view", &res);
    if (st || c->dry) return st;
    st = dc_emit_reshape(c, x, om, "view", &res);
    if (st) return st;
    /* a view of a contiguous x: the shape as the program gives it */
    eir_node *vn = (eir_node *)&c->g->nodes[c->pos - 1];
    if (shape && dc_contiguous(c, meta_of(c, x)) && vn->num_inputs == 2 && vn->inputs[0].arg.kind == EIR_ARG_TENSOR &&
        vn->inputs[0].arg.value == x) {
        eir_arg given = *shape;
        given.name = NULL;
        ((eir_named_arg *)vn->inputs)[1].arg = given;
    }
    return finish(c, out, res);
}

/* zeros / ones / *_like / new_* -> full / full_like */
eir_status decomp_fill(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    const eir_tensor_meta *om = meta_of(c, out);
    const char *op = c->op + 5; /* after "aten." */
    bool like = strstr(op, "_like.") != NULL, is_new = !strncmp(op, "new_", 4);
    eir_arg fill;
    if (strstr(op, "zeros")) fill = a_int(0);
    else if (strstr(op, "ones")) fill = a_int(1);
    else {
        const eir_arg *f = dc_arg_named(c, "fill_value");
        if (!f) return dc_refuse(c, "argument 'fill_value' missing");
        fill = *f;
    }
    uint32_t x = EIR_NO_VALUE;
    if (like || is_new) {
        x = dc_tensor_of(c, "self");
        if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    }
    const eir_arg *size = dc_arg_named(c, "size");
    if (!like && (!size || (size->kind != EIR_ARG_INTS && size->kind != EIR_ARG_SYM_INTS)))
        return dc_refuse(c, "argument 'size': expected a list of ints");
    if (c->dry) return EIR_OK;
    eir_named_arg fi[8];
    uint32_t n = 0;
    const eir_arg *dev = dc_arg_named(c, "device"), *pm = dc_arg_named(c, "pin_memory");
    if (like) {
        fi[n++] = pos_arg("self", a_tensor(x));
        fi[n++] = pos_arg("fill_value", fill);
        const eir_arg *dt = dc_arg_named(c, "dtype");
        if (!is_none(dt)) fi[n++] = kw_arg("dtype", *dt);
        if (!is_none(dev)) fi[n++] = kw_arg("device", *dev);
        if (!is_none(pm)) fi[n++] = kw_arg("pin_memory", *pm);
        const eir_arg *mf = dc_arg_named(c, "memory_format");
        fi[n++] = kw_arg("memory_format", is_none(mf) ? a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_PRESERVE) : *mf);
    } else {
        fi[n++] = pos_arg("size", *size);
        fi[n++] = pos_arg("fill_value", fill);
        fi[n++] = kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype));
        fi[n++] = kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED));
        eir_arg d = {0};
        d.kind = EIR_ARG_DEVICE;
        d.u.device = om->device;
        fi[n++] = kw_arg("device", is_none(dev) ? d : *dev);
        fi[n++] = kw_arg("pin_memory", a_bool(false));
    }
    uint32_t res;
    eir_status st = dc_emit(c, like ? "full_like.default" : "full.default", n, fi, om, like ? "full_like" : "full", &res);
    if (st) return st;
    return finish(c, out, res);
}

eir_status decomp_activation(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    const char *op = c->op + 5;
    uint32_t r, s, t, u;
    /* half types compute in float32, as torch's decompositions do
     * (pw_cast_for_opmath) */
    const eir_tensor_meta *om = meta_of(c, out);
    tm f32;
    dc_tm_from(&f32, om);
    bool upcast = (om->dtype == EIR_F16 || om->dtype == EIR_BF16) && strncmp(op, "relu6.", 6);
    c->pwm = om;
    if (upcast) {
        f32.m.dtype = EIR_F32;
        c->pwm = &f32.m;
        if ((st = dc_emit_to_copy(c, x, &f32.m, &x))) return st;
    }
    if (!strncmp(op, "silu.", 5)) {
        if ((st = dc_emit_pw(c, "sigmoid.default", x, a_none(), NULL, "sigmoid", &s))) return st;
        if ((st = dc_emit_pw(c, "mul.Tensor", x, a_tensor(s), "other", "mul", &r))) return st;
    } else if (!strncmp(op, "hardswish.", 10) || !strncmp(op, "hardsigmoid.", 12)) {
        bool swish = !strncmp(op, "hardswish.", 10);
        if ((st = dc_emit_pw(c, "add.Tensor", x, a_int(3), "other", "add", &s))) return st;
        if ((st = dc_emit_pw(c, "clamp.default", s, a_int(0), "min", "clamp", &t))) return st;
        eir_named_arg ci[3] = {pos_arg("self", a_tensor(t)), pos_arg("min", a_none()), pos_arg("max", a_int(6))};
        if ((st = dc_emit(c, "clamp.default", 3, ci, c->pwm, "clamp", &u))) return st;
        if (swish) {
            uint32_t m;
            if ((st = dc_emit_pw(c, "mul.Tensor", x, a_tensor(u), "other", "mul", &m))) return st;
            u = m;
        }
        if ((st = dc_emit_pw(c, "div.Tensor", u, a_int(6), "other", "div", &r))) return st;
    } else { /* relu6 */
        eir_named_arg hi[3] = {pos_arg("self", a_tensor(x)), pos_arg("min_val", a_int(0)), pos_arg("max_val", a_int(6))};
        if ((st = dc_emit(c, "hardtanh.default", 3, hi, meta_of(c, out), "hardtanh", &r))) return st;
    }
    if (upcast && (st = dc_emit_to_copy(c, r, om, &r))) return st;
    return finish(c, out, r);
}

/* matmul: 2-d @ 2-d -> mm; n-d @ 2-d -> view + mm + view; batched -> expand +
 * view + bmm + view (all concrete sizes) */
/* matmul with a vector, torch's way: 1-d @ 1-d and 2-d @ 1-d: mul (broadcast)
 * + sum.dim_IntList over the last dimension; n-d @ 1-d: the matrix folded
 * to rows first (view, or clone + view) and the result viewed back; 1-d @
 * n-d: the same on the other operand's last two dimensions swapped
 * (permute). Concrete sizes only. */
static eir_status matmul_vec(dc *c, uint32_t a, uint32_t b, uint32_t out) {
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    if (!dc_meta_concrete_sizes(am) || !dc_meta_concrete_sizes(bm) || !dc_meta_concrete_sizes(meta_of(c, out)))
        return dc_refuse(c, "a matrix-vector product of symbolic size");
    for (uint32_t i = 0; i < am->rank; i++)
        if (am->strides[i].is_expr) return dc_refuse(c, "symbolic strides of operand %s", c->g->values[a].name);
    for (uint32_t i = 0; i < bm->rank; i++)
        if (bm->strides[i].is_expr) return dc_refuse(c, "symbolic strides of operand %s", c->g->values[b].name);
    if (am->rank == 1 && bm->rank == 2) return dc_refuse(c, "internal: 1-d @ 2-d has its own path");
    /* torch folds the n-d operand (n > 2) into rows only when its leading
     * strides nest (its should_fold); otherwise it broadcasts through bmm */
    const eir_tensor_meta *nm = am->rank >= bm->rank ? am : bm;
    bool empty = false, nest = true;
    for (uint32_t i = 0; i < nm->rank; i++) empty = empty || nm->sizes[i].value == 0;
    for (uint32_t i = 0; i + 2 < nm->rank; i++)
        nest = nest && nm->strides[i].value == nm->strides[i + 1].value * nm->sizes[i + 1].value;
    if (nm->rank > 2 && !empty && !nest)
        return dc_refuse(c, "a matrix-vector product whose %u-d operand no view folds into rows (torch broadcasts it "
                            "through bmm: not decomposed)", nm->rank);
    if (c->dry) return EIR_OK;
    eir_status st;
    /* m: the matrix side (or a itself for 1-d @ 1-d), v: the vector */
    bool first_vec = am->rank == 1 && bm->rank > 1;
    uint32_t m = first_vec ? b : a, v = first_vec ? a : b;
    const eir_tensor_meta *mm = meta_of(c, m);
    uint32_t r = mm->rank;
    if (first_vec) {
        /* b.mT: the last two dimensions swapped */
        int64_t perm[MAXR];
        for (uint32_t i = 0; i < r; i++) perm[i] = i;
        perm[r - 2] = r - 1;
        perm[r - 1] = r - 2;
        tm t;
        dc_tm_permute(&t, mm, perm);
        if ((st = dc_emit_permute(c, m, perm, r, &t.m, &m))) return st;
        mm = meta_of(c, m);
    }
    if (r > 2) {
        int64_t rows = 1, sz[2];
        for (uint32_t i = 0; i + 1 < r; i++) rows *= mm->sizes[i].value;
        sz[0] = rows;
        sz[1] = mm->sizes[r - 1].value;
        tm t;
        dc_tm_new(&t, mm, mm->dtype, sz, 2);
        if ((st = dc_emit_reshape(c, m, &t.m, "view", &m))) return st;
    }
    tm pm;
    uint32_t prod, sum, res;
    dc_tm_binary(&pm, meta_of(c, m), meta_of(c, v));
    eir_named_arg mi[2] = {pos_arg("self", a_tensor(m)), pos_arg("other", a_tensor(v))};
    if ((st = dc_emit(c, "mul.Tensor", 2, mi, &pm.m, "mul", &prod))) return st;
    int64_t last = pm.m.rank - 1, ssz[1] = {pm.m.rank == 2 ? pm.sz[0].value : 0};
    tm sm;
    dc_tm_new(&sm, &pm.m, pm.m.dtype, ssz, pm.m.rank - 1);
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(prod)), pos_arg("dim", dc_a_ints(c, &last, pm.m.rank == 2))};
    if ((st = dc_emit(c, "sum.dim_IntList", 2, si_, &sm.m, "sum", &sum))) return st;
    if (r <= 2) return finish(c, out, sum);
    if ((st = dc_emit_reshape(c, sum, meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

eir_status decomp_matmul(dc *c) {
    uint32_t a, out;
    eir_status st = dc_need_io(c, "self", &a, &out);
    if (st) return st;
    uint32_t b = dc_tensor_of(c, "other");
    if (b == EIR_NO_VALUE) return dc_refuse(c, "argument 'other': expected a tensor");
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b), *om = meta_of(c, out);
    if (am->rank == 1 && bm->rank == 2) {
        /* torch: a.unsqueeze(0).mm(b).squeeze(0) */
        tm ua, mo;
        dc_tm_from(&ua, am);
        ua.m.rank = 2;
        ua.sz[1] = am->sizes[0];
        ua.st[1] = am->strides[0];
        ua.sz[0] = si(1);
        ua.st[0] = am->sizes[0].is_expr ? am->sizes[0] : si(am->sizes[0].value * am->strides[0].value);
        if (am->strides[0].is_expr || (am->sizes[0].is_expr && !(am->strides[0].value == 1)))
            return dc_refuse(c, "symbolic strides of operand %s", c->g->values[a].name);
        dc_tm_from(&mo, om);
        mo.m.rank = 2;
        mo.sz[0] = si(1);
        mo.sz[1] = om->sizes[0];
        if (!dc_tm_contig(&mo)) return dc_refuse(c, "symbolic result size");
        if (c->dry) return EIR_OK;
        uint32_t u, mmv, res;
        int64_t zero = 0;
        eir_named_arg ui[2] = {pos_arg("self", a_tensor(a)), pos_arg("dim", a_int(0))};
        if ((st = dc_emit(c, "unsqueeze.default", 2, ui, &ua.m, "unsqueeze", &u))) return st;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(u)), pos_arg("mat2", a_tensor(b))};
        if ((st = dc_emit(c, "mm.default", 2, mi, &mo.m, "mm", &mmv))) return st;
        eir_named_arg si_[2] = {pos_arg("self", a_tensor(mmv)), pos_arg("dim", dc_a_ints(c, &zero, 1))};
        if ((st = dc_emit(c, "squeeze.dims", 2, si_, om, "squeeze", &res))) return st;
        return finish(c, out, res);
    }
    if ((bm->rank == 1 || am->rank == 1) && am->rank <= MAXR && bm->rank <= MAXR) return matmul_vec(c, a, b, out);
    if (am->rank < 2 || bm->rank < 2 || bm->rank > MAXR)
        return dc_refuse(c, "operands of rank %u and %u (ranks 1 and above are decomposed)", am->rank,
                      bm->rank);
    if (am->rank == 2 && bm->rank == 2) {
        if (c->dry) return EIR_OK;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(a)), pos_arg("mat2", a_tensor(b))};
        uint32_t res;
        if ((st = dc_emit(c, "mm.default", 2, mi, om, "mm", &res))) return st;
        return finish(c, out, res);
    }
    if (!dc_meta_concrete_sizes(am) || !dc_meta_concrete_sizes(bm)) return dc_refuse(c, "symbolic operand sizes");
    for (uint32_t i = 0; i < am->rank; i++)
        if (am->strides[i].is_expr) return dc_refuse(c, "symbolic strides of operand %s", c->g->values[a].name);
    for (uint32_t i = 0; i < bm->rank; i++)
        if (bm->strides[i].is_expr) return dc_refuse(c, "symbolic strides of operand %s", c->g->values[b].name);
    int64_t k = am->sizes[am->rank - 1].value, m = bm->sizes[bm->rank - 1].value;
    if (bm->rank == 2 && dc_can_view(c, am)) {
        /* fold the batch into the rows */
        int64_t rows = 1;
        for (uint32_t i = 0; i + 1 < am->rank; i++) rows *= am->sizes[i].value;
        tm fin, fout;
        dc_tm_from(&fin, am);
        fin.m.rank = 2;
        fin.sz[0] = si(rows);
        fin.sz[1] = si(k);
        dc_tm_contig(&fin);
        dc_tm_from(&fout, om);
        fout.m.rank = 2;
        fout.sz[0] = si(rows);
        fout.sz[1] = si(m);
        dc_tm_contig(&fout);
        dc probe = *c;
        probe.dry = true;
        uint32_t tmp;
        if ((st = dc_emit_reshape(&probe, a, &fin.m, "view", &tmp))) return st;
        if (c->dry) return EIR_OK;
        uint32_t v, mmv, res;
        if ((st = dc_emit_reshape(c, a, &fin.m, "view", &v))) return st;
        eir_named_arg mi[2] = {pos_arg("self", a_tensor(v)), pos_arg("mat2", a_tensor(b))};
        if ((st = dc_emit(c, "mm.default", 2, mi, &fout.m, "mm", &mmv))) return st;
        if ((st = dc_emit_reshape(c, mmv, om, "view", &res))) return st;
        return finish(c, out, res);
    }
    if (c->dry) return EIR_OK;
    uint32_t res;
    if ((st = dc_emit_batched_mm(c, a, b, om, &res))) return st;
    return finish(c, out, res);
}

eir_status decomp_split(dc *c) {
    uint32_t x = dc_tensor_of(c, "self");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'self': expected a tensor");
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSORS) return dc_refuse(c, "expected a Tensor[] output");
    const eir_arg *ol = &c->src.outputs[0];
    int64_t size, dim = 0;
    if (!int_of(dc_arg_named(c, "split_size"), &size) || size <= 0) return dc_refuse(c, "argument 'split_size': expected a positive int");
    const eir_arg *da = dc_arg_named(c, "dim");
    if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    const eir_tensor_meta *xm = meta_of(c, x);
    dim = wrap_dim(dim, xm->rank);
    if (dim < 0 || dim >= xm->rank || xm->sizes[dim].is_expr) return dc_refuse(c, "split dimension symbolic or out of range");
    int64_t len = xm->sizes[dim].value, nparts = len ? (len + size - 1) / size : 1;
    if (nparts != ol->u.list.n || nparts > MAXR) return dc_refuse(c, "%lld parts, the node has %u outputs", (long long)nparts, ol->u.list.n);
    if (c->dry) return EIR_OK;
    int64_t sizes[MAXR];
    const eir_tensor_meta *ms[MAXR];
    for (int64_t i = 0; i < nparts; i++) {
        sizes[i] = len - i * size < size ? len - i * size : size;
        ms[i] = meta_of(c, ol->u.list.items[i].value);
    }
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("split_sizes", dc_a_ints(c, sizes, (uint32_t)nparts)),
                            pos_arg("dim", a_int(dim))};
    uint32_t vals[MAXR];
    eir_status st = dc_emit_n(c, "split_with_sizes.default", 3, si_, (uint32_t)nparts, ms, NULL, true, vals);
    if (st) return st;
    for (int64_t i = 0; i < nparts; i++)
        if ((st = finish(c, ol->u.list.items[i].value, vals[i]))) return st;
    return EIR_OK;
}

/* same arguments, another name */
eir_status decomp_rename(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (c->dry) return EIR_OK;
    const char *to = NULL;
    static const struct { const char *from, *to; } R[] = {
        {"aten.__and__.Tensor", "bitwise_and.Tensor"},   {"aten.__or__.Tensor", "bitwise_or.Tensor"},
        {"aten.__xor__.Tensor", "bitwise_xor.Tensor"},   {"aten.__and__.Scalar", "bitwise_and.Scalar"},
        {"aten.__or__.Scalar", "bitwise_or.Scalar"},     {"aten.__xor__.Scalar", "bitwise_xor.Scalar"},
        {"aten.arange.start", "arange.start_step"},     {"aten.arange.default", "arange.start_step"},
        {"aten.detach.default", "alias.default"},       {"aten.divide.Tensor", "div.Tensor"},
        {"aten.divide.Tensor_mode", "div.Tensor_mode"}, {"aten.subtract.Tensor", "sub.Tensor"},
        {"aten.broadcast_to.default", "expand.default"},
    };
    for (uint32_t i = 0; i < sizeof R / sizeof *R; i++)
        if (!strcmp(c->op, R[i].from)) to = R[i].to;
    eir_named_arg ins[16];
    uint32_t n = 0;
    if (!strcmp(c->op, "aten.arange.default")) ins[n++] = pos_arg("start", a_int(0));
    for (uint32_t i = 0; i < c->src.num_inputs && n < 15; i++) {
        if (!c->src.inputs[i].kind) continue;
        ins[n] = c->src.inputs[i];
        if (!strncmp(c->op, "aten.arange", 11) && !strcmp(ins[n].name, "end")) ins[n].kind = 1;
        n++;
    }
    char hint[32];
    snprintf(hint, sizeof hint, "%.*s", (int)(strchr(to, '.') - to), to);
    uint32_t res;
    eir_status st = dc_emit(c, to, n, ins, meta_of(c, out), hint, &res);
    if (st) return st;
    return finish(c, out, res);
}

/* item -> _local_scalar_dense: same argument, same output; the node is
 * retargeted in place */
eir_status decomp_item(dc *c) {
    if (c->src.num_outputs != 1) return dc_refuse(c, "expected one output");
    if (c->dry) return EIR_OK;
    char *t = eir_arena_strdup(&c->p->arena, "torch.ops.aten._local_scalar_dense.default");
    if (!t) return eir_fail(c->p, EIR_ERR_NOMEM, "to-core: out of memory");
    ((eir_node *)&c->g->nodes[c->node])->target = t;
    c->kept = true;
    return EIR_OK;
}

/* real / imag of a complex tensor -> view_as_real + select; of a real one
 * (real only) the tensor itself */
eir_status decomp_real_imag(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    eir_dtype part = xm->dtype == EIR_C64 ? EIR_F32 : xm->dtype == EIR_C128 ? EIR_F64 : xm->dtype == EIR_C32 ? EIR_F16
                                                                                                          : EIR_DTYPE_UNKNOWN;
    bool imag = strstr(c->op, "imag") != NULL;
    if (part == EIR_DTYPE_UNKNOWN) {
        if (imag) return dc_refuse(c, "imag of a real tensor");
        if (c->dry) return EIR_OK;
        return finish(c, out, x);
    }
    if (xm->rank + 1 > MAXR) return dc_refuse(c, "rank above %d", MAXR - 1);
    for (uint32_t i = 0; i < xm->rank; i++)
        if (xm->strides[i].is_expr) return dc_refuse(c, "symbolic strides of input %s", c->g->values[x].name);
    if (xm->storage_offset.is_expr) return dc_refuse(c, "symbolic storage offset of input %s", c->g->values[x].name);
    if (c->dry) return EIR_OK;
    tm v;
    dc_tm_from(&v, xm);
    v.m.dtype = part;
    for (uint32_t i = 0; i < xm->rank; i++) v.st[i] = si(xm->strides[i].value * 2);
    v.sz[xm->rank] = si(2);
    v.st[xm->rank] = si(1);
    v.m.rank = xm->rank + 1;
    v.m.storage_offset = si(xm->storage_offset.value * 2);
    uint32_t vr, res;
    eir_named_arg vi[1] = {pos_arg("self", a_tensor(x))};
    if ((st = dc_emit(c, "view_as_real.default", 1, vi, &v.m, "view_as_real", &vr))) return st;
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(vr)), pos_arg("dim", a_int(xm->rank)), pos_arg("index", a_int(imag))};
    if ((st = dc_emit(c, "select.int", 3, si_, meta_of(c, out), "select", &res))) return st;
    return finish(c, out, res);
}

/* squeeze.dim(x, d) -> squeeze.dims(x, [d]) */
eir_status decomp_squeeze(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t d;
    if (!int_of(dc_arg_named(c, "dim"), &d)) return dc_refuse(c, "argument 'dim': expected an int");
    if (c->dry) return EIR_OK;
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, &d, 1))};
    uint32_t res;
    if ((st = dc_emit(c, "squeeze.dims", 2, si_, meta_of(c, out), "squeeze", &res))) return st;
    return finish(c, out, res);
}

/* repeat_interleave.self_int -> (flatten) unsqueeze + expand + clone + view;
 * .self_Tensor -> repeat_interleave.Tensor(repeats) + index_select */
eir_status decomp_repeat_interleave(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x), *om = meta_of(c, out);
    const eir_arg *da = dc_arg_named(c, "dim");
    int64_t dim = 0;
    bool flat = is_none(da);
    if (!flat && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    if (!flat) {
        dim = wrap_dim(dim, xm->rank);
        if (dim < 0 || dim >= (int64_t)(xm->rank ? xm->rank : 1)) return dc_refuse(c, "dimension out of range");
    }
    bool by_tensor = !strcmp(c->op, "aten.repeat_interleave.self_Tensor");
    int64_t reps = 0;
    uint32_t rv = EIR_NO_VALUE;
    if (by_tensor) {
        rv = dc_tensor_of(c, "repeats");
        if (rv == EIR_NO_VALUE) return dc_refuse(c, "argument 'repeats': expected a tensor");
        if (meta_of(c, rv)->rank > 1) return dc_refuse(c, "argument 'repeats': a tensor of rank %u", meta_of(c, rv)->rank);
        if (meta_of(c, rv)->rank == 0 || (!meta_of(c, rv)->sizes[0].is_expr && meta_of(c, rv)->sizes[0].value == 1))
            return dc_refuse(c, "a single repeat count in a tensor (torch expands it first)");
    } else if (!int_of(dc_arg_named(c, "repeats"), &reps) || reps < 0)
        return dc_refuse(c, "argument 'repeats': expected a concrete non-negative int");
    if (!by_tensor && !dc_meta_concrete_sizes(xm)) return dc_refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
    if (om->rank < 1) return dc_refuse(c, "a 0-d result");
    tm fl;
    if (flat && xm->rank != 1) {
        int64_t numel = 1;
        if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "symbolic sizes of input %s", c->g->values[x].name);
        for (uint32_t i = 0; i < xm->rank; i++) numel *= xm->sizes[i].value;
        dc_tm_new(&fl, xm, xm->dtype, &numel, 1);
        dc probe = *c;
        probe.dry = true;
        uint32_t tmp;
        if (xm->rank != 1 && (st = dc_emit_reshape(&probe, x, &fl.m, "view", &tmp))) return st;
    }
    if (c->dry) return EIR_OK;
    if (flat && xm->rank != 1 && (st = dc_emit_reshape(c, x, &fl.m, "view", &x))) return st;
    xm = meta_of(c, x);
    uint32_t res;
    if (by_tensor) {
        tm ri;
        dc_tm_from(&ri, meta_of(c, rv));
        ri.m.rank = 1;
        ri.sz[0] = om->sizes[flat ? 0 : dim];
        ri.st[0] = si(1);
        ri.m.storage_offset = si(0);
        uint32_t idx;
        eir_named_arg ri_in[1] = {pos_arg("repeats", a_tensor(rv))};
        if ((st = dc_emit(c, "repeat_interleave.Tensor", 1, ri_in, &ri.m, "repeat_interleave", &idx))) return st;
        eir_named_arg is[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim)), pos_arg("index", a_tensor(idx))};
        if ((st = dc_emit(c, "index_select.default", 3, is, om, "index_select", &res))) return st;
        return finish(c, out, res);
    }
    uint32_t r = xm->rank;
    if (r + 1 > MAXR) return dc_refuse(c, "rank above %d", MAXR - 1);
    tm u, e, cl;
    dc_tm_from(&u, xm);
    for (uint32_t i = r; i > (uint32_t)dim + 1; i--) {
        u.sz[i] = u.sz[i - 1];
        u.st[i] = u.st[i - 1];
    }
    u.sz[dim + 1] = si(1);
    u.st[dim + 1] = (uint32_t)dim + 1 < r ? si(xm->sizes[dim + 1].value * xm->strides[dim + 1].value) : si(1);
    u.m.rank = r + 1;
    e = u;
    e.m.sizes = e.sz;
    e.m.strides = e.st;
    e.sz[dim + 1] = si(reps);
    e.st[dim + 1] = si(0);
    cl = e;
    cl.m.sizes = cl.sz;
    cl.m.strides = cl.st;
    dc_tm_contig(&cl);
    int64_t esz[MAXR];
    for (uint32_t i = 0; i <= r; i++) esz[i] = e.sz[i].value;
    uint32_t us, ex, cv;
    eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(dim + 1))};
    if ((st = dc_emit(c, "unsqueeze.default", 2, ui, &u.m, "unsqueeze", &us))) return st;
    eir_named_arg ei[2] = {pos_arg("self", a_tensor(us)), pos_arg("size", dc_a_ints(c, esz, r + 1))};
    if ((st = dc_emit(c, "expand.default", 2, ei, &e.m, "expand", &ex))) return st;
    eir_named_arg ci[2] = {pos_arg("self", a_tensor(ex)),
                           kw_arg("memory_format", a_kind(EIR_ARG_MEMORY_FORMAT, EIR_MF_CONTIGUOUS))};
    if ((st = dc_emit(c, "clone.default", 2, ci, &cl.m, "clone", &cv))) return st;
    if ((st = dc_emit_reshape(c, cv, om, "view", &res))) return st;
    return finish(c, out, res);
}

/* rsub(self, other, alpha) -> sub(other, self, alpha) */
eir_status decomp_rsub(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    const eir_arg *o = dc_arg_named(c, "other"), *al = dc_arg_named(c, "alpha");
    if (!o) return dc_refuse(c, "argument 'other' missing");
    if (c->dry) return EIR_OK;
    eir_named_arg si_[3] = {pos_arg("self", *o), pos_arg("other", a_tensor(x)), {0}};
    uint32_t n = 2, res;
    int64_t one;
    if (!is_none(al) && !(int_of(al, &one) && one == 1 && al->kind == EIR_ARG_INT)) si_[n++] = kw_arg("alpha", *al);
    if ((st = dc_emit(c, "sub.Tensor", n, si_, meta_of(c, out), "sub", &res))) return st;
    return finish(c, out, res);
}

/* lift_fresh_copy -> clone; detach_ -> nothing (its value is its input's) */
eir_status decomp_lift_detach(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    if (!strcmp(c->op, "aten.detach_.default")) return finish(c, out, x);
    eir_named_arg ci[1] = {pos_arg("self", a_tensor(x))};
    uint32_t res;
    if ((st = dc_emit(c, "clone.default", 1, ci, meta_of(c, out), "clone", &res))) return st;
    return finish(c, out, res);
}

/* broadcast_tensors -> per operand: itself when of the broadcast shape,
 * else expand to it */
eir_status decomp_broadcast_tensors(dc *c) {
    const eir_arg *ta = dc_arg_named(c, "tensors");
    if (!ta || ta->kind != EIR_ARG_TENSORS) return dc_refuse(c, "argument 'tensors': expected a tensor list");
    if (c->src.num_outputs != 1 || c->src.outputs[0].kind != EIR_ARG_TENSORS ||
        c->src.outputs[0].u.list.n != ta->u.list.n)
        return dc_refuse(c, "expected a Tensor[] output of one tensor per operand");
    uint32_t n = ta->u.list.n, r = 0;
    if (n > MAXR) return dc_refuse(c, "more than %d operands", MAXR);
    for (uint32_t i = 0; i < n; i++) {
        const eir_arg *it = &ta->u.list.items[i];
        if (it->kind != EIR_ARG_TENSOR || it->value >= c->g->num_values) return dc_refuse(c, "operand %u is not a tensor", i);
        const eir_tensor_meta *m = meta_of(c, it->value);
        if (m->rank > MAXR || !dc_meta_concrete_sizes(m)) return dc_refuse(c, "operand %u: symbolic sizes or rank above %d", i, MAXR);
        for (uint32_t d = 0; d < m->rank; d++)
            if (m->strides[d].is_expr) return dc_refuse(c, "operand %u: symbolic strides", i);
        if (m->rank > r) r = m->rank;
    }
    int64_t shape[MAXR];
    for (uint32_t d = 0; d < r; d++) shape[d] = 1;
    for (uint32_t i = 0; i < n; i++) {
        const eir_tensor_meta *m = meta_of(c, ta->u.list.items[i].value);
        for (uint32_t d = 0; d < m->rank; d++) {
            int64_t z = m->sizes[d].value, *t = &shape[r - m->rank + d];
            if (z != 1 && *t != 1 && *t != z) return dc_refuse(c, "operand %u: size %lld does not broadcast with %lld", i, (long long)z, (long long)*t);
            if (z != 1) *t = z;
        }
    }
    if (c->dry) return EIR_OK;
    const eir_arg *ol = &c->src.outputs[0];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = ta->u.list.items[i].value, res = x;
        const eir_tensor_meta *m = meta_of(c, x);
        bool same = m->rank == r;
        for (uint32_t d = 0; same && d < r; d++) same = m->sizes[d].value == shape[d];
        if (!same) {
            tm t;
            dc_tm_from(&t, m);
            t.m.rank = r;
            for (uint32_t d = 0; d < r; d++) {
                int64_t o = (int64_t)d - (int64_t)(r - m->rank);
                bool bc = o < 0 || m->sizes[o].value != shape[d];
                t.sz[d] = si(shape[d]);
                t.st[d] = bc ? si(0) : m->strides[o];
            }
            eir_named_arg ei[2] = {pos_arg("self", a_tensor(x)), pos_arg("size", dc_a_ints(c, shape, r))};
            eir_status st = dc_emit(c, "expand.default", 2, ei, &t.m, "expand", &res);
            if (st) return st;
        }
        eir_status st = finish(c, ol->u.list.items[i].value, res);
        if (st) return st;
    }
    return EIR_OK;
}

/* msort(x) -> sort(x, 0)[0] */
eir_status decomp_msort(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (c->dry) return EIR_OK;
    tm idx;
    dc_tm_from(&idx, meta_of(c, out));
    idx.m.dtype = EIR_I64;
    const eir_tensor_meta *ms[2] = {meta_of(c, out), &idx.m};
    eir_named_arg si_[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(0))};
    uint32_t vals[2];
    if ((st = dc_emit_n(c, "sort.default", 2, si_, 2, ms, NULL, false, vals))) return st;
    return finish(c, out, vals[0]);
}

/* mT -> permute with the last two dimensions swapped */
eir_status decomp_mT(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    uint32_t r = meta_of(c, x)->rank;
    if (r < 2) return dc_refuse(c, "an input of rank %u (at least 2 expected)", r);
    if (c->dry) return EIR_OK;
    int64_t perm[MAXR];
    for (uint32_t i = 0; i < r; i++) perm[i] = i;
    perm[r - 2] = r - 1;
    perm[r - 1] = r - 2;
    uint32_t res;
    if ((st = dc_emit_permute(c, x, perm, r, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}
