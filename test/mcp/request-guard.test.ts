/**
 * The HTTP guard and the listen address, as pure functions: which Host, Origin and token
 * combinations pass, and which addresses count as loopback. (The same checks are exercised
 * end to end against a running server in http.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { checkRequest } from '../../src/mcp/guard/request-guard.js';
import { allowedHostHeaders, parseListenAddress, ListenAddressError } from '../../src/mcp/http/listen-address.js';

const loopback = allowedHostHeaders(parseListenAddress('127.0.0.1:8808'), 8808);

describe('checkRequest', () => {
  it('passes a loopback Host without Origin and without a token policy', () => {
    for (const host of ['127.0.0.1:8808', 'localhost:8808', '[::1]:8808']) {
      expect(checkRequest({ host }, { allowedHosts: loopback, token: null })).toBeNull();
    }
  });

  it('refuses a rebinding Host (another name or another port) with 403', () => {
    for (const host of ['evil.example:8808', 'localhost:9999', '127.0.0.1', '']) {
      expect(checkRequest({ host }, { allowedHosts: loopback, token: null })?.status).toBe(403);
    }
  });

  it('refuses a foreign Origin and accepts the server own origin', () => {
    expect(checkRequest({ host: 'localhost:8808', origin: 'https://evil.example' }, { allowedHosts: loopback, token: null })?.status).toBe(
      403,
    );
    expect(checkRequest({ host: 'localhost:8808', origin: 'null' }, { allowedHosts: loopback, token: null })?.status).toBe(403);
    expect(checkRequest({ host: 'localhost:8808', origin: 'http://localhost:8808' }, { allowedHosts: loopback, token: null })).toBeNull();
  });

  it('requires the exact bearer token when one is set (401 otherwise)', () => {
    const policy = { allowedHosts: loopback, token: 's3cret-0123456789' };
    expect(checkRequest({ host: 'localhost:8808' }, policy)?.status).toBe(401);
    expect(checkRequest({ host: 'localhost:8808', authorization: 'Bearer wrong' }, policy)?.status).toBe(401);
    expect(checkRequest({ host: 'localhost:8808', authorization: 'Basic s3cret-0123456789' }, policy)?.status).toBe(401);
    expect(checkRequest({ host: 'localhost:8808', authorization: 'Bearer s3cret-0123456789 extra' }, policy)?.status).toBe(401);
    expect(checkRequest({ host: 'localhost:8808', authorization: 'Bearer s3cret-0123456789x' }, policy)?.status).toBe(401);
    expect(checkRequest({ host: 'localhost:8808', authorization: 'Bearer s3cret-0123456789' }, policy)).toBeNull();
    expect(checkRequest({ host: 'localhost:8808', authorization: 'bearer  s3cret-0123456789 ' }, policy)).toBeNull();
  });

  it('each 401 says what was wrong and where the token is, and challenges Bearer without OAuth metadata', () => {
    const policy = { allowedHosts: loopback, token: 's3cret-0123456789', tokenHint: 'the file serve-token' };
    const missing = checkRequest({ host: 'localhost:8808' }, policy)!;
    expect(missing.reason).toMatch(/no Authorization header/);
    const basic = checkRequest({ host: 'localhost:8808', authorization: 'Basic abc' }, policy)!;
    expect(basic.reason).toMatch(/uses Basic, not a bearer token/);
    const wrong = checkRequest({ host: 'localhost:8808', authorization: 'Bearer nope' }, policy)!;
    expect(wrong.reason).toMatch(/bearer token is not this server's/);
    for (const r of [missing, basic, wrong]) {
      expect(r.reason).toContain("send the header 'Authorization: Bearer <token>'");
      expect(r.reason).not.toContain('"');
      expect(r.reason).toContain('the token is in the file serve-token');
      expect(r.reason).not.toContain('s3cret');
      expect(r.challenge).toMatch(/^Bearer realm="gatefs"/);
      expect(r.challenge).not.toMatch(/resource_metadata/);
    }
    expect(wrong.challenge).toContain('error="invalid_token"');
  });

  it('checks the Host header before the token: a rebinding page learns nothing about the token', () => {
    const policy = { allowedHosts: loopback, token: 's3cret-0123456789' };
    expect(checkRequest({ host: 'evil.example:8808' }, policy)?.status).toBe(403);
  });
});

describe('parseListenAddress', () => {
  it('parses IPv4, IPv6, localhost and a bare port', () => {
    expect(parseListenAddress('127.0.0.1:8808')).toMatchObject({ host: '127.0.0.1', port: 8808, loopback: true });
    expect(parseListenAddress('[::1]:0')).toMatchObject({ host: '::1', port: 0, loopback: true });
    expect(parseListenAddress('localhost:1')).toMatchObject({ loopback: true });
    expect(parseListenAddress('9000')).toMatchObject({ host: '127.0.0.1', port: 9000 });
    expect(parseListenAddress('0.0.0.0:80')).toMatchObject({ loopback: false, wildcard: true });
    expect(parseListenAddress('192.168.1.4:80')).toMatchObject({ loopback: false, wildcard: false });
  });

  it('rejects names, missing ports and out-of-range ports', () => {
    for (const bad of ['example.com:80', '127.0.0.1', '127.0.0.1:70000', ':80', 'http://127.0.0.1:80']) {
      expect(() => parseListenAddress(bad)).toThrow(ListenAddressError);
    }
  });

  it('a wildcard bind accepts any Host (the required token guards it)', () => {
    expect(allowedHostHeaders(parseListenAddress('0.0.0.0:80'), 80)).toBeNull();
    expect([...allowedHostHeaders(parseListenAddress('192.168.1.4:80'), 80)!]).toEqual(['192.168.1.4:80']);
  });
});
