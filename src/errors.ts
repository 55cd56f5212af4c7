/**
 * One table maps every failure to the HTTP status and body of spec part 7:
 * `{ error, message?, issues?, scope? }`. SQL functions raise their own SQLSTATEs (see
 * migrations: SV400…SVSCP); PostgreSQL's own constraint errors are mapped here too. No message matching.
 */
export interface ErrorBody {
  error: string;
  message?: string;
  issues?: Record<string, string>;
  scope?: string;
  /** 404 or 409: the input field that named the missing record (e.g. steps.1.assignedAgentId) or the taken value (name), when the SQL says. */
  field?: string;
  /** 413 and the like: the limit the request went past (bytes of a body). */
  limit?: number;
  /** 503 for a write whose connection went mid-call: 'unknown', it may have been done. */
  outcome?: 'unknown';
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    /** Extra response headers, e.g. Retry-After on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message ?? body.error);
  }
}

export const invalidInput = (issues: Record<string, string>, message = 'Invalid input') =>
  new ApiError(400, { error: 'invalid_input', message, issues });

/** A path (or an asset) nobody serves: the one 404 body of every surface. */
export const noRoute = (method: string, url: string) => new ApiError(404, { error: 'not_found', message: `No route ${method} ${url}` });

export const scopeRequired = (scope: string) =>
  new ApiError(403, { error: 'scope_required', scope, message: `This key lacks the ${scope} scope` });

const BY_SQLSTATE: Record<string, { status: number; error: string }> = {
  SV400: { status: 400, error: 'invalid_input' },
  SV401: { status: 401, error: 'invalid' },
  SV403: { status: 403, error: 'forbidden' },
  SV404: { status: 404, error: 'not_found' },
  SV409: { status: 409, error: 'conflict' },
  SV422: { status: 422, error: 'precondition_failed' },
  SVSCP: { status: 403, error: 'scope_required' },
  '42501': { status: 403, error: 'forbidden' }, // insufficient privilege / row-level security
  '23505': { status: 409, error: 'conflict' }, // unique violation
  // A concurrent transaction got in the way (tool calls are retried first, src/db/as-caller.ts).
  '40P01': { status: 409, error: 'conflict' }, // deadlock detected
  '40001': { status: 409, error: 'conflict' }, // serialization failure
  '23503': { status: 404, error: 'not_found' }, // foreign key: the referenced row is not there (for this key)
  '23514': { status: 400, error: 'invalid_input' }, // check violation
  '23502': { status: 400, error: 'invalid_input' }, // not null violation
  '22P02': { status: 400, error: 'invalid_input' }, // invalid text representation
  '22007': { status: 400, error: 'invalid_input' }, // invalid datetime format
  '22008': { status: 400, error: 'invalid_input' }, // datetime out of range
  '22003': { status: 400, error: 'invalid_input' }, // numeric out of range
  '22001': { status: 400, error: 'invalid_input' }, // string too long
  // Safety net behind the input checks in Node (src/tools/text-guard.ts): input PostgreSQL cannot take.
  '22P05': { status: 400, error: 'invalid_input' }, // untranslatable character (\u0000 in text/jsonb)
  '22021': { status: 400, error: 'invalid_input' }, // character not in repertoire (invalid UTF-8)
  '54000': { status: 400, error: 'invalid_input' }, // program limit exceeded (e.g. a value too large for an index)
  '54001': { status: 400, error: 'invalid_input' }, // statement too complex (absurd nesting)
  // statement_timeout (30 s for a tool call; a GraphQL request's budget, request-budget.ts): asked for too much, or waited too long.
  '57014': { status: 400, error: 'query_too_expensive' },
};

/** Any other data exception (class 22: bad value for a type, out of range, ...) is the input's fault too. */
const DATA_EXCEPTION = { status: 400, error: 'invalid_input' };

const FRIENDLY: Record<string, string> = {
  '22P05': 'must not contain NUL characters',
  '22021': 'must be valid UTF-8 text without NUL characters', // PostgreSQL reports a NUL in a text parameter as an invalid byte sequence
  '54000': 'value too large',
  '54001': 'input nested too deeply',
  // Data exceptions: our words, never PostgreSQL's (its text names types and echoes internals); the
  // original goes to the debug log (logRefusedInputTo).
  '22P02': 'not a valid value for this field',
  '22003': 'number out of range',
  '22008': 'date or time out of range',
  '22007': 'not a valid date or time',
  '22001': 'value too long',
  '40P01': 'A concurrent change got in the way; try again',
  '40001': 'A concurrent change got in the way; try again',
};
/** Any other data exception (class 22). */
const DATA_EXCEPTION_MESSAGE = 'not a valid value';

/** Where fromPgError reports what PostgreSQL said about input it refused (debug level); set by buildApp. */
let refusedInputLog: ((detail: Record<string, unknown>, message: string) => void) | undefined;
export function logRefusedInputTo(log: typeof refusedInputLog): void {
  refusedInputLog = log;
}

interface PgError {
  code?: string;
  message: string;
  detail?: string;
  hint?: string;
  column?: string;
  constraint?: string;
  /** The relation of a constraint violation (unqualified). */
  table?: string;
}

/**
 * The database would not take a connection: refused, unknown host, no free slot (53300), the login refused (28000: a
 * pg_hba reject during a failover; 28P01), the database missing (3D000), a server starting up or shutting down
 * (57P03). Nothing of a call was sent.
 */
const NOT_CONNECTED_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', '53300', '28000', '28P01', '3D000', '57P03'];
const NOT_CONNECTED_MESSAGE = /timeout exceeded when trying to connect/;
/**
 * The connection was lost or went silent mid-call (a frozen network, a server killed): the call may have been done.
 * A host or network unreachable is here too: on an open connection Linux reports the last ICMP error when
 * retransmission gives up, so it may come mid-call.
 */
const LOST_CODES = ['57P01', '57P02', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'];
const LOST_MESSAGE = /^Connection terminated|Client has encountered a connection error|^Query read timeout/;

/**
 * 503 when the error says the database cannot be reached or is going away (a tool call answered 500 internal, as if
 * the call itself had failed; a database refusing the service's logins during a failover answered 500 everywhere).
 * `write`: the call was a write, so when the connection went mid-call its outcome is unknown, and the answer says so
 * (a write answered "try again" after 35 s of a frozen network committed 20 s later: a retry without an idempotency
 * key made it twice).
 */
export function databaseUnavailable(err: unknown, opts: { write?: boolean } = {}): ApiError | undefined {
  const e = err as { code?: string; message?: string } | undefined;
  const code = e?.code ?? '';
  const message = e?.message ?? '';
  const notConnected = NOT_CONNECTED_CODES.includes(code) || NOT_CONNECTED_MESSAGE.test(message);
  const lost = !notConnected && (code.startsWith('08') || LOST_CODES.includes(code) || LOST_MESSAGE.test(message));
  if (!notConnected && !lost) return undefined;
  if (lost && opts.write) {
    return new ApiError(503, {
      error: 'unavailable', outcome: 'unknown',
      message: 'The database stopped answering during this call: it may have been done. Retry it with the same Idempotency-Key '
        + '(or _meta.idempotencyKey), which repeats nothing, or check before trying again',
    }, { 'retry-after': '5' });
  }
  return new ApiError(503, { error: 'unavailable', message: 'The database is not reachable right now; try again shortly' }, { 'retry-after': '5' });
}

/** The ApiError for a database error, or undefined when it is not one we expect (→ 500). */
export function fromPgError(err: unknown, opts: { write?: boolean } = {}): ApiError | undefined {
  const unavailable = databaseUnavailable(err, opts);
  if (unavailable) return unavailable;
  const e = err as PgError;
  const mapped = e?.code ? BY_SQLSTATE[e.code] ?? (e.code.startsWith('22') ? DATA_EXCEPTION : undefined) : undefined;
  if (!mapped) return undefined;
  const custom = e.code!.startsWith('SV');
  const body: ErrorBody = {
    // Our own errors may name a more precise code in DETAIL (e.g. time_tracking_disabled).
    error: (custom && e.detail) || mapped.error,
    message: custom ? e.message : describeConstraint(e),
  };
  if (mapped.status === 400) body.issues = { [e.column || constraintField(e) || 'input']: body.message! };
  // The input field a 403, 404 or 409 is about (the setting refused; the id not found; the name already taken), when
  // the SQL names it.
  if ((mapped.status === 403 || mapped.status === 404 || mapped.status === 409) && custom && e.column) body.field = e.column;
  // A unique index lost to a concurrent call, or a row referenced gone meanwhile (the SQL checked first, and the other
  // call got there in between): the field, by the constraint's name less its workspace (agents_workspace_id_profile_key_key
  // → profileKey; issue_labels_workspace_id_label_id_fkey → labelId).
  if (e.code === '23505' || e.code === '23503') {
    const field = constraintField(e)?.replace(/^workspaceId(?=[A-Z])/, '');
    if (field) {
      body.field = field[0]!.toLowerCase() + field.slice(1);
      body.message = e.code === '23505' ? `${body.field} is already taken` : `${body.field} not found`;
    }
  }
  if (e.code!.startsWith('22')) {
    refusedInputLog?.({ sqlstate: e.code, pgMessage: e.message, detail: e.detail, column: e.column }, 'input refused by PostgreSQL (data exception → 400)');
  }
  // Worded as the Node-side check words it (REST said "This key lacks the ADMIN scope", GraphQL "scope ADMIN required").
  if (e.code === 'SVSCP' && e.hint) return scopeRequired(e.hint);
  return new ApiError(mapped.status, body);
}

/**
 * The input field a constraint is about, from its name less its table's (`chat_messages_body_check` on chat_messages →
 * body; a table of two words once made `messagesBody`); without the table, less its first word (issues_title_check).
 * The SQL functions check their input first, naming the argument; constraints are the net behind them.
 */
function constraintField(e: PgError): string | undefined {
  const name = e.constraint;
  const m = e.table && name?.startsWith(`${e.table}_`)
    ? name.slice(e.table.length + 1).match(/^(.+)_(check|key|fkey|not_null)$/)
    : name?.match(/^[a-z]+_(.+)_(check|key|fkey|not_null)$/);
  return m?.[1]?.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * What each table's CHECK allows, in words, by constraint name ("must be from 1 to 365", "must be one of A, B"):
 * read once from the catalog (loadCheckRules) so a refused value says what would pass, not only that it did not.
 * Only the simple forms are worded (bounds on a column or its length, a list of values); others keep the plain message.
 */
const checkRules = new Map<string, string>();

/** The allowed values of a CHECK definition as `pg_get_constraintdef` prints it, when it has a simple form. */
export function wordCheck(def: string): string | undefined {
  // Casts and grouping parentheses off (pg_get_constraintdef wraps every clause), length(x) and ANY (ARRAY[...]) kept.
  const body = def.replace(/^CHECK /, '').replace(/::[a-z ]+(\[\])?/g, '')
    .replace(/length\((\w+)\)/g, 'length:$1').replace(/ANY \(ARRAY\[(.*?)\]\)/, 'ANY:[$1]').replace(/[()]/g, '').trim();
  const column = '"?\\w+"?';
  const oneOf = body.match(new RegExp(`^${column} = ANY:\\[(.+)\\]$`));
  if (oneOf) return `must be one of ${oneOf[1]!.split(', ').map((v) => v.replace(/^'|'$/g, '')).join(', ')}`;
  const len = body.match(/^length:\w+ >= (\d+) AND length:\w+ <= (\d+)$/);
  if (len) return `must be ${len[1]} to ${len[2]} characters`;
  const lenMax = body.match(/^length:\w+ <= (\d+)$/);
  if (lenMax) return `must be at most ${lenMax[1]} characters`;
  const range = body.match(new RegExp(`^${column} >= (-?[\\d.]+) AND ${column} <= (-?[\\d.]+)$`));
  if (range) return `must be from ${range[1]} to ${range[2]}`;
  const min = body.match(new RegExp(`^${column} >= (-?[\\d.]+)$`));
  if (min) return `must be ${min[1]} or more`;
  return undefined;
}

/** Reads the CHECK constraints of the service's tables once (at start; errors before it keep the plain message). */
export async function loadCheckRules(pool: { query(sql: string): Promise<{ rows: Array<{ name: string; def: string }> }> }): Promise<void> {
  const { rows } = await pool.query(`select c.conname as name, pg_get_constraintdef(c.oid) as def from pg_constraint c
    where c.contype = 'c' and c.connamespace in ('app_public'::regnamespace, 'app_private'::regnamespace)`);
  for (const r of rows) {
    const words = wordCheck(r.def);
    if (words) checkRules.set(r.name, words);
  }
}

function describeConstraint(e: PgError): string {
  switch (e.code) {
    case '23505': return 'Already exists';
    case '23503': return 'Referenced record not found';
    case '42501': return 'Not permitted for this key';
    case '57014': return 'The call ran past its time limit (the database was busy, or it asked for too much): try again, or ask for less (fewer rows, smaller first/last, fewer nested lists)';
    // The table's rule, not PostgreSQL's sentence (which names the relation and the constraint).
    case '23514': {
      const field = constraintField(e);
      const rule = e.constraint ? checkRules.get(e.constraint) : undefined;
      return field ? (rule ? `${field} ${rule}` : `${field} is not an allowed value`) : 'A value is not allowed';
    }
    default: return FRIENDLY[e.code!] ?? (e.code!.startsWith('22') ? DATA_EXCEPTION_MESSAGE : e.message);
  }
}

/** The database refused the key itself (revoked, expired or its agent archived a moment ago): the whole request is refused. */
export const refusesKey = (err: unknown): err is ApiError =>
  err instanceof ApiError && (err.status === 401 || (err.status === 403 && err.body.error === 'agent_archived'));
