"""``scorer-studio run --estimate`` after a run of the same dataset: every judge call likely
comes from the cache, nothing to pay; with ``--no-cache``, the full cost."""

from __future__ import annotations

from tests.cli.helpers import KEY_ENV, cli, verdict_spec, write_examples, write_spec


def test_the_estimate_after_a_run_counts_the_cached_answers(
    db_url, tmp_path, fake_judge, monkeypatch
):
    monkeypatch.setenv(KEY_ENV, "sk-test")
    spec = verdict_spec(fake_judge.base_url)
    spec["judge"]["model"] = "openai/gpt-4o-mini"  # litellm knows its price
    cli(db_url, "scorers", "import", str(write_spec(tmp_path, spec)))
    cli(db_url, "datasets", "import", str(write_examples(tmp_path, ["a", "b", "c"])), "--name", "d")
    fake_judge.reply({"verdict": "good"}, usage="counted")
    assert cli(db_url, "run", "verdict", "d").exit_code == 0
    asked = fake_judge.request_count

    again = " ".join(cli(db_url, "run", "verdict", "d", "--estimate").output.split())
    assert "About 3 judge calls for 3 examples, all likely answered from the cache" in again
    assert "$0 to pay (without the cache $" in again
    fresh = " ".join(cli(db_url, "run", "verdict", "d", "--estimate", "--no-cache").output.split())
    assert "About 3 judge calls for 3 examples (up to" in fresh
    assert "Cost: about $" in fresh
    assert fake_judge.request_count == asked
