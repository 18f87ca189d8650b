// An error tied to its form field (WCAG 2.1 3.3.1 Error Identification, 1.3.1 Info and Relationships): the field is
// marked aria-invalid and names, in aria-describedby, its hint and the message shown under it.
import { html, type SafeHtml } from '../../../html.js';

export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/** A form's error (one field's) or errors (a sign-up's, several fields at once). */
export type FieldErrors = FieldError | readonly FieldError[] | undefined;

/** What `field` gets: its extra attributes and the message under it (both empty of an error when none is its own). */
export function fieldError(errors: FieldErrors, field: string, hint?: string): { attrs: SafeHtml; message: SafeHtml | '' } {
  const own = (Array.isArray(errors) ? errors : [errors]).find((e: FieldError | undefined) => e?.field === field);
  const ids = [hint, own ? `${field}-error` : undefined].filter(Boolean).join(' ');
  return {
    attrs: html`${ids ? html` aria-describedby="${ids}"` : ''}${own ? html` aria-invalid="true"` : ''}`,
    message: own ? html`<p class="field-error" id="${field}-error">${own.message}</p>` : '',
  };
}

export interface NewPasswordFieldsInput {
  /** The labels of the two fields ("New password", "Repeat it"). */
  label: string;
  repeatLabel: string;
  /** The hint under the first label, which the field names in aria-describedby. */
  hint: string;
  minLength: number;
  error?: FieldErrors;
  autofocus?: boolean;
}

/**
 * A new password typed twice, for password managers (autocomplete="new-password") and people alike: the policy's
 * hint tied to the first field, each field's error under it. The sign-up, reset and change pages use it.
 */
export function newPasswordFields(input: NewPasswordFieldsInput): SafeHtml {
  const password = fieldError(input.error, 'password', 'password-hint');
  const repeat = fieldError(input.error, 'repeat');
  return html`<label for="password">${input.label}</label>
<p class="meta" id="password-hint">${input.hint}</p>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="${input.minLength}" required${input.autofocus ? html` autofocus` : ''}${password.attrs}>
${password.message}
<label for="repeat">${input.repeatLabel}</label>
<input type="password" id="repeat" name="repeat" autocomplete="new-password" required${repeat.attrs}>
${repeat.message}`;
}
