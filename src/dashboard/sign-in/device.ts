import Bowser from 'bowser';

/** "Chrome 131 · macOS" from a User-Agent header (bowser), or null when it names nothing recognisable. */
export function deviceOf(userAgent: string | null): string | null {
  if (!userAgent) return null;
  const p = Bowser.parse(userAgent);
  const browser = p.browser.name ? `${p.browser.name}${p.browser.version ? ` ${p.browser.version.split('.')[0]}` : ''}` : null;
  // The OS name only: browsers freeze the version they report (macOS says 10.15 whatever it runs).
  const os = p.os.name ?? null;
  const parts = [browser, os].filter(Boolean);
  return parts.length ? parts.join(' · ') : null;
}
