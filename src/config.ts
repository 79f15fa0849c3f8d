// Every setting the server reads, in one place; the README's settings table mirrors this file.
import path from 'node:path';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  nodeEnv: string;
  dataDir: string;
  databaseUrl: string | undefined;
  sessionSecret: string | undefined;
  sessionTtlDays: number;
  github: {
    clientId: string;
    clientSecret: string;
    authorizeUrl: string;
    tokenUrl: string;
    apiUrl: string;
  } | undefined;
  bodyLimitBytes: number;
  logLevel: string;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new Error(`${name} must be an integer, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 3000);
  const host = env.HOST || '127.0.0.1';
  const clientId = env.GITHUB_CLIENT_ID;
  const clientSecret = env.GITHUB_CLIENT_SECRET;
  if (Boolean(clientId) !== Boolean(clientSecret)) {
    throw new Error('GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET must be set together');
  }
  return {
    port,
    host,
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, ''),
    nodeEnv: env.NODE_ENV || 'development',
    dataDir: path.resolve(env.DATA_DIR || 'data'),
    databaseUrl: env.DATABASE_URL || undefined,
    sessionSecret: env.SESSION_SECRET || undefined,
    sessionTtlDays: int(env, 'SESSION_TTL_DAYS', 30),
    github: clientId && clientSecret
      ? {
          clientId,
          clientSecret,
          authorizeUrl: env.GITHUB_AUTHORIZE_URL || 'https://github.com/login/oauth/authorize',
          tokenUrl: env.GITHUB_TOKEN_URL || 'https://github.com/login/oauth/access_token',
          apiUrl: (env.GITHUB_API_URL || 'https://api.github.com').replace(/\/$/, ''),
        }
      : undefined,
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 1024 * 1024),
    logLevel: env.LOG_LEVEL || 'info',
  };
}

/** The dev sign-in exists only for local use: no OAuth client and not production. */
export function devSignInEnabled(config: Config): boolean {
  return !config.github && config.nodeEnv !== 'production';
}
