// The web board (issue 15): sign in with a key (kept in this tab's sessionStorage), then a board, a list,
// issue pages and the agents view, read and written through /graphql, live from the SSE stream.
// Routes: #/board, #/list, #/issue/ENG-1, #/agents.
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { follow, gql, storedKey, storeKey, type LiveState } from './api.ts';
import { Agents } from './agents.tsx';
import { Board } from './board.tsx';
import { loadMeta, may, type Filters } from './data.ts';
import { FilterBar } from './filters.tsx';
import { useHash, useLive } from './hooks.ts';
import { IssuePage } from './issue.tsx';
import { List } from './list.tsx';
import './style.css';

function SignIn({ onKey }: { onKey(key: string): void }) {
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const input = (e.target as HTMLFormElement).elements.namedItem('key') as HTMLInputElement;
    const key = input.value.trim();
    try {
      await gql('query SignIn { currentWorkspace { key } }', undefined, key);
      input.value = '';
      onKey(key);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form id="signin" onSubmit={submit}>
      <label for="key">API key (personal or session)</label>
      <input id="key" name="key" type="password" autocomplete="off" required placeholder="svc_sk_…" />
      <button type="submit">Sign in</button>
      <p id="signin-error" class="error" role="alert">{error}</p>
    </form>
  );
}

function Workspace({ signOut }: { signOut(): void }) {
  const hash = useHash();
  const meta = useLive(loadMeta, []);
  const [live, setLive] = useState<LiveState>({ on: false });
  const [filters, setFilters] = useState<Filters>({});
  const [query, setQuery] = useState('');
  const [typed, setTyped] = useState('');
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => follow(storedKey()!, setLive), []);
  useEffect(() => {
    const t = setTimeout(() => setQuery(typed.trim()), 150);
    return () => clearTimeout(t);
  }, [typed]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== '/' || (e.target as HTMLElement).matches('input, textarea, select')) return;
      e.preventDefault();
      search.current?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    if (meta.error && /invalid|revoked|expired|bearer/i.test(meta.error)) signOut();
  }, [meta.error]);

  const route = hash.replace(/^#\/?/, '').split('/');
  const view = route[0] || 'board';
  const m = meta.data;
  const searchable = view === 'board' || view === 'list';
  // The tab's title names the view and the workspace (the issue page adds the issue's title once loaded).
  useEffect(() => {
    const page = view === 'issue' ? decodeURIComponent(route[1] ?? '') : ({ board: 'Board', list: 'Issues', agents: 'Agents' } as Record<string, string>)[view] ?? 'Not found';
    document.title = m ? `${page} · ${m.workspace.name}` : page;
  }, [hash, m]);
  return (
    <>
      <header class="top">
        <strong id="workspace">{m ? `${m.workspace.name} (${m.workspace.key})` : 'Issue board'}</strong>
        <nav>
          {[['board', 'Board'], ['list', 'List'], ['agents', 'Agents']].map(([v, text]) => (
            <a key={v} href={`#/${v}`} class={view === v ? 'active' : ''} id={`nav-${v}`}>{text}</a>
          ))}
        </nav>
        {searchable && <input id="search" ref={search} type="search" placeholder="Search issues  ( / )" aria-label="Search issues" value={typed}
          onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            if (e.key !== 'Escape' && e.key !== 'Enter') return;
            e.preventDefault(); // Chrome would empty a search field on Escape without telling us: keep what is searched
            (e.target as HTMLInputElement).blur();
          }} />}
        {m && !may(m, 'WRITE_ISSUES') && <span id="readonly" class="badge" title="This key may read but not change issues">read-only</span>}
        <span id="live" class={live.on ? 'live' : 'live off'} title={!live.on && live.refused ? `No live updates: ${live.refused}` : undefined}>
          {live.on ? 'live' : live.refused ? 'not live: reload to see changes' : 'offline'}
        </span>
        <button id="signout" type="button" onClick={signOut}>Sign out</button>
      </header>
      {meta.error && !m && <p class="error" role="alert">{meta.error}</p>}
      {m && searchable && <FilterBar meta={m} filters={filters} onChange={setFilters} />}
      {/* Keyed by what is searched and filtered: a new search starts from its first page and its first row. */}
      {m && view === 'board' && <Board key={JSON.stringify(filters) + query} meta={m} filters={filters} query={query} />}
      {m && view === 'list' && <List key={JSON.stringify(filters) + query} meta={m} filters={filters} query={query} />}
      {m && view === 'issue' && route[1] && <IssuePage issueKey={decodeURIComponent(route[1])} meta={m} />}
      {m && view === 'agents' && <Agents meta={m} />}
      {!['board', 'list', 'issue', 'agents'].includes(view) && (
        <main class="notfound"><p class="empty">There is no page “{view}”. <a href="#/board">Back to the board</a></p></main>
      )}
    </>
  );
}

function App() {
  const [key, setKey] = useState(storedKey());
  if (!key) return <SignIn onKey={(k) => { storeKey(k); setKey(k); }} />;
  return <Workspace key={key} signOut={() => { storeKey(null); setKey(null); }} />;
}

render(<App />, document.getElementById('app')!);
