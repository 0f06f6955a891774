// The end-to-end test's multi-root workspace: folder "stack" (fixtures/workspace, the repository's
// .venv from the user settings) and folder "ledger" (fixtures/workspace-b, its own fresh virtual
// environment with nothing pip-installed, its own tests folder).

import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fail, here, log, python, repo, work } from "./support.mjs";

export const FOLDER_A = "stack";
export const FOLDER_B = "ledger";
export const TESTS_DIRECTORY_B = "checks";

export const USER_SETTINGS = {
  "miogen.interpreter": python,
  "miogen.budgetSeconds": 5,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.welcomePage.walkthroughs.openOnInstall": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "workbench.colorTheme": "Default Dark Modern",
  "chat.disableAIFeatures": true,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "security.workspace.trust.enabled": false,
  "editor.minimap.enabled": false,
  "editor.fontSize": 14,
  "files.autoSave": "off",
  "git.enabled": false,
  "testing.automaticallyOpenTestResults": "neverOpen",
};

export function prepareWorkspace() {
  rmSync(work, { recursive: true, force: true });
  const dirs = { wsA: "ws-a", wsB: "ws-b", userData: "user-data", extensions: "extensions", home: "home" };
  for (const key of Object.keys(dirs)) {
    dirs[key] = path.join(work, dirs[key]);
    mkdirSync(dirs[key], { recursive: true });
  }
  dirs.venvB = path.join(work, "venv-b");
  dirs.pythonB = path.join(dirs.venvB, "bin", "python");
  cpSync(path.join(here, "fixtures", "workspace"), dirs.wsA, { recursive: true });
  cpSync(path.join(here, "fixtures", "workspace-b"), dirs.wsB, { recursive: true });
  // Folder settings (resource scope): the second folder's own interpreter and tests folder.
  mkdirSync(path.join(dirs.wsB, ".vscode"));
  const folderSettings = { "miogen.interpreter": dirs.pythonB, "miogen.testsDirectory": TESTS_DIRECTORY_B };
  writeFileSync(path.join(dirs.wsB, ".vscode", "settings.json"), JSON.stringify(folderSettings, null, 2));
  dirs.workspaceFile = path.join(work, "miogen-e2e.code-workspace");
  const folders = [
    { path: dirs.wsA, name: FOLDER_A },
    { path: dirs.wsB, name: FOLDER_B },
  ];
  writeFileSync(dirs.workspaceFile, JSON.stringify({ folders, settings: {} }, null, 2));
  mkdirSync(path.join(dirs.userData, "User"), { recursive: true });
  writeFileSync(path.join(dirs.userData, "User", "settings.json"), JSON.stringify(USER_SETTINGS, null, 2));
  return dirs;
}

function run(what, command, args, options = {}) {
  const done = spawnSync(command, args, { encoding: "utf8", timeout: 300_000, ...options });
  if (done.status !== 0) fail(`${what} failed (exit ${done.status}): ${`${done.stderr}${done.stdout}`.trim().split("\n").slice(-5).join(" | ")}`);
  return done;
}

/**
 * The second folder's virtual environment: a fresh `python -m venv`, nothing pip-installed (no
 * miogen, pytest, coverage.py or pygls): the extension's bundled server must run there as it is.
 */
export function prepareSecondEnvironment(dirs) {
  run("python -m venv (second folder)", python, ["-m", "venv", dirs.venvB]);
  const probe = run("the second environment's probe", dirs.pythonB, [
    "-c",
    "import importlib.util as u; print([m for m in ('miogen', 'pygls', 'pytest', 'coverage', 'numpy') if u.find_spec(m)])",
  ]);
  if (probe.stdout.trim() !== "[]") fail(`the second environment should have nothing installed, has ${probe.stdout.trim()}`);
  log(`second folder's environment ready (${dirs.venvB}: a plain venv, nothing installed)`);
}
