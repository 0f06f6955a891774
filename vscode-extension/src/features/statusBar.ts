/** The status-bar item: the active file's branch coverage (its folder's server), a spinner while jobs run; click opens the log. */

import { Disposable, Uri, window } from "vscode";
import { Commands } from "../common/constants";
import { JobTracker, statusBarContent } from "../common/status";
import { createStatusBarItem } from "../common/vscodeapi";
import type { CoverageDecorations } from "./coverageDecorations";
import type { ServerPool } from "./servers";

export class MiogenStatusBar implements Disposable {
  private readonly item = createStatusBarItem("miogen.status", "miogen");
  private readonly jobs = new JobTracker();
  private readonly disposables: Disposable[] = [];

  constructor(
    private readonly servers: ServerPool,
    private readonly coverage: CoverageDecorations,
  ) {
    this.item.command = Commands.showLog;
    this.disposables.push(
      this.item,
      servers.onJobStatus((status) => {
        if (this.jobs.update(status)) this.render();
      }),
      servers.onStateChange(({ server, state }) => {
        if (state !== "running") this.jobs.clearWhere((job) => servers.existing(Uri.parse(job.uri)) === server);
        this.render();
      }),
      coverage.onDidChange(() => this.render()),
      window.onDidChangeActiveTextEditor(() => this.render()),
    );
    this.render();
  }

  /** Leaves the job out of the status bar while another indicator shows it; call the result to undo. */
  showElsewhere(uri: string, unit: string): () => void {
    const undo = this.jobs.showElsewhere(uri, unit);
    this.render();
    return () => {
      undo();
      this.render();
    };
  }

  render(): void {
    const editor = window.activeTextEditor;
    const server = editor ? this.servers.existing(editor.document.uri) : undefined;
    const content = statusBarContent({
      serverState: server?.state ?? "stopped",
      problem: server?.problem,
      summary: editor ? this.coverage.summaryFor(editor.document.uri) : undefined,
      jobs: this.jobs.active(),
    });
    this.item.text = content.text;
    this.item.tooltip = content.tooltip;
    const relevant =
      editor?.document.languageId === "python" || this.jobs.active().length > 0 || server?.state === "failed";
    if (relevant) this.item.show();
    else this.item.hide();
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
