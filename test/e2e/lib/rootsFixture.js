'use strict';
// Directories for the roots cases (issue 26, point 1): one with a PDF for server-pdf, started with
// it on its command line, and one with a text file for server-filesystem, given only as a root in
// the credential. Names with a space: the credential's paths must become encoded file:// URIs.

const fs = require('node:fs');
const path = require('node:path');
const { minimalPdf } = require('../../fixtures/minimal-pdf');

const REPO = path.resolve(__dirname, '..', '..', '..');
const PDF_ENTRY = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-pdf', 'dist', 'index.js');
const FILESYSTEM_ENTRY = path.join(REPO, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

const README_TEXT = 'given as a root in the credential';

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
