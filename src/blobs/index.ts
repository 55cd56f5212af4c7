import type { Config } from '../config.ts';
import { EmbeddedBlobStore } from './embedded.ts';
import { S3BlobStore } from './s3.ts';
import type { BlobStore } from './store.ts';

/** S3 when SVC_S3_BUCKET is set, else the embedded store under SVC_DATA_DIR. */
export function createBlobStore(config: Config): BlobStore {
  if (config.s3) return new S3BlobStore(config.s3);
  return new EmbeddedBlobStore({ dataDir: config.dataDir, publicUrl: config.publicUrl });
}
