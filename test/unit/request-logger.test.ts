// request.log (src/http/request-logger.ts): every line carries the request id; nothing is built for a level that is off.
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import { requestLogger } from '../../src/http/request-logger.js';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  return { logger: pino({ level }, stream), lines };
}

t.test('the request id is on every line, whatever the call shape', async (t) => {
  const { logger, lines } = capture('info');
  const log = requestLogger(logger, { reqId: 'req-7' });
  log.info({ status: 200 }, 'request');
  log.warn('plain message');
  log.error(new Error('boom'));
  log.debug({ hidden: true }, 'below the level');
  t.equal(lines.length, 3);
  t.match(lines[0], { reqId: 'req-7', status: 200, msg: 'request' });
  t.match(lines[1], { reqId: 'req-7', msg: 'plain message' });
  t.match(lines[2], { reqId: 'req-7', err: { message: 'boom' } });
  const child = log.child({ step: 'x' });
  child.info('from a child');
  t.match(lines[3], { reqId: 'req-7', step: 'x', msg: 'from a child' });
  t.equal(log.level, 'info');
});
