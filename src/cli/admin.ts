/**
 * `svc admin ...`: operator commands. Each is declared once (flags, kinds, required, descriptions:
 * see flags.ts), and that declaration drives parsing, validation and `--help`. Each runs in one owner
 * transaction calling the same SQL functions the API and the in-app (GraphQL) procedures use
 * (app_private.*), so the CLI and GraphQL share one rule and write their events the same way.
 */
import type pg from 'pg';
import { issueKey, SCOPES, type KeyKind, type KeyScope } from '../auth/keys.ts';
import { sweep } from '../dispatch/tasks.ts';
import { ApiError, invalidInput } from '../errors.ts';
import { assertWebhookUrl } from '../webhooks/registration.ts';
import { EVENT_KINDS } from '../events/kinds.ts';
import { closest, UsageError, validate, type CommandSpec, type FlagSpecs, type Values } from './flags.ts';

/** Raw flag values as code passes them (strings from the command line; booleans for switches). */
export type Flags = Record<string, string | boolean | undefined>;

export interface AdminResult {
  json: unknown;
  text: string;
}

export interface AdminCommand<F extends FlagSpecs = FlagSpecs> extends CommandSpec<F> {
  run(client: pg.ClientBase, values: Values<F>): Promise<AdminResult>;
}

const JSON_FLAG = { json: { kind: 'switch', description: 'print exactly one JSON object on stdout' } } as const;

/** Declares an admin command; every command takes --json. */
function command<F extends FlagSpecs>(
  name: string, summary: string, flags: F, run: (client: pg.ClientBase, v: Values<F & typeof JSON_FLAG>) => Promise<AdminResult>,
  notes?: string[],
): AdminCommand<F & typeof JSON_FLAG> {
  return { name: `svc admin ${name}`, summary, flags: { ...flags, ...JSON_FLAG }, run, notes };
}

/** A rotation's grace: how long the old signing secret still signs beside the new one. */
const KEEP_PREVIOUS_HOURS = { kind: 'int', min: 0, max: 168, placeholder: 'N',
  description: 'hours the old secret still signs beside the new one, so receivers switch without losing deliveries (default 24; 0: it stops now)' } as const;
const graceText = (until: string | null) => (until ? `The old secret also signs until ${until}.` : 'The old secret no longer signs.');

const WORKSPACE = { kind: 'string', required: true, description: 'workspace key (or slug, or id)', placeholder: 'KEY' } as const;
const AGENT = { kind: 'string', required: true, description: 'the agent\'s profile key', placeholder: 'PROFILE_KEY' } as const;
const PROVIDERS = ['CUSTOM', 'CLAUDE', 'CODEX', 'HERMES'] as const;
const RUNTIME_MODES = ['PERSISTENT', 'EPHEMERAL'] as const;
const DISPATCH_MODES = ['ROUND_ROBIN', 'PRIORITY_MATCH', 'CAPABILITY_MATCH', 'MANUAL_ONLY'] as const;

/** A flag's value names nothing: 404 naming the flag (`field`), which the CLI reports as a usage mistake (exit 2). */
const namesNothing = (flag: string, message: string) => new ApiError(404, { error: 'not_found', message, field: flag });

async function workspaceId(client: pg.ClientBase, key: string): Promise<string> {
  try {
    const { rows } = await client.query('select (app_private.workspace_by_key($1)).id', [key]);
    return rows[0].id;
  } catch (err) {
    if ((err as { code?: string }).code === 'SV404') throw namesNothing('workspace', `no workspace with this key, slug or id: ${key} (see list-workspaces)`);
    throw err;
  }
}

async function agentId(client: pg.ClientBase, ws: string, profileKey: string, flag = 'agent'): Promise<string> {
  const { rows } = await client.query('select id from app_public.agents where workspace_id = $1 and profile_key = $2', [ws, profileKey]);
  if (!rows.length) throw namesNothing(flag, `no agent with profile key ${profileKey} in this workspace (see list-agents)`);
  return rows[0].id;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

/** A plain-text table for people: one header line, one line per row. */
export function table(rows: Array<Record<string, unknown>>, columns: string[], empty: string): string {
  if (!rows.length) return empty;
  const cell = (v: unknown) => (v === null || v === undefined ? '-' : Array.isArray(v) ? (v.length ? v.join(',') : '-') : String(v));
  const cells = rows.map((r) => columns.map((c) => cell(r[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  return [line(columns), ...cells.map(line)].join('\n');
}

/** --events K1,K2 | all (or empty), absent = undefined: [] is every kind; an unknown kind is a usage mistake (exit 2), as an unknown scope is. */
function eventsFlag(v: string | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  if (v === '' || v.toLowerCase() === 'all') return [];
  const kinds = v.split(',').map((s) => s.trim().toUpperCase()).filter(Boolean);
  const bad = kinds.filter((k) => !(EVENT_KINDS as readonly string[]).includes(k));
  if (bad.length) {
    const near = closest(bad[0]!, [...EVENT_KINDS]);
    throw new UsageError(`--events: unknown event kind ${bad.join(', ')}${near ? `; did you mean ${near}?` : ''}`,
      `event kinds (or all): ${EVENT_KINDS.join(', ')}`);
  }
  return kinds;
}

const commands = [
  command('create-workspace', 'Create a workspace with its default statuses, its OWNER and a FULL personal key for the owner.', {
    name: { kind: 'string', required: true, description: 'display name' },
    key: { kind: 'string', required: true, description: 'issue key prefix: 2-10 letters/digits, starting with a letter', placeholder: 'KEY',
           pattern: { test: /^[A-Za-z][A-Za-z0-9]{1,9}$/, says: '2-10 letters or digits, starting with a letter (ENG)' } },
    'owner-email': { kind: 'string', required: true, maxLength: 254, description: 'email of the owner (created if new)', placeholder: 'EMAIL' },
  }, async (client, v) => {
    const { rows } = await client.query('select app_private.create_workspace($1, $2, $3) as r', [v.name, v.key.toUpperCase(), v['owner-email']]);
    const created = rows[0].r as { workspace: { id: string; key: string }; owner: { id: string; email: string } };
    const key = await issueKey(client, { workspaceId: created.workspace.id, userId: created.owner.id, kind: 'PERSONAL', scopes: ['FULL'] });
    const apiKey = { id: key.id, rawKey: key.rawKey, prefix: key.prefix, kind: key.kind, scopes: key.scopes };
    return {
      json: { ...created, apiKey },
      text: `Created workspace ${created.workspace.key} owned by ${created.owner.email}.\nAPI key (shown once): ${key.rawKey}`,
    };
  }),

  command('add-member', 'Add a user (created if new) to a workspace with a role.', {
    workspace: WORKSPACE,
    email: { kind: 'string', required: true, maxLength: 254, description: 'the person\'s email' },
    role: { kind: 'string', required: true, choices: ['OWNER', 'ADMIN', 'MEMBER'], description: 'their role' },
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const { rows } = await client.query('select app_private.add_member($1, $2, $3) as r', [ws, v.email, v.role]);
    const r = rows[0].r as { user: { email: string }; role: string };
    return { json: r, text: `${r.user.email} is now ${r.role}.` };
  }),

  command('update-user', 'Set a person\'s name or time zone (users are global: every workspace of theirs hears of it).', {
    email: { kind: 'string', required: true, maxLength: 254, description: 'the person\'s email' },
    name: { kind: 'string', maxLength: 100, description: 'the name shown on their work' },
    timezone: { kind: 'string', maxLength: 100, description: 'their IANA time zone, such as Europe/Paris' },
  }, async (client, v) => {
    if (v.name === undefined && v.timezone === undefined) throw new UsageError('give --name, --timezone or both');
    const { rows: [found] } = await client.query('select id from app_public.users where lower(email) = lower($1)', [v.email]);
    if (!found) throw namesNothing('email', `no user has the email ${v.email} (see list-members)`);
    const { rows } = await client.query('select to_jsonb(app_private.update_user($1, $2, $3)) as u', [found.id, v.name ?? null, v.timezone ?? null]);
    const u = rows[0].u as { id: string; email: string; name: string; timezone: string };
    const user = { id: u.id, email: u.email, name: u.name, timezone: u.timezone };
    return { json: { user }, text: `${user.email}: ${user.name}, ${user.timezone}.` };
  }),

  command('list-workspaces', 'List every workspace with its settings and member and agent counts.', {}, async (client) => {
    const { rows } = await client.query(
      `select app_hidden.workspace_json(w) || jsonb_build_object(
                'createdAt', w.created_at,
                'memberCount', (select count(*) from app_public.memberships m where m.workspace_id = w.id),
                'agentCount', (select count(*) from app_public.agents a where a.workspace_id = w.id and a.archived_at is null)) as w
       from app_public.workspaces w order by w.created_at, w.key`);
    const items = rows.map((r) => r.w);
    return { json: { items }, text: table(items, ['key', 'name', 'slug', 'memberCount', 'agentCount', 'autoDispatch', 'id'], 'No workspaces.') };
  }),

  command('list-members', 'List the members of a workspace and their roles.', { workspace: WORKSPACE }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const { rows } = await client.query(
      `select jsonb_build_object('user', jsonb_build_object('id', u.id, 'email', u.email, 'name', u.name),
                                 'role', m.role, 'createdAt', m.created_at) as m
       from app_public.memberships m join app_public.users u on u.id = m.user_id
       where m.workspace_id = $1
       order by case m.role when 'OWNER' then 0 when 'ADMIN' then 1 else 2 end, lower(u.email)`, [ws]);
    const items = rows.map((r) => r.m as { user: { id: string; email: string }; role: string; createdAt: string });
    return {
      json: { items },
      text: table(items.map((m) => ({ email: m.user.email, role: m.role, since: m.createdAt, userId: m.user.id })),
        ['email', 'role', 'since', 'userId'], 'No members.'),
    };
  }),

  command('list-keys', 'List the API keys of a workspace (prefix and metadata; never the key or its hash).', { workspace: WORKSPACE }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    // app_private.api_key_info is the shape access.keys / GraphQL accessKeys list (no hash, no token).
    const { rows } = await client.query(
      `select i.id, i.name, i.prefix, i.kind::text as kind, i.scopes::text[] as scopes, i.project_ids, i.label_ids,
              i.initiative_ids, u.email as user_email, a.profile_key, i.plugin_id, issuer.email as issued_by_email,
              i.created_at, i.last_used_at, i.expires_at, i.revoked_at
       from app_private.api_keys k
       cross join lateral app_private.api_key_info(k, null) i
       left join app_public.users u on u.id = i.user_id
       left join app_public.users issuer on issuer.id = k.issued_by_user_id
       left join app_public.agents a on a.id = i.linked_agent_id
       where k.workspace_id = $1
       order by i.created_at desc, i.id`, [ws]);
    const items = rows.map((r) => ({
      id: r.id, name: r.name, prefix: r.prefix, kind: r.kind, scopes: r.scopes, projectIds: r.project_ids,
      labelIds: r.label_ids, initiativeIds: r.initiative_ids, userEmail: r.user_email, agentProfileKey: r.profile_key,
      // A plugin's key acts for no one; who issued it (their removal revokes it).
      pluginId: r.plugin_id, issuedByEmail: r.issued_by_email, createdAt: iso(r.created_at), lastUsedAt: iso(r.last_used_at), expiresAt: iso(r.expires_at),
      revokedAt: iso(r.revoked_at),
    }));
    const now = Date.now();
    const state = (k: (typeof items)[number]) =>
      k.revokedAt ? 'revoked' : k.expiresAt && Date.parse(k.expiresAt) <= now ? 'expired' : 'active';
    const narrowed = (k: (typeof items)[number]) =>
      [['projects', k.projectIds], ['labels', k.labelIds], ['initiatives', k.initiativeIds]]
        .filter(([, ids]) => (ids as string[]).length).map(([n, ids]) => `${n}:${(ids as string[]).length}`).join(' ') || null;
    return {
      json: { items },
      text: table(items.map((k) => ({
        prefix: `${k.prefix}…`, kind: k.kind, state: state(k), user: k.userEmail ?? (k.issuedByEmail ? `plugin, by ${k.issuedByEmail}` : null), agent: k.agentProfileKey, scopes: k.scopes,
        narrowed: narrowed(k), lastUsed: k.lastUsedAt, expires: k.expiresAt, id: k.id,
      })), ['prefix', 'kind', 'state', 'user', 'agent', 'scopes', 'narrowed', 'lastUsed', 'expires', 'id'], 'No keys.'),
    };
  }),

  command('list-agents', 'List the agents of a workspace (archived ones too, with archivedAt).', { workspace: WORKSPACE }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const { rows } = await client.query(
      `select app_hidden.agent_json(a) as a from app_public.agents a where a.workspace_id = $1
       order by a.archived_at is not null, a.profile_key`, [ws]);
    const items = rows.map((r) => r.a as Record<string, unknown>);
    return {
      json: { items },
      text: table(items, ['profileKey', 'name', 'status', 'provider', 'runtimeMode', 'maxConcurrent', 'capabilities', 'archivedAt', 'id'], 'No agents.'),
    };
  }),

  command('create-agent', 'Create an agent (it starts OFFLINE; a heartbeat brings it ONLINE).', {
    workspace: WORKSPACE,
    'profile-key': { kind: 'string', required: true, description: 'unique handle (a-z, 0-9, _ . -)', placeholder: 'P' },
    name: { kind: 'string', required: true, description: 'display name' },
    capabilities: { kind: 'list', description: 'matched against priority and label names in dispatch', placeholder: 'a,b' },
    provider: { kind: 'string', choices: PROVIDERS, description: 'default CUSTOM' },
    'runtime-mode': { kind: 'string', choices: RUNTIME_MODES, description: 'default PERSISTENT' },
    'max-concurrent': { kind: 'int', min: 0, description: 'open assigned issues at once (default 1; 0 = unlimited)' },
    'webhook-url': { kind: 'string', maxLength: 2048, description: 'dispatch deliveries go here, signed (prints the secret once)', placeholder: 'URL' },
  }, async (client, v) => {
    await assertWebhookUrl(v['webhook-url'], 'webhookUrl');
    const ws = await workspaceId(client, v.workspace);
    const { rows } = await client.query(
      'select app_hidden.agent_json(a) as agent from app_private.create_agent($1, $2, $3, $4, $5, $6, $7, $8) a',
      [ws, v['profile-key'], v.name, v.capabilities ?? [], v.provider ?? 'CUSTOM', v['runtime-mode'] ?? 'PERSISTENT',
        v['max-concurrent'] ?? 1, v['webhook-url'] ?? null],
    );
    const agent = rows[0].agent as { id: string; profileKey: string; webhookUrl: string | null };
    if (!agent.webhookUrl) return { json: { agent }, text: `Created agent ${agent.profileKey} (${agent.id}).` };
    // Dispatch deliveries to the agent's webhookUrl are signed with this secret, shown this once.
    const { secret } = (await client.query('select app_private.rotate_agent_webhook_secret($1) as s', [agent.id])).rows[0].s;
    return {
      json: { agent, webhookSecret: secret },
      text: `Created agent ${agent.profileKey} (${agent.id}).\nDispatch signing secret (shown once): ${secret}`,
    };
  }),

  command('archive-agent', 'Archive an agent: no new assignments or dispatch, history kept. Emits AGENT_DELETED (archived: true).', {
    workspace: WORKSPACE, agent: AGENT,
  }, async (client, v) => setArchived(client, v.workspace, v.agent, true)),

  command('unarchive-agent', 'Restore an archived agent. Emits AGENT_UPDATED.', {
    workspace: WORKSPACE, agent: AGENT,
  }, async (client, v) => setArchived(client, v.workspace, v.agent, false)),

  command('update-workspace', 'Change workspace settings (only the flags given); prints the settings.', {
    workspace: WORKSPACE,
    name: { kind: 'string', description: 'display name' },
    'time-tracking': { kind: 'bool', description: 'time tracking on or off' },
    'auto-dispatch': { kind: 'bool', description: 'assign queued unassigned issues automatically' },
    'auto-dispatch-mode': { kind: 'string', choices: DISPATCH_MODES, description: 'how the dispatcher picks an agent', placeholder: 'M' },
    'required-ack-seconds': { kind: 'int', description: 'AGENT_NOACK after this long without acknowledgement (0 = off)' },
    'assignment-sla-minutes': { kind: 'int', description: 'ISSUE_STALLED after this long without activity (0 = off)' },
    'agent-run-stale-minutes': { kind: 'int', min: 1, description: 'ACTIVE runs quiet this long become STALLED' },
    'offline-reclaim-minutes': { kind: 'int', description: 'an agent gone OFFLINE and silent this long loses its runs and unfinished issues (0 = never)' },
    'cycle-length-days': { kind: 'int', min: 1, max: 365, description: 'length of a cycle' },
    'cycle-cooldown-days': { kind: 'int', max: 365, description: 'days between cycles' },
    'attachment-quota-mb': { kind: 'int', description: 'attachment storage quota of the workspace' },
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    // The function behind GraphQL workspaceUpdateSettings (NULL = unchanged).
    const { rows } = await client.query(
      'select app_hidden.workspace_json(app_private.update_workspace_settings($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)) as w',
      [ws, v.name ?? null, v['cycle-length-days'] ?? null, v['cycle-cooldown-days'] ?? null, v['time-tracking'] ?? null,
        v['attachment-quota-mb'] ?? null, v['required-ack-seconds'] ?? null, v['auto-dispatch'] ?? null,
        v['auto-dispatch-mode'] ?? null, v['assignment-sla-minutes'] ?? null, v['agent-run-stale-minutes'] ?? null,
        v['offline-reclaim-minutes'] ?? null],
    );
    const w = rows[0].w as Record<string, unknown>;
    const text = Object.entries(w).filter(([k]) => k !== 'id').map(([k, val]) => `${k.padEnd(22)}${val}`).join('\n');
    return { json: { workspace: w }, text: `Workspace ${w.key} settings:\n${text}` };
  }),

  command('delete-workspace', 'Delete a workspace and everything in it, for good: issues, comments, events, files, keys, agents, webhooks, and the people whose only workspace it was. Its keys stop at once and their streams end.', {
    workspace: WORKSPACE,
    confirm: { kind: 'string', required: true, description: 'the workspace\'s key again, to say you mean it', placeholder: 'KEY' },
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const { rows: [named] } = await client.query<{ key: string }>('select key from app_public.workspaces where id = $1', [ws]);
    if (v.confirm.toUpperCase() !== named!.key) {
      throw new UsageError(`--confirm: give the workspace's key, ${named!.key}, to delete it`);
    }
    const { rows } = await client.query('select app_private.delete_workspace($1) as r', [ws]);
    const r = rows[0].r as { workspace: { key: string; name: string }; deleted: { issues: number; comments: number; events: number; keys: number; files: number; users: string[] } };
    const d = r.deleted;
    return {
      json: r,
      text: `Deleted workspace ${r.workspace.key} (${r.workspace.name}): ${d.issues} issues, ${d.comments} comments, ${d.events} events, `
        + `${d.keys} keys, ${d.files} files (their bytes go as the worker runs)`
        + `${d.users.length ? `; people whose only workspace it was: ${d.users.join(', ')}` : ''}.`,
    };
  }, ['Nothing is kept: take a backup first if the data may be wanted (README, "Backups").',
      'Files are deleted by the worker once this commits (svc start, or svc worker, must be running for them to go).']),

  command('create-dispatch-rule', 'Add a dispatch rule at the end of the order: matching queued issues go to the target agent when it is eligible.', {
    workspace: WORKSPACE,
    target: { kind: 'string', required: true, description: 'profile key of the agent matching issues go to', placeholder: 'PROFILE_KEY' },
    priority: { kind: 'string', choices: ['NONE', 'LOW', 'MEDIUM', 'HIGH', 'URGENT'], description: 'condition: the issue has this priority', placeholder: 'P' },
    label: { kind: 'id', description: 'condition: the issue carries this label' },
    project: { kind: 'id', description: 'condition: the issue is in this project' },
    name: { kind: 'string', description: 'a name for people' },
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const target = await agentId(client, ws, v.target, 'target');
    const { rows } = await client.query('select app_private.create_dispatch_rule($1, $2, $3, $4, $5, $6) as rule',
      [ws, target, v.priority ?? null, v.label ?? null, v.project ?? null, v.name ?? null]);
    const rule = rows[0].rule as { id: string; position: number };
    return { json: { rule }, text: `Dispatch rule ${rule.id} added at position ${rule.position} → ${v.target}.` };
  }),

  command('sweep', 'Run the watchdog, stale-run and presence sweeps (AGENT_NOACK, ISSUE_STALLED, ISSUE_SLA_BREACH, runs going STALLED, silent agents going OFFLINE) now and print what fired.', {}, async (client) => {
    const fired = await sweep(client);
    return {
      json: { fired },
      text: fired.length ? fired.map((f) => `${f.kind} ${f.subjectId}`).join('\n') : 'Nothing fired.',
    };
  }),

  command('create-key', 'Issue an API key owned by a member (the raw key is printed once and never stored).', {
    workspace: WORKSPACE,
    user: { kind: 'string', required: true, maxLength: 254, description: 'email of the member who owns the key', placeholder: 'EMAIL' },
    kind: { kind: 'string', choices: ['AGENT', 'PERSONAL', 'SESSION'], description: 'default AGENT with --agent, else PERSONAL' },
    agent: { kind: 'string', description: 'link the key to this agent (AGENT keys)', placeholder: 'PROFILE_KEY' },
    scopes: { kind: 'list', description: 'scopes, or FULL (default FULL)', placeholder: 'S1,S2|FULL' },
    projects: { kind: 'list', items: 'id', description: 'narrow to these project ids', placeholder: 'id,..' },
    labels: { kind: 'list', items: 'id', description: 'narrow to these label ids', placeholder: 'id,..' },
    initiatives: { kind: 'list', items: 'id', description: 'narrow to these initiative ids', placeholder: 'id,..' },
    'expires-in-days': { kind: 'int', min: 1, max: 36_500, description: 'expire N days from now (at most 100 years)' },
    'expires-in-seconds': { kind: 'int', min: 1, max: 3_153_600_000, description: 'expire N seconds from now (at most 100 years)' },
    'ttl-hours': { kind: 'int', min: 1, max: 168, description: 'expire N hours from now (SESSION keys: default 24)' },
    name: { kind: 'string', description: 'a label for the key' },
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const user = await client.query(
      `select u.id from app_public.users u join app_public.memberships m on m.user_id = u.id
       where lower(u.email) = lower($1) and m.workspace_id = $2`, [v.user, ws]);
    if (!user.rowCount) throw invalidInput({ user: 'no member with this email in the workspace' }, `${v.user} is not a member of this workspace`);
    const linked = v.agent ? await agentId(client, ws, v.agent) : null;
    const scopes = (v.scopes?.length ? v.scopes : ['FULL']).map((s) => s.toUpperCase()) as KeyScope[];
    const bad = scopes.filter((s) => s !== 'FULL' && !(SCOPES as readonly string[]).includes(s));
    if (bad.length) throw new UsageError(`unknown scope ${bad.join(', ')}; scopes are FULL, ${SCOPES.join(', ')}`);
    const expiry = (['ttl-hours', 'expires-in-days', 'expires-in-seconds'] as const).filter((f) => v[f] !== undefined);
    if (expiry.length > 1) throw new UsageError(`give one of --ttl-hours, --expires-in-days, --expires-in-seconds (got ${expiry.map((f) => `--${f}`).join(' and ')})`);
    let expiresAt: Date | null = null;
    if (v['ttl-hours'] !== undefined) expiresAt = new Date(Date.now() + v['ttl-hours'] * 3_600_000);
    else if (v['expires-in-days'] !== undefined) expiresAt = new Date(Date.now() + v['expires-in-days'] * 86_400_000);
    else if (v['expires-in-seconds'] !== undefined) expiresAt = new Date(Date.now() + v['expires-in-seconds'] * 1000);
    else if (v.kind === 'SESSION') expiresAt = new Date(Date.now() + 24 * 3_600_000);
    // Spec 8 (the SQL checks it too, naming ttlHours): said on the flag given.
    if (v.kind === 'SESSION' && expiresAt && expiresAt.getTime() > Date.now() + 168 * 3_600_000) {
      throw new UsageError(`--${expiry[0]}: a SESSION key expires within 168 hours (7 days); use a PERSONAL key to keep access longer`);
    }
    const key = await issueKey(client, {
      workspaceId: ws, userId: user.rows[0].id, kind: (v.kind as KeyKind | undefined) ?? (linked ? 'AGENT' : 'PERSONAL'), linkedAgentId: linked,
      scopes, projectIds: v.projects ?? [], labelIds: v.labels ?? [], initiativeIds: v.initiatives ?? [], expiresAt, name: v.name ?? null,
    });
    const { createdAt: _c, ...apiKey } = key;
    return {
      json: { apiKey },
      text: `Created ${key.kind} key ${key.prefix}… (${key.id})${key.expiresAt ? `, expires ${key.expiresAt}` : ''}.\nAPI key (shown once): ${key.rawKey}`,
    };
  }),

  command('revoke-key', 'Revoke a key (it stops working at once).', {
    id: { kind: 'id', required: true, description: 'key id (see list-keys)' },
  }, async (client, v) => {
    const { rows } = await client.query('select id, revoked_at from app_private.revoke_api_key($1)', [v.id]);
    return { json: { apiKey: { id: rows[0].id, revokedAt: rows[0].revoked_at.toISOString() } }, text: `Revoked key ${rows[0].id}.` };
  }),

  // Webhooks (decisions.md, Webhooks). The secret is printed once, by create and rotate only.

  command('create-webhook', 'Register a webhook; prints its signing secret once.', {
    workspace: WORKSPACE,
    url: { kind: 'string', required: true, maxLength: 2048, description: 'http(s) URL that receives the POSTs',
           pattern: { test: /^https?:\/\/[^\s/?#@]+(?:[/?#]\S*)?$/, says: 'an http(s) URL without credentials (https://hooks.example.com/svc)' } },
    events: { kind: 'string', maxLength: 4000, description: 'event kinds to deliver (default: all)', placeholder: 'K1,K2|all' },
    description: { kind: 'string', maxLength: 1000, description: 'a note for people' },
  }, async (client, v) => {
    await assertWebhookUrl(v.url);
    const ws = await workspaceId(client, v.workspace);
    const { rows } = await client.query('select app_private.webhook_create($1, $2, $3, $4) as w', [
      ws, v.url, eventsFlag(v.events) ?? [], v.description ?? null,
    ]);
    const w = rows[0].w;
    return {
      json: { webhook: w },
      text: `Created webhook ${w.id} → ${w.url} (${w.events.length ? w.events.join(', ') : 'every event'}).\nSigning secret (shown once): ${w.secret}`,
    };
  }),

  command('list-webhooks', 'List the webhooks of a workspace with pending and dead-letter counts (no secrets).', { workspace: WORKSPACE }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const { rows } = await client.query('select app_private.webhooks_list($1) as l', [ws]);
    const list = rows[0].l as Array<{ id: string; url: string; active: boolean; pending: number; deadLetters: number }>;
    return {
      json: { items: list },
      text: list.map((w) => `${w.id} ${w.active ? 'active  ' : 'inactive'} ${w.url} pending=${w.pending} dead=${w.deadLetters}`).join('\n') || 'No webhooks.',
    };
  }),

  command('update-webhook', 'Change a webhook (only the flags given).', {
    id: { kind: 'id', required: true, description: 'webhook id (see list-webhooks)' },
    url: { kind: 'string', maxLength: 2048, description: 'new URL' },
    events: { kind: 'string', maxLength: 4000, description: 'event kinds, or all', placeholder: 'K1,K2|all' },
    active: { kind: 'bool', description: 'deliver or pause' },
    description: { kind: 'string', maxLength: 1000, description: 'a note for people' },
  }, async (client, v) => {
    await assertWebhookUrl(v.url);  // no credentials; no private targets unless SVC_EGRESS_ALLOW_PRIVATE=1
    const { rows } = await client.query('select app_private.webhook_update($1, $2, $3, $4, $5) as w', [
      v.id, v.url ?? null, eventsFlag(v.events) ?? null, v.active ?? null, v.description ?? null,
    ]);
    return { json: { webhook: rows[0].w }, text: `Updated webhook ${rows[0].w.id}.` };
  }),

  command('delete-webhook', 'Delete a webhook.', { id: { kind: 'id', required: true, description: 'webhook id (see list-webhooks)' } }, async (client, v) => {
    const { rows } = await client.query('select app_private.webhook_delete($1) as w', [v.id]);
    return { json: { webhook: rows[0].w }, text: `Deleted webhook ${rows[0].w.id}.` };
  }),

  command('rotate-webhook-secret', 'Replace a webhook\'s signing secret; prints the new one once. The old one keeps signing beside it for --keep-previous-hours.', {
    id: { kind: 'id', required: true, description: 'webhook id (see list-webhooks)' },
    'keep-previous-hours': KEEP_PREVIOUS_HOURS,
  }, async (client, v) => {
    const { rows } = await client.query('select app_private.webhook_rotate_secret($1, $2) as w', [v.id, v['keep-previous-hours'] ?? 24]);
    const w = rows[0].w as { id: string; secret: string; previousSecretValidUntil: string | null };
    return { json: { webhook: w }, text: `New signing secret for ${w.id} (shown once): ${w.secret}\n${graceText(w.previousSecretValidUntil)}` };
  }),

  command('list-deliveries', 'List webhook deliveries, newest first.', {
    workspace: WORKSPACE,
    webhook: { kind: 'id', description: 'only this webhook' },
    status: { kind: 'string', choices: ['PENDING', 'DELIVERED', 'DEAD_LETTER', 'CANCELED'], description: 'only this status' },
    limit: { kind: 'int', min: 1, max: 200, description: 'page size (default 50, at most 200)' },
    before: { kind: 'id', description: 'nextCursor of a previous page', placeholder: 'CURSOR' },
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    if (v.webhook && !(await client.query('select 1 from app_public.webhooks where id = $1 and workspace_id = $2', [v.webhook, ws])).rows.length) {
      throw namesNothing('webhook', `no webhook ${v.webhook} in this workspace (see list-webhooks)`);
    }
    const { rows } = await client.query('select app_private.webhook_deliveries_list($1, $2, $3, $4, $5) as l', [
      ws, v.webhook ?? null, v.status ?? null, v.limit ?? 50, v.before ?? null,
    ]);
    const page = rows[0].l as { nextCursor: string | null; items: Array<{ id: string; status: string; eventKind: string; channel: string; totalAttempts: number; lastError: string | null }> };
    return {
      json: { items: page.items, nextCursor: page.nextCursor },
      text: page.items.map((d) => `${d.id} ${d.status.padEnd(11)} ${d.eventKind} ${d.channel} attempts=${d.totalAttempts}${d.lastError ? ` (${d.lastError})` : ''}`).join('\n') || 'No deliveries.',
    };
  }),

  command('retry-delivery', 'Put a dead-letter delivery back in the queue.', {
    id: { kind: 'id', required: true, description: 'delivery id (see list-deliveries)' },
  }, async (client, v) => {
    const { rows } = await client.query('select app_private.webhook_delivery_retry($1) as d', [v.id]);
    return { json: { delivery: rows[0].d }, text: `Delivery ${rows[0].d.id} queued again.` };
  }),

  command('rotate-agent-secret', 'Replace the signing secret of an agent\'s dispatch deliveries; prints it once. The old one keeps signing beside it for --keep-previous-hours.', {
    workspace: WORKSPACE, agent: AGENT,
    'keep-previous-hours': KEEP_PREVIOUS_HOURS,
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const id = await agentId(client, ws, v.agent);
    const { rows } = await client.query('select app_private.rotate_agent_webhook_secret($1, $2) as s', [id, v['keep-previous-hours'] ?? 24]);
    const { secret, previousSecretValidUntil } = rows[0].s as { secret: string; previousSecretValidUntil: string | null };
    return {
      json: { agent: { id, profileKey: v.agent }, secret, previousSecretValidUntil },
      text: `New dispatch signing secret for agent ${v.agent} (shown once): ${secret}\n${graceText(previousSecretValidUntil)}`,
    };
  }),

  command('create-repo-mapping', 'Map a repository for the repohost tools (read-only toward the host); the token is the name of an environment variable.', {
    workspace: WORKSPACE,
    repo: { kind: 'string', required: true, description: 'owner/name of the repository', placeholder: 'OWNER/NAME' },
    'token-env': { kind: 'string', description: 'environment variable holding the host token', placeholder: 'VAR' },
    'api-url': { kind: 'string', maxLength: 500, description: 'API base URL (GitHub Enterprise); default https://api.github.com', placeholder: 'URL' },
  }, async (client, v) => {
    await assertWebhookUrl(v['api-url'], 'apiUrl'); // an outbound target as a webhook's: no credentials, no private host
    const ws = await workspaceId(client, v.workspace);
    const { rows } = await client.query('select app_hidden.repo_mapping_insert($1, $2, $3, $4) as m', [
      ws, v.repo, v['token-env'] ?? null, v['api-url'] ?? null,
    ]);
    return { json: { mapping: rows[0].m }, text: `Mapped ${rows[0].m.repoFullName} (${rows[0].m.id}).` };
  }),

  command('open-chat', 'Open a new chat thread addressed to an agent on behalf of a person, optionally posting a USER message (delivered to the agent).', {
    workspace: WORKSPACE, agent: AGENT,
    user: { kind: 'string', required: true, maxLength: 254, description: 'email of the member the thread belongs to', placeholder: 'EMAIL' },
    message: { kind: 'string', maxLength: 100_000, multiline: true, description: 'first USER message', placeholder: 'TEXT' },
  }, async (client, v) => {
    const ws = await workspaceId(client, v.workspace);
    const agent = await agentId(client, ws, v.agent);
    const user = await client.query('select id from app_public.users where lower(email) = lower($1)', [v.user]);
    if (!user.rows.length) throw namesNothing('user', `no user with email ${v.user}`);
    // The person is the events' actor, as when they open it themselves (GraphQL): the CLI's said none.
    await client.query("select set_config('svc.user_id', $1, true)", [user.rows[0].id]);
    const { rows } = await client.query('select app_private.chat_open_thread($1, $2, $3, null, null, $4) as r',
      [ws, agent, user.rows[0].id, v.message ?? null]);
    return { json: rows[0].r, text: `Opened thread ${rows[0].r.thread.id}.` };
  }),
];

/** The function behind GraphQL agentsArchive/agentsUnarchive: AGENT_DELETED / AGENT_UPDATED in this transaction. */
async function setArchived(client: pg.ClientBase, workspace: string, profileKey: string, archived: boolean): Promise<AdminResult> {
  const ws = await workspaceId(client, workspace);
  const id = await agentId(client, ws, profileKey);
  const { rows } = await client.query('select app_hidden.agent_json(app_private.set_agent_archived($1, $2, $3)) as a', [ws, id, archived]);
  const agent = rows[0].a as { profileKey: string; archivedAt: string | null };
  return {
    json: { agent },
    text: archived ? `Archived agent ${agent.profileKey} (at ${agent.archivedAt}).` : `Agent ${agent.profileKey} is active again.`,
  };
}

/** Every admin command's declaration, by name (as typed after `svc admin`). */
export const ADMIN_SPECS: Record<string, AdminCommand> = Object.fromEntries(
  commands.map((c) => [c.name.replace(/^svc admin /, ''), c as unknown as AdminCommand]),
);

/**
 * Runs a command from raw values (what `svc admin <name>` passes after parsing, and what tests and
 * benchmarks pass directly): validated against the same declaration.
 */
export const ADMIN_COMMANDS: Record<string, (client: pg.ClientBase, flags: Flags) => Promise<AdminResult>> = Object.fromEntries(
  Object.entries(ADMIN_SPECS).map(([name, spec]) => [name, (client: pg.ClientBase, flags: Flags) => spec.run(client, validate(spec, flags))]),
);
