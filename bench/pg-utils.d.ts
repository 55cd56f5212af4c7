declare module 'pg/lib/utils.js' {
  /** The text node-pg sends for a parameter value. */
  export function prepareValue(value: unknown): unknown;
  const utils: { prepareValue(value: unknown): unknown };
  export default utils;
}
