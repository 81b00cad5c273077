package recall_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/vaulttest"
	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/recall"
)

var owner = vaulttest.Owner

func sampleVault(t testing.TB) (*vault.Vault, string) { return vaulttest.Sample(t) }

func waitVectors(t testing.TB, v *vault.Vault) {
	t.Helper()
	ix, err := v.SearchIndex()
	if err != nil {
		t.Fatal(err)
	}
	if !ix.WaitVectors(30 * time.Second) {
		t.Fatal("vectors not made in 30 s")
	}
}

func TestRecallKeepsTheBudget(t *testing.T) {
	v, _ := sampleVault(t)
	if _, err := v.RememberAboutUser(owner, "preferences", "Prefers answers in French."); err != nil {
		t.Fatal(err)
	}
	waitVectors(t, v)
	for _, budget := range []int{100, 150, 300, 1000, 4000} {
		r, err := recall.Recall(context.Background(), v, owner, "How do we roll back a bad deploy?", "", budget)
		if err != nil {
			t.Fatal(err)
		}
		// The budget bounds the whole reply, as the tool sends it.
		reply, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if n := search.Tokens(string(reply)); n > budget+recall.Overhead || n != r.UsedTokens {
			t.Errorf("budget %d: the reply has %d tokens (reported %d)", budget, n, r.UsedTokens)
		}
		if len(r.Items) == 0 {
			t.Errorf("budget %d: nothing recalled: %+v", budget, r)
		}
		for i, it := range r.Items {
			head := fmt.Sprintf("## %s [%d]\n", it.Title, i+1)
			if it.ID == "" || it.Path == "" || !strings.Contains(r.Context, head) {
				t.Errorf("budget %d: item %d has no block headed %q: %+v", budget, i+1, head, it)
			}
		}
		// Nothing is said twice: no excerpt outside the context, and a
		// note's own `# Title` line is not repeated under its heading.
		if strings.Count(r.Context, "[[") != strings.Count(r.Context, "]]") || strings.Count(r.Context, "```")%2 != 0 {
			t.Errorf("budget %d: an excerpt cut in half a link or code block:\n%s", budget, r.Context)
		}
		if strings.Contains(string(reply), `"excerpt"`) {
			t.Errorf("budget %d: items repeat the excerpts:\n%s", budget, reply)
		}
		for i, it := range r.Items {
			if strings.Contains(r.Context, fmt.Sprintf("[%d]\n# %s\n", i+1, it.Title)) {
				t.Errorf("budget %d: the title of %s is said twice", budget, it.Path)
			}
		}
		if budget == 4000 {
			whys := map[string]bool{}
			for _, it := range r.Items {
				whys[it.Why] = true
			}
			if !whys["match"] || !whys["linked"] || !whys["memory"] {
				t.Errorf("a large budget should bring matches, linked notes and memory: %v", whys)
			}
			if ti := r.Items[0].Title; ti != "Rollback runbook" && ti != "Deploy runbook" {
				t.Errorf("first item %q", r.Items[0].Title)
			}
		}
	}
	// The overhead pays for the fixed fields at their largest.
	fixed, _ := json.Marshal(recall.Result{BudgetTokens: recall.MaxBudget, UsedTokens: recall.MaxBudget + recall.Overhead, Tokenizer: search.TokenizerName, Mode: "semantic", Items: []recall.Item{}, Left: 9999})
	if n := search.Tokens(string(fixed)); n > recall.Overhead {
		t.Errorf("the fixed fields take %d tokens, more than recall.Overhead (%d): %s", n, recall.Overhead, fixed)
	}
	if _, err := recall.Recall(context.Background(), v, owner, "x", "", 50); err == nil || !strings.Contains(err.Error(), "budgetTokens") {
		t.Errorf("a budget below the minimum must be refused naming budgetTokens: %v", err)
	}
	if _, err := recall.Recall(context.Background(), v, owner, " ", "", 500); err == nil || !strings.Contains(err.Error(), "topic") {
		t.Errorf("an empty topic must be refused naming topic: %v", err)
	}
}
