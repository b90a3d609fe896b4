from roc_conformance.pb.roc.v1 import agent_result_pb2 as _agent_result_pb2
from roc_conformance.pb.roc.v1 import error_pb2 as _error_pb2
from roc_conformance.pb.roc.v1 import interrupt_pb2 as _interrupt_pb2
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StreamEvent(_message.Message):
    __slots__ = ("interrupt", "result", "error")
    INTERRUPT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    interrupt: _interrupt_pb2.Interrupt
    result: _agent_result_pb2.AgentResult
    error: _error_pb2.Error
    def __init__(self, interrupt: _Optional[_Union[_interrupt_pb2.Interrupt, _Mapping]] = ..., result: _Optional[_Union[_agent_result_pb2.AgentResult, _Mapping]] = ..., error: _Optional[_Union[_error_pb2.Error, _Mapping]] = ...) -> None: ...
