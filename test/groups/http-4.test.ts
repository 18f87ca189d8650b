// The test files of share 4 of 6 of test/http/ in one process (test/helpers/test-group.ts).
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('http'), 4, 6));
