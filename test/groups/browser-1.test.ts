// The test files of share 1 of 3 of test/e2e/browser/ in one process (test/helpers/test-group.ts): pages driven in
// Chromium, one browser launched for the process (test/helpers/chromium.ts) and a context of its own for each test.
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('e2e/browser'), 1, 3));
