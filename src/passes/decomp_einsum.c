/* decomp_einsum.c — the to-core rule for aten.einsum.default, node for node
 * what torch's C++ einsum (ATen's Linear.cpp) emits when run_decompositions()
 * traces it: each operand's repeated labels become diagonal + permute
 * (movedim), missing labels unsqueeze, and one permute aligns it to "output
 * labels, then contraction labels"; operands are then contracted pairwise
 * (left to right, or in the order of the node's `path`) by sumproduct_pair:
 * sum of the dimensions only one side has, then mul (nothing to contract)
 * or permute + view + bmm + view + permute; contraction dimensions left at
 * size 1 are dropped by a final view (or, with one operand, summed).
 *
 * Operands of symbolic size are refused: the size-1 tests that pick the
 * nodes would become guards. */
#include <stdio.h>
#include <string.h>

#include "decomp_int.h"

#define NLABELS 52       /* A-Z then a-z, ATen's subscript order */
#define ELL NLABELS      /* an ellipsis in a label list */
#define MAXOPS 16

/* ---- nodes, each with the metadata ATen's meta kernels give ---- */

static eir_status ez_permute(dc *c, uint32_t x, const int64_t *perm, uint32_t *res) {
    tm t;
    dc_tm_permute(&t, meta_of(c, x), perm);
    return dc_emit_permute(c, x, perm, t.m.rank, &t.m, res);
}

/* unsqueeze(x, d): the new dimension's stride is 1 at the end, else the
 * size times the stride of the dimension it goes before */
static eir_status ez_unsqueeze(dc *c, uint32_t x, uint32_t d, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    dc_tm_from(&t, xm);
    uint32_t r = xm->rank;
    for (uint32_t i = r; i > d; i--) {
        t.sz[i] = xm->sizes[i - 1];
        t.st[i] = xm->strides[i - 1];
    }
    t.sz[d] = si(1);
    t.st[d] = si(d >= r ? 1 : xm->sizes[d].value * xm->strides[d].value);
    t.m.rank = r + 1;
    eir_named_arg ui[2] = {pos_arg("self", a_tensor(x)), pos_arg("dim", a_int(d))};
    return dc_emit(c, "unsqueeze.default", 2, ui, &t.m, "unsqueeze", res);
}

/* diagonal(x, 0, d1, d2): d1 and d2 go, the diagonal comes last */
static eir_status ez_diagonal(dc *c, uint32_t x, uint32_t d1, uint32_t d2, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    dc_tm_from(&t, xm);
    uint32_t k = 0;
    for (uint32_t i = 0; i < xm->rank; i++)
        if (i != d1 && i != d2) {
            t.sz[k] = xm->sizes[i];
            t.st[k++] = xm->strides[i];
        }
    int64_t n = xm->sizes[d1].value < xm->sizes[d2].value ? xm->sizes[d1].value : xm->sizes[d2].value;
    t.sz[k] = si(n);
    t.st[k++] = si(xm->strides[d1].value + xm->strides[d2].value);
    t.m.rank = k;
    eir_named_arg di[4] = {pos_arg("self", a_tensor(x)), pos_arg("offset", a_int(0)), pos_arg("dim1", a_int(d1)),
                           pos_arg("dim2", a_int(d2))};
    /* the trailing arguments torch's trace leaves out when they are the defaults */
    uint32_t n_in = d1 == 0 && d2 == 1 ? 1 : 4;
    return dc_emit(c, "diagonal.default", n_in, di, &t.m, "diagonal", res);
}

/* sum.dim_IntList(x, dims, keepdim): a contiguous result */
static eir_status ez_sum(dc *c, uint32_t x, const int64_t *dims, uint32_t nd, bool keepdim, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t sz[MAXR];
    uint32_t k = 0;
    for (uint32_t i = 0; i < xm->rank; i++) {
        bool red = false;
        for (uint32_t j = 0; j < nd; j++) red = red || dims[j] == (int64_t)i;
        if (!red) sz[k++] = xm->sizes[i].value;
        else if (keepdim) sz[k++] = 1;
    }
    tm t;
    dc_tm_new(&t, xm, xm->dtype, sz, k);
    eir_named_arg si_[3] = {pos_arg("self", a_tensor(x)), pos_arg("dim", dc_a_ints(c, dims, nd)),
                            pos_arg("keepdim", a_bool(true))};
    return dc_emit(c, "sum.dim_IntList", keepdim ? 3 : 2, si_, &t.m, "sum", res);
}

/* x.reshape(sizes): a view, or a contiguous copy and a view */
static eir_status ez_reshape(dc *c, uint32_t x, const int64_t *sz, uint32_t n, uint32_t *res) {
    const eir_tensor_meta *xm = meta_of(c, x);
    tm t;
    dc_tm_new(&t, xm, xm->dtype, sz, n);
    return dc_emit_reshape(c, x, &t.m, "view", res);
}

static eir_status ez_bmm(dc *c, uint32_t a, uint32_t b, uint32_t *res) {
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    int64_t sz[3] = {am->sizes[0].value, am->sizes[1].value, bm->sizes[2].value};
    tm t;
    dc_tm_new(&t, am, am->dtype, sz, 3);
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(a)), pos_arg("mat2", a_tensor(b))};
    return dc_emit(c, "bmm.default", 2, bi, &t.m, "bmm", res);
}

/* mul(a, b) of operands of the same rank, broadcast */
static eir_status ez_mul(dc *c, uint32_t a, uint32_t b, uint32_t *res) {
    tm t;
    dc_tm_binary(&t, meta_of(c, a), meta_of(c, b));
    eir_named_arg mi[2] = {pos_arg("self", a_tensor(a)), pos_arg("other", a_tensor(b))};
    return dc_emit(c, "mul.Tensor", 2, mi, &t.m, "mul", res);
}

static int64_t ez_size(const dc *c, uint32_t v, uint32_t d) { return meta_of(c, v)->sizes[d].value; }

/* ATen's sumproduct_pair(left, right, sum_dims, keepdim=true) */
static eir_status ez_sumproduct_pair(dc *c, uint32_t left, uint32_t right, const int64_t *sum_dims, uint32_t ns,
                                     uint32_t *res) {
    eir_status st;
    if (!ns) return ez_mul(c, left, right, res);
    uint32_t dim = meta_of(c, left)->rank;
    int64_t lro[MAXR], lo[MAXR], ro[MAXR], lro_size = 1, lo_size = 1, ro_size = 1, sum_size = 1;
    uint32_t nlro = 0, nlo = 0, nro = 0;
    for (uint32_t i = 0; i < dim; i++) {
        bool summed = false;
        for (uint32_t j = 0; j < ns; j++) summed = summed || sum_dims[j] == (int64_t)i;
        bool sl = ez_size(c, left, i) != 1, sr = ez_size(c, right, i) != 1;
        int64_t di = i;
        if (summed) {
            if (sl && sr) sum_size *= ez_size(c, left, i);
            else if (sl) { if ((st = ez_sum(c, left, &di, 1, true, &left))) return st; }
            else if (sr) { if ((st = ez_sum(c, right, &di, 1, true, &right))) return st; }
        } else if (sl && sr) {
            lro[nlro++] = i;
            lro_size *= ez_size(c, left, i);
        } else if (sl) {
            lo[nlo++] = i;
            lo_size *= ez_size(c, left, i);
        } else {
            ro[nro++] = i;
            ro_size *= ez_size(c, right, i);
        }
    }
    int64_t out_size[MAXR], lperm[MAXR], rperm[MAXR], operm[MAXR];
    uint32_t k = 0;
    for (uint32_t i = 0; i < nlro; i++) out_size[k++] = ez_size(c, left, lro[i]);
    for (uint32_t i = 0; i < nlo; i++) out_size[k++] = ez_size(c, left, lo[i]);
    for (uint32_t i = 0; i < ns; i++) out_size[k++] = 1;
    for (uint32_t i = 0; i < nro; i++) out_size[k++] = ez_size(c, right, ro[i]);
    uint32_t nl = 0, nr = 0;
    for (uint32_t i = 0; i < nlro; i++) lperm[nl++] = rperm[nr++] = lro[i];
    for (uint32_t i = 0; i < nlo; i++) lperm[nl++] = lo[i];
    for (uint32_t i = 0; i < ns; i++) lperm[nl++] = sum_dims[i];
    for (uint32_t i = 0; i < nro; i++) lperm[nl++] = ro[i];
    for (uint32_t i = 0; i < ns; i++) rperm[nr++] = sum_dims[i];
    for (uint32_t i = 0; i < nro; i++) rperm[nr++] = ro[i];
    for (uint32_t i = 0; i < nlo; i++) rperm[nr++] = lo[i];
    for (uint32_t i = 0; i < k; i++) operm[lperm[i]] = i;
    uint32_t lp, lv, rp, rv, bm, ov;
    int64_t ls[3] = {lro_size, lo_size, sum_size}, rs[3] = {lro_size, sum_size, ro_size};
    if ((st = ez_permute(c, left, lperm, &lp))) return st;
    if ((st = ez_reshape(c, lp, ls, 3, &lv))) return st;
    if ((st = ez_permute(c, right, rperm, &rp))) return st;
    if ((st = ez_reshape(c, rp, rs, 3, &rv))) return st;
    if ((st = ez_bmm(c, lv, rv, &bm))) return st;
    if ((st = ez_reshape(c, bm, out_size, k, &ov))) return st;
    return ez_permute(c, ov, operm, res);
}

/* ---- the rule ---- */

static int label_of(unsigned char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    return -1;
}

eir_status decomp_einsum(dc *c) {
    uint32_t out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    const eir_arg *eq = dc_arg_named(c, "equation"), *ta = dc_arg_named(c, "tensors"), *pa = dc_arg_named(c, "path");
    if (!eq || eq->kind != EIR_ARG_STRING || !eq->u.s) return dc_refuse(c, "argument 'equation': expected a string");
    if (!ta || (ta->kind != EIR_ARG_TENSORS && ta->kind != EIR_ARG_OPTIONAL_TENSORS))
        return dc_refuse(c, "argument 'tensors': expected a tensor list");
    uint32_t nops = ta->u.list.n;
    if (!nops || nops > MAXOPS) return dc_refuse(c, "argument 'tensors': %u operands (1 to %d are decomposed)", nops, MAXOPS);
    uint32_t opv[MAXOPS];
    for (uint32_t i = 0; i < nops; i++) {
        const eir_arg *it = &ta->u.list.items[i];
        if ((it->kind != EIR_ARG_TENSOR && it->kind != EIR_ARG_OPTIONAL_TENSOR) || it->value >= c->g->num_values ||
            c->g->values[it->value].kind != EIR_VALUE_TENSOR)
            return dc_refuse(c, "argument 'tensors': item %u is not a tensor", i);
        opv[i] = it->value;
        const eir_tensor_meta *m = meta_of(c, opv[i]);
        if (m->rank > MAXR) return dc_refuse(c, "operand %u: rank above %d", i, MAXR);
        if (!dc_meta_concrete_sizes(m) || m->storage_offset.is_expr)
            return dc_refuse(c, "operand %u has symbolic sizes (only concrete sizes are decomposed)", i);
        for (uint32_t d = 0; d < m->rank; d++)
            if (m->strides[d].is_expr) return dc_refuse(c, "operand %u has symbolic strides", i);
        if (m->dtype != meta_of(c, opv[0])->dtype) return dc_refuse(c, "operands of different dtypes");
    }
    int64_t path[2 * MAXOPS];
    uint32_t npath = 0;
    bool has_path = !is_none(pa);
    if (has_path && (!dc_ints_of(pa, path, 2 * MAXOPS, &npath) || npath != (nops == 1 ? 1 : 2 * (nops - 1))))
        return dc_refuse(c, "argument 'path': expected %u ints", nops == 1 ? 1 : 2 * (nops - 1));

    /* parse: labels per operand (ELL for "..."), then the output */
    const char *s = eq->u.s, *arrow = strstr(s, "->");
    size_t lhs_len = arrow ? (size_t)(arrow - s) : strlen(s);
    uint8_t labels[MAXOPS][MAXR + 1];
    uint32_t nlab[MAXOPS] = {0}, cur = 0;
    bool ell_seen = false;
    for (size_t i = 0; i < lhs_len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == ' ') continue;
        if (ch == ',') {
            if (++cur >= nops) return dc_refuse(c, "equation '%s': more operands than the %u given", s, nops);
            ell_seen = false;
            continue;
        }
        int l;
        if (ch == '.') {
            if (ell_seen || i + 2 >= lhs_len || s[i + 1] != '.' || s[i + 2] != '.')
                return dc_refuse(c, "equation '%s': a malformed ellipsis", s);
            i += 2;
            ell_seen = true;
            l = ELL;
        } else if ((l = label_of(ch)) < 0)
            return dc_refuse(c, "equation '%s': subscript '%c' is not in [a-zA-Z]", s, ch);
        if (nlab[cur] > MAXR) return dc_refuse(c, "equation '%s': operand %u has too many subscripts", s, cur);
        labels[cur][nlab[cur]++] = (uint8_t)l;
    }
    if (cur != nops - 1) return dc_refuse(c, "equation '%s': %u operands given, the equation has %u", s, nops, cur + 1);
    int64_t label_count[NLABELS] = {0}, ell_num_dim = 0;
    for (uint32_t i = 0; i < nops; i++) {
        int64_t nl = nlab[i], nd = meta_of(c, opv[i])->rank;
        bool has_ell = false;
        for (uint32_t j = 0; j < nlab[i]; j++) {
            if (labels[i][j] == ELL) {
                nl--;
                has_ell = true;
            } else
                label_count[labels[i][j]]++;
        }
        if (has_ell ? nl > nd : nl != nd)
            return dc_refuse(c, "equation '%s': operand %u of rank %lld has %lld subscripts", s, i, (long long)nd,
                             (long long)nl);
        if (has_ell && nd - nl > ell_num_dim) ell_num_dim = nd - nl;
    }
    int64_t label_perm[NLABELS], perm_index = 0, ell_index = 0;
    for (int l = 0; l < NLABELS; l++) label_perm[l] = -1;
    bool ell_in_output = false;
    if (!arrow) {
        perm_index = ell_num_dim;
        ell_in_output = true;
        for (int l = 0; l < NLABELS; l++)
            if (label_count[l] == 1) label_perm[l] = perm_index++;
    } else {
        const char *rhs = arrow + 2;
        for (size_t i = 0; rhs[i]; i++) {
            unsigned char ch = (unsigned char)rhs[i];
            if (ch == ' ') continue;
            if (ch == '.') {
                if (ell_in_output || rhs[i + 1] != '.' || rhs[i + 2] != '.')
                    return dc_refuse(c, "equation '%s': a malformed ellipsis in the output", s);
                i += 2;
                ell_index = perm_index;
                perm_index += ell_num_dim;
                ell_in_output = true;
                continue;
            }
            int l = label_of(ch);
            if (l < 0 || !label_count[l] || label_perm[l] >= 0)
                return dc_refuse(c, "equation '%s': output subscript '%c' is invalid, repeated or in no operand", s, ch);
            label_perm[l] = perm_index++;
        }
    }
    int64_t out_num_dim = perm_index;
    if (!ell_in_output) {
        ell_index = perm_index;
        perm_index += ell_num_dim;
    }
    for (int l = 0; l < NLABELS; l++)
        if (label_count[l] > 0 && label_perm[l] < 0) label_perm[l] = perm_index++;
    if (perm_index > MAXR) return dc_refuse(c, "equation '%s': %lld dimensions (at most %d)", s, (long long)perm_index, MAXR);

    /* sizes must broadcast, label by label */
    int64_t label_size[NLABELS], ell_size[MAXR];
    for (int l = 0; l < NLABELS; l++) label_size[l] = 1;
    for (int64_t j = 0; j < ell_num_dim; j++) ell_size[j] = 1;
    for (uint32_t i = 0; i < nops; i++) {
        const eir_tensor_meta *m = meta_of(c, opv[i]);
        uint32_t dim = 0;
        int64_t first[NLABELS];
        for (int l = 0; l < NLABELS; l++) first[l] = -1;
        for (uint32_t j = 0; j < nlab[i]; j++) {
            uint8_t l = labels[i][j];
            if (l == ELL) {
                int64_t nd = (int64_t)m->rank - ((int64_t)nlab[i] - 1);
                for (int64_t e = ell_num_dim - nd; e < ell_num_dim; e++, dim++) {
                    int64_t z = m->sizes[dim].value;
                    if (z != 1 && ell_size[e] != 1 && ell_size[e] != z)
                        return dc_refuse(c, "operand %u: ellipsis dimension %u of size %lld does not broadcast", i,
                                         dim, (long long)z);
                    if (z != 1) ell_size[e] = z;
                }
                continue;
            }
            int64_t z = m->sizes[dim].value;
            if (first[l] >= 0) {
                if (z != m->sizes[first[l]].value)
                    return dc_refuse(c, "operand %u: repeated subscript '%c' of sizes %lld and %lld", i,
                                     l < 26 ? 'A' + l : 'a' + l - 26, (long long)m->sizes[first[l]].value, (long long)z);
            } else {
                first[l] = dim;
                if (z != 1 && label_size[l] != 1 && label_size[l] != z)
                    return dc_refuse(c, "operand %u: subscript '%c' of size %lld does not broadcast with %lld", i,
                                     l < 26 ? 'A' + l : 'a' + l - 26, (long long)z, (long long)label_size[l]);
                if (z != 1) label_size[l] = z;
            }
            dim++;
        }
    }
    if (has_path)
        for (uint32_t k = 0, n = nops; k + 1 < npath; k += 2, n--)
            if (path[k] == path[k + 1] || path[k] < 0 || path[k + 1] < 0 || path[k] >= n || path[k + 1] >= n)
                return dc_refuse(c, "argument 'path': invalid contraction (%lld, %lld)", (long long)path[k],
                                 (long long)path[k + 1]);
    if (c->dry) return EIR_OK;

    /* align every operand to perm_index dimensions */
    eir_status st;
    uint32_t ops[MAXOPS];
    int64_t dim_counts[MAXR] = {0};
    for (uint32_t i = 0; i < nops; i++) {
        uint32_t op = opv[i];
        int64_t permutation[MAXR];
        for (int64_t d = 0; d < perm_index; d++) permutation[d] = -1;
        int64_t dim = 0;
        uint32_t rank0 = meta_of(c, opv[i])->rank;
        for (uint32_t j = 0; j < nlab[i]; j++) {
            uint8_t l = labels[i][j];
            if (l == ELL) {
                int64_t nd = (int64_t)rank0 - ((int64_t)nlab[i] - 1);
                for (int64_t e = ell_num_dim - nd; e < ell_num_dim; e++) {
                    if (ez_size(c, op, (uint32_t)dim) != 1) dim_counts[ell_index + e]++;
                    permutation[ell_index + e] = dim++;
                }
            } else if (permutation[label_perm[l]] == -1) {
                if (ez_size(c, op, (uint32_t)dim) != 1) dim_counts[label_perm[l]]++;
                permutation[label_perm[l]] = dim++;
            } else {
                /* a repeated label: the diagonal, moved to the first one's place */
                int64_t prev = permutation[label_perm[l]];
                if ((st = ez_diagonal(c, op, (uint32_t)prev, (uint32_t)dim, &op))) return st;
                uint32_t r = meta_of(c, op)->rank;
                int64_t mv[MAXR];
                uint32_t k = 0;
                for (uint32_t d = 0; d + 1 < r; d++) {
                    if ((int64_t)d == prev) mv[k++] = r - 1;
                    mv[k++] = d;
                }
                if (prev == (int64_t)r - 1) mv[k++] = r - 1;
                if ((st = ez_permute(c, op, mv, &op))) return st;
            }
        }
        for (int64_t d = 0; d < perm_index; d++)
            if (permutation[d] == -1) {
                if ((st = ez_unsqueeze(c, op, (uint32_t)dim, &op))) return st;
                permutation[d] = dim++;
            }
        if ((st = ez_permute(c, op, permutation, &ops[i]))) return st;
    }

    /* contract pairwise */
    uint32_t n = nops, pk = 0;
    while (n > 1) {
        uint32_t i = 0, j = 1;
        if (has_path) {
            i = (uint32_t)path[pk++];
            j = (uint32_t)path[pk++];
            if (j < i) { uint32_t t = i; i = j; j = t; }
        }
        uint32_t a = ops[i], b = ops[j];
        memmove(&ops[j], &ops[j + 1], (n - j - 1) * sizeof *ops);
        n--;
        memmove(&ops[i], &ops[i + 1], (n - i - 1) * sizeof *ops);
        n--;
        int64_t sum_dims[MAXR], a_sum[MAXR], b_sum[MAXR];
        uint32_t ns = 0, na = 0, nb = 0;
        for (int64_t d = out_num_dim; d < perm_index; d++) {
            bool an = ez_size(c, a, (uint32_t)d) != 1, bn = ez_size(c, b, (uint32_t)d) != 1;
            if (an && bn) {
                if (--dim_counts[d] == 1) {
                    sum_dims[ns++] = d;
                    dim_counts[d] = 0;
                }
            } else if (dim_counts[d] == 1) {
                if (an) { a_sum[na++] = d; dim_counts[d] = 0; }
                else if (bn) { b_sum[nb++] = d; dim_counts[d] = 0; }
            }
        }
        if (na && (st = ez_sum(c, a, a_sum, na, true, &a))) return st;
        if (nb && (st = ez_sum(c, b, b_sum, nb, true, &b))) return st;
        uint32_t pair;
        if ((st = ez_sumproduct_pair(c, a, b, sum_dims, ns, &pair))) return st;
        if (has_path) ops[n++] = pair;
        else {
            memmove(&ops[1], &ops[0], n * sizeof *ops);
            ops[0] = pair;
            n++;
        }
    }

    uint32_t res = ops[0];
    if (perm_index > out_num_dim) {
        if (nops > 1) {
            int64_t sz[MAXR];
            for (int64_t d = 0; d < out_num_dim; d++) sz[d] = ez_size(c, res, (uint32_t)d);
            if ((st = ez_reshape(c, res, sz, (uint32_t)out_num_dim, &res))) return st;
        } else {
            int64_t dims[MAXR];
            for (int64_t d = out_num_dim; d < perm_index; d++) dims[d - out_num_dim] = d;
            if ((st = ez_sum(c, res, dims, (uint32_t)(perm_index - out_num_dim), false, &res))) return st;
        }
    }
    return finish(c, out, res);
}
