package search

import (
	"context"
	"strconv"
	"testing"
)

// A conversation: the question is asked in one turn, answered in the next.
var talk = []*Doc{
	{Path: "c/1.md", Title: "1", Scope: "s", Who: []string{"Caroline"}, Body: "How did the kids handle the accident?", Sequence: []string{"c/2.md"}, Date: day("2023-06-10")},
	{Path: "c/2.md", Title: "2", Scope: "s", Who: []string{"Melanie"}, Body: "They were scared but we reassured them. Tough kids.", Sequence: []string{"c/1.md", "c/3.md"}, Context: "How did the kids handle the accident?", Date: day("2023-06-10")},
	{Path: "c/3.md", Title: "3", Scope: "s", Who: []string{"Caroline"}, Body: "Glad they are fine, Melanie. Say hi to the kids from Caroline!", Sequence: []string{"c/2.md"}, Date: day("2023-06-10")},
	{Path: "c/4.md", Title: "4", Scope: "s", Who: []string{"Melanie"}, Body: "We went camping with the kids.", Date: day("2023-05-02")},
	{Path: "c/5.md", Title: "5", Scope: "s", Who: []string{"Melanie"}, Body: "We went camping again, by the lake.", Date: day("2023-07-20")},
	{Path: "hidden/6.md", Title: "6", Scope: "other", Who: []string{"Melanie"}, Body: "Secret reply.", Sequence: []string{"c/4.md"}},
}

func TestNamesPreferTheirNotes(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	ix.Apply(versioned(talk), nil)
	ok := ix.vfilter(Filter{Scopes: []string{"s"}}).scopeOK
	names, rest := ix.names("How did Melanie's kids handle the accident?", ok)
	if !names["melanie"] || rest != "How did kids handle the accident?" {
		t.Fatalf("names %v, rest %q", names, rest)
	}
	if n, r := ix.names("Melanie", ok); !n["melanie"] || r != "Melanie" {
		t.Errorf("a query of names only keeps them as words: %v %q", n, r)
	}
	// A name known only in a scope the caller cannot read stays a word.
	ix.Apply([]*Doc{{Path: "x/1.md", Version: "1", Scope: "x", Who: []string{"Zorblat"}, Body: "hidden"}}, nil)
	if n, r := ix.names("zorblat kids", ix.vfilter(Filter{Scopes: []string{"s"}}).scopeOK); len(n) != 0 || r != "zorblat kids" {
		t.Errorf("a name from another scope changed the query: %v %q", n, r)
	}
	r, err := ix.Search(context.Background(), Query{Text: "How did Melanie's kids handle the accident?", Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
	if err != nil {
		t.Fatal(err)
	}
	// The reply (by Melanie, holding the question as context) comes first,
	// not the turn that only says "Melanie" and "kids".
	if len(r.Hits) < 2 || r.Hits[0].Path != "c/2.md" || !r.Hits[0].Who {
		t.Errorf("got %v", paths(r))
	}
}

func TestSequenceNeighboursShareScore(t *testing.T) {
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	ix.Apply(versioned(talk), nil)
	r, _ := ix.Search(context.Background(), Query{Text: "reassured", Mode: Lexical, Limit: 10, Filter: Filter{Scopes: []string{"s"}}})
	got := map[string]Hit{}
	for _, h := range r.Hits {
		got[h.Path] = h
	}
	if r.Hits[0].Path != "c/2.md" {
		t.Fatalf("the matching turn first: %v", paths(r))
	}
	for _, nb := range []string{"c/1.md", "c/3.md"} {
		h, ok := got[nb]
		if !ok || h.Via != "c/2.md" || h.Lexical != nil {
			t.Errorf("neighbour %s must come along via c/2.md: %+v", nb, h)
		}
	}
	// A neighbour outside the caller's scopes never comes along.
	r, _ = ix.Search(context.Background(), Query{Text: "camping", Mode: Lexical, Limit: 10, Filter: Filter{Scopes: []string{"s"}}})
	for _, h := range r.Hits {
		if h.Path == "hidden/6.md" {
			t.Error("a neighbour from another scope leaked")
		}
	}
}

func TestDateHints(t *testing.T) {
	cases := map[string]string{
		"When did Melanie go camping in June?": "6/0",
		"What happened in May 2023?":           "5/2023",
		"May I ask about the lake?":            "",
		"Qu'a-t-on décidé en mars ?":           "3/0",
		"camping trips in 2022":                "0/2022",
		"room 2022b":                           "",
	}
	for q, want := range cases {
		got := ""
		for _, h := range dateHints(q) {
			if got != "" {
				got += ","
			}
			got += strconv.Itoa(int(h.month)) + "/" + strconv.Itoa(h.year)
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", q, got, want)
		}
	}
	ix, _ := openT(t, t.TempDir(), nil, nil)
	defer ix.Close()
	ix.Apply(versioned(talk), nil)
	for q, want := range map[string]string{"camping in July": "c/5.md", "camping in May 2023": "c/4.md"} {
		r, _ := ix.Search(context.Background(), Query{Text: q, Mode: Lexical, Filter: Filter{Scopes: []string{"s"}}})
		if len(r.Hits) == 0 || r.Hits[0].Path != want || !r.Hits[0].When {
			t.Errorf("%q: got %v, want %s first", q, paths(r), want)
		}
	}
}
