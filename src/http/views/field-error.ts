// An error tied to its form field (WCAG 2.1 3.3.1 Error Identification, 1.3.1 Info and Relationships): the field is
// marked aria-invalid and names, in aria-describedby, its hint and the message shown under it.
import { html, type SafeHtml } from '../../html.js';

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** What `field` gets: its extra attributes and the message under it (both empty of an error when it is not its own). */
export function fieldError(error: FieldError | undefined, field: string, hint?: string): { attrs: SafeHtml; message: SafeHtml | '' } {
  const own = error?.field === field ? error : undefined;
  const ids = [hint, own ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return {
    attrs: html`${ids ? html` aria-describedby="${ids}"` : ''}${own ? html` aria-invalid="true"` : ''}`,
    message: own ? html`<p class="field-error" id="${field}-error">${own.message}</p>` : '',
  };
}
