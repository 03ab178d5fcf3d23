/* decomp_linalg.c — to-core rules for matrix products and linear algebra
 * front ends, each emitting the nodes torch 2.13's ep.run_decompositions()
 * writes: outer, dot / vdot, mv, linalg_vecdot, inner / tensordot, addr,
 * baddbmm, trace, diag of a matrix, linalg_diagonal,
 * linalg_matrix_power, linalg_multi_dot, logdet, native_batch_norm in eval
 * mode; and the front ends torch maps to
 * the operators it keeps (linalg_svd / svdvals -> _linalg_svd, eigh /
 * eigvalsh -> _linalg_eigh, det -> _linalg_det, slogdet -> _linalg_slogdet;
 * not Core ATen, but what torch's own decomposition leaves too). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_int.h"

static bool is_complex(eir_dtype dt) { return dt == EIR_C32 || dt == EIR_C64 || dt == EIR_C128; }

static eir_status two_operands(dc *c, const char *an, const char *bn, uint32_t *a, uint32_t *b, uint32_t *out) {
    eir_status st = dc_need_io(c, an, a, out);
    if (st) return st;
    *b = dc_tensor_of(c, bn);
    if (*b == EIR_NO_VALUE || meta_of(c, *b)->rank > MAXR) return dc_refuse(c, "argument '%s': expected a tensor", bn);
    if (is_complex(meta_of(c, *a)->dtype) || is_complex(meta_of(c, *b)->dtype))
        return dc_refuse(c, "complex operands (conjugation is not decomposed)");
    return EIR_OK;
}

/* outer(a, b) -> view(a, [n, 1]) * b */
eir_status decomp_outer(dc *c) {
    uint32_t a, b, out, v, res;
    eir_status st = two_operands(c, "self", "vec2", &a, &b, &out);
    if (st) return st;
    const eir_tensor_meta *am = meta_of(c, a);
    if (am->rank != 1 || am->sizes[0].is_expr) return dc_refuse(c, "argument 'self': a 1-d tensor of concrete size expected");
    if (c->dry) return EIR_OK;
    int64_t sz[2] = {am->sizes[0].value, 1};
    if ((st = sh_reshape(c, a, sz, 2, NULL, &v))) return st;
    if ((st = sh_binary(c, "mul.Tensor", v, a_tensor(b), meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* dot / vdot (real) -> sum(a * b); mv -> sum(m * v, [1]); linalg_vecdot ->
 * sum(x * y, [dim]) */
eir_status decomp_dot(dc *c) {
    bool mv = !strcmp(c->op, "aten.mv.default"), vecdot = !strcmp(c->op, "aten.linalg_vecdot.default");
    uint32_t a, b, out, m, res;
    bool vdot = !strcmp(c->op, "aten.vdot.default");
    eir_status st = two_operands(c, vecdot ? "x" : "self", vecdot ? "y" : mv ? "vec" : vdot ? "other" : "tensor", &a, &b, &out);
    if (st) return st;
    int64_t dim = mv ? 1 : -1;
    uint32_t nd = mv || vecdot ? 1 : 0;
    if (vecdot) {
        const eir_arg *da = dc_arg_named(c, "dim");
        if (!is_none(da) && !int_of(da, &dim)) return dc_refuse(c, "argument 'dim': expected an int");
    }
    if (c->dry) return EIR_OK;
    if ((st = sh_binary(c, "mul.Tensor", a, a_tensor(b), NULL, &m))) return st;
    if ((st = sh_sum(c, m, &dim, nd, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* tensordot(a, b, dims_self, dims_other) (and inner: the last dimensions)
 * -> a permuted (free dimensions, then the contracted ones as given) and
 * reshaped to [free, contracted], b the other way, mm, reshaped to the
 * free sizes; with no free dimension on either side, sum(a' * b') viewed
 * as a 0-d tensor */
eir_status decomp_tensordot(dc *c) {
    uint32_t a, b, out;
    bool inner = !strcmp(c->op, "aten.inner.default");
    eir_status st = two_operands(c, "self", "other", &a, &b, &out);
    if (st) return st;
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b);
    if (!dc_meta_concrete_sizes(am) || !dc_meta_concrete_sizes(bm)) return dc_refuse(c, "operands of symbolic size");
    int64_t d1[MAXR], d2[MAXR];
    uint32_t n1, n2;
    if (inner && (am->rank == 0 || bm->rank == 0)) {
        /* torch: a * b */
        if (c->dry) return EIR_OK;
        uint32_t res;
        if ((st = sh_binary(c, "mul.Tensor", a, a_tensor(b), meta_of(c, out), &res))) return st;
        return finish(c, out, res);
    }
    if (inner) {
        d1[0] = d2[0] = -1;
        n1 = n2 = 1;
    } else if (!dc_ints_of(dc_arg_named(c, "dims_self"), d1, MAXR, &n1) || !dc_ints_of(dc_arg_named(c, "dims_other"), d2, MAXR, &n2) ||
               n1 != n2)
        return dc_refuse(c, "arguments 'dims_self', 'dims_other': expected int lists of one length");
    bool c1[MAXR] = {0}, c2[MAXR] = {0};
    int64_t csize = 1;
    for (uint32_t i = 0; i < n1; i++) {
        int64_t x = wrap_dim(d1[i], am->rank), y = wrap_dim(d2[i], bm->rank);
        if (x < 0 || y < 0 || x >= am->rank || y >= bm->rank || c1[x] || c2[y])
            return dc_refuse(c, "contracted dimensions out of range or repeated");
        int64_t s1 = am->sizes[x].value, s2 = bm->sizes[y].value;
        if (s1 != s2 || s1 == 1) return dc_refuse(c, "contracted dimensions of sizes %lld and %lld (sizes 1 are summed first: not decomposed)",
                                                  (long long)s1, (long long)s2);
        c1[x] = c2[y] = true;
        csize *= s1;
    }
    int64_t fs1 = 1, fs2 = 1;
    for (uint32_t j = 0; j < am->rank; j++) fs1 *= c1[j] ? 1 : am->sizes[j].value;
    for (uint32_t j = 0; j < bm->rank; j++) fs2 *= c2[j] ? 1 : bm->sizes[j].value;
    if (fs1 == 1 && fs2 == 1 && (am->rank != 1 || bm->rank != 1)) return decomp_tensordot_single(c, a, b, out, d1, d2, n1);
    if (c->dry) return EIR_OK;
    int64_t p1[MAXR], p2[MAXR], size1 = 1, size2 = 1;
    uint32_t k1 = 0, k2 = 0, f1 = 0, f2 = 0;
    for (uint32_t j = 0; j < am->rank; j++)
        if (!c1[j]) p1[k1++] = j, size1 *= am->sizes[j].value, f1++;
    for (uint32_t i = 0; i < n1; i++) p1[k1++] = d1[i];
    for (uint32_t i = 0; i < n2; i++) p2[k2++] = d2[i];
    for (uint32_t j = 0; j < bm->rank; j++)
        if (!c2[j]) p2[k2++] = j, size2 *= bm->sizes[j].value, f2++;
    uint32_t pa, pbv, ra, rb, mm, res;
    if ((st = sh_permute(c, a, p1, k1, NULL, &pa))) return st;
    if (!f1 && !f2) {
        uint32_t m, s;
        if ((st = sh_permute(c, b, p2, k2, NULL, &pbv))) return st;
        if ((st = sh_binary(c, "mul.Tensor", pa, a_tensor(pbv), NULL, &m))) return st;
        if ((st = sh_sum(c, m, NULL, 0, NULL, &s))) return st;
        if ((st = sh_view(c, s, NULL, 0, meta_of(c, out), &res))) return st;
        return finish(c, out, res);
    }
    int64_t s1[2] = {size1, csize}, s2[2] = {csize, size2};
    if ((st = sh_reshape(c, pa, s1, 2, NULL, &ra))) return st;
    if ((st = sh_permute(c, b, p2, k2, NULL, &pbv))) return st;
    if ((st = sh_reshape(c, pbv, s2, 2, NULL, &rb))) return st;
    eir_named_arg mi[2] = {pos_arg("self", a_tensor(ra)), pos_arg("mat2", a_tensor(rb))};
    if ((st = sh_emit(c, "mm.default", 2, mi, NULL, &mm))) return st;
    if ((st = dc_emit_reshape(c, mm, meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

static bool scalar_is(const eir_arg *a, double v) {
    if (is_none(a)) return v == 1;
    if (a->kind == EIR_ARG_FLOAT) return a->u.f == v;
    int64_t i;
    return int_of(a, &i) && (double)i == v;
}

static bool scalar_ok(const eir_arg *a) {
    return is_none(a) || a->kind == EIR_ARG_FLOAT || a->kind == EIR_ARG_INT || a->kind == EIR_ARG_BOOL;
}

/* addr(self, v1, v2, beta, alpha) -> expand(self) * beta + (view(v1, [n,
 * 1]) * v2) * alpha; without the first term for beta = 0 */
eir_status decomp_addr(dc *c) {
    uint32_t s, a, b, out;
    eir_status st = two_operands(c, "vec1", "vec2", &a, &b, &out);
    if (st) return st;
    s = dc_tensor_of(c, "self");
    if (s == EIR_NO_VALUE || meta_of(c, s)->rank > 2) return dc_refuse(c, "argument 'self': expected a tensor of rank up to 2");
    const eir_arg *beta = dc_arg_named(c, "beta"), *alpha = dc_arg_named(c, "alpha");
    const eir_tensor_meta *am = meta_of(c, a), *bm = meta_of(c, b), *om = meta_of(c, out);
    if (!scalar_ok(beta) || !scalar_ok(alpha)) return dc_refuse(c, "arguments 'beta', 'alpha': expected numbers");
    bool no_self = scalar_is(beta, 0);
    if (om->dtype == EIR_BOOL || is_complex(meta_of(c, s)->dtype)) return dc_refuse(c, "a bool or complex result");
    if (am->rank != 1 || bm->rank != 1 || am->sizes[0].is_expr || bm->sizes[0].is_expr)
        return dc_refuse(c, "vectors of concrete size expected");
    if (c->dry) return EIR_OK;
    int64_t sz[2] = {am->sizes[0].value, bm->sizes[0].value}, col[2] = {am->sizes[0].value, 1};
    uint32_t e, mb = EIR_NO_VALUE, v, o, oa, res;
    if (!no_self) {
        eir_named_arg ei[2] = {pos_arg("self", a_tensor(s)), pos_arg("size", dc_a_ints(c, sz, 2))};
        if ((st = sh_emit(c, "expand.default", 2, ei, NULL, &e))) return st;
        if ((st = sh_binary(c, "mul.Tensor", e, is_none(beta) ? a_int(1) : *beta, NULL, &mb))) return st;
    }
    if ((st = sh_reshape(c, a, col, 2, NULL, &v))) return st;
    if ((st = sh_binary(c, "mul.Tensor", v, a_tensor(b), NULL, &o))) return st;
    /* beta = 0: self is not read (torch: alpha * outer) */
    if ((st = sh_binary(c, "mul.Tensor", o, is_none(alpha) ? a_int(1) : *alpha, no_self ? om : NULL, &oa))) return st;
    if (no_self) return finish(c, out, oa);
    if ((st = sh_binary(c, "add.Tensor", mb, a_tensor(oa), om, &res))) return st;
    return finish(c, out, res);
}

/* baddbmm(self, b1, b2, beta, alpha) -> bmm (* alpha) + self (* beta);
 * beta = 0: bmm (* alpha) alone */
eir_status decomp_baddbmm(dc *c) {
    uint32_t s, a, b, out;
    eir_status st = two_operands(c, "batch1", "batch2", &a, &b, &out);
    if (st) return st;
    s = dc_tensor_of(c, "self");
    if (s == EIR_NO_VALUE || meta_of(c, s)->rank > 3) return dc_refuse(c, "argument 'self': expected a tensor of rank up to 3");
    const eir_arg *beta = dc_arg_named(c, "beta"), *alpha = dc_arg_named(c, "alpha");
    if (!scalar_ok(beta) || !scalar_ok(alpha)) return dc_refuse(c, "arguments 'beta', 'alpha': expected numbers");
    bool no_self = scalar_is(beta, 0);
    if (meta_of(c, a)->rank != 3 || meta_of(c, b)->rank != 3) return dc_refuse(c, "batches of rank 3 expected");
    if (c->dry) return EIR_OK;
    uint32_t bmm, x = s, res;
    eir_named_arg bi[2] = {pos_arg("self", a_tensor(a)), pos_arg("mat2", a_tensor(b))};
    bool alpha1 = scalar_is(alpha, 1);
    if ((st = sh_emit(c, "bmm.default", 2, bi, no_self && alpha1 ? meta_of(c, out) : NULL, &bmm))) return st;
    if (!alpha1 && (st = sh_binary(c, "mul.Tensor", bmm, *alpha, no_self ? meta_of(c, out) : NULL, &bmm))) return st;
    if (no_self) return finish(c, out, bmm);
    if (!scalar_is(beta, 1) && (st = sh_binary(c, "mul.Tensor", s, *beta, NULL, &x))) return st;
    if ((st = sh_binary(c, "add.Tensor", x, a_tensor(bmm), meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* diag of a vector (and diagflat, of the flattened input): the vector
 * padded with |k| zeros, as a row, placed by where(arange(N) ==
 * arange(k, k + N) column, row, 0) */
static eir_status diag_vec(dc *c, uint32_t x, int64_t k, uint32_t out) {
    const eir_tensor_meta *xm = meta_of(c, x);
    int64_t n = xm->sizes[0].value, ak = k < 0 ? -k : k, N = n + ak, perm[2] = {0, 1}, nn[2] = {N, N};
    eir_status st;
    uint32_t cur = x, f, u, p, a0, a1, u1, eq, v, z, res;
    if (k) {
        eir_named_arg fi[6] = {pos_arg("size", dc_a_ints(c, &ak, 1)), pos_arg("fill_value", a_int(0)),
                               kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, xm->dtype)),
                               kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(xm)),
                               kw_arg("pin_memory", a_bool(false))};
        if ((st = sh_emit(c, "full.default", 6, fi, NULL, &f))) return st;
        uint32_t parts[2] = {k > 0 ? f : x, k > 0 ? x : f};
        eir_named_arg ci[2] = {pos_arg("tensors", sh_a_tensors(c, parts, 2)), pos_arg("dim", a_int(-1))};
        if ((st = sh_emit(c, "cat.default", 2, ci, NULL, &cur))) return st;
    }
    if ((st = sh_unsqueeze(c, cur, 0, NULL, &u))) return st;
    if ((st = sh_permute(c, u, perm, 2, NULL, &p))) return st;
    if ((st = sh_arange(c, 0, N, EIR_I64, xm, &a0))) return st;
    if ((st = sh_arange(c, k, k + N, EIR_I64, xm, &a1))) return st;
    if ((st = sh_unsqueeze(c, a1, -1, NULL, &u1))) return st;
    if ((st = sh_binary(c, "eq.Tensor", a0, a_tensor(u1), NULL, &eq))) return st;
    if ((st = sh_view(c, eq, nn, 2, NULL, &v))) return st;
    if ((st = sh_zero_scalar(c, xm, &z))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(v)), pos_arg("self", a_tensor(p)), pos_arg("other", a_tensor(z))};
    if ((st = sh_emit(c, "where.self", 3, wi, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* diag of a matrix -> diagonal + clone; trace -> diagonal + clone + sum;
 * linalg_diagonal -> diagonal with every argument */
eir_status decomp_diagonal(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, c->op[5] == 'l' ? "A" : "self", &x, &out);
    if (st) return st;
    const eir_tensor_meta *xm = meta_of(c, x);
    bool trace = !strcmp(c->op, "aten.trace.default"), ld = !strcmp(c->op, "aten.linalg_diagonal.default");
    int64_t off = 0, d1 = -2, d2 = -1;
    const eir_arg *oa = dc_arg_named(c, ld || !strcmp(c->op, "aten.diagflat.default") ? "offset" : "diagonal");
    if (!trace && !is_none(oa) && !int_of(oa, &off)) return dc_refuse(c, "argument 'offset': expected an int");
    if (ld && ((!is_none(dc_arg_named(c, "dim1")) && !int_of(dc_arg_named(c, "dim1"), &d1)) ||
               (!is_none(dc_arg_named(c, "dim2")) && !int_of(dc_arg_named(c, "dim2"), &d2))))
        return dc_refuse(c, "arguments 'dim1', 'dim2': expected ints");
    bool flat = !strcmp(c->op, "aten.diagflat.default");
    if (flat || (!trace && !ld && xm->rank == 1)) {
        /* a diagonal matrix from a vector */
        if (xm->dtype == EIR_BOOL || is_complex(xm->dtype)) return dc_refuse(c, "a bool or complex input");
        if (!dc_meta_concrete_sizes(xm)) return dc_refuse(c, "an input of symbolic size");
        if (!flat && xm->rank != 1) return dc_refuse(c, "an input of rank %u", xm->rank);
        if (c->dry) return EIR_OK;
        if (flat) {
            int64_t m1 = -1;
            uint32_t src = x;
            if (!dc_meta_contiguous(xm) && (st = sh_clone(c, x, NULL, &src))) return st;
            if ((st = sh_view(c, src, &m1, 1, NULL, &x))) return st;
        }
        return diag_vec(c, x, off, out);
    }
    if (!ld && xm->rank != 2) return dc_refuse(c, "an input of rank %u (the diagonal of a matrix is decomposed)", xm->rank);
    if (c->dry) return EIR_OK;
    eir_named_arg di[4] = {pos_arg("self", a_tensor(x)), pos_arg("offset", a_int(off)), pos_arg("dim1", a_int(d1)),
                           pos_arg("dim2", a_int(d2))};
    uint32_t d, cl, res;
    if ((st = sh_emit(c, "diagonal.default", ld ? 4 : off ? 2 : 1, di, ld ? meta_of(c, out) : NULL, &d))) return st;
    if (ld) return finish(c, out, d);
    if ((st = sh_clone(c, d, trace ? NULL : meta_of(c, out), &cl))) return st;
    if (!trace) return finish(c, out, cl);
    if ((st = sh_sum(c, cl, NULL, 0, meta_of(c, out), &res))) return st;
    return finish(c, out, res);
}

/* a @ b of matrices (mm) or of batches of one shape (matmul's expand +
 * view + bmm + view) */
static eir_status mm(dc *c, uint32_t a, uint32_t b, const eir_tensor_meta *last, uint32_t *res) {
    const eir_tensor_meta *am = meta_of(c, a);
    if (am->rank > 2) {
        tm t;
        int64_t sz[MAXR];
        for (uint32_t i = 0; i < am->rank; i++) sz[i] = am->sizes[i].value;
        dc_tm_new(&t, am, am->dtype, sz, am->rank);
        return dc_emit_batched_mm(c, a, b, last ? last : &t.m, res);
    }
    eir_named_arg mi[2] = {pos_arg("self", a_tensor(a)), pos_arg("mat2", a_tensor(b))};
    return sh_emit(c, "mm.default", 2, mi, last, res);
}

/* linalg_matrix_power of a matrix or a batch of them (n >= 0): clone (1),
 * products (2, 3), square-and-multiply (4 and above), as torch's C++ does;
 * a batch's products as matmul's (expand + view + bmm + view); n = 0: the
 * identity copied into a clone */
eir_status decomp_matrix_power(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    int64_t n;
    if (!int_of(dc_arg_named(c, "n"), &n)) return dc_refuse(c, "argument 'n': expected an int");
    const eir_tensor_meta *xm = meta_of(c, x);
    if (n < 0) return dc_refuse(c, "a negative power (an inverse: not decomposed)");
    if (xm->rank < 2 || xm->rank > MAXR) return dc_refuse(c, "an input of rank %u", xm->rank);
    if (xm->rank > 2 && !dc_meta_concrete_sizes(xm)) return dc_refuse(c, "a batch of matrices of symbolic size");
    for (uint32_t i = 0; xm->rank > 2 && i < xm->rank; i++)
        if (xm->strides[i].is_expr) return dc_refuse(c, "symbolic strides of the input");
    const eir_symint side = xm->sizes[xm->rank - 1];
    if (n == 0 && (side.is_expr || side.value > 65535 || is_complex(xm->dtype)))
        return dc_refuse(c, "a power of 0 of a complex matrix or of symbolic or large size");
    if (c->dry) return EIR_OK;
    const eir_tensor_meta *om = meta_of(c, out);
    uint32_t res = x, z = EIR_NO_VALUE, t;
    bool have = false;
    if (n == 0) {
        /* torch: the identity copied into a clone of the input */
        uint32_t cl, id;
        if ((st = sh_clone(c, x, NULL, &cl))) return st;
        if ((st = sh_eye(c, side.value, side.value, xm->dtype, xm, NULL, &id))) return st;
        eir_named_arg ci[2] = {pos_arg("self", a_tensor(cl)), pos_arg("src", a_tensor(id))};
        if ((st = sh_emit(c, "copy.default", 2, ci, om, &res))) return st;
    } else if (n == 1) {
        if ((st = sh_clone(c, x, om, &res))) return st;
    } else if (n == 2) {
        if ((st = mm(c, x, x, om, &res))) return st;
    } else if (n == 3) {
        if ((st = mm(c, x, x, NULL, &t)) || (st = mm(c, t, x, om, &res))) return st;
    } else {
        for (; n > 0; n >>= 1) {
            if (z == EIR_NO_VALUE) z = x;
            else if ((st = mm(c, z, z, n == 1 && !have ? om : NULL, &z))) return st;
            if (n & 1) {
                if (!have) res = z, have = true;
                else if ((st = mm(c, res, z, n == 1 ? om : NULL, &res))) return st;
            }
        }
    }
    return finish(c, out, res);
}

/* linalg_multi_dot of two or three matrices: mm in the cheaper order,
 * viewed to the result's sizes */
eir_status decomp_multi_dot(dc *c) {
    uint32_t v[MAXR], n, out = out_value(c);
    if (out == EIR_NO_VALUE) return dc_refuse(c, "expected one tensor output");
    if (!sh_tensor_list(c, "tensors", v, &n) || n < 2 || n > 3) return dc_refuse(c, "argument 'tensors': two or three matrices are decomposed");
    int64_t s[3][2];
    for (uint32_t i = 0; i < n; i++) {
        const eir_tensor_meta *m = meta_of(c, v[i]);
        if (m->rank != 2 || !dc_meta_concrete_sizes(m) || is_complex(m->dtype))
            return dc_refuse(c, "operand %u: a real matrix of concrete size expected", i);
        s[i][0] = m->sizes[0].value;
        s[i][1] = m->sizes[1].value;
    }
    if (c->dry) return EIR_OK;
    eir_status st;
    uint32_t t, res;
    if (n == 2) {
        if ((st = mm(c, v[0], v[1], NULL, &t))) return st;
    } else {
        int64_t left = s[0][0] * s[0][1] * s[1][1] + s[0][0] * s[1][1] * s[2][1];
        int64_t right = s[1][0] * s[1][1] * s[2][1] + s[0][0] * s[0][1] * s[2][1];
        uint32_t u;
        if (left < right) {
            if ((st = mm(c, v[0], v[1], NULL, &u)) || (st = mm(c, u, v[2], NULL, &t))) return st;
        } else if ((st = mm(c, v[1], v[2], NULL, &u)) || (st = mm(c, v[0], u, NULL, &t)))
            return st;
    }
    if ((st = dc_emit_reshape(c, t, meta_of(c, out), "view", &res))) return st;
    return finish(c, out, res);
}

/* ---- front ends to the operators torch keeps ---- */

/* linalg_svd -> _linalg_svd(A, full_matrices); linalg_svdvals ->
 * _linalg_svd(A)[1]; linalg_eigh / eigvalsh -> _linalg_eigh(A, UPLO);
 * linalg_det -> _linalg_det(A)[0]; linalg_slogdet -> _linalg_slogdet(A)[:2] */
eir_status decomp_linalg_front(dc *c) {
    static const struct { const char *from, *to; uint32_t nout; int32_t map[2]; } F[] = {
        {"aten.linalg_svd.default", "_linalg_svd.default", 3, {0, -1}},
        {"aten.linalg_svdvals.default", "_linalg_svd.default", 3, {1, -1}},
        {"aten.linalg_eigh.default", "_linalg_eigh.default", 2, {0, -1}},
        {"aten.linalg_eigvalsh.default", "_linalg_eigh.default", 2, {0, -1}},
        {"aten.linalg_det.default", "_linalg_det.default", 3, {0, -1}},
        {"aten.linalg_slogdet.default", "_linalg_slogdet.default", 4, {0, -1}},
    };
    uint32_t k = 0;
    while (k < sizeof F / sizeof *F && strcmp(F[k].from, c->op)) k++;
    if (k == sizeof F / sizeof *F) return dc_refuse(c, "internal: no front end");
    const char *an = dc_arg_named(c, "A") ? "A" : "self";
    uint32_t a = dc_tensor_of(c, an);
    if (a == EIR_NO_VALUE || meta_of(c, a)->rank > MAXR) return dc_refuse(c, "argument '%s': expected a tensor", an);
    /* the node's outputs, in order */
    uint32_t outs[4], no = 0;
    for (uint32_t i = 0; i < c->src.num_outputs && no < 4; i++) {
        const eir_arg *o = &c->src.outputs[i];
        if (o->kind == EIR_ARG_TENSOR) outs[no++] = o->value;
        else if (o->kind == EIR_ARG_TENSORS)
            for (uint32_t j = 0; j < o->u.list.n && no < 4; j++) outs[no++] = o->u.list.items[j].value;
        else
            return dc_refuse(c, "output %u is not a tensor", i);
    }
    uint32_t first = (uint32_t)F[k].map[0], want = !strcmp(c->op, "aten.linalg_svd.default") ? 3
                                                 : !strcmp(c->op, "aten.linalg_eigh.default") || !strcmp(c->op, "aten.linalg_slogdet.default") ? 2
                                                                                                                                                  : 1;
    if (no != want) return dc_refuse(c, "%u outputs, expected %u", no, want);
    for (uint32_t i = 0; i < no; i++)
        if (outs[i] >= c->g->num_values) return dc_refuse(c, "output %u is not a tensor", i);
    bool full = false;
    const eir_arg *fm = dc_arg_named(c, "full_matrices"), *drv = dc_arg_named(c, "driver"), *uplo = dc_arg_named(c, "UPLO");
    if (!dc_bool_arg(c, "full_matrices", true, &full)) return dc_refuse(c, "argument 'full_matrices': expected a bool");
    (void)fm;
    if (c->dry) return EIR_OK;
    eir_named_arg ins[3];
    uint32_t n = 0;
    ins[n++] = pos_arg("A", a_tensor(a));
    if (!strcmp(c->op, "aten.linalg_svd.default") && full) ins[n++] = pos_arg("full_matrices", a_bool(true));
    if (!is_none(drv) && drv->kind == EIR_ARG_STRING) ins[n++] = kw_arg("driver", *drv);
    if (!is_none(uplo) && uplo->kind == EIR_ARG_STRING) ins[n++] = pos_arg("UPLO", *uplo);
    uint32_t vals[4];
    eir_status st = sh_emit_n(c, F[k].to, n, ins, F[k].nout, false, NULL, vals);
    if (st) return st;
    for (uint32_t i = 0; i < no; i++)
        if ((st = finish(c, outs[i], vals[first + i]))) return st;
    return EIR_OK;
}

/* logdet -> _linalg_slogdet, where(sign == -1, nan, logabsdet) */
eir_status decomp_logdet(dc *c) {
    uint32_t x, out;
    eir_status st = dc_need_io(c, "self", &x, &out);
    if (st) return st;
    if (is_complex(meta_of(c, x)->dtype)) return dc_refuse(c, "a complex input");
    if (c->dry) return EIR_OK;
    uint32_t v[4], eq, z, res;
    eir_named_arg si_[1] = {pos_arg("A", a_tensor(x))};
    if ((st = sh_emit_n(c, "_linalg_slogdet.default", 1, si_, 4, false, NULL, v))) return st;
    if ((st = sh_binary(c, "eq.Scalar", v[0], a_float(-1.0), NULL, &eq))) return st;
    const eir_tensor_meta *om = meta_of(c, out);
    eir_named_arg ni[4] = {pos_arg("s", a_float(NAN)), kw_arg("dtype", a_kind(EIR_ARG_SCALAR_TYPE, om->dtype)),
                           kw_arg("layout", a_kind(EIR_ARG_LAYOUT, EIR_LAYOUT_STRIDED)), kw_arg("device", dc_a_device(om))};
    if ((st = sh_emit(c, "scalar_tensor.default", 4, ni, NULL, &z))) return st;
    eir_named_arg wi[3] = {pos_arg("condition", a_tensor(eq)), pos_arg("self", a_tensor(z)), pos_arg("other", a_tensor(v[1]))};
    if ((st = sh_emit(c, "where.self", 3, wi, om, &res))) return st;
    return finish(c, out, res);
}

/* native_batch_norm in eval mode (running statistics given) ->
 * _native_batch_norm_legit_no_training, output for output */
eir_status decomp_native_bn(dc *c) {
    uint32_t x = dc_tensor_of(c, "input");
    if (x == EIR_NO_VALUE) return dc_refuse(c, "argument 'input': expected a tensor");
    bool training = true;
    if (!dc_bool_arg(c, "training", true, &training)) return dc_refuse(c, "argument 'training': expected a bool");
    if (training) return decomp_bn_update(c);
    uint32_t rm = dc_tensor_of(c, "running_mean"), rv = dc_tensor_of(c, "running_var");
    if (rm == EIR_NO_VALUE || rv == EIR_NO_VALUE) return dc_refuse(c, "eval mode without running statistics");
    const eir_arg *mom = dc_arg_named(c, "momentum"), *eps = dc_arg_named(c, "eps");
    if (!mom || !eps) return dc_refuse(c, "arguments 'momentum', 'eps' missing");
    uint32_t outs[3], no = 0;
    for (uint32_t i = 0; i < c->src.num_outputs && no < 3; i++)
        if (c->src.outputs[i].kind == EIR_ARG_TENSOR && c->src.outputs[i].value < c->g->num_values) outs[no++] = c->src.outputs[i].value;
        else return dc_refuse(c, "output %u is not a tensor", i);
    if (no != 3) return dc_refuse(c, "expected 3 outputs");
    if (c->dry) return EIR_OK;
    const eir_arg *wa = dc_arg_named(c, "weight"), *ba = dc_arg_named(c, "bias");
    eir_named_arg bi[7] = {pos_arg("input", a_tensor(x)), pos_arg("weight", is_none(wa) ? a_none() : *wa),
                           pos_arg("bias", is_none(ba) ? a_none() : *ba), pos_arg("running_mean", a_tensor(rm)),
                           pos_arg("running_var", a_tensor(rv)), pos_arg("momentum", *mom), pos_arg("eps", *eps)};
    uint32_t v[3];
    const eir_tensor_meta *ms[3] = {meta_of(c, outs[0]), meta_of(c, outs[1]), meta_of(c, outs[2])};
    eir_status st = dc_emit_n(c, "_native_batch_norm_legit_no_training.default", 7, bi, 3, ms, NULL, false, v);
    if (st) return st;
    for (uint32_t i = 0; i < 3; i++)
        if ((st = finish(c, outs[i], v[i]))) return st;
    return EIR_OK;
}
