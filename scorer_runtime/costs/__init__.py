"""What a run costs: the estimate before it starts, and the spend cap it never passes."""

from scorer_runtime.costs.dataset_estimate import estimate_dataset, sample_dataset
from scorer_runtime.costs.estimate import (
    SAMPLE_SIZE,
    CostEstimate,
    SampleExample,
    estimate_cost,
    unpriced_words,
)

__all__ = [
    "SAMPLE_SIZE",
    "CostEstimate",
    "SampleExample",
    "estimate_cost",
    "estimate_dataset",
    "sample_dataset",
    "unpriced_words",
]
