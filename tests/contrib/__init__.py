"""Tests of agentcore_contrib."""
