/**
 * `svc admin ...`: operator commands. Each runs one owner transaction calling the same SQL functions
 * the API and in-app procedures use (app_private.*).
 */
import type pg from 'pg';
import { issueKey, SCOPES, type KeyKind, type KeyScope } from '../auth/keys.ts';
import { invalidInput } from '../errors.ts';
import { assertWebhookUrl } from '../webhooks/registration.ts';

export type Flags = Record<string, string | boolean | undefined>;

function required(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw invalidInput({ [name]: `--${name} is required` }, `--${name} is required`);
  return v;
}
const optional = (flags: Flags, name: string) => (typeof flags[name] === 'string' && flags[name] !== '' ? (flags[name] as string) : undefined);
const list = (value: string | undefined) => (value ? value.split(',').map((s) => s.trim()).filter(Boolean) : []);
function positiveInt(flags: Flags, name: string): number | undefined {
  const v = optional(flags, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw invalidInput({ [name]: `--${name} must be a positive integer` }, `--${name} must be a positive integer`);
  return n;
}

async function workspaceId(client: pg.ClientBase, key: string): Promise<string> {
  const { rows } = await client.query('select (app_private.workspace_by_key($1)).id', [key]);
  return rows[0].id;
}

export interface AdminResult {
  json: unknown;
  text: string;
}

export const ADMIN_COMMANDS: Record<string, (client: pg.ClientBase, flags: Flags) => Promise<AdminResult>> = {
  async 'create-workspace'(client, flags) {
    const { rows } = await client.query('select app_private.create_workspace($1, $2, $3) as r', [
      required(flags, 'name'), required(flags, 'key').toUpperCase(), required(flags, 'owner-email'),
    ]);
    const created = rows[0].r as { workspace: { id: string; key: string }; owner: { id: string; email: string } };
    const key = await issueKey(client, { workspaceId: created.workspace.id, userId: created.owner.id, kind: 'PERSONAL', scopes: ['FULL'] });
    const apiKey = { id: key.id, rawKey: key.rawKey, prefix: key.prefix, kind: key.kind, scopes: key.scopes };
    return {
      json: { ...created, apiKey },
      text: `Created workspace ${created.workspace.key} owned by ${created.owner.email}.\nAPI key (shown once): ${key.rawKey}`,
    };
  },

  async 'add-member'(client, flags) {
    const ws = await workspaceId(client, required(flags, 'workspace'));
    const { rows } = await client.query('select app_private.add_member($1, $2, $3) as r', [
      ws, required(flags, 'email'), required(flags, 'role').toUpperCase(),
    ]);
    const r = rows[0].r as { user: { email: string }; role: string };
    return { json: r, text: `${r.user.email} is now ${r.role}.` };
  },

  async 'create-agent'(client, flags) {
    const ws = await workspaceId(client, required(flags, 'workspace'));
    await assertWebhookUrl(optional(flags, 'webhook-url'), 'webhookUrl');
    const { rows } = await client.query(
      'select app_hidden.agent_json(a) as agent from app_private.create_agent($1, $2, $3, $4, $5, $6, $7, $8) a',
      [
        ws, required(flags, 'profile-key'), required(flags, 'name'), list(optional(flags, 'capabilities')),
        optional(flags, 'provider')?.toUpperCase() ?? 'CUSTOM', optional(flags, 'runtime-mode')?.toUpperCase() ?? 'PERSISTENT',
        positiveInt(flags, 'max-concurrent') ?? 1, optional(flags, 'webhook-url') ?? null,
      ],
    );
    const agent = rows[0].agent as { id: string; profileKey: string; webhookUrl: string | null };
    if (!agent.webhookUrl) return { json: { agent }, text: `Created agent ${agent.profileKey} (${agent.id}).` };
    // Dispatch deliveries to the agent's webhookUrl are signed with this secret, shown this once.
    const secret = await client.query('select app_private.rotate_agent_webhook_secret($1) as s', [agent.id]);
    return {
      json: { agent, webhookSecret: secret.rows[0].s },
      text: `Created agent ${agent.profileKey} (${agent.id}).\nDispatch signing secret (shown once): ${secret.rows[0].s}`,
    };
  },

  async 'create-key'(client, flags) {
    const ws = await workspaceId(client, required(flags, 'workspace'));
    const email = required(flags, 'user');
    const user = await client.query(
      `select u.id from app_public.users u join app_public.memberships m on m.user_id = u.id
       where lower(u.email) = lower($1) and m.workspace_id = $2`, [email, ws]);
    if (!user.rowCount) throw invalidInput({ user: 'no member with this email in the workspace' }, `${email} is not a member of this workspace`);
    let agentId: string | null = null;
    const profileKey = optional(flags, 'agent');
    if (profileKey) {
      const agent = await client.query('select id from app_public.agents where workspace_id = $1 and profile_key = $2', [ws, profileKey]);
      if (!agent.rowCount) throw invalidInput({ agent: 'no agent with this profile key' }, `No agent ${profileKey} in this workspace`);
      agentId = agent.rows[0].id;
    }
    const kind = optional(flags, 'kind')?.toUpperCase() as KeyKind | undefined;
    if (kind && !['AGENT', 'PERSONAL', 'SESSION'].includes(kind)) throw invalidInput({ kind: 'AGENT, PERSONAL or SESSION' });
    const scopes = list(optional(flags, 'scopes') ?? 'FULL').map((s) => s.toUpperCase()) as KeyScope[];
    const bad = scopes.filter((s) => s !== 'FULL' && !(SCOPES as readonly string[]).includes(s));
    if (bad.length) throw invalidInput({ scopes: `unknown scope ${bad.join(', ')}` }, `Unknown scope ${bad.join(', ')}`);
    const ttlHours = positiveInt(flags, 'ttl-hours');
    const days = positiveInt(flags, 'expires-in-days');
    if (ttlHours !== undefined && ttlHours > 168) throw invalidInput({ 'ttl-hours': 'must be 1 to 168' });
    let expiresAt: Date | null = null;
    if (ttlHours !== undefined) expiresAt = new Date(Date.now() + ttlHours * 3_600_000);
    else if (days !== undefined) expiresAt = new Date(Date.now() + days * 86_400_000);
    else if (kind === 'SESSION') expiresAt = new Date(Date.now() + 24 * 3_600_000);
    const key = await issueKey(client, {
      workspaceId: ws, userId: user.rows[0].id, kind: kind ?? (agentId ? 'AGENT' : 'PERSONAL'), linkedAgentId: agentId,
      scopes, projectIds: list(optional(flags, 'projects')), labelIds: list(optional(flags, 'labels')),
      initiativeIds: list(optional(flags, 'initiatives')), expiresAt, name: optional(flags, 'name') ?? null,
    });
    const { createdAt: _c, ...apiKey } = key;
    return { json: { apiKey }, text: `Created ${key.kind} key ${key.prefix}… (${key.id}).\nAPI key (shown once): ${key.rawKey}` };
  },

  async 'revoke-key'(client, flags) {
    const { rows } = await client.query('select id, revoked_at from app_private.revoke_api_key($1)', [required(flags, 'id')]);
    return { json: { apiKey: { id: rows[0].id, revokedAt: rows[0].revoked_at.toISOString() } }, text: `Revoked key ${rows[0].id}.` };
  },

  // Webhooks (decisions.md, Webhooks). The secret is printed once, by create and rotate only.

  async 'create-webhook'(client, flags) {
    const ws = await workspaceId(client, required(flags, 'workspace'));
    await assertWebhookUrl(required(flags, 'url'));
    const { rows } = await client.query('select app_private.webhook_create($1, $2, $3, $4) as w', [
      ws, required(flags, 'url'), eventsFlag(flags) ?? [], optional(flags, 'description') ?? null,
    ]);
    const w = rows[0].w;
    return {
      json: { webhook: w },
      text: `Created webhook ${w.id} → ${w.url} (${w.events.length ? w.events.join(', ') : 'every event'}).\nSigning secret (shown once): ${w.secret}`,
    };
  },

  async 'list-webhooks'(client, flags) {
    const ws = await workspaceId(client, required(flags, 'workspace'));
    const { rows } = await client.query('select app_private.webhooks_list($1) as l', [ws]);
    const list = rows[0].l as Array<{ id: string; url: string; active: boolean; pending: number; deadLetters: number }>;
    return {
      json: { webhooks: list },
      text: list.map((w) => `${w.id} ${w.active ? 'active  ' : 'inactive'} ${w.url} pending=${w.pending} dead=${w.deadLetters}`).join('\n') || 'No webhooks.',
    };
  },

  async 'update-webhook'(client, flags) {
    const active = optional(flags, 'active');
    if (active !== undefined && !['true', 'false'].includes(active)) throw invalidInput({ active: '--active must be true or false' });
    await assertWebhookUrl(optional(flags, 'url'));
    const { rows } = await client.query('select app_private.webhook_update($1, $2, $3, $4, $5) as w', [
      required(flags, 'id'), optional(flags, 'url') ?? null, eventsFlag(flags) ?? null,
      active === undefined ? null : active === 'true', optional(flags, 'description') ?? null,
    ]);
    return { json: { webhook: rows[0].w }, text: `Updated webhook ${rows[0].w.id}.` };
  },

  async 'delete-webhook'(client, flags) {
    const { rows } = await client.query('select app_private.webhook_delete($1) as w', [required(flags, 'id')]);
    return { json: { webhook: rows[0].w }, text: `Deleted webhook ${rows[0].w.id}.` };
  },

  async 'rotate-webhook-secret'(client, flags) {
    const { rows } = await client.query('select app_private.webhook_rotate_secret($1) as w', [required(flags, 'id')]);
    return { json: { webhook: rows[0].w }, text: `New signing secret for ${rows[0].w.id} (shown once): ${rows[0].w.secret}` };
  },

  async 'list-deliveries'(client, flags) {
    const ws = await workspaceId(client, required(flags, 'workspace'));
    const status = optional(flags, 'status')?.toUpperCase() ?? null;
    const { rows } = await client.query('select app_private.webhook_deliveries_list($1, $2, $3, $4, $5) as l', [
      ws, optional(flags, 'webhook') ?? null, status, positiveInt(flags, 'limit') ?? 50, optional(flags, 'before') ?? null,
    ]);
    const page = rows[0].l as { nextCursor: string | null; items: Array<{ id: string; status: string; eventKind: string; channel: string; totalAttempts: number; lastError: string | null }> };
    return {
      json: { deliveries: page.items, nextCursor: page.nextCursor },
      text: page.items.map((d) => `${d.id} ${d.status.padEnd(11)} ${d.eventKind} ${d.channel} attempts=${d.totalAttempts}${d.lastError ? ` (${d.lastError})` : ''}`).join('\n') || 'No deliveries.',
    };
  },

  async 'retry-delivery'(client, flags) {
    const { rows } = await client.query('select app_private.webhook_delivery_retry($1) as d', [required(flags, 'id')]);
    return { json: { delivery: rows[0].d }, text: `Delivery ${rows[0].d.id} queued again.` };
  },

  async 'rotate-agent-secret'(client, flags) {
    const ws = await workspaceId(client, required(flags, 'workspace'));
    const profileKey = required(flags, 'agent');
    const agent = await client.query('select id, profile_key from app_public.agents where workspace_id = $1 and profile_key = $2', [ws, profileKey]);
    if (!agent.rowCount) throw invalidInput({ agent: 'no agent with this profile key' }, `No agent ${profileKey} in this workspace`);
    const { rows } = await client.query('select app_private.rotate_agent_webhook_secret($1) as s', [agent.rows[0].id]);
    return {
      json: { agent: { id: agent.rows[0].id, profileKey }, secret: rows[0].s },
      text: `New dispatch signing secret for agent ${profileKey} (shown once): ${rows[0].s}`,
    };
  },
};

/** --events K1,K2; `--events all` (or empty) = every kind; absent = undefined. */
function eventsFlag(flags: Flags): string[] | undefined {
  const v = flags.events;
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '' || v.toLowerCase() === 'all') return [];
  return list(v).map((k) => k.toUpperCase());
}
