"""Spellings of a text: the forms an obfuscated instruction is read back from.

Pattern guards match every spelling :func:`spellings` returns, so an instruction hidden by
a common trick is seen in plain words:

- Unicode compatibility forms folded (full-width and mathematical letters), zero-width,
  format and control characters dropped, Cyrillic, Greek and Armenian look-alike letters
  read as Latin, runs of white space and markup punctuation collapsed to one space;
- leetspeak read as letters (``1`` as ``i`` and, separately, as ``l``), letters spaced or
  dotted apart joined up;
- base64, hex and URL-encoded runs decoded (and their decoded text spelled again),
  ROT13 and the text reversed.

Every step is a linear pass over the text; decoding only looks at runs long enough to hold
words, so the cost stays linear in the input.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata
import urllib.parse
from collections.abc import Iterator

__all__ = ["fold", "spellings"]

# Format (Cf) and control (Cc) characters carry no letters; keep line breaks and tabs.
_INVISIBLE = dict.fromkeys(
    c
    for c in range(0x110000)
    if unicodedata.category(chr(c)) in {"Cf", "Cc"} and chr(c) not in "\n\t"
)
_INVISIBLE.update(dict.fromkeys(map(ord, "\u00ad\u180e\u115f\u1160\u3164\uffa0")))
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁɡӏһԛԝвкмнтгпАЕОРСХІЈЅКМНТВΑΒΕΖΗΙΚΜΝΟΡΤΥΧαβεικνορτυχօսոհոաց",
    "aeopcyxijsdglhqwbkmhtrnAEOPCXIJSKMHTBABEZHIKMNOPTYXabeiknoptuxounhnwg",
)
_LEET_I = str.maketrans("013456789@$|!+", "oieasgtbgasiit")
_LEET_L = str.maketrans("013456789@$|!+", "oleasgtbgasllt")
_NOISE = re.compile(r"(?:[*_~`]|[ \t\u00a0])+")
_SPACED = re.compile(r"(?<![^\W\d_])(?:[^\W\d_][\s.\-_*/|]{1,3}){3,}[^\W\d_](?![^\W\d_])")
_SPACER = re.compile(r"[\s.\-_*/|]")
_BASE64 = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")
_HEX = re.compile(r"(?:[0-9A-Fa-f]{2}[ :]?){8,}")
_URL = re.compile(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9.+_-]){12,}")
_LETTERS = re.compile(r"[a-z]{3,}")


_ASCII_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]+")


def fold(text: str) -> str:
    """Compatibility forms, invisible characters, look-alikes and spacing folded, lower-cased."""
    if text.isascii():  # nothing to fold but control characters (a fast path)
        text = _ASCII_CONTROL.sub("", text)
    else:
        text = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).translate(_LOOKALIKES)
    return _NOISE.sub(" ", text.lower())


def _readable(decoded: str) -> bool:
    """Whether decoded bytes read as text with words (not random bytes)."""
    if not decoded or not all(c.isprintable() or c.isspace() for c in decoded):
        return False
    return len(_LETTERS.findall(decoded.lower())) >= 2


def _decoded(text: str) -> Iterator[str]:
    for run in _BASE64.findall(text):
        padded = run + "=" * (-len(run) % 4)
        for decode in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                value = decode(padded).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError, ValueError):
                continue
            if _readable(value):
                yield value
                break
    for run in _HEX.findall(text):
        try:
            value = bytes.fromhex(re.sub(r"[ :]", "", run)).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        if _readable(value):
            yield value
    if text.count("%") >= 3:
        for run in _URL.findall(text):
            if run.count("%") >= 3:
                value = urllib.parse.unquote(run)
                if _readable(value):
                    yield value


_LEET_WORD = re.compile(r"[a-z]*(?:[0-9@$|!+][a-z]|[a-z][0-9@$|!+])[a-z0-9@$|!+]*")
_ENGLISH = re.compile(r"\b(?:the|and|you|your|to|of|is|are|all|this|that|for|with)\b")
_WINDOW = 300


def _around(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The parts of ``text`` within ``_WINDOW`` characters of ``spans`` (merged)."""
    parts: list[str] = []
    start = end = -1
    for left, right in spans:
        left, right = max(0, left - _WINDOW), right + _WINDOW
        if left > end:
            if end > start:
                parts.append(text[start:end])
            start = left
        end = max(end, right)
    if end > start:
        parts.append(text[start:end])
    return parts


def _variants(base: str) -> list[str]:
    variants = [base]
    # Leetspeak: only the text around words that mix letters with digits or symbols.
    spans = [m.span() for m in _LEET_WORD.finditer(base)]
    if spans:
        around = "\n".join(_around(base, spans))
        variants += [around.translate(_LEET_I), around.translate(_LEET_L)]
    if _SPACED.search(base):
        variants += [_SPACED.sub(lambda m: _SPACER.sub("", m.group()), v) for v in variants]
    return variants


def _more_english(candidate: str, base: str, base_count: int) -> bool:
    """Whether ``candidate`` (ROT13 or reversed) reads more like English than ``base``."""
    return base_count == 0 or len(_ENGLISH.findall(candidate)) > base_count


def spellings(text: str) -> list[str]:
    """The spellings of ``text`` that patterns are matched against (lower-cased).

    ROT13 and reversed spellings are added when they read more like English than the
    text itself (or the text has no common English word), so ordinary text is matched
    once, plus the parts around leetspeak-like words and any decoded runs."""
    base = fold(text)
    found = _variants(base)
    english = len(_ENGLISH.findall(base))
    for candidate in (base[::-1], codecs.encode(base, "rot13")):
        if _more_english(candidate, base, english):
            found.append(candidate)
    raw = text if text.isascii() else unicodedata.normalize("NFKC", text).translate(_INVISIBLE)
    for decoded in _decoded(raw):
        found.extend(_variants(fold(decoded)))
    return list(dict.fromkeys(found))
