package search

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// A note's title heading is its title, indexed once, in the title field:
// the number of "# Meeting 12" does not match a question about 12 (a
// title's numbers are its place in a series), while the same number in
// the text does.
func TestTitleHeadingIsNotMatchedAsBodyText(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	docs := versioned([]*Doc{
		{Path: "m/a.md", Title: "Meeting 12", Scope: "s", Body: "# Meeting 12\n\nWe talked about the garden and the roses."},
		{Path: "m/b.md", Title: "Garden notes", Scope: "s", Body: "# Garden notes\n\nThe garden got 12 new roses this spring."},
	})
	if err := ix.Apply(docs, nil); err != nil {
		t.Fatal(err)
	}
	r, err := ix.Search(context.Background(), Query{Text: "12", Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := paths(r); !slices.Equal(got, []string{"m/b.md"}) {
		t.Errorf("12: got %v, want only the note whose text says 12", got)
	}
	// The title's words still find the note, through the title field.
	r, _ = ix.Search(context.Background(), Query{Text: "meeting", Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
	if got := paths(r); len(got) == 0 || got[0] != "m/a.md" {
		t.Errorf("meeting: got %v, want m/a.md first", got)
	}
}

func TestBodyPastTitle(t *testing.T) {
	for _, c := range []struct{ body, title, want string }{
		{"# Meeting 12\n\ntext", "Meeting 12", "\ntext"},
		{"\n\n  # Meeting 12 ##\r\ntext", "Meeting 12", "text"},
		{"#\tMeeting 12\ntext", "Meeting 12", "text"},
		{"# Other\ntext", "Meeting 12", "# Other\ntext"}, // a heading that is not the title
		{"## Meeting 12\ntext", "Meeting 12", "## Meeting 12\ntext"},
		{"#Meeting 12\ntext", "Meeting 12", "#Meeting 12\ntext"}, // a tag, not a heading
		{"text only", "text only", "text only"},                  // a title from the file name
		{"# T", "T", ""},
	} {
		if got := bodyPastTitle(c.body, c.title); got != c.want {
			t.Errorf("bodyPastTitle(%q, %q) = %q, want %q", c.body, c.title, got, c.want)
		}
	}
}

// Notes that score alike come in the same order whatever they are named:
// the order follows what they say, not their paths, so a vault's naming
// (numbered, dated, hashed) cannot change which answer shows first.
func TestTiesDoNotFollowNames(t *testing.T) {
	// One word in common, once in each, in bodies of as many words: BM25
	// scores them alike.
	texts := []string{"quiet harbour lamp", "quiet street dusk", "quiet mouse cheese", "quiet hour clock", "quiet please sign"}
	order := func(name func(i int) string) []string {
		ix, _ := openT(t, t.TempDir(), nil, nil)
		defer ix.Close()
		var docs []*Doc
		for i, s := range texts {
			docs = append(docs, &Doc{Path: name(i), Title: "t", Scope: "s", Body: s})
		}
		if err := ix.Apply(versioned(docs), nil); err != nil {
			t.Fatal(err)
		}
		r, err := ix.Search(context.Background(), Query{Text: "quiet", Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range r.Hits {
			if h.Lexical.Score != r.Hits[0].Lexical.Score {
				t.Fatalf("scores differ: %+v", r.Hits)
			}
			i := slices.IndexFunc(docs, func(d *Doc) bool { return d.Path == h.Path })
			got = append(got, texts[i])
		}
		return got
	}
	numbered := order(func(i int) string { return fmt.Sprintf("d%05d.md", i) })
	reversed := order(func(i int) string { return fmt.Sprintf("d%05d.md", 100-i) })
	if len(numbered) != len(texts) || !slices.Equal(numbered, reversed) {
		t.Errorf("the same notes under other names came in another order:\n%v\n%v", numbered, reversed)
	}
}
