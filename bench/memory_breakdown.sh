#!/usr/bin/env bash
# Bytes per link by allocation site: runs bench_memory (bench/bench_memory.c) for chain:N stepped S times
# and prints, for every block held at the end (blocks of one site and size a link summed), the bytes
# allocated and resident per link (the block's size over N; resident from mincore), largest resident
# first, with the totals. Arrays grow by half: an array of E bytes an element shows about 1.5 E allocated.
#
#   bash bench/memory_breakdown.sh [BUILD_DIR] [--links N] [--steps S] [--solver gs|direct]
#
# A site is the first function on the allocation's stack outside bench_memory and the library's
# ctn__malloc / ctn__realloc / ctn__calloc (addr2line -f on the executable: static functions are named by the
# symbol table, no debug information needed). One thread, CPU backend, velocity step, 1 substep; GS runs
# 10 iterations, direct 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --links|--steps|--solver) args+=("$1" "$2"); shift ;;
        -h|--help) sed -n 2,11p "$0"; exit 0 ;;
        -*) echo "memory_breakdown.sh: unknown option $1" >&2; exit 2 ;;
        *) build=$1 ;;
    esac
    shift
done
exe=$build/bench/bench_memory
[ -x "$exe" ] || { echo "memory_breakdown.sh: no $exe (cmake --build $build --target bench_memory)" >&2; exit 2; }
command -v addr2line >/dev/null || { echo "memory_breakdown.sh: addr2line (binutils) is not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CATENA_QUIET=1 OMP_NUM_THREADS=1 "$exe" "${args[@]}" > "$tmp/out"
# every distinct address, named
awk '$1 == "block" { for (i = 4; i <= NF; ++i) if ($i != "0" && !seen[$i]++) print "0x" $i }' "$tmp/out" > "$tmp/addrs"
addr2line -f -e "$exe" < "$tmp/addrs" | awk 'NR % 2 == 1' > "$tmp/names"
paste -d' ' "$tmp/addrs" "$tmp/names" > "$tmp/map"
awk -v mapfile="$tmp/map" '
    BEGIN { while ((getline l < mapfile) > 0) { split(l, f, " "); sub(/^0x/, "", f[1]); name[f[1]] = f[2] } }
    $1 == "links" { n = $2 }
    $1 == "block" {
        site = "?"
        for (i = 4; i <= NF; ++i) {
            s = name[$i]
            if (s == "" || s ~ /^(hook_|note_site|add$|raw_alloc|ctn__malloc|ctn__realloc|ctn__calloc|ctn__strdup)/) continue
            site = s; break
        }
        site = site ":" sprintf("%.1f", $2 / n) # one line an array (site, its size a link)
        size[site] += $2; res[site] += $3; blocks[site]++
    }
    END {
        printf "| site:allocated B/link (first function outside the allocator) | blocks | allocated B/link | resident B/link |\n|---|---:|---:|---:|\n"
        for (s in size) if (res[s] / n >= 0.5 || size[s] / n >= 0.5) printf "%s %d %.1f %.1f\n", s, blocks[s], size[s] / n, res[s] / n | "sort -k4,4 -g -r | awk '\''{ printf \"| %s | %d | %s | %s |\\n\", $1, $2, $3, $4 }'\''"
        close("sort -k4,4 -g -r | awk '\''{ printf \"| %s | %d | %s | %s |\\n\", $1, $2, $3, $4 }'\''")
        for (s in size) { ts += size[s]; tr += res[s] }
        printf "| total (all sites) | | %.1f | %.1f |\n", ts / n, tr / n
    }' "$tmp/out"
