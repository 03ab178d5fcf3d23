"""Shape and dtype inference (src/ops/meta.c) against torch 2.13's meta kernels.

Small modules are exported live (strict=False and strict=True, as exported and
after run_decompositions(), one with a dynamic batch), and `eir verify
--meta-report` must agree with every recorded dtype, size, stride and storage
offset of the nodes it has a meta function for; `eir verify` then finds no
metadata violation. Planted wrong metadata (model.json edited) is reported
with the node, the output and recorded vs inferred.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "verify"))

import plant  # noqa: E402


class Promote(torch.nn.Module):
    def forward(self, x, i, b, h):
        return (x + i, i * 2.5, i / (i + 1), torch.div(i, 2, rounding_mode="floor"), b + i, h + x[0, 0],
                h * 2, x > 0.5, torch.where(b, x, i), torch.logical_not(b), torch.sigmoid(i), i.to(torch.float16),
                i & 3, -h, torch.maximum(x, h.float()))


class Layouts(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, padding=1)
        self.convt = torch.nn.ConvTranspose2d(4, 4, 2, stride=2)
        self.bn = torch.nn.BatchNorm2d(8)

    def forward(self, x, p):
        y = self.bn(self.conv(x))
        z = F.max_pool2d(torch.relu(y), 2)
        a = F.adaptive_avg_pool2d(z, 1)
        t = self.convt(x)
        q = p + x[:, :1]
        c = torch.cat([x, x * 2], dim=1)
        return (y, z, a, t, q, x + 1, x * torch.ones(4, 1, 1), c, x.clone(), F.pad(x, (1, 1)),
                torch.zeros_like(x), F.avg_pool2d(x, 2), x.contiguous(), x.sum(dim=1, keepdim=True))


class Views(torch.nn.Module):
    def forward(self, x, y):
        t = x.transpose(0, 1)
        parts = x.split([1, 3], dim=1)
        return (x.view(6, 4), t.reshape(-1), x.permute(2, 0, 1), x[:, 1::2, 1:3], x[1], x[:, -1],
                x.unsqueeze(1), y.squeeze(), y.squeeze(0), x.expand(5, 2, 4, 3), y.t(), parts[1],
                x.unbind(1)[2], x.flatten(1), x.narrow(2, 1, 2), t.contiguous(), x.chunk(2, dim=1)[1] + 0,
                x.unflatten(1, (2, 2)), x.view(-1, 12)[:, 3:])


class Reduce(torch.nn.Module):
    def forward(self, x, i):
        return (x.sum(dim=(0, 2), keepdim=True), x.mean(-1), x.amax(dim=1), x.argmax(dim=1, keepdim=True),
                x.var(dim=1), (x > 0).any(dim=2), i.sum(), i.sum(dim=0, dtype=torch.float32), x.sum(),
                x.mean(), x.amin(dim=(1, 2)))


class LinAlg(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 5)

    def forward(self, a, b, c):
        return (a @ b, torch.bmm(c, c.transpose(1, 2)), self.lin(c), torch.addmm(b[0], a, b),
                torch.matmul(c, b), torch.baddbmm(c[:, :, :4], c, c.transpose(1, 2)[:, :, :4]), self.lin(a[0]))


class Misc(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(10, 4)
        self.ln = torch.nn.LayerNorm(4)
        self.gn = torch.nn.GroupNorm(2, 4)

    def forward(self, x, idx, z):
        e = self.emb(idx)
        return (e, self.ln(e), torch.softmax(e, -1), F.log_softmax(e, 1), torch.index_select(x, 0, idx[0]),
                torch.gather(x, 1, idx[:, :2] % 4), self.gn(z), torch.full((2, 3), 7), torch.arange(5),
                torch.arange(0, 1, 0.25), x.new_zeros(3), torch.stack([x, x], 1), torch.zeros(2, dtype=torch.int32),
                torch.full_like(x, 2.0), F.gelu(x), F.silu(x), torch.tanh(x), torch.clamp(x, 0, 1))


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v), F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))


class More(torch.nn.Module):
    def forward(self, x, i, m):
        v, ix = x.max(dim=1)
        tv, ti = x.topk(2, dim=-1)
        return (x ** 2, i ** 2, i ** 0.5, 2 ** x, x.clamp(min=x[0]), x.masked_fill(m, 0.5),
                i.masked_fill(m, 3), v, ix, x.min(dim=0, keepdim=True)[0], i.cumsum(0), x.cumsum(1), tv, ti,
                x.prod(1), i.prod(0), torch.logsumexp(x, 1), F.leaky_relu(x), F.hardswish(x), F.elu(x),
                torch.log1p(x), x.round(), i.sign(), torch.floor_divide(i, 2), torch.fmod(x, 1.5),
                x.diagonal(), x.t().diagonal(1), x.diagonal(-1) + 0, torch.empty(2, 3).fill_(1.0), 1 - x,
                torch.exp2(i), x.trunc())


class Wider(torch.nn.Module):
    """Overloads the Core ATen and OpInfo sweeps brought in: pooling and padding
    of other ranks, resampling, sorts, scatters, data-dependent sizes."""

    def forward(self, x, v, i, m):
        s, si = x.sort(dim=0)
        cm, ci = torch.cummax(x, 1)
        var, mean = torch.var_mean(x, dim=1)
        lo, hi = torch.aminmax(x, dim=0)
        xt = x.t()
        return (s, si, cm, ci, var, mean, lo, hi, x.repeat(2, 1, 3), F.pad(v, (1, 2, 0, 1), mode="reflect"),
                F.interpolate(v, scale_factor=2.0, mode="nearest"), F.avg_pool3d(v[None], 2),
                F.adaptive_avg_pool1d(v[0], 3), F.max_pool1d(v[0], 2), x.nonzero(), x.flip(0), x.roll(1, 0),
                torch.scatter(x, 0, i, x), x.index_put((i[0],), x[0]), x.masked_scatter(m, x * 2),
                torch.float_power(x, 2), torch.heaviside(x, x), torch.addcmul(x, x, x), torch.lerp(x, xt, 0.5),
                torch.isinf(x), torch.where(m, x, 0.0), torch.hypot(x, xt), torch.select_scatter(xt, x[0], 0, 1),
                F.conv1d(v[0, 0, :2], v[1, 0, :3, :2].reshape(3, 2, 1)), torch.log2(x.abs() + 1), x.ravel(), xt.ravel())


class LinAlgMore(torch.nn.Module):
    """Linear algebra (LAPACK's column-major results), losses and windows."""

    def forward(self, a, b, t, z):
        k = torch.tensor([1, 0, 3])
        k2 = torch.tensor([[1, 0, 2, 2], [0, 0, 1, 1]])
        spd = a @ a.mT + torch.eye(4)
        s, ld = torch.linalg.slogdet(a)
        w, v = torch.linalg.eigh(spd)
        q, r = torch.linalg.qr(b)
        qc, rc = torch.linalg.qr(b, mode="complete")
        u, sv, vh = torch.linalg.svd(b)
        u2, sv2, vh2 = torch.linalg.svd(b.mT, full_matrices=False)
        ou, os_, ov = torch.svd(b)
        return (torch.linalg.inv(a), torch.inverse(a), torch.linalg.cholesky(spd), torch.cholesky(spd),
                torch.linalg.det(a), torch.logdet(spd), s, ld, w, v, torch.linalg.eigvalsh(spd), q, r, qc, rc,
                u, sv, vh, u2, sv2, vh2, ou, os_, ov, torch.linalg.svdvals(b), torch.linalg.matrix_exp(a),
                torch.linalg.inv_ex(a)[1], F.mse_loss(t, z), F.l1_loss(t, z, reduction="none"),
                F.huber_loss(t.mT, z.mT, reduction="none"), F.smooth_l1_loss(t, z, reduction="sum"),
                F.soft_margin_loss(t, z), torch.hann_window(5), torch.hamming_window(6, periodic=False),
                torch.blackman_window(4, dtype=torch.float64), torch.kaiser_window(7), torch.bartlett_window(3),
                F.nll_loss(t, k), F.nll_loss(t, k, reduction="none"), F.cross_entropy(t, k),
                F.cross_entropy(t[None].expand(2, 3, 4), k2,
                                reduction="none"),
                F.glu(z.mT, 0), torch.linalg.vector_norm(t, dim=1, keepdim=True),
                torch.linalg.vector_norm(t.to(torch.complex64)))


class Dyn(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, stride=2)
        self.lin = torch.nn.Linear(4, 2)

    def forward(self, x, y):
        h = torch.relu(self.conv(x))
        f = h.flatten(1)
        g = torch.cat([y, y[:, :2]], dim=1)
        return self.lin(h.mean(dim=(2, 3))), f.view(-1), g, y[1:], y[:, None].expand(-1, 2, 5)[:, 0] * 2


class Tail(torch.nn.Module):
    """The long tail (src/ops/meta_tail.c), called as the ATen overloads."""

    def forward(self, x, a, b, v, z):
        A = torch.ops.aten
        return (A.movedim.int(x, 0, 1), A.atleast_3d.default(v), A.unfold.default(x, 0, 2, 1),
                A.linalg_diagonal.default(x, offset=1), *A.tensor_split.sections(x.t(), 3),
                A.fft_rfft.default(x), A.fft_ifft2.default(z), A.fft_irfft.default(z, 8),
                A.linalg_solve.default(a, b), A.linalg_solve.default(a, b.transpose(1, 2), left=False), *A.linalg_eig.default(a),
                *A.linalg_lu_factor.default(b), A.linalg_pinv.atol_rtol_tensor(b), A.linalg_matrix_norm.default(b, 2),
                A.tril_indices.default(3, 4), A.einsum.default("bij,bjk->bik", [a, b]), *A.meshgrid.indexing([v, v], indexing="xy"),
                A.special_hermite_polynomial_h.default(x, x), A.margin_ranking_loss.default(x, x, x),
                A.quantile.default(x, v[:2], 1, True), *A.broadcast_tensors.default([x, v[:4]]),
                A.pixel_shuffle.default(b.view(1, 4, 1, 6), 2), A.lift_fresh_copy.default(x.t()),
                A.max.other(x, v[:4]), A.hstack.default([v, v]), A.take_along_dim.default(x, x.argsort(1), 1),
                A.diag_embed.default(x), *A.histogramdd.default(x[:, :2], [3, 2]), A.rot90.default(x, 1, [0, 1]))


def cl(t):
    return t.contiguous(memory_format=torch.channels_last)


CASES = {
    "promote": (Promote, lambda: (torch.randn(2, 3), torch.arange(3), torch.tensor([True, False, True]),
                                  torch.randn(2, 3).half()), None),
    "layouts": (Layouts, lambda: (cl(torch.randn(2, 4, 6, 6)), torch.randn(2, 1, 6, 6)), None),
    "layouts_contig": (Layouts, lambda: (torch.randn(2, 4, 6, 6), cl(torch.randn(2, 1, 6, 6))), None),
    "views": (Views, lambda: (torch.randn(2, 4, 3), torch.randn(1, 3)), None),
    "reduce": (Reduce, lambda: (torch.randn(3, 4, 5), torch.arange(6).view(2, 3)), None),
    "linalg": (LinAlg, lambda: (torch.randn(4, 6), torch.randn(6, 5), torch.randn(2, 4, 6)), None),
    "misc": (Misc, lambda: (torch.randn(4, 4), torch.tensor([[1, 2, 3], [3, 2, 1]]), torch.randn(2, 4, 3)), None),
    "attention": (Attention, lambda: (torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 8), torch.randn(2, 3, 5, 8)), None),
    "more": (More, lambda: (torch.randn(4, 4), torch.arange(1, 17).view(4, 4), torch.rand(4, 4) > 0.5), None),
    "wider": (Wider, lambda: (torch.randn(4, 4), torch.randn(2, 3, 6, 6), torch.randint(0, 4, (4, 4)),
                              torch.rand(4, 4) > 0.5), None),
    "linalg_more": (LinAlgMore, lambda: (torch.randn(2, 4, 4), torch.randn(2, 5, 3), torch.randn(3, 4),
                                         torch.randn(3, 4)), None),
    "tail": (Tail, lambda: (torch.randn(3, 4), torch.randn(2, 3, 3), torch.randn(2, 3, 4), torch.randn(5),
                            torch.randn(3, 5, dtype=torch.complex64)), None),
    "dyn": (Dyn, lambda: (torch.randn(3, 3, 9, 9), torch.randn(3, 5)),
            lambda: ({0: torch.export.Dim("b", min=3, max=64)}, {0: torch.export.Dim("b", min=3, max=64)})),
}
STRICT = {"promote", "layouts", "views", "dyn", "tail"}


def export(name, strict, decomp, out):
    cls, inputs, dyn = CASES[name]
    torch.manual_seed(0)
    m = cls().eval()
    ep = torch.export.export(m, inputs(), strict=strict, dynamic_shapes=dyn() if dyn else None)
    if decomp:
        ep = ep.run_decompositions()
    torch.export.save(ep, out)
    return out


def meta_report(eir, path):
    p = subprocess.run([eir, "verify", "--meta-report", path], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


# checked as exported only (its ops are Core ATen already; docs/META.md has both forms)
AS_EXPORTED = {"wider"}
# strict=True export takes longer: two modules in the quick run, the others marked slow
STRICT_QUICK = {"views", "dyn"}
PARAMS = [pytest.param(n, s, d, marks=[pytest.mark.slow] if s and n not in STRICT_QUICK else [],
                       id=f"{n}-{'strict' if s else 'nonstrict'}-{'decomp' if d else 'aten'}")
          for n in CASES for s in ((False, True) if n in STRICT else (False,)) for d in (False, True)
          if not (d and n in AS_EXPORTED)]


@pytest.mark.parametrize("name,strict,decomp", PARAMS)
def test_meta_agrees_with_torch(eir, tmp_path, name, strict, decomp):
    path = export(name, strict, decomp, str(tmp_path / f"{name}.pt2"))
    nodes = meta_report(eir, path)
    compared = 0
    bad = []
    for n in nodes:
        if not n["has_meta"]:
            continue
        if n["error"]:
            bad.append(f"{n['node']} ({n['target']}): {n['error']}")
        for o in n["outputs"]:
            compared += 1
            for k in ("dtype", "sizes", "strides", "offset"):
                if o[k] == "differ":
                    bad.append(f"{n['node']} ({n['target']}) output {o['output']}: {k} differ: recorded "
                               f"{o['recorded']}, inferred {o['inferred']}")
    assert not bad, "\n".join(bad)
    assert compared >= 5
    # and the verifier reports no metadata violation
    p = subprocess.run([eir, "verify", "--json", path], capture_output=True, text=True, timeout=120)
    vs = json.loads(p.stdout)["violations"]
    assert not [v for v in vs if v["rule"].startswith("meta.")], vs


def test_meta_covers_the_forms(eir, tmp_path):
    """The interesting forms are inferred, not skipped: channels-last convolution
    strides, view offsets, symbolic sizes."""
    path = export("layouts", False, True, str(tmp_path / "l.pt2"))
    conv = [o for n in meta_report(eir, path) if n["target"].endswith("aten.convolution.default") for o in n["outputs"]]
    assert conv and all(o["strides"] == "agree" for o in conv)
    assert any(o["recorded"].startswith("f32[2, 8, 6, 6] strides [288, 1, 48, 8]") for o in conv)
    path = export("views", False, False, str(tmp_path / "v.pt2"))
    sl = [o for n in meta_report(eir, path) if n["target"].endswith("aten.select.int") for o in n["outputs"]]
    assert any(o["offset"] == "agree" and not o["recorded"].endswith("offset 0") for o in sl)
    path = export("dyn", False, False, str(tmp_path / "d.pt2"))
    syms = [o for n in meta_report(eir, path) for o in n["outputs"] if "s" in o["recorded"].split("]")[0]]
    assert len(syms) >= 5 and all(o["sizes"] == "agree" for o in syms)


def set_size(node, out, dim, value):
    def f(m, _):
        g = plant.graph(m)
        n = plant.node(g, node)
        name = n["outputs"][0]["as_tensor"]["name"] if out is None else out
        g["tensor_values"][name]["sizes"][dim] = {"as_int": value}
    return f


def set_dtype(name, dtype):
    def f(m, _):
        plant.graph(m)["tensor_values"][name]["dtype"] = dtype
    return f


def verify_json(eir, path):
    p = subprocess.run([eir, "verify", "--json", path], capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 3), p.stderr
    return p.returncode, json.loads(p.stdout)["violations"]


def test_planted_wrong_size(eir, tmp_path):
    src = os.path.join(REPO, "examples", "mlp.pt2")
    dst = str(tmp_path / "wrong_size.pt2")
    plant.plant(src, dst, set_size("linear", None, 1, 17))
    rc, vs = verify_json(eir, dst)
    assert rc == 3
    meta = [v for v in vs if v["rule"] == "meta.mismatch"]
    assert meta[0]["node"] == "linear" and meta[0]["target"] == "aten.linear.default"
    assert meta[0]["message"].startswith(
        "node %linear (aten.linear.default): output 0 (%linear): recorded f32[2, 17] strides [16, 1] offset 0, "
        "inferred f32[2, 16] strides [16, 1] offset 0 (sizes differ)")


def test_planted_wrong_dtype(eir, tmp_path):
    src = os.path.join(REPO, "examples", "mlp.pt2")
    dst = str(tmp_path / "wrong_dtype.pt2")
    plant.plant(src, dst, set_dtype("relu", 8))  # float64
    rc, vs = verify_json(eir, dst)
    assert rc == 3
    meta = [v for v in vs if v["rule"] == "meta.mismatch" and v["node"] == "relu"]
    assert meta and meta[0]["message"].startswith(
        "node %relu (aten.relu.default): output 0 (%relu): recorded f64[2, 16] strides [16, 1] offset 0, "
        "inferred f32[2, 16] strides [16, 1] offset 0 (dtype differs)"), meta


def test_planted_bad_view(eir, tmp_path):
    """a view whose size argument does not hold the input's elements: the
    inference fails, naming the argument"""
    cls = Views
    path = export("views", False, False, str(tmp_path / "v.pt2"))
    dst = str(tmp_path / "bad_view.pt2")

    def edit(m, _):
        g = plant.graph(m)
        n = plant.node(g, "view")
        plant.inp(n, "size")["arg"] = {"as_ints": [5, 4]}
    plant.plant(path, dst, edit)
    rc, vs = verify_json(eir, dst)
    meta = [v for v in vs if v["rule"] == "meta.args"]
    assert meta and meta[0]["node"] == "view", vs
    assert meta[0]["message"].startswith(
        "node %view (aten.view.default): shape inference fails: argument 'size' has 20 elements, but 'self' has "
        "24 (expected the same number)"), meta[0]["message"]
    assert cls is Views


@pytest.mark.slow
def test_meta_edge_view_copies(eir, tmp_path):
    """ExecuTorch's to_edge() turns views into *_copy ops (new contiguous tensors):
    the inference agrees with what it records."""
    pytest.importorskip("executorch.exir")
    import warnings
    from executorch.exir import to_edge
    warnings.filterwarnings("ignore")
    class EdgeViews(torch.nn.Module):
        # list-returning views (split, unbind) are left out: torch.export.save cannot write
        # their Edge form
        def forward(self, x, y):
            return (x.view(6, 4), x.permute(2, 0, 1) * 1, x[:, 1::2, 1:3], x[1], x.unsqueeze(1), y.squeeze(),
                    x.expand(5, 2, 4, 3), y.t(), x.transpose(0, 2), x.diagonal(0, 1, 2))

    torch.manual_seed(0)
    ep = torch.export.export(EdgeViews(), CASES["views"][1]())
    out = str(tmp_path / "views_edge.pt2")
    torch.export.save(to_edge(ep).exported_program(), out)
    nodes = meta_report(eir, out)
    copies = [n for n in nodes if "_copy" in n["target"] and n["has_meta"]]
    assert len(copies) >= 5
    bad = [(n["node"], o) for n in nodes for o in n["outputs"] if "differ" in (o["dtype"], o["sizes"], o["strides"],
                                                                           o["offset"])]
    assert not bad and not [n for n in nodes if n["error"]], bad
    assert all(o["strides"] == "agree" for n in copies for o in n["outputs"])


def test_nonsense_metadata_is_reported_not_crashed_on(eir, tmp_path):
    """recorded sizes, strides and offsets at the ends of int64: verify reports the
    disagreement and never crashes (the loader refuses negative sizes itself)"""
    src = os.path.join(REPO, "examples", "mlp.pt2")
    dst = str(tmp_path / "nonsense.pt2")

    def edit(m, _):
        tv = plant.graph(m)["tensor_values"]
        tv["linear"]["sizes"][0] = {"as_int": 2 ** 63 - 1}
        tv["linear"]["strides"][0] = {"as_int": -2 ** 63}
        tv["relu"]["sizes"][1] = {"as_int": 2 ** 62}
        tv["linear_1"]["storage_offset"] = {"as_int": 2 ** 62}
    plant.plant(src, dst, edit)
    p = subprocess.run([eir, "verify", "--meta-report", dst], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([eir, "verify", "--json", dst], capture_output=True, text=True, timeout=60)
    assert p.returncode == 3, p.stderr
    vs = json.loads(p.stdout)["violations"]
    assert {v["node"] for v in vs if v["rule"] == "meta.mismatch"} >= {"linear", "relu"}, vs
    # relu's recorded size makes linear_1's inner sizes disagree
    assert [v["message"] for v in vs if v["node"] == "linear_1"][0].startswith(
        "node %linear_1 (aten.linear.default): shape inference fails: the last size of 'input' and of 'weight': "
        "4611686018427387904 vs 16 (expected equal)")


def test_meta_linalg_losses_windows(eir, tmp_path):
    """LAPACK's batched column-major results, losses and windows are inferred,
    not skipped, and agree with what torch recorded."""
    path = export("linalg_more", False, False, str(tmp_path / "la.pt2"))
    by = {}
    for n in meta_report(eir, path):
        by.setdefault(n["target"].rsplit("aten.", 1)[-1], []).extend(n["outputs"])
    for t in ("linalg_svd.default", "svd.default", "linalg_qr.default", "linalg_eigh.default", "linalg_inv.default",
              "cholesky.default", "linalg_slogdet.default", "linalg_det.default", "mse_loss.default",
              "huber_loss.default", "hann_window.default", "kaiser_window.default", "cross_entropy_loss.default",
              "nll_loss_nd.default", "glu.default", "linalg_vector_norm.default"):
        assert by.get(t), f"{t}: not inferred"
        assert all(o[k] == "agree" for o in by[t] for k in ("dtype", "sizes", "strides", "offset")), by[t]
    # column-major: Q of the reduced QR of 2 x (5 x 3) matrices
    assert any(o["recorded"] == "f32[2, 5, 3] strides [15, 1, 5] offset 0" for o in by["linalg_qr.default"])


def test_meta_long_tail(eir, tmp_path):
    """The long tail's overloads (src/ops/meta_tail.c) are inferred, not
    skipped, and agree with what torch recorded: FFT front ends on sizes and
    dtype (their strides are pocketfft's, not inferred), the rest on all four."""
    path = export("tail", False, False, str(tmp_path / "tail.pt2"))
    by = {}
    for n in meta_report(eir, path):
        by.setdefault(n["target"].rsplit("aten.", 1)[-1], []).extend(n["outputs"])
    fields = ("dtype", "sizes", "strides", "offset")
    for t in ("movedim.int", "atleast_3d.default", "unfold.default", "linalg_diagonal.default",
              "tensor_split.sections", "linalg_solve.default", "linalg_eig.default", "linalg_lu_factor.default",
              "linalg_pinv.atol_rtol_tensor", "linalg_matrix_norm.default", "tril_indices.default",
              "meshgrid.indexing", "special_hermite_polynomial_h.default", "margin_ranking_loss.default",
              "quantile.default", "broadcast_tensors.default", "pixel_shuffle.default", "lift_fresh_copy.default",
              "max.other", "hstack.default", "take_along_dim.default", "diag_embed.default", "histogramdd.default",
              "rot90.default", "fft_rfft.default", "fft_ifft2.default", "fft_irfft.default", "einsum.default"):
        assert by.get(t), f"{t}: not inferred"
        known = fields[:2] if t.startswith(("fft_", "einsum")) else fields
        assert all(o[k] == "agree" for o in by[t] for k in known), (t, by[t])
    # a view's offset and a complex result's dtype, as recorded
    assert any(o["recorded"].endswith("offset 1") for o in by["linalg_diagonal.default"])
    assert by["linalg_eig.default"][0]["recorded"].startswith("c64[2, 3]")
    assert by["fft_irfft.default"][0]["recorded"].startswith("f32[3, 8]")
