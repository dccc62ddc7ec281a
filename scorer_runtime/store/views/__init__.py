"""Queries shaped for one studio page each: what a page shows, read in as few statements as it
can. Entities (scorers, runs, datasets, ...) live one level up in :mod:`scorer_runtime.store`;
a query moves here when exactly one page needs its shape.

- ``overview``: Home; ``scorer_list``: Scorers; ``run_lines``: Runs; ``examples_page``:
  Examples; ``judge_usage``: Judges; ``traces_page``: Traces; ``results_page`` and
  ``compare``: Results (browse, and two runs side by side); ``rules_page``: Monitor.
"""

from scorer_runtime.store.views.compare import (
    MISSING,
    CompareRow,
    CompareSummary,
    RunFacts,
    RunPair,
    SideScore,
    compare_rows,
    compare_summary,
    count_rows,
    default_pair,
    example_inputs,
    example_numbers,
    iter_comparison,
    latest_run,
    run_facts,
)
from scorer_runtime.store.views.examples_page import (
    DatasetRow,
    DatasetUsage,
    NumberedExamplePage,
    dataset_rows,
    dataset_usage,
    example_score_counts,
    numbered_example_page,
)
from scorer_runtime.store.views.judge_usage import (
    ProfileUsage,
    profile_usage_by_name,
)
from scorer_runtime.store.views.overview import (
    KeyNameUse,
    Overview,
    key_name_uses,
    latest_runs,
    read_overview,
)
from scorer_runtime.store.views.results_page import (
    MAX_TREND_VERSIONS,
    TrendPoint,
    Trends,
    get_score_with_example,
    scorer_titles,
    version_trends,
)
from scorer_runtime.store.views.rules_page import (
    RuleLine,
    RuleScoreLine,
    RuleWindow,
    RuleWindows,
    newest_alerts,
    newest_rule_scores,
    rule_lines,
    rule_windows,
)
from scorer_runtime.store.views.run_lines import (
    RunLine,
    RunsPage,
    cached_answer_counts,
    run_line,
    runs_page,
)
from scorer_runtime.store.views.scorer_list import (
    SCORER_PAGE_SIZE,
    ScorerLine,
    ScorerPage,
    scorer_page,
)
from scorer_runtime.store.views.traces_page import (
    AgentScorerVersion,
    StoredTraceScore,
    TraceScoreLine,
    agent_scorer_versions,
    stored_trace_score,
    trace_score_counts,
    trace_scores,
)

__all__ = [
    "MAX_TREND_VERSIONS",
    "MISSING",
    "SCORER_PAGE_SIZE",
    "AgentScorerVersion",
    "CompareRow",
    "CompareSummary",
    "DatasetRow",
    "DatasetUsage",
    "KeyNameUse",
    "NumberedExamplePage",
    "Overview",
    "ProfileUsage",
    "RuleLine",
    "RuleScoreLine",
    "RuleWindow",
    "RuleWindows",
    "RunFacts",
    "RunLine",
    "RunPair",
    "RunsPage",
    "ScorerLine",
    "ScorerPage",
    "SideScore",
    "StoredTraceScore",
    "TraceScoreLine",
    "TrendPoint",
    "Trends",
    "agent_scorer_versions",
    "cached_answer_counts",
    "compare_rows",
    "compare_summary",
    "count_rows",
    "dataset_rows",
    "dataset_usage",
    "default_pair",
    "example_inputs",
    "example_numbers",
    "example_score_counts",
    "get_score_with_example",
    "iter_comparison",
    "key_name_uses",
    "latest_run",
    "latest_runs",
    "newest_alerts",
    "newest_rule_scores",
    "numbered_example_page",
    "profile_usage_by_name",
    "read_overview",
    "rule_lines",
    "rule_windows",
    "run_facts",
    "run_line",
    "runs_page",
    "scorer_page",
    "scorer_titles",
    "stored_trace_score",
    "trace_score_counts",
    "trace_scores",
    "version_trends",
]
