"""A random walk through one page of the studio in a real browser: click, choose, tick and
type at random (from a seeded ``random.Random``) and check, after every action, that the page
shows no Python error and the server logged none.

A walk is reproducible from its seed and the database it starts on: the same seed picks the
same action among the same things on the page. Every failure names the seed, the page and
every action taken so far, and keeps a screenshot.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pyarrow as pa  # type: ignore[import-untyped]
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator

from tests.e2e.browser import StudioPage
from tests.e2e.server import StudioServer

if TYPE_CHECKING:
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

# -- what the walk types ---------------------------------------------------------------------

LONG_TEXT = " ".join(["The customer asked twice and the answer was long."] * 60)
TEXTS = (
    "",
    "hello",
    "Polite support answers",
    "x",
    "  ",
    "a" * 400,
    LONG_TEXT,
    "日本語のテキスト — ünïcödé ✓ 🙂",
    "{{ }}",
    "{{ output }}",
    "{{ nothing.here }}",
    "{% if %}",
    "nan",
    "None",
    "null",
    "0",
    "-1",
    "3.5",
    "1e308",
    "<script>alert(1)</script>",
    "'; DROP TABLE scorers; --",
    "[]",
    "{}",
    "judge_output.verdict",
    "%s %d {0}",
    "back\\slash",
)
NUMBERS = ("", "0", "1", "-1", "2", "3.5", "-0.25", "100", "1000000", "99999999999")
FILES: tuple[tuple[str, str, bytes], ...] = (
    ("notes.txt", "text/plain", b"just some words\n"),
    ("empty.jsonl", "application/json", b""),
    ("rows.jsonl", "application/json", b'{"input": "hi", "output": "hello"}\n{"input": 3}\n'),
    ("broken.json", "application/json", b'{"name": "half'),
    ("list.json", "application/json", b"[1, 2, null]"),
    ("object.json", "application/json", b'{"unexpected": {"shape": [true, null]}}'),
    ("table.csv", "text/csv", b"input,output\nhi,hello\n,\n\xff\xfe,odd bytes\n"),
    ("image.png", "image/png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
)

# -- what counts as a problem ---------------------------------------------------------------

PYTHON_WORDS = re.compile(
    r"\b(?:KeyError|ValueError|TypeError|AttributeError|IndexError|NameError|"
    r"ZeroDivisionError|RuntimeError|AssertionError|ValidationError|JSONDecodeError|"
    r"UndefinedError|TemplateSyntaxError|StreamlitAPIException|IntegrityError|"
    r"OperationalError|NotImplementedError|UnboundLocalError)\b"
    r"|Traceback|validation errors? for \w+|errors\.pydantic\.dev|<class '|object at 0x"
)
SERVER_PROBLEMS = re.compile(
    r"Traceback \(most recent call last\)|Uncaught app execution"
    r"|Serialization of dataframe to Arrow table was unsuccessful"
)
_UPLOAD = re.compile(r"/_stcore/upload_file/")
NOT_VALUES = frozenset({"nan", "NaN", "None", "NaT", "<NA>"})
"""What a cell or a value shows when the studio printed Python's missing value."""

# -- the page, as the walk sees it -----------------------------------------------------------

_TARGETS = r"""() => {
  for (const el of document.querySelectorAll('[data-walk]')) el.removeAttribute('data-walk');
  const dialog = [...document.querySelectorAll('[role="dialog"]')].find((d) => d.checkVisibility());
  const popovers = [...document.querySelectorAll('[data-testid="stPopoverBody"]')]
    .filter((p) => p.checkVisibility());
  const main = document.querySelector('[data-testid="stMain"]');
  const scopes = dialog ? [dialog] : [...popovers, main].filter(Boolean);
  const kinds = [
    ['button', '[data-testid="stButton"] button, [data-testid="stFormSubmitButton"] button'],
    ['button', '[data-testid="stPopoverButton"], [data-testid="stPopover"] > div > button'],
    ['toolbar', '[data-testid="stElementToolbarButton"] button[aria-label*="row" i]'],
    ['segment', '[data-testid="stButtonGroup"] button'],
    ['tab', '[data-testid="stTab"], [data-baseweb="tab"]'],
    ['expander', '[data-testid="stExpander"] summary'],
    ['checkbox', '[data-testid="stCheckbox"] label'],
    ['radio', '[data-testid="stRadio"] [role="radiogroup"] label'],
    ['select', '[data-testid="stSelectbox"] [role="combobox"]'],
    ['multiselect', '[data-testid="stMultiSelect"] [role="combobox"]'],
    ['text', '[data-testid="stTextInput"] input'],
    ['text', '[data-testid="stTextArea"] textarea'],
    ['number', '[data-testid="stNumberInput"] input'],
    ['step', '[data-testid="stNumberInputStepUp"], [data-testid="stNumberInputStepDown"]'],
    ['slider', '[data-testid="stSlider"] [role="slider"]'],
    ['grid', '[data-testid="stDataFrame"] [data-testid="data-grid-canvas"]'],
    ['upload', '[data-testid="stFileUploaderDropzoneInput"]'],
  ];
  const FIELDS = ['select', 'multiselect', 'text', 'number', 'slider', 'upload'];
  const out = [];
  const seen = new Set();
  for (const scope of scopes) {
    for (const [kind, selector] of kinds) {
      for (const el of scope.querySelectorAll(selector)) {
        if (seen.has(el)) continue;
        seen.add(el);
        const shown = kind === 'upload' ? el.parentElement : el;
        if (!shown || !shown.checkVisibility()) continue;
        if (el.disabled || el.getAttribute('aria-disabled') === 'true') continue;
        if (el.closest('fieldset[disabled], [data-testid="stSidebar"]')) continue;
        const holder = el.closest('[class*="st-key-"]');
        const key = holder ? [...holder.classList].find((c) => c.startsWith('st-key-')) : '';
        const field = FIELDS.includes(kind);
        const container = el.closest('[data-testid="stElementContainer"]');
        const named = field && container
          && container.querySelector('[data-testid="stWidgetLabel"]');
        let words = el.getAttribute('aria-label') || (named && named.innerText)
          || el.innerText || '';
        for (const icon of el.querySelectorAll('[data-testid="stIconMaterial"]')) {
          words = words.replace(icon.innerText, '');
        }
        const label = words.trim().replace(/\s+/g, ' ').slice(0, 60);
        el.setAttribute('data-walk', String(out.length));
        out.push({kind, label, key: key || '', type: el.getAttribute('type') || ''});
      }
    }
  }
  return {targets: out, dialog: Boolean(dialog), popover: popovers.length > 0};
}"""

_READ = """() => {
  const boxes = [...document.querySelectorAll('[data-testid="stException"]')]
    .map((b) => b.innerText.slice(0, 1500));
  const app = document.querySelector('[data-testid="stApp"]');
  const skip = '[data-testid="stCode"], pre, code, textarea, input, [data-testid="stJson"], '
    + '[data-testid="stSidebarNav"], [data-testid="stExpanderIconCheck"]';
  const texts = [];
  const walk = document.createTreeWalker(app, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode;
    const parent = node.parentElement;
    const text = node.nodeValue.trim();
    if (!text || !parent || parent.closest(skip)) continue;
    if (!parent.closest('[data-testid^="glide-cell"]') && !parent.checkVisibility()) continue;
    texts.push(text);
  }
  return {boxes, texts};
}"""


@dataclass(frozen=True)
class Target:
    """Something on the page the walk can act on (found by its ``data-walk`` mark)."""

    index: int
    kind: str
    label: str
    key: str
    type: str

    def describe(self) -> str:
        where = f" ({self.key})" if self.key else ""
        return f"{self.kind} “{self.label}”{where}"


@dataclass
class Walk:
    """One seeded walk through one page; :meth:`step` does and checks one random action."""

    tab: StudioPage
    server: StudioServer
    seed: int
    page_name: str
    rng: random.Random
    typed: set[str] = field(default_factory=set)
    """Everything typed so far (shared between the walks of one database: it is stored)."""
    actions: list[str] = field(default_factory=list)
    keep_going: bool = False
    """Note each problem and walk on (to list every problem of a page in one walk)."""
    noted: list[str] = field(default_factory=list)
    _log_at: int = 0
    _tables: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.tab.message_listeners.append(self._read_tables)

    def _read_tables(self, message: ForwardMsg) -> None:
        self._tables += missing_in_table(message, self.typed)

    def begin(self, path: str, title: str) -> None:
        self._log_at = self._log_size()
        self.tab.open(path, title=title)
        self.actions.append(f"open {path}")
        self.check()

    def step(self) -> None:
        """Do one random action on what the page shows, wait until the studio is idle, check."""
        found = self.tab.page.evaluate(_TARGETS)
        targets = [Target(i, **t) for i, t in enumerate(found["targets"])]
        if found["dialog"] or found["popover"]:
            targets.append(Target(-1, "escape", "close the dialog or popover", "", ""))
        if not targets:
            self.actions.append("nothing to do")
            return
        target = self._pick(targets)
        do, words = self._plan(target)
        self.actions.append(f"{words} — on {self.tab.page.url}")

        def attempt() -> None:
            try:
                do()
            except PlaywrightError as error:  # it moved or went away under the pointer
                self.actions[-1] += f" (not done: {error.message.splitlines()[0][:120]})"

        try:
            self.tab.act(attempt)
        except PlaywrightError as error:
            self.fail([f"the studio did not become idle after the action: {error.message}"])
        self.check()

    def _pick(self, targets: Sequence[Target]) -> Target:
        """A kind first (each kind as likely as another), then one of that kind."""
        kinds = sorted({t.kind for t in targets})
        kind = self.rng.choice(kinds)
        return self.rng.choice([t for t in targets if t.kind == kind])

    def _plan(self, target: Target) -> tuple[Callable[[], object], str]:
        element = self.tab.page.locator(f'[data-walk="{target.index}"]')
        planners: dict[str, Callable[[Locator, Target], tuple[Callable[[], object], str]]] = {
            "text": self._plan_text,
            "number": self._plan_text,
            "select": self._plan_select,
            "multiselect": self._plan_select,
            "grid": self._plan_grid,
            "upload": self._plan_upload,
            "slider": self._plan_slider,
            "escape": self._plan_escape,
            "toolbar": self._plan_toolbar,
        }
        planner = planners.get(target.kind)
        if planner is not None:
            return planner(element, target)
        return (lambda: element.click(timeout=10_000)), f"click {target.describe()}"

    def _plan_text(self, element: Locator, target: Target) -> tuple[Callable[[], object], str]:
        numeric = target.kind == "number" or target.type == "number"
        value = self.rng.choice(NUMBERS if numeric else TEXTS)
        self.typed.add(value.strip())

        def do() -> None:
            element.fill(value, timeout=10_000)
            element.blur()

        return do, f"type {value[:60]!r} into {target.describe()}"

    def _plan_select(self, element: Locator, target: Target) -> tuple[Callable[[], object], str]:
        pick = self.rng.random()
        page = self.tab.page

        def do() -> None:
            element.click(timeout=10_000)
            options = page.get_by_role("option")
            try:
                options.first.wait_for(timeout=3_000)
            except PlaywrightError:
                page.keyboard.press("Escape")  # no option to choose: nothing happens
                return
            choices = [o for o in options.all() if o.get_attribute("aria-disabled") != "true"]
            if not choices:
                page.keyboard.press("Escape")
                return
            chosen = choices[min(int(pick * len(choices)), len(choices) - 1)]
            self.actions[-1] += f" → “{chosen.inner_text().strip()[:60]}”"
            chosen.click(timeout=10_000)
            if target.kind == "multiselect":
                page.keyboard.press("Escape")

        return do, f"choose an option of {target.describe()}"

    def _plan_grid(self, element: Locator, target: Target) -> tuple[Callable[[], object], str]:
        """Click a cell of a table (one of the first rows, a random column) as a person
        does; where it opens an editor, type into it and press Enter."""
        value = self.rng.choice((*TEXTS[:6], "nan", "None", "42", "日本語"))
        row, across = self.rng.randint(0, 3), self.rng.random()
        page = self.tab.page

        def do() -> None:
            element.scroll_into_view_if_needed(timeout=10_000)
            box = element.bounding_box()
            if box is None:
                return
            header = 36  # Streamlit's grid: a header row, then rows of 35 px
            y = min(box["y"] + header + 35 * row + 17, box["y"] + box["height"] - 5)
            x = box["x"] + 40 + across * (box["width"] - 45)  # right of the row markers
            page.mouse.move(x, y)
            page.mouse.down()
            page.mouse.up()
            page.keyboard.press("Enter")  # opens the cell's editor, if it has one
            editor = page.locator("textarea.gdg-input, input.gdg-input").first
            try:
                editor.wait_for(timeout=1_000)
            except PlaywrightError:
                return  # a cell with no text editor (a tick box, a list)
            if not editor.is_editable():
                page.keyboard.press("Escape")  # a read-only cell shows its text, no more
                return
            self.typed.add(value.strip())
            editor.fill(value, timeout=5_000)
            editor.press("Enter")

        where = f"row {row + 1} at {across:.0%} across {target.describe()}"
        return do, f"click {where}, type {value[:40]!r}, Enter"

    def _plan_upload(self, element: Locator, target: Target) -> tuple[Callable[[], object], str]:
        name, mime, content = self.rng.choice(FILES)

        def do() -> None:
            file = {"name": name, "mimeType": mime, "buffer": content}
            accept = element.get_attribute("accept")  # none: every type
            if accept and "." + name.rsplit(".", 1)[-1] not in accept.split(","):
                element.set_input_files(file)  # refused in the browser, never sent
                return
            # The browser sends the file, then asks for a run once it has arrived.
            with self.tab.page.expect_response(_UPLOAD, timeout=15_000):
                element.set_input_files(file)

        return do, f"upload {name} into {target.describe()}"

    def _plan_slider(self, element: Locator, target: Target) -> tuple[Callable[[], object], str]:
        key, times = (
            self.rng.choice(["ArrowRight", "ArrowLeft", "End", "Home"]),
            self.rng.randint(1, 5),
        )

        def do() -> None:
            element.focus()
            for _ in range(times):
                element.press(key)

        return do, f"press {key} ×{times} on {target.describe()}"

    def _plan_toolbar(self, element: Locator, target: Target) -> tuple[Callable[[], object], str]:
        """A table's own button (add or delete rows): shown while the pointer is on the table."""
        table = element.locator('xpath=ancestor::*[@data-testid="stElementContainer"][1]')

        def do() -> None:
            table.hover(timeout=10_000)
            element.click(timeout=10_000)

        return do, f"click {target.describe()}"

    def _plan_escape(self, element: Locator, target: Target) -> tuple[Callable[[], object], str]:
        return (lambda: self.tab.page.keyboard.press("Escape")), "press Escape"

    # -- checking -------------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """Everything wrong right now: exception boxes, Python words or missing values on the
        page, tracebacks or Arrow fallbacks in the server's log, browser errors, requests to
        other machines, a stopped studio."""
        seen = self.tab.page.evaluate(_READ)
        found = [f"exception box: {box}" for box in seen["boxes"]]
        found += [f"Python on the page: {text[:300]}" for text in _python_words(seen["texts"])]
        found += [f"a missing value shown as {text!r}" for text in self._not_values(seen["texts"])]
        found += sorted(set(self._tables))
        self._tables.clear()
        found += self._log_problems()
        found += list(self.tab.problems)
        found += [f"a request left this machine: {url}" for url in self.tab.external_requests]
        if self.server.process.poll() is not None:
            found.append("the studio stopped")
        return found

    def check(self) -> None:
        found = self.problems()
        if found and self.keep_going:
            old = {problem.split(": ", 1)[1] for problem in self.noted}
            new = [problem for problem in found if problem not in old]
            self.noted += [f"after action {len(self.actions)}: {problem}" for problem in new]
            self.tab.problems.clear()
        elif found:
            self.fail(found)

    def fail(self, found: Sequence[str]) -> None:
        shot = None
        with contextlib.suppress(PlaywrightError):
            shot = self.tab.screenshot(f"walk-{self.page_name}-failed")
        steps = "\n".join(f"  {n}. {action}" for n, action in enumerate(self.actions, 1))
        raise AssertionError(
            f"random walk, seed {self.seed}, page {self.page_name}: after action "
            f"{len(self.actions)} the studio had shown:\n"
            + "\n".join(f"- {problem}" for problem in found)
            + f"\nactions so far:\n{steps}\nscreenshot: {shot}\n"
            f"rerun with SCORER_STUDIO_WALK_SEED={self.seed} (the whole walk: earlier pages "
            "changed the database this page started on)"
        )

    def _not_values(self, texts: Sequence[str]) -> list[str]:
        return sorted({t for t in texts if t in NOT_VALUES and t not in self.typed})

    def _log_problems(self) -> list[str]:
        """What the server logged since the last check, one line per problem (the line
        that says what happened, then the exception it ends with); the log's tail once."""
        text = self._log_since(self._log_at)
        self._log_at += len(text.encode())
        found = [_log_summary(chunk) for chunk in _log_entries(text)]
        found = [summary for summary in found if summary]
        if found and not self.keep_going:
            found.append(f"the server's log:\n{text[-3000:]}")
        return found

    def _log_size(self) -> int:
        return self.server.log.stat().st_size if self.server.log.exists() else 0

    def _log_since(self, offset: int) -> str:
        with self.server.log.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")


def missing_in_table(message: ForwardMsg, typed: Collection[str]) -> list[str]:
    """What a table sent in ``message`` would show as a missing value: a null cell drawn as
    Streamlit's default "None", or a text cell that reads nan/None (unless the walk typed it).

    Read from the table's data, since the browser draws tables on a canvas."""
    if message.WhichOneof("type") != "delta" or message.delta.WhichOneof("type") != "new_element":
        return []
    element = message.delta.new_element
    if element.WhichOneof("type") != "dataframe" or not element.dataframe.arrow_data.data:
        return []
    frame = element.dataframe
    table = pa.ipc.open_stream(frame.arrow_data.data).read_all()
    nulls_shown = not frame.HasField("placeholder") or frame.placeholder in NOT_VALUES
    found = []
    for name in _shown_columns(frame, table.column_names):
        column = table.column(name)
        if nulls_shown and column.null_count:
            found.append(
                f"column “{name}” of a table shows {column.null_count} empty cells as None"
            )
        if pa.types.is_string(column.type) or pa.types.is_large_string(column.type):
            bad = {v for v in column.to_pylist() if v in NOT_VALUES and v not in typed}
            found += [f"column “{name}” of a table shows {v!r}" for v in sorted(bad)]
    return found


def _shown_columns(frame: Any, names: Sequence[str]) -> list[str]:
    """The data columns the table shows: not the index, not hidden, in its column order."""
    config = json.loads(frame.columns) if frame.columns else {}
    hidden = {name for name, options in config.items() if (options or {}).get("hidden")}
    shown = [n for n in names if not n.startswith("__index_level_") and n not in hidden]
    order = list(frame.column_order)
    return [n for n in shown if n in order] if order else shown


_LOG_ENTRY = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ ", re.MULTILINE)


def _log_entries(text: str) -> list[str]:
    """The log's entries: each starts with Streamlit's time stamp (a traceback printed by
    hand is an entry of its own)."""
    return [entry for entry in _LOG_ENTRY.split(text) if entry.strip()]


def _log_summary(entry: str) -> str:
    """``entry`` in one line when it is a problem (what happened … the exception), else ""."""
    if not SERVER_PROBLEMS.search(entry):
        return ""
    lines = [line.strip() for line in entry.splitlines() if line.strip()]
    said = next((line for line in lines if SERVER_PROBLEMS.search(line)), lines[0])
    return f"the server logged: {said[:200]} … {lines[-1][:300]}"


def _python_words(texts: Sequence[str]) -> list[str]:
    return [text for text in dict.fromkeys(texts) if PYTHON_WORDS.search(text)]


def walk_page(walk: Walk, path: str, title: str, steps: int) -> None:
    """Open the page, then take ``steps`` random actions, checking after each."""
    walk.begin(path, title)
    for _ in range(steps):
        walk.step()
    if walk.noted:
        walk.fail(walk.noted)
