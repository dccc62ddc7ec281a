"""Hostile input: a provider that echoes the API key never gets it stored or shown.

Over real HTTP to the fake judge: the key in a 401's message, in a 500's body, in a judge's
raw answer; then a real batch run into a real SQLite file (the key's bytes are in neither the
database file nor its WAL afterwards) and a run scored by a runner (not in what it printed
either).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from scorer_runtime import Judge, PromptStep, ScorerRunError, create_scorer
from scorer_runtime.batch.local_runner import cli_program
from scorer_runtime.runs import RunRequest, plan_run, start_run
from scorer_runtime.secrets import REDACTED, environment_secrets, redact, secret_values
from scorer_runtime.store import (
    ExampleData,
    ScoreFilter,
    add_scores,
    create_run,
    finish_run,
    get_run,
    get_score,
    list_scores,
    load_names,
    make_engine,
    read_session,
    session_scope,
)
from studio.widgets.score_view import load_score, score_detail
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec
from tests.store.fixtures import db_url, engine, make_dataset, make_version

__all__ = ["db_url", "engine"]

KEY = "sk-proj-Zq8vN3xR7tK2mW9pL4sH6jD1fG5bC0aEyU"
ODD_KEY = "local-judge-secret-0123456789"  # no provider's shape: only its value gives it away


def _one_line(text: str | None) -> str:
    assert text is not None
    assert "\n" not in text
    assert "Traceback" not in text
    return text


# -- the redaction itself ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Incorrect API key provided: {KEY}.", "Incorrect API key provided: [redacted]."),
        ("sk-ant-api03-" + "a" * 40 + " was refused", "[redacted] was refused"),
        ("key AIza" + "B" * 35 + " expired", "key [redacted] expired"),
        ("Authorization: Bearer abcdefghijklmnop.qrstu", "Authorization: Bearer [redacted]"),
        ('{"x-api-key": "0123456789abcdef0123"}', '{"x-api-key": "[redacted]"}'),
        ("token xoxb-1234567890-abcdef", "token [redacted]"),
        # Ordinary words and short look-alikes survive.
        ("sk-wrong key; a task-based skeleton", "sk-wrong key; a task-based skeleton"),
        ("the bearer of bad news", "the bearer of bad news"),
        ("api_key=short", "api_key=short"),
    ],
)
def test_key_shapes_are_redacted_and_ordinary_words_are_not(text, expected):
    assert redact(text) == expected


def test_known_values_are_redacted_whatever_their_shape_but_not_when_very_short():
    assert redact(f"refused {ODD_KEY}!", [ODD_KEY, None]) == "refused [redacted]!"
    assert redact("a test of the test", ["test"]) == "a test of the test"


def test_the_values_of_named_and_credential_like_variables_are_known():
    env = {"JUDGE": ODD_KEY, "OPENAI_API_KEY": KEY, "HOME": "/home/someone", "HF_TOKEN": "x"}
    assert secret_values(["JUDGE", "MISSING", None], env) == (ODD_KEY,)
    assert environment_secrets(env) == (KEY,)


# -- over HTTP: what a failed judge call leaves -------------------------------------------------


def _scorer(fake_judge, key_env: str):
    judge = Judge(
        model="openai/fake-judge",
        instructions="Grade.",
        api_base=fake_judge.base_url,
        api_key_env=key_env,
        json_prompt_injection="system",
        timeout_s=5,
    )
    return create_scorer(id="echo", description="d", judge=judge).generate_score(
        PromptStep(description="s", create_prompt=lambda: "p", calculate_score=lambda: 1)
    )


def _failure(fake_judge, monkeypatch, key: str = KEY) -> ScorerRunError:
    monkeypatch.setenv("ECHO_JUDGE", key)
    with pytest.raises(ScorerRunError) as caught:
        _scorer(fake_judge, "ECHO_JUDGE").run_sync(output="x")
    return caught.value


def _texts(error: ScorerRunError) -> list[str]:
    execution = error.result.judge["generate_score"]
    texts = [str(error), str(error.__cause__), execution.error or ""]
    texts += [c.error or "" for c in execution.calls]
    texts.append(execution.raw_output or "")
    texts.append(str(error.result.to_dict()))
    return texts


@pytest.mark.parametrize("key", [KEY, ODD_KEY])
def test_a_key_echoed_in_a_401_is_redacted_and_the_message_stays_useful(
    fake_judge, monkeypatch, key
):
    body = {
        "error": {"message": f"Authentication failed for key {key}.", "code": "invalid_api_key"}
    }
    fake_judge.fault(status=401, body=body)
    error = _failure(fake_judge, monkeypatch, key)
    assert all(key not in text for text in _texts(error))
    assert _one_line(str(error.__cause__)) == "HTTP 401: Authentication failed for key [redacted]."
    assert error.error_kind == "auth"
    # No traceback can print it either: the library's exception is not chained.
    assert error.__cause__.__cause__ is None


def test_a_key_echoed_in_a_500_text_body_is_redacted(fake_judge, monkeypatch):
    fake_judge.fault(
        status=500,
        raw=f"upstream said: bad credentials {KEY}",
        headers={"Content-Type": "text/plain"},
    )
    error = _failure(fake_judge, monkeypatch)
    assert all(KEY not in text for text in _texts(error))
    assert _one_line(str(error.__cause__)) == (
        "HTTP 500: The judge's server answered with plain text: upstream said: bad credentials "
        "[redacted]"
    )


def test_a_key_echoed_in_the_judges_raw_answer_is_redacted(fake_judge, monkeypatch):
    fake_judge.reply(f"I cannot grade this; your key {ODD_KEY} and {KEY} are noted.")
    error = _failure(fake_judge, monkeypatch, ODD_KEY)
    execution = error.result.judge["generate_score"]
    assert error.error_kind == "format"
    assert all(ODD_KEY not in text and KEY not in text for text in _texts(error))
    assert (
        execution.raw_output
        == f"I cannot grade this; your key {REDACTED} and {REDACTED} are noted."
    )
    _one_line(str(error.__cause__).split(". The judge was asked again")[0])


def test_the_judges_page_connection_test_shows_the_redacted_message(fake_judge, monkeypatch):
    from scorer_runtime.spec import JudgeSpec
    from studio.app_pages.judges.logic import check_connection

    monkeypatch.setenv("ECHO_JUDGE", ODD_KEY)
    fake_judge.fault(status=401, body={"error": {"message": f"Bad key {ODD_KEY}"}})
    spec = JudgeSpec(
        model="openai/fake-judge", api_base=fake_judge.base_url, api_key_env="ECHO_JUDGE"
    )
    result = check_connection(spec)
    shown = " ".join(str(v) for v in (result.title, result.detail, result.answer))
    assert ODD_KEY not in shown
    assert REDACTED in result.detail
    assert result.status == "failed"


# -- the store's write boundary -----------------------------------------------------------------


def test_the_store_redacts_errors_and_evidence_whoever_wrote_them(engine, monkeypatch):
    monkeypatch.setenv("SOME_JUDGE_API_KEY", ODD_KEY)
    _, version_id = make_version(engine)
    dataset_id = make_dataset(engine, "faq", [ExampleData(input="q", output="a")])
    evidence = {
        "generate_score": {
            "error": f"refused {ODD_KEY}",
            "raw_output": f"Bearer {KEY}",
            "prompt": "the prompt is the user's own text",
            "calls": [{"ok": False, "error": f"HTTP 401: {KEY}"}],
        }
    }
    with session_scope(engine) as session:
        run = create_run(session, scorer_version_id=version_id, dataset_id=dataset_id)
        row = {
            "run_id": run.id,
            "scorer_id": run.scorer_id,
            "scorer_version_id": version_id,
            "outcome": "provider_error",
            "error": f"HTTP 401: Incorrect API key provided: {KEY}",
            "judge": evidence,
        }
        add_scores(session, rows=[row])
        finish_run(session, run_id=run.id, status="failed", error=f"stopped: {ODD_KEY}")
    with read_session(engine) as session:
        score = list_scores(session, filter=ScoreFilter(run_id=run.id)).rows[0]
        stored = get_score(session, score_id=score.id)
        run_error = get_run(session, run_id=run.id).error
    assert stored.error == "HTTP 401: Incorrect API key provided: [redacted]"
    assert stored.judge == {
        "generate_score": {
            "error": "refused [redacted]",
            "raw_output": "Bearer [redacted]",
            "prompt": "the prompt is the user's own text",
            "calls": [{"ok": False, "error": "HTTP 401: [redacted]"}],
        }
    }
    assert run_error == "stopped: [redacted]"


# -- a real run into a real SQLite file, and what a runner prints ------------------------------


def _echoing_judge(fake_judge) -> None:
    """Every way a key comes back, one per kind of example."""
    message = {"error": {"message": f"Authentication failed: key {ODD_KEY} is not valid"}}
    fake_judge.fault(status=401, body=message, when="auth", times=None)
    fake_judge.fault(
        status=500, raw=f"<html>gateway error, key={ODD_KEY}</html>", when="gateway", times=None
    )
    fake_judge.reply(f"Your key {ODD_KEY} ({KEY}) was logged.", when="chatty")


def _stored_bytes(path) -> bytes:
    wal = path.with_name(path.name + "-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def test_after_a_real_run_the_key_is_nowhere_in_the_database_file(
    tmp_path, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, ODD_KEY)
    database = tmp_path / "studio.db"
    url = f"sqlite:///{database}"
    assert cli(url, "scorers", "import", str(write_spec(tmp_path, verdict_spec()))).exit_code == 0
    examples = write_examples(tmp_path, ["auth", "gateway", "chatty"])
    assert cli(url, "datasets", "import", str(examples), "--name", "hostile").exit_code == 0
    _echoing_judge(fake_judge)

    result = cli(url, "run", "verdict", "hostile", "--api-base", fake_judge.base_url)

    assert ODD_KEY not in result.output
    assert "3 of 3 have a result" in result.output
    engine = make_engine(url)
    with read_session(engine) as session:
        rows = list_scores(session, filter=ScoreFilter(run_id=1)).rows
        evidence = [get_score(session, score_id=r.id).judge for r in rows]
        names = load_names(session)
        # What the studio's drill-down into each score shows.
        shown = [score_detail(load_score(session, score_id=r.id, names=names)) for r in rows]
    engine.dispose()
    assert all(ODD_KEY not in repr(view) for view in shown)
    assert any("[redacted]" in repr(view) for view in shown)
    errors = sorted(_one_line(r.error) for r in rows)
    assert any("Authentication failed: key [redacted] is not valid" in e for e in errors)
    assert any("HTTP 500: The judge's server answered with an HTML page" in e for e in errors)
    assert any("[redacted]" in str(e) for e in evidence)
    assert ODD_KEY.encode() not in _stored_bytes(database)
    assert KEY.encode() not in _stored_bytes(database)


def test_what_a_runner_prints_never_holds_the_key(tmp_path, fake_judge, monkeypatch):
    url = f"sqlite:///{tmp_path / 'queued.db'}"
    monkeypatch.setenv(KEY_ENV, ODD_KEY)
    spec = verdict_spec(api_base=fake_judge.base_url)
    cli(url, "scorers", "import", str(write_spec(tmp_path, spec)))
    examples = write_examples(tmp_path, ["auth", "gateway"])
    cli(url, "datasets", "import", str(examples), "--name", "h")
    _echoing_judge(fake_judge)
    engine = make_engine(url)
    run = start_run(engine, plan_run(engine, RunRequest(1, 1, concurrency=1, where="queue")))
    log = tmp_path / "runner.log"
    with log.open("wb") as out:
        runner = subprocess.Popen(
            [*cli_program(), "worker"],
            env={**os.environ, "SCORER_STUDIO_DATABASE_URL": url},
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            with read_session(engine) as session:
                if get_run(session, run_id=run.id).status in ("done", "failed"):
                    break
            time.sleep(0.2)
    finally:
        runner.send_signal(signal.SIGTERM)
        runner.wait(timeout=30)
    with read_session(engine) as session:
        finished = get_run(session, run_id=run.id)
    engine.dispose()
    printed = log.read_bytes()
    assert finished.status == "done", printed.decode(errors="replace")
    assert finished.failed_count == 2
    assert fake_judge.request_count == 2  # the judge was reached, and echoed the key
    assert b"Run 1: 2 of 2 have a result." in printed
    assert ODD_KEY.encode() not in printed
    assert ODD_KEY.encode() not in _stored_bytes(tmp_path / "queued.db")


def test_what_the_command_line_prints_is_redacted(capsys, monkeypatch):
    from scorer_runtime.cli.support import fail

    monkeypatch.setenv("ECHO_JUDGE_API_KEY", ODD_KEY)
    fail(f"the run stopped: HTTP 401: {ODD_KEY} / {KEY}")
    printed = capsys.readouterr().err
    assert ODD_KEY not in printed
    assert KEY not in printed
    assert "HTTP 401: [redacted] / [redacted]" in printed
