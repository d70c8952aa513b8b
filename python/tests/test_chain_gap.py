"""A chain through Python matches the same chain through the C API (the catena CLI), bitwise."""
import json
import os
import subprocess

import numpy as np
import pytest

import catena


@pytest.mark.parametrize("solver", ["gs", "direct"])
def test_chain_gap_matches_cli(tmp_path, solver):
    cli = os.environ.get("CATENA_CLI")
    if not cli:
        pytest.skip("CATENA_CLI is not set (run through ctest)")
    summary = tmp_path / "summary.json"
    subprocess.run([cli, "run", "chain:300", "--steps", "60", "--solver", solver, "--backend", "cpu", "--quiet",
                    "--json", str(summary)], check=True, capture_output=True)
    expected = json.loads(summary.read_text())["violation"]["final_max_gap"]

    world = catena.World(solver=solver, backend="cpu")
    world.load_scene("chain:300")
    world.step(60)
    assert world.stats["solver"] == solver
    assert world.stats["max_gap"] == expected  # %.17g in the JSON: the same double
    gaps = world.joint_gaps
    assert gaps.shape == (300,)
    assert gaps.max() == world.measure()[0] == expected
    assert np.all(gaps >= 0)


def test_auto_reports_the_solver_it_ran():
    world = catena.World(backend="cpu")
    world.add_chain(200)
    world.step()
    assert world.settings["solver"] == "auto"
    assert world.stats["solver"] == "direct"  # a long chain: the exact solver
    pile = catena.World(backend="cpu")
    pile.add_pile(20)
    pile.step()
    assert pile.stats["solver"] == "gs"
