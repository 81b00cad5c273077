package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// The manifest written a document at a time is byte for byte what
// json.Marshal makes of it, so that a manifest reads back as it always
// did: keys sorted, strings escaped the same way, empty and nil maps.
func TestTheManifestIsWrittenAsJSONMarshalWritesIt(t *testing.T) {
	docs := map[string]*docMeta{}
	for i, p := range []string{"b.md", "a.md", "x/<&>.md", "é/\"q\".md", "z\u2028.md", "n\\t.md"} {
		docs[p] = &docMeta{Version: fmt.Sprint("v", i), At: uint64(i), Scope: "shared", Project: "p<&>",
			Tags: []string{"t", "é"}, Date: int64(i) * 1000, Who: []string{"ann"}, Seq: []string{"s"}}
	}
	docs["nil.md"] = nil
	for _, m := range []manifest{
		{Format: manifestFormat, Seq: 7, Docs: docs, Refresh: []string{"a.md", "b<.md"}},
		{Format: manifestFormat, Seq: 1, Docs: docs},
		{Format: manifestFormat, Docs: map[string]*docMeta{}},
		{Format: manifestFormat, Docs: nil, Refresh: []string{"r.md"}},
	} {
		want, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := m.write(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("written:\n%s\njson.Marshal:\n%s", got.Bytes(), want)
		}
	}
}
