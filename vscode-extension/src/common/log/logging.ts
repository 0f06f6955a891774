/** The extension's log: one LogOutputChannel, shared with vscode-languageclient for the server's output and trace. */

import type { Disposable, LogOutputChannel } from "vscode";

let channel: LogOutputChannel | undefined;

export function registerLogger(logChannel: LogOutputChannel): Disposable {
  channel = logChannel;
  return {
    dispose: () => {
      channel = undefined;
    },
  };
}

function format(args: unknown[]): string {
  return args
    .map((a) => (a instanceof Error ? (a.stack ?? a.message) : typeof a === "string" ? a : JSON.stringify(a)))
    .join(" ");
}

export function traceError(...args: unknown[]): void {
  channel?.error(format(args));
}

export function traceWarn(...args: unknown[]): void {
  channel?.warn(format(args));
}

export function traceInfo(...args: unknown[]): void {
  channel?.info(format(args));
}

export function traceDebug(...args: unknown[]): void {
  channel?.debug(format(args));
}

export function traceTrace(...args: unknown[]): void {
  channel?.trace(format(args));
}
