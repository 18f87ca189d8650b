// The test files of test/unit/ in one process (test/helpers/test-group.ts).
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('unit'), 1, 1));
