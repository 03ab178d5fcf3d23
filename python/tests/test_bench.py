"""The benchmark harness (python/bench/bench.py, `make bench`) in its quick
mode: the MLP with eir and torch eager only, and the check that fails a run
whose eir outputs differ from torch's. Needs build/run_bench (next to EIR_BIN)."""
import os
import sys

import numpy as np
import pytest

from conftest import REPO, eir_bin

sys.path.insert(0, os.path.join(REPO, "python", "bench"))
import bench  # noqa: E402


@pytest.fixture(scope="module")
def run_bench():
    exe = os.path.join(os.path.dirname(eir_bin()), "run_bench")
    if not os.path.exists(exe):
        pytest.skip(f"{exe} not found (make build/run_bench)")
    return exe


def test_check_outputs_accepts_noise_and_rejects_wrong_values():
    w = np.linspace(-3, 3, 100, dtype=np.float32).reshape(10, 10)
    assert bench.check_outputs([w + 1e-6], [w])[0]
    ok, msg = bench.check_outputs([w + 1e-2], [w])
    assert not ok and "output 0" in msg and "100 of 100" in msg
    # one element off is enough
    bad = w.copy()
    bad[3, 4] += 0.5
    ok, msg = bench.check_outputs([bad], [w])
    assert not ok and "1 of 100" in msg
    assert not bench.check_outputs([w.reshape(100)], [w])[0]            # shape
    assert not bench.check_outputs([w, w], [w])[0]                      # count
    assert not bench.check_outputs([np.array([1, 2])], [np.array([1, 3])])[0]   # integers exact
    # deep: atol scales with the output's magnitude (1e-4 of max |torch|)
    big = w * 1000
    assert not bench.check_outputs([big + 0.2], [big])[0]
    assert bench.check_outputs([big + 0.2], [big], deep=True)[0]
    assert not bench.check_outputs([big + 1.0], [big], deep=True)[0]


def test_rounds_shuffle_the_contenders():
    order = ["base", "new", "torch"]
    rounds = [bench.rotated(order, r) for r in range(60)]
    assert all(sorted(r) == sorted(order) for r in rounds)
    assert rounds == [bench.rotated(order, r) for r in range(60)]  # seeded: the same every time
    # in the stream of runs, each build follows torch in some rounds and not in others
    stream = [c for r in rounds for c in r]
    after_torch = [b for a, b in zip(stream, stream[1:]) if a == "torch"]
    assert 10 < after_torch.count("base") < 30 and 10 < after_torch.count("new") < 30, after_torch
    assert bench.rotated([], 3) == []


def test_quick_mlp_table(run_bench, tmp_path, capsys):
    doc = tmp_path / "BENCH.md"
    doc.write_text("# Benchmarks\n\n## Load time\n\nkept\n")
    before = os.sched_getaffinity(0)
    rc = bench.main(["--quick", "--models", "mlp", "--contenders", "eir,torch", "--no-fresh",
                     "--exe", run_bench, "--out", str(doc)])
    out = capsys.readouterr().out
    assert rc == 0
    # one thread: pinned to one CPU while it ran (the report says so), the caller's CPUs given back
    assert os.sched_getaffinity(0) == before
    if len(before) > 1:
        assert "pinned to one CPU" in doc.read_text()
    row = [ln for ln in out.splitlines() if ln.startswith("| mlp |")][0]
    cells = [c.strip() for c in row.strip("|").split("|")]
    # eir, torch eager medians in ms, then the ratio
    assert cells[1].endswith(" ms") and float(cells[1].split()[0]) > 0
    assert cells[2].endswith(" ms") and float(cells[2].split()[0]) > 0
    assert cells[3].endswith("x")
    text = doc.read_text()
    assert "## Load time\n\nkept" in text and bench.SECTION in text and "| mlp |" in text
    # rewriting replaces the section rather than appending a second one
    bench.main(["--quick", "--models", "mlp", "--contenders", "eir,torch", "--no-fresh", "--runs", "1",
                "--exe", run_bench, "--out", str(doc)])
    assert doc.read_text().count(bench.SECTION) == 1


def test_wrong_eir_output_fails_the_run(run_bench, capsys):
    rc = bench.main(["--quick", "--models", "mlp", "--contenders", "eir,torch", "--no-fresh", "--runs", "1",
                     "--exe", run_bench, "--corrupt-eir"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "WRONG OUTPUT" in out
    row = [ln for ln in out.splitlines() if ln.startswith("| mlp |")][0]
    assert "failed" in row.split("|")[2]


def test_failing_contender_is_reported_not_fatal(tmp_path, capsys):
    # a driver that cannot run the program: eir is reported failed with its
    # message, torch eager is still timed, and the run succeeds
    exe = tmp_path / "run_bench"
    exe.write_text("#!/bin/sh\necho 'run_bench: runtime: missing operator aten.foo.default' >&2\nexit 1\n")
    exe.chmod(0o755)
    rc = bench.main(["--quick", "--models", "mlp", "--contenders", "eir,torch", "--no-fresh", "--runs", "1",
                     "--exe", str(exe)])
    out = capsys.readouterr().out
    assert rc == 0
    row = [ln for ln in out.splitlines() if ln.startswith("| mlp |")][0].split("|")
    assert row[2].strip() == "failed" and row[3].strip().endswith(" ms")
    assert "missing operator aten.foo.default" in out
    assert "first result" not in out  # --no-fresh: no fresh-process table


def test_torch_thread_count_restored(run_bench, capsys):
    import torch

    before = torch.get_num_threads()
    bench.main(["--quick", "--models", "mlp", "--contenders", "torch", "--no-fresh", "--runs", "1",
                "--threads", "1" if before != 1 else "2"])
    capsys.readouterr()
    assert torch.get_num_threads() == before


def test_fresh_backend_program(run_bench, capsys):
    # the first-result table: eir on the exported program and on the Backend program written
    # ahead (eir convert --to backend), both timed, their outputs checked
    rc = bench.main(["--quick", "--models", "mlp", "--contenders", "eir", "--runs", "1", "--exe", run_bench])
    out = capsys.readouterr().out
    assert rc == 0, out
    head = [ln for ln in out.splitlines() if ln.startswith("| model | eir first result")][0]
    assert "| eir, Backend program first result |" in head and "| eir, Backend program peak RSS |" in head
    row = [c.strip() for c in [ln for ln in out.splitlines() if ln.startswith("| mlp |")][-1].strip("|").split("|")]
    assert row[1].endswith(" ms") and row[2].endswith(" ms") and row[3].endswith(" MiB") and row[4].endswith(" MiB")
    assert "Failures" not in out
