"""Paths that name no ordinary file, handed to every command that reads one: a symlink to a
device that never ends, a pipe that never answers, a folder; and a file over the limit of its
kind. Each is refused at once, in words that name the file; a symlink to an ordinary file is
read as that file."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from scorer_runtime.input_files import UnreadableFile, read_limited
from tests.cli.helpers import cli_process, verdict_spec, write_examples, write_spec

READERS = {
    "scorers": ["scorers", "import"],
    "examples": ["datasets", "import"],
    "grades": ["labels", "import", "--scorer", "verdict"],
    "traces": ["traces", "import"],
}
SUFFIX = {"scorers": ".json", "examples": ".csv", "grades": ".csv", "traces": ".json"}


def _refused(db_url: str, reader: str, path, timeout_s: float = 60) -> str:
    """What the command said (on stdout and stderr) when asked to read ``path``: in a child
    process with a time limit, so a reader that would hang fails the test instead."""
    process = cli_process(db_url, *READERS[reader], str(path))
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        pytest.fail(f"{reader} import of {path.name} hung")
    assert process.returncode == 2, out + err
    assert "Traceback" not in out + err
    return " ".join((out + err).split())


@pytest.fixture
def url(tmp_path):
    return f"sqlite:///{tmp_path / 'studio.db'}"


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_symlink_to_an_endless_device_is_refused_at_once(url, tmp_path, reader, device):
    link = tmp_path / f"data{SUFFIX[reader]}"
    link.symlink_to(device)
    said = _refused(url, reader, link)
    assert f"data{SUFFIX[reader]} is a device, not a file" in said


@pytest.mark.parametrize("reader", list(READERS))
def test_a_pipe_nobody_writes_to_is_refused_not_waited_on(url, tmp_path, reader):
    pipe = tmp_path / f"pipe{SUFFIX[reader]}"
    os.mkfifo(pipe)
    assert f"pipe{SUFFIX[reader]} is a pipe, not a file" in _refused(url, reader, pipe)


def test_folders_and_sockets_are_not_files(tmp_path):
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(UnreadableFile, match=r"folder\.json is a folder, not a file"):
        read_limited(folder, limit=10, what="scorer file")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(tmp_path / "s.sock"))
        with pytest.raises(OSError, match="No such device"):  # a socket is no file to open
            read_limited(tmp_path / "s.sock", limit=10, what="scorer file")


def test_a_file_over_its_limit_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.csv"
    big.write_bytes(b"x" * 2048)
    with pytest.raises(UnreadableFile) as refused:
        read_limited(big, limit=1024, what="file of examples")
    assert str(refused.value) == (
        "big.csv is 2 KB; the limit for a file of examples is 1 KB: split it into smaller files"
    )
    assert read_limited(big, limit=2048, what="file of examples") == b"x" * 2048


def test_a_symlink_to_an_ordinary_file_is_read_as_that_file(url, tmp_path):
    spec = write_spec(tmp_path, verdict_spec())
    examples = write_examples(tmp_path, ["fine"])
    (tmp_path / "linked.json").symlink_to(spec)
    (tmp_path / "linked.jsonl").symlink_to(examples)
    for command, path in (
        (["scorers", "import"], tmp_path / "linked.json"),
        (["datasets", "import"], tmp_path / "linked.jsonl"),
    ):
        process = cli_process(url, *command, str(path))
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, out + err


SECRET_SUFFIXES = {
    "scorers": (".yaml", ".json"),
    "examples": (".csv", ".jsonl"),
    "grades": (".csv",),
    "traces": (".json", ".jsonl"),
}


@pytest.mark.parametrize(
    ("reader", "suffix"),
    [(reader, suffix) for reader, suffixes in SECRET_SUFFIXES.items() for suffix in suffixes],
)
def test_a_symlink_to_etc_passwd_is_refused_without_a_word_of_it(url, tmp_path, reader, suffix):
    """An ordinary file that is no file of ours: refused by what it lacks, never by quoting
    it (its first line once showed as the "columns"), and with no developer's hint."""
    passwd = Path("/etc/passwd")
    secret_lines = [line for line in passwd.read_text().splitlines() if len(line) >= 8]
    assert secret_lines, "the machine's /etc/passwd is the file this test needs"
    if reader == "grades":  # a scorer to grade, so the refusal is about the file
        spec = write_spec(tmp_path, verdict_spec())
        assert cli_process(url, "scorers", "import", str(spec)).wait(timeout=60) == 0
    link = tmp_path / f"users{suffix}"
    link.symlink_to(passwd)
    said = _refused(url, reader, link)
    leaked = [line for line in secret_lines if line in said or line.split(":")[0] + ":x" in said]
    assert not leaked, said
    assert "pathlib" not in said
    assert "line 1" in said, said
