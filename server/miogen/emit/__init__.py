"""Emitting tests: rendering, names, and the safe merge into test files."""

from miogen.emit.merge import (
    GeneratedTest,
    MergeResult,
    TextEdit,
    UnmergeableFile,
    apply_edits,
    fallback_path,
    merge_tests,
)
from miogen.emit.writer import write_merged

__all__ = [
    "GeneratedTest",
    "MergeResult",
    "TextEdit",
    "UnmergeableFile",
    "apply_edits",
    "fallback_path",
    "merge_tests",
    "write_merged",
]
