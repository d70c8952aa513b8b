#!/usr/bin/env bash
# Output paths that are not regular files, failed writes and leftovers of killed runs:
#  - a character device (a copy of /dev/null made with mknod in the scratch folder, never the real one)
#    and a FIFO given as --checkpoint, --csv, --json, --svg, --plot are written in place and stay what
#    they are (a rename onto them would replace the device node with a plain file);
#  - a write that fails (a copy of /dev/full: ENOSPC; a file size limit: EFBIG) stops the run with exit 6,
#    and the JSON summary and the report say what failed and the step of the last checkpoint written;
#  - PATH.tmp.PID files of processes that no longer exist are removed by the next write to PATH, others kept;
#  - a directory given to `catena resume` is reported as a directory.
# Skipped (exit 77) where mknod is not permitted (not root, or a container without CAP_MKNOD).
# Usage: cli_output_paths.sh CATENA_BINARY SCRATCH_DIR
set -uo pipefail
catena=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
is_chr() { [ "$(stat -c %F "$1")" = "character special file" ]; }
is_fifo() { [ "$(stat -c %F "$1")" = "fifo" ]; }
jget() { python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))[sys.argv[2]]; print("null" if v is None else v)' "$1" "$2"; }

if ! mknod null c 1 3 2>/dev/null || ! mknod full c 1 7 2>/dev/null; then
    echo "mknod is not permitted here: skipped"
    exit 77
fi
mkfifo fifo || fail "mkfifo"
# a block device is refused, never written in place (numbers of no device: even a bug could not write a disk)
if mknod blk b 259 999999 2>/dev/null; then
    rc=0; "$catena" run chain:5 --backend cpu --quiet --steps 2 --checkpoint blk > out.txt 2> err.txt || rc=$?
    [ $rc -eq 6 ] && grep -q "is a block device" err.txt || fail "a block device as --checkpoint: exit $rc: $(cat err.txt)"
    [ "$(stat -c %F blk)" = "block special file" ] || fail "the block device node was replaced"
fi
run=("$catena" run chain:5 --backend cpu --quiet)

# ---- devices and FIFOs written in place ----
"${run[@]}" --steps 20 --checkpoint null --checkpoint-every 5 --csv null --json null --svg null --plot null > out.txt 2> err.txt ||
    fail "run into the device: exit $? $(cat err.txt)"
is_chr null || fail "the device node was replaced: $(stat -c %F null)"
ls | grep -q '^null\.' && fail "files left beside the device: $(ls)"

mkdir vtk_dev && mknod vtk_dev/frame_000010.vtp c 1 3 && mknod vtk_dev/catena.pvd c 1 3 || fail "mknod in vtk_dev"
"${run[@]}" --steps 20 --vtk vtk_dev > /dev/null 2> err.txt || fail "VTK frames beside devices: $(cat err.txt)"
is_chr vtk_dev/frame_000010.vtp && is_chr vtk_dev/catena.pvd || fail "a VTK writer replaced a device node"
[ -s vtk_dev/frame_000020.vtp ] || fail "no frame 20"

cat fifo > ck_from_fifo & reader=$!
"${run[@]}" --steps 20 --checkpoint fifo > out.txt 2> err.txt || fail "checkpoint into a FIFO: exit $? $(cat err.txt)"
wait $reader
is_fifo fifo || fail "the FIFO was replaced: $(stat -c %F fifo)"
"${run[@]}" --steps 20 --checkpoint ck_regular > /dev/null 2>&1 || fail "checkpoint to a regular file"
cmp -s ck_from_fifo ck_regular || fail "the checkpoint read from the FIFO differs from the one written to a file"
"$catena" resume ck_from_fifo --more 5 --backend cpu --checkpoint ck_resumed > out.txt 2>&1 || fail "resume of the FIFO's checkpoint: $(cat out.txt)"
grep -q "20..25 (ok)" out.txt || fail "resumed run: $(cat out.txt)"

cat fifo > csv_from_fifo & reader=$!
"${run[@]}" --steps 20 --csv fifo > /dev/null 2>&1 || fail "CSV into a FIFO"
wait $reader
"${run[@]}" --steps 20 --csv regular.csv > /dev/null 2>&1 || fail "CSV to a regular file"
cmp -s csv_from_fifo regular.csv || fail "the CSV read from the FIFO differs from the regular one"
is_fifo fifo || fail "the FIFO was replaced by --csv"

# ---- a failed write is not a success ----
# the first periodic checkpoint fails (ENOSPC): nothing was written
rc=0; "${run[@]}" --steps 20 --checkpoint full --checkpoint-every 5 --json s1.json > out.txt 2> err.txt || rc=$?
[ $rc -eq 6 ] || fail "checkpoint on a full device: exit $rc, expected 6"
[ "$(jget s1.json status)" = failed ] || fail "status $(jget s1.json status), expected failed"
[ "$(jget s1.json failed_output)" = checkpoint ] || fail "failed_output $(jget s1.json failed_output)"
[ "$(jget s1.json checkpoint)" = null ] && [ "$(jget s1.json checkpoint_step)" = null ] || fail "a checkpoint reported written"
jget s1.json error | grep -q "No space left on device" || fail "error: $(jget s1.json error)"
grep -q "none written" out.txt || fail "the report names a checkpoint: $(cat out.txt)"
is_chr full || fail "the full device was replaced"
# the final checkpoint fails after every step ran: still a failure
rc=0; "${run[@]}" --steps 20 --checkpoint full --json s2.json > out.txt 2> err.txt || rc=$?
[ $rc -eq 6 ] && [ "$(jget s2.json status)" = failed ] && [ "$(jget s2.json end_step)" = 20 ] ||
    fail "final checkpoint on a full device: exit $rc, status $(jget s2.json status)"
grep -q "checkpoint *full" out.txt && fail "the report names the checkpoint that failed: $(cat out.txt)"
# the CSV grows past a file size limit (EFBIG) after four periodic checkpoints were written
rc=0
( trap '' XFSZ; ulimit -f 24; exec "${run[@]}" --steps 100 --checkpoint ck3 --checkpoint-every 10 --csv c3.csv --every 1 --json s3.json ) > out.txt 2> err.txt || rc=$?
[ $rc -eq 6 ] || fail "CSV past the size limit: exit $rc, expected 6: $(cat err.txt)"
[ "$(jget s3.json status)" = failed ] && [ "$(jget s3.json failed_output)" = csv ] || fail "status $(jget s3.json status) / $(jget s3.json failed_output)"
end=$(jget s3.json end_step); ck=$(jget s3.json checkpoint_step)
[ "$end" -lt 100 ] && [ "$ck" -gt 0 ] && [ $((ck % 10)) -eq 0 ] && [ "$ck" -le "$end" ] && [ $((end - ck)) -lt 10 ] ||
    fail "end step $end, checkpoint step $ck"
grep -q "checkpoint *ck3 (step $ck)" out.txt || fail "the report's checkpoint line: $(cat out.txt)"
[ -e c3.csv ] && fail "a partial CSV was left"
"$catena" resume ck3 --more 1 --backend cpu --checkpoint ck3b > out.txt 2>&1 || fail "resume of the last checkpoint written"
grep -q "$ck..$((ck + 1)) (ok)" out.txt || fail "the last checkpoint holds another step: $(cat out.txt)"

# ---- temporaries of killed writers ----
sh -c 'exit 0' & dead=$!; wait $dead
kill -0 $dead 2>/dev/null && { echo "pid $dead was reused at once: skipped"; exit 77; }
mkdir -p vtk
for f in ck4.tmp.$dead ck4.tmp.$$ ck4.tmp.0$dead ck4.tmp.${dead}x ck4x.tmp.$dead ck4.tmp.$dead.bak vtk/frame_000010.vtp.tmp.$dead; do
    echo leftover > "$f"
done
mkdir ck4.tmp.1 # a directory with the pattern's name is not a file of ours
"${run[@]}" --steps 20 --checkpoint ck4 --vtk vtk > /dev/null 2>&1 || fail "run beside leftovers"
[ -e ck4.tmp.$dead ] && fail "ck4.tmp.$dead (dead writer) was kept"
[ -e vtk/frame_000010.vtp.tmp.$dead ] && fail "a VTK frame's dead temporary was kept"
for f in ck4.tmp.$$ ck4.tmp.0$dead ck4.tmp.${dead}x ck4x.tmp.$dead ck4.tmp.$dead.bak ck4.tmp.1; do
    [ -e "$f" ] || fail "$f was removed (a live writer's, or not one of our temporaries)"
done

# ---- a directory is not a checkpoint ----
mkdir adir
rc=0; "$catena" resume adir > out.txt 2> err.txt || rc=$?
grep -q "is a directory" err.txt || fail "resume of a directory: $(cat err.txt)"
grep -q "bad magic" err.txt && fail "resume of a directory says bad magic"
[ $rc -eq 6 ] || fail "resume of a directory: exit $rc, expected 6"
echo "cli_output_paths: ok"
