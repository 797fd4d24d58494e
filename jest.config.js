const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/dev'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.check.json' }],
	},
	// A guard against a test that never ends: on two cores busy with other work a test can take several times its usual time.
	testTimeout: 150000,
	// n8n's Form nodes sanitize HTML with sanitize-html, whose htmlparser2 12 is ESM only: Node.js requires it, jest's
	// module system cannot. htmlparser2 10, installed beside it, has a CommonJS build with the same API.
	moduleNameMapper: { '^htmlparser2$': '<rootDir>/node_modules/htmlparser2/dist/commonjs/index.js' },
	// A worker more than cores: several files spend their time waiting on a slow deployment's scaled-down seconds
	// or an outage with the CPU idle, and jest's default (one worker less than cores) runs two-core machines one by one.
	maxWorkers: availableParallelism() + 1,
};
