import { describe, expect, it } from 'vitest';
import { testFileServer } from '../helpers/server.ts';

const server = testFileServer();

describe('GET /api/health', () => {
  it('reports the database and the job system, without credentials', async () => {
    const res = await server.anonymous.GET('/api/health');
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ status: 'ok', database: 'ok', jobs: 'ok' });
    expect(res.response.headers.get('x-request-id')).toMatch(/.+/);
  });

  it('echoes a well-formed x-request-id', async () => {
    const res = await server.anonymous.GET('/api/health', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.response.headers.get('x-request-id')).toBe('trace-123');
  });

  it('answers 503 naming the job system once pg-boss has stopped', async () => {
    await server.runtime.jobs.stop();
    const res = await server.anonymous.GET('/api/health');
    expect(res.response.status).toBe(503);
    expect(res.error).toEqual({ status: 'unavailable', database: 'ok', jobs: 'unavailable' });
  });
});
