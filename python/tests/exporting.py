"""Writing a test program the way users write theirs: torch.export.export with
strict or not, optionally run_decompositions(), saved with torch.export.save."""
from __future__ import annotations

import torch


def export_save(module, args, strict: bool, decomp: bool, path: str):
    """Export `module` on `args` (one tensor or a tuple), decompose it when `decomp`,
    save it to `path` and return the ExportedProgram that was saved."""
    ep = torch.export.export(module, args if isinstance(args, tuple) else (args,), strict=strict)
    if decomp:
        ep = ep.run_decompositions()
    torch.export.save(ep, path)
    return ep
