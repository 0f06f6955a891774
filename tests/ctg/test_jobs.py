"""Running jobs: dependency order on k slots, and a dask.distributed LocalCluster of 2 workers."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor

import pytest
from ctg_projects import BANK, make_project
from miogen.common.records import JobSpec, UnitJob
from miogen.ctg.jobs import Job, Pool, dask_pool, dispatch
from miogen.ctg.runner import CtgConfig, run_ctg
from miogen.host.config import Options


class RecordingPool(Pool):
    """Runs no worker: records which job starts while which others are still running."""

    def __init__(self, parallel: int) -> None:
        super().__init__(ThreadPoolExecutor(parallel), parallel)
        self.started: list[tuple[str, frozenset[str]]] = []
        self.running: set[str] = set()
        self.lock = threading.Lock()

    def submit(self, spec: JobSpec) -> Future:
        unit = spec.units[0].name
        with self.lock:
            self.started.append((unit, frozenset(self.running)))
            self.running.add(unit)
        return self.executor.submit(self._finish, unit)

    def _finish(self, unit: str) -> dict:
        with self.lock:
            self.running.discard(unit)
        return {"status": "ok", "units": [{"unit": unit}]}


def job(key: str, seconds: float, after=()) -> Job:
    return Job(key, seconds, lambda _: JobSpec("m.py", "m", ".", (UnitJob(key),)), set(after))


def test_jobs_start_longest_first_and_after_their_dependencies():
    pool = RecordingPool(parallel=1)
    done = []
    outcomes = dispatch(
        [job("A", 5, after={"B"}), job("B", 1), job("C", 3)], pool, lambda j, o: done.append(j.key)
    )
    assert [unit for unit, _ in pool.started] == ["C", "B", "A"]  # A waits for B although longer
    assert set(outcomes) == {"A", "B", "C"} and all(o.status == "ok" for o in outcomes.values())


def test_a_cycle_does_not_deadlock():
    pool = RecordingPool(parallel=2)
    outcomes = dispatch([job("A", 1, after={"B"}), job("B", 1, after={"A"})], pool, lambda *_: 0)
    assert set(outcomes) == {"A", "B"}


def test_an_executor_failure_is_a_failed_job():
    class Broken(RecordingPool):
        def submit(self, spec):
            future: Future = Future()
            future.set_exception(OSError("worker lost"))
            return future

    outcomes = dispatch([job("A", 1)], Broken(1), lambda *_: 0)
    assert outcomes["A"].status == "failed" and "worker lost" in outcomes["A"].message


def test_dask_local_cluster_with_two_workers_runs_the_jobs(tmp_path):
    try:
        from distributed import Client, LocalCluster, get_task_stream
    except ImportError:
        pytest.fail(
            "dask.distributed is not installed: this test needs the optional extra "
            "(pip install -e '.[dask]' or pip install 'dask[distributed]')"
        )
    # Two modules: one job each (a module's units share one job).
    root = make_project(tmp_path / "project", {"bank.py": BANK, "vault.py": BANK})
    config = CtgConfig(budget=2.0, jobs=2, verify_runs=1, options=Options(evaluations=200))
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        with Client(cluster) as observer, get_task_stream(observer) as stream:
            with dask_pool(cluster.scheduler_address, jobs=2) as pool:
                report = run_ctg([root], config, pool=pool)
        workers = set(cluster.scheduler_info["workers"])
    assert report.executor.startswith("dask")
    assert [s.status for s in report.units] == ["ran"] * 4
    assert all(s.outcome.status == "ok" and s.after for s in report.units)
    assert (root / "tests" / "test_bank_miogen.py").is_file()
    assert (root / "tests" / "test_vault_miogen.py").is_file()
    # The jobs ran as tasks on the cluster's workers (here one on each), not in this process.
    tasks = [t for t in stream.data if t["key"].startswith("execute")]
    assert len(tasks) == 2 and {t["worker"] for t in tasks} <= workers and len(workers) == 2
