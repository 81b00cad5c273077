package hindsight

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/vaulttest"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/note"
)

var (
	owner = vaulttest.Owner
	sam   = vaulttest.Sam
)

func sampleVault(t testing.TB) (*vault.Vault, string) { return vaulttest.Sample(t) }

func TestBankGrants(t *testing.T) {
	v, _ := sampleVault(t)
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
	if _, err := Of(v).Put(sam, "b1", "Sam's first fact", "misc", ""); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("before the grant: %v", err)
	}
	if err := Of(v).Grant(human, "sam", "b1", true); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(v).Put(sam, "b1", "Sam's first fact", "misc", ""); err != nil {
		t.Fatalf("after the grant: %v", err)
	}
	facts, err := Of(v).Search(context.Background(), sam, "b1", "first fact", 0)
	if err != nil || len(facts) != 1 || facts[0].Text != "Sam's first fact" || facts[0].Context != "misc" {
		t.Fatalf("search: %+v %v", facts, err)
	}
	// A token narrowed to other banks does not reach it.
	narrowed := sam
	narrowed.Banks = []string{"b2"}
	if _, err := Of(v).Search(context.Background(), narrowed, "b1", "fact", 0); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("narrowed token: %v", err)
	}
	if err := Of(v).Grant(sam, "camille", "b1", true); !errors.Is(err, vault.ErrForbidden) {
		t.Fatalf("only the owner grants: %v", err)
	}
	if err := Of(v).Grant(human, "sam", "b1", false); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(v).Search(context.Background(), sam, "b1", "fact", 0); !errors.Is(err, ErrBankNotFound) {
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
	w1, err := Of(v).Put(owner, "talk", "Caroline: How did the kids handle the accident?", ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	w2, err := Of(v).Put(owner, "talk", "Melanie: They were scared but we reassured them.", ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Of(v).Put(owner, "talk", "Something else entirely, on 2024-02-29", "other", ""); err != nil {
		t.Fatal(err)
	}
	n := note.Parse(w2.Path, []byte(vaulttest.ReadFile(t, filepath.Join(v.Root(), w2.Path))))
	tl := n.TypedLinks()
	if len(tl) != 1 || tl[0].Type != "follows" || tl[0].Target != w1.Path[:len(w1.Path)-3] {
		t.Fatalf("second fact's links: %+v", tl)
	}
	facts, err := Of(v).Search(context.Background(), owner, "talk", "how did the kids handle the accident", 0)
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
	other, _ := Of(v).Search(context.Background(), owner, "talk", "something else entirely", 0)
	if len(other) == 0 || other[0].EventDate == nil || *other[0].EventDate != "2024-02-29" {
		t.Errorf("an ISO date in the content: %+v", other)
	}
	if texts[0] != "Melanie: They were scared but we reassured them." && texts[1] != "Melanie: They were scared but we reassured them." {
		t.Errorf("the reply should come with its question: %v", texts)
	}
}

// A fact's links and title never reach the shared link graph: it cannot
// pin a shared note in place nor switch the link guard off.
func TestBankFactsStayOutOfTheSharedGraph(t *testing.T) {
	v, _ := sampleVault(t)
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
	if err := Of(v).Grant(human, "sam", "sb", true); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(v).Put(sam, "sb", "# Glossary\n\nsee [[acme/handbook/Glossary]] and [[Glossary]]", "notes", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := v.MoveNote(owner, "acme/handbook/Glossary.md", "acme", ""); err != nil {
		t.Fatalf("a bank fact pinned a shared note: %v", err)
	}
	// A Glossary in the folder of a note that links [[Glossary]] would take
	// its link over: the guard still refuses it.
	if _, err := v.CreateNote(owner, vault.CreateArgs{Project: "acme", Path: "people", Body: "# Glossary\n\nA second one.\n"}); err == nil {
		t.Fatal("a bank fact switched off the link guard")
	}
	n, err := v.GetNote(owner, "[[Glossary]]", false, "")
	if err != nil || n.Path != "acme/Glossary.md" {
		t.Fatalf("[[Glossary]] resolves to %+v (%v)", n, err)
	}
}

// Bank ids compare case-insensitively everywhere (folder, grants, a
// token's banks): after the owner writes to ALICE_BANK, Alice's grant for
// alice_bank reaches that same bank, and no second folder is ever made.
func TestBankIDsCompareCaseInsensitively(t *testing.T) {
	v, dir := sampleVault(t)
	human := access.Caller{Principal: "owner", Ceiling: access.RoleWrite, Actor: "human", Tool: "cairn access"}
	alice := access.Caller{Principal: "alice", Ceiling: access.RoleWrite, Actor: "agent", Tool: "test"}
	if _, err := Of(v).Put(owner, "ALICE_BANK", "Alice likes green tea", "food", ""); err != nil {
		t.Fatal(err)
	}
	if err := Of(v).Grant(human, "alice", "alice_bank", true); err != nil {
		t.Fatal(err)
	}
	facts, err := Of(v).Search(context.Background(), alice, "alice_bank", "green tea", 0)
	if err != nil || len(facts) != 1 || facts[0].Text != "Alice likes green tea" {
		t.Fatalf("Alice's grant: %+v %v", facts, err)
	}
	w, err := Of(v).Put(alice, "Alice_Bank", "Alice runs on Sundays", "sport", "")
	if err != nil || !strings.HasPrefix(w.Path, "banks/ALICE_BANK/") {
		t.Fatalf("Alice's put: %+v %v", w, err)
	}
	narrowed := alice
	narrowed.Banks = []string{"alice_BANK"}
	if facts, err := Of(v).Search(context.Background(), narrowed, "ALICE_bank", "sundays", 0); err != nil || len(facts) == 0 || facts[0].Text != "Alice runs on Sundays" {
		t.Fatalf("a token's banks: %+v %v", facts, err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, vault.BanksDir))
	if len(ents) != 1 || ents[0].Name() != "ALICE_BANK" {
		t.Fatalf("bank folders: %v", ents)
	}
	// A grant given twice in two spellings is one grant; a revoke in any
	// spelling takes it back.
	if err := Of(v).Grant(human, "alice", "ALICE_BANK", true); err != nil {
		t.Fatal(err)
	}
	if a, _ := vault.ReadAccess(dir); len(a.Banks["alice"]) != 1 {
		t.Fatalf("grants: %v", a.Banks)
	}
	if err := Of(v).Grant(human, "alice", "Alice_Bank", false); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(v).Search(context.Background(), alice, "alice_bank", "tea", 0); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("after the revoke: %v", err)
	}
	// Two folders made by hand that differ only by case are one bank id
	// with two homes: neither is reached.
	if err := os.MkdirAll(filepath.Join(dir, vault.BanksDir, "alice_bank"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Of(v).Put(owner, "alice_bank", "Which one?", "food", ""); !errors.Is(err, ErrBankNotFound) {
		t.Fatalf("two folders for one id: %v", err)
	}
}

// Bank ids become folder names: none that Windows cannot check out.
func TestBankIDsAreSafeFolderNames(t *testing.T) {
	for _, id := range []string{"CON", "nul", "Com1", "lpt9", "user.", "aux.bank", "a..b", "../x", ""} {
		if ValidBankID(id) == nil {
			t.Errorf("%q accepted", id)
		}
	}
	for _, id := range []string{"user_12345", "alice@example.com", "Session-42.a", "console", "a+b"} {
		if err := ValidBankID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
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
