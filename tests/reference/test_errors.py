"""The error code set is closed and every code has exactly one exception type."""

import pytest
from roc_reference.errors import ERROR_TYPES, ErrorCode, RocError

PINNED = {
    "INTERRUPT_PENDING",
    "NOT_INTERRUPTED",
    "UNKNOWN_INTERRUPT",
    "DUPLICATE_RESPONSE",
    "INVALID_RESPONSE",
    "INVALID_RESUME",
    "DUPLICATE_INTERRUPT_NAME",
    "DIRECT_CALL_INTERRUPT",
    "INVALID_REASON",
    "SNAPSHOT_INVALID",
    "SNAPSHOT_VERSION_UNSUPPORTED",
    "SNAPSHOT_INTEGRITY",
    "SESSION_CONFLICT",
    "EXPIRED",
    "INVALID_INPUT",
    "INTERNAL",
}


def test_code_set_is_the_pinned_closed_set() -> None:
    assert {c.value for c in ErrorCode} == PINNED


@pytest.mark.parametrize("code", list(ErrorCode))
def test_each_code_has_one_exception_type(code: ErrorCode) -> None:
    cls = ERROR_TYPES[code]
    err = cls("boom", details={"k": 1})
    assert isinstance(err, RocError)
    assert err.to_json() == {"code": code.value, "message": "boom", "details": {"k": 1}}
