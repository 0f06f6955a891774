/**
 * Reading the interpreter of a workspace folder from the Python extension's environments API
 * (`@vscode/python-extension`). Kept apart from the code that obtains the API, so it is tested with a fake.
 */

import type { PythonExtension, Resource } from "@vscode/python-extension";

/** The part of `PythonExtension["environments"]` miogen uses. */
export type PythonEnvironments = Pick<
  PythonExtension["environments"],
  "getActiveEnvironmentPath" | "resolveEnvironment" | "onDidChangeActiveEnvironmentPath"
>;

/**
 * The python executable of the environment the Python extension uses for `resource` (a file or a
 * workspace folder; each folder of a multi-root workspace can have its own), or undefined when it has
 * none that resolves.
 */
export async function activeInterpreter(environments: PythonEnvironments, resource?: Resource): Promise<string | undefined> {
  const active = environments.getActiveEnvironmentPath(resource);
  const resolved = await environments.resolveEnvironment(active);
  return resolved?.executable.uri?.fsPath || undefined;
}
