"""Entry point of ``python -m benchmarks``: run every benchmark and print its table."""

from __future__ import annotations

import sys

from benchmarks import session_store


def main(argv: list[str]) -> int:
    session_store.main(argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
