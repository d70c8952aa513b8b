"""Shared fixtures: the package under test comes from PYTHONPATH (the CMake build tree, see run.sh)."""
import os

import pytest

import catena

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def cpu_world():
    """A world on the CPU backend with the default settings."""
    with catena.World(backend="cpu") as world:
        yield world


@pytest.fixture
def repo():
    return REPO
