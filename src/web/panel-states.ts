import type { SourcedAnswer } from "../documents/answer/answer-query.ts";
import type { SearchResult } from "../documents/search/search-documents.ts";
import type { AlmanacStatus } from "../errors.ts";
import type { LibraryEntryView } from "../library/get.ts";
import type { LibrarySearchResult } from "../library/search.ts";
import type { AskInput, LibraryInput, SearchInput } from "./try-request.ts";

/** A refusal as a panel shows it: the status decides the wording around the server's own message. */
export interface PanelError {
  status: AlmanacStatus;
  message: string;
}

export interface SearchState {
  input: SearchInput;
  result?: SearchResult;
  error?: PanelError;
}

export interface AskState {
  input: AskInput;
  answer?: SourcedAnswer;
  error?: PanelError;
}

export interface LibraryState {
  input: LibraryInput;
  search?: LibrarySearchResult;
  entry?: LibraryEntryView;
  error?: PanelError;
}

/** What each "Try it" panel shows; a panel without a state shows its empty form. */
export interface PanelStates {
  search?: SearchState;
  ask?: AskState;
  library?: LibraryState;
}
