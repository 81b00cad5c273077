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
