"""Judge trust: how far a scorer's scores can be trusted.

``scale`` reads the scale a scorer grades on (pass/fail, its judge's labels, or a number), so a
person grades on the same scale the judge does; ``evidence`` holds the measured evidence that
the trust policy weighs (agreement with people, stability between repeats).
"""

from scorer_runtime.trust.evidence import FlipEvidence
from scorer_runtime.trust.scale import Scale, ScaleKind, scale_of

__all__ = ["FlipEvidence", "Scale", "ScaleKind", "scale_of"]
