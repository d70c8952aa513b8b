/* The joint-type table (joint_kinds.h): one line per ctn_joint_type, in enum order. */
#include "core/joint_kinds.h"

#include "ctn_joint_rows.h"

#include <stddef.h>
#include <stdio.h>

#define ANG CTN_JK_ANGULAR
#define PIV CTN_JK_PIVOT
#define AXI CTN_JK_AXIS
#define TWO CTN_JK_TWO_BODIES
#define SCN CTN_JK_SCENE
#define ADD CTN_JK_JOINT_ADD
#define LIM CTN_JK_LIMITS
#define MOT CTN_JK_MOTOR
#define SWG CTN_JK_SWING
#define ROP CTN_JK_ROPE
#define SLD CTN_JK_SLIDES
#define RST CTN_JK_REST_LENGTH
#define FRC CTN_JK_FORCE
#define AX2 CTN_JK_AXIS2
#define RAT CTN_JK_RATIO
#define PNT CTN_JK_POINT_ROWS
#define ANL CTN_JK_ANGLE
#define AXA CTN_JK_AXES_ANGLE
#define NAT CTN_JK_NO_ATTACH

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
/* rack_pinion also: "relative" (pinion and rack on one moving base) with the pinion point "anchor_a" */
static const char *const k_rack[] = {"type", "name", "a", "b", "axis", "axis2", "ratio", "compliance", "damping_time", "relative", "anchor_a", NULL};

/* The public value of a type, which must equal its stored value CTN_JT_* (kernels/ctn_joint_rows.h): a
 * pair that differs makes an array of negative size, a compile error on the table's line. */
#define KIND(pub, jt) (pub) + 0 * (int)sizeof(char[(int)(pub) == (jt) ? 1 : -1])

static const ctn_joint_kind kinds[] = {
    [KIND(CTN_JOINT_DISTANCE, CTN_JT_DISTANCE)] = {"distance", SCN | ADD | ROP | RST, ctn__joint_def_distance, ctn__joint_check_distance, NULL, k_distance},
    [KIND(CTN_JOINT_BALL, CTN_JT_BALL)] = {"ball", PIV | SCN | ADD | PNT, NULL, NULL, NULL, k_ball},
    [KIND(CTN_JOINT_HINGE, CTN_JT_HINGE)] = {"hinge", ANG | PIV | AXI | SCN | ADD | LIM | MOT | PNT | ANL, ctn__joint_def_axes, ctn__joint_check_axes, NULL, k_hinge},
    [KIND(CTN_JOINT_FIXED, CTN_JT_FIXED)] = {"fixed", ANG | PIV | SCN | ADD | PNT, NULL, NULL, NULL, k_fixed},
    [KIND(CTN_JOINT_SPRING, CTN_JT_SPRING)] = {"spring", SCN | ADD | RST | FRC, ctn__joint_def_spring, ctn__joint_check_spring, NULL, k_spring},
    [KIND(CTN_JOINT_CONTACT, CTN_JT_CONTACT)] = {"contact", 0, NULL, NULL, NULL, NULL},
    [KIND(CTN_JOINT_PRISMATIC, CTN_JT_PRISMATIC)] = {"prismatic", ANG | PIV | AXI | SCN | ADD | LIM | MOT | SLD, ctn__joint_def_axes, ctn__joint_check_axes, NULL, k_prismatic},
    [KIND(CTN_JOINT_UNIVERSAL, CTN_JT_UNIVERSAL)] = {"universal", ANG | PIV | AXI | SCN | ADD | AX2 | PNT | AXA, ctn__joint_def_universal, ctn__joint_check_axes, NULL, k_universal},
    [KIND(CTN_JOINT_CONE_TWIST, CTN_JT_CONE_TWIST)] = {"cone_twist", ANG | PIV | AXI | SCN | ADD | LIM | SWG | PNT | ANL | AXA, ctn__joint_def_axes, ctn__joint_check_axes, NULL, k_cone},
    [KIND(CTN_JOINT_CURVE, CTN_JT_CURVE)] = {"curve", SCN | NAT, NULL, NULL, NULL, NULL},
    [KIND(CTN_JOINT_GEAR, CTN_JT_GEAR)] = {"gear", ANG | TWO | SCN | ADD | AX2 | RAT | NAT, ctn__joint_def_gear, ctn__joint_check_gear, ctn__gear_between_steps, k_gear},
    [KIND(CTN_JOINT_RACK_PINION, CTN_JT_RACK_PINION)] = {"rack_pinion", ANG | TWO | SCN | ADD | AX2 | RAT | NAT, ctn__joint_def_rack_pinion, ctn__joint_check_gear, ctn__gear_between_steps, k_rack},
};
_Static_assert(sizeof kinds / sizeof kinds[0] == CTN_JT_COUNT, "an entry for every joint type (CTN_JT_COUNT, kernels/ctn_joint_rows.h)");

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

const char *ctn__joint_kind_names(unsigned flags, char *buf, size_t size) {
    int n = 0, total = 0;
    for (int t = 0; t < CTN_JT_COUNT; ++t) total += ctn__joint_kind_has(t, flags);
    size_t used = 0;
    if (size) buf[0] = '\0';
    for (int t = 0; t < CTN_JT_COUNT && used < size; ++t) {
        if (!ctn__joint_kind_has(t, flags)) continue;
        const char *sep = n == 0 ? "" : (n == total - 1 ? " or " : ", ");
        int k = snprintf(buf + used, size - used, "%s%s", sep, kinds[t].name);
        if (k < 0) break;
        used += (size_t)k;
        ++n;
    }
    return buf;
}
