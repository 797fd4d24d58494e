/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/dev'],
	testMatch: ['**/*.test.ts'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.check.json' }],
	},
	testTimeout: 30000,
	// A worker per core: jest's default leaves one idle for itself, and on two cores that runs the files one by one.
	maxWorkers: '100%',
};
