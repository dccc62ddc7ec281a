"""`scorer-studio run` and `ui` read judge keys from `.env` of the folder they start in
(variables already set win), and `ui` becomes Streamlit itself, so stopping it stops the
studio."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec
from tests.e2e.server import BIN, StudioServer, free_port, wait_healthy

FILE_KEY = "sk-from-dotenv-0123456789abcdef"
SHELL_KEY = "sk-from-shell-0123456789abcdef"


@pytest.fixture
def scorer_and_dataset(db_url, tmp_path, fake_judge, monkeypatch):
    """The verdict scorer (judge: the fake server) and a dataset of two answers."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    spec = write_spec(tmp_path, verdict_spec(fake_judge.base_url))
    assert cli(db_url, "scorers", "import", str(spec)).exit_code == 0
    answers = write_examples(tmp_path, ["fine answer", "fine again"])
    assert cli(db_url, "datasets", "import", str(answers), "--name", "answers").exit_code == 0
    fake_judge.reply({"verdict": "good"})
    return db_url


def _run(db_url: str, folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    environment |= {"SCORER_STUDIO_DATABASE_URL": db_url, **env}
    command = [str(BIN / "scorer-studio"), "run", "verdict", "answers", "--processes", "1"]
    return subprocess.run(
        command, cwd=folder, env=environment, capture_output=True, text=True, timeout=120
    )


def test_run_reads_the_judge_key_from_env_file(scorer_and_dataset, fake_judge, tmp_path):
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / ".env").write_text(f"{KEY_ENV}='{FILE_KEY}'\n", encoding="utf-8")
    done = _run(scorer_and_dataset, folder, {})
    assert done.returncode == 0, done.stdout + done.stderr
    assert fake_judge.request_count == 2
    keys = {r.headers["authorization"] for r in fake_judge.chat_requests}
    assert keys == {f"Bearer {FILE_KEY}"}
    assert FILE_KEY not in done.stdout + done.stderr


def test_a_variable_already_set_wins_over_env_file(scorer_and_dataset, fake_judge, tmp_path):
    (tmp_path / ".env").write_text(f"{KEY_ENV}='{FILE_KEY}'\n", encoding="utf-8")
    done = _run(scorer_and_dataset, tmp_path, {KEY_ENV: SHELL_KEY})
    assert done.returncode == 0, done.stdout + done.stderr
    keys = {r.headers["authorization"] for r in fake_judge.chat_requests}
    assert keys == {f"Bearer {SHELL_KEY}"}


def test_without_env_file_a_missing_key_fails_before_any_call(
    scorer_and_dataset, fake_judge, tmp_path
):
    done = _run(scorer_and_dataset, tmp_path, {})
    assert done.returncode == 2
    assert KEY_ENV in done.stderr
    assert fake_judge.request_count == 0


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="reads /proc")
def test_ui_is_streamlit_itself_and_reads_env_file(tmp_path):
    (tmp_path / ".env").write_text(
        f"{KEY_ENV}='{FILE_KEY}'\nOTHER_SETTING=kept\n", encoding="utf-8"
    )
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k != KEY_ENV}
    environment["SCORER_STUDIO_DATABASE_URL"] = f"sqlite:///{tmp_path / 'studio.db'}"
    log = tmp_path / "ui.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [str(BIN / "scorer-studio"), "ui", "--port", str(port)],
            cwd=tmp_path,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = StudioServer(f"http://127.0.0.1:{port}", process, log)
    try:
        wait_healthy(server, 60)
        # The command's own process now runs Streamlit, with the keys of .env.
        argv = Path(f"/proc/{process.pid}/cmdline").read_bytes().split(b"\0")
        assert [sys.executable.encode(), b"-m", b"streamlit", b"run"] == argv[:4]
        environ = Path(f"/proc/{process.pid}/environ").read_bytes().split(b"\0")
        assert f"{KEY_ENV}={FILE_KEY}".encode() in environ
        assert b"OTHER_SETTING=kept" in environ
        # Stopping that one process stops the studio: nothing keeps serving behind it.
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        with pytest.raises(urllib.error.URLError):
            urllib.request.urlopen(f"{server.url}/_stcore/health", timeout=2)
    finally:
        server.stop()
