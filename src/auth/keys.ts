/**
 * API keys: `svc_sk_` + 43 base64url characters (32 random bytes). Only the SHA-256 is stored. Tokens are
 * generated in SQL (app_private.issue_api_key), the one path for `svc admin` and the in-app procedures.
 * Authentication looks the hash up once and caches the row for a short time; revocation is still exact
 * because app_hidden.set_request_context re-checks the key in the same statement as every call, and
 * the svc_keys NOTIFY (a key revoked, its agent archived or restored) drops cached rows at once on every process.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { ApiError } from '../errors.ts';

export const SCOPES = [
  'READ_ISSUES', 'WRITE_ISSUES', 'READ_PROJECTS', 'WRITE_PROJECTS', 'READ_COMMENTS', 'WRITE_COMMENTS',
  'READ_USERS', 'WRITE_USERS', 'READ_ANALYTICS', 'SUBSCRIBE_EVENTS', 'INVOKE_SKILLS', 'ADMIN',
] as const;
export type Scope = (typeof SCOPES)[number];
export type KeyScope = Scope | 'FULL';
export type KeyKind = 'AGENT' | 'PERSONAL' | 'SESSION';

const TOKEN_TAG = 'svc_sk_';
const TOKEN_PATTERN = /^svc_sk_[A-Za-z0-9_-]{43}$/;

export const hashToken = (rawKey: string): Buffer => crypto.createHash('sha256').update(rawKey).digest();

/** Who is calling: the key row and what it may see. */
export interface Caller {
  keyId: string;
  workspaceId: string;
  /** The key's own user (null for plugin keys). */
  userId: string | null;
  agentId: string | null;
  kind: KeyKind;
  scopes: KeyScope[];
  projectIds: string[];
  labelIds: string[];
  initiativeIds: string[];
  expiresAt: Date | null;
  /** The key's own user is OWNER or ADMIN of the workspace (as of the same read): only leaves tools out of tools/list. */
  workspaceAdmin?: boolean;
}

/** The key is narrowed to projects, labels or initiatives: what it sees of the events is asked per event. */
export function isNarrowed(caller: Pick<Caller, 'projectIds' | 'labelIds' | 'initiativeIds'>): boolean {
  return caller.projectIds.length + caller.labelIds.length + caller.initiativeIds.length > 0;
}

/** Milliseconds until the key expires (0 when it has), capped at what setTimeout takes; undefined when it never does. */
export function msUntilExpiry(caller: Pick<Caller, 'expiresAt'>): number | undefined {
  return caller.expiresAt ? Math.min(Math.max(caller.expiresAt.getTime() - Date.now(), 0), 2 ** 31 - 1) : undefined;
}

export function hasScope(caller: Pick<Caller, 'scopes'>, scope: Scope): boolean {
  return caller.scopes.includes('FULL') || caller.scopes.includes(scope);
}

interface KeyRow {
  key_id: string;
  workspace_id: string;
  user_id: string | null;
  kind: KeyKind;
  linked_agent_id: string | null;
  scopes: KeyScope[];
  project_ids: string[];
  label_ids: string[];
  initiative_ids: string[];
  expires_at: Date | null;
  revoked_at: Date | null;
  agent_archived: boolean | null;
  workspace_admin: boolean;
}

/** RFC 6750: every 401 names the Bearer scheme and why the token was refused (REST, JSON-RPC, GraphQL, SSE). */
const unauthorized = (error: 'invalid' | 'revoked' | 'expired', message: string) =>
  new ApiError(401, { error, message }, { 'www-authenticate': `Bearer error="invalid_token", error_description="${message}"` });

/**
 * A request must carry at most one Authorization header. Node keeps only the first of several in
 * `req.headers.authorization` (and authenticate() would use it), so the raw header list is checked: two
 * credentials in one request are refused with the same 401 `invalid` as any other unusable credential.
 */
export function assertOneAuthorization(rawHeaders: readonly string[]): void {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.length === 13 && rawHeaders[i]!.toLowerCase() === 'authorization' && ++n > 1) {
      throw unauthorized('invalid', 'More than one Authorization header; send exactly one');
    }
  }
}

export class KeyAuthenticator {
  private cache = new Map<string, { row: KeyRow | null; at: number }>();
  /** key id → when it was last used (written in batches: the time of the use, not of the write). */
  private used = new Map<string, Date>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly apiPool: pg.Pool,
    private readonly ownerPool: pg.Pool,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
    lastUsedFlushMs = 15_000,
  ) {
    this.flushTimer = setInterval(() => void this.flushLastUsed(), lastUsedFlushMs);
    this.flushTimer.unref();
  }

  /**
   * Resolves a bearer token to its caller, or throws the spec's 401 (invalid → revoked → expired).
   * `fresh` skips the cache (GraphQL: one indexed lookup per request, so a key revoked a moment ago is
   * refused with HTTP 401 even before the svc_keys notification arrives).
   */
  async authenticate(authorization: string | undefined, opts: { fresh?: boolean } = {}): Promise<Caller> {
    const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
    if (!match) {
      // A Bearer header with more than one token after it (`Bearer X, Bearer Y`) is malformed, not missing.
      throw unauthorized('invalid', /^Bearer\s+\S/i.test(authorization ?? '')
        ? 'Malformed Authorization header: send exactly one Bearer token (Bearer <key>)'
        : 'Missing bearer token');
    }
    const token = match[1]!;
    if (!TOKEN_PATTERN.test(token)) throw unauthorized('invalid', 'Invalid API key');
    const hash = hashToken(token);
    const cacheKey = hash.toString('base64');
    const now = Date.now();
    let entry = this.cache.get(cacheKey);
    // An archived agent's key is read afresh each time (one indexed read; such keys are rare): restored, it works on
    // its very next call, even before this process hears of the restore.
    if (!entry || opts.fresh || now - entry.at > this.ttlMs || entry.row?.agent_archived) {
      const { rows } = await this.apiPool.query<KeyRow>({
        name: 'svc_authenticate',
        text: 'select * from app_hidden.authenticate($1)',
        values: [hash],
      });
      entry = { row: rows[0] ?? null, at: now };
      if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(cacheKey, entry);
    }
    const row = entry.row;
    if (!row) throw unauthorized('invalid', 'Invalid API key');
    if (row.revoked_at) throw unauthorized('revoked', 'API key revoked');
    if (row.expires_at && row.expires_at.getTime() <= now) throw unauthorized('expired', 'API key expired');
    // An archived agent acts no more (every surface; set_request_context refuses each call too, so a cached row
    // that has not yet heard of the archive does not let a call through).
    if (row.agent_archived) {
      throw new ApiError(403, { error: 'agent_archived', message: 'This key\'s agent is archived; it acts again once an admin restores the agent' });
    }
    this.used.set(row.key_id, new Date());
    return {
      keyId: row.key_id,
      workspaceId: row.workspace_id,
      userId: row.user_id,
      agentId: row.linked_agent_id,
      kind: row.kind,
      scopes: row.scopes,
      projectIds: row.project_ids,
      labelIds: row.label_ids,
      initiativeIds: row.initiative_ids,
      expiresAt: row.expires_at,
      workspaceAdmin: row.workspace_admin,
    };
  }

  /** Drops a key from the cache (called on the svc_keys notification: revoked, or its agent archived or restored; and on local revocation). */
  forget(keyId: string): void {
    for (const [k, v] of this.cache) if (v.row?.key_id === keyId) this.cache.delete(k);
  }

  /**
   * Drops every cached key: the LISTEN connection came back, and a svc_keys notice sent while it was away reached no
   * one (a re-probe's revoked key kept opening MCP streams from the cache for its lifetime).
   */
  forgetAll(): void {
    this.cache.clear();
  }

  /** lastUsedAt is bumped in batches, not written on every call. */
  async flushLastUsed(): Promise<void> {
    if (this.used.size === 0) return;
    const uses = [...this.used];
    this.used.clear();
    await this.ownerPool.query('select app_private.touch_api_keys($1::uuid[], $2::timestamptz[])',
      [uses.map(([id]) => id), uses.map(([, at]) => at)]).catch(() => {});
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushLastUsed();
  }
}

export interface IssueKeyOptions {
  workspaceId: string;
  userId: string | null;
  kind?: KeyKind;
  linkedAgentId?: string | null;
  scopes: KeyScope[];
  projectIds?: string[];
  labelIds?: string[];
  initiativeIds?: string[];
  expiresAt?: Date | null;
  name?: string | null;
  pluginId?: string | null;
}

export interface IssuedKey {
  id: string;
  rawKey: string;
  prefix: string;
  kind: KeyKind;
  scopes: KeyScope[];
  projectIds: string[];
  labelIds: string[];
  initiativeIds: string[];
  expiresAt: string | null;
  linkedAgentId: string | null;
  createdAt: string;
}

/** Creates a key through app_private.issue_api_key (token generated there). The raw key exists only in the returned value. */
export async function issueKey(client: pg.ClientBase, opts: IssueKeyOptions): Promise<IssuedKey> {
  const { rows } = await client.query(
    `select id, raw_key, prefix, kind::text as kind, scopes::text[] as scopes, project_ids, label_ids, initiative_ids,
            expires_at, linked_agent_id, created_at
     from app_private.issue_api_key($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      opts.workspaceId, opts.userId, opts.kind ?? null, opts.linkedAgentId ?? null, opts.scopes,
      opts.projectIds ?? [], opts.labelIds ?? [], opts.initiativeIds ?? [], opts.expiresAt ?? null,
      opts.name ?? null, opts.pluginId ?? null,
    ],
  );
  const r = rows[0];
  return {
    id: r.id,
    rawKey: r.raw_key,
    prefix: r.prefix,
    kind: r.kind,
    scopes: r.scopes,
    projectIds: r.project_ids,
    labelIds: r.label_ids,
    initiativeIds: r.initiative_ids,
    expiresAt: r.expires_at ? r.expires_at.toISOString() : null,
    linkedAgentId: r.linked_agent_id,
    createdAt: r.created_at.toISOString(),
  };
}
