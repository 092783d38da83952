// A deterministic stand-in for an embedding model, for tests of the wiring only: a text's
// vector is its hashed bag of words (64 dimensions), with a tiny synonym table so that words
// no page uses land where a page's words do. It proves that vectors flow from ingestion to
// search and are fused; it says nothing about the quality of any real model.

/** Dimensions of the stand-in's vectors. */
const BAG_DIMENSIONS = 64;

/** Words no page of the default corpus uses, mapped onto words its "revoking API keys" section uses. */
const SYNONYMS: Readonly<Record<string, string>> = Object.freeze({
  rescind: "revoke",
  rescinding: "revoking",
  passcode: "key",
  passcodes: "keys",
});

/** FNV-1a, 32 bits: the same in workerd and Node. */
function hash(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i += 1) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The stand-in's vector of a text (not normalised: Almanac normalises whatever it is given). */
export function bagOfWords(text: string): number[] {
  const vector = new Array<number>(BAG_DIMENSIONS).fill(0);
  for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    const word = SYNONYMS[raw] ?? raw;
    // A crude stem, so "revoking" and "revoke", "keys" and "key" meet.
    const stem = word.replace(/(ing|ed|es|s|e)$/, "");
    const slot = hash(stem) % BAG_DIMENSIONS;
    vector[slot] = (vector[slot] ?? 0) + 1;
  }
  return vector;
}
