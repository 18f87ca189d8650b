// The test files of share 3 of 3 of test/storage/ in one process (test/helpers/test-group.ts).
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('storage'), 3, 3));
