from google.protobuf import struct_pb2 as _struct_pb2
from roc_conformance.pb.roc.v1 import agent_result_pb2 as _agent_result_pb2
from roc_conformance.pb.roc.v1 import error_pb2 as _error_pb2
from roc_conformance.pb.roc.v1 import interrupt_pb2 as _interrupt_pb2
from roc_conformance.pb.roc.v1 import message_pb2 as _message_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ExecutorKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXECUTOR_KIND_UNSPECIFIED: _ClassVar[ExecutorKind]
    EXECUTOR_KIND_SEQUENTIAL: _ClassVar[ExecutorKind]
    EXECUTOR_KIND_CONCURRENT: _ClassVar[ExecutorKind]

class HookEvent(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HOOK_EVENT_UNSPECIFIED: _ClassVar[HookEvent]
    HOOK_EVENT_BEFORE_TOOLS: _ClassVar[HookEvent]
    HOOK_EVENT_BEFORE_TOOL_CALL: _ClassVar[HookEvent]
    HOOK_EVENT_AFTER_TOOL_CALL: _ClassVar[HookEvent]
    HOOK_EVENT_AFTER_TOOLS: _ClassVar[HookEvent]
    HOOK_EVENT_BEFORE_NODE_CALL: _ClassVar[HookEvent]
    HOOK_EVENT_AFTER_NODE_CALL: _ClassVar[HookEvent]

class OrchestratorKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ORCHESTRATOR_KIND_UNSPECIFIED: _ClassVar[OrchestratorKind]
    ORCHESTRATOR_KIND_GRAPH: _ClassVar[OrchestratorKind]
    ORCHESTRATOR_KIND_SWARM: _ClassVar[OrchestratorKind]

class ToolOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_OUTCOME_UNSPECIFIED: _ClassVar[ToolOutcome]
    TOOL_OUTCOME_RETURNED: _ClassVar[ToolOutcome]
    TOOL_OUTCOME_FAILED: _ClassVar[ToolOutcome]
    TOOL_OUTCOME_INTERRUPTED: _ClassVar[ToolOutcome]

class NodeOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    NODE_OUTCOME_UNSPECIFIED: _ClassVar[NodeOutcome]
    NODE_OUTCOME_COMPLETED: _ClassVar[NodeOutcome]
    NODE_OUTCOME_INTERRUPTED: _ClassVar[NodeOutcome]
    NODE_OUTCOME_CANCELLED: _ClassVar[NodeOutcome]
EXECUTOR_KIND_UNSPECIFIED: ExecutorKind
EXECUTOR_KIND_SEQUENTIAL: ExecutorKind
EXECUTOR_KIND_CONCURRENT: ExecutorKind
HOOK_EVENT_UNSPECIFIED: HookEvent
HOOK_EVENT_BEFORE_TOOLS: HookEvent
HOOK_EVENT_BEFORE_TOOL_CALL: HookEvent
HOOK_EVENT_AFTER_TOOL_CALL: HookEvent
HOOK_EVENT_AFTER_TOOLS: HookEvent
HOOK_EVENT_BEFORE_NODE_CALL: HookEvent
HOOK_EVENT_AFTER_NODE_CALL: HookEvent
ORCHESTRATOR_KIND_UNSPECIFIED: OrchestratorKind
ORCHESTRATOR_KIND_GRAPH: OrchestratorKind
ORCHESTRATOR_KIND_SWARM: OrchestratorKind
TOOL_OUTCOME_UNSPECIFIED: ToolOutcome
TOOL_OUTCOME_RETURNED: ToolOutcome
TOOL_OUTCOME_FAILED: ToolOutcome
TOOL_OUTCOME_INTERRUPTED: ToolOutcome
NODE_OUTCOME_UNSPECIFIED: NodeOutcome
NODE_OUTCOME_COMPLETED: NodeOutcome
NODE_OUTCOME_INTERRUPTED: NodeOutcome
NODE_OUTCOME_CANCELLED: NodeOutcome

class DescribeRequest(_message.Message):
    __slots__ = ("harness_protocol_version",)
    HARNESS_PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    harness_protocol_version: int
    def __init__(self, harness_protocol_version: _Optional[int] = ...) -> None: ...

class DescribeResponse(_message.Message):
    __slots__ = ("harness_protocol_version", "implementation", "spec_versions", "profiles", "not_applicable", "capabilities")
    class NotApplicableEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    HARNESS_PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    IMPLEMENTATION_FIELD_NUMBER: _ClassVar[int]
    SPEC_VERSIONS_FIELD_NUMBER: _ClassVar[int]
    PROFILES_FIELD_NUMBER: _ClassVar[int]
    NOT_APPLICABLE_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    harness_protocol_version: int
    implementation: Implementation
    spec_versions: _containers.RepeatedScalarFieldContainer[str]
    profiles: _containers.RepeatedScalarFieldContainer[str]
    not_applicable: _containers.ScalarMap[str, str]
    capabilities: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, harness_protocol_version: _Optional[int] = ..., implementation: _Optional[_Union[Implementation, _Mapping]] = ..., spec_versions: _Optional[_Iterable[str]] = ..., profiles: _Optional[_Iterable[str]] = ..., not_applicable: _Optional[_Mapping[str, str]] = ..., capabilities: _Optional[_Iterable[str]] = ...) -> None: ...

class Implementation(_message.Message):
    __slots__ = ("name", "version", "language", "language_version", "homepage", "adapter")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_VERSION_FIELD_NUMBER: _ClassVar[int]
    HOMEPAGE_FIELD_NUMBER: _ClassVar[int]
    ADAPTER_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    language: str
    language_version: str
    homepage: str
    adapter: str
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., language: _Optional[str] = ..., language_version: _Optional[str] = ..., homepage: _Optional[str] = ..., adapter: _Optional[str] = ...) -> None: ...

class AgentSpec(_message.Message):
    __slots__ = ("agent_id", "executor", "model", "tools", "hooks", "state", "integrity", "session", "builtin_tools", "approval", "record_resume_guard")
    class ApprovalEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: ApprovalPolicy
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[ApprovalPolicy, _Mapping]] = ...) -> None: ...
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    HOOKS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    INTEGRITY_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    BUILTIN_TOOLS_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_FIELD_NUMBER: _ClassVar[int]
    RECORD_RESUME_GUARD_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    executor: ExecutorKind
    model: ScriptedModel
    tools: _containers.RepeatedCompositeFieldContainer[ToolSpec]
    hooks: _containers.RepeatedCompositeFieldContainer[HookSpec]
    state: _struct_pb2.Struct
    integrity: IntegrityConfig
    session: SessionBinding
    builtin_tools: _containers.RepeatedScalarFieldContainer[str]
    approval: _containers.MessageMap[str, ApprovalPolicy]
    record_resume_guard: bool
    def __init__(self, agent_id: _Optional[str] = ..., executor: _Optional[_Union[ExecutorKind, str]] = ..., model: _Optional[_Union[ScriptedModel, _Mapping]] = ..., tools: _Optional[_Iterable[_Union[ToolSpec, _Mapping]]] = ..., hooks: _Optional[_Iterable[_Union[HookSpec, _Mapping]]] = ..., state: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., integrity: _Optional[_Union[IntegrityConfig, _Mapping]] = ..., session: _Optional[_Union[SessionBinding, _Mapping]] = ..., builtin_tools: _Optional[_Iterable[str]] = ..., approval: _Optional[_Mapping[str, ApprovalPolicy]] = ..., record_resume_guard: _Optional[bool] = ...) -> None: ...

class ApprovalPolicy(_message.Message):
    __slots__ = ("decisions",)
    DECISIONS_FIELD_NUMBER: _ClassVar[int]
    decisions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, decisions: _Optional[_Iterable[str]] = ...) -> None: ...

class SessionBinding(_message.Message):
    __slots__ = ("store", "session_id")
    STORE_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    store: str
    session_id: str
    def __init__(self, store: _Optional[str] = ..., session_id: _Optional[str] = ...) -> None: ...

class IntegrityConfig(_message.Message):
    __slots__ = ("key_id", "secret")
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    SECRET_FIELD_NUMBER: _ClassVar[int]
    key_id: str
    secret: str
    def __init__(self, key_id: _Optional[str] = ..., secret: _Optional[str] = ...) -> None: ...

class ScriptedModel(_message.Message):
    __slots__ = ("turns",)
    TURNS_FIELD_NUMBER: _ClassVar[int]
    turns: _containers.RepeatedCompositeFieldContainer[ModelTurn]
    def __init__(self, turns: _Optional[_Iterable[_Union[ModelTurn, _Mapping]]] = ...) -> None: ...

class ModelTurn(_message.Message):
    __slots__ = ("content",)
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: _containers.RepeatedCompositeFieldContainer[_message_pb2.ContentBlock]
    def __init__(self, content: _Optional[_Iterable[_Union[_message_pb2.ContentBlock, _Mapping]]] = ...) -> None: ...

class ToolSpec(_message.Message):
    __slots__ = ("name", "steps", "input_schema")
    NAME_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    name: str
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    input_schema: _struct_pb2.Struct
    def __init__(self, name: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ..., input_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class HookSpec(_message.Message):
    __slots__ = ("event", "tool_name", "steps")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    event: HookEvent
    tool_name: str
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    def __init__(self, event: _Optional[_Union[HookEvent, str]] = ..., tool_name: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ...) -> None: ...

class Step(_message.Message):
    __slots__ = ("interrupt", "fail", "cancel", "cancel_if", "skip_if_state", "set_state", "run_agent", "ask", "await_streamed")
    INTERRUPT_FIELD_NUMBER: _ClassVar[int]
    RETURN_FIELD_NUMBER: _ClassVar[int]
    FAIL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_IF_FIELD_NUMBER: _ClassVar[int]
    SKIP_IF_STATE_FIELD_NUMBER: _ClassVar[int]
    SET_STATE_FIELD_NUMBER: _ClassVar[int]
    RUN_AGENT_FIELD_NUMBER: _ClassVar[int]
    ASK_FIELD_NUMBER: _ClassVar[int]
    AWAIT_STREAMED_FIELD_NUMBER: _ClassVar[int]
    interrupt: InterruptStep
    fail: FailStep
    cancel: CancelStep
    cancel_if: CancelIfStep
    skip_if_state: SkipIfStateStep
    set_state: SetStateStep
    run_agent: RunAgentStep
    ask: AskStep
    await_streamed: AwaitStreamedStep
    def __init__(self, interrupt: _Optional[_Union[InterruptStep, _Mapping]] = ..., fail: _Optional[_Union[FailStep, _Mapping]] = ..., cancel: _Optional[_Union[CancelStep, _Mapping]] = ..., cancel_if: _Optional[_Union[CancelIfStep, _Mapping]] = ..., skip_if_state: _Optional[_Union[SkipIfStateStep, _Mapping]] = ..., set_state: _Optional[_Union[SetStateStep, _Mapping]] = ..., run_agent: _Optional[_Union[RunAgentStep, _Mapping]] = ..., ask: _Optional[_Union[AskStep, _Mapping]] = ..., await_streamed: _Optional[_Union[AwaitStreamedStep, _Mapping]] = ..., **kwargs) -> None: ...

class AskStep(_message.Message):
    __slots__ = ("name", "question")
    NAME_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    question: _struct_pb2.Struct
    def __init__(self, name: _Optional[str] = ..., question: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class AwaitStreamedStep(_message.Message):
    __slots__ = ("name", "timeout_ms")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    name: str
    timeout_ms: int
    def __init__(self, name: _Optional[str] = ..., timeout_ms: _Optional[int] = ...) -> None: ...

class InterruptStep(_message.Message):
    __slots__ = ("name", "reason", "reason_from_state", "metadata", "expires_at", "on_expiry", "handle_decision", "response_schema")
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REASON_FROM_STATE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    ON_EXPIRY_FIELD_NUMBER: _ClassVar[int]
    HANDLE_DECISION_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    name: str
    reason: _struct_pb2.Value
    reason_from_state: str
    metadata: _struct_pb2.Struct
    expires_at: str
    on_expiry: ExpiryOutcome
    handle_decision: bool
    response_schema: _struct_pb2.Struct
    def __init__(self, name: _Optional[str] = ..., reason: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., reason_from_state: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., expires_at: _Optional[str] = ..., on_expiry: _Optional[_Union[ExpiryOutcome, _Mapping]] = ..., handle_decision: _Optional[bool] = ..., response_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ExpiryOutcome(_message.Message):
    __slots__ = ("decision", "message")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    decision: str
    message: str
    def __init__(self, decision: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class RunAgentStep(_message.Message):
    __slots__ = ("agent", "prompt")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    agent: AgentSpec
    prompt: str
    def __init__(self, agent: _Optional[_Union[AgentSpec, _Mapping]] = ..., prompt: _Optional[str] = ...) -> None: ...

class ReturnStep(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: _struct_pb2.Value
    def __init__(self, value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class FailStep(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class CancelStep(_message.Message):
    __slots__ = ("message",)
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    def __init__(self, message: _Optional[str] = ...) -> None: ...

class CancelIfStep(_message.Message):
    __slots__ = ("answer_not_in", "message")
    ANSWER_NOT_IN_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    answer_not_in: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Value]
    message: str
    def __init__(self, answer_not_in: _Optional[_Iterable[_Union[_struct_pb2.Value, _Mapping]]] = ..., message: _Optional[str] = ...) -> None: ...

class SkipIfStateStep(_message.Message):
    __slots__ = ("key", "equals")
    KEY_FIELD_NUMBER: _ClassVar[int]
    EQUALS_FIELD_NUMBER: _ClassVar[int]
    key: str
    equals: _struct_pb2.Value
    def __init__(self, key: _Optional[str] = ..., equals: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class SetStateStep(_message.Message):
    __slots__ = ("key", "from_answer", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    FROM_ANSWER_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    from_answer: bool
    value: _struct_pb2.Value
    def __init__(self, key: _Optional[str] = ..., from_answer: _Optional[bool] = ..., value: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class CreateAgentRequest(_message.Message):
    __slots__ = ("spec", "orchestrator")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    ORCHESTRATOR_FIELD_NUMBER: _ClassVar[int]
    spec: AgentSpec
    orchestrator: OrchestratorSpec
    def __init__(self, spec: _Optional[_Union[AgentSpec, _Mapping]] = ..., orchestrator: _Optional[_Union[OrchestratorSpec, _Mapping]] = ...) -> None: ...

class OrchestratorSpec(_message.Message):
    __slots__ = ("kind", "nodes", "edges", "entry", "max_handoffs", "hooks")
    KIND_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    EDGES_FIELD_NUMBER: _ClassVar[int]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    MAX_HANDOFFS_FIELD_NUMBER: _ClassVar[int]
    HOOKS_FIELD_NUMBER: _ClassVar[int]
    kind: OrchestratorKind
    nodes: _containers.RepeatedCompositeFieldContainer[NodeSpec]
    edges: _containers.RepeatedCompositeFieldContainer[Edge]
    entry: str
    max_handoffs: int
    hooks: _containers.RepeatedCompositeFieldContainer[NodeHookSpec]
    def __init__(self, kind: _Optional[_Union[OrchestratorKind, str]] = ..., nodes: _Optional[_Iterable[_Union[NodeSpec, _Mapping]]] = ..., edges: _Optional[_Iterable[_Union[Edge, _Mapping]]] = ..., entry: _Optional[str] = ..., max_handoffs: _Optional[int] = ..., hooks: _Optional[_Iterable[_Union[NodeHookSpec, _Mapping]]] = ...) -> None: ...

class NodeSpec(_message.Message):
    __slots__ = ("node_id", "agent")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    agent: AgentSpec
    def __init__(self, node_id: _Optional[str] = ..., agent: _Optional[_Union[AgentSpec, _Mapping]] = ...) -> None: ...

class Edge(_message.Message):
    __slots__ = ("from_node", "to_node")
    FROM_NODE_FIELD_NUMBER: _ClassVar[int]
    TO_NODE_FIELD_NUMBER: _ClassVar[int]
    from_node: str
    to_node: str
    def __init__(self, from_node: _Optional[str] = ..., to_node: _Optional[str] = ...) -> None: ...

class NodeHookSpec(_message.Message):
    __slots__ = ("event", "node_id", "steps")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    event: HookEvent
    node_id: str
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    def __init__(self, event: _Optional[_Union[HookEvent, str]] = ..., node_id: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ...) -> None: ...

class CreateAgentResponse(_message.Message):
    __slots__ = ("agent", "harness_error", "error")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    HARNESS_ERROR_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    agent: str
    harness_error: HarnessError
    error: _error_pb2.Error
    def __init__(self, agent: _Optional[str] = ..., harness_error: _Optional[_Union[HarnessError, _Mapping]] = ..., error: _Optional[_Union[_error_pb2.Error, _Mapping]] = ...) -> None: ...

class InvokeRequest(_message.Message):
    __slots__ = ("agent", "prompt", "content", "interrupt_responses", "direct_tool_call", "abandon", "stream")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_RESPONSES_FIELD_NUMBER: _ClassVar[int]
    DIRECT_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    ABANDON_FIELD_NUMBER: _ClassVar[int]
    STREAM_FIELD_NUMBER: _ClassVar[int]
    agent: str
    prompt: str
    content: _struct_pb2.ListValue
    interrupt_responses: _struct_pb2.ListValue
    direct_tool_call: DirectToolCall
    abandon: Abandon
    stream: bool
    def __init__(self, agent: _Optional[str] = ..., prompt: _Optional[str] = ..., content: _Optional[_Union[_struct_pb2.ListValue, _Mapping]] = ..., interrupt_responses: _Optional[_Union[_struct_pb2.ListValue, _Mapping]] = ..., direct_tool_call: _Optional[_Union[DirectToolCall, _Mapping]] = ..., abandon: _Optional[_Union[Abandon, _Mapping]] = ..., stream: _Optional[bool] = ...) -> None: ...

class Abandon(_message.Message):
    __slots__ = ("message", "continue_model")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    CONTINUE_MODEL_FIELD_NUMBER: _ClassVar[int]
    message: str
    continue_model: bool
    def __init__(self, message: _Optional[str] = ..., continue_model: _Optional[bool] = ...) -> None: ...

class DirectToolCall(_message.Message):
    __slots__ = ("name", "input")
    NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    name: str
    input: _struct_pb2.Struct
    def __init__(self, name: _Optional[str] = ..., input: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class InvokeResponse(_message.Message):
    __slots__ = ("result", "error", "tool_result", "harness_error", "crash", "orchestrator_result", "trace", "messages", "state")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    HARNESS_ERROR_FIELD_NUMBER: _ClassVar[int]
    CRASH_FIELD_NUMBER: _ClassVar[int]
    ORCHESTRATOR_RESULT_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    result: _agent_result_pb2.AgentResult
    error: _error_pb2.Error
    tool_result: _message_pb2.ToolResult
    harness_error: HarnessError
    crash: ImplementationCrash
    orchestrator_result: OrchestratorResult
    trace: _containers.RepeatedCompositeFieldContainer[TraceEvent]
    messages: _containers.RepeatedCompositeFieldContainer[_message_pb2.Message]
    state: _struct_pb2.Struct
    def __init__(self, result: _Optional[_Union[_agent_result_pb2.AgentResult, _Mapping]] = ..., error: _Optional[_Union[_error_pb2.Error, _Mapping]] = ..., tool_result: _Optional[_Union[_message_pb2.ToolResult, _Mapping]] = ..., harness_error: _Optional[_Union[HarnessError, _Mapping]] = ..., crash: _Optional[_Union[ImplementationCrash, _Mapping]] = ..., orchestrator_result: _Optional[_Union[OrchestratorResult, _Mapping]] = ..., trace: _Optional[_Iterable[_Union[TraceEvent, _Mapping]]] = ..., messages: _Optional[_Iterable[_Union[_message_pb2.Message, _Mapping]]] = ..., state: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class OrchestratorResult(_message.Message):
    __slots__ = ("stop_reason", "interrupts", "results", "cancelled")
    class CancelledEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    stop_reason: str
    interrupts: _containers.RepeatedCompositeFieldContainer[_interrupt_pb2.Interrupt]
    results: _containers.RepeatedCompositeFieldContainer[NodeRun]
    cancelled: _containers.ScalarMap[str, str]
    def __init__(self, stop_reason: _Optional[str] = ..., interrupts: _Optional[_Iterable[_Union[_interrupt_pb2.Interrupt, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[NodeRun, _Mapping]]] = ..., cancelled: _Optional[_Mapping[str, str]] = ...) -> None: ...

class NodeRun(_message.Message):
    __slots__ = ("node_id", "visit", "result")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    VISIT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    visit: int
    result: _agent_result_pb2.AgentResult
    def __init__(self, node_id: _Optional[str] = ..., visit: _Optional[int] = ..., result: _Optional[_Union[_agent_result_pb2.AgentResult, _Mapping]] = ...) -> None: ...

class TraceEvent(_message.Message):
    __slots__ = ("invocation_start", "model_call", "before_tools", "before_tool_call", "hook_callback", "tool_start", "tool_end", "after_tool_call", "after_tools", "message_added", "invocation_end", "before_invocation", "after_invocation", "before_model_call", "after_model_call", "node_start", "node_end", "streamed_interrupt", "resume_guard", "agent_path")
    INVOCATION_START_FIELD_NUMBER: _ClassVar[int]
    MODEL_CALL_FIELD_NUMBER: _ClassVar[int]
    BEFORE_TOOLS_FIELD_NUMBER: _ClassVar[int]
    BEFORE_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    HOOK_CALLBACK_FIELD_NUMBER: _ClassVar[int]
    TOOL_START_FIELD_NUMBER: _ClassVar[int]
    TOOL_END_FIELD_NUMBER: _ClassVar[int]
    AFTER_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    AFTER_TOOLS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ADDED_FIELD_NUMBER: _ClassVar[int]
    INVOCATION_END_FIELD_NUMBER: _ClassVar[int]
    BEFORE_INVOCATION_FIELD_NUMBER: _ClassVar[int]
    AFTER_INVOCATION_FIELD_NUMBER: _ClassVar[int]
    BEFORE_MODEL_CALL_FIELD_NUMBER: _ClassVar[int]
    AFTER_MODEL_CALL_FIELD_NUMBER: _ClassVar[int]
    NODE_START_FIELD_NUMBER: _ClassVar[int]
    NODE_END_FIELD_NUMBER: _ClassVar[int]
    STREAMED_INTERRUPT_FIELD_NUMBER: _ClassVar[int]
    RESUME_GUARD_FIELD_NUMBER: _ClassVar[int]
    AGENT_PATH_FIELD_NUMBER: _ClassVar[int]
    invocation_start: InvocationStartEvent
    model_call: ModelCallEvent
    before_tools: BeforeToolsEvent
    before_tool_call: BeforeToolCallEvent
    hook_callback: HookCallbackEvent
    tool_start: ToolStartEvent
    tool_end: ToolEndEvent
    after_tool_call: AfterToolCallEvent
    after_tools: AfterToolsEvent
    message_added: MessageAddedEvent
    invocation_end: InvocationEndEvent
    before_invocation: BeforeInvocationEvent
    after_invocation: AfterInvocationEvent
    before_model_call: BeforeModelCallEvent
    after_model_call: AfterModelCallEvent
    node_start: NodeStartEvent
    node_end: NodeEndEvent
    streamed_interrupt: StreamedInterruptEvent
    resume_guard: ResumeGuardEvent
    agent_path: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, invocation_start: _Optional[_Union[InvocationStartEvent, _Mapping]] = ..., model_call: _Optional[_Union[ModelCallEvent, _Mapping]] = ..., before_tools: _Optional[_Union[BeforeToolsEvent, _Mapping]] = ..., before_tool_call: _Optional[_Union[BeforeToolCallEvent, _Mapping]] = ..., hook_callback: _Optional[_Union[HookCallbackEvent, _Mapping]] = ..., tool_start: _Optional[_Union[ToolStartEvent, _Mapping]] = ..., tool_end: _Optional[_Union[ToolEndEvent, _Mapping]] = ..., after_tool_call: _Optional[_Union[AfterToolCallEvent, _Mapping]] = ..., after_tools: _Optional[_Union[AfterToolsEvent, _Mapping]] = ..., message_added: _Optional[_Union[MessageAddedEvent, _Mapping]] = ..., invocation_end: _Optional[_Union[InvocationEndEvent, _Mapping]] = ..., before_invocation: _Optional[_Union[BeforeInvocationEvent, _Mapping]] = ..., after_invocation: _Optional[_Union[AfterInvocationEvent, _Mapping]] = ..., before_model_call: _Optional[_Union[BeforeModelCallEvent, _Mapping]] = ..., after_model_call: _Optional[_Union[AfterModelCallEvent, _Mapping]] = ..., node_start: _Optional[_Union[NodeStartEvent, _Mapping]] = ..., node_end: _Optional[_Union[NodeEndEvent, _Mapping]] = ..., streamed_interrupt: _Optional[_Union[StreamedInterruptEvent, _Mapping]] = ..., resume_guard: _Optional[_Union[ResumeGuardEvent, _Mapping]] = ..., agent_path: _Optional[_Iterable[str]] = ...) -> None: ...

class NodeStartEvent(_message.Message):
    __slots__ = ("node_id", "visit")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    VISIT_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    visit: int
    def __init__(self, node_id: _Optional[str] = ..., visit: _Optional[int] = ...) -> None: ...

class NodeEndEvent(_message.Message):
    __slots__ = ("node_id", "visit", "outcome")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    VISIT_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    visit: int
    outcome: NodeOutcome
    def __init__(self, node_id: _Optional[str] = ..., visit: _Optional[int] = ..., outcome: _Optional[_Union[NodeOutcome, str]] = ...) -> None: ...

class BeforeInvocationEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AfterInvocationEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BeforeModelCallEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AfterModelCallEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class InvocationStartEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ModelCallEvent(_message.Message):
    __slots__ = ("turn",)
    TURN_FIELD_NUMBER: _ClassVar[int]
    turn: int
    def __init__(self, turn: _Optional[int] = ...) -> None: ...

class BeforeToolsEvent(_message.Message):
    __slots__ = ("tool_use_ids",)
    TOOL_USE_IDS_FIELD_NUMBER: _ClassVar[int]
    tool_use_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tool_use_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class BeforeToolCallEvent(_message.Message):
    __slots__ = ("tool_use_id",)
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    tool_use_id: str
    def __init__(self, tool_use_id: _Optional[str] = ...) -> None: ...

class HookCallbackEvent(_message.Message):
    __slots__ = ("event", "hook_index", "tool_use_id", "node_id", "visit")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HOOK_INDEX_FIELD_NUMBER: _ClassVar[int]
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    VISIT_FIELD_NUMBER: _ClassVar[int]
    event: HookEvent
    hook_index: int
    tool_use_id: str
    node_id: str
    visit: int
    def __init__(self, event: _Optional[_Union[HookEvent, str]] = ..., hook_index: _Optional[int] = ..., tool_use_id: _Optional[str] = ..., node_id: _Optional[str] = ..., visit: _Optional[int] = ...) -> None: ...

class ToolStartEvent(_message.Message):
    __slots__ = ("tool_use_id", "name", "input")
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    tool_use_id: str
    name: str
    input: _struct_pb2.Struct
    def __init__(self, tool_use_id: _Optional[str] = ..., name: _Optional[str] = ..., input: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class StreamedInterruptEvent(_message.Message):
    __slots__ = ("interrupt",)
    INTERRUPT_FIELD_NUMBER: _ClassVar[int]
    interrupt: _interrupt_pb2.Interrupt
    def __init__(self, interrupt: _Optional[_Union[_interrupt_pb2.Interrupt, _Mapping]] = ...) -> None: ...

class ResumeGuardEvent(_message.Message):
    __slots__ = ("responses", "kept")
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    KEPT_FIELD_NUMBER: _ClassVar[int]
    responses: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    kept: _containers.RepeatedCompositeFieldContainer[_struct_pb2.Struct]
    def __init__(self, responses: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ..., kept: _Optional[_Iterable[_Union[_struct_pb2.Struct, _Mapping]]] = ...) -> None: ...

class ToolEndEvent(_message.Message):
    __slots__ = ("tool_use_id", "outcome")
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    tool_use_id: str
    outcome: ToolOutcome
    def __init__(self, tool_use_id: _Optional[str] = ..., outcome: _Optional[_Union[ToolOutcome, str]] = ...) -> None: ...

class AfterToolCallEvent(_message.Message):
    __slots__ = ("tool_use_id", "status")
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    tool_use_id: str
    status: _message_pb2.ToolResultStatus
    def __init__(self, tool_use_id: _Optional[str] = ..., status: _Optional[_Union[_message_pb2.ToolResultStatus, str]] = ...) -> None: ...

class AfterToolsEvent(_message.Message):
    __slots__ = ("tool_use_ids",)
    TOOL_USE_IDS_FIELD_NUMBER: _ClassVar[int]
    tool_use_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, tool_use_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class MessageAddedEvent(_message.Message):
    __slots__ = ("role",)
    ROLE_FIELD_NUMBER: _ClassVar[int]
    role: _message_pb2.Role
    def __init__(self, role: _Optional[_Union[_message_pb2.Role, str]] = ...) -> None: ...

class InvocationEndEvent(_message.Message):
    __slots__ = ("stop_reason",)
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    stop_reason: _agent_result_pb2.StopReason
    def __init__(self, stop_reason: _Optional[_Union[_agent_result_pb2.StopReason, str]] = ...) -> None: ...

class TakeSnapshotRequest(_message.Message):
    __slots__ = ("agent", "stored")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    STORED_FIELD_NUMBER: _ClassVar[int]
    agent: str
    stored: bool
    def __init__(self, agent: _Optional[str] = ..., stored: _Optional[bool] = ...) -> None: ...

class TakeSnapshotResponse(_message.Message):
    __slots__ = ("snapshot_json", "error", "harness_error")
    SNAPSHOT_JSON_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    HARNESS_ERROR_FIELD_NUMBER: _ClassVar[int]
    snapshot_json: str
    error: _error_pb2.Error
    harness_error: HarnessError
    def __init__(self, snapshot_json: _Optional[str] = ..., error: _Optional[_Union[_error_pb2.Error, _Mapping]] = ..., harness_error: _Optional[_Union[HarnessError, _Mapping]] = ...) -> None: ...

class RestoreAgentRequest(_message.Message):
    __slots__ = ("snapshot_json", "spec", "model_turn_offset")
    SNAPSHOT_JSON_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    MODEL_TURN_OFFSET_FIELD_NUMBER: _ClassVar[int]
    snapshot_json: str
    spec: AgentSpec
    model_turn_offset: int
    def __init__(self, snapshot_json: _Optional[str] = ..., spec: _Optional[_Union[AgentSpec, _Mapping]] = ..., model_turn_offset: _Optional[int] = ...) -> None: ...

class RestoreAgentResponse(_message.Message):
    __slots__ = ("agent", "error", "harness_error", "trace")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    HARNESS_ERROR_FIELD_NUMBER: _ClassVar[int]
    TRACE_FIELD_NUMBER: _ClassVar[int]
    agent: str
    error: _error_pb2.Error
    harness_error: HarnessError
    trace: _containers.RepeatedCompositeFieldContainer[TraceEvent]
    def __init__(self, agent: _Optional[str] = ..., error: _Optional[_Union[_error_pb2.Error, _Mapping]] = ..., harness_error: _Optional[_Union[HarnessError, _Mapping]] = ..., trace: _Optional[_Iterable[_Union[TraceEvent, _Mapping]]] = ...) -> None: ...

class DisposeAgentRequest(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: str
    def __init__(self, agent: _Optional[str] = ...) -> None: ...

class DisposeAgentResponse(_message.Message):
    __slots__ = ("harness_error",)
    HARNESS_ERROR_FIELD_NUMBER: _ClassVar[int]
    harness_error: HarnessError
    def __init__(self, harness_error: _Optional[_Union[HarnessError, _Mapping]] = ...) -> None: ...

class InspectAgentRequest(_message.Message):
    __slots__ = ("agent",)
    AGENT_FIELD_NUMBER: _ClassVar[int]
    agent: str
    def __init__(self, agent: _Optional[str] = ...) -> None: ...

class InspectAgentResponse(_message.Message):
    __slots__ = ("inspection", "harness_error")
    INSPECTION_FIELD_NUMBER: _ClassVar[int]
    HARNESS_ERROR_FIELD_NUMBER: _ClassVar[int]
    inspection: AgentInspection
    harness_error: HarnessError
    def __init__(self, inspection: _Optional[_Union[AgentInspection, _Mapping]] = ..., harness_error: _Optional[_Union[HarnessError, _Mapping]] = ...) -> None: ...

class AgentInspection(_message.Message):
    __slots__ = ("activated", "interrupts", "preserved_tool_use_ids", "pending_assistant_message", "messages", "state")
    ACTIVATED_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    PRESERVED_TOOL_USE_IDS_FIELD_NUMBER: _ClassVar[int]
    PENDING_ASSISTANT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    activated: bool
    interrupts: _containers.RepeatedCompositeFieldContainer[InspectedInterrupt]
    preserved_tool_use_ids: _containers.RepeatedScalarFieldContainer[str]
    pending_assistant_message: _message_pb2.Message
    messages: _containers.RepeatedCompositeFieldContainer[_message_pb2.Message]
    state: _struct_pb2.Struct
    def __init__(self, activated: _Optional[bool] = ..., interrupts: _Optional[_Iterable[_Union[InspectedInterrupt, _Mapping]]] = ..., preserved_tool_use_ids: _Optional[_Iterable[str]] = ..., pending_assistant_message: _Optional[_Union[_message_pb2.Message, _Mapping]] = ..., messages: _Optional[_Iterable[_Union[_message_pb2.Message, _Mapping]]] = ..., state: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class InspectedInterrupt(_message.Message):
    __slots__ = ("id", "name", "reason", "source", "answered", "response", "metadata", "response_metadata")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ANSWERED_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_METADATA_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    reason: _struct_pb2.Value
    source: _interrupt_pb2.InterruptSource
    answered: bool
    response: _struct_pb2.Value
    metadata: _struct_pb2.Struct
    response_metadata: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., reason: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., source: _Optional[_Union[_interrupt_pb2.InterruptSource, _Mapping]] = ..., answered: _Optional[bool] = ..., response: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., response_metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ListPendingRequest(_message.Message):
    __slots__ = ("agent", "snapshot")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    agent: str
    snapshot: SnapshotSource
    def __init__(self, agent: _Optional[str] = ..., snapshot: _Optional[_Union[SnapshotSource, _Mapping]] = ...) -> None: ...

class SnapshotSource(_message.Message):
    __slots__ = ("snapshot_json", "spec")
    SNAPSHOT_JSON_FIELD_NUMBER: _ClassVar[int]
    SPEC_FIELD_NUMBER: _ClassVar[int]
    snapshot_json: str
    spec: AgentSpec
    def __init__(self, snapshot_json: _Optional[str] = ..., spec: _Optional[_Union[AgentSpec, _Mapping]] = ...) -> None: ...

class ListPendingResponse(_message.Message):
    __slots__ = ("pending", "error", "harness_error")
    PENDING_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    HARNESS_ERROR_FIELD_NUMBER: _ClassVar[int]
    pending: _struct_pb2.ListValue
    error: _error_pb2.Error
    harness_error: HarnessError
    def __init__(self, pending: _Optional[_Union[_struct_pb2.ListValue, _Mapping]] = ..., error: _Optional[_Union[_error_pb2.Error, _Mapping]] = ..., harness_error: _Optional[_Union[HarnessError, _Mapping]] = ...) -> None: ...

class ImplementationCrash(_message.Message):
    __slots__ = ("type", "message", "details")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    type: str
    message: str
    details: str
    def __init__(self, type: _Optional[str] = ..., message: _Optional[str] = ..., details: _Optional[str] = ...) -> None: ...

class HarnessError(_message.Message):
    __slots__ = ("message", "details")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    message: str
    details: str
    def __init__(self, message: _Optional[str] = ..., details: _Optional[str] = ...) -> None: ...
