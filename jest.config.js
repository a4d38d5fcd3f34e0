/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	// jest's node environment that also fails a test file for servers, sockets, processes or timers it
	// left open (each keeps a worker alive at the end of the run): test/support/leakCheckEnvironment.js.
	testEnvironment: '<rootDir>/test/support/leakCheckEnvironment.js',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 60000,
	// Integration tests spawn servers; two workers keep a 2-core machine responsive.
	maxWorkers: 2,
};
