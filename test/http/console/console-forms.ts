// What the console's page tests share: a browser's way with an edit or delete form, which it sends from the page that
// showed it, carrying the revision (the ETag) that page was read at (src/http/console/console-revision.ts).
import type { FastifyInstance } from 'fastify';

/** The revision field of a page's first form that has one, unescaped; undefined when it has none. */
export const revisionIn = (body: string): string | undefined =>
  /name="revision" value="([^"]+)"/.exec(body)?.[1]?.replaceAll('&quot;', '"');

/** The page a form posting to `url` is on: /x/edit's is /x; every other form's (an edit, a delete confirmation) its own URL. */
const pageOf = (url: string): string => url.replace(/\/edit$/, '');

/** `{ revision }` of the page the form posting to `url` is on, or nothing when that page has none (a create, a button). */
export async function revisionFor(app: FastifyInstance, cookie: string, url: string): Promise<{ revision?: string }> {
  const page = await app.inject({ method: 'GET', url: pageOf(url), headers: { cookie: `sso_console=${cookie}` } });
  const revision = page.statusCode === 200 ? revisionIn(page.body) : undefined;
  return revision === undefined ? {} : { revision };
}

/**
 * A POST as a browser sends it from the form's page: the page is read first, and its revision, if it has one, goes
 * with the form (a `revision` in `form` wins, to send a stale or a forged one).
 */
export async function postFromPage(app: FastifyInstance, cookie: string, url: string, form: Record<string, string>) {
  return app.inject({
    method: 'POST',
    url,
    headers: { cookie: `sso_console=${cookie}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...(await revisionFor(app, cookie, url)), ...form }).toString(),
  });
}
