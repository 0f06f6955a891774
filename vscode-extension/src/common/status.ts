/** Status-bar text, job tracking and the summary shown after "Generate tests for class". */

import type { CoverageSummary } from "./coverage";
import type { GenerateResult, JobStatusParams } from "./protocol";

const ACTIVE_STATES = new Set(["queued", "running"]);

/**
 * The jobs the server reports through `miogen/jobStatus`, keyed by file and unit. A job that another
 * indicator shows (the notification of "Generate tests for class") is left out of `active()`: one
 * indicator per job.
 */
export class JobTracker {
  private readonly jobs = new Map<string, JobStatusParams>();
  private readonly elsewhere = new Map<string, number>();

  /** Leaves the job out of `active()` until the returned function is called. */
  showElsewhere(uri: string, unit: string): () => void {
    const key = `${uri}#${unit}`;
    this.elsewhere.set(key, (this.elsewhere.get(key) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const left = (this.elsewhere.get(key) ?? 1) - 1;
      if (left > 0) this.elsewhere.set(key, left);
      else this.elsewhere.delete(key);
    };
  }

  /** Returns true if the set of active jobs or their progress changed. */
  update(status: JobStatusParams): boolean {
    const key = `${status.uri}#${status.unit}`;
    if (ACTIVE_STATES.has(status.state)) {
      this.jobs.set(key, status);
      return true;
    }
    return this.jobs.delete(key);
  }

  active(): JobStatusParams[] {
    return [...this.jobs.entries()].filter(([key]) => !this.elsewhere.has(key)).map(([, job]) => job);
  }

  get(uri: string, unit: string): JobStatusParams | undefined {
    return this.jobs.get(`${uri}#${unit}`);
  }

  clear(): void {
    this.jobs.clear();
  }

  /** Forgets the jobs `matches` picks (those of a server that stopped). */
  clearWhere(matches: (job: JobStatusParams) => boolean): void {
    for (const [key, job] of this.jobs) if (matches(job)) this.jobs.delete(key);
  }
}

export type ServerState = "starting" | "running" | "stopped" | "failed";

/**
 * The client capabilities without work-done progress: the extension shows the server's jobs itself
 * (status bar, and the notification of "Generate tests for class"), so the server must not add its own
 * indicator (vscode-languageclient would put a third one in the status bar).
 */
export function withoutServerProgress<T extends { window?: { workDoneProgress?: boolean } }>(capabilities: T): T {
  capabilities.window = { ...capabilities.window, workDoneProgress: false };
  return capabilities;
}

export interface StatusInput {
  serverState: ServerState;
  /** Why the server is not running, when it failed. */
  problem?: string;
  /** Coverage of the active editor's file. */
  summary?: CoverageSummary;
  jobs: readonly JobStatusParams[];
}

export interface StatusContent {
  text: string;
  tooltip: string;
}

const CLICK = "Click to open the miogen log.";

export function statusBarContent(input: StatusInput): StatusContent {
  if (input.serverState === "failed") {
    return { text: "$(warning) miogen", tooltip: `${input.problem ?? "The miogen server is not running."}\n${CLICK}` };
  }
  const running = input.jobs.filter((job) => job.state === "running");
  if (input.jobs.length > 0) {
    const job = running[0] ?? input.jobs[0];
    const percent = job.state === "running" && typeof job.percent === "number" ? ` ${Math.round(job.percent)}%` : "";
    const more = input.jobs.length > 1 ? ` (+${input.jobs.length - 1})` : "";
    const lines = input.jobs.map((j) => `${j.unit}: ${j.state}${j.message ? ` — ${j.message}` : ""}`);
    return { text: `$(sync~spin) ${job.unit}${percent}${more}`, tooltip: `miogen jobs:\n${lines.join("\n")}\n${CLICK}` };
  }
  if (input.serverState === "starting") {
    return { text: "$(sync~spin) miogen", tooltip: `miogen: starting the server…\n${CLICK}` };
  }
  if (input.summary) {
    const { covered, total, units, stale } = input.summary;
    const staleNote = stale > 0 ? `${stale} ${plural(stale, "unit")} changed since the last result, not counted` : "";
    if (units === 0) {
      return { text: "$(beaker) stale", tooltip: `miogen: ${staleNote}; save to generate again.\n${CLICK}` };
    }
    return {
      text: `$(beaker) ${covered}/${total}${stale > 0 ? "*" : ""}`,
      tooltip: `miogen: generated tests cover ${covered} of ${total} branches in this file (${units} ${plural(units, "unit")}${staleNote ? `; ${staleNote}` : ""}).\n${CLICK}`,
    };
  }
  const stopped = input.serverState === "stopped" ? " (server stopped)" : "";
  return { text: "$(beaker) miogen", tooltip: `miogen: no generated tests for this file yet${stopped}.\n${CLICK}` };
}

/** "Stack: 12 tests, 16/16 branches → tests/test_shapes.py". */
export function summaryMessage(result: GenerateResult, testPath: string): string {
  if (!result.applied) {
    const why = result.message?.trim() || "the edit was not applied";
    return `miogen: no tests written for ${result.unit} to ${testPath}: ${why}.`;
  }
  return `miogen: ${result.unit}: ${result.tests} ${plural(result.tests, "test")}, ${result.covered}/${result.total} branches → ${testPath}`;
}

export function plural(n: number, word: string): string {
  return n === 1 ? word : `${word}s`;
}
