"""The judge's key quoted back in shapes other than its own: URL-encoded, base64 at each
alignment, upper-cased, cut short, or split by the length limit of an error preview. None of
them may reach the database file (and its WAL), the run's output or the drill-down."""

from __future__ import annotations

import base64
from urllib.parse import quote

import pytest

from scorer_runtime.secrets import MIN_RUN, REDACTED, key_forms, redact
from scorer_runtime.store import ScoreFilter, list_scores, make_engine, read_session
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec
from tests.hostile.test_secrets import KEY, ODD_KEY, _stored_bytes

SLASHY_KEY = "k3y/with+odd=chars&more?0123456789"


def _b64_inside(secret: str, before: str) -> str:
    """``secret`` base64-encoded inside a longer text (``before`` sets its alignment)."""
    return base64.b64encode(f'{before}{{"key": "{secret}"}}'.encode()).decode()


def _shapes(secret: str) -> dict[str, str]:
    return {
        "url-encoded": quote(secret, safe=""),
        "base64, aligned": _b64_inside(secret, ""),
        "base64, one byte on": _b64_inside(secret, "x"),
        "base64, two bytes on": _b64_inside(secret, "xy"),
        "upper-cased": secret.upper(),
        "cut short by two": secret[:-2],
        "its middle": secret[5 : 5 + MIN_RUN],
    }


def _leaks(text: str, secret: str) -> list[str]:
    """Which shapes of ``secret`` (each whole, or any run of MIN_RUN of it) ``text`` holds."""
    found = []
    for name, shape in {"as it is": secret, **_shapes(secret)}.items():
        if name.startswith("base64"):
            shape = next(f for f in key_forms(secret) if f in shape)  # the key's own groups
        runs = {shape[i : i + MIN_RUN].lower() for i in range(len(shape) - MIN_RUN + 1)}
        if any(run in text.lower() for run in runs):
            found.append(name)
    return found


@pytest.mark.parametrize("secret", [KEY, ODD_KEY, SLASHY_KEY])
@pytest.mark.parametrize("shape", list(_shapes(KEY)))
def test_every_shape_of_a_known_key_is_redacted(secret, shape):
    text = f"upstream refused {_shapes(secret)[shape]} (see logs)"
    clean = redact(text, [secret])
    assert REDACTED in clean
    assert _leaks(clean, secret) == []
    assert clean.startswith("upstream refused ")
    assert clean.endswith(" (see logs)") or shape.startswith("base64")


def test_ordinary_text_and_short_runs_of_the_key_survive():
    text = f"the key starts {ODD_KEY[: MIN_RUN - 1]}, a local-judge setting"
    assert redact(text, [ODD_KEY]) == text


def test_a_key_across_the_preview_cut_of_an_html_error_page_leaves_nothing(
    tmp_path, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, ODD_KEY)
    database = tmp_path / "studio.db"
    url = f"sqlite:///{database}"
    assert cli(url, "scorers", "import", str(write_spec(tmp_path, verdict_spec()))).exit_code == 0
    names = list(_shapes(ODD_KEY))
    examples = write_examples(tmp_path, [*names, "html"])
    assert cli(url, "datasets", "import", str(examples), "--name", "hostile").exit_code == 0
    for name, shape in _shapes(ODD_KEY).items():
        body = {"error": {"message": f"Authentication failed for {shape}"}}
        fake_judge.fault(status=401, body=body, when=name, times=None)
    # The key straddles the 200-character preview of the page: cut first, half of it stayed.
    page = "<html><body>" + "x" * 170 + f" key={ODD_KEY} refused</body></html>"
    fake_judge.fault(
        status=502, raw=page, headers={"Content-Type": "text/html"}, when="html", times=None
    )

    result = cli(url, "run", "verdict", "hostile", "--api-base", fake_judge.base_url)

    assert f"{len(names) + 1} of {len(names) + 1} have a result" in result.output
    assert _leaks(result.output, ODD_KEY) == []
    engine = make_engine(url)
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(run_id=1)).rows
    engine.dispose()
    assert all(row.error for row in rows)
    assert sum(REDACTED in row.error for row in rows) == len(rows)
    stored = _stored_bytes(database).decode("latin-1")
    assert _leaks(stored, ODD_KEY) == []
