"""A control loop on a live world (motor and limits set between steps), body mass and inertia, scene
saving, element assignment to the state arrays and the world's repr."""
import json
import math

import numpy as np
import pytest

import catena


def _wheel(w):
    wheel = w.add_body(mass=2.0, inertia=(0.1, 0.1, 0.2), position=(0, 0, 0))
    hinge = w.add_joint("hinge", wheel, pivot=(0, 0, 0), axis=(0, 0, 1))
    return wheel, hinge


def test_motor_set_between_steps_drives_the_wheel(cpu_world):
    w = cpu_world
    w.configure(gravity=(0, 0, 0))
    wheel, hinge = _wheel(w)
    assert w.motor(hinge) is None
    for target in (2.0, -1.0):  # a velocity controller changing its set point, as setJointMotorControl2
        w.set_motor(hinge, speed=target, max_force=50.0)
        assert w.motor(hinge) == pytest.approx((target, 50.0))
        w.step(30)
        assert w.angular_velocities[wheel][2] == pytest.approx(target, abs=1e-3)
    w.set_motor(hinge)  # removed: the wheel coasts at its last speed
    assert w.motor(hinge) is None
    w.step(30)
    assert w.angular_velocities[wheel][2] == pytest.approx(-1.0, abs=1e-3)
    with pytest.raises(catena.InvalidArgumentError):
        w.set_motor(hinge, speed=1.0)  # no max_force
    with pytest.raises(catena.InvalidArgumentError):
        w.set_motor(hinge, speed=1.0, max_force=-1.0)  # refused by the library, motor unchanged
    assert w.motor(hinge) is None


def test_limits_set_between_steps_stop_the_wheel(cpu_world):
    w = cpu_world
    w.configure(gravity=(0, 0, 0))
    wheel, hinge = _wheel(w)
    w.set_motor(hinge, speed=3.0, max_force=5.0)
    w.step(5)
    w.set_limits(hinge, -0.2, 0.3)
    assert w.limits(hinge) == pytest.approx((-0.2, 0.3))
    w.step(60)
    assert w.joint_angle(hinge) == pytest.approx(0.3, abs=0.02)  # the motor presses it against the upper limit
    w.set_limits(hinge)
    assert w.limits(hinge) is None
    w.step(30)
    assert w.joint_angle(hinge) > 0.5  # free again
    with pytest.raises(catena.InvalidArgumentError):
        w.set_limits(hinge, 0.5)  # one bound only
    with pytest.raises(catena.InvalidArgumentError):
        w.set_limits(hinge, 1.0, -1.0)  # lower above upper: refused, none set
    assert w.limits(hinge) is None
    with pytest.raises(catena.NotFoundError):
        w.set_limits(99, -1.0, 1.0)


def test_mass_and_inertia(cpu_world):
    w = cpu_world
    b = w.add_body(mass=3.0, inertia=(0.1, 0.2, 0.3))
    assert w.mass(b) == pytest.approx(3.0, rel=1e-7)  # kept in float32
    assert w.inertia(b) == pytest.approx((0.1, 0.2, 0.3))
    assert w.body(b)["mass"] == w.mass(b)
    with pytest.raises(catena.NotFoundError):
        w.mass(42)


def test_save_scene_round_trip(cpu_world, tmp_path):
    w = cpu_world
    wheel, hinge = _wheel(w)
    w.set_motor(hinge, speed=1.5, max_force=10.0)
    path = tmp_path / "wheel.json"
    w.save_scene(path)
    scene = json.loads(path.read_text())
    assert len(scene["bodies"]) == 1 and len(scene["constraints"]) == 1
    back = catena.World.from_scene(path, backend="cpu")
    assert back.body_count == 1 and back.joint_count == 1
    assert back.mass(0) == pytest.approx(2.0, rel=1e-7)
    assert back.motor(0) == pytest.approx((1.5, 10.0))
    back.close()


def test_element_assignment_writes_back(cpu_world):
    w = cpu_world
    w.add_chain(3)
    before = w.positions
    w.positions[1, 1] = 5.0  # one element of a fresh read: written to the world
    after = w.positions
    assert after[1, 1] == 5.0
    assert np.array_equal(np.delete(after, 1, axis=0), np.delete(before, 1, axis=0))
    kept = w.velocities  # held across a step: only the rows assigned go back
    w.step()
    moved = w.velocities
    kept[0] = (0.0, 0.0, 1.0)
    now = w.velocities
    assert now[0].tolist() == [0.0, 0.0, 1.0]
    assert np.array_equal(now[1:], moved[1:])  # not the stale rows of `kept`
    assert type(w.positions + 1.0) is not type(w.positions) or (w.positions + 1.0)._world is None


def test_repr(cpu_world):
    w = cpu_world
    w.add_chain(2)
    text = repr(w)
    assert "2 bodies" in text and "2 joints" in text and "backend cpu" in text
    w.close()
    assert repr(w) == "<catena.World closed>"
