"""The small TypeScript functions an exported Mastra module carries (only those it uses).

Each mirrors one behaviour of the Python runtime: Python truthiness, text as prompts and
formulas show it (``to_text``), missing fields and division by zero as errors, and the
built-in functions and steps. ``needs`` lists the helpers each one calls.
"""

from __future__ import annotations

HELPERS: dict[str, str] = {
    "scoreValue": """function scoreValue(value: any): any {
  if (isNotScorable(value)) return value
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return fail(`generate_score must return a finite number, but returned ${toText(value)}`)
  }
  return value
}""",
    "reasonText": """function reasonText(value: any): string {
  if (typeof value !== 'string') {
    return fail(`generate_reason must return text, but returned ${toText(value)}`)
  }
  return value
}""",
    "fail": """function fail(message: string): never {
  throw new Error(message)
}""",
    "truthy": """function truthy(value: any): boolean {
  if (Array.isArray(value) || typeof value === 'string') return value.length > 0
  if (value && typeof value === 'object') return Object.keys(value).length > 0
  return Boolean(value)
}""",
    "field": """function field(value: any, key: string | number, where: string): any {
  if (Array.isArray(value) || typeof value === 'string') {
    const index = typeof key === 'number' && key < 0 ? value.length + key : key
    if (typeof index === 'number' && index >= 0 && index < value.length) return value[index]
  } else if (value && typeof value === 'object' && Object.hasOwn(value, key)) {
    return value[key]
  }
  return fail(`${where} has no field ${JSON.stringify(key)}`)
}""",
    "fieldOr": """function fieldOr(value: any, key: any, fallback: any, boolean: any): any {
  // Jinja's default filter: the fallback where the field is missing (or false, if asked).
  let found: any[] = []
  if (Array.isArray(value) || typeof value === 'string') {
    const index = typeof key === 'number' && key < 0 ? value.length + key : key
    if (typeof index === 'number' && index >= 0 && index < value.length) found = [value[index]]
  } else if (value && typeof value === 'object' && Object.hasOwn(value, key)) {
    found = [value[key]]
  }
  return found.length && !(truthy(boolean) && !truthy(found[0])) ? found[0] : fallback
}""",
    "floatText": """function floatText(value: number): string {
  if (Object.is(value, -0)) return '-0.0'
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf'
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return value.toFixed(1)
  const text = String(value)
  const exponent = Math.floor(Math.log10(Math.abs(value)))
  if (exponent >= 16 || exponent < -4) {
    const [digits, power] = value.toExponential().split('e')
    const sign = power.startsWith('-') ? '-' : '+'
    return `${digits}e${sign}${power.replace(/^[-+]/, '').padStart(2, '0')}`
  }
  return text
}""",
    "numberText": """function numberText(value: number): string {
  return Number.isInteger(value) ? String(value) : floatText(value)
}""",
    "jsonText": """function jsonText(value: any, float = false): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'number') return float ? floatText(value) : numberText(value)
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value)
  if (Array.isArray(value)) {
    return `[${value.map((v, i) => jsonText(v, wholeFloat(value, i))).join(', ')}]`
  }
  const pairs = Object.entries(value).map(
    ([k, v]) => `${JSON.stringify(k)}: ${jsonText(v, wholeFloat(value, k))}`,
  )
  return `{${pairs.join(', ')}}`
}""",
    "floatOrText": """function floatOrText(value: any): string {
  return typeof value === 'number' ? floatText(value) : toText(value)
}""",
    "toText": """function toText(value: any): string {
  if (typeof value === 'string') return value
  if (value === null || value === undefined) return ''
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (typeof value === 'number') return numberText(value)
  return jsonText(value)
}""",
    "dataNonce": """function dataNonce(): string {
  // A fresh code for one prompt's data markers: 16 random hex digits.
  const bytes = crypto.getRandomValues(new Uint8Array(8))
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')
}""",
    "dataFence": """function dataFence(text: string, nonce: string): string {
  // A printed value fenced as data (a number, true/false or nothing is left as it is); any
  // marker shape already in it is made harmless, so it can neither close nor open a block.
  const plain =
    /^(?:-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?|true|false|-?inf|nan|)$/
  if (plain.test(text)) return text
  const opening = /[<\\uff1c\\ufe64\\u2039\\u00ab]{3,}([ \\t]*)(data)/gi
  const closing = /(data)([ \\t]*[A-Za-z0-9_-]{0,64}[ \\t]*)[>\\uff1e\\ufe65\\u203a\\u00bb]{3,}/gi
  const clean = text.replace(opening, '\\u00ab$1$2').replace(closing, '$1$2\\u00bb')
  return `<<<DATA ${nonce}\\n${clean}\\nDATA ${nonce}>>>`
}""",
    "add": """function add(left: any, right: any): any {
  const kinds = [left, right].map((v) => (Array.isArray(v) ? 'list' : typeof v))
  if (kinds[0] !== kinds[1] || !['number', 'string', 'list'].includes(kinds[0])) {
    return fail(`cannot use + on ${kinds[0]} and ${kinds[1]}`)
  }
  return limitedText(kinds[0] === 'list' ? [...left, ...right] : left + right)
}""",
    "multiply": """function multiply(left: any, right: any): any {
  const numeric = (v: any) => typeof v === 'number' || typeof v === 'boolean'
  if (numeric(left) && numeric(right)) return Number(left) * Number(right)
  // Text or a list repeated a whole number of times, as Python does (within the same limit).
  const [items, times] = numeric(left) ? [right, left] : [left, right]
  const sized = typeof items === 'string' || Array.isArray(items)
  if (!sized || !numeric(times) || !Number.isInteger(Number(times))) {
    return fail('cannot use * on these values')
  }
  const count = Math.max(0, Number(times))
  const length = typeof items === 'string' ? [...items].length : items.length
  if (length * count > 1000000) return tooLong(length * count)
  if (typeof items === 'string') return items.repeat(count)
  return Array.from({ length: count }, () => items).flat(1)
}""",
    "divide": """function divide(left: number, right: number): number {
  if (right === 0) return fail('division by zero; guard it, e.g. a / b if b else 0')
  return left / right
}""",
    "equal": """function equal(left: any, right: any): boolean {
  const numeric = (v: any) => typeof v === 'number' || typeof v === 'boolean'
  if (numeric(left) && numeric(right)) return Number(left) === Number(right)  // True == 1
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((v, i) => equal(v, right[i]))
  }
  if (left && right && typeof left === 'object' && typeof right === 'object') {
    const keys = Object.keys(left)
    return keys.length === Object.keys(right).length && keys.every((k) => equal(left[k], right[k]))
  }
  return left === right || (left == null && right == null)
}""",
    "list": """function list(value: any, where: string): any[] {
  if (Array.isArray(value)) return value
  if (typeof value === 'string') return [...value]
  if (value && typeof value === 'object') return Object.keys(value)
  return fail(`[... for x in ${where}] needs a list there`)
}""",
    "len": """function len(value: any): number {
  if (typeof value === 'string') return [...value].length
  if (Array.isArray(value)) return value.length
  if (value && typeof value === 'object') return Object.keys(value).length
  return fail('len() needs text, a list or an object')
}""",
    "mean": """function mean(values: any): number {
  const numeric = (v: any) => typeof v === 'number' || typeof v === 'boolean'
  if (!Array.isArray(values) || !values.every(numeric)) {
    return fail('mean() needs a list of numbers')
  }
  if (values.length === 0) return fail('mean() of an empty list; guard it: mean(x) if x else 0')
  return fsum(values.map(Number)) / values.length
}""",
    "fsum": """function fsum(values: number[]): number {
  // Shewchuk's exact summation, as Python's math.fsum.
  const partials: number[] = []
  for (let x of values) {
    let i = 0
    for (let y of partials) {
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x]
      const hi = x + y
      const lo = y - (hi - x)
      if (lo) partials[i++] = lo
      x = hi
    }
    partials.length = i
    partials.push(x)
  }
  let total = 0
  for (const p of partials) total += p
  return total
}""",
    "round": """function round(value: number, digits?: number): number {
  if (typeof value !== 'number') return fail('round() needs a number')
  if (digits === undefined || digits === 0) {
    const floor = Math.floor(value)
    const rest = value - floor
    const whole = rest > 0.5 || (rest === 0.5 && floor % 2 !== 0) ? floor + 1 : floor
    return whole
  }
  return Number(value.toFixed(digits))
}""",
    "contains": """function contains(haystack: any, needle: any, ignoreCase = false): boolean {
  if (typeof haystack === 'string') {
    if (typeof needle !== 'string') return fail('contains() needs text')
    return ignoreCase
      ? haystack.toLowerCase().includes(needle.toLowerCase())
      : haystack.includes(needle)
  }
  if (Array.isArray(haystack)) return haystack.some((item) => equal(item, needle))
  if (haystack && typeof haystack === 'object') return Object.hasOwn(haystack, needle)
  return fail('contains() needs text, a list or an object')
}""",
    "labelKey": """function labelKey(value: any, caseSensitive: boolean): string {
  if (typeof value === 'boolean') return `bool:${value}`
  if (typeof value === 'number') return `number:${value}`
  const text = toText(value).trim()
  return `text:${caseSensitive ? text : fold(text)}`
}""",
}

_SPACE = r"[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"

TEXT_HELPERS: dict[str, str] = {
    "textOf": """function textOf(fn: string, value: any): string {
  if (typeof value !== 'string') return fail(`${fn}() needs text`)
  return value
}""",
    "lower": "function lower(text: any): string {\n  return textOf('lower', text).toLowerCase()\n}",
    "upper": "function upper(text: any): string {\n  return textOf('upper', text).toUpperCase()\n}",
    "strip": f"""function strip(text: any): string {{
  return textOf('strip', text).replace(/^{_SPACE}|{_SPACE}$/gu, '')
}}""",
    "lstrip": f"""function lstrip(text: any): string {{
  return textOf('lstrip', text).replace(/^{_SPACE}/u, '')
}}""",
    "rstrip": f"""function rstrip(text: any): string {{
  return textOf('rstrip', text).replace(/{_SPACE}$/u, '')
}}""",
    "removePrefix": """function removePrefix(text: any, start: any): string {
  const [whole, part] = [textOf('removeprefix', text), textOf('removeprefix', start)]
  return part && whole.startsWith(part) ? whole.slice(part.length) : whole
}""",
    "removeSuffix": """function removeSuffix(text: any, end: any): string {
  const [whole, part] = [textOf('removesuffix', text), textOf('removesuffix', end)]
  return part && whole.endsWith(part) ? whole.slice(0, whole.length - part.length) : whole
}""",
    "wordCount": """function wordCount(text: any): number {
  return words(textOf('words', text)).length
}""",
    "startsWith": """function startsWith(text: any, start: any): boolean {
  return textOf('startswith', text).startsWith(textOf('startswith', start))
}""",
    "endsWith": """function endsWith(text: any, end: any): boolean {
  return textOf('endswith', text).endsWith(textOf('endswith', end))
}""",
    "abs": """function abs(value: any): number {
  if (typeof value === 'boolean') return Number(value)
  if (typeof value !== 'number') return fail('abs() needs a number')
  return Math.abs(value)
}""",
}
HELPERS.update(TEXT_HELPERS)

NEEDS: dict[str, tuple[str, ...]] = {
    **{
        name: ("textOf",)
        for name in ("lower", "upper", "strip", "startsWith", "endsWith", "lstrip", "rstrip")
    },
    **{name: ("textOf",) for name in ("removePrefix", "removeSuffix")},
    "textOf": ("fail",),
    "wordCount": ("textOf", "words"),
    "abs": ("fail",),
    "scoreValue": ("fail", "toText"),
    "reasonText": ("fail", "toText"),
    "field": ("fail",),
    "fieldOr": ("truthy",),
    "numberText": ("floatText",),
    "jsonText": ("numberText", "floatText", "wholeFloat"),
    "toText": ("jsonText", "numberText"),
    "floatOrText": ("floatText", "toText"),
    "dataFence": ("dataNonce",),
    "add": ("fail", "limitedText"),
    "divide": ("fail",),
    "multiply": ("fail", "tooLong"),
    "list": ("fail",),
    "len": ("fail",),
    "mean": ("fail", "fsum"),
    "round": ("fail",),
    "contains": ("fail", "equal"),
    "labelKey": ("toText", "fold"),
}


def helper_sources(used: set[str]) -> list[str]:
    """The TypeScript of every helper in ``used`` and the helpers they call, in a fixed order."""
    from scorer_runtime.spec.mastra.agent_ts import AGENT_HELPERS, AGENT_NEEDS
    from scorer_runtime.spec.mastra.checks_ts import CHECK_HELPERS, CHECK_NEEDS
    from scorer_runtime.spec.mastra.functions_ts import (
        FUNCTION_HELPERS,
        FUNCTION_NEEDS,
        digit_zeros,
    )
    from scorer_runtime.spec.mastra.matching_ts import MATCHING_HELPERS, MATCHING_NEEDS
    from scorer_runtime.spec.mastra.numbers_ts import NUMBER_HELPERS, NUMBER_NEEDS
    from scorer_runtime.spec.mastra.prepare_ts import PREPARE_HELPERS, PREPARE_NEEDS
    from scorer_runtime.spec.mastra.processors_ts import PROCESSOR_HELPERS, PROCESSOR_NEEDS

    sources = {**HELPERS, **CHECK_HELPERS, **AGENT_HELPERS, **MATCHING_HELPERS}
    sources.update({**PROCESSOR_HELPERS, **NUMBER_HELPERS, **FUNCTION_HELPERS, **PREPARE_HELPERS})
    needs = {**NEEDS, **CHECK_NEEDS, **AGENT_NEEDS, **MATCHING_NEEDS, **PROCESSOR_NEEDS}
    needs.update({**NUMBER_NEEDS, **FUNCTION_NEEDS, **PREPARE_NEEDS})
    wanted: set[str] = set()
    todo = list(used)
    while todo:
        name = todo.pop()
        if name not in wanted:
            wanted.add(name)
            todo.extend(needs.get(name, ()))
    found = [sources[name] for name in sources if name in wanted]
    return [text.replace("[DIGIT_ZEROS]", f"[{digit_zeros()}]") for text in found]
