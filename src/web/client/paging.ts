/**
 * The issue page's long lists (comments, the timeline, attachments, relations), read a page at a time through GraphQL
 * connections in their oldest-first order. The newest page is read with the issue, and read again after every change
 * the live stream reports; the pages before it are read only when asked for ("Show earlier") and kept as they were
 * read. An outside probe found the page reading all 1,505 comments of an issue (7.1 MB) again on every burst of
 * events. docs/decisions.md, "The issue page reads its lists a page at a time".
 *
 * A window of a list, oldest first: `older` (pages read on request, and rows of an earlier read of the newest page
 * that newer rows have since pushed out of it), maybe a gap, `later`, then `newest`. The newest page is the list's
 * last PAGE rows, read with no lower bound and merged into what is kept by row id: when new rows push some out of
 * the newest page, the rows the last read showed are kept instead of vanishing. It is not read after the last row
 * kept: a row whose place is before that one but that committed later (two comments written at once, the earlier
 * one committing second) was never read again, and two of 200 concurrent comments showed only after a reload. Only
 * when more than a page of rows comes between two reads can rows be missing between the kept ones and the newest
 * page: that gap is shown, with a button that reads it a page at a time.
 */
export const PAGE = 50;

export interface Edge<T> { cursor: string; node: T }
export interface Connection<T> {
  edges: Edge<T>[];
  totalCount: number;
  pageInfo: { hasPreviousPage: boolean; hasNextPage: boolean };
}
/** A connection's selection: the count, whether there is more on either side, and each row with its cursor. */
export const connection = (node: string) => `totalCount pageInfo { hasPreviousPage hasNextPage } edges { cursor node { ${node} } }`;

export interface Window<T> {
  /** Rows before the newest page, oldest first, kept as they were read. */
  older: Edge<T>[];
  /** Whether there are rows before the first one read. */
  earlier: boolean;
  /** Whether rows may be missing between `older` and what follows. */
  gap: boolean;
  /** Rows kept after the gap, before the newest page (only while there is a gap). */
  later: Edge<T>[];
  /** The newest page, as last read. */
  newest: Edge<T>[];
  /** The number of rows in the whole list (at the last read of the newest page). */
  total: number;
}

export const emptyWindow = <T>(): Window<T> => ({ older: [], earlier: false, gap: false, later: [], newest: [], total: 0 });

/** What is shown, oldest first, and where a gap is (before the row at that index). */
export function rowsOf<T>(w: Window<T>): { rows: T[]; gapAt: number | undefined } {
  const rows = [...w.older, ...w.later, ...w.newest].map((e) => e.node);
  return { rows, gapAt: w.gap ? w.older.length : undefined };
}

/**
 * The window with a new read of its newest page (`last: PAGE`, no cursor); `id` names a row. A row of the page
 * replaces the kept one of that id wherever it is; the rows of the last read that the page has moved past (those
 * before the first one it still holds) are kept, and one after that row that it does not hold was deleted.
 */
export function withNewest<T>(w: Window<T>, page: Connection<T>, id: (row: T) => string): Window<T> {
  const newest = page.edges;
  const total = page.totalCount;
  // Nothing shown yet, or the page is the whole list (a row kept that it does not hold was deleted).
  if (!page.pageInfo.hasPreviousPage || (!w.older.length && !w.later.length && !w.newest.length)) {
    return { older: [], earlier: page.pageInfo.hasPreviousPage, gap: false, later: [], newest, total };
  }
  const ids = new Set(newest.map((e) => id(e.node)));
  const held = (e: Edge<T>) => ids.has(id(e.node));
  const before = (edges: Edge<T>[]) => {
    const at = edges.findIndex(held);
    return at < 0 ? edges : edges.slice(0, at);
  };
  // The page reaches back into the older rows (rows were deleted): it follows them with nothing in between.
  if (w.older.some(held)) return { ...w, older: before(w.older), gap: false, later: [], newest, total };
  // The rows of the last read the page has moved past; when it holds none of them more than a page came at once:
  // all of them, and rows may be missing after them.
  const overlaps = w.newest.some(held);
  const moved = overlaps ? before(w.newest) : w.newest;
  if (w.gap) {
    if (w.later.some(held)) return { ...w, later: before(w.later), newest, total };
    // A second gap: the rows after the first go into it (reading the gap brings them back).
    return { ...w, later: overlaps ? [...w.later, ...moved] : [], newest, total };
  }
  return { ...w, older: [...w.older, ...moved], gap: !overlaps, newest, total };
}

/** The cursor "Show earlier" reads before (`last: PAGE, before: …`): the first row shown. */
export const earlierBefore = (w: Window<unknown>): string | undefined => (w.older[0] ?? w.later[0] ?? w.newest[0])?.cursor;

/** The window with the page before its first row (`last: PAGE, before: earlierBefore(w)`). */
export function withEarlier<T>(w: Window<T>, page: Connection<T>): Window<T> {
  return { ...w, older: [...page.edges, ...w.older], earlier: page.pageInfo.hasPreviousPage };
}

/** The range a gap is read in (`first: PAGE, after, before`). */
export const gapRange = (w: Window<unknown>) => ({ after: w.older.at(-1)?.cursor ?? null, before: (w.later[0] ?? w.newest[0])?.cursor ?? null });

/** The window with a page of its gap read: once the gap is read to its end, it is gone. */
export function withGap<T>(w: Window<T>, page: Connection<T>): Window<T> {
  const older = [...w.older, ...page.edges];
  return page.pageInfo.hasNextPage ? { ...w, older } : { ...w, older: [...older, ...w.later], later: [], gap: false };
}

/** The window with one row changed (edited: its new form; deleted: null), wherever it is kept. */
export function withRow<T>(w: Window<T>, rowId: string, id: (row: T) => string, row: T | null): Window<T> {
  let found = false;
  const patch = (edges: Edge<T>[]) => edges.flatMap((e) => {
    if (id(e.node) !== rowId) return [e];
    found = true;
    return row ? [{ ...e, node: row }] : [];
  });
  const next = { ...w, older: patch(w.older), later: patch(w.later), newest: patch(w.newest) };
  return found && !row ? { ...next, total: w.total - 1 } : next;
}

/** Whether the row is kept in the older pages (not re-read with the newest page). */
export const keptRow = <T>(w: Window<T>, rowId: string, id: (row: T) => string) => [...w.older, ...w.later].some((e) => id(e.node) === rowId);

/** "Showing the latest 50 of 1,505" (nothing while every row is shown). */
export function showing(w: Window<unknown>, noun: string, latest = 'latest'): string | undefined {
  const shown = w.older.length + w.later.length + w.newest.length;
  if (shown >= w.total && !w.earlier && !w.gap) return undefined;
  const all = `${w.total.toLocaleString('en')} ${noun}`;
  return !w.older.length && !w.later.length ? `Showing the ${latest} ${shown.toLocaleString('en')} of ${all}` : `Showing ${shown.toLocaleString('en')} of ${all}`;
}
