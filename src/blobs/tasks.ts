/**
 * Graphile Worker tasks of attachments.
 *
 *  svc_attachment_upload_expire {uploadId}     a minute after an upload URL expired: when the upload was
 *                                              never finalized, drop its row and delete whatever blob arrived.
 *  svc_attachment_blob_delete {storageKey}     delete the blob of a file deleted with its comment (the row went in
 *                                              that transaction; the bytes once it committed).
 *  svc_attachment_link_title {attachmentId}    fetch the page title of a LINK added without linkTitle
 *                                              (5 s, redirects followed, 64 KB, egress guard on every hop);
 *                                              the hostname stays when there is no title.
 */
import type { JobHelpers, Task, TaskList } from 'graphile-worker';
import { fetchPageTitle, OutboundTimeout } from '../outbound/http.ts';
import { SlowTargets } from '../outbound/slow-targets.ts';
import { TenantShare } from '../outbound/tenant-share.ts';
import { BLOB_KEY, type BlobStore } from './store.ts';

export interface AttachmentTaskOptions {
  blobs?: BlobStore;
  allowPrivate: boolean;
  /** Test hook: the link-title fetch deadline (spec: 5 s). */
  linkTitleTimeoutMs?: number;
  /** Targets that timed out lately (shared with webhook deliveries); default: this task list's own. */
  slowTargets?: SlowTargets;
  /** Each workspace's share of the worker's slots (shared with webhook deliveries); default: no share. */
  share?: TenantShare;
}

export function attachmentTasks(opts: AttachmentTaskOptions): TaskList {
  const slow = opts.slowTargets ?? new SlowTargets();
  const expire: Task = async (payload, helpers) => {
    const { uploadId } = payload as { uploadId: string };
    const key = await helpers.withPgClient(async (client) => {
      const { rows } = await client.query<{ k: string | null }>('select app_private.attachment_upload_expire($1) as k', [uploadId]);
      return rows[0]?.k ?? null;
    });
    if (key && opts.blobs) await opts.blobs.delete(key);
  };

  const linkTitle: Task = async (payload, helpers) => {
    const { attachmentId } = payload as { attachmentId: string };
    if (!opts.share) return fetchTitle(attachmentId, helpers);
    await opts.share.within(helpers.job, () => fetchTitle(attachmentId, helpers), async () => {
      await helpers.withPgClient((client) => client.query(
        "select app_private.attachments_enqueue('svc_attachment_link_title', $1, now() + interval '250 milliseconds', app_private.outbound_flags($2))",
        [payload, TenantShare.tenantOf(helpers.job)]));
    });
  };

  const fetchTitle = async (attachmentId: string, helpers: JobHelpers) => {
    const link = await helpers.withPgClient(async (client) => {
      const { rows } = await client.query<{ u: string; w: string }>(
        "select external_url as u, workspace_id as w from app_public.attachments where id = $1 and kind = 'LINK'", [attachmentId]);
      return rows[0];
    });
    if (!link) return;
    // A workspace whose link fetch timed out lately fetches no titles for a while (src/outbound/slow-targets.ts): the
    // target is the workspace's links, whatever the address, as 200 links to 200 hanging addresses each held a
    // worker slot for the whole deadline.
    const target = `link:${link.w}`;
    if (!(await slow.mayTryShared(target, link.w))) {
      helpers.logger.info(`link title of ${attachmentId}: the site timed out lately; the hostname stays`);
      return;
    }
    let title: string | null = null;
    try {
      title = await fetchPageTitle(link.u, { allowPrivate: opts.allowPrivate, timeoutMs: opts.linkTitleTimeoutMs ?? 5000 });
      await slow.settledShared(target, link.w, false);
    } catch (err) {
      await slow.settledShared(target, link.w, err instanceof OutboundTimeout);
      helpers.logger.info(`link title of ${attachmentId}: ${(err as Error).message}; the hostname stays`);
      return;
    }
    if (title) await helpers.withPgClient((client) => client.query('select app_private.attachment_set_link_title($1, $2)', [attachmentId, title]));
  };

  const blobDelete: Task = async (payload) => {
    const { storageKey } = payload as { storageKey: string };
    if (opts.blobs && typeof storageKey === 'string' && BLOB_KEY.test(storageKey)) await opts.blobs.delete(storageKey);
  };

  return { svc_attachment_upload_expire: expire, svc_attachment_link_title: linkTitle, svc_attachment_blob_delete: blobDelete };
}
