from google.protobuf import struct_pb2 as _struct_pb2
from roc_conformance.pb.roc.v1 import interrupt_pb2 as _interrupt_pb2
from roc_conformance.pb.roc.v1 import resume_pb2 as _resume_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class PendingInterrupt(_message.Message):
    __slots__ = ("id", "name", "reason", "source", "response_schema", "expires_at", "metadata", "on_expiry", "answer")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    ON_EXPIRY_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    reason: _struct_pb2.Value
    source: _interrupt_pb2.InterruptSource
    response_schema: _struct_pb2.Struct
    expires_at: str
    metadata: _struct_pb2.Struct
    on_expiry: _interrupt_pb2.ExpiryOutcome
    answer: PendingAnswer
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., reason: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., source: _Optional[_Union[_interrupt_pb2.InterruptSource, _Mapping]] = ..., response_schema: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., expires_at: _Optional[str] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., on_expiry: _Optional[_Union[_interrupt_pb2.ExpiryOutcome, _Mapping]] = ..., answer: _Optional[_Union[PendingAnswer, _Mapping]] = ...) -> None: ...

class PendingAnswer(_message.Message):
    __slots__ = ("decision", "response", "message")
    DECISION_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    decision: _resume_pb2.Decision
    response: _struct_pb2.Value
    message: str
    def __init__(self, decision: _Optional[_Union[_resume_pb2.Decision, str]] = ..., response: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., message: _Optional[str] = ...) -> None: ...
