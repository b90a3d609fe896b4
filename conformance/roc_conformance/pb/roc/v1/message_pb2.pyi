from google.protobuf import struct_pb2 as _struct_pb2
from roc_conformance.pb.roc.v1 import resume_pb2 as _resume_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Role(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ROLE_UNSPECIFIED: _ClassVar[Role]
    ROLE_USER: _ClassVar[Role]
    ROLE_ASSISTANT: _ClassVar[Role]

class ToolResultStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOOL_RESULT_STATUS_UNSPECIFIED: _ClassVar[ToolResultStatus]
    TOOL_RESULT_STATUS_SUCCESS: _ClassVar[ToolResultStatus]
    TOOL_RESULT_STATUS_ERROR: _ClassVar[ToolResultStatus]
ROLE_UNSPECIFIED: Role
ROLE_USER: Role
ROLE_ASSISTANT: Role
TOOL_RESULT_STATUS_UNSPECIFIED: ToolResultStatus
TOOL_RESULT_STATUS_SUCCESS: ToolResultStatus
TOOL_RESULT_STATUS_ERROR: ToolResultStatus

class ToolUse(_message.Message):
    __slots__ = ("tool_use_id", "name", "input")
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    INPUT_FIELD_NUMBER: _ClassVar[int]
    tool_use_id: str
    name: str
    input: _struct_pb2.Struct
    def __init__(self, tool_use_id: _Optional[str] = ..., name: _Optional[str] = ..., input: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class ToolResultContent(_message.Message):
    __slots__ = ("text", "json")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    text: str
    json: _struct_pb2.Value
    def __init__(self, text: _Optional[str] = ..., json: _Optional[_Union[_struct_pb2.Value, _Mapping]] = ...) -> None: ...

class ToolResult(_message.Message):
    __slots__ = ("tool_use_id", "status", "content")
    TOOL_USE_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    tool_use_id: str
    status: ToolResultStatus
    content: _containers.RepeatedCompositeFieldContainer[ToolResultContent]
    def __init__(self, tool_use_id: _Optional[str] = ..., status: _Optional[_Union[ToolResultStatus, str]] = ..., content: _Optional[_Iterable[_Union[ToolResultContent, _Mapping]]] = ...) -> None: ...

class ContentBlock(_message.Message):
    __slots__ = ("text", "tool_use", "tool_result", "interrupt_response")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_USE_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_FIELD_NUMBER: _ClassVar[int]
    INTERRUPT_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    text: str
    tool_use: ToolUse
    tool_result: ToolResult
    interrupt_response: _resume_pb2.InterruptResponse
    def __init__(self, text: _Optional[str] = ..., tool_use: _Optional[_Union[ToolUse, _Mapping]] = ..., tool_result: _Optional[_Union[ToolResult, _Mapping]] = ..., interrupt_response: _Optional[_Union[_resume_pb2.InterruptResponse, _Mapping]] = ...) -> None: ...

class Message(_message.Message):
    __slots__ = ("role", "content", "metadata")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    role: Role
    content: _containers.RepeatedCompositeFieldContainer[ContentBlock]
    metadata: _struct_pb2.Struct
    def __init__(self, role: _Optional[_Union[Role, str]] = ..., content: _Optional[_Iterable[_Union[ContentBlock, _Mapping]]] = ..., metadata: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...
