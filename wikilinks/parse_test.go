package wikilinks

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseEveryForm(t *testing.T) {
	body := "# Note\n\nSee [[Title]], [[ Spaced | label ]], [[Page#Heading]], [[Page#^block-1]] and ![[Embedded]].\n" +
		"Path form [[acme/launch/Pricing]], id [[01KB2ZJ5N3V7M1YB4E8W0QXR6T]], self [[#Local]].\n\n" +
		"| a | b |\n|---|---|\n| [[Cell\\|shown]] | x |\n\n" +
		"```\n[[Not a link]]\n```\n\nand `[[Not either]]` inline.\n"
	got := Parse([]byte(body))
	var s []string
	for _, l := range got {
		s = append(s, fmt.Sprintf("%s|%s|%s|%s", l.Type, l.Target, l.Fragment, l.Label))
		if l.Target != "" && (l.Offset < 0 || l.Offset+l.Len > len(body) || body[l.Offset:l.Offset+l.Len] != l.Target) {
			t.Errorf("offset of %q wrong: %d", l.Target, l.Offset)
		}
	}
	want := []string{
		"links_to|Title||", "links_to|Spaced||label", "links_to|Page|Heading|", "links_to|Page|^block-1|",
		"embeds|Embedded||", "links_to|acme/launch/Pricing||", "links_to|01KB2ZJ5N3V7M1YB4E8W0QXR6T||",
		"links_to||Local|", "links_to|Cell||shown",
	}
	if strings.Join(s, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(s, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseRef(t *testing.T) {
	for in, want := range map[string][2]string{
		`[[Pricing]]`:         {"Pricing", ""},
		`[[Pricing#Tiers|x]]`: {"Pricing", "Tiers"},
		` Launch plan `:       {"Launch plan", ""},
		`[[a/b/C\|x]]`:        {"a/b/C", ""},
	} {
		if tg, fr := ParseRef(in); tg != want[0] || fr != want[1] {
			t.Errorf("ParseRef(%q) = %q %q", in, tg, fr)
		}
	}
}

func TestParseSaysWhichLinksSitInATable(t *testing.T) {
	body := "See [[Out]].\n\n| a | b |\n|---|---|\n| [[In]] | [[Also\\|shown]] |\n"
	var got []string
	for _, l := range Parse([]byte(body)) {
		got = append(got, fmt.Sprintf("%s:%v", l.Target, l.InTable))
	}
	if strings.Join(got, ",") != "Out:false,In:true,Also:true" {
		t.Fatalf("got %v", got)
	}
}

// Every form Obsidian links with, and what is not a link: each body gives
// its links as type|form|target|fragment|label (flags E encoded, A angle).
func TestParseObsidianForms(t *testing.T) {
	for body, want := range map[string]string{
		"[[Note#H1#H2]]":                   "links_to|wikilink|Note|H1#H2|",
		"[[Note.md|shown]]":                "links_to|wikilink|Note.md||shown",
		"[[a|b|c]]":                        "links_to|wikilink|a||b|c",
		"[[[Note]]] ![[[[pic.png]]":        "links_to|wikilink|Note||\nlinks_to|wikilink|pic.png||",
		"[[folder/Note#^blk]]":             "links_to|wikilink|folder/Note|^blk|",
		"![[pic.png]]":                     "embeds|wikilink|pic.png||",
		"![[doc.pdf#page=3]]":              "embeds|wikilink|doc.pdf|page=3|",
		"[text](Note.md)":                  "links_to|markdown|Note.md||text",
		"[t](Folder/My%20Note.md#Sec%20A)": "links_to|markdown|Folder/My Note.md|Sec A|t E",
		"[t](<Folder/My Note.md>)":         "links_to|markdown|Folder/My Note.md||t A",
		"[t](../x/Note.md)":                "links_to|markdown|../x/Note.md||t",
		"![](a.pdf)":                       "embeds|markdown|a.pdf||",
		"![alt](img/pic.png \"title\")":    "embeds|markdown|img/pic.png||alt",
		"[t](#Local)":                      "links_to|markdown||Local|t",
		"[t](Note)":                        "links_to|markdown|Note||t",
		"[t](100%.md)":                     "links_to|markdown|100%.md||t",
		"[t](https://x.y/a.md) [m](mailto:a@b.c) [o](obsidian://open?file=x) <https://x.y>": "",
		"[t][ref]\n\n[ref]: Note.md\n":                              "",
		"`[[code]]` and `[t](x.md)`":                                "",
		"```\n[[fenced]] [t](x.md)\n```\n":                          "",
		"    [[indented]]\n":                                        "",
		"%% [[inline comment]] %% [[after]]":                        "links_to|wikilink|after||",
		"%%\n[[block comment]]\n[t](x.md)\n%%\n[[after]]":           "links_to|wikilink|after||",
		"`%%` [[not a comment]] `%%`":                               "links_to|wikilink|not a comment||",
		"[[before]] %% never closed\n[[hidden]]\n":                  "links_to|wikilink|before||",
		"| a | b |\n|---|---|\n| [t](My%20Note.md) | [[T\\|x]] |\n": "links_to|markdown|My Note.md||t E\nlinks_to|wikilink|T||x",
		"[[]] [[ ]] [[|x]] [[#]] []() [x]()":                        "",
	} {
		var got []string
		for _, l := range Parse([]byte(body)) {
			s := fmt.Sprintf("%s|%s|%s|%s|%s", l.Type, l.Form, l.Target, l.Fragment, l.Label)
			if l.Encoded {
				s += " E"
			}
			if l.Angle {
				s += " A"
			}
			got = append(got, s)
			checkPlacedOrNot(t, body, l)
		}
		if strings.Join(got, "\n") != want {
			t.Errorf("%q:\ngot  %q\nwant %q", body, strings.Join(got, "\n"), want)
		}
	}
}

func checkPlacedOrNot(t *testing.T, body string, l Link) {
	t.Helper()
	if l.Target != "" && l.Offset < 0 {
		t.Errorf("%+v is not placed in %q", l, body)
	}
	checkPlaced(t, []byte(body), l)
}

// Lines count from the body's first line, and a rewrite spelled in the
// link's style reads back as the new target.
func TestLinesAndSpelling(t *testing.T) {
	body := "# T\n\n[[A]]\ntext [b](B.md)\n\n- ![c](<C d.png>)\n"
	var lines []int
	for _, l := range Parse([]byte(body)) {
		lines = append(lines, l.Line)
	}
	if fmt.Sprint(lines) != "[3 4 6]" {
		t.Fatalf("lines %v", lines)
	}
	for _, c := range []struct {
		l    Link
		want string
	}{
		{Link{Form: FormWiki}, "a b/Note (1)"},
		{Link{Form: FormMarkdown}, "a%20b/Note%20%281%29"},
		{Link{Form: FormMarkdown, Angle: true}, "a b/Note (1)"},
		{Link{Form: FormMarkdown, Encoded: true}, "a%20b/Note%20%281%29"},
	} {
		if got := c.l.Spell("a b/Note (1)"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.l, got, c.want)
		}
	}
	if got := (Link{Form: FormMarkdown}).Spell("plain/Note.md"); got != "plain/Note.md" {
		t.Errorf("plain: %q", got)
	}
}
