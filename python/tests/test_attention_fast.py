"""Attention's float32 fast path (nn.c sdpa_heads: softmax rows through
fast.c's vectorised exp, q / k / v / output read and written in place when
their rows are unit-stride) against torch: causal and not, row lengths that
are and are not multiples of the vector width, q / k / v as views of one
projection (the layout nn.MultiheadAttention exports), as transposed views
(not unit-stride: copied first), grouped-query attention, boolean and float
masks, sequences long enough that the query rows go in several blocks;
exported with strict=False and strict=True, as exported and decomposed. 2
threads give one thread's bytes.
"""
from __future__ import annotations

import os
import subprocess

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from tolerances import tolerance  # noqa: E402

F = torch.nn.functional


class Plain(torch.nn.Module):
    def __init__(self, causal):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)


class Projected(torch.nn.Module):
    """q, k, v as strided views of one (L, 3 * H * E) projection, the output permuted back."""

    def __init__(self, causal, heads=4, e=24):
        super().__init__()
        self.causal, self.h, self.e = causal, heads, e

    def forward(self, x):
        L = x.shape[0]
        q, k, v = x.view(L, 3, self.h, self.e).permute(1, 2, 0, 3).unbind(0)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal)
        return y.permute(1, 0, 2).reshape(L, self.h * self.e)


class Transposed(torch.nn.Module):
    """k and v handed over as transposes of (E, S) tensors: rows not unit-stride."""

    def forward(self, q, kt, vt):
        return F.scaled_dot_product_attention(q, kt.transpose(-1, -2), vt.transpose(-1, -2))


class Masked(torch.nn.Module):
    """a boolean mask (True: attend), as Hugging Face models build it, or a float one (added)"""

    def forward(self, q, k, v, m):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=m)


class Grouped(torch.nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)


def _cases():
    g = torch.Generator().manual_seed(3)
    r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
    return [
        ("plain", Plain(False), (r(1, 4, 37, 24), r(1, 4, 37, 24), r(1, 4, 37, 24))),
        ("plain-causal", Plain(True), (r(2, 3, 64, 16), r(2, 3, 64, 16), r(2, 3, 64, 16))),
        ("cross-causal", Plain(True), (r(1, 2, 20, 8), r(1, 2, 33, 8), r(1, 2, 33, 12))),
        ("projected", Projected(False), (r(50, 3 * 4 * 24),)),
        ("projected-causal", Projected(True), (r(50, 3 * 4 * 24),)),
        ("transposed", Transposed(), (r(1, 2, 19, 8), r(1, 2, 8, 23), r(1, 2, 8, 23))),
        ("grouped", Grouped(), (r(1, 8, 17, 16), r(1, 2, 17, 16), r(1, 2, 17, 16))),
        # long sequences: the query rows in several blocks (nn.c sdpa_rows: 256 KiB of scores each)
        ("long", Plain(False), (r(1, 2, 700, 16), r(1, 2, 600, 16), r(1, 2, 600, 16))),
        ("long-causal", Plain(True), (r(1, 1, 640, 8), r(1, 1, 640, 8), r(1, 1, 640, 8))),
        # boolean masks: one broadcast over heads with whole rows masked out (those rows give 0),
        # one per head; a float mask over several blocks of rows
        ("bool-mask", Masked(), (r(1, 3, 29, 16), r(1, 3, 31, 16), r(1, 3, 31, 16),
                                 (torch.arange(31)[None, None, None, :] <= torch.arange(29)[None, None, :, None] - 3))),
        ("bool-mask-heads", Masked(), (r(2, 2, 19, 8), r(2, 2, 19, 8), r(2, 2, 19, 8),
                                       torch.rand(2, 2, 19, 19, generator=g) > 0.3)),
        ("float-mask-long", Masked(), (r(1, 1, 520, 8), r(1, 1, 520, 8), r(1, 1, 520, 8), r(1, 1, 520, 520))),
    ]


def _run(eir, path, args, d, threads):
    os.makedirs(d, exist_ok=True)
    files = []
    for i, a in enumerate(args):
        f = os.path.join(d, f"in{i}.npy")
        np.save(f, a.numpy())
        files.append(f)
    r = subprocess.run([eir, "run", path, *files, "--out", d, "--threads", str(threads)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return np.load(os.path.join(d, "output_0.npy"))


@pytest.mark.parametrize("decomp", [False, True], ids=["exported", "decomp"])
@pytest.mark.parametrize("strict", [False, True])
def test_attention_matches_torch(eir, tmp_path, strict, decomp):
    rtol, atol = tolerance(torch.float32)
    for name, m, args in _cases():
        ep = torch.export.export(m, args, strict=strict)
        if decomp:
            ep = ep.run_decompositions()
        path = str(tmp_path / f"{name}.pt2")
        torch.export.save(ep, path)
        with torch.inference_mode():
            want = ep.module()(*args).numpy()
        one = _run(eir, path, args, str(tmp_path / name / "t1"), 1)
        np.testing.assert_allclose(one, want, rtol=rtol, atol=atol, err_msg=name)
        two = _run(eir, path, args, str(tmp_path / name / "t2"), 2)
        assert one.tobytes() == two.tobytes(), f"{name}: 2 threads differ from one"
