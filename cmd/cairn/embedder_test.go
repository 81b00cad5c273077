package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A teammate pushes a config.yaml whose embedder names a server and an
// environment variable of each member's machine as its key. Bob's clone
// syncs it, is told, and never sends the variable: search goes on with
// the builtin vectors, said on stderr and by cairn doctor. The same
// settings in bob's own .cairn/local.yaml are used, key and all.
func TestASyncedEmbedderSectionNeverSendsTheKeyTranscript(t *testing.T) {
	const keyEnv, key = "CAIRN_TEST_EMBED_KEY", "sekrit-42"
	t.Setenv(keyEnv, key)
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		var req struct {
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			out.Data = append(out.Data, item{i, []float32{float32(len(s)%3 + 1), 1, 2, float32(len(s)%5 + 1)}})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	received := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), auth...)
	}

	base := t.TempDir()
	remote, a, b := filepath.Join(base, "remote.git"), filepath.Join(base, "a"), filepath.Join(base, "b")
	git(t, base, "init", "-q", "--bare", "-b", "main", remote)
	run(t, true, "init", "--from", "../../sample-vault", a)
	git(t, a, "remote", "add", "origin", remote)
	run(t, true, "sync", "--vault", a)
	run(t, true, "clone", "--owner", "bob", remote, b)

	section := "embedder:\n  provider: openai\n  url: " + srv.URL + "\n  model: m\n  apiKeyEnv: " + keyEnv + "\n"
	os.WriteFile(filepath.Join(a, ".cairn/config.yaml"), []byte("format: 1\nlanguage: en\n"+section), 0o644)
	git(t, a, "-c", "user.name=Mallory", "-c", "user.email=m@x", "commit", "-qam", "embedder")
	run(t, true, "sync", "--vault", a)
	out, _ := run(t, true, "sync", "--vault", b)
	if !strings.Contains(out, ".cairn/config.yaml") || !strings.Contains(out, "Mallory") {
		t.Fatalf("the sync does not name the settings change:\n%s", out)
	}

	out, errOut := run(t, true, "search", "--vault", b, "rollback")
	if !strings.Contains(out, "results, hybrid") || !strings.Contains(errOut, "apiKeyEnv "+keyEnv+" is never taken from the shared file") || !strings.Contains(errOut, ".cairn/local.yaml") {
		t.Fatalf("search on b:\n%s\nstderr:\n%s", out, errOut)
	}
	if got := received(); len(got) != 0 {
		t.Fatalf("the server named by the shared file received %d requests: %q", len(got), got)
	}
	out, _ = run(t, false, "doctor", "--vault", b)
	if !strings.Contains(out, "problem  embedder     .cairn/config.yaml: embedder: apiKeyEnv "+keyEnv) || !strings.Contains(out, "move the embedder section (url, apiKeyEnv) into .cairn/local.yaml") {
		t.Fatalf("doctor on b:\n%s", out)
	}

	os.WriteFile(filepath.Join(b, ".cairn/local.yaml"), []byte("owner: bob\n"+section), 0o644)
	out, errOut = run(t, true, "search", "--vault", b, "rollback")
	if !strings.Contains(out, "results, hybrid") || strings.Contains(errOut, "never taken") {
		t.Fatalf("search with bob's own settings:\n%s\nstderr:\n%s", out, errOut)
	}
	got := received()
	if len(got) == 0 {
		t.Fatal("bob's own embedder received nothing")
	}
	for _, h := range got {
		if h != "Bearer "+key {
			t.Fatalf("a request carried Authorization %q", h)
		}
	}
	out, _ = run(t, true, "doctor", "--vault", b)
	if !strings.Contains(out, "ok       embedder     openai at "+srv.URL+" (.cairn/local.yaml)") {
		t.Fatalf("doctor with bob's own settings:\n%s", out)
	}
	if st := git(t, b, "status", "--porcelain"); st != "" {
		t.Fatalf("b not clean:\n%s", st)
	}
}
