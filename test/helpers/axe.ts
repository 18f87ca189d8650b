// axe-core in Chromium: WCAG 2.1 A and AA (wcag2a, wcag2aa, wcag21a, wcag21aa) on the page as it is now, in the light
// and the dark colour scheme, and whether it fits a 375 px wide screen. axe is evaluated through the DevTools
// protocol, so the page keeps its own CSP.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const WCAG_21_AA = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** What the page hands back of a run: its violations only, each with its nodes' selectors. */
type Violations = Array<{ id: string; help: string; targets: string[] }>;

const SCHEMES = ['light', 'dark'] as const;

/**
 * One axe run in the page, as a string to evaluate there. `resultTypes: ['violations']` keeps axe from collecting
 * every node that passed (its violations are found and reported in full all the same), and the page hands back the
 * violations only, not the whole result (the passes and the inapplicable rules, some hundred kilobytes each run).
 */
const RUN_AXE = `axe.run(document, {
  runOnly: { type: 'tag', values: ${JSON.stringify(WCAG_21_AA)} },
  resultTypes: ['violations'],
}).then((result) => result.violations.map((v) => ({
  id: v.id,
  help: v.help,
  targets: v.nodes.map((n) => n.target.join(' ')),
})))`;

/** The colour schemes the pages are drawn in (`prefers-color-scheme`). */
export type ColorScheme = (typeof SCHEMES)[number];

/**
 * No axe violation in either colour scheme (`prefers-color-scheme`: the pages restyle themselves in dark, and a
 * colour that reads well on white may not on the dark card), or in `schemes` only where a page was already checked
 * in both and only its words changed (a translation), and no sideways scrolling at 375 px (the viewport is set to
 * it first). axe is loaded into the page once and run once in each scheme; `inScheme` runs in each scheme before axe
 * does (a page's own checks of how it is drawn there). The page is left in the scheme it was in.
 */
export async function checkPage(
  t: Test,
  page: Page,
  name: string,
  inScheme?: (scheme: ColorScheme) => Promise<void>,
  schemes: readonly ColorScheme[] = SCHEMES,
): Promise<void> {
  const size = page.viewportSize();
  if (size?.width !== 375) await page.setViewportSize({ width: 375, height: 740 });
  const wasDark = (await page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")) === true;
  if ((await page.evaluate("typeof axe === 'undefined'")) === true) await page.evaluate(AXE_SOURCE);
  for (const scheme of schemes) {
    await page.emulateMedia({ colorScheme: scheme });
    await inScheme?.(scheme);
    const violations = (await page.evaluate(RUN_AXE)) as Violations;
    const found = violations.map((v) => `${v.id} (${v.help}): ${v.targets.join(', ')}`);
    t.same(found, [], `${name}, ${scheme}: no WCAG 2.1 AA violation`);
  }
  await page.emulateMedia({ colorScheme: wasDark ? 'dark' : 'light' });
  const sideways = await page.evaluate('document.documentElement.scrollWidth > document.documentElement.clientWidth');
  t.equal(sideways, false, `${name}: fits 375 px without scrolling sideways`);
}
