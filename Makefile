# eir — build and test. `make` builds build/eir and build/libeir.a;
# `make test` builds everything (plus ASan+UBSan, TSan and clang builds) and runs all tests.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
# gcc warns of snprintf truncation we mean (messages cut to their buffers); clang has no such warning
warn     = $(WARN) $(if $(findstring clang,$(1)),,-Wno-format-truncation)
CPPFLAGS = -Iinclude -Isrc -D_GNU_SOURCE
LDLIBS   = -lminizip -lz -lopenblas -lpthread -lm
PYTHON  ?= python3

SRC = src/base/base.c src/base/dtype.c src/serde/archive.c src/base/jdoc.c src/serde/load.c src/serde/save.c src/ir/program.c src/ir/sym.c src/ir/pyexpr.c \
      src/ir/print.c src/ir/dot.c src/ir/verify.c src/ir/edit.c src/ops/optable.c src/ops/schema.c src/ops/info.c $(wildcard src/kernels/*.c) \
      $(wildcard src/runtime/*.c)
HDR = $(wildcard include/*.h src/*/*.h src/ops/*.inc src/ir/*.inc)
TESTS = $(basename $(wildcard tests/unit/test_*.c))

B  = build
BS = build/san
BT = build/tsan
BC = build/clang
SANFLAGS  = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
TSANFLAGS = -O1 -g -fsanitize=thread
CLANG ?= clang

CLI = tools/eir/main.c tools/eir/npy.c tools/eir/dot.c
UNIT_DEPS = $(wildcard tests/unit/*.h) examples/custom_ops.c tools/eir/npy.c
# unit tests that use only the public API: linked with libeir.a itself
PUBLIC_TESTS = test_api test_verify test_dot

# One build tree per configuration: $(1) directory, $(2) compiler, $(3) flags.
# Objects are compiled with -fvisibility=hidden (include/eir.h marks the API
# EIR_API). libeir_internal.a holds them as they are, for the unit tests that
# call internal functions and for the CLI; libeir.a is the public library: one
# relocatable object in which every symbol but the eir_* API is local. The CLI
# exports the API (-rdynamic) to libraries of custom operators loaded with --ops.
define tree
$(1)/obj/%.o: %.c $$(HDR)
	@mkdir -p $$(dir $$@)
	$(2) $$(CPPFLAGS) $(3) $$(call warn,$(2)) -std=c11 -fvisibility=hidden -c $$< -o $$@

$(1)/libeir_internal.a: $$(SRC:%.c=$(1)/obj/%.o)
	rm -f $$@ && ar rcs $$@ $$^

$(1)/libeir.a: $$(SRC:%.c=$(1)/obj/%.o)
	ld -r -o $(1)/eir_all.o $$^
	objcopy --localize-hidden $(1)/eir_all.o $(1)/eir_api.o
	rm -f $$@ && ar rcs $$@ $(1)/eir_api.o

$(1)/eir: $$(CLI) tools/eir/npy.h $(1)/libeir_internal.a
	$(2) $$(CPPFLAGS) $(3) $$(call warn,$(2)) -std=c11 -rdynamic $$(CLI) $(1)/libeir_internal.a $$(LDLIBS) -ldl -o $$@

# the example library of custom-operator kernels (the zoo's mylib ops), for --ops
$(1)/libeir_example_ops.so: examples/custom_ops.c include/eir.h
	$(2) -Iinclude $(3) $$(call warn,$(2)) -std=c11 -fPIC -shared $$< -lm -o $$@

$(1)/tests/%: tests/unit/%.c $(1)/libeir_internal.a $(1)/libeir.a $$(UNIT_DEPS)
	@mkdir -p $$(dir $$@)
	$(2) $$(CPPFLAGS) $(3) $$(call warn,$(2)) -std=c11 $$< $$(if $$(filter $$*,$$(PUBLIC_TESTS)),$(1)/libeir.a,$(1)/libeir_internal.a) \
	    $$(LDLIBS) -o $$@
endef
$(eval $(call tree,$(B),$(CC),$(CFLAGS)))
$(eval $(call tree,$(BS),$(CC),$(SANFLAGS)))
$(eval $(call tree,$(BT),$(CC),$(TSANFLAGS)))
$(eval $(call tree,$(BC),$(CLANG),$(CFLAGS)))

all: $(B)/eir $(B)/libeir.a $(B)/libeir_example_ops.so

UNIT  = $(TESTS:tests/unit/%=$(B)/tests/%)
UNITS = $(TESTS:tests/unit/%=$(BS)/tests/%)
# with clang: the library, the CLI, and a few unit tests that exercise the whole runtime
UNITC = $(BC)/tests/test_api $(BC)/tests/test_runtime $(BC)/tests/test_custom $(BC)/tests/test_threads

# The example: the main job on the bundled model.
example: $(B)/eir
	$(B)/eir info examples/mlp.pt2
	$(B)/eir print examples/mlp.pt2
	$(B)/eir run examples/mlp.pt2

# C tests (normal and sanitized), the bad-input corpus and the committed
# fixtures under the sanitizers, then the live torch conformance suite: the zoo
# is generated once into build/zoo, and pytest runs on two workers (pytest-xdist;
# --dist loadfile keeps each file's session fixtures, such as the op sweeps, on
# one worker).
# Also: the library's exports (scripts/check_exports.sh), runtimes on several threads under
# ThreadSanitizer (OpenBLAS's own threads are not instrumented: one thread), and a clang build.
test: $(B)/eir $(BS)/eir $(UNIT) $(UNITS) $(B)/libeir_example_ops.so $(BS)/libeir_example_ops.so \
      $(BT)/tests/test_threads $(BC)/eir $(BC)/libeir.a $(UNITC)
	scripts/check_exports.sh $(B)/libeir.a include/eir.h
	scripts/check_exports.sh $(BC)/libeir.a include/eir.h
	@set -e; for t in $(UNIT) $(UNITS) $(UNITC); do echo "== $$t"; EIR_FIXTURES=tests/e2e/fixtures $$t; done
	OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 EIR_FIXTURES=tests/e2e/fixtures $(BT)/tests/test_threads
	EIR_BIN=$(BS)/eir $(PYTHON) tests/run_corpus.py
	EIR_BIN=$(BS)/eir EIR_OPS=$(BS)/libeir_example_ops.so $(PYTHON) tests/run_fixtures.py tests/e2e/fixtures
	rm -rf $(B)/zoo && $(PYTHON) python/zoo/gen.py --out $(B)/zoo
	EIR_BIN=$(B)/eir EIR_OPS=$(B)/libeir_example_ops.so EIR_ZOO_DIR=$(B)/zoo \
	    $(PYTHON) -m pytest -q -n 2 --dist loadfile -m "not slow" python/tests

# The slow tests left out of `make test`: the real models too big for its time
# budget (python/zoo/real_models.py marks them; see README, Tests).
test-slow: $(B)/eir $(B)/libeir_example_ops.so
	EIR_BIN=$(B)/eir EIR_OPS=$(B)/libeir_example_ops.so $(PYTHON) -m pytest -q -m slow python/tests

# The op x dtype tables, committed as docs/: the Core ATen opset (docs/OPS.md) and
# every OpInfo of torch's op_db as exported programs contain it (float32, bfloat16, int64 and
# one more dtype per OpInfo; --dtypes all for all 12),
# with the check of eir's run_decompositions() hint on float32 (docs/OPS-EXPORTED.md).
ops-doc: $(B)/eir
	EIR_BIN=$(B)/eir $(PYTHON) python/ops/sweep.py --doc docs/OPS.md
	EIR_BIN=$(B)/eir $(PYTHON) python/ops/opinfo_sweep.py --decomp f32 --doc docs/OPS-EXPORTED.md

check-generated:
	$(PYTHON) scripts/gen_ops.py | diff -q src/ops/schemas.inc - >/dev/null || { echo "src/ops/schemas.inc is stale: run $(PYTHON) scripts/gen_ops.py > src/ops/schemas.inc"; exit 1; }
	$(PYTHON) scripts/gen_edge.py | diff -q src/ir/edge_ops.inc - >/dev/null || { echo "src/ir/edge_ops.inc is stale: run $(PYTHON) scripts/gen_edge.py > src/ir/edge_ops.inc"; exit 1; }

clean:
	rm -rf $(B)

.PHONY: all test test-slow example clean check-generated ops-doc
.SECONDARY:

$(B)/load_bench: tools/bench/load_bench.c $(B)/libeir.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(call warn,$(CC)) -std=c11 $< $(B)/libeir.a $(LDLIBS) -o $@

# Load time of every zoo program: eir vs torch.export.load, one run, medians.
bench-load: $(B)/load_bench
	$(PYTHON) python/bench/load_time.py --out docs/BENCHMARKS.md
.PHONY: bench-load

# libFuzzer targets (clang): `make fuzz FUZZ_SECONDS=60` builds them, seeds
# them from the corpus and fixtures, and runs each for FUZZ_SECONDS.
FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang
FUZZFLAGS = -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
$(B)/fuzz/%: tests/fuzz/%.c $(SRC) $(HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZFLAGS) -std=c11 $< $(SRC) $(LDLIBS) -o $@

fuzz: $(B)/fuzz/fuzz_load $(B)/fuzz/fuzz_model_json $(B)/fuzz/fuzz_schema $(B)/fuzz/fuzz_exprs
	@mkdir -p $(B)/fuzz/seeds_load $(B)/fuzz/seeds_json $(B)/fuzz/out_load $(B)/fuzz/out_json $(B)/fuzz/seeds_schema $(B)/fuzz/out_schema $(B)/fuzz/seeds_exprs $(B)/fuzz/out_exprs
	$(PYTHON) -c 'import sys, os; [open(os.path.join(sys.argv[1], "s%d" % i), "w").write(l.rstrip("\n")) for i, l in enumerate(open("tests/fuzz/schemas.txt"))]' $(B)/fuzz/seeds_schema
	cp tests/bad/corpus/*.pt2 tests/e2e/fixtures/*.pt2 $(B)/fuzz/seeds_load/
	$(PYTHON) -c 'import sys, zipfile, glob, os; [open(os.path.join(sys.argv[1], os.path.basename(f) + ".json"), "wb").write(zipfile.ZipFile(f).read(n)) for f in glob.glob("tests/e2e/fixtures/*.pt2") for n in zipfile.ZipFile(f).namelist() if n.endswith("models/model.json")]' $(B)/fuzz/seeds_json
	$(B)/fuzz/fuzz_load -max_total_time=$(FUZZ_SECONDS) -max_len=200000 -timeout=10 $(B)/fuzz/out_load $(B)/fuzz/seeds_load
	$(B)/fuzz/fuzz_model_json -max_total_time=$(FUZZ_SECONDS) -max_len=200000 -timeout=10 $(B)/fuzz/out_json $(B)/fuzz/seeds_json
	$(B)/fuzz/fuzz_schema -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 $(B)/fuzz/out_schema $(B)/fuzz/seeds_schema
	$(PYTHON) -c 'import sys, zipfile, glob, os, json, re; [open(os.path.join(sys.argv[1], "e%d" % i), "w").write(t) for i, t in enumerate(sorted({t for f in glob.glob("tests/e2e/fixtures/*.pt2") for m in zipfile.ZipFile(f).namelist() if m.endswith("models/model.json") for t in re.findall(r"\"expr_str\": \"((?:[^\"\\\\]|\\\\.)*)\"", zipfile.ZipFile(f).read(m).decode()) + json.loads(zipfile.ZipFile(f).read(m)).get("guards_code", [])}))]' $(B)/fuzz/seeds_exprs
	$(B)/fuzz/fuzz_exprs -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 $(B)/fuzz/out_exprs $(B)/fuzz/seeds_exprs
.PHONY: fuzz
