"""The miogen language server: on-save generation with streamed coverage (docs/lsp-protocol.md)."""
