"""Catena: a parallel constraint solver for chained rigid bodies and particles (Python binding).

    import catena
    world = catena.World(solver="auto", backend="cpu")
    world.add_chain(1000)
    world.step(600)
    print(world.stats["solver"], world.joint_gaps.max(), world.positions[-1])

See help(catena.World), catena.devices() and docs/python.md.
"""

import atexit
import logging
import os

# OpenMP threads that wait for work spin in libgomp's default policy, which slows the solver down badly
# where another process holds a core (docs/cli.md, "Threads"); libgomp reads the policy once, when it is loaded,
# so it is set before the extension (and with it libgomp) is loaded, unless the user chose one. It has no
# effect when another module loaded libgomp earlier in this process: then set OMP_WAIT_POLICY=passive in
# the environment that starts Python.
if "GOMP_SPINCOUNT" not in os.environ:
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")

from . import _catena  # noqa: E402 (after the wait policy)
from .errors import (BY_STATUS, BusyError, DeviceError, DivergedError, Error, FileError, InUseError, InvalidArgumentError,
                     LimitError, NotFoundError, OutOfMemoryError, UnsupportedError)
from .world import BACKENDS, BODY_TYPES, INTEGRATORS, JOINT_TYPES, SHAPES, SOLVERS, STABILIZATIONS, WORLD, World, slot

__version__ = f"{_catena.VERSION_MAJOR}.{_catena.VERSION_MINOR}.{_catena.VERSION_PATCH}"


# The library's messages (an OpenCL fallback, a device fault recovered on the CPU, solver traces) go to the
# logger "catena": without logging configured, Python prints warnings to stderr; silence them with
# logging.getLogger("catena").setLevel(logging.ERROR).
logger = logging.getLogger("catena")
_LOG_LEVELS = {_catena.LOG_DEBUG: logging.DEBUG, _catena.LOG_INFO: logging.INFO, _catena.LOG_WARNING: logging.WARNING}


# The library names its settings as the C API does; in Python the device is World's `device` argument.
_C_WORDS = (("desc.device", 'World(device="P:D" or a name)'),)


def _log(level, message):
    for c_words, python_words in _C_WORDS:
        message = message.replace(c_words, python_words)
    logger.log(_LOG_LEVELS.get(level, logging.WARNING), message)


_catena.set_log(_log)
atexit.register(_catena.set_log, None)  # no calls into Python while the interpreter shuts down


def _default_cache_dir():
    """$CATENA_CACHE_DIR, else $XDG_CACHE_HOME/catena, else $HOME/.cache/catena (as the catena tool)."""
    for var, suffix in (("CATENA_CACHE_DIR", ""), ("XDG_CACHE_HOME", "/catena"), ("HOME", "/.cache/catena")):
        value = os.environ.get(var)
        if value:
            return value + suffix
    return None


def set_cache_dir(path):
    """Where compiled OpenCL programs are cached (None: no disk cache). The library reads no environment
    variable; at import the package sets $CATENA_CACHE_DIR, else $XDG_CACHE_HOME/catena, else
    $HOME/.cache/catena."""
    _catena.set_cache_dir(None if path is None else os.fspath(path))


def get_cache_dir():
    """The OpenCL binary cache directory ("" when none)."""
    return _catena.get_cache_dir()


set_cache_dir(_default_cache_dir())


def devices():
    """The OpenCL devices as a list of dicts (platform, device, name, vendor, version, driver, is_gpu,
    compute_units, global_memory_mib, max_alloc_mib, auto_choice); empty without OpenCL."""
    return _catena.devices()


__all__ = ["World", "WORLD", "slot", "devices", "set_cache_dir", "get_cache_dir", "Error", "InvalidArgumentError", "NotFoundError", "InUseError",
           "OutOfMemoryError", "LimitError", "UnsupportedError", "DeviceError", "DivergedError", "FileError", "BusyError",
           "SOLVERS", "BACKENDS", "STABILIZATIONS", "INTEGRATORS", "BODY_TYPES", "JOINT_TYPES", "SHAPES", "BY_STATUS"]
