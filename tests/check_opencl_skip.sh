#!/bin/sh
# Every OpenCL test reports "skipped" (exit 77), never "passed", on a machine without an OpenCL platform:
# runs them through CTest with the ICD loader pointed at an empty vendor folder.
# Usage: check_opencl_skip.sh BUILD_DIR. Exit 77 in a build without OpenCL.
build="$1"
empty=$(mktemp -d) || exit 1
trap 'rmdir "$empty"' EXIT
tests='opencl|test_faults|test_layout$|test_prismatic|test_spring_implicit'
out=$(OCL_ICD_VENDORS="$empty" OCL_ICD_FILENAMES= ctest --test-dir "$build" -R "$tests" -E opencl_skip 2>&1)
ran=$(printf '%s\n' "$out" | grep -cE 'Test +#')
[ "$ran" -gt 0 ] || { echo "opencl_skip: no OpenCL test is registered in this build"; exit 77; }
bad=$(printf '%s\n' "$out" | grep -E 'Test +#' | grep -v 'Skipped')
if [ -n "$bad" ]; then
    echo "opencl_skip: without an OpenCL platform these tests did not report skipped (exit 77):"
    printf '%s\n' "$bad"
    exit 1
fi
echo "opencl_skip: all $ran OpenCL tests skipped without an OpenCL platform"
