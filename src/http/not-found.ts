import type { NotFoundHandler } from "hono";
import { AlmanacError } from "../errors.ts";
import { refusal } from "./refusal.ts";

/**
 * The app's answer for a path nothing serves: 404 in Google's error body
 * (never hono's plain text), saying what the server does serve.
 *
 * @example app.notFound(notFound);
 */
export const notFound: NotFoundHandler = (c) =>
  refusal(
    "google",
    new AlmanacError("NOT_FOUND", `nothing is served at ${c.req.method} ${c.req.path.slice(0, 100)}; this server answers MCP at /mcp, the REST API under /v1, and / (what it is and how to connect)`),
  );
