// The external gig sources an operator configures (SOURCES_FILE, a JSON file; see
// sources.example.json). Validated whole at start: a mistake stops the server with a message that
// names the file, the source and the field, rather than a source silently never syncing.
import fs from 'node:fs';

export type SourceKind = 'json_feed' | 'rss' | 'atom' | 'github_issues';
export const SOURCE_KINDS: readonly SourceKind[] = ['json_feed', 'rss', 'atom', 'github_issues'];

export interface SourceConfig {
  name: string;
  kind: SourceKind;
  /** The feed's address; for github_issues the API base (default https://api.github.com). */
  url: string;
  /** Cron expression (UTC) for the pg-boss schedule. */
  schedule: string;
  enabled: boolean;
  /** The currency of amounts that name none ("$" alone is taken as USD regardless). */
  defaultCurrency: string;
  /** github_issues: the search query, its token's environment variable, and the page limit. */
  query: string | undefined;
  tokenEnv: string | undefined;
  maxPages: number;
}

export const SOURCE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;
export const DEFAULT_SCHEDULE = '*/30 * * * *';
export const DEFAULT_GITHUB_API = 'https://api.github.com';
export const DEFAULT_GITHUB_QUERY = 'label:bounty state:open';
const DEFAULT_MAX_PAGES = 5;
const MAX_SOURCES = 100;

const COMMON_KEYS = ['name', 'kind', 'url', 'schedule', 'enabled', 'default_currency'];
const GITHUB_KEYS = ['token_env', 'query', 'max_pages'];
// Five or six fields of cron characters; pg-boss parses the expression itself when it schedules it.
const CRON_FIELD = /^[0-9*/,\-?LW#A-Za-z]+$/;

export class SourcesConfigError extends Error {}

type Json = Record<string, unknown>;

function fail(where: string, message: string): never {
  throw new SourcesConfigError(`${where}: ${message}`);
}

function optionalString(entry: Json, key: string, where: string): string | undefined {
  const value = entry[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !value.trim()) fail(where, `"${key}" must be a non-empty string`);
  return value.trim();
}

function httpUrl(raw: string, where: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(where, `"url" must be an absolute http(s) URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(where, `"url" must be http or https, got "${raw}"`);
  return url.toString();
}

function parseSource(entry: unknown, index: number, file: string): SourceConfig {
  let where = `${file}: sources[${index}]`;
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) fail(where, 'must be an object');
  const e = entry as Json;
  const name = e.name;
  if (typeof name !== 'string' || !SOURCE_NAME_PATTERN.test(name)) {
    fail(where, `"name" must match ${SOURCE_NAME_PATTERN.source}, got ${JSON.stringify(name)}`);
  }
  if (name === 'native') fail(where, '"name" must not be "native": that is the source of gigs published here');
  where = `${file}: source "${name}"`;
  const kind = e.kind;
  if (typeof kind !== 'string' || !SOURCE_KINDS.includes(kind as SourceKind)) {
    fail(where, `"kind" must be one of ${SOURCE_KINDS.join(', ')}, got ${JSON.stringify(kind)}`);
  }
  const github = kind === 'github_issues';
  const allowed = github ? [...COMMON_KEYS, ...GITHUB_KEYS] : COMMON_KEYS;
  for (const key of Object.keys(e)) {
    if (!allowed.includes(key)) {
      fail(
        where,
        GITHUB_KEYS.includes(key)
          ? `"${key}" applies to github_issues sources only`
          : `unknown field "${key}" (allowed: ${allowed.join(', ')})`,
      );
    }
  }
  const rawUrl = optionalString(e, 'url', where) ?? (github ? DEFAULT_GITHUB_API : fail(where, '"url" is required'));
  const schedule = optionalString(e, 'schedule', where) ?? DEFAULT_SCHEDULE;
  const fields = schedule.split(/\s+/);
  if (fields.length < 5 || fields.length > 6 || !fields.every((f) => CRON_FIELD.test(f))) {
    fail(where, `"schedule" must be a cron expression like "${DEFAULT_SCHEDULE}", got "${schedule}"`);
  }
  const enabled = e.enabled ?? true;
  if (typeof enabled !== 'boolean') fail(where, '"enabled" must be true or false');
  const currency = optionalString(e, 'default_currency', where) ?? 'USD';
  if (!/^[A-Z]{3}$/.test(currency)) fail(where, `"default_currency" must be a 3-letter ISO 4217 code like "USD", got "${currency}"`);
  const tokenEnv = optionalString(e, 'token_env', where);
  if (tokenEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv)) {
    fail(where, `"token_env" must be the name of an environment variable, got "${tokenEnv}"`);
  }
  const maxPages = e.max_pages ?? DEFAULT_MAX_PAGES;
  if (typeof maxPages !== 'number' || !Number.isInteger(maxPages) || maxPages < 1 || maxPages > 10) {
    fail(where, '"max_pages" must be an integer from 1 to 10 (GitHub search returns at most 1000 results)');
  }
  return {
    name,
    kind: kind as SourceKind,
    url: github ? rawUrl.replace(/\/+$/, '') : httpUrl(rawUrl, where),
    schedule,
    enabled,
    defaultCurrency: currency,
    query: github ? (optionalString(e, 'query', where) ?? DEFAULT_GITHUB_QUERY) : undefined,
    tokenEnv,
    maxPages,
  };
}

/** Validates the parsed contents of a sources file (`file` names it in messages). */
export function parseSources(document: unknown, file: string): SourceConfig[] {
  if (!document || typeof document !== 'object' || Array.isArray(document)) fail(file, 'must be a JSON object like {"sources": [...]}');
  const doc = document as Json;
  for (const key of Object.keys(doc)) if (key !== 'sources' && key !== '$comment') fail(file, `unknown top-level field "${key}"`);
  if (!Array.isArray(doc.sources)) fail(file, '"sources" must be an array');
  if (doc.sources.length > MAX_SOURCES) fail(file, `at most ${MAX_SOURCES} sources`);
  const sources = doc.sources.map((entry, i) => parseSource(entry, i, file));
  const seen = new Set<string>();
  for (const s of sources) {
    if (seen.has(s.name)) fail(file, `two sources are named "${s.name}"`);
    seen.add(s.name);
    if (s.kind === 'github_issues') httpUrl(s.url, `${file}: source "${s.name}"`);
  }
  return sources;
}

/** The sources in `file`, or none when there is no file. */
export function loadSources(file: string | undefined): SourceConfig[] {
  if (!file) return [];
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SourcesConfigError(`${file}: cannot read: ${(err as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new SourcesConfigError(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  return parseSources(document, file);
}
