#!/usr/bin/env python3
"""Programmable ingest server for re-sync tests and benchmarks (127.0.0.1 only).

usage: ingest_server.py --port-file FILE [--record FILE] [--behaviour FILE.json] [--quiet-record]

Every request is appended to --record as one JSON line {path, method, headers, body, status, conn}
(conn: the number of the connection it came on, 1 for the first the server accepted)
BEFORE the response is written, so a test that waits for the client sees every request.
Each response (status line, headers, body) goes out in ONE write (Nagle / delayed-ACK).

Behaviour (JSON, all keys optional):
  default_status   int (200)
  delay_ms         int, sleep before answering every request
  chunked          true: answer with Transfer-Encoding: chunked instead of Content-Length
  paths            {"/p": {"statuses": [503, 200]}}            consumed in order, then default
                   (a status "drop" hangs up without answering, like the "drop" rule below)
  uuids            {"u1": {"always": 422}}                        any request whose body holds u1
                   {"u2": {"statuses": [500, 200]}}              consumed per request holding u2
                   {"u3": {"drop": 1}}                           close the connection without answer N times
                   {"u4": {"always": 422, "echo_token": true}}   the response body quotes the bearer token
                                                                  (without "Bearer "), as a careless server does
  redirects        {"/p": {"status": 307, "location": "https://…"}}  every request on /p is redirected there
  trickle          {"/p": {"bytes": 1000, "interval_ms": 200}}   200 with Content-Length, then one body byte per interval
  stream           {"/p": {"bytes": 1073741824, "mode": "length"|"chunked"|"close"}}
                                                                  200 and a body that size, written as fast as it goes
  after            {"/p": {"send": "HTTP/1.1 200 OK\r\n…", "delay_ms": 30, "statuses": [503]}}
                   after each response on /p (with one of "statuses", default any), these bytes written
                   unsolicited on the same connection: delay_ms 0 in the same write as the response,
                   else in a write of their own that much later (a stray response, bytes past the framing)
  retry_after      {"/p": "1"}                                    Retry-After header sent with 429s on /p
  auth             {"paths": ["/p"], "valid": ["tok1"], "expire_after": 3}
                   401 unless "Authorization: Bearer <valid token>"; a token of "valid" stops being valid
                   after expire_after accepted requests (a token that expires mid-run); refreshed ones don't
  refresh          {"path": "/refresh", "statuses": [200], "issue": ["tok2"], "shape": "nested"|"renamed"|"plain",
                    "refresh_token": "r2" | null}
                   a 2xx refresh issues the next token of "issue" (made valid) in that response shape
"""
import argparse, json, os, socket, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {}


def next_status(rule):
    seq = rule.get("statuses")
    if seq:
        return seq.pop(0)
    return None


def quiet_write(wfile, data):
    """Writes; a client that went away (it stopped reading on purpose) is not an error here."""
    try:
        wfile.write(data)
        wfile.flush()
        return True
    except (BrokenPipeError, ConnectionResetError, OSError):
        return False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with LOCK:
            STATE["connections"] = STATE.get("connections", 0) + 1
            self.connection_number = STATE["connections"]

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        text = body.decode("utf-8", "replace")
        b = STATE["behaviour"]
        status, extra_headers, payload, drop, special = None, [], None, False, None
        with LOCK:
            path = self.path.split("?")[0]
            refresh = b.get("refresh")
            for kind in ("redirects", "trickle", "stream"):
                if path in b.get(kind, {}):
                    special = (kind, b[kind][path])
                    status = special[1].get("status", 200) if kind == "redirects" else 200
            if special is not None:
                pass
            elif refresh and path == refresh.get("path"):
                status = next_status(refresh) or 200
                if 200 <= status < 300:
                    issue = refresh.get("issue") or ["tok-refreshed"]
                    token = issue.pop(0) if len(issue) > 1 else issue[0]
                    STATE["valid"].add(token)
                    shape = refresh.get("shape", "plain")
                    rt = refresh.get("refresh_token")
                    if shape == "nested":
                        payload = {"data": {"accessToken": token}}
                        if rt: payload["data"]["refreshToken"] = rt
                    elif shape == "renamed":
                        payload = {"token": token}
                        if rt: payload["refreshToken"] = rt
                    else:
                        payload = {"access_token": token}
                        if rt: payload["refresh_token"] = rt
                else:
                    payload = {"error": "refresh rejected"}
            else:
                auth = b.get("auth")
                if auth and path in auth.get("paths", []):
                    header = self.headers.get("Authorization") or ""
                    token = header[7:] if header.startswith("Bearer ") else None
                    if token not in STATE["valid"]:
                        status, payload = 401, {"error": "token expired or invalid"}
                    else:
                        used = STATE["used"].get(token, 0) + 1
                        STATE["used"][token] = used
                        limit = auth.get("expire_after")
                        if limit and used >= limit and token in auth.get("valid", []):
                            STATE["valid"].discard(token)  # this request passes; the next one is 401
                if status is None:
                    for uuid, rule in b.get("uuids", {}).items():
                        if uuid in text:
                            if rule.get("drop", 0) > 0:
                                rule["drop"] -= 1
                                drop = True
                                break
                            if "always" in rule:
                                status = rule["always"]
                                if rule.get("echo_token"):
                                    header = self.headers.get("Authorization") or ""
                                    payload = {"error": "rejected", "status": status,
                                               "token": header[7:] if header.startswith("Bearer ") else header}
                                break
                            s = next_status(rule)
                            if s is not None:
                                status = s
                                break
                if status is None and not drop:
                    rule = b.get("paths", {}).get(path)
                    if rule:
                        status = next_status(rule)
                        if status == "drop":
                            status, drop = None, True
                if status is None:
                    status = b.get("default_status", 200)
                if status == 429 and path in b.get("retry_after", {}):
                    extra_headers.append(("Retry-After", str(b["retry_after"][path])))
            if payload is None:
                payload = {"ok": 200 <= status < 300, "status": status}
            record = {"t": time.time(), "path": path, "method": self.command,
                      "headers": {k: v for k, v in self.headers.items()}, "body": text,
                      "status": 0 if drop else status, "conn": self.connection_number}
            if STATE["record"] is not None:
                STATE["record"].write(json.dumps(record) + "\n")
                STATE["record"].flush()
        delay = b.get("delay_ms", 0)
        if delay:
            time.sleep(delay / 1000.0)
        if special is not None:
            self.answer_special(*special)
            return
        if drop:
            # Mid-request hang-up: the client gets no status line at all.
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        data = json.dumps(payload).encode()
        reason = self.responses.get(status, ("Status",))[0]
        head = "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\n" % (status, reason)
        if b.get("chunked"):
            # Two chunks plus a trailer-less terminator, to exercise chunked decoding.
            half = len(data) // 2
            parts = [data[:half], data[half:]]
            data = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts if p) + b"0\r\n\r\n"
            head += "Transfer-Encoding: chunked\r\n"
        else:
            head += "Content-Length: %d\r\n" % len(data)
        for k, v in extra_headers:
            head += "%s: %s\r\n" % (k, v)
        head += "\r\n"
        after = b.get("after", {}).get(path)
        if after and status in after.get("statuses", [status]):
            stray = after["send"].encode()
            if not after.get("delay_ms"):
                quiet_write(self.wfile, head.encode() + data + stray)
                return
            if quiet_write(self.wfile, head.encode() + data):
                time.sleep(after["delay_ms"] / 1000.0)
                quiet_write(self.wfile, stray)
            return
        self.wfile.write(head.encode() + data)
        self.wfile.flush()

    def answer_special(self, kind, rule):
        if kind == "redirects":
            data = b"redirected"
            head = "HTTP/1.1 %d Redirect\r\nLocation: %s\r\nContent-Length: %d\r\n\r\n" % (
                rule.get("status", 302), rule["location"], len(data))
            quiet_write(self.wfile, head.encode() + data)
            return
        self.close_connection = True
        total = int(rule.get("bytes", 1000))
        if kind == "trickle":
            head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % total
            if not quiet_write(self.wfile, head.encode()):
                return
            for _ in range(total):
                time.sleep(rule.get("interval_ms", 200) / 1000.0)
                if not quiet_write(self.wfile, b" "):
                    return
            return
        mode = rule.get("mode", "length")
        head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        if mode == "length":
            head += "Content-Length: %d\r\n" % total
        elif mode == "chunked":
            head += "Transfer-Encoding: chunked\r\n"
        else:
            head += "Connection: close\r\n"
        if not quiet_write(self.wfile, (head + "\r\n").encode()):
            return
        block = b"x" * 65536
        sent = 0
        while sent < total:
            part = block[: min(len(block), total - sent)]
            data = b"%x\r\n%s\r\n" % (len(part), part) if mode == "chunked" else part
            if not quiet_write(self.wfile, data):
                break
            sent += len(part)
        else:
            if mode == "chunked":
                quiet_write(self.wfile, b"0\r\n\r\n")
        STATE["streamed"] = sent

    do_POST = do_PUT = do_PATCH = do_GET = handle_any


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--record")
    parser.add_argument("--behaviour")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (PEM, key included)")
    args = parser.parse_args()
    behaviour = {}
    if args.behaviour:
        with open(args.behaviour) as f:
            behaviour = json.load(f)
    STATE["behaviour"] = behaviour
    STATE["valid"] = set((behaviour.get("auth") or {}).get("valid", []))
    STATE["used"] = {}
    STATE["record"] = open(args.record, "a") if args.record else None
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if args.tls_cert:
        import ssl
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.tls_cert)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(tmp, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
