"""Entry point for ``python -m roc_conformance.specdoc``."""

from .cli import main

raise SystemExit(main())
