"""Personal data: find it in text, then redact it or block the text.

Detected kinds: e-mail addresses, phone numbers (international ``+``/``00`` form with
an optional ``(0)``, North American ``(555) 123-4567`` form, national forms with a trunk
``0`` or a parenthesised area code; spaces, dots, dashes and an extension allowed; dates,
versions, prices and ids left alone), payment card numbers (13-19
digits passing the Luhn check, starting 2-6), IBANs (known country lengths and the
ISO 13616 mod-97 check), US social security numbers (separated form, or nine digits right
after "SSN"; the never-issued areas 000, 666 and 900-999, group 00 and serial 0000 are
refused) and UK national insurance numbers (the prefix rules of HMRC). Checksums keep
near-misses such as mistyped card numbers out.

Where two matches overlap, the stronger evidence wins: an IBAN (country, length and a
mod-97 check) over a card number (a Luhn check, which one digit run in ten passes) over
the looser patterns. A spaced IBAN's digit groups often pass the Luhn check or look like
a phone number; they are part of the IBAN, so they are never reported on their own, not
even by a search for cards or phones only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Literal, TypeAlias, get_args

import anyio.to_thread
import attrs

from agentcore_contrib.guardrails._base import GuardResult

__all__ = [
    "PIIGuard",
    "PIIKind",
    "PIIMatch",
    "find_pii",
    "iban_is_valid",
    "luhn_is_valid",
    "ssn_is_valid",
    "uk_nino_is_valid",
]

PIIKind: TypeAlias = Literal["email", "phone", "card", "iban", "us_ssn", "uk_nino"]
ALL_KINDS: tuple[PIIKind, ...] = get_args(PIIKind)


@attrs.frozen
class PIIMatch:
    """One piece of personal data found in a text: ``text[start:end]``."""

    kind: PIIKind
    start: int
    end: int
    value: str


def luhn_is_valid(digits: str) -> bool:
    """The Luhn (mod 10) check of a card number given as digits only."""
    if not digits.isdigit():
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


# ISO 13616 lengths of the countries most often seen; others are not recognised.
IBAN_LENGTHS: dict[str, int] = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
    "BH": 22, "BR": 29, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18,
    "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22,
    "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
    "IL": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LI": 21,
    "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MR": 27,
    "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25,
    "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
    "TN": 24, "TR": 26, "UA": 29, "VG": 24, "XK": 20,
}  # fmt: skip


def iban_is_valid(iban: str) -> bool:
    """The length of the IBAN's country and the mod-97 check (spaces allowed)."""
    compact = re.sub(r"\s+", "", iban).upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", compact):
        return False
    if IBAN_LENGTHS.get(compact[:2]) != len(compact):
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1


def ssn_is_valid(area: str, group: str, serial: str) -> bool:
    """Whether a US SSN's three parts fall in issuable ranges."""
    a = int(area)
    return not (a == 0 or a == 666 or a >= 900 or int(group) == 0 or int(serial) == 0)


_NINO_BAD_PREFIXES = frozenset({"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"})


def uk_nino_is_valid(nino: str) -> bool:
    """HMRC's format rules for a national insurance number (spaces allowed)."""
    compact = re.sub(r"\s+", "", nino).upper()
    match = re.fullmatch(r"([A-CEGHJ-PR-TW-Z])([A-CEGHJ-NPR-TW-Z])\d{6}[A-D]", compact)
    return match is not None and compact[:2] not in _NINO_BAD_PREFIXES


_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}(?![\w-])"
)
_CARD = re.compile(r"(?<![\d-])[2-6]\d{3}(?:[ -]?\d){9,15}(?![\d-])")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?: ?[A-Za-z0-9]){11,32}", re.ASCII)
_SSN = re.compile(r"(?<![\d-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\d-])")
_SSN_LABELLED = re.compile(
    r"(?i)\b(?:ssn|social security(?: number| no\.?)?)\s*(?:#|no\.?|number)?\s*[:#]?\s*"
    r"(\d{3})(\d{2})(\d{4})(?!\d)"
)
_NINO = re.compile(
    r"(?i)(?<![A-Za-z0-9])[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])", re.ASCII
)
_SEP = r"(?:[ .\-\u00a0]|\) ?| ?\(|/ ?)?"
_EXTENSION = r"(?:[ ,]*(?:ext\.?|extension|x|#)[ .:]*\d{1,6})?"
_PHONE_INTERNATIONAL = re.compile(
    r"(?<![\w+.\-/])(?:\+|00)[1-9]\d{0,2}(?:"
    + _SEP
    + r"(?:\(0\)"
    + _SEP
    + r")?\d{1,5}){1,6}"
    + _EXTENSION
    + r"(?![\w\-]|[.,]\d)",
    re.IGNORECASE,
)
_PHONE_NANP = re.compile(
    r"(?<![\w+.\-/])(?:1[ .\-]?)?(?:\([2-9]\d{2}\) ?|[2-9]\d{2}[ .\-])[2-9]\d{2}[ .\-]\d{4}"
    + _EXTENSION
    + r"(?![\w\-]|[.,]\d)",
    re.IGNORECASE,
)
# National forms: a trunk 0 and an area code (030 901820, 06.12.34.56.78, (02) 9374 4000),
# or an area code in parentheses ((11) 91234-5678).
_PHONE_NATIONAL = re.compile(
    r"(?<![\w+.\-/(])(?:\(0\d{1,4}\)|0\d{1,4}|\(\d{2,4}\))(?:[ .\-]?\d{2,5}){1,4}"
    + _EXTENSION
    + r"(?![\w\-]|[.,]\d)",
    re.IGNORECASE,
)
_DATE_LIKE = re.compile(r"\d{1,4}[./\-]\d{1,2}[./\-]\d{1,4}")


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)


def _find_cards(text: str) -> Iterable[PIIMatch]:
    for m in _CARD.finditer(text):
        digits = _digits(m.group())
        if 13 <= len(digits) <= 19 and len(set(digits)) > 1 and luhn_is_valid(digits):
            yield PIIMatch("card", m.start(), m.end(), m.group())


def _find_ibans(text: str) -> Iterable[PIIMatch]:
    for m in _IBAN.finditer(text):
        length = IBAN_LENGTHS.get(m.group()[:2].upper())
        if length is None:
            continue
        # Cut the candidate at the country's length: what follows is other text.
        count = 0
        for offset, char in enumerate(m.group()):
            if char != " ":
                count += 1
            if count == length:
                candidate = m.group()[: offset + 1]
                if iban_is_valid(candidate):
                    yield PIIMatch("iban", m.start(), m.start() + offset + 1, candidate)
                break


def _find_ssns(text: str) -> Iterable[PIIMatch]:
    for m in _SSN.finditer(text):
        if ssn_is_valid(m.group(1), m.group(3), m.group(4)):
            yield PIIMatch("us_ssn", m.start(), m.end(), m.group())
    for m in _SSN_LABELLED.finditer(text):
        if ssn_is_valid(m.group(1), m.group(2), m.group(3)):
            yield PIIMatch("us_ssn", m.start(1), m.end(3), text[m.start(1) : m.end(3)])


def _find_ninos(text: str) -> Iterable[PIIMatch]:
    for m in _NINO.finditer(text):
        if uk_nino_is_valid(m.group()):
            yield PIIMatch("uk_nino", m.start(), m.end(), m.group())


def _find_emails(text: str) -> Iterable[PIIMatch]:
    for m in _EMAIL.finditer(text):
        yield PIIMatch("email", m.start(), m.end(), m.group())


def _phone_digits(value: str) -> str:
    """The digits of a phone number without its extension and the ``(0)`` trunk marker."""
    value = re.split(r"(?i)[ ,]*(?:ext|extension|x|#)", value)[0]
    return _digits(value.replace("(0)", ""))


def _find_phones(text: str) -> Iterable[PIIMatch]:
    for pattern, low, high in (
        (_PHONE_INTERNATIONAL, 8, 17),  # up to 15 digits after a 00 prefix
        (_PHONE_NANP, 10, 11),
        (_PHONE_NATIONAL, 9, 12),
    ):
        for m in pattern.finditer(text):
            value = m.group()
            if not low <= len(_phone_digits(value)) <= high:
                continue
            if pattern is _PHONE_NATIONAL and _DATE_LIKE.fullmatch(value):
                continue  # 01.02.2024 is a date
            yield PIIMatch("phone", m.start(), m.end(), value)


# Strongest evidence first: where matches overlap, the earlier kind wins. An IBAN comes
# before a card: its digit groups pass the Luhn check one time in ten.
_FINDERS: tuple[tuple[PIIKind, Callable[[str], Iterable[PIIMatch]]], ...] = (
    ("iban", _find_ibans),
    ("card", _find_cards),
    ("us_ssn", _find_ssns),
    ("uk_nino", _find_ninos),
    ("email", _find_emails),
    ("phone", _find_phones),
)


def find_pii(text: str, kinds: Iterable[PIIKind] = ALL_KINDS) -> list[PIIMatch]:
    """Every piece of personal data of ``kinds`` in ``text``, in order, without overlaps.

    The stronger kinds are looked for even when not asked for, so that a part of one
    is never reported as a weaker kind: ``find_pii(text, ["card"])`` does not report
    the digits of an IBAN.
    """
    wanted = set(kinds)
    last = max((i for i, (kind, _) in enumerate(_FINDERS) if kind in wanted), default=-1)
    taken: list[PIIMatch] = []
    for _, finder in _FINDERS[: last + 1]:
        for match in finder(text):
            if all(match.end <= t.start or match.start >= t.end for t in taken):
                taken.append(match)
    return sorted((m for m in taken if m.kind in wanted), key=lambda m: m.start)


OFF_LOOP_CHARS = 32_768
"""Texts longer than this are searched in a worker thread (about 30 ms of work)."""


class PIIGuard:
    """Redacts (``mode="redact"``) or blocks (``mode="block"``) personal data.

    Use it as an input guard, an output guard, or both. ``replacement`` is formatted
    with ``kind`` (``"[{kind}]"`` gives ``[email]``). Pattern-based, so it is
    incremental: a streaming output is held back only by the guardrail's window, which
    must be at least as long as the longest value to catch (an IBAN is up to 42 chars).
    """

    incremental = True

    def __init__(
        self,
        kinds: Iterable[PIIKind] = ALL_KINDS,
        *,
        mode: Literal["redact", "block"] = "redact",
        replacement: str = "[{kind}]",
        name: str = "pii",
    ) -> None:
        chosen = tuple(kinds)
        unknown = [k for k in chosen if k not in ALL_KINDS]
        if unknown or not chosen:
            raise ValueError(
                f"PIIGuard kinds must be a non-empty selection of {list(ALL_KINDS)}, "
                f"got {list(chosen)}"
            )
        if mode not in ("redact", "block"):
            raise ValueError(f"PIIGuard mode must be 'redact' or 'block', got {mode!r}")
        try:
            replacement.format(kind="email")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"PIIGuard replacement may only use the {{kind}} field, got {replacement!r}"
            ) from exc
        self.kinds = chosen
        self.mode = mode
        self.replacement = replacement
        self.name = name

    def find(self, text: str) -> list[PIIMatch]:
        """The personal data of this guard's kinds in ``text``."""
        return find_pii(text, self.kinds)

    async def check(self, text: str) -> GuardResult:
        """Block or redact the personal data found in ``text``. A long text (over
        ``OFF_LOOP_CHARS``) is searched in a worker thread, so the event loop keeps running
        other tasks meanwhile."""
        if len(text) > OFF_LOOP_CHARS:
            matches = await anyio.to_thread.run_sync(self.find, text)
        else:
            matches = self.find(text)
        if not matches:
            return GuardResult.allow()
        kinds = sorted({m.kind for m in matches})
        reason = f"personal data found: {', '.join(kinds)}"
        if self.mode == "block":
            return GuardResult.block(reason)
        pieces: list[str] = []
        position = 0
        for match in matches:
            pieces.append(text[position : match.start])
            pieces.append(self.replacement.format(kind=match.kind))
            position = match.end
        pieces.append(text[position:])
        return GuardResult.redact("".join(pieces), reason)
