/**
 * The S3 blob store: any S3-compatible service (AWS S3, MinIO, R2, ...) through the AWS SDK v3 client and
 * its request presigner. SVC_S3_BUCKET (required), SVC_S3_REGION (default us-east-1), SVC_S3_ENDPOINT
 * (a non-AWS service; path-style addressing then); credentials from the SDK's usual environment
 * (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, profiles, instance roles).
 */
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertKey, contentDisposition, type BlobStore, type PresignedRequest } from './store.ts';

export interface S3Options {
  bucket: string;
  region?: string;
  endpoint?: string;
  /** Tests pass credentials; the service leaves them to the SDK's provider chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  private readonly bucket: string;

  constructor(opts: S3Options) {
    this.bucket = opts.bucket;
    this.client = new S3Client({
      region: opts.region || 'us-east-1',
      ...(opts.endpoint ? { endpoint: opts.endpoint, forcePathStyle: true } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      // Presigned PUTs must work with a plain `curl -T`: no checksum the client would have to send.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async presignPut(key: string, opts: { sizeBytes: number; mimeType: string; expiresAt: Date; keyId?: string }): Promise<PresignedRequest> {
    assertKey(key);
    const expiresIn = Math.max(1, Math.floor((opts.expiresAt.getTime() - Date.now()) / 1000));
    const url = await getSignedUrl(this.client, new PutObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn });
    return { url, method: 'PUT', headers: {}, expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString() };
  }

  async presignGet(key: string, opts: { filename: string; mimeType: string; expiresInSeconds: number; keyId?: string }): Promise<PresignedRequest> {
    assertKey(key);
    const command = new GetObjectCommand({
      Bucket: this.bucket, Key: key,
      ResponseContentType: opts.mimeType,
      ResponseContentDisposition: contentDisposition(opts.filename),
    });
    const url = await getSignedUrl(this.client, command, { expiresIn: opts.expiresInSeconds });
    return { url, method: 'GET', headers: {}, expiresAt: new Date(Date.now() + opts.expiresInSeconds * 1000).toISOString() };
  }

  async size(key: string): Promise<number | null> {
    assertKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return head.ContentLength ?? 0;
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
      throw err;
    }
  }

  async read(key: string, maxBytes: number): Promise<Buffer | null> {
    assertKey(key);
    const out = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${maxBytes - 1}` })).catch((err) => {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return null;
      throw err;
    });
    if (!out) return null;
    const bytes = Buffer.from(await out.Body!.transformToByteArray());
    return bytes.subarray(0, maxBytes);
  }

  async write(key: string, bytes: Buffer, mimeType: string): Promise<void> {
    assertKey(key);
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: bytes, ContentLength: bytes.length, ContentType: mimeType }));
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }
}
