'use strict';
// Holds one TypeORM DataSource made with n8n's own @n8n/typeorm (and its sqlite3 / pg drivers) and
// runs the statements it is sent, one JSON line each: { id, sql, params } -> { id, rows } | { id, error }.
// It runs on n8n's Node 24 because n8n's sqlite3 build does not load on Node 20.
const readline = require('node:readline');
const [modules, optionsJson] = process.argv.slice(2);
const { DataSource } = require(`${modules}/@n8n/typeorm`);
const ds = new DataSource(JSON.parse(optionsJson));
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
ds.initialize().then(
	() => {
		send({ ready: true, type: ds.options.type });
		readline.createInterface({ input: process.stdin }).on('line', (line) => {
			const { id, sql, params } = JSON.parse(line);
			ds.query(sql, params).then(
				(rows) => send({ id, rows: rows === undefined ? null : rows }),
				(error) => send({ id, error: String(error && error.message) }),
			);
		});
		process.stdin.on('end', () => ds.destroy().finally(() => process.exit(0)));
	},
	(error) => {
		send({ ready: false, error: String(error && error.message) });
		process.exit(1);
	},
);
