"""`python -m space_app`: the headless command line (space_app/cli.py)."""

import sys

from .cli import main

sys.exit(main())
