/** catalog.search's ranking over the real catalog: the tool an agent's words mean comes first (no database needed). */
import { describe, expect, it } from 'vitest';
import { CatalogIndex, stem, words } from '../../src/tools/catalog-search.ts';
import { TOOLS } from '../../src/tools/catalog.ts';

const index = new CatalogIndex(TOOLS);
const top = (query: string, n = 1) => index.search(query, n).map((t) => t.name);

describe('catalog.search ranking', () => {
  it('puts the tool the words mean first', () => {
    const expected: Array<[string, string]> = [
      ['claim an issue', 'issues.claim'], // "an" matched every description before: issues.claim was not in the first 8
      ['add a comment', 'comments.create'],
      ['create label', 'labels.create'],
      ['create issue', 'issues.create'],
      ['upload a file', 'attachments.upload'], // the one-call upload; initUpload for larger files
      ['finish my run', 'runs.complete'],
      ['mark issue done', 'issues.transition'],
      ['move issue to in progress', 'issues.transition'],
      ['what should I work on next', 'agents.workload'],
      ['who am I', 'agents.me'],
      ['post a message', 'chat.appendMessage'],
      ['I am alive', 'agents.heartbeat'],
      ['rotate webhook secret', 'webhooks.rotateSecret'],
      ['restore a deleted issue', 'issues.restore'],
    ];
    for (const [query, tool] of expected) expect([query, top(query)[0]]).toEqual([query, tool]);
  });

  it('keeps a namespace together and finds words inside camelCase names', () => {
    expect(top('sprint', 5).every((n) => n.startsWith('cycles.'))).toBe(true);
    expect(top('time tracking', 5).every((n) => n.startsWith('time.'))).toBe(true);
    expect(top('block issue', 3)).toContain('relations.add');
    expect(top('give work back', 3)).toContain('issues.unassign');
  });

  it('answers nothing for words the catalog does not have, or only stop words without a meaning', () => {
    expect(index.search('xyzzy', 10)).toEqual([]);
    expect(index.search('the of and', 10)).toEqual([]);
  });

  it('filters before ranking (what the key may call)', () => {
    expect(index.search('claim an issue', 5, (t) => t.name !== 'issues.claim').map((t) => t.name)).not.toContain('issues.claim');
  });

  it('stems plurals and verb forms to one word, and splits dotted camelCase names', () => {
    expect(['issues', 'issue', 'claiming', 'claimed', 'queued', 'queue', 'attachments'].map(stem))
      .toEqual(['issu', 'issu', 'claim', 'claim', 'queu', 'queu', 'attachment']);
    expect(words('issues.claimNext agentCrews.addMember')).toEqual(['issues', 'claim', 'next', 'agent', 'crews', 'add', 'member']);
  });
});
