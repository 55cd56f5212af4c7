/**
 * Text cut for messages and stored snapshots. `.slice(0, n)` counts UTF-16 units and cut an emoji in two: a lone
 * surrogate in an error's message, which strict JSON parsers refuse (an outside probe), or in a GitHub issue's body,
 * which PostgreSQL refused as input.
 */

/** At most `max` UTF-16 units of `text`, never half a surrogate pair; `mark` (default "…") added when it was cut. */
export function clip(text: string, max: number, mark = '…'): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end) + mark;
}
