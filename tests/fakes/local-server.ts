// What every fake outside service does the same way: read a body, listen on a loopback port, close.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';

export function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let data = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      data += chunk;
    });
    req.on('end', () => resolve(data));
    req.on('error', reject);
  });
}

/** Listens on a free loopback port; returns the base URL. */
export async function listenLocal(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the server, dropping keep-alive connections that would hold it open. */
export function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
}

/** How a flood ended: bytes written, and whether all were (false: the reader hung up first). */
export interface FloodResult {
  written: number;
  complete: boolean;
}

/**
 * Answers 200 with `head` and then `fill` repeated until `totalBytes` have been written, as fast
 * as the reader takes them, or until it hangs up: an answer far larger than any reader should
 * take. Chunked, so no Content-Length gives its size away. Resolves once the response has closed.
 */
export function flood(res: http.ServerResponse, head: string, fill: string, totalBytes: number): Promise<FloodResult> {
  const chunk = Buffer.from(fill.repeat(Math.ceil((64 * 1024) / fill.length)));
  let written = 0;
  const closed = new Promise<FloodResult>((resolve) => res.on('close', () => resolve({ written, complete: res.writableFinished })));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write(head);
  written += Buffer.byteLength(head);
  const pump = () => {
    while (!res.destroyed && written < totalBytes) {
      written += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    if (!res.destroyed) res.end();
  };
  pump();
  return closed;
}
