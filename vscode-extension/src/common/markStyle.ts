/**
 * How the live search's coverage marks are drawn, as plain data: which theme colours and whether a
 * gutter icon is used, for each style and kind of line. The default keeps the gutter free, since
 * that is where breakpoints are set (the most reported complaint about coverage extensions).
 */

export type MarkKind = "covered" | "partial" | "uncovered" | "stale";
export const MARK_KINDS: readonly MarkKind[] = ["covered", "partial", "uncovered", "stale"];

/** `line`: whole-line tint + overview ruler; `ruler`: overview ruler only; `gutter`: icons in the gutter + ruler. */
export type MarkStyle = "line" | "ruler" | "gutter";
export const MARK_STYLES: readonly MarkStyle[] = ["line", "ruler", "gutter"];
export const DEFAULT_MARK_STYLE: MarkStyle = "line";

/** A decoration type's look, with colours as theme colour ids (contributed in package.json). */
export interface MarkLook {
  rulerColor: string;
  backgroundColor?: string;
  /** Drawn only where the theme gives the colour a value (the high-contrast themes). */
  borderColor?: string;
  /** media/<kind>.svg */
  gutterIcon?: string;
}

export function colorId(kind: MarkKind, part: "Ruler" | "Background" | "Border"): string {
  return `miogen.${kind}Line${part}`;
}

export function markLook(style: MarkStyle, kind: MarkKind): MarkLook {
  const look: MarkLook = { rulerColor: colorId(kind, "Ruler") };
  if (style === "line") {
    look.backgroundColor = colorId(kind, "Background");
    look.borderColor = colorId(kind, "Border");
  }
  if (style === "gutter") look.gutterIcon = `${kind}.svg`;
  return look;
}

/** Every theme colour id the marks can use. */
export function allColorIds(): string[] {
  return MARK_STYLES.flatMap((style) =>
    MARK_KINDS.flatMap((kind) => {
      const look = markLook(style, kind);
      return [look.rulerColor, look.backgroundColor, look.borderColor].filter((id): id is string => !!id);
    }),
  ).filter((id, index, ids) => ids.indexOf(id) === index);
}
