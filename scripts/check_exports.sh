#!/bin/sh
# check_exports.sh LIB [HEADER] — fails when the library defines a global
# symbol that the public header does not declare as a function (EIR_API), so
# that libeir.a cannot clash with a host program's own names and libeir.so
# exports the API only. LIB is libeir.a (its symbol table) or libeir.so*
# (its dynamic symbols).
set -eu
lib=$1
hdr=${2:-include/eir.h}
tmp=${TMPDIR:-/tmp}/eir_exports.$$
trap 'rm -f "$tmp".*' EXIT
case $lib in
    *.so|*.so.*) nmflags=-D ;;
    *) nmflags=-g ;;
esac
nm $nmflags --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u > "$tmp.defined"
sed -n 's/^EIR_API .*[^a-z0-9_]\(eir_[a-z0-9_]*\)(.*/\1/p' "$hdr" | sort -u > "$tmp.declared"
extra=$(comm -23 "$tmp.defined" "$tmp.declared")
if [ -n "$extra" ]; then
    echo "$lib defines global symbols that $hdr does not declare:" >&2
    echo "$extra" | sed 's/^/  /' >&2
    exit 1
fi
n=$(wc -l < "$tmp.defined")
[ "$n" -gt 0 ] || { echo "$lib defines no global symbol" >&2; exit 1; }
echo "$lib: $n global symbols, all declared in $hdr"
