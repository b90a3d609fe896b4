from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Decision(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_UNSPECIFIED: _ClassVar[Decision]
    DECISION_ANSWER: _ClassVar[Decision]
    DECISION_DECLINE: _ClassVar[Decision]
    DECISION_CANCEL: _ClassVar[Decision]
DECISION_UNSPECIFIED: Decision
DECISION_ANSWER: Decision
DECISION_DECLINE: Decision
DECISION_CANCEL: Decision

class InterruptResponse(_message.Message):
    __slots__ = ("interrupt_id", "response", "metadata", "decision", "message")
    INTERRUPT_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    interrupt_id: str
    response: _struct_pb2.Value
    metadata: _struct_pb2.Struct
    decision: Decision
    message: str
    def __init__(self, interrupt_id: _Optional[str] = ..., response: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., decision: _Optional[_Union[Decision, str]] = ..., message: _Optional[str] = ...) -> None: ...

class InterruptResponseContent(_message.Message):
    __slots__ = ("interrupt_response",)
    INTERRUPT_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    interrupt_response: InterruptResponse
    def __init__(self, interrupt_response: _Optional[_Union[InterruptResponse, _Mapping]] = ...) -> None: ...

class ResumeInput(_message.Message):
    __slots__ = ("responses",)
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    responses: _containers.RepeatedCompositeFieldContainer[InterruptResponseContent]
    def __init__(self, responses: _Optional[_Iterable[_Union[InterruptResponseContent, _Mapping]]] = ...) -> None: ...
