/**
 * A source's URL may carry a secret (`user:pass@`, `?sig=…`, `?access_token=…`),
 * and a failed run's error quotes it; what is stored and shown keeps the
 * scheme, host and path, never those.
 */

/** URLs as errors quote them: an http(s), ws(s) or ftp scheme, up to whitespace, a quote or an angle bracket. */
const URL_IN_TEXT = /\b(?:https?|wss?|ftp):\/\/[^\s"'<>]+/gi;

/** Characters that end the sentence around a URL ("…?sig=1: HTTP 403"), not the URL. */
const SENTENCE_END = ":;,.)]";

/** What stands in for a removed secret. */
const REDACTED = "[redacted]";

/**
 * `text` with the userinfo and the query string of every URL in it replaced by REDACTED.
 *
 * @example redactUrlSecrets("could not read https://me:pw@x.dev/a.md?sig=1: HTTP 403") // "could not read https://[redacted]@x.dev/a.md?[redacted]: HTTP 403"
 */
export function redactUrlSecrets(text: string): string {
  return text.replace(URL_IN_TEXT, redactUrl);
}

function redactUrl(match: string): string {
  let end = match.length;
  while (end > 0 && SENTENCE_END.includes(match.charAt(end - 1))) end -= 1;
  const tail = match.slice(end);
  // The authority runs to the first / ? or #, its userinfo to the last @ in it, as URL parsers read it.
  const url = match.slice(0, end).replace(/^([a-z]+:\/\/)[^/?#]*@/i, `$1${REDACTED}@`);
  const question = url.indexOf("?");
  if (question < 0) return url + tail;
  const hash = url.indexOf("#", question);
  return `${url.slice(0, question)}?${REDACTED}${hash < 0 ? "" : url.slice(hash)}${tail}`;
}
