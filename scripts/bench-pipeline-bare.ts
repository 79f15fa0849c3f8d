// The baseline of npm run bench:pipeline: a bare Fastify route reading the same gig row with
// postgres.js from the same database (no authentication, validation, hooks or logging), in a
// process of its own, as the server runs in its own. Started by the bench with DATABASE_URL and PORT.
import Fastify from 'fastify';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL!, { max: 10, onnotice: () => {} });
const app = Fastify({ logger: false });
app.get('/api/health', async () => ({ status: 'ok' }));
app.get<{ Params: { id: string } }>('/bare/gigs/:id', async (request, reply) => {
  const [row] = await sql`select * from gigs where id = ${request.params.id}`;
  if (!row) return reply.code(404).send({ error: { code: 'NOT_FOUND' } });
  return row;
});
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
for (const signal of ['SIGTERM', 'SIGINT'] as const)
  process.once(signal, async () => {
    await app.close();
    await sql.end();
    process.exit(0);
  });
