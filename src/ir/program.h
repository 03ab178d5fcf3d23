/* program.h — the in-memory ExportedProgram (internal view of eir.h's
 * read-only structs) and the helpers serde uses to build it. */
#ifndef EIR_PROGRAM_H
#define EIR_PROGRAM_H

#include "eir.h"
#include "../base/base.h"
#include "../serde/archive.h"
#include "sym.h"

typedef struct eir_expr {
    const char *srepr;           /* as stored, e.g. "Symbol('s77', positive=True, integer=True)" */
    const char *str;             /* sympy str(), e.g. "s77" */
    eir_sym_node *tree;          /* parsed form */
} eir_expr;

struct eir_program {
    eir_arena arena;
    char errmsg[2048];

    /* source */
    eir_mapped map;              /* when loaded from a path */
    eir_archive archive;
    const char *model_name;      /* "model" */

    eir_graph *graph;
    bool layout_made_up;         /* strides and storage offsets are not the program's but
                                  * contiguous ones made up (read from the text form) */

    uint32_t num_input_specs, num_output_specs;
    eir_input_spec *input_specs;
    eir_output_spec *output_specs;
    uint32_t num_ranges;
    eir_range *ranges;
    uint32_t num_module_calls;
    eir_module_call *module_calls;
    uint32_t num_gm_metadata;
    eir_kv *gm_metadata;
    uint32_t num_namedtuple_fields;
    struct { const char *type; uint32_t n; const char **fields; } *namedtuple_fields;

    uint32_t num_opset;
    struct { const char *name; int64_t version; } *opset;
    int64_t schema_major, schema_minor;
    uint32_t num_verifiers;
    const char **verifiers;
    const char *torch_version;
    uint32_t num_guards_code;
    const char **guards_code;

    uint32_t num_tensors;
    eir_tensor *tensors;
    eir_strmap tensor_by_fqn;

    uint32_t num_exprs, cap_exprs;
    eir_expr *exprs;
    eir_strmap expr_by_srepr;

    /* capacities of the arrays edits grow (src/ir/edit.c) */
    uint32_t num_graph_caps, cap_graph_caps;
    struct graph_cap *graph_caps;

    /* archive metadata records */
    const char *archive_format, *archive_version, *byteorder;
    uint64_t model_json_bytes;
};

/* Set the program's message; returns st. */
eir_status eir_fail(eir_program *p, eir_status st, const char *fmt, ...) EIR_PRINTF(3, 4);

/* Intern a srepr expression; returns its id, or UINT32_MAX with p->errmsg set. */
uint32_t eir_program_intern_expr(eir_program *p, const char *srepr, const char *where);

/* Whether range constraint i names a symbol or expression that some
 * expression of the program contains. torch's deserializer keeps only
 * those (it warns "Symbol u0 did not appear in the graph that was
 * deserialized" for the rest), so printing and `eir info` show the same. */
bool eir_program_range_in_graph(const eir_program *p, uint32_t i);

/* The schema name of an argument kind ("as_tensor"). */
const char *eir_arg_kind_name(eir_arg_kind k);

/* A name torch.fx's namespace refuses for a node (torch.fx.graph's
 * _illegal_names: keywords, builtins such as `slice`, the code generator's
 * globals); it names such a node `slice_1` instead. */
bool eir_fx_illegal_name(const char *s);

/* Python's str.isspace() for ASCII. */
bool eir_is_pyspace(char c);

/* The innermost 'File "...", line N, in f' frame of a stack_trace and the
 * code line after it, as "File: f.py:N in f, code: ..." (fx.graph's
 * _parse_stack_trace). false if there is none. */
bool eir_stack_summary(eir_buf *out, const char *stack_trace);

/* The same for error messages: the innermost frame in a file of the user's
 * (a subgraph's nodes have generated code, "<eval_with_key>.3", innermost),
 * else what eir_stack_summary gives. */
bool eir_stack_user_line(eir_buf *out, const char *stack_trace);

/* serde entry points (src/serde/load.c): a whole archive; or only the text
 * of models/model.json (no payloads; for tests and fuzzing). */
eir_status eir_serde_load(eir_program *p, const uint8_t *data, size_t size);
eir_status eir_serde_decode_model_json(eir_program *p, const char *text, size_t len);

/* The program as models/model.json text (src/serde/save.c), in the form
 * torch's serializer writes it; *out is NUL-terminated, the caller frees it. */
eir_status eir_serde_encode_model_json(eir_program *p, char **out, size_t *len);

/* An empty program to decode into (internal; public code uses the loaders). */
eir_program *eir_program_new_empty(void);

#endif
