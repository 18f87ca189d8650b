// The bench starts the server the way `npm start` does: the start script's environment assignments and node
// flags are carried over, so that the bench measures the memory and speed settings production runs with.
import t from 'tap';
import { startCommand } from '../../scripts/bench/server-process.js';

t.test("package.json's start script caps malloc arenas and the young generation, and the bench reads both", async (t) => {
  const { env, args } = startCommand();
  t.equal(env.MALLOC_ARENA_MAX, '2');
  t.ok(args.includes('--max-semi-space-size=4'));
  t.equal(args.at(-1), 'dist/server.js');
});

t.test('assignments before node become the environment; words after it stay arguments', async (t) => {
  t.same(startCommand('A=1 B_2=x=y node --flag dist/server.js C=3'), {
    env: { A: '1', B_2: 'x=y' },
    args: ['--flag', 'dist/server.js', 'C=3'],
  });
  t.same(startCommand('node dist/server.js'), { env: {}, args: ['dist/server.js'] });
});

t.test('a start script that does not run node is refused', async (t) => {
  t.throws(() => startCommand('A=1 tsx src/server.ts'), /does not run node/);
});
