package search

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// An OpenAI-compatible server that answers with dims-long vectors.
func embedServer(dims *atomic.Int32) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
			v := make([]float32, dims.Load())
			for j := range v {
				v[j] = float32((len(s)+j)%7) + 1
			}
			out.Data = append(out.Data, item{i, v})
		}
		json.NewEncoder(w).Encode(out)
	}))
}

// An embedding server down at start: the index opens without vectors and
// every search says why, never failing.
func TestEmbedderDownAtStart(t *testing.T) {
	var dims atomic.Int32
	dims.Store(8)
	srv := embedServer(&dims)
	url := srv.URL
	srv.Close()
	e, err := NewOpenAI(EmbedderConfig{Provider: "openai", URL: url, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ix, lb := openT(t, t.TempDir(), e, nil)
	defer ix.Close()
	ix.Apply(versioned(corpus), nil)
	r, err := ix.Search(context.Background(), Query{Text: "CDN", Filter: Filter{Scopes: []string{"p:acme"}}})
	if err != nil || r.Mode != Lexical || !strings.Contains(r.Notice, "did not say its dimensions") || len(r.Hits) == 0 {
		t.Fatalf("got %+v, %v", r, err)
	}
	if ix.Semantic() || !strings.Contains(lb.String(), "semantic search is off") {
		t.Errorf("semantic %v, log %q", ix.Semantic(), lb)
	}
}

// A server whose model changes under a running index (other dimensions):
// the queue reports it and retries, searches run lexically, nothing panics.
func TestEmbedderChangesDimensions(t *testing.T) {
	var dims atomic.Int32
	dims.Store(8)
	srv := embedServer(&dims)
	defer srv.Close()
	e, err := NewOpenAI(EmbedderConfig{Provider: "openai", URL: srv.URL, Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ix, lb := openT(t, t.TempDir(), e, nil)
	defer ix.Close()
	if !ix.Semantic() {
		t.Fatal("no vectors with a running server")
	}
	dims.Store(4)
	ix.Apply(versioned(corpus), nil)
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(lb.String(), "retrying") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(lb.String(), "4") || !strings.Contains(lb.String(), "retrying") {
		t.Errorf("log: %q", lb)
	}
	r, err := ix.Search(context.Background(), Query{Text: "CDN", Mode: Hybrid, Filter: Filter{Scopes: []string{"p:acme"}}})
	if err != nil || r.Mode != Lexical || len(r.Hits) == 0 {
		t.Fatalf("got %+v, %v", r, err)
	}
}
