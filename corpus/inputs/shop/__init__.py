"""A small package: its modules take each other's objects."""

from .config import Config
from .pricing import price

__all__ = ["Config", "price"]
