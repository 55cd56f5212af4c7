/** GraphQL over HTTP for tests: POST /graphql through the real app (inject), like an in-app client. */
import type { TestApp } from './harness.ts';

export interface GqlResult<T = any> {
  status: number;
  data?: T;
  errors?: Array<{ message: string; path?: string[]; extensions?: { code?: string; status?: number; issues?: Record<string, string>; scope?: string } }>;
  /** The raw body (for non-GraphQL answers such as 401 `{error}`). */
  body: any;
  headers: Record<string, unknown>;
}

export async function gql<T = any>(t: TestApp, token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<GqlResult<T>> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: JSON.stringify({ query, variables }),
  });
  const body = res.body ? res.json() : undefined;
  return { status: res.statusCode, data: body?.data, errors: body?.errors, body, headers: res.headers };
}

/** Asserts success (HTTP 200, no errors) and returns data. */
export async function gqlOk<T = any>(t: TestApp, token: string, query: string, variables?: Record<string, unknown>): Promise<T> {
  const r = await gql<T>(t, token, query, variables);
  if (r.status !== 200 || r.errors?.length) throw new Error(`GraphQL ${r.status}: ${JSON.stringify(r.errors ?? r.body)}`);
  return r.data as T;
}

/** Asserts exactly one error and returns its extensions code (e.g. admin_required, not_found). */
export async function gqlError(t: TestApp, token: string, query: string, variables?: Record<string, unknown>): Promise<{ code?: string; status?: number; message: string; issues?: Record<string, string>; scope?: string }> {
  const r = await gql(t, token, query, variables);
  if (!r.errors?.length) throw new Error(`expected an error, got ${JSON.stringify(r.body)}`);
  const e = r.errors[0]!;
  return { message: e.message, ...e.extensions };
}
