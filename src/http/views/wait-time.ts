// "5 minutes", "2 hours": how long a person must wait before trying again, rounded up to a unit they can use.

export function waitTime(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 120) return plural(s, 'second');
  const minutes = Math.ceil(s / 60);
  if (minutes < 120) return plural(minutes, 'minute');
  return plural(Math.ceil(minutes / 60), 'hour');
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
