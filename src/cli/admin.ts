/**
 * `svc admin ...`: operator commands. Each runs one owner transaction calling the same SQL functions
 * the API and in-app procedures use (app_private.*).
 */
import type pg from 'pg';
import { issueKey, SCOPES, type KeyKind, type KeyScope } from '../auth/keys.ts';
import { invalidInput } from '../errors.ts';

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
    const { rows } = await client.query(
      'select app_hidden.agent_json(a) as agent from app_private.create_agent($1, $2, $3, $4, $5, $6, $7, $8) a',
      [
        ws, required(flags, 'profile-key'), required(flags, 'name'), list(optional(flags, 'capabilities')),
        optional(flags, 'provider')?.toUpperCase() ?? 'CUSTOM', optional(flags, 'runtime-mode')?.toUpperCase() ?? 'PERSISTENT',
        positiveInt(flags, 'max-concurrent') ?? 1, optional(flags, 'webhook-url') ?? null,
      ],
    );
    return { json: { agent: rows[0].agent }, text: `Created agent ${rows[0].agent.profileKey} (${rows[0].agent.id}).` };
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
};
