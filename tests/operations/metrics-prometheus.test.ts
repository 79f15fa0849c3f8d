// /metrics scraped by a real Prometheus (Debian's `prometheus`, run here): it reaches the endpoint
// with the bearer token, and a query of its own answers with the requests the server counted by
// operation. A scrape job with a wrong token sees the target down, refused. On the embedded run
// (the endpoint is the same on both databases); skipped without prometheus, failed under CI=true.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDED_RUN } from '../helpers/runs.ts';
import { freePort, testFileServer } from '../helpers/server.ts';

const TOKEN = 'prometheus-scrape-token-0123456789';
const hasPrometheus = spawnSync('prometheus', ['--version'], { stdio: 'ignore' }).error === undefined;
const title = (t: string) => (hasPrometheus ? t : `${t} (skipped: prometheus is not installed; apt-get install -y prometheus)`);

const server = testFileServer({ METRICS_TOKEN: TOKEN });
let prometheus: ChildProcess | undefined;
let prometheusUrl: string;
let dir: string;

/** A scrape job of the server's /metrics every second, with the right token and with a wrong one. */
function config(target: string): string {
  const job = (name: string, token: string) => `
  - job_name: ${name}
    scrape_interval: 1s
    metrics_path: /metrics
    authorization: { type: Bearer, credentials: ${token} }
    static_configs: [{ targets: ['${target}'] }]`;
  return `scrape_configs:${job('gigmarket', TOKEN)}${job('intruder', 'not-the-token-0123456789')}\n`;
}

async function query(expression: string) {
  const res = await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(expression)}`);
  return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
}

describe.runIf(EMBEDDED_RUN && (hasPrometheus || process.env.CI))(title('/metrics scraped by Prometheus'), () => {
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gm-prometheus-'));
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config(new URL(server.url).host));
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    // Ready once it has loaded its configuration and storage (expect.poll belongs in tests).
    for (
      let tries = 0;
      (await fetch(`${prometheusUrl}/-/ready`).then(
        (r) => r.status,
        () => 0,
      )) !== 200;
      tries++
    ) {
      if (tries > 300) throw new Error('prometheus did not become ready in 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 60_000);
  afterAll(() => {
    prometheus?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('scrapes with the token and answers a query with the requests counted by operation; a wrong token is refused', async () => {
    const user = await server.user('Scraped User');
    for (let i = 0; i < 3; i++) expect((await user.api.GET('/api/credits')).response.status).toBe(200);
    await expect
      .poll(async () => (await query('sum(gigmarket_http_requests_total{job="gigmarket",operation="getCredits"})'))[0]?.value[1], {
        timeout: 30_000,
      })
      .toBe('3');
    const health = async () => Object.fromEntries((await query('up')).map((r) => [r.metric.job, r.value[1]]));
    await expect.poll(health, { timeout: 30_000 }).toEqual({ gigmarket: '1', intruder: '0' });
    const targets = (await (await fetch(`${prometheusUrl}/api/v1/targets`)).json()) as {
      data: { activeTargets: { labels: { job: string }; lastError: string }[] };
    };
    const intruder = targets.data.activeTargets.find((t) => t.labels.job === 'intruder')!;
    expect(intruder.lastError).toContain('401');
  });
});
