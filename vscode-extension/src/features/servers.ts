/**
 * One miogen server per workspace folder, started when a Python file of that folder is first opened:
 * a multi-root workspace with one virtual environment per folder runs each folder's code with its
 * own interpreter. Also registers the server's commands once and routes each call to the server of
 * the document it names.
 */

import { Disposable, EventEmitter, LogOutputChannel, TextDocument, Uri, window, workspace, WorkspaceFolder } from "vscode";
import { ServerCommands } from "../common/constants";
import { traceInfo } from "../common/log/logging";
import type { CoverageParams, JobStatusParams, UnitRef } from "../common/protocol";
import { MiogenServer } from "../common/server";
import type { ServerState } from "../common/status";
import { registerCommand } from "../common/vscodeapi";

/** A server's key: its folder's URI, or "" for the one server of a window without folders. */
function keyOf(folder: WorkspaceFolder | undefined): string {
  return folder ? folder.uri.toString() : "";
}

export class ServerPool implements Disposable {
  private readonly servers = new Map<string, MiogenServer>();
  private readonly serverDisposables = new Map<string, Disposable[]>();
  private readonly coverageEmitter = new EventEmitter<CoverageParams>();
  private readonly jobStatusEmitter = new EventEmitter<JobStatusParams>();
  private readonly stateEmitter = new EventEmitter<{ server: MiogenServer; state: ServerState }>();
  private readonly disposables: Disposable[] = [this.coverageEmitter, this.jobStatusEmitter, this.stateEmitter];
  readonly onCoverage = this.coverageEmitter.event;
  readonly onJobStatus = this.jobStatusEmitter.event;
  readonly onStateChange = this.stateEmitter.event;

  /**
   * `generateTests(ref)` handles `miogen.generateTests` (code lenses call it) with progress and a
   * summary; the other server commands go to the document's server as they are.
   */
  constructor(
    private readonly log: LogOutputChannel,
    private readonly extensionVersion: string,
    generateTests: (ref: UnitRef) => Promise<unknown>,
    /** The extension's folder: the bundled server lies under it (bundled/). */
    private readonly extensionRoot: string,
  ) {
    this.disposables.push(
      registerCommand(ServerCommands.generateTests, (ref: unknown) => (isUnitRef(ref) ? generateTests(ref) : undefined)),
      registerCommand(ServerCommands.insertTests, (ref: unknown) => this.forward(ServerCommands.insertTests, ref)),
      registerCommand(ServerCommands.cancel, (ref: unknown) => this.forward(ServerCommands.cancel, ref)),
      workspace.onDidOpenTextDocument((document) => this.startFor(document)),
      workspace.onDidChangeWorkspaceFolders((event) => {
        for (const folder of event.removed) void this.remove(keyOf(folder));
        if (event.added.length > 0 && this.servers.has("")) void this.remove("");
        workspace.textDocuments.forEach((document) => this.startFor(document));
      }),
    );
  }

  /** Starts the servers of the folders whose Python files are open already. */
  startForOpenDocuments(): void {
    workspace.textDocuments.forEach((document) => this.startFor(document));
    const active = window.activeTextEditor?.document;
    if (active) this.startFor(active);
  }

  /** The folder a file belongs to for miogen, or null when it is outside every workspace folder. */
  folderOf(uri: Uri): WorkspaceFolder | undefined | null {
    const folder = workspace.getWorkspaceFolder(uri);
    if (folder) return folder;
    return workspace.workspaceFolders?.length ? null : undefined;
  }

  /** The server for `uri`'s folder (created, and started, on first use); undefined outside the folders. */
  serverFor(uri: Uri): MiogenServer | undefined {
    const folder = this.folderOf(uri);
    if (folder === null) return undefined;
    const key = keyOf(folder);
    let server = this.servers.get(key);
    if (!server) {
      server = this.create(key, folder);
      traceInfo(`Starting the server for ${folder ? `folder ${folder.name}` : "files without a workspace folder"}`);
      void server.restartNow();
    }
    return server;
  }

  /** The server for `uri`'s folder if one was started. */
  existing(uri: Uri): MiogenServer | undefined {
    const folder = this.folderOf(uri);
    return folder === null ? undefined : this.servers.get(keyOf(folder));
  }

  all(): MiogenServer[] {
    return [...this.servers.values()];
  }

  /** Restarts the server of `folder` (undefined: every server). */
  restart(folder?: Uri, options: { showProblemAgain?: boolean } = {}): void {
    for (const [key, server] of this.servers) {
      if (!folder || key === folder.toString()) server.restart(options);
    }
  }

  notifyConfigurationChanged(): void {
    this.servers.forEach((server) => void server.notifyConfigurationChanged());
  }

  async stop(): Promise<void> {
    await Promise.all([...this.servers.keys()].map((key) => this.remove(key)));
  }

  dispose(): void {
    void this.stop();
    this.disposables.forEach((d) => d.dispose());
  }

  private startFor(document: TextDocument): void {
    if (document.languageId === "python" && document.uri.scheme === "file") this.serverFor(document.uri);
  }

  private create(key: string, folder: WorkspaceFolder | undefined): MiogenServer {
    const server = new MiogenServer(this.log, this.extensionVersion, this.extensionRoot, folder);
    this.servers.set(key, server);
    this.serverDisposables.set(key, [
      server.onCoverage((params) => this.coverageEmitter.fire(params)),
      server.onJobStatus((params) => this.jobStatusEmitter.fire(params)),
      server.onStateChange((state) => this.stateEmitter.fire({ server, state })),
    ]);
    return server;
  }

  private async remove(key: string): Promise<void> {
    const server = this.servers.get(key);
    if (!server) return;
    this.servers.delete(key);
    this.serverDisposables.get(key)?.forEach((d) => d.dispose());
    this.serverDisposables.delete(key);
    await server.stop();
    server.dispose();
  }

  private forward(command: string, ref: unknown): Promise<unknown> | undefined {
    if (!isUnitRef(ref)) return undefined;
    const server = this.serverFor(Uri.parse(ref.uri));
    return server?.executeCommand(command, [ref]);
  }
}

export function isUnitRef(value: unknown): value is UnitRef {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as UnitRef).uri === "string" &&
    typeof (value as UnitRef).unit === "string"
  );
}
