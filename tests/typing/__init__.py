"""Static typing checks: modules here are verified by mypy and basedpyright (strict)."""
