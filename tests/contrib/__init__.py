"""Tests of middleware_contrib."""
