// Time comes from an injected clock so that tests can move it.
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}

export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
