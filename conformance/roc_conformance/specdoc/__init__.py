"""The spec as data: requirement blocks parsed from spec/*.md, the spec lint, and traceability to tests.

Public API (pure functions over text and paths):
``parse_chapter``/``parse_spec`` -> requirements, ``render_requirements`` -> the requirements.json text,
``load_requirements`` to read it back, ``lint_chapters``/``lint_spec`` -> violations,
``build_matrix`` for traces.
"""

from .lint import Violation, lint_chapters, lint_spec
from .parser import Chapter, Requirement, load_requirements, parse_chapter, parse_spec, render_requirements
from .trace import TraceMatrix, build_matrix

__all__ = [
    "Chapter",
    "Requirement",
    "TraceMatrix",
    "Violation",
    "build_matrix",
    "lint_chapters",
    "lint_spec",
    "load_requirements",
    "parse_chapter",
    "parse_spec",
    "render_requirements",
]
