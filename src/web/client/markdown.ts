// Markdown to HTML with micromark in its safe default: raw HTML in the source is escaped (shown as text,
// never parsed), and link/image URLs with dangerous protocols (javascript:, data: …) are dropped. The
// page's CSP forbids inline scripts besides. GFM (tables, task lists, strikethrough, autolinks, footnotes)
// because agents write their reports in it.
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

// Raw HTML is not parsed as HTML at all (htmlFlow, htmlText off): escaped as it would be anyway, but a line
// such as `<div>` no longer opens a CommonMark HTML block that turns the markdown after it into raw text.
const noRawHtml = { disable: { null: ['htmlFlow', 'htmlText'] } };

/**
 * Whether an image source is one the reader's browser may fetch: only this service's own attachment downloads, the
 * embedded store's signed links (/blobs/<workspace>/<file>?exp…&sig…, relative or at this page's origin). Any other
 * same-origin path made every reader's browser send a GET there (![x](/graphql), or a path with a side effect);
 * another site's image would tell that site who reads the issue, and the page's CSP (img-src 'self' data:) blocks
 * it anyway. Two plain segments, no dot segments, no escapes or backslashes: the browser cannot resolve it elsewhere.
 */
const BLOB_PATH = /^\/blobs\/[A-Za-z0-9_-][A-Za-z0-9._-]*\/[A-Za-z0-9_-][A-Za-z0-9._-]*(\?[^#\\]*)?$/;
export function fetchableImage(src: string, origin = globalThis.location?.origin): boolean {
  const path = origin && src.startsWith(`${origin}/`) ? src.slice(origin.length) : src;
  return BLOB_PATH.test(path.replace(/&amp;/g, '&'));
}

export const renderMarkdown = (source: string): string => micromark(source, {
  allowDangerousHtml: false, allowDangerousProtocol: false, extensions: [gfm(), noRawHtml], htmlExtensions: [gfmHtml()],
})
  // A bare URL (GFM autolink) ends at a `"` or `>`: raw HTML is shown as text here, and `<iframe src="http://x">`
  // made a link to `http://x">`. The rest goes back outside the link as the text it was.
  .replace(/<a href="([^"]*)">((?:https?:\/\/|www\.)[^<]*?)((?:&quot;|&gt;)[^<]*)<\/a>/g, (link, href: string, url: string, rest: string) => {
    const cut = href.search(/%22|%3E/);
    return cut > 0 ? `<a href="${href.slice(0, cut)}">${url}</a>${rest}` : link;
  })
  // A link whose URL was dropped comes out as <a href=""> (with its title, if it had one), which reloads the page
  // when clicked: plain text instead.
  .replace(/<a href=""(?: title="[^"]*")?>([\s\S]*?)<\/a>/g, '<span class="dropped-link">$1</span>')
  // Only the service's own attachment links are shown as images (fetchableImage); any other image is a link to it,
  // followed only if the reader clicks it. An image whose URL was dropped (javascript:, data: …) keeps its text only.
  .replace(/<img src="([^"]*)" alt="([^"]*)"(?: title="[^"]*")? \/>/g, (img, src: string, alt: string) =>
    src === '' ? `<span class="dropped-link">${alt}</span>`
      : fetchableImage(src) ? img
      : `<a class="external-image" href="${src}" rel="noreferrer noopener" target="_blank">${alt || 'image'} (image)</a>`)
  // A GFM task's checkbox (shown, not ticked here) is named by its state, so a screen reader says what it is.
  .replace(/<input type="checkbox" disabled=""( checked="")? \/>/g, (_box, checked?: string) =>
    `<input type="checkbox" disabled=""${checked ?? ''} aria-label="${checked ? 'done' : 'not done'}" />`)
  // Each block takes its direction from its own text (dir="auto"): an Arabic or Hebrew paragraph reads right to
  // left, aligned right, beside English ones. Raw HTML is escaped, so these tags are micromark's own.
  .replace(/<(p|li|h[1-6]|blockquote|th|td)(?=[ >])/g, '<$1 dir="auto"');
