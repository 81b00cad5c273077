package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
	"github.com/cairn-dev/cairn/vault/hindsight"
)

// runHindsight is the same measure through the hindsight toolset's
// operations: every turn stored with hindsight_put's (one bank per
// conversation, "Speaker: words" as the content, the session and its date
// as the context), every question asked with hindsight_search's (default
// budget of 4,096 tokens), recall@k over the facts it returns in order.
func runHindsight(dir string, samples []sample) error {
	vdir := filepath.Join(dir, "hindsight-vault")
	if _, err := vault.Init(vdir, vault.InitOptions{}); err != nil {
		return err
	}
	v, err := vault.Open(vdir, vault.Options{})
	if err != nil {
		return err
	}
	defer v.Close()
	if _, err := v.SearchIndex(); err != nil {
		return err
	}
	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleWrite, Actor: "agent", Tool: "hindsight_put"}
	dia := map[string]map[string]string{} // bank → text → dialogue id
	start := time.Now()
	puts := 0
	for _, s := range samples {
		dia[s.ID] = map[string]string{}
		sessions, err := sessionsOf(s)
		if err != nil {
			return err
		}
		for _, ss := range sessions {
			for _, t := range ss.turns {
				content := t.Speaker + ": " + t.Text
				if t.Caption != "" {
					content += " (shares a photo: " + t.Caption + ")"
				}
				if _, err := hindsight.Of(v).Put(caller, s.ID, content, "session "+ss.num+", "+ss.when, ""); err != nil {
					return fmt.Errorf("%s %s: %w", s.ID, t.DiaID, err)
				}
				dia[s.ID][content] = t.DiaID
				puts++
			}
		}
	}
	ingest := time.Since(start)
	ix, _ := v.SearchIndex()
	ix.WaitVectors(10 * time.Minute)
	fmt.Printf("hindsight: %d facts put in %s (%.0f/s)\n\n", puts, ingest.Round(time.Millisecond), float64(puts)/ingest.Seconds())

	reader := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "hindsight_search"}
	t := newTally()
	for _, s := range samples {
		for _, q := range s.QA {
			if q.Category == 5 || len(q.Evidence) == 0 {
				continue
			}
			t0 := time.Now()
			facts, err := hindsight.Of(v).Search(context.Background(), reader, s.ID, q.Question, 0)
			d := time.Since(t0)
			if err != nil {
				return err
			}
			var got []string
			for _, f := range facts {
				got = append(got, dia[s.ID][f.Text])
			}
			t.add(q.Category, got, q.Evidence, d)
		}
	}
	fmt.Println("| via | category | questions | recall@5 | recall@10 | recall@20 | p50 | p99 |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	t.print("hindsight_search")
	return nil
}
