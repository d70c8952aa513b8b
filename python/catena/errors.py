"""Catena's errors as Python exceptions.

Every failing library call raises a subclass of :class:`Error` carrying the library's message (it names
the field, index and value) and its status code; the world is unchanged afterwards. The subclasses also
derive from the closest built-in exception, so ``except ValueError`` catches bad arguments.
"""


class Error(Exception):
    """A Catena library call failed. ``status`` is the ctn_status value, ``status_name`` its name."""

    status = -1
    status_name = "CTN_ERR"

    @property
    def message(self):
        return str(self)


def _error(name, status, status_name, base, doc):
    return type(name, (Error, base) if base else (Error,), {"status": status, "status_name": status_name, "__doc__": doc,
                                                           "__module__": __name__})


InvalidArgumentError = _error("InvalidArgumentError", 1, "CTN_ERR_INVALID_ARGUMENT", ValueError,
                              "NULL, out of range, non-finite or degenerate input.")
NotFoundError = _error("NotFoundError", 2, "CTN_ERR_NOT_FOUND", LookupError, "Unknown, removed or stale body or joint handle.")
InUseError = _error("InUseError", 3, "CTN_ERR_IN_USE", None, "Removing a body that joints still reference.")
OutOfMemoryError = _error("OutOfMemoryError", 4, "CTN_ERR_OUT_OF_MEMORY", MemoryError, "An allocation failed.")
LimitError = _error("LimitError", 5, "CTN_ERR_LIMIT", None, "A documented size limit would be exceeded.")
UnsupportedError = _error("UnsupportedError", 6, "CTN_ERR_UNSUPPORTED", None,
                          "A valid request the chosen solver or backend cannot do.")
DeviceError = _error("DeviceError", 7, "CTN_ERR_DEVICE", None, "An OpenCL or clBLAST failure.")
DivergedError = _error("DivergedError", 8, "CTN_ERR_DIVERGED", ArithmeticError,
                       "A step made the state non-finite or too fast; the world is as it was before that step.")
FileError = _error("FileError", 9, "CTN_ERR_IO", OSError, "A file could not be read or written.")
BusyError = _error("BusyError", 10, "CTN_ERR_BUSY", RuntimeError,
                   "The world is in a call on another thread (a world is used by one thread at a time); nothing was done.")

# Indexed by ctn_status (slot 0, CTN_OK, is the base class: the extension uses it for unknown codes).
BY_STATUS = (Error, InvalidArgumentError, NotFoundError, InUseError, OutOfMemoryError, LimitError, UnsupportedError,
             DeviceError, DivergedError, FileError, BusyError)
