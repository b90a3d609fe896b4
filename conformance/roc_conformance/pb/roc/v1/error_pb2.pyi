from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_INTERRUPT_PENDING: _ClassVar[ErrorCode]
    ERROR_CODE_NOT_INTERRUPTED: _ClassVar[ErrorCode]
    ERROR_CODE_UNKNOWN_INTERRUPT: _ClassVar[ErrorCode]
    ERROR_CODE_DUPLICATE_RESPONSE: _ClassVar[ErrorCode]
    ERROR_CODE_INVALID_RESPONSE: _ClassVar[ErrorCode]
    ERROR_CODE_INVALID_RESUME: _ClassVar[ErrorCode]
    ERROR_CODE_DUPLICATE_INTERRUPT_NAME: _ClassVar[ErrorCode]
    ERROR_CODE_DIRECT_CALL_INTERRUPT: _ClassVar[ErrorCode]
    ERROR_CODE_INVALID_REASON: _ClassVar[ErrorCode]
    ERROR_CODE_SNAPSHOT_INVALID: _ClassVar[ErrorCode]
    ERROR_CODE_SNAPSHOT_VERSION_UNSUPPORTED: _ClassVar[ErrorCode]
    ERROR_CODE_SNAPSHOT_INTEGRITY: _ClassVar[ErrorCode]
    ERROR_CODE_SESSION_CONFLICT: _ClassVar[ErrorCode]
    ERROR_CODE_EXPIRED: _ClassVar[ErrorCode]
    ERROR_CODE_INVALID_INPUT: _ClassVar[ErrorCode]
    ERROR_CODE_INTERNAL: _ClassVar[ErrorCode]
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_INTERRUPT_PENDING: ErrorCode
ERROR_CODE_NOT_INTERRUPTED: ErrorCode
ERROR_CODE_UNKNOWN_INTERRUPT: ErrorCode
ERROR_CODE_DUPLICATE_RESPONSE: ErrorCode
ERROR_CODE_INVALID_RESPONSE: ErrorCode
ERROR_CODE_INVALID_RESUME: ErrorCode
ERROR_CODE_DUPLICATE_INTERRUPT_NAME: ErrorCode
ERROR_CODE_DIRECT_CALL_INTERRUPT: ErrorCode
ERROR_CODE_INVALID_REASON: ErrorCode
ERROR_CODE_SNAPSHOT_INVALID: ErrorCode
ERROR_CODE_SNAPSHOT_VERSION_UNSUPPORTED: ErrorCode
ERROR_CODE_SNAPSHOT_INTEGRITY: ErrorCode
ERROR_CODE_SESSION_CONFLICT: ErrorCode
ERROR_CODE_EXPIRED: ErrorCode
ERROR_CODE_INVALID_INPUT: ErrorCode
ERROR_CODE_INTERNAL: ErrorCode

class Error(_message.Message):
    __slots__ = ("code", "message", "details")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    details: _struct_pb2.Struct
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., details: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...
