/* How many threads the CPU backend's OpenMP loops run on: ctn_world_desc.threads, or when that is 0 the
 * CPUs the process may run on, its affinity mask (sched_getaffinity), which taskset, numactl, cgroup
 * cpusets and batch schedulers narrow. Not OpenMP's own default: libgomp reads OMP_NUM_THREADS, and the
 * library reads no environment (the catena tool and bench_chain turn the variable into desc.threads). The mask is read again at the start of every step (one system call), so a process moved
 * to fewer CPUs gets fewer threads from its next step on. */
#define _GNU_SOURCE
#include "core/world.h"

#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#endif

int ctn__affinity_cpus(void) {
    long n = 0;
#ifdef __linux__
    /* room for 8192 CPUs on the stack (a step allocates nothing); a larger machine's mask is EINVAL and
     * falls through to the count of online CPUs */
    unsigned long mask[8192 / (8 * sizeof(unsigned long))];
    if (sched_getaffinity(0, sizeof mask, (cpu_set_t *)(void *)mask) == 0) n = CPU_COUNT_S(sizeof mask, (cpu_set_t *)(void *)mask);
#endif
    if (n < 1) n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > CTN_MAX_THREADS ? CTN_MAX_THREADS : (int)n;
}

void ctn__threads_refresh(ctn_world *w) { w->affinity_cpus = ctn__affinity_cpus(); }
