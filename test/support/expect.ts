/** Assertions shared by the tool tests. */
import { expect } from 'vitest';

/** A 400 invalid_input whose `issues` map names the field (spec: bad input names what is wrong). */
export function expect400(r: { status: number; body: any }, field: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.error).toBe('invalid_input');
  expect(Object.keys(r.body.issues)).toContain(field);
}
