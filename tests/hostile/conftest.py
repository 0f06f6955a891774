"""Fixtures for the hostile-code suite (see hostile_world.py)."""

from hostile_world import world  # noqa: F401 - a fixture
