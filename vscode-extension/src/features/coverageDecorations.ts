/** Paints the `miogen/coverage` results as gutter (or whole-line) marks with hovers, and keeps them honest while editing. */

import {
  DecorationOptions,
  Disposable,
  Event,
  EventEmitter,
  MarkdownString,
  OverviewRulerLane,
  TextDocumentChangeEvent,
  ThemeColor,
  TextEditor,
  TextEditorDecorationType,
  Uri,
  window,
  workspace,
} from "vscode";
import { CoverageDocument, CoverageMarks, CoverageSummary } from "../common/coverage";
import { traceDebug } from "../common/log/logging";
import type { CoverageParams } from "../common/protocol";
import { MARK_KINDS as KINDS, markLook, MarkKind, MarkStyle } from "../common/markStyle";
import { getSettings } from "../common/vscodeapi";

/** A canonical key for a document URI, whichever side (server or VS Code) spelled it. */
export function uriKey(uri: string | Uri): string {
  return (typeof uri === "string" ? Uri.parse(uri) : uri).toString();
}

export class CoverageDecorations implements Disposable {
  private readonly documents = new Map<string, CoverageDocument>();
  private types: Record<MarkKind, TextEditorDecorationType>;
  private style: MarkStyle;
  private visible: boolean;
  private readonly changeEmitter = new EventEmitter<string>();
  private readonly disposables: Disposable[] = [];
  /** Fires the URI key of a document whose coverage (or staleness) changed. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(
    private readonly extensionUri: Uri,
    server: { onCoverage: Event<CoverageParams> },
  ) {
    const settings = getSettings();
    this.style = settings.gutterStyle;
    this.visible = settings.showGutter;
    this.types = this.createTypes(this.style);
    this.disposables.push(
      this.changeEmitter,
      server.onCoverage((params) => this.onCoverage(params)),
      workspace.onDidChangeTextDocument((event) => this.onEdit(event)),
      // A reopened document starts again at version 1: forget the old one, the server re-sends on open.
      workspace.onDidCloseTextDocument((document) => {
        const key = uriKey(document.uri);
        if (this.documents.delete(key)) this.changeEmitter.fire(key);
      }),
      window.onDidChangeVisibleTextEditors(() => this.paintAll()),
    );
  }

  summaryFor(uri: Uri): CoverageSummary | undefined {
    return this.documents.get(uriKey(uri))?.summary();
  }

  /** `miogen.toggleCoverage`: hide or show the marks for this session. */
  toggle(): boolean {
    this.visible = !this.visible;
    this.paintAll();
    return this.visible;
  }

  /** Re-reads gutterStyle / showGutter after a settings change. */
  refreshSettings(): void {
    const settings = getSettings();
    this.visible = settings.showGutter;
    if (settings.gutterStyle !== this.style) {
      KINDS.forEach((kind) => this.types[kind].dispose());
      this.style = settings.gutterStyle;
      this.types = this.createTypes(this.style);
    }
    this.paintAll();
  }

  dispose(): void {
    KINDS.forEach((kind) => this.types[kind].dispose());
    this.disposables.forEach((d) => d.dispose());
  }

  private onCoverage(params: CoverageParams): void {
    const key = uriKey(params.uri);
    let document = this.documents.get(key);
    if (!document) {
      document = new CoverageDocument(key);
      this.documents.set(key, document);
    }
    document.update(params);
    const marks = document.marks();
    traceDebug(
      `coverage ${workspace.asRelativePath(Uri.parse(key))} v${params.version ?? "?"}: ` +
        `${marks.covered.length} covered, ${marks.partial.length} partial, ${marks.uncovered.length} uncovered, ${marks.stale.length} stale units`,
    );
    this.paintUri(key);
    this.changeEmitter.fire(key);
  }

  /** An edit inside a unit drops its marks at once (the server confirms with state `stale` later). */
  private onEdit(event: TextDocumentChangeEvent): void {
    const key = uriKey(event.document.uri);
    const document = this.documents.get(key);
    if (!document || event.contentChanges.length === 0) return;
    const changes = event.contentChanges.map((change) => ({
      startLine: change.range.start.line,
      endLine: change.range.end.line,
      newLineCount: countLineBreaks(change.text),
    }));
    if (document.edit(event.document.version, changes)) {
      this.paintUri(key);
      this.changeEmitter.fire(key);
    }
  }

  private paintAll(): void {
    window.visibleTextEditors.forEach((editor) => this.paint(editor));
  }

  private paintUri(key: string): void {
    window.visibleTextEditors.filter((editor) => uriKey(editor.document.uri) === key).forEach((editor) => this.paint(editor));
  }

  private paint(editor: TextEditor): void {
    const document = this.documents.get(uriKey(editor.document.uri));
    const marks: CoverageMarks =
      this.visible && document ? document.marks() : { covered: [], partial: [], uncovered: [], stale: [] };
    const lineCount = editor.document.lineCount;
    // The whole line's text as the range: a hover shows anywhere on the line, not only at column 1.
    const line = (n: number, hover?: string): DecorationOptions[] =>
      n >= 0 && n < lineCount
        ? [{ range: editor.document.lineAt(n).range, hoverMessage: hover ? markdown(hover) : undefined }]
        : [];
    editor.setDecorations(this.types.covered, marks.covered.flatMap((n) => line(n)));
    editor.setDecorations(this.types.partial, marks.partial.flatMap((m) => line(m.line, m.hover)));
    editor.setDecorations(this.types.uncovered, marks.uncovered.flatMap((m) => line(m.line, m.hover)));
    editor.setDecorations(
      this.types.stale,
      marks.stale.flatMap((span) => range(span.startLine, span.endLine).flatMap((n) => line(n, span.hover))),
    );
  }

  private createTypes(style: MarkStyle): Record<MarkKind, TextEditorDecorationType> {
    const make = (kind: MarkKind) => {
      const look = markLook(style, kind);
      return window.createTextEditorDecorationType({
        isWholeLine: true,
        overviewRulerColor: new ThemeColor(look.rulerColor),
        overviewRulerLane: OverviewRulerLane.Left,
        ...(look.backgroundColor ? { backgroundColor: new ThemeColor(look.backgroundColor) } : {}),
        ...(look.borderColor
          ? { borderColor: new ThemeColor(look.borderColor), borderStyle: "dotted", borderWidth: "1px 0 1px 0" }
          : {}),
        ...(look.gutterIcon
          ? { gutterIconPath: Uri.joinPath(this.extensionUri, "media", look.gutterIcon), gutterIconSize: "contain" }
          : {}),
      });
    };
    return { covered: make("covered"), partial: make("partial"), uncovered: make("uncovered"), stale: make("stale") };
  }
}

function markdown(text: string): MarkdownString {
  const md = new MarkdownString(text);
  md.isTrusted = false;
  return md;
}

function range(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

function countLineBreaks(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\n" || (text[i] === "\r" && text[i + 1] !== "\n")) count++;
  }
  return count;
}
