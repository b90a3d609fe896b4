"""The fixed vocabulary of the spec: BCP 14 keywords, requirement levels, profiles, areas, chapter kinds."""

from __future__ import annotations

import re
from typing import Final

SPEC_VERSION: Final = "1.3"

LEVELS: Final = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
MUST_LEVELS: Final = frozenset({"MUST", "MUST NOT"})

# Every BCP 14 phrase and the requirement level it expresses. Two-word phrases come first so a regex
# alternation built from this order prefers "MUST NOT" over "MUST".
KEYWORD_LEVEL: Final[dict[str, str]] = {
    "MUST NOT": "MUST NOT",
    "SHALL NOT": "MUST NOT",
    "SHOULD NOT": "SHOULD NOT",
    "NOT RECOMMENDED": "SHOULD NOT",
    "MUST": "MUST",
    "SHALL": "MUST",
    "REQUIRED": "MUST",
    "SHOULD": "SHOULD",
    "RECOMMENDED": "SHOULD",
    "MAY": "MAY",
    "OPTIONAL": "MAY",
}

STRENGTH: Final[dict[str, int]] = {"MUST": 3, "MUST NOT": 3, "SHOULD": 2, "SHOULD NOT": 2, "MAY": 1}

PROFILES: Final = (
    "core",
    "hooks",
    "sequential-executor",
    "concurrent-executor",
    "sessions",
    "portable-snapshot",
    "direct-tool-call",
    "session-store",
    "snapshot-integrity",
    "decisions",
    "abandon",
    "expiry",
    "pending-list",
    "idempotent-resume",
    "agent-as-tool",
    "multi-agent",
    "response-schema",
    "questions",
    "approval",
    "streaming",
    "audit",
)
RESERVED_PROFILES: Final[tuple[str, ...]] = ()

AREAS: Final = (
    "CONF",
    "MODEL",
    "STOP",
    "REPLAY",
    "RESUME",
    "ANSWER",
    "HOOK",
    "TOOL",
    "EXEC",
    "DIRECT",
    "CANCEL",
    "ERR",
    "SNAP",
    "SESSION",
    "VER",
    "SEC",
    "DECIDE",
    "ABANDON",
    "EXPIRY",
    "PENDING",
    "RESEND",
    "AGENT",
    "GRAPH",
    "SCHEMA",
    "ASK",
    "APPROVE",
    "STREAM",
    "AUDIT",
)

ID_RE: Final = re.compile(r"^ROC-([A-Z]+)-(\d{3})$")

# Phrases may wrap across lines ("**MUST\nNOT**" renders as one bold MUST NOT).
_KEYWORD_ALT: Final = "|".join(r"\s+".join(k.split()) for k in KEYWORD_LEVEL)
# A keyword set in bold exactly as the convention wants it: **MUST**, **MUST NOT**.
BOLD_KEYWORD_RE: Final = re.compile(rf"\*\*({_KEYWORD_ALT})\*\*")
# "**MUST** NOT": the negation left outside the bold, which reads as MUST NOT but is not marked as one.
SPLIT_NEGATION_RE: Final = re.compile(r"\*\*(MUST|SHALL|SHOULD)\*\*\s+NOT\b")
UPPER_KEYWORD_RE: Final = re.compile(rf"\b({_KEYWORD_ALT})\b")
# Lowercase (or capitalised) forms that read as normative inside a requirement; "may" is left out on
# purpose because it is ordinary English for possibility and the spec writes "can" for permission.
LOWER_KEYWORD_RE: Final = re.compile(r"\b(must|should|shall|required)\b", re.IGNORECASE)


# Normative files that are not numbered chapters: definitions and registries. They hold no requirement
# blocks today, but the same keyword rules apply to them as to the chapters.
NORMATIVE_FILES: Final = frozenset({"terms.md", "appendix-b-registries.md"})


def chapter_kind(file_name: str) -> str:
    """Classify a spec file: "conformance" (01), "normative" (02 and later, terms, registries) or
    "informative" (README, appendix A, changelog, conformance testing)."""
    if file_name in NORMATIVE_FILES:
        return "normative"
    match = re.match(r"^(\d{2})-.+\.md$", file_name)
    if match is None:
        return "informative"
    return "conformance" if match.group(1) == "01" else "normative"
