// Copies what n8n reads next to the compiled files besides JavaScript: the node and credential
// icons (light and dark variants), and each node's codex file (`X.node.json` beside `X.node.js`),
// from which n8n takes the node panel's categories, search aliases and documentation links.
const { src, dest, task, parallel } = require('gulp');

function copyIcons() {
	return src(['nodes/**/*.svg', 'credentials/**/*.svg'], { base: '.' }).pipe(dest('dist'));
}

function copyCodex() {
	return src(['nodes/**/*.node.json'], { base: '.' }).pipe(dest('dist'));
}

task('build:assets', parallel(copyIcons, copyCodex));
// The name `npm run build` has always called; it copies the codex files too.
task('build:icons', parallel(copyIcons, copyCodex));
