"""``scorer-studio scorers export --format mastra``: differences first, refusals in words."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.helpers import cli
from tests.store.fixtures import db_url, engine

__all__ = ["db_url", "engine"]

SCORERS = Path(__file__).resolve().parents[3] / "data" / "scorers"


def test_export_writes_typescript_and_says_what_differs(db_url: str, tmp_path: Path) -> None:
    cli(db_url, "scorers", "import", str(SCORERS / "tone-politeness.json"))
    target = tmp_path / "tone.ts"
    done = cli(
        db_url, "scorers", "export", "tone-politeness", "--format", "mastra", "-o", str(target)
    )
    assert done.exit_code == 0, done.output
    assert "differs from the studio's" in done.stderr
    assert "30-second limit" in done.stderr
    assert done.stderr.index("differs") < done.stderr.index("Wrote")
    text = target.read_text(encoding="utf-8")
    assert "createScorer" in text
    assert "version 1" in text


def test_export_refuses_a_scorer_with_no_mastra_form(db_url: str, tmp_path: Path) -> None:
    spec = {
        "id": "similar",
        "description": "Text similarity has no Mastra form yet.",
        "steps": [{"step": "generate_score", "use": "text_similarity", "with": {}}],
    }
    path = tmp_path / "similar.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    cli(db_url, "scorers", "import", str(path))
    target = tmp_path / "similar.ts"
    done = cli(db_url, "scorers", "export", "similar", "--format", "mastra", "-o", str(target))
    assert done.exit_code != 0
    assert "cannot be exported to Mastra" in done.output + done.stderr
    assert "text_similarity" in done.output + done.stderr
    assert not target.exists()


def test_the_export_page_offers_mastra_with_its_differences() -> None:
    from scorer_runtime.spec import load_spec
    from studio.app_pages.export.logic import EXPORT_FORMATS, export_file

    assert EXPORT_FORMATS["mastra"] == "Mastra (TypeScript)"
    made = export_file(load_spec(SCORERS / "tone-politeness.json"), "mastra")
    assert made.file_name == "tone-politeness.ts"
    assert made.language == "typescript"
    assert any("30-second limit" in d for d in made.differences)
