package vault

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/vault/indexing"
)

// pathological are the notes (each under MaxNoteBytes), keyed by
// file name; each holds the ordinary word "marker<name>" to be found by.
func pathological() map[string]string {
	y := func(n int) string { return strings.Repeat("y", n) }
	notes := map[string]string{
		// One 1 MiB word: minutes in Bleve's French stemmer before.
		"word": "# Huge word\n\nmarkerword\n\n" + y(MaxNoteBytes-64),
		// A 500 KB key: not YAML, so the whole file is the body.
		"key": "---\n" + y(500<<10) + ": v\n---\n# Huge key\n\nmarkerkey\n",
		// 500 KB in a title, an alias and a tag at once.
		"fields": "---\naliases: [" + y(500<<10) + "]\ntags: [" + y(200<<10) + "]\n---\n# " + y(300<<10) + "\n\nmarkerfields\n",
	}
	var b strings.Builder
	b.WriteString("# Many links\n\nmarkerlinks\n\n")
	for i := 0; i < 100000; i++ {
		fmt.Fprintf(&b, "[[n%d]] ", i%1000)
	}
	notes["links"] = b.String()
	b.Reset()
	b.WriteString("# Many headings\n\nmarkerheadings\n\n")
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&b, "## Heading %d\n\nword %d\n\n", i, i)
	}
	notes["headings"] = b.String()
	notes["nesting"] = "---\nk: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n---\n# Deep nesting\n\nmarkernesting\n\n" +
		strings.Repeat(">", 100000) + " quote\n\n" + strings.Repeat("- ", 100000) + "list\n\n" + strings.Repeat("[", 100000) + "\n"
	return notes
}

// writeByHand writes notes into the vault as an editor would, and lets
// the vault see them.
func writeByHand(t testing.TB, v *Vault, dir string, notes map[string]string) {
	t.Helper()
	for name, text := range notes {
		if err := os.WriteFile(filepath.Join(dir, "acme", name+".md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := v.rescan(); err != nil {
		t.Fatal(err)
	}
	// What a search would do first: long notes go to the lane now, not
	// whenever the background update comes.
	if v.index.Current() != nil {
		if err := v.index.Sync(false); err != nil {
			t.Fatal(err)
		}
	}
}

// waitLaneT waits for the lane of long notes, failing the test if it has
// not finished in a long while (a hang check, not a timing).
func waitLaneT(t testing.TB, v *Vault) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		v.index.WaitLane()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("long notes not indexed in 5 minutes")
	}
}

// found says whether a lexical search for q finds path (a semantic list
// would find every note).
func found(t testing.TB, v *Vault, q, path string) bool {
	t.Helper()
	return slices.Contains(resultPaths(searchT(t, v, owner, SearchArgs{Query: q, Mode: "lexical", Limit: 50})), path)
}

// holdLane makes the lane stop before each note until the test sends on
// release; however the test ends, the lane is let go (Close waits for it).
func holdLane(t *testing.T, v *Vault) (held chan string, release chan struct{}) {
	held, release = make(chan string, 16), make(chan struct{}, 16)
	indexing.TestHooks.Lane = func(p string) {
		held <- p
		<-release
	}
	t.Cleanup(func() {
		close(release)
		v.index.WaitLane()
		indexing.TestHooks.Lane = nil
	})
	return held, release
}

// heldT waits for the lane to stop at the hook, failing the test after a
// long while (a hang check).
func heldT(t *testing.T, held chan string) string {
	t.Helper()
	select {
	case p := <-held:
		return p
	case <-time.After(60 * time.Second):
		t.Fatal("the lane never reached the note")
		return ""
	}
}

// Each of the notes is indexed and found by an ordinary word it
// holds; meanwhile the rest of the vault is searched as before, and a
// short note written after them is found at once.
func TestPathologicalNotesAreIndexedAndOthersStaySearchable(t *testing.T) {
	v, dir := sampleVault(t)
	waitVectors(t, v)
	writeByHand(t, v, dir, pathological())
	if r := searchT(t, v, owner, SearchArgs{Query: "which CDN provider did we choose"}); len(r.Results) == 0 || r.Results[0].Title != "Decision CDN provider" {
		t.Fatalf("the rest of the vault, meanwhile: %v", resultPaths(r))
	}
	if err := os.WriteFile(filepath.Join(dir, "acme", "short.md"), []byte("# Short\n\nmarkershort\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v.rescan()
	if !found(t, v, "markershort", "acme/short.md") {
		t.Fatal("a short note written after the long ones must be found at once")
	}
	waitLaneT(t, v)
	for name := range pathological() {
		if !found(t, v, "marker"+name, "acme/"+name+".md") {
			t.Errorf("%s: not found by its word", name)
		}
	}
	if r := searchT(t, v, owner, SearchArgs{Query: strings.Repeat("y", 200)}); !slices.Contains(resultPaths(r), "acme/word.md") {
		t.Errorf("the 1 MiB word is not found by its start: %v", resultPaths(r))
	}
	// Recall over the same notes: families_test.go, TestRecallOverPathologicalNotes.
}

// While the lane indexes a long note, searches and short notes' updates
// do not wait for it: the test holds the lane before it reads the note,
// and everything else must still finish.
func TestSearchesDoNotWaitForALongNote(t *testing.T) {
	v, dir := sampleVault(t)
	v.SearchIndex()
	held, release := holdLane(t, v)
	writeByHand(t, v, dir, map[string]string{"long": "# Long\n\nmarkerlong\n\n" + strings.Repeat("papaya words ", 20000)})
	if p := heldT(t, held); p != "acme/long.md" {
		t.Fatalf("the lane holds %s", p)
	}
	done := make(chan error, 1)
	go func() {
		done <- func() error {
			os.WriteFile(filepath.Join(dir, "acme", "short.md"), []byte("# Short\n\nmarkershort\n"), 0o644)
			if err := v.rescan(); err != nil {
				return err
			}
			r, err := v.Search(t.Context(), owner, SearchArgs{Query: "markershort", Mode: "lexical"})
			if err != nil || len(r.Results) != 1 || r.Results[0].Path != "acme/short.md" || r.IndexPending != 1 {
				return fmt.Errorf("with the long note held: %+v, %v", r, err)
			}
			r, err = v.Search(t.Context(), sam, SearchArgs{Query: "markershort"})
			if err != nil || r.IndexPending != 0 {
				return fmt.Errorf("sam, who cannot read acme, is told of pending notes: %+v, %v", r, err)
			}
			return nil
		}()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("a search or a short note's update waited for the long note")
	}
	release <- struct{}{}
	waitLaneT(t, v)
	r := searchT(t, v, owner, SearchArgs{Query: "markerlong", Mode: "lexical"})
	if len(r.Results) != 1 || r.Results[0].Path != "acme/long.md" || r.IndexPending != 0 {
		t.Fatalf("once indexed: %v, %d pending", resultPaths(r), r.IndexPending)
	}
}

// A long note edited while the lane indexes it is indexed again, last
// version last; deleted, it leaves the index.
func TestLongNoteUpdatesKeepTheirOrder(t *testing.T) {
	v, dir := sampleVault(t)
	v.SearchIndex()
	held, release := holdLane(t, v)
	long := func(word string) map[string]string {
		return map[string]string{"long": "# Long\n\n" + word + "\n\n" + strings.Repeat("filler words ", 10000)}
	}
	writeByHand(t, v, dir, long("firstversion"))
	heldT(t, held) // the lane has read the first version
	// Shorter now, yet the lane holds the note: the new version goes
	// through the lane, after the first, instead of being overtaken by it.
	writeByHand(t, v, dir, map[string]string{"long": "# Long\n\nsecondversion\n"})
	release <- struct{}{}
	heldT(t, held) // the second version
	release <- struct{}{}
	waitLaneT(t, v)
	if found(t, v, "firstversion", "acme/long.md") || !found(t, v, "secondversion", "acme/long.md") {
		t.Fatal("the note's last version must win")
	}
	for i := 0; i < 4; i++ {
		release <- struct{}{} // let the rest through
	}
	writeByHand(t, v, dir, long("thirdversion"))
	waitLaneT(t, v)
	if !found(t, v, "thirdversion", "acme/long.md") {
		t.Fatal("long again: not indexed")
	}
	os.Remove(filepath.Join(dir, "acme", "long.md"))
	v.rescan()
	waitLaneT(t, v)
	searchT(t, v, owner, SearchArgs{Query: "thirdversion"})
	waitLaneT(t, v)
	if found(t, v, "thirdversion", "acme/long.md") {
		t.Fatal("a deleted long note is still found")
	}
}

// Close waits for the note the lane is indexing, not for the ones queued
// after it; the next start indexes those, and serves searches.
func TestCloseStopsTheLaneAndTheNextStartFinishes(t *testing.T) {
	v, dir := sampleVault(t)
	v.SearchIndex()
	held, release := holdLane(t, v)
	notes := map[string]string{}
	for i := 0; i < 3; i++ {
		notes[fmt.Sprintf("long%d", i)] = fmt.Sprintf("# Long %d\n\nmarkerlong%d\n\n%s", i, i, strings.Repeat("kiwi words ", 10000))
	}
	writeByHand(t, v, dir, notes)
	heldT(t, held)
	closed := make(chan error, 1)
	go func() { closed <- v.Close() }()
	for !v.index.Stopping() {
		time.Sleep(time.Millisecond) // Close has begun; the lane is still held
	}
	release <- struct{}{}
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Close waited for the queued long notes")
	}
	for i := 0; i < 16; i++ {
		release <- struct{}{} // the next start's lane is not held
	}
	v, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	v.SearchIndex()
	waitLaneT(t, v)
	for i := 0; i < 3; i++ {
		if !found(t, v, fmt.Sprintf("markerlong%d", i), fmt.Sprintf("acme/long%d.md", i)) {
			t.Errorf("long%d not indexed after the restart", i)
		}
	}
}
