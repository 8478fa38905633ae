"""`python -m sdk ...`: see sdk/cli.py."""

from .cli import main

raise SystemExit(main())
