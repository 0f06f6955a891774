"""The host's run of one job: run the worker, verify with coverage.py, write the test file."""
