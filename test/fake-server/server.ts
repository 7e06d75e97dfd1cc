import http from "node:http";
import { performance } from "node:perf_hooks";
import type { AddressInfo } from "node:net";
import type { QuotaHeaders, RecordedRequest, Step } from "./script.js";

/**
 * A protocol answers one request. It returns false when the request is not a model turn
 * (a title request, a token count, a model list) and answered it by itself without a step.
 */
export interface Protocol {
  /** Whether this protocol handles the request path. */
  matches(method: string, path: string): boolean;
  /** True when the request is auxiliary and must not consume a scripted step. */
  isAuxiliary(path: string, body: unknown): boolean;
  answerAuxiliary(res: http.ServerResponse, path: string, body: unknown): void;
  answer(res: http.ServerResponse, step: Step, body: unknown, quota?: QuotaHeaders): void;
}

export interface FakeServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Model-turn requests only (auxiliary ones left out). */
  turnRequests(): RecordedRequest[];
  /** Appends steps to the queue; when it is empty, requests get a default "Done." reply. */
  script(...steps: Step[]): void;
  /** Drops the steps not yet answered (a scenario cut short); returns how many there were. */
  clearScript(): number;
  setQuota(quota: QuotaHeaders | undefined): void;
  close(): Promise<void>;
}

/** Starts the fake model server on 127.0.0.1 with a random free port. */
export async function startFakeServer(protocols: Protocol[]): Promise<FakeServer> {
  const queue: Step[] = [];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  let quota: QuotaHeaders | undefined;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = raw;
      try {
        body = raw === "" ? undefined : JSON.parse(raw);
      } catch {
        // keep raw text
      }
      const method = req.method ?? "GET";
      const path = req.url ?? "/";
      const record: RecordedRequest = {
        method,
        path,
        headers: req.headers,
        body,
        answeredWith: "auxiliary",
        receivedAt: now(),
      };
      requests.push(record);
      res.on("finish", () => (record.finishedAt = now()));
      const protocol = protocols.find((p) => p.matches(method, path));
      if (!protocol) {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `fake server: no protocol for ${method} ${path}` } }));
        return;
      }
      if (protocol.isAuxiliary(path, body)) {
        protocol.answerAuxiliary(res, path, body);
        return;
      }
      const step = queue.shift();
      record.answeredWith = step ? step.kind : "default";
      if (step?.kind === "hang") {
        hanging.add(res);
        res.on("close", () => hanging.delete(res));
        res.writeHead(200, { "content-type": "text/event-stream" });
        return;
      }
      if (step?.kind === "held") {
        const held = step;
        record.answeredWith = held.step.kind;
        void held.until.finally(() => protocol.answer(res, held.step, body, quota));
        return;
      }
      protocol.answer(res, step ?? { kind: "text", text: "Done." }, body, quota);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    turnRequests: () => requests.filter((r) => r.answeredWith !== "auxiliary"),
    script: (...steps) => queue.push(...steps),
    clearScript: () => queue.splice(0).length,
    setQuota: (value) => {
      quota = value;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Epoch milliseconds with the monotonic clock's resolution, for request timings. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

/** Writes one server-sent event. */
export function sse(res: http.ServerResponse, event: string | undefined, data: unknown): void {
  if (event) res.write(`event: ${event}\n`);
  res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}
