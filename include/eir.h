/* eir.h — the one public header of eir, PyTorch's Export IR in C.
 *
 * Worked example: load a .pt2 written by torch.export.save, walk its graph,
 * print it the way `print(ep.graph)` does, free it.
 *
 *     #include <eir.h>
 *     #include <stdio.h>
 *
 *     int main(int argc, char **argv) {
 *         eir_program *p = NULL;
 *         if (eir_program_load(argv[1], &p) != EIR_OK) {
 *             fprintf(stderr, "eir: %s\n", eir_errmsg(p));   // p may be NULL only on OOM
 *             eir_program_free(p);
 *             return 1;
 *         }
 *         const eir_graph *g = eir_program_graph(p);
 *         for (uint32_t i = 0; i < g->num_nodes; i++)
 *             printf("%s = %s\n", g->nodes[i].name, g->nodes[i].target);
 *         char *text = NULL;
 *         eir_program_print(p, EIR_PRINT_GRAPH, &text);     // caller frees text
 *         fputs(text, stdout);
 *         eir_free(text);
 *         eir_program_free(p);
 *         return 0;
 *     }
 *
 * Ownership: everything reachable from an eir_program (graphs, nodes, values,
 * strings, tensor data) is borrowed from it and lives until eir_program_free.
 * Tensor data points into the memory-mapped archive (stored ZIP entries are
 * used in place, never copied). The structs below are read-only views.
 *
 * Errors: every fallible call returns eir_status; the message is kept on the
 * program handle and read with eir_errmsg() (in the manner of sqlite3_errmsg).
 */
#ifndef EIR_H
#define EIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define EIR_VERSION "0.1.0"

typedef enum eir_status {
    EIR_OK = 0,
    EIR_ERR_IO = 1,        /* file could not be opened, read or mapped */
    EIR_ERR_ARCHIVE = 2,   /* not a readable .pt2 / ZIP, or a record is missing */
    EIR_ERR_JSON = 3,      /* a JSON record does not parse */
    EIR_ERR_SCHEMA = 4,    /* JSON parses but does not match the export schema */
    EIR_ERR_GRAPH = 5,     /* graph is inconsistent (dangling names, bad order) */
    EIR_ERR_TENSOR = 6,    /* a payload does not fit its tensor metadata */
    EIR_ERR_VERSION = 7,   /* unsupported schema / archive version */
    EIR_ERR_NOMEM = 8,
    EIR_ERR_ARG = 9,       /* invalid argument to an API call */
} eir_status;

/* Dtypes use the export schema's ScalarType codes (not c10's). */
typedef enum eir_dtype {
    EIR_DTYPE_UNKNOWN = 0,
    EIR_U8 = 1, EIR_I8 = 2, EIR_I16 = 3, EIR_I32 = 4, EIR_I64 = 5,
    EIR_F16 = 6, EIR_F32 = 7, EIR_F64 = 8,
    EIR_C32 = 9, EIR_C64 = 10, EIR_C128 = 11,
    EIR_BOOL = 12, EIR_BF16 = 13,
    EIR_U16 = 28, EIR_F8E4M3FN = 29, EIR_F8E5M2 = 30, EIR_F8E4M3FNUZ = 31,
    EIR_F8E5M2FNUZ = 32, EIR_F8E8M0FNU = 33, EIR_U32 = 34, EIR_U64 = 35,
} eir_dtype;

typedef enum eir_layout {
    EIR_LAYOUT_UNKNOWN = 0, EIR_LAYOUT_SPARSE_COO = 1, EIR_LAYOUT_SPARSE_CSR = 2,
    EIR_LAYOUT_SPARSE_CSC = 3, EIR_LAYOUT_SPARSE_BSR = 4, EIR_LAYOUT_SPARSE_BSC = 5,
    EIR_LAYOUT_MKLDNN = 6, EIR_LAYOUT_STRIDED = 7,
} eir_layout;

typedef enum eir_memory_format {
    EIR_MF_UNKNOWN = 0, EIR_MF_CONTIGUOUS = 1, EIR_MF_CHANNELS_LAST = 2,
    EIR_MF_CHANNELS_LAST_3D = 3, EIR_MF_PRESERVE = 4,
} eir_memory_format;

typedef struct eir_program eir_program;
typedef struct eir_graph eir_graph;

/* ---- symbolic integers ------------------------------------------------ */

/* A size, stride or offset: a concrete integer, or a symbolic expression
 * (an index into the program's expression table) with an optional hint. */
typedef struct eir_symint {
    int64_t value;       /* the integer, or the hint when is_expr && has_hint */
    uint32_t expr;       /* expression id when is_expr */
    bool is_expr;
    bool has_hint;
    uint8_t hint_kind;   /* how the file states the hint: 0 as_int, 1 as_bool, 2 as_float */
    double hint_float;   /* the hint when hint_kind == 2 */
} eir_symint;

typedef struct eir_device {
    const char *type;    /* "cpu", "cuda", ... */
    int64_t index;       /* -1 when absent */
} eir_device;

typedef struct eir_tensor_meta {
    eir_dtype dtype;
    eir_layout layout;
    bool requires_grad;
    uint32_t rank;
    const eir_symint *sizes;     /* rank entries */
    const eir_symint *strides;   /* rank entries */
    eir_symint storage_offset;
    eir_device device;
} eir_tensor_meta;

/* ---- arguments -------------------------------------------------------- */

/* One member of the schema's Argument union (names follow the schema). */
typedef enum eir_arg_kind {
    EIR_ARG_NONE, EIR_ARG_TENSOR, EIR_ARG_TENSORS, EIR_ARG_INT, EIR_ARG_INTS,
    EIR_ARG_FLOAT, EIR_ARG_FLOATS, EIR_ARG_STRING, EIR_ARG_STRINGS,
    EIR_ARG_SYM_INT, EIR_ARG_SYM_INTS, EIR_ARG_SCALAR_TYPE, EIR_ARG_MEMORY_FORMAT,
    EIR_ARG_LAYOUT, EIR_ARG_DEVICE, EIR_ARG_BOOL, EIR_ARG_BOOLS,
    EIR_ARG_SYM_BOOL, EIR_ARG_SYM_BOOLS, EIR_ARG_GRAPH, EIR_ARG_OPTIONAL_TENSORS,
    EIR_ARG_CUSTOM_OBJ, EIR_ARG_OPERATOR, EIR_ARG_SYM_FLOAT, EIR_ARG_SYM_FLOATS,
    EIR_ARG_OPTIONAL_TENSOR, EIR_ARG_COMPLEX, EIR_ARG_NESTED_TENSORS,
    EIR_ARG_INT_LISTS, EIR_ARG_STRING_TO_ARG, EIR_ARG_FLOAT_LISTS,
    EIR_ARG_KIND_COUNT
} eir_arg_kind;

#define EIR_NO_VALUE UINT32_MAX

/* An argument. Scalars live in the union; lists hold `n` element arguments
 * in `items` (for EIR_ARG_STRING_TO_ARG, `keys[i]` names items[i]).
 * Element kinds: TENSORS -> TENSOR; INTS -> INT; FLOATS -> FLOAT; BOOLS -> BOOL;
 * STRINGS -> STRING; SYM_INTS -> SYM_INT; OPTIONAL_TENSORS -> OPTIONAL_TENSOR;
 * NESTED_TENSORS -> TENSORS; INT_LISTS -> INTS; FLOAT_LISTS -> FLOATS.
 * A SYM_INT/SYM_FLOAT/SYM_BOOL either names a graph value (`value` set,
 * `literal` false) or carries a literal in i/f/b (`literal` true).
 * An OPTIONAL_TENSOR with value == EIR_NO_VALUE is None. */
typedef struct eir_arg {
    eir_arg_kind kind;
    bool literal;
    uint32_t value;              /* graph value id for TENSOR, SYM_*, CUSTOM_OBJ */
    union {
        int64_t i;               /* INT, SCALAR_TYPE, MEMORY_FORMAT, LAYOUT */
        double f;                /* FLOAT */
        bool b;                  /* BOOL */
        const char *s;           /* STRING, OPERATOR, CUSTOM_OBJ class_fqn */
        eir_device device;       /* DEVICE */
        struct { double re, im; } c;                          /* COMPLEX */
        struct { uint32_t n; struct eir_arg *items; const char **keys; } list;
        struct { const char *name; eir_graph *graph; } graph; /* GRAPH */
    } u;
    const char *name;            /* CUSTOM_OBJ name, TENSOR/SYM name as written */
} eir_arg;

typedef struct eir_named_arg {
    const char *name;            /* schema argument name ("" for HOP operands) */
    eir_arg arg;
    int8_t kind;                 /* 0 absent, 1 positional, 2 keyword */
} eir_named_arg;

typedef struct eir_kv {
    const char *key;
    const char *value;
} eir_kv;

/* ---- graphs ------------------------------------------------------------ */

typedef enum eir_value_kind {
    EIR_VALUE_TENSOR, EIR_VALUE_SYM_INT, EIR_VALUE_SYM_FLOAT, EIR_VALUE_SYM_BOOL,
    EIR_VALUE_CUSTOM_OBJ, EIR_VALUE_UNTYPED,
} eir_value_kind;

/* A named value of a graph: a graph input or a node output. Its type comes
 * from the graph's tensor_values / sym_*_values / custom_obj_values tables. */
typedef struct eir_value {
    const char *name;
    eir_value_kind kind;
    eir_tensor_meta meta;        /* TENSOR */
    eir_symint sym;              /* SYM_INT, SYM_BOOL (value 0/1) */
    double symf;                 /* SYM_FLOAT literal or hint */
    const char *class_fqn;       /* CUSTOM_OBJ */
    int32_t producer;            /* node index, -1 for a graph input, -2 undefined */
} eir_value;

typedef struct eir_node {
    const char *target;          /* e.g. "torch.ops.aten.add.Tensor" */
    const char *name;            /* FX node name (NULL if the file has none) */
    uint32_t num_inputs;
    const eir_named_arg *inputs;
    uint32_t num_outputs;
    const eir_arg *outputs;
    uint32_t num_metadata;
    const eir_kv *metadata;      /* stack_trace, nn_module_stack, ... in file order */
    int8_t is_hop_single_tensor_return; /* -1 null, 0 false, 1 true */
} eir_node;

struct eir_graph {
    uint32_t num_inputs;
    const eir_arg *inputs;
    uint32_t num_outputs;
    const eir_arg *outputs;
    uint32_t num_nodes;
    const eir_node *nodes;
    uint32_t num_values;
    const eir_value *values;
    bool is_single_tensor_return;
};

/* ---- signature, ranges, call graph ----------------------------------- */

typedef enum eir_input_kind {
    EIR_IN_USER_INPUT, EIR_IN_PARAMETER, EIR_IN_BUFFER, EIR_IN_CONSTANT_TENSOR,
    EIR_IN_CUSTOM_OBJ, EIR_IN_TOKEN, EIR_IN_CONSTANT_INPUT,
} eir_input_kind;

typedef struct eir_input_spec {
    eir_input_kind kind;
    eir_arg arg;                 /* the graph input this spec describes */
    const char *target;          /* parameter/buffer/constant/custom obj FQN; name of a constant input */
    int8_t persistent;           /* buffers: 0/1; -1 otherwise */
} eir_input_spec;

typedef enum eir_output_kind {
    EIR_OUT_USER_OUTPUT, EIR_OUT_LOSS_OUTPUT, EIR_OUT_BUFFER_MUTATION,
    EIR_OUT_GRADIENT_TO_PARAMETER, EIR_OUT_GRADIENT_TO_USER_INPUT,
    EIR_OUT_USER_INPUT_MUTATION, EIR_OUT_TOKEN, EIR_OUT_PARAMETER_MUTATION,
} eir_output_kind;

typedef struct eir_output_spec {
    eir_output_kind kind;
    eir_arg arg;
    const char *target;          /* buffer/parameter/user input name, or NULL */
} eir_output_spec;

typedef struct eir_range {
    const char *symbol;          /* "s77", "u0" */
    int64_t min, max;
    bool has_min, has_max;       /* false = unbounded (-int_oo / int_oo) */
} eir_range;

typedef struct eir_module_call {
    const char *fqn;
    bool has_signature;
    uint32_t num_inputs, num_outputs;
    const eir_arg *inputs, *outputs;
    const char *in_spec, *out_spec;          /* pytree spec JSON text, verbatim */
    int32_t num_forward_arg_names;           /* -1 when null */
    const char **forward_arg_names;
} eir_module_call;

/* A parameter, buffer or constant stored in the archive. */
typedef struct eir_tensor {
    const char *fqn;             /* state_dict / constants key, e.g. "l.weight" */
    const char *record;          /* archive record, e.g. "data/weights/weight_0" */
    bool is_param;
    bool is_constant;            /* from the constants config (not the weights) */
    bool use_pickle;             /* payload is pickled: data is NULL */
    bool is_custom_obj;          /* a torchbind / opaque object: no tensor meta */
    eir_dtype dtype;
    uint32_t rank;
    const int64_t *sizes, *strides;
    int64_t storage_offset;      /* elements */
    const void *data;            /* start of the storage (record data), borrowed */
    uint64_t storage_nbytes;     /* record size */
} eir_tensor;

/* ---- the program --------------------------------------------------------- */

/* Load a .pt2 archive. On success *out holds the program. On failure *out
 * still holds a handle carrying the message (read it with eir_errmsg, then
 * free it), unless memory ran out, in which case *out is NULL. */
eir_status eir_program_load(const char *path, eir_program **out);

/* Same, from memory. The buffer is borrowed: it must stay valid and unchanged
 * until the program is freed. */
eir_status eir_program_load_buffer(const void *data, size_t size, eir_program **out);

void eir_program_free(eir_program *p);

/* The message of the last failure on p ("" if none). Borrowed from p. A NULL p
 * gives a fixed "out of memory" message. */
const char *eir_errmsg(const eir_program *p);

const eir_graph *eir_program_graph(const eir_program *p);

uint32_t eir_program_num_input_specs(const eir_program *p);
const eir_input_spec *eir_program_input_spec(const eir_program *p, uint32_t i);
uint32_t eir_program_num_output_specs(const eir_program *p);
const eir_output_spec *eir_program_output_spec(const eir_program *p, uint32_t i);
uint32_t eir_program_num_ranges(const eir_program *p);
const eir_range *eir_program_range(const eir_program *p, uint32_t i);
uint32_t eir_program_num_module_calls(const eir_program *p);
const eir_module_call *eir_program_module_call(const eir_program *p, uint32_t i);
uint32_t eir_program_num_tensors(const eir_program *p);
const eir_tensor *eir_program_tensor(const eir_program *p, uint32_t i);
/* The stored tensor with this FQN, or NULL. */
const eir_tensor *eir_program_find_tensor(const eir_program *p, const char *fqn);

const char *eir_program_torch_version(const eir_program *p);
void eir_program_schema_version(const eir_program *p, int64_t *major, int64_t *minor);
uint32_t eir_program_num_verifiers(const eir_program *p);
const char *eir_program_verifier(const eir_program *p, uint32_t i);

/* Symbolic expressions: sympy `srepr` text as stored, and its `str` form as
 * torch prints it (e.g. "s77", "2*s0"). */
uint32_t eir_program_num_exprs(const eir_program *p);
const char *eir_expr_srepr(const eir_program *p, uint32_t expr);
const char *eir_expr_str(const eir_program *p, uint32_t expr);

/* ---- printing ------------------------------------------------------------ */

typedef enum eir_print_form {
    EIR_PRINT_GRAPH,    /* print(ep.graph) */
    EIR_PRINT_CODE,     /* print(ep.graph_module.code) */
    EIR_PRINT_PROGRAM,  /* print(ep) */
} eir_print_form;

/* Render the program as torch 2.13 prints it, including print()'s final
 * newline. *out is a NUL-terminated string the caller frees with eir_free. */
eir_status eir_program_print(eir_program *p, eir_print_form form, char **out);

/* A human summary (`eir info`), or the same as JSON when json is true. */
eir_status eir_program_info(eir_program *p, bool json, char **out);

/* Short names: "f32", "i64", "b8", "bf16"... (torch's dtype_abbrs) and torch
 * dtype names "float32", "int64", "bool"... NULL for an unknown code. */
const char *eir_dtype_abbr(eir_dtype dt);
const char *eir_dtype_name(eir_dtype dt);
/* Element size in bytes (0 for an unknown code). */
size_t eir_dtype_size(eir_dtype dt);

void eir_free(void *ptr);

/* ---- running -------------------------------------------------------------
 *
 *     eir_runtime *rt;
 *     if (eir_runtime_create(p, &rt) != EIR_OK) { puts(eir_runtime_errmsg(rt)); ... }
 *     eir_tensor_view x = {data, EIR_F32, 2, sizes, NULL};   // NULL strides: contiguous
 *     eir_runtime_set_input(rt, 0, &x);                       // data borrowed until the run returns
 *     eir_runtime_run(rt);
 *     eir_tensor_view y;
 *     eir_runtime_output(rt, 0, &y);                          // borrowed until the next run or free
 *
 * A runtime binds every node once (missing operators are all reported by
 * eir_runtime_create), plans activation memory into one arena from value
 * lifetimes, and runs a flat loop that does not allocate while input shapes
 * stay the same. Parameters, buffers and constants come from the archive,
 * used in place; a buffer the program mutates gets one private copy. The
 * program must outlive the runtime. */

typedef struct eir_runtime eir_runtime;

typedef struct eir_tensor_view {
    void *data;
    eir_dtype dtype;
    uint32_t rank;
    const int64_t *sizes;
    const int64_t *strides;      /* in elements; NULL means contiguous */
} eir_tensor_view;

/* On failure *out still holds a handle with the message (free it), unless
 * memory ran out (*out NULL). */
eir_status eir_runtime_create(eir_program *p, eir_runtime **out);
void eir_runtime_free(eir_runtime *rt);
const char *eir_runtime_errmsg(const eir_runtime *rt);

/* The program's flattened user inputs, in signature order. Constant inputs
 * (burned-in Python values) are listed with is_constant and take no data. */
typedef struct eir_io_info {
    const char *name;
    bool is_tensor, is_constant, is_symbolic_int;
    eir_dtype dtype;
    uint32_t rank;
    const int64_t *sizes;        /* -1 for a symbolic dim */
} eir_io_info;
uint32_t eir_runtime_num_inputs(const eir_runtime *rt);
eir_status eir_runtime_input_info(const eir_runtime *rt, uint32_t i, eir_io_info *info);
uint32_t eir_runtime_num_outputs(const eir_runtime *rt);
eir_status eir_runtime_output_info(const eir_runtime *rt, uint32_t i, eir_io_info *info);

/* Set user input i (a tensor, or a 0-d integer for a symbolic int input).
 * The data is borrowed until the run returns; sizes and strides are copied.
 * Checked here against the program's dtype, rank and static dims. */
eir_status eir_runtime_set_input(eir_runtime *rt, uint32_t i, const eir_tensor_view *v);

/* Run. When the input shapes (or symbolic int values) differ from the last
 * run's, the inputs first go through the guards torch's ep.module() runs —
 * dim ranges, dims two inputs share, derived dims (2*s0), the program's
 * guards_code — and a violation is refused before anything runs, with
 * torch's own text: "input 1 'y': Guard failed: y.size()[0] == x.size()[0]
 * (y.size()[0] = 5, x.size()[0] = 4)". Then symbols bind and memory is
 * planned. During the run, the program's runtime assertions fail with the
 * messages torch wrote into the graph ("Runtime assertion failed for
 * expression u0 >= 2 on node 'ge_1'"). */
eir_status eir_runtime_run(eir_runtime *rt);
/* User output i of the last run. Scalar outputs come back as 0-d tensors. */
eir_status eir_runtime_output(eir_runtime *rt, uint32_t i, eir_tensor_view *out);

/* Seed the generator of random ops (rand, randn, randint, randperm, bernoulli,
 * native_dropout in training mode). Runtimes start from a fixed seed, so runs
 * are reproducible; values differ from torch's generator. */
void eir_runtime_seed(eir_runtime *rt, uint64_t seed);

/* The current value of a parameter, buffer or constant by its FQN ("count").
 * Buffers the program mutates (in place, or through BUFFER_MUTATION outputs)
 * are written back after every run, so this shows the state the next run
 * will see. Borrowed until the next run or free. */
eir_status eir_runtime_state(eir_runtime *rt, const char *fqn, eir_tensor_view *out);

/* Custom operators. A program may call operators of its own namespace
 * (`torch.ops.mylib.sin.default`, defined with torch.library). It loads,
 * prints and verifies without them; to run it, register a kernel first:
 *
 *     static int my_sin(const eir_tensor_view *in, uint32_t nin, const eir_tensor_view *out,
 *                       uint32_t nout, void *user, char *err, size_t errlen) { ... return 0; }
 *     eir_register_op("mylib::sin", my_sin, NULL);
 *
 * The kernel gets the node's tensor arguments in order and its outputs already
 * allocated with the shapes and dtypes the program recorded; it returns 0, or
 * non-zero after writing a message into err. `name` is "ns::op" (every
 * overload) or "ns::op.overload". Registration is process-wide and not
 * thread-safe; do it before creating runtimes. */
typedef int (*eir_custom_kernel)(const eir_tensor_view *inputs, uint32_t ninputs, const eir_tensor_view *outputs,
                                 uint32_t noutputs, void *user, char *err, size_t errlen);
eir_status eir_register_op(const char *name, eir_custom_kernel fn, void *user);

/* What the runtime has done so far, subgraph runtimes included: runs,
 * memory plans (the first run and every run whose input shapes or symbolic
 * int values differ from the previous run's), and heap allocations made
 * while running (plans, arena growth, memory for data-dependent shapes,
 * normalized copies of inputs). A run with the same shapes as the one
 * before adds no plan and no allocation. (Kernels' own scratch memory, such
 * as im2col buffers, is not counted.) */
typedef struct eir_run_stats {
    uint64_t runs, plans, allocations;
} eir_run_stats;
void eir_runtime_stats(const eir_runtime *rt, eir_run_stats *out);

/* Plan memory for the input shapes the program was exported with (symbolic
 * dims take their recorded hints), without running: what `eir info` reports. */
eir_status eir_runtime_plan_example(eir_runtime *rt);

/* Bytes of the activation arena, and the sum of all intermediate tensors it
 * holds (what a one-buffer-per-value runtime would allocate). Valid after a
 * run or eir_runtime_plan_example. */
void eir_runtime_memory(const eir_runtime *rt, uint64_t *arena_bytes, uint64_t *sum_of_intermediates);

#ifdef __cplusplus
}
#endif
#endif /* EIR_H */
