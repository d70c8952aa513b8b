#!/usr/bin/env bash
# The CLI on a representative scene (chain + bridge + pendulum from examples/, CPU backend, with
# every output and a checkpoint, then a resume) under valgrind --leak-check=full: any leak or memory error
# fails. Skipped (exit 77, CTest SKIP_RETURN_CODE) when valgrind is not installed.
# Usage: valgrind_cli.sh CATENA_BINARY SOURCE_DIR SCRATCH_DIR
set -euo pipefail
catena=$1
src=$2
dir=$3
command -v valgrind > /dev/null || { echo "valgrind not installed: skipped"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"
vg=(valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible
    --error-exitcode=99 --quiet) # 99: not an exit status of the CLI, so a valgrind error is told apart
export CATENA_QUIET=1 OMP_NUM_THREADS=1
"${vg[@]}" "$catena" run "$src/examples/rope_and_bridge.json" --backend cpu --steps 20 --csv out.csv --vtk vtk --svg out.svg \
  --plot plot.svg --json out.json --checkpoint run.ckpt --checkpoint-every 10
"${vg[@]}" "$catena" resume run.ckpt --backend cpu --more 5
# a refused scene: the CLI exits 3 (invalid scene), and still nothing leaks (valgrind would exit 99)
rc=0
"${vg[@]}" "$catena" validate "$src/tests/cli/bad/body_index_range.json" || rc=$?
[ "$rc" = 3 ] || { echo "valgrind_cli: validate of a refused scene exited $rc, expected 3"; exit 1; }
"${vg[@]}" "$catena" run chain:50 --backend cpu --steps 10 --solver direct
echo "valgrind_cli: no leaks"
