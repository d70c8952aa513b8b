/* The joint-type table (joint_kinds.h): one line per ctn_joint_type, in enum order. */
#include "core/joint_kinds.h"

#include <stddef.h>

#define ANG CTN_JK_ANGULAR
#define PIV CTN_JK_PIVOT
#define AXI CTN_JK_AXIS
#define TWO CTN_JK_TWO_BODIES
#define SCN CTN_JK_SCENE
#define ADD CTN_JK_JOINT_ADD

/* The keys a scene file's joint of each type may hold (host/io/scene_json.c; curves: scene_curve.c). */
static const char *const k_distance[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "rest_length", "compliance", "damping_time",
                                         "rope", NULL};
static const char *const k_ball[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "compliance", "damping_time", NULL};
static const char *const k_hinge[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time",
                                      "limits", "motor", "axis_a", "axis_b", "rest_orientation", NULL};
static const char *const k_fixed[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "compliance", "damping_time",
                                      "rest_orientation", NULL};
static const char *const k_spring[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "rest_length", "stiffness", "damping", "implicit", NULL};
static const char *const k_prismatic[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time",
                                          "limits", "motor", "axis_a", "axis_b", "rest_orientation", NULL};
static const char *const k_universal[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "axis2", "compliance",
                                          "damping_time", "axis_a", "axis_b", "rest_orientation", NULL};
static const char *const k_cone[] = {"type", "name", "a", "b", "anchor_a", "anchor_b", "pivot", "axis", "compliance", "damping_time",
                                     "limits", "swing_limit", "axis_a", "axis_b", "rest_orientation", NULL};
/* gear: "axis" of body a, "axis2" of body b (world frame), "ratio"; rack_pinion: the pinion a's "axis", the rack
 * b's "axis2" */
static const char *const k_gear[] = {"type", "name", "a", "b", "axis", "axis2", "ratio", "compliance", "damping_time", NULL};

static const ctn_joint_kind kinds[] = {
    [CTN_JOINT_DISTANCE] = {"distance", 1, SCN | ADD, ctn__joint_def_distance, ctn__joint_check_distance, NULL, k_distance},
    [CTN_JOINT_BALL] = {"ball", 3, PIV | SCN | ADD, NULL, NULL, NULL, k_ball},
    [CTN_JOINT_HINGE] = {"hinge", 5, ANG | PIV | AXI | SCN | ADD, ctn__joint_def_axes, ctn__joint_check_axes, NULL, k_hinge},
    [CTN_JOINT_FIXED] = {"fixed", 6, ANG | PIV | SCN | ADD, NULL, NULL, NULL, k_fixed},
    [CTN_JOINT_SPRING] = {"spring", 0, SCN | ADD, ctn__joint_def_spring, ctn__joint_check_spring, NULL, k_spring},
    [CTN_JOINT_CONTACT] = {"contact", 3, 0, NULL, NULL, NULL, NULL},
    [CTN_JOINT_PRISMATIC] = {"prismatic", 5, ANG | PIV | AXI | SCN | ADD, ctn__joint_def_axes, ctn__joint_check_axes, NULL, k_prismatic},
    [CTN_JOINT_UNIVERSAL] = {"universal", 4, ANG | PIV | AXI | SCN | ADD, ctn__joint_def_axes, ctn__joint_check_axes, NULL, k_universal},
    [CTN_JOINT_CONE_TWIST] = {"cone_twist", 3, ANG | PIV | AXI | SCN | ADD, ctn__joint_def_axes, ctn__joint_check_axes, NULL, k_cone},
    [CTN_JOINT_CURVE] = {"curve", 2, SCN, NULL, NULL, NULL, NULL},
    [CTN_JOINT_GEAR] = {"gear", 1, ANG | TWO | SCN | ADD, ctn__joint_def_gear, ctn__joint_check_gear, ctn__gear_between_steps, k_gear},
    [CTN_JOINT_RACK_PINION] = {"rack_pinion", 1, ANG | TWO | SCN | ADD, ctn__joint_def_gear, ctn__joint_check_gear, ctn__gear_between_steps, k_gear},
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
