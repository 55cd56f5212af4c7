/**
 * One GraphQL request holds at most one database connection at a time, for at most REQUEST_BUDGET_MS in all.
 *
 * PostGraphile runs a request's root fields (and their aliases) as separate statements, concurrently, each on a
 * connection of its own: an outside probe's one request of 450 aliased `totalCount` fields held every connection of
 * the pool for 15 s, and another workspace's issues.get waited as long. The statement timeout bounded each statement,
 * not the request. Here a request's statements take turns (they are told apart by the request's pgSettings object,
 * which PostGraphile passes to every statement of one request), and each runs under what is left of the request's
 * budget as its statement timeout; a statement that would start with nothing left is refused. The request's tool
 * fields (issuesList, …) take the same turns; one that starts inside the budget runs under the tool calls' own
 * statement timeout (30 s), as it is one statement of the tool runner's.
 *
 * Its statements also return at most REQUEST_BYTES_MAX in all, counted as each result arrives and before PostGraphile
 * shapes any of it: the row estimate (limits.ts) counts rows, not their size, and an outside probe's 50,000 comments
 * each with its issue's 60,000-character description made a 189 MB answer whose shaping and serialising held the
 * event loop, so every workspace, for over 2 s.
 */
import { ApiError } from '../errors.ts';

/** What one GraphQL request may spend in the database, all its statements together. */
export const REQUEST_BUDGET_MS = 10_000;
/** What one GraphQL request's statements may return, all together: characters of text plus 8 per other value. */
export const REQUEST_BYTES_MAX = 16 * 1024 * 1024;

type PgSettings = Record<string, string | undefined> | null | undefined;
export type WithPgClient = ((pgSettings: PgSettings, callback: (client: never) => Promise<unknown>) => Promise<unknown>) & { release?: () => void };

interface RequestTurns {
  /** The statement before this one settles. */
  last: Promise<unknown>;
  /** When the request's first statement started. */
  startedAt: number;
  /** What its statements have returned so far (sizeOf). */
  bytes: number;
}

/** A client of PostGraphile's pg adaptor, as much of it as is measured here. */
interface AdaptorClient {
  query(opts: unknown): Promise<{ rows: unknown[] }>;
  withTransaction<T>(callback: (client: AdaptorClient) => Promise<T>): Promise<T>;
}

export const budgetSpent = () => new ApiError(400, {
  error: 'query_too_expensive',
  message: `The request ran past its time limit (${REQUEST_BUDGET_MS / 1000} s in the database for all its fields) and nothing of it was kept: ` +
    'a query may ask for less (fewer fields and aliases, smaller first/last, fewer nested lists); a change this large (a label on thousands of issues, ' +
    'each change an event for every webhook) may be made as a tool call over REST or MCP, which has 30 s',
});

export const answerTooLarge = () => new ApiError(400, {
  error: 'response_too_large',
  message: `The answer would be larger than ${REQUEST_BYTES_MAX / 1024 / 1024} MB: ask for fewer rows (smaller first/last, pass first on every list) or fewer long fields (descriptions, bodies, payloads) per row`,
});

/**
 * The size of a result's rows (text in characters, 8 for any other value), or more than `limit` as soon as it is
 * past it: walked without recursion, so a deep value cannot overflow the stack.
 */
export function sizeOf(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length && size <= limit) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length;
    else if (Array.isArray(v)) { size += 8; for (const x of v) stack.push(x); }
    else if (v !== null && typeof v === 'object') { size += 8; for (const x of Object.values(v)) stack.push(x); }
    else size += 8;
  }
  return size;
}

/** A client whose results count towards the request's REQUEST_BYTES_MAX, in a transaction too. */
function measured(client: AdaptorClient, turns: RequestTurns, maxBytes: number): AdaptorClient {
  return {
    ...client,
    async query(opts) {
      const result = await client.query(opts);
      turns.bytes += sizeOf(result.rows, maxBytes - turns.bytes);
      if (turns.bytes > maxBytes) throw answerTooLarge();
      return result;
    },
    withTransaction: (callback) => client.withTransaction((inner) => callback(measured(inner, turns, maxBytes))),
  };
}

/** The turns of each request, by its pgSettings object (its statements and its tool fields share them). */
const requests = new WeakMap<object, RequestTurns>();

/**
 * Runs `work` in the request's turn: after the request's earlier statements and tool calls, with the milliseconds
 * left of its budget; refused (400 query_too_expensive) when none are left.
 */
export function inTurn<T>(request: object, work: (leftMs: number) => Promise<T>, budgetMs = REQUEST_BUDGET_MS, now = () => Date.now()): Promise<T> {
  let turns = requests.get(request);
  if (!turns) requests.set(request, (turns = { last: Promise.resolve(), startedAt: now(), bytes: 0 }));
  const startedAt = turns.startedAt;
  const mine = turns.last.then(() => {
    const left = budgetMs - (now() - startedAt);
    if (left <= 0) throw budgetSpent();
    return work(Math.ceil(left));
  });
  // A statement that failed still lets the next one go.
  turns.last = mine.catch(() => undefined);
  return mine;
}

/** Wraps a withPgClient so that the statements of one request take turns, under the request's time and size budgets. */
export function oneConnectionPerRequest(inner: WithPgClient, budgetMs = REQUEST_BUDGET_MS, now = () => Date.now(), maxBytes = REQUEST_BYTES_MAX): WithPgClient {
  const wrapped: WithPgClient = (pgSettings, callback) => {
    // Without settings (introspection of a request without a key, PostGraphile's own reads): as it was.
    if (!pgSettings) return inner(pgSettings, callback);
    return inTurn(pgSettings, (left) => inner({ ...pgSettings, statement_timeout: `${left}ms` },
      ((client: AdaptorClient) => callback(measured(client, requests.get(pgSettings)!, maxBytes) as never)) as never), budgetMs, now);
  };
  wrapped.release = () => inner.release?.();
  return wrapped;
}

/**
 * Gives a request's place in its workspace's share back when its answer is written, and in any case once its budget
 * is surely spent: a client that hangs up does not stop the request's statements, and one that hung up while the
 * request waited for its place closed the response before these listeners were added (its 'close' never comes).
 */
export function releaseWhenAnswered(
  res: { once(event: 'finish', listener: () => void): unknown },
  release: () => void,
  holdMs = REQUEST_BUDGET_MS + 1_000,
): void {
  res.once('finish', release);
  setTimeout(release, holdMs).unref();
}
