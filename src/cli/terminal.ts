// The command line's conversation with a person at a terminal: yes/no questions and passwords typed without
// echo, both on stderr so that stdout keeps only the result; and standard input read whole, for scripts.
import readline from 'node:readline';
import { AdminError } from '../domain/admin-error.js';

/** The person at the terminal said no (or interrupted): nothing was changed. */
export class NotConfirmed extends AdminError {}

export interface Terminal {
  /** Standard input is a terminal: a person can answer questions. */
  readonly interactive: boolean;
  /** Resolves on yes; throws NotConfirmed on anything else. */
  ask(question: string): Promise<void>;
  /** A line typed without echo. */
  readHidden(prompt: string): Promise<string>;
  /** Standard input up to its end. */
  readAll(): Promise<string>;
}

export function processTerminal(stdin: NodeJS.ReadStream = process.stdin, stderr: NodeJS.WriteStream = process.stderr): Terminal {
  return {
    interactive: stdin.isTTY === true,

    async ask(question) {
      const rl = readline.createInterface({ input: stdin, output: stderr, terminal: true });
      const answer = await new Promise<string | null>((resolve) => {
        rl.once('close', () => resolve(null));
        rl.question(`${question} [y/N] `, resolve);
      });
      rl.close();
      if (answer === null || !/^y(es)?$/i.test(answer.trim())) throw new NotConfirmed('not confirmed: nothing was changed');
    },

    readHidden(prompt) {
      // Echo off before the prompt shows, so that nothing typed after it is ever echoed.
      stdin.setRawMode(true);
      stderr.write(prompt);
      stdin.setEncoding('utf8');
      stdin.resume();
      return new Promise<string>((resolve, reject) => {
        let typed = '';
        const finish = (error?: Error) => {
          stdin.off('data', onData);
          stdin.setRawMode(false);
          stdin.pause();
          stderr.write('\n');
          if (error) reject(error);
          else resolve(typed);
        };
        const onData = (chunk: string) => {
          for (const ch of chunk) {
            if (ch === '\r' || ch === '\n') return finish();
            if (ch === '\u0003' || ch === '\u0004') return finish(new NotConfirmed('interrupted: nothing was changed'));
            if (ch === '\u007f' || ch === '\b') typed = [...typed].slice(0, -1).join('');
            else typed += ch;
          }
        };
        stdin.on('data', onData);
      });
    },

    async readAll() {
      stdin.setEncoding('utf8');
      let text = '';
      for await (const chunk of stdin) text += chunk as string;
      return text;
    },
  };
}
