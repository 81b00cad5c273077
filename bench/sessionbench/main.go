// Command sessionbench measures what idle MCP sessions cost the server and
// that the HTTP limits give it back: resident memory and Go heap with the
// server up, with N idle sessions, after their idle expiry, with N
// initializes by one token under the default per-token cap, and around
// over-limit request bodies.
//
//	go run ./bench/sessionbench -sessions 10000 -idle 30s
//
// The server is cairn's own (mcptools.NewHTTPService over an empty vault)
// on 127.0.0.1 in this process; the sessions are opened by raw HTTP
// (initialize, then notifications/initialized, protocol 2025-11-25, one
// bearer token), so the client side holds only their ids. Memory is read
// after runtime.GC and debug.FreeOSMemory: RSS from /proc/self/status.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/mcptools"
	"github.com/cairn-dev/cairn/vault"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"sessionbench","version":"1"}}}`

func main() {
	sessions := flag.Int("sessions", 10000, "idle sessions to open")
	idle := flag.Duration("idle", 30*time.Second, "the servers' session idle time (opening them all must take less)")
	workers := flag.Int("workers", 8, "concurrent connections opening sessions")
	bodyMB := flag.Int("body", 300, "size in MB of the over-limit bodies sent (0: skip)")
	rounds := flag.Int("rounds", 2, "times the sessions are opened and left to expire (memory must not grow)")
	flag.Parse()

	tmp, err := os.MkdirTemp("", "cairn-sessionbench-")
	must(err)
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "vault")
	_, err = vault.Init(dir, vault.InitOptions{})
	must(err)
	v, err := vault.Open(dir, vault.Options{Exclusive: true})
	must(err)
	defer v.Close()
	srv := mcptools.NewServer(v, mcptools.NewRegistry(), "bench")
	tokens := mcptools.NewTokenStore(dir)
	tok, _, err := tokens.Create(mcptools.TokenRecord{Principal: "owner", Scope: "write"})
	must(err)
	// No cap here (every session stays), the default cap there.
	uncapped := mcptools.NewHTTPService(srv, tokens, mcptools.HTTPOptions{SessionIdle: *idle, MaxSessions: *sessions})
	capped := mcptools.NewHTTPService(srv, tokens, mcptools.HTTPOptions{SessionIdle: *idle})
	base, capBase := listen(uncapped), listen(capped)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}}

	fmt.Printf("%-52s %10s %10s %10s %8s\n", "", "sessions", "RSS MiB", "heap MiB", "gorout.")
	base0 := row("server up, no session", uncapped, 0)
	if *bodyMB > 0 {
		bodies(c, base, tok, int64(*bodyMB)<<20)
		underLimit(c, base, tok)
		uncapped.Close() // the one session of underLimit
		uncapped = mcptools.NewHTTPService(srv, tokens, mcptools.HTTPOptions{SessionIdle: *idle, MaxSessions: *sessions})
		base = listen(uncapped)
		row(fmt.Sprintf("after two %d MB bodies (413) and one at the limit", *bodyMB), uncapped, 0)
	}
	var held, after mem
	var opened, expired time.Duration
	for round := 1; round <= *rounds; round++ {
		t0 := time.Now()
		open(c, base, tok, *sessions, *workers, false)
		opened = time.Since(t0)
		held = row(fmt.Sprintf("%d idle sessions (round %d)", *sessions, round), uncapped, 0)
		t0 = time.Now()
		for uncapped.Sessions() > 0 {
			if time.Since(t0) > *idle+2*time.Minute {
				fmt.Println("the sessions did not expire")
				os.Exit(1)
			}
			time.Sleep(100 * time.Millisecond)
		}
		expired = time.Since(t0)
		after = row(fmt.Sprintf("after their idle expiry (round %d)", round), uncapped, 0)
	}
	evicted := open(c, capBase, tok, *sessions, *workers, true)
	row(fmt.Sprintf("%d initializes by one token, default cap", *sessions), capped, uncapped.Sessions())
	fmt.Printf("\nopened %d sessions in %v; all expired %v after the last was opened (idle %v)\n", *sessions, opened.Round(time.Millisecond), expired.Round(time.Second), *idle)
	fmt.Printf("under the cap, %d sessions were evicted before their client's next request (%d clients at once)\n", evicted, *workers)
	if *sessions > 0 {
		d := func(a, b uint64) float64 { return float64(int64(a) - int64(b)) }
		fmt.Printf("per idle session: %.1f KiB of heap, %.1f KiB resident; their expiry gave back %.0f%% of that heap and %.0f%% of that RSS\n",
			d(held.heap, base0.heap)/float64(*sessions)/1024, d(held.rss, base0.rss)/float64(*sessions)/1024,
			100*d(held.heap, after.heap)/d(held.heap, base0.heap), 100*d(held.rss, after.rss)/d(held.rss, base0.rss))
	}
	uncapped.Close()
	capped.Close()
}

type mem struct{ rss, heap uint64 }

// row prints the memory now, after a full GC that returns what it can to
// the OS.
func row(label string, svc *mcptools.HTTPService, others int) mem {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := mem{rss: rss(), heap: ms.HeapInuse}
	fmt.Printf("%-52s %10d %10.1f %10.1f %8d\n", label, svc.Sessions()+others, float64(m.rss)/(1<<20), float64(m.heap)/(1<<20), runtime.NumGoroutine())
	return m
}

func rss() uint64 { return status("VmRSS:") }

// status reads a size in /proc/self/status, in bytes.
func status(field string) uint64 {
	st, err := measure.Status(0)
	must(err)
	return st[strings.TrimSuffix(field, ":")]
}

func listen(h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	go (&http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}).Serve(ln)
	return "http://" + ln.Addr().String() + "/mcp"
}

// open opens n sessions the way a client does: initialize, then the
// initialized notification on the new session. Under a cap, a session
// can be evicted by the other clients' initializes before its
// notification: evictable says that is expected, and open counts them.
func open(c *http.Client, url, tok string, n, workers int, evictable bool) int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	evicted := 0
	next := make(chan struct{})
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				resp := post(c, url, tok, "", strings.NewReader(initBody), -1)
				sid := resp.Header.Get("Mcp-Session-Id")
				if resp.StatusCode != http.StatusOK || sid == "" {
					panic(fmt.Sprintf("initialize: %d", resp.StatusCode))
				}
				resp = post(c, url, tok, sid, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), -1)
				switch {
				case resp.StatusCode == http.StatusNotFound && evictable:
					mu.Lock()
					evicted++
					mu.Unlock()
				case resp.StatusCode != http.StatusAccepted:
					panic(fmt.Sprintf("initialized: %d", resp.StatusCode))
				}
			}
		}()
	}
	for range n {
		next <- struct{}{}
	}
	close(next)
	wg.Wait()
	return evicted
}

// bodies sends a tools/call of size bytes twice: declared (refused on its
// Content-Length) and chunked (read up to the limit), and checks the 413s.
func bodies(c *http.Client, url, tok string, size int64) {
	for _, declared := range []bool{true, false} {
		body := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"whoami","arguments":{"pad":"`),
			io.LimitReader(zeros{}, size), strings.NewReader(`"}}}`))
		length := int64(-1)
		if declared {
			length = size + 200
		}
		t0 := time.Now()
		resp := post(c, url, tok, "", body, length)
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			panic(fmt.Sprintf("a %d-byte body: %d", size, resp.StatusCode))
		}
		fmt.Printf("%d MB body, %s: 413 in %v\n", size>>20, map[bool]string{true: "declared", false: "chunked"}[declared], time.Since(t0).Round(time.Millisecond))
	}
}

// underLimit sends one tools/call just under the default limit on a
// session and reports the peak RSS it caused: what one in-flight body at
// the limit costs while mcp-go decodes it.
func underLimit(c *http.Client, url, tok string) {
	resp := post(c, url, tok, "", strings.NewReader(initBody), -1)
	sid := resp.Header.Get("Mcp-Session-Id")
	head := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"whoami","arguments":{"pad":"`
	tail := `"}}}`
	size := mcptools.DefaultMaxBody - int64(len(head)+len(tail))
	runtime.GC()
	debug.FreeOSMemory()
	must(os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)) // resets the peak (VmHWM) to the current RSS
	before := status("VmHWM:")
	body := io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, size), strings.NewReader(tail))
	resp = post(c, url, tok, sid, body, mcptools.DefaultMaxBody)
	if resp.StatusCode != http.StatusOK {
		panic(fmt.Sprintf("a body at the limit: %d", resp.StatusCode))
	}
	fmt.Printf("one %d MiB tools/call (at the limit): peak RSS +%.0f MiB\n", mcptools.DefaultMaxBody>>20, float64(status("VmHWM:")-before)/(1<<20))
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	return len(p), nil
}

func post(c *http.Client, url, tok, sid string, body io.Reader, length int64) *http.Response {
	req, err := http.NewRequest(http.MethodPost, url, body)
	must(err)
	req.ContentLength = length
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := c.Do(req)
	must(err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "sessionbench:", err)
		os.Exit(1)
	}
}
