"""Coverage criteria as goal providers (EvoSuite's eight) and smart selection among them."""

from miogen.criteria.goals import Criterion, Goal
from miogen.criteria.providers import GoalProvider, Run, Trace
from miogen.criteria.proxies import proxies
from miogen.criteria.selection import Selection, criteria_option, parse_criteria
from miogen.criteria.unit import Coverage, UnitCriteria, probe_finder

__all__ = [
    "Coverage",
    "Criterion",
    "Goal",
    "GoalProvider",
    "Run",
    "Selection",
    "Trace",
    "UnitCriteria",
    "criteria_option",
    "parse_criteria",
    "probe_finder",
    "proxies",
]
