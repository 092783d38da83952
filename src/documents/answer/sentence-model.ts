// Which candidate sentence states what was asked: a logistic model over what the answerer
// already measures of a sentence, fitted by `npm run eval:fit` to the sentences that hold the
// asked-for fact in the tuning question sets.

/** What the answerer knows of a candidate sentence, each 0–1. */
export interface SentenceFeatures {
  /** Rarity-weighted share of the question's words the sentence itself uses. */
  questionShare: number;
  /** …that its section heading uses: a heading that repeats the question introduces, it seldom states. */
  headingShare: number;
  /** How central it is to what the top chunks are about (centroid summarisation). */
  centrality: number;
  /** How well its chunk ranked: √(score / top score), at least √0.05. */
  chunkPrior: number;
  /** 1 / (1 + its page's place among the candidate pages). */
  earlyPage: number;
  /** It introduces a code block. */
  code: number;
  /** It names something concrete: inline code or a number. */
  concrete: number;
  /** Over 400 characters: a paragraph without full stops. */
  long: number;
  /** It asks a question (docs restating what readers ask). */
  question: number;
  /** It starts in lower case: a list item continuing the sentence above. */
  fragment: number;
}

export const FEATURE_NAMES = [
  "questionShare",
  "headingShare",
  "centrality",
  "chunkPrior",
  "earlyPage",
  "code",
  "concrete",
  "long",
  "question",
  "fragment",
] as const satisfies readonly (keyof SentenceFeatures)[];

/** The model's coefficients: one per feature, the question share times the chunk prior, and the bias. */
export interface SentenceModel {
  readonly weights: Readonly<Record<keyof SentenceFeatures, number>>;
  /** A sentence that covers the question *in a chunk that ranks high* is worth more than either alone. */
  readonly questionShareByChunkPrior: number;
  readonly bias: number;
}

/**
 * Fitted on real-tune.json and dart-go.json (121 questions with a fact, 89
 * of them with the fact in one of their 5,175 candidate sentences), never on
 * dart-go-unseen.json or real-holdout.json. Where the fact sentence ranks among
 * a question's candidates, mean reciprocal rank by the answerer's hand-made
 * score → by this model: dart-go-unseen.json 0.453 → 0.502, in the top 3
 * 0.48 → 0.66 (EVALUATION.md).
 */
export const SENTENCE_MODEL: SentenceModel = Object.freeze({
  weights: Object.freeze({
    questionShare: 1.231,
    headingShare: -1.382,
    centrality: 1.046,
    chunkPrior: 2.586,
    earlyPage: 0.775,
    code: 1.071,
    concrete: 0.784,
    long: -2.143,
    question: -0.895,
    fragment: 0.474,
  }),
  questionShareByChunkPrior: 1.518,
  bias: -6.773,
});

/** The model's inputs in a fixed order (the fit's design matrix): the features, then their one product. */
export function featureVector(features: SentenceFeatures): number[] {
  return [...FEATURE_NAMES.map((name) => features[name]), features.questionShare * features.chunkPrior];
}

/** How likely the sentence states what the question asks, 0–1. */
export function likelihoodOf(features: SentenceFeatures, model: SentenceModel = SENTENCE_MODEL): number {
  let z = model.bias + model.questionShareByChunkPrior * features.questionShare * features.chunkPrior;
  for (const name of FEATURE_NAMES) z += model.weights[name] * features[name];
  return 1 / (1 + Math.exp(-z));
}
