// A request kept in flight for as long as a test wants: its head and half its body go at once, on a
// connection of its own, and the rest when the test calls finish(). The server has it routed and
// authenticated meanwhile, waiting for the body: a slow client, or a slow request, as a drain sees it.
import net from 'node:net';

export interface HeldRequest {
  /** Sends the rest of the body. */
  finish(): void;
  /** The answer: its status and body, once the server has sent it and closed the connection (`connection: close`). */
  answer: Promise<{ status: number; body: string }>;
}

export function heldJsonRequest(base: string, method: string, path: string, headers: Record<string, string>, json: object): HeldRequest {
  const { hostname, port } = new URL(base);
  const body = Buffer.from(JSON.stringify(json));
  const half = Math.floor(body.length / 2);
  const head = [
    `${method} ${path} HTTP/1.1`,
    `host: ${hostname}:${port}`,
    'content-type: application/json',
    `content-length: ${body.length}`,
    'connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  const socket = net.connect(Number(port), hostname);
  socket.write(`${head}\r\n\r\n`);
  socket.write(body.subarray(0, half));
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const at = text.indexOf('\r\n\r\n');
      if (at < 0) return reject(new Error(`no complete answer: ${JSON.stringify(text)}`));
      resolve({ status: Number(text.split(' ')[1]), body: text.slice(at + 4) });
    });
  });
  // write, not end: a client that half-closes is one the server stops answering (Node's HTTP server).
  return { finish: () => socket.write(body.subarray(half)), answer };
}
