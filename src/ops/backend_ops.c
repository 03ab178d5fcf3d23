/* backend_ops.c — the operators of the Backend dialect: namespace eir_cpu,
 * the fused calls the pass to-backend (src/passes/backend.c) makes and the
 * kernels of src/kernels/fused.c run. They are ordinary operators with
 * schemas in torch's syntax (python/eir/backend_ops.py registers the same
 * schemas with torch.library), printed as torch.ops.eir_cpu.<op>.default.
 * eir_op_find knows them after the ATen table, so the runtime decodes and
 * binds them as it does ATen calls. */
#include <stdlib.h>
#include <string.h>

#include "optable.h"

/* eir_cpu::conv2d(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[2] padding,
 *                 int[2] dilation, int groups, str activation="none", float? min=None,
 *                 float? max=None) -> Tensor */
static const eir_schema_arg CONV2D[] = {
    {"input", EIR_ST_TENSOR, 0, NULL},       {"weight", EIR_ST_TENSOR, 0, NULL},
    {"bias", EIR_ST_OPT_TENSOR, 0, NULL},    {"stride", EIR_ST_INTS, 0, NULL},
    {"padding", EIR_ST_INTS, 0, NULL},       {"dilation", EIR_ST_INTS, 0, NULL},
    {"groups", EIR_ST_INT, 0, NULL},         {"activation", EIR_ST_STR, 0, "none"},
    {"min", EIR_ST_OPT_FLOAT, 0, "None"},    {"max", EIR_ST_OPT_FLOAT, 0, "None"},
};

/* eir_cpu::conv2d_blocked(Tensor input, Tensor weight, Tensor? bias, int[2] stride,
 *                         int[2] padding, int[2] dilation, int groups, int block,
 *                         str activation="none", float? min=None, float? max=None,
 *                         Tensor? residual=None) -> Tensor
 * input NCHW or blocked (N, ceil(C / block), H, W, block); the result blocked (docs/IR.md) */
static const eir_schema_arg CONV2D_BLOCKED[] = {
    {"input", EIR_ST_TENSOR, 0, NULL},       {"weight", EIR_ST_TENSOR, 0, NULL},
    {"bias", EIR_ST_OPT_TENSOR, 0, NULL},    {"stride", EIR_ST_INTS, 0, NULL},
    {"padding", EIR_ST_INTS, 0, NULL},       {"dilation", EIR_ST_INTS, 0, NULL},
    {"groups", EIR_ST_INT, 0, NULL},         {"block", EIR_ST_INT, 0, NULL},
    {"activation", EIR_ST_STR, 0, "none"},   {"min", EIR_ST_OPT_FLOAT, 0, "None"},
    {"max", EIR_ST_OPT_FLOAT, 0, "None"},    {"residual", EIR_ST_OPT_TENSOR, 0, "None"},
};

/* eir_cpu::to_blocked(Tensor input, int block) -> Tensor: (N, C, H, W) to (N, ceil(C / block), H, W, block) */
static const eir_schema_arg TO_BLOCKED[] = {{"input", EIR_ST_TENSOR, 0, NULL}, {"block", EIR_ST_INT, 0, NULL}};

/* eir_cpu::from_blocked(Tensor input, int channels) -> Tensor: back to (N, channels, H, W) */
static const eir_schema_arg FROM_BLOCKED[] = {{"input", EIR_ST_TENSOR, 0, NULL}, {"channels", EIR_ST_INT, 0, NULL}};

/* eir_cpu::max_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
 *                     int[2] dilation=1, bool ceil_mode=False) -> Tensor: aten.max_pool2d, the
 * values of aten.max_pool2d_with_indices without its indices */
static const eir_schema_arg MAX_POOL2D[] = {
    {"input", EIR_ST_TENSOR, 0, NULL},    {"kernel_size", EIR_ST_INTS, 0, NULL}, {"stride", EIR_ST_INTS, 0, "[]"},
    {"padding", EIR_ST_INTS, 0, "0"},     {"dilation", EIR_ST_INTS, 0, "1"},     {"ceil_mode", EIR_ST_BOOL, 0, "False"},
};

/* eir_cpu::max_pool2d_blocked(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
 *                             int[2] dilation=1, bool ceil_mode=False) -> Tensor:
 * aten.max_pool2d of a blocked input, the result blocked alike (docs/IR.md) */
static const eir_schema_arg MAX_POOL2D_BLOCKED[] = {
    {"input", EIR_ST_TENSOR, 0, NULL},    {"kernel_size", EIR_ST_INTS, 0, NULL}, {"stride", EIR_ST_INTS, 0, "[]"},
    {"padding", EIR_ST_INTS, 0, "0"},     {"dilation", EIR_ST_INTS, 0, "1"},     {"ceil_mode", EIR_ST_BOOL, 0, "False"},
};

/* eir_cpu::linear(Tensor input, Tensor weight, Tensor? bias, str activation="none",
 *                 float? min=None, float? max=None) -> Tensor */
static const eir_schema_arg LINEAR[] = {
    {"input", EIR_ST_TENSOR, 0, NULL},    {"weight", EIR_ST_TENSOR, 0, NULL}, {"bias", EIR_ST_OPT_TENSOR, 0, NULL},
    {"activation", EIR_ST_STR, 0, "none"}, {"min", EIR_ST_OPT_FLOAT, 0, "None"}, {"max", EIR_ST_OPT_FLOAT, 0, "None"},
};

/* eir_cpu::linear_packed(Tensor input, Tensor packed_weight, Tensor? bias, int out_features,
 *                        str activation="none", float? min=None, float? max=None) -> Tensor:
 * eir_cpu::linear with the weight (out_features, K) stored for the product as panels (P, K, W),
 * panel p holding columns [p W, p W + W) of weight^T, zeros past out_features (docs/IR.md) */
static const eir_schema_arg LINEAR_PACKED[] = {
    {"input", EIR_ST_TENSOR, 0, NULL},     {"packed_weight", EIR_ST_TENSOR, 0, NULL},
    {"bias", EIR_ST_OPT_TENSOR, 0, NULL},  {"out_features", EIR_ST_INT, 0, NULL},
    {"activation", EIR_ST_STR, 0, "none"}, {"min", EIR_ST_OPT_FLOAT, 0, "None"},
    {"max", EIR_ST_OPT_FLOAT, 0, "None"},
};

/* eir_cpu::lstm(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers,
 *               float dropout, bool train, bool bidirectional, bool batch_first)
 *               -> (Tensor, Tensor, Tensor): aten.lstm.input, kept whole (to-core would write
 *               it out as its time loop) and run on eir's fused time loop */
static const eir_schema_arg LSTM[] = {
    {"input", EIR_ST_TENSOR, 0, NULL},      {"hx", EIR_ST_TENSORS, 0, NULL},
    {"params", EIR_ST_TENSORS, 0, NULL},    {"has_biases", EIR_ST_BOOL, 0, NULL},
    {"num_layers", EIR_ST_INT, 0, NULL},    {"dropout", EIR_ST_FLOAT, 0, NULL},
    {"train", EIR_ST_BOOL, 0, NULL},        {"bidirectional", EIR_ST_BOOL, 0, NULL},
    {"batch_first", EIR_ST_BOOL, 0, NULL},
};

/* eir_cpu::attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask,
 *                    float scale) -> Tensor: softmax(query key^T * scale + attn_mask) value,
 * rows whose scores are all -inf give 0 (torch's math attention) */
static const eir_schema_arg ATTENTION[] = {
    {"query", EIR_ST_TENSOR, 0, NULL},          {"key", EIR_ST_TENSOR, 0, NULL},
    {"value", EIR_ST_TENSOR, 0, NULL},          {"attn_mask", EIR_ST_OPT_TENSOR, 0, NULL},
    {"scale", EIR_ST_FLOAT, 0, NULL},
};

/* sorted by name */
static const eir_op_schema BACKEND_OPS[] = {
    {"eir_cpu.attention.default", ATTENTION, sizeof ATTENTION / sizeof *ATTENTION, 1, 0},
    {"eir_cpu.conv2d.default", CONV2D, sizeof CONV2D / sizeof *CONV2D, 1, 0},
    {"eir_cpu.conv2d_blocked.default", CONV2D_BLOCKED, sizeof CONV2D_BLOCKED / sizeof *CONV2D_BLOCKED, 1, 0},
    {"eir_cpu.from_blocked.default", FROM_BLOCKED, 2, 1, 0},
    {"eir_cpu.linear.default", LINEAR, sizeof LINEAR / sizeof *LINEAR, 1, 0},
    {"eir_cpu.linear_packed.default", LINEAR_PACKED, sizeof LINEAR_PACKED / sizeof *LINEAR_PACKED, 1, 0},
    {"eir_cpu.lstm.default", LSTM, sizeof LSTM / sizeof *LSTM, 3, 0},
    {"eir_cpu.max_pool2d.default", MAX_POOL2D, sizeof MAX_POOL2D / sizeof *MAX_POOL2D, 1, 0},
    {"eir_cpu.max_pool2d_blocked.default", MAX_POOL2D_BLOCKED, sizeof MAX_POOL2D_BLOCKED / sizeof *MAX_POOL2D_BLOCKED, 1, 0},
    {"eir_cpu.to_blocked.default", TO_BLOCKED, 2, 1, 0},
};

static const char *const SCHEMA_TEXT[] = {
    "eir_cpu::attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask, float scale) -> Tensor",
    "eir_cpu::conv2d(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[2] padding, int[2] dilation, "
    "int groups, str activation=\"none\", float? min=None, float? max=None) -> Tensor",
    "eir_cpu::conv2d_blocked(Tensor input, Tensor weight, Tensor? bias, int[2] stride, int[2] padding, "
    "int[2] dilation, int groups, int block, str activation=\"none\", float? min=None, float? max=None, "
    "Tensor? residual=None) -> Tensor",
    "eir_cpu::from_blocked(Tensor input, int channels) -> Tensor",
    "eir_cpu::linear(Tensor input, Tensor weight, Tensor? bias, str activation=\"none\", float? min=None, "
    "float? max=None) -> Tensor",
    "eir_cpu::linear_packed(Tensor input, Tensor packed_weight, Tensor? bias, int out_features, "
    "str activation=\"none\", float? min=None, float? max=None) -> Tensor",
    "eir_cpu::lstm(Tensor input, Tensor[] hx, Tensor[] params, bool has_biases, int num_layers, float dropout, "
    "bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor, Tensor)",
    "eir_cpu::max_pool2d(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "eir_cpu::max_pool2d_blocked(Tensor input, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "eir_cpu::to_blocked(Tensor input, int block) -> Tensor",
};

static int cmp(const void *key, const void *row) { return strcmp((const char *)key, ((const eir_op_schema *)row)->name); }

const eir_op_schema *eir_backend_op_find(const char *name) {
    if (!name) return NULL;
    if (!strncmp(name, "torch.ops.", 10)) name += 10;
    if (strncmp(name, "eir_cpu.", 8)) return NULL;
    return bsearch(name, BACKEND_OPS, sizeof BACKEND_OPS / sizeof *BACKEND_OPS, sizeof *BACKEND_OPS, cmp);
}

uint32_t eir_backend_op_count(void) { return (uint32_t)(sizeof BACKEND_OPS / sizeof *BACKEND_OPS); }

const eir_op_schema *eir_backend_op_at(uint32_t i, const char **schema_text) {
    if (i >= eir_backend_op_count()) return NULL;
    if (schema_text) *schema_text = SCHEMA_TEXT[i];
    return &BACKEND_OPS[i];
}

static const char *const ACTIVATIONS[] = {"none", "relu", "hardtanh", "silu", "hardswish"};

int eir_backend_activation(const char *name) {
    for (int i = 0; name && i < (int)(sizeof ACTIVATIONS / sizeof *ACTIVATIONS); i++)
        if (!strcmp(name, ACTIVATIONS[i])) return i;
    return -1;
}
