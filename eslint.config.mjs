// n8n's community-node lint, set up the way @n8n/node-cli's `eslint` export and n8n's verification
// scanner (@n8n/scan-community-package) set it up: @n8n/eslint-plugin-community-nodes' `recommended`
// rules plus eslint-plugin-n8n-nodes-base's community, credentials and nodes rule sets, with the
// same rules turned off as theirs. We use `recommended`, not `recommendedWithoutN8nCloudSupport`,
// because the scanner gates verification with `recommended`: what is clean here is clean there.
//
// Rules that cannot apply to this package are switched off below for the files they cannot apply
// to, each with its reason. The scanner ignores these (it lints with its own config and
// allowInlineConfig: false); scripts/scanner-allowed.json lists the same exceptions for it.
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import importX from 'eslint-plugin-import-x';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { defineConfig, globalIgnores } from 'eslint/config';

export default defineConfig(
	globalIgnores(['dist/**', 'node_modules/**', 'coverage/**', '.e2e-tmp/**']),

	// Everything below is linted with the TypeScript parser: the n8n rules walk a TSESTree AST,
	// and package.json parses as a top-level object literal.
	{
		files: ['**/*.ts', '**/*.json'],
		languageOptions: { parser: tsParser, parserOptions: { extraFileExtensions: ['.json'] } },
	},

	// The package's own structure, for lib/ as well as the n8n glue: no import cycles (they made the
	// twins issue 16 removed), and lib/ stays free of n8n at run time. import-x/no-cycle follows
	// runtime imports; test/unit/importCycles.test.ts also follows type-only ones.
	{
		files: ['lib/**/*.ts', 'nodes/**/*.ts', 'credentials/**/*.ts'],
		plugins: { 'import-x': importX },
		settings: { 'import-x/resolver': { node: { extensions: ['.ts', '.js'] } }, 'import-x/extensions': ['.ts'] },
		rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
	},
	{
		files: ['lib/**/*.ts'],
		rules: {
			// Type-only imports of n8n-workflow are fine (erased at build); a value import is not.
			'no-restricted-syntax': [
				'error',
				{
					selector: "ImportDeclaration[importKind='value'][source.value='n8n-workflow'] > :matches(ImportSpecifier[importKind='value'], ImportDefaultSpecifier, ImportNamespaceSpecifier)",
					message: 'lib/ is plain TypeScript: import n8n types only (import type); n8n values belong in nodes/ or credentials/.',
				},
				{ selector: "CallExpression[callee.name='require'][arguments.0.value='n8n-workflow']", message: 'lib/ must not load n8n-workflow at run time.' },
			],
			'no-restricted-imports': ['error', { patterns: [{ group: ['**/nodes/*', '**/credentials/*'], message: 'lib/ must not depend on the n8n glue.' }] }],
			'no-console': 'error',
		},
	},

	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		extends: [n8nCommunityNodesPlugin.configs.recommended],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: { 'no-console': 'error' },
	},
	{
		files: ['package.json'],
		rules: { ...n8nNodesBase.configs.community.rules },
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// As in @n8n/node-cli: community credentials link to their own docs, not n8n's.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			// As in @n8n/node-cli: community-nodes/credential-password-field checks this more precisely.
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// As in @n8n/node-cli: inputs and outputs are NodeConnectionTypes constants, not "main".
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			// As in @n8n/node-cli: a maxValue can be a real limit of the remote side.
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},

	// Exceptions for this package: each rule off only where it cannot apply, with the reason.
	{
		files: ['package.json'],
		rules: {
			// The package speaks MCP, the Anthropic and OpenAI APIs and validates JSON Schema at run
			// time: the MCP client SDK, both provider SDKs, ajv(-formats) and re2js are real runtime
			// dependencies (none has install scripts). That makes the package self-hosted only, not
			// eligible for n8n Cloud, as the README says.
			'@n8n/community-nodes/no-runtime-dependencies': 'off',
		},
	},
	{
		files: ['nodes/McpApproval/McpApproval.node.ts'],
		rules: {
			// MCP Approval is a wait node, not a trigger: its webhooks are n8n's own waiting webhooks
			// (restartWebhook: true, under /webhook-waiting/<execution id>), which n8n serves for each
			// paused execution. There is no third-party webhook to create, check or delete.
			'@n8n/community-nodes/webhook-lifecycle-complete': 'off',
		},
	},
	{
		files: ['nodes/McpStandingApprovals/McpStandingApprovals.node.ts'],
		rules: {
			// MCP Standing Approvals serves a page on n8n's own webhook URL, as n8n's Webhook and Form
			// Trigger nodes do; no third-party service holds a webhook to create, check or delete.
			'@n8n/community-nodes/webhook-lifecycle-complete': 'off',
		},
	},
	{
		files: ['nodes/shared/grantStore.ts'],
		rules: {
			// Standing approvals live in n8n's own database, through the connection n8n registers in
			// its DI container (resolved to n8n's own copies of @n8n/di and @n8n/typeorm): the node API
			// offers no shared store that is safe under concurrent writes (static data is rewritten
			// whole; Data Tables are limited to n8n's own nodes). See docs/human-review.md.
			'@n8n/community-nodes/no-restricted-imports': 'off',
		},
	},
	{
		files: ['credentials/McpServerHttpApi.credentials.ts'],
		rules: {
			// Custom Headers carry API keys (`Authorization: …`, `X-Api-Key: …`), so the field is secret.
			'@n8n/community-nodes/credential-unnecessary-password': 'off',
		},
	},
);
