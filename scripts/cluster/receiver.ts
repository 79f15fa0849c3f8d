// The cluster check's webhook receiver: every endpoint of the load points at /hooks/{userId} here.
// It records what arrived under each webhook-id, per endpoint, and answers one delivery in
// SLOW_EVERY after SLOW_MS, so that some are still in flight on any instance when one is killed.
import http from 'node:http';
import type net from 'node:net';

const SLOW_EVERY = 8;
const SLOW_MS = 1500;

export interface Receiver {
  url: string;
  /** Per endpoint (its user's id): each webhook-id received, with the event id and type its body carried. */
  received: Map<string, Map<string, { eventId: string; type: string; times: number }>>;
  /** A webhook-id that came with two different events, or whose body named another id. */
  conflicts: string[];
  deliveries(): number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received = new Map<string, Map<string, { eventId: string; type: string; times: number }>>();
  const conflicts: string[] = [];
  let count = 0;
  const server = http.createServer({ keepAliveTimeout: 30_000 }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = ++count;
      const user = /^\/hooks\/([0-9a-f-]+)$/.exec(req.url ?? '')?.[1];
      const webhookId = req.headers['webhook-id'];
      let body: { id?: string; type?: string } = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        conflicts.push(`${webhookId}: a body that is not JSON`);
      }
      if (user && typeof webhookId === 'string') {
        const mine = received.get(user) ?? new Map();
        received.set(user, mine);
        const seen = mine.get(webhookId);
        const now = { eventId: String(body.id), type: String(body.type) };
        if (now.eventId !== webhookId) conflicts.push(`${webhookId}: the body is event ${now.eventId}`);
        if (seen && (seen.eventId !== now.eventId || seen.type !== now.type)) {
          conflicts.push(`${webhookId}: ${seen.type} ${seen.eventId}, then ${now.type} ${now.eventId}`);
        }
        mine.set(webhookId, { ...now, times: (seen?.times ?? 0) + 1 });
      }
      const answer = () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (n % SLOW_EVERY === 0) setTimeout(answer, SLOW_MS);
      else answer();
    });
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    conflicts,
    deliveries: () => count,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
