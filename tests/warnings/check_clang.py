#!/usr/bin/env python3
"""Every C file of the build, compiled again by clang with -fsyntax-only and the build's own flags.

The project builds with GCC; CI's fuzz build uses clang, whose -Wall -Wextra -Werror has warnings GCC does not
(-Wstring-concatenation: adjacent string literals in an array initialiser, which hides a missing comma). This
check finds them in the normal test run, on machines where clang is installed; elsewhere it is skipped.

Usage: check_clang.py BUILD_DIR SOURCE_DIR [CLANG]. Exit 0: clean; 1: a warning or error; 77: skipped.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# Flags of the GCC command lines that clang does not take or that do not apply to a syntax check.
DROP = {"-fopenmp", "-fno-semantic-interposition"}
DROP_PREFIX = ("-o", "-MD", "-MT", "-MF", "-fsanitize")


def clang_command(entry, clang):
    args = entry.get("arguments") or shlex.split(entry["command"])
    out = [clang, "-fsyntax-only", "-Wno-unknown-warning-option"]
    skip_next = False
    for a in args[1:]:
        if skip_next:
            skip_next = False
            continue
        if a in ("-o", "-MT", "-MF"):
            skip_next = True
            continue
        if a == "-c" or a in DROP or a.startswith(DROP_PREFIX):
            continue
        out.append(a)
    return out


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    build, source = sys.argv[1], os.path.realpath(sys.argv[2])
    clang = sys.argv[3] if len(sys.argv) > 3 else shutil.which("clang")
    if not clang:
        print("clang_warnings: clang not found, skipped")
        return 77
    db = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db):
        print(f"clang_warnings: {db} not found (CMAKE_EXPORT_COMPILE_COMMANDS), skipped")
        return 77
    build_real = os.path.realpath(build) + os.sep

    def ours(path):  # a committed C file (not one generated into the build folder)
        real = os.path.realpath(path)
        return real.endswith(".c") and real.startswith(source + os.sep) and not real.startswith(build_real)

    with open(db) as f:
        entries = [e for e in json.load(f) if ours(e["file"])]
    if not entries:
        print("clang_warnings: no C files of the source tree in the compile database")
        return 1

    def check(entry):
        r = subprocess.run(clang_command(entry, clang), cwd=entry["directory"], capture_output=True, text=True)
        return entry["file"], r.returncode, r.stderr

    failed = 0
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for path, rc, err in pool.map(check, entries):
            if rc != 0 or err.strip():
                failed += 1
                print(f"clang_warnings: {os.path.relpath(path, source)}:\n{err}")
    print(f"clang_warnings: {len(entries)} files, {failed} with clang warnings or errors")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
