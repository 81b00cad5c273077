package mcptools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/search"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/recall"
)

// What an agent pays for a reply is the JSON a tool returns: recall keeps
// it within budgetTokens + recall.Overhead, counted on the reply the
// client receives.
func TestRecallReplyKeepsTheBudget(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "read"))
	for _, budget := range []int{100, 300, 800, 2000, 6000} {
		res, err := callTool(t, c, "recall", map[string]any{"topic": "which CDN did we choose", "budgetTokens": budget})
		if err != nil || res.IsError {
			t.Fatalf("recall: %v %s", err, text(res))
		}
		reply := text(res)
		var r recall.Result
		if err := json.Unmarshal([]byte(reply), &r); err != nil {
			t.Fatal(err)
		}
		if n := search.Tokens(reply); n > budget+recall.Overhead || n != r.UsedTokens {
			t.Errorf("budget %d: the reply has %d tokens (usedTokens %d)", budget, n, r.UsedTokens)
		}
		if (budget == 800 || budget == 2000) && search.Tokens(reply) < budget*3/4 {
			t.Errorf("budget %d: only %d tokens used, with %d notes left out", budget, search.Tokens(reply), r.Left)
		}
		if len(r.Items) == 0 || strings.Contains(reply, `"excerpt"`) {
			t.Errorf("budget %d: items must be there, without excerpts: %s", budget, reply)
		}
		for i, it := range r.Items {
			if it.ID == "" || it.Path == "" || !strings.Contains(r.Context, fmt.Sprintf("## %s [%d]\n", it.Title, i+1)) {
				t.Errorf("budget %d: item %d does not point into the context: %+v", budget, i+1, it)
			}
		}
	}
	// The description states the overhead the code keeps.
	if d := NewRegistry().Get("recall").Description; !strings.Contains(d, fmt.Sprintf("budgetTokens + %d", recall.Overhead)) {
		t.Errorf("recall's description does not state the overhead %d: %s", recall.Overhead, d)
	}
}

// search gives one score per hit; each list's rank only with explain.
func TestSearchScoresOnlyOnRequest(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "read"))
	res, err := callTool(t, c, "search", map[string]any{"query": "which CDN did we choose"})
	if err != nil || res.IsError {
		t.Fatalf("search: %v %s", err, text(res))
	}
	plain := text(res)
	for _, key := range []string{`"lexical"`, `"semantic"`, `"rank"`} {
		if strings.Contains(plain, key) {
			t.Errorf("a plain search returns %s: %s", key, plain)
		}
	}
	if !strings.Contains(plain, `"score"`) {
		t.Errorf("a hit keeps its score: %s", plain)
	}
	res, err = callTool(t, c, "search", map[string]any{"query": "which CDN did we choose", "explain": true, "mode": "lexical"})
	if err != nil || res.IsError || !strings.Contains(text(res), `"lexical":{"rank":1}`) {
		t.Errorf("explain must give each list's rank: %v %s", err, text(res))
	}
	res, err = callTool(t, c, "search", map[string]any{"query": "x", "explain": "yes"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "explain") {
		t.Errorf("a bad explain must be an error naming it: %v %s", err, text(res))
	}
}

// start_session says each observation of the profile once.
func TestStartSessionReplyHasNoDuplicate(t *testing.T) {
	ts := newTestServer(t, "../sample-vault")
	c := ts.client(t, ts.token(t, "owner", "read"))
	res, err := callTool(t, c, "start_session", map[string]any{"project": "acme/launch"})
	if err != nil || res.IsError {
		t.Fatalf("start_session: %v %s", err, text(res))
	}
	var s vault.SessionStart
	if err := json.Unmarshal([]byte(text(res)), &s); err != nil {
		t.Fatal(err)
	}
	if s.Profile == nil || len(s.Profile.Observations) < 8 {
		t.Fatalf("profile: %+v", s.Profile)
	}
	for _, o := range s.Profile.Observations {
		if n := strings.Count(text(res), o.Text); n != 1 {
			t.Errorf("%q is in the reply %d times", o.Text, n)
		}
	}
}
