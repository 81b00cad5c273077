package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/bench/measure"
)

// sentences stand in for LoCoMo's (the benchmark's -data), so the smoke
// test needs no file beside the repository.
var sentences = []string{
	"We walked along the river until the light went down behind the hills.",
	"My sister sent me a recipe for bread with olives and rosemary.",
	"The meeting about the garden project moved to Thursday afternoon.",
	"I finally finished painting the kitchen a pale shade of green.",
	"Our team won the quiz night thanks to a question about volcanoes.",
	"He keeps a notebook of every bird he has seen since childhood.",
	"The train was late again, so I read two chapters of my novel.",
	"She is learning the violin and practises scales every morning.",
}

// TestSmoke runs the whole benchmark on 50 notes, in one commit and in a
// commit each, and checks that every figure was obtained and that they
// come in the order a start makes them. No timing is asserted.
func TestSmoke(t *testing.T) {
	c, err := parseFlags([]string{"-notes", "50", "-history", "1,all", "-writes", "20", "-searches", "20", "-poll", "50ms", "-quiet", "100ms"})
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	rows, err := run(c, sentences, t.TempDir(), &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	want := []struct {
		scenario string
		commits  int // the notes' commits and vault.Init's
	}{{"fresh clone", 2}, {"warm", 2}, {"fresh clone", 51}, {"warm", 51}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if r.scenario != want[i].scenario || r.notes != 50 || r.commits != want[i].commits {
			t.Errorf("row %d: %s, %d notes, %d commits; want %s, 50 notes, %d commits", i, r.scenario, r.notes, r.commits, want[i].scenario, want[i].commits)
		}
		if r.firstAnswer < r.initialize || r.firstSearch < r.firstAnswer || r.firstHits < 0 {
			t.Errorf("row %d: first answer %s with %d hits, first with results %s", i, r.firstAnswer, r.firstHits, r.firstSearch)
		}
		if r.initialize <= 0 || r.firstSearch < r.initialize || r.fullIndex < r.firstSearch {
			t.Errorf("row %d: initialize %s, first search %s, full index %s: want 0 < initialize ≤ first search ≤ full index", i, r.initialize, r.firstSearch, r.fullIndex)
		}
		if r.firstReply != "complete" && !strings.HasPrefix(r.firstReply, "partial: ") {
			t.Errorf("row %d: first reply %q", i, r.firstReply)
		}
		for _, m := range []struct {
			when     string
			rss, hwm uint64
		}{{"indexed", r.indexed.RSS, r.indexed.HWM}, {"after writes", r.written.RSS, r.written.HWM}} {
			if m.rss == 0 || m.hwm < m.rss {
				t.Errorf("row %d, %s: VmRSS %d, VmHWM %d", i, m.when, m.rss, m.hwm)
			}
		}
		if r.rested.RSS == 0 {
			t.Errorf("row %d: no VmRSS once idle", i)
		}
		if len(r.creates) != 10 || len(r.edits) != 10 || measure.Pct(r.creates, 50) <= 0 || measure.Pct(r.edits, 99) <= 0 {
			t.Errorf("row %d: %d creates, %d edits timed, p50 create %s, p99 edit %s", i, len(r.creates), len(r.edits), measure.Pct(r.creates, 50), measure.Pct(r.edits, 99))
		}
	}
	// ripgrep is timed beside every tenth search when it is installed.
	wantRg := 0
	if _, err := exec.LookPath("rg"); err == nil {
		wantRg = 2
	}
	for i, r := range rows {
		if len(r.searches) != 20 || measure.Pct(r.searches, 50) <= 0 || len(r.ripgrep) != wantRg {
			t.Errorf("row %d: %d searches once indexed (p50 %s), ripgrep timed %d times; want 20 and %d", i, len(r.searches), measure.Pct(r.searches, 50), len(r.ripgrep), wantRg)
		}
	}
	// A clone holds no cache: its first start finds no search index.
	for _, i := range []int{0, 2} {
		if rows[i].indexAtStart != "none" {
			t.Errorf("row %d (fresh clone): index at start %q, want none", i, rows[i].indexAtStart)
		}
	}
	var table strings.Builder
	printTable(&table, rows)
	if n := strings.Count("\n"+table.String(), "\n| "); n != 1+len(rows) {
		t.Errorf("the table has %d rows after its header, want %d:\n%s", n-1, len(rows), table.String())
	}
}

// TestFlags: each bad value is refused with its flag named.
func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"-notes", "0"}, "-notes"},
		{[]string{"-notes", "10,x"}, "-notes"},
		{[]string{"-history", "none"}, "-history"},
		{[]string{"-history", "0"}, "-history"},
		{[]string{"-notes", "10", "-history", "11"}, "-history"},
		{[]string{"-words", "0"}, "-words"},
		{[]string{"-folders", "0"}, "-folders"},
		{[]string{"-folders", "1001"}, "-folders"},
		{[]string{"-writes", "1"}, "-writes"},
		{[]string{"-searches", "-1"}, "-searches"},
		{[]string{"-within", "0s"}, "-within"},
		{[]string{"-poll", "-1s"}, "-poll"},
	} {
		_, err := parseFlags(tc.args)
		if err == nil || !strings.HasPrefix(err.Error(), tc.flag+":") {
			t.Errorf("%v: error %v, want one naming %s", tc.args, err, tc.flag)
		}
	}
	c, err := parseFlags([]string{"-notes", "10,20", "-history", "1,all"})
	if err != nil {
		t.Fatal(err)
	}
	if got := commitsFor(c.history[1], 20); got != 20 {
		t.Errorf("history all at 20 notes: %d commits, want 20", got)
	}
}
