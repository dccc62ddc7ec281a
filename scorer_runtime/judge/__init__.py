"""The LLM judge: its configuration, the one litellm client, structured output and execution."""

from scorer_runtime.judge.config import JsonPromptInjection, Judge

__all__ = ["JsonPromptInjection", "Judge"]
