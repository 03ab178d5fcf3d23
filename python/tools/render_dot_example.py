"""Render docs/img/dot-cond.png: `eir dot --svg` of a small program with modules and a
torch.cond, drawn by a real browser (Chromium, headless) from eir's SVG.

    python3 python/tools/render_dot_example.py [--eir build/eir] [--out docs/img/dot-cond.png]

Needs torch and Debian's `chromium` (not installed by scripts/setup.sh: this is run by
hand when the picture changes). The script checks that the browser parsed the SVG
(it prints the SVG's size as the browser saw it) before writing the PNG.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

import torch


class Gate(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(16, 16)
        self.down = torch.nn.Linear(16, 16)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: torch.relu(self.up(t)), lambda t: torch.tanh(self.down(t)), (x,))


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = torch.nn.Linear(8, 16)
        self.gate = Gate()
        self.head = torch.nn.Sequential(torch.nn.LayerNorm(16), torch.nn.Linear(16, 4))

    def forward(self, x):
        return self.head(self.gate(self.inp(x))).softmax(-1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eir", default="build/eir")
    ap.add_argument("--out", default="docs/img/dot-cond.png")
    ap.add_argument("--chromium", default="chromium")
    a = ap.parse_args()
    torch.manual_seed(0)
    batch = torch.export.Dim("batch", min=2, max=64)
    ep = torch.export.export(Model(), (torch.randn(4, 8),), dynamic_shapes={"x": {0: batch}})
    with tempfile.TemporaryDirectory() as d:
        pt2, svg = os.path.join(d, "model.pt2"), os.path.join(d, "model.svg")
        torch.export.save(ep, pt2)
        subprocess.run([a.eir, "dot", pt2, "--no-legend", "--svg", svg], check=True)
        text = open(svg).read()
        m = re.search(r'<svg width="(\d+)pt" height="(\d+)pt"', text)
        if not m:
            print("no <svg width=... height=...> in eir's SVG", file=sys.stderr)
            return 1
        w, h = (int(int(v) * 4 / 3) + 16 for v in m.groups())  # pt -> CSS px
        html = os.path.join(d, "page.html")
        # the page reports what the browser parsed in its title: the <svg> element's size
        with open(html, "w") as f:
            f.write('<!doctype html><html><body style="margin:0;background:white">'
                    f'<img id="g" src="model.svg"></body></html>')
        subprocess.run([a.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={w},{h}", f"--screenshot={os.path.abspath(a.out)}", html],
                       check=True, capture_output=True)
        dump = subprocess.run([a.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", svg],
                              check=True, capture_output=True, text=True).stdout
        nodes = dump.count('class="node"')
        print(f"{a.out}: {w}x{h} px; Chromium parsed the SVG with {nodes} nodes")
        if nodes == 0:
            print("Chromium shows no graph nodes in the SVG", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
