/**
 * Starts, restarts and stops `python -m miogen serve` for one workspace folder (each folder of a
 * multi-root workspace has its own interpreter, so its own server) through vscode-languageclient, and
 * relays the server's custom notifications to the features. Restarts are debounced and serialized.
 */

import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import {
  CancellationToken,
  commands,
  Disposable,
  env,
  EventEmitter,
  extensions,
  LogLevel,
  LogOutputChannel,
  ProgressLocation,
  Uri,
  window,
  WorkspaceFolder,
} from "vscode";
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandler,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  RequestType,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  StaticFeature,
  DynamicFeature,
  Trace,
} from "vscode-languageclient/node";
import { platformProblem, REOPEN_IN_WSL, versionMismatch, WSL_EXTENSION, WSL_GUIDE } from "./compatibility";
import { Debouncer, Serializer } from "./debounce";
import { CONFIG_SECTION, InternalCommands, Methods, RESTART_DELAY_MS, SERVER_ID, SERVER_NAME } from "./constants";
import { traceError, traceInfo } from "./log/logging";
import type { CoverageParams, JobStatusParams, UnitInfo } from "./protocol";
import { canInstall, chooseInterpreter, execFileRunner, installArgs, probeInterpreter, Verdict } from "./python";
import { pythonExtensionInterpreter } from "./pythonEnvironment";
import { type ServerState, withoutServerProgress } from "./status";
import { getServerSettings, getSettings, openSetting } from "./vscodeapi";

export const SERVER_ARGS = ["-m", "miogen", "serve"];

const UnitsRequest = new RequestType<{ uri: string }, UnitInfo[] | null, void>(Methods.units);

/** Messages shown once per window, whichever folder's server met them first (platform, versions). */
const windowNotices = new Set<string>();

export class MiogenServer implements Disposable {
  private client: LanguageClient | undefined;
  private readonly restartDebouncer = new Debouncer(() => void this.restartNow(), RESTART_DELAY_MS);
  private readonly serializer = new Serializer();
  private readonly disposables: Disposable[] = [];
  /** Handlers tied to the current client, dropped with it. */
  private clientDisposables: Disposable[] = [];
  private lastShownProblem: string | undefined;
  /** The server's last stderr lines, to say why it did not start. */
  private stderrTail: string[] = [];
  /** The current client's own handler (restarts after a crash), used once the server runs. */
  private errorHandler: ErrorHandler | undefined;

  private readonly coverageEmitter = new EventEmitter<CoverageParams>();
  private readonly jobStatusEmitter = new EventEmitter<JobStatusParams>();
  private readonly stateEmitter = new EventEmitter<ServerState>();
  readonly onCoverage = this.coverageEmitter.event;
  readonly onJobStatus = this.jobStatusEmitter.event;
  readonly onStateChange = this.stateEmitter.event;

  state: ServerState = "stopped";
  /** Why the server is not running, in words for the user. */
  problem: string | undefined;
  /** The probe's verdict when it failed (what "Install miogen" needs). */
  private failedVerdict: Verdict | undefined;
  /** The server cannot run on this platform (Windows outside WSL): nothing is started. */
  private platformBlocked = false;

  /**
   * `extensionVersion`: the extension's own, compared with the server's at start.
   * `folder` undefined: the window has no workspace folder (files opened on their own).
   */
  constructor(
    private readonly log: LogOutputChannel,
    private readonly extensionVersion: string,
    readonly folder?: WorkspaceFolder,
  ) {
    this.disposables.push(
      this.coverageEmitter,
      this.jobStatusEmitter,
      this.stateEmitter,
      log.onDidChangeLogLevel((level) => void this.client?.setTrace(traceFor(level))),
    );
  }

  get running(): boolean {
    return this.state === "running" && this.client !== undefined;
  }

  /** "folder-name" for messages, or "" without a folder. */
  get label(): string {
    return this.folder ? this.folder.name : "";
  }

  /** Asks for a restart; several asks within RESTART_DELAY_MS give one restart. */
  restart(options: { showProblemAgain?: boolean } = {}): void {
    if (options.showProblemAgain) this.lastShownProblem = undefined;
    this.restartDebouncer.trigger();
  }

  /** Stops the server (if any) and starts a new one; an explicit restart shows a known problem again. */
  restartNow(options: { showProblemAgain?: boolean } = {}): Promise<void> {
    this.restartDebouncer.cancel();
    if (options.showProblemAgain) this.lastShownProblem = undefined;
    return this.serializer.run(async () => {
      await this.stopClient();
      await this.startClient();
    });
  }

  stop(): Promise<void> {
    this.restartDebouncer.cancel();
    return this.serializer.run(() => this.stopClient());
  }

  /** Pushes the server settings with workspace/didChangeConfiguration (section `miogen`). */
  async notifyConfigurationChanged(): Promise<void> {
    if (!this.running) return;
    const settings = { [CONFIG_SECTION]: getServerSettings(this.folder?.uri) };
    await this.client!.sendNotification(DidChangeConfigurationNotification.type, { settings });
  }

  async units(uri: string, token?: CancellationToken): Promise<UnitInfo[]> {
    // A typed request: with a plain method string, an undefined token would turn the params into an array.
    const result = await this.requireClient().sendRequest(UnitsRequest, { uri }, token);
    return result ?? [];
  }

  executeCommand<T>(command: string, args: unknown[], token?: CancellationToken): Promise<T> {
    return this.requireClient().sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token) as Promise<T>;
  }

  /**
   * Shows why the server is not running, with buttons: install miogen into the interpreter when that
   * is what is missing, open the interpreter setting, show the log.
   */
  async showProblem(): Promise<void> {
    if (this.platformBlocked) return this.showPlatformProblem();
    const message = this.problem ?? "miogen: the server is not running.";
    const verdict = this.failedVerdict;
    const install = verdict && canInstall(verdict) ? [INSTALL] : [];
    const choice = await window.showErrorMessage(message, ...install, "Open setting", "Show log");
    if (choice === INSTALL && verdict && canInstall(verdict)) await this.install(verdict.executable);
    if (choice === "Open setting") await openSetting(`${CONFIG_SECTION}.interpreter`);
    if (choice === "Show log") this.log.show();
  }

  /** Where the server cannot run: open the folder in WSL (the WSL extension's command, when installed) or read how. */
  private async showPlatformProblem(): Promise<void> {
    const reopen = extensions.getExtension(WSL_EXTENSION) ? ["Reopen Folder in WSL"] : [];
    const choice = await window.showWarningMessage(this.problem ?? "", ...reopen, "How to use WSL");
    if (choice === "Reopen Folder in WSL") await commands.executeCommand(REOPEN_IN_WSL);
    if (choice === "How to use WSL") await env.openExternal(Uri.parse(WSL_GUIDE));
  }

  /** `python -m pip install miogen` into `python`, then a new server; pip's output goes to the log. */
  async install(python: string): Promise<boolean> {
    const args = installArgs(this.failedVerdict?.ok === false && this.failedVerdict.problem === "noServer");
    traceInfo(`Installing: ${python} ${args.join(" ")}`);
    const output = await window.withProgress(
      { location: ProgressLocation.Notification, title: `miogen: installing miogen into ${python}` },
      () => execFileRunner(python, args, { timeoutMs: 15 * 60_000 }),
    );
    for (const line of `${output.stdout}\n${output.stderr ?? ""}`.split("\n")) if (line.trim()) this.log.info(`[pip] ${line}`);
    if (output.error) {
      const why = (output.stderr ?? output.error.message).trim().split("\n").pop();
      traceError(`Installing miogen failed: ${why}`);
      void window.showErrorMessage(`miogen: installing into ${python} failed: ${why}`, "Show log").then((choice) => {
        if (choice) this.log.show();
      });
      return false;
    }
    void window.showInformationMessage(
      `miogen: installed into ${python}${this.label ? ` (folder ${this.label})` : ""}; starting the server.`,
    );
    await this.restartNow({ showProblemAgain: true });
    return true;
  }

  dispose(): void {
    this.restartDebouncer.cancel();
    void this.stop();
    this.disposables.forEach((d) => d.dispose());
  }

  private requireClient(): LanguageClient {
    if (!this.client || this.state !== "running") {
      throw new ServerNotRunningError(this.problem ?? "miogen: the server is not running.");
    }
    return this.client;
  }

  private setState(state: ServerState, problem?: string): void {
    this.state = state;
    this.problem = problem;
    this.stateEmitter.fire(state);
  }

  private async startClient(): Promise<void> {
    const blocked = platformProblem(process.platform, env.remoteName);
    this.platformBlocked = blocked !== undefined;
    if (blocked) {
      // No probe, no process, no retries: one message for the window, the status bar says the rest.
      traceError(blocked);
      this.setState("failed", blocked);
      if (!windowNotices.has(blocked)) {
        windowNotices.add(blocked);
        void this.showPlatformProblem();
      }
      return;
    }
    this.setState("starting");
    const folder = this.folder;
    const settings = getSettings(folder?.uri);
    const choice = chooseInterpreter({
      setting: settings.interpreter,
      pythonExtension: settings.interpreter ? undefined : await pythonExtensionInterpreter(folder?.uri),
    });
    const where = folder ? ` for folder ${folder.name}` : "";
    traceInfo(`Interpreter${where}: ${choice.path} (${choice.source})`);
    const verdict: Verdict = await probeInterpreter(choice);
    if (!verdict.ok) {
      this.failedVerdict = verdict;
      this.fail(folder ? `${verdict.message} (workspace folder ${folder.name})` : verdict.message);
      return;
    }
    this.failedVerdict = undefined;
    traceInfo(`Python ${verdict.version} at ${verdict.executable}; starting${where}: ${choice.path} ${SERVER_ARGS.join(" ")}`);
    this.stderrTail = [];
    const client = this.createClient(choice.path, folder?.uri.fsPath);
    this.client = client;
    try {
      await client.start();
      this.setTrace(client);
    } catch (error) {
      this.client = undefined;
      this.clientDisposables.forEach((d) => d.dispose());
      this.clientDisposables = [];
      traceError("The server did not start:", error);
      await client.dispose().catch(() => undefined);
      const cause = this.stderrTail.filter((line) => line.trim()).pop() ?? messageOf(error);
      this.fail(`miogen: the server did not start ("${choice.path} ${SERVER_ARGS.join(" ")}"): ${cause}`);
      return;
    }
    this.lastShownProblem = undefined;
    this.setState("running");
    this.checkVersion(client, choice.path);
  }

  /** Warns once per window when the server's version (its initialize result's serverInfo) differs from the extension's. */
  private checkVersion(client: LanguageClient, python: string): void {
    const serverVersion = client.initializeResult?.serverInfo?.version;
    traceInfo(`Server version ${serverVersion ?? "(not reported)"}, extension version ${this.extensionVersion}`);
    const mismatch = versionMismatch(this.extensionVersion, serverVersion, python);
    if (!mismatch || windowNotices.has(mismatch)) return;
    windowNotices.add(mismatch);
    traceError(mismatch);
    void window.showWarningMessage(mismatch, "Open setting", "Show log").then((choice) => {
      if (choice === "Open setting") void openSetting(`${CONFIG_SECTION}.interpreter`);
      if (choice === "Show log") this.log.show();
    });
  }

  private fail(message: string): void {
    traceError(message);
    this.setState("failed", message);
    if (message !== this.lastShownProblem) {
      this.lastShownProblem = message;
      void this.showProblem();
    }
  }

  private createClient(python: string, cwd: string | undefined): LanguageClient {
    const serverOptions: ServerOptions = {
      command: python,
      args: SERVER_ARGS,
      options: { cwd, env: { ...process.env, PYTHONUNBUFFERED: "1" } },
    };
    const folder = this.folder;
    const clientOptions: LanguageClientOptions = {
      // One server per folder: each gets the files of its folder only, and the folder as its workspace.
      documentSelector: folder
        ? [{ scheme: "file", language: "python", pattern: { baseUri: folder.uri.toString(), pattern: "**/*" } }]
        : [{ scheme: "file", language: "python" }],
      workspaceFolder: folder,
      outputChannel: this.log,
      traceOutputChannel: this.log,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      stdioOptions: {
        stdout: (input, channel) => lines(input, (line) => channel.info(line)),
        stderr: (input, channel) =>
          lines(input, (line) => {
            this.stderrTail = [...this.stderrTail.slice(-19), line];
            channel.info(`[server] ${line}`);
          }),
      },
      // A server that dies while starting is reported once by startClient; later crashes get the
      // client's usual restarts (and its messages).
      initializationFailedHandler: (error) => {
        traceError("Server initialization failed:", error);
        return false;
      },
      errorHandler: {
        error: (error, message, count) => this.defaultErrorHandler().error(error, message, count),
        closed: () =>
          this.state === "starting" ? { action: CloseAction.DoNotRestart, handled: true } : this.defaultErrorHandler().closed(),
      },
      initializationOptions: getServerSettings(folder?.uri),
      middleware: {
        provideCodeActions: async (document, range, context, token, next) => {
          const actions = await next(document, range, context, token);
          for (const action of actions ?? []) {
            if (!("edit" in action) || !action.edit || action.command) continue;
            const files = action.edit
              .entries()
              .map(([uri]) => uri.toString())
              .filter((uri) => uri !== document.uri.toString());
            if (files.length > 0) action.command = { command: InternalCommands.rememberTestFiles, title: "", arguments: files };
          }
          return actions;
        },
        workspace: {
          configuration: async (params, token, next) => {
            // Unscoped items are answered for this server's folder: its settings are the ones that apply.
            const answers = params.items.map((item) => configurationFor(item.section, item.scopeUri ?? folder?.uri.toString()));
            if (answers.every((a) => a !== undefined)) return answers;
            const fallback = await next(params, token);
            return Array.isArray(fallback) ? answers.map((a, i) => (a === undefined ? fallback[i] : a)) : fallback;
          },
        },
      },
    };
    const client = new FolderLanguageClient(
      SERVER_ID,
      folder ? `${SERVER_NAME} (${folder.name})` : SERVER_NAME,
      serverOptions,
      clientOptions,
    );
    // Registered after the client's own features, so it fills the capabilities last.
    client.registerFeature({
      fillClientCapabilities: (capabilities) => void withoutServerProgress(capabilities),
      initialize: () => undefined,
      getState: () => ({ kind: "static" }),
      clear: () => undefined,
    });
    this.errorHandler = client.createDefaultErrorHandler();
    this.clientDisposables.push(
      client.onNotification(Methods.coverage, (params: CoverageParams) => this.coverageEmitter.fire(params)),
      client.onNotification(Methods.jobStatus, (params: JobStatusParams) => this.jobStatusEmitter.fire(params)),
      client.onDidChangeState((event) => {
        if (client !== this.client) return;
        if (event.newState === State.Stopped && this.state === "running") this.setState("stopped");
        if (event.newState === State.Running && this.state === "stopped") this.setState("running");
      }),
    );
    return client;
  }

  private defaultErrorHandler(): ErrorHandler {
    return (
      this.errorHandler ?? {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => ({ action: CloseAction.DoNotRestart }),
      }
    );
  }

  private setTrace(client: LanguageClient): void {
    void client.setTrace(traceFor(this.log.logLevel));
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.clientDisposables.forEach((d) => d.dispose());
    this.clientDisposables = [];
    if (!client) return;
    traceInfo("Stopping the server");
    try {
      await client.stop(5000);
    } catch (error) {
      traceError("Stopping the server failed:", error);
    }
    await client.dispose().catch(() => undefined);
    this.setState("stopped");
  }
}

export class ServerNotRunningError extends Error {}

const INSTALL = "Install miogen";

/**
 * A LanguageClient that leaves the server's commands (`executeCommandProvider`) to the extension:
 * vscode-languageclient would register them as VS Code commands, which fails for the second folder's
 * client ("command already exists") and would send every call to the first folder's server. The
 * extension registers them once and routes each call by its document (see ServerPool).
 */
class FolderLanguageClient extends LanguageClient {
  override registerFeature(feature: StaticFeature | DynamicFeature<unknown>): void {
    if ((feature as DynamicFeature<unknown>).registrationType?.method === ExecuteCommandRequest.method) return;
    super.registerFeature(feature);
  }
}

function traceFor(level: LogLevel): Trace {
  return level === LogLevel.Trace ? Trace.Verbose : level === LogLevel.Debug ? Trace.Messages : Trace.Off;
}

/** The answer to a workspace/configuration item in our section (for `scopeUri`'s folder); undefined leaves it to VS Code. */
export function configurationFor(section: string | undefined, scopeUri: string | undefined): unknown {
  if (section !== CONFIG_SECTION && !section?.startsWith(`${CONFIG_SECTION}.`)) return undefined;
  const settings: Record<string, unknown> = getServerSettings(scopeUri ? Uri.parse(scopeUri) : undefined);
  if (section === CONFIG_SECTION) return settings;
  return settings[section.slice(CONFIG_SECTION.length + 1)] ?? null;
}

function lines(input: Readable, onLine: (line: string) => void): void {
  createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on("line", onLine);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
