/**
 * MCP beyond tools (issue 14): resources (the workspace, issues as issue://{key}), resource templates,
 * prompts (triage an issue, draft a standup), argument completion (issue keys) and logging/setLevel.
 * Everything is read through the tools themselves, as the caller: the same scopes, narrowing and RLS.
 */
import type { Caller } from '../auth/keys.ts';
import { ApiError } from '../errors.ts';
import { findTool } from '../tools/catalog.ts';
import type { AppServices } from './app.ts';

/** JSON-RPC error codes: MCP's resource-not-found, and the standard invalid-params. */
export const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

export class RpcFault extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const TEMPLATES = [
  { uriTemplate: 'issue://{key}', name: 'issue', title: 'Issue', description: 'An issue by key (ENG-12) or id, with its description, labels, latest comments and relations.', mimeType: 'application/json' },
];
const WORKSPACE_URI = 'workspace://current';

const PROMPTS = [
  {
    name: 'triage-issue', title: 'Triage an issue',
    description: 'Read an issue and propose its priority, labels, status and next step.',
    arguments: [{ name: 'key', description: 'Issue key (ENG-12) or id', required: true }],
  },
  {
    name: 'draft-standup', title: 'Draft a standup',
    description: 'A standup update from what was done, started, opened and is blocked in the last hours.',
    arguments: [{ name: 'sinceHours', description: 'How far back, in hours (default 24, max 168)', required: false }],
  },
];

async function call(services: AppServices, caller: Caller, tool: string, args: Record<string, unknown>): Promise<any> {
  try {
    return JSON.parse(await services.callTool(caller, findTool(tool)!, args, 'rpc'));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const body = { ...err.body, status: err.status };
    if (err.status === 404) throw new RpcFault(RESOURCE_NOT_FOUND, err.body.message ?? 'Not found', body);
    throw new RpcFault(INVALID_PARAMS, err.body.message ?? err.body.error, body);
  }
}

const str = (v: unknown, what: string): string => {
  if (typeof v !== 'string' || !v) throw new RpcFault(INVALID_PARAMS, `${what} must be a non-empty string`);
  return v;
};

const readIssue = (services: AppServices, caller: Caller, key: string) =>
  call(services, caller, 'issues.get', { id: key, include: { description: true, labels: true, comments: { limit: 10 }, relations: true } });

/** Answers an MCP method other than initialize/ping/tools; undefined when the method is not one of these. */
export async function handleExtra(services: AppServices, caller: Caller, method: string, params: Record<string, unknown>): Promise<unknown | undefined> {
  switch (method) {
    case 'logging/setLevel': {
      // Accepted and checked; this server sends no log notifications (no server-initiated stream).
      if (typeof params.level !== 'string' || !LOG_LEVELS.includes(params.level)) {
        throw new RpcFault(INVALID_PARAMS, `level must be one of ${LOG_LEVELS.join(', ')}`);
      }
      return {};
    }
    case 'resources/list': {
      const resources: unknown[] = [{ uri: WORKSPACE_URI, name: 'workspace', title: 'This workspace', description: 'The workspace of this key: key, name, settings.', mimeType: 'application/json' }];
      const issues = await call(services, caller, 'issues.list', { open: true, limit: 50 }).catch((err) => {
        if (err instanceof RpcFault) return { items: [] }; // a key without READ_ISSUES still lists the workspace
        throw err;
      });
      for (const i of issues.items) resources.push({ uri: `issue://${i.key}`, name: i.key, title: `${i.key}: ${i.title}`, mimeType: 'application/json' });
      return { resources };
    }
    case 'resources/templates/list':
      return { resourceTemplates: TEMPLATES };
    case 'resources/read': {
      const uri = str(params.uri, 'uri');
      let data: unknown;
      if (uri === WORKSPACE_URI) data = await call(services, caller, 'workspace.get', {});
      else if (uri.startsWith('issue://') && uri.length > 'issue://'.length) data = await readIssue(services, caller, decodeURIComponent(uri.slice('issue://'.length)));
      else throw new RpcFault(RESOURCE_NOT_FOUND, `Unknown resource: ${uri}`, { uri });
      return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(data) }] };
    }
    case 'prompts/list':
      return { prompts: PROMPTS };
    case 'prompts/get': {
      const name = str(params.name, 'name');
      const args = (params.arguments ?? {}) as Record<string, unknown>;
      if (name === 'triage-issue') {
        const issue = await readIssue(services, caller, str(args.key, 'arguments.key'));
        return {
          description: `Triage ${issue.key}`,
          messages: [{ role: 'user', content: { type: 'text', text:
            `Triage issue ${issue.key}. Propose its priority (NONE, LOW, MEDIUM, HIGH, URGENT), labels, status and the next step, `
            + `and say what is missing to act on it. Use the issues.* tools to apply what we agree on.\n\nThe issue:\n${JSON.stringify(issue, null, 2)}` } }],
        };
      }
      if (name === 'draft-standup') {
        const hours = args.sinceHours === undefined || args.sinceHours === '' ? 24 : Number(args.sinceHours);
        if (!Number.isInteger(hours)) throw new RpcFault(INVALID_PARAMS, 'arguments.sinceHours must be a whole number of hours');
        const standup = await call(services, caller, 'standup.draft', { sinceHours: hours });
        return {
          description: `Standup for the last ${hours} hours`,
          messages: [{ role: 'user', content: { type: 'text', text:
            `Write my standup update for the last ${hours} hours from this draft: short, grouped as done, in progress, `
            + `blocked (with what blocks it), and what is next.\n\n${standup.markdown}` } }],
        };
      }
      throw new RpcFault(INVALID_PARAMS, `Unknown prompt: ${name}`);
    }
    case 'completion/complete': {
      const ref = (params.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
      const argument = (params.argument ?? {}) as { name?: unknown; value?: unknown };
      const wantsKey = (ref.type === 'ref/prompt' && ref.name === 'triage-issue' && argument.name === 'key')
        || (ref.type === 'ref/resource' && ref.uri === 'issue://{key}' && argument.name === 'key');
      if (!wantsKey) return { completion: { values: [], hasMore: false } };
      const prefix = typeof argument.value === 'string' ? argument.value.toUpperCase() : '';
      const issues = await call(services, caller, 'issues.list', { limit: 200 });
      const keys = (issues.items as Array<{ key: string }>).map((i) => i.key).filter((k) => k.toUpperCase().startsWith(prefix));
      return { completion: { values: keys.slice(0, 100), total: keys.length, hasMore: keys.length > 100 || !!issues.nextCursor } };
    }
    default:
      return undefined;
  }
}
