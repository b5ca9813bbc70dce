"""Docstring parsing: descriptions and parameter descriptions in three styles."""

from agentcore.tools import FunctionTool
from agentcore.tools._docstrings import parse_docstring

GOOGLE = """Find flights.

    Searches every airline we know.

    Args:
        origin (str): The airport to leave from,
            as an IATA code.
        destination: Where to go.
        when (dict(str, int)): Date parts.
        *extra: Ignored extras.

    Returns:
        A list of flights.
    """


def test_google_style_reads_summary_and_parameters_with_continuations() -> None:
    parsed = parse_docstring(GOOGLE)

    assert parsed.summary == "Find flights.\n\nSearches every airline we know."
    assert parsed.params == {
        "origin": "The airport to leave from, as an IATA code.",
        "destination": "Where to go.",
        "when": "Date parts.",
        "extra": "Ignored extras.",
    }


def test_google_style_accepts_arguments_and_parameters_headers() -> None:
    for header in ("Arguments:", "Parameters:"):
        parsed = parse_docstring(f"Do it.\n\n{header}\n    x: The x.\n")

        assert parsed.params == {"x": "The x."}


def test_google_sections_other_than_args_end_the_summary_without_adding_parameters() -> None:
    parsed = parse_docstring("Do it.\n\nRaises:\n    ValueError: when bad.\n")

    assert parsed.summary == "Do it."
    assert parsed.params == {}


NUMPY = """Convert a temperature.

    Parameters
    ----------
    value : float
        The temperature,
        in degrees.
    unit : {'c', 'f'}, optional
        The unit.
    low, high : int
        Bounds.

    Returns
    -------
    float
        The converted value.
    """


def test_numpy_style_reads_parameters_including_shared_entries() -> None:
    parsed = parse_docstring(NUMPY)

    assert parsed.summary == "Convert a temperature."
    assert parsed.params == {
        "value": "The temperature, in degrees.",
        "unit": "The unit.",
        "low": "Bounds.",
        "high": "Bounds.",
    }


REST = """Send an email.

    Uses the default mailbox.

    :param to: The recipient
        address.
    :param str subject: The subject line.
    :type to: str
    :returns: The message id.
    """


def test_rest_style_reads_params_with_and_without_types() -> None:
    parsed = parse_docstring(REST)

    assert parsed.summary == "Send an email.\n\nUses the default mailbox."
    assert parsed.params == {"to": "The recipient address.", "subject": "The subject line."}


def test_docstring_without_sections_is_all_summary() -> None:
    parsed = parse_docstring("Just a line.\n\nAnd a second paragraph.")

    assert parsed.summary == "Just a line.\n\nAnd a second paragraph."
    assert parsed.params == {}


def test_setext_underline_that_is_not_a_numpy_section_stays_in_the_summary() -> None:
    parsed = parse_docstring("Title\n-----\nBody.")

    assert parsed.summary == "Title\n-----\nBody."


def undocumented(x: int) -> int:
    return x


def documented(x: int) -> int:
    """Double a number.

    Args:
        x: The number.
    """
    return 2 * x


def test_description_defaults_to_the_docstring_summary() -> None:
    assert FunctionTool(documented).description == "Double a number."


def test_description_is_empty_without_a_docstring() -> None:
    assert FunctionTool(undocumented).description == ""


def test_explicit_description_wins_over_the_docstring() -> None:
    assert FunctionTool(documented, description="Twice x.").description == "Twice x."


def test_docstring_parameter_description_reaches_the_schema() -> None:
    properties = FunctionTool(documented).parameters["properties"]

    assert properties["x"] == {"type": "integer", "description": "The number."}
