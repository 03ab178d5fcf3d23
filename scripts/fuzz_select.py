#!/usr/bin/env python3
"""Choose a fuzz target's committed corpus from a libFuzzer merge control file.

    fuzz_select.py CONTROL_FILE BUDGET_BYTES OUT_DIR

CONTROL_FILE is written by `TARGET -merge=1 -merge_control_file=F SEEDS DIR...`: the
inputs of the first directory (the seeds, which the repository rebuilds) are the
baseline; of the others, the inputs that reach coverage edges the baseline does not
are taken greedily, most new edges per byte first, until BUDGET_BYTES is spent or no
input adds an edge. They are copied into OUT_DIR (created; must not exist). Prints
what was kept and what was left out.
"""
import os
import shutil
import sys


def main():
    ctl, budget, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(ctl) as f:
        lines = f.read().splitlines()
    n, first = int(lines[0]), int(lines[1])
    files = lines[2:2 + n]
    cov, size = {}, {}
    for ln in lines[2 + n:]:
        parts = ln.split()
        if not parts:
            continue
        if parts[0] == "STARTED":
            size[int(parts[1])] = int(parts[2])
        elif parts[0] == "COV":
            cov[int(parts[1])] = set(map(int, parts[2:]))
    have = set()
    for i in range(first):
        have |= cov.get(i, set())
    base = len(have)
    cand = {i: cov[i] - have for i in range(first, n) if i in cov and cov[i] - have}
    chosen, spent = [], 0
    while cand:
        i = max(cand, key=lambda k: (len(cand[k]) / (size.get(k, 1) + 256), -size.get(k, 0), -k))
        if spent + size.get(i, 0) > budget:
            del cand[i]
            continue
        chosen.append(i)
        spent += size.get(i, 0)
        have |= cand.pop(i)
        cand = {k: c - have for k, c in cand.items() if c - have}
    missed = set()
    for i in range(first, n):
        missed |= cov.get(i, set()) - have
    os.makedirs(out)
    names = set()
    for i in chosen:
        name = os.path.basename(files[i])
        if name in names:
            continue
        names.add(name)
        shutil.copy(files[i], os.path.join(out, name))
    print("%d inputs, %d bytes; %d edges beyond the seeds kept, %d left out over the budget"
          % (len(names), spent, len(have) - base, len(missed)))


if __name__ == "__main__":
    main()
