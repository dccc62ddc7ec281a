"""Changing one example before it is scored, as a health check's run says (plain data).

A perturbation is stored on the run as a small JSON object (see :class:`Perturbation`), so a
runner that claims the run from the queue changes the examples exactly as the check meant,
and the change happens to the run's values *before* any prompt is built: the judge reads it
inside whatever the scorer's template puts around the answer.

- ``append``: the text is added to the answer (after a blank line; for an agent's messages,
  as one more assistant message);
- ``replace``: the answer is replaced by one of the texts (chosen by the example's id, so
  every text is used and a resumed run picks the same one);
- ``swap``: the answer and the expected answer change places.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Operation = Literal["append", "replace", "swap"]


@dataclass(frozen=True, slots=True)
class Perturbation:
    """One family's change to every example of a run: what to do, with which texts."""

    family: str
    operation: Operation
    texts: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The form stored on the run."""
        return {"family": self.family, "operation": self.operation, "texts": list(self.texts)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Perturbation:
        """The perturbation a run stores (see :meth:`to_json`)."""
        operation = str(data["operation"])
        if operation not in ("append", "replace", "swap"):
            raise ValueError(f"unknown perturbation {operation!r}")
        texts = tuple(str(text) for text in data.get("texts", ()))
        return cls(str(data["family"]), operation, texts)  # type: ignore[arg-type]


def perturbed_values(
    perturbation: Perturbation, *, example_id: int, output: Any, ground_truth: Any
) -> tuple[Any, Any]:
    """The answer and the expected answer of one example, changed as ``perturbation`` says."""
    if perturbation.operation == "swap":
        return ground_truth, output
    if not perturbation.texts:
        return output, ground_truth
    if perturbation.operation == "replace":
        text = perturbation.texts[example_id % len(perturbation.texts)]
        return _replaced(output, text), ground_truth
    return _appended(output, perturbation.texts[0]), ground_truth


def _appended(output: Any, text: str) -> Any:
    if isinstance(output, list):  # an agent's messages: one more from the assistant
        return [*output, {"role": "assistant", "content": text}]
    if output is None:
        return text
    return f"{output if isinstance(output, str) else str(output)}\n\n{text}"


def _replaced(output: Any, text: str) -> Any:
    if isinstance(output, list):
        return [{"role": "assistant", "content": text}]
    return text
