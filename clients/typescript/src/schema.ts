// Generated from rankline's OpenAPI document by `npm run generate`
// (scripts/generate.mjs, openapi-typescript). Do not edit by hand.

export interface paths {
    "/v1/boards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List boards */
        get: operations["list_boards"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a board */
        get: operations["get_board"];
        /** Create or update a board */
        put: operations["put_board"];
        post?: never;
        /** Delete a board and all its entries */
        delete: operations["delete_board"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/scores": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit a score */
        post: operations["post_score"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/scores/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit up to 1,000 scores */
        post: operations["post_batch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/top": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The top of a leaderboard */
        get: operations["top"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/players/{player_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A player's rank */
        get: operations["player"];
        put?: never;
        post?: never;
        /** Remove a player's entry from a board (every leaderboard, or those named) */
        delete: operations["remove_entry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/players/{player_id}/around": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The players around a player */
        get: operations["around"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling player's rank (a player token) */
        get: operations["me"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/me/around": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The players around the calling player (a player token) */
        get: operations["me_around"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/rank-of": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The rank a score would get if it were submitted now */
        get: operations["rank_of"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/players/{player_id}/friends": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The leaderboard among a player and their stored friends */
        get: operations["stored_friends"];
        put?: never;
        /** The leaderboard among a player and their friends */
        post: operations["friends"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/ranks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The ranks of up to 1,000 players */
        post: operations["ranks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/snapshots": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The top-K snapshots of a leaderboard, newest first */
        get: operations["snapshots"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/periods": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The known periods of a board */
        get: operations["periods"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The board webhook's period-close events and their delivery state, newest first */
        get: operations["deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live top and watched players (Server-Sent Events: `top`, `player`) */
        get: operations["stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/players/{player_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A player's profile and current standings */
        get: operations["get_player"];
        /** Create or replace a player's profile */
        put: operations["put_player"];
        post?: never;
        /** Erase a player everywhere */
        delete: operations["delete_player"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/players/{player_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A player's score submissions (on a rating board: rating changes), newest first */
        get: operations["player_history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/players/{player_id}/friends": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A player's stored friend list */
        get: operations["get_friend_list"];
        /** Replace a player's stored friend list */
        put: operations["put_friend_list"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/players/{player_id}/ban": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Hide a player from every leaderboard */
        post: operations["ban_player"];
        /** Bring a banned player back */
        delete: operations["unban_player"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/me/friends": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The leaderboard among the calling player and their stored friends (a player token) */
        get: operations["me_friends"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/matches": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit a match result to a rating board */
        post: operations["post_match"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/matches/batch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit up to 1,000 match results */
        post: operations["post_match_batch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/players/{player_id}/rating": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A player's rating on a rating board (provisional players too) */
        get: operations["player_rating"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List tournaments */
        get: operations["list_tournaments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments/{tournament_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a tournament */
        get: operations["get_tournament"];
        /** Create or update a tournament */
        put: operations["put_tournament"];
        post?: never;
        /** Delete a tournament, its board, joins and results */
        delete: operations["delete_tournament"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments/{tournament_id}/join": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Join the current (or next) edition: 409 when full */
        post: operations["join"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments/{tournament_id}/scores": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit a score: 409 outside the schedule, over max_submissions or without joining */
        post: operations["tournaments_post_score"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments/{tournament_id}/top": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The top of an edition */
        get: operations["tournaments_top"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments/{tournament_id}/players/{player_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A player's rank in an edition */
        get: operations["tournaments_player"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments/{tournament_id}/players/{player_id}/around": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The players around a player in an edition */
        get: operations["tournaments_around"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tournaments/{tournament_id}/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An ended edition's results with rewards (the webhook's body) */
        get: operations["results"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Restart the current period of a board's window */
        post: operations["reset_board"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/matches/{match_id}/void": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Void a match: undo every submission under its id, as if never submitted */
        post: operations["void_match"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The audit log of changes made by hand, newest first */
        get: operations["audit_log"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/dead-letters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Submissions taken asynchronously that could not be applied, newest first */
        get: operations["list_dead_letters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/boards/{board_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A leaderboard as the file `rankline export` writes (CSV or JSON lines) */
        get: operations["export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the keys made at runtime, without their secrets */
        get: operations["list_keys"];
        put?: never;
        /** Create a server or read key (its secret is in this answer only) */
        post: operations["create_key"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a key: every server refuses it within a second */
        delete: operations["revoke_key"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is up */
        get: operations["healthz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Stores reachable and ranking indexes built (503 while not) */
        get: operations["readyz"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** Problem */
        Problem: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @default null */
            errors?: components["schemas"]["ProblemError"][] | null;
            /** @default null */
            existing?: components["schemas"]["StoredSubmissionOut"] | null;
            /** @default null */
            reason?: string | null;
        };
        /** ProblemError */
        ProblemError: {
            loc: (string | number)[];
            msg: string;
        };
        /**
         * StoredSubmissionOut
         * @description The submission stored under a reused (player_id, match_id).
         */
        StoredSubmissionOut: {
            board: string;
            player_id: string;
            match_id: string;
            /** Format: int64 */
            score: number;
            at: string;
            scopes: {
                [key: string]: string;
            };
            metadata: Record<string, unknown>;
        };
        /** BoardsOut */
        BoardsOut: {
            boards: components["schemas"]["BoardSpec"][];
        };
        /**
         * BoardSpec
         * @description A board definition, as PUT and GET carry it.
         */
        BoardSpec: {
            /** @default null */
            id?: string | null;
            /** @default null */
            title?: string | null;
            /**
             * @default desc
             * @enum {unknown}
             */
            order?: "asc" | "desc";
            /**
             * @default best
             * @enum {unknown}
             */
            policy?: "best" | "first" | "latest" | "rating" | "sum";
            windows?: (("all_time" | "daily" | "monthly" | "season" | "weekly") | components["schemas"]["WindowSpec"])[];
            /** @default null */
            timezone?: string | null;
            /** @default [] */
            seasons?: components["schemas"]["SeasonSpec"][];
            /** @default [] */
            scopes?: string[];
            retention_days?: components["schemas"]["RetentionDays"];
            /**
             * Format: int64
             * @default 300
             */
            grace_seconds?: number;
            /** @default null */
            min_score?: number | null;
            /** @default null */
            max_score?: number | null;
            /**
             * @default active
             * @enum {unknown}
             */
            status?: "active" | "frozen";
            /** @default null */
            rating?: Record<string, unknown> | null;
            /** @default {} */
            metadata?: Record<string, unknown>;
            /** @default null */
            webhook?: components["schemas"]["BoardWebhookSpec"] | null;
            /**
             * Format: int64
             * @default 1
             */
            shards?: number;
            /** @default [] */
            tiers?: components["schemas"]["TierSpec"][];
            /** @default false */
            dense_rank?: boolean;
            /** @default null */
            cohort_size?: number | null;
            /** @default null */
            schedule?: components["schemas"]["ScheduleSpec"] | null;
            /** @default null */
            subscore?: ("asc" | "desc") | null;
            /** @default false */
            entry_metadata?: boolean;
            /** @default null */
            snapshots?: components["schemas"]["SnapshotSpec"] | null;
            /** @default null */
            client_writes?: components["schemas"]["ClientWritesSpec"] | null;
        };
        /**
         * WindowSpec
         * @description A window given as an object in ``windows``: ``{"id": "daily", "timezone": ...}`` sets
         *     the time zone of a calendar window (``daily``, ``weekly``, ``monthly``);
         *     ``{"id": "friday-event", "cron": "0 18 * * FRI", "timezone": ...}`` is a cron window,
         *     whose periods run from one firing to the next (``rankline.cron``).
         */
        WindowSpec: {
            id: string;
            /** @default null */
            cron?: string | null;
            /** @default null */
            timezone?: string | null;
            /** @default null */
            retention_days?: number | null;
        };
        /** SeasonSpec */
        SeasonSpec: {
            id: string;
            start: string;
            end: string;
        };
        /**
         * RetentionDays
         * @description How many days a closed period stays live, per window (defaults apply where unset).
         */
        RetentionDays: {
            /** @default null */
            daily?: number | null;
            /** @default null */
            weekly?: number | null;
            /** @default null */
            monthly?: number | null;
            /** @default null */
            season?: number | null;
        };
        /**
         * BoardWebhookSpec
         * @description Where each closed leaderboard's final top is posted, signed with ``secret`` (shown
         *     without it).
         */
        BoardWebhookSpec: {
            url: string;
            /** @default null */
            secret?: string | null;
            /**
             * Format: int64
             * @default 100
             */
            top?: number;
        };
        /**
         * TierSpec
         * @description A tier: the entries ranked in the top ``top_percent`` percent of the leaderboard
         *     (rank <= ceil(total * top_percent / 100)), or in the first ``top_rank``; exactly one of
         *     the two.
         */
        TierSpec: {
            name: string;
            /** @default null */
            top_percent?: number | null;
            /** @default null */
            top_rank?: number | null;
        };
        /**
         * ScheduleSpec
         * @description Recurring editions in place of seasons: the first runs from ``starts_at`` to
         *     ``ends_at``, the next ``every_seconds`` later (none without it).
         */
        ScheduleSpec: {
            starts_at: string;
            ends_at: string;
            /** @default null */
            every_seconds?: number | null;
        };
        /**
         * SnapshotSpec
         * @description The top ``k`` of each live leaderboard, stored every ``every_seconds`` and kept
         *     ``keep_days`` (``rankline.lifecycle.snapshots``).
         */
        SnapshotSpec: {
            /**
             * Format: int64
             * @default 60
             */
            every_seconds?: number;
            /**
             * Format: int64
             * @default 100
             */
            k?: number;
            /**
             * Format: int64
             * @default 7
             */
            keep_days?: number;
        };
        /**
         * ClientWritesSpec
         * @description Players may submit their own scores with their tokens, within these limits; without
         *     it a board takes scores from keys only.
         */
        ClientWritesSpec: {
            /**
             * Format: int64
             * @default 10
             */
            max_per_minute?: number;
            /** @default null */
            max_gain?: number | null;
            /** @default null */
            validator?: components["schemas"]["ValidatorSpec"] | null;
        };
        /**
         * ValidatorSpec
         * @description Where each client submission is posted for a verdict before it is written, signed
         *     with ``secret`` as the board webhooks are (shown without it).
         */
        ValidatorSpec: {
            url: string;
            /** @default null */
            secret?: string | null;
            /**
             * Format: int64
             * @default 300
             */
            timeout_ms?: number;
            /**
             * @default reject
             * @enum {unknown}
             */
            on_error?: "accept" | "reject";
        };
        /**
         * ScoreIn
         * @description One score submission.
         */
        ScoreIn: {
            /** @description A player id. */
            player_id: string;
            /** Format: int64 */
            score: number;
            match_id: string;
            /** @default null */
            at?: string | null;
            /** @default null */
            scopes?: {
                [key: string]: string;
            } | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
            /** @default null */
            subscore?: number | null;
        };
        /** SubmitOut */
        SubmitOut: {
            player_id: string;
            match_id: string;
            applied: boolean;
            duplicate: boolean;
            previous_score: number | null;
            score: number | null;
            standings: components["schemas"]["StandingOut"][];
            /** @default null */
            previous_subscore?: number | null;
            /** @default null */
            subscore?: number | null;
        };
        /** StandingOut */
        StandingOut: {
            window: string;
            period: string;
            scope: string;
            score: number | null;
            rank: number | null;
            applied: boolean;
            /** @default null */
            reason?: string | null;
            /** @default null */
            subscore?: number | null;
        };
        /**
         * AcceptedOut
         * @description The 202 answer to ``Prefer: respond-async``: the submissions are durable in the
         *     ingestion log and will be applied; reads given ``after=<token>`` include them.
         */
        AcceptedOut: {
            /** Format: int64 */
            accepted: number;
            token: string;
            /** @default null */
            results?: components["schemas"]["AcceptedItemOut"][] | null;
        };
        /** AcceptedItemOut */
        AcceptedItemOut: {
            /** Format: int64 */
            index: number;
            accepted: boolean;
            /** @default null */
            error?: components["schemas"]["Problem"] | null;
        };
        /**
         * BatchDoc
         * @description A batch: up to 1,000 submissions, each a score submission plus its ``board``.
         *
         *     Items are validated one by one: an invalid item gets its own error in ``results``
         *     and the others are still recorded, so the request schema does not constrain items.
         */
        BatchDoc: {
            /** @description Each item: the fields of a score submission plus `board`; any item that is not one gets its own error in `results`. */
            scores: unknown[];
        };
        /** BatchOut */
        BatchOut: {
            results: components["schemas"]["BatchResultOut"][];
        };
        /** BatchResultOut */
        BatchResultOut: {
            /** Format: int64 */
            index: number;
            /** @default null */
            player_id?: string | null;
            /** @default null */
            match_id?: string | null;
            /** @default null */
            applied?: boolean | null;
            /** @default null */
            duplicate?: boolean | null;
            /** @default null */
            previous_score?: number | null;
            /** @default null */
            score?: number | null;
            /** @default null */
            standings?: components["schemas"]["StandingOut"][] | null;
            /** @default null */
            error?: components["schemas"]["Problem"] | null;
        };
        /** TopOut */
        TopOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            /** Format: int64 */
            total: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            as_of: string;
            period_ends_at: string | null;
            closes_at: string | null;
            /** @default false */
            degraded?: boolean;
            /** @default false */
            archived?: boolean;
            /** @default null */
            tier?: string | null;
            /** @default null */
            tier_total?: number | null;
            /** @default null */
            next?: string | null;
            /** @default null */
            taken_at?: string | null;
            entries: components["schemas"]["Entry"][];
        };
        /** Entry */
        Entry: {
            /** Format: int64 */
            rank: number;
            player_id: string;
            /** Format: int64 */
            score: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            achieved_at: string;
            /** @default null */
            subscore?: number | null;
            /** @default null */
            display_name?: string | null;
            /** @default null */
            tier?: string | null;
            /** @default null */
            dense_rank?: number | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
        };
        /**
         * PlayerOut
         * @description ``PlayerStanding``'s fields after the head (a Struct has one base with fields).
         */
        PlayerOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            /** Format: int64 */
            total: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            as_of: string;
            period_ends_at: string | null;
            closes_at: string | null;
            /** @default false */
            degraded?: boolean;
            /** @default false */
            archived?: boolean;
            player_id: string;
            /** Format: int64 */
            score: number;
            /** Format: int64 */
            rank: number;
            /** Format: int64 */
            competition_rank: number;
            percentile: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            achieved_at: string;
            /** @default null */
            subscore?: number | null;
            /** @default null */
            display_name?: string | null;
            /** @default null */
            tier?: string | null;
            /** @default null */
            dense_rank?: number | null;
            previous_rank: number | null;
            best_rank: number | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
        };
        /** AroundOut */
        AroundOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            /** Format: int64 */
            total: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            as_of: string;
            period_ends_at: string | null;
            closes_at: string | null;
            /** @default false */
            degraded?: boolean;
            /** @default false */
            archived?: boolean;
            player: components["schemas"]["PlayerStanding"];
            entries: components["schemas"]["Entry"][];
        };
        /** PlayerStanding */
        PlayerStanding: {
            player_id: string;
            /** Format: int64 */
            score: number;
            /** Format: int64 */
            rank: number;
            /** Format: int64 */
            competition_rank: number;
            percentile: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            achieved_at: string;
            /** @default null */
            subscore?: number | null;
            /** @default null */
            display_name?: string | null;
            /** @default null */
            tier?: string | null;
            /** @default null */
            dense_rank?: number | null;
            previous_rank: number | null;
            best_rank: number | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
        };
        /**
         * RankOfOut
         * @description Where an entry with ``score`` would rank if it were submitted now: after every entry
         *     with that score so far, before any that reaches it later.
         */
        RankOfOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            /** Format: int64 */
            total: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            as_of: string;
            period_ends_at: string | null;
            closes_at: string | null;
            /** @default false */
            degraded?: boolean;
            /** @default false */
            archived?: boolean;
            /** Format: int64 */
            score: number;
            /** Format: int64 */
            rank: number;
            /** Format: int64 */
            competition_rank: number;
            percentile: number;
            /** @default null */
            tier?: string | null;
            /** @default null */
            dense_rank?: number | null;
            /** @default null */
            subscore?: number | null;
        };
        /** FriendsIn */
        FriendsIn: {
            friends: string[];
            /** @default null */
            k?: number | null;
        };
        /** FriendsOut */
        FriendsOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            /** Format: int64 */
            total: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            as_of: string;
            period_ends_at: string | null;
            closes_at: string | null;
            /** @default false */
            degraded?: boolean;
            /** @default false */
            archived?: boolean;
            player: components["schemas"]["FriendPlayer"] | null;
            /** Format: int64 */
            friends_total: number;
            entries: components["schemas"]["FriendEntry"][];
        };
        /** FriendPlayer */
        FriendPlayer: {
            player_id: string;
            /** Format: int64 */
            score: number;
            /** Format: int64 */
            rank: number;
            /** Format: int64 */
            competition_rank: number;
            percentile: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            achieved_at: string;
            /** @default null */
            subscore?: number | null;
            /** @default null */
            display_name?: string | null;
            /** @default null */
            tier?: string | null;
            /** @default null */
            dense_rank?: number | null;
            previous_rank: number | null;
            best_rank: number | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
            /** Format: int64 */
            friends_rank: number;
        };
        /** FriendEntry */
        FriendEntry: {
            /** Format: int64 */
            rank: number;
            player_id: string;
            /** Format: int64 */
            score: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            achieved_at: string;
            /** @default null */
            subscore?: number | null;
            /** @default null */
            display_name?: string | null;
            /** @default null */
            tier?: string | null;
            /** @default null */
            dense_rank?: number | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
            /** Format: int64 */
            friends_rank: number;
        };
        /** RanksIn */
        RanksIn: {
            player_ids: string[];
        };
        /** RanksOut */
        RanksOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            /** Format: int64 */
            total: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            as_of: string;
            period_ends_at: string | null;
            closes_at: string | null;
            /** @default false */
            degraded?: boolean;
            /** @default false */
            archived?: boolean;
            entries: components["schemas"]["Entry"][];
        };
        /** SnapshotsOut */
        SnapshotsOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            snapshots: components["schemas"]["SnapshotOut"][];
        };
        /** SnapshotOut */
        SnapshotOut: {
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            taken_at: string;
            /** Format: int64 */
            total: number;
            /** Format: int64 */
            entries: number;
        };
        /** PeriodsOut */
        PeriodsOut: {
            board: string;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            as_of: string;
            periods: components["schemas"]["PeriodOut"][];
            /** @default false */
            degraded?: boolean;
            /** @default false */
            archived?: boolean;
        };
        /** PeriodOut */
        PeriodOut: {
            window: string;
            period: string;
            starts_at: string | null;
            ends_at: string | null;
            state: string;
            /** Format: int64 */
            total: number;
        };
        /** DeliveriesOut */
        DeliveriesOut: {
            board: string;
            deliveries: components["schemas"]["DeliveryOut"][];
        };
        /** DeliveryOut */
        DeliveryOut: {
            /** @description The event's id, as its body carries it */
            id: string;
            window: string;
            period: string;
            scope: string;
            /**
             * @description pending (not tried yet), failing (tried, retrying) or delivered
             * @enum {unknown}
             */
            state: "delivered" | "failing" | "pending";
            /** Format: int64 */
            attempts: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            created_at: string;
            delivered_at: string | null;
            next_attempt_at: string | null;
            last_error: string | null;
        };
        /**
         * ProfileIn
         * @description A player's profile. PUT replaces it whole: an omitted field becomes null (or {}).
         */
        ProfileIn: {
            /** @default null */
            display_name?: string | null;
            /** @default null */
            avatar_url?: string | null;
            /** @default null */
            country?: string | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
        };
        /** ProfileOut */
        ProfileOut: {
            player_id: string;
            display_name: string | null;
            avatar_url: string | null;
            country: string | null;
            metadata: Record<string, unknown>;
        };
        /**
         * PlayerProfileOut
         * @description The profile and the player's standings in every board's current periods (``rank``
         *     is null while the player is banned).
         */
        PlayerProfileOut: {
            player_id: string;
            display_name: string | null;
            avatar_url: string | null;
            country: string | null;
            metadata: Record<string, unknown>;
            banned: boolean;
            standings: components["schemas"]["ProfileStandingOut"][];
            /** @default false */
            degraded?: boolean;
        };
        /** ProfileStandingOut */
        ProfileStandingOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            /** Format: int64 */
            score: number;
            rank: number | null;
            /** @default null */
            subscore?: number | null;
        };
        /** HistoryOut */
        HistoryOut: {
            player_id: string;
            items: components["schemas"]["HistoryItemOut"][];
            next_cursor: string | null;
        };
        /** HistoryItemOut */
        HistoryItemOut: {
            board: string;
            match_id: string;
            /** Format: int64 */
            score: number;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            at: string;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            received_at: string;
            applied: boolean;
            /** @default null */
            subscore?: number | null;
        };
        /** FriendListIn */
        FriendListIn: {
            friends: string[];
        };
        /** FriendListOut */
        FriendListOut: {
            player_id: string;
            friends: string[];
        };
        /** BanOut */
        BanOut: {
            player_id: string;
            banned: boolean;
            banned_at: string | null;
        };
        /**
         * MatchIn
         * @description One match result on a rating board.
         */
        MatchIn: {
            match_id: string;
            results: components["schemas"]["MatchResultIn"][];
            /** @default null */
            at?: string | null;
        };
        /**
         * MatchResultIn
         * @description One player's result in a match: ``place`` 1 is first; equal places draw.
         */
        MatchResultIn: {
            /** @description A player id. */
            player_id: string;
            /** Format: int64 */
            place: number;
            /** @default null */
            team?: string | null;
            /** @default null */
            scopes?: {
                [key: string]: string;
            } | null;
        };
        /** MatchOut */
        MatchOut: {
            board: string;
            match_id: string;
            duplicate: boolean;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            at: string;
            window: string;
            period: string;
            results: components["schemas"]["RatingResultOut"][];
        };
        /** RatingResultOut */
        RatingResultOut: {
            player_id: string;
            /** Format: int64 */
            place: number;
            /** @default null */
            team?: string | null;
            previous: Record<string, unknown>;
            rating: Record<string, unknown>;
            /** Format: int64 */
            score: number;
            rank: number | null;
            provisional: boolean;
        };
        /**
         * MatchBatchDoc
         * @description Up to 1,000 matches, each a match plus its ``board``; each item succeeds or fails on
         *     its own.
         */
        MatchBatchDoc: {
            /** @description Each item: the fields of a match plus `board`. */
            matches: unknown[];
        };
        /**
         * MatchBatchOut
         * @description One result per item, by ``index``: the match's answer, or its ``error`` (a problem).
         */
        MatchBatchOut: {
            results: Record<string, unknown>[];
        };
        /** PlayerRatingOut */
        PlayerRatingOut: {
            board: string;
            window: string;
            period: string;
            scope: string;
            player_id: string;
            rating: Record<string, unknown>;
            /** Format: int64 */
            score: number;
            rank: number | null;
            provisional: boolean;
            /** Format: int64 */
            games: number;
        };
        /** TournamentsOut */
        TournamentsOut: {
            tournaments: components["schemas"]["TournamentOut"][];
        };
        /**
         * TournamentOut
         * @description A tournament definition (its webhook without the secret) and its current or next
         *     edition.
         */
        TournamentOut: {
            starts_at: string;
            ends_at: string;
            /** @default null */
            id?: string | null;
            /** @default null */
            title?: string | null;
            /**
             * @default desc
             * @enum {unknown}
             */
            order?: "asc" | "desc";
            /**
             * @default best
             * @enum {unknown}
             */
            policy?: "best" | "first" | "latest" | "sum";
            /** @default [] */
            tiers?: components["schemas"]["TierSpec"][];
            /** @default null */
            subscore?: ("asc" | "desc") | null;
            /**
             * Format: int64
             * @default 300
             */
            grace_seconds?: number;
            /** @default null */
            recurrence?: ("daily" | "weekly") | null;
            /** @default null */
            every_seconds?: number | null;
            /** @default null */
            max_size?: number | null;
            /** @default false */
            join_required?: boolean;
            /** @default null */
            max_submissions?: number | null;
            /** @default null */
            cohort_size?: number | null;
            /** @default [] */
            rewards?: components["schemas"]["RewardSpec"][];
            /** @default null */
            webhook?: components["schemas"]["WebhookSpec"] | null;
            /** @default {} */
            metadata?: Record<string, unknown>;
            /** @default null */
            edition?: components["schemas"]["EditionOut"] | null;
        };
        /**
         * RewardSpec
         * @description A band of the final ranking and its reward: ``ranks`` [first, last] (inclusive) or
         *     ``top_percent`` (ranks up to ceil(players * top_percent / 100)); the first band listed
         *     that holds a rank gives its reward.
         */
        RewardSpec: {
            reward: Record<string, unknown>;
            /** @default null */
            ranks?: number[] | null;
            /** @default null */
            top_percent?: number | null;
        };
        /**
         * WebhookSpec
         * @description Where an ended edition's results are posted, signed with ``secret``.
         */
        WebhookSpec: {
            url: string;
            secret: string;
        };
        /**
         * EditionOut
         * @description An edition of a tournament and where it stands: ``upcoming``, ``running``, ``grace``
         *     (ended, still taking late submissions) or ``ended``.
         */
        EditionOut: {
            edition: string;
            starts_at: string;
            ends_at: string;
            closes_at: string;
            state: string;
            /** Format: int64 */
            players: number;
        };
        /**
         * TournamentSpec
         * @description A tournament definition, as PUT carries it.
         */
        TournamentSpec: {
            starts_at: string;
            ends_at: string;
            /** @default null */
            id?: string | null;
            /** @default null */
            title?: string | null;
            /**
             * @default desc
             * @enum {unknown}
             */
            order?: "asc" | "desc";
            /**
             * @default best
             * @enum {unknown}
             */
            policy?: "best" | "first" | "latest" | "sum";
            /** @default [] */
            tiers?: components["schemas"]["TierSpec"][];
            /** @default null */
            subscore?: ("asc" | "desc") | null;
            /**
             * Format: int64
             * @default 300
             */
            grace_seconds?: number;
            /** @default null */
            recurrence?: ("daily" | "weekly") | null;
            /** @default null */
            every_seconds?: number | null;
            /** @default null */
            max_size?: number | null;
            /** @default false */
            join_required?: boolean;
            /** @default null */
            max_submissions?: number | null;
            /** @default null */
            cohort_size?: number | null;
            /** @default [] */
            rewards?: components["schemas"]["RewardSpec"][];
            /** @default null */
            webhook?: components["schemas"]["WebhookSpec"] | null;
            /** @default {} */
            metadata?: Record<string, unknown>;
        };
        /** JoinIn */
        JoinIn: {
            /** @description A player id. */
            player_id: string;
        };
        /** JoinOut */
        JoinOut: {
            tournament: string;
            edition: string;
            player_id: string;
            joined: boolean;
            /** Format: int64 */
            players: number;
            /** @default null */
            max_size?: number | null;
        };
        /**
         * TournamentScoreIn
         * @description One score submission to a tournament (as on a board, without scopes).
         */
        TournamentScoreIn: {
            /** @description A player id. */
            player_id: string;
            /** Format: int64 */
            score: number;
            match_id: string;
            /** @default null */
            at?: string | null;
            /** @default null */
            metadata?: Record<string, unknown> | null;
            /** @default null */
            subscore?: number | null;
        };
        /**
         * ResultsOut
         * @description An ended edition's final standings with rewards: the webhook's body.
         */
        ResultsOut: {
            id: string;
            tournament: string;
            edition: string;
            starts_at: string;
            ends_at: string;
            /** Format: int64 */
            total: number;
            results: components["schemas"]["ResultOut"][];
        };
        /** ResultOut */
        ResultOut: {
            /** Format: int64 */
            rank: number;
            player_id: string;
            /** Format: int64 */
            score: number;
            /** @default null */
            subscore?: number | null;
            /** @default null */
            reward?: Record<string, unknown> | null;
        };
        /** RemovedOut */
        RemovedOut: {
            board: string;
            /** @default null */
            player_id?: string | null;
            /** @default null */
            window?: string | null;
            /** @default null */
            period?: string | null;
            /** @default null */
            scope?: string | null;
            /** Format: int64 */
            removed: number;
        };
        /**
         * ResetIn
         * @description What a reset restarts: the current period of ``window`` (default the board's first),
         *     on every scope or on ``scope`` only.
         */
        ResetIn: {
            /** @default null */
            window?: string | null;
            /** @default null */
            scope?: string | null;
            /** @default null */
            reason?: string | null;
        };
        /** VoidIn */
        VoidIn: {
            /** @default null */
            reason?: string | null;
        };
        /** VoidedOut */
        VoidedOut: {
            board: string;
            match_id: string;
            players: string[];
        };
        /** AuditOut */
        AuditOut: {
            items: components["schemas"]["AuditItemOut"][];
            /** @default null */
            next?: string | null;
        };
        /** AuditItemOut */
        AuditItemOut: {
            id: string;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            at: string;
            actor: string;
            action: string;
            /** @default null */
            board?: string | null;
            /** @default null */
            player_id?: string | null;
            /** @default null */
            match_id?: string | null;
            /** @default null */
            reason?: string | null;
            detail: Record<string, unknown>;
        };
        /** DeadLettersOut */
        DeadLettersOut: {
            /** Format: int64 */
            total: number;
            items: components["schemas"]["DeadLetterOut"][];
        };
        /** DeadLetterOut */
        DeadLetterOut: {
            id: string;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            failed_at: string;
            board: string;
            player_id: string;
            match_id: string;
            reason: string;
            submission: Record<string, unknown>;
        };
        /**
         * NewKey
         * @description A key to create: who holds it (``name``), what it may do, until when.
         */
        NewKey: {
            /** @description Who or what holds the key, e.g. game-server-eu: 1-64 letters, digits, `.`, `_` or `-`. The audit log names the key by it. */
            name: string;
            /**
             * @description server: writes (and reads); read: reads, where reads need a key.
             * @enum {unknown}
             */
            role: "read" | "server";
            /** @default null */
            boards?: string[] | null;
            /**
             * @description When the key stops working.
             * @default null
             */
            expires_at?: string | null;
        };
        /** NewKeyOut */
        NewKeyOut: {
            id: string;
            name: string;
            /** @enum {unknown} */
            role: "read" | "server";
            boards: string[] | null;
            expires_at: string | null;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            created_at: string;
            created_by: string;
            /** @enum {unknown} */
            state: "expired" | "live" | "revoked";
            /** @default null */
            revoked_at?: string | null;
            /** @default null */
            revoked_by?: string | null;
            secret: string;
        };
        /** KeysOut */
        KeysOut: {
            keys: components["schemas"]["KeyOut"][];
        };
        /** KeyOut */
        KeyOut: {
            id: string;
            name: string;
            /** @enum {unknown} */
            role: "read" | "server";
            boards: string[] | null;
            expires_at: string | null;
            /** @description RFC 3339 time in UTC, e.g. 2026-11-21T22:30:00.000Z */
            created_at: string;
            created_by: string;
            /** @enum {unknown} */
            state: "expired" | "live" | "revoked";
            /** @default null */
            revoked_at?: string | null;
            /** @default null */
            revoked_by?: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    list_boards: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BoardsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    get_board: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BoardSpec"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    put_board: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BoardSpec"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BoardSpec"];
                };
            };
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BoardSpec"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    delete_board: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    post_score: {
        parameters: {
            query?: never;
            header?: {
                /** @description respond-async: answer 202 as soon as the submissions are durable, with a token for reads' after=, instead of once they are applied. */
                Prefer?: string;
                /** @description Milliseconds the client waits for the answer (1 to 600000): a write that would not be answered within it, or within the server's RANKLINE_WRITE_DEADLINE_MS if that is smaller, answers 429 with Retry-After at once and records nothing. */
                "Request-Timeout"?: number;
            };
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScoreIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmitOut"];
                };
            };
            /** @description Accepted (Prefer: respond-async): durable, not yet applied */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    post_batch: {
        parameters: {
            query?: never;
            header?: {
                /** @description respond-async: answer 202 as soon as the submissions are durable, with a token for reads' after=, instead of once they are applied. */
                Prefer?: string;
                /** @description Milliseconds the client waits for the answer (1 to 600000): a write that would not be answered within it, or within the server's RANKLINE_WRITE_DEADLINE_MS if that is smaller, answers 429 with Retry-After at once and records nothing. */
                "Request-Timeout"?: number;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BatchDoc"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BatchOut"];
                };
            };
            /** @description Accepted (Prefer: respond-async): durable, not yet applied */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    top: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
                /** @description 1..1000, default 100. */
                limit?: number;
                /** @description Entries to skip, default 0. */
                offset?: number;
                /** @description The `next` of an earlier page: the entries after that page's last one (instead of an offset; stable while the board changes). */
                cursor?: string;
                /** @description Only the entries of this tier of the board's `tiers`. */
                tier?: string;
                /** @description An instant (RFC 3339): the top as the latest snapshot taken at or before it kept it, with `taken_at` (boards with `snapshots`; 404 when none); the period defaults to the one containing the instant. */
                at?: string;
            };
            header?: {
                /** @description An ETag of an earlier answer: 304 without a body while the page is unchanged. */
                "If-None-Match"?: string;
            };
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description A weak validator of the page */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TopOut"];
                };
            };
            /** @description Not Modified: the If-None-Match ETag matches */
            304: {
                headers: {
                    /** @description A weak validator of the page */
                    ETag?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    player: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlayerOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    remove_entry: {
        parameters: {
            query?: {
                /** @description Only this window's leaderboards (default: every window). */
                window?: string;
                /** @description Only this period of the window (default: every period). */
                period?: string;
                /** @description Only this scope, global or dimension:value (default: every one). */
                scope?: string;
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RemovedOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    around: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
                /** @description 0..100, default 5. */
                k?: number;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AroundOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    me: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlayerOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    me_around: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
                /** @description 0..100, default 5. */
                k?: number;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AroundOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    rank_of: {
        parameters: {
            query: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description The score: a signed 64-bit integer. */
                score: number;
                /** @description The subscore: a signed 64-bit integer; required on a board with a subscore, refused on any other. */
                subscore?: number;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RankOfOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    stored_friends: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
                /** @description 0..5000; default all. */
                k?: number;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FriendsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    friends: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FriendsIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FriendsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ranks: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RanksIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RanksOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    snapshots: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description 1..1000, default 100. */
                limit?: number;
                /** @description Only snapshots taken before this instant (RFC 3339). */
                before?: string;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SnapshotsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    periods: {
        parameters: {
            query?: {
                /** @description Only this window. */
                window?: string;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PeriodsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    deliveries: {
        parameters: {
            query?: {
                /** @description Only this window. */
                window?: string;
                /** @description Only this period. */
                period?: string;
                /** @description At most this many (1..1000, default 100). */
                limit?: number;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeliveriesOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    stream: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
                /** @description Entries in each `top` event, 1..100, default 10. */
                limit?: number;
                /** @description Up to 50 comma-separated player ids to watch. */
                players?: string;
                /** @description The key or player token, for a browser's EventSource, which cannot send an Authorization header (this endpoint only; never written to a log). */
                access_token?: string;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    get_player: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlayerProfileOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    put_player: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProfileIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProfileOut"];
                };
            };
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProfileOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    delete_player: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    player_history: {
        parameters: {
            query?: {
                /** @description Only this board. */
                board?: string;
                /** @description 1..1000, default 100. */
                limit?: number;
                /** @description The next_cursor of the previous page. */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HistoryOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    get_friend_list: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FriendListOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    put_friend_list: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FriendListIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FriendListOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    ban_player: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BanOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    unban_player: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BanOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    me_friends: {
        parameters: {
            query?: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description The token of a 202 answer (Prefer: respond-async): answer once the submissions it names are applied, waiting up to 2 s (then 503 with Retry-After). */
                after?: string;
                /** @description true: each entry carries the metadata of the submission that set it (as on a board with entry_metadata). */
                metadata?: boolean;
                /** @description 0..5000; default all. */
                k?: number;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FriendsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    post_match: {
        parameters: {
            query?: never;
            header?: {
                /** @description respond-async: answer 202 as soon as the submissions are durable, with a token for reads' after=, instead of once they are applied. */
                Prefer?: string;
            };
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MatchIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MatchOut"];
                };
            };
            /** @description Accepted (Prefer: respond-async): durable, not yet applied */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    post_match_batch: {
        parameters: {
            query?: never;
            header?: {
                /** @description respond-async: answer 202 as soon as the submissions are durable, with a token for reads' after=, instead of once they are applied. */
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MatchBatchDoc"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MatchBatchOut"];
                };
            };
            /** @description Accepted (Prefer: respond-async): durable, not yet applied */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AcceptedOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    player_rating: {
        parameters: {
            query?: {
                /** @description The window, default all_time (or the board's first). */
                window?: string;
                /** @description The period, default the current one. */
                period?: string;
                /** @description The leaderboard whose `rank` to give: `global` (default) or `dimension:value`; the rating is the same on every scope. */
                scope?: string;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlayerRatingOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    list_tournaments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TournamentsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    get_tournament: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TournamentOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    put_tournament: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TournamentSpec"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TournamentOut"];
                };
            };
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TournamentOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    delete_tournament: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    join: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["JoinIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JoinOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    tournaments_post_score: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TournamentScoreIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmitOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    tournaments_top: {
        parameters: {
            query?: {
                /** @description The edition (1, 2, ...); default the current one. */
                edition?: string;
                /** @description global (default), or cohort: the player's cohort, or cohort:<k>. */
                scope?: string;
                /** @description 1..1000, default 100. */
                limit?: number;
                /** @description Entries to skip, default 0. */
                offset?: number;
            };
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TopOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    tournaments_player: {
        parameters: {
            query?: {
                /** @description The edition (1, 2, ...); default the current one. */
                edition?: string;
                /** @description global (default), or cohort: the player's cohort, or cohort:<k>. */
                scope?: string;
            };
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PlayerOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    tournaments_around: {
        parameters: {
            query?: {
                /** @description The edition (1, 2, ...); default the current one. */
                edition?: string;
                /** @description global (default), or cohort: the player's cohort, or cohort:<k>. */
                scope?: string;
                /** @description 0..100, default 5. */
                k?: number;
            };
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
                /** @description The player id: 1 to 64 characters: letters, digits and _ . : @ - */
                player_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AroundOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    results: {
        parameters: {
            query?: {
                /** @description The edition; default the last ended. */
                edition?: string;
            };
            header?: never;
            path: {
                /** @description The tournament id (also the id of the board it ranks on). */
                tournament_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResultsOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    reset_board: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResetIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RemovedOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    void_match: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
                /** @description The match id. A "/" in it may be sent as it is or percent-encoded (%2F). */
                match_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["VoidIn"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VoidedOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    audit_log: {
        parameters: {
            query?: {
                /** @description Only this board's entries. */
                board?: string;
                /** @description Only this player's entries. */
                player?: string;
                /** @description Entries per page, 1..1000, default 100. */
                limit?: number;
                /** @description The `next` of the previous page. */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    list_dead_letters: {
        parameters: {
            query?: {
                /** @description Only this board's dead letters. */
                board?: string;
                /** @description At most this many, 1..1000, default 50. */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeadLettersOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    export: {
        parameters: {
            query: {
                /** @description all_time (default), daily, weekly, monthly, season, or a cron window's id. */
                window?: string;
                /** @description The period name, e.g. 2026-11-21, 2026-W47 or (a cron window's) 2026-11-20T17:00:00Z; default current. */
                period?: string;
                /** @description global (default) or dimension:value, e.g. region:EU. */
                scope?: string;
                /** @description csv (a header row, then one row per standing) or jsonl (one JSON object per standing). */
                format: "csv" | "jsonl";
                /** @description true (jsonl): each row carries the metadata of the submission that set it. */
                metadata?: boolean;
            };
            header?: never;
            path: {
                /** @description The board id: 1 to 64 characters: lowercase letters, digits and _ . -, starting with a letter or digit */
                board_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    list_keys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeysOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    create_key: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewKey"];
            };
        };
        responses: {
            /** @description OK */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewKeyOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    revoke_key: {
        parameters: {
            query?: {
                /** @description Why the change is made (up to 1,000 characters), kept in the audit log (GET /v1/audit). */
                reason?: string;
            };
            header?: never;
            path: {
                /** @description The key's id (the `id` of its creation's answer). */
                key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeyOut"];
                };
            };
            /** @description Malformed JSON */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing key, or a player token that does not verify */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Wrong key, or not allowed with a player token */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (frozen board, immutable field, match_id reused with another payload) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid input */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Too many requests (see Retry-After) */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Unavailable; nothing was recorded (see Retry-After) */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    healthz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not ready */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    readyz: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not ready */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not ready */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
