"""Export opens on the approved version (or says none is approved and which one it shows),
and every version in its picker carries its trust badge."""

from __future__ import annotations

from scorer_runtime.store import save_scorer_version, session_scope
from scorer_runtime.trust.policy import approve
from studio import state
from tests.store.fixtures import make_version, valid_spec


def _captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def _two_versions(engine) -> tuple[int, int, int]:
    scorer_id, first = make_version(engine, "tone")
    with session_scope(engine) as session:
        second = save_scorer_version(session, spec=valid_spec("tone", description="v2")).id
    return scorer_id, first, int(second or 0)


def test_with_no_approval_export_says_it_shows_the_newest(studio_db, open_page):
    scorer_id, _, second = _two_versions(studio_db)
    at = open_page("export")
    assert not at.exception
    picker = at.selectbox(key=state.EXPORT_VERSION.child(scorer_id).name)
    assert picker.value.version_id == second
    assert "No version of this scorer is approved yet" in _captions(at)
    assert "version 2" in _captions(at)
    assert "Version 2: Not enough evidence" in " ".join(m.value for m in at.markdown)


def test_export_opens_on_the_approved_version_and_marks_it(studio_db, open_page):
    scorer_id, first, _ = _two_versions(studio_db)
    with session_scope(studio_db) as session:
        approve(session, scorer_version_id=first, approver="Priya", override_reason="checked")
    at = open_page("export")
    assert not at.exception
    picker = at.selectbox(key=state.EXPORT_VERSION.child(scorer_id).name)
    assert picker.value.version_id == first
    assert "Version 1 is the approved one." in _captions(at)
    assert "Version 1: Not enough evidence · approved" in _badges(at)
    at.selectbox(key=state.EXPORT_VERSION.child(scorer_id).name).select(picker.options[0]).run()
    assert "This is not the approved version: version 1 is." in _captions(at)
    assert "Version 2: Not enough evidence" in _badges(at)
    assert "approved" not in _badges(at)


def test_scorers_shows_the_approved_version_beside_a_newer_one(studio_db, open_page):
    _, first, _ = _two_versions(studio_db)
    at = open_page("scorers")
    assert "Version 2: Not enough evidence" in _badges(at)
    assert "approved" not in _badges(at)
    with session_scope(studio_db) as session:
        approve(session, scorer_version_id=first, approver="Priya", override_reason="checked")
    at.run()
    assert not at.exception
    assert "Version 2: Not enough evidence" in _badges(at)
    assert "Version 1: Not enough evidence · approved" in _badges(at)


def _badges(at) -> str:
    """The words of every trust badge on the page (a badge is markdown)."""
    return " ".join(m.value for m in at.markdown if "-badge[" in m.value)
