// main: `npm start`. Serves on PORT/HOST with PGlite under DATA_DIR, or DATABASE_URL.
import { loadConfig } from './config.ts';
import { startupWarnings } from './startup-checks.ts';
import { startRuntime } from './runtime.ts';
import { allJobs } from '../jobs/index.ts';
import { ensureDashboardBuilt } from './dashboard/build.ts';
import { drainOnSignals } from './shutdown.ts';

const config = loadConfig();
// The composition root of the server process: the one module of src/ that imports jobs/.
const runtime = await startRuntime(config, { jobDefinitions: allJobs });
const { app } = runtime;

// SIGTERM/SIGINT: not ready at once, then stop accepting, finish requests and jobs, close (src/shutdown.ts).
drainOnSignals(runtime, config.shutdown);

// The dashboard's build (web/dist/) is made at install; here only when missing or older than web/.
await ensureDashboardBuilt({ info: (m) => app.log.info(m), error: (m) => app.log.error(m) });
await app.listen({ port: config.port, host: config.host });
// Settings allowed but easy to regret (the dev sign-in, TRUST_PROXY=true): src/startup-checks.ts.
for (const { msg, ...fields } of startupWarnings(config)) app.log.warn(fields, msg);
app.log.info({ database: runtime.database.kind, docs: `${config.publicUrl}/docs` }, `gigmarket listening on ${config.publicUrl}`);
