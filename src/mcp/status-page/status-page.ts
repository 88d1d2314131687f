/**
 * The HTML of the status page of `gatefs serve --http`: the page itself (workspaces with their
 * occupancy and sessions, the runs with their handoffs and artifacts, the lander queue, the run log's tail) and the
 * sign-in page a browser without the token gets. An open page whose live feed is refused (the
 * server restarted with another token, or it was rotated) says so and shows the sign-in form
 * instead of reconnecting forever; while the feed is down the tables are dimmed and the badge
 * says how old the numbers are. Failure rows are marked (`status-rows.ts`), and the layout fits
 * a 400 px wide screen (the workspaces and the run log reflow into labelled lines, the lander
 * queue scrolls inside its box). Every piece is rendered on the server, with
 * every value HTML-escaped (`status-rows.ts`); the live updates (`status-feed.ts`) send the same fragments, so
 * the page's script only puts them in place and filters rows. One inline script and one style
 * sheet, each allowed by a per-response nonce (`Content-Security-Policy`).
 */
import type { StatusSnapshot } from './status-snapshot.js';
import { runsHtml } from './status-runs.js';
import { occupancyHtml } from './status-occupancy.js';
import { esc, eventRowsHtml, landerRowsHtml, summaryHtml, WORKSPACE_COLUMNS, workspaceRowsHtml } from './status-rows.js';

const STYLE = `
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1b1f24;background:#f6f8fa}
header{position:sticky;top:0;z-index:2;background:#24292f;color:#fff;padding:8px 16px;display:flex;gap:4px 16px;align-items:center;flex-wrap:wrap}
header h1{font-size:16px;margin:0}#live{font-size:12px;padding:2px 8px;border-radius:9px;background:#57606a}#live.on{background:#1a7f37}
#live.out{background:#cf222e}main{padding:8px 16px}section{margin:12px 0}h2{font-size:15px;margin:8px 0}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #d8dee4;white-space:nowrap}
th{position:sticky;top:0;background:#eaeef2;z-index:1}tbody tr{content-visibility:auto;contain-intrinsic-size:auto 22px}
td.id{font-family:ui-monospace,monospace}.badge{padding:0 6px;border-radius:8px;background:#ddf4ff}.st-released .badge{background:#eaeef2}
.st-preparing .badge{background:#fff8c5}.empty{color:#57606a}input,select,button{font:inherit;padding:3px 6px;max-width:100%}
tr.fail td{background:#ffebe9;color:#a40e26}tr.fail td:first-child{box-shadow:inset 4px 0 #cf222e}.mark{font-weight:700;color:#cf222e}
b.failed{color:#ff8182}b.failed .mark{color:inherit}
h3.run{font-size:14px;margin:10px 0 4px}.runbox .scroll{margin-bottom:6px}
.scroll{max-height:70vh;overflow:auto;max-width:100%}#log td:last-child{white-space:normal;overflow-wrap:anywhere;min-width:16em;font-family:ui-monospace,monospace;font-size:12px}
#signin{background:#fff8c5;border:1px solid #d4a72c;padding:8px 12px;margin:8px 0}#signin form{display:flex;flex-wrap:wrap;gap:6px}
#signin input{flex:1 1 12em;min-width:0}body.stale main section{opacity:.55}
@media (max-width:600px){header,main{padding-left:8px;padding-right:8px}th,td{padding:3px 5px}#q{width:100%}
#logtable,#logtable tbody{display:block}#logtable thead{display:none}
#logtable tr{display:flex;flex-wrap:wrap;gap:0 6px;padding:3px 0;border-bottom:1px solid #d8dee4;background:#fff}
#logtable td{border:0;padding:0 4px;background:none}#logtable td:last-child{flex-basis:100%;min-width:0}
#logtable tr.fail{background:#ffebe9;box-shadow:inset 4px 0 #cf222e}#logtable tr.fail td:first-child{box-shadow:none}
#wstable,#wstable tbody{display:block}#wstable thead{display:none}
#wstable tr{display:flex;flex-wrap:wrap;gap:0 10px;padding:4px 0;border-bottom:1px solid #d8dee4;background:#fff}#wstable tr[hidden]{display:none}
#wstable td{border:0;padding:0 4px}#wstable td::before{content:attr(data-l) ": ";color:#57606a;font:12px system-ui,sans-serif}
#wstable td:first-child{flex-basis:100%;font-weight:600}#wstable td:first-child::before{content:none}}`;

const SCRIPT = `
const $ = (id) => document.getElementById(id);
const q = $('q'), st = $('state');
function filter() {
  const text = q.value.trim().toLowerCase(), state = st.value;
  let shown = 0;
  for (const tr of $('ws').rows) {
    const ok = (!text || tr.dataset.s.includes(text)) && (!state || tr.classList.contains('st-' + state));
    tr.hidden = !ok; if (ok) shown++;
  }
  $('shown').textContent = shown + ' shown';
}
q.addEventListener('input', filter); st.addEventListener('change', filter); filter();
let after = Number(document.body.dataset.after), asOf = new Date(), feed = null;
const clock = (d) => d.toTimeString().slice(0, 8);
function live(text, cls) { $('live').textContent = text; $('live').className = cls; }
function fresh() { asOf = new Date(); }
function stale() { document.body.classList.add('stale'); live('reconnecting… (numbers as of ' + clock(asOf) + ')', ''); }
function signedOut() {
  feed.close(); document.body.classList.add('stale');
  live('signed out (numbers as of ' + clock(asOf) + ')', 'out');
  $('signin').hidden = false; $('t').focus();
}
async function closed() {
  let status = 0;
  try { status = (await fetch('status.json', { cache: 'no-store', credentials: 'same-origin' })).status; } catch {}
  if (status === 401) return signedOut();
  stale(); setTimeout(connect, 3000);
}
function connect() {
  feed = new EventSource('events?after=' + after);
  feed.onopen = () => { document.body.classList.remove('stale'); live('live', 'on'); };
  feed.onerror = () => (feed.readyState === EventSource.CLOSED ? closed() : stale());
  feed.addEventListener('workspaces', (e) => { $('ws').innerHTML = JSON.parse(e.data); filter(); fresh(); });
  feed.addEventListener('summary', (e) => { $('summary').innerHTML = JSON.parse(e.data); fresh(); });
  feed.addEventListener('lander', (e) => { $('queue').innerHTML = JSON.parse(e.data); fresh(); });
  feed.addEventListener('runs', (e) => { $('runlist').innerHTML = JSON.parse(e.data); fresh(); });
  feed.addEventListener('occupancy', (e) => { $('bindings').innerHTML = JSON.parse(e.data); fresh(); });
  feed.addEventListener('log', (e) => {
    const log = $('log'); log.insertAdjacentHTML('afterbegin', JSON.parse(e.data));
    while (log.rows.length > ${500}) log.deleteRow(log.rows.length - 1);
    after = Math.max(after, Number(e.lastEventId) || 0); fresh();
  });
}
connect();`;

/** The sign-in form (the page's, and the banner a signed-out page shows). */
const SIGN_IN_FORM =
  '<form id="f" method="post" action="login"><input id="t" name="token" type="password" size="48" autocomplete="off" ' +
  'aria-label="bearer token"> <button>Open</button></form>';

function head(title: string, nonce: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${esc(title)}</title><style nonce="${nonce}">${STYLE}</style></head>`
  );
}

/** The whole page for `snapshot`. */
export function statusPageHtml(snapshot: StatusSnapshot, options: { nonce: string; version: string }): string {
  const { nonce } = options;
  const th = (names: string[]) => `<thead><tr>${names.map((n) => `<th>${n}</th>`).join('')}</tr></thead>`;
  return (
    head('gatefs status', nonce) +
    `<body data-after="${snapshot.events.at(-1)?.seq ?? 0}"><header><h1>gatefs ${esc(options.version)}</h1><span id="summary">${summaryHtml(snapshot)}</span>` +
    '<span id="live">connecting…</span></header><main>' +
    '<div id="signin" role="alert" hidden><p><b>Sign in again:</b> the server no longer takes this page’s sign-in ' +
    '(it restarted with another token, or the token was rotated with <code>gatefs token rotate</code>). The numbers below ' +
    'are as they were; <code>gatefs token show</code> prints the token.</p>' +
    SIGN_IN_FORM +
    '</div>' +
    '<section><h2>Workspaces</h2><p><input id="q" type="search" placeholder="filter: conversation, role, branch, holder…" size="40"> ' +
    '<select id="state"><option value="">every state</option><option>ready</option><option>preparing</option><option>released</option></select> ' +
    '<span id="shown"></span></p><div class="scroll"><table id="wstable">' +
    th(WORKSPACE_COLUMNS) +
    `<tbody id="ws">${workspaceRowsHtml(snapshot.workspaces)}</tbody></table></div></section>` +
    `<section id="occupancy"><h2>Occupancy</h2><div id="bindings">${occupancyHtml(snapshot.occupancy)}</div></section>` +
    `<section id="runs"><h2>Runs</h2><div id="runlist">${runsHtml(snapshot.runs)}</div></section>` +
    '<section id="lander"><h2>Lander queue</h2><div class="scroll"><table>' +
    th(['Submission', 'Conversation', 'Target', 'State', 'Commit', 'Landed', 'Reason']) +
    `<tbody id="queue">${landerRowsHtml(snapshot.lander)}</tbody></table></div></section>` +
    '<section><h2>Run log (newest first)</h2><div class="scroll"><table id="logtable">' +
    th(['Seq', 'Time (UTC)', 'Type', 'Conversation', 'Details']) +
    `<tbody id="log">${eventRowsHtml(snapshot.events)}</tbody></table></div></section>` +
    `</main><script nonce="${nonce}">${SCRIPT}</script></body></html>`
  );
}

/**
 * The page a browser without the token gets (with the 401): a form for the token, which a
 * `#token=` fragment in the URL fills and sends by itself (then removed from the address bar).
 */
export function signInPageHtml(options: { nonce: string; wrong: boolean }): string {
  const { nonce } = options;
  return (
    head('gatefs status: sign in', nonce) +
    '<body><main><h1>gatefs status</h1>' +
    (options.wrong ? '<p><b>That is not this server’s token.</b></p>' : '') +
    '<p>This page needs the server’s bearer token: the one <code>gatefs serve --http</code> printed at start, ' +
    'or the one <code>gatefs token show</code> prints (kept per server address), or the first line of its ' +
    '<code>--token-file</code>.</p>' +
    SIGN_IN_FORM +
    '</main>' +
    `<script nonce="${nonce}">const m = /[#&]token=([^&]+)/.exec(location.hash); ` +
    "if (m) { history.replaceState(null, '', location.pathname); document.getElementById('t').value = decodeURIComponent(m[1]); " +
    "document.getElementById('f').submit(); }</script></body></html>"
  );
}
