#!/bin/sh
# Every allocation of the library goes through the allocator of ctn_set_allocator (host/core/alloc.c):
# no object of the static library but alloc.c.o may call malloc, calloc, realloc, free, strdup or their
# relatives directly (library code calls ctn__malloc, ctn__calloc, ctn__realloc, ctn__free, ctn__strdup).
# Usage: check_raw_allocations.sh LIBCATENA.a. Exit 77 without nm.
lib="$1"
command -v nm > /dev/null 2>&1 || { echo "raw_allocations: nm not found, skipped"; exit 77; }
[ -f "$lib" ] || { echo "raw_allocations: $lib not found"; exit 1; }
symbols=$(nm -A "$lib") || exit 1
count=$(printf '%s\n' "$symbols" | grep -c ':') # objects' symbols listed at all
[ "$count" -gt 0 ] || { echo "raw_allocations: nm listed no symbols of $lib"; exit 1; }
bad=$(printf '%s\n' "$symbols" |
      grep -E ' U (malloc|calloc|realloc|free|strdup|strndup|aligned_alloc|posix_memalign|reallocarray)$' |
      grep -v ':alloc\.c\.o:')
if [ -n "$bad" ]; then
    echo "raw_allocations: these objects allocate around ctn_set_allocator's hook (use ctn__malloc & co, host/core/alloc.h):"
    printf '%s\n' "$bad"
    exit 1
fi
hook=$(printf '%s\n' "$symbols" | grep -cE ':alloc\.c\.o: +U malloc$')
[ "$hook" -eq 1 ] || { echo "raw_allocations: alloc.c.o does not call malloc: the check looks at the wrong library"; exit 1; }
echo "raw_allocations: no object of $(basename "$lib") but alloc.c.o calls the C library's allocator"
