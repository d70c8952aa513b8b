"""World.load_urdf: the double pendulum URDF steps bitwise like its JSON twin; what Catena cannot represent
is refused by name with the world unchanged."""
import os

import numpy as np
import pytest

import catena

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "examples")


def _loaded(world, path):
    try:
        return world.load_urdf(path)
    except catena.Error as e:
        if "no URDF support" in str(e):
            pytest.skip("this build has no URDF support (liburdfdom-dev)")
        raise


def test_double_pendulum_matches_json(tmp_path):
    with catena.World(backend="cpu") as a, catena.World(backend="cpu") as b:
        report = _loaded(a, os.path.join(EXAMPLES, "double_pendulum.urdf"))
        assert isinstance(report, str)
        b.load_scene(os.path.join(EXAMPLES, "double_pendulum.json"))
        a.step(120)
        b.step(120)
        assert np.array_equal(a.positions, b.positions)
        assert np.array_equal(a.velocities, b.velocities)
        assert a.positions.shape == (2, 3)


def _one_joint_robot(tmp_path, name, joint_type, parent, axis, lower, effort):
    """A URDF robot of one joint `rail` of joint_type between link `parent` and a 1 kg link `cart`,
    along axis, with limits [lower, 1] m and the given effort; returns its path."""
    urdf = tmp_path / (name + ".urdf")
    urdf.write_text(f"""<?xml version="1.0"?>
<robot name="{name}">
  <link name="{parent}"/>
  <joint name="rail" type="{joint_type}">
    <parent link="{parent}"/><child link="cart"/>
    <axis xyz="{axis}"/><limit lower="{lower}" upper="1" effort="{effort}" velocity="1"/>
  </joint>
  <link name="cart">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
  </link>
</robot>
""")
    return str(urdf)


def test_refused_world_unchanged(tmp_path):
    urdf = _one_joint_robot(tmp_path, "noaxis", "continuous", "base", "0 0 0", "-1", 10)
    with catena.World(backend="cpu") as w:
        w.load_scene("chain:3")
        before = w.positions.copy()
        with pytest.raises(catena.Error) as info:
            _loaded(w, urdf)
        assert "rail" in str(info.value) and "axis" in str(info.value)
        assert np.array_equal(w.positions, before)


def test_planar_holds_the_plane(tmp_path):
    urdf = _one_joint_robot(tmp_path, "planar", "planar", "world", "0 1 0", "-1", 10)
    with catena.World(backend="cpu") as w:
        _loaded(w, urdf)
        w.step(60)
        # the plane's normal is along gravity: the cart stays on it (free, it would fall 4.9 m in 1 s)
        assert abs(w.positions[0][1]) < 1e-4


def test_prismatic_is_a_slider(tmp_path):
    urdf = _one_joint_robot(tmp_path, "slider", "prismatic", "world", "0 1 0", "-0.25", 0)
    with catena.World(backend="cpu") as w:
        _loaded(w, urdf)
        w.step(60)
        # falls along the vertical rail onto its lower limit (measured -0.25000)
        assert abs(w.joint_translation(0) + 0.25) < 1e-4


def test_self_collision_off_by_default():
    """The snake's links share one collision group and never touch each other; self_collision=True lets
    them (pairs joined by a joint excepted)."""
    counts = []
    for self_collision in (False, True):
        with catena.World(backend="cpu", gravity=(0, 0, -9.81)) as w:
            try:
                w.load_urdf(os.path.join(EXAMPLES, "snake_50.urdf"), self_collision=self_collision)
            except catena.Error as e:
                if "no URDF support" in str(e):
                    pytest.skip("this build has no URDF support (liburdfdom-dev)")
                raise
            most = 0
            for _ in range(60):
                w.step()
                most = max(most, len(w.contacts))
            counts.append(most)
    assert counts[0] == 0 and counts[1] > 0, counts


def test_shape_group():
    """Two overlapping spheres in one group make no contact; in different groups they do."""
    found = []
    for groups in ((5, 5), (5, 6)):
        with catena.World(backend="cpu", gravity=(0, 0, 0)) as w:
            a = w.add_body(mass=1.0, inertia={"sphere": 0.1}, position=(0, 0, 0))
            b = w.add_body(mass=1.0, inertia={"sphere": 0.1}, position=(0.18, 0, 0))
            w.set_shape(a, "sphere", radius=0.1, group=groups[0])
            w.set_shape(b, "sphere", radius=0.1, group=groups[1])
            w.step()
            found.append(len(w.contacts))
    assert found[0] == 0 and found[1] > 0, found
    with catena.World(backend="cpu") as w:
        a = w.add_body(mass=1.0, inertia={"sphere": 0.1})
        with pytest.raises(catena.Error, match="shape.group"):
            w.set_shape(a, "sphere", radius=0.1, group=-1)


def test_find_joint():
    """URDF joints keep their names: find_joint returns the handle, an unknown name raises NotFoundError."""
    with catena.World(backend="cpu") as w:
        _loaded(w, os.path.join(EXAMPLES, "double_pendulum.urdf"))
        shoulder, elbow = w.find_joint("shoulder"), w.find_joint("elbow")
        assert shoulder != elbow
        with pytest.raises(catena.NotFoundError):
            w.find_joint("no such joint")


def test_shape_offset():
    """A sphere placed 1 m off its static body's centre stops a falling ball over that point."""
    with catena.World(backend="cpu") as w:
        base = w.add_body(type="static", position=(0, 0, 0))
        w.set_shape(base, "sphere", radius=0.2, offset=(1.0, 0, 0))
        ball = w.add_body(mass=1.0, inertia={"sphere": 0.1}, position=(1.0, 0.5, 0))
        w.set_shape(ball, "sphere", radius=0.1)
        for _ in range(60):
            w.step()
        assert abs(w.positions[ball][1] - 0.3) < 2e-3


def test_compound_shape(tmp_path):
    """Two spheres on one static body (add_shape): a ball dropped over the second stops on it; the shapes
    survive a scene file and a checkpoint."""
    with catena.World(backend="cpu") as w:
        base = w.add_body(type="static", position=(0, 0, 0))
        assert w.shape_count(base) == 0
        assert w.add_shape(base, "sphere", radius=0.2) == 0
        assert w.add_shape(base, "sphere", radius=0.2, offset=(1.0, 0, 0)) == 1
        assert w.shape_count(base) == 2
        ball = w.add_body(mass=1.0, inertia={"sphere": 0.1}, position=(1.0, 0.5, 0))
        w.set_shape(ball, "sphere", radius=0.1)
        for _ in range(60):
            w.step()
        assert abs(w.positions[ball][1] - 0.3) < 2e-3
        with pytest.raises(catena.Error):
            w.add_shape(base, "sphere", radius=-1.0)
        assert w.shape_count(base) == 2
        w.save_scene(str(tmp_path / "compound.json"))
        w.save(str(tmp_path / "compound.ckpt"), step=60)
    with catena.World(backend="cpu") as s:
        s.load_scene(str(tmp_path / "compound.json"))
        assert s.shape_count(0) == 2
    again = catena.World.load(str(tmp_path / "compound.ckpt"))
    try:
        assert again.shape_count(0) == 2
    finally:
        again.close()
