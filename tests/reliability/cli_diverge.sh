#!/usr/bin/env bash
# `catena run` on a scene that diverges exits with code 5 and leaves a checkpoint of the state
# before the diverged step, which `catena resume` accepts.
# Usage: cli_diverge.sh CATENA_BINARY SCRATCH_DIR
set -euo pipefail
catena=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
cat > diverge.json <<'JSON'
{"world": {"steps": 200, "max_speed": 3.0, "backend": "cpu"},
 "generators": [{"chain": {"links": 20}}]}
JSON
rc=0
"$catena" run diverge.json --backend cpu --checkpoint run.ckpt > out.txt 2> err.txt || rc=$?
cat err.txt
[ "$rc" -eq 5 ] || { echo "FAIL: exit code $rc, expected 5 (diverged)"; exit 1; }
grep -q "CTN_ERR_DIVERGED" err.txt || { echo "FAIL: no divergence message"; exit 1; }
grep -q "was saved to run.ckpt" err.txt || { echo "FAIL: no checkpoint note"; exit 1; }
[ -s run.ckpt ] || { echo "FAIL: no checkpoint written"; exit 1; }
# without --checkpoint: ./catena-last-good.ckpt
rc=0
"$catena" run diverge.json --backend cpu > out2.txt 2> err2.txt || rc=$?
[ "$rc" -eq 5 ] && [ -s catena-last-good.ckpt ] || { echo "FAIL: default checkpoint (rc $rc)"; cat err2.txt; exit 1; }
# the checkpoint resumes (it diverges again at once with the same settings: exit 5, not a load error)
rc=0
"$catena" resume run.ckpt --backend cpu > out3.txt 2> err3.txt || rc=$?
[ "$rc" -eq 5 ] || { echo "FAIL: resume exit $rc"; cat err3.txt; exit 1; }
echo "cli_diverge: ok"
