// Uploads of any size: split into batches of 1,000 (the API's limit per request), answered
// as one batch whose results are indexed over the whole upload.
import type { Accepted, BatchResults, Problem } from "./types.js";

export const BATCH_LIMIT = 1000;

/** Split items into lists of at most `size` (1,000) for one batch request each. */
export function* batches<T>(items: Iterable<T>, size: number = BATCH_LIMIT): Generator<T[]> {
  let chunk: T[] = [];
  for (const item of items) {
    chunk.push(item);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** An error's place in the body (`["body", "scores", i, ...]`) counted from the upload's start. */
function movedProblem(problem: Problem, start: number): Problem {
  if (!problem.errors) return problem;
  const errors = problem.errors.map((error) => {
    const [where, list, item, ...rest] = error.loc;
    if (where !== "body" || list !== "scores" || typeof item !== "number") return error;
    return { ...error, loc: [where, list, item + start, ...rest] };
  });
  return { ...problem, errors };
}

/** A chunk's results with `index` (and the place in each error) counted from `start`. */
export function shifted<R extends { index: number; error?: Problem | null }>(
  results: readonly R[],
  start: number,
): R[] {
  if (start === 0) return [...results];
  return results.map((result) => ({
    ...result,
    index: result.index + start,
    ...(result.error ? { error: movedProblem(result.error, start) } : {}),
  }));
}

/** The answers of the chunks of one synchronous upload, as one. */
export function joinedResults(
  answers: readonly BatchResults[],
  sizes: readonly number[],
): BatchResults {
  const results: BatchResults["results"] = [];
  answers.forEach((answer, at) => {
    const start = sizes.slice(0, at).reduce((sum, size) => sum + size, 0);
    results.push(...shifted(answer.results, start));
  });
  return { results };
}

/** The 202 answers of the chunks of one asynchronous upload, as one: the items accepted in
 * all, one token for all of them (the chunks' tokens joined with `_`: a read given it waits
 * for every chunk), and the per-item results indexed over the whole upload. */
export function joinedAccepted(answers: readonly Accepted[], sizes: readonly number[]): Accepted {
  const results: NonNullable<Accepted["results"]> = [];
  let accepted = 0;
  answers.forEach((answer, at) => {
    const start = sizes.slice(0, at).reduce((sum, size) => sum + size, 0);
    accepted += answer.accepted;
    results.push(...shifted(answer.results ?? [], start));
  });
  const token = answers
    .map((answer) => answer.token)
    .filter((part) => part !== "")
    .join("_");
  return { accepted, token, results };
}
