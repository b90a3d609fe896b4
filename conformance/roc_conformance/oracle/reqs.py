"""The requirement IDs the oracle's checks name, in one place (spec/requirements.json is the source).

Symbolic names keep the checks readable; each maps to the ROC-* requirement a failed check reports.
A test (tests/conformance/test_oracle.py) checks that every ID here exists in spec/requirements.json.
"""

from __future__ import annotations

# Data model (02) and stop (03 §stop).
RESULT_INTERRUPTS_IFF = "ROC-MODEL-010"
ID_DISTINCT = "ROC-MODEL-002"  # pending interrupts carry distinct ids
SOURCE_KIND = "ROC-MODEL-003"
INTERRUPT_SOURCE = "ROC-MODEL-004"  # toolUseId / toolName of tool-bound interrupts
BT_SOURCE = "ROC-MODEL-005"  # before_tools interrupts carry no toolUseId / toolName
NO_RESPONSE_IN_RESULT = "ROC-MODEL-006"
NO_REASON_MEMBER = "ROC-MODEL-007"
ID_NOT_REUSED = "ROC-MODEL-008"  # ids of a finished batch never come back
STATE_PERSISTS = "ROC-MODEL-012"
STOP_REASON = "ROC-STOP-001"
STOP_ALL_INTERRUPTS = "ROC-STOP-002"
ID_DISTINCT_RESULT = "ROC-STOP-003"
STOP_NO_MODEL_CALL = "ROC-STOP-004"
STOP_NO_ANSWERED = "ROC-STOP-002"
STILL_PENDING = "ROC-STOP-002"  # an unanswered interrupt whose unit did not run is reported again
STOP_MESSAGE = "ROC-STOP-005"
INTERRUPT_FIELDS = "ROC-STOP-006"
INTERRUPT_ORDER = "ROC-STOP-010"  # SHOULD
# Replay.
REPLAY_RERUN = "ROC-REPLAY-001"
REPLAY_HOOKS = "ROC-REPLAY-002"
REPLAY_ANSWER = "ROC-REPLAY-003"
ID_STABLE = "ROC-REPLAY-004"
ONE_AT_A_TIME = "ROC-REPLAY-005"
FURTHER_INTERRUPT = "ROC-REPLAY-006"
MULTI_ANSWERS = "ROC-REPLAY-007"
STATE_KEPT = "ROC-REPLAY-008"
# Resume input.
RESUME_ACCEPT = "ROC-RESUME-001"
RESUME_PROMPT = "ROC-RESUME-002"
RESUME_ONLY_RESPONSES = "ROC-RESUME-002"
RESUME_EMPTY = "ROC-RESUME-003"
RESUME_MALFORMED = "ROC-RESUME-004"
RESUME_NULL = "ROC-RESUME-005"
RESUME_UNKNOWN = "ROC-RESUME-007"
RESUME_DUPLICATE = "ROC-RESUME-008"
RESUME_PRESENCE = "ROC-RESUME-009"
RESUME_UNCHANGED = "ROC-RESUME-010"
RESUME_NOTHING_RUNS = "ROC-RESUME-011"
NOT_INTERRUPTED = "ROC-RESUME-012"
RESUME_NOT_APPENDED = "ROC-RESUME-013"
ERROR_ORDER = "ROC-RESUME-014"  # SHOULD
# Answers.
PARTIAL = "ROC-ANSWER-001"
PARTIAL_SAME = "ROC-ANSWER-002"
PARTIAL_KEPT = "ROC-ANSWER-003"
ANSWERED_UNKNOWN = "ROC-ANSWER-004"
WITHDRAWN = "ROC-ANSWER-005"
BY_ID = "ROC-ANSWER-006"
CONSUMED = "ROC-ANSWER-007"
CONSUMED_NOT_INTERRUPTED = "ROC-ANSWER-008"
CONSUMED_UNKNOWN = "ROC-ANSWER-009"
CONSUMED_NOT_DELIVERED = "ROC-ANSWER-010"
# Hooks.
MESSAGE_ADDED = "ROC-HOOK-003"
BT_ONCE = "ROC-HOOK-006"
BT_FULL_MESSAGE = "ROC-HOOK-007"
BTC_ONCE = "ROC-HOOK-008"
AFTER_TOOL_CALL = "ROC-HOOK-009"
ATC_NOT_FOR_INTERRUPTED = "ROC-HOOK-009"
ATC_NOT_FOR_PRESERVED = "ROC-HOOK-009"
AFTER_TOOLS_ONCE = "ROC-HOOK-010"
AFTER_TOOLS_CONTENT = "ROC-HOOK-011"
AFTER_TOOLS_ORDER = "ROC-HOOK-012"  # SHOULD
AFTER_TOOLS_NOT_ON_BT = "ROC-HOOK-010"
HOOK_ORDER = "ROC-HOOK-013"
FANOUT = "ROC-HOOK-016"
FANOUT_ALL = "ROC-HOOK-017"
BTC_INTERRUPT = "ROC-HOOK-018"
BT_INTERRUPT = "ROC-HOOK-019"
BT_RERUN = "ROC-HOOK-020"
DUPLICATE_NAME = "ROC-HOOK-021"
DUPLICATE_NAME_RUN = "ROC-HOOK-022"
NO_CLASH_HOOK = "ROC-HOOK-023"
# Tools.
LOOP = "ROC-TOOL-001"  # a turn without tool use is appended and ends the invocation
TOOL_BATCH = "ROC-TOOL-002"
BATCH_APPEND = "ROC-TOOL-003"  # assistant message + one result per tool use on completion
RESULT_ORDER = "ROC-TOOL-004"  # SHOULD
TRANSCRIPT = "ROC-TOOL-005"  # deferred append
NO_DANGLING = "ROC-TOOL-006"
CONTINUE = "ROC-TOOL-007"
TOOL_FAIL = "ROC-TOOL-008"
TOOL_INTERRUPT_NO_RESULT = "ROC-TOOL-010"
PRESERVED = "ROC-TOOL-011"
PRESERVED_UNCHANGED = "ROC-TOOL-012"
RESUME_SKIPS_MODEL = "ROC-TOOL-013"
DUPLICATE_NAME_TOOL = "ROC-TOOL-014"
NO_CLASH_TOOL = "ROC-TOOL-015"
# Executors.
EXEC_SEQ_ORDER = "ROC-EXEC-001"
EXEC_SEQUENTIAL = "ROC-EXEC-002"
EXEC_SEQ_PRESERVED = "ROC-EXEC-003"
EXEC_SEQ_CONTINUE = "ROC-EXEC-004"
EXEC_CONCURRENT = "ROC-EXEC-005"
EXEC_CONC_REPORTED = "ROC-EXEC-006"
EXEC_CONC_ORDER = "ROC-EXEC-009"
# Direct calls.
DIRECT_INTERRUPT = "ROC-DIRECT-001"
DIRECT_IDLE = "ROC-DIRECT-003"
DIRECT_PENDING = "ROC-DIRECT-004"
DIRECT_NO_MODEL = "ROC-DIRECT-005"
# Cancel.
CANCEL_TOOL = "ROC-CANCEL-001"
CANCEL_MESSAGE = "ROC-CANCEL-002"
CANCEL_EMPTY_MESSAGE = "ROC-CANCEL-004"
CANCEL_BATCH = "ROC-CANCEL-005"
CANCEL_BATCH_NO_ATC = "ROC-CANCEL-006"
BTC_OUTRANKS_CANCEL = "ROC-CANCEL-007"
BT_OUTRANKS_CANCEL = "ROC-CANCEL-007"
CANCEL_NOT_CARRIED = "ROC-CANCEL-008"
CANCEL_COMPLETES = "ROC-CANCEL-009"
# Errors.
ERROR_VALUES = "ROC-ERR-001"
ERROR_CODE_DEFINED = "ROC-ERR-002"
ERROR_MESSAGE = "ROC-ERR-003"
ERROR_UNCHANGED = "ROC-ERR-006"
ERROR_XOR = "ROC-ERR-007"
# Later additions of the chapters.
RESULT_MESSAGE = "ROC-MODEL-013"  # end_turn message = the last message appended
REASON_KEPT = "ROC-STOP-011"  # a replay that passes another reason still reports the first one
EVENT_ORDER = "ROC-HOOK-024"
DIRECT_RUNS = "ROC-DIRECT-007"
DIRECT_RECORDED = "ROC-DIRECT-006"  # a recorded direct call appends toolUse and toolResult together
UNKNOWN_TOOL = "ROC-TOOL-009"
NOT_AN_ERROR = "ROC-STOP-009"  # an interrupt never becomes an error result or an Error
EXEC_CONC_NO_CANCEL = "ROC-EXEC-007"
EXEC_CONC_WAITS = "ROC-EXEC-008"
# Sessions (08).
SESSION_RESTORE = "ROC-SESSION-001"  # the restored agent behaves as the original would
SESSION_ANSWERS = "ROC-SESSION-002"  # accepts responses keyed by the ids of the stopping result
SESSION_ID = "ROC-SESSION-003"  # re-raised restored interrupts keep their ids
SESSION_KEPT = "ROC-SESSION-004"  # stored answers reach their units
SESSION_PRESERVED = "ROC-SESSION-005"  # completed results are not run again

# Decisions, abandon, expiry (11, spec 1.1; profiles decisions, abandon, expiry).
DECIDE_ACCEPT = "ROC-DECIDE-001"
DECIDE_SHAPE = "ROC-DECIDE-002"
DECIDE_DELIVERED = "ROC-DECIDE-003"
DECIDE_TOOL = "ROC-DECIDE-004"
DECIDE_BTC = "ROC-DECIDE-005"
DECIDE_BT = "ROC-DECIDE-006"
DECIDE_TEXT = "ROC-DECIDE-007"
DECIDE_ANSWERED = "ROC-DECIDE-008"
DECIDE_EXPIRED = "ROC-DECIDE-009"
ABANDON_ACCEPT = "ROC-ABANDON-001"
ABANDON_IDLE = "ROC-ABANDON-002"
ABANDON_RESULTS = "ROC-ABANDON-003"
ABANDON_RUNS_NOTHING = "ROC-ABANDON-004"
ABANDON_THEN = "ROC-ABANDON-005"
ABANDON_MALFORMED = "ROC-ABANDON-006"  # not observable through the harness (its abandon message is typed)
EXPIRY_AT = "ROC-EXPIRY-001"
EXPIRY_OUTCOME = "ROC-EXPIRY-002"
EXPIRY_CLOCK = "ROC-EXPIRY-003"
EXPIRY_ANSWER = "ROC-EXPIRY-004"
EXPIRY_RESOLVED = "ROC-EXPIRY-005"
EXPIRY_ORDER = "ROC-EXPIRY-006"  # SHOULD
PENDING_DETAILS = "ROC-PENDING-005"  # INTERRUPT_PENDING carries the pending list (profile pending-list)

# Sub-agents used as tools (12, spec 1.2; profile agent-as-tool).
AGENT_PROPAGATE = "ROC-AGENT-001"  # one propagated interrupt per unanswered inner one, with the batch
AGENT_ID = "ROC-AGENT-002"  # propagated ids unique among the pending, stable across replay and restore
AGENT_FIELDS = (
    "ROC-AGENT-003"  # name, reason, metadata, expiry copied; source {kind, toolUseId, toolName, inner}
)
AGENT_ROUTED = "ROC-AGENT-004"  # an answer to a propagated interrupt reaches the inner one, and only it
AGENT_RESUMED = "ROC-AGENT-005"  # resumed with them, never prompted again
AGENT_NOT_RESUMED = "ROC-AGENT-006"  # nothing new: not resumed, reported again
AGENT_COMPLETED = "ROC-AGENT-007"  # a completed sub-agent's result is returned, it never runs again
AGENT_SNAPSHOT = "ROC-AGENT-008"  # a snapshot carries kept sub-agents; a restored agent resumes them
AGENT_OWN_INSTANCE = "ROC-AGENT-010"  # one instance per outer tool use
AGENT_ONE_CALL = "ROC-AGENT-011"  # a second sub-agent call in one body run fails the body
AGENT_VALIDATED = "ROC-AGENT-012"  # a resume of propagated interrupts is validated on the outer agent

# Streaming (17, spec 1.3; profile streaming): what a streamed invocation adds (oracle/streams.py).
STREAM_FINAL = "ROC-STREAM-001"  # one final event, the result or error invoke gives
STREAM_ONCE = "ROC-STREAM-002"  # each interrupt of the result streamed once before it, JSON-equal
STREAM_ONLY = "ROC-STREAM-003"  # no event for an interrupt the result does not hold

SHOULD = frozenset({INTERRUPT_ORDER, ERROR_ORDER, AFTER_TOOLS_ORDER, RESULT_ORDER, EXPIRY_ORDER})
PROVISIONAL: frozenset[str] = frozenset()
ALL: dict[str, str] = {
    k: v for k, v in dict(globals()).items() if k.isupper() and isinstance(v, str) and v.startswith("ROC-")
}
