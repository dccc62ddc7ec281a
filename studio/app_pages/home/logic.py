"""The home page's judge keys, free of Streamlit: which well-known key variables are set and
which stored judges and scorers name each one.

Key values are never read out: :func:`key_statuses` only says whether each variable is set.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from scorer_runtime.store import Session
from scorer_runtime.store.views import key_name_uses

WELL_KNOWN_KEYS: tuple[tuple[str, str], ...] = (
    ("OPENAI_API_KEY", "OpenAI"),
    ("ANTHROPIC_API_KEY", "Anthropic"),
    ("GEMINI_API_KEY", "Google Gemini"),
    ("GROQ_API_KEY", "Groq"),
    ("MISTRAL_API_KEY", "Mistral"),
    ("AZURE_API_KEY", "Azure OpenAI"),
    ("COHERE_API_KEY", "Cohere"),
    ("DEEPSEEK_API_KEY", "DeepSeek"),
    ("OPENROUTER_API_KEY", "OpenRouter"),
    ("TOGETHERAI_API_KEY", "Together AI"),
    ("XAI_API_KEY", "xAI"),
    ("FIREWORKS_AI_API_KEY", "Fireworks AI"),
)
"""The key variables litellm reads for the providers people use most, with the provider."""


@dataclass(frozen=True, slots=True)
class KeyStatus:
    """Whether one key variable is set (never its value), and who needs it."""

    env: str
    provider: str
    is_set: bool
    used_by: tuple[str, ...] = ()
    """Judge profiles and scorers that name this variable."""


def key_statuses(
    environ: Mapping[str, str], named_by: Mapping[str, Iterable[str]]
) -> list[KeyStatus]:
    """The well-known key variables, then every other one a profile or scorer names.

    ``named_by`` maps a variable name to who names it ("judge profile 'fast'", ...). Keys
    named by someone come first, so what the saved scorers need is what one sees first.
    """
    providers = dict(WELL_KNOWN_KEYS)
    names = [env for env, _ in WELL_KNOWN_KEYS] + sorted(set(named_by) - set(providers))
    statuses = [
        KeyStatus(
            env=env,
            provider=providers.get(env, "named by a saved judge"),
            is_set=bool(environ.get(env, "").strip()),
            used_by=tuple(sorted(set(named_by.get(env, ())))),
        )
        for env in names
    ]
    return sorted(statuses, key=lambda s: not s.used_by)


_NAMED_BY = {"judge": "judge", "scorer": "scorer"}


def key_names_in_use(session: Session) -> dict[str, list[str]]:
    """Every key variable named by a saved judge profile or a scorer's latest version, with
    who names it in words ("judge “fast”", "scorer “tone”")."""
    named: dict[str, list[str]] = {}
    for use in key_name_uses(session):
        named.setdefault(use.env, []).append(f"{_NAMED_BY[use.kind]} “{use.name}”")
    return named
