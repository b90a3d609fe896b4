from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AbandonThen(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ABANDON_THEN_UNSPECIFIED: _ClassVar[AbandonThen]
    ABANDON_THEN_END: _ClassVar[AbandonThen]
    ABANDON_THEN_CONTINUE: _ClassVar[AbandonThen]
ABANDON_THEN_UNSPECIFIED: AbandonThen
ABANDON_THEN_END: AbandonThen
ABANDON_THEN_CONTINUE: AbandonThen

class Abandon(_message.Message):
    __slots__ = ("message", "then")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    THEN_FIELD_NUMBER: _ClassVar[int]
    message: str
    then: AbandonThen
    def __init__(self, message: _Optional[str] = ..., then: _Optional[_Union[AbandonThen, str]] = ...) -> None: ...

class AbandonInput(_message.Message):
    __slots__ = ("abandon",)
    ABANDON_FIELD_NUMBER: _ClassVar[int]
    abandon: Abandon
    def __init__(self, abandon: _Optional[_Union[Abandon, _Mapping]] = ...) -> None: ...
