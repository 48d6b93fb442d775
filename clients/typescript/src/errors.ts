import { parseJson } from "./json.js";
import type { Problem } from "./types.js";

/**
 * An error answer of the API: its HTTP `status` and its problem+json body (`problem`, with
 * `type`, `title`, `detail`, and `errors` for invalid input or `existing` for a reused match
 * id). Network failures and timeouts are not wrapped: they reject with fetch's own errors.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(`${status} ${problem.title}: ${problem.detail}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
  }

  get title(): string {
    return this.problem.title;
  }

  get detail(): string {
    return this.problem.detail;
  }

  get errors(): Problem["errors"] {
    return this.problem.errors ?? null;
  }
}

/** The problem an error answer carries; a body that is not problem+json becomes one. */
export function problemOf(status: number, statusText: string, text: string): Problem {
  try {
    const body: unknown = parseJson(text);
    if (typeof body === "object" && body !== null && "title" in body) return body as Problem;
  } catch {
    // not JSON: described below
  }
  return { type: "about:blank", title: statusText, status, detail: text };
}
