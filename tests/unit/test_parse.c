/* test_parse.c — eir_program_parse, the text form (docs/TEXT-FORM.md),
 * without torch: every committed fixture printed with EIR_PRINT_PROGRAM
 * parses back to a program that prints the same text in all three forms;
 * hostile text (truncated at every byte, garbled, unknown operators,
 * undefined and duplicate names, bad literals, broken signatures) fails
 * with "LINE:COLUMN: what was expected", never a crash (this test runs
 * under ASan+UBSan in `make test`). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "eir.h"

static const char *fixtures = "tests/e2e/fixtures";

static char *print_form(eir_program *p, eir_print_form f) {
    char *s = NULL;
    if (eir_program_print(p, f, &s) != EIR_OK) return NULL;
    return s;
}

/* whether msg starts with "LINE:COLUMN: " */
static bool has_position(const char *msg) {
    const char *q = msg;
    if (*q < '1' || *q > '9') return false;
    while (*q >= '0' && *q <= '9') q++;
    if (*q++ != ':' || *q < '1' || *q > '9') return false;
    while (*q >= '0' && *q <= '9') q++;
    return q[0] == ':' && q[1] == ' ' && q[2];
}

static void round_trip(const char *name) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", fixtures, name);
    eir_program *a = NULL, *b = NULL;
    if (eir_program_load(path, &a) != EIR_OK) {
        fprintf(stderr, "%s: %s\n", path, eir_errmsg(a));
        CHECK(0);
        eir_program_free(a);
        return;
    }
    char *text = print_form(a, EIR_PRINT_PROGRAM);
    CHECK(text != NULL);
    eir_status st = eir_program_parse(text, strlen(text), &b);
    if (st != EIR_OK) fprintf(stderr, "%s: %s\n", name, eir_errmsg(b));
    CHECK(st == EIR_OK);
    if (st == EIR_OK) {
        for (int f = 0; f < 3; f++) {
            char *x = print_form(a, (eir_print_form)f), *y = print_form(b, (eir_print_form)f);
            CHECK(x && y && !strcmp(x, y));
            if (x && y && strcmp(x, y)) fprintf(stderr, "%s: print form %d differs\n", name, f);
            eir_free(x);
            eir_free(y);
        }
        /* the parsed program saves, and the archive loads as the same program */
        void *buf = NULL;
        size_t size = 0;
        CHECK(eir_program_save_buffer(b, &buf, &size) == EIR_OK);
        eir_program *c = NULL;
        if (buf) {
            CHECK(eir_program_load_buffer(buf, size, &c) == EIR_OK);
            char *z = c ? print_form(c, EIR_PRINT_PROGRAM) : NULL;
            CHECK(z && !strcmp(z, text));
            eir_free(z);
        }
        eir_program_free(c);
        eir_free(buf);
    }
    eir_free(text);
    eir_program_free(a);
    eir_program_free(b);
}

static void expect_error(const char *text, eir_status want_st, const char *want) {
    eir_program *p = NULL;
    eir_status st = eir_program_parse(text, strlen(text), &p);
    CHECK(st == want_st);
    CHECK(p != NULL);
    if (p) CHECK_STR(eir_errmsg(p), want);
    /* a failed parse leaves nothing to print */
    char *s = NULL;
    if (p) CHECK(eir_program_print(p, EIR_PRINT_PROGRAM, &s) != EIR_OK && s == NULL);
    eir_program_free(p);
}

#define HEAD "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2, 3]\"):\n"

static const char *const SMALL =
    "ExportedProgram:\n"
    "    class GraphModule(torch.nn.Module):\n"
    "        def forward(self, p_w: \"f32[3]\", b_n: \"i64[]\", x: \"f32[s77, 3]\", y: \"f32[s77, 3]\"):\n"
    "            # File: /m.py:7 in forward, code: z = x * self.w + 1\n"
    "            mul: \"f32[s77, 3]\" = torch.ops.aten.mul.Tensor(x, p_w);  p_w = None\n"
    "            add_: \"i64[]\" = torch.ops.aten.add_.Tensor(b_n, 1);  b_n = None\n"
    "            sym_size_int: \"Sym(s77)\" = torch.ops.aten.sym_size.int(x, 0);  x = None\n"
    "            mul_1: \"Sym(2*s77)\" = 2 * sym_size_int;  sym_size_int = None\n"
    "            split = torch.ops.aten.split.Tensor(mul, 1, 1);  mul = None\n"
    "            getitem: \"f32[s77, 1]\" = split[0]\n"
    "            getitem_1: \"f32[s77, 1]\" = split[1]\n"
    "            getitem_2: \"f32[s77, 1]\" = split[2];  split = getitem_2 = None\n"
    "    \n"
    "            # No stacktrace found for following nodes\n"
    "            cat: \"f32[s77, 2]\" = torch.ops.aten.cat.default([getitem, getitem_1], -1);  getitem = getitem_1 = None\n"
    "            full: \"f32[2]\" = torch.ops.aten.full.default([2], -inf, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)\n"
    "            return (add_, cat, full, mul_1)\n"
    "    \n"
    "Graph signature: \n"
    "    # inputs\n"
    "    p_w: PARAMETER target='w'\n"
    "    b_n: BUFFER target='n' persistent=True\n"
    "    x: USER_INPUT\n"
    "    y: USER_INPUT\n"
    "    \n"
    "    # outputs\n"
    "    add_: BUFFER_MUTATION target='n'\n"
    "    cat: USER_OUTPUT\n"
    "    full: USER_OUTPUT\n"
    "    mul_1: USER_OUTPUT\n"
    "    \n"
    "Range constraints: {s77: VR[2, 16]}\n"
    "\n";

static void small_program(void) {
    eir_program *p = NULL;
    eir_status st = eir_program_parse(SMALL, strlen(SMALL), &p);
    if (st) fprintf(stderr, "SMALL: %s\n", eir_errmsg(p));
    CHECK(st == EIR_OK);
    if (st == EIR_OK) {
        char *s = print_form(p, EIR_PRINT_PROGRAM);
        CHECK_STR(s, SMALL);
        eir_free(s);
        const eir_graph *g = eir_program_graph(p);
        CHECK(g->num_inputs == 4 && g->num_nodes == 7 && g->num_outputs == 4);
        /* split's outputs are one list of three tensors (aten.split.Tensor returns Tensor[]) */
        const eir_node *sp = &g->nodes[4];
        CHECK_STR(sp->target, "torch.ops.aten.split.Tensor");
        CHECK(sp->num_outputs == 1 && sp->outputs[0].kind == EIR_ARG_TENSORS && sp->outputs[0].u.list.n == 3);
        /* keyword arguments keep their kind and schema order */
        const eir_node *fu = &g->nodes[6];
        CHECK(fu->num_inputs == 6 && fu->inputs[2].kind == 2 && !strcmp(fu->inputs[2].name, "dtype"));
        CHECK(fu->inputs[1].arg.kind == EIR_ARG_FLOAT && fu->inputs[1].arg.u.f < -1e308);
        CHECK(fu->inputs[4].arg.kind == EIR_ARG_DEVICE && !strcmp(fu->inputs[4].arg.u.device.type, "cpu"));
        /* the magic operator is operator.mul on a literal and a SymInt */
        CHECK_STR(g->nodes[3].target, "_operator.mul");
        CHECK(g->nodes[3].inputs[0].arg.kind == EIR_ARG_INT && g->nodes[3].inputs[1].arg.kind == EIR_ARG_SYM_INT);
        /* the stack trace comes from the comment, for the nodes below it */
        CHECK(g->nodes[0].num_metadata == 1 && !strcmp(g->nodes[0].metadata[0].key, "stack_trace"));
        CHECK(g->nodes[5].num_metadata == 0);
        /* sizes: symbolic, with contiguous strides */
        const eir_value *x = &g->values[g->inputs[2].value];
        CHECK(x->meta.sizes[0].is_expr && !strcmp(eir_expr_str(p, x->meta.sizes[0].expr), "s77"));
        CHECK(!x->meta.strides[0].is_expr && x->meta.strides[0].value == 3 && x->meta.strides[1].value == 1);
        CHECK(eir_program_num_ranges(p) == 1 && eir_program_range(p, 0)->min == 2 &&
              eir_program_range(p, 0)->max == 16);
        /* state: zero-filled, contiguous */
        const eir_tensor *w = eir_program_find_tensor(p, "w");
        CHECK(w && w->is_param && w->dtype == EIR_F32 && w->rank == 1 && w->sizes[0] == 3 && w->storage_nbytes == 12);
        CHECK(w && w->data && ((const float *)w->data)[0] == 0 && ((const float *)w->data)[2] == 0);
        CHECK(eir_program_input_spec(p, 1)->kind == EIR_IN_BUFFER && eir_program_input_spec(p, 1)->persistent == 1);
        CHECK(eir_program_output_spec(p, 0)->kind == EIR_OUT_BUFFER_MUTATION);
        /* it runs: the buffer counts up, state is zero */
        eir_runtime *rt = NULL;
        CHECK(eir_runtime_create(p, &rt) == EIR_OK);
        float xd[6] = {1, 2, 3, 4, 5, 6};
        int64_t sz[2] = {2, 3};
        eir_tensor_view xv = {xd, EIR_F32, 2, sz, NULL};
        CHECK(eir_runtime_set_input(rt, 0, &xv) == EIR_OK && eir_runtime_set_input(rt, 1, &xv) == EIR_OK);
        CHECK(eir_runtime_run(rt) == EIR_OK);
        eir_tensor_view n;
        CHECK(eir_runtime_state(rt, "n", &n) == EIR_OK && *(const int64_t *)n.data == 1);
        eir_tensor_view o;
        CHECK(eir_runtime_output(rt, 1, &o) == EIR_OK && o.dtype == EIR_F32 && ((const float *)o.data)[0] == -INFINITY);
        eir_runtime_free(rt);
    }
    eir_program_free(p);

    /* truncated at every byte: a program, or a positioned message */
    size_t len = strlen(SMALL);
    int ok = 0, positioned = 0;
    for (size_t k = 0; k < len; k++) {
        eir_program *q = NULL;
        eir_status s = eir_program_parse(SMALL, k, &q);
        if (s == EIR_OK) ok++;
        else if (has_position(eir_errmsg(q))) positioned++;
        else fprintf(stderr, "truncated at %zu: %s\n", k, eir_errmsg(q));
        eir_program_free(q);
    }
    CHECK(ok + positioned == (int)len);
    CHECK(positioned > (int)len / 2);

    /* garbled: every byte replaced by a few others, seeded */
    char *buf = malloc(len + 1);
    uint32_t seed = 12345;
    int bad = 0;
    static const char subst[] = "\"'()[]{},:=;#.-+*0 9aZ_\n\\\xff";
    for (size_t k = 0; k < len && buf; k++) {
        for (int r = 0; r < 3; r++) {
            memcpy(buf, SMALL, len + 1);
            seed = seed * 1103515245u + 12345u;
            buf[k] = subst[(seed >> 16) % (sizeof subst - 1)];
            eir_program *q = NULL;
            eir_status s = eir_program_parse(buf, len, &q);
            if (s != EIR_OK && !has_position(eir_errmsg(q))) {
                if (bad++ < 5) fprintf(stderr, "garbled at %zu: %s\n", k, eir_errmsg(q));
            }
            if (s == EIR_OK) {
                char *t = print_form(q, EIR_PRINT_PROGRAM);
                CHECK(t != NULL);
                eir_free(t);
            }
            eir_program_free(q);
        }
    }
    CHECK(bad == 0);
    free(buf);
}

static void hostile(void) {
    /* structure */
    expect_error("", EIR_ERR_SCHEMA, "1:1: empty text: expected 'ExportedProgram:' or a class");
    expect_error("class GraphModule(torch.nn.Module):\n", EIR_ERR_SCHEMA,
                 "2:5: expected 'def forward(self, ...):' at column 5");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.sin.default(x)\n", EIR_ERR_SCHEMA,
                 "3:9: expected 'return ...' to end forward()");
    expect_error(HEAD "        return (x,)\n        y: \"f32[2, 3]\" = torch.ops.aten.sin.default(x)\n", EIR_ERR_SCHEMA,
                 "4:9: statement after 'return'");
    expect_error(HEAD "          return (x,)\n", EIR_ERR_SCHEMA, "3:11: unexpected indentation");
    expect_error(HEAD "\treturn (x,)\n", EIR_ERR_SCHEMA, "3:1: tab in the indentation");
    expect_error("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2, 3]\")\n        return (x,)\n",
                 EIR_ERR_SCHEMA, "2:38: expected ':' after forward's parameters, got the end of the line");
    expect_error(HEAD "        return (x,)\nx", EIR_ERR_SCHEMA, "4:1: unexpected line after the graph module");
    /* names */
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.sin.default(z)\n        return (y,)\n", EIR_ERR_GRAPH,
                 "3:53: undefined name 'z'");
    expect_error(HEAD "        return (y,)\n", EIR_ERR_GRAPH, "3:17: undefined name 'y'");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.sin.default(x)\n"
                 "        y: \"f32[2, 3]\" = torch.ops.aten.cos.default(x)\n        return (y,)\n",
                 EIR_ERR_GRAPH, "4:9: 'y' is defined twice in this graph (first on line 3)");
    expect_error("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2]\", x: \"f32[2]\"):\n"
                 "        return (x,)\n", EIR_ERR_GRAPH, "2:36: 'x' is defined twice in this graph (first on line 2)");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.sin.default(x);  q = None\n        return (y,)\n",
                 EIR_ERR_GRAPH, "3:58: undefined name 'q' in a deletion");
    expect_error(HEAD "        s = torch.ops.aten.split.Tensor(x, 1)\n        a: \"f32[1, 3]\" = s[1]\n"
                 "        return (a,)\n", EIR_ERR_GRAPH,
                 "4:28: s[1]: the outputs of 's' are read in order, expected index 0");
    expect_error(HEAD "        s = torch.ops.aten.split.Tensor(x, 1)\n        return (s,)\n", EIR_ERR_GRAPH,
                 "4:17: 's' (line 3) is not a value: a call with several or no outputs, a submodule, or an input "
                 "without a type");
    expect_error(HEAD "        g = self.true_graph_0\n        return (x,)\n", EIR_ERR_GRAPH,
                 "3:1: no class 'true_graph_0' in GraphModule for 'self.true_graph_0'");
    expect_error(HEAD "        return (x,)\n\n    class true_graph_0(torch.nn.Module):\n        def forward(self, y: \"f32[2]\"):\n"
                 "            return (y,)\n", EIR_ERR_GRAPH,
                 "5:1: class 'true_graph_0' is not used: GraphModule has no 'self.true_graph_0'");
    /* operators and arguments */
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.nope.default(x)\n        return (y,)\n", EIR_ERR_SCHEMA,
                 "3:26: unknown operator 'torch.ops.aten.nope.default' (torch 2.13 has no such overload)");
    expect_error(HEAD "        y: \"f32[2, 3]\" = os.system(x)\n        return (y,)\n", EIR_ERR_SCHEMA,
                 "3:26: unknown callable 'os.system' (torch.ops.<ns>.<op>.<overload>, torch.sym_*, math_trunc or an "
                 "operator expected)");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.sin.default(x, x)\n        return (y,)\n", EIR_ERR_SCHEMA,
                 "3:56: aten.sin.default takes 1 positional arguments, got more");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.sin.default(self = x, bogus = 1)\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:63: aten.sin.default has no argument 'bogus'");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, x, alpha = 1, alpha = 2)\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:69: keyword argument 'alpha' given twice");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, x\n        return (y,)\n", EIR_ERR_SCHEMA,
                 "3:56: expected ',' or ')' in the arguments of torch.ops.aten.add.Tensor, got the end of the line");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.view.default(x, [x, 1.5])\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:57: a list mixing kinds of elements (expected all ints, floats, bools, strings, "
                 "symbolic values or tensors, or tensors and None)");
    /* literals */
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, 1.2.3)\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:55: bad number '1.2.3'");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, 99999999999999999999)\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:55: integer '99999999999999999999' is out of range (int64)");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, 'abc)\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:55: unterminated string");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, 'a\\qb')\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:57: unknown escape '\\q' in a string");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, torch.float99)\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:55: unknown torch constant 'torch.float99' (a dtype, memory format, layout or "
                 "torch.ops operator was expected)");
    expect_error(HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, device(type=cpu))\n        return (y,)\n",
                 EIR_ERR_SCHEMA, "3:67: expected a device type string");
    /* annotations and symbolic sizes */
    expect_error("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"q32[2]\"):\n        return (x,)\n",
                 EIR_ERR_SCHEMA, "2:27: unknown dtype 'q32' (f32, i64, b8, bf16, ... expected)");
    expect_error("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2, ]\"):\n        return (x,)\n",
                 EIR_ERR_SCHEMA, "2:34: empty size in a type annotation");
    expect_error("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[s0 +]\"):\n        return (x,)\n",
                 EIR_ERR_SCHEMA, "2:35: bad symbolic expression 's0 +': unexpected end");
    expect_error("class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[Bogus(s0)]\"):\n        return (x,)\n",
                 EIR_ERR_SCHEMA, "2:31: symbolic expression 'Bogus(s0)': bad symbolic expression "
                 "'Bogus(Symbol('s0', positive=True, integer=True))': unknown function 'Bogus' at offset 48");
    /* signature and ranges */
    expect_error("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self, x: \"f32[2]\"):\n"
                 "            return (x,)\n\nGraph signature: \n    # inputs\n    x: USER_THING\n\n    # outputs\n"
                 "    x: USER_OUTPUT\n\nRange constraints: {}\n",
                 EIR_ERR_SCHEMA, "8:8: unknown input kind 'USER_THING'");
    expect_error("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self, x: \"f32[2]\"):\n"
                 "            return (x,)\n\nGraph signature: \n    # inputs\n    x: PARAMETER\n\n    # outputs\n"
                 "    x: USER_OUTPUT\n\nRange constraints: {}\n",
                 EIR_ERR_SCHEMA, "8:8: a PARAMETER input needs target='...'");
    expect_error("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self, x: \"f32[2]\"):\n"
                 "            return (x,)\n\nGraph signature: \n    # inputs\n    x: USER_INPUT\n    y: USER_INPUT\n\n"
                 "    # outputs\n    x: USER_OUTPUT\n\nRange constraints: {}\n",
                 EIR_ERR_GRAPH, "6:1: the signature lists 2 inputs, forward() takes 1");
    expect_error("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self, x: \"f32[2]\"):\n"
                 "            return (x,)\n\nGraph signature: \n    # inputs\n    x: USER_INPUT\n\n"
                 "    # outputs\n    y: USER_OUTPUT\n\nRange constraints: {}\n",
                 EIR_ERR_GRAPH, "11:1: signature output 0 is 'y', forward() returns 'x'");
    expect_error("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self, x: \"f32[s0]\"):\n"
                 "            return (x,)\n\nRange constraints: {s0: VR[5, 2]}\n",
                 EIR_ERR_SCHEMA, "6:21: range of 's0' is empty (5 > 2)");
    expect_error("ExportedProgram:\n    class GraphModule(torch.nn.Module):\n        def forward(self, x: \"f32[s0]\"):\n"
                 "            return (x,)\n\nRange constraints: {s0: VR[1, 2], s0: VR[1, 3]}\n",
                 EIR_ERR_SCHEMA, "6:35: symbol 's0' has two ranges");
    /* bytes */
    {
        const char t[] = "class GraphModule(torch.nn.Module):\n    def fo\0rward(self):\n";
        eir_program *p = NULL;
        CHECK(eir_program_parse(t, sizeof t - 1, &p) == EIR_ERR_SCHEMA);
        CHECK_STR(eir_errmsg(p), "2:11: NUL byte in the text");
        eir_program_free(p);
    }
    /* nesting */
    {
        char t[4096];
        int n = snprintf(t, sizeof t, HEAD "        y: \"f32[2, 3]\" = torch.ops.aten.add.Tensor(x, ");
        for (int i = 0; i < 200; i++) t[n++] = '[';
        strcpy(t + n, "\n");
        eir_program *p = NULL;
        CHECK(eir_program_parse(t, strlen(t), &p) == EIR_ERR_SCHEMA);
        CHECK(strstr(eir_errmsg(p), "nested too deeply") != NULL && has_position(eir_errmsg(p)));
        eir_program_free(p);
    }
    {
        eir_program *p = NULL;
        CHECK(eir_program_parse(NULL, 5, &p) == EIR_ERR_ARG);
        eir_program_free(p);
        CHECK(eir_program_parse("x", 1, NULL) == EIR_ERR_ARG);
    }
}

int main(void) {
    DIR *d = opendir(fixtures);
    int n = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l > 4 && !strcmp(e->d_name + l - 4, ".pt2")) { round_trip(e->d_name); n++; }
        }
        closedir(d);
    }
    CHECK(n > 50);
    small_program();
    hostile();
    return check_summary("test_parse");
}
