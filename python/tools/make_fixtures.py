#!/usr/bin/env python3
"""Write a few small zoo variants (plus their expected texts) as C-test fixtures.

    python3 python/tools/make_fixtures.py tests/e2e/fixtures [NAME ...]

Same files as python/zoo/gen.py (V.pt2, V.graph.txt, V.code.txt,
V.program.txt, V.io.json, V.notes.txt); the large networks are left out so
the total stays well under ~2 MB. With NAMEs, only those programs are
written (the others stay as committed).

Dynamic programs (those python/tests/test_dynamic.py covers) also get the
shapes and refusals of their cases in V.cases.zip: shape<k>/in_<i>.npy with
torch's shape<k>/out_<i>.npy for each input torch accepts, and
refuse<k>/in_<i>.npy with refuse<k>/torch.txt (torch's message) for each it
refuses, so tests/run_fixtures.py proves them without torch.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "zoo"))
import gen  # noqa: E402

FIXTURE_PROGRAMS = [
    "mlp", "cond", "dynamic_shapes", "buffer_mutation", "custom_op", "dtype_bf16",
    "lifted_constants", "tied_weights", "nonzero_check",
    "static_values", "optional_inputs", "dataclass_input",
    "dtype_f16", "dtype_int", "dtype_bool",
    "storage", "while_loop", "map", "scan", "nested_cond",
    "custom_nonzero", "custom_args", "custom_mutation", "effects", "buffer_reassign", "input_mutation",
    "derived_dims", "derived_only", "sym_exprs", "nonzero_dyn", "cond_unbacked", "while_count", "dataclass_dyn",
]
MAX_BYTES = 2 * 1024 * 1024


def write_custom_meta(out):
    """custom_meta.pt2: mlp.pt2 rewritten by Python's zipfile (no 64-byte
    alignment, no zip64 records) with node metadata torch prints specially:
    meta["custom"] annotations (values cut at 40 characters) and a node without
    a stack trace. Expected texts come from torch loading the rewritten file."""
    import json
    import zipfile

    import torch

    src = zipfile.ZipFile(os.path.join(out, "mlp.pt2"))
    dst_path = os.path.join(out, "custom_meta.pt2")
    custom = json.dumps({"pp_stage": 0, "note": "an annotation value longer than forty characters",
                         "tags": [1, 2.5, None, True]})
    with zipfile.ZipFile(dst_path, "w", zipfile.ZIP_STORED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            name = "custom_meta/" + info.filename.split("/", 1)[1]
            if name.endswith("models/model.json"):
                m = json.loads(data)
                nodes = m["graph_module"]["graph"]["nodes"]
                for n in nodes[1:3]:
                    n["metadata"]["custom"] = custom
                nodes[3]["metadata"].pop("stack_trace", None)
                data = json.dumps(m).encode()
            dst.writestr(zipfile.ZipInfo(name), data)
    ep = torch.export.load(dst_path)
    for form, text in gen.texts(ep).items():
        with open(os.path.join(out, f"custom_meta.{form}.txt"), "w") as fh:
            fh.write(text)
    with open(os.path.join(out, "custom_meta.io.json"), "w") as fh:
        json.dump(gen.io_desc(ep), fh, indent=1)


def write_run_data(out, variants):
    """V.in_<i>.npy (the example inputs, flattened user inputs without burned-in
    constants) and V.out_<i>.npy (ep.module() on them), so the torch-free checks
    can run the fixtures too. bfloat16 is stored as float32 (exact).

    Stateful programs (zoo.STATEFUL) also get the torch module's results over
    three runs in a row: V.run_<r>.out_<i>.npy, V.run_<r>.input_<i>.npy (the
    inputs it mutates, after run r) and V.run_<r>.state.<fqn>.npy (the buffers
    it mutates)."""
    import numpy as np
    import torch

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
    from conftest import to_npy as _to_numpy  # the run test's own conventions
    from test_run import _flat_inputs
    from test_state import torch_runs

    import zoo

    for v in variants:
        path = os.path.join(out, v + ".pt2")
        if not os.path.exists(path):
            continue
        _, args, kwargs, _ = zoo.build(v.split(".")[0])
        ep = torch.export.load(path)
        for i, x in enumerate(_flat_inputs(ep, args, kwargs or {})):
            np.save(os.path.join(out, f"{v}.in_{i}.npy"),
                    _to_numpy(x) if isinstance(x, torch.Tensor) else np.array(x, dtype=np.int64))
        outs = torch.utils._pytree.tree_leaves(ep.module()(*args, **(kwargs or {})))
        for i, y in enumerate(outs):
            np.save(os.path.join(out, f"{v}.out_{i}.npy"),
                    _to_numpy(y) if isinstance(y, torch.Tensor) else np.array(y))
        if v.split(".")[0] in zoo.STATEFUL:
            _, runs = torch_runs(v.split(".")[0], ep)
            for r, res in enumerate(runs, 1):
                for i, y in enumerate(res["outputs"]):
                    np.save(os.path.join(out, f"{v}.run_{r}.out_{i}.npy"), y)
                for i, y in res["inputs"].items():
                    np.save(os.path.join(out, f"{v}.run_{r}.input_{i}.npy"), y)
                for q, y in res["state"].items():
                    np.save(os.path.join(out, f"{v}.run_{r}.state.{q}.npy"), y)


def write_case_data(out, variants):
    """The accepted shapes and the refusals of test_dynamic's cases, one zip per variant."""
    import io
    import zipfile

    import numpy as np
    import torch

    from test_dynamic import CASES, _torch_refusal
    from conftest import to_npy as _to_numpy
    from test_run import _flat_inputs

    def npy(x):
        b = io.BytesIO()
        np.save(b, _to_numpy(x) if isinstance(x, torch.Tensor) else np.array(x, dtype=np.int64))
        return b.getvalue()

    for v in variants:
        name = v.split(".")[0]
        path = os.path.join(out, v + ".pt2")
        if name not in CASES or not os.path.exists(path):
            continue
        ep = torch.export.load(path)
        mod = ep.module()
        with zipfile.ZipFile(os.path.join(out, v + ".cases.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            def put(name_, data):
                info = zipfile.ZipInfo(name_, date_time=(2000, 1, 1, 0, 0, 0))  # reproducible bytes
                info.compress_type = zipfile.ZIP_DEFLATED
                z.writestr(info, data)

            k = 0
            for args, kwargs in CASES[name]["ok"]:
                if _torch_refusal(mod, args, kwargs) is not None:
                    continue
                for i, x in enumerate(_flat_inputs(ep, args, kwargs)):
                    put(f"shape{k}/in_{i}.npy", npy(x))
                for i, y in enumerate(torch.utils._pytree.tree_leaves(mod(*args, **kwargs))):
                    put(f"shape{k}/out_{i}.npy", npy(y))
                k += 1
            for k, (args, kwargs, _) in enumerate(CASES[name]["refuse"]):
                msg = _torch_refusal(mod, args, kwargs)
                assert msg is not None, f"{v}: torch accepts refusal case {k}"
                for i, x in enumerate(_flat_inputs(ep, args, kwargs)):
                    put(f"refuse{k}/in_{i}.npy", npy(x))
                put(f"refuse{k}/torch.txt", msg.splitlines()[0] + "\n")


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    names = argv[1:] or FIXTURE_PROGRAMS
    unknown = [n for n in names if n not in FIXTURE_PROGRAMS]
    if unknown:
        print(f"not fixture programs: {', '.join(unknown)}", file=sys.stderr)
        return 2
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
    s = gen.generate(out, names)
    if "mlp" in names:
        write_custom_meta(out)
    variants = [v for p in names for v in (p, p + ".decomp")]
    write_run_data(out, variants)
    write_case_data(out, variants)
    total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out)
                if f.endswith(gen.SUFFIXES))
    print(f"wrote {len(s['ok'])} variants to {out} ({total / 1024:.0f} KiB) in {s['seconds']:.1f}s")
    if s["failed"]:
        for k, v in s["failed"].items():
            print(f"FAILED {k}: {v.splitlines()[0] if v else ''}", file=sys.stderr)
        return 1
    if total > MAX_BYTES:
        print(f"warning: fixtures total {total} bytes > {MAX_BYTES}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
