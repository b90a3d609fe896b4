from google.protobuf import struct_pb2 as _struct_pb2
from roc_conformance.pb.roc.v1 import agent_result_pb2 as _agent_result_pb2
from roc_conformance.pb.roc.v1 import interrupt_pb2 as _interrupt_pb2
from roc_conformance.pb.roc.v1 import message_pb2 as _message_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Snapshot(_message.Message):
    __slots__ = ("schema_version", "spec_version", "created_at", "revision", "agent", "interrupt_state", "integrity")
    SCHEMA_VERSION_FIELD_NUMBER: _ClassVar[int]
    SPEC_VERSION_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    REVISION_FIELD_NUMBER: _ClassVar[int]
    AGENT_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_STATE_FIELD_NUMBER: _ClassVar[int]
    INTEGRITY_FIELD_NUMBER: _ClassVar[int]
    schema_version: str
    spec_version: str
    created_at: str
    revision: int
    agent: SnapshotAgent
    interrupt_state: InterruptState
    integrity: Integrity
    def __init__(self, schema_version: _Optional[str] = ..., spec_version: _Optional[str] = ..., created_at: _Optional[str] = ..., revision: _Optional[int] = ..., agent: _Optional[_Union[SnapshotAgent, _Mapping]] = ..., interrupt_state: _Optional[_Union[InterruptState, _Mapping]] = ..., integrity: _Optional[_Union[Integrity, _Mapping]] = ...) -> None: ...

class SnapshotAgent(_message.Message):
    __slots__ = ("agent_id", "messages", "state")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    messages: _containers.RepeatedCompositeFieldContainer[_message_pb2.Message]
    state: _struct_pb2.Struct
    def __init__(self, agent_id: _Optional[str] = ..., messages: _Optional[_Iterable[_Union[_message_pb2.Message, _Mapping]]] = ..., state: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class InterruptState(_message.Message):
    __slots__ = ("activated", "interrupts", "pending_tool_execution", "consumed", "children")
    class ChildrenEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: KeptSubAgent
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[KeptSubAgent, _Mapping]] = ...) -> None: ...
    ACTIVATED_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    PENDING_TOOL_EXECUTION_FIELD_NUMBER: _ClassVar[int]
    CONSUMED_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    activated: bool
    interrupts: _containers.RepeatedCompositeFieldContainer[_interrupt_pb2.Interrupt]
    pending_tool_execution: PendingToolExecution
    consumed: _containers.RepeatedCompositeFieldContainer[ConsumedDecision]
    children: _containers.MessageMap[str, KeptSubAgent]
    def __init__(self, activated: _Optional[bool] = ..., interrupts: _Optional[_Iterable[_Union[_interrupt_pb2.Interrupt, _Mapping]]] = ..., pending_tool_execution: _Optional[_Union[PendingToolExecution, _Mapping]] = ..., consumed: _Optional[_Iterable[_Union[ConsumedDecision, _Mapping]]] = ..., children: _Optional[_Mapping[str, KeptSubAgent]] = ...) -> None: ...

class KeptSubAgent(_message.Message):
    __slots__ = ("agent", "interrupt_state", "result")
    AGENT_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_STATE_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    agent: SnapshotAgent
    interrupt_state: InterruptState
    result: _agent_result_pb2.AgentResult
    def __init__(self, agent: _Optional[_Union[SnapshotAgent, _Mapping]] = ..., interrupt_state: _Optional[_Union[InterruptState, _Mapping]] = ..., result: _Optional[_Union[_agent_result_pb2.AgentResult, _Mapping]] = ...) -> None: ...

class ConsumedDecision(_message.Message):
    __slots__ = ("interrupt_id", "answer_digest")
    INTERRUPT_ID_FIELD_NUMBER: _ClassVar[int]
    ANSWER_DIGEST_FIELD_NUMBER: _ClassVar[int]
    interrupt_id: str
    answer_digest: str
    def __init__(self, interrupt_id: _Optional[str] = ..., answer_digest: _Optional[str] = ...) -> None: ...

class PendingToolExecution(_message.Message):
    __slots__ = ("assistant_message", "completed_tool_results")
    ASSISTANT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_TOOL_RESULTS_FIELD_NUMBER: _ClassVar[int]
    assistant_message: _message_pb2.Message
    completed_tool_results: _containers.RepeatedCompositeFieldContainer[_message_pb2.ToolResult]
    def __init__(self, assistant_message: _Optional[_Union[_message_pb2.Message, _Mapping]] = ..., completed_tool_results: _Optional[_Iterable[_Union[_message_pb2.ToolResult, _Mapping]]] = ...) -> None: ...

class Integrity(_message.Message):
    __slots__ = ("alg", "key_id", "mac")
    ALG_FIELD_NUMBER: _ClassVar[int]
    KEY_ID_FIELD_NUMBER: _ClassVar[int]
    MAC_FIELD_NUMBER: _ClassVar[int]
    alg: str
    key_id: str
    mac: str
    def __init__(self, alg: _Optional[str] = ..., key_id: _Optional[str] = ..., mac: _Optional[str] = ...) -> None: ...
