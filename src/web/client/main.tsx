// The web board (issue 15): sign in with a key (kept in this tab's sessionStorage), then a board, a list,
// issue pages and the agents view, read and written through /graphql, live from the SSE stream.
// Routes: #/board, #/list, #/issue/ENG-1, #/agents.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Announcer, expectArrival, refocus, setShortcuts, shortcutsOn, useArrival } from './a11y.tsx';
import { announce, follow, gql, onKeyRefused, poll, storedKey, storeKey, type LiveState } from './api.ts';
import { Agents } from './agents.tsx';
import { Board } from './board.tsx';
import { loadMeta, may, PRIORITIES, type Filters, type Meta } from './data.ts';
import { FilterBar } from './filters.tsx';
import { fieldState, replaceHash, useHash, useLive } from './hooks.ts';
import { DRAFT_PREFIX, IssuePage } from './issue.tsx';
import { List } from './list.tsx';
import { Who } from './profile.tsx';
import { chars, cut, tooLong } from './text.ts';
import './style.css';

/** Event kinds that change what the header and filters show (workspace, statuses, projects, labels, cycles, agents,
 * members and their names); issue, comment and run events do not, so they leave that read alone. */
const changesMeta = (kind: string) =>
  /^(WORKSPACE_|STATUS_|PROJECT_|LABEL_|CYCLE_|MEMBERSHIP_|USER_UPDATED$)/.test(kind) || /^AGENT_(CREATED|UPDATED|DELETED|STATUS_CHANGED)$/.test(kind);

/** A hash part as typed, or as it is when it is not valid percent-encoding (#/issue/%E0%A4%A). */
const decoded = (part: string) => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

function SignIn({ onKey, reason }: { onKey(key: string): void; reason?: string }) {
  const [error, setError] = useState(reason ?? '');
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []); // the page's one task: the key goes here
  const submit = async (e: Event) => {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).elements.namedItem('key') as HTMLInputElement;
    // "Bearer svc_sk_…" pasted from a header or a script is the key after the word.
    const key = input.value.trim().replace(/^Bearer\s+/i, '');
    try {
      // The board is for people: an agent's key would act as the agent in everything done here. Asked first, so
      // an agent's key hears that rather than which scope it lacks.
      const { viewerKeyKind } = await gql('query KeyKind { viewerKeyKind }', undefined, key);
      if (viewerKeyKind === 'AGENT') throw new Error('This is an agent\'s key; sign in with a personal or session key');
      await gql('query SignIn { currentWorkspace { key } }', undefined, key);
      input.value = '';
      onKey(key);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form id="signin" onSubmit={submit}>
      <h1>Issue board</h1>
      <label for="key">API key (personal or session)</label>
      <input id="key" ref={field} name="key" type="password" autocomplete="off" required placeholder="svc_sk_…" {...fieldState(error, error && 'signin-error')} />
      <button type="submit">Sign in</button>
      <p id="signin-error" class="error" role="alert">{error}</p>
      <p class="hint">No key yet? Where <code>svc start</code> runs: <code>npx svc admin create-key --workspace KEY --user you@example.com</code>. The key stays in this tab only.</p>
    </form>
  );
}

/**
 * Signing out ends a SESSION key (made for a browser session; it stops working everywhere, as signing out of a
 * site does). A PERSONAL key is only forgotten by this tab: it may serve scripts and other places too.
 */
async function endSession(): Promise<void> {
  try {
    const { viewerKeyKind, viewerKeyId: keyId } = await gql('query CurrentKey { viewerKeyKind viewerKeyId }');
    if (viewerKeyKind === 'SESSION') await gql('mutation EndSession($keyId: UUID!) { accessRevoke(input: {keyId: $keyId}) { clientMutationId } }', { keyId });
  } catch {
    // Signing out of this tab happens anyway; the key then expires on its own.
  }
  // Signing out on purpose ends the tab's drafts too (a refused key keeps them for signing in again).
  for (const k of Object.keys(sessionStorage)) if (k.startsWith(DRAFT_PREFIX)) sessionStorage.removeItem(k);
}

/** What the header's "Key shortcuts" checkbox turns on and off (its tooltip and description). */
const SHORTCUTS_HINT = 'Single-key shortcuts: / goes to the search box, j and k move in the list';

const FILTER_NAMES = ['project', 'label', 'assignee', 'priority', 'cycle'] as const;
/** The search box's limit, and the service's for `query` (characters): a longer q in an address is cut to it. */
const QUERY_MAX = 200;
/**
 * The pause in typing after which the box searches. Each search reads every column (one call of the key's rate limit
 * each): at 150 ms every keystroke of someone typing searched, and a sentence typed used up the minute's 300 calls.
 */
const SEARCH_PAUSE_MS = 400;
/** The filters and the search a board or list address carries (#/board?project=…&q=…). */
function addressed(hash: string): { filters: Filters; q: string } {
  const params = new URLSearchParams(hash.split('?')[1] ?? '');
  return { filters: Object.fromEntries(FILTER_NAMES.flatMap((k) => (params.get(k) ? [[k, params.get(k)!]] : []))), q: cut(params.get('q') ?? '', QUERY_MAX) };
}

/** What a search cut to QUERY_MAX in an address says (undefined when it was not). */
const cutNotice = (hash: string) => (chars(new URLSearchParams(hash.split('?')[1] ?? '').get('q') ?? '') > QUERY_MAX
  ? `The search in the address was cut to its first ${QUERY_MAX} characters.` : undefined);

/**
 * The filters of an address that name something of this workspace the key sees; the others are dropped (said in a
 * notice) rather than sent for the service's validation message ("labelIds.0: labelIds must be a UUID…"), which
 * says nothing to someone who followed a link.
 */
function usable(filters: Filters, m: Meta): { filters: Filters; dropped: string[] } {
  const known: Record<keyof Filters, (v: string) => boolean> = {
    project: (v) => m.projects.some((p) => p.rowId === v),
    label: (v) => m.labels.some((l) => l.rowId === v),
    cycle: (v) => m.cycles.some((c) => c.rowId === v),
    priority: (v) => PRIORITIES.includes(v),
    assignee: (v) => v === 'none' || m.agents.some((a) => `agent:${a.rowId}` === v) || m.users.some((u) => `user:${u.rowId}` === v),
  };
  const kept: Filters = {};
  const dropped: string[] = [];
  for (const name of FILTER_NAMES) {
    const value = filters[name];
    if (!value) continue;
    if (known[name](value)) kept[name] = value;
    else dropped.push(name);
  }
  return { filters: kept, dropped };
}

function Workspace({ signOut }: { signOut(reason?: string): void }) {
  const hash = useHash();
  const meta = useLive(loadMeta, [], { wants: changesMeta });
  const [live, setLive] = useState<LiveState>({ on: false });
  // What is filtered and searched lives in the address (#/board?label=…&q=…): a reload keeps it, a link shares it.
  const [filters, setFilters] = useState<Filters>(() => addressed(location.hash).filters);
  const [typed, setTyped] = useState(() => addressed(location.hash).q);
  const [query, setQuery] = useState(typed.trim());
  // Said instead of refusing keystrokes (maxLength counts UTF-16 units: it took 100 emoji of the 200 characters).
  const overLong = tooLong(typed.trim(), QUERY_MAX, 'search');
  // What an address asked for that could not be applied (a filter naming nothing here, a search cut to 200).
  const [notice, setNotice] = useState<string | undefined>(() => cutNotice(location.hash));
  const search = useRef<HTMLInputElement>(null);
  const [shortcuts, setShortcutsShown] = useState(shortcutsOn);
  // The address the filters and the search are in step with: the one they were read from (at the start, or when
  // followed) or the one written from them (replaceHash). Another hash is an address followed.
  const synced = useRef(location.hash);

  // The stream needs SUBSCRIBE_EVENTS: a key without it is told so here, without a request the service would refuse.
  const mayFollow = meta.data && may(meta.data, 'SUBSCRIBE_EVENTS');
  useEffect(() => {
    if (mayFollow === undefined) return;
    if (!mayFollow) {
      setLive({ on: false, refused: 'this key lacks the SUBSCRIBE_EVENTS scope' });
      return poll();
    }
    return follow(storedKey()!, setLive);
  }, [mayFollow]);
  useEffect(() => {
    onKeyRefused((reason) => signOut(`Signed out: ${reason}`));
    return () => onKeyRefused(undefined);
  }, []);
  useEffect(() => {
    // A search typed past the limit searches its first QUERY_MAX characters (and says so under the box).
    const t = setTimeout(() => setQuery(cut(typed.trim(), QUERY_MAX)), SEARCH_PAUSE_MS);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || !shortcutsOn() || e.ctrlKey || e.metaKey || e.altKey || (e.target as HTMLElement).matches('input, textarea, select')) return;
      e.preventDefault();
      search.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (meta.error && /invalid|revoked|expired|bearer/i.test(meta.error)) signOut(`Signed out: ${meta.error}`);
  }, [meta.error]);

  const route = hash.split('?')[0]!.replace(/^#\/?/, '').split('/');
  const view = route[0] || 'board';
  const issueKey = decoded(route[1] ?? '').trim();
  const m = meta.data;
  const searchable = view === 'board' || view === 'list';
  const notFound = (view === 'issue' && !issueKey) || !['board', 'list', 'issue', 'agents'].includes(view);
  useArrival(notFound);
  // The filters applied: those the address (or the filter bar) gave that name something here.
  const applied = m ? usable(filters, m) : { filters, dropped: [] };
  const params = new URLSearchParams(Object.entries({ ...applied.filters, q: query }).filter((e): e is [string, string] => Boolean(e[1])));
  const carried = params.size ? `?${params}` : '';
  const droppedNow = applied.dropped.join(', ');
  // Whether this render's filters and search are the address's: not in the render right after an address is
  // followed (the effect below reads it into the state for the next one), when writing them would put back the
  // address left.
  const inStep = hash === synced.current;
  // An address followed (a link, back, forward, an edited address) brings its own filters and search.
  useEffect(() => {
    if (hash === synced.current) return; // the address the state was read from, or written from it
    synced.current = hash;
    if (!searchable) { setNotice(undefined); return; }
    const { filters: wanted, q } = addressed(hash);
    if (JSON.stringify(wanted) !== JSON.stringify(filters)) setFilters(wanted);
    if (q !== query) { setTyped(q); setQuery(q); }
    setNotice(cutNotice(hash));
  }, [hash]);
  // The address follows the filters and the search (replaceState: no hashchange, no history entry per keystroke).
  // Filters naming nothing here (dropped below) leave it too, also when the filters applied stay the same
  // (#/board to #/board?label=bad: `carried` is "" before and after), so a reload does not bring them back.
  useEffect(() => {
    // Not once another address was followed after this render (the effect runs after paint: a link followed in
    // between, "List" pressed as a search landed, was replaced by the board's address again).
    if (!searchable || !inStep || location.hash !== hash) return;
    const want = `#/${view}${carried}`;
    if (location.hash === want) return;
    synced.current = want;
    replaceHash(want);
  }, [view, carried, droppedNow, inStep]);
  // Filters naming nothing here are dropped from the state (and the address, above), and said once.
  useEffect(() => {
    if (!droppedNow) return;
    setFilters(applied.filters);
    const words = applied.dropped.map((f) => (f === 'priority' ? `priority “${filters.priority}” (not a priority)` : `${f} (none such here)`));
    setNotice((n) => `Left out of the address's filters: ${words.join(', ')}.${n ? ` ${n}` : ''}`);
  }, [droppedNow]);
  // The tab's title names the view and the workspace. Once the workspace is known the issue page sets its own
  // (with the issue's title): two effects writing it raced, a re-read of meta overwriting the issue's title.
  useEffect(() => {
    if (view === 'issue' && issueKey && m) return;
    const page = view === 'issue' ? issueKey || 'Not found' : ({ board: 'Board', list: 'Issues', agents: 'Agents' } as Record<string, string>)[view] ?? 'Not found';
    document.title = m ? `${page} · ${m.workspace.name}` : page;
  }, [hash, m]);
  return (
    <>
      <header class="top">
        <strong id="workspace">{m ? <><bdi>{m.workspace.name}</bdi> ({m.workspace.key})</> : 'Issue board'}</strong>
        <nav>
          {[['board', 'Board'], ['list', 'List'], ['agents', 'Agents']].map(([v, text]) => (
            <a key={v} href={`#/${v}${v === 'agents' ? '' : carried}`} class={view === v ? 'active' : ''} id={`nav-${v}`}>{text}</a>
          ))}
        </nav>
        {searchable && <input id="search" ref={search} type="search" placeholder={shortcuts ? 'Search issues  ( / )' : 'Search issues'} aria-label="Search issues" value={typed} dir="auto"
          aria-describedby={overLong ? 'search-too-long' : undefined}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            // Chrome would empty a search field on Escape without telling us: keep what is searched. The focus stays
            // in the box (it used to be blurred, which left a keyboard user on <body>); the count of what it finds is
            // said in the live region, and Tab goes on to the filters and the results.
            if (e.key === 'Escape' || e.key === 'Enter') e.preventDefault();
          }} />}
        {searchable && (
          <label class="shortcuts" title={SHORTCUTS_HINT}>
            <input type="checkbox" id="shortcuts" checked={shortcuts} title={SHORTCUTS_HINT}
              onChange={(e) => { const on = (e.target as HTMLInputElement).checked; setShortcuts(on); setShortcutsShown(on); }} /> Key shortcuts
          </label>
        )}
        {m && !may(m, 'WRITE_ISSUES') && <span id="readonly" class="badge" title="This key may read but not change issues">read-only</span>}
        <span id="live" role="status" class={live.on ? 'live' : 'live off'} title={!live.on && live.refused ? `No live updates: ${live.refused}` : undefined}>
          {live.on ? 'live' : live.refused ? 'not live: refreshed every 15 s' : 'offline'}
        </span>
        {m && <Who meta={m} onSaved={async () => {
          // The header's read first (the new name shows as the dialog closes), then what else is on screen, as the
          // stream's USER_UPDATED would (it arrives too, for a key that may follow it: the two re-reads are paced as one).
          await meta.reload();
          announce('USER_UPDATED');
        }} />}
        <button id="signout" type="button" onClick={() => void endSession().finally(() => signOut())}>Sign out</button>
      </header>
      {meta.error && !m && <p class="error" role="alert">{meta.error}</p>}
      {m && searchable && <FilterBar meta={m} filters={applied.filters} onChange={(f) => { setNotice(undefined); setFilters(f); }} />}
      {overLong && searchable && <p class="notice" id="search-too-long" role="status">{overLong} Searching its first {QUERY_MAX}.</p>}
      {notice && searchable && (
        <p class="notice" id="address-notice" role="status">{notice}{' '}
          <button type="button" class="link" aria-label="Dismiss this notice" onClick={() => { setNotice(undefined); refocus('#search'); }}>×</button></p>
      )}
      {/* A new search starts from its first page (and the list from its first row). The board is not re-mounted by
          one, so a new-issue form opened while a search was typed stays open. */}
      {m && view === 'board' && <Board meta={m} filters={applied.filters} query={query} />}
      {m && view === 'list' && <List key={JSON.stringify(applied.filters) + query} meta={m} filters={applied.filters} query={query} shortcuts={shortcuts} />}
      {/* Keyed by issue: another issue's page starts with its own comment draft and editors. */}
      {m && view === 'issue' && issueKey && <IssuePage key={issueKey.toUpperCase()} issueKey={issueKey.toUpperCase()} meta={m} />}
      {m && view === 'agents' && <Agents meta={m} />}
      {view === 'issue' && !issueKey && (
        <main class="notfound"><h1 tabIndex={-1}>No issue named</h1><p class="empty">This address names no issue (it should end like <code>#/issue/ENG-12</code>). <a href="#/board">Back to the board</a></p></main>
      )}
      {notFound && view !== 'issue' && (
        <main class="notfound"><h1 tabIndex={-1}>Page not found</h1><p class="empty">There is no page “{decoded(view)}”. <a href="#/board">Back to the board</a></p></main>
      )}
      <Announcer />
    </>
  );
}

function App() {
  const [key, setKey] = useState(storedKey());
  const [reason, setReason] = useState<string>();
  if (!key) return <SignIn reason={reason} onKey={(k) => { storeKey(k); setReason(undefined); expectArrival(); setKey(k); }} />;
  return <Workspace key={key} signOut={(why) => { storeKey(null); setReason(why); setKey(null); document.title = 'Issue board'; }} />;
}

// A footnote of rendered markdown links to an id in the page (#user-content-fn-1), but the address is the router's:
// scroll to it within its own text (two comments may both have a footnote 1) instead of going to a page of that name.
document.addEventListener('click', (e) => {
  const link = (e.target as Element | null)?.closest?.('.markdown a[href^="#user-content-"]');
  if (!link) return;
  e.preventDefault();
  const id = link.getAttribute('href')!.slice(1);
  link.closest('.markdown')?.querySelector(`[id="${CSS.escape(id)}"]`)?.scrollIntoView({ block: 'center' });
});

render(<App />, document.getElementById('app')!);
