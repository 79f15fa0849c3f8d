// main: `npm start`. Serves on PORT/HOST with PGlite under DATA_DIR, or DATABASE_URL.
import closeWithGrace from 'close-with-grace';
import { devSignInEnabled, loadConfig } from './config.ts';
import { startRuntime } from './runtime.ts';
import { ensureDashboardBuilt } from './dashboard/build.ts';

const config = loadConfig();
const runtime = await startRuntime(config);
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
if (devSignInEnabled(config) && config.devSignInUnsafeAllowRemote) {
  // Anyone who reaches /auth/dev can sign in as any user: fine on a laptop, not on a network.
  app.log.warn(
    { host: config.host },
    'DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: anyone who reaches this server can sign in as any user at /auth/dev',
  );
}
app.log.info({ database: runtime.database.kind, docs: `${config.publicUrl}/docs` }, `gigmarket listening on ${config.publicUrl}`);
