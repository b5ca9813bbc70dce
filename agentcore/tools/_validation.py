"""Checking the model's arguments and converting them to the annotated Python types.

One cattrs converter, strict where JSON is precise:

- ``str`` takes only strings, ``bool`` only booleans, ``None`` only null;
- ``int`` takes integers but not booleans; a float with an integral value (``3.0``)
  is taken as ``3``, as JSON Schema counts it an integer, and ``3.5`` is refused;
- ``float`` takes integers and floats (converted to ``float``), never booleans;
- ``Literal`` and ``Enum`` match by value *and* JSON type (``1`` never matches ``True``);
- arrays must be JSON arrays (a string is not a list of characters), objects must be
  JSON objects, and objects refuse keys their class does not declare;
- in a union, a member of exactly the value's scalar type wins (``3`` stays an ``int``
  in ``float | int``); otherwise the members are tried in order.

Problems become one message each, naming the path: ``"stops[1].name: expected str,
got 3"``. This module imports cattrs, so ``agentcore.tools`` imports it lazily.
"""

from __future__ import annotations

import enum
import json
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn, cast

import cattrs
import typing_extensions
from cattrs.errors import ClassValidationError, ForbiddenExtraKeysError
from cattrs.gen import make_dict_structure_fn

from agentcore._types.json_arguments import STRICT_DECODER, NotJsonNumber
from agentcore.tools._errors import ToolArgumentsError
from agentcore.tools._signature import ToolParameter
from agentcore.tools._types import (
    ARRAY_ORIGINS,
    MAPPING_ORIGINS,
    SET_ORIGINS,
    NoneType,
    PydanticModel,
    is_enum_class,
    is_literal,
    is_mapping,
    is_pydantic_model,
    is_record_class,
    is_typeddict,
    is_union,
    render_type,
    strip_wrappers,
    typeddict_fields,
)

__all__ = ["ArgumentParser"]

Hook = Callable[[Any, Any], Any]


class _Invalid(ValueError):
    """One problem with the value at the current path."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _ItemErrors(ValueError):
    """Problems inside a container: ``(path step, error)`` pairs, steps like ``[2]``."""

    def __init__(self, errors: list[tuple[str, BaseException]]) -> None:
        super().__init__(f"{len(errors)} invalid item(s)")
        self.errors = errors


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _expected(hint: Any, value: Any) -> NoReturn:
    raise _Invalid(f"expected {render_type(hint)}, got {_show(value)}")


def _one_of(values: Sequence[Any], value: Any) -> NoReturn:
    allowed = ", ".join(repr(item) for item in values)
    raise _Invalid(f"must be one of {allowed}, got {_show(value)}")


def _same(expected: Any, value: Any) -> bool:
    """Equal and of the same JSON type (so ``True`` is not ``1``)."""
    return type(expected) is type(value) and expected == value


# --- scalars ---------------------------------------------------------------------------------
# cattrs dispatches these by ``singledispatch``, so str / int subclasses (``StrEnum``,
# ``IntEnum``) arrive here too; they are sent on to the enum hook.


def _structure_str(value: Any, hint: Any) -> Any:
    if hint is not str:
        return _structure_subclass(value, hint)
    if isinstance(value, str):
        return value
    _expected(hint, value)


def _structure_int(value: Any, hint: Any) -> Any:
    if hint is not int:
        return _structure_subclass(value, hint)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    _expected(hint, value)


def _structure_float(value: Any, hint: Any) -> Any:
    if hint is not float:
        return _structure_subclass(value, hint)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    _expected(hint, value)


def _structure_bool(value: Any, hint: Any) -> bool:
    if isinstance(value, bool):
        return value
    _expected(hint, value)


def _structure_none(value: Any, hint: Any) -> None:
    if value is not None:
        _expected(hint, value)


def _structure_subclass(value: Any, hint: Any) -> Any:
    if is_enum_class(hint):
        return _structure_enum(value, hint)
    _expected(hint, value)  # other subclasses have no schema, so never get here from a tool


def _structure_enum(value: Any, hint: type[enum.Enum]) -> enum.Enum:
    if isinstance(value, hint):
        return value
    for member in hint:
        if _same(member.value, value):
            return member
    _one_of([member.value for member in hint], value)


# --- hook factories ---------------------------------------------------------------------------


def _literal_hook(hint: Any) -> Hook:
    allowed: tuple[Any, ...] = typing_extensions.get_args(hint)

    def structure_literal(value: Any, _: Any) -> Any:
        for option in allowed:
            if isinstance(option, enum.Enum):
                if value is option or _same(option.value, value):
                    return option
            elif _same(option, value):
                return option
        _one_of([o.value if isinstance(o, enum.Enum) else o for o in allowed], value)

    return structure_literal


def _plausible(member: Any, value: Any) -> bool:
    """Whether ``value``'s JSON kind could be ``member`` (an error from it is then relevant)."""
    member = strip_wrappers(member)
    if member is Any or is_union(member) or is_literal(member):
        return True
    if is_enum_class(member):
        return True
    supertype = getattr(member, "__supertype__", None)
    if supertype is not None:
        return _plausible(supertype, value)
    if value is None:
        return member is NoneType
    if isinstance(value, Mapping):
        origin: Any = typing_extensions.get_origin(member) or member
        return (
            is_record_class(member)
            or is_typeddict(member)
            or is_pydantic_model(member)
            or origin in MAPPING_ORIGINS
        )
    if isinstance(value, (list, tuple)):
        origin = typing_extensions.get_origin(member) or member  # pyright: ignore[reportUnknownVariableType] # a hint
        return origin is tuple or origin in ARRAY_ORIGINS or origin in SET_ORIGINS
    if isinstance(value, bool):
        return member is bool
    if isinstance(value, (int, float)):
        return member in (int, float)
    if isinstance(value, str):
        return member is str
    return True


def _union_hook(hint: Any, converter: cattrs.Converter) -> Hook:
    members: tuple[Any, ...] = typing_extensions.get_args(hint)
    scalars = tuple(m for m in members if m in (str, int, float, bool, NoneType))

    def structure_union(value: Any, _: Any) -> Any:
        for scalar in scalars:  # an exact match needs no conversion and wins
            if type(value) is scalar:
                return value
        plausible = [m for m in members if _plausible(m, value)]
        errors: list[BaseException] = []
        for member in plausible:
            try:
                return converter.structure(value, member)
            except Exception as exc:
                errors.append(exc)
        if len(errors) == 1:
            raise errors[0]
        _expected(hint, value)

    return structure_union


def _array_hook(hint: Any, converter: cattrs.Converter) -> Hook:
    origin = typing_extensions.get_origin(hint) or hint
    args = typing_extensions.get_args(hint)
    item_hint: Any = args[0] if args else Any
    item_hook = converter.get_structure_hook(item_hint)
    is_set = origin in SET_ORIGINS
    accepted: tuple[type, ...] = (list, tuple, set, frozenset) if is_set else (list, tuple)
    result_kind = "frozenset" if origin is frozenset else "set" if is_set else "list"

    def structure_array(value: Any, _: Any) -> Any:
        if not isinstance(value, accepted):
            _expected(hint, value)
        items: list[Any] = []
        errors: list[tuple[str, BaseException]] = []
        for index, item in enumerate(cast("Iterable[Any]", value)):
            try:
                items.append(item_hook(item, item_hint))
            except Exception as exc:
                errors.append((f"[{index}]", exc))
        if errors:
            raise _ItemErrors(errors)
        if result_kind == "list":
            return items
        return set(items) if result_kind == "set" else frozenset(items)

    return structure_array


def _tuple_hook(hint: Any, converter: cattrs.Converter) -> Hook:
    args = typing_extensions.get_args(hint)
    if typing_extensions.get_origin(hint) is None or (len(args) == 2 and args[1] is Ellipsis):
        as_list = _array_hook(types.GenericAlias(list, args[:1]) if args else list, converter)

        def structure_variadic(value: Any, _: Any) -> Any:
            if not isinstance(value, (list, tuple)):
                _expected(hint, value)
            return tuple(as_list(value, None))

        return structure_variadic
    fixed: tuple[Any, ...] = () if args == ((),) else args
    hooks = [converter.get_structure_hook(arg) for arg in fixed]

    def structure_fixed(value: Any, _: Any) -> Any:
        if not isinstance(value, (list, tuple)):
            _expected(hint, value)
        given = cast("Sequence[Any]", value)
        if len(given) != len(fixed):
            raise _Invalid(f"expected {len(fixed)} items, got {len(given)}")
        items: list[Any] = []
        errors: list[tuple[str, BaseException]] = []
        for index, (hook, arg, item) in enumerate(zip(hooks, fixed, given, strict=True)):
            try:
                items.append(hook(item, arg))
            except Exception as exc:
                errors.append((f"[{index}]", exc))
        if errors:
            raise _ItemErrors(errors)
        return tuple(items)

    return structure_fixed


def _mapping_hook(hint: Any, converter: cattrs.Converter) -> Hook:
    args = typing_extensions.get_args(hint)
    value_hint: Any = args[1] if len(args) == 2 else Any
    value_hook = converter.get_structure_hook(value_hint)

    def structure_mapping(value: Any, _: Any) -> Any:
        if not is_mapping(value):
            _expected(hint, value)
        result: dict[str, Any] = {}
        errors: list[tuple[str, BaseException]] = []
        for key, item in value.items():
            if not isinstance(key, str):
                errors.append((f"[{key!r}]", _Invalid(f"keys must be str, got {_show(key)}")))
                continue
            try:
                result[key] = value_hook(item, value_hint)
            except Exception as exc:
                errors.append((f"[{key!r}]", exc))
        if errors:
            raise _ItemErrors(errors)
        return result

    return structure_mapping


def _record_hook(cls: Any, converter: cattrs.Converter) -> Hook:
    inner: Hook = make_dict_structure_fn(cls, converter)

    def structure_record(value: Any, _: Any) -> Any:
        if isinstance(value, cls):
            return value
        if not isinstance(value, Mapping):
            raise _Invalid(f"expected an object, got {_show(value)}")
        return inner(cast("Mapping[str, Any]", value), cls)

    return structure_record


def _typeddict_hook(cls: Any, converter: cattrs.Converter) -> Hook:
    fields = {
        key: (strip_wrappers(hint), required, converter.get_structure_hook(strip_wrappers(hint)))
        for key, hint, required in typeddict_fields(cls)
    }

    def structure_typeddict(value: Any, _: Any) -> Any:
        if not is_mapping(value):
            raise _Invalid(f"expected an object, got {_show(value)}")
        given = value
        result: dict[str, Any] = {}
        errors: list[tuple[str, BaseException]] = []
        for key, (hint, required, hook) in fields.items():
            if key not in given:
                if required:
                    errors.append((f".{key}", _Invalid("missing required field")))
                continue
            try:
                result[key] = hook(given[key], hint)
            except Exception as exc:
                errors.append((f".{key}", exc))
        errors.extend(
            ("", _Invalid(f"unexpected field {key!r}")) for key in given if key not in fields
        )
        if errors:
            raise _ItemErrors(errors)
        return result

    return structure_typeddict


def _pydantic_hook(cls: type[PydanticModel]) -> Hook:
    def structure_model(value: Any, _: Any) -> Any:
        if isinstance(value, cls):
            return value
        try:
            return cls.model_validate(value)
        except Exception as exc:
            raise _from_pydantic(exc) from exc

    return structure_model


def _from_pydantic(exc: Exception) -> _Invalid | _ItemErrors:
    """A pydantic ``ValidationError`` (duck-typed) as path-named problems."""
    listed = getattr(exc, "errors", None)
    if not callable(listed):
        return _Invalid(str(exc))
    errors: list[tuple[str, BaseException]] = []
    for error in cast("Callable[[], Iterable[Mapping[str, Any]]]", listed)():
        location: Sequence[Any] = error.get("loc", ())
        steps = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in location)
        errors.append((steps, _Invalid(str(error.get("msg", "invalid value")))))
    return _ItemErrors(errors) if errors else _Invalid(str(exc))


def _make_converter() -> cattrs.Converter:
    converter = cattrs.Converter(detailed_validation=True, forbid_extra_keys=True)
    converter.register_structure_hook(str, _structure_str)
    converter.register_structure_hook(int, _structure_int)
    converter.register_structure_hook(float, _structure_float)
    converter.register_structure_hook(bool, _structure_bool)
    converter.register_structure_hook(NoneType, _structure_none)
    # Registered later means consulted first: these replace cattrs' lenient defaults.
    factories: list[tuple[Callable[[Any], bool], Any]] = [
        (is_enum_class, lambda t: _structure_enum),
        (is_record_class, _record_hook),
        (is_typeddict, _typeddict_hook),
        (is_pydantic_model, _pydantic_hook),
        (_is_origin(ARRAY_ORIGINS | SET_ORIGINS), _array_hook),
        (_is_origin(frozenset({tuple})), _tuple_hook),
        (_is_origin(MAPPING_ORIGINS), _mapping_hook),
        (is_literal, _literal_hook),
        (is_union, _union_hook),
    ]
    for predicate, factory in factories:
        converter.register_structure_hook_factory(predicate, factory)
    return converter


def _is_origin(origins: frozenset[Any]) -> Callable[[Any], bool]:
    def predicate(hint: Any) -> bool:
        kind = typing_extensions.get_origin(hint) or hint
        try:
            return kind in origins
        except TypeError:  # an unhashable hint is no container
            return False

    return predicate


_CONVERTER = _make_converter()


# --- describing failures ---------------------------------------------------------------------


def _describe(exc: BaseException, path: str) -> list[str]:
    """Flatten a structuring failure into ``"path: problem"`` messages."""
    if isinstance(exc, _Invalid):
        return [f"{path}: {exc.message}"]
    if isinstance(exc, _ItemErrors):
        return [line for step, sub in exc.errors for line in _describe(sub, path + step)]
    if isinstance(exc, ClassValidationError):
        lines: list[str] = []
        with_notes, without = exc.group_exceptions()
        for sub, note in with_notes:
            field_path = f"{path}.{note.name}"
            if isinstance(sub, KeyError):
                lines.append(f"{field_path}: missing required field")
            else:
                lines.extend(_describe(sub, field_path))
        for sub in without:
            lines.extend(_describe(sub, path))
        return lines
    if isinstance(exc, ForbiddenExtraKeysError):
        return [f"{path}: unexpected field {key!r}" for key in sorted(exc.extra_fields)]
    text = str(exc) or type(exc).__name__
    return [f"{path}: {text}"]


def _accepts_none(hint: Any) -> bool:
    hint = strip_wrappers(hint)
    if hint is Any or hint is None or hint is NoneType:
        return True
    if is_union(hint):
        return any(_accepts_none(member) for member in typing_extensions.get_args(hint))
    if is_literal(hint):
        return None in typing_extensions.get_args(hint)
    return False


class ArgumentParser:
    """Parses one tool's raw arguments: built once per tool, reused for every call."""

    __slots__ = ("_fields", "_tool_name")

    def __init__(self, parameters: Sequence[ToolParameter], *, tool_name: str) -> None:
        self._tool_name = tool_name
        self._fields: dict[str, tuple[ToolParameter, Hook, bool]] = {
            p.name: (p, _CONVERTER.get_structure_hook(p.hint), _accepts_none(p.hint))
            for p in parameters
            if not p.injected
        }

    def parse(self, raw: str | bytes | Mapping[str, Any]) -> dict[str, Any]:
        """Validate and convert; raise :class:`ToolArgumentsError` listing every problem.

        An argument that is left out is left out of the result too (the function's
        default applies). ``null`` for a parameter that has a default but does not
        accept ``None`` counts as left out: some providers' strict modes send it so.
        """
        data = self._load(raw)
        result: dict[str, Any] = {}
        problems: list[str] = []
        for name, (parameter, hook, accepts_none) in self._fields.items():
            if name not in data:
                if parameter.required:
                    problems.append(f"{name}: missing required argument")
                continue
            value = data[name]
            if value is None and not accepts_none and not parameter.required:
                continue
            try:
                result[name] = hook(value, parameter.hint)
            except Exception as exc:
                problems.extend(_describe(exc, name))
        if not data.keys() <= self._fields.keys():
            problems.extend(
                f"unexpected argument {key!r}" for key in data if key not in self._fields
            )
        if problems:
            raise ToolArgumentsError(problems, tool_name=self._tool_name)
        return result

    def _load(self, raw: str | bytes | Mapping[str, Any]) -> Mapping[Any, Any]:
        if isinstance(raw, str) and raw:
            try:
                data: Any = STRICT_DECODER.decode(raw)  # the usual case: a JSON object in a str
            except (json.JSONDecodeError, NotJsonNumber, RecursionError):
                pass  # reported with detail below
            else:
                if isinstance(data, dict):
                    return data  # pyright: ignore[reportUnknownVariableType] # parsed JSON
        if isinstance(raw, Mapping):
            return raw
        if not isinstance(raw, (str, bytes, bytearray)):
            raise TypeError(
                f"arguments for tool {self._tool_name!r} must be a JSON string or a mapping, "
                f"got {type(raw).__name__}"
            )
        if not raw.strip():
            return {}  # some models send "" for a call without arguments
        try:
            text = (
                raw
                if isinstance(raw, str)
                else raw.decode(json.detect_encoding(raw), "surrogatepass")
            )
            data = STRICT_DECODER.decode(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ToolArgumentsError(
                f"arguments are not valid JSON: {exc}", tool_name=self._tool_name
            ) from None
        except NotJsonNumber as exc:
            raise ToolArgumentsError(
                f"arguments are not valid JSON: {exc} is not a JSON number; send a finite "
                "number (or a string)",
                tool_name=self._tool_name,
            ) from None
        except RecursionError:
            raise ToolArgumentsError(
                "arguments are nested too deeply to read; send a flatter JSON object",
                tool_name=self._tool_name,
            ) from None
        if not isinstance(data, dict):
            raise ToolArgumentsError(
                f"arguments must be a JSON object, got {_show(data)}", tool_name=self._tool_name
            )
        return data  # pyright: ignore[reportUnknownVariableType] # parsed JSON
