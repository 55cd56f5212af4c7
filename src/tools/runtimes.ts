import { z } from 'zod';
import { cursor, defineTools, httpUrl, id, limit, line, page, timestamp, tool } from './define.ts';
import { agentProvider, runtimeKind } from './shapes.ts';

const info = z.record(z.string(), z.unknown()).describe(
  'Runtime metadata; only runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch and workspaceRoot are kept');

// The table's check (`^https?://`, ≤ 2048) said as a 400 on `endpoint` instead of a constraint name.
const endpoint = httpUrl(2048).describe('http:// or https:// URL of the runtime');

// The adapter settings' values are checked here; which keys a runtime takes depends on its providers, so unknown
// keys pass through to the SQL, which refuses them naming the ones it accepts.
const adapterSetting = z.union([line(500), z.record(z.string(), z.unknown())], { error: 'expected a name (one line of text) or an object of settings' });
const adapterConfig = z.object({
  localWorkspaceTools: z.boolean().optional().describe('The agent may use tools on its local workspace'),
  toolCapabilities: z.array(line(100)).max(100).optional().describe('Tool capabilities the runtime offers'),
  workspaceRoot: line(1000).optional().describe('Path of the workspace on the runtime'),
  modeToolPolicyEnforced: z.boolean().optional().describe('The runtime enforces the run mode\'s tool policy'),
  sandbox: adapterSetting.optional().describe('CODEX runtimes: sandbox mode (a name or an object of settings)'),
  approval: adapterSetting.optional().describe('CODEX runtimes: approval policy (a name or an object of settings)'),
}).catchall(z.unknown());

export const RuntimeOut = z.looseObject({
  id: z.string(), name: z.string(), kind: runtimeKind, endpoint: z.string().nullable(), providersAvailable: z.array(agentProvider),
  info: z.record(z.string(), z.unknown()), config: z.record(z.string(), z.unknown()), ownerId: z.string().nullable(),
  owner: z.object({ id: z.string(), name: z.string(), email: z.string() }).nullable(),
  heartbeatAt: timestamp.nullable(), hasSecret: z.boolean(), _count: z.object({ agents: z.number() }),
  archivedAt: timestamp.nullable(), archived: z.boolean(), createdAt: timestamp, updatedAt: timestamp,
});

export const runtimeTools = defineTools(
  tool({
    name: 'runtimes.register',
    refusesNarrowedKeys: 'any',
    scopes: ['ADMIN'],
    description: "Register a runtime (a machine or service running agents). Not de-duplicated: each call creates one, unless runtimeId names an existing (possibly archived) runtime, which is restored and updated. ownerId is the key's user (null for AGENT keys); a secret is stored only as a hash (hasSecret). Emits RUNTIME_REGISTERED.",
    input: z.strictObject({
      name: line(200), kind: runtimeKind, endpoint: endpoint.optional(),
      // A provider named twice is kept once (it was stored and listed twice).
      providersAvailable: z.array(agentProvider).max(4).overwrite((list) => [...new Set(list)]), info: info.optional(),
      secret: z.string().min(16).max(500).optional().describe('Shared secret of the runtime; kept only as SHA-256'),
      runtimeId: id('runtimeId').optional().describe('Restore this runtime instead of creating one'),
    }),
    output: RuntimeOut,
  }),
  tool({
    name: 'runtimes.heartbeat',
    scopes: ['ADMIN'],
    description: 'Bump heartbeatAt of a runtime (info, if given, is merged after the whitelist). An archived runtime: 409 runtime_archived (runtimes.register {runtimeId} restores it).',
    input: z.strictObject({ runtimeId: id('runtimeId'), info: info.optional() }),
    output: RuntimeOut,
  }),
  tool({
    name: 'runtimes.list',
    scopes: ['ADMIN'],
    description: 'Runtimes of the workspace, newest first, with _count.agents and an owner summary; secrets appear only as hasSecret. Archived ones only with includeArchived.',
    input: z.strictObject({ kind: runtimeKind.optional(), includeArchived: z.boolean().default(false), limit: limit(50, 200), cursor: cursor.optional() }),
    output: page(RuntimeOut),
    readOnly: true,
  }),
  tool({
    name: 'runtimes.get',
    scopes: ['ADMIN'],
    description: 'One runtime by id (archived too); never its secret.',
    input: z.strictObject({ id: id('id') }),
    output: RuntimeOut,
    readOnly: true,
  }),
  tool({
    name: 'runtimes.configure',
    refusesNarrowedKeys: 'any',
    scopes: ['ADMIN'],
    description: 'Set adapter configuration of a runtime: merged into the current config (merge true, default) or replacing it. Accepted keys: localWorkspaceTools, toolCapabilities, workspaceRoot, modeToolPolicyEnforced; runtimes offering CODEX also sandbox and approval. Unknown keys and values of the wrong type are a 400 naming config.<key>; an archived runtime is 409 runtime_archived. Emits RUNTIME_UPDATED when the config changes.',
    input: z.strictObject({ runtimeId: id('runtimeId'), config: adapterConfig, merge: z.boolean().default(true) }),
    output: RuntimeOut,
  }),
  tool({
    name: 'runtimes.reportInfo',
    refusesNarrowedKeys: 'anyUnlessAgent',
    scopes: ['ADMIN'],
    description: "Report runtime metadata; only the whitelisted keys (runtimeVersion, bridgeVersion, codexVersion, containerImage, hostname, os, arch, workspaceRoot) are stored, merged. Without runtimeId: the runtime of the calling key's agent.",
    input: z.strictObject({ runtimeId: id('runtimeId').optional(), info }),
    output: RuntimeOut,
  }),
);
