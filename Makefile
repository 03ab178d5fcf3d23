# eir — build, test and install. `make` builds build/eir, build/libeir.a and
# build/libeir.so.X.Y.Z; `make install PREFIX=...` installs them (README, Installing);
# `make test` builds everything (plus ASan+UBSan, TSan and clang-instrumented fuzz builds) and runs all tests.
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
# gcc warns of snprintf truncation we mean (messages cut to their buffers); clang has no such warning
warn     = $(WARN) $(if $(findstring clang,$(1)),,-Wno-format-truncation)
CPPFLAGS = -Iinclude -Isrc -D_GNU_SOURCE
LDLIBS   = -lminizip -lz -lopenblas -lpthread -lm
PYTHON  ?= python3

SRC = src/base/base.c src/base/dtype.c src/base/pool.c src/serde/archive.c src/base/jdoc.c src/serde/pickle.c src/serde/torchsave.c src/serde/load.c \
      src/serde/save.c src/ir/program.c src/ir/sym.c src/ir/pyexpr.c \
      src/ir/print.c src/ir/parse.c src/ir/parse_lex.c src/ir/dot.c src/ir/verify.c src/ir/edit.c \
      src/ops/optable.c src/ops/schema.c src/ops/info.c \
      src/ops/meta.c \
      src/ops/meta_api.c \
      src/ops/meta_more.c \
      src/ops/meta_tail.c \
      src/ops/meta_tail_la.c \
      src/ops/backend_ops.c \
      $(wildcard src/kernels/*.c) \
      $(wildcard src/runtime/*.c) \
      src/passes/passes.c \
      src/passes/fold.c \
      src/passes/to_edge.c \
      src/passes/decomp.c \
      src/passes/decomp_build.c \
      src/passes/decomp_nn.c \
      src/passes/decomp_tensor.c \
      src/passes/decomp_einsum.c \
      src/passes/decomp_pointwise.c \
      src/passes/decomp_loss.c \
      src/passes/decomp_shape.c \
      src/passes/decomp_linalg.c \
      src/passes/decomp_fft.c \
      src/passes/decomp_spatial.c \
      src/passes/decomp_misc.c \
      src/passes/decomp_effects.c \
      src/passes/decomp_rank.c \
      src/passes/decomp_random.c \
      src/passes/decomp_extra.c \
      src/passes/decomp_unbacked.c \
      src/passes/backend.c
HDR = $(wildcard include/*.h src/*/*.h src/*/*.inc)
TESTS = $(basename $(wildcard tests/unit/test_*.c))

# The version: include/eir.h defines it, nothing else does.
eir_version_part = $(shell sed -n 's/^\#define EIR_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' include/eir.h)
VERSION_MAJOR := $(call eir_version_part,MAJOR)
VERSION_MINOR := $(call eir_version_part,MINOR)
VERSION_PATCH := $(call eir_version_part,PATCH)
VERSION := $(VERSION_MAJOR).$(VERSION_MINOR).$(VERSION_PATCH)
SONAME  := libeir.so.$(VERSION_MAJOR)
SOFILE  := libeir.so.$(VERSION)

.DEFAULT_GOAL := all

B  = build
BS = build/san
BT = build/tsan
BC = build/clang
BF = build/fuzz
# libFuzzer targets (tests/fuzz/fuzz_*.c), built against the instrumented library in $(BF)
FUZZ_TARGETS = $(basename $(notdir $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_BINS = $(FUZZ_TARGETS:%=$(BF)/bin/%)
SANFLAGS  = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# the sanitized unit tests' own sources at -O0: the same instrumentation, and a
# fifth of the compile time of -O1 (gcc's ASan+UBSan at -O1 takes over 20 s on
# the larger test files); the library they test stays at -O1
SANTESTFLAGS = $(SANFLAGS:-O1=-O0)
TSANFLAGS = -O1 -g -fsanitize=thread
CLANG ?= clang

CLI = tools/eir/main.c tools/eir/npy.c tools/eir/dot.c tools/eir/progress.c
UNIT_DEPS = $(wildcard tests/unit/*.h) examples/custom_ops.c tools/eir/npy.c
# unit tests that use only the public API: linked with libeir.a itself
PUBLIC_TESTS = test_api test_verify test_dot test_progress

# One build tree per configuration: $(1) directory, $(2) compiler, $(3) flags.
# $(4), when given: the flags of the unit tests' own sources (default $(3)).
# Objects are compiled with -fvisibility=hidden (include/eir.h marks the API
# EIR_API). libeir_internal.a holds them as they are, for the unit tests that
# call internal functions and for the CLI; libeir.a is the public library: one
# relocatable object in which every symbol but the eir_* API is local. The CLI
# exports the API (-rdynamic) to libraries of custom operators loaded with --ops.
# libeir.so.X.Y.Z links the same objects: they are compiled -fPIC, which costs
# nothing measurable here (Debian's compilers already default to -fPIE, and with
# every internal symbol hidden, calls inside the library stay direct; the same
# build time, and run times within noise of a -fPIE build), and spares a
# second build tree.
define tree
$(1)/obj/%.o: %.c $$(HDR)
	@mkdir -p $$(dir $$@)
	$(2) $$(CPPFLAGS) $(3) $$(call warn,$(2)) -std=c11 -fPIC -fvisibility=hidden -c $$< -o $$@

$(1)/libeir_internal.a: $$(SRC:%.c=$(1)/obj/%.o)
	rm -f $$@ && ar rcs $$@ $$^

$(1)/libeir.a: $$(SRC:%.c=$(1)/obj/%.o)
	ld -r -o $(1)/eir_all.o $$^
	objcopy --localize-hidden $(1)/eir_all.o $(1)/eir_api.o
	rm -f $$@ && ar rcs $$@ $(1)/eir_api.o

# the shared library, with soname libeir.so.MAJOR: it exports the EIR_API functions only
$(1)/$$(SOFILE): $$(SRC:%.c=$(1)/obj/%.o)
	$(2) $(3) -shared -Wl,-soname,$$(SONAME) -Wl,-z,defs -o $$@ $$^ $$(LDLIBS)
	ln -sf $$(SOFILE) $(1)/$$(SONAME)
	ln -sf $$(SONAME) $(1)/libeir.so

$(1)/eir: $$(CLI) tools/eir/npy.h tools/eir/progress.h $(1)/libeir_internal.a
	$(2) $$(CPPFLAGS) $(3) $$(call warn,$(2)) -std=c11 -rdynamic $$(CLI) $(1)/libeir_internal.a $$(LDLIBS) -ldl -o $$@

# the example library of custom-operator kernels (the zoo's mylib ops), for --ops
$(1)/libeir_example_ops.so: examples/custom_ops.c include/eir.h
	$(2) -Iinclude $(3) $$(call warn,$(2)) -std=c11 -fPIC -shared $$< -lm -o $$@

$(1)/tests/%: tests/unit/%.c $(1)/libeir_internal.a $(1)/libeir.a $$(UNIT_DEPS)
	@mkdir -p $$(dir $$@)
	$(2) $$(CPPFLAGS) $(or $(4),$(3)) $$(call warn,$(2)) -std=c11 $$< $$(if $$(filter $$*,$$(PUBLIC_TESTS)),$(1)/libeir.a,$(1)/libeir_internal.a) \
	    $$(LDLIBS) -o $$@
endef
# dnnl_conv.c compiles to a stub when oneDNN's header is absent (__has_include): it is rebuilt
# when the header appears or goes (./scripts/setup.sh installs it), through a stamp that changes
# only then
DNNL_HEADER := $(if $(wildcard /usr/include/oneapi/dnnl/dnnl.h),present,absent)
$(B)/.dnnl-header: FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(DNNL_HEADER)" ]; then echo "$(DNNL_HEADER)" > $@; fi
FORCE:
.PHONY: FORCE
$(foreach t,$(B) $(BS) $(BT) $(BC) $(BF),$(t)/obj/src/kernels/dnnl_conv.o): $(B)/.dnnl-header

$(eval $(call tree,$(B),$(CC),$(CFLAGS)))
$(eval $(call tree,$(BS),$(CC),$(SANFLAGS),$(SANTESTFLAGS)))
$(eval $(call tree,$(BT),$(CC),$(TSANFLAGS)))
$(eval $(call tree,$(BC),$(CLANG),$(CFLAGS)))

all: $(B)/eir $(B)/libeir.a $(B)/$(SOFILE) $(B)/libeir_example_ops.so

# ---- install: the header, both libraries, the CLI, eir.pc and the CMake package
# (README, Installing). DESTDIR is prepended to every path written, not to the
# paths written into eir.pc and eirConfig.cmake.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR   ?= $(LIBDIR)/cmake/eir
INSTALL    ?= install
relpath = $(shell realpath -m --relative-to=$(1) $(2))
SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
	-e 's|@VERSION@|$(VERSION)|g' -e 's|@VERSION_MAJOR@|$(VERSION_MAJOR)|g' -e 's|@VERSION_MINOR@|$(VERSION_MINOR)|g' \
	-e 's|@CMAKEDIR_TO_PREFIX@|$(call relpath,$(CMAKEDIR),$(PREFIX))|g' \
	-e 's|@LIBDIR_REL@|$(call relpath,$(PREFIX),$(LIBDIR))|g' -e 's|@INCLUDEDIR_REL@|$(call relpath,$(PREFIX),$(INCLUDEDIR))|g'

install: $(B)/eir $(B)/libeir.a $(B)/$(SOFILE)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(CMAKEDIR)
	$(INSTALL) -m 755 $(B)/eir $(DESTDIR)$(BINDIR)/eir
	$(INSTALL) -m 644 include/eir.h $(DESTDIR)$(INCLUDEDIR)/eir.h
	$(INSTALL) -m 644 $(B)/libeir.a $(DESTDIR)$(LIBDIR)/libeir.a
	$(INSTALL) -m 755 $(B)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SOFILE)
	ln -sf $(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libeir.so
	$(SUBST) packaging/eir.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/eir.pc
	$(SUBST) packaging/eirConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/eirConfig.cmake
	$(SUBST) packaging/eirConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/eirConfigVersion.cmake
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/eir.pc $(DESTDIR)$(CMAKEDIR)/eirConfig.cmake $(DESTDIR)$(CMAKEDIR)/eirConfigVersion.cmake

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/eir $(DESTDIR)$(INCLUDEDIR)/eir.h $(DESTDIR)$(LIBDIR)/libeir.a \
	    $(DESTDIR)$(LIBDIR)/$(SOFILE) $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libeir.so \
	    $(DESTDIR)$(PKGCONFIGDIR)/eir.pc $(DESTDIR)$(CMAKEDIR)/eirConfig.cmake $(DESTDIR)$(CMAKEDIR)/eirConfigVersion.cmake
	-rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null

UNIT  = $(TESTS:tests/unit/%=$(B)/tests/%)
UNITS = $(TESTS:tests/unit/%=$(BS)/tests/%)
# with clang: the library, the CLI, and a few unit tests that exercise the whole runtime
UNITC = $(BC)/tests/test_api $(BC)/tests/test_runtime $(BC)/tests/test_custom $(BC)/tests/test_threads

# The example: the main job on the bundled model. The CLI is built on two jobs
# when make was started without -j (`make example`, the first step of the
# README's test command), in the jobs of the calling make otherwise.
example:
	@$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j2) $(B)/eir
	$(B)/eir info examples/mlp.pt2
	$(B)/eir print examples/mlp.pt2
	$(B)/eir run examples/mlp.pt2

# C tests (normal and sanitized), the bad-input corpus and the committed
# fixtures under the sanitizers, every fuzz target for FUZZ_SMOKE_SECONDS on its
# committed corpus (fuzz-smoke), and beside them the live torch conformance suite: the zoo
# is generated once into build/zoo, and pytest runs on two workers (pytest-xdist;
# --dist loadfile keeps each file's session fixtures, such as the op sweeps, on
# one worker).
# Also: the libraries' exports (scripts/check_exports.sh), `make install` and
# the consumers of examples/consumer built against it (tests/install), runtimes on several threads and the
# thread pool under ThreadSanitizer (OpenBLAS's own threads are not instrumented: one thread); `make test-clang` adds a clang -O2 build.
# `make test`: the C checks below and the python conformance tests on the zoo. Each
# check is its own target, so that `make -j2 test` runs two of them at a time.
TEST_DEPS = $(B)/eir $(B)/run_bench $(BS)/eir $(UNIT) $(UNITS) $(B)/libeir_example_ops.so $(BS)/libeir_example_ops.so \
      $(BT)/tests/test_threads $(BT)/tests/test_pool $(B)/libeir.a $(B)/$(SOFILE) $(FUZZ_BINS)
# check-python (the zoo, then the python suite) takes one job from the start, the C
# checks the other one after another (longest first), so that neither core waits for the
# other's last check. (The zoo is generated in check-python's own recipe: as a prerequisite
# of its own, make would start every other check before the python suite.)
C_CHECKS = check-python check-unit-san check-corpus check-fixtures fuzz-smoke check-tsan check-unit \
      check-install check-exports

test: $(TEST_DEPS)
	@$(MAKE) --no-print-directory --output-sync=target $(C_CHECKS)

# PYTEST_FILES: the python test files (`make check-python PYTEST_FILES=python/tests/test_dot.py`)
PYTEST_FILES ?= python/tests
check-python: $(B)/eir $(B)/libeir_example_ops.so
	$(ZOO_GEN)
	EIR_BIN=$(B)/eir EIR_OPS=$(B)/libeir_example_ops.so EIR_ZOO_DIR=$(B)/zoo \
	    $(PYTHON) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder -m "not slow" --durations=25 \
	    --junitxml=$(B)/pytest.xml $(PYTEST_FILES)

# The same with every dtype of the dtype-sampled python tests (python/tests/conftest.py).
test-all-dtypes:
	EIR_TEST_DTYPES=all $(MAKE) --no-print-directory test

check-exports: $(B)/libeir.a $(B)/$(SOFILE)
	scripts/check_exports.sh $(B)/libeir.a include/eir.h
	scripts/check_exports.sh $(B)/$(SOFILE) include/eir.h
check-install: $(B)/eir $(B)/libeir.a $(B)/$(SOFILE)
	MAKE="$(MAKE)" PYTHON=$(PYTHON) tests/install/test_install.sh
check-unit: $(UNIT) $(B)/libeir_example_ops.so
	@set -e; for t in $(UNIT); do echo "== $$t"; EIR_FIXTURES=tests/e2e/fixtures $$t; done
check-unit-san: $(UNITS) $(BS)/libeir_example_ops.so
	@set -e; for t in $(UNITS); do echo "== $$t"; EIR_FIXTURES=tests/e2e/fixtures $$t; done
check-tsan: $(BT)/tests/test_threads $(BT)/tests/test_pool
	OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 EIR_FIXTURES=tests/e2e/fixtures $(BT)/tests/test_threads
	OPENBLAS_NUM_THREADS=1 TSAN_OPTIONS=halt_on_error=1 EIR_FIXTURES=tests/e2e/fixtures $(BT)/tests/test_pool
check-corpus: $(BS)/eir
	EIR_BIN=$(BS)/eir $(PYTHON) tests/run_corpus.py
check-fixtures: $(BS)/eir $(BS)/libeir_example_ops.so
	EIR_BIN=$(BS)/eir EIR_OPS=$(BS)/libeir_example_ops.so $(PYTHON) tests/run_fixtures.py tests/e2e/fixtures
	EIR_BIN=$(BS)/eir $(PYTHON) tests/run_fixtures.py tests/legacy
# The zoo the python tests run on: python/zoo/gen.py's programs exported by torch.
ZOO_GEN = rm -rf $(B)/zoo && $(PYTHON) python/zoo/gen.py --out $(B)/zoo
zoo-gen:
	$(ZOO_GEN)
.PHONY: test-all-dtypes check-python check-exports check-install check-unit check-unit-san check-tsan check-corpus \
	check-fixtures zoo-gen

# The op sweeps in full: the Core ATen sweep in all 12 dtypes and the OpInfo sweep in the
# dtypes of docs/OPS-EXPORTED.md (`make test` runs a sample of each; see python/tests/test_ops.py).
test-sweeps: $(B)/eir
	EIR_BIN=$(B)/eir EIR_OPS_DTYPES=all EIR_OPINFO_DTYPES=default \
	    $(PYTHON) -m pytest -q -n 2 --dist loadfile python/tests/test_ops.py python/tests/test_opinfo.py

# The slow tests left out of `make test`: the real models too big for its time
# budget (python/zoo/real_models.py marks them; see README, Tests).
test-slow: $(B)/eir $(B)/libeir_example_ops.so
	EIR_BIN=$(B)/eir EIR_OPS=$(B)/libeir_example_ops.so $(PYTHON) -m pytest -q -m slow python/tests

# The library, the CLI and the runtime's unit tests built with clang -O2 (its own
# tree; `make test` compiles everything with clang too, in the instrumented fuzz tree).
test-clang: $(BC)/eir $(BC)/libeir.a $(BC)/$(SOFILE) $(UNITC)
	scripts/check_exports.sh $(BC)/libeir.a include/eir.h
	scripts/check_exports.sh $(BC)/$(SOFILE) include/eir.h
	@set -e; for t in $(UNITC); do echo "== $$t"; EIR_FIXTURES=tests/e2e/fixtures $$t; done

# The op x dtype tables, committed as docs/: the Core ATen opset (docs/OPS.md) and
# every OpInfo of torch's op_db as exported programs contain it (float32, bfloat16, int64 and
# one more dtype per OpInfo; --dtypes all for all 12),
# with the check of eir's run_decompositions() hint on float32 (docs/OPS-EXPORTED.md).
ops-doc: $(B)/eir
	EIR_BIN=$(B)/eir $(PYTHON) python/ops/sweep.py --doc docs/OPS.md
	EIR_BIN=$(B)/eir $(PYTHON) python/ops/opinfo_sweep.py --decomp f32 --doc docs/OPS-EXPORTED.md

# The agreement of eir's shape and dtype inference with torch's recorded metadata,
# committed as docs/META.md: the zoo (EIR_ZOO_DIR), the fixtures, python/tests/test_meta.py's
# modules and the Core ATen and OpInfo sweeps' programs (exported once into META_SWEEPS, ~10 min).
META_SWEEPS ?= $(B)/meta-sweeps
meta-doc: $(B)/eir
	$(PYTHON) python/tools/meta_agreement.py --eir $(B)/eir $(if $(EIR_ZOO_DIR),--zoo $(EIR_ZOO_DIR)) --modules \
	    --sweeps $(META_SWEEPS) --out docs/META.md
.PHONY: meta-doc

# `eir convert` over the sweeps' programs, committed as docs/: --to core on every
# OpInfo program (docs/TO-CORE.md) and the round trip of the zoo, the Core ATen and
# OpInfo sweeps and the e2e fixtures (docs/ROUNDTRIP.md); float32, about an hour.
to-core-doc: $(B)/eir
	rm -rf $(B)/zoo && $(PYTHON) python/zoo/gen.py --out $(B)/zoo
	EIR_ZOO_DIR=$(B)/zoo $(PYTHON) python/tools/conversion_sweep.py --eir $(B)/eir \
	    --to-core-doc docs/TO-CORE.md --roundtrip-doc docs/ROUNDTRIP.md
.PHONY: to-core-doc

check-generated:
	$(PYTHON) scripts/gen_ops.py | diff -q src/ops/schemas.inc - >/dev/null || { echo "src/ops/schemas.inc is stale: run $(PYTHON) scripts/gen_ops.py > src/ops/schemas.inc"; exit 1; }
	$(PYTHON) scripts/gen_edge.py | diff -q src/ir/edge_ops.inc - >/dev/null || { echo "src/ir/edge_ops.inc is stale: run $(PYTHON) scripts/gen_edge.py > src/ir/edge_ops.inc"; exit 1; }

clean:
	rm -rf $(B)


.PHONY: test-clang
.PHONY: all test test-slow test-sweeps example clean check-generated ops-doc install uninstall
.SECONDARY:

$(B)/load_bench: tools/bench/load_bench.c $(B)/libeir.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(call warn,$(CC)) -std=c11 $< $(B)/libeir.a $(LDLIBS) -o $@

# Load time of every zoo program: eir vs torch.export.load, one run, medians.
bench-load: $(B)/load_bench
	$(PYTHON) python/bench/load_time.py --out docs/BENCHMARKS.md
.PHONY: bench-load

$(B)/run_bench: tools/bench/run_bench.c $(B)/libeir.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(call warn,$(CC)) -std=c11 $< $(B)/libeir.a $(LDLIBS) -o $@

# Inference latency, time to first result and peak RSS of the benchmark models
# (python/bench/models.py): eir against torch eager, ONNX Runtime and ExecuTorch
# (XNNPACK). Not part of `make test`. BENCH_ARGS=--quick for a smoke run.
bench: $(B)/run_bench
	$(PYTHON) python/bench/bench.py --out docs/BENCHMARKS.md $(BENCH_ARGS)
.PHONY: bench

# The float32 GEMM / convolution libraries compared on the models' shapes
# (docs/GEMM.md). Not part of `make` or `make test`: it links oneDNN and XNNPACK
# (libdnnl-dev, libxnnpack-dev) and loads OpenBLAS / BLIS variants with dlopen.
$(B)/gemm_bench: tools/bench/gemm_bench.c $(B)/libeir_internal.a
	@mkdir -p $(B)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(call warn,$(CC)) -std=c11 $< $(B)/libeir_internal.a -ldnnl -lXNNPACK -lpthreadpool -lminizip -lz -lopenblas -lpthread -ldl -lm -o $@
gemm-bench: $(B)/gemm_bench
.PHONY: gemm-bench

# libFuzzer targets (clang), one per parser plus the runtime (tests/fuzz/*.c). The
# library is built once into its own tree, instrumented for coverage
# (-fsanitize=fuzzer-no-link) under ASan+UBSan, and each target links against it.
# `make fuzz FUZZ_SECONDS=600` grows each target's corpus in build/fuzz/out/<target>
# from tests/fuzz/corpus/<target> and the seeds (docs/FUZZING.md: minimising back
# into the committed corpus). `make fuzz-smoke` (part of `make test`) runs each
# target for FUZZ_SMOKE_SECONDS on the committed corpus alone: a crash, leak or
# UB report fails it.
FUZZ_SECONDS ?= 30
FUZZ_SMOKE_SECONDS ?= 5
FUZZ_CC ?= $(CLANG)
FUZZ_SAN = address,undefined
# line tables only: the reports' stack frames keep their file and line, and the
# library, the largest build of `make test`, compiles in a seventh less time
FUZZLIBFLAGS = -gline-tables-only -O1 -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
$(eval $(call tree,$(BF),$(FUZZ_CC),$(FUZZLIBFLAGS)))
# inputs: archives and JSON up to 200 kB, schema and expression texts up to 4 kB
fuzz_maxlen = case $$t in fuzz_schema|fuzz_exprs) ml=4096;; *) ml=200000;; esac
FUZZ_OPTS = -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -close_fd_mask=1

$(BF)/bin/%: tests/fuzz/%.c $(BF)/libeir_internal.a $(HDR) examples/custom_ops.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) -g -O1 -fsanitize=fuzzer,$(FUZZ_SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all \
	    $(call warn,$(FUZZ_CC)) -std=c11 $< $(BF)/libeir_internal.a $(LDLIBS) -o $@

# Seeds besides the committed corpora: the bad-archive corpus and the fixtures for the
# archive targets, the fixtures' model.json records, the schema lines, and the srepr
# and guard texts of the fixtures.
fuzz-seeds:
	@rm -rf $(BF)/seeds && mkdir -p $(addprefix $(BF)/seeds/,$(FUZZ_TARGETS))
	cp tests/bad/corpus/*.pt2 tests/e2e/fixtures/*.pt2 $(BF)/seeds/fuzz_load/
	cp tests/bad/corpus/*.pt2 tests/e2e/fixtures/*.pt2 $(BF)/seeds/fuzz_run/
	cp tests/e2e/fixtures/*.program.txt $(BF)/seeds/fuzz_parse/
	$(PYTHON) -c 'import sys, os; [open(os.path.join(sys.argv[1], "s%d" % i), "w").write(l.rstrip("\n")) for i, l in enumerate(open("tests/fuzz/schemas.txt"))]' $(BF)/seeds/fuzz_schema
	$(PYTHON) -c 'import sys, zipfile, glob, os; [open(os.path.join(sys.argv[1], os.path.basename(f) + ".json"), "wb").write(zipfile.ZipFile(f).read(n)) for f in glob.glob("tests/e2e/fixtures/*.pt2") for n in zipfile.ZipFile(f).namelist() if n.endswith("models/model.json")]' $(BF)/seeds/fuzz_model_json
	$(PYTHON) -c 'import sys, zipfile, glob, os; [open(os.path.join(sys.argv[1], "p%d_%d" % (i, j)), "wb").write(d) for i, f in enumerate(["tests/bad/pickle_base.pt2"] + sorted(glob.glob("tests/legacy/*.pt2"))) for j, (n, d) in enumerate((n, zipfile.ZipFile(f).read(n)) for n in zipfile.ZipFile(f).namelist() if n.endswith(".pt") or "/weight_" in n or "/tensor_" in n)]' $(BF)/seeds/fuzz_pickle
	$(PYTHON) -c 'import sys, zipfile, glob, os, json, re; [open(os.path.join(sys.argv[1], "e%d" % i), "w").write(t) for i, t in enumerate(sorted({t for f in glob.glob("tests/e2e/fixtures/*.pt2") for m in zipfile.ZipFile(f).namelist() if m.endswith("models/model.json") for t in re.findall(r"\"expr_str\": \"((?:[^\"\\\\]|\\\\.)*)\"", zipfile.ZipFile(f).read(m).decode()) + json.loads(zipfile.ZipFile(f).read(m)).get("guards_code", [])}))]' $(BF)/seeds/fuzz_exprs

fuzz: $(FUZZ_BINS) fuzz-seeds
	@set -e; for t in $(FUZZ_TARGETS); do $(fuzz_maxlen); \
	    mkdir -p $(BF)/out/$$t $(BF)/artifacts/$$t tests/fuzz/corpus/$$t; \
	    echo "== $$t ($(FUZZ_SECONDS) s)"; \
	    nice -n 19 $(BF)/bin/$$t -max_total_time=$(FUZZ_SECONDS) -max_len=$$ml $(FUZZ_OPTS) \
	        -artifact_prefix=$(BF)/artifacts/$$t/ $(BF)/out/$$t tests/fuzz/corpus/$$t $(BF)/seeds/$$t; \
	done

# The committed corpora hold what adds coverage beyond the seeds, within a size budget:
# fuzz-merge runs each target over the seeds, the committed corpus and a campaign's finds
# (build/fuzz/out/<target>) with libFuzzer -merge=1 (edge coverage, -use_counters=0),
# and scripts/fuzz_select.py keeps the inputs that reach edges the seeds do not, most new
# edges per byte first, within the target's budget (the seeds themselves are rebuilt by
# fuzz-seeds, so they stay out).
fuzz_budget = case $$t in fuzz_run) b=1200000;; fuzz_load) b=800000;; fuzz_model_json) b=600000;; *) b=300000;; esac
fuzz-merge: $(FUZZ_BINS) fuzz-seeds
	@set -e; for t in $(FUZZ_TARGETS); do $(fuzz_maxlen); $(fuzz_budget); \
	    rm -rf $(BF)/min/$$t $(BF)/min/$$t.sel $(BF)/min/$$t.ctl && mkdir -p $(BF)/min/$$t $(BF)/out/$$t tests/fuzz/corpus/$$t; \
	    cp -r $(BF)/seeds/$$t/. $(BF)/min/$$t/; \
	    $(BF)/bin/$$t -merge=1 -use_counters=0 -merge_control_file=$(BF)/min/$$t.ctl -max_len=$$ml $(FUZZ_OPTS) \
	        $(BF)/min/$$t tests/fuzz/corpus/$$t $(BF)/out/$$t 2>$(BF)/min/$$t.log || { tail -n 30 $(BF)/min/$$t.log; exit 1; }; \
	    printf '%s: ' $$t; $(PYTHON) scripts/fuzz_select.py $(BF)/min/$$t.ctl $$b $(BF)/min/$$t.sel; \
	    rm -rf tests/fuzz/corpus/$$t && mv $(BF)/min/$$t.sel tests/fuzz/corpus/$$t; \
	done

# Every committed input (corpus and seeds) is replayed first, then the rest of the time mutates.
fuzz-smoke: $(FUZZ_BINS) fuzz-seeds
	@set -e; for t in $(FUZZ_TARGETS); do $(fuzz_maxlen); \
	    rm -rf $(BF)/smoke/$$t && mkdir -p $(BF)/smoke/$$t $(BF)/artifacts/$$t; \
	    echo "== $$t ($(FUZZ_SMOKE_SECONDS) s on tests/fuzz/corpus/$$t and the seeds)"; \
	    c=tests/fuzz/corpus/$$t; [ -d $$c ] || c=; \
	    $(BF)/bin/$$t -seed=1 -max_total_time=$(FUZZ_SMOKE_SECONDS) -max_len=$$ml $(FUZZ_OPTS) \
	        -artifact_prefix=$(BF)/artifacts/$$t/ $(BF)/smoke/$$t $$c $(BF)/seeds/$$t 2>$(BF)/smoke/$$t.log \
	        || { tail -n 60 $(BF)/smoke/$$t.log; exit 1; }; \
	    grep -E '^(stat::number_of_executed_units|#[0-9]+[[:space:]]+DONE)' $(BF)/smoke/$$t.log | tr '\n' ' '; echo; \
	done
.PHONY: fuzz fuzz-smoke fuzz-seeds fuzz-merge
