"""The Judges page's logic, free of Streamlit (unit-tested without a browser).

The judge form and how it maps to a saved profile, which scorers name a profile, and the
connection test that sends one tiny real request through the runtime.
"""

from studio.app_pages.judges.logic.connection import (
    CONNECTION_TIMEOUT_S,
    PROBE_PROMPT,
    ConnectionResult,
    check_connection,
    probe_spec,
)
from studio.app_pages.judges.logic.form import (
    FIELD_LABELS,
    JSON_MODES,
    MODEL_EXAMPLES,
    JsonMode,
    JudgeForm,
    JudgeFormError,
    Refusal,
    form_of_profile,
    json_mode_of,
    json_mode_value,
    judge_spec,
    kept_in_words,
    refusal,
    save_profile,
)
from studio.app_pages.judges.logic.usage import (
    ProfileUse,
    opening_judge,
    profile_uses,
    profile_uses_by_name,
)

__all__ = [
    "CONNECTION_TIMEOUT_S",
    "FIELD_LABELS",
    "JSON_MODES",
    "MODEL_EXAMPLES",
    "PROBE_PROMPT",
    "ConnectionResult",
    "JsonMode",
    "JudgeForm",
    "JudgeFormError",
    "ProfileUse",
    "Refusal",
    "check_connection",
    "form_of_profile",
    "json_mode_of",
    "json_mode_value",
    "judge_spec",
    "kept_in_words",
    "opening_judge",
    "probe_spec",
    "profile_uses",
    "profile_uses_by_name",
    "refusal",
    "save_profile",
]
