// The console's edit and delete forms under the management API's optimistic concurrency (src/http/etag.ts,
// RFC 9110 13.1.1 If-Match): each form carries the ETag of the resource as its page read it, the same value the API
// answers, and the change is refused with 412 when the resource changed meanwhile, instead of the last save winning.
import type { FastifyRequest } from 'fastify';
import { asOneChange, lockForChange, type AdminContext } from '../../domain/admin/admin.js';
import { single, type RawParams } from '../../domain/params.js';
import { translator, type Translate } from '../../i18n/translate.js';
import { etagOf, type IfMatchGuard } from '../etag.js';

/** The hidden field of a form that holds the revision (the ETag) it was read at. */
export const REVISION_FIELD = 'revision';

/** The revision of a resource as the API tags it: `tagged` is what its ETag covers. */
export const revisionOf = (tagged: unknown): string => etagOf(tagged);

/** The revision a form was sent with, and the language to refuse it in. */
export interface FormRevision {
  value: string;
  t: Translate;
}

/** The revision field of the request's form ('' when absent). */
export function formRevision(request: FastifyRequest): FormRevision {
  const value = (single((request.body ?? {}) as RawParams, REVISION_FIELD) ?? '').trim();
  return { value, t: request.consoleText ?? translator('en') };
}

/** A form whose revision is not the resource's as it is now (412), or that carried none (428, RFC 6585 3). */
export class StaleForm extends Error {
  constructor(
    readonly status: 412 | 428,
    t: Translate,
  ) {
    super(t(status === 412 ? 'console.stale.body' : 'console.noRevision.body'));
  }
}

/**
 * Refuses the change unless the form's revision is the current one. As RFC 9110 13.1.1 has it for If-Match, the
 * comparison is strong: the very same tag, or no change.
 */
export function checkRevision(presented: FormRevision, current: unknown): void {
  if (presented.value === '') throw new StaleForm(428, presented.t);
  if (presented.value !== revisionOf(current)) throw new StaleForm(412, presented.t);
}

/**
 * Runs `change` in one transaction after the form's revision has been compared with the resource as read with its
 * row locked (SELECT … FOR UPDATE), as the API's changeIfMatch does: nothing slips in between the check and the change.
 */
export function changeIfRevision<R, T>(
  ctx: AdminContext,
  guard: IfMatchGuard<R>,
  presented: FormRevision,
  change: (tctx: AdminContext, current: R) => Promise<T>,
): Promise<T> {
  return asOneChange(ctx, async (tctx) => {
    await lockForChange(tctx, guard.lock(await guard.read(tctx)));
    const current = await guard.read(tctx);
    checkRevision(presented, guard.tagged(current));
    return change(tctx, current);
  });
}
