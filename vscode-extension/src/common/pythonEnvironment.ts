/**
 * The interpreter of the Python extension (ms-python.python), when it is installed. It is optional, so
 * its API is reached through `extensions.getExtension` and typed here by the few members used (the
 * same members `@vscode/python-extension` declares).
 */

import { Disposable, Event, Uri } from "vscode";
import { traceDebug, traceWarn } from "./log/logging";
import { getExtension } from "./vscodeapi";

const PYTHON_EXTENSION_ID = "ms-python.python";

interface EnvironmentPath {
  id: string;
  path: string;
}

interface ResolvedEnvironment {
  executable: { uri?: Uri };
}

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: Uri): EnvironmentPath;
    resolveEnvironment(env: EnvironmentPath | string): Promise<ResolvedEnvironment | undefined>;
    onDidChangeActiveEnvironmentPath: Event<unknown>;
  };
}

async function pythonApi(): Promise<PythonExtensionApi | undefined> {
  const extension = getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!extension) return undefined;
  try {
    return extension.isActive ? extension.exports : await extension.activate();
  } catch (error) {
    traceWarn("Python extension did not activate:", error);
    return undefined;
  }
}

/** The active environment's python executable for `resource`, or undefined. */
export async function pythonExtensionInterpreter(resource?: Uri): Promise<string | undefined> {
  const environments = (await pythonApi())?.environments;
  if (!environments) return undefined;
  try {
    const active = environments.getActiveEnvironmentPath(resource);
    const resolved = await environments.resolveEnvironment(active);
    const executable = resolved?.executable.uri?.fsPath;
    traceDebug(`Python extension's environment: ${executable ?? "(none)"}`);
    return executable;
  } catch (error) {
    traceWarn("Could not read the Python extension's environment:", error);
    return undefined;
  }
}

/** Calls `listener` when the user picks another environment in the Python extension. */
export async function onDidChangePythonInterpreter(listener: () => void): Promise<Disposable | undefined> {
  const environments = (await pythonApi())?.environments;
  return environments?.onDidChangeActiveEnvironmentPath(() => listener());
}
