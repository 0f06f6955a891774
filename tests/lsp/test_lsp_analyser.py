"""Analyses once per text, off the event loop; requests take the latest finished one."""

from __future__ import annotations

import asyncio
import multiprocessing.connection
import threading
import time
from pathlib import Path

import pytest
from lsp_support import SHAPES, line_of
from miogen.common.errors import SourceSyntaxError
from miogen.lsp.analyser import Analyser, Closed, Superseded, TooBig, analyse_text
from miogen.lsp.documents import OUTLINE_CHARACTERS, DocumentStore
from miogen.lsp.protocol import CommandError
from miogen.lsp.snapshot import Outline, Snapshot, outline, take

from bench.big_file import module_text

NEW_UNIT = SHAPES + "\n\ndef added(y: int) -> int:\n    return y\n"


class Gate:
    """An analysis function that waits until released (per text) and counts its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.open: dict[str, threading.Event] = {}

    def release(self, source: str) -> None:
        self.open.setdefault(source, threading.Event()).set()

    def __call__(self, source: str, path: str, module: str) -> object:
        self.calls.append(source)
        self.open.setdefault(source, threading.Event()).wait(30)
        return analyse_text(source, path, module)


def thread_analyser(gate: Gate) -> Analyser:
    return Analyser(function=gate, processes=False)


async def test_a_text_is_analysed_once_and_kept():
    gate = Gate()
    for text in (SHAPES, NEW_UNIT):
        gate.release(text)
    analyser = thread_analyser(gate)
    first = await analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")
    again = await analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")
    assert again is first and gate.calls == [SHAPES]
    await analyser.analysis("doc", NEW_UNIT, "/w/shapes.py", "shapes")
    back = await analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")  # undo
    assert back is first and gate.calls == [SHAPES, NEW_UNIT]
    analyser.close()


async def test_texts_typed_while_one_is_analysed_are_skipped_but_the_newest():
    gate = Gate()
    analyser = thread_analyser(gate)
    texts = [SHAPES + "\n" * n for n in range(4)]
    futures = [analyser.analysis("doc", text, "/w/shapes.py", "shapes") for text in texts]
    for text in texts:
        gate.release(text)
    first, newest = await futures[0], await futures[-1]
    assert first.source == texts[0] and newest.source == texts[-1]
    for skipped in futures[1:-1]:
        with pytest.raises(Superseded):
            await skipped
    assert gate.calls == [texts[0], texts[-1]]
    analyser.close()


async def test_a_text_someone_needs_is_never_skipped():
    gate = Gate()
    analyser = thread_analyser(gate)
    running = analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")
    saved = analyser.analysis("doc", SHAPES + "\n", "/w/shapes.py", "shapes", keep=True)
    typed = analyser.analysis("doc", NEW_UNIT, "/w/shapes.py", "shapes")
    for text in (SHAPES, SHAPES + "\n", NEW_UNIT):
        gate.release(text)
    await asyncio.gather(running, saved, typed)
    assert len(gate.calls) == 3 and gate.calls[1] == SHAPES + "\n"
    analyser.close()


async def test_analysis_runs_in_another_process_and_reports_syntax_errors():
    analyser = Analyser()
    snapshot = await analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")
    assert isinstance(snapshot, Snapshot) and set(snapshot.units) == {"Stack", "sign"}
    with pytest.raises(SourceSyntaxError) as raised:
        await analyser.analysis("doc", "x = 1\ndef broken(:\n", "/w/shapes.py", "shapes")
    assert raised.value.line == 2
    assert isinstance(analyser.finished("doc", "x = 1\ndef broken(:\n"), SourceSyntaxError)
    analyser.close()


async def test_a_dead_analysis_process_is_replaced():
    analyser = Analyser()
    await analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")
    for process in list(analyser._executor._processes.values()):  # type: ignore[union-attr]
        process.kill()
        process.join()
    snapshot = await analyser.analysis("doc", NEW_UNIT, "/w/shapes.py", "shapes")
    assert "added" in snapshot.units
    analyser.close()


def store_with(gate: Gate, texts: dict[str, str], refreshed: list[str]) -> DocumentStore:
    store = DocumentStore(
        editor_text=lambda uri: texts[uri],
        editor_version=lambda uri: len(texts[uri]),
        module_name=lambda path: path.stem,
        refreshed=refreshed.append,
        analyser=thread_analyser(gate),
    )
    return store


async def test_requests_answer_from_the_latest_finished_analysis_while_a_newer_one_runs():
    gate, refreshed = Gate(), []
    uri = Path("/w/shapes.py").as_uri()
    texts = {uri: SHAPES}
    store = store_with(gate, texts, refreshed)
    doc = store.document(uri)
    store.open.add(uri)
    gate.release(SHAPES)
    first = await store.latest(uri)  # a file just opened: its first analysis is waited for
    assert first is not None and "added" not in first.units

    texts[uri] = NEW_UNIT  # typed; its analysis is slow
    store.edited(uri)
    answer = await asyncio.wait_for(store.latest(uri, patience=0.05), timeout=5)
    assert answer is first and doc.served_stale, "the older analysis, marked stale"

    gate.release(NEW_UNIT)
    await store.analysis(doc, NEW_UNIT, None)
    await asyncio.sleep(0)
    assert "added" in doc.snapshot.units and refreshed[-1] == uri
    assert (await store.latest(uri)) is doc.snapshot
    assert gate.calls == [SHAPES, NEW_UNIT]
    store.analyser.close()


async def test_a_text_that_does_not_parse_keeps_the_last_that_did():
    gate, refreshed = Gate(), []
    uri = Path("/w/shapes.py").as_uri()
    texts = {uri: SHAPES}
    store = store_with(gate, texts, refreshed)
    store.document(uri)
    store.open.add(uri)
    broken = SHAPES + "\ndef broken(:\n"
    for text in (SHAPES, broken):
        gate.release(text)
    good = await store.latest(uri)
    texts[uri] = broken
    assert await store.latest(uri, patience=5) is good, "lenses and actions: the last good text"
    assert await store.latest(uri, patience=5, parsing=True) is None, "miogen/units: nothing"
    store.analyser.close()


async def test_a_request_does_not_wait_for_an_analysis_that_cannot_be_done_in_time():
    gate, refreshed = Gate(), []
    uri = Path("/w/shapes.py").as_uri()
    texts = {uri: SHAPES}
    store = store_with(gate, texts, refreshed)
    doc = store.document(uri)
    store.open.add(uri)
    asked = store.analysis(doc, SHAPES, 1)
    await asyncio.sleep(0.5)  # the file's analyses take half a second
    gate.release(SHAPES)
    await asked
    assert store._patience(doc, SHAPES, 0.05) == 0.05, "done: no wait needed, none harmful"
    store.analysis(doc, SHAPES + "\n", 2)  # typing: one analysis runs ...
    texts[uri] = NEW_UNIT  # ... and a newer text waits behind it
    assert store._patience(doc, NEW_UNIT, 0.05) == 0.0, "it cannot be done in 50 ms"
    assert (await store.latest(uri, patience=0.05)) is doc.snapshot
    for text in (SHAPES + "\n", NEW_UNIT):
        gate.release(text)
    store.analyser.close()


async def test_a_text_past_the_limit_is_refused_and_the_client_told_once():
    gate, told = Gate(), []
    gate.release(SHAPES)
    analyser = Analyser(function=gate, processes=False, warn=told.append, limit=len(SHAPES))
    big = SHAPES + "\n"
    for _ in range(2):
        with pytest.raises(TooBig) as raised:
            await analyser.analysis("doc", big, "/w/shapes.py", "shapes")
    assert isinstance(raised.value, CommandError) and gate.calls == []
    assert told == [str(raised.value)] and "shapes.py is too big to analyse" in told[0]
    assert (await analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")).source == SHAPES
    analyser.close()


async def test_a_slow_analysis_of_one_file_leaves_the_others_served():
    gate = Gate()
    analyser = thread_analyser(gate)
    slow = analyser.analysis("big", NEW_UNIT, "/w/big.py", "big")  # never released (yet)
    gate.release(SHAPES)
    other = await asyncio.wait_for(analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes"), 30)
    assert other.source == SHAPES and not slow.done()
    gate.release(NEW_UNIT)
    await slow
    analyser.close()


async def test_closing_abandons_a_running_analysis_and_ends_its_process():
    analyser = Analyser()
    await analyser.analysis("doc", SHAPES, "/w/shapes.py", "shapes")  # the processes are up
    processes = list(analyser._executor._processes.values())  # type: ignore[union-attr]
    running = analyser.analysis("big", module_text(8000), "/w/big.py", "big")
    await asyncio.sleep(0.5)
    assert analyser.busy("big")
    analyser.close()
    with pytest.raises(Closed):
        await asyncio.wait_for(running, 10)
    # A process has ended when its sentinel is ready. Not ``is_alive()``: the pool's own thread
    # reaps the killed processes too, and the loser of that race sees ECHILD, reported as alive.
    sentinels = [process.sentinel for process in processes]
    deadline = time.monotonic() + 10
    while sentinels and time.monotonic() < deadline:
        for ready in multiprocessing.connection.wait(sentinels, deadline - time.monotonic()):
            sentinels.remove(ready)  # type: ignore[arg-type]
    assert not sentinels, "an analysis process outlived close()"


OUTLINED = (
    """\
from typing import Protocol, overload


class Shape(Protocol):
    def area(self) -> float: ...


class EmptyError(Exception):
    pass


class __Hidden:
    def go(self) -> int:
        return 1


def _helper(x: int) -> int:
    return x


@overload
def scale(x: int) -> int: ...
@overload
def scale(x: float) -> float: ...
@staticmethod
def scale(x):
    return x * 2


async def fetch() -> int:
    return 1
"""
    + SHAPES
)


def test_an_outline_has_the_units_the_analysis_has_at_their_lines():
    found = outline(OUTLINED)
    snapshot = take(OUTLINED, "/w/outlined.py", "outlined")
    assert found is not None and found.lines == snapshot.lines
    assert list(found.units) == [(s.name, s.unit.line) for s in snapshot.units.values()]
    assert [name for name, _ in found.units] == ["scale", "Stack", "sign"]
    assert outline("def broken(:\n") is None


async def test_a_file_just_opened_gets_an_outline_until_its_analysis_arrives():
    gate, refreshed = Gate(), []
    uri = Path("/w/shapes.py").as_uri()
    store = store_with(gate, {uri: SHAPES}, refreshed)
    doc = store.document(uri)
    store.open.add(uri)
    found = await asyncio.wait_for(store.first_look(uri), timeout=30)
    assert isinstance(found, Outline), "not held up by the analysis"
    first_lines = (line_of(SHAPES, "class Stack") + 1, line_of(SHAPES, "def sign") + 1)
    assert found.units == tuple(zip(("Stack", "sign"), first_lines, strict=True))
    assert doc.served_stale
    assert refreshed == []

    gate.release(SHAPES)
    await store.analysis(doc, SHAPES, None)  # the one under way
    await asyncio.sleep(0)
    assert set(refreshed) == {uri} and doc.served_stale, "the session asks for lenses again"
    assert isinstance(await store.first_look(uri), Snapshot)
    store.analyser.close()


async def test_a_text_too_long_to_outline_waits_for_its_analysis():
    gate, refreshed = Gate(), []
    uri = Path("/w/big.py").as_uri()
    text = module_text(5) + "#" * OUTLINE_CHARACTERS + "\n"
    store = store_with(gate, {uri: text}, refreshed)
    store.document(uri)
    store.open.add(uri)
    answer = asyncio.ensure_future(store.first_look(uri))
    await asyncio.sleep(0.3)  # an outline would have been answered by now
    gate.release(text)
    assert isinstance(await asyncio.wait_for(answer, timeout=30), Snapshot)
    store.analyser.close()
