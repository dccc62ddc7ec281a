"""The Examples page's logic, free of Streamlit (unit-tested without a browser).

Datasets (what archiving affects in words, numbered pages as grid rows; the reads are the
store's),
the editable grid (cells as text, saving a page's edits all or nothing) and files (preview
and column mapping of an upload, import, export, the demo datasets).
"""

from studio.app_pages.examples.logic.datasets import (
    PAGE_SIZE,
    ArchiveImpact,
    ExamplePage,
    archive_impact,
    example_page,
)
from studio.app_pages.examples.logic.files import (
    FIELD_LABELS,
    FilePreview,
    can_leave_out,
    check_file,
    decode_upload,
    export_bytes,
    export_file_name,
    file_format,
    guess_mapping,
    import_upload,
    preview_file,
)
from studio.app_pages.examples.logic.grid import (
    COLUMN_HELP,
    COLUMN_LABELS,
    TEXT_COLUMN_WIDTH_PX,
    GridChanges,
    GridProblem,
    GridRow,
    GridSaveError,
    GridSaveResult,
    cell_text,
    changes_from_editor,
    grid_height,
    read_cell,
    row_of,
    save_changes,
)

__all__ = [
    "COLUMN_HELP",
    "COLUMN_LABELS",
    "FIELD_LABELS",
    "PAGE_SIZE",
    "TEXT_COLUMN_WIDTH_PX",
    "ArchiveImpact",
    "ExamplePage",
    "FilePreview",
    "GridChanges",
    "GridProblem",
    "GridRow",
    "GridSaveError",
    "GridSaveResult",
    "archive_impact",
    "can_leave_out",
    "cell_text",
    "changes_from_editor",
    "check_file",
    "decode_upload",
    "example_page",
    "export_bytes",
    "export_file_name",
    "file_format",
    "grid_height",
    "guess_mapping",
    "import_upload",
    "preview_file",
    "read_cell",
    "row_of",
    "save_changes",
]
