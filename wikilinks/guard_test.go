package wikilinks

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The neutralised copy gives the links goldmark finds in the note itself,
// offsets included, on every note of the sample vault and on Markdown
// that mixes wikilinks with Markdown links, images, references, code,
// comments and nesting.
func TestNeutralisedParseFindsTheSameLinks(t *testing.T) {
	var bodies []string
	err := filepath.WalkDir("../sample-vault", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		b, err := os.ReadFile(p)
		bodies = append(bodies, string(b))
		return err
	})
	if err != nil || len(bodies) < 20 {
		t.Fatalf("sample vault: %d notes, %v", len(bodies), err)
	}
	bodies = append(bodies,
		"See [the docs](https://x.y/[a]) and [[Pricing]], ![img](a.png) ![[Diagram]] [ref][1].\n\n[1]: https://x.y \"t\"\n",
		"[see [[Inside link text]]](url) and [[A|label [b]]] and [[[Triple]]] and [x][[Adjacent]]\n",
		"`[[Code span]]` and ``a [[Two ticks]] ``[[After]]\n\n```\n[[Fenced]]\n```\n\n    [[Indented code]]\n",
		"> quote [[Q]]\n> > deeper [[QQ]]\n- item [[L]]\n  - sub [[LL]]\n1. one [[O]]\n   2) two [[OO]]\n",
		"| a | [[T\\|shown]] |\n|---|---|\n| [x](y) | [[Cell]] |\n",
		"- [ ] task [[Task]]\n- [x] done [[Done]]\n\n[[Unclosed\n[[Closed]] [[Also#Heading]] [[#Local]] [[^block]]\n"+strings.Repeat("[", 10)+"[[Deep]]"+strings.Repeat("]", 10)+"\n",
		"<div>\n[[In HTML block]]\n</div>\n\n<span>[[In inline HTML]]</span> <https://auto.link/[[x]]>\n",
		strings.Repeat("- ", 16)+"[[Sixteen deep]]\n"+strings.Repeat("> ", 16)+"[[Quoted deep]]\n",
		strings.Repeat("- ", 40)+"[[Forty deep]]\n\n"+strings.Repeat(">", 40)+"[[Forty quotes]]\n\n"+strings.Repeat("1. ", 40)+"[[Forty ordered]]\n",
		"[["+strings.Repeat("a", maxLinkBytes-4)+"]] [[Short]]\n",
		"[t](Note.md) [u](Folder/My%20Note.md#Part%20Two) [v](<Folder/My Note.md>) ![](a.pdf) [w](../x/Note.md)\n",
		"[a [b] c](x.md) [![img](in.png)](out.md) [d](a(b).md) [e](x.y/[a].md) [r][ref] [s](#Local)\n\n[ref]: Note.md\n",
		"%% [[hidden]] [h](h.md) %% [[shown]]\n%%\n[[hidden too]]\n%%\n`%%` [[after code]]\n",
	)
	for i, b := range bodies {
		want, got := parse([]byte(b)), Parse([]byte(b))
		if !reflect.DeepEqual(want, got) {
			t.Errorf("note %d: neutralised %+v\ngoldmark %+v", i, got, want)
		}
	}
}

// Each hostile body parses in linear time now: minutes before for some of
// them at 1 MiB. A hang check, not a timing.
func TestHostileBodiesParseInBoundedTime(t *testing.T) {
	n := 120000
	var refs strings.Builder
	for i := 0; i < n/4; i++ {
		fmt.Fprintf(&refs, "[a%d]: b\n", i)
	}
	bodies := map[string]string{
		"unclosed links":  strings.Repeat("[a](", n),
		"unclosed images": strings.Repeat("![a](", n),
		"references":      refs.String(),
		"nested list":     strings.Repeat("- ", n),
		"nested ordered":  strings.Repeat("1. ", n),
		"nested quotes":   strings.Repeat("> ", n),
		"quotes":          strings.Repeat(">", n),
		"unclosed [[":     strings.Repeat("[[a ", n),
		"many links":      strings.Repeat("[[a]] ", n),
		"markdown links":  strings.Repeat("[a](b) ", n),
		"images":          strings.Repeat("![a](b.png)", n),
		"open parens":     strings.Repeat("(", n) + "[a](b)",
		"open brackets":   strings.Repeat("[", n) + "](x)" + strings.Repeat("]", n),
		"nested labels":   strings.Repeat("[a [b] [c]](d) ", n/4),
		"comments":        strings.Repeat("%%", n),
	}
	for name, b := range bodies {
		body := []byte(b + "\n[[End]]\n")
		done := make(chan []Link, 1)
		go func() { done <- Parse(body) }()
		select {
		case links := <-done:
			if len(links) == 0 || links[len(links)-1].Target != "End" {
				t.Errorf("%s: the last link is lost: %d links", name, len(links))
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: parsing %d bytes did not finish in 60 s", name, len(body))
		}
	}
}
