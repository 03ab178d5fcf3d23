/* test_passes_cf.c — the passes on the nested graphs of control flow, on
 * small programs in the text form:
 *
 *  - dce inside a cond branch removes the dead call and keeps the branch's
 *    inputs (the higher-order call fixes them) and its outputs; a cond whose
 *    results nothing reads goes, and its branches with it; a call with a side
 *    effect in a body stays;
 *  - cse inside a body merges the repeated call; two cond calls with the same
 *    operands are not merged (their branches are different graphs);
 *  - fold leaves the bodies as they are;
 *  - to-edge lowers the bodies (Edge operators, numbers as scalar_tensor,
 *    submodule names) to an Edge program the verifier accepts;
 *  - to-backend fuses linear + relu and addmm(w.t()) + hardtanh in the
 *    branches, whose weights are operands, and the result runs to the
 *    formula on both branches;
 *  - every edited ATen program runs to the outputs of the original, both
 *    branches. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eir.h"
#include "check.h"

static const char *COND_PROGRAM =
    "ExportedProgram:\n"
    "    class GraphModule(torch.nn.Module):\n"
    "        def forward(self, x: \"f32[4, 3]\", y: \"f32[4, 3]\"):\n"
    "            sum_1: \"f32[]\" = torch.ops.aten.sum.default(x)\n"
    "            gt: \"b8[]\" = torch.ops.aten.gt.Scalar(sum_1, 0)\n"
    "            true_graph_0 = self.true_graph_0\n"
    "            false_graph_0 = self.false_graph_0\n"
    "            cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [x, y])\n"
    "            getitem: \"f32[4, 3]\" = cond[0]\n"
    "            true_graph_1 = self.true_graph_1\n"
    "            false_graph_1 = self.false_graph_1\n"
    "            cond_1 = torch.ops.higher_order.cond(gt, true_graph_1, false_graph_1, [x, y])\n"
    "            getitem_1: \"f32[4, 3]\" = cond_1[0]\n"
    "            true_graph_2 = self.true_graph_2\n"
    "            false_graph_2 = self.false_graph_2\n"
    "            cond_2 = torch.ops.higher_order.cond(gt, true_graph_2, false_graph_2, [x, y])\n"
    "            getitem_2: \"f32[4, 3]\" = cond_2[0]\n"
    "            add: \"f32[4, 3]\" = torch.ops.aten.add.Tensor(getitem, getitem_2)\n"
    "            return (add,)\n"
    "\n"
    "        class true_graph_0(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", y: \"f32[4, 3]\"):\n"
    "                sin: \"f32[4, 3]\" = torch.ops.aten.sin.default(x)\n"
    "                sin_1: \"f32[4, 3]\" = torch.ops.aten.sin.default(x)\n"
    "                cos: \"f32[4, 3]\" = torch.ops.aten.cos.default(x)\n"
    "                exp: \"f32[4, 3]\" = torch.ops.aten.exp.default(cos)\n"
    "                mul: \"f32[4, 3]\" = torch.ops.aten.mul.Tensor(sin, sin_1)\n"
    "                add: \"f32[4, 3]\" = torch.ops.aten.add.Tensor(mul, 1.0)\n"
    "                return (add,)\n"
    "\n"
    "        class false_graph_0(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", y: \"f32[4, 3]\"):\n"
    "                mul: \"f32[4, 3]\" = torch.ops.aten.mul.Tensor(y, 2)\n"
    "                sum_1: \"f32[]\" = torch.ops.aten.sum.default(y)\n"
    "                ge: \"b8[]\" = torch.ops.aten.ge.Scalar(sum_1, -1000.0)\n"
    "                _assert_async = torch.ops.aten._assert_async.msg(ge, 'sum too small')\n"
    "                return (mul,)\n"
    "\n"
    "        class true_graph_1(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", y: \"f32[4, 3]\"):\n"
    "                neg: \"f32[4, 3]\" = torch.ops.aten.neg.default(x)\n"
    "                return (neg,)\n"
    "\n"
    "        class false_graph_1(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", y: \"f32[4, 3]\"):\n"
    "                abs_1: \"f32[4, 3]\" = torch.ops.aten.abs.default(y)\n"
    "                return (abs_1,)\n"
    "\n"
    "        class true_graph_2(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", y: \"f32[4, 3]\"):\n"
    "                sin: \"f32[4, 3]\" = torch.ops.aten.sin.default(x)\n"
    "                sin_1: \"f32[4, 3]\" = torch.ops.aten.sin.default(x)\n"
    "                cos: \"f32[4, 3]\" = torch.ops.aten.cos.default(x)\n"
    "                exp: \"f32[4, 3]\" = torch.ops.aten.exp.default(cos)\n"
    "                mul: \"f32[4, 3]\" = torch.ops.aten.mul.Tensor(sin, sin_1)\n"
    "                add: \"f32[4, 3]\" = torch.ops.aten.add.Tensor(mul, 1.0)\n"
    "                return (add,)\n"
    "\n"
    "        class false_graph_2(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", y: \"f32[4, 3]\"):\n"
    "                mul: \"f32[4, 3]\" = torch.ops.aten.mul.Tensor(y, 2)\n"
    "                sum_1: \"f32[]\" = torch.ops.aten.sum.default(y)\n"
    "                ge: \"b8[]\" = torch.ops.aten.ge.Scalar(sum_1, -1000.0)\n"
    "                _assert_async = torch.ops.aten._assert_async.msg(ge, 'sum too small')\n"
    "                return (mul,)\n"
    "\n"
    "Graph signature:\n"
    "    # inputs\n"
    "    x: USER_INPUT\n"
    "    y: USER_INPUT\n"
    "\n"
    "    # outputs\n"
    "    add: USER_OUTPUT\n"
    "\n"
    "Range constraints: {}\n";

static eir_program *parse(const char *text) {
    eir_program *p = NULL;
    if (eir_program_parse(text, strlen(text), &p) != EIR_OK) {
        fprintf(stderr, "parse: %s\n", p ? eir_errmsg(p) : "out of memory");
        eir_program_free(p);
        return NULL;
    }
    return p;
}

/* The k-th nested graph (in argument order) of the first node of g calling target. */
static const eir_graph *subgraph(const eir_graph *g, const char *target, uint32_t which, uint32_t k) {
    for (uint32_t n = 0; n < g->num_nodes; n++) {
        if (strcmp(g->nodes[n].target, target)) continue;
        if (which--) continue;
        for (uint32_t i = 0, j = 0; i < g->nodes[n].num_inputs; i++)
            if (g->nodes[n].inputs[i].arg.kind == EIR_ARG_GRAPH && j++ == k) return g->nodes[n].inputs[i].arg.u.graph.graph;
    }
    return NULL;
}

static uint32_t count_target(const eir_graph *g, const char *target) {
    uint32_t c = 0;
    for (uint32_t n = 0; g && n < g->num_nodes; n++) c += !strcmp(g->nodes[n].target, target);
    return c;
}

static bool has_node(const eir_graph *g, const char *name) {
    for (uint32_t n = 0; g && n < g->num_nodes; n++)
        if (g->nodes[n].name && !strcmp(g->nodes[n].name, name)) return true;
    return false;
}

static bool verifies(eir_program *p, eir_dialect d) {
    eir_verify_report *r = NULL;
    eir_status st = eir_program_verify(p, d, &r);
    if (st) {
        char *t = NULL;
        if (r && eir_verify_report_format(r, false, &t) == EIR_OK) fputs(t, stderr);
        eir_free(t);
    }
    eir_verify_report_free(r);
    return st == EIR_OK;
}

static uint32_t pass(eir_program *p, const char *name) {
    uint32_t changed = 0;
    eir_status st = eir_program_run_pass(p, name, &changed);
    if (st) fprintf(stderr, "%s: %s\n", name, eir_errmsg(p));
    CHECK(st == EIR_OK);
    return changed;
}

/* Output 0 of p on x, y (4 x 3 float32 each) into out. */
static bool run(eir_program *p, const float *x, const float *y, float *out) {
    eir_runtime *rt = NULL;
    if (eir_runtime_create(p, &rt) != EIR_OK) {
        fprintf(stderr, "runtime: %s\n", eir_runtime_errmsg(rt));
        eir_runtime_free(rt);
        return false;
    }
    int64_t sz[2] = {4, 3};
    eir_tensor_view a = {(void *)x, EIR_F32, 2, sz, NULL}, b = {(void *)y, EIR_F32, 2, sz, NULL}, o;
    bool ok = eir_runtime_set_input(rt, 0, &a) == EIR_OK && eir_runtime_set_input(rt, 1, &b) == EIR_OK &&
              eir_runtime_run(rt) == EIR_OK && eir_runtime_output(rt, 0, &o) == EIR_OK && eir_tensor_numel(&o) == 12 &&
              o.dtype == EIR_F32 && eir_tensor_is_contiguous(&o);
    if (!ok) fprintf(stderr, "run: %s\n", eir_runtime_errmsg(rt));
    if (ok) memcpy(out, o.data, sizeof(float) * 12);
    eir_runtime_free(rt);
    return ok;
}

/* p computes what the reference formula does, on inputs taking either branch. */
static void check_runs(eir_program *p) {
    for (int sign = -1; sign <= 1; sign += 2) {
        float x[12], y[12], got[12];
        for (int i = 0; i < 12; i++) x[i] = (float)sign * (0.1f + 0.05f * (float)i), y[i] = 0.3f * (float)i - 1.0f;
        CHECK(run(p, x, y, got));
        bool same = true;
        for (int i = 0; i < 12; i++) {
            /* both used conds take the same branch: sin(x)^2 + 1 twice, or 2y twice */
            float s = sinf(x[i]);
            float want = sign > 0 ? 2.0f * (s * s + 1.0f) : 4.0f * y[i];
            same &= fabsf(got[i] - want) <= 1e-5f * (1.0f + fabsf(want));
        }
        CHECK(same);
    }
}

static void test_dce(void) {
    eir_program *p = parse(COND_PROGRAM);
    CHECK(p != NULL);
    if (!p) return;
    check_runs(p);
    const eir_graph *g = eir_program_graph(p);
    CHECK(count_target(g, "torch.ops.higher_order.cond") == 3);
    /* cond_1's result is unread: it goes with its two branches; in each used
     * true branch, cos and exp go (2 nodes each); the assertion in the false
     * branches stays (a side effect) */
    uint32_t n = pass(p, "dce");
    CHECK(n == 1 + 2 + 2);
    g = eir_program_graph(p);
    CHECK(count_target(g, "torch.ops.higher_order.cond") == 2);
    CHECK(!has_node(g, "cond_1"));
    const eir_graph *t0 = subgraph(g, "torch.ops.higher_order.cond", 0, 0);
    const eir_graph *f0 = subgraph(g, "torch.ops.higher_order.cond", 0, 1);
    CHECK(t0 && t0->num_nodes == 4 && !has_node(t0, "cos") && !has_node(t0, "exp") && has_node(t0, "sin_1"));
    /* a body keeps every input, read or not: the call passes them */
    CHECK(t0 && t0->num_inputs == 2 && t0->num_outputs == 1);
    CHECK(f0 && f0->num_nodes == 4 && count_target(f0, "torch.ops.aten._assert_async.msg") == 1);
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &text) == EIR_OK);
    CHECK(text && !strstr(text, "true_graph_1") && !strstr(text, "false_graph_1") && strstr(text, "true_graph_2"));
    eir_free(text);
    CHECK(verifies(p, EIR_DIALECT_ATEN));
    check_runs(p);
    CHECK(pass(p, "dce") == 0);
    eir_program_free(p);
}

static void test_cse(void) {
    eir_program *p = parse(COND_PROGRAM);
    CHECK(p != NULL);
    if (!p) return;
    /* sin_1 merges into sin in both true branches; the conds stay three
     * (cond and cond_2 have the same operands, but different graphs) */
    uint32_t n = pass(p, "cse");
    CHECK(n == 2);
    const eir_graph *g = eir_program_graph(p);
    CHECK(count_target(g, "torch.ops.higher_order.cond") == 3);
    for (uint32_t which = 0; which < 3; which += 2) {
        const eir_graph *t = subgraph(g, "torch.ops.higher_order.cond", which, 0);
        CHECK(t && count_target(t, "torch.ops.aten.sin.default") == 1 && !has_node(t, "sin_1"));
        /* mul now reads sin twice */
        bool twice = false;
        for (uint32_t k = 0; t && k < t->num_nodes; k++)
            if (!strcmp(t->nodes[k].name, "mul"))
                twice = t->nodes[k].num_inputs >= 2 && t->nodes[k].inputs[0].arg.value == t->nodes[k].inputs[1].arg.value;
        CHECK(twice);
    }
    CHECK(verifies(p, EIR_DIALECT_ATEN));
    check_runs(p);
    CHECK(pass(p, "cse") == 0);
    eir_program_free(p);
}

static void test_fold_keeps_bodies(void) {
    eir_program *p = parse(COND_PROGRAM);
    CHECK(p != NULL);
    if (!p) return;
    char *before = NULL, *after = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &before) == EIR_OK);
    pass(p, "fold");
    CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &after) == EIR_OK);
    CHECK(before && after && !strcmp(before, after));
    check_runs(p);
    eir_free(before);
    eir_free(after);
    eir_program_free(p);
}

static void test_to_edge(void) {
    eir_program *p = parse(COND_PROGRAM);
    CHECK(p != NULL);
    if (!p) return;
    pass(p, "to-edge");
    CHECK(verifies(p, EIR_DIALECT_EDGE));
    const eir_graph *g = eir_program_graph(p);
    CHECK(count_target(g, "torch.ops.higher_order.cond") == 2);
    const eir_graph *t0 = subgraph(g, "torch.ops.higher_order.cond", 0, 0);
    const eir_graph *f0 = subgraph(g, "torch.ops.higher_order.cond", 0, 1);
    CHECK(t0 && count_target(t0, "executorch.exir.dialects.edge._ops.aten.sin.default") == 2);
    /* add(mul, 1.0): the number is a float32 scalar_tensor named as ExecuTorch's constant */
    CHECK(t0 && count_target(t0, "torch.ops.aten.scalar_tensor.default") == 1 && has_node(t0, "_tensor_constant0"));
    /* mul(y, 2): an int64 constant cast to float32 (RemoveMixedTypeOperators) */
    CHECK(f0 && count_target(f0, "executorch.exir.dialects.edge._ops.dim_order_ops._to_dim_order_copy.default") == 1);
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &text) == EIR_OK);
    CHECK(text && strstr(text, "cond = torch.ops.higher_order.cond(aten_gt_scalar, submodule_0, submodule_1, [x, y])"));
    CHECK(text && strstr(text, "cond_1 = torch.ops.higher_order.cond(aten_gt_scalar, submodule_2, submodule_3, [x, y])"));
    CHECK(text && strstr(text, "_tensor_constant0: \"f32[]\" = torch.ops.aten.scalar_tensor.default(1.0, dtype = torch.float32)"));
    eir_free(text);
    /* eir's runtime runs ATen, not Edge operators: python/tests/test_passes_cf.py
     * runs lowered programs in torch */
    eir_program_free(p);
}

/* linear + relu in one branch, addmm(b, x, w.t()) + hardtanh in the other; the
 * weights reach the branches as operands */
static const char *LINEAR_PROGRAM =
    "ExportedProgram:\n"
    "    class GraphModule(torch.nn.Module):\n"
    "        def forward(self, p_fc_weight: \"f32[5, 3]\", p_fc_bias: \"f32[5]\", x: \"f32[4, 3]\"):\n"
    "            sum_1: \"f32[]\" = torch.ops.aten.sum.dim_IntList(x, [])\n"
    "            gt: \"b8[]\" = torch.ops.aten.gt.Scalar(sum_1, 0)\n"
    "            true_graph_0 = self.true_graph_0\n"
    "            false_graph_0 = self.false_graph_0\n"
    "            cond = torch.ops.higher_order.cond(gt, true_graph_0, false_graph_0, [x, p_fc_weight, p_fc_bias])\n"
    "            getitem: \"f32[4, 5]\" = cond[0]\n"
    "            return (getitem,)\n"
    "\n"
    "        class true_graph_0(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", p_fc_weight: \"f32[5, 3]\", p_fc_bias: \"f32[5]\"):\n"
    "                linear: \"f32[4, 5]\" = torch.ops.aten.linear.default(x, p_fc_weight, p_fc_bias)\n"
    "                relu: \"f32[4, 5]\" = torch.ops.aten.relu.default(linear)\n"
    "                return (relu,)\n"
    "\n"
    "        class false_graph_0(torch.nn.Module):\n"
    "            def forward(self, x: \"f32[4, 3]\", p_fc_weight: \"f32[5, 3]\", p_fc_bias: \"f32[5]\"):\n"
    "                permute: \"f32[3, 5]\" = torch.ops.aten.permute.default(p_fc_weight, [1, 0])\n"
    "                addmm: \"f32[4, 5]\" = torch.ops.aten.addmm.default(p_fc_bias, x, permute)\n"
    "                hardtanh: \"f32[4, 5]\" = torch.ops.aten.hardtanh.default(addmm, -0.5, 0.5)\n"
    "                return (hardtanh,)\n"
    "\n"
    "Graph signature:\n"
    "    # inputs\n"
    "    p_fc_weight: PARAMETER target='fc.weight'\n"
    "    p_fc_bias: PARAMETER target='fc.bias'\n"
    "    x: USER_INPUT\n"
    "\n"
    "    # outputs\n"
    "    getitem: USER_OUTPUT\n"
    "\n"
    "Range constraints: {}\n";

static void test_backend_in_bodies(void) {
    eir_program *p = parse(LINEAR_PROGRAM);
    CHECK(p != NULL);
    if (!p) return;
    float w[15], b[5];
    for (uint32_t i = 0; i < eir_program_num_tensors(p); i++) {
        const eir_tensor *t = eir_program_tensor(p, i);
        float *d = (float *)t->data + t->storage_offset;
        bool is_w = !strcmp(t->fqn, "fc.weight");
        for (int k = 0; k < (is_w ? 15 : 5); k++) {
            d[k] = is_w ? 0.2f * (float)(k % 7) - 0.5f : 0.1f * (float)k - 0.2f;
            (is_w ? w : b)[k] = d[k];
        }
    }
    CHECK(pass(p, "to-backend") == 2);
    CHECK(verifies(p, EIR_DIALECT_BACKEND));
    const eir_graph *g = eir_program_graph(p);
    const eir_graph *t0 = subgraph(g, "torch.ops.higher_order.cond", 0, 0);
    const eir_graph *f0 = subgraph(g, "torch.ops.higher_order.cond", 0, 1);
    /* one fused call per branch; the transpose goes with the addmm */
    CHECK(t0 && t0->num_nodes == 1 && count_target(t0, "torch.ops.eir_cpu.linear.default") == 1);
    CHECK(f0 && f0->num_nodes == 1 && count_target(f0, "torch.ops.eir_cpu.linear.default") == 1);
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &text) == EIR_OK);
    CHECK(text && strstr(text, "torch.ops.eir_cpu.linear.default(x, p_fc_weight, p_fc_bias, 'relu')"));
    CHECK(text && strstr(text, "torch.ops.eir_cpu.linear.default(x, p_fc_weight, p_fc_bias, 'hardtanh', -0.5, 0.5)"));
    eir_free(text);
    /* the weights stay parameters of the program */
    CHECK(eir_program_num_tensors(p) == 2);
    for (int sign = -1; sign <= 1; sign += 2) {
        float x[12], got[20];
        for (int i = 0; i < 12; i++) x[i] = (float)sign * (0.2f + 0.1f * (float)(i % 5));
        eir_runtime *rt = NULL;
        int64_t sz[2] = {4, 3};
        eir_tensor_view in = {x, EIR_F32, 2, sz, NULL}, o;
        bool ok = eir_runtime_create(p, &rt) == EIR_OK && eir_runtime_set_input(rt, 0, &in) == EIR_OK &&
                  eir_runtime_run(rt) == EIR_OK && eir_runtime_output(rt, 0, &o) == EIR_OK && eir_tensor_numel(&o) == 20;
        if (!ok) fprintf(stderr, "run: %s\n", rt ? eir_runtime_errmsg(rt) : eir_errmsg(p));
        CHECK(ok);
        if (ok) memcpy(got, o.data, sizeof got);
        eir_runtime_free(rt);
        bool same = ok;
        for (int r = 0; r < 4 && ok; r++)
            for (int c = 0; c < 5; c++) {
                float v = b[c];
                for (int k = 0; k < 3; k++) v += x[r * 3 + k] * w[c * 3 + k];
                float want = sign > 0 ? (v > 0 ? v : 0) : (v < -0.5f ? -0.5f : v > 0.5f ? 0.5f : v);
                same &= fabsf(got[r * 5 + c] - want) <= 1e-5f;
            }
        CHECK(same);
    }
    eir_program_free(p);
}

int main(void) {
    test_dce();
    test_cse();
    test_fold_keeps_bodies();
    test_to_edge();
    test_backend_in_bodies();
    return check_summary("test_passes_cf");
}
