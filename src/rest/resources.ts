// Almanac's documents, chunks and answers as the messages of Google's
// Developer Knowledge API v1 (the discovery document's `schemas`).
import type { SourcedAnswer } from "../documents/answer/answer-query.ts";
import type { SearchResult } from "../documents/search/search-documents.ts";
import type { ChunkHit, DocumentSummary } from "../documents/document.ts";
import { AlmanacError } from "../errors.ts";

/** DocumentView, in the discovery document's order (its enum numbers are the indexes). */
const DOCUMENT_VIEWS = ["DOCUMENT_VIEW_UNSPECIFIED", "DOCUMENT_VIEW_BASIC", "DOCUMENT_VIEW_FULL", "DOCUMENT_VIEW_CONTENT"] as const;

/** A view a response is given in (UNSPECIFIED only ever asks for a method's default). */
type DocumentView = Exclude<(typeof DOCUMENT_VIEWS)[number], "DOCUMENT_VIEW_UNSPECIFIED">;

/** get and batchGet answer in this view when none is asked for, as the discovery document says. */
export const DEFAULT_GET_VIEW: DocumentView = "DOCUMENT_VIEW_CONTENT";

/**
 * The `view` parameter: a DocumentView name or its enum number (Google's
 * front end takes both); absent or UNSPECIFIED is `fallback`.
 *
 * @example documentView("DOCUMENT_VIEW_BASIC", DEFAULT_GET_VIEW) // "DOCUMENT_VIEW_BASIC"
 */
export function documentView(value: string | undefined, fallback: DocumentView): DocumentView {
  if (value === undefined) return fallback;
  const view = /^\d$/.test(value) ? DOCUMENT_VIEWS[Number(value)] : DOCUMENT_VIEWS.find((name) => name === value);
  if (!view) throw new AlmanacError("INVALID_ARGUMENT", `view "${value.slice(0, 60)}" is not a DocumentView; use one of ${DOCUMENT_VIEWS.join(", ")}`);
  return view === "DOCUMENT_VIEW_UNSPECIFIED" ? fallback : view;
}

/** A page's metadata and, in the CONTENT and FULL views, its content. */
type DocumentFields = DocumentSummary & { contentLengthBytes: number; content?: string };

/**
 * Google's Document message. BASIC has the metadata (name, uri, data_source,
 * title, description, update_time, view, content_length_bytes); CONTENT adds
 * `content`; FULL is every field, which today is the same as CONTENT.
 */
export function documentMessage(document: DocumentFields, view: DocumentView) {
  return {
    name: document.name,
    uri: document.uri,
    title: document.title,
    description: document.description,
    ...(view === "DOCUMENT_VIEW_BASIC" ? {} : { content: document.content }),
    dataSource: document.dataSource,
    updateTime: document.updateTime,
    view,
    contentLengthBytes: document.contentLengthBytes,
    // An extension field (not in Google's Document message; its clients ignore it), set only for versioned pages.
    ...(document.version ? { version: document.version } : {}),
  };
}

/** Google's DocumentChunk: the chunk, its page's metadata (always in the BASIC view), and its relevanceScore when search gave one. */
function chunkMessage(hit: ChunkHit, contentLengths: ReadonlyMap<string, number>, id: string | undefined) {
  const document = { ...hit.document, contentLengthBytes: contentLengths.get(hit.parent) ?? 0 };
  return {
    parent: hit.parent,
    id,
    content: hit.content,
    document: documentMessage(document, "DOCUMENT_VIEW_BASIC"),
    ...(hit.relevanceScore === undefined ? {} : { relevanceScore: hit.relevanceScore }),
  };
}

/** SearchDocumentChunksResponse. */
export function searchResponse(result: SearchResult, contentLengths: ReadonlyMap<string, number>) {
  return { results: result.results.map((hit) => chunkMessage(hit, contentLengths, hit.id)), nextPageToken: result.nextPageToken };
}

/**
 * AnswerQueryResponse. Each reference is a DocumentReference whose chunk is
 * the one the answer's sentences from that page come from; its `id` is not
 * set, as the discovery document says of `document_chunk.id`.
 */
export function answerResponse({ answer, sources }: SourcedAnswer, contentLengths: ReadonlyMap<string, number>) {
  return {
    answer: {
      answerText: answer.answerText,
      references: sources.map((hit) => ({ documentReference: { documentChunk: chunkMessage(hit, contentLengths, undefined) } })),
      citations: answer.citations,
    },
  };
}
