package treaisure

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/vaulttest"
	"github.com/cairn-dev/cairn/vault/access"
)

// TestTheSeedsOwnExampleIsAnswered: the TreAIsure reference's two
// examples, the capture "Nous lançons d'abord auprès de vingt clients
// pilotes." and the question "Qu'avais-je décidé pour le lancement ?":
// the thought comes first, at level direct, for that question, for it
// typed without accents, and for it with another inflection of the verb,
// among other thoughts of the professional space that share no word of
// it.
func TestTheSeedsOwnExampleIsAnswered(t *testing.T) {
	v, _ := vaulttest.Sample(t)
	me := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "agent", Tool: "treaisure_capture_thought"}
	seed := "Nous lançons d'abord auprès de vingt clients pilotes."
	for _, text := range []string{
		"Le budget marketing du trimestre est fixé à quarante mille euros.",
		"Réunion avec l'équipe produit jeudi matin pour revoir la feuille de route.",
		seed,
		"Nous avons choisi Postgres comme base de données principale.",
		"Penser à renouveler le contrat du prestataire d'hébergement avant juin.",
	} {
		if _, err := Of(v).Capture(me, CaptureArgs{Text: text, Space: "professional", Kind: "thought", Confirmed: true}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		"Qu'avais-je décidé pour le lancement ?",
		"Qu'avais-je decide pour le lancement ?",
		"Qu'avais-je décidé pour lancer ?",
		"Qu'avais-je décidé quand nous avons lancé ?",
		"Comment lançons-nous ?",
	} {
		d, err := Of(v).Search(context.Background(), me, q, "professional", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Items) == 0 || d.Items[0].Excerpt == "" || d.Items[0].Level != LevelDirect {
			t.Errorf("%q: %+v", q, d.Items)
			continue
		}
		n, err := v.GetNote(me, d.Items[0].Path, false, "")
		if err != nil || !strings.Contains(n.Content, seed) {
			t.Errorf("%q: the first item is %s, not the seed's thought", q, d.Items[0].Path)
		}
	}
}
