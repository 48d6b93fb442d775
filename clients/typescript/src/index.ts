// @rankline/client: a typed client for rankline's HTTP API, on fetch (Node 18+ and browsers).
export { BATCH_LIMIT, batches } from "./batch.js";
export { Client } from "./client.js";
export { ApiError } from "./errors.js";
export type { ClientOptions, Retry, TokenSource } from "./http.js";
export type { components, operations, paths } from "./schema.js";
export { LiveStream, type StreamEvent, type StreamOptions } from "./stream.js";
export type {
  Accepted,
  AuditQuery,
  BatchItem,
  BatchResults,
  Board,
  Entry,
  Int64,
  Key,
  KeyCreated,
  KeyIn,
  Match,
  PlayerView,
  Problem,
  Query,
  RankOfQuery,
  Schemas,
  Submission,
  Submitted,
  Top,
  TournamentSubmission,
  Where,
} from "./types.js";
