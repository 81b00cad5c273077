package access

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"gopkg.in/yaml.v3"
)

// LocalFile is this machine's settings, relative to the vault: never
// committed (Local).
const LocalFile = ".cairn/local.yaml"

// Local is .cairn/local.yaml: this machine's settings, never committed
// (git ignores the file). A team shares one access file, whose owner is
// one person; each member's clone names its own owner here, so every
// machine serves its person as the owner without a commit that would
// collide with the other members' settings.
//
// It also holds where this machine's embedder sends note text and which
// environment variable's value it sends as a key: choices each machine
// makes for itself, since the shared config.yaml may not make them
// (ChooseEmbedder). The section is read by ChooseEmbedder, which checks
// it; here it is only kept, so a mistake in it turns semantic search off
// (said by every search and by doctor) rather than stopping the vault.
type Local struct {
	Owner    string    `yaml:"owner,omitempty"`    // overrides the access file's owner on this machine
	Embedder yaml.Node `yaml:"embedder,omitempty"` // this machine's embedder (ChooseEmbedder), wins whole over config.yaml's
}

// Marshal renders the local settings with a header comment for people.
func (l *Local) Marshal() ([]byte, error) {
	body, err := yaml.Marshal(l)
	if err != nil {
		return nil, err
	}
	head := "# This machine's cairn settings: never committed (git ignores this file).\n" +
		"# owner: the principal served as the vault owner here, instead of .cairn/access.yaml's.\n" +
		"# embedder: this machine's embedding server and key variable, instead of .cairn/config.yaml's.\n"
	return append([]byte(head), body...), nil
}

// ParseLocal reads the content of a local settings file, checked. A key
// cairn does not know is refused rather than ignored: a misspelt owner
// would otherwise serve the wrong principal without a word.
func ParseLocal(data []byte) (*Local, error) {
	var l Local
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&l); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", LocalFile, err)
	}
	if l.Owner != "" {
		if err := ValidPrincipal(l.Owner); err != nil {
			return nil, fmt.Errorf("%s: owner: %w", LocalFile, err)
		}
	}
	return &l, nil
}
