// A real browser for the dashboard's tests: Debian's Chromium (`apt-get install chromium`; .ci/run
// installs it when missing) driven by playwright-core, with axe-core for accessibility checks and
// full-page screenshots in test-results/dashboard/ (git-ignored).
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { expect } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { EMBEDDED_RUN } from './runs.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(import.meta.dirname, '..', '..', 'test-results', 'dashboard');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * Collects what the page must never do: a script error, a Content-Security-Policy violation or any
 * other console error (Chromium reports violations there), or a page or asset that fails to load.
 * API refusals (4xx under /api/) are the page's to show, and Chromium logs each as "Failed to load
 * resource": those are left out.
 */
export function watchForErrors(page: Page, problems: string[] = []): string[] {
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(`console error: ${message.text()}`);
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() >= 400 && !url.pathname.startsWith('/api/')) problems.push(`${response.status()} for ${url.pathname}`);
  });
  // ERR_ABORTED is a load cut short by a navigation or a closed tab (a favicon, say): not a fault.
  page.on('requestfailed', (request) => {
    const error = request.failure()?.errorText ?? '';
    if (error !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.url()} ${error}`);
  });
  return problems;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core in the page (evaluated through the DevTools protocol: the page's CSP allows no
 * injected script tag, rightly) and expects no serious or critical violation.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `axe on ${name}: ${JSON.stringify(serious, null, 2)}`).toEqual([]);
}

/**
 * Screenshots are taken on the embedded database's run only: the pages are the same on both, a
 * full-page PNG costs the browser real CPU, and two runs at once (as .ci/run has them) would write
 * the same files.
 */
const takesScreenshots = EMBEDDED_RUN;

export async function screenshot(page: Page, name: string): Promise<void> {
  if (!takesScreenshots) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Every page the test reaches: accessible (axe-core), and saved as test-results/dashboard/<name>.png (screenshot). */
export async function checkPage(page: Page, name: string): Promise<void> {
  await expectAccessible(page, name);
  await screenshot(page, name);
}
