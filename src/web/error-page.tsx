import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import { STYLES } from "./styles.ts";

const TITLES: Record<number, string> = { 400: "Bad request", 401: "Not authorised", 403: "Forbidden", 404: "Not found", 429: "Too many requests" };

/** A refusal that shows nothing of the server's data: a rebound host or a foreign page must learn nothing from it. */
export const ErrorPage: FC<{ status: number; message: string }> = ({ status, message }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${status} ${TITLES[status] ?? "Error"}: Almanac`}</title>
      <style>{raw(STYLES)}</style>
    </head>
    <body>
      <main>
        <h1>
          {status} {TITLES[status] ?? "Error"}
        </h1>
        <p>{message}</p>
        <p>
          <a href="/">Almanac's front page</a>
        </p>
      </main>
    </body>
  </html>
);
