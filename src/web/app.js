// The web board: sign in with a key (kept in sessionStorage only), issues in status columns read through
// /graphql, drag a card to change its status (REST alias issues.update), live from the SSE stream.
const KEY = 'svc.key';
const $ = (id) => document.getElementById(id);
let key = sessionStorage.getItem(KEY);
let statuses = [];
let issues = [];
let query = '';
let stream = null;

async function graphql(text, variables) {
  const res = await fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query: text, variables }),
  });
  const body = await res.json().catch(() => ({}));
  if (res.status !== 200 || body.errors?.length) throw new Error(body.errors?.[0]?.message ?? body.message ?? `HTTP ${res.status}`);
  return body.data;
}

async function tool(name, input) {
  const res = await fetch(`/api/mcp/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(input),
  });
  const body = await res.json().catch(() => ({}));
  if (res.status !== 200) throw new Error(body.message ?? `HTTP ${res.status}`);
  return body;
}

const BOARD = `query Board {
  currentWorkspace { key name }
  statuses(orderBy: POSITION_ASC) { nodes { rowId name category } }
  issues(orderBy: NUMBER_DESC, first: 500) { nodes { rowId key title priority statusId deletedAt } }
}`;
const SEARCH = `query Search($q: String!) { searchIssues(query: $q, first: 500) { nodes { rowId key title priority statusId deletedAt } } }`;

async function load() {
  const data = await graphql(BOARD);
  $('workspace').textContent = `${data.currentWorkspace.name} (${data.currentWorkspace.key})`;
  statuses = data.statuses.nodes;
  issues = data.issues.nodes;
  if (query) issues = (await graphql(SEARCH, { q: query })).searchIssues.nodes;
  issues = issues.filter((i) => !i.deletedAt);
  render();
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (k.startsWith('data-')) node.setAttribute(k, v);
    else node[k] = v;
  }
  node.append(...children); // text only through textContent/append: nothing is parsed as HTML
  return node;
}

function render() {
  const board = $('board');
  board.replaceChildren(...statuses.map((s) => {
    const cards = issues.filter((i) => i.statusId === s.rowId).map((i) => {
      const card = el('div', { className: 'card', draggable: true, 'data-id': i.rowId, 'data-key': i.key },
        el('span', { className: 'priority' }, i.priority === 'NONE' ? '' : i.priority),
        el('span', { className: 'key' }, i.key), el('span', { className: 'title' }, i.title));
      card.addEventListener('dragstart', (e) => e.dataTransfer.setData('text/plain', i.rowId));
      return card;
    });
    const column = el('section', { className: 'column', 'data-status': s.rowId, 'data-category': s.category },
      el('h2', {}, `${s.name} · ${cards.length}`), ...cards);
    column.addEventListener('dragover', (e) => { e.preventDefault(); column.classList.add('over'); });
    column.addEventListener('dragleave', () => column.classList.remove('over'));
    column.addEventListener('drop', (e) => {
      e.preventDefault();
      column.classList.remove('over');
      const id = e.dataTransfer.getData('text/plain');
      const issue = issues.find((i) => i.rowId === id);
      if (!issue || issue.statusId === s.rowId) return;
      issue.statusId = s.rowId; // optimistic; the event stream (or the failure) brings the truth
      render();
      tool('issues.update', { id, statusId: s.rowId }).catch((err) => { alert(err.message); load(); });
    });
    return column;
  }));
}

// The SSE stream through fetch, so the key travels in the Authorization header (EventSource cannot set it).
async function follow() {
  const me = (stream = new AbortController());
  let lastId;
  while (!me.signal.aborted) {
    try {
      const res = await fetch('/api/plugins/events', {
        headers: { authorization: `Bearer ${key}`, ...(lastId ? { 'last-event-id': lastId } : {}) },
        signal: me.signal,
      });
      if (res.status !== 200) throw new Error(`events: HTTP ${res.status}`);
      $('live').hidden = false;
      $('live').className = 'live';
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const idLine = block.split('\n').find((l) => l.startsWith('id:'));
          if (idLine) lastId = idLine.slice(3).trim();
          if (block.split('\n').some((l) => l.startsWith('data:'))) scheduleReload();
        }
      }
    } catch (err) {
      if (me.signal.aborted) return;
    }
    $('live').className = 'live off';
    await new Promise((r) => setTimeout(r, 2000));
  }
}

let pending = null;
function scheduleReload() {
  clearTimeout(pending);
  pending = setTimeout(() => load().catch(() => {}), 50);
}

async function signedIn() {
  $('signin').hidden = true;
  $('board').hidden = false;
  $('signout').hidden = false;
  $('search').hidden = false;
  await load();
  follow();
}

function signIn() {
  $('signin').hidden = false;
  $('board').hidden = true;
  $('signout').hidden = true;
  $('search').hidden = true;
  $('live').hidden = true;
}

$('signin').addEventListener('submit', async (e) => {
  e.preventDefault();
  key = $('key').value.trim();
  try {
    await signedIn();
    sessionStorage.setItem(KEY, key);
    $('key').value = '';
    $('signin-error').textContent = '';
  } catch (err) {
    key = null;
    $('signin-error').textContent = err.message;
    signIn();
  }
});
$('signout').addEventListener('click', () => {
  sessionStorage.removeItem(KEY);
  key = null;
  stream?.abort();
  signIn();
});
let typing = null;
$('search').addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(() => { query = $('search').value.trim(); load().catch(() => {}); }, 150);
});

if (key) signedIn().catch(() => { sessionStorage.removeItem(KEY); key = null; signIn(); });
else signIn();
