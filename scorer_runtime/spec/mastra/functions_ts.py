"""The formula functions ``min``/``max``/``sum``/``any``/``all``/``int``/``float``/``bool`` and
the text methods ``replace``/``split``, as TypeScript with Python's results and failures.

``order`` compares as Python's ``<`` does (numbers with true/false, texts by code point,
lists item by item, anything else a failure), so ``min``/``max`` and the formula's
``<``/``>`` agree with the sandbox, including the values they refuse.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from scorer_runtime.spec.mastra.ts_helpers import _SPACE

_DIGITS = r"\d(?:_?\d)*"

FUNCTION_HELPERS: dict[str, str] = {
    "order": """function order(what: string, a: any, b: any): number {
  const numeric = (v: any) => typeof v === 'number' || typeof v === 'boolean'
  if (numeric(a) && numeric(b)) return Number(a) < Number(b) ? -1 : Number(a) > Number(b) ? 1 : 0
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [[...a], [...b]]
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return x[i].codePointAt(0)! < y[i].codePointAt(0)! ? -1 : 1
    }
    return Math.sign(x.length - y.length)
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const [x, y] = [a[i], b[i]]
      if (!equal(x, y)) return order(what, x, y)
    }
    return Math.sign(a.length - b.length)
  }
  return fail(`${what} cannot compare ${kindOf(a)} and ${kindOf(b)}`)
}""",
    "kindOf": """function kindOf(value: any): string {
  if (value === null || value === undefined) return 'nothing (None)'
  if (typeof value === 'boolean') return 'true/false'
  if (typeof value === 'number') return 'a number'
  if (typeof value === 'string') return 'text'
  return Array.isArray(value) ? 'a list' : 'an object'
}""",
    "extreme": """function extreme(fn: string, args: any[], wanted: number, fallback?: [any]): any {
  if (!args.length) return fail(`${fn}() needs a list or at least one value`)
  const items = args.length === 1 && Array.isArray(args[0]) ? args[0] : args
  if (!items.length) {
    if (fallback) return fallback[0]
    return fail(`${fn}() of an empty list; give a default: ${fn}(x, default=0)`)
  }
  let best = items[0]
  for (const item of items.slice(1)) if (order(`${fn}()`, item, best) === wanted) best = item
  return best
}""",
    "sumOf": """function sumOf(values: any): number {
  const numeric = (v: any) => typeof v === 'number' || typeof v === 'boolean'
  if (!Array.isArray(values)) return fail(`sum() needs a list of numbers; got ${kindOf(values)}`)
  let total = 0
  for (const value of values) {
    if (!numeric(value)) return fail(`sum() needs a number; got ${kindOf(value)}`)
    total += Number(value)
  }
  return total
}""",
    "truths": """function truths(fn: string, values: any): any[] {
  if (!Array.isArray(values)) return fail(`${fn}() needs a list; got ${kindOf(values)}`)
  return values
}""",
    "toFloat": f"""function toFloat(value: any): number {{
  if (typeof value === 'number' || typeof value === 'boolean') return Number(value)
  if (typeof value !== 'string') {{
    return fail(`float() needs a number or text; got ${{kindOf(value)}}`)
  }}
  const text = asciiDigits(strip(value))
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text)
  if (special) {{
    const size = special[2].toLowerCase() === 'nan' ? NaN : Infinity
    return special[1] === '-' ? -size : size
  }}
  const number = /^[+-]?(?:{_DIGITS}\\.?(?:{_DIGITS})?|\\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?$/
  if (!number.test(text)) return fail(`could not read ${{JSON.stringify(value)}} as a number`)
  return Number(text.replaceAll('_', ''))
}}""",
    "toInt": f"""function toInt(value: any): number {{
  if (typeof value === 'string') {{
    const text = asciiDigits(strip(value))
    if (/^[+-]?{_DIGITS}$/.test(text)) return Number(text.replaceAll('_', '')) || 0
    value = toFloat(text)
  }}
  if (typeof value === 'boolean') return Number(value)
  if (typeof value !== 'number') return fail(`int() needs a number or text; got ${{kindOf(value)}}`)
  if (!Number.isFinite(value)) return fail(`int() cannot make a whole number of ${{value}}`)
  return Math.trunc(value) || 0
}}""",
    "asciiDigits": """const digitZeros = [DIGIT_ZEROS]

function asciiDigits(text: string): string {
  // Python's int() and float() read every Unicode decimal digit (٣, ３) as its ASCII digit.
  let out = ''
  for (const char of text) {
    const code = char.codePointAt(0)!
    const zero = code < 128 ? undefined : digitZeros.find((z) => z <= code && code < z + 10)
    out += zero === undefined ? char : String(code - zero)
  }
  return out
}""",
    "replaceText": """function replaceText(text: any, old: any, by: any, count: any = -1): string {
  const [whole, before, after] = [text, old, by].map((v) => textOf('replace', v))
  const pieces = before === '' ? ['', ...whole, ''] : whole.split(before)
  if (count < 0 || count >= pieces.length - 1) return limitedText(pieces.join(after))
  const [done, rest] = [pieces.slice(0, count + 1), pieces.slice(count + 1)]
  return limitedText(done.join(after) + before + rest.join(before))
}""",
    "limitedText": """function limitedText(value: any): any {
  // The sandbox's limit on one text or list an operation makes (in characters or items).
  const size = typeof value === 'string' && value.length > 1000000 ? [...value].length : 0
  const items = Array.isArray(value) ? value.length : size
  return items > 1000000 ? tooLong(items) : value
}""",
    "tooLong": """function tooLong(size: number): never {
  const shown = size.toLocaleString('en-US')
  const limit = 'the limit is 1,000,000'
  return fail(`this would make text or a list of ${shown} characters or items; ${limit}`)
}""",
    "splitText": f"""function splitText(text: any, sep: any = null, most: any = -1): string[] {{
  const whole = textOf('split', text)
  if (sep === null) {{
    const parts: string[] = []
    let rest = whole.replace(/^{_SPACE}/u, '')
    while (rest) {{
      const space = /{_SPACE}/u.exec(rest)
      if ((most >= 0 && parts.length >= most) || !space) {{
        parts.push(rest)
        break
      }}
      parts.push(rest.slice(0, space.index))
      rest = rest.slice(space.index + space[0].length)
    }}
    return parts
  }}
  if (textOf('split', sep) === '') return fail('split() needs a separator that is not empty')
  const pieces = whole.split(sep)
  if (most < 0 || pieces.length <= most + 1) return pieces
  return [...pieces.slice(0, most), pieces.slice(most).join(sep)]
}}""",
    "divMod": """function divMod(op: string, a: any, b: any): [number, number] {
  // Python's float floor division and modulo (the sign of the divisor), as CPython computes.
  const numeric = (v: any) => typeof v === 'number' || typeof v === 'boolean'
  if (!numeric(a) || !numeric(b)) return fail(`cannot use ${op} on ${kindOf(a)} and ${kindOf(b)}`)
  const [x, y] = [Number(a), Number(b)]
  if (y === 0) return fail('division by zero; guard it, e.g. a // b if b else 0')
  let mod = x % y
  let div = (x - mod) / y
  if (mod) {
    if (y < 0 !== mod < 0) {
      mod += y
      div -= 1
    }
  } else mod = y < 0 ? -0 : 0
  let floor = Math.floor(div)
  if (div) {
    if (div - floor > 0.5) floor += 1
  } else floor = x / y < 0 || Object.is(x / y, -0) ? -0 : 0
  return [floor || 0, mod || 0]
}""",
    "getPath": r"""function getPath(value: any, key: any, fallback: any = null): any {
  let current = value
  for (const part of typeof key === 'string' ? key.split('.') : [key]) {
    if (current && typeof current === 'object' && !Array.isArray(current)) {
      if (typeof part !== 'string' || !Object.hasOwn(current, part)) return fallback
      current = current[part]
    } else if (Array.isArray(current)) {
      let index = part
      if (typeof part === 'string' && /^-*\d+$/.test(part)) {
        if (/^--/.test(part)) return fail(`get() cannot read ${JSON.stringify(part)} as a place`)
        index = Number(part)
      }
      const size = current.length
      if (typeof index !== 'number' || !Number.isInteger(index)) return fallback
      if (index < -size || index >= size) return fallback
      current = current[index < 0 ? size + index : index]
    } else return fallback
  }
  return current
}""",
    "clamp": """function clamp(value: any, low: any = 0, high: any = 1): any {
  const numeric = (v: any) => typeof v === 'number' || typeof v === 'boolean'
  for (const v of [value, low, high]) {
    if (!numeric(v)) return fail(`clamp() needs a number; got ${kindOf(v)}`)
  }
  if (Number(low) > Number(high)) return fail('clamp() needs low <= high')
  const raised = Number(low) > Number(value) ? low : value
  return Number(high) < Number(raised) ? high : raised
}""",
    "countOf": """function countOf(haystack: any, value: any): number {
  if (typeof haystack === 'string') {
    const piece = textOf('count', value)
    return piece === '' ? [...haystack].length + 1 : haystack.split(piece).length - 1
  }
  if (!Array.isArray(haystack)) {
    return fail(`count() needs a list or text; got ${kindOf(haystack)}`)
  }
  return haystack.filter((item) => equal(item, value)).length
}""",
    "joinText": """function joinText(sep: any, items: any): string {
  const parts = list(items, 'join')
  if (!parts.every((part: any) => typeof part === 'string')) return fail('join() needs texts')
  return limitedText(parts.join(textOf('join', sep)))
}""",
    "sliceOf": """function sliceOf(value: any, start: any, stop: any): any {
  const whole = typeof value === 'string' ? [...value] : value
  if (!Array.isArray(whole)) return fail(`a slice [a:b] needs text or a list; got ${kindOf(value)}`)
  const place = (v: any, empty: number) => {
    if (v === null) return empty
    if (typeof v === 'boolean' || Number.isInteger(v)) return Number(v)
    return fail('a slice [a:b] needs whole numbers')
  }
  const part = whole.slice(place(start, 0), place(stop, whole.length))
  return typeof value === 'string' ? part.join('') : part
}""",
}

FUNCTION_NEEDS: dict[str, tuple[str, ...]] = {
    "order": ("equal", "fail", "kindOf"),
    "extreme": ("order", "fail"),
    "sumOf": ("fail", "kindOf"),
    "truths": ("fail", "kindOf"),
    "toFloat": ("strip", "fail", "kindOf", "asciiDigits"),
    "toInt": ("toFloat", "strip", "fail", "kindOf", "asciiDigits"),
    "replaceText": ("textOf", "limitedText"),
    "limitedText": ("tooLong",),
    "tooLong": ("fail",),
    "splitText": ("textOf", "fail"),
    "divMod": ("fail", "kindOf"),
    "getPath": ("fail",),
    "clamp": ("fail", "kindOf"),
    "countOf": ("textOf", "fail", "kindOf", "equal"),
    "joinText": ("list", "textOf", "fail", "limitedText"),
    "sliceOf": ("fail", "kindOf"),
}


@cache
def digit_zeros() -> str:
    """The code points of every Unicode digit zero this Python knows, as TypeScript numbers.

    Each set of ten decimal digits is contiguous, so it holds exactly one multiple of ten:
    looking at those finds every set. ASCII's own zero is left out (read as it is).
    """
    zeros = set()
    for code in range(0, 0x110000, 10):
        digit = unicodedata.decimal(chr(code), -1)
        if digit >= 0:
            zeros.add(code - digit)
    return ", ".join(hex(zero) for zero in sorted(zeros - {0x30}))
