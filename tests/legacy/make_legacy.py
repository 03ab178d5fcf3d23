#!/usr/bin/env python3
"""Write archives in the layouts older torch wrote, from torch 2.13 exports.

    python3 tests/legacy/make_legacy.py [OUT_DIR]      (default: tests/legacy)

For each zoo program P of PROGRAMS (as exported; those of DECOMPOSED also
after run_decompositions(): P.<layout>.decomp):

- P.flat.pt2 — torch 2.1 - 2.7 (`torch.export.save` before the PT2 archive): a
  flat ZIP written by Python's zipfile, records serialized_exported_program.json,
  serialized_state_dict.pt, serialized_constants.pt, serialized_example_inputs.pt
  (torch.save archives of the state dict, the constants and the example inputs)
  and version ("8.20"), written as that era's save did from
  torch._export.serde.serialize.serialize(ep).
- P.v28.pt2 — torch 2.8: the PT2 archive, but with the weights and constants in
  one torch.save record each, data/weights/model.pt and data/constants/model.pt,
  and no payload configs.

torch 2.13's torch.export.load still reads both (its legacy branches); the
expected texts (V.graph.txt, V.code.txt, V.program.txt), V.io.json and the
run data (V.in_*.npy, V.out_*.npy, the stateful programs' V.run_*) come from
torch loading each written file, so tests/run_fixtures.py checks eir on them
without torch:

    python3 tests/run_fixtures.py tests/legacy
"""
import io
import json
import os
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "python", "zoo"))
sys.path.insert(0, os.path.join(REPO, "python", "tools"))
sys.path.insert(0, os.path.join(REPO, "python", "tests"))

import torch  # noqa: E402
from torch._export.serde.serialize import serialize  # noqa: E402

import gen  # noqa: E402
import numpy as np  # noqa: E402
import zoo  # noqa: E402
from conftest import to_npy  # noqa: E402
from test_run import _flat_inputs  # noqa: E402
from test_state import torch_runs  # noqa: E402

PROGRAMS = ["mlp", "tied_weights", "lifted_constants", "buffer_mutation", "storage", "dynamic_shapes"]
DECOMPOSED = ["mlp", "buffer_mutation"]   # also written after run_decompositions()
ZI = (1980, 1, 1, 0, 0, 0)


def write_flat(ep, path):
    art = serialize(ep)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(zipfile.ZipInfo("serialized_exported_program.json", ZI), art.exported_program)
        z.writestr(zipfile.ZipInfo("serialized_state_dict.pt", ZI), art.state_dict)
        z.writestr(zipfile.ZipInfo("serialized_constants.pt", ZI), art.constants)
        z.writestr(zipfile.ZipInfo("serialized_example_inputs.pt", ZI), art.example_inputs)
        z.writestr(zipfile.ZipInfo("version", ZI), json.loads(art.exported_program)["schema_version"]["major"].__str__()
                   + "." + str(json.loads(art.exported_program)["schema_version"]["minor"]))


def write_v28(ep, path):
    art = serialize(ep)
    root = os.path.basename(path)[:-4]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src.pt2")
        torch.export.save(ep, src)
        with zipfile.ZipFile(src) as s, zipfile.ZipFile(path, "w") as z:
            z.writestr(zipfile.ZipInfo(f"{root}/data/weights/model.pt", ZI), art.state_dict)
            z.writestr(zipfile.ZipInfo(f"{root}/data/constants/model.pt", ZI), art.constants)
            for info in s.infolist():
                rel = info.filename.split("/", 1)[1]
                if rel.startswith("data/weights/") or rel.startswith("data/constants/"):
                    continue
                z.writestr(zipfile.ZipInfo(f"{root}/{rel}", ZI), s.read(info.filename))


def write_run_data(out, v, ep):
    """V.in_<i>.npy, V.out_<i>.npy (ep.module() on the example inputs) and, for
    stateful programs, V.run_<r>.* over three runs (as make_fixtures.py writes)."""
    name = v.split(".")[0]
    _, args, kwargs, _ = zoo.build(name)
    for i, x in enumerate(_flat_inputs(ep, args, kwargs or {})):
        np.save(os.path.join(out, f"{v}.in_{i}.npy"), to_npy(x) if isinstance(x, torch.Tensor) else np.array(x))
    _, args, kwargs, _ = zoo.build(name)
    outs = torch.utils._pytree.tree_leaves(ep.module()(*args, **(kwargs or {})))
    for i, y in enumerate(outs):
        np.save(os.path.join(out, f"{v}.out_{i}.npy"), to_npy(y) if isinstance(y, torch.Tensor) else np.array(y))
    if name in zoo.STATEFUL:
        _, runs = torch_runs(name, ep)
        for r, res in enumerate(runs, 1):
            for i, y in enumerate(res["outputs"]):
                np.save(os.path.join(out, f"{v}.run_{r}.out_{i}.npy"), y)
            for i, y in res["inputs"].items():
                np.save(os.path.join(out, f"{v}.run_{r}.input_{i}.npy"), y)
            for q, y in res["state"].items():
                np.save(os.path.join(out, f"{v}.run_{r}.state.{q}.npy"), y)


def main(argv):
    out = argv[1] if len(argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    names = []
    for name in PROGRAMS:
        ep = gen.export_program(name)
        forms = [(name, ep)] + ([(name + ".decomp", ep.run_decompositions())] if name in DECOMPOSED else [])
        for base, e in forms:
            for kind, write in (("flat", write_flat), ("v28", write_v28)):
                parts = base.split(".")
                v = ".".join([parts[0], kind] + parts[1:])   # mlp.flat, mlp.flat.decomp
                path = os.path.join(out, v + ".pt2")
                write(e, path)
                ep2 = torch.export.load(path)
                for form, text in gen.texts(ep2).items():
                    with open(os.path.join(out, f"{v}.{form}.txt"), "w", encoding="utf-8", newline="") as f:
                        f.write(text)
                with open(os.path.join(out, v + ".io.json"), "w", encoding="utf-8") as f:
                    json.dump(gen.io_desc(ep2), f, indent=1)
                    f.write("\n")
                write_run_data(out, v, torch.export.load(path))
                names.append(v)
    total = sum(os.path.getsize(os.path.join(out, f)) for f in os.listdir(out))
    print(f"wrote {len(names)} legacy archives and their expectations to {out} ({total} bytes in the folder)")


if __name__ == "__main__":
    main(sys.argv)
