"""PII detection: checksums and issuing rules keep near-misses out; redact or block."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from agentcore_contrib.guardrails import PIIGuard, find_pii, pii
from agentcore_contrib.guardrails.pii import (
    PIIKind,
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


# -- checksummed identifiers win over the looser patterns they overlap (issue 27, item 14) --
#
# The IBANs are made here, in each country's format, with synthetic bank and account
# numbers and the ISO 13616 mod-97 check digits computed; each is searched for until its
# printed form (groups of four) holds a digit run the card or the phone pattern alone
# would report, so that every case tests the overlap.


def _numeric(text: str) -> int:
    return int("".join(str(int(char, 36)) for char in text))


def _iban(country: str, bban: str) -> str:
    check = 98 - _numeric(bban + country + "00") % 97
    compact = f"{country}{check:02d}{bban}"
    return " ".join(compact[i : i + 4] for i in range(0, len(compact), 4))


def _digits(rng: random.Random, count: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(count))


def _french_bban(rng: random.Random) -> str:
    bank, branch, account = _digits(rng, 5), _digits(rng, 5), _digits(rng, 11)
    key = 97 - (89 * int(bank) + 15 * int(branch) + 3 * int(account)) % 97  # the RIB key
    return f"{bank}{branch}{account}{key:02d}"


def _belgian_bban(rng: random.Random) -> str:
    number = _digits(rng, 10)
    return f"{number}{int(number) % 97 or 97:02d}"  # the national check


BBANS: dict[str, Callable[[random.Random], str]] = {
    "DE": lambda rng: _digits(rng, 18),  # bank code (8) and account (10)
    "GB": lambda rng: "NWBK" + _digits(rng, 14),  # bank, sort code (6), account (8)
    "FR": _french_bban,
    "NL": lambda rng: "ABNA" + _digits(rng, 10),
    "ES": lambda rng: _digits(rng, 20),  # bank, branch, check digits, account
    "IT": lambda rng: rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + _digits(rng, 22),
    "BE": _belgian_bban,
    "AT": lambda rng: _digits(rng, 16),
    "PL": lambda rng: _digits(rng, 24),
}


def _weaker_matches(text: str, kind: str) -> list[pii.PIIMatch]:
    finder = pii._find_cards if kind == "card" else pii._find_phones  # pyright: ignore[reportPrivateUsage]
    return list(finder(text))


def _overlapping_iban(country: str, kind: str) -> str:
    """A valid IBAN of ``country`` whose printed digits hold what the pattern of ``kind``
    (``card`` or ``phone``) alone would report."""
    rng = random.Random(f"iban-{country}-{kind}")
    for _ in range(20_000):
        iban = _iban(country, BBANS[country](rng))
        if _weaker_matches(iban, kind):
            return iban
    raise AssertionError(f"no {country} IBAN holding a {kind} number was found")


# NL and BE account numbers are too short to hold a card number.
OVERLAPS = [
    *[(country, "card") for country in ("DE", "GB", "FR", "ES", "IT", "AT", "PL")],
    *[(country, "phone") for country in ("DE", "GB", "NL", "BE")],
]


@pytest.mark.parametrize(("country", "kind"), OVERLAPS)
async def test_an_iban_is_redacted_whole_not_in_part_as_a_card_or_phone(
    country: str, kind: str
) -> None:
    iban = _overlapping_iban(country, kind)
    assert iban_is_valid(iban)
    assert len(iban.replace(" ", "")) == pii.IBAN_LENGTHS[country]
    text = f"Please pay to {iban} by Friday."
    start = text.index(iban)
    assert find_pii(text) == [pii.PIIMatch("iban", start, start + len(iban), iban)]
    result = await PIIGuard().check(text)
    assert result.text == "Please pay to [iban] by Friday."
    weaker: list[list[PIIKind]] = [["card"], ["phone"], ["card", "phone"]]
    for kinds in weaker:
        assert find_pii(text, kinds) == [], kinds  # the IBAN's digits are no card or phone
    assert (await PIIGuard(["card", "phone"]).check(text)).action == "allow"


def _card_holding_a_phone_number() -> str:
    """A Luhn-valid card number, printed in groups of four, whose tail reads as an
    international phone number (``00`` and a country code)."""
    rng = random.Random("card-phone")
    while True:
        body = "2223" + "0031" + _digits(rng, 7)
        for last in "0123456789":
            digits = body + last
            if luhn_is_valid(digits):
                card = " ".join(digits[i : i + 4] for i in range(0, 16, 4))
                if list(pii._find_phones(card)):  # pyright: ignore[reportPrivateUsage]
                    return card


async def test_a_card_number_wins_over_the_phone_number_inside_it() -> None:
    card = _card_holding_a_phone_number()
    text = f"card {card} expires soon"
    start = text.index(card)
    assert find_pii(text) == [pii.PIIMatch("card", start, start + len(card), card)]
    assert find_pii(text, ["phone"]) == []
    assert (await PIIGuard(["email", "phone"]).check(text)).action == "allow"
    assert (await PIIGuard().check(text)).text == "card [card] expires soon"


def test_phone_numbers_and_cards_beside_an_iban_are_still_found() -> None:
    iban = _overlapping_iban("DE", "phone")
    text = f"IBAN {iban}, card 4111 1111 1111 1111, call +44 20 7946 0958"
    assert [m.kind for m in find_pii(text)] == ["iban", "card", "phone"]
    assert [m.value for m in find_pii(text, ["card", "phone"])] == [
        "4111 1111 1111 1111",
        "+44 20 7946 0958",
    ]
