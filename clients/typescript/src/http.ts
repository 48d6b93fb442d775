// One request to the API, retried on 429 and 503 with exponential backoff that honours
// Retry-After (submissions are idempotent on their match id, so a retry never counts twice).
import { ApiError, problemOf } from "./errors.js";
import { parseJson, stringifyJson } from "./json.js";

export const RETRYABLE: ReadonlySet<number> = new Set([429, 503]);

/** A player's token, or a function returning the current one (a string or a Promise). */
export type TokenSource = string | (() => string | Promise<string>);

export interface ClientOptions {
  /** Sent with writes (and with reads when no `readKey` is given). */
  serverKey?: string;
  /** Sent with reads, where the server requires read keys. */
  readKey?: string;
  /** A game client calls as its player, with this token instead of keys: with every call.
   * A function is called when a token is first needed, and again once after a 401 (the
   * token expired), before the refused request is sent again. */
  token?: TokenSource;
  /** How many times a 429 or 503 answer is retried before its ApiError is thrown (4). */
  retries?: number;
  /** The first retry's delay in milliseconds, doubled on each retry (100); a longer
   * Retry-After wins. */
  backoffMs?: number;
  /** Each request's timeout in milliseconds (10,000). */
  timeoutMs?: number;
  /** The fetch to use (the global one by default). */
  fetch?: typeof globalThis.fetch;
  /** Told before each retry: what was answered and how long the client waits. */
  onRetry?: (retry: Retry) => void;
}

export interface Retry {
  /** 0 for the first retry. */
  attempt: number;
  status: number;
  /** The Retry-After header in seconds, or null when there was none. */
  retryAfter: number | null;
  delayMs: number;
}

/** One API request, described once for every method. */
export interface Call {
  method: "GET" | "POST" | "PUT" | "DELETE";
  path: string;
  query?: object | undefined;
  body?: unknown;
  write?: boolean;
  /** Send `Prefer: respond-async`: the answer is 202 `{accepted, token}`. */
  respondAsync?: boolean | undefined;
}

/** Retry-After in seconds: a number of seconds or an HTTP date; null when absent. */
export function retryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

/** `path` segments as the API reads them (`p:42` stays readable). */
export function segment(value: string): string {
  return encodeURIComponent(value).replace(/%3A/gi, ":").replace(/%40/g, "@");
}

export function queryString(query: object | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined || value === null) continue;
    params.append(name, Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Http {
  readonly baseUrl: string;
  readonly options: ClientOptions;
  private readonly fetch: typeof globalThis.fetch;
  /** The token in use: the one given, or the last one the token function returned. */
  private token: Promise<string> | null;

  constructor(baseUrl: string, options: ClientOptions) {
    if (options.token !== undefined && (options.serverKey || options.readKey))
      throw new TypeError("a client calls as one caller: give it a player token or keys, not both");
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.options = options;
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.token = typeof options.token === "string" ? Promise.resolve(options.token) : null;
  }

  url(path: string, query?: object): string {
    return `${this.baseUrl}${path}${queryString(query)}`;
  }

  /** Whether reads (or writes) carry a credential. */
  credentialed(write: boolean): boolean {
    const { token, serverKey, readKey } = this.options;
    return token !== undefined || Boolean(write ? serverKey : (readKey ?? serverKey));
  }

  /** The credential a read (or a write) carries: the player's token, or a key. */
  async credential(write: boolean): Promise<string | undefined> {
    const source = this.options.token;
    if (source === undefined)
      return write ? this.options.serverKey : (this.options.readKey ?? this.options.serverKey);
    if (this.token === null)
      this.token = Promise.resolve(typeof source === "string" ? source : source());
    return this.token;
  }

  /** Forget a token the server refused (401), so that the token function is asked again;
   * false when there is no function to ask. */
  expireToken(): boolean {
    if (typeof this.options.token !== "function") return false;
    this.token = null;
    return true;
  }

  async headers(write: boolean): Promise<Record<string, string>> {
    const key = await this.credential(write);
    return key ? { authorization: `Bearer ${key}` } : {};
  }

  /** Send `call`, retrying 429 and 503 answers, and once with a new token after a 401;
   * the JSON answer, or ApiError. */
  async call<T>(call: Call): Promise<T> {
    let response: Response;
    try {
      response = await this.sendCall(call);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401 && this.expireToken())) throw error;
      response = await this.sendCall(call);
    }
    const text = await response.text();
    return (text === "" ? undefined : parseJson(text)) as T;
  }

  private async sendCall(call: Call): Promise<Response> {
    return this.send(call.path, call.query, {
      method: call.method,
      headers: {
        ...(await this.headers(call.write ?? false)),
        ...(call.body === undefined ? {} : { "content-type": "application/json" }),
        ...(call.respondAsync ? { prefer: "respond-async" } : {}),
      },
      ...(call.body === undefined ? {} : { body: stringifyJson(call.body) }),
    });
  }

  /** Fetch `path` until an answer that is neither 429 nor 503 (or the retries run out);
   * a successful response with its body unread, or ApiError. */
  async send(path: string, query: object | undefined, init: RequestInit): Promise<Response> {
    const { retries = 4, backoffMs = 100, timeoutMs = 10_000 } = this.options;
    const url = this.url(path, query);
    for (let attempt = 0; ; attempt++) {
      const signal = init.signal ?? AbortSignal.timeout(timeoutMs);
      const response = await this.fetch(url, { ...init, signal });
      if (response.ok) return response;
      const text = await response.text();
      if (!RETRYABLE.has(response.status) || attempt >= retries) {
        throw new ApiError(response.status, problemOf(response.status, response.statusText, text));
      }
      const after = retryAfter(response.headers.get("retry-after"));
      const delayMs = Math.max((after ?? 0) * 1000, backoffMs * 2 ** attempt);
      this.options.onRetry?.({ attempt, status: response.status, retryAfter: after, delayMs });
      await sleep(delayMs);
    }
  }
}
