"""Jobs that carry what they need to dask workers that share nothing with the client.

The end-to-end tests start ``dask scheduler`` and ``dask worker`` processes (the CLI), each in a
temporary folder of its own, and run ctg on a copy of a project in another folder that no
worker is told of: the job brings the files.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import miogen
import miogen.run.check as run_check
import pytest
from ctg_projects import BANK, make_project
from miogen.common.errors import MiogenError
from miogen.common.project import locate
from miogen.common.records import JobOutcome, JobSpec, UnitJob, VersionMismatch, sealed, versions
from miogen.ctg import remote, runner
from miogen.ctg.jobs import DaskPool, Job, Pool, dask_pool, dispatch, outcome_of
from miogen.ctg.remote import execute_remote, import_closure, mismatched, pack, worker_versions
from miogen.ctg.runner import CtgConfig, run_ctg
from miogen.host.config import Options
from miogen.run.job import job_spec

# A package whose module imports its sibling (relatively) and a top-level module: without the
# sibling a worker could not import prices.
MONEY = """
def cents(amount: float) -> int:
    if amount < 0:
        raise ValueError("negative")
    return round(amount * 100)
"""
PRICES = """
from .money import cents


def total(prices: list[float], discount: int = 0) -> int:
    if discount > 50:
        raise ValueError("too much")
    whole = sum(cents(p) for p in prices)
    if discount:
        return whole - whole * discount // 100
    return whole
"""
PROJECT = {
    "bank.py": BANK,
    "shop/__init__.py": '"""A shop."""\n',
    "shop/money.py": MONEY,
    "shop/prices.py": PRICES,
    "shop/unrelated.py": "VALUE = 1\n",
    # The project's own test: the search starts from its calls of total (testcase.examples)
    "tests/test_shop.py": """
        from shop.prices import total


        def test_total():
            assert total([1.5, 2.25], discount=10) == 338
        """,
}


def _dask_cli() -> Path:
    found = Path(sys.executable).parent / "dask"
    if not found.is_file():
        pytest.fail("the dask CLI is not installed: pip install -e '.[dask]'")
    return found


def _hiding(folder: Path, command: list[str]) -> list[str]:
    """``command`` in a mount namespace of its own where ``folder`` is an empty tmpfs."""
    if shutil.which("unshare") is None:
        pytest.fail("the test hides the project from the workers with unshare (util-linux)")
    mount = 'mount -t tmpfs none "$0"'
    probe = subprocess.run(  # hidden: the folder, not empty here, is empty in there
        ["unshare", "-m", "sh", "-c", mount + ' && [ -z "$(ls -A "$0")" ]', str(folder)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if probe.returncode != 0 or not any(folder.iterdir()):
        pytest.fail(f"cannot hide {folder} in a mount namespace (as root?): {probe.stderr}")
    return ["unshare", "-m", "sh", "-c", mount + ' && exec "$@"', str(folder), *command]


@contextmanager
def cluster(
    base: Path, workers: int, preload: Path | None = None, hide: Path | None = None
) -> Iterator[str]:
    """A scheduler and ``workers`` workers (processes of the dask CLI), each with its working
    directory in a folder of its own under ``base``; yields the scheduler's address. ``hide``:
    a folder the workers cannot see (an empty one is mounted over it in their namespace)."""
    dask = _dask_cli()
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
    folder = base / "scheduler"
    folder.mkdir(parents=True)
    address_file = folder / "scheduler.json"
    processes = []
    try:
        processes.append(
            subprocess.Popen(
                [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                 "--scheduler-file", str(address_file)],
                cwd=folder, env=environment, stdout=subprocess.DEVNULL,
                stderr=(folder / "log").open("w"),
            )
        )  # fmt: skip
        for index in range(workers):
            home = base / f"worker{index}"
            home.mkdir()
            extra = ["--preload", str(preload)] if preload is not None else []
            command = [
                str(dask), "worker", "--scheduler-file", str(address_file), "--nthreads", "1",
                "--nworkers", "1", "--no-dashboard", "--local-directory", str(home),
                "--name", f"w{index}", *extra,
            ]  # fmt: skip
            processes.append(
                subprocess.Popen(
                    _hiding(hide, command) if hide is not None else command,
                    cwd=home, env=environment, stdout=subprocess.DEVNULL,
                    stderr=(home / "log").open("w"),
                )
            )  # fmt: skip
        address = _wait_for(address_file, workers, processes)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in reversed(processes):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def _wait_for(address_file: Path, workers: int, processes: list[subprocess.Popen]) -> str:
    from distributed import Client

    deadline = time.monotonic() + 120  # a generous bound for a loaded machine
    while not address_file.is_file():
        if time.monotonic() > deadline or processes[0].poll() is not None:
            pytest.fail("the dask scheduler did not start")
        time.sleep(0.2)
    address = json.loads(address_file.read_text())["address"]
    with Client(address, timeout=60) as client:
        client.wait_for_workers(workers, timeout=120)
    return address


def written(report: runner.CtgReport) -> dict[str, str]:
    return {
        path.relative_to(report.root).as_posix(): path.read_text("utf-8")
        for path in sorted(report.written)
    }


def test_workers_in_their_own_folders_write_what_the_local_executor_writes(tmp_path, monkeypatch):
    original = make_project(tmp_path / "original", PROJECT)
    here, there = tmp_path / "local" / "project", tmp_path / "client" / "project"
    shutil.copytree(original, here)
    shutil.copytree(original, there)
    config = CtgConfig(budget=2.0, jobs=2, verify_runs=2, options=Options(seed=7, evaluations=150))
    local = run_ctg([here], config)

    # The workers cannot see the client's copy of the project: in their mount namespace its
    # folder is empty. They get its files from the jobs only.
    with cluster(tmp_path / "cluster", workers=2, hide=there.parent) as address:
        from distributed import Client, get_task_stream

        def client_verifies(*args, **kwargs):
            raise AssertionError("the client verified tests: the workers should have")

        monkeypatch.setattr(run_check, "verify", client_verifies)
        with Client(address) as observer, get_task_stream(observer) as stream:
            with dask_pool(address, jobs=2) as pool:
                assert isinstance(pool, DaskPool)
                report = run_ctg([there], config, pool=pool)
                scattered = len(pool.scattered)
            workers = {w["name"]: a for a, w in observer.scheduler_info()["workers"].items()}

    assert report.executor.startswith("dask") and not report.module_errors
    assert [s.status for s in report.units] == [s.status for s in local.units]
    assert all(s.status == "ran" for s in report.units)
    # Every job verified its tests on its worker (the client's verify was never called)...
    assert all(s.remote is not None and s.remote.kept for s in report.units)
    assert all(s.remote is None for s in local.units)
    # ... and the same tests were kept and written, byte for byte.
    assert written(report) == written(local)
    assert set(written(local)) == {
        "tests/test_bank_miogen.py", "tests/shop/test_shop_money_miogen.py",
        "tests/shop/test_shop_prices_miogen.py",
    }  # fmt: skip
    assert [s.measured for s in report.units] == [s.measured for s in local.units]
    # The jobs ran on the CLI's workers, both of them; each distinct file was scattered once:
    # pyproject.toml, bank.py; prices.py, money.py, shop/__init__.py, tests/test_shop.py (it
    # calls total); money.py's own job shares the files it needs with prices.py's.
    tasks = [t for t in stream.data if t["key"].startswith("execute_remote")]
    assert len(tasks) == 3 and {t["worker"] for t in tasks} == set(workers.values())
    assert scattered == 6


def test_a_worker_of_another_miogen_is_refused_at_connect(tmp_path):
    fake = tmp_path / "other_miogen.py"
    fake.write_text("import miogen\nmiogen.__version__ = '0.0.0+other'\n", encoding="utf-8")
    root = make_project(tmp_path / "project", {"bank.py": BANK})
    with cluster(tmp_path / "cluster", workers=1, preload=fake) as address:
        with pytest.raises(MiogenError) as refused:
            with dask_pool(address, jobs=1):
                pytest.fail("a pool was made with a worker of another miogen")
        command = [sys.executable, "-m", "miogen", "ctg", str(root), "--budget", "1",
                   "--executor", "dask", "--scheduler", address]  # fmt: skip
        ran = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=300)
    message = str(refused.value)
    assert "miogen 0.0.0+other" in message and f"miogen {miogen.__version__}" in message
    assert "install the same miogen on the client and on every worker" in message
    # The command says so and stops before any job: no test file is written
    assert ran.returncode == 2 and f"miogen: {message}" in ran.stderr.replace("\n", "")
    assert not (root / "tests").exists()


# --- the parts, in this process -------------------------------------------------------------


def test_a_job_carries_its_module_and_the_project_files_it_imports(tmp_path):
    root = make_project(tmp_path / "project", PROJECT)
    location = locate(root / "shop" / "prices.py", root)
    packed = pack(job_spec(location, ["total"], budget=1.0))
    assert set(packed.files) == {
        "shop/__init__.py", "shop/money.py", "shop/prices.py", "tests/test_shop.py",
        "pyproject.toml",
    }  # fmt: skip
    assert (packed.spec.path, packed.spec.import_root, packed.spec.cwd) == (
        "shop/prices.py", ".", ".",
    )  # fmt: skip
    assert str(tmp_path) not in packed.spec.dumps()  # no path of this machine travels
    # A unit no test names carries no test file
    bank = pack(job_spec(locate(root / "bank.py", root), ["classify"], budget=1.0))
    assert set(bank.files) == {"bank.py", "pyproject.toml"}


def test_the_closure_follows_imports_through_packages_in_a_src_layout(tmp_path):
    root = make_project(
        tmp_path / "project",
        {
            "src/app/__init__.py": "from app.core import run\n",
            "src/app/core.py": "import app.util.text as text\n\ndef run():\n    return 1\n",
            "src/app/util/__init__.py": "",
            "src/app/util/text.py": "from ..data import TABLE\n",
            "src/app/data.py": "import json\nTABLE = {}\n",
            "src/app/cli.py": "import sys\n",
            "src/other.py": "X = 1\n",
        },
    )
    start = root / "src" / "app" / "util" / "text.py"
    found = {p.relative_to(root / "src").as_posix() for p in import_closure(
        start, "app.util.text", root / "src")}  # fmt: skip
    assert found == {
        "app/__init__.py", "app/core.py", "app/util/__init__.py", "app/util/text.py",
        "app/data.py",
    }  # fmt: skip


def test_a_job_sealed_by_another_miogen_is_refused_by_the_worker(tmp_path, monkeypatch):
    spec = JobSpec("m.py", "m", ".", (UnitJob("f"),), cwd=".")
    envelope = sealed(spec)
    monkeypatch.setattr(miogen, "__version__", "0.0.0+other")
    with pytest.raises(VersionMismatch, match=r"the dask client runs miogen .*this end miogen"):
        execute_remote(envelope, {})


def test_an_outcome_sealed_by_another_miogen_is_a_refused_job_not_a_partial_record(monkeypatch):
    theirs = sealed(JobOutcome("ok"))
    theirs["schema"] = "0" * 12  # records of another shape
    with pytest.raises(VersionMismatch):
        outcome_of(theirs)

    class Answers(Pool):
        def __init__(self) -> None:
            from concurrent.futures import ThreadPoolExecutor

            super().__init__(ThreadPoolExecutor(1), 1)

        def submit(self, spec):
            return self.executor.submit(lambda: theirs)

    job = Job("A", 1, lambda _: JobSpec("m.py", "m", ".", (UnitJob("f"),)))
    outcome = dispatch([job], Answers(), lambda *_: None)["A"]
    assert outcome.status == "failed" and "install the same miogen" in outcome.message


def test_versions_name_the_first_mismatched_worker():
    ours = worker_versions()
    assert ours == versions() and ours["miogen"] == miogen.__version__
    assert mismatched({"tcp://a": ours, "tcp://b": ours}) == ""
    other = dict(ours, schema="f" * 12)
    message = mismatched({"tcp://a": ours, "tcp://b": other, "tcp://c": other})
    assert message.startswith("the dask worker tcp://b (and 1 more workers) runs miogen")
    assert remote.versions()["schema"] != other["schema"]


def test_blobs_are_checked_against_their_hash(tmp_path):
    with pytest.raises(MiogenError, match="does not match its hash"):
        remote.materialise(tmp_path, {"m.py": "0" * 64}, [b"X = 1\n"])
    with pytest.raises(MiogenError, match="outside"):
        data = b"X = 1\n"
        import hashlib

        remote.materialise(tmp_path, {"../m.py": hashlib.sha256(data).hexdigest()}, [data])


def _sent(packed: remote.Packed) -> tuple:
    """What the pool sends for a job: the sealed spec, the manifest and the blobs."""
    blobs = packed.blobs()
    manifest = {relative: digest for relative, (digest, _) in blobs.items()}
    return sealed(packed.spec), manifest, *(data for _, data in blobs.values())


def test_a_worker_runs_a_packed_job_and_verifies_its_tests_there(tmp_path):
    root = make_project(tmp_path / "project", PROJECT)
    location = locate(root / "shop" / "prices.py", root)
    spec = job_spec(location, ["total"], Options(evaluations=100), budget=1.0)
    spec = dataclasses.replace(spec, verify_runs=1)
    sent = _sent(pack(spec))
    shutil.move(root, tmp_path / "moved")  # the job needs no file where the client had them
    outcome = outcome_of(execute_remote(*sent))
    assert outcome.status == "ok" and outcome.verified is not None
    tests = outcome.unit("total").result.tests
    assert tests and set(outcome.verified.kept) <= {t.name for t in tests}
    assert outcome.verified.kept and outcome.verified.measurement["covered"]["total"]


def test_a_module_that_fails_to_import_on_the_worker_says_why(tmp_path):
    root = make_project(tmp_path / "project", {"broken.py": "import missing_thing\n\ndef f(x):\n    return x\n"})  # fmt: skip
    sent = _sent(pack(job_spec(locate(root / "broken.py", root), ["f"], budget=1.0)))
    outcome = outcome_of(execute_remote(*sent))
    assert outcome.status == "failed" and outcome.error is not None
    assert outcome.error.message == (
        "importing broken raised ModuleNotFoundError: No module named 'missing_thing'"
    )


class FakeClient:
    """Enough of a dask client for DaskPool: records what is scattered and which files each
    job carries, and answers each job with an empty outcome."""

    def __init__(self) -> None:
        self.scheduler = type("Scheduler", (), {"address": "inproc://fake"})()
        self.scattered: list[bytes] = []
        self.manifests: list[dict[str, str]] = []
        client = self

        class Executor(ThreadPoolExecutor):
            def submit(self, fn, *args, **kwargs):
                assert fn is execute_remote and len(args) == 2 + len(args[1])
                client.manifests.append(args[1])
                return super().submit(lambda: sealed(JobOutcome("ok")))

        self.executor = Executor(1)

    def get_executor(self, pure: bool):
        return self.executor

    def scatter(self, data: bytes, hash: bool):
        self.scattered.append(data)
        return data


def test_the_pool_scatters_each_file_once_and_reads_the_tests_again_for_each_run(tmp_path):
    root = make_project(tmp_path / "project", PROJECT)
    spec = job_spec(locate(root / "shop" / "prices.py", root), ["total"], budget=1.0)
    money = job_spec(locate(root / "shop" / "money.py", root), ["cents"], budget=1.0)
    client = FakeClient()
    pool = DaskPool(client, 1)
    jobs = [Job("prices", 2, lambda _: spec), Job("money", 1, lambda _: money)]
    dispatch(jobs, pool, lambda *_: None)
    assert "tests/test_shop.py" in client.manifests[0] and "shop/money.py" in client.manifests[1]
    assert len(client.scattered) == len(set(client.scattered)) == 5  # money.py's job: nothing new
    (root / "tests" / "test_more.py").write_text("from shop.prices import total\n")
    dispatch(jobs[:1], pool, lambda *_: None)
    assert "tests/test_more.py" in client.manifests[2]
    assert len(client.scattered) == 6  # only the new file


def test_what_each_test_covers_comes_back_with_the_workers_verification():
    """The targets each verified test covers (``Verification.covers``, read where the tests
    ran) travel with the worker's answer: the client keeps tests by them, as after a local
    verification, and does not read the measurement through the file again."""
    from miogen.common.records import VerifiedTests, from_json, to_json
    from miogen.run.result import Verification

    tests = [remote_record("test_a"), remote_record("test_b")]
    local = Verification(list(tests), covers={"test_a": {3, 1}, "test_b": set()})
    sent = from_json(VerifiedTests, json.loads(json.dumps(to_json(remote.verified_tests(local)))))
    assert remote.verification_of(sent, tests).covers == {"test_a": {1, 3}, "test_b": set()}
    none = remote.verification_of(remote.verified_tests(Verification(list(tests))), tests)
    assert none.covers is None


def remote_record(name: str):
    from miogen.common.records import TestRecord

    return TestRecord(name, f"def {name}():\n    pass\n", ("f",), (), (), 0, [])
