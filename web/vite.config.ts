// The owners' dashboard (web/): built by `npm run build:web` (also at install, and at start when
// missing or older than its sources: src/dashboard/build.ts) into web/dist/, which the server
// serves at `/` (src/dashboard/serve.ts).
import { defineConfig } from 'vite';

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  publicDir: 'public',
  // No dev server is part of the workflow: the built app is served by the API server itself.
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    // Every asset a file of its own: the CSP allows no data: scripts or styles.
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
    rolldownOptions: {
      // TanStack Query marks its hooks "use client" for React Server Components; a browser bundle has none.
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE') return;
        handler(level, log);
      },
    },
  },
  logLevel: 'warn',
});
