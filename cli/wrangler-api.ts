// wrangler's Node API (getPlatformProxy, the config reader), loaded with require: wrangler is one
// 15 MB CommonJS file, and an ESM import of it first scans the whole file for its export names,
// about 0.4 s of every CLI command.
import { createRequire } from "node:module";
import type * as Wrangler from "wrangler";

export const { getPlatformProxy, experimental_readRawConfig } = createRequire(import.meta.url)("wrangler") as typeof Wrangler;
