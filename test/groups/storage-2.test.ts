// The test files of share 2 of 3 of test/storage/ in one process (test/helpers/test-group.ts).
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('storage'), 2, 3));
