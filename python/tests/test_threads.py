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
