/**
 * Text is stored composed (NFC; docs/decisions.md "Text is stored composed"). An outside tester created the labels
 * "Café" (é, U+00E9) and "Cafe\u0301" (e + combining acute) side by side, statuses likewise; issues.transition
 * {status: "Révision"} picked a different status for each form, and a search for one form did not find the other.
 * Every tool's input is composed once, where its text is checked (src/tools/text-guard.ts checkInput), on every
 * surface (REST, JSON-RPC, GraphQL tool fields); GraphQL's own mutations and filters are composed before the request
 * executes (src/graphql/nfc.ts).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkInput, composed, oneLine, SAME_NAME_MESSAGE } from '../../src/tools/text-guard.ts';
import { ok, rest, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';
import { gqlOk } from '../support/graphql.ts';

const NFC = 'Caf\u00e9';
const NFD = 'Cafe\u0301';
const REVISION_NFC = 'R\u00e9vision';
const REVISION_NFD = 'Re\u0301vision';
/** A tools/call answer's JSON (its text content). */
const toolResult = (body: any) => JSON.parse(body.result.content[0].text);

let t: TestApp;
let ws: Workspace;

beforeAll(async () => {
  ({ t, ws } = await startWithWorkspaces({ graphql: true }));
});
afterAll(() => t?.close());

describe('checkInput composes the text of a tool input', () => {
  it('strings and field names at any depth; the input itself when nothing changes; numbers, booleans, null and a secret kept', () => {
    const plain = { name: 'plain', n: 1, list: ['x', { y: true, z: null }] };
    expect(checkInput(plain).value).toBe(plain);
    const given = { name: NFD, n: 1.5, ok: false, none: null, list: [NFD, { [NFD]: NFD }], secret: NFD };
    const { value, text } = checkInput(given);
    expect(text).toEqual({});
    expect(value).toEqual({ name: NFC, n: 1.5, ok: false, none: null, list: [NFC, { [NFC]: NFC }], secret: NFD });
    // The caller's object is not changed.
    expect(given.name).toBe(NFD);
    expect(checkInput(NFD).value).toBe(NFC);
    // Two field names that are one once composed: a 400 naming it, not one of them silently dropped.
    expect(checkInput({ payload: { [NFC]: 1, [NFD]: 2 } }).text).toEqual({ [`payload.${NFD}`]: SAME_NAME_MESSAGE });
    // A __proto__ field stays a field of the copy.
    const proto = checkInput(JSON.parse(`{"__proto__": {"t": "${NFD}"}}`)).value as Record<string, unknown>;
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(composed({ v: [NFD] })).toEqual({ v: [NFC] });
  });

  it('titles from outside (GitHub, a page\'s <title>) are composed too, and never cut inside a pair', () => {
    expect(oneLine(`${NFD}\nmenu`)).toBe(`${NFC} menu`);
    expect(oneLine(`${'a'.repeat(499)}🤖🤖`)).toBe('a'.repeat(499));
    expect(oneLine(`${'a'.repeat(498)}🤖🤖`)).toBe(`${'a'.repeat(498)}🤖`);
  });
});

describe('both forms are the same text on every surface', () => {
  it('labels: the second form is 409 label_exists (REST, JSON-RPC and catalog.call)', async () => {
    const made = await ok(t, ws.token, 'labels.create', { name: NFC });
    expect(made.name).toBe(NFC);
    const again = await rest(t, ws.token, 'labels.create', { name: NFD });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('label_exists');
    const viaRpc = await rpc(t, ws.token, 'tools/call', { name: 'labels.create', arguments: { name: `${NFD} RPC` } });
    expect(toolResult(viaRpc.body).name).toBe(`${NFC} RPC`);
    const viaCatalog = await rpc(t, ws.token, 'tools/call', { name: 'catalog.call', arguments: { name: 'labels.create', arguments: { name: `${NFD} catalog` } } });
    expect(toolResult(viaCatalog.body).name).toBe(`${NFC} catalog`);
    const { rows } = await t.pools.owner.query('select name from app_public.labels where workspace_id = $1 and name like $2 order by name', [ws.id, 'Caf%']);
    expect(rows.map((r) => r.name)).toEqual([NFC, `${NFC} RPC`, `${NFC} catalog`]);
  });

  it('statuses: the second form is 409; issues.transition by name in either form picks the one status', async () => {
    const status = await ok(t, ws.token, 'statuses.create', { name: REVISION_NFC, category: 'IN_PROGRESS' });
    const again = await rest(t, ws.token, 'statuses.create', { name: REVISION_NFD, category: 'IN_PROGRESS' });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('status_exists');
    const issue = await ok(t, ws.token, 'issues.create', { title: 'to review' });
    for (const name of [REVISION_NFD, REVISION_NFC]) {
      const moved = await ok(t, ws.token, 'issues.transition', { id: issue.id, status: name });
      expect(moved.status.id ?? moved.statusId).toBe(status.id);
    }
  });

  it('a 200 answers the text composed; a search in either form finds the title in the other', async () => {
    const made = await ok(t, ws.token, 'issues.create', { title: `Menu du ${NFD} crème`, description: `Le ${NFD}` });
    expect(made.title).toBe(`Menu du ${NFC} crème`);
    expect(made.description).toBe(`Le ${NFC}`);
    const other = await ok(t, ws.token, 'issues.create', { title: `Terrasse ${NFC}` });
    for (const query of [NFD, NFC]) {
      const found = await ok(t, ws.token, 'issues.list', { query });
      expect(found.items.map((i: { id: string }) => i.id).sort(), query).toEqual([made.id, other.id].sort());
    }
  });

  it('GraphQL tool fields: literals and variables are composed before the tool runs', async () => {
    const literal = await gqlOk(t, ws.token, `mutation { labelsCreate(name: "${NFD} literal") }`);
    expect(literal.labelsCreate.name).toBe(`${NFC} literal`);
    const escaped = await gqlOk(t, ws.token, 'mutation { labelsCreate(name: "Cafe\\u0301 escaped") }');
    expect(escaped.labelsCreate.name).toBe(`${NFC} escaped`);
    const variable = await gqlOk(t, ws.token, 'mutation($n: String!) { labelsCreate(name: $n) }', { n: `${NFD} variable` });
    expect(variable.labelsCreate.name).toBe(`${NFC} variable`);
  });

  it("GraphQL's own mutations and filters: a literal, an escape, a variable and a block string are composed", async () => {
    const created = [];
    for (const [i, [query, variables]] of ([
      [`mutation { agentsCreate(input: {profileKey: "nfc-a", name: "${NFD} A"}) { agent { name } } }`, undefined],
      ['mutation { agentsCreate(input: {profileKey: "nfc-b", name: "Cafe\\u0301 B"}) { agent { name } } }', undefined],
      ['mutation($n: String!) { agentsCreate(input: {profileKey: "nfc-c", name: $n}) { agent { name } } }', { n: `${NFD} C` }],
      ['mutation($i: AgentsCreateInput!) { agentsCreate(input: $i) { agent { name } } }', { i: { profileKey: 'nfc-d', name: `${NFD} D` } }],
      [`mutation { agentsCreate(input: {profileKey: "nfc-e", name: """${NFD} E"""}) { agent { name } } }`, undefined],
    ] as Array<[string, Record<string, unknown> | undefined]>).entries()) {
      const r = await gqlOk(t, ws.token, query, variables);
      created.push(r.agentsCreate.agent.name);
      expect(r.agentsCreate.agent.name, String(i)).toBe(`${NFC} ${'ABCDE'[i]}`);
    }
    const { rows } = await t.pools.owner.query("select name from app_public.agents where workspace_id = $1 and profile_key like 'nfc-%' order by profile_key", [ws.id]);
    expect(rows.map((r) => r.name)).toEqual(['A', 'B', 'C', 'D', 'E'].map((x) => `${NFC} ${x}`));
    // A condition in the decomposed form finds the composed label.
    const found = await gqlOk(t, ws.token, `{ labels(condition: {name: "${NFD}"}) { nodes { name } } }`);
    expect(found.labels.nodes).toEqual([{ name: NFC }]);
  });

  it('a secret is taken byte for byte (kept as the SHA-256 of what was given)', async () => {
    const secret = `${NFD}-sixteen-chars-at-least`;
    const runtime = await ok(t, ws.token, 'runtimes.register', { name: `${NFD} runner`, kind: 'LOCAL_DAEMON', providersAvailable: [], secret });
    expect(runtime.name).toBe(`${NFC} runner`);
    const { rows } = await t.pools.owner.query('select secret_hash from app_private.runtime_secrets where runtime_id = $1', [runtime.id]);
    expect(Buffer.from(rows[0].secret_hash).equals(crypto.createHash('sha256').update(secret, 'utf8').digest())).toBe(true);
  });
});
