/* `catena devices`: lists OpenCL platforms and devices and the one `auto` picks. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int ctn_cli_devices(int argc, char **argv) {
    int verbose = argc > 0 && !strcmp(argv[0], "--verbose");
    ctn_device_info dev[64];
    int count = 0;
    char err[1024] = "";
    ctn_status st = ctn_list_devices(dev, 64, &count, err, sizeof err);
    if (st != CTN_OK) {
        fprintf(stderr, "catena: %s: %s\n", ctn_status_name(st), err);
        return CTN_EXIT_DEVICE;
    }
    if (count == 0) {
        printf("no OpenCL devices%s%s; `auto` uses the CPU solver\n", err[0] ? ": " : "", err);
        return CTN_EXIT_OK;
    }
    for (int i = 0; i < count && i < 64; ++i) {
        const ctn_device_info *d = &dev[i];
        printf("%s%d:%d  %-40s %s, %d compute units, %.0f MiB%s\n", d->auto_choice ? "* " : "  ", d->platform, d->device, d->name,
               d->is_gpu ? "GPU" : "CPU", d->compute_units, d->global_memory_mib, d->auto_choice ? "  (auto)" : "");
        if (verbose)
            printf("        platform %s | vendor %s | %s | driver %s | max alloc %.0f MiB\n", d->platform_name, d->vendor, d->version,
                   d->driver, d->max_alloc_mib);
    }
    return CTN_EXIT_OK;
}
