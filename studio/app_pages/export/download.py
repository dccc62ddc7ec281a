"""Export a saved scorer version: Python for engineers (with how to run it), JSON or YAML."""

from __future__ import annotations

import streamlit as st

from studio import state
from studio.app_pages.export import data
from studio.app_pages.export.data import VersionChoice
from studio.app_pages.export.logic import (
    EXPORT_FORMATS,
    ExportFile,
    ExportFormat,
    ImportProblem,
    RunGuide,
)
from studio.widgets.common import empty_state
from studio.widgets.current_scorer import scorer_to_open, work_on
from studio.widgets.trust_badge import approved_version, scorer_badge


def _picked() -> None:
    work_on(state.peek(state.EXPORT_SCORER), state.EXPORT_FOLLOWED)


def _pick_scorer(scorers: dict[int, str]) -> int | None:
    """Opens on the scorer asked for ("Export" on the Scorers page), else on the one the
    person is working on when it changed (just saved in the builder, run, picked)."""
    wanted = state.get(state.EXPORT_SCORER_ID)
    current = scorer_to_open(state.EXPORT_FOLLOWED, state.EXPORT_SCORER)
    if wanted in scorers:
        state.put(state.EXPORT_SCORER, wanted)
        state.reset(state.EXPORT_SCORER_ID)
    elif current in scorers:
        state.put(state.EXPORT_SCORER, current)
    ids = list(scorers)
    chosen: int | None = st.selectbox(
        "Scorer",
        ids,
        format_func=lambda i: scorers[i],
        key=state.EXPORT_SCORER.name,
        on_change=_picked,
        help="The scorer to hand over.",
    )
    return chosen


def _pick_version(scorer_id: int) -> VersionChoice | None:
    """Opens on the version approved last, else on the newest, saying which and why; each
    version shows its trust badge."""
    versions = data.versions(scorer_id)
    if not versions:
        st.info("This scorer has no saved version to export yet.")
        return None
    key = state.EXPORT_VERSION.child(scorer_id)
    approved = approved_version(scorer_id)
    opening = next((v for v in versions if v.version_id == approved), None)
    if not state.has(key):
        state.put(key, opening or versions[0])
    chosen: VersionChoice | None = st.selectbox(
        "Version",
        versions,
        format_func=lambda v: (
            f"Version {v.version} · {v.saved}" + (f" · {v.note}" if v.note else "")
        ),
        key=key.name,
        help="The newest version is first. Scores always name the version that made them. "
        "Its trust badge is shown below it.",
    )
    if chosen is not None:
        scorer_badge(scorer_id, chosen.version_id)
    if opening is None:
        st.caption(
            f"No version of this scorer is approved yet, so this opens on the newest, version "
            f"{versions[0].version}. Approve a version on the Trust page before handing it over."
        )
    elif chosen is not None and chosen.version_id != opening.version_id:
        st.caption(f"This is not the approved version: version {opening.version} is.")
    else:
        st.caption(f"Version {opening.version} is the approved one.")
    return chosen


def render_export() -> None:
    """Pick a scorer, a version and a format; show the code and offer the download."""
    scorers = data.scorers()
    if not scorers:
        empty_state(
            "**There is no scorer to export yet.** Build one, or import a scorer file below."
        )
        st.page_link("app_pages/builder/page.py", label="Build a scorer", icon=":material/build:")
        return
    scorer_id = _pick_scorer(data.titles())
    version = _pick_version(scorer_id) if scorer_id is not None else None
    if version is None:
        return
    format: ExportFormat = (
        st.radio(
            "Export as",
            list(EXPORT_FORMATS),
            format_func=EXPORT_FORMATS.__getitem__,
            horizontal=True,
            key=state.EXPORT_FORMAT.name,
            help="Python code runs the scorer as it is; Mastra (TypeScript) runs it in a Mastra "
            "project; JSON and YAML files import back here.",
        )
        or "python"
    )
    exported = data.exported(version.version_id, format)
    if exported.file is None and format == "mastra":
        _render_no_mastra_form(exported.problems)
        return
    if exported.file is None:
        render_export_problems(exported.problems)
        return
    render_file(exported.file, exported.guide)


def render_export_problems(problems: list[ImportProblem]) -> None:
    """Why a stored version cannot be exported, and what to do."""
    st.error(
        "This version cannot be exported as it is: "
        + "; ".join(f"{p.where}: {p.message}" for p in problems),
        icon=":material/error:",
    )
    st.info(
        "Open the scorer in the builder, fix what is named and save a new version; or save the "
        "judge profile it refers to on the Judges page.",
        icon=":material/lightbulb:",
    )


def render_file(file: ExportFile, guide: RunGuide | None) -> None:
    """The highlighted file, its download button, and for Python how to run it."""
    st.download_button(
        f"Download {file.file_name}",
        data=file.text,
        file_name=file.file_name,
        mime=file.mime,
        key=state.EXPORT_DOWNLOAD.name,
        icon=":material/download:",
        on_click="ignore",
        type="primary",
    )
    if file.format == "python" and guide is not None:
        with st.container(border=True):
            st.markdown("**How an engineer runs this**")
            for number, step in enumerate(guide.steps(), start=1):
                st.markdown(f"{number}. {step}")
            st.code(guide.command, language="bash", wrap_lines=True)
    elif file.format == "mastra":
        _render_mastra_notes(file)
    else:
        st.caption(
            "Import this file back on this page (as a new scorer or a new version), or load it "
            "in Python with `scorer_runtime.spec.load_spec` and run it with `compile_spec`."
        )
    st.code(file.text, language=file.language, line_numbers=True)


def _render_no_mastra_form(problems: list[ImportProblem]) -> None:
    """Why this scorer has no Mastra module yet, and what to use instead."""
    st.warning(
        "**This scorer cannot be written for Mastra yet:**\n\n"
        + "\n".join(f"- {problem.message}" for problem in problems),
        icon=":material/warning:",
    )
    st.info(
        "Export it as Python code instead: it gives the same scores. Or change the steps named "
        "above in the builder and save a new version.",
        icon=":material/lightbulb:",
    )


def _render_mastra_notes(file: ExportFile) -> None:
    """What differs from the studio's scorer, and how an engineer runs the module."""
    if file.differences:
        st.warning(
            "**This Mastra scorer differs from the studio's:**\n\n"
            + "\n".join(f"- {difference}" for difference in file.differences),
            icon=":material/warning:",
        )
    st.caption(
        f"Add {file.file_name} to a Mastra project (`npm i @mastra/core@1.71 zod@4`), import "
        "`scorer` from it and call `scorer.run({ input, output, groundTruth })`. The copy "
        "button is at the top right of the code."
    )
