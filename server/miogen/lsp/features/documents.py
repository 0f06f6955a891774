"""Lifecycle and watching: initialize, settings, workspace folders, open/change/save/close."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from miogen.lsp.server import MiogenServer


def register(server: MiogenServer) -> None:
    @server.feature(types.INITIALIZE)
    def initialize(ls: MiogenServer, params: types.InitializeParams) -> None:
        ls.session.configure(params.initialization_options, "initializationOptions")

    @server.feature(types.INITIALIZED)
    async def initialized(ls: MiogenServer, params: types.InitializedParams) -> None:
        await ls.session.pull_configuration()

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def configuration_changed(
        ls: MiogenServer, params: types.DidChangeConfigurationParams
    ) -> None:
        settings = params.settings
        if settings:  # pushed values (Neovim, the VS Code extension)
            ls.session.configure(settings, "workspace/didChangeConfiguration")
        await ls.session.pull_configuration()

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def folders_changed(
        ls: MiogenServer, params: types.DidChangeWorkspaceFoldersParams
    ) -> None:
        ls.session.folders_changed()
        await ls.session.pull_configuration()  # a new folder may have settings of its own

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: MiogenServer, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        if document.language_id == "python" or document.uri.endswith(".py"):
            ls.session.opened(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: MiogenServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.session.changed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))
    def did_save(ls: MiogenServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.session.saved(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: MiogenServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.session.closed(params.text_document.uri)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: MiogenServer, params: None) -> None:
        ls.session.shutdown()
