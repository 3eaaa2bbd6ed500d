// How TypeScript is turned into JavaScript, one file at a time (tsconfig.json's isolatedModules
// makes that faithful): ES2022, CommonJS, class fields defined as ES2022 does. The build
// (scripts/transpile.js) and the tests (jest.config.js) both use it; types are checked by
// `tsc --noEmit` in `npm test`.
module.exports = {
  jsc: {
    parser: { syntax: 'typescript' },
    target: 'es2022',
    transform: { useDefineForClassFields: true },
  },
  module: { type: 'commonjs' },
};
