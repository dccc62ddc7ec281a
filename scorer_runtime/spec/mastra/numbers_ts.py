"""Whole numbers written with a decimal point (``89.0``) shown as Python shows them.

Python reads ``89.0`` in JSON as a float and prints it ``89.0``; JavaScript keeps one kind
of number and prints ``89``. The exported module's ``readJson`` parses JSON text (examples
saved by the studio, a dataset line) and remembers, per object or list, which of its
numbers were written that way; the helpers that show data as text ask ``wholeFloat``. The
data itself stays plain numbers, so formulas and checks see exactly what they saw before.
"""

from __future__ import annotations

NUMBER_HELPERS: dict[str, str] = {
    "wholeFloat": """const wholeFloats = new WeakMap<object, Set<string>>()

/**
 * JSON text as data, as Python reads it: a whole number written with a decimal point
 * (89.0) is remembered, so prompts and reasons show it as 89.0, as the studio does.
 * Parse examples saved as JSON with it instead of JSON.parse.
 */
export function readJson(text: string): any {
  return JSON.parse(text, function (this: any, key: string, value: any, context?: any) {
    const source: string = context?.source ?? ''
    if (typeof value === 'number' && Number.isInteger(value) && /[.eE]/.test(source)) {
      wholeFloats.set(this, (wholeFloats.get(this) ?? new Set<string>()).add(key))
    }
    return value
  })
}

function wholeFloat(holder: any, key: string | number): boolean {
  if (holder === null || typeof holder !== 'object') return false
  return wholeFloats.get(holder)?.has(String(key)) ?? false
}""",
    "shownText": """function shownText(value: any, holder: any, key: string | number): string {
  return typeof value === 'number' && wholeFloat(holder, key) ? floatText(value) : toText(value)
}""",
    "fieldText": """function fieldText(value: any, key: string | number, where: string): string {
  const found = field(value, key, where)
  const negative = Array.isArray(value) && typeof key === 'number' && key < 0
  return shownText(found, value, negative ? value.length + (key as number) : key)
}""",
}

NUMBER_HELPERS.update(
    {
        "fieldEntry": """function fieldEntry(value: any, key: any, where: string): [any, boolean] {
  const found = field(value, key, where)
  const negative = Array.isArray(value) && typeof key === 'number' && key < 0
  return [found, wholeFloat(value, negative ? value.length + (key as number) : key)]
}""",
        "gather": """function gather(
  items: any[],
  keep: (item: any) => boolean,
  pick: (item: any, i: number, all: any[]) => [any, boolean],
): any[] {
  // [... for x in items if ...]: item by item, as Python; a whole float stays 3.0 in the list.
  const made: any[] = []
  for (const [i, item] of items.entries()) {
    if (!keep(item)) continue
    const [value, whole] = pick(item, i, items)
    if (whole) {
      wholeFloats.set(made, (wholeFloats.get(made) ?? new Set<string>()).add(String(made.length)))
    }
    made.push(value)
  }
  return made
}""",
    }
)

NUMBER_NEEDS: dict[str, tuple[str, ...]] = {
    "fieldEntry": ("field", "wholeFloat"),
    "gather": ("wholeFloat",),
    "shownText": ("wholeFloat", "floatText", "toText"),
    "fieldText": ("field", "shownText"),
}
