// What to undo at the end, also after an error or Ctrl-C: run once, newest first, each step on its own.
export class Cleanup {
  private readonly steps: Array<{ name: string; undo: () => Promise<void> }> = [];
  private running: Promise<void> | undefined;

  add(name: string, undo: () => Promise<void>): void {
    this.steps.push({ name, undo });
  }

  run(): Promise<void> {
    this.running ??= (async () => {
      for (const { name, undo } of this.steps.reverse()) {
        try {
          await undo();
        } catch (err) {
          process.stderr.write(`cleanup: ${name} failed: ${(err as Error).message}\n`);
        }
      }
    })();
    return this.running;
  }
}
