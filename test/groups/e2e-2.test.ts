// The test files of share 2 of 2 of test/e2e/in-process/ in one process (test/helpers/test-group.ts): end-to-end
// tests that drive a listening server in this process with a real client library, and start no browser or child.
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('e2e/in-process'), 2, 2));
