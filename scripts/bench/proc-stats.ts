// Readings from Linux's /proc: CPU time of a process and of every PostgreSQL process, and resident memory.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

function clockTicks(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}
const CLK_TCK = clockTicks();

/** proc(5) stat: comm is field 2 in parentheses (it may hold spaces); ppid is field 4; utime and stime 14 and 15. */
function parseStat(text: string): { comm: string; ppid: number; cpuS: number } {
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ');
  return {
    comm: text.slice(text.indexOf('(') + 1, close),
    ppid: Number(fields[1]),
    cpuS: (Number(fields[11]) + Number(fields[12])) / CLK_TCK,
  };
}

/** The live children of `pid` (the workers of a server started with WORKERS > 1). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (parseStat(fs.readFileSync(`/proc/${entry}/stat`, 'utf8')).ppid === pid) out.push(Number(entry));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** User + system CPU seconds of `pid` and its children (the workers, if any), or null when it is gone. */
export function cpuSeconds(pids: number | readonly number[]): number | null {
  if (typeof pids !== 'number') {
    // Several instances (--instances): their sum, or null when any is gone.
    let sum = 0;
    for (const pid of pids) {
      const one = cpuSeconds(pid);
      if (one === null) return null;
      sum += one;
    }
    return sum;
  }
  const pid = pids;
  try {
    let total = parseStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuS;
    for (const child of childPids(pid)) {
      try {
        total += parseStat(fs.readFileSync(`/proc/${child}/stat`, 'utf8')).cpuS;
      } catch {
        // exited while we looked
      }
    }
    return total;
  } catch {
    return null;
  }
}

/** CPU seconds of every live process called `comm` (postgres: the postmaster, backends, background workers). */
export function cpuByName(comm: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = parseStat(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (stat.comm === comm) out.set(Number(entry), stat.cpuS);
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** CPU used between two cpuByName readings: a process that started in between counts in full; one that ended is lost. */
export function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of after) total += Math.max(0, cpu - (before.get(pid) ?? 0));
  return total;
}

export interface Memory {
  rssKiB: number | null;
  /** VmHWM: the peak resident set since the process started, or since resetPeakRss. */
  peakKiB: number | null;
}

/** The memory of `pid` (or of each of several instances) plus that of its children (the workers, if any). */
export function memory(pids: number | readonly number[]): Memory {
  const list = typeof pids === 'number' ? [pids] : pids;
  const own = processMemory(list[0]!);
  for (const child of [...list.slice(1), ...list.flatMap((pid) => childPids(pid))]) {
    const m = processMemory(child);
    if (own.rssKiB !== null && m.rssKiB !== null) own.rssKiB += m.rssKiB;
    if (own.peakKiB !== null && m.peakKiB !== null) own.peakKiB += m.peakKiB;
  }
  return own;
}

function processMemory(pid: number): Memory {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) : null;
    };
    return { rssKiB: field('VmRSS'), peakKiB: field('VmHWM') };
  } catch {
    return { rssKiB: null, peakKiB: null };
  }
}

/** proc(5) clear_refs: writing 5 resets VmHWM to the current RSS. False when not allowed (older kernels). */
export function resetPeakRss(pids: number | readonly number[]): boolean {
  const list = typeof pids === 'number' ? [pids] : pids;
  try {
    for (const p of [...list, ...list.flatMap((pid) => childPids(pid))]) fs.writeFileSync(`/proc/${p}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}
