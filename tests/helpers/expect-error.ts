// Assertions on the error envelope, shared by the test files.
import { expect } from 'vitest';

type Res = { response: Response; error?: unknown };
type Envelope = { error: { code: string; message: string; issues: { path: string; message: string }[] } };

/** 400 VALIDATION_FAILED with an issue at `path` (e.g. `body.title`, `query.limit`). */
export function expectInvalid(res: Res, path: string): void {
  expect(res.response.status).toBe(400);
  const error = (res.error as Envelope).error;
  expect(error.code).toBe('VALIDATION_FAILED');
  expect(error.issues.map((i) => i.path)).toContain(path);
}

/** The status and code of the envelope, and its message when given. */
export function expectError(res: Res, status: number, code: string, message?: RegExp): void {
  expect(res.response.status).toBe(status);
  const error = (res.error as Envelope).error;
  expect(error.code).toBe(code);
  if (message) expect(error.message).toMatch(message);
}
