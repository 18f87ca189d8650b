// The one way a page's handler turns an expected refusal (an error that names what the page says) into a 400 error
// page in the reader's language; anything else goes on to the pages' error handler.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MessageKey } from '../../i18n/catalog.js';
import { PAGE_HEADERS, type PageText } from '../views/layout.js';
import { errorPage } from '../views/pages.js';

/** A refusal a page shows: `key` is the sentence, in the reader's language. */
export interface PageRefusal {
  readonly key: MessageKey;
}

export interface PageErrors<B extends FastifyRequest> {
  /** Which thrown values are the page's own refusals (one error class per flow). */
  isRefusal: (err: unknown) => err is PageRefusal;
  /** The language of the error page, which may depend on the request's flow. */
  language: (request: B) => PageText | Promise<PageText>;
}

/** Wraps a handler so that a refusal of its flow is answered with the error page, status 400. */
export function pageErrors<B extends FastifyRequest>(errors: PageErrors<B>) {
  return <R extends B>(handler: (request: R, reply: FastifyReply) => Promise<unknown>) =>
    async (request: R, reply: FastifyReply): Promise<unknown> => {
      try {
        return await handler(request, reply);
      } catch (err) {
        if (!errors.isRefusal(err)) throw err;
        const t = await errors.language(request);
        return reply
          .code(400)
          .headers(PAGE_HEADERS)
          .send(errorPage(t, t(err.key)));
      }
    };
}
