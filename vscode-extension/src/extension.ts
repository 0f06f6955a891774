/** Entry point: activate wires the server, the features and the commands together; deactivate stops the server. */

import { ExtensionContext } from "vscode";
import { Commands, ServerCommands, SERVER_NAME } from "./common/constants";
import { registerLogger, traceInfo } from "./common/log/logging";
import { onDidChangePythonInterpreter } from "./common/pythonEnvironment";
import { MiogenServer } from "./common/server";
import { effectsOfChange } from "./common/settings";
import { createLogOutputChannel, getSettings, onDidChangeConfiguration, registerCommand } from "./common/vscodeapi";
import { CoverageDecorations } from "./features/coverageDecorations";
import { TestGenerator } from "./features/generateTests";
import { MiogenStatusBar } from "./features/statusBar";

let server: MiogenServer | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const log = createLogOutputChannel(SERVER_NAME);
  context.subscriptions.push(log, registerLogger(log));
  traceInfo(`miogen extension ${context.extension.packageJSON.version} activating`);

  server = new MiogenServer(log);
  const coverage = new CoverageDecorations(context.extensionUri, server);
  const statusBar = new MiogenStatusBar(server, coverage);
  const generator = new TestGenerator(server, (ref) => statusBar.showElsewhere(ref.uri, ref.unit));
  server.interceptCommand = (command, args) =>
    command === ServerCommands.generateTests ? generator.runFromServerCommand(args) : undefined;
  const miogen = server;

  context.subscriptions.push(
    miogen,
    coverage,
    statusBar,
    registerCommand(Commands.generateTestsForClass, (arg?: unknown) => generator.generateForClass(arg)),
    registerCommand(Commands.restart, () => miogen.restart({ showProblemAgain: true })),
    registerCommand(Commands.toggleCoverage, () => coverage.toggle()),
    registerCommand(Commands.showLog, () => log.show()),
    onDidChangeConfiguration((event) => {
      const effects = effectsOfChange((key) => event.affectsConfiguration(key));
      if (effects.has("restart")) miogen.restart();
      else if (effects.has("notifyServer")) void miogen.notifyConfigurationChanged();
      if (effects.has("repaint")) coverage.refreshSettings();
    }),
  );
  const pythonListener = await onDidChangePythonInterpreter(() => {
    if (!getSettings().interpreter) miogen.restart();
  });
  if (pythonListener) context.subscriptions.push(pythonListener);

  // Not awaited: activation (and so the commands) should not wait for the interpreter probe and the server.
  void miogen.restartNow();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
  server = undefined;
}
