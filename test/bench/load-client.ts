/**
 * The flood bench's load clients, in a process of their own: requests are fired on
 * schedule and their answers read and classified here, so the server's event loop and RSS carry
 * only the server's work. Started with `fork()`; takes one plan over IPC and sends back every
 * answer's status, latency and outcome.
 */

export interface LoadCall {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

export interface LoadStream {
  name: string;
  /** Requests fired per second, on schedule, whether or not earlier answers came back. */
  perSecond: number;
  call: LoadCall;
}

export interface LoadPlan {
  baseUrl: string;
  ms: number;
  streams: LoadStream[];
}

/**
 * `ok`: answered; `refused`: turned away by a limit (HTTP 429, or RATE_LIMITED inside a 200: a
 * GraphQL error or an MCP tool result with isError); `unavailable`: 503; `error <code>`: any other
 * failure, named by its GraphQL code, JSON-RPC code or HTTP status; `no answer`: the connection failed.
 */
export interface LoadSample {
  status: number;
  ms: number;
  outcome: string;
}

function classify(status: number, body: string): string {
  if (status === 0) return 'no answer';
  if (status === 429) return 'refused';
  if (status === 503) return 'unavailable';
  let json: any;
  try {
    json = JSON.parse(body);
  } catch {
    json = null;
  }
  if (status !== 200) return `error http ${status}`;
  const gqlCode = json?.errors?.[0]?.extensions?.code;
  if (gqlCode === 'RATE_LIMITED') return 'refused';
  if (gqlCode === 'SERVICE_UNAVAILABLE') return 'unavailable';
  if (gqlCode) return `error ${gqlCode}`;
  if (json?.error) return `error json-rpc ${json.error.code}`;
  if (json?.result?.isError) {
    const text: string = json.result.content?.[0]?.text ?? '';
    return text.startsWith('Rate limit exceeded') ? 'refused' : `error tool: ${text.slice(0, 60)}`;
  }
  return 'ok';
}

async function send(baseUrl: string, call: LoadCall): Promise<LoadSample> {
  const t0 = performance.now();
  try {
    const res = await fetch(baseUrl + call.path, {
      method: call.method,
      headers: call.headers,
      body: call.body,
    });
    const body = await res.text();
    return { status: res.status, ms: performance.now() - t0, outcome: classify(res.status, body) };
  } catch {
    return { status: 0, ms: performance.now() - t0, outcome: 'no answer' };
  }
}

async function paced(baseUrl: string, stream: LoadStream, ms: number): Promise<LoadSample[]> {
  const pending: Promise<LoadSample>[] = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < ms; i++) {
    pending.push(send(baseUrl, stream.call));
    const next = started + ((i + 1) * 1000) / stream.perSecond;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  return Promise.all(pending);
}

async function run(plan: LoadPlan): Promise<Record<string, LoadSample[]>> {
  const results = await Promise.all(plan.streams.map((s) => paced(plan.baseUrl, s, plan.ms)));
  return Object.fromEntries(plan.streams.map((s, i) => [s.name, results[i]]));
}

if (process.send) {
  process.once('message', (plan: LoadPlan) => {
    void run(plan).then((samples) => process.send!(samples, () => process.exit(0)));
  });
}
