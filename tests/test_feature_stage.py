"""Feature staging: experimental and release-candidate APIs warn once per feature."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Iterator

import pytest

from agentcore import (
    ExperimentalFeature,
    ExperimentalWarning,
    FeatureStageWarning,
    ReleaseCandidateFeature,
    ReleaseCandidateWarning,
    _feature_stage,
    experimental,
    release_candidate,
)


@pytest.fixture(autouse=True)
def fresh_warning_registry() -> Iterator[None]:
    """Each test starts as if the process had not used any staged feature yet."""
    _feature_stage._warned.clear()
    yield
    _feature_stage._warned.clear()


def _warnings_from(action: object) -> list[warnings.WarningMessage]:
    assert callable(action)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    return caught


def test_warning_categories_are_future_warnings() -> None:
    assert issubclass(FeatureStageWarning, FutureWarning)
    assert issubclass(ExperimentalWarning, FeatureStageWarning)
    assert issubclass(ReleaseCandidateWarning, FeatureStageWarning)


def test_experimental_class_warns_when_instantiated() -> None:
    @experimental(feature_id=ExperimentalFeature.LABEL_TRACKING)
    class Tracker:
        def __init__(self, level: int) -> None:
            self.level = level

    with pytest.warns(
        ExperimentalWarning, match=r"Tracker is experimental \(feature LABEL_TRACKING\)"
    ):
        tracker = Tracker(3)

    assert tracker.level == 3


def test_experimental_function_warns_when_called_and_returns_its_result() -> None:
    @experimental(feature_id="MY_FEATURE")
    def double(x: int) -> int:
        return 2 * x

    with pytest.warns(ExperimentalWarning, match="double is experimental"):
        assert double(4) == 8


def test_release_candidate_warns_its_own_category() -> None:
    @release_candidate(feature_id=ReleaseCandidateFeature.STRUCTURED_OUTPUT)
    def parse() -> str:
        return "ok"

    with pytest.warns(ReleaseCandidateWarning, match="is a release candidate"):
        parse()


def test_a_feature_warns_only_once_per_process() -> None:
    @experimental(feature_id=ExperimentalFeature.RUN_RESUME)
    def resume() -> None:
        return None

    with pytest.warns(ExperimentalWarning):
        resume()

    assert _warnings_from(resume) == []


def test_different_uses_of_one_feature_share_the_warning() -> None:
    @experimental(feature_id=ExperimentalFeature.RUN_RESUME)
    class Resumer:
        pass

    @experimental(feature_id=ExperimentalFeature.RUN_RESUME)
    def resume() -> None:
        return None

    with pytest.warns(ExperimentalWarning):
        Resumer()

    assert _warnings_from(resume) == []


def test_each_feature_warns_separately() -> None:
    @experimental(feature_id="A")
    def a() -> None:
        return None

    @experimental(feature_id="B")
    def b() -> None:
        return None

    assert len(_warnings_from(a)) == 1
    assert len(_warnings_from(b)) == 1


def test_one_feature_id_in_two_stages_warns_in_each() -> None:
    @experimental(feature_id="SHARED")
    def early() -> None:
        return None

    @release_candidate(feature_id="SHARED")
    def later() -> None:
        return None

    assert [w.category for w in _warnings_from(early)] == [ExperimentalWarning]
    assert [w.category for w in _warnings_from(later)] == [ReleaseCandidateWarning]


def test_warning_points_at_the_caller() -> None:
    @experimental(feature_id="WHERE")
    class Thing:
        pass

    caught = _warnings_from(Thing)

    assert [w.filename for w in caught] == [__file__]


def test_decorated_function_keeps_its_name_and_stage_marks() -> None:
    @experimental(feature_id=ExperimentalFeature.LABEL_TRACKING)
    def track() -> None:
        """Track labels."""

    assert (track.__name__, track.__doc__) == ("track", "Track labels.")
    assert getattr(track, _feature_stage.FEATURE_STAGE_ATTR) == "experimental"
    assert getattr(track, _feature_stage.FEATURE_ID_ATTR) == "LABEL_TRACKING"


def test_decorated_class_is_the_same_class_with_stage_marks() -> None:
    class Plain:
        pass

    decorated = release_candidate(feature_id="RC")(Plain)

    assert decorated is Plain
    assert getattr(Plain, _feature_stage.FEATURE_STAGE_ATTR) == "release_candidate"


def test_decorating_something_not_callable_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="decorates classes and callables, not int"):
        experimental(feature_id="X")(42)


def test_importing_agentcore_leaves_warning_settings_alone() -> None:
    script = (
        "import warnings\n"
        "formatter, filters = warnings.formatwarning, list(warnings.filters)\n"
        "import agentcore\n"
        "assert warnings.formatwarning is formatter, 'formatwarning was replaced'\n"
        "assert list(warnings.filters) == filters, 'warning filters were changed'\n"
        "print('unchanged')\n"
    )

    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )

    assert result.stdout.strip() == "unchanged", result.stderr
