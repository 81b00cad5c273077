package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/vault"
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
	caller := vault.Caller{Principal: v.Owner(), Ceiling: vault.RoleWrite, Actor: "agent", Tool: "hindsight_put"}
	dia := map[string]map[string]string{} // bank → text → dialogue id
	start := time.Now()
	puts := 0
	for _, s := range samples {
		dia[s.ID] = map[string]string{}
		for key, val := range s.Conversation {
			m := sessionRe.FindStringSubmatch(key)
			if m == nil {
				continue
			}
			var turns []turn
			if err := json.Unmarshal(val, &turns); err != nil {
				return err
			}
			var when string
			json.Unmarshal(s.Conversation[key+"_date_time"], &when)
			for _, t := range turns {
				content := t.Speaker + ": " + t.Text
				if t.Caption != "" {
					content += " (shares a photo: " + t.Caption + ")"
				}
				if _, err := v.BankPut(caller, s.ID, content, "session "+m[1]+", "+when, ""); err != nil {
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

	reader := vault.Caller{Principal: v.Owner(), Ceiling: vault.RoleRead, Actor: "agent", Tool: "hindsight_search"}
	ks := []int{5, 10, 20}
	sums := map[int][]float64{}
	counts := map[int]int{}
	var lat []time.Duration
	for _, s := range samples {
		for _, q := range s.QA {
			if q.Category == 5 || len(q.Evidence) == 0 {
				continue
			}
			t0 := time.Now()
			facts, err := v.BankSearch(context.Background(), reader, s.ID, q.Question, 0)
			lat = append(lat, time.Since(t0))
			if err != nil {
				return err
			}
			var got []string
			for _, f := range facts {
				got = append(got, dia[s.ID][f.Text])
			}
			for _, cat := range []int{0, q.Category} {
				if sums[cat] == nil {
					sums[cat] = make([]float64, len(ks))
				}
				counts[cat]++
				for i, k := range ks {
					sums[cat][i] += recallAt(got, q.Evidence, k)
				}
			}
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	fmt.Println("| via | category | questions | recall@5 | recall@10 | recall@20 | p50 | p99 |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, cat := range []int{1, 2, 3, 4, 0} {
		name := categoryNames[cat]
		if cat == 0 {
			name = "**all**"
		}
		if counts[cat] == 0 {
			continue
		}
		r, n := sums[cat], float64(counts[cat])
		p50, p99 := "", ""
		if cat == 0 {
			p50 = fmt.Sprintf("%.1f ms", float64(lat[len(lat)/2].Microseconds())/1000)
			p99 = fmt.Sprintf("%.1f ms", float64(lat[len(lat)*99/100].Microseconds())/1000)
		}
		fmt.Printf("| hindsight_search | %s | %d | %.3f | %.3f | %.3f | %s | %s |\n", name, counts[cat], r[0]/n, r[1]/n, r[2]/n, p50, p99)
	}
	return nil
}
