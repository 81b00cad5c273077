package wikilinks

import (
	"sort"
	"strings"
	"testing"
)

// What a link becomes when what it names moves: the text in its own
// style that names it at its new place (Shift.Keep), or nothing when it
// still names it as written. One note moves, then a folder with an
// attachment.
func TestMovedTargetsKeepTheirLinksStyle(t *testing.T) {
	g := New()
	g.Set(note("T", "a/x/Target.md", "Target", nil, ""))
	g.Set(note("O", "c/Other.md", "Other", nil, ""))
	g.Set(note("D", "d/Other.md", "Other", nil, ""))
	g.SetFile("a/x/pic.png")
	g.Set(note("S", "a/y/Src.md", "Src", nil, strings.Join([]string{
		"[[Target]]", "[[Target.md]]", "[[x/Target]]", "[[a/x/Target]]", "[[A/X/Target.md]]", "[[/a/x/Target]]",
		"[[../x/Target]]", "[[./../x/Target]]", "[[x/pic.png]]", "[[/a/x/pic.png]]", "[[../x/pic.png]]", "[[pic.png]]",
	}, " ")))
	keep := func(sh []Shift) string {
		var out []string
		for _, s := range sh {
			out = append(out, s.Target+" → "+s.Keep)
		}
		sort.Strings(out)
		return strings.Join(out, "\n")
	}
	// The note moves to b/: a name stays (still unique), a path keeps its
	// depth, a full path stays full (.md as written), a relative path is
	// recomputed from the source's folder.
	sh := g.WhatIfMoved([]Note{{ID: "T", Path: "b/Target.md", Title: "Target"}}, nil, nil, nil)
	want := strings.Join([]string{
		"../x/Target → ../../b/Target",
		"./../x/Target → ../../b/Target",
		"/a/x/Target → /b/Target",
		"A/X/Target.md → b/Target.md",
		"a/x/Target → b/Target",
		"x/Target → b/Target",
	}, "\n")
	if got := keep(sh); got != want {
		t.Fatalf("moving the note:\n%s\nwant\n%s", got, want)
	}
	for _, s := range sh {
		if !s.Moved {
			t.Fatalf("%+v is not said to name what moved", s)
		}
	}
	// The attachment moves with its folder, a/x → a/z/x: a trailing part
	// that still names it stays; the full and relative paths follow.
	sh = g.WhatIfMoved([]Note{{ID: "T", Path: "a/z/x/Target.md", Title: "Target"}}, nil, map[string]string{"a/x/pic.png": "a/z/x/pic.png"}, nil)
	want = strings.Join([]string{
		"../x/Target → ../z/x/Target",
		"../x/pic.png → ../z/x/pic.png",
		"./../x/Target → ../z/x/Target",
		"/a/x/Target → /a/z/x/Target",
		"/a/x/pic.png → /a/z/x/pic.png",
		"A/X/Target.md → a/z/x/Target.md",
		"a/x/Target → a/z/x/Target",
	}, "\n")
	if got := keep(sh); got != want {
		t.Fatalf("moving the folder:\n%s\nwant\n%s", got, want)
	}
	// A name that stops being unique becomes the full path, as Obsidian's
	// "shortest path when possible" writes: Target renamed Other, next to
	// two other Others, from a source none of them shares a folder with.
	sh = g.WhatIfMoved([]Note{{ID: "T", Path: "a/x/Other.md", Title: "Other"}}, nil, nil, nil)
	found := false
	for _, s := range sh {
		if s.Target == "Target" {
			found = s.Keep == "a/x/Other"
		}
	}
	if !found {
		t.Fatalf("[[Target]] renamed to a shared name: %+v", sh)
	}
}
