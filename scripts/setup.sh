#!/usr/bin/env bash
# Install what eir needs on Debian 12 (run as root or with sudo available):
#   C build:  gcc, make, jsmn (JSON tokenizer), minizip + zlib (ZIP), OpenBLAS (BLAS + LAPACK);
#             oneDNN (libdnnl2: float32 products, loaded at run time when present, docs/GEMM.md;
#             libdnnl-dev: its header, for the convolution primitive of src/kernels/dnnl_conv.c);
#             clang (make test builds with it too; make fuzz needs it)
#   install:  pkg-config and cmake, to build the consumers of the installed library
#             (examples/consumer, tests/install/test_install.sh)
#   eir dot:  graphviz (`dot`, for --svg and python/tests/test_dot.py)
#   C tests:  the de_DE.UTF-8 locale (decimal comma), for tests/unit/test_locale.c
#   tests:    torch 2.13.0 (CPU wheel), numpy, pytest, expecttest for the live conformance suite;
#             torchvision 0.28.0, pillow and transformers 5.24.0 for the real-model suite
#             (python/tests/test_real_models.py); executorch 1.5.1, the oracle of `eir convert --to edge`
#             and `eir verify --dialect edge` (python/tests/test_to_edge.py, test_verify.py)
# Safe to run again: installed packages are skipped.
set -euo pipefail

DEB_PKGS=(build-essential clang libjsmn-dev libminizip-dev zlib1g-dev libopenblas-dev libdnnl2 libdnnl-dev locales pkg-config cmake graphviz)
missing=()
for p in "${DEB_PKGS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# A decimal-comma locale: tests/unit/test_locale.c loads, prints and runs programs
# under it (numbers must not follow LC_NUMERIC) and fails when none is installed.
if ! locale -a 2>/dev/null | grep -qixE 'de_DE\.utf-?8'; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    echo "setup: generating the de_DE.UTF-8 locale"
    $SUDO localedef -i de_DE -f UTF-8 de_DE.UTF-8
fi

PY=${PYTHON:-python3}
if [ "${EIR_SKIP_PYTHON:-0}" != 1 ]; then
    # torch is pinned exactly: a loose requirement would pull a multi-GB CUDA build.
    if ! $PY -c 'import torch, sys; sys.exit(0 if torch.__version__.startswith("2.13.0") else 1)' 2>/dev/null; then
        echo "setup: installing torch==2.13.0"
        $PY -m pip install -q torch==2.13.0
    fi
    # expecttest: torch's OpInfo database (the OpInfo sweep, python/ops/opinfo_sweep.py) imports it
    # pytest-xdist: `make test` runs the suite on two workers
    $PY -c 'import numpy, pytest, expecttest, xdist' 2>/dev/null || $PY -m pip install -q numpy pytest 'expecttest>=0.2' pytest-xdist
    # the real-model suite: torchvision without its dependencies (they would replace the
    # pinned CPU torch), pillow which it imports, and transformers, all pinned
    if ! $PY -c 'import importlib.metadata as m, sys; sys.exit(0 if m.version("torchvision") == "0.28.0" else 1)' 2>/dev/null; then
        echo "setup: installing torchvision==0.28.0 (--no-deps) and pillow"
        $PY -m pip install -q --no-deps torchvision==0.28.0
        $PY -m pip install -q pillow
    fi
    # executorch's to_edge() is the Edge dialect's oracle; it installs beside the pinned torch
    # (its requirements admit torch 2.13.0 as installed, and pull torchao)
    if ! $PY -c 'import importlib.metadata as m, sys; sys.exit(0 if m.version("executorch") == "1.5.1" else 1)' 2>/dev/null; then
        echo "setup: installing executorch==1.5.1"
        $PY -m pip install -q executorch==1.5.1
    fi
    if ! $PY -c 'import importlib.metadata as m, sys; sys.exit(0 if m.version("transformers") == "5.24.0" else 1)' 2>/dev/null; then
        echo "setup: installing transformers==5.24.0"
        $PY -m pip install -q transformers==5.24.0
    fi
fi
echo "setup: ok"
