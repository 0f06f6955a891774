// End-to-end test of the packaged extension in a real VS Code: code-server (from npm, on Node 24) driven
// by playwright-core with Debian's chromium. Run through `npm run test:e2e` (e2e/run.sh), which installs
// what is needed and builds dist/miogen.vsix first.
//
// Steps, each with a screenshot in e2e/artifacts/:
//   1. open the workspace and the sample class (shapes.py)
//   2. edit the class and save the file -> gutter marks from the miogen server
//   3. hover a partially covered line -> the missing branch
//   4. the Problems panel lists the uncovered branch (source miogen)
//   5. "miogen: Generate tests for class" -> the test file on disk, and its tests pass under pytest
//   6. an edit inside the class greys its marks; "miogen: Toggle coverage marks" hides them
//   7. a second generation is cancelled from its progress notification
//
// Environment: MIOGEN_PYTHON (default <repo>/.venv/bin/python, where `pip install -e .` provides
// `python -m miogen serve`), MIOGEN_E2E_CODE_SERVER / _NODE24 / _CHROMIUM (from setup.sh's env.sh),
// MIOGEN_E2E_WORK (scratch folder, default $TMPDIR/miogen-e2e), MIOGEN_E2E_TIMEOUT_S (default 180),
// MIOGEN_E2E_UPDATE_DOCS=1 (copy the hover and generated-tests screenshots to docs/images/ for the README).

import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
const extensionDir = path.resolve(here, "..");
const repo = path.resolve(extensionDir, "..");
const artifacts = path.join(here, "artifacts");
const python = process.env.MIOGEN_PYTHON || path.join(repo, ".venv", "bin", "python");
const work = process.env.MIOGEN_E2E_WORK || path.join(tmpdir(), "miogen-e2e");
const timeoutMs = Number(process.env.MIOGEN_E2E_TIMEOUT_S || 180) * 1000;
const vsix = path.join(extensionDir, "dist", "miogen.vsix");
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

const started = Date.now();
const log = (msg) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s] ${msg}`);

class E2EFailure extends Error {}
const fail = (msg) => {
  throw new E2EFailure(msg);
};

function requireEnv(name) {
  const value = process.env[name];
  if (!value || !existsSync(value)) fail(`${name} is not set or missing (${value}); run vscode-extension/e2e/setup.sh first`);
  return value;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(what, check, { timeout = timeoutMs, interval = 500 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await check();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, interval));
  }
  fail(`timed out after ${Math.round(timeout / 1000)} s waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
}

/** Whether the Python side is there: `python -m miogen serve --help`. Returns a problem string or undefined. */
function serverProblem() {
  if (!existsSync(python)) return `MIOGEN_PYTHON=${python} does not exist (create it: python3 -m venv .venv && .venv/bin/pip install -e .)`;
  const run = spawnSync(python, ["-m", "miogen", "serve", "--help"], { encoding: "utf8", timeout: 60_000 });
  if (run.status !== 0) {
    const why = `${run.stderr || run.stdout || run.error?.message || ""}`.trim().split("\n").slice(-3).join(" | ");
    return `\`${python} -m miogen serve --help\` exited ${run.status}: ${why}`;
  }
  return undefined;
}

function prepareWorkspace() {
  rmSync(work, { recursive: true, force: true });
  const dirs = { ws: "ws", userData: "user-data", extensions: "extensions", home: "home" };
  for (const key of Object.keys(dirs)) {
    dirs[key] = path.join(work, dirs[key]);
    mkdirSync(dirs[key], { recursive: true });
  }
  cpSync(path.join(here, "fixtures", "workspace"), dirs.ws, { recursive: true });
  mkdirSync(path.join(dirs.userData, "User"), { recursive: true });
  const settings = {
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
  };
  writeFileSync(path.join(dirs.userData, "User", "settings.json"), JSON.stringify(settings, null, 2));
  return dirs;
}

function isolatedEnv(dirs, extra = {}) {
  return {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, ".config"),
    XDG_DATA_HOME: path.join(dirs.home, ".local", "share"),
    XDG_CACHE_HOME: path.join(dirs.home, ".cache"),
    ...extra,
  };
}

function codeServerEnv(dirs) {
  const node24 = requireEnv("MIOGEN_E2E_NODE24");
  return isolatedEnv(dirs, { PATH: `${path.dirname(node24)}:${process.env.PATH}` });
}

function installExtension(codeServer, dirs) {
  if (!existsSync(vsix)) fail(`${vsix} is missing: run \`npm run package\``);
  const run = spawnSync(
    codeServer,
    ["--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions, "--install-extension", vsix],
    { env: codeServerEnv(dirs), encoding: "utf8", timeout: 120_000 },
  );
  if (run.status !== 0 || !/successfully installed/i.test(run.stdout + run.stderr)) {
    fail(`installing ${vsix} into code-server failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
  log(`installed ${path.relative(repo, vsix)}`);
}

function startCodeServer(codeServer, dirs, port) {
  const out = path.join(work, "code-server.log");
  const child = spawn(
    codeServer,
    [
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", dirs.userData,
      "--extensions-dir", dirs.extensions,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      dirs.ws,
    ],
    { env: codeServerEnv(dirs), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const chunks = [];
  child.stdout.on("data", (d) => chunks.push(d));
  child.stderr.on("data", (d) => chunks.push(d));
  child.on("exit", () => writeFileSync(out, Buffer.concat(chunks)));
  child.logText = () => Buffer.concat(chunks).toString();
  return child;
}

function stopProcessGroup(child) {
  if (!child || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {}
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && child.exitCode === null) spawnSync("sleep", ["0.2"]);
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}

async function screenshot(page, name) {
  const file = path.join(artifacts, name);
  await page.screenshot({ path: file });
  log(`screenshot ${path.relative(repo, file)}`);
  return file;
}

/** Runs a command by its palette title ("miogen: Generate tests for class"). */
async function runCommand(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input").first();
  await input.waitFor({ state: "visible", timeout: 15_000 });
  await input.fill(`>${title}`);
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
  await row.waitFor({ state: "visible", timeout: 15_000 });
  await page.keyboard.press("Enter");
}

/** Gutter icons of miogen's decoration types in the editor of shapes.py, counted by their SVG (media/<kind>.svg). */
function countGutterMarks(page) {
  return page.evaluate(() => {
    const counts = { covered: 0, partial: 0, uncovered: 0, stale: 0 };
    const editor = [...document.querySelectorAll(".monaco-editor")].find((e) =>
      /class\sStack/.test(e.querySelector(".view-lines")?.textContent ?? ""));
    for (const el of editor?.querySelectorAll(".margin *") ?? []) {
      const image = decodeURIComponent(getComputedStyle(el).backgroundImage || "");
      for (const kind of Object.keys(counts)) if (image.includes(`/media/${kind}.svg`)) counts[kind]++;
    }
    return counts;
  });
}

/** The editor line (1-based) whose text contains `text`, via the rendered view lines. */
async function clickLine(page, text) {
  const line = page.locator(".monaco-editor .view-line", { hasText: text }).first();
  await line.waitFor({ state: "visible", timeout: 15_000 });
  await line.click();
  return line;
}

function collectLogs(dirs) {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === "miogen.log" || name === "remoteexthost.log" || name === "exthost.log") found.push(p);
    }
  };
  const logs = path.join(dirs.userData, "logs");
  if (existsSync(logs)) walk(logs);
  for (const file of found) copyFileSync(file, path.join(artifacts, path.basename(file)));
  const codeServerLog = path.join(work, "code-server.log");
  if (existsSync(codeServerLog)) copyFileSync(codeServerLog, path.join(artifacts, "code-server.log"));
  return found;
}

async function main() {
  const codeServer = requireEnv("MIOGEN_E2E_CODE_SERVER");
  const chromiumPath = requireEnv("MIOGEN_E2E_CHROMIUM");
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });

  const problem = serverProblem();
  log(problem ? `miogen server NOT available: ${problem}` : `miogen server available (${python} -m miogen serve)`);

  const dirs = prepareWorkspace();
  installExtension(codeServer, dirs);
  const port = await freePort();
  const cs = startCodeServer(codeServer, dirs, port);
  let browser;
  try {
    await waitFor("code-server /healthz", async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, { timeout: 60_000 });
    log(`code-server up on 127.0.0.1:${port}`);

    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, env: isolatedEnv(dirs) });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(dirs.ws)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 90_000 });
    const explorerRow = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "shapes.py" }).first();
    await explorerRow.waitFor({ timeout: 90_000 });
    log("workbench visible");

    // Step 1: open the sample class.
    await explorerRow.click();
    await page.locator(".monaco-editor .view-line", { hasText: "class Stack" }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1500);
    await screenshot(page, "01-open-file.png");

    if (problem) {
      const toast = page.locator(".notification-toast .notification-list-item-message", { hasText: "miogen" }).first();
      const message = await waitFor("the extension's message about the missing server", async () =>
        (await toast.isVisible()) && (await toast.innerText()), { timeout: 60_000 }).catch(() => "(none shown)");
      log(`extension says: ${String(message).split("\n")[0]}`);
      await screenshot(page, "02-server-problem.png");
      fail(
        `the miogen language server is not available, so the remaining steps (gutter marks, Problems, ` +
          `"Generate tests for class", pytest) cannot run.\n  ${problem}\n` +
          `  The e2e needs \`${python} -m miogen serve\` (server/miogen/lsp, installed with \`pip install -e .\`).`,
      );
    }

    // Step 2: edit and save -> background generation -> gutter marks and Problems entries.
    // The status bar shows the beaker once the server runs (a spinner while starting, a warning if it failed).
    const ready = page.locator(".statusbar-item:has(.codicon-beaker), .statusbar-item:has(.codicon-warning)", { hasText: /miogen|\d+\/\d+/ }).first();
    await waitFor("the extension to start the server (status bar)", async () => ready.isVisible(), { timeout: 120_000 });
    if ((await ready.locator(".codicon-warning").count()) > 0) {
      fail(`the extension could not start the server: ${await ready.getAttribute("aria-label")}`);
    }
    log("server running (status bar)");
    // The server generates on save for the units whose code changed, so change the class: capacity=4 -> 3.
    await clickLine(page, "def __init__(self, capacity=4):");
    await page.keyboard.press("End");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("3");
    await page.keyboard.press("Control+S");
    await waitFor("the file to be saved", async () => readFileSync(path.join(dirs.ws, "shapes.py"), "utf8").includes("capacity=3):"), { timeout: 15_000 });
    log("edited Stack.__init__ and saved shapes.py");

    const marks = await waitFor("gutter marks (covered and partial/uncovered lines) after saving", async () => {
      const counts = await countGutterMarks(page);
      return counts.covered > 0 && counts.partial + counts.uncovered > 0 ? counts : undefined;
    }, { interval: 1000 });
    log(`gutter marks: ${JSON.stringify(marks)}`);

    await screenshot(page, "02-gutter.png");

    // Step 3: hover a partially covered line -> the missing branch.
    await clickLine(page, 'sys.platform == "win32"');
    const line = page.locator(".monaco-editor .view-line", { hasText: 'sys.platform == "win32"' }).first();
    const box = await line.boundingBox();
    await page.mouse.move(box.x + 60, box.y + box.height / 2);
    const hover = page.locator(".monaco-hover", { hasText: "branch not covered" }).first();
    await waitFor("the hover naming the missing branch", async () => (await hover.isVisible()) && (await hover.innerText()), { timeout: 20_000 });
    log(`hover: ${(await hover.innerText()).replace(/\s+/g, " ").slice(0, 200)}`);
    await screenshot(page, "03-hover.png");
    await page.keyboard.press("Escape");

    // Step 4: Problems lists the uncovered branch with source miogen.: the uncovered branch is listed with source miogen.
    await runCommand(page, "View: Focus Problems");
    const problemRows = page.locator(".markers-panel .monaco-list-row", { hasText: "miogen" });
    await waitFor("Problems entries from miogen", async () => (await problemRows.count()) > 0, { timeout: 60_000 });
    const problemTexts = await problemRows.allInnerTexts();
    log(`Problems: ${problemTexts.length} miogen entr${problemTexts.length === 1 ? "y" : "ies"}: ${problemTexts[0].replace(/\s+/g, " ")}`);
    const status = await waitFor("the status bar's coverage figure (\"14/16\") for shapes.py", async () => {
      const text = (await ready.innerText()).trim();
      return /^\d+\/\d+$/.test(text) ? text : undefined;
    }, { timeout: 30_000 });
    log(`status bar: $(beaker) ${status}`);
    await screenshot(page, "04-problems.png");
    await runCommand(page, "View: Toggle Panel Visibility");

    // Step 5: "Generate tests for class" with the cursor inside Stack.
    await clickLine(page, "def push(self, item):");
    await runCommand(page, "miogen: Generate tests for class");
    log("ran miogen: Generate tests for class");
    const testFile = path.join(dirs.ws, "tests", "test_shapes.py");
    const summary = page.locator(".notification-toast", { hasText: /\d+ tests?, \d+\/\d+ branches/ }).first();
    await waitFor("the summary notification (\"N tests, c/t branches\")", async () => summary.isVisible(), { interval: 1000 });
    const summaryText = (await summary.innerText()).split("\n")[0];
    log(`summary: ${summaryText}`);
    await waitFor(`${path.relative(dirs.ws, testFile)} on disk with tests`, async () =>
      existsSync(testFile) && /def test_/.test(readFileSync(testFile, "utf8")), { timeout: 30_000 });
    await page.locator(".monaco-editor .view-line", { hasText: "def test_" }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    await screenshot(page, "05-generated-tests.png");

    const pytest = spawnSync(python, ["-m", "pytest", "-q", "-p", "no:cacheprovider", path.relative(dirs.ws, testFile)], {
      cwd: dirs.ws,
      encoding: "utf8",
      timeout: 300_000,
    });
    const pytestTail = `${pytest.stdout}${pytest.stderr}`.trim().split("\n").slice(-15).join("\n");
    writeFileSync(path.join(artifacts, "pytest.txt"), `${pytest.stdout}${pytest.stderr}`);
    copyFileSync(testFile, path.join(artifacts, "test_shapes.py"));
    if (pytest.status !== 0 || !/\d+ passed/.test(pytest.stdout)) {
      fail(`pytest on the generated tests failed (exit ${pytest.status}):\n${pytestTail}`);
    }
    log(`pytest: ${pytest.stdout.trim().split("\n").filter((l) => /passed/.test(l)).pop()}`);

    // Step 6: an edit inside the class greys its marks at once; "Toggle coverage marks" hides them all.
    // A code change (a comment would not count: the server keeps results whose code is unchanged).
    await clickLine(page, "if len(self.items) > 2:");
    await page.keyboard.press("End");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("3");
    const stale = await waitFor("the edited class's marks to turn stale", async () => {
      const counts = await countGutterMarks(page);
      return counts.stale > 0 && counts.covered + counts.partial + counts.uncovered === 0 ? counts : undefined;
    }, { timeout: 20_000 });
    log(`after an edit inside Stack: ${JSON.stringify(stale)}`);
    await screenshot(page, "06-stale-after-edit.png");
    await runCommand(page, "miogen: Toggle coverage marks");
    await waitFor("the marks to disappear after miogen: Toggle coverage marks", async () =>
      Object.values(await countGutterMarks(page)).every((n) => n === 0), { timeout: 10_000 });
    log("miogen: Toggle coverage marks hid the marks");

    // Step 7: a second generation, cancelled from its progress notification -> miogen.cancel.
    await runCommand(page, "miogen: Generate tests for class");
    const progressToast = page.locator(".notification-toast", { hasText: "generating tests for Stack" }).first();
    await progressToast.waitFor({ state: "visible", timeout: 30_000 });
    await progressToast.locator(".monaco-button", { hasText: "Cancel" }).first().click();
    const cancelled = page.locator(".notification-toast", { hasText: "cancelled the generation for Stack" }).first();
    await waitFor("the generation to stop after Cancel", async () => cancelled.isVisible(), { timeout: 60_000 });
    await screenshot(page, "07-cancelled.png");
    log("cancelled a running generation");

    if (process.env.MIOGEN_E2E_UPDATE_DOCS === "1") {
      for (const [from, to] of [["03-hover.png", "gutter.png"], ["05-generated-tests.png", "generated-tests.png"]]) {
        mkdirSync(path.join(repo, "docs", "images"), { recursive: true });
        copyFileSync(path.join(artifacts, from), path.join(repo, "docs", "images", to));
      }
      log("copied the README screenshots to docs/images/ (MIOGEN_E2E_UPDATE_DOCS=1)");
    }
  } catch (error) {
    try {
      const pages = browser?.contexts().flatMap((c) => c.pages()) ?? [];
      if (pages[0]) await screenshot(pages[0], "99-failure.png");
    } catch {}
    throw error;
  } finally {
    await browser?.close().catch(() => undefined);
    stopProcessGroup(cs);
    const logs = collectLogs(dirs);
    log(`logs copied to ${path.relative(repo, artifacts)}/ (${logs.length} files)`);
  }
}

try {
  await main();
  log("PASS: the miogen extension works end to end in code-server");
  console.log("e2e: 1 passed, 0 failed");
} catch (error) {
  console.error(`\nE2E FAILED: ${error instanceof E2EFailure ? error.message : error.stack}`);
  const extensionLog = path.join(artifacts, "miogen.log");
  if (existsSync(extensionLog)) {
    const errors = readFileSync(extensionLog, "utf8").split("\n").filter((l) => /\[error\]|ERROR|Traceback|Error:/.test(l));
    if (errors.length) {
      console.error(`\nErrors in the extension's log (${path.relative(repo, extensionLog)}), last ${Math.min(8, errors.length)}:`);
      for (const line of errors.slice(-8)) console.error(`  ${line.slice(0, 400)}`);
    }
  }
  console.log("e2e: 0 passed, 1 failed");
  process.exitCode = 1;
}
