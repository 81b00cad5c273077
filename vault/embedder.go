package vault

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/access"
	"gopkg.in/yaml.v3"
)

// EmbedderChoice is the embedder settings in force on this machine, and
// where they come from.
type EmbedderChoice struct {
	Config search.EmbedderConfig
	// From is the file the settings come from: LocalFile, ConfigFile, or
	// "" when neither has an embedder section (the builtin vectors).
	From string
	// Refused says why config.yaml's section was set aside for the builtin
	// vectors ("" when it was not): said on stderr and by cairn doctor.
	Refused string
}

// ChooseEmbedder decides which embedder settings this machine uses.
//
// Where note text is sent and which secret goes with it are this
// machine's choices: .cairn/config.yaml is shared, and whoever can push
// to the vault's remote can change it on every clone that syncs. Named
// there, apiKeyEnv would let them point every member's embedder at a
// host of theirs and receive any environment variable (CAIRN_GIT_TOKEN,
// a cloud key) as the bearer token. So:
//
//   - an `embedder:` section in .cairn/local.yaml (never committed) wins
//     whole over config.yaml's;
//   - config.yaml's section is used only when it names no apiKeyEnv and
//     its server (url, or the provider's default) is a loopback address:
//     a local Ollama keeps working for every member that runs one;
//   - otherwise config.yaml's section is set aside whole, semantic search
//     uses the builtin vectors, and Refused says why and what to move
//     where. It is not an error: search goes on, with the builtin
//     vectors.
//
// An error (a section that cannot be read) names the file and the key;
// From says which file it is about.
func ChooseEmbedder(root string) (EmbedderChoice, error) {
	local, err := loadLocalEmbedder(root)
	if err != nil {
		return EmbedderChoice{From: LocalFile}, err
	}
	if local != nil {
		return EmbedderChoice{Config: *local, From: LocalFile}, nil
	}
	cfg, err := LoadConfig(root)
	if err != nil {
		return EmbedderChoice{From: ConfigFile}, err
	}
	ch := EmbedderChoice{Config: cfg.Embedder}
	if cfg.Embedder != (search.EmbedderConfig{}) {
		ch.From = ConfigFile
	}
	if why := sharedEmbedderProblems(cfg.Embedder); len(why) > 0 {
		ch.Refused = fmt.Sprintf("%s: embedder: %s; semantic search uses the builtin vectors instead. To use that server on this machine, move the embedder section (url, apiKeyEnv) into %s, this machine's own settings, never committed",
			ConfigFile, strings.Join(why, "; "), LocalFile)
		ch.Config = search.EmbedderConfig{Provider: "builtin"}
	}
	return ch, nil
}

// sharedEmbedderProblems lists what in a shared embedder section this
// machine does not take from it.
func sharedEmbedderProblems(c search.EmbedderConfig) []string {
	var why []string
	if c.APIKeyEnv != "" {
		why = append(why, fmt.Sprintf("apiKeyEnv %s is never taken from the shared file (whoever can push would choose which of this machine's environment variables is sent, and where)", c.APIKeyEnv))
	}
	if s := c.Server(); s != "" && !search.IsLoopbackURL(s) {
		what := "url " + redactURL(s)
		if strings.TrimSpace(c.URL) == "" {
			what = "provider " + c.Provider + " without a url sends to " + redactURL(s) + ", which"
		}
		why = append(why, what+" is not this machine (from the shared file only a loopback url is taken: 127.0.0.1, localhost, [::1])")
	}
	return why
}

// loadLocalEmbedder reads the embedder section of .cairn/local.yaml (nil
// when the file or the section is absent, or the section is empty). Each
// error names the file and the key; an unknown key is refused: a
// misspelt apiKeyEnv would otherwise send no key without a word.
func loadLocalEmbedder(root string) (*search.EmbedderConfig, error) {
	data, err := os.ReadFile(filepath.Join(root, LocalFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", LocalFile, err)
	}
	var l access.Local // the rest of the file is loadLocal's to check
	if err := yaml.Unmarshal(data, &l); err != nil {
		return nil, fmt.Errorf("%s: %s", LocalFile, yamlMessage(err))
	}
	n := l.Embedder
	if n.Kind == 0 || n.Tag == "!!null" {
		return nil, nil
	}
	c, err := decodeEmbedderSection(n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", LocalFile, err)
	}
	if err := checkEmbedderSection(LocalFile, c); err != nil {
		return nil, err
	}
	return &c, nil
}

// decodeEmbedderSection decodes a section key by key, so an error names
// the key (yaml's own type errors name only a line and a Go type).
func decodeEmbedderSection(n yaml.Node) (search.EmbedderConfig, error) {
	var c search.EmbedderConfig
	fields := map[string]any{}
	var names []string
	rv := reflect.ValueOf(&c).Elem()
	for i := range rv.NumField() {
		name, _, _ := strings.Cut(rv.Type().Field(i).Tag.Get("yaml"), ",")
		fields[name] = rv.Field(i).Addr().Interface()
		names = append(names, name)
	}
	if n.Kind != yaml.MappingNode {
		return c, fmt.Errorf("embedder: line %d: a section of settings (%s), not %s", n.Line, strings.Join(names, ", "), n.Tag)
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		dst, ok := fields[k.Value]
		switch {
		case !ok:
			return c, fmt.Errorf("embedder.%s: line %d: unknown key (%s)", k.Value, k.Line, strings.Join(names, ", "))
		case seen[k.Value]:
			return c, fmt.Errorf("embedder.%s: line %d: given twice", k.Value, k.Line)
		}
		seen[k.Value] = true
		if err := v.Decode(dst); err != nil {
			return c, fmt.Errorf("embedder.%s: %s", k.Value, yamlMessage(err))
		}
	}
	return c, nil
}

// checkEmbedderSection checks what can be checked without making the
// embedder (which reads the key variable); NewEmbedder checks the rest.
func checkEmbedderSection(file string, c search.EmbedderConfig) error {
	switch c.Provider {
	case "", "builtin", "none", "off", "openai", "ollama":
	default:
		return fmt.Errorf("%s: embedder.provider: unknown provider %q (builtin, openai, ollama or none)", file, c.Provider)
	}
	if c.Dimensions < 0 {
		return fmt.Errorf("%s: embedder.dimensions: %d is negative (0: what the model gives)", file, c.Dimensions)
	}
	return nil
}

// Open makes the chosen embedder (nil for provider none); an error names
// the file the settings come from.
func (ch EmbedderChoice) Open() (search.Embedder, error) {
	e, err := search.NewEmbedder(ch.Config)
	if err != nil && ch.From != "" {
		return nil, fmt.Errorf("%s: %w", ch.From, err)
	}
	return e, err
}

// String says which embedder it is, its server and the file that chose
// it, for cairn doctor.
func (ch EmbedderChoice) String() string {
	p := ch.Config.Provider
	if p == "" {
		p = "builtin"
	}
	if s := ch.Config.Server(); s != "" {
		p += " at " + redactURL(s)
	}
	if ch.Refused == "" && ch.From != "" {
		p += " (" + ch.From + ")"
	}
	return p
}

// redactURL hides a password in a URL, for messages.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

// yamlMessage flattens yaml's multi-line "unmarshal errors" into one line.
func yamlMessage(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return err.Error()
}
