/**
 * "Generate tests for file" and "Generate tests for folder" (explorer context menu, editor title, palette): the
 * server command `miogen.generateTestsForPaths` runs the project-wide generation (`miogen ctg`) on the selection,
 * under a cancellable notification; Cancel cancels the request, and the server stops the run (the files it wrote
 * are whole; it writes each one atomically). The selection is split by workspace folder: one run per server.
 */

import { EventEmitter, FileType, ProgressLocation, Uri, window, workspace } from "vscode";
import { ServerCommands } from "../common/constants";
import { traceError, traceInfo, traceWarn } from "../common/log/logging";
import { folderOf, pathsSummary, pathsTitle, selectedUris } from "../common/paths";
import type { PathsResult } from "../common/protocol";
import { readyServer } from "./generateTests";
import type { ServerPool } from "./servers";

export class PathsGenerator {
  private readonly writtenEmitter = new EventEmitter<string[]>();
  /** Fires with the URIs of the test files a run wrote. */
  readonly onDidWrite = this.writtenEmitter.event;

  constructor(private readonly pool: ServerPool) {}

  /** The explorer passes (clicked, selected); the editor title passes the file; the palette nothing (the active file). */
  generateForFile(clicked?: unknown, selected?: unknown): Promise<PathsResult[]> {
    const uris = selectedUris(uriString(clicked) ?? activeFile(), uriStrings(selected));
    if (uris.length === 0) {
      void window.showWarningMessage("miogen: open or select a Python file to generate tests for it.");
      return Promise.resolve([]);
    }
    return this.run(uris);
  }

  /** A folder from the explorer; from the editor title (a file) or the palette, the active file's folder. */
  async generateForFolder(clicked?: unknown, selected?: unknown): Promise<PathsResult[]> {
    let given = uriString(clicked);
    if (given && !(await isFolder(Uri.parse(given)))) given = folderOf(given);
    const file = activeFile();
    const folder = given ?? (file ? folderOf(file) : workspace.workspaceFolders?.[0]?.uri.toString());
    const uris = selectedUris(folder, given === uriString(clicked) ? uriStrings(selected) : undefined);
    if (uris.length === 0) {
      void window.showWarningMessage("miogen: open a folder to generate tests for it.");
      return [];
    }
    return this.run(uris);
  }

  dispose(): void {
    this.writtenEmitter.dispose();
  }

  private async run(uris: string[]): Promise<PathsResult[]> {
    const byFolder = new Map<string, string[]>();
    for (const uri of uris) {
      const key = workspace.getWorkspaceFolder(Uri.parse(uri))?.uri.toString() ?? "";
      byFolder.set(key, [...(byFolder.get(key) ?? []), uri]);
    }
    const results: PathsResult[] = [];
    for (const group of byFolder.values()) {
      const result = await this.runOne(group);
      if (result) results.push(result);
    }
    return results;
  }

  private async runOne(uris: string[]): Promise<PathsResult | undefined> {
    const server = await readyServer(this.pool, Uri.parse(uris[0]));
    if (!server) return undefined;
    let cancelled = false;
    let result: PathsResult;
    try {
      result = await window.withProgress(
        { location: ProgressLocation.Notification, title: pathsTitle(uris), cancellable: true },
        (_progress, token) => {
          token.onCancellationRequested(() => (cancelled = true));
          return server.executeCommand<PathsResult>(ServerCommands.generateTestsForPaths, [{ uris }], token);
        },
      );
    } catch (error) {
      if (cancelled) {
        traceInfo(`miogen: cancelled the generation for ${uris.join(", ")}`);
        void window.showInformationMessage(pathsSummary(cancelledResult(uris)).text);
      } else {
        traceError("miogen.generateTestsForPaths failed:", error);
        void window.showErrorMessage(`miogen: generating tests failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return undefined;
    }
    for (const warning of result.warnings) traceWarn(`miogen: ${warning}`);
    if (result.written.length) this.writtenEmitter.fire(result.written);
    const { text, warn } = pathsSummary(result);
    traceInfo(text);
    const open = result.written.length ? ["Open test file"] : [];
    const choice = await (warn ? window.showWarningMessage(text, ...open) : window.showInformationMessage(text, ...open));
    if (choice && result.written.length) await window.showTextDocument(Uri.parse(result.written[0]), { preview: false });
    return result;
  }
}

async function isFolder(uri: Uri): Promise<boolean> {
  try {
    return ((await workspace.fs.stat(uri)).type & FileType.Directory) !== 0;
  } catch {
    return false;
  }
}

function activeFile(): string | undefined {
  const document = window.activeTextEditor?.document;
  return document && document.uri.scheme === "file" && document.languageId === "python" ? document.uri.toString() : undefined;
}

function uriString(value: unknown): string | undefined {
  return value instanceof Uri && value.scheme === "file" ? value.toString() : undefined;
}

function uriStrings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.map(uriString).filter((uri): uri is string => uri !== undefined) : undefined;
}

function cancelledResult(uris: string[]): PathsResult {
  return { uris, written: [], units: 0, ran: 0, tests: 0, covered: 0, total: 0, warnings: [], exitCode: 130, cancelled: true, message: "" };
}
