// A Server-Sent Events parser for a streaming fetch body (the event stream format of the
// HTML standard: `event:`, `data:`, `id:`, `retry:` fields, comments, any line ending).

export interface SseMessage {
  event: string;
  data: string;
  id: string;
}

export class SseParser {
  private buffer = "";
  private event = "";
  private data: string[] = [];
  private id = "";
  /** The reconnection delay the server asked for (`retry:`), in milliseconds. */
  retryMs: number | null = null;

  /** Feed decoded text; the messages it completes. */
  push(text: string): SseMessage[] {
    this.buffer += text;
    const messages: SseMessage[] = [];
    for (;;) {
      const end = this.buffer.search(/\r\n|\r|\n/);
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (end < 0 || (end === this.buffer.length - 1 && this.buffer.endsWith("\r"))) break;
      const newline = this.buffer.startsWith("\r\n", end) ? 2 : 1;
      const line = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + newline);
      const message = this.line(line);
      if (message !== null) messages.push(message);
    }
    return messages;
  }

  private line(line: string): SseMessage | null {
    if (line === "") {
      if (this.data.length === 0) {
        this.event = "";
        return null;
      }
      const message = { event: this.event || "message", data: this.data.join("\n"), id: this.id };
      this.event = "";
      this.data = [];
      return message;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.event = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    return null;
  }
}
