/**
 * Webhook signatures (decisions.md, Webhooks). The secret is `whsec_<base64>` (Standard Webhooks):
 *  - x-svc-signature     = hex HMAC-SHA256(secret, `<timestamp>.<raw body>`)
 *  - x-webhook-signature = hex HMAC-SHA256(secret, raw body)
 *    (key: the secret string exactly as shown, `whsec_` included)
 *  - webhook-signature   = `v1,` + base64 HMAC-SHA256(base64-decoded part after `whsec_`, `<id>.<timestamp>.<raw body>`)
 *    (the Standard Webhooks scheme, so its libraries verify it unchanged)
 */
import crypto from 'node:crypto';

export function signatureHeaders(secret: string, eventId: string, body: string, timestamp: number): Record<string, string> {
  const ts = String(timestamp);
  const hex = (message: string) => crypto.createHmac('sha256', secret).update(message).digest('hex');
  const standardKey = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const standard = crypto.createHmac('sha256', standardKey).update(`${eventId}.${ts}.${body}`).digest('base64');
  return {
    'x-svc-timestamp': ts,
    'x-svc-signature': hex(`${ts}.${body}`),
    'x-webhook-signature': hex(body),
    'webhook-id': eventId,
    'webhook-timestamp': ts,
    'webhook-signature': `v1,${standard}`,
  };
}
