#!/bin/sh
# test_install.sh — `make install` into a temporary prefix, then build the two
# consumers of examples/consumer against the installed files only (pkg-config
# for the C one, CMake's find_package(eir) for the C++ one, each linked to
# the shared and to the static library), run them on examples/mlp.pt2 and
# compare their outputs with `eir run` on the same inputs. Also: the files and
# symlinks installed, the soname, the shared library's exports, DESTDIR, and
# `make uninstall`. Run from the repository root after `make`.
set -eu
MAKE=${MAKE:-make}
CC=${CC:-cc}
PYTHON=${PYTHON:-python3}
src=$(pwd)
model=$src/examples/mlp.pt2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/eir_install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "test_install: FAIL: $*" >&2; exit 1; }

major=$(sed -n 's/^#define EIR_VERSION_MAJOR \([0-9]*\)$/\1/p' include/eir.h)
minor=$(sed -n 's/^#define EIR_VERSION_MINOR \([0-9]*\)$/\1/p' include/eir.h)
patch=$(sed -n 's/^#define EIR_VERSION_PATCH \([0-9]*\)$/\1/p' include/eir.h)
version=$major.$minor.$patch

$MAKE -s install PREFIX="$prefix" >/dev/null

# ---- the files
for f in bin/eir include/eir.h lib/libeir.a lib/libeir.so.$version lib/pkgconfig/eir.pc \
         lib/cmake/eir/eirConfig.cmake lib/cmake/eir/eirConfigVersion.cmake; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done
[ "$(readlink "$prefix/lib/libeir.so.$major")" = "libeir.so.$version" ] || fail "libeir.so.$major does not link to libeir.so.$version"
[ "$(readlink "$prefix/lib/libeir.so")" = "libeir.so.$major" ] || fail "libeir.so does not link to libeir.so.$major"
soname=$(readelf -d "$prefix/lib/libeir.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libeir.so.$major" ] || fail "soname is '$soname', expected libeir.so.$major"
scripts/check_exports.sh "$prefix/lib/libeir.so.$version" include/eir.h
scripts/check_exports.sh "$prefix/lib/libeir.a" include/eir.h
[ "$("$prefix/bin/eir" --version)" = "eir $version" ] || fail "eir --version prints '$("$prefix/bin/eir" --version)', expected 'eir $version'"

# ---- the installed header compiles as C++ (and as C11), warning-free
cat > "$tmp/hdr.c" <<'C'
#include <eir.h>
int main(void) {
    int64_t sizes[2] = {2, 3};
    float data[6] = {0};
    eir_tensor_view v = {data, EIR_F32, 2, sizes, 0};
    return eir_tensor_numel(&v) == 6 && eir_tensor_is_contiguous(&v) ? 0 : 1;
}
C
sed 's/, 0};/, nullptr};/; s/main(void)/main()/' "$tmp/hdr.c" > "$tmp/hdr.cc"
for cxx in ${CXX:-g++} clang++; do
    command -v $cxx >/dev/null || continue
    for std in c++11 c++17; do
        $cxx -std=$std -Wall -Wextra -pedantic -Werror -I"$prefix/include" -fsyntax-only "$tmp/hdr.cc" || fail "eir.h with $cxx -std=$std"
    done
done
$CC -std=c11 -Wall -Wextra -pedantic -Werror -I"$prefix/include" -fsyntax-only "$tmp/hdr.c" || fail "eir.h with $CC -std=c11"

# ---- the consumers, built from a copy of their sources against the prefix only
cp examples/consumer/consumer.c examples/consumer/consumer.cpp examples/consumer/CMakeLists.txt \
   examples/consumer/Makefile "$tmp/"
cd "$tmp"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# builds of their own: nothing from a calling make (make test) reaches them
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
[ "$(pkg-config --modversion eir)" = "$version" ] || fail "pkg-config --modversion eir: $(pkg-config --modversion eir)"
$MAKE -s CC="$CC" CFLAGS="-O2 -Wall -Wextra -Werror" consumer consumer_static
if readelf -d consumer_static | grep -q 'NEEDED.*libeir'; then fail "consumer_static needs libeir.so"; fi
readelf -d consumer | grep -q "NEEDED.*\[libeir.so.$major\]" || fail "consumer does not need libeir.so.$major"
LD_LIBRARY_PATH="$prefix/lib" ./consumer "$model" > c.out
./consumer_static "$model" > c_static.out

for kind in shared static; do
    opt=OFF; [ $kind = static ] && opt=ON
    cmake -S . -B "cmake_$kind" -DCMAKE_PREFIX_PATH="$prefix" -DEIR_STATIC=$opt \
          -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >cmake_$kind.log 2>&1 || { cat cmake_$kind.log; fail "cmake ($kind)"; }
    cmake --build "cmake_$kind" >>cmake_$kind.log 2>&1 || { cat cmake_$kind.log; fail "cmake --build ($kind)"; }
    "cmake_$kind/consumer_cpp" "$model" > "cpp_$kind.out"   # the shared one runs by CMake's rpath
done
if readelf -d cmake_static/consumer_cpp | grep -q 'NEEDED.*libeir'; then fail "the eir::eir_static consumer needs libeir.so"; fi

# ---- the expected outputs: `eir run` on the same inputs, as .npy
grep '^input ' c.out > inputs.txt
[ -s inputs.txt ] || fail "the C consumer printed no inputs"
$PYTHON - "$prefix/bin/eir" "$model" inputs.txt "eir $version" c.out c_static.out cpp_shared.out cpp_static.out <<'PY'
import re, subprocess, sys
import numpy as np
eir, model, inputs_txt, version_line, *outs = sys.argv[1:]
npys = []
for i, line in enumerate(open(inputs_txt)):
    dims = [int(d) for d in re.match(r"input \d+ '[^']*': f32\[([0-9, ]*)\]", line).group(1).split(",") if d.strip()]
    n = int(np.prod(dims))
    a = (((np.arange(n) * 37) % 17).astype(np.float32) / np.float32(8) - np.float32(1)).reshape(dims)
    np.save("in_%d.npy" % i, a)
    npys.append("in_%d.npy" % i)
shown = subprocess.run([eir, "run", model] + npys, check=True, capture_output=True, text=True).stdout
subprocess.run([eir, "run", model] + npys + ["--out", "ref"], check=True)
heads = [l.split(" = ")[0] for l in shown.splitlines() if l.startswith("output ")]
expected = [version_line] + [l.rstrip("\n") for l in open(inputs_txt)]
for i, head in enumerate(heads):
    y = np.load("ref/output_%d.npy" % i)
    expected.append(head + " =" + "".join(" %.6g" % float(v) for v in y.ravel()))
if len(heads) == 0:
    sys.exit("test_install: FAIL: eir run printed no outputs")
for out in outs:
    got = open(out).read().splitlines()
    if got != expected:
        print("test_install: FAIL: %s differs from eir run:" % out, file=sys.stderr)
        print("expected:\n  " + "\n  ".join(expected) + "\ngot:\n  " + "\n  ".join(got), file=sys.stderr)
        sys.exit(1)
print("test_install: 4 consumers match eir run (%d outputs)" % len(heads))
PY
cd "$src"

# ---- DESTDIR: files under DESTDIR, paths in eir.pc without it
$MAKE -s install DESTDIR="$tmp/stage" PREFIX=/opt/eir >/dev/null
[ -f "$tmp/stage/opt/eir/lib/libeir.so.$version" ] || fail "DESTDIR install: no libeir.so.$version"
grep -qx 'prefix=/opt/eir' "$tmp/stage/opt/eir/lib/pkgconfig/eir.pc" || fail "DESTDIR install: eir.pc prefix is not /opt/eir"

# ---- uninstall leaves no file behind
$MAKE -s uninstall PREFIX="$prefix" >/dev/null
left=$(find "$prefix" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "test_install: ok (eir $version)"
