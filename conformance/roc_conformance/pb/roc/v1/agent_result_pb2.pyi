from roc_conformance.pb.roc.v1 import interrupt_pb2 as _interrupt_pb2
from roc_conformance.pb.roc.v1 import message_pb2 as _message_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StopReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STOP_REASON_UNSPECIFIED: _ClassVar[StopReason]
    STOP_REASON_END_TURN: _ClassVar[StopReason]
    STOP_REASON_TOOL_USE: _ClassVar[StopReason]
    STOP_REASON_MAX_TOKENS: _ClassVar[StopReason]
    STOP_REASON_STOP_SEQUENCE: _ClassVar[StopReason]
    STOP_REASON_CONTENT_FILTERED: _ClassVar[StopReason]
    STOP_REASON_GUARDRAIL_INTERVENED: _ClassVar[StopReason]
    STOP_REASON_INTERRUPT: _ClassVar[StopReason]
    STOP_REASON_CANCELLED: _ClassVar[StopReason]
    STOP_REASON_ABANDONED: _ClassVar[StopReason]
STOP_REASON_UNSPECIFIED: StopReason
STOP_REASON_END_TURN: StopReason
STOP_REASON_TOOL_USE: StopReason
STOP_REASON_MAX_TOKENS: StopReason
STOP_REASON_STOP_SEQUENCE: StopReason
STOP_REASON_CONTENT_FILTERED: StopReason
STOP_REASON_GUARDRAIL_INTERVENED: StopReason
STOP_REASON_INTERRUPT: StopReason
STOP_REASON_CANCELLED: StopReason
STOP_REASON_ABANDONED: StopReason

class AgentResult(_message.Message):
    __slots__ = ("stop_reason", "message", "interrupts")
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTS_FIELD_NUMBER: _ClassVar[int]
    stop_reason: StopReason
    message: _message_pb2.Message
    interrupts: _containers.RepeatedCompositeFieldContainer[_interrupt_pb2.Interrupt]
    def __init__(self, stop_reason: _Optional[_Union[StopReason, str]] = ..., message: _Optional[_Union[_message_pb2.Message, _Mapping]] = ..., interrupts: _Optional[_Iterable[_Union[_interrupt_pb2.Interrupt, _Mapping]]] = ...) -> None: ...
