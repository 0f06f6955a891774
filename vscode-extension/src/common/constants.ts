/** Names shared by the extension and the miogen server (see docs/lsp-protocol.md). */

export const SERVER_ID = "miogen";
export const SERVER_NAME = "miogen";
export const CONFIG_SECTION = "miogen";

/** The oldest Python that `python -m miogen serve` runs on (pyproject: requires-python >= 3.11). */
export const MIN_PYTHON: readonly [number, number] = [3, 11];

/** Restarts asked for within this window collapse into one (the template's LS_SERVER_RESTART_DELAY). */
export const RESTART_DELAY_MS = 1000;

/** The extension's own commands. They must differ from the server's, which vscode-languageclient registers. */
export const Commands = {
  generateTestsForClass: "miogen.generateTestsForClass",
  generateTestsForFile: "miogen.generateTestsForFile",
  generateTestsForFolder: "miogen.generateTestsForFolder",
  restart: "miogen.restart",
  toggleCoverage: "miogen.toggleCoverage",
  showLog: "miogen.showLog",
} as const;

/** Commands the extension registers for its own use (not in the palette, not contributed). */
export const InternalCommands = {
  /** Run after a code action's edit put generated tests into files: the Testing view lists them. */
  rememberTestFiles: "miogen.internal.rememberTestFiles",
} as const;

/** Commands the server registers (`workspace/executeCommand`). */
export const ServerCommands = {
  generateTests: "miogen.generateTests",
  insertTests: "miogen.insertTests",
  cancel: "miogen.cancel",
  generateTestsForPaths: "miogen.generateTestsForPaths",
} as const;

/** Custom LSP methods. */
export const Methods = {
  units: "miogen/units",
  coverage: "miogen/coverage",
  jobStatus: "miogen/jobStatus",
} as const;
