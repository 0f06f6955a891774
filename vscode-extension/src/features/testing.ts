/**
 * The Testing view's "miogen" controller: the tests miogen wrote, run with pytest in the folder's
 * interpreter (Run and Debug profiles), or under coverage.py (Run with Coverage), whose statement and
 * branch coverage goes to VS Code's Test Coverage API. The live search's marks stay with
 * CoverageDecorations: this controller publishes coverage only for runs the user starts.
 */

import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import {
  BranchCoverage,
  CancellationToken,
  ConfigurationChangeEvent,
  debug,
  DeclarationCoverage,
  Disposable,
  ExtensionContext,
  extensions,
  FileCoverage,
  FileCoverageDetail,
  Location,
  LogOutputChannel,
  Position,
  Range,
  RelativePattern,
  StatementCoverage,
  TestCoverageCount,
  TestItem,
  TestMessage,
  TestRun,
  TestRunProfileKind,
  TestRunRequest,
  tests,
  Uri,
  window,
  workspace,
  WorkspaceFolder,
} from "vscode";
import { withBundleFallback } from "../common/bundle";
import { CONFIG_SECTION } from "../common/constants";
import { FileCoverageData, lineSpan, parseCoverageJson } from "../common/coverageReport";
import { traceError, traceInfo } from "../common/log/logging";
import {
  CoverageFiles,
  coverageJsonArgs,
  debugConfiguration,
  listsGeneratedTests,
  parseReport,
  ParsedReport,
  REPORT_ENV,
  runArgs,
  RunKind,
  Selection,
  TestResult,
  userPytestArgs,
} from "../common/pytestRun";
import { chooseInterpreter } from "../common/python";
import { pythonExtensionInterpreter } from "../common/pythonEnvironment";
import { definitionKey, isGeneratedTestFile, parseTestFile, patternGlob } from "../common/testFiles";
import { getSettings } from "../common/vscodeapi";

const REMEMBERED_KEY = "miogen.testFiles";
const EXCLUDE = "**/{.venv,venv,.git,node_modules,__pycache__,site-packages,.tox,.nox,.miogen}/**";
const MAX_FILES = 5000;

interface FileEntry {
  item: TestItem;
  folder: WorkspaceFolder;
}

export class GeneratedTestsController implements Disposable {
  private readonly controller = tests.createTestController("miogen", "miogen: generated tests");
  private readonly files = new Map<string, FileEntry>();
  private readonly details = new WeakMap<FileCoverage, FileCoverageDetail[]>();
  private readonly disposables: Disposable[] = [];
  private watchers: Disposable[] = [];
  private readonly remembered: Set<string>;

  constructor(
    private readonly context: ExtensionContext,
    private readonly log: LogOutputChannel,
  ) {
    this.remembered = new Set(context.workspaceState.get<string[]>(REMEMBERED_KEY, []));
    const profile = (label: string, kind: TestRunProfileKind, runKind: RunKind, isDefault: boolean) =>
      this.controller.createRunProfile(label, kind, (request, token) => this.run(runKind, request, token), isDefault);
    profile("Run generated tests", TestRunProfileKind.Run, "run", true);
    profile("Debug generated tests", TestRunProfileKind.Debug, "debug", true);
    const coverage = profile("Run generated tests with coverage", TestRunProfileKind.Coverage, "coverage", true);
    coverage.loadDetailedCoverage = async (_run, fileCoverage) => this.details.get(fileCoverage) ?? [];
    this.controller.refreshHandler = () => this.discoverAll();
    this.controller.resolveHandler = async (item) => {
      if (!item) await this.discoverAll();
    };
    this.disposables.push(
      this.controller,
      workspace.onDidChangeWorkspaceFolders(() => void this.discoverAll()),
    );
    void this.discoverAll();
  }

  /** A file miogen just wrote or merged tests into: listed from now on, also without the header. */
  async remember(uri: string): Promise<void> {
    const parsed = Uri.parse(uri);
    if (!this.remembered.has(parsed.toString())) {
      this.remembered.add(parsed.toString());
      await this.context.workspaceState.update(REMEMBERED_KEY, [...this.remembered]);
    }
    await this.refreshFile(parsed);
  }

  onConfigurationChanged(event: ConfigurationChangeEvent): void {
    const keys = [`${CONFIG_SECTION}.testingView`, `${CONFIG_SECTION}.testFilePattern`, "python.testing.pytestEnabled"];
    if (keys.some((key) => event.affectsConfiguration(key))) void this.discoverAll();
  }

  dispose(): void {
    this.watchers.forEach((d) => d.dispose());
    this.disposables.forEach((d) => d.dispose());
  }

  // --- discovery -------------------------------------------------------------------------------

  private listed(folder: WorkspaceFolder): boolean {
    const python = extensions.getExtension("ms-python.python") !== undefined;
    const pytestEnabled = workspace.getConfiguration("python.testing", folder.uri).get<boolean>("pytestEnabled") === true;
    return listsGeneratedTests(getSettings(folder.uri).testingView, { installed: python, pytestEnabled });
  }

  private async discoverAll(): Promise<void> {
    this.watchers.forEach((d) => d.dispose());
    this.watchers = [];
    this.files.clear();
    this.controller.items.replace([]);
    for (const folder of workspace.workspaceFolders ?? []) {
      if (!this.listed(folder)) {
        traceInfo(`Testing view: ${folder.name}'s generated tests are left to the Python extension's pytest discovery`);
        continue;
      }
      const glob = `**/{test_*.py,*_test.py,${patternGlob(getSettings(folder.uri).testFilePattern)}}`;
      const watcher = workspace.createFileSystemWatcher(new RelativePattern(folder, glob));
      watcher.onDidCreate((uri) => void this.refreshFile(uri));
      watcher.onDidChange((uri) => void this.refreshFile(uri));
      watcher.onDidDelete((uri) => this.removeFile(uri));
      this.watchers.push(watcher);
      const found = await workspace.findFiles(new RelativePattern(folder, glob), EXCLUDE, MAX_FILES);
      const extra = [...this.remembered]
        .map((uri) => Uri.parse(uri))
        .filter((uri) => workspace.getWorkspaceFolder(uri) === folder);
      await Promise.all([...found, ...extra].map((uri) => this.refreshFile(uri)));
    }
  }

  /** (Re)reads one file: listed when it has miogen's header or miogen merged into it. */
  private async refreshFile(uri: Uri): Promise<void> {
    const folder = workspace.getWorkspaceFolder(uri);
    if (!folder || !this.listed(folder)) return;
    let text: string;
    try {
      text = Buffer.from(await workspace.fs.readFile(uri)).toString("utf8");
    } catch {
      this.removeFile(uri);
      return;
    }
    if (!isGeneratedTestFile(text) && !this.remembered.has(uri.toString())) {
      this.removeFile(uri);
      return;
    }
    const file = this.fileItem(uri, folder);
    const parsed = parseTestFile(text);
    const children: TestItem[] = parsed.functions.map((test) =>
      this.testItem(uri, definitionKey(test), test.name, test.line, test.endLine),
    );
    for (const cls of parsed.classes) {
      const item = this.testItem(uri, cls.name, cls.name, cls.line, cls.endLine);
      item.children.replace(cls.tests.map((test) => this.testItem(uri, definitionKey(test), test.name, test.line, test.endLine)));
      children.push(item);
    }
    file.children.replace(children);
  }

  private fileItem(uri: Uri, folder: WorkspaceFolder): TestItem {
    const known = this.files.get(uri.toString());
    if (known) return known.item;
    const label = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join("/");
    const item = this.controller.createTestItem(uri.toString(), label, uri);
    this.files.set(uri.toString(), { item, folder });
    this.parentFor(folder).add(item);
    return item;
  }

  /** Multi-root: one node per folder, holding its files; one folder: the files at the top. */
  private parentFor(folder: WorkspaceFolder) {
    if ((workspace.workspaceFolders?.length ?? 0) <= 1) return this.controller.items;
    const id = folder.uri.toString();
    let node = this.controller.items.get(id);
    if (!node) {
      node = this.controller.createTestItem(id, folder.name, folder.uri);
      this.controller.items.add(node);
    }
    return node.children;
  }

  private testItem(uri: Uri, key: string, label: string, line: number, endLine: number): TestItem {
    const item = this.controller.createTestItem(`${uri.toString()}::${key}`, label, uri);
    item.range = new Range(line, 0, endLine, 0);
    return item;
  }

  private removeFile(uri: Uri): void {
    const entry = this.files.get(uri.toString());
    if (!entry) return;
    this.files.delete(uri.toString());
    const parent = entry.item.parent;
    (parent ? parent.children : this.controller.items).delete(entry.item.id);
    if (parent && parent.children.size === 0) this.controller.items.delete(parent.id);
  }

  // --- running ---------------------------------------------------------------------------------

  private async run(kind: RunKind, request: TestRunRequest, token: CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    try {
      for (const [folder, items] of this.selectedByFolder(request)) {
        if (token.isCancellationRequested) break;
        await this.runFolder(kind, run, folder, items, token);
      }
    } catch (error) {
      traceError("Running generated tests failed:", error);
      run.appendOutput(`miogen: ${error instanceof Error ? error.message : String(error)}\r\n`);
    } finally {
      run.end();
    }
  }

  /** The requested items (all when none named), without the excluded ones, grouped by workspace folder. */
  private selectedByFolder(request: TestRunRequest): Map<WorkspaceFolder, TestItem[]> {
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    const roots: TestItem[] = request.include ? [...request.include] : [];
    if (!request.include) this.controller.items.forEach((item) => roots.push(item));
    const groups = new Map<WorkspaceFolder, TestItem[]>();
    const visit = (item: TestItem) => {
      if (excluded.has(item.id)) return;
      const entry = this.entryOf(item);
      if (!entry) {
        item.children.forEach(visit); // a folder node
        return;
      }
      const list = groups.get(entry.folder) ?? [];
      list.push(item);
      groups.set(entry.folder, list);
    };
    roots.forEach(visit);
    return groups;
  }

  private entryOf(item: TestItem): FileEntry | undefined {
    return item.uri ? this.files.get(item.uri.toString()) : undefined;
  }

  private async runFolder(
    kind: RunKind,
    run: TestRun,
    folder: WorkspaceFolder,
    items: TestItem[],
    token: CancellationToken,
  ): Promise<void> {
    const leaves = items.flatMap(leavesOf);
    leaves.forEach((leaf) => run.started(leaf));
    const python = await this.interpreterFor(folder);
    const selections = items.map((item) => this.selectionOf(item, folder));
    const userArgs = userPytestArgs(workspace.getConfiguration("python.testing", folder.uri).get("pytestArgs"), kind);
    const scratch = await mkdtemp(path.join(tmpdir(), "miogen-testing-"));
    const reportFile = path.join(scratch, "report.jsonl");
    const env = this.environment(reportFile);
    const files: CoverageFiles = {
      dataFile: path.join(scratch, ".coverage"),
      jsonFile: path.join(scratch, "coverage.json"),
      folder: folder.uri.fsPath,
      testFiles: [...new Set(items.map((item) => item.uri!.fsPath))],
    };
    try {
      run.appendOutput(
        `miogen: ${python} ${kind === "coverage" ? "-m coverage run … -m pytest" : "-m pytest"} ${selections.map((s) => (s.key ? `${s.file}::${s.key}` : s.file)).join(" ")}\r\n`,
      );
      const exitCode =
        kind === "debug"
          ? await this.debugRun(run, folder, python, selections, userArgs, env, token)
          : await this.spawnRun(run, python, this.withBundle(runArgs(kind, selections, files, userArgs), folder), folder.uri.fsPath, env, token);
      const report = parseReport(await readFile(reportFile, "utf8").catch(() => ""));
      this.publishResults(run, leaves, report, exitCode);
      if (kind === "coverage" && !token.isCancellationRequested)
        await this.publishCoverage(run, python, folder, files, env, token);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private async interpreterFor(folder: WorkspaceFolder): Promise<string> {
    const setting = getSettings(folder.uri).interpreter;
    return chooseInterpreter({ setting, pythonExtension: setting ? undefined : await pythonExtensionInterpreter(folder.uri) })
      .path;
  }

  /** pytest and coverage.py from the bundle where the interpreter lacks them ("useBundled"). */
  private withBundle(args: string[], folder: WorkspaceFolder): string[] {
    return withBundleFallback(args, getSettings(folder.uri).importStrategy, this.context.extensionPath);
  }

  private environment(reportFile: string): Record<string, string> {
    const pluginDir = Uri.joinPath(this.context.extensionUri, "python").fsPath;
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    env.PYTHONPATH = [pluginDir, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter);
    env[REPORT_ENV] = reportFile;
    return env;
  }

  private selectionOf(item: TestItem, folder: WorkspaceFolder): Selection {
    const file = path.relative(folder.uri.fsPath, item.uri!.fsPath).split(path.sep).join("/");
    const key = item.id === item.uri!.toString() ? "" : item.id.slice(item.uri!.toString().length + 2);
    return { file, key };
  }

  private spawnRun(
    run: TestRun,
    python: string,
    args: string[],
    cwd: string,
    env: Record<string, string>,
    token: CancellationToken,
  ): Promise<number | null> {
    this.log.info(`Testing: ${python} ${args.join(" ")} (in ${cwd})`);
    return new Promise((resolve) => {
      const child = spawn(python, args, { cwd, env, windowsHide: true });
      const output = (data: Buffer) => run.appendOutput(data.toString().replace(/\r?\n/g, "\r\n"));
      child.stdout.on("data", output);
      child.stderr.on("data", output);
      const cancel = token.onCancellationRequested(() => child.kill());
      child.on("error", (error) => {
        run.appendOutput(`miogen: cannot run ${python}: ${error.message}\r\n`);
        cancel.dispose();
        resolve(null);
      });
      child.on("close", (code) => {
        cancel.dispose();
        resolve(code);
      });
    });
  }

  private async debugRun(
    run: TestRun,
    folder: WorkspaceFolder,
    python: string,
    selections: Selection[],
    userArgs: string[],
    env: Record<string, string>,
    token: CancellationToken,
  ): Promise<number | null> {
    const type = extensions.getExtension("ms-python.debugpy")
      ? "debugpy"
      : extensions.getExtension("ms-python.python")
        ? "python"
        : undefined;
    if (!type) {
      const message = "miogen: debugging tests needs the Python Debugger extension (ms-python.debugpy).";
      run.appendOutput(`${message}\r\n`);
      void window.showErrorMessage(message);
      return null;
    }
    const runId = Math.random().toString(36).slice(2);
    const config = debugConfiguration(type, { python, cwd: folder.uri.fsPath, selections, env, runId, userArgs });
    return new Promise<number | null>((resolve) => {
      const ended = debug.onDidTerminateDebugSession((session) => {
        if (session.configuration.miogenRunId !== runId) return;
        ended.dispose();
        resolve(0);
      });
      token.onCancellationRequested(() => void debug.stopDebugging());
      debug.startDebugging(folder, config as never, { testRun: run }).then(
        (started) => {
          if (!started) {
            ended.dispose();
            resolve(null);
          }
        },
        (error: unknown) => {
          run.appendOutput(`miogen: the debugger did not start: ${String(error)}\r\n`);
          ended.dispose();
          resolve(null);
        },
      );
    });
  }

  private publishResults(run: TestRun, leaves: TestItem[], report: ParsedReport, exitCode: number | null): void {
    const byKey = new Map<string, TestResult>(
      report.results.map((result) => [`${Uri.file(result.file).toString()}::${result.key}`, result]),
    );
    const brokenFiles = new Map(report.collectionErrors.map((error) => [Uri.file(error.file).toString(), error.text]));
    for (const leaf of leaves) {
      const result = byKey.get(leaf.id);
      const broken = brokenFiles.get(leaf.uri!.toString());
      if (broken !== undefined) run.errored(leaf, new TestMessage(broken));
      else if (!result) {
        const why =
          exitCode === null ? "pytest did not run (see the output)" : "pytest did not report this test (see the output)";
        if (exitCode === 0 || exitCode === 5) run.skipped(leaf);
        else run.errored(leaf, new TestMessage(why));
      } else if (result.outcome === "passed") run.passed(leaf, result.durationMs);
      else if (result.outcome === "skipped") run.skipped(leaf);
      else {
        const message = new TestMessage(result.messages.join("\n\n") || result.outcome);
        if (result.location)
          message.location = new Location(Uri.file(result.location.path), new Position(Math.max(0, result.location.line - 1), 0));
        if (result.outcome === "failed") run.failed(leaf, message, result.durationMs);
        else run.errored(leaf, message, result.durationMs);
      }
    }
  }

  private async publishCoverage(
    run: TestRun,
    python: string,
    folder: WorkspaceFolder,
    files: CoverageFiles,
    env: Record<string, string>,
    token: CancellationToken,
  ): Promise<void> {
    const exit = await this.spawnRun(run, python, this.withBundle(coverageJsonArgs(files), folder), folder.uri.fsPath, env, token);
    let data: FileCoverageData[];
    try {
      data = parseCoverageJson(await readFile(files.jsonFile, "utf8"));
    } catch (error) {
      run.appendOutput(`miogen: no coverage report (coverage json exited ${exit}): ${String(error)}\r\n`);
      return;
    }
    for (const file of data) {
      const uri = Uri.file(path.resolve(folder.uri.fsPath, file.path));
      const coverage = new FileCoverage(
        uri,
        new TestCoverageCount(file.covered, file.total),
        file.totalBranches > 0 ? new TestCoverageCount(file.coveredBranches, file.totalBranches) : undefined,
        file.declarations.length > 0
          ? new TestCoverageCount(file.declarations.filter((d) => d.executed).length, file.declarations.length)
          : undefined,
      );
      this.details.set(coverage, await detailsOf(uri, file));
      run.addCoverage(coverage);
    }
    traceInfo(`Testing: coverage of ${data.length} file(s) published for ${folder.name}`);
  }
}

function leavesOf(item: TestItem): TestItem[] {
  if (item.children.size === 0) return [item];
  const out: TestItem[] = [];
  item.children.forEach((child) => out.push(...leavesOf(child)));
  return out;
}

/** Statement, branch and declaration details, with each statement's span read from the file. */
async function detailsOf(uri: Uri, file: FileCoverageData): Promise<FileCoverageDetail[]> {
  const lines = await readFile(uri.fsPath, "utf8").then(
    (text) => text.split(/\r?\n/),
    () => [] as string[],
  );
  const span = (line: number) => {
    const { start, end } = lineSpan(lines, line);
    return new Range(line, start, line, end);
  };
  const statements = file.statements.map(
    (statement) =>
      new StatementCoverage(
        statement.executed,
        span(statement.line),
        statement.branches.map(
          (branch) =>
            new BranchCoverage(branch.executed, branch.toLine === undefined ? undefined : span(branch.toLine), branch.label),
        ),
      ),
  );
  const declarations = file.declarations.map((d) => new DeclarationCoverage(d.name, d.executed, span(d.line)));
  return [...statements, ...declarations];
}
