// The end-to-end test's multi-root workspace: folder "stack" (fixtures/workspace, the repository's
// .venv from the user settings) and folder "ledger" (fixtures/workspace-b, its own virtual environment
// without miogen, its own tests folder), plus the wheel the "Install miogen" button installs from.

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
  const dirs = { wsA: "ws-a", wsB: "ws-b", userData: "user-data", extensions: "extensions", home: "home", wheels: "wheels" };
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
 * The second folder's virtual environment: miogen's dependencies (linked from the repository's .venv,
 * so nothing is downloaded) but not miogen itself; and a wheel of this repository in `dirs.wheels`,
 * where pip finds "miogen" when the extension's button installs it (PIP_FIND_LINKS, PIP_NO_INDEX).
 */
export function prepareSecondEnvironment(dirs) {
  run("python -m venv (second folder)", python, ["-m", "venv", dirs.venvB]);
  const purelib = run("sysconfig", python, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.trim();
  const purelibB = run("sysconfig", dirs.pythonB, ["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.trim();
  const deps = path.join(work, "deps-b");
  mkdirSync(deps);
  const skip = /^(miogen|__editable__|_distutils_hack|distutils-precedence|pip|setuptools|pkg_resources)|\.pth$/;
  for (const name of readdirSync(purelib)) if (!skip.test(name)) symlinkSync(path.join(purelib, name), path.join(deps, name));
  writeFileSync(path.join(purelibB, "miogen-e2e-deps.pth"), `${deps}\n`);
  const probe = run("the second environment's probe", dirs.pythonB, ["-c", "import importlib.util as u, pygls, coverage; print(u.find_spec('miogen') is None)"]);
  if (probe.stdout.trim() !== "True") fail("the second environment should not have miogen before the test installs it");
  run("pip wheel (miogen, for the Install button)", python, ["-m", "pip", "wheel", "--no-deps", "-q", "-w", dirs.wheels, repo]);
  log(`second folder's environment ready (${dirs.venvB}, without miogen; wheel in ${path.relative(work, dirs.wheels)}/)`);
}
