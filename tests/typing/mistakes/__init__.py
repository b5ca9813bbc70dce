"""Snippets of user mistakes the strict type checkers must reject (see test_static_mistakes)."""
