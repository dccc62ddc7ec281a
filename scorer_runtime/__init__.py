"""Scorer runtime: build LLM-judge scorers as a pipeline of steps, run them, read the evidence.

A scorer runs up to four steps in order — preprocess, analyze, generate_score (required),
generate_reason — each a plain function or a prompt answered by an LLM judge::

    from scorer_runtime import create_scorer

    scorer = create_scorer(id="length", description="Long enough answers").generate_score(
        lambda run: 1.0 if len(run.output) > 20 else 0.0
    )
    result = scorer.run_sync(input="Hi", output="Hello! How can I help you today?")
"""

from scorer_runtime.agent import (
    AgentMessage,
    AgentRunInput,
    extract_tool_calls,
    filter_run,
    get_assistant_message_from_run_output,
    get_combined_system_prompt,
    get_conversation_history,
    get_reasoning_from_run_output,
    get_system_messages_from_run_input,
    get_tool_results,
    get_user_message_from_run_input,
)
from scorer_runtime.errors import (
    ErrorKind,
    JudgeFormatError,
    OutputRejectedError,
    ProviderError,
    ScorerDefinitionError,
    ScorerRunError,
)
from scorer_runtime.judge import Judge
from scorer_runtime.judge.fence import as_data
from scorer_runtime.judge.worked import WorkedExample
from scorer_runtime.processors import (
    OutputGuard,
    RedactPII,
    RetryMatcher,
    StreamErrorRetryProcessor,
    TruncateInput,
)
from scorer_runtime.results import (
    JudgeExecution,
    NotScorable,
    ProviderCall,
    ScoreResult,
    Usage,
    not_scorable,
)
from scorer_runtime.run import ScorerRun, StepResults
from scorer_runtime.scorer import Scorer, create_scorer
from scorer_runtime.steps import PromptStep
from scorer_runtime.types import STEP_ORDER, StepName

__all__ = [
    "STEP_ORDER",
    "AgentMessage",
    "AgentRunInput",
    "ErrorKind",
    "Judge",
    "JudgeExecution",
    "JudgeFormatError",
    "NotScorable",
    "OutputGuard",
    "OutputRejectedError",
    "PromptStep",
    "ProviderCall",
    "ProviderError",
    "RedactPII",
    "RetryMatcher",
    "ScoreResult",
    "Scorer",
    "ScorerDefinitionError",
    "ScorerRun",
    "ScorerRunError",
    "StepName",
    "StepResults",
    "StreamErrorRetryProcessor",
    "TruncateInput",
    "Usage",
    "WorkedExample",
    "as_data",
    "create_scorer",
    "extract_tool_calls",
    "filter_run",
    "get_assistant_message_from_run_output",
    "get_combined_system_prompt",
    "get_conversation_history",
    "get_reasoning_from_run_output",
    "get_system_messages_from_run_input",
    "get_tool_results",
    "get_user_message_from_run_input",
    "not_scorable",
]
