"""Attention as run_decompositions() writes it, fused by to-backend into
eir_cpu::attention, against torch.

Small modules (strict=False and strict=True, as exported and after
run_decompositions()): multi-head self-attention through
F.scaled_dot_product_attention without a mask, with a float mask, causal,
and nn.TransformerEncoderLayer. For each program:
  - `eir run` gives torch's outputs (the runtime's own fusion on), the same
    bytes in three runs and at 1 and 2 threads;
  - the decomposed forms, through `eir convert --to backend --verify-each`,
    call torch.ops.eir_cpu.attention once per attention, with no _softmax
    or its guard left; `eir verify --dialect backend` holds; torch loads the
    converted program (eir.backend_ops registered) and runs it to the
    module's outputs, and so does eir.
And a chain that must stay: attention written by hand with torch.softmax (no
guard for rows masked entirely: torch gives NaN there, not 0) is not fused,
and eir gives torch's NaN rows.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import load_backend_ops, to_npy  # noqa: E402

backend_ops = load_backend_ops()        # registers torch.ops.eir_cpu.*

F = torch.nn.functional
ATTN = re.compile(r"torch\.ops\.eir_cpu\.attention\.default")
RTOL, ATOL = 1e-5, 1e-5


class SelfAttention(torch.nn.Module):
    def __init__(self, mode, d=32, heads=4):
        super().__init__()
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.out = torch.nn.Linear(d, d)
        self.mode, self.heads = mode, heads

    def forward(self, x, mask=None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if self.mode == "causal":
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class HandSoftmax(torch.nn.Module):
    """Attention written out: softmax without the guard of fully masked rows."""

    def forward(self, q, k, v, mask):
        w = torch.softmax(q @ k.transpose(-2, -1) * 0.5 + mask, dim=-1)
        return w @ v


def build(name):
    torch.manual_seed(0)
    x = torch.randn(2, 8, 32)
    if name == "plain":
        return SelfAttention("plain").eval(), (x,)
    if name == "mask":
        return SelfAttention("mask").eval(), (x, torch.randn(8, 8))
    if name == "causal":
        return SelfAttention("causal").eval(), (x,)
    if name == "encoder":
        layer = torch.nn.TransformerEncoderLayer(32, 4, dim_feedforward=64, dropout=0.0, batch_first=True)
        return layer.eval(), (x,)
    raise KeyError(name)


def save_inputs(args, tmp):
    paths = []
    for i, t in enumerate(args):
        p = os.path.join(tmp, f"in_{i}.npy")
        np.save(p, to_npy(t))
        paths.append(p)
    return paths


def eir_runs(eir, pt2, paths, tmp, threads, runs):
    out = os.path.join(tmp, f"out_{os.path.basename(pt2)}_{threads}")
    r = subprocess.run([eir, "run", pt2, *paths, "--out", out, "--threads", str(threads), "--runs", str(runs)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    res = []
    for k in range(1, runs + 1):
        d = os.path.join(out, f"run_{k}") if runs > 1 else out
        res.append(np.load(os.path.join(d, "output_0.npy")))
    return res


def export(module, args, strict, decomp, tmp):
    ep = torch.export.export(module, args, strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    path = os.path.join(tmp, "model.pt2")
    torch.export.save(ep, path)
    with torch.no_grad():
        want = to_npy(ep.module()(*args))
    return ep, path, want


@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("strict", [False, True], ids=["nonstrict", "strict"])
@pytest.mark.parametrize("name", ["plain", "mask", "causal", "encoder"])
def test_attention(eir, name, strict, decomp, tmp_path):
    tmp = str(tmp_path)
    module, args = build(name)
    ep, path, want = export(module, args, strict, decomp, tmp)
    paths = save_inputs(args, tmp)
    one = eir_runs(eir, path, paths, tmp, 1, 3)
    np.testing.assert_allclose(one[0], want, rtol=RTOL, atol=ATOL)
    for y in one[1:]:
        assert y.tobytes() == one[0].tobytes(), "runs differ"
    two = eir_runs(eir, path, paths, tmp, 2, 1)
    assert two[0].tobytes() == one[0].tobytes(), "1 and 2 threads differ"
    if not decomp:
        return
    # the decomposed chain becomes eir_cpu::attention
    dst = os.path.join(tmp, "backend.pt2")
    r = subprocess.run([eir, "convert", "--to", "backend", "--verify-each", "--print-after", "to-backend", path, dst],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    printed = r.stdout
    assert len(ATTN.findall(printed)) == 1, printed
    for left in ("aten._softmax.", "aten.any.", "aten.eq.", "aten.full_like."):
        assert left not in printed, left
    r = subprocess.run([eir, "verify", "--dialect", "backend", dst], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    ep2 = torch.export.load(dst)
    with torch.no_grad():
        np.testing.assert_allclose(to_npy(ep2.module()(*args)), want, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(eir_runs(eir, dst, paths, tmp, 1, 1)[0], want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
def test_hand_softmax_stays(eir, decomp, tmp_path):
    tmp = str(tmp_path)
    torch.manual_seed(1)
    q, k, v = torch.randn(1, 2, 4, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8)
    mask = torch.zeros(4, 6)
    mask[1, :] = float("-inf")           # query row 1 sees no key: NaN in torch
    args = (q, k, v, mask)
    ep, path, want = export(HandSoftmax(), args, False, decomp, tmp)
    assert np.isnan(want[0, :, 1]).all() and not np.isnan(np.delete(want, 1, axis=2)).any()
    dst = os.path.join(tmp, "backend.pt2")
    r = subprocess.run([eir, "convert", "--to", "backend", path, dst], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([eir, "print", dst], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and not ATTN.search(r.stdout), r.stdout
    got = eir_runs(eir, path, save_inputs(args, tmp), tmp, 1, 1)[0]
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)      # NaN where torch has NaN
