import { defineConfig } from 'drizzle-kit';

// Only generation runs through drizzle-kit; the server applies db/migrations itself at start.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema.ts',
  out: './db/migrations',
});
