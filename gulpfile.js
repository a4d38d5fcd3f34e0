// Copies node and credential icons next to the compiled files, where n8n looks for them.
const { src, dest, task } = require('gulp');

task('build:icons', () =>
	src(['nodes/**/*.svg', 'credentials/**/*.svg'], { base: '.' }).pipe(dest('dist')),
);
