"""mkdocs hook: (being written)."""
