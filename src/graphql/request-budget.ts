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
 */
import { ApiError } from '../errors.ts';

/** What one GraphQL request may spend in the database, all its statements together. */
export const REQUEST_BUDGET_MS = 10_000;

type PgSettings = Record<string, string | undefined> | null | undefined;
export type WithPgClient = ((pgSettings: PgSettings, callback: (client: never) => Promise<unknown>) => Promise<unknown>) & { release?: () => void };

interface RequestTurns {
  /** The statement before this one settles. */
  last: Promise<unknown>;
  /** When the request's first statement started. */
  startedAt: number;
}

export const budgetSpent = () => new ApiError(400, {
  error: 'query_too_expensive',
  message: `The request ran past its time limit (${REQUEST_BUDGET_MS / 1000} s in the database for all its fields): ask for less (fewer fields and aliases, smaller first/last, fewer nested lists)`,
});

/** The turns of each request, by its pgSettings object (its statements and its tool fields share them). */
const requests = new WeakMap<object, RequestTurns>();

/**
 * Runs `work` in the request's turn: after the request's earlier statements and tool calls, with the milliseconds
 * left of its budget; refused (400 query_too_expensive) when none are left.
 */
export function inTurn<T>(request: object, work: (leftMs: number) => Promise<T>, budgetMs = REQUEST_BUDGET_MS, now = () => Date.now()): Promise<T> {
  let turns = requests.get(request);
  if (!turns) requests.set(request, (turns = { last: Promise.resolve(), startedAt: now() }));
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

/** Wraps a withPgClient so that the statements of one request take turns, under the request's budget. */
export function oneConnectionPerRequest(inner: WithPgClient, budgetMs = REQUEST_BUDGET_MS, now = () => Date.now()): WithPgClient {
  const wrapped: WithPgClient = (pgSettings, callback) => {
    // Without settings (introspection of a request without a key, PostGraphile's own reads): as it was.
    if (!pgSettings) return inner(pgSettings, callback);
    return inTurn(pgSettings, (left) => inner({ ...pgSettings, statement_timeout: `${left}ms` }, callback), budgetMs, now);
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
