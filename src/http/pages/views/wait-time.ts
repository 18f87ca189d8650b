// "5 minutes", "2 hours": how long a person must wait before trying again, rounded up to a unit they can use.
import type { Translate } from '../../../i18n/translate.js';

export function waitTime(t: Translate, seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 120) return t.plural('wait.seconds', s);
  const minutes = Math.ceil(s / 60);
  if (minutes < 120) return t.plural('wait.minutes', minutes);
  return t.plural('wait.hours', Math.ceil(minutes / 60));
}
