"""The example adapter, loaded from ``examples/custom_adapter.py`` (examples are no package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["EXAMPLE", "load_example"]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_adapter.py"


def load_example() -> ModuleType:
    """The example module, imported once (it only defines things unless run as a script)."""
    name = "agentcore_example_custom_adapter"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, EXAMPLE)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module
