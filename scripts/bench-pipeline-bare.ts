// The baseline of npm run bench:pipeline: a bare Fastify route reading the same gig row with
// postgres.js from the same database (no authentication, validation, hooks or logging), in a
// process of its own, as the server runs in its own. Started by the bench with DATABASE_URL and PORT.
import Fastify from 'fastify';
import postgres from 'postgres';
import { exitOnSignal } from './exit-on-signal.ts';

const sql = postgres(process.env.DATABASE_URL!, { max: 10, onnotice: () => {} });
const app = Fastify({ logger: false });
app.get('/api/health', async () => ({ status: 'ok' }));
app.get<{ Params: { id: string } }>('/bare/gigs/:id', async (request, reply) => {
  const [row] = await sql`select * from gigs where id = ${request.params.id}`;
  if (!row) return reply.code(404).send({ error: { code: 'NOT_FOUND' } });
  return row;
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
exitOnSignal(async () => {
  await app.close();
  await sql.end();
});
