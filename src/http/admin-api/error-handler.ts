// The management API's error handling: any thrown value, and an unknown path under /admin/api, answered as RFC 9457
// problem details (problem.ts chooses the problem; this sends it).
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { notFoundProblem, PROBLEM_CONTENT_TYPE, problemOf, type ProblemBody } from './problem.js';

function sendProblem(reply: FastifyReply, body: ProblemBody, headers: Record<string, string> = {}): FastifyReply {
  return reply.code(body.status).headers(headers).header('cache-control', 'no-store').type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}

/** Sets the API's error and not-found handlers on `app`, the plugin that holds the API's prefix. */
export function answerWithProblems(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const problem = problemOf(err);
    if (problem.unexpected) request.log.error({ err }, 'request failed');
    else request.refusal = { error: problem.body.code };
    return sendProblem(reply, problem.body, problem.headers);
  });
  app.setNotFoundHandler((_request, reply) => sendProblem(reply, notFoundProblem()));
}
