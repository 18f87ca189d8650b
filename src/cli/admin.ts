#!/usr/bin/env node
// sso-admin (npm run admin --): the provider's admin command line, wired to this process's stdin, stdout, stderr,
// configuration and database. The grammar, help and exit codes are in command.ts; the nouns and verbs in nouns/.
// While a server runs on the embedded database (which one process opens at a time), the command line is sent to
// that server over its local socket and runs there (remote.ts), with the same output.
import { createLogger, loadRuntimeConfig, openMigratedDatabase } from '../runtime.js';
import { actor, adminContext, runAdmin } from './command.js';
import { NOUNS } from './nouns/index.js';
import { stdoutOutput } from './output.js';
import { connectToRunningServer, runRemote } from './remote.js';
import { processTerminal } from './terminal.js';

const server = await connectToRunningServer();
process.exitCode = server
  ? await runRemote(server, process.argv.slice(2), actor(), processTerminal(), {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
    })
  : await runAdmin(NOUNS, process.argv.slice(2), {
      terminal: processTerminal(),
      out: stdoutOutput(),
      error: (line) => process.stderr.write(`${line}\n`),
      async open() {
        const config = loadRuntimeConfig();
        // The log goes to stderr, keeping stdout for the result; each action's line says who ran it.
        const logger = createLogger(config, 2).child({ actor: actor() });
        const database = await openMigratedDatabase(config, logger);
        return { config, logger, ctx: adminContext(config, logger, database.db), close: () => database.close() };
      },
    });
