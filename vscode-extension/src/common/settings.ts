/** The extension's settings: defaults, validation, what reaches the server and what a change implies. */

import { DEFAULT_IMPORT_STRATEGY, IMPORT_STRATEGIES, ImportStrategy } from "./bundle";
import { DEFAULT_MARK_STYLE, MARK_STYLES, MarkStyle } from "./markStyle";
import type { TestingViewSetting } from "./pytestRun";

export type DiagnosticSeverityName = "error" | "warning" | "information" | "hint";
/** Whether the editor's settings or the project's `[tool.miogen]` win (ruff's `configurationPreference`). */
export type ConfigurationPreference = "editorFirst" | "filesystemFirst" | "editorOnly";
/** What a save generates: changed units then untested ones, changed units only, or nothing. */
export type SaveMode = "untested" | "changed" | "off";

/** The search algorithms the server knows (miogen.common.records.Algorithm). */
export type AlgorithmName = "mio" | "dynamosa" | "adynamosa" | "adynamosa-nonadaptive" | "wts" | "random" | "mio-nofds";

/**
 * Settings the server reads (initializationOptions, workspace/configuration `miogen`, didChangeConfiguration);
 * the server's own list is `miogen.host.config.KEYS` (tests/lsp/test_settings_manifest.py keeps package.json equal to it).
 */
export interface ServerSettings {
  /** Deprecated for `generateOnSave`; `false` still means nothing on save (the server maps it: `Settings.save_mode`). */
  onSave: boolean;
  generateOnSave: SaveMode;
  budgetSeconds: number;
  evaluations: number | null;
  algorithm: AlgorithmName;
  criteria: string;
  seed: number;
  performance: boolean;
  joinTests: boolean;
  testTimeout: number;
  mutationShare: number;
  testsDirectory: string;
  testFilePattern: string;
  diagnosticSeverity: DiagnosticSeverityName;
  showCoveredBranches: boolean;
  maxParallelJobs: number;
  configurationPreference: ConfigurationPreference;
  /** "Generate tests for class or function" shows its edit in the Refactor Preview first (the server annotates it). */
  previewTests: boolean;
}

/** Every `miogen.*` setting; `interpreter`, `importStrategy`, `gutterStyle`, `showGutter` and `testingView` stay in the client. */
export interface MiogenSettings extends ServerSettings {
  interpreter: string;
  importStrategy: ImportStrategy;
  gutterStyle: MarkStyle;
  showGutter: boolean;
  testingView: TestingViewSetting;
}

export const DEFAULT_SETTINGS: Readonly<MiogenSettings> = Object.freeze({
  interpreter: "",
  importStrategy: DEFAULT_IMPORT_STRATEGY,
  onSave: true,
  generateOnSave: "untested",
  budgetSeconds: 5,
  evaluations: null,
  algorithm: "mio",
  criteria: "smart",
  seed: 0,
  performance: true,
  joinTests: false,
  testTimeout: 1,
  mutationShare: 0.2,
  testsDirectory: "",
  testFilePattern: "test_{module}_miogen.py",
  diagnosticSeverity: "information",
  showCoveredBranches: true,
  maxParallelJobs: 1,
  configurationPreference: "editorFirst",
  previewTests: true,
  gutterStyle: DEFAULT_MARK_STYLE,
  showGutter: true,
  testingView: "auto",
});

export const SERVER_KEYS: readonly (keyof ServerSettings)[] = [
  "onSave",
  "generateOnSave",
  "budgetSeconds",
  "evaluations",
  "algorithm",
  "criteria",
  "seed",
  "performance",
  "joinTests",
  "testTimeout",
  "mutationShare",
  "testsDirectory",
  "testFilePattern",
  "diagnosticSeverity",
  "showCoveredBranches",
  "maxParallelJobs",
  "configurationPreference",
  "previewTests",
];

const TESTING_VIEW: readonly TestingViewSetting[] = ["auto", "on", "off"];
const SEVERITIES: readonly DiagnosticSeverityName[] = ["error", "warning", "information", "hint"];
const PREFERENCES: readonly ConfigurationPreference[] = ["editorFirst", "filesystemFirst", "editorOnly"];
const SAVE_MODES: readonly SaveMode[] = ["untested", "changed", "off"];
const ALGORITHMS: readonly AlgorithmName[] = ["mio", "dynamosa", "adynamosa", "adynamosa-nonadaptive", "wts", "random", "mio-nofds"];

/**
 * Reads every setting through `get` (e.g. `(k) => workspace.getConfiguration("miogen").get(k)`), keeping a
 * default wherever the user's value has the wrong type or is out of range, so the server never sees junk.
 */
export function readSettings(get: (key: string) => unknown): MiogenSettings {
  const d = DEFAULT_SETTINGS;
  return {
    interpreter: stringOr(get("interpreter"), d.interpreter).trim(),
    importStrategy: oneOf(get("importStrategy"), IMPORT_STRATEGIES, d.importStrategy),
    onSave: boolOr(get("onSave"), d.onSave),
    generateOnSave: oneOf(lower(get("generateOnSave")), SAVE_MODES, d.generateOnSave),
    budgetSeconds: numberOr(get("budgetSeconds"), d.budgetSeconds, (n) => n > 0),
    evaluations: wholeOrNull(get("evaluations")),
    algorithm: oneOf(lower(get("algorithm")), ALGORITHMS, d.algorithm),
    criteria: nonEmptyOr(get("criteria"), d.criteria),
    seed: numberOr(get("seed"), d.seed, (n) => Number.isInteger(n) && n >= 0),
    performance: boolOr(get("performance"), d.performance),
    joinTests: boolOr(get("joinTests"), d.joinTests),
    testTimeout: numberOr(get("testTimeout"), d.testTimeout, (n) => n > 0),
    mutationShare: numberOr(get("mutationShare"), d.mutationShare, (n) => n >= 0 && n < 1),
    testsDirectory: relativeFolderOr(get("testsDirectory"), d.testsDirectory),
    testFilePattern: patternOr(get("testFilePattern"), d.testFilePattern),
    diagnosticSeverity: oneOf(lower(get("diagnosticSeverity")), SEVERITIES, d.diagnosticSeverity),
    showCoveredBranches: boolOr(get("showCoveredBranches"), d.showCoveredBranches),
    maxParallelJobs: numberOr(get("maxParallelJobs"), d.maxParallelJobs, (n) => Number.isInteger(n) && n >= 1),
    configurationPreference: oneOf(get("configurationPreference"), PREFERENCES, d.configurationPreference),
    previewTests: boolOr(get("previewTests"), d.previewTests),
    gutterStyle: oneOf(lower(get("gutterStyle")), MARK_STYLES, d.gutterStyle),
    showGutter: boolOr(get("showGutter"), d.showGutter),
    testingView: oneOf(lower(get("testingView")), TESTING_VIEW, d.testingView),
  };
}

/** The server settings sent to the server: the ones the user set, as written (the server checks them). */
export type ServerSettingsPayload = Partial<Record<keyof ServerSettings, unknown>>;

/**
 * What the server gets (initializationOptions, workspace/configuration, didChangeConfiguration): the server
 * settings the user set, with the protocol's camelCase keys, as `get` reads them. Settings left at their
 * default are not sent: the project's `[tool.miogen]` (or the server's default) decides them, and a set one
 * wins over the project file unless `configurationPreference` says otherwise. The server checks each value
 * with the same rules as the project file's and names any it ignores in its log.
 */
export function toServerSettings(get: (key: string) => unknown, isSet: (key: string) => boolean): ServerSettingsPayload {
  const out: ServerSettingsPayload = {};
  for (const key of SERVER_KEYS) {
    if (isSet(key)) out[key] = get(key);
  }
  return out;
}

/** What `WorkspaceConfiguration.inspect` tells of a setting: where it is set. */
export interface SettingOrigins {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  globalLanguageValue?: unknown;
  workspaceLanguageValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
}

/** Whether the user set the setting anywhere (user, workspace or folder settings, also per language). */
export function isSetByUser(origins: SettingOrigins | undefined): boolean {
  if (!origins) return false;
  const { globalValue, workspaceValue, workspaceFolderValue } = origins;
  const { globalLanguageValue, workspaceLanguageValue, workspaceFolderLanguageValue } = origins;
  return [globalValue, workspaceValue, workspaceFolderValue, globalLanguageValue, workspaceLanguageValue, workspaceFolderLanguageValue].some(
    (value) => value !== undefined,
  );
}

export type ChangeEffect = "restart" | "notifyServer" | "repaint";

/** Settings that change the server's process (its interpreter, which miogen it runs): a change restarts it. */
export const RESTART_KEYS: readonly string[] = ["miogen.interpreter", "miogen.importStrategy"];

/**
 * What a configuration change calls for, given `affects(key)` (from `ConfigurationChangeEvent`):
 * a new interpreter or import strategy needs a new server process; server settings are pushed with didChangeConfiguration,
 * so running jobs and coverage survive; the gutter settings only repaint.
 */
export function effectsOfChange(affects: (fullKey: string) => boolean): Set<ChangeEffect> {
  const effects = new Set<ChangeEffect>();
  if (RESTART_KEYS.some((key) => affects(key))) {
    effects.add("restart");
  }
  if (SERVER_KEYS.some((key) => affects(`miogen.${key}`))) {
    effects.add("notifyServer");
  }
  if (affects("miogen.gutterStyle") || affects("miogen.showGutter")) {
    effects.add("repaint");
  }
  return effects;
}

/** Expands `~` and `${workspaceFolder}` / `${userHome}` / `${env:NAME}` in the interpreter setting. */
export function expandPath(
  raw: string,
  vars: { workspaceFolder?: string; home?: string; env?: Record<string, string | undefined> },
): string {
  let out = raw.trim();
  if (vars.home && (out === "~" || out.startsWith("~/"))) {
    out = vars.home + out.slice(1);
  }
  return out.replace(/\$\{(workspaceFolder|userHome|env:([A-Za-z_][A-Za-z0-9_]*))\}/g, (match, name, envName) => {
    if (name === "workspaceFolder") return vars.workspaceFolder ?? match;
    if (name === "userHome") return vars.home ?? match;
    return vars.env?.[envName] ?? "";
  });
}

function stringOr(value: unknown, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

function nonEmptyOr(value: unknown, fallback: string): string {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : fallback;
}

/** A folder relative to the project (the server refuses absolute ones). */
function relativeFolderOr(value: unknown, fallback: string): string {
  const s = typeof value === "string" ? value.trim() : fallback;
  return s.startsWith("/") || s.startsWith("\\") || /^[A-Za-z]:[\\/]/.test(s) ? fallback : s;
}

/** A file name with `{module}` that ends in .py, as the server requires. */
function patternOr(value: unknown, fallback: string): string {
  const s = nonEmptyOr(value, fallback);
  return s.includes("{module}") && s.endsWith(".py") && !/[\\/]/.test(s) ? s : fallback;
}

function boolOr(value: unknown, fallback: boolean): boolean {
  return typeof value === "boolean" ? value : fallback;
}

function numberOr(value: unknown, fallback: number, valid: (n: number) => boolean): number {
  return typeof value === "number" && Number.isFinite(value) && valid(value) ? value : fallback;
}

/** A whole number from 1, or null (the default: no evaluation budget, the time budget counts). */
function wholeOrNull(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 ? value : null;
}

function lower(value: unknown): unknown {
  return typeof value === "string" ? value.trim().toLowerCase() : value;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}
