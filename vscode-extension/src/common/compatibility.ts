/**
 * Whether the server can run here at all (Windows needs WSL) and whether the server that started
 * is the extension's own version. Pure: the platform and the versions come in as arguments.
 */

/** VS Code's guide to opening a folder in WSL, linked from the Windows message. */
export const WSL_GUIDE = "https://code.visualstudio.com/docs/remote/wsl";
/** The WSL extension's command that reopens the current folder inside WSL. */
export const REOPEN_IN_WSL = "remote-wsl.reopenInWSL";
export const WSL_EXTENSION = "ms-vscode-remote.remote-wsl";

/**
 * Why the server cannot start where the extension runs, or undefined when it can. The server's
 * worker sandbox needs POSIX resource limits (server/miogen/common/platform_support.py), which Windows
 * lacks; inside WSL (`remoteName` "wsl") the extension runs on Linux. `platform` is
 * `process.platform`, `remoteName` is `vscode.env.remoteName`.
 */
export function platformProblem(platform: string, remoteName: string | undefined): string | undefined {
  if (platform !== "win32" || remoteName === "wsl") return undefined;
  return (
    "miogen cannot run on Windows itself: its server runs your code in a sandbox that needs Linux or macOS " +
    "(POSIX resource limits). Open the folder in WSL (\"WSL: Reopen Folder in WSL\"), where miogen works as on Linux."
  );
}

/** `major.minor.patch` of a version such as "0.2.0" or "0.2.0rc1", or undefined. */
export function parseVersion(text: string | undefined): [number, number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text?.trim() ?? "");
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

/**
 * The warning when the server's version (`serverInfo.version` of its initialize result) does not
 * go with the extension's, else undefined. The two are released together with one version (the
 * repository's tests keep pyproject.toml, the server and package.json equal). They count as
 * different when major or minor differ: in 0.x a minor release may change the protocol and the
 * settings, a patch release changes neither. A server that reports no version is not judged.
 * `strategy`: where the server came from (`miogen.importStrategy`), which decides the fix.
 */
export function versionMismatch(
  extension: string,
  server: string | undefined,
  python: string,
  strategy: "useBundled" | "fromEnvironment" = "fromEnvironment",
): string | undefined {
  const mine = parseVersion(extension);
  const theirs = parseVersion(server);
  if (!mine || !theirs || (mine[0] === theirs[0] && mine[1] === theirs[1])) return undefined;
  const wanted = `${mine[0]}.${mine[1]}`;
  if (strategy === "useBundled") {
    // The bundle is packaged with the extension: a mismatch means a broken build or a miogen that
    // the interpreter forces ahead of the bundle (a .pth, PYTHONPATH).
    return (
      `miogen: the extension is ${extension} but its bundled server, started with ${python}, reports ${server}; ` +
      `the interpreter seems to load another miogen ahead of the bundle (PYTHONPATH?). Reinstall the extension, ` +
      `or set "miogen.importStrategy" to "fromEnvironment" to use the interpreter's miogen on purpose.`
    );
  }
  const older = mine[0] < theirs[0] || (mine[0] === theirs[0] && mine[1] < theirs[1]) ? "extension" : "server";
  const fix =
    older === "server"
      ? `Install miogen ${wanted} into that interpreter, or set "miogen.importStrategy" to "useBundled" (the server that comes with the extension)`
      : `Update the miogen extension to ${theirs[0]}.${theirs[1]}, or set "miogen.importStrategy" to "useBundled"`;
  return `miogen: the extension is ${extension} but the server it started (${python}) is ${server}; some features may not work. ${fix}.`;
}
