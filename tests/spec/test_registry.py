"""The step registry: entries, lookups with helpful errors, parameter validation, plugins."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, Field

import scorer_runtime.spec.builtins as builtins_pkg
from scorer_runtime.spec.builtins import BUILTIN_ENTRIES, StepParams, keyword_coverage
from scorer_runtime.spec.registry import (
    StepEntry,
    StepParamsError,
    StepRegistry,
    UnknownStepError,
    default_registry,
)


class ShoutParams(StepParams):
    text: str = Field("hi", description="What to shout.")


def shout(**params):
    return lambda: ShoutParams(**params).text.upper()


def _shout_entry(name: str = "shout") -> StepEntry:
    return StepEntry(
        name=name,
        title="Shout",
        description="Upper-cases a text. Example: hi -> HI.",
        suits=frozenset({"preprocess"}),
        params_model=ShoutParams,
        factory=shout,
        category="Test",
    )


# -- registry basics ------------------------------------------------------------------------


def test_register_get_names_and_contains():
    registry = StepRegistry([_shout_entry()])
    assert registry.names() == ["shout"]
    assert "shout" in registry
    assert "whisper" not in registry
    assert 3 not in registry
    assert registry.get("shout").title == "Shout"
    assert len(registry) == 1


def test_duplicate_name_is_rejected():
    registry = StepRegistry([_shout_entry()])
    with pytest.raises(ValueError, match="'shout' is already registered"):
        registry.register(_shout_entry())


def test_unknown_name_lists_valid_names_closest_first():
    registry = default_registry(plugins=False)
    with pytest.raises(UnknownStepError) as caught:
        registry.get("keyword_coverag")
    error = caught.value
    assert error.valid_names[0] == "keyword_coverage"
    assert sorted(error.valid_names) == sorted(registry.names())
    message = str(error)
    assert "Did you mean 'keyword_coverage'?" in message
    assert message.index("keyword_coverage") < message.index("json_valid")


def test_unknown_name_without_close_match_still_lists_names():
    registry = StepRegistry([_shout_entry()])
    with pytest.raises(UnknownStepError, match=r"no step named 'zzz'\. Valid names: shout"):
        registry.get("zzz")


def test_entries_filter_by_use_and_group_by_category():
    registry = default_registry(plugins=False)
    calculate = registry.entries(suits="calculate_score")
    names = {e.name for e in calculate}
    assert {"label_to_score", "proportion", "weighted_average"} <= names
    assert "contains" not in names
    assert all("calculate_score" in e.suits for e in calculate)
    groups = registry.by_category()
    assert list(groups)[:2] == ["Text", "Compare"]
    assert {e.name for e in groups["Agent"]} >= {"tool_called", "tool_order", "no_tool_errors"}


def test_default_registry_is_new_each_call():
    first = default_registry(plugins=False)
    first.register(_shout_entry())
    second = default_registry(plugins=False)
    assert "shout" in first
    assert "shout" not in second


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"name": "Bad Name"}, "snake_case"),
        ({"title": ""}, "must not be empty"),
        ({"suits": frozenset({"score"})}, "suits must be"),
        ({"suits": frozenset()}, "suits must be"),
        ({"params_model": dict}, "pydantic model class"),
        ({"factory": lambda **p: None}, "importable by name"),
    ],
)
def test_invalid_entries_are_refused_with_the_reason(changes, problem):
    fields = {
        "name": "shout",
        "title": "Shout",
        "description": "d",
        "suits": frozenset({"analyze"}),
        "params_model": ShoutParams,
        "factory": shout,
        "category": "Test",
    }
    with pytest.raises(ValueError, match=problem):
        StepEntry(**{**fields, **changes})


def test_params_model_must_forbid_unknown_keys():
    class Loose(BaseModel):
        model_config = ConfigDict(extra="ignore")

    with pytest.raises(ValueError, match="extra='forbid'"):
        StepEntry("loose", "t", "d", frozenset({"analyze"}), Loose, shout, "Test")


# -- the built-in catalogue -----------------------------------------------------------------


def test_every_builtin_is_complete_and_importable_from_the_package():
    for entry in BUILTIN_ENTRIES:
        assert entry.factory.__name__ == entry.name
        assert getattr(builtins_pkg, entry.name) is entry.factory
        assert entry.import_path == ("scorer_runtime.spec.builtins", entry.name)
        assert entry.factory.__doc__, entry.name
        assert "Example" in entry.description, entry.name
        assert entry.params_model.__doc__, entry.name
        schema = entry.params_schema
        assert schema["additionalProperties"] is False
        assert schema["title"] == entry.title
        for field, prop in schema["properties"].items():
            assert prop.get("description"), f"{entry.name}.{field} has no description"


def test_builtin_names_are_unique_and_cover_the_required_library():
    names = [e.name for e in BUILTIN_ENTRIES]
    assert len(names) == len(set(names))
    required = {
        "exact_match", "contains", "excludes", "regex_match", "keyword_coverage", "json_valid",
        "json_schema_valid", "length_bounds", "text_similarity", "text_difference",
        "numeric_closeness", "tool_called", "tool_not_called", "tool_order", "max_tool_calls",
        "no_tool_errors", "weighted_average", "threshold", "clamp", "label_to_score",
        "proportion",
    }  # fmt: skip
    assert required <= set(names)


def test_import_path_of_a_plugin_factory_is_its_module():
    assert _shout_entry().import_path == (__name__, "shout")


# -- building with parameters ---------------------------------------------------------------


def test_build_validates_and_gives_a_step_callable():
    entry = default_registry(plugins=False).get("keyword_coverage")
    step = entry.build({"keywords": ["refund", "days"], "field": "output"})
    assert repr(step) == "keyword_coverage(keywords=['refund', 'days'], field='output')"
    assert step == keyword_coverage(keywords=["refund", "days"], field="output")


def test_build_errors_carry_json_paths_for_every_problem():
    entry = default_registry(plugins=False).get("keyword_coverage")
    with pytest.raises(StepParamsError) as caught:
        entry.build({"keywords": ["ok", 3], "feild": "output", "field": "outptu"})
    error = caught.value
    paths = dict(error.problems)
    assert set(paths) == {"keywords[1]", "feild", "field"}
    assert paths["feild"].startswith("unknown parameter; valid parameters: field")
    assert "must start with one of input, output" in paths["field"]
    assert "step 'keyword_coverage' has invalid parameters" in str(error)
    prefixed = error.with_prefix("steps[2].with")
    assert {p for p, _ in prefixed.problems} == {
        "steps[2].with.keywords[1]",
        "steps[2].with.feild",
        "steps[2].with.field",
    }


def test_build_reports_a_missing_required_parameter():
    entry = default_registry(plugins=False).get("threshold")
    with pytest.raises(StepParamsError) as caught:
        entry.build({"field": "score"})
    assert caught.value.problems == [("threshold", "this parameter is required")]


def test_build_refuses_a_non_object():
    entry = default_registry(plugins=False).get("contains")
    with pytest.raises(StepParamsError, match="expected an object, got list"):
        entry.build(["refund"])  # type: ignore[arg-type]


def test_factories_validate_exactly_as_build_does():
    with pytest.raises(StepParamsError) as direct:
        keyword_coverage(keywords=[])
    entry = default_registry(plugins=False).get("keyword_coverage")
    with pytest.raises(StepParamsError) as built:
        entry.build({"keywords": []})
    assert direct.value.problems == built.value.problems


# -- plugins through entry points -----------------------------------------------------------

_PLUGIN_MODULE = """
from pydantic import Field
from scorer_runtime.spec.builtins import StepParams
from scorer_runtime.spec.registry import StepEntry


class ExclaimParams(StepParams):
    count: int = Field(1, ge=1, description="How many exclamation marks.")


def exclaim(**params):
    p = ExclaimParams(**params)
    return lambda run: run.output + "!" * p.count


ENTRY = StepEntry(
    name="exclaim",
    title="Exclaim",
    description="Adds exclamation marks. Example: hi -> hi!",
    suits=frozenset({"preprocess"}),
    params_model=ExclaimParams,
    factory=exclaim,
    category="Plugins",
)
CLASH = StepEntry(
    name="contains",
    title="Contains again",
    description="Example: a clash.",
    suits=frozenset({"analyze"}),
    params_model=ExclaimParams,
    factory=exclaim,
    category="Plugins",
)
MIXED = [ENTRY.__class__(**{**ENTRY.__dict__, "name": "exclaim_twice"}), 42]
NOT_AN_ENTRY = 42
"""


def _install_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, group: str, lines: str):
    (tmp_path / "studio_test_plugin.py").write_text(textwrap.dedent(_PLUGIN_MODULE))
    dist = tmp_path / "studio_test_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: studio-test-plugin\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text(f"[{group}]\n{textwrap.dedent(lines)}")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "studio_test_plugin", raising=False)


def test_entry_point_plugins_are_registered_and_errors_collected(tmp_path, monkeypatch):
    group = "scorer_studio.test_steps"
    _install_plugin(
        tmp_path,
        monkeypatch,
        group,
        """
        exclaim = studio_test_plugin:ENTRY
        mixed = studio_test_plugin:MIXED
        clash = studio_test_plugin:CLASH
        number = studio_test_plugin:NOT_AN_ENTRY
        missing = studio_test_plugin_missing:ENTRY
        """,
    )
    registry = default_registry(plugins=False)
    errors = registry.load_entry_points(group)
    assert "exclaim" in registry
    assert "exclaim_twice" in registry
    assert registry.get("contains").title != "Contains again"
    assert len(errors) == 4
    joined = "\n".join(errors)
    assert "'contains' is already registered; that step is left out" in joined
    assert "'number' (studio_test_plugin:NOT_AN_ENTRY) from studio-test-plugin 1.0" in joined
    assert "gave int, expected a StepEntry or a list of them" in joined
    assert "expected a StepEntry, got int" in joined
    assert "ModuleNotFoundError" in joined
    assert registry.plugin_errors == errors

    step = registry.get("exclaim").build({"count": 2})
    from scorer_runtime import create_scorer

    scorer = create_scorer(id="p", description="plugin").preprocess(step)
    scorer = scorer.generate_score(lambda results: len(results.preprocess_step_result))
    assert scorer.run_sync(output="hi").score == 4.0


def test_default_registry_loads_plugins_from_the_studio_group(tmp_path, monkeypatch):
    _install_plugin(
        tmp_path, monkeypatch, "scorer_studio.steps", "exclaim = studio_test_plugin:ENTRY\n"
    )
    assert "exclaim" in default_registry()
    assert "exclaim" not in default_registry(plugins=False)


def test_no_plugins_installed_means_no_errors():
    registry = default_registry(plugins=False)
    assert registry.load_entry_points("scorer_studio.no_such_group") == []


def test_building_the_registry_loads_no_heavy_library():
    code = (
        "import sys; from scorer_runtime.spec.registry import default_registry; "
        "default_registry(plugins=False); "
        "print(' '.join(m for m in ('rapidfuzz', 'jsonschema', 'litellm') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == ""


def test_a_misspelt_required_parameter_is_one_problem():
    entry = default_registry(plugins=False).get("keyword_coverage")
    with pytest.raises(StepParamsError) as caught:
        entry.build({"keyword": ["refund"]})
    [(path, message)] = caught.value.problems
    assert path == "keyword"
    assert message == (
        "unknown parameter; did you mean 'keywords'? valid parameters: "
        "keywords, whole_words, field, case_sensitive"
    )
