#!/usr/bin/env bash
# `catena sweep` checks. Usage: run.sh MODE CATENA SOURCE_DIR SCRATCH_DIR
#   serial:  kill midway + resume finishes only the missing runs; damaged run records are run again with a
#            warning; bad ensembles get file:line:col errors;
#            a diverging run is recorded and the sweep goes on; batched replicas end bitwise as lone ones.
#   mpi:     a 12-run sweep under mpirun -np 3 matches the serial sweep bitwise, run by run (exit 77 when
#            the CLI was built without MPI or mpirun is missing).
set -uo pipefail
mode=$1 catena=$2 src=$3 dir=$4
here="$src/tests/sweep"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# the columns that are the result (not the timing): index .. state_hash
col() { head -1 "$1" | tr ',' '\n' | grep -n "^$2\$" | cut -d: -f1; }
result() { cut -d, -f1-"$(head -1 "$1" | tr ',' '\n' | grep -n '^state_hash$' | cut -d: -f1)" "$1"; }

case "$mode" in
serial)
  # 1. a complete serial sweep is the reference
  "$catena" sweep "$here/twelve.json" --out ref --quiet; rc=$?
  [ $rc -eq 0 ] || fail "reference sweep exit $rc"
  [ "$(tail -n +2 ref/summary.csv | wc -l)" -eq 12 ] || fail "summary.csv does not have 12 rows"
  grep -q '"ok":	12' ref/summary.json || fail "summary.json does not count 12 ok runs"

  # 2. kill midway, run again: only the missing runs run, and the result equals the reference
  # kill -9 once some runs are written; if the sweep finished between two looks, try again (up to 5 times)
  for try in 1 2 3 4 5; do
    rm -rf killed
    "$catena" sweep "$here/twelve.json" --out killed 2>killed.log &
    pid=$!
    for _ in $(seq 1 6000); do
      n=$(ls killed/runs 2>/dev/null | grep -c '\.json$'); [ "$n" -ge 2 ] && break; sleep 0.01
    done
    kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
    done_before=$(ls killed/runs 2>/dev/null | grep -c '\.json$')
    [ "$done_before" -lt 12 ] && break
  done
  [ "$done_before" -ge 1 ] && [ "$done_before" -lt 12 ] || fail "kill point: $done_before runs done (want 1..11)"
  # a run killed while writing leaves only a temporary file (never a partial run-NNNNNN.json): every result parses
  for f in killed/runs/*.json; do python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$f" || fail "$f is not a whole result"; done
  "$catena" sweep "$here/twelve.json" --out killed 2>resumed.log; rc=$?
  [ $rc -eq 0 ] || fail "resumed sweep exit $rc"
  ls killed/runs | grep -q '\.tmp\.' && fail "the resumed sweep left the killed run's temporary file behind"
  ran=$(grep -c '^catena: sweep: run ' resumed.log)
  [ "$ran" -eq $((12 - done_before)) ] || fail "resume ran $ran runs, expected $((12 - done_before)) (had $done_before)"
  diff <(result ref/summary.csv) <(result killed/summary.csv) || fail "resumed sweep differs from the reference"
  # a third invocation runs nothing
  "$catena" sweep "$here/twelve.json" --out killed 2>again.log || fail "third invocation failed"
  grep -q '^catena: sweep: run ' again.log && fail "a finished sweep ran runs again"
  # a damaged record that kept its signature (no "point", no "replica", not JSON) is run again with a
  # warning naming it, and the merged result is the reference's
  python3 - killed/runs <<'PY' || fail "could not damage the records"
import json, sys
d = sys.argv[1]
for name, key in (("run-000003.json", "point"), ("run-000005.json", "replica")):
    j = json.load(open(f"{d}/{name}")); del j[key]; json.dump(j, open(f"{d}/{name}", "w"))
t = open(f"{d}/run-000007.json").read(); open(f"{d}/run-000007.json", "w").write(t[: len(t) // 2])
PY
  "$catena" sweep "$here/twelve.json" --out killed 2>damaged.log; rc=$?
  [ $rc -eq 0 ] || fail "sweep over damaged records: exit $rc: $(cat damaged.log)"
  for f in run-000003.json run-000005.json run-000007.json; do
    grep -q "warning: killed/runs/$f is damaged" damaged.log || fail "no warning names $f: $(cat damaged.log)"
  done
  [ "$(grep -c '^catena: sweep: run ' damaged.log)" -eq 3 ] || fail "not exactly the 3 damaged runs ran again: $(cat damaged.log)"
  diff <(result ref/summary.csv) <(result killed/summary.csv) || fail "the sweep over damaged records differs from the reference"

  # 3. bad ensembles: file:line:col and the offending key; exit 3; nothing run
  for f in bad_syntax:'bad_syntax.json:3:3: expected' bad_key:"bad_key.json:3:4: ensemble: unknown key 'replicaz'" \
           bad_path:'bad_path.json:2:17: parameters: link: no {link} in the scene spec'; do
    name=${f%%:*} want=${f#*:}
    "$catena" sweep "$here/$name.json" --out bad 2>bad.log; rc=$?
    [ $rc -eq 3 ] || fail "$name: exit $rc, expected 3"
    grep -qF "$want" bad.log || fail "$name: message '$(cat bad.log)' lacks '$want'"
  done
  [ -e bad ] && fail "a bad ensemble created its output directory"
  # every grid point is checked before any run starts: a bad value anywhere in the grid refuses the sweep
  # with exit 3, naming the point and the field, and nothing runs
  grid() { printf '{"version": 1, "scene": "%s", "world": {"backend": "cpu"}, "steps": 5, "parameters": {%s}}\n' "$1" "$2"; }
  grid 'chain:{links}' '"links": [3, -5]' > grid_links.json
  grid 'chain:4' '"world.solver": ["gs", "warp"]' > grid_solver.json
  grid 'chain:4' '"world.time_step": [0.01, 0]' > grid_dt.json
  for g in grid_links:'{"links":-5}'*'chain:-5' grid_solver:'{"world.solver":"warp"}'*'world.solver' grid_dt:'{"world.time_step":0}'*'world.time_step'; do
    name=${g%%:*} rest=${g#*:}; point=${rest%%\**} want=${rest#*\*}
    "$catena" sweep $name.json --out badgrid 2>grid.log; rc=$?
    [ $rc -eq 3 ] || fail "$name: exit $rc, expected 3: $(cat grid.log)"
    grep -qF "grid point 1 of 2 $point is invalid" grid.log && grep -qF "$want" grid.log || fail "$name: message '$(cat grid.log)'"
    grep -q '^catena: sweep: run ' grid.log && fail "$name: a run started"
    [ -e badgrid ] && fail "$name: the refused sweep created its output directory"
  done

  # 4. a diverging run is recorded with its status; the runs after it still run; exit 1
  "$catena" sweep "$here/diverge.json" --out div --quiet; rc=$?
  [ $rc -eq 1 ] || fail "diverge: exit $rc, expected 1"
  statuses=$(cut -d, -f"$(col div/summary.csv status)" div/summary.csv | tr -d '"' | tail -n +2 | tr '\n' ' ')
  [ "$statuses" = "ok diverged ok " ] || fail "diverge: statuses $statuses"
  grep -q 'CTN_ERR_DIVERGED' div/summary.csv || fail "diverge: the error text is not in the summary"
  # the console line of a run that did not end ok gives the reason
  rm -rf div && "$catena" sweep "$here/diverge.json" --out div 2>div.log
  grep -q '^catena: sweep: run 1 .* diverged (.*): .*CTN_ERR_DIVERGED' div.log || fail "diverge: the console line lacks the reason: $(cat div.log)"

  # 5. batched replicas (one world) end in the same state, bitwise, as replicas run alone (Gauss-Seidel:
  #    replicas share no body, so their rows are solved in the same colours in the same order)
  cat > batch.json <<'JSON'
{"scene": "chain:{links}", "world": {"backend": "cpu", "solver": "gs"}, "steps": 40,
 "parameters": {"links": [30]}, "replicas": 6, "seed": 3, "perturb": {"velocity": 0.1, "force": 0.3}}
JSON
  "$catena" sweep batch.json --out b1 --quiet || fail "batch 1 sweep failed"
  "$catena" sweep batch.json --out b4 --batch 4 --quiet || fail "batch 4 sweep failed"
  hashes() { cut -d, -f"$(head -1 "$1" | tr ',' '\n' | grep -n '^state_hash$' | cut -d: -f1)" "$1"; }
  diff <(hashes b1/summary.csv) <(hashes b4/summary.csv) || fail "batched replicas differ from lone replicas"
  [ "$(hashes b1/summary.csv | tail -n +2 | sort -u | wc -l)" -eq 6 ] || fail "the six replicas are not all different"
  echo "sweep serial: all checks passed"
  ;;
mpi)
  command -v mpirun >/dev/null || { echo "mpirun not installed: skipped"; exit 77; }
  "$catena" sweep --help | grep -q 'MPI on' || { echo "catena built without MPI: skipped"; exit 77; }
  "$catena" sweep "$here/twelve.json" --out serial --quiet || fail "serial sweep failed"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  mpirun --oversubscribe -np 3 "$catena" sweep "$here/twelve.json" --out mpi --quiet; rc=$?
  [ $rc -eq 0 ] || fail "mpirun sweep exit $rc"
  diff <(result serial/summary.csv) <(result mpi/summary.csv) || fail "the 3-rank sweep differs from the serial one"
  ranks=$(grep -h '"rank"' mpi/runs/*.json | sort -u | wc -l)
  [ "$ranks" -ge 2 ] || fail "only $ranks rank(s) ran runs"
  echo "sweep mpi: 12 runs over 3 ranks ($ranks ranks took runs) equal the serial sweep bitwise"
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
