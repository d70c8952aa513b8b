"""Curve constraints (a bead on a wire) from Python."""
import math

import pytest

import catena


def test_bead_on_circle_period_and_parameter():
    # a bead on a vertical circle of radius 0.5 m released 0.05 rad from the bottom: period 2 pi sqrt(R/g)
    r, g = 0.5, 9.81
    world = catena.World(backend="cpu")
    bead = world.add_body(mass=0.1, particle=True, position=(r * math.sin(0.05), r - r * math.cos(0.05), 0.0))
    joint = world.add_curve("circle", bead, origin=(0, r, 0), axis=(0, 0, 1), radius=r)
    xs = []
    for _ in range(180):  # 3 s
        world.step()
        xs.append(world.positions[bead, 0])
    ups = [i for i in range(1, len(xs)) if xs[i - 1] < 0.0 <= xs[i]]
    period = (ups[-1] - ups[0]) / (len(ups) - 1) / 60.0
    want = 2.0 * math.pi * math.sqrt(r / g)
    assert abs(period - want) < 2.0 / 60.0, (period, want)  # step resolution
    # the angle of the bead on the circle (t = 0 along the automatic reference direction) is finite
    assert math.isfinite(world.curve_parameter(joint))
    assert world.joint_gaps.max() < 1e-4


def test_polyline_and_acceleration_form():
    world = catena.World(backend="cpu", gravity=(0, 0, 0))
    bead = world.add_body(mass=1.0, particle=True, position=(0.25, 0.0, 0.0), velocity=(1.0, 0.0, 0.0))
    joint = world.add_curve("polyline", bead, points=[(0, 0, 0), (0.5, 0, 0), (1.0, 0, 0), (1.5, 0, 0)])
    world.step(30)
    assert 1.0 < world.curve_parameter(joint) < 3.0
    other = world.add_body(mass=1.0, particle=True, position=(3.0, 0.0, 0.0))
    world.add_curve("line", other, origin=(3, 0, 0), axis=(1, 0, 0), stabilization="acceleration", ks=100, kd=20)
    world.step(10)


def test_bad_curves_are_refused():
    world = catena.World(backend="cpu")
    bead = world.add_body(particle=True)
    with pytest.raises(catena.InvalidArgumentError, match="curve.radius: 0"):
        world.add_curve("circle", bead, radius=0.0)
    with pytest.raises(catena.InvalidArgumentError, match="curve.count: 0"):
        world.add_curve("polyline", bead, points=[])
    with pytest.raises(catena.InvalidArgumentError, match="unknown name 'spiral'"):
        world.add_curve("spiral", bead)
    assert world.joint_count == 0
