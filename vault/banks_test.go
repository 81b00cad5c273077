package vault

import (
	"context"
	"errors"
	"testing"
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
