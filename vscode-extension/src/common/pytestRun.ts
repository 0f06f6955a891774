/**
 * Running selected tests with pytest (and coverage.py) in a folder's interpreter: the command lines,
 * and the results read back from the extension's pytest plugin (python/miogen_testing_report.py).
 */

import { testKey } from "./testFiles";

export const REPORT_PLUGIN = "miogen_testing_report";
export const REPORT_ENV = "MIOGEN_TESTING_REPORT";

export type RunKind = "run" | "debug" | "coverage";

/** A selection under one file: the whole file, one class, or one test (class::function). */
export interface Selection {
  /** Path relative to the run's working folder, with forward slashes. */
  file: string;
  /** `TestX`, `test_y` or `TestX::test_y`; empty for the whole file. */
  key: string;
}

export function nodeId(selection: Selection): string {
  return selection.key ? `${selection.file}::${selection.key}` : selection.file;
}

/**
 * pytest's own arguments: our reporter, colours for the Test Results terminal, the user's options
 * (`python.testing.pytestArgs`, through `userPytestArgs`), the selected nodes.
 */
export function pytestArgs(selections: readonly Selection[], userArgs: readonly string[] = []): string[] {
  return ["-p", REPORT_PLUGIN, "--color=yes", "--continue-on-collection-errors", ...userArgs, ...selections.map(nodeId)];
}

/** pytest's (and common plugins') options whose value is the next argument, when not written `--opt=value`. */
const OPTIONS_WITH_VALUE = new Set([
  "-c", "-k", "-m", "-o", "-p", "-r", "-W", "-n",
  "--assert", "--basetemp", "--capture", "--code-highlight", "--color", "--confcutdir", "--config-file",
  "--cov", "--cov-config", "--cov-context", "--cov-fail-under", "--cov-report", "--deselect", "--dist",
  "--doctest-glob", "--doctest-report", "--durations", "--durations-min", "--ignore", "--ignore-glob",
  "--import-mode", "--junit-prefix", "--junit-xml", "--junitxml", "--log-cli-level", "--log-date-format",
  "--log-file", "--log-file-level", "--log-format", "--log-level", "--maxfail", "--numprocesses",
  "--override-ini", "--pastebin", "--pdbcls", "--result-log", "--rootdir", "--show-capture", "--tb",
  "--timeout", "--verbosity",
]); // prettier-ignore

/**
 * The user's `python.testing.pytestArgs` for a run of selected tests, as the Python extension
 * treats them for its own runs: the options are kept; the positional arguments (the files and
 * folders to collect) are left out, as the run names its tests itself. A coverage run also leaves
 * out pytest-cov's options: coverage.py measures that run already, and a second measurement
 * inside it would take over the tracer.
 */
export function userPytestArgs(setting: unknown, kind: RunKind): string[] {
  if (!Array.isArray(setting)) return [];
  const args = setting.filter((arg): arg is string => typeof arg === "string" && arg.trim() !== "");
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith("-")) continue; // a path to collect
    const takesNext = OPTIONS_WITH_VALUE.has(arg) && i + 1 < args.length && !args[i + 1].startsWith("-");
    const option = takesNext ? [arg, args[++i]] : [arg];
    if (kind === "coverage" && /^--(no-)?cov(-|=|$)/.test(arg)) continue;
    kept.push(...option);
  }
  return kept;
}

export interface CoverageFiles {
  /** coverage.py's data file, and the JSON report written from it. */
  dataFile: string;
  jsonFile: string;
  /** The workspace folder: only its files are measured. */
  folder: string;
  /** The test files run, left out of the report. */
  testFiles: readonly string[];
}

/** After the interpreter: the tests under `coverage run --branch`, measuring the folder's code only. */
export function coverageRunArgs(selections: readonly Selection[], files: CoverageFiles, userArgs: readonly string[] = []): string[] {
  return [
    "-m", "coverage", "run", "--branch", `--data-file=${files.dataFile}`, ...scope(files),
    "-m", "pytest", ...pytestArgs(selections, userArgs),
  ]; // prettier-ignore
}

/** After the interpreter: the JSON report of that run. */
export function coverageJsonArgs(files: CoverageFiles): string[] {
  return ["-m", "coverage", "json", "-q", `--data-file=${files.dataFile}`, "-o", files.jsonFile, ...scope(files)];
}

function scope(files: CoverageFiles): string[] {
  const folder = files.folder.replace(/[\\/]+$/, "");
  const omit = [...files.testFiles, "*/site-packages/*", `${folder}/.venv/*`, `${folder}/venv/*`];
  return [`--include=${folder}/*`, `--omit=${omit.join(",")}`];
}

/**
 * The interpreter's arguments for a run; `userArgs` are `userPytestArgs(python.testing.pytestArgs, kind)`.
 */
export function runArgs(kind: RunKind, selections: readonly Selection[], files?: CoverageFiles, userArgs: readonly string[] = []): string[] {
  if (kind === "coverage") {
    if (!files) throw new Error("a coverage run needs its files");
    return coverageRunArgs(selections, files, userArgs);
  }
  return ["-m", "pytest", ...pytestArgs(selections, userArgs)];
}

export type Outcome = "passed" | "failed" | "skipped" | "error";

export interface Failure {
  path: string;
  /** 1-based, as pytest reports it. */
  line: number;
  message: string;
}

/** One test's result (parametrized cases of one function are folded into one). */
export interface TestResult {
  /** Absolute path of the test file. */
  file: string;
  /** `TestX::test_y`, the key of its item. */
  key: string;
  outcome: Outcome;
  durationMs: number;
  /** Failure texts, one per failed case (prefixed by the case's id when parametrized). */
  messages: string[];
  location?: Failure;
}

export interface CollectionError {
  file: string;
  text: string;
}

export interface ParsedReport {
  results: TestResult[];
  collectionErrors: CollectionError[];
}

const RANK: Record<Outcome, number> = { skipped: 0, passed: 1, failed: 2, error: 3 };

/** Reads the plugin's JSON lines; unreadable lines are skipped (a test that printed into the file, say). */
export function parseReport(jsonLines: string): ParsedReport {
  const byKey = new Map<string, TestResult>();
  const collectionErrors: CollectionError[] = [];
  for (const line of jsonLines.split("\n")) {
    const entry = parseLine(line);
    if (!entry || typeof entry.file !== "string") continue;
    if (entry.kind === "collect") {
      collectionErrors.push({ file: entry.file, text: String(entry.text ?? "") });
      continue;
    }
    if (entry.kind !== "test" || !Array.isArray(entry.names)) continue;
    const names = entry.names.map(String);
    const key = testKey(names);
    const outcome = (["passed", "failed", "skipped", "error"] as const).find((o) => o === entry.outcome) ?? "error";
    const id = `${entry.file}::${key}`;
    const previous = byKey.get(id);
    const result: TestResult = previous ?? { file: entry.file, key, outcome, durationMs: 0, messages: [] };
    if (RANK[outcome] > RANK[result.outcome] || (result.outcome === "skipped" && outcome !== "skipped")) result.outcome = outcome;
    result.durationMs += typeof entry.duration === "number" ? entry.duration * 1000 : 0;
    const text = String(entry.text ?? "").trim();
    if (outcome === "failed" || outcome === "error" || (outcome === "skipped" && text)) {
      const caseId = /\[.*\]$/s.exec(names[names.length - 1] ?? "")?.[0];
      result.messages.push(caseId ? `${caseId}\n${text}` : text);
      const crash = entry.crash as Failure | null | undefined;
      if (crash && !result.location && outcome !== "skipped") result.location = crash;
    }
    byKey.set(id, result);
  }
  return { results: [...byKey.values()], collectionErrors };
}

function parseLine(line: string): Record<string, unknown> | undefined {
  if (!line.trim()) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The debug configuration that runs the selected tests under the Python debugger (debugpy). */
export function debugConfiguration(
  type: "debugpy" | "python",
  options: {
    python: string;
    cwd: string;
    selections: readonly Selection[];
    env: Record<string, string>;
    runId: string;
    userArgs?: readonly string[];
  },
): Record<string, unknown> {
  return {
    type,
    request: "launch",
    name: `miogen: debug generated tests (${options.runId})`,
    module: "pytest",
    args: pytestArgs(options.selections, options.userArgs).filter((arg) => arg !== "--color=yes"),
    cwd: options.cwd,
    env: options.env,
    python: options.python,
    justMyCode: false,
    console: "internalConsole",
    purpose: ["debug-test"],
    miogenRunId: options.runId,
  };
}

export type TestingViewSetting = "auto" | "on" | "off";

/**
 * Whether miogen's controller lists a folder's generated tests. "auto" leaves them to the Python
 * extension when its pytest discovery is on for the folder: it lists the same files (they are pytest
 * tests), so listing them here too would show each test twice.
 */
export function listsGeneratedTests(
  setting: TestingViewSetting,
  python: { installed: boolean; pytestEnabled: boolean },
): boolean {
  if (setting !== "auto") return setting === "on";
  return !(python.installed && python.pytestEnabled);
}
