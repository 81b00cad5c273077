package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeVector is what the fake servers return for a text: deterministic,
// different per text, and deliberately not unit length so the tests see
// the client normalise.
func fakeVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	for d := range v {
		h := fnv.New32a()
		fmt.Fprintf(h, "%d:%s", d, text)
		v[d] = float32(h.Sum32()%2000)/100 - 10
	}
	return v
}

func unit(v []float32) []float32 {
	out := append([]float32(nil), v...)
	l2normalize(out)
	return out
}

// fakeServer speaks one protocol faithfully and records what it was sent.
type fakeServer struct {
	t        *testing.T
	protocol string // openai or ollama
	key      string // expected bearer token ("" : none expected)
	dims     int    // vector length it returns when not asked for one
	mu       sync.Mutex
	mutate   func(vecs [][]float32) [][]float32 // changes a response before it is sent
	requests [][]string                         // inputs of each request
	dimsSeen []int                              // dimensions field of each request
}

func (f *fakeServer) start() *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(f.serve))
	f.t.Cleanup(s.Close)
	return s
}

func (f *fakeServer) setMutate(m func([][]float32) [][]float32) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mutate = m
}

// sent returns the inputs of each request so far.
func (f *fakeServer) sent() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]string(nil), f.requests...)
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	path := map[string]string{"openai": "/v1/embeddings", "ollama": "/api/embed"}[f.protocol]
	switch {
	case r.Method != http.MethodPost:
		http.Error(w, "method", http.StatusMethodNotAllowed)
		return
	case r.URL.Path != path:
		http.Error(w, "no route "+r.URL.Path, http.StatusNotFound)
		return
	case r.Header.Get("Content-Type") != "application/json":
		http.Error(w, "content type", http.StatusUnsupportedMediaType)
		return
	}
	if got, want := r.Header.Get("Authorization"), "Bearer "+f.key; f.key != "" && got != want || f.key == "" && got != "" {
		http.Error(w, `{"error":{"message":"Incorrect API key provided"}}`, http.StatusUnauthorized)
		return
	}
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions *int     `json:"dimensions"`
	}
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil || req.Model == "" || len(req.Input) == 0 {
		http.Error(w, fmt.Sprintf("bad request body: %v", err), http.StatusBadRequest)
		return
	}
	dims := f.dims
	f.mu.Lock()
	mutate := f.mutate
	f.requests = append(f.requests, req.Input)
	if req.Dimensions != nil {
		if *req.Dimensions <= 0 {
			f.mu.Unlock()
			http.Error(w, "dimensions must be positive", http.StatusBadRequest)
			return
		}
		dims = *req.Dimensions
		f.dimsSeen = append(f.dimsSeen, dims)
	}
	f.mu.Unlock()
	vecs := make([][]float32, len(req.Input))
	for i, text := range req.Input {
		vecs[i] = fakeVector(text, dims)
	}
	if mutate != nil {
		vecs = mutate(vecs)
	}
	w.Header().Set("Content-Type", "application/json")
	if f.protocol == "ollama" {
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vecs})
		return
	}
	// OpenAI gives each item its index; send them reversed so the client
	// has to use it.
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(vecs) - 1; i >= 0; i-- {
		data = append(data, item{"embedding", i, vecs[i]})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
}

func newFor(protocol string, cfg EmbedderConfig) (Embedder, error) {
	if protocol == "ollama" {
		return NewOllama(cfg)
	}
	return NewOpenAI(cfg)
}

func TestEmbedHTTPBatchingKeepsOrder(t *testing.T) {
	for _, protocol := range []string{"openai", "ollama"} {
		t.Run(protocol, func(t *testing.T) {
			f := &fakeServer{t: t, protocol: protocol, key: "sk-test", dims: 12}
			s := f.start()
			t.Setenv("CAIRN_TEST_EMBED_KEY", "sk-test")
			url := s.URL
			if protocol == "openai" {
				url += "/v1/" // accepted with or without /v1
			}
			e, err := newFor(protocol, EmbedderConfig{URL: url, Model: "m1", APIKeyEnv: "CAIRN_TEST_EMBED_KEY"})
			if err != nil {
				t.Fatal(err)
			}
			texts := make([]string, 150)
			for i := range texts {
				texts[i] = fmt.Sprintf("note number %d", i)
			}
			vs, err := e.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			reqs := f.sent()
			if got := len(reqs); got != 3 {
				t.Fatalf("%d requests, want 3 (64+64+22)", got)
			}
			if n := []int{len(reqs[0]), len(reqs[1]), len(reqs[2])}; n[0] != 64 || n[1] != 64 || n[2] != 22 {
				t.Fatalf("batch sizes %v", n)
			}
			for i, v := range vs {
				if d := cosine(v, unit(fakeVector(texts[i], 12))); d < 1-1e-6 {
					t.Fatalf("text %d: got another text's vector (cos %.3f)", i, d)
				}
				if math.Abs(norm2(v)-1) > 1e-5 {
					t.Fatalf("text %d: norm %v", i, norm2(v))
				}
			}
			if e.Dims() != 12 || len(f.sent()) != 3 {
				t.Fatalf("Dims = %d after %d requests; want 12 learned without a probe", e.Dims(), len(f.sent()))
			}
			if want := protocol + ":" + strings.TrimPrefix(s.URL, "http://") + ":m1:12"; e.ID() != want {
				t.Fatalf("ID = %q, want %q", e.ID(), want)
			}
		})
	}
}

func TestEmbedHTTPBatchSizeAndDimensionsSent(t *testing.T) {
	f := &fakeServer{t: t, protocol: "openai", dims: 12}
	s := f.start()
	e, err := NewOpenAI(EmbedderConfig{URL: s.URL + "/v1", Model: "m", Dimensions: 8, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if vs, err := e.Embed(context.Background(), []string{""}); err != nil || len(vs[0]) != 8 {
		t.Fatalf("blank text: %v %v", vs, err)
	}
	if e.Dims() != 8 || len(f.sent()) != 0 {
		t.Fatal("configured dimensions should need no probe")
	}
	vs, err := e.Embed(context.Background(), []string{"a b", "", "c d", "e f", "  "})
	if err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	dimsSeen := f.dimsSeen
	f.mu.Unlock()
	if len(f.sent()) != 2 || len(dimsSeen) != 2 || dimsSeen[0] != 8 {
		t.Fatalf("requests %v, dimensions sent %v", f.sent(), dimsSeen)
	}
	for i, v := range vs {
		if len(v) != 8 {
			t.Fatalf("vector %d has %d values", i, len(v))
		}
	}
	if norm2(vs[1]) != 0 || norm2(vs[4]) != 0 || norm2(vs[3]) == 0 {
		t.Fatal("blank texts should get the zero vector without being sent")
	}
}

func TestEmbedHTTPDimsProbe(t *testing.T) {
	f := &fakeServer{t: t, protocol: "ollama", dims: 7}
	s := f.start()
	e, err := NewOllama(EmbedderConfig{URL: s.URL, Model: "nomic-embed-text"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dims() != 7 || e.Dims() != 7 {
		t.Fatal("probe")
	}
	f.mu.Lock()
	dimsSeen := f.dimsSeen
	f.mu.Unlock()
	if reqs := f.sent(); len(reqs) != 1 || reqs[0][0] != probeText || dimsSeen != nil {
		t.Fatalf("want one probe request without dimensions, got %v", reqs)
	}

	// Blank texts only, length unknown yet: zero vectors of the probed
	// length.
	e, _ = NewOllama(EmbedderConfig{URL: s.URL, Model: "nomic-embed-text"})
	vs, err := e.Embed(context.Background(), []string{"", " "})
	if err != nil || len(vs) != 2 || len(vs[0]) != 7 || norm2(vs[1]) != 0 {
		t.Fatalf("blank texts: %v %v", vs, err)
	}
	if e.Dims() != 7 || len(f.sent()) != 2 {
		t.Fatalf("%d requests, want one probe per embedder", len(f.sent()))
	}
}

func TestEmbedHTTPDimensionMismatch(t *testing.T) {
	f := &fakeServer{t: t, protocol: "ollama", dims: 16}
	s := f.start()
	e, _ := NewOllama(EmbedderConfig{URL: s.URL, Model: "m", Dimensions: 8})
	f.setMutate(func(v [][]float32) [][]float32 { // a server that ignores dimensions
		for i := range v {
			v[i] = fakeVector("x", 16)
		}
		return v
	})
	if _, err := e.Embed(context.Background(), []string{"hello"}); err == nil || !strings.Contains(err.Error(), "embedder.dimensions is 8") {
		t.Fatalf("err = %v", err)
	}

	// Ragged vectors within one response.
	f.setMutate(func(v [][]float32) [][]float32 { v[1] = v[1][:3]; return v })
	e, _ = NewOllama(EmbedderConfig{URL: s.URL, Model: "m"})
	if _, err := e.Embed(context.Background(), []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "vector 1 has 3 values") {
		t.Fatalf("err = %v", err)
	}

	// A later response of another length than the first.
	calls := 0
	f.setMutate(func(v [][]float32) [][]float32 {
		if calls++; calls > 1 {
			v[0] = v[0][:9]
		}
		return v
	})
	e, _ = NewOllama(EmbedderConfig{URL: s.URL, Model: "m"})
	if _, err := e.Embed(context.Background(), []string{"a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), []string{"b"}); err == nil || !strings.Contains(err.Error(), "9-long vectors, expected 16") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmbedHTTPErrorStatus(t *testing.T) {
	long := `{"error":{"message":"model overloaded","type":"server_error"}}` + strings.Repeat("x", 500)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, long, http.StatusServiceUnavailable)
	}))
	defer s.Close()
	for _, protocol := range []string{"openai", "ollama"} {
		e, _ := newFor(protocol, EmbedderConfig{URL: s.URL, Model: "m"})
		_, err := e.Embed(context.Background(), []string{"hi"})
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if !strings.Contains(msg, "HTTP 503") || !strings.Contains(msg, "model overloaded") || strings.Contains(msg, strings.Repeat("x", 200)) {
			t.Errorf("%s: error %q should give the status and the first 200 bytes", protocol, msg)
		}
		if e.Dims() != 0 {
			t.Errorf("%s: Dims with the server failing = %d, want 0", protocol, e.Dims())
		}
	}
}

func TestEmbedHTTPWrongKeyIsAnError(t *testing.T) {
	f := &fakeServer{t: t, protocol: "openai", key: "right", dims: 4}
	s := f.start()
	t.Setenv("CAIRN_TEST_EMBED_KEY", "wrong")
	e, _ := NewOpenAI(EmbedderConfig{URL: s.URL, Model: "m", APIKeyEnv: "CAIRN_TEST_EMBED_KEY"})
	if _, err := e.Embed(context.Background(), []string{"hi"}); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("err = %v", err)
	}
}

func TestEmbedHTTPConfigErrors(t *testing.T) {
	t.Setenv("CAIRN_TEST_EMPTY_KEY", "")
	for _, c := range []struct {
		cfg  EmbedderConfig
		want string
	}{
		{EmbedderConfig{URL: "http://127.0.0.1:1"}, "embedder.model"},
		{EmbedderConfig{URL: "localhost:11434", Model: "m"}, "embedder.url"},
		{EmbedderConfig{URL: "ftp://example.com", Model: "m"}, "embedder.url"},
		{EmbedderConfig{URL: "http://", Model: "m"}, "embedder.url"},
		{EmbedderConfig{URL: "http://[::1", Model: "m"}, "embedder.url"},
		{EmbedderConfig{Model: "m", Dimensions: -1}, "embedder.dimensions"},
		{EmbedderConfig{Model: "m", APIKeyEnv: "CAIRN_TEST_EMPTY_KEY"}, "CAIRN_TEST_EMPTY_KEY"},
		{EmbedderConfig{Model: "m", APIKeyEnv: "CAIRN_TEST_SURELY_UNSET_KEY"}, "CAIRN_TEST_SURELY_UNSET_KEY"},
	} {
		for _, protocol := range []string{"openai", "ollama"} {
			if _, err := newFor(protocol, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %+v: err = %v, want it to name %s", protocol, c.cfg, err, c.want)
			}
		}
	}
}

func TestEmbedHTTPEndpoints(t *testing.T) {
	for _, c := range []struct{ protocol, url, want string }{
		{"openai", "", "https://api.openai.com/v1/embeddings"},
		{"openai", "http://h:8080", "http://h:8080/v1/embeddings"},
		{"openai", "http://h:8080/v1", "http://h:8080/v1/embeddings"},
		{"openai", "http://h:8080/v1/embeddings", "http://h:8080/v1/embeddings"},
		{"openai", "https://gw.example/openai/v1/", "https://gw.example/openai/v1/embeddings"},
		{"ollama", "", "http://127.0.0.1:11434/api/embed"},
		{"ollama", "http://gpu-box:11434/", "http://gpu-box:11434/api/embed"},
		{"ollama", "http://gpu-box:11434/api/embed", "http://gpu-box:11434/api/embed"},
	} {
		e, err := newFor(c.protocol, EmbedderConfig{URL: c.url, Model: "m", Dimensions: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := e.(*httpEmbedder).endpoint; got != c.want {
			t.Errorf("%s %q → %q, want %q", c.protocol, c.url, got, c.want)
		}
	}
}

func TestEmbedHTTPContextCancel(t *testing.T) {
	release := make(chan struct{})
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer s.Close()
	defer close(release)
	for _, protocol := range []string{"openai", "ollama"} {
		e, _ := newFor(protocol, EmbedderConfig{URL: s.URL, Model: "m"})
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		_, err := e.Embed(ctx, []string{"slow"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err = %v, want context.Canceled", protocol, err)
		}
		if time.Since(start) > 5*time.Second {
			t.Fatalf("%s: cancel took %v", protocol, time.Since(start))
		}
	}
}

func TestEmbedHTTPBadResponses(t *testing.T) {
	for name, body := range map[string]string{
		"not json":      `<html>proxy error</html>`,
		"too few":       `{"data":[{"index":0,"embedding":[1,2]}]}`,
		"bad index":     `{"data":[{"index":0,"embedding":[1,2]},{"index":5,"embedding":[1,2]}]}`,
		"repeat index":  `{"data":[{"index":1,"embedding":[1,2]},{"index":1,"embedding":[1,2]}]}`,
		"empty vectors": `{"data":[{"index":0,"embedding":[]},{"index":1,"embedding":[]}]}`,
	} {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(bytes.TrimSpace([]byte(body)))
		}))
		e, _ := NewOpenAI(EmbedderConfig{URL: s.URL, Model: "m"})
		if _, err := e.Embed(context.Background(), []string{"a", "b"}); err == nil {
			t.Errorf("%s: no error", name)
		}
		s.Close()
	}
}
