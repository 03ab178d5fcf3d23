"""The progress line of `eir` (tools/eir/progress.c): drawn on stderr when it
is a terminal, for writing an archive and for `run --repeat`, erased at the
end; nothing when stderr is a pipe, when TERM=dumb or EIR_NO_PROGRESS is set.
What the command writes (the archive, stdout) is the same either way."""
from __future__ import annotations

import os
import pty
import subprocess

import pytest

from conftest import eir_bin

torch = pytest.importorskip("torch")

ERASE = b"\r\x1b[K"


def run_tty(args, env_extra=None):
    """Run eir with stderr on a pseudo-terminal; returns (rc, stdout, tty bytes)."""
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm", EIR_PROGRESS_DELAY="0")
    env.pop("EIR_NO_PROGRESS", None)
    env.update(env_extra or {})
    p = subprocess.Popen([eir_bin(), *args], stdout=subprocess.PIPE, stderr=slave, env=env)
    os.close(slave)
    tty = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the child has closed its end
            break
        if not chunk:
            break
        tty += chunk
    out = p.stdout.read()
    p.wait()
    os.close(master)
    return p.returncode, out, tty


@pytest.fixture(scope="module")
def big_model(tmp_path_factory):
    """A program with 32 MB of weights: written in 16 MB steps."""
    torch.manual_seed(0)
    m = torch.nn.Linear(2048, 4096)
    ep = torch.export.export(m, (torch.randn(1, 2048),))
    path = tmp_path_factory.mktemp("progress") / "big.pt2"
    torch.export.save(ep, str(path))
    return path


def test_writing_shows_progress_on_a_terminal(big_model, tmp_path):
    (tmp_path / "tty").mkdir()
    (tmp_path / "pipe").mkdir()
    out_tty = tmp_path / "tty" / "copy.pt2"
    rc, out, tty = run_tty(["convert", str(big_model), str(out_tty)])
    assert rc == 0, tty
    assert b"writing:  " in tty and b"% (" in tty and b"of 33.6 MB)" in tty, tty
    assert tty.endswith(ERASE), tty
    assert out == b""
    # the same archive as without a terminal, byte for byte
    out_pipe = tmp_path / "pipe" / "copy.pt2"
    r = subprocess.run([eir_bin(), "convert", str(big_model), str(out_pipe)], capture_output=True)
    assert r.returncode == 0 and r.stderr == b"" and r.stdout == b""
    assert out_tty.read_bytes() == out_pipe.read_bytes()


@pytest.mark.parametrize("env", [{"TERM": "dumb"}, {"EIR_NO_PROGRESS": "1"}])
def test_quiet_when_asked(big_model, tmp_path, env):
    rc, out, tty = run_tty(["convert", str(big_model), str(tmp_path / "o.pt2")], env)
    assert rc == 0 and tty == b"", tty


def test_operations_shorter_than_the_delay_print_nothing(big_model, tmp_path):
    rc, out, tty = run_tty(["convert", str(big_model), str(tmp_path / "o.pt2")], {"EIR_PROGRESS_DELAY": "60"})
    assert rc == 0 and tty == b"", tty


def test_repeat_counts_runs(tmp_path):
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rc, out, tty = run_tty(["run", os.path.join(repo, "examples", "mlp.pt2"), "--repeat", "300"])
    assert rc == 0, tty
    assert b"running: " in tty and b" of 300" in tty, tty
    assert tty.endswith(ERASE), tty
    assert b"median " in out and b"running" not in out
