"""Live checks, against torch 2.13, of the float32 recurrent layers on sizes
that reach every part of eir's float32 time loop (src/kernels/recurrent.c):
hidden and input sizes that are not multiples of 8, batch 1 to 4 (its own
matrix-vector product) and above (one GEMM a step), several layers, both
directions, batch_first, no biases, LSTM projections, the benchmark's LSTM
(128 -> 256, 2 layers, batch 1), and a cell unrolled over steps.

Each module is exported with torch.export.export (strict=False; three of
them with strict=True too), saved, run with `eir run --threads 1` and `--threads 2`, and
compared with the module's own outputs (python/tests/tolerances.py); the two
thread counts must agree bit for bit. The decomposed forms are left to
test_exported_rnn_where.py: run_decompositions() rewrites these layers into
other ops.
"""
from __future__ import annotations

import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
nn = torch.nn

from conftest import to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402


class WithState(nn.Module):
    """m(x, state): h0 (and c0) given as inputs"""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x, *h):
        return self.m(x, (h[0], h[1]) if len(h) == 2 else h[0])


class CellSteps(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, x, h, c):
        outs = []
        for t in range(x.shape[0]):
            h, c = self.cell(x[t], (h, c))
            outs.append(h)
        return torch.stack(outs), c


def _r(*shape, seed):
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed))


def _state(m, B, seed):
    L = m.num_layers * (2 if m.bidirectional else 1)
    hout = getattr(m, "proj_size", 0) or m.hidden_size
    h = [_r(L, B, hout, seed=seed)]
    if isinstance(m, nn.LSTM):
        h.append(_r(L, B, m.hidden_size, seed=seed + 1))
    return h


# name -> (module, batch, steps)
CASES = {
    "lstm_h37_2l_bidir_bf_b3": (lambda: nn.LSTM(19, 37, num_layers=2, bidirectional=True, batch_first=True), 3, 7),
    "lstm_h45_proj11_b6": (lambda: nn.LSTM(13, 45, proj_size=11), 6, 5),
    "lstm_h30_proj7_nobias_2l_b1": (lambda: nn.LSTM(9, 30, num_layers=2, proj_size=7, bias=False), 1, 6),
    "lstm_bench_shape": (lambda: nn.LSTM(128, 256, num_layers=2, batch_first=True), 1, 12),
    "gru_h37_2l_bidir_b1": (lambda: nn.GRU(19, 37, num_layers=2, bidirectional=True), 1, 7),
    "gru_h26_nobias_bf_b5": (lambda: nn.GRU(7, 26, bias=False, batch_first=True), 5, 6),
    "rnn_relu_h45_b2": (lambda: nn.RNN(11, 45, nonlinearity="relu"), 2, 6),
    "rnn_tanh_h19_2l_bidir_b9": (lambda: nn.RNN(11, 19, num_layers=2, bidirectional=True), 9, 4),
}


def _run(eir, path, files, out, threads):
    r = subprocess.run([eir, "run", path, *files, "--out", str(out), "--threads", str(threads)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return [np.load(out / f"output_{i}.npy") for i in range(len(list(out.glob("output_*.npy"))))]


def _check(eir, tmp_path, m, args, what, strict, op):
    ep = torch.export.export(m, tuple(args), strict=strict)
    targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
    assert op in targets, f"{what}: the exported program has no {op} (it has {sorted(targets)})"
    path = str(tmp_path / "p.pt2")
    torch.export.save(ep, path)
    files = []
    for i, a in enumerate(args):
        f = tmp_path / f"in_{i}.npy"
        np.save(f, to_npy(a))
        files.append(str(f))
    with torch.no_grad():
        want = [to_npy(w) for w in torch.utils._pytree.tree_leaves(m(*args))]
    got = {t: _run(eir, path, files, tmp_path / f"out{t}", t) for t in (1, 2)}
    rtol, atol = tolerance(torch.float32)
    for t, outs in got.items():
        assert len(outs) == len(want), f"{what}: {len(outs)} outputs, torch has {len(want)}"
        for i, (g, w) in enumerate(zip(outs, want)):
            assert g.shape == w.shape, f"{what}: output {i} shape {g.shape}, torch {w.shape}"
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{what}, {t} thread(s): output {i}")
    for i, (a, b) in enumerate(zip(got[1], got[2])):
        assert a.tobytes() == b.tobytes(), f"{what}: output {i} differs between 1 and 2 threads"


# strict=True exports the same aten.*.input node; three cases keep the suite short
STRICT_CASES = ("lstm_h37_2l_bidir_bf_b3", "lstm_h45_proj11_b6", "gru_h26_nobias_bf_b5")


@pytest.mark.parametrize("case,strict", [(c, False) for c in CASES] + [(c, True) for c in STRICT_CASES])
def test_rnn_layer(eir, tmp_path, case, strict):
    make, B, T = CASES[case]
    torch.manual_seed(0)
    m = make().eval()
    x = _r(B, T, m.input_size, seed=1) if m.batch_first else _r(T, B, m.input_size, seed=1)
    op = {nn.LSTM: "aten.lstm.input", nn.GRU: "aten.gru.input"}.get(type(m)) or f"aten.rnn_{m.nonlinearity}.input"
    _check(eir, tmp_path, WithState(m), (x, *_state(m, B, 2)), f"{case} strict={strict}", strict, op)


@pytest.mark.parametrize("B", [1, 6])
def test_lstm_cell_steps(eir, tmp_path, B):
    torch.manual_seed(3)
    cell = nn.LSTMCell(15, 29).eval()
    args = (_r(4, B, 15, seed=4), _r(B, 29, seed=5), _r(B, 29, seed=6))
    _check(eir, tmp_path, CellSteps(cell), args, f"lstm_cell B={B}", False, "aten.lstm_cell.default")
