#!/bin/sh
# libcatena.so exports exactly the public API: every function declared CTN_API in include/catena/*.h,
# and nothing else (no ctn__ internal, no C++ template instantiation of the URDF reader).
# usage: exported_symbols.sh LIBCATENA_SO INCLUDE_DIR      (exit 77: nm not installed)
set -eu
lib=$1 dir=$2
command -v nm > /dev/null || { echo "nm not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Declarations may span lines: join the header, then take the name before the first "(" of each CTN_API one.
cat "$dir"/*.h | grep -v "^#" | tr '\n' ' ' | tr ';' '\n' | sed -n 's/.*CTN_API[^(]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' | sort -u > "$tmp/declared"
nm -D --defined-only "$lib" | awk '$2 ~ /^[TtWwDdBbRrVvi]$/ {print $3}' | sed 's/@.*//' | sort -u > "$tmp/exported"
declared=$(wc -l < "$tmp/declared") exported=$(wc -l < "$tmp/exported")
echo "declared CTN_API: $declared, exported by $(basename "$lib"): $exported"
[ "$declared" -gt 50 ] || { echo "FAIL: found only $declared CTN_API declarations in $dir"; exit 1; }
status=0
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$extra" ]; then
  echo "FAIL: exported but not declared CTN_API in include/catena/*.h:"; echo "$extra" | sed 's/^/  /'; status=1
fi
if [ -n "$missing" ]; then
  echo "FAIL: declared CTN_API but not exported (not defined, or defined without the header's attribute):"; echo "$missing" | sed 's/^/  /'; status=1
fi
[ "$status" -eq 0 ] && echo "ok: the exported symbols are exactly the public API"
exit "$status"
