// Reading the console's forms, and the answer to an admin action refused on its merits (the domain's AdminError).
import type { FastifyReply } from 'fastify';
import { AdminError, type AdminErrorKind } from '../../domain/admin-error.js';
import { single, type RawParams } from '../../domain/params.js';
import type { ConsolePerson } from '../../domain/console/console-sessions.js';
import { forbiddenBody } from './views/pages.js';
import { sendPage, textOf } from './console-http.js';
import { StaleForm } from './console-revision.js';
import type { MessageKey } from '../../i18n/catalog.js';
import type { Translate } from '../../i18n/translate.js';

export const STATUS_OF: Record<AdminErrorKind, number> = { invalid: 400, forbidden: 403, not_found: 404, conflict: 409 };

/** What a page says after a change (`?done=`): one of a fixed list, so nothing from the URL is shown. */
export function noticeOf(t: Translate, notices: Readonly<Record<string, MessageKey>>, done: string | undefined): string | undefined {
  return done !== undefined && Object.hasOwn(notices, done) ? t(notices[done]!) : undefined;
}

/** A field of a form, trimmed; '' when absent. */
export const field = (body: RawParams | undefined, name: string): string => (single(body ?? {}, name) ?? '').trim();

/** A textarea of one value per line, or a field of values separated by spaces: the values, blanks dropped. */
export const list = (value: string): string[] => value.split(/\s+/).filter((v) => v !== '');

/**
 * Runs an admin action; an AdminError is rendered by `refused` (the form again, saying why) with its status, and so
 * is a form made from a revision that is no longer the resource's (412) or from none (428). Anything else goes to
 * the app's error handler.
 */
export async function attempt<T>(
  action: () => Promise<T>,
  refused: (message: string, status: number) => FastifyReply | Promise<FastifyReply>,
): Promise<{ ok: true; value: T } | { ok: false; reply: FastifyReply }> {
  try {
    return { ok: true, value: await action() };
  } catch (err) {
    if (err instanceof AdminError) return { ok: false, reply: await refused(err.message, STATUS_OF[err.kind]) };
    if (err instanceof StaleForm) return { ok: false, reply: await refused(err.message, err.status) };
    throw err;
  }
}

/** A page of the console for a refusal with nothing else to show (nothing by that name, say). */
export function notFound(reply: FastifyReply, base: string, person: ConsolePerson, message: string, status = 404): FastifyReply {
  return sendPage(
    reply,
    base,
    {
      status,
      title: textOf(reply.request)(status === 404 ? 'console.notFound' : status === 412 ? 'console.stale.title' : 'console.refused'),
      section: '',
      body: forbiddenBody(message),
    },
    person,
  );
}
