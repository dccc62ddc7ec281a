"""Built-in checks as TypeScript expressions over ``ctx`` (those with a translation so far)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scorer_runtime.spec.builtins.labels import LabelToScoreParams, ProportionParams
from scorer_runtime.spec.mastra.agent_ts import agent_call
from scorer_runtime.spec.mastra.checks_ts import check_call
from scorer_runtime.spec.mastra.formula_ts import Untranslatable
from scorer_runtime.spec.mastra.matching_ts import matching_call


def _path(path: str) -> str:
    code = "ctx"
    walked: list[str] = []
    for part in path.split("."):
        key = part if not part.lstrip("-").isdigit() else int(part)
        code = f"field({code}, {json.dumps(key)}, {json.dumps('.'.join(walked) or 'the run')})"
        walked.append(part)
    return code


def builtin_call(use: str, params: Mapping[str, Any], where: str) -> tuple[str, set[str]]:
    """The expression computing built-in ``use`` with ``params``, and the helpers it needs."""
    if use == "label_to_score":
        p = LabelToScoreParams.model_validate(dict(params))
        case = "true" if p.case_sensitive else "false"
        table = ", ".join(
            f"[labelKey({json.dumps(k, ensure_ascii=False)}, {case}), {v}]"
            for k, v in p.mapping.items()
        )
        default = "undefined" if p.default is None else str(p.default)
        label = f"asText({_path(p.field)}, {json.dumps(p.field)})"  # read as text, as in Python
        code = (
            f"((label: string) => new Map<string, number>([{table}]).get(labelKey(label, {case}))"
            f" ?? {default} ?? fail(`label_to_score: the label ${{label}} is not one of"
            f" the known labels`))({label})"
        )
        return code, {"labelKey", "field", "fail", "asText"}
    if use == "proportion":
        return _proportion(ProportionParams.model_validate(dict(params)))
    checked = (
        check_call(use, params, _path, where)
        or agent_call(use, params, _path)
        or matching_call(use, params, _path)
    )
    if checked is not None:
        code, used = checked
        return code, used | {"field"}  # the paths read with field()
    raise Untranslatable(f"the built-in check {use!r}")


def _proportion(p: ProportionParams) -> tuple[str, set[str]]:
    case = "true" if p.case_sensitive else "false"
    wanted = p.equals if isinstance(p.equals, list) else [p.equals]
    hits = ", ".join(f"labelKey({json.dumps(v)}, {case})" for v in wanted)
    value = "item" if p.key is None else f"field(item, {json.dumps(p.key)}, 'an item')"
    empty = (
        str(p.if_empty)
        if p.if_empty is not None
        else f"notScorable('proportion: {p.items_field} has no items to count')"
    )
    code = (
        f"((items: any) => items == null || (Array.isArray(items) && items.length === 0) ? "
        f"{empty} : list(items, {json.dumps(p.items_field)}).filter((item: any) => "
        f"[{hits}].includes(labelKey({value}, {case}))).length / items.length)"
        f"({_path(p.items_field)})"
    )
    return code, {"labelKey", "field", "list"}
