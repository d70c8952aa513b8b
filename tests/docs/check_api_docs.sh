#!/usr/bin/env bash
# Every public declaration in include/catena/ (functions, types, fields, enum values, macros) carries a
# Doxygen comment: runs Doxygen with the `docs` target's configuration (WARN_IF_UNDOCUMENTED) and fails on
# any "is not documented" warning.
# usage: check_api_docs.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
command -v doxygen >/dev/null || { echo "doxygen not installed: skipped"; exit 77; }
cd "$src" # the configuration names its inputs relative to the source tree, as the docs target runs it
rm -f "$build/docs/warnings.txt"
doxygen "$build/Doxyfile.docs" > "$build/docs-run.log" 2>&1
test -f "$build/docs/warnings.txt" && test -f "$build/docs/html/catena_8h.html"
if grep -n "not documented" "$build/docs/warnings.txt"; then
  echo "check_api_docs: the declarations above have no Doxygen comment" >&2
  exit 1
fi
echo "check_api_docs: every public declaration in include/catena/ is documented"
