'use strict';
// Directories for the roots cases (issue 26, point 1): one with a PDF for server-pdf, started with
// it on its command line, and one with a text file for server-filesystem, given only as a root in
// the credential. Names with a space: the credential's paths must become encoded file:// URIs.

const fs = require('node:fs');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..', '..');
const PDF_ENTRY = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-pdf', 'dist', 'index.js');
const FILESYSTEM_ENTRY = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

const README_TEXT = 'given as a root in the credential';

/** A one-page, empty, valid PDF (as test/support/minimalPdf.ts makes it). */
function minimalPdf() {
	const objects = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>', '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>'];
	let body = '%PDF-1.4\n';
	const offsets = [];
	objects.forEach((object, index) => {
		offsets.push(Buffer.byteLength(body));
		body += `${index + 1} 0 obj\n${object}\nendobj\n`;
	});
	const xrefAt = Buffer.byteLength(body);
	body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
	for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
	body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xrefAt}\n%%EOF\n`;
	return Buffer.from(body, 'latin1');
}

function createRootsFixture(runDir) {
	const base = fs.realpathSync(runDir);
	const pdfDir = path.join(base, 'roots', 'my pdfs');
	const filesDir = path.join(base, 'roots', 'shared files');
	fs.mkdirSync(pdfDir, { recursive: true });
	fs.mkdirSync(filesDir, { recursive: true });
	fs.writeFileSync(path.join(pdfDir, 'doc.pdf'), minimalPdf());
	fs.writeFileSync(path.join(filesDir, 'readme.txt'), README_TEXT);
	return { pdfDir, filesDir, pdfFile: path.join(pdfDir, 'doc.pdf'), readmeFile: path.join(filesDir, 'readme.txt') };
}

module.exports = { createRootsFixture, PDF_ENTRY, FILESYSTEM_ENTRY, README_TEXT };
