// CPU spent during measured windows: by the server process, by PostgreSQL (every process named postgres,
// when the server uses one) and by this load generator, which shares the machine with both.
import { cpuBetween, cpuByName, cpuSeconds } from './proc-stats.js';

export interface CpuWindow {
  wallS: number;
  serverCpuS: number;
  /** null on the embedded database, whose work is inside the server process. */
  dbCpuS: number | null;
  loadGeneratorCpuS: number;
}

interface Mark {
  at: bigint;
  server: number | null;
  db: Map<number, number> | null;
  self: NodeJS.CpuUsage;
}

export class CpuMeter {
  constructor(
    /** The server process, or each of several instances (--instances). */
    private readonly serverPid: number | readonly number[],
    private readonly watchPostgres: boolean,
  ) {}

  emptyWindow(): CpuWindow {
    return { wallS: 0, serverCpuS: 0, dbCpuS: this.watchPostgres ? 0 : null, loadGeneratorCpuS: 0 };
  }

  begin(): Mark {
    return {
      at: process.hrtime.bigint(),
      server: cpuSeconds(this.serverPid),
      db: this.watchPostgres ? cpuByName('postgres') : null,
      self: process.cpuUsage(),
    };
  }

  /** Adds the time since `mark` to `window` (windows add up: the token scenario measures in batches). */
  end(mark: Mark, window: CpuWindow): void {
    const server = cpuSeconds(this.serverPid);
    const self = process.cpuUsage(mark.self);
    window.wallS += Number(process.hrtime.bigint() - mark.at) / 1e9;
    if (server === null || mark.server === null) throw new Error(`the server process ${this.serverPid} is gone`);
    window.serverCpuS += server - mark.server;
    if (mark.db && window.dbCpuS !== null) window.dbCpuS += cpuBetween(mark.db, cpuByName('postgres'));
    window.loadGeneratorCpuS += (self.user + self.system) / 1e6;
  }
}
