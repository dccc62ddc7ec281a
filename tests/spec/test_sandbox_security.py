"""Formulas and templates are user text: no escape reaches Python, and no input runs unbounded.

Every attack must end in a clear FormulaError / TemplateError, within a loose time bound,
and leave no side effect: the payloads try to create a canary file, which must not appear.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer_runtime import ScorerRun
from scorer_runtime.spec.formulas import FormulaError, formula
from scorer_runtime.spec.templates import TemplateError, template

TIME_LIMIT_S = 5.0
RUN = ScorerRun(
    input="hello",
    output="world",
    run_id="r",
    request_context={"__class__": "just data", "k": "v"},
)


@pytest.fixture
def canary(tmp_path: Path) -> Iterator[Path]:
    """A file path the payloads try to create; it must still not exist afterwards."""
    path = tmp_path / "CANARY"
    yield path
    assert not path.exists(), "a payload escaped the sandbox and wrote the canary file"


def _refused(build: Callable[[], Any], error: type[Exception]) -> str:
    """Build and run; the attack must fail with ``error``, quickly. Returns the message."""
    started = time.perf_counter()
    with pytest.raises(error) as caught:
        build()
    elapsed = time.perf_counter() - started
    assert elapsed < TIME_LIMIT_S, f"took {elapsed:.1f}s"
    message = str(caught.value)
    assert "Traceback" not in message
    assert "<" + "class" not in message
    return message


# --- Formulas --------------------------------------------------------------------------------

FORMULA_ESCAPES = [
    ("__import__('os').system('touch {canary}')", "names starting with '_' are not allowed"),
    ("open('{canary}', 'w')", "the function 'open' is unknown"),
    ("exec(\"open('{canary}', 'w')\")", "the function 'exec' is unknown"),
    ("eval('1')", "the function 'eval' is unknown"),
    ("compile('1', 'f', 'eval')", "the function 'compile' is unknown"),
    ("globals()", "the function 'globals' is unknown"),
    ("type(output)", "the function 'type' is unknown"),
    ("getattr(output, '__class__')", "the function 'getattr' is unknown"),
    ("().__class__", "names starting with '_' are not allowed (__class__)"),
    ("''.__class__.__mro__[1].__subclasses__()", "names starting with '_' are not allowed"),
    (
        "output.__class__.__init__.__globals__['os'].system('touch {canary}')",
        "names starting with '_'",
    ),
    (
        "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == 'Popen'][0]"
        "(['touch', '{canary}'])",
        "names starting with '_' are not allowed",
    ),
    ("(lambda: open('{canary}', 'w'))()", "lambda functions are not allowed"),
    ("'{{0.__class__}}'.format(output)", "'.format()' is not available"),
    ("output.format_map(request_context)", "'.format_map()' is not available"),
    ("f'{{output.__class__}}'", "f-strings are not allowed"),
    ("import os", "imports are not allowed"),
    ("[x := 1]", "assignments (:=) are not allowed"),
    ("output.encode()", "'.encode()' is not available"),
    ("max.__self__", "names starting with '_' are not allowed"),
    ("len.__call__", "names starting with '_' are not allowed"),
    ("request_context.__class__", "names starting with '_' are not allowed"),
]


@pytest.mark.parametrize(("payload", "expected"), FORMULA_ESCAPES)
def test_formula_escapes_are_refused_before_anything_runs(
    payload: str, expected: str, canary: Path
) -> None:
    source = payload.format(canary=canary)
    message = _refused(lambda: formula(source)(run=RUN), FormulaError)
    assert expected in message


FORMULA_BOMBS = [
    ("9**9**9", "this number would be too large"),
    ("2**10000000", "this number would be too large"),
    ("10.0**1000", "a number got too large"),
    ("'a'*10**9", "this would make text or a list of 1,000,000,000 characters"),
    ("[1]*10**9", "this would make text or a list of 1,000,000,000"),
    ("10**1000 * 10**1000 * 10**1000", "this number would be too large"),
    ("int('9'*4000) ** 2", "this number would be too large"),
    ("output.replace('o', 'o'*999999)", "characters or items; the limit is 1,000,000"),
    ("'x'.join(['ab'*99999]*99)", "the limit is 1,000,000"),
    ("'%999999999d' % 1", "% works on numbers only"),
    (
        "[y for x in 'a'*10000 for y in 'a'*10000]",
        "the comprehension goes through more than 10,000",
    ),
    ("sum([len('a'*999999) for x in 'a'*5000])", "the formula does too much work"),
    ("str([[[[[['a'*1000]*100]*100]*100]*100]*100])", "the formula does too much work"),
    ("len(str([[['a'*1000]*100]*100]))", "too large to turn into text"),
    ("[[['a']*1000]*1000]*1000 == [[['a']*1000]*1000]*1000", "the formula does too much work"),
    ("contains([[['a']*1000]*1000]*1000, [['a']*1000]*1000)", "the formula does too much work"),
    ("len({((('a',)*1000,)*1000,)*1000: 1})", "the formula does too much work"),
    ("[[[[[[['x']*100]*100]*100]*100]*100]*100]", "too large to turn into text"),
    ("round(5, -10**9)", "round() takes a whole number of digits from -15 to 15"),
]


@pytest.mark.parametrize(("payload", "expected"), FORMULA_BOMBS)
def test_formula_resource_bombs_stop_with_a_clear_error(payload: str, expected: str) -> None:
    message = _refused(lambda: formula(payload)(run=RUN), FormulaError)
    assert expected in message


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ("(" * 999 + "1" + ")" * 999, "too many nested parentheses"),
        ("[" * 999 + "]" * 999, "too many nested parentheses"),
        ("-" * 1999 + "1", "nested more than 50 levels deep"),
        ("not " * 499 + "1", "nested more than 50 levels deep"),
        ("1" + "+1" * 999, "nested more than 50 levels deep"),
        ("x" * 1_000_000, "the formula is 1,000,000 characters long; the limit is 2,000"),
        ("len(output) " * 1000, "the limit is 2,000"),
    ],
)
def test_deep_or_long_formulas_are_refused_when_built(payload: str, expected: str) -> None:
    message = _refused(lambda: formula(payload), FormulaError)
    assert expected in message


def test_item_access_reads_data_never_attributes() -> None:
    assert formula("request_context['__class__']")(run=RUN) == "just data"
    message = _refused(lambda: formula("output['__class__']")(run=RUN), FormulaError)
    assert "pick an item with a whole number" in message


def test_formula_functions_are_deterministic_and_offer_no_randomness() -> None:
    for name in ("rand", "randint", "random", "time", "now"):
        assert f"the function '{name}' is unknown" in _refused(
            lambda name=name: formula(f"{name}()"), FormulaError
        )


FORMULA_PIECES = [
    *"abcdefgijklmnoprstuvwxyz_019.,()[]{}'\"+-*/%<>=!:~&| \n",
    *["output", "input", "len", "__class__", "**", " for x in ", " if ", " else ", "lambda"],
    *["results", "9**9", "str(", "mean(", ".lower()", "'a'*"],
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(FORMULA_PIECES), max_size=40).map("".join))
def test_any_text_either_works_or_fails_with_a_formula_error(text: str) -> None:
    started = time.perf_counter()
    try:
        formula(text)(run=RUN)
    except FormulaError as error:
        message = str(error)
        assert message.startswith("The formula")
    assert time.perf_counter() - started < TIME_LIMIT_S


# --- Templates -------------------------------------------------------------------------------

TEMPLATE_ESCAPES = [
    ("{{{{ ''.__class__.__mro__ }}}}", "templates cannot read '__class__'"),
    ("{{{{ ''.__class__.__mro__[1].__subclasses__() }}}}", "templates cannot read '__class__'"),
    ("{{{{ output.__class__.__subclasses__() }}}}", "templates cannot read '__class__'"),
    (
        "{{{{ cycler.__init__.__globals__.os.popen('touch {canary}').read() }}}}",
        "unknown variable 'cycler'",
    ),
    ("{{{{ lipsum.__globals__['os'].popen('touch {canary}') }}}}", "unknown variable 'lipsum'"),
    ("{{{{ joiner.__init__.__globals__ }}}}", "unknown variable 'joiner'"),
    ("{{{{ namespace.__init__ }}}}", "unknown variable 'namespace'"),
    (
        "{{{{ self._TemplateReference__context }}}}",
        "templates cannot read '_TemplateReference__context'",
    ),
    ("{{{{ self.__init__.__globals__ }}}}", "templates cannot read '__init__'"),
    ("{{{{ config }}}}", "unknown variable 'config'"),
    ("{{{{ config.items() }}}}", "unknown variable 'config'"),
    ("{{{{ request.application.__globals__ }}}}", "unknown variable 'request'"),
    ("{{{{ range.__globals__ }}}}", "templates cannot read '__globals__'"),
    ("{{{{ '{{0.__class__}}'.format(output) }}}}", "'.format' is not available on text"),
    ("{{{{ '{{0:>999999999}}'.format(1) }}}}", "'.format' is not available on text"),
    ("{{{{ output.format_map(request_context) }}}}", "'.format_map' is not available on text"),
    ("{{{{ output | attr('__class__') }}}}", "unknown filter 'attr'"),
    ("{{{{ output | map(attribute='__class__') | list }}}}", "templates cannot read '__class__'"),
    ("{{{{ output['__class__'] }}}}", "templates cannot read '__class__'"),
    ("{{{{ output | format('x') }}}}", "unknown filter 'format'"),
    ("{{{{ output | pprint }}}}", "unknown filter 'pprint'"),
    ("{{{{ output | random }}}}", "unknown filter 'random'"),
    ("{{{{ output.center(999999999) }}}}", "'.center' is not available on text"),
    ("{{{{ output.encode() }}}}", "'.encode' is not available on text"),
    ("{{% set l = [1] %}}{{{{ l.append(2) }}}}", "'.append' is not available on a list"),
    ("{{{{ request_context.update(k=1) }}}}", "'.update' is not available on an object"),
    ("{{% include '/etc/passwd' %}}", "extends, include and import are not available"),
    ("{{% from 'os' import system %}}", "extends, include and import are not available"),
    ("{{% extends '/etc/passwd' %}}", "extends, include and import are not available"),
]


@pytest.mark.parametrize(("payload", "expected"), TEMPLATE_ESCAPES)
def test_template_escapes_are_refused(payload: str, expected: str, canary: Path) -> None:
    source = payload.format(canary=canary)
    message = _refused(lambda: template(source)(run=RUN), TemplateError)
    assert expected in message


BIG_PAIR = "{% set y = [['a'] * 1000] * 990 %}{% set z = [y] * 1000 %}{% set w = [y] * 1000 %}"
"""Two distinct lists of about a billion nested parts each, built cheaply by repetition."""

TEMPLATE_BOMBS = [
    ("{% for x in range(10**9) %}{% endfor %}", "range() may give at most 10,000 numbers"),
    ("{{ range(10**30) | list }}", "range() may give at most 10,000 numbers"),
    ("{% for a in range(10000) %}{% for b in range(10000) %}{% endfor %}{% endfor %}",
     "loops or calls more than 100,000 times"),
    ("{{ 'a' * 10**9 }}", "this would make text or a list of 1,000,000,000 characters"),
    ("{{ [1] * 10**9 }}", "this would make text or a list of 1,000,000,000"),
    ("{{ 9 ** (9 ** 9) }}", "this number would be too large"),
    ("{{ 10 ** 10000 }}", "this number would be too large"),
    ("{{ '%999999999d' % 1 }}", "% formatting of text is not available"),
    ("{% set s = 'aaaaaaaaaa' %}" + "{% set s = s ~ s %}" * 40 + "{{ s | length }}",
     "this would make text or a list of"),
    ("{% set s = output %}" + "{% set s %}{{ s }}{{ s }}{% endset %}" * 40,
     "the template builds more than 5,000,000 characters"),
    ("{% for i in range(10000) %}" + "x" * 1000 + "{% endfor %}",
     "the prompt would be longer than 200,000 characters"),
    ("{% set s %}{% for i in range(10000) %}" + "x" * 1000 + "{% endfor %}{% endset %}ok",
     "the template builds more than 5,000,000 characters"),
    ("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(40) }}",
     "loops or calls more than 100,000 times"),
    ("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", "a macro calls itself too deeply"),
    ("{{ output | replace('o', 'o' * 999999) }}", "the limit is 1,000,000"),
    ("{{ ([output] * 999999) | join('x' * 999) }}", "the limit is 1,000,000"),
    ("{{ [[[[['x'] * 100] * 100] * 100] * 100] }}", "would have 1,020,204 parts"),
    (BIG_PAIR + "{{ z }}", "too large to turn into text"),
    (BIG_PAIR + "{{ z | json }}", "too large to turn into text"),
    (BIG_PAIR + "{{ z | join }}", "too large to turn into text"),
    (BIG_PAIR + "{{ z == w }}", "compares or sorts more than 5,000,000 parts"),
    (BIG_PAIR + "{{ z in [w] }}", "compares or sorts more than 5,000,000 parts"),
    (BIG_PAIR + "{{ z | sort | length }}", "compares or sorts more than 5,000,000 parts"),
    (BIG_PAIR + "{{ z | unique | list | length }}", "compares or sorts more than 5,000,000"),
    (BIG_PAIR + "{{ z is eq(w) }}", "compares or sorts more than 5,000,000 parts"),
    (BIG_PAIR + "{{ z | map('max') | list | length }}", "compares or sorts more than"),
    (BIG_PAIR + "{{ y | select('eq', w) | list | length }}", "compares or sorts more than"),
    (BIG_PAIR + "{{ [z, w] }}", "builds, compares or sorts more than"),
    (BIG_PAIR + "{% set v = [['a'] * 1000] * 990 %}{{ z.count(v) }}", "compares or sorts more"),
    ("{{ ([[1] * 1000] * 1000) | sum(start=[]) }}", "sum adds numbers only"),
    ("{{ output | indent(999999999) }}", "indent() takes a width of at most 100"),
    ("{{ output | indent('x' * 999) }}", "indent() takes a width of at most 100"),
]  # fmt: skip


@pytest.mark.parametrize(("payload", "expected"), TEMPLATE_BOMBS)
def test_template_resource_bombs_stop_with_a_clear_error(payload: str, expected: str) -> None:
    message = _refused(lambda: template(payload)(run=RUN), TemplateError)
    assert expected in message


@pytest.mark.parametrize(
    ("payload", "expected"),
    [
        ("{{ " + "(" * 1000 + "1" + ")" * 1000 + " }}", "nested too deeply"),
        ("{% for x in output %}" * 25 + "{% endfor %}" * 25, "nests loops, ifs or brackets too"),
        ("{% if 1 %}" * 150 + "x" + "{% endif %}" * 150, "nests loops, ifs or brackets too"),
        ("x" * 50_001, "the template is 50,001 characters long; the limit is 50,000"),
    ],
)
def test_deep_or_long_templates_are_refused_when_built(payload: str, expected: str) -> None:
    message = _refused(lambda: template(payload), TemplateError)
    assert expected in message


def test_data_is_never_evaluated_as_template_code() -> None:
    run = ScorerRun(input="{{ 7 * 7 }}", output="{% for x in range(9) %}x{% endfor %}", run_id="r")
    assert template("{{ input }}|{{ output }}")(run=run) == (
        "{{ 7 * 7 }}|{% for x in range(9) %}x{% endfor %}"
    )


def test_each_render_has_its_own_budget_across_threads() -> None:
    # 60,000 loop steps each: within one render's budget, over it if budgets were shared.
    heavy = template("{% for a in range(6) %}{% for b in range(10000) %}{% endfor %}{% endfor %}ok")
    with ThreadPoolExecutor(max_workers=4) as pool:
        outputs = list(pool.map(lambda _: heavy(run=RUN), range(8)))
    assert outputs == ["ok"] * 8


TEMPLATE_PIECES = [
    *"{}%#~|()[]'\". abcxyz_019+*-\n",
    *["{{", "}}", "{%", "%}", "for ", " in ", "endfor", "if ", "endif", "output", "range("],
    *["__class__", "set ", "macro ", "endmacro", "**", "|join", "|upper"],
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TEMPLATE_PIECES), max_size=40).map("".join))
def test_any_text_either_renders_or_fails_with_a_template_error(text: str) -> None:
    started = time.perf_counter()
    try:
        assert isinstance(template(text)(run=RUN), str)
    except TemplateError as error:
        message = str(error)
        assert message.startswith("The template")
    assert time.perf_counter() - started < TIME_LIMIT_S
