/* test_backend_attn.c — the pass to-backend on the chain torch's
 * run_decompositions() writes for scaled_dot_product_attention (mul, permute,
 * bmm, an added mask, _softmax and its -inf guard, bmm, with view / expand
 * chains; the program text below is torch's print of it): one
 * eir_cpu::attention call that `eir verify --dialect backend` accepts and
 * that runs to the outputs of the unfused chain, a row whose mask is all -inf
 * giving 0 as torch's guard makes it; and the programs the pass must leave
 * alone: an intermediate read outside the chain, a softmax over another
 * dim, float64. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "eir.h"
#include "check.h"

/* dt: "f32" or "f64"; smdim: the dim of _softmax (-1); ret, sig_out: what the program returns */
static char *attn_program(const char *dt, int smdim, const char *ret, const char *sig_out) {
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "ExportedProgram:\n"
             "    class GraphModule(torch.nn.Module):\n"
             "        def forward(self, q: \"%s[1, 2, 3, 4]\", k: \"%s[1, 2, 5, 4]\", v: \"%s[1, 2, 5, 6]\", mask: \"%s[3, 5]\"):\n"
             "            mul: \"%s[1, 2, 3, 4]\" = torch.ops.aten.mul.Scalar(q, 0.7071067811865476)\n"
             "            permute: \"%s[1, 2, 4, 5]\" = torch.ops.aten.permute.default(k, [0, 1, 3, 2])\n"
             "            mul_1: \"%s[1, 2, 4, 5]\" = torch.ops.aten.mul.Scalar(permute, 0.7071067811865476)\n"
             "            expand: \"%s[1, 2, 3, 4]\" = torch.ops.aten.expand.default(mul, [1, 2, 3, 4])\n"
             "            view: \"%s[2, 3, 4]\" = torch.ops.aten.view.default(expand, [2, 3, 4])\n"
             "            expand_1: \"%s[1, 2, 4, 5]\" = torch.ops.aten.expand.default(mul_1, [1, 2, 4, 5])\n"
             "            view_1: \"%s[2, 4, 5]\" = torch.ops.aten.view.default(expand_1, [2, 4, 5])\n"
             "            bmm: \"%s[2, 3, 5]\" = torch.ops.aten.bmm.default(view, view_1)\n"
             "            view_2: \"%s[1, 2, 3, 5]\" = torch.ops.aten.view.default(bmm, [1, 2, 3, 5])\n"
             "            add: \"%s[1, 2, 3, 5]\" = torch.ops.aten.add.Tensor(view_2, mask)\n"
             "            _softmax: \"%s[1, 2, 3, 5]\" = torch.ops.aten._softmax.default(add, %d, False)\n"
             "            eq: \"b8[1, 2, 3, 5]\" = torch.ops.aten.eq.Scalar(add, -inf)\n"
             "            logical_not: \"b8[1, 2, 3, 5]\" = torch.ops.aten.logical_not.default(eq)\n"
             "            any_1: \"b8[1, 2, 3, 1]\" = torch.ops.aten.any.dim(logical_not, -1, True)\n"
             "            logical_not_1: \"b8[1, 2, 3, 1]\" = torch.ops.aten.logical_not.default(any_1)\n"
             "            full_like: \"%s[1, 2, 3, 5]\" = torch.ops.aten.full_like.default(_softmax, 0, pin_memory = False, "
             "memory_format = torch.preserve_format)\n"
             "            where: \"%s[1, 2, 3, 5]\" = torch.ops.aten.where.self(logical_not_1, full_like, _softmax)\n"
             "            expand_2: \"%s[1, 2, 3, 5]\" = torch.ops.aten.expand.default(where, [1, 2, 3, 5])\n"
             "            view_3: \"%s[2, 3, 5]\" = torch.ops.aten.view.default(expand_2, [2, 3, 5])\n"
             "            expand_3: \"%s[1, 2, 5, 6]\" = torch.ops.aten.expand.default(v, [1, 2, 5, 6])\n"
             "            view_4: \"%s[2, 5, 6]\" = torch.ops.aten.view.default(expand_3, [2, 5, 6])\n"
             "            bmm_1: \"%s[2, 3, 6]\" = torch.ops.aten.bmm.default(view_3, view_4)\n"
             "            view_5: \"%s[1, 2, 3, 6]\" = torch.ops.aten.view.default(bmm_1, [1, 2, 3, 6])\n"
             "            return (%s)\n"
             "\n"
             "Graph signature:\n"
             "    # inputs\n"
             "    q: USER_INPUT\n"
             "    k: USER_INPUT\n"
             "    v: USER_INPUT\n"
             "    mask: USER_INPUT\n"
             "\n"
             "    # outputs\n"
             "%s"
             "\n"
             "Range constraints: {}\n",
             dt, dt, dt, dt,                                  /* the inputs */
             dt, dt, dt, dt, dt, dt, dt, dt, dt, dt,          /* mul .. add */
             dt, smdim,                                       /* _softmax */
             dt, dt, dt, dt, dt, dt, dt, dt, ret, sig_out);   /* full_like .. view_5 */
    return buf;
}

static eir_program *parse(const char *text) {
    eir_program *p = NULL;
    if (eir_program_parse(text, strlen(text), &p) != EIR_OK) {
        fprintf(stderr, "parse: %s\n", p ? eir_errmsg(p) : "out of memory");
        eir_program_free(p);
        return NULL;
    }
    return p;
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

enum { NQ = 1 * 2 * 3 * 4, NK = 1 * 2 * 5 * 4, NV = 1 * 2 * 5 * 6, NM = 3 * 5, NY = 1 * 2 * 3 * 6 };

/* Output 0 of p on q, k, v, mask into y, on `threads` threads. */
static bool run(eir_program *p, const float *q, const float *k, const float *v, const float *m, float *y, int threads) {
    eir_runtime *rt = NULL;
    if (eir_runtime_create(p, &rt) != EIR_OK) {
        fprintf(stderr, "runtime: %s\n", eir_runtime_errmsg(rt));
        eir_runtime_free(rt);
        return false;
    }
    static const int64_t qs[4] = {1, 2, 3, 4}, ks[4] = {1, 2, 5, 4}, vs[4] = {1, 2, 5, 6}, ms[2] = {3, 5};
    eir_tensor_view in[4] = {{(void *)q, EIR_F32, 4, qs, NULL}, {(void *)k, EIR_F32, 4, ks, NULL},
                             {(void *)v, EIR_F32, 4, vs, NULL}, {(void *)m, EIR_F32, 2, ms, NULL}}, out;
    bool ok = eir_runtime_set_threads(rt, threads) == EIR_OK;
    for (uint32_t i = 0; i < 4 && ok; i++) ok = eir_runtime_set_input(rt, i, &in[i]) == EIR_OK;
    ok = ok && eir_runtime_run(rt) == EIR_OK && eir_runtime_output(rt, 0, &out) == EIR_OK && eir_tensor_numel(&out) == NY &&
         out.dtype == EIR_F32 && eir_tensor_is_contiguous(&out);
    if (!ok) fprintf(stderr, "run: %s\n", eir_runtime_errmsg(rt));
    if (ok) memcpy(y, out.data, (size_t)NY * sizeof *y);
    eir_runtime_free(rt);
    return ok;
}

static void test_fused(void) {
    const char *text = attn_program("f32", -1, "view_5,", "    view_5: USER_OUTPUT\n");
    eir_program *ref = parse(text), *p = parse(text);
    CHECK(ref && p);
    if (!ref || !p) goto done;
    CHECK(run_to_backend(p) == 1);
    CHECK(count_prefix(p, "torch.ops.eir_cpu.attention.default") == 1);
    /* the whole chain is gone: one call left */
    CHECK(eir_program_graph(p)->num_nodes == 1);
    CHECK(verifies(p, EIR_DIALECT_BACKEND));
    char *pt = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_GRAPH, &pt) == EIR_OK && pt &&
          strstr(pt, "torch.ops.eir_cpu.attention.default](args = (%q, %k, %v, %mask, 0.5000000000000001)"));
    eir_free(pt);
    float q[NQ], k[NK], v[NV], m[NM], y0[NY], y1[NY], y2[NY];
    for (int i = 0; i < NQ; i++) q[i] = 2.f * sinf(0.9f * (float)i);
    for (int i = 0; i < NK; i++) k[i] = 1.5f * cosf(0.7f * (float)i + 1.f);
    for (int i = 0; i < NV; i++) v[i] = sinf(0.3f * (float)i - 2.f);
    for (int i = 0; i < NM; i++) m[i] = i % 4 == 1 ? -INFINITY : 0.25f * (float)(i % 3);
    for (int j = 0; j < 5; j++) m[2 * 5 + j] = -INFINITY;       /* query row 2: every key masked */
    setenv("EIR_NO_FUSION", "1", 1);
    CHECK(run(ref, q, k, v, m, y0, 1));
    unsetenv("EIR_NO_FUSION");
    CHECK(run(p, q, k, v, m, y1, 1));
    float d = 0;
    for (int i = 0; i < NY; i++) d = fmaxf(d, fabsf(y0[i] - y1[i]));
    CHECK(d < 1e-6f);
    /* the fully masked row: 0 in both, not NaN */
    for (int h = 0; h < 2; h++)
        for (int j = 0; j < 6; j++) CHECK(y0[(h * 3 + 2) * 6 + j] == 0.f && y1[(h * 3 + 2) * 6 + j] == 0.f);
    /* the runtime fuses the chain itself, to the same bits as the pass's program, at 1 and 2 threads */
    CHECK(run(ref, q, k, v, m, y2, 2));
    CHECK(!memcmp(y1, y2, sizeof y1));
    /* a second pass has nothing left to do */
    CHECK(run_to_backend(p) == 0);
done:
    eir_program_free(ref);
    eir_program_free(p);
}

static void refused(const char *what, const char *text) {
    eir_program *p = parse(text);
    CHECK(p != NULL);
    if (!p) return;
    uint32_t before = eir_program_graph(p)->num_nodes;
    uint32_t changed = run_to_backend(p);
    if (changed) fprintf(stderr, "%s: %u fused, expected none\n", what, changed);
    CHECK(changed == 0 && eir_program_graph(p)->num_nodes == before);
    CHECK(count_prefix(p, "torch.ops.eir_cpu.") == 0);
    eir_program_free(p);
}

static void test_refusals(void) {
    /* the attention weights are returned too */
    refused("softmax read outside", attn_program("f32", -1, "view_5, _softmax",
                                                 "    view_5: USER_OUTPUT\n    _softmax: USER_OUTPUT\n"));
    /* the scores are returned too */
    refused("scores read outside", attn_program("f32", -1, "view_5, bmm", "    view_5: USER_OUTPUT\n    bmm: USER_OUTPUT\n"));
    /* a softmax over another dim than the keys' */
    refused("softmax over dim 2", attn_program("f32", 2, "view_5,", "    view_5: USER_OUTPUT\n"));
    /* float64 */
    refused("float64", attn_program("f64", -1, "view_5,", "    view_5: USER_OUTPUT\n"));
}

/* eir_cpu::attention on operands that do not multiply: refused at run time, the node named */
static void test_bad_shapes(void) {
    static const char *BAD =
        "ExportedProgram:\n"
        "    class GraphModule(torch.nn.Module):\n"
        "        def forward(self, q: \"f32[1, 2, 3, 4]\", k: \"f32[1, 2, 5, 3]\", v: \"f32[1, 2, 5, 6]\", mask: \"f32[3, 5]\"):\n"
        "            att: \"f32[1, 2, 3, 6]\" = torch.ops.eir_cpu.attention.default(q, k, v, mask, 0.5)\n"
        "            return (att,)\n"
        "\n"
        "Graph signature:\n"
        "    # inputs\n"
        "    q: USER_INPUT\n"
        "    k: USER_INPUT\n"
        "    v: USER_INPUT\n"
        "    mask: USER_INPUT\n"
        "\n"
        "    # outputs\n"
        "    att: USER_OUTPUT\n"
        "\n"
        "Range constraints: {}\n";
    eir_program *p = parse(BAD);
    CHECK(p != NULL);
    if (!p) return;
    eir_runtime *rt = NULL;
    if (eir_runtime_create(p, &rt) == EIR_OK) {
        static const int64_t qs[4] = {1, 2, 3, 4}, ks[4] = {1, 2, 5, 3}, vs[4] = {1, 2, 5, 6}, ms[2] = {3, 5};
        static float buf[64];
        eir_tensor_view in[4] = {{buf, EIR_F32, 4, qs, NULL}, {buf, EIR_F32, 4, ks, NULL}, {buf, EIR_F32, 4, vs, NULL},
                                 {buf, EIR_F32, 2, ms, NULL}};
        bool set = true;
        for (uint32_t i = 0; i < 4; i++) set = set && eir_runtime_set_input(rt, i, &in[i]) == EIR_OK;
        CHECK(set);
        CHECK(eir_runtime_run(rt) != EIR_OK);
        const char *msg = eir_runtime_errmsg(rt);
        if (!strstr(msg, "att") || !strstr(msg, "do not multiply")) fprintf(stderr, "message: %s\n", msg);
        CHECK(strstr(msg, "att") && strstr(msg, "eir_cpu::attention") && strstr(msg, "do not multiply"));
    } else {
        /* refused when the runtime is made: the message still names the call */
        const char *msg = eir_runtime_errmsg(rt);
        fprintf(stderr, "runtime create: %s\n", msg);
        CHECK(strstr(msg, "att") != NULL);
    }
    eir_runtime_free(rt);
    eir_program_free(p);
}

int main(void) {
    test_fused();
    test_bad_shapes();
    test_refusals();
    return check_summary("test_backend_attn");
}
