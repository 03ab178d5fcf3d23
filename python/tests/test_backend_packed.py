"""Linear weights packed ahead of time (`eir convert --to backend`, eir_cpu::linear_packed).

Written ahead, a linear layer whose weight is a constant of the program and whose rows are known
(more than the matrix-vector kernel takes) reads its weight from a new constant laid out as the
runtime's product reads it: weight^T in panels (P, K, W), one per column block of the product. The
runtime otherwise makes that copy at its first run (src/kernels/gemm.c), so a program written this
way starts faster and computes the same products.

A GPT-2-like decoder (tied embedding and LM head, biased and unbiased linear layers, an LM head
cut into several panels), exported strict and not, as exported and after run_decompositions(),
saved and saved again after torch.export.load:
  - the converted program calls eir_cpu.linear_packed for every linear layer, verifies as a Backend
    program, keeps the embedding's weight (the LM head's packed copy is a new constant);
  - torch (with eir.backend_ops) runs it to the module's outputs, and so does eir, over three runs
    with the same bits, and on two threads with the bits of one;
  - with oneDNN, eir gives the bits of the same program converted to Core ATen without packing
    (the runtime's own copies of the weights): the same products.
Also: rows not known ahead keep eir_cpu::linear; an LSTM stays whole (eir_cpu::lstm, pass
keep-lstm) and gives the exported program's bits.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")
nn = torch.nn
F = torch.nn.functional

from conftest import dnnl_here, load_backend_ops, to_npy  # noqa: E402
from exporting import export_save  # noqa: E402
from tolerances import tolerance  # noqa: E402

backend_ops = load_backend_ops()        # registers torch.ops.eir_cpu.*

VOCAB, DIM, SEQ = 4000, 64, 24


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM, bias=False)
        self.fc1, self.fc2 = nn.Linear(DIM, 4 * DIM), nn.Linear(4 * DIM, DIM)

    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(DIM, dim=-1)
        h = lambda t: t.view(1, SEQ, 4, DIM // 4).transpose(1, 2)  # noqa: E731
        a = F.scaled_dot_product_attention(h(q), h(k), h(v), is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(1, SEQ, DIM))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(7)
        self.wte = nn.Embedding(VOCAB, DIM)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.ln = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, VOCAB, bias=False)
        self.head.weight = self.wte.weight
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.1)

    def forward(self, idx):
        x = self.wte(idx)
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln(x))


def _run(eir, path, xf, out_dir, threads, runs=3, env=None):
    r = subprocess.run([eir, "run", path, xf, "--out", out_dir, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300, env=dict(os.environ, **(env or {})))
    assert r.returncode == 0, r.stderr
    if runs == 1:
        return [np.load(os.path.join(out_dir, "output_0.npy"))]
    return [np.load(os.path.join(out_dir, f"run_{k}", "output_0.npy")) for k in range(1, runs + 1)]


def _convert(eir, src, dst, *passes):
    r = subprocess.run([eir, "convert", *passes, src, dst], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("resave", [False, True], ids=["saved", "resaved"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_decoder(eir, tmp_path, strict, decomp, resave):
    module = Decoder().eval()
    idx = torch.randint(0, VOCAB, (1, SEQ), generator=torch.Generator().manual_seed(2))
    src = str(tmp_path / "dec.pt2")
    export_save(module, idx, strict, decomp, src)
    if resave:
        torch.export.save(torch.export.load(src), src)
    with torch.no_grad():
        want = to_npy(module(idx))
    rtol, atol = tolerance(torch.float32)

    dst = str(tmp_path / "dec.backend.pt2")
    _convert(eir, src, dst, "--to", "backend", "--verify-each")
    r = subprocess.run([eir, "verify", "--dialect", "backend", dst], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip().endswith("valid Backend program"), r.stdout + r.stderr
    printed = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=120).stdout
    ep = torch.export.load(dst)
    assert printed.rstrip("\n") == str(ep.graph).rstrip("\n")
    # 2 blocks x 4 linear layers and the LM head, all packed; nothing left as a product of a weight
    packed = re.findall(r"torch\.ops\.eir_cpu\.linear_packed\.default\]\(args = \(%\w+, %(\w+)", printed)
    assert len(packed) == 9, printed
    assert not re.search(r"torch\.ops\.(aten\.(linear|addmm|mm)|eir_cpu\.linear)\.default", printed)
    consts = {n: t for n, t in ep.constants.items() if n.startswith("_eir_cpu_fused")}
    assert len(consts) == 9
    head = [t for t in consts.values() if t.shape[1] == DIM and t.shape[0] * t.shape[2] >= VOCAB]
    assert len(head) == 1 and head[0].shape[0] > 1, {n: tuple(t.shape) for n, t in consts.items()}
    p, k, w = head[0].shape
    assert torch.equal(backend_ops.unpack_weight(head[0], VOCAB), module.wte.weight.detach())
    assert not head[0].permute(1, 0, 2).reshape(k, p * w)[:, VOCAB:].any()     # the padding is zero
    # the embedding still reads the tied weight (torch's signature names it twice); the linear layers'
    # weights, which only the packed calls replaced, have left the program
    params = ep.graph_signature.parameters
    assert {n for n in params if n.endswith("weight") and "ln" not in n} <= {"wte.weight", "head.weight"}, params
    assert any(n in params for n in ("wte.weight", "head.weight"))

    got = to_npy(ep.module()(idx))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg="torch running the Backend program")
    xf = str(tmp_path / "idx.npy")
    np.save(xf, to_npy(idx))
    one = _run(eir, dst, xf, str(tmp_path / "t1"), 1)
    for k, g in enumerate(one):
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=f"eir, run {k + 1}")
        assert g.tobytes() == one[0].tobytes(), f"run {k + 1} differs from the first"
    two = _run(eir, dst, xf, str(tmp_path / "t2"), 2, runs=1)
    assert two[0].tobytes() == one[0].tobytes(), "2 threads differ from one thread"
    if dnnl_here():
        core = str(tmp_path / "dec.core.pt2")
        _convert(eir, src, core, "--to", "core")
        plain = _run(eir, core, xf, str(tmp_path / "tc"), 1, runs=1)
        assert plain[0].tobytes() == one[0].tobytes(), "packed weights changed the products"


@pytest.mark.parametrize("threads", [1, 2])
def test_first_run_bits(eir, tmp_path, threads):
    """The exported program's first run reads each weight through a scratch transpose, the second
    makes the runtime's copies, later runs read those (src/kernels/gemm.c): every run gives the same
    bits (on an Intel CPU the weights are read as stored, src/kernels/wgemm.c: the same at every run
    too, and from the second run eir's copies packed for src/kernels/nngemm.c, in the same bits). So
    does the program converted to Core ATen, run once, and its Backend form (weights packed ahead;
    silu written out as Core ATen in both), both with oneDNN (EIR_WGEMM=0, EIR_NNGEMM=0). K = 2048 and 5632, where oneDNN's product from
    the weight as stored would sum in another order than from its transpose."""

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.up, self.down = nn.Linear(2048, 1024), nn.Linear(1024, 5632, bias=False)
            self.out = nn.Linear(5632, 256)

        def forward(self, x):
            return self.out(F.silu(self.down(F.relu(self.up(x)))))

    torch.manual_seed(11)
    module = M().eval()
    x = torch.randn(1, 64, 2048)
    src, dst = str(tmp_path / "m.pt2"), str(tmp_path / "m.backend.pt2")
    torch.export.save(torch.export.export(module, (x,)), src)
    _convert(eir, src, dst, "--to", "backend")
    xf = str(tmp_path / "x.npy")
    np.save(xf, to_npy(x))
    runs = _run(eir, src, xf, str(tmp_path / "o"), threads, runs=4)
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)
    for k, g in enumerate(runs):
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, err_msg=f"run {k + 1}")
        assert g.tobytes() == runs[0].tobytes(), f"run {k + 1} differs from the first"
    if dnnl_here():
        core = str(tmp_path / "m.core.pt2")
        _convert(eir, src, core, "--to", "core")
        # oneDNN's products on both sides: on an Intel CPU these 64 rows would otherwise take eir's
        # kernels (src/kernels/nngemm.c on the weights' packed copies, wgemm.c on the weights as
        # stored), which packed panels do not
        dn = {"EIR_WGEMM": "0", "EIR_NNGEMM": "0"}
        first = _run(eir, core, xf, str(tmp_path / "c"), threads, runs=1, env=dn)[0]
        again = _run(eir, core, xf, str(tmp_path / "c3"), threads, runs=3, env=dn)
        packed = _run(eir, dst, xf, str(tmp_path / "b"), threads, runs=1, env=dn)[0]
        np.testing.assert_allclose(first, want, rtol=rtol, atol=atol, err_msg="Core ATen program")
        assert all(g.tobytes() == first.tobytes() for g in again), "Core ATen program: runs differ"
        assert packed.tobytes() == first.tobytes(), "the Backend program's products differ"


def test_rows_not_known(eir, tmp_path):
    """A symbolic sequence length: the weights stay as they are (a run may have a few rows, which
    the matrix-vector kernel takes from the (N, K) weight), the program runs at two lengths."""

    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(DIM, 300)

        def forward(self, x):
            return F.relu(self.fc(x))

    module = M().eval()
    x = torch.randn(1, 16, DIM)
    ep = torch.export.export(module, (x,), dynamic_shapes=({1: torch.export.Dim("seq", min=2, max=64)},))
    src, dst = str(tmp_path / "m.pt2"), str(tmp_path / "m.backend.pt2")
    torch.export.save(ep, src)
    _convert(eir, src, dst, "--to", "backend")
    printed = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=120).stdout
    assert "torch.ops.eir_cpu.linear.default" in printed and "linear_packed" not in printed, printed
    rtol, atol = tolerance(torch.float32)
    for n in (3, 40):
        xn = torch.randn(1, n, DIM, generator=torch.Generator().manual_seed(n))
        xf = str(tmp_path / f"x{n}.npy")
        np.save(xf, to_npy(xn))
        got = _run(eir, dst, xf, str(tmp_path / f"o{n}"), 1, runs=1)[0]
        with torch.no_grad():
            np.testing.assert_allclose(got, to_npy(module(xn)), rtol=rtol, atol=atol)


class Recurrent(nn.Module):
    """The LSTM benchmark's shape, smaller: two layers, batch first, a linear head on the last step."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(16, 32, num_layers=2, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        y, (h, c) = self.lstm(x)
        return self.head(y[:, -1]), h, c


@pytest.mark.parametrize("resave", [False, True], ids=["saved", "resaved"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_lstm_kept_whole(eir, tmp_path, strict, decomp, resave):
    """`--to backend` renames aten.lstm eir_cpu::lstm before to-core (keep-lstm), so the Backend
    program runs eir's fused time loop as the exported program does: the same bits. torch's
    run_decompositions() writes the time loop out itself, so its form has no aten.lstm to keep:
    that Backend program is checked for its outputs only."""
    torch.manual_seed(5)
    module = Recurrent().eval()
    x = torch.randn(3, 12, 16, generator=torch.Generator().manual_seed(6))
    src, dst = str(tmp_path / "r.pt2"), str(tmp_path / "r.backend.pt2")
    ep = export_save(module, x, strict, decomp, src)
    if resave:
        torch.export.save(torch.export.load(src), src)
    assert ("torch.ops.aten.lstm.input" in str(ep.graph)) == (not decomp)
    _convert(eir, src, dst, "--to", "backend", "--verify-each")
    r = subprocess.run([eir, "verify", "--dialect", "backend", dst], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    printed = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=120).stdout
    assert printed.count("torch.ops.eir_cpu.lstm.default") == (0 if decomp else 1), printed
    assert "aten.lstm" not in printed, printed
    with torch.no_grad():
        want = [to_npy(t) for t in module(x)]
    got_torch = torch.export.load(dst).module()(x)
    rtol, atol = tolerance(torch.float32)
    for g, w in zip(got_torch, want):
        np.testing.assert_allclose(to_npy(g), w, rtol=rtol, atol=atol)
    xf = str(tmp_path / "x.npy")
    np.save(xf, to_npy(x))
    outs = {}
    for name, path in (("exported", src), ("backend", dst)):
        d = str(tmp_path / name)
        r = subprocess.run([eir, "run", path, xf, "--out", d], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs[name] = [np.load(os.path.join(d, f"output_{i}.npy")) for i in range(3)]
    for g, w, e in zip(outs["backend"], want, outs["exported"]):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
        if not decomp:
            assert g.tobytes() == e.tobytes(), "the Backend program's LSTM differs from the exported program's"


class ConvNet(nn.Module):
    """What to-core writes out and the Backend program must take back: SiLU (mul(x, sigmoid(x))),
    max pooling (max_pool2d_with_indices), an in-place dropout in eval mode."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 24, 3, padding=1)
        self.pool = nn.MaxPool2d(3, 2, ceil_mode=True)
        self.drop = nn.Dropout(0.2, inplace=True)
        self.fc = nn.Linear(24, 10)
        with torch.no_grad():
            self.bn1.running_mean.uniform_(-0.5, 0.5)
            self.bn1.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        y = self.pool(F.silu(self.bn1(self.conv1(x))))
        y = F.silu(self.conv2(y))
        return self.fc(self.drop(y.mean((2, 3))))


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_decomposed_forms_fused(eir, tmp_path, strict, decomp):
    """SiLU as its decomposition writes it fuses into the convolution's epilogue, a max pool whose
    indices nothing reads runs without them (eir_cpu::max_pool2d, or max_pool2d_blocked in a chain),
    an in-place dropout in eval mode leaves no call: the Backend program verifies and gives torch's
    outputs."""
    torch.manual_seed(3)
    module = ConvNet().eval()
    x = torch.randn(2, 3, 20, 20, generator=torch.Generator().manual_seed(4))
    src, dst = str(tmp_path / "c.pt2"), str(tmp_path / "c.backend.pt2")
    export_save(module, x, strict, decomp, src)
    _convert(eir, src, dst, "--to", "backend", "--verify-each")
    r = subprocess.run([eir, "verify", "--dialect", "backend", dst], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    printed = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=120).stdout
    for gone in ("aten.sigmoid", "aten.silu", "max_pool2d_with_indices", "dropout"):
        assert gone not in printed, (gone, printed)
    assert re.search(r"eir_cpu\.max_pool2d(_blocked)?\.default", printed), printed
    with torch.no_grad():
        want = to_npy(module(x))
    rtol, atol = tolerance(torch.float32)
    np.testing.assert_allclose(to_npy(torch.export.load(dst).module()(x)), want, rtol=rtol, atol=atol)
    xf = str(tmp_path / "x.npy")
    np.save(xf, to_npy(x))
    got = _run(eir, dst, xf, str(tmp_path / "o"), 1, runs=1)[0]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
