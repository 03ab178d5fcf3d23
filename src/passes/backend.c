/* backend.c — the pass `to-backend`: the Backend dialect's fused operators
 * (src/ops/backend_ops.c) in place of the ATen calls they fuse.
 *
 * Rewrites, on the root graph and the graphs nested in it (see fuse_graph),
 * of ATen (as exported) and Core ATen programs:
 *
 *  (a) a 2-d convolution (aten.conv2d, or aten.convolution not transposed)
 *      followed by batch norm in eval mode (aten.batch_norm with
 *      training=False, or aten._native_batch_norm_legit_no_training whose
 *      mean and invstd results nothing reads): the batch norm is folded into
 *      the convolution's weight and bias, as torch's fuse_conv_bn_weights
 *      does — w' = w * gamma / sqrt(var + eps), b' = (b - mean) * gamma /
 *      sqrt(var + eps) + beta, computed in double and rounded to float once.
 *      Only when the convolution's weight (and bias) are parameters or
 *      constants that nothing else reads, and the batch norm's are
 *      parameters, constants or buffers nothing writes; the folded ones
 *      become lifted tensor constants (`_eir_cpu_fused<N>`), and the
 *      parameters only the rewritten calls read leave the program.
 *  (b) the convolution (with its folded bias) followed by relu, relu6
 *      (hardtanh(0, 6)), hardtanh, clamp(min, max), silu or hardswish,
 *      in-place forms included, whose input nothing else reads (silu and
 *      hardswish also as torch's decompositions write them: take_silu,
 *      take_hardswish):
 *      eir_cpu::conv2d with that activation.
 *  (c) aten.linear, aten.addmm(bias, x, w.t()) and aten.mm(x, w.t()) with
 *      w.t() a permute or t of a 2-d weight, followed by such an activation
 *      or not (mm only with one): eir_cpu::linear. Written ahead (eir
 *      convert, not a runtime's copy), when w is a constant of the program
 *      and the input has a known number of rows above EIR_GEMV_MAX_M:
 *      eir_cpu::linear_packed, w packed into a new constant as the
 *      runtime's product reads it (packed_constant), mm with no activation
 *      included.
 *  (d) the chain run_decompositions() writes for scaled_dot_product_attention
 *      (two bmm, _softmax and its -inf guard; see try_attention):
 *      eir_cpu::attention.
 *  (f) last, aten.max_pool2d_with_indices whose indices nothing reads:
 *      eir_cpu::max_pool2d (values only; pool_values_graph).
 *  (e) then, on the root graph when oneDNN's convolution primitive is on, every
 *      eir_cpu::conv2d with groups 1 or depthwise (groups == C == O), a weight the
 *      program never writes and
 *      literal sizes: eir_cpu::conv2d_blocked, its result in the layout the
 *      primitive picks (eir_dnnl_conv_layout), a residual add (alpha 1) and the
 *      activation after it taken in; to_blocked / from_blocked only where the
 *      chain meets other operators (see try_blocked, blocked_chains).
 *
 * A pattern is rewritten only when every tensor in it is float32, the
 * convolution 2-d with literal stride, padding and dilation, the linear's
 * weight 2-d and its bias 1-d; otherwise the calls stay as they are. The
 * fused call takes the place of the pattern's last node and its result
 * takes over the uses of that node's result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "../ir/edit.h"
#include "../ops/optable.h"
#include "../kernels/dnnl_conv.h"
#include "../kernels/fused.h"
#include "../kernels/recurrent.h"

#define T_CONV2D "torch.ops.aten.conv2d.default"
#define T_CONVOLUTION "torch.ops.aten.convolution.default"
#define T_BN "torch.ops.aten.batch_norm.default"
#define T_BN_NT "torch.ops.aten._native_batch_norm_legit_no_training.default"
#define T_LINEAR "torch.ops.aten.linear.default"
#define T_ADDMM "torch.ops.aten.addmm.default"
#define T_MM "torch.ops.aten.mm.default"

/* ---- reading node arguments ---- */

static const eir_arg *arg_named(const eir_node *nd, const char *name) {
    for (uint32_t i = 0; i < nd->num_inputs; i++)
        if (nd->inputs[i].name && !strcmp(nd->inputs[i].name, name)) return &nd->inputs[i].arg;
    return NULL;
}

static bool is_none(const eir_arg *a) {
    return !a || a->kind == EIR_ARG_NONE || (a->kind == EIR_ARG_OPTIONAL_TENSOR && a->value == EIR_NO_VALUE);
}

/* the tensor value an argument names, or EIR_NO_VALUE */
static uint32_t tensor_of(const eir_arg *a) {
    if (a && (a->kind == EIR_ARG_TENSOR || a->kind == EIR_ARG_OPTIONAL_TENSOR)) return a->value;
    return EIR_NO_VALUE;
}

static bool int_of(const eir_arg *a, int64_t dflt, int64_t *out) {
    if (!a) { *out = dflt; return true; }
    if (a->kind == EIR_ARG_INT || (a->kind == EIR_ARG_SYM_INT && a->literal)) { *out = a->u.i; return true; }
    return false;
}

static bool number_of(const eir_arg *a, double *out) {
    if (!a) return false;
    if (a->kind == EIR_ARG_FLOAT || (a->kind == EIR_ARG_SYM_FLOAT && a->literal)) { *out = a->u.f; return true; }
    if (a->kind == EIR_ARG_INT || (a->kind == EIR_ARG_SYM_INT && a->literal)) { *out = (double)a->u.i; return true; }
    return false;
}

static bool bool_of(const eir_arg *a, bool *out) {
    if (a && (a->kind == EIR_ARG_BOOL || (a->kind == EIR_ARG_SYM_BOOL && a->literal))) { *out = a->u.b; return true; }
    return false;
}

/* An int list of one or two literals (one stands for both dims). */
static bool ints2_of(const eir_arg *a, int64_t dflt, int64_t out[2]) {
    if (!a) { out[0] = out[1] = dflt; return true; }
    if ((a->kind != EIR_ARG_INTS && a->kind != EIR_ARG_SYM_INTS) || a->u.list.n < 1 || a->u.list.n > 2) return false;
    for (uint32_t i = 0; i < 2; i++) {
        const eir_arg *it = &a->u.list.items[a->u.list.n == 1 ? 0 : i];
        if (!int_of(it, 0, &out[i])) return false;
    }
    return true;
}

/* ---- the graph ---- */

typedef struct bctx {
    eir_program *p;
    eir_graph *g;
    bool ahead;                  /* the program is written ahead (eir convert), not bound by a runtime */
    char **wt_from, **wt_to;     /* weights packed (ahead): the weight's state name, its constant's, */
    int64_t *wt_width;           /* its panels' width (names: value ids move as calls are rewritten) */
    uint32_t nwt;
} bctx;

static bool is_f32(const bctx *c, uint32_t v, uint32_t rank) {
    if (v == EIR_NO_VALUE || v >= c->g->num_values) return false;
    const eir_value *val = &c->g->values[v];
    return val->kind == EIR_VALUE_TENSOR && val->meta.dtype == EIR_F32 && (rank == 0 || val->meta.rank == rank);
}

static bool reads_value(const eir_arg *a, uint32_t v) {
    if (eir_arg_names_value(a)) return a->value == v;
    if (eir_arg_kind_is_list(a->kind))
        for (uint32_t i = 0; i < a->u.list.n; i++)
            if (reads_value(&a->u.list.items[i], v)) return true;
    return false;
}

/* the node that is value v's only reader besides node `but` (UINT32_MAX: none excepted), reading it
 * once, v not a graph output either; -1: none or more */
static int32_t other_user(const bctx *c, uint32_t v, uint32_t but) {
    if (v == EIR_NO_VALUE) return -1;
    for (uint32_t i = 0; i < c->g->num_outputs; i++)
        if (reads_value(&c->g->outputs[i], v)) return -1;
    int32_t user = -1;
    for (uint32_t n = 0; n < c->g->num_nodes; n++) {
        if (n == but) continue;
        const eir_node *nd = &c->g->nodes[n];
        uint32_t k = 0;
        for (uint32_t i = 0; i < nd->num_inputs; i++) k += reads_value(&nd->inputs[i].arg, v);
        if (!k) continue;
        if (user >= 0 || k > 1) return -1;
        user = (int32_t)n;
    }
    return user;
}

/* The only node reading v (not a graph output either), or -1. */
static int32_t sole_user(const bctx *c, uint32_t v) { return other_user(c, v, UINT32_MAX); }

/* The graph input index of v, or -1. A nested graph's inputs are the
 * operands its higher-order call passes, not state: -1 there. */
static int32_t input_index(const bctx *c, uint32_t v) {
    if (c->g != c->p->graph) return -1;
    for (uint32_t i = 0; i < c->g->num_inputs && i < c->p->num_input_specs; i++)
        if (eir_arg_names_value(&c->g->inputs[i]) && c->g->inputs[i].value == v) return (int32_t)i;
    return -1;
}

/* The input spec of v when v is a parameter, buffer or tensor constant of the root graph that no
 * output spec mutates and no node reading it may write (no in-place, out= or mutating call);
 * aten_only: every reader is an ATen call, batch norm in evaluation mode allowed (it writes its
 * running statistics only in training). NULL otherwise. */
static const eir_input_spec *unwritten_input(const bctx *c, uint32_t v, bool aten_only) {
    int32_t ii = input_index(c, v);
    if (ii < 0) return NULL;
    const eir_input_spec *s = &c->p->input_specs[ii];
    if ((s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_BUFFER && s->kind != EIR_IN_CONSTANT_TENSOR) || !s->target)
        return NULL;
    for (uint32_t o = 0; o < c->p->num_output_specs; o++) {
        const eir_output_spec *os = &c->p->output_specs[o];
        if ((os->kind == EIR_OUT_BUFFER_MUTATION || os->kind == EIR_OUT_PARAMETER_MUTATION) && os->target &&
            !strcmp(os->target, s->target))
            return NULL;
    }
    for (uint32_t n = 0; n < c->g->num_nodes; n++) {
        const eir_node *nd = &c->g->nodes[n];
        bool reads = false;
        for (uint32_t i = 0; i < nd->num_inputs && !reads; i++) reads = reads_value(&nd->inputs[i].arg, v);
        if (!reads) continue;
        if (aten_only) {
            if (strncmp(nd->target, "torch.ops.aten.", 15)) return NULL;
            bool training = true;
            if (!strcmp(nd->target, T_BN) && bool_of(arg_named(nd, "training"), &training) && !training) continue;
        }
        const eir_op_schema *op = eir_op_find(nd->target);
        if (!op || (op->flags & (EIR_OPF_INPLACE | EIR_OPF_OUT)) || eir_op_mutates_args(op)) return NULL;
    }
    return s;
}

/* A read-only float32 state tensor of `rank` dims: a parameter, tensor
 * constant or buffer with data, which no output spec writes and which no
 * node may write (every node reading it is a functional ATen call). */
static const eir_tensor *state_of(const bctx *c, uint32_t v, uint32_t rank) {
    if (!is_f32(c, v, rank)) return NULL;
    const eir_input_spec *s = unwritten_input(c, v, true);
    if (!s) return NULL;
    const eir_tensor *t = eir_program_find_tensor(c->p, s->target);
    if (!t || !t->data || t->subclass || t->is_custom_obj || t->dtype != EIR_F32 || t->rank != rank) return NULL;
    /* the payload holds every element */
    int64_t last = t->storage_offset;
    for (uint32_t d = 0; d < rank; d++) {
        if (t->sizes[d] <= 0 || t->strides[d] < 0) return NULL;
        last += (t->sizes[d] - 1) * t->strides[d];
    }
    if ((uint64_t)(last + 1) * sizeof(float) > t->storage_nbytes) return NULL;
    return t;
}

/* element i (row-major over its sizes) of a float32 state tensor */
static double elem(const eir_tensor *t, int64_t i) {
    int64_t off = t->storage_offset;
    for (uint32_t d = t->rank; d-- > 0;) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    float f;
    memcpy(&f, (const char *)t->data + off * (int64_t)sizeof f, sizeof f);
    return f;
}

/* dst (row-major, t's sizes) = float32 state tensor t (a convolution weight, output channels first)
 * with each output channel's elements times scale[o], the product taken in double: written in one
 * pass from where t lies (a file mapping, usually) into the new constant's storage */
static void fold_weight(float *dst, const eir_tensor *t, const double *scale) {
    int64_t n = 1, expect = 1;
    bool contiguous = true;
    for (uint32_t d = 0; d < t->rank; d++) n *= t->sizes[d];
    for (uint32_t d = t->rank; d-- > 0;) {
        if (t->sizes[d] != 1 && t->strides[d] != expect) contiguous = false;
        expect *= t->sizes[d];
    }
    int64_t co = t->sizes[0], per = co ? n / co : 0;
    if (!contiguous) {
        for (int64_t i = 0; i < n; i++) dst[i] = (float)(elem(t, i) * scale[i / per]);
        return;
    }
    for (int64_t o = 0; o < co; o++) {
        const float *restrict s = (const float *)t->data + t->storage_offset + o * per;
        float *restrict d = dst + o * per;
        double f = scale[o];
        int64_t k = 0;
#if defined(__GNUC__) || defined(__clang__)
        /* four at a time in vector registers (the same conversions and product per element) */
        typedef float fold_v4f __attribute__((vector_size(16), aligned(4)));
        typedef double fold_v4d __attribute__((vector_size(32)));
        for (; k + 4 <= per; k += 4) {
            fold_v4f x;
            memcpy(&x, s + k, sizeof x);
            fold_v4f y = __builtin_convertvector(__builtin_convertvector(x, fold_v4d) * f, fold_v4f);
            memcpy(d + k, &y, sizeof y);
        }
#endif
        for (; k < per; k++) d[k] = (float)((double)s[k] * f);
    }
}

static eir_status constant_name(eir_program *p, char *out, size_t cap) {
    for (uint32_t n = 0; n < 10000000; n++) {
        snprintf(out, cap, "_eir_cpu_fused%u", n);
        if (!eir_program_find_tensor(p, out)) return EIR_OK;
    }
    return eir_fail(p, EIR_ERR_GRAPH, "to-backend: no free constant name");
}

/* ---- activations ---- */

typedef struct act {
    int kind;                    /* EIR_ACT_* */
    double lo, hi;
} act;

/* Whether node nd is an activation of value v alone (its first argument). */
static bool match_act(const bctx *c, const eir_node *nd, uint32_t v, act *a) {
    const char *t = nd->target;
    if (strncmp(t, "torch.ops.aten.", 15) || nd->num_inputs < 1 || tensor_of(&nd->inputs[0].arg) != v) return false;
    t += 15;
    uint32_t out = eir_node_output_value(nd, 0);
    if (!is_f32(c, out, 0) || nd->num_outputs != 1) return false;
    for (uint32_t i = 1; i < nd->num_inputs; i++)
        if (reads_value(&nd->inputs[i].arg, v)) return false;
    if (!strcmp(t, "relu.default") || !strcmp(t, "relu_.default")) {
        *a = (act){EIR_ACT_RELU, 0, 0};
        return nd->num_inputs == 1;
    }
    if (!strcmp(t, "silu.default") || !strcmp(t, "silu_.default")) {
        *a = (act){EIR_ACT_SILU, 0, 0};
        return nd->num_inputs == 1;
    }
    if (!strcmp(t, "hardswish.default") || !strcmp(t, "hardswish_.default")) {
        *a = (act){EIR_ACT_HARDSWISH, 0, 0};
        return nd->num_inputs == 1;
    }
    if (!strcmp(t, "relu6.default") || !strcmp(t, "relu6_.default")) { /* torch's relu6: hardtanh(0, 6) */
        *a = (act){EIR_ACT_HARDTANH, 0, 6};
        return nd->num_inputs == 1;
    }
    if (!strcmp(t, "hardtanh.default") || !strcmp(t, "hardtanh_.default")) {
        const eir_arg *lo = arg_named(nd, "min_val"), *hi = arg_named(nd, "max_val");
        *a = (act){EIR_ACT_HARDTANH, -1, 1};
        if ((lo && !number_of(lo, &a->lo)) || (hi && !number_of(hi, &a->hi))) return false;
        return a->lo <= a->hi;
    }
    if (!strcmp(t, "clamp.default") || !strcmp(t, "clamp_.default")) {
        const eir_arg *lo = arg_named(nd, "min"), *hi = arg_named(nd, "max");
        *a = (act){EIR_ACT_HARDTANH, 0, 0};
        if (!number_of(lo, &a->lo)) return false;
        if (is_none(hi)) {
            if (a->lo != 0) return false;       /* clamp(min=0): relu */
            a->kind = EIR_ACT_RELU;
            return true;
        }
        return number_of(hi, &a->hi) && a->lo <= a->hi;
    }
    return false;
}

static const char *act_name(int kind) {
    static const char *const N[] = {"none", "relu", "hardtanh", "silu", "hardswish"};
    return N[kind];
}

/* hardswish written out (add, clamp, mul, div) taken as the activation (EIR_FUSE_HARDSWISH=0: not) */
static bool hardswish_decomposed_on(void) {
    const char *e = getenv("EIR_FUSE_HARDSWISH");
    return !(e && !strcmp(e, "0"));
}

/* ---- rewriting one pattern ---- */

typedef struct pattern {
    uint32_t nodes[8];           /* the calls it replaces */
    uint32_t nnodes;
    uint32_t result;             /* the value the fused call's result replaces */
    act a;
} pattern;


/* a call of aten.<op> (".Tensor" or ".default") whose argument `name` is the number want */
static bool is_call_num(const eir_node *nd, const char *target, const char *name, double want) {
    double v;
    return !strcmp(nd->target, target) && number_of(arg_named(nd, name), &v) && v == want;
}

/* Hardswish as torch.export and run_decompositions() write it: x * clamp(x + 3, 0, 6) / 6, as
 * add(x, 3), clamp(min=0) then clamp(max=6) (or one clamp(0, 6)), mul(x, that), div(that, 6); x
 * read by the add and the mul only, each step's result by the next only. eir's epilogue
 * computes v * t / 6 in the same order (the same bits). On a match, the calls go to pt. */
static bool take_hardswish(const bctx *c, pattern *pt) {
    const eir_graph *g = c->g;
    uint32_t x = pt->result, chain[5], k = 0;
    int32_t ad = -1;
    for (uint32_t n = 0; n < g->num_nodes && ad < 0; n++)
        if (!strcmp(g->nodes[n].target, "torch.ops.aten.add.Tensor") &&
            tensor_of(arg_named(&g->nodes[n], "self")) == x)
            ad = (int32_t)n;
    if (ad < 0) return false;
    const eir_node *nd = &g->nodes[ad];
    double alpha = 1;
    const eir_arg *al = arg_named(nd, "alpha");
    if (!is_call_num(nd, "torch.ops.aten.add.Tensor", "other", 3) || (al && (!number_of(al, &alpha) || alpha != 1)))
        return false;
    int32_t mu = other_user(c, x, (uint32_t)ad);
    if (mu < 0 || strcmp(g->nodes[mu].target, "torch.ops.aten.mul.Tensor")) return false;
    chain[k++] = (uint32_t)ad;
    uint32_t v = eir_node_output_value(nd, 0);
    /* clamp(min=0, max=6), or clamp(min=0) then clamp(min=None, max=6) */
    bool lo = false, hi = false;
    for (int step = 0; step < 2 && !(lo && hi); step++) {
        int32_t u = sole_user(c, v);
        if (u < 0 || strcmp(g->nodes[u].target, "torch.ops.aten.clamp.default")) return false;
        const eir_node *cl = &g->nodes[u];
        const eir_arg *mn = arg_named(cl, "min"), *mx = arg_named(cl, "max");
        double a;
        if (!lo && number_of(mn, &a) && a == 0) lo = true;
        else if (!is_none(mn)) return false;
        if (!hi && mx && !is_none(mx)) {
            if (!number_of(mx, &a) || a != 6) return false;
            hi = true;
        }
        chain[k++] = (uint32_t)u;
        v = eir_node_output_value(cl, 0);
    }
    if (!lo || !hi || sole_user(c, v) != mu) return false;
    const eir_node *m = &g->nodes[mu];
    uint32_t s0 = tensor_of(arg_named(m, "self")), s1 = tensor_of(arg_named(m, "other"));
    if (!((s0 == x && s1 == v) || (s0 == v && s1 == x))) return false;
    /* (x * t) / 6: x first as torch writes it, so that the product is the epilogue's */
    if (s0 != x) return false;
    chain[k++] = (uint32_t)mu;
    v = eir_node_output_value(m, 0);
    int32_t dv = sole_user(c, v);
    if (dv < 0 || !is_call_num(&g->nodes[dv], "torch.ops.aten.div.Tensor", "other", 6) ||
        tensor_of(arg_named(&g->nodes[dv], "self")) != v)
        return false;
    chain[k++] = (uint32_t)dv;
    uint32_t out = eir_node_output_value(&g->nodes[dv], 0);
    if (!is_f32(c, out, c->g->values[x].meta.rank) || pt->nnodes + k > sizeof pt->nodes / sizeof *pt->nodes)
        return false;
    for (uint32_t i = 0; i < k; i++) pt->nodes[pt->nnodes++] = chain[i];
    pt->a = (act){EIR_ACT_HARDSWISH, 0, 0};
    pt->result = out;
    return true;
}

/* SiLU as torch's decomposition writes it (run_decompositions(), to-core): mul(x, sigmoid(x)), x
 * read by the sigmoid and the mul only, the sigmoid's result by the mul only (either operand
 * order). eir's epilogue computes x * sigmoid(x) in float, as aten.silu does (its sigmoid may
 * differ from aten.sigmoid's kernel in the last bit). On a match, the calls go to pt. */
static bool take_silu(const bctx *c, pattern *pt) {
    const eir_graph *g = c->g;
    uint32_t x = pt->result;
    int32_t sg = -1;
    for (uint32_t n = 0; n < g->num_nodes && sg < 0; n++)
        if (!strcmp(g->nodes[n].target, "torch.ops.aten.sigmoid.default") && g->nodes[n].num_inputs == 1 &&
            tensor_of(&g->nodes[n].inputs[0].arg) == x)
            sg = (int32_t)n;
    if (sg < 0) return false;
    uint32_t s = eir_node_output_value(&g->nodes[sg], 0);
    int32_t mu = other_user(c, x, (uint32_t)sg);
    if (mu < 0 || strcmp(g->nodes[mu].target, "torch.ops.aten.mul.Tensor") || sole_user(c, s) != mu) return false;
    const eir_node *m = &g->nodes[mu];
    uint32_t a = tensor_of(arg_named(m, "self")), b = tensor_of(arg_named(m, "other"));
    if (m->num_inputs != 2 || !((a == x && b == s) || (a == s && b == x))) return false;
    uint32_t out = eir_node_output_value(m, 0);
    const eir_tensor_meta *xm = &g->values[x].meta, *om = is_f32(c, out, 0) ? &g->values[out].meta : NULL;
    if (!is_f32(c, s, 0) || !om || om->rank != xm->rank || pt->nnodes + 2 > sizeof pt->nodes / sizeof *pt->nodes)
        return false;
    for (uint32_t d = 0; d < xm->rank; d++)
        if (om->sizes[d].is_expr != xm->sizes[d].is_expr || (!om->sizes[d].is_expr && om->sizes[d].value != xm->sizes[d].value))
            return false;
    pt->nodes[pt->nnodes++] = (uint32_t)sg;
    pt->nodes[pt->nnodes++] = (uint32_t)mu;
    pt->a = (act){EIR_ACT_SILU, 0, 0};
    pt->result = out;
    return true;
}

/* Extend a pattern ending in value pt->result with an activation, if one follows. */
static void take_act(const bctx *c, pattern *pt) {
    pt->a = (act){EIR_ACT_NONE, 0, 0};
    int32_t u = sole_user(c, pt->result);
    if (u < 0) {
        if (!take_silu(c, pt) && hardswish_decomposed_on()) (void)take_hardswish(c, pt);
        return;
    }
    act a;
    if (!match_act(c, &c->g->nodes[u], pt->result, &a)) return;
    pt->a = a;
    pt->nodes[pt->nnodes++] = (uint32_t)u;
    pt->result = eir_node_output_value(&c->g->nodes[u], 0);
}

static eir_named_arg tensor_arg(const bctx *c, const char *name, uint32_t v) {
    eir_named_arg na = {name, {.kind = EIR_ARG_TENSOR, .value = v, .name = c->g->values[v].name}, 1};
    return na;
}

static eir_named_arg none_arg(const char *name) {
    eir_named_arg na = {name, {.kind = EIR_ARG_NONE}, 1};
    return na;
}

/* Insert the fused call after the pattern's last node, move the uses of
 * pt->result to its result, erase the pattern's calls. */
static eir_status replace(bctx *c, const pattern *pt, const char *target, const char *hint, eir_named_arg *in,
                          uint32_t nin) {
    eir_program *p = c->p;
    eir_graph *g = c->g;
    uint32_t last = 0;
    for (uint32_t i = 0; i < pt->nnodes; i++)
        if (pt->nodes[i] > last) last = pt->nodes[i];
    eir_tensor_meta meta = g->values[pt->result].meta;
    uint32_t y = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &meta, hint);
    if (y == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_arg out = {.kind = EIR_ARG_TENSOR, .value = y, .name = g->values[y].name};
    eir_status st = eir_graph_insert_node(p, g, last + 1, target, nin, in, 1, &out, NULL);
    if (st) return st;
    if ((st = eir_graph_replace_uses(p, g, pt->result, y, NULL))) return st;
    bool *erase = calloc(g->num_nodes ? g->num_nodes : 1, sizeof *erase);
    if (!erase) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < pt->nnodes; i++) erase[pt->nodes[i]] = true;   /* all before last + 1 */
    st = eir_graph_erase_nodes(p, g, erase);
    free(erase);
    return st;
}

/* (a) + (b): a convolution at node n, with the batch norm and activation after it. */
static eir_status try_conv(bctx *c, uint32_t n, bool *done) {
    *done = false;
    eir_graph *g = c->g;
    const eir_node *nd = &g->nodes[n];
    bool conv2d = !strcmp(nd->target, T_CONV2D);
    if (!conv2d && strcmp(nd->target, T_CONVOLUTION)) return EIR_OK;
    uint32_t x = tensor_of(arg_named(nd, "input")), w = tensor_of(arg_named(nd, "weight"));
    const eir_arg *barg = arg_named(nd, "bias");
    uint32_t b = is_none(barg) ? EIR_NO_VALUE : tensor_of(barg);
    if (!is_none(barg) && b == EIR_NO_VALUE) return EIR_OK;
    int64_t stride[2], pad[2], dil[2], groups;
    if (!ints2_of(arg_named(nd, "stride"), 1, stride) || !ints2_of(arg_named(nd, "padding"), 0, pad) ||
        !ints2_of(arg_named(nd, "dilation"), 1, dil) || !int_of(arg_named(nd, "groups"), 1, &groups))
        return EIR_OK;
    if (!conv2d) {
        bool transposed = true;
        if (!bool_of(arg_named(nd, "transposed"), &transposed) || transposed) return EIR_OK;
    }
    uint32_t y = eir_node_output_value(nd, 0);
    if (!is_f32(c, x, 4) || !is_f32(c, w, 4) || !is_f32(c, y, 4) || (b != EIR_NO_VALUE && !is_f32(c, b, 1)))
        return EIR_OK;
    if (groups < 1 || stride[0] < 1 || stride[1] < 1 || pad[0] < 0 || pad[1] < 0 || dil[0] < 1 || dil[1] < 1)
        return EIR_OK;
    pattern pt = {{n}, 1, y, {EIR_ACT_NONE, 0, 0}};

    /* (a) batch norm in eval mode */
    double *scale = NULL; /* per output channel; the weight is folded straight into its new constant */
    float *fb = NULL;
    eir_tensor tw_fold = {0}; /* by value: adding the new constants may move the program's tensors */
    int32_t u = sole_user(c, y);
    const eir_node *bn = u >= 0 ? &g->nodes[u] : NULL;
    bool nt = bn && !strcmp(bn->target, T_BN_NT);
    if (bn && (nt || !strcmp(bn->target, T_BN)) && tensor_of(arg_named(bn, "input")) == y) {
        bool training = true;
        double eps = 0;
        bool ok = number_of(arg_named(bn, "eps"), &eps) && eps >= 0;
        if (!nt) ok = ok && bool_of(arg_named(bn, "training"), &training) && !training;
        uint32_t bn_out = eir_node_output_value(bn, 0);
        if (nt)                  /* save_mean / save_invstd: nothing may read them */
            for (uint32_t k = 1, v; ok && (v = eir_node_output_value(bn, k)) != EIR_NO_VALUE; k++)
                ok = eir_graph_num_uses(g, v) == 0;
        ok = ok && is_f32(c, bn_out, 4);
        const eir_arg *ga = arg_named(bn, "weight"), *ba = arg_named(bn, "bias");
        uint32_t gv = is_none(ga) ? EIR_NO_VALUE : tensor_of(ga), bv = is_none(ba) ? EIR_NO_VALUE : tensor_of(ba);
        uint32_t mv = tensor_of(arg_named(bn, "running_mean")), vv = tensor_of(arg_named(bn, "running_var"));
        int64_t co = g->values[w].meta.sizes[0].value;
        const eir_tensor *tw = ok ? state_of(c, w, 4) : NULL, *tb = NULL, *tg = NULL, *tbb = NULL, *tm, *tv;
        ok = tw && sole_user(c, w) == (int32_t)n && tw->sizes[0] == co;
        if (ok && b != EIR_NO_VALUE) ok = (tb = state_of(c, b, 1)) && sole_user(c, b) == (int32_t)n && tb->sizes[0] == co;
        if (ok && !is_none(ga)) ok = gv != EIR_NO_VALUE && (tg = state_of(c, gv, 1)) && tg->sizes[0] == co;
        if (ok && !is_none(ba)) ok = bv != EIR_NO_VALUE && (tbb = state_of(c, bv, 1)) && tbb->sizes[0] == co;
        ok = ok && (tm = state_of(c, mv, 1)) && tm->sizes[0] == co && (tv = state_of(c, vv, 1)) && tv->sizes[0] == co;
        if (ok) {
            tw_fold = *tw;
            scale = malloc((size_t)(co > 0 ? co : 1) * sizeof *scale);
            fb = malloc((size_t)(co > 0 ? co : 1) * sizeof *fb);
            if (!scale || !fb) {
                free(scale), free(fb);
                return eir_fail(c->p, EIR_ERR_NOMEM, "out of memory");
            }
            /* torch.nn.utils.fusion.fuse_conv_bn_weights, in double */
            for (int64_t o = 0; o < co; o++) {
                double gamma = tg ? elem(tg, o) : 1.0, beta = tbb ? elem(tbb, o) : 0.0;
                scale[o] = gamma / sqrt(elem(tv, o) + eps);
                fb[o] = (float)(((tb ? elem(tb, o) : 0.0) - elem(tm, o)) * scale[o] + beta);
            }
            pt.nodes[pt.nnodes++] = (uint32_t)u;
            pt.result = bn_out;
        }
    }
    take_act(c, &pt);
    if (!scale && pt.a.kind == EIR_ACT_NONE) return EIR_OK;     /* nothing to fuse */

    eir_status st = EIR_OK;
    if (scale) {
        char nw[64], nb[64];
        uint32_t cw, cb;
        int64_t sizes[4];
        for (int d = 0; d < 4; d++) sizes[d] = tw_fold.sizes[d];
        int64_t co = sizes[0];
        void *dst = NULL;
        if ((st = constant_name(c->p, nw, sizeof nw)) ||
            (st = eir_program_add_state_buf(c->p, EIR_IN_CONSTANT_TENSOR, nw, EIR_F32, 4, sizes, NULL, true, &cw,
                                            &dst)) ||
            (st = constant_name(c->p, nb, sizeof nb)) ||
            (st = eir_program_add_state(c->p, EIR_IN_CONSTANT_TENSOR, nb, EIR_F32, 1, &co, fb, true, &cb))) {
            free(scale), free(fb);
            return st;
        }
        fold_weight(dst, &tw_fold, scale);
        free(scale), free(fb);
        w = cw, b = cb;
    }
    g = c->g;
    eir_arg ilist[3][2];
    int64_t *vals[3] = {stride, pad, dil};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2; i++) ilist[k][i] = (eir_arg){.kind = EIR_ARG_INT, .u.i = vals[k][i]};
    eir_named_arg in[10] = {
        tensor_arg(c, "input", x), tensor_arg(c, "weight", w),
        b != EIR_NO_VALUE ? tensor_arg(c, "bias", b) : none_arg("bias"),
        {"stride", {.kind = EIR_ARG_INTS, .u.list = {2, ilist[0], NULL}}, 1},
        {"padding", {.kind = EIR_ARG_INTS, .u.list = {2, ilist[1], NULL}}, 1},
        {"dilation", {.kind = EIR_ARG_INTS, .u.list = {2, ilist[2], NULL}}, 1},
        {"groups", {.kind = EIR_ARG_INT, .u.i = groups}, 1},
        {"activation", {.kind = EIR_ARG_STRING, .u.s = act_name(pt.a.kind)}, 1},
        pt.a.kind == EIR_ACT_HARDTANH ? (eir_named_arg){"min", {.kind = EIR_ARG_FLOAT, .u.f = pt.a.lo}, 1} : none_arg("min"),
        pt.a.kind == EIR_ACT_HARDTANH ? (eir_named_arg){"max", {.kind = EIR_ARG_FLOAT, .u.f = pt.a.hi}, 1} : none_arg("max"),
    };
    uint32_t nin = pt.a.kind == EIR_ACT_HARDTANH ? 10 : pt.a.kind != EIR_ACT_NONE ? 8 : 7;
    if ((st = replace(c, &pt, "torch.ops.eir_cpu.conv2d.default", "eir_cpu_conv2d", in, nin))) return st;
    *done = true;
    return EIR_OK;
}

/* w when v is w.t() (aten.permute(w, [1, 0]) or aten.t(w)) of a 2-d float32 w; *node the call */
static uint32_t transposed_of(const bctx *c, uint32_t v, int32_t *node) {
    if (v == EIR_NO_VALUE || c->g->values[v].producer < 0) return EIR_NO_VALUE;
    const eir_node *nd = &c->g->nodes[c->g->values[v].producer];
    uint32_t w = tensor_of(arg_named(nd, "self"));
    if (!is_f32(c, w, 2)) return EIR_NO_VALUE;
    if (!strcmp(nd->target, "torch.ops.aten.t.default")) {
        *node = c->g->values[v].producer;
        return w;
    }
    if (strcmp(nd->target, "torch.ops.aten.permute.default")) return EIR_NO_VALUE;
    const eir_arg *d = arg_named(nd, "dims");
    int64_t d0, d1;
    if (!d || (d->kind != EIR_ARG_INTS && d->kind != EIR_ARG_SYM_INTS) || d->u.list.n != 2 ||
        !int_of(&d->u.list.items[0], 0, &d0) || !int_of(&d->u.list.items[1], 0, &d1))
        return EIR_NO_VALUE;
    if (!((d0 == 1 || d0 == -1) && (d1 == 0 || d1 == -2))) return EIR_NO_VALUE;
    *node = c->g->values[v].producer;
    return w;
}

/* The rows of a product with input x when every size but the last is a literal; -1 otherwise. */
static int64_t static_rows(const bctx *c, uint32_t x) {
    const eir_tensor_meta *m = &c->g->values[x].meta;
    int64_t rows = 1;
    for (uint32_t d = 0; d + 1 < m->rank; d++) {
        if (m->sizes[d].is_expr) return -1;
        rows *= m->sizes[d].value;
    }
    return rows;
}

/* Ahead of time, a linear layer's constant weight w (N, K) packed for eir_cpu::linear_packed as the
 * product reads it, for `rows` rows of input: what the runtime otherwise copies from w at its first
 * run (src/kernels/gemm.c), so the written program starts without that copy. The constant is
 * (P, K, W), panel p holding columns [p W, p W + W) of w^T (zeros past N): one panel per column
 * block the runtime cuts the product into (eir_nn_gemm_panel_width), or one, (1, K, N). One
 * constant per weight and layout (tied weights share it); *out the constant's value, or
 * EIR_NO_VALUE when w is not a read-only float32 state tensor. */
static eir_status packed_constant(bctx *c, uint32_t w, int64_t rows, uint32_t *out) {
    *out = EIR_NO_VALUE;
    if (!is_f32(c, w, 2)) return EIR_OK;
    int64_t n = c->g->values[w].meta.sizes[0].value, k = c->g->values[w].meta.sizes[1].value;
    int64_t W = eir_nn_gemm_panel_width(rows, n, k), P = W ? (n + W - 1) / W : 1;
    if (P < 2) P = 1, W = n;
    const eir_input_spec *ws = unwritten_input(c, w, true);
    if (!ws) return EIR_OK;
    for (uint32_t i = 0; i < c->nwt; i++)
        if (!strcmp(c->wt_from[i], ws->target) && c->wt_width[i] == W) {
            for (uint32_t j = 0; j < c->g->num_inputs && j < c->p->num_input_specs; j++)
                if (c->p->input_specs[j].target && !strcmp(c->p->input_specs[j].target, c->wt_to[i]) &&
                    eir_arg_names_value(&c->g->inputs[j]))
                    *out = c->g->inputs[j].value;
            return EIR_OK;
        }
    const eir_tensor *tp = state_of(c, w, 2);
    if (!tp) return EIR_OK;
    eir_tensor t = *tp; /* by value: adding the constant may move the program's tensors */
    if (t.sizes[0] != n || t.sizes[1] != k) return EIR_OK;
    char **from = realloc(c->wt_from, (c->nwt + 1) * sizeof *from);
    if (!from) return eir_fail(c->p, EIR_ERR_NOMEM, "out of memory");
    c->wt_from = from;
    char **to = realloc(c->wt_to, (c->nwt + 1) * sizeof *to);
    if (!to) return eir_fail(c->p, EIR_ERR_NOMEM, "out of memory");
    c->wt_to = to;
    int64_t *wd = realloc(c->wt_width, (c->nwt + 1) * sizeof *wd);
    if (!wd) return eir_fail(c->p, EIR_ERR_NOMEM, "out of memory");
    c->wt_width = wd;
    char name[64];
    uint32_t cv;
    void *dst = NULL;
    int64_t sizes[3] = {P, k, W};
    char *fname = strdup(ws->target), *tname = NULL;
    eir_status st = fname ? constant_name(c->p, name, sizeof name) : EIR_ERR_NOMEM;
    if (!st && !(tname = strdup(name))) st = EIR_ERR_NOMEM;
    if (!st) st = eir_program_add_state_buf(c->p, EIR_IN_CONSTANT_TENSOR, name, EIR_F32, 3, sizes, NULL, true, &cv, &dst);
    if (st) {
        free(fname), free(tname);
        return st == EIR_ERR_NOMEM ? eir_fail(c->p, st, "out of memory") : st;
    }
    /* element (q, i) of w^T (i < n) at panel i / W, row q, column i % W (the new storage is zeroed,
     * so are the columns past n); in 64 x 64 tiles so that both sides stay in cache */
    const float *src = (const float *)t.data + t.storage_offset;
    float *d = dst;
    int64_t s0 = t.strides[0], s1 = t.strides[1];
    for (int64_t i0 = 0; i0 < n; i0 += 64)
        for (int64_t q0 = 0; q0 < k; q0 += 64)
            for (int64_t i = i0; i < n && i < i0 + 64; i++) {
                float *col = d + (i / W) * k * W + i % W;
                for (int64_t q = q0; q < k && q < q0 + 64; q++) col[q * W] = src[i * s0 + q * s1];
            }
    c->wt_from[c->nwt] = fname;
    c->wt_to[c->nwt] = tname;
    c->wt_width[c->nwt++] = W;
    *out = cv;
    return EIR_OK;
}

/* (c): linear / addmm / mm at node n, with the activation after it. */
static eir_status try_linear(bctx *c, uint32_t n, bool *done) {
    *done = false;
    eir_graph *g = c->g;
    const eir_node *nd = &g->nodes[n];
    uint32_t x, w, b = EIR_NO_VALUE;
    int32_t tnode = -1;
    bool mm = false;
    if (!strcmp(nd->target, T_LINEAR)) {
        x = tensor_of(arg_named(nd, "input"));
        w = tensor_of(arg_named(nd, "weight"));
        const eir_arg *ba = arg_named(nd, "bias");
        if (!is_none(ba) && (b = tensor_of(ba)) == EIR_NO_VALUE) return EIR_OK;
        if (!is_f32(c, w, 2)) return EIR_OK;
    } else if (!strcmp(nd->target, T_ADDMM) || (mm = !strcmp(nd->target, T_MM))) {
        x = tensor_of(arg_named(nd, mm ? "self" : "mat1"));
        w = transposed_of(c, tensor_of(arg_named(nd, mm ? "mat2" : "mat2")), &tnode);
        if (!mm) {
            b = tensor_of(arg_named(nd, "self"));
            double beta = 1, alpha = 1;
            const eir_arg *be = arg_named(nd, "beta"), *al = arg_named(nd, "alpha");
            if ((be && !number_of(be, &beta)) || (al && !number_of(al, &alpha)) || beta != 1 || alpha != 1)
                return EIR_OK;
            if (!is_f32(c, x, 2)) return EIR_OK;
        }
    } else return EIR_OK;
    uint32_t y = eir_node_output_value(nd, 0);
    if (w == EIR_NO_VALUE || !is_f32(c, x, 0) || !is_f32(c, y, 0) || (b != EIR_NO_VALUE && !is_f32(c, b, 1)))
        return EIR_OK;
    if (g->values[x].meta.rank < 1 || g->values[x].meta.rank != g->values[y].meta.rank) return EIR_OK;
    pattern pt = {{n}, 1, y, {EIR_ACT_NONE, 0, 0}};
    take_act(c, &pt);
    /* written ahead: a constant weight packed for the product (eir_cpu::linear_packed), when every
     * run has more rows than the matrix-vector kernel takes (it reads the weight as (N, K)); the
     * same products, the same bits. A plain mm is fused for that alone. */
    uint32_t wt = EIR_NO_VALUE;
    eir_status st;
    int64_t rows = static_rows(c, x);
    if (c->ahead && rows > EIR_GEMV_MAX_M && (st = packed_constant(c, w, rows, &wt))) return st;
    if (mm && pt.a.kind == EIR_ACT_NONE && wt == EIR_NO_VALUE) return EIR_OK;
    g = c->g;
    nd = &g->nodes[n];
    bool packed = wt != EIR_NO_VALUE;
    eir_named_arg in[7], *ip = in;
    *ip++ = tensor_arg(c, "input", x);
    *ip++ = packed ? tensor_arg(c, "packed_weight", wt) : tensor_arg(c, "weight", w);
    *ip++ = b != EIR_NO_VALUE ? tensor_arg(c, "bias", b) : none_arg("bias");
    if (packed) *ip++ = (eir_named_arg){"out_features", {.kind = EIR_ARG_INT, .u.i = g->values[w].meta.sizes[0].value}, 1};
    if (pt.a.kind != EIR_ACT_NONE) *ip++ = (eir_named_arg){"activation", {.kind = EIR_ARG_STRING, .u.s = act_name(pt.a.kind)}, 1};
    if (pt.a.kind == EIR_ACT_HARDTANH) {
        *ip++ = (eir_named_arg){"min", {.kind = EIR_ARG_FLOAT, .u.f = pt.a.lo}, 1};
        *ip++ = (eir_named_arg){"max", {.kind = EIR_ARG_FLOAT, .u.f = pt.a.hi}, 1};
    }
    uint32_t nin = (uint32_t)(ip - in);
    /* the transpose goes too when only this call read it */
    uint32_t tv = tnode >= 0 ? eir_node_output_value(&g->nodes[tnode], 0) : EIR_NO_VALUE;
    bool drop_t = tnode >= 0 && sole_user(c, tv) == (int32_t)n;
    const char *tname = drop_t ? g->nodes[tnode].name : NULL;
    st = packed ? replace(c, &pt, "torch.ops.eir_cpu.linear_packed.default", "eir_cpu_linear_packed", in, nin)
                : replace(c, &pt, "torch.ops.eir_cpu.linear.default", "eir_cpu_linear", in, nin);
    if (st) return st;
    if (drop_t) {
        g = c->g;
        for (uint32_t k = 0; k < g->num_nodes; k++)
            if (g->nodes[k].name && tname && !strcmp(g->nodes[k].name, tname)) {
                if (!eir_graph_num_uses(g, eir_node_output_value(&g->nodes[k], 0)) && (st = eir_graph_erase_node(c->p, g, k)))
                    return st;
                break;
            }
    }
    *done = true;
    return EIR_OK;
}

/* ---- (d) attention as run_decompositions() writes it ----
 *
 * aten.scaled_dot_product_attention (math form, no dropout, not causal, no
 * GQA) decomposes into
 *
 *   qs = mul.Scalar(q, a); ks = mul.Scalar(permute(k, [.., -1, -2]), b)
 *   s  = view(bmm(view(expand(qs)), view(expand(ks))))    [+ add.Tensor(s, mask)]
 *        (a clone before a view where the view needs contiguous memory)
 *   p  = _softmax(s, -1, False)
 *   p' = where(logical_not(any(logical_not(eq(s, -inf)), -1, True)), full_like(p, 0), p)
 *   o  = view(bmm(view(expand(p')), view(expand(v))))
 *
 * (rows whose scores are all -inf give 0: torch's safe softmax). It becomes
 * eir_cpu::attention(q, k, v, mask, a * b) when q, k, v, the scores and o
 * have one rank and the same batch dims (no broadcast), every tensor is
 * float32, and every intermediate is read only inside the pattern. */

#define T_BMM "torch.ops.aten.bmm.default"
#define ATT_MAX 48

typedef struct nodeset {
    uint32_t n[ATT_MAX];
    uint32_t len;
    bool full;
} nodeset;

static void set_add(nodeset *s, int32_t n) {
    if (n < 0) return;
    for (uint32_t i = 0; i < s->len; i++)
        if (s->n[i] == (uint32_t)n) return;
    if (s->len < ATT_MAX) s->n[s->len++] = (uint32_t)n;
    else s->full = true;
}

static bool set_has(const nodeset *s, uint32_t n) {
    for (uint32_t i = 0; i < s->len; i++)
        if (s->n[i] == n) return true;
    return false;
}

/* The node defining v when its target is `target` (any target: NULL), else NULL. */
static const eir_node *def_of(const bctx *c, uint32_t v, const char *target) {
    if (v == EIR_NO_VALUE || v >= c->g->num_values || c->g->values[v].producer < 0) return NULL;
    const eir_node *nd = &c->g->nodes[c->g->values[v].producer];
    return !target || !strcmp(nd->target, target) ? nd : NULL;
}

static bool same_dim(const eir_symint *x, const eir_symint *y) {
    return x->is_expr == y->is_expr && (x->is_expr ? x->expr == y->expr : x->value == y->value);
}

static uint32_t rank_of(const bctx *c, uint32_t v) { return c->g->values[v].meta.rank; }
static const eir_symint *dim_of(const bctx *c, uint32_t v, uint32_t d) { return &c->g->values[v].meta.sizes[d]; }

/* the same sizes */
static bool same_sizes(const bctx *c, uint32_t x, uint32_t y) {
    if (rank_of(c, x) != rank_of(c, y)) return false;
    for (uint32_t d = 0; d < rank_of(c, x); d++)
        if (!same_dim(dim_of(c, x, d), dim_of(c, y, d))) return false;
    return true;
}

/* Back from v through view / _unsafe_view / reshape / clone and expands
 * that broadcast nothing (float32 all along), adding their calls to s, to the
 * first tensor defined by a call of `target` (target NULL: the first of rank
 * `rank` that is no such expand): a tensor whose elements, in row-major
 * order, v holds. */
static uint32_t through_views(const bctx *c, uint32_t v, nodeset *s, const char *target, uint32_t rank) {
    for (int k = 0; k < 8; k++) {
        const eir_node *nd = def_of(c, v, NULL);
        if (!nd) break;
        bool expand = !strcmp(nd->target, "torch.ops.aten.expand.default");
        uint32_t in = tensor_of(arg_named(nd, "self"));
        bool noop = expand && is_f32(c, in, 0) && same_sizes(c, in, v);
        if (!noop && (target ? !strcmp(nd->target, target) : rank_of(c, v) == rank)) break;
        if (!noop && strcmp(nd->target, "torch.ops.aten.view.default") &&
            strcmp(nd->target, "torch.ops.aten._unsafe_view.default") && strcmp(nd->target, "torch.ops.aten.reshape.default") &&
            strcmp(nd->target, "torch.ops.aten.clone.default"))
            break;
        if (!is_f32(c, in, 0)) break;
        set_add(s, c->g->values[v].producer);
        v = in;
    }
    return v;
}

/* v's batch dims (all but the last two) are those of ref, and both have rank r */
static bool same_batch(const bctx *c, uint32_t v, uint32_t ref, uint32_t r) {
    if (rank_of(c, v) != r || rank_of(c, ref) != r) return false;
    for (uint32_t d = 0; d + 2 < r; d++)
        if (!same_dim(dim_of(c, v, d), dim_of(c, ref, d))) return false;
    return true;
}

/* Value v (3-d) is [batch, rows, cols] with batch the product of ref's
 * batch dims (rank r): the views between them only flatten the batch. */
static bool batched_as(const bctx *c, uint32_t v, uint32_t ref, uint32_t r, const eir_symint *rows, const eir_symint *cols) {
    if (!is_f32(c, v, 3) || !same_dim(dim_of(c, v, 1), rows) || !same_dim(dim_of(c, v, 2), cols)) return false;
    if (r == 3) return same_dim(dim_of(c, v, 0), dim_of(c, ref, 0));
    int64_t b = 1;
    for (uint32_t d = 0; d + 2 < r; d++) {
        if (dim_of(c, ref, d)->is_expr) return false;
        b *= dim_of(c, ref, d)->value;
    }
    return !dim_of(c, v, 0)->is_expr && dim_of(c, v, 0)->value == b;
}

/* Every node reading v is in s, and v is no graph output. */
static bool read_within(const bctx *c, uint32_t v, const nodeset *s) {
    for (uint32_t i = 0; i < c->g->num_outputs; i++)
        if (reads_value(&c->g->outputs[i], v)) return false;
    for (uint32_t n = 0; n < c->g->num_nodes; n++) {
        const eir_node *nd = &c->g->nodes[n];
        for (uint32_t i = 0; i < nd->num_inputs; i++)
            if (reads_value(&nd->inputs[i].arg, v) && !set_has(s, n)) return false;
    }
    return true;
}

/* t is permute(x, dims) with dims the identity but the last two swapped; x of rank r */
static uint32_t swapped_last2(const bctx *c, uint32_t t, nodeset *s) {
    const eir_node *nd = def_of(c, t, "torch.ops.aten.permute.default");
    if (!nd) return EIR_NO_VALUE;
    uint32_t x = tensor_of(arg_named(nd, "self"));
    const eir_arg *d = arg_named(nd, "dims");
    if (!is_f32(c, x, 0) || !d || (d->kind != EIR_ARG_INTS && d->kind != EIR_ARG_SYM_INTS)) return EIR_NO_VALUE;
    uint32_t r = rank_of(c, x);
    if (d->u.list.n != r || r < 2) return EIR_NO_VALUE;
    for (uint32_t i = 0; i < r; i++) {
        int64_t di;
        if (!int_of(&d->u.list.items[i], 0, &di)) return EIR_NO_VALUE;
        if (di < 0) di += r;
        int64_t want = i == r - 2 ? (int64_t)r - 1 : i == r - 1 ? (int64_t)r - 2 : (int64_t)i;
        if (di != want) return EIR_NO_VALUE;
    }
    set_add(s, c->g->values[t].producer);
    return x;
}

/* (d) at node n, the second bmm (weights times values); *first receives
 * the position of the pattern's first call, where the fused call now is or
 * before it */
static eir_status try_attention(bctx *c, uint32_t n, bool *done, uint32_t *first) {
    *done = false;
    eir_graph *g = c->g;
    const eir_node *nd = &g->nodes[n];
    if (strcmp(nd->target, T_BMM)) return EIR_OK;
    uint32_t o3 = eir_node_output_value(nd, 0);
    if (!is_f32(c, o3, 3)) return EIR_OK;
    nodeset s = {{0}, 0, false};
    set_add(&s, (int32_t)n);
    uint32_t P = through_views(c, tensor_of(arg_named(nd, "self")), &s, "torch.ops.aten.where.self", 0);
    /* p' = where(cond, full_like(p, 0), p) */
    const eir_node *wh = def_of(c, P, "torch.ops.aten.where.self");
    if (!wh) return EIR_OK;
    uint32_t cond = tensor_of(arg_named(wh, "condition")), zeros = tensor_of(arg_named(wh, "self")),
             sm = tensor_of(arg_named(wh, "other"));
    const eir_node *fl = def_of(c, zeros, "torch.ops.aten.full_like.default");
    const eir_node *smn = def_of(c, sm, "torch.ops.aten._softmax.default");
    double fv = 1;
    int64_t dim = 0;
    bool half = true, keep = false;
    if (!fl || !smn || tensor_of(arg_named(fl, "self")) != sm || !number_of(arg_named(fl, "fill_value"), &fv) || fv != 0 ||
        !is_f32(c, zeros, 0) || !same_sizes(c, zeros, sm))
        return EIR_OK;
    uint32_t S0 = tensor_of(arg_named(smn, "self"));
    if (!is_f32(c, S0, 0) || !is_f32(c, sm, 0) || !is_f32(c, P, 0)) return EIR_OK;
    uint32_t r = rank_of(c, S0);
    if (r < 3 || !same_sizes(c, S0, sm) || !same_sizes(c, P, sm)) return EIR_OK;
    if (!int_of(arg_named(smn, "dim"), 0, &dim) || (dim != -1 && dim != (int64_t)r - 1) ||
        !bool_of(arg_named(smn, "half_to_float"), &half) || half)
        return EIR_OK;
    /* cond = logical_not(any(logical_not(eq(s, -inf)), -1, True)) */
    const eir_node *n1 = def_of(c, cond, "torch.ops.aten.logical_not.default");
    const eir_node *an = n1 ? def_of(c, tensor_of(arg_named(n1, "self")), "torch.ops.aten.any.dim") : NULL;
    const eir_node *n2 = an ? def_of(c, tensor_of(arg_named(an, "self")), "torch.ops.aten.logical_not.default") : NULL;
    const eir_node *eq = n2 ? def_of(c, tensor_of(arg_named(n2, "self")), "torch.ops.aten.eq.Scalar") : NULL;
    double ninf = 0;
    if (!eq || tensor_of(arg_named(eq, "self")) != S0 || !number_of(arg_named(eq, "other"), &ninf) ||
        !(isinf(ninf) && ninf < 0))
        return EIR_OK;
    if (!int_of(arg_named(an, "dim"), 0, &dim) || (dim != -1 && dim != (int64_t)r - 1) ||
        !bool_of(arg_named(an, "keepdim"), &keep) || !keep)
        return EIR_OK;
    const eir_node *pat[] = {wh, fl, smn, n1, an, n2, eq};
    for (size_t i = 0; i < sizeof pat / sizeof *pat; i++) set_add(&s, (int32_t)(pat[i] - g->nodes));
    /* s = scores [+ mask] */
    uint32_t mask = EIR_NO_VALUE, sc = S0;
    const eir_node *ad = def_of(c, S0, "torch.ops.aten.add.Tensor");
    if (ad) {
        double alpha = 1;
        const eir_arg *al = arg_named(ad, "alpha");
        if (al && (!number_of(al, &alpha) || alpha != 1)) return EIR_OK;
        sc = tensor_of(arg_named(ad, "self"));
        mask = tensor_of(arg_named(ad, "other"));
        if (!is_f32(c, sc, 0) || !is_f32(c, mask, 0) || !same_sizes(c, sc, S0) || rank_of(c, mask) > r) return EIR_OK;
        for (uint32_t d = 0; d < rank_of(c, mask); d++) {
            const eir_symint *md = dim_of(c, mask, rank_of(c, mask) - 1 - d), *sd = dim_of(c, S0, r - 1 - d);
            if (!(!md->is_expr && md->value == 1) && !same_dim(md, sd)) return EIR_OK;
        }
        set_add(&s, (int32_t)(ad - g->nodes));
    }
    const eir_node *b1 = def_of(c, through_views(c, sc, &s, T_BMM, 0), T_BMM);
    if (!b1) return EIR_OK;
    set_add(&s, (int32_t)(b1 - g->nodes));
    uint32_t qs = through_views(c, tensor_of(arg_named(b1, "self")), &s, "torch.ops.aten.mul.Scalar", 0);
    uint32_t ks = through_views(c, tensor_of(arg_named(b1, "mat2")), &s, "torch.ops.aten.mul.Scalar", 0);
    uint32_t V = through_views(c, tensor_of(arg_named(nd, "mat2")), &s, NULL, r);
    const eir_node *mq = def_of(c, qs, "torch.ops.aten.mul.Scalar"), *mk = def_of(c, ks, "torch.ops.aten.mul.Scalar");
    double a, b;
    if (!mq || !mk || !number_of(arg_named(mq, "other"), &a) || !number_of(arg_named(mk, "other"), &b)) return EIR_OK;
    set_add(&s, (int32_t)(mq - g->nodes));
    set_add(&s, (int32_t)(mk - g->nodes));
    uint32_t Q = tensor_of(arg_named(mq, "self"));
    uint32_t K = swapped_last2(c, tensor_of(arg_named(mk, "self")), &s);
    if (!is_f32(c, Q, r) || K == EIR_NO_VALUE || !is_f32(c, K, r) || !is_f32(c, V, r) || !is_f32(c, qs, r) ||
        !is_f32(c, ks, r))
        return EIR_OK;
    /* the result: bmm's output viewed back to the batch dims */
    uint32_t R = o3;
    if (r != 3) {
        int32_t u = sole_user(c, o3);
        const eir_node *vw = u >= 0 ? &g->nodes[u] : NULL;
        if (!vw || (strcmp(vw->target, "torch.ops.aten.view.default") && strcmp(vw->target, "torch.ops.aten._unsafe_view.default") &&
                    strcmp(vw->target, "torch.ops.aten.reshape.default")))
            return EIR_OK;
        R = eir_node_output_value(vw, 0);
        set_add(&s, u);
    }
    /* shapes: q [.., L, E], k [.., S, E], v [.., S, Ev], scores [.., L, S], result [.., L, Ev] */
    if (!is_f32(c, R, r) || !same_batch(c, K, Q, r) || !same_batch(c, V, Q, r) || !same_batch(c, S0, Q, r) ||
        !same_batch(c, R, Q, r) || !same_sizes(c, qs, Q) || !same_dim(dim_of(c, K, r - 1), dim_of(c, Q, r - 1)) ||
        !same_dim(dim_of(c, S0, r - 2), dim_of(c, Q, r - 2)) || !same_dim(dim_of(c, S0, r - 1), dim_of(c, K, r - 2)) ||
        !same_dim(dim_of(c, V, r - 2), dim_of(c, K, r - 2)) || !same_dim(dim_of(c, R, r - 2), dim_of(c, Q, r - 2)) ||
        !same_dim(dim_of(c, R, r - 1), dim_of(c, V, r - 1)))
        return EIR_OK;
    /* both products on [batch, .., ..]: q k^T [B, L, E] x [B, E, S], p v [B, L, S] x [B, S, Ev] */
    const eir_symint *dL = dim_of(c, Q, r - 2), *dE = dim_of(c, Q, r - 1), *dS = dim_of(c, K, r - 2), *dEv = dim_of(c, V, r - 1);
    if (!batched_as(c, tensor_of(arg_named(b1, "self")), Q, r, dL, dE) ||
        !batched_as(c, tensor_of(arg_named(b1, "mat2")), Q, r, dE, dS) ||
        !batched_as(c, eir_node_output_value(b1, 0), Q, r, dL, dS) ||
        !batched_as(c, tensor_of(arg_named(nd, "self")), Q, r, dL, dS) ||
        !batched_as(c, tensor_of(arg_named(nd, "mat2")), Q, r, dS, dEv) || !batched_as(c, o3, Q, r, dL, dEv))
        return EIR_OK;
    if (s.full) return EIR_OK;
    /* every intermediate is read inside the pattern only */
    for (uint32_t i = 0; i < s.len; i++) {
        const eir_node *m = &g->nodes[s.n[i]];
        for (uint32_t k = 0; k < m->num_outputs; k++) {
            uint32_t v = eir_node_output_value(m, k);
            if (v != EIR_NO_VALUE && v != R && !read_within(c, v, &s)) return EIR_OK;
        }
    }
    uint32_t last = 0, lo = n;
    for (uint32_t i = 0; i < s.len; i++) {
        if (s.n[i] > last) last = s.n[i];
        if (s.n[i] < lo) lo = s.n[i];
    }
    eir_tensor_meta meta = g->values[R].meta;
    uint32_t y = eir_graph_add_value(c->p, g, EIR_VALUE_TENSOR, &meta, "eir_cpu_attention");
    if (y == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_named_arg in[5] = {
        tensor_arg(c, "query", Q), tensor_arg(c, "key", K), tensor_arg(c, "value", V),
        mask != EIR_NO_VALUE ? tensor_arg(c, "attn_mask", mask) : none_arg("attn_mask"),
        {"scale", {.kind = EIR_ARG_FLOAT, .u.f = a * b}, 1},
    };
    eir_arg out = {.kind = EIR_ARG_TENSOR, .value = y, .name = g->values[y].name};
    eir_status st = eir_graph_insert_node(c->p, g, last + 1, "torch.ops.eir_cpu.attention.default", 5, in, 1, &out, NULL);
    if (st) return st;
    if ((st = eir_graph_replace_uses(c->p, g, R, y, NULL))) return st;
    bool *erase = calloc(g->num_nodes ? g->num_nodes : 1, sizeof *erase);
    if (!erase) return eir_fail(c->p, EIR_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < s.len; i++) erase[s.n[i]] = true;     /* all before last + 1 */
    st = eir_graph_erase_nodes(c->p, g, erase);
    free(erase);
    if (!st) *done = true, *first = lo;
    return st;
}

/* ---- (e) convolution chains in the blocked layout ---- */

#define T_CONV_FUSED "torch.ops.eir_cpu.conv2d.default"
#define T_CONV_BLK "torch.ops.eir_cpu.conv2d_blocked.default"
#define T_TO_BLK "torch.ops.eir_cpu.to_blocked.default"
#define T_FROM_BLK "torch.ops.eir_cpu.from_blocked.default"
#define T_POOL_BLK "torch.ops.eir_cpu.max_pool2d_blocked.default"

/* a float32 tensor value of `rank` dims, every size a literal */
static bool literal_f32(const bctx *c, uint32_t v, uint32_t rank) {
    if (!is_f32(c, v, rank)) return false;
    for (uint32_t d = 0; d < rank; d++)
        if (c->g->values[v].meta.sizes[d].is_expr) return false;
    return true;
}

static int64_t size_of(const bctx *c, uint32_t v, uint32_t d) { return c->g->values[v].meta.sizes[d].value; }

/* A weight the program never writes: a parameter, buffer or tensor constant of the root graph
 * that no output spec mutates and no in-place, out= or mutating call reads. */
static bool const_weight(const bctx *c, uint32_t v) { return unwritten_input(c, v, false) != NULL; }

/* The blocked form of NCHW value v available before node pos: the input of the from_blocked
 * that made v, or the result of a to_blocked of v; EIR_NO_VALUE if none. */
static uint32_t blocked_twin(const bctx *c, uint32_t v, uint32_t pos, int64_t B) {
    int32_t pr = c->g->values[v].producer;
    if (pr >= 0 && !strcmp(c->g->nodes[pr].target, T_FROM_BLK)) {
        uint32_t z = tensor_of(arg_named(&c->g->nodes[pr], "input"));
        if (z != EIR_NO_VALUE && is_f32(c, z, 5) && size_of(c, z, 4) == B) return z;
    }
    for (uint32_t n = 0; n < pos && n < c->g->num_nodes; n++) {
        const eir_node *nd = &c->g->nodes[n];
        int64_t b = 0;
        if (!strcmp(nd->target, T_TO_BLK) && tensor_of(arg_named(nd, "input")) == v &&
            int_of(arg_named(nd, "block"), 0, &b) && b == B)
            return eir_node_output_value(nd, 0);
    }
    return EIR_NO_VALUE;
}

/* a new 5-d value: NCHW value v blocked by B */
static uint32_t blocked_value(bctx *c, uint32_t v, int64_t B, const char *hint) {
    const eir_value *val = &c->g->values[v];
    int64_t sz[5] = {size_of(c, v, 0), (size_of(c, v, 1) + B - 1) / B, size_of(c, v, 2), size_of(c, v, 3), B};
    eir_symint sizes[5], strides[5];
    int64_t st = 1;
    for (int d = 5; d-- > 0;) {
        sizes[d] = (eir_symint){.value = sz[d]};
        strides[d] = (eir_symint){.value = st};
        st *= sz[d];
    }
    eir_tensor_meta m = val->meta;
    m.rank = 5;
    m.sizes = sizes;
    m.strides = strides;
    m.storage_offset = (eir_symint){.value = 0};
    m.layout = EIR_LAYOUT_STRIDED;
    m.requires_grad = false;
    return eir_graph_add_value(c->p, c->g, EIR_VALUE_TENSOR, &m, hint);
}

/* Insert `target`(v, k) (to_blocked: k the block; from_blocked: k the channels) at pos, its result
 * a new value with meta like `like` (from_blocked) or v blocked by k (to_blocked) */
static eir_status insert_layout(bctx *c, uint32_t pos, bool to, uint32_t v, int64_t k, uint32_t like, uint32_t *out) {
    uint32_t y = to ? blocked_value(c, v, k, "eir_cpu_to_blocked")
                    : eir_graph_add_value(c->p, c->g, EIR_VALUE_TENSOR, &c->g->values[like].meta, "eir_cpu_from_blocked");
    if (y == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_named_arg in[2] = {tensor_arg(c, "input", v), {to ? "block" : "channels", {.kind = EIR_ARG_INT, .u.i = k}, 1}};
    eir_arg o = {.kind = EIR_ARG_TENSOR, .value = y, .name = c->g->values[y].name};
    *out = y;
    return eir_graph_insert_node(c->p, c->g, pos, to ? T_TO_BLK : T_FROM_BLK, 2, in, 1, &o, NULL);
}

/* the block of an NCHW tensor of C channels in layout L (eir_dnnl_conv_layout) */
static int64_t block_of(int64_t L, int64_t C) { return L == EIR_DNNL_NHWC ? C : L; }

static void shift(uint32_t *idx, uint32_t n, uint32_t pos) {
    for (uint32_t i = 0; i < n; i++)
        if (idx[i] >= pos) idx[i]++;
}

/* a switch read from the environment: 1 when set and not "0", 0 when "0", dflt when unset */
static bool env_switch(const char *name, bool dflt) {
    const char *e = getenv(name);
    return e && e[0] ? strcmp(e, "0") != 0 : dflt;
}

/* depthwise convolutions in chains (EIR_BLOCKED_DW=0: not) */
static bool blocked_dw_on(void) { return env_switch("EIR_BLOCKED_DW", true); }

/* whether value v is read by an eir_cpu::conv2d with groups 1 or depthwise and a constant
 * weight (one the chain would take in) */
static bool feeds_conv(const bctx *c, uint32_t v) {
    for (uint32_t n = 0; n < c->g->num_nodes; n++) {
        const eir_node *nd = &c->g->nodes[n];
        if (strcmp(nd->target, T_CONV_FUSED) || tensor_of(arg_named(nd, "input")) != v) continue;
        uint32_t w = tensor_of(arg_named(nd, "weight")), y = eir_node_output_value(nd, 0);
        int64_t groups = 0;
        if (!int_of(arg_named(nd, "groups"), 1, &groups) || !literal_f32(c, v, 4) || !literal_f32(c, w, 4) ||
            !literal_f32(c, y, 4) || !const_weight(c, w))
            continue;
        if (groups == 1 || (blocked_dw_on() && groups == size_of(c, v, 1) && groups == size_of(c, y, 1) &&
                            size_of(c, w, 1) == 1))
            return true;
    }
    return false;
}

/* eir_cpu::conv2d at node n (groups 1 or depthwise, a constant weight, literal sizes) and the residual add and
 * activation after it, as eir_cpu::conv2d_blocked with a blocked result, read back to NCHW by a
 * from_blocked for whatever is not a blocked convolution */
static eir_status try_blocked(bctx *c, uint32_t n, int64_t L, bool *done) {
    *done = false;
    eir_graph *g = c->g;
    const eir_node *nd = &g->nodes[n];
    if (strcmp(nd->target, T_CONV_FUSED)) return EIR_OK;
    uint32_t x = tensor_of(arg_named(nd, "input")), w = tensor_of(arg_named(nd, "weight"));
    uint32_t y = eir_node_output_value(nd, 0);
    const eir_arg *barg = arg_named(nd, "bias");
    uint32_t b = is_none(barg) ? EIR_NO_VALUE : tensor_of(barg);
    int64_t groups = 0, st[2], pd[2], dl[2];
    if (!int_of(arg_named(nd, "groups"), 1, &groups) || !ints2_of(arg_named(nd, "stride"), 1, st) ||
        !ints2_of(arg_named(nd, "padding"), 0, pd) || !ints2_of(arg_named(nd, "dilation"), 1, dl))
        return EIR_OK;
    if (!literal_f32(c, x, 4) || !literal_f32(c, w, 4) || !literal_f32(c, y, 4) || !const_weight(c, w) ||
        (!is_none(barg) && !is_f32(c, b, 1)))
        return EIR_OK;
    /* groups 1, or depthwise (groups == C == O, a (C, 1, KH, KW) weight: eir's kernel on the
     * chain's layout, see fused.c) unless EIR_BLOCKED_DW=0 */
    bool dw = groups != 1 && groups == size_of(c, x, 1) && groups == size_of(c, y, 1) && size_of(c, w, 1) == 1;
    if (groups != 1 && (!dw || !blocked_dw_on())) return EIR_OK;
    const eir_arg *aa = arg_named(nd, "activation");
    const char *an = aa && aa->kind == EIR_ARG_STRING && aa->u.s ? aa->u.s : "none";
    act a = {eir_backend_activation(an), 0, 0};
    if (a.kind < 0) return EIR_OK;
    if (a.kind == EIR_ACT_HARDTANH &&
        (!number_of(arg_named(nd, "min"), &a.lo) || !number_of(arg_named(nd, "max"), &a.hi)))
        return EIR_OK;
    /* the residual add (alpha 1) of a same-sized float32 tensor, then an activation */
    uint32_t idx[8] = {n, 0, 0, 0, 0, 0, 0, 0}, nidx = 1, result = y, r = EIR_NO_VALUE;
    int32_t u = a.kind == EIR_ACT_NONE ? sole_user(c, y) : -1;
    /* add_ too when it writes into the convolution's result (which nothing else reads) */
    bool add_ = u >= 0 && !strcmp(g->nodes[u].target, "torch.ops.aten.add_.Tensor") &&
                tensor_of(arg_named(&g->nodes[u], "self")) == y;
    if (u >= 0 && (add_ || !strcmp(g->nodes[u].target, "torch.ops.aten.add.Tensor"))) {
        const eir_node *ad = &g->nodes[u];
        uint32_t s0 = tensor_of(arg_named(ad, "self")), s1 = tensor_of(arg_named(ad, "other"));
        double alpha = 1;
        const eir_arg *al = arg_named(ad, "alpha");
        uint32_t o = eir_node_output_value(ad, 0), other = s0 == y ? s1 : s0;
        if ((!al || (number_of(al, &alpha) && alpha == 1)) && (s0 == y) != (s1 == y) && literal_f32(c, other, 4) &&
            literal_f32(c, o, 4)) {
            bool same = true;
            for (uint32_t d = 0; d < 4; d++)
                same = same && size_of(c, other, d) == size_of(c, y, d) && size_of(c, o, d) == size_of(c, y, d);
            if (same) {
                r = other;
                result = o;
                idx[nidx++] = (uint32_t)u;
                pattern pt = {{0}, 0, o, {EIR_ACT_NONE, 0, 0}};
                take_act(c, &pt);
                if (pt.nnodes && nidx + pt.nnodes <= sizeof idx / sizeof *idx) {
                    a = pt.a;
                    for (uint32_t i = 0; i < pt.nnodes; i++) idx[nidx++] = pt.nodes[i];
                    result = pt.result;
                }
            }
        }
    }
    int64_t C = size_of(c, x, 1), O = size_of(c, y, 1), B = block_of(L, O);
    /* a 1 x 1 convolution joins a chain, it does not start one (on NCHW it is a GEMM with no
     * im2col: converting its input and result costs more than it gains; measured on
     * MobileNetV2 with the depthwise ones out of the chain, where each projection and
     * expansion pair would start one: 1.27x slower). EIR_BLOCKED_1X1=1: it does;
     * =feeds: when its result feeds another convolution the chain takes. */
    if (size_of(c, w, 2) * size_of(c, w, 3) == 1 && blocked_twin(c, x, n, block_of(L, C)) == EIR_NO_VALUE) {
        const char *e = getenv("EIR_BLOCKED_1X1");
        bool always = e && !strcmp(e, "1"), feeds = e && !strcmp(e, "feeds");
        if (!always && !(feeds && feeds_conv(c, result))) return EIR_OK;
    }
    /* nor does a depthwise one (measured on MobileNetV3: the conversions around it cost more
     * than oneDNN's depthwise saves; EIR_BLOCKED_DW_STARTS=1: it does) */
    if (dw && !env_switch("EIR_BLOCKED_DW_STARTS", false) && blocked_twin(c, x, n, block_of(L, C)) == EIR_NO_VALUE)
        return EIR_OK;
    /* the input: its blocked twin, NCHW for fewer channels than a fixed block or at most
     * EIR_CONV_SMALL_C of them (a stem, whose kernel reads NCHW as cheaply; EIR_SMALL_C_CONV=0:
     * not), or blocked here */
    uint32_t xin = blocked_twin(c, x, n, block_of(L, C));
    eir_status st_ = EIR_OK;
    if (xin == EIR_NO_VALUE) {
        if (((L > 0 && C < L) || (C <= EIR_CONV_SMALL_C && env_switch("EIR_SMALL_C_CONV", true))) && !dw) xin = x;
        else {
            if ((st_ = insert_layout(c, n, true, x, block_of(L, C), 0, &xin))) return st_;
            shift(idx, nidx, n);
        }
    }
    uint32_t rin = EIR_NO_VALUE;
    if (r != EIR_NO_VALUE) {
        uint32_t at = idx[1];               /* the add: r is defined before it */
        rin = blocked_twin(c, r, at, B);
        if (rin == EIR_NO_VALUE) {
            if ((st_ = insert_layout(c, at, true, r, B, 0, &rin))) return st_;
            shift(idx, nidx, at);
        }
    }
    uint32_t last = 0;
    for (uint32_t i = 0; i < nidx; i++)
        if (idx[i] > last) last = idx[i];
    nd = &g->nodes[idx[0]];
    uint32_t yb = blocked_value(c, y, B, "eir_cpu_conv2d_blocked");
    if (yb == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_arg ilist[3][2];
    int64_t *vals[3] = {st, pd, dl};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 2; i++) ilist[k][i] = (eir_arg){.kind = EIR_ARG_INT, .u.i = vals[k][i]};
    eir_named_arg in[12] = {
        tensor_arg(c, "input", xin), tensor_arg(c, "weight", w),
        b != EIR_NO_VALUE ? tensor_arg(c, "bias", b) : none_arg("bias"),
        {"stride", {.kind = EIR_ARG_INTS, .u.list = {2, ilist[0], NULL}}, 1},
        {"padding", {.kind = EIR_ARG_INTS, .u.list = {2, ilist[1], NULL}}, 1},
        {"dilation", {.kind = EIR_ARG_INTS, .u.list = {2, ilist[2], NULL}}, 1},
        {"groups", {.kind = EIR_ARG_INT, .u.i = groups}, 1},
        {"block", {.kind = EIR_ARG_INT, .u.i = B}, 1},
        {"activation", {.kind = EIR_ARG_STRING, .u.s = act_name(a.kind)}, 1},
        a.kind == EIR_ACT_HARDTANH ? (eir_named_arg){"min", {.kind = EIR_ARG_FLOAT, .u.f = a.lo}, 1} : none_arg("min"),
        a.kind == EIR_ACT_HARDTANH ? (eir_named_arg){"max", {.kind = EIR_ARG_FLOAT, .u.f = a.hi}, 1} : none_arg("max"),
        rin != EIR_NO_VALUE ? tensor_arg(c, "residual", rin) : none_arg("residual"),
    };
    eir_arg out = {.kind = EIR_ARG_TENSOR, .value = yb, .name = g->values[yb].name};
    if ((st_ = eir_graph_insert_node(c->p, g, last + 1, T_CONV_BLK, 12, in, 1, &out, NULL))) return st_;
    uint32_t yn;
    if ((st_ = insert_layout(c, last + 2, false, yb, O, result, &yn))) return st_;
    if ((st_ = eir_graph_replace_uses(c->p, g, result, yn, NULL))) return st_;
    bool *erase = calloc(g->num_nodes ? g->num_nodes : 1, sizeof *erase);
    if (!erase) return eir_fail(c->p, EIR_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < nidx; i++) erase[idx[i]] = true;
    st_ = eir_graph_erase_nodes(c->p, g, erase);
    free(erase);
    if (!st_) *done = true;
    return st_;
}

/* Squeeze-excite on the chain's layout (EIR_BLOCKED_SE=0: not): at node n,
 *  - aten.mean.dim(v, [2, 3] or [-1, -2], keepdim=True) or aten.adaptive_avg_pool2d(v, [1, 1])
 *    of a value v the chain has blocked (z):
 *    the mean of z over its dims 2 and 3, (N, ceil(C / B), 1, 1, B), read back by a
 *    from_blocked (C values: as cheap as NCHW);
 *  - aten.mul.Tensor(v, s) (either order) with s (N, C, 1, 1): z times to_blocked(s), the
 *    broadcast over the pixels the same in both layouts (padding lanes 0 x 0), its result
 *    blocked, so that the convolution after it joins the chain.
 * Each element is the same product; the mean's sums run in another order than on NCHW. */
static eir_status try_blocked_se(bctx *c, uint32_t n, int64_t L, bool *done) {
    *done = false;
    eir_graph *g = c->g;
    const eir_node *nd = &g->nodes[n];
    bool pool = !strcmp(nd->target, "torch.ops.aten.adaptive_avg_pool2d.default");
    bool mean = pool || !strcmp(nd->target, "torch.ops.aten.mean.dim");
    bool mul = !strcmp(nd->target, "torch.ops.aten.mul.Tensor");
    if ((!mean && !mul) || !env_switch("EIR_BLOCKED_SE", true)) return EIR_OK;
    uint32_t y = eir_node_output_value(nd, 0);
    if (!literal_f32(c, y, 4)) return EIR_OK;
    int64_t N = size_of(c, y, 0), C = size_of(c, y, 1), B = block_of(L, C);
    uint32_t v = EIR_NO_VALUE, sc = EIR_NO_VALUE, z = EIR_NO_VALUE;
    if (pool) { /* adaptive_avg_pool2d(v, [1, 1]): the mean over H and W */
        v = tensor_of(arg_named(nd, "self"));
        int64_t os[2];
        if (!literal_f32(c, v, 4) || !ints2_of(arg_named(nd, "output_size"), 0, os) || os[0] != 1 || os[1] != 1 ||
            size_of(c, v, 0) != N || size_of(c, v, 1) != C)
            return EIR_OK;
    } else if (mean) {
        v = tensor_of(arg_named(nd, "self"));
        const eir_arg *dm = arg_named(nd, "dim");
        bool keep = false;
        if (!literal_f32(c, v, 4) || !dm || (dm->kind != EIR_ARG_INTS && dm->kind != EIR_ARG_SYM_INTS) ||
            dm->u.list.n != 2 || !bool_of(arg_named(nd, "keepdim"), &keep) || !keep ||
            !is_none(arg_named(nd, "dtype")))
            return EIR_OK;
        int64_t d[2];
        for (int i = 0; i < 2; i++)
            if (!int_of(&dm->u.list.items[i], 0, &d[i])) return EIR_OK;
        for (int i = 0; i < 2; i++) d[i] = d[i] < 0 ? d[i] + 4 : d[i];
        if (!((d[0] == 2 && d[1] == 3) || (d[0] == 3 && d[1] == 2))) return EIR_OK;
        if (size_of(c, v, 0) != N || size_of(c, v, 1) != C || size_of(c, y, 2) != 1 || size_of(c, y, 3) != 1)
            return EIR_OK;
    } else {
        uint32_t s0 = tensor_of(arg_named(nd, "self")), s1 = tensor_of(arg_named(nd, "other"));
        for (int k = 0; k < 2 && z == EIR_NO_VALUE; k++) {
            uint32_t a = k ? s1 : s0, b = k ? s0 : s1;
            if (!literal_f32(c, a, 4) || !literal_f32(c, b, 4)) return EIR_OK;
            bool full = true, vec = size_of(c, b, 0) == N && size_of(c, b, 1) == C && size_of(c, b, 2) == 1 &&
                                    size_of(c, b, 3) == 1;
            for (uint32_t dd = 0; dd < 4; dd++) full = full && size_of(c, a, dd) == size_of(c, y, dd);
            if (full && vec && (z = blocked_twin(c, a, n, B)) != EIR_NO_VALUE) v = a, sc = b;
        }
    }
    if (mean) z = blocked_twin(c, v, n, B);
    if (z == EIR_NO_VALUE) return EIR_OK;
    eir_status st = EIR_OK;
    uint32_t pos = n, other = EIR_NO_VALUE;
    if (mul) {
        if ((st = insert_layout(c, pos, true, sc, B, 0, &other))) return st;
        pos++;
    }
    /* the call on the blocked operands, its result blocked (y is (N, C, 1, 1) for the mean, the
     * pixels' shape for the product) */
    uint32_t yb = blocked_value(c, y, B, mean ? "eir_cpu_mean_blocked" : "eir_cpu_mul_blocked");
    if (yb == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_arg dims[2] = {{.kind = EIR_ARG_INT, .u.i = 2}, {.kind = EIR_ARG_INT, .u.i = 3}};
    eir_named_arg in[4];
    uint32_t nin;
    if (mean) {
        in[0] = tensor_arg(c, "self", z);
        in[1] = (eir_named_arg){"dim", {.kind = EIR_ARG_INTS, .u.list = {2, dims, NULL}}, 1};
        in[2] = (eir_named_arg){"keepdim", {.kind = EIR_ARG_BOOL, .u.b = true}, 1};
        nin = 3;
    } else {
        in[0] = tensor_arg(c, "self", z);
        in[1] = tensor_arg(c, "other", other);
        nin = 2;
    }
    eir_arg out = {.kind = EIR_ARG_TENSOR, .value = yb, .name = g->values[yb].name};
    if ((st = eir_graph_insert_node(c->p, g, pos, mean ? "torch.ops.aten.mean.dim" : "torch.ops.aten.mul.Tensor", nin,
                                    in, 1, &out, NULL)))
        return st;
    pos++;
    uint32_t yn;
    if ((st = insert_layout(c, pos, false, yb, C, y, &yn))) return st;
    pos++;
    if ((st = eir_graph_replace_uses(c->p, g, y, yn, NULL))) return st;
    if ((st = eir_graph_erase_node(c->p, g, pos))) return st;   /* the NCHW call, now after them */
    *done = true;
    return EIR_OK;
}

/* Max pooling on the chain's layout: at node n, aten.max_pool2d (or max_pool2d_with_indices whose
 * indices nothing reads) of a value v the chain has blocked (z), with literal sizes:
 * eir_cpu::max_pool2d_blocked(z, ...), its result blocked, read back by a from_blocked for whatever
 * is not in the chain; a convolution after it then takes the blocked result (ResNet's stem:
 * convolution, max pool, convolution). Each element is the same maximum as on NCHW. */
static eir_status try_blocked_pool(bctx *c, uint32_t n, int64_t L, bool *done) {
    *done = false;
    eir_graph *g = c->g;
    const eir_node *nd = &g->nodes[n];
    bool with_idx = !strcmp(nd->target, "torch.ops.aten.max_pool2d_with_indices.default");
    if (!with_idx && strcmp(nd->target, "torch.ops.aten.max_pool2d.default")) return EIR_OK;
    if (!env_switch("EIR_BLOCKED_POOL", true)) return EIR_OK;
    uint32_t v = tensor_of(arg_named(nd, "self")), y = eir_node_output_value(nd, 0);
    if (v == EIR_NO_VALUE || y == EIR_NO_VALUE || !literal_f32(c, v, 4) || !literal_f32(c, y, 4)) return EIR_OK;
    if (with_idx) {
        uint32_t idx = eir_node_output_value(nd, 1);
        if (idx != EIR_NO_VALUE && eir_graph_num_uses(g, idx)) return EIR_OK;
    }
    int64_t ks[2], st[2], pd[2], dl[2];
    bool ceil_mode = false;
    const eir_arg *sa = arg_named(nd, "stride"), *ca = arg_named(nd, "ceil_mode");
    if (!ints2_of(arg_named(nd, "kernel_size"), 0, ks) || !arg_named(nd, "kernel_size") ||
        !ints2_of(arg_named(nd, "padding"), 0, pd) || !ints2_of(arg_named(nd, "dilation"), 1, dl) ||
        (ca && !bool_of(ca, &ceil_mode)))
        return EIR_OK;
    if (sa && (sa->kind == EIR_ARG_INTS || sa->kind == EIR_ARG_SYM_INTS) && sa->u.list.n == 0) st[0] = ks[0], st[1] = ks[1];
    else if (!ints2_of(sa, 0, st)) return EIR_OK;
    else if (!sa) st[0] = ks[0], st[1] = ks[1];
    for (int i = 0; i < 2; i++)
        if (ks[i] < 1 || st[i] < 1 || pd[i] < 0 || dl[i] < 1 || 2 * pd[i] > ks[i]) return EIR_OK;
    int64_t C = size_of(c, v, 1), B = block_of(L, C);
    if (size_of(c, y, 0) != size_of(c, v, 0) || size_of(c, y, 1) != C) return EIR_OK;
    uint32_t z = blocked_twin(c, v, n, B);
    if (z == EIR_NO_VALUE) return EIR_OK;       /* a pool continues a chain, it does not start one */
    uint32_t yb = blocked_value(c, y, B, "eir_cpu_max_pool2d_blocked");
    if (yb == EIR_NO_VALUE) return EIR_ERR_NOMEM;
    eir_arg il[4][2];
    int64_t *vals[4] = {ks, st, pd, dl};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 2; i++) il[k][i] = (eir_arg){.kind = EIR_ARG_INT, .u.i = vals[k][i]};
    eir_named_arg in[6] = {
        tensor_arg(c, "input", z),
        {"kernel_size", {.kind = EIR_ARG_INTS, .u.list = {2, il[0], NULL}}, 1},
        {"stride", {.kind = EIR_ARG_INTS, .u.list = {2, il[1], NULL}}, 1},
        {"padding", {.kind = EIR_ARG_INTS, .u.list = {2, il[2], NULL}}, 1},
        {"dilation", {.kind = EIR_ARG_INTS, .u.list = {2, il[3], NULL}}, 1},
        {"ceil_mode", {.kind = EIR_ARG_BOOL, .u.b = ceil_mode}, 1},
    };
    eir_arg out = {.kind = EIR_ARG_TENSOR, .value = yb, .name = g->values[yb].name};
    eir_status st_;
    if ((st_ = eir_graph_insert_node(c->p, g, n, T_POOL_BLK, 6, in, 1, &out, NULL))) return st_;
    uint32_t yn;
    if ((st_ = insert_layout(c, n + 1, false, yb, C, y, &yn))) return st_;
    if ((st_ = eir_graph_replace_uses(c->p, g, y, yn, NULL))) return st_;
    if ((st_ = eir_graph_erase_node(c->p, g, n + 2))) return st_;   /* the NCHW pool, now after them */
    *done = true;
    return EIR_OK;
}

/* (e) on the root graph: every eligible convolution blocked, then to_blocked(from_blocked(z))
 * read as z, and the layout calls nothing reads dropped */
static eir_status blocked_chains(bctx *c, int64_t L, uint32_t *changed) {
    eir_graph *g = c->g;
    eir_status st = EIR_OK;
    uint32_t made = 0;
    for (uint32_t n = 0; n < g->num_nodes && !st; n++) {
        bool done = false;
        if ((st = try_blocked(c, n, L, &done))) return st;
        if (!done && made && (st = try_blocked_se(c, n, L, &done))) return st;
        if (!done && made && (st = try_blocked_pool(c, n, L, &done))) return st;
        if (done) made++, n--;   /* the convolution is gone: look at position n again */
    }
    if (!made) return EIR_OK;
    for (uint32_t n = 0; n < g->num_nodes && !st; n++) {
        const eir_node *nd = &g->nodes[n];
        if (strcmp(nd->target, T_TO_BLK)) continue;
        uint32_t v = tensor_of(arg_named(nd, "input")), o = eir_node_output_value(nd, 0);
        uint32_t z = literal_f32(c, v, 4) ? blocked_twin(c, v, 0, block_of(L, size_of(c, v, 1))) : EIR_NO_VALUE;
        if (z != EIR_NO_VALUE && z != o) st = eir_graph_replace_uses(c->p, g, o, z, NULL);
    }
    for (bool again = true; again && !st;) {
        again = false;
        for (uint32_t n = g->num_nodes; n-- > 0 && !st;) {
            const eir_node *nd = &g->nodes[n];
            if ((!strcmp(nd->target, T_TO_BLK) || !strcmp(nd->target, T_FROM_BLK)) &&
                !eir_graph_num_uses(g, eir_node_output_value(nd, 0))) {
                st = eir_graph_erase_node(c->p, g, n);
                again = true;
            }
        }
    }
    (void)changed;               /* a layout of calls already fused: not counted again */
    return st;
}

/* The rewrites on c->g, then on the graphs its higher-order calls hold
 * (cond branches, map / while_loop / scan bodies). Inside those the
 * weights are the body's inputs, operands of the call, not state: a
 * convolution fuses with its activation there, but no batch norm folds
 * (its statistics are not known constants in the body); linear and addmm
 * fuse as in the root graph. */
static eir_status fuse_graph(bctx *c, uint32_t *changed) {
    eir_graph *g = c->g;
    eir_status st = EIR_OK;
    for (uint32_t n = 0; n < g->num_nodes && !st; n++) {
        bool done = false;
        if ((st = try_conv(c, n, &done))) break;
        if (!done && (st = try_linear(c, n, &done))) break;
        if (!done && (st = try_attention(c, n, &done, &n))) break;
        c->g = g;
        if (done) {
            (*changed)++;
            n--;                 /* the pattern's calls are gone: look at position n again */
            continue;
        }
        for (uint32_t i = 0; i < g->nodes[n].num_inputs && !st; i++) {
            const eir_arg *a = &g->nodes[n].inputs[i].arg;
            if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
            c->g = a->u.graph.graph;
            st = fuse_graph(c, changed);
            c->g = g;
        }
    }
    return st;
}

/* (f) aten.max_pool2d_with_indices whose indices nothing reads (what to-core and
 * run_decompositions() write for aten.max_pool2d) becomes eir_cpu::max_pool2d, values only: the
 * kernel then keeps no indices (1.4x faster on GoogLeNet's pools). After the blocked chains,
 * which take such pools into their layout themselves. */
static eir_status pool_values_graph(bctx *c, uint32_t *changed) {
    eir_graph *g = c->g;
    eir_status st = EIR_OK;
    for (uint32_t n = 0; n < g->num_nodes && !st; n++) {
        for (uint32_t i = 0; i < g->nodes[n].num_inputs && !st; i++) {
            const eir_arg *a = &g->nodes[n].inputs[i].arg;
            if (a->kind != EIR_ARG_GRAPH || !a->u.graph.graph) continue;
            c->g = a->u.graph.graph;
            st = pool_values_graph(c, changed);
            c->g = g;
        }
        const eir_node *nd = &g->nodes[n];
        if (st || strcmp(nd->target, "torch.ops.aten.max_pool2d_with_indices.default") || nd->num_inputs > 6) continue;
        uint32_t y = eir_node_output_value(nd, 0), ind = eir_node_output_value(nd, 1);
        if (!is_f32(c, y, 0) || !is_f32(c, tensor_of(arg_named(nd, "self")), 0)) continue;
        bool read = ind != EIR_NO_VALUE && eir_graph_num_uses(g, ind) > 0;
        for (uint32_t o = 0; !read && ind != EIR_NO_VALUE && o < g->num_outputs; o++) read = reads_value(&g->outputs[o], ind);
        if (read) continue;
        eir_named_arg in[6];
        for (uint32_t i = 0; i < nd->num_inputs; i++) {
            in[i] = nd->inputs[i];
            if (in[i].name && !strcmp(in[i].name, "self")) in[i].name = "input";
        }
        pattern pt = {{n}, 1, y, {EIR_ACT_NONE, 0, 0}};
        if ((st = replace(c, &pt, "torch.ops.eir_cpu.max_pool2d.default", "eir_cpu_max_pool2d", in, nd->num_inputs)))
            break;
        g = c->g;
        (*changed)++;
    }
    return st;
}

/* The pass; drop_state: parameters and constants only the rewritten calls
 * read leave the program (kept for a runtime's copy, so that
 * eir_runtime_state still finds every parameter). */
static eir_status to_backend(eir_program *p, uint32_t *changed, bool drop_state) {
    *changed = 0;
    bctx c = {p, p->graph, drop_state, NULL, NULL, NULL, 0};
    if (!c.g) return eir_fail(p, EIR_ERR_ARG, "to-backend: the program has no graph");
    /* parameters and constants read now, to drop those only rewritten calls read */
    uint32_t nin0 = c.g->num_inputs;
    char **used = calloc(nin0 ? nin0 : 1, sizeof *used);
    if (!used) return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
    uint32_t nused = 0;
    for (uint32_t i = 0; i < nin0 && i < p->num_input_specs; i++) {
        const eir_input_spec *s = &p->input_specs[i];
        if ((s->kind == EIR_IN_PARAMETER || s->kind == EIR_IN_CONSTANT_TENSOR) && s->target &&
            eir_arg_names_value(&c.g->inputs[i]) && eir_graph_num_uses(c.g, c.g->inputs[i].value))
            used[nused++] = (char *)s->target;
    }
    eir_status st = fuse_graph(&c, changed);
    c.g = p->graph;
    int64_t L = eir_dnnl_conv_layout();
    if (!st && L) st = blocked_chains(&c, L, changed);
    if (!st) st = pool_values_graph(&c, changed);
    for (uint32_t i = c.g->num_inputs; drop_state && !st && i-- > 0;) {
        if (i >= p->num_input_specs) continue;
        const eir_input_spec *s = &p->input_specs[i];
        if ((s->kind != EIR_IN_PARAMETER && s->kind != EIR_IN_CONSTANT_TENSOR) || !s->target) continue;
        if (!eir_arg_names_value(&c.g->inputs[i]) || eir_graph_num_uses(c.g, c.g->inputs[i].value)) continue;
        bool was_used = false;
        for (uint32_t u = 0; u < nused && !was_used; u++) was_used = !strcmp(used[u], s->target);
        if (was_used) st = eir_program_drop_input(p, i);
    }
    free(used);
    for (uint32_t i = 0; i < c.nwt; i++) free(c.wt_from[i]), free(c.wt_to[i]);
    free(c.wt_from);
    free(c.wt_to);
    free(c.wt_width);
    return st;
}

eir_status eir_pass_to_backend(eir_program *p, uint32_t *changed) { return to_backend(p, changed, true); }

/* ---- aten.lstm kept whole ----
 *
 * to-core writes aten.lstm.input out as its time loop of Core ATen calls
 * (torch's run_decompositions() does the same), where eir runs the call
 * itself on a fused float32 time loop (src/kernels/recurrent.c) 1.4x faster
 * (docs/BENCHMARKS.md). Before to-core, `--to backend` renames each float32
 * call eir_cpu::lstm: the same arguments and results, the same kernel. */
static eir_status keep_lstm_graph(eir_program *p, eir_graph *g, uint32_t *changed) {
    for (uint32_t n = 0; n < g->num_nodes; n++) {
        eir_node *nd = (eir_node *)&g->nodes[n];   /* the program's own nodes, edited in place as to-edge does */
        for (uint32_t i = 0; i < nd->num_inputs; i++) {
            const eir_arg *a = &nd->inputs[i].arg;
            eir_status st;
            if (a->kind == EIR_ARG_GRAPH && a->u.graph.graph && (st = keep_lstm_graph(p, a->u.graph.graph, changed)))
                return st;
        }
        if (strcmp(nd->target, "torch.ops.aten.lstm.input")) continue;
        bctx c = {p, g, false, NULL, NULL, NULL, 0};
        bool f32 = is_f32(&c, tensor_of(arg_named(nd, "input")), 0);
        for (uint32_t k = 0; f32 && k < 3; k++) f32 = is_f32(&c, eir_node_output_value(nd, k), 0);
        if (!f32) continue;
        if (!(nd->target = eir_arena_strdup(&p->arena, "torch.ops.eir_cpu.lstm.default")))
            return eir_fail(p, EIR_ERR_NOMEM, "out of memory");
        (*changed)++;
    }
    return EIR_OK;
}

eir_status eir_pass_keep_lstm(eir_program *p, uint32_t *changed) {
    *changed = 0;
    if (!p->graph) return eir_fail(p, EIR_ERR_ARG, "keep-lstm: the program has no graph");
    return keep_lstm_graph(p, p->graph, changed);
}

/* ---- at runtime creation ---- */

static bool fusion_off(void) {
    const char *e = getenv("EIR_NO_FUSION");
    return e && e[0] && strcmp(e, "0");
}

/* Whether graph g (or a graph nested in it) calls anything to-backend may rewrite. */
static bool has_candidates(const eir_graph *g) {
    static const char *const ANCHORS[] = {T_CONV2D, T_CONVOLUTION, T_LINEAR, T_ADDMM, T_MM, T_BMM};
    for (uint32_t n = 0; g && n < g->num_nodes; n++) {
        for (size_t k = 0; k < sizeof ANCHORS / sizeof *ANCHORS; k++)
            if (!strcmp(g->nodes[n].target, ANCHORS[k])) {
                uint32_t v = eir_node_output_value(&g->nodes[n], 0);
                if (v != EIR_NO_VALUE && g->values[v].kind == EIR_VALUE_TENSOR && g->values[v].meta.dtype == EIR_F32)
                    return true;
            }
        for (uint32_t i = 0; i < g->nodes[n].num_inputs; i++) {
            const eir_arg *a = &g->nodes[n].inputs[i].arg;
            if (a->kind == EIR_ARG_GRAPH && has_candidates(a->u.graph.graph)) return true;
        }
    }
    return false;
}

/* A copy of p for a runtime: its model.json decoded anew (graph, signature,
 * symbols), its stored tensors borrowed from p (p outlives the runtime). *buf
 * receives the JSON text, which q may point into. */
static eir_status light_copy(eir_program *p, eir_program **out, void **buf) {
    char *json = NULL;
    size_t len = 0;
    *out = NULL;
    *buf = NULL;
    eir_status st = eir_serde_encode_model_json(p, &json, &len);
    if (st) return st;
    eir_program *q = eir_program_new_empty();
    if (!q) {
        free(json);
        return EIR_ERR_NOMEM;
    }
    st = eir_serde_decode_model_json(q, json, len);
    if (!st && p->num_tensors) {
        q->tensors = malloc(p->num_tensors * sizeof *q->tensors);
        if (!q->tensors) st = EIR_ERR_NOMEM;
        else {
            memcpy(q->tensors, p->tensors, p->num_tensors * sizeof *q->tensors);
            q->num_tensors = p->num_tensors;
            for (uint32_t i = 0; !st && i < q->num_tensors; i++)
                if (!eir_strmap_put(&q->tensor_by_fqn, q->tensors[i].fqn, i)) st = EIR_ERR_NOMEM;
        }
    }
    if (st) {
        eir_program_free(q);
        free(json);
        return st;
    }
    q->layout_made_up = p->layout_made_up;
    q->model_name = p->model_name;
    *out = q;
    *buf = json;
    return EIR_OK;
}

eir_status eir_backend_bind_copy(eir_program *p, eir_program **out, void **buf_out) {
    *out = NULL;
    *buf_out = NULL;
    if (!p || !p->graph || fusion_off() || !has_candidates(p->graph)) return EIR_OK;
    /* p is only read (runtimes of one program may be made on several threads);
     * a failure to copy it must not leave its message changed either */
    char msg[sizeof p->errmsg];
    memcpy(msg, p->errmsg, sizeof msg);
    void *buf = NULL;
    eir_program *q = NULL;
    uint32_t changed = 0;
    eir_status st = light_copy(p, &q, &buf);
    if (st) memcpy(p->errmsg, msg, sizeof msg);
    else st = to_backend(q, &changed, false);
    if (st || !changed) {
        if (q) eir_program_free(q);
        free(buf);
        return st == EIR_ERR_NOMEM ? st : EIR_OK;
    }
    *out = q;
    *buf_out = buf;
    return EIR_OK;
}
