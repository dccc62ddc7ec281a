"""Exporting a dataset as CSV or JSONL (the file is made when the download starts)."""

from __future__ import annotations

import streamlit as st

from scorer_runtime.store.views import DatasetRow
from studio import state
from studio.app_pages.examples import data as examples_data
from studio.app_pages.examples.logic import export_file_name


def export_section(dataset: DatasetRow) -> None:
    """Two download buttons, with what each format is good for."""
    st.markdown(
        f"Download the **{dataset.examples:,} examples** of **{dataset.name}**, to edit them "
        "elsewhere, share them, or import them into another studio."
    )
    csv_col, jsonl_col = st.columns(2)
    with csv_col:
        st.download_button(
            "Download CSV",
            data=examples_data.exporter(dataset.id, "csv"),
            file_name=export_file_name(dataset.name, "csv"),
            mime="text/csv",
            key=state.EXAMPLES_EXPORT_CSV.name,
            icon=":material/table:",
            help="Opens in Excel or Google Sheets. Structured values are written as JSON text.",
        )
        st.caption("For spreadsheets. Numbers come back as text when imported again.")
    with jsonl_col:
        st.download_button(
            "Download JSONL",
            data=examples_data.exporter(dataset.id, "jsonl"),
            file_name=export_file_name(dataset.name, "jsonl"),
            mime="application/jsonl",
            key=state.EXAMPLES_EXPORT_JSONL.name,
            icon=":material/data_object:",
            help="One JSON object per line: keeps every value exactly as stored.",
        )
        st.caption("For engineers and scripts. Imports back exactly as it was.")
