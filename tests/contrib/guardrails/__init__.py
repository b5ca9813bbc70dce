"""Tests of middleware_contrib.guardrails."""
