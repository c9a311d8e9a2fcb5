"""Shared fixtures: the source tree (for examples and data) and a fresh default graph per test."""
import os

import pytest

import tessera

SOURCE_DIR = os.environ.get(
    "TESSERA_SOURCE_DIR",
    os.path.normpath(os.path.join(os.path.dirname(__file__), "..", "..", "..")))


@pytest.fixture
def source_dir():
    return SOURCE_DIR


@pytest.fixture(autouse=True)
def fresh_default_graph():
    tessera.reset_default_graph()
    yield
