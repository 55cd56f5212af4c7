/**
 * One declaration per command drives parsing (node's util.parseArgs, strict), validation and help.
 * A usage mistake (unknown or misspelt flag, missing or malformed value) is a UsageError: exit 2 with
 * a message naming the flag and, for a typo, the closest known one.
 */
import { parseArgs } from 'node:util';
import { editDistance } from '../edit-distance.ts';

/**
 * Flag kinds:
 *  - `switch`: present or not (`--json`);
 *  - `string`: one value; `choices` restricts it (case-insensitive, normalised to upper case);
 *  - `int`: a whole number, at least `min` (default 0);
 *  - `bool`: the value `true` or `false` (`--auto-dispatch false`);
 *  - `list`: comma-separated values (`--scopes A,B`);
 *  - `id`: a UUID (a row's id, as the list commands print it).
 */
export type FlagKind = 'switch' | 'string' | 'int' | 'bool' | 'list' | 'id';

export interface FlagSpec {
  kind: FlagKind;
  description: string;
  required?: boolean;
  /** Allowed values of a `string` flag (upper case). */
  choices?: readonly string[];
  /** Smallest allowed value of an `int` flag (default 0). */
  min?: number;
  /** Largest allowed value of an `int` flag (default 2,147,483,647: what a PostgreSQL integer holds). */
  max?: number;
  /** Name of the value in usage lines (default: derived from the kind). */
  placeholder?: string;
  /** Longest allowed `string` value in characters, counted as the service counts them: code points (default 200, a name's length in the API). */
  maxLength?: number;
  /** A `string` flag that may hold line breaks and tabs (other control characters are refused anyway). */
  multiline?: boolean;
  /** What each value of a `list` flag is: free text (default) or a UUID. */
  items?: 'text' | 'id';
  /** A shape a `string` value must have, and how to say it (`--key must be ...`): a usage mistake, not a failed command. */
  pattern?: { test: RegExp; says: string };
}

export type FlagSpecs = Record<string, FlagSpec>;

type ValueOf<S extends FlagSpec> = S['kind'] extends 'switch'
  ? boolean
  : S['kind'] extends 'int'
    ? number
    : S['kind'] extends 'bool'
      ? boolean
      : S['kind'] extends 'list'
        ? string[]
        : string;

/** Parsed values: required flags are always present; a `switch` is always a boolean. */
export type Values<F extends FlagSpecs> = {
  [K in keyof F as F[K]['required'] extends true ? K : F[K]['kind'] extends 'switch' ? K : never]: ValueOf<F[K]>;
} & {
  [K in keyof F as F[K]['required'] extends true ? never : F[K]['kind'] extends 'switch' ? never : K]?: ValueOf<F[K]>;
};

const DEFAULT_MAX_LENGTH = 200;
const INT4_MAX = 2_147_483_647;
// C0 and C1 controls and DEL (a pasted NUL or terminal escape); line breaks and tabs, and Unicode's line and
// paragraph separators, only where the flag is multiline.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const LINE_BREAK = /[\n\r\t\u2028\u2029]/;
/**
 * How many characters a text holds as the service counts them: Unicode code points (PostgreSQL's char_length), as a
 * string's iterator gives them, not JavaScript's UTF-16 units, in which 🤖 is two (a 150-robot agent name GraphQL took
 * was "300 characters long" here).
 */
const characters = (text: string): number => [...text].length;

/** A value quoted back in an error: never the whole of a 100,000-character paste (a secret in it: main.ts redacts every error). */
const quoted = (text: string) => {
  const points = [...text];
  return JSON.stringify(points.length > 60 ? `${points.slice(0, 60).join('')}…` : text);
};

/**
 * A free-text value as the API would take it: in Unicode's composed form (NFC), as the service stores text
 * (docs/decisions.md, "Text is stored composed"), not too long in characters as the service counts them (code
 * points), no control characters (a pasted NUL or escape).
 */
function checkedText(name: string, f: FlagSpec, given: string): string {
  const max = f.maxLength ?? DEFAULT_MAX_LENGTH;
  const text = given.normalize('NFC');
  const length = characters(text);
  if (length > max) throw new UsageError(`--${name} is ${length} characters long; at most ${max}`);
  if (CONTROL.test(text) || (!f.multiline && LINE_BREAK.test(text))) {
    throw new UsageError(`--${name} holds a control character${f.multiline ? '' : ' or a line break'}; give it as plain text`);
  }
  return text;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string, readonly usage?: string) {
    super(message);
  }
}

export interface CommandSpec<F extends FlagSpecs = FlagSpecs> {
  /** e.g. `svc admin create-key`. */
  name: string;
  /** One line for command lists. */
  summary: string;
  flags: F;
  /** Lines printed after the flags in `--help`. */
  notes?: string[];
}

const HELP: FlagSpec = { kind: 'switch', description: 'print this usage and exit' };

function placeholder(name: string, spec: FlagSpec): string {
  if (spec.placeholder) return spec.placeholder;
  if (spec.choices) return spec.choices.join('|');
  switch (spec.kind) {
    case 'int':
      return 'N';
    case 'bool':
      return 'true|false';
    case 'list':
      return `${name.toUpperCase().replace(/S$/, '')}1,..`;
    case 'id':
      return 'ID';
    default:
      return name.toUpperCase().replace(/-/g, '_');
  }
}

/** One line: `svc admin x --a A [--b N] [--json]`. */
export function synopsis(spec: CommandSpec): string {
  const parts = [spec.name];
  for (const [name, f] of Object.entries(spec.flags)) {
    const word = f.kind === 'switch' ? `--${name}` : `--${name} ${placeholder(name, f)}`;
    parts.push(f.required ? word : `[${word}]`);
  }
  return parts.join(' ');
}

/** Full usage of one command: synopsis, summary, one line per flag. */
export function usage(spec: CommandSpec): string {
  const lines = [`usage: ${synopsis(spec)}`, '', spec.summary, ''];
  const all: Array<[string, FlagSpec]> = [...Object.entries(spec.flags), ['help', HELP]];
  const left = all.map(([name, f]) => (f.kind === 'switch' ? `--${name}` : `--${name} ${placeholder(name, f)}`));
  const width = Math.min(40, Math.max(...left.map((l) => l.length)) + 2);
  all.forEach(([, f], i) => {
    const l = left[i]!;
    const text = `${f.description}${f.required ? ' (required)' : ''}`;
    lines.push(l.length >= width ? `  ${l}\n  ${' '.repeat(width)}${text}` : `  ${l.padEnd(width)}${text}`);
  });
  if (spec.notes?.length) lines.push('', ...spec.notes);
  return lines.join('\n');
}

/** The known word closest to `word`, when it is close enough to be a typo (or `word` is a prefix of it). */
export function closest(word: string, known: string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const name of known) {
    const d = name.startsWith(word) && word.length >= 3 ? 0.5 : editDistance(word, name);
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}

/** `did you mean X?` for an unknown word, else the list of known ones. */
export function suggestion(word: string, known: string[], prefix = ''): string {
  const near = closest(word, known);
  return near ? `did you mean ${prefix}${near}?` : `known: ${known.map((k) => `${prefix}${k}`).join(', ')}`;
}

export function wantsHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** The flags of the command being run (set when its arguments are parsed): the service's 400s name them (main.ts). */
export let commandFlags: string[] = [];

/**
 * Parses argv for a command. Throws UsageError for an unknown flag, a missing value, a value of the
 * wrong kind, a positional argument, or a missing required flag.
 */
export function parseCommand<F extends FlagSpecs>(spec: CommandSpec<F>, args: string[]): Values<F> {
  commandFlags = Object.keys(spec.flags);
  const options: Record<string, { type: 'string' | 'boolean' }> = {};
  for (const [name, f] of Object.entries(spec.flags)) options[name] = { type: f.kind === 'switch' ? 'boolean' : 'string' };
  // Every unknown flag at once (strict parsing stops at the first), each with its closest known one.
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  const unknown = [...new Set(tokens.filter((t) => t.kind === 'option' && !(t.name in options)).map((t) => (t as { rawName: string }).rawName))];
  if (unknown.length) {
    const known = Object.keys(spec.flags);
    const each = unknown.map((raw) => {
      const name = raw.replace(/^-+/, '');
      return known.length ? `${raw.startsWith('--') ? `--${name}` : raw}; ${suggestion(name, known, '--')}` : `${raw}: ${spec.name} takes no flags`;
    });
    throw new UsageError(`unknown flag ${each.join('\nsvc: unknown flag ')} (see ${spec.name} --help)`);
  }
  // A flag given twice is a mistake (a script's default and its override, a pasted line): the last would silently
  // win, so `--workspace A --workspace B` would act on B and `--scopes X --scopes Y` issue a key with Y only.
  const counts = new Map<string, number>();
  for (const t of tokens) if (t.kind === 'option' && spec.flags[t.name]?.kind !== 'switch') counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const repeated = [...counts].filter(([, n]) => n > 1).map(([name]) => `--${name}`);
  if (repeated.length) {
    throw new UsageError(`${repeated.join(', ')} given more than once: give each flag once${spec.flags[repeated[0]!.slice(2)]?.kind === 'list' ? ' (a list takes comma-separated values)' : ''} (see ${spec.name} --help)`);
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args, options, strict: true, allowPositionals: false }) as { values: Record<string, string | boolean | undefined> });
  } catch (err) {
    throw parseArgsError(spec, err as NodeJS.ErrnoException);
  }
  // An empty value on the command line is a mistake, not "leave it out": `--scopes "$SCOPES"` with SCOPES unset
  // must not issue a FULL key, nor `--projects ""` an unrestricted one.
  const empty = Object.entries(values).filter(([, v]) => typeof v === 'string' && v.trim() === '');
  if (empty.length) {
    throw new UsageError(`${empty.map(([name]) => `--${name}`).join(', ')} ${empty.length > 1 ? 'are' : 'is'} empty: give a value or leave the flag out (see ${spec.name} --help)`);
  }
  return validate(spec, values);
}

function parseArgsError(spec: CommandSpec, err: NodeJS.ErrnoException): UsageError {
  const hint = `(see ${spec.name} --help)`;
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const flag = quoted.replace(/^-+/, '').split('=')[0]!;
      const known = Object.keys(spec.flags);
      if (!known.length) return new UsageError(`unknown flag ${quoted}: ${spec.name} takes no flags ${hint}`);
      return new UsageError(`unknown flag ${quoted.startsWith('--') ? `--${flag}` : quoted}; ${suggestion(flag, known, '--')} ${hint}`);
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument ${JSON.stringify(quoted)}: values follow their flag, as in --name VALUE ${hint}`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE': {
      const flag = /--([\w-]+)/.exec(err.message)?.[1] ?? quoted;
      const f = spec.flags[flag];
      if (f?.kind === 'switch') return new UsageError(`--${flag} takes no value ${hint}`);
      return new UsageError(`--${flag} needs a value${f ? ` (${placeholder(flag, f)})` : ''}; to pass a value starting with '-', write --${flag}=VALUE ${hint}`);
    }
    default:
      return new UsageError(`${err.message} ${hint}`);
  }
}

/**
 * Checks and converts raw values (strings from the command line, or from code calling a command
 * directly) against the declaration.
 */
export function validate<F extends FlagSpecs>(spec: CommandSpec<F>, raw: Record<string, unknown>): Values<F> {
  const out: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const name of Object.keys(raw)) {
    if (!(name in spec.flags) && raw[name] !== undefined) {
      throw new UsageError(`unknown flag --${name}; ${suggestion(name, Object.keys(spec.flags), '--')} (see ${spec.name} --help)`);
    }
  }
  for (const [name, f] of Object.entries(spec.flags)) {
    const v = raw[name];
    if (f.kind === 'switch') {
      out[name] = v === true || v === 'true';
      continue;
    }
    if (v === undefined || v === null || v === '') {
      if (f.required) missing.push(`--${name}`);
      continue;
    }
    const text = String(v).trim();
    switch (f.kind) {
      case 'int': {
        const n = typeof v === 'number' ? v : /^[+]?\d+$/.test(text) ? Number(text) : NaN;
        const min = f.min ?? 0;
        const max = f.max ?? INT4_MAX;
        if (!Number.isSafeInteger(n) || n < min || n > max) {
          const range = f.max !== undefined ? `from ${min} to ${f.max}` : `${min} or more${n > max ? ` (at most ${max})` : ''}`;
          throw new UsageError(`--${name} must be a whole number ${range}, got ${quoted(text)}`);
        }
        out[name] = n;
        break;
      }
      case 'bool': {
        const t = text.toLowerCase();
        if (v === true || v === false) out[name] = v;
        else if (t === 'true' || t === 'false') out[name] = t === 'true';
        else throw new UsageError(`--${name} must be true or false, got ${quoted(text)}`);
        break;
      }
      case 'list': {
        const items = Array.isArray(v) ? v.map(String) : checkedText(name, { ...f, maxLength: f.maxLength ?? 10_000 }, text).split(',').map((s) => s.trim()).filter(Boolean);
        const bad = f.items === 'id' ? items.find((x) => !UUID.test(x)) : undefined;
        if (bad !== undefined) throw new UsageError(`--${name} takes UUIDs: ${f.description}; got ${quoted(bad)}`);
        out[name] = f.items === 'id' ? items.map((x) => x.toLowerCase()) : items;
        break;
      }
      case 'id':
        if (!UUID.test(text)) {
          const rawKey = text.startsWith('svc_sk_') ? '; that is a raw key, not its id' : '';
          throw new UsageError(`--${name} must be a UUID: ${f.description}; got ${quoted(text)}${rawKey}`);
        }
        out[name] = text.toLowerCase();
        break;
      default: {
        if (f.choices) {
          const up = text.toUpperCase();
          if (!f.choices.includes(up)) {
            const near = closest(up, [...f.choices]);
            throw new UsageError(`--${name} must be one of ${f.choices.join(', ')}, got ${quoted(text)}${near ? `; did you mean ${near}?` : ''}`);
          }
          out[name] = up;
        } else {
          const checked = checkedText(name, f, text);
          out[name] = checked;
          // Said back without any user:password@ it holds (the terminal's scrollback and CI logs keep stderr).
          if (f.pattern && !f.pattern.test.test(checked)) throw new UsageError(`--${name} must be ${f.pattern.says}, got ${quoted(checked.replace(/\/\/[^/?#\s]*@/, '//…@'))}`);
        }
      }
    }
  }
  if (missing.length) {
    throw new UsageError(`missing required flag${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, `usage: ${synopsis(spec)}`);
  }
  return out as Values<F>;
}
