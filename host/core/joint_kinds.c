/* The joint-type table (joint_kinds.h): the entries of host/core/joints/, in the order of CTN_JT_LIST. */
#include "core/joint_kinds.h"

#include "ctn_joint_rows.h"

#include <stddef.h>
#include <stdio.h>

/* The public value of each type must equal its stored value CTN_JT_* (kernels/ctn_joint_rows.h). */
#define CHECK_VALUE(VALUE, name) _Static_assert((int)CTN_JOINT_##VALUE == CTN_JT_##VALUE, "CTN_JOINT_" #VALUE " == CTN_JT_" #VALUE);
CTN_JT_LIST(CHECK_VALUE)

#define ENTRY(VALUE, name) [CTN_JT_##VALUE] = &ctn__joint_kind_##name,
static const ctn_joint_kind *const kinds[] = {CTN_JT_LIST(ENTRY)};
_Static_assert(sizeof kinds / sizeof kinds[0] == CTN_JT_COUNT, "an entry for every joint type (CTN_JT_COUNT, kernels/ctn_joint_rows.h)");

const ctn_joint_kind *ctn__joint_kind(int type) {
    return type >= 0 && type < (int)(sizeof kinds / sizeof kinds[0]) ? kinds[type] : NULL;
}

int ctn__joint_kind_has(int type, unsigned flags) {
    const ctn_joint_kind *k = ctn__joint_kind(type);
    return k && (k->flags & flags) == flags;
}

const char *ctn_joint_type_name(ctn_joint_type type) {
    const ctn_joint_kind *k = ctn__joint_kind((int)type);
    return k ? k->name : "unknown";
}

const char *ctn__joint_kind_names(unsigned flags, char *buf, size_t size) {
    int n = 0, total = 0;
    for (int t = 0; t < CTN_JT_COUNT; ++t) total += ctn__joint_kind_has(t, flags);
    size_t used = 0;
    if (size) buf[0] = '\0';
    for (int t = 0; t < CTN_JT_COUNT && used < size; ++t) {
        if (!ctn__joint_kind_has(t, flags)) continue;
        const char *sep = n == 0 ? "" : (n == total - 1 ? " or " : ", ");
        int k = snprintf(buf + used, size - used, "%s%s", sep, kinds[t]->name);
        if (k < 0) break;
        used += (size_t)k;
        ++n;
    }
    return buf;
}
