// Kept-alive connections to webhook receivers. A receiver that gets many messages should not pay a
// new TCP (and TLS) handshake for each, but a connection must only ever go to addresses that were
// checked: each agent is made for one origin and one set of checked addresses, and its DNS answers
// only those (pinnedLookup), so a changed DNS answer gives a new agent, never a reused connection.
import { createHash } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';

/** undici (heap every process would hold: docs/performance.md, Memory) is imported with the first delivery rather than at start. */
let undici: Promise<typeof import('undici')> | undefined;
export const loadUndici = (): Promise<typeof import('undici')> => (undici ??= import('undici'));

/** An agent unused this long is closed (its connections with it). */
const IDLE_MS = 60_000;
/** The most agents kept; past it, the least recently used is closed. */
const MAX_AGENTS = 500;

interface Kept {
  agent: Agent;
  usedAt: number;
}
// A Map keeps insertion order: re-inserting on use makes its first entry the least recently used.
const kept = new Map<string, Kept>();
let sweeper: NodeJS.Timeout | undefined;

function sweep() {
  const now = Date.now();
  for (const [key, k] of kept) {
    if (now - k.usedAt < IDLE_MS) break;
    kept.delete(key);
    k.agent.close().catch(() => {});
  }
  if (!kept.size && sweeper) {
    clearInterval(sweeper);
    sweeper = undefined;
  }
}

export interface AgentOptions {
  lookup: LookupFunction;
  timeoutMs: number;
  ca?: string | Buffer;
}

/** The agent for a checked URL's origin and addresses (one per origin, checked addresses, time-out and trusted CA). */
export async function agentFor(checked: { origin: string; addresses: string[] }, options: AgentOptions): Promise<Agent> {
  // Awaited first, so that what follows runs in one turn: two deliveries cannot both miss a key.
  const { Agent } = await loadUndici();
  const ca = options.ca ? createHash('sha256').update(options.ca).digest('hex') : '';
  const key = [checked.origin, [...checked.addresses].sort().join(','), options.timeoutMs, ca].join('|');
  const found = kept.get(key);
  if (found) {
    kept.delete(key);
    kept.set(key, { agent: found.agent, usedAt: Date.now() });
    return found.agent;
  }
  const agent = new Agent({
    connect: { lookup: options.lookup, timeout: options.timeoutMs, ...(options.ca ? { ca: options.ca } : {}) },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  kept.set(key, { agent, usedAt: Date.now() });
  if (kept.size > MAX_AGENTS) {
    const [oldestKey, oldest] = kept.entries().next().value!;
    kept.delete(oldestKey);
    oldest.agent.close().catch(() => {});
  }
  sweeper ??= setInterval(sweep, IDLE_MS / 4).unref();
  return agent;
}

/** Closes every kept connection (the server is stopping). */
export async function closeWebhookConnections(): Promise<void> {
  const agents = [...kept.values()].map((k) => k.agent);
  kept.clear();
  if (sweeper) clearInterval(sweeper);
  sweeper = undefined;
  await Promise.all(agents.map((a) => a.close().catch(() => {})));
}
