#!/usr/bin/env python3
"""URDF robots as users bring them: generated equivalents of public robot descriptions, and what Catena
does with each under its default settings.

The files of the public descriptions (ROS-Industrial, Franka, Kinova, Unitree, ANYbotics, Boston Dynamics,
SoftBank, PyBullet's data) come under licences that do not all allow keeping them here, so this script
writes equivalents: the same kinematic tree (joint types, axes, origins, limits, efforts, mimic couplings,
fixed sensor frames without mass), masses and link dimensions of the published robots rounded, collision
geometry as primitive solids (meshes where the originals have only meshes), inertia tensors of those solids.
A few files are broken on purpose: a planar joint, links with zero inertia and mesh collisions only, a
revolute joint without <limit> (urdfdom refuses it).

    urdf_robots.py write DIR          write the URDF files into DIR
    urdf_robots.py mimic DIR [N]      the robots with <mimic> joints with their leaders and the leaders'
                                      parents driven: how far each follower strays from multiplier times
                                      its leader (mimic())
    urdf_robots.py measure DIR [N]    load each into a fresh world (gravity 0, 0, -9.81 as `catena run
                                      robot.urdf` gives a URDF; every other setting the default), step N
                                      times (default 120) and print a Markdown table (the quadrupeds a
                                      second time with self-collision on): loaded or refused
                                      (with the reason), bodies, joints, solver, the worst joint gap (m) and
                                      angle error (rad) over the steps, and whether the robot holds its
                                      joints (gap <= 1e-5 m and angle <= 1e-3 rad)

measure needs the catena Python package on PYTHONPATH (bench/urdf_robots.sh sets it to a build tree).
"""
import math
import os
import re
import sys

GAP_TOL, ANGLE_TOL = 1e-5, 1e-3


# ---- a small URDF writer ------------------------------------------------------------------------------

def _v(v):
    return " ".join("%.6g" % x for x in v)


def solid_inertia(mass, shape):
    """Principal moments of a solid: ("box", sx, sy, sz), ("cyl", r, length) along z, ("sphere", r)."""
    if shape[0] == "box":
        sx, sy, sz = shape[1:]
        return (mass * (sy * sy + sz * sz) / 12, mass * (sx * sx + sz * sz) / 12, mass * (sx * sx + sy * sy) / 12)
    if shape[0] == "cyl":
        r, l = shape[1:]
        across = mass * (3 * r * r + l * l) / 12
        return (across, across, mass * r * r / 2)
    r = shape[1]
    return (0.4 * mass * r * r,) * 3


class Robot:
    def __init__(self, name, fixed_base=True):
        self.name = name
        self.parts = []
        if fixed_base:
            self.parts.append('  <link name="world"/>')

    def link(self, name, mass=0.0, solid=None, com=(0, 0, 0), collisions=(), inertia=None):
        """A link; solid gives its inertia (of that solid at `mass`) unless `inertia` does; collisions are
        ("box", (sx, sy, sz), xyz, rpy), ("cyl", r, length, xyz, rpy), ("sphere", r, xyz), ("mesh", file)."""
        out = ['  <link name="%s">' % name]
        if mass > 0:
            i = inertia if inertia is not None else solid_inertia(mass, solid)
            out.append('    <inertial><origin xyz="%s"/><mass value="%.6g"/>'
                       '<inertia ixx="%.6g" iyy="%.6g" izz="%.6g" ixy="0" ixz="0" iyz="0"/></inertial>'
                       % (_v(com), mass, i[0], i[1], i[2]))
            out.append('    <visual><geometry><box size="0.01 0.01 0.01"/></geometry></visual>')
        for c in collisions:
            if c[0] == "box":
                geo, xyz, rpy = '<box size="%s"/>' % _v(c[1]), c[2], c[3]
            elif c[0] == "cyl":
                geo, xyz, rpy = '<cylinder radius="%.6g" length="%.6g"/>' % (c[1], c[2]), c[3], c[4]
            elif c[0] == "sphere":
                geo, xyz, rpy = '<sphere radius="%.6g"/>' % c[1], c[2], (0, 0, 0)
            else:
                geo, xyz, rpy = '<mesh filename="%s"/>' % c[1], (0, 0, 0), (0, 0, 0)
            out.append('    <collision><origin xyz="%s" rpy="%s"/><geometry>%s</geometry></collision>'
                       % (_v(xyz), _v(rpy), geo))
        out.append('  </link>')
        self.parts.append("\n".join(out))

    def joint(self, name, jtype, parent, child, xyz, rpy=(0, 0, 0), axis=(0, 0, 1), limit=None, effort=0.0,
              velocity=2.0, mimic=None, damping=None):
        out = ['  <joint name="%s" type="%s">' % (name, jtype),
               '    <parent link="%s"/><child link="%s"/>' % (parent, child),
               '    <origin xyz="%s" rpy="%s"/>' % (_v(xyz), _v(rpy))]
        if jtype != "fixed":
            out.append('    <axis xyz="%s"/>' % _v(axis))
        if jtype in ("revolute", "prismatic"):
            lo, hi = limit
            out.append('    <limit lower="%.6g" upper="%.6g" effort="%.6g" velocity="%.6g"/>' % (lo, hi, effort, velocity))
        elif jtype == "continuous" and effort > 0:
            out.append('    <limit effort="%.6g" velocity="%.6g"/>' % (effort, velocity))
        if mimic:
            out.append('    <mimic joint="%s" multiplier="%.6g" offset="0"/>' % mimic)
        if damping is not None:
            out.append('    <dynamics damping="%.6g" friction="0"/>' % damping)
        out.append('  </joint>')
        self.parts.append("\n".join(out))

    def text(self):
        return '<?xml version="1.0"?>\n<robot name="%s">\n%s\n</robot>\n' % (self.name, "\n".join(self.parts))


def cyl_z(r, length, z0=0.0):
    """A cylinder along z from z0 to z0 + length."""
    return ("cyl", r, length, (0, 0, z0 + length / 2), (0, 0, 0))


# ---- arms (fixed base) ---------------------------------------------------------------------------------

def serial_arm(name, segments, effort, base_mass, base_h, radius, extra=None):
    """A serial arm on a base fixed to the world: segments are (joint type, axis, offset xyz of the joint in
    the parent, link mass, link length along z, limit)."""
    r = Robot(name)
    r.link("base_link", base_mass, ("cyl", radius * 1.3, base_h), (0, 0, base_h / 2), [cyl_z(radius * 1.3, base_h)])
    r.joint("world_to_base", "fixed", "world", "base_link", (0, 0, 0))
    parent = "base_link"
    for k, (jt, axis, xyz, mass, length, limit) in enumerate(segments):
        child = "link_%d" % (k + 1)
        rad = radius * (1.0 - 0.08 * k)
        r.link(child, mass, ("cyl", rad, max(length, 2 * rad)), (0, 0, length / 2), [cyl_z(rad, max(length, 0.02))])
        r.joint("joint_%d" % (k + 1), jt, parent, child, xyz, axis=axis, limit=limit, effort=effort[k])
        parent = child
    if extra:
        extra(r, parent)
    return r


def kuka_iiwa7():
    # KUKA LBR iiwa 7 R800 (as the ROS / PyBullet descriptions): 7 revolute joints, z y z -y z y z
    z = [0.1575, 0.2025, 0.2045, 0.2155, 0.1845, 0.2155, 0.081]
    m = [4.0, 4.0, 3.0, 2.7, 1.7, 1.8, 0.3]
    lim = [2.96, 2.09, 2.96, 2.09, 2.96, 2.09, 3.05]
    ax = [(0, 0, 1), (0, 1, 0), (0, 0, 1), (0, -1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1)]
    segs = [("revolute", ax[k], (0, 0, z[k]), m[k], z[k + 1] if k + 1 < 7 else 0.07, (-lim[k], lim[k])) for k in range(7)]
    return serial_arm("kuka_iiwa7", segs, [320, 320, 176, 176, 110, 40, 40], 5.0, 0.1575, 0.07)


def ur5():
    # Universal Robots UR5 (ros-industrial universal_robot): 6 revolute joints, limits +-2 pi (clamped)
    pi2 = 2 * math.pi
    segs = [("revolute", (0, 0, 1), (0, 0, 0.089159), 3.7, 0.1358, (-pi2, pi2)),
            ("revolute", (0, 1, 0), (0, 0.1358, 0.0), 8.393, 0.425, (-pi2, pi2)),
            ("revolute", (0, 1, 0), (0, -0.1197, 0.425), 2.275, 0.39225, (-pi2, pi2)),
            ("revolute", (0, 1, 0), (0, 0, 0.39225), 1.219, 0.093, (-pi2, pi2)),
            ("revolute", (0, 0, 1), (0, 0.093, 0), 1.219, 0.09465, (-pi2, pi2)),
            ("revolute", (0, 1, 0), (0, 0, 0.09465), 0.1879, 0.0823, (-pi2, pi2))]
    return serial_arm("ur5", segs, [150, 150, 150, 28, 28, 28], 4.0, 0.089, 0.06)


def franka_panda():
    # Franka Emika Panda (franka_description): 7 revolute joints, a hand fixed to the flange, two prismatic
    # fingers, the second mimicking the first
    z = [0.333, 0.0, 0.316, 0.0, 0.384, 0.0, 0.088]
    m = [4.97, 0.65, 3.23, 3.59, 1.23, 1.67, 0.74]
    lim = [(-2.9, 2.9), (-1.76, 1.76), (-2.9, 2.9), (-3.07, -0.07), (-2.9, 2.9), (-0.02, 3.75), (-2.9, 2.9)]
    ax = [(0, 0, 1), (0, 1, 0), (0, 0, 1), (0, -1, 0), (0, 0, 1), (0, -1, 0), (0, 0, -1)]
    segs = [("revolute", ax[k], (0.0825 if k in (3, 4) else 0.0, 0, z[k] if z[k] else 0.1), m[k], 0.12, lim[k]) for k in range(7)]

    def hand(r, flange):
        r.link("panda_hand", 0.73, ("box", 0.05, 0.2, 0.06), (0, 0, 0.03), [("box", (0.05, 0.2, 0.06), (0, 0, 0.03), (0, 0, 0))])
        r.joint("panda_hand_joint", "fixed", flange, "panda_hand", (0, 0, 0.107))
        r.link("panda_tcp")  # a frame without mass
        r.joint("panda_tcp_joint", "fixed", "panda_hand", "panda_tcp", (0, 0, 0.1034))
        for side, sgn in (("left", 1), ("right", -1)):
            name = "panda_%sfinger" % side
            r.link(name, 0.015, ("box", 0.02, 0.02, 0.05), (0, 0, 0.025), [("box", (0.02, 0.02, 0.05), (0, 0, 0.025), (0, 0, 0))])
            r.joint("panda_finger_joint%d" % (1 if sgn > 0 else 2), "prismatic", "panda_hand", name, (0, 0, 0.0584),
                    axis=(0, sgn, 0), limit=(0.0, 0.04), effort=20.0, velocity=0.2,
                    mimic=None if sgn > 0 else ("panda_finger_joint1", 1.0))
    return serial_arm("franka_panda", segs, [87, 87, 87, 87, 12, 12, 12], 2.8, 0.14, 0.06, hand)


def kinova_gen3():
    # Kinova Gen3 7-DOF (ros_kortex): joints 1, 3, 5, 7 continuous, 2, 4, 6 limited
    inf = None
    z = [0.1564, 0.1284, 0.2104, 0.2104, 0.2084, 0.1059, 0.1059]
    m = [1.377, 1.163, 1.163, 0.93, 0.678, 0.678, 0.5]
    lim = [inf, (-2.41, 2.41), inf, (-2.66, 2.66), inf, (-2.23, 2.23), inf]
    ax = [(0, 0, 1), (0, 1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1)]
    segs = [("continuous" if lim[k] is None else "revolute", ax[k], (0, 0, z[k]), m[k], z[k + 1] if k + 1 < 7 else 0.06, lim[k])
            for k in range(7)]
    return serial_arm("kinova_gen3", segs, [39, 39, 39, 39, 9, 9, 9], 1.7, 0.15, 0.05)


def xarm6():
    # UFACTORY xArm 6 (xarm_ros)
    segs = [("revolute", (0, 0, 1), (0, 0, 0.267), 2.3, 0.1, (-6.28, 6.28)),
            ("revolute", (0, 1, 0), (0, 0, 0.1), 2.1, 0.2848, (-2.06, 2.09)),
            ("revolute", (0, 1, 0), (0.0535, 0, 0.2848), 1.7, 0.3426, (-3.92, 0.19)),
            ("revolute", (0, 0, 1), (0.0775, 0, 0.3426), 1.6, 0.1, (-6.28, 6.28)),
            ("revolute", (0, 1, 0), (0, 0, 0.1), 1.2, 0.076, (-1.69, 3.14)),
            ("revolute", (0, 0, 1), (0.076, 0, 0.097), 0.4, 0.05, (-6.28, 6.28))]
    return serial_arm("xarm6", segs, [50, 50, 32, 32, 32, 20], 2.7, 0.12, 0.05)


def sawyer():
    # Rethink Sawyer (sawyer_robot): 7 revolute joints, a head on a continuous joint, camera frames
    z = [0.08, 0.081, 0.14, 0.126, 0.127, 0.124, 0.116]
    m = [5.3, 4.5, 1.7, 2.5, 1.1, 1.5, 0.3]
    lim = [3.05, 3.81, 3.04, 3.04, 2.98, 2.98, 4.71]
    ax = [(0, 0, 1), (0, 1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1), (0, 1, 0), (0, 0, 1)]
    segs = [("revolute", ax[k], (0.081 if k == 1 else 0, 0, 0.237 if k == 0 else 0.2), m[k], 0.2, (-lim[k], lim[k])) for k in range(7)]

    def head(r, flange):
        r.link("head", 1.5, ("sphere", 0.1), (0, 0, 0), [("sphere", 0.1, (0, 0, 0))])
        r.joint("head_pan", "continuous", "link_1", "head", (0, 0, 0.3), effort=8.0)
        r.link("head_camera")
        r.joint("head_camera_joint", "fixed", "head", "head_camera", (0.1, 0, 0))
        r.link("right_hand_camera")
        r.joint("right_hand_camera_joint", "fixed", flange, "right_hand_camera", (0, 0, 0.05))
    return serial_arm("sawyer", segs, [80, 80, 40, 40, 9, 9, 9], 4.0, 0.2, 0.07, head)


# ---- quadrupeds (free base) ------------------------------------------------------------------------------

def quadruped(name, trunk, trunk_mass, hip_xy, hip, thigh, calf, foot_r, effort, thigh_len, calf_len, foot_mass=0.06):
    """A free-base quadruped: a trunk, four legs of hip (abduction about x), thigh and calf (about y), a foot
    sphere fixed to the calf; the thigh and calf boxes overlap at the knees (self-collision would push the
    joints apart)."""
    r = Robot(name, fixed_base=False)
    r.link("trunk", trunk_mass, ("box",) + trunk, (0, 0, 0), [("box", trunk, (0, 0, 0), (0, 0, 0))])
    for leg, sx, sy in (("FR", 1, -1), ("FL", 1, 1), ("RR", -1, -1), ("RL", -1, 1)):
        r.link(leg + "_hip", hip, ("cyl", 0.046, 0.04), (0, 0, 0), [("cyl", 0.046, 0.04, (0, 0, 0), (math.pi / 2, 0, 0))])
        r.joint(leg + "_hip_joint", "revolute", "trunk", leg + "_hip", (sx * hip_xy[0], sy * hip_xy[1], 0), axis=(1, 0, 0),
                limit=(-0.8, 0.8), effort=effort)
        r.link(leg + "_thigh", thigh, ("box", 0.03, 0.034, thigh_len), (0, 0, -thigh_len / 2),
               [("box", (0.03, 0.034, thigh_len + 0.04), (0, 0, -thigh_len / 2), (0, 0, 0))])
        r.joint(leg + "_thigh_joint", "revolute", leg + "_hip", leg + "_thigh", (0, sy * 0.08, 0), axis=(0, 1, 0),
                limit=(-1.0, 3.5), effort=effort)
        r.link(leg + "_calf", calf, ("box", 0.016, 0.016, calf_len), (0, 0, -calf_len / 2),
               [("box", (0.016, 0.016, calf_len + 0.04), (0, 0, -calf_len / 2), (0, 0, 0))])
        r.joint(leg + "_calf_joint", "revolute", leg + "_thigh", leg + "_calf", (0, 0, -thigh_len), axis=(0, 1, 0),
                limit=(-2.7, -0.9), effort=effort * 1.3)
        r.link(leg + "_foot", foot_mass, ("sphere", foot_r), (0, 0, 0), [("sphere", foot_r, (0, 0, 0))])
        r.joint(leg + "_foot_fixed", "fixed", leg + "_calf", leg + "_foot", (0, 0, -calf_len))
    r.link("imu_link")  # a sensor frame without mass
    r.joint("imu_joint", "fixed", "trunk", "imu_link", (0, 0, 0))
    return r


def unitree_a1():
    return quadruped("unitree_a1", (0.267, 0.194, 0.114), 4.71, (0.183, 0.047), 0.696, 1.013, 0.166, 0.02, 33.5, 0.2, 0.2)


def anymal_c():
    return quadruped("anymal_c", (0.53, 0.27, 0.24), 19.2, (0.3, 0.1), 2.78, 1.63, 0.33, 0.03, 80.0, 0.285, 0.33, 0.14)


def laikago():
    return quadruped("laikago", (0.56, 0.15, 0.12), 13.7, (0.21, 0.075), 1.1, 1.5, 0.24, 0.025, 35.0, 0.25, 0.25)


def mini_cheetah():
    return quadruped("mini_cheetah", (0.38, 0.2, 0.1), 3.3, (0.19, 0.05), 0.54, 0.634, 0.064, 0.018, 18.0, 0.209, 0.19)


# ---- humanoids ------------------------------------------------------------------------------------------

def humanoid(name, scale, masses, effort, tiny_fingers=False):
    """A free-base humanoid: pelvis, torso (two joints), head (two), arms of 6 joints, legs of 6 joints,
    sensor frames without mass; with tiny_fingers, two finger links of 2e-6 kg on each hand (a mimic
    coupling on the second)."""
    s = scale
    r = Robot(name, fixed_base=False)
    mp, mt, mh, marm, mleg = masses
    r.link("pelvis", mp, ("box", 0.2 * s, 0.3 * s, 0.15 * s), (0, 0, 0), [("box", (0.2 * s, 0.3 * s, 0.15 * s), (0, 0, 0), (0, 0, 0))])
    r.link("ltorso", mt * 0.05, ("cyl", 0.05 * s, 0.1 * s), (0, 0, 0), [])
    r.joint("back_bkz", "revolute", "pelvis", "ltorso", (0, 0, 0.1 * s), axis=(0, 0, 1), limit=(-0.66, 0.66), effort=effort)
    r.link("utorso", mt, ("box", 0.25 * s, 0.4 * s, 0.4 * s), (0, 0, 0.2 * s), [("box", (0.25 * s, 0.4 * s, 0.4 * s), (0, 0, 0.2 * s), (0, 0, 0))])
    r.joint("back_bky", "revolute", "ltorso", "utorso", (0, 0, 0.05 * s), axis=(0, 1, 0), limit=(-0.2, 0.5), effort=effort)
    r.link("neck", mh * 0.1, ("cyl", 0.03 * s, 0.05 * s), (0, 0, 0), [])
    r.joint("neck_ry", "revolute", "utorso", "neck", (0, 0, 0.42 * s), axis=(0, 1, 0), limit=(-0.6, 1.1), effort=effort * 0.2)
    r.link("head", mh, ("sphere", 0.1 * s), (0, 0, 0.1 * s), [("sphere", 0.1 * s, (0, 0, 0.1 * s))])
    r.joint("neck_rz", "revolute", "neck", "head", (0, 0, 0.03 * s), axis=(0, 0, 1), limit=(-1.5, 1.5), effort=effort * 0.2)
    r.link("head_camera")
    r.joint("head_camera_joint", "fixed", "head", "head_camera", (0.08 * s, 0, 0.1 * s))
    r.link("imu_link")
    r.joint("imu_joint", "fixed", "pelvis", "imu_link", (0, 0, 0))
    for side, sy in (("l", 1), ("r", -1)):
        parent, arm = "utorso", [("shz", (0, 0, 1), (0, sy * 0.22 * s, 0.35 * s)), ("shx", (1, 0, 0), (0, sy * 0.05 * s, 0)),
                                 ("ely", (0, 1, 0), (0, sy * 0.15 * s, 0)), ("elx", (1, 0, 0), (0, sy * 0.05 * s, 0)),
                                 ("wry", (0, 1, 0), (0, sy * 0.15 * s, 0)), ("wrx", (1, 0, 0), (0, sy * 0.03 * s, 0))]
        for k, (jn, ax, xyz) in enumerate(arm):
            link = "%s_arm_%s" % (side, jn)
            mass = marm / 6
            r.link(link, mass, ("cyl", 0.04 * s, 0.12 * s), (0, 0, 0),
                   [("cyl", 0.04 * s, 0.12 * s, (0, sy * 0.06 * s, 0), (math.pi / 2, 0, 0))] if k % 2 == 0 else [])
            r.joint("%s_arm_%s" % (side, jn), "revolute", parent, link, xyz, axis=ax, limit=(-1.5, 1.5), effort=effort * 0.5)
            parent = link
        hand = "%s_hand" % side
        r.link(hand, marm * 0.05, ("box", 0.05 * s, 0.08 * s, 0.03 * s), (0, 0, 0), [("box", (0.05 * s, 0.08 * s, 0.03 * s), (0, sy * 0.04 * s, 0), (0, 0, 0))])
        r.joint("%s_hand_fixed" % side, "fixed", parent, hand, (0, sy * 0.03 * s, 0))
        if tiny_fingers:
            for f in (1, 2):
                finger = "%s_finger%d" % (side, f)
                r.link(finger, 2e-6, ("box", 0.01, 0.01, 0.03), (0, 0, -0.015), [])
                r.joint("%s_finger%d_joint" % (side, f), "revolute", hand, finger, ((f - 1.5) * 0.03, sy * 0.08 * s, 0), axis=(1, 0, 0),
                        limit=(0.0, 1.0), effort=0.1, mimic=None if f == 1 else ("%s_finger1_joint" % side, 1.0))
        parent, leg = "pelvis", [("hpz", (0, 0, 1), (0, sy * 0.09 * s, -0.05 * s)), ("hpx", (1, 0, 0), (0, 0, -0.05 * s)),
                                 ("hpy", (0, 1, 0), (0, 0, -0.05 * s)), ("kny", (0, 1, 0), (0, 0, -0.37 * s)),
                                 ("aky", (0, 1, 0), (0, 0, -0.42 * s)), ("akx", (1, 0, 0), (0, 0, 0))]
        share = [0.05, 0.05, 0.45, 0.3, 0.05, 0.1]
        for k, (jn, ax, xyz) in enumerate(leg):
            link = "%s_leg_%s" % (side, jn)
            mass = mleg * share[k]
            long_link = jn in ("hpy", "kny")
            coll = [("cyl", 0.06 * s, 0.36 * s, (0, 0, -0.19 * s), (0, 0, 0))] if long_link else []
            if jn == "akx":
                coll = [("box", (0.22 * s, 0.12 * s, 0.05 * s), (0.04 * s, 0, -0.05 * s), (0, 0, 0))]
            r.link(link, mass, ("cyl", 0.06 * s, 0.36 * s) if long_link else ("sphere", 0.05 * s), (0, 0, -0.19 * s if long_link else 0), coll)
            r.joint("%s_leg_%s" % (side, jn), "revolute", parent, link, xyz, axis=ax,
                    limit=(0.0, 2.4) if jn == "kny" else (-0.8, 0.8), effort=effort)
            parent = link
    return r


def atlas():
    # Boston Dynamics Atlas (drcsim's atlas_v5 description): 30 kg-class pelvis and torso, 28 joints
    return humanoid("atlas", 1.0, (9.5, 84.6, 1.4, 19.0, 24.0), 300.0)


def nao():
    # SoftBank NAO (nao_description): 5.3 kg, 0.58 m, fingers of a few milligrams coupled by mimic
    return humanoid("nao", 0.32, (1.05, 1.0, 0.6, 0.6, 1.0), 1.8, tiny_fingers=True)


# ---- mobile robots and others -----------------------------------------------------------------------------

def r2d2():
    # PyBullet's r2d2.urdf: legs fixed to the body, four wheels, a gripper pole on a prismatic joint, grippers
    r = Robot("r2d2", fixed_base=False)
    r.link("base_link", 10.0, ("cyl", 0.2, 0.6), (0, 0, 0), [cyl_z(0.2, 0.6, -0.3)])
    for side, sy in (("right", -1), ("left", 1)):
        leg = side + "_leg"
        r.link(leg, 10.0, ("box", 0.6, 0.1, 0.2), (0, 0, -0.3), [("box", (0.6, 0.1, 0.2), (0, 0, -0.3), (0, math.pi / 2, 0))])
        r.joint("base_to_" + leg, "fixed", "base_link", leg, (0, sy * 0.22, 0.25))
        base = side + "_base"
        r.link(base, 10.0, ("box", 0.4, 0.1, 0.1), (0, 0, 0), [("box", (0.4, 0.1, 0.1), (0, 0, 0), (0, 0, 0))])
        r.joint(leg + "_base_joint", "fixed", leg, base, (0, 0, -0.6))
        for end, sx in (("front", 1), ("back", -1)):
            wheel = "%s_%s_wheel" % (side, end)
            r.link(wheel, 1.0, ("cyl", 0.035, 0.1), (0, 0, 0), [("cyl", 0.035, 0.1, (0, 0, 0), (math.pi / 2, 0, 0))])
            r.joint(wheel + "_joint", "continuous", base, wheel, (sx * 0.133, 0, -0.085), axis=(0, 1, 0))
    r.link("gripper_pole", 0.05, ("cyl", 0.01, 0.2), (0.1, 0, 0), [("cyl", 0.01, 0.2, (0.1, 0, 0), (0, math.pi / 2, 0))])
    r.joint("gripper_extension", "prismatic", "base_link", "gripper_pole", (0.19, 0, 0.2), axis=(1, 0, 0),
            limit=(-0.38, 0.0), effort=1000.0, velocity=0.5)
    for side, sy in (("left", 1), ("right", -1)):
        g = side + "_gripper"
        r.link(g, 0.05, ("box", 0.05, 0.02, 0.02), (0.02, 0, 0), [("box", (0.05, 0.02, 0.02), (0.02, 0, 0), (0, 0, 0))])
        r.joint(g + "_joint", "revolute", "gripper_pole", g, (0.2, sy * 0.01, 0), axis=(0, 0, sy), limit=(0.0, 0.548), effort=1000.0)
        tip = side + "_tip"
        r.link(tip, 0.05, ("box", 0.02, 0.02, 0.02), (0.01, 0, 0), [("box", (0.02, 0.02, 0.02), (0.01, 0, 0), (0, 0, 0))])
        r.joint(side + "_tip_joint", "fixed", g, tip, (0.05, 0, 0))
    r.link("head", 2.0, ("sphere", 0.2), (0, 0, 0), [("sphere", 0.2, (0, 0, 0))])
    r.joint("head_swivel", "continuous", "base_link", "head", (0, 0, 0.3), axis=(0, 0, 1))
    r.link("box", 1.0, ("box", 0.08, 0.08, 0.08), (0, 0, 0), [("box", (0.08, 0.08, 0.08), (0, 0, 0), (0, 0, 0))])
    r.joint("tobox", "fixed", "head", "box", (0.1814, 0, 0.1414))
    return r


def husky():
    # Clearpath Husky (husky_description): a 33 kg chassis on four passive wheels, sensor frames
    r = Robot("husky", fixed_base=False)
    r.link("base_link", 33.455, ("box", 0.99, 0.67, 0.39), (0, 0, 0), [("box", (0.99, 0.67, 0.39), (0, 0, 0.06), (0, 0, 0))])
    for end, sx in (("front", 1), ("rear", -1)):
        for side, sy in (("left", 1), ("right", -1)):
            wheel = "%s_%s_wheel" % (end, side)
            r.link(wheel, 2.637, ("cyl", 0.1651, 0.1143), (0, 0, 0), [("cyl", 0.1651, 0.1143, (0, 0, 0), (math.pi / 2, 0, 0))])
            r.joint(wheel, "continuous", "base_link", wheel, (sx * 0.256, sy * 0.2854, 0.03282), axis=(0, 1, 0))
    for frame in ("imu_link", "top_plate_link", "user_rail_link"):
        r.link(frame)
        r.joint(frame + "_joint", "fixed", "base_link", frame, (0, 0, 0.2))
    return r


def racecar():
    # PyBullet's MIT racecar: a chassis, two steering hinges, four wheels
    r = Robot("racecar", fixed_base=False)
    r.link("chassis", 4.0, ("box", 0.5, 0.2, 0.1), (0.1, 0, 0), [("box", (0.5, 0.2, 0.1), (0.1, 0, 0.05), (0, 0, 0))])
    for side, sy in (("left", 1), ("right", -1)):
        rear = side + "_rear_wheel"
        r.link(rear, 0.34, ("cyl", 0.05, 0.045), (0, 0, 0), [("cyl", 0.05, 0.045, (0, 0, 0), (math.pi / 2, 0, 0))])
        r.joint(rear + "_joint", "continuous", "chassis", rear, (0, sy * 0.1, 0), axis=(0, 1, 0), effort=10.0)
        hinge = side + "_steering_hinge"
        r.link(hinge, 0.1, ("sphere", 0.01), (0, 0, 0), [])
        r.joint(hinge + "_joint", "revolute", "chassis", hinge, (0.325, sy * 0.1, 0), axis=(0, 0, 1), limit=(-1.0, 1.0), effort=10.0)
        front = side + "_front_wheel"
        r.link(front, 0.34, ("cyl", 0.05, 0.045), (0, 0, 0), [("cyl", 0.05, 0.045, (0, 0, 0), (math.pi / 2, 0, 0))])
        r.joint(front + "_joint", "continuous", hinge, front, (0, 0, 0), axis=(0, 1, 0), effort=10.0)
    return r


def cartpole():
    # PyBullet's cartpole.urdf: a rail fixed to the world, a cart on a prismatic joint, a pole on a
    # continuous joint
    r = Robot("cartpole")
    r.link("slideBar", 0.0, None, (0, 0, 0), [("box", (30, 0.05, 0.05), (0, 0, 0), (0, 0, 0))])
    r.joint("world_to_slideBar", "fixed", "world", "slideBar", (0, 0, 1.0))
    r.link("cart", 1.0, ("box", 0.5, 0.5, 0.2), (0, 0, 0), [("box", (0.5, 0.5, 0.2), (0, 0, 0), (0, 0, 0))])
    r.joint("slider_to_cart", "prismatic", "slideBar", "cart", (0, 0, 0), axis=(1, 0, 0), limit=(-15, 15), effort=1000.0)
    r.link("pole", 0.1, ("box", 0.05, 0.05, 1.0), (0, 0, 0.5), [("box", (0.05, 0.05, 1.0), (0, 0, 0.5), (0, 0, 0))])
    r.joint("cart_to_pole", "continuous", "cart", "pole", (0, 0, 0), axis=(0, 1, 0))
    return r


def planar_stage():
    # a table on a planar joint (imported as CTN_JOINT_PLANAR; refused before Catena had one)
    r = Robot("planar_stage")
    r.link("table", 1.0, ("box", 0.5, 0.5, 0.1), (0, 0, 0), [("box", (0.5, 0.5, 0.1), (0, 0, 0), (0, 0, 0))])
    r.joint("world_to_table", "planar", "world", "table", (0, 0, 0.5), axis=(0, 0, 1))
    return r


# ---- broken on purpose -------------------------------------------------------------------------------------


def mesh_only_arm():
    # a description whose links have masses but zero inertia tensors and only mesh collisions
    r = Robot("mesh_only_arm")
    r.link("base", 2.0, None, (0, 0, 0), [("mesh", "package://mesh_arm/meshes/base.stl")], inertia=(0, 0, 0))
    r.joint("world_to_base", "fixed", "world", "base", (0, 0, 0))
    r.link("upper", 1.0, None, (0, 0, 0.2), [("mesh", "package://mesh_arm/meshes/upper.stl")], inertia=(0, 0, 0))
    r.joint("shoulder", "revolute", "base", "upper", (0, 0, 0.1), axis=(0, 1, 0), limit=(-1, 1), effort=10.0)
    return r


def no_limit_arm():
    # a revolute joint without <limit>: urdfdom refuses the file
    r = Robot("no_limit_arm")
    r.link("upper", 1.0, ("cyl", 0.03, 0.3), (0, 0, 0.15), [cyl_z(0.03, 0.3)])
    r.parts.append('  <joint name="shoulder" type="revolute"><parent link="world"/><child link="upper"/>'
                   '<origin xyz="0 0 0.5"/><axis xyz="0 1 0"/></joint>')
    return r


def robotiq_2f85():
    # Robotiq 2F-85 gripper (ros-industrial robotiq_2f_85 description's layout): a four-bar per side; the
    # leader finger_joint turns the left outer knuckle, the right outer knuckle and both inner knuckles mimic
    # it (1), and each inner finger, on an outer finger fixed to its outer knuckle, mimics it with -1 (the
    # right one shares no link with the leader). Here on a continuous wrist about z, as on an arm's flange.
    pi = 3.141592653589793
    r = Robot("robotiq_2f85")
    r.link("wrist", 0.3, ("cyl", 0.04, 0.03), (0, 0, 0.015), [cyl_z(0.04, 0.03)])
    r.joint("wrist_joint", "continuous", "world", "wrist", (0, 0, 0.5), axis=(0, 0, 1), effort=10.0)
    r.link("robotiq_arg2f_base_link", 0.227, ("cyl", 0.04, 0.06), (0, 0, 0.031), [cyl_z(0.04, 0.06)])
    r.joint("wrist_to_gripper", "fixed", "wrist", "robotiq_arg2f_base_link", (0, 0, 0.03))
    for side, sgn in (("left", -1), ("right", 1)):
        rpy = (0, 0, pi) if side == "left" else (0, 0, 0)
        ok, of, ik, inf = ["%s_%s" % (side, n) for n in ("outer_knuckle", "outer_finger", "inner_knuckle", "inner_finger")]
        r.link(ok, 0.0068, ("box", 0.01, 0.03, 0.01), (0, 0.016, 0.005), [("box", (0.01, 0.03, 0.01), (0, 0.016, 0.005), (0, 0, 0))])
        r.joint("finger_joint" if side == "left" else "right_outer_knuckle_joint", "revolute", "robotiq_arg2f_base_link", ok,
                (0, sgn * 0.0306011, 0.054904), rpy, axis=(1, 0, 0), limit=(0.0, 0.8), effort=1000.0,
                mimic=None if side == "left" else ("finger_joint", 1.0))
        r.link(of, 0.0273, ("box", 0.012, 0.01, 0.05), (0, 0.002, 0.02), [("box", (0.012, 0.01, 0.05), (0, 0.002, 0.02), (0, 0, 0))])
        r.joint("%s_outer_finger_joint" % side, "fixed", ok, of, (0, 0.0315, -0.0041))
        r.link(inf, 0.0104, ("box", 0.012, 0.01, 0.04), (0, -0.005, 0.02), [("box", (0.012, 0.01, 0.04), (0, -0.005, 0.02), (0, 0, 0))])
        r.joint("%s_inner_finger_joint" % side, "revolute", of, inf, (0, 0.0061, 0.0471), axis=(1, 0, 0), limit=(-0.8757, 0.8757),
                effort=1000.0, mimic=("finger_joint", -1.0))
        r.link(ik, 0.011, ("box", 0.012, 0.01, 0.05), (0, 0.018, 0.02), [("box", (0.012, 0.01, 0.05), (0, 0.018, 0.02), (0, 0, 0))])
        r.joint("%s_inner_knuckle_joint" % side, "revolute", "robotiq_arg2f_base_link", ik, (0, sgn * 0.0127, 0.06142), rpy,
                axis=(1, 0, 0), limit=(0.0, 0.8757), effort=1000.0, mimic=("finger_joint", 1.0))
    return r


ROBOTS = [
    ("kuka_iiwa7", "arm", kuka_iiwa7), ("ur5", "arm", ur5), ("franka_panda", "arm", franka_panda),
    ("kinova_gen3", "arm", kinova_gen3), ("xarm6", "arm", xarm6), ("sawyer", "arm", sawyer),
    ("unitree_a1", "quadruped", unitree_a1), ("anymal_c", "quadruped", anymal_c), ("laikago", "quadruped", laikago),
    ("mini_cheetah", "quadruped", mini_cheetah), ("atlas", "humanoid", atlas), ("nao", "humanoid", nao),
    ("robotiq_2f85", "gripper", robotiq_2f85), ("r2d2", "mobile", r2d2), ("husky", "mobile", husky), ("racecar", "mobile", racecar), ("cartpole", "other", cartpole),
    ("planar_stage", "other", planar_stage), ("mesh_only_arm", "broken", mesh_only_arm), ("no_limit_arm", "broken", no_limit_arm),
]
EXAMPLES = [("snake_50", "other", "snake_50.urdf"), ("double_pendulum", "other", "double_pendulum.urdf")]


def _world(catena):
    """A world with gravity -z; the environment variable BOUNDED_ROWS (auto, exact, sweep) sets
    ctn_world_desc.bounded_rows (the direct solver's limits and motors) for before/after runs."""
    extra = {"bounded_rows": os.environ["BOUNDED_ROWS"]} if os.environ.get("BOUNDED_ROWS") else {}
    return catena.World(gravity=(0.0, 0.0, -9.81), **extra)


def limits(out, steps):
    """The robots with joint limits, loaded with default settings: the worst excursion of a limited joint
    beyond its limits over the steps (rad for hinges, m for sliders), the worst joint gap and angle."""
    import xml.etree.ElementTree as ET
    import catena
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "examples")
    rows = [(n, os.path.join(out, n + ".urdf")) for n, k, _ in ROBOTS if k in ("arm", "other")]
    rows += [(n, os.path.join(examples, f)) for n, k, f in EXAMPLES]
    print("| robot | limited joints | worst overshoot (rad) | worst overshoot (m) | worst gap (m) | worst angle (rad) | solver |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, path in rows:
        try:
            with open(path) as f:  # comments dropped: urdfdom reads "--" in one (snake_50's), ElementTree does not
                root = ET.fromstring(re.sub(r"<!--.*?-->", "", f.read(), flags=re.S))
        except (OSError, ET.ParseError):
            continue
        with _world(catena) as w:
            try:
                w.load_urdf(path)
            except catena.Error:
                continue
            lim = []
            for j in root.findall("joint"):
                if j.get("type") not in ("revolute", "prismatic") or j.find("mimic") is not None:
                    continue
                try:
                    h = w.find_joint(j.get("name"))
                except catena.Error:
                    continue
                if w.limits(h) is not None:
                    lim.append((h, j.get("type") == "prismatic"))
            if not lim:
                continue
            over = [0.0, 0.0]
            gap = angle = 0.0
            for _ in range(steps):
                w.step()
                g, a = w.measure()
                gap, angle = max(gap, g), max(angle, a)
                for h, prism in lim:
                    lo, hi = w.limits(h)
                    q = w.joint_translation(h) if prism else w.joint_angle(h)
                    over[prism] = max(over[prism], lo - q, q - hi)
            print("| %s | %d | %.3g | %.3g | %.3g | %.3g | %s |" % (name, len(lim), over[0], over[1], gap, angle, w.stats["solver"]))


def write(out):
    os.makedirs(out, exist_ok=True)
    for name, _, make in ROBOTS:
        with open(os.path.join(out, name + ".urdf"), "w") as f:
            f.write(make().text())


def measure(out, steps):
    import catena
    examples = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "examples")
    rows = [(n, k, os.path.join(out, n + ".urdf")) for n, k, _ in ROBOTS]
    rows += [(n, k, os.path.join(examples, f)) for n, k, f in EXAMPLES]
    # the quadrupeds again with collision between their own links on (load_urdf(self_collision=True))
    rows += [(n + " +self", k, os.path.join(out, n + ".urdf")) for n, k, _ in ROBOTS if k == "quadruped"]
    print("| robot | kind | result | bodies | joints | solver | worst gap (m) | worst angle (rad) | holds |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    counts = {"loaded": 0, "refused": 0, "holds": 0}
    for name, kind, path in rows:
        with _world(catena) as w:
            try:
                w.load_urdf(path, self_collision=name.endswith("+self"))
            except catena.Error as e:
                reason = str(e).replace(path + ": ", "").replace("|", "/").replace("\n", " ")
                print("| %s | %s | refused: %s | | | | | | |" % (name, kind, reason[:220]))
                counts["refused"] += 1
                continue
            counts["loaded"] += 1
            gap = angle = 0.0
            status = "ok"
            for _ in range(steps):
                try:
                    w.step()
                except catena.Error as e:
                    status = "step failed: %s" % str(e)[:80]
                    break
                g, a = w.measure()
                gap, angle = max(gap, g), max(angle, a)
            holds = status == "ok" and gap <= GAP_TOL and angle <= ANGLE_TOL
            counts["holds"] += holds
            print("| %s | %s | %s | %d | %d | %s | %.3g | %.3g | %s |" % (name, kind, "loaded" if status == "ok" else status,
                  w.body_count, w.joint_count, w.stats["solver"], gap, angle, "yes" if holds else "no"))
    print()
    print("%d rows: %d loaded, %d refused with a reason, %d hold their joints (gap <= %g m, angle <= %g rad) over %d steps"
          % (len(rows), counts["loaded"], counts["refused"], counts["holds"], GAP_TOL, ANGLE_TOL, steps))


def mimic(out, steps):
    """The robots with <mimic> joints, driven: every leader by a velocity motor (0.02 m/s or 0.5 rad/s, at
    most 10 times its effort) and the joint that carries the leader's parent link at 1 rad/s (the parent
    moves, as a wrist turning a gripper), the rest as loaded; prints the worst change of q_f - m q_l over
    the steps against the leader's travel."""
    import xml.etree.ElementTree as ET
    import catena
    print("| robot | follower (mimics leader, m) | leader travel | worst change of q_f - m q_l | solver |")
    print("| --- | --- | --- | --- | --- |")
    for name, kind, _ in ROBOTS:
        path = os.path.join(out, name + ".urdf")
        root = ET.parse(path).getroot()
        joints = {j.get("name"): j for j in root.findall("joint")}
        pairs = [(n, j.find("mimic").get("joint"), float(j.find("mimic").get("multiplier", "1"))) for n, j in joints.items()
                 if j.find("mimic") is not None]
        if not pairs:
            continue
        with _world(catena) as w:
            w.load_urdf(path)

            def pos(n):
                j = w.find_joint(n)
                return w.joint_translation(j) if joints[n].get("type") == "prismatic" else w.joint_angle(j)
            for f, l, m in pairs:
                lj = joints[l]
                prism = lj.get("type") == "prismatic"
                effort = float(lj.find("limit").get("effort", "1")) if lj.find("limit") is not None else 1.0
                w.set_motor(w.find_joint(l), 0.02 if prism else 0.5, 10.0 * max(effort, 0.1))
                parent = lj.find("parent").get("link")
                for n, j in joints.items():
                    if j.find("child").get("link") == parent and j.get("type") in ("revolute", "continuous"):
                        w.set_motor(w.find_joint(n), 1.0, 100.0)
            start = {f: pos(f) - m * pos(l) for f, l, m in pairs}
            lead0 = {l: pos(l) for f, l, m in pairs}
            worst = {f: 0.0 for f, l, m in pairs}
            travel = {f: 0.0 for f, l, m in pairs}
            for _ in range(steps):
                w.step()
                for f, l, m in pairs:
                    worst[f] = max(worst[f], abs(pos(f) - m * pos(l) - start[f]))
                    travel[f] = max(travel[f], abs(pos(l) - lead0[l]))
            for f, l, m in pairs:
                unit = "m" if joints[l].get("type") == "prismatic" else "rad"
                print("| %s | %s (%s, %g) | %.3g %s | %.3g %s | %s |" % (name, f, l, m, travel[f], unit, worst[f], unit, w.stats["solver"]))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "mimic":
        mimic(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 120)
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] == "limits":
        limits(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 120)
        sys.exit(0)
    if len(sys.argv) < 3 or sys.argv[1] not in ("write", "measure"):
        sys.exit(__doc__)
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        measure(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 120)
