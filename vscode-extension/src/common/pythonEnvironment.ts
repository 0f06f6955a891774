/**
 * The interpreter of the Python extension (ms-python.python), when it is installed: through its API
 * package `@vscode/python-extension`, per workspace folder. The extension is optional; without it
 * every call answers undefined.
 */

import { PythonExtension } from "@vscode/python-extension";
import { Disposable, Uri } from "vscode";
import { traceDebug, traceWarn } from "./log/logging";
import { activeInterpreter, PythonEnvironments } from "./pythonApi";
import { getExtension } from "./vscodeapi";

const PYTHON_EXTENSION_ID = "ms-python.python";

async function environmentsApi(): Promise<PythonEnvironments | undefined> {
  if (!getExtension(PYTHON_EXTENSION_ID)) return undefined;
  try {
    return (await PythonExtension.api()).environments;
  } catch (error) {
    traceWarn("The Python extension's API is not available:", error);
    return undefined;
  }
}

/** The active environment's python executable for `resource` (a folder or a file), or undefined. */
export async function pythonExtensionInterpreter(resource?: Uri): Promise<string | undefined> {
  const environments = await environmentsApi();
  if (!environments) return undefined;
  try {
    const executable = await activeInterpreter(environments, resource);
    traceDebug(`Python extension's environment for ${resource?.fsPath ?? "the window"}: ${executable ?? "(none)"}`);
    return executable;
  } catch (error) {
    traceWarn("Could not read the Python extension's environment:", error);
    return undefined;
  }
}

/** Calls `listener` with the folder (undefined: all) whose environment the user changed in the Python extension. */
export async function onDidChangePythonInterpreter(listener: (folder: Uri | undefined) => void): Promise<Disposable | undefined> {
  const environments = await environmentsApi();
  return environments?.onDidChangeActiveEnvironmentPath((event) => listener(event.resource?.uri));
}
