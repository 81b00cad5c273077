package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/testwait"
	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault/indexing"
)

// A vault whose server was killed: its search index is on disk as Bleve
// last wrote it, beside a manifest saved earlier (Bleve ahead) or later
// (Bleve behind, its last batches lost). The next start reconciles the
// two instead of rebuilding, and once its sync is done the index answers
// as a fresh build of the same notes does: every note found by its
// latest text, in its own text and in its sequence neighbours' context,
// no deleted note, no old text.
func TestKilledServersIndexIsReconciled(t *testing.T) {
	for _, side := range []string{"bleve ahead", "bleve behind"} {
		t.Run(side, func(t *testing.T) {
			v, dir := sampleVault(t)
			idx := v.index.Dir()
			q := createT(t, v, "chat", "# Turn 1\n\nWhere is the bakery? markerquestionone\n", nil)
			a := createT(t, v, "chat", "# Turn 2\n\nNear the station. markeranswerone\n", []LinkSpec{{Type: "follows", To: q.Path}})
			doomed := createT(t, v, "tmp", "# Doomed\n\nmarkerdoomed\n", nil)
			kept := createT(t, v, "tmp", "# Kept\n\nmarkerkeptone\n", nil)
			waitVectors(t, v)
			saved := t.TempDir()
			switch side {
			case "bleve ahead":
				if err := v.Persist(); err != nil {
					t.Fatal(err)
				}
				copyFiles(t, idx, saved, "manifest.json", "vectors.bin")
			case "bleve behind":
				if err := v.Close(); err != nil {
					t.Fatal(err)
				}
				replaceTree(t, filepath.Join(idx, "bleve"), filepath.Join(saved, "bleve"))
				v = reopen(t, dir)
			}

			// What the crash loses from one side.
			edit(t, v, q.Path, "# Turn 1\n\nWhere is the bakery now? markerquestiontwo\n")
			edit(t, v, kept.Path, "# Kept\n\nmarkerkepttwo\n")
			edit(t, v, kept.Path, "# Kept\n\nmarkerkeptthree\n")
			if _, err := v.DeleteNote(owner, doomed.Path, ""); err != nil {
				t.Fatal(err)
			}
			born := createT(t, v, "tmp", "# Born\n\nmarkerborn\n", nil)
			searchT(t, v, owner, SearchArgs{Query: "markerborn"}) // indexed before the crash
			waitVectors(t, v)
			if err := v.Close(); err != nil {
				t.Fatal(err)
			}
			switch side {
			case "bleve ahead":
				copyFiles(t, saved, idx, "manifest.json", "vectors.bin")
			case "bleve behind":
				replaceTree(t, filepath.Join(saved, "bleve"), filepath.Join(idx, "bleve"))
			}

			v = reopen(t, dir)
			ix, err := v.SearchIndex()
			if err != nil {
				t.Fatal(err)
			}
			if ix.Rebuilt() != "" || ix.Reconciled() == 0 {
				t.Fatalf("rebuilt %q, reconciled %d", ix.Rebuilt(), ix.Reconciled())
			}
			for word, want := range map[string][]string{
				"markerquestionone": nil,
				"markerquestiontwo": {q.Path, a.Path}, // the answer's context holds the question
				"markeranswerone":   {q.Path, a.Path},
				"markerdoomed":      nil,
				"markerkeptone":     nil,
				"markerkepttwo":     nil,
				"markerkeptthree":   {kept.Path},
				"markerborn":        {born.Path},
			} {
				got := lexicalHits(t, v, word)
				if strings.Join(got, ",") != strings.Join(want, ",") {
					t.Errorf("%s: found in %v, want %v", word, got, want)
				}
			}
			before := answers(t, v)
			if err := v.Rebuild(nil); err != nil {
				t.Fatal(err)
			}
			if after := answers(t, v); after != before {
				t.Errorf("the reconciled index and a fresh build answer differently (-reconciled +fresh):\n%s", diffLines(before, after))
			}
		})
	}
}

func reopen(t *testing.T, dir string) *Vault {
	t.Helper()
	v, err := Open(dir, Options{Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func edit(t *testing.T, v *Vault, path, body string) {
	t.Helper()
	n, err := v.GetNote(owner, path, false, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.EditNote(owner, EditArgs{Ref: path, VersionToken: n.VersionToken, Operation: OpReplace, Content: str(body)}); err != nil {
		t.Fatal(err)
	}
}

// lexicalHits are the notes whose own text or context holds q (not those
// a neighbour's share brought), in path order.
func lexicalHits(t *testing.T, v *Vault, q string) []string {
	t.Helper()
	var out []string
	for _, h := range searchT(t, v, owner, SearchArgs{Query: q, Mode: "lexical", Limit: 50, Explain: true}).Results {
		if h.Lexical != nil {
			out = append(out, h.Path)
		}
	}
	sort.Strings(out)
	return out
}

// answers are, for a few queries, the notes each list finds (with their
// scores in the semantic list: the cosine of their best chunk), and the
// index's record of every note (version, sequence neighbours). BM25
// scores are not compared: Bleve's field statistics are sums over its
// segments, which differ between any two indexes of the same notes (the
// search package compares Bleve's postings instead).
func answers(t *testing.T, v *Vault) string {
	t.Helper()
	ix, err := v.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if !ix.WaitVectors(time.Minute) {
		t.Fatal("vectors not made in a minute")
	}
	scopes, err := v.readableScopes(owner, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	words := []string{"bakery station", "rollback deploy", "pricing launch plan", "CDN provider"}
	for _, w := range []string{"questionone", "questiontwo", "answerone", "doomed", "keptone", "kepttwo", "keptthree", "born"} {
		words = append(words, "marker"+w)
	}
	for _, q := range words {
		for _, m := range []search.Mode{search.Lexical, search.Semantic} {
			r, err := ix.Search(context.Background(), search.Query{Text: q, Mode: m, Limit: 100, Filter: search.Filter{Scopes: scopes}})
			if err != nil {
				t.Fatal(err)
			}
			var hits []string
			for _, h := range r.Hits {
				switch {
				case m == search.Lexical && h.Lexical != nil:
					hits = append(hits, h.Path)
				case m == search.Semantic && h.Semantic != nil:
					hits = append(hits, fmt.Sprintf("%s %.9g", h.Path, h.Semantic.Score))
				}
			}
			sort.Strings(hits)
			fmt.Fprintf(&b, "\n%s %q: %s", m, q, strings.Join(hits, "; "))
		}
	}
	vers := ix.Versions()
	paths := make([]string, 0, len(vers))
	for p := range vers {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(&b, "\n%s %s %v", p, vers[p], ix.Sequence(p))
	}
	return b.String()
}

// diffLines are the lines of a and b that the other lacks.
func diffLines(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out []string
	for l := range ina {
		if !inb[l] {
			out = append(out, "- "+l)
		}
	}
	for l := range inb {
		if !ina[l] {
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, n), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// replaceTree puts a copy of the folder from in place of to.
func replaceTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.RemoveAll(to); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

// A long note whose context the lane had not refreshed when the vault
// closed (a neighbour changed; the lane was busy with another long note)
// is indexed again at the next start: its manifest entry was marked when
// the neighbour changed. It used to wait for its own next change.
func TestLongNeighbourLeftInTheLaneIsRefreshedAtTheNextStart(t *testing.T) {
	v, dir := sampleVault(t)
	v.SearchIndex()
	filler := strings.Repeat("mango words ", 10000)
	writeByHand(t, v, dir, map[string]string{"question": "# Turn 1\n\nWhich bakery?\n\n" + filler})
	waitLaneT(t, v)
	reply := createT(t, v, "chat", "# Turn 2\n\nMaison Dufour. markerreplyone\n", []LinkSpec{{Type: "follows", To: "acme/question.md"}})
	searchT(t, v, owner, SearchArgs{Query: "markerreplyone"}) // the question joins the lane
	waitLaneT(t, v)
	if got := lexicalHits(t, v, "markerreplyone"); strings.Join(got, ",") != "acme/chat/Turn 2.md,acme/question.md" {
		t.Fatalf("before: %v", got)
	}
	held, release := holdLane(t, v)
	writeByHand(t, v, dir, map[string]string{"aaa": "# Another long note\n\n" + filler}) // before the question in the lane
	if p := heldT(t, held); p != "acme/aaa.md" {
		t.Fatalf("the lane holds %s", p)
	}
	edit(t, v, reply.Path, "# Turn 2\n\nMaison Dufour. markerreplytwo\n")
	searchT(t, v, owner, SearchArgs{Query: "markerreplytwo"}) // the question joins the lane's queue
	closed := make(chan error, 1)
	go func() { closed <- v.Close() }()
	for !v.index.Stopping() {
		time.Sleep(time.Millisecond) // Close has begun: the lane stops after its note
	}
	release <- struct{}{}
	if err := within(t, closed, "Close"); err != nil {
		t.Fatal(err)
	}
	indexing.TestHooks.Lane = nil // the lane of the vault opened next is not held

	v = reopen(t, dir)
	ix, err := v.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if ix.Rebuilt() != "" || ix.Reconciled() == 0 {
		t.Fatalf("rebuilt %q, reconciled %d", ix.Rebuilt(), ix.Reconciled())
	}
	waitLaneT(t, v)
	if got := lexicalHits(t, v, "markerreplytwo"); strings.Join(got, ",") != "acme/chat/Turn 2.md,acme/question.md" {
		t.Errorf("the question's context after the restart: %v", got)
	}
	if got := lexicalHits(t, v, "markerreplyone"); len(got) != 0 {
		t.Errorf("the reply's old text is still found: %v", got)
	}
}

// An index built from scratch has its manifest on disk once built, not
// only at Close: a process killed before Close leaves an index the next one
// brings up to date instead of building it again. The save follows the
// index's readiness (searches waiting go first), so the test waits for it.
func TestAFreshIndexIsSavedOnceBuilt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault")
	if _, err := Init(dir, InitOptions{From: "../sample-vault"}); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir, Options{Exclusive: true, Quiet: testQuiet})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	manifest := filepath.Join(dir, CacheDir, "search", "manifest.json")
	if _, err := os.Stat(manifest); err == nil {
		t.Fatal("a manifest before any index was built")
	}
	if _, err := v.SearchIndex(); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "the freshly built index's manifest on disk", func() bool {
		_, err := os.Stat(manifest)
		return err == nil
	})
}
