// A DNS server of the tests' own on loopback (issue 40: the TXT records that prove a domain): answers TXT queries over
// UDP from a table the test sets (a name with records, or NXDOMAIN for any name not in it), or fails on purpose
// (SERVFAIL, or no answer at all). The wire format is dns-packet's (RFC 1035 4.1).
import dgram from 'node:dgram';
import { AUTHORITATIVE_ANSWER, RECURSION_AVAILABLE, decode, encode, type Answer } from 'dns-packet';
import type { Test } from 'tap';

/** RFC 1035 4.1.1 RCODE values. */
const SERVFAIL = 2;
const NXDOMAIN = 3;

export interface DnsServer {
  /** `127.0.0.1:PORT`, as DNS_RESOLVERS takes it. */
  readonly address: string;
  /** The TXT records at `name`: each record a list of its character-strings (RFC 1035 3.3.14); undefined removes it. */
  setTxt(name: string, records: ReadonlyArray<readonly string[]> | undefined): void;
  /** `answer` (the default), `servfail` every query, or `silent`: read queries and answer none (a resolver that hangs). */
  mode: 'answer' | 'servfail' | 'silent';
  /** The names asked for, in order. */
  readonly queries: string[];
}

export async function startDnsServer(t: Test): Promise<DnsServer> {
  const records = new Map<string, ReadonlyArray<readonly string[]>>();
  const socket = dgram.createSocket('udp4');
  const server: DnsServer = {
    address: '',
    setTxt(name, txt) {
      if (txt === undefined) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), txt);
    },
    mode: 'answer',
    queries: [],
  };
  socket.on('message', (message, from) => {
    let query;
    try {
      query = decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    server.queries.push(question.name);
    if (server.mode === 'silent') return;
    const txt = records.get(question.name.toLowerCase());
    const answers: Answer[] =
      server.mode === 'answer' && txt && question.type === 'TXT'
        ? txt.map((strings) => ({ type: 'TXT', name: question.name, ttl: 60, data: [...strings] }))
        : [];
    const rcode = server.mode === 'servfail' ? SERVFAIL : txt ? 0 : NXDOMAIN;
    const response = encode({
      type: 'response',
      id: query.id ?? 0,
      flags: AUTHORITATIVE_ANSWER | RECURSION_AVAILABLE | (query.flag_rd ? 1 << 8 : 0) | rcode,
      questions: [question],
      answers,
    });
    socket.send(response, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  (server as { address: string }).address = `127.0.0.1:${socket.address().port}`;
  t.teardown(() => new Promise<void>((resolve) => socket.close(() => resolve())));
  return server;
}
