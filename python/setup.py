"""Builds the catena package with the repository's own CMake project, so that `pip install ./python` and
the CMake build tree hold the same extension (target catena_python).

    pip install --no-build-isolation ./python

needs only Debian packages (python3-dev python3-numpy python3-setuptools python3-pip, cmake and the
library's build dependencies from scripts/deps.sh) and never downloads anything. Environment:
CATENA_BUILD_DIR=DIR builds in DIR (an existing CMake build tree of the repository is reused as it is
configured); CATENA_CMAKE_ARGS adds CMake options to a new configuration (e.g. "-DCATENA_OPENCL=OFF");
CATENA_SOURCE_DIR names the repository when this directory was copied out of it.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("CATENA_SOURCE_DIR") or os.path.dirname(HERE)


def header_version():
    """MAJOR.MINOR.PATCH from include/catena/core.h, where the version is written once."""
    parts = {}
    with open(os.path.join(ROOT, "include", "catena", "core.h"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#define CATENA_VERSION_(MAJOR|MINOR|PATCH) (\d+)", line)
            if m:
                parts[m.group(1)] = m.group(2)
    return "{MAJOR}.{MINOR}.{PATCH}".format(**parts)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("CATENA_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp), "cmake")
        if not os.path.isfile(os.path.join(build_dir, "CMakeCache.txt")):
            subprocess.check_call(["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DCATENA_TESTS=OFF",
                                   "-DCATENA_BENCH=OFF", "-DCATENA_PYTHON=ON", f"-DPython3_EXECUTABLE={sys.executable}"]
                                  + shlex.split(os.environ.get("CATENA_CMAKE_ARGS", "")))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "catena_python", "-j", jobs])
        name = os.path.basename(self.get_ext_filename(ext.name))
        built = os.path.join(build_dir, "python", "catena", name)
        if not os.path.isfile(built):
            raise RuntimeError(f"CMake did not produce {built} (is it configured for {sys.executable}?)")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(version=header_version(), ext_modules=[Extension("catena._catena", sources=[])], cmdclass={"build_ext": CMakeBuild})
