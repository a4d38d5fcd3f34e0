import * as path from 'node:path';
import type { Browser, Page } from 'puppeteer-core';

/** The widths every page of the package is looked at in chromium: a desktop and a phone. */
export const VIEWPORTS = [
	['desktop', { width: 1280, height: 900 }],
	['phone', { width: 390, height: 844, isMobile: true, hasTouch: true }],
] as const;

/** A new tab at that width, with JavaScript off (the pages work without it). */
export async function openPage(browser: Browser, viewport: (typeof VIEWPORTS)[number][1]): Promise<Page> {
	const page = await browser.newPage();
	await page.setJavaScriptEnabled(false);
	await page.setViewport({ ...viewport, deviceScaleFactor: 1 });
	return page;
}

/**
 * A screenshot into `folder` (of `selector`'s element when given and present, else the full page),
 * after checking that nothing is wider than the viewport: no sideways scrolling on a phone.
 */
export async function screenshot(page: Page, folder: string, name: string, selector?: string): Promise<void> {
	expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(page.viewport()!.width);
	const file = path.join(folder, `${name}.png`) as `${string}.png`;
	const element = selector ? await page.$(selector) : null;
	if (element) await element.screenshot({ path: file });
	else await page.screenshot({ path: file, fullPage: true });
}
