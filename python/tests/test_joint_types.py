"""Slider limits and motor, universal and cone-twist joints through the Python package: the same physics as
the C tests (tests/test_prismatic_drive.c, test_universal.c, test_cone_twist.c), smaller."""
import math

import pytest

import catena


def test_slider_limit_and_motor():
    with catena.World(backend="cpu") as w:
        box = w.add_body(mass=2.0, inertia=(0.1, 0.2, 0.3), position=(0, 1, 0))
        j = w.add_joint("prismatic", box, pivot=(0, 1, 0), axis=(0, 1, 0), limits=(-0.4, 0.3))
        w.step(120)
        assert abs(w.joint_translation(j) + 0.4) < 1e-5  # rests on the lower limit (measured -0.400000)
        assert abs(w.joint_loads()[j][1] - 2.0 * 9.81) < 1e-2  # held by m g (measured 19.6200 N)
    with catena.World(backend="cpu") as w:
        box = w.add_body(mass=2.0, inertia=(0.1, 0.2, 0.3), position=(0, 1, 0))
        w.add_joint("prismatic", box, pivot=(0, 1, 0), axis=(1, 0, 0), motor=(3.0, 2.0))
        w.step(60)
        # 2 N on 2 kg for 1 s: 1 m/s (measured 1.00001)
        assert abs(w.velocities[box][0] - 1.0) < 1e-3


def test_universal_and_cone_twist():
    with catena.World(backend="cpu", gravity=(0, 0, 0)) as w:
        a = w.add_body(mass=1.0, inertia=(0.05, 0.05, 0.05), position=(-0.5, 0, 0))
        b = w.add_body(mass=1.0, inertia=(0.05, 0.05, 0.05), position=(0.5, 0, 0))
        w.add_joint("hinge", a, pivot=(-0.5, 0, 0), axis=(1, 0, 0), motor=(2.0, 100.0))
        w.add_joint("hinge", b, pivot=(0.5, 0, 0), axis=(1, 0, 0))
        u = w.add_joint("universal", a, b, pivot=(0, 0, 0), axis=(0, 0, 1), axis2=(0, 1, 0))
        w.step(60)
        assert abs(w.joint_swing(u) - math.pi / 2) < 1e-3  # the cross axes stay perpendicular
        assert abs(w.joint_angle(1) - w.joint_angle(0)) < 1e-3  # in line: the output turns with the input
        with pytest.raises(catena.Error):
            w.add_joint("universal", a, b, pivot=(0, 0, 0), axis=(0, 0, 1), axis2=(0, 0, 1))
    with catena.World(backend="cpu") as w:
        rod = w.add_body(mass=1.0, inertia=(1 / 12, 0.005, 1 / 12), position=(0, -0.5, 0),
                         angular_velocity=(0, 0, 4.0), velocity=(2.0, 0, 0))
        c = w.add_joint("cone_twist", rod, pivot=(0, 0, 0), axis=(0, -1, 0), swing_limit=0.5, limits=(-0.3, 0.3))
        worst = 0.0
        for _ in range(60):
            w.step()
            worst = max(worst, w.joint_swing(c))
        assert 0.49 < worst < 0.5 + 5e-4  # reaches the cone and stays in it (measured 0.500002)


def test_gear_and_rack_pinion():
    """Two wheels hinged to the world, A driven by a hinge motor, B geared to it at ratio 2 (B turns at -1/2
    of A's speed); a rack on a slider driven by A at 0.5 m per radian (tests/test_gear.c, smaller)."""
    with catena.World(backend="cpu", gravity=(0, 0, 0)) as w:
        a = w.add_body(mass=1.0, inertia=(0.1, 0.1, 0.2), position=(0, 0, 0))
        b = w.add_body(mass=2.0, inertia=(0.2, 0.2, 0.4), position=(1.5, 0, 0))
        rack = w.add_body(mass=1.0, inertia=(0.01, 0.1, 0.1), position=(0, -1, 0))
        ha = w.add_joint("hinge", a, pivot=(0, 0, 0), axis=(0, 0, 1), motor=(1.0, 100.0))
        hb = w.add_joint("hinge", b, pivot=(1.5, 0, 0), axis=(0, 0, 1))
        w.add_joint("prismatic", rack, pivot=(0, -1, 0), axis=(1, 0, 0))
        w.add_joint("gear", a, b, axis=(0, 0, 1), axis2=(0, 0, 1), ratio=2.0)
        w.add_joint("rack_pinion", a, rack, axis=(0, 0, 1), axis2=(1, 0, 0), ratio=0.5)
        w.step(60)
        ta, tb = w.joint_angle(ha), w.joint_angle(hb)
        assert 0.9 < ta < 1.0  # the motor turned A by ~1 rad in 1 s (measured 0.99937)
        assert abs(ta + 2.0 * tb) < 1e-5  # measured 1.2e-7
        assert abs(w.positions[rack][0] - 0.5 * ta) < 1e-5  # measured 3.1e-8 m
        with pytest.raises(catena.Error):
            w.add_joint("gear", a, b, axis=(0, 0, 1), axis2=(0, 0, 1), ratio=0.0)


def test_rack_pinion_on_moving_base():
    """relative=True: a pinion hinged and a rack sliding on a free, spinning base keep travel = ratio x turn
    on the base (the default rack-and-pinion measures the pinion's turn in the world)."""
    w = catena.World(gravity=(0, 0, 0), solver="direct")
    base = w.add_body(mass=1, inertia=(1, 1, 1), angular_velocity=(0.3, 0.5, 2.0))
    pin = w.add_body(mass=0.1, inertia=(0.01, 0.01, 0.01), angular_velocity=(0.3, 0.5, 4.0))
    rack = w.add_body(mass=0.1, inertia=(0.01, 0.01, 0.01), position=(0, -0.1, 0), angular_velocity=(0.3, 0.5, 2.0))
    hinge = w.add_joint("hinge", pin, base, pivot=(0, 0, 0), axis=(0, 0, 1))
    slider = w.add_joint("prismatic", rack, base, pivot=(0, -0.1, 0), axis=(1, 0, 0))
    w.add_joint("rack_pinion", pin, rack, axis=(0, 0, 1), axis2=(1, 0, 0), ratio=0.1, relative=True)
    worst = turn = last = 0.0
    for _ in range(120):
        w.step()
        a = w.joint_angle(hinge)  # in (-pi, pi]: unwrapped into turn
        turn += math.remainder(a - last, 2 * math.pi)
        last = a
        worst = max(worst, abs(w.joint_translation(slider) - 0.1 * turn))
    assert abs(turn) > 1.0 and worst < 1e-5, (turn, worst)  # measured: turn 4.22 rad, 1.08e-07 m


def test_joint_types_come_from_the_library():
    # JOINT_TYPES and add_joint's documentation list the library's types (ctn_joint_type_name, up to the
    # first value named "unknown"), less those with adders of their own: no list is kept in Python
    names = [n[len("JOINT_"):].lower() for n in dir(catena._catena) if n.startswith("JOINT_")]
    assert set(catena.JOINT_TYPES) == set(names) - {"contact", "curve"}
    assert {"hinge", "gear", "rack_pinion"} <= set(catena.JOINT_TYPES)
    for name in catena.JOINT_TYPES:
        assert f'"{name}"' in catena.World.add_joint.__doc__
