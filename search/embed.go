package search

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// Embedder turns texts into vectors for semantic search. Implementations
// are safe for concurrent use.
type Embedder interface {
	// ID names the provider, model and settings. Vectors made under another
	// ID are never compared with this one's: the sidecar file is rebuilt.
	ID() string
	// Dims is the length of every vector Embed returns.
	Dims() int
	// Embed returns one L2-normalised vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// CoverageReporter is an Embedder that can say how much of a text it
// knows: 0 when it has a vector for no word of it, 1 when it has one for
// every word that carries meaning. Search weighs the semantic list by it
// (docs/search-ranking.md, "How the two lists are fused"); an embedder that does
// not report it (an HTTP model) is taken to know every word.
type CoverageReporter interface {
	Coverage(text string) float64
}

// LanguageReporter is an Embedder that says which languages its vectors
// read ("en"). A hybrid search plainly written in another language (by its
// stop words) leaves the semantic list out: vectors that do not read a
// language rank its questions by the few words it shares with theirs,
// which makes word matching worse, never better. An embedder that does not
// report it (an HTTP model) is taken to read every language.
type LanguageReporter interface {
	Languages() []string
}

// readsLanguage says whether e's vectors read lang ("" reads as yes).
func readsLanguage(e Embedder, lang string) bool {
	lr, ok := e.(LanguageReporter)
	if !ok || lang == "" {
		return true
	}
	return slices.Contains(lr.Languages(), lang)
}

// EmbedderConfig is an `embedder:` section: of the machine's own
// .cairn/local.yaml, or of the vault's shared .cairn/config.yaml, which
// the vault trusts with a loopback server and no key only (vault.ChooseEmbedder;
// docs/security.md, "Syncing through a shared repository": access and
// settings that arrive by sync).
type EmbedderConfig struct {
	// Provider is builtin (the default), openai, ollama or none.
	Provider string `yaml:"provider"`
	// URL is the server's base URL (openai: up to, not including,
	// /v1/embeddings; ollama: up to /api/embed).
	URL string `yaml:"url"`
	// Model is the model name the server expects.
	Model string `yaml:"model"`
	// Dimensions asks the server for vectors of this length (openai's
	// `dimensions`), and is checked against what comes back. 0: whatever
	// the model gives.
	Dimensions int `yaml:"dimensions"`
	// APIKeyEnv names the environment variable holding the API key (sent
	// as a bearer token); the key itself is never written in the vault.
	// The vault takes it from this machine's settings only: named in a
	// shared file, it would send any variable to whoever set the URL.
	APIKeyEnv string `yaml:"apiKeyEnv"`
	// BatchSize bounds texts per request (default 64).
	BatchSize int `yaml:"batchSize"`
}

// NewEmbedder builds the configured embedder; provider none gives nil
// (semantic search off).
func NewEmbedder(cfg EmbedderConfig) (Embedder, error) {
	switch cfg.Provider {
	case "", "builtin":
		return Builtin()
	case "none", "off":
		return nil, nil
	case "openai":
		return NewOpenAI(cfg)
	case "ollama":
		return NewOllama(cfg)
	}
	return nil, fmt.Errorf("embedder.provider: unknown provider %q (builtin, openai, ollama or none)", cfg.Provider)
}

// Server is the base URL the embedder sends texts to: URL, or the
// provider's default when it is empty; "" for the providers that connect
// nowhere (builtin, none). The vault checks it, not URL, so a shared
// `provider: openai` without a url cannot reach api.openai.com unseen.
func (c EmbedderConfig) Server() string {
	switch c.Provider {
	case "openai", "ollama":
	default:
		return ""
	}
	if u := strings.TrimSpace(c.URL); u != "" {
		return u
	}
	if c.Provider == "openai" {
		return defaultOpenAIURL
	}
	return defaultOllamaURL
}

// IsLoopbackURL reports whether raw is an http(s) URL whose host is this
// machine by name or address: localhost, 127.0.0.0/8 or ::1. A host that
// only resolves to one (127.0.0.1.example.com) is not: what a name
// resolves to is up to whoever controls its DNS.
func IsLoopbackURL(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
