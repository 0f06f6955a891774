"""What a worker is asked to do, and what it answers: plain JSON-able records."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

STARTUP_SECONDS = 10.0  # interpreter start, analysis and import, on a loaded machine
EVALUATION_POST_SECONDS = 15.0  # post-processing allowance under an evaluation budget


@dataclass
class JobSpec:
    """One unit's generation job: a pure function of this record (and its seeds)."""

    path: str  # the module file
    module_name: str  # dotted name the emitted tests import
    import_root: str  # put on sys.path so that `import module_name` works
    unit: str
    budget_seconds: float = 5.0
    evaluations: int | None = None  # budget in fitness evaluations instead of seconds
    seed: int = 0
    # mio | random | wts | mio-nofds | dynamosa | adynamosa | adynamosa-nonadaptive
    algorithm: str = "mio"
    # Goals besides branches (criteria/selection.py): smart | all | branch | a comma list
    criteria: str = "smart"
    # Covered targets keep the cheaper test (aDynaMOSA's Eq. 1) also under MIO
    performance: bool = False
    test_timeout: float = 1.0
    post_seconds: float | None = None  # post-processing allowance; default max(1, 0.2 * budget)
    focus_point: float = 0.5
    # Budget share kept for the mutation phase (mutants as targets) when coverage is incomplete;
    # a search that covers everything earlier hands all the rest to it. 0 turns it off.
    mutation_share: float = 0.2
    seeds: list = field(default_factory=list)  # tests (testcase.model.to_json) replayed first
    blocked: list = field(default_factory=list)  # tests that killed a worker: never run again
    progress_interval: float = 0.2
    scratch: str = ""  # working directory of the worker
    memory_limit_mb: int = 2048
    trace: bool = False  # measure arcs with the tracer even where the probes suffice (checks)
    replay_only: bool = False
    # After a worker crash: no shrinking and no mutants, whose new inputs could kill it again.
    careful: bool = False  # no search: replay seeds and post-process (after repeated crashes)

    def attempt_seconds(self) -> float:
        """Wall seconds one worker may take for this spec: start-up, search, post-processing, slack.

        The supervisor's deadline and the worker's CPU-time limit both derive from it.
        """
        search = 0.0 if self.replay_only else (60.0 if self.evaluations else self.budget_seconds)
        return STARTUP_SECONDS + search + 2 * self.post_allowance() + 5.0

    def post_allowance(self) -> float:
        """Seconds for shrinking and assertion selection after the search.

        An evaluation budget asks for a reproducible result: post-processing then gets room
        to finish (``EVALUATION_POST_SECONDS``) instead of being cut at a moment the machine's
        load decides. A time budget keeps the allowance proportional to it.
        """
        if self.post_seconds is not None:
            return self.post_seconds
        if self.evaluations:
            return EVALUATION_POST_SECONDS
        return max(1.0, 0.2 * self.budget_seconds)

    def dumps(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def loads(cls, text: str) -> JobSpec:
        return cls(**json.loads(text))
