import type { FC } from "hono/jsx";
import type { SourcedAnswer } from "../documents/answer/answer-query.ts";
import { sectionLink } from "../tools/search-documents.ts";
import { type InlinePart, answerParagraphs, inlineMarkdown } from "./citations.ts";
import type { AskState, PanelError } from "./panel-states.ts";
import { SourceSelect } from "./source-select.tsx";
import { ErrorBox } from "./ui.tsx";

/** The ask panel: answer_query as a form, through the same quota as MCP; the answer with numbered citations. */
export const AskPanel: FC<{ state?: AskState; sources: string[] }> = ({ state, sources }) => (
  <section id="ask" class="panel" aria-labelledby="ask-title">
    <h3 id="ask-title">Ask a question</h3>
    <form id="ask-form" action="/try/ask#ask" method="post" data-swap="ask allowance">
      <label for="ask-query">Question</label>
      <textarea id="ask-query" name="query" rows={2} maxlength={500} required placeholder="e.g. How does the answer_query quota work?">
        {state?.input.query ?? ""}
      </textarea>
      <div class="row">
        <SourceSelect id="ask-source" sources={sources} selected={state?.input.dataSource ?? ""} />
        <button type="submit">Ask</button>
      </div>
      <p class="hint">Each question uses one call of your answer_query allowance, as it does over MCP; a refused one costs nothing.</p>
    </form>
    {state?.error && <AskRefusal error={state.error} query={state.input.query ?? ""} />}
    {state?.answer && <AnswerView answer={state.answer} />}
  </section>
);

const AskRefusal: FC<{ error: PanelError; query: string }> = ({ error, query }) => {
  const searchInstead = (
    <p>
      Searching is free:{" "}
      <a href={`/try/search?${new URLSearchParams({ query })}#search`} data-swap="search">
        search the documentation for “{query}”
      </a>{" "}
      instead.
    </p>
  );
  if (error.status === "RESOURCE_EXHAUSTED") {
    return (
      <ErrorBox title="Your answer_query quota is spent">
        <p>{error.message}</p>
        {query && searchInstead}
      </ErrorBox>
    );
  }
  return (
    <ErrorBox title={error.status === "UNAUTHENTICATED" ? "The API key was refused" : "This question cannot be answered as asked"}>
      <p>{error.message}</p>
    </ErrorBox>
  );
};

/** The answer text with [n] after each cited span, each linking to its reference, and the references linking to their sections. */
const AnswerView: FC<{ answer: SourcedAnswer }> = ({ answer: { answer, sources } }) => {
  if (answer.references.length === 0) {
    return (
      <div>
        <h4 data-focus tabindex={-1}>
          No grounded answer
        </h4>
        <p>{answer.answerText}</p>
      </div>
    );
  }
  const titles = sources.map((source) => source.document.title);
  return (
    <div>
      <h4 data-focus tabindex={-1}>
        Answer
      </h4>
      <div class="answer">
        {answerParagraphs(answer).map((paragraph) => (
          <p>
            {paragraph.map((piece) =>
              "text" in piece ? (
                inlineMarkdown(piece.text).map((part) => <Inline part={part} />)
              ) : (
                <sup>
                  <a href={`#ref-${piece.reference}`} aria-label={`Reference ${piece.reference}: ${titles[piece.reference - 1] ?? answer.references[piece.reference - 1]}`}>
                    [{piece.reference}]
                  </a>
                </sup>
              ),
            )}
          </p>
        ))}
      </div>
      <h4>References</h4>
      <ol class="references">
        {answer.references.map((name, index) => {
          const source = sources[index];
          return (
            <li id={`ref-${index + 1}`}>
              {source ? <a href={sectionLink(source.document.uri, source.id)}>{source.document.title}</a> : name}{" "}
              <code class="muted">{name}</code>
            </li>
          );
        })}
      </ol>
    </div>
  );
};

const Inline: FC<{ part: InlinePart }> = ({ part }) =>
  part.style === "code" ? <code>{part.text}</code> : part.style === "strong" ? <strong>{part.text}</strong> : <>{part.text}</>;
