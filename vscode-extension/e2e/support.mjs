// Helpers of the end-to-end test (e2e.mjs): processes, waiting, the workbench's commands and marks.

import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const here = path.dirname(fileURLToPath(import.meta.url));
export const extensionDir = path.resolve(here, "..");
export const repo = path.resolve(extensionDir, "..");
export const artifacts = path.join(here, "artifacts");
export const python = process.env.MIOGEN_PYTHON || path.join(repo, ".venv", "bin", "python");
export const work = process.env.MIOGEN_E2E_WORK || path.join(tmpdir(), "miogen-e2e");
export const timeoutMs = Number(process.env.MIOGEN_E2E_TIMEOUT_S || 180) * 1000;
export const vsix = path.join(extensionDir, "dist", "miogen.vsix");

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const started = Date.now();
export const log = (msg) => console.log(`[e2e ${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s] ${msg}`);

export class E2EFailure extends Error {}
export const fail = (msg) => {
  throw new E2EFailure(msg);
};

export function requireEnv(name) {
  const value = process.env[name];
  if (!value || !existsSync(value)) fail(`${name} is not set or missing (${value}); run vscode-extension/e2e/setup.sh first`);
  return value;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function waitFor(what, check, { timeout = timeoutMs, interval = 500 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      last = await check();
      if (last) return last;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, interval));
  }
  fail(`timed out after ${Math.round(timeout / 1000)} s waiting for ${what}${last instanceof Error ? `: ${last.message}` : ""}`);
}

/** Whether the Python side is there: `python -m miogen serve --help`. Returns a problem string or undefined. */
export function serverProblem() {
  if (!existsSync(python)) return `MIOGEN_PYTHON=${python} does not exist (create it: python3 -m venv .venv && .venv/bin/pip install -e .)`;
  const run = spawnSync(python, ["-m", "miogen", "serve", "--help"], { encoding: "utf8", timeout: 60_000 });
  if (run.status !== 0) {
    const why = `${run.stderr || run.stdout || run.error?.message || ""}`.trim().split("\n").slice(-3).join(" | ");
    return `\`${python} -m miogen serve --help\` exited ${run.status}: ${why}`;
  }
  return undefined;
}


export function isolatedEnv(dirs, extra = {}) {
  return {
    ...process.env,
    HOME: dirs.home,
    XDG_CONFIG_HOME: path.join(dirs.home, ".config"),
    XDG_DATA_HOME: path.join(dirs.home, ".local", "share"),
    XDG_CACHE_HOME: path.join(dirs.home, ".cache"),
    ...extra,
  };
}

/** code-server's environment; pip may not reach an index (nothing should install anything). */
export function codeServerEnv(dirs) {
  const node24 = requireEnv("MIOGEN_E2E_NODE24");
  return isolatedEnv(dirs, {
    PATH: `${path.dirname(node24)}:${process.env.PATH}`,
    PIP_NO_INDEX: "1",
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
  });
}

export function installExtension(codeServer, dirs) {
  if (!existsSync(vsix)) fail(`${vsix} is missing: run \`npm run package\``);
  const run = spawnSync(
    codeServer,
    ["--user-data-dir", dirs.userData, "--extensions-dir", dirs.extensions, "--install-extension", vsix],
    { env: codeServerEnv(dirs), encoding: "utf8", timeout: 120_000 },
  );
  if (run.status !== 0 || !/successfully installed/i.test(run.stdout + run.stderr)) {
    fail(`installing ${vsix} into code-server failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
  }
  log(`installed ${path.relative(repo, vsix)}`);
}

export function startCodeServer(codeServer, dirs, port) {
  const out = path.join(work, "code-server.log");
  const child = spawn(
    codeServer,
    [
      "--auth", "none",
      "--bind-addr", `127.0.0.1:${port}`,
      "--user-data-dir", dirs.userData,
      "--extensions-dir", dirs.extensions,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      dirs.workspaceFile,
    ],
    { env: codeServerEnv(dirs), detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const chunks = [];
  child.stdout.on("data", (d) => chunks.push(d));
  child.stderr.on("data", (d) => chunks.push(d));
  child.on("exit", () => writeFileSync(out, Buffer.concat(chunks)));
  child.logText = () => Buffer.concat(chunks).toString();
  return child;
}

export function stopProcessGroup(child) {
  if (!child || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {}
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline && child.exitCode === null) spawnSync("sleep", ["0.2"]);
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
}

export async function screenshot(page, name) {
  const file = path.join(artifacts, name);
  await page.screenshot({ path: file });
  log(`screenshot ${path.relative(repo, file)}`);
  return file;
}

/** Runs a command by its palette title ("miogen: Generate tests for class"). */
export async function runCommand(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input").first();
  await input.waitFor({ state: "visible", timeout: 15_000 });
  await input.fill(`>${title}`);
  // Of the rows naming the title, the shortest: "Test: Run All Tests", not "... with Coverage".
  const rows = page.locator(".quick-input-list .monaco-list-row");
  await rows.filter({ hasText: title }).first().waitFor({ state: "visible", timeout: 15_000 });
  const texts = await rows.evaluateAll((all) => all.map((row) => row.textContent ?? ""));
  const best = texts.reduce((found, text, i) => (text.includes(title) && (found < 0 || text.length < texts[found].length) ? i : found), -1);
  await rows.nth(best).click();
}

/**
 * miogen's marks in the editor whose text matches `pattern`, by kind: whole-line backgrounds (the
 * default style) recognised by their theme colour (`--vscode-miogen-<kind>LineBackground`), and gutter
 * icons (style "gutter") by their SVG. `gutter` counts what sits in the breakpoint gutter.
 */
export function countMarks(page, pattern = "class\\sStack") {
  return page.evaluate((source) => {
    const kinds = ["covered", "partial", "uncovered", "stale"];
    const counts = { covered: 0, partial: 0, uncovered: 0, stale: 0, gutter: 0 };
    const editor = [...document.querySelectorAll(".monaco-editor")].find((e) =>
      new RegExp(source).test(e.querySelector(".view-lines")?.textContent ?? ""));
    if (!editor) return counts;
    const probe = document.createElement("div");
    editor.appendChild(probe);
    const byColour = {};
    for (const kind of kinds) {
      probe.style.backgroundColor = `var(--vscode-miogen-${kind}LineBackground)`;
      byColour[getComputedStyle(probe).backgroundColor] = kind;
    }
    probe.remove();
    for (const el of editor.querySelectorAll(".view-overlays div")) {
      const kind = byColour[getComputedStyle(el).backgroundColor];
      if (kind) counts[kind]++;
    }
    for (const el of editor.querySelectorAll(".margin *")) {
      const image = decodeURIComponent(getComputedStyle(el).backgroundImage || "");
      for (const kind of kinds) {
        if (image.includes(`/media/${kind}.svg`)) {
          counts[kind]++;
          counts.gutter++;
        }
      }
    }
    return counts;
  }, pattern);
}

/** The computed border and background of the first line overlay of `kind` (for the high-contrast check). */
export function markStyle(page, kind, pattern = "class\\sStack") {
  return page.evaluate(([wanted, source]) => {
    const editor = [...document.querySelectorAll(".monaco-editor")].find((e) =>
      new RegExp(source).test(e.querySelector(".view-lines")?.textContent ?? ""));
    if (!editor) return undefined;
    const probe = document.createElement("div");
    editor.appendChild(probe);
    probe.style.backgroundColor = `var(--vscode-miogen-${wanted}LineBackground)`;
    const colour = getComputedStyle(probe).backgroundColor;
    probe.remove();
    const el = [...editor.querySelectorAll(".view-overlays div")].find((e) => getComputedStyle(e).backgroundColor === colour);
    if (!el) return undefined;
    const style = getComputedStyle(el);
    return { background: style.backgroundColor, borderTop: `${style.borderTopStyle} ${style.borderTopWidth} ${style.borderTopColor}` };
  }, [kind, pattern]);
}

/** The editor line (1-based) whose text contains `text`, via the rendered view lines. */
export async function clickLine(page, text) {
  const line = page.locator(".monaco-editor .view-line", { hasText: text }).first();
  await line.waitFor({ state: "visible", timeout: 15_000 });
  await line.click();
  return line;
}

export function collectLogs(dirs) {
  const found = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name === "miogen.log" || name === "remoteexthost.log" || name === "exthost.log") found.push(p);
    }
  };
  const logs = path.join(dirs.userData, "logs");
  if (existsSync(logs)) walk(logs);
  for (const file of found) copyFileSync(file, path.join(artifacts, path.basename(file)));
  const codeServerLog = path.join(work, "code-server.log");
  if (existsSync(codeServerLog)) copyFileSync(codeServerLog, path.join(artifacts, "code-server.log"));
  return found;
}
