// Command locomo measures retrieval quality on LoCoMo (Maharana et al.,
// 2024): 10 long conversations, each ingested into its own project as one
// note per dialogue turn, and their questions asked within that project.
// It reports recall@5/10/20 (the fraction of a question's evidence turns
// found in the top k) per question category and overall, for lexical,
// semantic and hybrid search, with search latency. Category 5 (adversarial
// questions with no answer in the conversation) is skipped.
//
//	go run ./bench/locomo -data ../shared/data/locomo10.json [-plain]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench/bm25"
	"github.com/cairn-dev/cairn/bench/measure"
	"github.com/cairn-dev/cairn/vault"
	"github.com/cairn-dev/cairn/vault/access"
)

type sample struct {
	ID           string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
}

type turn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
	Caption string `json:"blip_caption"`
}

var viaHindsight, plainIngest bool

var categoryNames = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}

func main() {
	data := flag.String("data", "../shared/data/locomo10.json", "the LoCoMo file")
	keep := flag.String("vault", "", "build the vault here and keep it (default: a temporary folder)")
	convs := flag.Int("convs", 0, "only the first N conversations (0: all)")
	modes := flag.String("modes", "lexical,semantic,hybrid", "modes to measure")
	hs := flag.Bool("hindsight", false, "measure through hindsight_put / hindsight_search instead (one bank per conversation)")
	plain := flag.Bool("plain", false, "ingest plainly: one note per turn titled by its dialogue id, body \"Speaker (date): text\", no frontmatter or links")
	names := flag.String("names", "numbered", "plain ingest: notes named by their turn (numbered) or by a hash of it (hashed: names that carry no order)")
	flag.Parse()
	hashedNames = *names == "hashed"
	viaHindsight = *hs
	plainIngest = *plain
	if err := run(*data, *keep, *convs, strings.Split(*modes, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "locomo:", err)
		os.Exit(1)
	}
}

func run(dataFile, keep string, maxConvs int, modes []string) error {
	raw, err := os.ReadFile(dataFile)
	if err != nil {
		return err
	}
	var samples []sample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return fmt.Errorf("%s: %w", dataFile, err)
	}
	if maxConvs > 0 && maxConvs < len(samples) {
		samples = samples[:maxConvs]
	}
	dir := keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "locomo-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	if viaHindsight {
		return runHindsight(dir, samples)
	}
	src := filepath.Join(dir, "src")
	write := writeNotes
	if plainIngest {
		write = writePlainNotes
	}
	turns, err := write(src, samples)
	if err != nil {
		return err
	}
	vdir := filepath.Join(dir, "vault")
	if _, err := vault.Init(vdir, vault.InitOptions{From: src}); err != nil {
		return err
	}
	v, err := vault.Open(vdir, vault.Options{})
	if err != nil {
		return err
	}
	defer v.Close()
	start := time.Now()
	ix, err := v.SearchIndex()
	if err != nil {
		return err
	}
	lexTime := time.Since(start)
	ix.WaitVectors(10 * time.Minute)
	ingest := "structured"
	if plainIngest {
		ingest = "plain"
	}
	fmt.Printf("%s ingest, %d conversations, %d turns: indexed in %s, embedded in %s more\n\n", ingest, len(samples), turns, lexTime.Round(time.Millisecond), (time.Since(start) - lexTime).Round(time.Millisecond))

	caller := access.Caller{Principal: v.Owner(), Ceiling: access.RoleRead, Actor: "agent", Tool: "bench"}
	fmt.Println("| mode | category | questions | recall@5 | recall@10 | recall@20 | p50 | p99 |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	if err := bm25Rows(src, samples); err != nil {
		return err
	}
	for _, mode := range modes {
		t := newTally()
		for _, s := range samples {
			for _, q := range s.QA {
				if q.Category == 5 || len(q.Evidence) == 0 {
					continue
				}
				t0 := time.Now()
				res, err := v.Search(context.Background(), caller, vault.SearchArgs{Query: q.Question, Project: s.ID, Limit: 20, Mode: mode})
				d := time.Since(t0)
				if err != nil {
					return fmt.Errorf("%s: %q: %w", s.ID, q.Question, err)
				}
				var got []string
				for _, h := range res.Results {
					got = append(got, diaOf(h.Path))
				}
				t.add(q.Category, got, q.Evidence, d)
			}
		}
		t.print(mode)
	}
	return nil
}

// bm25Rows are the bench's own plain BM25 over each conversation's notes
// (their files, as written), beside cairn's modes.
func bm25Rows(src string, samples []sample) error {
	t := newTally()
	for _, s := range samples {
		texts := map[string]string{}
		err := filepath.WalkDir(filepath.Join(src, s.ID), func(f string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(f, ".md") {
				return err
			}
			data, err := os.ReadFile(f)
			texts[diaOf(f)] = string(data)
			return err
		})
		if err != nil {
			return err
		}
		ref := bm25.New(texts)
		for _, q := range s.QA {
			if q.Category == 5 || len(q.Evidence) == 0 {
				continue
			}
			t.add(q.Category, ref.Search(q.Question, 20), q.Evidence, 0)
		}
	}
	t.print("plain BM25 (bench)")
	return nil
}

// tally sums recall@k per question category (0: all) and search latency.
type tally struct {
	sums   map[int][]float64
	counts map[int]int
	lat    []time.Duration
}

var ks = []int{5, 10, 20}

func newTally() *tally { return &tally{sums: map[int][]float64{}, counts: map[int]int{}} }

func (t *tally) add(category int, got, evidence []string, d time.Duration) {
	t.lat = append(t.lat, d)
	for _, cat := range []int{0, category} {
		if t.sums[cat] == nil {
			t.sums[cat] = make([]float64, len(ks))
		}
		t.counts[cat]++
		for i, k := range ks {
			t.sums[cat][i] += recallAt(got, evidence, k)
		}
	}
}

// print writes one table row per category, then all, with latency.
func (t *tally) print(label string) {
	p := func(pct int) string {
		return fmt.Sprintf("%.1f ms", float64(measure.Pct(t.lat, pct).Microseconds())/1000)
	}
	for _, cat := range []int{1, 2, 3, 4, 0} {
		name := categoryNames[cat]
		if cat == 0 {
			name = "**all**"
		}
		if t.counts[cat] == 0 {
			continue
		}
		r, n := t.sums[cat], float64(t.counts[cat])
		p50, p99 := "", ""
		if cat == 0 {
			p50, p99 = p(50), p(99)
		}
		fmt.Printf("| %s | %s | %d | %.3f | %.3f | %.3f | %s | %s |\n", label, name, t.counts[cat], r[0]/n, r[1]/n, r[2]/n, p50, p99)
	}
}

// recallAt is the fraction of the evidence turns among the first k.
func recallAt(got, evidence []string, k int) float64 {
	top := map[string]bool{}
	for _, g := range got[:min(k, len(got))] {
		top[g] = true
	}
	found := 0
	for _, e := range evidence {
		if top[normDia(e)] {
			found++
		}
	}
	return float64(found) / float64(len(evidence))
}

var diaRe = regexp.MustCompile(`D(\d+):(\d+)`)

// normDia reads an evidence id as written in the data ("D1:3", and a few
// irregular ones such as "D:1:3" or "D1:3 ").
func normDia(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "D:", "D")
	if m := diaRe.FindStringSubmatch(s); m != nil {
		return "D" + m[1] + ":" + m[2]
	}
	return s
}

// diaOf is the dialogue id of a turn note's path (…/D1-3.md → D1:3).
func diaOf(p string) string {
	if d, ok := hashedDia[filepath.Base(p)]; ok {
		return d
	}
	base := strings.TrimSuffix(filepath.Base(p), ".md")
	return strings.Replace(base, "-", ":", 1)
}

// conversationProject makes a conversation's project folder (its marker
// names it by the sample id) and returns it.
func conversationProject(dir, id string) (string, error) {
	proj := filepath.Join(dir, id)
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return "", err
	}
	marker := fmt.Sprintf("handle: %s\nname: Conversation %s\n", id, id)
	return proj, os.WriteFile(filepath.Join(proj, ".cairn-project.yaml"), []byte(marker), 0o644)
}

var sessionRe = regexp.MustCompile(`^session_(\d+)$`)

// writeNotes writes every turn as a note: speaker, session and the
// session's date in frontmatter; the words, and a shared photo's caption,
// in the body.
func writeNotes(dir string, samples []sample) (int, error) {
	n := 0
	for _, s := range samples {
		proj, err := conversationProject(dir, s.ID)
		if err != nil {
			return 0, err
		}
		sessions, err := sessionsOf(s)
		if err != nil {
			return 0, err
		}
		for _, ss := range sessions {
			num, when := ss.num, ss.when
			date := sessionDate(when)
			sdir := filepath.Join(proj, "session-"+num)
			os.MkdirAll(sdir, 0o755)
			prev := ""
			for _, t := range ss.turns {
				// Each turn follows the one before it: a typed link, which
				// search uses as a sequence (docs/search-ranking.md).
				follows := ""
				if prev != "" {
					follows = fmt.Sprintf("follows: [%q]\n", "[["+prev+"]]")
				}
				prev = s.ID + "/session-" + num + "/" + strings.Replace(t.DiaID, ":", "-", 1)
				body := t.Text
				if t.Caption != "" {
					body += "\n\n(shares a photo: " + t.Caption + ")"
				}
				// A neutral title: the words are the body's.
				title := t.DiaID + " " + t.Speaker
				note := fmt.Sprintf("---\nspeaker: %s\nsession: %s\ndate: %s\nsession_time: %q\n%s---\n\n# %s\n\n%s\n",
					t.Speaker, num, date, when, follows, strings.ReplaceAll(title, "#", ""), body)
				name := strings.Replace(t.DiaID, ":", "-", 1) + ".md"
				if err := os.WriteFile(filepath.Join(sdir, name), []byte(note), 0o644); err != nil {
					return 0, err
				}
				n++
			}
		}
	}
	return n, nil
}

// session is one session of a conversation: its number, the date and time
// it took place (as the data writes it) and its turns in order.
type session struct {
	num, when string
	turns     []turn
}

// sessionsOf reads a conversation's sessions, in order.
func sessionsOf(s sample) ([]session, error) {
	var out []session
	for key, val := range s.Conversation {
		m := sessionRe.FindStringSubmatch(key)
		if m == nil {
			continue
		}
		ss := session{num: m[1]}
		if err := json.Unmarshal(val, &ss.turns); err != nil {
			return nil, fmt.Errorf("%s %s: %w", s.ID, key, err)
		}
		json.Unmarshal(s.Conversation[key+"_date_time"], &ss.when)
		out = append(out, ss)
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i].num)
		b, _ := strconv.Atoi(out[j].num)
		return a < b
	})
	return out, nil
}

// sessionDate turns "1:56 pm on 8 May, 2023" into 2023-05-08.
func sessionDate(s string) string {
	_, day, ok := strings.Cut(s, " on ")
	if !ok {
		return ""
	}
	t, err := time.Parse("2 January, 2006", strings.TrimSpace(day))
	if err != nil {
		return ""
	}
	return t.Format("2006-01-02")
}
