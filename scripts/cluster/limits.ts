// The cluster check's findings about the survivors, made through the balancer after the kill: one
// rate-limit budget for a key whichever instance answers (Redis), a revocation heard by every
// instance at once (LISTEN), MCP sessions carried on, and failures confined to the dead instance.
import { apiFor, type Agent, type LoadContext, type McpRun } from './flows.ts';
import type { Finding } from './checks.ts';
import { failed, type Traffic } from './traffic.ts';

export type { Finding };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The seconds left in the key's rate-limit window, from the `RateLimit` field of an answer. */
const windowLeft = (response: Response) => Number(/t=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1] ?? Number.NaN);

/**
 * One key spends past its budget through the balancer, in one window: with the counters in Redis
 * the survivors admit `limit` units between them, where counters in each process would admit
 * that many on each.
 */
async function rateLimitShared(ctx: LoadContext, agent: Agent, limit: number, killed: string): Promise<Finding> {
  const api = apiFor(ctx, agent);
  let first = await api.GET('/api/credits');
  if (windowLeft(first.response) < 20) {
    await sleep((windowLeft(first.response) + 1) * 1000);
    first = await api.GET('/api/credits');
  }
  const statuses: number[] = [first.response.status];
  const served = new Set<string>();
  const sent = Math.round(limit * 1.5);
  for (let i = 1; i < sent; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, sent - i) }, async () => {
        const res = await api.GET('/api/credits');
        statuses.push(res.response.status);
        if (res.response.ok) served.add(res.response.headers.get('x-gm-instance') ?? '?');
      }),
    );
  }
  const admitted = statuses.filter((s) => s === 200).length;
  const limited = statuses.filter((s) => s === 429).length;
  return {
    check: 'rate limits shared across the survivors',
    ok: admitted === limit && limited === sent - limit && served.size === 2 && !served.has(killed),
    detail: `one key, ${sent} requests of 1 unit in one window against a budget of ${limit}: ${admitted} admitted by ${[...served].sort().join(' and ')}, ${limited} refused with 429`,
  };
}

/**
 * A key every survivor has in memory, revoked beside them (as the CLI does): within 300 ms every
 * survivor refuses it, having heard the NOTIFY on its LISTEN connection.
 */
async function revocationHeard(ctx: LoadContext, agent: Agent, revoke: () => Promise<void>): Promise<Finding> {
  const api = apiFor(ctx, agent);
  const before = new Set<string>();
  for (let i = 0; i < 6; i++) {
    const res = await api.GET('/api/credits');
    if (res.response.ok) before.add(res.response.headers.get('x-gm-instance') ?? '?');
  }
  await revoke();
  await sleep(300);
  const after: string[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await api.GET('/api/credits');
    after.push(`${res.response.headers.get('x-gm-instance')} ${res.response.status}`);
  }
  const refused = after.filter((a) => a.endsWith(' 401')).length;
  return {
    check: 'a revocation reaches every survivor',
    ok: before.size === 2 && refused === after.length,
    detail: `a key used on ${[...before].sort().join(' and ')}, revoked: ${refused} of ${after.length} requests 300 ms later refused (${after.join(', ')})`,
  };
}

/** Each MCP client went on, on the session it opened before the kill, and lost at most the call in flight on the dead instance. */
function mcpCarriedOn(runs: McpRun[]): Finding {
  const ok = runs.every((r) => r.sessionBefore !== undefined && r.sessionBefore === r.sessionAfter && r.afterKill >= 3 && r.failures <= 1);
  return {
    check: 'MCP clients carried on by the survivors',
    ok,
    detail: runs
      .map(
        (r, i) =>
          `client ${i + 1}: ${r.calls} calls on one session, ${r.afterKill} answered after the kill, ${r.failures} failed${r.errors.length ? ` (${r.errors.join('; ')})` : ''}`,
      )
      .join('; '),
  };
}

/**
 * Every failed request of the load was in flight while the killed instance died, and was on it as
 * far as the answer says: HAProxy's 502 names the server; a request on a kept-alive client
 * connection gets no answer at all (HAProxy closes it, as the server did, for the client to retry).
 */
function failuresBounded(traffic: Traffic): Finding {
  const inFlight = traffic.samples.filter((s) => s.load && traffic.caught(s)).length;
  const failures = traffic.samples.filter((s) => s.load && failed(s));
  const stray = failures.filter((s) => !traffic.caught(s) || (s.instance !== undefined && s.instance !== traffic.killed));
  const statuses = [...new Set(failures.map((s) => (s.error ? 'no answer' : String(s.status))))].join(', ');
  const dying = ((traffic.goneAt ?? 0) - (traffic.killedAt ?? 0)).toFixed(0);
  return {
    check: 'errors after the kill bounded by the requests in flight on the dead instance',
    ok: stray.length === 0 && failures.length <= inFlight,
    detail:
      `${inFlight} requests in flight while ${traffic.killed} died (${dying} ms from the signal to its exit); ${failures.length} failed${failures.length ? ` (${statuses})` : ''}, ` +
      `${failures.length - stray.length} of them in flight on ${traffic.killed}` +
      (stray.length
        ? `; others: ${stray
            .slice(0, 5)
            .map(
              (s) =>
                `${s.what} ${s.status ?? s.error} on ${s.instance}, sent ${(s.start - traffic.killedAt!).toFixed(0)} ms after the kill`,
            )
            .join(', ')}`
        : ''),
  };
}

export const bounds = { rateLimitShared, revocationHeard, mcpCarriedOn, failuresBounded };
