/** Every planning/personal tool's real output matches the output schema it advertises (MCP clients validate it). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findTool, TOOLS } from '../../src/tools/catalog.ts';
import { ok, rpc, startWithWorkspaces, type TestApp, type Workspace } from '../support/harness.ts';

const NAMESPACES = ['projects', 'initiatives', 'cycles', 'relations', 'pins', 'notes', 'time'];
let t: TestApp;
let ws: Workspace;
const checked = new Set<string>();

beforeAll(async () => ({ t, ws } = await startWithWorkspaces()));
afterAll(() => t.close());

async function call(name: string, input: object) {
  const out = await ok(t, ws.token, name, input);
  const parsed = findTool(name)!.output.safeParse(out);
  expect(parsed.success, `${name}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  checked.add(name);
  return out;
}

describe('outputs match their declared schemas', () => {
  it('for every tool of the planning and personal namespaces', async () => {
    const init = await call('initiatives.create', { name: 'I' });
    await call('initiatives.update', { id: init.id, description: 'd' });
    await call('initiatives.list', {});
    const p = await call('projects.create', { name: 'P', initiativeId: init.id });
    await call('projects.update', { id: p.id, description: 'x' });
    await call('projects.list', { includeArchived: true });
    await call('initiatives.get', { id: init.id });
    await call('projects.get', { id: p.id });
    await call('projects.summary', { id: p.id });
    await call('initiatives.summary', { id: init.id });
    await call('initiatives.unlinkProject', { projectId: p.id });
    await call('initiatives.linkProject', { initiativeId: init.id, projectId: p.id });
    await call('projects.archive', { id: p.id });
    await call('projects.unarchive', { id: p.id });
    await call('initiatives.archive', { id: init.id });
    await call('initiatives.unarchive', { id: init.id });

    const a = await ok(t, ws.token, 'issues.create', { title: 'a' });
    const b = await ok(t, ws.token, 'issues.create', { title: 'b' });
    expect(await call('cycles.current', {})).toBeNull();
    const c = await call('cycles.create', {});
    await call('cycles.update', { id: c.id, name: 'Renamed' });
    await call('cycles.addIssue', { cycleId: c.id, issueId: a.id });
    await call('cycles.removeIssue', { cycleId: c.id, issueId: a.id });
    await call('cycles.plan', { cycleId: c.id, add: [a.id, b.id] }); // c starts today: it is the current sprint, not an upcoming one
    await call('cycles.rollover', {});
    await call('cycles.current', {});
    await call('cycles.get', { id: c.id });
    await call('cycles.list', {});
    await call('cycles.delete', { id: (await call('cycles.create', { startsOn: '2040-01-01', endsOn: '2040-01-10' })).id });

    const rel = await call('relations.add', { fromIssueId: a.id, toIssueId: b.id, kind: 'BLOCKED_BY' });
    await call('relations.listForIssue', { issueId: b.id });
    await call('relations.list', {});
    await call('relations.remove', { id: rel.id });

    await call('pins.set', { issueIds: [a.id] });
    await call('pins.list', {});

    const n = await call('notes.create', { body: 'n' });
    await call('notes.update', { id: n.id, title: 't' });
    await call('notes.get', { id: n.id });
    await call('notes.archive', { id: n.id });
    await call('notes.list', { archived: true });
    await call('notes.todayJournal', {});
    await call('notes.listJournal', {});

    expect(await call('time.running', {})).toBeNull();
    await call('time.start', { issueId: a.id });
    await call('time.running', {});
    await call('time.stop', {});
    const logged = await call('time.log', { issueId: b.id, durationMin: 3 });
    await call('time.update', { id: logged.id, durationMin: 4 });
    await call('time.get', { id: logged.id });
    await call('time.list', {});
    await call('time.summary', {});
    await call('time.delete', { id: logged.id });

    const expected = TOOLS.filter((x) => NAMESPACES.includes(x.namespace)).map((x) => x.name).sort();
    expect([...checked].sort()).toEqual(expected);
  });

  it('MCP structuredContent is the same object (arrays as {items})', async () => {
    const r = await rpc(t, ws.token, 'tools/call', { name: 'relations.listForIssue', arguments: { issueId: `${ws.key}-1` } });
    expect(r.body.result.structuredContent).toEqual({ items: JSON.parse(r.body.result.content[0].text) });
    const c = await rpc(t, ws.token, 'tools/call', { name: 'cycles.current', arguments: {} });
    expect(c.body.result.structuredContent).toEqual(JSON.parse(c.body.result.content[0].text));
  });
});
