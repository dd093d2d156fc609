import { fork, type ChildProcess } from 'node:child_process';
import { createConnection, createServer, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { round } from './stats.js';

/**
 * What one round trip between two processes costs this machine: the unit both unmet hot-path goals
 * are made of. The MCP facade adds one a call over the operation in process (the HTTP request and
 * its answer), and a project-scoped search makes one more than the raw search (the context's
 * generation read). Measured in the same run as the goals, as the bench's other floors are: a
 * machine's wake-ups (one process writing, another woken to read) cost what its kernel and
 * hypervisor make them cost, not what the code does.
 */
export interface RoundTrip {
  /** Round trips timed, one at a time. */
  count: number;
  /** Wall time a round trip, µs: the median of five batches. */
  wallUs: number;
  /** CPU a round trip, µs, both processes together (user and system): the same batch's. */
  cpuUs: number;
}

const ECHO = 'round-trip-echo';
const BATCHES = 5;

/** The other process: echoes every byte it reads on one loopback TCP connection, and tells its CPU. */
function echo(): void {
  let since = process.cpuUsage();
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('data', (data) => socket.write(data));
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  // 'start' begins a batch; 'stop' answers with the CPU this process spent since.
  process.on('message', (message: 'start' | 'stop') => {
    if (message === 'start') {
      since = process.cpuUsage();
      process.send!('started');
      return;
    }
    const { user, system } = process.cpuUsage(since);
    process.send!({ cpuUs: user + system });
  });
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: unknown) => {
      child.off('error', onError);
      resolve(message as T);
    };
    const onError = (err: Error) => {
      child.off('message', onMessage);
      reject(err);
    };
    child.once('message', onMessage).once('error', onError);
  });
}

async function pingPong(socket: Socket, count: number): Promise<void> {
  const one = Buffer.from([1]);
  for (let i = 0; i < count; i++) {
    await new Promise<void>((resolve) => {
      socket.once('data', () => resolve());
      socket.write(one);
    });
  }
}

/**
 * `count` round trips of one byte each way between this process and a child over loopback TCP
 * (Nagle off), one at a time, in five batches on one connection after a warm-up; the figures are
 * the median batch's. What Node adds to the kernel's share (an event-loop turn and a callback on
 * each side) is in it, as it is in every request the bench times.
 */
export async function measureRoundTrip(count = 20_000): Promise<RoundTrip> {
  const child = fork(new URL(import.meta.url), [ECHO], { stdio: 'inherit', execArgv: [] });
  let socket: Socket | undefined;
  try {
    const { port } = await nextMessage<{ port: number }>(child);
    const connected = createConnection({ port, host: '127.0.0.1', noDelay: true });
    socket = connected;
    await new Promise<void>((resolve, reject) => connected.once('connect', resolve).once('error', reject));
    await pingPong(connected, Math.min(2_000, count));
    const batches: { wallUs: number; cpuUs: number }[] = [];
    for (let b = 0; b < BATCHES; b++) {
      child.send('start');
      await nextMessage(child);
      const cpu = process.cpuUsage();
      const started = performance.now();
      await pingPong(connected, count);
      const wall = performance.now() - started;
      const own = process.cpuUsage(cpu);
      child.send('stop');
      const { cpuUs } = await nextMessage<{ cpuUs: number }>(child);
      batches.push({ wallUs: (wall * 1000) / count, cpuUs: (own.user + own.system + cpuUs) / count });
    }
    const median = [...batches].sort((a, b) => a.wallUs - b.wallUs)[Math.floor(BATCHES / 2)];
    return { count, wallUs: round(median.wallUs, 1), cpuUs: round(median.cpuUs, 1) };
  } finally {
    socket?.destroy();
    child.kill();
  }
}

if (process.argv[2] === ECHO && process.send) echo();
