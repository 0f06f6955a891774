/** "Generate tests for file / folder": what was selected, and what the run's result says (no VS Code here). */

import type { PathsResult } from "./protocol";

/**
 * The URIs a menu entry applies to. The explorer calls the command with the clicked resource and every
 * selected one (a multi-selection includes the clicked one); the editor title with the file alone.
 * A file or folder inside another selected folder is left out: the folder's run covers it.
 */
export function selectedUris(clicked: string | undefined, selected: readonly string[] | undefined): string[] {
  const all = selected && clicked && selected.includes(clicked) ? [...selected] : clicked ? [clicked] : [];
  const unique = [...new Set(all)];
  return unique.filter((uri) => !unique.some((other) => other !== uri && uri.startsWith(withSlash(other))));
}

/** The folder of a file URI (`file:///p/a.py` -> `file:///p`). */
export function folderOf(uri: string): string {
  const cut = uri.replace(/\/+$/, "").lastIndexOf("/");
  return cut > "file://".length ? uri.slice(0, cut) : uri;
}

/** The notification's title: the names of the first selected files and folders. */
export function pathsTitle(uris: readonly string[]): string {
  const names = uris.slice(0, 3).map((uri) => decodeURIComponent(uri.replace(/\/+$/, "").split("/").pop() ?? uri));
  return `miogen: generating tests for ${names.join(", ")}${uris.length > 3 ? ` and ${uris.length - 3} more` : ""}`;
}

/** What to tell the user after a run: a summary, and whether it deserves a warning. */
export function pathsSummary(result: PathsResult): { text: string; warn: boolean } {
  if (result.cancelled) return { text: "miogen: cancelled; no test file was changed by the cancelled run.", warn: false };
  const files = result.written.length === 1 ? "1 test file" : `${result.written.length} test files`;
  const coverage = result.total ? `; ${result.covered}/${result.total} branches covered (coverage.py)` : "";
  const written = result.written.length
    ? `${result.tests} tests added to ${files}${coverage}`
    : `no test file written (${result.units} classes and functions${coverage})`;
  const warnings = result.warnings.length ? `; ${result.warnings.length} warnings in the log` : "";
  return { text: `miogen: ${written}${warnings}.`, warn: result.warnings.length > 0 || result.exitCode === 1 };
}

function withSlash(uri: string): string {
  return uri.endsWith("/") ? uri : `${uri}/`;
}
