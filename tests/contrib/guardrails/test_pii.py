"""PII detection: checksums and issuing rules keep near-misses out; redact or block."""

from __future__ import annotations

import pytest
from agentcore_contrib.guardrails import PIIGuard, find_pii
from agentcore_contrib.guardrails.pii import (
    iban_is_valid,
    luhn_is_valid,
    ssn_is_valid,
    uk_nino_is_valid,
)

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("digits", "valid"),
    [("4111111111111111", True), ("4111111111111112", False), ("378282246310005", True)],
)
def test_luhn_check(digits: str, valid: bool) -> None:
    assert luhn_is_valid(digits) is valid


@pytest.mark.parametrize(
    ("iban", "valid"),
    [
        ("GB82 WEST 1234 5698 7654 32", True),
        ("GB82 WEST 1234 5698 7654 33", False),  # check digits do not match
        ("GB82 WEST 1234 5698 7654", False),  # too short for GB
        ("XX82 WEST 1234 5698 7654 32", False),  # unknown country
    ],
)
def test_iban_check(iban: str, valid: bool) -> None:
    assert iban_is_valid(iban) is valid


@pytest.mark.parametrize(
    ("parts", "valid"),
    [
        (("123", "45", "6789"), True),
        (("000", "45", "6789"), False),
        (("666", "45", "6789"), False),
        (("901", "45", "6789"), False),
        (("123", "00", "6789"), False),
        (("123", "45", "0000"), False),
    ],
)
def test_ssn_ranges(parts: tuple[str, str, str], valid: bool) -> None:
    assert ssn_is_valid(*parts) is valid


@pytest.mark.parametrize(
    ("nino", "valid"),
    [
        ("AB 12 34 56 C", True),
        ("QQ 12 34 56 C", False),  # Q is never a first letter
        ("BG 12 34 56 A", False),  # a prefix HMRC never issues
        ("AB 12 34 56 E", False),  # the suffix is A-D
    ],
)
def test_uk_nino_rules(nino: str, valid: bool) -> None:
    assert uk_nino_is_valid(nino) is valid


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("write to ana.b+x@example.co.uk today", "email", "ana.b+x@example.co.uk"),
        ("ring +44 20 7946 0958 later", "phone", "+44 20 7946 0958"),
        ("office (212) 555-0187", "phone", "(212) 555-0187"),
        ("card 5555-5555-5555-4444 ok", "card", "5555-5555-5555-4444"),
        ("pay DE89 3704 0044 0532 0130 00 THEN", "iban", "DE89 3704 0044 0532 0130 00"),
        ("ssn 123-45-6789.", "us_ssn", "123-45-6789"),
        ("SSN: 536226789", "us_ssn", "536226789"),
        ("NI number AB123456C", "uk_nino", "AB123456C"),
    ],
)
def test_find_pii_reports_kind_and_value(text: str, kind: str, value: str) -> None:
    (match,) = find_pii(text)
    assert (match.kind, match.value) == (kind, value)
    assert text[match.start : match.end] == value


@pytest.mark.parametrize(
    "text",
    [
        "card 4111 1111 1111 1112",
        "order 1234567890123",
        "released 2024-03-15, version 3.12.1",
        "placeholder 000-12-3456",
    ],
)
def test_near_misses_are_not_pii(text: str) -> None:
    assert find_pii(text) == []


def test_find_pii_limits_itself_to_the_kinds_asked_for() -> None:
    text = "a@example.com or +44 20 7946 0958"
    assert [m.kind for m in find_pii(text, ["phone"])] == ["phone"]


async def test_redact_mode_replaces_each_value_with_its_kind() -> None:
    result = await PIIGuard().check("mail a@example.com, card 4111 1111 1111 1111.")
    assert result.action == "redact"
    assert result.text == "mail [email], card [card]."


async def test_block_mode_blocks_and_names_the_kinds() -> None:
    result = await PIIGuard(mode="block").check("mail a@example.com")
    assert (result.action, result.reason) == ("block", "personal data found: email")


async def test_text_without_pii_is_allowed() -> None:
    assert (await PIIGuard().check("nothing to see")).action == "allow"


async def test_custom_replacement_template() -> None:
    result = await PIIGuard(replacement="<{kind} removed>").check("a@example.com")
    assert result.text == "<email removed>"


def test_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="kinds must be a non-empty selection"):
        PIIGuard(["passport"])  # type: ignore[list-item]  # the wrong type is the point of the test


def test_bad_replacement_template_is_refused() -> None:
    with pytest.raises(ValueError, match="may only use the \\{kind\\} field"):
        PIIGuard(replacement="{value}")
