"""Lifecycle and watching: initialize, settings, workspace folders, open/change/save/close, files."""

from __future__ import annotations

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from miogen.lsp.session import Session


def register(server: LanguageServer, session: Session) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams) -> None:
        session.configure(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(params: types.InitializedParams) -> None:
        await session.initialized()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(params: types.DidChangeConfigurationParams) -> None:
        if params.settings:  # pushed values (Neovim, the VS Code extension)
            session.configure(params.settings, "workspace/didChangeConfiguration")
        await session.pull_configuration()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def folders_changed(params: types.DidChangeWorkspaceFoldersParams) -> None:
        session.folders_changed()
        await session.pull_configuration()  # a new folder may have settings of its own

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def files_changed(params: types.DidChangeWatchedFilesParams) -> None:
        session.files_changed(params.changes)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        if document.language_id == "python" or document.uri.endswith(".py"):
            session.opened(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams) -> None:
        session.changed(params.text_document.uri, params.content_changes)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(params: types.DidSaveTextDocumentParams) -> None:
        session.saved(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams) -> None:
        session.closed(params.text_document.uri)

    @server.feature(types.SHUTDOWN)
    def shutdown(params: None) -> None:
        session.shutdown()
