package doctor

import (
	"fmt"

	"github.com/cairn-dev/cairn/vault"
)

// embedderFinding is cairn doctor's word on the embedder; none when the
// config file cannot be read at all, which is reported as such.
func embedderFinding(root string) *Finding {
	ch, err := vault.ChooseEmbedder(root)
	switch {
	case err != nil && ch.From == vault.ConfigFile:
		return nil
	case err != nil:
		return &Finding{Level: "problem", Check: "embedder", Message: fmt.Sprintf("%v (semantic search is off until it is fixed)", err)}
	case ch.Refused != "":
		return &Finding{Level: "problem", Check: "embedder", Message: ch.Refused}
	}
	if _, err := ch.Open(); err != nil {
		return &Finding{Level: "problem", Check: "embedder", Message: fmt.Sprintf("%v (semantic search is off until it is fixed)", err)}
	}
	return &Finding{Level: "ok", Check: "embedder", Message: ch.String()}
}
