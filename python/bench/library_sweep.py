"""Networks as torchvision and Hugging Face transformers build them, at their real sizes, eir
against torch eager: a sweep for performance cliffs (an operator on a slow path turns a whole
network slower than torch), beside the benchmark models of bench.py.

    python3 python/bench/library_sweep.py [--models a,b,...] [--runs N] [--base OLD/run_bench]
        [--backend] [--work DIR] [--keep]

Each model is built with random weights (seeded), exported with strict=False as users export
them, saved, and its outputs from eir (run_bench --serve, one thread) checked against torch's
(bench.check_outputs, deep tolerance); then eir and torch eager (the ExportedProgram's module
under inference_mode, one thread) run round-robin, one run each per round in an
order shuffled per round (bench.rotated, seeded), and the medians and
their ratio go to stdout as a markdown table. --base adds an older build of run_bench to the
rounds (the before / after table of a change). --backend also converts each program with `eir
convert --to backend` (the eir next to --exe), checks the Backend program's outputs against
torch's and times it in the same rounds. Needs torchvision 0.28 and transformers; a model whose
library is missing is skipped with a note.
"""
from __future__ import annotations

import argparse
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python", "zoo"))

import bench  # noqa: E402


def _tv(name, side=224, **kw):
    def build():
        import real_models

        tv = real_models.import_torchvision()
        return getattr(tv.models, name)(**kw).eval(), {"x": (1, 3, side, side)}
    return build


def _ids(vocab, n):
    import torch

    return torch.randint(0, vocab, (1, n), generator=torch.Generator().manual_seed(1))


def _hf(kind):
    def build():
        import real_models
        import torch

        tr = real_models.import_transformers()
        if kind == "bert":
            m = tr.BertModel(tr.BertConfig(num_hidden_layers=2))
            i = _ids(30522, 128)
            return m.eval(), {"input_ids": i, "attention_mask": torch.ones_like(i)}
        if kind == "gpt2":
            c = tr.GPT2Config(n_layer=2)
            c.use_cache = False
            return tr.GPT2LMHeadModel(c).eval(), {"input_ids": _ids(50257, 64)}
        if kind == "t5":
            c = tr.T5Config(num_layers=2, num_decoder_layers=2, use_cache=False)
            return (tr.T5ForConditionalGeneration(c).eval(),
                    {"input_ids": _ids(32128, 64), "decoder_input_ids": _ids(32128, 16)})
        if kind == "whisper":
            c = tr.WhisperConfig(encoder_layers=2, decoder_layers=2, d_model=384, encoder_attention_heads=6,
                                 decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536, use_cache=False)
            g = torch.Generator().manual_seed(2)
            return (tr.WhisperForConditionalGeneration(c).eval(),
                    {"input_features": torch.randn(1, 80, 3000, generator=g), "decoder_input_ids": _ids(51865, 8)})
        if kind == "vit":
            g = torch.Generator().manual_seed(2)
            return (tr.ViTModel(tr.ViTConfig(num_hidden_layers=4)).eval(),
                    {"pixel_values": torch.randn(1, 3, 224, 224, generator=g)})
        if kind == "llama":
            c = tr.LlamaConfig(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=2,
                               num_attention_heads=16, num_key_value_heads=4)
            c.use_cache = False
            return tr.LlamaForCausalLM(c).eval(), {"input_ids": _ids(32000, 64)}
        raise ValueError(kind)
    return build


MODELS = {
    "shufflenet_v2_x0_5": _tv("shufflenet_v2_x0_5"),
    "mobilenet_v3_small": _tv("mobilenet_v3_small"),
    "mnasnet0_5": _tv("mnasnet0_5"),
    "squeezenet1_1": _tv("squeezenet1_1"),
    "efficientnet_b0": _tv("efficientnet_b0"),
    "efficientnet_v2_s": _tv("efficientnet_v2_s"),
    "regnet_y_400mf": _tv("regnet_y_400mf"),
    "googlenet": _tv("googlenet", init_weights=False, aux_logits=False),
    "inception_v3": _tv("inception_v3", 299, init_weights=False, aux_logits=False),
    "densenet121": _tv("densenet121"),
    "resnet50": _tv("resnet50"),
    "resnext50_32x4d": _tv("resnext50_32x4d"),
    "wide_resnet50_2": _tv("wide_resnet50_2"),
    "alexnet": _tv("alexnet"),
    "vgg11": _tv("vgg11"),
    "convnext_tiny": _tv("convnext_tiny"),
    "swin_t": _tv("swin_t"),
    "vit_b_16": _tv("vit_b_16"),
    "hf_bert": _hf("bert"),
    "hf_gpt2": _hf("gpt2"),
    "hf_t5": _hf("t5"),
    "hf_whisper": _hf("whisper"),
    "hf_vit": _hf("vit"),
    "hf_llama": _hf("llama"),
}


class _Torch:
    def __init__(self, ep, kwargs):
        self.m, self.kw = ep.module(), kwargs

    def run(self):
        import torch

        with torch.inference_mode():
            t0 = time.perf_counter()
            self.m(**self.kw)
            return time.perf_counter() - t0

    def close(self):
        pass


def sweep_one(name, args, work):
    import numpy as np
    import torch

    torch.manual_seed(0)
    m, spec = MODELS[name]()
    g = torch.Generator().manual_seed(1)
    kwargs = {k: (torch.randn(*v, generator=g) if isinstance(v, tuple) else v) for k, v in spec.items()}
    with torch.no_grad():
        ep = torch.export.export(m, (), kwargs=kwargs, strict=False)
    pt2 = os.path.join(work, name + ".pt2")
    torch.export.save(ep, pt2)
    # run_bench takes the inputs in the order of the program's user inputs: the kwargs' order
    inputs = []
    for i, v in enumerate(kwargs.values()):
        f = os.path.join(work, f"{name}_in{i}.npy")
        np.save(f, v.numpy())
        inputs.append(f)
    prep = {"pt2": pt2, "inputs": inputs, "args": list(kwargs.values())}
    with torch.no_grad():
        want = [t.numpy() for t in torch.utils._pytree.tree_leaves(ep.module()(**kwargs))]
    runners = {"eir": bench.Eir(prep, 1, args.exe)}
    if args.base:
        runners["base"] = bench.Eir(prep, 1, args.base)
    if args.backend:
        be = os.path.join(work, name + ".backend.pt2")
        r = subprocess.run([os.path.join(os.path.dirname(args.exe), "eir"), "convert", "--to", "backend", pt2, be],
                           capture_output=True, text=True)
        if r.returncode != 0:
            runners.pop("eir").close()
            raise bench.BenchError("convert --to backend: " + (r.stderr.strip().splitlines() or ["failed"])[-1][:200])
        runners["backend"] = bench.Eir(dict(prep, pt2=be), 1, args.exe)
    runners["torch"] = _Torch(ep, kwargs)
    try:
        for c in ("eir", "base", "backend"):
            if c in runners:
                ok, why = bench.check_outputs(runners[c].outputs(len(want)), want, deep=True)
                if not ok:
                    raise bench.BenchError(f"{c}: WRONG OUTPUT: {why}")
        for r in runners.values():
            for _ in range(args.warmup):
                r.run()
        times = {c: [] for c in runners}
        for rnd in range(args.runs):
            for c in bench.rotated(list(runners), rnd):
                times[c].append(runners[c].run())
        return {c: statistics.median(ts) for c, ts in times.items()}
    finally:
        for r in runners.values():
            r.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", help="comma-separated subset of: " + ", ".join(MODELS))
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "run_bench"))
    ap.add_argument("--base", help="an older build's run_bench, timed in the same rounds")
    ap.add_argument("--backend", action="store_true",
                    help="also time each program converted with eir convert --to backend (its outputs checked)")
    ap.add_argument("--work", help="directory for the exported programs (default: a temporary one)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args(argv)
    names = args.models.split(",") if args.models else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error("unknown models: " + ", ".join(unknown))
    import torch

    torch.set_num_threads(1)
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    work = args.work or tempfile.mkdtemp(prefix="eir-sweep-")
    os.makedirs(work, exist_ok=True)
    head = "| model | eir | torch eager | eir / torch |" if not args.base else \
        "| model | eir before | eir after | speed-up | torch eager | before / torch | after / torch |"
    if args.backend and not args.base:
        head = "| model | eir | eir, Backend program | Backend / exported | torch eager | eir / torch |"
    print(head)
    print("|---|" + "---:|" * (head.count("|") - 2))
    try:
        for n in names:
            try:
                t = sweep_one(n, args, work)
            except ImportError as e:
                print(f"| {n} | skipped: {e} |")
                continue
            except bench.BenchError as e:
                print(f"| {n} | {e} |")
                continue
            ms = {c: v * 1e3 for c, v in t.items()}
            if args.backend and not args.base:
                print(f"| {n} | {ms['eir']:.2f} ms | {ms['backend']:.2f} ms | {ms['backend'] / ms['eir']:.2f}x | "
                      f"{ms['torch']:.2f} ms | {ms['eir'] / ms['torch']:.2f}x |", flush=True)
            elif args.base:
                print(f"| {n} | {ms['base']:.2f} ms | {ms['eir']:.2f} ms | {ms['base'] / ms['eir']:.2f}x | "
                      f"{ms['torch']:.2f} ms | {ms['base'] / ms['torch']:.2f}x | {ms['eir'] / ms['torch']:.2f}x |", flush=True)
            else:
                print(f"| {n} | {ms['eir']:.2f} ms | {ms['torch']:.2f} ms | {ms['eir'] / ms['torch']:.2f}x |", flush=True)
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
