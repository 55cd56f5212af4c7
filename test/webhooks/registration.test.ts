/**
 * Webhook targets are checked at registration (issue 9 item 5): credentials in the URL are always
 * refused; loopback/private/link-local targets are refused unless SVC_EGRESS_ALLOW_PRIVATE=1. Every path:
 * the CLI (create-webhook, update-webhook, create-agent --webhook-url), GraphQL mutations, and the tables
 * themselves for credentials (a CHECK constraint, whatever writes the row).
 */
import dns from 'node:dns/promises';
import os from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { blockedReason } from '../../src/webhooks/egress.ts';
import { assertWebhookUrl, webhookUrlProblem } from '../../src/webhooks/registration.ts';
import { gql } from '../support/graphql.ts';
import { admin, createWorkspace, startTestApp, type TestApp, type Workspace } from '../support/harness.ts';

let t: TestApp;
let ws: Workspace;
beforeAll(async () => {
  t = await startTestApp({ graphql: true });
  ws = await createWorkspace(t);
});
afterAll(() => t.close());

const strict = () => { process.env.SVC_EGRESS_ALLOW_PRIVATE = '0'; };
afterEach(() => { process.env.SVC_EGRESS_ALLOW_PRIVATE = '1'; });

const CREDENTIALS = ['http://user:secret@hooks.example.com/x', 'https://token@hooks.example.com/', 'https://hooks.example.com@evil.example.com/x'];
const PRIVATE = ['http://127.0.0.1:8080/x', 'http://localhost/x', 'http://localhost./x', 'http://api.localhost/x', 'http://10.1.2.3/x', 'http://192.168.0.10/x',
  'http://169.254.169.254/latest/meta-data', 'http://[::1]:3000/x', 'http://[fd00::1]/x', 'http://0.0.0.0/x'];

const createHook = (url: string) => admin(t, 'create-webhook', { workspace: ws.key, url, json: true });

describe('webhook URLs at registration', () => {
  it('CLI create-webhook refuses credentials (always): a usage mistake naming --url (exit 2), and 400 naming url below it', async () => {
    for (const url of CREDENTIALS) {
      await expect(createHook(url), url).rejects.toThrow(/--url must be an http\(s\) URL without credentials/);
      await expect(assertWebhookUrl(url, 'url'), url).rejects.toMatchObject({ status: 400, body: { error: 'invalid_input', issues: { url: expect.stringContaining('credentials') } } });
    }
  });

  it('a URL shaped like http(s) that does not parse (a port past 65535, a bad escape in the host) is refused, private egress allowed or not', async () => {
    for (const allowPrivate of [true, false]) {
      for (const url of ['http://[::1]:99999/x', 'http://%zz/', 'https://hooks.example.com:70000/in']) {
        await expect(assertWebhookUrl(url, 'url', allowPrivate), url).rejects.toMatchObject({ status: 400, body: { issues: { url: 'is not a valid URL' } } });
      }
    }
    await expect(assertWebhookUrl('https://hooks.example.com:8443/in', 'url', true)).resolves.toBeUndefined();
  });

  it('CLI create-webhook refuses loopback/private targets unless SVC_EGRESS_ALLOW_PRIVATE=1', async () => {
    strict();
    for (const url of PRIVATE) {
      await expect(createHook(url), url).rejects.toMatchObject({ status: 400, body: { issues: { url: expect.stringContaining('SVC_EGRESS_ALLOW_PRIVATE') } } });
    }
    // Public targets pass (a literal public address; a name that does not resolve here is left to delivery).
    expect((await createHook('https://93.184.215.14/hooks')).webhook.url).toBe('https://93.184.215.14/hooks');
    expect((await createHook('https://hooks.example.com/in')).webhook.id).toBeTruthy();
    process.env.SVC_EGRESS_ALLOW_PRIVATE = '1';
    expect((await createHook('http://127.0.0.1:8080/x')).webhook.id).toBeTruthy();
  });

  it('a name resolving to a private address is refused (this machine\'s own name, when it resolves so)', async () => {
    const addresses = await dns.lookup(os.hostname(), { all: true }).catch(() => []);
    if (!addresses.some((a) => blockedReason(a.address))) return; // nothing to show on this machine
    expect(await webhookUrlProblem(`http://${os.hostname()}/x`, false)).toMatch(/resolves to/);
    expect(await webhookUrlProblem(`http://${os.hostname()}/x`, true)).toBeUndefined();
  });

  it('CLI update-webhook and create-agent --webhook-url check the URL too', async () => {
    const hook = (await createHook('https://hooks.example.com/ok')).webhook;
    await expect(admin(t, 'update-webhook', { id: hook.id, url: CREDENTIALS[0], json: true })).rejects.toMatchObject({ status: 400, body: { issues: { url: expect.any(String) } } });
    strict();
    await expect(admin(t, 'update-webhook', { id: hook.id, url: 'http://10.0.0.5/x', json: true })).rejects.toMatchObject({ status: 400 });
    await expect(admin(t, 'create-agent', { workspace: ws.key, 'profile-key': 'leaky', name: 'Leaky', 'webhook-url': 'http://127.0.0.1/x', json: true }))
      .rejects.toMatchObject({ status: 400, body: { issues: { webhookUrl: expect.any(String) } } });
    await expect(admin(t, 'create-agent', { workspace: ws.key, 'profile-key': 'creds', name: 'Creds', 'webhook-url': CREDENTIALS[0], json: true }))
      .rejects.toMatchObject({ status: 400, body: { issues: { webhookUrl: expect.stringContaining('credentials') } } });
    const fine = await admin(t, 'create-agent', { workspace: ws.key, 'profile-key': 'fine', name: 'Fine', 'webhook-url': 'https://agents.example.com/in', json: true });
    expect(fine.agent.webhookUrl).toBe('https://agents.example.com/in');
  });

  it('GraphQL mutations refuse them with extensions code invalid_input, status 400 and the field', async () => {
    const create = 'mutation($url: String!) { webhooksCreate(input: {url: $url}) { result } }';
    const r1 = await gql(t, ws.token, create, { url: CREDENTIALS[0] });
    expect(r1.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', status: 400, issues: { url: expect.stringContaining('credentials') } });
    strict();
    const r2 = await gql(t, ws.token, create, { url: 'http://169.254.169.254/x' });
    expect(r2.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', status: 400, issues: { url: expect.any(String) } });
    const agent = await gql(t, ws.token, 'mutation { agentsCreate(input: {profileKey: "g1", name: "G1", webhookUrl: "http://localhost:9/x"}) { agent { rowId } } }');
    expect(agent.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', issues: { webhookUrl: expect.any(String) } });
    const ok = await gql(t, ws.token, create, { url: 'https://hooks.example.com/gql' });
    expect(ok.errors).toBeUndefined();
    // Nothing was written by the refused calls.
    const { rows } = await t.pools.owner.query("select count(*)::int as n from app_public.webhooks where url like '%169.254%' or url like '%@%'");
    expect(rows[0].n).toBe(0);
  });

  it('a repository mapping names its apiUrl under the same rule, CLI and GraphQL (the repohost tools call it)', async () => {
    strict();
    await expect(admin(t, 'create-repo-mapping', { workspace: ws.key, repo: 'acme/inside', 'api-url': 'http://169.254.169.254/api', json: true }))
      .rejects.toMatchObject({ status: 400, body: { issues: { apiUrl: expect.stringContaining('SVC_EGRESS_ALLOW_PRIVATE') } } });
    await expect(admin(t, 'create-repo-mapping', { workspace: ws.key, repo: 'acme/creds', 'api-url': CREDENTIALS[0], json: true }))
      .rejects.toMatchObject({ status: 400, body: { issues: { apiUrl: expect.stringContaining('credentials') } } });
    const refused = await gql(t, ws.token, 'mutation { repoMappingsCreate(input: {repoFullName: "acme/gql-inside", apiUrl: "http://10.0.0.7/api"}) { clientMutationId } }');
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', status: 400, issues: { apiUrl: expect.any(String) } });
    const made = await admin(t, 'create-repo-mapping', { workspace: ws.key, repo: 'acme/ghe', 'api-url': 'https://ghe.example.com/api/v3', json: true });
    const update = await gql(t, ws.token, `mutation { repoMappingsUpdate(input: {mappingId: "${made.mapping.id}", apiUrl: "http://localhost:8080/api"}) { clientMutationId } }`);
    expect(update.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', issues: { apiUrl: expect.any(String) } });
    const { rows } = await t.pools.owner.query(
      "select count(*)::int as n from app_public.connection_mappings where api_url ~ '169\\.254|10\\.0\\.0\\.7|localhost|@'");
    expect(rows[0].n).toBe(0);
    process.env.SVC_EGRESS_ALLOW_PRIVATE = '1';
    expect((await admin(t, 'create-repo-mapping', { workspace: ws.key, repo: 'acme/local-ghe', 'api-url': 'http://127.0.0.1:8080/api', json: true })).mapping.id).toBeTruthy();
  });

  it('SVC_EGRESS_ALLOW_PRIVATE reads the same for the server and for registration (TRUE, " 1 " count as on)', async () => {
    const { loadConfig } = await import('../../src/config.ts');
    const { egressAllowPrivateFromEnv } = await import('../../src/webhooks/registration.ts');
    for (const [value, on] of [['TRUE', true], [' 1 ', true], ['true', true], ['0', false], ['false', false], ['', false]] as const) {
      expect([value, egressAllowPrivateFromEnv({ SVC_EGRESS_ALLOW_PRIVATE: value }), loadConfig({ SVC_EGRESS_ALLOW_PRIVATE: value }).egressAllowPrivate])
        .toEqual([value, on, on]);
    }
  });

  it('the tables refuse credentials whatever writes them', async () => {
    await expect(t.pools.owner.query(
      "insert into app_public.webhooks (workspace_id, url) values ($1, 'http://user:pw@hooks.example.com/x')", [ws.id],
    )).rejects.toMatchObject({ code: '23514' });
    await expect(t.pools.owner.query(
      "update app_public.agents set webhook_url = 'https://a:b@x.example.com/' where workspace_id = $1", [ws.id],
    )).rejects.toMatchObject({ code: '23514' });
  });
});
