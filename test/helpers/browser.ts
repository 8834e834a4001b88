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

/**
 * PortOne's CDN is out of reach here: its address serves the PortOne fake's stand-in for the browser SDK, with the
 * fake's origin replaced by the CDN's, and the window's calls to the CDN go to the fake (the page's CSP stays the
 * production one).
 */
export async function routePortOneCdn(ctx: import('playwright-core').BrowserContext, fake: { sdkUrl: string; baseUrl: string }): Promise<void> {
  const fakeOrigin = new URL(fake.baseUrl).origin;
  await ctx.route('https://cdn.portone.io/**', async (route) => {
    const url = new URL(route.request().url());
    if (url.pathname === '/v2/browser-sdk.js') {
      const body = (await (await fetch(fake.sdkUrl)).text()).replaceAll(fakeOrigin, 'https://cdn.portone.io');
      return route.fulfill({ status: 200, contentType: 'text/javascript', body });
    }
    const answer = await fetch(`${fakeOrigin}${url.pathname}`, { method: 'POST', body: route.request().postData() ?? '' });
    return route.fulfill({ status: answer.status, contentType: 'application/json', headers: { 'access-control-allow-origin': '*' }, body: await answer.text() });
  });
}
