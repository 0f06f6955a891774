"""`python -m miogen`."""

import sys

from miogen.cli import main

sys.exit(main())
