package vault

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestBankGrants(t *testing.T) {
	v, _ := sampleVault(t)
	human := Caller{Principal: "owner", Ceiling: RoleWrite, Actor: "human", Tool: "cairn access"}
	if _, err := v.BankPut(sam, "b1", "Sam's first fact", "misc", ""); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("before the grant: %v", err)
	}
	if err := v.GrantBank(human, "sam", "b1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := v.BankPut(sam, "b1", "Sam's first fact", "misc", ""); err != nil {
		t.Fatalf("after the grant: %v", err)
	}
	facts, err := v.BankSearch(context.Background(), sam, "b1", "first fact", 0)
	if err != nil || len(facts) != 1 || facts[0].Text != "Sam's first fact" || facts[0].Context != "misc" {
		t.Fatalf("search: %+v %v", facts, err)
	}
	// A token narrowed to other banks does not reach it.
	narrowed := sam
	narrowed.Banks = []string{"b2"}
	if _, err := v.BankSearch(context.Background(), narrowed, "b1", "fact", 0); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("narrowed token: %v", err)
	}
	if err := v.GrantBank(sam, "camille", "b1", true); !errors.Is(err, ErrForbidden) {
		t.Fatalf("only the owner grants: %v", err)
	}
	if err := v.GrantBank(human, "sam", "b1", false); err != nil {
		t.Fatal(err)
	}
	if _, err := v.BankSearch(context.Background(), sam, "b1", "fact", 0); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("after the revoke: %v", err)
	}
}

func TestFactType(t *testing.T) {
	for text, want := range map[string]string{
		"User works at Google as a software engineer": "world",
		"I think the user would enjoy Rust":           "opinion",
		"The team should move to weekly releases":     "opinion",
		"We hiked Mont Blanc in July":                 "experience",
		"I'm back from Lisbon":                        "experience",
		"Paris is the capital of France":              "world",
	} {
		if got := FactType(text); got != want {
			t.Errorf("%q: %s, want %s", text, got, want)
		}
	}
}

// Facts put one after another in one context form a sequence; a date
// written in the context or the content becomes the event_date.
func TestBankSequencesAndEventDates(t *testing.T) {
	v, _ := sampleVault(t)
	ctx := "session 3, 1:56 pm on 8 May, 2023"
	w1, err := v.BankPut(owner, "talk", "Caroline: How did the kids handle the accident?", ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	w2, err := v.BankPut(owner, "talk", "Melanie: They were scared but we reassured them.", ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.BankPut(owner, "talk", "Something else entirely, on 2024-02-29", "other", ""); err != nil {
		t.Fatal(err)
	}
	n := ParseNote(w2.Path, []byte(readFile(t, v.abs(w2.Path))))
	tl := n.TypedLinks()
	if len(tl) != 1 || tl[0].Type != "follows" || tl[0].Target != w1.Path[:len(w1.Path)-3] {
		t.Fatalf("second fact's links: %+v", tl)
	}
	facts, err := v.BankSearch(context.Background(), owner, "talk", "how did the kids handle the accident", 0)
	if err != nil || len(facts) < 2 {
		t.Fatalf("%+v %v", facts, err)
	}
	dates := map[string]string{}
	texts := []string{}
	for _, f := range facts {
		if f.EventDate != nil {
			dates[f.Text] = *f.EventDate
		}
		texts = append(texts, f.Text)
	}
	if dates["Melanie: They were scared but we reassured them."] != "2023-05-08" {
		t.Errorf("event dates: %v", dates)
	}
	other, _ := v.BankSearch(context.Background(), owner, "talk", "something else entirely", 0)
	if len(other) == 0 || other[0].EventDate == nil || *other[0].EventDate != "2024-02-29" {
		t.Errorf("an ISO date in the content: %+v", other)
	}
	if texts[0] != "Melanie: They were scared but we reassured them." && texts[1] != "Melanie: They were scared but we reassured them." {
		t.Errorf("the reply should come with its question: %v", texts)
	}
}

// A fact's links and title never reach the shared link graph: it cannot
// pin a shared note in place nor make a shared title ambiguous.
func TestBankFactsStayOutOfTheSharedGraph(t *testing.T) {
	v, _ := sampleVault(t)
	human := Caller{Principal: "owner", Ceiling: RoleWrite, Actor: "human", Tool: "cairn access"}
	if err := v.GrantBank(human, "sam", "sb", true); err != nil {
		t.Fatal(err)
	}
	if _, err := v.BankPut(sam, "sb", "# Glossary\n\nsee [[acme/handbook/Glossary]] and [[Glossary]]", "notes", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := v.MoveNote(owner, "acme/handbook/Glossary.md", "acme", ""); err != nil {
		t.Fatalf("a bank fact pinned a shared note: %v", err)
	}
	if _, err := v.CreateNote(owner, CreateArgs{Project: "acme/launch", Body: "# Glossary\n\nA second one.\n"}); err == nil {
		t.Fatal("a bank fact switched off the ambiguity guard")
	}
	n, err := v.GetNote(owner, "[[Glossary]]", false, "")
	if err != nil || n.Path != "acme/Glossary.md" {
		t.Fatalf("[[Glossary]] resolves to %+v (%v)", n, err)
	}
}

func TestConcurrentCapturesMakeOneThought(t *testing.T) {
	v, dir := sampleVault(t)
	statuses := make(chan string, 8)
	for i := 0; i < 8; i++ {
		go func() {
			c, err := v.CaptureThought(owner, CaptureArgs{Text: "The same words at once", Space: "personal", Confirmed: true})
			if err != nil {
				statuses <- err.Error()
				return
			}
			statuses <- c.Status
		}()
	}
	count := map[string]int{}
	for i := 0; i < 8; i++ {
		count[<-statuses]++
	}
	if count[CaptureCreated] != 1 || count[CaptureExists] != 7 {
		t.Fatalf("statuses: %v", count)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "people", "owner", "thoughts", "personal", "*.md"))
	if len(files) != 1 {
		t.Fatalf("%d files", len(files))
	}
	today := time.Now().Format("2006-01-02")
	if c, _ := v.CaptureThought(owner, CaptureArgs{Text: "Dated today", Space: "personal", OccurredAt: today, Confirmed: true}); c.Status != CaptureCreated {
		t.Errorf("today is not the future: %+v", c)
	}
}

func TestBankIDsThatDifferByCase(t *testing.T) {
	v, _ := sampleVault(t)
	if _, err := v.BankPut(owner, "alice", "Alice likes tea", "food", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := v.BankPut(owner, "Alice", "Not Alice's", "food", ""); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("a bank id differing only by case: %v", err)
	}
}

func TestFindDate(t *testing.T) {
	for text, want := range map[string]string{
		"session 3, 1:56 pm on 8 May, 2023 then 2024-01-01": "2023-05-08",
		"on May 9th, 2023":                  "2023-05-09",
		"2023-02-30 was no day; 2023-03-01": "2023-03-01",
		"31 February, 2023 or 1 March 2023": "2023-03-01",
		"no date here":                      "",
	} {
		got, _ := findDate(text)
		if got != want {
			t.Errorf("%q: %q, want %q", text, got, want)
		}
	}
}
