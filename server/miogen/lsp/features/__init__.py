"""LSP handlers, one module per feature; each has ``register(server)`` and stays thin glue."""
