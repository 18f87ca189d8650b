// The test files of share 1 of 3 of test/storage/ in one process (test/helpers/test-group.ts).
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('storage'), 1, 3));
