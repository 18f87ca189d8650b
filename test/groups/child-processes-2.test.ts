// The test files of share 2 of 6 of test/e2e/process/ in one process (test/helpers/test-group.ts): the server, the
// scripts and the admin command line run as child processes, built once for the process (test/helpers/child-process.ts).
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('e2e/process'), 2, 6));
