"""Runs independent jobs in parallel: on this machine, or on a dask.distributed cluster.

A job (a module's units, or one unit) is a pure function of its JobSpec (seed tests included) to
a JobOutcome, so any executor with the ``concurrent.futures`` interface can run it; a dask
``Client.get_executor()`` is one.

On a dask cluster a job carries the files it needs (``ctg.remote``): each worker writes them
into a folder of its own, runs the job, and verifies its tests there; client and workers refuse
to work together unless they run the same miogen.

On this machine the pool is a thread pool of ``--jobs`` threads, each of which supervises one
worker *process* (``host.supervisor.run_job``): the search and the user's code already run
in a separate process per job, so ``--jobs`` threads means ``--jobs`` processes doing the work.
A process pool on top would only add a second process per job and pickling; threads also let a
Ctrl-C reach every supervisor (``cancel``), which then kills its worker.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miogen.common.errors import MiogenError
from miogen.common.records import (
    JobOutcome,
    JobSpec,
    VersionMismatch,
    from_json,
    sealed,
    to_json,
    unsealed,
)
from miogen.ctg import remote
from miogen.run.job import run


def execute(spec_text: str, cancel: threading.Event | None = None) -> dict[str, Any]:
    """Run one job; JSON text in, plain JSON out, so that it travels to and from dask workers."""
    outcome = run(JobSpec.loads(spec_text), should_cancel=cancel.is_set if cancel else None)
    return dict(to_json(outcome))


def outcome_of(data: dict[str, Any]) -> JobOutcome:
    """The outcome of a job run here, or of one sealed on a dask worker (refused when that
    worker runs another miogen: ``records.VersionMismatch``)."""
    if "record" in data:
        return unsealed(JobOutcome, data, "the dask worker")
    return from_json(JobOutcome, data)


@dataclass
class Pool:
    """An executor, how many jobs it runs at once, and a cancel flag for local jobs."""

    executor: Executor
    parallel: int
    cancel: threading.Event | None = None
    name: str = "local"
    verifies: bool = False  # jobs verify their tests where they run (``JobSpec.verify_runs``)

    def begin(self) -> None:
        """Called when a run's jobs start (``dispatch``)."""

    def submit(self, spec: JobSpec) -> Future[dict[str, Any]]:
        if self.cancel is not None:
            return self.executor.submit(execute, spec.dumps(), self.cancel)
        return self.executor.submit(execute, spec.dumps())


@contextmanager
def local_pool(jobs: int) -> Iterator[Pool]:
    cancel = threading.Event()
    executor = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="miogen-ctg")
    try:
        yield Pool(executor, jobs, cancel)
    except BaseException:
        cancel.set()  # Ctrl-C or an error: every supervisor kills its worker and returns
        executor.shutdown(wait=True, cancel_futures=True)  # and no queued job starts one
        raise
    finally:
        executor.shutdown(wait=True)


class DaskPool(Pool):
    """Jobs packed with their files (``remote.pack``), each distinct file scattered once."""

    def __init__(self, client: Any, parallel: int) -> None:
        name = f"dask ({client.scheduler.address})"
        super().__init__(client.get_executor(pure=False), parallel, name=name, verifies=True)
        self.client = client
        self.scattered: dict[str, Any] = {}  # SHA-256 -> the dask future of that content
        self.tests: dict[Path, list[tuple[Path, bytes]]] = {}  # root -> its test files
        self.lock = threading.Lock()

    def begin(self) -> None:
        self.tests.clear()  # a new run: the last one may have written test files

    def submit(self, spec: JobSpec) -> Future[dict[str, Any]]:
        try:
            root = remote.job_root(spec)
            if root not in self.tests:
                self.tests[root] = remote.project_tests(root)
            packed = remote.pack(spec, self.tests[root])
            blobs = packed.blobs()
        except (MiogenError, OSError) as error:
            failed: Future[dict[str, Any]] = Future()
            failed.set_exception(error)
            return failed
        manifest = {relative: digest for relative, (digest, _) in blobs.items()}
        futures = [self.blob(digest, data) for digest, data in blobs.values()]
        return self.executor.submit(remote.execute_remote, sealed(packed.spec), manifest, *futures)

    def blob(self, digest: str, data: bytes) -> Any:
        """The future of a file's content, scattered to the cluster the first time it is needed:
        dask then copies it to each worker that runs a job needing it, once per worker."""
        with self.lock:
            if digest not in self.scattered:
                self.scattered[digest] = self.client.scatter(data, hash=False)
            return self.scattered[digest]


def check_versions(client: Any) -> None:
    """MiogenError unless every worker runs this miogen with these records (asked at connect;
    a worker that joins later refuses each job sealed by another: ``remote.execute_remote``)."""
    try:
        found = client.run(remote.worker_versions)
    except Exception as error:  # noqa: BLE001 - a worker without miogen, or an old one
        raise MiogenError(
            f"the dask workers could not report their miogen version ({error!r}): install "
            "the same miogen on the client and on every worker"
        ) from error
    problem = remote.mismatched(found)
    if problem:
        raise MiogenError(problem)


@contextmanager
def dask_pool(scheduler: str | None, jobs: int) -> Iterator[Pool]:
    """A dask.distributed executor: the cluster at ``scheduler``, or a LocalCluster of ``jobs``.
    MiogenError when a worker runs another miogen (``check_versions``)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise MiogenError(
            "--executor dask needs dask.distributed: pip install 'miogen[dask]'"
        ) from None
    cluster = None
    if scheduler:
        client = Client(scheduler)
    else:
        cluster = LocalCluster(
            n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        check_versions(client)
        yield DaskPool(client, jobs)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


@dataclass
class Job:
    key: str
    seconds: float  # for the order: longest first packs k cores best
    build: Callable[[dict[str, JobOutcome]], JobSpec]  # called at submission, with finished jobs
    after: set[str] = field(default_factory=set)  # keys to finish first (dependency order)


def dispatch(
    jobs: list[Job], pool: Pool, on_done: Callable[[Job, JobOutcome], None]
) -> dict[str, JobOutcome]:
    """Run every job, at most ``pool.parallel`` at once, a job after the jobs it depends on.

    As in the paper, a job waits for a dependency only when another job can run meanwhile;
    when nothing else can (a cycle, or every remaining job waiting), the first one goes anyway.
    """
    pool.begin()
    pending = sorted(jobs, key=lambda job: (-job.seconds, job.key))
    running: dict[Future[dict[str, Any]], Job] = {}
    finished: dict[str, JobOutcome] = {}
    while pending or running:
        while pending and len(running) < pool.parallel:
            unfinished = {j.key for j in pending} | {j.key for j in running.values()}
            ready = [job for job in pending if not job.after & unfinished]
            if not ready and running:
                break
            job = (ready or pending)[0]
            pending.remove(job)
            running[pool.submit(job.build(finished))] = job
        done, _ = wait(list(running), return_when=FIRST_COMPLETED)
        for future in done:
            job = running.pop(future)
            outcome = _outcome(future)
            finished[job.key] = outcome
            on_done(job, outcome)
    return finished


def _outcome(future: Future[dict[str, Any]]) -> JobOutcome:
    try:
        return outcome_of(future.result())
    except (VersionMismatch, MiogenError) as error:  # their own message says what to do
        return JobOutcome("failed", message=f"the job was refused: {error}")
    except Exception as error:  # noqa: BLE001 - a lost dask worker, a pickling error: report it
        return JobOutcome("failed", message=f"the executor could not run the job: {error!r}")
