// axe-core in Chromium: WCAG 2.1 A and AA (wcag2a, wcag2aa, wcag21a, wcag21aa) on the page as it is now, in the light
// and the dark colour scheme, and whether it fits a 375 px wide screen. axe is evaluated through the DevTools
// protocol, so the page keeps its own CSP.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

interface AxeResult {
  violations: Array<{ id: string; help: string; nodes: Array<{ target: string[] }> }>;
}

const SCHEMES = ['light', 'dark'] as const;

/**
 * No axe violation in either colour scheme (`prefers-color-scheme`: the pages restyle themselves in dark, and a
 * colour that reads well on white may not on the dark card), and no sideways scrolling at 375 px (the viewport is
 * set to it first). The page is left in the scheme it was in.
 */
export async function checkPage(t: Test, page: Page, name: string): Promise<void> {
  const size = page.viewportSize();
  if (size?.width !== 375) await page.setViewportSize({ width: 375, height: 740 });
  const wasDark = (await page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")) === true;
  await page.evaluate(AXE_SOURCE);
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    const result = (await page.evaluate(
      `axe.run(document, { runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_21_AA)} } })`,
    )) as AxeResult;
    const found = result.violations.map((v) => `${v.id} (${v.help}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    t.same(found, [], `${name}, ${scheme}: no WCAG 2.1 AA violation`);
  }
  await page.emulateMedia({ colorScheme: wasDark ? 'dark' : 'light' });
  const sideways = await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');
  t.equal(sideways, false, `${name}: fits 375 px without scrolling sideways`);
}
