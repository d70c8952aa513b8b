"""Errors are catena.Error subclasses with the library's message and status; the world is unchanged."""
import numpy as np
import pytest

import catena


def snapshot(world):
    return (world.positions, world.velocities, world.body_count, world.joint_count)


def same(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a, b))


def test_hierarchy():
    assert issubclass(catena.InvalidArgumentError, catena.Error) and issubclass(catena.InvalidArgumentError, ValueError)
    assert issubclass(catena.NotFoundError, LookupError) and issubclass(catena.FileError, OSError)
    for status, cls in enumerate(catena.BY_STATUS[1:], start=1):
        assert cls.status == status and cls.status_name.startswith("CTN_ERR_")


def test_bad_settings():
    with pytest.raises(catena.InvalidArgumentError, match="time_step") as info:
        catena.World(time_step=-1.0, backend="cpu")
    assert info.value.status == 1 and info.value.status_name == "CTN_ERR_INVALID_ARGUMENT"
    with pytest.raises(catena.InvalidArgumentError, match="solver: unknown name 'fast'"):
        catena.World(solver="fast")
    with pytest.raises(TypeError, match="unknown field 'gravitee'"):
        catena.World(gravitee=(0, 0, 0))
    with pytest.raises(TypeError, match="gravity"):
        catena.World(gravity=(0, 0))


def test_bad_joint_leaves_world_unchanged(cpu_world):
    cpu_world.add_chain(10)
    cpu_world.step(5)
    before = snapshot(cpu_world)
    with pytest.raises(catena.InvalidArgumentError, match="axis"):
        cpu_world.add_joint("hinge", 0, 1, pivot=(0, 0, 0), axis=(0, 0, 0))
    with pytest.raises(catena.NotFoundError, match="99"):
        cpu_world.add_joint("ball", 0, 99, pivot=(0, 0, 0))
    with pytest.raises(catena.InvalidArgumentError, match="joint.type"):
        cpu_world.add_joint("slider", 0, 1)
    with pytest.raises(catena.Error):  # limits on a ball joint: refused, the joint taken out again
        cpu_world.add_joint("ball", 0, 1, pivot=(0, 0, 0), limits=(-1, 1))
    with pytest.raises(catena.InUseError):
        cpu_world.remove_body(0)
    with pytest.raises(catena.NotFoundError):
        cpu_world.remove_joint(1000)
    with pytest.raises(catena.InvalidArgumentError):
        cpu_world.add_body(mass=-1.0)
    with pytest.raises(catena.InvalidArgumentError):
        cpu_world.set_force(0, force=(np.inf, 0, 0))
    assert same(snapshot(cpu_world), before)


def test_bad_scene_and_files(cpu_world, tmp_path):
    with pytest.raises(catena.InvalidArgumentError, match="chain:N"):
        cpu_world.load_scene("chain:-3")
    with pytest.raises(catena.FileError):
        cpu_world.load_scene(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"bodies": [{"mass": -1}]}')
    with pytest.raises(catena.InvalidArgumentError, match="broken.json"):
        cpu_world.load_scene(broken)
    assert cpu_world.body_count == 0
    with pytest.raises(catena.FileError):
        catena.World.load(tmp_path / "missing.ckpt")
    junk = tmp_path / "junk.ckpt"
    junk.write_bytes(b"not a checkpoint at all" * 10)
    with pytest.raises(catena.Error):
        catena.World.load(junk)


def test_diverged_step_is_undone():
    world = catena.World(backend="cpu", max_speed=50.0)
    world.add_chain(5)
    v = world.velocities
    v[4] = (0, 1000.0, 0)  # across the chain: along it, the exact solver takes the kick out entirely
    world.velocities = v
    before = world.positions
    with pytest.raises(catena.DivergedError):
        world.step()
    assert np.array_equal(world.positions, before)


def test_cache_dir_is_a_setting_not_the_environment(tmp_path):
    # the package set it from the environment at import; the library itself reads no variable
    before = catena.get_cache_dir()
    try:
        catena.set_cache_dir(tmp_path / "programs")
        assert catena.get_cache_dir() == str(tmp_path / "programs")
        catena.set_cache_dir(None)
        assert catena.get_cache_dir() == ""
        with pytest.raises(ValueError):
            catena.set_cache_dir("x" * 2000)
        assert catena.get_cache_dir() == ""  # unchanged by the refused path
    finally:
        catena.set_cache_dir(before or None)
