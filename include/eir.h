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
 *
 * Threads. eir has no global mutable state (kernels' scratch memory is a
 * per-thread cache, freed when the thread exits), so calls on different
 * handles may run concurrently, and:
 *  - a program, once loaded, is only read by runtimes: several threads may
 *    each create, run and free runtimes of one program at the same time
 *    (eir_runtime_create takes it non-const but does not write it), and
 *    read it through the const accessors, eir_program_print,
 *    eir_program_info and eir_program_save[_buffer] meanwhile; those store a
 *    failure's message on the program, so after a failure read eir_errmsg
 *    before the program is used on another thread. Free it after every
 *    runtime of it is freed.
 *  - a runtime belongs to one thread at a time: calls on one runtime must
 *    not overlap (move it between threads freely, with the usual
 *    happens-before of a mutex or thread start/join).
 *    A runtime may itself run on several threads: eir_runtime_set_threads
 *    gives it a pool of worker threads, created once and used inside its
 *    runs only (the kernels split their loops over it; idle workers sleep
 *    between runs). That changes nothing of the above: the caller's thread
 *    still owns the runtime, and a run returns after all its work is done.
 *  - a library of custom operators is written by eir_library_create and
 *    eir_library_define only; define every operator before creating the
 *    runtimes that use it. From then on runtimes on any number of threads
 *    share it read-only, and call its kernels and shape functions
 *    concurrently: those must be thread-safe (the `user` pointer included).
 *  - messages live on their handle (eir_errmsg, eir_runtime_errmsg,
 *    eir_library_errmsg): a thread reads the one of a handle it uses.
 *    eir_errmsg(NULL) and eir_runtime_errmsg(NULL) return a constant string.
 * Matrix products go to OpenBLAS, which is safe to call from several threads.
 * tests/unit/test_threads.c checks this under ThreadSanitizer.
 *
 * Further down: running a program (eir_runtime, with module state carried
 * across runs), and custom operators (eir_library: a worked example with
 * mylib::sin and the data-dependent mylib::custom_nonzero).
 */
#ifndef EIR_H
#define EIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version, defined here only (the Makefile reads these three lines for the
 * shared library's file name and soname, eir.pc and the CMake package). The
 * soname carries the major version. */
#define EIR_VERSION_MAJOR 0
#define EIR_VERSION_MINOR 1
#define EIR_VERSION_PATCH 0
#define EIR_VERSION_XSTR_(x) #x
#define EIR_VERSION_STR_(x) EIR_VERSION_XSTR_(x)
#define EIR_VERSION_STRING \
    EIR_VERSION_STR_(EIR_VERSION_MAJOR) "." EIR_VERSION_STR_(EIR_VERSION_MINOR) "." EIR_VERSION_STR_(EIR_VERSION_PATCH)
#define EIR_VERSION EIR_VERSION_STRING

/* The library's exported functions. libeir.a is built with every other
 * symbol local (-fvisibility=hidden, then `ld -r` and `objcopy
 * --localize-hidden`), so it defines no global name but the eir_* API below
 * and cannot clash with a host program's own. */
#if defined(__GNUC__) || defined(__clang__)
#define EIR_API __attribute__((visibility("default")))
#else
#define EIR_API
#endif

/* The version of the library linked in ("0.1.0"), which may differ from the
 * EIR_VERSION_STRING a program was compiled with when libeir.so is replaced. */
EIR_API const char *eir_version(void);

/* Tensors have at most this many dimensions at run time. */
#define EIR_MAX_RANK 8

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
    EIR_ERR_UNSUPPORTED = 10, /* eir_runtime_create: the program calls operators this runtime
                              * cannot run (eir_runtime_missing_op lists them) */
    EIR_ERR_INVALID = 11,  /* eir_program_verify: the program breaks rules of the IR or its dialect */
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
    bool use_pickle;             /* payload is pickled (a tensor subclass, or every tensor of an
                                    archive from torch <= 2.8); read by eir's restricted reader */
    bool is_custom_obj;          /* a torchbind / opaque object: no tensor meta */
    eir_dtype dtype;
    uint32_t rank;
    const int64_t *sizes, *strides;
    int64_t storage_offset;      /* elements */
    const void *data;            /* start of the storage (record data), borrowed; NULL when the
                                    payload holds no storage (a wrapper subclass, an object) */
    uint64_t storage_nbytes;     /* record size */
    bool requires_grad;          /* as recorded in the payload's tensor_meta */
    eir_layout layout;
    eir_device device;           /* the tensor's device when saved ("cpu", index -1) */
    /* A tensor subclass torch pickled (use_pickle): its type, e.g.
     * "torch.testing._internal.two_tensor.TwoTensor", else NULL. A subclass with
     * its own storage has data; a wrapper subclass has none, and its inner
     * tensors (TwoTensor: "a", "b") are listed here, each with data. */
    const char *subclass;
    uint32_t num_inner;
    const char *const *inner_names;
    const struct eir_tensor *inner;
} eir_tensor;

/* ---- the program --------------------------------------------------------- */

/* Load a .pt2 archive. On success *out holds the program. On failure *out
 * still holds a handle carrying the message (read it with eir_errmsg, then
 * free it), unless memory ran out, in which case *out is NULL. */
EIR_API eir_status eir_program_load(const char *path, eir_program **out);

/* Same, from memory. The buffer is borrowed: it must stay valid and unchanged
 * until the program is freed. */
EIR_API eir_status eir_program_load_buffer(const void *data, size_t size, eir_program **out);

/* ---- the text form ----------------------------------------------------------
 * Parse a program from the text eir_program_print(EIR_PRINT_PROGRAM) writes
 * (torch's print(ep); the grammar is docs/TEXT-FORM.md). What that text does
 * not show is made up: strides are contiguous, devices cpu, constant inputs
 * None, and parameters, buffers and tensor constants are zero-filled tensors
 * of the declared dtype and sizes (so the program prints, verifies, runs and
 * saves like a loaded one). The text is copied; len excludes any NUL. On
 * failure *out holds a handle whose message starts "LINE:COLUMN: " and says
 * what was expected (free it), unless memory ran out (*out NULL). */
EIR_API eir_status eir_program_parse(const char *text, size_t len, eir_program **out);

EIR_API void eir_program_free(eir_program *p);

/* ---- writing ---------------------------------------------------------------
 *
 * Write the program as a .pt2 archive in the layout torch.export.save of
 * torch 2.13 writes (records, their order, 64-byte aligned payloads,
 * model.json and the payload configs as its json.dumps writes them), so that
 * torch.export.load and eir_program_load read it back as the same program.
 * The archive is built from the program in memory, not copied from the file
 * it was loaded from: parameters and buffers that share a storage are
 * written once and stay shared; pickled payloads (tensor subclasses,
 * torchbind objects), the sample inputs and extra/ records are carried over
 * from the source archive byte for byte.
 *
 * eir_program_save writes `path` atomically: to a temporary file in the same
 * directory, renamed over `path` only when complete; on failure nothing is
 * left behind and an existing `path` is untouched. The archive's root
 * folder is named after the file (`out.pt2` -> `out/`), as torch names it.
 * Failures set eir_errmsg(p). */
EIR_API eir_status eir_program_save(eir_program *p, const char *path);

/* Same, into memory: *data (caller frees with eir_free) holds *size bytes.
 * The root folder is `archive`, as torch.export.save names it for a buffer. */
EIR_API eir_status eir_program_save_buffer(eir_program *p, void **data, size_t *size);

/* ---- progress ----------------------------------------------------------------
 * Long operations report their progress to a callback the calling thread sets
 * (each thread has its own; NULL, the default, reports nothing): loading an
 * archive whose payloads must be inflated or unpickled ("loading"), and
 * writing one ("writing"). `done` and `total` count bytes; `done` grows
 * monotonically from 0 to `total` within one operation, and the last call of
 * an operation has done == total. The callback must not call back into eir
 * on the same program. `eir` draws these as a progress line on a terminal. */
typedef void (*eir_progress_fn)(void *user, const char *what, uint64_t done, uint64_t total);
EIR_API void eir_set_progress(eir_progress_fn fn, void *user);

/* The message of the last failure on p ("" if none). Borrowed from p. A NULL p
 * gives a fixed "out of memory" message. */
EIR_API const char *eir_errmsg(const eir_program *p);

EIR_API const eir_graph *eir_program_graph(const eir_program *p);

EIR_API uint32_t eir_program_num_input_specs(const eir_program *p);
EIR_API const eir_input_spec *eir_program_input_spec(const eir_program *p, uint32_t i);
EIR_API uint32_t eir_program_num_output_specs(const eir_program *p);
EIR_API const eir_output_spec *eir_program_output_spec(const eir_program *p, uint32_t i);
EIR_API uint32_t eir_program_num_ranges(const eir_program *p);
EIR_API const eir_range *eir_program_range(const eir_program *p, uint32_t i);
EIR_API uint32_t eir_program_num_module_calls(const eir_program *p);
EIR_API const eir_module_call *eir_program_module_call(const eir_program *p, uint32_t i);
EIR_API uint32_t eir_program_num_tensors(const eir_program *p);
EIR_API const eir_tensor *eir_program_tensor(const eir_program *p, uint32_t i);
/* The stored tensor with this FQN, or NULL. */
EIR_API const eir_tensor *eir_program_find_tensor(const eir_program *p, const char *fqn);
/* Makes every wrapper-subclass tensor (eir_tensor.inner) stand for its inner
 * tensor `name`, so that runtimes created afterwards run the program on it.
 * For TwoTensor, whose dispatch applies every op to .a and to .b separately,
 * running with "a" and then with "b" gives the .a and .b of each TwoTensor
 * output as torch computes them (plain outputs are the same in both). Fails,
 * naming the tensor, if one has no inner tensor of that name or if its
 * geometry differs from the subclass tensor's, and if the program has no
 * wrapper-subclass tensor. Call it before creating runtimes, not while any
 * runtime of p exists. */
EIR_API eir_status eir_program_use_inner(eir_program *p, const char *name);

EIR_API const char *eir_program_torch_version(const eir_program *p);
EIR_API void eir_program_schema_version(const eir_program *p, int64_t *major, int64_t *minor);
EIR_API uint32_t eir_program_num_verifiers(const eir_program *p);
EIR_API const char *eir_program_verifier(const eir_program *p, uint32_t i);

/* Symbolic expressions: sympy `srepr` text as stored, and its `str` form as
 * torch prints it (e.g. "s77", "2*s0"). */
EIR_API uint32_t eir_program_num_exprs(const eir_program *p);
EIR_API const char *eir_expr_srepr(const eir_program *p, uint32_t expr);
EIR_API const char *eir_expr_str(const eir_program *p, uint32_t expr);

/* ---- printing ------------------------------------------------------------ */

typedef enum eir_print_form {
    EIR_PRINT_GRAPH,    /* print(ep.graph) */
    EIR_PRINT_CODE,     /* print(ep.graph_module.code) */
    EIR_PRINT_PROGRAM,  /* print(ep) */
} eir_print_form;

/* Render the program as torch 2.13 prints it, including print()'s final
 * newline. *out is a NUL-terminated string the caller frees with eir_free. */
EIR_API eir_status eir_program_print(eir_program *p, eir_print_form form, char **out);

/* Draw the program as a Graphviz DOT graph (render it with `dot -Tsvg`).
 * One DOT node per node of the FX graph torch rebuilds from the file
 * (placeholders, calls, operator.getitem, output), with the FX name as its
 * id; nodes of nested graphs (cond branches, while_loop cond/body, map, scan)
 * have ids prefixed with the path of graph attributes ("true_graph_0/sin")
 * and sit in a cluster linked to the calling node. Edges are the data flow.
 * Calls are labelled with their name, operator ("aten.conv2d") and output
 * type ("f32[1, 64, s77]") and coloured by op family; inputs are styled by
 * kind (user input, parameter, buffer, constant); outputs that mutate
 * buffers are dashed, labelled edges. Calls of the root graph are grouped in
 * nested clusters by module (nn_module_stack). Ids eir makes up contain a
 * colon ("legend:0", "module:L__self___fc1"). *out is NUL-terminated; the
 * caller frees it with eir_free. */
typedef struct eir_dot_options {
    int collapse;        /* -1: every module a cluster; D >= 0: modules deeper than
                          * D are drawn as one box per module at depth D+1, labelled
                          * with their op count (0: one box per direct submodule) */
    bool no_meta;        /* ignore node metadata: no module clusters, no stack-trace tooltips */
    bool no_legend;      /* leave out the legend */
} eir_dot_options;
/* opt NULL: {-1, false, false}. */
EIR_API eir_status eir_program_dot(eir_program *p, const eir_dot_options *opt, char **out);

/* A human summary (`eir info`), or the same as JSON when json is true. */
EIR_API eir_status eir_program_info(eir_program *p, bool json, char **out);

/* Short names: "f32", "i64", "b8", "bf16"... (torch's dtype_abbrs) and torch
 * dtype names "float32", "int64", "bool"... NULL for an unknown code. */
EIR_API const char *eir_dtype_abbr(eir_dtype dt);
EIR_API const char *eir_dtype_name(eir_dtype dt);
/* Element size in bytes (0 for an unknown code). */
EIR_API size_t eir_dtype_size(eir_dtype dt);

EIR_API void eir_free(void *ptr);

/* ---- verifying -------------------------------------------------------------
 *
 * Check a loaded program against the Export IR's rules and those of a
 * dialect (docs/IR.md lists every rule and why), reporting every violation,
 * not only the first:
 *
 *     eir_verify_report *r;
 *     eir_status st = eir_program_verify(p, EIR_DIALECT_CORE, &r);
 *     for (uint32_t i = 0; i < eir_verify_num_violations(r); i++)
 *         puts(eir_verify_violation(r, i)->message);
 *     eir_verify_report_free(r);
 *
 * Rules the loader already enforces (values used before their definition,
 * dangling names, one signature spec per graph input and output, payloads
 * of the sizes and dtypes the graph declares) make eir_program_load fail, so
 * a loaded program has them. Recorded dtypes, sizes, strides and offsets
 * are compared with eir's shape inference for the ops it covers (rules
 * meta.*; docs/META.md). */

typedef enum eir_dialect {
    EIR_DIALECT_ATEN,    /* as torch.export.export returns it: ATen, higher-order, symbolic and custom ops */
    EIR_DIALECT_CORE,    /* after ep.run_decompositions(): functional Core ATen ops of torch 2.13 */
    EIR_DIALECT_EDGE,    /* ExecuTorch's to_edge(): Edge ops, dtypes of edge.yaml, scalars as tensors */
    EIR_DIALECT_BACKEND, /* eir's Backend dialect (pass to-backend): Core ATen plus the fused eir_cpu
                          * operators, their arguments checked against their schemas */
} eir_dialect;

/* One violation. Strings are borrowed from the report. */
typedef struct eir_violation {
    const char *rule;            /* the rule's id in docs/IR.md: "arg.missing", "core.not-core", ... */
    const char *graph;           /* the subgraph holding the node, as a path of subgraph argument names
                                  * ("true_graph_0", "true_graph_0/false_graph_0"); NULL: the root graph */
    const char *node;            /* the node's name, NULL for a violation of the signature or the program */
    const char *target;          /* the node's target without "torch.ops." ("aten.add.Tensor"), or NULL */
    const char *arg;             /* the argument, signature spec or tensor at fault, or NULL */
    const char *source;          /* the user's source line from the node's stack_trace ("File: m.py:12 in
                                  * forward, code: y = x + 1"), or NULL */
    const char *message;         /* one line naming all of the above and what was expected */
} eir_violation;

typedef struct eir_verify_report eir_verify_report;

/* Verify p in dialect d. *out receives the report (free it with
 * eir_verify_report_free) whatever the outcome, unless memory ran out (NULL).
 * Returns EIR_OK when there is no violation, EIR_ERR_INVALID when there are
 * some (eir_errmsg(p) then gives their count and the first), EIR_ERR_ARG for
 * a bad argument, EIR_ERR_NOMEM. p is only read, except for its message. */
EIR_API eir_status eir_program_verify(eir_program *p, eir_dialect d, eir_verify_report **out);
EIR_API uint32_t eir_verify_num_violations(const eir_verify_report *r);
/* Violation i (in graph order: the root graph's nodes with their subgraphs,
 * then the signature), or NULL when i is out of range. */
EIR_API const eir_violation *eir_verify_violation(const eir_verify_report *r, uint32_t i);
/* The report as text (one message per line) or as JSON ({"violations": [{"rule": ..., "graph": ...,
 * "node": ..., "target": ..., "arg": ..., "source": ..., "message": ...}, ...]}); the caller frees *out
 * with eir_free. EIR_ERR_ARG for a NULL report, EIR_ERR_NOMEM. */
EIR_API eir_status eir_verify_report_format(const eir_verify_report *r, bool json, char **out);
EIR_API void eir_verify_report_free(eir_verify_report *r);
/* "aten", "core", "edge" -> the dialect; false for another name. */
EIR_API bool eir_dialect_parse(const char *name, eir_dialect *out);

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
 * memory ran out (*out NULL). A program that calls custom operators needs
 * eir_runtime_create_with (below); here they are listed as missing.
 * EIR_ERR_UNSUPPORTED: the program calls operators eir (or the library)
 * does not have; the message lists each once, with its node count, and
 * eir_runtime_missing_op enumerates them. */
EIR_API eir_status eir_runtime_create(eir_program *p, eir_runtime **out);
EIR_API void eir_runtime_free(eir_runtime *rt);
EIR_API const char *eir_runtime_errmsg(const eir_runtime *rt);

/* What ep.run_decompositions() (before torch.export.save) does with an
 * operator eir lacks. */
typedef enum eir_decomp_kind {
    EIR_DECOMP_NONE = 0,        /* keeps it: torch has no decomposition for it (or it is core, or custom) */
    EIR_DECOMP_TORCH = 1,       /* not a Core ATen op, and torch's default decompositions rewrite it
                                 * (into Core ATen ops; for a few, into other non-core ops) */
    EIR_DECOMP_FUNCTIONAL = 2,  /* an in-place op: functionalization rewrites it into its
                                 * functional form (aten.sigmoid_.default -> aten.sigmoid.default) */
} eir_decomp_kind;

/* One operator a runtime could not bind. */
typedef struct eir_missing_op {
    const char *op;              /* "aten.einsum.default", "mylib.sin.default", "higher_order.foo" */
    uint32_t count;              /* nodes that call it, in subgraphs too */
    const char *first_node;      /* the first of them, in graph order ("einsum") */
    const char *subgraph;        /* the subgraph that node is in ("true_graph_0"), or NULL: the root graph */
    const char *context;         /* how the node calls it when not directly ("in auto_functionalized_v2",
                                  * "inside higher_order.with_effects"), or NULL */
    bool custom;                 /* not an ATen or prims op: define it in an eir_library */
    eir_decomp_kind decomp;
    const char *functional;      /* EIR_DECOMP_FUNCTIONAL: the op it becomes, else NULL */
    bool functional_runs;        /* EIR_DECOMP_FUNCTIONAL: eir runs that op (when not, torch may still
                                  * decompose it: aten.arccos_ -> aten.arccos -> aten.acos) */
} eir_missing_op;

/* After eir_runtime_create(_with) failed with EIR_ERR_UNSUPPORTED, the
 * missing operators, in order of first use: i = 0 .. num - 1 (0 and NULL
 * otherwise, and for a NULL rt). Borrowed from rt (strings from the program);
 * valid until eir_runtime_free. */
EIR_API uint32_t eir_runtime_num_missing_ops(const eir_runtime *rt);
EIR_API const eir_missing_op *eir_runtime_missing_op(const eir_runtime *rt, uint32_t i);

/* 1 when the runtime runs ATen overload `op` ("aten.hardswish_.default", with
 * or without "torch.ops."): a kernel, a view, an in-place op through its
 * functional kernel, an out= op, or a data-dependent step; 0 otherwise
 * (custom operators are the library's: eir_library_define). */
EIR_API int eir_op_runnable(const char *op);

/* The program's flattened user inputs, in signature order. Constant inputs
 * (burned-in Python values) are listed with is_constant and take no data
 * (see eir_runtime_set_input). */
typedef struct eir_io_info {
    const char *name;
    bool is_tensor, is_constant, is_symbolic_int;
    eir_dtype dtype;
    uint32_t rank;
    const int64_t *sizes;        /* -1 for a symbolic dim */
    bool mutated;                /* inputs: the program writes into it (an in-place op, a custom
                                  * op's Tensor(a!) argument, a USER_INPUT_MUTATION output); after
                                  * each run the caller's tensor holds the new value, as in torch */
    bool is_none;                /* outputs: the program returns None here (is_constant too);
                                  * eir_runtime_output has no view to give for it */
} eir_io_info;
EIR_API uint32_t eir_runtime_num_inputs(const eir_runtime *rt);
EIR_API eir_status eir_runtime_input_info(const eir_runtime *rt, uint32_t i, eir_io_info *info);
EIR_API uint32_t eir_runtime_num_outputs(const eir_runtime *rt);
EIR_API eir_status eir_runtime_output_info(const eir_runtime *rt, uint32_t i, eir_io_info *info);

/* Set user input i (a tensor, or a 0-d integer for a symbolic int input).
 * The data is borrowed until the run returns; sizes and strides are copied.
 * Checked here against the program's dtype, rank and static dims. A
 * constant input may be given as a 0-d number: one equal to the burned-in
 * value is ignored, another is refused as torch's guard refuses it
 * ("input 1 'n': Guard failed: n == 3 (n = 4)"). */
EIR_API eir_status eir_runtime_set_input(eir_runtime *rt, uint32_t i, const eir_tensor_view *v);

/* Run. When the input shapes (or symbolic int values) differ from the last
 * run's, the inputs first go through the guards torch's ep.module() runs —
 * dim ranges, dims two inputs share, derived dims (2*s0), the program's
 * guards_code — and a violation is refused before anything runs, with
 * torch's own text: "input 1 'y': Guard failed: y.size()[0] == x.size()[0]
 * (y.size()[0] = 5, x.size()[0] = 4)". Then symbols bind and memory is
 * planned. During the run, the program's runtime assertions fail with the
 * messages torch wrote into the graph ("Runtime assertion failed for
 * expression u0 >= 2 on node 'ge_1'"). */
EIR_API eir_status eir_runtime_run(eir_runtime *rt);
/* User output i of the last run. Scalar outputs come back as 0-d tensors. */
EIR_API eir_status eir_runtime_output(eir_runtime *rt, uint32_t i, eir_tensor_view *out);

/* Seed the generator of random ops (rand, randn, randint, randperm, bernoulli,
 * native_dropout in training mode). Runtimes start from a fixed seed, so runs
 * are reproducible; values differ from torch's generator. */
EIR_API void eir_runtime_seed(eir_runtime *rt, uint64_t seed);

/* The current value of a parameter, buffer or constant by its FQN ("count").
 * Buffers the program mutates (in place, or through BUFFER_MUTATION outputs)
 * are written back after every run, so this shows the state the next run
 * will see. Borrowed until the next run or free. */
EIR_API eir_status eir_runtime_state(eir_runtime *rt, const char *fqn, eir_tensor_view *out);

/* The parameters and buffers the program writes (in place, or through
 * BUFFER_MUTATION outputs), by FQN: i = 0, 1, ... until NULL. Borrowed from
 * the program. */
EIR_API const char *eir_runtime_mutated_state(const eir_runtime *rt, uint32_t i);

/* What the runtime has done so far, subgraph runtimes included: runs,
 * memory plans (the first run and every run whose input shapes or symbolic
 * int values differ from the previous run's), and heap allocations made
 * while running (plans, arena growth, memory for data-dependent shapes,
 * normalized copies of inputs). A run with the same shapes as the one
 * before adds no plan and no allocation. (Kernels' own scratch memory, such
 * as im2col buffers, is not counted; it comes from a per-thread cache. oneDNN's
 * float32 GEMM, used when libdnnl.so.2 loads, allocates on every call:
 * EIR_GEMM=openblas avoids it, docs/GEMM.md.) */
typedef struct eir_run_stats {
    uint64_t runs, plans, allocations;
} eir_run_stats;
EIR_API void eir_runtime_stats(const eir_runtime *rt, eir_run_stats *out);

/* Plan memory for the input shapes the program was exported with (symbolic
 * dims take their recorded hints), without running: what `eir info` reports. */
EIR_API eir_status eir_runtime_plan_example(eir_runtime *rt);

/* Bytes of the activation arena, and the sum of all intermediate tensors it
 * holds (what a one-buffer-per-value runtime would allocate). Valid after a
 * run or eir_runtime_plan_example. */
EIR_API void eir_runtime_memory(const eir_runtime *rt, uint64_t *arena_bytes, uint64_t *sum_of_intermediates);

/* The largest total of intermediate storages alive at one step of the plan
 * (each rounded up to the arena's 64-byte alignment): the smallest arena any
 * placement could reach. The planner tries a few placement orders and keeps
 * the smallest arena; eir_runtime_memory's arena_bytes divided by this is
 * its overhead. Valid after a run or eir_runtime_plan_example. */
EIR_API uint64_t eir_runtime_peak_live_bytes(const eir_runtime *rt);

/* ---- profiling ----
 * With profiling on, every run times each of its steps with the monotonic
 * clock. A step is a node of the program the runtime runs: after the Backend
 * rewrites made when the runtime is created, so fused operators show under
 * their eir_cpu names (eir_cpu.conv2d_blocked.default); a higher-order op's
 * step (cond, while_loop, map, ...) includes its subgraphs' time; a view is
 * a step too. Off by default, and no clock is read when off. Times add up
 * over the runs until eir_runtime_profile_reset (turning profiling on again
 * keeps them; turning it off drops them). A failed run is not counted as a
 * run, though the steps it ran are. */
typedef struct eir_step_profile {
    const char *node;            /* the node's name ("conv2d_3"); borrowed from the runtime's program */
    const char *target;          /* its operator ("aten.relu.default", "_operator.getitem") */
    uint64_t calls;              /* times it ran (inside a vmap region: once per element) */
    double total_us;             /* its time over those calls, microseconds */
    double last_start_us;        /* the last run: when the step's last call began, from the start of
                                  * the run's steps (0 and 0 when it did not run) */
    double last_us;              /* and how long that call took */
} eir_step_profile;
typedef struct eir_profile {
    uint64_t runs;               /* runs counted */
    double run_us;               /* their time, eir_runtime_run's call to its return (steps, the
                                  * memory plan of a run with new shapes, input copies and the
                                  * write-back of mutated state) */
    double last_run_us;          /* the last run's */
    uint32_t num_steps;
    const eir_step_profile *steps; /* in execution order; borrowed until the next run, reset,
                                    * eir_runtime_set_profiling(rt, 0) or free */
} eir_profile;
/* on != 0: profile the runs from now on; 0: stop and drop the counts */
EIR_API eir_status eir_runtime_set_profiling(eir_runtime *rt, int on);
/* the counts so far (all zero, steps NULL, when profiling is off) */
EIR_API eir_status eir_runtime_profile(const eir_runtime *rt, eir_profile *out);
EIR_API void eir_runtime_profile_reset(eir_runtime *rt);

/* ---- threads ----
 * Threads a runtime runs on: n = 1 (the default) runs everything on the
 * calling thread, as ExecuTorch does unless told otherwise; n > 1 starts
 * n - 1 worker threads now, kept until the runtime is freed or the count
 * changes, and the kernels (convolution, matrix products, pooling, batch
 * norm, pointwise ops, softmax, layer norm, ...) split their work over them;
 * n = 0 takes the CPUs this process may run on. At most EIR_MAX_THREADS;
 * EIR_ERR_ARG for a negative count. Outputs are the same, bit for bit, at
 * any thread count (work is cut into pieces that do not depend on it).
 * Matrix products are cut into blocks that run on these threads; OpenBLAS
 * itself runs on one: the first eir_runtime_create calls
 * openblas_set_num_threads(1), which holds for the whole process. */
#define EIR_MAX_THREADS 256
EIR_API eir_status eir_runtime_set_threads(eir_runtime *rt, int n);
EIR_API int eir_runtime_threads(const eir_runtime *rt);

/* ---- custom operators ------------------------------------------------------
 *
 * A program may call operators of its own namespace, defined in Python with
 * torch.library (`torch.ops.mylib.sin.default`). It loads, prints and
 * verifies without them; eir_runtime_create lists them as missing. To run
 * it, define each operator in a library — its qualified name, its schema in
 * torch's syntax, an optional shape function and a kernel — and create the
 * runtime with the library:
 *
 *     // mylib::sin(Tensor x) -> Tensor
 *     static int sin_kernel(const eir_op_call *c) {
 *         const eir_tensor_view *x = c->args[0].tensor, *y = &c->outputs[0];
 *         if (x->dtype != EIR_F32 || !eir_tensor_is_contiguous(x) || !eir_tensor_is_contiguous(y))
 *             return snprintf(c->err, c->errlen, "mylib::sin: expected a contiguous float32 tensor"), 1;
 *         for (int64_t i = 0, n = eir_tensor_numel(x); i < n; i++)
 *             ((float *)y->data)[i] = sinf(((const float *)x->data)[i]);
 *         return 0;
 *     }
 *
 *     // mylib::custom_nonzero(Tensor x) -> Tensor: int64 [n, 2] for a 2-d x, and n
 *     // depends on the data (torch's fake impl says u0 = ctx.new_dynamic_size())
 *     static int nonzero_shape(const eir_op_call *c, eir_op_shape *out) {
 *         const eir_tensor_view *x = c->args[0].tensor;            // contiguous float32 here
 *         int64_t n = 0;
 *         for (int64_t i = 0; i < eir_tensor_numel(x); i++) n += ((const float *)x->data)[i] != 0;
 *         out[0].sizes[0] = n;                                      // binds u0; sizes[1] is 2
 *         return 0;
 *     }
 *     static int nonzero_kernel(const eir_op_call *c) {            // y: allocated as [n, 2]
 *         const eir_tensor_view *x = c->args[0].tensor, *y = &c->outputs[0];
 *         int64_t *idx = y->data, row = 0;
 *         for (int64_t i = 0; i < eir_tensor_numel(x); i++) {
 *             if (((const float *)x->data)[i] == 0) continue;
 *             idx[row * y->strides[0]] = i / x->sizes[1];
 *             idx[row * y->strides[0] + y->strides[1]] = i % x->sizes[1];
 *             row++;
 *         }
 *         return 0;
 *     }
 *
 *     eir_library *lib;
 *     eir_library_create(&lib);
 *     if (eir_library_define(lib, "mylib::sin", "(Tensor x) -> Tensor", NULL, sin_kernel, NULL) != EIR_OK ||
 *         eir_library_define(lib, "mylib::custom_nonzero", "(Tensor x) -> Tensor", nonzero_shape,
 *                            nonzero_kernel, NULL) != EIR_OK)
 *         fprintf(stderr, "%s\n", eir_library_errmsg(lib));
 *     eir_runtime *rt;
 *     eir_runtime_create_with(p, lib, &rt);     // checks every call against the schema
 *     ...
 *     eir_runtime_free(rt);
 *     eir_library_free(lib);                     // after the runtimes that use it
 *
 * Calls. The kernel gets the node's arguments decoded in schema order, with
 * defaults applied (eir_op_arg), and its outputs already allocated with the
 * dtypes, sizes and strides the program recorded (torch's fake/meta results).
 * A Tensor(a!) argument is written in place: its view is the real storage
 * (a buffer gets a private copy first; a caller's input is written back).
 *
 * Shapes. Without a shape function the recorded shapes are used; they must
 * be computable from the inputs (static or backed symbolic sizes). When an
 * output's size is data-dependent — an unbacked symbol such as u0, which the
 * fake implementation made with ctx.new_dynamic_size() — define a shape
 * function: before each call it receives the arguments (input data readable)
 * and the outputs' recorded dtypes, ranks and sizes (-1 where unknown), and
 * fills in the sizes. The runtime binds the unbacked symbols from them, sizes
 * and allocates the outputs, runs the kernel, and then the program's own
 * checks on the symbols (torch._check) run as usual. A size that contradicts
 * a known one is an error naming the node, output and dimension.
 *
 * Effects. Programs after run_decompositions() wrap effectful operators in
 * with_effects and thread effect tokens through the graph; eir runs the
 * wrapped operator in graph order (tokens are empty tensors). Custom
 * operators that mutate inputs appear there as auto_functionalized_v2 and
 * run with the same kernel. */

typedef struct eir_library eir_library;

/* One decoded argument. Scalar types (Scalar) arrive as INT, FLOAT or BOOL
 * by the value the program holds. */
typedef enum eir_op_arg_kind {
    EIR_OP_NONE,                 /* an optional argument that is None */
    EIR_OP_TENSOR,               /* tensor */
    EIR_OP_TENSORS,              /* tensors[0..n); NULL entries are None (Tensor?[]) */
    EIR_OP_INT,                  /* i: int, SymInt, or a Scalar holding an integer */
    EIR_OP_INTS,                 /* ints[0..n): int[], SymInt[] */
    EIR_OP_FLOAT,                /* f: float, or a Scalar holding a float */
    EIR_OP_FLOATS,               /* floats[0..n) */
    EIR_OP_BOOL,                 /* b: bool, or a Scalar holding a bool */
    EIR_OP_BOOLS,                /* bools[0..n) */
    EIR_OP_STRING,               /* s */
    EIR_OP_DTYPE,                /* dtype: ScalarType */
} eir_op_arg_kind;

typedef struct eir_op_arg {
    eir_op_arg_kind kind;
    uint32_t n;                  /* list length */
    int64_t i;
    double f;
    bool b;
    eir_dtype dtype;
    const char *s;
    const eir_tensor_view *tensor;           /* strides always set */
    const eir_tensor_view *const *tensors;
    const int64_t *ints;
    const double *floats;
    const bool *bools;
} eir_op_arg;

/* What a shape function or kernel gets; everything is borrowed for the call. */
typedef struct eir_op_call {
    const char *op;              /* the qualified name as defined: "mylib::sin" */
    const char *node;            /* the graph node being run, for messages */
    uint32_t num_args;
    const eir_op_arg *args;      /* the schema's arguments, in order */
    uint32_t num_outputs;        /* the schema's returns (a Tensor[] return: as many as the node has) */
    const eir_tensor_view *outputs; /* kernel: allocated, strides set; shape function: NULL */
    void *user;                  /* as given to eir_library_define */
    char *err;                   /* on failure, write a message here and return non-zero */
    size_t errlen;
} eir_op_call;

/* An output's shape, for the shape function to complete. */
typedef struct eir_op_shape {
    eir_dtype dtype;             /* as recorded (read only) */
    uint32_t rank;               /* as recorded (read only) */
    int64_t sizes[EIR_MAX_RANK]; /* recorded sizes where known, -1 where they depend on data */
} eir_op_shape;

typedef int (*eir_op_kernel)(const eir_op_call *call);
typedef int (*eir_op_shape_fn)(const eir_op_call *call, eir_op_shape *outputs);

EIR_API eir_status eir_library_create(eir_library **out);
/* Free a library; runtimes created with it must be freed first. */
EIR_API void eir_library_free(eir_library *lib);
/* The message of the last failure on lib ("" if none). Borrowed from lib. */
EIR_API const char *eir_library_errmsg(const eir_library *lib);

/* Define a custom operator. `qualname` is "namespace::name" (the default
 * overload, as torch.library.custom_op makes) or "namespace::name.overload";
 * `schema` is its signature in torch's syntax, as torch.library.define takes
 * it: "(Tensor x, Tensor? bias=None, int[] dims=[], *, float alpha=1.0,
 * ScalarType? dtype=None) -> (Tensor, Tensor)", "(Tensor(a!) x) -> ()". The
 * schema may also carry the name ("mylib::sin(Tensor x) -> Tensor") with
 * qualname NULL. Arguments may be Tensor, Tensor?, Tensor[], Tensor?[], int,
 * SymInt, float, bool (and lists of these), str, Scalar, ScalarType, each
 * optional; returns are Tensors. `shape` may be NULL (recorded shapes);
 * `user` is passed to both functions. Strings are copied. A malformed schema,
 * an unsupported type or a name defined twice is EIR_ERR_ARG with a message
 * naming the place. Define operators before creating runtimes with the
 * library; runtimes only read it, so several (on several threads) may share
 * one, provided the kernels are thread-safe. */
EIR_API eir_status eir_library_define(eir_library *lib, const char *qualname, const char *schema, eir_op_shape_fn shape,
                              eir_op_kernel kernel, void *user);

/* Like eir_runtime_create, with the custom operators of lib (borrowed: it
 * must outlive the runtime; NULL for none). Every custom-op node is checked
 * against its schema here: a missing or extra argument, an argument of the
 * wrong type, or a different number of outputs is an error naming the node,
 * the argument, and what the schema expects. */
EIR_API eir_status eir_runtime_create_with(eir_program *p, const eir_library *lib, eir_runtime **out);

/* ---- editing a program ---------------------------------------------------
 *
 * A loaded program can be edited in place; what eir prints, runs and writes
 * afterwards is the edited program. A graph's values are numbered (an
 * argument names one by index, eir_arg.value) and each records the node that
 * defines it (eir_value.producer: a node index, -1 for a graph input, -2
 * for none yet). Every call below keeps these consistent, renumbering when
 * it removes something, so value and node indices held across an erase are
 * stale afterwards. On failure a call changes nothing and eir_errmsg(p)
 * says why. Runtimes created before an edit keep running the program as it
 * was when they were created only if the edit did not touch what they read:
 * create runtimes after editing.
 *
 * Names follow torch.fx's rules: a new value or node takes the hint if it is
 * free in its graph, else hint_1, hint_2, ...; a node is named after its
 * single output, or after its operator ("add" for aten.add.Tensor). */

/* The root graph, writable. Nested graphs are reached through EIR_ARG_GRAPH
 * arguments (eir_arg.u.graph.graph) and may be edited the same way. */
EIR_API eir_graph *eir_program_graph_mut(eir_program *p);

/* A new value of graph g, not yet defined by any node (producer -2); for a
 * tensor, meta gives its dtype, sizes and strides (copied). Returns its
 * index, or EIR_NO_VALUE. */
EIR_API uint32_t eir_graph_add_value(eir_program *p, eir_graph *g, eir_value_kind kind,
                                     const eir_tensor_meta *meta, const char *name_hint);

/* Insert a node calling `target` ("torch.ops.aten.add.Tensor") at position
 * pos (0..num_nodes; later nodes move up one). inputs are its arguments as
 * the loader gives them (eir_named_arg: schema name, kind 1 positional or 2
 * keyword); every value they name must be defined before pos. outputs name
 * values made by eir_graph_add_value, which the node then defines.
 * Arguments are copied. *node_out (may be NULL) receives pos. */
EIR_API eir_status eir_graph_insert_node(eir_program *p, eir_graph *g, uint32_t pos, const char *target,
                                         uint32_t num_inputs, const eir_named_arg *inputs,
                                         uint32_t num_outputs, const eir_arg *outputs, uint32_t *node_out);

/* Set (value non-NULL) or remove (NULL) a metadata entry of a node
 * ("stack_trace", "nn_module_stack", ...). */
EIR_API eir_status eir_node_set_metadata(eir_program *p, eir_node *node, const char *key, const char *value);

/* How many arguments of g's nodes and outputs name the value. */
EIR_API uint32_t eir_graph_num_uses(const eir_graph *g, uint32_t value);

/* Make the uses of value `from` in the nodes after `to`'s definition, the
 * graph's outputs and the output specs use `to` instead (so that after
 * inserting to = f(from), f keeps reading `from`; a graph input `to` takes
 * every use). Same kind required. *replaced (may be NULL) receives the
 * number of node arguments and graph outputs moved. */
EIR_API eir_status eir_graph_replace_uses(eir_program *p, eir_graph *g, uint32_t from, uint32_t to,
                                          uint32_t *replaced);

/* Remove a node whose outputs nothing uses, and its output values. */
EIR_API eir_status eir_graph_erase_node(eir_program *p, eir_graph *g, uint32_t node);

/* Dead code elimination on g and its nested graphs, by torch.fx's rule
 * (Node.is_impure): a node goes when nothing uses its outputs and it has no
 * side effect (mutable schema, seeded randomness, assertions, effectful
 * ops; custom operators are kept). *removed counts the nodes removed. */
EIR_API eir_status eir_graph_dce(eir_program *p, eir_graph *g, uint32_t *removed);

/* Common subexpression elimination on g and its nested graphs: a node
 * without side effects that calls the same operator with the same
 * arguments as an earlier node is removed, its uses moved to the earlier
 * node's outputs (torch.fx.passes.dialect.common.cse_pass). Higher-order
 * ops are left alone. *removed counts the nodes removed. */
EIR_API eir_status eir_graph_cse(eir_program *p, eir_graph *g, uint32_t *removed);

/* Add a parameter, buffer or tensor constant (kind EIR_IN_PARAMETER /
 * EIR_IN_BUFFER / EIR_IN_CONSTANT_TENSOR) named fqn, contiguous, with its
 * data copied: a new graph input (named p_fqn / b_fqn / c_fqn as torch
 * names them) and input spec, placed after the others of its kind.
 * persistent matters for buffers. *value_out receives the input's value. */
EIR_API eir_status eir_program_add_state(eir_program *p, eir_input_kind kind, const char *fqn, eir_dtype dtype,
                                         uint32_t rank, const int64_t *sizes, const void *data, bool persistent,
                                         uint32_t *value_out);

/* Remove graph input `index` (a parameter, buffer, constant, token or
 * custom object nothing uses) with its input spec, and its tensor when no
 * other input names it. */
EIR_API eir_status eir_program_drop_input(eir_program *p, uint32_t index);

/* Add an effect token, as torch threads one through effectful operators
 * (higher_order.with_effects): a graph input "token" (float32 of size 0)
 * with a TOKEN input spec, placed after the tokens there are, and a TOKEN
 * output spec and graph output naming that input (the token passes through
 * until an effectful node is added). A new with_effects node reads the
 * token the TOKEN output names and returns the next one first;
 * eir_graph_replace_uses(old, next) then moves the TOKEN output on.
 * *value_out (may be NULL) receives the input's value. */
EIR_API eir_status eir_program_add_token(eir_program *p, uint32_t *value_out);

/* ---- shape and dtype inference --------------------------------------------
 *
 * What torch 2.13's meta kernels give a node's outputs, from its arguments
 * and the metadata of its inputs: dtype, sizes, strides and storage offset
 * (docs/META.md lists the operators eir infers and how well it agrees with
 * the metadata torch records). Sizes may be symbolic: expressions of the
 * program's symbols, as ids of its expression table (eir_symint.expr): an
 * existing expression when one is equal (the same tree, or the same value
 * at the points where `eir verify` compares sizes), else a new one
 * interned in p.
 * Where torch's own sizes are data-dependent (nonzero, masked_select,
 * _unique2: unbacked symbols in torch), they are unknown here.
 *
 * Building a program with the editing API, a node's outputs need no
 * metadata by hand: add them with a zeroed eir_tensor_meta (dtype
 * EIR_DTYPE_UNKNOWN) and call eir_program_fill_meta after inserting. */

#define EIR_INFER_MAX_RANK 16

typedef struct eir_inferred_meta {
    eir_dtype dtype;
    uint32_t rank;
    eir_symint sizes[EIR_INFER_MAX_RANK];
    eir_symint strides[EIR_INFER_MAX_RANK];
    eir_symint storage_offset;
    uint32_t unknown_sizes;      /* bit i: size i is not known (data-dependent, or not expressible) */
    uint32_t unknown_strides;    /* bit i: stride i is not known */
    bool unknown_offset;
} eir_inferred_meta;

/* Infer output `output` of node `node` of graph g (a graph of p; outputs
 * counted flat, each tensor of a Tensor[] return on its own). EIR_OK: *out
 * holds it. EIR_ERR_UNSUPPORTED: no inference for the node's operator or for
 * this form of its arguments (the message says which). EIR_ERR_GRAPH: the
 * arguments contradict each other (shapes that do not broadcast, a dim out
 * of range; the message names the node, the argument and what was
 * expected). EIR_ERR_ARG: a NULL argument, node or output out of range.
 * p is written only to intern new expressions and for the message. */
EIR_API eir_status eir_node_infer_meta(eir_program *p, const eir_graph *g, uint32_t node, uint32_t output,
                                       eir_inferred_meta *out);

/* Fill, by inference, the metadata of every tensor value a node of p (root
 * and nested graphs) defines whose dtype is EIR_DTYPE_UNKNOWN, in node
 * order, so that one node's filled outputs feed the next node's inference.
 * Strides the inference leaves open (FFT outputs) are the contiguous ones.
 * *filled (may be NULL) counts the values filled. EIR_ERR_UNSUPPORTED or
 * EIR_ERR_GRAPH when some value could not be filled (data-dependent sizes,
 * an operator without inference): the message names the first such node;
 * the others are filled all the same. */
EIR_API eir_status eir_program_fill_meta(eir_program *p, uint32_t *filled);

/* ---- passes ----------------------------------------------------------------
 * Program-to-program rewrites, listed in one table: eir_num_passes() /
 * eir_pass_at(i) enumerate them, eir_program_run_pass runs one by name.
 * *changed receives how many things the pass changed (0: nothing to do).
 * A pass checks what it can before it changes anything (to-core refuses an
 * operator it cannot decompose with the program unchanged), but an error
 * raised while rewriting (out of memory, a shape inference that fails on a
 * node the pass built) leaves the program partly rewritten: discard it then
 * (`eir convert` writes nothing in that case). */
typedef struct eir_pass {
    const char *name;            /* "dce" */
    const char *doc;             /* one line */
    eir_status (*run)(eir_program *p, uint32_t *changed);
} eir_pass;
EIR_API uint32_t eir_num_passes(void);
EIR_API const eir_pass *eir_pass_at(uint32_t i);
EIR_API const eir_pass *eir_pass_find(const char *name);
EIR_API eir_status eir_program_run_pass(eir_program *p, const char *name, uint32_t *changed);

/* Shared libraries of custom operators, as `eir run --ops LIB.so` loads them,
 * export this function (see examples/custom_ops.c); it defines the library's
 * operators in lib and returns EIR_OK. */
#define EIR_OPS_INIT_SYMBOL "eir_ops_init"
typedef eir_status (*eir_ops_init_fn)(eir_library *lib);

/* Element count, and whether the strides are the contiguous ones (NULL
 * strides are). */
static inline int64_t eir_tensor_numel(const eir_tensor_view *t) {
    int64_t n = 1;
    for (uint32_t d = 0; d < t->rank; d++) n *= t->sizes[d];
    return n;
}
static inline bool eir_tensor_is_contiguous(const eir_tensor_view *t) {
    int64_t expect = 1;
    for (uint32_t d = t->rank; t->strides && d-- > 0;) {
        if (t->sizes[d] != 1 && t->strides[d] != expect) return false;
        expect *= t->sizes[d];
    }
    return true;
}

#ifdef __cplusplus
}
#endif
#endif /* EIR_H */
