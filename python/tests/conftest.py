"""Fixtures for the eir conformance tests.

Environment:
  EIR_BIN        the eir binary (default: <repo>/build/eir)
  EIR_OPS        the library of custom-operator kernels for `eir run --ops`
                 (default: <repo>/build/libeir_example_ops.so, from examples/custom_ops.c)
  EIR_ZOO_DIR    reuse this generated zoo directory if it holds .pt2 files
                 (otherwise python/zoo/gen.py runs into a temp dir, once per session)
  EIR_ZOO_ONLY   space/comma separated program names to restrict to
  EIR_TEST_DTYPES  "all" runs every dtype of the modules in DTYPE_SAMPLED; by default
                 each of their dtype-parametrized tests runs float32 and one more of
                 its dtypes, chosen by the test's name (`make test-all-dtypes`)
"""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys
import zlib

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZOO_SRC = os.path.join(REPO, "python", "zoo")
EXPECTED_SUFFIXES = (".graph.txt", ".code.txt", ".program.txt", ".io.json")


def eir_bin() -> str:
    return os.environ.get("EIR_BIN") or os.path.join(REPO, "build", "eir")


def _only():
    s = os.environ.get("EIR_ZOO_ONLY", "").replace(",", " ").split()
    return s or None


def _reuse_dir():
    d = os.environ.get("EIR_ZOO_DIR")
    if d and os.path.isdir(d) and glob.glob(os.path.join(d, "*.pt2")):
        return d
    return None


def variant_names():
    """Variant names known at collection time (no export needed)."""
    d = _reuse_dir()
    only = _only()
    if d:
        names = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(d, "*.pt2")))
        if only:
            names = [n for n in names if n.split(".")[0] in only]
        return names
    try:
        if ZOO_SRC not in sys.path:
            sys.path.insert(0, ZOO_SRC)
        import zoo  # noqa: F401  (needs torch)
    except ImportError:
        return []
    progs = only or list(zoo.PROGRAMS)
    return [v for p in progs for v in (p, p + ".decomp")]


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: a long test (real models too big for `make test`); run by `make test-slow` (pytest -m slow)")


def pytest_generate_tests(metafunc):
    if "variant" in metafunc.fixturenames:
        metafunc.parametrize("variant", variant_names())


# Modules whose tests repeat one program over several dtypes (each case two exports and
# two eir runs): `make test` runs float32 and one other dtype per test, and across the
# tests of a module every dtype still comes up. EIR_TEST_DTYPES=all runs them all.
DTYPE_SAMPLED = ("test_exported_stats_loss", "test_exported_rnn_where", "test_exported_linalg",
                 "test_exported_special_random")


def _kept_dtypes(key, dtypes):
    """float32 (when the test has it) and one more of `dtypes`, fixed by a hash of `key`."""
    names = [str(d) for d in dtypes]
    keep = {n for n in names if n == "torch.float32"}
    rest = [n for n in names if n not in keep]
    if rest:
        keep.add(rest[zlib.crc32(key.encode()) % len(rest)])
    if len(keep) < 2 and len(rest) > 1:  # no float32 among them: two of the others
        rest.remove(next(iter(keep - {"torch.float32"})))
        keep.add(rest[(zlib.crc32(key.encode()) // 7) % len(rest)])
    return keep


def pytest_collection_modifyitems(config, items):
    _sample_dtypes(config, items)
    _order_files(items)


def _sample_dtypes(config, items):
    if os.environ.get("EIR_TEST_DTYPES", "") == "all":
        return
    groups = {}
    for it in items:
        cs = getattr(it, "callspec", None)
        if cs is None or "dtype" not in cs.params or it.module.__name__ not in DTYPE_SAMPLED:
            continue
        # the test's id without its dtype part (ids, not values: a lambda's repr differs
        # between xdist workers, and every worker must collect the same tests)
        others = re.sub(r"(^|-)(torch\.\w+|dtype\d+)(?=-|$)", r"\1", cs.id)
        groups.setdefault((it.module.__name__, it.originalname, others), []).append(it)
    dropped = []
    for (mod, fn, others), its in groups.items():
        if len(its) < 3:
            continue
        keep = _kept_dtypes(f"{mod}::{fn}::{others}", [it.callspec.params["dtype"] for it in its])
        dropped += [it for it in its if str(it.callspec.params["dtype"]) not in keep]
    if dropped:
        gone = set(map(id, dropped))
        config.hook.pytest_deselected(items=dropped)
        items[:] = [it for it in items if id(it) not in gone]


# The files that keep one worker longest (a sweep exported in its session fixture, real
# models, many exports per test), longest first. `make test` runs pytest-xdist with
# --dist loadfile --no-loadscope-reorder: the files go to the workers in the order of
# the collection, these first and the rest by their number of tests, so that the short
# files fill in at the end instead of a long one running alone.
LONG_FILES = ("test_opinfo", "test_ops", "test_real_models", "test_alias", "test_exported_rnn_where",
              "test_exported_compose")


def _file_of(item):
    return os.path.splitext(os.path.basename(item.nodeid.split("::")[0]))[0]


def _order_files(items):
    counts, first = {}, {}
    for i, it in enumerate(items):
        f = _file_of(it)
        counts[f] = counts.get(f, 0) + 1
        first.setdefault(f, i)

    def rank(f):
        return (LONG_FILES.index(f), 0) if f in LONG_FILES else (len(LONG_FILES), -counts[f])
    items.sort(key=lambda it: (rank(_file_of(it)), first[_file_of(it)]))


@pytest.fixture(scope="session")
def zoo_dir(tmp_path_factory):
    """(directory, failures) — the generated zoo."""
    d = _reuse_dir()
    if d:
        return d, {}
    if ZOO_SRC not in sys.path:
        sys.path.insert(0, ZOO_SRC)
    import gen
    out = str(tmp_path_factory.mktemp("zoo"))
    summary = gen.generate(out, _only())
    print(f"\n[eir zoo] generated {len(summary['ok'])} variants in {summary['seconds']:.1f}s into {out}")
    for k, v in summary["failed"].items():
        print(f"[eir zoo] FAILED {k}: {v.splitlines()[0] if v else ''}")
    return out, summary["failed"]


@pytest.fixture(scope="session")
def eir():
    b = eir_bin()
    if not (os.path.isfile(b) and os.access(b, os.X_OK)):
        pytest.skip(f"eir binary not found at {b} (build it, or set EIR_BIN)")
    return b


def to_npy(t):
    """A torch tensor as eir reads and writes it in .npy files: bfloat16 as
    float32 and complex32 as complex64 (both exact), lazy conj/neg bits resolved."""
    import torch
    t = t.detach().resolve_conj().resolve_neg()
    if t.dtype == torch.bfloat16:
        t = t.float()
    elif t.dtype == torch.complex32:
        t = t.to(torch.complex64)
    return t.contiguous().numpy()


def exported_and_eir(eir, module, args, strict, decomp, tmp_path, threads=(1, 2)):
    """module exported (strict or not, decomposed or not), torch's outputs of the program and
    eir's at each thread count: (want, {threads: [outputs as numpy]})."""
    import torch
    ep = torch.export.export(module, args, strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    with torch.no_grad():
        want = [w.numpy() for w in ep.module()(*args)]
    return want, eir_outputs_by_threads(eir, ep, args, tmp_path, threads)


def eir_outputs_by_threads(eir, ep, args, tmp_path, threads=(1, 2)):
    """Save ep, run it with eir on args at each thread count: {threads: [outputs as numpy]}."""
    import numpy as np
    import torch
    pt2 = str(tmp_path / "program.pt2")
    torch.export.save(ep, pt2)
    ins = []
    for i, a in enumerate(args):
        ins.append(str(tmp_path / f"in{i}.npy"))
        np.save(ins[-1], to_npy(a))
    got = {}
    for t in threads:
        out = tmp_path / f"out{t}"
        r = subprocess.run([eir, "run", pt2, *ins, "--out", str(out), "--threads", str(t)], capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        got[t] = [np.load(p) for p in sorted(out.glob("output_*.npy"), key=lambda q: int(q.stem.split("_")[1]))]
    return got


def load_backend_ops():
    """bindings/python/eir/backend_ops.py, loaded once per process: it registers the Backend
    dialect's operators (torch.ops.eir_cpu.*) so that torch loads and runs Backend programs."""
    import importlib.util
    import sys

    mod = sys.modules.get("eir_backend_ops")
    if mod is None:
        spec = importlib.util.spec_from_file_location(
            "eir_backend_ops", os.path.join(REPO, "bindings", "python", "eir", "backend_ops.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules["eir_backend_ops"] = mod
    return mod


def dnnl_here():
    """whether eir runs oneDNN's convolution primitive here (libdnnl.so.2 loads, not turned off)"""
    try:
        import ctypes

        ctypes.CDLL("libdnnl.so.2")
        return os.environ.get("EIR_GEMM", "dnnl") == "dnnl" and os.environ.get("EIR_DNNL_CONV") != "0"
    except OSError:
        return False


def ops_lib():
    """The example library of custom-operator kernels, or None if it is not built."""
    p = os.environ.get("EIR_OPS") or os.path.join(REPO, "build", "libeir_example_ops.so")
    return os.path.abspath(p) if os.path.isfile(p) else None


@pytest.fixture(scope="session")
def example_ops():
    p = ops_lib()
    if not p:
        pytest.skip("build/libeir_example_ops.so not built (make), or set EIR_OPS")
    return p


@pytest.fixture
def pt2(zoo_dir, variant):
    """Path prefix of one variant's files (DIR/V); skips if its generation failed."""
    d, failed = zoo_dir
    base = os.path.join(d, variant)
    if not os.path.exists(base + ".pt2"):
        why = failed.get(variant) or failed.get(variant.split(".")[0]) or "no .pt2 generated"
        pytest.skip(f"{variant}: generation failed: {why.splitlines()[0] if why else ''}")
    return base
