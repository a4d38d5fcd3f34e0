/** The PDF fixture of test/fixtures/minimal-pdf.js (the e2e suite uses the same file). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const { minimalPdf } = require('../fixtures/minimal-pdf.js') as { minimalPdf: () => Buffer };
