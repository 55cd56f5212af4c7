/**
 * The issue page's list windows (src/web/client/paging.ts): the newest page, read with no lower bound, merged by id
 * into what is kept. An outside tester wrote 200 comments at once and two never showed until a reload: the page was
 * read after the last row kept, and a row placed before it that committed later was never read.
 */
import { describe, expect, it } from 'vitest';
import { emptyWindow, rowsOf, withEarlier, withGap, withNewest, type Connection, type Window } from '../../src/web/client/paging.ts';

type Row = { rowId: string };
/** A page of the rows named, as the service answers `last: 50` (or a page before / between). */
const page = (ids: string[], hasPreviousPage: boolean, total: number, hasNextPage = false): Connection<Row> => ({
  edges: ids.map((rowId) => ({ cursor: `c:${rowId}`, node: { rowId } })), totalCount: total, pageInfo: { hasPreviousPage, hasNextPage },
});
const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, n) => String(from + n));
const shown = (w: Window<Row>) => rowsOf(w).rows.map((r) => r.rowId);
const merged = (w: Window<Row>, p: Connection<Row>) => withNewest(w, p, (r) => r.rowId);

describe('withNewest', () => {
  it('a row that commits after later ones shows where it belongs once, and the rows it pushes out are kept', () => {
    let w = merged(emptyWindow(), page(ids(11, 60), true, 60));
    // "11.5" was written before 12 and committed after the read: the newest 50 are now 11.5, 12..60.
    w = merged(w, page(['11.5', ...ids(12, 60)], true, 61));
    expect(shown(w)).toEqual(['11', '11.5', ...ids(12, 60)]);
    expect(rowsOf(w).gapAt).toBeUndefined();
    // Another, before rows shown by the last read.
    w = merged(w, page([...ids(12, 30), '30.5', ...ids(31, 60)], true, 62));
    expect(shown(w)).toEqual(['11', '11.5', ...ids(12, 30), '30.5', ...ids(31, 60)]);
    // "Show earlier" still reads before the first row shown.
    w = withEarlier(w, page(ids(1, 10), false, 62));
    expect(shown(w)).toEqual([...ids(1, 11), '11.5', ...ids(12, 30), '30.5', ...ids(31, 60)]);
    expect(w.earlier).toBe(false);
  });

  it('a row of the newest page replaced (edited) or gone (deleted) is so on screen', () => {
    let w = merged(emptyWindow(), page(ids(11, 60), true, 60));
    const edited = page(ids(11, 60).filter((id) => id !== '30'), true, 59);
    edited.edges[0] = { cursor: 'c:11', node: { rowId: '11', body: 'edited' } as Row };
    w = merged(w, edited);
    expect(shown(w)).toEqual(ids(11, 60).filter((id) => id !== '30'));
    expect((rowsOf(w).rows[0] as Row & { body?: string }).body).toBe('edited');
  });

  it('more than a page at once leaves a gap, which reading it closes; a page holding the whole list drops what it lacks', () => {
    let w = merged(emptyWindow(), page(ids(1, 50), true, 60));
    w = merged(w, page(ids(71, 120), true, 120));
    expect(shown(w)).toEqual([...ids(1, 50), ...ids(71, 120)]);
    expect(rowsOf(w).gapAt).toBe(50);
    w = withGap(w, page(ids(51, 70), true, 120));
    expect(shown(w)).toEqual(ids(1, 120));
    expect(rowsOf(w).gapAt).toBeUndefined();
    // Rows deleted until the list is one page: it is that page.
    w = merged(w, page(ids(1, 50).filter((id) => id !== '7'), false, 49));
    expect(shown(w)).toEqual(ids(1, 50).filter((id) => id !== '7'));
  });
});
