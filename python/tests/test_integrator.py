"""The integrator setting (docs/design.md section 11): RATTLE by default with the direct solver, the velocity
step on request, and the stats say which ran and why."""
import catena


def test_rattle_default_and_velocity_switch():
    w = catena.World(backend="cpu", solver="direct")
    w.add_chain(10)
    w.step()
    st = w.stats
    assert st["integrator"] == "rattle", st["integrator_reason"]
    assert st["rattle_substeps"] >= 4
    assert st["max_gap"] < 1e-6
    v = catena.World(backend="cpu", solver="direct", integrator="velocity")
    v.add_chain(10)
    v.step()
    assert v.stats["integrator"] == "velocity"
    assert "desc.integrator" in v.stats["integrator_reason"]


def test_gs_runs_the_velocity_step():
    w = catena.World(backend="cpu", solver="gs")
    w.add_chain(3)
    w.step()
    assert w.stats["integrator"] == "velocity"
    assert "gs" in w.stats["integrator_reason"]


def test_rattle_max_joints():
    w = catena.World(backend="cpu", solver="direct", rattle_max_joints=5)
    w.add_chain(10)
    w.step()
    assert w.stats["integrator"] == "velocity"
    assert "rattle_max_joints" in w.stats["integrator_reason"]
    assert w.settings["rattle_max_joints"] == 5
    r = catena.World(backend="cpu", solver="direct", rattle_max_joints=10)
    r.add_chain(10)
    r.step()
    assert r.stats["integrator"] == "rattle", r.stats["integrator_reason"]
    try:
        catena.World(backend="cpu", rattle_max_joints=-1)
    except catena.InvalidArgumentError as e:
        assert "rattle_max_joints" in str(e) and "-1" in str(e)
    else:
        raise AssertionError("rattle_max_joints=-1 was accepted")


def test_joint_gap_and_contact_depth_apart(tmp_path):
    """A pile sunk centimetres deep by one Gauss-Seidel sweep and a ball joint that holds: the stats give the
    joints' gap and the contacts' depth apart, and max_gap is the larger of the two."""
    scene = tmp_path / "deep.json"
    scene.write_text('{"world": {"time_step": 0.016666667, "solver": "gs", "substeps": 1, "iterations": 1},'
                     ' "bodies": [{"name": "bob", "mass": 1.0, "position": [10, 2, 0], "particle": true}],'
                     ' "constraints": [{"type": "ball", "a": "bob", "b": "world", "pivot": [10, 2, 0]}],'
                     ' "generators": [{"pile": {"spheres": 200}}]}')
    w = catena.World.from_scene(scene, backend="cpu")
    for _ in range(30):
        w.step()
    st = w.stats
    assert st["max_joint_gap"] < 1e-6
    assert st["max_penetration"] > 0.02
    assert st["max_gap"] == max(st["max_joint_gap"], st["max_penetration"])
    # the state's own reads split the same way: measure() is the joints', measure_contacts() the contacts'
    gap, _ = w.measure()
    assert gap < 1e-6 and abs(gap - st["max_joint_gap"]) <= 1e-9
    assert w.measure_contacts() == st["max_penetration"]
    gaps, depths = w.joint_gaps, w.contact_depths
    assert gaps.max() == gap and depths.max() == w.measure_contacts()
    assert not ((gaps != 0) & (depths != 0)).any()
