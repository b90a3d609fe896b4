"""Links from reports to the requirement in the published spec.

``spec/requirements.json`` gives each requirement an ``anchor`` such as ``01-conformance.md#roc-conf-001``;
the site (mkdocs, directory URLs) serves ``spec/01-conformance.md`` at ``spec/01-conformance/``.
"""

from __future__ import annotations

from typing import Any

SPEC_SITE = "https://roc-protocol.org/"


def spec_url(requirement: dict[str, Any], site: str = SPEC_SITE) -> str | None:
    """The URL of ``requirement`` (a report's requirement entry) on the spec site, or None without anchor."""
    anchor = requirement.get("anchor")
    if not isinstance(anchor, str) or "#" not in anchor:
        return None
    page, _, fragment = anchor.partition("#")
    page = page.removesuffix(".md")
    return f"{site}spec/{page}/#{fragment}"
