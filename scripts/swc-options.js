// How TypeScript is turned into JavaScript, one file at a time (tsconfig.json's isolatedModules
// makes that faithful): ES2022, CommonJS, legacy decorators with their design types for the
// MikroORM entities, class fields defined as ES2022 does. The build (scripts/transpile.js) and the
// tests (jest.config.js) both use it; types are checked by `tsc --noEmit` in `npm test`.
module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    target: 'es2022',
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: true },
  },
  module: { type: 'commonjs' },
};
