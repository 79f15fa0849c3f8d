// Settings that are unsafe together, said at start (docs/guide/production.md, "Security notes for
// operators"): the server refuses the ones that hand out accounts, and warns about the ones an
// operator may mean.
import { devSignInEnabled, isLoopbackHost, type Config } from './config.ts';

/**
 * Refuses to start with the dev sign-in on while PUBLIC_URL is not this machine: people reach the
 * server under that name, most likely through a reverse proxy on this machine, which the dev
 * sign-in cannot always tell from a local browser (src/auth/dev-sign-in.ts).
 */
export function refuseUnsafeSettings(config: Config): void {
  if (!devSignInEnabled(config) || config.devSignInUnsafeAllowRemote) return;
  const host = new URL(config.publicUrl).hostname.replace(/^\[(.*)\]$/, '$1');
  if (isLoopbackHost(host)) return;
  throw new Error(
    `PUBLIC_URL (${config.publicUrl}) is not this machine, and the dev sign-in (anyone who reaches /auth/dev becomes any user) is on: ` +
      'configure GitHub sign-in (GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET) or set NODE_ENV=production; ' +
      'on a private test network only, DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE=true starts it anyway',
  );
}

/** What the server logs at warn once it listens: settings that are allowed but easy to regret. */
export function startupWarnings(config: Config): { msg: string; [field: string]: unknown }[] {
  const warnings: { msg: string; [field: string]: unknown }[] = [];
  if (devSignInEnabled(config)) {
    warnings.push(
      config.devSignInUnsafeAllowRemote
        ? {
            msg: 'DEV_SIGN_IN_UNSAFE_ALLOW_REMOTE: anyone who reaches this server can sign in as any user at /auth/dev',
            host: config.host,
            publicUrl: config.publicUrl,
          }
        : {
            msg:
              'the dev sign-in is on (no GitHub OAuth client, NODE_ENV is not production): anyone on this machine can sign in as any user at /auth/dev. ' +
              'Before this server is reachable from elsewhere (a reverse proxy included), configure GitHub sign-in or set NODE_ENV=production',
          },
    );
  }
  if (config.trustProxy === true) {
    warnings.push({
      msg:
        'TRUST_PROXY=true believes every X-Forwarded-For entry: behind a proxy that appends to the header, a client chooses its own address ' +
        '(and so its rate-limit budget). Set the number of proxies in front of the server (TRUST_PROXY=1) or their addresses instead',
    });
  }
  return warnings;
}
