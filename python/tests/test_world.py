"""Joints of every type with their options, generators, scene files, checkpoints and devices."""
import logging
import math
import os

import numpy as np
import pytest

import catena


def test_every_joint_type(cpu_world):
    w = cpu_world
    a = w.add_body(position=(1, 0, 0), inertia=(0.1, 0.1, 0.1))
    b = w.add_body(position=(2, 0, 0), inertia=(0.1, 0.1, 0.1))
    c = w.add_body(position=(3, 0, 0), particle=True)
    d = w.add_body(position=(0, -1, 0), inertia=(0.1, 0.1, 0.1))
    e = w.add_body(position=(0, -2, 0), inertia=(0.1, 0.1, 0.1))
    ids = [w.add_joint("ball", a, pivot=(0, 0, 0)),
           w.add_joint("hinge", b, a, pivot=(1.5, 0, 0), axis=(0, 0, 1), limits=(-0.5, 0.5)),
           w.add_joint("distance", c, b, anchor_a=(0, 0, 0), anchor_b=(0, 0, 0), rope=True, compliance=1e-6),
           w.add_joint("fixed", d, pivot=(0, -0.5, 0), damping_time=0.05),
           w.add_joint("spring", e, d, anchor_a=(0, 0, 0), anchor_b=(0, 0, 0), rest_length=1.0, stiffness=100.0,
                       damping=1.0)]
    assert ids == list(range(5)) and w.joint_count == 5
    w.step(120)
    assert np.all(np.isfinite(w.positions))
    assert abs(w.joint_angle(ids[1])) <= 0.5 + 0.02
    assert w.positions[d].tolist() == pytest.approx([0, -1, 0], abs=1e-3)  # welded
    assert w.joint_gaps[4] == 0.0  # a spring has no rows
    assert np.linalg.norm(w.positions[c] - w.positions[b]) <= 1.0 + 1e-3  # the rope holds


def test_implicit_spring_holds_a_stiff_load(cpu_world):
    w = cpu_world
    w.configure(substeps=1)
    m = w.add_body(position=(0, -1, 0), particle=True)
    w.add_joint("spring", m, rest_length=1.0, stiffness=1e9, implicit=True)
    w.step(60)
    assert abs(w.positions[m, 1] + 1.0) < 1e-6  # a 1e9 N/m spring at 60 Hz, one substep
    assert w.joint_gaps[0] == 0.0  # a spring's stretch is no joint error


def test_hinge_motor_drives_the_wheel(cpu_world):
    w = cpu_world
    w.configure(gravity=(0, 0, 0))
    wheel = w.add_body(mass=2.0, inertia=(0.25, 0.25, 0.25))
    j = w.add_joint("hinge", wheel, pivot=(0, 0, 0), axis=(0, 0, 1), motor=(3.0, 50.0))
    w.step(60)
    assert w.angular_velocities[wheel, 2] == pytest.approx(3.0, rel=1e-3)
    assert w.joint_angle(j) != 0.0


def test_generators(cpu_world):
    w = cpu_world
    first = w.add_chain(10, origin=(0, 5, 0), direction=(0, -1, 0))
    assert first == 0 and w.body_count == 10
    assert w.positions[0, 1] < 5.0
    w.add_grid(3, 4)
    w.add_bridge(5)
    w.add_cradle(3)
    w.add_double_pendulum()
    w.add_capsule_chain(4)
    w.add_pile(5)
    w.add_bridge_limits(4)
    w.add_wheel()
    w.add_contact_cradle(3)
    w.load_scene("rope:20")
    n = w.body_count
    w.step(3)
    assert np.all(np.isfinite(w.positions)) and n > 60
    with pytest.raises(ValueError):
        w._h.generate("nonsense")


def test_scene_files(repo):
    path = os.path.join(repo, "examples", "mechanisms.json")
    world = catena.World.from_scene(path, backend="cpu")
    assert world.info["steps"] > 0 and world.body_count > 0
    world.step(5)
    other = catena.World(backend="cpu")
    other.load_scene(path)
    assert other.body_count == world.body_count


def test_checkpoint_resume_is_bitwise(tmp_path):
    world = catena.World(backend="cpu", solver="gs")
    world.add_chain(40)
    world.step(30)
    path = tmp_path / "state.ckpt"
    world.save(path, step=30, user="from python")
    world.step(30)
    loaded = catena.World.load(path)
    assert loaded.info["step"] == 30 and loaded.info["user"] == "from python"
    assert loaded.settings["solver"] == "gs"
    loaded.step(30)
    assert np.array_equal(loaded.positions, world.positions)
    assert np.array_equal(loaded.velocities, world.velocities)
    assert os.listdir(tmp_path) == ["state.ckpt"]  # written atomically: no temporary left


def test_settings_round_trip(cpu_world):
    cpu_world.configure(substeps=8, iterations=2, solver="jacobi", stabilization="baumgarte")
    s = cpu_world.settings
    assert (s["substeps"], s["iterations"], s["solver"], s["stabilization"]) == (8, 2, "jacobi", "baumgarte")
    assert cpu_world.backend == "cpu"
    with pytest.raises(catena.InvalidArgumentError):
        cpu_world.configure(substeps=-1)
    assert cpu_world.settings["substeps"] == 8


def test_devices():
    devices = catena.devices()
    assert isinstance(devices, list)
    for d in devices:
        assert {"name", "platform", "device", "is_gpu", "global_memory_mib"} <= set(d)
    if devices:  # OpenCL is there: a world on it runs the same chain
        world = catena.World(backend="opencl", device=f"{devices[0]['platform']}:{devices[0]['device']}")
        assert world.backend == "opencl"
        world.add_chain(20)
        world.step(5)
        assert np.all(np.isfinite(world.positions))


def test_closed_world_is_refused():
    world = catena.World(backend="cpu")
    world.close()
    with pytest.raises(RuntimeError, match="closed"):
        world.step()
    assert math.isfinite(1.0)


def test_library_messages_reach_logging(caplog):
    caplog.set_level(logging.INFO, logger="catena")
    world = catena.World(backend="auto")  # without a GPU: a warning that the CPU solver is used
    if world.backend == "cpu":
        assert any(r.levelno == logging.WARNING and "CPU solver" in r.getMessage() for r in caplog.records), caplog.text


def test_names_and_winch(cpu_world):
    w = cpu_world
    load = w.add_body(mass=1.0, particle=True, position=(0, -2, 0), name="load")
    assert w.find_body("load") == load
    with pytest.raises(catena.NotFoundError):
        w.find_body("nothing")
    cable = w.add_joint("distance", load, anchor_a=(0, 0, 0), anchor_b=(0, 0, 0))
    w.step(30)
    for i in range(60):  # reel the load up by 1 m over one second
        w.set_rest_length(cable, 2.0 - (i + 1) / 60.0)
        w.step()
    w.step(60)
    assert w.positions[load, 1] == pytest.approx(-1.0, abs=1e-3)
    with pytest.raises(catena.InvalidArgumentError):
        w.set_rest_length(cable, -1.0)


def test_user_contacts_and_collision_settings(cpu_world):
    w = cpu_world
    ball = w.add_body(mass=1.0, inertia=(0.004, 0.004, 0.004), position=(0, 0.1, 0))
    floor = w.add_contact(ball, catena.WORLD, point=(0, 0, 0), normal=(0, 1, 0), depth=0.0, friction=0.5)
    w.step(60)
    assert w.positions[ball, 1] == pytest.approx(0.1, abs=2e-3)  # resting on the contact, not falling
    (c,) = w.contacts
    assert c["joint"] == floor and c["user"] == 1 and c["impulse"][0] > 0
    w.update_contact(floor, ball, point=(0, -1, 0), normal=(0, 1, 0), depth=0.0)
    w.remove_joint(floor)
    w.step(30)
    assert w.positions[ball, 1] < 0.0 and w.contacts == []  # the floor is gone
    with pytest.raises(catena.InvalidArgumentError):
        w.add_contact(ball, catena.WORLD, point=(0, 0, 0), normal=(0, 0, 0))
    assert w.collision()["enabled"] == 1
    assert w.collision(margin=0.02, skip_jointed=False) == {"enabled": 1, "skip_jointed": 0, "margin": 0.02}
    with pytest.raises(catena.InvalidArgumentError):
        w.collision(margin=-1.0)
    assert w.collision()["margin"] == 0.02
