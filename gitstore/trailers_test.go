package gitstore

import (
	"strings"
	"testing"
)

func TestParseTrailersKeepsEveryValueOfARepeatedKey(t *testing.T) {
	got := ParseTrailers("Sync: merge abc\n\nCairn-Tool: cairn sync\nCairn-Conflict: a.md\nCairn-Conflict: b/c d.md\n")
	if got["Cairn-Tool"] != "cairn sync" || got["Cairn-Conflict"] != "a.md\nb/c d.md" {
		t.Fatalf("trailers: %q", got)
	}
	if got := ParseTrailers("subject\n\nnot a trailer line\nKey: v\n"); got != nil {
		t.Fatalf("a last paragraph that is not all trailers: %q", got)
	}
}

// A merge made with git names both parents, in order, whether the store
// reads it (CommitInfo, Walk) or made the commit before it itself.
func TestCommitInfoNamesTheParents(t *testing.T) {
	s, dir := newStore(t)
	first := commit(t, s, "first", Change{Path: "a.md", Content: []byte("a\n")})
	second := commit(t, s, "second", Change{Path: "b.md", Content: []byte("b\n")})
	info, err := s.CommitInfo(second)
	if err != nil || len(info.Parents) != 1 || info.Parents[0] != first {
		t.Fatalf("CommitInfo(second): %+v %v", info, err)
	}
	var walked []CommitInfo
	s.Walk(10, func(ci CommitInfo, _ []FileChange) bool { walked = append(walked, ci); return true })
	if len(walked) != 2 || strings.Join(walked[0].Parents, ",") != first || len(walked[1].Parents) != 0 {
		t.Fatalf("walked: %+v", walked)
	}
	tree := runGit(t, dir, "rev-parse", second+"^{tree}")
	merge := runGit(t, dir, "commit-tree", tree, "-p", second, "-p", first, "-m", "Sync: merge\n\nCairn-Conflict: a.md\nCairn-Conflict: b.md")
	info, err = s.CommitInfo(merge)
	if err != nil || strings.Join(info.Parents, ",") != second+","+first || info.Trailers["Cairn-Conflict"] != "a.md\nb.md" {
		t.Fatalf("CommitInfo(merge): %+v %v", info, err)
	}
}
