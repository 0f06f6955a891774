"""The search core: MIO, random search and whole-suite GA over a generic Problem."""

from miogen.search.archive import Archive
from miogen.search.budget import Budget
from miogen.search.config import MioConfig, MioParameters
from miogen.search.landscapes import Deceptive, Gradient, Infeasible, Landscape, Plateau
from miogen.search.mio import run_mio
from miogen.search.problem import Evaluated, Problem
from miogen.search.random_search import run_random
from miogen.search.wts import Suite, WtsConfig, run_wts

__all__ = [
    "Archive",
    "Budget",
    "Deceptive",
    "Evaluated",
    "Gradient",
    "Infeasible",
    "Landscape",
    "MioConfig",
    "MioParameters",
    "Plateau",
    "Problem",
    "Suite",
    "WtsConfig",
    "run_mio",
    "run_random",
    "run_wts",
]
