"""Feature staging: mark APIs experimental or release-candidate.

Using a staged API warns once per process for each (category, feature) pair.
Nothing global changes at import: warning formatting and filters stay the user's.
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from enum import Enum
from typing import Any, TypeVar, cast

__all__ = [
    "ExperimentalFeature",
    "ExperimentalWarning",
    "FeatureStageWarning",
    "ReleaseCandidateFeature",
    "ReleaseCandidateWarning",
    "experimental",
    "release_candidate",
]

T = TypeVar("T")

FEATURE_STAGE_ATTR = "__agentcore_feature_stage__"
FEATURE_ID_ATTR = "__agentcore_feature_id__"


class FeatureStageWarning(FutureWarning):
    """Base category of warnings about staged (not yet stable) APIs."""


class ExperimentalWarning(FeatureStageWarning):
    """An experimental API was used: it may change or go away without notice."""


class ReleaseCandidateWarning(FeatureStageWarning):
    """A release-candidate API was used: its shape is settled but may still change."""


class ExperimentalFeature(str, Enum):
    """Features currently experimental."""

    COMPACTION = "COMPACTION"
    LABEL_TRACKING = "LABEL_TRACKING"
    RUN_RESUME = "RUN_RESUME"


class ReleaseCandidateFeature(str, Enum):
    """Features currently release candidates."""

    STRUCTURED_OUTPUT = "STRUCTURED_OUTPUT"


_warned: set[tuple[type[Warning], str]] = set()
_warned_lock = threading.Lock()


def _warn_once(category: type[FeatureStageWarning], feature_id: str, what: str) -> None:
    key = (category, feature_id)
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    stage = "experimental" if issubclass(category, ExperimentalWarning) else "a release candidate"
    warnings.warn(
        f"{what} is {stage} (feature {feature_id}) and may change in a future release.",
        category,
        stacklevel=3,
    )


def _stage(
    stage: str, category: type[FeatureStageWarning], feature_id: Enum | str
) -> Callable[[T], T]:
    fid = feature_id.value if isinstance(feature_id, Enum) else str(feature_id)

    def decorate(obj: T) -> T:
        name = getattr(obj, "__qualname__", repr(obj))
        if isinstance(obj, type):
            cls = cast("type[Any]", obj)
            original_init = cls.__init__

            @functools.wraps(original_init)
            def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
                _warn_once(category, fid, name)
                original_init(self, *args, **kwargs)

            cls.__init__ = __init__
            setattr(cls, FEATURE_STAGE_ATTR, stage)
            setattr(cls, FEATURE_ID_ATTR, fid)
            return obj
        if callable(obj):
            func = cast("Callable[..., Any]", obj)

            @functools.wraps(func)
            def wrapper(*args: Any, **kwargs: Any) -> Any:
                _warn_once(category, fid, name)
                return func(*args, **kwargs)

            setattr(wrapper, FEATURE_STAGE_ATTR, stage)
            setattr(wrapper, FEATURE_ID_ATTR, fid)
            return cast("T", wrapper)
        raise TypeError(f"@{stage} decorates classes and callables, not {type(obj).__name__}")

    return decorate


def experimental(*, feature_id: ExperimentalFeature | str) -> Callable[[T], T]:
    """Mark a class or function experimental; first use warns :class:`ExperimentalWarning`."""
    return _stage("experimental", ExperimentalWarning, feature_id)


def release_candidate(*, feature_id: ReleaseCandidateFeature | str) -> Callable[[T], T]:
    """Mark a class or function release-candidate; first use warns once."""
    return _stage("release_candidate", ReleaseCandidateWarning, feature_id)
