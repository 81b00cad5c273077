package search

import (
	"context"
	"fmt"
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

// EmbedderConfig is the `embedder:` section of .cairn/config.yaml.
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
