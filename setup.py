"""Build of the Python package eir: runs make for build/libeir.so.X.Y.Z and
build/eir, and puts them in the package as eir/libeir.so and eir/bin/eir.
Set MAKE to choose the make program, EIR_MAKEFLAGS for extra arguments
(e.g. "-j2")."""
import os
import re
import shlex
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

ROOT = os.path.dirname(os.path.abspath(__file__))


def _version():
    with open(os.path.join(ROOT, "include", "eir.h")) as f:
        h = f.read()
    return ".".join(re.search(r"#define EIR_VERSION_%s (\d+)" % k, h).group(1) for k in ("MAJOR", "MINOR", "PATCH"))


class BuildWithMake(build_py):
    def run(self):
        super().run()
        v = _version()
        so = os.path.join("build", "libeir.so." + v)
        make = os.environ.get("MAKE", "make")
        subprocess.check_call([make, *shlex.split(os.environ.get("EIR_MAKEFLAGS", "")), so, "build/eir"], cwd=ROOT)
        dest = os.path.join(self.build_lib, "eir")
        os.makedirs(os.path.join(dest, "bin"), exist_ok=True)
        shutil.copyfile(os.path.join(ROOT, so), os.path.join(dest, "libeir.so"))
        shutil.copyfile(os.path.join(ROOT, "build", "eir"), os.path.join(dest, "bin", "eir"))
        os.chmod(os.path.join(dest, "bin", "eir"), 0o755)


class BinaryDistribution(Distribution):
    """The wheel holds a shared library: platform-specific."""

    def has_ext_modules(self):
        return True


# setuptools' own build tree goes under build/python, apart from make's build/
setup(version=_version(), cmdclass={"build_py": BuildWithMake}, distclass=BinaryDistribution,
      options={"build": {"build_base": "build/python"}, "egg_info": {"egg_base": "build/python"}})
