"""`eir dot` on programs exported live: the DOT text renders with Graphviz,
holds one node per FX node (placeholders, calls, getitems, output; nested
graphs' nodes prefixed with their graph attribute), its edges are the FX
graph's node.users, nested graphs and modules are clusters, --collapse
folds modules into boxes that count their ops, and strings are escaped.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

torch = pytest.importorskip("torch")

from conftest import eir_bin  # noqa: E402

HAVE_DOT = shutil.which("dot") is not None
needs_graphviz = pytest.mark.skipif(not HAVE_DOT, reason="Graphviz `dot` not installed (scripts/setup.sh)")

TOKEN = re.compile(r'"((?:[^"\\]|\\.)*)"|(->)|(\[)|(\{)|(\})|([^\s"\[\]{};=]+)|(=)|(;)|(\])')


def parse_dot(text):
    """(nodes {id: attrs}, edges [(a, b, attrs)], clusters [label]) of the DOT eir writes
    (one statement per line)."""
    nodes, edges, clusters = {}, [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("subgraph cluster_"):
            clusters.append(None)
            continue
        if s.startswith("label=") and clusters and clusters[-1] is None:
            clusters[-1] = _unq(re.search(r'"((?:[^"\\]|\\.)*)"', s).group(1))
            continue
        if not s.startswith('"'):
            continue
        toks = [m for m in TOKEN.finditer(s)]
        ids = []
        i = 0
        while i < len(toks) and toks[i].group(1) is not None:
            ids.append(_unq(toks[i].group(1)))
            i += 1
            if i < len(toks) and toks[i].group(2):
                i += 1
            else:
                break
        attrs = {}
        rest = s[toks[i].start():] if i < len(toks) else ""
        for m in re.finditer(r'(\w+)=("(?:[^"\\]|\\.)*"|[^\s\];]+)', rest):
            v = m.group(2)
            attrs[m.group(1)] = _unq(v[1:-1]) if v.startswith('"') else v
        if len(ids) == 1:
            nodes[ids[0]] = attrs
        else:
            for a, b in zip(ids, ids[1:]):
                edges.append((a, b, attrs))
    return nodes, edges, clusters


def _unq(s):
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s):
            nxt = s[i + 1]
            out.append({"n": "\n", '"': '"', "\\": "\\"}.get(nxt, "\\" + nxt))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def fx_view(gm, prefix=""):
    """(node names, edges) of an FX graph and its nested graphs, without get_attr nodes"""
    names, edges = set(), set()
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            sub = getattr(gm, n.target)
            if isinstance(sub, torch.fx.GraphModule):
                sn, se = fx_view(sub, prefix + n.target + "/")
                names |= sn
                edges |= se
            continue
        names.add(prefix + n.name)
        for u in n.users:
            edges.add((prefix + n.name, prefix + u.name))
    return names, edges


def export_save(tmp_path, name, m, args, decomp=False, **kw):
    ep = torch.export.export(m, args, **kw)
    if decomp:
        ep = ep.run_decompositions()
    path = str(tmp_path / f"{name}.pt2")
    torch.export.save(ep, path)
    return path, torch.export.load(path)


def eir_dot(path, *opts):
    r = subprocess.run([eir_bin(), "dot", path, *opts], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def render(tmp_path, text, name="g"):
    src = tmp_path / f"{name}.dot"
    src.write_text(text)
    r = subprocess.run(["dot", "-Tsvg", str(src), "-o", str(tmp_path / f"{name}.svg")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Warning" not in r.stderr and "Error" not in r.stderr, r.stderr
    return tmp_path / f"{name}.svg"


def graph_part(nodes, edges):
    """nodes and data-flow edges of the program (legend, module boxes and subgraph links left out)"""
    n = {k for k in nodes if ":" not in k}
    e = {(a, b) for a, b, at in edges if ":" not in a and ":" not in b and "ltail" not in at}
    return n, e


def check_against_fx(tmp_path, path, ep, name):
    text = eir_dot(path)
    if HAVE_DOT:
        render(tmp_path, text, name)
    nodes, edges, clusters = parse_dot(text)
    got_n, got_e = graph_part(nodes, edges)
    want_n, want_e = fx_view(ep.graph_module)
    assert got_n == want_n
    assert got_e == want_e
    return text, nodes, edges, clusters


# ---- the programs ----

class Block(torch.nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = torch.nn.Linear(d, d)
        self.norm = torch.nn.LayerNorm(d)

    def forward(self, x):
        return torch.relu(self.norm(self.fc(x))) + x


class DeepMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(8, 16)
        self.blocks = torch.nn.Sequential(Block(16), Block(16), Block(16))
        self.head = torch.nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.blocks(self.inp(x))).softmax(-1)


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.fc(y.flatten(1))


class CondProg(torch.nn.Module):
    def forward(self, x):
        def t(x):
            return x.sin() * 2

        def f(x):
            return x.cos() + 1

        return torch.cond(x.sum() > 0, t, f, (x,)) + 1


class Stateful(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(1))
        self.register_buffer("scale", torch.ones(4))
        self.const = torch.arange(4.0)          # a lifted tensor constant
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        self.count.add_(1)
        return self.lin(x) * self.scale + self.const, x.shape[0] * 2


def test_mlp_nested_modules(tmp_path):
    torch.manual_seed(0)
    m = DeepMLP().eval()
    path, ep = export_save(tmp_path, "mlp", m, (torch.randn(2, 8),))
    text, nodes, edges, clusters = check_against_fx(tmp_path, path, ep, "mlp")
    # module clusters: blocks, blocks.0 ... with their classes, nested
    labels = [c for c in clusters if c]
    for path_, cls in [("blocks", "Sequential"), ("blocks.0", "Block"), ("blocks.2.norm", "LayerNorm"),
                       ("head", "Linear")]:
        assert f"{path_}\n{cls}" in labels, labels
    assert "legend" in labels
    # labels: op and output type; colours by family
    lin = next(n for n in ep.graph.nodes if n.op == "call_function" and "linear" in str(n.target))
    want_shape = "f32[" + ", ".join(str(d) for d in lin.meta["val"].shape) + "]"
    assert nodes[lin.name]["label"] == f"{lin.name}\naten.linear\n{want_shape}"
    ln = next(n for n in ep.graph.nodes if "layer_norm" in str(n.target))
    assert nodes[lin.name]["fillcolor"] != nodes[ln.name]["fillcolor"]
    sm = next(n for n in ep.graph.nodes if "softmax" in str(n.target))
    assert len({nodes[n]["fillcolor"] for n in (lin.name, ln.name, sm.name)}) == 3
    # parameters vs user inputs
    assert nodes["x"]["shape"] == "ellipse"
    assert nodes["p_inp_weight"]["shape"] == "cylinder" and "parameter: inp.weight" in nodes["p_inp_weight"]["label"]

    # --collapse: modules deeper than the depth become boxes with op counts
    full = len(nodes)
    c1 = parse_dot(eir_dot(path, "--collapse", "1"))
    c0 = parse_dot(eir_dot(path, "--collapse", "0"))
    assert len(c0[0]) < len(c1[0]) < full
    boxes = {k: v for k, v in c1[0].items() if k.startswith("module:")}
    assert len(boxes) == 3 + 0  # blocks.0, blocks.1, blocks.2 (depth 2)
    stacks = [n.meta.get("nn_module_stack", {}) for n in ep.graph.nodes if n.op == "call_function"]
    for k, v in boxes.items():
        key = k[len("module:"):]
        want = sum(1 for s in stacks if key in s)
        assert v["label"].endswith(f"\n{want} ops"), (k, v["label"], want)
    boxes0 = {k for k in c0[0] if k.startswith("module:")}
    assert len(boxes0) == 3  # inp, blocks, head
    if HAVE_DOT:
        render(tmp_path, eir_dot(path, "--collapse", "0"), "mlp_c0")
    # edges between boxes, none into a box from itself
    e0 = {(a, b) for a, b, _ in c0[1] if not a.startswith("legend:")}
    blocks = next(k for k in boxes0 if "blocks" in k)
    assert any(b == blocks for _, b in e0) and any(a == blocks for a, _ in e0)
    assert (blocks, blocks) not in e0
    # --no-meta: no module clusters, no stack-trace tooltips
    nm = eir_dot(path, "--no-meta", "--no-legend")
    assert "File " not in nm and not [c for c in parse_dot(nm)[2] if c]


def test_conv_net_buffers_mutated(tmp_path):
    torch.manual_seed(0)
    m = ConvNet().train()
    path, ep = export_save(tmp_path, "conv", m, (torch.randn(2, 3, 8, 8),), decomp=True)
    text, nodes, edges, clusters = check_against_fx(tmp_path, path, ep, "conv")
    conv = next(n for n in ep.graph.nodes if "convolution" in str(n.target))
    assert nodes[conv.name]["label"] == f"{conv.name}\naten.convolution\nf32[2, 8, 8, 8]"
    assert nodes["b_bn_running_mean"]["shape"] == "cylinder"
    assert "buffer: bn.running_mean" in nodes["b_bn_running_mean"]["label"]
    assert nodes["b_bn_running_mean"]["fillcolor"] != nodes["p_conv_weight"]["fillcolor"]
    # buffer mutations are labelled dashed edges into the output; user outputs are not
    mut = [at for a, b, at in edges if b == "output" and at.get("style") == "dashed"]
    assert sorted(at["label"] for at in mut) == sorted(
        f"buffer mutation {s.target}" for s in ep.graph_signature.output_specs if s.kind.name == "BUFFER_MUTATION")
    assert len(mut) == 3
    # getitem nodes of the multi-output batch norm
    gi = [n.name for n in ep.graph.nodes if getattr(n.target, "__name__", "") == "getitem"]
    assert gi and all("getitem" in nodes[g]["label"] for g in gi)


def test_cond_clusters_dynamic(tmp_path):
    x = torch.randn(5, 3)
    dim = torch.export.Dim("n", min=2)
    path, ep = export_save(tmp_path, "cond", CondProg(), (x,), dynamic_shapes={"x": {0: dim}})
    text, nodes, edges, clusters = check_against_fx(tmp_path, path, ep, "cond")
    cond = next(n for n in ep.graph.nodes if "cond" in str(n.target))
    t_attr, f_attr = cond.args[1].target, cond.args[2].target
    assert f"{t_attr}\ncond: true branch ({cond.name})" in clusters
    assert f"{f_attr}\ncond: false branch ({cond.name})" in clusters
    assert any(n.startswith(t_attr + "/") for n in nodes) and any(n.startswith(f_attr + "/") for n in nodes)
    # the branches are linked to the cond node
    links = {(a, b) for a, b, at in edges if "ltail" in at}
    assert links == {(f"{t_attr}/output", cond.name), (f"{f_attr}/output", cond.name)}
    # symbolic sizes as torch prints them
    s = str(ep.graph_module.graph.find_nodes(op="placeholder")[0].meta["val"].shape[0])
    assert re.fullmatch(r"s\d+", s)
    assert nodes["x"]["label"] == f"x\nuser input\nf32[{s}, 3]"
    assert nodes[cond.name]["fillcolor"] != nodes[f"{t_attr}/sin"]["fillcolor"]


def test_buffers_constants_symint_output(tmp_path):
    torch.manual_seed(0)
    dim = torch.export.Dim("b", min=2)
    path, ep = export_save(tmp_path, "state", Stateful(), (torch.randn(3, 4),), decomp=True,
                           dynamic_shapes={"x": {0: dim}})
    text, nodes, edges, clusters = check_against_fx(tmp_path, path, ep, "state")
    kinds = {s.arg.name: s.kind.name for s in ep.graph_signature.input_specs}
    styles = {}
    for name, kind in kinds.items():
        styles.setdefault(kind, set()).add((nodes[name]["shape"], nodes[name].get("fillcolor")))
    assert {"PARAMETER", "BUFFER", "CONSTANT_TENSOR", "USER_INPUT"} <= set(styles)
    assert len({next(iter(v)) for v in styles.values()}) == len(styles)  # one style per kind
    const = next(k for k, v in kinds.items() if v == "CONSTANT_TENSOR")
    assert "constant: " in nodes[const]["label"]
    # the SymInt computed from the dynamic size
    sym = [n for n in ep.graph.nodes if n.op == "call_function" and isinstance(n.meta.get("val"), torch.SymInt)]
    assert sym and all(nodes[n.name]["label"].splitlines()[-1] == f"Sym({n.meta['val']})" for n in sym)
    mut = [at["label"] for a, b, at in edges if b == "output" and "label" in at]
    assert mut == ["buffer mutation count"]


@needs_graphviz
def test_escaping(tmp_path):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(3, 3)

        def forward(self, x):
            return self.fc(x).relu()

    ep = torch.export.export(M(), (torch.randn(2, 3),))
    weird = 'File "a\\b.py", line 1 <in> & \'q\'\n    x = "}{" \\n ;\\'
    for n in ep.graph.nodes:
        if n.op == "call_function":
            n.meta["stack_trace"] = weird
            st = n.meta.get("nn_module_stack")
            if st and len(st) > 1:
                k = list(st)[-1]
                st[k] = ('odd"path\\x<y>', 'my.mod.Weird"Class<&>')
    path = str(tmp_path / "esc.pt2")
    torch.export.save(ep, path)
    text = eir_dot(path)
    nodes, edges, clusters = parse_dot(text)
    relu = next(n.name for n in ep.graph.nodes if "relu" in str(n.target))
    assert nodes[relu]["tooltip"] == weird
    assert 'odd"path\\x<y>\nWeird"Class<&>' in clusters
    svg = render(tmp_path, text, "esc")
    root = ET.parse(svg).getroot()        # well-formed XML
    titles = [el.get("{http://www.w3.org/1999/xlink}title") for el in root.iter()]
    assert any(t and 'File "a\\b.py", line 1 <in> & \'q\'' in t for t in titles), titles
    texts = ["".join(el.itertext()) for el in root.iter("{http://www.w3.org/2000/svg}text")]
    assert 'odd"path\\x<y>' in texts and 'Weird"Class<&>' in texts


@needs_graphviz
def test_svg_option_and_errors(tmp_path):
    mlp = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "mlp.pt2")
    out = tmp_path / "m.svg"
    r = subprocess.run([eir_bin(), "dot", mlp, "--svg", str(out)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "", r.stderr
    ET.parse(out)
    # without Graphviz on PATH: a clear message, non-zero exit
    r = subprocess.run([eir_bin(), "dot", mlp, "--svg", str(tmp_path / "n.svg")], capture_output=True, text=True,
                       env={**os.environ, "PATH": str(tmp_path)})
    assert r.returncode == 1 and "install Graphviz" in r.stderr, r.stderr
    # -o writes the DOT text
    r = subprocess.run([eir_bin(), "dot", mlp, "-o", str(tmp_path / "m.dot")], capture_output=True, text=True)
    assert r.returncode == 0 and (tmp_path / "m.dot").read_text().startswith("digraph")
    for bad in (["--collapse", "x"], ["--collapse"], ["--bogus"]):
        r = subprocess.run([eir_bin(), "dot", mlp, *bad], capture_output=True, text=True)
        assert r.returncode == 2 and "eir dot --help" in r.stderr
    r = subprocess.run([eir_bin(), "dot", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--collapse DEPTH" in r.stdout and "--no-meta" in r.stdout
