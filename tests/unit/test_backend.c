/* test_backend.c — the pass to-backend on small programs in the text form:
 * convolution + eval batch norm + relu (Core ATen) and linear + hardtanh
 * (ATen) fuse into eir_cpu calls that `eir verify --dialect backend` accepts
 * and that run to the outputs of the unfused program (weights filled with
 * a pattern, runtimes made with EIR_NO_FUSION=1 for the reference); and
 * the cases the pass must leave alone: the convolution's weight read
 * elsewhere, the convolution's result read twice, float64 tensors, a batch
 * norm whose running variance the program writes, training mode. A batch
 * norm weight that something else also reads still folds, and stays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eir.h"
#include "check.h"

#define IN_SIG "p_conv_weight: \"%s[4, 3, 3, 3]\", p_bn_weight: \"%s[4]\", p_bn_bias: \"%s[4]\", " \
               "b_bn_running_mean: \"%s[4]\", b_bn_running_var: \"%s[4]\", x: \"%s[2, 3, 8, 8]\""

/* conv + batch norm + relu, Core ATen; extra: more lines of the body, ret: the returned values,
 * sig: more signature lines; dt: "f32" or "f64" */
static char *conv_program(const char *dt, const char *extra, const char *ret, const char *sig_out) {
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "ExportedProgram:\n"
             "    class GraphModule(torch.nn.Module):\n"
             "        def forward(self, " IN_SIG "):\n"
             "            convolution: \"%s[2, 4, 8, 8]\" = torch.ops.aten.convolution.default(x, p_conv_weight, None, "
             "[1, 1], [1, 1], [1, 1], False, [0, 0], 1)\n"
             "            _native_batch_norm_legit_no_training = torch.ops.aten._native_batch_norm_legit_no_training."
             "default(convolution, p_bn_weight, p_bn_bias, b_bn_running_mean, b_bn_running_var, 0.1, 1e-05)\n"
             "            getitem: \"%s[2, 4, 8, 8]\" = _native_batch_norm_legit_no_training[0]\n"
             "            relu: \"%s[2, 4, 8, 8]\" = torch.ops.aten.relu.default(getitem)\n"
             "%s"
             "            return (%s)\n"
             "\n"
             "Graph signature:\n"
             "    # inputs\n"
             "    p_conv_weight: PARAMETER target='conv.weight'\n"
             "    p_bn_weight: PARAMETER target='bn.weight'\n"
             "    p_bn_bias: PARAMETER target='bn.bias'\n"
             "    b_bn_running_mean: BUFFER target='bn.running_mean' persistent=True\n"
             "    b_bn_running_var: BUFFER target='bn.running_var' persistent=True\n"
             "    x: USER_INPUT\n"
             "\n"
             "    # outputs\n"
             "%s"
             "\n"
             "Range constraints: {}\n",
             dt, dt, dt, dt, dt, dt, dt, dt, dt, extra, ret, sig_out);
    return buf;
}

static const char *LINEAR_PROGRAM =
    "ExportedProgram:\n"
    "    class GraphModule(torch.nn.Module):\n"
    "        def forward(self, p_fc_weight: \"f32[5, 7]\", p_fc_bias: \"f32[5]\", x: \"f32[3, 2, 7]\"):\n"
    "            linear: \"f32[3, 2, 5]\" = torch.ops.aten.linear.default(x, p_fc_weight, p_fc_bias)\n"
    "            hardtanh_: \"f32[3, 2, 5]\" = torch.ops.aten.hardtanh_.default(linear, 0.0, 6.0)\n"
    "            return (hardtanh_,)\n"
    "\n"
    "Graph signature:\n"
    "    # inputs\n"
    "    p_fc_weight: PARAMETER target='fc.weight'\n"
    "    p_fc_bias: PARAMETER target='fc.bias'\n"
    "    x: USER_INPUT\n"
    "\n"
    "    # outputs\n"
    "    hardtanh_: USER_OUTPUT\n"
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

/* Fill every stored tensor with a pattern; variances positive. */
static void fill_state(eir_program *p) {
    for (uint32_t i = 0; i < eir_program_num_tensors(p); i++) {
        const eir_tensor *t = eir_program_tensor(p, i);
        if (!t->data || t->dtype != EIR_F32) continue;
        float *d = (float *)t->data + t->storage_offset;
        int64_t n = 1;
        for (uint32_t k = 0; k < t->rank; k++) n *= t->sizes[k];
        bool var = strstr(t->fqn, "running_var") != NULL;
        for (int64_t k = 0; k < n; k++) d[k] = var ? 0.5f + 0.25f * (float)(k % 5) : sinf(0.7f * (float)k + (float)i);
    }
}

static uint32_t count_prefix(const eir_program *p, const char *prefix) {
    const eir_graph *g = eir_program_graph(p);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->num_nodes; i++) n += !strncmp(g->nodes[i].target, prefix, strlen(prefix));
    return n;
}

static uint32_t run_to_backend(eir_program *p) {
    uint32_t changed = 0;
    eir_status st = eir_program_run_pass(p, "to-backend", &changed);
    if (st) fprintf(stderr, "to-backend: %s\n", eir_errmsg(p));
    CHECK(st == EIR_OK);
    return changed;
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

/* Output 0 of p on input x (float32, nx elements), into y (ny elements); on failure the runtime's
 * message into msg (cap bytes) when msg is not NULL, else on stderr. */
static bool run_msg(eir_program *p, const float *x, const int64_t *xs, uint32_t xr, float *y, int64_t ny, char *msg,
                    size_t cap) {
    eir_runtime *rt = NULL;
    eir_tensor_view in = {(void *)x, EIR_F32, xr, xs, NULL}, out;
    bool ok = eir_runtime_create(p, &rt) == EIR_OK && eir_runtime_set_input(rt, 0, &in) == EIR_OK &&
              eir_runtime_run(rt) == EIR_OK && eir_runtime_output(rt, 0, &out) == EIR_OK &&
              eir_tensor_numel(&out) == ny && out.dtype == EIR_F32 && eir_tensor_is_contiguous(&out);
    if (!ok && msg) snprintf(msg, cap, "%s", rt ? eir_runtime_errmsg(rt) : "no runtime");
    else if (!ok) fprintf(stderr, "run: %s\n", rt ? eir_runtime_errmsg(rt) : "no runtime");
    if (ok) memcpy(y, out.data, (size_t)ny * sizeof *y);
    eir_runtime_free(rt);
    return ok;
}

static bool run(eir_program *p, const float *x, const int64_t *xs, uint32_t xr, float *y, int64_t ny) {
    return run_msg(p, x, xs, xr, y, ny, NULL, 0);
}

static float max_diff(const float *a, const float *b, int64_t n) {
    float m = 0;
    for (int64_t i = 0; i < n; i++) m = fmaxf(m, fabsf(a[i] - b[i]));
    return m;
}

static void test_conv_bn_relu(void) {
    eir_program *ref = parse(conv_program("f32", "", "relu,", "    relu: USER_OUTPUT\n"));
    eir_program *p = parse(conv_program("f32", "", "relu,", "    relu: USER_OUTPUT\n"));
    CHECK(ref && p);
    if (!ref || !p) goto done;
    fill_state(ref), fill_state(p);
    CHECK(run_to_backend(p) == 1);
    CHECK(count_prefix(p, "torch.ops.eir_cpu.conv2d.default") == 1);
    CHECK(count_prefix(p, "torch.ops.aten.") == 0);
    CHECK(verifies(p, EIR_DIALECT_BACKEND));
    /* the convolution's weight and the batch norm's parameters are gone; the buffers stay */
    CHECK(!eir_program_find_tensor(p, "conv.weight") && !eir_program_find_tensor(p, "bn.weight"));
    CHECK(eir_program_find_tensor(p, "bn.running_mean") && eir_program_find_tensor(p, "_eir_cpu_fused0") &&
          eir_program_find_tensor(p, "_eir_cpu_fused1"));
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_GRAPH, &text) == EIR_OK && text &&
          strstr(text, "torch.ops.eir_cpu.conv2d.default](args = (%x, %c__eir_cpu_fused0, %c__eir_cpu_fused1, "
                       "[1, 1], [1, 1], [1, 1], 1, relu)"));
    eir_free(text);
    float x[2 * 3 * 8 * 8], y0[2 * 4 * 8 * 8], y1[2 * 4 * 8 * 8];
    for (int i = 0; i < 2 * 3 * 8 * 8; i++) x[i] = cosf(0.3f * (float)i);
    int64_t xs[4] = {2, 3, 8, 8};
    setenv("EIR_NO_FUSION", "1", 1);
    CHECK(run(ref, x, xs, 4, y0, 2 * 4 * 8 * 8));
    unsetenv("EIR_NO_FUSION");
    CHECK(run(p, x, xs, 4, y1, 2 * 4 * 8 * 8));
    CHECK(max_diff(y0, y1, 2 * 4 * 8 * 8) < 1e-5f);
    int nonzero = 0;
    for (int i = 0; i < 2 * 4 * 8 * 8; i++) nonzero += y0[i] > 0;
    CHECK(nonzero > 50);                 /* relu left something to compare */
    /* the runtime fuses the unfused program itself, to the same outputs */
    CHECK(run(ref, x, xs, 4, y1, 2 * 4 * 8 * 8));
    CHECK(max_diff(y0, y1, 2 * 4 * 8 * 8) < 1e-5f);
    /* a second pass has nothing left to do */
    CHECK(run_to_backend(p) == 0);
done:
    eir_program_free(ref);
    eir_program_free(p);
}

static void test_linear_hardtanh(void) {
    eir_program *ref = parse(LINEAR_PROGRAM), *p = parse(LINEAR_PROGRAM);
    CHECK(ref && p);
    if (!ref || !p) goto done;
    fill_state(ref), fill_state(p);
    CHECK(run_to_backend(p) == 1);
    /* 6 rows, more than the matrix-vector kernel takes: the weight is packed, (1, 7, 5) = w^T, and
     * the parameter only the rewritten call read leaves the program */
    CHECK(count_prefix(p, "torch.ops.eir_cpu.linear_packed.default") == 1 && count_prefix(p, "torch.ops.aten.") == 0);
    CHECK(verifies(p, EIR_DIALECT_BACKEND));
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_GRAPH, &text) == EIR_OK && text &&
          strstr(text, "(args = (%x, %c__eir_cpu_fused0, %p_fc_bias, 5, hardtanh, 0.0, 6.0)"));
    eir_free(text);
    const eir_tensor *pw = eir_program_find_tensor(p, "_eir_cpu_fused0"), *w = eir_program_find_tensor(ref, "fc.weight");
    CHECK(!eir_program_find_tensor(p, "fc.weight") && pw && w && pw->rank == 3 && pw->sizes[0] == 1 &&
          pw->sizes[1] == 7 && pw->sizes[2] == 5);
    if (pw && w && pw->rank == 3) {
        bool same = true;
        for (int i = 0; i < 5; i++)
            for (int q = 0; q < 7; q++)
                same &= ((const float *)pw->data)[pw->storage_offset + q * 5 + i] ==
                        ((const float *)w->data)[w->storage_offset + i * 7 + q];
        CHECK(same);
    }
    float x[3 * 2 * 7], y0[3 * 2 * 5], y1[3 * 2 * 5];
    for (int i = 0; i < 42; i++) x[i] = 4.f * sinf(1.3f * (float)i);
    int64_t xs[3] = {3, 2, 7};
    setenv("EIR_NO_FUSION", "1", 1);
    CHECK(run(ref, x, xs, 3, y0, 30));
    unsetenv("EIR_NO_FUSION");
    CHECK(run(p, x, xs, 3, y1, 30));
    CHECK(max_diff(y0, y1, 30) < 1e-6f);
    int lo = 0, hi = 0;
    for (int i = 0; i < 30; i++) lo += y0[i] == 0.f, hi += y0[i] == 6.f;
    CHECK(lo > 0 && hi > 0);             /* both bounds were hit */
done:
    eir_program_free(ref);
    eir_program_free(p);
}

/* Two linear layers on one weight w (600 x 256, a product the runtime cuts into column blocks),
 * summed, and w's sum when `also_sum`; rows of input: "16, 256", or "s0, 256" (symbolic). */
static const char *tied_program(const char *rows, bool also_sum) {
    static char buf[2048];
    bool sym = rows[0] == 's';
    snprintf(buf, sizeof buf,
             "ExportedProgram:\n"
             "    class GraphModule(torch.nn.Module):\n"
             "        def forward(self, p_w: \"f32[600, 256]\", p_b: \"f32[600]\", x: \"f32[%s, 256]\"):\n"
             "            l1: \"f32[%s, 600]\" = torch.ops.aten.linear.default(x, p_w, p_b)\n"
             "            l2: \"f32[%s, 600]\" = torch.ops.aten.linear.default(x, p_w)\n"
             "            s: \"f32[%s, 600]\" = torch.ops.aten.add.Tensor(l1, l2)\n"
             "%s"
             "            return (s%s)\n"
             "\n"
             "Graph signature:\n"
             "    # inputs\n"
             "    p_w: PARAMETER target='w'\n"
             "    p_b: PARAMETER target='b'\n"
             "    x: USER_INPUT\n"
             "\n"
             "    # outputs\n"
             "    s: USER_OUTPUT\n"
             "%s"
             "\n"
             "Range constraints: {%s}\n",
             rows[0] == 's' ? "s0" : "16", sym ? "s0" : "16", sym ? "s0" : "16", sym ? "s0" : "16",
             also_sum ? "            t: \"f32[256]\" = torch.ops.aten.sum.dim_IntList(p_w, [0])\n" : "", also_sum ? ", t" : ",",
             also_sum ? "    t: USER_OUTPUT\n" : "", sym ? "s0: VR[2, 64]" : "");
    return buf;
}

static void test_linear_packed_panels(void) {
    eir_program *ref = parse(tied_program("16, 256", true)), *p = parse(tied_program("16, 256", true));
    CHECK(ref && p);
    if (!ref || !p) goto done;
    fill_state(ref), fill_state(p);
    CHECK(run_to_backend(p) == 2);
    CHECK(count_prefix(p, "torch.ops.eir_cpu.linear_packed.default") == 2);
    CHECK(verifies(p, EIR_DIALECT_BACKEND));
    /* one packed constant for both calls: 2 panels of 304 columns (600 rounded up to 16 per block),
     * the 8 past 600 zero; the weight stays (the sum reads it) */
    const eir_tensor *pw = eir_program_find_tensor(p, "_eir_cpu_fused0"), *w = eir_program_find_tensor(ref, "w");
    CHECK(!eir_program_find_tensor(p, "_eir_cpu_fused1") && eir_program_find_tensor(p, "w") != NULL);
    CHECK(pw && w && pw->rank == 3 && pw->sizes[0] == 2 && pw->sizes[1] == 256 && pw->sizes[2] == 304);
    if (pw && w && pw->rank == 3 && pw->sizes[2] == 304) {
        const float *d = (const float *)pw->data + pw->storage_offset, *s = (const float *)w->data + w->storage_offset;
        bool same = true;
        for (int i = 0; i < 608; i++)
            for (int q = 0; q < 256; q++)
                same &= d[(i / 304) * 256 * 304 + q * 304 + i % 304] == (i < 600 ? s[i * 256 + q] : 0.f);
        CHECK(same);
    }
    static float x[16 * 256], y0[16 * 600], y1[16 * 600];
    for (int i = 0; i < 16 * 256; i++) x[i] = cosf(0.37f * (float)i);
    int64_t xs[2] = {16, 256};
    setenv("EIR_NO_FUSION", "1", 1);
    CHECK(run(ref, x, xs, 2, y0, 16 * 600));
    unsetenv("EIR_NO_FUSION");
    CHECK(run(p, x, xs, 2, y1, 16 * 600));
    float scale = 0;
    for (int i = 0; i < 16 * 600; i++) scale = fmaxf(scale, fabsf(y0[i]));
    CHECK(scale > 1.f && max_diff(y0, y1, 16 * 600) < 1e-5f * scale);
    CHECK(run_to_backend(p) == 0);
done:
    eir_program_free(ref);
    eir_program_free(p);
    /* rows not known ahead: the weight stays (N, K) for the matrix-vector kernel a run may take */
    p = parse(tied_program("s0, 256", false));
    CHECK(p != NULL);
    if (!p) return;
    fill_state(p);
    CHECK(run_to_backend(p) == 2);
    CHECK(count_prefix(p, "torch.ops.eir_cpu.linear.default") == 2 && count_prefix(p, "torch.ops.eir_cpu.linear_packed") == 0);
    CHECK(eir_program_find_tensor(p, "w") != NULL && !eir_program_find_tensor(p, "_eir_cpu_fused0"));
    eir_program_free(p);
}

/* max_pool2d_with_indices whose indices nothing reads: eir_cpu::max_pool2d, the same values */
static void test_pool_values(void) {
    static const char *POOL =
        "ExportedProgram:\n"
        "    class GraphModule(torch.nn.Module):\n"
        "        def forward(self, x: \"f32[1, 2, 8, 8]\"):\n"
        "            max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(x, [3, 3], [2, 2], [1, 1])\n"
        "            getitem: \"f32[1, 2, 4, 4]\" = max_pool2d_with_indices[0]\n"
        "            getitem_1: \"i64[1, 2, 4, 4]\" = max_pool2d_with_indices[1];  max_pool2d_with_indices = None\n"
        "            return (getitem,)\n"
        "\n"
        "Graph signature:\n"
        "    # inputs\n"
        "    x: USER_INPUT\n"
        "\n"
        "    # outputs\n"
        "    getitem: USER_OUTPUT\n"
        "\n"
        "Range constraints: {}\n";
    eir_program *ref = parse(POOL), *p = parse(POOL);
    CHECK(ref && p);
    if (!ref || !p) goto done;
    CHECK(run_to_backend(p) == 1);
    CHECK(count_prefix(p, "torch.ops.eir_cpu.max_pool2d.default") == 1 && count_prefix(p, "torch.ops.aten.") == 0);
    CHECK(verifies(p, EIR_DIALECT_BACKEND));
    float x[2 * 64], y0[2 * 16], y1[2 * 16];
    for (int i = 0; i < 128; i++) x[i] = sinf(0.9f * (float)i) * (float)(i % 7);
    int64_t xs[4] = {1, 2, 8, 8};
    CHECK(run(ref, x, xs, 4, y0, 32) && run(p, x, xs, 4, y1, 32));
    CHECK(memcmp(y0, y1, sizeof y0) == 0);
    CHECK(run_to_backend(p) == 0);
done:
    eir_program_free(ref);
    eir_program_free(p);
}

/* A program the pass must leave as it is (or, with folds_but_keeps, fold and keep that state). */
static void refused(const char *what, const char *text, uint32_t want_changed) {
    eir_program *p = parse(text);
    CHECK(p != NULL);
    if (!p) return;
    fill_state(p);
    const eir_graph *g = eir_program_graph(p);
    uint32_t before = g->num_nodes;
    uint32_t changed = run_to_backend(p);
    if (changed != want_changed) fprintf(stderr, "%s: %u fused, expected %u\n", what, changed, want_changed);
    CHECK(changed == want_changed);
    if (!want_changed) {
        CHECK(eir_program_graph(p)->num_nodes == before);
        CHECK(count_prefix(p, "torch.ops.eir_cpu.") == 0);
    }
    eir_program_free(p);
}

static void test_refusals(void) {
    /* the convolution's weight read by another call: no fold (the conv stays, so does the batch norm) */
    refused("weight used elsewhere",
            conv_program("f32", "            sum_1: \"f32[]\" = torch.ops.aten.sum.default(p_conv_weight)\n",
                         "relu, sum_1", "    relu: USER_OUTPUT\n    sum_1: USER_OUTPUT\n"),
            0);
    /* the convolution's result read twice */
    refused("conv output with two users", conv_program("f32", "", "relu, convolution",
                                                       "    relu: USER_OUTPUT\n    convolution: USER_OUTPUT\n"),
            0);
    /* float64 */
    refused("float64", conv_program("f64", "", "relu,", "    relu: USER_OUTPUT\n"), 0);
    /* the batch norm's running variance written by the program */
    refused("mutated buffer",
            conv_program("f32", "            add: \"f32[4]\" = torch.ops.aten.add.Tensor(b_bn_running_var, 1)\n",
                         "add, relu", "    add: BUFFER_MUTATION target='bn.running_var'\n    relu: USER_OUTPUT\n"),
            0);
    /* the batch norm's weight read elsewhere: it still folds, and the parameter stays */
    eir_program *p = parse(conv_program("f32", "            add: \"f32[4]\" = torch.ops.aten.add.Tensor(p_bn_weight, 1)\n",
                                        "relu, add", "    relu: USER_OUTPUT\n    add: USER_OUTPUT\n"));
    CHECK(p != NULL);
    if (p) {
        CHECK(run_to_backend(p) == 1);
        CHECK(eir_program_find_tensor(p, "bn.weight") != NULL && eir_program_find_tensor(p, "conv.weight") == NULL);
        CHECK(verifies(p, EIR_DIALECT_BACKEND));
        eir_program_free(p);
    }
    /* aten.batch_norm in training mode after aten.conv2d (ATen): nothing to fold; relu does not follow the conv */
    static const char *TRAINING =
        "ExportedProgram:\n"
        "    class GraphModule(torch.nn.Module):\n"
        "        def forward(self, p_w: \"f32[4, 3, 3, 3]\", b_m: \"f32[4]\", b_v: \"f32[4]\", x: \"f32[2, 3, 8, 8]\"):\n"
        "            conv2d: \"f32[2, 4, 6, 6]\" = torch.ops.aten.conv2d.default(x, p_w)\n"
        "            batch_norm: \"f32[2, 4, 6, 6]\" = torch.ops.aten.batch_norm.default(conv2d, None, None, b_m, b_v, "
        "True, 0.1, 1e-05, False)\n"
        "            relu: \"f32[2, 4, 6, 6]\" = torch.ops.aten.relu.default(batch_norm)\n"
        "            return (relu,)\n"
        "\n"
        "Graph signature:\n"
        "    # inputs\n"
        "    p_w: PARAMETER target='w'\n"
        "    b_m: BUFFER target='m' persistent=True\n"
        "    b_v: BUFFER target='v' persistent=True\n"
        "    x: USER_INPUT\n"
        "\n"
        "    # outputs\n"
        "    relu: USER_OUTPUT\n"
        "\n"
        "Range constraints: {}\n";
    refused("training", TRAINING, 0);
}

static void test_verifier(void) {
    /* an eir_cpu call with a bad activation and float64 input: named violations */
    static const char *BAD =
        "ExportedProgram:\n"
        "    class GraphModule(torch.nn.Module):\n"
        "        def forward(self, p_fc_weight: \"f32[5, 7]\", x: \"f64[3, 7]\"):\n"
        "            l: \"f32[3, 5]\" = torch.ops.eir_cpu.linear.default(x, p_fc_weight, None, 'gelu')\n"
        "            return (l,)\n"
        "\n"
        "Graph signature:\n"
        "    # inputs\n"
        "    p_fc_weight: PARAMETER target='fc.weight'\n"
        "    x: USER_INPUT\n"
        "\n"
        "    # outputs\n"
        "    l: USER_OUTPUT\n"
        "\n"
        "Range constraints: {}\n";
    eir_program *p = parse(BAD);
    CHECK(p != NULL);
    if (!p) return;
    eir_verify_report *r = NULL;
    CHECK(eir_program_verify(p, EIR_DIALECT_BACKEND, &r) == EIR_ERR_INVALID);
    bool act = false, dtype = false;
    for (uint32_t i = 0; i < eir_verify_num_violations(r); i++) {
        const eir_violation *v = eir_verify_violation(r, i);
        act |= !strcmp(v->rule, "backend.activation") && strstr(v->message, "'gelu'") != NULL;
        dtype |= !strcmp(v->rule, "backend.dtype") && !strcmp(v->arg, "input");
    }
    CHECK(act && dtype);
    eir_verify_report_free(r);
    CHECK(verifies(p, EIR_DIALECT_ATEN));       /* a custom operator there */
    eir_program_free(p);
}

/* the blocked layout's operators: a valid chain, then wrong block counts and channels */
static const char *blocked_program(const char *yb_sizes, const char *channels) {
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "ExportedProgram:\n"
             "    class GraphModule(torch.nn.Module):\n"
             "        def forward(self, p_w: \"f32[16, 16, 3, 3]\", x: \"f32[1, 16, 8, 8]\"):\n"
             "            xb: \"f32[1, 1, 8, 8, 16]\" = torch.ops.eir_cpu.to_blocked.default(x, 16)\n"
             "            yb: \"f32[%s]\" = torch.ops.eir_cpu.conv2d_blocked.default(xb, p_w, None, [1, 1], [1, 1], "
             "[1, 1], 1, 16, 'relu', None, None, xb)\n"
             "            y: \"f32[1, 16, 8, 8]\" = torch.ops.eir_cpu.from_blocked.default(yb, %s)\n"
             "            return (y,)\n"
             "\n"
             "Graph signature:\n"
             "    # inputs\n"
             "    p_w: PARAMETER target='w'\n"
             "    x: USER_INPUT\n"
             "\n"
             "    # outputs\n"
             "    y: USER_OUTPUT\n"
             "\n"
             "Range constraints: {}\n",
             yb_sizes, channels);
    return buf;
}

/* the program of text fails the Backend dialect with a violation of rule whose message holds needle */
static bool breaks(const char *text, const char *rule, const char *needle) {
    eir_program *p = parse(text);
    CHECK(p != NULL);
    if (!p) return false;
    eir_verify_report *r = NULL;
    CHECK(eir_program_verify(p, EIR_DIALECT_BACKEND, &r) == EIR_ERR_INVALID);
    bool found = false;
    for (uint32_t i = 0; i < eir_verify_num_violations(r); i++) {
        const eir_violation *v = eir_verify_violation(r, i);
        found |= !strcmp(v->rule, rule) && strstr(v->message, needle) != NULL;
    }
    CHECK(found);
    eir_verify_report_free(r);
    eir_program_free(p);
    return found;
}

/* eir_cpu.linear_packed: panels that hold out_features columns and multiply the input */
static const char *packed_program(const char *x_sizes, const char *w_sizes, int out_features) {
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "ExportedProgram:\n"
             "    class GraphModule(torch.nn.Module):\n"
             "        def forward(self, c_w: \"f32[%s]\", x: \"f32[%s]\"):\n"
             "            l: \"f32[8, %d]\" = torch.ops.eir_cpu.linear_packed.default(x, c_w, None, %d)\n"
             "            return (l,)\n"
             "\n"
             "Graph signature:\n"
             "    # inputs\n"
             "    c_w: CONSTANT_TENSOR target='w'\n"
             "    x: USER_INPUT\n"
             "\n"
             "    # outputs\n"
             "    l: USER_OUTPUT\n"
             "\n"
             "Range constraints: {}\n",
             w_sizes, x_sizes, out_features, out_features);
    return buf;
}

static void test_verifier_packed(void) {
    eir_program *p = parse(packed_program("8, 32", "3, 32, 48", 100));
    CHECK(p != NULL);
    if (p) CHECK(verifies(p, EIR_DIALECT_BACKEND));
    eir_program_free(p);
    breaks(packed_program("8, 32", "3, 32, 48", 96), "backend.packed", "does not fill the last of 3 panels");
    breaks(packed_program("8, 32", "3, 32, 48", 145), "backend.packed", "does not fill the last of 3 panels");
    breaks(packed_program("8, 31", "3, 32, 48", 100), "backend.packed", "is not the packed weight's K (32)");
    breaks(packed_program("8, 32", "32, 100", 100), "backend.rank", "has 2 dims, expected 3");
    /* run anyway: the kernel refuses the call with the same facts, and a valid one computes
     * input @ weight^T from the panels */
    static const struct { const char *w; int n; const char *msg; } runs[] = {
        {"3, 32, 48", 96, "do not give 96 columns"},
        {"3, 32, 48", 100, NULL},
    };
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        p = parse(packed_program("8, 32", runs[k].w, runs[k].n));
        CHECK(p != NULL);
        if (!p) continue;
        fill_state(p);
        static float x[8 * 32], y[8 * 100];
        for (int i = 0; i < 8 * 32; i++) x[i] = cosf(0.5f * (float)i);
        int64_t xs[2] = {8, 32};
        char msg[512] = "";
        bool ok = run_msg(p, x, xs, 2, y, 8 * runs[k].n, msg, sizeof msg);
        CHECK(runs[k].msg ? !ok && strstr(msg, runs[k].msg) : ok);
        if (!runs[k].msg && ok) {
            const eir_tensor *w = eir_program_find_tensor(p, "w");
            const float *wd = (const float *)w->data + w->storage_offset;
            float worst = 0;
            for (int r = 0; r < 8; r++)
                for (int n = 0; n < 100; n++) {
                    double acc = 0;
                    for (int q = 0; q < 32; q++) acc += (double)x[r * 32 + q] * wd[(n / 48) * 32 * 48 + q * 48 + n % 48];
                    worst = fmaxf(worst, fabsf((float)acc - y[r * 100 + n]));
                }
            CHECK(worst < 1e-4f);
        }
        eir_program_free(p);
    }
}

static void test_verifier_blocked(void) {
    eir_program *p = parse(blocked_program("1, 1, 8, 8, 16", "16"));
    CHECK(p != NULL);
    if (p) CHECK(verifies(p, EIR_DIALECT_BACKEND));
    eir_program_free(p);
    static const struct { const char *sizes, *channels, *arg; } bad[] = {
        {"1, 2, 8, 8, 16", "16", "residual"},   /* two blocks for 16 channels; the residual differs too */
        {"1, 1, 8, 8, 16", "12", "channels"},   /* from_blocked names 12 channels of a 16-channel result */
        {"1, 1, 8, 8, 8", "16", NULL},          /* blocked by 8, not the 16 it says */
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        if (!breaks(blocked_program(bad[k].sizes, bad[k].channels), "backend.blocked", ""))
            fprintf(stderr, "test_verifier_blocked: case %zu has no backend.blocked violation\n", k);
    }
}

/* max_pool2d_blocked: a valid call, then a result not blocked like its input, a 4-d input, a
 * float64 input */
static const char *pool_program(const char *x_sizes, const char *y_sizes, const char *dt) {
    static char buf[2048];
    snprintf(buf, sizeof buf,
             "ExportedProgram:\n"
             "    class GraphModule(torch.nn.Module):\n"
             "        def forward(self, x: \"%s[%s]\"):\n"
             "            y: \"%s[%s]\" = torch.ops.eir_cpu.max_pool2d_blocked.default(x, [3, 3], [2, 2], [1, 1])\n"
             "            return (y,)\n"
             "\n"
             "Graph signature:\n"
             "    # inputs\n"
             "    x: USER_INPUT\n"
             "\n"
             "    # outputs\n"
             "    y: USER_OUTPUT\n"
             "\n"
             "Range constraints: {}\n",
             dt, x_sizes, dt, y_sizes);
    return buf;
}

static void test_verifier_pool_blocked(void) {
    eir_program *p = parse(pool_program("1, 2, 8, 8, 16", "1, 2, 4, 4, 16", "f32"));
    CHECK(p != NULL);
    if (p) CHECK(verifies(p, EIR_DIALECT_BACKEND));
    eir_program_free(p);
    static const struct { const char *x, *y, *dt, *rule, *needle; } bad[] = {
        {"1, 2, 8, 8, 16", "1, 2, 4, 4, 8", "f32", "backend.blocked", "dim 4 is 8, the input's 16"},
        {"1, 2, 8, 8, 16", "1, 1, 4, 4, 16", "f32", "backend.blocked", "dim 1 is 1, the input's 2"},
        {"1, 32, 8, 8", "1, 32, 4, 4", "f32", "backend.rank", "has 4 dims, expected 5 (blocked)"},
        {"1, 2, 8, 8, 16", "1, 2, 4, 4, 16", "f64", "backend.dtype", "runs on float32 tensors"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        if (!breaks(pool_program(bad[k].x, bad[k].y, bad[k].dt), bad[k].rule, bad[k].needle))
            fprintf(stderr, "test_verifier_pool_blocked: case %zu has no %s violation\n", k, bad[k].rule);
    }
}

int main(void) {
    /* rewrites (a)-(d) as they write them: the blocked chains of (e), which would take these
     * convolutions on a machine with oneDNN, have their own tests (test_blocked_conv.c,
     * python/tests/test_blocked_conv.py) */
    setenv("EIR_DNNL_BLOCKED", "0", 1);
    test_conv_bn_relu();
    test_linear_hardtanh();
    test_linear_packed_panels();
    test_pool_values();
    test_refusals();
    test_verifier();
    test_verifier_blocked();
    test_verifier_pool_blocked();
    test_verifier_packed();
    return check_summary("test_backend");
}
