package mcptools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
)

type capture struct {
	Status, ID, Path, Reason, Message string
	Proposal                          *struct {
		Text        string `json:"text"`
		Space       string `json:"space"`
		ThoughtKind string `json:"thought_kind"`
		OccurredAt  string `json:"occurred_at"`
	}
}

func captureT(t *testing.T, c *client.Client, args map[string]any) capture {
	t.Helper()
	var out capture
	ok(t, c, "treaisure_capture_thought", args, &out)
	return out
}

func TestTreaisureCaptureStatuses(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write", ToolsetTreaisure))
	if n := toolNames(t, c); strings.Join(n, ",") != "treaisure_capture_thought,treaisure_search_memory" {
		t.Fatalf("a TreAIsure token sees %v", n)
	}
	before := head(t, ts.dir)
	words := "Nous lançons d'abord auprès de vingt clients pilotes."
	p := captureT(t, c, map[string]any{"text": words, "space": "professional"})
	if p.Status != "pending_confirmation" || p.Proposal == nil || p.Proposal.Text != words || p.Proposal.ThoughtKind != "thought" || p.ID != "" {
		t.Fatalf("without confirmed: %+v", p)
	}
	if head(t, ts.dir) != before {
		t.Fatal("a proposal wrote something")
	}
	cr := captureT(t, c, map[string]any{"text": words, "space": "professional", "thought_kind": "thought", "confirmed": true, "occurred_at": "2026-11-02"})
	if cr.Status != "created" || cr.ID == "" || !strings.HasPrefix(cr.Path, "people/owner/thoughts/professional/") {
		t.Fatalf("created: %+v", cr)
	}
	data, err := os.ReadFile(filepath.Join(ts.dir, filepath.FromSlash(cr.Path)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"thought_kind: thought", "space: professional", "occurred_at: \"2026-11-02\"", "captured_at: ", "---\n" + words + "\n"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("note lacks %q:\n%s", want, data)
		}
	}
	// The same words, spaced and cased differently: already_exists, with
	// the first one's id; in the other space it is a new thought.
	dup := captureT(t, c, map[string]any{"text": "  nous LANÇONS d'abord   auprès de vingt clients pilotes. ", "space": "professional", "confirmed": true})
	if dup.Status != "already_exists" || dup.ID != cr.ID {
		t.Fatalf("duplicate: %+v", dup)
	}
	if other := captureT(t, c, map[string]any{"text": words, "space": "personal", "confirmed": true}); other.Status != "created" {
		t.Fatalf("other space: %+v", other)
	}
	after := head(t, ts.dir)
	for _, args := range []map[string]any{
		{"text": "ok", "space": "personal", "confirmed": true},
		{"text": strings.Repeat("x", 10_001), "space": "personal", "confirmed": true},
		{"text": "A fine day", "space": "work", "confirmed": true},
		{"text": "A fine day", "space": "personal", "occurred_at": "last Tuesday", "confirmed": true},
		{"text": "A fine day", "space": "personal", "occurred_at": "2999-01-01", "confirmed": true},
		{"text": "A fine day", "space": "personal", "thought_kind": "dream", "confirmed": true},
		{"text": "A fine day", "space": "personal", "mood": "happy", "confirmed": true},
	} {
		r := captureT(t, c, args)
		if r.Status != "rejected" || r.Reason == "" || r.ID != "" {
			t.Errorf("%v: %+v", args, r)
		}
	}
	if head(t, ts.dir) != after {
		t.Error("a rejected capture wrote something")
	}
}

type dossier struct {
	Items []struct {
		ID, Path, Excerpt, Date, Level, Why string
		Topics, Entities                    []string
		Explicit                            bool
	} `json:"items"`
	Note string `json:"note"`
}

func TestTreaisureSearchOneSpaceWithLevels(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "write", ToolsetTreaisure))
	for _, th := range []struct{ text, space string }{
		{"We decided to launch Beacon with twenty pilot customers in Lyon.", "professional"},
		{"Marie Curie Institute asked for a demo of Beacon next spring.", "professional"},
		{"The kitten slept on the warm rug all afternoon.", "professional"},
		{"My sister's wedding: we decided to launch the fireworks at midnight.", "personal"},
	} {
		if r := captureT(t, c, map[string]any{"text": th.text, "space": th.space, "confirmed": true}); r.Status != "created" {
			t.Fatal(r)
		}
	}
	var d dossier
	ok(t, c, "treaisure_search_memory", map[string]any{"question": "What did I decide for the launch?", "space": "professional"}, &d)
	if len(d.Items) == 0 || !strings.Contains(d.Note, "never present") {
		t.Fatalf("dossier: %+v", d)
	}
	levels := map[string]string{}
	for _, it := range d.Items {
		if !strings.HasPrefix(it.Path, "people/owner/thoughts/professional/") {
			t.Fatalf("a professional question returned %s", it.Path)
		}
		levels[it.Path[strings.LastIndex(it.Path, "/")+1:]] = it.Level
		if (it.Level == "direct") != it.Explicit {
			t.Errorf("explicit must be true exactly for direct items: %+v", it)
		}
		if it.Date == "" {
			t.Errorf("no date: %+v", it)
		}
	}
	first := d.Items[0]
	if first.Level != "direct" || !strings.Contains(first.Excerpt, "**decided**") || !slices.Contains(first.Entities, "Beacon") {
		t.Errorf("first item: %+v", first)
	}
	for name, lvl := range levels {
		switch {
		case strings.HasPrefix(name, "Marie Curie") && lvl != "related" && lvl != "direct":
			t.Errorf("the Beacon demo shares an entity with a direct item: %s", lvl)
		case strings.HasPrefix(name, "The kitten") && lvl == "direct":
			t.Errorf("the kitten is no direct evidence")
		}
	}
	// The personal space holds the fireworks, and only the personal space.
	ok(t, c, "treaisure_search_memory", map[string]any{"question": "what did we decide to launch", "space": "personal"}, &d)
	if len(d.Items) != 1 || !strings.Contains(d.Items[0].Excerpt, "fireworks") {
		t.Fatalf("personal: %+v", d)
	}
	failing(t, c, "treaisure_search_memory", map[string]any{"question": "x", "space": "both"}, "space")
	failing(t, c, "treaisure_search_memory", map[string]any{"question": "x", "space": "personal", "limit": 13}, "limit")
	raw, _ := json.Marshal(d)
	if strings.Contains(string(raw), "professional/") {
		t.Error("a personal dossier mentions the professional space")
	}
}
