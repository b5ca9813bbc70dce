"""Tests of agentcore_contrib.guardrails."""
