/** The board's markdown renderer (src/web/client/markdown.ts) on what agents and people write. */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/web/client/markdown.ts';

describe('renderMarkdown', () => {
  it('a bare URL inside HTML shown as text ends at its quote (it linked to http://evil">)', () => {
    expect(renderMarkdown('<iframe src="http://evil"></iframe>'))
      .toBe('<p>&lt;iframe src=&quot;<a href="http://evil">http://evil</a>&quot;&gt;&lt;/iframe&gt;</p>');
    expect(renderMarkdown('go to https://x.com/a>b')).toBe('<p>go to <a href="https://x.com/a">https://x.com/a</a>&gt;b</p>');
  });

  it('leaves other links as they are: bare, labelled, with a query', () => {
    expect(renderMarkdown('see https://x.com/a now')).toBe('<p>see <a href="https://x.com/a">https://x.com/a</a> now</p>');
    expect(renderMarkdown('[a "quoted" label](https://x.com/%22)')).toBe('<p><a href="https://x.com/%22">a &quot;quoted&quot; label</a></p>');
    expect(renderMarkdown('[x](javascript:alert(1))')).toBe('<p><span class="dropped-link">x</span></p>');
    expect(renderMarkdown('[x](javascript:alert(1) "a title")')).toBe('<p><span class="dropped-link">x</span></p>');
  });
});
