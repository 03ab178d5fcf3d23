"""Writes through views, eir against torch: the quick form of
python/ops/alias_sweep.py (every alias overload eir runs, reached through
OpInfo samples and hand-written ones; writes through the op's result into a
user input, an intermediate and a buffer; `eir run --runs 3` against
ep.module() called three times; outputs, written inputs and buffers after
every run). Fails on a mismatch or eir error not listed in
python/ops/known_gaps_alias.txt, or on a listed gap that no longer fails.

The quick form (EIR_ALIAS_QUICK=1) sweeps each OpInfo in its first dtype on
3 of its samples, with the round-trip and strict forms for every 5th driver;
`python3 python/ops/alias_sweep.py` runs the whole sweep.
"""
from __future__ import annotations

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPS = os.path.join(REPO, "python", "ops")


@pytest.fixture(scope="module")
def alias_results(eir):
    pytest.importorskip("torch")
    if OPS not in sys.path:
        sys.path.insert(0, OPS)
    import alias_sweep
    before = os.environ.get("EIR_ALIAS_QUICK")
    os.environ["EIR_ALIAS_QUICK"] = "1"  # the spawned workers read it at import
    alias_sweep.QUICK = True
    try:
        results = alias_sweep.sweep(jobs=2, eir=eir)
    finally:
        alias_sweep.QUICK = before == "1"
        if before is None:
            del os.environ["EIR_ALIAS_QUICK"]
        else:
            os.environ["EIR_ALIAS_QUICK"] = before
    return alias_sweep, results


def test_alias_sweep(alias_results):
    sweep, results = alias_results
    problems = sweep.judge(results, sweep.load_gaps())
    assert not problems, "\n".join(problems)


def test_alias_sweep_reaches_the_overloads(alias_results):
    """Every alias overload the full sweep covers is in a program the quick one ran."""
    sweep, results = alias_results
    cov, views, may_copy = sweep.coverage(results)
    harness_errors = [f"{k} {d}: {r['msg']}" for (k, d), r in results.items() if r["msg"].startswith("harness")]
    assert not harness_errors, "\n".join(harness_errors)
    missing = sorted(set(sweep.expected_covered()) - set(cov))
    assert not missing, f"alias overloads no program ran: {missing}"
