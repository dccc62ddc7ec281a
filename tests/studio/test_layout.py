"""The studio's layout, checked by reading imports (no Streamlit): one folder per page under
studio/app_pages/ with its entry script page.py, and studio/widgets/ holding only what two or more
pages use (directly, or through another widget)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

STUDIO = Path(__file__).resolve().parents[2] / "studio"
PAGES = STUDIO / "app_pages"
WIDGETS = STUDIO / "widgets"

# A page may import another page's module where that page owns the concept. Each one is listed
# here, so a new one is a decision rather than an accident. (page, module it imports)
CROSS_PAGE_IMPORTS = {
    # The builder's judge panel offers the Judges page's answer-format choices, in its words.
    ("builder", "studio.app_pages.judges.logic"),
    # "Run it" in the builder opens Runs with the scorer chosen: Runs owns that choice's key.
    ("builder", "studio.app_pages.runs.start"),
    # Compare versions is the Results page's second view: it reads the same score rows through
    # Results' cached reads and labels its choices with Results' words.
    ("compare", "studio.app_pages.results.data"),
    ("compare", "studio.app_pages.results.logic"),
    # Export names a changed field and checks a scorer's name exactly as Scorers does.
    ("export", "studio.app_pages.scorers.diff"),
    ("export", "studio.app_pages.scorers.logic"),
    # The scorer's Judge… panel takes a pasted key exactly as the Judges page does.
    ("scorers", "studio.app_pages.judges.logic.keys"),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(STUDIO.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> Iterator[str]:
    """Every studio module that ``path`` imports (``from a import b`` yields a.b and a)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def _studio_imports() -> dict[str, set[str]]:
    known = {_module_name(p) for p in STUDIO.rglob("*.py")}
    return {
        _module_name(p): {name for name in _imports(p) if name in known}
        for p in STUDIO.rglob("*.py")
    }


def _page_folders() -> list[Path]:
    return sorted(p for p in PAGES.iterdir() if p.is_dir() and not p.name.startswith("__"))


def _page_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "app_pages" else None


def widget_users() -> dict[str, set[str]]:
    """Each widget module -> the pages whose modules import it, directly or via other widgets."""
    imports = _studio_imports()
    widgets = sorted(m for m in imports if m.startswith("studio.widgets."))
    users: dict[str, set[str]] = {w: set() for w in widgets}
    for module, names in imports.items():
        page = _page_of(module)
        if page is None:
            continue
        seen: set[str] = set()
        todo = [n for n in names if n in users]
        while todo:
            widget = todo.pop()
            if widget in seen:
                continue
            seen.add(widget)
            users[widget].add(page)
            todo.extend(n for n in imports[widget] if n in users)
    return users


def test_every_page_folder_has_its_entry_script():
    folders = _page_folders()
    assert len(folders) >= 12  # the pages are the folders: a new page needs no list here
    for folder in folders:
        assert (folder / "page.py").is_file(), f"{folder.name} has no page.py"
        assert (folder / "__init__.py").is_file(), f"{folder.name} has no __init__.py"


def test_the_navigation_names_every_page_script():
    app = (STUDIO / "app.py").read_text(encoding="utf-8")
    for folder in _page_folders():
        assert f'"app_pages/{folder.name}/page.py"' in app


def test_widgets_are_used_by_two_pages_or_more():
    users = widget_users()
    assert users, "no widget modules found"
    lonely = {w: sorted(pages) for w, pages in users.items() if len(pages) < 2}
    assert not lonely, f"widgets used by fewer than two pages (move them into the page): {lonely}"


def _cross_page_imports() -> set[tuple[str, str]]:
    crossing = set()
    for module, names in _studio_imports().items():
        page = _page_of(module)
        for name in names:
            other = _page_of(name)
            if page and other and other != page:
                crossing.add((page, name))
    return crossing


def test_a_page_imports_another_page_only_where_listed():
    crossing = _cross_page_imports()
    assert crossing <= CROSS_PAGE_IMPORTS, sorted(crossing - CROSS_PAGE_IMPORTS)


def test_the_list_of_cross_page_imports_has_no_stale_entry():
    stale = CROSS_PAGE_IMPORTS - _cross_page_imports()
    assert not stale, f"no longer imported, remove from CROSS_PAGE_IMPORTS: {sorted(stale)}"


def test_nothing_outside_the_pages_imports_a_page():
    # Widgets, state, services, messages and words sit below the pages: a shape that a widget
    # and a page share lives in the widget (or in scorer_runtime), never in a page.
    reaching = {
        module: sorted(n for n in names if n.startswith("studio.app_pages."))
        for module, names in _studio_imports().items()
        if _page_of(module) is None and module != "studio.app_pages"
    }
    reaching = {module: names for module, names in reaching.items() if names}
    assert not reaching, f"modules outside studio/app_pages/ importing a page: {reaching}"


STATE = STUDIO / "state.py"
KEY_STYLE = r"[a-z]+(\.[a-z][a-z0-9_]*)+"
"""``page.snake_case_name``; a family member adds ``.part`` segments (``examples.map.input``)."""


def test_only_state_py_touches_session_state():
    touching = [
        str(p.relative_to(STUDIO))
        for p in STUDIO.rglob("*.py")
        if p != STATE and "session_state" in p.read_text(encoding="utf-8")
    ]
    assert not touching, f"read and write session state through studio.state: {touching}"


def _is_text(node: ast.expr) -> bool:
    """A key spelled out in place: "a", f"a.{b}", "a" + b."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    return isinstance(node, ast.BinOp) and (_is_text(node.left) or _is_text(node.right))


def test_widget_keys_come_from_state_py():
    spelled = []
    for path in STUDIO.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                spelled += [
                    f"{path.relative_to(STUDIO)}:{kw.value.lineno}"
                    for kw in node.keywords
                    if kw.arg == "key" and _is_text(kw.value)
                ]
    assert not spelled, f"declare these keys in studio/state.py: {spelled}"


def test_state_keys_share_one_naming_style_and_are_unique():
    from studio import state

    keys = {n: v for n, v in vars(state).items() if isinstance(v, state.Key)}
    assert len(keys) > 100
    odd = sorted(k.name for k in keys.values() if not re.fullmatch(KEY_STYLE, k.name))
    assert not odd, f"keys not in page.snake_case style: {odd}"
    names = [k.name for k in keys.values()]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_no_pages_folder_sits_beside_the_entry_script():
    # Streamlit treats studio/pages/ as its older automatic navigation until st.navigation
    # first runs: the first visit after a start at /builder (a bookmark) said "Page not found".
    assert not (STUDIO / "pages").exists()


def test_a_page_opens_the_database_only_in_its_data_module():
    """The page template: a page's reads and writes live in its ``data.py`` (a second data
    module is named ``*_data.py``), so render code never holds a database session."""
    opening = ("services.reading()", "services.writing()")
    found = [
        str(path.relative_to(STUDIO))
        for path in sorted(PAGES.rglob("*.py"))
        if not path.name.endswith("data.py")
        and any(call in path.read_text(encoding="utf-8") for call in opening)
    ]
    assert found == []


def test_no_page_script_holds_a_bare_text_streamlit_would_draw() -> None:
    """Streamlit draws every bare value of a page's entry script ("magic"): a docstring
    under a constant there shows on the page. Only the module's own docstring is allowed."""
    found = []
    for page in sorted(PAGES.glob("*/page.py")):
        body = ast.parse(page.read_text(encoding="utf-8")).body
        for statement in body[1:]:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.append(f"{page.relative_to(STUDIO.parent)}:{statement.lineno}")
    assert not found, f"bare text drawn on the page: {found}"
