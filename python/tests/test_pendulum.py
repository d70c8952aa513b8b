"""A pendulum's period against the analytic value."""
import math

import numpy as np

import catena


def test_particle_pendulum_period():
    # a point mass on a 1 m distance joint, released 5 degrees off the vertical
    length, theta0, g = 1.0, math.radians(5.0), 9.81
    world = catena.World(backend="cpu", time_step=1.0 / 240.0, substeps=4, iterations=8)
    bob = world.add_body(mass=1.0, particle=True, position=(length * math.sin(theta0), -length * math.cos(theta0), 0.0))
    world.add_joint("distance", bob, catena.WORLD, anchor_a=(0, 0, 0), anchor_b=(0, 0, 0))
    steps = 2400  # 10 s, about 5 periods
    x = np.empty(steps)
    for i in range(steps):
        world.step()
        x[i] = world.positions[bob, 0]
    # times of the downward zero crossings of x, interpolated linearly between steps
    t = (np.arange(steps) + 1) * world.settings["time_step"]
    idx = np.nonzero((x[:-1] > 0) & (x[1:] <= 0))[0]
    crossings = t[idx] + (t[idx + 1] - t[idx]) * x[idx] / (x[idx] - x[idx + 1])
    assert len(crossings) >= 4
    period = np.mean(np.diff(crossings))
    # the large-amplitude series T = 2 pi sqrt(L/g) (1 + theta0^2 / 16 + ...)
    analytic = 2.0 * math.pi * math.sqrt(length / g) * (1.0 + theta0 ** 2 / 16.0)
    assert abs(period - analytic) / analytic < 2e-3, (period, analytic)
    # the joint holds the length
    assert world.joint_gaps.max() < 1e-4
