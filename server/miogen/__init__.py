"""miogen: unit tests for the Python class you are editing, while you edit it."""

# Equal to pyproject.toml's (tests/test_packaging.py). A dask client and its workers refuse to
# work together unless both run the same one (``records.sealed``).
__version__ = "0.2.0"
