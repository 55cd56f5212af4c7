// For keyboard and screen-reader users (an outside probe used the board with the keyboard only and read its
// accessibility tree; docs/decisions.md, "The board for the keyboard and screen readers"): where the focus goes
// after an action and on a view change, the one polite live region that says what an action did, and the switch
// that turns the single-key shortcuts off.
import { useLayoutEffect, useState } from 'preact/hooks';

/**
 * Gives the focus to the first of `targets` found (a selector, or a function finding the element) once the page has
 * rendered what the action changed, but only when the focus was lost meanwhile (the control used went away, or was
 * disabled, and the browser put the focus on <body>): a person who has moved on is left where they are.
 */
export function refocus(...targets: (string | (() => Element | null | undefined))[]): void {
  refocusFrom(undefined, ...targets);
}

/**
 * refocus, also when the focus is still inside `from` (the form whose control was used): Chromium 156 keeps the focus
 * on a button that was disabled and enabled again (a Save while saving), where earlier versions left it on <body>, so
 * a refused Save kept the focus on Save instead of giving it back to the text to fix.
 */
export function refocusFrom(from: (() => Element | null | undefined) | undefined, ...targets: (string | (() => Element | null | undefined))[]): void {
  setTimeout(() => {
    const at = document.activeElement;
    if (at && at !== document.body && at.isConnected && !from?.()?.contains(at)) return;
    for (const t of targets) {
      const el = typeof t === 'string' ? document.querySelector(t) : t();
      if (el instanceof HTMLElement) { el.focus(); return; }
    }
  });
}

let announce: ((text: string) => void) | undefined;
/** Says a short message in the page's live region ("Status saved", "12 issues"); a screen reader reads it once. */
export const say = (text: string) => announce?.(text);

/**
 * The page's one polite live region (role=status): what say() writes. Saying the same message again alternates a
 * trailing no-break space, so it is a change the screen reader reads again ("Status saved" twice).
 */
export function Announcer() {
  const [said, setSaid] = useState({ text: '', n: 0 });
  useLayoutEffect(() => {
    announce = (text) => setSaid((s) => ({ text, n: s.n + 1 }));
    return () => { announce = undefined; };
  }, []);
  return <p id="announcer" class="sr-only" role="status">{said.text}{said.n % 2 ? '\u00a0' : ''}</p>;
}

/** A number of issues in words: "No issues", "1 issue", "50 or more issues". */
export const issuesInWords = (n: number, more = false) =>
  `${n ? n.toLocaleString('en') : 'No'}${more ? ' or more' : ''} issue${n === 1 && !more ? '' : 's'}`;

// Views and places. On a view change (another route, not a new search or filter) the new view takes the focus once
// it has something to show: its h1 (tabindex=-1), or, back on a board or list address that was left by opening an
// issue, the card or row that was opened, at the scroll it was left at. Read from the hashchange, which fires
// before the page re-renders, so the view left is still on screen.
const route = (hash: string) => hash.split('?')[0]!.replace(/^#\/?/, '') || 'board';
const isIndex = (hash: string) => /^(board|list)$/.test(route(hash));
const isIssue = (hash: string) => route(hash).startsWith('issue/');
const places = new Map<string, { key?: string; y: number; x: number }>();
let arriving = true; // the first view shown (after signing in, or a reload) takes the focus too
/** The address an issue was opened from (a board, the list or Agents), for its way back; undefined: the list. */
let cameFrom: string | undefined;
/** The views an issue page's way back names, by route. */
const WAYS_BACK: Record<string, string> = { board: 'Board', list: 'Issues', agents: 'Agents' };

addEventListener('hashchange', (e) => {
  const from = new URL(e.oldURL).hash || '#/board';
  const to = location.hash;
  if (route(from) === route(to)) return;
  arriving = true;
  // Set whenever an issue is opened from another view (it was set only on leaving a board or list, so an issue
  // opened from Agents still led back to a board left long before); from one issue to another it stays.
  if (isIssue(to) && !isIssue(from)) cameFrom = WAYS_BACK[route(from)] ? from : undefined;
  if (!isIndex(from)) return;
  const at = document.activeElement?.closest<HTMLElement>('main [data-key]');
  places.set(from, { key: at?.dataset.key, y: scrollY, x: document.querySelector('main')?.scrollLeft ?? 0 });
});

/** The address (filters and search included) an issue was opened from, and the view's name ("Board"), if any. */
export const openedFrom = () => (cameFrom ? { href: cameFrom, name: WAYS_BACK[route(cameFrom)]! } : undefined);

/** The view's part: once `ready` (its content is on screen), takes the focus if the view was just arrived at. */
export function useArrival(ready: boolean) {
  useLayoutEffect(() => {
    if (!ready || !arriving) return;
    arriving = false;
    // Someone typing already (the search box, "/" pressed while the view loaded) keeps their place.
    if (document.activeElement?.matches('input, textarea, select')) return;
    const place = places.get(location.hash);
    const item = place?.key ? document.querySelector(`main [data-key="${CSS.escape(place.key)}"]`) : null;
    const target = item?.matches('a') ? item : item?.querySelector('a');
    if (place && target instanceof HTMLElement) {
      scrollTo(scrollX, place.y);
      const main = document.querySelector('main');
      if (main) main.scrollLeft = place.x;
      // Then into view if it is not (WCAG 2.4.11): a card moved meanwhile to a column off to the right was focused
      // out of sight (at 390 px, 1,356 px to the right of the board's restored scroll). Where it is seen, nothing moves.
      target.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      target.focus({ preventScroll: true });
    } else document.querySelector<HTMLElement>('main h1')?.focus();
  }, [ready]);
}

/** A new sign-in shows its first view: it takes the focus as a view change would. */
export const expectArrival = () => { arriving = true; };

// Single-key shortcuts ("/" to search, j/k in the list) can be turned off (WCAG 2.1.4: speech input types letters),
// by the header's checkbox, remembered in this browser.
const SHORTCUTS = 'svc.shortcuts';
export const shortcutsOn = () => localStorage.getItem(SHORTCUTS) !== 'off';
export const setShortcuts = (on: boolean) => (on ? localStorage.removeItem(SHORTCUTS) : localStorage.setItem(SHORTCUTS, 'off'));
