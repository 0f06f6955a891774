// End-to-end test of the packaged extension in a real VS Code: code-server (from npm, on Node 24) driven
// by playwright-core with Debian's chromium. Run through `npm run test:e2e` (e2e/run.sh), which installs
// what is needed and builds dist/miogen.vsix first.
//
// A multi-root workspace with two folders and two virtual environments (workspace.mjs). Steps, each
// with a screenshot in e2e/artifacts/:
//   1. open the sample class (folder "stack", the repository's .venv)
//   2. edit the class and save -> coverage marks from the miogen server, none in the breakpoint gutter
//   3. hover a partially covered line -> the missing branch
//   4. the Problems panel lists the uncovered branch (source miogen)
//   5. "miogen: Generate tests for class or function" -> the Refactor Preview of the tests; Apply -> the
//      test file on disk, and its tests pass under pytest
//   6. an edit inside the class greys its marks; "miogen: Toggle coverage marks" hides them
//   7. a second generation is cancelled from its progress notification
//   7b. the Explorer's context menu "Generate tests for file" on clamp.py -> the project-wide run
//      (miogen ctg) writes tests/test_clamp_miogen.py, whose tests pass under pytest
//   8. the Testing view lists the generated tests; "Run All Tests" runs them (all pass)
//   9. "Run All Tests with Coverage" -> VS Code's Test Coverage view and inline coverage of the class
//  10. the marks in a high-contrast theme (visible border on partial/uncovered lines)
//  11. folder "ledger" (its own fresh venv, nothing pip-installed): no message, the VSIX's bundled
//      server runs there (miogen.importStrategy useBundled), its code lens generates into its own
//      tests folder ("checks", a folder setting answered per scopeUri), and those tests pass in that
//      venv with the bundle's pytest, also from the Testing view (run with that venv's interpreter),
//      and with coverage there (the bundle's coverage.py)
//
// Environment: MIOGEN_PYTHON (default <repo>/.venv/bin/python, where `pip install -e .` provides
// `python -m miogen serve`), MIOGEN_E2E_CODE_SERVER / _NODE24 / _CHROMIUM (from setup.sh's env.sh),
// MIOGEN_E2E_WORK (scratch folder, default $TMPDIR/miogen-e2e), MIOGEN_E2E_TIMEOUT_S (default 180),
// MIOGEN_E2E_UPDATE_DOCS=1 (copy the README's screenshots to docs/images/).

import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import {
  artifacts,
  CHROMIUM_ARGS,
  clickLine,
  collectLogs,
  countMarks,
  E2EFailure,
  fail,
  freePort,
  installExtension,
  isolatedEnv,
  log,
  markStyle,
  python,
  repo,
  requireEnv,
  runCommand,
  screenshot,
  serverProblem,
  startCodeServer,
  stopProcessGroup,
  waitFor,
} from "./support.mjs";
import { FOLDER_A, FOLDER_B, prepareSecondEnvironment, prepareWorkspace, TESTS_DIRECTORY_B } from "./workspace.mjs";

/** README screenshots: artifact -> docs/images name. */
const DOC_IMAGES = [
  ["03-hover.png", "gutter.png"],
  ["05-generated-tests.png", "generated-tests.png"],
  ["05-preview.png", "preview.png"],
  ["07b-explorer-menu.png", "explorer.png"],
  ["08-testing-view.png", "testing-view.png"],
  ["09-coverage.png", "native-coverage.png"],
  ["10-high-contrast.png", "high-contrast.png"],
  ["11-second-folder.png", "multi-root.png"],
];

/** The installed VSIX's bundled/tool/run_module.py (`-m` with the bundle appended to sys.path). */
function bundledModuleRunner(dirs) {
  const installed = readdirSync(dirs.extensions).find((name) => name.startsWith("miogen.miogen-"));
  const runner = installed && path.join(dirs.extensions, installed, "bundled", "tool", "run_module.py");
  if (!runner || !existsSync(runner)) fail(`the installed extension has no bundled/tool/run_module.py (in ${dirs.extensions})`);
  return runner;
}

function pytestIn(cwd, interpreter, testFile, moduleRunner) {
  const module = moduleRunner ? [moduleRunner, "pytest"] : ["-m", "pytest"];
  const run = spawnSync(interpreter, [...module, "-q", "-p", "no:cacheprovider", path.relative(cwd, testFile)], {
    cwd,
    encoding: "utf8",
    timeout: 300_000,
  });
  return { ok: run.status === 0 && /\d+ passed/.test(run.stdout), output: `${run.stdout}${run.stderr}`, status: run.status };
}

/** Opens `name` from the Explorer, expanding its workspace folder's node first when it is collapsed. */
async function openFromExplorer(page, folderName, name) {
  if (!(await page.locator(".explorer-folders-view").first().isVisible())) await runCommand(page, "View: Show Explorer");
  const folderRow = page.locator(`.explorer-folders-view .monaco-list-row[aria-level='1']`, { hasText: new RegExp(`^\\s*${folderName}\\s*$`, "i") }).first();
  await folderRow.waitFor({ timeout: 60_000 });
  if ((await folderRow.getAttribute("aria-expanded")) === "false") await folderRow.click();
  const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
  await row.waitFor({ timeout: 30_000 });
  await row.click();
}

async function editAndSave(page, file, lineText, replaceWith, check) {
  await clickLine(page, lineText);
  await page.keyboard.press("End");
  for (const key of replaceWith.keys) await page.keyboard.press(key);
  await page.keyboard.type(replaceWith.text);
  await page.keyboard.press("Control+S");
  await waitFor(`${path.basename(file)} to be saved`, async () => readFileSync(file, "utf8").includes(check), { timeout: 15_000 });
}

/** Steps 1-7 in folder "stack". Returns the generated test file. */
async function firstFolderSteps(page, dirs) {
  await openFromExplorer(page, FOLDER_A, "shapes.py");
  await page.locator(".monaco-editor .view-line", { hasText: "class Stack" }).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1500);
  await screenshot(page, "01-open-file.png");

  // The status bar shows the beaker once the server runs (a spinner while starting, a warning if it failed).
  const ready = page.locator(".statusbar-item:has(.codicon-beaker), .statusbar-item:has(.codicon-warning)", { hasText: /miogen|\d+\/\d+/ }).first();
  await waitFor("the extension to start the server (status bar)", async () => ready.isVisible(), { timeout: 120_000 });
  if ((await ready.locator(".codicon-warning").count()) > 0) {
    fail(`the extension could not start the server: ${await ready.getAttribute("aria-label")}`);
  }
  log("server running (status bar)");
  // The server generates on save for the units whose code changed, so change the class: capacity=4 -> 3.
  const shapes = path.join(dirs.wsA, "shapes.py");
  await editAndSave(page, shapes, "def __init__(self, capacity=4):", { keys: ["ArrowLeft", "ArrowLeft", "Backspace"], text: "3" }, "capacity=3):");
  log("edited Stack.__init__ and saved shapes.py");

  const marks = await waitFor("coverage marks (covered and partial/uncovered lines) after saving", async () => {
    const counts = await countMarks(page);
    return counts.covered > 0 && counts.partial + counts.uncovered > 0 ? counts : undefined;
  }, { interval: 1000 });
  log(`marks: ${JSON.stringify(marks)}`);
  if (marks.gutter !== 0) fail(`the default style put ${marks.gutter} marks in the breakpoint gutter`);
  await screenshot(page, "02-marks.png");

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

  // Step 4: Problems lists the uncovered branch with source miogen.
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

  // Step 5: "Generate tests for class or function" with the cursor inside Stack: the tests come as a
  // Refactor Preview (miogen.previewTests, on by default), written only once applied.
  await clickLine(page, "def push(self, item):");
  await runCommand(page, "miogen: Generate tests for class or function");
  log("ran miogen: Generate tests for class or function");
  const testFile = path.join(dirs.wsA, "tests", "test_shapes_miogen.py");
  await applyPreview(page, "05-preview.png", testFile);
  const summary = page.locator(".notification-toast", { hasText: /\d+ tests?, \d+\/\d+ branches/ }).first();
  await waitFor("the summary notification (\"N tests, c/t branches\")", async () => summary.isVisible(), { interval: 1000 });
  log(`summary: ${(await summary.innerText()).split("\n")[0]}`);
  await waitFor(`${path.relative(dirs.wsA, testFile)} on disk with tests`, async () =>
    existsSync(testFile) && /def test_/.test(readFileSync(testFile, "utf8")), { timeout: 30_000 });
  await page.locator(".monaco-editor .view-line", { hasText: "def test_" }).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1000);
  await screenshot(page, "05-generated-tests.png");

  const pytest = pytestIn(dirs.wsA, python, testFile);
  writeFileSync(path.join(artifacts, "pytest.txt"), pytest.output);
  copyFileSync(testFile, path.join(artifacts, "test_shapes_miogen.py"));
  if (!pytest.ok) fail(`pytest on the generated tests failed (exit ${pytest.status}):\n${pytest.output.trim().split("\n").slice(-15).join("\n")}`);
  log(`pytest: ${pytest.output.trim().split("\n").filter((l) => /passed/.test(l)).pop()}`);

  // Step 6: an edit inside the class greys its marks at once; "Toggle coverage marks" hides them all.
  // A code change (a comment would not count: the server keeps results whose code is unchanged).
  await clickLine(page, "if len(self.items) > 2:");
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Backspace");
  await page.keyboard.type("3");
  const stale = await waitFor("the edited class's marks to turn stale", async () => {
    const counts = await countMarks(page);
    return counts.stale > 0 && counts.covered + counts.partial + counts.uncovered === 0 ? counts : undefined;
  }, { timeout: 20_000 });
  log(`after an edit inside Stack: ${JSON.stringify(stale)}`);
  await screenshot(page, "06-stale-after-edit.png");
  await runCommand(page, "miogen: Toggle coverage marks");
  await waitFor("the marks to disappear after miogen: Toggle coverage marks", async () =>
    Object.values(await countMarks(page)).every((n) => n === 0), { timeout: 10_000 });
  log("miogen: Toggle coverage marks hid the marks");

  // Step 7: a second generation, cancelled from its progress notification -> miogen.cancel.
  await runCommand(page, "miogen: Generate tests for class or function");
  const progressToast = page.locator(".notification-toast", { hasText: "generating tests for Stack" }).first();
  await progressToast.waitFor({ state: "visible", timeout: 30_000 });
  await progressToast.locator(".monaco-button", { hasText: "Cancel" }).first().click();
  const cancelled = page.locator(".notification-toast", { hasText: "cancelled the generation for Stack" }).first();
  await waitFor("the generation to stop after Cancel", async () => cancelled.isVisible(), { timeout: 60_000 });
  await screenshot(page, "07-cancelled.png");
  log("cancelled a running generation");
  // Undo step 6's edit (VS Code saves open files before a test run): the class its tests were made for.
  await runCommand(page, "File: Revert File");
  await runCommand(page, "Notifications: Clear All Notifications");
  return testFile;
}

/**
 * The Refactor Preview of generated tests (an edit whose changes need confirmation): nothing is on disk
 * while it shows; ticked and applied, they are written. A screenshot of it when `shot` is given.
 */
async function applyPreview(page, shot, testFile) {
  const apply = page.locator(".bulk-edit-panel .monaco-button", { hasText: /^\s*Apply\s*$/ }).first();
  await waitFor("the Refactor Preview of the generated tests (its Apply button)", async () => apply.isVisible(), { interval: 1000 });
  const entry = page.locator(".bulk-edit-panel .monaco-list-row", { hasText: path.basename(testFile) }).first();
  await waitFor(`the preview to list ${path.basename(testFile)}`, async () => entry.isVisible(), { timeout: 30_000 });
  if (existsSync(testFile) && /def test_/.test(readFileSync(testFile, "utf8"))) fail(`${testFile} was written before the preview was applied`);
  log(`Refactor Preview shows ${path.basename(testFile)}; nothing written yet`);
  // Changes that need confirmation start unticked (VS Code's rule): tick the file's, then its diff shows the tests.
  const tick = entry.locator(".edit-checkbox").first();
  await tick.click();
  await waitFor("the preview's change to be ticked", async () => /checked|true/.test(`${await tick.getAttribute("class")} ${await tick.getAttribute("aria-checked")}`), {
    timeout: 10_000,
  });
  if (shot) {
    await entry.locator(".monaco-icon-label").first().click(); // its diff: the tests to be added
    await page.locator(".monaco-diff-editor .view-line", { hasText: "def test_" }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1000);
    await screenshot(page, shot);
  }
  await apply.click();
  log("applied the preview");
}

/**
 * Step 7b: the Explorer's context menu on clamp.py -> "Generate tests for file": the server runs `miogen ctg`
 * on the file (progress notification, then a summary) and writes tests/test_clamp_miogen.py.
 */
async function explorerSteps(page, dirs) {
  if (!(await page.locator(".explorer-folders-view").first().isVisible())) await runCommand(page, "View: Show Explorer");
  const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: /^\s*clamp\.py\s*$/ }).first();
  await row.waitFor({ timeout: 30_000 });
  await row.click({ button: "right" });
  const item = page.locator(".context-view .action-item", { hasText: "Generate tests for file" }).first();
  await item.waitFor({ state: "visible", timeout: 15_000 });
  await item.hover();
  await page.waitForTimeout(500);
  await screenshot(page, "07b-explorer-menu.png");
  await item.click();
  log("explorer: Generate tests for file on clamp.py");
  await page.locator(".notification-toast", { hasText: "generating tests for clamp.py" }).first().waitFor({ state: "visible", timeout: 30_000 });
  const summary = page.locator(".notification-toast", { hasText: /tests added to 1 test file/ }).first();
  const text = await waitFor("the file run's summary (\"N tests added to 1 test file\")", async () => (await summary.isVisible()) && (await summary.innerText()), {
    timeout: 300_000,
    interval: 1000,
  });
  log(`explorer run: ${text.split("\n").find((line) => /tests added/.test(line))}`);
  const testFile = path.join(dirs.wsA, "tests", "test_clamp_miogen.py");
  if (!existsSync(testFile) || !/def test_/.test(readFileSync(testFile, "utf8"))) fail(`${testFile} was not written by the file run`);
  const pytest = pytestIn(dirs.wsA, python, testFile);
  writeFileSync(path.join(artifacts, "pytest-clamp.txt"), pytest.output);
  if (!pytest.ok) fail(`pytest on the file run's tests failed:\n${pytest.output.trim().split("\n").slice(-15).join("\n")}`);
  log(`pytest (file run): ${pytest.output.trim().split("\n").filter((l) => /passed/.test(l)).pop()}`);
  await runCommand(page, "Notifications: Clear All Notifications");
}

/** The Test Explorer's rows (label and state) after expanding every collapsed node. */
async function testExplorerRows(page) {
  const tree = page.locator(".test-explorer .monaco-list");
  for (let round = 0; round < 6; round++) {
    const collapsed = tree.locator(".monaco-list-row[aria-expanded='false']");
    if ((await collapsed.count()) === 0) break;
    await collapsed.first().locator(".monaco-tl-twistie").click();
    await page.waitForTimeout(300);
  }
  return tree.locator(".monaco-list-row").evaluateAll((rows) =>
    rows.map((row) => ({
      label: row.querySelector(".label, .monaco-icon-label")?.textContent?.trim() ?? row.textContent.trim(),
      state: [...row.querySelectorAll(".codicon")].map((icon) => [...icon.classList].find((c) => c.startsWith("codicon-testing-"))).filter(Boolean).join(" "),
      level: Number(row.getAttribute("aria-level")),
    })));
}

/** Step 8: the Testing view lists the generated tests; Run All runs them. */
async function testingViewSteps(page) {
  await runCommand(page, "View: Show Testing");
  await page.locator(".test-explorer").first().waitFor({ timeout: 30_000 });
  const listed = await waitFor("the Testing view to list tests/test_shapes_miogen.py and its tests", async () => {
    const rows = await testExplorerRows(page);
    return rows.some((r) => r.label.includes("test_shapes_miogen.py")) && rows.filter((r) => r.label.startsWith("test_")).length >= 2 ? rows : undefined;
  }, { timeout: 60_000, interval: 1000 });
  const tests = listed.filter((r) => r.label.startsWith("test_") && !r.label.endsWith(".py"));
  log(`Testing view: ${listed.map((r) => `${"  ".repeat(Math.max(0, r.level - 1))}${r.label}`).join(" | ")}`);
  await runCommand(page, "Test: Run All Tests");
  const results = await waitFor("the Testing view's results", async () => {
    const rows = (await testExplorerRows(page)).filter((r) => r.label.startsWith("test_") && !r.label.endsWith(".py"));
    const done = rows.filter((r) => /testing-(passed|failed|error|skipped)/.test(r.state));
    return rows.length >= tests.length && done.length === rows.length ? rows : undefined;
  }, { timeout: 120_000, interval: 1000 });
  const notPassed = results.filter((r) => !r.state.includes("testing-passed"));
  if (notPassed.length > 0) fail(`tests did not pass in the Testing view: ${notPassed.map((r) => `${r.label} (${r.state})`).join(", ")}`);
  log(`Testing view: ${results.length} tests passed`);
  await screenshot(page, "08-testing-view.png");
}

/** Step 9: Run with Coverage -> VS Code's own coverage view and inline coverage for shapes.py. */
async function coverageSteps(page) {
  await runCommand(page, "Test: Run All Tests with Coverage");
  const coveragePane = page.locator(".pane", { has: page.locator(".pane-header", { hasText: /test coverage/i }) });
  const coverageRow = coveragePane.locator(".monaco-list-row", { hasText: /shapes\.py[\s\S]*%/ }).first();
  const text = await waitFor("the Test Coverage view to show shapes.py", async () => (await coverageRow.isVisible()) && (await coverageRow.innerText()), {
    timeout: 120_000,
    interval: 1000,
  });
  const percent = /(\d+(?:\.\d+)?)%/.exec(text)?.[1];
  if (!percent) fail(`no percentage next to shapes.py in the Test Coverage view: ${text}`);
  log(`Test Coverage view: shapes.py ${percent}%`);
  await page.locator(".tabs-container .tab", { hasText: "shapes.py" }).first().click();
  const inline = () => page.locator(".monaco-editor .coverage-deco-hit, .monaco-editor .coverage-deco-miss").count();
  if ((await waitFor("VS Code's coverage in the editor", inline, { timeout: 5000 }).catch(() => 0)) === 0) {
    await runCommand(page, "Test: Toggle Inline Coverage");
  }
  const decorations = await waitFor("VS Code's coverage decorations (hit/miss) on shapes.py", inline, { timeout: 30_000 });
  const misses = await page.locator(".monaco-editor .coverage-deco-miss").count();
  log(`native coverage in the editor: ${decorations} decorations, ${misses} on lines not run`);
  await page.waitForTimeout(1000);
  await screenshot(page, "09-coverage.png");
  return Number(percent);
}

async function setColorTheme(page, name) {
  await runCommand(page, "Preferences: Color Theme");
  const input = page.locator(".quick-input-widget input").first();
  await input.fill(name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().click();
}

/** Step 10: fresh marks, then the high-contrast theme: borders on partial/uncovered lines, nothing in the gutter. */
async function highContrastSteps(page) {
  await runCommand(page, "Test: Clear Coverage"); // VS Code's own coverage off: only miogen's marks
  await runCommand(page, "miogen: Toggle coverage marks");
  // Step 6's edit was reverted: the class is as its last result saw it, so its marks are fresh again.
  await waitFor("fresh marks after reverting the edit", async () => {
    const counts = await countMarks(page);
    return counts.covered > 0 && counts.partial > 0 && counts.stale === 0 ? counts : undefined;
  }, { interval: 1000 });
  await setColorTheme(page, "Dark High Contrast");
  const style = await waitFor("the high-contrast theme's border on a partially covered line", async () => {
    const found = await markStyle(page, "partial");
    return found && /dotted/.test(found.borderTop) && !/rgba\(0, 0, 0, 0\)/.test(found.borderTop) ? found : undefined;
  }, { timeout: 30_000 });
  const marks = await countMarks(page);
  if (marks.gutter !== 0 || marks.covered === 0) fail(`high contrast: unexpected marks ${JSON.stringify(marks)}`);
  log(`high contrast: partial line ${JSON.stringify(style)}; marks ${JSON.stringify(marks)}`);
  await clickLine(page, "def describe(self):");
  await page.waitForTimeout(800);
  await screenshot(page, "10-high-contrast.png");
  await setColorTheme(page, "Dark Modern");
}

/** Step 11: the second folder, a plain venv with nothing installed: the bundled server runs there. */
async function secondFolderSteps(page, dirs) {
  await openFromExplorer(page, FOLDER_B, "ledger.py");
  await page.locator(".monaco-editor .view-line", { hasText: "class Ledger" }).first().waitFor({ timeout: 30_000 });
  const ledger = path.join(dirs.wsB, "ledger.py");
  await waitFor("the second folder's server to start (bundled, in the plain venv)", async () => {
    await page.locator(".monaco-editor .view-line", { hasText: "class Ledger" }).first().click();
    return page.locator(".statusbar-item:has(.codicon-beaker)", { hasText: /miogen|\d+\/\d+/ }).first().isVisible();
  }, { timeout: 90_000, interval: 1000 });
  const complaints = await page.locator(".notification-toast", { hasText: /miogen is not installed|did not start|Install miogen/ }).count();
  if (complaints !== 0) fail(`the bundled server should start in the plain venv without a message, saw ${complaints}`);
  await editAndSave(page, ledger, "def __init__(self, limit=0):", { keys: ["ArrowLeft", "ArrowLeft", "Backspace"], text: "5" }, "limit=5):");
  const marks = await waitFor("marks in the second folder's file", async () => {
    const counts = await countMarks(page, "class\\sLedger");
    return counts.covered > 0 ? counts : undefined;
  }, { interval: 1000 });
  log(`second folder marks: ${JSON.stringify(marks)}`);
  // This time through the code lens: the server's command, routed to this folder's server.
  const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: "Generate tests" }).first();
  await lens.waitFor({ timeout: 30_000 });
  await lens.click();
  log("clicked the code lens \"Generate tests\" above class Ledger");
  const testFile = path.join(dirs.wsB, TESTS_DIRECTORY_B, "test_ledger_miogen.py");
  await applyPreview(page, undefined, testFile);
  await waitFor(`${FOLDER_B}/${TESTS_DIRECTORY_B}/test_ledger_miogen.py (the folder's own testsDirectory)`, async () =>
    existsSync(testFile) && /def test_/.test(readFileSync(testFile, "utf8")), { interval: 1000 });
  await page.locator(".monaco-editor .view-line", { hasText: "def test_" }).first().waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1000);
  await screenshot(page, "11-second-folder.png");
  // The plain venv has no pytest: the tests run there with the bundle's (as the Testing view runs them).
  const pytest = pytestIn(dirs.wsB, dirs.pythonB, testFile, bundledModuleRunner(dirs));
  writeFileSync(path.join(artifacts, "pytest-ledger.txt"), pytest.output);
  if (!pytest.ok) fail(`pytest (second venv) on ${testFile} failed:\n${pytest.output.trim().split("\n").slice(-15).join("\n")}`);
  log(`second folder pytest (${path.relative(dirs.wsB, dirs.pythonB) || dirs.pythonB}): ${pytest.output.trim().split("\n").filter((l) => /passed/.test(l)).pop()}`);

  // The Testing view lists both folders' generated tests and runs each folder's with its own interpreter.
  await runCommand(page, "View: Show Testing");
  await waitFor("the Testing view to list ledger's checks/test_ledger_miogen.py", async () =>
    (await testExplorerRows(page)).some((r) => r.label.includes("checks/test_ledger_miogen.py")), { timeout: 60_000, interval: 1000 });
  await runCommand(page, "Test: Run All Tests");
  const rows = await waitFor("both folders' tests to finish in the Testing view", async () => {
    const found = (await testExplorerRows(page)).filter((r) => r.label.startsWith("test_") && !r.label.endsWith(".py"));
    return found.length > 0 && found.every((r) => /testing-(passed|failed|error|skipped)/.test(r.state)) && found.some((r) => /ledger|credit|debit/.test(r.label)) ? found : undefined;
  }, { timeout: 120_000, interval: 1000 });
  const notPassed = rows.filter((r) => !r.state.includes("testing-passed"));
  if (notPassed.length > 0) fail(`tests did not pass in the Testing view: ${notPassed.map((r) => r.label).join(", ")}`);
  log(`Testing view, both folders: ${rows.length} tests passed`);
  await screenshot(page, "12-testing-both-folders.png");

  // Coverage in the plain venv too: coverage.py from the bundle, the venv has none.
  await runCommand(page, "Test: Run All Tests with Coverage");
  const coveragePane = page.locator(".pane", { has: page.locator(".pane-header", { hasText: /test coverage/i }) });
  const ledgerRow = coveragePane.locator(".monaco-list-row", { hasText: /ledger\.py[\s\S]*%/ }).first();
  const text = await waitFor("the Test Coverage view to show ledger.py (plain venv, the bundle's coverage.py)", async () => {
    if (await ledgerRow.isVisible()) return ledgerRow.innerText();
    // Collapsed folder rows of a multi-root workspace: open them.
    for (const row of await coveragePane.locator(".monaco-list-row[aria-expanded='false']").all()) await row.click().catch(() => undefined);
    return undefined;
  }, { timeout: 120_000, interval: 1000 });
  log(`Test Coverage view (plain venv): ${text.replace(/\s+/g, " ").trim()}`);
  await screenshot(page, "13-coverage-plain-venv.png");
}

function checkServersPerFolder(dirs) {
  const extensionLog = readFileSync(path.join(artifacts, "miogen.log"), "utf8");
  for (const [folder, interpreter] of [[FOLDER_A, python], [FOLDER_B, dirs.pythonB]]) {
    const started = new RegExp(`at (\\S+); starting for folder ${folder}: (.*)$`, "m").exec(extensionLog);
    if (!started) fail(`the extension log does not show a server started for folder ${folder}`);
    if (!started[2].endsWith(path.join("bundled", "tool", "serve.py"))) fail(`folder ${folder}'s server is not the bundled one: ${started[2]}`);
    if (path.resolve(started[1]) !== path.resolve(interpreter) && !started[1].startsWith(path.dirname(path.dirname(interpreter)))) {
      fail(`folder ${folder}'s server ran ${started[1]}, expected ${interpreter}`);
    }
    log(`folder ${folder}: bundled server on ${started[1]}`);
  }
  const testingB = extensionLog.split("\n").find((line) => line.includes("Testing: ") && line.includes(`(in ${dirs.wsB})`));
  if (!testingB?.includes(`Testing: ${dirs.pythonB} `)) fail(`the Testing view ran ledger's tests with another interpreter: ${testingB}`);
  const coverageB = extensionLog.split("\n").find((line) => line.includes(`Testing: ${dirs.pythonB} `) && line.includes(" coverage run "));
  if (!coverageB?.includes(path.join("bundled", "tool", "run_module.py"))) fail(`ledger's coverage run did not go through the bundle: ${coverageB}`);
  log(`folder ${FOLDER_B}: Testing view ran pytest with ${dirs.pythonB}`);
}

async function main() {
  const codeServer = requireEnv("MIOGEN_E2E_CODE_SERVER");
  const chromiumPath = requireEnv("MIOGEN_E2E_CHROMIUM");
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });

  const problem = serverProblem();
  if (problem) {
    fail(`the miogen language server is not available: ${problem}\n  The e2e needs \`${python} -m miogen serve\` (installed with \`pip install -e .\`).`);
  }
  log(`miogen server available (${python} -m miogen serve)`);
  const dirs = prepareWorkspace();
  prepareSecondEnvironment(dirs);
  installExtension(codeServer, dirs);
  const port = await freePort();
  const cs = startCodeServer(codeServer, dirs, port);
  let browser;
  let passed = false;
  try {
    await waitFor("code-server /healthz", async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, { timeout: 60_000 });
    log(`code-server up on 127.0.0.1:${port}`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, env: isolatedEnv(dirs) });
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`http://127.0.0.1:${port}/?workspace=${encodeURIComponent(dirs.workspaceFile)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 90_000 });
    await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({ timeout: 90_000 });
    log("workbench visible (multi-root workspace)");

    await firstFolderSteps(page, dirs);
    await explorerSteps(page, dirs);
    await testingViewSteps(page);
    await coverageSteps(page);
    await highContrastSteps(page);
    await secondFolderSteps(page, dirs);
    passed = true;
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
  if (passed) checkServersPerFolder(dirs);
  if (process.env.MIOGEN_E2E_UPDATE_DOCS === "1") {
    mkdirSync(path.join(repo, "docs", "images"), { recursive: true });
    for (const [from, to] of DOC_IMAGES) copyFileSync(path.join(artifacts, from), path.join(repo, "docs", "images", to));
    log("copied the README screenshots to docs/images/ (MIOGEN_E2E_UPDATE_DOCS=1)");
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
