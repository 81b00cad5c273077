package vault

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Through the vault: a French note is found by its words typed without
// accents (and its accent-less words by accented queries), a French
// question by its subject; and a vault whose index was built by the
// previous analysis (the manifest format before this one) builds it again on open, never
// mixing the two, and finds the same notes.
func TestSearchFoldsAccentsAndRebuildsAnOldIndex(t *testing.T) {
	v, dir := sampleVault(t)
	fete := createT(t, v, "fetes", "# Repas de fête\n\nLe repas de Noël : œufs brouillés, galettes de maïs et un gâteau au cœur fondant. Prochain repas en août.\n", nil)
	plain := createT(t, v, "fetes", "# Pique-nique\n\nPique-nique pres du lac : pates froides et pain de mie.\n", nil)
	cases := map[string]string{
		"noel": fete.Path, "OEUFS": fete.Path, "coeur": fete.Path, "aout": fete.Path,
		"galettes de mais": fete.Path, "gâteau": fete.Path,
		"près du lac": plain.Path, "pâtes": plain.Path,
		"qu'est-ce qu'on mange à Noël ?": fete.Path,
	}
	check := func(v *Vault) {
		t.Helper()
		for q, want := range cases {
			r := searchT(t, v, owner, SearchArgs{Query: q, Mode: "lexical"})
			if got := resultPaths(r); len(got) == 0 || got[0] != want {
				t.Errorf("%q: got %v, want %s first", q, got, want)
			}
		}
	}
	check(v)
	v.Close()

	manifest := filepath.Join(dir, CacheDir, "search", "manifest.json")
	data := readFile(t, manifest)
	// The format now, whatever it is, and the one before it.
	var m struct {
		Format int `json:"format"`
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil || m.Format < 2 {
		t.Fatalf("manifest: %.80s (%v)", data, err)
	}
	now, before := fmt.Sprintf(`"format":%d`, m.Format), fmt.Sprintf(`"format":%d`, m.Format-1)
	if err := os.WriteFile(manifest, []byte(strings.Replace(data, now, before, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	v2, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v2.Close()
	ix, err := v2.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ix.Rebuilt(), fmt.Sprintf("format %d", m.Format-1)) {
		t.Fatalf("an index of the previous analysis must be rebuilt, got %q", ix.Rebuilt())
	}
	check(v2)
	if r := searchT(t, v2, owner, SearchArgs{Query: "cafe", Mode: "lexical"}); !slices.Contains(resultPaths(r), "acme/handbook/Guide d'accueil.md") {
		t.Errorf("cafe: got %v", resultPaths(r))
	}
}
