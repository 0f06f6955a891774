"""bench/big_file.py: each run analyses afresh, and the medians are set against the aims."""

from __future__ import annotations

from bench import big_file


def test_each_run_analyses_afresh(monkeypatch):
    """The analysis is cached by text: a second run in the same process measured a lookup."""
    from miogen.analysis import targets

    parsed = []
    real = targets.PythonParser.parse_source
    monkeypatch.setattr(
        targets.PythonParser, "parse_source", lambda self: parsed.append(1) or real(self)
    )
    for _ in range(2):
        characters, lines, seconds, cpu = big_file.analysis_seconds(10)
        assert characters > 0 and lines > 0 and seconds >= 0 and cpu >= 0
    assert len(parsed) == 2


def test_the_summary_sets_the_medians_against_the_aims():
    summary = "\n".join(
        big_file._summary(
            10_000,
            [(3.0, 1.5, 9.0), (1.0, 0.9, 2.0), (5.0, 1.8, 8.0)],
            [(4.0, 9.0)],
            [0.1, 1.5],
            [(2.5, 2.4), (0.5, 0.4), (3.0, 2.9)],
        )  # fmt: skip
    )
    assert "the targets of one unit when asked for: 2.50 s, 2.40 s of CPU" in summary
    assert "analysis: 3.00 s (NOT within the 2 s aim), 1.50 s of CPU (within the aim)" in summary
    assert "load average 9.0, 2.0, 8.0" in summary
    assert "the longest 1.50 s (NOT within the 1 s aim)" in summary
