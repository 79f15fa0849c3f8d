// main: `npm start`. Serves on PORT/HOST with PGlite under DATA_DIR, or DATABASE_URL.
import closeWithGrace from 'close-with-grace';
import { loadConfig } from './config.ts';
import { startupWarnings } from './startup-checks.ts';
import { startRuntime } from './runtime.ts';
import { allJobs } from '../jobs/index.ts';
import { ensureDashboardBuilt } from './dashboard/build.ts';

const config = loadConfig();
// The composition root of the server process: the one module of src/ that imports jobs/.
const runtime = await startRuntime(config, { jobDefinitions: allJobs });
const { app } = runtime;

// SIGTERM/SIGINT: stop accepting, finish in-flight requests, stop pg-boss, close the database.
closeWithGrace({ delay: 15_000 }, async ({ signal, err }) => {
  if (err) app.log.error({ err }, 'shutting down after an error');
  else app.log.info({ signal }, 'shutting down');
  await runtime.close();
  app.log.info('shut down');
  await runtime.flushLogs(); // the log is written asynchronously (src/http/logging.ts)
});

// The dashboard's build (web/dist/) is made at install; here only when missing or older than web/.
await ensureDashboardBuilt({ info: (m) => app.log.info(m), error: (m) => app.log.error(m) });
await app.listen({ port: config.port, host: config.host });
// Settings allowed but easy to regret (the dev sign-in, TRUST_PROXY=true): src/startup-checks.ts.
for (const { msg, ...fields } of startupWarnings(config)) app.log.warn(fields, msg);
app.log.info({ database: runtime.database.kind, docs: `${config.publicUrl}/docs` }, `gigmarket listening on ${config.publicUrl}`);
