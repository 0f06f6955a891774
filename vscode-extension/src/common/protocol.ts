/** TypeScript shapes of the miogen-specific messages in docs/lsp-protocol.md (0-based lines, camelCase keys). */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export type UnitKind = "class" | "function";

/** One item of the `miogen/units` answer. */
export interface UnitInfo {
  name: string;
  kind: UnitKind;
  range: Range;
}

export type UnitState = "none" | "queued" | "running" | "done" | "stale" | "failed";

export interface CoverageUnit extends UnitInfo {
  covered: number;
  total: number;
  state: UnitState;
}

export interface MissingBranch {
  line: number;
  description: string;
  closestMiss?: string | null;
}

/** `miogen/coverage` notification. Lines of `stale` units are left out of `lines`. */
export interface CoverageParams {
  uri: string;
  version?: number | null;
  lines: { covered: number[]; partial: number[]; uncovered: number[] };
  missing: MissingBranch[];
  units: CoverageUnit[];
}

export type JobState = "queued" | "running" | "done" | "cancelled" | "failed";

/** `miogen/jobStatus` notification. */
export interface JobStatusParams {
  uri: string;
  unit: string;
  state: JobState;
  percent?: number;
  covered?: number;
  total?: number;
  message?: string;
}

/** Argument of the server commands `miogen.generateTests`, `miogen.insertTests` and `miogen.cancel`. */
export interface UnitRef {
  uri: string;
  unit: string;
}

/** Result of `miogen.generateTests` / `miogen.insertTests`. */
export interface GenerateResult {
  uri: string;
  unit: string;
  tests: number;
  covered: number;
  total: number;
  testFile: string;
  testUri: string;
  applied: boolean;
  /** Why nothing was applied ("already inserted", "no generated tests yet", a failed job's summary). */
  message?: string;
}

/** Argument of the server command `miogen.generateTestsForPaths`: files and folders of one workspace folder. */
export interface PathsRef {
  uris: string[];
}

/** Result of `miogen.generateTestsForPaths`: the `miogen ctg` run's report, in short. */
export interface PathsResult {
  uris: string[];
  /** URIs of the test files written. */
  written: string[];
  /** Classes and functions found, and those that got a search. */
  units: number;
  ran: number;
  /** Tests added to the files. */
  tests: number;
  /** Branches covered (coverage.py) over those of the units. */
  covered: number;
  total: number;
  warnings: string[];
  /** `miogen ctg`'s exit status. */
  exitCode: number;
  cancelled: boolean;
  message: string;
}
