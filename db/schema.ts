// The database schema, one module per area. drizzle-kit generates db/migrations/ from it
// (`npm run db:generate`); the server applies the migrations at start.
export * from './schema/identity.ts';
export * from './schema/gigs.ts';
export * from './schema/contracts.ts';
export * from './schema/platform.ts';
export * from './schema/search.ts';
export * from './schema/notifications.ts';
export * from './schema/webhooks.ts';
export * from './schema/reviews.ts';
export * from './schema/files.ts';
export * from './schema/credits.ts';
export * from './schema/disputes.ts';
export * from './schema/mcp.ts';
export * from './schema/oauth.ts';
