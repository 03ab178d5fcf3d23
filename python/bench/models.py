"""The benchmark models, built from torch.nn, torchvision and the modules below
with seeded random weights (nothing is downloaded).

    build(name, full=False) -> (module in eval mode, args tuple)

MODELS lists the names in report order. The two transformer stacks have 2
layers by default (BERT-base and GPT-2-small widths: 768 wide, 12 heads) so
that one benchmark run fits a small CPU; full=True gives the 12 layers of
the originals.
"""
from __future__ import annotations

import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "zoo"))


def _torchvision():
    from real_models import import_torchvision  # imports torchvision with register_fake off

    return import_torchvision()


# ---------------------------------------------------------------- GPT-2 style decoder

class GPT2Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT2(nn.Module):
    """GPT-2 small's shapes: vocabulary 50257, 768 wide, 12 heads, tied LM head."""

    def __init__(self, layers, vocab=50257, d=768, heads=12, ctx=1024):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(GPT2Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)

    def forward(self, idx):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for blk in self.blocks:
            x = blk(x)
        return F.linear(self.ln_f(x), self.wte.weight)


# ---------------------------------------------------------------- Llama-style block

class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d) + 0.1 * torch.randn(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class LlamaBlock(nn.Module):
    """One decoder layer: RMSNorm, rotary position embedding, grouped-query
    attention (32 query heads over 8 key/value heads), SwiGLU feed-forward."""

    def __init__(self, d=2048, heads=32, kv_heads=8, hidden=5632, max_pos=2048, theta=10000.0):
        super().__init__()
        self.heads, self.kv_heads, self.hd = heads, kv_heads, d // heads
        self.attn_norm = RMSNorm(d)
        self.wq = nn.Linear(d, heads * self.hd, bias=False)
        self.wk = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wv = nn.Linear(d, kv_heads * self.hd, bias=False)
        self.wo = nn.Linear(heads * self.hd, d, bias=False)
        self.ffn_norm = RMSNorm(d)
        self.w1 = nn.Linear(d, hidden, bias=False)
        self.w3 = nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)
        inv = 1.0 / theta ** (torch.arange(0, self.hd, 2).float() / self.hd)
        ang = torch.outer(torch.arange(max_pos).float(), inv)
        ang = torch.cat((ang, ang), dim=-1)
        self.register_buffer("cos", ang.cos(), persistent=False)
        self.register_buffer("sin", ang.sin(), persistent=False)

    def forward(self, x):
        b, t, _ = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(b, t, self.heads, self.hd).transpose(1, 2)
        k = self.wk(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        v = self.wv(h).view(b, t, self.kv_heads, self.hd).transpose(1, 2)
        cos, sin = self.cos[:t], self.sin[:t]
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        rep = self.heads // self.kv_heads
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(self.hd)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, self.heads * self.hd)
        x = x + self.wo(y)
        h = self.ffn_norm(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


# ---------------------------------------------------------------- small ones

class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(128, 256, num_layers=2, batch_first=True)
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[:, -1])


class MLP(nn.Module):
    """Batch 1, three small layers: the time is the runtime's per-op overhead."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


# ---------------------------------------------------------------- the table

def _vision(name):
    def build(full):
        tv = _torchvision()
        torch.manual_seed(0)
        m = getattr(tv.models, name)(weights=None)
        return m, (torch.randn(1, 3, 224, 224),)
    return build


def _bert(full):
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(768, 12, dim_feedforward=3072, dropout=0.0, activation="gelu", batch_first=True)
    m = nn.TransformerEncoder(layer, num_layers=12 if full else 2, enable_nested_tensor=False)
    return m, (torch.randn(1, 128, 768),)


def _gpt2(full):
    torch.manual_seed(0)
    return GPT2(12 if full else 2), (torch.randint(0, 50257, (1, 64)),)


def _llama(full):
    torch.manual_seed(0)
    return LlamaBlock(), (torch.randn(1, 64, 2048),)


def _lstm(full):
    torch.manual_seed(0)
    return LSTMNet(), (torch.randn(1, 32, 128),)


def _mlp(full):
    torch.manual_seed(0)
    return MLP(), (torch.randn(1, 64),)


# name -> (description, builder)
MODELS = {
    "resnet18": ("torchvision ResNet-18, 1x3x224x224", _vision("resnet18")),
    "mobilenet_v2": ("torchvision MobileNetV2, 1x3x224x224", _vision("mobilenet_v2")),
    "mobilenet_v3_large": ("torchvision MobileNetV3-Large, 1x3x224x224", _vision("mobilenet_v3_large")),
    "bert_encoder": ("nn.TransformerEncoder 768 wide, 12 heads, FF 3072, {layers} layers, seq 128", _bert),
    "gpt2_decoder": ("GPT-2-small-shaped decoder, {layers} layers, vocab 50257, prefill 64 tokens", _gpt2),
    "llama_block": ("Llama-style block, 2048 wide, 32 q / 8 kv heads, SwiGLU 5632, RMSNorm, RoPE, 64 tokens", _llama),
    "lstm": ("nn.LSTM 128->256, 2 layers, batch 1, 32 steps, linear head", _lstm),
    "mlp": ("MLP 64-128-128-10, batch 1", _mlp),
}


def describe(name, full=False):
    return MODELS[name][0].format(layers=12 if full else 2)


def build(name, full=False):
    m, args = MODELS[name][1](full)
    return m.eval(), args
