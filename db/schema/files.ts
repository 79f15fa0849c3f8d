// Uploaded files, in Postgres so that every server process sees them (src/storage/file-store.ts).
import { sql } from 'drizzle-orm';
import { check, customType, index, integer, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import { FILE_PURPOSES, UPLOAD_CONTENT_TYPES } from './column-values.ts';
import { createdAt, oneOf } from './columns.ts';
import { users } from './identity.ts';

/** bytea as a Buffer: postgres.js returns one already, PGlite a plain Uint8Array. */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength)),
});

export const storedFiles = pgTable(
  'stored_files',
  {
    id: uuid('id').primaryKey(),
    ownerUserId: uuid('owner_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: FILE_PURPOSES }).notNull(),
    /** Read from the bytes when uploaded (src/domain/uploads.ts), never taken from the client. */
    contentType: text('content_type', { enum: UPLOAD_CONTENT_TYPES }).notNull(),
    sizeBytes: integer('size_bytes').notNull(),
    /** Hex SHA-256 of `data`. */
    sha256: text('sha256').notNull(),
    data: bytea('data').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('stored_files_owner_user_id_idx').on(t.ownerUserId),
    check('stored_files_purpose_check', oneOf(t.purpose, FILE_PURPOSES)),
    check('stored_files_content_type_check', oneOf(t.contentType, UPLOAD_CONTENT_TYPES)),
    check('stored_files_size_check', sql`${t.sizeBytes} = octet_length(${t.data})`),
  ],
);
