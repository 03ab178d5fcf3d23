"""The Backend dialect (`eir convert --to backend`, pass to-backend) against torch.

Each program — the zoo's resnet18, mobilenetv2 and mlp (as exported and
decomposed), and small modules exported here (strict=False and strict=True,
as exported and after run_decompositions()): convolution + batch norm +
relu / relu6 / silu / hardswish, convolution with a bias and a batch norm
without affine parameters, linear + relu, linear + hardtanh on 3-d input,
addmm without activation — goes through `eir convert --to backend
--verify-each`; then:
  - `eir verify --dialect backend` holds, and the printed graph calls
    torch.ops.eir_cpu.conv2d / linear where the patterns were, and no ATen
    convolution, batch norm or linear is left that the pass should have taken;
  - torch loads the converted program (with the eir_cpu operators registered
    by eir.backend_ops) and runs it to the original module's outputs;
  - `eir run` of the converted program gives torch's outputs too;
  - `eir run` of the original program gives torch's outputs with the
    runtime's own fusion (the default) and without it (EIR_NO_FUSION=1).
Also: float64 is left alone, and a symbolic batch size stays symbolic through
the fused calls (run at two sizes).
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import REPO, ZOO_SRC, load_backend_ops, to_npy  # noqa: E402
from tolerances import tolerance  # noqa: E402

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)

backend_ops = load_backend_ops()        # registers torch.ops.eir_cpu.*

FUSED = re.compile(r"torch\.ops\.eir_cpu\.(conv2d|conv2d_blocked|linear|linear_packed|max_pool2d)\.default")
LEFT = re.compile(r"torch\.ops\.aten\.(convolution|conv2d|batch_norm|_native_batch_norm_legit_no_training|linear|addmm)"
                  r"\.default")


def run_eir(eir, path, inputs, tmp, env=None):
    paths = []
    for i, t in enumerate(inputs):
        p = os.path.join(tmp, f"in_{i}.npy")
        np.save(p, to_npy(t))
        paths.append(p)
    out = os.path.join(tmp, "out_" + os.path.basename(path) + ("_nofusion" if env else ""))
    r = subprocess.run([eir, "run", path, *paths, "--out", out], capture_output=True, text=True, timeout=300,
                       env={**os.environ, **(env or {})})
    assert r.returncode == 0, r.stderr
    n = len([f for f in os.listdir(out) if f.startswith("output_")])
    return [np.load(os.path.join(out, f"output_{i}.npy")) for i in range(n)]


def close(got, want, what):
    want = np.asarray(want)
    rtol, atol = tolerance(str(want.dtype))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)


def convert(eir, src, dst):
    r = subprocess.run([eir, "convert", "--to", "backend", "--verify-each", "--print-after", "to-backend",
                        str(src), str(dst)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    m = re.search(r"# after --to-backend \((\d+) changed\)\n", r.stdout)
    assert m, r.stdout[:300]
    return int(m.group(1)), r.stdout[m.end():]


def check_program(eir, src, args, want, tmp, min_fused, left_ok=False):
    """src converted: verified, printed, run in torch and in eir to `want`."""
    dst = os.path.join(tmp, "backend.pt2")
    changed, printed = convert(eir, src, dst)
    fused = FUSED.findall(printed)
    assert changed == len(fused) >= min_fused, (changed, fused)
    assert left_ok or not LEFT.search(printed), LEFT.search(printed).group(0)
    r = subprocess.run([eir, "verify", "--dialect", "backend", dst], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().endswith("valid Backend program")
    # eir prints what torch prints of the converted program
    ep = torch.export.load(dst)
    r = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip("\n") == str(ep.graph).rstrip("\n")
    got_torch = torch.utils._pytree.tree_leaves(ep.module()(*args))
    assert len(got_torch) == len(want)
    for g, w in zip(got_torch, want):
        close(to_npy(g), w, "torch running the Backend program")
    for g, w in zip(run_eir(eir, dst, args, tmp), want):
        close(g, w, "eir running the Backend program")
    for env in (None, {"EIR_NO_FUSION": "1"}):
        for g, w in zip(run_eir(eir, str(src), args, tmp, env), want):
            close(g, w, f"eir running the original program (fusion {'off' if env else 'on'})")
    return printed


# ---- the zoo ----

ZOO = {"resnet18": 20, "mobilenetv2": 14, "mlp": 3}


@pytest.mark.parametrize("zoo_variant", [f"{n}{d}" for n in ZOO for d in ("", ".decomp")])
def test_zoo(eir, zoo_variant, tmp_path):
    variant = zoo_variant
    import zoo
    d = os.environ.get("EIR_ZOO_DIR")
    if not d or not os.path.isfile(os.path.join(d, variant + ".pt2")):
        pytest.skip("needs EIR_ZOO_DIR with the generated zoo")
    name = variant.split(".")[0]
    module, args, kwargs, _ = zoo.build(name)
    assert not kwargs
    ep = torch.export.load(os.path.join(d, variant + ".pt2"))
    want = [to_npy(t) for t in torch.utils._pytree.tree_leaves(ep.module()(*args))]
    check_program(eir, os.path.join(d, variant + ".pt2"), args, want, str(tmp_path), ZOO[name])


# ---- small modules, in every form torch writes ----

class ConvBnAct(torch.nn.Module):
    def __init__(self, act, conv_bias=False, affine=True, groups=1):
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, stride=2, padding=1, bias=conv_bias, groups=groups)
        self.bn = torch.nn.BatchNorm2d(8, affine=affine)
        self.act = act
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
            if affine:
                self.bn.weight.uniform_(0.5, 1.5)
                self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class LinearAct(torch.nn.Module):
    def __init__(self, act):
        super().__init__()
        self.fc = torch.nn.Linear(6, 5)
        self.act = act

    def forward(self, x):
        return self.act(self.fc(x))


class Mixed(torch.nn.Module):
    """A convolution whose result is read twice (stays), then a fused block and a plain linear."""
    def __init__(self):
        super().__init__()
        self.c0 = torch.nn.Conv2d(3, 4, 1)
        self.block = ConvBnAct(torch.nn.ReLU6(inplace=True), groups=4)
        self.fc = torch.nn.Linear(8, 3)

    def forward(self, x):
        y = self.c0(x)
        z = self.block(y + y.sigmoid())
        return self.fc(z.mean((2, 3))), y


class InvertedResidual(torch.nn.Module):
    """A MobileNet block: 1 x 1 expansion, depthwise k x k, 1 x 1 projection (+ the input at stride 1)."""
    def __init__(self, cin, hidden, k, stride, act):
        super().__init__()
        self.pw = torch.nn.Sequential(torch.nn.Conv2d(cin, hidden, 1, bias=False), torch.nn.BatchNorm2d(hidden), act())
        self.dw = torch.nn.Sequential(torch.nn.Conv2d(hidden, hidden, k, stride, k // 2, groups=hidden, bias=False),
                                      torch.nn.BatchNorm2d(hidden), act())
        self.project = torch.nn.Sequential(torch.nn.Conv2d(hidden, cin, 1, bias=False), torch.nn.BatchNorm2d(cin))
        self.residual = stride == 1
        with torch.no_grad():
            for bn in (self.pw[1], self.dw[1], self.project[1]):
                bn.running_mean.uniform_(-0.5, 0.5)
                bn.running_var.uniform_(0.5, 2.0)
                bn.weight.uniform_(0.5, 1.5)
                bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        y = self.project(self.dw(self.pw(x)))
        return x + y if self.residual else y


MODULES = {
    "conv_bn_relu": (lambda: ConvBnAct(torch.nn.ReLU(inplace=True)), (2, 4, 9, 9), 1),
    "conv_bn_relu6": (lambda: ConvBnAct(torch.nn.ReLU6()), (1, 4, 8, 8), 1),
    "conv_bias_bn_noaffine_silu": (lambda: ConvBnAct(torch.nn.SiLU(), conv_bias=True, affine=False), (1, 4, 8, 8), 1),
    "conv_bn_hardswish_dw": (lambda: ConvBnAct(torch.nn.Hardswish(), groups=4), (1, 4, 8, 8), 1),
    "conv_bn_hardswish": (lambda: ConvBnAct(torch.nn.Hardswish()), (1, 4, 8, 8), 1),
    "linear_relu": (lambda: LinearAct(torch.nn.ReLU()), (3, 6), 1),
    "linear_hardswish": (lambda: LinearAct(torch.nn.Hardswish()), (3, 6), 1),
    "linear_hardtanh_3d": (lambda: LinearAct(torch.nn.Hardtanh(-0.5, 0.5)), (2, 3, 6), 1),
    "mixed": (Mixed, (1, 3, 8, 8), 2),
    # depthwise planes with rows of 70 (row by row) and 35 (one flat loop per plane), 3 x 3 and 5 x 5
    "inverted_residual_s1": (lambda: InvertedResidual(8, 48, 3, 1, torch.nn.ReLU6), (1, 8, 12, 70), 3),
    "inverted_residual_k5_s2": (lambda: InvertedResidual(8, 40, 5, 2, torch.nn.Hardswish), (1, 8, 57, 70), 3),
}
FORMS = [(s, dc) for s in (False, True) for dc in (False, True)]
EVERY_FORM = ("conv_bn_relu", "linear_hardtanh_3d", "mixed", "inverted_residual_s1", "inverted_residual_k5_s2",
              "conv_bn_hardswish", "linear_hardswish")     # the others: strict=False only
CASES = [(n, f) for n in MODULES for f in FORMS if n in EVERY_FORM or not f[0]]


@pytest.mark.parametrize("name,form", CASES, ids=[f"{n}-{'strict' if s else 'nonstrict'}{'-decomp' if d else ''}"
                                                  for n, (s, d) in CASES])
def test_module(eir, name, form, tmp_path):
    strict, decomp = form
    make, shape, min_fused = MODULES[name]
    torch.manual_seed(0)
    m = make().eval()
    x = torch.randn(*shape) * 3
    ep = torch.export.export(m, (x,), strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    src = os.path.join(str(tmp_path), "model.pt2")
    torch.export.save(ep, src)
    with torch.no_grad():
        want = [to_npy(t) for t in torch.utils._pytree.tree_leaves(m(x))]
    printed = check_program(eir, src, (x,), want, str(tmp_path), min_fused, left_ok=name == "mixed")
    if "hardswish" in name:      # as exported (add, clamp, mul, div) or not: the fused call's activation
        assert not re.search(r"aten\.(clamp|div|hardswish)", printed), printed
        assert "'hardswish'" in printed, printed
    if name == "mixed":          # c0's result is read twice: it stays an ATen convolution
        assert "eir_cpu.conv2d" in printed and "eir_cpu.linear" in printed
        ep2 = torch.export.load(os.path.join(str(tmp_path), "backend.pt2"))
        convs = [n for n in ep2.graph.nodes if n.op == "call_function" and "convolution" in str(n.target)]
        assert len(convs) == 1


def test_float64_left_alone(eir, tmp_path):
    m = ConvBnAct(torch.nn.ReLU()).double().eval()
    ep = torch.export.export(m, (torch.randn(1, 4, 8, 8, dtype=torch.float64),)).run_decompositions()
    src = os.path.join(str(tmp_path), "f64.pt2")
    torch.export.save(ep, src)
    changed, printed = convert(eir, src, os.path.join(str(tmp_path), "out.pt2"))
    assert changed == 0 and not FUSED.search(printed)
    assert "aten._native_batch_norm_legit_no_training.default" in printed


class DynNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = ConvBnAct(torch.nn.ReLU())
        self.fc = torch.nn.Linear(8, 2)

    def forward(self, x):
        return torch.relu(self.fc(self.block(x).mean((2, 3))))


def test_dynamic_batch(eir, tmp_path):
    """A symbolic batch size: the fused calls keep it; torch and eir run the Backend program at two sizes."""
    torch.manual_seed(0)
    m = DynNet().eval()
    ep = torch.export.export(m, (torch.randn(2, 4, 8, 8),),
                             dynamic_shapes={"x": {0: torch.export.Dim("b", min=1, max=16)}})
    src, dst = os.path.join(str(tmp_path), "dyn.pt2"), os.path.join(str(tmp_path), "backend.pt2")
    torch.export.save(ep, src)
    changed, printed = convert(eir, src, dst)
    assert changed == 2 and len(FUSED.findall(printed)) == 2 and '"f32[s' in printed
    ep2 = torch.export.load(dst)
    for n in (1, 5):
        x = torch.randn(n, 4, 8, 8)
        with torch.no_grad():
            want = to_npy(m(x))
        close(to_npy(ep2.module()(x)), want, f"torch, batch {n}")
        close(run_eir(eir, dst, (x,), str(tmp_path))[0], want, f"eir, batch {n}")
        close(run_eir(eir, src, (x,), str(tmp_path))[0], want, f"eir fusing at runtime, batch {n}")


def test_runtime_fusion_keeps_output_names(eir, tmp_path):
    """The runtime fuses a private copy of the program, whose calls get eir_cpu
    names; the outputs it reports keep the names of the caller's program."""
    src = os.path.join(REPO, "examples", "mlp.pt2")

    def names(env):
        r = subprocess.run([eir, "run", src], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, **env))
        assert r.returncode == 0, r.stderr
        return re.findall(r"^output \d+ '(\w+)'", r.stdout, re.M)

    unfused = names({"EIR_NO_FUSION": "1"})
    assert unfused and names({}) == unfused
    # and the program does get fused (the names would otherwise trivially agree)
    out = str(tmp_path / "mlp.backend.pt2")
    r = subprocess.run([eir, "convert", "--to", "backend", src, out], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([eir, "run", out], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and re.findall(r"^output \d+ '(\w+)'", r.stdout, re.M) != unfused, r.stdout


class NearHardswish(torch.nn.Module):
    """Convolutions followed by what is not hardswish as export writes it: divided by 5, the
    shifted value read twice, the clamp's bounds 0 and 5; then one that is (x * clamp(x + 3,
    0, 6) / 6 written out by hand)."""
    def __init__(self):
        super().__init__()
        self.c = torch.nn.ModuleList(torch.nn.Conv2d(4, 4, 3, padding=1) for _ in range(4))

    def forward(self, x):
        a = self.c[0](x)
        a = a * torch.clamp(a + 3, 0, 6) / 5
        b = self.c[1](a)
        s = b + 3
        b = b * torch.clamp(s, 0, 6) / 6 + s
        c = self.c[2](b)
        c = c * torch.clamp(c + 3, 0, 5) / 6
        d = self.c[3](c)
        return d * torch.clamp(d + 3, 0, 6) / 6


@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_hardswish_written_out(eir, tmp_path, strict, decomp):
    torch.manual_seed(0)
    m = NearHardswish().eval()
    x = torch.randn(1, 4, 9, 9) * 3
    ep = torch.export.export(m, (x,), strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    src = os.path.join(str(tmp_path), "model.pt2")
    torch.export.save(ep, src)
    with torch.no_grad():
        want = [to_npy(m(x))]
    dst = os.path.join(str(tmp_path), "backend.pt2")
    _, printed = convert(eir, src, dst)
    # only the last is taken in: three divisions stay (by 5, and two by 6), the last one goes
    assert len(re.findall(r"aten\.div\.Tensor", printed)) == 3, printed
    assert printed.count("'hardswish'") == 1, printed
    ep2 = torch.export.load(dst)
    close(to_npy(ep2.module()(x)), want[0], "torch running the Backend program")
    for g, w in zip(run_eir(eir, dst, (x,), str(tmp_path)), want):
        close(g, w, "eir running the Backend program")
    for env in (None, {"EIR_NO_FUSION": "1"}, {"EIR_FUSE_HARDSWISH": "0"}):
        for g, w in zip(run_eir(eir, src, (x,), str(tmp_path), env), want):
            close(g, w, f"eir running the original program ({env})")
