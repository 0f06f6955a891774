/** Thin wrappers over the VS Code API, so the rest reads plainly and the pure modules never import `vscode`. */

import * as os from "node:os";
import {
  commands,
  ConfigurationChangeEvent,
  Disposable,
  extensions,
  LogOutputChannel,
  StatusBarAlignment,
  StatusBarItem,
  Uri,
  window,
  workspace,
  WorkspaceFolder,
} from "vscode";
import { CONFIG_SECTION } from "./constants";
import { expandPath, isSetByUser, MiogenSettings, readSettings, ServerSettingsPayload, toServerSettings } from "./settings";

export function createLogOutputChannel(name: string): LogOutputChannel {
  return window.createOutputChannel(name, { log: true });
}

export function registerCommand(command: string, callback: (...args: any[]) => unknown): Disposable {
  return commands.registerCommand(command, callback);
}

export function onDidChangeConfiguration(listener: (e: ConfigurationChangeEvent) => unknown): Disposable {
  return workspace.onDidChangeConfiguration(listener);
}

export function createStatusBarItem(id: string, name: string): StatusBarItem {
  const item = window.createStatusBarItem(id, StatusBarAlignment.Left, 10);
  item.name = name;
  return item;
}

/** The folder the server runs in: the active file's folder, else the first one. */
export function primaryWorkspaceFolder(resource?: Uri): WorkspaceFolder | undefined {
  return (resource && workspace.getWorkspaceFolder(resource)) ?? workspace.workspaceFolders?.[0];
}

/** All `miogen.*` settings for `resource` (or the window), validated, with the interpreter path expanded. */
export function getSettings(resource?: Uri): MiogenSettings {
  const config = workspace.getConfiguration(CONFIG_SECTION, resource ?? null);
  const settings = readSettings((key) => config.get(key));
  settings.interpreter = expandPath(settings.interpreter, {
    workspaceFolder: primaryWorkspaceFolder(resource)?.uri.fsPath,
    home: os.homedir(),
    env: process.env,
  });
  return settings;
}

/** The server settings the user set for `resource` (or the window); see `toServerSettings`. */
export function getServerSettings(resource?: Uri): ServerSettingsPayload {
  const config = workspace.getConfiguration(CONFIG_SECTION, resource ?? null);
  return toServerSettings(
    (key) => config.get(key),
    (key) => isSetByUser(config.inspect(key)),
  );
}

export function openSetting(key: string): Thenable<unknown> {
  return commands.executeCommand("workbench.action.openSettings", key);
}

export function getExtension<T>(id: string) {
  return extensions.getExtension<T>(id);
}
