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
 *
 * Text is kept composed: the same pass notes whether any string or field name is not in Unicode's composed form
 * (NFC), and only then is the input copied with every string and field name composed (`InputCheck.value`), which is
 * what the tool validates and SQL receives. "Café" typed as e + U+0301 and as é were two labels, two statuses, and a
 * search for one did not find the other (docs/decisions.md, "Text is stored composed"). Numbers, booleans and null are
 * left as they are, and so is a `secret` (kept as a hash of its bytes). Two field names of one object that are the
 * same once composed are a 400, not one silently winning.
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
export const SAME_NAME_MESSAGE = 'field name is given twice (the same name, composed and decomposed)';

/** Fields whose text is taken byte for byte, never composed: a runtime's shared secret (runtimes.register) is kept as the SHA-256 of the bytes given. */
const VERBATIM_FIELDS: ReadonlySet<string> = new Set(['secret']);

// Nothing below U+0300 is changed by NFC or combines with what precedes it (the combining marks start there), so
// text of Latin-1 and Latin Extended letters is composed without asking ICU.
const MAYBE_DECOMPOSED = /[^\u0000-\u02ff]/;
/** True when the text is in Unicode's composed form (NFC). */
export const isComposed = (s: string): boolean => !MAYBE_DECOMPOSED.test(s) || s.normalize('NFC') === s;

const isPlainObject = (v: object): v is Record<string, unknown> => {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};
const setOwn = (o: Record<string, unknown>, key: string, value: unknown) => {
  // JSON.parse makes `__proto__` an own field; an assignment would set the copy's prototype instead.
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, configurable: true, writable: true });
  else o[key] = value;
};

/**
 * `value` with every string and field name in Unicode's composed form (NFC): `value` itself when all already are,
 * else a copy (copyComposed). For input no tool checks (GraphQL's own variables, src/graphql/nfc.ts); a tool's input
 * gets the same from checkInput, which also refuses two field names of an object that become one.
 */
export function composed<T>(value: T): T {
  if (typeof value === 'string') return value.normalize('NFC') as T;
  if (value === null || typeof value !== 'object') return value;
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (!isComposed(v)) return copyComposed(value);
    } else if (v !== null && typeof v === 'object' && (Array.isArray(v) || isPlainObject(v))) {
      if (Array.isArray(v)) for (const item of v) stack.push(item);
      else {
        for (const key of Object.keys(v)) {
          if (!isComposed(key)) return copyComposed(value);
          if (!VERBATIM_FIELDS.has(key)) stack.push(v[key]);
        }
      }
    }
  }
  return value;
}

/**
 * A copy of `value` with every string and field name in Unicode's composed form (NFC): arrays and plain objects are
 * copied (iteratively, any depth), numbers, booleans and null kept, and so is the text of a VERBATIM_FIELDS field.
 */
function copyComposed<T>(value: T): T {
  if (typeof value === 'string') return value.normalize('NFC') as T;
  if (value === null || typeof value !== 'object') return value;
  const copy = (v: object): object => (Array.isArray(v) ? new Array(v.length) : isPlainObject(v) ? {} : v);
  const root = copy(value);
  if (root === value) return value;
  const sources: object[] = [value];
  const targets: object[] = [root];
  while (sources.length) {
    const from = sources.pop()!;
    const to = targets.pop()!;
    const item = (c: unknown, verbatim: boolean): unknown => {
      if (typeof c === 'string') return verbatim ? c : c.normalize('NFC');
      if (c === null || typeof c !== 'object') return c;
      const made = copy(c);
      if (made !== c) { sources.push(c); targets.push(made); }
      return made;
    };
    if (Array.isArray(from)) {
      for (let i = 0; i < from.length; i++) (to as unknown[])[i] = item(from[i], false);
    } else {
      for (const key of Object.keys(from)) {
        setOwn(to as Record<string, unknown>, key.normalize('NFC'), item((from as Record<string, unknown>)[key], VERBATIM_FIELDS.has(key)));
      }
    }
  }
  return root as T;
}
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
  /** Strings and keys PostgreSQL cannot store, and field names that are the same once composed; at most maxTextIssues. */
  text: Record<string, string>;
  /**
   * The input with its text composed (NFC): the value given itself when all of it already is (the usual case), else a
   * copy (copyComposed). What a tool validates and runs. Undefined beside `structure` (nothing runs).
   */
  value?: unknown;
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
    return { text, value: value.normalize('NFC') };
  }
  if (value === null || typeof value !== 'object') return { text, value };
  // Whether every string and field name seen so far is composed (NFC); once one is not, no more are asked about.
  let allComposed = true;
  const noteText = (s: string) => { if (allComposed && !isComposed(s)) allComposed = false; };
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
          if (textFound < maxTextIssues) { const problem = textProblem(c); if (problem) textIssue(place, i, problem); else noteText(c); }
        } else if (c !== null && typeof c === 'object') {
          values.push(c); places.push({ parent: place, key: i }); depths.push(depth + 1);
        }
      }
    } else {
      const keys = Object.keys(v);
      if (keys.length > maxKeys) return structure(place, OBJECT_KEYS_MESSAGE);
      // The composed form of each field name, counted, made only for an object one of whose names is not composed.
      let names: Map<string, number> | undefined;
      for (const key of keys) {
        if (textFound < maxTextIssues) {
          const problem = textProblem(key);
          if (problem) { textIssue(place, key, `field name ${problem}`); continue; }
          if (!isComposed(key)) {
            allComposed = false;
            if (!names) {
              names = new Map();
              for (const k of keys) { const n = k.normalize('NFC'); names.set(n, (names.get(n) ?? 0) + 1); }
            }
            if (names.get(key.normalize('NFC'))! > 1) textIssue(place, key, SAME_NAME_MESSAGE);
          }
        }
        const c: unknown = (v as Record<string, unknown>)[key];
        if (typeof c === 'string') {
          if (textFound < maxTextIssues) {
            const problem = textProblem(c);
            if (problem) textIssue(place, key, problem);
            else if (!VERBATIM_FIELDS.has(key)) noteText(c);
          }
        } else if (c !== null && typeof c === 'object') {
          values.push(c); places.push({ parent: place, key }); depths.push(depth + 1);
        }
      }
    }
  }
  return { text, value: allComposed ? value : copyComposed(value) };
}

/** Field path → message for every string (or key) in `value` that PostgreSQL cannot store; {} when none. */
export function textIssues(value: unknown, maxIssues = 20): Record<string, string> {
  return checkInput(value, { maxDepth: Infinity, maxKeys: Infinity, maxItems: Infinity, maxTextIssues: maxIssues }).text;
}

/** Characters no single-line name holds: C0/C1 controls (line breaks, escapes), line and paragraph separators, and
 *  the bidirectional overrides and isolates that make text read differently from what it is (U+202E reverses what
 *  follows). NUL has its own message (textProblem above). */
export const NOT_IN_A_LINE = /[\u0001-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A character a reader sees: not white space, not a default-ignorable one (zero-width characters, soft hyphen,
 *  variation selectors, tags, Hangul fillers, …), not a format control (Cf), not the braille blank nor the object
 *  replacement character. A name needs one (app_hidden.one_line says the same, in ranges, for the writers the tools
 *  do not front). */
export const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\u2800\ufffc]/u;
/** What a name loses at its ends: white space and default-ignorable characters, but not direction overrides and
 *  isolates (refused, NOT_IN_A_LINE, rather than quietly dropped); at its end, not those that end emoji (variation
 *  selectors, ZWJ, tags: ❤️, a subdivision flag). app_hidden.trim_name trims the same. */
const NAME_START = /^(?:(?![\u202a-\u202e\u2066-\u2069])[\p{White_Space}\p{Default_Ignorable_Code_Point}])+/u;
const NAME_END = /(?:(?![\u202a-\u202e\u2066-\u2069\u200d\ufe00-\ufe0f\u{e0020}-\u{e007f}\u{e0100}-\u{e01ef}])[\p{White_Space}\p{Default_Ignorable_Code_Point}])+$/u;
export const trimName = (s: string): string => s.replace(NAME_START, '').replace(NAME_END, '');

/**
 * Text from outside (an issue title on GitHub, a web page's <title>) made into a name as the tools would take it:
 * composed (NFC), breaks and controls become spaces, direction overrides go, runs of spaces are one, at most `max`
 * characters (counted in UTF-16 units, so never more code points than zod's limit; a pair is never cut in half,
 * which PostgreSQL could not store).
 */
export function oneLine(text: string, max = 500): string {
  let line = text.normalize('NFC').replace(/[\u202a-\u202e\u2066-\u2069]/g, '').replace(new RegExp(NOT_IN_A_LINE.source, 'g'), ' ')
    .replace(/\s+/g, ' ');
  line = trimName(line);
  if (!VISIBLE.test(line)) return '';
  if (line.length > max) line = line.slice(0, /[\ud800-\udbff]/.test(line[max - 1]!) ? max - 1 : max);
  return line.trim();
}
