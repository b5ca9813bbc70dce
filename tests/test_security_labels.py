"""Security labels: joining keeps the least trust and the most restriction."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcore import ConfidentialityLabel, ContentLabel, IntegrityLabel
from tests.strategies import labels

_TRUST_ORDER = [IntegrityLabel.TRUSTED, IntegrityLabel.UNTRUSTED]
_SECRECY_ORDER = [
    ConfidentialityLabel.PUBLIC,
    ConfidentialityLabel.PRIVATE,
    ConfidentialityLabel.USER_IDENTITY,
]


def test_default_label_is_untrusted_and_public() -> None:
    assert ContentLabel() == ContentLabel(IntegrityLabel.UNTRUSTED, ConfidentialityLabel.PUBLIC)


def test_join_takes_the_least_trusted_integrity() -> None:
    trusted = ContentLabel(IntegrityLabel.TRUSTED)
    untrusted = ContentLabel(IntegrityLabel.UNTRUSTED)

    assert trusted.join(untrusted).integrity is IntegrityLabel.UNTRUSTED
    assert trusted.join(trusted).integrity is IntegrityLabel.TRUSTED


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (ConfidentialityLabel.PUBLIC, ConfidentialityLabel.PRIVATE, ConfidentialityLabel.PRIVATE),
        (
            ConfidentialityLabel.USER_IDENTITY,
            ConfidentialityLabel.PRIVATE,
            ConfidentialityLabel.USER_IDENTITY,
        ),
        (ConfidentialityLabel.PUBLIC, ConfidentialityLabel.PUBLIC, ConfidentialityLabel.PUBLIC),
    ],
)
def test_join_takes_the_most_restrictive_confidentiality(
    a: ConfidentialityLabel, b: ConfidentialityLabel, expected: ConfidentialityLabel
) -> None:
    trusted = IntegrityLabel.TRUSTED

    assert ContentLabel(trusted, a).join(ContentLabel(trusted, b)).confidentiality is expected


@given(a=labels, b=labels)
def test_join_is_at_least_as_strict_as_both_inputs(a: ContentLabel, b: ContentLabel) -> None:
    joined = a.join(b)

    trust = _TRUST_ORDER.index(joined.integrity)
    secrecy = _SECRECY_ORDER.index(joined.confidentiality)
    assert trust == max(_TRUST_ORDER.index(a.integrity), _TRUST_ORDER.index(b.integrity))
    assert secrecy == max(
        _SECRECY_ORDER.index(a.confidentiality), _SECRECY_ORDER.index(b.confidentiality)
    )


@given(a=labels, b=labels, c=labels)
def test_join_is_commutative_associative_and_idempotent(
    a: ContentLabel, b: ContentLabel, c: ContentLabel
) -> None:
    assert a.join(b) == b.join(a)
    assert a.join(b).join(c) == a.join(b.join(c))
    assert a.join(a) == a


def test_join_all_of_nothing_is_the_default_label() -> None:
    assert ContentLabel.join_all([]) == ContentLabel()


def test_join_all_of_nothing_uses_a_given_default() -> None:
    default = ContentLabel(IntegrityLabel.TRUSTED, ConfidentialityLabel.PRIVATE)

    assert ContentLabel.join_all([], default=default) == default


def test_join_all_ignores_the_default_when_there_are_labels() -> None:
    label = ContentLabel(IntegrityLabel.TRUSTED)

    assert ContentLabel.join_all([label], default=ContentLabel()) == label


@given(many=st.lists(labels, min_size=1, max_size=5))
def test_join_all_equals_pairwise_joins(many: list[ContentLabel]) -> None:
    assert ContentLabel.join_all(iter(many)) == functools.reduce(ContentLabel.join, many)


def test_labels_are_string_enums() -> None:
    trusted: str = IntegrityLabel.TRUSTED
    assert trusted == "trusted"
    assert ConfidentialityLabel.USER_IDENTITY.value == "user_identity"
    assert isinstance(IntegrityLabel.UNTRUSTED, str)


def test_label_fields_convert_from_strings() -> None:
    label = ContentLabel("trusted", "private")

    assert label.integrity is IntegrityLabel.TRUSTED
    assert label.confidentiality is ConfidentialityLabel.PRIVATE


def test_unknown_label_string_is_rejected() -> None:
    with pytest.raises(ValueError, match="'secret' is not a valid ConfidentialityLabel"):
        ContentLabel("trusted", "secret")
