/**
 * Text PostgreSQL cannot store: NUL characters (text and jsonb refuse U+0000, SQLSTATE 22P05) and lone
 * UTF-16 surrogates (not encodable in UTF-8). Found anywhere in a tool's input (values or keys, at any
 * depth), they are a 400 naming the field, checked once here for every tool instead of failing deep
 * inside SQL. The walk is iterative (no recursion limit on nesting) and stops after a bounded number of
 * findings.
 *
 * Nesting depth is bounded too (`inputDepthIssues`, checked first for every tool): JSON.parse accepts any
 * depth, but zod, JSON.stringify and PostgreSQL's jsonb functions recurse, so a 5,000-level payload used to
 * overflow the stack (500). Input nested deeper than MAX_INPUT_DEPTH levels is a 400 naming the field.
 */

/** How many objects/arrays deep a tool's input may nest; the input object itself is level 1. */
export const MAX_INPUT_DEPTH = 64;
export const DEPTH_MESSAGE = `must not be nested deeper than ${MAX_INPUT_DEPTH} levels`;

export const NUL_MESSAGE = 'must not contain NUL characters';
export const SURROGATE_MESSAGE = 'must be valid Unicode (no lone surrogates)';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a string cannot be stored, or undefined when it can. */
export function textProblem(s: string): string | undefined {
  if (s.includes('\u0000')) return NUL_MESSAGE;
  if (LONE_SURROGATE.test(s)) return SURROGATE_MESSAGE;
  return undefined;
}

/** A path segment as printable text (a key may itself hold NUL or surrogates). */
const printable = (key: string) => (textProblem(key) ? JSON.stringify(key).slice(1, -1).replace(/\\u0000/g, '\\0') : key);

/**
 * {path: message} for the first container (object or array) found deeper than `maxDepth` levels, where the
 * input itself is level 1; {} when the input is shallow enough. Iterative, so any depth is safe to walk.
 */
export function inputDepthIssues(value: unknown, maxDepth = MAX_INPUT_DEPTH): Record<string, string> {
  const stack: Array<[unknown, string, number]> = [[value, '', 1]];
  while (stack.length) {
    const [v, path, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > maxDepth) {
      const issues: Record<string, string> = {};
      Object.defineProperty(issues, path || 'input', { value: DEPTH_MESSAGE, enumerable: true, configurable: true, writable: true });
      return issues;
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) {
        const c = v[i];
        if (c !== null && typeof c === 'object') stack.push([c, path ? `${path}.${i}` : String(i), depth + 1]);
      }
    } else {
      for (const key of Object.keys(v)) {
        const c = (v as Record<string, unknown>)[key];
        if (c !== null && typeof c === 'object') stack.push([c, path ? `${path}.${printable(key)}` : printable(key), depth + 1]);
      }
    }
  }
  return {};
}

/** Field path → message for every string (or key) in `value` that PostgreSQL cannot store; {} when none. */
export function textIssues(value: unknown, maxIssues = 20): Record<string, string> {
  const issues: Record<string, string> = {};
  const add = (path: string, message: string) =>
    Object.defineProperty(issues, path || 'input', { value: message, enumerable: true, configurable: true, writable: true });
  const stack: Array<[unknown, string]> = [[value, '']];
  let found = 0;
  while (stack.length && found < maxIssues) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) { add(path, problem); found++; }
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], path ? `${path}.${i}` : String(i)]);
    } else if (v !== null && typeof v === 'object') {
      for (const key of Object.keys(v)) {
        const child = path ? `${path}.${printable(key)}` : printable(key);
        const problem = textProblem(key);
        if (problem) { add(child, `field name ${problem}`); found++; continue; }
        stack.push([(v as Record<string, unknown>)[key], child]);
      }
    }
  }
  return issues;
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
