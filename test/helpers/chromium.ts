import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium: the dashboard's browser tests never download one. */
export const CHROMIUM = '/usr/bin/chromium';

/** The `skip` of a suite that needs Chromium. */
export const chromiumSkip = existsSync(CHROMIUM) ? false : `Debian's chromium is not installed at ${CHROMIUM} (.ci/run installs it)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** Signs up through the page's form and waits for the account page. */
export async function signUpInPage(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/?tab=sign-up`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${baseUrl}/account`);
}

/**
 * What a clean page must not show, collected as it happens: console errors and warnings (with the
 * script or resource they came from) and uncaught exceptions.
 */
export function consoleProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
  return problems;
}

/** A page in a context of its own at desktop size, its console problems collected (consoleProblems). */
export async function openWatchedPage(browser: Browser): Promise<{ ctx: BrowserContext; page: Page; problems: string[] }> {
  const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await ctx.newPage();
  return { ctx, page, problems: consoleProblems(page) };
}
