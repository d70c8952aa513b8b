/* Sanitizer settings for the tests that use OpenCL (read in -DCATENA_SANITIZE=ON builds, unused otherwise).
 *
 * PoCL compiles a kernel for its work-group size in a device thread the first time the kernel runs, and
 * its LLVM passes keep a few objects alive until exit (measured with PoCL 3.1 / LLVM 15: 976 bytes in 17
 * objects, every stack through pocl_check_kernel_disk_cache). They are suppressed by that named frame
 * only: a suppression by library ("leak:libpocl.so") would also hide every cl_mem, kernel or program the
 * program itself leaks, since those are allocated inside libpocl.so too (tests/test_opencl_lsan.c shows
 * that such a leak is still reported).
 *
 * libpocl.so is built without frame pointers, so ASan's default fast unwinder stops at the first PoCL
 * frame and no named frame would ever be seen: these tests unwind allocations the slow (DWARF) way. That
 * costs little once PoCL's kernel cache (~/.cache/pocl) is warm, as it is after the plain build's test run
 * in .ci/run; a cold-cache compile under it takes minutes.
 *
 * intercept_tls_get_addr=0: the sanitizer runtime of GCC 12 (and up to GCC 13 / LLVM 16) takes a dynamic
 * TLS block whose address is 16 bytes past a page boundary for one carrying a pre-2.25 glibc header and
 * reads the two words before it as that block's bounds; PoCL and LLVM allocate dynamic TLS, so now and then
 * such a block exists and LeakSanitizer's tracer dies of SIGSEGV at exit ("Tracer caught signal 11")
 * after a test that passed. Not intercepting __tls_get_addr only stops LeakSanitizer scanning dynamic TLS
 * for pointers, which none of the library's allocations live in (fixed in LLVM by reviews.llvm.org/D147459). */
#ifndef CTN_TEST_OPENCL_LSAN_H
#define CTN_TEST_OPENCL_LSAN_H

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:pocl_check_kernel_disk_cache\n"; }
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "fast_unwind_on_malloc=0:intercept_tls_get_addr=0"; }

#endif
