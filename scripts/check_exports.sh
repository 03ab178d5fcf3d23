#!/bin/sh
# check_exports.sh LIB.a [HEADER] — fails when the library defines a global
# symbol that the public header does not declare as a function (EIR_API), so
# that libeir.a cannot clash with a host program's own names.
set -eu
lib=$1
hdr=${2:-include/eir.h}
tmp=${TMPDIR:-/tmp}/eir_exports.$$
trap 'rm -f "$tmp".*' EXIT
nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u > "$tmp.defined"
sed -n 's/^EIR_API .*[^a-z0-9_]\(eir_[a-z0-9_]*\)(.*/\1/p' "$hdr" | sort -u > "$tmp.declared"
extra=$(comm -23 "$tmp.defined" "$tmp.declared")
if [ -n "$extra" ]; then
    echo "$lib defines global symbols that $hdr does not declare:" >&2
    echo "$extra" | sed 's/^/  /' >&2
    exit 1
fi
n=$(wc -l < "$tmp.defined")
echo "$lib: $n global symbols, all declared in $hdr"
