// Where the embedded database's prepared template lives: a leaf that the database's opening
// (client.ts) and the build's quick check (scripts/pglite-template-state.ts) share, the latter
// without loading PGlite, Drizzle or the migrations.
import path from 'node:path';

/** The prepared empty database a new DATA_DIR starts from, in dist/ (scripts/pglite-template.ts builds it). */
export const PGLITE_TEMPLATE_NAME = 'pglite-template.tar.gz';

/** The template's path in a checkout. */
export const pgliteTemplatePath = (root: string): string => path.join(root, 'dist', PGLITE_TEMPLATE_NAME);
