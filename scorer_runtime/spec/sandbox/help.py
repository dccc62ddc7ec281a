"""Help texts for the studio's panels: the names formulas and templates read, the filters.

Plain data only (no Jinja import), so a help panel costs nothing to show.
"""

from __future__ import annotations

CONTEXT_VARIABLES: list[tuple[str, str]] = [
    ("input", "What the user asked: text, or the agent's input messages for an agent scorer."),
    ("output", "The answer being scored: text, or the agent's messages for an agent scorer."),
    ("ground_truth", "The expected answer of the example, when it has one (else empty)."),
    ("request_context", "Extra context sent with the request (an object), when there is one."),
    ("step1", "What step 1 (prepare) gave, in the steps after it, e.g. step1.summary."),
    ("step2", "What step 2 (analyse) gave, in the steps after it, e.g. step2.solved for the "
     "field 'solved' of the judge's answer."),
    ("step3", "What step 3 (score) gave, in the reason step (step 4) only."),
    ("score", "The score, in the reason step (step 4) only."),
    ("judge_output", "The judge's structured answer, when turning it into a score "
     "(e.g. judge_output.score)."),
    ("extra", "Any other fields of the example, e.g. extra.trace_id."),
    ("results", "The older way to write step1, step2 and step3 (results.analyze_step_result "
     "is step2); still read, so scorers written with it keep working."),
]  # fmt: skip
"""(name, description) of every name a formula or template reads, in the studio's order."""

AGENT_FILTERS: list[tuple[str, str]] = [
    ("user_message", "The text of the user's message: {{ input | user_message }}"),
    ("assistant_message", "The text of the agent's first answer: {{ output | assistant_message }}"),
    ("system_prompt", "All system prompts, joined by a blank line: {{ input | system_prompt }}"),
    ("history", "The conversation so far, as a list of {role, content}: "
     "{% for m in input | history %}{{ m.role }}: {{ m.content }}\n{% endfor %}"),
    ("tool_calls", "The names of the tools the agent called, in order: "
     "{{ output | tool_calls | join(', ') }}"),
    ("tool_results", "The tool calls that have a result, each with tool_name, args and result: "
     "{{ output | tool_results | json }}"),
    ("json", "A value as pretty JSON (indent=2 unless given): {{ judge_output | json }}"),
]  # fmt: skip

STANDARD_FILTERS: list[tuple[str, str]] = [
    ("abs", "The number without its sign."),
    ("capitalize", "First letter upper case, the rest lower case."),
    ("count", "How many items (same as length)."),
    ("default", "A fallback for an empty value: {{ ground_truth | default('none given', true) }}"),
    ("dictsort", "An object's fields as sorted (key, value) pairs."),
    ("first", "The first item of a list."),
    ("float", "A number from text: {{ '0.5' | float }}"),
    ("groupby", "Group a list of objects by a field: {% for g in items | groupby('kind') %}"),
    ("indent", "Indent every line but the first by N spaces (at most 100): {{ text | indent(4) }}"),
    ("int", "A whole number from text or a number."),
    ("items", "An object's (key, value) pairs: {% for k, v in extra | items %}"),
    ("join", "Join a list into text: {{ output | tool_calls | join(', ') }}"),
    ("last", "The last item of a list."),
    ("length", "How many characters or items: {{ output | length }}"),
    ("list", "Make a list (of the characters of text, or the items of a list)."),
    ("lower", "Text in lower case."),
    ("map", "Apply a filter or read a field on every item: {{ claims | map(attribute='text') }}"),
    ("max", "The largest item."),
    ("min", "The smallest item."),
    ("reject", "Leave out the items that pass a test."),
    ("rejectattr", "Leave out the objects whose field passes a test."),
    ("replace", "Replace text: {{ output | replace('\\n', ' ') }}"),
    ("reverse", "The items (or characters) in reverse order."),
    ("round", "Round a number: {{ score | round(2) }}"),
    ("select", "Keep the items that pass a test."),
    ("selectattr", "Keep the objects whose field passes a test: "
     "{{ claims | selectattr('supported') | list }}"),
    ("sort", "The items sorted."),
    ("string", "A value as text (lists and objects as JSON)."),
    ("striptags", "Text without HTML tags."),
    ("sum", "The total of a list of numbers."),
    ("title", "Every Word Capitalised."),
    ("trim", "Text without spaces at both ends."),
    ("truncate", "Text cut to a length, with '...': {{ output | truncate(2000) }}"),
    ("unique", "The items without repeats."),
    ("upper", "Text in upper case."),
    ("wordcount", "How many words the text has."),
]  # fmt: skip
"""The Jinja built-in filters a template may use (the others are switched off)."""

TEMPLATE_FILTERS: list[tuple[str, str]] = AGENT_FILTERS + STANDARD_FILTERS
"""(name, description) of every filter a template may use, for the studio's help panel."""
