// Where uploaded files live: one small interface (put, get, delete by key), so that an
// S3-compatible backend can replace the Postgres one without its callers changing. Files must be
// visible to every server process (several instances share one database), so never a local folder.
//
// The Postgres backend keeps the bytes in `stored_files` (bytea, at most 5 MB each). Its writes go
// through the executor the caller passes (`within`), so that a file and the row that points at it
// commit together. A backend outside the database cannot join that transaction: it would put the
// object first and delete replaced objects only after the commit.
import { createHash } from 'node:crypto';
import type { Executor } from '../../db/client.ts';
import { deleteFile, getFile, insertFile } from '../../db/repositories/files.ts';
import type { FilePurpose, UploadContentType } from '../domain/uploads.ts';
import { newId } from '../ids.ts';

export interface NewFile {
  ownerUserId: string;
  purpose: FilePurpose;
  /** As read from the bytes (src/domain/uploads.ts inspectUpload), never as the client declared it. */
  contentType: UploadContentType;
  bytes: Uint8Array;
}

export interface StoredFileInfo {
  key: string;
  ownerUserId: string;
  purpose: FilePurpose;
  contentType: UploadContentType;
  sizeBytes: number;
  sha256: string;
}

export interface StoredFile extends StoredFileInfo {
  bytes: Buffer;
}

export interface FileStore {
  /** Stores the bytes under a new key. */
  put(file: NewFile, within?: Executor): Promise<StoredFileInfo>;
  get(key: string, within?: Executor): Promise<StoredFile | undefined>;
  /** Removes the file; a key that holds nothing is not an error. */
  delete(key: string, within?: Executor): Promise<void>;
}

export function postgresFileStore(db: Executor): FileStore {
  return {
    async put(file, within = db) {
      const data = Buffer.isBuffer(file.bytes) ? file.bytes : Buffer.from(file.bytes);
      const info: StoredFileInfo = {
        key: newId(),
        ownerUserId: file.ownerUserId,
        purpose: file.purpose,
        contentType: file.contentType,
        sizeBytes: data.length,
        sha256: createHash('sha256').update(data).digest('hex'),
      };
      const { key, ...row } = info;
      await insertFile(within, { id: key, ...row, data });
      return info;
    },

    async get(key, within = db) {
      const row = await getFile(within, key);
      if (!row) return undefined;
      const { id, data, createdAt: _createdAt, ...info } = row;
      return { key: id, ...info, bytes: data };
    },

    async delete(key, within = db) {
      await deleteFile(within, key);
    },
  };
}
