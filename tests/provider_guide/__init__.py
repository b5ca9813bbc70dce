"""Tests of the provider author guide: its example adapter passes the conformance kit."""
