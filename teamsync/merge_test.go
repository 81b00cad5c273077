package teamsync

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/vault/note"
)

const base = `---
id: 01JTEAMSYNCBASE0000000000
tags: [infra]
status: draft
owner: jonas
---
# Rollout plan

Step one: build.
Step two: test.
Step three: ship.
`

func mergeNotes(t *testing.T, b, o, th string) Merged {
	t.Helper()
	var bb []byte
	if b != "" {
		bb = []byte(b)
	}
	m, err := MergeNote(context.Background(), "Rollout plan.md", bb, []byte(o), []byte(th))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(m.Content), "<<<<<<<") || strings.Contains(string(m.Content), ">>>>>>>") {
		t.Fatalf("a conflict marker in the merged note:\n%s", m.Content)
	}
	return m
}

func TestDifferentLinesMergeCleanly(t *testing.T) {
	ours := strings.Replace(base, "Step one: build.", "Step one: build with -race.", 1)
	theirs := strings.Replace(base, "Step three: ship.", "Step three: ship on Monday.", 1)
	m := mergeNotes(t, base, ours, theirs)
	if m.Conflict || !strings.Contains(string(m.Content), "build with -race") || !strings.Contains(string(m.Content), "ship on Monday") {
		t.Fatalf("conflict %v (%s):\n%s", m.Conflict, m.Why, m.Content)
	}
}

func TestTheSameLineChangedBothWaysKeepsOursAndSaysSo(t *testing.T) {
	ours := strings.Replace(base, "Step two: test.", "Step two: test on staging.", 1)
	theirs := strings.Replace(base, "Step two: test.", "Step two: test in production.", 1)
	m := mergeNotes(t, base, ours, theirs)
	if !m.Conflict || string(m.Content) != ours || !strings.Contains(m.Why, "same lines") {
		t.Fatalf("conflict %v (%s):\n%s", m.Conflict, m.Why, m.Content)
	}
}

func TestFrontmatterMergesKeyByKey(t *testing.T) {
	ours := strings.Replace(base, "tags: [infra]", "tags: [infra, rollout]", 1)
	ours = strings.Replace(ours, "owner: jonas\n", "", 1) // ours deletes a key theirs left alone
	theirs := strings.Replace(base, "tags: [infra]", "tags: [infra, q3]", 1)
	theirs = strings.Replace(theirs, "status: draft", "status: accepted", 1)
	theirs = strings.Replace(theirs, "Step one: build.", "Step one: build it.", 1)
	m := mergeNotes(t, base, ours, theirs)
	got := string(m.Content)
	if m.Conflict {
		t.Fatalf("conflict: %s\n%s", m.Why, got)
	}
	if tags := note.Parse("x.md", m.Content).Tags; !slices.Equal(tags, []string{"infra", "rollout", "q3"}) {
		t.Fatalf("tags %v, want the union", tags)
	}
	for _, want := range []string{"status: accepted", "Step one: build it."} {
		if !strings.Contains(got, want) {
			t.Fatalf("merged note lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "owner:") {
		t.Fatalf("the key ours deleted came back:\n%s", got)
	}
	// Theirs deleting a key ours left alone deletes it too.
	theirs = strings.Replace(base, "owner: jonas\n", "", 1)
	if m := mergeNotes(t, base, base, theirs); strings.Contains(string(m.Content), "owner:") || m.Conflict {
		t.Fatalf("theirs' deletion: conflict %v\n%s", m.Conflict, m.Content)
	}
}

// Two clones each linking the note to another one, in the same link
// property, keep both links, written as the property was (one a line);
// the rest of the frontmatter stays as written.
func TestLinkPropertiesMergeAsAUnion(t *testing.T) {
	b := strings.Replace(base, "owner: jonas\n", "owner: jonas\nrelated:\n  - \"[[Pricing]]\"\n", 1)
	ours := strings.Replace(b, "  - \"[[Pricing]]\"\n", "  - \"[[Pricing]]\"\n  - \"[[Launch plan]]\"\n", 1)
	theirs := strings.Replace(b, "  - \"[[Pricing]]\"\n", "  - \"[[Pricing]]\"\n  - \"[[Rollback runbook]]\"\n", 1)
	theirs = strings.Replace(theirs, "Step one: build.", "Step one: build it.", 1)
	m := mergeNotes(t, b, ours, theirs)
	want := strings.Replace(ours, "  - \"[[Launch plan]]\"\n", "  - \"[[Launch plan]]\"\n  - \"[[Rollback runbook]]\"\n", 1)
	want = strings.Replace(want, "Step one: build.", "Step one: build it.", 1)
	if m.Conflict || string(m.Content) != want {
		t.Fatalf("conflict %v (%s):\n%s\nwant:\n%s", m.Conflict, m.Why, m.Content, want)
	}
}

func TestAScalarChangedBothWaysConflicts(t *testing.T) {
	ours := strings.Replace(base, "status: draft", "status: accepted", 1)
	theirs := strings.Replace(base, "status: draft", "status: rejected", 1)
	theirs = strings.Replace(theirs, "tags: [infra]", "tags: [infra, q3]", 1)
	m := mergeNotes(t, base, ours, theirs)
	got := string(m.Content)
	if !m.Conflict || !strings.Contains(m.Why, `"status"`) || !strings.Contains(got, "status: accepted") ||
		!slices.Equal(note.Parse("x.md", m.Content).Tags, []string{"infra", "q3"}) {
		t.Fatalf("conflict %v (%s):\n%s", m.Conflict, m.Why, got)
	}
}

func TestBothSidesCreatingANote(t *testing.T) {
	if m := mergeNotes(t, "", base, base); m.Conflict || string(m.Content) != base {
		t.Fatalf("the same note created on both sides: %v %s", m.Conflict, m.Why)
	}
	other := strings.Replace(base, "Step two: test.", "Step two: review.", 1)
	if m := mergeNotes(t, "", base, other); !m.Conflict || string(m.Content) != base {
		t.Fatalf("two different notes at one path: conflict %v\n%s", m.Conflict, m.Content)
	}
}

func TestAFrontmatterThatIsNotYAMLMergesAsText(t *testing.T) {
	broken := "---\ntags: [infra\n---\n# Broken\n\none\ntwo\nthree\n"
	ours := strings.Replace(broken, "one", "ONE", 1)
	theirs := strings.Replace(broken, "three", "THREE", 1)
	m := mergeNotes(t, broken, ours, theirs)
	if m.Conflict || !strings.Contains(string(m.Content), "ONE") || !strings.Contains(string(m.Content), "THREE") {
		t.Fatalf("conflict %v:\n%s", m.Conflict, m.Content)
	}
}
