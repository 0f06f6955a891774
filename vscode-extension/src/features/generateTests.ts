/**
 * "Generate tests for class or function": finds the unit (cursor, or a quick pick from `miogen/units`), runs the server
 * command `miogen.generateTests` under a cancellable progress (cancel -> `miogen.cancel`), then opens the
 * test file beside the editor and shows a summary. Code lenses that call the server command directly get
 * the same treatment through the command ServerPool registers. Each call goes to the server of the
 * file's workspace folder.
 */

import { CancellationToken, EventEmitter, ProgressLocation, TextDocument, Uri, ViewColumn, window, workspace } from "vscode";
import { ServerCommands } from "../common/constants";
import { traceError, traceInfo } from "../common/log/logging";
import type { GenerateResult, JobStatusParams, UnitRef } from "../common/protocol";
import type { MiogenServer } from "../common/server";
import { summaryMessage } from "../common/status";
import { chooseUnit } from "../common/units";
import { uriKey } from "./coverageDecorations";
import { isUnitRef, ServerPool } from "./servers";

/** How long to wait for the server to answer after the user cancelled. */
const CANCEL_GRACE_MS = 5000;

export class TestGenerator {
  private readonly generatedEmitter = new EventEmitter<GenerateResult>();
  /** Fires after tests were written (the result's `testUri` names the file). */
  readonly onDidGenerate = this.generatedEmitter.event;
  private pool: ServerPool | undefined;
  private showElsewhere: (ref: UnitRef) => () => void = () => () => undefined;

  /**
   * Set once the pool exists (the pool routes the server command back here). `showElsewhere(ref)` hides
   * the job from the status bar while its notification shows it (one indicator per job; call the result
   * to undo).
   */
  attach(pool: ServerPool, showElsewhere?: (ref: UnitRef) => () => void): void {
    this.pool = pool;
    if (showElsewhere) this.showElsewhere = showElsewhere;
  }

  /** The command palette / context menu entry. `arg` is a Uri (context menu) or a UnitRef (programmatic). */
  async generateForClass(arg?: unknown): Promise<GenerateResult | undefined> {
    let ref: UnitRef | undefined;
    try {
      ref = isUnitRef(arg) ? arg : await this.pickUnit(arg instanceof Uri ? arg : undefined);
    } catch (error) {
      traceError("miogen/units failed:", error);
      void window.showErrorMessage(`miogen: could not list the classes of this file: ${messageOf(error)}`);
      return undefined;
    }
    return ref ? this.run(ref) : undefined;
  }

  /** For `miogen.generateTests` invoked by a code lens: same flow, same result shape. */
  runFromServerCommand(ref: UnitRef): Promise<GenerateResult | undefined> {
    return this.run(ref);
  }

  dispose(): void {
    this.generatedEmitter.dispose();
  }

  private serverFor(uri: Uri): Promise<MiogenServer | undefined> {
    return readyServer(this.pool, uri);
  }

  private async pickUnit(resource: Uri | undefined): Promise<UnitRef | undefined> {
    const editor = window.activeTextEditor;
    let document: TextDocument | undefined = editor?.document;
    if (resource && (!document || uriKey(document.uri) !== uriKey(resource))) {
      document = await workspace.openTextDocument(resource);
    }
    if (!document || document.languageId !== "python") {
      void window.showWarningMessage("miogen: open a Python file to generate tests for one of its classes.");
      return undefined;
    }
    const uri = document.uri.toString();
    const server = await this.serverFor(document.uri);
    if (!server) return undefined;
    const units = await server.units(uri);
    const cursor = editor && editor.document === document ? editor.selection.active : undefined;
    const choice = chooseUnit(units, cursor);
    switch (choice.kind) {
      case "none":
        void window.showWarningMessage(
          `miogen: no class or function found in ${workspace.asRelativePath(document.uri)} (a syntax error hides them).`,
        );
        return undefined;
      case "atCursor":
      case "only":
        return { uri, unit: choice.unit.name };
      case "pick": {
        const picked = await window.showQuickPick(choice.items, {
          title: "miogen: generate tests for…",
          placeHolder: "The cursor is not inside a class or function: pick one",
        });
        return picked ? { uri, unit: picked.unit.name } : undefined;
      }
    }
  }

  private async run(ref: UnitRef): Promise<GenerateResult | undefined> {
    const server = await this.serverFor(Uri.parse(ref.uri));
    if (!server) return undefined;
    let result: GenerateResult | undefined;
    let cancelled = false;
    const shown = this.showElsewhere(ref);
    try {
      result = await window.withProgress(
        { location: ProgressLocation.Notification, title: `miogen: generating tests for ${ref.unit}`, cancellable: true },
        (progress, token) => {
          let reported = 0;
          const subscription = server.onJobStatus((status: JobStatusParams) => {
            if (status.unit !== ref.unit || uriKey(status.uri) !== uriKey(ref.uri)) return;
            const percent = Math.max(0, Math.min(100, status.percent ?? reported));
            const branches = status.total ? `${status.covered ?? 0}/${status.total} branches` : "";
            progress.report({ message: status.message || branches || status.state, increment: percent - reported });
            reported = percent;
          });
          const request = server.executeCommand<GenerateResult>(ServerCommands.generateTests, [ref]);
          return untilCancelled(request, token, () => {
            cancelled = true;
            void this.cancel(server, ref);
          }).finally(() => subscription.dispose());
        },
      );
    } catch (error) {
      if (!cancelled) {
        traceError(`miogen.generateTests ${ref.unit} failed:`, error);
        void window.showErrorMessage(`miogen: generating tests for ${ref.unit} failed: ${messageOf(error)}`);
        return undefined;
      }
    } finally {
      shown();
    }
    if (cancelled || !result) {
      void window.showInformationMessage(`miogen: cancelled the generation for ${ref.unit}.`);
      return undefined;
    }
    await this.showResult(result);
    return result;
  }

  private async cancel(server: MiogenServer, ref: UnitRef): Promise<void> {
    try {
      await server.executeCommand(ServerCommands.cancel, [ref]);
    } catch (error) {
      traceError("miogen.cancel failed:", error);
    }
  }

  private async showResult(result: GenerateResult): Promise<void> {
    const testUri = result.testUri ? Uri.parse(result.testUri) : Uri.file(result.testFile);
    const message = summaryMessage(result, workspace.asRelativePath(testUri));
    traceInfo(message);
    if (!result.applied) {
      const exists = await workspace.fs.stat(testUri).then(
        () => true,
        () => false,
      );
      const choice = await window.showWarningMessage(message, ...(exists ? ["Open test file"] : []));
      if (choice) await this.open(testUri);
      return;
    }
    const document = await this.open(testUri);
    if (document.isDirty) await document.save(); // the edit came through workspace/applyEdit; keep it on disk
    this.generatedEmitter.fire({ ...result, testUri: testUri.toString() });
    void window.showInformationMessage(message);
  }

  private async open(testUri: Uri): Promise<TextDocument> {
    const document = await workspace.openTextDocument(testUri);
    await window.showTextDocument(document, { viewColumn: ViewColumn.Beside, preview: false, preserveFocus: true });
    return document;
  }
}

/** The running server for `uri`'s folder (waiting while it starts); otherwise says why not and returns undefined. */
export async function readyServer(pool: ServerPool | undefined, uri: Uri): Promise<MiogenServer | undefined> {
  const server = pool?.serverFor(uri);
  if (!server) {
    void window.showWarningMessage(
      `miogen: ${workspace.asRelativePath(uri)} is outside the workspace folders; open its folder to generate tests.`,
    );
    return undefined;
  }
  if (server.state === "starting")
    await new Promise<void>((resolve) => {
      const subscription = server.onStateChange((state) => {
        if (state !== "starting") {
          subscription.dispose();
          resolve();
        }
      });
    });
  if (!server.running) {
    await server.showProblem();
    return undefined;
  }
  return server;
}

/** The request's result; after a cancel, that result if it comes within the grace period, else undefined. */
function untilCancelled<T>(request: Promise<T>, token: CancellationToken, onCancel: () => void): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const listener = token.onCancellationRequested(() => {
      onCancel();
      timer = setTimeout(() => resolve(undefined), CANCEL_GRACE_MS);
    });
    request.then(resolve, reject).finally(() => {
      listener.dispose();
      if (timer) clearTimeout(timer);
    });
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
