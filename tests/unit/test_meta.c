/* test_meta.c — shape and dtype inference (src/ops/meta.c) on one-node
 * programs written as model.json text: type promotion, broadcasting,
 * TensorIterator's output layout (channels-last stays channels-last), view
 * strides and offsets, channels-last convolution, reductions with keepdim,
 * symbolic sizes, and errors naming the node and the argument. Expected
 * values are worked out by hand from torch's rules (and match torch 2.13). */
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
    CHECK(!eir_meta_has("torch.ops.aten.nonzero.default"));
    CHECK(!eir_meta_has("torch.ops.mylib.sin.default"));
}

int main(void) {
    test_table();
    test_promotion();
    test_layouts();
    test_views();
    test_conv_reduce();
    test_symbolic();
    test_errors();
    return check_summary("test_meta");
}
