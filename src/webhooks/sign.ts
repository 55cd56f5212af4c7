/**
 * Webhook signatures (decisions.md, Webhooks). The secret is `whsec_<base64>` (Standard Webhooks):
 *  - x-svc-signature     = hex HMAC-SHA256(secret, `<timestamp>.<raw body>`)
 *  - x-webhook-signature = hex HMAC-SHA256(secret, raw body)
 *    (key: the secret string exactly as shown, `whsec_` included)
 *  - webhook-signature   = `v1,` + base64 HMAC-SHA256(base64-decoded part after `whsec_`, `<id>.<timestamp>.<raw body>`)
 *    (the Standard Webhooks scheme, so its libraries verify it unchanged); during a rotation's grace a second,
 *    space-separated `v1,` signature with the previous secret (Standard Webhooks verifies against any of them).
 *    The two hex headers are signed with the current secret only.
 */
import crypto from 'node:crypto';

export function signatureHeaders(secret: string, eventId: string, body: string, timestamp: number, previousSecret?: string | null): Record<string, string> {
  const ts = String(timestamp);
  const hex = (message: string) => crypto.createHmac('sha256', secret).update(message).digest('hex');
  const standardOf = (key: string) =>
    `v1,${crypto.createHmac('sha256', Buffer.from(key.replace(/^whsec_/, ''), 'base64')).update(`${eventId}.${ts}.${body}`).digest('base64')}`;
  const standard = [secret, ...(previousSecret ? [previousSecret] : [])].map(standardOf).join(' ');
  return {
    'x-svc-timestamp': ts,
    'x-svc-signature': hex(`${ts}.${body}`),
    'x-webhook-signature': hex(body),
    'webhook-id': eventId,
    'webhook-timestamp': ts,
    'webhook-signature': standard,
  };
}
