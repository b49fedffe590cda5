// JSON-RPC 2.0 over Content-Length framing (the Language Server Protocol's
// base framing), on stdin/stdout. Stdout carries frames only: log to stderr.

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Finding {
  code: string;
  severity: "error" | "warning" | "info";
  file: string;
  field: string;
  message: string;
}

// Error codes of the host control protocol.
export const ERR = {
  PARSE: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL: -32603,
  PACKAGE_INVALID: -32001,
  VERIFICATION_FAILED: -32002,
  CONSENT_REQUIRED: -32003,
  APP_NOT_FOUND: -32004,
  NOT_CONFIGURED: -32005,
  UNSUPPORTED: -32006,
  DENIED_BY_POLICY: -32007,
  REGISTRY_FAILED: -32008,
  NOT_READY: -32009,
  MIGRATION_REFUSED: -32010,
} as const;

/** Thrown by a method handler to answer with a JSON-RPC error. */
export class RpcError extends Error {
  constructor(
    public code: number,
    message: string,
    public data?: { findings?: Finding[]; [k: string]: unknown },
  ) {
    super(message);
  }
}

export function invalidParams(field: string, why: string): RpcError {
  return new RpcError(ERR.INVALID_PARAMS, `invalid params: ${field} ${why}`, {
    findings: [{ code: "invalid-params", severity: "error", file: "", field, message: `${field} ${why}` }],
  });
}

export type Handler = (params: Record<string, unknown>) => unknown | Promise<unknown>;

const MAX_HEADER = 4096;
const MAX_BODY = 16 * 1024 * 1024;

export function log(msg: string): void {
  process.stderr.write(`[minimal-host] ${msg}\n`);
}

function send(message: object): void {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  const header = Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "utf8");
  process.stdout.write(Buffer.concat([header, body]));
}

/**
 * Serve JSON-RPC on stdio. Requests are handled one at a time, in order of
 * arrival (the harness waits for each answer anyway).
 */
export function serveStdio(dispatch: (method: string) => Handler | undefined, onEnd: () => void): void {
  let buf = Buffer.alloc(0);
  let queue: Promise<void> = Promise.resolve();

  const fatal = (why: string): void => {
    log(`malformed input, closing: ${why}`);
    onEnd();
    process.exit(1);
  };

  const handleBody = async (body: Buffer): Promise<void> => {
    let msg: unknown;
    try {
      msg = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(body));
    } catch {
      send({ jsonrpc: "2.0", id: null, error: { code: ERR.PARSE, message: "parse error: body is not JSON" } });
      return;
    }
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
      send({ jsonrpc: "2.0", id: null, error: { code: ERR.INVALID_REQUEST, message: "not a JSON-RPC 2.0 request" } });
      return;
    }
    const m = msg as Record<string, unknown>;
    const isRequest = "id" in m;
    const id = m.id as Json;
    if (m.jsonrpc !== "2.0" || typeof m.method !== "string") {
      if ("result" in m || "error" in m) return; // an answer to nothing we asked: ignore
      if (isRequest) send({ jsonrpc: "2.0", id, error: { code: ERR.INVALID_REQUEST, message: "not a JSON-RPC 2.0 request" } });
      return;
    }
    const handler = dispatch(m.method);
    if (!handler) {
      if (isRequest) send({ jsonrpc: "2.0", id, error: { code: ERR.METHOD_NOT_FOUND, message: `method not found: ${m.method}` } });
      return;
    }
    let params: Record<string, unknown>;
    if (m.params === undefined || m.params === null) params = {};
    else if (typeof m.params === "object" && !Array.isArray(m.params)) params = m.params as Record<string, unknown>;
    else {
      if (isRequest) send({ jsonrpc: "2.0", id, error: { code: ERR.INVALID_PARAMS, message: "invalid params: params must be an object" } });
      return;
    }
    try {
      const result = await handler(params);
      if (isRequest) send({ jsonrpc: "2.0", id, result: result === undefined ? null : result });
    } catch (e) {
      if (!isRequest) return;
      if (e instanceof RpcError) {
        const error: Record<string, unknown> = { code: e.code, message: e.message };
        if (e.data !== undefined) error.data = e.data;
        send({ jsonrpc: "2.0", id, error });
      } else {
        log(`internal error in ${m.method}: ${(e as Error)?.stack ?? String(e)}`);
        send({ jsonrpc: "2.0", id, error: { code: ERR.INTERNAL, message: `internal error in ${m.method}` } });
      }
    }
  };

  const pump = (): void => {
    for (;;) {
      const end = buf.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buf.length > MAX_HEADER) fatal("header section over 4096 bytes");
        return;
      }
      if (end > MAX_HEADER) fatal("header section over 4096 bytes");
      const header = buf.subarray(0, end).toString("latin1");
      let length = -1;
      for (const line of header.split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon < 0) fatal(`header line without a colon: ${JSON.stringify(line)}`);
        if (line.slice(0, colon).trim().toLowerCase() === "content-length") {
          const v = line.slice(colon + 1).trim();
          if (!/^[0-9]+$/.test(v)) fatal("Content-Length is not a decimal number");
          length = Number(v);
        }
      }
      if (length < 0) fatal("frame without Content-Length");
      if (length > MAX_BODY) fatal("frame over 16 MiB");
      if (buf.length < end + 4 + length) return;
      const body = Buffer.from(buf.subarray(end + 4, end + 4 + length));
      buf = Buffer.from(buf.subarray(end + 4 + length));
      queue = queue.then(() => handleBody(body));
    }
  };

  process.stdin.on("data", (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    pump();
  });
  process.stdin.on("end", () => {
    queue.then(() => {
      onEnd();
      process.exit(0);
    });
  });
  process.stdin.resume();
}
