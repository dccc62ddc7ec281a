"""What the command line prints from data is text: Rich markup in a description prints as
the characters typed, and control codes (ANSI colours, OSC-8 links, a screen clear, bidi
overrides) in a description or a stored error print as visible codes, never reaching the
terminal as commands."""

from __future__ import annotations

import pytest

from scorer_runtime.cli.support import visible
from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec

MARKUP = "[bold red]URGENT[/] [link=http://evil.example]click[/link]"
CODES = "\x1b[2J\x1b]8;;http://evil.example\x07here\x1b]8;;\x07 \u202eevil\r"
OBEYED = ("\x1b", "\x07", "\u202e", "\r")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[31mred", "\\x1b[31mred"),
        ("bell\x07", "bell\\x07"),
        ("\u202eevil", "\\u202eevil"),
        ("zero\u200bwidth", "zero\\u200bwidth"),
        ("a line\nand a\ttab, ünïcödé", "a line\nand a\ttab, ünïcödé"),
    ],
)
def test_visible_writes_what_a_terminal_obeys_as_codes(text, shown):
    assert visible(text) == shown


def test_markup_and_control_codes_from_data_print_as_text(tmp_path, fake_judge, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    url = f"sqlite:///{tmp_path / 'studio.db'}"
    spec = verdict_spec(fake_judge.base_url)
    spec["description"] = f"{MARKUP} {CODES}"
    assert cli(url, "scorers", "import", str(write_spec(tmp_path, spec))).exit_code == 0
    assert cli(url, "datasets", "import", str(write_examples(tmp_path, ["x"]))).exit_code == 0
    fake_judge.fault(status=400, body={"error": {"message": f"{CODES} bad request"}})
    assert cli(url, "run", "verdict", "answers").exit_code == 0

    for command in (["scorers", "list"], ["scorers", "show", "verdict"], ["history", "verdict"]):
        printed = cli(url, *command).output
        assert not any(code in printed for code in OBEYED), command
    assert "[bold red]URGENT[/]" in cli(url, "scorers", "list").output  # cut short after it
    shown = cli(url, "scorers", "show", "verdict").output
    assert MARKUP in shown
    assert "\\x1b[2J\\x1b]8;;http://evil.example\\x07here" in shown
    assert "\\u202eevil" in shown
    assert "\\x1b" in cli(url, "history", "verdict").output
