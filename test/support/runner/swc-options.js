'use strict';
// How the project's TypeScript is compiled for the tests: jest's transform (the global setup and teardown)
// and the runner's require (everything else) take these.
module.exports = { jsc: { target: 'es2022' }, module: { type: 'commonjs', ignoreDynamic: true } };
