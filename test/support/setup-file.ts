import '../../src/polyfills.ts';

// Tests are local development: webhook receivers listen on 127.0.0.1, so registration and delivery
// may target loopback (tests of the refusal switch it off themselves).
process.env.SVC_EGRESS_ALLOW_PRIVATE ??= '1';
