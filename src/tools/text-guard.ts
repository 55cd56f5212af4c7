/**
 * Text PostgreSQL cannot store: NUL characters (text and jsonb refuse U+0000, SQLSTATE 22P05) and lone
 * UTF-16 surrogates (not encodable in UTF-8). Found anywhere in a tool's input (values or keys, at any
 * depth), they are a 400 naming the field, checked once here for every tool instead of failing deep
 * inside SQL. The walk is iterative (no recursion limit on nesting) and stops reporting after a bounded
 * number of findings.
 *
 * Nesting depth is bounded too (`checkInput`, run first for every tool): JSON.parse accepts any depth, but
 * zod, JSON.stringify and PostgreSQL's jsonb functions recurse, so a 5,000-level payload used to overflow the
 * stack (500). Input nested deeper than MAX_INPUT_DEPTH levels is a 400 naming the field. So is the size of one
 * object or array: no tool takes an object of more than MAX_OBJECT_KEYS fields or an array of more than
 * MAX_ARRAY_ITEMS items (a strict object declares at most a few dozen fields, a declared array at most 200 items; the
 * free-form values, payload, info, config, followUps, hold a few ids or settings). zod spent ~2 µs a field copying a
 * 60,000-field record before payload's 16 KB refinement could refuse it, and runtimes.register took a 150,000-item
 * array in `info` only for its SQL to keep none of it.
 *
 * The walk is one pass over the input that builds no path text until it has something to report (it used to
 * build a path string for every value: 0.2 s of the one thread for an array of 300,000 numbers).
 */

/** How many objects/arrays deep a tool's input may nest; the input object itself is level 1. */
export const MAX_INPUT_DEPTH = 64;
export const DEPTH_MESSAGE = `must not be nested deeper than ${MAX_INPUT_DEPTH} levels`;
/** How many fields one object of a tool's input may have. */
export const MAX_OBJECT_KEYS = 1000;
export const OBJECT_KEYS_MESSAGE = `must not have more than ${MAX_OBJECT_KEYS} fields`;
/** How many items one array of a tool's input may have. */
export const MAX_ARRAY_ITEMS = 1000;
export const ARRAY_ITEMS_MESSAGE = `must not have more than ${MAX_ARRAY_ITEMS} items`;

export const NUL_MESSAGE = 'must not contain NUL characters';
export const SURROGATE_MESSAGE = 'must be valid Unicode (no lone surrogates)';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// String.prototype.isWellFormed (Node 20+; ES2024, so not in this project's lib types): a native scan.
const isWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed;

/** Why a string cannot be stored, or undefined when it can. */
export function textProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (isWellFormed ? !isWellFormed.call(s) : LONE_SURROGATE.test(s)) return SURROGATE_MESSAGE;
  return undefined;
}

/** A path segment as printable text (a key may itself hold NUL or surrogates). */
const printable = (key: string) => (textProblem(key) ? JSON.stringify(key).slice(1, -1).replace(/\\u0000/g, '\\0') : key);

/** Where a container sits in the input, as a chain to its parent: its dotted path is spelt only when reported. */
interface Place {
  parent: Place | undefined;
  key: string | number;
}
function pathOf(place: Place | undefined, last?: string | number): string {
  const parts: Array<string | number> = last === undefined ? [] : [last];
  for (let p = place; p; p = p.parent) parts.push(p.key);
  return parts.reverse().map((k) => (typeof k === 'number' ? String(k) : printable(k))).join('.');
}

/** Sets issues[field] as an own property: a field named `__proto__` is reported, not made the map's prototype. */
export const setOwnIssue = (issues: Record<string, string>, field: string, message: string) =>
  Object.defineProperty(issues, field, { value: message, enumerable: true, configurable: true, writable: true });
/** An issue at a path; the empty path is the input itself. */
const setIssue = (issues: Record<string, string>, path: string, message: string) => setOwnIssue(issues, path || 'input', message);

export interface InputCheck {
  /** Nesting past maxDepth, an object past maxKeys or an array past maxItems: the first such place, alone. */
  structure?: Record<string, string>;
  /** Strings and keys PostgreSQL cannot store, at most maxTextIssues of them. */
  text: Record<string, string>;
}

/**
 * One iterative pass over a tool's input: the first container nested deeper than `maxDepth` levels (the input
 * itself is level 1), object with more than `maxKeys` fields or array with more than `maxItems` items, and every
 * string or key PostgreSQL cannot store (up to `maxTextIssues`). Any depth is safe to walk; the work is one visit
 * per value, and an oversized container is refused before its values are visited.
 */
export function checkInput(
  value: unknown, { maxDepth = MAX_INPUT_DEPTH, maxKeys = MAX_OBJECT_KEYS, maxItems = MAX_ARRAY_ITEMS, maxTextIssues = 20 } = {},
): InputCheck {
  const text: Record<string, string> = {};
  let textFound = 0;
  const textIssue = (place: Place | undefined, key: string | number | undefined, message: string) => {
    if (textFound < maxTextIssues) setIssue(text, pathOf(place, key), message);
    textFound++;
  };
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) textIssue(undefined, undefined, problem);
    return { text };
  }
  if (value === null || typeof value !== 'object') return { text };
  // The containers still to visit, with their place and level (parallel stacks: no tuple per container).
  const values: object[] = [value];
  const places: Array<Place | undefined> = [undefined];
  const depths: number[] = [1];
  const structure = (place: Place | undefined, message: string) => ({ structure: setIssue({}, pathOf(place), message), text });
  while (values.length) {
    const v = values.pop()!;
    const place = places.pop();
    const depth = depths.pop()!;
    if (depth > maxDepth) return structure(place, DEPTH_MESSAGE);
    if (Array.isArray(v)) {
      if (v.length > maxItems) return structure(place, ARRAY_ITEMS_MESSAGE);
      for (let i = v.length - 1; i >= 0; i--) {
        const c: unknown = v[i];
        if (typeof c === 'string') {
          if (textFound < maxTextIssues) { const problem = textProblem(c); if (problem) textIssue(place, i, problem); }
        } else if (c !== null && typeof c === 'object') {
          values.push(c); places.push({ parent: place, key: i }); depths.push(depth + 1);
        }
      }
    } else {
      const keys = Object.keys(v);
      if (keys.length > maxKeys) return structure(place, OBJECT_KEYS_MESSAGE);
      for (const key of keys) {
        if (textFound < maxTextIssues) {
          const problem = textProblem(key);
          if (problem) { textIssue(place, key, `field name ${problem}`); continue; }
        }
        const c: unknown = (v as Record<string, unknown>)[key];
        if (typeof c === 'string') {
          if (textFound < maxTextIssues) { const problem = textProblem(c); if (problem) textIssue(place, key, problem); }
        } else if (c !== null && typeof c === 'object') {
          values.push(c); places.push({ parent: place, key }); depths.push(depth + 1);
        }
      }
    }
  }
  return { text };
}

/** Field path → message for every string (or key) in `value` that PostgreSQL cannot store; {} when none. */
export function textIssues(value: unknown, maxIssues = 20): Record<string, string> {
  return checkInput(value, { maxDepth: Infinity, maxKeys: Infinity, maxItems: Infinity, maxTextIssues: maxIssues }).text;
}

/** Characters no single-line name holds: C0/C1 controls (line breaks, escapes), line and paragraph separators, and
 *  the bidirectional overrides and isolates that make text read differently from what it is (U+202E reverses what
 *  follows). NUL has its own message (textProblem above). */
export const NOT_IN_A_LINE = /[\u0001-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * Text from outside (an issue title on GitHub, a web page's <title>) made into a name as the tools would take it:
 * breaks and controls become spaces, direction overrides go, runs of spaces are one, at most `max` characters.
 */
export function oneLine(text: string, max = 500): string {
  return text.replace(/[\u202a-\u202e\u2066-\u2069]/g, '').replace(new RegExp(NOT_IN_A_LINE.source, 'g'), ' ')
    .replace(/\s+/g, ' ').trim().slice(0, max).trim();
}
