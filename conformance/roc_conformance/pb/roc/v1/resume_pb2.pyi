from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class InterruptResponse(_message.Message):
    __slots__ = ("interrupt_id", "response", "metadata")
    INTERRUPT_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    interrupt_id: str
    response: _struct_pb2.Value
    metadata: _struct_pb2.Struct
    def __init__(self, interrupt_id: _Optional[str] = ..., response: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

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
