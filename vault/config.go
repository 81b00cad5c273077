package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/search"
	"gopkg.in/yaml.v3"
)

// Config is .cairn/config.yaml, the vault's committed settings. They are
// shared with every clone and arrive by sync, so nothing here may make a
// machine send its secrets or the notes elsewhere: Embedder is used only
// within the limits ChooseEmbedder sets, and Sync.Remote is a remote's
// name, never a URL.
type Config struct {
	Format   int                   `yaml:"format"`
	Language string                `yaml:"language"`
	Embedder search.EmbedderConfig `yaml:"embedder"`
	Sync     SyncConfig            `yaml:"sync"`
}

// SyncConfig is the `sync:` section: background syncing through a git
// remote by `cairn serve` (docs/sync.md, "Syncing in the
// background"). It is committed, so a team sets it once for every clone;
// `cairn serve --sync-every` overrides the period on one machine. Values
// are kept as written and checked by Settings, so a bad one turns
// background sync off (reported) without touching the rest of the file.
type SyncConfig struct {
	Every  string `yaml:"every"`  // a Go duration (30s, 5m); "" or 0: off
	Remote string `yaml:"remote"` // the name of a git remote of each clone (default origin)
	Branch string `yaml:"branch"` // the remote branch (default: the branch each clone has checked out)
}

// SyncSettings are a checked SyncConfig.
type SyncSettings struct {
	Every  time.Duration // 0: off
	Remote string        // "" for the default (origin)
	Branch string        // "" for the default (the checked-out branch)
}

// MinSyncEvery is the shortest background sync period: a sync is a fetch
// and often a push, and a period under a second would only queue them.
const MinSyncEvery = time.Second

// Settings checks the section, each error naming its key.
//
// remote must name a remote configured in the clone (`git remote`), never
// a URL: the file arrives by sync, and a URL in it would let anyone who
// can push send every member's notes elsewhere. Neither value may start
// with "-", which git would read as an option.
func (c SyncConfig) Settings() (SyncSettings, error) {
	var s SyncSettings
	if e := strings.TrimSpace(c.Every); e != "" && e != "0" && e != "off" {
		d, err := time.ParseDuration(e)
		if err != nil {
			return s, fmt.Errorf("%s: sync.every: %q is not a duration (30s, 5m, or 0 for off)", ConfigFile, c.Every)
		}
		if d < 0 {
			return s, fmt.Errorf("%s: sync.every: %s is negative (0 turns background sync off)", ConfigFile, c.Every)
		}
		if d > 0 && d < MinSyncEvery {
			return s, fmt.Errorf("%s: sync.every: %s is under %s", ConfigFile, c.Every, MinSyncEvery)
		}
		s.Every = d
	}
	if err := CheckRemoteName(c.Remote); err != nil {
		return s, fmt.Errorf("%s: sync.remote: %w", ConfigFile, err)
	}
	if err := CheckBranchName(c.Branch); err != nil {
		return s, fmt.Errorf("%s: sync.branch: %w", ConfigFile, err)
	}
	s.Remote, s.Branch = c.Remote, c.Branch
	return s, nil
}

// CheckRemoteName accepts "" (the default) or the name of a git remote:
// letters, digits, and . _ - / (not first), no URL.
func CheckRemoteName(name string) error {
	if name == "" {
		return nil
	}
	if strings.Contains(name, ":") {
		return fmt.Errorf("%q looks like a URL; name a remote of the clone instead (git remote add NAME URL)", name)
	}
	return checkRefPart(name)
}

// CheckBranchName accepts "" (the default) or a plain branch name.
func CheckBranchName(name string) error {
	if name == "" {
		return nil
	}
	if strings.Contains(name, "..") || strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, "/") || strings.Contains(name, "//") {
		return fmt.Errorf("%q is not a branch name", name)
	}
	return checkRefPart(name)
}

func checkRefPart(name string) error {
	if strings.HasPrefix(name, "-") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "/") {
		return fmt.Errorf("%q may not start with %q", name, name[:1])
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/", r)
		if !ok {
			return fmt.Errorf("%q: %q is not allowed (letters, digits and . _ - / only)", name, r)
		}
	}
	return nil
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
	if err := checkEmbedderSection(ConfigFile, c.Embedder); err != nil {
		return Config{}, err
	}
	return c, nil
}
