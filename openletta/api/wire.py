"""The base of every model read from the Letta server: its rules, its dates, its text.

Two rules hold for every model read from the server (:class:`WireModel`):

* a field whose value has the wrong type (a string of tokens, a list for a name) gets its
  default, "unknown", instead of failing the whole model;
* every date (:data:`WireDatetime`, and a message's ``date``, read when asked for) is
  :func:`utc_datetime` of what was sent: an aware datetime in UTC, or ``None`` when the
  value is not a date, so dates from anywhere can be compared.

:func:`content_text` reads a ``content`` field, given as text or as a list of parts
(:data:`WireText`).
:class:`JsonFastPath` reads JSON text straight into models, for the chunks of a stream.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    ModelWrapValidatorHandler,
    StrictStr,
    TypeAdapter,
    ValidationError,
    model_validator,
)


def content_text(content: Any) -> str:
    """Join the text of ``content`` given as a string or a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif part.get("type") == "image":
                    texts.append("[image]")
        return "".join(texts)
    if isinstance(content, dict) and isinstance(content.get("text"), str):
        return content["text"]
    return str(content)


def utc_datetime(value: Any) -> datetime | None:
    """A date from the wire as an aware UTC datetime: ISO text (with or without an offset;
    none means UTC), epoch seconds, or a datetime. ``None`` for anything else."""
    if isinstance(value, str):
        # Every chunk of a streamed message repeats its date: each is parsed once.
        return _cached_utc_text(value) if len(value) <= _CACHED_DATE_LENGTH else _utc_text(value)
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    return _as_utc(value) if isinstance(value, datetime) else None


def _utc_text(text: str) -> datetime | None:
    try:
        return _as_utc(datetime.fromisoformat(text.strip().upper().replace("Z", "+00:00")))
    except ValueError:
        return None


_CACHED_DATE_LENGTH = 64
_cached_utc_text = functools.lru_cache(maxsize=256)(_utc_text)


def _as_utc(value: datetime) -> datetime | None:
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:  # year 1 or 9999 moved past the calendar's end
        return None


#: A date field of a wire model (see :func:`utc_datetime`).
WireDatetime = Annotated[datetime | None, BeforeValidator(utc_datetime)]


@dataclass(frozen=True)
class _ValidatedAs:
    """An ``Annotated`` marker that makes pydantic validate a field as it validates ``spec``."""

    spec: Any

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return handler.generate_schema(self.spec)


#: A text field that may come as content parts (see :func:`content_text`). Text, as nearly
#: every chunk sends, is taken without a call to Python.
WireText = Annotated[str, _ValidatedAs(Annotated[
    StrictStr | Annotated[Any, AfterValidator(content_text)], Field(union_mode="left_to_right")])]


class WireModel(BaseModel):
    """Base for everything read from the server: unknown keys ignored, ``None`` tolerated,
    a value of the wrong type replaced by the field's default."""

    #: ``defer_build``: a model's validator is built when first used, not at import (some
    #: forty models cost a tenth of a second, and a launch uses a few).
    model_config = ConfigDict(extra="ignore", populate_by_name=True, defer_build=True)
    #: Fields that, when sent (and valid), make the model's ``before`` validator change
    #: nothing: :class:`JsonFastPath` reads a chunk without that validator (a call to Python
    #: with the chunk turned into a dict first), and requires them.
    fast_path_requires: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="wrap")
    @classmethod
    def _defaults_for_bad_fields(cls, data: Any, handler: ModelWrapValidatorHandler[Self]
                                 ) -> Self:
        try:
            return handler(data)
        except ValidationError as error:
            if not isinstance(data, dict):
                raise
            bad = {problem["loc"][0] for problem in error.errors() if problem["loc"]}
            if not bad or any(cls.model_fields[name].is_required()
                              for name in bad if name in cls.model_fields):
                raise
            return handler({key: value for key, value in data.items() if key not in bad})


class JsonFastPath:
    """Reads JSON text holding one of ``models`` (picked by its ``tag`` field): :attr:`read`
    gives what ``model.model_validate(json.loads(text))`` gives, or raises ``ValueError``.

    It validates the text in one pass, without Python's JSON objects in between, and without
    the leniency of :class:`WireModel` around each model (nested models keep theirs): that
    changes nothing when validation succeeds, and it alone costs more than validating the
    text. A ``ValueError`` (not JSON, an unknown tag, a field to default) means: validate
    the usual way. The validator is built when first used.
    """

    def __init__(self, models: Iterable[type[WireModel]], tag: str) -> None:
        self._models, self._tag = list(models), tag

    @functools.cached_property
    def read(self) -> Callable[[str], WireModel]:
        """The validator of JSON text."""
        choices = {model.model_fields[self._tag].default: _without_leniency(model)
                   for model in self._models}
        schema = {"type": "tagged-union", "choices": choices, "discriminator": self._tag}
        validate: Callable[[str], WireModel] = TypeAdapter(
            Annotated[Any, _CoreSchema(schema)]).validator.validate_json
        return validate


def _without_leniency(model: type[WireModel]) -> dict[str, Any]:
    """The core schema of ``model`` inside the wrap validator that :class:`WireModel` adds
    (its only one)."""
    schema = model.__pydantic_core_schema__
    inner: dict[str, Any] = dict(schema.get("schema", {}))
    if schema["type"] != "function-wrap" or inner.get("cls") is not model:
        raise TypeError(f"{model.__name__} is not validated as a WireModel is")
    if model.fast_path_requires:
        inner["schema"] = _requiring(inner["schema"], model.fast_path_requires)
    return inner


def _requiring(before: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of a ``before`` validator's schema, without the validator, with ``names``
    required (a field's default taken off)."""
    fields_schema = before.get("schema", {})
    if before["type"] != "function-before" or fields_schema.get("type") != "model-fields":
        raise TypeError("fast_path_requires is for a model with one before validator")
    fields = fields_schema["fields"]
    required = {name: {**fields[name], "schema": fields[name]["schema"]["schema"]}
                for name in names}
    return {**fields_schema, "fields": {**fields, **required}}


@dataclass(eq=False)
class _CoreSchema:
    """An ``Annotated`` marker that makes pydantic validate with ``schema`` as it is."""

    schema: dict[str, Any]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> Any:
        return self.schema

