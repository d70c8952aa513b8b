"""step() releases the GIL: another Python thread runs while a long step is in progress, and is refused
the world meanwhile (a world is used from one thread at a time)."""
import threading

import catena


def test_other_threads_progress_during_step():
    world = catena.World(backend="cpu", solver="gs", iterations=10, threads=1)
    world.add_chain(1000)
    done = threading.Event()
    seen_busy = 0
    other_work = 0

    def stepper():
        try:
            world.step(30)
        finally:
            done.set()

    thread = threading.Thread(target=stepper)
    thread.start()
    while not done.is_set():
        other_work += 1
        try:
            world.stats
        except RuntimeError as e:  # only observable while step() runs without the GIL
            assert isinstance(e, catena.BusyError) and e.status_name == "CTN_ERR_BUSY", repr(e)
            assert "in use by another thread" in str(e)
            seen_busy += 1
    thread.join()
    assert seen_busy > 0, "this thread never ran while step() was in progress: the GIL was held"
    world.step()  # usable again afterwards
    assert world.stats["substeps"] == 4


def test_thread_count_setting_and_default():
    """threads=N runs the CPU loops on N threads; the default is the CPUs of the affinity mask; out of range
    is refused naming the setting."""
    import os

    import pytest

    world = catena.World(backend="cpu", solver="direct", iterations=1, substeps=1, threads=3)
    world.add_chain(2000)
    world.step()
    assert world.stats["threads"] == 3
    world = catena.World(backend="cpu", solver="direct", iterations=1, substeps=1)
    world.add_chain(2000)
    world.step()
    assert world.stats["threads"] == len(os.sched_getaffinity(0))
    with pytest.raises(catena.InvalidArgumentError, match="desc.threads: 1025"):
        catena.World(backend="cpu", threads=1025)


def test_wait_policy_set_before_libgomp_loads():
    """The package sets OMP_WAIT_POLICY=passive at import unless the user chose a policy (a fresh interpreter,
    so that the import is the one that loads libgomp)."""
    import os
    import subprocess
    import sys

    probe = "import os, catena; print(os.environ.get('OMP_WAIT_POLICY'))"
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "passive"
    env["OMP_WAIT_POLICY"] = "active"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "active"
