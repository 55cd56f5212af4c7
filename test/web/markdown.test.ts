/** The board's markdown renderer (src/web/client/markdown.ts) on what agents and people write. */
import { describe, expect, it } from 'vitest';
import { fetchableImage, renderMarkdown } from '../../src/web/client/markdown.ts';

describe('renderMarkdown', () => {
  it('a bare URL inside HTML shown as text ends at its quote (it linked to http://evil">)', () => {
    expect(renderMarkdown('<iframe src="http://evil"></iframe>'))
      .toBe('<p dir="auto">&lt;iframe src=&quot;<a href="http://evil">http://evil</a>&quot;&gt;&lt;/iframe&gt;</p>');
    expect(renderMarkdown('go to https://x.com/a>b')).toBe('<p dir="auto">go to <a href="https://x.com/a">https://x.com/a</a>&gt;b</p>');
  });

  it('leaves other links as they are: bare, labelled, with a query', () => {
    expect(renderMarkdown('see https://x.com/a now')).toBe('<p dir="auto">see <a href="https://x.com/a">https://x.com/a</a> now</p>');
    expect(renderMarkdown('[a "quoted" label](https://x.com/%22)')).toBe('<p dir="auto"><a href="https://x.com/%22">a &quot;quoted&quot; label</a></p>');
    expect(renderMarkdown('[x](javascript:alert(1))')).toBe('<p dir="auto"><span class="dropped-link">x</span></p>');
    expect(renderMarkdown('[x](javascript:alert(1) "a title")')).toBe('<p dir="auto"><span class="dropped-link">x</span></p>');
  });

  it('shows as images only the service\'s own attachment links; any other source is a link, followed only when clicked', () => {
    // A same-origin path made every reader's browser send a GET there (it was shown as <img src="/graphql">).
    expect(renderMarkdown('![local](/graphql)'))
      .toBe('<p dir="auto"><a class="external-image" href="/graphql" rel="noreferrer noopener" target="_blank">local (image)</a></p>');
    expect(renderMarkdown('![x](/api/mcp/issues.delete?id=1)')).not.toContain('<img');
    expect(renderMarkdown('![chart](/blobs/7a0c/3f2e.png?exp=1&fn=c.png&sig=ab "Chart")'))
      .toBe('<p dir="auto"><img src="/blobs/7a0c/3f2e.png?exp=1&amp;fn=c.png&amp;sig=ab" alt="chart" title="Chart" /></p>');
    // Paths that a browser resolves elsewhere: dot segments (plain or escaped), backslashes, another host.
    for (const src of ['/blobs/../graphql', '/blobs/a/b/../../graphql', '/blobs/%2e%2e/graphql', '/blobs/a/%2e%2e', '//evil.example/blobs/a/b', '/blobs/a/b/c', '/blobs/.hidden/b']) {
      expect(fetchableImage(src, 'http://127.0.0.1:3000')).toBe(false);
      expect(renderMarkdown(`![x](${src})`)).not.toContain('<img');
    }
    // The embedded store's signed link as getDownloadUrl gives it (absolute, at this page's origin) is one too.
    expect(fetchableImage('http://127.0.0.1:3000/blobs/ws/file.png?exp=1&amp;sig=ab', 'http://127.0.0.1:3000')).toBe(true);
    expect(fetchableImage('http://other.example/blobs/ws/file.png?exp=1', 'http://127.0.0.1:3000')).toBe(false);
    expect(renderMarkdown('![d](https://example.com/d.png)'))
      .toBe('<p dir="auto"><a class="external-image" href="https://example.com/d.png" rel="noreferrer noopener" target="_blank">d (image)</a></p>');
  });

  it('gives each block its own direction (dir="auto": an Arabic paragraph reads right to left), code excepted', () => {
    expect(renderMarkdown('مرحبا\n\n# Title\n\n> quoted\n\n```\ncode\n```'))
      .toBe('<p dir="auto">مرحبا</p>\n<h1 dir="auto">Title</h1>\n<blockquote dir="auto">\n<p dir="auto">quoted</p>\n</blockquote>\n<pre><code>code\n</code></pre>');
    expect(renderMarkdown('| a |\n|---|\n| ب |')).toContain('<th dir="auto">a</th>');
    expect(renderMarkdown('| a |\n|---|\n| ب |')).toContain('<td dir="auto">ب</td>');
    // Text that looks like a tag is escaped, never given an attribute.
    expect(renderMarkdown('<p>hi</p>')).toBe('<p dir="auto">&lt;p&gt;hi&lt;/p&gt;</p>');
  });

  it('names a task list\'s checkboxes by their state', () => {
    expect(renderMarkdown('- [ ] write it\n- [x] plan it')).toBe('<ul>\n<li dir="auto"><input type="checkbox" disabled="" aria-label="not done" /> write it</li>\n'
      + '<li dir="auto"><input type="checkbox" disabled="" checked="" aria-label="done" /> plan it</li>\n</ul>');
  });
});
