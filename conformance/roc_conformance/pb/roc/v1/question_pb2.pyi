from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Question(_message.Message):
    __slots__ = ("question", "header", "options", "multi_select", "allow_other")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    HEADER_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    MULTI_SELECT_FIELD_NUMBER: _ClassVar[int]
    ALLOW_OTHER_FIELD_NUMBER: _ClassVar[int]
    question: str
    header: str
    options: _containers.RepeatedCompositeFieldContainer[QuestionOption]
    multi_select: bool
    allow_other: bool
    def __init__(self, question: _Optional[str] = ..., header: _Optional[str] = ..., options: _Optional[_Iterable[_Union[QuestionOption, _Mapping]]] = ..., multi_select: _Optional[bool] = ..., allow_other: _Optional[bool] = ...) -> None: ...

class QuestionOption(_message.Message):
    __slots__ = ("label", "description")
    LABEL_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    label: str
    description: str
    def __init__(self, label: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class QuestionAnswer(_message.Message):
    __slots__ = ("selected", "other")
    SELECTED_FIELD_NUMBER: _ClassVar[int]
    OTHER_FIELD_NUMBER: _ClassVar[int]
    selected: _containers.RepeatedScalarFieldContainer[str]
    other: str
    def __init__(self, selected: _Optional[_Iterable[str]] = ..., other: _Optional[str] = ...) -> None: ...

class AskUserInput(_message.Message):
    __slots__ = ("questions",)
    QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    questions: _containers.RepeatedCompositeFieldContainer[Question]
    def __init__(self, questions: _Optional[_Iterable[_Union[Question, _Mapping]]] = ...) -> None: ...
