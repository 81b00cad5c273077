package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn/search"
	"gopkg.in/yaml.v3"
)

// Config is .cairn/config.yaml, the vault's committed settings.
type Config struct {
	Format   int                   `yaml:"format"`
	Language string                `yaml:"language"`
	Embedder search.EmbedderConfig `yaml:"embedder"`
}

// LoadConfig reads the vault's settings. A missing file is the defaults;
// an unknown key or a bad value is an error naming it.
func LoadConfig(root string) (Config, error) {
	var c Config
	data, err := os.ReadFile(filepath.Join(root, ConfigFile))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) /* an empty file */ {
		return Config{}, fmt.Errorf("%s: %w", ConfigFile, err)
	}
	switch c.Embedder.Provider {
	case "", "builtin", "none", "off", "openai", "ollama":
	default:
		return Config{}, fmt.Errorf("%s: embedder.provider: unknown provider %q (builtin, openai, ollama or none)", ConfigFile, c.Embedder.Provider)
	}
	if c.Embedder.Dimensions < 0 {
		return Config{}, fmt.Errorf("%s: embedder.dimensions: must be positive", ConfigFile)
	}
	return c, nil
}
