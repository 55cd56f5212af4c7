#!/usr/bin/env node
// The `svc` command: TypeScript sources run through tsx, so a fresh clone needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
