package search

import (
	"fmt"
	"strings"
	"testing"
)

func TestChunksCutAtHeadingsNotInCode(t *testing.T) {
	body := "Intro words.\n\n# One\n\nFirst section.\n\n```\n# not a heading\n```\n\n## Two ##\n\nSecond.\n\n#hashtag is not a heading\n\n### \n\n    # indented code\n"
	cs := Chunks(body)
	var heads []string
	for _, c := range cs {
		heads = append(heads, c.Heading)
		if c.Start < 0 || c.End > len(body) || c.Start >= c.End {
			t.Fatalf("bad chunk %+v", c)
		}
	}
	// "### " is an empty heading (CommonMark); what follows is its section.
	if strings.Join(heads, "|") != "|One|Two|" {
		t.Errorf("headings %q", heads)
	}
	if !strings.Contains(body[cs[1].Start:cs[1].End], "# not a heading") {
		t.Error("fenced code must stay in its section")
	}
	if len(Chunks("  \n\n")) != 0 {
		t.Error("a body with no words has no chunks")
	}
}

func TestLongSectionsAreSplitAtParagraphs(t *testing.T) {
	para := strings.Repeat("word ", 100)
	body := "# Long\n\n" + para + "\n\n" + para + "\n\n" + para + "\n"
	cs := Chunks(body)
	if len(cs) < 2 {
		t.Fatalf("one chunk for 300 words: %+v", cs)
	}
	covered := 0
	for i, c := range cs {
		if n := len(strings.Fields(body[c.Start:c.End])); n > maxChunkWords+1 {
			t.Errorf("chunk %d has %d words", i, n)
		}
		if i > 0 && c.Start != cs[i-1].End {
			t.Errorf("chunks must tile the section: %d starts at %d, previous ends at %d", i, c.Start, cs[i-1].End)
		}
		covered += len(strings.Fields(body[c.Start:c.End]))
	}
	if covered != 302 {
		t.Errorf("%d words covered, want 302", covered)
	}
	one := "# X\n\n" + strings.Repeat("w ", 500)
	for _, c := range Chunks(one) {
		if n := len(strings.Fields(one[c.Start:c.End])); n > maxChunkWords+2 {
			t.Errorf("a single long paragraph gave a chunk of %d words", n)
		}
	}
}

func TestTruncateNeverExceeds(t *testing.T) {
	text := strings.Repeat("Décision: we roll back the deploy when p99 > 2 s. ", 40)
	for _, max := range []int{1, 5, 17, 100, 1000} {
		out := Truncate(text, max)
		if Tokens(out) > max {
			t.Errorf("max %d: %d tokens", max, Tokens(out))
		}
		if Tokens(text) > max && out != "" && !strings.HasSuffix(out, "…") {
			t.Errorf("max %d: a cut text must say so: %q", max, out)
		}
		if max >= 5 && out == "" {
			t.Errorf("max %d: nothing kept", max)
		}
	}
	if Truncate("short", 10) != "short" {
		t.Error("a text that fits is kept whole")
	}
	if s := Truncate(strings.Repeat("x", 5000), 20); Tokens(s) > 20 || s == "" {
		t.Errorf("one long word: %q", s)
	}
	if Tokens("hello world") != 2 {
		t.Errorf("o200k: %d tokens for 'hello world'", Tokens("hello world"))
	}
}

// truncateWhole is Truncate as it was, counting the whole text: the
// reference the bounded one must agree with.
func truncateWhole(s string, max int) string {
	if max <= 0 {
		return ""
	}
	if Tokens(s) <= max {
		return s
	}
	words := strings.SplitAfter(s, " ")
	lo, hi := 0, len(words)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if Tokens(strings.Join(words[:mid], "")+"…") <= max {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		rs := []rune(s)
		lo, hi = 0, len(rs)
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if Tokens(string(rs[:mid])+"…") <= max {
				lo = mid
			} else {
				hi = mid
			}
		}
		if lo == 0 {
			return ""
		}
		return string(rs[:lo]) + "…"
	}
	return strings.TrimRight(strings.Join(words[:lo], ""), " ") + "…"
}

// Truncate counts only a prefix a little longer than the budget, and cuts
// exactly where counting the whole text would.
func TestTruncateCountsAPrefixOnly(t *testing.T) {
	texts := []string{
		strings.Repeat("Décision: we roll back the deploy when p99 > 2 s. ", 400),
		strings.Repeat("y", 20000),
		strings.Repeat("Y", 20000),
		strings.Repeat(" ", 50000) + "x",
		strings.Repeat("[[n1]] ", 5000),
		strings.Repeat("## Heading\n\nword\n\n", 2000),
		strings.Repeat("東京の会議で決めたこと。", 2000),
		"short text",
	}
	for i, text := range texts {
		for _, max := range []int{1, 5, 17, 100, 1000, 6000} {
			got, want := Truncate(text, max), truncateWhole(text, max)
			if got != want {
				t.Errorf("text %d, max %d: cut at %d bytes, counting the whole text cuts at %d", i, max, len(got), len(want))
			}
		}
	}
}

// A note of 10,000 headings makes at most maxChunks chunks, in order,
// covering every section, with headings cut to maxHeadingBytes.
func TestChunksAreBoundedPerNote(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&b, "## Heading %d\n\nword%d\n\n", i, i)
	}
	b.WriteString("# " + strings.Repeat("long heading ", 100) + "\n\nlast words\n")
	body := b.String()
	cs := Chunks(body)
	if len(cs) > maxChunks || len(cs) < maxChunks/2 {
		t.Fatalf("%d chunks, want at most %d (and not far fewer)", len(cs), maxChunks)
	}
	for i, c := range cs {
		if i > 0 && c.Start < cs[i-1].End {
			t.Fatalf("chunk %d starts at %d, before the previous end %d", i, c.Start, cs[i-1].End)
		}
		if len(c.Heading) > maxHeadingBytes {
			t.Fatalf("chunk %d keeps a heading of %d bytes", i, len(c.Heading))
		}
	}
	for _, w := range []string{"word0", "word5000", "word9999", "last words"} {
		found := false
		for _, c := range cs {
			found = found || strings.Contains(body[c.Start:c.End], w)
		}
		if !found {
			t.Errorf("%q is in no chunk", w)
		}
	}
}

// countWords and hasWord count words as strings.Fields splits them,
// Unicode spaces included, which splitSection relied on.
func TestWordCountsAreStringsFields(t *testing.T) {
	for _, s := range []string{"", " ", "\n\t\r ", "a", " a ", "one two  three", "é\u00a0è", "x\u2003y\u3000z", "\u0085", "line\nnext\n\nafter", "日本語 テキスト"} {
		want := len(strings.Fields(s))
		if got := countWords(s); got != want {
			t.Errorf("countWords(%q) = %d, want %d", s, got, want)
		}
		if got := hasWord(s); got != (want > 0) {
			t.Errorf("hasWord(%q) = %v, want %v", s, got, want > 0)
		}
	}
}
