// Every request of the cluster check's load, timed and classified: which instance answered
// (HAProxy's x-gm-instance), whether it was in flight when an instance was killed, and whether it
// failed. Requests go through fetch (the typed client's too, scripts/cluster/flows.ts), so one
// wrapper sees them all.
import { quantile } from '../bench-kit.ts';

export interface Sample {
  /** The method and the path with ids left out, e.g. `POST /api/contracts/{id}/approve`. */
  what: string;
  start: number;
  end?: number;
  status?: number;
  instance?: string;
  /** A network error (no answer at all). */
  error?: string;
  /** The load's own traffic (the rate-limit probe's 429s and the checks' reads are not). */
  load: boolean;
}

const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:pi|acct)_sandbox_[0-9a-z]+/g;

/** Statuses a retry with the same Idempotency-Key is right for: the instance died under the request, or its key is still held. */
export const RETRYABLE = new Set([409, 500, 502, 503, 504]);

export class Traffic {
  readonly samples: Sample[] = [];
  /** When SIGKILL was sent, and when the process was seen gone (performance.now()). */
  killedAt: number | undefined;
  goneAt: number | undefined;
  killed: string | undefined;
  /** Counted as the load while true; the checks afterwards set it false. */
  load = true;

  /** fetch, recorded. */
  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const sample: Sample = { what: `${request.method} ${url.pathname.replace(ID, '{id}')}`, start: performance.now(), load: this.load };
    this.samples.push(sample);
    try {
      const response = await fetch(request);
      sample.status = response.status;
      sample.instance = response.headers.get('x-gm-instance') ?? undefined;
      return response;
    } catch (err) {
      sample.error = (err as Error).cause ? String((err as Error).cause) : String(err);
      throw err;
    } finally {
      sample.end = performance.now();
    }
  };

  /**
   * Whether a request was in flight while the killed instance died: sent before it was gone and
   * not answered before the signal. Its process takes a moment to go, and until then its
   * listening socket still takes the connections HAProxy opens to it.
   */
  caught(s: Sample): boolean {
    return this.killedAt !== undefined && s.start < (this.goneAt ?? this.killedAt) && (s.end ?? Number.POSITIVE_INFINITY) > this.killedAt;
  }
}

/** A failure: no answer, or a server error (5xx, HAProxy's 502/503 included). 4xx answers are the API's own and judged by the flows. */
export const failed = (s: Sample) => s.error !== undefined || (s.status !== undefined && s.status >= 500);

export interface Phase {
  requests: number;
  failures: number;
  p50: number;
  p95: number;
  p99: number;
  perSecond: number;
}

/** The load's requests started in [from, to): counts and latency quantiles (ms). */
export function phase(traffic: Traffic, from: number, to: number): Phase {
  const picked = traffic.samples.filter((s) => s.load && s.start >= from && s.start < to && s.end !== undefined);
  const ms = picked.filter((s) => !failed(s)).map((s) => s.end! - s.start);
  return {
    requests: picked.length,
    failures: picked.filter(failed).length,
    p50: quantile(ms, 0.5),
    p95: quantile(ms, 0.95),
    p99: quantile(ms, 0.99),
    perSecond: picked.length / ((to - from) / 1000),
  };
}

/** Requests answered by each instance (HAProxy's name for it). */
export function perInstance(traffic: Traffic): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of traffic.samples) if (s.instance) counts[s.instance] = (counts[s.instance] ?? 0) + 1;
  return counts;
}
