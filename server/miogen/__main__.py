"""`python -m miogen` and the `miogen` command: the job's worker starts before the CLI's imports."""

import sys

from miogen.host.early import early_worker


def main() -> int:
    worker = early_worker(sys.argv[1:])
    from miogen.cli import main as run  # the engine's front end: most of a second of imports

    return run(None, worker)


if __name__ == "__main__":
    sys.exit(main())
