package search

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HTTP embedder settings: one request never waits longer than
// requestTimeout (a stuck server must not hold an indexing run forever),
// and a response is read up to maxResponse bytes (64 texts × 4,096 floats
// as JSON is ~6 MB).
const (
	defaultBatchSize = 64
	requestTimeout   = 30 * time.Second
	maxResponse      = 64 << 20
	defaultOpenAIURL = "https://api.openai.com"
	defaultOllamaURL = "http://127.0.0.1:11434"
	// probeText is embedded once to learn the vector length when the
	// config does not give it.
	probeText = "dimension probe"
)

// NewOpenAI returns an embedder for an OpenAI-compatible server (OpenAI,
// LM Studio, vLLM, llama.cpp, LiteLLM, ...): POST {url}/v1/embeddings.
// cfg.URL defaults to https://api.openai.com and may end in /v1.
func NewOpenAI(cfg EmbedderConfig) (Embedder, error) {
	return newHTTPEmbedder(cfg, openAIProtocol{})
}

// NewOllama returns an embedder for an Ollama server: POST {url}/api/embed.
// cfg.URL defaults to http://127.0.0.1:11434.
func NewOllama(cfg EmbedderConfig) (Embedder, error) {
	return newHTTPEmbedder(cfg, ollamaProtocol{})
}

// protocol is what differs between the servers: the path, the request
// body and the response shape.
type protocol interface {
	name() string
	defaultURL() string
	// base strips a path the user may have copied with the URL.
	base(path string) string
	endpoint() string
	body(model string, dims int, texts []string) any
	// parse returns exactly n vectors in input order.
	parse(body []byte, n int) ([][]float32, error)
}

type httpEmbedder struct {
	proto    protocol
	endpoint string // full URL requests go to
	display  string // endpoint with any password masked, for errors
	host     string
	model    string
	want     int // cfg.Dimensions: asked for and checked (0: any)
	batch    int
	apiKey   string
	client   *http.Client

	mu   sync.Mutex // guards dims and serialises the probe
	dims int        // learned from the first response when want is 0
}

func newHTTPEmbedder(cfg EmbedderConfig, p protocol) (*httpEmbedder, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fmt.Errorf("embedder.model: required for provider %s", p.name())
	}
	raw := strings.TrimSpace(cfg.URL)
	if raw == "" {
		raw = p.defaultURL()
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("embedder.url: %q is not an http(s) base URL like %s", cfg.URL, p.defaultURL())
	}
	if cfg.Dimensions < 0 {
		return nil, fmt.Errorf("embedder.dimensions: %d is negative", cfg.Dimensions)
	}
	if cfg.BatchSize < 0 {
		return nil, fmt.Errorf("embedder.batchSize: %d is negative", cfg.BatchSize)
	}
	e := &httpEmbedder{
		proto:  p,
		host:   u.Host,
		model:  cfg.Model,
		want:   cfg.Dimensions,
		dims:   cfg.Dimensions,
		batch:  cfg.BatchSize,
		client: &http.Client{},
	}
	if e.batch == 0 {
		e.batch = defaultBatchSize
	}
	if cfg.APIKeyEnv != "" {
		// Checked now so a missing key is a startup error naming the
		// variable, not an opaque 401 at the first search.
		e.apiKey = os.Getenv(cfg.APIKeyEnv)
		if e.apiKey == "" {
			return nil, fmt.Errorf("embedder.apiKeyEnv: environment variable %s is empty or not set", cfg.APIKeyEnv)
		}
	}
	u.Path = p.base(strings.TrimRight(u.Path, "/")) + p.endpoint()
	u.RawPath = ""
	e.endpoint = u.String()
	e.display = u.Redacted()
	return e, nil
}

// ID is "<provider>:<host>:<model>:<dims>", so vectors from another server,
// model or size are never compared. When the length is neither configured
// nor learned yet, ID probes the server (see Dims); if that fails, dims
// reads 0 and the ID will differ once the server answers, which only costs
// a rebuild of the vectors.
func (e *httpEmbedder) ID() string {
	return e.proto.name() + ":" + e.host + ":" + e.model + ":" + strconv.Itoa(e.Dims())
}

// Dims is cfg.Dimensions when set. Otherwise it is learned from the first
// successful Embed, or, if Dims is asked first, from one probe request
// (embedding "dimension probe", 30 s timeout) made lazily and cached. Dims
// returns 0 while the server cannot be reached; the next call retries.
func (e *httpEmbedder) Dims() int {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	d, _ := e.probe(ctx)
	return d
}

func (e *httpEmbedder) knownDims() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.dims
}

func (e *httpEmbedder) probe(ctx context.Context) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dims > 0 {
		return e.dims, nil
	}
	vs, err := e.request(ctx, []string{probeText})
	if err != nil {
		return 0, err
	}
	e.dims = len(vs[0])
	return e.dims, nil
}

// Embed sends texts in batches of cfg.BatchSize and returns unit vectors
// in order. Blank texts are not sent (OpenAI rejects empty input) and get
// the zero vector, like the builtin embedder's texts with no known word.
func (e *httpEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var idx []int
	var send []string
	for i, t := range texts {
		if strings.TrimSpace(t) != "" {
			idx = append(idx, i)
			send = append(send, t)
		}
	}
	for start := 0; start < len(send); start += e.batch {
		end := min(start+e.batch, len(send))
		vs, err := e.request(ctx, send[start:end])
		if err != nil {
			return nil, err
		}
		if err := e.checkDims(len(vs[0])); err != nil {
			return nil, err
		}
		for k, v := range vs {
			out[idx[start+k]] = v
		}
	}
	if len(send) < len(texts) {
		dims := e.knownDims()
		if dims == 0 {
			var err error
			if dims, err = e.probe(ctx); err != nil {
				return nil, err
			}
		}
		for i := range out {
			if out[i] == nil {
				out[i] = make([]float32, dims)
			}
		}
	}
	return out, nil
}

// checkDims holds every response to the first length seen: a server that
// switched models under the same name would otherwise mix vector spaces.
func (e *httpEmbedder) checkDims(n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.dims == 0 {
		e.dims = n
	}
	if n != e.dims {
		return fmt.Errorf("%s embeddings: model %q returned %d-long vectors, expected %d", e.proto.name(), e.model, n, e.dims)
	}
	return nil
}

// request makes one POST for one batch and returns its normalised vectors,
// all of one length (and that of cfg.Dimensions when set).
func (e *httpEmbedder) request(ctx context.Context, texts []string) ([][]float32, error) {
	what := e.proto.name() + " embeddings"
	body, err := json.Marshal(e.proto.body(e.model, e.want, texts))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if e.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+e.apiKey)
	}
	resp, err := e.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("%s: POST %s: reading response: %w", what, e.display, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%s: POST %s: HTTP %d: %s", what, e.display, resp.StatusCode, snippet(data))
	}
	if len(data) > maxResponse {
		return nil, fmt.Errorf("%s: POST %s: response over %d bytes", what, e.display, maxResponse)
	}
	vs, err := e.proto.parse(data, len(texts))
	if err != nil {
		return nil, fmt.Errorf("%s: POST %s: %w (body: %s)", what, e.display, err, snippet(data))
	}
	for i, v := range vs {
		if len(v) == 0 || len(v) != len(vs[0]) {
			return nil, fmt.Errorf("%s: vector %d has %d values, vector 0 has %d", what, i, len(v), len(vs[0]))
		}
		l2normalize(v)
	}
	if e.want > 0 && len(vs[0]) != e.want {
		return nil, fmt.Errorf("%s: embedder.dimensions is %d but model %q returned %d-long vectors", what, e.want, e.model, len(vs[0]))
	}
	return vs, nil
}

// snippet is the first 200 bytes of an error body: enough for the
// server's message, short enough for a log line.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strconv.Quote(s)
}

// l2normalize scales v to unit length (a zero vector stays zero). Servers
// differ on whether they normalise; cosine as a dot product needs it.
func l2normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}

// openAIProtocol: {"model", "input": [...], "dimensions"?} →
// {"data": [{"index", "embedding": [...]}]}.
type openAIProtocol struct{}

func (openAIProtocol) name() string       { return "openai" }
func (openAIProtocol) defaultURL() string { return defaultOpenAIURL }
func (openAIProtocol) endpoint() string   { return "/v1/embeddings" }
func (openAIProtocol) base(p string) string {
	p = strings.TrimSuffix(p, "/embeddings")
	return strings.TrimSuffix(p, "/v1")
}

func (openAIProtocol) body(model string, dims int, texts []string) any {
	return struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions,omitempty"`
	}{model, texts, dims}
}

func (openAIProtocol) parse(body []byte, n int) ([][]float32, error) {
	var r struct {
		Data []struct {
			Index     *int      `json:"index"`
			Embedding []float32 `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(r.Data), n)
	}
	// The API documents data as in input order but gives each an index;
	// trust the index when there is one.
	out := make([][]float32, n)
	seen := make([]bool, n)
	for i, d := range r.Data {
		k := i
		if d.Index != nil {
			k = *d.Index
		}
		if k < 0 || k >= n || seen[k] {
			return nil, fmt.Errorf("embedding index %d is out of range or repeated", k)
		}
		seen[k] = true
		out[k] = d.Embedding
	}
	return out, nil
}

// ollamaProtocol: {"model", "input": [...], "dimensions"?} →
// {"embeddings": [[...], ...]}. Older Ollama versions ignore dimensions;
// the length check then reports the mismatch.
type ollamaProtocol struct{}

func (ollamaProtocol) name() string       { return "ollama" }
func (ollamaProtocol) defaultURL() string { return defaultOllamaURL }
func (ollamaProtocol) endpoint() string   { return "/api/embed" }
func (ollamaProtocol) base(p string) string {
	p = strings.TrimSuffix(p, "/embed")
	return strings.TrimSuffix(p, "/api")
}

func (ollamaProtocol) body(model string, dims int, texts []string) any {
	return struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Dimensions int      `json:"dimensions,omitempty"`
	}{model, texts, dims}
}

func (ollamaProtocol) parse(body []byte, n int) ([][]float32, error) {
	var r struct {
		Embeddings [][]float32 `json:"embeddings"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	if len(r.Embeddings) != n {
		return nil, fmt.Errorf("%d embeddings for %d inputs", len(r.Embeddings), n)
	}
	return r.Embeddings, nil
}
