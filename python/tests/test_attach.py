"""Attachments: a particle welded to a swinging bar stays on its tip; detach lets it go."""
import numpy as np
import pytest

import catena


def test_attach_detach():
    world = catena.World(backend="cpu")
    bar = world.add_body(mass=1.0, inertia=(0.002, 0.084, 0.084), position=(0.5, 0.0, 0.0))
    world.add_joint("hinge", bar, catena.WORLD, pivot=(0, 0, 0), axis=(0, 0, 1))
    tip = world.add_body(mass=0.5, particle=True, position=(2.0, 0.0, 0.0))
    world.attach(tip, bar, point=(0.5, 0.0, 0.0))
    assert world.attachment(tip) == (bar, (0.5, 0.0, 0.0))
    assert world.attachment(bar) is None
    world.step(60)
    # the tip: the bar's centre plus its x axis * 0.5, exactly (orientation (w, x, y, z) about z)
    w, _, _, z = world.orientations[bar]
    axis = np.array([1 - 2 * z * z, 2 * w * z, 0.0])
    assert np.linalg.norm(world.positions[tip] - (world.positions[bar] + 0.5 * axis)) < 1e-6
    with pytest.raises(catena.InUseError):
        world.remove_body(bar)  # the hinge holds it (and the tip is attached)
    with pytest.raises(catena.InvalidArgumentError):
        world.attach(bar, bar)
    world.detach(tip)
    assert world.attachment(tip) is None
    world.step(30)
    assert np.linalg.norm(world.positions[tip] - world.positions[bar]) > 0.6  # it flew off
