'use strict';
// Issue 14 in a real n8n and a real browser: the scripted model asks for three `record` calls on the
// counter server, all needing review; the execution waits in MCP Approval, and a person decides on
// the review page n8n serves, in Debian's chromium (puppeteer-core, JavaScript off as the page has
// none): approve the first, deny the second with a reason, edit the third through the form generated
// from the tool's schema, type a name, submit. Then the run's outcome and the counter file (which
// calls reached the server, with which arguments) are checked. Three ways: clicking at 1280 px,
// tapping at 420 x 900 (touch), and the keyboard alone (Tab reaches every control in page order,
// Space and arrow keys decide, Enter submits). Screenshots of each state: <temp>/screenshots/review-*.png.

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { findChromium, launchBrowser, reviewTab } = require('../lib/browser');

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 420, height: 900, isMobile: true, hasTouch: true };
const REASON = 'Not this one: the label is reserved';
const REVIEWER = 'Browser Reviewer';

module.exports = function browserCases(e2e, ctx, h) {
	const { plan, call, finalResults, reviewPage, counterLabels, latestStatus } = h;
	const shots = path.join(ctx.dir, 'screenshots');

	/** Chromium, or a failure: a missing browser fails the case everywhere, never passes it. */
	function requireChromium(name) {
		const chromium = findChromium();
		if (chromium) return chromium;
		return assert.fail(`"${name}": no chromium: run scripts/ensure-chromium.sh (or set CHROMIUM_PATH to a chromium/chrome binary)`);
	}

	async function withBrowser(chromium, fn) {
		fs.mkdirSync(shots, { recursive: true });
		const browser = await launchBrowser(chromium, { profileDir: path.join(ctx.dir, 'chromium-profile') });
		try {
			return await fn(browser);
		} finally {
			await browser.close();
		}
	}

	/** Starts a run whose model asks for three reviewed calls; returns the Needs Approval item and the labels. */
	async function pausedRun(prefix) {
		const labels = { approve: `${prefix}-alpha`, deny: `${prefix}-bravo`, edit: `${prefix}-charlie`, edited: `${prefix}-delta` };
		await ctx.n8n.trigger('agent-review', { plan: plan([call('record', { label: labels.approve }), call('record', { label: labels.deny }), call('record', { label: labels.edit })]) });
		const pending = await ctx.inbox.next('pending', 'review');
		assert.deepEqual(pending.calls.map((c) => [c.tool, c.arguments.label, c.needsReview]), [['record', labels.approve, true], ['record', labels.deny, true], ['record', labels.edit, true]]);
		// The execution reaches its waiting state a moment after the item goes out.
		await reviewPage(pending.reviewUrl);
		return { pending, labels };
	}

	/** Opens the review page in a tab; the browser's GETs must leave the execution waiting. */
	async function openReview(browser, pending, viewport, shotName) {
		const tab = await reviewTab(browser, viewport);
		const opened = await tab.goto(pending.reviewUrl, { waitUntil: 'load' });
		assert.equal(opened.status(), 200);
		await tab.screenshot({ path: path.join(shots, `${shotName}.png`), fullPage: true });
		assert.equal(await latestStatus(ctx.ids.review), 'waiting', "the browser's GET must not resume the execution");
		return tab;
	}

	/** An element inside the card of the call whose arguments hold `label` (the three calls use the same tool). */
	async function inCard(tab, label, selector) {
		const handle = await tab.evaluateHandle(
			(text, css) => {
				const card = Array.from(document.querySelectorAll('section.call')).find((s) => s.textContent.includes(text));
				return card?.querySelector(css) ?? null;
			},
			label,
			selector,
		);
		const element = handle.asElement();
		if (!element) throw new Error(`no ${selector} in the card of ${label}`);
		return element;
	}

	/** The button-like label of a call's Approve / Deny / Edit choice (the radio itself is visually hidden). */
	async function choice(tab, label, value) {
		const radio = await inCard(tab, label, `input.pick.${value}`);
		const id = await radio.evaluate((el) => el.id);
		const button = await tab.$(`label[for="${id}"]`);
		assert.ok(button, `no label for the ${value} choice of ${label}`);
		return button;
	}

	const shown = (tab, label, box) => inCard(tab, label, `.${box}`).then((el) => el.evaluate((node) => node.offsetParent !== null && node.getBoundingClientRect().height > 0));

	/** The edit field `field` in the card of `label` (generated from the tool's schema). */
	async function editInput(tab, label, field) {
		const card = await inCard(tab, label, '.edit-box');
		const input = await card.evaluateHandle((box, name) => Array.from(box.querySelectorAll('.edit-field')).find((f) => f.querySelector('.field-label')?.textContent === name)?.querySelector('input, textarea, select') ?? null, field);
		assert.ok(input.asElement(), `no edit field "${field}" for ${label}`);
		return input.asElement();
	}

	async function submitAndRead(tab, press, shotName) {
		const [response] = await Promise.all([tab.waitForNavigation({ waitUntil: 'load' }), press()]);
		await tab.screenshot({ path: path.join(shots, `${shotName}.png`), fullPage: true });
		const text = await tab.evaluate(() => document.body.innerText);
		assert.equal(response.status(), 200, `the review page refused the decisions: ${text.slice(0, 800)}`);
		return text;
	}

	/** What the confirmation page lists: exactly the three decisions, the reason, and the edit against the model's value. */
	function assertConfirmation(text, labels) {
		assert.match(text, /Decision recorded/);
		assert.match(text, new RegExp(`3 decisions recorded by ${REVIEWER}`));
		assert.equal(text.match(/Approved: record/g)?.length, 1, text);
		assert.equal(text.match(/Denied: record/g)?.length, 1, text);
		assert.equal(text.match(/Approved with your edits: record/g)?.length, 1, text);
		assert.ok(text.includes(`Reason: ${REASON}`), text);
		assert.ok(text.includes(`"${labels.edit}"`) && text.includes(`"${labels.edited}"`), `the edit shows the model's and the reviewer's value: ${text}`);
	}

	/** The run resumed and finished: the approved call ran as asked, the edited one with the edit, the denied one never. */
	async function assertOutcome(labels) {
		const done = await ctx.inbox.next('done', 'review');
		assert.equal(done.status, 'completed', JSON.stringify(done).slice(0, 800));
		const [approved, denied, edited, ...more] = finalResults(done);
		assert.deepEqual(more, []);
		assert.equal(approved.isError, false, approved.text);
		assert.match(approved.text, new RegExp(`recorded ${labels.approve}\\b`));
		assert.equal(denied.isError, true);
		assert.match(denied.text, /denied/);
		assert.ok(denied.text.includes(REASON), `the model receives the reason: ${denied.text}`);
		assert.equal(edited.isError, false, edited.text);
		assert.match(edited.text, /edited its arguments/);
		assert.match(edited.text, new RegExp(`recorded ${labels.edited}\\b`));
		const received = counterLabels().filter((l) => Object.values(labels).includes(l));
		assert.deepEqual(received, [labels.approve, labels.edited], 'the counter server received the approved call and the edited one, with the edited arguments');
		assert.deepEqual(done.toolCalls.map((c) => [c.arguments.label, c.review.decision, c.review.reviewer]), [
			[labels.approve, 'approved', REVIEWER],
			[labels.deny, 'denied', REVIEWER],
			[labels.edited, 'edited', REVIEWER],
		]);
		assert.deepEqual(done.toolCalls[2].review.editedFrom, { label: labels.edit });
		assert.equal(done.toolCalls[1].review.reason, REASON);
	}

	/** Approve, deny with a reason, edit through the generated form, name, submit: by mouse clicks or by taps. */
	async function decideByPointer(viewport, prefix) {
		const name = `review page at ${viewport.width} px (${viewport.hasTouch ? 'tap' : 'click'})`;
		const chromium = requireChromium(name);
		const { pending, labels } = await pausedRun(prefix);
		await withBrowser(chromium, async (browser) => {
			const tab = await openReview(browser, pending, viewport, `review-${prefix}-1-page`);
			const layout = await tab.evaluate(() => ({
				scrollWidth: document.documentElement.scrollWidth,
				small: Array.from(document.querySelectorAll('.pick + label, button')).map((el) => el.getBoundingClientRect()).filter((r) => r.height > 0 && r.height < 44).length,
			}));
			assert.ok(layout.scrollWidth <= viewport.width, `the page scrolls sideways: ${layout.scrollWidth} px wide at ${viewport.width} px`);
			assert.equal(layout.small, 0, 'every button is at least 44 px tall');
			const press = (element) => (viewport.hasTouch ? element.tap() : element.click());

			await press(await choice(tab, labels.approve, 'approve'));
			assert.equal(await shown(tab, labels.approve, 'reason-box'), false);
			await press(await choice(tab, labels.deny, 'deny'));
			assert.equal(await shown(tab, labels.deny, 'reason-box'), true, 'Deny opens the reason box');
			assert.equal(await shown(tab, labels.deny, 'edit-box'), false);
			await (await inCard(tab, labels.deny, '.reason-box textarea')).type(REASON);
			await press(await choice(tab, labels.edit, 'edit'));
			assert.equal(await shown(tab, labels.edit, 'edit-box'), true, 'Edit opens the generated form');
			const field = await editInput(tab, labels.edit, 'label');
			assert.equal(await field.evaluate((el) => el.value), labels.edit, "the form holds the model's value");
			await field.click({ clickCount: 3 });
			await field.type(labels.edited);
			await tab.type('input[name="reviewer"]', REVIEWER);
			await tab.screenshot({ path: path.join(shots, `review-${prefix}-2-decided.png`), fullPage: true });
			assert.equal(await latestStatus(ctx.ids.review), 'waiting', 'nothing is decided before submitting');
			const text = await submitAndRead(tab, async () => press(await tab.$('button.primary')), `review-${prefix}-3-confirmation`);
			assertConfirmation(text, labels);
		});
		await assertOutcome(labels);
	}

	e2e('review page in chromium at 1280 px: approve one, deny one with a reason, edit one through the generated form; the run resumes and the counter server got exactly the approved and the edited call', async () => {
		await decideByPointer(DESKTOP, 'desktop');
	});

	e2e('review page in chromium on a phone (420 x 900, touch): the same by tapping, no sideways scrolling, 44 px buttons', async () => {
		await decideByPointer(PHONE, 'phone');
	});

	e2e('review page in chromium by keyboard alone: Tab reaches every control in page order; Space and arrows decide, Enter in the name field submits', async () => {
		const chromium = requireChromium('keyboard');
		const { pending, labels } = await pausedRun('keys');
		await withBrowser(chromium, async (browser) => {
			const tab = await openReview(browser, pending, DESKTOP, 'review-keys-1-page');
			const describe = () => {
				const el = document.activeElement;
				return !el || el === document.body ? '' : `${Array.from(document.querySelectorAll('*')).indexOf(el)}:${el.tagName}:${el.name || el.textContent.trim().slice(0, 30)}`;
			};
			// Every control a person can reach, in page order: one stop per radio group, visible fields only.
			const expected = await tab.evaluate(() => {
				const groups = new Set();
				return Array.from(document.querySelectorAll('summary, input:not([type=hidden]), textarea, select, button, a[href]'))
					.filter((el) => el.offsetParent !== null || el.type === 'radio')
					.filter((el) => el.type !== 'radio' || (!groups.has(el.name) && groups.add(el.name)))
					.map((el) => `${Array.from(document.querySelectorAll('*')).indexOf(el)}:${el.tagName}:${el.name || el.textContent.trim().slice(0, 30)}`);
			});
			const reached = [];
			for (let i = 0; i < expected.length + 5; i++) {
				await tab.keyboard.press('Tab');
				const id = await tab.evaluate(describe);
				if (!id || reached.includes(id)) break;
				reached.push(id);
			}
			assert.deepEqual(reached, expected, 'Tab must reach every control once, in page order');
			assert.ok(expected.filter((e) => e.includes(':INPUT:')).length >= 4, `too few controls found: ${expected.join(', ')}`);

			// Decide from the top again, keyboard only.
			await tab.goto(pending.reviewUrl, { waitUntil: 'load' });
			const tabTo = async (css) => {
				for (let i = 0; i < 80; i++) {
					await tab.keyboard.press('Tab');
					if (await tab.evaluate((c) => Boolean(document.activeElement?.matches(c)), css)) return;
				}
				throw new Error(`Tab never reached ${css}`);
			};
			const focusedCardHolds = (label) => tab.evaluate((text) => document.activeElement?.closest('section.call')?.textContent.includes(text) ?? false, label);
			await tabTo('input.pick.approve');
			assert.ok(await focusedCardHolds(labels.approve));
			await tab.keyboard.press('Space');
			await tabTo('input.pick.approve');
			assert.ok(await focusedCardHolds(labels.deny));
			await tab.keyboard.press('ArrowRight');
			assert.equal(await shown(tab, labels.deny, 'reason-box'), true, 'the arrow key chose Deny');
			await tab.keyboard.press('Tab');
			assert.equal(await tab.evaluate(() => document.activeElement?.tagName), 'TEXTAREA');
			await tab.keyboard.type(REASON);
			await tabTo('input.pick.approve');
			assert.ok(await focusedCardHolds(labels.edit));
			await tab.keyboard.press('ArrowRight');
			await tab.keyboard.press('ArrowRight');
			assert.equal(await shown(tab, labels.edit, 'edit-box'), true, 'two arrow keys chose Edit');
			await tabTo('.edit-box input[type=text]');
			assert.equal(await tab.evaluate(() => document.activeElement.value), labels.edit);
			await tab.keyboard.down('Control');
			await tab.keyboard.press('KeyA');
			await tab.keyboard.up('Control');
			await tab.keyboard.type(labels.edited);
			await tabTo('input[name="reviewer"]');
			await tab.keyboard.type(REVIEWER);
			await tab.screenshot({ path: path.join(shots, 'review-keys-2-decided.png'), fullPage: true });
			const text = await submitAndRead(tab, () => tab.keyboard.press('Enter'), 'review-keys-3-confirmation');
			assertConfirmation(text, labels);
		});
		await assertOutcome(labels);
		process.stderr.write(`[e2e agent] review page screenshots (kept on failure or with MCP_AGENT_E2E_KEEP=1): ${shots}\n`);
	});
};
