// Every v1 endpoint as a method. Bodies and answers are the API's JSON (snake_case), typed
// from the OpenAPI document (schema.ts); query options are the operation's own parameters.
import { batches, joinedAccepted, joinedResults } from "./batch.js";
import { type Call, type ClientOptions, Http, segment } from "./http.js";
import { LiveStream, type StreamOptions } from "./stream.js";
import type {
  Accepted,
  AuditQuery,
  BatchItem,
  BatchResults,
  Board,
  Key,
  KeyCreated,
  KeyIn,
  Match,
  Query,
  RankOfQuery,
  Schemas,
  Submission,
  Submitted,
  TournamentSubmission,
} from "./types.js";

type Async = { respondAsync: true };
type Sync = { respondAsync?: false };

const board = (id: string) => `/v1/boards/${segment(id)}`;
const player = (id: string) => `/v1/players/${segment(id)}`;
const tournament = (id: string) => `/v1/tournaments/${segment(id)}`;
const onBoard = (id: string, playerId: string) => `${board(id)}/players/${segment(playerId)}`;

/**
 * A client of one rankline server.
 *
 * ```ts
 * const rl = new Client("http://127.0.0.1:8000", { serverKey: process.env.RANKLINE_KEY });
 * await rl.submit("arena", { player_id: "p:42", score: 4500, match_id: "m:1" });
 * const { entries } = await rl.top("arena", { limit: 10 });
 * ```
 *
 * 429 and 503 answers are retried with exponential backoff honouring Retry-After (safe:
 * submissions are idempotent on their match id); other error answers throw `ApiError`.
 */
export class Client {
  readonly http: Http;

  constructor(baseUrl: string, options: ClientOptions = {}) {
    this.http = new Http(baseUrl, options);
  }

  private call<T>(call: Call): Promise<T> {
    return this.http.call<T>(call);
  }

  // boards
  listBoards(): Promise<Schemas["BoardsOut"]> {
    return this.call({ method: "GET", path: "/v1/boards" });
  }

  getBoard(id: string): Promise<Board> {
    return this.call({ method: "GET", path: board(id) });
  }

  /** Create or update a board: `putBoard("arena", { windows: ["all_time", "daily"] })`. */
  putBoard(id: string, definition: Board = {}): Promise<Board> {
    return this.call({ method: "PUT", path: board(id), body: definition, write: true });
  }

  deleteBoard(id: string): Promise<void> {
    return this.call({ method: "DELETE", path: board(id), write: true });
  }

  // scores
  /** Submit a score. With `{ respondAsync: true }` the answer is 202 `{accepted, token}` as
   * soon as it is durable; a read given `{ after: token }` then includes it. */
  submit(id: string, submission: Submission, options?: Sync): Promise<Submitted>;
  submit(id: string, submission: Submission, options: Async): Promise<Accepted>;
  submit(
    id: string,
    submission: Submission,
    options: { respondAsync?: boolean } = {},
  ): Promise<Submitted | Accepted> {
    const path = `${board(id)}/scores`;
    const { respondAsync } = options;
    return this.call({ method: "POST", path, body: submission, write: true, respondAsync });
  }

  /**
   * Any number of submissions, each with its `board`: sent 1,000 to a request, in order,
   * and answered as one batch (each result's `index` is its place in `items`). A request that
   * fails throws; the earlier ones stay recorded, and sending them all again is safe. With
   * `{ respondAsync: true }`: the accepted count, one token for the whole upload, and each
   * item's `accepted` or `error`.
   */
  submitBatch(items: Iterable<BatchItem>, options?: Sync): Promise<BatchResults>;
  submitBatch(items: Iterable<BatchItem>, options: Async): Promise<Accepted>;
  async submitBatch(
    items: Iterable<BatchItem>,
    options: { respondAsync?: boolean } = {},
  ): Promise<BatchResults | Accepted> {
    const { respondAsync } = options;
    const answers: (BatchResults | Accepted)[] = [];
    const sizes: number[] = [];
    for (const scores of batches(items)) {
      const call: Call = { method: "POST", path: "/v1/scores/batch", write: true, respondAsync };
      answers.push(await this.call({ ...call, body: { scores } }));
      sizes.push(scores.length);
    }
    return respondAsync
      ? joinedAccepted(answers as Accepted[], sizes)
      : joinedResults(answers as BatchResults[], sizes);
  }

  // rating boards
  /** A match on a rating board: each player's old and new rating and rank. */
  submitMatch(id: string, match: Match, options?: Sync): Promise<Schemas["MatchOut"]>;
  submitMatch(id: string, match: Match, options: Async): Promise<Accepted>;
  submitMatch(
    id: string,
    match: Match,
    options: { respondAsync?: boolean } = {},
  ): Promise<Schemas["MatchOut"] | Accepted> {
    const { respondAsync } = options;
    const path = `${board(id)}/matches`;
    return this.call({ method: "POST", path, body: match, write: true, respondAsync });
  }

  /** Up to 1,000 matches, each with its `board`. */
  submitMatches(matches: Schemas["MatchBatchDoc"]["matches"]): Promise<Schemas["MatchBatchOut"]> {
    const body = { matches };
    return this.call({ method: "POST", path: "/v1/matches/batch", body, write: true });
  }

  /** A player's rating on a rating board, also while provisional. */
  rating(
    id: string,
    playerId: string,
    query?: Query<"player_rating">,
  ): Promise<Schemas["PlayerRatingOut"]> {
    return this.call({ method: "GET", path: `${onBoard(id, playerId)}/rating`, query });
  }

  // reads: each takes window, period, scope and `after` (a 202 answer's token); the reads
  // of entries take `metadata: true` for each entry's submission metadata
  /**
   * A top page. It carries `next` while entries follow: pass it as `cursor` for the entries
   * after its last, however the board changed meanwhile (`pages` does). With `at` (an
   * instant), the top as the latest snapshot taken at or before it kept it.
   */
  top(id: string, query?: Query<"top">): Promise<Schemas["TopOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/top`, query });
  }

  /** Every top page from the first (or `query.cursor`), following each page's `next`. */
  async *pages(id: string, query: Query<"top"> = {}): AsyncGenerator<Schemas["TopOut"]> {
    let page = await this.top(id, query);
    yield page;
    while (page.next) {
      page = await this.top(id, { ...query, offset: undefined, cursor: page.next });
      yield page;
    }
  }

  /** A leaderboard's top-K snapshots (`taken_at`, `total`, `entries`), newest first. */
  snapshots(id: string, query?: Query<"snapshots">): Promise<Schemas["SnapshotsOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/snapshots`, query });
  }

  /**
   * The board webhook's period-close events and their delivery state, newest first (needs the
   * server key).
   */
  deliveries(id: string, query?: Query<"deliveries">): Promise<Schemas["DeliveriesOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/deliveries`, query, write: true });
  }

  /** The player's view: rank, competition rank, percentile, movement; 404 without an entry. */
  player(id: string, playerId: string, query?: Query<"player">): Promise<Schemas["PlayerOut"]> {
    return this.call({ method: "GET", path: onBoard(id, playerId), query });
  }

  around(id: string, playerId: string, query?: Query<"around">): Promise<Schemas["AroundOut"]> {
    return this.call({ method: "GET", path: `${onBoard(id, playerId)}/around`, query });
  }

  // the player calling with a token (`token`): their own standing
  /** `player` for the player whose token the client sends. */
  me(id: string, query?: Query<"me">): Promise<Schemas["PlayerOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/me`, query });
  }

  /** `around` the player whose token the client sends. */
  meAround(id: string, query?: Query<"me_around">): Promise<Schemas["AroundOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/me/around`, query });
  }

  /** `friends` of the player whose token the client sends, among their stored list. */
  meFriends(id: string, query?: Query<"me_friends">): Promise<Schemas["FriendsOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/me/friends`, query });
  }

  /** The rank a score would get if submitted now. */
  rankOf(id: string, query: RankOfQuery): Promise<Schemas["RankOfOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/rank-of`, query });
  }

  /** Among these `friends`; without them, among the player's stored friend list. */
  friends(
    id: string,
    playerId: string,
    friends?: readonly string[],
    query: Query<"stored_friends"> = {},
  ): Promise<Schemas["FriendsOut"]> {
    const path = `${onBoard(id, playerId)}/friends`;
    if (friends === undefined) return this.call({ method: "GET", path, query });
    const { k, ...where } = query;
    const body = { friends, ...(k === undefined ? {} : { k }) };
    return this.call({ method: "POST", path, query: where, body });
  }

  /** The ranked entries of these players, in rank order. */
  ranks(
    id: string,
    playerIds: readonly string[],
    query?: Query<"ranks">,
  ): Promise<Schemas["RanksOut"]> {
    const body = { player_ids: playerIds };
    return this.call({ method: "POST", path: `${board(id)}/ranks`, query, body });
  }

  periods(id: string, query?: Query<"periods">): Promise<Schemas["PeriodsOut"]> {
    return this.call({ method: "GET", path: `${board(id)}/periods`, query });
  }

  /**
   * The live leaderboard: `top` events with the top `limit` entries whenever they change and
   * `player` events for watched `players`. Iterate it with `for await`; `close()` ends it.
   * Browsers use EventSource (when no key must be sent); elsewhere a streaming fetch.
   */
  stream(id: string, options: StreamOptions = {}): LiveStream {
    return new LiveStream(this.http, `${board(id)}/stream`, options);
  }

  // players
  putPlayer(playerId: string, profile: Schemas["ProfileIn"]): Promise<Schemas["ProfileOut"]> {
    return this.call({ method: "PUT", path: player(playerId), body: profile, write: true });
  }

  getPlayer(playerId: string): Promise<Schemas["PlayerProfileOut"]> {
    return this.call({ method: "GET", path: player(playerId) });
  }

  /** The player's submissions, newest first; pass `next_cursor` as `cursor` for more. */
  history(playerId: string, query?: Query<"player_history">): Promise<Schemas["HistoryOut"]> {
    return this.call({ method: "GET", path: `${player(playerId)}/history`, query });
  }

  putFriends(playerId: string, friends: readonly string[]): Promise<Schemas["FriendListOut"]> {
    const path = `${player(playerId)}/friends`;
    return this.call({ method: "PUT", path, body: { friends }, write: true });
  }

  getFriends(playerId: string): Promise<Schemas["FriendListOut"]> {
    return this.call({ method: "GET", path: `${player(playerId)}/friends` });
  }

  ban(playerId: string): Promise<Schemas["BanOut"]> {
    return this.call({ method: "POST", path: `${player(playerId)}/ban`, write: true });
  }

  unban(playerId: string): Promise<Schemas["BanOut"]> {
    return this.call({ method: "DELETE", path: `${player(playerId)}/ban`, write: true });
  }

  /** Erase the player everywhere: entries, history, profile. */
  erase(playerId: string): Promise<void> {
    return this.call({ method: "DELETE", path: player(playerId), write: true });
  }

  // moderation and operations (server key)
  /** Remove a player's entry from every leaderboard of a board, or from those the `window`,
   * `period` and `scope` name; `reason` is kept in the audit log. ApiError 404 without one. */
  removeEntry(
    id: string,
    playerId: string,
    query?: Query<"remove_entry">,
  ): Promise<Schemas["RemovedOut"]> {
    return this.call({ method: "DELETE", path: onBoard(id, playerId), query, write: true });
  }

  /** Restart the current period of a board's window (default its first), on every scope or
   * on `scope` only. */
  reset(id: string, options: Schemas["ResetIn"] = {}): Promise<Schemas["RemovedOut"]> {
    const path = `${board(id)}/reset`;
    return this.call({ method: "POST", path, body: options, write: true });
  }

  /** Undo every submission under `matchId` on the board, as if never submitted (a "/" in it
   * is sent percent-encoded). ApiError 404 for a match the board never had, 409 when voided
   * already. */
  voidMatch(
    id: string,
    matchId: string,
    options: Schemas["VoidIn"] = {},
  ): Promise<Schemas["VoidedOut"]> {
    const path = `${board(id)}/matches/${segment(matchId)}/void`;
    return this.call({ method: "POST", path, body: options, write: true });
  }

  /** A page of the audit log, newest first; pass the answer's `next` as `cursor` for the
   * older page. `player_id` names the player whose entries to list. */
  audit(query: AuditQuery = {}): Promise<Schemas["AuditOut"]> {
    const { player_id, ...rest } = query;
    const where = player_id === undefined ? rest : { ...rest, player: player_id };
    return this.call({ method: "GET", path: "/v1/audit", query: where, write: true });
  }

  /** The submissions taken asynchronously that could not be applied, newest first. */
  deadLetters(query?: Query<"list_dead_letters">): Promise<Schemas["DeadLettersOut"]> {
    return this.call({ method: "GET", path: "/v1/dead-letters", query, write: true });
  }

  // tournaments
  listTournaments(): Promise<Schemas["TournamentsOut"]> {
    return this.call({ method: "GET", path: "/v1/tournaments" });
  }

  getTournament(id: string): Promise<Schemas["TournamentOut"]> {
    return this.call({ method: "GET", path: tournament(id) });
  }

  putTournament(
    id: string,
    definition: Schemas["TournamentSpec"],
  ): Promise<Schemas["TournamentOut"]> {
    return this.call({ method: "PUT", path: tournament(id), body: definition, write: true });
  }

  deleteTournament(id: string): Promise<void> {
    return this.call({ method: "DELETE", path: tournament(id), write: true });
  }

  /** Join the current (or next) edition; ApiError 409 when it is full. */
  join(id: string, playerId: string): Promise<Schemas["JoinOut"]> {
    const body = { player_id: playerId };
    return this.call({ method: "POST", path: `${tournament(id)}/join`, body, write: true });
  }

  /** A score in a tournament; ApiError 409 outside its schedule, over `max_submissions` or
   * without joining when `join_required`. */
  submitTournament(id: string, submission: TournamentSubmission): Promise<Submitted> {
    const path = `${tournament(id)}/scores`;
    return this.call({ method: "POST", path, body: submission, write: true });
  }

  tournamentTop(id: string, query?: Query<"tournaments_top">): Promise<Schemas["TopOut"]> {
    return this.call({ method: "GET", path: `${tournament(id)}/top`, query });
  }

  tournamentPlayer(
    id: string,
    playerId: string,
    query?: Query<"tournaments_player">,
  ): Promise<Schemas["PlayerOut"]> {
    const path = `${tournament(id)}/players/${segment(playerId)}`;
    return this.call({ method: "GET", path, query });
  }

  tournamentAround(
    id: string,
    playerId: string,
    query?: Query<"tournaments_around">,
  ): Promise<Schemas["AroundOut"]> {
    const path = `${tournament(id)}/players/${segment(playerId)}/around`;
    return this.call({ method: "GET", path, query });
  }

  /** An ended edition's results with rewards (the last ended one by default). */
  results(id: string, query?: Query<"results">): Promise<Schemas["ResultsOut"]> {
    return this.call({ method: "GET", path: `${tournament(id)}/results`, query });
  }

  // keys (a server key without board limits)
  /** A new server or read key; the answer's `secret` is shown this once. */
  createKey(key: KeyIn): Promise<KeyCreated> {
    return this.call({ method: "POST", path: "/v1/keys", body: key, write: true });
  }

  /** The keys made at runtime, without their secrets. */
  listKeys(): Promise<{ keys: Key[] }> {
    return this.call({ method: "GET", path: "/v1/keys", write: true });
  }

  revokeKey(keyId: string): Promise<unknown> {
    return this.call({ method: "DELETE", path: `/v1/keys/${segment(keyId)}`, write: true });
  }

  // operations
  health(): Promise<unknown> {
    return this.call({ method: "GET", path: "/healthz" });
  }
}
