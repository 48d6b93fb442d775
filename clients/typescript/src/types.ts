// Names for the generated API types (schema.ts), as the client's methods take and answer them.
import type { components, operations } from "./schema.js";

/** Every request and answer body of the API, by its OpenAPI schema name (`Schemas["TopOut"]`). */
export type Schemas = components["schemas"];

/** The query parameters an operation takes, by its operationId (`Query<"top">`). */
export type Query<Op extends keyof operations> = operations[Op]["parameters"] extends {
  query?: infer Q;
}
  ? NonNullable<Q>
  : never;

/** A problem+json error body (RFC 9457). */
export type Problem = Schemas["Problem"];
export type Board = Schemas["BoardSpec"];
/** A signed 64-bit integer: a number, or a bigint for one beyond ±(2^53 - 1). Answers hold a
 * bigint only where a value is beyond that range (typed `number` there). */
export type Int64 = number | bigint;
type Exact<T> = Omit<T, "score" | "subscore"> & { score: Int64; subscore?: Int64 | null };
export type Submission = Exact<Schemas["ScoreIn"]>;
export type TournamentSubmission = Exact<Schemas["TournamentScoreIn"]>;
/** One item of a batch upload: a submission plus its `board`. */
export type BatchItem = Submission & { board: string };
/** The query of `rankOf`: the score (and subscore) to place, and where. */
export type RankOfQuery = Omit<Query<"rank_of">, "score" | "subscore"> & {
  score: Int64;
  subscore?: Int64;
};
/** The query of `audit`: the audit log's filters and page, the player named `player_id`
 * (as everywhere in the client) rather than the parameter's `player`. */
export type AuditQuery = Omit<Query<"audit_log">, "player"> & { player_id?: string };
export type Submitted = Schemas["SubmitOut"];
/** The 202 answer to an asynchronous submission: pass `token` as `after` to a read. */
export type Accepted = Schemas["AcceptedOut"];
export type BatchResults = Schemas["BatchOut"];
export type Match = Schemas["MatchIn"];
export type Top = Schemas["TopOut"];
export type Entry = Schemas["Entry"];
export type PlayerView = Schemas["PlayerOut"];

/** What a read narrows to: a window, its period and a scope, and `after` (a 202's token). */
export type Where = Query<"player">;

/** A key to make at runtime (`createKey`): a `server` or `read` key, limited to boards
 * matching `boards` and expiring at `expires_at` when given. */
export interface KeyIn {
  name: string;
  role: "server" | "read";
  boards?: string[];
  expires_at?: string;
}
/** A key made at runtime, as listed (never with its secret). */
export interface Key {
  id: string;
  name: string;
  role: "server" | "read";
  boards: string[] | null;
  expires_at: string | null;
}
/** A key just made: its `secret` is shown this once. */
export type KeyCreated = Key & { secret: string };
