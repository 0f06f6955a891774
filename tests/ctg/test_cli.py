"""`miogen ctg`'s options reach every job it runs, as `miogen generate`'s do."""

from __future__ import annotations

import pytest
from miogen.cli import _parser
from miogen.ctg.cli import config_of
from miogen.records import Algorithm


def test_the_search_options_go_to_every_job():
    args = _parser().parse_args(
        ["ctg", "--budget", "2", "--algorithm", "adynamosa", "--criteria", "branch,output"]
    )
    options = config_of(args).job_options
    assert options == {
        "algorithm": Algorithm.ADYNAMOSA, "criteria": "branch,output", "performance": False,
    }  # fmt: skip
    defaults = config_of(_parser().parse_args(["ctg", "--budget", "2", "--performance"]))
    assert defaults.job_options["algorithm"] is Algorithm.MIO
    assert defaults.job_options["performance"] is True


def test_unknown_criteria_are_refused_with_the_known_ones(capsys):
    with pytest.raises(SystemExit):
        _parser().parse_args(["ctg", "--budget", "2", "--criteria", "lines"])
    assert "unknown criteria lines" in capsys.readouterr().err
