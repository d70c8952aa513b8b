"""Bulk state as NumPy arrays: every field round-trips, shapes and bad values are refused, nothing changes
on a refused write."""
import numpy as np
import pytest

import catena


@pytest.fixture
def chain(cpu_world):
    cpu_world.add_chain(50)
    cpu_world.step(10)
    return cpu_world


def test_shapes_and_dtype(chain):
    assert chain.positions.shape == (50, 3)
    assert chain.orientations.shape == (50, 4)
    assert chain.velocities.shape == (50, 3)
    assert chain.angular_velocities.shape == (50, 3)
    assert chain.joint_gaps.shape == (50,)
    assert chain.joint_angles.shape == (50,)
    assert chain.positions.dtype == np.float64


@pytest.mark.parametrize("name,width,tol", [("positions", 3, 1e-12), ("orientations", 4, 1e-6),
                                            ("velocities", 3, 1e-6), ("angular_velocities", 3, 1e-6)])
def test_round_trip(chain, name, width, tol):
    rng = np.random.default_rng(7)
    values = rng.uniform(-2.0, 2.0, size=(50, width))
    if name == "orientations":
        values /= np.linalg.norm(values, axis=1, keepdims=True)
    setattr(chain, name, values)
    back = getattr(chain, name)
    # positions are two floats (~2^-48 relative); the other fields are float32
    assert np.max(np.abs(back - values)) <= tol
    # a second write of what was read changes nothing
    setattr(chain, name, back)
    assert np.array_equal(getattr(chain, name), back)


def test_write_moves_the_simulation(chain):
    v = np.zeros((50, 3))
    v[:, 2] = 1.0
    chain.velocities = v
    z0 = chain.positions[:, 2].copy()
    chain.step()
    assert np.all(chain.positions[1:, 2] > z0[1:])


def test_bad_writes_change_nothing(chain):
    before = chain.positions
    bad = before + 1.0
    bad[7, 1] = np.nan
    with pytest.raises(catena.InvalidArgumentError, match=r"position\[7\]\[1\]"):
        chain.positions = bad
    assert np.array_equal(chain.positions, before)
    with pytest.raises(catena.InvalidArgumentError, match="shape"):
        chain.positions = before[:10]
    q = chain.orientations
    zero = q.copy()
    zero[3] = 0.0
    with pytest.raises(ValueError, match=r"orientation\[3\]"):
        chain.orientations = zero
    assert np.array_equal(chain.orientations, q)


def test_integer_and_list_input_is_converted(cpu_world):
    a = cpu_world.add_body(position=(1, 2, 3), particle=True)
    cpu_world.add_body(particle=True)
    cpu_world.positions = [[0, 0, 0], [4, 5, 6]]
    assert cpu_world.positions.tolist() == [[0.0, 0.0, 0.0], [4.0, 5.0, 6.0]]
    assert a == 0


def test_rows_are_slots(cpu_world):
    ids = [cpu_world.add_body(position=(i + 1.0, 0, 0), particle=True) for i in range(3)]
    assert ids == [0, 1, 2]  # nothing removed yet: handles are the rows
    cpu_world.remove_body(ids[1])
    p = cpu_world.positions
    assert p.shape == (3, 3)
    assert p[1].tolist() == [0.0, 0.0, 0.0] and p[2, 0] == 3.0  # a free slot reads zeros
    assert cpu_world.body_count == 2
    new = cpu_world.add_body(position=(7.0, 0, 0), particle=True)  # reuses the slot with a new generation
    assert new != ids[1] and catena.slot(new) == 1
    assert cpu_world.positions[catena.slot(new), 0] == 7.0
    with pytest.raises(catena.NotFoundError):
        cpu_world.remove_body(ids[1])  # the stale handle is refused


def test_joint_forces_of_a_hanging_mass(cpu_world):
    mass, g = 2.0, 9.81
    bob = cpu_world.add_body(mass=mass, inertia=(0.1, 0.1, 0.1), position=(0, -1, 0))
    pin = cpu_world.add_joint("ball", bob, pivot=(0, 0, 0))
    cpu_world.step(60)
    forces, torques = cpu_world.joint_forces, cpu_world.joint_torques
    assert forces.shape == (1, 3) and torques.shape == (1, 3)
    # the pin holds the mass up against gravity: m g upwards on body a
    assert forces[pin] == pytest.approx([0.0, mass * g, 0.0], abs=1e-3)
    assert np.array_equal(cpu_world.joint_loads()[:, :3], forces)
