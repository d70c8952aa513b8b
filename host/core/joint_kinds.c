/* The joint-type table (joint_kinds.h): one line per ctn_joint_type, in enum order. */
#include "core/joint_kinds.h"

#include <stddef.h>

#define ANG CTN_JK_ANGULAR
#define PIV CTN_JK_PIVOT
#define AXI CTN_JK_AXIS
#define TWO CTN_JK_TWO_BODIES
#define SCN CTN_JK_SCENE
#define ADD CTN_JK_JOINT_ADD

static const ctn_joint_kind kinds[] = {
    [CTN_JOINT_DISTANCE] = {"distance", 1, SCN | ADD, ctn__joint_check_distance, NULL},
    [CTN_JOINT_BALL] = {"ball", 3, PIV | SCN | ADD, NULL, NULL},
    [CTN_JOINT_HINGE] = {"hinge", 5, ANG | PIV | AXI | SCN | ADD, ctn__joint_check_axes, NULL},
    [CTN_JOINT_FIXED] = {"fixed", 6, ANG | PIV | SCN | ADD, NULL, NULL},
    [CTN_JOINT_SPRING] = {"spring", 0, SCN | ADD, ctn__joint_check_spring, NULL},
    [CTN_JOINT_CONTACT] = {"contact", 3, 0, NULL, NULL},
    [CTN_JOINT_PRISMATIC] = {"prismatic", 5, ANG | PIV | AXI | SCN | ADD, ctn__joint_check_axes, NULL},
    [CTN_JOINT_UNIVERSAL] = {"universal", 4, ANG | PIV | AXI | SCN | ADD, ctn__joint_check_axes, NULL},
    [CTN_JOINT_CONE_TWIST] = {"cone_twist", 3, ANG | PIV | AXI | SCN | ADD, ctn__joint_check_axes, NULL},
    [CTN_JOINT_CURVE] = {"curve", 2, SCN, NULL, NULL},
    [CTN_JOINT_GEAR] = {"gear", 1, ANG | TWO | SCN | ADD, ctn__joint_check_gear, ctn__gear_between_steps},
    [CTN_JOINT_RACK_PINION] = {"rack_pinion", 1, ANG | TWO | SCN | ADD, ctn__joint_check_gear, ctn__gear_between_steps},
};
_Static_assert(sizeof kinds / sizeof kinds[0] == CTN_JOINT_RACK_PINION + 1, "an entry for every joint type");

const ctn_joint_kind *ctn__joint_kind(int type) {
    return type >= 0 && type < (int)(sizeof kinds / sizeof kinds[0]) ? &kinds[type] : NULL;
}

int ctn__joint_kind_has(int type, unsigned flags) {
    const ctn_joint_kind *k = ctn__joint_kind(type);
    return k && (k->flags & flags) == flags;
}

const char *ctn_joint_type_name(ctn_joint_type type) {
    const ctn_joint_kind *k = ctn__joint_kind((int)type);
    return k ? k->name : "unknown";
}
