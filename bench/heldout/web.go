package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/bm25"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

// The web set (bench/heldout/web, its README says how it was made):
// 3,070 passages of Go's documentation, 40 to 120 words each, one note
// per passage; 52 keyword queries typed as into a search box; graded
// judgments (0 to 3). It is measured twice, the same notes under two
// namings: numbered (w00001.md, w00002.md… in an order that says nothing
// of what they hold, as web passages gathered in any order are) and
// names without order (a hash of the passage's id). A ranking rule that
// reads order into numbered names shows as a gap between the two.

const webDir = "bench/heldout/web"

// passage is one line of passages.tsv.gz.
type passage struct{ id, topic, text string }

func readPassages() ([]passage, error) {
	f, err := os.Open(filepath.Join(webDir, "passages.tsv.gz"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var out []passage
	sc := bufio.NewScanner(z)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 3)
		if len(f) == 3 {
			out = append(out, passage{f[0], f[1], f[2]})
		}
	}
	return out, sc.Err()
}

// webQuery is a query with its graded passages.
type webQuery struct {
	id, text string
	grades   map[string]int // passage id → grade (absent: 0)
}

func readWebQueries() ([]webQuery, error) {
	qs := map[string]*webQuery{}
	var order []string
	if err := eachLine(filepath.Join(webDir, "queries.tsv"), func(f []string) {
		if len(f) == 2 && f[0] != "qid" {
			qs[f[0]] = &webQuery{id: f[0], text: f[1], grades: map[string]int{}}
			order = append(order, f[0])
		}
	}); err != nil {
		return nil, err
	}
	if err := eachLine(filepath.Join(webDir, "qrels.tsv"), func(f []string) {
		if q := qs[f[0]]; q != nil && len(f) == 3 {
			g, _ := strconv.Atoi(f[2])
			q.grades[f[1]] = g
		}
	}); err != nil {
		return nil, err
	}
	out := make([]webQuery, 0, len(order))
	for _, id := range order {
		out = append(out, *qs[id])
	}
	return out, nil
}

func eachLine(file string, fn func([]string)) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			fn(strings.Split(line, "\t"))
		}
	}
	return sc.Err()
}

// webNames names each passage's note: numbered in the order of a hash of
// its id, or by that hash.
func webNames(ps []passage, numbered bool) map[string]string {
	type h struct{ id, sum string }
	hs := make([]h, len(ps))
	for i, p := range ps {
		s := sha1.Sum([]byte(p.id))
		hs[i] = h{p.id, hex.EncodeToString(s[:8])}
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].sum < hs[j].sum })
	out := map[string]string{}
	for i, x := range hs {
		if numbered {
			out[x.id] = fmt.Sprintf("web/w%05d.md", i+1)
		} else {
			out[x.id] = "web/" + x.sum + ".md"
		}
	}
	return out
}

// runWeb measures the web set under one naming: nDCG@10 per mode and for
// the bench's own BM25.
func runWeb(numbered bool, modes []string, show bool) error {
	ps, err := readPassages()
	if err != nil {
		return err
	}
	qs, err := readWebQueries()
	if err != nil {
		return err
	}
	names := webNames(ps, numbered)
	byPath := map[string]string{} // note path → passage id
	tmp, err := os.MkdirTemp("", "heldout-web-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "src")
	os.MkdirAll(filepath.Join(src, "web"), 0o755)
	if err := os.WriteFile(filepath.Join(src, "web", ".cairn-project.yaml"), []byte("handle: web\nname: Web passages\n"), 0o644); err != nil {
		return err
	}
	texts := map[string]string{}
	for _, p := range ps {
		n := names[p.id]
		byPath[n] = p.id
		texts[p.id] = p.text
		// A passage is one line: one that opens with a doc heading ("#
		// Precedence If two…") would be all title in Markdown. It is
		// written as the plain text it is.
		body := strings.TrimPrefix(p.text, "# ")
		if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(n)), []byte(body+"\n"), 0o644); err != nil {
			return err
		}
	}
	v, done, err := openBenchVault(tmp, src)
	if err != nil {
		return err
	}
	defer done()
	naming := "names without order"
	if numbered {
		naming = "numbered names"
	}
	fmt.Printf("web set, %s: %d passages, %d queries\n\n| mode | nDCG@10 | p50 |\n|---|---|---|\n", naming, len(ps), len(qs))
	ref := bm25.New(texts)
	var sum float64
	for _, q := range qs {
		score := ndcg10(ref.Search(q.text, 10), q.grades)
		if show {
			fmt.Printf("  bm25 | %s %q: %.3f\n", q.id, q.text, score)
		}
		sum += score
	}
	fmt.Printf("| plain BM25 (bench) | %.3f | |\n", sum/float64(len(qs)))
	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "bench"}
	for _, mode := range modes {
		var sum float64
		var lat []time.Duration
		for _, q := range qs {
			t0 := time.Now()
			res, err := v.Search(context.Background(), caller, vault.SearchArgs{Query: q.text, Project: "web", Limit: 10, Mode: mode})
			lat = append(lat, time.Since(t0))
			if err != nil {
				return fmt.Errorf("%q: %w", q.text, err)
			}
			var got []string
			for _, h := range res.Results {
				got = append(got, byPath[h.Path])
			}
			score := ndcg10(got, q.grades)
			if os.Getenv("HELDOUT_Q") == q.id {
				for i, id := range got {
					fmt.Printf("    lex %d %s g%d %.90s\n", i+1, id, q.grades[id], texts[id])
				}
				for i, id := range ref.Search(q.text, 10) {
					fmt.Printf("    bm25 %d %s g%d %.90s\n", i+1, id, q.grades[id], texts[id])
				}
			}
			if show {
				fmt.Printf("  %s | %s %q: %.3f\n", mode, q.id, q.text, score)
			}
			sum += score
		}
		fmt.Printf("| %s | %.3f | %.1f ms |\n", mode, sum/float64(len(qs)), float64(measure.Pct(lat, 50).Microseconds())/1000)
	}
	fmt.Println()
	return nil
}

// ndcg10 is nDCG@10 of ranked ids against graded judgments (gain 2^g − 1).
func ndcg10(ranked []string, grades map[string]int) float64 {
	dcg := 0.0
	for i, id := range ranked[:min(10, len(ranked))] {
		dcg += (math.Pow(2, float64(grades[id])) - 1) / math.Log2(float64(i+2))
	}
	var ideal []int
	for _, g := range grades {
		ideal = append(ideal, g)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := 0.0
	for i, g := range ideal[:min(10, len(ideal))] {
		idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}
