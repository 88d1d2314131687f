/**
 * `StatusFeed`: the live updates of the status page, as server-sent events (`GET /events`).
 * While at least one page listens, one timer looks at the host every `everyMs` (the state
 * database, so workspaces prepared by another gatefs process show up too) and sends each
 * listener only what changed: `workspaces` and `summary` (the table's rows and the counts),
 * `lander` (the queue), `runs` (the Runs section, status-runs.ts), `occupancy` (the Occupancy section, status-occupancy.ts), `log` (run-log events after the last one sent, with the newest seq as
 * the event id, so a browser that reconnects by itself asks for what follows). Each event's data is
 * one JSON string of ready HTML (`status-rows.ts`). A comment every 15 s keeps proxies from
 * closing an idle stream. With no listener nothing runs.
 *
 * At most `maxListeners` streams at once (a further one gets 503): each holds a socket.
 */
import type { ServerResponse } from 'node:http';
import type { Host } from '../../host/composition/index.js';
import { eventRows, landerRows, workspaceRows } from './status-snapshot.js';
import { eventRowsHtml, landerRowsHtml, summaryHtml, workspaceRowsHtml } from './status-rows.js';
import { runsHtml, runViews } from './status-runs.js';
import { occupancyHtml, occupancyViews } from './status-occupancy.js';

/** Options of `StatusFeed`. */
interface StatusFeedOptions {
  /** Open MCP sessions per conversation, now. */
  sessions: () => ReadonlyMap<string, number>;
  /** How often the host is looked at while someone listens (default 1000 ms). */
  everyMs?: number;
  /** Streams at once, at most (default 32). */
  maxListeners?: number;
  /** Where a failed look is logged. */
  log: (line: string) => void;
}

interface Listener {
  res: ServerResponse;
  sent: { workspaces?: string; lander?: string; runs?: string; occupancy?: string; seq: number };
}

const KEEPALIVE_MS = 15_000;

/** The live feed of one HTTP server (see the file comment). */
export class StatusFeed {
  private readonly listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly host: Host,
    private readonly options: StatusFeedOptions,
  ) {}

  /** Streams updates to `res` until the client goes away; `afterSeq` is the newest event the page already shows. */
  listen(res: ServerResponse, afterSeq: number): void {
    if (this.closed || this.listeners.size >= (this.options.maxListeners ?? 32)) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '5' }).end('too many status pages are open');
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      Connection: 'keep-alive',
    });
    res.write('retry: 3000\n\n');
    const listener: Listener = { res, sent: { seq: afterSeq } };
    this.listeners.add(listener);
    res.once('close', () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    });
    this.look([listener]);
    this.timer ??= setInterval(() => this.look([...this.listeners]), this.options.everyMs ?? 1000);
    this.keepalive ??= setInterval(() => {
      for (const l of this.listeners) l.res.write(': keep-alive\n\n');
    }, KEEPALIVE_MS);
    this.timer.unref();
    this.keepalive.unref();
  }

  /** Ends every stream and stops looking. */
  close(): void {
    this.closed = true;
    this.stop();
    for (const l of this.listeners) l.res.end();
    this.listeners.clear();
  }

  private stop(): void {
    clearInterval(this.timer);
    clearInterval(this.keepalive);
    this.timer = undefined;
    this.keepalive = undefined;
  }

  /** Sends each of `listeners` what changed since its last look. */
  private look(listeners: readonly Listener[]): void {
    if (this.closed || listeners.length === 0) return;
    try {
      const workspaces = workspaceRows(this.host, this.options.sessions());
      const lander = landerRows(this.host);
      const rowsHtml = workspaceRowsHtml(workspaces);
      const landerHtml = landerRowsHtml(lander);
      const summary = summaryHtml({ workspaces, lander });
      const runs = runsHtml(runViews(this.host));
      const occupancy = occupancyHtml(occupancyViews(this.host));
      const oldest = Math.min(...listeners.map((l) => l.sent.seq));
      const events = eventRows(this.host, oldest);
      for (const l of listeners) {
        if (l.sent.workspaces !== rowsHtml) {
          send(l.res, 'workspaces', rowsHtml);
          send(l.res, 'summary', summary);
          l.sent.workspaces = rowsHtml;
        }
        if (l.sent.lander !== landerHtml) {
          send(l.res, 'lander', landerHtml);
          l.sent.lander = landerHtml;
        }
        if (l.sent.runs !== runs) {
          send(l.res, 'runs', runs);
          l.sent.runs = runs;
        }
        if (l.sent.occupancy !== occupancy) {
          send(l.res, 'occupancy', occupancy);
          l.sent.occupancy = occupancy;
        }
        const fresh = events.filter((e) => e.seq > l.sent.seq);
        if (fresh.length > 0) {
          l.sent.seq = fresh.at(-1)!.seq;
          send(l.res, 'log', eventRowsHtml(fresh), l.sent.seq);
        }
      }
    } catch (e) {
      this.options.log(`status page: looking at the host failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/**
 * One server-sent event whose data is `html` as a JSON string (one line, whatever it holds); `id`
 * (the newest run-log seq sent) comes back as `Last-Event-ID` when the browser reconnects.
 */
function send(res: ServerResponse, event: string, html: string, id?: number): void {
  res.write(`event: ${event}\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(html)}\n\n`);
}
