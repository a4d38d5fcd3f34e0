/** n8n's own lint rules for community nodes and credentials. */
module.exports = {
	root: true,
	parser: '@typescript-eslint/parser',
	parserOptions: { sourceType: 'module', extraFileExtensions: ['.json'] },
	ignorePatterns: ['dist/**', 'node_modules/**', 'test/**', 'lib/**', '*.js'],
	overrides: [
		{ files: ['package.json'], plugins: ['eslint-plugin-n8n-nodes-base'], extends: ['plugin:n8n-nodes-base/community'] },
		{ files: ['./credentials/**/*.ts'], plugins: ['eslint-plugin-n8n-nodes-base'], extends: ['plugin:n8n-nodes-base/credentials'],
			rules: { 'n8n-nodes-base/cred-class-field-documentation-url-missing': 'off', 'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off' } },
		{ files: ['./nodes/**/*.ts'], plugins: ['eslint-plugin-n8n-nodes-base'], extends: ['plugin:n8n-nodes-base/nodes'],
			// These two predate n8n's typed NodeConnectionTypes constants, which n8n's own nodes now use.
			rules: { 'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off', 'n8n-nodes-base/node-class-description-outputs-wrong': 'off' } },
	],
};
