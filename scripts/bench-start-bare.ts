// The baseline of npm run bench:start: a process that opens the same embedded database (PGlite in
// DATA_DIR, with the vector extension and the shared_buffers the server uses: PGLITE_SHARED_BUFFERS,
// default 16MB as in src/config.ts) and answers /api/health with a bare Fastify, nothing else.
import Fastify from 'fastify';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { exitOnSignal } from './exit-on-signal.ts';

const db = await PGlite.create(process.env.DATA_DIR!, {
  extensions: { vector },
  postgresqlconf: `shared_buffers = ${process.env.PGLITE_SHARED_BUFFERS || '16MB'}`,
});
const app = Fastify({ logger: false });
app.get('/api/health', async () => {
  await db.query('select 1');
  return { status: 'ok' };
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
exitOnSignal(async () => {
  await app.close();
  await db.close();
});
