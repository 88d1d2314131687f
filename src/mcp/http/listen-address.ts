/**
 * The `--http HOST:PORT` address of `gatefs serve`: parsing, loopback detection, and the Host
 * header values a client may legitimately send to it (the DNS-rebinding allow list).
 */
import { isIP } from 'node:net';
import { CodedError } from '../../../vfs/index.js';

/** A parsed listen address. `port` 0 asks the system for a free port. */
export interface ListenAddress {
  host: string;
  port: number;
  /** True for 127.0.0.0/8, ::1 and `localhost`: only this machine can connect. */
  loopback: boolean;
  /** True for 0.0.0.0 and :: (every interface). */
  wildcard: boolean;
}

/** Thrown for an address that cannot be parsed (code `BAD_LISTEN_ADDRESS`); the CLI reports it as a usage error. */
export class ListenAddressError extends CodedError<'BAD_LISTEN_ADDRESS'> {
  override readonly name = 'ListenAddressError';

  constructor(message: string) {
    super('BAD_LISTEN_ADDRESS', message, {});
  }
}

/**
 * Parses `HOST:PORT`, `[IPv6]:PORT` or a bare `PORT` (which means 127.0.0.1). Throws
 * `ListenAddressError` for anything else.
 */
export function parseListenAddress(text: string): ListenAddress {
  const bare = /^\d+$/.test(text);
  const m = bare ? ['', '127.0.0.1', text] : (/^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:[\]]+):(\d+)$/.exec(text));
  const port = m ? Number(m[2]) : NaN;
  if (!m || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ListenAddressError(`--http expects HOST:PORT (for example 127.0.0.1:8808), got "${text}"`);
  }
  const host = m[1].toLowerCase();
  if (host !== 'localhost' && isIP(host) === 0) {
    throw new ListenAddressError(`--http expects an IP address or localhost as HOST, got "${m[1]}"`);
  }
  return { host, port, loopback: isLoopback(host), wildcard: host === '0.0.0.0' || host === '::' };
}

/** True when `host` (an IP literal or `localhost`) only reaches this machine. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The Host header values accepted for a server bound at `address` on `port` (the actual port
 * once bound). For a loopback bind, every loopback spelling; otherwise the bound address.
 * Returns `null` for a wildcard bind, where any name may reach the machine (the bearer token,
 * required there, is the guard).
 */
export function allowedHostHeaders(address: ListenAddress, port: number): Set<string> | null {
  if (address.wildcard) return null;
  const names = address.loopback ? ['localhost', '127.0.0.1', '[::1]'] : [address.host.includes(':') ? `[${address.host}]` : address.host];
  if (address.loopback && !names.includes(address.host) && address.host !== '::1') names.push(address.host);
  return new Set(names.map((n) => `${n}:${port}`));
}
