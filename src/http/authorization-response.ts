// Sends an authorization response the way the request asked: a 303 redirect with the parameters in the
// query (RFC 6749 4.1.2), or the form_post page (OAuth 2.0 Form Post Response Mode 2); a withheld error
// (RFC 9700 4.11.2, domain/authorization/authorization-response.ts) on a page the person may go on from, or not.
import type { FastifyReply } from 'fastify';
import type { AuthorizationResponse } from '../domain/authorization/authorization-response.js';
import { withResponseParams } from '../domain/authorization/redirect-uri.js';
import { seeOther } from './redirect.js';
import { FORM_POST_HEADERS, formPostPage } from './views/form-post.js';
import { PAGE_HEADERS, type PageText } from './views/layout.js';
import { withheldErrorPage } from './views/pages.js';

/** `t`: the language of the page, when the response is one (form_post, a withheld error). */
export function sendAuthorizationResponse(reply: FastifyReply, t: PageText, response: AuthorizationResponse): FastifyReply {
  if (response.withheldFor !== undefined) {
    return reply
      .code(400)
      .headers(PAGE_HEADERS)
      .send(withheldErrorPage(t, { clientName: response.withheldFor, response }));
  }
  if (response.mode === 'form_post') {
    // "Authorization Response parameters are encoded as HTML form values that are auto-submitted in the User
    // Agent, and thus are transmitted via the HTTP POST method to the Client".
    return reply
      .code(200)
      .headers(FORM_POST_HEADERS)
      .send(formPostPage(t, { action: response.redirectUri, params: response.params }));
  }
  return seeOther(reply, withResponseParams(response.redirectUri, response.params));
}
