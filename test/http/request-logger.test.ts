// request.log made on a request's first line (src/http/request-logger.ts): the same pino child Fastify would make,
// bound to the request's id, redacting as the app's logger does; none made for a request that writes nothing.
import Fastify from 'fastify';
import pino from 'pino';
import t, { type Test } from 'tap';
import { loggerOptions } from '../../src/logger.js';
import { requestLogger } from '../../src/http/request-logger.js';

function capturingApp(t: Test) {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void lines.push(JSON.parse(line)) });
  let made = 0;
  const child = logger.child;
  // Counts the children bound to a request id (the request's own logger), whoever's child they are.
  logger.child = function (this: typeof logger, bindings, options) {
    if ('reqId' in bindings) made += 1;
    return child.call(this, bindings, options);
  } as typeof logger.child;
  const app = Fastify({ loggerInstance: logger, childLoggerFactory: requestLogger, disableRequestLogging: true });
  t.teardown(() => app.close());
  // Fastify makes children of its own while it starts; only those made while serving count.
  const serve = async (url: string) => {
    await app.ready();
    made = 0;
    return app.inject({ method: 'GET', url });
  };
  return { app, lines, serve, made: () => made };
}

t.test('a request that writes no line makes no child logger', async (t) => {
  const { app, lines, serve, made } = capturingApp(t);
  app.get('/quiet', async () => ({ ok: true }));
  const res = await serve('/quiet');
  t.equal(res.statusCode, 200);
  t.equal(made(), 0, 'no child made');
  t.same(lines, []);
});

t.test("a request's lines carry its id, at the levels asked, redacted as the app's logger redacts", async (t) => {
  const { app, lines, serve, made } = capturingApp(t);
  app.get('/loud', async (request) => {
    request.log.info({ step: 1 }, 'first');
    request.log.warn({ body: { password: 'hunter2-secret' } }, 'second');
    request.log.debug('below the level');
    request.log.child({ part: 'inner' }).error('third');
    t.equal(request.log.level, 'info', 'the level is the parent logger level');
    return { ok: true };
  });
  const res = await serve('/loud');
  t.equal(res.statusCode, 200);
  t.equal(made(), 1, 'one child for the request, made on its first line');
  t.same(
    lines.map((l) => [l.level, l.msg]),
    [
      [30, 'first'],
      [40, 'second'],
      [50, 'third'],
    ],
  );
  const reqIds = new Set(lines.map((l) => l.reqId));
  t.equal(reqIds.size, 1, 'every line has the same request id');
  t.match([...reqIds][0], /^req-/);
  t.equal(lines[0]!.step, 1);
  t.same(lines[1]!.body, { password: '[redacted]' }, 'the redaction of src/logger.ts still applies');
  t.equal(lines[2]!.part, 'inner', "a child of the request's logger keeps both bindings");
  t.notMatch(JSON.stringify(lines), /hunter2-secret/);
});
