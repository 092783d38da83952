/**
 * Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each
 * item scores Σ 1 / (k + rank) over the lists that hold it. It needs no
 * calibration between BM25 scores and cosine similarities, which live on
 * unrelated scales and shift with every corpus and model, so it is the
 * fusion that works before anything is tuned (Cloudflare AI Search and most
 * hybrid engines start with it). A convex combination of normalised scores
 * can do better once tuned on a question set (Bruch et al., 2023); that
 * needs a real model to tune with, which `npm run eval -- … --embeddings`
 * now allows.
 */

/**
 * The constant of the paper: 60 keeps a first place from dominating (1/61
 * against 1/62 for second), so an item both lists rank well beats one only
 * a single list ranks first.
 */
export const RRF_K = 60;

/** An item and its fused score. */
interface Fused<T> {
  item: T;
  score: number;
}

/**
 * Fuses ranked lists (best first) into one, best first. Items are the same
 * when `key` says so; ties keep the order of first appearance (the first
 * list's order first), so the same inputs always give the same order, which
 * paging relies on.
 *
 * @example reciprocalRankFusion([["a", "b"], ["b", "c"]], (x) => x).map((f) => f.item) // ["b", "a", "c"]
 */
export function reciprocalRankFusion<T>(lists: readonly (readonly T[])[], key: (item: T) => string, k: number = RRF_K): Fused<T>[] {
  const fused = new Map<string, Fused<T> & { first: number }>();
  let seen = 0;
  for (const list of lists) {
    list.forEach((item, rank) => {
      const id = key(item);
      const entry = fused.get(id) ?? { item, score: 0, first: seen++ };
      entry.score += 1 / (k + rank + 1);
      fused.set(id, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.first - b.first).map(({ item, score }) => ({ item, score }));
}

/**
 * Fuses a deep lexical ranking with a vector list of at most `depth` items,
 * by RRF over lists of equal depth: the lexical ranking's first `depth`
 * places and the vectors. Fused with all of a 200-deep lexical ranking, a
 * chunk the lexical side ranks 150th and the vectors also hold would
 * outrank the lexical first place (1/211 + 1/61 > 1/61); measured with a
 * real model, that cost hybrid search more than the vectors gave
 * (EVALUATION.md). The deeper lexical items follow, in their order and
 * scored as RRF scores their place, unless the vectors found them.
 *
 * @example fuseAtEqualDepth(["a", "b", "c"], ["c"], (x) => x, 1).map((f) => f.item) // ["a", "c", "b"]
 */
export function fuseAtEqualDepth<T>(lexical: readonly T[], vectors: readonly T[], key: (item: T) => string, depth: number, k: number = RRF_K): Fused<T>[] {
  const fused = reciprocalRankFusion([lexical.slice(0, depth), vectors.slice(0, depth)], key, k);
  const present = new Set(fused.map(({ item }) => key(item)));
  const deeper = lexical.flatMap((item, rank) => (rank >= depth && !present.has(key(item)) ? [{ item, score: 1 / (k + rank + 1) }] : []));
  return [...fused, ...deeper];
}
