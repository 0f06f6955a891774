"""Code lenses above each unit: "miogen: 14/16 branches · Generate tests"."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from miogen.common.project import is_test_file
from miogen.lsp import convert
from miogen.lsp.session import Session
from miogen.lsp.snapshot import Outline


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    async def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        uri = params.text_document.uri
        if is_test_file(Path(uri)):
            return []  # a test file's functions are tests, not units to generate tests for
        store = session.store
        snapshot = await store.first_look(uri)
        codec = session.client.codec
        if isinstance(snapshot, Outline):  # not analysed yet: no counts until it is
            return convert.outline_lenses(snapshot, uri, codec)
        if snapshot is None:
            return []
        lenses = []
        for shape in snapshot.units.values():
            view = store.current_view(uri, shape)
            tooltip = convert.criteria_tooltip(view) if view is not None else None
            counts = store.counts(uri, shape)
            lenses.append(convert.code_lens(snapshot, shape, uri, counts, codec, tooltip))
        return lenses
