'use strict';
// A real browser for the review page n8n serves: Debian's chromium driven by puppeteer-core (as the
// browser tests in test/browser do), with JavaScript off because the page has none. Its profile
// lives in the run's temp folder, so a chromium left running is found by the leftover check.

const fs = require('node:fs');

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The browser binary ($CHROMIUM_PATH first), or undefined when none is installed (the caller fails: scripts/ensure-chromium.sh installs it). */
function findChromium() {
	const fromEnv = process.env.CHROMIUM_PATH;
	if (fromEnv) return fs.existsSync(fromEnv) ? fromEnv : undefined;
	return CANDIDATES.find((file) => fs.existsSync(file));
}

/** Starts chromium headless; close() ends it. */
async function launchBrowser(executablePath, { profileDir }) {
	const puppeteer = require('puppeteer-core');
	// --no-sandbox: the test machines run as root, where chromium refuses its sandbox.
	return puppeteer.launch({ executablePath, headless: true, userDataDir: profileDir, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** A tab with JavaScript off: desktop-sized unless a viewport is given (e.g. a phone: { width: 420, height: 900, isMobile: true, hasTouch: true }). */
async function reviewTab(browser, viewport = { width: 1100, height: 900 }) {
	const page = await browser.newPage();
	await page.setJavaScriptEnabled(false);
	await page.setViewport({ deviceScaleFactor: 1, ...viewport });
	return page;
}

/**
 * Clicks what a person clicks to set the input named `selector`: its label (a styled page may hide
 * the radio itself and show the label as the button), else the input.
 */
async function clickChoice(page, selector) {
	const handle = await page.evaluateHandle((css) => {
		const input = document.querySelector(css);
		if (!input) return null;
		return input.closest('label') ?? (input.id ? document.querySelector(`label[for="${CSS.escape(input.id)}"]`) : null) ?? input;
	}, selector);
	const element = handle.asElement();
	if (!element) throw new Error(`nothing to click for ${selector} on ${page.url()}`);
	await element.click();
}

module.exports = { findChromium, launchBrowser, reviewTab, clickChoice };
