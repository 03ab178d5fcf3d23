#!/usr/bin/env python3
"""pytest_times.py — seconds per test file from a pytest --junitxml report (setup, call
and teardown of every test, as pytest-xdist's workers spent them), longest first.

    python3 scripts/pytest_times.py build/pytest.xml [--top N]
"""
import argparse
import collections
import xml.etree.ElementTree as ET


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("xml")
    ap.add_argument("--top", type=int, default=0, help="only the N longest files")
    a = ap.parse_args()
    secs, tests = collections.Counter(), collections.Counter()
    for case in ET.parse(a.xml).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")  # python.tests.test_x[.Class]
        f = next((q for q in parts if q.startswith("test_")), case.get("classname") or "?")
        secs[f] += float(case.get("time", 0))
        tests[f] += 1
    rows = secs.most_common(a.top or None)
    print(f"{'file':40s} {'tests':>6s} {'seconds':>8s}")
    for f, s in rows:
        print(f"{f:40s} {tests[f]:6d} {s:8.1f}")
    print(f"{'total':40s} {sum(tests.values()):6d} {sum(secs.values()):8.1f}")


if __name__ == "__main__":
    main()
