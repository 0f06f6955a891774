"""A small package: its modules take each other's objects."""

from .config import Config

__all__ = ["Config"]
