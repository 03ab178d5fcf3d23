"""Linear layers from the weight as stored (src/kernels/wgemm.c), forced on with EIR_WGEMM=1 so
that it runs on any CPU with AVX-512F (by default only Intel CPUs take it; EIR_NNGEMM=0 keeps
nngemm.c's linear path out of these runs), against torch.

A GPT-2-like stack (biased and unbiased nn.Linear, an LM head tied to the embedding, widths that
are not multiples of the kernel's six-row tiles) on 48 and 64 rows (the kernel's) and 5 (oneDNN's,
whatever EIR_WGEMM says), and a 2-d product with a transposed parameter on 53 rows (mm after
run_decompositions(); K = 2100, in k-blocks): exported strict=False and strict=True, as
exported and after run_decompositions(), saved and saved again after torch.export.load. eir's
outputs are within tolerance of the module's, the same bytes over three runs (state: the first run
reads the weights where the archive maps them, later runs too) and on 1 and 2 threads; the program
converted to a Backend program (weights packed in panels, eir_cpu::linear_packed, which stays with
oneDNN) is within tolerance too; with EIR_WGEMM=0 the oneDNN path gives the module's outputs too, in other bits where the
kernel ran (so the test knows it did) and the same bits on 5 rows (which it never takes). With
EIR_NNGEMM=1 as well, a linear layer of 16 to 256 rows on a constant weight runs on nngemm.c from
a packed copy of the weight from its second use on, and on wgemm from the weight as stored at its
first: three runs, on one thread and on two, give wgemm's bytes (both sum each element as one
chain of FMAs over k in order, then add the bias).
"""
from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from conftest import to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402


def _avx512f():
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and " avx512f" in line for line in f)
    except OSError:
        return False


pytestmark = pytest.mark.skipif(not _avx512f(), reason="wgemm needs AVX-512F")

VOCAB, DIM = 1003, 256


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.ln = nn.LayerNorm(DIM)
        self.fc1 = nn.Linear(DIM, 4 * DIM + 7)
        self.fc2 = nn.Linear(4 * DIM + 7, DIM, bias=False)
        self.head = nn.Linear(DIM, VOCAB, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx):
        h = self.emb(idx)
        h = h + self.fc2(torch.nn.functional.gelu(self.fc1(self.ln(h))))
        return self.head(h)


class Transposed(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(300, 2100) * 0.02)   # K = 2100: k-blocks of the kernel

    def forward(self, x):
        return x @ self.w.t()


def _run(eir, pt2, inp, out, threads, runs, wgemm, nngemm="0"):
    env = dict(os.environ, EIR_WGEMM=wgemm, EIR_NNGEMM=nngemm)
    r = subprocess.run([eir, "run", pt2, inp, "--out", out, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return [np.load(os.path.join(out, f"run_{k}", "output_0.npy") if runs > 1 else os.path.join(out, "output_0.npy"))
            for k in range(1, runs + 1)]


@pytest.mark.parametrize("saved", ["saved", "resaved"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("model,rows", [("decoder", 5), ("decoder", 48), ("decoder", 64), ("transposed", 53)])
def test_wgemm_linear(eir, model, rows, strict, decomp, saved, tmp_path):
    torch.manual_seed(rows)
    if model == "decoder":
        m, x = Decoder().eval(), torch.randint(0, VOCAB, (1, rows))
    else:
        m, x = Transposed().eval(), torch.randn(rows, 2100)
    ep = torch.export.export(m, (x,), strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    pt2 = str(tmp_path / "m.pt2")
    torch.export.save(ep, pt2)
    if saved == "resaved":
        ep = torch.export.load(pt2)
        torch.export.save(ep, pt2)
    inp = str(tmp_path / "x.npy")
    np.save(inp, to_npy(x))
    with torch.no_grad():
        want = to_npy(ep.module()(x))
    rtol, atol = tolerance(torch.float32)
    runs = _run(eir, pt2, inp, str(tmp_path / "w1"), 1, 3, "1")
    np.testing.assert_allclose(runs[0], want, rtol=rtol, atol=atol)
    for k, y in enumerate(runs[1:], 2):
        assert y.tobytes() == runs[0].tobytes(), f"run {k} differs from the first"
    two = _run(eir, pt2, inp, str(tmp_path / "w2"), 2, 1, "1")[0]
    assert two.tobytes() == runs[0].tobytes(), "1 and 2 threads differ"
    for threads in (1, 2):
        nn_runs = _run(eir, pt2, inp, str(tmp_path / f"n{threads}"), threads, 3, "1", "1")
        for k, y in enumerate(nn_runs, 1):
            assert y.tobytes() == runs[0].tobytes(), f"nngemm's path, run {k} on {threads} thread(s): not wgemm's bytes"
    backend = str(tmp_path / "m.backend.pt2")
    r = subprocess.run([eir, "convert", "--to", "backend", pt2, backend], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    packed = _run(eir, backend, inp, str(tmp_path / "wb"), 2, 1, "1")[0]   # panels: oneDNN's products
    np.testing.assert_allclose(packed, want, rtol=rtol, atol=atol)
    off = _run(eir, pt2, inp, str(tmp_path / "w0"), 1, 1, "0")[0]
    np.testing.assert_allclose(off, want, rtol=rtol, atol=atol)
    # the kernel sums in another order than oneDNN: its rows give other bits; 5 rows never take it
    if rows >= 48:
        assert off.tobytes() != runs[0].tobytes(), "EIR_WGEMM=1 gave oneDNN's bits: the kernel did not run"
    else:
        assert off.tobytes() == runs[0].tobytes(), "5 rows took the kernel"
