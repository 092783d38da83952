import type { Child, FC } from "hono/jsx";
import type { Snippet } from "./clients.ts";

/**
 * A snippet to paste, with a copy button that the page's script reveals
 * (without JavaScript the text is still there to select).
 */
export const CopyableSnippet: FC<{ id: string; title: string; snippet: Snippet; copyLabel: string }> = ({ id, title, snippet, copyLabel }) => (
  <div>
    <div class="snippet-head">
      <h4>{title}</h4>
      <button type="button" class="quiet" data-copy={id} aria-label={copyLabel} hidden>
        Copy
      </button>
    </div>
    <pre id={id} data-language={snippet.language}>
      {snippet.text}
    </pre>
  </div>
);

/** A refusal or failure, announced to screen readers when it appears. */
export const ErrorBox: FC<{ title: string; children?: Child }> = ({ title, children }) => (
  <div class="error" role="alert">
    <strong data-focus tabindex={-1}>
      {title}
    </strong>
    {children}
  </div>
);

/** "2026-05-01T10:00:00.000Z" → "2026-05-01 10:00 UTC": a person reads a date, not a format. */
export function readableTime(rfc3339: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(rfc3339);
  return match ? `${match[1]} ${match[2]} UTC` : rfc3339;
}

/** 1234 → "1,234". */
export function count(value: number): string {
  return value.toLocaleString("en-US");
}
