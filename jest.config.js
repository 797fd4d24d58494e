const { availableParallelism } = require('node:os');

/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/dev'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.check.json' }],
	},
	testTimeout: 30000,
	// A worker more than cores: several files spend their time waiting on a slow deployment's scaled-down seconds
	// or an outage with the CPU idle, and jest's default (one worker less than cores) runs two-core machines one by one.
	maxWorkers: availableParallelism() + 1,
};
