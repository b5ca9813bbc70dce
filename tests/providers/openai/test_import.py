"""Importing the adapters without the SDK says which extra to install."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

import pytest

import providers.openai


def test_a_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name == "openai" else real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    with pytest.raises(ImportError, match=r"pip install 'agentcore\[openai\]'"):
        importlib.reload(providers.openai)
