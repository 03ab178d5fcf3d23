"""Live checks, against torch 2.13, of operators exported programs contain that
eir added late: torch.where(condition) (aten.where.default, nonzero as a tuple,
sized from the data), nn.utils.rnn.pad_sequence (aten.pad_sequence),
F.affine_grid (aten.affine_grid_generator), the recurrent layers nn.RNN (tanh and
relu), nn.LSTM and nn.GRU (aten.rnn_tanh.input, aten.rnn_relu.input,
aten.lstm.input, aten.gru.input: several layers, bidirectional, batch_first,
without bias, without h0, LSTM projections, unbatched input) and their cells
(aten.rnn_tanh_cell, rnn_relu_cell, lstm_cell, gru_cell), the symbolic
torch._sym_sqrt and its company, and programs that use torch.vmap.

Each program is exported with torch.export.export(strict=False), saved, run
with `eir run`, and compared with the module's own outputs, as exported and after
run_decompositions() (where torch can decompose it), in float32, float64 and
bfloat16 where torch runs the op in it.
"""
from __future__ import annotations

import copy
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
nn = torch.nn
F = torch.nn.functional

from conftest import to_npy as _npy  # noqa: E402
from test_exported_compose import Fn, eir_run  # noqa: E402  (one copy of the helpers)
from tolerances import tolerance  # noqa: E402


class Fn1(torch.nn.Module):
    """one named input, for dynamic_shapes"""
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, x):
        return self.f(x)


def export(tmp_path, m, args, decompose, dynamic_shapes=None, name="p"):
    ep = torch.export.export(m, tuple(args), dynamic_shapes=dynamic_shapes, strict=False)
    if decompose:
        ep = ep.run_decompositions()
    path = str(tmp_path / f"{name}.pt2")
    torch.export.save(ep, path)
    return ep, path


def export_forms(tmp_path, m, args, decompose, dynamic_shapes=None):
    """m exported once; for each flag of decompose, that program (False) or its
    run_decompositions() (True, made before anything runs it), saved: [(ep, path)]"""
    ep = torch.export.export(m, tuple(args), dynamic_shapes=dynamic_shapes, strict=False)
    forms = {False: ep, True: ep.run_decompositions() if True in decompose else None}
    out = []
    for dec in decompose:
        path = str(tmp_path / ("dec.pt2" if dec else "p.pt2"))
        torch.export.save(forms[dec], path)
        out.append((forms[dec], path))
    return out




def compare(got_dir, want, what, scale=1.0):
    want = torch.utils._pytree.tree_leaves(want)
    for i, w in enumerate(want):
        g = np.load(got_dir / f"output_{i}.npy")
        wn = _npy(w)
        assert g.shape == wn.shape, f"{what}: output {i} shape {g.shape}, torch {wn.shape}"
        assert g.dtype == wn.dtype, f"{what}: output {i} dtype {g.dtype}, torch {wn.dtype}"
        if w.dtype.is_floating_point or w.dtype.is_complex:
            rtol, atol = tolerance(w.dtype)
            np.testing.assert_allclose(g, wn, rtol=rtol * scale, atol=atol * scale, err_msg=f"{what}: output {i}")
        else:
            np.testing.assert_array_equal(g, wn, err_msg=f"{what}: output {i}")


def check(eir, tmp_path, m, args, what, decompose=(False, True), ops=(), dynamic_shapes=None, reruns=(), scale=1.0):
    """Export m(*args) (as exported, then decomposed), run it in eir on args and on
    each of reruns, compare with m; ops: targets the exported program must contain."""
    for dec, (ep, path) in zip(decompose, export_forms(tmp_path, m, args, decompose, dynamic_shapes)):
        if not dec:
            targets = {str(n.target) for n in ep.graph.nodes if n.op == "call_function"}
            for op in ops:
                assert op in targets, f"{what}: the exported program has no {op} (it has {sorted(targets)})"
        form = "decomposed" if dec else "as exported"
        for k, xs in enumerate([args, *reruns]):
            r, out = eir_run(eir, tmp_path, path, xs, tag=f"run{k}")
            assert r.returncode == 0, f"{what} ({form}): {r.stderr}"
            compare(out, ep.module()(*[copy.deepcopy(a) for a in xs]), f"{what} ({form}, inputs {k})", scale)


def _r(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype.is_floating_point:
        return torch.randn(shape, generator=g, dtype=torch.float32).to(dtype)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    return torch.randint(-3, 4, shape, generator=g).to(dtype)


# ---------------------------------------------------------------- where(condition)

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.bool])
def test_where_one_argument(eir, tmp_path, dtype):
    def f(x, v, s):
        return torch.where(x) + torch.where(v > 0) + torch.where(s)
    x, v, s = _r(3, 4, 2, dtype=dtype), _r(6), _r(dtype=dtype, seed=3)
    # other data, the same shapes: the counts (unbacked sizes) change
    rer = [(_r(3, 4, 2, dtype=dtype, seed=5), _r(6, seed=6), torch.zeros((), dtype=dtype)),
           (torch.zeros(3, 4, 2, dtype=dtype), -torch.ones(6), torch.ones((), dtype=dtype))]
    check(eir, tmp_path, Fn(f), (x, v, s), f"where {dtype}", ops=["aten.where.default"], reruns=rer)


def test_where_one_argument_dynamic(eir, tmp_path):
    def f(x):
        i, j = torch.where(x > 0.5)
        return i, j, x[i, j] * 2
    x = _r(5, 3)
    ds = ({0: torch.export.Dim("n", min=2, max=64)},)
    check(eir, tmp_path, Fn1(f), (x,), "where dynamic", ops=["aten.where.default"], dynamic_shapes=ds,
          reruns=[(_r(9, 3, seed=1),), (_r(2, 3, seed=2),)])


# ---------------------------------------------------------------- pad_sequence

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64])
def test_pad_sequence(eir, tmp_path, dtype):
    def f(a, b, c):
        ps = nn.utils.rnn.pad_sequence
        return (ps([a, b, c]), ps([a, b, c], batch_first=True, padding_value=-2.5),
                ps([b, a], padding_value=7, padding_side="left"), ps([b[::2], a[1:]], batch_first=True, padding_side="left"))
    a, b, c = _r(3, 2, dtype=dtype), _r(5, 2, dtype=dtype, seed=1), _r(1, 2, dtype=dtype, seed=2)
    check(eir, tmp_path, Fn(f), (a, b, c), f"pad_sequence {dtype}", ops=["aten.pad_sequence.default"])


# ---------------------------------------------------------------- affine_grid

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_affine_grid(eir, tmp_path, dtype):
    def f(t2, t3):
        return (F.affine_grid(t2, [2, 3, 4, 5], align_corners=False), F.affine_grid(t2, [2, 1, 6, 3], align_corners=True),
                F.affine_grid(t3, [2, 3, 4, 5, 3], align_corners=False), F.affine_grid(t3, [2, 3, 2, 3, 4], align_corners=True),
                F.affine_grid(t2.transpose(1, 2).transpose(1, 2).contiguous()[:, :, :], [2, 3, 7, 7], align_corners=False))
    t2, t3 = _r(2, 2, 3, dtype=dtype), _r(2, 3, 4, dtype=dtype, seed=1)
    check(eir, tmp_path, Fn(f), (t2, t3), f"affine_grid {dtype}", ops=["aten.affine_grid_generator.default"])


def test_affine_grid_one_step(eir, tmp_path):
    # a spatial size of 1 (torch's at::tensor(0) range): torch cannot decompose this one
    def f(t2):
        return F.affine_grid(t2, [2, 3, 1, 5], align_corners=False), F.affine_grid(t2, [2, 3, 4, 1], align_corners=True)
    check(eir, tmp_path, Fn(f), (_r(2, 2, 3),), "affine_grid one step", decompose=(False,),
          ops=["aten.affine_grid_generator.default"])


# ---------------------------------------------------------------- recurrent layers

RNN_CASES = [
    ("rnn_tanh", lambda: nn.RNN(4, 3), "aten.rnn_tanh.input"),
    ("rnn_relu_2l_bidir_bf", lambda: nn.RNN(4, 3, num_layers=2, nonlinearity="relu", bidirectional=True, batch_first=True),
     "aten.rnn_relu.input"),
    ("rnn_tanh_nobias_3l", lambda: nn.RNN(4, 5, num_layers=3, bias=False), "aten.rnn_tanh.input"),
    ("lstm_2l_bidir_bf", lambda: nn.LSTM(4, 3, num_layers=2, bidirectional=True, batch_first=True), "aten.lstm.input"),
    ("lstm_nobias_proj", lambda: nn.LSTM(4, 5, proj_size=2, bias=False), "aten.lstm.input"),
    ("gru_2l_bidir", lambda: nn.GRU(4, 3, num_layers=2, bidirectional=True), "aten.gru.input"),
    ("gru_nobias_bf", lambda: nn.GRU(4, 6, bias=False, batch_first=True), "aten.gru.input"),
]


class WithH0(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x, *h):
        if len(h) == 2:
            return self.m(x, (h[0], h[1]))
        return self.m(x, *h)


def _h0(m, x, seed):
    batched = x.dim() == 3
    B = x.shape[0 if m.batch_first else 1] if batched else None
    L = m.num_layers * (2 if m.bidirectional else 1)
    hout = m.proj_size if getattr(m, "proj_size", 0) else m.hidden_size
    shp = (L, B, hout) if batched else (L, hout)
    h = [_r(*shp, dtype=x.dtype, seed=seed)]
    if isinstance(m, nn.LSTM):
        h.append(_r(*(shp[:-1] + (m.hidden_size,)), dtype=x.dtype, seed=seed + 1))
    return h


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("case", [c[0] for c in RNN_CASES])
def test_rnn(eir, tmp_path, case, dtype):
    _, make, op = next(c for c in RNN_CASES if c[0] == case)
    torch.manual_seed(0)
    m = make().eval().to(dtype)
    x = _r(2, 5, 4, dtype=dtype) if m.batch_first else _r(5, 2, 4, dtype=dtype)
    scale = 1.0  # bfloat16 too: within tolerances.py's bounds, though eir keeps float between steps
    check(eir, tmp_path, m, (x,), f"{case} {dtype} without h0", ops=[op], scale=scale)
    check(eir, tmp_path, WithH0(m), (x, *_h0(m, x, 7)), f"{case} {dtype} with h0", ops=[op], scale=scale)


@pytest.mark.parametrize("case", ["rnn_tanh", "lstm_2l_bidir_bf", "gru_2l_bidir", "rnn_relu_2l_bidir_bf"])
def test_rnn_unbatched(eir, tmp_path, case):
    _, make, op = next(c for c in RNN_CASES if c[0] == case)
    torch.manual_seed(1)
    m = make().eval()
    x = _r(6, 4, seed=2)
    check(eir, tmp_path, WithH0(m), (x, *_h0(m, x, 3)), f"{case} unbatched", ops=[op])


@pytest.mark.parametrize("case", ["rnn_relu_2l_bidir_bf", "lstm_2l_bidir_bf", "gru_2l_bidir"])
def test_rnn_dynamic_batch(eir, tmp_path, case):
    # torch.export specializes the sequence length of nn.RNN/LSTM/GRU; the batch may be dynamic
    _, make, op = next(c for c in RNN_CASES if c[0] == case)
    torch.manual_seed(2)
    m = make().eval()
    bd = 0 if m.batch_first else 1
    ds = {"input": {bd: torch.export.Dim("B", min=2, max=8)}}
    x = _r(2, 5, 4) if m.batch_first else _r(5, 2, 4)
    other = [_r(*(x.shape[:bd] + (b,) + x.shape[bd + 1:]), seed=b) for b in (3, 7)]
    check(eir, tmp_path, m, (x,), f"{case} dynamic batch", ops=[op], dynamic_shapes=ds, reruns=[(o,) for o in other])


CELL_CASES = [
    ("rnn_tanh_cell", lambda: nn.RNNCell(4, 3), "aten.rnn_tanh_cell.default"),
    ("rnn_relu_cell_nobias", lambda: nn.RNNCell(4, 5, bias=False, nonlinearity="relu"), "aten.rnn_relu_cell.default"),
    ("lstm_cell", lambda: nn.LSTMCell(4, 3), "aten.lstm_cell.default"),
    ("lstm_cell_nobias", lambda: nn.LSTMCell(3, 6, bias=False), "aten.lstm_cell.default"),
    ("gru_cell", lambda: nn.GRUCell(4, 3), "aten.gru_cell.default"),
    ("gru_cell_nobias", lambda: nn.GRUCell(4, 2, bias=False), "aten.gru_cell.default"),
]


class CellSteps(nn.Module):
    """a cell unrolled over the steps of x, from h0 given or not"""
    def __init__(self, cell):
        super().__init__()
        self.cell = cell

    def forward(self, x, *h):
        outs = []
        state = (h[0], h[1]) if len(h) == 2 else (h[0] if h else None)
        for t in range(x.shape[0]):
            state = self.cell(x[t], state)
            outs.append(state[0] if isinstance(state, tuple) else state)
        return torch.stack(outs), state


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("case", [c[0] for c in CELL_CASES])
def test_rnn_cells(eir, tmp_path, case, dtype):
    _, make, op = next(c for c in CELL_CASES if c[0] == case)
    torch.manual_seed(3)
    cell = make().eval().to(dtype)
    lstm = isinstance(cell, nn.LSTMCell)
    x = _r(3, 2, cell.input_size, dtype=dtype)
    check(eir, tmp_path, CellSteps(cell), (x,), f"{case} {dtype} without h0", ops=[op])
    h = [_r(2, cell.hidden_size, dtype=dtype, seed=5 + k) for k in range(2 if lstm else 1)]
    check(eir, tmp_path, CellSteps(cell), (x, *h), f"{case} {dtype} with h0", ops=[op])
    xu = _r(3, cell.input_size, dtype=dtype, seed=9)  # unbatched: (input_size,) per step
    hu = [t[0] for t in h]
    check(eir, tmp_path, CellSteps(cell), (xu, *hu), f"{case} {dtype} unbatched", ops=[op])


# ---------------------------------------------------------------- symbolic math

SYM_FNS = {
    # torch._sym_sqrt is the one serializable symbolic op (torch/_export/serde's _SYM_OPS) that
    # targets torch._sym_*, not torch.sym_*; the others are here as its company
    "_sym_sqrt": lambda x, n: x * torch._sym_sqrt(n),
    "sym_int_of_sqrt": lambda x, n: x * torch.sym_int(torch._sym_sqrt(n)),
    "sym_float_pow": lambda x, n: x * torch.sym_float(n) ** 0.5 + (n / 2) ** 0.5,
    "sym_max_min": lambda x, n: x * torch.sym_max(n, 3) + torch.sym_min(n, 2.5),
    "sym_ite_and_or": lambda x, n: x * torch.sym_ite((n > 3) & (n < 50) | (n == 2), n, 1 - n),
    "shifts_neg": lambda x, n: x * ((n << 2) + (n >> 1)) + (-n),
    "trunc_floordiv_mod": lambda x, n: x * torch.sym_int(n / 3) + (n // 2) * (n % 3),
}


@pytest.mark.parametrize("name", list(SYM_FNS))
def test_sym_ops(eir, tmp_path, name):
    f = SYM_FNS[name]

    class M(nn.Module):
        def forward(self, x):
            return f(x, x.shape[0])

    ds = ({0: torch.export.Dim("n", min=2, max=100)},)
    check(eir, tmp_path, M(), (_r(5, 2),), name, dynamic_shapes=ds,
          reruns=[(_r(9, 2, seed=1),), (_r(2, 2, seed=2),), (_r(64, 2, seed=3),)])


# ---------------------------------------------------------------- vmap

def _vmap_fn(x, y):
    return torch.vmap(lambda a, b: (a * b).sum(0) + a.sin(), in_dims=(0, 1))(x, y)


def test_vmap(eir, tmp_path):
    """as exported (torch._functorch.predispatch's batching ops, run as a loop over the
    batch) and after run_decompositions() (plain ops); test_exported_vmap.py has the family"""
    check(eir, tmp_path, Fn(_vmap_fn), (_r(3, 4), _r(4, 3, seed=1)), "vmap")


# ---------------------------------------------------------------- printing

def test_print_matches_torch(eir, tmp_path):
    """eir print (graph, code, program) of a program with every op above equals what
    torch prints for the program torch.export.load reads back"""
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.r = nn.GRU(4, 3, num_layers=2, bidirectional=True)
            self.c = nn.LSTMCell(4, 3)
            self.t = nn.RNN(4, 2, nonlinearity="relu")

        def forward(self, x, a, b, t):
            return (torch.where(x[0] > 0), self.r(x), self.c(x[0]), self.t(x), nn.utils.rnn.pad_sequence([a, b]),
                    F.affine_grid(t, [2, 3, 4, 5], align_corners=False))

    args = (_r(5, 2, 4), _r(3, 2, seed=1), _r(4, 2, seed=2), _r(2, 2, 3, seed=3))
    for dec in (False, True):
        _, path = export(tmp_path, M().eval(), args, dec)
        ep = torch.export.load(path)
        for flag, want in (([], str(ep.graph)), (["--code"], ep.graph_module.code), (["--program"], str(ep))):
            r = subprocess.run([eir, "print", *flag, path], capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            assert r.stdout.strip() == want.strip(), f"eir print {flag} ({'decomposed' if dec else 'as exported'})"
