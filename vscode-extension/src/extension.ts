/** Entry point: activate wires the servers, the features and the commands together; deactivate stops the servers. */

import { ExtensionContext } from "vscode";
import { Commands, InternalCommands, SERVER_NAME } from "./common/constants";
import { registerLogger, traceInfo } from "./common/log/logging";
import { onDidChangePythonInterpreter } from "./common/pythonEnvironment";
import { effectsOfChange, RESTART_KEYS } from "./common/settings";
import { createLogOutputChannel, getSettings, onDidChangeConfiguration, registerCommand } from "./common/vscodeapi";
import { CoverageDecorations } from "./features/coverageDecorations";
import { PathsGenerator } from "./features/generatePaths";
import { TestGenerator } from "./features/generateTests";
import { ServerPool } from "./features/servers";
import { MiogenStatusBar } from "./features/statusBar";
import { GeneratedTestsController } from "./features/testing";

let servers: ServerPool | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const log = createLogOutputChannel(SERVER_NAME);
  context.subscriptions.push(log, registerLogger(log));
  const version = String(context.extension.packageJSON.version);
  traceInfo(`miogen extension ${version} activating`);

  const generator = new TestGenerator();
  const pool = new ServerPool(log, version, (ref) => generator.runFromServerCommand(ref), context.extensionPath);
  servers = pool;
  const coverage = new CoverageDecorations(context.extensionUri, pool);
  const statusBar = new MiogenStatusBar(pool, coverage);
  generator.attach(pool, (ref) => statusBar.showElsewhere(ref.uri, ref.unit));
  const testing = new GeneratedTestsController(context, log);
  const paths = new PathsGenerator(pool);

  context.subscriptions.push(
    pool,
    generator,
    coverage,
    statusBar,
    testing,
    generator.onDidGenerate((result) => testing.remember(result.testUri)),
    registerCommand(Commands.generateTestsForClass, (arg?: unknown) => generator.generateForClass(arg)),
    paths,
    paths.onDidWrite((uris) => Promise.all(uris.map((uri) => testing.remember(uri)))),
    registerCommand(Commands.generateTestsForFile, (uri?: unknown, uris?: unknown) => paths.generateForFile(uri, uris)),
    registerCommand(Commands.generateTestsForFolder, (uri?: unknown, uris?: unknown) => paths.generateForFolder(uri, uris)),
    registerCommand(Commands.restart, () => pool.restart(undefined, { showProblemAgain: true })),
    registerCommand(Commands.toggleCoverage, () => coverage.toggle()),
    registerCommand(Commands.showLog, () => log.show()),
    registerCommand(InternalCommands.rememberTestFiles, (...uris: string[]) =>
      Promise.all(uris.map((uri) => testing.remember(uri))),
    ),
    onDidChangeConfiguration((event) => {
      const effects = effectsOfChange((key) => event.affectsConfiguration(key));
      if (effects.has("restart")) {
        for (const server of pool.all()) {
          if (RESTART_KEYS.some((key) => event.affectsConfiguration(key, server.folder?.uri))) server.restart();
        }
      } else if (effects.has("notifyServer")) pool.notifyConfigurationChanged();
      if (effects.has("repaint")) coverage.refreshSettings();
      testing.onConfigurationChanged(event);
    }),
  );
  const pythonListener = await onDidChangePythonInterpreter((folder) => {
    for (const server of pool.all()) {
      const mine = !folder || server.folder?.uri.toString() === folder.toString();
      if (mine && !getSettings(server.folder?.uri).interpreter) server.restart();
    }
  });
  if (pythonListener) context.subscriptions.push(pythonListener);

  // Not awaited inside: activation (and so the commands) should not wait for interpreter probes.
  pool.startForOpenDocuments();
}

export async function deactivate(): Promise<void> {
  await servers?.stop();
  servers = undefined;
}
