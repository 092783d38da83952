// A synthetic documentation site of a chosen size, the same on every run
// (seeded): Markdown pages with headings, paragraphs, lists, inline code and
// code blocks, written from a Zipf-distributed vocabulary of real technical
// words and identifiers, so a few words are in most sections and most words
// in few, as in real documentation.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { chunkDocument } from "../src/documents/ingest/chunk-page.ts";

/** mulberry32: a small, fast, seeded generator; the same seed gives the same corpus. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Ordered roughly by how common each word is in real developer documentation: the order is the Zipf rank.
const WORDS = (
  "function type value file data server request error configuration example name default string object client " +
  "command package module test code version user method field option project application service key library " +
  "build response list event interface build path query message runtime import variable parameter header support " +
  "token cache database class return table resource output input instance element array struct pointer context " +
  "process thread worker handler route schema record stream buffer channel pattern collection index document " +
  "environment deployment container cluster node network connection socket protocol endpoint session cookie " +
  "authentication authorization permission role policy secret credential certificate encryption signature hash " +
  "timeout retry backoff limit quota rate throughput latency metric trace span log logger level warning debug " +
  "compile compiler linker binary artifact bundle dependency registry release tag branch commit merge workflow " +
  "pipeline job task schedule queue topic subscription publisher consumer producer broker partition offset " +
  "transaction migration replica shard backup snapshot restore rollback lock mutex semaphore goroutine coroutine " +
  "future promise callback closure generic constraint trait mixin extension annotation decorator macro lambda " +
  "iterator generator sequence slice map set tuple enum union nullable optional integer float boolean byte rune " +
  "character encoding unicode utf8 json yaml toml xml csv protobuf grpc http https websocket tcp udp dns tls " +
  "proxy gateway balancer ingress egress firewall subnet region zone bucket blob object storage volume disk " +
  "memory allocation garbage collector heap stack frame profile benchmark fuzzing coverage assertion mock fixture " +
  "widget layout render component state props hook effect reducer store selector router navigation animation " +
  "gesture theme style color font image asset localization accessibility keyboard mouse touch screen window " +
  "plugin adapter driver provider factory builder singleton observer visitor strategy template prototype facade " +
  "serializer parser lexer tokenizer formatter linter analyzer formatter validator sanitizer escaper encoder decoder " +
  "compression gzip brotli checksum digest nonce salt entropy random seed clock timer duration deadline interval " +
  "cron webhook callback notification email sms push payload envelope attachment upload download chunk stream " +
  "pagination cursor filter sort order group aggregate join projection predicate expression operator literal " +
  "keyword identifier scope namespace visibility export declaration definition signature overload override " +
  "inheritance composition delegation embedding reflection introspection serialization marshaling unmarshaling " +
  "vendoring workspace monorepo toolchain sdk cli flag argument subcommand alias shell terminal prompt script " +
  "sandbox isolate realm wasm webassembly edge cdn origin cacheability revalidation etag conditional preflight " +
  "cors csrf xss injection vulnerability audit compliance retention residency tenancy tenant organization account " +
  "billing invoice usage plan tier upgrade downgrade trial subscription renewal cancellation refund receipt ledger"
).split(" ");

const VERBS = (
  "configure deploy install create delete update list read write call return parse validate handle register " +
  "initialize start stop restart connect disconnect enable disable set get fetch load save cache retry " +
  "authenticate authorize encrypt decrypt sign verify compile build test debug profile migrate rollback " +
  "publish subscribe schedule cancel import export serialize deserialize encode decode compress stream"
).split(" ");

const STOPWORDS = "the a an of to in for with on and or is are be this that it by from as at can when if you your which".split(" ");

/** Index from a Zipf distribution over `n` ranks (exponent about 1, as word frequencies are). */
function zipf(random: () => number, n: number, exponent = 1.05): number {
  // Inverse transform on the continuous approximation: fast, and close enough for text.
  const u = random();
  const a = 1 - exponent;
  const max = (n ** a - 1) / a;
  return Math.min(n - 1, Math.max(0, Math.floor((u * max * a + 1) ** (1 / a)) - 1));
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** The vocabulary a corpus is written in: words by rank, and identifiers built from them. */
export interface Vocabulary {
  words: readonly string[];
  verbs: readonly string[];
  identifiers: readonly string[];
}

/** The same vocabulary for every corpus size and every run, so queries mean the same at 10k and 100k chunks. */
export function vocabulary(): Vocabulary {
  const random = seededRandom(7);
  const words = [...new Set(WORDS)];
  const identifiers: string[] = [];
  for (let i = 0; identifiers.length < 1500; i += 1) {
    const verb = VERBS[Math.floor(random() * VERBS.length)] ?? "get";
    const noun = words[zipf(random, words.length)] ?? "value";
    const other = words[zipf(random, words.length)] ?? "name";
    const form = i % 5;
    const identifier =
      form === 0 ? `${verb}${capitalise(noun)}` :
      form === 1 ? `${noun}_${other}` :
      form === 2 ? `${noun}.${other}` :
      form === 3 ? `${capitalise(noun)}${capitalise(other)}` :
      `--${noun}-${other}`;
    if (!identifiers.includes(identifier)) identifiers.push(identifier);
  }
  return { words, verbs: VERBS, identifiers };
}

/** Writes sentences and pages from a vocabulary with one random source. */
class PageWriter {
  private readonly random: () => number;
  private readonly vocab: Vocabulary;

  constructor(random: () => number, vocab: Vocabulary) {
    this.random = random;
    this.vocab = vocab;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)] as T;
  }

  word(topic: readonly string[]): string {
    const roll = this.random();
    if (roll < 0.38) return this.pick(STOPWORDS);
    if (roll < 0.46) return this.pick(topic);
    if (roll < 0.52) return this.pick(this.vocab.verbs);
    return this.vocab.words[zipf(this.random, this.vocab.words.length)] ?? "value";
  }

  identifier(): string {
    return this.vocab.identifiers[zipf(this.random, this.vocab.identifiers.length, 0.9)] ?? "getValue";
  }

  sentence(topic: readonly string[], identifiers: readonly string[]): string {
    const length = 8 + Math.floor(this.random() * 14);
    const words: string[] = [];
    for (let i = 0; i < length; i += 1) {
      words.push(this.random() < 0.06 ? `\`${this.random() < 0.5 ? this.pick(identifiers) : this.identifier()}\`` : this.word(topic));
    }
    return `${capitalise(words.join(" "))}.`;
  }

  paragraph(topic: readonly string[], identifiers: readonly string[]): string {
    const sentences = 2 + Math.floor(this.random() * 3);
    return Array.from({ length: sentences }, () => this.sentence(topic, identifiers)).join(" ");
  }

  list(topic: readonly string[], identifiers: readonly string[]): string {
    const items = 3 + Math.floor(this.random() * 3);
    return Array.from({ length: items }, () => `- ${this.sentence(topic, identifiers)}`).join("\n");
  }

  code(identifiers: readonly string[]): string {
    const language = this.pick(["ts", "go", "dart", "sh", "yaml"]);
    const lines = 3 + Math.floor(this.random() * 7);
    const body = Array.from({ length: lines }, (_, i) => {
      const name = this.pick(identifiers).replace(/^--/, "");
      const value = this.identifier().replace(/^--/, "");
      if (language === "sh") return `almanac ${this.pick(this.vocab.verbs)} ${this.pick(identifiers)} ${this.vocab.words[i] ?? "value"}`;
      if (language === "yaml") return `${name.replace(/[.]/g, "_")}: ${value}`;
      return `${"  ".repeat(i % 3)}const ${name.replace(/[.-]/g, "_")} = ${value.replace(/[.-]/g, "_")}(${this.word(["value"]).replace(/\W/g, "")});`;
    });
    return `\`\`\`${language}\n${body.join("\n")}\n\`\`\``;
  }

  /** One page: front matter, a lead paragraph, and sections each small enough to be one chunk. */
  page(index: number): { path: string; text: string } {
    const vocab = this.vocab;
    // Topic words come from the middle of the ranks: specific enough to find a page by.
    const topic = Array.from({ length: 3 }, () => vocab.words[40 + Math.floor(this.random() * (vocab.words.length - 40))] ?? "value");
    const identifiers = Array.from({ length: 3 }, () => vocab.identifiers[Math.floor(this.random() * vocab.identifiers.length)] ?? "getValue");
    const title = `${capitalise(this.pick(vocab.verbs))} ${topic[0]} ${topic[1]}`;
    const sections: string[] = [];
    const count = 5 + Math.floor(this.random() * 6);
    for (let s = 0; s < count; s += 1) {
      const level = s > 0 && this.random() < 0.3 ? "###" : "##";
      const heading = `${level} ${capitalise(this.word(topic).replace(/\W/g, "") || "overview")} ${this.pick(topic)} ${this.random() < 0.3 ? `\`${this.pick(identifiers)}\`` : this.word(["guide"])}`;
      const parts = [heading, this.paragraph(topic, identifiers)];
      const roll = this.random();
      if (roll < 0.35) parts.push(this.code(identifiers));
      else if (roll < 0.6) parts.push(this.list(topic, identifiers));
      if (this.random() < 0.4) parts.push(this.paragraph(topic, identifiers));
      sections.push(parts.join("\n\n"));
    }
    const text = [
      "---",
      `title: "${title}"`,
      `description: "${this.sentence(topic, identifiers).replace(/["`]/g, "")}"`,
      "---",
      "",
      this.paragraph(topic, identifiers),
      "",
      sections.join("\n\n"),
      "",
    ].join("\n");
    return { path: `${topic[0]}/${topic[1]}-${index}.md`, text };
  }
}

/** What was written: pages, chunks (as the ingester will cut them) and bytes. */
export interface SyntheticCorpus {
  dir: string;
  pages: number;
  chunks: number;
  bytes: number;
}

/**
 * Writes pages into `dir` until they hold `targetChunks` chunks, counted with
 * the ingester's own chunker. The same seed and target give the same files.
 */
export async function writeSyntheticCorpus(dir: string, targetChunks: number, seed = 2026): Promise<SyntheticCorpus> {
  const writer = new PageWriter(seededRandom(seed), vocabulary());
  let chunks = 0;
  let bytes = 0;
  let pages = 0;
  const folders = new Set<string>();
  while (chunks < targetChunks) {
    const { path, text } = writer.page(pages);
    const folder = join(dir, path.split("/")[0] ?? "");
    if (!folders.has(folder)) {
      await mkdir(folder, { recursive: true });
      folders.add(folder);
    }
    await writeFile(join(dir, path), text);
    chunks += chunkDocument("", text.slice(text.indexOf("\n---\n") + 5)).length;
    bytes += Buffer.byteLength(text);
    pages += 1;
  }
  return { dir, pages, chunks, bytes };
}
