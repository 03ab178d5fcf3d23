"""The writer: `eir convert IN.pt2 OUT.pt2` against torch 2.13.

For every zoo variant and every committed fixture, eir loads the archive and
writes it again from its in-memory program. The copy must be what
torch.export.save wrote: `torch.export.load` of the copy prints exactly as the
original does, runs to the same outputs in torch and in eir, the records are
the same and in the same order (models/model.json and the payload configs
byte for byte; only the informational .data/serialization_id differs), tensors
that share a storage share one payload (torch sees them tied), and converting
the copy again gives the same bytes. Programs built here add what the zoo
lacks: non-persistent buffers, lifted constants, frozen parameters, tied
parameters, non-ASCII text in stack traces and float arguments torch writes
specially (inf, -inf, nan, -0.0, long and tiny floats).
"""
from __future__ import annotations

import glob
import os
import subprocess
import sys
import zipfile

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from conftest import REPO, ZOO_SRC, ops_lib, to_npy as _npy  # noqa: E402

if ZOO_SRC not in sys.path:
    sys.path.insert(0, ZOO_SRC)
import zoo  # noqa: E402,F401  (registers the mylib custom ops and the zoo's pytree types)

FIXTURES = sorted(glob.glob(os.path.join(REPO, "tests", "e2e", "fixtures", "*.pt2")))


def convert(eir, src, dst):
    r = subprocess.run([eir, "convert", str(src), str(dst)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return str(dst)


def records(path):
    """[(name relative to the root, bytes)] in archive order."""
    with zipfile.ZipFile(path) as z:
        out = []
        for i in z.infolist():
            root, rel = i.filename.split("/", 1)
            out.append((rel, z.read(i)))
        return out


def check_records(orig, copy):
    a, b = records(orig), records(copy)
    assert [n for n, _ in a] == [n for n, _ in b], "records or their order differ"
    for (name, da), (_, db) in zip(a, b):
        if name == ".data/serialization_id":
            assert len(db) == 40 and db.isdigit()
            continue
        assert da == db, f"record {name} differs"


def check_aligned(path):
    import struct
    with zipfile.ZipFile(path) as z, open(path, "rb") as f:
        for i in z.infolist():
            f.seek(i.header_offset)
            h = f.read(30)
            n, e = struct.unpack("<HH", h[26:30])
            assert (i.header_offset + 30 + n + e) % 64 == 0, f"{i.filename} is not 64-byte aligned"
            assert i.compress_type == zipfile.ZIP_STORED


def storage_groups(ep):
    """FQNs of the state dict and constants grouped by the storage they share."""
    groups = {}
    for fqn, t in list(ep.state_dict.items()) + list(ep.constants.items()):
        if isinstance(t, torch.Tensor) and t.untyped_storage().nbytes():
            groups.setdefault((t.untyped_storage().data_ptr(), t.dtype), []).append(fqn)
    return sorted(sorted(g) for g in groups.values())


def _bytes(t):
    return t.detach().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()


def same_tensor(a, b):
    """Bit for bit (NaNs included), with the same geometry."""
    if isinstance(a, torch.Tensor):
        return (isinstance(b, torch.Tensor) and a.dtype == b.dtype and a.shape == b.shape
                and a.stride() == b.stride() and a.storage_offset() == b.storage_offset() and _bytes(a) == _bytes(b))
    return a == b or (a != a and b != b)


def check_copy(eir, src, tmp_path):
    """Convert src twice and compare with what torch wrote; returns (ep, ep_copy, copy path)."""
    os.makedirs(tmp_path / "a", exist_ok=True)
    os.makedirs(tmp_path / "b", exist_ok=True)
    copy = convert(eir, src, tmp_path / "a" / "copy.pt2")
    check_records(src, copy)
    check_aligned(copy)
    # idempotent: the copy converted again (same file name, so the same root folder)
    again = convert(eir, copy, tmp_path / "b" / "copy.pt2")
    with open(copy, "rb") as f1, open(again, "rb") as f2:
        assert f1.read() == f2.read(), "converting the copy again gives other bytes"
    ep = torch.export.load(str(src))
    ep2 = torch.export.load(copy)
    assert str(ep2) == str(ep)
    assert ep2.graph_module.code == ep.graph_module.code
    # the same state, and shared storages still shared
    assert list(ep2.state_dict) == list(ep.state_dict)
    assert list(ep2.constants) == list(ep.constants)
    for fqn, t in ep.state_dict.items():
        t2 = ep2.state_dict[fqn]
        assert type(t2) is type(t) and t2.requires_grad == t.requires_grad, fqn
        assert same_tensor(t, t2), fqn
    for fqn, t in ep.constants.items():
        assert same_tensor(t, ep2.constants[fqn]), fqn
    assert storage_groups(ep2) == storage_groups(ep)
    return ep, ep2, copy


def _flat_inputs(ep, args, kwargs):
    from torch.export.graph_signature import ConstantArgument, InputKind

    leaves = torch.utils._pytree.tree_leaves((args, kwargs))
    user_specs = [s for s in ep.graph_signature.input_specs if s.kind == InputKind.USER_INPUT]
    return [x for s, x in zip(user_specs, leaves) if not isinstance(s.arg, ConstantArgument)]


def eir_run(eir, path, inputs, out):
    ops = ["--ops", ops_lib()] if ops_lib() else []
    return subprocess.run([eir, "run", path, *inputs, "--out", str(out), *ops],
                          capture_output=True, text=True, timeout=300)


def check_eir_runs_same(eir, orig, copy, inputs, tmp_path):
    """eir runs the copy to the very same outputs as the original."""
    r1 = eir_run(eir, orig, inputs, tmp_path / "out1")
    if r1.returncode != 0:
        # a program eir cannot run: the copy must be refused the same way
        r2 = eir_run(eir, copy, inputs, tmp_path / "out2")
        assert r2.returncode == r1.returncode and r2.stderr.replace(copy, orig) == r1.stderr
        return
    r2 = eir_run(eir, copy, inputs, tmp_path / "out2")
    assert r2.returncode == 0, r2.stderr
    files = sorted(os.listdir(tmp_path / "out1"))
    assert files == sorted(os.listdir(tmp_path / "out2"))
    for f in files:
        with open(tmp_path / "out1" / f, "rb") as a, open(tmp_path / "out2" / f, "rb") as b:
            assert a.read() == b.read(), f


def test_convert_zoo(eir, pt2, variant, tmp_path):
    src = pt2 + ".pt2"
    ep, ep2, copy = check_copy(eir, src, tmp_path)
    name = variant.split(".")[0]
    _, args, kwargs, _ = zoo.build(name)
    kwargs = kwargs or {}
    def fresh():  # programs may write into their inputs: each run gets its own
        return torch.utils._pytree.tree_map(lambda t: t.clone() if isinstance(t, torch.Tensor) else t, (args, kwargs))

    torch.manual_seed(0)
    a1, k1 = fresh()
    want = torch.utils._pytree.tree_leaves(ep.module()(*a1, **k1))
    torch.manual_seed(0)
    a2, k2 = fresh()
    got = torch.utils._pytree.tree_leaves(ep2.module()(*a2, **k2))
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        assert same_tensor(w, g), f"output {i}"
    for i, (g, w) in enumerate(zip(torch.utils._pytree.tree_leaves((a2, k2)), torch.utils._pytree.tree_leaves((a1, k1)))):
        assert same_tensor(w, g), f"input {i} after the run"
    paths = []
    for i, x in enumerate(_flat_inputs(ep, args, kwargs)):
        p = tmp_path / f"in_{i}.npy"
        np.save(p, _npy(x) if isinstance(x, torch.Tensor) else np.array(x, dtype=np.int64))
        paths.append(str(p))
    check_eir_runs_same(eir, src, copy, paths, tmp_path)


@pytest.mark.parametrize("fixture", FIXTURES, ids=[os.path.basename(f)[:-4] for f in FIXTURES])
def test_convert_fixture(eir, fixture, tmp_path):
    _, _, copy = check_copy(eir, fixture, tmp_path)
    inputs = sorted(glob.glob(fixture[:-4] + ".in_*.npy"), key=lambda p: int(p.rsplit("_", 1)[1][:-4]))
    check_eir_runs_same(eir, fixture, copy, inputs, tmp_path)


# ---- programs the zoo lacks ----

class _State(torch.nn.Module):
    """Persistent and non-persistent buffers, a lifted constant, a frozen
    parameter, tied parameters and a buffer that is a view of another."""

    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(4, 4)
        self.b = torch.nn.Linear(4, 4)
        self.b.weight = self.a.weight
        self.frozen = torch.nn.Parameter(torch.randn(4), requires_grad=False)
        self.register_buffer("kept", torch.randn(4))
        self.register_buffer("scratch", torch.arange(8.0), persistent=False)
        self.register_buffer("scratch_half", self.scratch[2:6], persistent=False)
        self.const = torch.tensor([1.5, -2.0, 0.25, 3.0])

    def forward(self, x):
        return self.b(self.a(x)) + self.frozen + self.kept + self.scratch_half * self.const


class _Floats(torch.nn.Module):
    def forward(self, x):
        y = torch.clamp(x, min=float("-inf"), max=float("inf"))  # é ✓ 🙂 "quoted" \ backslash
        y = y * 0.1 + 1e-300 - 1.0000000000000002
        y = torch.nan_to_num(y, nan=-0.0, posinf=1e30, neginf=-3.4028234663852886e38)
        return torch.where(y > 0, y, torch.full_like(y, float("nan"))) * 1e16 + 123456789.125


@pytest.mark.parametrize("case", ["state", "floats", "dynamic"])
def test_convert_built(eir, case, tmp_path):
    torch.manual_seed(0)
    if case == "state":
        m, args, ds = _State().eval(), (torch.randn(3, 4),), None
    elif case == "floats":
        m, args, ds = _Floats(), (torch.randn(2, 5),), None
    else:
        m, args, ds = _Floats(), (torch.randn(4, 5),), {"x": {0: torch.export.Dim("n", min=2, max=64)}}
    ep0 = torch.export.export(m, args, dynamic_shapes=ds)
    for tag, e in (("export", ep0), ("decomp", ep0.run_decompositions())):
        src = tmp_path / f"{case}_{tag}.pt2"
        torch.export.save(e, str(src))
        sub = tmp_path / tag
        ep, ep2, copy = check_copy(eir, src, sub)
        want, got = ep.module()(*args), ep2.module()(*args)
        assert same_tensor(want, got)
        p = sub / "in_0.npy"
        np.save(p, _npy(args[0]))
        check_eir_runs_same(eir, str(src), copy, [str(p)], sub)
    if case == "state":
        sd = ep2.state_dict
        assert sd["a.weight"].untyped_storage().data_ptr() == sd["b.weight"].untyped_storage().data_ptr()
        c = ep2.constants
        assert c["scratch"].untyped_storage().data_ptr() == c["scratch_half"].untyped_storage().data_ptr()
        with zipfile.ZipFile(copy) as z:
            names = [n.split("/", 1)[1] for n in z.namelist()]
        # a.weight/b.weight share one record; scratch/scratch_half share one
        assert sum(n.startswith("data/weights/weight_") for n in names) == len(storage_groups_of(ep2.state_dict))
        assert sum(n.startswith("data/constants/tensor_") for n in names) == len(storage_groups_of(ep2.constants))


def storage_groups_of(d):
    return {(t.untyped_storage().data_ptr(), t.dtype) for t in d.values() if isinstance(t, torch.Tensor)}


def test_convert_refuses(eir, tmp_path):
    """Bad uses fail with a message and leave nothing behind; IN is never written."""
    src = os.path.join(REPO, "tests", "e2e", "fixtures", "mlp.pt2")
    with open(src, "rb") as f:
        before = f.read()
    r = subprocess.run([eir, "convert", src, src], capture_output=True, text=True)
    assert r.returncode == 2 and "is the input" in r.stderr
    link = tmp_path / "same.pt2"
    os.symlink(src, link)
    r = subprocess.run([eir, "convert", src, str(link)], capture_output=True, text=True)
    assert r.returncode == 2 and "is the input" in r.stderr
    with open(src, "rb") as f:
        assert f.read() == before
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(before[: len(before) // 2])
    out = tmp_path / "out.pt2"
    r = subprocess.run([eir, "convert", str(bad), str(out)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr.startswith("eir: ")
    assert sorted(os.listdir(tmp_path)) == ["bad.pt2", "same.pt2"]
    r = subprocess.run([eir, "convert", src, str(tmp_path / "missing" / "out.pt2")], capture_output=True, text=True)
    assert r.returncode == 1 and "missing/out.pt2" in r.stderr
    r = subprocess.run([eir, "convert", src], capture_output=True, text=True)
    assert r.returncode == 2
    r = subprocess.run([eir, "convert", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "usage: eir convert" in r.stdout


def _mutate(obj, rng, texts, floats):
    """Replace strings of node metadata and float arguments with hard cases."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "metadata" and isinstance(v, dict):
                for mk in list(v):
                    v[mk] = rng.choice(texts)
                v["custom"] = rng.choice(texts)
            elif k in ("as_float",) and isinstance(v, (float, str)):
                obj[k] = rng.choice(floats)
            elif k == "as_floats" and isinstance(v, list):
                obj[k] = [rng.choice(floats) for _ in v]
            else:
                _mutate(v, rng, texts, floats)
    elif isinstance(obj, list):
        for v in obj:
            _mutate(v, rng, texts, floats)


def test_json_form_matches_json_dumps(eir, tmp_path):
    """Strings and floats are written as Python's json.dumps writes them (and
    the non-finite floats as torch's serializer replaces them), whatever they hold."""
    import json
    import random

    rng = random.Random(0)
    texts = ["", "plain", "é ü ß", "日本語", "🙂 astral 𝄞", "quote \" backslash \\ slash /", "\x01\x1f\x7f\x80",
             "tab\tnewline\ncr\rbs\bff\f", "\u2028\u2029", "\ud7ff\ue000\uffff", "a" * 300]
    floats = [0.0, -0.0, 0.1, 1 / 3, 1e-05, 1e-5 * 3, 1e16, 1.5e16, 123456789012345.6, 5e-324, 1.7976931348623157e308,
              -2.5, 1e22, 9007199254740993.0, "Infinity", "-Infinity", "NaN", 100.0, 0.0001, 0.00001234]
    for name in ("mlp", "cond", "sym_exprs", "custom_args", "lifted_constants"):
        src = os.path.join(REPO, "tests", "e2e", "fixtures", name + ".pt2")
        with zipfile.ZipFile(src) as z:
            items = [(i.filename, z.read(i)) for i in z.infolist()]
        model = next(n for n, _ in items if n.endswith("/models/model.json"))
        doc = json.loads(dict(items)[model])
        _mutate(doc, rng, texts, floats)
        text = json.dumps(doc).encode()
        mutated = tmp_path / f"{name}.pt2"
        with zipfile.ZipFile(mutated, "w", zipfile.ZIP_STORED) as z:
            for n, data in items:
                z.writestr(n.replace(name + "/", f"{name}/", 1), text if n == model else data)
        out = tmp_path / "out" / f"{name}.pt2"
        os.makedirs(out.parent, exist_ok=True)
        convert(eir, mutated, out)
        with zipfile.ZipFile(out) as z:
            got = z.read(f"{name}/models/model.json")
        assert got == text, name


def test_convert_pickled_payload(eir, tmp_path):
    """A payload torch pickles (use_pickle: tensor subclasses, torchbind objects) is
    carried over byte for byte, numbered before the raw ones as torch numbers it."""
    import io
    import json

    src = os.path.join(REPO, "tests", "e2e", "fixtures", "mlp.pt2")
    with zipfile.ZipFile(src) as z:
        items = [(i.filename.split("/", 1)[1], z.read(i)) for i in z.infolist()]
    recs = dict(items)
    cfg = json.loads(recs["data/weights/model_weights_config.json"])["config"]
    fqn = "fc3.bias"
    buf = io.BytesIO()
    torch.save(torch.export.load(src).state_dict[fqn], buf)
    new_cfg = {fqn: dict(cfg[fqn], path_name="weight_0", use_pickle=True)}
    payloads = [("data/weights/weight_0", buf.getvalue())]
    for k, v in cfg.items():
        if k != fqn:
            name = f"weight_{len(payloads)}"
            payloads.append((f"data/weights/{name}", recs["data/weights/" + v["path_name"]]))
            new_cfg[k] = dict(v, path_name=name)
    rest = [(n, d) for n, d in items if not n.startswith("data/weights/")]
    crafted = tmp_path / "pickled.pt2"
    with zipfile.ZipFile(crafted, "w", zipfile.ZIP_STORED) as z:
        for n, d in payloads + [("data/weights/model_weights_config.json", json.dumps({"config": new_cfg}).encode())] + rest:
            z.writestr("pickled/" + n, d)
    ep, ep2, copy = check_copy(eir, crafted, tmp_path / "out")
    assert type(ep2.state_dict[fqn]) is torch.nn.Parameter
    x = torch.randn(2, 8)
    assert same_tensor(ep.module()(x), ep2.module()(x))
