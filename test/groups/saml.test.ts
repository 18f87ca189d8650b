// The test files of test/e2e/saml/ in one process (test/helpers/test-group.ts): SAML end to end against real SAML
// software run as child processes (Apache with mod_auth_mellon, SimpleSAMLphp: test/helpers/saml/).
import { runTestFiles, share, testFiles } from '../helpers/test-group.js';

await runTestFiles(share(testFiles('e2e/saml'), 1, 1));
