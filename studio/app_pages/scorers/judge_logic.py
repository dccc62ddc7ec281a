"""Which judge a scorer uses, in words, for the Scorers page's "Judge…" panel (Streamlit-free,
unit-tested). Pointing the scorer at another judge is
:func:`scorer_runtime.saved_scorers.use_judge_profile`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from scorer_runtime.spec import JudgeSpec, ScorerSpec
from scorer_runtime.spec.judge_choice import asks_a_judge, judge_profile_in_use


@dataclass(frozen=True, slots=True)
class JudgeNow:
    """The judge a scorer's latest version uses."""

    profile: str | None
    """The saved judge it names, or None when it carries its own settings."""
    model: str
    key_envs: tuple[str, ...]
    """Where the keys of its judges are kept (names of settings, never the keys)."""
    missing: tuple[str, ...]
    """Those of ``key_envs`` not set where the studio runs."""

    def sentence(self) -> str:
        """What the scorer uses now, and whether it can be used as it is."""
        what = (
            f"the saved judge **{self.profile}** ({self.model})"
            if self.profile
            else f"its own judge settings ({self.model or 'no model'}), not a saved judge"
        )
        if self.missing:
            keys = " and ".join(f"`{env}`" for env in self.missing)
            return f"It uses {what}. Its key, kept in the setting {keys}, is not set yet."
        return f"It uses {what}."


def judge_now(
    spec: ScorerSpec, profiles: Mapping[str, JudgeSpec], is_set: Callable[[str], bool]
) -> JudgeNow | None:
    """The judge ``spec`` uses (None for a scorer that asks no judge)."""
    if not asks_a_judge(spec):
        return None
    profile = judge_profile_in_use(spec)
    judge = profiles.get(profile) if profile else spec.judge
    model = judge.model if isinstance(judge, JudgeSpec) and judge.model else ""
    envs = tuple(spec.key_envs(profiles))
    return JudgeNow(profile, model, envs, tuple(env for env in envs if not is_set(env)))


def profile_words(name: str, data: Mapping[str, Any]) -> str:
    """One saved judge in a line: "my-judge — ollama/llama3 at http://…"."""
    model = str(data.get("model") or "no model")
    where = f" at {data['api_base']}" if data.get("api_base") else ""
    return f"{name} — {model}{where}"


def key_words(data: Mapping[str, Any], is_set: Callable[[str], bool]) -> str:
    """Where a saved judge's key is kept, and whether it is set (never the key)."""
    env = data.get("api_key_env")
    if not env:
        return "It needs no key."
    if is_set(str(env)):
        return f"Its key is kept in the setting `{env}`, which is set."
    return (
        f"Its key is kept in the setting `{env}`, which is not set yet: add it on the Judges "
        "page before running."
    )
