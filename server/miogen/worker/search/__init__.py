"""The search core: MIO, DynaMOSA/aDynaMOSA, random search and whole-suite GA over a generic Problem."""

from miogen.worker.search.archive import Archive
from miogen.worker.search.budget import Budget
from miogen.worker.search.cdg import ControlDependencies
from miogen.worker.search.config import MioConfig, MioParameters
from miogen.worker.search.dynamosa import DynaMosaConfig, Generation, Variant, run_dynamosa
from miogen.worker.search.landscapes import (
    Deceptive,
    Gradient,
    Infeasible,
    Landscape,
    Plateau,
    Staircase,
)
from miogen.worker.search.mio import run_mio
from miogen.worker.search.performance import PROXIES, Heuristic, performance_score
from miogen.worker.search.problem import Evaluated, Problem, Recombinable, Structured
from miogen.worker.search.random_search import run_random
from miogen.worker.search.wts import Suite, WtsConfig, run_wts

__all__ = [
    "PROXIES",
    "Archive",
    "Budget",
    "ControlDependencies",
    "Deceptive",
    "DynaMosaConfig",
    "Evaluated",
    "Generation",
    "Gradient",
    "Heuristic",
    "Infeasible",
    "Landscape",
    "MioConfig",
    "MioParameters",
    "Plateau",
    "Problem",
    "Recombinable",
    "Staircase",
    "Structured",
    "Suite",
    "Variant",
    "WtsConfig",
    "performance_score",
    "run_dynamosa",
    "run_mio",
    "run_random",
    "run_wts",
]
