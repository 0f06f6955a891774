/**
 * Starts, restarts and stops `python -m miogen serve` for one workspace folder (each folder of a
 * multi-root workspace has its own interpreter, so its own server) through vscode-languageclient, and
 * relays the server's custom notifications to the features. Restarts are debounced and serialized.
 */

import { existsSync } from "node:fs";
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
import { bundleProblem, ImportStrategy, numpyProblem, serverLaunch } from "./bundle";
import { platformProblem, REOPEN_IN_WSL, versionMismatch, WSL_EXTENSION, WSL_GUIDE } from "./compatibility";
import { Debouncer, Serializer } from "./debounce";
import { CONFIG_SECTION, InternalCommands, Methods, RESTART_DELAY_MS, SERVER_ID, SERVER_NAME } from "./constants";
import { traceError, traceInfo } from "./log/logging";
import type { CoverageParams, JobStatusParams, UnitInfo } from "./protocol";
import { chooseInterpreter, probeInterpreter, Verdict } from "./python";
import { pythonExtensionInterpreter } from "./pythonEnvironment";
import { type ServerState, withoutServerProgress } from "./status";
import { getServerSettings, getSettings, openSetting } from "./vscodeapi";

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
  /** The server cannot run on this platform (Windows outside WSL): nothing is started. */
  private platformBlocked = false;

  /**
   * `extensionVersion`: the extension's own, compared with the server's at start.
   * `extensionRoot`: the extension's folder, where the bundled server lies (bundled/).
   * `folder` undefined: the window has no workspace folder (files opened on their own).
   */
  constructor(
    private readonly log: LogOutputChannel,
    private readonly extensionVersion: string,
    private readonly extensionRoot: string,
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
   * Shows why the server is not running, with buttons: open the interpreter setting (or the import
   * strategy's, when that is what the message is about), show the log. Nothing is ever installed.
   */
  async showProblem(): Promise<void> {
    if (this.platformBlocked) return this.showPlatformProblem();
    const message = this.problem ?? "miogen: the server is not running.";
    const choice = await window.showErrorMessage(message, "Open setting", "Show log");
    const setting = message.includes("miogen.importStrategy") && !message.includes("miogen.interpreter") ? "importStrategy" : "interpreter";
    if (choice === "Open setting") await openSetting(`${CONFIG_SECTION}.${setting}`);
    if (choice === "Show log") this.log.show();
  }

  /** Where the server cannot run: open the folder in WSL (the WSL extension's command, when installed) or read how. */
  private async showPlatformProblem(): Promise<void> {
    const reopen = extensions.getExtension(WSL_EXTENSION) ? ["Reopen Folder in WSL"] : [];
    const choice = await window.showWarningMessage(this.problem ?? "", ...reopen, "How to use WSL");
    if (choice === "Reopen Folder in WSL") await commands.executeCommand(REOPEN_IN_WSL);
    if (choice === "How to use WSL") await env.openExternal(Uri.parse(WSL_GUIDE));
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
    const strategy = settings.importStrategy;
    traceInfo(`Interpreter${where}: ${choice.path} (${choice.source}); miogen.importStrategy: ${strategy}`);
    const missingBundle = bundleProblem(strategy, this.extensionRoot, existsSync);
    if (missingBundle) {
      this.fail(missingBundle);
      return;
    }
    const verdict: Verdict = await probeInterpreter(choice, strategy);
    if (!verdict.ok) {
      this.fail(folder ? `${verdict.message} (workspace folder ${folder.name})` : verdict.message);
      return;
    }
    const launch = serverLaunch(strategy, choice.path, this.extensionRoot);
    const commandLine = [launch.command, ...launch.args].join(" ");
    traceInfo(`Python ${verdict.version} at ${verdict.executable}; starting${where}: ${commandLine}`);
    this.warnOnce(numpyProblem(settings.algorithm, verdict.numpy, verdict.executable), "algorithm");
    if (verdict.ownMiogen) {
      // The server runs the bundle's; its workers append the bundle after the interpreter's packages.
      traceInfo(
        `${verdict.executable} has a miogen of its own: the server runs the bundled one, miogen's worker processes import the interpreter's first. Keep it at version ${this.extensionVersion}, or set miogen.importStrategy to fromEnvironment.`,
      );
    }
    this.stderrTail = [];
    const client = this.createClient(launch.command, launch.args, folder?.uri.fsPath);
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
      this.fail(`miogen: the server did not start ("${commandLine}"): ${cause}`);
      return;
    }
    this.lastShownProblem = undefined;
    this.setState("running");
    this.checkVersion(client, choice.path, strategy);
  }

  /** Warns once per window when the server's version (its initialize result's serverInfo) differs from the extension's. */
  private checkVersion(client: LanguageClient, python: string, strategy: ImportStrategy): void {
    const serverVersion = client.initializeResult?.serverInfo?.version;
    traceInfo(`Server version ${serverVersion ?? "(not reported)"}, extension version ${this.extensionVersion}`);
    this.warnOnce(versionMismatch(this.extensionVersion, serverVersion, python, strategy), strategy === "useBundled" ? "importStrategy" : "interpreter");
  }

  /** Shows `message` (when there is one) once per window, with a button to the setting that fixes it. */
  private warnOnce(message: string | undefined, setting: string): void {
    if (!message || windowNotices.has(message)) return;
    windowNotices.add(message);
    traceError(message);
    void window.showWarningMessage(message, "Open setting", "Show log").then((choice) => {
      if (choice === "Open setting") void openSetting(`${CONFIG_SECTION}.${setting}`);
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

  private createClient(command: string, args: string[], cwd: string | undefined): LanguageClient {
    const serverOptions: ServerOptions = {
      command,
      args,
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
