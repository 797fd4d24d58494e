import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import communityNodes from '@n8n/eslint-plugin-community-nodes';

// The rule sets n8n's community-package scanner applies, on the files it scans, and what `n8n-node lint` adds.
export default [
	{ ignores: ['dist/**', 'coverage/**', '.artifacts/**', '.n8n-e2e/**'] },
	{ files: ['**/*.ts', 'package.json'], languageOptions: { parser: tsParser } },
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{ files: ['package.json'], rules: n8nNodesBase.configs.community.rules },
	{
		files: ['credentials/**/*.ts'],
		// n8n's own community lint config turns this one off: community credentials link to a full URL.
		rules: { ...n8nNodesBase.configs.credentials.rules, 'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off' },
	},
	{
		files: ['nodes/**/*.ts'],
		// These two want literal 'main' connections, which @n8n/community-nodes forbids; n8n's own
		// community lint config turns them off in favour of NodeConnectionTypes.
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
		},
	},
	{ files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'], ...communityNodes.configs.recommended },
	// ESLint's recommended rules that n8n's own `n8n-node lint` found broken here, kept so that it stays passing.
	{ files: ['nodes/**/*.ts', 'credentials/**/*.ts'], rules: { 'no-control-regex': 'error' } },
];
