/* test_meta.c — shape and dtype inference (src/ops/meta.c) on one-node
 * programs written as model.json text: type promotion, broadcasting,
 * TensorIterator's output layout (channels-last stays channels-last), view
 * strides and offsets, channels-last convolution, reductions with keepdim,
 * symbolic sizes, data-dependent sizes, and errors naming the node and the
 * argument; the public API (eir_node_infer_meta, eir_program_fill_meta on a
 * program built with the editing API). Expected values are worked out by
 * hand from torch's rules (and match torch 2.13's recorded metadata). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eir.h"
#include "ir/program.h"
#include "ops/meta.h"
#include "ops/optable.h"

/* one size, stride or offset: "3", "s0" (a symbol), "24*s1" */
static void put_dim(eir_buf *b, const char *s, size_t n) {
    const char *star = memchr(s, '*', n);
    if (star)
        eir_buf_printf(b, "{\"as_expr\": {\"expr_str\": \"Mul(Integer(%.*s), Symbol('%.*s', positive=True, "
                       "integer=True))\", \"hint\": {\"as_int\": 5}}}", (int)(star - s), s, (int)(n - (size_t)(star - s) - 1),
                       star + 1);
    else if (s[0] == 's')
        eir_buf_printf(b, "{\"as_expr\": {\"expr_str\": \"Symbol('%.*s', positive=True, integer=True)\", "
                       "\"hint\": {\"as_int\": 5}}}", (int)n, s);
    else
        eir_buf_printf(b, "{\"as_int\": %.*s}", (int)n, s);
}

/* a comma-separated list of dims as a JSON list */
static void put_dims(eir_buf *b, const char *s, size_t n) {
    eir_buf_putc(b, '[');
    size_t i = 0;
    bool first = true;
    while (i < n) {
        size_t j = i;
        while (j < n && s[j] != ',') j++;
        if (j > i) {
            if (!first) eir_buf_puts(b, ", ");
            first = false;
            put_dim(b, s + i, j - i);
        }
        i = j + 1;
    }
    eir_buf_putc(b, ']');
}

/* a tensor value's JSON from "dtype:sizes:strides:offset" ("7:2,3:3,1:0") */
static void put_meta(eir_buf *b, const char *name, const char *spec) {
    const char *c1 = strchr(spec, ':'), *c2 = strchr(c1 + 1, ':'), *c3 = strchr(c2 + 1, ':');
    eir_buf_printf(b, "\"%s\": {\"dtype\": %.*s, \"sizes\": ", name, (int)(c1 - spec), spec);
    put_dims(b, c1 + 1, (size_t)(c2 - c1 - 1));
    eir_buf_puts(b, ", \"requires_grad\": false, \"device\": {\"type\": \"cpu\", \"index\": null}, \"strides\": ");
    put_dims(b, c2 + 1, (size_t)(c3 - c2 - 1));
    eir_buf_puts(b, ", \"storage_offset\": ");
    put_dim(b, c3 + 1, strlen(c3 + 1));
    eir_buf_puts(b, ", \"layout\": 7}");
}

/* A program with user inputs ins[] ("name=spec"), one node `target` with
 * the JSON argument list `args`, and outputs outs[] ("name=spec"; with
 * list: the outputs are one Tensor[]). */
static eir_program *prog(const char *const *ins, uint32_t nin, const char *target, const char *args,
                         const char *const *outs, uint32_t nout, bool list) {
    eir_buf b;
    eir_buf_init(&b);
    eir_buf_puts(&b, "{\"graph_module\": {\"graph\": {\"inputs\": [");
    for (uint32_t i = 0; i < nin; i++)
        eir_buf_printf(&b, "%s{\"as_tensor\": {\"name\": \"%.*s\"}}", i ? ", " : "", (int)(strchr(ins[i], '=') - ins[i]),
                       ins[i]);
    eir_buf_puts(&b, "], \"outputs\": [");
    for (uint32_t i = 0; i < nout; i++)
        eir_buf_printf(&b, "%s{\"as_tensor\": {\"name\": \"%.*s\"}}", i ? ", " : "",
                       (int)(strchr(outs[i], '=') - outs[i]), outs[i]);
    eir_buf_printf(&b, "], \"nodes\": [{\"target\": \"torch.ops.%s\", \"inputs\": %s, \"outputs\": [", target, args);
    if (list) eir_buf_puts(&b, "{\"as_tensors\": [");
    for (uint32_t i = 0; i < nout; i++)
        eir_buf_printf(&b, "%s{%s\"name\": \"%.*s\"%s}", i ? ", " : "", list ? "" : "\"as_tensor\": {",
                       (int)(strchr(outs[i], '=') - outs[i]), outs[i], list ? "" : "}");
    if (list) eir_buf_puts(&b, "]}");
    eir_buf_puts(&b, "], \"metadata\": {}, \"is_hop_single_tensor_return\": null, \"name\": \"n\"}], "
                     "\"tensor_values\": {");
    for (uint32_t i = 0; i < nin + nout; i++) {
        const char *s = i < nin ? ins[i] : outs[i - nin];
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(strchr(s, '=') - s), s);
        if (i) eir_buf_puts(&b, ", ");
        put_meta(&b, name, strchr(s, '=') + 1);
    }
    eir_buf_puts(&b, "}, \"sym_int_values\": {}, \"sym_bool_values\": {}, \"is_single_tensor_return\": false}, "
                     "\"signature\": {\"input_specs\": [");
    for (uint32_t i = 0; i < nin; i++)
        eir_buf_printf(&b, "%s{\"user_input\": {\"arg\": {\"as_tensor\": {\"name\": \"%.*s\"}}}}", i ? ", " : "",
                       (int)(strchr(ins[i], '=') - ins[i]), ins[i]);
    eir_buf_puts(&b, "], \"output_specs\": [");
    for (uint32_t i = 0; i < nout; i++)
        eir_buf_printf(&b, "%s{\"user_output\": {\"arg\": {\"as_tensor\": {\"name\": \"%.*s\"}}}}", i ? ", " : "",
                       (int)(strchr(outs[i], '=') - outs[i]), outs[i]);
    eir_buf_puts(&b, "]}, \"module_call_graph\": [], \"metadata\": {}}, \"opset_version\": {\"aten\": 10}, "
                     "\"range_constraints\": {\"s0\": {\"min_val\": 2, \"max_val\": 100}, \"s1\": {\"min_val\": 2, "
                     "\"max_val\": 100}}, \"schema_version\": {\"major\": 8, \"minor\": 20}, \"verifiers\": [], "
                     "\"torch_version\": \"2.13.0+cpu\", \"guards_code\": []}");
    eir_program *p = eir_program_new_empty();
    if (!p || b.oom || eir_serde_decode_model_json(p, b.data, b.len) != EIR_OK) {
        fprintf(stderr, "cannot decode: %s\n%s\n", p ? eir_errmsg(p) : "oom", b.data);
        eir_program_free(p);
        p = NULL;
    }
    eir_buf_free(&b);
    return p;
}

/* the inferred outputs of the program's node as "f32[2, 3] strides [3, 1] offset 0", one per line */
static char result[2048];

static const char *infer(eir_program *p) {
    if (!p) return "(no program)";
    eir_arena a;
    eir_arena_init(&a);
    eir_mtensor outs[8];
    char err[512];
    const eir_graph *g = eir_program_graph(p);
    int n = eir_meta_infer_node(p, g, &g->nodes[0], &a, outs, 8, err, sizeof err);
    result[0] = 0;
    if (n < 0) snprintf(result, sizeof result, "error: %s", err);
    for (int i = 0; i < n; i++) {
        eir_buf b;
        eir_buf_init(&b);
        const eir_mtensor *t = &outs[i];
        eir_buf_printf(&b, "%s[", t->dtype ? eir_dtype_abbr(t->dtype) : "?");
        for (uint32_t k = 0; k < t->rank; k++) {
            eir_buf_puts(&b, k ? ", " : "");
            if (t->sizes[k].kind == EIR_MDIM_INT) eir_buf_printf(&b, "%lld", (long long)t->sizes[k].c);
            else if (t->sizes[k].kind == EIR_MDIM_SYM) eir_sym_print(&b, t->sizes[k].e);
            else eir_buf_putc(&b, '?');
        }
        eir_buf_puts(&b, "]");
        if (t->strides_known) {
            eir_buf_puts(&b, " strides [");
            for (uint32_t k = 0; k < t->rank; k++) {
                eir_buf_puts(&b, k ? ", " : "");
                if (t->strides[k].kind == EIR_MDIM_INT) eir_buf_printf(&b, "%lld", (long long)t->strides[k].c);
                else if (t->strides[k].kind == EIR_MDIM_SYM) eir_sym_print(&b, t->strides[k].e);
                else eir_buf_putc(&b, '?');
            }
            eir_buf_printf(&b, "] offset %lld", t->offset.kind == EIR_MDIM_INT ? (long long)t->offset.c : -1LL);
        }
        snprintf(result + strlen(result), sizeof result - strlen(result), "%s%s", i ? "\n" : "", b.data);
        eir_buf_free(&b);
    }
    eir_arena_release(&a);
    eir_program_free(p);
    return result;
}

#define IN(...) (const char *const[]){__VA_ARGS__}
#define ONE(target, args, ...) \
    infer(prog(IN(__VA_ARGS__), sizeof(IN(__VA_ARGS__)) / sizeof(char *), target, args, IN("out=7:1:1:0"), 1, false))

static const char *X = "{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}";

static void test_promotion(void) {
    const char *bin = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                      "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}, \"kind\": 1}]";
    /* i64 + f32 -> f32; broadcasting [2, 1] with [3] */
    CHECK_STR(ONE("aten.add.Tensor", bin, "x=5:2,1:1,1:0", "y=7:3:1:0"), "f32[2, 3] strides [3, 1] offset 0");
    /* u8 + i8 -> i16 */
    CHECK_STR(ONE("aten.mul.Tensor", bin, "x=1:4:1:0", "y=2:4:1:0"), "i16[4] strides [1] offset 0");
    /* a 0-dim f64 tensor does not promote an f16 tensor */
    CHECK_STR(ONE("aten.add.Tensor", bin, "x=6:4:1:0", "y=8:::0"), "f16[4] strides [1] offset 0");
    /* ... but a float 0-dim tensor does promote an integer one, to its own dtype */
    CHECK_STR(ONE("aten.add.Tensor", bin, "x=5:4:1:0", "y=8:::0"), "f64[4] strides [1] offset 0");
    /* f16 + bf16 -> f32 */
    CHECK_STR(ONE("aten.sub.Tensor", bin, "x=6:4:1:0", "y=13:4:1:0"), "f32[4] strides [1] offset 0");
    /* a wrapped float with an integer tensor: the default dtype (f32) */
    const char *scalar = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                         "{\"name\": \"other\", \"arg\": {\"as_float\": 2.5}, \"kind\": 1}]";
    CHECK_STR(ONE("aten.mul.Tensor", scalar, "x=4:3:1:0"), "f32[3] strides [1] offset 0");
    /* ... and with an f16 tensor, f16 */
    CHECK_STR(ONE("aten.mul.Tensor", scalar, "x=6:3:1:0"), "f16[3] strides [1] offset 0");
    /* true division of integers gives f32; comparisons bool */
    CHECK_STR(ONE("aten.div.Tensor", bin, "x=5:3:1:0", "y=5:3:1:0"), "f32[3] strides [1] offset 0");
    CHECK_STR(ONE("aten.lt.Tensor", bin, "x=5:3:1:0", "y=7:3:1:0"), "b8[3] strides [1] offset 0");
    /* sigmoid of an integer tensor is f32 */
    char one[256];
    snprintf(one, sizeof one, "[%s]", X);
    CHECK_STR(ONE("aten.sigmoid.default", one, "x=3:3:1:0"), "f32[3] strides [1] offset 0");
}

static void test_layouts(void) {
    const char *bin = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                      "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}, \"kind\": 1}]";
    /* channels-last inputs give a channels-last output */
    CHECK_STR(ONE("aten.add.Tensor", bin, "x=7:2,3,4,5:60,1,15,3:0", "y=7:2,3,4,5:60,1,15,3:0"),
              "f32[2, 3, 4, 5] strides [60, 1, 15, 3] offset 0");
    /* a channels-last tensor plus a broadcast bias [3, 1, 1] stays channels-last */
    CHECK_STR(ONE("aten.add.Tensor", bin, "x=7:2,3,4,5:60,1,15,3:0", "y=7:3,1,1:1,1,1:0"),
              "f32[2, 3, 4, 5] strides [60, 1, 15, 3] offset 0");
    /* a transposed input: the output follows its layout */
    char one[256];
    snprintf(one, sizeof one, "[%s]", X);
    CHECK_STR(ONE("aten.relu.default", one, "x=7:3,2:1,3:0"), "f32[3, 2] strides [1, 3] offset 0");
    /* a strided (non-dense) input: dense strides in its order, offset 0 */
    CHECK_STR(ONE("aten.neg.default", one, "x=7:2,3:8,2:5"), "f32[2, 3] strides [3, 1] offset 0");
    /* clone keeps a dense input's strides */
    CHECK_STR(ONE("aten.clone.default", one, "x=7:2,3:1,2:0"), "f32[2, 3] strides [1, 2] offset 0");
    const char *clone_cf = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                           "{\"name\": \"memory_format\", \"arg\": {\"as_memory_format\": 1}, \"kind\": 2}]";
    CHECK_STR(ONE("aten.clone.default", clone_cf, "x=7:2,3:1,2:0"), "f32[2, 3] strides [3, 1] offset 0");
}

static void test_views(void) {
    char args[512];
    snprintf(args, sizeof args, "[%s, {\"name\": \"dims\", \"arg\": {\"as_ints\": [2, 0, 1]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.permute.default", args, "x=7:2,3,4:12,4,1:0"), "f32[4, 2, 3] strides [1, 12, 4] offset 0");
    /* x[:, 1::2] of a [4, 6] tensor at offset 3 */
    snprintf(args, sizeof args, "[%s, {\"name\": \"dim\", \"arg\": {\"as_int\": 1}, \"kind\": 1}, {\"name\": "
             "\"start\", \"arg\": {\"as_int\": 1}, \"kind\": 1}, {\"name\": \"end\", \"arg\": {\"as_int\": "
             "9223372036854775807}, \"kind\": 1}, {\"name\": \"step\", \"arg\": {\"as_int\": 2}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.slice.Tensor", args, "x=7:4,6:6,1:3"), "f32[4, 3] strides [6, 2] offset 4");
    /* x[-1] */
    snprintf(args, sizeof args, "[%s, {\"name\": \"dim\", \"arg\": {\"as_int\": 0}, \"kind\": 1}, {\"name\": "
             "\"index\", \"arg\": {\"as_int\": -1}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.select.int", args, "x=7:4,6:6,1:0"), "f32[6] strides [1] offset 18");
    /* view of a transposed-then-sliced tensor where a view exists: [4, 6] strides [1, 4] -> [4, 2, 3] */
    snprintf(args, sizeof args, "[%s, {\"name\": \"size\", \"arg\": {\"as_ints\": [4, 2, 3]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.view.default", args, "x=7:4,6:1,4:0"), "f32[4, 2, 3] strides [1, 12, 4] offset 0");
    /* reshape with -1 of a contiguous tensor keeps its offset */
    snprintf(args, sizeof args, "[%s, {\"name\": \"shape\", \"arg\": {\"as_ints\": [-1, 4]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.reshape.default", args, "x=7:2,3,4:12,4,1:7"), "f32[6, 4] strides [4, 1] offset 7");
    /* reshape that cannot be a view copies */
    snprintf(args, sizeof args, "[%s, {\"name\": \"shape\", \"arg\": {\"as_ints\": [6]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.reshape.default", args, "x=7:2,3:1,2:0"), "f32[6] strides [1] offset 0");
    /* expand: a size-1 dim and a new leading dim get stride 0 */
    snprintf(args, sizeof args, "[%s, {\"name\": \"size\", \"arg\": {\"as_ints\": [5, 3, -1]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.expand.default", args, "x=7:1,4:4,1:0"), "f32[5, 3, 4] strides [0, 0, 1] offset 0");
    /* unsqueeze in the middle: stride size*stride of the dim after */
    snprintf(args, sizeof args, "[%s, {\"name\": \"dim\", \"arg\": {\"as_int\": 1}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.unsqueeze.default", args, "x=7:2,3:3,1:0"), "f32[2, 1, 3] strides [3, 3, 1] offset 0");
    /* split_with_sizes: offsets along the dim */
    snprintf(args, sizeof args, "[%s, {\"name\": \"split_sizes\", \"arg\": {\"as_ints\": [1, 3]}, \"kind\": 1}, "
             "{\"name\": \"dim\", \"arg\": {\"as_int\": 1}, \"kind\": 1}]", X);
    CHECK_STR(infer(prog(IN("x=7:2,4:4,1:0"), 1, "aten.split_with_sizes.default", args,
                         IN("a=7:2,1:4,1:0", "b=7:2,3:4,1:1"), 2, true)),
              "f32[2, 1] strides [4, 1] offset 0\nf32[2, 3] strides [4, 1] offset 1");
}

static void test_conv_reduce(void) {
    const char *conv = "[{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                       "{\"name\": \"weight\", \"arg\": {\"as_tensor\": {\"name\": \"w\"}}, \"kind\": 1}, "
                       "{\"name\": \"bias\", \"arg\": {\"as_none\": true}, \"kind\": 1}, "
                       "{\"name\": \"stride\", \"arg\": {\"as_ints\": [2, 2]}, \"kind\": 1}, "
                       "{\"name\": \"padding\", \"arg\": {\"as_ints\": [1, 1]}, \"kind\": 1}, "
                       "{\"name\": \"dilation\", \"arg\": {\"as_ints\": [1, 1]}, \"kind\": 1}, "
                       "{\"name\": \"transposed\", \"arg\": {\"as_bool\": false}, \"kind\": 1}, "
                       "{\"name\": \"output_padding\", \"arg\": {\"as_ints\": [0, 0]}, \"kind\": 1}, "
                       "{\"name\": \"groups\", \"arg\": {\"as_int\": 1}, \"kind\": 1}]";
    /* (7 + 2 - 2 - 1) // 2 + 1 = 4; a channels-last input gives a channels-last output */
    CHECK_STR(ONE("aten.convolution.default", conv, "x=7:1,3,7,7:147,1,21,3:0", "w=7:8,3,3,3:27,9,3,1:0"),
              "f32[1, 8, 4, 4] strides [128, 1, 32, 8] offset 0");
    CHECK_STR(ONE("aten.convolution.default", conv, "x=7:1,3,7,7:147,49,7,1:0", "w=7:8,3,3,3:27,9,3,1:0"),
              "f32[1, 8, 4, 4] strides [128, 16, 4, 1] offset 0");
    /* a symbolic batch and height: (s1 + 2 - 3) // 2 + 1 (FloorDiv printed as sympy prints it) */
    CHECK_STR(ONE("aten.convolution.default", conv, "x=7:s0,3,s1,8:24*s1,8*s1,8,1:0", "w=7:8,3,3,3:27,9,3,1:0"),
              "f32[s0, 8, (((s1 - 1)//2)) + 1, 4] strides [32*((((s1 - 1)//2)) + 1), 4*((((s1 - 1)//2)) + 1), 4, 1] "
              "offset 0");
    char args[512];
    snprintf(args, sizeof args, "[%s, {\"name\": \"dim\", \"arg\": {\"as_ints\": [0, -1]}, \"kind\": 1}, "
             "{\"name\": \"keepdim\", \"arg\": {\"as_bool\": true}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.sum.dim_IntList", args, "x=5:2,3,4:12,4,1:0"), "i64[1, 3, 1] strides [3, 1, 1] offset 0");
    CHECK_STR(ONE("aten.amax.default", args, "x=6:2,3,4:12,4,1:0"), "f16[1, 3, 1] strides [3, 1, 1] offset 0");
    snprintf(args, sizeof args, "[%s, {\"name\": \"dim\", \"arg\": {\"as_ints\": [1]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.mean.dim", args, "x=7:2,3,4:12,4,1:0"), "f32[2, 4] strides [4, 1] offset 0");
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.sum.default", args, "x=12:2,3:3,1:0"), "i64[] strides [] offset 0");
}

static void test_symbolic(void) {
    const char *bin = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                      "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}, \"kind\": 1}]";
    /* [s0, 1] + [s1] broadcast to [s0, s1] */
    CHECK_STR(ONE("aten.add.Tensor", bin, "x=7:s0,1:1,1:0", "y=7:s1:1:0"), "f32[s0, s1] strides [s1, 1] offset 0");
    const char *cat = "[{\"name\": \"tensors\", \"arg\": {\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}, "
                      "\"kind\": 1}, {\"name\": \"dim\", \"arg\": {\"as_int\": 0}, \"kind\": 1}]";
    CHECK_STR(ONE("aten.cat.default", cat, "x=7:s0,2:2,1:0", "y=7:s1,2:2,1:0"),
              "f32[s0 + s1, 2] strides [2, 1] offset 0");
    char args[512];
    snprintf(args, sizeof args, "[%s, {\"name\": \"size\", \"arg\": {\"as_ints\": [-1]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.view.default", args, "x=7:s0,3:3,1:0"), "f32[3*s0] strides [1] offset 0");
}

static void test_errors(void) {
    const char *bin = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                      "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}, \"kind\": 1}]";
    CHECK_STR(ONE("aten.add.Tensor", bin, "x=7:2,3:3,1:0", "y=7:4:1:0"),
              "error: the sizes of 'self' and 'other' do not broadcast: 3 vs 4 at dim 1 of the result");
    const char *mm = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                     "{\"name\": \"mat2\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}, \"kind\": 1}]";
    CHECK_STR(ONE("aten.mm.default", mm, "x=7:2,3:3,1:0", "y=7:4,5:5,1:0"),
              "error: the inner sizes of 'self' and 'mat2': 3 vs 4 (expected equal)");
    char args[512];
    snprintf(args, sizeof args, "[%s, {\"name\": \"dims\", \"arg\": {\"as_ints\": [0, 5]}, \"kind\": 1}]", X);
    CHECK_STR(ONE("aten.permute.default", args, "x=7:2,3:3,1:0"),
              "error: argument 'dims': dim 5 is out of range for a tensor of rank 2 (expected a dim in [-2, 1])");

    /* through the verifier: the node, its target and the message; and a wrong recorded size */
    eir_program *p = prog(IN("x=7:2,3:3,1:0", "y=7:4:1:0"), 2, "aten.add.Tensor", bin, IN("out=7:2,3:3,1:0"), 1, false);
    eir_verify_report *r = NULL;
    CHECK(p && eir_program_verify(p, EIR_DIALECT_ATEN, &r) == EIR_ERR_INVALID);
    CHECK(r && eir_verify_num_violations(r) >= 1);
    if (r && eir_verify_num_violations(r)) {
        CHECK_STR(eir_verify_violation(r, 0)->rule, "meta.args");
        CHECK_STR(eir_verify_violation(r, 0)->message,
                  "node %n (aten.add.Tensor): shape inference fails: the sizes of 'self' and 'other' do not "
                  "broadcast: 3 vs 4 at dim 1 of the result");
    }
    eir_verify_report_free(r);
    eir_program_free(p);
    p = prog(IN("x=7:2,3:3,1:0", "y=7:3:1:0"), 2, "aten.add.Tensor", bin, IN("out=7:2,4:4,1:0"), 1, false);
    r = NULL;
    CHECK(p && eir_program_verify(p, EIR_DIALECT_ATEN, &r) == EIR_ERR_INVALID);
    if (r && eir_verify_num_violations(r)) {
        CHECK_STR(eir_verify_violation(r, 0)->rule, "meta.mismatch");
        CHECK_STR(eir_verify_violation(r, 0)->message,
                  "node %n (aten.add.Tensor): output 0 (%out): recorded f32[2, 4] strides [4, 1] offset 0, inferred "
                  "f32[2, 3] strides [3, 1] offset 0 (sizes and strides differ)");
    }
    eir_verify_report_free(r);
    eir_program_free(p);
    /* the same node with the right metadata verifies clean */
    p = prog(IN("x=7:2,3:3,1:0", "y=7:3:1:0"), 2, "aten.add.Tensor", bin, IN("out=7:2,3:3,1:0"), 1, false);
    r = NULL;
    CHECK(p && eir_program_verify(p, EIR_DIALECT_ATEN, &r) == EIR_OK);
    eir_verify_report_free(r);
    eir_program_free(p);
}

static const char *arg1(const char *name, const char *json) {
    static char buf[16][512];
    static int k;
    char *b = buf[k++ % 16];
    snprintf(b, 512, "{\"name\": \"%s\", \"arg\": %s, \"kind\": 1}", name, json);
    return b;
}

/* overloads added for the Core ATen and OpInfo sweeps, and the cases where
 * torch's recorded metadata taught a rule */
static void test_more_ops(void) {
    char args[1024];
    /* data-dependent: nonzero's count is unknown, its rank and dtype are not */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.nonzero.default", args, "x=7:2,3:3,1:0"), "i64[?, 2]");
    CHECK_STR(ONE("aten.masked_select.default", args, "x=6:2,3:3,1:0"), "f16[?]");
    /* reflection padding widens the last dims: (left, right) of W, then (top, bottom) of H */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("padding", "{\"as_ints\": [1, 1, 2, 0]}"));
    CHECK_STR(ONE("aten.reflection_pad2d.default", args, "x=7:1,2,4,5:40,20,5,1:0"),
              "f32[1, 2, 6, 7] strides [84, 42, 7, 1] offset 0");
    /* 3-d pooling, stride defaulting to the kernel */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("kernel_size", "{\"as_ints\": [2, 2, 2]}"));
    CHECK_STR(ONE("aten.avg_pool3d.default", args, "x=7:1,2,4,4,4:128,64,16,4,1:0"),
              "f32[1, 2, 2, 2, 2] strides [16, 8, 4, 2, 1] offset 0");
    /* upsampling by scale factors: floor(size * scale) */
    snprintf(args, sizeof args, "[%s, %s]",
             arg1("input", "{\"as_tensor\": {\"name\": \"x\"}}"), arg1("scale_factors", "{\"as_floats\": [2.0, 1.5]}"));
    CHECK_STR(ONE("aten.upsample_nearest2d.vec", args, "x=7:1,3,4,5:60,20,5,1:0"),
              "f32[1, 3, 8, 7] strides [168, 56, 7, 1] offset 0");
    /* repeat with a new leading dim; symbolic sizes multiply */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("repeats", "{\"as_ints\": [2, 1, 2]}"));
    CHECK_STR(ONE("aten.repeat.default", args, "x=7:2,3:3,1:0"), "f32[2, 2, 6] strides [12, 6, 1] offset 0");
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("repeats", "{\"as_ints\": [2, 1]}"));
    CHECK_STR(ONE("aten.repeat.default", args, "x=7:s0,3:3,1:0"), "f32[2*s0, 3] strides [3, 1] offset 0");
    /* sort keeps a dense input's layout; indices are int64 */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.sort.default", args, "x=7:3,4:1,3:0"),
              "f32[3, 4] strides [1, 3] offset 0\ni64[3, 4] strides [1, 3] offset 0");
    /* masked_scatter: contiguous whatever self's layout */
    snprintf(args, sizeof args, "[%s, %s, %s]", X, arg1("mask", "{\"as_tensor\": {\"name\": \"m\"}}"),
             arg1("source", "{\"as_tensor\": {\"name\": \"y\"}}"));
    CHECK_STR(ONE("aten.masked_scatter.default", args, "x=7:3,4:1,3:0", "m=12:3,4:4,1:0", "y=7:12:1:0"),
              "f32[3, 4] strides [4, 1] offset 0");
    /* as_strided_scatter keeps self's strides, dense or not */
    snprintf(args, sizeof args, "[%s, %s, %s, %s]", X, arg1("src", "{\"as_tensor\": {\"name\": \"y\"}}"),
             arg1("size", "{\"as_ints\": [2]}"), arg1("stride", "{\"as_ints\": [1]}"));
    CHECK_STR(ONE("aten.as_strided_scatter.default", args, "x=7:3,3:6,2:0", "y=7:2:1:0"),
              "f32[3, 3] strides [6, 2] offset 0");
    /* clamp promotes with its bounds: bool clamped by an int is int64 */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("min", "{\"as_int\": 0}"));
    CHECK_STR(ONE("aten.clamp.default", args, "x=12:3:1:0"), "i64[3] strides [1] offset 0");
    /* pow(bool, True): int64 in torch's meta */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("exponent", "{\"as_bool\": true}"));
    CHECK_STR(ONE("aten.pow.Tensor_Scalar", args, "x=12:3:1:0"), "i64[3] strides [1] offset 0");
    /* an empty diagonal: torch's meta (what export records) still moves the offset, 9 along
     * dim 1 (stride 5); its eager kernel leaves it at 0 */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("offset", "{\"as_int\": 9}"));
    CHECK_STR(ONE("aten.diagonal.default", args, "x=7:5,5,5:25,5,1:0"), "f32[5, 0] strides [1, 30] offset 45");
    /* any.dims with dim=[] reduces nothing */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("dim", "{\"as_ints\": []}"));
    CHECK_STR(ONE("aten.any.dims", args, "x=7:3,4:4,1:0"), "b8[3, 4] strides [4, 1] offset 0");
    /* batch norm in training: per-channel statistics in the input's dtype */
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s]", arg1("input", "{\"as_tensor\": {\"name\": \"x\"}}"),
             arg1("weight", "{\"as_none\": true}"), arg1("bias", "{\"as_none\": true}"),
             arg1("training", "{\"as_bool\": true}"), arg1("momentum", "{\"as_float\": 0.1}"));
    CHECK_STR(infer(prog(IN("x=13:2,5,3:15,3,1:0"), 1, "aten._native_batch_norm_legit.no_stats", args,
                         IN("o=13:2,5,3:15,3,1:0", "m=13:5:1:0", "r=13:5:1:0"), 3, false)),
              "bf16[2, 5, 3] strides [15, 3, 1] offset 0\nbf16[5] strides [1] offset 0\nbf16[5] strides [1] offset 0");
    /* floor division of floats with differing layouts: strides not inferred */
    snprintf(args, sizeof args, "[%s, %s, %s]", X, arg1("other", "{\"as_tensor\": {\"name\": \"y\"}}"),
             arg1("rounding_mode", "{\"as_string\": \"floor\"}"));
    CHECK_STR(ONE("aten.div.Tensor_mode", args, "x=7:4,3:1,4:0", "y=7:4,3:6,2:0"), "f32[4, 3]");
    CHECK_STR(ONE("aten.div.Tensor_mode", args, "x=7:4,3:3,1:0", "y=7:4,3:3,1:0"), "f32[4, 3] strides [3, 1] offset 0");
    /* select_scatter / slice_scatter keep self's strides, dense or not */
    snprintf(args, sizeof args, "[%s, %s, %s, %s]", X, arg1("src", "{\"as_tensor\": {\"name\": \"y\"}}"),
             arg1("dim", "{\"as_int\": 0}"), arg1("index", "{\"as_int\": 1}"));
    CHECK_STR(ONE("aten.select_scatter.default", args, "x=7:5,5,5:50,10,2:0", "y=7:5,5:5,1:0"),
              "f32[5, 5, 5] strides [50, 10, 2] offset 0");
    /* ravel copies a non-contiguous input, even one a 1-d view could express */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.ravel.default", args, "x=7:5,5:10,2:0"), "f32[25] strides [1] offset 0");
    CHECK_STR(ONE("aten.ravel.default", args, "x=7:5,5:5,1:3"), "f32[25] strides [1] offset 3");
    /* layer norm on the CPU: mean and rstd in the input's dtype (f16 here) */
    snprintf(args, sizeof args, "[%s, %s]", arg1("input", "{\"as_tensor\": {\"name\": \"x\"}}"),
             arg1("normalized_shape", "{\"as_ints\": [4]}"));
    CHECK_STR(infer(prog(IN("x=6:2,3,4:12,4,1:0"), 1, "aten.native_layer_norm.default", args,
                         IN("o=6:2,3,4:12,4,1:0", "m=6:2,3,1:3,1,1:0", "r=6:2,3,1:3,1,1:0"), 3, false)),
              "f16[2, 3, 4] strides [12, 4, 1] offset 0\nf16[2, 3, 1] strides [3, 1, 1] offset 0\n"
              "f16[2, 3, 1] strides [3, 1, 1] offset 0");
    /* attention broadcasts the batch dims of query, key and value */
    snprintf(args, sizeof args, "[%s, %s, %s]", arg1("query", "{\"as_tensor\": {\"name\": \"q\"}}"),
             arg1("key", "{\"as_tensor\": {\"name\": \"k\"}}"), arg1("value", "{\"as_tensor\": {\"name\": \"v\"}}"));
    CHECK_STR(ONE("aten.scaled_dot_product_attention.default", args, "q=7:4,3,8:24,8,1:0", "k=7:4,4,5,8:160,40,8,1:0",
                  "v=7:4,4,5,6:120,30,6,1:0"),
              "f32[4, 4, 3, 6] strides [72, 18, 6, 1] offset 0");
    /* an empty tensor counts as contiguous, and its strides count empty dims as size 1 */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("other", "{\"as_tensor\": {\"name\": \"y\"}}"));
    CHECK_STR(ONE("aten.add.Tensor", args, "x=7:5,0,0:1,5,5:0", "y=7:5,0,0:1,5,5:0"),
              "f32[5, 0, 0] strides [1, 1, 1] offset 0");
    CHECK_STR(ONE("aten.add.Tensor", args, "x=7:5,0,0:1,5,5:0", "y=7:1,0,1:1,1,1:0"),
              "f32[5, 0, 0] strides [1, 5, 5] offset 0");
    CHECK_STR(ONE("aten.add.Tensor", args, "x=7:5,0,2:1,10,5:0", "y=7:0,2:2,1:0"),
              "f32[5, 0, 2] strides [1, 10, 5] offset 0");

    /* conv1d of an unbatched input; conv2d with padding='same' */
    snprintf(args, sizeof args, "[%s, %s]", arg1("input", "{\"as_tensor\": {\"name\": \"x\"}}"),
             arg1("weight", "{\"as_tensor\": {\"name\": \"w\"}}"));
    CHECK_STR(ONE("aten.conv1d.default", args, "x=7:3,10:10,1:0", "w=7:4,3,3:9,3,1:0"), "f32[4, 8] strides [8, 1] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", arg1("input", "{\"as_tensor\": {\"name\": \"x\"}}"),
             arg1("weight", "{\"as_tensor\": {\"name\": \"w\"}}"), arg1("padding", "{\"as_string\": \"same\"}"));
    CHECK_STR(ONE("aten.conv2d.padding", args, "x=7:1,2,5,5:50,25,5,1:0", "w=7:3,2,3,3:18,9,3,1:0"),
              "f32[1, 3, 5, 5] strides [75, 25, 5, 1] offset 0");
    /* pad in reflect mode: constant_pad_nd's sizes, contiguous */
    snprintf(args, sizeof args, "[%s, %s, %s]", X, arg1("pad", "{\"as_ints\": [1, 2]}"),
             arg1("mode", "{\"as_string\": \"reflect\"}"));
    CHECK_STR(ONE("aten.pad.default", args, "x=7:2,4:1,2:0"), "f32[2, 7] strides [7, 1] offset 0");
}

/* the public API: one output at a time, symbolic sizes as the program's expressions */
static void test_public_infer(void) {
    const char *bin = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                      "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}, \"kind\": 1}]";
    eir_program *p = prog(IN("x=7:s0,1:1,1:0", "y=5:s1:1:0"), 2, "aten.add.Tensor", bin, IN("out=7:s0,s1:s1,1:0"), 1,
                          false);
    CHECK(p);
    if (!p) return;
    const eir_graph *g = eir_program_graph(p);
    eir_inferred_meta m;
    CHECK(eir_node_infer_meta(p, g, 0, 0, &m) == EIR_OK);
    CHECK(m.dtype == EIR_F32 && m.rank == 2 && !m.unknown_sizes && !m.unknown_strides && !m.unknown_offset);
    /* the sizes are the inputs' own expressions */
    CHECK(m.sizes[0].is_expr && m.sizes[0].expr == g->values[0].meta.sizes[0].expr);
    CHECK(m.sizes[1].is_expr && m.sizes[1].expr == g->values[1].meta.sizes[0].expr);
    CHECK(m.strides[0].is_expr && m.strides[0].expr == g->values[1].meta.sizes[0].expr);
    CHECK(!m.strides[1].is_expr && m.strides[1].value == 1 && !m.storage_offset.is_expr && m.storage_offset.value == 0);
    CHECK(eir_node_infer_meta(p, g, 0, 1, &m) == EIR_ERR_ARG);
    CHECK_STR(eir_errmsg(p), "node %n (aten.add.Tensor): output 1 out of range (the node has 1)");
    CHECK(eir_node_infer_meta(p, g, 1, 0, &m) == EIR_ERR_ARG);
    eir_program_free(p);

    /* a new expression is interned: view(x [s0, 3], [-1]) has 3*s0 elements */
    char args[512];
    snprintf(args, sizeof args, "[%s, {\"name\": \"size\", \"arg\": {\"as_ints\": [-1]}, \"kind\": 1}]", X);
    p = prog(IN("x=7:s0,3:3,1:0"), 1, "aten.view.default", args, IN("out=7:1:1:0"), 1, false);
    CHECK(p);
    if (!p) return;
    g = eir_program_graph(p);
    uint32_t n0 = p->num_exprs;
    CHECK(eir_node_infer_meta(p, g, 0, 0, &m) == EIR_OK);
    CHECK(m.rank == 1 && m.sizes[0].is_expr && m.sizes[0].expr < p->num_exprs);
    if (m.sizes[0].is_expr && m.sizes[0].expr < p->num_exprs) CHECK_STR(p->exprs[m.sizes[0].expr].str, "3*s0");
    CHECK(p->num_exprs == n0 + 1);
    /* asking again finds it */
    CHECK(eir_node_infer_meta(p, g, 0, 0, &m) == EIR_OK && p->num_exprs == n0 + 1);
    eir_program_free(p);

    /* errors name the node, its operator and the argument */
    p = prog(IN("x=7:2,3:3,1:0", "y=7:4:1:0"), 2, "aten.add.Tensor", bin, IN("out=7:2,3:3,1:0"), 1, false);
    CHECK(p && eir_node_infer_meta(p, eir_program_graph(p), 0, 0, &m) == EIR_ERR_GRAPH);
    if (p)
        CHECK_STR(eir_errmsg(p), "node %n (aten.add.Tensor): the sizes of 'self' and 'other' do not broadcast: 3 vs 4 "
                                 "at dim 1 of the result");
    eir_program_free(p);
    /* data-dependent sizes are unknown */
    snprintf(args, sizeof args, "[%s]", X);
    p = prog(IN("x=7:2,3:3,1:0"), 1, "aten.nonzero.default", args, IN("out=5:4,2:2,1:0"), 1, false);
    CHECK(p && eir_node_infer_meta(p, eir_program_graph(p), 0, 0, &m) == EIR_OK);
    CHECK(m.dtype == EIR_I64 && m.rank == 2 && m.unknown_sizes == 1u && !m.sizes[1].is_expr && m.sizes[1].value == 2);
    eir_program_free(p);
}

static eir_arg targ(uint32_t v) {
    eir_arg a;
    memset(&a, 0, sizeof a);
    a.kind = EIR_ARG_TENSOR;
    a.value = v;
    return a;
}

/* a program built with the editing API gets its new values' metadata by inference */
static void test_fill_meta(void) {
    const char *bin = "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"x\"}}, \"kind\": 1}, "
                      "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"y\"}}, \"kind\": 1}]";
    eir_program *p = prog(IN("x=5:2,3:3,1:0", "y=7:3:1:0"), 2, "aten.add.Tensor", bin, IN("out=7:2,3:3,1:0"), 1, false);
    CHECK(p);
    if (!p) return;
    eir_graph *g = eir_program_graph_mut(p);
    eir_tensor_meta none;
    memset(&none, 0, sizeof none);
    /* out2 = transpose(sigmoid(x), 0, 1): int64 -> f32, then a view */
    uint32_t s = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &none, "sigmoid");
    uint32_t t = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &none, "transpose");
    eir_named_arg in1[] = {{"self", targ(0), 1}};
    eir_arg o1 = targ(s);
    CHECK(eir_graph_insert_node(p, g, 1, "torch.ops.aten.sigmoid.default", 1, in1, 1, &o1, NULL) == EIR_OK);
    eir_named_arg in2[3] = {{"self", targ(s), 1}, {"dim0", {0}, 1}, {"dim1", {0}, 1}};
    in2[1].arg.kind = EIR_ARG_INT;
    in2[1].arg.u.i = 0;
    in2[2].arg.kind = EIR_ARG_INT;
    in2[2].arg.u.i = 1;
    eir_arg o2 = targ(t);
    CHECK(eir_graph_insert_node(p, g, 2, "torch.ops.aten.transpose.int", 3, in2, 1, &o2, NULL) == EIR_OK);
    uint32_t filled = 0;
    CHECK(eir_program_fill_meta(p, &filled) == EIR_OK);
    CHECK(filled == 2);
    const eir_tensor_meta *m = &g->values[t].meta;
    CHECK(m->dtype == EIR_F32 && m->rank == 2);
    if (m->rank == 2) {
        CHECK(m->sizes[0].value == 3 && m->sizes[1].value == 2);
        CHECK(m->strides[0].value == 1 && m->strides[1].value == 3);
    }
    char *text = NULL;
    CHECK(eir_program_print(p, EIR_PRINT_GRAPH, &text) == EIR_OK);
    CHECK(text && strstr(text, "%transpose : [num_users=0] = call_function[target=torch.ops.aten.transpose.int]"
                               "(args = (%sigmoid, 0, 1), kwargs = {})"));
    free(text);
    eir_verify_report *r = NULL;
    CHECK(eir_program_verify(p, EIR_DIALECT_ATEN, &r) == EIR_OK);
    eir_verify_report_free(r);
    /* nothing left to fill */
    CHECK(eir_program_fill_meta(p, &filled) == EIR_OK && filled == 0);
    /* a data-dependent size cannot be filled: the message names the node */
    uint32_t nz = eir_graph_add_value(p, g, EIR_VALUE_TENSOR, &none, "nonzero");
    eir_arg o3 = targ(nz);
    CHECK(eir_graph_insert_node(p, g, 3, "torch.ops.aten.nonzero.default", 1, in1, 1, &o3, NULL) == EIR_OK);
    CHECK(eir_program_fill_meta(p, &filled) == EIR_ERR_UNSUPPORTED && filled == 0);
    CHECK_STR(eir_errmsg(p), "node %nonzero (aten.nonzero.default): size 0 of output 0 is data-dependent or not "
                             "expressible");
    eir_program_free(p);
}

/* the table: sorted (it is searched by bisection), every name an overload of torch 2.13 */
static void test_table(void) {
    CHECK(eir_meta_count() > 150);
    for (uint32_t i = 0; i < eir_meta_count(); i++) {
        const char *n = eir_meta_name(i);
        if (i) CHECK(strcmp(eir_meta_name(i - 1), n) < 0);
        if (!eir_op_find(n)) fprintf(stderr, "no schema: %s\n", n);
        CHECK(eir_op_find(n) != NULL);
        CHECK(eir_meta_has(n));
    }
    CHECK(eir_meta_name(eir_meta_count()) == NULL);
    CHECK(eir_meta_has("torch.ops.aten.add.Tensor"));
    CHECK(eir_meta_has("executorch.exir.dialects.edge._ops.aten.view_copy.default"));
    CHECK(eir_meta_has("torch.ops.aten.nonzero.default"));
    CHECK(!eir_meta_has("torch.ops.aten._assert_scalar.default"));
    CHECK(!eir_meta_has("torch.ops.mylib.sin.default"));
}

#define T_(n, v) arg1(n, "{\"as_tensor\": {\"name\": \"" v "\"}}")

/* the Core ATen backward ops, _embedding_bag, atan2.out and resize_, against
 * torch 2.13's FakeTensor outputs on the CPU */
static void test_backward(void) {
    char args[2048];
    const char *o3[] = {"a=7:1:1:0", "b=7:1:1:0", "c=7:1:1:0"};
    const char *o4[] = {"a=7:1:1:0", "b=7:1:1:0", "c=7:1:1:0", "d=7:1:1:0"};
    /* pooling backward: self's sizes, channels-last only when self is */
    snprintf(args, sizeof args, "[%s, %s]", T_("grad_output", "g"), T_("self", "x"));
    CHECK_STR(ONE("aten._adaptive_avg_pool2d_backward.default", args, "g=7:2,3,2,2:12,1,6,3:0", "x=7:2,3,8,8:192,64,8,1:0"),
              "f32[2, 3, 8, 8] strides [192, 64, 8, 1] offset 0");
    CHECK_STR(ONE("aten._adaptive_avg_pool2d_backward.default", args, "g=7:2,3,2,2:12,4,2,1:0", "x=7:2,3,8,8:192,1,24,3:0"),
              "f32[2, 3, 8, 8] strides [192, 1, 24, 3] offset 0");
    CHECK_STR(ONE("aten._adaptive_avg_pool2d_backward.default", args, "g=7:3,2,2:4,2,1:0", "x=7:3,8,8:64,8,1:0"),
              "f32[3, 8, 8] strides [64, 8, 1] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s, %s, %s, %s]", T_("grad_output", "g"), T_("self", "x"),
             arg1("kernel_size", "{\"as_ints\": [2, 2]}"), arg1("stride", "{\"as_ints\": [2, 2]}"),
             arg1("padding", "{\"as_ints\": [0, 0]}"), arg1("ceil_mode", "{\"as_bool\": false}"),
             arg1("count_include_pad", "{\"as_bool\": true}"), arg1("divisor_override", "{\"as_none\": true}"));
    CHECK_STR(ONE("aten.avg_pool2d_backward.default", args, "g=7:2,3,4,4:48,16,4,1:0", "x=7:2,3,8,8:192,1,24,3:0"),
              "f32[2, 3, 8, 8] strides [192, 1, 24, 3] offset 0");
    /* a permuted self that is not channels-last: contiguous */
    CHECK_STR(ONE("aten.avg_pool2d_backward.default", args, "g=7:2,3,4,4:48,16,4,1:0", "x=7:2,3,8,8:1,2,48,6:0"),
              "f32[2, 3, 8, 8] strides [192, 64, 8, 1] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s, %s, %s, %s]", T_("grad_output", "g"), T_("self", "x"),
             arg1("kernel_size", "{\"as_ints\": [2, 2]}"), arg1("stride", "{\"as_ints\": [2, 2]}"),
             arg1("padding", "{\"as_ints\": [0, 0]}"), arg1("dilation", "{\"as_ints\": [1, 1]}"),
             arg1("ceil_mode", "{\"as_bool\": false}"), T_("indices", "i"));
    CHECK_STR(ONE("aten.max_pool2d_with_indices_backward.default", args, "g=7:2,3,4,4:48,1,12,3:0",
                  "x=7:2,3,8,8:192,64,8,1:0", "i=5:2,3,4,4:48,16,4,1:0"),
              "f32[2, 3, 8, 8] strides [192, 64, 8, 1] offset 0");
    /* convolution_backward: channels-last from input or weight, not grad_output */
    const char *cb = "[%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s]";
    snprintf(args, sizeof args, cb, T_("grad_output", "g"), T_("input", "x"), T_("weight", "w"),
             arg1("bias_sizes", "{\"as_ints\": [4]}"), arg1("stride", "{\"as_ints\": [1, 1]}"),
             arg1("padding", "{\"as_ints\": [0, 0]}"), arg1("dilation", "{\"as_ints\": [1, 1]}"),
             arg1("transposed", "{\"as_bool\": false}"), arg1("output_padding", "{\"as_ints\": [0, 0]}"),
             arg1("groups", "{\"as_int\": 1}"), arg1("output_mask", "{\"as_bools\": [true, true, true]}"));
    CHECK_STR(infer(prog(IN("g=7:2,4,6,6:144,36,6,1:0", "x=7:2,3,8,8:192,1,24,3:0", "w=7:4,3,3,3:27,9,3,1:0"), 3,
                         "aten.convolution_backward.default", args, o3, 3, false)),
              "f32[2, 3, 8, 8] strides [192, 1, 24, 3] offset 0\nf32[4, 3, 3, 3] strides [27, 1, 9, 3] offset 0\n"
              "f32[4] strides [1] offset 0");
    CHECK_STR(infer(prog(IN("g=7:2,4,6,6:144,1,24,4:0", "x=7:2,3,8,8:192,64,8,1:0", "w=7:4,3,3,3:27,9,3,1:0"), 3,
                         "aten.convolution_backward.default", args, o3, 3, false)),
              "f32[2, 3, 8, 8] strides [192, 64, 8, 1] offset 0\nf32[4, 3, 3, 3] strides [27, 9, 3, 1] offset 0\n"
              "f32[4] strides [1] offset 0");
    snprintf(args, sizeof args, cb, T_("grad_output", "g"), T_("input", "x"), T_("weight", "w"),
             arg1("bias_sizes", "{\"as_none\": true}"), arg1("stride", "{\"as_ints\": [1]}"),
             arg1("padding", "{\"as_ints\": [0]}"), arg1("dilation", "{\"as_ints\": [1]}"),
             arg1("transposed", "{\"as_bool\": false}"), arg1("output_padding", "{\"as_ints\": [0]}"),
             arg1("groups", "{\"as_int\": 1}"), arg1("output_mask", "{\"as_bools\": [false, true, false]}"));
    CHECK_STR(infer(prog(IN("g=7:2,4,6:24,6,1:0", "x=7:2,3,8:24,8,1:0", "w=7:4,3,3:9,3,1:0"), 3,
                         "aten.convolution_backward.default", args, o3, 3, false)),
              "?[]\nf32[4, 3, 3] strides [9, 3, 1] offset 0\n?[]");
    /* embedding_dense_backward: [num_weights, embedding size] in grad's dtype */
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s]", T_("grad_output", "g"), T_("indices", "i"),
             arg1("num_weights", "{\"as_int\": 10}"), arg1("padding_idx", "{\"as_int\": -1}"),
             arg1("scale_grad_by_freq", "{\"as_bool\": false}"));
    CHECK_STR(ONE("aten.embedding_dense_backward.default", args, "g=6:2,5,7:35,7,1:0", "i=4:2,5:5,1:0"),
              "f16[10, 7] strides [7, 1] offset 0");
    /* native_group_norm_backward: channels-last when grad_out is; [C] for weight and bias */
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s, %s, %s, %s, %s, %s]", T_("grad_out", "g"), T_("input", "x"),
             T_("mean", "m"), T_("rstd", "r"), arg1("weight", "{\"as_none\": true}"), arg1("N", "{\"as_int\": 2}"),
             arg1("C", "{\"as_int\": 6}"), arg1("HxW", "{\"as_int\": 16}"), arg1("group", "{\"as_int\": 3}"),
             arg1("output_mask", "{\"as_bools\": [true, false, true]}"));
    CHECK_STR(infer(prog(IN("g=7:2,6,4,4:96,1,24,6:0", "x=7:2,6,4,4:96,16,4,1:0", "m=7:2,3:3,1:0", "r=7:2,3:3,1:0"), 4,
                         "aten.native_group_norm_backward.default", args, o3, 3, false)),
              "f32[2, 6, 4, 4] strides [96, 1, 24, 6] offset 0\n?[]\nf32[6] strides [1] offset 0");
    CHECK_STR(infer(prog(IN("g=7:2,6,4,4:96,16,4,1:0", "x=7:2,6,4,4:96,1,24,6:0", "m=7:2,3:3,1:0", "r=7:2,3:3,1:0"), 4,
                         "aten.native_group_norm_backward.default", args, o3, 3, false)),
              "f32[2, 6, 4, 4] strides [96, 16, 4, 1] offset 0\n?[]\nf32[6] strides [1] offset 0");
    /* native_layer_norm_backward: contiguous; weight and bias grads in their own dtype */
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s, %s, %s, %s]", T_("grad_out", "g"), T_("input", "x"),
             arg1("normalized_shape", "{\"as_ints\": [8]}"), T_("mean", "m"), T_("rstd", "r"), T_("weight", "w"),
             arg1("bias", "{\"as_none\": true}"), arg1("output_mask", "{\"as_bools\": [true, true, true]}"));
    CHECK_STR(infer(prog(IN("g=6:2,5,8:40,8,1:0", "x=6:2,5,8:1,2,10:0", "m=6:2,5,1:5,1,1:0", "r=6:2,5,1:5,1,1:0",
                            "w=7:8:1:0"), 5, "aten.native_layer_norm_backward.default", args, o3, 3, false)),
              "f16[2, 5, 8] strides [40, 8, 1] offset 0\nf32[8] strides [1] offset 0\n?[]");
    /* _embedding_bag: offset2bag empty on the fast sum path; max_indices per mode */
    const char *eb = "[%s, %s, %s, %s, %s, %s, %s, %s, %s]";
    snprintf(args, sizeof args, eb, T_("weight", "w"), T_("indices", "i"), T_("offsets", "f"),
             arg1("scale_grad_by_freq", "{\"as_bool\": false}"), arg1("mode", "{\"as_int\": 0}"),
             arg1("sparse", "{\"as_bool\": false}"), arg1("per_sample_weights", "{\"as_none\": true}"),
             arg1("include_last_offset", "{\"as_bool\": false}"), arg1("padding_idx", "{\"as_int\": -1}"));
    CHECK_STR(infer(prog(IN("w=7:10,7:7,1:0", "i=5:12:1:0", "f=4:4:1:0"), 3, "aten._embedding_bag.default", args, o4,
                         4, false)),
              "f32[4, 7] strides [7, 1] offset 0\ni32[0] strides [1] offset 0\ni32[4] strides [1] offset 0\n"
              "i32[4] strides [1] offset 0");
    CHECK_STR(infer(prog(IN("w=8:10,7:7,1:0", "i=5:12:1:0", "f=5:4:1:0"), 3, "aten._embedding_bag.default", args, o4,
                         4, false)),
              "f64[4, 7] strides [7, 1] offset 0\ni64[12] strides [1] offset 0\ni64[4] strides [1] offset 0\n"
              "i64[4] strides [1] offset 0");
    snprintf(args, sizeof args, eb, T_("weight", "w"), T_("indices", "i"), T_("offsets", "f"),
             arg1("scale_grad_by_freq", "{\"as_bool\": false}"), arg1("mode", "{\"as_int\": 2}"),
             arg1("sparse", "{\"as_bool\": false}"), arg1("per_sample_weights", "{\"as_none\": true}"),
             arg1("include_last_offset", "{\"as_bool\": true}"), arg1("padding_idx", "{\"as_int\": -1}"));
    CHECK_STR(infer(prog(IN("w=7:10,7:7,1:0", "i=5:12:1:0", "f=5:4:1:0"), 3, "aten._embedding_bag.default", args, o4,
                         4, false)),
              "f32[3, 7] strides [7, 1] offset 0\ni64[12] strides [1] offset 0\ni64[3] strides [1] offset 0\n"
              "i64[3, 7] strides [7, 1] offset 0");
    /* atan2.out: out's dtype; contiguous when resized, out's strides when its sizes fit */
    snprintf(args, sizeof args, "[%s, %s, %s]", T_("self", "x"), T_("other", "y"), T_("out", "z"));
    CHECK_STR(ONE("aten.atan2.out", args, "x=7:2,3,4,4:48,1,12,3:0", "y=7:4:1:0", "z=7:0:1:0"),
              "f32[2, 3, 4, 4] strides [48, 16, 4, 1] offset 0");
    CHECK_STR(ONE("aten.atan2.out", args, "x=7:3,1:1,1:0", "y=8:4:1:0", "z=8:3,4:1,3:0"),
              "f64[3, 4] strides [1, 3] offset 0");
    /* resize_: contiguous with self's offset; unchanged when the sizes are its own */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("size", "{\"as_ints\": [4, 5]}"));
    CHECK_STR(ONE("aten.resize_.default", args, "x=7:2,2:3,1:1"), "f32[4, 5] strides [5, 1] offset 1");
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("size", "{\"as_ints\": [5, 4]}"));
    CHECK_STR(ONE("aten.resize_.default", args, "x=7:5,4:1,5:0"), "f32[5, 4] strides [1, 5] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", X, arg1("size", "{\"as_ints\": [3, 3, 4, 5]}"),
             arg1("memory_format", "{\"as_memory_format\": 2}"));
    CHECK_STR(ONE("aten.resize_.default", args, "x=7:2,3,4,5:60,20,5,1:0"), "f32[3, 3, 4, 5] strides [60, 1, 15, 3] offset 0");
    /* bad input: named argument and what was expected */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("size", "{\"as_ints\": [-2, 5]}"));
    CHECK_STR(ONE("aten.resize_.default", args, "x=7:2,3:3,1:0"),
              "error: argument 'size' has -2 in dim 0; expected sizes >= 0");
    snprintf(args, sizeof args, eb, T_("weight", "w"), T_("indices", "i"), T_("offsets", "f"),
             arg1("scale_grad_by_freq", "{\"as_bool\": false}"), arg1("mode", "{\"as_int\": 0}"),
             arg1("sparse", "{\"as_bool\": false}"), arg1("per_sample_weights", "{\"as_none\": true}"),
             arg1("include_last_offset", "{\"as_bool\": false}"), arg1("padding_idx", "{\"as_int\": -1}"));
    CHECK_STR(infer(prog(IN("w=7:10,7:7,1:0", "i=7:12:1:0", "f=5:4:1:0"), 3, "aten._embedding_bag.default", args, o4,
                         4, false)),
              "error: 'indices' has dtype float32; expected int64 or int32");
}

/* linear algebra, losses and windows, against torch 2.13's FakeTensor outputs */
static void test_linalg(void) {
    char args[1024];
    const char *o2[] = {"a=7:1:1:0", "b=7:1:1:0"};
    const char *o3[] = {"a=7:1:1:0", "b=7:1:1:0", "c=7:1:1:0"};
    /* batched column-major inverse; symbolic batch */
    snprintf(args, sizeof args, "[%s]", T_("A", "x"));
    CHECK_STR(ONE("aten.linalg_inv.default", args, "x=7:2,4,4:16,4,1:0"), "f32[2, 4, 4] strides [16, 1, 4] offset 0");
    CHECK_STR(ONE("aten.linalg_det.default", args, "x=8:s0,3,3:9,3,1:0"), "f64[s0] strides [1] offset 0");
    CHECK_STR(ONE("aten.linalg_inv.default", args, "x=7:2,4,3:12,3,1:0"),
              "error: 'A' has 4 x 3 matrices; expected square ones");
    /* qr: reduced, complete, r */
    snprintf(args, sizeof args, "[%s, %s]", T_("A", "x"), arg1("mode", "{\"as_string\": \"r\"}"));
    CHECK_STR(infer(prog(IN("x=7:2,5,3:15,3,1:0"), 1, "aten.linalg_qr.default", args, o2, 2, false)),
              "f32[0] strides [1] offset 0\nf32[2, 3, 3] strides [9, 1, 3] offset 0");
    snprintf(args, sizeof args, "[%s, %s]", T_("A", "x"), arg1("mode", "{\"as_string\": \"complete\"}"));
    CHECK_STR(infer(prog(IN("x=7:2,5,3:15,3,1:0"), 1, "aten.linalg_qr.default", args, o2, 2, false)),
              "f32[2, 5, 5] strides [25, 1, 5] offset 0\nf32[2, 5, 3] strides [15, 1, 5] offset 0");
    /* svd: U m x m and Vh n x n when full; the legacy svd's V row-major; no U, V when not computed */
    snprintf(args, sizeof args, "[%s]", T_("A", "x"));
    CHECK_STR(infer(prog(IN("x=7:2,3,5:15,5,1:0"), 1, "aten.linalg_svd.default", args, o3, 3, false)),
              "f32[2, 3, 3] strides [9, 1, 3] offset 0\nf32[2, 3] strides [3, 1] offset 0\n"
              "f32[2, 5, 5] strides [25, 1, 5] offset 0");
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(infer(prog(IN("x=7:2,5,3:15,3,1:0"), 1, "aten.svd.default", args, o3, 3, false)),
              "f32[2, 5, 3] strides [15, 1, 5] offset 0\nf32[2, 3] strides [3, 1] offset 0\n"
              "f32[2, 3, 3] strides [9, 3, 1] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", T_("A", "x"), arg1("full_matrices", "{\"as_bool\": false}"),
             arg1("compute_uv", "{\"as_bool\": false}"));
    CHECK_STR(infer(prog(IN("x=7:2,5,3:15,3,1:0"), 1, "aten._linalg_svd.default", args, o3, 3, false)),
              "f32[0] strides [1] offset 0\nf32[2, 3] strides [3, 1] offset 0\nf32[0] strides [1] offset 0");
    /* eigh: real eigenvalues of complex matrices */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(infer(prog(IN("x=10:3,3:3,1:0"), 1, "aten.linalg_eigh.default", args, o2, 2, false)),
              "f32[3] strides [1] offset 0\nc64[3, 3] strides [1, 3] offset 0");
    /* losses: elementwise with reduction 0, else 0-d */
    snprintf(args, sizeof args, "[%s, %s, %s]", X, T_("target", "y"), arg1("reduction", "{\"as_int\": 0}"));
    CHECK_STR(ONE("aten.mse_loss.default", args, "x=7:3,1:1,1:0", "y=8:4:1:0"), "f64[3, 4] strides [4, 1] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", X, T_("target", "y"), arg1("reduction", "{\"as_int\": 2}"));
    CHECK_STR(ONE("aten.l1_loss.default", args, "x=6:3,4:4,1:0", "y=6:3,4:4,1:0"), "f16[] strides [] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", X, T_("target", "y"), arg1("reduction", "{\"as_int\": 3}"));
    CHECK_STR(ONE("aten.l1_loss.default", args, "x=7:3:1:0", "y=7:3:1:0"),
              "error: argument 'reduction' is 3; expected 0 (none), 1 (mean) or 2 (sum)");
    /* windows */
    snprintf(args, sizeof args, "[%s, %s]", arg1("window_length", "{\"as_int\": 5}"),
             arg1("dtype", "{\"as_scalar_type\": 8}"));
    CHECK_STR(ONE("aten.hann_window.default", args, "x=7:1:1:0"), "f64[5] strides [1] offset 0");
    snprintf(args, sizeof args, "[%s]", arg1("window_length", "{\"as_int\": -1}"));
    CHECK_STR(ONE("aten.kaiser_window.default", args, "x=7:1:1:0"),
              "error: argument 'window_length' is -1; expected a length >= 0");
    /* nll losses: per target without the class dim, or 0-d; the forward adds the total weight */
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s]", X, T_("target", "y"), arg1("weight", "{\"as_none\": true}"),
             arg1("reduction", "{\"as_int\": 0}"), arg1("ignore_index", "{\"as_int\": -100}"));
    CHECK_STR(infer(prog(IN("x=7:2,5,3,3:45,9,3,1:0", "y=5:2,3,3:9,3,1:0"), 2, "aten.nll_loss2d_forward.default", args,
                         o2, 2, false)),
              "f32[2, 3, 3] strides [9, 3, 1] offset 0\nf32[] strides [] offset 0");
    snprintf(args, sizeof args, "[%s, %s]", X, T_("target", "y"));
    CHECK_STR(ONE("aten.nll_loss.default", args, "x=7:4,5:5,1:0", "y=5:4:1:0"), "f32[] strides [] offset 0");
    /* glu halves dim, keeping the halves' layout */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("dim", "{\"as_int\": -1}"));
    CHECK_STR(ONE("aten.glu.default", args, "x=7:4,6:1,4:0"), "f32[4, 3] strides [1, 4] offset 0");
    CHECK_STR(ONE("aten.glu.default", args, "x=7:4,5:5,1:0"),
              "error: 'self' has size 5 in dim 1; glu halves it, expected an even size");
    /* vector norm of complex values is real */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.linalg_vector_norm.default", args, "x=10:3,4:4,1:0"), "f32[] strides [] offset 0");
}

/* ---- the long tail (src/ops/meta_tail.c) ---- */

static void test_tail(void) {
    char args[1024];
    const char *o2[] = {"a=7:1:1:0", "b=7:1:1:0"};
    const char *o3[] = {"a=7:1:1:0", "b=7:1:1:0", "c=7:1:1:0"};
    /* views: movedim, atleast_3d of a vector, unfold, the diagonal above the main one */
    snprintf(args, sizeof args, "[%s, %s, %s]", X, arg1("source", "{\"as_int\": 0}"),
             arg1("destination", "{\"as_int\": 2}"));
    CHECK_STR(ONE("aten.movedim.int", args, "x=7:2,3,4:12,4,1:0"), "f32[3, 4, 2] strides [4, 1, 12] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", X, arg1("source", "{\"as_ints\": [0, 0]}"),
             arg1("destination", "{\"as_ints\": [1, 2]}"));
    CHECK_STR(ONE("aten.movedim.intlist", args, "x=7:2,3,4:12,4,1:0"), "error: argument 'source' repeats dim 0");
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.atleast_3d.default", args, "x=7:3:2:1"), "f32[1, 3, 1] strides [6, 2, 1] offset 1");
    snprintf(args, sizeof args, "[%s, %s, %s, %s]", X, arg1("dimension", "{\"as_int\": 0}"),
             arg1("size", "{\"as_int\": 2}"), arg1("step", "{\"as_int\": 2}"));
    CHECK_STR(ONE("aten.unfold.default", args, "x=7:5,4:4,1:0"), "f32[2, 4, 2] strides [8, 1, 4] offset 0");
    snprintf(args, sizeof args, "[%s, %s]", T_("A", "x"), arg1("offset", "{\"as_int\": 1}"));
    CHECK_STR(ONE("aten.linalg_diagonal.default", args, "x=7:3,4:4,1:0"), "f32[3] strides [5] offset 1");
    /* tensor_split into 3 near-equal views: 3, 2, 2 rows */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("sections", "{\"as_int\": 3}"));
    CHECK_STR(infer(prog(IN("x=7:7,2:2,1:0"), 1, "aten.tensor_split.sections", args, o3, 3, true)),
              "f32[3, 2] strides [2, 1] offset 0\nf32[2, 2] strides [2, 1] offset 6\nf32[2, 2] strides [2, 1] offset 10");
    /* FFT front ends: sizes and dtype, strides not inferred */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.fft_rfft.default", args, "x=7:4,10:10,1:0"), "c64[4, 6]");
    CHECK_STR(ONE("aten.fft_irfft.default", args, "x=10:4,6:6,1:0"), "f32[4, 10]");
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("s", "{\"as_ints\": [8, 8]}"));
    CHECK_STR(ONE("aten.fft_fft2.default", args, "x=5:3,4,5:20,5,1:0"), "c64[3, 8, 8]");
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.fft_ihfft.default", args, "x=10:4,6:6,1:0"), "error: 'self' is complex; fft_ihfft expects a real tensor");
    /* solve: column-major matrices; from the right, row-major; a vector B */
    snprintf(args, sizeof args, "[%s, %s]", T_("A", "x"), T_("B", "y"));
    CHECK_STR(ONE("aten.linalg_solve.default", args, "x=7:2,3,3:9,3,1:0", "y=7:2,3,4:12,4,1:0"),
              "f32[2, 3, 4] strides [12, 1, 3] offset 0");
    CHECK_STR(ONE("aten.linalg_solve.default", args, "x=7:3,3:3,1:0", "y=7:3:1:0"), "f32[3] strides [1] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", T_("A", "x"), T_("B", "y"), arg1("left", "{\"as_bool\": false}"));
    CHECK_STR(ONE("aten.linalg_solve.default", args, "x=7:2,4,4:16,4,1:0", "y=7:2,3,4:12,4,1:0"),
              "f32[2, 3, 4] strides [12, 4, 1] offset 0");
    /* eig: complex eigenvalues and column-major eigenvectors of real matrices */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(infer(prog(IN("x=7:2,3,3:9,3,1:0"), 1, "aten.linalg_eig.default", args, o2, 2, false)),
              "c64[2, 3] strides [3, 1] offset 0\nc64[2, 3, 3] strides [9, 1, 3] offset 0");
    CHECK_STR(ONE("aten.linalg_eigvals.default", args, "x=7:2,3,4:12,4,1:0"), "error: 'self' has 3 x 4 matrices; expected square ones");
    /* lu_factor: LU column-major, int32 pivots min(m, n) */
    snprintf(args, sizeof args, "[%s]", T_("A", "x"));
    CHECK_STR(infer(prog(IN("x=7:5,3:3,1:0"), 1, "aten.linalg_lu_factor.default", args, o2, 2, false)),
              "f32[5, 3] strides [1, 5] offset 0\ni32[3] strides [1] offset 0");
    /* factories: the entries on or below / above a diagonal of a 3 x 4 matrix */
    snprintf(args, sizeof args, "[%s, %s]", arg1("row", "{\"as_int\": 3}"), arg1("col", "{\"as_int\": 4}"));
    CHECK_STR(ONE("aten.tril_indices.default", args, "x=7:1:1:0"), "i64[2, 6] strides [6, 1] offset 0");
    CHECK_STR(ONE("aten.triu_indices.default", args, "x=7:1:1:0"), "i64[2, 9] strides [9, 1] offset 0");
    /* einsum: the output subscripts (implicit: the letters seen once, sorted) */
    snprintf(args, sizeof args, "[%s, %s]", arg1("equation", "{\"as_string\": \"bij,bjk->bik\"}"),
             arg1("tensors", "{\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}"));
    CHECK_STR(ONE("aten.einsum.default", args, "x=7:2,3,4:12,4,1:0", "y=7:2,4,5:20,5,1:0"), "f32[2, 3, 5]");
    snprintf(args, sizeof args, "[%s, %s]", arg1("equation", "{\"as_string\": \"kj,ji\"}"),
             arg1("tensors", "{\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}"));
    CHECK_STR(ONE("aten.einsum.default", args, "x=7:3,4:4,1:0", "y=7:4,5:5,1:0"), "f32[5, 3]");
    snprintf(args, sizeof args, "[%s, %s]", arg1("equation", "{\"as_string\": \"...ij,...jk->...ik\"}"),
             arg1("tensors", "{\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}"));
    CHECK_STR(ONE("aten.einsum.default", args, "x=7:2,6,3,4:72,12,4,1:0", "y=7:6,4,5:20,5,1:0"), "f32[2, 6, 3, 5]");
    /* view(dtype): a smaller element scales the last dim */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("dtype", "{\"as_scalar_type\": 3}"));
    CHECK_STR(ONE("aten.view.dtype", args, "x=7:3,4:4,1:2"), "i16[3, 8] strides [8, 1] offset 4");
    CHECK_STR(ONE("aten.view.dtype", args, "x=7:4,3:1,4:0"),
              "error: the last dim of 'self' (size 3, stride 4) cannot be viewed as int16: expected stride 1 and a whole "
              "number of elements");
    /* integer orthogonal polynomials and margins are float */
    snprintf(args, sizeof args, "[%s, %s]", T_("x", "x"), T_("n", "y"));
    CHECK_STR(ONE("aten.special_hermite_polynomial_h.default", args, "x=5:3:1:0", "y=5:3:1:0"), "f32[3] strides [1] offset 0");
    snprintf(args, sizeof args, "[%s, %s, %s]", T_("input1", "x"), T_("input2", "y"), T_("target", "y"));
    CHECK_STR(ONE("aten.margin_ranking_loss.default", args, "x=5:3:1:0", "y=5:3:1:0"), "f32[] strides [] offset 0");
    /* histogramdd: the counts and one edge tensor per dim */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("bins", "{\"as_ints\": [3, 4]}"));
    CHECK_STR(infer(prog(IN("x=7:10,2:2,1:0"), 1, "aten.histogramdd.default", args, o3, 3, false)),
              "f32[3, 4] strides [4, 1] offset 0\nf32[4] strides [1] offset 0\nf32[5] strides [1] offset 0");
    /* quantiles: a 1-d q leads, with the quantile dim fastest in memory */
    snprintf(args, sizeof args, "[%s, %s, %s, %s]", X, T_("q", "y"), arg1("dim", "{\"as_int\": 1}"),
             arg1("keepdim", "{\"as_bool\": true}"));
    CHECK_STR(ONE("aten.quantile.default", args, "x=7:4,5:5,1:0", "y=7:3:1:0"), "f32[3, 4, 1] strides [1, 3, 3] offset 0");
    /* broadcast_tensors: stride 0 where a tensor grows */
    snprintf(args, sizeof args, "[%s]", arg1("tensors", "{\"as_tensors\": [{\"name\": \"x\"}, {\"name\": \"y\"}]}"));
    CHECK_STR(infer(prog(IN("x=7:3,1:1,1:0", "y=7:4:1:2"), 2, "aten.broadcast_tensors.default", args, o2, 2, true)),
              "f32[3, 4] strides [1, 0] offset 0\nf32[3, 4] strides [0, 1] offset 2");
    /* _trilinear: the unsqueezed operands broadcast, sumdim summed away */
    snprintf(args, sizeof args, "[%s, %s, %s, %s, %s, %s, %s]", T_("i1", "x"), T_("i2", "y"), T_("i3", "z"),
             arg1("expand1", "{\"as_ints\": [1, 3]}"), arg1("expand2", "{\"as_ints\": [1, 2]}"),
             arg1("expand3", "{\"as_ints\": [0]}"), arg1("sumdim", "{\"as_ints\": [2, 3]}"));
    CHECK_STR(ONE("aten._trilinear.default", args, "x=7:4,5:5,1:0", "y=7:4,6:6,1:0", "z=7:7,5,6:30,6,1:0"),
              "f32[4, 7] strides [7, 1] offset 0");
    /* the one-hot width is data when num_classes is -1 */
    snprintf(args, sizeof args, "[%s]", X);
    CHECK_STR(ONE("aten.one_hot.default", args, "x=5:4:1:0"), "i64[4, ?]");
    /* errors name the argument */
    snprintf(args, sizeof args, "[%s, %s]", X, arg1("num_samples", "{\"as_int\": 2}"));
    CHECK_STR(ONE("aten.multinomial.default", args, "x=7:2,3,4:12,4,1:0"),
              "error: 'self' has rank 3; multinomial expects 1 or 2 dims");
    snprintf(args, sizeof args, "[%s, %s]", arg1("row", "{\"as_int\": -1}"), arg1("col", "{\"as_int\": 4}"));
    CHECK_STR(ONE("aten.tril_indices.default", args, "x=7:1:1:0"),
              "error: arguments 'row' and 'col' are -1 and 4; expected sizes >= 0");
    /* the merged table stays sorted and findable */
    CHECK(eir_meta_has("torch.ops.aten.linalg_eig.default") && eir_meta_has("aten.add.Tensor"));
    CHECK(!eir_meta_has("aten.no_such_op.default"));
}

int main(void) {
    test_table();
    test_promotion();
    test_layouts();
    test_views();
    test_conv_reduce();
    test_symbolic();
    test_errors();
    test_more_ops();
    test_public_infer();
    test_fill_meta();
    test_backward();
    test_linalg();
    test_tail();
    return check_summary("test_meta");
}
