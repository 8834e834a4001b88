import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';

/** Debian's Chromium (apt-get install chromium); browser tests skip, saying so, where it is not installed. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Headless flags for this machine: without the background-networking ones Chromium keeps dialling Google's hosts,
 * which the closed network refuses, and root needs --no-sandbox.
 */
export const CHROMIUM_ARGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];

type Playwright = typeof import('playwright-core');
export type Browser = Awaited<ReturnType<Playwright['chromium']['launch']>>;

/** Playwright's chromium launcher, or null after marking the test skipped when Chromium is not installed. */
export async function chromiumOrSkip(tc: TestContext): Promise<Playwright['chromium'] | null> {
  if (!existsSync(CHROMIUM)) {
    tc.skip('chromium not installed');
    return null;
  }
  return (await import('playwright-core')).chromium;
}

/** Launches Debian's Chromium headless with this machine's flags. */
export async function launchChromium(chromium: Playwright['chromium']): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
