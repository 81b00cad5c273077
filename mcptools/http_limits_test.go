package mcptools

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// exchange is one request written by hand on its own connection: the head,
// then only the start of the body, never the rest. A server that waited for
// the whole body would never answer; the generous deadline then fails the
// test instead of hanging it.
type exchange struct {
	method, path string
	header       map[string]string
	length       int64  // the Content-Length claimed; -1: chunked
	start        []byte // the part of the body actually sent
}

func (x exchange) do(t *testing.T, base string) (*http.Response, string) {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	var head strings.Builder
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n", x.method, x.path, u.Host)
	for k, v := range x.header {
		fmt.Fprintf(&head, "%s: %s\r\n", k, v)
	}
	body := x.start
	switch {
	case x.length < 0:
		head.WriteString("Transfer-Encoding: chunked\r\n")
		body = []byte(fmt.Sprintf("%x\r\n%s\r\n", len(x.start), x.start)) // and no last chunk
	case x.length > 0 || x.method == http.MethodPost:
		fmt.Fprintf(&head, "Content-Length: %d\r\n", x.length)
	}
	head.WriteString("\r\n")
	go conn.Write(append([]byte(head.String()), body...)) // may block once the server stops reading
	resp, err := http.ReadResponse(bufio.NewReader(conn), &http.Request{Method: x.method})
	if err != nil {
		t.Fatalf("%s %s: no answer: %v", x.method, x.path, err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	return resp, string(b)
}

// initRequest asks for the last protocol version with sessions
// (2026-07-28 has none: each request stands alone).
func initRequest() mcp.InitializeRequest {
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "cairn-test", Version: "1"}
	return init
}

// sessionClient is a client with a session (protocol 2025-11-25).
func (ts *testServer) sessionClient(t testing.TB, token string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(ts.url, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(context.Background(), initRequest()); err != nil {
		t.Fatal(err)
	}
	if c.GetSessionId() == "" {
		t.Fatal("no session id after initialize")
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rpcMessage is the message of a JSON-RPC error body.
func rpcMessage(t *testing.T, body string) string {
	t.Helper()
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not a JSON-RPC error: %q", body)
	}
	return e.Error.Message
}

func TestBodyLimitIs413BeforeAnythingReadsTheBody(t *testing.T) {
	ts, svc := newTestServerWith(t, "", HTTPOptions{MaxBody: 4096})
	tok := ts.token(t, "owner", "write")
	c := ts.sessionClient(t, tok)
	before := head(t, ts.dir)

	// Through the client: a clear error naming the limit and the flag, and
	// nothing written; the session is still good.
	_, err := callTool(t, c, "create_note", map[string]any{"project": "acme", "body": "# Big\n\n" + strings.Repeat("x", 8000)})
	if err == nil || !strings.Contains(err.Error(), "4096 bytes") || !strings.Contains(err.Error(), "--max-body") {
		t.Fatalf("over the limit: %v", err)
	}
	var who struct{ Principal string }
	ok(t, c, "whoami", map[string]any{}, &who)
	if who.Principal != "owner" || head(t, ts.dir) != before || svc.Sessions() != 1 {
		t.Fatalf("after the 413: whoami %+v, head moved %v, %d sessions", who, head(t, ts.dir) != before, svc.Sessions())
	}

	base := strings.TrimSuffix(ts.url, "/mcp")
	bearer := map[string]string{"Authorization": "Bearer " + tok}
	sid := map[string]string{"Authorization": "Bearer " + tok, "Mcp-Session-Id": c.GetSessionId()}
	for _, tc := range []struct {
		name string
		x    exchange
		want int
	}{
		// A terabyte announced: refused on its Content-Length.
		{"declared", exchange{http.MethodPost, "/mcp", bearer, 1 << 40, []byte(initBody)}, http.StatusRequestEntityTooLarge},
		{"declared, on a session", exchange{http.MethodPost, "/mcp", sid, 1 << 40, []byte("{")}, http.StatusRequestEntityTooLarge},
		// Chunked: read up to the limit, not further.
		{"chunked", exchange{http.MethodPost, "/mcp", bearer, -1, []byte(strings.Repeat(" ", 4097))}, http.StatusRequestEntityTooLarge},
		// Refusals that come first never read the body at all.
		{"no token", exchange{http.MethodPost, "/mcp", nil, 1 << 30, []byte("{")}, http.StatusUnauthorized},
		{"no token, chunked", exchange{http.MethodPost, "/mcp", nil, -1, []byte("{")}, http.StatusUnauthorized},
		{"bad token, chunked", exchange{http.MethodPost, "/mcp", map[string]string{"Authorization": "Bearer cairn_pat_nope"}, -1, []byte("{")}, http.StatusUnauthorized},
		{"unknown session", exchange{http.MethodPost, "/mcp", map[string]string{"Authorization": "Bearer " + tok, "Mcp-Session-Id": "cairn-NOPE"}, 4000, []byte("{")}, http.StatusNotFound},
		{"unknown session, chunked", exchange{http.MethodPost, "/mcp", map[string]string{"Authorization": "Bearer " + tok, "Mcp-Session-Id": "cairn-NOPE"}, -1, []byte("{")}, http.StatusNotFound},
		{"foreign origin", exchange{http.MethodPost, "/mcp", map[string]string{"Authorization": "Bearer " + tok, "Origin": "https://evil.example"}, -1, []byte("{")}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := tc.x.do(t, base)
			if resp.StatusCode != tc.want {
				t.Fatalf("%d %s, want %d", resp.StatusCode, body, tc.want)
			}
			if tc.want == http.StatusRequestEntityTooLarge {
				if msg := rpcMessage(t, body); !strings.Contains(msg, "4096 bytes (4 KiB)") || !strings.Contains(msg, "cairn serve --max-body") {
					t.Fatalf("the 413 says %q", msg)
				}
			}
		})
	}
	if svc.Sessions() != 1 || head(t, ts.dir) != before {
		t.Fatalf("refused requests left %d sessions, head moved %v", svc.Sessions(), head(t, ts.dir) != before)
	}
	if err := ts.mcp.SendNotificationToSpecificClient(c.GetSessionId(), "notifications/message", nil); err != nil {
		t.Fatalf("the session survives the refusals: %v", err)
	}
}

func TestIdleSessionsExpireThen404ThenInitializeAgain(t *testing.T) {
	ts, svc := newTestServerWith(t, "", HTTPOptions{SessionIdle: time.Hour})
	c := ts.sessionClient(t, ts.token(t, "owner", "write"))
	var who struct{ Principal string }
	ok(t, c, "whoami", map[string]any{}, &who)
	old := c.GetSessionId()
	if err := ts.mcp.SendNotificationToSpecificClient(old, "notifications/message", nil); err != nil {
		t.Fatalf("mcp-go knows the live session: %v", err)
	}
	if n := svc.sessions.sweep(time.Now()); n != 0 || svc.Sessions() != 1 {
		t.Fatalf("a sweep within the idle time ended %d sessions", n)
	}
	// An hour and a minute later.
	if n := svc.sessions.sweep(time.Now().Add(time.Hour + time.Minute)); n != 1 || svc.Sessions() != 0 {
		t.Fatalf("the sweep ended %d sessions, %d left", n, svc.Sessions())
	}
	if err := ts.mcp.SendNotificationToSpecificClient(old, "notifications/message", nil); !errors.Is(err, server.ErrSessionNotFound) {
		t.Fatalf("mcp-go still holds the expired session: %v", err)
	}
	_, err := callTool(t, c, "whoami", map[string]any{})
	if !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("a call on the expired session: %v, want the spec's 404", err)
	}
	if _, err := c.Initialize(context.Background(), initRequest()); err != nil {
		t.Fatalf("initialize again: %v", err)
	}
	ok(t, c, "whoami", map[string]any{}, &who)
	if c.GetSessionId() == old || svc.Sessions() != 1 {
		t.Fatalf("the new session: %q (old %q), %d live", c.GetSessionId(), old, svc.Sessions())
	}
}

func TestExpiryIsExactWithoutASweep(t *testing.T) {
	ts, svc := newTestServerWith(t, "", HTTPOptions{SessionIdle: time.Hour})
	c := ts.sessionClient(t, ts.token(t, "owner", "write"))
	// Its last request ended two hours ago; no sweep has run since.
	svc.sessions.mu.Lock()
	svc.sessions.byID[c.GetSessionId()].last = time.Now().Add(-2 * time.Hour)
	svc.sessions.mu.Unlock()
	if _, err := callTool(t, c, "whoami", map[string]any{}); !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("a call after the idle time: %v, want the spec's 404", err)
	}
	if svc.Sessions() != 0 {
		t.Fatalf("%d sessions left", svc.Sessions())
	}
}

func TestSessionCapEvictsTheTokensLongestIdle(t *testing.T) {
	ts, svc := newTestServerWith(t, "", HTTPOptions{MaxSessions: 2})
	a, b := ts.token(t, "owner", "write"), ts.token(t, "camille", "read")
	b1, b2 := ts.sessionClient(t, b), ts.sessionClient(t, b)
	a1, a2 := ts.sessionClient(t, a), ts.sessionClient(t, a)
	var who struct{ Principal string }
	ok(t, a1, "whoami", map[string]any{}, &who) // a1 is now more recent than a2
	first := a2.GetSessionId()
	a3 := ts.sessionClient(t, a) // evicts a2, the longest idle of a's
	if svc.Sessions() != 4 {
		t.Fatalf("%d sessions, want 2 per token", svc.Sessions())
	}
	if _, err := callTool(t, a2, "whoami", map[string]any{}); !errors.Is(err, transport.ErrSessionTerminated) {
		t.Fatalf("the evicted session: %v, want the spec's 404", err)
	}
	if err := ts.mcp.SendNotificationToSpecificClient(first, "notifications/message", nil); !errors.Is(err, server.ErrSessionNotFound) {
		t.Fatalf("mcp-go still holds the evicted session: %v", err)
	}
	for i, c := range []*client.Client{a1, a3, b1, b2} {
		ok(t, c, "whoami", map[string]any{}, &who)
		if want := []string{"owner", "owner", "camille", "camille"}[i]; who.Principal != want {
			t.Fatalf("client %d is %s", i, who.Principal)
		}
	}
}

func TestASessionWorksOnlyForItsTokenAndPath(t *testing.T) {
	ts, svc := newTestServerWith(t, "", HTTPOptions{})
	a := ts.token(t, "owner", "write", AllToolsets...)
	c := ts.sessionClient(t, a)
	other := ts.token(t, "owner", "write", AllToolsets...) // the same principal, another token
	base := strings.TrimSuffix(ts.url, "/mcp")
	ping := []byte(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	for _, x := range []exchange{
		{http.MethodPost, "/mcp", map[string]string{"Authorization": "Bearer " + other, "Mcp-Session-Id": c.GetSessionId()}, int64(len(ping)), ping},
		{http.MethodPost, "/hindsight/mcp", map[string]string{"Authorization": "Bearer " + a, "Mcp-Session-Id": c.GetSessionId()}, int64(len(ping)), ping},
		{http.MethodDelete, "/mcp", map[string]string{"Authorization": "Bearer " + other, "Mcp-Session-Id": c.GetSessionId()}, 0, nil},
		{http.MethodGet, "/mcp", map[string]string{"Authorization": "Bearer " + other, "Mcp-Session-Id": c.GetSessionId()}, 0, nil},
	} {
		if resp, body := x.do(t, base); resp.StatusCode != http.StatusNotFound || !strings.Contains(rpcMessage(t, body), "send initialize") {
			t.Fatalf("%s %s with another token or path: %d %s", x.method, x.path, resp.StatusCode, body)
		}
	}
	// Its own token may end it.
	del := exchange{http.MethodDelete, "/mcp", map[string]string{"Authorization": "Bearer " + a, "Mcp-Session-Id": c.GetSessionId()}, 0, nil}
	if resp, body := del.do(t, base); resp.StatusCode != http.StatusOK || svc.Sessions() != 0 {
		t.Fatalf("DELETE by its token: %d %s, %d sessions", resp.StatusCode, body, svc.Sessions())
	}
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		x := exchange{m, "/mcp", map[string]string{"Authorization": "Bearer " + a}, 0, nil}
		if resp, body := x.do(t, base); resp.StatusCode != http.StatusBadRequest || !strings.Contains(rpcMessage(t, body), "Mcp-Session-Id header required") {
			t.Fatalf("%s without a session: %d %s", m, resp.StatusCode, body)
		}
	}
}

// openStream opens a session's GET event stream and returns its body once
// the 200 has come.
func openStream(t *testing.T, url, token, sid string) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Accept", "text/event-stream")
	return http.DefaultClient.Do(req)
}

func TestOneEventStreamPerSessionClosedWhenTheSessionEnds(t *testing.T) {
	ts, svc := newTestServerWith(t, "", HTTPOptions{MaxSessions: 1})
	tok := ts.token(t, "owner", "write")
	c := ts.sessionClient(t, tok)
	stream, err := openStream(t, ts.url, tok, c.GetSessionId())
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("GET stream: %v %v", err, stream)
	}
	defer stream.Body.Close()
	second, err := openStream(t, ts.url, tok, c.GetSessionId())
	if err != nil || second.StatusCode != http.StatusConflict {
		t.Fatalf("second GET stream: %v %v", err, second)
	}
	second.Body.Close()
	// The session is busy while its stream is open: no sweep ends it.
	if n := svc.sessions.sweep(time.Now().Add(2 * DefaultSessionIdle)); n != 0 {
		t.Fatalf("a sweep ended a session with an open stream")
	}
	// A new session of the token (cap 1) replaces it and closes its stream.
	ts.sessionClient(t, tok)
	if _, err := io.Copy(io.Discard, stream.Body); err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("the stream of the evicted session: %v", err)
	}
	if svc.Sessions() != 1 {
		t.Fatalf("%d sessions", svc.Sessions())
	}
}

func TestOriginIsChecked(t *testing.T) {
	ts, _ := newTestServerWith(t, "", HTTPOptions{AllowOrigins: []string{"https://app.example"}})
	tok := ts.token(t, "owner", "write")
	base := strings.TrimSuffix(ts.url, "/mcp")
	port := base[strings.LastIndex(base, ":")+1:]
	init := []byte(initBody)
	post := func(origin string) (*http.Response, string) {
		h := map[string]string{"Authorization": "Bearer " + tok}
		if origin != "" {
			h["Origin"] = origin
		}
		return exchange{http.MethodPost, "/mcp", h, int64(len(init)), init}.do(t, base)
	}
	for _, origin := range []string{"", "http://localhost:6274", "http://127.0.0.1:" + port, "http://[::1]:3000", "https://APP.example:443", "https://app.example"} {
		resp, body := post(origin)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("Origin %q: %d %s", origin, resp.StatusCode, body)
		}
		listed := strings.Contains(strings.ToLower(origin), "app.example")
		if got := resp.Header.Get("Access-Control-Allow-Origin"); (got != "") != listed {
			t.Fatalf("Origin %q: Access-Control-Allow-Origin %q", origin, got)
		}
	}
	for _, origin := range []string{"https://evil.example", "http://app.example", "https://app.example:8443", "null", "http://localhost.evil.example", "file://"} {
		resp, body := post(origin)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(rpcMessage(t, body), "--allow-origin") {
			t.Fatalf("Origin %q: %d %s", origin, resp.StatusCode, body)
		}
	}
	// A preflight from the allow-list is answered without a token.
	pre := exchange{http.MethodOptions, "/mcp", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, mcp-protocol-version"}, 0, nil}
	resp, _ := pre.do(t, base)
	if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Mcp-Protocol-Version") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	pre.header["Origin"] = "https://evil.example"
	if resp, _ := pre.do(t, base); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("preflight from elsewhere: %d", resp.StatusCode)
	}
	// mcp-go's own check stays on: a loopback connection with a foreign Host.
	req, _ := http.NewRequest(http.MethodPost, ts.url, strings.NewReader(initBody))
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Host: %v %v", err, resp)
	}
}

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://App.Example":      "https://app.example",
		"https://app.example:443":  "https://app.example",
		"http://app.example:8080/": "http://app.example:8080",
		"http://[::1]:3000":        "http://[::1]:3000",
	} {
		if got, err := ParseOrigin(in); err != nil || got != want {
			t.Fatalf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"*", "app.example", "ftp://app.example", "https://app.example/path", "https://u@app.example", "https://app.example?x=1", "null", ""} {
		if _, err := ParseOrigin(in); err == nil {
			t.Fatalf("ParseOrigin(%q) accepted", in)
		}
	}
}

// TestEvictionOrder drives the registry itself: which session the cap ends.
func TestEvictionOrder(t *testing.T) {
	var released []string
	g := newSessionRegistry(time.Hour, 2, func(s *liveSession) { released = append(released, s.id) })
	ep := &endpoint{path: "/mcp"}
	now := time.Now()
	g.add("a", "tok", ep, now)
	g.endInit("a", now)
	g.add("b", "tok", ep, now.Add(time.Second))
	g.endInit("b", now.Add(time.Second))
	if _, err := g.begin("a", "tok", ep, now.Add(2*time.Second), nil); err != nil { // a is busy from now on
		t.Fatal(err)
	}
	g.add("other", "tok2", ep, now) // another token's session counts for that token only
	g.endInit("other", now)
	g.add("c", "tok", ep, now.Add(3*time.Second))
	if strings.Join(released, ",") != "b" {
		t.Fatalf("first eviction ended %v, want the idle b before the busy, older a", released)
	}
	// c is still initializing: the busy a goes before it.
	g.add("d", "tok", ep, now.Add(4*time.Second))
	if strings.Join(released, ",") != "b,a" {
		t.Fatalf("second eviction ended %v, want a (c is initializing)", released)
	}
	// Both initializing: none can go, the token is over its cap until one ends.
	g.add("e", "tok", ep, now.Add(5*time.Second))
	if strings.Join(released, ",") != "b,a" || g.count() != 4 {
		t.Fatalf("with every session initializing: released %v, %d live", released, g.count())
	}
	// A sweep never ends a busy session, and ends the rest after the idle time.
	g.endInit("c", now.Add(6*time.Second))
	if n := g.sweep(now.Add(6*time.Second + time.Hour)); n != 2 || g.count() != 2 {
		t.Fatalf("the sweep ended %d, %d left (d and e are initializing)", n, g.count())
	}
}
