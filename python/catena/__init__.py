"""Catena: a parallel constraint solver for chained rigid bodies and particles (Python binding).

    import catena
    world = catena.World(solver="auto", backend="cpu")
    world.add_chain(1000)
    world.step(600)
    print(world.stats["solver"], world.joint_gaps.max(), world.positions[-1])

See help(catena.World), catena.devices() and the README's "Python" section.
"""

from . import _catena
from .errors import (BY_STATUS, DeviceError, DivergedError, Error, FileError, InUseError, InvalidArgumentError,
                     LimitError, NotFoundError, OutOfMemoryError, UnsupportedError)
from .world import BACKENDS, BODY_TYPES, JOINT_TYPES, SHAPES, SOLVERS, STABILIZATIONS, WORLD, World, slot

__version__ = f"{_catena.VERSION_MAJOR}.{_catena.VERSION_MINOR}.{_catena.VERSION_PATCH}"


def devices():
    """The OpenCL devices as a list of dicts (platform, device, name, vendor, version, driver, is_gpu,
    compute_units, global_memory_mib, max_alloc_mib, auto_choice); empty without OpenCL."""
    return _catena.devices()


__all__ = ["World", "WORLD", "slot", "devices", "Error", "InvalidArgumentError", "NotFoundError", "InUseError",
           "OutOfMemoryError", "LimitError", "UnsupportedError", "DeviceError", "DivergedError", "FileError",
           "SOLVERS", "BACKENDS", "STABILIZATIONS", "BODY_TYPES", "JOINT_TYPES", "SHAPES", "BY_STATUS"]
