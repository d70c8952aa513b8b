"""The simulation clock (step_count, time), World.reset, add_body's inertia rule and the device notice's
wording for Python users."""
import logging

import numpy as np
import pytest

import catena


def pendulum(**settings):
    w = catena.World(backend="cpu", time_step=0.01, **settings)
    bob = w.add_body(mass=1.0, inertia={"sphere": 0.05}, position=(1, 0, 0))
    w.add_joint("ball", bob, catena.WORLD, pivot=(0, 0, 0))
    return w, bob


def test_clock_counts_steps_and_time():
    w, _ = pendulum()
    assert w.step_count == 0 and w.time == 0.0
    w.step(25)
    w.step()
    assert w.step_count == 26
    assert w.time == pytest.approx(0.26, abs=1e-12)
    w.configure(time_step=0.02)
    w.step(5)
    assert w.step_count == 31 and w.time == pytest.approx(0.36, abs=1e-12)
    assert "step 31" in repr(w)


def test_clock_of_a_loaded_checkpoint(tmp_path):
    w, _ = pendulum()
    w.step(40)
    w.save(tmp_path / "p.ckpt", step=w.step_count)
    v = catena.World.load(tmp_path / "p.ckpt")
    assert v.step_count == 40 and v.time == pytest.approx(0.4, abs=1e-12)


def test_reset_returns_to_the_state_before_the_first_step():
    w, bob = pendulum()
    start = w.positions.copy()
    w.step(50)
    swung = w.positions.copy()
    assert np.abs(swung - start).max() > 0.1  # it fell
    extra = w.add_body(particle=True, position=(5, 5, 5))  # added after the first step: undone by reset
    w.reset()
    assert w.step_count == 0 and w.time == 0.0
    assert np.array_equal(w.positions, start)
    assert w.body_count == 1 and w.joint_count == 1
    with pytest.raises(catena.NotFoundError):
        w.remove_body(extra)
    # the same run again, bitwise: the handle is still valid and the warm start was restored
    w.step(50)
    assert np.array_equal(w.positions, swung)
    assert w.mass(bob) == pytest.approx(1.0)
    # a world that has not stepped is left as it is by reset
    fresh, _ = pendulum()
    fresh.positions = [[2.0, 0.0, 0.0]]
    fresh.reset()
    assert fresh.positions[0, 0] == 2.0


def test_add_body_needs_inertia_as_scene_files_do():
    w = catena.World(backend="cpu")
    with pytest.raises(catena.InvalidArgumentError, match="inertia"):
        w.add_body(mass=1.0)
    with pytest.raises(catena.InvalidArgumentError, match="inertia"):
        w.add_body(mass=2.0, inertia={"cube": 1})
    # solids of the body's mass, by the library's formulas (as scene files' "inertia": {"box": ...})
    a = w.add_body(mass=2.0, inertia={"box": (0.5, 0.1, 0.2)})
    assert w.inertia(a) == pytest.approx((2.0 / 3 * (0.01 + 0.04), 2.0 / 3 * (0.25 + 0.04), 2.0 / 3 * (0.25 + 0.01)), rel=1e-6)
    b = w.add_body(mass=5.0, inertia={"sphere": 0.1})
    assert w.inertia(b) == pytest.approx((0.02, 0.02, 0.02), rel=1e-6)
    c = w.add_body(mass=1.0, inertia={"capsule": {"radius": 0.05, "half_length": 0.5, "axis": "y"}})
    ic = w.inertia(c)
    assert ic[1] < ic[0] == pytest.approx(ic[2])  # long along y: smallest moment about y
    # no inertia needed: particles, static and kinematic bodies
    w.add_body(particle=True)
    w.add_body(type="static")
    w.add_body(type="kinematic")


def test_device_notice_speaks_python(caplog):
    """Without a GPU the auto backend falls back with a notice; it names World's device argument."""
    if any(d["is_gpu"] for d in catena.devices()) or not catena.devices():
        pytest.skip("needs OpenCL without a GPU (the fallback notice)")
    with caplog.at_level(logging.WARNING, logger="catena"):
        catena.World(backend="auto").close()
    text = " ".join(r.getMessage() for r in caplog.records)
    if "non-GPU" not in text:
        pytest.skip(f"no device notice: {text!r}")
    assert "World(device=" in text and "desc.device" not in text and "--device" not in text, text
