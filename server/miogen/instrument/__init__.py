"""Instrumentation: predicate probes that turn an execution into branch distances."""

from miogen.instrument.loader import load_instrumented
from miogen.instrument.rewrite import instrument_tree

__all__ = ["instrument_tree", "load_instrumented"]
