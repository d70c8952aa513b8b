"""World.assemble: the sloppy four-bar example closes and its crank tip reaches the target; a rod pinned to
world points further apart than its length is refused by name with the world unchanged."""
import os

import numpy as np
import pytest

import catena

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "examples")


def test_fourbar_example_assembles():
    with catena.World.from_scene(os.path.join(EXAMPLES, "fourbar_assemble.json"), backend="cpu") as w:
        crank = w.find_body("crank")
        gap0, _ = w.measure()
        assert gap0 > 0.05
        target = (np.cos(1.2), np.sin(1.2), 0.0)
        r = w.assemble(tolerance=1e-6, targets=[(crank, (0.5, 0, 0), target)])
        assert r["max_gap"] <= 1e-6 and r["max_angle"] <= 1e-6
        assert r["target_distance"] <= 1e-6
        assert r["gather_iterations"] > 0 and r["newton_iterations"] > 0
        gap, angle = w.measure()  # float32 rows: the library's own measure agrees to its rounding
        assert gap < 1e-5 and angle < 1e-5


def test_impossible_rod_is_refused():
    with catena.World(backend="cpu") as w:
        rod = w.add_body(mass=1.0, inertia=(0.1, 0.1, 0.1), position=(0.6, 0.1, 0.0))
        j0 = w.add_joint("ball", rod, catena.WORLD, anchor_a=(-0.5, 0, 0), anchor_b=(0, 0, 0))
        j1 = w.add_joint("ball", rod, catena.WORLD, anchor_a=(0.5, 0, 0), anchor_b=(1.2, 0, 0))
        before = w.positions.copy()
        with pytest.raises(catena.InvalidArgumentError) as e:
            w.assemble()
        assert f"joint {j0} " in str(e.value) and f"joint {j1} " in str(e.value)
        assert np.array_equal(w.positions, before)
