// The live stream of a leaderboard (GET …/stream, Server-Sent Events) as an async iterable:
// EventSource in browsers, a streaming fetch elsewhere (Node has no EventSource) or when a
// key must be sent (EventSource cannot send headers).
import { ApiError } from "./errors.js";
import type { Http } from "./http.js";
import { parseJson } from "./json.js";
import { SseParser } from "./sse.js";
import type { Problem, Query, Schemas } from "./types.js";

export type StreamEvent =
  { event: "top"; data: Schemas["TopOut"] } | { event: "player"; data: Schemas["PlayerOut"] };

export type StreamOptions = Omit<Query<"stream">, "players"> & {
  /** Players whose changes of score or rank are sent as `player` events (up to 50). */
  players?: readonly string[];
  /** `eventsource` or `fetch`; by default EventSource where there is one and no key is sent. */
  transport?: "eventsource" | "fetch";
  /** Ends the stream when aborted, as `close()` does. */
  signal?: AbortSignal;
  /** Reconnection delay in milliseconds after the connection drops (1,000; the server's
   * `retry:` wins). */
  reconnectMs?: number;
};

/** A queue the connection pushes events into and the iterator takes them from. */
class Queue {
  private items: StreamEvent[] = [];
  private failure: unknown = null;
  private ended = false;
  private wake: (() => void) | null = null;

  push(event: StreamEvent): void {
    this.items.push(event);
    this.notify();
  }

  fail(error: unknown): void {
    this.failure = error;
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    this.wake?.();
    this.wake = null;
  }

  async next(): Promise<IteratorResult<StreamEvent, undefined>> {
    for (;;) {
      const item = this.items.shift();
      if (item !== undefined) return { value: item, done: false };
      if (this.failure !== null) throw this.failure;
      if (this.ended) return { value: undefined, done: true };
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

function decoded(name: string, data: string): StreamEvent | Problem | null {
  if (name === "top" || name === "player")
    return { event: name, data: parseJson(data) } as StreamEvent;
  if (name === "error") return parseJson(data) as Problem;
  return null;
}

/**
 * One live stream: `for await (const { event, data } of stream)`, then `close()`. An `error`
 * event of the server (the board was deleted) ends it by throwing ApiError.
 */
export class LiveStream implements AsyncIterable<StreamEvent> {
  private readonly queue = new Queue();
  private readonly abort = new AbortController();
  private source: EventSource | null = null;

  constructor(http: Http, path: string, options: StreamOptions) {
    const { transport, signal, reconnectMs = 1000, players, ...query } = options;
    const where = { ...query, ...(players === undefined ? {} : { players: players.join(",") }) };
    signal?.addEventListener("abort", () => this.close(), { once: true });
    if (signal?.aborted) this.close();
    const keyed = http.credentialed(false);
    const hasEventSource = typeof globalThis.EventSource === "function";
    const useEventSource =
      transport === "eventsource" || (transport === undefined && hasEventSource && !keyed);
    if (useEventSource) void this.listenWith(http, path, where);
    else void this.pump(http, path, where, reconnectMs);
  }

  /** EventSource cannot send headers: a key or token goes as `?access_token=`, which the
   * stream (and only it) takes. */
  private async listenWith(http: Http, path: string, where: object): Promise<void> {
    try {
      const credential = await http.credential(false);
      if (this.abort.signal.aborted) return;
      const query = credential === undefined ? where : { ...where, access_token: credential };
      this.listen(http.url(path, query));
    } catch (error) {
      this.queue.fail(error);
    }
  }

  /** Stop receiving; the iteration ends. */
  close(): void {
    this.abort.abort();
    this.source?.close();
    this.queue.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<StreamEvent, undefined> {
    return {
      next: () => this.queue.next(),
      return: async () => (this.close(), { value: undefined, done: true }),
    };
  }

  private deliver(name: string, data: string): void {
    const found = decoded(name, data);
    if (found === null) return;
    if ("event" in found) this.queue.push(found);
    else {
      this.queue.fail(new ApiError(found.status, found));
      this.close();
    }
  }

  private listen(url: string): void {
    const source = new EventSource(url);
    this.source = source;
    for (const name of ["top", "player", "error"]) {
      source.addEventListener(name, (event) => {
        if (event instanceof MessageEvent) this.deliver(name, String(event.data));
        // else: a connection error; EventSource reconnects by itself
      });
    }
    source.addEventListener("error", () => {
      if (source.readyState === EventSource.CLOSED && !this.abort.signal.aborted) {
        const problem = { type: "about:blank", title: "Stream failed", status: 0, detail: url };
        this.queue.fail(new ApiError(0, problem));
      }
    });
  }

  private async pump(http: Http, path: string, query: object, reconnectMs: number): Promise<void> {
    const signal = this.abort.signal;
    let retryMs: number | null = null;
    let refreshed = false;
    while (!signal.aborted) {
      const parser = new SseParser(); // a new connection starts a new event stream
      try {
        const headers = { ...(await http.headers(false)), accept: "text/event-stream" };
        const response = await http.send(path, query, { headers, signal });
        refreshed = false;
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          for (const message of parser.push(value)) this.deliver(message.event, message.data);
          retryMs = parser.retryMs ?? retryMs;
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError) {
          // an expired token: a new one, once, then the connection again
          if (error.status === 401 && !refreshed && http.expireToken()) {
            refreshed = true;
            continue;
          }
          this.queue.fail(error);
          return;
        }
        // the connection dropped: reconnect below, as EventSource would
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryMs ?? reconnectMs);
        signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }
}
