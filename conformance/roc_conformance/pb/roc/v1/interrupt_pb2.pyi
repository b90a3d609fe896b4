from google.protobuf import struct_pb2 as _struct_pb2
from roc_conformance.pb.roc.v1 import resume_pb2 as _resume_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InterruptSourceKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INTERRUPT_SOURCE_KIND_UNSPECIFIED: _ClassVar[InterruptSourceKind]
    INTERRUPT_SOURCE_KIND_TOOL: _ClassVar[InterruptSourceKind]
    INTERRUPT_SOURCE_KIND_BEFORE_TOOL_CALL: _ClassVar[InterruptSourceKind]
    INTERRUPT_SOURCE_KIND_BEFORE_TOOLS: _ClassVar[InterruptSourceKind]
    INTERRUPT_SOURCE_KIND_BEFORE_NODE_CALL: _ClassVar[InterruptSourceKind]
    INTERRUPT_SOURCE_KIND_AGENT_AS_TOOL: _ClassVar[InterruptSourceKind]
    INTERRUPT_SOURCE_KIND_NODE: _ClassVar[InterruptSourceKind]
INTERRUPT_SOURCE_KIND_UNSPECIFIED: InterruptSourceKind
INTERRUPT_SOURCE_KIND_TOOL: InterruptSourceKind
INTERRUPT_SOURCE_KIND_BEFORE_TOOL_CALL: InterruptSourceKind
INTERRUPT_SOURCE_KIND_BEFORE_TOOLS: InterruptSourceKind
INTERRUPT_SOURCE_KIND_BEFORE_NODE_CALL: InterruptSourceKind
INTERRUPT_SOURCE_KIND_AGENT_AS_TOOL: InterruptSourceKind
INTERRUPT_SOURCE_KIND_NODE: InterruptSourceKind

class InterruptSource(_message.Message):
    __slots__ = ("kind", "tool_use_id", "tool_name", "node_id", "inner")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    INNER_FIELD_NUMBER: _ClassVar[int]
    kind: InterruptSourceKind
    tool_use_id: str
    tool_name: str
    node_id: str
    inner: InnerInterrupt
    def __init__(self, kind: _Optional[_Union[InterruptSourceKind, str]] = ..., tool_use_id: _Optional[str] = ..., tool_name: _Optional[str] = ..., node_id: _Optional[str] = ..., inner: _Optional[_Union[InnerInterrupt, _Mapping]] = ...) -> None: ...

class InnerInterrupt(_message.Message):
    __slots__ = ("agent_id", "interrupt_id", "source")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    interrupt_id: str
    source: InterruptSource
    def __init__(self, agent_id: _Optional[str] = ..., interrupt_id: _Optional[str] = ..., source: _Optional[_Union[InterruptSource, _Mapping]] = ...) -> None: ...

class Interrupt(_message.Message):
    __slots__ = ("id", "name", "reason", "source", "response_schema", "expires_at", "response", "input_digest", "metadata", "on_expiry", "decision", "message", "response_metadata")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    INPUT_DIGEST_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    ON_EXPIRY_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_METADATA_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    reason: _struct_pb2.Value
    source: InterruptSource
    response_schema: _struct_pb2.Struct
    expires_at: str
    response: _struct_pb2.Value
    input_digest: str
    metadata: _struct_pb2.Struct
    on_expiry: ExpiryOutcome
    decision: _resume_pb2.Decision
    message: str
    response_metadata: _struct_pb2.Struct
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., reason: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., source: _Optional[_Union[InterruptSource, _Mapping]] = ..., response_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., expires_at: _Optional[str] = ..., response: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., input_digest: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., on_expiry: _Optional[_Union[ExpiryOutcome, _Mapping]] = ..., decision: _Optional[_Union[_resume_pb2.Decision, str]] = ..., message: _Optional[str] = ..., response_metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ExpiryOutcome(_message.Message):
    __slots__ = ("decision", "message")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    decision: _resume_pb2.Decision
    message: str
    def __init__(self, decision: _Optional[_Union[_resume_pb2.Decision, str]] = ..., message: _Optional[str] = ...) -> None: ...
