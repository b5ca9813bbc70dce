"""Griffe extensions for the API reference: role links and attrs constructors.

Docstrings in agentcore use Sphinx-style roles (``:class:`~agentcore.errors.RateLimitedError```)
because editors render them; mkdocstrings does not, and would print the raw markup. At
build time this extension rewrites each role into an optional autorefs cross-reference:
a link where the target is documented on the site, plain code where it is not (a private
helper, say), so a role never breaks ``mkdocs build --strict``.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import attrs
import griffe

import agentcore

_ROLE = re.compile(r":(?:class|func|meth|attr|exc|data|mod|obj):`(?P<tilde>~?)(?P<target>[^`]+)`")
_PACKAGES = ("agentcore", "agentcore_")
_TOP_LEVEL = frozenset(agentcore.__all__)


def _identifier(target: str, obj: griffe.Object) -> str:
    target = target.removesuffix("()")
    if target.startswith(_PACKAGES) or ("." in target and not target[0].isupper()):
        return target
    if target.split(".")[0] in _TOP_LEVEL:
        return f"agentcore.{target}"
    scope = obj if obj.is_class or obj.is_module else obj.parent
    return f"{scope.path}.{target}" if scope is not None else target


class SphinxRoles(griffe.Extension):
    """Rewrite ``:role:`target``` in every docstring into an optional cross-reference."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        del kwargs
        docstring = obj.docstring
        if docstring is None or ":`" not in docstring.value:
            return

        def link(match: re.Match[str]) -> str:
            target = match["target"]
            shown = target.rsplit(".", 1)[-1] if match["tilde"] else target
            identifier = _identifier(target, obj)
            return f'<autoref identifier="{identifier}" optional><code>{shown}</code></autoref>'

        docstring.value = _ROLE.sub(link, docstring.value)


class AttrsSignatures(griffe.Extension):
    """Give attrs classes the constructor signature attrs generates at run time.

    Griffe reads source, where an attrs class has no ``__init__``; the reference would show
    such a class without its parameters. This reads the generated signature and adds it,
    so ``merge_init_into_class`` shows ``Message(role, contents=(), ...)`` like any class.
    """

    def on_class_members(self, *, cls: griffe.Class, **kwargs: Any) -> None:
        del kwargs
        if "__init__" in cls.members:
            return
        try:
            runtime = getattr(importlib.import_module(cls.module.path), cls.name)
        except (ImportError, AttributeError):
            return
        if not (isinstance(runtime, type) and attrs.has(runtime)):
            return
        signature = inspect.signature(runtime)
        parameters = griffe.Parameters(
            griffe.Parameter("self", kind=_KINDS[inspect.Parameter.POSITIONAL_OR_KEYWORD]),
            *(_parameter(parameter) for parameter in signature.parameters.values()),
        )
        init = griffe.Function("__init__", parameters=parameters, returns="None")
        cls.set_member("__init__", init)


# Looked up by value: type checkers see griffe's StrEnum members as plain str.
_KINDS = {
    kind: griffe.ParameterKind(kind.description)
    for kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.VAR_KEYWORD,
    )
}


def _parameter(parameter: inspect.Parameter) -> griffe.Parameter:
    annotation = parameter.annotation
    default: str | None = None
    if parameter.default is attrs.NOTHING:
        default = "<generated>"
    elif parameter.default is not inspect.Parameter.empty:
        default = repr(parameter.default)
    return griffe.Parameter(
        parameter.name,
        annotation=None if annotation is inspect.Parameter.empty else str(annotation),
        kind=_KINDS[parameter.kind],
        default=default,
    )
